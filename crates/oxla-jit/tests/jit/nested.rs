//! Reduces and dots inside reducer bodies: the JIT folds them in place
//! (`graph.rs`, "Folds"), in the interpreter's order, so every result
//! below agrees bit for bit, float sums included.
//!
//! Each reducer is run under every outer layout the JIT lowers
//! differently (row, column, middle, all, elementwise, scalar), for
//! integer and float types, on ordinary and on edge values.

use oxla_ir::{
    Builder, Computation, ElementType, Error, Literal, Op, PadDim, Shape, UnaryOp, parse_hlo_module,
};

use crate::common::*;
use crate::reduce_dot::{dn, reducer};

const F32: ElementType = ElementType::F32;
const TYPES: [ElementType; 6] = [
    ElementType::F32,
    ElementType::F64,
    ElementType::S32,
    ElementType::S8,
    ElementType::U16,
    ElementType::S64,
];

/// `(input dims, reduced dims)` of the outer reduce: row, column, middle,
/// all, elementwise (only a unit dimension), scalar.
const LAYOUTS: [(&[i64], &[i64]); 6] = [
    (&[5, 19], &[1]),
    (&[19, 5], &[0]),
    (&[3, 6, 4], &[1]),
    (&[3, 7], &[0, 1]),
    (&[6, 1, 5], &[1]),
    (&[], &[]),
];

/// A reducer `(acc, x) -> body(acc, x)` over scalars of `ty`.
fn body(
    ty: ElementType,
    name: &str,
    f: impl FnOnce(&mut Builder, Op, Op) -> oxla_ir::Result<Op>,
) -> Computation {
    let mut r = Builder::new(name);
    let a = r.parameter(0, Shape::scalar(ty), "acc").expect("acc");
    let x = r.parameter(1, Shape::scalar(ty), "x").expect("x");
    let y = f(&mut r, a, x).expect(name);
    r.build(y).expect("build")
}

fn iota(r: &mut Builder, ty: ElementType, dims: &[i64], d: i64) -> oxla_ir::Result<Op> {
    r.iota(Shape::new(ty, dims), d)
}

/// `acc + x + x + ...` (`n` times, in order): a reduce over a broadcast of
/// a parameter, starting from the other parameter.
fn repeat_add(ty: ElementType, n: i64) -> Computation {
    body(ty, "repeat_add", |r, a, x| {
        let b = r.broadcast(x, &[n])?;
        r.reduce(b, a, &[0], &reducer(ty, "add"))
    })
}

/// `max(acc, max_i x * i)`, `i` an iota: elementwise work on the folded
/// elements, a recognised inner reducer, a result combined after it.
fn scaled_max(ty: ElementType, n: i64) -> Computation {
    body(ty, "scaled_max", |r, a, x| {
        let b = r.broadcast(x, &[n])?;
        let i = iota(r, ty, &[n], 0)?;
        let t = r.mul(b, i, &[])?;
        let m = r.reduce(t, a, &[0], &reducer(ty, "max"))?;
        r.sub(m, x, &[])
    })
}

/// `dot(acc, x) + x`: a rank-0 dot of the two parameters (`0 + acc * x`).
fn scalar_dot(ty: ElementType) -> Computation {
    body(ty, "scalar_dot", |r, a, x| {
        let d = r.dot_general(a, x, &dn(&[], &[], &[], &[]))?;
        r.add(d, x, &[])
    })
}

/// `Σ_i (acc + i) * x` as a dot of two broadcast vectors of `k`.
fn vector_dot(ty: ElementType, k: i64) -> Computation {
    body(ty, "vector_dot", |r, a, x| {
        let u = r.broadcast(a, &[k])?;
        let i = iota(r, ty, &[k], 0)?;
        let u = r.add(u, i, &[])?;
        let v = r.broadcast(x, &[k])?;
        r.dot(u, v)
    })
}

