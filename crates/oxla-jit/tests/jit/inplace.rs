//! `Executable::run_in_place`: the result written over an argument (XLA's
//! buffer donation). In place where every kernel reads the argument only at
//! the element it overwrites, out of place (then moved in) otherwise; the
//! result is `run`'s, bit for bit, either way.

use oxla_ir::{ComparisonDirection, Computation, ElementType, Error, Literal, composite};
use oxla_testgen::{GenConfig, Rng, gen_program};

use crate::common::*;

/// Runs `comp` in place over parameter `number` and checks the result
/// against `run` bit for bit; returns whether the argument's storage was
/// reused (the data pointer is unchanged).
fn in_place_matches_run(comp: &Computation, args: &[Literal], number: usize) -> bool {
    let exe = oxla_jit::compile(comp).expect("compile");
    let refs: Vec<&Literal> = args.iter().collect();
    let want = exe.run(&refs).expect("run");
    let mut inout = args[number].clone();
    let before = data_addr(&inout);
    let others: Vec<&Literal> = args
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != number)
        .map(|(_, a)| a)
        .collect();
    exe.run_in_place(number, &mut inout, &others)
        .unwrap_or_else(|e| panic!("run_in_place: {e}\n{}", comp.to_hlo_text()));
    if let Some(d) = difference(&inout, &want, Tol::Exact) {
        panic!("{d}\n{}\n{}", comp.to_hlo_text(), exe.fusion_text());
    }
    let reused = data_addr(&inout) == before;
    assert_eq!(
        reused,
        exe.runs_in_place(number),
        "runs_in_place disagrees with what happened\n{}",
        exe.fusion_text()
    );
    reused
}

/// The address of a literal's element storage.
fn data_addr(l: &Literal) -> Option<usize> {
    l.array_data()
        .map(|d| oxla_ir::dispatch_array!(d, v => v.as_ptr() as usize))
}

fn f32s(dims: &[i64]) -> oxla_ir::Shape {
    sh(ElementType::F32, dims)
}

#[test]
fn elementwise_and_broadcast_programs_run_in_place() {
    // x + v (W1), max(x * w + b, 0) (W5), select(x > y, x, y) (W7).
    let (mut b, p) = builder("w1", &[f32s(&[37, 45]), f32s(&[45])]);
    let y = b.add(p[0], p[1], &[1]).unwrap();
    let w1 = b.build(y).unwrap();

    let (mut b, p) = builder("w5", &[f32s(&[37, 45]), f32s(&[45]), f32s(&[37])]);
    let xw = b.mul(p[0], p[1], &[1]).unwrap();
    let xwb = b.add(xw, p[2], &[0]).unwrap();
    let zero = b.constant(Literal::scalar(0f32)).unwrap();
    let y = b.max(xwb, zero, &[]).unwrap();
    let w5 = b.build(y).unwrap();

    let (mut b, p) = builder("w7", &[f32s(&[37, 45]), f32s(&[45])]);
    let gt = b
        .compare(p[0], p[1], ComparisonDirection::Gt, &[1])
        .unwrap();
    let yb = b.broadcast_in_dim(p[1], &[37, 45], &[1]).unwrap();
    let y = b.select(gt, p[0], yb).unwrap();
    let w7 = b.build(y).unwrap();

    for (comp, shapes) in [
        (&w1, vec![f32s(&[37, 45]), f32s(&[45])]),
        (&w5, vec![f32s(&[37, 45]), f32s(&[45]), f32s(&[37])]),
        (&w7, vec![f32s(&[37, 45]), f32s(&[45])]),
    ] {
        let args: Vec<Literal> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| values(s, k as u64 + 1))
            .collect();
        assert!(
            in_place_matches_run(comp, &args, 0),
            "{}",
            comp.to_hlo_text()
        );
    }
    // Edge values (NaN, infinities, ±0) through the same kernels.
    let args = vec![edges(&f32s(&[37, 45]), 0, 1), edges(&f32s(&[45]), 3, 1)];
    assert!(in_place_matches_run(&w1, &args, 0));
    assert!(in_place_matches_run(&w7, &args, 0));
}

#[test]
fn large_parallel_kernels_run_in_place() {
    // Above the pool's threshold: the threads split the rows.
    let (mut b, p) = builder("big", &[f32s(&[512, 300]), f32s(&[300])]);
    let y = b.sub(p[0], p[1], &[1]).unwrap();
    let comp = b.build(y).unwrap();
    let args = vec![values(&f32s(&[512, 300]), 4), values(&f32s(&[300]), 5)];
    assert!(in_place_matches_run(&comp, &args, 0));
}

#[test]
fn row_groups_run_in_place() {
    // Softmax and layer norm: the passes read a row of x before the pass
    // that overwrites it, and never after.
    let (mut b, p) = builder("softmax", &[f32s(&[64, 300])]);
    let y = composite::softmax(&mut b, p[0], 1).unwrap();
    let softmax = b.build(y).unwrap();
    let args = vec![values(&f32s(&[64, 300]), 7)];
    assert!(in_place_matches_run(&softmax, &args, 0));

    let (mut b, p) = builder("ln", &[f32s(&[64, 96]), f32s(&[96]), f32s(&[96])]);
    let y = composite::layer_norm(&mut b, p[0], p[1], p[2], 1, 1e-5).unwrap();
    let ln = b.build(y).unwrap();
    let args = vec![
        values(&f32s(&[64, 96]), 8),
        values(&f32s(&[96]), 9),
        values(&f32s(&[96]), 10),
    ];
    assert!(in_place_matches_run(&ln, &args, 0));
}

