//! Row groups: the fusion decision that joins a reduce over the innermost
//! dimensions and the steps that read it back over the same rows into one
//! step, run as one kernel with one pass per member.
//!
//! Softmax, log-softmax and layer norm reduce over the innermost dims and
//! read the result back broadcast over the same rows. As separate kernels
//! each step streams the whole array from memory; as one kernel whose
//! outer loops walk the rows, each pass reads a row that is still in cache.
//!
//! The decision, in definition order of the steps:
//!
//! 1. A group starts at a `reduce` whose reduced dims all come after its
//!    kept ones (size-1 dims aside), with at least one non-unit dim of each
//!    kind and no zero-size dim: its input's shape is the [`RowSpace`].
//! 2. It extends over each following step that iterates that space
//!    ([`joins`]): a reduce of an input of the same shape over the same
//!    dims, a loop over the row space, or a loop over the rows (one value
//!    per row: a *row pass*).
//! 3. Each extension must keep every read of a buffer the group writes at
//!    the element (a loop's output) or the row (a reduce's or row pass's
//!    output) the reading pass is at ([`reads_stay_in_row`]): such a value
//!    was finished earlier in the same row by the same thread. The index
//!    analysis (`graph`) says where each pass reads; nothing is lowered.
//! 4. A costly value fused into the last pass and an earlier one is kept
//!    in the last pass's output row between passes ([`keep_candidate`]),
//!    if the reads still stay in the row with it.
//!
//! Lowering then builds the group's kernel and never refuses it.

use oxla_ir::{Body, Computation, InstId, OpKind, Result, shape::row_major_strides};

use crate::entity::{BufferId, IdVec, LoopVar};
use crate::graph::{Ctx, Graph, Source};
use crate::ix::{Extents, Ix};

use super::{EXPENSIVE, KeepPlan, Plan, Step, StepKind, op_cost};

/// The space a row group iterates: the dims of its first reduce's input,
/// the reduced ones all after the kept ones (size-1 dims aside), with at
/// least one non-unit dim of each kind and none of size 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowSpace {
    /// The dims of the space.
    pub(crate) dims: Vec<i64>,
    /// The reduced dims, sorted.
    pub(crate) reduced: Vec<i64>,
    /// The dims of one value per row (a reduce's result).
    pub(crate) row_dims: Vec<i64>,
}

/// The loop variables of a row space: one per non-unit dim.
pub(crate) struct RowLoops {
    /// The dim each variable walks.
    pub(crate) walks: IdVec<LoopVar, usize>,
    pub(crate) extents: Extents,
    /// Whether each variable walks a reduced dim (the row's elements)
    /// rather than a kept one (the rows).
    pub(crate) reduced: IdVec<LoopVar, bool>,
}

impl RowSpace {
    /// The row space `step` can start a group over, if it can.
    pub(crate) fn of(comp: &Computation, step: &Step) -> Option<RowSpace> {
        let StepKind::Reduce { inst } = step.kind else {
            return None;
        };
        let body = comp.entry();
        let ri = body.inst(inst);
        let OpKind::Reduce { dimensions, .. } = &ri.kind else {
            return None;
        };
        let dims = body.inst(ri.operands[0]).shape.dims().to_vec();
        if dims.contains(&0) {
            return None;
        }
        let classes: Vec<bool> = (0..dims.len())
            .filter(|&d| dims[d] != 1)
            .map(|d| dimensions.contains(&(d as i64)))
            .collect();
        let first_reduced = classes.iter().position(|&r| r)?;
        if first_reduced == 0 || classes[first_reduced..].iter().any(|&r| !r) {
            return None;
        }
        let mut reduced = dimensions.clone();
        reduced.sort_unstable();
        Some(RowSpace {
            dims,
            reduced,
            row_dims: ri.shape.dims().to_vec(),
        })
    }

    /// One loop variable per non-unit dim, in order (the rows' first).
    pub(crate) fn loops(&self) -> RowLoops {
        let walks: IdVec<LoopVar, usize> = (0..self.dims.len())
            .filter(|&d| self.dims[d] != 1)
            .collect();
        let extents = walks.values().map(|&d| self.dims[d]).collect();
        let reduced = walks
            .values()
            .map(|&d| self.reduced.contains(&(d as i64)))
            .collect();
        RowLoops {
            walks,
            extents,
            reduced,
        }
    }

    /// The element offset (row-major over the space) of `index`.
    pub(crate) fn element_offset(&self, index: &[Ix]) -> Ix {
        linear(index, &self.dims)
    }

    /// The index of `index`'s row: its kept dims.
    pub(crate) fn row_index(&self, index: &[Ix]) -> Vec<Ix> {
        (0..self.dims.len())
            .filter(|d| !self.reduced.contains(&(*d as i64)))
            .map(|d| index[d].clone())
            .collect()
    }

    /// The offset of `index`'s row in a buffer of one value per row (a
    /// reduce's result, a row pass's output).
    pub(crate) fn row_offset(&self, index: &[Ix]) -> Ix {
        linear(&self.row_index(index), &self.row_dims)
    }

