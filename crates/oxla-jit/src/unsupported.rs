//! What the JIT does not compile yet, refused before any native code is
//! built: tuples as values (`get-tuple-element`, tuple-typed parameters),
//! control flow (`while`, `conditional`), `opt-barrier`, `map`, a `reduce`,
//! `reduce-window` or `scatter` of several inputs (or with a
//! tuple-returning body); `convolution`, `reduce-window`,
//! `select-and-scatter`, `scatter`, `dynamic-update-slice`, `sort` and
//! `topk` outside the entry computation (in the entry they are compiled,
//! with the `get-tuple-element`s of a sort's tuple), and windows of more
//! than 2^24 positions (the kernels walk every position); the misc
//! family's ops that are not elementwise (`rng`, `rng-bit-generator`,
//! `cholesky`, `triangular-solve`, the batch-norm ops) and a
//! `bitcast-convert` that changes the element width. Each is an
//! [`Error::UnsupportedOp`] naming the op and the instruction; the
//! interpreter runs all of them.
//!
//! This is the one place that decides it: [`check`] runs first in
//! `compile`, so the rest of the JIT may assume none of these occur (its
//! exhaustive matches give them an internal error, never a result).

use oxla_ir::{Body, Computation, Error, Instruction, OpKind, Result, Window};

/// Refuses `comp` if any body holds something the JIT cannot compile.
pub(crate) fn check(comp: &Computation) -> Result<()> {
    let entry = comp.entry_id();
    for (bi, body) in comp.bodies().iter().enumerate() {
        for inst in &body.instructions {
            if let Some(reason) = reason(body, inst, bi == entry.index()) {
                return Err(refuse(body, inst, reason));
            }
        }
    }
    Ok(())
}

fn refuse(body: &Body, inst: &Instruction, reason: &str) -> Error {
    Error::UnsupportedOp {
        backend: "jit".into(),
        op: inst.kind.opcode_name().into(),
        instruction: inst.name.clone(),
        computation: body.name.clone(),
        reason: format!("{reason}; the interpreter (oxla_interp::evaluate) runs it"),
    }
}

/// The most positions a window of a convolution, `reduce-window` or
/// `select-and-scatter` may have: the JIT's kernels walk every position
/// (skipping padding by a guard), so a window of 2^40 positions padded
/// around a few elements would run for hours where the interpreter
/// computes the few positions that hold elements.
const MAX_WINDOW_POSITIONS: i64 = 1 << 24;

/// The number of positions of `window` (saturating).
fn window_positions(window: &Window) -> i64 {
    window
        .dimensions
        .iter()
        .fold(1i64, |n, d| n.saturating_mul(d.size.max(0)))
}

/// Why `inst` cannot be compiled, or `None`.
fn reason(body: &Body, inst: &Instruction, in_entry: bool) -> Option<&'static str> {
    let of_sort = || {
        inst.operands.first().is_some_and(|&o| {
            matches!(body.inst(o).kind, OpKind::Sort { .. } | OpKind::TopK { .. })
        })
    };
    match &inst.kind {
        // The arrays of a sort's tuple have buffers of their own.
        OpKind::GetTupleElement { .. } if in_entry && of_sort() => None,
        OpKind::GetTupleElement { .. } => Some("the JIT does not read tuples as values yet"),
        OpKind::While { .. } | OpKind::Conditional { .. } => {
            Some("the JIT does not compile control flow yet")
        }
        OpKind::OptimizationBarrier => Some("the JIT does not compile opt-barrier yet"),
        OpKind::Map { .. } => Some("the JIT does not compile map yet"),
        OpKind::Scatter { .. } if inst.operands.len() != 3 || inst.shape.is_tuple() => {
            Some("the JIT compiles scatters of one input only")
        }
        OpKind::ReduceWindow { .. } if inst.operands.len() != 2 || inst.shape.is_tuple() => {
            Some("the JIT compiles reduce-windows of one input only")
        }
        OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicUpdateSlice
            if !in_entry =>
        {
            Some("the JIT compiles this op in the entry computation only, not in a called body")
        }
        OpKind::Convolution { window, .. }
        | OpKind::ReduceWindow { window, .. }
        | OpKind::SelectAndScatter { window, .. }
            if window_positions(window) > MAX_WINDOW_POSITIONS =>
        {
            Some(
                "the JIT walks every position of a window, and this window has more than \
                 2^24 (the interpreter computes which positions hold elements)",
            )
        }
        OpKind::Sort { .. } | OpKind::TopK { .. } if !in_entry => {
            Some("the JIT compiles sort and topk in the entry computation only")
        }
        OpKind::Sort { .. } | OpKind::TopK { .. } => None,
        OpKind::Reduce { .. } if inst.operands.len() != 2 || inst.shape.is_tuple() => {
            Some("the JIT compiles reduces of one input with a scalar reducer only")
        }
        OpKind::Parameter { .. } if in_entry && inst.shape.is_tuple() => {
            Some("the JIT takes array arguments only, not tuples")
        }
        // The misc family (issue 14 brings them).
        OpKind::Rng { .. } | OpKind::RngBitGenerator { .. } => {
            Some("the JIT does not compile random-number ops yet")
        }
        OpKind::Cholesky { .. } | OpKind::TriangularSolve { .. } => {
            Some("the JIT does not compile linear-algebra ops yet")
        }
        OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. } => Some("the JIT does not compile batch normalisation yet"),
        OpKind::BitcastConvert
            if inst
                .operands
                .first()
                .map(|o| body.inst(*o).shape.element_type().bit_width())
                != Some(inst.shape.element_type().bit_width()) =>
        {
            Some("the JIT compiles a bitcast-convert only between types of one width")
        }
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
        | OpKind::Unary(_)
        | OpKind::Binary { .. }
        | OpKind::Convert
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Broadcast { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Concatenate { .. }
        | OpKind::Reverse { .. }
        | OpKind::Pad { .. }
        | OpKind::Reduce { .. }
        | OpKind::DotGeneral { .. }
        | OpKind::Gather { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Tuple
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. } => None,
    }
}
