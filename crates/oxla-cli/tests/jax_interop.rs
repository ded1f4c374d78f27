//! JAX interop checks (`scripts/jax_interop.py`), run from Rust.
//!
//! The checks need Python with jax, which CI does not install (it would take
//! minutes): they run from `just jax-check`, which records its last result
//! in `docs/jax-interop.md`. Here:
//!
//! - with `OXLA_JAX_PYTHON=/path/to/python-with-jax`, the script runs
//!   against this build's `oxla` binary and every check must pass;
//! - without it, the test says loudly that it skipped them;
//! - either way, `docs/jax-interop.md` must record a passing run of the
//!   current script and test data: the script writes a fingerprint of both
//!   (FNV-1a 64 over the script and the files of `tests/data/hlo/small/`),
//!   recomputed here, so editing the checks without rerunning them fails.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const SCRIPT: &str = "scripts/jax_interop.py";
const DATA_DIR: &str = "tests/data/hlo/small";
const REPORT: &str = "docs/jax-interop.md";
const MARKER: &str = "<!-- jax-interop: ";

/// Writes past libtest's output capture (which takes only the `print!`
/// macros), so the line shows in a plain `cargo test`.
fn loud(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// FNV-1a 64 over the script's bytes, then each data file (sorted by name)
/// as name, a zero byte and its bytes: what `fingerprint()` in the script
/// computes.
fn fingerprint(repo: &Path) -> String {
    let mut chunks = vec![std::fs::read(repo.join(SCRIPT)).expect("read the script")];
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo.join(DATA_DIR))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    for f in files {
        let mut chunk = f
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned()
            .into_bytes();
        chunk.push(0);
        chunk.extend(std::fs::read(&f).expect("read a data file"));
        chunks.push(chunk);
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in chunks.iter().flatten() {
        h ^= u64::from(*byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// `key=value` from the marker line.
fn field<'a>(marker: &'a str, key: &str) -> Option<&'a str> {
    marker
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

#[test]
fn recorded_jax_interop_result_is_a_passing_run_of_the_current_checks() {
    let repo = repo();
    let rerun = "run `just jax-check` and commit docs/jax-interop.md";
    let text = std::fs::read_to_string(repo.join(REPORT))
        .unwrap_or_else(|e| panic!("{REPORT} cannot be read ({e}): {rerun}"));
    let marker = text
        .lines()
        .find(|l| l.starts_with(MARKER))
        .unwrap_or_else(|| panic!("{REPORT} has no `{MARKER}...` line: {rerun}"));
    assert_eq!(
        field(marker, "status"),
        Some("passed"),
        "the last recorded JAX interop run did not pass; see the failing rows in {REPORT}"
    );
    let current = fingerprint(&repo);
    assert_eq!(
        field(marker, "fingerprint"),
        Some(current.as_str()),
        "{REPORT} records a run of another version of {SCRIPT} or {DATA_DIR}/: {rerun}"
    );
    // The table agrees with the marker: as many rows as checks, none failed.
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| check |"))
        .collect();
    let checks: usize = field(marker, "checks")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no checks=N in `{marker}`"));
    assert_eq!(
        rows.len(),
        checks,
        "{REPORT}: the table and the marker disagree"
    );
    assert!(
        checks > 0 && rows.iter().all(|r| !r.contains("**FAIL**")),
        "{REPORT} records failing or no checks"
    );
}

#[test]
fn jax_interop_checks_pass() {
    let Some(python) = std::env::var_os("OXLA_JAX_PYTHON") else {
        loud(
            "SKIPPED: jax interop checks need OXLA_JAX_PYTHON=/path/to/python-with-jax \
             (see `just jax-check`; last recorded result in docs/jax-interop.md)",
        );
        return;
    };
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("jax-interop");
    let out = Command::new(&python)
        .arg(repo().join(SCRIPT))
        .arg("--oxla")
        .arg(env!("CARGO_BIN_EXE_oxla"))
        .arg("--work")
        .arg(&work)
        .output()
        .unwrap_or_else(|e| panic!("cannot run OXLA_JAX_PYTHON={python:?}: {e}"));
    let report = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{SCRIPT} failed ({}):\n{report}\n{stderr}",
        out.status
    );
    loud(&format!(
        "jax interop checks passed with {python:?}: {}",
        report
            .lines()
            .find(|l| l.starts_with("**"))
            .unwrap_or("(no summary line)")
    ));
}
