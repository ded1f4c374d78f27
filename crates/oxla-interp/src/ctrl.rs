//! Control flow and the ops that call computations per element: `while`,
//! `conditional`, `map` and the variadic `reduce`, as XLA's evaluator runs
//! them.
//!
//! - `while`: `s = init; while condition(s) { s = body(s) }`. The state is
//!   handed from one iteration to the next as a [`Value`], so the arrays it
//!   carries are shared, never copied; the condition sees the state, the
//!   body then takes it over. Zero trips return `init` itself. A
//!   `known_trip_count` in the text is a hint the parser accepts and this
//!   loop does not need.
//! - `conditional`: only the chosen branch runs. A `pred` selector runs
//!   branch 0 (`true_computation`) when true and branch 1 when false; an
//!   `s32` selector outside `0..n` runs the last branch.
//! - `map`: the computation runs once per index, in row-major order, on
//!   the operands' elements at that index (a scalar operand gives its one
//!   element everywhere, as XLA's evaluator reads it).
//! - variadic `reduce`: for each result index (row-major), the accumulators
//!   start at the inits, then `(acc..) = reducer(acc.., x..)` for each
//!   reduced index in row-major order of the reduced dimensions taken in
//!   increasing order, as XLA's `HloEvaluator` does. The single-input
//!   `reduce` keeps its own path (with the fast path for one-op reducers).

use oxla_ir::{ArrayData, ComputationId, Instruction, Literal, NativeType, Shape, dispatch_array};

use crate::Eval;
use crate::index::element_count;
use crate::ops::{self, OpResult};
use crate::value::Value;

/// Calls body `id` with `params`, naming it (as `what`) in an error.
fn call<'a, 'b>(
    cx: &Eval<'a>,
    id: ComputationId,
    what: &str,
    params: Vec<Value<'b>>,
    depth: usize,
) -> OpResult<Value<'b>>
where
    'a: 'b,
{
    cx.call(id, params, depth + 1)
        .map_err(|e| format!("in the {what} `{}`: {e}", cx.body_name(id)))
}

/// The one value of a `pred[]` value.
fn pred_value(value: &Value<'_>) -> OpResult<bool> {
    ops::scalar_value::<bool>(value.array()?)
}

/// `while`: see the module docs.
pub(crate) fn run_while<'a, 'b>(
    cx: &Eval<'a>,
    condition: ComputationId,
    body: ComputationId,
    init: Value<'b>,
    depth: usize,
) -> OpResult<Value<'b>>
where
    'a: 'b,
{
    let mut state = init;
    while pred_value(&call(
        cx,
        condition,
        "condition",
        vec![state.clone()],
        depth,
    )?)? {
        state = call(cx, body, "body", vec![state], depth)?;
    }
    Ok(state)
}

/// `conditional`: `args` are the selector, then one operand per branch.
pub(crate) fn conditional<'a, 'b>(
    cx: &Eval<'a>,
    branches: &[ComputationId],
    mut args: Vec<Value<'b>>,
    depth: usize,
) -> OpResult<Value<'b>>
where
    'a: 'b,
{
    if branches.is_empty() || args.len() != branches.len() + 1 {
        return Err(format!(
            "{} branches and {} operands (one selector, one per branch expected)",
            branches.len(),
            args.len()
        ));
    }
    let selector = args[0].array()?;
    // A `pred` selector picks branch 0 or 1; any other is read as the
    // `s32` index (an error for another type).
    let chosen = if selector.element_type().is_pred() {
        if ops::scalar_value::<bool>(selector)? {
            0
        } else {
            1
        }
    } else {
        let index = ops::scalar_value::<i32>(selector)?;
        usize::try_from(index)
            .ok()
            .filter(|&k| k < branches.len())
            .unwrap_or(branches.len() - 1)
    };
    let operand = args.swap_remove(chosen + 1);
    call(cx, branches[chosen], "branch", vec![operand], depth)
}

