//! Shape inference for `ragged-dot` (XLA's `InferRaggedDotOpShape`).
//!
//! The checks run in XLA's order: the operands are arrays; the dot's own
//! dimension numbers hold (oxla's `dot` checks, which cover XLA's
//! `ValidateDotDimensionNumbers` and `CheckDotDimensionConstraints`, and the
//! result type); exactly one lhs ragged dimension, in range; `group_sizes`
//! is `[g]` or `[prefix..., g]` with the prefix sizes of the lhs dimensions
//! [`RaggedDotDimensionNumbers::group_prefix`] names; the rhs group
//! dimensions in range and neither batch nor contracting; one group
//! dimension of size `g` when the ragged dimension is free, none otherwise.
//! The ragged-dot failures are [`OpProblem::RaggedDot`], XLA's sentence
//! included. oxla also requires integer `group_sizes` (XLA's shape
//! inference does not look at their type; no backend could use others).

use super::{infer_dot_general_shape_with_type, invalid, require_array, type_error};
use crate::opcode::TypeSet;
use crate::{ElementType, OpProblem, RaggedDotDimensionNumbers, RaggedDotMode, Result, Shape};

/// `ragged-dot(lhs, rhs, group_sizes)`: the shape of the dot of `lhs` and
/// `rhs` without the rhs group dimension, with a leading dimension of `g`
/// groups when the ragged dimension is contracting; the result type is
/// `preferred` or the higher-precision operand type, as for `dot`.
///
/// ```
/// use oxla_ir::{DotDimensionNumbers, ElementType::*, RaggedDotDimensionNumbers, Shape};
/// use oxla_ir::shape_inference::infer_ragged_dot_shape;
/// let dims = RaggedDotDimensionNumbers {
///     dot: DotDimensionNumbers { lhs_contracting: vec![1], rhs_contracting: vec![1], ..Default::default() },
///     lhs_ragged: vec![0],
///     rhs_group: vec![0],
/// };
/// let (lhs, rhs, sizes) = (Shape::new(F32, &[6, 3]), Shape::new(F32, &[2, 3, 4]), Shape::new(S32, &[2]));
/// assert_eq!(infer_ragged_dot_shape(&lhs, &rhs, &sizes, &dims, None)?.to_string(), "f32[6,4]");
/// let err = infer_ragged_dot_shape(&lhs, &rhs, &Shape::new(S32, &[3]), &dims, None).unwrap_err();
/// assert!(err.to_string().contains("rhs group dimension is expected to have size=3, got 2"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_ragged_dot_shape(
    lhs: &Shape,
    rhs: &Shape,
    group_sizes: &Shape,
    dims: &RaggedDotDimensionNumbers,
    preferred: Option<ElementType>,
) -> Result<Shape> {
    const OP: &str = "ragged-dot";
    require_array(OP, "lhs of ragged dot", lhs)?;
    require_array(OP, "rhs of ragged dot", rhs)?;
    require_array(OP, "group_sizes of ragged dot", group_sizes)?;
    let fail = |addendum: String| {
        Err(invalid(
            OP,
            OpProblem::RaggedDot {
                addendum,
                lhs: lhs.clone(),
                rhs: rhs.clone(),
            },
        ))
    };
    // The dot's checks; its shape is the result's but for the group
    // dimensions, which are still in it.
    let dot = infer_dot_general_shape_with_type(lhs, rhs, &dims.dot, preferred)?;
    let Some(ragged) = dims.ragged_dimension() else {
        return fail("There must be exactly one ragged dimension in the lhs.".into());
    };
    let lhs_rank = lhs.rank() as i64;
    if !(0..lhs_rank).contains(&ragged) {
        return fail(format!(
            "lhs ragged dimension {ragged} is out of range [0, {lhs_rank})"
        ));
    }
    let mode = dims.mode(ragged);
    let expected: Vec<i64> = dims
        .group_prefix(lhs.rank(), ragged)
        .iter()
        .map(|&d| lhs.dims()[d as usize])
        .collect();
    let sizes = group_sizes.dims();
    if sizes.len() != 1 {
        if sizes.len() != expected.len() + 1 {
            return fail(format!(
                "expected group_sizes to have rank {}, got {}",
                expected.len() + 1,
                sizes.len()
            ));
        }
        if sizes[..sizes.len() - 1] != expected[..] {
            let join = |v: &[i64]| {
                v.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return fail(format!(
                "group_sizes is expected to have shape [{}, {}], got [{}]",
                join(&expected),
                sizes[sizes.len() - 1],
                join(sizes)
            ));
        }
    }
    if !group_sizes.element_type().is_integer() {
        return Err(type_error(OP, group_sizes, TypeSet::Integer));
    }
    let groups = sizes.last().copied().unwrap_or(0);
    let rhs_rank = rhs.rank() as i64;
    for &g in &dims.rhs_group {
        if !(0..rhs_rank).contains(&g) {
            return fail(format!(
                "rhs group dimension {g} is out of range [0, {rhs_rank})"
            ));
        }
        if dims.dot.rhs_batch.contains(&g) || dims.dot.rhs_contracting.contains(&g) {
            return fail("rhs group dimension cannot be a batch or contracting dimension".into());
        }
    }
    match mode {
        RaggedDotMode::Batch | RaggedDotMode::Contracting => {
            if !dims.rhs_group.is_empty() {
                return fail(
                    "There must be zero group dimensions in the rhs when the ragged dimension \
                     is batch or contracting."
                        .into(),
                );
            }
        }
        RaggedDotMode::NonContracting => {
            let [g] = dims.rhs_group[..] else {
                return fail(
                    "There must be exactly one group dimension in the rhs when the lhs ragged \
                     dimension is non-contracting."
                        .into(),
                );
            };
            let size = rhs.dims()[g as usize];
            if size != groups {
                return fail(format!(
                    "rhs group dimension is expected to have size={groups}, got {size}"
                ));
            }
        }
    }
    // The dot's result dims are the batch dims, the lhs free dims, then the
    // rhs free dims in order: the rhs group dimension is one of the last.
    let rhs_free: Vec<i64> = (0..rhs_rank)
        .filter(|d| !dims.dot.rhs_batch.contains(d) && !dims.dot.rhs_contracting.contains(d))
        .collect();
    let first_rhs_free = dot.rank() - rhs_free.len();
    let mut out: Vec<i64> = Vec::with_capacity(dot.rank() + 1);
    if mode == RaggedDotMode::Contracting {
        out.push(groups);
    }
    out.extend(
        dot.dims()
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                *i < first_rhs_free || !dims.rhs_group.contains(&rhs_free[*i - first_rhs_free])
            })
            .map(|(_, &d)| d),
    );
    Ok(Shape::new(dot.element_type(), &out))
}
