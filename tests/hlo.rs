//! The `.hlo` test runner: every file under `tests/hlo/` is a set of HLO
//! modules with expectation comments, run through the parser, the verifier,
//! the interpreter and the JIT (Cranelift's filetests are the model). The
//! format is documented in `docs/testing.md`; in short:
//!
//! ```text
//! // run: f32[2] {1, 2}, f32[] 10 -> f32[2] {11, 12}
//! // run: compare
//! HloModule add_scalar
//!
//! ENTRY add_scalar {
//!   x = f32[2] parameter(0)
//!   s = f32[] parameter(1)
//!   ROOT y = f32[2] add(x, s)
//! }
//! ```
//!
//! The directives: `error: <substring>` (or `error(at=<instruction>): ...`),
//! the module is refused and the problems reported are exactly those
//! listed; `run: <args> -> <expected>` (with `(ulp=N)` for both backends or
//! `(jit-ulp=N)` for the JIT alone; complex values part by part), both
//! backends give `<expected>`;
//! `run: compare`, the JIT gives the interpreter's result on generated
//! arguments; `strict-hlo: ok` / `strict-hlo: error: ...`;
//! `canonical`, the module is the printer's own text; `valid`;
//! `jit: unsupported`, the JIT refuses the module with
//! `Error::UnsupportedOp` (its `run:` lines then check the interpreter
//! alone, until the JIT compiles the op and the test asks to be updated).
//! Every valid
//! module also round-trips (`print(parse(text))` parses and prints
//! identically), and every `run` also checks that `expand_broadcasts` gives
//! strict HLO with the same interpreter result.
//!
//! The runner is a plain `main` (`harness = false`): it runs every file (in
//! parallel), reports every failing case as `file:line: what`, and exits
//! non-zero if any failed. `cargo test -p oxla --test hlo -- <filter>` runs
//! only the modules whose file path (relative to `tests/hlo/`) or module
//! name contains `<filter>`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use oxla::{ArrayData, Computation, Error, Literal, Shape};

/// One expectation comment.
#[derive(Debug)]
enum Directive {
    /// `error: <substring>`, optionally located at an instruction.
    Error { at: Option<String>, text: String },
    /// `strict-hlo: error: <substring>`, optionally located.
    StrictError { at: Option<String>, text: String },
    /// `strict-hlo: ok`.
    StrictOk,
    /// `run: <args> -> <expected>`, with the ulp bounds of the
    /// interpreter's result and of the JIT's.
    Run {
        args: Vec<String>,
        expected: String,
        ulp: u64,
        jit_ulp: u64,
    },
    /// `run: compare`, with the JIT's ulp bound.
    Compare { jit_ulp: u64 },
    /// `canonical`.
    Canonical,
    /// `valid`.
    Valid,
    /// `jit: unsupported`: the JIT refuses the module with
    /// `Error::UnsupportedOp`; `run` lines check the interpreter only.
    JitUnsupported,
}

/// A directive and the file line it starts on.
#[derive(Debug)]
struct Located {
    line: usize,
    directive: Directive,
}

/// One module of a file with its directives.
struct Module {
    /// The module's name (from its `HloModule` line).
    name: String,
    /// The file line of its `HloModule` header.
    line: usize,
    /// The text the parser reads: the file up to the module's end with
    /// every other line (and every `//` line) blanked, so parse errors
    /// give file line numbers.
    parse_text: String,
    /// The module's own lines, comment lines dropped (for `canonical`).
    own_text: String,
    directives: Vec<Located>,
}

/// What one file produced: its failures and counts.
#[derive(Default)]
struct Outcome {
    failures: Vec<String>,
    modules: usize,
    errors: usize,
    runs: usize,
    compares: usize,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hlo")
}

fn main() {
    let mut filter: Option<String> = None;
    let mut args = std::env::args().skip(1);
    let mut list = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // Nothing here is ignored, so a run of ignored tests runs nothing.
            "--ignored" => return,
            "--list" => list = true,
            // libtest options that take a value: the value is not a filter.
            "--skip" | "--test-threads" | "--format" | "--color" | "-Z" | "--logfile" => {
                args.next();
            }
            a if a.starts_with('-') => {}
            a => filter = Some(a.to_string()),
        }
    }
    let files = hlo_files(&root());
    if list {
        for f in &files {
            println!("{}: test", relative(f));
        }
        return;
    }
    // While the modules run, a panic is recorded for the module's report
    // rather than printed (`run_file` catches it).
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
    }));
    let started = std::time::Instant::now();
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let outcome = run_file(file, filter.as_deref());
                    outcomes.lock().unwrap().push((i, outcome));
                }
            });
        }
    });
    drop(std::panic::take_hook());
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|(i, _)| *i);
    let mut total = Outcome::default();
    for (_, o) in outcomes {
        total.failures.extend(o.failures);
        total.modules += o.modules;
        total.errors += o.errors;
        total.runs += o.runs;
        total.compares += o.compares;
    }
    let docs_checked = if filter.is_none() {
        match check_docs_quote_messages(&files) {
            Ok(n) => n,
            Err(e) => {
                total.failures.push(e);
                0
            }
        }
    } else {
        0
    };
    println!(
        "hlo: {} files, {} modules ({} refused, {} run lines, {} compare lines), \
         {docs_checked} messages quoted in docs/broadcasting.md, in {:.1?}",
        files.len(),
        total.modules,
        total.errors,
        total.runs,
        total.compares,
        started.elapsed()
    );
    if total.failures.is_empty() {
        println!("test result: ok");
    } else {
        for f in &total.failures {
            eprintln!("{f}\n");
        }
        eprintln!(
            "test result: FAILED. {} failing case(s)",
            total.failures.len()
        );
        std::process::exit(1);
    }
}

