//! XLA's broadcasting text (`shared/spec/xla-broadcasting.md`), every
//! example, as tests; plus the examples and error cases of XLA's shape
//! inference (`shared/reference/xla-rules.md`, section (b)).
//!
//! Every case is data behind one [`check`]: it builds `lhs <op> rhs` with
//! the given `broadcast_dimensions`, snapshots the printed HLO (or, for an
//! invalid case, the full error message), and evaluates the computation
//! (before and after `expand_broadcasts`) against values written out by hand
//! from the text. Large expected arrays are written as the formula the text
//! gives (`out[m,n,p,q] = x[m,n,p,q] + t[n]`) through [`tab`], never taken
//! from a run of the code.
//!
//! Snapshots live in `tests/snapshots/`; update them by review
//! (`INSTA_UPDATE=always`, then read every changed `.snap`).

use oxla::{
    BinaryOp, Builder, ComparisonDirection, ElementType, Error, Literal, NativeType, Op, Shape,
};

use BinaryOp::{Add, And, Sub};
const GT: BinaryOp = BinaryOp::Compare(ComparisonDirection::Gt);
const GE: BinaryOp = BinaryOp::Compare(ComparisonDirection::Ge);
const LT: BinaryOp = BinaryOp::Compare(ComparisonDirection::Lt);
const LE: BinaryOp = BinaryOp::Compare(ComparisonDirection::Le);
const EQ: BinaryOp = BinaryOp::Compare(ComparisonDirection::Eq);
const NE: BinaryOp = BinaryOp::Compare(ComparisonDirection::Ne);

/// What a case must produce.
enum Expect {
    /// The result, with its shape and values derived by hand from the text.
    Value(Literal),
    /// An error of the variant the predicate accepts (its message is
    /// snapshotted).
    Error(fn(&Error) -> bool),
}

/// `Expect::Error` for one [`Error`] variant, optionally with field patterns:
/// `err!(BroadcastDimensionMismatch { index: 0 })`.
macro_rules! err {
    ($variant:ident) => {
        Expect::Error(|e| matches!(e, Error::$variant { .. }))
    };
    ($variant:ident { $($field:ident: $value:pat),* $(,)? }) => {
        Expect::Error(|e| matches!(e, Error::$variant { $($field: $value,)* .. }))
    };
}

/// Builds `lhs <op> rhs` with `broadcast_dimensions = dims` and checks it
/// against `expect`. `name` names the snapshot (and the computation).
#[track_caller]
fn check(name: &str, op: BinaryOp, lhs: Literal, rhs: Literal, dims: &[i64], expect: Expect) {
    let what = format!(
        "{} {} {} with {dims:?}",
        lhs.shape(),
        op.name(),
        rhs.shape()
    );
    run(name, &what, [("lhs", lhs), ("rhs", rhs)], expect, |b, p| {
        b.binary(p[0], p[1], op, dims)
    });
}

/// Like [`check`], for `broadcast_in_dim(x, out_dims, dims)`.
#[track_caller]
fn check_broadcast_in_dim(name: &str, x: Literal, out_dims: &[i64], dims: &[i64], expect: Expect) {
    let what = format!(
        "broadcast_in_dim of {} to {out_dims:?} with {dims:?}",
        x.shape()
    );
    run(name, &what, [("x", x)], expect, |b, p| {
        b.broadcast_in_dim(p[0], out_dims, dims)
    });
}

/// Like [`check`], for XLA's `broadcast(x, sizes)` (new major dims).
#[track_caller]
fn check_broadcast(name: &str, x: Literal, sizes: &[i64], expect: Expect) {
    let what = format!("broadcast of {} by {sizes:?}", x.shape());
    run(name, &what, [("x", x)], expect, |b, p| {
        b.broadcast(p[0], sizes)
    });
}

/// The one engine behind the `check` functions: parameters from `args`,
/// one op from `build`, then the snapshot and the values (or the error).
#[track_caller]
fn run<const N: usize>(
    name: &str,
    what: &str,
    args: [(&str, Literal); N],
    expect: Expect,
    build: impl FnOnce(&mut Builder, &[Op]) -> oxla::Result<Op>,
) {
    let mut b = Builder::new(name);
    let params: Vec<Op> = args
        .iter()
        .enumerate()
        .map(|(i, (pname, value))| b.parameter(i as i64, value.shape().clone(), pname).unwrap())
        .collect();
    let args: Vec<&Literal> = args.iter().map(|(_, value)| value).collect();
    match (build(&mut b, &params), expect) {
        (Ok(result), Expect::Value(want)) => {
            assert_eq!(
                b.shape(result).unwrap(),
                *want.shape(),
                "{name}: inferred shape"
            );
            let comp = b.build(result).unwrap();
            insta::assert_snapshot!(name, comp.to_hlo_text());
            let got = oxla::evaluate(&comp, &args).unwrap();
            assert_eq!(got, want, "{name}: values\n got: {got}\nwant: {want}");
            // The same computation in XLA's strict HLO form (no implicit
            // broadcasting left) must compute the same values.
            let strict = oxla::hlo::to_strict(&comp).unwrap_or_else(|e| {
                panic!("{name}: expand_broadcasts left implicit broadcasting:\n{e}")
            });
            let got = oxla::evaluate(&strict, &args).unwrap();
            assert_eq!(
                got,
                want,
                "{name}: values after expand_broadcasts\n got: {got}\nwant: {want}\n{strict}",
                strict = strict.to_hlo_text()
            );
        }
        (Err(err), Expect::Error(is_expected_variant)) => {
            insta::assert_snapshot!(name, err.to_string());
            assert!(
                is_expected_variant(&err),
                "{name}: unexpected error variant {err:?}"
            );
        }
        (Ok(result), Expect::Error(_)) => panic!(
            "{name}: expected an error, but {what} gave {}",
            b.shape(result).unwrap()
        ),
        (Err(err), Expect::Value(want)) => {
            panic!(
                "{name}: expected {}, but {what} gave the error\n{err}",
                want.shape()
            )
        }
    }
}

/// An array literal (row-major values).
fn lit<T: NativeType>(dims: &[i64], values: &[T]) -> Literal {
    Literal::from_vec(dims, values.to_vec()).unwrap()
}

/// An `f32` array literal.
fn f(dims: &[i64], values: &[f32]) -> Literal {
    lit(dims, values)
}

/// An `s32` array literal.
fn s(dims: &[i64], values: &[i32]) -> Literal {
    lit(dims, values)
}

