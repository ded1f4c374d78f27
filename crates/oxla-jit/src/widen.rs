//! Dots and convolutions whose operands, sum and result are not all of
//! one type, rewritten before the JIT compiles them into the ops of one
//! type the rest of the JIT compiles: `convert` of each operand to the
//! type the op computes in, the op in that type, and a `convert` of its
//! result to the result type.
//!
//! This is the interpreter's definition spelt out, not an approximation:
//! its dot converts the operands to
//! [`oxla_ir::shape_inference::dot_compute_type`] (narrow floats sum in
//! `f32`, sub-byte integers in 64 bits, a result narrower than the
//! operands is converted from the operands' type), sums, and converts the
//! sum with the `convert` op's routine; its convolution sums in the same
//! compute type the same way. So the rewritten module means the
//! same bits in the interpreter; in the JIT the operand converts fuse into
//! the dot's operand copy (`fusion::StepKind::DotCopy`, one conversion
//! per element, through `codegen/narrow.rs` for the narrow types) and the
//! result convert into an elementwise kernel after the dot (rounding with
//! the same routine a `convert` uses). Only the summation order of float
//! dots may differ from the interpreter's (the bound in `docs/jit.md`),
//! which a narrow result's rounding can turn into one narrow ulp.
//!
//! Invariant after [`widen`]: every `dot` and `convolution` has operands
//! and result of its compute type unless its types are all wider than a
//! byte and it sums in its result type (`s8 x s8 -> s32`: the dot's
//! operand copy converts, as does the convolution's).

use oxla_ir::shape_inference::dot_compute_type;
use oxla_ir::{Builder, Computation, ElementType, Instruction, OpKind, Result, Shape};

use crate::codegen::computes_narrow;

/// Whether `inst`, with operand shapes `operands`, is rewritten: a dot
/// or convolution that does not sum in its result type or has a narrow
/// operand or result.
fn rewritten(inst: &Instruction, operands: &[Shape]) -> bool {
    let result = inst.shape.element_type();
    let [lhs, rhs] = operands else {
        return false;
    };
    if inst.shape.is_tuple() || lhs.is_tuple() || rhs.is_tuple() {
        return false;
    }
    let (l, r) = (lhs.element_type(), rhs.element_type());
    let narrow = computes_narrow(l) || computes_narrow(r) || computes_narrow(result);
    if let OpKind::DotGeneral { .. } | OpKind::Convolution { .. } = inst.kind {
        narrow || dot_compute_type(l, r, result) != result
    } else {
        false
    }
}

/// `comp` with every dot and convolution of mixed or narrow types
/// rewritten (see the module docs), or `None` when there is none.
pub(crate) fn widen(comp: &Computation) -> Result<Option<Computation>> {
    let any = comp.bodies().iter().any(|body| {
        body.instructions.iter().any(|inst| {
            let shapes: Vec<Shape> = inst
                .operands
                .iter()
                .filter_map(|o| body.instructions.get(o.index()))
                .map(|o| o.shape.clone())
                .collect();
            rewritten(inst, &shapes)
        })
    });
    if !any {
        return Ok(None);
    }
    oxla_ir::passes::expand_ops(comp, "JIT widen pass", |inst, operands| {
        if !rewritten(inst, operands) {
            return Ok(None);
        }
        let result = inst.shape.element_type();
        let (l, r) = (operands[0].element_type(), operands[1].element_type());
        let ty = dot_compute_type(l, r, result);
        let mut b = Builder::new(&inst.name);
        let mut widened = Vec::with_capacity(2);
        for (k, shape) in operands.iter().enumerate() {
            let p = b.parameter(k as i64, shape.clone(), &format!("p{k}"))?;
            widened.push(to_type(&mut b, p, shape.element_type(), ty)?);
        }
        let y = if let OpKind::DotGeneral { dims } = &inst.kind {
            b.dot_general(widened[0], widened[1], dims)?
        } else if let OpKind::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
            ..
        } = &inst.kind
        {
            b.conv_general_dilated(
                widened[0],
                widened[1],
                window,
                dims,
                *feature_group_count,
                *batch_group_count,
            )?
        } else {
            return Ok(None);
        };
        let y = to_type(&mut b, y, ty, result)?;
        b.build(y).map(Some)
    })
    .map(Some)
}

/// `x` (of type `from`) converted to `to`, or `x` when the types agree.
fn to_type(
    b: &mut Builder,
    x: oxla_ir::Op,
    from: ElementType,
    to: ElementType,
) -> Result<oxla_ir::Op> {
    if from == to { Ok(x) } else { b.convert(x, to) }
}
