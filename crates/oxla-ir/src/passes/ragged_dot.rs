//! `ragged-dot` as primitives, for backends with no ragged kernel (the
//! JIT): group bounds from the running sum of `group_sizes`, masks from an
//! `iota` compared with them, and dense dots.
//!
//! The expansion computes what the interpreter computes, operation for
//! operation, so integer results are bit-exact and float results are the
//! dense dot's (each row, or each contracted element, is in at most one
//! group for sizes that are not negative, so no group sum rounds):
//! - ragged rows: `acc = 0`, then per group `acc = select(in_g, acc +
//!   dot(lhs, rhs[g]), acc)` (the rows outside the group keep `acc`, so an
//!   infinity in another group's rhs never reaches them);
//! - ragged contraction: per group, `dot(select(in_g, lhs, 0),
//!   select(in_g, rhs, 0))`, the groups joined along a new leading
//!   dimension (both operands are zeroed, so skipped elements add `+0`);
//! - ragged batch: the dot.
//!
//! Group bounds are summed in `group_sizes`' type (wrapping, as the
//! interpreter wraps) and compared with an `iota` of that type, as JAX
//! compares them.

use crate::ir::{BinaryOp, ComparisonDirection};
use crate::{
    Builder, Computation, Literal, Op, OpKind, RaggedDotDimensionNumbers, RaggedDotMode, Result,
    Shape,
};

/// Every `ragged-dot` in `comp` replaced by its expansion.
///
/// ```
/// use oxla_ir::{Builder, DotDimensionNumbers, ElementType::{F32, S32}, RaggedDotDimensionNumbers, Shape, passes};
/// let mut b = Builder::new("moe");
/// let x = b.parameter(0, Shape::new(F32, &[6, 3]), "x")?;
/// let w = b.parameter(1, Shape::new(F32, &[2, 3, 4]), "w")?;
/// let g = b.parameter(2, Shape::new(S32, &[2]), "g")?;
/// let dims = RaggedDotDimensionNumbers {
///     dot: DotDimensionNumbers { lhs_contracting: vec![1], rhs_contracting: vec![1], ..Default::default() },
///     lhs_ragged: vec![0],
///     rhs_group: vec![0],
/// };
/// let y = b.ragged_dot(x, w, g, &dims, None)?;
/// let out = passes::ragged_dot::expand_all(&b.build(y)?)?;
/// assert!(!out.to_hlo_text().contains(" ragged-dot("));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "ragged_dot::expand_all pass", |inst, operands| {
        let (OpKind::RaggedDot { dims }, [lhs, rhs, sizes]) = (&inst.kind, operands) else {
            return Ok(None);
        };
        let mut b = Builder::new("ragged_dot");
        let l = b.parameter(0, lhs.clone(), "lhs")?;
        let r = b.parameter(1, rhs.clone(), "rhs")?;
        let g = b.parameter(2, sizes.clone(), "group_sizes")?;
        let out = expand(&mut b, l, r, g, dims, &inst.shape)?;
        b.build(out).map(Some)
    })
}

/// The group bounds: per group, `(start, end)` of shape `group_sizes`'
/// leading dims, in its type.
fn bounds(b: &mut Builder, sizes: Op) -> Result<Vec<(Op, Op)>> {
    let shape = b.shape(sizes)?.clone();
    let dims = shape.dims();
    let (prefix, count) = dims.split_at(dims.len().saturating_sub(1));
    let count = count.first().copied().unwrap_or(0);
    let zero = Literal::zeros(&Shape::new(shape.element_type(), &[]))?;
    let zero = b.constant(zero)?;
    let mut start = b.broadcast(zero, prefix)?;
    let mut out = Vec::new();
    for g in 0..count {
        let mut starts = vec![0; dims.len()];
        let mut limits = dims.to_vec();
        starts[dims.len() - 1] = g;
        limits[dims.len() - 1] = g + 1;
        let strides = vec![1; dims.len()];
        let size = b.slice(sizes, &starts, &limits, &strides)?;
        let size = b.reshape(size, prefix)?;
        let end = b.binary(start, size, BinaryOp::Add, &[])?;
        out.push((start, end));
        start = end;
    }
    Ok(out)
}