/// The element at `position` of an array literal, as a scalar literal.
fn element_at(literal: &Literal, position: usize) -> OpResult<Literal> {
    let data = ops::array(literal)?;
    if position >= data.len() {
        return Err(format!(
            "position {position} is outside {} ({} values)",
            literal.shape(),
            data.len()
        ));
    }
    Literal::from_array_data(&[], data.gather(&[position])).map_err(|e| e.to_string())
}

/// Writes the scalar `value` at `position` of `data` (same element type).
fn set_element(data: &mut ArrayData, position: usize, value: &Literal) -> OpResult<()> {
    let (len, ty) = (data.len(), data.element_type());
    let bad = || {
        format!(
            "cannot store {} at position {position} of {len} {ty} values",
            value.shape(),
        )
    };
    let source = ops::array(value)?;
    if value.shape().rank() != 0 {
        return Err(bad());
    }
    let stored = dispatch_array!(data, v => {
        match (v.get_mut(position), NativeType::slice_of(source)) {
            (Some(slot), Some(&[x])) => {
                *slot = x;
                true
            }
            _ => false,
        }
    });
    if stored { Ok(()) } else { Err(bad()) }
}

/// Zeros of `shape`'s element type, one per element of `shape`.
fn zeros(shape: &Shape) -> OpResult<ArrayData> {
    ArrayData::zeros(shape.element_type(), element_count(shape.dims()))
        .ok_or_else(|| format!("cannot allocate the values of {shape}"))
}

/// `map`: `args` are the operands, `shape` the result's.
pub(crate) fn map<'a>(
    cx: &Eval<'a>,
    to_apply: ComputationId,
    args: &[Value<'_>],
    shape: &Shape,
    depth: usize,
) -> OpResult<ArrayData> {
    let operands = args
        .iter()
        .map(Value::array)
        .collect::<OpResult<Vec<_>>>()?;
    let mut out = zeros(shape)?;
    for position in 0..out.len() {
        let elements = operands
            .iter()
            .map(|x| element_at(x, if x.shape().rank() == 0 { 0 } else { position }))
            .collect::<OpResult<Vec<_>>>()?;
        let params = elements.iter().map(Value::Borrowed).collect();
        let result = call(cx, to_apply, "mapped computation", params, depth)?;
        set_element(&mut out, position, result.array()?)?;
    }
    Ok(out)
}

