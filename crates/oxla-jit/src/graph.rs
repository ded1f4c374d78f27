//! Expression graphs: what one kernel computes per element, with every
//! index map resolved.
//!
//! A fusion group's root is evaluated at the kernel's loop index. Walking
//! down its operands, each op rewrites the index it is read at (broadcast
//! drops dimensions, transpose permutes them, slice scales and offsets,
//! reshape linearises and splits, pad and concatenate add guards) until a
//! materialised value is reached, which becomes a [`Node::Load`] at an
//! element offset that is an [`Ix`] of the loop variables. Nothing is
//! copied: a broadcast operand is a load whose offset does not use the
//! broadcast loop variables (stride 0).
//!
//! Nodes are hash-consed: the same instruction read at the same index is
//! computed once per element, however many paths lead to it.
//!
//! ## Folds: reduces and dots inside called bodies
//!
//! A `reduce` or `dot` of the entry body always has a buffer, but one
//! inside a reducer body (a called computation, evaluated per element on
//! scalars) cannot: it becomes a [`Node::Fold`], a loop that the kernel
//! runs in place wherever the node is evaluated. Its body is a graph of its
//! own, a [`Fold`] *scope* in [`Graph::folds`]: the folded element (the
//! reduce's operand, or a dot's `lhs * rhs`, at an index that uses the
//! fold's own loop variables) and the combiner (the reducer body, or `+`,
//! reading the accumulator and the element as `Var` slots 0 and 1). Loop
//! variables are numbered after the kernel's, one fresh range per fold,
//! and are visible to folds nested inside (a fold may read an enclosing
//! fold's variable directly; the fold node's `reads` list them).
//!
//! Values of the enclosing scope a fold reads are *captured*: the fold
//! node lists them as operands and its body reads them as
//! [`Node::Capture`] (a constant is simply copied in). Every value of the fold's defining body whose index
//! does not use the fold's variables (a reducer parameter, a broadcast
//! scalar, an earlier reduce read at a fixed index) is built in the
//! enclosing scope and captured, so it is computed once per evaluation of
//! the fold, not once per step, and independent reduces stay siblings
//! rather than nesting. The walk stays iterative: a fold is one more kind
//! of request, its body's instructions are requests in its scope.
//!
//! The order of a fold is the interpreter's: a reduce folds from its init
//! over the reduced dimensions in row-major order (ascending dimensions),
//! a dot from zero over the contracting dimensions in the order the
//! dimension numbers list them, so float results agree bit for bit.

// Node builders of the misc family (bitcast-convert, reduce-precision).
mod misc;

use std::collections::HashMap;

use oxla_ir::{
    BinaryOp, Computation, ComputationId, DotDimensionNumbers, ElementType, Error,
    GatherDimensionNumbers, InstId, Instruction, Literal, OpKind, Result, UnaryOp,
    shape::row_major_strides,
};

use crate::entity::{BufferId, FoldId, IdVec, LoopVar, NodeId};
use crate::error::{Stage, internal};
use crate::ix::{Extents, Ix};

mod dynamic;

/// One condition of a `pad`/`concatenate` guard.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Cond {
    /// `lo <= ix < hi`.
    Range { ix: Ix, lo: i64, hi: i64 },
    /// `ix mod d == 0`.
    Divisible { ix: Ix, d: i64 },
}

/// One value computed per element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    /// Element `offset` of buffer `buf` (`numel` elements of `ty`); with
    /// `clamp` the offset is clamped into the buffer first (a read under a
    /// guard that may be false).
    Load {
        buf: BufferId,
        ty: ElementType,
        offset: Ix,
        numel: i64,
        clamp: bool,
    },
    /// A constant (its bits, zero-extended to 64).
    Const { ty: ElementType, bits: u64 },
    /// The index `index` converted to `ty`.
    Iota { ty: ElementType, index: Ix },
    /// A value bound by the kernel (the reducer's accumulator and element),
    /// or, in a fold's body, by the fold (slot 0: the accumulator, slot 1:
    /// the element being folded).
    Var { ty: ElementType, slot: u16 },
    /// In a fold's body: the fold node's captured value `slot`
    /// (`captures[slot]` of the [`Node::Fold`]).
    Capture { ty: ElementType, slot: u32 },
    /// The result of folding [`Graph::folds`]`[fold]` starting from
    /// `init`: a loop run in place (see the module docs). `captures` are
    /// the values of this scope the fold's body reads; `reads` are the
    /// loop variables of this scope it reads directly (each as `Ix::var`).
    Fold {
        ty: ElementType,
        fold: FoldId,
        init: NodeId,
        captures: Vec<NodeId>,
        reads: Vec<Ix>,
    },
    /// `op(x)`; `ty` is the operand type.
    Unary {
        op: UnaryOp,
        ty: ElementType,
        x: NodeId,
    },
    /// `op(a, b)`; `ty` is the operand type.
    Binary {
        op: BinaryOp,
        ty: ElementType,
        a: NodeId,
        b: NodeId,
    },
    /// `convert`.
    Convert {
        from: ElementType,
        to: ElementType,
        x: NodeId,
    },
    /// `p ? a : b`.
    Select {
        ty: ElementType,
        p: NodeId,
        a: NodeId,
        b: NodeId,
    },
    /// `min(max(lo, x), hi)`.
    Clamp {
        ty: ElementType,
        lo: NodeId,
        x: NodeId,
        hi: NodeId,
    },
    /// `pred`: every condition holds.
    InBounds { conds: Vec<Cond> },
    /// An index read from data: `x`, an integer of type `from`, widened to
    /// `i64` as the interpreter widens indices (a `u64` above `i64::MAX`
    /// saturates to it) and clamped into `lo..=hi`; of type `s64`. An
    /// [`Ix`] reads it as a data index ([`crate::ix::Atom::Data`]).
    Index {
        x: NodeId,
        from: ElementType,
        lo: i64,
        hi: i64,
    },
    /// The bits of `x` (of type `from`) read as `to`, of the same width
    /// (`bitcast-convert`; `reduce-precision` works through it).
    Bitcast {
        from: ElementType,
        to: ElementType,
        x: NodeId,
    },
}

impl Node {
    /// The element type of the value.
    pub(crate) fn ty(&self) -> ElementType {
        match self {
            Node::Load { ty, .. }
            | Node::Const { ty, .. }
            | Node::Iota { ty, .. }
            | Node::Var { ty, .. }
            | Node::Capture { ty, .. }
            | Node::Fold { ty, .. }
            | Node::Select { ty, .. }
            | Node::Clamp { ty, .. } => *ty,
            // The op table's class: `pred` for comparisons and tests.
            Node::Unary { op, ty, .. } => op.class().result_type(*ty),
            Node::Binary { op, ty, .. } => op.class().result_type(*ty),
            Node::Convert { to, .. } | Node::Bitcast { to, .. } => *to,
            Node::InBounds { .. } => ElementType::Pred,
            Node::Index { .. } => ElementType::S64,
        }
    }