/// A [2,3] x [3,4] matrix product of broadcasts (`u[i,k] = acc*(i+1) + k`,
/// `v[k,j] = x*(j+1) - k`), summed from `acc`: the dot is read inside the
/// reduce's fold (a nested fold).
fn matrix_dot_sum(ty: ElementType) -> Computation {
    body(ty, "matrix_dot_sum", |r, a, x| {
        let one = r.constant(literal_from(&Shape::scalar(ty), |_| 1.0, |_| 1))?;
        let u = r.broadcast(a, &[2, 3])?;
        let i = iota(r, ty, &[2, 3], 0)?;
        let i1 = r.add(i, one, &[])?;
        let u = r.mul(u, i1, &[])?;
        let k = iota(r, ty, &[2, 3], 1)?;
        let u = r.add(u, k, &[])?;
        let v = r.broadcast(x, &[3, 4])?;
        let j = iota(r, ty, &[3, 4], 1)?;
        let j1 = r.add(j, one, &[])?;
        let v = r.mul(v, j1, &[])?;
        let k = iota(r, ty, &[3, 4], 0)?;
        let v = r.sub(v, k, &[])?;
        let d = r.dot(u, v)?;
        r.reduce(d, a, &[0, 1], &reducer(ty, "add"))
    })
}

/// Folds whose order shows in the result: `acc - t[0] - t[1] - ...` over
/// the reduced dims `red` of `t = c * x` (`c` a constant of `dims`), plus a
/// dot of constants scaled by `acc` contracting two dims listed out of
/// order (`[1, 0]` against `[0, 1]`), over `ldims`.
fn in_order(ty: ElementType, dims: &[i64], red: &[i64], ldims: [i64; 2]) -> Computation {
    let c = values(&Shape::new(ty, dims), 21);
    let c1 = values(&Shape::new(ty, &ldims), 22);
    let c2 = values(&Shape::new(ty, &[ldims[1], ldims[0]]), 23);
    let dims = dims.to_vec();
    body(ty, "in_order", move |r, a, x| {
        let c = r.constant(c)?;
        let xb = r.broadcast(x, &dims)?;
        let t = r.mul(c, xb, &[])?;
        let s = r.reduce(t, a, red, &reducer(ty, "sub"))?;
        let c1 = r.constant(c1)?;
        let ab = r.broadcast(a, &ldims)?;
        let l = r.mul(c1, ab, &[])?;
        let c2 = r.constant(c2)?;
        let d = r.dot_general(l, c2, &dn(&[], &[], &[1, 0], &[0, 1]))?;
        r.add(s, d, &[])
    })
}

/// `acc * 2 + x * Σ c + max(iota)` with `c` a constant of `n` elements:
/// inner reduces that read no parameter.
fn constant_sum(ty: ElementType, n: i64) -> Computation {
    let c = literal_from(
        &Shape::new(ty, &[n]),
        |k| ((k * 37) % 101) as f64 / 16.0 - 3.0,
        |k| (k as i128 * 7919) % 1000 - 500,
    );
    body(ty, "constant_sum", |r, a, x| {
        let c = r.constant(c)?;
        let zero = r.constant(Literal::zeros(&Shape::scalar(ty))?)?;
        let s = r.reduce(c, zero, &[0], &reducer(ty, "add"))?;
        let xs = r.mul(x, s, &[])?;
        let a2 = r.add(a, a, &[])?;
        let i = iota(r, ty, &[100], 0)?;
        let m = r.reduce(i, zero, &[0], &reducer(ty, "max"))?;
        let y = r.add(a2, xs, &[])?;
        r.add(y, m, &[])
    })
}

/// `Σ_i (max_j c[i, j]) * x + acc` over a [100, 100] constant: a fold of
/// the constant nested in a fold over the parameter.
fn constant_rows(ty: ElementType) -> Computation {
    let c = literal_from(
        &Shape::new(ty, &[100, 100]),
        |k| ((k * 53) % 97) as f64 / 8.0 - 6.0,
        |k| (k as i128 * 104729) % 2000 - 1000,
    );
    body(ty, "constant_rows", |r, a, x| {
        let c = r.constant(c)?;
        let lo = r.constant(Literal::zeros(&Shape::scalar(ty))?)?;
        let m = r.reduce(c, lo, &[1], &reducer(ty, "max"))?;
        let xb = r.broadcast(x, &[100])?;
        let w = r.mul(m, xb, &[])?;
        r.reduce(w, a, &[0], &reducer(ty, "add"))
    })
}

