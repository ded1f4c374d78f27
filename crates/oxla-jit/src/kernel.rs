//! Kernel descriptions: what lowering hands to code generation.
//!
//! Lowering (`lower.rs`) turns each fusion step into one or more kernel
//! descriptions; code generation (`codegen/`) turns each into one
//! Cranelift function; `verify.rs` checks them in between. A description
//! says everything code generation needs and nothing about Cranelift:
//!
//! - a [`LoopKernel`]: an expression [`Graph`] over loop variables, the
//!   order of the loops (outermost first), the loop the thread pool splits,
//!   and one or more [`Pass`]es, each storing a value per element
//!   ([`Work::Store`]) or reducing one ([`Work::RowReduce`],
//!   [`Work::ColumnReduce`]);
//! - a [`DotKernel`]: a `dot_general` on canonical `[batch, m, k] x
//!   [batch, k, n]` operands;
//! - a [`SortKernel`]: a `sort` or `topk`, row by row (`kernel/sort.rs`);
//! - a [`ConvKernel`](crate::convlib::ConvKernel): a tiled direct `f32`
//!   convolution, line by line (`convlib.rs`).
//!
//! Invariants (checked by `verify::check_kernels`): every loop variable a
//! description uses has an extent; every node's operands come before it;
//! every load stays inside its buffer (or is clamped into it); every
//! output and temporary buffer is written, every element, by exactly one
//! step, before any later step reads it.

use oxla_ir::{BinaryOp, ElementType};

use crate::entity::{BufferId, LoopVar, NodeId};
use crate::fusion::{DotInput, DotSizes};
use crate::graph::Graph;
use crate::ix::Ix;

mod sort;

pub(crate) use sort::{InlineComparator, SortKernel, SortOrder};

/// How a reduce combines.
#[derive(Clone, Debug)]
pub(crate) enum Reducer {
    /// A commutative, associative binary op applied to the two reducer
    /// parameters.
    Op(BinaryOp),
    /// Any other reducer body: its nodes read `Var` slot 0 (accumulator)
    /// and slot 1 (element).
    Body(NodeId),
}

/// One more accumulator of a reduction of several inputs (a variadic
/// `reduce`, argmax's value and index): its element, init, reducer root,
/// output buffer and element type. The reducer body of a reduction of `n`
/// inputs reads the accumulators as `Var` slots `0..n` and the elements
/// as `n..2n` (the reducer's parameter order); the work's own `reducer`
/// gives accumulator 0's new value, each [`Acc::combine`] another's.
#[derive(Clone, Debug)]
pub(crate) struct Acc {
    pub(crate) element: NodeId,
    pub(crate) init: NodeId,
    pub(crate) combine: NodeId,
    pub(crate) out: BufferId,
    pub(crate) ty: ElementType,
}

/// What a pass does per element of its loops.
#[derive(Clone, Debug)]
pub(crate) enum Work {
    /// `out[out_offset] = root`.
    Store {
        root: NodeId,
        out: BufferId,
        out_offset: Ix,
    },
    /// A reduction whose reduced variables are the innermost loops, from
    /// depth `first_reduced` on: one accumulator per output element, kept
    /// in registers, stored at `out_offset` once the reduced loops end.
    RowReduce {
        element: NodeId,
        init: NodeId,
        reducer: Reducer,
        out: BufferId,
        out_offset: Ix,
        first_reduced: usize,
        /// The other accumulators of a variadic reduce (written at the
        /// same offset of their own buffers).
        more: Vec<Acc>,
    },
    /// `out[out_offset] = root` over a buffer that already holds a value
    /// in full (written by an earlier kernel of the same step, or, in
    /// place, by an earlier step): a `dynamic-update-slice` window or a
    /// `scatter`'s updates. The offset may read data indices; `root` may
    /// read `out` at `out_offset` (the element's value before this write).
    /// Unless the kernel has a split loop (then every iteration writes its
    /// own element), iterations run in loop order on one thread, so an
    /// element written twice ends with the later value, and a read sees
    /// every earlier write.
    Update {
        root: NodeId,
        out: BufferId,
        out_offset: Ix,
    },
    /// A reduction whose innermost loop walks the output's last dimension
    /// and whose reduced loops run from depth `first_reduced` to just
    /// above it: the output row is filled with `init`, then every reduced
    /// step folds a row of elements into it.
    ColumnReduce {
        element: NodeId,
        init: NodeId,
        reducer: Reducer,
        out: BufferId,
        out_offset: Ix,
        first_reduced: usize,
        /// As in [`Work::RowReduce`].
        more: Vec<Acc>,
    },
}

impl Work {
    /// The buffer the work writes.
    pub(crate) fn out(&self) -> BufferId {
        match self {
            Work::Store { out, .. }
            | Work::Update { out, .. }
            | Work::RowReduce { out, .. }
            | Work::ColumnReduce { out, .. } => *out,
        }
    }

    /// Every buffer the work writes, each at [`Work::out_offset`]: its
    /// output, then a variadic reduce's other outputs.
    pub(crate) fn outs(&self) -> Vec<BufferId> {
        let mut outs = vec![self.out()];
        outs.extend(self.more().iter().map(|a| a.out));
        outs
    }

    /// A variadic reduce's other accumulators (none otherwise).
    pub(crate) fn more(&self) -> &[Acc] {
        match self {
            Work::Store { .. } | Work::Update { .. } => &[],
            Work::RowReduce { more, .. } | Work::ColumnReduce { more, .. } => more,
        }
    }