/// A `pred` array literal written with 0 and 1.
fn p(dims: &[i64], values: &[u8]) -> Literal {
    let values: Vec<bool> = values.iter().map(|&v| v != 0).collect();
    lit(dims, &values)
}

/// An operand whose values do not matter (error cases): zeros.
fn z(element_type: ElementType, dims: &[i64]) -> Literal {
    Literal::zeros(&Shape::new(element_type, dims)).unwrap()
}

/// An `f32` operand of zeros.
fn zf(dims: &[i64]) -> Literal {
    z(ElementType::F32, dims)
}

/// An array whose element at index `[i, j, ...]` is `value(&[i, j, ...])`.
fn tab<T: NativeType>(dims: &[i64], value: impl Fn(&[i64]) -> T) -> Literal {
    let count: i64 = dims.iter().product();
    let mut index = vec![0i64; dims.len()];
    let mut values = Vec::with_capacity(count as usize);
    for _ in 0..count {
        values.push(value(&index));
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    lit(dims, &values)
}

// ---------------------------------------------------------------------------
// "What is broadcasting?"
// ---------------------------------------------------------------------------

/// ```text
/// |1 2 3| + |7 8 9| = |8  10 12|
/// |4 5 6|   |7 8 9|   |11 13 15|
/// ```
#[test]
fn what_is_broadcasting_matrix_plus_vector() {
    let m = || f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let v = || f(&[3], &[7., 8., 9.]);
    let want = || Expect::Value(f(&[2, 3], &[8., 10., 12., 11., 13., 15.]));
    check("intro_matrix_plus_vector", Add, m(), v(), &[1], want());
    // The lower-rank operand on the left: the same mapping, the same sum.
    check("intro_vector_plus_matrix", Add, v(), m(), &[1], want());
    // Without broadcast_dimensions the op is invalid (XLA does not guess).
    check(
        "intro_matrix_plus_vector_no_dims",
        Add,
        m(),
        v(),
        &[],
        err!(ShapesMustBeEqualRank),
    );
    check(
        "intro_vector_plus_matrix_no_dims",
        Add,
        v(),
        m(),
        &[],
        err!(ShapesMustBeEqualRank),
    );
}

// ---------------------------------------------------------------------------
// Broadcasting a lower-rank array onto a higher-rank array
// ---------------------------------------------------------------------------

/// ```text
/// |1 2 3| + 7 = |8  9  10|
/// |4 5 6|       |11 12 13|
/// ```
#[test]
fn scalar_plus_matrix() {
    let m = || f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let seven = || f(&[], &[7.]);
    let want = || Expect::Value(f(&[2, 3], &[8., 9., 10., 11., 12., 13.]));
    check("scalar_matrix_plus_7", Add, m(), seven(), &[], want());
    check("scalar_7_plus_matrix", Add, seven(), m(), &[], want());
    // A non-commutative op shows each operand stays on its side.
    check(
        "scalar_matrix_minus_7",
        Sub,
        m(),
        seven(),
        &[],
        Expect::Value(f(&[2, 3], &[-6., -5., -4., -3., -2., -1.])),
    );
    check(
        "scalar_7_minus_matrix",
        Sub,
        seven(),
        m(),
        &[],
        Expect::Value(f(&[2, 3], &[6., 5., 4., 3., 2., 1.])),
    );
    // Scalar with scalar: nothing to broadcast.
    check(
        "scalar_plus_scalar",
        Add,
        f(&[], &[1.]),
        seven(),
        &[],
        Expect::Value(f(&[], &[8.])),
    );
}

/// With broadcast dimension (1), each element of the vector becomes a
/// column the height of the matrix:
///
/// ```text
/// |7 8 9| ==> |7 8 9|
///             |7 8 9|
/// ```
///
/// (Seen by adding the vector to a matrix of zeros.)
#[test]
fn vector_replicated_over_rows() {
    check(
        "replicate_vector_into_2x3",
        Add,
        zf(&[2, 3]),
        f(&[3], &[7., 8., 9.]),
        &[1],
        Expect::Value(f(&[2, 3], &[7., 8., 9., 7., 8., 9.])),
    );
}

/// A 3-element vector onto a 3x3 matrix, both ways.
///
/// ```text
/// (1) dims (1):  |7 8 9| ==> |7 8 9|      (2) dims (0):  |7| ==> |7 7 7|
///                            |7 8 9|                     |8|     |8 8 8|
///                            |7 8 9|                     |9|     |9 9 9|
/// ```
#[test]
fn square_matrix_plus_vector_both_ways() {
    let v = || f(&[3], &[7., 8., 9.]);
    check(
        "square_replicate_dims_1",
        Add,
        zf(&[3, 3]),
        v(),
        &[1],
        Expect::Value(f(&[3, 3], &[7., 8., 9., 7., 8., 9., 7., 8., 9.])),
    );
    check(
        "square_replicate_dims_0",
        Add,
        zf(&[3, 3]),
        v(),
        &[0],
        Expect::Value(f(&[3, 3], &[7., 7., 7., 8., 8., 8., 9., 9., 9.])),
    );
    // With values: |1 2 3; 4 5 6; 7 8 9| + v.
    let m = || f(&[3, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    let by_rows = || Expect::Value(f(&[3, 3], &[8., 10., 12., 11., 13., 15., 14., 16., 18.]));
    let by_cols = || Expect::Value(f(&[3, 3], &[8., 9., 10., 12., 13., 14., 16., 17., 18.]));
    check("square_plus_vector_dims_1", Add, m(), v(), &[1], by_rows());
    check("square_plus_vector_dims_0", Add, m(), v(), &[0], by_cols());
    check(
        "square_vector_plus_matrix_dims_1",
        Add,
        v(),
        m(),
        &[1],
        by_rows(),
    );
    check(
        "square_vector_plus_matrix_dims_0",
        Add,
        v(),
        m(),
        &[0],
        by_cols(),
    );
}

/// > Note: when adding a 2x3 matrix to a 3-element vector, a broadcasting
/// > dimension of 0 is invalid.
#[test]
fn note_2x3_plus_3_vector_with_dims_0_is_invalid() {
    let m = || f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let v = || f(&[3], &[7., 8., 9.]);
    let mismatch = || {
        err!(BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 0,
            smaller_size: 3,
            larger_size: 2
        })
    };
    check(
        "note_matrix_plus_vector_dims_0",
        Add,
        m(),
        v(),
        &[0],
        mismatch(),
    );
    check(
        "note_vector_plus_matrix_dims_0",
        Add,
        v(),
        m(),
        &[0],
        mismatch(),
    );
}

/// A 2x3x4 cuboid plus a 3x4 matrix with (1,2): the matrix is matched to
/// dimensions 1 and 2 of the cuboid and repeated along dimension 0.
#[test]
fn cuboid_plus_matrix() {
    // cuboid[i][j][k] = 100 * (i + 1); matrix[j][k] = 10 * j + k.
    let cuboid = || {
        let mut v = vec![100f32; 12];
        v.extend([200f32; 12]);
        f(&[2, 3, 4], &v)
    };
    let matrix = || {
        f(
            &[3, 4],
            &[0., 1., 2., 3., 10., 11., 12., 13., 20., 21., 22., 23.],
        )
    };
    #[rustfmt::skip]
    let want = || Expect::Value(f(&[2, 3, 4], &[
        100., 101., 102., 103.,  110., 111., 112., 113.,  120., 121., 122., 123.,
        200., 201., 202., 203.,  210., 211., 212., 213.,  220., 221., 222., 223.,
    ]));
    check(
        "cuboid_plus_matrix_dims_1_2",
        Add,
        cuboid(),
        matrix(),
        &[1, 2],
        want(),
    );
    check(
        "matrix_plus_cuboid_dims_1_2",
        Add,
        matrix(),
        cuboid(),
        &[1, 2],
        want(),
    );
    // (0,1) would match 3 against 2 at the matrix's dimension 0.
    check(
        "cuboid_plus_matrix_dims_0_1",
        Add,
        cuboid(),
        matrix(),
        &[0, 1],
        err!(BroadcastDimensionMismatch {
            index: 0,
            smaller_size: 3,
            larger_size: 2
        }),
    );
}

// ---------------------------------------------------------------------------
// Formal definition: MxNxPxQ
// ---------------------------------------------------------------------------

/// M, N, P, Q: distinct so that a wrong mapping cannot pass by accident.
const MNPQ: [i64; 4] = [2, 3, 4, 5];

/// The MxNxPxQ array: `x[m,n,p,q] = 1000m + 100n + 10p + q`.
fn mnpq() -> Literal {
    tab(&MNPQ, |i| {
        (1000 * i[0] + 100 * i[1] + 10 * i[2] + i[3]) as f32
    })
}

/// `t[a] = 10000 (a + 1)`.
fn t_value(a: i64) -> f32 {
    (10_000 * (a + 1)) as f32
}

/// `tv[a][b] = 10000 (a + 1) + 100000 (b + 1)`.
fn tv_value(a: i64, b: i64) -> f32 {
    (10_000 * (a + 1) + 100_000 * (b + 1)) as f32
}

/// ```text
///           MxNxPxQ
/// dim 3:          T
/// dim 2:        T
/// dim 1:      T
/// dim 0:    T
/// ```
/// T equals the matched size; the vector's values are broadcast from the
/// matched dimension to all the others: `out[m,n,p,q] = x[m,n,p,q] + t[i_d]`.
#[test]
fn formal_definition_vector_matched_to_each_dimension() {
    for d in 0..4 {
        let t = tab(&[MNPQ[d]], |i| t_value(i[0]));
        let want = tab(&MNPQ, |i| {
            (1000 * i[0] + 100 * i[1] + 10 * i[2] + i[3]) as f32 + t_value(i[d])
        });
        let name = format!("mnpq_vector_to_dim_{d}");
        check(
            &name,
            Add,
            mnpq(),
            t.clone(),
            &[d as i64],
            Expect::Value(want.clone()),
        );
        check(
            &format!("{name}_vector_first"),
            Add,
            t,
            mnpq(),
            &[d as i64],
            Expect::Value(want),
        );
    }
    // "T has to be equal to the matching dimension": a 5-vector (Q) to N.
    check(
        "mnpq_vector_of_q_to_n",
        Add,
        mnpq(),
        zf(&[5]),
        &[1],
        err!(BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 1,
            smaller_size: 5,
            larger_size: 3
        }),
    );
}

/// ```text
///           MxNxPxQ
/// dim 2,3:      T V
/// dim 1,2:    T V
/// dim 0,3:  T     V
/// etc...
/// ```
/// Every increasing pair, each with the TxV matrix sized to what it matches:
/// `out[m,n,p,q] = x[m,n,p,q] + tv[i_d0][i_d1]`.
#[test]
fn formal_definition_matrix_matched_to_pairs() {
    for (d0, d1) in [(2, 3), (1, 2), (0, 3), (0, 1), (0, 2), (1, 3)] {
        let tv = tab(&[MNPQ[d0], MNPQ[d1]], |i| tv_value(i[0], i[1]));
        let want = tab(&MNPQ, |i| {
            (1000 * i[0] + 100 * i[1] + 10 * i[2] + i[3]) as f32 + tv_value(i[d0], i[d1])
        });
        let dims = [d0 as i64, d1 as i64];
        let name = format!("mnpq_matrix_to_dims_{d0}_{d1}");
        check(
            &name,
            Add,
            mnpq(),
            tv.clone(),
            &dims,
            Expect::Value(want.clone()),
        );
        check(
            &format!("{name}_matrix_first"),
            Add,
            tv,
            mnpq(),
            &dims,
            Expect::Value(want),
        );
    }
}

/// "It is illegal to match V to N and T to P": a TxV matrix with T = P = 4
/// and V = N = 3, dims (2,1) — sizes agree, the order does not.
/// "It is also illegal to match V to both P and N": a list has one entry per
/// dimension of the lower-rank operand, so one dimension cannot name two;
/// the attempts that can be written fail on the list's length, or (one
/// higher-rank dimension named twice) on its order.
#[test]
fn formal_definition_illegal_orders() {
    check(
        "mnpq_v_to_n_and_t_to_p",
        Add,
        mnpq(),
        zf(&[4, 3]),
        &[2, 1],
        err!(BroadcastDimensionsOrder {
            dimension: 1,
            previous: 2
        }),
    );
    check(
        "mnpq_v_to_n_and_t_to_p_matrix_first",
        Add,
        zf(&[4, 3]),
        mnpq(),
        &[2, 1],
        err!(BroadcastDimensionsOrder {
            dimension: 1,
            previous: 2
        }),
    );
    // A vector V given two dimensions (N and P).
    check(
        "mnpq_v_to_both_p_and_n",
        Add,
        mnpq(),
        zf(&[3]),
        &[1, 2],
        err!(BroadcastDimensionsSize { rank: 1, size: 2 }),
    );
    // Two dimensions of a VxV matrix sent to the same dimension P.
    check(
        "mnpq_both_dims_to_p",
        Add,
        mnpq(),
        zf(&[4, 4]),
        &[2, 2],
        err!(BroadcastDimensionsOrder {
            dimension: 2,
            previous: 2
        }),
    );
}

// ---------------------------------------------------------------------------
// Broadcasting similar-rank arrays with degenerate dimensions
// ---------------------------------------------------------------------------

/// 1. (2,1) and (2,3) broadcast to (2,3).
#[test]
fn degenerate_example_1() {
    let a = || f(&[2, 1], &[1., 2.]);
    let b = || f(&[2, 3], &[10., 20., 30., 40., 50., 60.]);
    let want = || Expect::Value(f(&[2, 3], &[11., 21., 31., 42., 52., 62.]));
    check("degenerate_1_2x1_plus_2x3", Add, a(), b(), &[], want());
    check("degenerate_1_2x3_plus_2x1", Add, b(), a(), &[], want());
    check(
        "degenerate_1_2x3_minus_2x1",
        Sub,
        b(),
        a(),
        &[],
        Expect::Value(f(&[2, 3], &[9., 19., 29., 38., 48., 58.])),
    );
}

/// 2. (1,2,5) and (7,2,5) broadcast to (7,2,5).
#[test]
fn degenerate_example_2() {
    let a = || tab(&[1, 2, 5], |i| (10 * i[1] + i[2]) as f32);
    let b = || tab(&[7, 2, 5], |i| (100 * i[0]) as f32);
    let want = || Expect::Value(tab(&[7, 2, 5], |i| (100 * i[0] + 10 * i[1] + i[2]) as f32));
    check("degenerate_2_1x2x5_plus_7x2x5", Add, a(), b(), &[], want());
    check("degenerate_2_7x2x5_plus_1x2x5", Add, b(), a(), &[], want());
}

/// 3. (7,2,5) and (7,1,5) broadcast to (7,2,5).
#[test]
fn degenerate_example_3() {
    let a = || tab(&[7, 2, 5], |i| (100 * i[0] + 10 * i[1]) as f32);
    let b = || tab(&[7, 1, 5], |i| (1000 * (i[0] + 1) + i[2]) as f32);
    let want = || {
        Expect::Value(tab(&[7, 2, 5], |i| {
            (100 * i[0] + 10 * i[1] + 1000 * (i[0] + 1) + i[2]) as f32
        }))
    };
    check("degenerate_3_7x2x5_plus_7x1x5", Add, a(), b(), &[], want());
    check("degenerate_3_7x1x5_plus_7x2x5", Add, b(), a(), &[], want());
}

/// 4. (7,2,5) and (7,2,6) are incompatible and cannot be broadcast.
#[test]
fn degenerate_example_4_incompatible() {
    let incompatible = || {
        err!(IncompatibleShapes {
            dimension: 2,
            lhs_size: 5,
            rhs_size: 6
        })
    };
    check(
        "degenerate_4_7x2x5_plus_7x2x6",
        Add,
        zf(&[7, 2, 5]),
        zf(&[7, 2, 6]),
        &[],
        incompatible(),
    );
    check(
        "degenerate_4_7x2x6_plus_7x2x5",
        Add,
        zf(&[7, 2, 6]),
        zf(&[7, 2, 5]),
        &[],
        err!(IncompatibleShapes {
            dimension: 2,
            lhs_size: 6,
            rhs_size: 5
        }),
    );
}

/// The outer operation: (2,1) and (1,3) broadcast to (2,3).
///
/// ```text
/// |1| + |10 20 30| = |11 21 31|
/// |2|                |12 22 32|
/// ```
#[test]
fn degenerate_outer_operation() {
    let col = || f(&[2, 1], &[1., 2.]);
    let row = || f(&[1, 3], &[10., 20., 30.]);
    let want = || Expect::Value(f(&[2, 3], &[11., 21., 31., 12., 22., 32.]));
    check("outer_2x1_plus_1x3", Add, col(), row(), &[], want());
    check("outer_1x3_plus_2x1", Add, row(), col(), &[], want());
    check(
        "outer_1x3_minus_2x1",
        Sub,
        row(),
        col(),
        &[],
        Expect::Value(f(&[2, 3], &[9., 19., 29., 8., 18., 28.])),
    );
}

/// If either size is 1 the result takes the other, so 1 against 0 gives 0
/// (xla-rules b9).
#[test]
fn degenerate_one_against_zero() {
    check(
        "degenerate_2x1_plus_2x0",
        Add,
        f(&[2, 1], &[1., 2.]),
        zf(&[2, 0]),
        &[],
        Expect::Value(f(&[2, 0], &[])),
    );
}

// ---------------------------------------------------------------------------
// Broadcast composition
// ---------------------------------------------------------------------------

/// ```text
/// |1 2 3 4| + [5 6]        // [5 6] is a 1x2 matrix; dims (0)
///
/// |1 1| + [5 6]            // step 1: InDim, the vector to 4x2
/// |2 2|
/// |3 3|
/// |4 4|
///
/// |1 1| + |5 6|     |6  7| // step 2: degenerate, [5 6] repeated 4 times
/// |2 2| + |5 6|  =  |7  8|
/// |3 3| + |5 6|     |8  9|
/// |4 4| + |5 6|     |9 10|
/// ```
#[test]
fn composition_vector_plus_1x2() {
    let v = || f(&[4], &[1., 2., 3., 4.]);
    let row = || f(&[1, 2], &[5., 6.]);
    let want = || Expect::Value(f(&[4, 2], &[6., 7., 7., 8., 8., 9., 9., 10.]));
    check("composition_vector_plus_1x2", Add, v(), row(), &[0], want());
    check("composition_1x2_plus_vector", Add, row(), v(), &[0], want());
    check(
        "composition_vector_minus_1x2",
        Sub,
        v(),
        row(),
        &[0],
        Expect::Value(f(&[4, 2], &[-4., -5., -3., -4., -2., -3., -1., -2.])),
    );
    check(
        "composition_1x2_minus_vector",
        Sub,
        row(),
        v(),
        &[0],
        Expect::Value(f(&[4, 2], &[4., 5., 3., 4., 2., 3., 1., 2.])),
    );
    // Step 1 alone: the vector added to a 1x2 of zeros is the 4x2 |1 1; ...|.
    check(
        "composition_step_1_vector_to_4x2",
        Add,
        v(),
        zf(&[1, 2]),
        &[0],
        Expect::Value(f(&[4, 2], &[1., 1., 2., 2., 3., 3., 4., 4.])),
    );
    // (1) would match the vector's 4 against the matrix's 2.
    check(
        "composition_vector_plus_1x2_dims_1",
        Add,
        v(),
        row(),
        &[1],
        err!(BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 1,
            smaller_size: 4,
            larger_size: 2
        }),
    );
}

