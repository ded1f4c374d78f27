//! Shape inference for tuples and control flow: `get-tuple-element`,
//! `while`, `conditional`, `opt-barrier`, `map` and the variadic `reduce`.
//!
//! These ops call computations, which inference sees only as
//! [`Signature`]s (parameter shapes and result shape): the verifier and the
//! parser pass the signature of every called body, so each caller's
//! requirements on its callees are checked here, in XLA's order and with
//! XLA's wording (`xla/service/shape_inference.cc`, and the checks of
//! `hlo_verifier.cc` and `hlo_parser.cc` that run before it). XLA compares
//! called signatures "ignoring floating-point precision" and then refuses
//! mixed precision in the verifier; oxla has no implicit promotion, so every
//! comparison here is exact.

use super::{invalid, kept_dims, require_array};
use crate::ir::ComputationId;
use crate::{ElementType, OpProblem, Result, Shape, Signature};

/// The signature of the body `id` that `op` calls through `attribute`, or
/// [`OpProblem::MissingComputation`].
pub(crate) fn called_signature(
    called: &dyn Fn(ComputationId) -> Option<(Vec<Shape>, Shape)>,
    id: ComputationId,
    op: &str,
    attribute: &str,
) -> Result<Signature> {
    let (parameters, result) = called(id).ok_or_else(|| {
        invalid(
            op,
            OpProblem::MissingComputation {
                attribute: attribute.into(),
                id: id.0,
            },
        )
    })?;
    Ok(Signature { parameters, result })
}

/// `get-tuple-element`: element `index` of a tuple.
///
/// ```
/// use oxla_ir::{shape_inference::infer_get_tuple_element_shape, ElementType::{F32, S32}, Shape};
/// let t = Shape::tuple(vec![Shape::new(F32, &[2]), Shape::scalar(S32)]);
/// assert_eq!(infer_get_tuple_element_shape(&t, 1)?.to_string(), "s32[]");
/// assert!(infer_get_tuple_element_shape(&t, 2).is_err());
/// assert!(infer_get_tuple_element_shape(&Shape::new(F32, &[2]), 0).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_get_tuple_element_shape(operand: &Shape, index: i64) -> Result<Shape> {
    let op = "get-tuple-element";
    if !operand.is_tuple() {
        return Err(invalid(
            op,
            OpProblem::GetTupleElementOfArray {
                operand: operand.clone(),
            },
        ));
    }
    usize::try_from(index)
        .ok()
        .and_then(|i| operand.tuple_shapes().get(i))
        .cloned()
        .ok_or_else(|| {
            invalid(
                op,
                OpProblem::GetTupleElementIndex {
                    operand: operand.clone(),
                    index,
                },
            )
        })
}

/// `while`: the condition and the body take one parameter each, the
/// condition returns `pred[]`, and the condition's parameter, the body's
/// parameter, the body's result and `init` all have one shape, which is the
/// result's.
///
/// ```
/// use oxla_ir::{shape_inference::infer_while_shape, ElementType::{F32, Pred, S32}, Shape, Signature};
/// let s = Shape::tuple(vec![Shape::scalar(S32), Shape::new(F32, &[4])]);
/// let condition = Signature { parameters: vec![s.clone()], result: Shape::scalar(Pred) };
/// let body = Signature { parameters: vec![s.clone()], result: s.clone() };
/// assert_eq!(infer_while_shape(&condition, &body, &s)?, s);
/// let err = infer_while_shape(&body, &body, &s).unwrap_err();
/// assert!(err.to_string().contains("Condition must return a boolean"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_while_shape(condition: &Signature, body: &Signature, init: &Shape) -> Result<Shape> {
    let op = "while";
    if condition.parameters.len() != 1 {
        return Err(invalid(
            op,
            OpProblem::WhileConditionArity {
                condition: condition.clone(),
            },
        ));
    }
    if body.parameters.len() != 1 {
        return Err(invalid(
            op,
            OpProblem::WhileBodyArity { body: body.clone() },
        ));
    }
    let all = || (condition.clone(), body.clone(), init.clone());
    if condition.result != Shape::scalar(ElementType::Pred) {
        let (condition, body, init) = all();
        return Err(invalid(
            op,
            OpProblem::WhileConditionResult {
                condition,
                body,
                init,
            },
        ));
    }
    if body.result != condition.parameters[0]
        || body.result != body.parameters[0]
        || body.result != *init
    {
        let (condition, body, init) = all();
        return Err(invalid(
            op,
            OpProblem::WhileShapes {
                condition,
                body,
                init,
            },
        ));
    }
    Ok(init.clone())
}

