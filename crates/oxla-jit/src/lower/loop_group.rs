//! Lowering of a loop group (`fusion::loop_groups`): one kernel computing
//! every member's value at each element, or, when that kernel would lose
//! what a member's own kernel has, the members' own kernels in order.
//!
//! The grouped kernel has one pass: its work stores the last member's
//! value; each other member's value is a [`KeptValue`] stored at the same
//! element of its own buffer. A member read by a later member is not
//! loaded: its instruction is built into the graph where the later member
//! reads it (fusion checked that is the element being computed), and the
//! graph's hash-consing computes it once. Every value is computed by the
//! same per-element code as in the member's own kernel, so the results
//! are those of the separate kernels bit for bit.
//!
//! Invariants the verifier relies on: every store (the work's and the
//! kept ones) is at the kernel's element offset, so each output element
//! is written once, by the iteration that reads its inputs; code
//! generation computes every value of an element before storing any, so
//! a loop-state leaf updated in place by a member (read, old, only at the
//! element: fusion checked) is read before it is overwritten.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use oxla_ir::{Computation, InstId, Result};

use crate::entity::{BufferId, NodeId};
use crate::fusion::tuples::{self, Sym};
use crate::fusion::{BufferKind, Plan, Step, StepKind};
use crate::graph::{Ctx, Graph, Source};
use crate::ix::{Extents, Ix};
use crate::kernel::{KeptValue, KernelDesc, LoopKernel, Pass, Work};

use super::{
    SPLIT_MIN_ELEMENTS, bug, dim_index, loop_dims, merge_groups, merged_extents, split_points,
    tile_plan,
};

/// The kernels of a loop group: one grouped kernel, or each member's own.
pub(super) fn loop_group_kernels(
    comp: &Computation,
    plan: &Plan,
    members: &[Step],
    lower_member: &dyn Fn(&Step) -> Result<Vec<KernelDesc>>,
) -> Result<Vec<KernelDesc>> {
    // An error building the grouped kernel (a member's other name read
    // inside a fold) also falls back to the members' own kernels, which
    // are always valid: the plan is the same.
    match grouped_kernel(comp, plan, members) {
        Ok(Some(kernel)) => Ok(vec![KernelDesc::Loop(kernel)]),
        Ok(None) | Err(_) => {
            let mut kernels = Vec::new();
            for m in members {
                kernels.extend(lower_member(m)?);
            }
            Ok(kernels)
        }
    }
}

/// Whether the loop group of `members` lowers as one kernel (fusion
/// relies on it to update a loop-state leaf in place that a later member
/// reads: run as separate kernels, that member would read the new value).
pub(crate) fn groups_as_one(comp: &Computation, plan: &Plan, members: &[Step]) -> bool {
    matches!(grouped_kernel(comp, plan, members), Ok(Some(_)))
}

/// The members' roots.
fn roots(members: &[Step]) -> Result<Vec<InstId>> {
    members
        .iter()
        .map(|m| {
            let StepKind::Loop { root } = m.kind else {
                return Err(bug("a loop-group member that is not a loop step"));
            };
            Ok(root)
        })
        .collect()
}

/// The grouped kernel, or `None` when a member's own kernel would be split
/// where guards flip or tiled (the grouped kernel would lose that).
fn grouped_kernel(comp: &Computation, plan: &Plan, members: &[Step]) -> Result<Option<LoopKernel>> {
    let Some(last) = members.last() else {
        return Err(bug("a loop group without members"));
    };
    let roots = roots(members)?;
    let inlined: HashSet<InstId> = roots.iter().copied().collect();
    // Another name of a member (an element of an inlined call's tuple, a
    // barrier) is the member's node: fusion checked it is read at the
    // element. So is another name of a member's buffer, except a
    // parameter buffer a member updates in place: that name is the old
    // value, unless it names the member itself.
    let trees = tuples::value_trees(comp.entry());
    let built: RefCell<HashMap<BufferId, NodeId>> = RefCell::new(HashMap::new());
    let built_roots: RefCell<HashMap<InstId, NodeId>> = RefCell::new(HashMap::new());
    let source = |i: InstId| {
        if inlined.contains(&i) {
            return None;
        }
        if let Some(Sym::Inst(r)) = trees.get(i.index()).and_then(|t| t.leaf())
            && let Some(&n) = built_roots.borrow().get(&r)
        {
            return Some(Source::Node(n));
        }
        let b = *plan.materialised.get(&i)?;
        match built.borrow().get(&b) {
            Some(&n) => Some(Source::Node(n)),
            None => Some(Source::Buffer(b)),
        }
    };
    let ctx = Ctx {
        body_id: comp.entry_id(),
        comp,
        called: &plan.called_constants,
        source: &source,
    };
    let out_dims = plan.buffers[last.out].shape.dims().to_vec();
    let strides = oxla_ir::shape::row_major_strides(&out_dims);
    let (dims, extents) = loop_dims(&out_dims);
    let build = |extents: Extents, index: Vec<Ix>| -> Result<(Graph, Vec<NodeId>, Ix)> {
        let mut g = Graph::new(extents);
        let mut nodes = Vec::with_capacity(roots.len());
        built.borrow_mut().clear();
        built_roots.borrow_mut().clear();
        for (m, &r) in members.iter().zip(&roots) {
            let n = g.build(&ctx, r, index.clone())?;
            built_roots.borrow_mut().insert(r, n);
            if !matches!(plan.buffers[m.out].kind, BufferKind::Param(_)) {
                built.borrow_mut().insert(m.out, n);
            }
            nodes.push(n);
        }
        let mut off = Ix::constant(0);
        for (ix, s) in index.iter().zip(&strides) {
            off = off.add(&ix.scale(*s));
        }
        Ok((g, nodes, off))
    };
    let index = dim_index(&out_dims, &dims, &extents, &[]);
    let (mut graph, mut nodes, mut offset) = build(extents.clone(), index)?;
    let groups = merge_groups(&graph, &[&offset], &extents, None);
    let total: i64 = extents.values().product();
    if groups.len() == extents.len() {
        if total >= SPLIT_MIN_ELEMENTS && split_points(&graph, &extents).is_some() {
            return Ok(None);
        }
        if tile_plan(&graph, &extents).is_some() {
            return Ok(None);
        }
    } else {
        let new_extents = merged_extents(&groups, &extents);
        let index = dim_index(&out_dims, &dims, &new_extents, &groups);
        (graph, nodes, offset) = build(new_extents, index)?;
    }
    let keeps = members[..members.len() - 1]
        .iter()
        .zip(&nodes)
        .map(|(m, &node)| KeptValue {
            node,
            buf: m.out,
            offset: offset.clone(),
            ty: plan.buffers[m.out].shape.element_type(),
        })
        .collect();
    let root = *nodes
        .last()
        .ok_or_else(|| bug("a loop group without members"))?;
    let nv = graph.extents.len();
    let order = graph.extents.keys().collect();
    Ok(Some(LoopKernel {
        graph,
        loop_order: order,
        split_loop: (nv > 0).then_some(0),
        passes: vec![Pass {
            work: Work::Store {
                root,
                out: last.out,
                out_offset: offset,
            },
            value_type: plan.buffers[last.out].shape.element_type(),
            keeps,
            per_row: false,
        }],
        row_loops: None,
    }))
}
