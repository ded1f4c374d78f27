//! Fusion decisions pinned as snapshots: the XLA broadcasting examples and
//! the benchmark workloads W1-W10. Each snapshot lists the buffers, then
//! every kernel with its loops, its vectorisation, how it reads each
//! buffer (an element offset in the loop variables: a missing variable is
//! a stride-0 broadcast) and the instructions fused into it.

use oxla_ir::{Builder, Computation, DotDimensionNumbers, ElementType, Shape};

use crate::common::*;

const F32: ElementType = ElementType::F32;

fn snap(name: &str, comp: &Computation) {
    let text = oxla_jit::fusion_text(comp).expect("compile");
    insta::assert_snapshot!(name, text);
}

fn binary(name: &str, l: &[i64], r: &[i64], dims: &[i64]) -> Computation {
    let (mut b, p) = builder(name, &[sh(F32, l), sh(F32, r)]);
    let y = b.add(p[0], p[1], dims).expect("add");
    b.build(y).expect("build")
}

fn reducer(kind: &str) -> Computation {
    let mut r = Builder::new(kind);
    let a = r.parameter(0, Shape::scalar(F32), "a").expect("a");
    let c = r.parameter(1, Shape::scalar(F32), "c").expect("c");
    let y = if kind == "max" {
        r.max(a, c, &[])
    } else {
        r.add(a, c, &[])
    }
    .expect("op");
    r.build(y).expect("build")
}

#[test]
fn xla_broadcasting_examples() {
    snap(
        "matrix_plus_row_vector",
        &binary("m_v1", &[2, 3], &[3], &[1]),
    );
    snap(
        "matrix_plus_column_vector",
        &binary("m_v0", &[2, 3], &[2], &[0]),
    );
    snap(
        "rank3_plus_matrix",
        &binary("r3_m", &[2, 3, 4], &[3, 4], &[1, 2]),
    );
    snap("degenerate", &binary("degenerate", &[4, 1], &[1, 5], &[]));
    snap("outer", &binary("outer", &[4], &[1, 5], &[0]));
    snap(
        "in_dim_and_degenerate",
        &binary("composed", &[1, 2], &[4, 3, 1], &[1, 2]),
    );
    // A composition: (x + v) * w - s, one loop.
    let (mut b, p) = builder(
        "composition",
        &[
            sh(F32, &[2, 3, 4]),
            sh(F32, &[4]),
            sh(F32, &[2, 1, 4]),
            sh(F32, &[]),
        ],
    );
    let a = b.add(p[0], p[1], &[2]).expect("add");
    let m = b.mul(a, p[2], &[]).expect("mul");
    let s = b.sub(m, p[3], &[]).expect("sub");
    snap("composition", &b.build(s).expect("build"));
    // The strict-HLO form of a broadcast (reshape + broadcast chains).
    let (mut b, p) = builder("explicit", &[sh(F32, &[2, 1, 4]), sh(F32, &[2, 3, 4])]);
    let r = b.reshape(p[0], &[2, 4]).expect("reshape");
    let bc = b.broadcast_in_dim(r, &[2, 3, 4], &[0, 2]).expect("bcast");
    let y = b.add(bc, p[1], &[]).expect("add");
    snap("reshape_broadcast_chain", &b.build(y).expect("build"));
}

pub fn workloads() -> Vec<(&'static str, Computation)> {
    let n = 4096;
    let mut out = vec![
        ("w1", binary("w1", &[n, n], &[n], &[1])),
        ("w2", binary("w2", &[n, n], &[n], &[0])),
        ("w3", binary("w3", &[n, 1], &[1, n], &[])),
        ("w4", binary("w4", &[n], &[1, n], &[0])),
    ];
    let (mut b, p) = builder("w5", &[sh(F32, &[n, n]), sh(F32, &[n]), sh(F32, &[n])]);
    let xw = b.mul(p[0], p[1], &[1]).expect("mul");
    let a = b.add(xw, p[2], &[0]).expect("add");
    let z = b.constant_scalar(0f32).expect("c");
    let y = b.max(a, z, &[]).expect("max");
    out.push(("w5", b.build(y).expect("build")));
    out.push(("w6", binary("w6", &[64, 32, 64, 32], &[32, 32], &[1, 3])));
    let (mut b, p) = builder("w7", &[sh(F32, &[n, n]), sh(F32, &[n])]);
    let gt = b.gt(p[0], p[1], &[1]).expect("gt");
    let yb = b.broadcast_in_dim(p[1], &[n, n], &[1]).expect("bcast");
    let y = b.select(gt, p[0], yb).expect("select");
    out.push(("w7", b.build(y).expect("build")));
    out.push(("w8", binary("w8", &[16, 16], &[16], &[1])));
    let mut b = Builder::new("w9a");
    let x = b.parameter(0, sh(F32, &[n, n]), "x").expect("x");
    let z = b.constant_scalar(0f32).expect("c");
    let y = b.reduce(x, z, &[1], &reducer("add")).expect("reduce");
    out.push(("w9a", b.build(y).expect("build")));
    let mut b = Builder::new("w9b");
    let x = b.parameter(0, sh(F32, &[n, n]), "x").expect("x");
    let ninf = b.constant_scalar(f32::NEG_INFINITY).expect("c");
    let m = b.reduce(x, ninf, &[1], &reducer("max")).expect("max");
    let d = b.sub(x, m, &[0]).expect("sub");
    let e = b.exp(d).expect("exp");
    let z = b.constant_scalar(0f32).expect("c");
    let s = b.reduce(e, z, &[1], &reducer("add")).expect("sum");
    let y = b.div(e, s, &[0]).expect("div");
    out.push(("w9b", b.build(y).expect("build")));
    let (mut b, p) = builder("w10", &[sh(F32, &[1024, 1024]), sh(F32, &[1024, 1024])]);
    let dims = DotDimensionNumbers {
        lhs_contracting: vec![1],
        rhs_contracting: vec![0],
        ..Default::default()
    };
    let y = b.dot_general(p[0], p[1], &dims).expect("dot");
    out.push(("w10", b.build(y).expect("build")));
    out
}