/// `conditional`: the selector is `pred[]` (two branches: true, then
/// false) or `s32[]` (one or more branches); there is one operand per
/// branch, each branch takes one parameter of its operand's shape, and
/// every branch returns branch 0's result shape, which is the result's.
///
/// ```
/// use oxla_ir::{shape_inference::infer_conditional_shape, ElementType::{F32, S32}, Shape, Signature};
/// let x = Shape::new(F32, &[4]);
/// let branch = Signature { parameters: vec![x.clone()], result: x.clone() };
/// let index = Shape::scalar(S32);
/// let r = infer_conditional_shape(&index, &[branch.clone(), branch.clone(), branch], &[&x, &x, &x])?;
/// assert_eq!(r, x);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_conditional_shape(
    selector: &Shape,
    branches: &[Signature],
    operands: &[&Shape],
) -> Result<Shape> {
    let op = "conditional";
    if !selector.is_scalar() {
        return Err(invalid(
            op,
            OpProblem::ConditionalSelectorRank {
                selector: selector.clone(),
            },
        ));
    }
    let ty = selector.element_type();
    if ty != ElementType::Pred && ty != ElementType::S32 {
        return Err(invalid(
            op,
            OpProblem::ConditionalSelectorType {
                selector: selector.clone(),
            },
        ));
    }
    let count_ok = if ty == ElementType::Pred {
        branches.len() == 2
    } else {
        !branches.is_empty()
    };
    if !count_ok {
        return Err(invalid(
            op,
            OpProblem::ConditionalBranchCount {
                selector: selector.clone(),
                branches: branches.len(),
            },
        ));
    }
    if operands.len() != branches.len() {
        let mut all = vec![selector.clone()];
        all.extend(operands.iter().map(|s| (*s).clone()));
        return Err(invalid(
            op,
            OpProblem::ConditionalOperandCount {
                branches: branches.len(),
                operands: all,
            },
        ));
    }
    let first = &branches[0].result;
    for (j, (branch, operand)) in branches.iter().zip(operands).enumerate() {
        if branch.parameters.len() != 1 {
            return Err(invalid(
                op,
                OpProblem::ConditionalBranchArity {
                    branch: j,
                    computation: branch.clone(),
                },
            ));
        }
        if branch.parameters[0] != **operand {
            return Err(invalid(
                op,
                OpProblem::ConditionalBranchOperand {
                    branch: j,
                    operand: (*operand).clone(),
                    computation: branch.clone(),
                },
            ));
        }
        if branch.result != *first {
            return Err(invalid(
                op,
                OpProblem::ConditionalBranchResults {
                    branch: j,
                    first: first.clone(),
                    result: branch.result.clone(),
                },
            ));
        }
    }
    Ok(first.clone())
}

/// `opt-barrier`: any shape, returned unchanged.
pub fn infer_optimization_barrier_shape(operand: &Shape) -> Shape {
    operand.clone()
}

