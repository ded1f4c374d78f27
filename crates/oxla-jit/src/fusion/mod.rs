//! Fusion: which values get a buffer, and which kernel computes each one.
//!
//! An instruction of the entry body is *materialised* (gets a buffer) when
//! it is
//! - a parameter or a non-scalar constant (the buffer is the argument's or
//!   the executable's own),
//! - a `reduce` or a `dot` (a kernel of its own kind computes it),
//! - a leaf of the result (the root, or the elements of a tuple root),
//! - read by several uses while its fused expression is costly to
//!   recompute (cost above [`SHARED_COST`]; a transcendental op costs
//!   [`EXPENSIVE`], other ops 1), or big enough to keep kernels small
//!   ([`MAX_COST`]),
//! - costly and read through a broadcast that repeats each of its elements
//!   (so the transcendental is not recomputed per repetition).
//!
//! Everything else is recomputed inside each kernel that reads it: cheap
//! elementwise chains, broadcasts, reshapes, transposes, slices, reverses,
//! pads and concatenates fuse into their consumers as index maps. Each
//! materialised instruction that is not an input becomes one [`Step`]: a
//! loop kernel over its shape, a reduce kernel whose input expression is
//! fused, or a dot.
//!
//! A run of steps that walk the same rows (a reduce over the innermost
//! dims, then reduces and loops over the same space that read its result
//! back at their own row) then becomes one *row group* step
//! ([`StepKind::RowGroup`], decided in `row_groups.rs`, which asks the
//! index analysis where each pass reads): one kernel whose outer loops
//! walk the rows and which runs the steps as passes over each row. So
//! softmax (max-reduce, subtract, exp, sum-reduce, divide) is one kernel
//! reading each row from memory once, with `exp` computed once and kept in
//! the output row between the sum and the division. A run of loop steps
//! over one shape that read each other only at their own element becomes
//! one *loop group* step ([`StepKind::LoopGroup`], `loop_groups.rs`): one
//! kernel computing every member at once (threefry's rounds).
//!
//! The plan is the fusion stage's whole output: lowering turns every step
//! of it into kernels and refuses none (`verify::check_plan` checks its
//! invariants: every output and temporary buffer written by exactly one
//! step, before any step reads it).

use std::collections::HashMap;
use std::fmt::Write;

use oxla_ir::{
    Body, Computation, ComputationId, DotDimensionNumbers, ElementType, InstId, Literal, OpKind,
    Result, Shape, printer::instruction_text, shape::row_major_strides,
};

use crate::entity::{BufferId, IdVec, ParamId};

mod control;
pub(crate) mod conv;
pub(crate) mod loop_groups;
mod ops;
mod row_groups;
mod sort;
pub(crate) mod tuples;

pub(crate) use control::{CondStep, InitLeaf, Region, Regions, Role, WhileStep};
pub(crate) use ops::OpStep;
pub(crate) use row_groups::{RowSpace, pass_source};
pub(crate) use sort::{SortHow, SortKey, SortStep};
use tuples::Sym;

/// Cost of a transcendental op in the recompute heuristic (the op table's
/// weight for [`oxla_ir::Cost::Transcendental`]).
pub(crate) const EXPENSIVE: u64 = oxla_ir::Cost::Transcendental.weight();
/// A value used more than once is materialised above this cost.
pub(crate) const SHARED_COST: u64 = 2 * EXPENSIVE;
/// Any value is materialised above this cost (keeps kernels small).
pub(crate) const MAX_COST: u64 = 400;

/// What a buffer holds.
#[derive(Clone, Debug)]
pub(crate) enum BufferKind {
    /// Argument `n`.
    Param(ParamId),
    /// A constant owned by the executable.
    Constant(Literal),
    /// An intermediate, allocated per run.
    Temp,
    /// Result leaf `n` (in tuple order).
    Output(usize),
}

/// One buffer of an executable.
#[derive(Clone, Debug)]
pub(crate) struct Buffer {
    pub(crate) kind: BufferKind,
    pub(crate) shape: Shape,
    /// The instruction it holds (for the debug text).
    pub(crate) name: String,
}

/// How a dot reads one operand: element `(b, r, c)` of the canonical
/// `[batch, rows, cols]` view is at `b*strides[0] + r*strides[1] +
/// c*strides[2]` in buffer `buf`.
#[derive(Clone, Debug)]
pub(crate) struct DotInput {
    pub(crate) buf: BufferId,
    pub(crate) strides: [i64; 3],
}

/// Canonical sizes of a dot: `[batch, m, k] x [batch, k, n]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DotSizes {
    pub(crate) batch: i64,
    pub(crate) m: i64,
    pub(crate) k: i64,
    pub(crate) n: i64,
}