#[test]
fn workload_fusion_decisions() {
    for (name, comp) in workloads() {
        snap(name, &comp);
    }
}

/// Row groups beyond softmax: log-softmax (with a row pass for the log of
/// the sum) and layer norm (two reduces and the normalisation).
#[test]
fn row_group_decisions() {
    let x = sh(F32, &[64, 512]);
    let mut b = Builder::new("log_softmax");
    let p = b.parameter(0, x.clone(), "x").expect("x");
    let y = oxla_ir::composite::log_softmax(&mut b, p, 1).expect("log_softmax");
    snap("log_softmax", &b.build(y).expect("build"));
    let mut b = Builder::new("layer_norm");
    let p = b.parameter(0, x, "x").expect("x");
    let g = b.parameter(1, sh(F32, &[512]), "gamma").expect("g");
    let be = b.parameter(2, sh(F32, &[512]), "beta").expect("b");
    let y = oxla_ir::composite::layer_norm(&mut b, p, g, be, 1, 1e-5).expect("ln");
    snap("layer_norm", &b.build(y).expect("build"));
}

#[test]
fn every_workload_is_one_kernel() {
    // Softmax included: its max, sum and divide are one row-group kernel.
    for (name, comp) in workloads() {
        let exe = oxla_jit::compile(&comp).expect("compile");
        let want = 1;
        assert_eq!(exe.kernel_count(), want, "{name}:\n{}", exe.fusion_text());
    }
}

#[test]
fn transposing_reads_are_tiled_and_exact() {
    // (input dims, permutation, tiled?): 2-D and 3-D transposes, extents
    // that hold whole tiles and ones that do not (left untiled), and one
    // big enough to be split across threads.
    let cases: [(&[i64], &[i64], bool); 6] = [
        (&[256, 64], &[1, 0], true),
        (&[3, 40, 48], &[0, 2, 1], true),
        (&[48, 5, 40], &[2, 1, 0], true),
        (&[37, 45], &[1, 0], false),
        (&[512, 520], &[1, 0], true),
        (&[6, 7], &[1, 0], false),
    ];
    for (dims, perm, tiled) in cases {
        for ty in [F32, ElementType::S8, ElementType::F64] {
            let x = sh(ty, dims);
            let out: Vec<i64> = perm.iter().map(|&d| dims[d as usize]).collect();
            let v = sh(ty, &out[out.len() - 1..]);
            // transpose(x) + v (broadcast along the last output dim): the
            // transpose fuses with the add, and v is read at stride 1.
            let (mut b, p) = builder("t", &[x.clone(), v.clone()]);
            let t = b.transpose(p[0], perm).expect("transpose");
            let last = (out.len() - 1) as i64;
            let y = b.add(t, p[1], &[last]).expect("add");
            let comp = b.build(y).expect("build");
            let text = oxla_jit::fusion_text(&comp).expect("fusion");
            let loops = text
                .lines()
                .find(|l| l.trim_start().starts_with("loops="))
                .unwrap_or_default()
                .to_string();
            // Tiled nests end in a tile loop of 8 or 4.
            let ends_in_tile = loops.contains(", 8]") || loops.contains(", 4]");
            assert_eq!(ends_in_tile, tiled, "{dims:?} {perm:?} {ty}: {loops}");
            check(&comp, &[values(&x, 1), values(&v, 2)]);
        }
    }
}

