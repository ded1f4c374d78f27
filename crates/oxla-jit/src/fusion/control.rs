//! Control flow in the plan: regions, loop and branch steps, and the loop
//! state updated in place.
//!
//! ## Regions
//!
//! A program is a tree of *regions*. The entry body is one; every `while`
//! adds two (its condition and its body) and every `conditional` one per
//! branch, each planned like an entry body of its own: a region's
//! [`Plan`] is the plan of the computation whose entry is the called body
//! (the bodies before it, which are all it can call, kept in front), so
//! fusion, lowering and the verifier treat every region alike. Its
//! parameters are the leaves of the body's parameter, and its result
//! leaves are *slots* its caller binds to buffers of its own:
//!
//! | region | parameter leaf `k` | result slot `i` |
//! |---|---|---|
//! | while condition | state buffer `k` | a scratch `pred[]` the loop reads |
//! | while body | state buffer `k` | state buffer `i`, or a scratch copied into it after the body (below) |
//! | branch `b` | leaf `k` of operand `b`'s buffers | output buffer `i` of the conditional |
//!
//! A `while` step owns its state: one buffer per leaf, which it fills from
//! the init (a copy of a buffer, or, for a fused value, a loop kernel
//! that computes it straight into the state) and which then holds the
//! loop's value between iterations: the condition and the body read it
//! where it is, and nothing is copied per iteration except what cannot be
//! updated in place. A `conditional` step reads its selector and runs one
//! branch, whose steps write the step's output buffers directly.
//!
//! ## The loop state in place
//!
//! Result leaf `i` of a loop body is written *in place*, over state leaf
//! `i`, as XLA's buffer assignment does for a while loop's body, when its
//! value `v` is computed by one step `W` of the body and nothing needs the
//! old value of leaf `i` once `W` has written:
//!
//! - no step after `W` reads the old value (the body's parameter leaf `i`),
//!   and no other result leaf is the old value;
//! - `W` is a loop kernel that reads the old value only at the element it
//!   writes (through elementwise ops of the result's dims only: `h = a *
//!   h + b`, a counter `i + 1`), or does not read it at all (a dot, a
//!   reduce, a nested loop or branch, a variadic reduce).
//!
//! Then `v`'s buffer *is* the parameter buffer of leaf `i` (listed in
//! [`Plan::updates`]), `W` writes it there, and the result leaf is the
//! parameter itself: nothing to copy. A leaf passed through unchanged
//! (`xs` in a scan) costs nothing either. Every other leaf is written by
//! its step into a scratch buffer (or copied there, for a parameter or a
//! constant) that the loop copies into the state after the body has run,
//! or, for a copied leaf whose state no other copy reads, copied straight
//! into the state. A `dynamic-update-slice` into a state leaf is in place
//! under the same rule (its operand 0 is read at the element written):
//! its kernel sees its output buffer equal to its operand's
//! (`plan.materialised`) and need only write the update's window.
//!
//! ## In a loop group
//!
//! A later step that reads the old value does not forbid the update when
//! it is a member of the loop group that computes the new value
//! ([`grouped_update_ok`]; dropout's threefry body, whose last member
//! recomputes a fused `x0 + x1`): the group is one kernel, which loads
//! every value of an element before it stores any, and the group's
//! formation checked that each member reads the old value only at that
//! element. Groups are formed after buffers are assigned, so `Plan::build`
//! plans such a body twice: once as above, then with those leaves in
//! place, keeping the second plan only if every such leaf's group formed
//! again with all the later readers in it and lowers as one kernel.
//!
//! The verifier (`verify.rs`) checks the result again on the kernels: the
//! writer of an updated parameter loads it only at the offset it stores
//! to, no later step reads the old value, and a loop group whose later
//! member reads it was lowered as one kernel.

use std::collections::{HashMap, HashSet};

use oxla_ir::{Body, Computation, ComputationId, ElementType, InstId, OpKind, Result, Shape};

