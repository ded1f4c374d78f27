//! The two corpora the op-set work is measured against, as one test binary:
//!
//! - [`jax`]: realistic JAX programs (`tests/data/jax/`, written by
//!   `scripts/jax_programs.py`): each is parsed, verified, evaluated in the
//!   interpreter and run by the JIT on JAX's inputs, and compared with JAX's
//!   outputs within the program's tolerance;
//! - [`xla`]: the HLO modules of XLA's own tests (`tests/data/xla_corpus/`,
//!   collected by `scripts/xla_corpus.py`): each goes through
//!   [`oxla::hlo::parse`].
//!
//! Most of both fail today (unsupported ops and element types), so neither
//! test asserts success: each compares every outcome with a committed
//! expectations file (`expected.tsv` next to the data) and fails on any
//! change. A program or module that starts to pass must be recorded (so
//! progress shows in the diff of `expected.tsv`); one that stops passing,
//! or fails differently, is a regression to look at. After a change that
//! is meant, rewrite the files and review the diff:
//!
//! ```text
//! OXLA_CORPUS_BLESS=1 cargo test -p oxla --test corpus
//! ```
//!
//! A panic in the library is caught and recorded as the outcome `panic: ...`
//! (so one bug does not hide the rest of the corpus); it is a bug to fix.
//! Run with `-- --nocapture` to see the summaries.

mod jax;
mod xla;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Set to `1` to rewrite the expectations files instead of checking them.
const BLESS_VAR: &str = "OXLA_CORPUS_BLESS";

/// The repository's `tests/data` folder.
fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// The first line of an error message, made safe for one TSV field.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    let line = line.replace('\t', " ");
    if line.is_empty() {
        "(empty message)".to_string()
    } else {
        line
    }
}

/// Runs `f`, turning a panic into `Err("panic: <message>")`.
fn no_panic<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(no message)".to_string());
            Err(format!("panic: {}", first_line(&msg)))
        }
    }
}

/// An expectations file: a header of `#` comment lines, then one line per
/// entry, `id<TAB>outcome[<TAB>outcome...]`, sorted by id.
struct Expectations {
    path: PathBuf,
    /// The header, written back on bless (each line starts with `#`).
    header: String,
    /// The names of the outcome columns (every line has one field each
    /// after the id).
    columns: &'static [&'static str],
}

impl Expectations {
    fn load(&self) -> Result<BTreeMap<String, Vec<String>>, String> {
        let text = std::fs::read_to_string(&self.path).map_err(|e| {
            format!(
                "cannot read {}: {e}; write it with {BLESS_VAR}=1",
                self.path.display()
            )
        })?;
        let mut rows = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() != self.columns.len() + 1 {
                return Err(format!(
                    "{}:{}: expected {} tab-separated fields, found {}",
                    self.path.display(),
                    n + 1,
                    self.columns.len() + 1,
                    fields.len()
                ));
            }
            let outcomes = fields[1..].iter().map(|s| s.to_string()).collect();
            if rows.insert(fields[0].to_string(), outcomes).is_some() {
                return Err(format!(
                    "{}:{}: `{}` is listed twice",
                    self.path.display(),
                    n + 1,
                    fields[0]
                ));
            }
        }
        Ok(rows)
    }

    fn write(&self, actual: &BTreeMap<String, Vec<String>>) {
        let mut text = self.header.clone();
        for (id, outcomes) in actual {
            let _ = writeln!(text, "{id}\t{}", outcomes.join("\t"));
        }
        if let Err(e) = std::fs::write(&self.path, text) {
            panic!("cannot write {}: {e}", self.path.display());
        }
    }

    /// Compares `actual` with the file (or rewrites the file when
    /// blessing). `passing` names the outcome that counts as success, so
    /// changes can be told apart as progress or regressions.
    fn check(&self, actual: &BTreeMap<String, Vec<String>>, passing: &str) {
        if std::env::var(BLESS_VAR).is_ok_and(|v| v == "1") {
            self.write(actual);
            eprintln!("{BLESS_VAR}=1: wrote {}", self.path.display());
            return;
        }
        let expected = match self.load() {
            Ok(rows) => rows,
            Err(e) => panic!("{e}"),
        };
        let mut progress = Vec::new();
        let mut regressions = Vec::new();
        let mut changed = Vec::new();
        for (id, now) in actual {
            let Some(was) = expected.get(id) else {
                changed.push(format!("  new entry {id}: {}", now.join(" | ")));
                continue;
            };
            for ((w, n), col) in was.iter().zip(now).zip(self.columns) {
                if w == n {
                    continue;
                }
                let line = format!("  {id} ({col}): was `{w}`, now `{n}`");
                if n == passing {
                    progress.push(line);
                } else if w == passing {
                    regressions.push(line);
                } else {
                    changed.push(line);
                }
            }
        }
        for id in expected.keys().filter(|id| !actual.contains_key(*id)) {
            changed.push(format!("  {id} is listed but no longer in the corpus"));
        }
        if progress.is_empty() && regressions.is_empty() && changed.is_empty() {
            return;
        }
        let mut msg = format!(
            "outcomes differ from {} (rewrite it with {BLESS_VAR}=1 once every change is meant, and review the diff)\n",
            self.path.display()
        );
        for (title, lines) in [
            ("REGRESSIONS (passed before)", &regressions),
            ("newly passing (record them)", &progress),
            ("changed", &changed),
        ] {
            if !lines.is_empty() {
                let _ = writeln!(msg, "{title}: {}", lines.len());
                for l in lines.iter() {
                    let _ = writeln!(msg, "{l}");
                }
            }
        }
        panic!("{msg}");
    }
}

/// FNV-1a 64 of `bytes`, as 16 hex digits (what `scripts/xla_corpus.py`
/// writes in the manifest).
fn fnv64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[test]
fn fnv64_matches_the_reference_values() {
    // The FNV-1a 64 test vectors (the same function the scripts use).
    assert_eq!(fnv64(b""), "cbf29ce484222325");
    assert_eq!(fnv64(b"a"), "af63dc4c8601ec8c");
    assert_eq!(fnv64(b"foobar"), "85944171f73967e8");
}

#[test]
fn first_line_is_one_tsv_field() {
    assert_eq!(first_line("a\tb\nsecond"), "a b");
    assert_eq!(first_line(""), "(empty message)");
}
