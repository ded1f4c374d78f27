//! The compile driver: [`compile()`] runs the stages in order.
//!
//! ```text
//! verify (oxla-ir) → fuse (fusion/: buffers, steps, row groups) → verify plan (verify.rs)
//!                  → lower (lower.rs: kernel descriptions)      → verify kernels (verify.rs)
//!                  → emit (codegen/: one Cranelift function per kernel)
//!                  → link → launch policy (launch.rs) → Executable
//! ```
//!
//! Each stage reads only the one before's output. The driver keeps one
//! [`CompiledStep`] per fusion step (its kernels, what it reads and
//! writes, its lines of the fusion text) and, once the module is linked,
//! one [`Kernel`] record per compiled kernel.

use std::fmt::Write;
use std::time::{Duration, Instant};

use oxla_ir::{Computation, Result};

use crate::codegen::{Jit, KernelReport, VectorPlan};
use crate::entity::{IdVec, RegionId};
use crate::executable::{Executable, Kernel};
use crate::fusion::{Leaf, OutputTree, Plan, Region, Regions, Role, StepKind};
use crate::inplace::{StepIo, conv_io, dot_io, in_place_params, loop_io, merge_io, sort_io};
use crate::kernel::{KernelDesc, LoopKernel, Work};
use crate::launch::{Launch, LaunchShape};
use crate::lower::lower_step;
use crate::pool::pool;
use crate::program::Program;
use crate::verify;

/// One fusion step as compiled.
struct CompiledStep {
    /// Its kernels, in launch order: the index of each compiled function
    /// in the module, and its launch shape.
    kernels: Vec<(usize, LaunchShape)>,
    /// What the step reads and writes, for the in-place analysis.
    io: StepIo,
    /// Its lines of the fusion text.
    text: String,
}

/// Where one compilation's time went, stage by stage (wall-clock time on
/// the calling thread; Cranelift's code generation runs on the thread
/// pool, so its stage is the wall time of the parallel part).
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, Shape};
/// let mut b = Builder::new("neg");
/// let x = b.parameter(0, Shape::new(F32, &[4]), "x")?;
/// let y = b.neg(x)?;
/// let exe = oxla_jit::compile(&b.build(y)?)?;
/// let profile = exe.compile_profile();
/// assert!(profile.stages().iter().any(|(stage, _)| *stage == "codegen"));
/// assert_eq!(profile.kernels(), 1);
/// assert!(profile.total() >= profile.stages()[0].1);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CompileProfile {
    stages: Vec<(&'static str, Duration)>,
    kernels: usize,
    compiled: usize,
}

impl CompileProfile {
    /// Each stage and its time, in the order they ran: `check` (the IR
    /// verifier and the supported-op check), `fuse`, `verify plan`,
    /// `lower`, `verify kernels`, `module setup`, `emit` (building each
    /// kernel's CLIF), `codegen` (Cranelift, distinct kernels only),
    /// `link`, `program` (buffer table, run-time program, texts).
    pub fn stages(&self) -> &[(&'static str, Duration)] {
        &self.stages
    }

    /// The time of every stage together.
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }

    /// The kernels of the program (see [`Executable::kernel_count`]).
    pub fn kernels(&self) -> usize {
        self.kernels
    }

    /// The kernels Cranelift compiled: identical kernels are compiled
    /// once and share their code.
    pub fn compiled_kernels(&self) -> usize {
        self.compiled
    }
}

impl std::fmt::Display for CompileProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "{:.3} ms, {} kernel(s), {} compiled:",
            ms(self.total()),
            self.kernels,
            self.compiled
        )?;
        for (stage, d) in &self.stages {
            write!(f, " {stage} {:.3}", ms(*d))?;
        }
        Ok(())
    }
}

/// Times the stages of one compilation.
struct Clock {
    profile: CompileProfile,
    last: Instant,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            profile: CompileProfile::default(),
            last: Instant::now(),
        }
    }

    /// Ends stage `name` now.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.profile.stages.push((name, now - self.last));
        self.last = now;
    }
}

