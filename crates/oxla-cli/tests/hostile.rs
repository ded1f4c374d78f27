//! Hostile input for the `oxla` command: `oxla check` on every fuzz corpus
//! and regression file and on a few hundred mutants of them, and `oxla run`
//! on modules whose values would not fit in memory.
//!
//! For `check` the contract is: exit status 0 (valid, the module printed) or
//! 1 (invalid, the errors on stderr), never 101 (a panic) nor a signal (an
//! aborted allocation), and promptly. A module `check` accepts is also
//! run on random inputs under a 256 MiB evaluation budget, with the same
//! contract. The mutants come from the parser
//! fuzzer's engine (`crates/oxla-ir/tests/fuzz/mutator.rs`) and are written
//! to files as raw bytes, invalid UTF-8 and NUL bytes included.

#[path = "../../oxla-ir/tests/fuzz/mutator.rs"]
mod mutator;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mutator::{Rng, mutate};

/// How long one `oxla check` may take (a debug build, on a busy machine).
const LIMIT: Duration = Duration::from_secs(20);

/// Mutants checked per run.
const MUTANTS: usize = 300;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fuzz")
}

fn hlo_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    files.sort();
    files
}

/// What one run of the command did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `oxla ARGS` with `env` set, killing it after [`LIMIT`].
fn oxla(args: &[&str], env: &[(&str, &str)]) -> Run {
    let start = Instant::now();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id())
        .replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let (out_path, err_path) = (
        dir.join(format!("{tag}.out")),
        dir.join(format!("{tag}.err")),
    );
    // Output goes to files, so a child that writes a lot cannot block on a
    // full pipe while it is being timed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxla"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("the oxla binary runs");
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for oxla") {
            break Some(status);
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Run {
        code: status.and_then(|s| s.code()),
        stdout: read(&out_path),
        stderr: read(&err_path),
        elapsed: start.elapsed(),
    }
}

/// What is wrong with `oxla check` on `path`, if anything; a module it
/// accepts is also run (see [`run_problem`]).
fn check_problem(path: &Path) -> Option<String> {
    let run = oxla(&["check", path.to_str().unwrap()], &[]);
    let problem = match run.code {
        _ if run.elapsed > LIMIT => format!("did not finish in {LIMIT:?}"),
        Some(0) if run.stdout.contains("ENTRY") => return run_problem(path),
        Some(0) => "exit 0 without printing the module".into(),
        Some(1) if run.stderr.trim().is_empty() => "exit 1 with nothing on stderr".into(),
        Some(1) => return None,
        Some(101) => format!("panicked:\n{}", run.stderr),
        Some(code) => format!("exit status {code}:\n{}", run.stderr),
        None => format!("killed by a signal:\n{}", run.stderr),
    };
    Some(format!("{}: {problem}", path.display()))
}

/// The budget `oxla run` gets here: enough for every valid corpus module,
/// small enough that a mutant's huge value is refused rather than computed.
const RUN_BUDGET: &str = "268435456";

/// What is wrong with `oxla run --backend interp` on the valid module at
/// `path` (random inputs): it must exit 0, or 1 with a message. Modules
/// whose parameters need more than 64 MiB are skipped: `oxla run` would
/// generate up to 8 GiB of random input for them.
fn run_problem(path: &Path) -> Option<String> {
    let text = String::from_utf8_lossy(&std::fs::read(path).ok()?).into_owned();
    let comp = oxla::hlo::parse(&text).ok()?;
    let input_bytes: i64 = comp
        .parameter_shapes()
        .iter()
        .map(|s| s.element_count().saturating_mul(8))
        .fold(0, i64::saturating_add);
    if input_bytes > 64 << 20 {
        return None;
    }
    let run = oxla(
        &["run", path.to_str().unwrap(), "--backend", "interp"],
        &[("OXLA_MAX_EVAL_BYTES", RUN_BUDGET)],
    );
    let problem = match run.code {
        _ if run.elapsed > LIMIT => format!("did not finish in {LIMIT:?}"),
        Some(0) => return None,
        Some(1) if run.stderr.contains("error:") => return None,
        Some(1) => "exit 1 without an error message".into(),
        Some(101) => format!("panicked:\n{}", run.stderr),
        Some(code) => format!("exit status {code}:\n{}", run.stderr),
        None => format!("killed by a signal:\n{}", run.stderr),
    };
    Some(format!("oxla run {}: {problem}", path.display()))
}

