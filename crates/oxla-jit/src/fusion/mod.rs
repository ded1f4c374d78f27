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
//! the output row between the sum and the division.
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

mod ops;
mod row_groups;
mod sort;

pub(crate) use ops::OpStep;
pub(crate) use row_groups::{RowSpace, pass_source};
pub(crate) use sort::{SortHow, SortKey, SortStep};

/// Cost of a transcendental op in the recompute heuristic (the op table's
/// weight for [`oxla_ir::Cost::Transcendental`]).
pub(crate) const EXPENSIVE: u64 = match oxla_ir::Cost::Transcendental.weight() {
    Some(w) => w,
    None => panic!("transcendental ops are fused"),
};
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
    /// three canonical dimensions, in order).
    DotCopy {
        source: InstId,
        groups: [Vec<usize>; 3],
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

/// The whole schedule of an executable.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) buffers: IdVec<BufferId, Buffer>,
    pub(crate) steps: Vec<Step>,
    pub(crate) output: OutputTree,
    /// The buffer of each materialised entry instruction.
    pub(crate) materialised: HashMap<InstId, BufferId>,
    /// Buffers of non-scalar constants inside called bodies.
    pub(crate) called_constants: HashMap<(ComputationId, InstId), BufferId>,
}

pub(crate) fn op_cost(kind: &OpKind) -> u64 {
    // The op table's cost class; an op that is never fused (its own kernel,
    // or a leaf in memory) costs 1 where a consumer reads it.
    kind.opcode().cost().weight().unwrap_or(1)
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
        _ => false,
    }
}

