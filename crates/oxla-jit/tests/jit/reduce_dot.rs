//! Reductions (row, column, all, middle; recognised and general reducer
//! bodies; fused producers) and dots (every layout of dimension numbers,
//! batch, every numeric type).

use oxla_ir::{Builder, Computation, DotDimensionNumbers, ElementType, Literal, Shape};

use crate::common::*;

const F32: ElementType = ElementType::F32;

pub(crate) fn reducer(ty: ElementType, kind: &str) -> Computation {
    let mut r = Builder::new(kind);
    let a = r.parameter(0, Shape::scalar(ty), "a").expect("a");
    let c = r.parameter(1, Shape::scalar(ty), "c").expect("c");
    let y = match kind {
        "add" => r.add(a, c, &[]),
        "mul" => r.mul(a, c, &[]),
        "max" => r.max(a, c, &[]),
        "min" => r.min(a, c, &[]),
        "and" => r.and(a, c, &[]),
        "or" => r.or(a, c, &[]),
        "xor" => r.xor(a, c, &[]),
        // Not associative: only the in-order fold gives the interpreter's
        // answer.
        "sub" => r.sub(a, c, &[]),
        // Keeps the first element: a body that returns a parameter.
        "first" => Ok(a),
        // acc * 2 + x, through a constant.
        _ => {
            let two = r.constant(
                Literal::from_vec(&[], vec![2i64])
                    .expect("c")
                    .reshape(&[])
                    .expect("r"),
            );
            let two = two.and_then(|t| r.convert(t, ty)).expect("two");
            let m = r.mul(a, two, &[]).expect("m");
            r.add(m, c, &[])
        }
    }
    .expect("reducer");
    r.build(y).expect("build")
}

fn reduce(ty: ElementType, dims: &[i64], red: &[i64], kind: &str, tol: Tol) {
    let x = sh(ty, dims);
    let mut b = Builder::new("reduce");
    let p = b.parameter(0, x.clone(), "x").expect("x");
    let init_v = match kind {
        "mul" | "and" | "min" => edges(&sh(ty, &[]), 2, 1),
        _ => values(&sh(ty, &[]), 11),
    };
    let init = b.parameter(1, sh(ty, &[]), "init").expect("init");
    let y = b.reduce(p, init, red, &reducer(ty, kind)).expect("reduce");
    let comp = b.build(y).expect("build");
    // Small values keep float sums well away from overflow.
    let data = if ty.is_float() && kind == "mul" {
        literal_from(&x, |k| 1.0 + ((k * 7) % 5) as f64 / 64.0, |_| 0)
    } else {
        values(&x, 3)
    };
    check_tol(&comp, &[data.clone(), init_v.clone()], tol);
    if kind == "max" || kind == "min" || !ty.is_float() {
        check_tol(&comp, &[edges(&x, 1, 1), init_v], tol);
    }
}

#[test]
fn reductions_of_every_kind_and_layout() {
    let layouts: &[(&[i64], &[i64])] = &[
        (&[5, 37], &[1]),   // row
        (&[37, 5], &[0]),   // column
        (&[4, 6, 7], &[1]), // middle
        (&[4, 6, 7], &[0, 2]),
        (&[3, 33], &[0, 1]), // all
        (&[33], &[0]),
        (&[6, 1, 5], &[1]), // only a unit dimension: elementwise
        (&[2, 0, 3], &[1]), // empty reduced dimension: init everywhere
        (&[0, 3], &[1]),    // empty output
        (&[], &[]),
    ];
    for ty in jit_types() {
        for kind in [
            "add", "mul", "max", "min", "and", "or", "xor", "sub", "first", "axpy",
        ] {
            let ok = match kind {
                "and" | "or" | "xor" => !ty.is_float(),
                "sub" | "axpy" => !ty.is_pred(),
                _ => true,
            };
            if !ok {
                continue;
            }
            for &(dims, red) in layouts {
                // Reassociated float sums and products: bounded error.
                let reassociated = ty.is_float() && matches!(kind, "add" | "mul");
                let tol = if reassociated {
                    // n * eps * sum|x|, with |x| < 4 and n <= 231.
                    Tol::Abs(if ty == F32 {
                        231.0 * 231.0 * 4.0 * 1.2e-7
                    } else {
                        1e-9
                    })
                } else {
                    Tol::Exact
                };
                reduce(ty, dims, red, kind, tol);
            }
        }
    }
}

