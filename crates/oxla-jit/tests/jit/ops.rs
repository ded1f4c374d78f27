//! Every elementwise op on every element type it accepts, on edge values,
//! bit for bit against the interpreter (transcendentals within the math
//! library's ulp bound).

use oxla_ir::shape_inference::{infer_binary_op_shape, infer_unary_op_shape};
use oxla_ir::{BinaryOp, ElementType, Shape, UnaryOp};

use crate::common::*;

fn is_transcendental_unary(op: UnaryOp) -> bool {
    matches!(
        op,
        UnaryOp::Exp
            | UnaryOp::Expm1
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sin
            | UnaryOp::Cos
    )
}

fn is_transcendental_binary(op: BinaryOp, ty: ElementType) -> bool {
    ty.is_float() && matches!(op, BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Rem)
}

#[test]
fn unary_ops_on_every_type_and_edge_value() {
    for &op in UnaryOp::ALL {
        for ty in jit_types() {
            // 19 elements: a vector body and a scalar tail; also a scalar.
            for dims in [&[19][..], &[]] {
                let shape = Shape::new(ty, dims);
                if infer_unary_op_shape(op, &shape).is_err() {
                    continue;
                }
                let (mut b, p) = builder("unary", std::slice::from_ref(&shape));
                let y = b.unary(op, p[0]).expect("unary op");
                let comp = b.build(y).expect("build");
                let tol = if is_transcendental_unary(op) {
                    Tol::Ulps(oxla_jit::ulp_bound(op, ty) as u64)
                } else {
                    Tol::Exact
                };
                check_tol(&comp, &[edges(&shape, 3, 1)], tol);
            }
        }
    }
}

#[test]
fn binary_ops_on_every_type_and_every_pair_of_edge_values() {
    for &op in BinaryOp::ALL {
        for ty in jit_types() {
            let (a, c) = edge_pairs(ty);
            if infer_binary_op_shape(op, a.shape(), c.shape(), &[]).is_err() {
                continue;
            }
            let (mut b, p) = builder("binary", &[a.shape().clone(), c.shape().clone()]);
            let y = b.binary(p[0], p[1], op, &[]).expect("binary");
            let comp = b.build(y).expect("build");
            let tol = if is_transcendental_binary(op, ty) {
                Tol::Ulps(oxla_jit::ulp_bound_binary(op, ty) as u64)
            } else {
                Tol::Exact
            };
            check_tol(&comp, &[a, c], tol);
        }
    }
}

#[test]
fn shifts_by_a_row_invariant_amount_take_the_vector_path() {
    // The amount is a broadcast column: invariant along the inner loop.
    for ty in jit_types().into_iter().filter(|t| t.is_integer()) {
        let x = sh(ty, &[18, 33]);
        let s = sh(ty, &[18]);
        for op in [
            BinaryOp::ShiftLeft,
            BinaryOp::ShiftRightArithmetic,
            BinaryOp::ShiftRightLogical,
        ] {
            let (mut b, p) = builder("shift", &[x.clone(), s.clone()]);
            let y = b.binary(p[0], p[1], op, &[0]).expect("shift");
            let comp = b.build(y).expect("build");
            check(&comp, &[values(&x, 5), edges(&s, 0, 1)]);
        }
    }
}

#[test]
fn convert_between_every_pair_of_types() {
    for from in jit_types() {
        for to in jit_types() {
            for n in [21i64, 1] {
                let shape = sh(from, &[n]);
                let (mut b, p) = builder("convert", std::slice::from_ref(&shape));
                let y = b.convert(p[0], to).expect("convert");
                let comp = b.build(y).expect("build");
                check(&comp, &[edges(&shape, 0, 1)]);
                check(&comp, &[values(&shape, 9)]);
            }
        }
    }
}

#[test]
fn select_and_clamp_with_scalar_and_array_operands() {
    for ty in jit_types() {
        let s = sh(ty, &[37]);
        let p = sh(ElementType::Pred, &[37]);
        let (mut b, ps) = builder("select", &[p.clone(), s.clone(), s.clone()]);
        let y = b.select(ps[0], ps[1], ps[2]).expect("select");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&p, 1), edges(&s, 0, 1), edges(&s, 5, 3)]);
        // Scalar predicate.
        let ps0 = sh(ElementType::Pred, &[]);
        let (mut b, ps) = builder("select_scalar", &[ps0.clone(), s.clone(), s.clone()]);
        let y = b.select(ps[0], ps[1], ps[2]).expect("select");
        let comp = b.build(y).expect("build");
        for v in [false, true] {
            let pv = oxla_ir::Literal::scalar(v);
            check(&comp, &[pv, edges(&s, 0, 1), edges(&s, 5, 3)]);
        }
        if ty.is_pred() {
            continue;
        }
        let lo = sh(ty, &[]);
        let (mut b, ps) = builder("clamp", &[lo.clone(), s.clone(), s.clone()]);
        let y = b.clamp(ps[0], ps[1], ps[2]).expect("clamp");
        let comp = b.build(y).expect("build");
        check(&comp, &[edges(&lo, 2, 1), edges(&s, 0, 1), edges(&s, 7, 5)]);
    }
}

