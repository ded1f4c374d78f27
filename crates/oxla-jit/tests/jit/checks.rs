//! `run` and `run_into` check every argument and the caller's output
//! before any native code runs: typed errors naming the parameter and both
//! shapes, never a crash.

use oxla_ir::{Builder, ElementType, Error, Literal};

use crate::common::*;

fn add_row() -> oxla_ir::Computation {
    let (mut b, p) = builder(
        "add_row",
        &[sh(ElementType::F32, &[2, 3]), sh(ElementType::F32, &[3])],
    );
    let y = b.add(p[0], p[1], &[1]).expect("add");
    b.build(y).expect("build")
}

#[test]
fn wrong_argument_count_type_or_dims_is_a_typed_error() {
    let exe = oxla_jit::compile(&add_row()).expect("compile");
    let x = Literal::zeros(&sh(ElementType::F32, &[2, 3])).expect("x");
    let v = Literal::zeros(&sh(ElementType::F32, &[3])).expect("v");
    let err = exe.run(&[&x]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::ArgumentCount {
                expected: 2,
                actual: 1,
                ..
            }
        ),
        "{err}"
    );
    let err = exe.run(&[&x, &v, &v]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentCount { actual: 3, .. }),
        "{err}"
    );
    // Wrong element type.
    let vi = Literal::zeros(&sh(ElementType::S32, &[3])).expect("vi");
    let err = exe.run(&[&x, &vi]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 1, .. }),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("p1") && msg.contains("f32[3]") && msg.contains("s32[3]"),
        "{msg}"
    );
    // Wrong dims, larger than expected (would read past the end).
    let big = Literal::zeros(&sh(ElementType::F32, &[4, 3])).expect("big");
    let err = exe.run(&[&big, &v]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("f32[2,3]") && err.to_string().contains("f32[4,3]"));
    // Smaller than expected (would read garbage).
    let small = Literal::zeros(&sh(ElementType::F32, &[2])).expect("small");
    let err = exe.run(&[&x, &small]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 1, .. }),
        "{err}"
    );
    // A tuple where an array is expected.
    let t = Literal::tuple(vec![v.clone()]);
    let err = exe.run(&[&x, &t]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 1, .. }),
        "{err}"
    );
    // Same errors as the interpreter.
    let interp = oxla_interp::evaluate(&add_row(), &[&x, &vi]).unwrap_err();
    assert_eq!(interp, exe.run(&[&x, &vi]).unwrap_err());
}

#[test]
fn run_into_checks_the_output_shape() {
    let exe = oxla_jit::compile(&add_row()).expect("compile");
    let x = values(&sh(ElementType::F32, &[2, 3]), 1);
    let v = values(&sh(ElementType::F32, &[3]), 2);
    for wrong in [
        sh(ElementType::F32, &[3, 2]),
        sh(ElementType::F32, &[2, 4]),
        sh(ElementType::F64, &[2, 3]),
        sh(ElementType::F32, &[6]),
        sh(ElementType::F32, &[]),
    ] {
        let mut out = Literal::zeros(&wrong).expect("out");
        let err = exe.run_into(&[&x, &v], &mut out).unwrap_err();
        assert!(
            matches!(&err, Error::OutputShape { expected, actual, .. }
                if expected == "f32[2,3]" && *actual == wrong.to_string()),
            "{err}"
        );
        assert_eq!(err.code(), "OX0403");
        assert!(err.to_string().contains("f32[2,3]"), "{err}");
        assert!(err.to_string().contains(&wrong.to_string()), "{err}");
        assert!(err.to_string().contains("help:"), "{err}");
        assert_eq!(
            out,
            Literal::zeros(&wrong).expect("out"),
            "output untouched"
        );
    }
    let mut tuple_out = Literal::tuple(vec![]);
    assert!(exe.run_into(&[&x, &v], &mut tuple_out).is_err());
    let mut out = Literal::zeros(&sh(ElementType::F32, &[2, 3])).expect("out");
    exe.run_into(&[&x, &v], &mut out).expect("run_into");
    assert_eq!(out, exe.run(&[&x, &v]).expect("run"));
    // Argument errors come first, and leave the output alone.
    let err = exe.run_into(&[&x], &mut out).unwrap_err();
    assert!(matches!(err, Error::ArgumentCount { .. }));
}

