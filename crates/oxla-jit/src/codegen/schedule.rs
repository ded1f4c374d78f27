//! The emitter's analysis of a loop kernel, computed before any Cranelift
//! value exists: at which loop level each node is emitted, which nodes
//! each pass computes per element, how each pass's innermost loop is
//! vectorised, and which pass of a row group touches the next row.
//!
//! Levels: a node is emitted at the shallowest loop depth where every
//! loop variable its index expressions use is bound (and no shallower than
//! its operands): depth 0 is before every loop, depth `loop_count` is per
//! element of the innermost loop. Nodes that read a reducer argument
//! (`Var` slots) are per element by definition.

use oxla_ir::ElementType;

use cranelift_codegen::ir::Type;

use crate::entity::{BufferId, IdVec, LoopVar, NodeId};
use crate::graph::{Node, reachable};
use crate::kernel::{LoopKernel, Reducer, Work};

use super::elemental::{Lanes, vector_support};
use super::{KernelReport, size_of, vector_type};

/// How a pass's innermost loop is vectorised.
#[derive(Clone, Debug)]
pub(crate) struct VectorPlan {
    /// Lane width in bytes.
    pub(crate) width: u32,
    /// Vector copies per iteration.
    pub(crate) unroll: u32,
    /// The vector type of the stored or accumulated values.
    pub(crate) lane_type: Type,
    /// The copies cover the whole innermost loop (no loop, no tail).
    pub(crate) whole_row: bool,
}

/// What the emitter computes for one pass, per element of its innermost
/// loop.
pub(super) struct PassSchedule {
    /// The nodes of the pass's per-element value and kept values,
    /// ascending (operands first).
    pub(super) element_nodes: Vec<NodeId>,
    /// The nodes of the reducer body, ascending.
    pub(super) reducer_nodes: Vec<NodeId>,
    /// Every node the pass evaluates, at any level.
    pub(super) reads: IdVec<NodeId, bool>,
    /// How the innermost loop is vectorised; `None`: scalar.
    pub(super) vector: Option<VectorPlan>,
}

/// A row group's next-row touch (see [`Schedule::plan_next_row_touch`]).
pub(super) struct NextRowTouch {
    /// The pass that touches.
    pub(super) pass: usize,
    /// The first pass's loads it repeats one row ahead.
    pub(super) loads: Vec<NodeId>,
}

/// The analysis of one loop kernel.
pub(super) struct Schedule {
    /// How many loops the nest has.
    pub(super) loop_count: usize,
    /// The loop depth each node is emitted at.
    pub(super) level: IdVec<NodeId, usize>,
    /// Nodes of a reducer body: they read the accumulator and the element,
    /// so they are emitted only when a reduction step is.
    pub(super) in_reducer: IdVec<NodeId, bool>,
    /// One per pass of the kernel.
    pub(super) passes: Vec<PassSchedule>,
    pub(super) next_row_touch: Option<NextRowTouch>,
}