/// A 1x2 matrix plus a 4x3x1 array with (1,2): the matrix becomes 4x1x2
/// (InDim), then degenerate broadcasting gives 4x3x2:
/// `out[i][j][k] = a[0][k] + b[i][j][0]`.
#[test]
fn composition_1x2_plus_4x3x1() {
    let a = || f(&[1, 2], &[5., 6.]);
    // b[i][j][0] = 100 i + 10 j.
    let b = || {
        f(
            &[4, 3, 1],
            &[
                0., 10., 20., 100., 110., 120., 200., 210., 220., 300., 310., 320.,
            ],
        )
    };
    #[rustfmt::skip]
    let want = || Expect::Value(f(&[4, 3, 2], &[
          5.,   6.,   15.,  16.,   25.,  26.,
        105., 106.,  115., 116.,  125., 126.,
        205., 206.,  215., 216.,  225., 226.,
        305., 306.,  315., 316.,  325., 326.,
    ]));
    check("composition_1x2_plus_4x3x1", Add, a(), b(), &[1, 2], want());
    check("composition_4x3x1_plus_1x2", Add, b(), a(), &[1, 2], want());
    // XLA's own lowering example (xla-rules A4): f32[1,2] + f32[2,3,1].
    let b = f(&[2, 3, 1], &[10., 20., 30., 40., 50., 60.]);
    check(
        "composition_1x2_plus_2x3x1",
        Add,
        a(),
        b,
        &[1, 2],
        Expect::Value(f(
            &[2, 3, 2],
            &[15., 16., 25., 26., 35., 36., 45., 46., 55., 56., 65., 66.],
        )),
    );
}