#[test]
fn softmax_and_sum_of_squares_fuse_producers_into_reductions() {
    let x = sh(F32, &[7, 37]);
    let mut b = Builder::new("softmax");
    let p = b.parameter(0, x.clone(), "x").expect("x");
    let ninf = b.constant_scalar(f32::NEG_INFINITY).expect("c");
    let m = b.reduce(p, ninf, &[1], &reducer(F32, "max")).expect("max");
    let d = b.sub(p, m, &[0]).expect("sub");
    let e = b.exp(d).expect("exp");
    let zero = b.constant_scalar(0f32).expect("c");
    let s = b.reduce(e, zero, &[1], &reducer(F32, "add")).expect("sum");
    let y = b.div(e, s, &[0]).expect("div");
    let comp = b.build(y).expect("build");
    check_tol(&comp, &[values(&x, 1)], Tol::Ulps(64));
    let exe = oxla_jit::compile(&comp).expect("compile");
    // One row-group kernel: max, then sum of exp (kept in the output row),
    // then the division, per row.
    assert_eq!(exe.kernel_count(), 1, "{}", exe.fusion_text());
    assert!(exe.fusion_text().contains("row-group of 3 passes"));
    // Column sum of squares: exact (in-order per output element).
    let mut b = Builder::new("colsq");
    let p = b.parameter(0, x.clone(), "x").expect("x");
    let sq = b.mul(p, p, &[]).expect("sq");
    let zero = b.constant_scalar(0f32).expect("c");
    let s = b.reduce(sq, zero, &[0], &reducer(F32, "add")).expect("sum");
    let comp = b.build(s).expect("build");
    check(&comp, &[values(&x, 2)]);
}

fn dot(ty: ElementType, l: &[i64], r: &[i64], dims: DotDimensionNumbers) {
    let (ls, rs) = (sh(ty, l), sh(ty, r));
    let (mut b, p) = builder("dot", &[ls.clone(), rs.clone()]);
    let y = b.dot_general(p[0], p[1], &dims).expect("dot");
    let comp = b.build(y).expect("build");
    let tol = if ty.is_float() {
        Tol::Abs(if ty == F32 { 1e-3 } else { 1e-11 })
    } else {
        Tol::Exact
    };
    check_tol(&comp, &[values(&ls, 1), values(&rs, 2)], tol);
    if !ty.is_float() {
        check_tol(&comp, &[edges(&ls, 1, 1), edges(&rs, 2, 3)], tol);
    }
    // A fused operand goes through a canonical copy.
    let (mut b, p) = builder("dot_fused", &[ls.clone(), rs.clone()]);
    let n = b.neg(p[0]).expect("neg");
    let y = b.dot_general(n, p[1], &dims).expect("dot");
    let comp = b.build(y).expect("build");
    check_tol(&comp, &[values(&ls, 1), values(&rs, 2)], tol);
}

