//! Property tests over generated programs: the generator's independent
//! model of XLA's broadcasting agrees with shape inference; valid programs
//! are accepted and evaluate; invalid ones are refused, never a panic.
//!
//! The seed budget is fixed so CI is repeatable; `OXLA_GEN_CASES=N` runs
//! more (the `just fuzz-shapes` recipe).

use oxla_ir::ir::BinaryOp;
use oxla_ir::shape_inference::infer_binary_op_shape;
use oxla_ir::{ElementType, Shape};
use oxla_testgen::{GenConfig, Rng, gen_invalid_binary, gen_program, model_broadcast};

fn cases(default: u64) -> u64 {
    std::env::var("OXLA_GEN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn model_and_shape_inference_agree_on_random_shapes() {
    let mut rng = Rng::new(1);
    let n = cases(20_000);
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..n {
        let rank = |rng: &mut Rng| rng.below(5) as usize;
        let dim = |rng: &mut Rng| [0, 1, 1, 2, 3][rng.below(5) as usize];
        let (ra, rb) = (rank(&mut rng), rank(&mut rng));
        let a: Vec<i64> = (0..ra).map(|_| dim(&mut rng)).collect();
        let b: Vec<i64> = (0..rb).map(|_| dim(&mut rng)).collect();
        let k = ra.min(rb);
        let dims: Vec<i64> = match rng.below(3) {
            0 => vec![],
            1 => {
                // A random increasing list of the right length.
                let mut all: Vec<i64> = (0..ra.max(rb) as i64).collect();
                while all.len() > k {
                    let i = rng.below(all.len() as u64) as usize;
                    all.remove(i);
                }
                all
            }
            _ => (0..rng.below(4)).map(|_| rng.below(6) as i64 - 1).collect(),
        };
        let sa = Shape::new(ElementType::F32, &a);
        let sb = Shape::new(ElementType::F32, &b);
        let got = infer_binary_op_shape(BinaryOp::Add, &sa, &sb, &dims);
        match (model_broadcast(&a, &b, &dims), got) {
            (Some(m), Ok(s)) => {
                assert_eq!(s.dims(), m.as_slice(), "{sa} + {sb} with {dims:?}");
                valid += 1;
            }
            (None, Err(_)) => invalid += 1,
            (m, g) => panic!("{sa} + {sb} with {dims:?}: model {m:?}, inference {g:?}"),
        }
    }
    // Both sides of the rule were exercised.
    assert!(
        valid > n / 10 && invalid > n / 10,
        "valid {valid}, invalid {invalid}"
    );
}

#[test]
fn invalid_binary_ops_are_refused_with_an_error() {
    let mut rng = Rng::new(2);
    let cfg = GenConfig::default();
    let mut labels = std::collections::BTreeMap::new();
    for _ in 0..cases(5_000) {
        let (label, lhs, rhs, dims) = gen_invalid_binary(&mut rng, &cfg);
        let op = rng.pick(BinaryOp::ALL);
        match infer_binary_op_shape(op, &lhs, &rhs, &dims) {
            Err(e) => {
                // Every message names both shapes.
                let msg = e.to_string();
                assert!(
                    msg.contains(&lhs.to_string()) && msg.contains(&rhs.to_string())
                        || matches!(e, oxla_ir::Error::UnsupportedElementType { .. }),
                    "{label}: {msg}"
                );
                *labels.entry(label).or_insert(0) += 1;
            }
            Ok(s) => panic!("{label}: {op}({lhs}, {rhs}) with {dims:?} accepted as {s}"),
        }
    }
    assert_eq!(
        labels.len(),
        7,
        "every kind of invalid program was tried: {labels:?}"
    );
}

#[test]
fn generated_programs_are_accepted_and_evaluate() {
    let cfg = GenConfig::default();
    let mut ops = std::collections::BTreeMap::new();
    for seed in 0..cases(300) {
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&p.comp, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        for op in p.ops {
            *ops.entry(op).or_insert(0) += 1;
        }
    }
    // The generator reaches every kind of op it knows.
    for needed in [
        "add",
        "compare",
        "convert",
        "select",
        "broadcast",
        "reduce",
        "pad",
        "dot",
        "transpose",
    ] {
        assert!(
            ops.contains_key(needed),
            "never generated {needed}: {ops:?}"
        );
    }
}

/// Programs with control flow and tuples (loops, branches, maps, variadic
/// reduces, barriers, tuples taken apart): built and verified, printed,
/// parsed back to the same text, and evaluated, the re-parsed program to
/// the same result bit for bit; never an error or a panic. The JIT
/// compiles and runs each to a result of the same shape (its values are
/// compared in `differential.rs`, on exact programs).
#[test]
fn generated_control_flow_programs_round_trip_and_evaluate() {
    let cfg = GenConfig {
        control_flow: true,
        ..GenConfig::default()
    };
    let mut ops = std::collections::BTreeMap::new();
    let mut compiled = 0;
    for seed in 0..cases(200) {
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let text = p.comp.to_hlo_text();
        let again = oxla_ir::parse_hlo_module(&text).unwrap_or_else(|e| {
            panic!("seed {seed}: the printed program does not parse: {e}\n{text}")
        });
        assert_eq!(
            again.to_hlo_text(),
            text,
            "seed {seed}: the round trip changes the text"
        );
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&p.comp, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        let out_again = oxla_interp::evaluate(&again, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: the re-parsed program fails: {e}"));
        // Bit for bit (NaN payloads included): the same program.
        assert_eq!(
            format!("{out:?}"),
            format!("{out_again:?}"),
            "seed {seed}: the re-parsed program gives another result\n{}",
            p.reproducer()
        );
        for op in &p.ops {
            *ops.entry(*op).or_insert(0) += 1;
        }
        let uses_control = p.ops.iter().any(|op| {
            matches!(
                *op,
                "while"
                    | "conditional"
                    | "map"
                    | "variadic reduce"
                    | "opt-barrier"
                    | "get-tuple-element"
            )
        });
        if uses_control {
            match oxla_jit::compile(&p.comp) {
                Ok(exe) => {
                    let got = exe
                        .run(&args)
                        .unwrap_or_else(|e| panic!("seed {seed}: the JIT's run fails: {e}"));
                    assert_eq!(got.shape(), out.shape(), "seed {seed}");
                    compiled += 1;
                }
                Err(e) => panic!("seed {seed}: the JIT does not compile it: {e}"),
            }
        }
    }
    for needed in [
        "while",
        "conditional",
        "map",
        "variadic reduce",
        "opt-barrier",
        "get-tuple-element",
    ] {
        assert!(
            ops.contains_key(needed),
            "never generated {needed}: {ops:?}"
        );
    }
    assert!(compiled > 0);
}

/// The JIT compiles `p` and runs it to a result of the interpreter's
/// shape `want` (the differential test compares the values of exact
/// programs; these may hold float sums a backend reorders).
fn jit_runs(seed: u64, p: &oxla_testgen::Program, want: &oxla_ir::Literal) {
    let exe = oxla_jit::compile(&p.comp)
        .unwrap_or_else(|e| panic!("seed {seed}: the JIT refuses: {e}\n{}", p.reproducer()));
    let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
    let got = exe
        .run(&args)
        .unwrap_or_else(|e| panic!("seed {seed}: the JIT fails: {e}\n{}", p.reproducer()));
    assert_eq!(got.shape(), want.shape(), "seed {seed}");
}

/// Programs with convolutions, reduce-windows and select-and-scatters:
/// each verifies, prints, parses back to the same text, evaluates to its
/// result shape, and compiles and runs on the JIT.
#[test]
fn window_programs_print_parse_and_evaluate() {
    let cfg = GenConfig {
        windows: true,
        max_rank: 5,
        max_dim: 5,
        ..GenConfig::default()
    };
    let mut ops = std::collections::BTreeMap::new();
    for seed in 0..cases(300) {
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let text = p.comp.to_hlo_text();
        let again = oxla_ir::parse_hlo_module(&text).unwrap_or_else(|e| {
            panic!("seed {seed}: the printed program does not parse: {e}\n{text}")
        });
        assert_eq!(again.to_hlo_text(), text, "seed {seed}");
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&p.comp, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        let windowed = ["convolution", "reduce-window", "select-and-scatter"];
        if p.ops.iter().any(|op| windowed.contains(op)) {
            jit_runs(seed, &p, &out);
        }
        for op in p.ops {
            *ops.entry(op).or_insert(0) += 1;
        }
    }
    for needed in ["convolution", "reduce-window", "select-and-scatter"] {
        assert!(
            ops.get(needed).is_some_and(|&n| n >= 10),
            "generated {needed} fewer than 10 times: {ops:?}"
        );
    }
}

/// Programs with the indexing ops (`GenConfig::indexing`): each builds
/// and verifies, prints and parses back to the same text, and evaluates,
/// before and after the round trip, to the same result; the JIT compiles
/// and runs it.
#[test]
fn indexing_programs_print_parse_and_evaluate() {
    let cfg = GenConfig {
        indexing: true,
        ..GenConfig::default()
    };
    let mut ops = std::collections::BTreeMap::new();
    for seed in 0..cases(400) {
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        oxla_ir::verifier::verify(&p.comp).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let text = p.comp.to_hlo_text();
        let again =
            oxla_ir::parse_hlo_module(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(again.to_hlo_text(), text, "seed {seed}");
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&p.comp, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        let out_again = oxla_interp::evaluate(&again, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        assert_eq!(out.to_string(), out_again.to_string(), "seed {seed}");
        let indexing = p.ops.iter().any(|op| {
            matches!(
                *op,
                "gather"
                    | "scatter"
                    | "scatter (two inputs)"
                    | "dynamic-slice"
                    | "dynamic-update-slice"
            )
        });
        if indexing {
            jit_runs(seed, &p, &out);
        }
        for op in p.ops {
            *ops.entry(op).or_insert(0) += 1;
        }
    }
    for needed in ["gather", "scatter", "dynamic-slice", "dynamic-update-slice"] {
        assert!(
            ops.get(needed).is_some_and(|&n| n >= 20),
            "{needed} generated too rarely: {ops:?}"
        );
    }
}

/// Programs with sorts and top-ks: each verifies, prints, parses back to
/// the same text, evaluates to its result shape, and compiles on the JIT
/// (`differential.rs` compares the two backends' values).
#[test]
fn sort_programs_print_parse_and_evaluate() {
    let cfg = GenConfig {
        sorts: true,
        ..GenConfig::default()
    };
    let mut ops = std::collections::BTreeMap::new();
    for seed in 0..cases(300) {
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let text = p.comp.to_hlo_text();
        let again = oxla_ir::parse_hlo_module(&text).unwrap_or_else(|e| {
            panic!("seed {seed}: the printed program does not parse: {e}\n{text}")
        });
        assert_eq!(again.to_hlo_text(), text, "seed {seed}");
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&p.comp, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        if let Err(e) = oxla_jit::compile(&p.comp) {
            panic!("seed {seed}: the JIT refuses it: {e}\n{}", p.reproducer());
        }
        for op in p.ops {
            *ops.entry(op).or_insert(0) += 1;
        }
    }
    for needed in ["sort", "topk"] {
        assert!(
            ops.get(needed).is_some_and(|&n| n >= 30),
            "generated {needed} fewer than 30 times: {ops:?}"
        );
    }
}

/// The misc family's ops the JIT runs as expansions (cholesky,
/// triangular-solve, rng, rng-bit-generator, batch norm, width-changing
/// bitcasts), with every rounding, in interpreter-only
/// runs: every generated program verifies, prints, re-parses to the same
/// text, and evaluates to its declared shape; the JIT compiles them
/// (differential.rs compares them).
#[test]
fn misc_programs_print_reparse_and_evaluate() {
    let cfg = GenConfig {
        jit_unsupported_ops: true,
        ..GenConfig::default()
    };
    let expanded_ops = [
        "cholesky",
        "triangular-solve",
        "bitcast-convert (narrowing)",
        "bitcast-convert (widening)",
        "rng",
        "rng-bit-generator",
        "batch-norm-training",
        "batch-norm-inference",
        "batch-norm-grad",
        "ragged-dot",
    ];
    let mut ops = std::collections::BTreeMap::new();
    let mut compiled = 0;
    for seed in 0..cases(300) {
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let text = p.comp.to_hlo_text();
        let again = oxla_ir::parse_hlo_module(&text).unwrap_or_else(|e| {
            panic!("seed {seed}: the printed program does not parse: {e}\n{text}")
        });
        assert_eq!(again.to_hlo_text(), text, "seed {seed}");
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&again, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        // The JIT refuses stochastic-convert and tokens (interpreter only).
        let refused = ["stochastic-convert", "add-dependency"];
        if p.ops.iter().any(|op| expanded_ops.contains(op))
            && !p.ops.iter().any(|op| refused.contains(op))
        {
            oxla_jit::compile(&p.comp)
                .unwrap_or_else(|e| panic!("seed {seed}: the JIT refuses it: {e}"));
            compiled += 1;
        }
        for op in p.ops {
            *ops.entry(op).or_insert(0) += 1;
        }
    }
    assert!(compiled > 0);
    for needed in expanded_ops.iter().chain(&[
        "bitcast-convert",
        "bitcast",
        "reduce-precision",
        "stochastic-convert",
        "add-dependency",
    ]) {
        assert!(
            ops.contains_key(needed),
            "never generated {needed}: {ops:?}"
        );
    }
}

/// Programs over every element type (`GenConfig::with_new_types`: bf16,
/// f16, the float8 kinds, f4e2m1fn, the sub-byte integers, complex): built
/// and verified, printed and parsed back to the same text, evaluated by the
/// interpreter to a value of the declared shape, and refused by the JIT
/// with `UnsupportedOp` whenever a complex type appears at the boundary
/// (the other new types the JIT compiles: differential.rs's
/// `narrow_type_programs_agree_bit_for_bit`).
#[test]
fn programs_over_the_new_types_print_parse_and_evaluate() {
    let plain = GenConfig::default().with_new_types();
    // Every family of ops too (the interpreter runs them all).
    let every = GenConfig {
        control_flow: true,
        windows: true,
        indexing: true,
        sorts: true,
        jit_unsupported_ops: true,
        ..plain.clone()
    };
    let mut types = std::collections::BTreeSet::new();
    for seed in 0..cases(200) {
        let cfg = if seed % 2 == 0 { &plain } else { &every };
        let mut rng = Rng::new(seed);
        let p = gen_program(&mut rng, cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let text = p.comp.to_hlo_text();
        let back =
            oxla_ir::parse_hlo_module(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back.to_hlo_text(), text, "seed {seed}: the text round trip");
        let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
        let out = oxla_interp::evaluate(&p.comp, &args)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.reproducer()));
        assert_eq!(out.shape(), p.comp.result_shape(), "seed {seed}");
        let new: Vec<ElementType> = p
            .comp
            .parameter_shapes()
            .iter()
            .map(Shape::element_type)
            .chain([p.comp.result_shape().element_type()])
            .filter(|t| oxla_testgen::new_types().contains(t))
            .collect();
        // The JIT compiles the complex types for the ops its complex
        // lowering covers and refuses the rest with a typed error (the
        // other types it compiles: differential.rs checks the values of
        // both against the interpreter).
        if new.iter().any(|&t| !oxla_jit::supports_element_type(t)) {
            match oxla_jit::compile(&p.comp) {
                Err(oxla_ir::Error::UnsupportedOp { .. }) => {}
                Err(e) => panic!("seed {seed}: the JIT failed otherwise: {e}"),
                Ok(exe) => {
                    let got = exe
                        .run(&args)
                        .unwrap_or_else(|e| panic!("seed {seed}: the JIT run failed: {e}\n{text}"));
                    assert_eq!(got.shape(), out.shape(), "seed {seed}: the JIT's result");
                }
            }
        }
        types.extend(new);
    }
    // The run reaches most of the new types.
    assert!(types.len() >= 10, "only {types:?}");
}