/// `map`: arrays of one dims (a scalar of the same element type as another
/// operand is accepted too, as XLA does); `dimensions` is every dimension in
/// order; the computation takes one scalar per operand, of that operand's
/// element type, and returns a scalar, whose element type the result has.
///
/// ```
/// use oxla_ir::{shape_inference::infer_map_shape, ElementType::{F32, Pred}, Shape, Signature};
/// let x = Shape::new(F32, &[2, 3]);
/// let is_big = Signature { parameters: vec![Shape::scalar(F32)], result: Shape::scalar(Pred) };
/// assert_eq!(infer_map_shape(&[&x], &[0, 1], &is_big)?.to_string(), "pred[2,3]");
/// assert!(infer_map_shape(&[&x], &[1, 0], &is_big).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_map_shape(
    operands: &[&Shape],
    dimensions: &[i64],
    to_apply: &Signature,
) -> Result<Shape> {
    let op = "map";
    for s in operands {
        require_array(op, "operand of map", s)?;
    }
    let Some(&first) = operands.first() else {
        return Err(invalid(
            op,
            OpProblem::OperandCount {
                expected: "at least 1".into(),
                operands: vec![],
            },
        ));
    };
    let mut arg = first;
    for &s in &operands[1..] {
        if s.dims() == arg.dims() {
            continue;
        }
        if s.element_type() == arg.element_type() {
            if s.is_scalar() {
                continue;
            }
            if arg.is_scalar() {
                arg = s;
                continue;
            }
        }
        return Err(invalid(
            op,
            OpProblem::MapShapes {
                operands: operands.iter().map(|s| (*s).clone()).collect(),
            },
        ));
    }
    if dimensions.len() != arg.rank() {
        return Err(invalid(
            op,
            OpProblem::MapDimensionsCount {
                operand: arg.clone(),
                dimensions: dimensions.to_vec(),
            },
        ));
    }
    if dimensions.iter().enumerate().any(|(i, &d)| d != i as i64) {
        return Err(invalid(
            op,
            OpProblem::MapDimensionsOrder {
                dimensions: dimensions.to_vec(),
            },
        ));
    }
    if to_apply.parameters.len() != operands.len() {
        return Err(invalid(
            op,
            OpProblem::MapArity {
                operands: operands.iter().map(|s| (*s).clone()).collect(),
                computation: to_apply.clone(),
            },
        ));
    }
    if !to_apply.result.is_scalar() {
        return Err(invalid(
            op,
            OpProblem::MapResult {
                computation: to_apply.clone(),
            },
        ));
    }
    for (i, (p, a)) in to_apply.parameters.iter().zip(operands).enumerate() {
        if !p.is_scalar() {
            return Err(invalid(
                op,
                OpProblem::MapParameter {
                    index: i,
                    parameter: p.clone(),
                },
            ));
        }
        if p.element_type() != a.element_type() {
            return Err(invalid(
                op,
                OpProblem::MapParameterType {
                    index: i,
                    parameter: p.clone(),
                    argument: (*a).clone(),
                },
            ));
        }
    }
    Ok(Shape::new(to_apply.result.element_type(), arg.dims()))
}

