//! The `oxla` binary, run as a user runs it: results checked against
//! `oxla::evaluate`, exit codes, error locations, conversions, help texts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use oxla::{Computation, Literal};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/hlo")
        .join(path)
}

fn oxla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxla"))
        .args(args)
        .output()
        .expect("the oxla binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the exit status, showing the output when it differs.
fn expect_status(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

/// A fresh directory under the system temp dir.
fn temp_dir() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "oxla-cli-test-{}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn parse(path: &Path) -> Computation {
    oxla::hlo::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Deterministic f32 arguments for `comp`, written as .npy files in `dir`.
fn write_inputs(comp: &Computation, dir: &Path) -> (Vec<Literal>, Vec<String>) {
    let mut lits = vec![];
    let mut paths = vec![];
    for (k, shape) in comp.parameter_shapes().iter().enumerate() {
        let n = shape.element_count() as usize;
        let values: Vec<f32> = (0..n)
            .map(|i| ((i * 7 + k * 3) % 11) as f32 * 0.25 - 1.0)
            .collect();
        let lit = Literal::from_vec(shape.dims(), values).unwrap();
        let path = dir.join(format!("in{k}.npy"));
        oxla::npy::write_npy(&path, &lit).unwrap();
        lits.push(lit);
        paths.push(path.to_string_lossy().into_owned());
    }
    (lits, paths)
}

/// `oxla run MODULE --input ... --output out.npy --backend interp`.
fn run_to_npy(module: &Path, inputs: &[String], dir: &Path) -> Literal {
    let out = dir.join("out.npy");
    run_on(module, inputs, &out, "interp");
    oxla::npy::read_npy(&out).unwrap()
}

/// `oxla run module --input ... --output out --backend backend`, which
/// must succeed.
fn run_on(module: &Path, inputs: &[String], out: &Path, backend: &str) -> Output {
    let mut args = vec!["run", module.to_str().unwrap()];
    for p in inputs {
        args.extend(["--input", p.as_str()]);
    }
    args.extend(["--output", out.to_str().unwrap(), "--backend", backend]);
    let o = oxla(&args);
    expect_status(&o, 0);
    o
}

fn assert_close(a: &Literal, b: &Literal, tol: f32) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .zip(b.to_vec::<f32>().unwrap())
    {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{x} vs {y}");
    }
}

const SMALL: [&str; 3] = ["W1", "W5", "W9_softmax"];

// ---------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------

#[test]
fn run_matches_evaluate_on_jax_modules() {
    for name in SMALL {
        for suffix in [".hlo.txt", ".optimized.hlo.txt"] {
            let module = data(&format!("small/{name}{suffix}"));
            let comp = parse(&module);
            let dir = temp_dir();
            let (lits, paths) = write_inputs(&comp, &dir);
            let got = run_to_npy(&module, &paths, &dir);
            let refs: Vec<&Literal> = lits.iter().collect();
            let want = oxla::evaluate(&comp, &refs).unwrap();
            assert_eq!(got, want, "{name}{suffix}");
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[test]
fn optimized_modules_compute_what_the_originals_do() {
    // XLA's optimized softmax multiplies by a reciprocal: equal up to rounding.
    for name in SMALL {
        let dir = temp_dir();
        let plain = data(&format!("small/{name}.hlo.txt"));
        let (_, paths) = write_inputs(&parse(&plain), &dir);
        let a = run_to_npy(&plain, &paths, &dir);
        let b = run_to_npy(
            &data(&format!("small/{name}.optimized.hlo.txt")),
            &paths,
            &dir,
        );
        assert_close(&a, &b, 1e-6);
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn run_without_inputs_uses_random_ones_and_prints_the_result() {
    let module = data("small/W5.hlo.txt");
    let o = oxla(&["run", module.to_str().unwrap()]);
    expect_status(&o, 0);
    assert!(stdout(&o).starts_with("f32[5,7] {\n"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("random arguments (seed 0)"),
        "{}",
        stderr(&o)
    );
    // Deterministic: the same seed prints the same values, another does not.
    assert_eq!(
        stdout(&oxla(&["run", module.to_str().unwrap()])),
        stdout(&o)
    );
    let other = oxla(&["run", module.to_str().unwrap(), "--seed", "3"]);
    assert_ne!(stdout(&other), stdout(&o));
}

#[test]
fn large_results_print_elided() {
    let o = oxla(&[
        "run",
        data("W1.hlo.txt").to_str().unwrap(),
        "--backend=interp",
    ]);
    expect_status(&o, 0);
    let text = stdout(&o);
    assert!(text.contains("..."), "{text}");
    assert!(text.contains("16777216 elements"), "{text}");
    assert!(text.len() < 2000);
}

#[test]
fn tuple_results_are_written_one_file_per_element() {
    let dir = temp_dir();
    let module = dir.join("t.hlo");
    std::fs::write(
        &module,
        "HloModule t\n\nENTRY t {\n  x = s32[3] parameter(0)\n  n = s32[3] negate(x)\n  ROOT t = (s32[3], s32[3]) tuple(x, n)\n}\n",
    )
    .unwrap();
    let x = Literal::from_vec(&[3], vec![1i32, -2, 3]).unwrap();
    let input = dir.join("x.npy");
    oxla::npy::write_npy(&input, &x).unwrap();
    let out = dir.join("r.npy");
    let o = oxla(&[
        "run",
        module.to_str().unwrap(),
        "--input",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    expect_status(&o, 0);
    assert_eq!(oxla::npy::read_npy(dir.join("r.0.npy")).unwrap(), x);
    assert_eq!(
        oxla::npy::read_npy(dir.join("r.1.npy"))
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![-1, 2, -3]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn run_reports_bad_inputs() {
    let dir = temp_dir();
    let module = data("small/W5.hlo.txt");
    let m = module.to_str().unwrap();
    let (_, paths) = write_inputs(&parse(&module), &dir);
    // Too few inputs.
    let o = oxla(&["run", m, "--input", &paths[0]]);
    expect_status(&o, 1);
    assert!(
        stderr(&o).contains("takes 3 parameter(s) (a_0_.1: f32[5,7], a_1_.1: f32[7], a_2_.1: f32[5]), but 1 --input file(s)"),
        "{}",
        stderr(&o)
    );
    // Inputs in the wrong order: shapes do not match.
    let o = oxla(&[
        "run", m, "--input", &paths[0], "--input", &paths[2], "--input", &paths[1],
    ]);
    expect_status(&o, 1);
    assert!(
        stderr(&o).contains("parameter 1 (`a_1_.1`) has shape f32[7], but the file holds f32[5]"),
        "{}",
        stderr(&o)
    );
    // Not an npy file.
    let o = oxla(&[
        "run", m, "--input", m, "--input", &paths[1], "--input", &paths[2],
    ]);
    expect_status(&o, 1);
    assert!(stderr(&o).contains("not a .npy file"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn jit_backend_compare_and_bench() {
    let m = data("small/W5.hlo.txt");
    let m = m.to_str().unwrap();
    // The JIT prints the same literal as the interpreter for this module
    // (exact ops only: multiply, add, maximum).
    let jit = oxla(&["run", m, "--backend", "jit"]);
    expect_status(&jit, 0);
    let interp = oxla(&["run", m, "--backend", "interp"]);
    expect_status(&interp, 0);
    assert_eq!(stdout(&jit), stdout(&interp));
    // The JIT is the default.
    let default = oxla(&["run", m]);
    expect_status(&default, 0);
    assert_eq!(stdout(&default), stdout(&jit));
    // --compare runs both and reports the difference.
    let o = oxla(&["run", m, "--compare"]);
    expect_status(&o, 0);
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("compare jit with interp: 0 of 35 element(s) outside tolerance"),
        "{all}"
    );
    // Each stage says what it is running.
    assert!(
        stderr(&o).contains("running the reference interpreter ...")
            && stderr(&o).contains("running the jit backend ..."),
        "{}",
        stderr(&o)
    );
    let o = oxla(&["bench", m, "--backend", "jit", "--iterations", "3"]);
    expect_status(&o, 0);
    assert!(stdout(&o).contains("backend jit"), "{}", stdout(&o));
    // OXLA_NUM_THREADS sets the threads per kernel; anything but a
    // positive integer leaves the default (the cores available).
    let threads = |value: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_oxla"))
            .args(["bench", m, "--backend", "jit", "--iterations", "1"])
            .env("OXLA_NUM_THREADS", value)
            .output()
            .expect("the oxla binary runs");
        expect_status(&o, 0);
        let out = stdout(&o);
        let line = out
            .lines()
            .find(|l| l.starts_with("threads:"))
            .unwrap_or_else(|| panic!("no threads line:\n{out}"))
            .to_string();
        line.split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("bad threads line: {line}"))
    };
    assert_eq!(threads("1"), 1);
    assert_eq!(threads("3"), 3);
    let default = std::thread::available_parallelism().map_or(1, |n| n.get().min(64));
    assert_eq!(threads("zero"), default);
    assert_eq!(threads("0"), default);
}

// ---------------------------------------------------------------------------
// check, dump, convert, bench, demo
// ---------------------------------------------------------------------------

#[test]
fn check_prints_a_good_module_and_locates_errors_in_a_bad_one() {
    let good = data("small/dialect.hlo");
    let o = oxla(&["check", good.to_str().unwrap()]);
    expect_status(&o, 0);
    assert!(stdout(&o).contains("z = f32[5,4]{1,0} add(xw, bias), broadcast_dimensions={1}"));

    let dir = temp_dir();
    let bad = dir.join("bad.hlo");
    std::fs::write(
        &bad,
        "HloModule bad\n\nENTRY bad {\n  x = f32[2,3] parameter(0)\n  y = f32[3,2] negate(x)\n  ROOT z = f32[2,3] add(x, w)\n}\n",
    )
    .unwrap();
    let o = oxla(&["check", bad.to_str().unwrap()]);
    expect_status(&o, 1);
    let err = stderr(&o);
    let b = bad.to_str().unwrap();
    assert!(
        err.contains(&format!(
            "{b}:5:7: `y` declares shape f32[3,2] but its operands give f32[2,3]"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("{b}:6:28: undefined operand `w`")),
        "{err}"
    );
    assert!(err.contains("2 error(s)"), "{err}");
    assert!(stdout(&o).is_empty());
    // `run` stops at the first error in the text, also located.
    let o = oxla(&["run", b]);
    expect_status(&o, 1);
    assert!(stderr(&o).contains(&format!("{b}:5:7:")), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn dump_stages() {
    let m = data("small/dialect.hlo");
    let m = m.to_str().unwrap();
    let parsed = oxla(&["dump", m]);
    expect_status(&parsed, 0);
    assert!(stdout(&parsed).contains("broadcast_dimensions={1}"));
    let expanded = oxla(&["dump", m, "--stage", "expanded"]);
    expect_status(&expanded, 0);
    let text = stdout(&expanded);
    assert!(!text.contains("broadcast_dimensions"), "{text}");
    let strict = oxla::hlo::parse(&text).unwrap();
    oxla::hlo::verify_strict(&strict).unwrap();
    let fused = oxla(&["dump", m, "--stage", "fused"]);
    expect_status(&fused, 0);
    assert!(stdout(&fused).contains("kernel 0:"), "{}", stdout(&fused));
    let clif = oxla(&["dump", m, "--stage", "clif"]);
    expect_status(&clif, 0);
    assert!(
        stdout(&clif).contains("function u0:0("),
        "{}",
        stdout(&clif)
    );
}

#[test]
fn convert_to_hlo_reparses_and_evaluates_to_the_same_values() {
    for name in [
        "small/dialect.hlo",
        "small/W5.hlo.txt",
        "small/W9_softmax.optimized.hlo.txt",
    ] {
        let module = data(name);
        let comp = parse(&module);
        let o = oxla(&["convert", module.to_str().unwrap(), "--to", "hlo"]);
        expect_status(&o, 0);
        let strict = oxla::hlo::parse(&stdout(&o)).unwrap();
        oxla::hlo::verify_strict(&strict).unwrap();
        let dir = temp_dir();
        let (lits, _) = write_inputs(&comp, &dir);
        let refs: Vec<&Literal> = lits.iter().collect();
        let want = oxla::evaluate(&comp, &refs).unwrap();
        let got = oxla::evaluate(&strict, &refs).unwrap();
        assert_close(&got, &want, 0.0);
        // `--to oxla` prints the module as parsed.
        let o = oxla(&["convert", module.to_str().unwrap(), "--to", "oxla"]);
        expect_status(&o, 0);
        assert_eq!(stdout(&o), comp.to_hlo_text());
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn convert_to_stablehlo_matches_jax() {
    for name in ["W1", "W5", "W9_softmax"] {
        let jax = std::fs::read_to_string(data(&format!("{name}.stablehlo.mlir"))).unwrap();
        for suffix in [".hlo.txt", ".optimized.hlo.txt"] {
            let o = oxla(&[
                "convert",
                data(&format!("{name}{suffix}")).to_str().unwrap(),
                "--to",
                "stablehlo",
            ]);
            expect_status(&o, 0);
            let ours = stdout(&o);
            if suffix == ".hlo.txt" {
                // Byte for byte what JAX printed for the same function.
                assert_eq!(ours.trim_end(), jax.trim_end(), "{name}");
            }
            if name != "W1" && suffix == ".hlo.txt" {
                insta::assert_snapshot!(format!("stablehlo_{name}"), ours);
            }
        }
    }
    let o = oxla(&[
        "convert",
        data("small/dialect.hlo").to_str().unwrap(),
        "--to",
        "stablehlo",
    ]);
    expect_status(&o, 0);
    insta::assert_snapshot!("stablehlo_dialect", stdout(&o));
}

#[test]
fn convert_writes_a_file() {
    let dir = temp_dir();
    let out = dir.join("m.mlir");
    let m = data("small/W1.hlo.txt");
    let o = oxla(&[
        "convert",
        m.to_str().unwrap(),
        "--to=stablehlo",
        "--output",
        out.to_str().unwrap(),
    ]);
    expect_status(&o, 0);
    assert!(stdout(&o).is_empty());
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("module @jit_w1 ")
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bench_defaults_to_the_jit_and_takes_the_inputs_run_takes() {
    let module = data("small/dialect.hlo");
    let m = module.to_str().unwrap();
    let dir = temp_dir();
    let (_, paths) = write_inputs(&parse(&module), &dir);
    let mut args = vec!["bench", m, "--iterations", "2"];
    for p in &paths {
        args.extend(["--input", p.as_str()]);
    }
    let o = oxla(&args);
    expect_status(&o, 0);
    let text = stdout(&o);
    assert!(text.contains("backend jit"), "{text}");
    assert!(text.contains("threads:"), "{text}");
    // x f32[5,3], w f32[3,4], bias f32[4], col f32[5,1] in (60 + 48 + 16 +
    // 20 bytes), f32[5,4] out.
    assert!(text.contains("inputs 144 B + output 80 B"), "{text}");
    // One dot, [5,3] x [3,4]: 2*5*4*3 FLOPs.
    assert!(text.contains(" GFLOP/s (120 FLOP / median;"), "{text}");
    // Given inputs, no note about random ones.
    assert!(!stderr(&o).contains("random arguments"), "{}", stderr(&o));
    // The interpreter is one flag away.
    let o = oxla(&[&args[..], &["--backend", "interp"]].concat());
    expect_status(&o, 0);
    assert!(stdout(&o).contains("backend interp"), "{}", stdout(&o));
    // Inputs are checked as `run` checks them.
    let o = oxla(&["bench", m, "--input", &paths[1]]);
    expect_status(&o, 1);
    assert!(
        stderr(&o).contains("`dense_layer` takes 4 parameter(s)"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bench_reports_times_and_bandwidth() {
    let o = oxla(&[
        "bench",
        data("small/W9_softmax.hlo.txt").to_str().unwrap(),
        "--iterations",
        "3",
        "--warmup",
        "0",
    ]);
    expect_status(&o, 0);
    let text = stdout(&o);
    for want in [
        "setup:",
        "compile:",
        "median",
        "min",
        "max",
        "over 3 iteration(s)",
        "GB/s",
        "inputs 140 B + output 140 B",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    // No dot, so no FLOP rate.
    assert!(!text.contains("FLOP"), "{text}");
}

#[test]
fn demo_runs() {
    let o = oxla(&["demo"]);
    expect_status(&o, 0);
    let out = stdout(&o);
    // Every example runs through the JIT and agrees with the interpreter.
    assert_eq!(
        out.matches("same as the reference interpreter").count(),
        9,
        "{out}"
    );
    assert!(!out.contains("DIFFERS"), "{out}");
    // The composition example of the XLA text: |1 2 3 4| + [5 6] with (0).
    assert!(
        out.contains("{ 6, 7 },\n  { 7, 8 },\n  { 8, 9 },\n  { 9, 10 }"),
        "{out}"
    );
    // And the invalid broadcast is drawn with its fix.
    assert!(
        out.contains("error[OX0106]") && out.contains("broadcast_dimensions={1} would be valid"),
        "{out}"
    );
}

// ---------------------------------------------------------------------------
// Help and usage errors
// ---------------------------------------------------------------------------

#[test]
fn help_texts() {
    let mut all = String::new();
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["check", "-h"],
        vec!["dump", "--help"],
        vec!["convert", "--help"],
        vec!["bench", "--help"],
        vec!["help", "demo"],
    ] {
        let o = oxla(&args);
        expect_status(&o, 0);
        assert!(stderr(&o).is_empty());
        all.push_str(&format!("$ oxla {}\n{}\n", args.join(" "), stdout(&o)));
    }
    assert_eq!(stdout(&oxla(&["help"])), stdout(&oxla(&["-h"])));
    insta::assert_snapshot!("help", all);
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    let m = data("small/W1.hlo.txt");
    let m = m.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "error: no command given"),
        (
            vec!["frobnicate"],
            "error: unknown command `frobnicate`; the commands are run, check, dump, convert, bench, demo",
        ),
        (vec!["run"], "error: `oxla run` needs MODULE"),
        (
            vec!["run", m, "--frob"],
            "error: unknown option `--frob` for `oxla run`",
        ),
        (vec!["run", m, "--input"], "error: --input needs a value"),
        (
            vec!["run", m, "--backend", "gpu"],
            "error: unknown backend `gpu`",
        ),
        (
            vec!["run", m, "--seed", "x"],
            "error: --seed takes a number, not `x`",
        ),
        (
            vec!["check", m, "extra"],
            "error: unexpected argument `extra` for `oxla check`",
        ),
        (
            vec!["dump", m, "--stage", "optimized"],
            "error: unknown stage `optimized`",
        ),
        (vec!["convert", m], "error: --to is required"),
        (
            vec!["convert", m, "--to", "onnx"],
            "error: unknown target `onnx`",
        ),
        (
            vec!["bench", m, "--iterations", "0"],
            "error: --iterations must be at least 1",
        ),
        (vec!["help", "nope"], "error: unknown command `nope`"),
    ];
    for (args, want) in cases {
        let o = oxla(&args);
        expect_status(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains("--help` for usage."), "{args:?}: {err}");
    }
}

#[test]
fn failures_exit_1() {
    let o = oxla(&["run", "/nonexistent/model.hlo"]);
    expect_status(&o, 1);
    assert!(
        stderr(&o).contains("/nonexistent/model.hlo: cannot read the module"),
        "{}",
        stderr(&o)
    );
    let o = oxla(&["check", "/nonexistent/model.hlo"]);
    expect_status(&o, 1);
}

#[test]
fn control_flow_runs_on_the_jit_and_the_interpreter() {
    let module = data("../jax_ctrl/fori_sum.hlo");
    let input = data("../jax_ctrl/fori_sum.in0.npy");
    let (module, input) = (module.to_str().unwrap(), input.to_str().unwrap());
    // Both backends run the loop: sum over i < 10 of i * x = 45 * x.
    for backend in ["jit", "interp"] {
        let o = oxla(&["run", module, "--input", input, "--backend", backend]);
        expect_status(&o, 0);
        let out = stdout(&o);
        assert!(
            out.contains("{ 0, 45, 90 }") && out.contains("{ 135, 180, 225 }"),
            "{backend}: {out}"
        );
    }
}

/// What the JIT refuses (here a loop inside a mapped computation, whose
/// code the JIT inlines per element) fails with a hint to run it on the
/// interpreter, which runs it.
#[test]
fn what_the_jit_refuses_names_the_interpreter() {
    let dir = temp_dir();
    let module = dir.join("map_while.hlo");
    std::fs::write(
        &module,
        "HloModule map_while\n\n\
         cond {\n  p = s32[] parameter(0)\n  c = s32[] constant(3)\n  \
         ROOT lt = pred[] compare(p, c), direction=LT\n}\n\n\
         body {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n  \
         ROOT a = s32[] add(p, one)\n}\n\n\
         f {\n  x = s32[] parameter(0)\n  \
         ROOT w = s32[] while(x), condition=cond, body=body\n}\n\n\
         ENTRY e {\n  v = s32[3] parameter(0)\n  \
         ROOT m = s32[3] map(v), dimensions={0}, to_apply=f\n}\n",
    )
    .unwrap();
    let module = module.to_str().unwrap();
    let o = oxla(&["run", module, "--seed", "1"]);
    expect_status(&o, 1);
    let err = stderr(&o);
    assert!(err.contains("Unsupported by the jit"), "{err}");
    assert!(err.contains("--backend interp"), "{err}");
    let o = oxla(&["run", module, "--seed", "1", "--backend", "interp"]);
    expect_status(&o, 0);
    assert!(stdout(&o).contains("s32[3]"), "{}", stdout(&o));
}

// ---------------------------------------------------------------------------
// StableHLO modules
// ---------------------------------------------------------------------------

/// Issue 15's first point: JAX's StableHLO for each of the W1-W10 workloads
/// (`tests/data/stablehlo/W*.mlir`, printed by JAX 0.10.2) runs through
/// `oxla run` on both backends and gives JAX's outputs (within 1e-5 for
/// floats: W5, W9 and W10 reduce in another order; exactly otherwise).
#[test]
fn jax_stablehlo_workloads_run_on_both_backends_and_match_jax() {
    let jax = |f: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/stablehlo")
            .join(f)
    };
    let names = [
        "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9a", "W9b", "W10",
    ];
    let dir = temp_dir();
    for name in names {
        let mlir = jax(&format!("{name}.mlir"));
        let inputs: Vec<String> = (0..)
            .map(|k| jax(&format!("{name}.in{k}.npy")))
            .take_while(|p| p.exists())
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        assert!(!inputs.is_empty(), "{name}: no inputs");
        let want = oxla::npy::read_npy(jax(&format!("{name}.out0.npy"))).unwrap();
        for backend in ["interp", "jit"] {
            let out = dir.join(format!("{name}.{backend}.npy"));
            run_on(&mlir, &inputs, &out, backend);
            let got = oxla::npy::read_npy(&out).unwrap();
            if want.element_type() == oxla::ElementType::F32 {
                assert_close(&got, &want, 1e-5);
            } else {
                assert_eq!(got, want, "{name} on {backend}");
            }
        }
    }
}

/// The values of a float array as `f64` (any float type, through oxla's
/// own `convert`), for comparing with a tolerance.
fn float_values(lit: &Literal) -> Vec<f64> {
    let mut b = oxla::Builder::new("widen");
    let x = b.parameter(0, lit.shape().clone(), "x").unwrap();
    let y = b.convert(x, oxla::ElementType::F64).unwrap();
    let comp = b.build(y).unwrap();
    oxla::evaluate(&comp, &[lit])
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// Issue 15's first point, for the realistic programs: JAX's StableHLO of
/// every program of `tests/data/jax/` (printed by JAX 0.10.2; `programs.tsv`
/// lists them with their tolerances) runs through `oxla run` on both
/// backends and gives JAX's outputs: floats within the program's
/// `atol + rtol * |jax|`, integers and `pred` bit for bit.
#[test]
fn jax_program_stablehlo_runs_on_both_backends_and_matches_jax() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/jax");
    let table = std::fs::read_to_string(root.join("programs.tsv")).unwrap();
    let dir = temp_dir();
    let mut ran = 0;
    for line in table.lines() {
        if line.starts_with('#') || line.starts_with("name\t") || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let (name, inputs, outputs) = (f[0], f[1].parse::<usize>().unwrap(), f[2]);
        let outputs: usize = outputs.parse().unwrap();
        let (rtol, atol): (f64, f64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let prog = root.join(name);
        let mlir = prog.join("program.stablehlo.mlir");
        let inputs: Vec<String> = (0..inputs)
            .map(|k| {
                prog.join(format!("in{k}.npy"))
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        for backend in ["interp", "jit"] {
            let out = dir.join(format!("{name}.{backend}.npy"));
            let o = run_on(&mlir, &inputs, &out, backend);
            // The leaves in order, as `oxla run` names them (`OUT.1.0.npy`
            // for a nested tuple's leaf).
            let printed = format!("{}{}", stdout(&o), stderr(&o));
            let files: Vec<&str> = printed
                .lines()
                .filter_map(|l| l.strip_prefix("wrote ")?.split(" (").next())
                .collect();
            assert_eq!(files.len(), outputs, "{name} on {backend}: {printed}");
            for (k, file) in files.iter().enumerate() {
                let want = oxla::npy::read_npy(prog.join(format!("out{k}.npy"))).unwrap();
                // oxla writes bf16 and the other types NumPy does not name
                // as raw `<V2`/`<V1` values: read them as JAX's type.
                let got = oxla::npy::read_npy_as(file, want.element_type()).unwrap();
                assert_eq!(got.shape(), want.shape(), "{name} out{k} on {backend}");
                if want.element_type().is_float() {
                    let (g, w) = (float_values(&got), float_values(&want));
                    for (i, (a, e)) in g.iter().zip(&w).enumerate() {
                        assert!(
                            (a.is_nan() && e.is_nan())
                                || a == e
                                || (a - e).abs() <= atol + rtol * e.abs(),
                            "{name} out{k} on {backend}, element {i}: {a} against JAX's {e}"
                        );
                    }
                } else {
                    assert_eq!(got, want, "{name} out{k} on {backend}");
                }
            }
        }
        ran += 1;
    }
    assert!(ran >= 22, "programs.tsv lists {ran} programs");
    let _ = std::fs::remove_dir_all(dir);
}

/// `--input` files of the types NumPy writes as raw `<V2`/`<V1` values
/// (`np.save` of an `ml_dtypes` bf16 array, as JAX users have them) are
/// read as the parameter's type; a file of another type is still refused
/// naming both shapes.
#[test]
fn run_reads_raw_bf16_npy_inputs_as_the_parameter_type() {
    let dir = temp_dir();
    let module = dir.join("bf16.hlo");
    std::fs::write(
        &module,
        "HloModule m\n\nENTRY m {\n  x = bf16[2] parameter(0)\n  ROOT y = bf16[2] add(x, x)\n}\n",
    )
    .unwrap();
    let x = Literal::from_vec(
        &[2],
        vec![oxla::bf16::from_f32(1.5), oxla::bf16::from_f32(-2.0)],
    )
    .unwrap();
    let input = dir.join("x.npy");
    std::fs::write(&input, oxla::npy::to_npy_bytes(&x).unwrap()).unwrap();
    assert!(
        oxla::npy::read_npy(&input).is_err(),
        "the file should be raw <V2"
    );
    for backend in ["interp", "jit"] {
        let out = dir.join(format!("y.{backend}.npy"));
        run_on(
            &module,
            &[input.to_string_lossy().into_owned()],
            &out,
            backend,
        );
        let y = oxla::npy::read_npy_as(&out, oxla::ElementType::Bf16).unwrap();
        let want = Literal::from_vec(
            &[2],
            vec![oxla::bf16::from_f32(3.0), oxla::bf16::from_f32(-4.0)],
        )
        .unwrap();
        assert_eq!(y, want, "{backend}");
    }
    let f32_input = dir.join("f.npy");
    let f = Literal::from_vec(&[2], vec![1.0f32, 2.0]).unwrap();
    std::fs::write(&f32_input, oxla::npy::to_npy_bytes(&f).unwrap()).unwrap();
    let o = oxla(&[
        "run",
        module.to_str().unwrap(),
        "--input",
        f32_input.to_str().unwrap(),
    ]);
    expect_status(&o, 1);
    assert!(
        stderr(&o).contains("bf16[2]") && stderr(&o).contains("f32[2]"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `oxla run`, `check`, `dump`, `convert` and `bench` take JAX's StableHLO
/// (`tests/data/stablehlo/`) as they take HLO: by the `.mlir` extension or
/// by content; the result matches JAX's output, and errors are located.
#[test]
fn stablehlo_modules_work_in_every_command() {
    let jax = |f: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/stablehlo")
            .join(f)
    };
    let mlir = jax("mlp_layer.mlir");
    let inputs: Vec<String> = (0..3)
        .map(|k| {
            jax(&format!("mlp_layer.in{k}.npy"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let want = oxla::npy::read_npy(jax("mlp_layer.out0.npy")).unwrap();
    let dir = temp_dir();
    for backend in ["interp", "jit"] {
        let out = dir.join(format!("{backend}.npy"));
        run_on(&mlir, &inputs, &out, backend);
        assert_close(&oxla::npy::read_npy(&out).unwrap(), &want, 1e-5);
    }
    // By content: the same text in a file without the extension.
    let renamed = dir.join("model.txt");
    std::fs::copy(&mlir, &renamed).unwrap();
    for path in [&mlir, &renamed] {
        let o = oxla(&["check", path.to_str().unwrap()]);
        expect_status(&o, 0);
        assert!(
            stdout(&o).starts_with("HloModule jit_mlp_layer"),
            "{}",
            stdout(&o)
        );
    }
    let o = oxla(&["dump", mlir.to_str().unwrap(), "--stage", "expanded"]);
    expect_status(&o, 0);
    assert!(stdout(&o).contains("dot("), "{}", stdout(&o));
    let o = oxla(&["convert", mlir.to_str().unwrap(), "--to", "stablehlo"]);
    expect_status(&o, 0);
    assert!(
        stdout(&o).starts_with("module @jit_mlp_layer"),
        "{}",
        stdout(&o)
    );
    let o = oxla(&[
        "convert",
        jax("integer_ops.generic.mlir").to_str().unwrap(),
        "--to",
        "hlo",
    ]);
    expect_status(&o, 0);
    assert!(stdout(&o).contains("ENTRY"), "{}", stdout(&o));
    let o = oxla(&[
        "bench",
        mlir.to_str().unwrap(),
        "--iterations",
        "2",
        "--warmup",
        "0",
    ]);
    expect_status(&o, 0);
    assert!(stdout(&o).contains("median"), "{}", stdout(&o));
    // A broken module: `path:line:col: op: message`, exit status 1.
    let bad = dir.join("bad.mlir");
    let text = std::fs::read_to_string(&mlir).unwrap();
    std::fs::write(&bad, text.replace("stablehlo.maximum", "stablehlo.maximun")).unwrap();
    for cmd in ["check", "run"] {
        let o = oxla(&[cmd, bad.to_str().unwrap()]);
        expect_status(&o, 1);
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{}:", bad.display()))
                && err.contains(": unknown op `stablehlo.maximun`"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The shell commands of `docs/from-jax.md` (its sections "Run with the
/// CLI" and "Back to XLA"), run as written on the committed classifier, so
/// the guide cannot rot: every command succeeds, and the probabilities
/// `oxla run` writes match the ones JAX computed.
#[test]
fn from_jax_guide_commands_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let guide = std::fs::read_to_string(root.join("docs/from-jax.md")).unwrap();
    let dir = temp_dir();
    // Every `oxla ...` line of the guide's `sh` blocks, continuations joined.
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    let mut vars: Vec<(String, String)> = Vec::new();
    for line in guide.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = line.split(" #").next().unwrap_or("").trim();
        if let Some((name, value)) = code
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        {
            vars.push((format!("${name}"), value.to_string()));
            continue;
        }
        pending.push_str(code.trim_end_matches('\\'));
        pending.push(' ');
        if !code.ends_with('\\') {
            let cmd = std::mem::take(&mut pending);
            if cmd.trim_start().starts_with("oxla ") {
                commands.push(cmd);
            }
        }
    }
    assert!(commands.len() >= 6, "the guide's commands: {commands:?}");
    // `model.hlo` in "Back to XLA" is the module `convert --to hlo` prints.
    let mut hlo = None;
    for cmd in &commands {
        let mut cmd = cmd.clone();
        for (name, value) in &vars {
            cmd = cmd.replace(name, &root.join(value).display().to_string());
        }
        let args: Vec<String> = cmd
            .split_whitespace()
            .skip(1)
            .map(|a| match a {
                "probs.npy" | "model.mlir" => dir.join(a).display().to_string(),
                "model.hlo" => hlo.clone().expect("convert --to hlo comes first"),
                a => a.to_string(),
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = oxla(&args);
        assert!(
            o.status.success(),
            "`{cmd}` failed:\n{}\n{}",
            stdout(&o),
            stderr(&o)
        );
        if args.windows(2).any(|w| w == ["--to", "hlo"]) {
            let path = dir.join("model.hlo");
            std::fs::write(&path, stdout(&o)).unwrap();
            hlo = Some(path.display().to_string());
        }
    }
    let got = oxla::npy::read_npy(dir.join("probs.npy")).unwrap();
    let want = oxla::npy::read_npy(root.join("examples/jax_classifier/probs.npy")).unwrap();
    assert_eq!(got.shape(), want.shape());
    let (g, w) = (got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
    let worst = g
        .iter()
        .zip(&w)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(
        worst <= 1e-5,
        "oxla's probabilities differ from JAX's by {worst}"
    );
    assert!(
        dir.join("model.mlir").exists(),
        "convert --to stablehlo wrote nothing"
    );
}