impl Schedule {
    /// The analysis of `kernel`.
    pub(super) fn new(kernel: &LoopKernel) -> Schedule {
        let nodes = &kernel.graph.nodes;
        let loop_count = kernel.loop_order.len();
        let mut depth_of: IdVec<LoopVar, usize> = IdVec::filled(kernel.graph.extents.len(), 0);
        for (d, &v) in kernel.loop_order.iter().enumerate() {
            depth_of[v] = d;
        }
        let updated: Vec<BufferId> = kernel
            .passes
            .iter()
            .filter_map(|p| match &p.work {
                Work::Update { out, .. } => Some(*out),
                Work::Store { .. } | Work::RowReduce { .. } | Work::ColumnReduce { .. } => None,
            })
            .collect();
        let mut level: IdVec<NodeId, usize> = IdVec::filled(nodes.len(), 0);
        for (n, node) in nodes.iter() {
            let mut l = 0;
            let mut vars = Vec::new();
            for ix in node.index_exprs() {
                ix.collect_vars(&mut vars);
            }
            for v in vars {
                l = l.max(depth_of.get(v).map_or(loop_count, |d| d + 1));
            }
            if matches!(node, Node::Var { .. }) {
                l = loop_count;
            }
            // A load of a buffer an update pass writes reads the value of
            // the iteration it is in (an earlier one may have changed it):
            // never hoisted.
            if let Node::Load { buf, .. } = node
                && updated.contains(buf)
            {
                l = loop_count;
            }
            for o in node.operands() {
                l = l.max(level[o]);
            }
            level[n] = l;
        }
        let per_element = |n: &NodeId| level[*n] == loop_count && loop_count > 0;
        let mut in_reducer = IdVec::filled(nodes.len(), false);
        let mut passes = Vec::with_capacity(kernel.passes.len());
        for pass in &kernel.passes {
            let (xs, reducer_roots) = pass.work.roots();
            let mut element_roots = xs;
            element_roots.extend(pass.keeps.iter().map(|k| k.node));
            let element_nodes: Vec<NodeId> = reachable(nodes, &element_roots)
                .into_iter()
                .filter(per_element)
                .collect();
            let reducer_nodes: Vec<NodeId> = if reducer_roots.is_empty() {
                vec![]
            } else {
                reachable(nodes, &reducer_roots)
                    .into_iter()
                    .filter(per_element)
                    .collect()
            };
            for &n in &reducer_nodes {
                in_reducer[n] = true;
            }
            let mut reads = IdVec::filled(nodes.len(), false);
            for n in reachable(nodes, &pass.roots()) {
                reads[n] = true;
            }
            passes.push(PassSchedule {
                element_nodes,
                reducer_nodes,
                reads,
                vector: None,
            });
        }
        let mut schedule = Schedule {
            loop_count,
            level,
            in_reducer,
            passes,
            next_row_touch: None,
        };
        for p in 0..kernel.passes.len() {
            if !kernel.passes[p].per_row {
                schedule.passes[p].vector = schedule.vector_plan(kernel, p);
            }
        }
        schedule.next_row_touch = schedule.plan_next_row_touch(kernel);
        schedule
    }

    /// What the fusion text says of the kernel.
    pub(super) fn report(&self, kernel: &LoopKernel) -> KernelReport {
        KernelReport {
            vector_plans: self.passes.iter().map(|p| p.vector.clone()).collect(),
            next_row_touch: self.next_row_touch.as_ref().map(|t| {
                let touched: Vec<BufferId> = t
                    .loads
                    .iter()
                    .filter_map(|&n| match &kernel.graph.nodes[n] {
                        Node::Load { buf, .. } => Some(*buf),
                        _ => None,
                    })
                    .collect();
                (t.pass, touched)
            }),
        }
    }

    /// The innermost loop variable (the kernel has at least one loop).
    fn innermost(&self, kernel: &LoopKernel) -> Option<LoopVar> {
        self.loop_count
            .checked_sub(1)
            .and_then(|d| kernel.loop_order.get(d).copied())
    }