/// `a + dot(broadcast(b, [3]), iota)` (the innermost body), folded by
/// `two_levels` over a broadcast of its element, folded by `three_levels`
/// likewise: reducer bodies nested three deep, a dot at the bottom.
fn inner_dot(ty: ElementType) -> Computation {
    body(ty, "inner_dot", |r, a, b| {
        let v = r.broadcast(b, &[3])?;
        let i = iota(r, ty, &[3], 0)?;
        let d = r.dot(v, i)?;
        r.add(a, d, &[])
    })
}

fn two_levels(ty: ElementType) -> Computation {
    body(ty, "two_levels", |r, a, x| {
        let b = r.broadcast(x, &[4])?;
        r.reduce(b, a, &[0], &inner_dot(ty))
    })
}

fn three_levels(ty: ElementType) -> Computation {
    body(ty, "three_levels", |r, a, x| {
        let b = r.broadcast(x, &[2])?;
        let s = r.reduce(b, a, &[0], &two_levels(ty))?;
        r.sub(s, x, &[])
    })
}

/// Three reduces of one body, each reading the one before along its own
/// reduced dimension: folds nested three deep in one body.
fn chained(ty: ElementType) -> Computation {
    body(ty, "chained", |r, a, x| {
        let b = r.broadcast(x, &[3, 4, 5])?;
        let i = iota(r, ty, &[3, 4, 5], 0)?;
        let t = r.mul(b, i, &[])?;
        let k = iota(r, ty, &[3, 4, 5], 2)?;
        let t = r.add(t, k, &[])?;
        let zero = r.constant(Literal::zeros(&Shape::scalar(ty))?)?;
        let r1 = r.reduce(t, zero, &[2], &reducer(ty, "add"))?;
        let j = iota(r, ty, &[3, 4], 1)?;
        let t2 = r.mul(r1, j, &[])?;
        let r2 = r.reduce(t2, x, &[1], &reducer(ty, "max"))?;
        r.reduce(r2, a, &[0], &reducer(ty, "sub"))
    })
}

/// Empty and single-step folds: a reduce over an empty broadcast (its
/// init), a dot with an empty contraction (zero), a reduce over unit
/// dimensions only and one over no dimension (one application each).
fn degenerate(ty: ElementType) -> Computation {
    body(ty, "degenerate", |r, a, x| {
        let e = r.broadcast(x, &[0])?;
        let s0 = r.reduce(e, a, &[0], &reducer(ty, "add"))?;
        let ea = r.broadcast(a, &[0])?;
        let d0 = r.dot(ea, e)?;
        let u = r.broadcast(x, &[1, 1])?;
        let s1 = r.reduce(u, s0, &[0, 1], &reducer(ty, "sub"))?;
        let s2 = r.reduce(x, s1, &[], &reducer(ty, "sub"))?;
        r.add(s2, d0, &[])
    })
}

/// Guards and general index maps inside a fold: a padded constant (a
/// guarded, clamped load), a reshape-transpose of an iota (division and
/// modulo in the index), a select and a clamp on the folded elements.
fn indexed(ty: ElementType) -> Computation {
    let c = literal_from(
        &Shape::new(ty, &[10]),
        |k| k as f64 * 0.75 - 2.0,
        |k| k as i128 * 3 - 11,
    );
    body(ty, "indexed", |r, a, x| {
        let c = r.constant(c)?;
        let pad = r.pad(
            c,
            x,
            &[PadDim {
                lo: 2,
                hi: 3,
                interior: 1,
            }],
        )?;
        let s = r.reduce(pad, a, &[0], &reducer(ty, "sub"))?;
        let i = iota(r, ty, &[12], 0)?;
        let xb = r.broadcast(x, &[12])?;
        let t = r.add(i, xb, &[])?;
        let t = r.reshape(t, &[3, 4])?;
        let t = r.transpose(t, &[1, 0])?;
        let xt = r.broadcast(x, &[4, 3])?;
        let big = r.gt(t, xt, &[])?;
        let neg = r.neg(t)?;
        let t = r.select(big, t, neg)?;
        let lo = r.constant(literal_from(&Shape::scalar(ty), |_| -3.0, |_| -3))?;
        let hi = r.constant(literal_from(&Shape::scalar(ty), |_| 5.5, |_| 5))?;
        let t = r.clamp(lo, t, hi)?;
        let m = r.reduce(t, s, &[1], &reducer(ty, "max"))?;
        r.reduce(m, x, &[0], &reducer(ty, "sub"))
    })
}