// ---------------------------------------------------------------------------
// XLA shape inference: the examples of xla-rules b7 and the error cases
// ---------------------------------------------------------------------------

/// `InferInDimBroadcastShape`'s own table (InDim result -> final result).
#[test]
fn xla_rules_b7_examples() {
    // []+[2,3] {} -> [2,3]
    check(
        "b7_scalar_plus_2x3",
        Add,
        f(&[], &[100.]),
        f(&[2, 3], &[1., 2., 3., 4., 5., 6.]),
        &[],
        Expect::Value(f(&[2, 3], &[101., 102., 103., 104., 105., 106.])),
    );
    // [3]+[4,3] {1} -> [4,3]
    check(
        "b7_3_plus_4x3_dims_1",
        Add,
        f(&[3], &[1., 2., 3.]),
        f(
            &[4, 3],
            &[0., 0., 0., 10., 10., 10., 20., 20., 20., 30., 30., 30.],
        ),
        &[1],
        Expect::Value(f(
            &[4, 3],
            &[1., 2., 3., 11., 12., 13., 21., 22., 23., 31., 32., 33.],
        )),
    );
    // [2,3]+[2,3,4] {0,1} -> [2,3,4]: a[i][j] = 100 i + 10 j, b[i][j][k] = k.
    #[rustfmt::skip]
    let want_2x3x4 = || Expect::Value(f(&[2, 3, 4], &[
          0.,   1.,   2.,   3.,   10.,  11.,  12.,  13.,   20.,  21.,  22.,  23.,
        100., 101., 102., 103.,  110., 111., 112., 113.,  120., 121., 122., 123.,
    ]));
    check(
        "b7_2x3_plus_2x3x4_dims_0_1",
        Add,
        f(&[2, 3], &[0., 10., 20., 100., 110., 120.]),
        tab(&[2, 3, 4], |i| i[2] as f32),
        &[0, 1],
        want_2x3x4(),
    );
    // [2,1]+[2,3,4] {0,2} -> [2,3,1] -> [2,3,4]: a = [[1000], [2000]],
    // b[i][j][k] = 100 i + 10 j + k.
    #[rustfmt::skip]
    let want = Expect::Value(f(&[2, 3, 4], &[
        1000., 1001., 1002., 1003.,  1010., 1011., 1012., 1013.,  1020., 1021., 1022., 1023.,
        2100., 2101., 2102., 2103.,  2110., 2111., 2112., 2113.,  2120., 2121., 2122., 2123.,
    ]));
    check(
        "b7_2x1_plus_2x3x4_dims_0_2",
        Add,
        f(&[2, 1], &[1000., 2000.]),
        tab(&[2, 3, 4], |i| (100 * i[0] + 10 * i[1] + i[2]) as f32),
        &[0, 2],
        want,
    );
    // [2,3]+[2,1,4] {0,1} -> [2,3,4]: a[i][j] = 100 i + 10 j, b[i][0][k] = k.
    check(
        "b7_2x3_plus_2x1x4_dims_0_1",
        Add,
        f(&[2, 3], &[0., 10., 20., 100., 110., 120.]),
        f(&[2, 1, 4], &[0., 1., 2., 3., 0., 1., 2., 3.]),
        &[0, 1],
        want_2x3x4(),
    );
    // Invalid: [3]+[4,3] {0}.
    check(
        "b7_3_plus_4x3_dims_0",
        Add,
        zf(&[3]),
        zf(&[4, 3]),
        &[0],
        err!(BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 0,
            smaller_size: 3,
            larger_size: 4
        }),
    );
    // Invalid: [2,1]+[2,3,4] {1,2}.
    check(
        "b7_2x1_plus_2x3x4_dims_1_2",
        Add,
        zf(&[2, 1]),
        zf(&[2, 3, 4]),
        &[1, 2],
        err!(BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 1,
            smaller_size: 2,
            larger_size: 3
        }),
    );
}