/// Compiles `comp` for the host CPU: fuses it (see [`fusion_text`]) and
/// compiles one Cranelift function per kernel.
pub fn compile(comp: &Computation) -> Result<Executable> {
    // Tokens carry no data: compiled as empty arrays (`tokens.rs`), the
    // executable keeping the signature with tokens.
    match crate::tokens::strip(comp)? {
        Some(token_free) => compile_token_free(&token_free)
            .map(|e| e.with_boundary(crate::boundary::Translation::Tokens, comp)),
        None => compile_token_free(comp),
    }
}

/// Pays the JIT's once-per-process costs now, and returns how long they
/// took: the host CPU's features and Cranelift's flags (`codegen::host_isa`),
/// the thread pool's workers, and the first use of the code generator and
/// of the `gemm` crate (their lazily built tables, CPU-cache sizes read
/// from `/sys`, and the first touch of their code). It compiles and runs a
/// small program (a dot, an elementwise op and a reduce) and throws it
/// away. Every later [`compile`] then costs only its own work.
///
/// A long-lived process that compiles many computations pays these once
/// whatever it does; calling this at start-up moves them out of the first
/// compilation (`oxla bench` calls it before its compile timer and prints
/// what it took on its `setup:` line). Calling it again costs one small
/// compilation.
///
/// ```
/// let setup = oxla_jit::warm_up()?;
/// assert!(setup > std::time::Duration::ZERO);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn warm_up() -> Result<Duration> {
    const PROGRAM: &str = "HloModule warm_up

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY warm_up {
  x = f32[8,8] parameter(0)
  d = f32[8,8] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[8,8] exponential(d)
  zero = f32[] constant(0)
  ROOT s = f32[8] reduce(e, zero), dimensions={1}, to_apply=add
}
";
    let start = Instant::now();
    let _ = pool();
    let exe = compile(&oxla_ir::parser::parse_hlo_module(PROGRAM)?)?;
    let x = oxla_ir::Literal::from_vec(&[8, 8], vec![0f32; 64])?;
    exe.run(&[&x])?;
    Ok(start.elapsed())
}

