//! Composite ops built from primitives: a dense layer, ReLU, softmax,
//! log-softmax, layer norm and GELU, written the way `jax.nn` lowers them.
//!
//! They are functions over a [`Builder`], not new opcodes: the IR stays
//! small, and every backend handles them through the primitives (the JIT
//! fuses the elementwise parts and the reductions). Each broadcast is
//! explicit, so the HLO text shows exactly how a normalised row is
//! stretched back over its matrix.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, Shape, composite};
//! let mut b = Builder::new("softmax");
//! let x = b.parameter(0, Shape::new(F32, &[4, 8]), "x")?;
//! let y = composite::softmax(&mut b, x, 1)?;
//! assert_eq!(b.shape(y)?.to_string(), "f32[4,8]");
//! let text = b.build(y)?.to_hlo_text();
//! assert!(text.contains("subtract(x, reduce"));
//! assert!(text.contains("broadcast_dimensions={0}"));
//! # Ok::<(), oxla_ir::Error>(())
//! ```

use crate::{Builder, Computation, ElementType, Error, Literal, Op, Result, Shape};

/// The reducers composites use.
#[derive(Debug, Clone, Copy)]
enum Reducer {
    Add,
    Max,
}

fn reducer(ty: ElementType, kind: Reducer) -> Result<Computation> {
    let name = match kind {
        Reducer::Add => "add",
        Reducer::Max => "max",
    };
    let mut r = Builder::new(&format!("{name}_{ty}"));
    let a = r.parameter(0, Shape::scalar(ty), "a")?;
    let b = r.parameter(1, Shape::scalar(ty), "b")?;
    let y = match kind {
        Reducer::Add => r.add(a, b, &[])?,
        Reducer::Max => r.max(a, b, &[])?,
    };
    r.build(y)
}

/// A scalar constant of a float type given as `f64`.
fn float_constant(b: &mut Builder, ty: ElementType, value: f64) -> Result<Op> {
    match Literal::float_scalar(ty, value) {
        Some(literal) => b.constant(literal),
        None => Err(Error::UnsupportedElementType {
            op: "composite".into(),
            shape: Shape::scalar(ty).to_string(),
            expected: "a floating-point type".into(),
            help: "convert the operand to a floating-point type first.".into(),
        }),
    }
}

fn float_shape(b: &Builder, x: Op, what: &str) -> Result<Shape> {
    let s = b.shape(x)?;
    if !s.element_type().is_float() {
        return Err(Error::UnsupportedElementType {
            op: what.into(),
            shape: s.to_string(),
            expected: "a floating-point type".into(),
            help: format!("convert the {s} operand to f32 or f64 first."),
        });
    }
    Ok(s)
}

fn check_axis(shape: &Shape, axis: i64, what: &str) -> Result<()> {
    if axis < 0 || axis as usize >= shape.rank() {
        return Err(Error::InvalidOp {
            op: what.into(),
            problem: crate::OpProblem::AxisOutOfRange {
                shape: shape.clone(),
                axis,
            },
        });
    }
    Ok(())
}

/// The dims other than `axis`: the `broadcast_dimensions` that maps a
/// reduced row back onto the full array.
fn kept_dims(rank: usize, axis: i64) -> Vec<i64> {
    (0..rank as i64).filter(|&d| d != axis).collect()
}

/// Reduces `x` along `axis` with `kind`, starting from `init`.
fn reduce_axis(b: &mut Builder, x: Op, axis: i64, kind: Reducer, init: f64) -> Result<Op> {
    let ty = b.shape(x)?.element_type();
    let r = reducer(ty, kind)?;
    let init = float_constant(b, ty, init)?;
    b.reduce(x, init, &[axis], &r)
}

/// `max(x, 0)`.
pub fn relu(b: &mut Builder, x: Op) -> Result<Op> {
    let ty = float_shape(b, x, "relu")?.element_type();
    let zero = float_constant(b, ty, 0.0)?;
    b.max(x, zero, &[])
}

