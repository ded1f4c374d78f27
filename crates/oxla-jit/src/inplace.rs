//! When the result may be written over an argument
//! ([`crate::Executable::run_in_place`]).
//!
//! Writing the result buffer over parameter buffer `p` is safe when no
//! value of `p` is read after the element that overwrites it:
//!
//! - no step after the one that writes the result reads `p`;
//! - that step is a loop kernel (a GEMM reads whole rows and columns) that
//!   writes the result at one index expression `at` (its store and any
//!   value it keeps there), reads `p` only at `at` (unguarded, outside
//!   folds), and only in passes up to the first one that writes the result.
//!
//! Within one element a kernel loads every value before it stores any, and
//! threads split the loops into disjoint index ranges, so a read of `p[at]`
//! always sees the argument's value. Anything else runs out of place.

use oxla_ir::Computation;

use crate::entity::BufferId;
use crate::fusion::{BufferKind, Plan};
use crate::graph::{Node, reachable};
use crate::ix::Ix;
use crate::kernel::{DotKernel, LoopKernel, SortKernel, Work};

/// What in-place runs need to know of one step.
pub(crate) struct StepIo {
    /// Buffers the step writes.
    pub(crate) writes: Vec<BufferId>,
    /// Buffers the step reads.
    pub(crate) reads: Vec<BufferId>,
    /// Of the buffers it reads, those the step may overwrite with the
    /// result buffer (see the module doc); empty if it does not write the
    /// result.
    pub(crate) alias_ok: Vec<BufferId>,
}

/// The I/O of a dot kernel: it never runs in place (a GEMM reads whole
/// rows and columns).
pub(crate) fn dot_io(spec: &DotKernel) -> StepIo {
    StepIo {
        writes: vec![spec.out],
        reads: vec![spec.lhs.buf, spec.rhs.buf],
        alias_ok: vec![],
    }
}

/// The I/O of a tiled convolution kernel: it never runs in place (each
/// output row reads a window of input rows).
pub(crate) fn conv_io(spec: &crate::convlib::ConvKernel) -> StepIo {
    StepIo {
        writes: vec![spec.out],
        reads: vec![spec.input, spec.filter],
        alias_ok: vec![],
    }
}

/// The I/O of a sort kernel: it never runs in place (a row is read
/// whole before any of it is written, but through a permutation).
pub(crate) fn sort_io(spec: &SortKernel) -> StepIo {
    StepIo {
        writes: spec.written(),
        reads: spec.read(),
        alias_ok: vec![],
    }
}

/// The I/O of a loop kernel, given the result buffer `result`.
pub(crate) fn loop_io(spec: &LoopKernel, result: Option<BufferId>) -> StepIo {
    let mut writes: Vec<BufferId> = spec.written().collect();
    let mut reads: Vec<BufferId> = spec
        .graph
        .nodes
        .values()
        .chain(spec.graph.folds.values().flat_map(|f| f.nodes.values()))
        .filter_map(|n| match n {
            Node::Load { buf, .. } => Some(*buf),
            _ => None,
        })
        .collect();
    reads.sort_unstable();
    reads.dedup();
    writes.sort_unstable();
    writes.dedup();
    let alias_ok = match result {
        Some(r) if writes.contains(&r) => reads
            .iter()
            .copied()
            .filter(|&b| b != r && may_overwrite(spec, b, r))
            .collect(),
        _ => Vec::new(),
    };
    StepIo {
        writes,
        reads,
        alias_ok,
    }
}

/// Whether `spec` stays correct when buffer `result` is buffer `p`.
fn may_overwrite(spec: &LoopKernel, p: BufferId, result: BufferId) -> bool {
    let in_folds = spec
        .graph
        .folds
        .values()
        .flat_map(|f| f.nodes.values())
        .any(|n| matches!(n, Node::Load { buf, .. } if *buf == p));
    if in_folds {
        return false;
    }
    let mut at: Option<&Ix> = None;
    let mut first = None;
    for (k, pass) in spec.passes.iter().enumerate() {
        let mut here: Vec<&Ix> = pass
            .keeps
            .iter()
            .filter(|keep| keep.buf == result)
            .map(|keep| &keep.offset)
            .collect();
        match &pass.work {
            Work::Store {
                out, out_offset, ..
            } if *out == result => here.push(out_offset),
            w if w.out() == result => return false,
            _ => {}
        }
        for ix in here {
            if at.is_some_and(|a| a != ix) {
                return false;
            }
            at = Some(ix);
            first.get_or_insert(k);
        }
    }
    let (Some(at), Some(first)) = (at, first) else {
        return true;
    };
    let nodes = &spec.graph.nodes;
    for (k, pass) in spec.passes.iter().enumerate() {
        for n in reachable(nodes, &pass.roots()) {
            if let Node::Load {
                buf, offset, clamp, ..
            } = &nodes[n]
                && *buf == p
                && (k > first || *clamp || offset != at)
            {
                return false;
            }
        }
    }
    true
}

/// One [`StepIo`] for kernels run in order as one step: what any of them
/// writes or reads, and the buffers every kernel that reads them may
/// overwrite with the result.
pub(crate) fn merge_io(parts: Vec<StepIo>) -> StepIo {
    let mut writes: Vec<BufferId> = parts.iter().flat_map(|p| p.writes.clone()).collect();
    let mut reads: Vec<BufferId> = parts.iter().flat_map(|p| p.reads.clone()).collect();
    writes.sort_unstable();
    writes.dedup();
    reads.sort_unstable();
    reads.dedup();
    let alias_ok = reads
        .iter()
        .copied()
        .filter(|b| {
            parts
                .iter()
                .all(|p| !p.reads.contains(b) || p.alias_ok.contains(b))
        })
        .filter(|b| parts.iter().any(|p| p.alias_ok.contains(b)))
        .collect();
    StepIo {
        writes,
        reads,
        alias_ok,
    }
}

/// Per parameter of `comp`: whether the result buffer `result` can be the
/// parameter's own storage (same shape, and every step stays correct).
pub(crate) fn in_place_params(
    comp: &Computation,
    plan: &Plan,
    io: &[StepIo],
    result: Option<BufferId>,
) -> Vec<bool> {
    let shapes = comp.parameter_shapes();
    let Some(r) = result else {
        return vec![false; shapes.len()];
    };
    let writer = io.iter().position(|s| s.writes.contains(&r));
    (0..shapes.len())
        .map(|k| {
            if shapes[k] != plan.buffers[r].shape {
                return false;
            }
            let Some(pb) = plan
                .buffers
                .iter()
                .find(|(_, b)| matches!(b.kind, BufferKind::Param(n) if n.index() == k))
                .map(|(id, _)| id)
            else {
                return true; // no kernel reads it
            };
            let Some(w) = writer else {
                return true; // nothing is written (an empty result)
            };
            (!io[w].reads.contains(&pb) || io[w].alias_ok.contains(&pb))
                && !io[w + 1..].iter().any(|s| s.reads.contains(&pb))
        })
        .collect()
}
