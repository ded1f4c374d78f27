//! The steps of the indexing and windowed ops that get buffers of their
//! own: `dynamic-update-slice`, `scatter`, `select-and-scatter`,
//! `reduce-window` and `convolution` ([`OpStep`]), and which updates may
//! write into their operand's buffer ([`in_place_updates`]).
//!
//! (`gather` and `dynamic-slice` have no step: they fuse into their
//! consumers as index maps, see `graph/dynamic.rs`.)
//!
//! ## Updates in place
//!
//! A `dynamic-update-slice` or `scatter` computes its operand with a few
//! elements changed. Its step writes its buffer in two kernels: one that
//! copies the operand in, one that writes the update (`Work::Update`).
//! When the operand is an intermediate that nothing reads afterwards, the
//! copy is wasted work: the operand's own step writes straight into the
//! update's buffer (both instructions are materialised there), and the
//! update step only writes the update, *in place*. That is allowed when
//!
//! - the operand is computed by a step of this plan (not an argument or
//!   constant, which the executable does not own, nor an array a sort
//!   writes, whose buffers the plan verifier takes as never updated), is
//!   not a leaf of the
//!   result, and is a value of one buffer (not a tuple);
//! - every other step that reads the operand comes before the update
//!   step (a later one would see the updated values);
//! - the update step reads the operand only through that buffer (its
//!   update, indices and starts do not read the operand).
//!
//! The plan verifier checks the result as a property of the plan (each
//! buffer has one defining step, then update steps in order, and each
//! read of a value happens between the step that wrote it and the next
//! update of its buffer); the kernel verifier checks that an update kernel
//! reads its own buffer only at the element it writes. A chain of updates
//! (`dus(dus(x, a, i), b, j)`) updates one buffer twice. The loop-carried
//! buffers of control flow can use the same property: an update step whose
//! operand's buffer is its own runs with no copy.
//!
//! ## Where a copying update runs
//!
//! An update that must copy its operand (an argument: a KV cache that is
//! not donated) runs just before the first step that may read its result
//! ([`sink_update_copies`]), not in definition order, so its reader finds
//! the freshly written lines in cache rather than after another copy has
//! streamed through.

use std::collections::HashMap;

use oxla_ir::{Body, ElementType, InstId, OpKind, Shape};

use super::{BufferKind, Plan, Step, StepKind};
use crate::entity::BufferId;

/// A step of an indexing or windowed op (see the module docs).
#[derive(Clone, Debug)]
pub(crate) enum OpStep {
    /// `dynamic-update-slice`: the operand (copied in, or already there
    /// `in_place`), then the update written over the window at the clamped
    /// starts.
    UpdateSlice { inst: InstId, in_place: bool },
    /// `scatter` of one input: the input (copied in, or in place), then
    /// every update window combined into it, in the interpreter's order.
    Scatter { inst: InstId, in_place: bool },
    /// `select-and-scatter`, first step: for each source element, the
    /// linear position in the operand of the element its window selects
    /// (`-1` when the window holds no operand element), as `s64`.
    SelectPositions { inst: InstId },
    /// `select-and-scatter`, second step: the result filled with the init
    /// value, then each source element scattered onto the position read
    /// from `positions`, in order.
    SelectScatter { inst: InstId, positions: BufferId },
    /// `reduce-window` of one input: a column reduction over the window.
    ReduceWindow { inst: InstId },
    /// `convolution`, computed directly: a column reduction over the
    /// window and the input features of each group, in the interpreter's
    /// order.
    Convolution { inst: InstId },
    /// `convolution` as a GEMM (`conv.rs`), first step: the patches
    /// `[G, M, K]` (a temporary).
    ConvPatches { inst: InstId },
    /// Second step: the filter `[G, K, N]` (a temporary).
    ConvFilter { inst: InstId },
    /// Third step: `patches x filter`, `[G, M, N]`, into the output
    /// (`direct`) or a temporary that [`OpStep::ConvUnpack`] permutes;
    /// `patches` is the input's own buffer for a 1x1 convolution that
    /// needs no copy (`conv.rs`).
    ConvGemm {
        inst: InstId,
        patches: BufferId,
        filter: BufferId,
        direct: bool,
    },
    /// Last step when the product is not the output's layout: the output
    /// read from `product` (`[G, M, N]`).
    ConvUnpack { inst: InstId, product: BufferId },
    /// `convolution` tiled (`conv.rs`, `convlib.rs`), first step when the
    /// input has no buffer of the result's type: the input (its fused
    /// producers evaluated, converted), row-major (a temporary).
    ConvInput { inst: InstId },
    /// The tiled convolution itself: the output from `input` and the
    /// filter `[K, N]` (from [`OpStep::ConvFilter`]).
    ConvTiled {
        inst: InstId,
        input: BufferId,
        filter: BufferId,
    },
}