/// A fold of another element type inside the body: an `s32` sum of
/// converted elements, converted back.
fn mixed_types(ty: ElementType) -> Computation {
    let s32 = ElementType::S32;
    body(ty, "mixed_types", |r, a, x| {
        let xi = r.convert(x, s32)?;
        let b = r.broadcast(xi, &[7])?;
        let i = iota(r, s32, &[7], 0)?;
        let t = r.mul(b, i, &[])?;
        let zero = r.constant_scalar(0i32)?;
        let s = r.reduce(t, zero, &[0], &reducer(s32, "xor"))?;
        let f = r.convert(s, ty)?;
        r.add(a, f, &[])
    })
}

/// `pred` folds: `acc | any(x & (i % 2 == 0))` through a nested `and`.
fn pred_body() -> Computation {
    let pred = ElementType::Pred;
    body(pred, "pred_body", |r, a, x| {
        let b = r.broadcast(x, &[5])?;
        let i = iota(r, ElementType::S32, &[5], 0)?;
        let two = r.constant_scalar(2i32)?;
        let m = r.rem(i, two, &[])?;
        let z = r.constant_scalar(0i32)?;
        let even = r.eq(m, z, &[])?;
        let t = r.and(b, even, &[])?;
        let any = r.reduce(t, a, &[0], &reducer(pred, "or"))?;
        let all = r.reduce(b, any, &[0], &reducer(pred, "and"))?;
        r.xor(all, x, &[])
    })
}

/// `max(acc, max_i exp(x * i / 4))`: a transcendental in the fold.
fn transcendental(ty: ElementType) -> Computation {
    body(ty, "transcendental", |r, a, x| {
        let b = r.broadcast(x, &[6])?;
        let i = iota(r, ty, &[6], 0)?;
        let q = r.constant(literal_from(&Shape::scalar(ty), |_| 0.25, |_| 0))?;
        let t = r.mul(b, i, &[])?;
        let t = r.mul(t, q, &[])?;
        let e = r.exp(t)?;
        r.reduce(e, a, &[0], &reducer(ty, "max"))
    })
}

/// Few outer elements (row, column, scalar), for bodies the interpreter
/// takes long to run.
const FEW: [(&[i64], &[i64]); 3] = [(&[2, 3], &[1]), (&[3, 2], &[0]), (&[], &[])];

/// Runs `reduce(p0, p1)` with `red` under every layout, on ordinary
/// values and on edge values.
fn outer(ty: ElementType, red: &Computation) {
    outer_in(ty, red, &LAYOUTS, Tol::Exact)
}

fn outer_in(ty: ElementType, red: &Computation, layouts: &[(&[i64], &[i64])], tol: Tol) {
    for &(dims, rd) in layouts {
        let x = sh(ty, dims);
        let (mut b, p) = builder("outer", &[x.clone(), sh(ty, &[])]);
        let y = b.reduce(p[0], p[1], rd, red).expect("reduce");
        let comp = b.build(y).expect("build");
        // Small floats keep the folds well inside the range.
        let small = literal_from(&x, |k| ((k * 5) % 9) as f64 / 4.0 - 1.0, |k| k as i128);
        let init = literal_from(&sh(ty, &[]), |_| 0.75, |_| 3);
        check_tol(&comp, &[small, init.clone()], tol);
        check_tol(&comp, &[values(&x, 5), init], tol);
        check_tol(&comp, &[edges(&x, 2, 3), edges(&sh(ty, &[]), 1, 1)], tol);
    }
}

