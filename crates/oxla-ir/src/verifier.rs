//! The verifier: checks a whole computation and reports every problem, each
//! located at its instruction.
//!
//! It re-runs [`crate::shape_inference`] on every instruction (the same
//! functions the builder used) and checks what inference cannot see: that
//! operands exist and come earlier in the same body, that the op has the
//! right number of operands, that parameters are numbered densely, that
//! names are unique, that called bodies exist and have the signature their
//! caller needs. It runs after `build`, after parsing and after every pass.
//!
//! [`verify_strict_hlo`] additionally checks XLA's own HLO rule that no
//! instruction broadcasts implicitly (the form
//! [`crate::passes::expand_broadcasts()`] produces).

use std::collections::HashSet;

use crate::ir::{Body, ComputationId, InstId, Instruction, OpKind};
use crate::printer::instruction_text;
use crate::shape_inference::infer_instruction_shape;
use crate::{Computation, Error, Result, Shape, VerifierProblem};

/// Verifies `comp`; on failure the error lists every problem found.
pub fn verify(comp: &Computation) -> Result<()> {
    report(comp, collect_problems(comp, false))
}

/// Verifies `comp` and also requires XLA's strict HLO form: every operand of
/// an elementwise op has the result's dims, broadcasts map sizes exactly.
pub fn verify_strict_hlo(comp: &Computation) -> Result<()> {
    report(comp, collect_problems(comp, true))
}

fn report(comp: &Computation, problems: Vec<VerifierProblem>) -> Result<()> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::Verification {
            computation: comp.name().to_string(),
            problems,
        })
    }
}

/// Every problem in `comp`, in body and instruction order.
pub fn collect_problems(comp: &Computation, strict: bool) -> Vec<VerifierProblem> {
    let mut problems = Vec::new();
    if comp.bodies().is_empty() {
        problems.push(VerifierProblem {
            computation: comp.name().to_string(),
            instruction: "<none>".into(),
            text: String::new(),
            message: "the computation has no entry body.".into(),
        });
        return problems;
    }
    let mut body_names = HashSet::new();
    for (bi, body) in comp.bodies().iter().enumerate() {
        if !body_names.insert(body.name.as_str()) {
            problems.push(VerifierProblem {
                computation: body.name.clone(),
                instruction: "<body>".into(),
                text: String::new(),
                message: format!("a computation named `{}` appears twice.", body.name),
            });
        }
        verify_body(comp, bi, body, strict, &mut problems);
    }
    problems
}

fn verify_body(
    comp: &Computation,
    bi: usize,
    body: &Body,
    strict: bool,
    problems: &mut Vec<VerifierProblem>,
) {
    let mut add = |inst: &Instruction, message: String| {
        problems.push(VerifierProblem {
            computation: body.name.clone(),
            instruction: inst.name.clone(),
            text: instruction_text(comp, body, inst),
            message,
        });
    };
    if body.instructions.is_empty() || body.root.index() >= body.instructions.len() {
        problems.push(VerifierProblem {
            computation: body.name.clone(),
            instruction: "<root>".into(),
            text: String::new(),
            message: format!(
                "the root #{} is not an instruction of the body ({} instructions).",
                body.root.0,
                body.instructions.len()
            ),
        });
        return;
    }
    // Called bodies must come before their caller: ids below `bi`.
    let called = |id: ComputationId| -> Option<(Vec<Shape>, Shape)> {
        if id.index() >= bi {
            return None;
        }
        let b = comp.bodies().get(id.index())?;
        let root = b.instructions.get(b.root.index())?;
        Some((b.parameter_shapes(), root.shape.clone()))
    };
    let mut names = HashSet::new();
    let mut numbers = Vec::new();
    for (i, inst) in body.instructions.iter().enumerate() {
        if !names.insert(inst.name.as_str()) {
            add(
                inst,
                format!("the name `{}` is used by another instruction.", inst.name),
            );
        }
        if let OpKind::Parameter { number } = inst.kind {
            numbers.push((number, inst));
        }
        let mut operand_shapes = Vec::with_capacity(inst.operands.len());
        let mut operands_ok = true;
        for &InstId(o) in &inst.operands {
            if o as usize >= i {
                add(
                    inst,
                    format!("operand #{o} is not defined before this instruction (#{i})."),
                );
                operands_ok = false;
            } else {
                operand_shapes.push(&body.instructions[o as usize].shape);
            }
        }
        if !operands_ok {
            continue;
        }
        match infer_instruction_shape(&inst.kind, &operand_shapes, &inst.shape, &called) {
            Err(e) => add(inst, e.to_string()),
            Ok(s) if s != inst.shape => add(
                inst,
                format!(
                    "the instruction declares shape {} but its operands give {s}.",
                    inst.shape
                ),
            ),
            Ok(_) => {}
        }
        if strict && let Some(message) = strict_problem(&inst.kind, &operand_shapes, &inst.shape) {
            add(inst, message);
        }
    }
    numbers.sort_by_key(|(n, _)| *n);
    for (k, (n, inst)) in numbers.iter().enumerate() {
        if *n != k as i64 {
            add(
                inst,
                format!(
                    "parameter numbers must be dense from 0; expected number {k} here, found {n} ({} parameters).",
                    numbers.len()
                ),
            );
            break;
        }
    }
    // What a called body must return (an array for a reducer or a mapped
    // computation, anything for a loop body or a branch) is its caller's
    // business: shape inference checks it with the callee's signature.
}

/// XLA's HLO-level rules that our dialect relaxes. Only what shape
/// inference does not already report is looked at here: a wrong operand
/// count or an out-of-range broadcast dimension is left to it.
fn strict_problem(kind: &OpKind, operands: &[&Shape], shape: &Shape) -> Option<String> {
    if let OpKind::Binary {
        broadcast_dimensions,
        ..
    } = kind
        && !broadcast_dimensions.is_empty()
    {
        return Some(format!(
            "HLO binary ops take no broadcast_dimensions, but {} has broadcast_dimensions={}; \
             make the broadcast explicit (passes::expand_broadcasts does).",
            kind.opcode_name(),
            crate::shape::dims_text(broadcast_dimensions)
        ));
    }
    let elementwise = matches!(
        kind,
        OpKind::Unary(_) | OpKind::Binary { .. } | OpKind::Convert | OpKind::Select
    );
    if elementwise || matches!(kind, OpKind::Clamp) {
        for (i, o) in operands.iter().enumerate() {
            // HLO clamp still accepts scalar bounds.
            let clamp_bound = matches!(kind, OpKind::Clamp) && i != 1 && o.is_scalar();
            if o.dims() != shape.dims() && !clamp_bound {
                return Some(format!(
                    "Implicit broadcast is not allowed in HLO. Found different shapes for instruction {}.\noutput: {shape}\noperand: {o}",
                    kind.opcode_name()
                ));
            }
        }
    }
    if let (OpKind::Broadcast { dimensions }, Some(operand)) = (kind, operands.first()) {
        for (i, &d) in dimensions.iter().enumerate() {
            let out_size = usize::try_from(d).ok().and_then(|d| shape.dims().get(d));
            if let (Some(&o), Some(&s)) = (out_size, operand.dims().get(i))
                && o != s
            {
                return Some(format!(
                    "HLO broadcast must map sizes exactly: operand {operand} dimension {i} (size {s}) maps to output {shape} dimension {d} (size {o})."
                ));
            }
        }
    }
    None
}
