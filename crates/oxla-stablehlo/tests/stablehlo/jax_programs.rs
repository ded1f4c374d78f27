//! The realistic JAX programs of `tests/data/jax/` (written by
//! `scripts/jax_programs.py`), read from the StableHLO JAX printed for
//! them (`program.stablehlo.mlir`): each runs in the interpreter and
//! matches JAX's outputs within the program's tolerance (`programs.tsv`),
//! and gives the same bits as the module parsed from JAX's HLO text of the
//! same function where that one runs. Where the JIT compiles the module,
//! its results match JAX's too.
//!
//! The programs oxla cannot read are listed in [`NOT_READ`] with the error
//! they must give, so that one that starts reading fails here until it is
//! checked.

use oxla_ir::{Computation, Literal};
use oxla_stablehlo::parse_stablehlo;

use super::common::{data, error_ratio, leaves, read, read_npy, same_bits};

/// Programs whose StableHLO oxla refuses, with a piece of the error.
const NOT_READ: &[(&str, &str)] = &[];

struct Program {
    name: String,
    inputs: usize,
    outputs: usize,
    rtol: f64,
    atol: f64,
}

fn programs() -> Vec<Program> {
    read(&data("jax/programs.tsv"))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("name\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 5, "programs.tsv: a short line: {l}");
            let num = |s: &str| -> f64 { s.parse().unwrap_or_else(|e| panic!("{l}: {e}")) };
            Program {
                name: f[0].to_string(),
                inputs: num(f[1]) as usize,
                outputs: num(f[2]) as usize,
                rtol: num(f[3]),
                atol: num(f[4]),
            }
        })
        .collect()
}

fn arrays(p: &Program, kind: &str, n: usize) -> Vec<Literal> {
    (0..n)
        .map(|k| read_npy(&data(&format!("jax/{}/{kind}{k}.npy", p.name))))
        .collect()
}

/// The worst error of `got` against JAX's outputs, in tolerances.
fn check(p: &Program, backend: &str, got: &Literal, want: &[Literal]) -> f64 {
    let got = leaves(got);
    assert_eq!(
        got.len(),
        want.len(),
        "{}: {backend} gives {} results, JAX {}",
        p.name,
        got.len(),
        want.len()
    );
    let mut worst: f64 = 0.0;
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let what = format!("{} result {k} ({backend})", p.name);
        worst = worst.max(error_ratio(g, w, p.atol, p.rtol, &what));
    }
    assert!(
        worst <= 1.0,
        "{}: {backend} is {worst:.2} tolerances from JAX",
        p.name
    );
    worst
}

/// The inputs the module takes: all of them, or, where JAX dropped
/// arguments the function does not use (`embedding_grad`'s table, of
/// which only the shape matters), those that fit its parameters in order.
fn parameters<'l>(comp: &Computation, inputs: &'l [Literal], name: &str) -> Vec<&'l Literal> {
    let shapes = comp.parameter_shapes();
    let mut rest = inputs.iter();
    let args: Vec<&Literal> = shapes
        .iter()
        .filter_map(|s| rest.by_ref().find(|l| l.shape() == s))
        .collect();
    assert_eq!(
        args.len(),
        shapes.len(),
        "{name}: the inputs do not fit the parameters"
    );
    args
}

#[test]
fn jax_programs_read_from_stablehlo_run_and_match_jax() {
    let programs = programs();
    assert!(
        programs.len() >= 20,
        "programs.tsv lists {}",
        programs.len()
    );
    let (mut matched, mut on_jit, mut same_as_hlo) = (0, 0, 0);
    let mut report = Vec::new();
    for p in &programs {
        let text = read(&data(&format!("jax/{}/program.stablehlo.mlir", p.name)));
        let parsed = parse_stablehlo(&text);
        if let Some((_, why)) = NOT_READ.iter().find(|(n, _)| *n == p.name) {
            let err = parsed
                .err()
                .unwrap_or_else(|| panic!("{} reads now: take it off NOT_READ", p.name));
            assert!(
                err.to_string().contains(why),
                "{}: expected an error naming `{why}`, got:\n{err}",
                p.name
            );
            continue;
        }
        let comp: Computation = parsed.unwrap_or_else(|e| panic!("{}:\n{e}", p.name));
        let inputs = arrays(p, "in", p.inputs);
        let want = arrays(p, "out", p.outputs);
        let args = parameters(&comp, &inputs, &p.name);
        let interp =
            oxla_interp::evaluate(&comp, &args).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        let e_interp = check(p, "interpreter", &interp, &want);
        matched += 1;
        // Every program runs on the JIT too (issue 15: both backends).
        let exe = oxla_jit::compile(&comp).unwrap_or_else(|e| panic!("{}: the JIT: {e}", p.name));
        let jit = exe.run(&args).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        on_jit += 1;
        let e_jit = format!("{:.3}", check(p, "jit", &jit, &want));
        report.push(format!("{}: {e_interp:.3} / {e_jit}", p.name));

        // JAX's HLO text of the same function, where it runs: the same bits.
        let hlo = oxla_ir::parse_hlo_module(&read(&data(&format!("jax/{}/program.hlo", p.name))));
        let Ok(from_hlo) = hlo.and_then(|h| oxla_interp::evaluate(&h, &args)) else {
            continue;
        };
        let (a, b) = (leaves(&interp), leaves(&from_hlo));
        assert_eq!(a.len(), b.len(), "{}: result counts differ", p.name);
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                same_bits(x, y),
                "{} result {k}: the StableHLO module gives\n{x}\nJAX's HLO gives\n{y}",
                p.name
            );
        }
        same_as_hlo += 1;
    }
    println!(
        "{matched} of {} programs read from StableHLO match JAX ({on_jit} on the JIT too, \
         {same_as_hlo} bit-identical to their HLO text); worst error in tolerances \
         (interpreter / jit):\n{}",
        programs.len(),
        report.join("\n")
    );
    assert_eq!(
        matched + NOT_READ.len(),
        programs.len(),
        "every program not in NOT_READ must read and match"
    );
}