#[test]
fn iota_of_every_type_along_each_dimension() {
    for ty in jit_types().into_iter().filter(|t| !t.is_pred()) {
        for (dims, d) in [
            (&[300][..], 0),
            (&[3, 17][..], 1),
            (&[5, 2, 7][..], 0),
            (&[2, 130][..], 1),
        ] {
            let mut b = oxla_ir::Builder::new("iota");
            let y = b.iota(sh(ty, dims), d).expect("iota");
            let comp = b.build(y).expect("build");
            check(&comp, &[]);
        }
    }
}

#[test]
fn fused_chains_mix_types_through_compare_convert_and_select() {
    // (x > y ? x : y) * 2, then converted to s32 and compared again.
    let x = sh(ElementType::F32, &[5, 33]);
    let y = sh(ElementType::F32, &[33]);
    let (mut b, p) = builder("chain", &[x.clone(), y.clone()]);
    let gt = b.gt(p[0], p[1], &[1]).expect("gt");
    let yb = b.broadcast_in_dim(p[1], &[5, 33], &[1]).expect("bcast");
    let m = b.select(gt, p[0], yb).expect("select");
    let two = b.constant_scalar(2f32).expect("const");
    let m2 = b.mul(m, two, &[]).expect("mul");
    let c = b.convert(m2, ElementType::S32).expect("convert");
    let z = b.constant_scalar(0i32).expect("const");
    let r = b.ge(c, z, &[]).expect("ge");
    let comp = b.build(r).expect("build");
    check(&comp, &[edges(&x, 0, 1), edges(&y, 3, 1)]);
    let comp = b.build(m2).expect("build");
    check(&comp, &[edges(&x, 0, 1), edges(&y, 3, 1)]);
}

#[test]
fn byte_multiplies_take_the_vector_path() {
    // x86-64 has no byte multiply: the JIT widens to 16-bit lanes. Every
    // pair of byte values (65,536 products, wrapping), elementwise and as a
    // row product, in 16-lane vectors with a scalar tail.
    for ty in [ElementType::S8, ElementType::U8] {
        let pairs: Vec<(u8, u8)> = (0..=255u8)
            .flat_map(|a| (0..=255u8).map(move |b| (a, b)))
            .collect();
        let lit = |f: &dyn Fn(&(u8, u8)) -> u8| {
            let v: Vec<u8> = pairs.iter().map(f).collect();
            let l = oxla_ir::Literal::from_vec(&[256, 256], v).expect("lit");
            if ty == ElementType::U8 {
                l
            } else {
                let (mut b, p) = builder("c", &[l.shape().clone()]);
                let c = b.convert(p[0], ty).expect("convert");
                oxla_interp::evaluate(&b.build(c).expect("build"), &[&l]).expect("eval")
            }
        };
        let (x, y) = (lit(&|p| p.0), lit(&|p| p.1));
        let s = sh(ty, &[256, 256]);
        let (mut b, p) = builder("mul", &[s.clone(), s.clone()]);
        let m = b.mul(p[0], p[1], &[]).expect("mul");
        let comp = b.build(m).expect("build");
        let text = oxla_jit::fusion_text(&comp).expect("fusion");
        assert!(text.contains("i8x16"), "not vectorised:\n{text}");
        check(&comp, &[x.clone(), y.clone()]);
        // A row product of 253 odd elements (15 vectors and a tail of 13;
        // odd, so the wrapping product does not collapse to 0).
        let r = sh(ty, &[7, 253]);
        let (mut b, p) = builder("prod", std::slice::from_ref(&r));
        let one = b.constant(oxla_ir::Literal::scalar(1i32)).expect("c");
        let one = b.convert(one, ty).expect("convert");
        let odd = b.or(p[0], one, &[]).expect("or");
        let reducer = crate::reduce_dot::reducer(ty, "mul");
        let red = b.reduce(odd, one, &[1], &reducer).expect("reduce");
        let text = oxla_jit::fusion_text(&b.build(red).expect("build")).expect("fusion");
        assert!(text.contains("i8x16"), "not vectorised:\n{text}");
        let comp = b.build(red).expect("build");
        check(&comp, &[values(&r, 9)]);
    }
}