use crate::entity::{BufferId, IdVec, RegionId};

use super::tuples::{self, Sym, Tree};
use super::{BufferKind, Plan, Step, StepClass, StepKind};

/// What a region is run for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The entry body: its parameters are the arguments, its result the
    /// executable's.
    Entry,
    /// A while loop's condition.
    Condition,
    /// A while loop's body: result leaf `i` replaces state leaf `i`.
    LoopBody,
    /// A conditional's branch.
    Branch,
}

/// One region of a program (see the module docs).
pub(crate) struct Region {
    /// The computation whose entry is the region's body.
    pub(crate) comp: Computation,
    pub(crate) plan: Plan,
    pub(crate) role: Role,
}

/// Every region of a program, children before their parents.
pub(crate) type Regions = IdVec<RegionId, Region>;

/// How a state leaf of a `while` starts.
#[derive(Clone, Debug)]
pub(crate) enum InitLeaf {
    /// A copy of a buffer.
    Copy(BufferId),
    /// A fused value, computed into the state leaf by a loop kernel.
    Compute(InstId),
}

/// A `while` step.
#[derive(Clone, Debug)]
pub(crate) struct WhileStep {
    pub(crate) inst: InstId,
    /// One buffer per state leaf, written by this step.
    pub(crate) state: Vec<BufferId>,
    /// How each state leaf starts.
    pub(crate) init: Vec<InitLeaf>,
    pub(crate) cond: RegionId,
    pub(crate) body: RegionId,
}

/// A `conditional` step.
#[derive(Clone, Debug)]
pub(crate) struct CondStep {
    pub(crate) inst: InstId,
    /// The `pred[]` or `s32[]` selector.
    pub(crate) selector: BufferId,
    /// One buffer per result leaf, written by the branch that runs.
    pub(crate) outs: Vec<BufferId>,
    /// Each branch's region and the buffers of its operand's leaves.
    pub(crate) branches: Vec<(RegionId, Vec<BufferId>)>,
}

/// Plans body `id` of `comp` as a region run for `role` (its own loops
/// and branches first) and adds it to `regions`.
pub(crate) fn region(
    comp: &Computation,
    id: ComputationId,
    role: Role,
    regions: &mut Regions,
) -> Result<RegionId> {
    let bodies = comp.bodies()[..=id.index()].to_vec();
    let sub = Computation::from_bodies_unverified(comp.body(id).name.clone(), bodies);
    let plan = Plan::build(&sub, role, regions)?;
    Ok(regions.push(Region {
        comp: sub,
        plan,
        role,
    }))
}

/// The bodies whose code is inlined into the entry body's kernels (the
/// reducers and mapped computations it calls, and everything they call),
/// in index order; loop and branch bodies are regions of their own.
pub(crate) fn inline_bodies(comp: &Computation) -> Vec<ComputationId> {
    let n = comp.bodies().len();
    let mut seen = vec![false; n];
    let mut stack: Vec<ComputationId> = Vec::new();
    for inst in &comp.entry().instructions {
        if !matches!(inst.kind, OpKind::While { .. } | OpKind::Conditional { .. }) {
            stack.extend(inst.kind.called_computations());
        }
    }
    while let Some(b) = stack.pop() {
        if b.index() >= n || seen[b.index()] {
            continue;
        }
        seen[b.index()] = true;
        for inst in &comp.body(b).instructions {
            stack.extend(inst.kind.called_computations());
        }
    }
    (0..n)
        .filter(|&i| seen[i])
        .map(|i| ComputationId(i as u32))
        .collect()
}

/// The symbol of state leaf `li` in a loop body: leaf `li` of its
/// parameter.
fn state_sym(body: &Body, li: usize) -> Option<Sym> {
    let (i, p) = body
        .instructions
        .iter()
        .enumerate()
        .find(|(_, inst)| matches!(inst.kind, OpKind::Parameter { number: 0 }))?;
    let id = InstId(i as u32);
    if p.shape.is_tuple() {
        Some(Sym::Part(id, li))
    } else {
        (li == 0).then_some(Sym::Inst(id))
    }
}

