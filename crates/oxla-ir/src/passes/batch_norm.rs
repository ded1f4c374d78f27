//! Batch normalisation as XLA evaluates it: `batch-norm-training`,
//! `batch-norm-inference` and `batch-norm-grad` expanded into primitives
//! exactly as XLA's `BatchNormExpander` expands them, so that the rounding
//! is XLA's (the same operations in the same order, each rounded to the
//! element type). Backends never see a batch-norm op: the interpreter
//! evaluates an instruction's [`expansion`].
//!
//! With `N` the number of elements per feature (all dimensions but
//! `feature_index`), `Σ` a sum over them and every per-feature value
//! broadcast along `feature_index`:
//!
//! - training: `mean = Σx / N`, `var = Σ(x·x) / N − mean·mean` (biased, one
//!   pass), `y = (x − mean) · rsqrt(var + ε) · scale + offset`; gives
//!   `(y, mean, var)`;
//! - inference: `s = scale · rsqrt(var + ε)`, `y = x · s + (offset − mean·s)`;
//! - grad (mean and variance are inputs): `c = x − mean`,
//!   `grad_offset = Σdy`, `grad_scale = Σ(dy·c) · rsqrt(var + ε)`,
//!   `grad_x = (scale · rsqrt(var + ε) / N) · ((dy·N − Σdy) − c·Σ(dy·c) / (var + ε))`.
//!
//! `ε` is the `f32` attribute converted to the element type; `N` is an
//! integer converted to it.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, OpKind, Shape, passes::batch_norm};
//! let kind = OpKind::BatchNormInference { epsilon: 0.001, feature_index: 1 };
//! let (x, v) = (Shape::new(F32, &[2, 3]), Shape::new(F32, &[3]));
//! let c = batch_norm::expansion(&kind, &[x, v.clone(), v.clone(), v.clone(), v])?.unwrap();
//! assert_eq!(c.result_shape().to_string(), "f32[2,3]");
//! assert!(c.to_hlo_text().contains("rsqrt"));
//! # Ok::<(), oxla_ir::Error>(())
//! ```

use crate::shape_inference as si;
use crate::{Builder, Computation, ElementType, Error, Literal, Op, OpKind, Result, Shape};

/// A scalar constant of the float type `ty` holding `value` (rounded once).
fn constant(b: &mut Builder, ty: ElementType, value: f64) -> Result<Op> {
    match Literal::float_scalar(ty, value) {
        Some(c) => b.constant(c),
        None => Err(Error::UnsupportedElementType {
            op: "batch-norm".into(),
            shape: Shape::scalar(ty).to_string(),
            expected: "a real floating-point type".into(),
            help: "convert the operand to f32 first.".into(),
        }),
    }
}

/// What every expansion needs: the operand's shape, the reduced dims, the
/// add reducer, `N` and `ε` as constants.
struct Frame {
    ty: ElementType,
    dims: Vec<i64>,
    feature_index: i64,
    reduced: Vec<i64>,
    add: Computation,
    count: f64,
}

impl Frame {
    fn new(b: &Builder, x: Op, feature_index: i64) -> Result<Frame> {
        let shape = b.shape(x)?;
        let ty = shape.element_type();
        let mut r = Builder::new(&format!("add_{ty}"));
        let p = r.parameter(0, Shape::scalar(ty), "a")?;
        let q = r.parameter(1, Shape::scalar(ty), "b")?;
        let s = r.add(p, q, &[])?;
        let add = r.build(s)?;
        let reduced: Vec<i64> = (0..shape.rank() as i64)
            .filter(|&d| d != feature_index)
            .collect();
        let count = reduced
            .iter()
            .map(|&d| shape.dims()[d as usize])
            .product::<i64>() as f64;
        Ok(Frame {
            ty,
            dims: shape.dims().to_vec(),
            feature_index,
            reduced,
            add,
            count,
        })
    }

    /// A per-feature vector broadcast along the feature dimension.
    fn feature(&self, b: &mut Builder, v: Op) -> Result<Op> {
        b.broadcast_in_dim(v, &self.dims, &[self.feature_index])
    }

    /// A scalar constant broadcast to `dims`.
    fn splat(&self, b: &mut Builder, value: f64, dims: &[i64]) -> Result<Op> {
        let c = constant(b, self.ty, value)?;
        b.broadcast_in_dim(c, dims, &[])
    }

    /// `Σ` over every dimension but the feature's.
    fn sum(&self, b: &mut Builder, v: Op) -> Result<Op> {
        let zero = constant(b, self.ty, 0.0)?;
        b.reduce(v, zero, &self.reduced, &self.add)
    }
}

