//! The interpreter's Rust-API tests: what `evaluate` does with the
//! arguments it is handed and with computations that were never verified.
//!
//! The interpreter's values (every op, every element type, XLA's
//! broadcasting examples, the integer and floating-point edge cases) are
//! `.hlo` files under `tests/hlo/interp/`, run on the interpreter and the JIT
//! alike by `cargo test -p oxla --test hlo` (see `docs/testing.md`). What
//! stays here cannot be written as text: argument literals of the wrong
//! count or shape, and computations assembled without the verifier.

// `oxla_ir::Error` is large by oxla-ir's design; the builder closures here
// return it.
#![allow(clippy::result_large_err)]

use oxla_interp::evaluate;
use oxla_ir::{
    BinaryOp, Body, Builder, Computation, ElementType, Error, InstId, Instruction, Literal,
    NativeType, Op, OpKind, Result, Shape,
};

/// An array literal.
fn lit<T: NativeType>(dims: &[i64], values: Vec<T>) -> Literal {
    Literal::from_vec(dims, values).unwrap_or_else(|e| panic!("bad test literal: {e}"))
}

/// A rank-1 literal.
fn vec1<T: NativeType>(values: &[T]) -> Literal {
    lit(&[values.len() as i64], values.to_vec())
}

/// A computation with one parameter per shape (named `p0`, `p1`, ...) and
/// the body `f` builds from them.
fn build(shapes: &[Shape], f: impl FnOnce(&mut Builder, &[Op]) -> Result<Op>) -> Computation {
    let mut b = Builder::new("test");
    let params: Vec<Op> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            b.parameter(i as i64, s.clone(), &format!("p{i}"))
                .unwrap_or_else(|e| panic!("parameter {i}: {e}"))
        })
        .collect();
    let root = f(&mut b, &params).unwrap_or_else(|e| panic!("building the test failed: {e}"));
    b.build(root)
        .unwrap_or_else(|e| panic!("build failed: {e}"))
}

/// A reducer `(T[], T[]) -> T[]` that adds its two parameters.
fn sum(ty: ElementType) -> Computation {
    let mut b = Builder::new("sum");
    let acc = b.parameter(0, Shape::scalar(ty), "acc").unwrap();
    let x = b.parameter(1, Shape::scalar(ty), "x").unwrap();
    let root = b.add(acc, x, &[]).unwrap();
    b.build(root).unwrap()
}

#[test]
fn argument_count_is_checked() {
    let comp = build(
        &[
            Shape::new(ElementType::F32, &[2]),
            Shape::scalar(ElementType::S32),
        ],
        |b, p| b.tuple(p),
    );
    let x = vec1(&[1f32, 2.]);
    let err = evaluate(&comp, &[&x]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::ArgumentCount {
                expected: 2,
                actual: 1,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("f32[2]") && text.contains("s32[]"), "{text}");
}

#[test]
fn argument_shapes_are_checked() {
    let comp = build(&[Shape::new(ElementType::F32, &[2, 3])], |b, p| b.neg(p[0]));
    let wrong_type = lit(&[2, 3], vec![0i32; 6]);
    let err = evaluate(&comp, &[&wrong_type]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 0, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("f32[2,3]") && text.contains("s32[2,3]"),
        "{text}"
    );

    let wrong_dims = lit(&[3, 2], vec![0f32; 6]);
    let err = evaluate(&comp, &[&wrong_dims]).unwrap_err();
    assert!(
        matches!(err, Error::ArgumentShape { number: 0, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("f32[2,3]") && text.contains("f32[3,2]"),
        "{text}"
    );

    let a_tuple = Literal::tuple(vec![wrong_dims]);
    let err = evaluate(&comp, &[&a_tuple]).unwrap_err();
    assert!(matches!(err, Error::ArgumentShape { .. }), "{err:?}");
}

#[test]
fn unverified_computations_are_refused() {
    // An add that declares the wrong shape: the verifier's error, no panic.
    let f32_2 = Shape::new(ElementType::F32, &[2]);
    let inst = |name: &str, kind, operands: Vec<u32>, shape: &Shape| Instruction {
        name: name.into(),
        kind,
        operands: operands.into_iter().map(InstId).collect(),
        shape: shape.clone(),
    };
    let body = Body {
        name: "bad".into(),
        instructions: vec![
            inst("x", OpKind::Parameter { number: 0 }, vec![], &f32_2),
            inst(
                "y",
                OpKind::Binary {
                    op: BinaryOp::Add,
                    broadcast_dimensions: vec![],
                },
                vec![0, 0],
                &Shape::new(ElementType::F32, &[3]),
            ),
        ],
        root: InstId(1),
    };
    let comp = Computation::from_bodies_unverified("bad", vec![body.clone()]);
    let x = vec1(&[1f32, 2.]);
    let err = evaluate(&comp, &[&x]).unwrap_err();
    assert!(matches!(err, Error::Verification { .. }), "{err:?}");
    // An operand that refers forward, and a root out of range.
    let mut forward = body.clone();
    forward.instructions[1].operands = vec![InstId(1), InstId(5)];
    forward.instructions[1].shape = f32_2.clone();
    let comp = Computation::from_bodies_unverified("bad", vec![forward]);
    assert!(evaluate(&comp, &[&x]).is_err());
    let mut rootless = body;
    rootless.root = InstId(9);
    let comp = Computation::from_bodies_unverified("bad", vec![rootless]);
    assert!(evaluate(&comp, &[&x]).is_err());
    let comp = Computation::from_bodies_unverified("empty", vec![]);
    assert!(matches!(
        evaluate(&comp, &[]),
        Err(Error::Verification { .. })
    ));
}

#[test]
fn evaluation_is_repeatable() {
    let comp = build(&[Shape::new(ElementType::S32, &[3])], |b, p| {
        let zero = b.constant_scalar(0i32)?;
        b.reduce(p[0], zero, &[0], &sum(ElementType::S32))
    });
    for k in 0..3 {
        let x = vec1(&[k, k + 1, k + 2]);
        let got = evaluate(&comp, &[&x]).unwrap();
        assert_eq!(got.to_vec::<i32>().unwrap(), vec![3 * k + 3]);
    }
}