    /// Whether a loop step's output of `dims` is one value per row (a row
    /// pass) rather than one per element.
    pub(crate) fn is_row_pass(&self, dims: &[i64]) -> bool {
        dims != &self.dims[..]
    }
}

/// The row-major offset of `index` in `dims`.
fn linear(index: &[Ix], dims: &[i64]) -> Ix {
    let mut offset = Ix::constant(0);
    for (ix, s) in index.iter().zip(&row_major_strides(dims)) {
        offset = offset.add(&ix.scale(*s));
    }
    offset
}

/// Where pass `pass` of a row group finds the materialised values it
/// reads: their buffers, and after the pass that keeps `keep`, the kept
/// value in the buffer it is kept in.
pub(crate) fn pass_source(
    plan: &Plan,
    keep: Option<KeepPlan>,
    pass: usize,
) -> impl Fn(InstId) -> Option<Source> + '_ {
    let kept = keep.filter(|k| pass > k.from);
    move |i: InstId| match kept {
        Some(k) if k.inst == i => Some(Source::Buffer(k.buf)),
        _ => plan.materialised.get(&i).map(|&b| Source::Buffer(b)),
    }
}

/// Whether `step` iterates `rs` as a pass: a reduce of an input of those
/// dims over the same dims, a loop over exactly those dims, or a loop over
/// the rows (one value per row, like a reduce's result: a *row pass*).
fn joins(comp: &Computation, plan: &Plan, step: &Step, rs: &RowSpace) -> bool {
    let body = comp.entry();
    match step.kind {
        StepKind::Reduce { inst } => {
            let ri = body.inst(inst);
            let OpKind::Reduce { dimensions, .. } = &ri.kind else {
                return false;
            };
            let mut red = dimensions.clone();
            red.sort_unstable();
            body.inst(ri.operands[0]).shape.dims() == &rs.dims[..] && red == rs.reduced
        }
        StepKind::Loop { .. } => {
            let d = plan.buffers[step.out].shape.dims();
            d == &rs.dims[..] || d == &rs.row_dims[..]
        }
        StepKind::DotCopy { .. }
        | StepKind::Dot { .. }
        | StepKind::RowGroup { .. }
        | StepKind::LoopGroup { .. }
        | StepKind::MultiReduce { .. }
        | StepKind::While(_)
        | StepKind::Conditional(_)
        | StepKind::Op(_)
        | StepKind::Sort(_)
        | StepKind::SortKey { .. } => false,
    }
}

/// The cost of recomputing `inst` (fused operands included), memoised.
fn expr_cost(body: &Body, plan: &Plan, inst: InstId, memo: &mut Vec<Option<u64>>) -> u64 {
    if let Some(c) = memo[inst.index()] {
        return c;
    }
    let i = body.inst(inst);
    let mut c = op_cost(&i.kind);
    for &o in &i.operands {
        if !plan.materialised.contains_key(&o) {
            c = c.saturating_add(expr_cost(body, plan, o, memo));
        }
    }
    memo[inst.index()] = Some(c);
    c
}

/// The value worth keeping between the passes of `members`: fused into the
/// last pass (a loop over the row space) and into an earlier one, of the
/// last pass's shape and type, and costly (a transcendental) to recompute.
/// The costliest such value wins; it is stored by the first pass that
/// computes it into the last pass's output row.
fn keep_candidate(
    comp: &Computation,
    plan: &Plan,
    rs: &RowSpace,
    members: &[Step],
) -> Option<KeepPlan> {
    let body = comp.entry();
    let last = members.last()?;
    let StepKind::Loop { .. } = last.kind else {
        return None;
    };
    let out = &plan.buffers[last.out].shape;
    // The last pass must cover the row space (not be a row pass), so that
    // its output row can hold a value per element; and its output must not
    // be loop state updated in place (a parameter buffer), whose old values
    // the passes may still read.
    if out.element_type().is_pred()
        || rs.is_row_pass(out.dims())
        || matches!(plan.buffers[last.out].kind, super::BufferKind::Param(_))
    {
        return None;
    }
    let mut memo = vec![None; body.instructions.len()];
    let mut best: Option<(u64, InstId, usize)> = None;
    for &c in &last.fused {
        let shape = &body.inst(c).shape;
        if shape.dims() != out.dims() || shape.element_type() != out.element_type() {
            continue;
        }
        let Some(from) = members[..members.len() - 1]
            .iter()
            .position(|m| m.fused.contains(&c))
        else {
            continue;
        };
        let cost = expr_cost(body, plan, c, &mut memo);
        if cost >= EXPENSIVE && best.is_none_or(|(bc, _, _)| cost >= bc) {
            best = Some((cost, c, from));
        }
    }
    best.map(|(_, inst, from)| KeepPlan {
        inst,
        from,
        buf: last.out,
    })
}