#[test]
fn a_reduce_over_a_broadcast_parameter() {
    for ty in TYPES {
        outer(ty, &repeat_add(ty, 3)); // unrolled
        outer(ty, &repeat_add(ty, 29)); // a loop
        outer(ty, &scaled_max(ty, 6));
        outer(ty, &scaled_max(ty, 17));
    }
}

#[test]
fn a_rank0_dot_of_the_parameters() {
    for ty in TYPES {
        outer(ty, &scalar_dot(ty));
    }
}

#[test]
fn dots_of_broadcast_vectors_and_matrices() {
    for ty in TYPES {
        outer(ty, &vector_dot(ty, 5));
        outer(ty, &vector_dot(ty, 33));
        outer(ty, &matrix_dot_sum(ty));
    }
}

#[test]
fn reduces_of_constants_only() {
    for ty in TYPES {
        outer_in(ty, &constant_sum(ty, 10_000), &FEW, Tol::Exact);
        outer(ty, &constant_sum(ty, 4));
        outer_in(ty, &constant_rows(ty), &FEW, Tol::Exact);
    }
}

#[test]
fn folds_run_in_the_interpreters_order() {
    for ty in TYPES {
        // Unrolled (6 steps each) and looped (24 and 20 steps).
        outer(ty, &in_order(ty, &[2, 1, 3], &[0, 1, 2], [2, 3]));
        outer_in(
            ty,
            &in_order(ty, &[4, 1, 6], &[0, 1, 2], [5, 4]),
            &FEW,
            Tol::Exact,
        );
    }
}

#[test]
fn bodies_nested_two_and_three_levels_deep() {
    for ty in TYPES {
        outer(ty, &two_levels(ty));
        outer(ty, &three_levels(ty));
        outer(ty, &chained(ty));
    }
}

#[test]
fn empty_single_step_guarded_and_mixed_type_folds() {
    for ty in TYPES {
        outer(ty, &degenerate(ty));
        outer(ty, &indexed(ty));
        outer(ty, &mixed_types(ty));
    }
    outer(ElementType::Pred, &pred_body());
    for ty in [F32, ElementType::F64] {
        let tol = Tol::Ulps(oxla_jit::ulp_bound(UnaryOp::Exp, ty) as u64);
        outer_in(ty, &transcendental(ty), &LAYOUTS, tol);
    }
}

#[test]
fn a_large_broadcast_in_the_body_folds_without_materialising() {
    // 100,000 additions of `x` per element of the outer reduce.
    let red = repeat_add(F32, 100_000);
    let x = sh(F32, &[4, 3]);
    let (mut b, p) = builder("big", &[x.clone(), sh(F32, &[])]);
    let y = b.reduce(p[0], p[1], &[1], &red).expect("reduce");
    let comp = b.build(y).expect("build");
    let init = literal_from(&sh(F32, &[]), |_| 0.5, |_| 0);
    check(&comp, &[values(&x, 9), init]);
}

/// A max with a nested reduce (`max(acc, max(x, x, x))`) and a sum with a
/// rank-0 dot (`acc + dot(x, 1)`), in a softmax-like chain.
fn row_chain(dims: &[i64], red: &[i64]) -> Computation {
    let nested_max = body(F32, "nested_max", |r, a, x| {
        let b = r.broadcast(x, &[3])?;
        r.reduce(b, a, &[0], &reducer(F32, "max"))
    });
    let dot_sum = body(F32, "dot_sum", |r, a, x| {
        let one = r.constant_scalar(1f32)?;
        let d = r.dot_general(x, one, &dn(&[], &[], &[], &[]))?;
        r.add(a, d, &[])
    });
    let (mut b, p) = builder("row_chain", &[sh(F32, dims)]);
    let ninf = b.constant_scalar(f32::NEG_INFINITY).expect("ninf");
    let m = b.reduce(p[0], ninf, red, &nested_max).expect("max");
    let kept: Vec<i64> = (0..dims.len() as i64)
        .filter(|d| !red.contains(d))
        .collect();
    let mb = b.broadcast_in_dim(m, dims, &kept).expect("bcast");
    let c = b.sub(p[0], mb, &[]).expect("sub");
    let e = b.mul(c, c, &[]).expect("square");
    let zero = b.constant_scalar(0f32).expect("zero");
    let s = b.reduce(e, zero, red, &dot_sum).expect("sum");
    let sb = b.broadcast_in_dim(s, dims, &kept).expect("bcast");
    let y = b.div(e, sb, &[]).expect("div");
    b.build(y).expect("build")
}

