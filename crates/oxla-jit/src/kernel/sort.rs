//! Sort kernel descriptions: what lowering hands to code generation for a
//! `sort` or `topk` step (`fusion/sort.rs` says which kind and why).

use oxla_ir::ElementType;

use crate::entity::{BufferId, LoopVar};
use crate::fusion::SortKey;
use crate::sortlib::Rows;

use super::LoopKernel;

/// How a sort kernel orders each row.
pub(crate) enum SortOrder {
    /// A stable sort by keys, most significant first (`sortlib.rs`).
    Keys(Vec<SortKey>),
    /// A merge sort with the comparator compiled inline (`codegen/sort.rs`).
    Comparator(Box<InlineComparator>),
    /// `topk`: the first `k` of a stable sort by `GT` (`largest`) or `LT`
    /// in the total order, by selection (`sortlib.rs`).
    TopK { k: i64, largest: bool },
}

/// A comparator compiled into the sort kernel: the comparator body as an
/// expression graph in which `a_k` is a load of input `k` at the position
/// loop variable `a` holds and `b_k` at `b`'s. The two variables are not
/// loops: the merge sort binds them to the positions of the two elements
/// it compares, both inside `0..count * length` (their extents), so every
/// load the IR verifier checked stays in bounds.
pub(crate) struct InlineComparator {
    /// The graph, over the variables `a` and `b` (both of extent `count *
    /// length`), with one store pass of `root` (into `scratch`, never run:
    /// it only makes the emitter's schedule of `root` available).
    pub(crate) kernel: LoopKernel,
    pub(crate) root: crate::entity::NodeId,
    pub(crate) a: LoopVar,
    pub(crate) b: LoopVar,
    /// Two index arrays of `length` elements per row, row `r` at `2 * r *
    /// length`.
    pub(crate) scratch: BufferId,
    /// `s32` or `s64`: the indices' type.
    pub(crate) index_type: ElementType,
}

/// A `sort` or `topk` kernel: rows `start..end` of `rows` per call.
pub(crate) struct SortKernel {
    pub(crate) rows: Rows,
    /// The operands' buffers and element types.
    pub(crate) inputs: Vec<(BufferId, ElementType)>,
    /// One per result array (a top-k's values and indices): its buffer, if
    /// anything reads it.
    pub(crate) outputs: Vec<Option<BufferId>>,
    pub(crate) order: SortOrder,
}

impl SortKernel {
    /// The kernel's range is `0..split_extent()`: its rows.
    pub(crate) fn split_extent(&self) -> i64 {
        self.rows.count
    }

    /// Every buffer the kernel writes.
    pub(crate) fn written(&self) -> Vec<BufferId> {
        let mut w: Vec<BufferId> = self.outputs.iter().flatten().copied().collect();
        if let SortOrder::Comparator(c) = &self.order {
            w.push(c.scratch);
        }
        w
    }

    /// Every buffer the kernel reads.
    pub(crate) fn read(&self) -> Vec<BufferId> {
        let mut r: Vec<BufferId> = self.inputs.iter().map(|i| i.0).collect();
        match &self.order {
            SortOrder::Keys(keys) => r.extend(keys.iter().map(|k| k.buf)),
            SortOrder::Comparator(c) => r.extend(
                c.kernel
                    .graph
                    .nodes
                    .values()
                    .chain(c.kernel.graph.folds.values().flat_map(|f| f.nodes.values()))
                    .filter_map(|n| match n {
                        crate::graph::Node::Load { buf, .. } => Some(*buf),
                        _ => None,
                    }),
            ),
            SortOrder::TopK { .. } => {}
        }
        r.sort_unstable();
        r.dedup();
        r
    }
}