    /// The nodes this one reads: its operands, then the data indices its
    /// index expressions read (in the order of [`Node::index_exprs`]).
    pub(crate) fn operands(&self) -> Vec<NodeId> {
        let mut ops = self.value_operands();
        for ix in self.index_exprs() {
            ix.data_nodes(&mut ops);
        }
        ops
    }

    /// The nodes whose values this one computes with (data indices aside):
    /// the head of [`Node::operands`].
    pub(crate) fn value_operands(&self) -> Vec<NodeId> {
        match self {
            Node::Load { .. }
            | Node::Const { .. }
            | Node::Iota { .. }
            | Node::Var { .. }
            | Node::Capture { .. }
            | Node::InBounds { .. } => vec![],
            Node::Unary { x, .. }
            | Node::Convert { x, .. }
            | Node::Index { x, .. }
            | Node::Bitcast { x, .. } => vec![*x],
            Node::Fold { init, captures, .. } => {
                let mut ops = Vec::with_capacity(1 + captures.len());
                ops.push(*init);
                ops.extend(captures);
                ops
            }
            Node::Binary { a, b, .. } => vec![*a, *b],
            Node::Select { p, a, b, .. } => vec![*p, *a, *b],
            Node::Clamp { lo, x, hi, .. } => vec![*lo, *x, *hi],
        }
    }

    /// Every index expression the node evaluates.
    pub(crate) fn index_exprs(&self) -> Vec<&Ix> {
        match self {
            Node::Load { offset, .. } => vec![offset],
            Node::Iota { index, .. } => vec![index],
            Node::InBounds { conds } => conds
                .iter()
                .map(|c| match c {
                    Cond::Range { ix, .. } | Cond::Divisible { ix, .. } => ix,
                })
                .collect(),
            Node::Fold { reads, .. } => reads.iter().collect(),
            _ => vec![],
        }
    }
}

/// Where a node lives: the kernel's own nodes ([`Graph::nodes`], `None`)
/// or the body of a fold.
type Scope = Option<FoldId>;

/// The body of a [`Node::Fold`]: a loop over `vars` (outermost first,
/// row-major) that starts from the fold node's `init` and replaces the
/// accumulator by `combine` (which reads the accumulator as `Var` slot 0
/// and `element` as slot 1) at each step.
#[derive(Clone, Debug)]
pub(crate) struct Fold {
    /// The loop variables and their extents, outermost first.
    pub(crate) vars: Vec<(LoopVar, i64)>,
    /// The body's nodes, hash-consed, operands before users.
    pub(crate) nodes: IdVec<NodeId, Node>,
    /// The value folded at each step.
    pub(crate) element: NodeId,
    /// The new accumulator.
    pub(crate) combine: NodeId,
    dedup: HashMap<Node, NodeId>,
    /// The scope the fold node lives in.
    parent: Scope,
    /// How many folds enclose this one (0 for a fold of the kernel's own
    /// nodes).
    depth: usize,
    /// The body whose values the fold's element reads (the reduce's or
    /// dot's own body): its values that do not use `vars` are captured.
    owner: ComputationId,
    /// The reducer body whose parameters are slots 0 and 1 (none for a dot).
    combiner: Option<ComputationId>,
    /// The enclosing scope's nodes read through `Capture` slots.
    captures: Vec<NodeId>,
}

impl Fold {
    /// The fold whose body holds this fold's node (`None`: the kernel's
    /// own nodes).
    pub(crate) fn enclosing(&self) -> Option<FoldId> {
        self.parent
    }

    /// Adds `node` (or finds the equal one); `true` if it is new.
    fn add(&mut self, node: Node) -> (NodeId, bool) {
        if let Some(&id) = self.dedup.get(&node) {
            return (id, false);
        }
        let id = self.nodes.push(node.clone());
        self.dedup.insert(node, id);
        (id, true)
    }

    /// `true` if `ix` uses one of the fold's own variables.
    fn uses_own(&self, ix: &Ix) -> bool {
        self.vars.iter().any(|&(v, _)| ix.uses(v))
    }
}

/// Where a materialised instruction's value lives, for the graph builder.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    /// Buffer `id` of the executable.
    Buffer(BufferId),
    /// A value bound by the kernel.
    Var(u16),
    /// A node already built (a reducer applied to known values).
    Node(NodeId),
}

/// The body being walked and how its materialised values are found.
pub(crate) struct Ctx<'a> {
    /// The computation: the bodies that folds call are walked too.
    pub(crate) comp: &'a Computation,
    /// The body walked in the kernel's own scope.
    pub(crate) body_id: ComputationId,
    /// Where the materialised values of `body_id` live.
    pub(crate) source: &'a dyn Fn(InstId) -> Option<Source>,
    /// The buffers of non-scalar constants of called bodies, by
    /// `(body, instruction)`.
    pub(crate) called: &'a HashMap<(ComputationId, InstId), BufferId>,
}

/// A hash-consed node list being built.
#[derive(Default)]
pub(crate) struct Graph {
    /// The kernel's own nodes.
    pub(crate) nodes: IdVec<NodeId, Node>,
    /// Loop extents of the kernel's variables (for simplification).
    pub(crate) extents: Extents,
    /// The bodies of the [`Node::Fold`]s, in every scope.
    pub(crate) folds: IdVec<FoldId, Fold>,
    /// Extents of every variable: the kernel's, then the folds'.
    var_extents: Extents,
    /// Nodes in every scope.
    count: usize,
    dedup: HashMap<Node, NodeId>,
    /// What the walk remembers between builds (boxed: kernel specs carry
    /// their graph by value, long after the walk).
    walked: Box<Walked>,
}

/// The walk's memory: the node built for each request since the last
/// [`Graph::forget_instructions`], and the fold begun for each `reduce` or
/// `dot` request with what it needs.
#[derive(Default)]
struct Walked {
    memo: HashMap<Key, NodeId>,
    begun: HashMap<Key, (FoldId, Vec<Key>)>,
    /// The frame of each `map` request, once its operands are built.
    frames_of: HashMap<Key, u32>,
    /// Each frame's scope and arguments (frame 0, the kernel's own, has
    /// none).
    frames: Vec<(Scope, Vec<NodeId>)>,
}

/// The most nodes one kernel may have (in every scope together): a guard
/// against runaway index expansion. The fusion planner's cost cuts
/// (`fusion::MAX_COST`) keep fused kernels far below it; a reducer body,
/// which cannot be cut, may come near it only with tens of thousands of
/// instructions.
pub(crate) const MAX_NODES: usize = 65536;

/// The most folds one fold may sit inside: the emitter recurses once per
/// level, and a nest of looping folds multiplies their extents (64 levels
/// of 2 steps each would take `2^64`).
pub(crate) const MAX_FOLD_DEPTH: usize = 64;

