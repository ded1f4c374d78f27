//! The JIT's IR verifier (Cranelift's `verify_function`, XLA's
//! `HloVerifier`): checks fusion's plan and lowering's kernel descriptions
//! against the invariants code generation and the run path rely on, and
//! reports every problem it finds as data ([`Problem`]).
//!
//! | rule | checked on | why |
//! |---|---|---|
//! | every output and temporary buffer is written by exactly one step, arguments and constants by none | plan, kernels | outputs are allocated uninitialised; results are only defined if one step owns each buffer |
//! | every element of such a buffer is written, once: each write is one element per iteration of its loops, inside the buffer, and the step's writes add up to the buffer | kernels | the run path sets an output's length without reading it (`assume_written`) |
//! | a buffer is read only after the step that writes it, or, in a row group, by a later pass at the element (or row) an earlier pass wrote | plan, kernels | a kernel must never read an element no one has written yet |
//! | every loop variable an index uses has an extent in its scope; the loop order is a permutation of the kernel's variables | kernels | the emitter binds each variable before the nodes that use it |
//! | every node's operands come before it; every fold and capture it names exists | kernels | the emitter walks nodes in order |
//! | every load stays inside its buffer for every value of the loop variables, or is clamped into it; its element count is its buffer's | kernels | kernels load without bounds checks |
//! | the split loop's variable is written by every pass | kernels | chunks run on different threads must write different elements |
//! | a dot reads and writes inside its buffers, of its element type | kernels | the float GEMM and the integer kernel index without checks |
//! | a sort's rows tile its buffers, of the types it declares; its comparator's loads stay inside them (`verify/sort.rs`) | kernels | the sort routines and the inline merge sort index without checks |
//!
//! The checks are linear in the size of the IR (a few microseconds per
//! kernel, against milliseconds of Cranelift compilation), so they run on
//! every compile, in release builds too: the `SAFETY` comments of the run
//! path and the thread pool rest on them. A problem is a bug in the JIT
//! and becomes [`oxla_ir::Error::Internal`], never a panic.

use std::collections::HashMap;
use std::fmt;

use std::collections::HashSet;

use oxla_ir::{Body, Computation, ElementType, InstId, Result, Shape};

use crate::entity::{BufferId, FoldId, IdVec, LoopVar, NodeId, RegionId};
use crate::error::{Stage, internal};
use crate::fusion::tuples::{self, Sym, Tree};
use crate::fusion::{BufferKind, InitLeaf, Leaf, OutputTree, Plan, Regions, Role, Step, StepKind};
use crate::graph::{Graph, Node, reachable};
use crate::ix::{Atom, Extents, Ix};
use crate::kernel::{DotKernel, KernelDesc, LoopKernel, Work};

mod sort;

/// Where a kernel-level problem is: step `step` of the plan, kernel
/// `kernel` of that step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct At {
    pub(crate) step: usize,
    pub(crate) kernel: usize,
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// An output or temporary buffer written by no step, or by several.
    WriterCount { buf: BufferId, steps: Vec<usize> },
    /// Two storage entries of the run's table (`buffers.rs`) that are
    /// live at the same item share bytes of the arena, or one has no
    /// place inside it.
    SharedStorage { a: usize, b: Option<usize> },
    /// An argument or constant buffer written by a step.
    InputWritten { buf: BufferId, step: usize },
    /// A step (or a pass of a row group) reads a buffer that no earlier
    /// step (or pass) writes.
    ReadBeforeWrite { buf: BufferId, step: usize },
    /// The result tree and the output buffers disagree.
    OutputLeaf { buf: BufferId, what: &'static str },
    /// A row group that is not a reduce followed by reduces and loops, or
    /// whose kept value is not in its last pass's output.
    RowGroupShape { step: usize, what: &'static str },
    /// The loop nest is malformed (loop order, split loop, row loops).
    LoopNest { at: At, what: &'static str },
    /// An index expression uses a loop variable with no extent in its
    /// scope.
    UnboundVariable { at: At, var: LoopVar },
    /// A node reads a node that does not come before it, or names a fold
    /// or capture that does not exist.
    OperandOrder {
        at: At,
        fold: Option<FoldId>,
        node: NodeId,
    },
    /// A load's element count is not its buffer's.
    LoadSize {
        at: At,
        buf: BufferId,
        numel: i64,
        buffer_numel: i64,
    },
    /// An unclamped load can read outside its buffer.
    LoadOutOfBounds {
        at: At,
        buf: BufferId,
        lo: i128,
        hi: i128,
        numel: i64,
    },
    /// A write is not one element per iteration of its loops, inside its
    /// buffer.
    WriteMap { at: At, buf: BufferId, what: String },
    /// A step's kernels do not write every element of a buffer exactly
    /// once.
    WriteCoverage {
        step: usize,
        buf: BufferId,
        written: i128,
        numel: i64,
    },
    /// A pass reads a buffer its own kernel writes, but not after an
    /// earlier pass wrote it at the element (or row) it reads.
    ReadInKernel { at: At, pass: usize, buf: BufferId },
    /// The split loop's variable is not one a pass writes along, so two
    /// chunks could write the same element.
    SplitLoopNotWritten { at: At, pass: usize },
    /// An index expression reads a data index whose node is not a
    /// `Node::Index` clamping into the range the expression assumes.
    DataIndex {
        at: At,
        fold: Option<FoldId>,
        node: NodeId,
    },
    /// An in-place update that does not update its operand's buffer after
    /// the step that defines it.
    InPlace {
        step: usize,
        buf: BufferId,
        what: &'static str,
    },
    /// A step reads a value from a buffer that an in-place update has
    /// overwritten since (or before the value was written).
    StaleRead {
        buf: BufferId,
        step: usize,
        inst: String,
    },
    /// A dot reads or writes outside its buffers.
    DotBounds {
        at: At,
        buf: BufferId,
        what: &'static str,
    },
    /// A tiled convolution kernel (`convlib.rs`) that does not write every
    /// element of its output, names a buffer length that is not the
    /// buffer's own, reads a buffer that is not `f32` or not yet written,
    /// or whose reads do not fit its input or filter.
    ConvBounds {
        at: At,
        buf: BufferId,
        what: &'static str,
    },
    /// A loop-state parameter updated in place whose update is malformed:
    /// not a parameter, or written by a step that does not compute the
    /// value listed with it.
    Update { buf: BufferId, what: &'static str },
    /// A step after the one that updates a parameter in place reads the
    /// parameter's old value.
    OldValueRead { buf: BufferId, step: usize },
    /// A region, loop or branch whose buffers do not match what it is
    /// bound to (see `check_program`).
    Binding { what: String },
    /// A sort kernel's rows, buffers or comparator do not fit together
    /// (see `verify/sort.rs`).
    SortBounds {
        at: At,
        buf: BufferId,
        what: &'static str,
    },
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {} kernel {}", self.step, self.kernel)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::WriterCount { buf, steps } => {
                write!(
                    f,
                    "{buf} is written by {} steps {steps:?}, not one",
                    steps.len()
                )
            }
            Problem::InputWritten { buf, step } => {
                write!(f, "step {step} writes {buf}, an argument or constant")
            }
            Problem::SharedStorage { a, b: Some(b) } => write!(
                f,
                "table entries {a} and {b} are live at once and share arena bytes"
            ),
            Problem::SharedStorage { a, b: None } => {
                write!(f, "table entry {a} has no place inside the arena")
            }
            Problem::ReadBeforeWrite { buf, step } => {
                write!(f, "step {step} reads {buf} before any step writes it")
            }
            Problem::OutputLeaf { buf, what } => write!(f, "{buf}: {what}"),
            Problem::RowGroupShape { step, what } => write!(f, "step {step}: {what}"),
            Problem::LoopNest { at, what } => write!(f, "{at}: {what}"),
            Problem::UnboundVariable { at, var } => {
                write!(f, "{at}: an index uses {var}, which has no extent there")
            }
            Problem::OperandOrder { at, fold, node } => match fold {
                Some(fold) => write!(f, "{at}: {node} of {fold} reads a node not before it"),
                None => write!(f, "{at}: {node} reads a node not before it"),
            },
            Problem::LoadSize {
                at,
                buf,
                numel,
                buffer_numel,
            } => write!(
                f,
                "{at}: a load of {buf} assumes {numel} elements, the buffer has {buffer_numel}"
            ),
            Problem::LoadOutOfBounds {
                at,
                buf,
                lo,
                hi,
                numel,
            } => write!(
                f,
                "{at}: an unclamped load of {buf} reads elements {lo}..={hi}, outside 0..{numel}"
            ),
            Problem::WriteMap { at, buf, what } => write!(f, "{at}: the write of {buf} {what}"),
            Problem::WriteCoverage {
                step,
                buf,
                written,
                numel,
            } => write!(
                f,
                "step {step} writes {written} elements of {buf}, which has {numel}"
            ),
            Problem::ReadInKernel { at, pass, buf } => write!(
                f,
                "{at}: pass {pass} reads {buf}, which its kernel writes, other than where an \
                 earlier pass wrote it"
            ),
            Problem::SplitLoopNotWritten { at, pass } => write!(
                f,
                "{at}: pass {pass} writes no element along the split loop, so two chunks could \
                 write the same element"
            ),
            Problem::DataIndex { at, fold, node } => match fold {
                Some(fold) => write!(
                    f,
                    "{at}: an index of {fold} reads {node} as a data index outside its clamp"
                ),
                None => write!(
                    f,
                    "{at}: an index reads {node} as a data index outside its clamp"
                ),
            },
            Problem::InPlace { step, buf, what } => write!(f, "step {step} {what} ({buf})"),
            Problem::StaleRead { buf, step, inst } => write!(
                f,
                "step {step} reads `{inst}` from {buf}, which holds another value at that point"
            ),
            Problem::DotBounds { at, buf, what } => write!(f, "{at}: the dot {what} {buf}"),
            Problem::ConvBounds { at, buf, what } => {
                write!(f, "{at}: the tiled convolution {what} {buf}")
            }
            Problem::Update { buf, what } => write!(f, "the in-place update of {buf}: {what}"),
            Problem::OldValueRead { buf, step } => write!(
                f,
                "step {step} reads the old value of {buf} after it was updated in place"
            ),
            Problem::Binding { what } => write!(f, "{what}"),
            Problem::SortBounds { at, buf, what } => write!(f, "{at}: the sort {what} {buf}"),
        }
    }
}

/// The problems as one internal error of `stage`, if there are any.
fn report(stage: Stage, problems: Vec<Problem>) -> Result<()> {
    if problems.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    Err(internal(stage, lines.join("; ")))
}

/// Checks fusion's plan of `comp` (see the module docs).
pub(crate) fn verify_plan(comp: &Computation, plan: &Plan) -> Result<()> {
    report(Stage::VerifyPlan, check_plan(comp, plan))
}

/// Checks lowering's kernels, `lowered[k]` those of step `k` of `plan`
/// (the plan of `comp`).
pub(crate) fn verify_kernels(
    comp: &Computation,
    plan: &Plan,
    lowered: &[Vec<KernelDesc>],
) -> Result<()> {
    let mut problems = check_kernels(plan, lowered);
    problems.extend(check_grouped_updates(comp, plan, lowered));
    report(Stage::VerifyKernels, problems)
}

/// A loop group that updates a loop-state parameter in place while a
/// later member reads the parameter's old value (`fusion/control.rs`)
/// must run as one kernel, which loads every value of an element before
/// it stores any: run as its members' kernels, the later member would
/// read the new value.
fn check_grouped_updates(
    comp: &Computation,
    plan: &Plan,
    lowered: &[Vec<KernelDesc>],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    if plan.updates.is_empty() {
        return problems;
    }
    let body = comp.entry();
    let trees = tuples::value_trees(body);
    for (k, step) in plan.steps.iter().enumerate() {
        let StepKind::LoopGroup { members } = &step.kind else {
            continue;
        };
        if lowered.get(k).is_some_and(|kernels| kernels.len() <= 1) {
            continue;
        }
        for &(b, _) in &plan.updates {
            let Some(BufferKind::Param(j)) = plan.buffers.get(b).map(|x| &x.kind) else {
                continue;
            };
            let Some(old) = tuples::param_sym(body, j.index()) else {
                continue;
            };
            let Some(w) = members.iter().position(|m| m.out == b) else {
                continue;
            };
            if members[w + 1..]
                .iter()
                .any(|m| step_syms(body, &trees, plan, m).contains(&old))
            {
                problems.push(Problem::OldValueRead { buf: b, step: k });
            }
        }
    }
    problems
}