/// A dense layer `x . w + bias`: `x` is `[batch, in]`, `w` `[in, out]`,
/// `bias` `[out]`, broadcast over the batch with `broadcast_dimensions={1}`.
pub fn dense(b: &mut Builder, x: Op, w: Op, bias: Op) -> Result<Op> {
    let xw = b.dot(x, w)?;
    let rank = b.shape(xw)?.rank() as i64;
    b.add(xw, bias, &[rank - 1])
}

/// `softmax(x)` along `axis`: `exp(x - max) / sum(exp(x - max))`, the
/// max subtracted for stability, as `jax.nn.softmax` does.
pub fn softmax(b: &mut Builder, x: Op, axis: i64) -> Result<Op> {
    let s = float_shape(b, x, "softmax")?;
    check_axis(&s, axis, "softmax")?;
    let keep = kept_dims(s.rank(), axis);
    let m = reduce_axis(b, x, axis, Reducer::Max, f64::NEG_INFINITY)?;
    let shifted = b.sub(x, m, &keep)?;
    let e = b.exp(shifted)?;
    let sum = reduce_axis(b, e, axis, Reducer::Add, 0.0)?;
    b.div(e, sum, &keep)
}

/// `log_softmax(x)` along `axis`: `x - max - log(sum(exp(x - max)))`.
pub fn log_softmax(b: &mut Builder, x: Op, axis: i64) -> Result<Op> {
    let s = float_shape(b, x, "log_softmax")?;
    check_axis(&s, axis, "log_softmax")?;
    let keep = kept_dims(s.rank(), axis);
    let m = reduce_axis(b, x, axis, Reducer::Max, f64::NEG_INFINITY)?;
    let shifted = b.sub(x, m, &keep)?;
    let e = b.exp(shifted)?;
    let sum = reduce_axis(b, e, axis, Reducer::Add, 0.0)?;
    let log_sum = b.log(sum)?;
    b.sub(shifted, log_sum, &keep)
}

/// Layer norm over `axis`: `(x - mean) / sqrt(var + eps) * gamma + beta`
/// with `gamma`, `beta` of shape `[x.dims[axis]]` (mapped with
/// `broadcast_dimensions={axis}`). The variance is the mean of squared
/// deviations (biased), as in `flax.linen.LayerNorm`.
pub fn layer_norm(b: &mut Builder, x: Op, gamma: Op, beta: Op, axis: i64, eps: f64) -> Result<Op> {
    let s = float_shape(b, x, "layer_norm")?;
    check_axis(&s, axis, "layer_norm")?;
    let ty = s.element_type();
    let keep = kept_dims(s.rank(), axis);
    let n = float_constant(b, ty, s.dims()[axis as usize] as f64)?;
    let sum = reduce_axis(b, x, axis, Reducer::Add, 0.0)?;
    let mean = b.div(sum, n, &[])?;
    let centered = b.sub(x, mean, &keep)?;
    let sq = b.mul(centered, centered, &[])?;
    let sq_sum = reduce_axis(b, sq, axis, Reducer::Add, 0.0)?;
    let var = b.div(sq_sum, n, &[])?;
    let eps = float_constant(b, ty, eps)?;
    let var_eps = b.add(var, eps, &[])?;
    let inv = b.rsqrt(var_eps)?;
    let normed = b.mul(centered, inv, &keep)?;
    let scaled = b.mul(normed, gamma, &[axis])?;
    b.add(scaled, beta, &[axis])
}

/// GELU, tanh approximation (`jax.nn.gelu(x, approximate=True)`):
/// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
pub fn gelu(b: &mut Builder, x: Op) -> Result<Op> {
    let ty = float_shape(b, x, "gelu")?.element_type();
    let c = float_constant(b, ty, (2.0 / std::f64::consts::PI).sqrt())?;
    let k = float_constant(b, ty, 0.044715)?;
    let half = float_constant(b, ty, 0.5)?;
    let one = float_constant(b, ty, 1.0)?;
    let x2 = b.mul(x, x, &[])?;
    let x3 = b.mul(x2, x, &[])?;
    let kx3 = b.mul(k, x3, &[])?;
    let inner = b.add(x, kx3, &[])?;
    let scaled = b.mul(c, inner, &[])?;
    let t = b.tanh(scaled)?;
    let one_t = b.add(one, t, &[])?;
    let hx = b.mul(half, x, &[])?;
    b.mul(hx, one_t, &[])
}