/// How the walk builds an op's value: the one place the graph stage
/// decides it per op. Every op is listed, so a new op is a compile error
/// here; the attributes the stage reads are carried along.
#[derive(Clone, Copy, Debug)]
enum Build<'a> {
    /// A fold over the reduced dimensions (see the module docs).
    Reduce {
        /// The dimensions reduced away.
        dimensions: &'a [i64],
        /// The reducer.
        to_apply: &'a ComputationId,
    },
    /// A fold over the contracting dimensions.
    Dot {
        /// Batch and contracting dimensions.
        dims: &'a DotDimensionNumbers,
    },
    /// An index stage: the start indices first, then the operand at them
    /// (`dynamic.rs`).
    Gather {
        /// Where the slices' and the indices' dimensions go.
        dims: &'a GatherDimensionNumbers,
        /// The size of every slice.
        slice_sizes: &'a [i64],
    },
    /// An index stage, as a gather.
    DynamicSlice {
        /// The slice's size per dimension.
        slice_sizes: &'a [i64],
    },
    /// The called computation's root in a frame of its own.
    Map {
        /// The scalar computation.
        to_apply: &'a ComputationId,
    },
    /// Requests for its operands, then one node ([`Graph::plan`], which
    /// refuses the ops that never reach it).
    Plan,
}

/// The [`Build`] of `kind`.
fn build_kind(kind: &OpKind) -> Build<'_> {
    match kind {
        OpKind::Reduce {
            dimensions,
            to_apply,
        } => Build::Reduce {
            dimensions,
            to_apply,
        },
        OpKind::DotGeneral { dims } => Build::Dot { dims },
        OpKind::Gather {
            dims, slice_sizes, ..
        } => Build::Gather { dims, slice_sizes },
        OpKind::DynamicSlice { slice_sizes } => Build::DynamicSlice { slice_sizes },
        OpKind::Map { to_apply, .. } => Build::Map { to_apply },
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
        | OpKind::Unary(_)
        | OpKind::Binary { .. }
        | OpKind::Convert
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Broadcast { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Concatenate { .. }
        | OpKind::Reverse { .. }
        | OpKind::Pad { .. }
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Complex
        | OpKind::Real
        | OpKind::Imag
        | OpKind::Fft { .. }
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. }
        | OpKind::Rng { .. }
        | OpKind::RngBitGenerator { .. }
        | OpKind::Cholesky { .. }
        | OpKind::TriangularSolve { .. }
        | OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. }
        | OpKind::CustomCall(_)
        | OpKind::AfterAll
        | OpKind::AddDependency
        | OpKind::StochasticConvert
        | OpKind::RngGetAndUpdateState { .. }
        | OpKind::RaggedDot { .. } => Build::Plan,
    }
}

/// An internal error of the index analysis.
fn bug(message: impl Into<String>) -> Error {
    internal(Stage::Index, message)
}

/// The nodes reachable from `roots` (them included), ascending: in an
/// operands-before-users list, an order in which to compute them.
pub(crate) fn reachable(nodes: &IdVec<NodeId, Node>, roots: &[NodeId]) -> Vec<NodeId> {
    let mut seen: IdVec<NodeId, bool> = IdVec::filled(nodes.len(), false);
    let mut stack = roots.to_vec();
    while let Some(n) = stack.pop() {
        if seen[n] {
            continue;
        }
        seen[n] = true;
        stack.extend(nodes[n].operands());
    }
    nodes.keys().filter(|&n| seen[n]).collect()
}

/// The bits of scalar `literal` zero-extended to 64 (`None` if not a
/// scalar array).
pub(crate) fn scalar_bits(literal: &Literal) -> Option<u64> {
    let data = literal.array_data()?;
    if data.len() != 1 {
        return None;
    }
    // Zero-extended: `to_bits128` keeps only the type's own bits.
    Some(oxla_ir::dispatch_array!(data, v => oxla_ir::ElementBits::to_bits128(v[0]) as u64))
}

/// One value to build: instruction `inst` of body `body`, read at `index`
/// in scope `scope`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    scope: Scope,
    /// Which call of `body` the value belongs to: 0 for the kernel's own
    /// body and the reducers it folds with, a fresh frame per `map` whose
    /// computation is inlined (its parameters are the frame's arguments).
    frame: u32,
    body: ComputationId,
    inst: InstId,
    index: Vec<Ix>,
    /// Read under a guard that may be false (its loads are clamped).
    guarded: bool,
}

/// The row-major index of `linear` in `dims`, innermost first and nested
/// (`i_last = L % n_last`, `i_prev = (L / n_last) % n_prev`, ...), the
/// form in which a later row-major linearisation folds back to `L`.
pub(crate) fn delinearise(linear: &Ix, dims: &[i64], ext: &Extents) -> Vec<Ix> {
    let mut out = vec![Ix::constant(0); dims.len()];
    let mut q = linear.clone();
    for d in (0..dims.len()).rev() {
        out[d] = q.modulo(dims[d], ext);
        q = q.div(dims[d], ext);
    }
    out
}

impl Graph {
    /// An empty graph over loop variables with `extents`.
    pub(crate) fn new(extents: Extents) -> Graph {
        Graph {
            var_extents: extents.clone(),
            extents,
            ..Graph::default()
        }
    }

    /// How many loop variables the kernel and its folds number together
    /// (fold variables come after the kernel's).
    pub(crate) fn var_count(&self) -> usize {
        self.var_extents.len()
    }

    /// The extent of every loop variable: the kernel's, then the folds'.
    pub(crate) fn all_extents(&self) -> &Extents {
        &self.var_extents
    }

    /// Forgets which instruction was built at which index (the nodes stay,
    /// still hash-consed): the next build may map materialised values to
    /// other sources.
    pub(crate) fn forget_instructions(&mut self) {
        self.walked.memo.clear();
        self.walked.begun.clear();
        self.walked.frames_of.clear();
    }

    /// The node built for `inst` of body `body` at `index` (unguarded)
    /// since the last [`Graph::forget_instructions`].
    pub(crate) fn built(&self, body: ComputationId, inst: InstId, index: &[Ix]) -> Option<NodeId> {
        let key = Key {
            scope: None,
            frame: 0,
            body,
            inst,
            index: index.to_vec(),
            guarded: false,
        };
        self.walked.memo.get(&key).copied()
    }

    /// Whether every load (in the kernel's own scope) of a buffer listed in
    /// `written` is at the offset listed with it (the first entry of the
    /// buffer): what a row group needs of every read of a buffer one of its
    /// passes writes.
    pub(crate) fn loads_at(&self, written: &[(BufferId, Ix)]) -> bool {
        self.nodes.values().all(|node| match node {
            Node::Load { buf, offset, .. } => written
                .iter()
                .find(|(b, _)| b == buf)
                .is_none_or(|(_, want)| offset == want),
            _ => true,
        })
    }