/// Whether instruction `i` runs as a step of its own.
fn is_step(body: &Body, mat: &[bool], i: usize) -> bool {
    let inst = &body.instructions[i];
    match super::step_class(&inst.kind) {
        StepClass::Param | StepClass::Constant | StepClass::Alias => false,
        StepClass::While { .. } | StepClass::Branch { .. } => true,
        StepClass::Sort { .. }
        | StepClass::TopK { .. }
        | StepClass::Reduce
        | StepClass::Dot { .. }
        | StepClass::Family(_)
        | StepClass::Fused => tuples::produces_parts(&inst.kind, &inst.shape) || mat[i],
    }
}

/// The arrays read (from buffers) by the fused expressions of `roots`: a
/// materialised array, or the leaf an alias names, stops the walk.
fn read_syms(body: &Body, trees: &[Tree], mat: &[bool], roots: &[InstId]) -> HashSet<Sym> {
    let mut out = HashSet::new();
    let mut seen = vec![false; body.instructions.len()];
    let mut stack: Vec<InstId> = roots.to_vec();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i.index()], true) {
            continue;
        }
        let inst = body.inst(i);
        match &trees[i.index()] {
            Tree::Tuple(_) => {
                for s in trees[i.index()].flat() {
                    match s {
                        Sym::Inst(r) => stack.push(r),
                        part => {
                            out.insert(part);
                        }
                    }
                }
            }
            Tree::Leaf(s) => {
                if mat[i.index()] || tuples::is_alias(&inst.kind) {
                    out.insert(*s);
                } else {
                    stack.extend(inst.operands.iter().copied());
                }
            }
        }
    }
    out
}