#[test]
fn tuple_results_run_into_every_leaf() {
    // Leaves of every kind: kernel outputs (s32 and pred, one of them
    // large enough to be split across threads), an argument, a constant,
    // a repeat of an earlier leaf, and a nested tuple. `out` starts full
    // of another call's values, so a leaf left unwritten shows.
    let xs = sh(ElementType::S32, &[300, 257]);
    let (mut b, p) = builder("leaves", std::slice::from_ref(&xs));
    let n = b.neg(p[0]).expect("neg");
    let g = b.gt(p[0], n, &[]).expect("gt");
    let c = b
        .constant(Literal::from_vec(&[2], vec![7u8, 9]).expect("c"))
        .expect("constant");
    let inner = b.tuple(&[g, c]).expect("inner");
    let t = b.tuple(&[n, p[0], inner, n]).expect("tuple");
    let comp = b.build(t).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    let x = values(&xs, 3);
    let other = values(&xs, 4);
    let want = oxla_interp::evaluate(&comp, &[&x]).expect("evaluate");
    let mut out = exe.run(&[&other]).expect("run");
    assert_ne!(out, want);
    exe.run_into(&[&x], &mut out).expect("run_into");
    assert!(difference(&out, &want, Tol::Exact).is_none());
    // A tuple output of another structure is an OutputShape error.
    let mut wrong = Literal::tuple(vec![Literal::zeros(&xs).expect("z")]);
    let err = exe.run_into(&[&x], &mut wrong).unwrap_err();
    assert!(matches!(err, Error::OutputShape { .. }), "{err}");
    // The empty tuple.
    let (mut b, _) = builder("unit", std::slice::from_ref(&xs));
    let t = b.tuple(&[]).expect("tuple");
    let exe = oxla_jit::compile(&b.build(t).expect("build")).expect("compile");
    let mut unit = Literal::tuple(vec![]);
    exe.run_into(&[&x], &mut unit).expect("run_into");
}

#[test]
fn executables_are_send_sync_and_debug_views_exist() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<oxla_jit::Executable>();
    let mut b = Builder::new("e");
    let x = b.parameter(0, sh(ElementType::F32, &[8]), "x").expect("x");
    let y = b.exp(x).expect("exp");
    let comp = b.build(y).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    assert!(exe.clif_text().contains("function"), "{}", exe.clif_text());
    assert!(
        exe.fusion_text().contains("kernel 0"),
        "{}",
        exe.fusion_text()
    );
    assert_eq!(
        oxla_jit::fusion_text(&comp).expect("text"),
        exe.fusion_text()
    );
}

#[test]
fn temporaries_too_large_to_allocate_are_a_typed_error() {
    // dot(a, b) is f32[2^20, 2^20] (4 TiB), materialised for the reduce
    // that follows: the run must refuse it, not abort.
    let n = 1 << 20;
    let (mut b, p) = builder(
        "huge_temp",
        &[sh(ElementType::F32, &[n, 1]), sh(ElementType::F32, &[1, n])],
    );
    let d = b.dot(p[0], p[1]).expect("dot");
    let zero = b.constant_scalar(0f32).expect("zero");
    let add = crate::reduce_dot::reducer(ElementType::F32, "add");
    let r = b.reduce(d, zero, &[0, 1], &add).expect("reduce");
    let comp = b.build(r).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    let a = Literal::zeros(&sh(ElementType::F32, &[n, 1])).expect("a");
    let c = Literal::zeros(&sh(ElementType::F32, &[1, n])).expect("c");
    let err = exe.run(&[&a, &c]).unwrap_err();
    assert!(
        matches!(&err, Error::JitAllocation { role, shape, bytes, .. }
            if role == "intermediate" && shape == "f32[1048576,1048576]" && *bytes == 1 << 42),
        "{err}"
    );
    assert_eq!(err.code(), "OX0804");
    assert!(err.to_string().contains("f32[1048576,1048576]"), "{err}");
    // The executable stays usable; so is one whose output is that large.
    assert!(exe.run(&[&a, &c]).is_err());
    let (mut b, p) = builder(
        "huge_out",
        &[sh(ElementType::F32, &[n, 1]), sh(ElementType::F32, &[1, n])],
    );
    let d = b.dot(p[0], p[1]).expect("dot");
    let exe = oxla_jit::compile(&b.build(d).expect("build")).expect("compile");
    let err = exe.run(&[&a, &c]).unwrap_err();
    assert!(
        matches!(&err, Error::JitAllocation { role, .. } if role == "output"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("cannot allocate an output of shape f32[1048576,1048576]"),
        "{err}"
    );
}

#[test]
fn unverified_computations_are_refused_by_compile() {
    use oxla_ir::ir::{Body, InstId};
    let empty = oxla_ir::Computation::from_bodies_unverified("empty", vec![]);
    let Err(err) = oxla_jit::compile(&empty) else {
        panic!("an empty computation compiled");
    };
    assert!(matches!(err, Error::Verification { .. }), "{err}");
    assert!(err.to_string().contains("no entry body"), "{err}");
    let mut body: Body = add_row().entry().clone();
    body.root = InstId(99);
    let rootless = oxla_ir::Computation::from_bodies_unverified("rootless", vec![body]);
    let Err(err) = oxla_jit::compile(&rootless) else {
        panic!("a rootless computation compiled");
    };
    assert!(matches!(err, Error::Verification { .. }), "{err}");
}
