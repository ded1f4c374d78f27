//! The IR verifier's rules for sort kernels: what `sortlib.rs` and the
//! inline merge sort of `codegen/sort.rs` index without checks.
//!
//! - The rows tile the elements: `count * length` elements, `stride >= 1`
//!   dividing `count`, so `start(r) + i * stride` lies in `0..count *
//!   length` for every row `r < count` and `i < length`.
//! - Every input, key and output holds exactly those elements (a top-k's
//!   outputs `count * k`, `k <= length`), of the element type the kernel
//!   declares (the run-time routines read and write that many bytes per
//!   element); a top-k's indices are `s32`.
//! - An inline comparator's graph passes the scope checks of a loop
//!   kernel's (operands in order, every load inside its buffer for every
//!   value of its two position variables), and those variables range over
//!   exactly `0..count * length`; its scratch holds two index arrays of
//!   `length` per row, of an index type wide enough for `length`.
//! - Every buffer read is written before the kernel's step.

use oxla_ir::ElementType;

use crate::entity::{BufferId, IdVec};
use crate::fusion::Plan;
use crate::kernel::{SortKernel, SortOrder};

use super::{At, Problem, check_scope};

/// The checks of one sort kernel.
pub(super) fn check_sort_kernel(
    at: At,
    kernel: &SortKernel,
    plan: &Plan,
    numel: &IdVec<BufferId, i64>,
    known: &dyn Fn(BufferId) -> bool,
    read_ok: &dyn Fn(BufferId, usize) -> bool,
    problems: &mut Vec<Problem>,
) {
    let mut found = Vec::new();
    let mut fail = |buf: BufferId, what: &'static str| {
        found.push(Problem::SortBounds { at, buf, what });
    };
    let rows = kernel.rows;
    let total = rows.count as i128 * rows.length as i128;
    let first = kernel.inputs.first().map_or(BufferId::new(0), |i| i.0);
    if rows.count < 0
        || rows.length < 0
        || rows.stride < 1
        || (rows.count > 0 && rows.count % rows.stride != 0)
    {
        fail(first, "has rows that do not tile the elements of");
    }
    // A buffer of `n` elements of `ty`.
    let holds = |buf: BufferId, n: i128, ty: ElementType| {
        known(buf)
            && numel[buf] as i128 == n
            && plan.buffers.get(buf).map(|b| b.shape.element_type()) == Some(ty)
    };
    if kernel.inputs.is_empty() {
        fail(first, "has no operands, reading");
    }
    for &(buf, ty) in &kernel.inputs {
        if !holds(buf, total, ty) {
            fail(buf, "reads the wrong number or type of elements of");
        }
    }
    let mut reads: Vec<BufferId> = kernel.read();
    match &kernel.order {
        SortOrder::Keys(keys) => {
            for key in keys {
                if !holds(key.buf, total, key.ty) {
                    fail(key.buf, "reads keys of the wrong number or type from");
                }
            }
            if kernel.outputs.len() != kernel.inputs.len() {
                fail(first, "has not one output per operand of");
            }
            for (o, &(_, ty)) in kernel.outputs.iter().zip(&kernel.inputs) {
                if let Some(o) = *o
                    && !holds(o, total, ty)
                {
                    fail(o, "writes the wrong number or type of elements of");
                }
            }
        }
        SortOrder::TopK { k, .. } => {
            let ty = kernel.inputs.first().map_or(ElementType::Tuple, |i| i.1);
            let out = rows.count as i128 * *k as i128;
            if *k < 0 || *k > rows.length || rows.stride != 1 || kernel.outputs.len() != 2 {
                fail(first, "selects outside the rows of");
            }
            for (o, want) in kernel.outputs.iter().zip([ty, ElementType::S32]) {
                if let Some(o) = *o
                    && !holds(o, out, want)
                {
                    fail(o, "writes the wrong number or type of elements of");
                }
            }
        }
        SortOrder::Comparator(c) => {
            if kernel.outputs.len() != kernel.inputs.len() {
                fail(first, "has not one output per operand of");
            }
            for (o, &(_, ty)) in kernel.outputs.iter().zip(&kernel.inputs) {
                if let Some(o) = *o
                    && !holds(o, total, ty)
                {
                    fail(o, "writes the wrong number or type of elements of");
                }
            }
            let graph = &c.kernel.graph;
            let extent = |v| graph.extents.get(v).map(|&e| e as i128);
            if extent(c.a) != Some(total) || extent(c.b) != Some(total) {
                fail(first, "compares positions outside the elements of");
            }
            // Indices are `s32` (rows that fit) or `s64`.
            let index_ok = c.index_type == ElementType::S64
                || (c.index_type == ElementType::S32 && rows.length <= i64::from(i32::MAX));
            if !index_ok || !holds(c.scratch, 2 * total, c.index_type) {
                fail(c.scratch, "keeps its indices outside");
            }
            if c.root.index() >= graph.nodes.len() || graph.nodes[c.root].ty() != ElementType::Pred
            {
                fail(
                    c.scratch,
                    "has a comparator that is not a pred, sorting with",
                );
            }
            let bound = graph.extents.len();
            if check_scope(at, None, graph, &graph.nodes, bound, numel, known, problems) {
                for (f, fold) in graph.folds.iter() {
                    let in_range = |n: crate::entity::NodeId| n.index() < fold.nodes.len();
                    if !in_range(fold.element) || !in_range(fold.combine) {
                        problems.push(Problem::OperandOrder {
                            at,
                            fold: Some(f),
                            node: fold.element.max(fold.combine),
                        });
                    }
                    check_scope(
                        at,
                        Some(f),
                        graph,
                        &fold.nodes,
                        graph.var_count(),
                        numel,
                        known,
                        problems,
                    );
                }
            }
            reads.retain(|&b| b != c.scratch);
        }
    }
    problems.extend(found);
    for b in reads {
        if !read_ok(b, at.step) {
            problems.push(Problem::ReadBeforeWrite {
                buf: b,
                step: at.step,
            });
        }
    }
}