/// [`compile`] of a computation without tokens.
fn compile_token_free(comp: &Computation) -> Result<Executable> {
    let mut clock = Clock::new();
    // Like `evaluate`: a computation assembled without verification (an
    // empty one, an operand out of range) is refused before it is read.
    oxla_ir::verifier::verify(comp)?;
    // A constant printed as `{...}` has no values to compile in.
    comp.check_values_known()?;
    // Complex values: compiled as pairs of real arrays (`complex.rs`).
    if let Some(real) = crate::complex::lower(comp)? {
        return Ok(compile(&real)?.with_boundary(crate::boundary::Translation::Complex, comp));
    }
    // The batch-norm ops run as the primitives XLA (and the interpreter)
    // expand them into, the random-number ops as the integer primitives
    // that give the interpreter's bits; the rest of the JIT never sees
    // them (an `rng` in a loop condition or a reducer stays, and is
    // refused below).
    // A width-changing bitcast-convert: shifts of same-width bitcasts.
    let expanded = oxla_ir::passes::expand_misc(comp)?;
    let comp = expanded.as_ref().unwrap_or(comp);
    // A dot or convolution of mixed or narrow types: converts around an
    // op of one type (`widen.rs`).
    let widened = crate::widen::widen(comp)?;
    let comp = widened.as_ref().unwrap_or(comp);
    // What the JIT does not compile yet is refused before any code is built.
    crate::unsupported::check(comp)?;
    // `transpose(dot(a, b))` becomes `dot(b, a)` (`dot_rewrite.rs`).
    let rewritten = crate::dot_rewrite::transposed_products(comp)?;
    let comp = rewritten.as_ref().unwrap_or(comp);
    clock.lap("check");
    // Fusion: the entry region, after the regions of its loops and
    // branches (planned as it meets them).
    let mut regions = Regions::new();
    let plan = Plan::build(comp, Role::Entry, &mut regions)?;
    let entry = regions.push(Region {
        comp: comp.clone(),
        plan,
        role: Role::Entry,
    });
    clock.lap("fuse");
    for region in regions.values() {
        verify::verify_plan(&region.comp, &region.plan)?;
    }
    clock.lap("verify plan");
    let mut lowered: IdVec<RegionId, Vec<Vec<KernelDesc>>> = IdVec::new();
    let mut verify_time = Duration::ZERO;
    for region in regions.values() {
        let steps = (0..region.plan.steps.len())
            .map(|k| lower_step(&region.comp, &region.plan, k))
            .collect::<Result<Vec<_>>>()?;
        let t = Instant::now();
        verify::verify_kernels(&region.comp, &region.plan, &steps)?;
        verify_time += t.elapsed();
        lowered.push(steps);
    }
    let t = Instant::now();
    verify::verify_program(&regions)?;
    verify_time += t.elapsed();
    // The lowering's lap leaves out the verifier's time.
    clock.last += verify_time;
    clock.lap("lower");
    clock.profile.stages.push(("verify kernels", verify_time));
    let mut jit = Jit::new()?;
    clock.lap("module setup");
    let result_buf = match &regions[entry].plan.output {
        OutputTree::Leaf(Leaf::Buffer(b)) => Some(*b),
        _ => None,
    };
    let mut compiled: IdVec<RegionId, Vec<CompiledStep>> = IdVec::new();
    for (r, region) in regions.iter() {
        let result = if r == entry { result_buf } else { None };
        let steps = lowered[r]
            .iter()
            .zip(&region.plan.steps)
            .map(|(kernels, step)| {
                let several = match step.kind {
                    StepKind::Loop { .. } => "split along the innermost loop where its guards flip",
                    StepKind::While(_) => "the loop state's fused init values",
                    _ => "one per output",
                };
                let mut compiled = compile_step(&mut jit, kernels, result, several)?;
                if kernels.is_empty()
                    && matches!(step.kind, StepKind::While(_) | StepKind::Conditional(_))
                {
                    compiled.text = "no kernel of its own: its regions' kernels run".to_string();
                }
                if let StepKind::While(w) = &step.kind {
                    let copied: Vec<usize> =
                        crate::program::body_slots_alias_state(&regions[w.body].plan)
                            .iter()
                            .enumerate()
                            .filter(|(_, alias)| !**alias)
                            .map(|(i, _)| i)
                            .collect();
                    let line = if copied.is_empty() {
                        "per iteration: no state copied (updated in place or passed through)"
                            .to_string()
                    } else {
                        format!("per iteration: state leaves {copied:?} copied back after the body")
                    };
                    compiled.text = format!("{line}\n{}", compiled.text);
                }
                Ok(compiled)
            })
            .collect::<Result<Vec<_>>>()?;
        compiled.push(steps);
    }
    clock.lap("emit");
    let entries = jit.finalize()?;
    clock.lap("codegen");
    let threads = pool().map_or(1, |p| p.threads()) as i64;
    let tables = jit.tables();
    let mut kernels: IdVec<RegionId, crate::program::StepKernels> = IdVec::new();
    let mut texts: IdVec<RegionId, Vec<String>> = IdVec::new();
    let mut entry_io = Vec::new();
    for (r, steps) in compiled.into_iter_ids() {
        let mut region_kernels = Vec::with_capacity(steps.len());
        let mut region_texts = Vec::with_capacity(steps.len());
        for (s, step) in steps.into_iter().enumerate() {
            let plan = &regions[r].plan;
            let out = plan
                .steps
                .get(s)
                .map_or("?", |st| &plan.buffers[st.out].name);
            region_kernels.push(
                step.kernels
                    .iter()
                    .enumerate()
                    .map(|(k, &(f, shape))| {
                        let kernel = Kernel {
                            entry: entries[f],
                            launch: Launch::new(shape, threads),
                            label: format!("{out} [region {}, step {s}, kernel {k}]", r.index()),
                        };
                        (kernel, tables[f].clone())
                    })
                    .collect(),
            );
            region_texts.push(step.text);
            if r == entry {
                entry_io.push(step.io);
            }
        }
        kernels.push(region_kernels);
        texts.push(region_texts);
    }
    let program = Program::build(&regions, entry, &kernels)?;
    let entry_region = &regions[entry];
    let in_place = if comp.parameter_shapes().iter().any(|s| s.is_tuple()) {
        vec![false; comp.parameter_shapes().len()]
    } else {
        in_place_params(comp, &entry_region.plan, &entry_io, result_buf)
    };
    let fusion = program_text(&regions, entry, &texts);
    let clif = std::mem::take(&mut jit.clif);
    let plan = regions
        .into_iter_ids()
        .find_map(|(r, region)| (r == entry).then_some(region.plan))
        .ok_or_else(|| crate::error::internal(crate::error::Stage::Fusion, "no entry region"))?;
    clock.lap("program");
    let mut profile = clock.profile;
    profile.kernels = program.kernel_count;
    profile.compiled = jit.compiled_count();
    Ok(Executable::new(
        comp, plan, program, jit.module, clif, fusion, in_place, profile,
    ))
}