/// `{2,1}` for `f32[8,4]` into `f32[16,8,4]`: the size check of entry 0
/// (8 against dimension 2, size 4) runs before the order check, so XLA
/// reports "dimension 0 mismatch"; `{1,2}` is the valid list.
#[test]
fn size_is_checked_before_order() {
    check(
        "order_8x4_into_16x8x4_dims_2_1",
        Add,
        zf(&[16, 8, 4]),
        zf(&[8, 4]),
        &[2, 1],
        err!(BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 2,
            smaller_size: 8,
            larger_size: 4
        }),
    );
    check(
        "order_8x4_into_16x8x4_dims_1_2",
        Add,
        tab(&[16, 8, 4], |i| (i[0] * 1000) as f32),
        tab(&[8, 4], |i| (i[0] * 10 + i[1]) as f32),
        &[1, 2],
        Expect::Value(tab(&[16, 8, 4], |i| {
            (i[0] * 1000 + i[1] * 10 + i[2]) as f32
        })),
    );
}

/// Equal ranks take `{}` or the identity, which mean the same; anything
/// else is refused, even when the shapes themselves would broadcast.
#[test]
fn equal_ranks() {
    let m = || f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let want = || Expect::Value(f(&[2, 3], &[2., 4., 6., 8., 10., 12.]));
    check("equal_ranks_empty_list", Add, m(), m(), &[], want());
    // The identity is accepted and printed as no list at all.
    check("equal_ranks_identity_list", Add, m(), m(), &[0, 1], want());
    check(
        "equal_ranks_transposed_list",
        Add,
        m(),
        m(),
        &[1, 0],
        err!(BroadcastDimensionsNotIdentity),
    );
    check(
        "equal_ranks_outer_with_transposed_list",
        Add,
        zf(&[2, 1]),
        zf(&[1, 3]),
        &[1, 0],
        err!(BroadcastDimensionsNotIdentity),
    );
    check(
        "equal_ranks_short_list",
        Add,
        m(),
        m(),
        &[0],
        err!(BroadcastDimensionsNotIdentity),
    );
    // Two scalars: the identity of rank 0 is {}.
    check(
        "equal_ranks_scalars_with_list",
        Add,
        zf(&[]),
        zf(&[]),
        &[0],
        err!(BroadcastDimensionsNotIdentity),
    );
}

