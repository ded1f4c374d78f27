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