/// The fusion text of every region: the entry's, then each loop's and
/// branch's, in the order the run meets them.
fn program_text(
    regions: &Regions,
    entry: RegionId,
    texts: &IdVec<RegionId, Vec<String>>,
) -> String {
    let mut out = regions[entry]
        .plan
        .text(&regions[entry].comp, &texts[entry]);
    let mut stack = vec![entry];
    let mut order = Vec::new();
    while let Some(r) = stack.pop() {
        if r != entry {
            order.push(r);
        }
        for step in regions[r].plan.steps.iter().rev() {
            match &step.kind {
                StepKind::While(w) => stack.extend([w.body, w.cond]),
                StepKind::Conditional(c) => stack.extend(c.branches.iter().rev().map(|(b, _)| *b)),
                _ => {}
            }
        }
    }
    for r in order {
        let region = &regions[r];
        let role = match region.role {
            Role::Entry => "entry",
            Role::Condition => "loop condition",
            Role::LoopBody => "loop body",
            Role::Branch => "branch",
        };
        let _ = writeln!(out, "{r} ({role}):");
        out.push_str(&region.plan.text(&region.comp, &texts[r]));
    }
    out
}

/// The fusion decisions for `comp` as HLO-like text: every buffer, then
/// every kernel with its loops, how it reads each buffer, and the
/// instructions fused into it. Compiles `comp` to find out.
pub fn fusion_text(comp: &Computation) -> Result<String> {
    Ok(compile(comp)?.fusion_text().to_string())
}