    /// How pass `p`'s innermost loop is vectorised, if it can be: every
    /// value varying along it has a vector form for one lane width (the
    /// widest element type among them), and the loop holds at least one
    /// vector. Row reductions with a general reducer body fold in order:
    /// scalar.
    fn vector_plan(&self, kernel: &LoopKernel, p: usize) -> Option<VectorPlan> {
        let inner = self.innermost(kernel)?;
        let inner_extent = kernel.graph.extents[inner];
        let nodes = &kernel.graph.nodes;
        let pass = &kernel.passes[p];
        let schedule = &self.passes[p];
        let mut varying: Vec<NodeId> = schedule.element_nodes.clone();
        varying.extend(&schedule.reducer_nodes);
        let ty = pass.value_type;
        // Narrow floats and sub-byte integers compute per element
        // (`narrow.rs`): their reductions fold scalar accumulators.
        if super::narrow::computes_narrow(ty) && !matches!(pass.work, Work::Store { .. }) {
            return None;
        }
        if let Work::RowReduce {
            reducer: Reducer::Body(_),
            ..
        } = &pass.work
        {
            return None;
        }
        // An update whose offset reads data that changes per element, or
        // that does not step by one element along the innermost loop (its
        // lanes could write one element twice), stores element by element.
        if let Work::Update { out_offset, .. } = &pass.work {
            let mut data = Vec::new();
            out_offset.data_nodes(&mut data);
            if data.iter().any(|&n| self.level[n] >= self.loop_count)
                || out_offset.affine_coefficient(inner) != Some(1)
            {
                return None;
            }
        }
        let mut w = 0u32;
        let mut note = |et: ElementType| {
            if !et.is_pred() {
                w = w.max(size_of(et));
            }
        };
        note(ty);
        for &n in &varying {
            note(nodes[n].ty());
        }
        for k in &pass.keeps {
            note(k.ty);
        }
        for a in pass.work.more() {
            note(a.ty);
        }
        if w == 0 {
            w = 1;
        }
        let fits = |et: ElementType| et.is_pred() || size_of(et) == w;
        if !fits(ty)
            || pass.keeps.iter().any(|k| !fits(k.ty))
            || pass.work.more().iter().any(|a| !fits(a.ty))
        {
            return None;
        }
        let lanes_of = Lanes {
            width: w,
            inner,
            inner_extent,
            level: &self.level,
            loop_count: self.loop_count,
        };
        let mut math = false;
        for &n in &varying {
            let node = &nodes[n];
            if !fits(node.ty()) || node.value_operands().iter().any(|&o| !fits(nodes[o].ty())) {
                return None;
            }
            math |= vector_support(node, &lanes_of)?.calls_math;
        }
        let lanes = (16 / w) as i64;
        if inner_extent < lanes {
            return None;
        }
        let count = varying.len();
        // Transcendental bodies are long already (and each copy costs
        // compile time): one copy.
        let max_unroll: u32 = if math {
            1
        } else if count <= 16 {
            4
        } else if count <= 48 {
            2
        } else {
            1
        };
        // A short row of whole vectors (W6's 32 floats) is emitted as
        // straight-line copies, with no loop or tail around them.
        let inner_split = kernel.split_loop == Some(self.loop_count - 1);
        if !math
            && !inner_split
            && count <= 16
            && inner_extent % lanes == 0
            && inner_extent / lanes <= 8
        {
            return Some(VectorPlan {
                width: w,
                unroll: (inner_extent / lanes) as u32,
                lane_type: vector_type(ty, w),
                whole_row: true,
            });
        }
        // Fewer copies when the loop is short, so the vector body runs.
        let mut unroll = max_unroll;
        while unroll > 1 && (unroll as i64) * lanes > inner_extent {
            unroll /= 2;
        }
        Some(VectorPlan {
            width: w,
            unroll,
            lane_type: vector_type(ty, w),
            whole_row: false,
        })
    }

    /// In a row group whose first pass streams its rows from memory and a
    /// later vectorised pass does more work per element, that later pass
    /// also loads the first pass's inputs one row ahead (a load per vector,
    /// result unused): the hardware prefetchers then stream the next row
    /// into the cache while this one is being computed, and the first pass
    /// of the next row reads it from there. Only buffers the kernel does
    /// not write are touched (input data; no race), at offsets clamped into
    /// the buffer.
    fn plan_next_row_touch(&self, kernel: &LoopKernel) -> Option<NextRowTouch> {
        let row_loops = kernel.row_loops?;
        if row_loops == 0 || self.loop_count == 0 || self.passes.len() < 2 {
            return None;
        }
        let inner = self.innermost(kernel)?;
        let row_var = kernel.loop_order[row_loops - 1];
        let written: Vec<BufferId> = kernel.written().collect();
        let loads: Vec<NodeId> = self.passes[0]
            .element_nodes
            .iter()
            .copied()
            .filter(|&n| match &kernel.graph.nodes[n] {
                Node::Load {
                    buf, offset, clamp, ..
                } => {
                    !clamp
                        && !written.contains(buf)
                        && offset.affine_coefficient(inner) == Some(1)
                        && offset.affine_coefficient(row_var).is_some_and(|c| c > 0)
                }
                _ => false,
            })
            .collect();
        if loads.is_empty() || self.passes[0].vector.is_none() {
            return None;
        }
        let busiest = (1..self.passes.len())
            .filter(|&p| self.passes[p].vector.is_some())
            .max_by_key(|&p| self.passes[p].element_nodes.len());
        match busiest {
            Some(p)
                if self.passes[p].element_nodes.len() > 2 * self.passes[0].element_nodes.len() =>
            {
                Some(NextRowTouch { pass: p, loads })
            }
            _ => None,
        }
    }
}
