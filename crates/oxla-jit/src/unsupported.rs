//! What the JIT does not compile yet, refused before any native code is
//! built: tuples as values (`get-tuple-element`, tuple-typed parameters),
//! control flow (`while`, `conditional`), `opt-barrier`, `map`, a `reduce`
//! of several inputs (or with a tuple-returning reducer), `convolution`,
//! `reduce-window`, `select-and-scatter`, `gather`, `scatter`,
//! `dynamic-slice` and `dynamic-update-slice`. Each is
//! an [`Error::UnsupportedOp`] naming the op and the instruction; the
//! interpreter runs all of them.
//!
//! This is the one place that decides it: [`check`] runs first in
//! `compile`, so the rest of the JIT may assume none of these occur (its
//! exhaustive matches give them an internal error, never a result).

use oxla_ir::{Body, Computation, Error, Instruction, OpKind, Result};

/// Refuses `comp` if any body holds something the JIT cannot compile.
pub(crate) fn check(comp: &Computation) -> Result<()> {
    let entry = comp.entry_id();
    for (bi, body) in comp.bodies().iter().enumerate() {
        for inst in &body.instructions {
            if let Some(reason) = reason(inst, bi == entry.index()) {
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

/// Why `inst` cannot be compiled, or `None`.
fn reason(inst: &Instruction, in_entry: bool) -> Option<&'static str> {
    match &inst.kind {
        OpKind::GetTupleElement { .. } => Some("the JIT does not read tuples as values yet"),
        OpKind::While { .. } | OpKind::Conditional { .. } => {
            Some("the JIT does not compile control flow yet")
        }
        OpKind::OptimizationBarrier => Some("the JIT does not compile opt-barrier yet"),
        OpKind::Map { .. } => Some("the JIT does not compile map yet"),
        OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. } => {
            Some("the JIT does not compile convolutions and windowed reductions yet")
        }
        OpKind::Scatter { .. } | OpKind::DynamicUpdateSlice => {
            Some("the JIT does not compile gathers, scatters and dynamic slices yet")
        }
        OpKind::Reduce { .. } if inst.operands.len() != 2 || inst.shape.is_tuple() => {
            Some("the JIT compiles reduces of one input with a scalar reducer only")
        }
        OpKind::Parameter { .. } if in_entry && inst.shape.is_tuple() => {
            Some("the JIT takes array arguments only, not tuples")
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
        | OpKind::Tuple => None,
    }
}