    /// Adds `node` to the kernel's own nodes (or finds the equal one).
    pub(crate) fn add(&mut self, node: Node) -> NodeId {
        if let Some(&id) = self.dedup.get(&node) {
            return id;
        }
        let id = self.nodes.push(node.clone());
        self.dedup.insert(node, id);
        self.count += 1;
        id
    }

    /// Adds `node` to `scope` (or finds the equal one).
    fn put(&mut self, scope: Scope, node: Node) -> NodeId {
        match scope {
            None => self.add(node),
            Some(f) => {
                let (id, new) = self.folds[f].add(node);
                self.count += new as usize;
                id
            }
        }
    }

    /// The nodes of `scope`.
    fn scope_nodes(&self, scope: Scope) -> &IdVec<NodeId, Node> {
        match scope {
            None => &self.nodes,
            Some(f) => &self.folds[f].nodes,
        }
    }

    /// The node computing `root` at `index` (one [`Ix`] per dimension of
    /// `root`). `root` itself is expanded even if `ctx.source` names it.
    pub(crate) fn build(&mut self, ctx: &Ctx, root: InstId, index: Vec<Ix>) -> Result<NodeId> {
        self.walk(ctx, root, index, true, false)
    }

    /// The node reading `inst` at `index`: a load when `ctx.source` names
    /// it, its expression otherwise.
    pub(crate) fn value(&mut self, ctx: &Ctx, inst: InstId, index: Vec<Ix>) -> Result<NodeId> {
        self.walk(ctx, inst, index, false, false)
    }

    /// [`Graph::value`] at an index that may lie outside `inst`'s shape
    /// (under a window's guard that is then false): every load is clamped
    /// into its buffer, and the value is only meaningful where the guard
    /// holds.
    pub(crate) fn guarded_value(
        &mut self,
        ctx: &Ctx,
        inst: InstId,
        index: Vec<Ix>,
    ) -> Result<NodeId> {
        self.walk(ctx, inst, index, false, true)
    }

    fn walk(
        &mut self,
        ctx: &Ctx,
        root: InstId,
        index: Vec<Ix>,
        expand: bool,
        guarded: bool,
    ) -> Result<NodeId> {
        let top = Key {
            scope: None,
            frame: 0,
            body: ctx.body_id,
            inst: root,
            index,
            guarded,
        };
        if expand {
            // A root expanded here must not be found as a load in the memo.
            self.walked.memo.remove(&top);
        }
        // Each request with its stage: 0 when first met, then 1 once its
        // operands are requested (a gather's or dynamic slice's start
        // indices), 2 once a gather's operand is (at the starts' index).
        let mut stack: Vec<(Key, u8)> = vec![(top.clone(), 0)];
        while let Some((key, stage)) = stack.pop() {
            let expanded = stage > 0;
            if self.walked.memo.contains_key(&key) {
                continue;
            }
            let inst = ctx.comp.body(key.body).inst(key.inst);
            if self.count > MAX_NODES {
                return Err(Error::JitNodeBudget {
                    computation: ctx.comp.body(key.body).name.clone(),
                    instruction: inst.name.clone(),
                    nodes: self.count,
                    bound: MAX_NODES,
                });
            }
            let is_top = expand && key == top;
            // A value of a fold's own body that does not vary along the
            // fold is built in the enclosing scope and captured.
            if let Some(f) = key.scope
                && self.folds[f].owner == key.body
                && !key
                    .index
                    .iter()
                    .any(|ix| self.folds[f].uses_own(ix) || ix.has_data())
            {
                let outer = Key {
                    scope: self.folds[f].parent,
                    ..key.clone()
                };
                match self.walked.memo.get(&outer) {
                    Some(&v) => {
                        let id = self.capture(f, v);
                        self.walked.memo.insert(key, id);
                    }
                    None => {
                        stack.push((key, 1));
                        stack.push((outer, 0));
                    }
                }
                continue;
            }
            if !is_top && let Some(src) = self.source(ctx, &key) {
                let id = self.source_node(src, inst, &key)?;
                self.walked.memo.insert(key, id);
                continue;
            }
            if let Build::Gather { .. } | Build::DynamicSlice { .. } = build_kind(&inst.kind) {
                let (requests, dims) = match self.index_plan(ctx, &key)? {
                    dynamic::IndexPlan::Zero => {
                        let ty = inst.shape.element_type();
                        let id = self.put(key.scope, Node::Const { ty, bits: 0 });
                        self.walked.memo.insert(key, id);
                        continue;
                    }
                    dynamic::IndexPlan::Read { requests, dims } => (requests, dims),
                };
                if stage == 0 {
                    stack.push((key, 1));
                    for r in requests {
                        if !self.walked.memo.contains_key(&r) {
                            stack.push((r, 0));
                        }
                    }
                    continue;
                }
                let starts: Vec<NodeId> = requests.iter().map(|r| self.walked.memo[r]).collect();
                let operand = self.indexed_operand(ctx, &key, &dims, &starts)?;
                match self.walked.memo.get(&operand) {
                    Some(&id) => {
                        self.walked.memo.insert(key, id);
                    }
                    None if stage == 1 => {
                        stack.push((key, 2));
                        stack.push((operand, 0));
                    }
                    None => return Err(bug(format!("`{}`: operand not built", inst.name))),
                }
                continue;
            }
            if let Build::Reduce { .. } | Build::Dot { .. } = build_kind(&inst.kind) {
                let (f, requests) = self.begin_fold(ctx, &key)?;
                if !expanded {
                    stack.push((key, 1));
                    for r in requests {
                        if !self.walked.memo.contains_key(&r) {
                            stack.push((r, 0));
                        }
                    }
                    continue;
                }
                let id = self.finish_fold(ctx, &key, f, &requests)?;
                self.walked.memo.insert(key, id);
                continue;
            }
            if let Build::Map { to_apply } = build_kind(&inst.kind) {
                // Operands first; then the computation's root in a frame
                // whose parameters are the operands' values.
                let requests = self.map_requests(ctx, &key);
                if !expanded {
                    stack.push((key, 1));
                    for r in requests {
                        if !self.walked.memo.contains_key(&r) {
                            stack.push((r, 0));
                        }
                    }
                    continue;
                }
                let frame = match self.walked.frames_of.get(&key) {
                    Some(&f) => f,
                    None => {
                        let args: Vec<NodeId> =
                            requests.iter().map(|r| self.walked.memo[r]).collect();
                        if self.walked.frames.is_empty() {
                            self.walked.frames.push((None, vec![]));
                        }
                        self.walked.frames.push((key.scope, args));
                        let f = (self.walked.frames.len() - 1) as u32;
                        self.walked.frames_of.insert(key.clone(), f);
                        f
                    }
                };
                let root = Key {
                    scope: key.scope,
                    frame,
                    body: *to_apply,
                    inst: ctx.comp.body(*to_apply).root,
                    index: vec![],
                    guarded: key.guarded,
                };
                match self.walked.memo.get(&root) {
                    Some(&v) => {
                        self.walked.memo.insert(key, v);
                    }
                    None => {
                        stack.push((key, 1));
                        stack.push((root, 0));
                    }
                }
                continue;
            }
            let plan = self.plan(ctx, &key)?;
            if !expanded {
                stack.push((key.clone(), 1));
                for r in plan.requests {
                    if !self.walked.memo.contains_key(&r) {
                        stack.push((r, 0));
                    }
                }
                continue;
            }
            let operands: Vec<NodeId> = plan.requests.iter().map(|r| self.walked.memo[r]).collect();
            let id = self.combine(ctx, &key, plan.shape, &operands)?;
            self.walked.memo.insert(key, id);
        }
        Ok(self.walked.memo[&top])
    }