#[test]
fn check_survives_the_corpus_and_the_regressions() {
    let mut files = hlo_files(&fuzz_dir().join("corpus"));
    files.extend(hlo_files(&fuzz_dir().join("regressions")));
    assert!(files.len() > 50);
    let problems: Vec<String> = files.iter().filter_map(|p| check_problem(p)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn check_survives_mutants() {
    let corpus: Vec<Vec<u8>> = hlo_files(&fuzz_dir().join("corpus"))
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-cli-mutants");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(7);
    let mut problems = Vec::new();
    for i in 0..MUTANTS {
        let base = &corpus[rng.below(corpus.len())];
        let other = &corpus[rng.below(corpus.len())];
        let path = dir.join(format!("mutant-{i}.hlo"));
        std::fs::write(&path, mutate(&mut rng, base, other)).unwrap();
        problems.extend(check_problem(&path));
    }
    assert!(
        problems.is_empty(),
        "{} of {MUTANTS} mutants broke `oxla check` (seed 7; the files are kept):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A module with a 4 TB intermediate value is refused by the interpreter's
/// budget (`OXLA_MAX_EVAL_BYTES` moves it) and by the JIT.
#[test]
fn run_refuses_values_that_do_not_fit() {
    let interp =
        |module: &str, env: &[(&str, &str)]| oxla(&["run", module, "--backend", "interp"], env);
    let huge = fuzz_dir().join("corpus/nasty_broadcast_huge.hlo");
    let run = interp(huge.to_str().unwrap(), &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "Evaluation failed at `b`: its result f32[100000,100000,100] needs \
                             4000000000000 bytes (3.6 TiB), more than the evaluation budget of \
                             8589934592 bytes (8.0 GiB)"
        ),
        "{}",
        run.stderr
    );

    // The JIT, the default backend, refuses it when it allocates the result.
    let run = oxla(&["run", huge.to_str().unwrap()], &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("cannot allocate an output of shape f32[100000,100000,100]"),
        "{}",
        run.stderr
    );

    let small = fuzz_dir().join("corpus/nasty_crlf.hlo");
    let small = small.to_str().unwrap();
    assert_eq!(interp(small, &[]).code, Some(0));
    let run = interp(small, &[("OXLA_MAX_EVAL_BYTES", "4")]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("more than the evaluation budget of 4 bytes"),
        "{}",
        run.stderr
    );
    let run = interp(small, &[("OXLA_MAX_EVAL_BYTES", "lots")]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("OXLA_MAX_EVAL_BYTES=\"lots\" is not a number of bytes"),
        "{}",
        run.stderr
    );

    // A 4 TiB parameter: no random input that large is generated.
    let param = fuzz_dir().join("corpus/nasty_huge_parameter.hlo");
    let run = interp(param.to_str().unwrap(), &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("more than the 8.0 GiB oxla generates at random"),
        "{}",
        run.stderr
    );
}

/// `oxla check` lists every error it can recover from, in the order of the
/// text: each unsupported or out-of-scope op (checking resumes at the next
/// instruction), and the semantic errors of what remains. Uses of a broken
/// instruction are not reported again.
#[test]
fn check_lists_every_error() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-cli-check");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("many.hlo");
    std::fs::write(
        &path,
        "HloModule many\n\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] scaled-dot(a, a)\n  c = f32[2] negate(b)\n  d = f32[3] negate(a)\n  w = f32[2] shuffle(a)\n  r = f32[2] all-reduce(a), to_apply=add\n  ROOT z = f32[2] add(a, zz)\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let run = oxla(&["check", p], &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let mut at = 0;
    for want in [
        format!("{p}:5:14: unsupported op `scaled-dot`"),
        format!("{p}:7:7: `d` declares shape f32[3] but its operands give f32[2]"),
        format!("{p}:8:14: unsupported op `shuffle`"),
        format!("{p}:9:14: `all-reduce` is a multi-device collective: out of scope"),
        format!("{p}:10:26: undefined operand `zz`"),
        format!("{p}: 5 error(s); the module is not valid"),
    ] {
        let found = run.stderr[at..].find(&want);
        assert!(
            found.is_some(),
            "no `{want}` after byte {at} in:\n{}",
            run.stderr
        );
        at += found.unwrap_or(0) + want.len();
    }
    // Past 50 errors, check says it stopped.
    let many = fuzz_dir().join("corpus/nasty_many_unsupported_ops.hlo");
    let run = oxla(&["check", many.to_str().unwrap()], &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("50 error(s) (check stops there"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A module whose constants were printed as `{...}` (as XLA prints large
/// constants and tuple constants) checks and prints back; running it on
/// either backend, or converting it to StableHLO, is refused.
#[test]
fn elided_constants_check_but_never_run() {
    let path = fuzz_dir().join("corpus/xla_elided_constant.hlo");
    let p = path.to_str().unwrap();
    let run = oxla(&["check", p], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("w = f32[67,89]{1,0} constant({...})"),
        "{}",
        run.stdout
    );
    for args in [
        vec!["run", p, "--backend", "interp"],
        vec!["run", p, "--backend", "jit"],
        vec!["convert", p, "--to", "stablehlo"],
    ] {
        let run = oxla(&args, &[]);
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("the values of this f32[67,89] constant were elided"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// A constant written as one value for an array is what XLA makes of it,
/// the value at index 0 and zeros elsewhere, on both backends: as a dense
/// literal when small, as a pad when large.
#[test]
fn one_value_constants_run_as_xla_reads_them() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-cli-one-value");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("one_value.hlo");
    std::fs::write(
        &path,
        "HloModule m\n\nENTRY e {\n  a = f32[5000] constant(15)\n  s = f32[3] slice(a), slice={[0:3]}\n  b = s32[2,2] constant(-7)\n  ROOT t = (f32[3], s32[2,2]) tuple(s, b)\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    for backend in ["interp", "jit"] {
        let run = oxla(&["run", p, "--backend", backend], &[]);
        assert_eq!(run.code, Some(0), "{backend}: {}", run.stderr);
        assert!(
            run.stdout.contains("f32[3] {15, 0, 0}")
                && run.stdout.contains("{ -7, 0 }")
                && run.stdout.contains("{ 0, 0 }"),
            "{backend}: {}",
            run.stdout
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
