//! The run-time program: where every buffer of every region lives during a
//! run, and the tree of kernel launches, copies, loops and branches the run
//! path walks.
//!
//! A run fills one flat table of pointers, [`Program::slots`] long: each
//! region's buffers in a contiguous stretch (its kernels get the address of
//! the stretch as their buffer table), plus the result slots a caller binds
//! for a loop's condition and body. Every entry is known before any kernel
//! runs: an argument leaf, a constant, an output, storage allocated for the
//! run, or the same pointer as an earlier entry (a region's parameter is
//! its caller's buffer; a loop body's result is the loop's state, or a
//! scratch buffer copied into it). Nothing is allocated per iteration.
//!
//! The items ([`Item`]) run in order; a loop runs its condition's items,
//! reads the `pred` they left in their result slot, and runs its body's
//! items until it is false; a branch reads its selector and runs one
//! branch's items. All of it is driven from the calling thread: only
//! kernels go to the thread pool.

use oxla_ir::{ElementType, Literal, Result};

use crate::entity::{BufferId, IdVec, RegionId};
use crate::error::{Stage, internal};
use crate::executable::Kernel;
use crate::fusion::tuples;
use crate::fusion::{BufferKind, InitLeaf, Leaf, OutputTree, Plan, Regions, StepKind};

/// The compiled kernels of each step of a region, in launch order, each
/// with its own buffer table (see [`Program::build`]).
pub(crate) type StepKernels = Vec<Vec<(Kernel, Option<Vec<u32>>)>>;

/// Where one entry of the run's table points.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    /// Flat leaf `n` of the arguments.
    Arg(usize),
    /// Constant `n` of [`Program::constants`].
    Const(usize),
    /// Storage of this many bytes, allocated for the run.
    Scratch(usize),
    /// Output buffer `b` of the entry region.
    Output(BufferId),
    /// The same pointer as entry `n` (an earlier one).
    Same(usize),
}

/// One thing the run path does.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    /// Launches `kernel` with the table stretch from entry `base` on;
    /// its code reaches the `len` entries from `base` and no others.
    Kernel {
        base: usize,
        len: usize,
        kernel: Kernel,
    },
    /// Copies `bytes` bytes from entry `src` to entry `dst` (nothing when
    /// they are the same pointer).
    Copy {
        src: usize,
        dst: usize,
        bytes: usize,
    },
    /// `while (cond leaves true in pred) body`.
    While {
        cond: Vec<Item>,
        pred: usize,
        body: Vec<Item>,
    },
    /// Runs the branch the `pred[]` or `s32[]` selector at entry
    /// `selector` picks: a `pred` picks branch 0 when true, 1 when false;
    /// an `s32` outside `0..n` picks the last.
    Cond {
        selector: usize,
        ty: ElementType,
        branches: Vec<Vec<Item>>,
    },
}

/// The whole run-time program.
pub(crate) struct Program {
    /// One entry per buffer of every region (the entry region's first, at
    /// its buffer numbers) and per bound result slot.
    pub(crate) slots: Vec<Slot>,
    /// The constants the table points into.
    pub(crate) constants: Vec<Literal>,
    /// The entry region's items.
    pub(crate) items: Vec<Item>,
    /// Kernels in the program (each counted once, however often it runs).
    pub(crate) kernel_count: usize,
    /// Where the storage entries live in the run's arena (`buffers.rs`).
    pub(crate) layout: crate::buffers::Layout,
}

/// How a region's parameters and results are bound.
enum Bind {
    /// The entry region: arguments and the executable's outputs.
    Entry,
    /// A called region: parameter leaf `j` is table entry `params[j]`,
    /// result leaf `i` is table entry `results[i]`.
    Called {
        params: Vec<usize>,
        results: Vec<usize>,
    },
}

fn bug(message: impl Into<String>) -> oxla_ir::Error {
    internal(Stage::Lowering, message)
}

/// The bytes of buffer `b` of `plan`.
fn bytes(plan: &Plan, b: BufferId) -> usize {
    let s = &plan.buffers[b].shape;
    s.element_count() as usize * s.element_type().byte_size().max(1)
}

/// The result leaves of a region, in order.
pub(crate) fn leaves(tree: &OutputTree) -> Vec<&Leaf> {
    fn walk<'t>(t: &'t OutputTree, out: &mut Vec<&'t Leaf>) {
        match t {
            OutputTree::Leaf(l) => out.push(l),
            OutputTree::Tuple(items) => items.iter().for_each(|i| walk(i, out)),
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut out);
    out
}