impl OpStep {
    /// The instruction the step computes (or helps compute).
    pub(crate) fn inst(&self) -> InstId {
        match self {
            OpStep::UpdateSlice { inst, .. }
            | OpStep::Scatter { inst, .. }
            | OpStep::SelectPositions { inst }
            | OpStep::SelectScatter { inst, .. }
            | OpStep::ReduceWindow { inst }
            | OpStep::Convolution { inst }
            | OpStep::ConvPatches { inst }
            | OpStep::ConvFilter { inst }
            | OpStep::ConvGemm { inst, .. }
            | OpStep::ConvUnpack { inst, .. }
            | OpStep::ConvInput { inst }
            | OpStep::ConvTiled { inst, .. } => *inst,
        }
    }

    /// Whether the step's output buffer holds its instruction's value once
    /// the step has run (a helper step's temporary does not).
    pub(crate) fn defines_inst(&self) -> bool {
        match self {
            OpStep::UpdateSlice { .. }
            | OpStep::Scatter { .. }
            | OpStep::SelectScatter { .. }
            | OpStep::ReduceWindow { .. }
            | OpStep::Convolution { .. }
            | OpStep::ConvUnpack { .. }
            | OpStep::ConvTiled { .. } => true,
            OpStep::ConvGemm { direct, .. } => *direct,
            OpStep::SelectPositions { .. }
            | OpStep::ConvPatches { .. }
            | OpStep::ConvFilter { .. }
            | OpStep::ConvInput { .. } => false,
        }
    }

    /// The operand an in-place update overwrites (its buffer is the
    /// step's), if the step is one.
    pub(crate) fn updated_operand(&self, body: &Body) -> Option<InstId> {
        match self {
            OpStep::UpdateSlice {
                inst,
                in_place: true,
            }
            | OpStep::Scatter {
                inst,
                in_place: true,
            } => body.inst(*inst).operands.first().copied(),
            OpStep::UpdateSlice { .. }
            | OpStep::Scatter { .. }
            | OpStep::SelectPositions { .. }
            | OpStep::SelectScatter { .. }
            | OpStep::ReduceWindow { .. }
            | OpStep::Convolution { .. }
            | OpStep::ConvPatches { .. }
            | OpStep::ConvFilter { .. }
            | OpStep::ConvGemm { .. }
            | OpStep::ConvUnpack { .. }
            | OpStep::ConvInput { .. }
            | OpStep::ConvTiled { .. } => None,
        }
    }

    /// Whether the step updates its output in place (its operand's value
    /// is already there).
    pub(crate) fn in_place(&self) -> bool {
        match self {
            OpStep::UpdateSlice { in_place, .. } | OpStep::Scatter { in_place, .. } => *in_place,
            OpStep::SelectPositions { .. }
            | OpStep::SelectScatter { .. }
            | OpStep::ReduceWindow { .. }
            | OpStep::Convolution { .. }
            | OpStep::ConvPatches { .. }
            | OpStep::ConvFilter { .. }
            | OpStep::ConvGemm { .. }
            | OpStep::ConvUnpack { .. }
            | OpStep::ConvInput { .. }
            | OpStep::ConvTiled { .. } => false,
        }
    }

    /// Buffers the step reads besides its instruction's operands.
    pub(crate) fn extra_reads(&self) -> Vec<BufferId> {
        match self {
            OpStep::SelectScatter { positions, .. } => vec![*positions],
            OpStep::ConvGemm {
                patches, filter, ..
            } => vec![*patches, *filter],
            OpStep::ConvUnpack { product, .. } => vec![*product],
            OpStep::ConvTiled { input, filter, .. } => vec![*input, *filter],
            OpStep::UpdateSlice { .. }
            | OpStep::Scatter { .. }
            | OpStep::SelectPositions { .. }
            | OpStep::ReduceWindow { .. }
            | OpStep::Convolution { .. }
            | OpStep::ConvPatches { .. }
            | OpStep::ConvFilter { .. }
            | OpStep::ConvInput { .. } => vec![],
        }
    }