    /// Where the value of `key` is found without computing it: for the
    /// kernel's body, `ctx.source`; in a called body, a parameter of the
    /// fold's reducer (its slot) or a non-scalar constant's buffer.
    fn source(&self, ctx: &Ctx, key: &Key) -> Option<Source> {
        if key.body == ctx.body_id && key.frame == 0 {
            return (ctx.source)(key.inst);
        }
        // Only the leaves of a called body (its parameters and constants)
        // are found rather than computed.
        let kind = &ctx.comp.body(key.body).inst(key.inst).kind;
        if let OpKind::Parameter { number } = kind {
            if key.frame != 0 {
                self.walked
                    .frames
                    .get(key.frame as usize)
                    .and_then(|(_, args)| args.get(*number as usize))
                    .map(|&n| Source::Node(n))
            } else {
                let f = key.scope?;
                let slot = u16::try_from(*number).ok().filter(|&n| n < 2)?;
                (self.folds[f].combiner == Some(key.body)).then_some(Source::Var(slot))
            }
        } else if let OpKind::Constant { .. } = kind {
            ctx.called
                .get(&(key.body, key.inst))
                .map(|&b| Source::Buffer(b))
        } else {
            None
        }
    }

    fn source_node(&mut self, src: Source, inst: &Instruction, key: &Key) -> Result<NodeId> {
        let shape = &inst.shape;
        let ty = shape.element_type();
        Ok(match src {
            Source::Var(slot) => self.put(key.scope, Node::Var { ty, slot }),
            Source::Node(n) if key.frame != 0 => {
                // A mapped computation's argument, built in the map's scope.
                match self.walked.frames.get(key.frame as usize) {
                    Some((scope, _)) if *scope == key.scope => n,
                    _ => {
                        return Err(bug(format!(
                            "`{}`, an argument of a mapped computation, is read in another scope",
                            inst.name
                        )));
                    }
                }
            }
            Source::Node(n) if key.scope.is_none() => n,
            Source::Node(_) => {
                return Err(bug(format!(
                    "`{}`, bound by the kernel, is read inside a fold",
                    inst.name
                )));
            }
            Source::Buffer(buf) => {
                let numel = shape.element_count();
                if numel == 0 {
                    // Only reachable under a guard that is always false.
                    return Ok(self.put(key.scope, Node::Const { ty, bits: 0 }));
                }
                let strides = row_major_strides(shape.dims());
                let mut offset = Ix::constant(0);
                for (ix, s) in key.index.iter().zip(&strides) {
                    offset = offset.add(&ix.scale(*s));
                }
                self.put(
                    key.scope,
                    Node::Load {
                        buf,
                        ty,
                        offset,
                        numel,
                        clamp: key.guarded,
                    },
                )
            }
        })
    }

    /// The node of fold `f`'s body that reads node `v` of the enclosing
    /// scope: `v` itself when it is a constant, else a capture.
    fn capture(&mut self, f: FoldId, v: NodeId) -> NodeId {
        let parent = self.folds[f].parent;
        let node = &self.scope_nodes(parent)[v];
        if let Node::Const { .. } = node {
            let node = node.clone();
            return self.put(Some(f), node);
        }
        let ty = node.ty();
        let captures = &mut self.folds[f].captures;
        let slot = match captures.iter().position(|&c| c == v) {
            Some(k) => k,
            None => {
                captures.push(v);
                captures.len() - 1
            }
        };
        self.put(
            Some(f),
            Node::Capture {
                ty,
                slot: slot as u32,
            },
        )
    }

    /// A fresh loop variable of extent `n`.
    fn fresh_var(&mut self, n: i64) -> LoopVar {
        self.var_extents.push(n)
    }