/// Every `.hlo` file under `dir`, sorted.
fn hlo_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display()));
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "hlo") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `path` relative to `tests/hlo/`, with `/` separators.
fn relative(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

// ---------------------------------------------------------------------------
// Reading a file
// ---------------------------------------------------------------------------

/// Splits `text` into modules with their directives, or says why it cannot.
/// Comment lines after a module's last line belong to the next module.
fn split_modules(text: &str) -> Result<Vec<Module>, (usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let is_comment = |l: &str| l.trim_start().starts_with("//");
    let headers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("HloModule"))
        .collect();
    if headers.is_empty() {
        return Err((1, "the file has no `HloModule`".into()));
    }
    let mut modules = Vec::new();
    let mut directives_from = 0;
    for (k, &h) in headers.iter().enumerate() {
        let limit = headers.get(k + 1).copied().unwrap_or(lines.len());
        // The module ends at its last line that is neither blank nor a comment.
        let end = (h..limit)
            .rev()
            .find(|&i| !lines[i].trim().is_empty() && !is_comment(lines[i]))
            .unwrap_or(h);
        let mut parse_text = String::new();
        let mut own_text = String::new();
        for (i, line) in lines.iter().enumerate().take(end + 1) {
            if i >= h && !is_comment(line) {
                parse_text.push_str(line);
                own_text.push_str(line);
                own_text.push('\n');
            }
            parse_text.push('\n');
        }
        let mut directives = Vec::new();
        let mut i = directives_from;
        while i <= end {
            if is_comment(lines[i]) {
                let (directive, next) = read_directive(&lines, i)?;
                if let Some(d) = directive {
                    directives.push(Located {
                        line: i + 1,
                        directive: d,
                    });
                }
                i = next;
            } else {
                i += 1;
            }
        }
        directives_from = end + 1;
        let name = lines[h]["HloModule".len()..]
            .trim_start()
            .split([',', ' '])
            .next()
            .unwrap_or("")
            .to_string();
        modules.push(Module {
            name,
            line: h + 1,
            parse_text,
            own_text,
            directives,
        });
    }
    // Comments after the last module have no module to belong to.
    for i in directives_from..lines.len() {
        if is_comment(lines[i]) && read_directive(&lines, i)?.0.is_some() {
            return Err((i + 1, "a directive after the last module".into()));
        }
    }
    Ok(modules)
}

/// The text of a `//` comment line after the slashes, trimmed.
fn comment_text(line: &str) -> &str {
    line.trim_start().trim_start_matches('/').trim()
}

/// `Some((word, options, rest))` when a comment starts like a directive: a
/// lowercase word, optional `(options)`, and a colon (`run(ulp=2): ...`);
/// or is one of the bare directives.
fn directive_word(text: &str) -> Option<(&str, &str, &str)> {
    if matches!(text, "canonical" | "valid") {
        return Some((text, "", ""));
    }
    let word_end = text
        .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
        .unwrap_or(text.len());
    let (word, rest) = text.split_at(word_end);
    if word.is_empty() || !word.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    let (options, rest) = match rest.strip_prefix('(') {
        Some(r) => {
            let close = r.find(')')?;
            (&r[..close], &r[close + 1..])
        }
        None => ("", rest),
    };
    let rest = rest.strip_prefix(':')?;
    Some((word, options, rest.trim()))
}

