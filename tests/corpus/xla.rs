//! The HLO modules of XLA's own tests (`tests/data/xla_corpus/`): every
//! module in `manifest.tsv` goes through [`oxla::hlo::parse`] (which
//! parses and verifies), and the outcome, `ok` or the first line of the
//! error, is compared with `tests/data/xla_corpus/expected.tsv` (see the
//! crate docs for how changes are checked and blessed). A summary by
//! element type and scope is printed (`-- --nocapture`).
//!
//! The module texts are XLA's (Apache-2.0) and are made by
//! `scripts/xla_corpus.py` from a snapshot of openxla/xla into
//! `tests/data/xla_corpus/modules/`; the folder is not committed (see that
//! folder's README), so where it is absent only the manifest and the
//! expectations are checked against each other, and the test says so.
//! `OXLA_XLA_CORPUS=<dir>` reads the modules from `<dir>/modules/` instead;
//! `OXLA_CORPUS_REQUIRE=1` makes a missing folder a failure.
//! Each file starts with `// xla-corpus:` provenance lines, removed before
//! parsing: what is parsed is the test's text, byte for byte (its FNV-1a
//! hash is in the manifest and checked).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::{Expectations, data_dir, first_line, fnv64, no_panic};

const OK: &str = "ok";
const HEADER_PREFIX: &str = "// xla-corpus: ";

/// The element types oxla had before the element-type issue: a module that
/// uses only these (and no `token`) is in the "core" group.
const CORE_TYPES: &[&str] = &[
    "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f32", "f64",
];

/// One line of `manifest.tsv` (see its header for the columns).
struct Module {
    id: String,
    file: String,
    scope: String,
    xla_expects: String,
    /// What XLA itself makes of the text (`accepts`, `refuses`, `unsure`;
    /// the `xla_check` column has its message).
    xla_says: String,
    element_types: Vec<String>,
    fnv64: String,
}

fn manifest() -> Vec<Module> {
    let path = data_dir().join("xla_corpus/manifest.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    let mut ids = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("id\t") || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            f.len(),
            12,
            "{}:{}: expected 12 fields",
            path.display(),
            n + 1
        );
        assert!(
            ids.insert(f[0]),
            "{}:{}: `{}` twice",
            path.display(),
            n + 1,
            f[0]
        );
        assert!(
            f[4] == "single" || f[4].starts_with("out:"),
            "{}:{}: scope `{}`",
            path.display(),
            n + 1,
            f[4]
        );
        assert!(
            ["valid", "invalid", "unknown"].contains(&f[5]),
            "{}:{}: xla_expects `{}`",
            path.display(),
            n + 1,
            f[5]
        );
        assert!(
            ["accepts", "refuses", "unsure"].contains(&f[11]),
            "{}:{}: xla_says `{}`",
            path.display(),
            n + 1,
            f[11]
        );
        out.push(Module {
            id: f[0].to_string(),
            file: f[1].to_string(),
            scope: f[4].to_string(),
            xla_expects: f[5].to_string(),
            xla_says: f[11].to_string(),
            element_types: f[6]
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            fnv64: f[8].to_string(),
        });
    }
    out
}

/// Where the module files are: `$OXLA_XLA_CORPUS`, else the data folder.
fn corpus_root() -> PathBuf {
    match std::env::var_os("OXLA_XLA_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => data_dir().join("xla_corpus"),
    }
}

/// The module text of a corpus file: the file without its provenance lines.
fn module_text(file: &str) -> &str {
    let mut rest = file;
    while let Some(after) = rest.strip_prefix(HEADER_PREFIX) {
        rest = after.split_once('\n').map_or("", |(_, r)| r);
    }
    rest
}

fn outcome(text: &str) -> String {
    match no_panic(|| oxla::hlo::parse(text).map_err(|e| first_line(&e.to_string()))) {
        Ok(_) => OK.to_string(),
        Err(e) => e,
    }
}

/// The group a module is counted in: "core" (f32/f64/integers/pred only),
/// or one line per kind of other type it uses.
fn type_groups(types: &[String]) -> Vec<&'static str> {
    let mut groups = BTreeSet::new();
    for t in types {
        let t = t.as_str();
        if CORE_TYPES.contains(&t) {
            continue;
        }
        groups.insert(match t {
            "bf16" => "bf16",
            "f16" => "f16",
            "c64" | "c128" => "complex",
            "token" => "token",
            t if t.starts_with("f8") || t.starts_with("f4") => "float8/float4",
            t if t.starts_with('s') || t.starts_with('u') => "sub-byte int (s4, u4, s2, ...)",
            _ => "other",
        });
    }
    if groups.is_empty() {
        vec!["f32/f64/int/pred only"]
    } else {
        groups.into_iter().collect()
    }
}