impl Plan {
    /// Partitions the entry body of `comp` into buffers and steps, row
    /// groups included. Fails only if the index analysis of a row-group
    /// candidate does (a kernel past the node budget).
    pub(crate) fn new(comp: &Computation) -> Result<Plan> {
        let body = comp.entry();
        let n = body.instructions.len();
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
        let mut mat = vec![false; n];
        for (i, inst) in body.instructions.iter().enumerate() {
            mat[i] = match &inst.kind {
                OpKind::Parameter { .. } | OpKind::Reduce { .. } | OpKind::DotGeneral { .. } => {
                    true
                }
                k if ops::op_family(k).is_some() => true,
                OpKind::Constant { .. } => !inst.shape.is_scalar(),
                kind => sort::is_sort(kind) || sort_part(body, InstId(i as u32)).is_some(),
            };
        }
        // A sort reads its operands from buffers.
        for (i, inst) in body.instructions.iter().enumerate() {
            if live[i] && sort::is_sort(&inst.kind) {
                for o in &inst.operands {
                    mat[o.index()] = true;
                }
            }
        }
        // Result leaves.
        let mut leaves = Vec::new();
        collect_leaves(body, body.root, &mut leaves);
        for &l in &leaves {
            if let LeafSource::Inst(l) = l {
                mat[l.index()] = true;
            }
        }
        // Cost-based cuts, in definition order.
        let mut cost = vec![0u64; n];
        for i in 0..n {
            if !live[i] {
                continue;
            }
            let inst = &body.instructions[i];
            if matches!(inst.kind, OpKind::Tuple) {
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

        // Updates that write into their operand's buffer (`ops.rs`).
        let leaf_insts: Vec<InstId> = leaves
            .iter()
            .filter_map(|l| match l {
                LeafSource::Inst(i) => Some(*i),
                LeafSource::Part(..) => None,
            })
            .collect();
        let alias = ops::in_place_updates(body, &live, &mat, &leaf_insts);
        let mut plan = Plan {
            buffers: IdVec::new(),
            steps: Vec::new(),
            output: OutputTree::Tuple(vec![]),
            materialised: HashMap::new(),
            called_constants: HashMap::new(),
        };
        // The buffers of the arrays of tuple-shaped sorts, by (sort, index).
        let mut parts: HashMap<(InstId, usize), BufferId> = HashMap::new();
        // Output buffers, in leaf order (duplicates and inputs are copies).
        let mut leaf_kinds = Vec::new();
        for (li, &l) in leaves.iter().enumerate() {
            let l = match l {
                LeafSource::Inst(l) => l,
                LeafSource::Part(s, k) => {
                    let leaf = match parts.get(&(s, k)) {
                        Some(&b) => Leaf::Duplicate(b),
                        None => {
                            let (shape, name) = part_shape(body, s, k);
                            let b = plan.push(BufferKind::Output(li), &shape, &name);
                            parts.insert((s, k), b);
                            Leaf::Buffer(b)
                        }
                    };
                    leaf_kinds.push(leaf);
                    continue;
                }
            };
            let inst = body.inst(l);
            let leaf = match &inst.kind {
                OpKind::Parameter { number } => Leaf::Param(ParamId::new(*number as usize)),
                OpKind::Constant { literal } => Leaf::Constant(literal.clone()),
                _ => match plan.materialised.get(&l) {
                    Some(&b) => Leaf::Duplicate(b),
                    None => {
                        let b = plan.push(BufferKind::Output(li), &inst.shape, &inst.name);
                        plan.materialised.insert(l, b);
                        Leaf::Buffer(b)
                    }
                },
            };
            leaf_kinds.push(leaf);
        }
        let mut leaf_iter = leaf_kinds.into_iter();
        plan.output = build_tree(body, body.root, &mut leaf_iter);
        // Inputs and intermediates, then steps in definition order.
        for i in 0..n {
            if !live[i] || !mat[i] {
                continue;
            }
            let id = InstId(i as u32);
            let inst = body.inst(id);
            if plan.materialised.contains_key(&id) || alias.contains_key(&id) {
                continue;
            }
            // An array of a sort's tuple: the buffer the sort writes it to.
            if let Some(part) = sort_part(body, id) {
                let b = match parts.get(&part) {
                    Some(&b) => b,
                    None => {
                        let b = plan.push(BufferKind::Temp, &inst.shape, &inst.name);
                        parts.insert(part, b);
                        b
                    }
                };
                plan.materialised.insert(id, b);
                continue;
            }
            if sort::is_sort(&inst.kind) && inst.shape.is_tuple() {
                continue;
            }
            let kind = match &inst.kind {
                OpKind::Parameter { number } => BufferKind::Param(ParamId::new(*number as usize)),
                OpKind::Constant { literal } => BufferKind::Constant(literal.clone()),
                _ => BufferKind::Temp,
            };
            let b = plan.push(kind, &inst.shape, &inst.name);
            plan.materialised.insert(id, b);
        }
        // An operand updated in place lives in its (last) updater's buffer.
        for &x in alias.keys() {
            let mut d = x;
            while let Some(&next) = alias.get(&d) {
                d = next;
            }
            if let Some(&b) = plan.materialised.get(&d) {
                plan.materialised.insert(x, b);
            }
        }
        for (bi, b) in comp.bodies().iter().enumerate() {
            if bi + 1 == comp.bodies().len() {
                break;
            }
            for (i, inst) in b.instructions.iter().enumerate() {
                if let OpKind::Constant { literal } = &inst.kind
                    && !inst.shape.is_scalar()
                {
                    let buf = plan.push(
                        BufferKind::Constant(literal.clone()),
                        &inst.shape,
                        &inst.name,
                    );
                    plan.called_constants
                        .insert((ComputationId(bi as u32), InstId(i as u32)), buf);
                }
            }
        }
        for (i, &alive) in live.iter().enumerate() {
            let id = InstId(i as u32);
            let inst = body.inst(id);
            if alive && sort::is_sort(&inst.kind) {
                plan.sort_steps(comp, id, &parts)?;
                continue;
            }
            if sort_part(body, id).is_some() {
                continue;
            }
            let Some(&out) = plan.materialised.get(&id) else {
                continue;
            };
            match &inst.kind {
                OpKind::Parameter { .. } | OpKind::Constant { .. } => {}
                OpKind::Tuple => {}
                OpKind::Reduce { .. } => {
                    let fused = plan.fused_under(body, &inst.operands);
                    plan.steps.push(Step {
                        kind: StepKind::Reduce { inst: id },
                        out,
                        fused,
                    });
                }
                k if let Some(family) = ops::op_family(k) => {
                    let in_place = inst
                        .operands
                        .first()
                        .is_some_and(|x| alias.get(x) == Some(&id));
                    plan.push_op_steps(body, family, id, out, in_place);
                }
                OpKind::DotGeneral { dims } => {
                    let lhs = plan.dot_input(body, inst.operands[0], dims, true);
                    let rhs = plan.dot_input(body, inst.operands[1], dims, false);
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
                _ => {
                    let fused = plan.fused_under(body, &inst.operands);
                    plan.steps.push(Step {
                        kind: StepKind::Loop { root: id },
                        out,
                        fused,
                    });
                }
            }
        }
        row_groups::form_row_groups(comp, &mut plan)?;
        Ok(plan)
    }

    fn push(&mut self, kind: BufferKind, shape: &Shape, name: &str) -> BufferId {
        self.buffers.push(Buffer {
            kind,
            shape: shape.clone(),
            name: name.to_string(),
        })
    }

    /// The non-materialised instructions reachable from `roots`.
    fn fused_under(&self, body: &Body, roots: &[InstId]) -> Vec<InstId> {
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

    /// How a dot reads `operand`: straight from its buffer when each
    /// canonical group of dimensions is contiguous-mergeable there (and,
    /// for integer types, exactly row-major), else through a copy step.
    fn dot_input(
        &mut self,
        body: &Body,
        operand: InstId,
        dims: &DotDimensionNumbers,
        is_lhs: bool,
    ) -> DotInput {
        let inst = body.inst(operand);
        let shape = &inst.shape;
        let groups = canonical_groups(shape.rank(), dims, is_lhs);
        let sizes: [i64; 3] =
            [0, 1, 2].map(|g| groups[g].iter().map(|&d| shape.dims()[d]).product::<i64>());
        if let Some(&buf) = self.materialised.get(&operand) {
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
        let canon = Shape::new(shape.element_type(), &sizes);
        let name = format!("{}.canonical", inst.name);
        let buf = self.push(BufferKind::Temp, &canon, &name);
        let fused = self.fused_under(body, &[operand]);

        self.steps.push(Step {
            kind: StepKind::DotCopy {
                source: operand,
                groups,
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
                BufferKind::Param(n) => format!("parameter({})", n.index()),
                BufferKind::Constant(_) => "constant".to_string(),
                BufferKind::Temp => "temp".to_string(),
                BufferKind::Output(n) => format!("output({n})"),
            };
            let _ = writeln!(s, "  {i} = {} {kind} // {}", b.shape, b.name);
        }
        for (k, step) in self.steps.iter().enumerate() {
            let out = &self.buffers[step.out];
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
                StepKind::RowGroup { .. } => String::new(),
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
                StepKind::DotCopy { source, groups } => format!(
                    "dot-operand-copy of {} groups={:?}",
                    body.inst(*source).name,
                    groups
                ),
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
                StepKind::Reduce { inst } | StepKind::Dot { inst, .. } => Some(*inst),
                StepKind::Op(op) => Some(op.inst()),
                StepKind::Sort(sort) => Some(sort.inst),
                StepKind::DotCopy { .. } | StepKind::RowGroup { .. } | StepKind::SortKey { .. } => {
                    None
                }
            };
            if let Some(r) = root {
                let _ = writeln!(s, "  ROOT {}", instruction_text(comp, body, body.inst(r)));
            }
        }
        s
    }
}

/// Where a result leaf comes from: an array instruction, or array `k` of
/// a tuple-shaped `sort` or `topk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeafSource {
    Inst(InstId),
    Part(InstId, usize),
}

/// `(sort, k)` when `id` is `get-tuple-element(sort), index=k` of a
/// `sort` or `topk`.
fn sort_part(body: &Body, id: InstId) -> Option<(InstId, usize)> {
    let inst = body.inst(id);
    let OpKind::GetTupleElement { index } = inst.kind else {
        return None;
    };
    let of = *inst.operands.first()?;
    sort::is_sort(&body.inst(of).kind).then_some((of, index as usize))
}

/// The shape and name of array `k` of the sort `s`.
fn part_shape(body: &Body, s: InstId, k: usize) -> (Shape, String) {
    let inst = body.inst(s);
    let shape = if inst.shape.is_tuple() {
        inst.shape.tuple_shapes().get(k).cloned()
    } else {
        None
    };
    (
        shape.unwrap_or_else(|| inst.shape.clone()),
        format!("{}.{k}", inst.name),
    )
}

/// The result leaves (arrays) under `id`, in tuple order.
fn collect_leaves(body: &Body, id: InstId, out: &mut Vec<LeafSource>) {
    let inst = body.inst(id);
    match inst.kind {
        OpKind::Tuple => {
            for &o in &inst.operands {
                collect_leaves(body, o, out);
            }
        }
        _ if sort::is_sort(&inst.kind) && inst.shape.is_tuple() => {
            out.extend((0..inst.shape.tuple_shapes().len()).map(|k| LeafSource::Part(id, k)));
        }
        _ => out.push(match sort_part(body, id) {
            Some((s, k)) => LeafSource::Part(s, k),
            None => LeafSource::Inst(id),
        }),
    }
}

fn build_tree(body: &Body, id: InstId, leaves: &mut impl Iterator<Item = Leaf>) -> OutputTree {
    let inst = body.inst(id);
    let mut next = || OutputTree::Leaf(leaves.next().unwrap_or(Leaf::Duplicate(BufferId::new(0))));
    match inst.kind {
        OpKind::Tuple => OutputTree::Tuple(
            inst.operands
                .iter()
                .map(|&o| build_tree(body, o, leaves))
                .collect(),
        ),
        _ if sort::is_sort(&inst.kind) && inst.shape.is_tuple() => OutputTree::Tuple(
            (0..inst.shape.tuple_shapes().len())
                .map(|_| next())
                .collect(),
        ),
        _ => next(),
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
