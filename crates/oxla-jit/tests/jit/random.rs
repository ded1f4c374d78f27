//! Random valid programs from `oxla-testgen` (every op, element type and
//! broadcast pattern, edge-value arguments) against the interpreter.
//!
//! Programs that sum floats in a reduce or a dot are left out of the float
//! run: reassociated sums of edge values (1e30, inf) differ arbitrarily.
//! Integer programs (reductions and dots included) must match bit for bit.

use oxla_ir::Literal;
use oxla_testgen::{GenConfig, Rng, gen_program};

use crate::common::*;

fn run(seeds: std::ops::Range<u64>, cfg: &GenConfig, skip_float_sums: bool) -> usize {
    let mut checked = 0;
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let Ok(p) = gen_program(&mut rng, cfg) else {
            continue;
        };
        if skip_float_sums && p.ops.iter().any(|o| *o == "reduce" || *o == "dot") {
            continue;
        }
        let refs: Vec<&Literal> = p.args.iter().collect();
        let Ok(want) = oxla_interp::evaluate(&p.comp, &refs) else {
            continue;
        };
        let exe = match oxla_jit::compile(&p.comp) {
            Ok(exe) => exe,
            // What the JIT refuses of the narrow types (a dot, a
            // convolution, topk, reduce-precision: tests/jit/types.rs).
            Err(oxla_ir::Error::UnsupportedOp { reason, .. })
                if reason.contains("of a narrow float") =>
            {
                continue;
            }
            Err(e) => panic!("seed {seed}: compile failed: {e}\n{}", p.reproducer()),
        };
        let got = exe
            .run(&refs)
            .unwrap_or_else(|e| panic!("seed {seed}: run failed: {e}\n{}", p.reproducer()));
        // Transcendentals compose: allow the largest bound a few times over.
        if let Some(d) = difference(&got, &want, Tol::Ulps(16)) {
            panic!(
                "seed {seed}: {d}\n{}\n{}",
                p.reproducer(),
                exe.fusion_text()
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn random_integer_and_pred_programs_match_bit_for_bit() {
    let cfg = GenConfig {
        element_types: jit_types().into_iter().filter(|t| !t.is_float()).collect(),
        ..GenConfig::default()
    };
    let n = run(0..400, &cfg, false);
    assert!(n > 300, "only {n} programs checked");
}

#[test]
fn random_programs_of_every_type_match() {
    let cfg = GenConfig {
        transcendentals: false,
        ..GenConfig::default()
    };
    let n = run(1000..1400, &cfg, true);
    assert!(n > 200, "only {n} programs checked");
    let cfg = GenConfig::default();
    let n = run(5000..5300, &cfg, true);
    assert!(n > 150, "only {n} programs checked");
}

#[test]
fn random_narrow_float_and_sub_byte_programs_match_bit_for_bit() {
    let narrow: Vec<_> = jit_types()
        .into_iter()
        .filter(|t| t.is_narrow_float() || (t.is_integer() && t.bit_width() < 8))
        .chain([
            oxla_ir::ElementType::Pred,
            oxla_ir::ElementType::S32,
            oxla_ir::ElementType::F32,
        ])
        .collect();
    let cfg = GenConfig {
        element_types: narrow,
        transcendentals: true,
        ..GenConfig::exact()
    };
    let n = run(0..400, &cfg, false);
    assert!(n > 250, "only {n} programs checked");
}