/// `passed of total` per group, for the lines of the summary.
#[derive(Default)]
struct Tally(BTreeMap<&'static str, (usize, usize)>);

impl Tally {
    fn add(&mut self, group: &'static str, passed: bool) {
        let e = self.0.entry(group).or_default();
        e.0 += usize::from(passed);
        e.1 += 1;
    }
}

fn summary(modules: &[Module], actual: &BTreeMap<String, Vec<String>>) -> String {
    let mut valid = Tally::default();
    let mut invalid = Tally::default();
    let mut out_of_scope = Tally::default();
    let mut panics = 0;
    for m in modules {
        let o = &actual[&m.id][0];
        panics += usize::from(o.starts_with("panic: "));
        if m.scope != "single" {
            out_of_scope.add("multi-device or dynamic (out of scope)", o == OK);
            continue;
        }
        match m.xla_expects.as_str() {
            "invalid" => invalid.add("XLA expects an error", o != OK),
            // A text XLA's own parser or verifier refuses, though its test
            // takes it as valid (the input of a pass test that runs no
            // verifier, a text cut from a larger one): not one XLA parses.
            _ if m.xla_says == "refuses" => invalid.add("XLA itself refuses", o != OK),
            _ => {
                valid.add("all", o == OK);
                for g in type_groups(&m.element_types) {
                    valid.add(g, o == OK);
                }
            }
        }
    }
    let mut s = String::from("XLA's single-device test modules that XLA parses:\n");
    let (p, t) = valid.0.get("all").copied().unwrap_or_default();
    s += &format!("  all: {p} of {t} parse and verify\n");
    for (g, (p, t)) in valid.0.iter().filter(|(g, _)| **g != "all") {
        s += &format!("  {g}: {p} of {t} parse and verify\n");
    }
    for (g, (p, t)) in &invalid.0 {
        s += &format!("Single-device modules {g}: {p} of {t} refused (for any reason)\n");
    }
    for (g, (p, t)) in &out_of_scope.0 {
        s += &format!("{g}: {t} modules, {p} parse\n");
    }
    if panics > 0 {
        s += &format!("PANICS (library bugs): {panics}\n");
    }
    s
}

const HEADER: &str = "\
# What oxla::hlo::parse makes of each module of XLA's own tests
# (tests/data/xla_corpus/manifest.tsv; checked by tests/corpus/xla.rs):
# `ok` (parsed and verified) or the first line of the error.
# Rewrite after a meant change: OXLA_CORPUS_BLESS=1 cargo test -p oxla --test corpus
# (with the modules present: scripts/xla_corpus.py) and review the diff.
";

#[test]
fn xla_test_modules_match_the_recorded_outcomes() {
    let modules = manifest();
    assert!(
        modules.len() > 500,
        "the manifest lists {} modules",
        modules.len()
    );
    let expectations = Expectations {
        path: data_dir().join("xla_corpus/expected.tsv"),
        header: HEADER.to_string(),
        columns: &["parse"],
    };
    let root = corpus_root();
    if !root.join("modules").is_dir() {
        assert!(
            !std::env::var("OXLA_CORPUS_REQUIRE").is_ok_and(|v| v == "1"),
            "OXLA_CORPUS_REQUIRE=1 and {} has no modules/ (run scripts/xla_corpus.py)",
            root.display()
        );
        // Without the texts, check what can be checked: the expectations
        // cover exactly the manifest's modules.
        let expected = expectations.load().unwrap_or_else(|e| panic!("{e}"));
        let listed: BTreeSet<&String> = modules.iter().map(|m| &m.id).collect();
        let recorded: BTreeSet<&String> = expected.keys().collect();
        assert_eq!(
            listed, recorded,
            "expected.tsv and manifest.tsv list different modules"
        );
        eprintln!(
            "NOTE: {} has no modules/: only the manifest and expected.tsv were checked \
             ({} modules); run scripts/xla_corpus.py to check the outcomes",
            root.display(),
            modules.len()
        );
        eprintln!("As recorded:\n{}", summary(&modules, &expected));
        return;
    }
    let mut actual = BTreeMap::new();
    for m in &modules {
        let path = root.join(&m.file);
        let file = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let text = module_text(&file);
        assert_eq!(
            fnv64(text.as_bytes()),
            m.fnv64,
            "{} is not the text the manifest lists (regenerate both with scripts/xla_corpus.py)",
            path.display()
        );
        actual.insert(m.id.clone(), vec![outcome(text)]);
    }
    eprintln!("{}", summary(&modules, &actual));
    expectations.check(&actual, OK);
}

#[test]
fn module_text_drops_only_the_provenance_lines() {
    let file = "// xla-corpus: source x\n// xla-corpus: test y\n// kept\nHloModule m\n";
    assert_eq!(module_text(file), "// kept\nHloModule m\n");
    assert_eq!(module_text("HloModule m"), "HloModule m");
}

#[test]
fn type_groups_put_each_module_in_its_lines() {
    let g = |ts: &[&str]| type_groups(&ts.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(g(&["f32", "s32", "pred"]), vec!["f32/f64/int/pred only"]);
    assert_eq!(g(&["bf16", "f32", "c64"]), vec!["bf16", "complex"]);
    assert_eq!(
        g(&["f8e4m3fn", "s4"]),
        vec!["float8/float4", "sub-byte int (s4, u4, s2, ...)"]
    );
}