/// Checks how the regions of a program fit together (see
/// [`check_program`]).
pub(crate) fn verify_program(regions: &Regions) -> Result<()> {
    report(Stage::VerifyPlan, check_program(regions))
}

/// Checks the run's buffer assignment (see [`check_buffer_layout`]).
pub(crate) fn verify_buffer_layout(
    slots: &[crate::program::Slot],
    live: &crate::buffers::Liveness,
    layout: &crate::buffers::Layout,
) -> Result<()> {
    report(
        Stage::VerifyKernels,
        check_buffer_layout(slots, live, layout),
    )
}

/// The problems of a buffer assignment: every storage entry of the table
/// has a place inside the arena, and two entries whose live ranges meet
/// share no byte (so whatever one kernel or copy touches is distinct
/// memory). Entries live at once are found by a sweep over the ranges.
pub(crate) fn check_buffer_layout(
    slots: &[crate::program::Slot],
    live: &crate::buffers::Liveness,
    layout: &crate::buffers::Layout,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    // (entry, first, last, offset, bytes)
    let mut placed = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        if let crate::program::Slot::Scratch(bytes) = slot {
            let bytes = (*bytes).max(1);
            match layout.offsets.get(i).copied().flatten() {
                Some(off) if off + bytes <= layout.arena_bytes => {
                    let (a, b) = live
                        .ranges
                        .get(i)
                        .copied()
                        .flatten()
                        .unwrap_or((usize::MAX, usize::MAX));
                    placed.push((i, a, b, off, bytes));
                }
                _ => problems.push(Problem::SharedStorage { a: i, b: None }),
            }
        }
    }
    placed.sort_by_key(|p| (p.1, p.2));
    let mut open: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    for p in placed {
        open.retain(|q| q.2 >= p.1);
        for q in &open {
            if q.3 < p.3 + p.4 && p.3 < q.3 + q.4 {
                problems.push(Problem::SharedStorage {
                    a: q.0,
                    b: Some(p.0),
                });
            }
        }
        open.push(p);
    }
    problems
}

// ---------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------

/// The problems of a program's regions taken together: every copy and
/// every binding joins buffers of one shape, so the run path may copy
/// whole buffers and hand a region its caller's buffers.
///
/// - each result leaf of a region has the shape of the buffer, parameter
///   leaf or constant it comes from;
/// - a loop's state leaves start from values of their shapes, and its
///   condition and body take the state's leaf shapes; the condition gives
///   one `pred[]`, the body the state's shapes;
/// - a branch's selector is a `pred[]` or `s32[]`; each branch takes its
///   operand buffers' shapes and gives the conditional's output shapes;
/// - only loop bodies update parameters in place.
pub(crate) fn check_program(regions: &Regions) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut fail = |what: String| problems.push(Problem::Binding { what });
    let param_shapes = |r: RegionId| -> Vec<Shape> {
        regions.get(r).map_or_else(Vec::new, |region| {
            region
                .comp
                .parameter_shapes()
                .iter()
                .flat_map(tuples::leaf_shapes)
                .collect()
        })
    };
    let result_shapes = |r: RegionId| -> Vec<Shape> {
        regions.get(r).map_or_else(Vec::new, |region| {
            tuples::leaf_shapes(region.comp.result_shape())
        })
    };
    for (r, region) in regions.iter() {
        let plan = &region.plan;
        let shape_of = |b: BufferId| plan.buffers.get(b).map(|x| x.shape.clone());
        if !plan.updates.is_empty() && region.role != Role::LoopBody {
            fail(format!(
                "{r}: parameters updated in place outside a loop body"
            ));
        }
        let params = param_shapes(r);
        let results = result_shapes(r);
        let leaves = crate::program::leaves(&plan.output);
        if leaves.len() != results.len() {
            fail(format!(
                "{r}: {} result leaves for a result of {}",
                leaves.len(),
                results.len()
            ));
        }
        for (i, (leaf, want)) in leaves.iter().zip(&results).enumerate() {
            let got = match leaf {
                Leaf::Buffer(b) | Leaf::Duplicate(b) => shape_of(*b),
                Leaf::Param(j) => params.get(j.index()).cloned(),
                Leaf::Constant(l) => Some(l.shape().clone()),
            };
            if got.as_ref() != Some(want) {
                fail(format!("{r}: result leaf {i} is not a {want}"));
            }
        }
        for (k, step) in plan.steps.iter().enumerate() {
            match &step.kind {
                StepKind::While(w) => {
                    let state: Vec<Option<Shape>> = w.state.iter().map(|&b| shape_of(b)).collect();
                    for (leaf, want) in w.init.iter().zip(&state) {
                        let got = match leaf {
                            InitLeaf::Copy(b) => shape_of(*b),
                            InitLeaf::Compute(i) => {
                                let body = region.comp.entry();
                                (i.index() < body.instructions.len())
                                    .then(|| body.inst(*i).shape.clone())
                            }
                        };
                        if got.is_none() || &got != want {
                            fail(format!(
                                "{r} step {k}: a loop state leaf starts from another shape"
                            ));
                        }
                    }
                    let state: Vec<Shape> = state.into_iter().flatten().collect();
                    if w.init.len() != w.state.len()
                        || param_shapes(w.cond) != state
                        || param_shapes(w.body) != state
                        || result_shapes(w.body) != state
                    {
                        fail(format!(
                            "{r} step {k}: the loop's condition or body does not take or give its state"
                        ));
                    }
                    if result_shapes(w.cond) != [Shape::new(ElementType::Pred, &[])] {
                        fail(format!(
                            "{r} step {k}: the loop condition does not give one pred[]"
                        ));
                    }
                }
                StepKind::Conditional(c) => {
                    let sel = shape_of(c.selector);
                    let scalar_of = |t: ElementType| Some(Shape::new(t, &[]));
                    if sel != scalar_of(ElementType::Pred) && sel != scalar_of(ElementType::S32) {
                        fail(format!(
                            "{r} step {k}: the selector is not a pred[] or s32[]"
                        ));
                    }
                    let outs: Vec<Option<Shape>> = c.outs.iter().map(|&b| shape_of(b)).collect();
                    for (b, (branch, ops)) in c.branches.iter().enumerate() {
                        let ops: Vec<Option<Shape>> = ops.iter().map(|&o| shape_of(o)).collect();
                        let takes: Vec<Option<Shape>> =
                            param_shapes(*branch).into_iter().map(Some).collect();
                        let gives: Vec<Option<Shape>> =
                            result_shapes(*branch).into_iter().map(Some).collect();
                        if takes != ops || gives != outs {
                            fail(format!(
                                "{r} step {k}: branch {b} does not take its operand or give the outputs"
                            ));
                        }
                    }
                }
                StepKind::Loop { .. }
                | StepKind::Reduce { .. }
                | StepKind::DotCopy { .. }
                | StepKind::Dot { .. }
                | StepKind::RowGroup { .. }
                | StepKind::LoopGroup { .. }
                | StepKind::MultiReduce { .. }
                | StepKind::Sort(_)
                | StepKind::SortKey { .. }
                | StepKind::Op(_) => {}
            }
        }
    }
    problems
}

// ---------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------

/// The buffers a step writes, one list per pass (one pass unless it is a
/// row group; a kept value is written by the pass that keeps it).
fn step_writes(step: &Step) -> Vec<Vec<BufferId>> {
    match &step.kind {
        StepKind::RowGroup { passes, keep, .. } => passes
            .iter()
            .enumerate()
            .map(|(p, pass)| {
                let mut w = vec![pass.out];
                w.extend(keep.filter(|k| k.from == p).map(|k| k.buf));
                w
            })
            .collect(),
        StepKind::LoopGroup { members } => members.iter().map(|m| vec![m.out]).collect(),
        StepKind::MultiReduce { outs, .. } => vec![outs.clone()],
        StepKind::While(w) => {
            let mut all = w.state.clone();
            if !all.contains(&step.out) {
                all.push(step.out);
            }
            vec![all]
        }
        StepKind::Conditional(c) => {
            let mut all = c.outs.clone();
            if !all.contains(&step.out) {
                all.push(step.out);
            }
            vec![all]
        }
        StepKind::Sort(sort) => vec![sort.writes()],
        StepKind::Loop { .. }
        | StepKind::Reduce { .. }
        | StepKind::DotCopy { .. }
        | StepKind::Dot { .. }
        | StepKind::Op(_)
        | StepKind::SortKey { .. } => vec![vec![step.out]],
    }
}

/// The buffer a step updates in place (its output, which already holds
/// its operand's value), if it is an in-place update.
fn updated_in_place(comp: &Computation, step: &Step) -> Option<(BufferId, InstId)> {
    match &step.kind {
        StepKind::Op(op) => op
            .updated_operand(comp.entry())
            .map(|operand| (step.out, operand)),
        StepKind::Loop { .. }
        | StepKind::Reduce { .. }
        | StepKind::DotCopy { .. }
        | StepKind::Dot { .. }
        | StepKind::RowGroup { .. }
        | StepKind::LoopGroup { .. }
        | StepKind::Sort(_)
        | StepKind::SortKey { .. }
        | StepKind::MultiReduce { .. }
        | StepKind::While(_)
        | StepKind::Conditional(_) => None,
    }
}

/// The instructions whose values steps compute into their buffers: each
/// with the step (and its output buffer).
fn producers(plan: &Plan) -> HashMap<InstId, (usize, BufferId)> {
    let mut producers = HashMap::new();
    for (k, step) in plan.steps.iter().enumerate() {
        let mut put = |inst: InstId, out: BufferId| {
            producers.insert(inst, (k, out));
        };
        match &step.kind {
            StepKind::Loop { root } => put(*root, step.out),
            StepKind::Reduce { inst } | StepKind::Dot { inst, .. } => put(*inst, step.out),
            StepKind::Op(op) if op.defines_inst() => put(op.inst(), step.out),
            StepKind::LoopGroup { members } => {
                for m in members {
                    if let StepKind::Loop { root } = m.kind {
                        put(root, m.out);
                    }
                }
            }
            StepKind::RowGroup { passes, .. } => {
                for pass in passes {
                    match pass.kind {
                        StepKind::Loop { root } => put(root, pass.out),
                        StepKind::Reduce { inst } => put(inst, pass.out),
                        StepKind::DotCopy { .. }
                        | StepKind::Dot { .. }
                        | StepKind::RowGroup { .. }
                        | StepKind::LoopGroup { .. }
                        | StepKind::Op(_)
                        | StepKind::Sort(_)
                        | StepKind::SortKey { .. }
                        | StepKind::MultiReduce { .. }
                        | StepKind::While(_)
                        | StepKind::Conditional(_) => {}
                    }
                }
            }
            // A sort's arrays are never updated in place (`fusion/ops.rs`),
            // so their reads need no producer.
            // Nor are the arrays of loops, branches and variadic reduces.
            StepKind::Op(_)
            | StepKind::MultiReduce { .. }
            | StepKind::While(_)
            | StepKind::Conditional(_)
            | StepKind::DotCopy { .. }
            | StepKind::Sort(_)
            | StepKind::SortKey { .. } => {}
        }
    }
    producers
}

/// One read of a step: the buffer, and the instruction whose value it
/// reads there (`None` for a helper buffer no instruction names: a dot
/// operand's canonical copy, a row group's kept value, select-and-scatter's
/// positions).
type Read = (BufferId, Option<InstId>);