/// The variadic `reduce` of instruction `inst`: `args` are the inputs, then
/// one init per input.
pub(crate) fn reduce_variadic<'a, 'b>(
    cx: &Eval<'a>,
    to_apply: ComputationId,
    args: &[Value<'b>],
    dimensions: &[i64],
    inst: &Instruction,
    depth: usize,
) -> OpResult<Value<'b>>
where
    'a: 'b,
{
    let n = args.len() / 2;
    if n == 0 || args.len() != 2 * n {
        return Err(format!(
            "{} operands: a reduce takes inputs and as many init values",
            args.len()
        ));
    }
    let values = args
        .iter()
        .map(Value::array)
        .collect::<OpResult<Vec<_>>>()?;
    let (inputs, inits) = values.split_at(n);
    let result_shapes: Vec<Shape> = if inst.shape.is_tuple() {
        inst.shape.tuple_shapes().to_vec()
    } else {
        vec![inst.shape.clone()]
    };
    if result_shapes.len() != n {
        return Err(format!("{} results for {n} inputs", result_shapes.len()));
    }
    let x_dims = inputs[0].shape().dims();
    let len = inputs.iter().map(|x| x.element_count()).min().unwrap_or(0);
    let (bases, offsets) = ops::reduce_positions(x_dims, dimensions, result_shapes[0].dims(), len)?;
    let mut outs = result_shapes
        .iter()
        .map(zeros)
        .collect::<OpResult<Vec<_>>>()?;
    for (k, base) in bases.into_iter().enumerate() {
        let mut accumulators: Vec<Literal> = inits.iter().map(|&l| l.clone()).collect();
        for offset in &offsets {
            let elements = inputs
                .iter()
                .map(|x| element_at(x, base + offset))
                .collect::<OpResult<Vec<_>>>()?;
            let params = accumulators
                .iter()
                .chain(&elements)
                .map(Value::Borrowed)
                .collect();
            let result = call(cx, to_apply, "reducer", params, depth)?.into_literal();
            accumulators = match result.into_tuple_elements() {
                Ok(elements) => elements,
                Err(scalar) => vec![scalar],
            };
            if accumulators.len() != n {
                return Err(format!(
                    "the reducer `{}` returned {} values for {n} inputs",
                    cx.body_name(to_apply),
                    accumulators.len()
                ));
            }
        }
        for (out, acc) in outs.iter_mut().zip(&accumulators) {
            set_element(out, k, acc)?;
        }
    }
    let mut results = result_shapes
        .iter()
        .zip(outs)
        .map(|(s, data)| {
            Literal::from_array_data(s.dims(), data)
                .map(Value::from_literal)
                .map_err(|e| e.to_string())
        })
        .collect::<OpResult<Vec<_>>>()?;
    if inst.shape.is_tuple() {
        Ok(Value::tuple(results))
    } else {
        results.pop().ok_or_else(|| "no result".to_string())
    }
}

/// A variadic `reduce-window`: `args` are N inputs and N init values; for
/// each output position the accumulators start at the inits and the
/// reducer folds in the inputs' elements at every window position in
/// order (the one-input form's order), giving the tuple of N arrays.
pub(crate) fn reduce_window_variadic<'a, 'b>(
    cx: &Eval<'a>,
    to_apply: ComputationId,
    args: &[Value<'b>],
    window: &oxla_ir::Window,
    inst: &Instruction,
    depth: usize,
) -> OpResult<Value<'b>>
where
    'a: 'b,
{
    let n = args.len() / 2;
    if n == 0 || args.len() != 2 * n || !inst.shape.is_tuple() {
        return Err(format!(
            "{} operands and result {}: a variadic reduce-window takes inputs and as many \
             init values, and gives a tuple",
            args.len(),
            inst.shape
        ));
    }
    let values = args
        .iter()
        .map(Value::array)
        .collect::<OpResult<Vec<_>>>()?;
    let (inputs, inits) = values.split_at(n);
    let result_shapes = inst.shape.tuple_shapes();
    if result_shapes.len() != n {
        return Err(format!("{} results for {n} inputs", result_shapes.len()));
    }
    let x_dims = inputs[0].shape().dims();
    let out_dims = result_shapes[0].dims();
    let mut outs = result_shapes
        .iter()
        .map(zeros)
        .collect::<OpResult<Vec<_>>>()?;
    let mut failure: Option<String> = None;
    let mut k = 0usize;
    crate::index::for_each_index(out_dims, |idx| {
        if failure.is_some() {
            return;
        }
        let mut step = || -> OpResult<()> {
            let mut accumulators: Vec<Literal> = inits.iter().map(|&l| l.clone()).collect();
            for p in crate::windows::window_positions(window, x_dims, idx) {
                let elements = inputs
                    .iter()
                    .map(|x| element_at(x, p))
                    .collect::<OpResult<Vec<_>>>()?;
                let params = accumulators
                    .iter()
                    .chain(&elements)
                    .map(Value::Borrowed)
                    .collect();
                let result = call(cx, to_apply, "reducer", params, depth)?.into_literal();
                accumulators = result
                    .into_tuple_elements()
                    .map_err(|r| format!("the reducer returned {}, not a tuple", r.shape()))?;
                if accumulators.len() != n {
                    return Err(format!(
                        "the reducer `{}` returned {} values for {n} inputs",
                        cx.body_name(to_apply),
                        accumulators.len()
                    ));
                }
            }
            for (out, acc) in outs.iter_mut().zip(&accumulators) {
                set_element(out, k, acc)?;
            }
            k += 1;
            Ok(())
        };
        if let Err(e) = step() {
            failure = Some(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let results = result_shapes
        .iter()
        .zip(outs)
        .map(|(s, data)| {
            Literal::from_array_data(s.dims(), data)
                .map(Value::from_literal)
                .map_err(|e| e.to_string())
        })
        .collect::<OpResult<Vec<_>>>()?;
    Ok(Value::tuple(results))
}
