//! Broadcasting patterns and the data-movement ops (broadcast, reshape,
//! transpose, slice, concatenate, reverse, pad), alone and fused.

use oxla_ir::{ElementType, PadDim, Shape};

use crate::common::*;

const F32: ElementType = ElementType::F32;

/// `lhs + rhs` with `dims`, on random values and on edge values.
fn add(ty: ElementType, lhs: &[i64], rhs: &[i64], dims: &[i64]) {
    let (l, r) = (sh(ty, lhs), sh(ty, rhs));
    let (mut b, p) = builder("bcast", &[l.clone(), r.clone()]);
    let y = b.add(p[0], p[1], dims).expect("add");
    let comp = b.build(y).expect("build");
    check(&comp, &[values(&l, 1), values(&r, 2)]);
    check(&comp, &[edges(&l, 0, 1), edges(&r, 4, 3)]);
}

#[test]
fn broadcast_patterns_of_binary_ops() {
    for ty in [
        F32,
        ElementType::F64,
        ElementType::S32,
        ElementType::U8,
        ElementType::S64,
        ElementType::Pred,
    ] {
        // matrix + row vector {1}, + column vector {0}
        add(ty, &[5, 7], &[7], &[1]);
        add(ty, &[5, 7], &[5], &[0]);
        add(ty, &[7], &[5, 7], &[1]);
        // 2x3x4 + 3x4 {1,2}
        add(ty, &[2, 3, 4], &[3, 4], &[1, 2]);
        add(ty, &[2, 3, 4], &[2, 4], &[0, 2]);
        // degenerate: [4,1] + [1,5]; [1,2] + [4,3,1] {1,2}
        add(ty, &[4, 1], &[1, 5], &[]);
        add(ty, &[1, 2], &[4, 3, 1], &[1, 2]);
        // outer: [4] + [1,5] {0}
        add(ty, &[4], &[1, 5], &[0]);
        // composed InDim + degenerate: [2,1] + [2,3,4] {0,2}
        add(ty, &[2, 1], &[2, 3, 4], &[0, 2]);
        // scalar
        add(ty, &[], &[3, 13], &[]);
        add(ty, &[13], &[], &[]);
        add(ty, &[], &[], &[]);
        // sizes 0 and 1, odd lengths
        add(ty, &[0, 7], &[7], &[1]);
        add(ty, &[3, 0], &[0], &[1]);
        add(ty, &[1], &[1], &[]);
        add(ty, &[33], &[33], &[]);
        add(ty, &[13, 1], &[13, 33], &[]);
        // rank 4: W6-like
        add(ty, &[3, 5, 2, 7], &[5, 7], &[1, 3]);
        add(ty, &[2, 1, 3, 1], &[1, 4, 1, 5], &[]);
    }
}

#[test]
fn broadcast_in_dim_and_broadcast_are_index_maps() {
    let x = sh(F32, &[3, 1]);
    let (mut b, p) = builder("bid", std::slice::from_ref(&x));
    let y = b.broadcast_in_dim(p[0], &[2, 3, 9], &[1, 2]).expect("bid");
    let comp = b.build(y).expect("build");
    check(&comp, &[values(&x, 3)]);
    let (mut b, p) = builder("bc", std::slice::from_ref(&x));
    let y = b.broadcast(p[0], &[4, 2]).expect("bc");
    let comp = b.build(y).expect("build");
    check(&comp, &[values(&x, 3)]);
    // A transposing broadcast (dimensions={1,0}).
    let x = sh(F32, &[5, 6]);
    let mut b = oxla_ir::Builder::new("bt");
    let p0 = b.parameter(0, x.clone(), "x").expect("p");
    let y = b.broadcast_in_dim(p0, &[6, 5], &[1, 0]);
    if let Ok(y) = y {
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&x, 3)]);
    }
}