    /// The step's head line in the fusion text.
    pub(crate) fn head(&self, body: &Body) -> String {
        let name = |i: &InstId| body.inst(*i).name.clone();
        match self {
            OpStep::UpdateSlice { inst, in_place } => format!(
                "dynamic-update-slice root={}{}",
                name(inst),
                if *in_place { " (in place)" } else { "" }
            ),
            OpStep::Scatter { inst, in_place } => format!(
                "scatter root={}{}",
                name(inst),
                if *in_place { " (in place)" } else { "" }
            ),
            OpStep::SelectPositions { inst } => {
                format!("select-and-scatter positions of {}", name(inst))
            }
            OpStep::SelectScatter { inst, positions } => {
                format!(
                    "select-and-scatter root={} positions={positions}",
                    name(inst)
                )
            }
            OpStep::ReduceWindow { inst } => format!("reduce-window root={}", name(inst)),
            OpStep::Convolution { inst } => format!("convolution root={} (direct)", name(inst)),
            OpStep::ConvPatches { inst } => format!("convolution patches of {}", name(inst)),
            OpStep::ConvFilter { inst } => format!("convolution filter of {}", name(inst)),
            OpStep::ConvGemm {
                inst,
                patches,
                filter,
                direct,
            } => format!(
                "convolution gemm of {} patches={patches} filter={filter}{}",
                name(inst),
                if *direct { "" } else { " (product)" }
            ),
            OpStep::ConvUnpack { inst, product } => {
                format!("convolution root={} product={product}", name(inst))
            }
            OpStep::ConvInput { inst } => format!("convolution input of {}", name(inst)),
            OpStep::ConvTiled {
                inst,
                input,
                filter,
            } => format!(
                "convolution root={} (tiled) input={input} filter={filter}",
                name(inst)
            ),
        }
    }
}

/// Which op family a step of the kinds above computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpFamily {
    UpdateSlice,
    Scatter,
    SelectAndScatter,
    ReduceWindow,
    Convolution,
}

/// The family of `kind` if it gets a step of the kinds above (it is then
/// always materialised); `None` for every other op.
pub(crate) fn op_family(kind: &OpKind) -> Option<OpFamily> {
    // `step_class` is the one exhaustive list of what each op becomes.
    if let super::StepClass::Family(family) = super::step_class(kind) {
        Some(family)
    } else {
        None
    }
}

/// The updates that run in place (see the module docs): operand →
/// updater, for the live `dynamic-update-slice`s and one-input `scatter`s
/// of `body` whose operand may share their buffer. `mat` says which
/// instructions are materialised, `leaves` the result's leaves.
pub(crate) fn in_place_updates(
    body: &Body,
    live: &[bool],
    mat: &[bool],
    leaves: &[InstId],
) -> HashMap<InstId, InstId> {
    let n = body.instructions.len();
    // The instructions each materialised root reads through its fused
    // expression: the operands of the root and of every instruction fused
    // into it (stopping at materialised ones).
    let reads_of = |roots: &[InstId]| -> Vec<InstId> {
        let mut seen = vec![false; n];
        let mut stack: Vec<InstId> = roots.to_vec();
        let mut reads = Vec::new();
        while let Some(i) = stack.pop() {
            if mat[i.index()] {
                reads.push(i);
                continue;
            }
            if seen[i.index()] {
                continue;
            }
            seen[i.index()] = true;
            stack.extend(body.inst(i).operands.iter().copied());
        }
        reads
    };
    // readers[x]: the materialised roots whose steps read x.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for r in 0..n {
        let inst = &body.instructions[r];
        if !live[r] || !mat[r] || matches!(inst.kind, OpKind::Parameter { .. }) {
            continue;
        }
        for x in reads_of(&inst.operands) {
            if !readers[x.index()].contains(&r) {
                readers[x.index()].push(r);
            }
        }
    }
    let mut alias = HashMap::new();
    for (d, inst) in body.instructions.iter().enumerate() {
        let updates = match op_family(&inst.kind) {
            Some(OpFamily::UpdateSlice) => true,
            Some(OpFamily::Scatter) => inst.operands.len() == 3,
            Some(OpFamily::SelectAndScatter | OpFamily::ReduceWindow | OpFamily::Convolution)
            | None => false,
        };
        if !live[d] || !updates {
            continue;
        }
        let x = inst.operands[0];
        let xi = body.inst(x);
        let owned = mat[x.index()]
            && !matches!(
                xi.kind,
                OpKind::Parameter { .. }
                    | OpKind::Constant { .. }
                    | OpKind::Tuple
                    | OpKind::GetTupleElement { .. }
                    // A sort's arrays are never updated in place, a sort of
                    // one array included (the plan verifier's producers
                    // rely on it).
                    | OpKind::Sort { .. }
            )
            && !xi.shape.is_tuple()
            && !leaves.contains(&x)
            && !alias.contains_key(&x);
        let others_first = readers[x.index()].iter().all(|&r| r <= d);
        let only_through_buffer = !reads_of(&inst.operands[1..]).contains(&x);
        if owned && others_first && only_through_buffer {
            alias.insert(x, InstId(d as u32));
        }
    }
    alias
}