/// Reads the directive on comment line `i` (with its continuation lines):
/// the directive (`None` for a plain comment) and the next line to read.
fn read_directive(lines: &[&str], i: usize) -> Result<(Option<Directive>, usize), (usize, String)> {
    let at = |message: String| (i + 1, message);
    let text = comment_text(lines[i]);
    let Some((word, options, rest)) = directive_word(text) else {
        return Ok((None, i + 1));
    };
    // Prose may start with a word and a colon ("reduce: ..."); a word close
    // to a directive's, or one with options, is a typo, never prose.
    if !DIRECTIVES.contains(&word) {
        if options.is_empty() && DIRECTIVES.iter().all(|d| edit_distance(word, d) > 2) {
            return Ok((None, i + 1));
        }
        return Err(at(format!(
            "unknown directive `{word}` (the directives are {})",
            DIRECTIVES.join(", ")
        )));
    }
    let mut options_at = None;
    let mut ulp = 0;
    let mut jit_ulp = 0;
    for option in options.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        match option.split_once('=') {
            Some(("at", name)) if matches!(word, "error" | "strict-hlo") => {
                options_at = Some(name.trim().to_string())
            }
            Some((key @ ("ulp" | "jit-ulp"), n)) if word == "run" => {
                let n: u64 = n
                    .trim()
                    .parse()
                    .map_err(|_| at(format!("`{key}={n}` is not a number")))?;
                if key == "ulp" {
                    ulp = n;
                }
                jit_ulp = jit_ulp.max(n);
            }
            _ => return Err(at(format!("unknown option `{option}` for `{word}`"))),
        }
    }
    let directive = match word {
        "canonical" => Directive::Canonical,
        "valid" => Directive::Valid,
        "jit" if rest == "unsupported" => Directive::JitUnsupported,
        "jit" => {
            return Err(at(format!(
                "expected `jit: unsupported`, found `jit: {rest}`"
            )));
        }
        "error" => Directive::Error {
            at: options_at,
            text: non_empty(rest).map_err(at)?,
        },
        "strict-hlo" => {
            if rest == "ok" {
                Directive::StrictOk
            } else if let Some(("error", options, e)) = directive_word(rest) {
                let located = options.strip_prefix("at=").map(|n| n.trim().to_string());
                if located.is_none() && !options.is_empty() {
                    return Err(at(format!("unknown option `{options}` for `error`")));
                }
                Directive::StrictError {
                    at: located.or(options_at),
                    text: non_empty(e).map_err(at)?,
                }
            } else {
                return Err(at(
                    "expected `strict-hlo: ok` or `strict-hlo: error: ...`".into()
                ));
            }
        }
        "run" => {
            // Continuation: while brackets are open, the text ends with `,`
            // or `->`, or the next comment line starts with `->`.
            let mut text = rest.to_string();
            let mut next = i + 1;
            loop {
                let open = depth_after(&text) > 0;
                let dangling = text.ends_with(',') || text.ends_with("->");
                let arrow_next = lines.get(next).is_some_and(|l| {
                    l.trim_start().starts_with("//") && comment_text(l).starts_with("->")
                });
                if !(open || dangling || arrow_next) {
                    break;
                }
                match lines.get(next) {
                    Some(l) if l.trim_start().starts_with("//") => {
                        text.push(' ');
                        text.push_str(comment_text(l));
                        next += 1;
                    }
                    _ => return Err(at("the `run` directive is not finished".into())),
                }
            }
            let directive = if text == "compare" {
                if ulp > 0 {
                    return Err(at(
                        "`run: compare` takes `jit-ulp=N` (the interpreter is the reference)"
                            .into(),
                    ));
                }
                Directive::Compare { jit_ulp }
            } else {
                let parts = split_top_level(&text, "->");
                let [args, expected] = &parts[..] else {
                    return Err(at(format!(
                        "expected `run: <args> -> <expected>` or `run: compare`, found `{text}`"
                    )));
                };
                let args = if args.trim().is_empty() {
                    Vec::new()
                } else {
                    split_top_level(args, ",")
                        .into_iter()
                        .map(|a| a.trim().to_string())
                        .collect()
                };
                Directive::Run {
                    args,
                    expected: expected.trim().to_string(),
                    ulp,
                    jit_ulp,
                }
            };
            return Ok((Some(directive), next));
        }
        other => return Err(at(format!("unknown directive `{other}`"))),
    };
    Ok((Some(directive), i + 1))
}

/// The directive words.
const DIRECTIVES: [&str; 6] = ["error", "run", "strict-hlo", "canonical", "valid", "jit"];

/// The Levenshtein distance of two short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn non_empty(text: &str) -> Result<String, String> {
    if text.is_empty() {
        Err("the directive needs a message substring".into())
    } else {
        Ok(text.to_string())
    }
}

/// How many brackets (`{[(`) are open at the end of `text`.
fn depth_after(text: &str) -> i64 {
    text.chars().fold(0, |d, c| match c {
        '{' | '[' | '(' => d + 1,
        '}' | ']' | ')' => d - 1,
        _ => d,
    })
}

/// `text` split at each `sep` outside brackets.
fn split_top_level(text: &str, sep: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i64;
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        let c = text.as_bytes()[i];
        match c {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => depth -= 1,
            _ => {}
        }
        if depth == 0 && text[i..].starts_with(sep) {
            parts.push(text[start..i].to_string());
            i += sep.len();
            start = i;
            continue;
        }
        i += 1;
    }
    parts.push(text[start..].to_string());
    parts
}

// ---------------------------------------------------------------------------
// Running a file
// ---------------------------------------------------------------------------

