//! The interpreter's tests: every op, every element type, XLA's
//! broadcasting examples, and the integer and floating-point edge cases,
//! each checked by value.
//!
//! Each case builds a computation with [`Builder`] whose parameters take the
//! shapes of the arguments, evaluates it, and compares the result with the
//! expected literal through [`check`]: shapes exactly, floats bit for bit
//! (so `-0` and `+0` differ), except that any NaN matches any NaN (the sign
//! and payload of a NaN produced by arithmetic are the platform's).

// `oxla_ir::Error` is large by oxla-ir's design; the builder closures here
// return it.
#![allow(clippy::result_large_err)]

use oxla_interp::evaluate;
use oxla_ir::{
    ArrayData, BinaryOp, Body, Builder, ComparisonDirection, Computation, DotDimensionNumbers,
    ElementType, Error, InstId, Instruction, Literal, NativeType, Op, OpKind, PadDim, Result,
    Shape, UnaryOp,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

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

/// Evaluates the computation `f` builds over parameters shaped like `args`.
fn eval(args: &[&Literal], f: impl FnOnce(&mut Builder, &[Op]) -> Result<Op>) -> Literal {
    let shapes: Vec<Shape> = args.iter().map(|a| a.shape().clone()).collect();
    let comp = build(&shapes, f);
    evaluate(&comp, args).unwrap_or_else(|e| panic!("evaluation failed: {e}\n{comp}"))
}

/// Evaluates and compares with `expected` (see [`same`]).
#[track_caller]
fn check(args: &[&Literal], f: impl FnOnce(&mut Builder, &[Op]) -> Result<Op>, expected: Literal) {
    let shapes: Vec<Shape> = args.iter().map(|a| a.shape().clone()).collect();
    let comp = build(&shapes, f);
    let got = evaluate(&comp, args).unwrap_or_else(|e| panic!("evaluation failed: {e}\n{comp}"));
    assert!(
        same(&got, &expected),
        "\n{comp}\ngot:      {got}\nexpected: {expected}\n(got {got:?})"
    );
}

/// Equal shapes and values; floats compared by bits, any NaN equal to any
/// NaN.
fn same(a: &Literal, b: &Literal) -> bool {
    if a.shape() != b.shape() {
        return false;
    }
    if let (Some(x), Some(y)) = (a.tuple_elements(), b.tuple_elements()) {
        return x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q));
    }
    match (a.array_data(), b.array_data()) {
        (Some(ArrayData::F32(x)), Some(ArrayData::F32(y))) => x
            .iter()
            .zip(y)
            .all(|(p, q)| (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()),
        (Some(ArrayData::F64(x)), Some(ArrayData::F64(y))) => x
            .iter()
            .zip(y)
            .all(|(p, q)| (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()),
        (x, y) => x == y,
    }
}

/// A reducer `(T[], T[]) -> T[]` whose body `f` builds from its two
/// parameters.
fn reducer(
    name: &str,
    ty: ElementType,
    f: impl FnOnce(&mut Builder, Op, Op) -> Result<Op>,
) -> Computation {
    let mut b = Builder::new(name);
    let acc = b.parameter(0, Shape::scalar(ty), "acc").unwrap();
    let x = b.parameter(1, Shape::scalar(ty), "x").unwrap();
    let root = f(&mut b, acc, x).unwrap();
    b.build(root).unwrap()
}

fn sum(ty: ElementType) -> Computation {
    reducer("sum", ty, |b, a, x| b.add(a, x, &[]))
}

fn max(ty: ElementType) -> Computation {
    reducer("max", ty, |b, a, x| b.max(a, x, &[]))
}

/// `op(x, y)` elementwise on two equal-shaped literals.
#[track_caller]
fn check_binary(op: BinaryOp, x: Literal, y: Literal, expected: Literal) {
    check(&[&x, &y], |b, p| b.binary(p[0], p[1], op, &[]), expected);
}

/// Every comparison of `x` and `y`, against the expected results in the
/// order EQ, NE, LT, LE, GT, GE.
#[track_caller]
fn check_compares(x: &Literal, y: &Literal, expected: [&[bool]; 6]) {
    let directions = [
        ComparisonDirection::Eq,
        ComparisonDirection::Ne,
        ComparisonDirection::Lt,
        ComparisonDirection::Le,
        ComparisonDirection::Gt,
        ComparisonDirection::Ge,
    ];
    for (direction, want) in directions.into_iter().zip(expected) {
        check(
            &[x, y],
            |b, p| b.compare(p[0], p[1], direction, &[]),
            lit(x.shape().dims(), want.to_vec()),
        );
    }
}

/// `op(x)` elementwise.
#[track_caller]
fn check_unary(op: UnaryOp, x: Literal, expected: Literal) {
    check(&[&x], |b, p| b.unary(op, p[0]), expected);
}

/// A row-major literal of `dims` whose element at each multi-index is
/// `f(index)`: expected values written as formulas.
fn tabulate<T: NativeType>(dims: &[i64], f: impl Fn(&[i64]) -> T) -> Literal {
    let mut values = Vec::new();
    let mut idx = vec![0i64; dims.len()];
    let count: i64 = dims.iter().product();
    for _ in 0..count {
        values.push(f(&idx));
        for k in (0..dims.len()).rev() {
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    lit(dims, values)
}

/// `0, 1, 2, ...` as f32 in `dims`.
fn counting(dims: &[i64]) -> Literal {
    let n: i64 = dims.iter().product();
    lit(dims, (0..n).map(|v| v as f32).collect())
}

// ---------------------------------------------------------------------------
// Broadcasting (XLA's examples)
// ---------------------------------------------------------------------------

#[test]
fn broadcast_matrix_plus_vector() {
    let m = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let v = vec1(&[7f32, 8., 9.]);
    check(
        &[&m, &v],
        |b, p| b.add(p[0], p[1], &[1]),
        lit(&[2, 3], vec![8f32, 10., 12., 11., 13., 15.]),
    );
    // The lower-rank operand on the left: operand order is kept.
    check(
        &[&v, &m],
        |b, p| b.sub(p[0], p[1], &[1]),
        lit(&[2, 3], vec![6f32, 6., 6., 3., 3., 3.]),
    );
}

#[test]
fn broadcast_square_matrix_along_either_dimension() {
    let m = lit(&[3, 3], vec![1i32, 2, 3, 4, 5, 6, 7, 8, 9]);
    let v = vec1(&[10i32, 20, 30]);
    check(
        &[&m, &v],
        |b, p| b.add(p[0], p[1], &[0]),
        lit(&[3, 3], vec![11, 12, 13, 24, 25, 26, 37, 38, 39]),
    );
    check(
        &[&m, &v],
        |b, p| b.add(p[0], p[1], &[1]),
        lit(&[3, 3], vec![11, 22, 33, 14, 25, 36, 17, 28, 39]),
    );
}

#[test]
fn broadcast_matrix_into_rank_3() {
    let x = counting(&[2, 3, 4]);
    let y = lit(&[3, 4], (0..12).map(|v| 100. * v as f32).collect());
    check(
        &[&x, &y],
        |b, p| b.add(p[0], p[1], &[1, 2]),
        tabulate(&[2, 3, 4], |i| {
            (i[0] * 12 + i[1] * 4 + i[2]) as f32 + 100. * (i[1] * 4 + i[2]) as f32
        }),
    );
}

#[test]
fn broadcast_degenerate_dimensions() {
    // (2,1) + (2,3)
    let a = lit(&[2, 1], vec![1f32, 2.]);
    let b_ = lit(&[2, 3], vec![10f32, 20., 30., 40., 50., 60.]);
    check(
        &[&a, &b_],
        |b, p| b.add(p[0], p[1], &[]),
        lit(&[2, 3], vec![11f32, 21., 31., 42., 52., 62.]),
    );
    // (1,2,5) + (7,2,5)
    let a = counting(&[1, 2, 5]);
    let c = lit(&[7, 2, 5], (0..70).map(|v| 1000. * v as f32).collect());
    check(
        &[&a, &c],
        |b, p| b.add(p[0], p[1], &[]),
        tabulate(&[7, 2, 5], |i| {
            (i[1] * 5 + i[2]) as f32 + 1000. * (i[0] * 10 + i[1] * 5 + i[2]) as f32
        }),
    );
    // (7,2,5) + (7,1,5)
    let d = lit(&[7, 1, 5], (0..35).map(|v| 1000. * v as f32).collect());
    let e = counting(&[7, 2, 5]);
    check(
        &[&e, &d],
        |b, p| b.add(p[0], p[1], &[]),
        tabulate(&[7, 2, 5], |i| {
            (i[0] * 10 + i[1] * 5 + i[2]) as f32 + 1000. * (i[0] * 5 + i[2]) as f32
        }),
    );
}

#[test]
fn broadcast_outer_operation() {
    let a = lit(&[2, 1], vec![1f32, 2.]);
    let b_ = lit(&[1, 3], vec![10f32, 20., 30.]);
    check(
        &[&a, &b_],
        |b, p| b.add(p[0], p[1], &[]),
        lit(&[2, 3], vec![11f32, 21., 31., 12., 22., 32.]),
    );
}

#[test]
fn broadcast_in_dim_then_degenerate() {
    // [1,2,3,4] + [[5,6]] with {0} gives [[6,7],[7,8],[8,9],[9,10]].
    let v = vec1(&[1f32, 2., 3., 4.]);
    let r = lit(&[1, 2], vec![5f32, 6.]);
    check(
        &[&v, &r],
        |b, p| b.add(p[0], p[1], &[0]),
        lit(&[4, 2], vec![6f32, 7., 7., 8., 8., 9., 9., 10.]),
    );
    // f32[1,2] + f32[4,3,1] with {1,2} gives f32[4,3,2].
    let a = lit(&[1, 2], vec![1f32, 2.]);
    let c = lit(&[4, 3, 1], (0..12).map(|v| 10. * v as f32).collect());
    check(
        &[&a, &c],
        |b, p| b.add(p[0], p[1], &[1, 2]),
        tabulate(&[4, 3, 2], |i| {
            (i[2] + 1) as f32 + 10. * (i[0] * 3 + i[1]) as f32
        }),
    );
}

#[test]
fn broadcast_scalars() {
    let s = Literal::scalar(10f32);
    let m = lit(&[2, 2], vec![1f32, 2., 3., 4.]);
    check(
        &[&s, &m],
        |b, p| b.sub(p[0], p[1], &[]),
        lit(&[2, 2], vec![9f32, 8., 7., 6.]),
    );
    check(
        &[&m, &s],
        |b, p| b.sub(p[0], p[1], &[]),
        lit(&[2, 2], vec![-9f32, -8., -7., -6.]),
    );
    check(
        &[&s, &s],
        |b, p| b.mul(p[0], p[1], &[]),
        Literal::scalar(100f32),
    );
    // Comparisons broadcast the same way and give pred.
    check(
        &[&m, &s],
        |b, p| b.gt(p[0], p[1], &[]),
        lit(&[2, 2], vec![false; 4]),
    );
    let v = vec1(&[2f32, 3.]);
    check(
        &[&m, &v],
        |b, p| b.ge(p[0], p[1], &[0]),
        lit(&[2, 2], vec![false, true, true, true]),
    );
}

#[test]
fn broadcast_empty_and_unit_sizes() {
    let empty = lit::<f32>(&[0, 3], vec![]);
    let v = vec1(&[1f32, 2., 3.]);
    check(
        &[&empty, &v],
        |b, p| b.add(p[0], p[1], &[1]),
        lit::<f32>(&[0, 3], vec![]),
    );
    // A size-1 dimension against a size-0 one gives 0.
    let row = lit(&[1, 3], vec![1f32, 2., 3.]);
    check(
        &[&row, &empty],
        |b, p| b.add(p[0], p[1], &[]),
        lit::<f32>(&[0, 3], vec![]),
    );
    let one = lit(&[1], vec![2f32]);
    check(
        &[&one, &one],
        |b, p| b.mul(p[0], p[1], &[]),
        lit(&[1], vec![4f32]),
    );
    check(
        &[&one, &v],
        |b, p| b.add(p[0], p[1], &[]),
        vec1(&[3f32, 4., 5.]),
    );
    let e1 = lit::<i32>(&[0], vec![]);
    check(&[&e1], |b, p| b.neg(p[0]), lit::<i32>(&[0], vec![]));
}

#[test]
fn large_elementwise_add() {
    let n = 1 << 20;
    let x = lit(&[1024, 1024], (0..n).map(|v| v as f32).collect());
    let y = lit(&[1024, 1024], (0..n).map(|v| (n - v) as f32).collect());
    let out = eval(&[&x, &y], |b, p| b.add(p[0], p[1], &[]));
    assert!(
        out.as_slice::<f32>()
            .unwrap()
            .iter()
            .all(|&v| v == n as f32)
    );
}

// ---------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------

macro_rules! signed_cases {
    ($t:ident) => {{
        const MIN: $t = $t::MIN;
        const MAX: $t = $t::MAX;
        const BITS: $t = $t::BITS as $t;
        let bin =
            |op, x: &[$t], y: &[$t], want: &[$t]| check_binary(op, vec1(x), vec1(y), vec1(want));
        // Wrapping arithmetic.
        bin(BinaryOp::Add, &[MAX, 1, -1], &[1, 2, MIN], &[MIN, 3, MAX]);
        bin(BinaryOp::Sub, &[MIN, 5, 0], &[1, 7, MIN], &[MAX, -2, MIN]);
        bin(BinaryOp::Mul, &[MAX, MIN, -3], &[2, -1, 4], &[-2, MIN, -12]);
        // Division: truncation, x/0 = -1, MIN/-1 = MIN.
        bin(
            BinaryOp::Div,
            &[7, -7, 7, -7, MIN, MIN, 0],
            &[2, 2, -2, 0, -1, 0, 0],
            &[3, -3, -3, -1, MIN, -1, -1],
        );
        // Remainder: the dividend's sign, x%0 = x, MIN%-1 = 0.
        bin(
            BinaryOp::Rem,
            &[7, -7, 7, -7, MIN, MIN, 5],
            &[2, 2, -2, 0, -1, 0, MIN],
            &[1, -1, 1, -7, 0, MIN, 5],
        );
        // Power: 1^y = x^0 = 1; negative exponents give 0 except for base 1.
        bin(
            BinaryOp::Pow,
            &[2, 3, -2, 1, -1, -1, 2, 0, 5, 0, -1, 2, 3, 0],
            &[3, 2, 3, -5, -1, -2, -1, 0, 0, 3, 3, BITS, 5, -1],
            &[8, 9, -8, 1, 0, 0, 0, 1, 1, 0, -1, 0, 243i64 as $t, 0],
        );
        bin(BinaryOp::Max, &[MIN, 3, -1], &[MAX, 2, -1], &[MAX, 3, -1]);
        bin(BinaryOp::Min, &[MIN, 3, -1], &[MAX, 2, -1], &[MIN, 2, -1]);
        bin(BinaryOp::And, &[12, -1, 0], &[10, 5, MIN], &[8, 5, 0]);
        bin(BinaryOp::Or, &[12, -1, 0], &[10, 5, MIN], &[14, -1, MIN]);
        bin(BinaryOp::Xor, &[12, -1, 0], &[10, 5, MIN], &[6, -6, MIN]);
        // Shifts by 0, 1, width-1, width, width+5 and "negative" amounts.
        bin(
            BinaryOp::ShiftLeft,
            &[1, 1, 1, 1, 1, 1, 1],
            &[0, 1, BITS - 1, BITS, BITS + 5, -1, MIN],
            &[1, 2, MIN, 0, 0, 0, 0],
        );
        bin(
            BinaryOp::ShiftRightArithmetic,
            &[MIN, MIN, MIN, MIN, MIN, MIN, 64, 64, 64, 64],
            &[0, 1, BITS - 1, BITS, BITS + 5, -1, 6, 7, BITS, -1],
            &[MIN, MIN / 2, -1, -1, -1, -1, 1, 0, 0, 0],
        );
        bin(
            BinaryOp::ShiftRightLogical,
            &[-1, -1, -1, -1, -1, -1],
            &[0, 1, BITS - 1, BITS, BITS + 5, -1],
            &[-1, MAX, 1, 0, 0, 0],
        );
        check_unary(
            UnaryOp::Neg,
            vec1(&[MIN, 5, 0, MAX]),
            vec1(&[MIN, -5, 0, -MAX]),
        );
        check_unary(
            UnaryOp::Abs,
            vec1(&[MIN, -5, 0, MAX]),
            vec1(&[MIN, 5, 0, MAX]),
        );
        check_unary(
            UnaryOp::Sign,
            vec1(&[MIN, -5, 0, 7]),
            vec1(&[-1 as $t, -1, 0, 1]),
        );
        check_unary(
            UnaryOp::Not,
            vec1(&[0 as $t, -1, 5]),
            vec1(&[-1 as $t, 0, -6]),
        );
        check_compares(
            &vec1(&[MIN, -1, 5, 5]),
            &vec1(&[MAX, 0, 5, 4]),
            [
                &[false, false, true, false],
                &[true, true, false, true],
                &[true, true, false, false],
                &[true, true, true, false],
                &[false, false, false, true],
                &[false, false, true, true],
            ],
        );
    }};
}

macro_rules! unsigned_cases {
    ($t:ident) => {{
        const MAX: $t = $t::MAX;
        const BITS: $t = $t::BITS as $t;
        const TOP: $t = MAX / 2 + 1;
        let bin =
            |op, x: &[$t], y: &[$t], want: &[$t]| check_binary(op, vec1(x), vec1(y), vec1(want));
        bin(BinaryOp::Add, &[MAX, 1], &[1, 2], &[0, 3]);
        bin(BinaryOp::Sub, &[0, 5], &[1, 3], &[MAX, 2]);
        bin(BinaryOp::Mul, &[MAX, 3], &[2, 4], &[MAX - 1, 12]);
        // x/0 = MAX (all bits set); x%0 = x.
        bin(
            BinaryOp::Div,
            &[7, 7, 0, MAX],
            &[2, 0, 0, MAX],
            &[3, MAX, MAX, 1],
        );
        bin(BinaryOp::Rem, &[7, 7, 0], &[2, 0, 0], &[1, 7, 0]);
        bin(
            BinaryOp::Pow,
            &[2, 3, 0, 2, 0, 1, 3],
            &[3, 0, 0, BITS, 5, MAX, 5],
            &[8, 1, 1, 0, 0, 1, 243],
        );
        bin(BinaryOp::Max, &[0, MAX], &[MAX, 1], &[MAX, MAX]);
        bin(BinaryOp::Min, &[0, MAX], &[MAX, 1], &[0, 1]);
        bin(BinaryOp::And, &[12, MAX], &[10, 5], &[8, 5]);
        bin(BinaryOp::Or, &[12, MAX], &[10, 5], &[14, MAX]);
        bin(BinaryOp::Xor, &[12, MAX], &[10, 5], &[6, MAX - 5]);
        bin(
            BinaryOp::ShiftLeft,
            &[1, 1, 1, 1, 1],
            &[0, BITS - 1, BITS, BITS + 5, MAX],
            &[1, TOP, 0, 0, 0],
        );
        // The arithmetic shift fills with the top bit even for unsigned types.
        bin(
            BinaryOp::ShiftRightArithmetic,
            &[TOP, TOP, TOP, TOP, TOP, 64, 64],
            &[0, 1, BITS - 1, BITS, MAX, 6, BITS],
            &[TOP, TOP | (TOP >> 1), MAX, MAX, MAX, 1, 0],
        );
        bin(
            BinaryOp::ShiftRightLogical,
            &[MAX, MAX, MAX, MAX, MAX],
            &[0, 1, BITS - 1, BITS, BITS + 5],
            &[MAX, MAX / 2, 1, 0, 0],
        );
        check_unary(UnaryOp::Neg, vec1(&[0, 1, MAX]), vec1(&[0, MAX, 1]));
        check_unary(UnaryOp::Abs, vec1(&[MAX, 0]), vec1(&[MAX, 0]));
        check_unary(UnaryOp::Sign, vec1(&[0, 5, MAX]), vec1(&[0 as $t, 1, 1]));
        check_unary(UnaryOp::Not, vec1(&[0, MAX]), vec1(&[MAX, 0]));
        // Unsigned order: MAX is the largest.
        check_compares(
            &vec1(&[0, MAX, 5]),
            &vec1(&[MAX, 0, 5]),
            [
                &[false, false, true],
                &[true, true, false],
                &[true, false, false],
                &[true, false, true],
                &[false, true, false],
                &[false, true, true],
            ],
        );
    }};
}

#[test]
fn signed_integers() {
    signed_cases!(i8);
    signed_cases!(i16);
    signed_cases!(i32);
    signed_cases!(i64);
}

#[test]
fn unsigned_integers() {
    unsigned_cases!(u8);
    unsigned_cases!(u16);
    unsigned_cases!(u32);
    unsigned_cases!(u64);
}

#[test]
fn integer_wrap_examples() {
    check_binary(BinaryOp::Add, vec1(&[127i8]), vec1(&[1i8]), vec1(&[-128i8]));
    check_binary(BinaryOp::Sub, vec1(&[0u8]), vec1(&[1u8]), vec1(&[255u8]));
}

// ---------------------------------------------------------------------------
// Floats
// ---------------------------------------------------------------------------

macro_rules! float_cases {
    ($t:ident) => {{
        const INF: $t = $t::INFINITY;
        const NAN: $t = $t::NAN;
        let bin =
            |op, x: &[$t], y: &[$t], want: &[$t]| check_binary(op, vec1(x), vec1(y), vec1(want));
        bin(
            BinaryOp::Add,
            &[1., INF, INF, -0., -0.],
            &[2., -INF, 1., 0., -0.],
            &[3., NAN, INF, 0., -0.],
        );
        bin(
            BinaryOp::Sub,
            &[1., 0., INF],
            &[3., 0., INF],
            &[-2., 0., NAN],
        );
        bin(
            BinaryOp::Mul,
            &[1.5, -0., INF],
            &[2., 3., 0.],
            &[3., -0., NAN],
        );
        bin(
            BinaryOp::Div,
            &[1., -1., 0., 1., 1.],
            &[0., 0., 0., INF, -0.],
            &[INF, -INF, NAN, 0., -INF],
        );
        // NaN wins; -0 < +0.
        bin(
            BinaryOp::Max,
            &[NAN, 1., -0., 0., 1., -INF, 3.],
            &[1., NAN, 0., -0., 2., INF, -0.],
            &[NAN, NAN, 0., 0., 2., INF, 3.],
        );
        bin(
            BinaryOp::Min,
            &[NAN, 1., -0., 0., 1., -INF, 3.],
            &[1., NAN, 0., -0., 2., INF, -0.],
            &[NAN, NAN, -0., -0., 1., -INF, -0.],
        );
        bin(
            BinaryOp::Rem,
            &[5.5, -5.5, 1., INF, 1.],
            &[2., 2., 0., 1., INF],
            &[1.5, -1.5, NAN, NAN, 1.],
        );
        bin(
            BinaryOp::Pow,
            &[2., 0., 1., NAN, 4., -8.],
            &[10., 0., NAN, 0., 0.5, 0.5],
            &[1024., 1., 1., 1., 2., NAN],
        );
        let (ys, xs): ([$t; 4], [$t; 4]) = ([1., 1., -0., 0.], [0., -1., 1., -1.]);
        let want: Vec<$t> = ys.iter().zip(&xs).map(|(y, x)| y.atan2(*x)).collect();
        bin(BinaryOp::Atan2, &ys, &xs, &want);
        check_compares(
            &vec1(&[NAN, 1., -0., INF]),
            &vec1(&[NAN, NAN, 0., INF]),
            [
                &[false, false, true, true],
                &[true, true, false, false],
                &[false, false, false, false],
                &[false, false, true, true],
                &[false, false, false, false],
                &[false, false, true, true],
            ],
        );

        let xs: [$t; 8] = [-1.5, -0., 0.5, 2.5, INF, -INF, NAN, 4.];
        let un = |op, want: &[$t]| check_unary(op, vec1(&xs), vec1(want));
        un(UnaryOp::Neg, &[1.5, 0., -0.5, -2.5, -INF, INF, NAN, -4.]);
        un(UnaryOp::Abs, &[1.5, 0., 0.5, 2.5, INF, INF, NAN, 4.]);
        un(UnaryOp::Sign, &[-1., -0., 1., 1., 1., -1., NAN, 1.]);
        un(UnaryOp::Floor, &[-2., -0., 0., 2., INF, -INF, NAN, 4.]);
        un(UnaryOp::Ceil, &[-1., -0., 1., 3., INF, -INF, NAN, 4.]);
        un(
            UnaryOp::RoundNearestEven,
            &[-2., -0., 0., 2., INF, -INF, NAN, 4.],
        );
        check_unary(
            UnaryOp::IsFinite,
            vec1(&xs),
            vec1(&[true, true, true, true, false, false, false, true]),
        );
        // The transcendental functions are Rust's, in the element type.
        let with = |f: fn($t) -> $t| -> Vec<$t> { xs.iter().map(|&x| f(x)).collect() };
        un(UnaryOp::Exp, &with($t::exp));
        un(UnaryOp::Expm1, &with($t::exp_m1));
        un(UnaryOp::Log, &with($t::ln));
        un(UnaryOp::Log1p, &with($t::ln_1p));
        un(UnaryOp::Sqrt, &with($t::sqrt));
        un(UnaryOp::Rsqrt, &with(|x| 1. / x.sqrt()));
        un(UnaryOp::Tanh, &with($t::tanh));
        un(UnaryOp::Logistic, &with(|x| 1. / (1. + (-x).exp())));
        un(UnaryOp::Sin, &with($t::sin));
        un(UnaryOp::Cos, &with($t::cos));
        // Spot values, independent of the formulas above.
        check_unary(UnaryOp::Rsqrt, vec1(&[4 as $t, -0.]), vec1(&[0.5, -INF]));
        check_unary(UnaryOp::Sqrt, vec1(&[-(0 as $t), -1.]), vec1(&[-0., NAN]));
        check_unary(
            UnaryOp::Logistic,
            vec1(&[0 as $t, INF, -INF]),
            vec1::<$t>(&[0.5, 1., 0.]),
        );
        check_unary(
            UnaryOp::Log,
            vec1(&[1 as $t, 0., -1.]),
            vec1(&[0., -INF, NAN]),
        );
    }};
}

#[test]
fn floats_f32() {
    float_cases!(f32);
}

#[test]
fn floats_f64() {
    float_cases!(f64);
}

#[test]
fn round_nearest_even_ties() {
    check_unary(
        UnaryOp::RoundNearestEven,
        vec1(&[0.5f32, 1.5, 2.5, -0.5, -2.5, 2.4999998]),
        vec1(&[0f32, 2., 2., -0., -2., 2.]),
    );
}

// ---------------------------------------------------------------------------
// pred
// ---------------------------------------------------------------------------

#[test]
fn pred_ops() {
    let x = vec1(&[false, false, true, true]);
    let y = vec1(&[false, true, false, true]);
    let and = vec1(&[false, false, false, true]);
    let or = vec1(&[false, true, true, true]);
    check_binary(BinaryOp::And, x.clone(), y.clone(), and.clone());
    check_binary(BinaryOp::Or, x.clone(), y.clone(), or.clone());
    check_binary(
        BinaryOp::Xor,
        x.clone(),
        y.clone(),
        vec1(&[false, true, true, false]),
    );
    check_binary(BinaryOp::Add, x.clone(), y.clone(), or.clone());
    check_binary(BinaryOp::Max, x.clone(), y.clone(), or);
    check_binary(BinaryOp::Mul, x.clone(), y.clone(), and.clone());
    check_binary(BinaryOp::Min, x.clone(), y.clone(), and);
    check_unary(UnaryOp::Not, x.clone(), vec1(&[true, true, false, false]));
    check_compares(
        &x,
        &y,
        [
            &[true, false, false, true],
            &[false, true, true, false],
            &[false, true, false, false],
            &[true, true, false, true],
            &[false, false, true, false],
            &[true, false, true, true],
        ],
    );
    // pred and a pred matrix broadcast like any type.
    let m = lit(&[2, 2], vec![true, false, true, true]);
    let v = vec1(&[true, false]);
    check(
        &[&m, &v],
        |b, p| b.and(p[0], p[1], &[1]),
        lit(&[2, 2], vec![true, false, true, false]),
    );
}

// ---------------------------------------------------------------------------
// convert
// ---------------------------------------------------------------------------

#[track_caller]
fn check_convert(x: Literal, to: ElementType, expected: Literal) {
    check(&[&x], |b, p| b.convert(p[0], to), expected);
}

#[test]
fn convert_float_to_int_truncates_and_saturates() {
    let x = vec1(&[f32::NAN, 1e10, -1e10, -1.5, 1.5, 2.9, -0., f32::INFINITY]);
    check_convert(
        x.clone(),
        ElementType::S32,
        vec1(&[0i32, i32::MAX, i32::MIN, -1, 1, 2, 0, i32::MAX]),
    );
    check_convert(
        x,
        ElementType::S64,
        vec1(&[0i64, 10_000_000_000, -10_000_000_000, -1, 1, 2, 0, i64::MAX]),
    );
    check_convert(
        vec1(&[300f32, -5., 255.9, f32::NAN]),
        ElementType::U8,
        vec1(&[255u8, 0, 255, 0]),
    );
    check_convert(
        vec1(&[-129.5f64, 1e300, 65535.5]),
        ElementType::S8,
        vec1(&[-128i8, 127, 127]),
    );
    check_convert(
        vec1(&[-1f64, 1.8446744073709552e19, 4e9]),
        ElementType::U64,
        vec1(&[0u64, u64::MAX, 4_000_000_000]),
    );
}

#[test]
fn convert_between_integers_wraps() {
    check_convert(
        vec1(&[300i32, -1, 128]),
        ElementType::U8,
        vec1(&[44u8, 255, 128]),
    );
    check_convert(
        vec1(&[300i32, -1, 128]),
        ElementType::S8,
        vec1(&[44i8, -1, -128]),
    );
    check_convert(vec1(&[-1i8]), ElementType::U64, vec1(&[u64::MAX]));
    check_convert(vec1(&[u64::MAX]), ElementType::S64, vec1(&[-1i64]));
    check_convert(
        vec1(&[u32::MAX]),
        ElementType::S64,
        vec1(&[u32::MAX as i64]),
    );
}

#[test]
fn convert_to_and_from_floats_rounds() {
    check_convert(
        vec1(&[16_777_217i32]),
        ElementType::F32,
        vec1(&[16_777_216f32]),
    );
    check_convert(
        vec1(&[u64::MAX]),
        ElementType::F32,
        vec1(&[1.8446744e19f32]),
    );
    check_convert(
        vec1(&[(1i64 << 53) + 1, i64::MIN]),
        ElementType::F64,
        vec1(&[(1i64 << 53) as f64, -9.223372036854776e18]),
    );
    check_convert(
        vec1(&[0.1f64, 1e300, -1e-300]),
        ElementType::F32,
        vec1(&[0.1f32, f32::INFINITY, -0.]),
    );
    check_convert(
        vec1(&[0.1f32, -0.]),
        ElementType::F64,
        vec1(&[0.1f32 as f64, -0.]),
    );
}

#[test]
fn convert_pred() {
    check_convert(vec1(&[true, false]), ElementType::S32, vec1(&[1i32, 0]));
    check_convert(vec1(&[true, false]), ElementType::F64, vec1(&[1f64, 0.]));
    check_convert(
        vec1(&[0f32, -0., f32::NAN, 2., 0.5]),
        ElementType::Pred,
        vec1(&[false, false, true, true, true]),
    );
    check_convert(
        vec1(&[0u8, 2, 255]),
        ElementType::Pred,
        vec1(&[false, true, true]),
    );
}

#[test]
fn convert_every_pair_of_types() {
    // 0, 1 and 2 of every type convert to 0, 1 and 2 of every type (true
    // for non-zero pred).
    for &from in &ElementType::ALL {
        for &to in &ElementType::ALL {
            let comp = build(&[], |b, _| {
                let x = b.iota(Shape::new(ElementType::S32, &[3]), 0)?;
                let x = b.convert(x, from)?;
                b.convert(x, to)
            });
            let got = evaluate(&comp, &[]).unwrap();
            let from_pred = from == ElementType::Pred;
            let expected = |v: i64| -> i64 {
                if from_pred || to == ElementType::Pred {
                    (v != 0) as i64
                } else {
                    v
                }
            };
            let want = oxla_ir::ArrayData::zeros(to, 3).unwrap();
            let want = match want {
                ArrayData::Pred(_) => ArrayData::Pred((0..3).map(|v| expected(v) != 0).collect()),
                ArrayData::S8(_) => ArrayData::S8((0..3).map(|v| expected(v) as i8).collect()),
                ArrayData::S16(_) => ArrayData::S16((0..3).map(|v| expected(v) as i16).collect()),
                ArrayData::S32(_) => ArrayData::S32((0..3).map(|v| expected(v) as i32).collect()),
                ArrayData::S64(_) => ArrayData::S64((0..3).map(expected).collect()),
                ArrayData::U8(_) => ArrayData::U8((0..3).map(|v| expected(v) as u8).collect()),
                ArrayData::U16(_) => ArrayData::U16((0..3).map(|v| expected(v) as u16).collect()),
                ArrayData::U32(_) => ArrayData::U32((0..3).map(|v| expected(v) as u32).collect()),
                ArrayData::U64(_) => ArrayData::U64((0..3).map(|v| expected(v) as u64).collect()),
                ArrayData::F32(_) => ArrayData::F32((0..3).map(|v| expected(v) as f32).collect()),
                ArrayData::F64(_) => ArrayData::F64((0..3).map(|v| expected(v) as f64).collect()),
            };
            let want = Literal::from_array_data(&[3], want).unwrap();
            assert!(same(&got, &want), "{from} -> {to}: got {got}, want {want}");
        }
    }
}

// ---------------------------------------------------------------------------
// select, clamp
// ---------------------------------------------------------------------------

#[test]
fn select_broadcasts_scalars() {
    let t = vec1(&[1i32, 2, 3]);
    let f = vec1(&[10i32, 20, 30]);
    let p = vec1(&[true, false, true]);
    check(
        &[&p, &t, &f],
        |b, x| b.select(x[0], x[1], x[2]),
        vec1(&[1i32, 20, 3]),
    );
    for (pred, want) in [(true, [1i32, 2, 3]), (false, [10, 20, 30])] {
        let s = Literal::scalar(pred);
        check(
            &[&s, &t, &f],
            |b, x| b.select(x[0], x[1], x[2]),
            vec1(&want),
        );
    }
    let zero = Literal::scalar(0f32);
    let xs = vec1(&[-1f32, 2., -3.]);
    // relu: select(x > 0, x, 0)
    check(
        &[&xs, &zero],
        |b, x| {
            let positive = b.gt(x[0], x[1], &[])?;
            b.select(positive, x[0], x[1])
        },
        vec1(&[0f32, 2., 0.]),
    );
}

#[test]
fn clamp_with_scalar_and_array_bounds() {
    let lo = Literal::scalar(0f32);
    let hi = Literal::scalar(1f32);
    let x = vec1(&[-1f32, 0.5, 2., f32::NAN, -0.]);
    check(
        &[&lo, &x, &hi],
        |b, p| b.clamp(p[0], p[1], p[2]),
        vec1(&[0f32, 0.5, 1., f32::NAN, 0.]),
    );
    let los = vec1(&[0i32, 5, -3]);
    let his = Literal::scalar(4i32);
    let xi = vec1(&[-7i32, 7, 2]);
    // The bounds are applied as max then min: lo 5 > hi 4 gives hi.
    check(
        &[&los, &xi, &his],
        |b, p| b.clamp(p[0], p[1], p[2]),
        vec1(&[0i32, 4, 2]),
    );
    let nan_lo = Literal::scalar(f32::NAN);
    check(
        &[&nan_lo, &vec1(&[1f32]), &hi],
        |b, p| b.clamp(p[0], p[1], p[2]),
        vec1(&[f32::NAN]),
    );
    check(
        &[
            &Literal::scalar(3u8),
            &vec1(&[0u8, 9, 200]),
            &Literal::scalar(100u8),
        ],
        |b, p| b.clamp(p[0], p[1], p[2]),
        vec1(&[3u8, 9, 100]),
    );
}

// ---------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------

#[test]
fn iota_counts_along_a_dimension() {
    check(
        &[],
        |b, _| b.iota(Shape::new(ElementType::S32, &[2, 3]), 0),
        lit(&[2, 3], vec![0i32, 0, 0, 1, 1, 1]),
    );
    check(
        &[],
        |b, _| b.iota(Shape::new(ElementType::F64, &[2, 3]), 1),
        lit(&[2, 3], vec![0f64, 1., 2., 0., 1., 2.]),
    );
    // Indices convert like `convert`: u8 wraps past 255.
    let out = eval(&[], |b, _| b.iota(Shape::new(ElementType::U8, &[300]), 0));
    let v = out.as_slice::<u8>().unwrap();
    assert_eq!((v[0], v[255], v[256], v[299]), (0, 255, 0, 43));
    check(
        &[],
        |b, _| b.iota(Shape::new(ElementType::F32, &[0, 4]), 1),
        lit::<f32>(&[0, 4], vec![]),
    );
}

#[test]
fn broadcast_ops() {
    let v = vec1(&[1i32, 2, 3]);
    check(
        &[&v],
        |b, p| b.broadcast(p[0], &[2]),
        lit(&[2, 3], vec![1, 2, 3, 1, 2, 3]),
    );
    check(
        &[&v],
        |b, p| b.broadcast_in_dim(p[0], &[3, 2], &[0]),
        lit(&[3, 2], vec![1, 1, 2, 2, 3, 3]),
    );
    let row = lit(&[1, 3], vec![1i32, 2, 3]);
    check(
        &[&row],
        |b, p| b.broadcast_in_dim(p[0], &[2, 3], &[0, 1]),
        lit(&[2, 3], vec![1, 2, 3, 1, 2, 3]),
    );
    check(
        &[&row],
        |b, p| b.broadcast_in_dim(p[0], &[2, 4, 3], &[1, 2]),
        tabulate(&[2, 4, 3], |i| i[2] as i32 + 1),
    );
    check(
        &[&Literal::scalar(7u16)],
        |b, p| b.broadcast(p[0], &[2, 2]),
        lit(&[2, 2], vec![7u16; 4]),
    );
}

#[test]
fn reshape_transpose_reverse() {
    let m = lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    check(
        &[&m],
        |b, p| b.reshape(p[0], &[3, 2]),
        lit(&[3, 2], vec![1, 2, 3, 4, 5, 6]),
    );
    check(
        &[&lit(&[1, 1], vec![5i64])],
        |b, p| b.reshape(p[0], &[]),
        Literal::scalar(5i64),
    );
    check(
        &[&m],
        |b, p| b.transpose(p[0], &[1, 0]),
        lit(&[3, 2], vec![1, 4, 2, 5, 3, 6]),
    );
    let x = counting(&[2, 3, 4]);
    check(
        &[&x],
        |b, p| b.transpose(p[0], &[2, 0, 1]),
        tabulate(&[4, 2, 3], |i| (i[1] * 12 + i[2] * 4 + i[0]) as f32),
    );
    check(
        &[&m],
        |b, p| b.reverse(p[0], &[0]),
        lit(&[2, 3], vec![4, 5, 6, 1, 2, 3]),
    );
    check(
        &[&m],
        |b, p| b.reverse(p[0], &[1]),
        lit(&[2, 3], vec![3, 2, 1, 6, 5, 4]),
    );
    check(
        &[&m],
        |b, p| b.reverse(p[0], &[0, 1]),
        lit(&[2, 3], vec![6, 5, 4, 3, 2, 1]),
    );
    check(
        &[&lit::<i32>(&[0, 2], vec![])],
        |b, p| b.reverse(p[0], &[0, 1]),
        lit::<i32>(&[0, 2], vec![]),
    );
}

#[test]
fn slices_with_strides() {
    let v = vec1(&(0..10).collect::<Vec<i32>>());
    check(
        &[&v],
        |b, p| b.slice(p[0], &[1], &[8], &[3]),
        vec1(&[1i32, 4, 7]),
    );
    check(
        &[&v],
        |b, p| b.slice(p[0], &[4], &[4], &[1]),
        lit::<i32>(&[0], vec![]),
    );
    // A stride larger than the dimension takes the first element only (and
    // step * row length overflows i64 here).
    check(
        &[&lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])],
        |b, p| b.slice(p[0], &[1, 0], &[2, 3], &[1 << 62, 2]),
        lit(&[1, 2], vec![4i32, 6]),
    );
    let m = counting(&[4, 5]);
    check(
        &[&m],
        |b, p| b.slice(p[0], &[1, 0], &[4, 5], &[2, 2]),
        lit(&[2, 3], vec![5f32, 7., 9., 15., 17., 19.]),
    );
}

#[test]
fn concatenate_along_each_dimension() {
    let a = lit(&[2, 2], vec![1i32, 2, 3, 4]);
    let c = lit(&[1, 2], vec![5i32, 6]);
    let e = lit::<i32>(&[0, 2], vec![]);
    check(
        &[&a, &e, &c],
        |b, p| b.concatenate(p, 0),
        lit(&[3, 2], vec![1, 2, 3, 4, 5, 6]),
    );
    let d = lit(&[2, 1], vec![7i32, 8]);
    check(
        &[&a, &d, &a],
        |b, p| b.concatenate(p, 1),
        lit(&[2, 5], vec![1, 2, 7, 1, 2, 3, 4, 8, 3, 4]),
    );
}

#[test]
fn pad_edges_interior_and_negative() {
    let v = vec1(&[1i32, 2, 3]);
    let zero = Literal::scalar(0i32);
    let pd = |lo, hi, interior| PadDim { lo, hi, interior };
    check(
        &[&v, &zero],
        |b, p| b.pad(p[0], p[1], &[pd(1, 2, 1)]),
        vec1(&[0i32, 1, 0, 2, 0, 3, 0, 0]),
    );
    // Interior padding first, then negative edges crop: [1,0,2,0,3] -> [0,2,0].
    check(
        &[&v, &zero],
        |b, p| b.pad(p[0], p[1], &[pd(-1, -1, 1)]),
        vec1(&[0i32, 2, 0]),
    );
    check(
        &[&v, &zero],
        |b, p| b.pad(p[0], p[1], &[pd(-2, 1, 0)]),
        vec1(&[3i32, 0]),
    );
    let m = lit(&[2, 2], vec![1f32, 2., 3., 4.]);
    let nine = Literal::scalar(9f32);
    check(
        &[&m, &nine],
        |b, p| b.pad(p[0], p[1], &[pd(1, 0, 0), pd(0, -1, 2)]),
        lit(&[3, 3], vec![9f32, 9., 9., 1., 9., 9., 3., 9., 9.]),
    );
    check(
        &[&lit::<i32>(&[0], vec![]), &zero],
        |b, p| b.pad(p[0], p[1], &[pd(2, 1, 5)]),
        vec1(&[0i32, 0, 0]),
    );
    // Interior padding of a single element adds nothing, however large.
    check(
        &[&vec1(&[5i32]), &zero],
        |b, p| b.pad(p[0], p[1], &[pd(1, 0, i64::MAX)]),
        vec1(&[0i32, 5]),
    );
}

#[test]
fn data_movement_works_for_every_element_type() {
    // For each type T: moving convert(x) equals converting moved x.
    let x = lit(&[2, 3], vec![0i32, 1, 2, 3, 4, 5]);
    for &ty in &ElementType::ALL {
        let chain = |b: &mut Builder, x: Op| -> Result<Op> {
            let t = b.transpose(x, &[1, 0])?;
            let r = b.reverse(t, &[0])?;
            let s = b.slice(r, &[0, 0], &[3, 2], &[2, 1])?;
            let c = b.concatenate(&[s, s], 1)?;
            let pv = b.reshape(x, &[6])?;
            let pv = b.slice(pv, &[1], &[2], &[1])?;
            let pv = b.reshape(pv, &[])?;
            let p = b.pad(
                c,
                pv,
                &[PadDim {
                    lo: 1,
                    hi: 0,
                    interior: 1,
                }; 2],
            )?;
            let bc = b.broadcast(p, &[2])?;
            let first = b.slice(bc, &[0, 0, 0], &[1, 4, 8], &[1, 1, 1])?;
            let keep = b.iota(Shape::new(ElementType::S32, &[1, 4, 8]), 2)?;
            let two = b.constant_scalar(2i32)?;
            let keep = b.rem(keep, two, &[])?;
            let zero = b.constant_scalar(0i32)?;
            let keep = b.eq(keep, zero, &[])?;
            let flipped = b.reverse(first, &[2])?;
            b.select(keep, first, flipped)
        };
        let moved_then_converted = eval(&[&x], |b, p| {
            let m = chain(b, p[0])?;
            b.convert(m, ty)
        });
        let converted_then_moved = eval(&[&x], |b, p| {
            let c = b.convert(p[0], ty)?;
            chain(b, c)
        });
        assert!(
            same(&moved_then_converted, &converted_then_moved),
            "{ty}: {moved_then_converted} vs {converted_then_moved}"
        );
    }
}

// ---------------------------------------------------------------------------
// reduce
// ---------------------------------------------------------------------------

#[test]
fn reduce_sum_and_max() {
    let m = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let zero = Literal::scalar(0f32);
    let ten = Literal::scalar(10f32);
    let add = sum(ElementType::F32);
    check(
        &[&m, &zero],
        |b, p| b.reduce(p[0], p[1], &[1], &add),
        vec1(&[6f32, 15.]),
    );
    check(
        &[&m, &zero],
        |b, p| b.reduce(p[0], p[1], &[0], &add),
        vec1(&[5f32, 7., 9.]),
    );
    check(
        &[&m, &ten],
        |b, p| b.reduce(p[0], p[1], &[0, 1], &add),
        Literal::scalar(31f32),
    );
    // No dimensions: each element is reducer(init, x).
    check(
        &[&m, &ten],
        |b, p| b.reduce(p[0], p[1], &[], &add),
        lit(&[2, 3], vec![11f32, 12., 13., 14., 15., 16.]),
    );
    let mx = max(ElementType::F32);
    let neg_inf = Literal::scalar(f32::NEG_INFINITY);
    check(
        &[&m, &neg_inf],
        |b, p| b.reduce(p[0], p[1], &[1], &mx),
        vec1(&[3f32, 6.]),
    );
    // The init takes part: max with init 4.5.
    check(
        &[&m, &Literal::scalar(4.5f32)],
        |b, p| b.reduce(p[0], p[1], &[1], &mx),
        vec1(&[4.5f32, 6.]),
    );
    // An empty reduced dimension gives the init.
    check(
        &[&lit::<f32>(&[2, 0], vec![]), &ten],
        |b, p| b.reduce(p[0], p[1], &[1], &add),
        vec1(&[10f32, 10.]),
    );
    // Integer sums wrap.
    check(
        &[&vec1(&[100i8, 100, 100]), &Literal::scalar(0i8)],
        |b, p| b.reduce(p[0], p[1], &[0], &sum(ElementType::S8)),
        Literal::scalar(44i8),
    );
    // A comparison as the reducer (pred only): acc = (acc == x).
    let same_as = reducer("same_as", ElementType::Pred, |b, a, x| b.eq(a, x, &[]));
    check(
        &[&vec1(&[true, false, false, true]), &Literal::scalar(true)],
        |b, p| b.reduce(p[0], p[1], &[0], &same_as),
        Literal::scalar(true),
    );
    // pred: or-reduction through `max`.
    check(
        &[
            &lit(&[2, 2], vec![false, false, true, false]),
            &Literal::scalar(false),
        ],
        |b, p| b.reduce(p[0], p[1], &[1], &max(ElementType::Pred)),
        vec1(&[false, true]),
    );
}

#[test]
fn reduce_folds_in_increasing_index_order() {
    // acc * 10 + x shows the order: row-major over the reduced dims, from init.
    let digits = reducer("digits", ElementType::S64, |b, acc, x| {
        let ten = b.constant_scalar(10i64)?;
        let shifted = b.mul(acc, ten, &[])?;
        b.add(shifted, x, &[])
    });
    let x = lit(&[2, 3, 2], (1..=12).map(|v| v % 10).collect::<Vec<i64>>());
    let init = Literal::scalar(7i64);
    check(
        &[&x, &init],
        |b, p| b.reduce(p[0], p[1], &[0, 2], &digits),
        vec1(&[71278i64, 73490, 75612]),
    );
    // The order the dimensions are listed in does not matter.
    check(
        &[&x, &init],
        |b, p| b.reduce(p[0], p[1], &[2, 0], &digits),
        vec1(&[71278i64, 73490, 75612]),
    );
    // A reducer may use its parameters in either order: acc = x - acc.
    let flipped = reducer("flipped", ElementType::S32, |b, a, x| b.sub(x, a, &[]));
    check(
        &[&vec1(&[1i32, 2, 3]), &Literal::scalar(10i32)],
        |b, p| b.reduce(p[0], p[1], &[0], &flipped),
        Literal::scalar(-8i32),
    );
    // The same fold through a reducer body of several instructions.
    let flipped_long = reducer("flipped_long", ElementType::S32, |b, a, x| {
        let d = b.sub(x, a, &[])?;
        let zero = b.constant_scalar(0i32)?;
        b.add(d, zero, &[])
    });
    check(
        &[&vec1(&[1i32, 2, 3]), &Literal::scalar(10i32)],
        |b, p| b.reduce(p[0], p[1], &[0], &flipped_long),
        Literal::scalar(-8i32),
    );
    // Non-commutative float reducer: acc - x from the init.
    let minus = reducer("minus", ElementType::F64, |b, a, x| b.sub(a, x, &[]));
    check(
        &[&vec1(&[1f64, 2., 3.]), &Literal::scalar(10f64)],
        |b, p| b.reduce(p[0], p[1], &[0], &minus),
        Literal::scalar(4f64),
    );
}

#[test]
fn reduce_with_a_reducer_that_reduces() {
    // The reducer broadcasts x to [3] and sums it with an inner reducer:
    // acc + 3x.
    let inner = sum(ElementType::S32);
    let outer = reducer("triple_sum", ElementType::S32, |b, acc, x| {
        let xs = b.broadcast(x, &[3])?;
        let zero = b.constant_scalar(0i32)?;
        let three_x = b.reduce(xs, zero, &[0], &inner)?;
        b.add(acc, three_x, &[])
    });
    check(
        &[&vec1(&[1i32, 2, 3]), &Literal::scalar(1i32)],
        |b, p| b.reduce(p[0], p[1], &[0], &outer),
        Literal::scalar(19i32),
    );
}

#[test]
fn reduce_every_numeric_type() {
    let x = lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    for &ty in ElementType::ALL.iter().filter(|t| t.is_arithmetic()) {
        let got = eval(&[&x], |b, p| {
            let xt = b.convert(p[0], ty)?;
            let zero = b.constant_scalar(0i32)?;
            let zero = b.convert(zero, ty)?;
            let r = b.reduce(xt, zero, &[1], &sum(ty))?;
            b.convert(r, ElementType::S32)
        });
        assert!(same(&got, &vec1(&[6i32, 15])), "{ty}: {got}");
    }
}

// ---------------------------------------------------------------------------
// dot
// ---------------------------------------------------------------------------

/// The expected `dot_general` for f32, written out: zero, then products
/// added in increasing contracting index.
fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0f32;
            for l in 0..k {
                acc += a[i * k + l] * b[l * n + j];
            }
            out.push(acc);
        }
    }
    out
}

