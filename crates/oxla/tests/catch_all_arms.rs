//! The op-table rule of `docs/architecture.md`: in library code, a `match`
//! over an op enum (`OpKind`, `UnaryOp`, `BinaryOp`, `Opcode`) lists its
//! ops, so that a new op is a compile error wherever it needs a decision,
//! never a silent default from a `_ =>` arm.
//!
//! The matches that still have a catch-all arm are listed in
//! `tests/data/catch_all_arms.txt` (file, then the `match` line). This test
//! fails on a catch-all arm that is not listed (new code keeps the rule)
//! and on a listed one that is gone (the list only shrinks). Rewrite the
//! list with `OXLA_CATCH_ALL_BLESS=1` after removing some.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn names_op_enum(line: &str) -> bool {
    ["OpKind::", "UnaryOp::", "BinaryOp::", "Opcode::"]
        .iter()
        .any(|e| line.contains(e))
}

/// `(file, match line)` for every match whose arms name an op enum and
/// that has a `_ =>` arm, outside `#[cfg(test)]` modules.
fn catch_all_matches(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        sources(&krate.path().join("src"), &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let end = lines
            .windows(2)
            .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
            .unwrap_or(lines.len());
        let rel = f.strip_prefix(root).unwrap().display().to_string();
        for (i, line) in lines[..end].iter().enumerate() {
            let t = line.trim_end();
            if !(t.ends_with('{') && (t.contains("match ") || t.trim_start().starts_with("match")))
            {
                continue;
            }
            let base = indent(line);
            let (mut arm, mut names, mut wild) = (None, false, false);
            for l in &lines[i + 1..end] {
                if l.trim().is_empty() {
                    continue;
                }
                if indent(l) <= base && l.trim_start().starts_with('}') {
                    break;
                }
                let a = *arm.get_or_insert(indent(l));
                if indent(l) == a {
                    names |= names_op_enum(l);
                    let s = l.trim_start();
                    wild |= s.starts_with("_ =>") || s.starts_with("_ if ");
                }
            }
            if names && wild {
                found.push(format!("{rel}\t{}", t.trim()));
            }
        }
    }
    found
}

#[test]
fn catch_all_arms_over_op_enums_only_shrink() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    let list = root.join("tests/data/catch_all_arms.txt");
    let found = catch_all_matches(&root);
    if std::env::var_os("OXLA_CATCH_ALL_BLESS").is_some() {
        let mut text = String::from(
            "# Matches over an op enum that still have a `_ =>` arm (checked by\n\
             # crates/oxla/tests/catch_all_arms.rs). This list only shrinks.\n",
        );
        for f in &found {
            text.push_str(f);
            text.push('\n');
        }
        std::fs::write(&list, text).unwrap();
        return;
    }
    let listed: Vec<String> = std::fs::read_to_string(&list)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_string)
        .collect();
    // Multisets: one file may hold several matches with the same text.
    let minus = |a: &[String], b: &[String]| -> Vec<String> {
        let mut rest = b.to_vec();
        a.iter()
            .filter(|x| match rest.iter().position(|y| y == *x) {
                Some(k) => {
                    rest.swap_remove(k);
                    false
                }
                None => true,
            })
            .cloned()
            .collect()
    };
    let new = minus(&found, &listed);
    let gone = minus(&listed, &found);
    assert!(
        new.is_empty(),
        "a match over an op enum with a `_ =>` arm: list the ops instead, so a new \
         op is a compile error there:\n{}",
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        gone.is_empty(),
        "these catch-all arms are gone: remove them from tests/data/catch_all_arms.txt \
         (or run with OXLA_CATCH_ALL_BLESS=1):\n{}",
        gone.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
