//! What the JIT does not compile yet, refused before any native code is
//! built: `sort` and `topk` (issue 14). Each is an [`Error::UnsupportedOp`]
//! naming the op and the instruction; the interpreter runs all of them.
//!
//! This is the one place that decides it: [`check`] runs first in
//! `compile`, so the rest of the JIT may assume none of these occur (its
//! exhaustive matches give them an internal error, never a result).

use oxla_ir::{Body, Computation, Error, Instruction, OpKind, Result};

/// Refuses `comp` if any body holds something the JIT cannot compile.
pub(crate) fn check(comp: &Computation) -> Result<()> {
    for body in comp.bodies() {
        for inst in &body.instructions {
            if let Some(reason) = reason(inst) {
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
fn reason(inst: &Instruction) -> Option<&'static str> {
    match &inst.kind {
        OpKind::Sort { .. } | OpKind::TopK { .. } => {
            Some("the JIT does not compile sort and topk yet")
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
        | OpKind::Tuple => None,
    }
}