/// The buffers a step reads, one list per pass: the materialised operands
/// of its root and fused instructions (and, after a row group's kept
/// value is stored, the buffer it is read from).
fn step_reads(comp: &Computation, plan: &Plan, step: &Step) -> Vec<Vec<Read>> {
    let body = comp.entry();
    let of = |root: InstId, fused: &[InstId], kept: Option<(InstId, BufferId)>| {
        let mut reads = Vec::new();
        for &i in fused.iter().chain(std::iter::once(&root)) {
            for o in &body.inst(i).operands {
                if let Some(&b) = plan.materialised.get(o) {
                    reads.push((b, Some(*o)));
                }
                if let Some((k, b)) = kept
                    && *o == k
                {
                    reads.push((b, None));
                }
            }
        }
        reads
    };
    // A dot operand read straight from its buffer is that instruction's.
    let named = |b: BufferId, inst: InstId, k: usize| -> Read {
        let operand = body.inst(inst).operands.get(k).copied();
        (b, operand.filter(|o| plan.materialised.get(o) == Some(&b)))
    };
    match &step.kind {
        StepKind::Loop { root } => vec![of(*root, &step.fused, None)],
        StepKind::Reduce { inst } => vec![of(*inst, &step.fused, None)],
        StepKind::DotCopy { source, .. } => vec![match plan.materialised.get(source) {
            Some(&b) => vec![(b, Some(*source))],
            None => {
                let mut reads = Vec::new();
                for &i in &step.fused {
                    for o in &body.inst(i).operands {
                        if let Some(&b) = plan.materialised.get(o) {
                            reads.push((b, Some(*o)));
                        }
                    }
                }
                reads
            }
        }],
        StepKind::Dot { inst, lhs, rhs, .. } => {
            vec![vec![named(lhs.buf, *inst, 0), named(rhs.buf, *inst, 1)]]
        }
        StepKind::Op(op) => {
            let mut reads = of(op.inst(), &step.fused, None);
            reads.extend(op.extra_reads().into_iter().map(|b| (b, None)));
            vec![reads]
        }
        StepKind::Sort(sort) => vec![sort.reads().into_iter().map(|b| (b, None)).collect()],
        StepKind::SortKey { inputs, .. } => vec![inputs.iter().map(|&b| (b, None)).collect()],
        StepKind::MultiReduce { inst, .. } => vec![of(*inst, &step.fused, None)],
        // A loop's init copies and a branch's operands and selector: the
        // buffers of tuple leaves, never updated in place (`fusion`).
        StepKind::While(w) => {
            let mut reads: Vec<Read> = w
                .init
                .iter()
                .filter_map(|i| match i {
                    InitLeaf::Copy(b) => Some((*b, None)),
                    InitLeaf::Compute(_) => None,
                })
                .collect();
            for &i in &step.fused {
                for o in &body.inst(i).operands {
                    if let Some(&b) = plan.materialised.get(o) {
                        reads.push((b, Some(*o)));
                    }
                }
            }
            vec![reads]
        }
        StepKind::Conditional(c) => {
            let mut reads = vec![(c.selector, None)];
            for (_, ops) in &c.branches {
                reads.extend(ops.iter().map(|&b| (b, None)));
            }
            vec![reads]
        }
        StepKind::LoopGroup { members } => members
            .iter()
            .map(|m| {
                let StepKind::Loop { root } = m.kind else {
                    return vec![];
                };
                of(root, &m.fused, None)
            })
            .collect(),
        StepKind::RowGroup { passes, keep, .. } => passes
            .iter()
            .enumerate()
            .map(|(p, pass)| {
                let kept = keep.filter(|k| p > k.from).map(|k| (k.inst, k.buf));
                match pass.kind {
                    StepKind::Loop { root } => of(root, &pass.fused, kept),
                    StepKind::Reduce { inst } => of(inst, &pass.fused, kept),
                    StepKind::DotCopy { .. }
                    | StepKind::Dot { .. }
                    | StepKind::RowGroup { .. }
                    | StepKind::LoopGroup { .. }
                    | StepKind::MultiReduce { .. }
                    | StepKind::While(_)
                    | StepKind::Conditional(_)
                    | StepKind::Op(_)
                    | StepKind::Sort(_)
                    | StepKind::SortKey { .. } => vec![],
                }
            })
            .collect(),
    }
}

/// The problems of fusion's plan of `comp`.
pub(crate) fn check_plan(comp: &Computation, plan: &Plan) -> Vec<Problem> {
    let mut problems = Vec::new();
    // Writers: the steps that define each buffer, and those that update it
    // in place afterwards.
    let count = plan.buffers.len();
    let mut writers: IdVec<BufferId, Vec<usize>> = IdVec::filled(count, vec![]);
    let mut updaters: IdVec<BufferId, Vec<usize>> = IdVec::filled(count, vec![]);
    for (k, step) in plan.steps.iter().enumerate() {
        let in_place = updated_in_place(comp, step);
        for b in step_writes(step).into_iter().flatten() {
            let list = if in_place.is_some_and(|(u, _)| u == b) {
                updaters.get_mut(b)
            } else {
                writers.get_mut(b)
            };
            match list {
                Some(w) if !w.contains(&k) => w.push(k),
                Some(_) => {}
                None => problems.push(Problem::WriterCount {
                    buf: b,
                    steps: vec![k],
                }),
            }
        }
        // An in-place update's operand lives in its buffer.
        if let Some((b, operand)) = in_place
            && plan.materialised.get(&operand) != Some(&b)
        {
            problems.push(Problem::InPlace {
                step: k,
                buf: b,
                what: "updates a buffer its operand does not live in",
            });
        }
    }
    let updated = |b: BufferId| plan.updates.iter().any(|u| u.0 == b);
    for (b, buffer) in plan.buffers.iter() {
        let w = &writers[b];
        let u = &updaters[b];
        match buffer.kind {
            BufferKind::Output(_) | BufferKind::Temp if w.len() != 1 => {
                let mut steps = w.clone();
                steps.extend(u);
                problems.push(Problem::WriterCount { buf: b, steps });
            }
            BufferKind::Param(_) if updated(b) && w.len() != 1 => {
                problems.push(Problem::WriterCount {
                    buf: b,
                    steps: w.clone(),
                });
            }
            BufferKind::Param(_) if updated(b) => {}
            BufferKind::Param(_) | BufferKind::Constant(_) if !w.is_empty() || !u.is_empty() => {
                let step = w.first().or(u.first()).copied().unwrap_or(0);
                problems.push(Problem::InputWritten { buf: b, step });
            }
            BufferKind::Output(_) | BufferKind::Temp if u.iter().any(|&s| s < w[0]) => {
                problems.push(Problem::InPlace {
                    step: u[0],
                    buf: b,
                    what: "updates a buffer before the step that defines it",
                });
            }
            BufferKind::Output(_)
            | BufferKind::Temp
            | BufferKind::Param(_)
            | BufferKind::Constant(_) => {}
        }
    }
    // Reads after writes; of a buffer updated in place, between the step
    // that wrote the value read and the next update.
    let producers = producers(plan);
    // A read names the instruction it reads; an element of a tuple
    // (`get-tuple-element` of a `tuple`) is the array it names, in that
    // array's buffer, so its producer is that array's.
    let trees = tuples::value_trees(comp.entry());
    let value_of = |i: InstId| match trees.get(i.index()) {
        Some(Tree::Leaf(Sym::Inst(x))) => *x,
        Some(Tree::Leaf(Sym::Part(..)) | Tree::Tuple(_)) | None => i,
    };
    let written_before = |b: BufferId, k: usize| match plan.buffers.get(b).map(|x| &x.kind) {
        Some(BufferKind::Param(_) | BufferKind::Constant(_)) => true,
        Some(BufferKind::Output(_) | BufferKind::Temp) => {
            !writers[b].is_empty() && writers[b].iter().all(|&w| w < k)
        }
        None => false,
    };
    for (k, step) in plan.steps.iter().enumerate() {
        let writes = step_writes(step);
        let in_place = updated_in_place(comp, step);
        for (p, reads) in step_reads(comp, plan, step).into_iter().enumerate() {
            for (b, inst) in reads {
                let earlier_pass = writes[..p.min(writes.len())]
                    .iter()
                    .flatten()
                    .any(|&w| w == b);
                let updated = updaters.get(b).is_some_and(|u| !u.is_empty());
                if let (true, Some(i)) = (updated, inst) {
                    // The step that wrote `i` into `b`, and no update of `b`
                    // between it and this read (this step may read its own
                    // operand: the kernel verifier checks where).
                    let own_operand = in_place == Some((b, i));
                    let ok = match producers.get(&value_of(i)) {
                        Some(&(w, wb)) => {
                            wb == b
                                && (w < k || (w == k && earlier_pass))
                                && updaters[b].iter().all(|&u| u <= w || u >= k)
                                && (own_operand || !updaters[b].contains(&k) || w == k)
                        }
                        None => false,
                    };
                    if !ok {
                        problems.push(Problem::StaleRead {
                            buf: b,
                            step: k,
                            inst: comp.entry().inst(i).name.clone(),
                        });
                    }
                    continue;
                }
                if !earlier_pass && !written_before(b, k) && in_place.is_none_or(|(u, _)| u != b) {
                    problems.push(Problem::ReadBeforeWrite { buf: b, step: k });
                }
            }
        }
        if let StepKind::RowGroup { passes, keep, .. } = &step.kind {
            check_row_group(k, step, passes, *keep, &mut problems);
        }
    }
    // Loop state updated in place.
    if !plan.updates.is_empty() {
        check_updates(comp, plan, &writers, &mut problems);
    }
    // The result tree.
    let mut leaves = Vec::new();
    collect_leaves(&plan.output, &mut leaves);
    for (b, buffer) in plan.buffers.iter() {
        let named = leaves
            .iter()
            .filter(|l| matches!(l, Leaf::Buffer(x) if *x == b))
            .count();
        let is_output = matches!(buffer.kind, BufferKind::Output(_));
        if is_output && named != 1 {
            problems.push(Problem::OutputLeaf {
                buf: b,
                what: "an output buffer that is not exactly one leaf of the result",
            });
        }
        if !is_output && named > 0 {
            problems.push(Problem::OutputLeaf {
                buf: b,
                what: "a result leaf that is not an output buffer",
            });
        }
    }
    for leaf in &leaves {
        if let Leaf::Duplicate(b) = leaf
            && !leaves
                .iter()
                .any(|l| matches!(l, Leaf::Buffer(x) if x == b))
        {
            problems.push(Problem::OutputLeaf {
                buf: *b,
                what: "a duplicate leaf of a buffer no leaf holds",
            });
        }
    }
    for &b in plan.called_constants.values() {
        if !matches!(
            plan.buffers.get(b).map(|x| &x.kind),
            Some(BufferKind::Constant(_))
        ) {
            problems.push(Problem::OutputLeaf {
                buf: b,
                what: "a called body's constant that is not a constant buffer",
            });
        }
    }
    problems
}

/// The arrays a step reads from buffers: the operands of its root and
/// fused instructions that are materialised (or tuples, by leaf).
fn step_syms(body: &Body, trees: &[Tree], plan: &Plan, step: &Step) -> HashSet<Sym> {
    let mut insts: Vec<InstId> = Vec::new();
    let mut add_step = |st: &Step| {
        insts.extend(st.fused.iter().copied());
        match &st.kind {
            StepKind::Loop { root } => insts.push(*root),
            StepKind::Reduce { inst }
            | StepKind::Dot { inst, .. }
            | StepKind::MultiReduce { inst, .. } => insts.push(*inst),
            StepKind::DotCopy { source, .. } => insts.push(*source),
            StepKind::While(w) => insts.push(w.inst),
            StepKind::Conditional(c) => insts.push(c.inst),
            StepKind::Sort(sort) => insts.push(sort.inst),
            StepKind::SortKey { sort, .. } => insts.push(*sort),
            StepKind::Op(op) => insts.push(op.inst()),
            StepKind::RowGroup { .. } | StepKind::LoopGroup { .. } => {}
        }
    };
    add_step(step);
    if let StepKind::RowGroup { passes, .. } | StepKind::LoopGroup { members: passes } = &step.kind
    {
        passes.iter().for_each(&mut add_step);
    }
    let mut out = HashSet::new();
    for i in insts {
        for &o in &body.inst(i).operands {
            let tuple = matches!(trees[o.index()], Tree::Tuple(_));
            if tuple || plan.materialised.contains_key(&o) {
                out.extend(trees[o.index()].flat());
            }
        }
    }
    out
}