fn run_file(path: &Path, filter: Option<&str>) -> Outcome {
    let mut out = Outcome::default();
    let rel = relative(path);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            out.failures
                .push(format!("tests/hlo/{rel}: cannot read: {e}"));
            return out;
        }
    };
    let modules = match split_modules(&text) {
        Ok(m) => m,
        Err((line, message)) => {
            out.failures
                .push(format!("tests/hlo/{rel}:{line}: {message}"));
            return out;
        }
    };
    if modules.iter().all(|m| m.directives.is_empty()) {
        out.failures
            .push(format!("tests/hlo/{rel}: the file has no expectations"));
        return out;
    }
    for m in &modules {
        if let Some(f) = filter
            && !rel.contains(f)
            && !m.name.contains(f)
        {
            continue;
        }
        out.modules += 1;
        let mut fail = |line: usize, message: String| {
            out.failures
                .push(format!("tests/hlo/{rel}:{line}: [{}] {message}", m.name));
        };
        // A panic anywhere (parser, verifier, interpreter, JIT) is a failure
        // of this module; the other modules still run.
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_module(
                m,
                &mut fail,
                &mut out.errors,
                &mut out.runs,
                &mut out.compares,
            )
        }));
        if checked.is_err() {
            let what = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_default();
            out.failures.push(format!(
                "tests/hlo/{rel}:{}: [{}] panicked: {what}",
                m.line, m.name
            ));
        }
    }
    out
}