/// `reduce` of several inputs at once (`inputs` then `inits`, one each),
/// or of one input with a reducer that returns a 1-tuple: every input has
/// the same dims (element types may differ), the reduced dimensions exist
/// and appear once, and the reducer takes `(acc_0, .., acc_{n-1}, x_0, ..,
/// x_{n-1})` and returns `(acc_0, .., acc_{n-1})`, scalars whose types are
/// the inits' and the inputs'. The result is a tuple of one array per input
/// over the kept dimensions (an array when the reducer returns a scalar).
///
/// ```
/// use oxla_ir::{shape_inference::infer_variadic_reduce_shape, ElementType::{F32, S32}, Shape, Signature};
/// let (v, i) = (Shape::new(F32, &[2, 3]), Shape::new(S32, &[2, 3]));
/// let (f, s) = (Shape::scalar(F32), Shape::scalar(S32));
/// let argmax = Signature {
///     parameters: vec![f.clone(), s.clone(), f.clone(), s.clone()],
///     result: Shape::tuple(vec![f.clone(), s.clone()]),
/// };
/// let r = infer_variadic_reduce_shape(&[&v, &i], &[&f, &s], &[1], &argmax)?;
/// assert_eq!(r.to_string(), "(f32[2], s32[2])");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_variadic_reduce_shape(
    inputs: &[&Shape],
    inits: &[&Shape],
    dimensions: &[i64],
    reducer: &Signature,
) -> Result<Shape> {
    let op = "reduce";
    let n = inputs.len();
    if n == 0 || inits.len() != n {
        return Err(invalid(
            op,
            OpProblem::ReduceOddOperands {
                operands: inputs.iter().chain(inits).map(|s| (*s).clone()).collect(),
            },
        ));
    }
    for s in inputs {
        require_array(op, "an input of reduce", s)?;
    }
    let first = inputs[0];
    if let Some((index, input)) = inputs
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, s)| s.dims() != first.dims())
    {
        return Err(invalid(
            op,
            OpProblem::ReduceInputDims {
                first: first.clone(),
                index,
                input: (*input).clone(),
            },
        ));
    }
    if let Some(&dimension) = dimensions
        .iter()
        .find(|&&d| d < 0 || d as usize >= first.rank())
    {
        return Err(invalid(
            op,
            OpProblem::ReduceDimensionOutOfBounds {
                dimension,
                operand: first.clone(),
            },
        ));
    }
    check_reducer("reduce", reducer, inits, inputs)?;
    for (k, &d) in dimensions.iter().enumerate() {
        if dimensions[..k].contains(&d) {
            return Err(invalid(
                op,
                OpProblem::ReduceDuplicateDimension {
                    dimension: d,
                    dimensions: dimensions.to_vec(),
                },
            ));
        }
    }
    let kept = kept_dims(first, dimensions);
    if reducer.result.is_array() {
        return Ok(Shape::new(reducer.result.element_type(), &kept));
    }
    Ok(Shape::tuple(
        reducer
            .result
            .tuple_shapes()
            .iter()
            .map(|s| Shape::new(s.element_type(), &kept))
            .collect(),
    ))
}

/// XLA's `VerifyReducerShape`: the reducer of `inputs.len()` inputs of
/// the op `op` (`reduce`, or a variadic `reduce-window`).
pub(crate) fn check_reducer(
    op: &str,
    reducer: &Signature,
    inits: &[&Shape],
    inputs: &[&Shape],
) -> Result<()> {
    let n = inputs.len();
    if reducer.parameters.len() != 2 * n {
        return Err(invalid(
            op,
            OpProblem::ReducerParameterCount {
                inputs: n,
                reducer: reducer.clone(),
            },
        ));
    }
    let accumulators: Vec<&Shape> = if reducer.result.is_array() {
        vec![&reducer.result]
    } else {
        reducer.result.tuple_shapes().iter().collect()
    };
    if accumulators.len() != n {
        return Err(invalid(
            op,
            OpProblem::ReducerResultArity {
                inputs: n,
                reducer: reducer.clone(),
            },
        ));
    }
    if accumulators.iter().any(|a| !a.is_scalar()) {
        return Err(invalid(
            op,
            OpProblem::ReducerResultNotScalars {
                reducer: reducer.clone(),
            },
        ));
    }
    for i in 0..n {
        let accumulator = accumulators[i];
        if reducer.parameters[i] != *accumulator {
            return Err(invalid(
                op,
                OpProblem::ReducerAccumulatorParameter {
                    index: i,
                    parameter: reducer.parameters[i].clone(),
                    accumulator: accumulator.clone(),
                },
            ));
        }
        if inits[i] != accumulator {
            return Err(invalid(
                op,
                OpProblem::ReducerInit {
                    index: i,
                    accumulator: accumulator.clone(),
                    init: inits[i].clone(),
                },
            ));
        }
        let element = Shape::scalar(inputs[i].element_type());
        let parameter = &reducer.parameters[n + i];
        if *parameter != element {
            return Err(invalid(
                op,
                OpProblem::ReducerInputParameter {
                    index: n + i,
                    parameter: parameter.clone(),
                    element,
                },
            ));
        }
        if parameter != accumulator {
            return Err(invalid(
                op,
                OpProblem::ReducerInputAccumulator {
                    index: n + i,
                    parameter: parameter.clone(),
                    accumulator: accumulator.clone(),
                },
            ));
        }
    }
    Ok(())
}