/// Dot dimension numbers from the four lists.
pub(crate) fn dn(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> DotDimensionNumbers {
    DotDimensionNumbers {
        lhs_batch: lb.to_vec(),
        rhs_batch: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
    }
}

#[test]
fn dots_of_every_numeric_type_and_layout() {
    // The narrow floats' and sub-byte integers' dots are refused
    // (tests/jit/types.rs).
    let narrow = |t: &oxla_ir::ElementType| t.is_narrow_float() || t.bit_width() < 8;
    for ty in jit_types()
        .into_iter()
        .filter(|t| !t.is_pred() && !narrow(t))
    {
        dot(ty, &[5, 7], &[7, 9], dn(&[], &[], &[1], &[0])); // matmul
        dot(ty, &[7, 5], &[7, 9], dn(&[], &[], &[0], &[0])); // lhs transposed
        dot(ty, &[5, 7], &[9, 7], dn(&[], &[], &[1], &[1])); // rhs transposed
        dot(ty, &[7], &[7, 3], dn(&[], &[], &[0], &[0])); // vector-matrix
        dot(ty, &[4, 7], &[7], dn(&[], &[], &[1], &[0])); // matrix-vector
        dot(ty, &[7], &[7], dn(&[], &[], &[0], &[0])); // inner product
        dot(ty, &[3], &[4], dn(&[], &[], &[], &[])); // outer product
        dot(ty, &[2, 5, 7], &[2, 7, 3], dn(&[0], &[0], &[2], &[1])); // batched
        dot(ty, &[5, 2, 7], &[7, 3, 2], dn(&[1], &[2], &[2], &[0])); // batch in the middle
        dot(
            ty,
            &[2, 3, 4, 5],
            &[4, 3, 6],
            dn(&[], &[], &[1, 2], &[1, 0]),
        ); // two contracting
        dot(ty, &[3, 0], &[0, 4], dn(&[], &[], &[1], &[0])); // empty contraction
        dot(ty, &[0, 3], &[3, 4], dn(&[], &[], &[1], &[0])); // empty output
    }
}

#[test]
fn integer_dots_blocked_with_remainder_columns_and_batches() {
    // The integer kernel packs strips of 64 bytes of B (64 s8, 32 s16,
    // 16 s32, 8 s64 columns) per block of 256 k steps; these shapes cross every
    // edge: two k blocks with a short second one, whole strips plus a
    // remainder of columns, and (last) a batched product large enough to
    // be split across threads, so a thread's rows can start mid-batch.
    use ElementType::{S8, S16, S32, S64, U8, U16, U32, U64};
    for ty in [S8, S16, S32, S64, U8, U16, U32, U64] {
        dot(ty, &[9, 300], &[300, 45], dn(&[], &[], &[1], &[0]));
        dot(ty, &[3, 4, 257], &[3, 257, 40], dn(&[0], &[0], &[2], &[1]));
    }
    for ty in [S8, U8] {
        // Byte strips are 64 columns wide.
        dot(ty, &[9, 300], &[300, 130], dn(&[], &[], &[1], &[0]));
    }
    for ty in [S8, S16, S32, S64] {
        let (l, r) = ([3, 230, 70], [3, 70, 96]);
        let (ls, rs) = (sh(ty, &l), sh(ty, &r));
        let (mut b, p) = builder("dot_split", &[ls.clone(), rs.clone()]);
        let y = b
            .dot_general(p[0], p[1], &dn(&[0], &[0], &[2], &[1]))
            .expect("dot");
        let comp = b.build(y).expect("build");
        check_tol(&comp, &[edges(&ls, 1, 1), edges(&rs, 2, 3)], Tol::Exact);
    }
}

#[test]
fn float_dots_split_rows_across_batches() {
    // The float GEMM entry takes a thread's run of rows counted across
    // batches: 3 batches of 101 rows split over the pool start and end
    // mid-batch; 128 small products and attention-shaped batches take the
    // same path. Values in [-4, 4): the bound 2 k eps sum|a b| is at most
    // 2 k^2 eps 16.
    for (batch, m, k, n) in [(3, 101, 64, 50), (128, 8, 8, 8), (12, 40, 16, 40)] {
        for ty in [F32, ElementType::F64] {
            let (ls, rs) = (sh(ty, &[batch, m, k]), sh(ty, &[batch, k, n]));
            let (mut b, p) = builder("dot_batched", &[ls.clone(), rs.clone()]);
            let y = b
                .dot_general(p[0], p[1], &dn(&[0], &[0], &[2], &[1]))
                .expect("dot");
            let comp = b.build(y).expect("build");
            let eps = if ty == F32 {
                f64::from(f32::EPSILON)
            } else {
                f64::EPSILON
            };
            let bound = 2.0 * (k * k) as f64 * eps * 16.0;
            check_tol(&comp, &[values(&ls, 1), values(&rs, 2)], Tol::Abs(bound));
        }
    }
}

#[test]
fn mixed_type_dots_convert_their_operands_up() {
    // `s8 x s8 -> s32` and friends sum in the result type, the operands
    // converted by their canonical copies: exact against the interpreter,
    // with edge values (the types' minimum and maximum), on the blocked
    // kernel's strips and split across threads.
    use ElementType::{Pred, S8, S16, S32, S64, U8, U16, U32};
    let dims = dn(&[0], &[0], &[2], &[1]);
    for (l, r, out) in [
        (S8, S8, S32),
        (U8, U8, U32),
        (U8, U8, S32),
        (S8, S16, S32),
        (S16, S8, S32),
        (S32, S8, S32),
        (U16, U8, U32),
        (S8, S8, S64),
        (Pred, Pred, S32),
        (S8, S8, F32),
    ] {
        let (ls, rs) = (sh(l, &[3, 230, 70]), sh(r, &[3, 70, 96]));
        let (mut b, p) = builder("dot_mixed", &[ls.clone(), rs.clone()]);
        let y = b
            .dot_general_with_type(p[0], p[1], &dims, out)
            .expect("dot");
        let comp = b.build(y).expect("build");
        // s8 products sum to at most 70 * 2^14 < 2^24: exact in f32 too.
        check_tol(&comp, &[edges(&ls, 1, 1), edges(&rs, 2, 3)], Tol::Exact);
        check_tol(&comp, &[values(&ls, 3), values(&rs, 4)], Tol::Exact);
    }
}

#[test]
fn thirty_two_bit_integer_dots_on_the_blocked_kernel() {
    // `s32`/`u32` dots (and `s8 x s8 -> s32`) run the AVX2 kernel of
    // `blocked.rs` (4 x 16 tiles, blocks of 256 k steps) where the CPU has
    // AVX2: partial tiles and strips, a second short k block, transposed
    // operands, batches split across threads; edge values wrap.
    use ElementType::{S8, S32, U32};
    for (batch, m, k, n, lc, rc) in [
        (1, 5, 257, 17, 1, 0),
        (1, 67, 300, 33, 0, 1),
        (6, 9, 40, 16, 0, 0),
        (3, 130, 16, 47, 1, 1),
    ] {
        let l = if lc == 1 {
            [batch, m, k]
        } else {
            [batch, k, m]
        };
        let r = if rc == 0 {
            [batch, k, n]
        } else {
            [batch, n, k]
        };
        for (lt, out) in [(S32, S32), (U32, U32), (S8, S32)] {
            let (ls, rs) = (sh(lt, &l), sh(lt, &r));
            let (mut b, p) = builder("dot_i32", &[ls.clone(), rs.clone()]);
            let y = b
                .dot_general_with_type(p[0], p[1], &dn(&[0], &[0], &[lc + 1], &[rc + 1]), out)
                .expect("dot");
            let comp = b.build(y).expect("build");
            check_tol(&comp, &[edges(&ls, 1, 1), edges(&rs, 2, 3)], Tol::Exact);
            check_tol(&comp, &[values(&ls, 3), values(&rs, 4)], Tol::Exact);
        }
    }
}