/// Each parameter updated in place is written by the step that computes
/// its new value, and no later step reads its old value.
fn check_updates(
    comp: &Computation,
    plan: &Plan,
    writers: &IdVec<BufferId, Vec<usize>>,
    problems: &mut Vec<Problem>,
) {
    let body = comp.entry();
    let trees = tuples::value_trees(body);
    for &(b, s) in &plan.updates {
        let Some(BufferKind::Param(j)) = plan.buffers.get(b).map(|x| &x.kind) else {
            problems.push(Problem::Update {
                buf: b,
                what: "it is not a parameter buffer",
            });
            continue;
        };
        let Some(old) = tuples::param_sym(body, j.index()) else {
            problems.push(Problem::Update {
                buf: b,
                what: "it is no parameter leaf of the body",
            });
            continue;
        };
        let Some(&w) = writers.get(b).and_then(|w| w.first()) else {
            continue; // reported as a writer count
        };
        let computes = match (&plan.steps[w].kind, s) {
            (StepKind::Loop { root: r }, Sym::Inst(v))
            | (StepKind::Reduce { inst: r }, Sym::Inst(v))
            | (StepKind::Dot { inst: r, .. }, Sym::Inst(v)) => *r == v,
            (
                StepKind::RowGroup { passes, .. } | StepKind::LoopGroup { members: passes },
                Sym::Inst(v),
            ) => passes
                .iter()
                .any(|p| p.out == b && matches!(p.kind, StepKind::Loop { root } if root == v)),
            (StepKind::MultiReduce { inst, outs }, Sym::Part(x, k)) => {
                *inst == x && outs.get(k) == Some(&b)
            }
            (StepKind::While(st), Sym::Part(x, k)) => st.inst == x && st.state.get(k) == Some(&b),
            (StepKind::Conditional(c), Sym::Part(x, k)) => c.inst == x && c.outs.get(k) == Some(&b),
            (StepKind::Sort(st), Sym::Part(x, k)) => {
                st.inst == x && st.outputs.get(k) == Some(&Some(b))
            }
            (StepKind::Sort(st), Sym::Inst(v)) => {
                st.inst == v && st.outputs.first() == Some(&Some(b))
            }
            _ => false,
        };
        if !computes {
            problems.push(Problem::Update {
                buf: b,
                what: "its writer does not compute the value it is updated with",
            });
        }
        for (k, step) in plan.steps.iter().enumerate().skip(w + 1) {
            if step_syms(body, &trees, plan, step).contains(&old) {
                problems.push(Problem::OldValueRead { buf: b, step: k });
            }
        }
    }
}

fn collect_leaves<'t>(tree: &'t OutputTree, out: &mut Vec<&'t Leaf>) {
    match tree {
        OutputTree::Leaf(l) => out.push(l),
        OutputTree::Tuple(items) => items.iter().for_each(|t| collect_leaves(t, out)),
    }
}

/// A row group is a reduce, then reduces and loops; its output is its last
/// pass's; its kept value is stored by an earlier pass into that output.
fn check_row_group(
    k: usize,
    step: &Step,
    passes: &[Step],
    keep: Option<crate::fusion::KeepPlan>,
    problems: &mut Vec<Problem>,
) {
    let mut fail = |what| problems.push(Problem::RowGroupShape { step: k, what });
    let Some(last) = passes.last() else {
        return fail("a row group without passes");
    };
    if !matches!(passes[0].kind, StepKind::Reduce { .. }) {
        fail("a row group that does not start with a reduce");
    }
    if passes
        .iter()
        .any(|p| !matches!(p.kind, StepKind::Reduce { .. } | StepKind::Loop { .. }))
    {
        fail("a row-group pass that is not a reduce or a loop");
    }
    if last.out != step.out {
        fail("a row group whose output is not its last pass's");
    }
    if let Some(kp) = keep
        && (kp.from + 1 >= passes.len() || kp.buf != last.out)
    {
        fail("a kept value not stored by an earlier pass into the last pass's output");
    }
}

// ---------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------

/// A write of a pass: `offset` over the loop variables `vars`.
struct WriteSet {
    /// The constant part.
    constant: i64,
    /// (variable, coefficient, extent), by ascending coefficient.
    terms: Vec<(LoopVar, i64, i64)>,
}

impl WriteSet {
    /// `offset` as a write along `vars` (each iteration of those loops one
    /// element): affine in them, positive coefficients, no other variable.
    fn of(
        offset: &Ix,
        vars: &[LoopVar],
        extents: &Extents,
    ) -> std::result::Result<WriteSet, String> {
        let mut terms = Vec::new();
        for (atom, c) in offset.terms() {
            let Atom::Var(v) = atom else {
                return Err(format!("is not affine ({offset})"));
            };
            if !vars.contains(v) {
                return Err(format!("varies along {v}, which it does not write along"));
            }
            if *c <= 0 {
                return Err(format!("steps backwards along {v} ({offset})"));
            }
            terms.push((*v, *c, extents.get(*v).copied().unwrap_or(0)));
        }
        for &v in vars {
            if extents.get(v).is_some_and(|&e| e > 1) && !terms.iter().any(|t| t.0 == v) {
                return Err(format!(
                    "is the same for every {v}: written {} times",
                    extents[v]
                ));
            }
        }
        terms.sort_by_key(|t| t.1);
        Ok(WriteSet {
            constant: offset.constant_part(),
            terms,
        })
    }

    /// How many elements it writes.
    fn count(&self) -> i128 {
        self.terms.iter().map(|t| t.2.max(0) as i128).product()
    }

    /// Whether no element is written twice: each coefficient exceeds the
    /// span of the smaller ones.
    fn injective(&self) -> bool {
        let mut span: i128 = 0;
        for &(_, a, e) in &self.terms {
            if e > 1 {
                if (a as i128) <= span {
                    return false;
                }
                span += a as i128 * (e as i128 - 1);
            }
        }
        true
    }

    /// The first and last element written (when it writes any).
    fn range(&self) -> (i128, i128) {
        let span: i128 = self
            .terms
            .iter()
            .map(|&(_, a, e)| a as i128 * (e.max(1) as i128 - 1))
            .sum();
        (self.constant as i128, self.constant as i128 + span)
    }
}

/// Joins the writes of the stretches of a split loop (same terms but for
/// one variable's extent, constants apart along it) into one, if they
/// tile one interval of that variable.
///
/// A stretch one element long may have lost its variable's term (an
/// extent-1 loop adds nothing to the offset): a variable another stretch
/// writes along is given back to the stretches that lack it, with its
/// coefficient and extent 1, which names the same elements. When no
/// stretch keeps it (every stretch one element long along it: a
/// concatenate of `[.., 1]` parts along their last dimension), the
/// stretches are joined along a stand-in variable whose coefficient is the
/// greatest common divisor of their constants' differences. Either way the
/// join is the union of the stretches' elements exactly: each stretch is
/// `c + a*x + rest` with `x` in `[0, e)`, which is `c0 + a*(d + x) + rest`
/// for `c = c0 + a*d`, so stretches whose `[d, d + e)` tile an interval
/// make up that interval; the caller still checks the join is injective
/// and inside its buffer.
fn join_stretches(sets: Vec<WriteSet>) -> Option<WriteSet> {
    let mut sets = sets;
    // Every variable some stretch writes along, with its coefficient.
    let mut vars: Vec<(LoopVar, i64)> = Vec::new();
    for s in &sets {
        for &(v, a, _) in &s.terms {
            match vars.iter().find(|t| t.0 == v) {
                Some(&(_, b)) if a != b => return None,
                Some(_) => {}
                None => vars.push((v, a)),
            }
        }
    }
    for s in &mut sets {
        for &(v, a) in &vars {
            if !s.terms.iter().any(|t| t.0 == v) {
                s.terms.push((v, a, 1));
            }
        }
        s.terms.sort_by_key(|t| (t.1, t.0));
    }
    if let Some(joined) = join_along_one(&sets) {
        return Some(joined);
    }
    // Every stretch the same along every variable: join along a stand-in.
    let first = sets.first()?;
    let gcd = sets.iter().fold(0i128, |g, s| {
        let mut a = g;
        let mut b = (s.constant as i128 - first.constant as i128).abs();
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    });
    let a = i64::try_from(gcd).ok().filter(|&a| a > 0)?;
    let stand_in = LoopVar::new(u32::MAX as usize);
    for s in &mut sets {
        s.terms.push((stand_in, a, 1));
        s.terms.sort_by_key(|t| (t.1, t.0));
    }
    join_along_one(&sets)
}

/// [`join_stretches`] of stretches with the same variables and
/// coefficients: along the one variable whose extent differs, or, when
/// all extents agree, along the first variable the stretches tile.
fn join_along_one(sets: &[WriteSet]) -> Option<WriteSet> {
    let first = sets.first()?;
    let n = first.terms.len();
    if sets.iter().any(|s| {
        s.terms.len() != n
            || s.terms
                .iter()
                .zip(&first.terms)
                .any(|(a, b)| (a.0, a.1) != (b.0, b.1))
    }) {
        return None;
    }
    let differs = |i: usize| sets.iter().any(|s| s.terms[i].2 != first.terms[i].2);
    let candidates: Vec<usize> = match (0..n).filter(|&i| differs(i)).collect::<Vec<_>>() {
        d if d.len() > 1 => return None,
        d if d.len() == 1 => d,
        _ => (0..n).collect(),
    };
    candidates.into_iter().find_map(|q| tile_along(sets, q))
}

/// The stretches joined along term `q`, if their intervals of it tile one
/// interval (starts counted from the first stretch's constant).
fn tile_along(sets: &[WriteSet], q: usize) -> Option<WriteSet> {
    let first = sets.first()?;
    let a = first.terms[q].1 as i128;
    let mut spans: Vec<(i128, i128)> = Vec::with_capacity(sets.len());
    for s in sets {
        let d = s.constant as i128 - first.constant as i128;
        if a == 0 || d % a != 0 {
            return None;
        }
        spans.push((d / a, d / a + s.terms[q].2 as i128));
    }
    spans.sort_unstable();
    let lo = spans[0].0;
    let mut end = lo;
    for &(s, e) in &spans {
        if s != end {
            return None;
        }
        end = e;
    }
    let mut terms = first.terms.clone();
    terms[q].2 = i64::try_from(end - lo).ok()?;
    Some(WriteSet {
        constant: i64::try_from(first.constant as i128 + lo * a).ok()?,
        terms,
    })
}

/// The loop variables a pass writes along (one element per iteration of
/// them): every loop of a store, the row loops of a row pass, the kept
/// loops of a reduction.
fn written_vars(kernel: &LoopKernel, pass: usize) -> Vec<LoopVar> {
    let order = &kernel.loop_order;
    let p = &kernel.passes[pass];
    match &p.work {
        Work::Store { .. } if p.per_row => {
            order[..kernel.row_loops.unwrap_or(0).min(order.len())].to_vec()
        }
        Work::Store { .. } | Work::Update { .. } => order.clone(),
        Work::RowReduce { first_reduced, .. } => {
            order[..(*first_reduced).min(order.len())].to_vec()
        }
        Work::ColumnReduce { first_reduced, .. } => {
            let mut v = order[..(*first_reduced).min(order.len())].to_vec();
            v.extend(order.last());
            v
        }
    }
}

/// The element counts of the buffers.
fn numels(plan: &Plan) -> IdVec<BufferId, i64> {
    plan.buffers
        .values()
        .map(|b| b.shape.element_count())
        .collect()
}