/// `pad` with (lo, hi, interior) on every dimension.
fn pads(cfg: &[(i64, i64, i64)]) -> Vec<oxla_ir::PadDim> {
    cfg.iter()
        .map(|&(lo, hi, interior)| oxla_ir::PadDim { lo, hi, interior })
        .collect()
}

#[test]
fn guards_along_the_inner_loop_split_it_and_vectorise() {
    use oxla_ir::Literal;
    // Each case: a computation, its inputs, and whether its kernel is split
    // along the innermost loop. Results are compared bit for bit, and the
    // split kernels must run vectorised.
    let mut cases: Vec<(Computation, Vec<Literal>, bool)> = Vec::new();
    // Cases whose every guard lies along the split loop: none is left.
    let mut guard_free: Vec<String> = Vec::new();
    for ty in [F32, ElementType::S8, ElementType::Pred] {
        // Concatenate along the last axis, 3 parts of uneven widths, fused
        // with an elementwise op: one stretch per part.
        let (a, b, c) = (sh(ty, &[70, 131]), sh(ty, &[70, 5]), sh(ty, &[70, 190]));
        let (mut bl, p) = builder("concat", &[a.clone(), b.clone(), c.clone()]);
        let cat = bl.concatenate(&[p[0], p[1], p[2]], 1).expect("concat");
        let y = bl.max(cat, cat, &[]).expect("max");
        let comp = bl.build(y).expect("build");
        guard_free.push(comp.name().to_string());
        cases.push((
            comp,
            vec![values(&a, 1), values(&b, 2), values(&c, 3)],
            true,
        ));
    }
    for ty in [F32, ElementType::S32] {
        let x = sh(ty, &[60, 300]);
        // Edge padding on both axes, plus a negative (cropping) low pad.
        for cfg in [
            [(1, 1, 0), (1, 1, 0)],
            [(2, 0, 0), (-3, 7, 0)],
            [(0, 0, 0), (5, 5, 0)],
        ] {
            let (mut bl, p) = builder("pad", std::slice::from_ref(&x));
            let z = bl
                .constant(Literal::zeros(&sh(ty, &[])).expect("z"))
                .expect("z");
            let y = bl.pad(p[0], z, &pads(&cfg)).expect("pad");
            let comp = bl.build(y).expect("build");
            cases.push((comp, vec![values(&x, 4)], true));
        }
        // The padded axis reversed: the guard runs backwards (-q).
        let (mut bl, p) = builder("pad_rev", std::slice::from_ref(&x));
        let z = bl
            .constant(Literal::zeros(&sh(ty, &[])).expect("z"))
            .expect("z");
        let y = bl
            .pad(p[0], z, &pads(&[(0, 0, 0), (3, 9, 0)]))
            .expect("pad");
        let y = bl.reverse(y, &[1]).expect("reverse");
        let comp = bl.build(y).expect("build");
        guard_free.push(comp.name().to_string());
        cases.push((comp, vec![values(&x, 5)], true));
        // Interior padding: a divisibility guard, left alone.
        let (mut bl, p) = builder("pad_interior", std::slice::from_ref(&x));
        let z = bl
            .constant(Literal::zeros(&sh(ty, &[])).expect("z"))
            .expect("z");
        let y = bl
            .pad(p[0], z, &pads(&[(0, 0, 0), (1, 1, 1)]))
            .expect("pad");
        let comp = bl.build(y).expect("build");
        cases.push((comp, vec![values(&x, 6)], false));
    }
    // A 1-D concatenate: the split loop is also the one split across threads.
    let (a, b) = (sh(F32, &[70_001]), sh(F32, &[30_003]));
    let (mut bl, p) = builder("concat1d", &[a.clone(), b.clone()]);
    let y = bl.concatenate(&[p[0], p[1]], 0).expect("concat");
    let comp = bl.build(y).expect("build");
    guard_free.push(comp.name().to_string());
    cases.push((comp, vec![values(&a, 7), values(&b, 8)], true));
    // Too small to bother: left as one kernel.
    let (a, b) = (sh(F32, &[10, 20]), sh(F32, &[10, 30]));
    let (mut bl, p) = builder("small", &[a.clone(), b.clone()]);
    let y = bl.concatenate(&[p[0], p[1]], 1).expect("concat");
    let comp = bl.build(y).expect("build");
    cases.push((comp, vec![values(&a, 9), values(&b, 10)], false));

    for (comp, args, split) in cases {
        let text = oxla_jit::fusion_text(&comp).expect("fusion");
        assert_eq!(
            text.contains("split along the innermost loop where"),
            split,
            "{text}"
        );
        if split {
            // The stretch that holds the data is vectorised.
            assert!(
                text.contains("x4 unroll") || text.contains("x16 unroll"),
                "{text}"
            );
        }
        if guard_free.iter().any(|n| n == comp.name()) {
            assert!(!text.contains("(guarded)"), "a guard is left:\n{text}");
        }
        check(&comp, &args);
    }
}