#[test]
fn row_groups_with_nested_reducers() {
    for (dims, red) in [
        (&[6, 33][..], &[1][..]),
        (&[4, 5, 16], &[2]),
        (&[3, 4, 8], &[1, 2]),
    ] {
        let comp = row_chain(dims, red);
        let exe = oxla_jit::compile(&comp).expect("compile");
        assert!(
            exe.fusion_text().contains("row-group of 3 passes"),
            "{}",
            exe.fusion_text()
        );
        let x = sh(F32, dims);
        check(&comp, &[values(&x, 4)]);
        check(&comp, &[edges(&x, 1, 2)]);
    }
}

#[test]
fn a_tuple_of_reduces_with_nested_bodies() {
    // The IR's reduce has one operand and one result (no variadic reduce):
    // several results are a tuple of reduces.
    for ty in [F32, ElementType::S32] {
        let x = sh(ty, &[7, 9]);
        let (mut b, p) = builder("tuple", &[x.clone(), sh(ty, &[])]);
        let r0 = b.reduce(p[0], p[1], &[1], &vector_dot(ty, 4)).expect("r0");
        let r1 = b.reduce(p[0], p[1], &[0], &chained(ty)).expect("r1");
        let r2 = b.reduce(p[0], p[1], &[0, 1], &scalar_dot(ty)).expect("r2");
        let y = b.tuple(&[r0, r1, r2]).expect("tuple");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&x, 2), edges(&sh(ty, &[]), 3, 1)]);
    }
}

#[test]
fn nested_bodies_parsed_from_hlo_text() {
    let text = "HloModule m\n\n\
        add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n\
        inner {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
        v = f32[8]{0} broadcast(b), dimensions={}\n  \
        w = f32[8]{0} iota(), iota_dimension=0\n  \
        d = f32[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n  \
        z = f32[] constant(0)\n  \
        t = f32[2,5]{1,0} broadcast(a), dimensions={}\n  \
        r = f32[] reduce(t, z), dimensions={0,1}, to_apply=add\n  \
        ROOT s = f32[] add(r, d)\n}\n\n\
        ENTRY e {\n  x = f32[4,6]{1,0} parameter(0)\n  z = f32[] constant(0.25)\n  \
        ROOT r = f32[4]{0} reduce(x, z), dimensions={1}, to_apply=inner\n}\n";
    let comp = parse_hlo_module(text).expect("parse");
    let x = sh(F32, &[4, 6]);
    check(&comp, &[literal_from(&x, |k| k as f64 / 8.0 - 1.0, |_| 0)]);
    check(&comp, &[edges(&x, 0, 1)]);
}

/// `B_0 = acc + x`; `B_k = reduce([x], acc, B_{k-1}) - dot(acc, x)`: each
/// body calls the one before, so the folds nest `depth` deep.
fn called_chain(ty: ElementType, depth: usize) -> Computation {
    let mut red = reducer(ty, "add");
    for k in 1..=depth {
        red = body(ty, &format!("level{k}"), |r, a, x| {
            let b = r.broadcast(x, &[1])?;
            let s = r.reduce(b, a, &[0], &red)?;
            let d = r.dot_general(a, x, &dn(&[], &[], &[], &[]))?;
            r.sub(s, d, &[])
        });
    }
    red
}

#[test]
fn sixty_levels_of_reducer_bodies() {
    let ty = ElementType::S32;
    outer_in(ty, &called_chain(ty, 60), &FEW, Tol::Exact);
}