/// Whether `members`, run as passes over the rows of `rs` (keeping `keep`
/// between them), read every buffer the group writes only where the
/// reading pass is: a loop's output at the current element, a reduce's or
/// row pass's at the current row. Asks the index analysis: each pass's
/// value is built into one expression graph over the row space's loop
/// variables, and each load of a group buffer must be at the offset its
/// writer wrote. With `keep`, the kept value must also be computed at the
/// current element by the pass that stores it.
fn reads_stay_in_row(
    comp: &Computation,
    plan: &Plan,
    rs: &RowSpace,
    members: &[Step],
    keep: Option<KeepPlan>,
) -> Result<bool> {
    let body = comp.entry();
    let body_id = comp.entry_id();
    let loops = rs.loops();
    let mut index = vec![Ix::constant(0); rs.dims.len()];
    for (v, &d) in loops.walks.iter() {
        index[d] = Ix::var(v);
    }
    let element = rs.element_offset(&index);
    let row = rs.row_offset(&index);
    let mut graph = Graph::new(loops.extents);
    let mut written: Vec<(BufferId, Ix)> = Vec::new();
    for (m, step) in members.iter().enumerate() {
        let source = pass_source(plan, keep, m);
        let ctx = Ctx {
            body_id,
            comp,
            called: &plan.called_constants,
            source: &source,
        };
        graph.forget_instructions();
        let offset = match step.kind {
            StepKind::Loop { root } => {
                if rs.is_row_pass(plan.buffers[step.out].shape.dims()) {
                    graph.build(&ctx, root, rs.row_index(&index))?;
                    row.clone()
                } else {
                    graph.build(&ctx, root, index.clone())?;
                    element.clone()
                }
            }
            StepKind::Reduce { inst } => {
                let operands = &body.inst(inst).operands;
                graph.value(&ctx, operands[0], index.clone())?;
                graph.value(&ctx, operands[1], vec![])?;
                row.clone()
            }
            StepKind::DotCopy { .. }
            | StepKind::Dot { .. }
            | StepKind::RowGroup { .. }
            | StepKind::LoopGroup { .. }
            | StepKind::MultiReduce { .. }
            | StepKind::While(_)
            | StepKind::Conditional(_)
            | StepKind::Op(_)
            | StepKind::Sort(_)
            | StepKind::SortKey { .. } => {
                return Ok(false);
            }
        };
        if let Some(k) = keep
            && k.from == m
        {
            if graph.built(body_id, k.inst, &index).is_none() {
                return Ok(false);
            }
            written.push((k.buf, element.clone()));
        }
        written.push((step.out, offset));
    }
    Ok(graph.loads_at(&written))
}

/// Replaces runs of steps that can share a row loop by row-group steps:
/// a reduce over the innermost dims of a row space, then every following
/// reduce over the same dims of the same space and loop over that space,
/// as long as each reads the earlier ones' results only at its own row
/// (and element). Softmax's max, sum and divide become one kernel that
/// reads each row from memory once and computes `exp` once.
pub(super) fn form_row_groups(comp: &Computation, plan: &mut Plan) -> Result<()> {
    let body = comp.entry();
    let steps = std::mem::take(&mut plan.steps);
    let mut out = Vec::with_capacity(steps.len());
    let mut i = 0;
    while i < steps.len() {
        if let Some(rs) = RowSpace::of(comp, &steps[i]) {
            let mut best: Option<(usize, Option<KeepPlan>)> = None;
            let mut j = i + 1;
            while j < steps.len() && joins(comp, plan, &steps[j], &rs) {
                let members = &steps[i..=j];
                let mut keep = keep_candidate(comp, plan, &rs, members);
                if keep.is_some() && !reads_stay_in_row(comp, plan, &rs, members, keep)? {
                    keep = None;
                }
                if keep.is_none() && !reads_stay_in_row(comp, plan, &rs, members, None)? {
                    break;
                }
                best = Some((j, keep));
                j += 1;
            }
            if let Some((end, keep)) = best {
                let mut passes: Vec<Step> = steps[i..=end].to_vec();
                if let Some(k) = keep {
                    // Later passes load the kept value: it is not fused there.
                    for p in passes.iter_mut().skip(k.from + 1) {
                        let roots: Vec<InstId> = match p.kind {
                            StepKind::Loop { root } => body.inst(root).operands.clone(),
                            StepKind::Reduce { inst } => body.inst(inst).operands.clone(),
                            StepKind::DotCopy { .. }
                            | StepKind::Dot { .. }
                            | StepKind::RowGroup { .. }
                            | StepKind::LoopGroup { .. }
                            | StepKind::MultiReduce { .. }
                            | StepKind::While(_)
                            | StepKind::Conditional(_)
                            | StepKind::Op(_)
                            | StepKind::Sort(_)
                            | StepKind::SortKey { .. } => continue,
                        };
                        p.fused = plan.fused_under_except(body, &roots, Some(k.inst));
                    }
                }
                out.push(Step {
                    out: steps[end].out,
                    kind: StepKind::RowGroup {
                        space: rs,
                        passes,
                        keep,
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