#[test]
fn dot_matrix_matrix_and_vector() {
    let a = lit(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let c = lit(&[3, 2], vec![7f32, 8., 9., 10., 11., 12.]);
    check(
        &[&a, &c],
        |b, p| b.dot(p[0], p[1]),
        lit(&[2, 2], vec![58f32, 64., 139., 154.]),
    );
    let v = vec1(&[1f32, 0., -1.]);
    check(&[&a, &v], |b, p| b.dot(p[0], p[1]), vec1(&[-2f32, -2.]));
    check(&[&v, &v], |b, p| b.dot(p[0], p[1]), Literal::scalar(2f32));
    // Values whose sum depends on the order of additions.
    let xs: Vec<f32> = (0..24)
        .map(|i| (i as f32 * 0.37).sin() * 1e3f32.powi(i % 3))
        .collect();
    let ys: Vec<f32> = (0..24).map(|i| (i as f32 * 1.3).cos()).collect();
    check(
        &[&lit(&[4, 6], xs.clone()), &lit(&[6, 4], ys.clone())],
        |b, p| b.dot(p[0], p[1]),
        lit(&[4, 4], matmul(&xs, &ys, 4, 6, 4)),
    );
}

#[test]
fn dot_sums_start_from_zero_and_wrap() {
    // 0 + (-0 * 1) = +0: the sum starts from +0, not from the first product.
    check(
        &[&vec1(&[-0f32]), &vec1(&[1f32])],
        |b, p| b.dot(p[0], p[1]),
        Literal::scalar(0f32),
    );
    check(
        &[&vec1(&[100i8, 100]), &vec1(&[2i8, 2])],
        |b, p| b.dot(p[0], p[1]),
        Literal::scalar(-112i8),
    );
    check(
        &[&vec1(&[u32::MAX, 2]), &vec1(&[2u32, 1])],
        |b, p| b.dot(p[0], p[1]),
        Literal::scalar(0u32),
    );
    // An empty contraction gives zeros.
    check(
        &[&lit::<f64>(&[2, 0], vec![]), &lit::<f64>(&[0, 3], vec![])],
        |b, p| b.dot(p[0], p[1]),
        lit(&[2, 3], vec![0f64; 6]),
    );
}

#[test]
fn dot_general_batched_and_transposed() {
    // [2,2,3] x [2,3,2], batch {0}, contracting lhs {2} rhs {1}.
    let xs: Vec<f32> = (0..12).map(|v| v as f32 - 5.5).collect();
    let ys: Vec<f32> = (0..12).map(|v| (v * v) as f32 * 0.25).collect();
    let dims = DotDimensionNumbers {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    let mut want = matmul(&xs[..6], &ys[..6], 2, 3, 2);
    want.extend(matmul(&xs[6..], &ys[6..], 2, 3, 2));
    check(
        &[&lit(&[2, 2, 3], xs.clone()), &lit(&[2, 3, 2], ys.clone())],
        |b, p| b.dot_general(p[0], p[1], &dims),
        lit(&[2, 2, 2], want),
    );
    // lhs contracted on dimension 0 (lhs^T * rhs): [3,2]^T x [3,2] -> [2,2].
    let a = lit(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]);
    let dims = DotDimensionNumbers {
        lhs_contracting: vec![0],
        rhs_contracting: vec![0],
        ..Default::default()
    };
    check(
        &[&a, &a],
        |b, p| b.dot_general(p[0], p[1], &dims),
        lit(&[2, 2], vec![35i32, 44, 44, 56]),
    );
    // Two contracting dimensions: a full inner product of [2,3] matrices;
    // and no contracting dimension: an outer product.
    let m = lit(&[2, 3], vec![1i64, 2, 3, 4, 5, 6]);
    let dims = DotDimensionNumbers {
        lhs_contracting: vec![0, 1],
        rhs_contracting: vec![0, 1],
        ..Default::default()
    };
    check(
        &[&m, &m],
        |b, p| b.dot_general(p[0], p[1], &dims),
        Literal::scalar(91i64),
    );
    let v = vec1(&[1u16, 2]);
    let w = vec1(&[3u16, 4, 5]);
    check(
        &[&v, &w],
        |b, p| b.dot_general(p[0], p[1], &DotDimensionNumbers::default()),
        lit(&[2, 3], vec![3u16, 4, 5, 6, 8, 10]),
    );
    // Batch dimensions that are not leading: lhs [3,2] batch {1}, rhs [2,3] batch {0}.
    let l = lit(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]);
    let r = lit(&[2, 3], vec![1i32, 1, 1, 2, 2, 2]);
    let dims = DotDimensionNumbers {
        lhs_batch: vec![1],
        rhs_batch: vec![0],
        lhs_contracting: vec![0],
        rhs_contracting: vec![1],
    };
    check(
        &[&l, &r],
        |b, p| b.dot_general(p[0], p[1], &dims),
        vec1(&[9i32, 24]),
    );
}