/// For each result leaf of a loop body: whether its slot can be the state
/// leaf itself. A leaf that is its own state leaf (passed through, or
/// updated in place) always is; one the body copies (another parameter
/// leaf, a constant, a repeat) is when no other copy reads that state
/// leaf; one a step writes into an output buffer never is (that step
/// would overwrite what others still read: see `fusion/control.rs`).
pub(crate) fn body_slots_alias_state(plan: &Plan) -> Vec<bool> {
    let leaves = leaves(&plan.output);
    (0..leaves.len())
        .map(|i| match leaves[i] {
            Leaf::Param(j) if j.index() == i => true,
            Leaf::Buffer(_) => false,
            Leaf::Param(_) | Leaf::Constant(_) | Leaf::Duplicate(_) => !leaves
                .iter()
                .enumerate()
                .any(|(m, l)| m != i && matches!(l, Leaf::Param(j) if j.index() == i)),
        })
        .collect()
}

struct Builder<'a> {
    regions: &'a Regions,
    kernels: &'a IdVec<RegionId, StepKernels>,
    slots: Vec<Slot>,
    constants: Vec<Literal>,
    kernel_count: usize,
}

impl Program {
    /// The program of `regions` run from `entry`; `kernels[r][k]` are the
    /// compiled kernels of step `k` of region `r`, in launch order, each
    /// with its own buffer table (the region's buffers it reads, in the
    /// order its code numbers them; `None`: the region's whole table).
    pub(crate) fn build(
        regions: &Regions,
        entry: RegionId,
        kernels: &IdVec<RegionId, StepKernels>,
    ) -> Result<Program> {
        let mut b = Builder {
            regions,
            kernels,
            slots: Vec::new(),
            constants: Vec::new(),
            kernel_count: 0,
        };
        let items = b.region(entry, &Bind::Entry)?;
        let live = crate::buffers::liveness(&b.slots, &items);
        let layout = crate::buffers::assign(&b.slots, &live);
        crate::verify::verify_buffer_layout(&b.slots, &live, &layout)?;
        Ok(Program {
            slots: b.slots,
            constants: b.constants,
            items,
            kernel_count: b.kernel_count,
            layout,
        })
    }
}