/// The problems of lowering's kernels: `lowered[k]` are those of step `k`
/// of `plan`.
pub(crate) fn check_kernels(plan: &Plan, lowered: &[Vec<KernelDesc>]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let numel = numels(plan);
    let buffer_count = plan.buffers.len();
    let known = |b: BufferId| b.index() < buffer_count;
    // The buffer each step updates in place, if any.
    let in_place: Vec<Option<BufferId>> = plan
        .steps
        .iter()
        .map(|s| match &s.kind {
            StepKind::Op(op) if op.in_place() => Some(s.out),
            _ => None,
        })
        .collect();
    // The step writing each buffer, from the kernels (an in-place update
    // of a buffer is not its writer).
    let mut writer: IdVec<BufferId, Option<usize>> = IdVec::filled(buffer_count, None);
    for (k, kernels) in lowered.iter().enumerate() {
        for desc in kernels {
            let written: Vec<BufferId> = match desc {
                KernelDesc::Loop(kernel) => kernel.written().collect(),
                KernelDesc::Dot(dot) => vec![dot.out],
                KernelDesc::Conv(conv) => vec![conv.out],
                KernelDesc::Sort(sort) => sort.written(),
            };
            for b in written {
                if in_place.get(k).copied().flatten() == Some(b) {
                    continue;
                }
                match writer.get_mut(b) {
                    None => problems.push(Problem::WriterCount {
                        buf: b,
                        steps: vec![k],
                    }),
                    Some(Some(w)) if *w != k => problems.push(Problem::WriterCount {
                        buf: b,
                        steps: vec![*w, k],
                    }),
                    Some(slot) => *slot = Some(k),
                }
            }
        }
    }
    let updated = |b: BufferId| plan.updates.iter().any(|u| u.0 == b);
    for (b, buffer) in plan.buffers.iter() {
        if let (BufferKind::Param(_) | BufferKind::Constant(_), Some(k)) = (&buffer.kind, writer[b])
            && !updated(b)
        {
            problems.push(Problem::InputWritten { buf: b, step: k });
        }
    }
    // Buffers a loop or branch step writes without kernels (copies of its
    // init, its branches' results): checked by `check_program`.
    let mut by_control: IdVec<BufferId, Option<usize>> = IdVec::filled(buffer_count, None);
    for (k, step) in plan.steps.iter().enumerate() {
        if matches!(step.kind, StepKind::While(_) | StepKind::Conditional(_)) {
            for b in step_writes(step).into_iter().flatten() {
                if let Some(slot) = by_control.get_mut(b) {
                    *slot = Some(k);
                }
            }
        }
    }
    // An empty buffer has nothing to read (its step has no kernel).
    let read_ok = |b: BufferId, k: usize| -> bool {
        match plan.buffers.get(b).map(|x| &x.kind) {
            Some(BufferKind::Param(_) | BufferKind::Constant(_)) => true,
            Some(BufferKind::Output(_) | BufferKind::Temp) => {
                numel[b] == 0
                    || writer[b].is_some_and(|w| w < k)
                    || by_control[b].is_some_and(|w| w < k)
            }
            None => false,
        }
    };
    for (b, buffer) in plan.buffers.iter() {
        let must_write = matches!(buffer.kind, BufferKind::Output(_) | BufferKind::Temp)
            || (matches!(buffer.kind, BufferKind::Param(_)) && updated(b));
        if must_write && numel[b] > 0 && writer[b].is_none() && by_control[b].is_none() {
            problems.push(Problem::WriteCoverage {
                step: lowered.len(),
                buf: b,
                written: 0,
                numel: numel[b],
            });
        }
    }
    for (k, kernels) in lowered.iter().enumerate() {
        // Coverage: the step's writes of each buffer, by kernel; updates
        // (`Work::Update`) apart, with their kernel.
        let mut sets: Vec<(BufferId, WriteSet)> = Vec::new();
        let mut updates: Vec<(BufferId, usize)> = Vec::new();
        let mut last_set: Vec<(BufferId, usize)> = Vec::new();
        for (j, desc) in kernels.iter().enumerate() {
            let at = At { step: k, kernel: j };
            let before = sets.len();
            match desc {
                KernelDesc::Loop(kernel) => check_loop_kernel(
                    at,
                    kernel,
                    &numel,
                    &known,
                    &read_ok,
                    &updated,
                    (&mut sets, &mut updates),
                    &mut problems,
                ),
                KernelDesc::Dot(dot) => {
                    let ty_of = |b: BufferId| plan.buffers.get(b).map(|x| x.shape.element_type());
                    check_dot(at, dot, &numel, &known, &ty_of, &read_ok, &mut problems)
                }
                KernelDesc::Sort(sort) => {
                    sort::check_sort_kernel(at, sort, plan, &numel, &known, &read_ok, &mut problems)
                }
                KernelDesc::Conv(conv) => {
                    let ty_of = |b: BufferId| plan.buffers.get(b).map(|x| x.shape.element_type());
                    check_conv(at, conv, &numel, &known, &ty_of, &read_ok, &mut problems)
                }
            }
            last_set.extend(sets[before..].iter().map(|s| (s.0, j)));
        }
        // An update writes over a whole value: the step's own earlier
        // kernels wrote the buffer in full, or, in place, an earlier step.
        let own = in_place.get(k).copied().flatten();
        for &(b, j) in &updates {
            let ok = if own == Some(b) {
                writer[b].is_some_and(|w| w < k) && !sets.iter().any(|s| s.0 == b)
            } else {
                sets.iter().any(|s| s.0 == b)
                    && last_set.iter().filter(|s| s.0 == b).all(|s| s.1 < j)
            };
            if !ok {
                problems.push(Problem::WriteMap {
                    at: At { step: k, kernel: j },
                    buf: b,
                    what: "updates a buffer no earlier kernel or step wrote in full".into(),
                });
            }
        }
        let mut bufs: Vec<BufferId> = sets.iter().map(|s| s.0).collect();
        bufs.sort_unstable();
        bufs.dedup();
        for b in bufs {
            let mine: Vec<WriteSet> = sets
                .iter()
                .filter(|s| s.0 == b)
                .map(|s| WriteSet {
                    constant: s.1.constant,
                    terms: s.1.terms.clone(),
                })
                .collect();
            let parts = mine.len();
            let written: i128 = mine.iter().map(WriteSet::count).sum();
            let whole = if parts == 1 {
                mine.into_iter().next()
            } else {
                join_stretches(mine)
            };
            let ok = whole.is_some_and(|w| {
                let (lo, hi) = w.range();
                w.injective()
                    && w.count() == numel[b] as i128
                    && (w.count() == 0 || (lo >= 0 && hi < numel[b] as i128))
            });
            if !ok {
                problems.push(Problem::WriteCoverage {
                    step: k,
                    buf: b,
                    written,
                    numel: numel[b],
                });
            }
        }
    }
    problems
}

/// An update's write: the buffer and the kernel (of its step) writing it.
type Written = (BufferId, usize);

/// The checks of one loop kernel; its coverage writes go into `sets`
/// (its updates into `updates`).
#[allow(
    clippy::too_many_arguments,
    reason = "the kernel and the plan-wide tables"
)]
fn check_loop_kernel(
    at: At,
    kernel: &LoopKernel,
    numel: &IdVec<BufferId, i64>,
    known: &dyn Fn(BufferId) -> bool,
    read_ok: &dyn Fn(BufferId, usize) -> bool,
    updated: &dyn Fn(BufferId) -> bool,
    (sets, updates): (&mut Vec<(BufferId, WriteSet)>, &mut Vec<Written>),
    problems: &mut Vec<Problem>,
) {
    let graph = &kernel.graph;
    let loops = graph.extents.len();
    // The loop nest.
    let mut seen: IdVec<LoopVar, bool> = IdVec::filled(loops, false);
    let permutation = kernel.loop_order.len() == loops
        && kernel.loop_order.iter().all(|&v| {
            seen.get_mut(v).is_some_and(|s| {
                let fresh = !*s;
                *s = true;
                fresh
            })
        });
    if !permutation {
        problems.push(Problem::LoopNest {
            at,
            what: "the loop order is not a permutation of the kernel's loop variables",
        });
        return;
    }
    if kernel.split_loop.is_some_and(|d| d >= loops) {
        problems.push(Problem::LoopNest {
            at,
            what: "the split loop is not a loop of the nest",
        });
    }
    if kernel.passes.is_empty() {
        problems.push(Problem::LoopNest {
            at,
            what: "a kernel without passes",
        });
    }
    match kernel.row_loops {
        Some(r) if r == 0 || r >= loops => problems.push(Problem::LoopNest {
            at,
            what: "a row group's row loops are not the outer loops of its nest",
        }),
        None if kernel.passes.len() != 1 || kernel.passes.iter().any(|p| p.per_row) => {
            problems.push(Problem::LoopNest {
                at,
                what: "several passes, or a row pass, outside a row group",
            });
        }
        _ => {}
    }
    for pass in &kernel.passes {
        if let Work::RowReduce { first_reduced, .. } | Work::ColumnReduce { first_reduced, .. } =
            &pass.work
            && *first_reduced >= loops
        {
            problems.push(Problem::LoopNest {
                at,
                what: "a reduction whose reduced loops are not in the nest",
            });
        }
    }
    // Variables, operands, loads. The rules below walk operands: not when
    // they are out of order.
    if !check_scope(at, None, graph, &graph.nodes, loops, numel, known, problems) {
        return;
    }
    for (f, fold) in graph.folds.iter() {
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
        let in_range = |n: NodeId| n.index() < fold.nodes.len();
        if !in_range(fold.element) || !in_range(fold.combine) {
            problems.push(Problem::OperandOrder {
                at,
                fold: Some(f),
                node: fold.element.max(fold.combine),
            });
        }
        for &(v, _) in &fold.vars {
            if v.index() >= graph.var_count() {
                problems.push(Problem::UnboundVariable { at, var: v });
            }
        }
    }
    for pass in &kernel.passes {
        let roots = pass.roots();
        if let Some(&bad) = roots.iter().find(|n| n.index() >= graph.nodes.len()) {
            problems.push(Problem::OperandOrder {
                at,
                fold: None,
                node: bad,
            });
            return;
        }
        let mut offsets = vec![pass.work.out_offset()];
        offsets.extend(pass.keeps.iter().map(|k| &k.offset));
        for ix in offsets {
            check_vars(at, ix, loops, problems);
        }
    }
    // Writes: one element per iteration of the written loops, inside the
    // buffer; the split loop among them.
    let split_var = kernel
        .split_loop
        .and_then(|d| kernel.loop_order.get(d))
        .copied();
    // Where each buffer the kernel writes was written, by pass.
    let mut writes_in_kernel: Vec<(usize, BufferId, Ix)> = Vec::new();
    for (p, pass) in kernel.passes.iter().enumerate() {
        let vars = written_vars(kernel, p);
        for out in pass.work.outs() {
            if !known(out) {
                problems.push(Problem::WriterCount {
                    buf: out,
                    steps: vec![at.step],
                });
                continue;
            }
            if let Some(v) = split_var
                && !vars.contains(&v)
            {
                problems.push(Problem::SplitLoopNotWritten { at, pass: p });
            }
            if let Work::Update { out_offset, .. } = &pass.work {
                if let Err(what) = check_update(kernel, out_offset, &vars, numel[out]) {
                    problems.push(Problem::WriteMap { at, buf: out, what });
                }
                updates.push((out, at.kernel));
                writes_in_kernel.push((p, out, out_offset.clone()));
                continue;
            }
            match WriteSet::of(pass.work.out_offset(), &vars, &graph.extents) {
                Ok(set) => {
                    let (lo, hi) = set.range();
                    if !set.injective() {
                        problems.push(Problem::WriteMap {
                            at,
                            buf: out,
                            what: "writes some element twice".into(),
                        });
                    } else if set.count() > 0 && (lo < 0 || hi >= numel[out] as i128) {
                        problems.push(Problem::WriteMap {
                            at,
                            buf: out,
                            what: format!(
                                "reaches elements {lo}..={hi}, outside 0..{}",
                                numel[out]
                            ),
                        });
                    }
                    sets.push((out, set));
                }
                Err(what) => problems.push(Problem::WriteMap { at, buf: out, what }),
            }
            writes_in_kernel.push((p, out, pass.work.out_offset().clone()));
        }
        for keep in &pass.keeps {
            let covered_later = kernel.passes[p + 1..]
                .iter()
                .any(|q| q.work.out() == keep.buf && !q.per_row);
            // A loop group's member (`lower/loop_group.rs`): a value stored
            // beside a one-pass kernel's own, at the same element of a
            // buffer of its own, is a write like the pass's.
            let beside = !covered_later
                && kernel.passes.len() == 1
                && matches!(&pass.work, Work::Store { out, out_offset, .. }
                    if *out != keep.buf && *out_offset == keep.offset);
            if beside && known(keep.buf) {
                let vars = written_vars(kernel, p);
                match WriteSet::of(&keep.offset, &vars, &graph.extents) {
                    Ok(set) => {
                        let (lo, hi) = set.range();
                        if !set.injective() {
                            problems.push(Problem::WriteMap {
                                at,
                                buf: keep.buf,
                                what: "writes some element twice".into(),
                            });
                        } else if set.count() > 0 && (lo < 0 || hi >= numel[keep.buf] as i128) {
                            problems.push(Problem::WriteMap {
                                at,
                                buf: keep.buf,
                                what: format!(
                                    "reaches elements {lo}..={hi}, outside 0..{}",
                                    numel[keep.buf]
                                ),
                            });
                        }
                        sets.push((keep.buf, set));
                    }
                    Err(what) => problems.push(Problem::WriteMap {
                        at,
                        buf: keep.buf,
                        what,
                    }),
                }
                writes_in_kernel.push((p, keep.buf, keep.offset.clone()));
                continue;
            }
            let (lo, hi) = keep.offset.range(&graph.extents);
            if !known(keep.buf) || !covered_later || lo < 0 || hi >= numel[keep.buf] as i128 {
                problems.push(Problem::WriteMap {
                    at,
                    buf: keep.buf,
                    what: "keeps a value outside the buffer, or in one no later pass writes".into(),
                });
                continue;
            }
            writes_in_kernel.push((p, keep.buf, keep.offset.clone()));
        }
    }
    // Reads: of buffers other steps write, after them; of buffers this
    // kernel writes, by a later pass at the element an earlier pass wrote.
    for (p, pass) in kernel.passes.iter().enumerate() {
        for n in reachable(&graph.nodes, &pass.roots()) {
            let Node::Load { buf, offset, .. } = &graph.nodes[n] else {
                continue;
            };
            let mine: Vec<&(usize, BufferId, Ix)> =
                writes_in_kernel.iter().filter(|w| w.1 == *buf).collect();
            if mine.is_empty() {
                if !read_ok(*buf, at.step) {
                    problems.push(Problem::ReadBeforeWrite {
                        buf: *buf,
                        step: at.step,
                    });
                }
                continue;
            }
            let first = mine[0];
            // A parameter updated in place is read (its old value, or the
            // new one in a later pass) only at the element it is written;
            // an update reads the element it overwrites, unclamped.
            let own_element = matches!(
                &pass.work,
                Work::Update { out, out_offset, .. } if out == buf && out_offset == offset
            ) && !matches!(&graph.nodes[n], Node::Load { clamp: true, .. });
            let bad = if updated(*buf) {
                &first.2 != offset
            } else {
                !own_element && (first.0 >= p || &first.2 != offset)
            };
            if bad {
                problems.push(Problem::ReadInKernel {
                    at,
                    pass: p,
                    buf: *buf,
                });
            }
        }
    }
    for fold in graph.folds.values() {
        for node in fold.nodes.values() {
            if let Node::Load { buf, .. } = node {
                let here = writes_in_kernel.iter().any(|w| w.1 == *buf);
                if here || !read_ok(*buf, at.step) {
                    problems.push(Problem::ReadBeforeWrite {
                        buf: *buf,
                        step: at.step,
                    });
                }
            }
        }
    }
}

