//! Tuples and control flow: `get_tuple_element`, `while`, `if`, `case`,
//! `optimization_barrier` and `map` (the variadic `reduce` is with the
//! single one, in [`super::reduce`]).
//!
//! StableHLO passes several values where the IR passes one: an op's
//! results, a loop's state, a barrier's operands. The IR holds them as a
//! tuple ([`OpCx::pack`]) and each result is a `get-tuple-element` of it
//! ([`OpCx::unpack`]); one value is passed as itself. Regions of `if`,
//! `case` and `while` may use values from outside them, which the IR's
//! called computations cannot: those values become operands (a branch's
//! operand, extra loop state passed through unchanged), bound to their
//! names inside ([`OpCx::captures`]).

use oxla_ir::ir::{InstId, OpKind};
use oxla_ir::{ElementType, Result, Shape};

use super::super::lower::OpCx;

/// The shape of `results` held as one value ([`OpCx::pack`]'s).
pub(in crate::parse) fn packed(results: &[Shape]) -> Shape {
    match results {
        [one] => one.clone(),
        many => Shape::tuple(many.to_vec()),
    }
}

/// `stablehlo.get_tuple_element`: element `index` of a tuple value.
pub(in crate::parse) fn get_tuple_element(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let index = cx.int("index", "%t[0]")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::GetTupleElement { index },
        cx.operands.clone(),
        &r,
    )?])
}

/// `stablehlo.while`: a `while` over the loop variables and the values its
/// regions capture, as one state; the results are the loop variables'
/// final values.
pub(in crate::parse) fn while_loop(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let n = cx.operands.len();
    cx.arity(n, n)?;
    regions(cx, 2, "a `cond` and a `do` region")?;
    let captures = cx.captures(&[0, 1])?;
    let mut inits = cx.operands.clone();
    inits.extend(captures.iter().map(|&(_, id)| id));
    let init = cx.pack(&inits)?;
    let condition = cx.packed_region(0, "condition", &captures, false)?;
    let body = cx.packed_region(1, "body", &captures, true)?;
    let state = cx.shape(init);
    let w = cx.push(OpKind::While { condition, body }, vec![init], &state)?;
    if inits.len() == 1 {
        return Ok(vec![w]);
    }
    (0..n)
        .map(|k| {
            let part = state.tuple_shapes()[k].clone();
            let index = k as i64;
            cx.push(OpKind::GetTupleElement { index }, vec![w], &part)
        })
        .collect()
}

/// `stablehlo.if`: a `conditional` on a `pred`, the true branch first.
pub(in crate::parse) fn if_op(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    regions(cx, 2, "a true and a false branch")?;
    conditional(cx, ElementType::Pred)
}

/// `stablehlo.case`: a `conditional` on an `s32` index (out of range
/// picks the last branch, in StableHLO and in the IR alike).
pub(in crate::parse) fn case(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    if cx.region_count() == 0 {
        return Err(cx.err(cx.op.pos, "has no branches", "at least one branch region"));
    }
    conditional(cx, ElementType::S32)
}

/// Each branch takes what it captures as its operand (a tuple, or the one
/// value); the results are the conditional's, unpacked.
fn conditional(cx: &mut OpCx<'_, '_, '_, '_>, selector: ElementType) -> Result<Vec<InstId>> {
    let m = cx.results.len();
    cx.arity(1, m)?;
    let s = cx.shape(cx.operands[0]);
    if s != Shape::scalar(selector) {
        return Err(cx.err(
            cx.op.pos,
            format!("the selector is {s}, not {}", Shape::scalar(selector)),
            format!("a {} selector", Shape::scalar(selector)),
        ));
    }
    let mut operands = vec![cx.operands[0]];
    let mut branches = Vec::new();
    for k in 0..cx.region_count() {
        let captures = cx.captures(&[k])?;
        let values: Vec<InstId> = captures.iter().map(|&(_, id)| id).collect();
        operands.push(cx.pack(&values)?);
        branches.push(cx.packed_region(k, "branch", &captures, false)?);
    }
    let shape = packed(&cx.results);
    let c = cx.push(OpKind::Conditional { branches }, operands, &shape)?;
    cx.unpack(c, m)
}

/// `stablehlo.optimization_barrier`: one `opt-barrier` over its operands
/// (a tuple of them when several).
pub(in crate::parse) fn optimization_barrier(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let n = cx.operands.len();
    cx.arity(n, n)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let x = cx.pack(&cx.operands.clone())?;
    let shape = cx.shape(x);
    let b = cx.push(OpKind::OptimizationBarrier, vec![x], &shape)?;
    cx.unpack(b, n)
}

/// `stablehlo.map`: the computation applied elementwise.
pub(in crate::parse) fn map(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let n = cx.operands.len();
    cx.arity(n, 1)?;
    let dimensions = cx.ints("dimensions", "dimensions = array<i64: 0, 1>")?;
    regions(cx, 1, "one computation region")?;
    let to_apply = cx.region_body(0, "computation")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::Map {
            dimensions,
            to_apply,
        },
        cx.operands.clone(),
        &r,
    )?])
}

/// Requires `n` regions.
pub(in crate::parse) fn regions(cx: &OpCx<'_, '_, '_, '_>, n: usize, what: &str) -> Result<()> {
    if cx.region_count() != n {
        return Err(cx.err(
            cx.op.pos,
            format!("has {} region(s), not {n}", cx.region_count()),
            what.to_string(),
        ));
    }
    Ok(())
}