/// Moves each `dynamic-update-slice` step that copies its operand (an
/// argument, a constant: not in place) down to just before the first
/// later step that may read its buffer, so the copy runs next to its
/// reader and the reader finds the freshly written cache lines (the KV
/// cache of a decode step: the two 18 MiB copies used to run first, then
/// both attention products, each re-reading its copy from memory).
///
/// A step is passed over only when it provably neither reads the copy's
/// buffer nor writes a buffer the copy reads: a loop, reduce, dot or
/// operand copy whose instructions (root and fused) take no operand from
/// that buffer, and that writes a buffer of its own (no loop-state update,
/// no update in place). Anything else (control flow, sorts, groups
/// containing such a step) stops the move. The order of every other step
/// is kept; the plan verifier checks reads after writes again.
pub(super) fn sink_update_copies(body: &Body, plan: &mut Plan) {
    let mut k = 0;
    while k < plan.steps.len() {
        if let StepKind::Op(OpStep::UpdateSlice {
            in_place: false, ..
        }) = plan.steps[k].kind
        {
            let b = plan.steps[k].out;
            let j = (k + 1..plan.steps.len())
                .find(|&j| !independent(body, plan, &plan.steps[j], b))
                .unwrap_or(plan.steps.len());
            if j > k + 1 {
                let step = plan.steps.remove(k);
                plan.steps.insert(j - 1, step);
                continue;
            }
        }
        k += 1;
    }
}

/// Whether `step` surely neither reads buffer `b` nor writes anything but
/// its own output (see [`sink_update_copies`]).
fn independent(body: &Body, plan: &Plan, step: &Step, b: BufferId) -> bool {
    if !matches!(
        plan.buffers.get(step.out).map(|x| &x.kind),
        Some(BufferKind::Output(_) | BufferKind::Temp)
    ) {
        return false;
    }
    let reads_b = |i: InstId| {
        body.inst(i)
            .operands
            .iter()
            .any(|o| plan.materialised.get(o) == Some(&b))
    };
    let clear = |roots: &[InstId]| {
        !roots
            .iter()
            .chain(&step.fused)
            .any(|&i| reads_b(i) || plan.materialised.get(&i) == Some(&b))
    };
    match &step.kind {
        StepKind::Loop { root } => clear(&[*root]),
        StepKind::Reduce { inst } => clear(&[*inst]),
        StepKind::DotCopy { source, .. } => clear(&[*source]),
        StepKind::Dot { inst, lhs, rhs, .. } => lhs.buf != b && rhs.buf != b && clear(&[*inst]),
        StepKind::RowGroup { passes, .. } | StepKind::LoopGroup { members: passes } => {
            passes.iter().all(|p| independent(body, plan, p, b))
        }
        StepKind::Op(_)
        | StepKind::MultiReduce { .. }
        | StepKind::While(_)
        | StepKind::Conditional(_)
        | StepKind::Sort(_)
        | StepKind::SortKey { .. } => false,
    }
}

impl Plan {
    /// Pushes the steps computing `inst` (of `family`) into `out`;
    /// `in_place` when its operand already lives in `out`.
    pub(super) fn push_op_steps(
        &mut self,
        body: &Body,
        family: OpFamily,
        inst: InstId,
        out: BufferId,
        in_place: bool,
    ) {
        let i = body.inst(inst);
        let step = |kind: OpStep, out: BufferId, fused: Vec<InstId>| Step {
            kind: StepKind::Op(kind),
            out,
            fused,
        };
        match family {
            OpFamily::SelectAndScatter => {
                let source = body.inst(i.operands[1]);
                let shape = Shape::new(ElementType::S64, source.shape.dims());
                let name = format!("{}.positions", i.name);
                let positions = self.push(BufferKind::Temp, &shape, &name);
                let fused = self.fused_under(body, &i.operands[..1]);
                self.steps
                    .push(step(OpStep::SelectPositions { inst }, positions, fused));
                let fused = self.fused_under(body, &i.operands[1..]);
                self.steps
                    .push(step(OpStep::SelectScatter { inst, positions }, out, fused));
            }
            OpFamily::UpdateSlice => {
                let fused = self.fused_under(body, &i.operands);
                self.steps
                    .push(step(OpStep::UpdateSlice { inst, in_place }, out, fused));
            }
            OpFamily::Scatter => {
                let fused = self.fused_under(body, &i.operands);
                self.steps
                    .push(step(OpStep::Scatter { inst, in_place }, out, fused));
            }
            OpFamily::ReduceWindow => {
                let fused = self.fused_under(body, &i.operands);
                self.steps
                    .push(step(OpStep::ReduceWindow { inst }, out, fused));
            }
            OpFamily::Convolution => {
                if let Some(geo) = super::conv::gemm_geometry(body, inst) {
                    self.push_conv_gemm_steps(body, inst, out, &geo);
                    return;
                }
                let fused = self.fused_under(body, &i.operands);
                self.steps
                    .push(step(OpStep::Convolution { inst }, out, fused));
            }
        }
    }
}