/// Every data index `ix` (read by node `user` of `nodes`, or by a write
/// when `user` is past the end) reads is an earlier `Node::Index` of the
/// same scope that clamps into the range the expression assumes.
fn check_data(
    at: At,
    fold: Option<FoldId>,
    nodes: &IdVec<NodeId, Node>,
    user: NodeId,
    ix: &Ix,
    problems: &mut Vec<Problem>,
) {
    let mut atoms = Vec::new();
    ix.data_atoms(&mut atoms);
    for (node, lo, hi) in atoms {
        let ok = node < user
            && matches!(
                nodes.get(node),
                Some(Node::Index { lo: l, hi: h, .. }) if *l >= lo && *h <= hi && l <= h
            );
        if !ok {
            problems.push(Problem::DataIndex { at, fold, node });
        }
    }
}

/// The write of an update (`Work::Update`) along `vars`: an index that
/// is affine in loop variables (positive coefficients) and data indices,
/// inside the buffer for every value of both; and, when the kernel is
/// split across threads, one element per iteration whatever the data: the
/// loop variables written injectively, the data indices the same in every
/// iteration (they read no loop variable).
fn check_update(
    kernel: &LoopKernel,
    offset: &Ix,
    vars: &[LoopVar],
    numel: i64,
) -> std::result::Result<(), String> {
    let graph = &kernel.graph;
    let mut loop_part = Ix::constant(offset.constant_part());
    for (atom, c) in offset.terms() {
        match atom {
            Atom::Var(v) if *c > 0 && vars.contains(v) => {
                loop_part = loop_part.add(&Ix::var(*v).scale(*c));
            }
            Atom::Data { .. } if *c > 0 => {}
            Atom::Var(_) | Atom::Data { .. } | Atom::Div(..) | Atom::Mod(..) => {
                return Err(format!("is not an update index ({offset})"));
            }
        }
    }
    let (lo, hi) = offset.range(&graph.extents);
    let count: i128 = graph.extents.values().map(|&e| e.max(0) as i128).product();
    if count > 0 && (lo < 0 || hi >= numel as i128) {
        return Err(format!("reaches elements {lo}..={hi}, outside 0..{numel}"));
    }
    if kernel.split_loop.is_some() {
        let mut data = Vec::new();
        offset.data_nodes(&mut data);
        let invariant = data.iter().all(|&n| node_invariant(&graph.nodes, n));
        let injective = WriteSet::of(&loop_part, vars, &graph.extents).is_ok_and(|w| w.injective());
        if !invariant || !injective {
            return Err(
                "is split across threads but may write an element in two iterations".into(),
            );
        }
    }
    Ok(())
}

/// Whether node `n`'s value is the same in every iteration of the kernel:
/// nothing it reads uses a loop variable, a reducer argument or a fold.
fn node_invariant(nodes: &IdVec<NodeId, Node>, n: NodeId) -> bool {
    reachable(nodes, &[n]).into_iter().all(|m| {
        let mut vars = Vec::new();
        for ix in nodes[m].index_exprs() {
            ix.collect_vars(&mut vars);
        }
        vars.is_empty() && !matches!(nodes[m], Node::Var { .. } | Node::Fold { .. })
    })
}

/// Every variable of `ix` has an extent among the first `bound`.
fn check_vars(at: At, ix: &Ix, bound: usize, problems: &mut Vec<Problem>) {
    let mut vars = Vec::new();
    ix.collect_vars(&mut vars);
    for v in vars {
        if v.index() >= bound {
            problems.push(Problem::UnboundVariable { at, var: v });
        }
    }
}

/// The nodes of one scope (the kernel's, or fold `fold`'s body): operands
/// before users, folds and captures that exist, variables with extents
/// (the first `bound`), loads inside their buffers. `false` when some
/// operand is out of order (walking the operands would not end well).
#[allow(clippy::too_many_arguments, reason = "one scope of one kernel")]
fn check_scope(
    at: At,
    fold: Option<FoldId>,
    graph: &Graph,
    nodes: &IdVec<NodeId, Node>,
    bound: usize,
    numel: &IdVec<BufferId, i64>,
    known: &dyn Fn(BufferId) -> bool,
    problems: &mut Vec<Problem>,
) -> bool {
    let extents = graph.all_extents();
    let mut in_order = true;
    // The most captures any fold node of this scope passes to each fold.
    let captures = |f: FoldId| -> Option<usize> {
        let parent = &graph.folds.get(f)?;
        let scope_nodes = match parent.enclosing() {
            None => &graph.nodes,
            Some(p) => &graph.folds.get(p)?.nodes,
        };
        scope_nodes
            .values()
            .filter_map(|n| match n {
                Node::Fold {
                    fold: g, captures, ..
                } if *g == f => Some(captures.len()),
                _ => None,
            })
            .max()
    };
    let own_captures = fold.and_then(captures).unwrap_or(0);
    for (n, node) in nodes.iter() {
        let bad_operand = node.operands().iter().any(|&o| o >= n);
        let bad_reference = match node {
            Node::Fold { fold: f, .. } => graph.folds.get(*f).is_none_or(|g| g.enclosing() != fold),
            Node::Capture { slot, .. } => fold.is_none() || *slot as usize >= own_captures,
            _ => false,
        };
        if bad_operand || bad_reference {
            problems.push(Problem::OperandOrder { at, fold, node: n });
            in_order = false;
        }
        for ix in node.index_exprs() {
            check_vars(at, ix, bound, problems);
            check_data(at, fold, nodes, n, ix, problems);
        }
        if let Node::Load {
            buf,
            offset,
            numel: n_load,
            clamp,
            ..
        } = node
        {
            if !known(*buf) {
                problems.push(Problem::WriterCount {
                    buf: *buf,
                    steps: vec![at.step],
                });
                continue;
            }
            if *n_load != numel[*buf] {
                problems.push(Problem::LoadSize {
                    at,
                    buf: *buf,
                    numel: *n_load,
                    buffer_numel: numel[*buf],
                });
            }
            let (lo, hi) = offset.range(extents);
            if (*clamp && *n_load < 1) || (!*clamp && (lo < 0 || hi >= *n_load as i128)) {
                problems.push(Problem::LoadOutOfBounds {
                    at,
                    buf: *buf,
                    lo,
                    hi,
                    numel: *n_load,
                });
            }
        }
    }
    in_order
}

/// A dot reads and writes inside its buffers, after their writers.
#[allow(clippy::too_many_arguments)]
fn check_dot(
    at: At,
    dot: &DotKernel,
    numel: &IdVec<BufferId, i64>,
    known: &dyn Fn(BufferId) -> bool,
    ty_of: &dyn Fn(BufferId) -> Option<ElementType>,
    read_ok: &dyn Fn(BufferId, usize) -> bool,
    problems: &mut Vec<Problem>,
) {
    let s = &dot.sizes;
    let bounds = |buf, what| Problem::DotBounds { at, buf, what };
    if !known(dot.out) || s.batch as i128 * s.m as i128 * s.n as i128 != numel[dot.out] as i128 {
        problems.push(bounds(dot.out, "does not write every element of"));
    }
    // The kernel reads and writes every buffer as its own element type
    // (a mixed-type dot's operands were converted by their copies).
    for (buf, what) in [
        (dot.out, "writes an output of another element type:"),
        (dot.lhs.buf, "reads a left operand of another element type:"),
        (
            dot.rhs.buf,
            "reads a right operand of another element type:",
        ),
    ] {
        if known(buf) && ty_of(buf) != Some(dot.ty) {
            problems.push(bounds(buf, what));
        }
    }
    let empty = [s.batch, s.m, s.k, s.n].contains(&0);
    for (input, rows, cols, what) in [
        (&dot.lhs, s.m, s.k, "reads outside its left operand"),
        (&dot.rhs, s.k, s.n, "reads outside its right operand"),
    ] {
        if !known(input.buf) {
            problems.push(bounds(input.buf, what));
            continue;
        }
        if !read_ok(input.buf, at.step) {
            problems.push(Problem::ReadBeforeWrite {
                buf: input.buf,
                step: at.step,
            });
        }
        if empty {
            continue;
        }
        let [s0, s1, s2] = input.strides.map(|x| x as i128);
        let last = (s.batch as i128 - 1) * s0 + (rows as i128 - 1) * s1 + (cols as i128 - 1) * s2;
        if input.strides.iter().any(|&x| x < 0) || last >= numel[input.buf] as i128 {
            problems.push(Problem::DotBounds {
                at,
                buf: input.buf,
                what,
            });
        }
    }
}

/// The rule for a tiled convolution kernel (`ConvBounds`): its three
/// buffers exist, are `f32`, and have the lengths the kernel passes to
/// the run-time routine; the output's length is exactly `M x n` (every
/// element written once, each line by one thread); the input and filter
/// are written before the step and hold every element the kernel may
/// read (the routine checks its reads against the lengths passed, so
/// this rule makes those checks the buffers' own bounds).
fn check_conv(
    at: At,
    conv: &crate::convlib::ConvKernel,
    numel: &IdVec<BufferId, i64>,
    known: &dyn Fn(BufferId) -> bool,
    ty_of: &dyn Fn(BufferId) -> Option<ElementType>,
    read_ok: &dyn Fn(BufferId, usize) -> bool,
    problems: &mut Vec<Problem>,
) {
    let bounds = |buf, what| Problem::ConvBounds { at, buf, what };
    let bufs = [conv.input, conv.filter, conv.out];
    for (k, &buf) in bufs.iter().enumerate() {
        if !known(buf) {
            problems.push(bounds(buf, "names an unknown buffer"));
            continue;
        }
        if ty_of(buf) != Some(ElementType::F32) {
            problems.push(bounds(buf, "reads or writes a non-f32 buffer"));
        }
        if conv.lens[k] != numel[buf] {
            problems.push(bounds(buf, "passes a length that is not that of"));
        }
        if k < 2 && !read_ok(buf, at.step) {
            problems.push(Problem::ReadBeforeWrite { buf, step: at.step });
        }
    }
    let sizes_ok = conv.features > 0
        && conv.n > 0
        && conv.taps > 0
        && !conv.dims.is_empty()
        && conv
            .dims
            .iter()
            .all(|d| d.out > 0 && d.input > 0 && d.in_stride >= 0);
    if !sizes_ok {
        problems.push(bounds(conv.out, "has an empty or negative size for"));
        return;
    }
    if known(conv.out) && conv.out_len() != numel[conv.out] {
        problems.push(bounds(conv.out, "does not write every element of"));
    }
    if known(conv.input) && conv.input_span() > numel[conv.input] {
        problems.push(bounds(conv.input, "reads outside its input"));
    }
    if known(conv.filter) && conv.filter_len() > numel[conv.filter] {
        problems.push(bounds(conv.filter, "reads outside its filter"));
    }
}