// ---------------------------------------------------------------------------
// Composites from primitives
// ---------------------------------------------------------------------------

/// The XLA `maximum` of two non-NaN floats.
fn fmax(a: f32, b: f32) -> f32 {
    if b > a { b } else { a }
}

#[test]
fn softmax_from_primitives() {
    let (rows, cols) = (3usize, 5usize);
    let xs: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7 % 11) as f32 - 5.0) * 0.731)
        .collect();
    let mut want = Vec::new();
    for r in 0..rows {
        let row = &xs[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| fmax(a, b));
        let e: Vec<f32> = row.iter().map(|&x| (x - m).exp()).collect();
        let s = e.iter().fold(0f32, |a, &b| a + b);
        want.extend(e.iter().map(|&v| v / s));
    }
    let x = lit(&[rows as i64, cols as i64], xs);
    let (add, mx) = (sum(ElementType::F32), max(ElementType::F32));
    check(
        &[&x],
        |b, p| {
            let neg_inf = b.constant_scalar(f32::NEG_INFINITY)?;
            let zero = b.constant_scalar(0f32)?;
            let m = b.reduce(p[0], neg_inf, &[1], &mx)?;
            let shifted = b.sub(p[0], m, &[0])?;
            let e = b.exp(shifted)?;
            let s = b.reduce(e, zero, &[1], &add)?;
            b.div(e, s, &[0])
        },
        lit(&[rows as i64, cols as i64], want),
    );
}