#[test]
fn folds_nested_past_the_limit_are_a_typed_error() {
    let expect_refused = |comp: &Computation| match oxla_jit::compile(comp) {
        Err(e) => {
            let message = e.to_string();
            assert_eq!(e.code(), "OX0803", "{message}");
            match e {
                Error::JitFoldDepth {
                    op, depth, bound, ..
                } => {
                    assert_eq!((depth, bound), (64, 64), "{message}");
                    assert!(op == "reduce" || op == "dot", "{message}");
                    assert!(
                        message.contains("sits inside 64 nested folds") && message.contains("` ("),
                        "{message}"
                    );
                }
                other => panic!("unexpected error {other}"),
            }
        }
        Ok(_) => panic!("compiled a fold nest past the limit"),
    };
    // Reducer bodies calling one another 70 deep.
    let (mut b, p) = builder("calls", &[sh(F32, &[3]), sh(F32, &[])]);
    let y = b
        .reduce(p[0], p[1], &[0], &called_chain(F32, 70))
        .expect("reduce");
    expect_refused(&b.build(y).expect("build"));
    // Each reduce reads the one before along its own reduced dimension, so
    // the folds nest 70 deep (2^70 steps).
    let red = body(F32, "deep", |r, a, x| {
        let mut v = r.broadcast(x, &[2])?;
        let zero = r.constant_scalar(0f32)?;
        for _ in 0..70 {
            let t = r.broadcast_in_dim(v, &[2, 2], &[1])?;
            v = r.reduce(t, zero, &[1], &reducer(F32, "add"))?;
        }
        r.reduce(v, a, &[0], &reducer(F32, "add"))
    });
    let (mut b, p) = builder("deep", &[sh(F32, &[3]), sh(F32, &[])]);
    let y = b.reduce(p[0], p[1], &[0], &red).expect("reduce");
    expect_refused(&b.build(y).expect("build"));
}

#[test]
fn a_reducer_body_past_the_node_budget_is_a_typed_limit() {
    // 70,000 chained ops in one body: more nodes than one kernel may have
    // (65,536), and a body cannot be cut into kernels.
    let ty = ElementType::F32;
    let mut r = Builder::new("huge_body");
    let a = r.parameter(0, Shape::scalar(ty), "a").expect("a");
    let c = r.parameter(1, Shape::scalar(ty), "c").expect("c");
    let mut t = r.add(a, c, &[]).expect("add");
    for _ in 0..70_000 {
        t = r.add(t, c, &[]).expect("add");
    }
    let body = r.build(t).expect("body");
    let mut b = Builder::new("huge_reduce");
    let x = b.parameter(0, Shape::new(ty, &[3, 5]), "x").expect("x");
    let zero = b.constant_scalar(0f32).expect("zero");
    let y = b.reduce(x, zero, &[1], &body).expect("reduce");
    let comp = b.build(y).expect("build");
    match oxla_jit::compile(&comp) {
        Err(Error::JitNodeBudget {
            computation,
            nodes,
            bound,
            ..
        }) => {
            assert_eq!(bound, 65536);
            assert!(nodes > bound, "{nodes}");
            assert_eq!(computation, "huge_body");
        }
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("compiled a kernel past the node budget"),
    }
}

#[test]
fn a_reducer_body_of_thousands_of_instructions_compiles() {
    // 6,000 chained ops in one body: it cannot be cut into kernels, so it
    // must fit the node budget whole.
    let ty = ElementType::F32;
    let mut r = Builder::new("long_body");
    let a = r.parameter(0, Shape::scalar(ty), "a").expect("a");
    let c = r.parameter(1, Shape::scalar(ty), "c").expect("c");
    let mut t = r.add(a, c, &[]).expect("add");
    let half = r.constant_scalar(0.5f32).expect("half");
    for k in 0..6000 {
        t = if k % 2 == 0 {
            r.mul(t, half, &[]).expect("mul")
        } else {
            r.add(t, c, &[]).expect("add")
        };
    }
    let body = r.build(t).expect("body");
    let mut b = Builder::new("long_reduce");
    let x = b.parameter(0, Shape::new(ty, &[3, 5]), "x").expect("x");
    let zero = b.constant_scalar(0f32).expect("zero");
    let y = b.reduce(x, zero, &[1], &body).expect("reduce");
    let comp = b.build(y).expect("build");
    check(&comp, &[values(&Shape::new(ty, &[3, 5]), 3)]);
}