/// `batch-norm-training(x, scale, offset)` built from primitives; gives
/// the tuple `(y, mean, var)`.
pub fn training(
    b: &mut Builder,
    x: Op,
    scale: Op,
    offset: Op,
    epsilon: f32,
    feature_index: i64,
) -> Result<Op> {
    si::infer_batch_norm_training_shape(
        &b.shape(x)?,
        &b.shape(scale)?,
        &b.shape(offset)?,
        feature_index,
    )?;
    let f = Frame::new(b, x, feature_index)?;
    let feature_dims = b.shape(scale)?.dims().to_vec();
    let eps = f.splat(b, f64::from(epsilon), &f.dims.clone())?;
    let scale_b = f.feature(b, scale)?;
    let offset_b = f.feature(b, offset)?;
    let squared = b.mul(x, x, &[])?;
    let sum = f.sum(b, x)?;
    let squared_sum = f.sum(b, squared)?;
    let n = f.splat(b, f.count, &feature_dims)?;
    let mean = b.div(sum, n, &[])?;
    let mean_b = f.feature(b, mean)?;
    let square_mean = b.div(squared_sum, n, &[])?;
    let mean_square = b.mul(mean, mean, &[])?;
    let var = b.sub(square_mean, mean_square, &[])?;
    let var_b = f.feature(b, var)?;
    let var_eps = b.add(var_b, eps, &[])?;
    let rsqrt = b.rsqrt(var_eps)?;
    let centred = b.sub(x, mean_b, &[])?;
    let normalized = b.mul(centred, rsqrt, &[])?;
    let scaled = b.mul(normalized, scale_b, &[])?;
    let y = b.add(scaled, offset_b, &[])?;
    b.tuple(&[y, mean, var])
}

/// `batch-norm-inference(x, scale, offset, mean, variance)` built from
/// primitives.
#[allow(
    clippy::too_many_arguments,
    reason = "the op's operands and attributes"
)]
pub fn inference(
    b: &mut Builder,
    x: Op,
    scale: Op,
    offset: Op,
    mean: Op,
    variance: Op,
    epsilon: f32,
    feature_index: i64,
) -> Result<Op> {
    si::infer_batch_norm_inference_shape(
        &b.shape(x)?,
        &b.shape(scale)?,
        &b.shape(offset)?,
        &b.shape(mean)?,
        &b.shape(variance)?,
        feature_index,
    )?;
    let f = Frame::new(b, x, feature_index)?;
    let feature_dims = b.shape(scale)?.dims().to_vec();
    let eps = f.splat(b, f64::from(epsilon), &feature_dims)?;
    let var_eps = b.add(variance, eps, &[])?;
    let rsqrt = b.rsqrt(var_eps)?;
    let true_scale = b.mul(scale, rsqrt, &[])?;
    let mean_scaled = b.mul(mean, true_scale, &[])?;
    let true_shift = b.sub(offset, mean_scaled, &[])?;
    let scale_b = f.feature(b, true_scale)?;
    let scaled = b.mul(x, scale_b, &[])?;
    let shift_b = f.feature(b, true_shift)?;
    b.add(scaled, shift_b, &[])
}

/// `batch-norm-grad(x, scale, mean, variance, grad_output)` built from
/// primitives; gives the tuple `(grad_x, grad_scale, grad_offset)`.
#[allow(
    clippy::too_many_arguments,
    reason = "the op's operands and attributes"
)]
pub fn grad(
    b: &mut Builder,
    x: Op,
    scale: Op,
    mean: Op,
    variance: Op,
    grad_output: Op,
    epsilon: f32,
    feature_index: i64,
) -> Result<Op> {
    si::infer_batch_norm_grad_shape(
        &b.shape(x)?,
        &b.shape(scale)?,
        &b.shape(mean)?,
        &b.shape(variance)?,
        &b.shape(grad_output)?,
        feature_index,
    )?;
    let f = Frame::new(b, x, feature_index)?;
    let feature_dims = b.shape(scale)?.dims().to_vec();
    let dims = f.dims.clone();
    let eps_x = f.splat(b, f64::from(epsilon), &dims)?;
    let eps_f = f.splat(b, f64::from(epsilon), &feature_dims)?;
    let scale_b = f.feature(b, scale)?;
    let var_b = f.feature(b, variance)?;
    let mean_b = f.feature(b, mean)?;
    let var_eps_b = b.add(var_b, eps_x, &[])?;
    let rsqrt_b = b.rsqrt(var_eps_b)?;
    let var_eps = b.add(variance, eps_f, &[])?;
    let rsqrt = b.rsqrt(var_eps)?;
    let centred = b.sub(x, mean_b, &[])?;
    let dy_centred = b.mul(grad_output, centred, &[])?;
    let sum_dy_centred = f.sum(b, dy_centred)?;
    let grad_offset = f.sum(b, grad_output)?;
    let grad_scale = b.mul(sum_dy_centred, rsqrt, &[])?;
    let i2 = f.feature(b, grad_offset)?;
    let i3 = f.feature(b, sum_dy_centred)?;
    let i4 = b.mul(i3, centred, &[])?;
    let var_eps_b2 = b.add(var_b, eps_x, &[])?;
    let i5 = b.div(i4, var_eps_b2, &[])?;
    let scale_rsqrt = b.mul(scale_b, rsqrt_b, &[])?;
    let n = f.splat(b, f.count, &dims)?;
    let scale_rsqrt_mean = b.div(scale_rsqrt, n, &[])?;
    let n2 = f.splat(b, f.count, &dims)?;
    let i1 = b.mul(grad_output, n2, &[])?;
    let i1_i2 = b.sub(i1, i2, &[])?;
    let i6 = b.sub(i1_i2, i5, &[])?;
    let grad_x = b.mul(scale_rsqrt_mean, i6, &[])?;
    b.tuple(&[grad_x, grad_scale, grad_offset])
}