#[test]
fn reshapes_split_merge_and_unit_dimensions() {
    let cases: &[(&[i64], &[i64])] = &[
        (&[6, 4], &[24]),
        (&[24], &[2, 3, 4]),
        (&[2, 3, 4], &[6, 4]),
        (&[2, 3, 4], &[4, 6]),
        (&[2, 1, 3], &[3, 2]),
        (&[5], &[1, 5, 1]),
        (&[1, 5, 1], &[5]),
        (&[3, 5], &[5, 3]),
        (&[], &[1, 1]),
        (&[0, 3], &[3, 0]),
    ];
    for &(from, to) in cases {
        let x = sh(F32, from);
        // Straight from a buffer.
        let (mut b, p) = builder("reshape", std::slice::from_ref(&x));
        let y = b.reshape(p[0], to).expect("reshape");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&x, 4)]);
        // Of a fused expression, and fused into a consumer.
        let (mut b, p) = builder("reshape_fused", std::slice::from_ref(&x));
        let n = b.neg(p[0]).expect("neg");
        let y = b.reshape(n, to).expect("reshape");
        let two = b.constant_scalar(2f32).expect("c");
        let z = b.mul(y, two, &[]).expect("mul");
        let comp = b.build(z).expect("build");
        check(&comp, &[values(&x, 4)]);
        // Of a transpose (non-contiguous source).
        if from.len() == 2 {
            let (mut b, p) = builder("reshape_t", std::slice::from_ref(&x));
            let t = b.transpose(p[0], &[1, 0]).expect("t");
            let y = b.reshape(t, to).expect("reshape");
            let comp = b.build(y).expect("build");
            check(&comp, &[values(&x, 4)]);
        }
    }
}

#[test]
fn transpose_slice_reverse_and_their_compositions() {
    for ty in [F32, ElementType::S16, ElementType::Pred, ElementType::F64] {
        let x = sh(ty, &[3, 4, 5]);
        for perm in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1], [2, 0, 1]] {
            let (mut b, p) = builder("t", std::slice::from_ref(&x));
            let y = b.transpose(p[0], &perm).expect("t");
            let comp = b.build(y).expect("build");
            check(&comp, &[values(&x, 5)]);
        }
        let (mut b, p) = builder("slice", std::slice::from_ref(&x));
        let y = b
            .slice(p[0], &[1, 0, 1], &[3, 4, 5], &[1, 2, 3])
            .expect("slice");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&x, 6)]);
        for dims in [&[0][..], &[2], &[0, 1, 2], &[]] {
            let (mut b, p) = builder("rev", std::slice::from_ref(&x));
            let y = b.reverse(p[0], dims).expect("rev");
            let comp = b.build(y).expect("build");
            check(&comp, &[values(&x, 7)]);
        }
        // reverse(transpose(slice(x))) + x-ish
        let (mut b, p) = builder("composed", std::slice::from_ref(&x));
        let s = b
            .slice(p[0], &[0, 1, 0], &[3, 4, 5], &[1, 1, 1])
            .expect("slice");
        let t = b.transpose(s, &[2, 0, 1]).expect("t");
        let r = b.reverse(t, &[0, 2]).expect("rev");
        let y = b.add(r, r, &[]).expect("add");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&x, 8)]);
    }
}

#[test]
fn concatenate_and_pad_with_guards() {
    for ty in [F32, ElementType::S32, ElementType::U8, ElementType::Pred] {
        let a = sh(ty, &[2, 5]);
        let c = sh(ty, &[3, 5]);
        let e = sh(ty, &[0, 5]);
        let (mut b, p) = builder("concat0", &[a.clone(), c.clone(), e.clone()]);
        let y = b.concatenate(&[p[0], p[2], p[1]], 0).expect("concat");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&a, 1), values(&c, 2), values(&e, 3)]);
        let d = sh(ty, &[2, 3]);
        let (mut b, p) = builder("concat1", &[a.clone(), d.clone()]);
        let y = b.concatenate(&[p[0], p[1], p[0]], 1).expect("concat");
        let n = b.not_or_neg(y);
        let comp = b.build(n).expect("build");
        check(&comp, &[values(&a, 1), values(&d, 2)]);
        // pad: edges, negative (cropping), interior.
        let x = sh(ty, &[3, 4]);
        let pv = sh(ty, &[]);
        for cfg in [
            [
                PadDim {
                    lo: 1,
                    hi: 2,
                    interior: 0,
                },
                PadDim {
                    lo: 0,
                    hi: 3,
                    interior: 0,
                },
            ],
            [
                PadDim {
                    lo: -1,
                    hi: 1,
                    interior: 1,
                },
                PadDim {
                    lo: 2,
                    hi: -1,
                    interior: 2,
                },
            ],
            [
                PadDim {
                    lo: 0,
                    hi: 0,
                    interior: 0,
                },
                PadDim {
                    lo: -2,
                    hi: -1,
                    interior: 0,
                },
            ],
            [
                PadDim {
                    lo: 5,
                    hi: 0,
                    interior: 3,
                },
                PadDim {
                    lo: 0,
                    hi: 0,
                    interior: 1,
                },
            ],
        ] {
            let (mut b, p) = builder("pad", &[x.clone(), pv.clone()]);
            let y = b.pad(p[0], p[1], &cfg).expect("pad");
            let comp = b.build(y).expect("build");
            check(&comp, &[values(&x, 4), values(&pv, 5)]);
        }
    }
    // pad of a broadcast, concatenated with a slice: guards inside guards.
    let x = sh(F32, &[4]);
    let (mut b, p) = builder("nested", std::slice::from_ref(&x));
    let bc = b.broadcast_in_dim(p[0], &[3, 4], &[1]).expect("bc");
    let z = b.constant_scalar(-1f32).expect("c");
    let pd = b
        .pad(
            bc,
            z,
            &[
                PadDim {
                    lo: 1,
                    hi: 0,
                    interior: 1,
                },
                PadDim {
                    lo: 2,
                    hi: 1,
                    interior: 0,
                },
            ],
        )
        .expect("pad");
    let s = b.slice(pd, &[1, 1], &[6, 7], &[1, 1]).expect("slice");
    let c = b.concatenate(&[s, s], 1).expect("concat");
    let comp = b.build(c).expect("build");
    check(&comp, &[values(&x, 9)]);
}

