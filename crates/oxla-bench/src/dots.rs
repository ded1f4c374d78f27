//! `oxla-bench --dots`: the JIT's matrix products, in GFLOP/s.
//!
//! The shapes of issue 14's matmul bullet: large square products, the
//! small and batched ones of attention heads, attention-shaped batched
//! dots, `f64`, a mixed-type integer dot and a dense layer with its bias
//! and activation (the epilogue). `scripts/xla_dots.py` times XLA on the
//! same shapes; compare the two in one run of each, close together in
//! time, as ratios (the machine is shared).
//!
//! Each case is HLO text compiled once; its time is the median over
//! rounds of `run_into` (no allocation), a round repeating calls for at
//! least the harness's minimum round time. A case the JIT refuses prints
//! its error instead of a time.

use std::time::Duration;

use oxla::{ElementType, Literal, Result};

use crate::workloads::values;

/// One dot case: HLO text and its parameters' shapes.
struct DotCase {
    name: &'static str,
    hlo: String,
    /// (element type, dims) of each parameter.
    params: Vec<(ElementType, Vec<i64>)>,
    /// `2 * batch * m * k * n`.
    flops: f64,
}

fn shape_text(ty: ElementType, dims: &[i64]) -> String {
    let d: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{ty}[{}]", d.join(","))
}

/// A `dot_general` of `[*batch, m, k] x [*batch, k, n]` operands of type
/// `ty` with a result of type `out`.
fn batched(
    name: &'static str,
    ty: ElementType,
    out: ElementType,
    batch: &[i64],
    [m, k, n]: [i64; 3],
) -> DotCase {
    let nb = batch.len();
    let dims = |a: i64, b: i64| [batch, &[a, b]].concat();
    let (l, r, o) = (dims(m, k), dims(k, n), dims(m, n));
    let bd: Vec<String> = (0..nb).map(|d| d.to_string()).collect();
    let bd = bd.join(",");
    let hlo = format!(
        "HloModule dot\n\nENTRY main {{\n  a = {} parameter(0)\n  b = {} parameter(1)\n  \
         ROOT d = {} dot(a, b), lhs_batch_dims={{{bd}}}, rhs_batch_dims={{{bd}}}, \
         lhs_contracting_dims={{{}}}, rhs_contracting_dims={{{}}}\n}}\n",
        shape_text(ty, &l),
        shape_text(ty, &r),
        shape_text(out, &o),
        nb + 1,
        nb
    );
    let b: i64 = batch.iter().product();
    DotCase {
        name,
        hlo,
        params: vec![(ty, l), (ty, r)],
        flops: 2.0 * (b * m * k * n) as f64,
    }
}

/// `max(x . w + bias, 0)`: a dense layer, `x: f32[m, k]`, `w: f32[k, n]`.
fn dense(name: &'static str, [m, k, n]: [i64; 3]) -> DotCase {
    let f = ElementType::F32;
    let hlo = format!(
        "HloModule dense\n\nENTRY main {{\n  x = {} parameter(0)\n  w = {} parameter(1)\n  \
         bias = {} parameter(2)\n  d = {o} dot(x, w), lhs_contracting_dims={{1}}, \
         rhs_contracting_dims={{0}}\n  bb = {o} broadcast(bias), dimensions={{1}}\n  \
         s = {o} add(d, bb)\n  z = f32[] constant(0)\n  zb = {o} broadcast(z), dimensions={{}}\n  \
         ROOT r = {o} maximum(s, zb)\n}}\n",
        shape_text(f, &[m, k]),
        shape_text(f, &[k, n]),
        shape_text(f, &[n]),
        o = shape_text(f, &[m, n]),
    );
    DotCase {
        name,
        hlo,
        params: vec![(f, vec![m, k]), (f, vec![k, n]), (f, vec![n])],
        flops: 2.0 * (m * k * n) as f64,
    }
}

fn cases() -> Vec<DotCase> {
    use ElementType::{F32, F64, S8, S32};
    vec![
        batched("f32 1024^3", F32, F32, &[], [1024, 1024, 1024]),
        batched("f32 768^3", F32, F32, &[], [768, 768, 768]),
        batched("f32 256^3", F32, F32, &[], [256, 256, 256]),
        batched("f32 128 x 32^3", F32, F32, &[128], [32, 32, 32]),
        batched("f32 64 x 64^3", F32, F32, &[64], [64, 64, 64]),
        batched(
            "f32 attn [2,6,384,64]x[2,6,64,384]",
            F32,
            F32,
            &[2, 6],
            [384, 64, 384],
        ),
        batched(
            "f32 attn [2,6,384,384]x[2,6,384,64]",
            F32,
            F32,
            &[2, 6],
            [384, 384, 64],
        ),
        batched("f64 512^3", F64, F64, &[], [512, 512, 512]),
        batched("s8 x s8 -> s32 512^3", S8, S32, &[], [512, 512, 512]),
        dense("dense relu(x.w+b) [128,768]x[768,768]", [128, 768, 768]),
    ]
}

/// An argument of `ty` and `dims` with small pseudo-random values.
fn arg(ty: ElementType, dims: &[i64], seed: u32) -> Result<Literal> {
    let f = values(dims, seed)?;
    let v = f.to_vec::<f32>()?;
    if ty == ElementType::F64 {
        Literal::from_vec(dims, v.iter().map(|&x| f64::from(x)).collect())
    } else if ty == ElementType::S8 {
        Literal::from_vec(dims, v.iter().map(|&x| (x * 100.0) as i8).collect())
    } else {
        Ok(f)
    }
}

/// Times every case; returns the table (one line per case).
pub fn run(rounds: usize, min_round: Duration) -> Result<String> {
    let mut s = String::from("| dot | ms | GFLOP/s |\n|---|---|---|\n");
    for c in cases() {
        eprintln!("measuring {} ...", c.name);
        let comp = oxla::hlo::parse(&c.hlo)?;
        let exe = match oxla::compile(&comp) {
            Ok(e) => e,
            Err(e) => {
                let first = e.to_string();
                let first = first.lines().next().unwrap_or("");
                s.push_str(&format!("| {} | refused: {first} | |\n", c.name));
                continue;
            }
        };
        let args = c
            .params
            .iter()
            .enumerate()
            .map(|(i, (ty, d))| arg(*ty, d, i as u32 + 1))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Literal> = args.iter().collect();
        let mut out = Literal::zeros(comp.result_shape())?;
        let mut calls: Vec<crate::Call<'_>> = vec![Box::new(|| exe.run_into(&refs, &mut out))];
        let st = crate::interleaved(&mut calls, rounds, min_round)?;
        let t = st[0].median;
        s.push_str(&format!(
            "| {} | {:.3} | {:.1} |\n",
            c.name,
            t * 1e3,
            c.flops / t / 1e9
        ));
    }
    Ok(s)
}