/// A concatenate along a last dimension whose parts are one element wide
/// is split into stretches one element long, each writing a strided
/// column (every 2nd or 4th element). Such a stretch's offset has no term
/// for the split loop (its extent is 1); the verifier joins the stretches
/// along a stand-in for it, and once refused these kernels (`f32[n,1]`
/// pairs, four `u8[100,300,1]` parts) as writing their buffer wrongly.
/// Mixed widths (`[n,1]` with `[n,2]`) join along the split loop itself.
#[test]
fn concatenates_of_one_wide_parts_split_verify_and_agree() {
    use ElementType::{F32, U8};
    let cases: Vec<(&str, Vec<Shape>, i64)> = vec![
        (
            "pairs",
            vec![sh(F32, &[20_000, 1]), sh(F32, &[20_000, 1])],
            1,
        ),
        ("rgba", vec![sh(U8, &[100, 300, 1]); 4], 2),
        (
            "mixed",
            vec![sh(F32, &[20_000, 1]), sh(F32, &[20_000, 2])],
            1,
        ),
    ];
    for (name, shapes, dim) in cases {
        let (mut bl, mut p) = builder(name, &shapes);
        if name == "rgba" {
            // The first part computed (a convert of a reshape): the
            // parameters alone would be one unsplit copy kernel.
            let f = bl.convert(p[0], F32).expect("convert");
            let f = bl.reshape(f, &[100, 300]).expect("reshape");
            let u = bl.convert(f, U8).expect("convert");
            p[0] = bl.reshape(u, &[100, 300, 1]).expect("reshape");
        }
        let y = bl.concatenate(&p, dim).expect("concat");
        let comp = bl.build(y).expect("build");
        let text = oxla_jit::fusion_text(&comp).expect("fusion");
        assert!(
            text.contains("split along the innermost loop where"),
            "{name}:\n{text}"
        );
        let args: Vec<_> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| values(s, 40 + k as u64))
            .collect();
        check(&comp, &args);
    }
}

#[test]
fn split_kernels_still_run_in_place() {
    // y = concat(a, b) + z, written over z: every stretch reads z only at
    // the element it overwrites.
    let (a, b, z) = (sh(F32, &[64, 200]), sh(F32, &[64, 56]), sh(F32, &[64, 256]));
    let (mut bl, p) = builder("cat_plus", &[a.clone(), b.clone(), z.clone()]);
    let cat = bl.concatenate(&[p[0], p[1]], 1).expect("concat");
    let y = bl.add(cat, p[2], &[]).expect("add");
    let comp = bl.build(y).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    assert!(
        exe.fusion_text()
            .contains("split along the innermost loop where")
    );
    assert!(exe.runs_in_place(2));
    let (va, vb, vz) = (values(&a, 1), values(&b, 2), values(&z, 3));
    let want = oxla_interp::evaluate(&comp, &[&va, &vb, &vz]).expect("evaluate");
    let mut inout = vz.clone();
    exe.run_in_place(2, &mut inout, &[&va, &vb])
        .expect("in place");
    assert!(difference(&inout, &want, Tol::Exact).is_none());
}

#[test]
fn reverses_of_the_inner_axis_vectorise() {
    // Backwards reads load a vector and reverse its lanes. Lengths that
    // are not whole vectors leave a scalar tail; pred stays scalar.
    for ty in [
        F32,
        ElementType::F64,
        ElementType::S8,
        ElementType::S16,
        ElementType::U32,
        ElementType::Pred,
    ] {
        for dims in [&[7, 203][..], &[1000][..], &[5, 3, 64][..]] {
            let x = sh(ty, dims);
            let last = (dims.len() - 1) as i64;
            let (mut b, p) = builder("rev", &[x.clone(), x.clone()]);
            let r = b.reverse(p[0], &[last]).expect("reverse");
            let y = b.max(r, p[1], &[]).expect("max");
            let comp = b.build(y).expect("build");
            let text = oxla_jit::fusion_text(&comp).expect("fusion");
            assert_eq!(
                text.contains("inner=scalar"),
                ty == ElementType::Pred,
                "{ty} {dims:?}:\n{text}"
            );
            check(&comp, &[values(&x, 1), values(&x, 2)]);
            // Both axes reversed, and a reverse of a reverse.
            let (mut b, p) = builder("rev2", std::slice::from_ref(&x));
            let all: Vec<i64> = (0..dims.len() as i64).collect();
            let r = b.reverse(p[0], &all).expect("reverse");
            let r = b.reverse(r, &[last]).expect("reverse");
            let comp = b.build(r).expect("build");
            check(&comp, &[values(&x, 3)]);
        }
    }
}