#[cfg(test)]
mod tests {
    //! Each rule of the verifier, fired by a description broken by hand;
    //! real plans and kernels of valid programs pass.

    use std::collections::HashMap;

    use oxla_ir::{Builder, ElementType::F32, Shape};

    use super::*;
    use crate::fusion::{Buffer, DotInput, DotSizes};
    use crate::kernel::{KeptValue, Pass, Reducer};
    use crate::lower::lower_step;

    const I0: LoopVar = LoopVar::new(0);
    const I1: LoopVar = LoopVar::new(1);

    /// `c + Σ a·x` with `x` in `[0, e)` for each `(var, a, e)`.
    fn ws(constant: i64, terms: &[(usize, i64, i64)]) -> WriteSet {
        WriteSet {
            constant,
            terms: terms
                .iter()
                .map(|&(v, a, e)| (LoopVar::new(v), a, e))
                .collect(),
        }
    }

    #[test]
    fn stretches_join_only_when_they_tile() {
        let joined = |sets: Vec<WriteSet>| {
            join_stretches(sets).map(|w| (w.constant, w.count(), w.injective(), w.range()))
        };
        // Two columns of a `[n,2]` buffer, their split loop's term gone
        // (extent 1): every element once.
        let n = 5;
        assert_eq!(
            joined(vec![ws(0, &[(0, 2, n)]), ws(1, &[(0, 2, n)])]),
            Some((0, 2 * n as i128, true, (0, 2 * n as i128 - 1)))
        );
        // Four columns of `[a,b,4]`, in any order.
        let (a, b) = (3, 7);
        let parts: Vec<WriteSet> = [2, 0, 3, 1]
            .iter()
            .map(|&c| ws(c, &[(1, 4, b), (0, 4 * b, a)]))
            .collect();
        let (_, count, injective, range) = joined(parts).expect("tiles");
        assert!(injective);
        assert_eq!(
            (count, range),
            ((4 * a * b) as i128, (0, (4 * a * b - 1) as i128))
        );
        // A `[n,1]` and a `[n,2]` part: the first lost its term, the
        // second keeps it; joined along it.
        assert_eq!(
            joined(vec![ws(0, &[(0, 3, n)]), ws(1, &[(1, 1, 2), (0, 3, n)])]),
            Some((0, 3 * n as i128, true, (0, 3 * n as i128 - 1)))
        );
        // Not a tiling: a column written twice, a column missing, columns
        // of different strides.
        let twice = joined(vec![ws(0, &[(0, 2, n)]), ws(0, &[(0, 2, n)])]);
        assert!(
            twice.is_none_or(|(_, c, inj, _)| !inj || c != 2 * n as i128),
            "{twice:?}"
        );
        let gap = joined(vec![ws(0, &[(0, 3, n)]), ws(2, &[(0, 3, n)])]);
        assert!(
            gap.is_none_or(|(_, c, inj, (lo, hi))| !inj || hi - lo + 1 != c),
            "{gap:?}"
        );
        assert_eq!(joined(vec![ws(0, &[(0, 2, n)]), ws(1, &[(0, 3, n)])]), None);
    }

    /// The plan and kernels of `comp`.
    fn lowered(comp: &Computation) -> (Plan, Vec<Vec<KernelDesc>>) {
        let plan = Plan::new(comp).expect("plan");
        let lowered = (0..plan.steps.len())
            .map(|k| lower_step(comp, &plan, k))
            .collect::<Result<Vec<_>>>()
            .expect("lower");
        (plan, lowered)
    }

    /// `x + v` of `f32[4,8]` and `f32[8]`.
    fn add_row() -> Computation {
        let mut b = Builder::new("add_row");
        let x = b.parameter(0, Shape::new(F32, &[4, 8]), "x").expect("x");
        let v = b.parameter(1, Shape::new(F32, &[8]), "v").expect("v");
        let y = b.add(x, v, &[1]).expect("add");
        b.build(y).expect("build")
    }

    /// Softmax over the rows of `f32[4,8]`: one row group.
    fn softmax() -> Computation {
        let mut b = Builder::new("softmax");
        let x = b.parameter(0, Shape::new(F32, &[4, 8]), "x").expect("x");
        let y = oxla_ir::composite::softmax(&mut b, x, 1).expect("softmax");
        b.build(y).expect("build")
    }

    /// `sum(x, 1) + x[:, 0]`: a reduce step, then a loop reading it.
    fn reduce_then_loop() -> Computation {
        let mut b = Builder::new("reduce_then_loop");
        let x = b.parameter(0, Shape::new(F32, &[4, 8]), "x").expect("x");
        let zero = b.constant_scalar(0f32).expect("zero");
        let mut r = Builder::new("add");
        let p = r.parameter(0, Shape::scalar(F32), "p").expect("p");
        let q = r.parameter(1, Shape::scalar(F32), "q").expect("q");
        let s = r.add(p, q, &[]).expect("s");
        let add = r.build(s).expect("add");
        let sum = b.reduce(x, zero, &[1], &add).expect("sum");
        let rev = b.reverse(sum, &[0]).expect("reverse");
        let y = b.add(sum, rev, &[]).expect("y");
        b.build(y).expect("build")
    }

    fn buffer(kind: BufferKind, dims: &[i64]) -> Buffer {
        Buffer {
            kind,
            shape: Shape::new(F32, dims),
            name: "b".into(),
        }
    }

    /// A plan with only buffers: `buf0 = f32[out] output`, `buf1 = f32[4,8]
    /// parameter(0)`, and with `temp`, `buf2 = f32[4] temp`.
    fn buffers_with(out: &[i64], temp: bool) -> Plan {
        let mut buffers = IdVec::new();
        buffers.push(buffer(BufferKind::Output(0), out));
        buffers.push(buffer(
            BufferKind::Param(crate::entity::ParamId::new(0)),
            &[4, 8],
        ));
        if temp {
            buffers.push(buffer(BufferKind::Temp, &[4]));
        }
        Plan {
            buffers,
            steps: vec![],
            output: OutputTree::Leaf(Leaf::Buffer(BufferId::new(0))),
            materialised: HashMap::new(),
            called_constants: HashMap::new(),
            updates: vec![],
        }
    }

    /// `out[8*i0 + i1] = x[8*i0 + i1]` over `[4, 8]`, with the load's and
    /// the store's offsets given.
    fn copy_kernel(load: Ix, numel: i64, store: Ix) -> LoopKernel {
        let mut graph = Graph::new([4, 8].into_iter().collect());
        let root = graph.add(Node::Load {
            buf: BufferId::new(1),
            ty: F32,
            offset: load,
            numel,
            clamp: false,
        });
        LoopKernel::single(
            graph,
            vec![I0, I1],
            Some(0),
            Work::Store {
                root,
                out: BufferId::new(0),
                out_offset: store,
            },
            F32,
        )
    }

    /// [`buffers_with`] without the temporary.
    fn buffers(out: &[i64]) -> Plan {
        buffers_with(out, false)
    }

    fn element() -> Ix {
        Ix::var(I0).scale(8).add(&Ix::var(I1))
    }

    fn kernel_problems(plan: &Plan, kernel: LoopKernel) -> Vec<Problem> {
        check_kernels(plan, &[vec![KernelDesc::Loop(kernel)]])
    }

    #[test]
    fn valid_programs_have_no_problems() {
        for comp in [add_row(), softmax(), reduce_then_loop()] {
            let (plan, kernels) = lowered(&comp);
            assert_eq!(check_plan(&comp, &plan), vec![], "{}", comp.name());
            assert_eq!(check_kernels(&plan, &kernels), vec![], "{}", comp.name());
        }
        let plan = buffers(&[4, 8]);
        assert_eq!(
            kernel_problems(&plan, copy_kernel(element(), 32, element())),
            vec![]
        );
    }

    #[test]
    fn a_buffer_written_by_no_step_or_two_fires() {
        let comp = add_row();
        let (mut plan, _) = lowered(&comp);
        let step = plan.steps[0].clone();
        plan.steps.push(step);
        assert!(
            check_plan(&comp, &plan)
                .iter()
                .any(|p| matches!(p, Problem::WriterCount { steps, .. } if steps == &[0, 1]))
        );
        plan.steps.clear();
        assert!(
            check_plan(&comp, &plan)
                .iter()
                .any(|p| matches!(p, Problem::WriterCount { steps, .. } if steps.is_empty()))
        );
        // The same from the kernels: none writes the output.
        let plan = buffers(&[4, 8]);
        assert!(
            check_kernels(&plan, &[])
                .iter()
                .any(|p| matches!(p, Problem::WriteCoverage { written: 0, .. }))
        );
    }

    #[test]
    fn an_argument_written_fires() {
        let comp = add_row();
        let (mut plan, _) = lowered(&comp);
        let param = plan
            .buffers
            .iter()
            .find(|(_, b)| matches!(b.kind, BufferKind::Param(_)))
            .map(|(id, _)| id)
            .expect("a parameter buffer");
        plan.steps[0].out = param;
        assert!(
            check_plan(&comp, &plan)
                .iter()
                .any(|p| matches!(p, Problem::InputWritten { buf, .. } if *buf == param))
        );
        let plan = buffers(&[4, 8]);
        let mut kernel = copy_kernel(element(), 32, element());
        kernel.passes[0].work = Work::Store {
            root: NodeId::new(0),
            out: BufferId::new(1),
            out_offset: element(),
        };
        assert!(
            kernel_problems(&plan, kernel)
                .iter()
                .any(|p| matches!(p, Problem::InputWritten { .. }))
        );
    }

    #[test]
    fn a_read_before_its_write_fires() {
        let comp = reduce_then_loop();
        let (mut plan, mut kernels) = lowered(&comp);
        assert_eq!(plan.steps.len(), 2, "{}", plan.text(&comp, &[]));
        plan.steps.swap(0, 1);
        assert!(
            check_plan(&comp, &plan)
                .iter()
                .any(|p| matches!(p, Problem::ReadBeforeWrite { step: 0, .. }))
        );
        kernels.swap(0, 1);
        assert!(
            check_kernels(&plan, &kernels)
                .iter()
                .any(|p| matches!(p, Problem::ReadBeforeWrite { step: 0, .. }))
        );
    }

    #[test]
    fn result_leaves_must_be_output_buffers() {
        let comp = add_row();
        let (mut plan, _) = lowered(&comp);
        let param = plan
            .buffers
            .iter()
            .find(|(_, b)| matches!(b.kind, BufferKind::Param(_)))
            .map(|(id, _)| id)
            .expect("a parameter buffer");
        plan.output = OutputTree::Leaf(Leaf::Buffer(param));
        let problems = check_plan(&comp, &plan);
        assert!(
            problems
                .iter()
                .any(|p| matches!(p, Problem::OutputLeaf { buf, .. } if *buf == param))
        );
        assert!(
            problems
                .iter()
                .any(|p| matches!(p, Problem::OutputLeaf { buf, .. } if *buf != param))
        );
    }

    /// `(m + 1, m - x)` with `m = exp(x) * tanh(exp(x))` over `f32[64]`: the
    /// shared product is materialised, then all three steps are one loop
    /// group.
    fn loop_group() -> Computation {
        let mut b = Builder::new("loop_group");
        let x = b.parameter(0, Shape::new(F32, &[64]), "x").expect("x");
        let e = b.exp(x).expect("e");
        let t = b.tanh(e).expect("t");
        let m = b.mul(e, t, &[]).expect("m");
        let one = b.constant_scalar(1f32).expect("one");
        let p = b.add(m, one, &[]).expect("p");
        let q = b.sub(m, x, &[]).expect("q");
        let y = b.tuple(&[p, q]).expect("tuple");
        b.build(y).expect("build")
    }