    /// Where the work writes its value (in elements of [`Work::out`]).
    pub(crate) fn out_offset(&self) -> &Ix {
        match self {
            Work::Store { out_offset, .. }
            | Work::Update { out_offset, .. }
            | Work::RowReduce { out_offset, .. }
            | Work::ColumnReduce { out_offset, .. } => out_offset,
        }
    }

    /// The per-element values (stored or folded: one per accumulator) and
    /// the roots of the reducer body, if the reducer is one.
    pub(crate) fn roots(&self) -> (Vec<NodeId>, Vec<NodeId>) {
        match self {
            Work::Store { root, .. } | Work::Update { root, .. } => (vec![*root], vec![]),
            Work::RowReduce {
                element,
                reducer,
                more,
                ..
            }
            | Work::ColumnReduce {
                element,
                reducer,
                more,
                ..
            } => {
                let mut elements = vec![*element];
                elements.extend(more.iter().map(|a| a.element));
                let mut body = match reducer {
                    Reducer::Body(r) => vec![*r],
                    Reducer::Op(_) => vec![],
                };
                body.extend(more.iter().map(|a| a.combine));
                (elements, body)
            }
        }
    }
}

/// A value a pass stores per element besides its own result: `node` into
/// `buf` at `offset` (a row-group kernel keeps a costly value there so that
/// a later pass over the same row loads it instead of recomputing it).
#[derive(Clone, Debug)]
pub(crate) struct KeptValue {
    pub(crate) node: NodeId,
    pub(crate) buf: BufferId,
    pub(crate) offset: Ix,
    pub(crate) ty: ElementType,
}

/// What one pass of a kernel computes.
#[derive(Clone, Debug)]
pub(crate) struct Pass {
    pub(crate) work: Work,
    /// The element type of the values stored or accumulated.
    pub(crate) value_type: ElementType,
    /// Extra per-element stores.
    pub(crate) keeps: Vec<KeptValue>,
    /// A row group's *row pass*: a `Store` of one value per row, computed
    /// at the row depth with no loop of its own.
    pub(crate) per_row: bool,
}

impl Pass {
    /// Every node the pass evaluates: its per-element value, the values it
    /// keeps, and for a reduction its init and reducer body.
    pub(crate) fn roots(&self) -> Vec<NodeId> {
        let (xs, body) = self.work.roots();
        let mut roots = xs;
        roots.extend(self.keeps.iter().map(|k| k.node));
        if let Work::RowReduce { init, .. } | Work::ColumnReduce { init, .. } = &self.work {
            roots.push(*init);
        }
        roots.extend(self.work.more().iter().map(|a| a.init));
        roots.extend(body);
        roots
    }
}

/// One loop kernel to compile.
pub(crate) struct LoopKernel {
    pub(crate) graph: Graph,
    /// Every loop variable of the kernel, outermost loop first.
    pub(crate) loop_order: Vec<LoopVar>,
    /// The depth of the loop whose range the kernel takes as `start..end`
    /// (the loop the thread pool splits); `None`: the kernel ignores the
    /// range.
    pub(crate) split_loop: Option<usize>,
    /// What the kernel computes: one pass for an ordinary kernel; several
    /// for a row group, run one after the other per iteration of the
    /// `row_loops` outer loops (each pass runs its own loops below them).
    pub(crate) passes: Vec<Pass>,
    /// A row group's row loops, the outermost ones (`None`: one pass).
    pub(crate) row_loops: Option<usize>,
}

impl LoopKernel {
    /// An ordinary one-pass kernel.
    pub(crate) fn single(
        graph: Graph,
        loop_order: Vec<LoopVar>,
        split_loop: Option<usize>,
        work: Work,
        value_type: ElementType,
    ) -> LoopKernel {
        LoopKernel {
            graph,
            loop_order,
            split_loop,
            passes: vec![Pass {
                work,
                value_type,
                keeps: vec![],
                per_row: false,
            }],
            row_loops: None,
        }
    }

    /// The kernel's range is `0..split_extent()`: the extent of its split
    /// loop, or 1 when it has none (it then ignores the range).
    pub(crate) fn split_extent(&self) -> i64 {
        self.split_loop
            .and_then(|d| self.loop_order.get(d))
            .map_or(1, |&v| self.graph.extents[v])
    }

    /// Every buffer the kernel writes (with repeats).
    pub(crate) fn written(&self) -> impl Iterator<Item = BufferId> + '_ {
        self.passes.iter().flat_map(|p| {
            p.work
                .outs()
                .into_iter()
                .chain(p.keeps.iter().map(|k| k.buf))
        })
    }
}

/// A dot kernel: `out[b] = lhs[b] x rhs[b]` for each batch `b`, on the
/// canonical `[batch, m, k]` and `[batch, k, n]` views of the operands.
pub(crate) struct DotKernel {
    pub(crate) ty: ElementType,
    pub(crate) lhs: DotInput,
    pub(crate) rhs: DotInput,
    /// Row-major `[batch, m, n]`.
    pub(crate) out: BufferId,
    pub(crate) sizes: DotSizes,
}

impl DotKernel {
    /// The kernel's range is `0..split_extent()`: output rows of every
    /// batch (`batch * m`; row `r` is row `r % m` of batch `r / m`).
    pub(crate) fn split_extent(&self) -> i64 {
        self.sizes.batch * self.sizes.m
    }
}

/// What lowering makes of one fusion step: the kernels that compute it,
/// run in order (none for a step with an empty output; several for a loop
/// split where its guards flip).
pub(crate) enum KernelDesc {
    Loop(LoopKernel),
    Dot(DotKernel),
    Sort(SortKernel),
    /// A tiled direct convolution (`convlib.rs`).
    Conv(crate::convlib::ConvKernel),
}
