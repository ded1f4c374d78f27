//! JAX's own StableHLO, from `tests/data/stablehlo/` (written by
//! `scripts/stablehlo_corpus.py`): the W1-W10 workloads and small models.
//!
//! For every case: the pretty, generic and (where present) debug-info
//! forms parse to the same module; it exports to StableHLO and reads back
//! to the same module, which exports to the same text; it runs in the interpreter and in the
//! JIT; both match JAX's outputs (bit for bit for the cases `cases.txt`
//! marks `exact`, within [`ATOL`] + [`RTOL`]·|x| otherwise); and the module
//! parsed from JAX's HLO text of the same function computes the same bits.

use oxla_ir::{Computation, Literal};
use oxla_stablehlo::parse_stablehlo;

use super::common::{canonical, data, error_ratio, leaves, read, read_npy, same_bits};

/// Absolute tolerance for the `approx` cases (f32 and f64 alike).
const ATOL: f64 = 1e-6;
/// Relative tolerance for the `approx` cases.
const RTOL: f64 = 1e-5;

struct Case {
    name: String,
    exact: bool,
}

fn cases() -> Vec<Case> {
    let list = read(&data("stablehlo/cases.txt"));
    list.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, kind) = l.split_once(' ').expect("NAME exact|approx");
            assert!(matches!(kind, "exact" | "approx"), "{l}");
            Case {
                name: name.to_string(),
                exact: kind == "exact",
            }
        })
        .collect()
}

fn parse_file(rel: &str) -> Computation {
    parse_stablehlo(&read(&data(rel))).unwrap_or_else(|e| panic!("{rel}:\n{e}"))
}

/// The case's inputs or outputs: `NAME.in0.npy`, `NAME.in1.npy`, ...
fn arrays(name: &str, kind: &str) -> Vec<Literal> {
    (0..)
        .map(|k| data(&format!("stablehlo/{name}.{kind}{k}.npy")))
        .take_while(|p| p.exists())
        .map(|p| read_npy(&p))
        .collect()
}

/// Compares a result with JAX's outputs; returns the worst error ratio.
fn check(case: &Case, backend: &str, got: &Literal, want: &[Literal]) -> f64 {
    let got = leaves(got);
    assert_eq!(
        got.len(),
        want.len(),
        "{}: {backend} gives {} results, JAX {}",
        case.name,
        got.len(),
        want.len()
    );
    let mut worst: f64 = 0.0;
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let what = format!("{} result {k} ({backend})", case.name);
        if case.exact {
            assert!(
                same_bits(g, w),
                "{what}: not bit-identical to JAX:\n{g}\nJAX:\n{w}"
            );
        } else {
            worst = worst.max(error_ratio(g, w, ATOL, RTOL, &what));
        }
    }
    assert!(
        worst <= 1.0,
        "{}: {backend} is {worst:.2} tolerances from JAX",
        case.name
    );
    worst
}

#[test]
fn jax_corpus_parses_in_every_form_runs_on_both_backends_and_matches_jax() {
    let cases = cases();
    assert!(cases.len() >= 20, "cases.txt lists {} cases", cases.len());
    let mut forms = 0;
    let mut report = Vec::new();
    for case in &cases {
        let comp = parse_file(&format!("stablehlo/{}.mlir", case.name));
        let text = canonical(&comp);
        for form in ["generic", "debug"] {
            let rel = format!("stablehlo/{}.{form}.mlir", case.name);
            if !data(&rel).exists() {
                assert!(form == "debug", "{rel} is missing");
                continue;
            }
            assert_eq!(
                canonical(&parse_file(&rel)),
                text,
                "{rel} parses to another module than the pretty form"
            );
            forms += 1;
        }
        // The round trip: the module exported and read back prints the same
        // StableHLO, and is the same module where it has no tuples.
        let mlir = oxla_stablehlo::to_stablehlo(&comp)
            .unwrap_or_else(|e| panic!("{}: export: {e}", case.name));
        let back = parse_stablehlo(&mlir).unwrap_or_else(|e| panic!("{}:\n{e}\n{mlir}", case.name));
        assert_eq!(
            oxla_stablehlo::to_stablehlo(&back).unwrap(),
            mlir,
            "{}: the module read back exports other text",
            case.name
        );
        if !super::round_trip::has_tuples(&comp) {
            assert_eq!(
                canonical(&back),
                text,
                "{}: the round trip changed the module",
                case.name
            );
        }
        let inputs = arrays(&case.name, "in");
        let outputs = arrays(&case.name, "out");
        assert!(
            !inputs.is_empty() && !outputs.is_empty(),
            "{}: no .npy files",
            case.name
        );
        let args: Vec<&Literal> = inputs.iter().collect();

        let interp =
            oxla_interp::evaluate(&comp, &args).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let e_interp = check(case, "interpreter", &interp, &outputs);
        let exe = oxla_jit::compile(&comp).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let jit = exe
            .run(&args)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let e_jit = check(case, "jit", &jit, &outputs);
        report.push(format!("{}: {e_interp:.3} / {e_jit:.3}", case.name));

        // JAX's HLO text of the same function: the same bits.
        let hlo =
            oxla_ir::parse_hlo_module(&read(&data(&format!("stablehlo/{}.hlo.txt", case.name))))
                .unwrap_or_else(|e| panic!("{}.hlo.txt: {e}", case.name));
        let from_hlo = oxla_interp::evaluate(&hlo, &args).unwrap();
        let (a, b) = (leaves(&interp), leaves(&from_hlo));
        assert_eq!(a.len(), b.len(), "{}: result counts differ", case.name);
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                same_bits(x, y),
                "{} result {k}: the MLIR module gives\n{x}\nJAX's HLO gives\n{y}",
                case.name
            );
        }
    }
    assert!(
        forms >= cases.len(),
        "only {forms} generic/debug forms were checked"
    );
    println!(
        "worst error, in tolerances (interpreter / jit):\n{}",
        report.join("\n")
    );
}

/// What older JAX versions printed for the same functions
/// (`NAME.jax-VERSION.mlir`, written by `stablehlo_corpus.py --older`):
/// other forms (`mhlo.sharding` on arguments, generic ops with `dense<...>
/// : tensor<Nxi64>` attributes, no composites), the same values.
#[test]
fn older_jax_versions_read_and_match_the_same_outputs() {
    let cases = cases();
    let mut files: Vec<_> = std::fs::read_dir(data("stablehlo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".jax-") && n.ends_with(".mlir"))
        .collect();
    files.sort();
    let mut versions: Vec<&str> = files
        .iter()
        .filter_map(|f| f.split(".jax-").nth(1)?.strip_suffix(".mlir"))
        .collect();
    versions.sort();
    versions.dedup();
    assert!(files.len() >= 40, "only {} older-JAX files", files.len());
    for file in &files {
        let name = file.split(".jax-").next().unwrap();
        let case = cases
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("{file}: no such case"));
        let comp = parse_file(&format!("stablehlo/{file}"));
        let inputs = arrays(name, "in");
        let args: Vec<&Literal> = inputs.iter().collect();
        let outputs = arrays(name, "out");
        let got = oxla_interp::evaluate(&comp, &args).unwrap_or_else(|e| panic!("{file}: {e}"));
        check(case, file, &got, &outputs);
        let jit = oxla_jit::compile(&comp).unwrap().run(&args).unwrap();
        check(case, file, &jit, &outputs);
    }
    println!("{} files of JAX {}", files.len(), versions.join(", "));
}