/// Compiles the kernels of one step.
fn compile_step(
    jit: &mut Jit,
    kernels: &[KernelDesc],
    result_buf: Option<crate::entity::BufferId>,
    several: &str,
) -> Result<CompiledStep> {
    let mut compiled = Vec::with_capacity(kernels.len());
    let mut ios = Vec::with_capacity(kernels.len());
    let mut texts = Vec::with_capacity(kernels.len());
    for kernel in kernels {
        match kernel {
            KernelDesc::Loop(spec) => {
                let (f, report) = jit.loop_kernel(spec)?;
                compiled.push((f, LaunchShape::of_loop(spec)));
                ios.push(loop_io(spec, result_buf));
                texts.push(loop_kernel_text(spec, &report));
            }
            KernelDesc::Sort(spec) => {
                let (f, text) = jit.sort_kernel(spec)?;
                compiled.push((f, LaunchShape::of_sort(spec)));
                ios.push(sort_io(spec));
                texts.push(text);
            }
            KernelDesc::Conv(spec) => {
                let f = jit.conv_kernel(spec)?;
                compiled.push((f, LaunchShape::of_conv(spec)));
                ios.push(conv_io(spec));
                texts.push(format!(
                    "tiled convolution f32 (direct, no patches): taps={} features={} n={} lines={}",
                    spec.taps,
                    spec.features,
                    spec.n,
                    spec.split_extent()
                ));
            }
            KernelDesc::Dot(spec) => {
                let f = jit.dot_kernel(spec)?;
                compiled.push((f, LaunchShape::of_dot(spec)));
                ios.push(dot_io(spec));
                texts.push(format!(
                    "gemm {} {}",
                    spec.ty,
                    if spec.ty.is_float() {
                        "(gemm crate, blocked; rows across batches)"
                    } else {
                        "(exact, blocked: 64-byte column strips, k blocks of 256)"
                    }
                ));
            }
        }
    }
    let text = match texts.len() {
        0 => "empty output: not run".to_string(),
        1 => texts.remove(0),
        n => {
            let mut text = format!("runs as {n} kernels: {several}");
            for t in texts {
                text.push('\n');
                text.push_str(&t);
            }
            text
        }
    };
    let io = match ios.len() {
        1 => ios.remove(0),
        _ => merge_io(ios),
    };
    Ok(CompiledStep {
        kernels: compiled,
        io,
        text,
    })
}

/// A loop kernel's lines of the fusion text: its loops, vectorisation and
/// split loop; a row group's passes; every load's element offset.
fn loop_kernel_text(spec: &LoopKernel, report: &KernelReport) -> String {
    let plans = &report.vector_plans;
    let extents: Vec<i64> = spec.graph.extents.values().copied().collect();
    let order: Vec<usize> = spec.loop_order.iter().map(|v| v.index()).collect();
    let mut info = format!("loops={extents:?} order={order:?}");
    let vtext = |p: &Option<VectorPlan>| match p {
        Some(p) if p.whole_row => {
            format!("inner={} x{} (whole row)", p.lane_type, p.unroll)
        }
        Some(p) => format!("inner={} unroll={}", p.lane_type, p.unroll),
        None => "inner=scalar".to_string(),
    };
    if spec.row_loops.is_none() {
        let _ = write!(info, " {}", vtext(&plans[0]));
    }
    if let Some(d) = spec.split_loop {
        let _ = write!(info, " split=loop{d}");
    }
    if let Some(r) = spec.row_loops {
        let _ = match r {
            0 | 1 => write!(info, " rows=loop0"),
            _ => write!(info, " rows=loop0..loop{}", r - 1),
        };
        for (k, (pass, vp)) in spec.passes.iter().zip(plans).enumerate() {
            if pass.per_row {
                let _ = write!(info, "\npass {k}: row value -> {}", pass.work.out());
                continue;
            }
            let _ = write!(info, "\npass {k}: {} {}", pass_text(&pass.work), vtext(vp));
            for keep in &pass.keeps {
                let _ = write!(info, " keep={} at {}", keep.buf, keep.offset);
            }
            if let Some((p, bufs)) = &report.next_row_touch
                && *p == k
            {
                let names: Vec<String> = bufs.iter().map(|b| format!("{b}")).collect();
                let _ = write!(info, " touches the next row of {}", names.join(", "));
            }
        }
    }
    for n in spec.graph.nodes.values() {
        if let crate::graph::Node::Load {
            buf, offset, clamp, ..
        } = n
        {
            let _ = write!(
                info,
                "\nread {buf} at {offset}{}",
                if *clamp { " (guarded)" } else { "" }
            );
        }
    }
    info
}

/// One pass of a row-group kernel, for the fusion text.
fn pass_text(work: &Work) -> String {
    match work {
        Work::Store { out, .. } => format!("loop -> {out}"),
        Work::Update { out, .. } => format!("update -> {out}"),
        Work::RowReduce { out, .. } => format!("row reduce -> {out}"),
        Work::ColumnReduce { out, .. } => format!("column reduce -> {out}"),
    }
}
