//! The ops the JIT does not compile yet, refused before any code is built.
//!
//! The misc family's ops that are not elementwise (`rng`,
//! `rng-bit-generator`, `cholesky`, `triangular-solve`, the batch-norm ops)
//! and a `bitcast-convert` that changes the element width (it adds or
//! removes a dimension) have no emitter: [`check`] refuses a computation
//! holding any of them with [`Error::JitUnsupportedOp`], naming the
//! instruction and the op, so the JIT never returns a wrong answer or
//! panics on them. Issue 14 brings them to the JIT; each then leaves this
//! list (a test that expects the refusal fails and gets updated).

use oxla_ir::{Body, Computation, Error, Instruction, OpKind, Result};

/// Why the JIT cannot compile `inst`, or `None` when it can.
fn reason(body: &Body, inst: &Instruction) -> Option<&'static str> {
    match &inst.kind {
        OpKind::Rng { .. } | OpKind::RngBitGenerator { .. } => {
            Some("random-number ops have no JIT emitter")
        }
        OpKind::Cholesky { .. } | OpKind::TriangularSolve { .. } => {
            Some("linear-algebra ops have no JIT emitter")
        }
        OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. } => {
            Some("batch normalisation is evaluated by its expansion, which the JIT does not run")
        }
        OpKind::BitcastConvert => {
            let from = inst
                .operands
                .first()
                .map(|o| body.inst(*o).shape.element_type());
            let to = inst.shape.element_type();
            match from {
                Some(from) if from.bit_width() == to.bit_width() => None,
                _ => Some("a bitcast-convert that changes the element width has no JIT emitter"),
            }
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
        | OpKind::Tuple
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. } => None,
    }
}

/// Refuses `comp` if any of its bodies holds an op the JIT cannot compile
/// (see the module docs).
pub(crate) fn check(comp: &Computation) -> Result<()> {
    for body in comp.bodies() {
        for inst in &body.instructions {
            if let Some(reason) = reason(body, inst) {
                return Err(Error::JitUnsupportedOp {
                    instruction: inst.name.clone(),
                    op: inst.kind.opcode_name().to_string(),
                    reason: reason.to_string(),
                });
            }
        }
    }
    Ok(())
}