impl Builder<'_> {
    fn push(&mut self, slot: Slot) -> usize {
        self.slots.push(slot);
        self.slots.len() - 1
    }

    fn constant(&mut self, l: &Literal) -> usize {
        self.constants.push(l.clone());
        let n = self.constants.len() - 1;
        self.push(Slot::Const(n))
    }

    /// Lays out region `r`'s buffers and returns its items.
    fn region(&mut self, r: RegionId, bind: &Bind) -> Result<Vec<Item>> {
        let region = self
            .regions
            .get(r)
            .ok_or_else(|| bug(format!("{r} missing")))?;
        let plan = &region.plan;
        let base = self.slots.len();
        for (b, buf) in plan.buffers.iter() {
            let slot = match (&buf.kind, bind) {
                (BufferKind::Param(j), Bind::Entry) => Slot::Arg(j.index()),
                (BufferKind::Param(j), Bind::Called { params, .. }) => {
                    Slot::Same(*params.get(j.index()).ok_or_else(|| {
                        bug(format!("{r}: parameter leaf {} is not bound", j.index()))
                    })?)
                }
                (BufferKind::Constant(l), _) => {
                    self.constants.push(l.clone());
                    Slot::Const(self.constants.len() - 1)
                }
                (BufferKind::Temp, _) => Slot::Scratch(bytes(plan, b)),
                (BufferKind::Output(_), Bind::Entry) => Slot::Output(b),
                (BufferKind::Output(i), Bind::Called { results, .. }) => Slot::Same(
                    *results
                        .get(*i)
                        .ok_or_else(|| bug(format!("{r}: result leaf {i} is not bound")))?,
                ),
            };
            self.slots.push(slot);
        }
        let kernels = self
            .kernels
            .get(r)
            .ok_or_else(|| bug(format!("{r} has no compiled kernels")))?;
        let mut items = Vec::new();
        for (k, step) in plan.steps.iter().enumerate() {
            let step_kernels = kernels
                .get(k)
                .ok_or_else(|| bug(format!("{r}: step {k} has no compiled kernels")))?;
            for (kernel, table) in step_kernels {
                let (own, len) = match table {
                    Some(map) if map.iter().enumerate().any(|(i, &m)| m as usize != i) => {
                        let start = self.slots.len();
                        for &m in map {
                            if m as usize >= plan.buffers.len() {
                                return Err(bug(format!(
                                    "{r}: step {k} reads buffer {m} of {}",
                                    plan.buffers.len()
                                )));
                            }
                            self.push(Slot::Same(base + m as usize));
                        }
                        (start, map.len())
                    }
                    Some(map) => (base, map.len()),
                    None => (base, plan.buffers.len()),
                };
                items.push(Item::Kernel {
                    base: own,
                    len,
                    kernel: kernel.clone(),
                });
                self.kernel_count += 1;
            }
            match &step.kind {
                StepKind::While(w) => {
                    for (leaf, &s) in w.init.iter().zip(&w.state) {
                        if let InitLeaf::Copy(src) = leaf {
                            items.push(Item::Copy {
                                src: base + src.index(),
                                dst: base + s.index(),
                                bytes: bytes(plan, s),
                            });
                        }
                    }
                    let state: Vec<usize> = w.state.iter().map(|s| base + s.index()).collect();
                    let pred = self.push(Slot::Scratch(1));
                    let cond = self.region(
                        w.cond,
                        &Bind::Called {
                            params: state.clone(),
                            results: vec![pred],
                        },
                    )?;
                    let body_plan = &self
                        .regions
                        .get(w.body)
                        .ok_or_else(|| bug(format!("{} missing", w.body)))?
                        .plan;
                    let alias = body_slots_alias_state(body_plan);
                    let mut results = Vec::with_capacity(state.len());
                    let mut commits = Vec::new();
                    for (i, &s) in w.state.iter().enumerate() {
                        if alias.get(i).copied().unwrap_or(false) {
                            results.push(base + s.index());
                        } else {
                            let n = bytes(plan, s);
                            let scratch = self.push(Slot::Scratch(n));
                            results.push(scratch);
                            commits.push(Item::Copy {
                                src: scratch,
                                dst: base + s.index(),
                                bytes: n,
                            });
                        }
                    }
                    let mut body = self.region(
                        w.body,
                        &Bind::Called {
                            params: state,
                            results,
                        },
                    )?;
                    body.extend(commits);
                    items.push(Item::While { cond, pred, body });
                }
                StepKind::Conditional(c) => {
                    let outs: Vec<usize> = c.outs.iter().map(|o| base + o.index()).collect();
                    let mut branches = Vec::with_capacity(c.branches.len());
                    for (rid, ops) in &c.branches {
                        let params = ops.iter().map(|o| base + o.index()).collect();
                        branches.push(self.region(
                            *rid,
                            &Bind::Called {
                                params,
                                results: outs.clone(),
                            },
                        )?);
                    }
                    items.push(Item::Cond {
                        selector: base + c.selector.index(),
                        ty: plan.buffers[c.selector].shape.element_type(),
                        branches,
                    });
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
        // A called region's copied result leaves, after its steps.
        if let Bind::Called { params, results } = bind {
            let param_bytes: Vec<usize> = region
                .comp
                .parameter_shapes()
                .iter()
                .flat_map(tuples::leaf_shapes)
                .map(|s| s.element_count() as usize * s.element_type().byte_size().max(1))
                .collect();
            for (i, leaf) in leaves(&plan.output).into_iter().enumerate() {
                let dst = *results
                    .get(i)
                    .ok_or_else(|| bug(format!("{r}: result leaf {i} is not bound")))?;
                let (src, n) = match leaf {
                    Leaf::Buffer(_) => continue,
                    Leaf::Param(j) => {
                        let j = j.index();
                        let src = *params
                            .get(j)
                            .ok_or_else(|| bug(format!("{r}: parameter leaf {j} is not bound")))?;
                        let n = param_bytes
                            .get(j)
                            .copied()
                            .ok_or_else(|| bug(format!("{r}: no parameter leaf {j}")))?;
                        (src, n)
                    }
                    Leaf::Constant(l) => {
                        let n = l.element_count() * l.element_type().byte_size().max(1);
                        (self.constant(l), n)
                    }
                    Leaf::Duplicate(b) => (base + b.index(), bytes(plan, *b)),
                };
                items.push(Item::Copy { src, dst, bytes: n });
            }
        }
        Ok(items)
    }
}