    /// Starts (once per request) the fold computing the `reduce` or `dot`
    /// of `key`: allocates its scope and loop variables and says what it
    /// needs built: a reduce's init (in the enclosing scope), its operand
    /// at the fold's index and its reducer's root (in the fold's scope); a
    /// dot's two operands at the fold's index.
    fn begin_fold(&mut self, ctx: &Ctx, key: &Key) -> Result<(FoldId, Vec<Key>)> {
        if let Some((f, requests)) = self.walked.begun.get(key) {
            return Ok((*f, requests.clone()));
        }
        let body = ctx.comp.body(key.body);
        let inst = body.inst(key.inst);
        let depth = key.scope.map_or(0, |p| self.folds[p].depth + 1);
        if depth >= MAX_FOLD_DEPTH {
            return Err(Error::JitFoldDepth {
                instruction: inst.name.clone(),
                op: inst.kind.opcode_name().to_string(),
                depth,
                bound: MAX_FOLD_DEPTH,
            });
        }
        let f = FoldId::new(self.folds.len());
        let at = |i: usize| key.index.get(i).cloned().unwrap_or(Ix::constant(0));
        let in_fold = |inst: InstId, index: Vec<Ix>| Key {
            scope: Some(f),
            frame: key.frame,
            body: key.body,
            inst,
            index,
            guarded: key.guarded,
        };
        let mut vars = Vec::new();
        let (requests, combiner) = match build_kind(&inst.kind) {
            Build::Reduce {
                dimensions,
                to_apply,
            } => {
                // Kept dims read the result's index in order; reduced ones
                // are the fold's variables, ascending (row-major order).
                let x = inst.operands[0];
                let mut index = Vec::new();
                let mut kept = 0;
                for (d, &n) in body.inst(x).shape.dims().iter().enumerate() {
                    if !dimensions.contains(&(d as i64)) {
                        index.push(at(kept));
                        kept += 1;
                    } else if n == 1 {
                        index.push(Ix::constant(0));
                    } else {
                        let v = self.fresh_var(n);
                        vars.push((v, n));
                        index.push(Ix::var(v));
                    }
                }
                let init = Key {
                    scope: key.scope,
                    frame: key.frame,
                    body: key.body,
                    inst: inst.operands[1],
                    index: vec![],
                    guarded: key.guarded,
                };
                // The reducer's parameters are the fold's slots, whatever
                // frame the reduce is in (a mapped computation's reduce
                // folds with a reducer of its own): frame 0.
                let root = Key {
                    scope: Some(f),
                    frame: 0,
                    body: *to_apply,
                    inst: ctx.comp.body(*to_apply).root,
                    index: vec![],
                    guarded: key.guarded,
                };
                (vec![init, in_fold(x, index), root], Some(*to_apply))
            }
            Build::Dot { dims } => {
                // Result dims: batch, lhs free, rhs free; the contracting
                // dims are the fold's variables in the order listed.
                let (l, r) = (inst.operands[0], inst.operands[1]);
                let ldims = body.inst(l).shape.dims();
                let rdims = body.inst(r).shape.dims();
                let free = |rank: usize, batch: &[i64], contracting: &[i64]| -> Vec<usize> {
                    (0..rank)
                        .filter(|&d| {
                            !batch.contains(&(d as i64)) && !contracting.contains(&(d as i64))
                        })
                        .collect()
                };
                let lfree = free(ldims.len(), &dims.lhs_batch, &dims.lhs_contracting);
                let rfree = free(rdims.len(), &dims.rhs_batch, &dims.rhs_contracting);
                let mut li = vec![Ix::constant(0); ldims.len()];
                let mut ri = vec![Ix::constant(0); rdims.len()];
                // (A verified dot names dims in range; `get_mut` keeps a
                // malformed one from panicking.)
                let set = |v: &mut Vec<Ix>, d: usize, ix: Ix| {
                    if let Some(slot) = v.get_mut(d) {
                        *slot = ix;
                    }
                };
                let nb = dims.lhs_batch.len();
                for (i, (&lb, &rb)) in dims.lhs_batch.iter().zip(&dims.rhs_batch).enumerate() {
                    set(&mut li, lb as usize, at(i));
                    set(&mut ri, rb as usize, at(i));
                }
                for (j, &d) in lfree.iter().enumerate() {
                    set(&mut li, d, at(nb + j));
                }
                for (j, &d) in rfree.iter().enumerate() {
                    set(&mut ri, d, at(nb + lfree.len() + j));
                }
                for (&lc, &rc) in dims.lhs_contracting.iter().zip(&dims.rhs_contracting) {
                    let n = ldims.get(lc as usize).copied().unwrap_or(1);
                    let ix = if n == 1 {
                        Ix::constant(0)
                    } else {
                        let v = self.fresh_var(n);
                        vars.push((v, n));
                        Ix::var(v)
                    };
                    set(&mut li, lc as usize, ix.clone());
                    set(&mut ri, rc as usize, ix);
                }
                (vec![in_fold(l, li), in_fold(r, ri)], None)
            }
            Build::Gather { .. } | Build::DynamicSlice { .. } | Build::Map { .. } | Build::Plan => {
                return Err(bug(format!("`{}` is not a reduce or dot", inst.name)));
            }
        };
        self.folds.push(Fold {
            vars,
            nodes: IdVec::new(),
            element: NodeId::new(0),
            combine: NodeId::new(0),
            dedup: HashMap::new(),
            parent: key.scope,
            depth,
            owner: key.body,
            combiner,
            captures: Vec::new(),
        });
        self.walked.begun.insert(key.clone(), (f, requests.clone()));
        Ok((f, requests))
    }

    /// The fold node of `key` once everything [`Graph::begin_fold`] asked
    /// for is built.
    fn finish_fold(&mut self, ctx: &Ctx, key: &Key, f: FoldId, requests: &[Key]) -> Result<NodeId> {
        let inst = ctx.comp.body(key.body).inst(key.inst);
        let ty = inst.shape.element_type();
        let built = |k: usize| -> Result<NodeId> {
            requests
                .get(k)
                .and_then(|r| self.walked.memo.get(r).copied())
                .ok_or_else(|| bug(format!("fold of `{}` is missing an operand", inst.name)))
        };
        let (init, element, combine) = if let OpKind::DotGeneral { .. } = inst.kind {
            // acc + lhs * rhs from zero, as the interpreter adds them.
            let (l, r) = (built(0)?, built(1)?);
            let s = Some(f);
            let element = self.put(
                s,
                Node::Binary {
                    op: BinaryOp::Mul,
                    ty,
                    a: l,
                    b: r,
                },
            );
            let acc = self.put(s, Node::Var { ty, slot: 0 });
            let x = self.put(s, Node::Var { ty, slot: 1 });
            let combine = self.put(
                s,
                Node::Binary {
                    op: BinaryOp::Add,
                    ty,
                    a: acc,
                    b: x,
                },
            );
            let init = self.put(key.scope, Node::Const { ty, bits: 0 });
            (init, element, combine)
        } else {
            (built(0)?, built(1)?, built(2)?)
        };
        let fold = &mut self.folds[f];
        fold.element = element;
        fold.combine = combine;
        let mut vars = Vec::new();
        for n in fold.nodes.values() {
            for ix in n.index_exprs() {
                ix.collect_vars(&mut vars);
            }
        }
        vars.retain(|v| !fold.vars.iter().any(|(w, _)| w == v));
        vars.sort_unstable();
        let node = Node::Fold {
            ty,
            fold: f,
            init,
            captures: fold.captures.clone(),
            reads: vars.into_iter().map(Ix::var).collect(),
        };
        Ok(self.put(key.scope, node))
    }
}

/// What building one instruction needs from its operands.
struct Plan {
    requests: Vec<Key>,
    shape: Shaped,
}

/// Extra data `combine` needs, decided with the requests.
enum Shaped {
    Plain,
    /// `concatenate`: for each requested operand but the last, the guard
    /// under which it is chosen.
    Concat(Vec<Vec<Cond>>),
    /// `pad`: the guard under which the operand is read (empty: always;
    /// `None`: never).
    Pad(Option<Vec<Cond>>),
}

impl Graph {
    /// The operands of the `map` of `key`, each at the map's index (a
    /// scalar operand at its one element).
    fn map_requests(&self, ctx: &Ctx, key: &Key) -> Vec<Key> {
        let body = ctx.comp.body(key.body);
        body.inst(key.inst)
            .operands
            .iter()
            .map(|&o| Key {
                inst: o,
                index: if body.inst(o).shape.is_scalar() {
                    vec![]
                } else {
                    key.index.clone()
                },
                ..key.clone()
            })
            .collect()
    }