/// `start <= i < end` over `target` dims, `i` counting along `along`, the
/// bounds' dims placed at `at` (any order: they are transposed first).
fn in_group(
    b: &mut Builder,
    (start, end): (Op, Op),
    target: &[i64],
    at: &[i64],
    along: i64,
) -> Result<Op> {
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&k| at[k]);
    let permutation: Vec<i64> = order.iter().map(|&k| k as i64).collect();
    let sorted: Vec<i64> = order.iter().map(|&k| at[k]).collect();
    let ty = b.shape(start)?.element_type();
    let iota = b.iota(Shape::new(ty, target), along)?;
    let placed = |b: &mut Builder, x: Op| -> Result<Op> {
        let x = b.transpose(x, &permutation)?;
        b.broadcast_in_dim(x, target, &sorted)
    };
    let (start, end) = (placed(b, start)?, placed(b, end)?);
    let from = b.compare(start, iota, ComparisonDirection::Le, &[])?;
    let to = b.compare(iota, end, ComparisonDirection::Lt, &[])?;
    b.binary(from, to, BinaryOp::And, &[])
}

/// `x` where `keep`, zero elsewhere.
fn zero_outside(b: &mut Builder, keep: Op, x: Op) -> Result<Op> {
    let shape = b.shape(x)?.clone();
    let zero = Literal::zeros(&Shape::new(shape.element_type(), &[]))?;
    let zero = b.constant(zero)?;
    let zeros = b.broadcast(zero, shape.dims())?;
    b.select(keep, x, zeros)
}

fn expand(
    b: &mut Builder,
    lhs: Op,
    rhs: Op,
    sizes: Op,
    dims: &RaggedDotDimensionNumbers,
    out: &Shape,
) -> Result<Op> {
    let ty = out.element_type();
    let dot = &dims.dot;
    let lhs_shape = b.shape(lhs)?.clone();
    let rhs_shape = b.shape(rhs)?.clone();
    let ragged = dims.ragged_dimension().unwrap_or(0);
    // Sizes given as `[g]` apply to every prefix index: scalar bounds.
    let prefix = if b.shape(sizes)?.rank() == 1 {
        Vec::new()
    } else {
        dims.group_prefix(lhs_shape.rank(), ragged)
    };
    match dims.mode(ragged) {
        RaggedDotMode::Batch => b.dot_general_with_type(lhs, rhs, dot, ty),
        RaggedDotMode::NonContracting => {
            let group_dim = dims.rhs_group.first().copied().unwrap_or(0);
            let position =
                |d: i64| dims.lhs_result_position(lhs_shape.rank(), d).unwrap_or(0) as i64;
            let at: Vec<i64> = prefix.iter().map(|&d| position(d)).collect();
            let along = position(ragged);
            let slice_dims = dims.group_slice_dims(group_dim);
            let zero = b.constant(Literal::zeros(&Shape::new(ty, &[]))?)?;
            let mut acc = b.broadcast(zero, out.dims())?;
            let rd = rhs_shape.dims();
            let kept: Vec<i64> = rd
                .iter()
                .enumerate()
                .filter(|&(i, _)| i as i64 != group_dim)
                .map(|(_, &d)| d)
                .collect();
            for (g, bound) in bounds(b, sizes)?.into_iter().enumerate() {
                let mut starts = vec![0; rd.len()];
                let mut limits = rd.to_vec();
                starts[group_dim as usize] = g as i64;
                limits[group_dim as usize] = g as i64 + 1;
                let slice = b.slice(rhs, &starts, &limits, &vec![1; rd.len()])?;
                let slice = b.reshape(slice, &kept)?;
                let part = b.dot_general_with_type(lhs, slice, &slice_dims, ty)?;
                let keep = in_group(b, bound, out.dims(), &at, along)?;
                let sum = b.binary(acc, part, BinaryOp::Add, &[])?;
                acc = b.select(keep, sum, acc)?;
            }
            Ok(acc)
        }
        RaggedDotMode::Contracting => {
            let paired = |d: i64| dims.rhs_partner(d).unwrap_or(0);
            let rhs_at: Vec<i64> = prefix.iter().map(|&d| paired(d)).collect();
            let part_dims = out.dims().get(1..).unwrap_or(&[]).to_vec();
            let mut with_group = vec![1];
            with_group.extend_from_slice(&part_dims);
            let mut parts = Vec::new();
            for bound in bounds(b, sizes)? {
                let keep_l = in_group(b, bound, lhs_shape.dims(), &prefix, ragged)?;
                let keep_r = in_group(b, bound, rhs_shape.dims(), &rhs_at, paired(ragged))?;
                let l = zero_outside(b, keep_l, lhs)?;
                let r = zero_outside(b, keep_r, rhs)?;
                let part = b.dot_general_with_type(l, r, dot, ty)?;
                parts.push(b.reshape(part, &with_group)?);
            }
            if parts.is_empty() {
                let zero = b.constant(Literal::zeros(&Shape::new(ty, &[]))?)?;
                return b.broadcast(zero, out.dims());
            }
            b.concatenate(&parts, 0)
        }
    }
}
