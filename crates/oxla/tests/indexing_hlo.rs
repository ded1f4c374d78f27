//! Runs the `.hlo` files of `tests/hlo/indexing/` (gather, scatter,
//! dynamic-slice, dynamic-update-slice) on the parser, the verifier and the
//! interpreter: `// run: <args> -> <expected>` (the interpreter's result,
//! bit for bit), `// error: <substring>` (the parser or verifier refuses the
//! module with that message) and `// canonical` (the module is the
//! printer's own text). The JIT does not compile these ops yet: every
//! `run` module must be refused by it with an error naming the op, so the
//! day it compiles them this test fails and the cases move to both
//! backends.

use oxla_ir::{Literal, parse_hlo_module};

/// One literal in XLA notation (`f32[2] {1, 2}`), read through a constant.
fn literal(text: &str) -> Literal {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        return Literal::tuple(split_literals(inner).iter().map(|t| literal(t)).collect());
    }
    let (shape, values) = text.split_once(' ').expect("shape and values");
    let module = format!("HloModule l\n\nENTRY l {{\n  ROOT c = {shape} constant({values})\n}}\n");
    let comp = parse_hlo_module(&module).unwrap_or_else(|e| panic!("{text}: {e}"));
    oxla_interp::evaluate(&comp, &[]).expect("a constant")
}

/// Splits `a, b, c` at the top level (outside brackets).
fn split_literals(text: &str) -> Vec<String> {
    let mut out = vec![];
    let (mut depth, mut start) = (0, 0);
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => depth -= 1,
            b',' if depth == 0 => {
                out.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim().to_string());
    }
    out
}

/// A module and the directives written above it.
struct Case {
    line: usize,
    directives: Vec<String>,
    text: String,
}

fn cases(text: &str) -> Vec<Case> {
    let mut out: Vec<Case> = vec![];
    let mut pending: Vec<String> = vec![];
    let mut in_module = false;
    for (i, line) in text.lines().enumerate() {
        let comment = line.trim_start().strip_prefix("//").map(str::trim);
        match comment {
            Some(c) => {
                in_module = false;
                let directive = ["run:", "error:", "canonical"]
                    .iter()
                    .any(|d| c.starts_with(d));
                if directive {
                    pending.push(c.to_string());
                } else if let (Some(last), true) = (pending.last_mut(), line.contains("//  ")) {
                    // An indented comment line continues the directive.
                    last.push(' ');
                    last.push_str(c);
                }
            }
            None if line.starts_with("HloModule") => {
                in_module = true;
                out.push(Case {
                    line: i + 1,
                    directives: std::mem::take(&mut pending),
                    text: format!("{line}\n"),
                });
            }
            None if in_module => {
                if let Some(case) = out.last_mut() {
                    case.text.push_str(line);
                    case.text.push('\n');
                }
            }
            None => {}
        }
    }
    out
}

fn check(case: &Case, file: &str) -> Result<(), String> {
    let at = format!("{file}:{}", case.line);
    if case.directives.is_empty() {
        return Err(format!("{at}: a module without directives"));
    }
    for d in &case.directives {
        if let Some(want) = d.strip_prefix("error:") {
            match parse_hlo_module(&case.text) {
                Ok(_) => return Err(format!("{at}: accepted, expected error {want}")),
                Err(e) if e.to_string().contains(want.trim()) => {}
                Err(e) => return Err(format!("{at}: error\n  {e}\nexpected\n  {want}")),
            }
            continue;
        }
        let comp = parse_hlo_module(&case.text).map_err(|e| format!("{at}: {e}"))?;
        // Every valid module round-trips through the printer.
        let printed = comp.to_hlo_text();
        let again = parse_hlo_module(&printed).map_err(|e| format!("{at}: reparse: {e}"))?;
        if again.to_hlo_text() != printed {
            return Err(format!("{at}: print(parse(print)) differs"));
        }
        if d == "canonical" {
            if printed.trim_end() != case.text.trim_end() {
                return Err(format!("{at}: not canonical; prints as\n{printed}"));
            }
            continue;
        }
        let (args, expected) = d
            .strip_prefix("run:")
            .and_then(|r| r.split_once("->"))
            .ok_or_else(|| format!("{at}: run: <args> -> <expected>"))?;
        let args: Vec<Literal> = split_literals(args).iter().map(|a| literal(a)).collect();
        let refs: Vec<&Literal> = args.iter().collect();
        let got = oxla_interp::evaluate(&comp, &refs).map_err(|e| format!("{at}: {e}"))?;
        let want = literal(expected);
        if got.to_string() != want.to_string() {
            return Err(format!("{at}: got\n{got}\nexpected\n{want}"));
        }
        match oxla_jit::compile(&comp) {
            Err(e) if e.to_string().contains("the JIT does not compile") => {}
            Err(e) => return Err(format!("{at}: the JIT fails otherwise: {e}")),
            Ok(_) => return Err(format!("{at}: the JIT compiles it now: run it on both")),
        }
    }
    Ok(())
}

#[test]
fn indexing_hlo_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/hlo/indexing");
    let mut failures = vec![];
    let mut count = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        for case in cases(&text) {
            count += 1;
            if let Err(e) = check(&case, &file) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(count > 50, "only {count} modules");
}