#[test]
fn layer_norm_from_primitives() {
    let (rows, cols) = (2usize, 6usize);
    let eps = 1e-5f32;
    let xs: Vec<f32> = (0..rows * cols)
        .map(|i| (i as f32 * 1.7).sin() * 3.0)
        .collect();
    let mut want = Vec::new();
    for r in 0..rows {
        let row = &xs[r * cols..(r + 1) * cols];
        let mean = row.iter().fold(0f32, |a, &b| a + b) / cols as f32;
        let c: Vec<f32> = row.iter().map(|&x| x - mean).collect();
        let var = c.iter().fold(0f32, |a, &b| a + b * b) / cols as f32;
        let scale = 1.0 / (var + eps).sqrt();
        want.extend(c.iter().map(|&v| v * scale));
    }
    let x = lit(&[rows as i64, cols as i64], xs);
    let add = sum(ElementType::F32);
    check(
        &[&x],
        |b, p| {
            let zero = b.constant_scalar(0f32)?;
            let n = b.constant_scalar(cols as f32)?;
            let eps = b.constant_scalar(eps)?;
            let total = b.reduce(p[0], zero, &[1], &add)?;
            let mean = b.div(total, n, &[])?;
            let c = b.sub(p[0], mean, &[0])?;
            let sq = b.mul(c, c, &[])?;
            let ss = b.reduce(sq, zero, &[1], &add)?;
            let var = b.div(ss, n, &[])?;
            let ve = b.add(var, eps, &[])?;
            let scale = b.rsqrt(ve)?;
            b.mul(c, scale, &[0])
        },
        lit(&[rows as i64, cols as i64], want),
    );
}

// ---------------------------------------------------------------------------
// Tuples, constants, arguments and errors
// ---------------------------------------------------------------------------

#[test]
fn tuple_roots_and_constants() {
    let x = vec1(&[1f32, 2.]);
    check(
        &[&x],
        |b, p| {
            let two = b.constant(vec1(&[2f32, 3.]))?;
            let y = b.mul(p[0], two, &[])?;
            let n = b.constant_scalar(7u8)?;
            let inner = b.tuple(&[n])?;
            b.tuple(&[y, p[0], inner])
        },
        Literal::tuple(vec![
            vec1(&[2f32, 6.]),
            vec1(&[1f32, 2.]),
            Literal::tuple(vec![Literal::scalar(7u8)]),
        ]),
    );
    // A parameter as the root comes back unchanged.
    check(&[&x], |_, p| Ok(p[0]), x.clone());
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