    #[test]
    fn a_loop_group_is_one_checked_kernel() {
        let comp = loop_group();
        let (plan, kernels) = lowered(&comp);
        assert!(
            matches!(plan.steps[0].kind, StepKind::LoopGroup { .. }),
            "{}",
            plan.text(&comp, &[])
        );
        assert_eq!(kernels[0].len(), 1);
        assert_eq!(check_plan(&comp, &plan), vec![]);
        assert_eq!(check_kernels(&plan, &kernels), vec![]);
    }

    #[test]
    fn a_loop_group_member_written_elsewhere_fires() {
        let comp = loop_group();
        let (plan, mut kernels) = lowered(&comp);
        let KernelDesc::Loop(kernel) = &mut kernels[0][0] else {
            panic!("not a loop kernel");
        };
        // A member stored one element further on: outside its buffer, and
        // no longer beside the pass's own store.
        kernel.passes[0].keeps[0].offset = kernel.passes[0].keeps[0].offset.add_constant(1);
        let problems = check_kernels(&plan, &kernels);
        assert!(
            problems
                .iter()
                .any(|p| matches!(p, Problem::WriteMap { .. } | Problem::WriteCoverage { .. })),
            "{problems:?}"
        );
        // A member's value left unstored: its buffer is not written.
        let (plan, mut kernels) = lowered(&comp);
        let KernelDesc::Loop(kernel) = &mut kernels[0][0] else {
            panic!("not a loop kernel");
        };
        kernel.passes[0].keeps.clear();
        assert!(!check_kernels(&plan, &kernels).is_empty());
    }

    #[test]
    fn a_row_group_out_of_shape_fires() {
        let comp = softmax();
        let (mut plan, _) = lowered(&comp);
        let StepKind::RowGroup { passes, .. } = &mut plan.steps[0].kind else {
            panic!("softmax is not a row group:\n{}", plan.text(&comp, &[]));
        };
        passes.reverse();
        assert!(
            check_plan(&comp, &plan)
                .iter()
                .any(|p| matches!(p, Problem::RowGroupShape { step: 0, .. }))
        );
    }

    #[test]
    fn an_index_variable_without_extent_fires() {
        let plan = buffers(&[4, 8]);
        let load = Ix::var(LoopVar::new(5));
        let problems = kernel_problems(&plan, copy_kernel(load, 32, element()));
        assert!(
            problems.iter().any(
                |p| matches!(p, Problem::UnboundVariable { var, .. } if *var == LoopVar::new(5))
            )
        );
    }

    #[test]
    fn an_operand_after_its_user_fires() {
        let plan = buffers(&[4, 8]);
        let mut kernel = copy_kernel(element(), 32, element());
        let neg = kernel.graph.add(Node::Unary {
            op: oxla_ir::UnaryOp::Neg,
            ty: F32,
            x: NodeId::new(7),
        });
        kernel.passes[0].work = Work::Store {
            root: neg,
            out: BufferId::new(0),
            out_offset: element(),
        };
        assert!(
            kernel_problems(&plan, kernel)
                .iter()
                .any(|p| matches!(p, Problem::OperandOrder { node, .. } if *node == neg))
        );
    }

    #[test]
    fn a_load_outside_its_buffer_or_of_the_wrong_size_fires() {
        let plan = buffers(&[4, 8]);
        let past = element().add_constant(1);
        let problems = kernel_problems(&plan, copy_kernel(past.clone(), 32, element()));
        assert!(problems.iter().any(|p| matches!(
            p,
            Problem::LoadOutOfBounds {
                lo: 1,
                hi: 32,
                numel: 32,
                ..
            }
        )));
        // Clamped, the same offset is in bounds.
        let mut kernel = copy_kernel(past, 32, element());
        if let Some(Node::Load { clamp, .. }) = kernel.graph.nodes.values_mut().next() {
            *clamp = true;
        }
        assert_eq!(kernel_problems(&plan, kernel), vec![]);
        let problems = kernel_problems(&plan, copy_kernel(element(), 31, element()));
        assert!(problems.iter().any(|p| matches!(
            p,
            Problem::LoadSize {
                numel: 31,
                buffer_numel: 32,
                ..
            }
        )));
    }

    #[test]
    fn a_write_twice_outside_or_short_of_its_buffer_fires() {
        let plan = buffers(&[4, 8]);
        // Every i1 writes the same element.
        let rows = Ix::var(I0).scale(8);
        let problems = kernel_problems(&plan, copy_kernel(element(), 32, rows));
        assert!(
            problems.iter().any(
                |p| matches!(p, Problem::WriteMap { what, .. } if what.contains("written 8 times"))
            ),
            "{problems:?}"
        );
        // Past the end.
        let past = element().add_constant(8);
        let problems = kernel_problems(&plan, copy_kernel(element(), 32, past));
        assert!(
            problems
                .iter()
                .any(|p| matches!(p, Problem::WriteMap { .. }))
        );
        // Short of a larger buffer: rows 4 of f32[5,8] never written.
        let plan = buffers(&[5, 8]);
        let problems = kernel_problems(&plan, copy_kernel(element(), 32, element()));
        assert!(problems.iter().any(|p| matches!(
            p,
            Problem::WriteCoverage {
                written: 32,
                numel: 40,
                ..
            }
        )));
    }

    #[test]
    fn stretches_of_a_split_loop_must_tile_the_buffer() {
        let plan = buffers(&[4, 8]);
        let stretch = |start: i64, len: i64| {
            let mut k = copy_kernel(element(), 32, element());
            k.graph = Graph::new([4, len].into_iter().collect());
            let at = Ix::var(I0).scale(8).add(&Ix::var(I1).add_constant(start));
            let root = k.graph.add(Node::Load {
                buf: BufferId::new(1),
                ty: F32,
                offset: at.clone(),
                numel: 32,
                clamp: false,
            });
            k.passes[0].work = Work::Store {
                root,
                out: BufferId::new(0),
                out_offset: at,
            };
            KernelDesc::Loop(k)
        };
        let tiled = vec![stretch(0, 3), stretch(3, 5)];
        assert_eq!(check_kernels(&plan, &[tiled]), vec![]);
        let overlapping = vec![stretch(0, 4), stretch(3, 5)];
        assert!(
            check_kernels(&plan, &[overlapping])
                .iter()
                .any(|p| matches!(p, Problem::WriteCoverage { written: 36, .. }))
        );
    }

    #[test]
    fn a_loop_order_that_is_no_permutation_fires() {
        let plan = buffers(&[4, 8]);
        let mut kernel = copy_kernel(element(), 32, element());
        kernel.loop_order = vec![I0, I0];
        assert!(
            kernel_problems(&plan, kernel)
                .iter()
                .any(|p| matches!(p, Problem::LoopNest { .. }))
        );
    }

    /// `tmp[i0] = sum(x[i0, :])` over `[4, 8]`, split along `split`.
    fn row_sum(split: usize) -> LoopKernel {
        let mut graph = Graph::new([4, 8].into_iter().collect());
        let x = graph.add(Node::Load {
            buf: BufferId::new(1),
            ty: F32,
            offset: element(),
            numel: 32,
            clamp: false,
        });
        let init = graph.add(Node::Const { ty: F32, bits: 0 });
        LoopKernel::single(
            graph,
            vec![I0, I1],
            Some(split),
            Work::RowReduce {
                element: x,
                init,
                reducer: Reducer::Op(oxla_ir::BinaryOp::Add),
                out: BufferId::new(2),
                out_offset: Ix::var(I0),
                first_reduced: 1,
                more: vec![],
            },
            F32,
        )
    }

    #[test]
    fn a_split_loop_no_pass_writes_along_fires() {
        let plan = buffers_with(&[4, 8], true);
        let with_output = |k: LoopKernel| {
            vec![
                KernelDesc::Loop(k),
                KernelDesc::Loop(copy_kernel(element(), 32, element())),
            ]
        };
        // Step 0 computes the temporary, step 1 the output.
        let ok = check_kernels(&plan, &[with_output(row_sum(0))]);
        assert!(
            !ok.iter()
                .any(|p| matches!(p, Problem::SplitLoopNotWritten { .. })),
            "{ok:?}"
        );
        let problems = check_kernels(&plan, &[with_output(row_sum(1))]);
        assert!(
            problems
                .iter()
                .any(|p| matches!(p, Problem::SplitLoopNotWritten { pass: 0, .. })),
            "{problems:?}"
        );
    }

    /// Two passes over the rows of `[4, 8]`: the row sums into `tmp`, then
    /// `out = x + tmp[row_read]`.
    fn row_group(row_read: Ix) -> LoopKernel {
        let mut kernel = row_sum(0);
        let x = NodeId::new(0);
        let tmp = kernel.graph.add(Node::Load {
            buf: BufferId::new(2),
            ty: F32,
            offset: row_read,
            numel: 4,
            clamp: false,
        });
        let sum = kernel.graph.add(Node::Binary {
            op: oxla_ir::BinaryOp::Add,
            ty: F32,
            a: x,
            b: tmp,
        });
        kernel.passes.push(Pass {
            work: Work::Store {
                root: sum,
                out: BufferId::new(0),
                out_offset: element(),
            },
            value_type: F32,
            keeps: vec![],
            per_row: false,
        });
        kernel.row_loops = Some(1);
        kernel
    }

    #[test]
    fn a_row_group_reading_its_own_output_elsewhere_fires() {
        let plan = buffers_with(&[4, 8], true);
        assert_eq!(kernel_problems(&plan, row_group(Ix::var(I0))), vec![]);
        // The previous row: another thread's, maybe not written yet.
        let problems = kernel_problems(&plan, row_group(Ix::constant(0)));
        assert!(
            problems
                .iter()
                .any(|p| matches!(p, Problem::ReadInKernel { pass: 1, .. })),
            "{problems:?}"
        );
        // A kept value no later pass covers.
        let mut kernel = row_group(Ix::var(I0));
        kernel.passes[1].keeps.push(KeptValue {
            node: NodeId::new(0),
            buf: BufferId::new(0),
            offset: element(),
            ty: F32,
        });
        assert!(
            kernel_problems(&plan, kernel)
                .iter()
                .any(|p| matches!(p, Problem::WriteMap { .. }))
        );
    }

    #[test]
    fn a_dot_outside_its_buffers_fires() {
        let plan = buffers(&[4, 4]);
        let dot_of = |lhs_row_stride: i64, ty| {
            KernelDesc::Dot(DotKernel {
                ty,
                lhs: DotInput {
                    buf: BufferId::new(1),
                    strides: [32, lhs_row_stride, 1],
                },
                rhs: DotInput {
                    buf: BufferId::new(1),
                    strides: [32, 4, 1],
                },
                out: BufferId::new(0),
                sizes: DotSizes {
                    batch: 1,
                    m: 4,
                    k: 4,
                    n: 4,
                },
            })
        };
        let dot = |lhs_row_stride: i64| dot_of(lhs_row_stride, F32);
        assert_eq!(check_kernels(&plan, &[vec![dot(8)]]), vec![]);
        assert!(
            check_kernels(&plan, &[vec![dot(16)]])
                .iter()
                .any(|p| matches!(p, Problem::DotBounds { .. }))
        );
        // The same views read as f64 (8-byte elements of f32 buffers).
        let problems = check_kernels(&plan, &[vec![dot_of(8, oxla_ir::ElementType::F64)]]);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems
                .iter()
                .all(|p| p.to_string().contains("of another element type"))
        );
    }

    #[test]
    fn problems_become_one_internal_error_naming_the_stage() {
        let plan = buffers(&[5, 8]);
        let kernels = vec![vec![KernelDesc::Loop(copy_kernel(
            element(),
            32,
            element(),
        ))]];
        let err = report(Stage::VerifyKernels, check_kernels(&plan, &kernels))
            .expect_err("a short write");
        assert!(
            matches!(&err, oxla_ir::Error::Internal { stage, .. }
                if stage == "the JIT's IR verifier (after lowering)"),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("writes 32 elements of buf0, which has 40"),
            "{err}"
        );
    }
}