    fn plan(&self, ctx: &Ctx, key: &Key) -> Result<Plan> {
        let body = ctx.comp.body(key.body);
        let inst = body.inst(key.inst);
        let idx = &key.index;
        let ext = &self.var_extents;
        let operand = |k: usize| body.inst(inst.operands[k]);
        let req = |k: usize, index: Vec<Ix>, g: bool| Key {
            scope: key.scope,
            frame: key.frame,
            body: key.body,
            inst: inst.operands[k],
            index,
            guarded: g,
        };
        let plain = |requests| Plan {
            requests,
            shape: Shaped::Plain,
        };
        let g = key.guarded;
        // The index of an elementwise operand: dimension i lines up with
        // result dimension map[i], size-1 dimensions read index 0.
        let elementwise = |k: usize, map: &dyn Fn(usize) -> usize| -> Vec<Ix> {
            let dims = operand(k).shape.dims();
            dims.iter()
                .enumerate()
                .map(|(i, &n)| {
                    if n == 1 {
                        Ix::constant(0)
                    } else {
                        idx[map(i)].clone()
                    }
                })
                .collect()
        };
        Ok(match &inst.kind {
            // Built by `begin_fold`/`finish_fold` instead.
            OpKind::Reduce { .. } | OpKind::DotGeneral { .. } => {
                return Err(bug(format!("`{}` is a fold, not a plan", inst.name)));
            }
            // Built by `walk` in a frame of its own.
            OpKind::Map { .. } => {
                return Err(bug(format!("`{}` is a map, not a plan", inst.name)));
            }
            // In a called body (the kernel's own body has them
            // materialised): the array the element or barrier names.
            OpKind::GetTupleElement { .. } | OpKind::OptimizationBarrier => {
                let target = crate::fusion::tuples::value_trees(body)[key.inst.index()].leaf();
                match target {
                    Some(crate::fusion::tuples::Sym::Inst(r)) if r != key.inst => Plan {
                        requests: vec![Key {
                            inst: r,
                            ..key.clone()
                        }],
                        shape: Shaped::Plain,
                    },
                    _ => {
                        return Err(bug(format!("`{}` names no array of its body", inst.name)));
                    }
                }
            }
            // Refused before planning (see `unsupported`).
            OpKind::While { .. }
            | OpKind::Conditional { .. }
            | OpKind::Sort { .. }
            | OpKind::TopK { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
            | OpKind::CustomCall(_)
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. }
            | OpKind::Complex
            | OpKind::Real
            | OpKind::Imag
            | OpKind::Fft { .. } => {
                return Err(bug(format!(
                    "`{}` is not compiled (refused before planning)",
                    inst.name
                )));
            }
            // Steps of their own: always materialised, read as loads.
            OpKind::Convolution { .. }
            | OpKind::ReduceWindow { .. }
            | OpKind::SelectAndScatter { .. }
            | OpKind::Scatter { .. }
            | OpKind::DynamicUpdateSlice => {
                return Err(bug(format!(
                    "`{}` ({}) has a step of its own; it is read from its buffer",
                    inst.name,
                    inst.kind.opcode_name()
                )));
            }
            // Built by the walk's index stages (`dynamic.rs`).
            OpKind::Gather { .. } | OpKind::DynamicSlice { .. } => {
                return Err(bug(format!("`{}` is an index map, not a plan", inst.name)));
            }
            OpKind::Parameter { .. } | OpKind::Tuple => {
                return Err(bug(format!(
                    "`{}` ({}) must be materialised before it is read in a fused kernel",
                    inst.name,
                    inst.kind.opcode_name()
                )));
            }
            OpKind::Constant { .. } | OpKind::Iota { .. } => plain(vec![]),
            OpKind::Unary(_)
            | OpKind::Convert
            | OpKind::BitcastConvert
            | OpKind::ReducePrecision { .. } => plain(vec![req(0, idx.clone(), g)]),
            OpKind::Select | OpKind::Clamp => plain(
                (0..3)
                    .map(|k| {
                        let index = if operand(k).shape.is_scalar() {
                            vec![]
                        } else {
                            elementwise(k, &|i| i)
                        };
                        req(k, index, g)
                    })
                    .collect(),
            ),
            OpKind::Binary {
                broadcast_dimensions,
                ..
            } => {
                let rank = inst.shape.rank();
                let requests = (0..2)
                    .map(|k| {
                        let r = operand(k).shape.rank();
                        let index = if r == rank {
                            elementwise(k, &|i| i)
                        } else if r == 0 {
                            vec![]
                        } else {
                            elementwise(k, &|i| broadcast_dimensions[i] as usize)
                        };
                        req(k, index, g)
                    })
                    .collect();
                plain(requests)
            }
            OpKind::Broadcast { dimensions } => {
                plain(vec![req(0, elementwise(0, &|i| dimensions[i] as usize), g)])
            }
            OpKind::Reshape | OpKind::Bitcast => {
                let out_strides = row_major_strides(inst.shape.dims());
                let mut linear = Ix::constant(0);
                for (ix, s) in idx.iter().zip(&out_strides) {
                    linear = linear.add(&ix.scale(*s));
                }
                let dims = operand(0).shape.dims();
                plain(vec![req(0, delinearise(&linear, dims, ext), g)])
            }
            OpKind::Transpose { permutation } => {
                let mut index = vec![Ix::constant(0); idx.len()];
                for (k, &p) in permutation.iter().enumerate() {
                    index[p as usize] = idx[k].clone();
                }
                plain(vec![req(0, index, g)])
            }
            OpKind::Slice {
                starts, strides, ..
            } => {
                let index = idx
                    .iter()
                    .enumerate()
                    .map(|(d, ix)| ix.scale(strides[d]).add_constant(starts[d]))
                    .collect();
                plain(vec![req(0, index, g)])
            }
            OpKind::Reverse { dimensions } => {
                let dims = operand(0).shape.dims();
                let index = idx
                    .iter()
                    .enumerate()
                    .map(|(d, ix)| {
                        if dimensions.contains(&(d as i64)) {
                            ix.scale(-1).add_constant(dims[d] - 1)
                        } else {
                            ix.clone()
                        }
                    })
                    .collect();
                plain(vec![req(0, index, g)])
            }
            OpKind::Concatenate { dimension } => {
                let d = *dimension as usize;
                let (lo, hi) = idx[d].range(ext);
                let mut offset = 0i64;
                let mut parts = Vec::new();
                for k in 0..inst.operands.len() {
                    let n = operand(k).shape.dims()[d];
                    if n > 0 && (offset as i128) <= hi && ((offset + n) as i128) > lo {
                        parts.push((k, offset, n));
                    }
                    offset += n;
                }
                let single = parts.len() == 1;
                let mut requests = Vec::new();
                let mut guards = Vec::new();
                for (j, &(k, off, n)) in parts.iter().enumerate() {
                    let mut index = idx.clone();
                    index[d] = idx[d].add_constant(-off);
                    requests.push(req(k, index, g || !single));
                    if j + 1 < parts.len() {
                        guards.push(vec![Cond::Range {
                            ix: idx[d].clone(),
                            lo: off,
                            hi: off + n,
                        }]);
                    }
                }
                Plan {
                    requests,
                    shape: Shaped::Concat(guards),
                }
            }
            OpKind::Pad { config } => {
                let dims = operand(0).shape.dims();
                let mut conds = Vec::new();
                let mut never = false;
                let mut index = Vec::with_capacity(dims.len());
                for (dim, p) in config.iter().enumerate() {
                    let n = dims[dim];
                    let t = idx[dim].add_constant(p.lo.wrapping_neg());
                    let s = p.interior.saturating_add(1);
                    let span = (n - 1).max(0) as i128 * s as i128 + 1;
                    let (tlo, thi) = t.range(ext);
                    if n == 0 || thi < 0 || tlo >= span {
                        never = true;
                    } else if tlo < 0 || thi >= span {
                        conds.push(Cond::Range {
                            ix: t.clone(),
                            lo: 0,
                            hi: span as i64,
                        });
                    }
                    if s > 1 {
                        let m = t.modulo(s, ext);
                        match m.as_constant() {
                            Some(0) => {}
                            Some(_) => never = true,
                            None => conds.push(Cond::Divisible {
                                ix: t.clone(),
                                d: s,
                            }),
                        }
                        index.push(t.div(s, ext));
                    } else {
                        index.push(t);
                    }
                }
                let pad_value = req(1, vec![], g);
                if never {
                    Plan {
                        requests: vec![pad_value],
                        shape: Shaped::Pad(None),
                    }
                } else {
                    let guarded_read = g || !conds.is_empty();
                    Plan {
                        requests: vec![req(0, index, guarded_read), pad_value],
                        shape: Shaped::Pad(Some(conds)),
                    }
                }
            }
        })
    }