/// No implicit promotion: the element types must be equal, and this is
/// checked before any shape.
#[test]
fn different_element_types() {
    check(
        "types_f32_plus_s32",
        Add,
        zf(&[2]),
        z(ElementType::S32, &[2]),
        &[],
        err!(ElementTypeMismatch),
    );
    check(
        "types_s32_plus_s64",
        Add,
        z(ElementType::S32, &[2, 3]),
        z(ElementType::S64, &[3]),
        &[1],
        err!(ElementTypeMismatch),
    );
    check(
        "types_u32_plus_s32_scalar",
        Add,
        z(ElementType::U32, &[2, 3]),
        z(ElementType::S32, &[]),
        &[],
        err!(ElementTypeMismatch),
    );
    // XLA's inference lets floats of different precision through; its
    // verifier then rejects them. oxla rejects them at once.
    check(
        "types_f32_plus_f64",
        Add,
        zf(&[2]),
        z(ElementType::F64, &[2]),
        &[],
        err!(ElementTypeMismatch),
    );
    // Type before shape: this broadcast would also be invalid.
    check(
        "types_before_dims",
        Add,
        zf(&[2, 3]),
        z(ElementType::S32, &[3]),
        &[0],
        err!(ElementTypeMismatch),
    );
    check(
        "types_compare_f32_s32",
        GT,
        zf(&[2, 3]),
        z(ElementType::S32, &[3]),
        &[1],
        err!(ElementTypeMismatch),
    );
}

/// The op's own type gate (xla-rules c4) runs before the element types are
/// compared: `subtract` takes no `pred`.
#[test]
fn op_type_gate() {
    check(
        "types_subtract_pred",
        Sub,
        p(&[2], &[1, 0]),
        p(&[2], &[0, 1]),
        &[],
        err!(UnsupportedElementType),
    );
    check(
        "types_gate_before_equality",
        Sub,
        p(&[2, 3], &[0; 6]),
        z(ElementType::S32, &[3]),
        &[1],
        err!(UnsupportedElementType),
    );
}

/// The list for different ranks: required (unless the smaller operand is a
/// scalar), one entry per dimension of the smaller operand, each in range.
#[test]
fn broadcast_dimensions_list_errors() {
    let m = || zf(&[2, 3]);
    let v = || zf(&[3]);
    check(
        "list_empty_for_vector",
        Add,
        m(),
        v(),
        &[],
        err!(ShapesMustBeEqualRank),
    );
    check(
        "list_empty_for_matrix_into_cuboid",
        Add,
        zf(&[3, 4]),
        zf(&[2, 3, 4]),
        &[],
        err!(ShapesMustBeEqualRank),
    );
    check(
        "list_too_long",
        Add,
        m(),
        v(),
        &[0, 1],
        err!(BroadcastDimensionsSize { rank: 1, size: 2 }),
    );
    check(
        "list_too_short",
        Add,
        zf(&[2, 3, 4]),
        zf(&[3, 4]),
        &[1],
        err!(BroadcastDimensionsSize { rank: 2, size: 1 }),
    );
    check(
        "list_negative",
        Add,
        m(),
        v(),
        &[-1],
        err!(BroadcastDimensionNegative { dimension: -1 }),
    );
    check(
        "list_too_large",
        Add,
        m(),
        v(),
        &[2],
        err!(BroadcastDimensionTooLarge {
            dimension: 2,
            rank: 2
        }),
    );
    // Entries are checked in order: entry 0 (too large) before entry 1.
    check(
        "list_first_bad_entry_wins",
        Add,
        zf(&[2, 3, 4]),
        zf(&[3, 4]),
        &[5, -1],
        err!(BroadcastDimensionTooLarge {
            dimension: 5,
            rank: 3
        }),
    );
    // A scalar takes no list: a non-empty one fails the length check.
    check(
        "list_for_scalar",
        Add,
        m(),
        zf(&[]),
        &[0],
        err!(BroadcastDimensionsSize { rank: 0, size: 1 }),
    );
    check(
        "list_for_scalar_on_the_left",
        Add,
        zf(&[]),
        m(),
        &[1],
        err!(BroadcastDimensionsSize { rank: 0, size: 1 }),
    );
}

/// A size-1 dimension of the smaller operand may be mapped to any
/// dimension: the InDim step keeps the 1, the degenerate step stretches it.
#[test]
fn size_one_vector_stretches() {
    let m = || f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let want = || Expect::Value(f(&[2, 3], &[11., 12., 13., 14., 15., 16.]));
    check(
        "size_one_vector_dims_1",
        Add,
        m(),
        f(&[1], &[10.]),
        &[1],
        want(),
    );
    check(
        "size_one_vector_dims_0",
        Add,
        m(),
        f(&[1], &[10.]),
        &[0],
        want(),
    );
    // And a size-1 dimension of the larger operand takes the smaller's size.
    check(
        "size_one_in_larger",
        Add,
        f(&[2, 1], &[1., 2.]),
        f(&[3], &[10., 20., 30.]),
        &[1],
        Expect::Value(f(&[2, 3], &[11., 21., 31., 12., 22., 32.])),
    );
}

