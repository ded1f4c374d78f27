//! Hand-rolled argument parsing: each subcommand declares its options in a
//! [`Spec`]; [`parse`] checks the command line against it. `--name value`,
//! `--name=value`, short aliases (`-o`), repeatable options, `--` to end
//! options, and `-h`/`--help` anywhere.

use std::fmt;

/// One option of a subcommand.
pub struct Opt {
    /// `--long`, without the dashes.
    pub long: &'static str,
    /// A one-letter alias, `-x`.
    pub short: Option<char>,
    /// Whether it takes a value (`--input A.npy`) or is a flag (`--compare`).
    pub takes_value: bool,
    /// Whether it may be given more than once.
    pub repeatable: bool,
}

impl Opt {
    /// An option with a value, given at most once.
    pub const fn value(long: &'static str) -> Opt {
        Opt {
            long,
            short: None,
            takes_value: true,
            repeatable: false,
        }
    }

    /// A flag.
    pub const fn flag(long: &'static str) -> Opt {
        Opt {
            long,
            short: None,
            takes_value: false,
            repeatable: false,
        }
    }

    /// The same with a one-letter alias.
    pub const fn short(mut self, c: char) -> Opt {
        self.short = Some(c);
        self
    }

    /// The same, allowed several times.
    pub const fn repeatable(mut self) -> Opt {
        self.repeatable = true;
        self
    }
}

/// What a subcommand accepts.
pub struct Spec {
    /// The subcommand (`run`).
    pub command: &'static str,
    /// Its options.
    pub options: &'static [Opt],
    /// The names of its positional arguments (`MODULE`), all required.
    pub positionals: &'static [&'static str],
}

/// A command line checked against its [`Spec`].
#[derive(Debug, Default)]
pub struct Parsed {
    /// Positional arguments, in order.
    pub positionals: Vec<String>,
    values: Vec<(&'static str, String)>,
    /// `-h` or `--help` was given.
    pub help: bool,
}

impl Parsed {
    /// The value of an option given once, if given.
    pub fn value(&self, long: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| *k == long)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a repeatable option, in order.
    pub fn values(&self, long: &str) -> Vec<&str> {
        self.values
            .iter()
            .filter(|(k, _)| *k == long)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether a flag was given.
    pub fn flag(&self, long: &str) -> bool {
        self.values.iter().any(|(k, _)| *k == long)
    }

    /// A numeric option, or `default` when it is not given.
    pub fn number<T: std::str::FromStr>(&self, long: &str, default: T) -> Result<T, UsageError> {
        match self.value(long) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| UsageError(format!("--{long} takes a number, not `{v}`"))),
        }
    }
}

/// A command line that does not fit its spec.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Checks `args` (what follows the subcommand) against `spec`.
pub fn parse(spec: &Spec, args: &[String]) -> Result<Parsed, UsageError> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if options_done || arg == "-" || !arg.starts_with('-') {
            parsed.positionals.push(arg.clone());
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if arg == "-h" || arg == "--help" {
            parsed.help = true;
            continue;
        }
        let (name, inline) = match arg.strip_prefix("--") {
            Some(rest) => match rest.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (rest.to_string(), None),
            },
            None => (arg[1..].to_string(), None),
        };
        let long = arg.starts_with("--");
        let opt = spec.options.iter().find(|o| {
            if long {
                o.long == name
            } else {
                name.chars().count() == 1 && o.short == name.chars().next()
            }
        });
        let Some(opt) = opt else {
            let known: Vec<String> = spec
                .options
                .iter()
                .map(|o| format!("--{}", o.long))
                .collect();
            let hint = if known.is_empty() {
                format!("`oxla {}` takes no options", spec.command)
            } else {
                format!("its options are {}", known.join(", "))
            };
            return Err(UsageError(format!(
                "unknown option `{arg}` for `oxla {}`; {hint}",
                spec.command
            )));
        };
        if !opt.repeatable && parsed.flag(opt.long) {
            return Err(UsageError(format!(
                "--{} is given more than once",
                opt.long
            )));
        }
        let value = if opt.takes_value {
            match inline {
                Some(v) => v,
                None => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        v.clone()
                    }
                    None => {
                        return Err(UsageError(format!("--{} needs a value", opt.long)));
                    }
                },
            }
        } else {
            if inline.is_some() {
                return Err(UsageError(format!("--{} takes no value", opt.long)));
            }
            String::new()
        };
        parsed.values.push((opt.long, value));
    }
    if !parsed.help {
        let want = spec.positionals.len();
        if parsed.positionals.len() < want {
            return Err(UsageError(format!(
                "`oxla {}` needs {}",
                spec.command,
                spec.positionals[parsed.positionals.len()..].join(" ")
            )));
        }
        if parsed.positionals.len() > want {
            return Err(UsageError(format!(
                "unexpected argument `{}` for `oxla {}`",
                parsed.positionals[want], spec.command
            )));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        command: "run",
        options: &[
            Opt::value("input").repeatable(),
            Opt::value("output").short('o'),
            Opt::flag("compare"),
        ],
        positionals: &["MODULE"],
    };

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_values_flags_and_positionals() {
        let p = parse(
            &SPEC,
            &args("m.hlo --input a.npy --input=b.npy -o out.npy --compare"),
        )
        .unwrap();
        assert_eq!(p.positionals, ["m.hlo"]);
        assert_eq!(p.values("input"), ["a.npy", "b.npy"]);
        assert_eq!(p.value("output"), Some("out.npy"));
        assert!(p.flag("compare"));
        let p = parse(&SPEC, &args("-- -weird.hlo")).unwrap();
        assert_eq!(p.positionals, ["-weird.hlo"]);
        assert!(parse(&SPEC, &args("--help")).unwrap().help);
    }

    #[test]
    fn reports_usage_errors() {
        let e = |s: &str| parse(&SPEC, &args(s)).unwrap_err().0;
        assert_eq!(e(""), "`oxla run` needs MODULE");
        assert_eq!(e("a b"), "unexpected argument `b` for `oxla run`");
        assert!(e("m --frob").starts_with("unknown option `--frob` for `oxla run`"));
        assert_eq!(e("m --output"), "--output needs a value");
        assert_eq!(e("m -o a -o b"), "--output is given more than once");
        assert_eq!(e("m --compare=yes"), "--compare takes no value");
    }
}