/// What a step computes.
#[derive(Clone, Debug)]
pub(crate) enum StepKind {
    /// `out[i] = root(i)` over the root's shape.
    Loop { root: InstId },
    /// The result of a `reduce`, its input expression fused.
    Reduce { inst: InstId },
    /// Copies `source` into the canonical `[batch, rows, cols]` order of a
    /// dot operand (`groups` lists the source dimensions of each of the
    /// three canonical dimensions, in order), converted to `ty`, the type
    /// the dot computes in (a mixed-type dot's operand is widened here,
    /// once per element, not once per product).
    DotCopy {
        source: InstId,
        groups: [Vec<usize>; 3],
        ty: ElementType,
    },
    /// `dot_general` on canonical operands.
    Dot {
        inst: InstId,
        lhs: DotInput,
        rhs: DotInput,
        sizes: DotSizes,
    },
    /// A *row group*: reduces over the innermost dimensions of a row space
    /// and the loops over that space that read them back (softmax, layer
    /// norm), as one kernel whose outer loops walk the rows and which runs
    /// each member (a `Reduce` or `Loop` step) as a pass over the row,
    /// in order. A reduce's result is read by later passes only at the
    /// current row, so each row is finished by one thread before the next
    /// pass reads it, from cache.
    RowGroup {
        /// The space the passes iterate.
        space: RowSpace,
        passes: Vec<Step>,
        /// A costly value computed by one pass, stored into the last
        /// pass's output row and loaded from there by later passes.
        keep: Option<KeepPlan>,
    },
    /// A *loop group*: consecutive `Loop` steps over one shape, each
    /// reading the others only at the element it computes (threefry's
    /// rounds), as one kernel that computes every member's value once per
    /// element and stores each into its buffer (`loop_groups.rs`).
    LoopGroup { members: Vec<Step> },
    /// A `reduce` of several inputs (or with a tuple-returning reducer):
    /// one kernel folding every input at once, writing one buffer per
    /// input (`outs`, in result order; the step's `out` is the first).
    MultiReduce { inst: InstId, outs: Vec<BufferId> },
    /// A `while` loop: its state buffers, how they start, and the regions
    /// of its condition and body (see `control.rs`).
    While(Box<WhileStep>),
    /// A `conditional`: its selector, its output buffers, and each
    /// branch's region and operand buffers (see `control.rs`).
    Conditional(Box<CondStep>),
    /// A step of an indexing or windowed op (`ops.rs`).
    Op(OpStep),
    /// A `sort` or `topk`: every operand in a buffer, one output buffer
    /// per result array that is read (see `sort.rs`).
    Sort(Box<SortStep>),
    /// The key kernel of a sort by keys: `out[i]` is the comparator's key
    /// expression `expr` (its `a` side) with `a_k` read from `inputs[k]`
    /// at `i`.
    SortKey {
        sort: InstId,
        comparator: ComputationId,
        expr: InstId,
        inputs: Vec<BufferId>,
    },
}

/// The value a row group keeps between passes (see [`StepKind::RowGroup`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeepPlan {
    /// The instruction kept (fused into several passes).
    pub(crate) inst: InstId,
    /// The pass that computes and stores it.
    pub(crate) from: usize,
    /// Where it is stored: the output buffer of the last pass, which that
    /// pass overwrites element by element after reading it.
    pub(crate) buf: BufferId,
}

/// One kernel launch.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub(crate) kind: StepKind,
    /// The buffer written.
    pub(crate) out: BufferId,
    /// The instructions fused into this kernel (not materialised), in
    /// body order.
    pub(crate) fused: Vec<InstId>,
}

/// Where one leaf of the result comes from.
#[derive(Clone, Debug)]
pub(crate) enum Leaf {
    /// An output buffer the kernels write.
    Buffer(BufferId),
    /// A copy of argument `n`.
    Param(ParamId),
    /// A copy of a constant.
    Constant(Literal),
    /// A copy of an earlier leaf's buffer.
    Duplicate(BufferId),
}

/// The shape of the result: an array leaf or a tuple.
#[derive(Clone, Debug)]
pub(crate) enum OutputTree {
    Leaf(Leaf),
    Tuple(Vec<OutputTree>),
}

/// The schedule of one region (the entry body, or a loop's or branch's
/// body; see `control.rs`): its buffers, its steps, and where each leaf
/// of its result comes from. Its parameters are the leaves of the body's
/// parameters, flattened in order ([`ParamId`] is the flat leaf index).
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) buffers: IdVec<BufferId, Buffer>,
    pub(crate) steps: Vec<Step>,
    pub(crate) output: OutputTree,
    /// The buffer of each materialised array instruction of the body (an
    /// element of a tuple, or a barrier, has the buffer of the array it
    /// names).
    pub(crate) materialised: HashMap<InstId, BufferId>,
    /// Buffers of non-scalar constants inside called bodies.
    pub(crate) called_constants: HashMap<(ComputationId, InstId), BufferId>,
    /// In a loop body: the state leaves updated in place. Each entry is a
    /// parameter buffer and the value (computed by one step of the body)
    /// that step writes over it; the result leaf of that parameter then
    /// is the parameter itself (see `control.rs`).
    pub(crate) updates: Vec<(BufferId, Sym)>,
}

pub(crate) fn op_cost(kind: &OpKind) -> u64 {
    kind.opcode().cost().weight()
}

/// What the plan makes of an op: the one place fusion decides, per op,
/// whether it gets a buffer and which kind of step computes it. Every op
/// is listed, so a new op is a compile error here; the data the planning
/// of a step needs is carried along.
#[derive(Clone, Copy, Debug)]
pub(crate) enum StepClass<'a> {
    /// A parameter: the argument's buffer (its parts for a tuple).
    Param,
    /// A constant: the executable's own buffer unless it is a scalar
    /// (then fused into each reader).
    Constant,
    /// Passes values through (a tuple, an element of one, a barrier): no
    /// buffer of its own (see `tuples.rs`).
    Alias,
    /// A `while` loop: a control step with a buffer per leaf.
    While {
        /// The condition.
        condition: &'a ComputationId,
        /// The body.
        body: &'a ComputationId,
    },
    /// A `conditional`: a control step with a buffer per leaf.
    Branch {
        /// The branches.
        branches: &'a [ComputationId],
    },
    /// A `sort`: sort steps over materialised operands.
    Sort {
        /// The dimension sorted along.
        dimension: &'a i64,
        /// The comparator.
        to_apply: &'a ComputationId,
    },
    /// A `top-k`: a sort step over a materialised operand.
    TopK {
        /// How many per row.
        k: &'a i64,
        /// The largest or the smallest.
        largest: &'a bool,
    },
    /// A `reduce`: a reduce step (a multi-reduce for a tuple).
    Reduce,
    /// A `dot`: a dot step.
    Dot {
        /// Batch and contracting dimensions.
        dims: &'a DotDimensionNumbers,
    },
    /// An op with a step family of its own (`ops.rs`): always materialised.
    Family(ops::OpFamily),
    /// Everything else: an element-wise or index-map op, fused into its
    /// readers, or a loop step when materialised.
    Fused,
}