// ---------------------------------------------------------------------------
// Comparisons: the same broadcasting, a pred result
// ---------------------------------------------------------------------------

#[test]
fn comparisons() {
    let m = || f(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let v = || f(&[3], &[3., 2., 1.]);
    check(
        "compare_matrix_gt_vector",
        GT,
        m(),
        v(),
        &[1],
        Expect::Value(p(&[2, 3], &[0, 0, 1, 1, 1, 1])),
    );
    check(
        "compare_vector_gt_matrix",
        GT,
        v(),
        m(),
        &[1],
        Expect::Value(p(&[2, 3], &[1, 0, 0, 0, 0, 0])),
    );
    check(
        "compare_matrix_eq_scalar",
        EQ,
        m(),
        f(&[], &[5.]),
        &[],
        Expect::Value(p(&[2, 3], &[0, 0, 0, 0, 1, 0])),
    );
    // 3x3 against its first column, both ways.
    let sq = || f(&[3, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    let col = || f(&[3], &[1., 4., 7.]);
    check(
        "compare_square_ne_vector_dims_0",
        NE,
        sq(),
        col(),
        &[0],
        Expect::Value(p(&[3, 3], &[0, 1, 1, 0, 1, 1, 0, 1, 1])),
    );
    check(
        "compare_square_ne_vector_dims_1",
        NE,
        sq(),
        col(),
        &[1],
        Expect::Value(p(&[3, 3], &[0, 1, 1, 1, 1, 1, 1, 1, 1])),
    );
    // Outer comparison.
    let a = || f(&[2, 1], &[1., 2.]);
    let b = || f(&[1, 3], &[0., 1., 2.]);
    check(
        "compare_outer_lt",
        LT,
        a(),
        b(),
        &[],
        Expect::Value(p(&[2, 3], &[0, 0, 1, 0, 0, 0])),
    );
    check(
        "compare_outer_le",
        LE,
        a(),
        b(),
        &[],
        Expect::Value(p(&[2, 3], &[0, 1, 1, 0, 0, 1])),
    );
    // Composition.
    check(
        "compare_composition_ge",
        GE,
        f(&[4], &[1., 2., 3., 4.]),
        f(&[1, 2], &[2., 3.]),
        &[0],
        Expect::Value(p(&[4, 2], &[0, 0, 1, 0, 1, 1, 1, 1])),
    );
    // Errors name the op `compare`.
    check(
        "compare_note_dims_0",
        GT,
        m(),
        v(),
        &[0],
        err!(BroadcastDimensionMismatch { index: 0 }),
    );
    check(
        "compare_incompatible",
        EQ,
        zf(&[7, 2, 5]),
        zf(&[7, 2, 6]),
        &[],
        err!(IncompatibleShapes { dimension: 2 }),
    );
}

// ---------------------------------------------------------------------------
// The same patterns for integers (and pred)
// ---------------------------------------------------------------------------

#[test]
fn integers() {
    let m = || s(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let v = || s(&[3], &[10, 20, 30]);
    check(
        "s32_scalar_plus_matrix",
        Add,
        s(&[], &[7]),
        m(),
        &[],
        Expect::Value(s(&[2, 3], &[8, 9, 10, 11, 12, 13])),
    );
    check(
        "s32_matrix_plus_vector",
        Add,
        m(),
        v(),
        &[1],
        Expect::Value(s(&[2, 3], &[11, 22, 33, 14, 25, 36])),
    );
    check(
        "s32_matrix_minus_vector",
        Sub,
        m(),
        v(),
        &[1],
        Expect::Value(s(&[2, 3], &[-9, -18, -27, -6, -15, -24])),
    );
    check(
        "s32_vector_minus_matrix",
        Sub,
        v(),
        m(),
        &[1],
        Expect::Value(s(&[2, 3], &[9, 18, 27, 6, 15, 24])),
    );
    check(
        "s32_square_plus_vector_dims_0",
        Add,
        s(&[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]),
        s(&[3], &[7, 8, 9]),
        &[0],
        Expect::Value(s(&[3, 3], &[8, 9, 10, 12, 13, 14, 16, 17, 18])),
    );
    check(
        "s32_note_dims_0",
        Add,
        m(),
        v(),
        &[0],
        err!(BroadcastDimensionMismatch { index: 0 }),
    );
    check(
        "s32_outer",
        Add,
        s(&[2, 1], &[1, 2]),
        s(&[1, 3], &[10, 20, 30]),
        &[],
        Expect::Value(s(&[2, 3], &[11, 21, 31, 12, 22, 32])),
    );
    check(
        "s32_composition",
        Add,
        s(&[4], &[1, 2, 3, 4]),
        s(&[1, 2], &[5, 6]),
        &[0],
        Expect::Value(s(&[4, 2], &[6, 7, 7, 8, 8, 9, 9, 10])),
    );
    check(
        "s32_composition_1x2_plus_4x3x1",
        Add,
        s(
            &[4, 3, 1],
            &[0, 10, 20, 100, 110, 120, 200, 210, 220, 300, 310, 320],
        ),
        s(&[1, 2], &[5, 6]),
        &[1, 2],
        Expect::Value(tab(&[4, 3, 2], |i| {
            (100 * i[0] + 10 * i[1] + 5 + i[2]) as i32
        })),
    );
    check(
        "s32_incompatible",
        Add,
        z(ElementType::S32, &[7, 2, 5]),
        z(ElementType::S32, &[7, 2, 6]),
        &[],
        err!(IncompatibleShapes),
    );
    check(
        "s32_compare_lt",
        LT,
        m(),
        s(&[3], &[2, 5, 3]),
        &[1],
        Expect::Value(p(&[2, 3], &[1, 1, 0, 0, 0, 0])),
    );
    // Unsigned comparison: 200 > 100 as u8.
    check(
        "u8_compare_gt_scalar",
        GT,
        lit(&[2], &[200u8, 10]),
        lit(&[], &[100u8]),
        &[],
        Expect::Value(p(&[2], &[1, 0])),
    );
    // pred `and` broadcasts like any op (XLA's BooleanAnd2DTo3D_Pred):
    // out[i][j][k] = a[j][k] & b[i][j][k].
    check(
        "pred_and_2x2_into_2x2x2",
        And,
        p(&[2, 2], &[0, 1, 1, 0]),
        p(&[2, 2, 2], &[0, 1, 1, 0, 0, 0, 1, 1]),
        &[1, 2],
        Expect::Value(p(&[2, 2, 2], &[0, 1, 1, 0, 0, 0, 1, 0])),
    );
}

// ---------------------------------------------------------------------------
// `broadcast_in_dim` and `broadcast`: the replication the pictures draw
// ---------------------------------------------------------------------------

/// The replication pictures of the text are `broadcast_in_dim` itself, and
/// so is the InDim step of every binary op: the lower-rank operand goes to
/// the result's dims with its own dimension `i` at `broadcast_dimensions[i]`.
#[test]
fn broadcast_in_dim_draws_the_pictures() {
    let v = || f(&[3], &[7., 8., 9.]);
    // |7 8 9| ==> |7 8 9; 7 8 9|
    check_broadcast_in_dim(
        "bid_vector_over_rows",
        v(),
        &[2, 3],
        &[1],
        Expect::Value(f(&[2, 3], &[7., 8., 9., 7., 8., 9.])),
    );
    // |7; 8; 9| ==> |7 7 7; 8 8 8; 9 9 9|
    check_broadcast_in_dim(
        "bid_vector_as_rows",
        v(),
        &[3, 3],
        &[0],
        Expect::Value(f(&[3, 3], &[7., 7., 7., 8., 8., 8., 9., 9., 9.])),
    );
    // A scalar broadcasts with the empty list.
    check_broadcast_in_dim(
        "bid_scalar",
        f(&[], &[7.]),
        &[2, 3],
        &[],
        Expect::Value(f(&[2, 3], &[7.; 6])),
    );
    // Composition, step 1 of the first example: |1 2 3 4| to |1 1; 2 2; 3 3; 4 4|.
    check_broadcast_in_dim(
        "bid_composition_vector_to_4x2",
        f(&[4], &[1., 2., 3., 4.]),
        &[4, 2],
        &[0],
        Expect::Value(f(&[4, 2], &[1., 1., 2., 2., 3., 3., 4., 4.])),
    );
    // Composition, step 1 of the second example: 1x2 to the 4x1x2
    // intermediate (the 1 stays 1).
    check_broadcast_in_dim(
        "bid_composition_1x2_to_4x1x2",
        f(&[1, 2], &[5., 6.]),
        &[4, 1, 2],
        &[1, 2],
        Expect::Value(f(&[4, 1, 2], &[5., 6., 5., 6., 5., 6., 5., 6.])),
    );
    // At the builder level a size-1 operand dimension also stretches.
    check_broadcast_in_dim(
        "bid_stretch_1x2_to_4x3x2",
        f(&[1, 2], &[5., 6.]),
        &[4, 3, 2],
        &[1, 2],
        Expect::Value(tab(&[4, 3, 2], |i| (5 + i[2]) as f32)),
    );
}

/// `broadcast_in_dim`'s own checks (xla-rules d5), in XLA's order.
#[test]
fn broadcast_in_dim_errors() {
    check_broadcast_in_dim(
        "bid_rank_too_high",
        zf(&[2, 3]),
        &[6],
        &[0],
        err!(InvalidOp),
    );
    check_broadcast_in_dim(
        "bid_list_wrong_length",
        zf(&[3]),
        &[2, 3],
        &[],
        err!(InvalidOp),
    );
    check_broadcast_in_dim("bid_out_of_bound", zf(&[3]), &[2, 3], &[2], err!(InvalidOp));
    check_broadcast_in_dim("bid_negative", zf(&[3]), &[2, 3], &[-1], err!(InvalidOp));
    // The note's case: a 3-vector as the rows of a 2x3 matrix.
    check_broadcast_in_dim(
        "bid_size_mismatch",
        zf(&[3]),
        &[2, 3],
        &[0],
        err!(InvalidOp),
    );
    // Unlike a binary op, the output's sizes are fixed: an output 1 does not stretch.
    check_broadcast_in_dim(
        "bid_output_one_does_not_stretch",
        zf(&[3]),
        &[2, 1],
        &[1],
        err!(InvalidOp),
    );
    check_broadcast_in_dim(
        "bid_order",
        zf(&[4, 3]),
        &[2, 3, 4, 5],
        &[2, 1],
        err!(InvalidOp),
    );
    check_broadcast_in_dim(
        "bid_negative_size",
        zf(&[3]),
        &[-2, 3],
        &[1],
        Expect::Error(|e| {
            matches!(
                e,
                Error::InvalidOp {
                    problem: oxla::OpProblem::InvalidResult { .. },
                    ..
                }
            )
        }),
    );
}

/// XLA's client `Broadcast` prepends the new sizes as major dimensions: it
/// is `broadcast_in_dim` with the operand mapped to the last dimensions.
#[test]
fn broadcast_prepends_major_dimensions() {
    check_broadcast(
        "broadcast_vector_by_2",
        f(&[3], &[7., 8., 9.]),
        &[2],
        Expect::Value(f(&[2, 3], &[7., 8., 9., 7., 8., 9.])),
    );
    check_broadcast(
        "broadcast_matrix_by_2",
        f(&[1, 2], &[5., 6.]),
        &[2],
        Expect::Value(f(&[2, 1, 2], &[5., 6., 5., 6.])),
    );
    check_broadcast(
        "broadcast_scalar_by_2x3",
        f(&[], &[7.]),
        &[2, 3],
        Expect::Value(f(&[2, 3], &[7.; 6])),
    );
    check_broadcast("broadcast_negative_size", zf(&[3]), &[-2], err!(InvalidOp));
}

// ---------------------------------------------------------------------------
// docs/broadcasting.md quotes the messages above: keep it honest
// ---------------------------------------------------------------------------

/// Every error snapshot that `docs/broadcasting.md` names (as `` `name` ``)
/// is quoted there verbatim, so the page cannot drift from what oxla prints.
#[test]
fn docs_quote_the_real_messages() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/broadcasting.md")).unwrap();
    let mut quoted = 0;
    for name in doc.split('`').skip(1).step_by(2) {
        let path = root.join(format!("tests/snapshots/spec_xla__{name}.snap"));
        let Ok(snap) = std::fs::read_to_string(&path) else {
            continue;
        };
        // An insta snapshot: `---`, a header, `---`, then the value.
        let message = snap.splitn(3, "---\n").nth(2).unwrap().trim_end();
        if message.starts_with("HloModule") {
            continue;
        }
        assert!(
            doc.contains(message),
            "docs/broadcasting.md quotes `{name}`, but not its current message:\n{message}"
        );
        quoted += 1;
    }
    assert!(quoted >= 20, "only {quoted} messages quoted");
}
