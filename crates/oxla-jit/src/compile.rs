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

use oxla_ir::{Computation, Result};

use crate::codegen::{Jit, KernelReport, VectorPlan};
use crate::executable::{Executable, Kernel};
use crate::fusion::{Leaf, OutputTree, Plan};
use crate::inplace::{StepIo, dot_io, in_place_params, loop_io, merge_io, sort_io};
use crate::kernel::{KernelDesc, LoopKernel, Work};
use crate::launch::{Launch, LaunchShape};
use crate::lower::lower_step;
use crate::pool::pool;
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

/// Compiles `comp` for the host CPU: fuses it (see [`fusion_text`]) and
/// compiles one Cranelift function per kernel.
pub fn compile(comp: &Computation) -> Result<Executable> {
    // Like `evaluate`: a computation assembled without verification (an
    // empty one, an operand out of range) is refused before it is read.
    oxla_ir::verifier::verify(comp)?;
    // A constant printed as `{...}` has no values to compile in.
    comp.check_values_known()?;
    // What the JIT does not compile yet is refused before any code is built.
    crate::unsupported::check(comp)?;
    let plan = Plan::new(comp)?;
    verify::verify_plan(comp, &plan)?;
    let lowered = (0..plan.steps.len())
        .map(|k| lower_step(comp, &plan, k))
        .collect::<Result<Vec<_>>>()?;
    verify::verify_kernels(&plan, &lowered)?;
    let mut jit = Jit::new()?;
    let result_buf = match &plan.output {
        OutputTree::Leaf(Leaf::Buffer(b)) => Some(*b),
        _ => None,
    };
    let mut steps = Vec::with_capacity(plan.steps.len());
    for kernels in &lowered {
        steps.push(compile_step(&mut jit, kernels, result_buf)?);
    }
    let entries = jit.finalize()?;
    let threads = pool().map_or(1, |p| p.threads()) as i64;
    let mut kernels = Vec::new();
    let mut io = Vec::with_capacity(steps.len());
    let mut texts = Vec::with_capacity(steps.len());
    for step in steps {
        for (f, shape) in step.kernels {
            kernels.push(Kernel {
                entry: entries[f],
                launch: Launch::new(shape, threads),
            });
        }
        io.push(step.io);
        texts.push(step.text);
    }
    let in_place = in_place_params(comp, &plan, &io, result_buf);
    let fusion = plan.text(comp, &texts);
    let clif = jit.clif.join("\n");
    Ok(Executable::new(
        comp, plan, kernels, jit.module, clif, fusion, in_place,
    ))
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
            KernelDesc::Dot(spec) => {
                let f = jit.dot_kernel(spec)?;
                compiled.push((f, LaunchShape::of_dot(spec)));
                ios.push(dot_io(spec));
                texts.push(format!(
                    "gemm {} {}",
                    spec.ty,
                    if spec.ty.is_float() {
                        "(matrixmultiply, blocked)"
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
            let mut text = format!(
                "runs as {n} kernels: split along the innermost loop where its guards flip"
            );
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