trait NotOrNeg {
    fn not_or_neg(&mut self, x: oxla_ir::Op) -> oxla_ir::Op;
}

impl NotOrNeg for oxla_ir::Builder {
    fn not_or_neg(&mut self, x: oxla_ir::Op) -> oxla_ir::Op {
        let s = self.shape(x).expect("shape");
        if s.element_type().is_pred() || s.element_type().is_unsigned_integer() {
            self.not(x).expect("not")
        } else {
            self.neg(x).expect("neg")
        }
    }
}

#[test]
fn tuple_roots_with_duplicates_parameters_and_constants() {
    let x = sh(F32, &[3, 5]);
    let (mut b, p) = builder("tuple", std::slice::from_ref(&x));
    let e = b.exp(p[0]).expect("exp");
    let n = b.neg(e).expect("neg");
    let c = b
        .constant(oxla_ir::Literal::from_vec(&[2], vec![1i32, 2]).expect("lit"))
        .expect("c");
    let inner = b.tuple(&[n, c]).expect("tuple");
    let t = b.tuple(&[n, p[0], inner, n, e]).expect("tuple");
    let comp = b.build(t).expect("build");
    check(&comp, &[values(&x, 1)]);
    // A parameter as the whole result, and a constant.
    let (b, p) = builder("id", std::slice::from_ref(&x));
    let comp = b.build(p[0]).expect("build");
    check(&comp, &[values(&x, 2)]);
    let mut b = oxla_ir::Builder::new("constant");
    let c = b
        .constant(
            oxla_ir::Literal::from_vec(&[2, 2], vec![1f64, -0.0, f64::NAN, 4.0]).expect("lit"),
        )
        .expect("c");
    let comp = b.build(c).expect("build");
    check(&comp, &[]);
    // A non-scalar constant read by a kernel.
    let mut b = oxla_ir::Builder::new("constant_read");
    let xp = b.parameter(0, sh(F32, &[2, 3]), "x").expect("x");
    let c = b
        .constant(oxla_ir::Literal::from_vec(&[3], vec![1f32, 2., 3.]).expect("lit"))
        .expect("c");
    let y = b.mul(xp, c, &[1]).expect("mul");
    let comp = b.build(y).expect("build");
    check(&comp, &[values(&sh(F32, &[2, 3]), 3)]);
}

#[test]
fn ranks_zero_to_four_and_empty_shapes() {
    let shapes: &[&[i64]] = &[
        &[],
        &[1],
        &[0],
        &[7],
        &[3, 13],
        &[2, 3, 33],
        &[2, 1, 3, 5],
        &[2, 0, 3, 5],
    ];
    for dims in shapes {
        let x = Shape::new(F32, dims);
        let (mut b, p) = builder("rank", &[x.clone(), x.clone()]);
        let m = b.mul(p[0], p[1], &[]).expect("mul");
        let s = b.sub(m, p[0], &[]).expect("sub");
        let comp = b.build(s).expect("build");
        check(&comp, &[values(&x, 1), edges(&x, 2, 1)]);
    }
}