/// The [`StepClass`] of `kind`.
pub(crate) fn step_class(kind: &OpKind) -> StepClass<'_> {
    match kind {
        OpKind::Parameter { .. } => StepClass::Param,
        OpKind::Constant { .. } => StepClass::Constant,
        OpKind::Tuple | OpKind::GetTupleElement { .. } | OpKind::OptimizationBarrier => {
            StepClass::Alias
        }
        OpKind::While { condition, body } => StepClass::While { condition, body },
        OpKind::Conditional { branches } => StepClass::Branch { branches },
        OpKind::Sort {
            dimension,
            to_apply,
            ..
        } => StepClass::Sort {
            dimension,
            to_apply,
        },
        OpKind::TopK { k, largest } => StepClass::TopK { k, largest },
        OpKind::Reduce { .. } => StepClass::Reduce,
        OpKind::DotGeneral { dims } => StepClass::Dot { dims },
        OpKind::DynamicUpdateSlice => StepClass::Family(ops::OpFamily::UpdateSlice),
        OpKind::Scatter { .. } => StepClass::Family(ops::OpFamily::Scatter),
        OpKind::SelectAndScatter { .. } => StepClass::Family(ops::OpFamily::SelectAndScatter),
        OpKind::ReduceWindow { .. } => StepClass::Family(ops::OpFamily::ReduceWindow),
        OpKind::Convolution { .. } => StepClass::Family(ops::OpFamily::Convolution),
        OpKind::Iota { .. }
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
        | OpKind::Map { .. }
        | OpKind::Gather { .. }
        | OpKind::DynamicSlice { .. }
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
        | OpKind::RaggedDot { .. }
        | OpKind::Complex
        | OpKind::Real
        | OpKind::Imag
        | OpKind::Fft { .. } => StepClass::Fused,
    }
}

/// `true` if reading `operand` (operand slot `k`) of `user` repeats its
/// elements (a broadcast in disguise).
fn repeats(body: &Body, user: InstId, k: usize) -> bool {
    let u = body.inst(user);
    let o = body.inst(u.operands[k]);
    match &u.kind {
        OpKind::Broadcast { .. }
        | OpKind::Binary { .. }
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Pad { .. } => u.shape.element_count() > o.shape.element_count(),
        OpKind::Gather { .. } | OpKind::DynamicSlice { .. } => {
            k == 0 && u.shape.element_count() > o.shape.element_count()
        }
        OpKind::Convolution { window, .. }
        | OpKind::ReduceWindow { window, .. }
        | OpKind::SelectAndScatter { window, .. } => {
            window.dimensions.iter().map(|d| d.size).product::<i64>() > 1
        }
        // Each element read at most once per output element (or read by
        // a step of its own).
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Concatenate { .. }
        | OpKind::Reverse { .. }
        | OpKind::Reduce { .. }
        | OpKind::DotGeneral { .. }
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Map { .. }
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
        | OpKind::RaggedDot { .. } => false,
    }
}

impl Plan {
    /// Partitions the entry body of `comp` into buffers and steps, row
    /// groups included, as a program's entry region (the regions of any
    /// loops and branches are planned and dropped: for tests of plans
    /// without control flow). Fails only if the index analysis of a
    /// row-group candidate does (a kernel past the node budget).
    #[cfg(test)]
    pub(crate) fn new(comp: &Computation) -> Result<Plan> {
        Plan::build(comp, Role::Entry, &mut Regions::new())
    }

    /// The plan of `comp`'s entry body run as `role`. The regions of its
    /// loops and branches are planned first and pushed onto `regions`.
    pub(crate) fn build(comp: &Computation, role: Role, regions: &mut Regions) -> Result<Plan> {
        let mark = regions.len();
        let (plan, grouped) = Plan::build_with(comp, role, regions, &[])?;
        if grouped.is_empty() {
            return Ok(plan);
        }
        // Loop-state leaves whose writer's loop group holds every later
        // reader of the old value are written in place: plan again with
        // them in place, and keep that plan only if the groups hold
        // (`control::grouped_update_ok`).
        regions.truncate(mark);
        let (forced, holds) = Plan::build_with(comp, role, regions, &grouped)?;
        if grouped.iter().all(|li| holds.contains(li)) {
            return Ok(forced);
        }
        regions.truncate(mark);
        Ok(Plan::build_with(comp, role, regions, &[])?.0)
    }