    fn combine(&mut self, ctx: &Ctx, key: &Key, shaped: Shaped, ops: &[NodeId]) -> Result<NodeId> {
        let body = ctx.comp.body(key.body);
        let inst = body.inst(key.inst);
        let ty = inst.shape.element_type();
        let operand_ty = |k: usize| body.inst(inst.operands[k]).shape.element_type();
        let s = key.scope;
        Ok(match &inst.kind {
            OpKind::Constant { literal } => match scalar_bits(literal) {
                Some(bits) if inst.shape.is_scalar() => self.put(s, Node::Const { ty, bits }),
                _ => {
                    return Err(bug(format!(
                        "constant `{}` {} has no buffer",
                        inst.name, inst.shape
                    )));
                }
            },
            OpKind::Iota { dimension } => self.put(
                s,
                Node::Iota {
                    ty,
                    index: key.index[*dimension as usize].clone(),
                },
            ),
            OpKind::Unary(op) => self.put(
                s,
                Node::Unary {
                    op: *op,
                    ty: operand_ty(0),
                    x: ops[0],
                },
            ),
            OpKind::Binary { op, .. } => self.put(
                s,
                Node::Binary {
                    op: *op,
                    ty: operand_ty(0),
                    a: ops[0],
                    b: ops[1],
                },
            ),
            OpKind::Convert => {
                let from = operand_ty(0);
                if from == ty {
                    ops[0]
                } else {
                    self.put(
                        s,
                        Node::Convert {
                            from,
                            to: ty,
                            x: ops[0],
                        },
                    )
                }
            }
            OpKind::Select => self.put(
                s,
                Node::Select {
                    ty,
                    p: ops[0],
                    a: ops[1],
                    b: ops[2],
                },
            ),
            OpKind::Clamp => self.put(
                s,
                Node::Clamp {
                    ty,
                    lo: ops[0],
                    x: ops[1],
                    hi: ops[2],
                },
            ),
            OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Bitcast
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Reverse { .. } => ops[0],
            // The misc family's elementwise ops (`graph/misc.rs`).
            OpKind::BitcastConvert => self.bitcast(s, operand_ty(0), ty, ops[0])?,
            OpKind::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => self.reduce_precision(s, ty, *exponent_bits, *mantissa_bits, ops[0])?,
            OpKind::Concatenate { .. } => {
                let Shaped::Concat(guards) = shaped else {
                    return Err(bug("concatenate planned without guards"));
                };
                let mut value = *ops
                    .last()
                    .ok_or_else(|| bug(format!("concatenate `{}` reads no operand", inst.name)))?;
                for (j, conds) in guards.into_iter().enumerate().rev() {
                    let p = self.put(s, Node::InBounds { conds });
                    value = self.put(
                        s,
                        Node::Select {
                            ty,
                            p,
                            a: ops[j],
                            b: value,
                        },
                    );
                }
                value
            }
            OpKind::Pad { .. } => match shaped {
                Shaped::Pad(None) => ops[0],
                Shaped::Pad(Some(conds)) if conds.is_empty() => ops[0],
                Shaped::Pad(Some(conds)) => {
                    let p = self.put(s, Node::InBounds { conds });
                    self.put(
                        s,
                        Node::Select {
                            ty,
                            p,
                            a: ops[0],
                            b: ops[1],
                        },
                    )
                }
                _ => return Err(bug("pad planned without guards")),
            },
            OpKind::Reduce { .. } | OpKind::DotGeneral { .. } => {
                return Err(bug(format!("`{}` is a fold, not a plan", inst.name)));
            }
            OpKind::Map { .. } => {
                return Err(bug(format!("`{}` is a map, not a plan", inst.name)));
            }
            OpKind::GetTupleElement { .. } | OpKind::OptimizationBarrier => ops[0],
            // Refused before planning (see `unsupported`).
            OpKind::While { .. }
            | OpKind::Conditional { .. }
            | OpKind::Sort { .. }
            | OpKind::TopK { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
            | OpKind::CustomCall(_)
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. } => {
                return Err(bug(format!(
                    "`{}` is not compiled (refused before planning)",
                    inst.name
                )));
            }
            OpKind::Parameter { .. }
            | OpKind::Tuple
            | OpKind::Convolution { .. }
            | OpKind::ReduceWindow { .. }
            | OpKind::SelectAndScatter { .. }
            | OpKind::Scatter { .. }
            | OpKind::DynamicUpdateSlice => {
                return Err(bug(format!(
                    "`{}` cannot be computed inside a fused kernel",
                    inst.name
                )));
            }
            // Refused by `compile` before planning (not compiled yet).
            OpKind::Complex | OpKind::Real | OpKind::Imag | OpKind::Fft { .. } => {
                return Err(bug(format!(
                    "the JIT does not compile `{}` (`{}`)",
                    inst.kind.opcode_name(),
                    inst.name
                )));
            }
            OpKind::Gather { .. } | OpKind::DynamicSlice { .. } => {
                return Err(bug(format!("`{}` is an index map, not a plan", inst.name)));
            }
        })
    }
}
