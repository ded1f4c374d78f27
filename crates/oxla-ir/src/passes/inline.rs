//! [`expand_ops`]: replaces instructions by computations built from
//! primitives (their *expansions*), inlined where the instruction was.
//! The batch-norm ops ([`super::batch_norm`]) and the random-number ops
//! ([`super::random`]) reach backends with no kernels of their own this
//! way.
//!
//! Invariants: an expansion's parameters become the instruction's
//! operands, its root takes the instruction's name (so the root of a body
//! keeps its name), its other instructions get fresh names
//! `<instruction>.<name>` (suffixed `.N` when taken); the bodies it calls
//! (reducers) become bodies of the computation, placed just before the
//! entry, so the ids of the existing bodies stay valid. The output is
//! verified; a failure there is a bug in the expansion or this pass,
//! reported as [`Error::Internal`] naming the pass.

use std::collections::HashSet;

use crate::ir::{Body, ComputationId, InstId, Instruction};
use crate::{Computation, Error, OpKind, Result, Shape};

/// `comp` with every instruction for which `expansion(instruction, operand
/// shapes)` gives a computation replaced by that computation, inlined (see
/// the module docs); `stage` names the pass in errors. Comes back
/// unchanged (a clone) when no instruction expands.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, OpKind, Shape, UnaryOp, passes};
/// let mut b = Builder::new("m");
/// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
/// let y = b.unary(UnaryOp::Neg, x)?;
/// let comp = b.build(y)?;
/// // negate(x) as 0 - x.
/// let out = passes::expand_ops(&comp, "example", |inst, shapes| {
///     if inst.kind != OpKind::Unary(UnaryOp::Neg) {
///         return Ok(None);
///     }
///     let mut e = Builder::new("neg");
///     let p = e.parameter(0, shapes[0].clone(), "p")?;
///     let z = e.constant_scalar(0f32)?;
///     let d = e.sub(z, p, &[])?;
///     e.build(d).map(Some)
/// })?;
/// assert!(out.to_hlo_text().contains("subtract"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_ops(
    comp: &Computation,
    stage: &str,
    expansion: impl FnMut(&Instruction, &[Shape]) -> Result<Option<Computation>>,
) -> Result<Computation> {
    crate::verifier::verify(comp)?;
    expand_ops_unverified(comp, stage, expansion)
}

/// [`expand_ops`] of a computation that need not verify (a pass's
/// intermediate form, such as `rng`s given a counter operand by
/// `stream::thread`); the output is verified as always.
pub(crate) fn expand_ops_unverified(
    comp: &Computation,
    stage: &str,
    mut expansion: impl FnMut(&Instruction, &[Shape]) -> Result<Option<Computation>>,
) -> Result<Computation> {
    let pass_error = |message: String| Error::Internal {
        stage: stage.to_string(),
        message,
    };
    let mut taken: HashSet<String> = comp
        .bodies()
        .iter()
        .flat_map(|b| {
            b.instructions
                .iter()
                .map(|i| i.name.clone())
                .chain(std::iter::once(b.name.clone()))
        })
        .collect();
    let mut fresh = |base: &str| {
        let mut n = 0usize;
        loop {
            let name = if n == 0 {
                base.to_string()
            } else {
                format!("{base}.{n}")
            };
            n += 1;
            if taken.insert(name.clone()) {
                return name;
            }
        }
    };
    let n_old = comp.bodies().len();
    let entry = n_old - 1;
    let mut changed = false;
    // The bodies the expansions call, to be placed before the entry.
    let mut added: Vec<Body> = Vec::new();
    let mut rewritten: Vec<Body> = Vec::with_capacity(n_old);
    for body in comp.bodies() {
        let mut insts: Vec<Instruction> = Vec::with_capacity(body.instructions.len());
        let mut map: Vec<InstId> = Vec::with_capacity(body.instructions.len());
        for inst in &body.instructions {
            let operands: Vec<InstId> = inst.operands.iter().map(|o| map[o.index()]).collect();
            let shapes: Vec<Shape> = operands
                .iter()
                .map(|o| insts[o.index()].shape.clone())
                .collect();
            let Some(exp) = expansion(inst, &shapes)? else {
                let mut copy = inst.clone();
                copy.operands = operands;
                map.push(InstId(insts.len() as u32));
                insts.push(copy);
                continue;
            };
            changed = true;
            if exp.result_shape() != &inst.shape {
                return Err(pass_error(format!(
                    "the expansion of {} gives {}, not {}",
                    inst.name,
                    exp.result_shape(),
                    inst.shape
                )));
            }
            // The expansion's bodies but its entry become new bodies.
            let exp_entry = exp.entry_id().index();
            let mut body_ids = vec![ComputationId(0); exp.bodies().len()];
            for (bi, b) in exp.bodies().iter().enumerate() {
                if bi == exp_entry {
                    continue;
                }
                body_ids[bi] = ComputationId((entry + added.len()) as u32);
                let mut nb = b.clone();
                nb.name = fresh(&format!("{}.{}", inst.name, b.name));
                for i in &mut nb.instructions {
                    i.name = fresh(&format!("{}.{}", inst.name, i.name));
                    for c in i.kind.called_computations_mut() {
                        *c = body_ids[c.index()];
                    }
                }
                added.push(nb);
            }
            let eb = exp.entry();
            let mut emap: Vec<InstId> = Vec::with_capacity(eb.instructions.len());
            for (ei, e) in eb.instructions.iter().enumerate() {
                if let OpKind::Parameter { number } = e.kind {
                    let Some(&o) = usize::try_from(number).ok().and_then(|n| operands.get(n))
                    else {
                        return Err(pass_error(format!(
                            "the expansion of {} reads parameter {number}",
                            inst.name
                        )));
                    };
                    emap.push(o);
                    continue;
                }
                let mut copy = e.clone();
                copy.operands = e.operands.iter().map(|o| emap[o.index()]).collect();
                for c in copy.kind.called_computations_mut() {
                    *c = body_ids[c.index()];
                }
                copy.name = if ei == eb.root.index() {
                    inst.name.clone()
                } else {
                    fresh(&format!("{}.{}", inst.name, e.name))
                };
                emap.push(InstId(insts.len() as u32));
                insts.push(copy);
            }
            map.push(emap[eb.root.index()]);
        }
        rewritten.push(Body {
            name: body.name.clone(),
            root: map[body.root.index()],
            instructions: insts,
        });
    }
    if !changed {
        // (cheap next to the rewrite; the input of `expand_ops` was
        // verified already, that of `expand_ops_unverified` not)
        crate::verifier::verify(comp)?;
        return Ok(comp.clone());
    }
    let entry_body = rewritten.pop();
    rewritten.extend(added);
    rewritten.extend(entry_body);
    Computation::from_bodies(comp.name(), rewritten).map_err(|e| {
        pass_error(format!(
            "the computation with its ops expanded does not verify (a bug in the pass):\n{e}"
        ))
    })
}