thread_local! {
    /// The message and location of this thread's last panic (the hook set
    /// in `main` records it instead of printing it).
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The problems a refused module reports: `(instruction, message)` for
/// verifier problems, `(None, full text)` for parse errors.
type Problems = Vec<(Option<String>, String)>;

fn problems_of(errors: Vec<Error>) -> Problems {
    let mut out = Vec::new();
    for e in errors {
        match e {
            Error::Verification { problems, .. } => out.extend(
                problems
                    .into_iter()
                    .map(|p| (Some(p.instruction), p.message)),
            ),
            other => out.push((None, other.to_string())),
        }
    }
    out
}

/// Matches `expected` (`(line, at, substring)`) one to one against
/// `problems`, reporting what is missing and what is unexpected.
fn match_problems(
    what: &str,
    expected: &[(usize, Option<&str>, &str)],
    problems: &Problems,
    fail: &mut impl FnMut(usize, String),
    module_line: usize,
) {
    let mut used = vec![false; problems.len()];
    for &(line, at, text) in expected {
        let found = problems
            .iter()
            .enumerate()
            .position(|(k, (inst, message))| {
                !used[k] && message.contains(text) && at.is_none_or(|a| inst.as_deref() == Some(a))
            });
        match found {
            Some(k) => used[k] = true,
            None => fail(
                line,
                format!(
                    "{what} `{text}`{} was not reported; reported:\n{}",
                    at.map(|a| format!(" at `{a}`")).unwrap_or_default(),
                    list_problems(problems)
                ),
            ),
        }
    }
    for (k, (inst, message)) in problems.iter().enumerate() {
        if !used[k] {
            fail(
                module_line,
                format!(
                    "unexpected {what}{}: {message}",
                    inst.as_ref()
                        .map(|i| format!(" at `{i}`"))
                        .unwrap_or_default()
                ),
            );
        }
    }
}

fn list_problems(problems: &Problems) -> String {
    if problems.is_empty() {
        return "  (nothing)".into();
    }
    problems
        .iter()
        .map(|(inst, m)| match inst {
            Some(i) => format!("  at `{i}`: {}", m.replace('\n', "\n    ")),
            None => format!("  {}", m.replace('\n', "\n    ")),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_module(
    m: &Module,
    fail: &mut impl FnMut(usize, String),
    errors: &mut usize,
    runs: &mut usize,
    compares: &mut usize,
) {
    if m.directives.is_empty() {
        fail(
            m.line,
            "the module has no expectations (add `// valid` if parsing is all there is to check)"
                .into(),
        );
        return;
    }
    // The `error:` and `strict-hlo: error:` lines, as (line, at, substring).
    let listed = |strict: bool| -> Vec<(usize, Option<&str>, &str)> {
        m.directives
            .iter()
            .filter_map(|d| match (&d.directive, strict) {
                (Directive::Error { at, text }, false)
                | (Directive::StrictError { at, text }, true) => {
                    Some((d.line, at.as_deref(), text.as_str()))
                }
                _ => None,
            })
            .collect()
    };
    let expected_errors = listed(false);
    let strict_errors = listed(true);

    // The unverified parse, then the verifier's report.
    let unverified = oxla::internals::parser::parse_hlo_module_unverified(&m.parse_text);
    let verified = oxla::hlo::parse(&m.parse_text);
    if !strict_errors.is_empty() {
        let problems = match &unverified {
            Ok(c) => oxla::internals::verifier::verify_strict_hlo(c)
                .err()
                .map_or_else(Vec::new, |e| problems_of(vec![e])),
            Err(e) => problems_of(e.clone()),
        };
        match_problems("strict-HLO error", &strict_errors, &problems, fail, m.line);
    }
    if !expected_errors.is_empty() {
        *errors += 1;
        for d in &m.directives {
            if !matches!(
                d.directive,
                Directive::Error { .. } | Directive::StrictError { .. }
            ) {
                fail(
                    d.line,
                    "a refused module can have no other expectation".into(),
                );
            }
        }
        let problems = match unverified {
            Ok(c) => oxla::internals::verifier::verify(&c)
                .err()
                .map_or_else(Vec::new, |e| problems_of(vec![e])),
            Err(e) => problems_of(e),
        };
        match_problems("error", &expected_errors, &problems, fail, m.line);
        if verified.is_ok() {
            fail(m.line, "the verified parser accepts the module".into());
        }
        return;
    }

    // A valid module.
    let comp = match verified {
        Ok(c) => c,
        Err(e) => {
            fail(m.line, format!("the module does not parse:\n{e}"));
            return;
        }
    };
    let unverified = match unverified {
        Ok(c) => {
            if let Err(e) = oxla::internals::verifier::verify(&c) {
                fail(
                    m.line,
                    format!("the unverified parse does not verify:\n{e}"),
                );
            }
            Some(c)
        }
        Err(e) => {
            fail(
                m.line,
                format!("the unverified parser refuses the module:\n{}", e[0]),
            );
            None
        }
    };
    let printed = comp.to_hlo_text();
    match oxla::hlo::parse(&printed) {
        Ok(again) if again.to_hlo_text() == printed => {}
        Ok(again) => fail(
            m.line,
            format!(
                "print(parse(print)) differs from print:\n{}\n---\n{}",
                printed,
                again.to_hlo_text()
            ),
        ),
        Err(e) => fail(
            m.line,
            format!("the printed module does not parse:\n{e}\n{printed}"),
        ),
    }

    let mut jit: Option<Result<oxla::Executable, String>> = None;
    let jit_unsupported = m
        .directives
        .iter()
        .any(|d| matches!(d.directive, Directive::JitUnsupported));
    for d in &m.directives {
        let line = d.line;
        match &d.directive {
            Directive::Error { .. } | Directive::StrictError { .. } | Directive::Valid => {}
            // Until the JIT compiles the module's ops: it must refuse them
            // with a typed error (and the day it compiles them, this fails).
            Directive::JitUnsupported => match oxla::compile(&comp) {
                Err(oxla::Error::UnsupportedOp { .. }) => {}
                Err(e) => fail(
                    line,
                    format!("the JIT fails, but not with UnsupportedOp:\n{e}"),
                ),
                Ok(_) => fail(
                    line,
                    "the JIT compiles the module: drop `jit: unsupported`".into(),
                ),
            },
            Directive::Canonical => {
                if printed != m.own_text {
                    fail(
                        line,
                        format!(
                            "the module is not the printer's text; the printer gives:\n{printed}"
                        ),
                    );
                }
            }
            // As written (an identity broadcast_dimensions is not dropped).
            Directive::StrictOk => {
                if let Some(Err(e)) = unverified
                    .as_ref()
                    .map(oxla::internals::verifier::verify_strict_hlo)
                {
                    fail(line, format!("verify_strict_hlo refuses the module:\n{e}"));
                }
            }
            Directive::Run {
                args,
                expected,
                ulp,
                jit_ulp,
            } => {
                *runs += 1;
                let mut literals = Vec::new();
                for a in args {
                    match oxla::internals::parser::parse_literal(a) {
                        Ok(l) => literals.push(l),
                        Err(e) => {
                            fail(line, format!("argument `{a}` is not a literal:\n{e}"));
                            return;
                        }
                    }
                }
                let want = match oxla::internals::parser::parse_literal(expected) {
                    Ok(l) => l,
                    Err(e) => {
                        fail(
                            line,
                            format!("the expected `{expected}` is not a literal:\n{e}"),
                        );
                        continue;
                    }
                };
                check_run(
                    &comp,
                    &literals,
                    &want,
                    (*ulp, *jit_ulp),
                    (!jit_unsupported).then_some(&mut jit),
                    line,
                    fail,
                );
            }
            Directive::Compare { jit_ulp } => {
                *compares += 1;
                if jit_unsupported {
                    fail(
                        line,
                        "`run: compare` needs the JIT (`jit: unsupported`)".into(),
                    );
                    continue;
                }
                let literals = match generated_arguments(&comp) {
                    Ok(l) => l,
                    Err(e) => {
                        fail(line, format!("cannot generate arguments: {e}"));
                        continue;
                    }
                };
                match oxla::evaluate(&comp, &refs(&literals)) {
                    Ok(want) => check_run(
                        &comp,
                        &literals,
                        &want,
                        (0, *jit_ulp),
                        Some(&mut jit),
                        line,
                        fail,
                    ),
                    Err(e) => fail(line, format!("the interpreter fails: {e}")),
                }
            }
        }
    }
}

fn refs(literals: &[Literal]) -> Vec<&Literal> {
    literals.iter().collect()
}

/// The interpreter's result, and that of the strict HLO form
/// (`expand_broadcasts`), must be `want` within `ulp.0` units in the last
/// place; the JIT's within `ulp.1` (unless `jit` is `None`: `jit:
/// unsupported`).
fn check_run(
    comp: &Computation,
    args: &[Literal],
    want: &Literal,
    (ulp, jit_ulp): (u64, u64),
    jit: Option<&mut Option<Result<oxla::Executable, String>>>,
    line: usize,
    fail: &mut impl FnMut(usize, String),
) {
    let args = refs(args);
    match oxla::evaluate(comp, &args) {
        Ok(got) => {
            if let Some(d) = difference(&got, want, ulp) {
                fail(line, format!("interpreter: {d}"));
            }
        }
        Err(e) => fail(line, format!("the interpreter fails:\n{e}")),
    }
    match oxla::internals::passes::expand_broadcasts(comp) {
        Ok(strict) => {
            if let Err(e) = oxla::internals::verifier::verify_strict_hlo(&strict) {
                fail(
                    line,
                    format!("expand_broadcasts leaves implicit broadcasting:\n{e}"),
                );
            }
            match oxla::evaluate(&strict, &args) {
                Ok(got) => {
                    if let Some(d) = difference(&got, want, ulp) {
                        fail(line, format!("interpreter after expand_broadcasts: {d}"));
                    }
                }
                Err(e) => fail(
                    line,
                    format!("the interpreter fails after expand_broadcasts:\n{e}"),
                ),
            }
        }
        Err(e) => fail(line, format!("expand_broadcasts fails:\n{e}")),
    }
    let Some(jit) = jit else { return };
    let exe = jit.get_or_insert_with(|| oxla::compile(comp).map_err(|e| e.to_string()));
    match exe {
        // `jit: unsupported`: checked once, by its own directive.
        Err(e) if e.is_empty() => {}
        Ok(exe) => match exe.run(&args) {
            Ok(got) => {
                if let Some(d) = difference(&got, want, jit_ulp) {
                    fail(line, format!("JIT: {d}"));
                }
            }
            Err(e) => fail(line, format!("the JIT run fails:\n{e}")),
        },
        Err(e) => fail(line, format!("the JIT does not compile the module:\n{e}")),
    }
}

// ---------------------------------------------------------------------------
// Comparing results
// ---------------------------------------------------------------------------

/// `None` when `got` matches `want`: the same shape, integers and `pred`
/// equal, floats equal bit for bit (so `-0 != +0`) or within `ulp` units in
/// the last place, any NaN equal to any NaN. Otherwise what differs.
fn difference(got: &Literal, want: &Literal, ulp: u64) -> Option<String> {
    if got.shape() != want.shape() {
        return Some(format!(
            "shape {} where {} was expected\n got: {}",
            got.shape(),
            want.shape(),
            got.to_string_elided(64)
        ));
    }
    if let (Some(g), Some(w)) = (got.tuple_elements(), want.tuple_elements()) {
        return g.iter().zip(w).enumerate().find_map(|(i, (g, w))| {
            difference(g, w, ulp).map(|d| format!("tuple element {i}: {d}"))
        });
    }
    let (Some(g), Some(w)) = (got.array_data(), want.array_data()) else {
        return Some("a tuple against an array".into());
    };
    let bad = match (g, w) {
        (ArrayData::F32(_), ArrayData::F32(_))
        | (ArrayData::F64(_), ArrayData::F64(_))
        | (ArrayData::Bf16(_), ArrayData::Bf16(_))
        | (ArrayData::F16(_), ArrayData::F16(_))
        | (ArrayData::C64(_), ArrayData::C64(_))
        | (ArrayData::C128(_), ArrayData::C128(_)) => {
            first_bad(g.len(), |i| ulps_at(g, w, i) > ulp)
        }
        // Other types by their text, a NaN's sign aside (`-nan` is `nan`:
        // the narrow floats' NaNs match any NaN too).
        _ => first_bad(g.len(), |i| {
            g.format_value(i).replace("-nan", "nan") != w.format_value(i).replace("-nan", "nan")
        }),
    };
    bad.map(|i| {
        let off = ulps_at(g, w, i);
        let worst = (0..g.len())
            .map(|k| ulps_at(g, w, k))
            .filter(|&u| u != u64::MAX)
            .max()
            .unwrap_or(0);
        let bound = match (off, ulp) {
            (0, _) => String::new(),
            (u64::MAX, _) => " (a NaN against a number)".to_string(),
            (off, ulp) => format!(" ({off} ulp off, bound {ulp}; worst element {worst} ulp off)"),
        };
        format!(
            "element {i} (row-major) is {} where {} was expected{bound}\n got: {}\nwant: {}",
            g.format_value(i),
            w.format_value(i),
            got.to_string_elided(64),
            want.to_string_elided(64)
        )
    })
}

/// How many ulps element `i` of two float arrays of one type are apart
/// (see [`float_ulps`]; complex values by the farther of their parts); 0
/// for other types.
fn ulps_at(g: &ArrayData, w: &ArrayData, i: usize) -> u64 {
    match (g, w) {
        (ArrayData::F32(g), ArrayData::F32(w)) => {
            float_ulps(g[i].is_nan(), w[i].is_nan(), f32_key(g[i]), f32_key(w[i]))
        }
        (ArrayData::F64(g), ArrayData::F64(w)) => {
            float_ulps(g[i].is_nan(), w[i].is_nan(), f64_key(g[i]), f64_key(w[i]))
        }
        // bf16 and f16 in their own ulps.
        (ArrayData::Bf16(g), ArrayData::Bf16(w)) => float_ulps(
            g[i].is_nan(),
            w[i].is_nan(),
            half_key(g[i].to_bits()),
            half_key(w[i].to_bits()),
        ),
        (ArrayData::F16(g), ArrayData::F16(w)) => float_ulps(
            g[i].is_nan(),
            w[i].is_nan(),
            half_key(g[i].to_bits()),
            half_key(w[i].to_bits()),
        ),
        // Complex values part by part: the larger distance of the two.
        (ArrayData::C64(g), ArrayData::C64(w)) => {
            let re = float_ulps(
                g[i].re.is_nan(),
                w[i].re.is_nan(),
                f32_key(g[i].re),
                f32_key(w[i].re),
            );
            let im = float_ulps(
                g[i].im.is_nan(),
                w[i].im.is_nan(),
                f32_key(g[i].im),
                f32_key(w[i].im),
            );
            re.max(im)
        }
        (ArrayData::C128(g), ArrayData::C128(w)) => {
            let re = float_ulps(
                g[i].re.is_nan(),
                w[i].re.is_nan(),
                f64_key(g[i].re),
                f64_key(w[i].re),
            );
            let im = float_ulps(
                g[i].im.is_nan(),
                w[i].im.is_nan(),
                f64_key(g[i].im),
                f64_key(w[i].im),
            );
            re.max(im)
        }
        _ => 0,
    }
}

fn first_bad(n: usize, bad: impl Fn(usize) -> bool) -> Option<usize> {
    (0..n).find(|&i| bad(i))
}

/// The distance in ulps of two floats given as order-preserving integer
/// keys; 0 for two NaNs, `u64::MAX` for a NaN against a number.
fn float_ulps(g_nan: bool, w_nan: bool, g: i128, w: i128) -> u64 {
    match (g_nan, w_nan) {
        (true, true) => 0,
        (false, false) => u64::try_from((g - w).unsigned_abs()).unwrap_or(u64::MAX),
        _ => u64::MAX,
    }
}

/// An integer that orders f32 values as numbers, adjacent floats 1 apart
/// (`-0` and `+0` are 1 apart too, so they differ at `ulp = 0`).
fn f32_key(x: f32) -> i128 {
    let b = i128::from(x.to_bits());
    if x.is_sign_negative() {
        -(b & 0x7fff_ffff) - 1
    } else {
        b
    }
}

/// [`f32_key`] for the bits of a 16-bit float (bf16 or f16).
fn half_key(bits: u16) -> i128 {
    let b = i128::from(bits);
    if bits & 0x8000 != 0 {
        -(b & 0x7fff) - 1
    } else {
        b
    }
}

fn f64_key(x: f64) -> i128 {
    let b = i128::from(x.to_bits());
    if x.is_sign_negative() {
        -(b & 0x7fff_ffff_ffff_ffff) - 1
    } else {
        b
    }
}

// ---------------------------------------------------------------------------
// Generated arguments for `run: compare`
// ---------------------------------------------------------------------------

/// Deterministic arguments for `comp`'s parameters: a splitmix64 stream
/// seeded by the module name, small values of every sign (floats in
/// quarters from -4 to 4, integers from -9 to 9 or 0 to 18), and now and
/// then a type's extreme.
fn generated_arguments(comp: &Computation) -> oxla::Result<Vec<Literal>> {
    let mut state = comp.name().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    comp.parameter_shapes()
        .iter()
        .map(|s| generated_literal(s, &mut next))
        .collect()
}

fn generated_literal(shape: &Shape, next: &mut impl FnMut() -> u64) -> oxla::Result<Literal> {
    if shape.is_tuple() {
        let parts: oxla::Result<Vec<Literal>> = shape
            .tuple_shapes()
            .iter()
            .map(|s| generated_literal(s, next))
            .collect();
        return Ok(Literal::tuple(parts?));
    }
    let n = usize::try_from(shape.element_count()).unwrap_or(0);
    let dims = shape.dims();
    // A value in -9..=9, or an extreme one time in 16.
    let mut small = |lo: i64, hi: i64, min: i64, max: i64| -> i64 {
        let r = next();
        match r % 16 {
            0 => min,
            1 => max,
            _ => lo + ((r >> 8) % (hi - lo + 1) as u64) as i64,
        }
    };
    macro_rules! ints {
        ($t:ty, $lo:expr, $hi:expr) => {
            Literal::from_vec(
                dims,
                (0..n)
                    .map(|_| small($lo, $hi, <$t>::MIN as i64, <$t>::MAX as i64) as $t)
                    .collect::<Vec<$t>>(),
            )
        };
    }
    use oxla::ElementType as T;
    match shape.element_type() {
        T::Pred => Literal::from_vec(dims, (0..n).map(|_| next() & 1 == 1).collect::<Vec<bool>>()),
        T::S8 => ints!(i8, -9, 9),
        T::S16 => ints!(i16, -9, 9),
        T::S32 => ints!(i32, -9, 9),
        T::S64 => ints!(i64, -9, 9),
        T::U8 => ints!(u8, 0, 18),
        T::U16 => ints!(u16, 0, 18),
        T::U32 => ints!(u32, 0, 18),
        // u64::MAX is -1 as an i64, and comes back as u64::MAX.
        T::U64 => ints!(u64, 0, 18),
        T::F32 => Literal::from_vec(
            dims,
            (0..n)
                .map(|_| ((next() % 33) as f32 - 16.0) / 4.0)
                .collect::<Vec<f32>>(),
        ),
        T::F64 => Literal::from_vec(
            dims,
            (0..n)
                .map(|_| ((next() % 33) as f64 - 16.0) / 4.0)
                .collect::<Vec<f64>>(),
        ),
        T::Tuple | T::Token => Literal::zeros(shape),
        // The types of issue 13 from their text: small values the type
        // holds (the sub-byte integers wrap them), parts of complex ones.
        T::S1 | T::S2 | T::S4 | T::U1 | T::U2 | T::U4 => {
            text_literal(shape, n, || ((next() % 19) as i64 - 9).to_string())
        }
        T::Bf16
        | T::F16
        | T::F8E3M4
        | T::F8E4M3
        | T::F8E4M3FN
        | T::F8E4M3FNUZ
        | T::F8E4M3B11FNUZ
        | T::F8E5M2
        | T::F8E5M2FNUZ
        | T::F8E8M0FNU
        | T::F4E2M1FN => text_literal(shape, n, || {
            (((next() % 33) as f64 - 16.0) / 4.0).to_string()
        }),
        T::C64 | T::C128 => text_literal(shape, n, || {
            let re = ((next() % 33) as f64 - 16.0) / 4.0;
            let im = ((next() % 33) as f64 - 16.0) / 4.0;
            format!("({re}, {im})")
        }),
    }
}

/// A literal of `shape` (`n` elements) read from the text of the values
/// `value` gives, row-major.
fn text_literal(
    shape: &Shape,
    n: usize,
    mut value: impl FnMut() -> String,
) -> oxla::Result<Literal> {
    let values: Vec<String> = (0..n).map(|_| value()).collect();
    let flat = format!("{}[{n}] {{{}}}", shape.element_type(), values.join(", "));
    oxla::internals::parser::parse_literal(&flat)?.reshape(shape.dims())
}

// ---------------------------------------------------------------------------
// docs/broadcasting.md quotes the messages of the spec cases: keep it honest
// ---------------------------------------------------------------------------

/// Every spec case that `docs/broadcasting.md` names (as `` `name` ``, the
/// module's name) and that is refused with one error is quoted there
/// verbatim, so the page cannot drift from what oxla prints. Returns how
/// many messages were checked.
fn check_docs_quote_messages(files: &[PathBuf]) -> Result<usize, String> {
    let doc_path = root().join("../../docs/broadcasting.md");
    let doc = std::fs::read_to_string(&doc_path)
        .map_err(|e| format!("cannot read {}: {e}", doc_path.display()))?;
    let mut messages = std::collections::HashMap::new();
    for f in files.iter().filter(|f| relative(f).starts_with("spec/")) {
        let text = std::fs::read_to_string(f).map_err(|e| e.to_string())?;
        let modules = split_modules(&text).map_err(|(l, m)| format!("{}:{l}: {m}", f.display()))?;
        for m in modules {
            if !m
                .directives
                .iter()
                .any(|d| matches!(d.directive, Directive::Error { .. }))
            {
                continue;
            }
            // The one problem's message, or the one parse error's (a shape
            // refused as it is read).
            let message = match oxla::internals::parser::parse_hlo_module_unverified(&m.parse_text)
            {
                Ok(comp) => match oxla::internals::verifier::verify(&comp) {
                    Err(Error::Verification { problems, .. }) if problems.len() == 1 => {
                        Some(problems[0].message.clone())
                    }
                    _ => None,
                },
                Err(errors) => match &errors[..] {
                    [Error::Parse { message, .. }] => Some(message.clone()),
                    _ => None,
                },
            };
            if let Some(message) = message {
                messages.insert(m.name, message);
            }
        }
    }
    let mut quoted = std::collections::HashSet::new();
    let mut missing = Vec::new();
    for name in doc.split('`').skip(1).step_by(2) {
        let Some(message) = messages.get(name) else {
            continue;
        };
        if doc.contains(message.as_str()) {
            quoted.insert(name);
        } else {
            missing.push(format!("`{name}`:\n{message}"));
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "docs/broadcasting.md names these spec cases but does not quote their current message:\n{}",
            missing.join("\n\n")
        ));
    }
    if quoted.len() < 20 {
        return Err(format!(
            "docs/broadcasting.md quotes only {} spec messages",
            quoted.len()
        ));
    }
    Ok(quoted.len())
}