#[test]
fn reads_at_other_elements_run_out_of_place() {
    let x = f32s(&[24, 24]);
    let mut progs: Vec<Computation> = Vec::new();
    // Transpose: out[i,j] reads x[j,i].
    let (mut b, p) = builder("transpose", std::slice::from_ref(&x));
    let y = b.transpose(p[0], &[1, 0]).unwrap();
    progs.push(b.build(y).unwrap());
    // x + reverse(x).
    let (mut b, p) = builder("reverse", std::slice::from_ref(&x));
    let r = b.reverse(p[0], &[1]).unwrap();
    let y = b.add(p[0], r, &[]).unwrap();
    progs.push(b.build(y).unwrap());
    // x + broadcast of x's first column (read at [i, 0]).
    let (mut b, p) = builder("column", std::slice::from_ref(&x));
    let c = b.slice(p[0], &[0, 0], &[24, 1], &[1, 1]).unwrap();
    let c = b.reshape(c, &[24]).unwrap();
    let y = b.add(p[0], c, &[0]).unwrap();
    progs.push(b.build(y).unwrap());
    // dot(x, x): the GEMM reads whole rows and columns.
    let (mut b, p) = builder("dot", std::slice::from_ref(&x));
    let y = b.dot(p[0], p[0]).unwrap();
    progs.push(b.build(y).unwrap());
    let args = vec![values(&x, 11)];
    for comp in &progs {
        assert!(
            !in_place_matches_run(comp, &args, 0),
            "{} must not run in place",
            comp.name()
        );
    }
}

#[test]
fn the_other_operand_runs_in_place_when_it_has_the_result_shape() {
    // y = x + z with both of the result's shape: either may be donated.
    let s = f32s(&[9, 70]);
    let (mut b, p) = builder("two", &[s.clone(), s.clone()]);
    let y = b.mul(p[0], p[1], &[]).unwrap();
    let y = b.add(y, p[1], &[]).unwrap();
    let comp = b.build(y).unwrap();
    let args = vec![values(&s, 12), values(&s, 13)];
    assert!(in_place_matches_run(&comp, &args, 0));
    assert!(in_place_matches_run(&comp, &args, 1));
}

#[test]
fn bad_calls_are_typed_errors_and_leave_the_argument_alone() {
    let (mut b, p) = builder("w1", &[f32s(&[4, 5]), f32s(&[5])]);
    let y = b.add(p[0], p[1], &[1]).unwrap();
    let exe = oxla_jit::compile(&b.build(y).unwrap()).expect("compile");
    let v = values(&f32s(&[5]), 2);
    let x0 = values(&f32s(&[4, 5]), 1);

    // Parameter 1 (f32[5]) is not the result's shape.
    let mut inout = v.clone();
    let err = exe.run_in_place(1, &mut inout, &[&x0]).unwrap_err();
    assert!(matches!(&err, Error::OutputShape { .. }), "{err}");
    assert!(err.to_string().contains("f32[4,5]") && err.to_string().contains("f32[5]"));
    assert_eq!(inout, v);

    // Wrong count, out-of-range number.
    let mut inout = x0.clone();
    let err = exe.run_in_place(0, &mut inout, &[]).unwrap_err();
    assert!(matches!(err, Error::ArgumentCount { .. }), "{err}");
    let err = exe.run_in_place(2, &mut inout, &[&v]).unwrap_err();
    assert!(matches!(err, Error::ArgumentCount { .. }), "{err}");

    // A wrong shape for the donated argument or for another one.
    let mut wrong = values(&f32s(&[5, 4]), 3);
    let err = exe.run_in_place(0, &mut wrong, &[&v]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 0, .. }),
        "{err}"
    );
    let err = exe
        .run_in_place(0, &mut inout, &[&values(&f32s(&[4]), 3)])
        .unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 1, .. }),
        "{err}"
    );
    assert_eq!(inout, x0);
}

#[test]
fn random_programs_in_place_equal_run() {
    let cfg = GenConfig::default();
    let (mut checked, mut reused) = (0, 0);
    for seed in 0..600u64 {
        let mut rng = Rng::new(seed);
        let Ok(p) = gen_program(&mut rng, &cfg) else {
            continue;
        };
        let result = p.comp.result_shape();
        if !result.is_array() {
            continue;
        }
        let shapes = p.comp.parameter_shapes();
        for (k, shape) in shapes.iter().enumerate() {
            if shape == result {
                checked += 1;
                if in_place_matches_run(&p.comp, &p.args, k) {
                    reused += 1;
                }
            }
        }
    }
    assert!(checked >= 100, "only {checked} donations checked");
    assert!(
        reused * 4 >= checked,
        "only {reused} of {checked} ran in place"
    );
}
