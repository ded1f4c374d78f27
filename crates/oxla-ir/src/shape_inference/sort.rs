//! Shape inference for the sort family: `sort`, `topk`, and the comparison
//! type (`type=`) of `compare`.
//!
//! The checks follow XLA's order: for `sort`, shape inference
//! (`InferVariadicOpShape`: the operands share their dims) and then the
//! verifier's `HandleSort` (the comparator returns `pred[]`, has two
//! parameters per operand, each a scalar of its operand's element type, and
//! the sort dimension is below the rank); for `topk`, `InferTopKShape`; for
//! the comparison type, the verifier's check against the operands' element
//! type. Each failure is an [`OpProblem`] whose first sentence is XLA's.

use super::{invalid, require_array};
use crate::{ComparisonOrder, ComparisonType, ElementType, OpProblem, Result, Shape};

/// The order XLA's comparison type `ty` means for a `compare` of `operand`
/// (the right operand, as XLA's verifier looks at it), or XLA's refusal:
/// only the element type's default type and, for floats, `TOTALORDER` are
/// valid.
///
/// ```
/// use oxla_ir::shape_inference::comparison_order;
/// use oxla_ir::{ComparisonOrder, ComparisonType, ElementType::{F32, U8}, Shape};
/// let f = Shape::new(F32, &[4]);
/// assert_eq!(comparison_order(ComparisonType::TotalOrder, &f)?, ComparisonOrder::Total);
/// let err = comparison_order(ComparisonType::Signed, &Shape::new(U8, &[4])).unwrap_err();
/// assert!(err.to_string().starts_with("Invalid compare: Expected comparison type UNSIGNED."));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn comparison_order(ty: ComparisonType, operand: &Shape) -> Result<ComparisonOrder> {
    let element = operand.element_type();
    ComparisonOrder::from_type(ty, element).ok_or_else(|| {
        let default = ComparisonType::default_for(element);
        let expected = if element.is_float() {
            format!("{default} or {}", ComparisonType::TotalOrder)
        } else {
            default.to_string()
        };
        invalid(
            "compare",
            OpProblem::ComparisonType {
                expected,
                actual: ty,
                operand: operand.clone(),
            },
        )
    })
}

/// `sort`: one or more arrays of the same dims (element types may differ);
/// the comparator takes `(a_0, b_0, a_1, b_1, ...)`, scalars of each
/// operand's element type, and returns `pred[]`; `dimension` is one of the
/// operands' dimensions. The result is the operand (one) or the tuple of
/// the operands (several).
///
/// ```
/// use oxla_ir::shape_inference::infer_sort_shape;
/// use oxla_ir::{ElementType::{F32, Pred, S32}, Shape};
/// let (k, v) = (Shape::new(F32, &[3, 4]), Shape::new(S32, &[3, 4]));
/// let params = [F32, F32, S32, S32].map(Shape::scalar);
/// let s = infer_sort_shape(&[&k, &v], 1, &params, &Shape::scalar(Pred))?;
/// assert_eq!(s.to_string(), "(f32[3,4], s32[3,4])");
/// assert!(infer_sort_shape(&[&k, &v], 2, &params, &Shape::scalar(Pred)).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_sort_shape(
    operands: &[&Shape],
    dimension: i64,
    comparator_parameters: &[Shape],
    comparator_result: &Shape,
) -> Result<Shape> {
    const OP: &str = "sort";
    let Some(&keys) = operands.first() else {
        return Err(invalid(
            OP,
            OpProblem::OperandCount {
                expected: "at least 1".into(),
                operands: vec![],
            },
        ));
    };
    for s in operands {
        require_array(OP, "every operand of sort", s)?;
    }
    // Shape inference (`InferVariadicOpShape`).
    if let Some((index, values)) = operands
        .iter()
        .enumerate()
        .find(|(_, s)| s.dims() != keys.dims())
    {
        return Err(invalid(
            OP,
            OpProblem::SortDimensionsMismatch {
                keys: keys.clone(),
                values: (*values).clone(),
                index,
            },
        ));
    }
    // The verifier (`HandleSort`).
    if *comparator_result != Shape::scalar(ElementType::Pred) {
        return Err(invalid(
            OP,
            OpProblem::SortComparatorResult {
                result: comparator_result.clone(),
            },
        ));
    }
    let all = || operands.iter().map(|s| (*s).clone()).collect::<Vec<_>>();
    if comparator_parameters.len() != 2 * operands.len() {
        return Err(invalid(
            OP,
            OpProblem::SortComparatorParameterCount {
                expected: 2 * operands.len(),
                parameters: comparator_parameters.to_vec(),
                operands: all(),
            },
        ));
    }
    for (index, actual) in comparator_parameters.iter().enumerate() {
        let expected = Shape::scalar(operands[index / 2].element_type());
        if *actual != expected {
            return Err(invalid(
                OP,
                OpProblem::SortComparatorParameter {
                    index,
                    expected,
                    actual: actual.clone(),
                    operands: all(),
                },
            ));
        }
    }
    if dimension < 0 || dimension as usize >= keys.rank() {
        return Err(invalid(
            OP,
            OpProblem::SortDimension {
                dimension,
                operand: keys.clone(),
            },
        ));
    }
    Ok(match operands {
        [one] => (*one).clone(),
        _ => Shape::tuple(all()),
    })
}

/// `topk`: an array of rank >= 1 and `0 <= k <= ` its last dimension; the
/// result is `(values, s32 indices)`, both the operand's dims with the last
/// one `k`.
///
/// ```
/// use oxla_ir::shape_inference::infer_topk_shape;
/// use oxla_ir::{ElementType::F32, Shape};
/// let s = infer_topk_shape(&Shape::new(F32, &[4, 5]), 3)?;
/// assert_eq!(s.to_string(), "(f32[4,3], s32[4,3])");
/// assert!(infer_topk_shape(&Shape::new(F32, &[4, 5]), 6).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_topk_shape(operand: &Shape, k: i64) -> Result<Shape> {
    const OP: &str = "topk";
    require_array(OP, "operand of top-k operation", operand)?;
    let Some((&last, major)) = operand.dims().split_last() else {
        return Err(invalid(
            OP,
            OpProblem::TopKScalar {
                operand: operand.clone(),
            },
        ));
    };
    if k < 0 {
        return Err(invalid(
            OP,
            OpProblem::TopKNegative {
                operand: operand.clone(),
                k,
            },
        ));
    }
    if k > last {
        return Err(invalid(
            OP,
            OpProblem::TopKTooLarge {
                operand: operand.clone(),
                k,
            },
        ));
    }
    let mut dims = major.to_vec();
    dims.push(k);
    Ok(Shape::tuple(vec![
        Shape::new(operand.element_type(), &dims),
        Shape::new(ElementType::S32, &dims),
    ]))
}
