//! Loop groups: the fusion decision that joins consecutive elementwise
//! loop steps over one shape into one step, run as one kernel that
//! computes every member's value once per element and stores each.
//!
//! A value read by several later kernels while costly to recompute is
//! materialised (`SHARED_COST`): threefry's rounds (`x1 = rotl(x1, r) ^
//! x0` read by the next rotation, the next add and the result) become a
//! chain of loop steps over the same state, each a pass over memory that
//! reloads what the previous one stored. As one kernel, the chain is one
//! expression graph at the element: a member read by a later one is not
//! loaded but taken from the graph (hash-consed, so computed once), and
//! every member still stores its value (its buffer is read after the
//! group, or is a result leaf).
//!
//! The decision, in definition order of the steps:
//!
//! 1. A group starts at a loop step whose output has at least two
//!    elements, and extends over each following loop step whose output has
//!    the same dims and element type.
//! 2. Each extension must keep every read of a buffer the group writes at
//!    the element being computed ([`reads_at_element`]): a later member
//!    reading an earlier one elsewhere (a reverse, a shifted slice) would
//!    recompute it there, and a loop-state leaf updated in place by a
//!    member must be read (its old value) only where it is written. The
//!    index analysis (`graph`) says where each member reads; nothing is
//!    lowered.
//!
//! Lowering (`lower.rs`) builds the group's kernel, one pass storing the
//! last member's value and keeping each other member's (`Pass::keeps`) at
//! the same element; when that kernel would lose what a member's own
//! kernel has (a loop split where guards flip, a tiled transpose), it
//! lowers the members as separate kernels instead, reading each other's
//! buffers as before. Both are exact: the same per-element code.

use oxla_ir::{Computation, Result};

use crate::entity::BufferId;
use crate::graph::{Ctx, Graph, Source};
use crate::ix::Ix;

use super::{Plan, Step, StepKind};

/// The output dims and element type of `step` if it can be a loop group's
/// member: a loop step with at least two elements.
fn member_shape(plan: &Plan, step: &Step) -> Option<(Vec<i64>, oxla_ir::ElementType)> {
    match step.kind {
        StepKind::Loop { .. } => {
            let shape = &plan.buffers[step.out].shape;
            (shape.element_count() >= 2).then(|| (shape.dims().to_vec(), shape.element_type()))
        }
        StepKind::Reduce { .. }
        | StepKind::DotCopy { .. }
        | StepKind::Dot { .. }
        | StepKind::RowGroup { .. }
        | StepKind::LoopGroup { .. }
        | StepKind::MultiReduce { .. }
        | StepKind::While(_)
        | StepKind::Conditional(_)
        | StepKind::Op(_)
        | StepKind::Sort(_)
        | StepKind::SortKey { .. } => None,
    }
}

/// The index of every element of `dims` (one variable per non-unit dim),
/// the extents, and the element's row-major offset.
pub(crate) fn element_index(dims: &[i64]) -> (Vec<Ix>, crate::ix::Extents, Ix) {
    let walks: Vec<usize> = (0..dims.len()).filter(|&d| dims[d] != 1).collect();
    let extents = walks.iter().map(|&d| dims[d]).collect();
    let mut index = vec![Ix::constant(0); dims.len()];
    for (v, &d) in walks.iter().enumerate() {
        index[d] = Ix::var(crate::entity::LoopVar::new(v));
    }
    let mut offset = Ix::constant(0);
    for (ix, s) in index.iter().zip(&oxla_ir::shape::row_major_strides(dims)) {
        offset = offset.add(&ix.scale(*s));
    }
    (index, extents, offset)
}

/// Whether `members`, run at one element of `dims`, read every buffer the
/// group writes (a member's output, or a loop-state leaf a member updates
/// in place) only at that element. Each member's value is built, as its
/// own kernel would read it, into one expression graph.
fn reads_at_element(
    comp: &Computation,
    plan: &Plan,
    dims: &[i64],
    members: &[Step],
) -> Result<bool> {
    let (index, extents, element) = element_index(dims);
    let source = |i| plan.materialised.get(&i).map(|&b| Source::Buffer(b));
    let ctx = Ctx {
        body_id: comp.entry_id(),
        comp,
        called: &plan.called_constants,
        source: &source,
    };
    let mut graph = Graph::new(extents);
    let mut written: Vec<(BufferId, Ix)> = Vec::new();
    for step in members {
        let StepKind::Loop { root } = step.kind else {
            return Ok(false);
        };
        graph.forget_instructions();
        graph.build(&ctx, root, index.clone())?;
        written.push((step.out, element.clone()));
    }
    Ok(graph.loads_at(&written))
}

/// Replaces runs of loop steps over one shape that read each other only
/// at the element they compute by loop-group steps (see the module docs).
pub(super) fn form_loop_groups(comp: &Computation, plan: &mut Plan) -> Result<()> {
    let steps = std::mem::take(&mut plan.steps);
    let mut out = Vec::with_capacity(steps.len());
    let mut i = 0;
    while i < steps.len() {
        if let Some(shape) = member_shape(plan, &steps[i]) {
            let mut end = i;
            let mut j = i + 1;
            while j < steps.len()
                && member_shape(plan, &steps[j]).as_ref() == Some(&shape)
                && reads_at_element(comp, plan, &shape.0, &steps[i..=j])?
            {
                end = j;
                j += 1;
            }
            if end > i {
                out.push(Step {
                    out: steps[end].out,
                    kind: StepKind::LoopGroup {
                        members: steps[i..=end].to_vec(),
                    },
                    fused: vec![],
                });
                i = end + 1;
                continue;
            }
        }
        out.push(steps[i].clone());
        i += 1;
    }
    plan.steps = out;
    Ok(())
}