    /// [`Plan::build`] with the loop-body result leaves `forced` written
    /// in place; also returns the leaves a loop group could write in place
    /// (all of them, forced or not, whose group holds: see
    /// [`control::grouped_update_ok`]), or, when nothing is forced, those
    /// of them not in place yet.
    fn build_with(
        comp: &Computation,
        role: Role,
        regions: &mut Regions,
        forced: &[usize],
    ) -> Result<(Plan, Vec<usize>)> {
        let body = comp.entry();
        let n = body.instructions.len();
        let trees = tuples::value_trees(body);
        // Live instructions and their use counts.
        let mut live = vec![false; n];
        live[body.root.index()] = true;
        for i in (0..n).rev() {
            if live[i] {
                for o in &body.instructions[i].operands {
                    live[o.index()] = true;
                }
            }
        }
        let mut uses = vec![0usize; n];
        for (i, inst) in body.instructions.iter().enumerate() {
            if live[i] {
                for o in &inst.operands {
                    uses[o.index()] += 1;
                }
            }
        }
        // `mat`: has a buffer, or computes nothing itself (tuples, their
        // elements, barriers, loops and branches): never fused.
        let mut mat = vec![false; n];
        for (i, inst) in body.instructions.iter().enumerate() {
            mat[i] = match step_class(&inst.kind) {
                StepClass::Param
                | StepClass::Reduce
                | StepClass::Dot { .. }
                | StepClass::Family(_)
                | StepClass::Alias
                | StepClass::While { .. }
                | StepClass::Branch { .. }
                | StepClass::Sort { .. }
                | StepClass::TopK { .. } => true,
                StepClass::Constant => !inst.shape.is_scalar(),
                StepClass::Fused => false,
            };
        }
        // Arrays read through an alias, a branch's operands and its
        // selector, and a sort's operands get buffers (a branch and a sort
        // read their operands from buffers).
        let force = |mat: &mut [bool], s: Sym| {
            if let Sym::Inst(r) = s {
                mat[r.index()] = true;
            }
        };
        for (i, inst) in body.instructions.iter().enumerate() {
            if !live[i] {
                continue;
            }
            match step_class(&inst.kind) {
                // A tuple's tree is never a leaf.
                StepClass::Alias => {
                    if let Some(s) = trees[i].leaf() {
                        force(&mut mat, s);
                    }
                }
                StepClass::Branch { .. } | StepClass::Sort { .. } | StepClass::TopK { .. } => {
                    for o in &inst.operands {
                        for s in trees[o.index()].flat() {
                            force(&mut mat, s);
                        }
                    }
                }
                StepClass::Param
                | StepClass::Constant
                | StepClass::While { .. }
                | StepClass::Reduce
                | StepClass::Dot { .. }
                | StepClass::Family(_)
                | StepClass::Fused => {}
            }
        }
        // Result leaves.
        let leaves: Vec<Sym> = trees[body.root.index()].flat();
        for &s in &leaves {
            force(&mut mat, s);
        }
        // Cost-based cuts, in definition order.
        let mut cost = vec![0u64; n];
        for i in 0..n {
            let inst = &body.instructions[i];
            if !live[i]
                || tuples::is_alias(&inst.kind)
                || tuples::produces_parts(&inst.kind, &inst.shape)
            {
                continue;
            }
            let c = op_cost(&inst.kind)
                + inst
                    .operands
                    .iter()
                    .map(|o| if mat[o.index()] { 0 } else { cost[o.index()] })
                    .sum::<u64>();
            cost[i] = c;
            if !mat[i] && (c > MAX_COST || (uses[i] >= 2 && c > SHARED_COST)) {
                mat[i] = true;
            }
        }
        // Costly values read through a repeating broadcast.
        for (u, inst) in body.instructions.iter().enumerate() {
            if !live[u] {
                continue;
            }
            for (k, o) in inst.operands.iter().enumerate() {
                let oi = o.index();
                if !mat[oi]
                    && cost[oi] >= EXPENSIVE
                    && !body.inst(*o).shape.is_scalar()
                    && repeats(body, InstId(u as u32), k)
                {
                    mat[oi] = true;
                }
            }
        }

        // Updates that write into their operand's buffer (`ops.rs`): never
        // an operand read through a tuple, an element of one, a barrier, a
        // loop or a branch (those reads are not steps' operands, so the
        // analysis would not see them).
        let leaf_insts: Vec<InstId> = leaves
            .iter()
            .filter_map(|s| match s {
                Sym::Inst(i) => Some(*i),
                Sym::Part(..) => None,
            })
            .collect();
        let mut alias = ops::in_place_updates(body, &live, &mat, &leaf_insts);
        alias.retain(|x, _| {
            let xi = body.inst(*x);
            !tuples::produces_parts(&xi.kind, &xi.shape)
                && !tuples::is_alias(&xi.kind)
                && body.instructions.iter().enumerate().all(|(u, inst)| {
                    !live[u]
                        || !inst.operands.contains(x)
                        || !(tuples::is_alias(&inst.kind)
                            || matches!(
                                inst.kind,
                                OpKind::While { .. } | OpKind::Conditional { .. }
                            ))
                })
        });
        let mut b = control::Buffers::new(
            body,
            Plan {
                buffers: IdVec::new(),
                steps: Vec::new(),
                output: OutputTree::Tuple(vec![]),
                materialised: HashMap::new(),
                called_constants: HashMap::new(),
                updates: Vec::new(),
            },
        );
        // Output buffers, in leaf order (inputs, constants and repeats are
        // copies; in a loop body, a state leaf may be updated in place).
        let mut leaf_kinds = Vec::with_capacity(leaves.len());
        for (li, &s) in leaves.iter().enumerate() {
            let leaf = if let Some(j) = b.param_leaf(s) {
                Leaf::Param(ParamId::new(j))
            } else if let Sym::Inst(c) = s
                && let OpKind::Constant { literal } = &body.inst(c).kind
            {
                Leaf::Constant(literal.clone())
            } else if let Some(buf) = b.buffer_of(s) {
                match b.plan.buffers[buf].kind {
                    BufferKind::Param(j) => Leaf::Param(j),
                    _ => Leaf::Duplicate(buf),
                }
            } else if role == Role::LoopBody
                && (forced.contains(&li)
                    || control::in_place_ok(body, &trees, &live, &mat, &leaves, li, s))
            {
                let buf = b.param_buffer(li);
                b.assign(s, buf);
                b.plan.updates.push((buf, s));
                Leaf::Param(ParamId::new(li))
            } else {
                let (shape, name) = b.sym_shape(s);
                let buf = b.plan.push(BufferKind::Output(li), &shape, &name);
                b.assign(s, buf);
                Leaf::Buffer(buf)
            };
            leaf_kinds.push(leaf);
        }
        let mut leaf_iter = leaf_kinds.into_iter();
        b.plan.output = output_tree(&body.root_inst().shape, &mut leaf_iter);
        // Inputs and intermediates in definition order: buffers of
        // materialised arrays and of every leaf of a loop, branch or
        // variadic reduce; elements of tuples and barriers alias the
        // buffer of the array they name.
        for i in 0..n {
            if !live[i] {
                continue;
            }
            let id = InstId(i as u32);
            let inst = body.inst(id);
            match step_class(&inst.kind) {
                StepClass::Param if !inst.shape.is_tuple() => {
                    b.buffer_or_param(Sym::Inst(id));
                }
                StepClass::Param => {}
                // A tuple's tree is never a leaf: it has no buffer.
                StepClass::Alias => {
                    if let Some(s) = trees[i].leaf() {
                        let buf = b.buffer_or_param(s);
                        b.plan.materialised.insert(id, buf);
                    }
                }
                _ if tuples::produces_parts(&inst.kind, &inst.shape) => {
                    for (k, shape) in tuples::leaf_shapes(&inst.shape).iter().enumerate() {
                        let s = Sym::Part(id, k);
                        if b.buffer_of(s).is_none() {
                            let name = format!("{}.{k}", inst.name);
                            let buf = b.plan.push(BufferKind::Temp, shape, &name);
                            b.assign(s, buf);
                        }
                    }
                    // An array-shaped loop or branch is read as itself.
                    if !inst.shape.is_tuple()
                        && let Some(buf) = b.buffer_of(Sym::Part(id, 0))
                    {
                        b.plan.materialised.insert(id, buf);
                    }
                }
                _ if mat[i] && b.buffer_of(Sym::Inst(id)).is_none() && !alias.contains_key(&id) => {
                    let k = if let OpKind::Constant { literal } = &inst.kind {
                        BufferKind::Constant(literal.clone())
                    } else {
                        BufferKind::Temp
                    };
                    let buf = b.plan.push(k, &inst.shape, &inst.name);
                    b.assign(Sym::Inst(id), buf);
                }
                StepClass::Constant
                | StepClass::While { .. }
                | StepClass::Branch { .. }
                | StepClass::Sort { .. }
                | StepClass::TopK { .. }
                | StepClass::Reduce
                | StepClass::Dot { .. }
                | StepClass::Family(_)
                | StepClass::Fused => {}
            }
        }
        // An operand updated in place lives in its (last) updater's buffer.
        for &x in alias.keys() {
            let mut d = x;
            while let Some(&next) = alias.get(&d) {
                d = next;
            }
            if let Some(&buf) = b.plan.materialised.get(&d) {
                b.plan.materialised.insert(x, buf);
            }
        }
        for bi in control::inline_bodies(comp) {
            for (i, inst) in comp.body(bi).instructions.iter().enumerate() {
                if let OpKind::Constant { literal } = &inst.kind
                    && !inst.shape.is_scalar()
                {
                    let buf = b.plan.push(
                        BufferKind::Constant(literal.clone()),
                        &inst.shape,
                        &inst.name,
                    );
                    b.plan.called_constants.insert((bi, InstId(i as u32)), buf);
                }
            }
        }
        for (i, &is_live) in live.iter().enumerate() {
            let id = InstId(i as u32);
            let inst = body.inst(id);
            if !is_live {
                continue;
            }
            match step_class(&inst.kind) {
                StepClass::While { .. } | StepClass::Branch { .. } => {
                    let step = b.control_step(comp, &trees, id, regions)?;
                    b.plan.steps.push(step);
                    continue;
                }
                StepClass::Reduce if inst.shape.is_tuple() => {
                    let outs = b.parts_of(id);
                    let fused = b.plan.fused_under(body, &inst.operands);
                    b.plan.steps.push(Step {
                        kind: StepKind::MultiReduce {
                            inst: id,
                            outs: outs.clone(),
                        },
                        out: outs[0],
                        fused,
                    });
                    continue;
                }
                StepClass::Sort { .. } | StepClass::TopK { .. } => {
                    // The buffers of its arrays (every array of a tuple's,
                    // as `produces_parts` made them).
                    let parts: HashMap<(InstId, usize), BufferId> = if inst.shape.is_tuple() {
                        (0..tuples::leaf_count(&inst.shape))
                            .filter_map(|k| b.buffer_of(Sym::Part(id, k)).map(|buf| ((id, k), buf)))
                            .collect()
                    } else {
                        HashMap::new()
                    };
                    b.plan.sort_steps(comp, id, &parts)?;
                    continue;
                }
                StepClass::Param
                | StepClass::Constant
                | StepClass::Alias
                | StepClass::Reduce
                | StepClass::Dot { .. }
                | StepClass::Family(_)
                | StepClass::Fused => {}
            }
            let Some(&out) = b.plan.materialised.get(&id) else {
                continue;
            };
            let plan = &mut b.plan;
            match step_class(&inst.kind) {
                // Inputs and aliases compute nothing; loops, branches and
                // sorts got their steps above.
                StepClass::Param
                | StepClass::Constant
                | StepClass::Alias
                | StepClass::While { .. }
                | StepClass::Branch { .. }
                | StepClass::Sort { .. }
                | StepClass::TopK { .. } => {}
                StepClass::Reduce => {
                    let fused = plan.fused_under(body, &inst.operands);
                    plan.steps.push(Step {
                        kind: StepKind::Reduce { inst: id },
                        out,
                        fused,
                    });
                }
                StepClass::Family(family) => {
                    let in_place = inst
                        .operands
                        .first()
                        .is_some_and(|x| alias.get(x) == Some(&id));
                    plan.push_op_steps(body, family, id, out, in_place);
                }
                StepClass::Dot { dims } => {
                    let ty = inst.shape.element_type();
                    let lhs = plan.dot_input(body, inst.operands[0], dims, true, ty);
                    let rhs = plan.dot_input(body, inst.operands[1], dims, false, ty);
                    let (sizes, _) = dot_sizes(body, inst.operands[0], inst.operands[1], dims);
                    plan.steps.push(Step {
                        kind: StepKind::Dot {
                            inst: id,
                            lhs,
                            rhs,
                            sizes,
                        },
                        out,
                        fused: vec![],
                    });
                }
                StepClass::Fused => {
                    let fused = plan.fused_under(body, &inst.operands);
                    plan.steps.push(Step {
                        kind: StepKind::Loop { root: id },
                        out,
                        fused,
                    });
                }
            }
        }
        let mut plan = b.plan;
        row_groups::form_row_groups(comp, &mut plan)?;
        loop_groups::form_loop_groups(comp, &mut plan)?;
        ops::sink_update_copies(body, &mut plan);
        let grouped = if role == Role::LoopBody {
            (0..leaves.len())
                .filter(|&li| {
                    (forced.contains(&li) || !plan.updates.iter().any(|u| u.1 == leaves[li]))
                        && control::grouped_update_ok(comp, &trees, &live, &mat, &leaves, &plan, li)
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok((plan, grouped))
    }

    pub(crate) fn push(&mut self, kind: BufferKind, shape: &Shape, name: &str) -> BufferId {
        self.buffers.push(Buffer {
            kind,
            shape: shape.clone(),
            name: name.to_string(),
        })
    }

    /// The non-materialised instructions reachable from `roots`.
    pub(crate) fn fused_under(&self, body: &Body, roots: &[InstId]) -> Vec<InstId> {
        self.fused_under_except(body, roots, None)
    }

    /// [`Plan::fused_under`], also stopping at `stop` (a value loaded from
    /// a buffer of a row group).
    pub(crate) fn fused_under_except(
        &self,
        body: &Body,
        roots: &[InstId],
        stop: Option<InstId>,
    ) -> Vec<InstId> {
        let mut seen = vec![false; body.instructions.len()];
        let mut stack: Vec<InstId> = roots.to_vec();
        while let Some(i) = stack.pop() {
            if seen[i.index()] || self.materialised.contains_key(&i) || Some(i) == stop {
                continue;
            }
            seen[i.index()] = true;
            stack.extend(body.inst(i).operands.iter().copied());
        }
        (0..seen.len())
            .filter(|&i| seen[i])
            .map(|i| InstId(i as u32))
            .collect()
    }

    /// How a dot computing in `ty` reads `operand`: straight from its
    /// buffer when it has type `ty` and each canonical group of dimensions
    /// is contiguous-mergeable there (and, for integer types, exactly
    /// row-major), else through a copy step (which converts to `ty`).
    fn dot_input(
        &mut self,
        body: &Body,
        operand: InstId,
        dims: &DotDimensionNumbers,
        is_lhs: bool,
        ty: ElementType,
    ) -> DotInput {
        let inst = body.inst(operand);
        let shape = &inst.shape;
        let groups = canonical_groups(shape.rank(), dims, is_lhs);
        let sizes: [i64; 3] =
            [0, 1, 2].map(|g| groups[g].iter().map(|&d| shape.dims()[d]).product::<i64>());
        if let Some(&buf) = self.materialised.get(&operand)
            && shape.element_type() == ty
        {
            let strides = row_major_strides(shape.dims());
            let merged: Option<Vec<i64>> = groups
                .iter()
                .map(|g| merged_stride(g, shape.dims(), &strides))
                .collect();
            if let Some(m) = merged {
                let st = [m[0], m[1], m[2]];
                let exact = st[2] == 1 && st[1] == sizes[2] && st[0] == sizes[1] * sizes[2];
                let ok = shape.element_type().is_float() || exact || sizes.contains(&0);
                if ok {
                    return DotInput { buf, strides: st };
                }
            }
        }
        let canon = Shape::new(ty, &sizes);
        let name = format!("{}.canonical", inst.name);
        let buf = self.push(BufferKind::Temp, &canon, &name);
        let fused = self.fused_under(body, &[operand]);

        self.steps.push(Step {
            kind: StepKind::DotCopy {
                source: operand,
                groups,
                ty,
            },
            out: buf,
            fused,
        });
        DotInput {
            buf,
            strides: [sizes[1] * sizes[2], sizes[2], 1],
        }
    }

    /// The result as HLO-like text: buffers, then each kernel with the
    /// instructions fused into it.
    pub(crate) fn text(&self, comp: &Computation, kernels: &[String]) -> String {
        let body = comp.entry();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "fusion of `{}`: {} kernel(s)",
            comp.name(),
            self.steps.len()
        );
        for (i, b) in self.buffers.iter() {
            let kind = match &b.kind {
                BufferKind::Param(n) => match self.updates.iter().find(|u| u.0 == i) {
                    Some((_, s)) => {
                        let name = match *s {
                            Sym::Inst(r) => body.inst(r).name.clone(),
                            Sym::Part(x, k) => format!("{}.{k}", body.inst(x).name),
                        };
                        format!("parameter({}), updated in place with {name}", n.index())
                    }
                    None => format!("parameter({})", n.index()),
                },
                BufferKind::Constant(_) => "constant".to_string(),
                BufferKind::Temp => "temp".to_string(),
                BufferKind::Output(n) => format!("output({n})"),
            };
            let _ = writeln!(s, "  {i} = {} {kind} // {}", b.shape, b.name);
        }
        for (k, step) in self.steps.iter().enumerate() {
            let out = &self.buffers[step.out];
            if let StepKind::LoopGroup { members } = &step.kind {
                let _ = writeln!(
                    s,
                    "kernel {k}: loop-group of {} members -> {} {}",
                    members.len(),
                    buffer_list(&members.iter().map(|m| m.out).collect::<Vec<_>>()),
                    out.shape
                );
                if let Some(info) = kernels.get(k) {
                    for line in info.lines() {
                        let _ = writeln!(s, "  {line}");
                    }
                }
                for (p, member) in members.iter().enumerate() {
                    let StepKind::Loop { root } = member.kind else {
                        continue;
                    };
                    let _ = writeln!(
                        s,
                        "  member {p}: loop root={} -> {}",
                        body.inst(root).name,
                        member.out
                    );
                    for &f in &member.fused {
                        let _ = writeln!(s, "    | {}", instruction_text(comp, body, body.inst(f)));
                    }
                    let _ = writeln!(
                        s,
                        "    ROOT {}",
                        instruction_text(comp, body, body.inst(root))
                    );
                }
                continue;
            }
            if let StepKind::RowGroup { passes, keep, .. } = &step.kind {
                let _ = writeln!(
                    s,
                    "kernel {k}: row-group of {} passes -> {} {}",
                    passes.len(),
                    step.out,
                    out.shape
                );
                if let Some(info) = kernels.get(k) {
                    for line in info.lines() {
                        let _ = writeln!(s, "  {line}");
                    }
                }
                for (p, pass) in passes.iter().enumerate() {
                    let (what, root) = match &pass.kind {
                        StepKind::Reduce { inst } => ("reduce", *inst),
                        StepKind::Loop { root } => ("loop", *root),
                        _ => ("?", InstId(0)),
                    };
                    let kept = match keep {
                        Some(kp) if kp.from == p => format!(
                            " (keeps {} in {} for later passes)",
                            body.inst(kp.inst).name,
                            kp.buf
                        ),
                        Some(kp) if p > kp.from => {
                            format!(" (reads {} from {})", body.inst(kp.inst).name, kp.buf)
                        }
                        _ => String::new(),
                    };
                    let _ = writeln!(
                        s,
                        "  pass {p}: {what} root={} -> {} {}{kept}",
                        body.inst(root).name,
                        pass.out,
                        self.buffers[pass.out].shape
                    );
                    for &f in &pass.fused {
                        let _ = writeln!(s, "    | {}", instruction_text(comp, body, body.inst(f)));
                    }
                    let _ = writeln!(
                        s,
                        "    ROOT {}",
                        instruction_text(comp, body, body.inst(root))
                    );
                }
                continue;
            }
            let head = match &step.kind {
                StepKind::Loop { root } => format!("loop root={}", body.inst(*root).name),
                StepKind::Reduce { inst } => format!("reduce root={}", body.inst(*inst).name),
                StepKind::RowGroup { .. } | StepKind::LoopGroup { .. } => String::new(),
                StepKind::MultiReduce { inst, outs } => format!(
                    "multi-output reduce root={} -> {}",
                    body.inst(*inst).name,
                    buffer_list(outs)
                ),
                StepKind::While(w) => {
                    let init: Vec<String> = w
                        .init
                        .iter()
                        .map(|i| match i {
                            InitLeaf::Copy(b) => format!("copy {b}"),
                            InitLeaf::Compute(r) => format!("compute {}", body.inst(*r).name),
                        })
                        .collect();
                    format!(
                        "while root={} state={} init=[{}] condition={} body={}",
                        body.inst(w.inst).name,
                        buffer_list(&w.state),
                        init.join(", "),
                        w.cond,
                        w.body
                    )
                }
                StepKind::Conditional(c) => {
                    let branches: Vec<String> = c
                        .branches
                        .iter()
                        .map(|(r, ops)| format!("{r}{}", buffer_list(ops)))
                        .collect();
                    format!(
                        "conditional root={} selector={} outs={} branches=[{}]",
                        body.inst(c.inst).name,
                        c.selector,
                        buffer_list(&c.outs),
                        branches.join(", ")
                    )
                }
                StepKind::Op(op) => op.head(body),
                StepKind::Sort(sort) => sort.head(comp, body, self),
                StepKind::SortKey {
                    sort,
                    comparator,
                    expr,
                    ..
                } => format!(
                    "sort key of {}: {}",
                    body.inst(*sort).name,
                    instruction_text(
                        comp,
                        comp.body(*comparator),
                        comp.body(*comparator).inst(*expr)
                    )
                ),
                StepKind::DotCopy { source, groups, ty } => {
                    let from = body.inst(*source).shape.element_type();
                    format!(
                        "dot-operand-copy of {} groups={:?}{}",
                        body.inst(*source).name,
                        groups,
                        if from == *ty {
                            String::new()
                        } else {
                            format!(" to {ty}")
                        }
                    )
                }
                StepKind::Dot {
                    inst,
                    lhs,
                    rhs,
                    sizes,
                } => format!(
                    "dot root={} [{}x{}x{}]x[{}x{}x{}] lhs={} strides={:?} rhs={} strides={:?}",
                    body.inst(*inst).name,
                    sizes.batch,
                    sizes.m,
                    sizes.k,
                    sizes.batch,
                    sizes.k,
                    sizes.n,
                    lhs.buf,
                    lhs.strides,
                    rhs.buf,
                    rhs.strides
                ),
            };
            let _ = writeln!(s, "kernel {k}: {head} -> {} {}", step.out, out.shape);
            if let Some(info) = kernels.get(k) {
                for line in info.lines() {
                    let _ = writeln!(s, "  {line}");
                }
            }
            for &f in &step.fused {
                let _ = writeln!(s, "  | {}", instruction_text(comp, body, body.inst(f)));
            }
            let root = match &step.kind {
                StepKind::Loop { root } => Some(*root),
                StepKind::Reduce { inst }
                | StepKind::Dot { inst, .. }
                | StepKind::MultiReduce { inst, .. } => Some(*inst),
                StepKind::While(w) => Some(w.inst),
                StepKind::Conditional(c) => Some(c.inst),
                StepKind::Op(op) => Some(op.inst()),
                StepKind::Sort(sort) => Some(sort.inst),
                StepKind::DotCopy { .. }
                | StepKind::RowGroup { .. }
                | StepKind::LoopGroup { .. }
                | StepKind::SortKey { .. } => None,
            };
            if let Some(r) = root {
                let _ = writeln!(s, "  ROOT {}", instruction_text(comp, body, body.inst(r)));
            }
        }
        s
    }
}

/// `[buf1, buf2]`.
fn buffer_list(bufs: &[BufferId]) -> String {
    let names: Vec<String> = bufs.iter().map(|b| b.to_string()).collect();
    format!("[{}]", names.join(", "))
}

/// The result tree of a value of `shape`, its array leaves taken in order
/// from `leaves`.
fn output_tree(shape: &Shape, leaves: &mut impl Iterator<Item = Leaf>) -> OutputTree {
    if shape.is_tuple() {
        OutputTree::Tuple(
            shape
                .tuple_shapes()
                .iter()
                .map(|s| output_tree(s, leaves))
                .collect(),
        )
    } else {
        OutputTree::Leaf(leaves.next().unwrap_or(Leaf::Duplicate(BufferId::new(0))))
    }
}

/// The source dimensions of the canonical `[batch, rows, cols]` view of a
/// dot operand: lhs `[batch, free, contracting]`, rhs `[batch,
/// contracting, free]`; batch and contracting dimensions in the order the
/// dimension numbers list them, free ones ascending.
pub(crate) fn canonical_groups(
    rank: usize,
    dims: &DotDimensionNumbers,
    is_lhs: bool,
) -> [Vec<usize>; 3] {
    let (batch, contracting) = if is_lhs {
        (&dims.lhs_batch, &dims.lhs_contracting)
    } else {
        (&dims.rhs_batch, &dims.rhs_contracting)
    };
    let batch: Vec<usize> = batch.iter().map(|&d| d as usize).collect();
    let contracting: Vec<usize> = contracting.iter().map(|&d| d as usize).collect();
    let free: Vec<usize> = (0..rank)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect();
    if is_lhs {
        [batch, free, contracting]
    } else {
        [batch, contracting, free]
    }
}

/// The single stride of dimensions `group` (in that order) when they can
/// be read as one dimension; size-1 dimensions are ignored.
fn merged_stride(group: &[usize], dims: &[i64], strides: &[i64]) -> Option<i64> {
    let real: Vec<usize> = group.iter().copied().filter(|&d| dims[d] != 1).collect();
    let Some(&last) = real.last() else {
        return Some(0);
    };
    for w in real.windows(2) {
        if strides[w[0]] != strides[w[1]] * dims[w[1]] {
            return None;
        }
    }
    Some(strides[last])
}

/// The canonical sizes of a dot, and the element type.
pub(crate) fn dot_sizes(
    body: &Body,
    lhs: InstId,
    rhs: InstId,
    dims: &DotDimensionNumbers,
) -> (DotSizes, ElementType) {
    let ls = &body.inst(lhs).shape;
    let rs = &body.inst(rhs).shape;
    let lg = canonical_groups(ls.rank(), dims, true);
    let rg = canonical_groups(rs.rank(), dims, false);
    let prod = |s: &Shape, g: &[usize]| g.iter().map(|&d| s.dims()[d]).product::<i64>();
    (
        DotSizes {
            batch: prod(ls, &lg[0]),
            m: prod(ls, &lg[1]),
            k: prod(ls, &lg[2]),
            n: prod(rs, &rg[2]),
        },
        ls.element_type(),
    )
}