/// The expansion of a batch-norm op as a computation of its own, one
/// parameter per operand (of the `operands` shapes) and the op's result
/// as its root; `None` for any other op. Fails as the op's shape inference
/// does on operands it does not accept.
pub fn expansion(kind: &OpKind, operands: &[Shape]) -> Result<Option<Computation>> {
    let name = kind.opcode_name().replace('-', "_");
    let mut b = Builder::new(&format!("{name}_expansion"));
    let mut params = Vec::with_capacity(operands.len());
    for (i, s) in operands.iter().enumerate() {
        params.push(b.parameter(i as i64, s.clone(), &format!("p{i}"))?);
    }
    let arg = |i: usize| {
        params.get(i).copied().ok_or_else(|| Error::InvalidOp {
            op: kind.opcode_name().to_string(),
            problem: crate::OpProblem::OperandCount {
                expected: kind.opcode().arity().to_string(),
                operands: operands.to_vec(),
            },
        })
    };
    let root = if let OpKind::BatchNormTraining {
        epsilon,
        feature_index,
    } = *kind
    {
        training(&mut b, arg(0)?, arg(1)?, arg(2)?, epsilon, feature_index)?
    } else if let OpKind::BatchNormInference {
        epsilon,
        feature_index,
    } = *kind
    {
        inference(
            &mut b,
            arg(0)?,
            arg(1)?,
            arg(2)?,
            arg(3)?,
            arg(4)?,
            epsilon,
            feature_index,
        )?
    } else if let OpKind::BatchNormGrad {
        epsilon,
        feature_index,
    } = *kind
    {
        grad(
            &mut b,
            arg(0)?,
            arg(1)?,
            arg(2)?,
            arg(3)?,
            arg(4)?,
            epsilon,
            feature_index,
        )?
    } else {
        return Ok(None);
    };
    b.build(root).map(Some)
}

/// `comp` with every batch-norm instruction replaced by its
/// [`expansion`], inlined (see [`super::expand_ops`]). A computation with
/// no batch-norm op comes back unchanged.
///
/// This is how a backend with no batch-norm kernels (the JIT) runs these
/// ops: it computes the same primitives, in the same order, as the
/// interpreter's evaluation of [`expansion`].
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, OpKind, Shape, passes::batch_norm};
/// let mut b = Builder::new("bn");
/// let x = b.parameter(0, Shape::new(F32, &[4, 3]), "x")?;
/// let s = b.parameter(1, Shape::new(F32, &[3]), "s")?;
/// let o = b.parameter(2, Shape::new(F32, &[3]), "o")?;
/// let y = b.batch_norm_training(x, s, o, 0.001, 1)?;
/// let comp = b.build(y)?;
/// let expanded = batch_norm::expand_all(&comp)?;
/// let ops = expanded.bodies().iter().flat_map(|b| &b.instructions);
/// assert!(ops.clone().all(|i| !matches!(i.kind, OpKind::BatchNormTraining { .. })));
/// assert!(ops.clone().any(|i| i.kind.opcode_name() == "rsqrt"));
/// assert_eq!(expanded.result_shape(), comp.result_shape());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "batch_norm::expand_all pass", |inst, operands| {
        expansion(&inst.kind, operands)
    })
}
