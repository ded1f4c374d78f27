//! The op-table rule of `docs/architecture.md`: in library code, a `match`
//! over an op enum (`OpKind`, `UnaryOp`, `BinaryOp`, `Opcode`) or over
//! `ElementType` lists its variants, so that a new op or element type is a
//! compile error wherever it needs a decision, never a silent default from
//! a `_ =>` arm. The rule holds with no exception: this test fails on any
//! such match with a catch-all arm.
//!
//! The check is textual: a `match` whose arm patterns (the text before a
//! guard or `=>`, at the arms' indentation) name one of the enums, and
//! that has an arm `_ =>` or `_ if ...`, outside `#[cfg(test)]` modules.
//! A file that renames `ElementType` (`use ElementType as E`) has its
//! alias checked too.

use std::path::{Path, PathBuf};

/// The enums whose matches must list their variants.
const ENUMS: [&str; 5] = ["OpKind", "UnaryOp", "BinaryOp", "Opcode", "ElementType"];

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

/// The pattern of an arm line: the text before its guard or `=>`.
fn pattern(line: &str) -> &str {
    let end = [line.find(" if "), line.find("=>")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    &line[..end]
}

/// The names under which `text` refers to the checked enums: each enum's
/// own name, and any `as` alias a `use` gives it.
fn prefixes(text: &str) -> Vec<String> {
    let mut names: Vec<String> = ENUMS.iter().map(|e| format!("{e}::")).collect();
    for line in text.lines() {
        let t = line.trim();
        if !t.starts_with("use ") {
            continue;
        }
        for e in ENUMS {
            let needle = format!("{e} as ");
            if let Some(k) = t.find(&needle) {
                let alias: String = t[k + needle.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !alias.is_empty() {
                    names.push(format!("{alias}::"));
                }
            }
        }
    }
    names
}

/// Whether `pattern` names one of `prefixes` as a path start (so `E::`
/// does not match inside `TypeE::`).
fn names_enum(pattern: &str, prefixes: &[String]) -> bool {
    prefixes.iter().any(|p| {
        pattern.match_indices(p.as_str()).any(|(k, _)| {
            !pattern[..k]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// `(file, line number, match line)` for every match whose arm patterns
/// name a checked enum and that has a catch-all arm, outside
/// `#[cfg(test)]` modules.
fn catch_all_matches(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        sources(&krate.path().join("src"), &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let prefixes = prefixes(&text);
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
                if l.trim().is_empty() || l.trim_start().starts_with("//") {
                    continue;
                }
                if indent(l) <= base && l.trim_start().starts_with('}') {
                    break;
                }
                let a = *arm.get_or_insert(indent(l));
                if indent(l) == a {
                    let s = l.trim_start();
                    names |= names_enum(pattern(s), &prefixes);
                    wild |= s.starts_with("_ =>") || s.starts_with("_ if ");
                }
            }
            if names && wild {
                found.push(format!("{rel}:{}: {}", i + 1, t.trim()));
            }
        }
    }
    found
}

#[test]
fn no_catch_all_arm_over_an_op_or_element_type_enum() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    let found = catch_all_matches(&root);
    assert!(
        found.is_empty(),
        "a match over an op enum or ElementType with a `_ =>` arm: list the variants \
         instead, so a new one is a compile error there:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_sees_patterns_and_aliases() {
    assert_eq!(pattern("OpKind::Tuple if x => 1,"), "OpKind::Tuple");
    assert_eq!(pattern("3 | 4 if Opcode::Iota.accepts(t) => {"), "3 | 4");
    let p = prefixes("use oxla_ir::ElementType as E;\n");
    assert!(names_enum("(E::F32, E::S32)", &p));
    assert!(!names_enum("TypeE::F32", &p));
    assert!(!names_enum("Node::Load { .. }", &p));
}
