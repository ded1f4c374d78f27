//! The benchmark workloads W1–W10, the same ones
//! `shared/peers/xla_bench.py` measures in XLA and NumPy.

use oxla::{Builder, Computation, ElementType::F32, Literal, Result, Shape};

/// One workload: its computation, inputs, and how its speed is judged.
pub struct Workload {
    /// `W1`, `W2`, ...
    pub id: &'static str,
    /// What it computes.
    pub description: &'static str,
    /// The computation.
    pub comp: Computation,
    /// Inputs in parameter order.
    pub args: Vec<Literal>,
    /// Bytes read and written (inputs + output), for GB/s.
    pub bytes: usize,
    /// The baseline it is compared with.
    pub baseline: Baseline,
}

/// What a workload's time is divided by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// A plain copy of the same number of bytes (memory-bound workloads).
    Memcpy,
    /// A naive i-k-j triple loop in Rust, for the matrix product.
    NaiveMatmul,
}

fn f32_param(b: &mut Builder, n: i64, dims: &[i64], name: &str) -> Result<oxla::Op> {
    b.parameter(n, Shape::new(F32, dims), name)
}

/// Deterministic pseudo-random values in [-1, 1).
pub fn values(dims: &[i64], seed: u32) -> Result<Literal> {
    let n: i64 = dims.iter().product();
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    let v: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect();
    Literal::from_vec(dims, v)
}

fn bytes_of(args: &[Literal], out: &Shape) -> usize {
    args.iter().map(|a| a.element_count() * 4).sum::<usize>() + out.element_count() as usize * 4
}

fn add_bcast(
    id: &'static str,
    description: &'static str,
    x: &[i64],
    y: &[i64],
    dims: &[i64],
    n: i64,
) -> Result<Workload> {
    let _ = n;
    let mut b = Builder::new(&id.to_lowercase());
    let p = f32_param(&mut b, 0, x, "x")?;
    let q = f32_param(&mut b, 1, y, "y")?;
    let r = b.add(p, q, dims)?;
    let comp = b.build(r)?;
    let args = vec![values(x, 1)?, values(y, 2)?];
    let bytes = bytes_of(&args, comp.result_shape());
    Ok(Workload {
        id,
        description,
        comp,
        args,
        bytes,
        baseline: Baseline::Memcpy,
    })
}

/// All workloads at size `n` (4096 for the real figures; smaller for a
/// quick run). W6, W8 and W10 keep their own sizes.
pub fn workloads(n: i64) -> Result<Vec<Workload>> {
    let mut out = vec![
        add_bcast("W1", "[n,n] + [n] dims=(1)", &[n, n], &[n], &[1], n)?,
        add_bcast("W2", "[n,n] + [n] dims=(0)", &[n, n], &[n], &[0], n)?,
        add_bcast("W3", "[n,1] + [1,n] (outer)", &[n, 1], &[1, n], &[], n)?,
        add_bcast(
            "W4",
            "[n] + [1,n] dims=(0) (InDim + degenerate)",
            &[n],
            &[1, n],
            &[0],
            n,
        )?,
    ];
    // W5: max(x*w + b, 0).
    {
        let mut b = Builder::new("w5");
        let x = f32_param(&mut b, 0, &[n, n], "x")?;
        let w = f32_param(&mut b, 1, &[n], "w")?;
        let bias = f32_param(&mut b, 2, &[n], "b")?;
        let xw = b.mul(x, w, &[1])?;
        let z = b.add(xw, bias, &[0])?;
        let zero = b.constant_scalar(0f32)?;
        let y = b.max(z, zero, &[])?;
        let comp = b.build(y)?;
        let args = vec![values(&[n, n], 3)?, values(&[n], 4)?, values(&[n], 5)?];
        let bytes = bytes_of(&args, comp.result_shape());
        out.push(Workload {
            id: "W5",
            description: "max(x*w + b, 0), w dims=(1), b dims=(0)",
            comp,
            args,
            bytes,
            baseline: Baseline::Memcpy,
        });
    }
    out.push(add_bcast(
        "W6",
        "[64,32,64,32] + [32,32] dims=(1,3)",
        &[64, 32, 64, 32],
        &[32, 32],
        &[1, 3],
        n,
    )?);
    // W7: select(x > y, x, y).
    {
        let mut b = Builder::new("w7");
        let x = f32_param(&mut b, 0, &[n, n], "x")?;
        let y = f32_param(&mut b, 1, &[n], "y")?;
        let gt = b.gt(x, y, &[1])?;
        let yb = b.broadcast_in_dim(y, &[n, n], &[1])?;
        let s = b.select(gt, x, yb)?;
        let comp = b.build(s)?;
        let args = vec![values(&[n, n], 6)?, values(&[n], 7)?];
        let bytes = bytes_of(&args, comp.result_shape());
        out.push(Workload {
            id: "W7",
            description: "select(x > y, x, y), y dims=(1)",
            comp,
            args,
            bytes,
            baseline: Baseline::Memcpy,
        });
    }
    out.push(add_bcast(
        "W8",
        "[16,16] + [16] dims=(1) (per-call latency)",
        &[16, 16],
        &[16],
        &[1],
        n,
    )?);
    // W9a: row sums.
    {
        let mut b = Builder::new("w9a");
        let x = f32_param(&mut b, 0, &[n, n], "x")?;
        let mut r = Builder::new("sum");
        let (p, q) = (
            r.parameter(0, Shape::scalar(F32), "a")?,
            r.parameter(1, Shape::scalar(F32), "b")?,
        );
        let s = r.add(p, q, &[])?;
        let sum = r.build(s)?;
        let zero = b.constant_scalar(0f32)?;
        let y = b.reduce(x, zero, &[1], &sum)?;
        let comp = b.build(y)?;
        let args = vec![values(&[n, n], 8)?];
        let bytes = bytes_of(&args, comp.result_shape());
        out.push(Workload {
            id: "W9a",
            description: "sum over axis 1 of [n,n]",
            comp,
            args,
            bytes,
            baseline: Baseline::Memcpy,
        });
    }
    // W9b: softmax over rows.
    {
        let mut b = Builder::new("w9b");
        let x = f32_param(&mut b, 0, &[n, n], "x")?;
        let y = oxla::composite::softmax(&mut b, x, 1)?;
        let comp = b.build(y)?;
        let args = vec![values(&[n, n], 9)?];
        let bytes = bytes_of(&args, comp.result_shape());
        out.push(Workload {
            id: "W9b",
            description: "softmax over rows of [n,n]",
            comp,
            args,
            bytes,
            baseline: Baseline::Memcpy,
        });
    }
    // W10: matrix product at n/4 (1024 for n = 4096).
    {
        let m = (n / 4).max(1);
        let mut b = Builder::new("w10");
        let x = f32_param(&mut b, 0, &[m, m], "x")?;
        let y = f32_param(&mut b, 1, &[m, m], "y")?;
        let d = b.dot(x, y)?;
        let comp = b.build(d)?;
        let args = vec![values(&[m, m], 10)?, values(&[m, m], 11)?];
        let bytes = bytes_of(&args, comp.result_shape());
        out.push(Workload {
            id: "W10",
            description: "dot [n/4,n/4] x [n/4,n/4]",
            comp,
            args,
            bytes,
            baseline: Baseline::NaiveMatmul,
        });
    }
    Ok(out)
}