/// Whether operand `k` of an op of `kind` is read at the element the op
/// computes (when its dims are the result's).
fn same_index(kind: &OpKind, k: usize) -> bool {
    match kind {
        OpKind::Unary(_)
        | OpKind::Binary { .. }
        | OpKind::Convert
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::BitcastConvert
        | OpKind::ReducePrecision { .. }
        | OpKind::Map { .. } => true,
        // Operand 0 of a dynamic-update-slice is read (or kept) at the
        // element written.
        OpKind::DynamicUpdateSlice => k == 0,
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
        | OpKind::Broadcast { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Concatenate { .. }
        | OpKind::Reverse { .. }
        | OpKind::Pad { .. }
        | OpKind::Reduce { .. }
        | OpKind::DotGeneral { .. }
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Gather { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::Bitcast
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
        | OpKind::Fft { .. } => false,
    }
}

/// Whether the loop kernel computing `w` reads `p` only at the element it
/// writes: every path from `w` down to a read of `p` goes through
/// elementwise ops whose operands have `w`'s dims.
fn reads_only_at_written(body: &Body, trees: &[Tree], mat: &[bool], w: InstId, p: Sym) -> bool {
    let dims = body.inst(w).shape.dims();
    let mut seen: HashSet<(InstId, bool)> = HashSet::new();
    let mut stack = vec![(w, true)];
    while let Some((u, at)) = stack.pop() {
        if !seen.insert((u, at)) {
            continue;
        }
        let inst = body.inst(u);
        for (k, &o) in inst.operands.iter().enumerate() {
            let edge = at && same_index(&inst.kind, k) && body.inst(o).shape.dims() == dims;
            match &trees[o.index()] {
                Tree::Tuple(_) => {
                    if read_syms(body, trees, mat, &[o]).contains(&p) {
                        return false;
                    }
                }
                Tree::Leaf(s) => {
                    if mat[o.index()] || tuples::is_alias(&body.inst(o).kind) {
                        if *s == p && !edge {
                            return false;
                        }
                    } else {
                        stack.push((o, edge));
                    }
                }
            }
        }
    }
    true
}

/// Whether result leaf `li` of a loop body, the value `s`, may be written
/// over state leaf `li` (see the module docs). `leaves` are all the result
/// leaves; `mat` says which arrays have buffers.
pub(super) fn in_place_ok(
    body: &Body,
    trees: &[Tree],
    live: &[bool],
    mat: &[bool],
    leaves: &[Sym],
    li: usize,
    s: Sym,
) -> bool {
    let Some(p) = state_sym(body, li) else {
        return false;
    };
    // The value must be computed by a step of the body.
    let w = match s {
        Sym::Inst(r) => r,
        Sym::Part(x, _) => x,
    };
    if !is_step(body, mat, w.index()) {
        return false;
    }
    // An indexing or windowed op's steps (`ops.rs`) have in-place rules of
    // their own: its value is copied into the state.
    if super::ops::op_family(&body.inst(w).kind).is_some() {
        return false;
    }
    // No other result leaf is the old value.
    if leaves.iter().enumerate().any(|(m, &t)| m != li && t == p) {
        return false;
    }
    // The writer reads the old value only where it writes.
    let wi = body.inst(w);
    let writer_ok = match (&wi.kind, s) {
        (OpKind::Reduce { .. } | OpKind::DotGeneral { .. }, _) | (_, Sym::Part(..)) => {
            !read_syms(body, trees, mat, &wi.operands).contains(&p)
        }
        (_, Sym::Inst(_)) => reads_only_at_written(body, trees, mat, w, p),
    };
    if !writer_ok {
        return false;
    }
    // No later step reads the old value.
    (w.index() + 1..body.instructions.len()).all(|j| {
        !live[j]
            || !is_step(body, mat, j)
            || !read_syms(body, trees, mat, &body.instructions[j].operands).contains(&p)
    })
}

/// Whether result leaf `li` of a loop body may be written over state leaf
/// `li` by the loop group that computes it, although a later step reads
/// the old value (see the module docs, "In a loop group"): its value is a
/// member of a loop group of `plan`, is no other leaf, and every step
/// after its writer that reads the old value is a member of that group;
/// the group lowers as one kernel. In a plan where the leaf is written in
/// place, the group's formation checked that every member reads the old
/// value only at the element it computes.
pub(super) fn grouped_update_ok(
    comp: &Computation,
    trees: &[Tree],
    live: &[bool],
    mat: &[bool],
    leaves: &[Sym],
    plan: &Plan,
    li: usize,
) -> bool {
    let body = comp.entry();
    let Some(p) = state_sym(body, li) else {
        return false;
    };
    let Some(&Sym::Inst(w)) = leaves.get(li) else {
        return false;
    };
    if leaves.contains(&p) || leaves.iter().filter(|&&t| t == Sym::Inst(w)).count() != 1 {
        return false;
    }
    let root = |m: &Step| match m.kind {
        StepKind::Loop { root } => Some(root),
        _ => None,
    };
    let Some(members) = plan.steps.iter().find_map(|st| match &st.kind {
        StepKind::LoopGroup { members } if members.iter().any(|m| root(m) == Some(w)) => {
            Some(members)
        }
        _ => None,
    }) else {
        return false;
    };
    let in_group: HashSet<InstId> = members.iter().filter_map(root).collect();
    let later_readers_grouped = (w.index() + 1..body.instructions.len()).all(|j| {
        !live[j]
            || !is_step(body, mat, j)
            || in_group.contains(&InstId(j as u32))
            || !read_syms(body, trees, mat, &body.instructions[j].operands).contains(&p)
    });
    later_readers_grouped && crate::lower::groups_as_one(comp, plan, members)
}

/// Buffer assignment of one plan: the plan being filled, and where the
/// arrays that are not instructions (parameter and producer leaves) are.
pub(super) struct Buffers<'a> {
    body: &'a Body,
    param_base: Vec<usize>,
    /// Each flat parameter leaf: its shape, its name, and the parameter
    /// instruction when that parameter is an array.
    param_leaves: Vec<(Shape, String, Option<InstId>)>,
    /// The buffer of each parameter leaf that has one.
    params: HashMap<usize, BufferId>,
    /// The buffer of each producer leaf ([`Sym::Part`]) that has one.
    parts: HashMap<Sym, BufferId>,
    pub(super) plan: Plan,
}

impl<'a> Buffers<'a> {
    pub(super) fn new(body: &'a Body, plan: Plan) -> Buffers<'a> {
        let mut params: Vec<(i64, InstId)> = body
            .instructions
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| {
                let OpKind::Parameter { number } = inst.kind else {
                    return None;
                };
                Some((number, InstId(i as u32)))
            })
            .collect();
        params.sort_unstable();
        let mut param_leaves = Vec::new();
        for &(_, id) in &params {
            let inst = body.inst(id);
            if inst.shape.is_tuple() {
                for (k, shape) in tuples::leaf_shapes(&inst.shape).into_iter().enumerate() {
                    param_leaves.push((shape, format!("{}.{k}", inst.name), None));
                }
            } else {
                param_leaves.push((inst.shape.clone(), inst.name.clone(), Some(id)));
            }
        }
        Buffers {
            body,
            param_base: tuples::param_leaf_base(body),
            param_leaves,
            params: HashMap::new(),
            parts: HashMap::new(),
            plan,
        }
    }

    /// The flat parameter leaf `s` is, if it is one.
    pub(super) fn param_leaf(&self, s: Sym) -> Option<usize> {
        let (x, k) = match s {
            Sym::Inst(x) => (x, 0),
            Sym::Part(x, k) => (x, k),
        };
        let OpKind::Parameter { number } = self.body.inst(x).kind else {
            return None;
        };
        self.param_base.get(number as usize).map(|b| b + k)
    }

    /// The buffer holding `s`, if it has one yet.
    pub(super) fn buffer_of(&self, s: Sym) -> Option<BufferId> {
        if let Some(j) = self.param_leaf(s) {
            return self.params.get(&j).copied();
        }
        match s {
            Sym::Inst(r) => self.plan.materialised.get(&r).copied(),
            Sym::Part(..) => self.parts.get(&s).copied(),
        }
    }

    /// Records that `s` (not a parameter leaf) lives in `buf`.
    pub(super) fn assign(&mut self, s: Sym, buf: BufferId) {
        match s {
            Sym::Inst(r) => {
                self.plan.materialised.insert(r, buf);
            }
            Sym::Part(..) => {
                self.parts.insert(s, buf);
            }
        }
    }

    /// The buffer of flat parameter leaf `j` (created on first use).
    pub(super) fn param_buffer(&mut self, j: usize) -> BufferId {
        if let Some(&b) = self.params.get(&j) {
            return b;
        }
        let (shape, name, inst) = match self.param_leaves.get(j) {
            Some((shape, name, inst)) => (shape.clone(), name.clone(), *inst),
            None => (
                Shape::new(ElementType::Pred, &[0]),
                format!("<parameter leaf {j}>"),
                None,
            ),
        };
        let b = self.plan.push(
            BufferKind::Param(crate::entity::ParamId::new(j)),
            &shape,
            &name,
        );
        self.params.insert(j, b);
        if let Some(id) = inst {
            self.plan.materialised.insert(id, b);
        }
        b
    }

    /// The buffer of `s`, a parameter leaf's created on first use. Every
    /// other array read from a buffer was given one in definition order,
    /// before its readers; one without is an unwritten temporary the
    /// verifier reports.
    pub(super) fn buffer_or_param(&mut self, s: Sym) -> BufferId {
        if let Some(j) = self.param_leaf(s) {
            return self.param_buffer(j);
        }
        if let Some(b) = self.buffer_of(s) {
            return b;
        }
        let (shape, name) = self.sym_shape(s);
        let b = self.plan.push(BufferKind::Temp, &shape, &name);
        self.assign(s, b);
        b
    }

    /// The shape and a name of `s`.
    pub(super) fn sym_shape(&self, s: Sym) -> (Shape, String) {
        match s {
            Sym::Inst(r) => {
                let inst = self.body.inst(r);
                (inst.shape.clone(), inst.name.clone())
            }
            Sym::Part(x, k) => {
                let inst = self.body.inst(x);
                let shape = tuples::leaf_shapes(&inst.shape)
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| Shape::new(ElementType::Pred, &[0]));
                (shape, format!("{}.{k}", inst.name))
            }
        }
    }

    /// The buffers of every leaf of producer `id`.
    pub(super) fn parts_of(&mut self, id: InstId) -> Vec<BufferId> {
        let n = tuples::leaf_count(&self.body.inst(id).shape);
        (0..n)
            .map(|k| self.buffer_or_param(Sym::Part(id, k)))
            .collect()
    }

    /// The step of `while` or `conditional` `id`, its regions planned and
    /// added to `regions`.
    pub(super) fn control_step(
        &mut self,
        comp: &Computation,
        trees: &[Tree],
        id: InstId,
        regions: &mut Regions,
    ) -> Result<Step> {
        let body = self.body;
        let inst = body.inst(id);
        let outs = self.parts_of(id);
        let out = match outs.first() {
            Some(&b) => b,
            // A loop or branch of no arrays still needs a step buffer.
            None => self.plan.push(
                BufferKind::Temp,
                &Shape::new(ElementType::Pred, &[0]),
                &format!("{}.none", inst.name),
            ),
        };
        let operand = |k: usize| {
            inst.operands
                .get(k)
                .map_or_else(Vec::new, |o| trees[o.index()].flat())
        };
        match super::step_class(&inst.kind) {
            StepClass::While {
                condition,
                body: loop_body,
            } => {
                let mut init = Vec::new();
                let mut computed = Vec::new();
                for s in operand(0) {
                    init.push(match s {
                        Sym::Inst(r)
                            if self.param_leaf(s).is_none()
                                && !self.plan.materialised.contains_key(&r) =>
                        {
                            computed.push(r);
                            InitLeaf::Compute(r)
                        }
                        _ => InitLeaf::Copy(self.buffer_or_param(s)),
                    });
                }
                let fused = self.plan.fused_under(body, &computed);
                let cond = region(comp, *condition, Role::Condition, regions)?;
                let looped = region(comp, *loop_body, Role::LoopBody, regions)?;
                Ok(Step {
                    kind: StepKind::While(Box::new(WhileStep {
                        inst: id,
                        state: outs,
                        init,
                        cond,
                        body: looped,
                    })),
                    out,
                    fused,
                })
            }
            StepClass::Branch { branches } => {
                let selector = match operand(0).first() {
                    Some(&s) => self.buffer_or_param(s),
                    None => out,
                };
                let mut planned = Vec::with_capacity(branches.len());
                for (k, &b) in branches.iter().enumerate() {
                    let bufs: Vec<BufferId> = operand(k + 1)
                        .into_iter()
                        .map(|s| self.buffer_or_param(s))
                        .collect();
                    planned.push((region(comp, b, Role::Branch, regions)?, bufs));
                }
                Ok(Step {
                    kind: StepKind::Conditional(Box::new(CondStep {
                        inst: id,
                        selector,
                        outs,
                        branches: planned,
                    })),
                    out,
                    fused: vec![],
                })
            }
            StepClass::Param
            | StepClass::Constant
            | StepClass::Alias
            | StepClass::Sort { .. }
            | StepClass::TopK { .. }
            | StepClass::Reduce
            | StepClass::Dot { .. }
            | StepClass::Family(_)
            | StepClass::Fused => Err(crate::error::internal(
                crate::error::Stage::Fusion,
                format!("`{}` is not a loop or a branch", inst.name),
            )),
        }
    }
}
