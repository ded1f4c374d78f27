//! # oxla-jit: the Cranelift JIT of oxla
//!
//! [`compile()`] turns a verified [`Computation`](oxla_ir::Computation) into
//! an [`Executable`] of native kernels for the host CPU; [`Executable::run`]
//! gives the same result as the reference interpreter (`oxla_interp`), bit
//! for bit for every exact op.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
//! let mut b = Builder::new("relu_affine");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
//! let w = b.parameter(1, Shape::new(F32, &[3]), "w")?;
//! let xw = b.mul(x, w, &[1])?;
//! let zero = b.constant_scalar(0f32)?;
//! let y = b.max(xw, zero, &[])?;
//! let comp = b.build(y)?;
//! let exe = oxla_jit::compile(&comp)?;            // one fused kernel
//! let x = Literal::from_vec(&[2, 3], vec![1f32, -2., 3., -4., 5., -6.])?;
//! let w = Literal::from_vec(&[3], vec![2f32, 2., 2.])?;
//! let mut out = Literal::zeros(comp.result_shape())?;
//! exe.run_into(&[&x, &w], &mut out)?;            // no allocation
//! assert_eq!(out.to_vec::<f32>()?, vec![2., 0., 6., 0., 10., 0.]);
//! # Ok::<(), oxla_ir::Error>(())
//! ```
//!
//! ## How it works (data flows one way)
//!
//! `compile` (the driver) runs the stages in order; each reads only the one
//! before's output.
//!
//! 1. `fusion`: the entry body is cut into *steps*. Parameters,
//!    constants, reduces, dots, result leaves and costly shared values get
//!    buffers; everything else is fused into the kernels that read it.
//!    Reduces over the innermost dims and the steps that read them back
//!    over the same rows form *row groups* (`fusion::row_groups`): one
//!    kernel, one pass per step and row (softmax, layer norm).
//! 2. `graph`, `ix` (the index analysis): a step's root is expanded into
//!    an expression graph at the kernel's loop index; every index map
//!    (broadcast, transpose, slice, reverse, reshape, pad, concatenate) is
//!    resolved into index expressions, so a broadcast operand is a load at
//!    stride 0.
//! 3. `lower`: each step becomes kernel descriptions (`kernel`): loop
//!    variables chosen (unit dimensions dropped, adjacent contiguous ones
//!    merged, transposes tiled, guarded loops split), reductions laid out
//!    (row or column). Lowering is total for whatever fusion emits.
//! 4. `verify`: the JIT's IR verifier checks the plan after fusion and the
//!    kernels after lowering (buffers written once, every element, before
//!    any read; loads inside their buffers; variables bound; operands
//!    before users).
//! 5. `codegen`: one Cranelift function per kernel: its analysis
//!    (`schedule`), then the loop nest (`loops`, `reduce`), memory accesses
//!    (`memory`), per-op rules (`elemental`, with `math` for the
//!    transcendentals), folds and dots.
//! 6. `launch`: how each kernel's range is cut across threads.
//! 7. `executable`: the run path checks arguments against precomputed
//!    shapes, allocates outputs (uninitialised until the kernels have
//!    written them, huge pages when large, or recycled from a result handed
//!    back) or writes into the caller's, and launches kernels in order,
//!    splitting large ones across the persistent `pool`; `inplace` decides
//!    which arguments a result may overwrite; `boundary` translates
//!    arguments and results where the computation was compiled as another
//!    (tokens as empty arrays, complex values as real pairs).
//!
//! The IR is arenas addressed by typed `u32` handles (`entity`): buffers,
//! parameters, nodes, folds, loop variables. Errors (`error`) are limits a
//! user can act on or internal bugs naming their stage.
//!
//! Invariants: no input can make a kernel read or write out of bounds
//! (arguments are checked before any native code runs, the verifier checks
//! every access of every kernel description before it is compiled, loads
//! under a `pad`/`concatenate` guard are clamped into their buffer);
//! nothing falls back to the interpreter; `oxla-ir` knows nothing of this
//! crate.
//!
//! See `docs/jit.md` for the design, the exactness contract and the
//! measured numbers.
#![warn(missing_docs)]

pub(crate) mod blocked;
pub(crate) mod boundary;
pub(crate) mod buffers;
pub(crate) mod codegen;
pub(crate) mod compile;
pub(crate) mod complex;
pub(crate) mod convlib;
pub(crate) mod cpool;
pub(crate) mod dot_rewrite;
pub(crate) mod entity;
pub(crate) mod error;
pub(crate) mod executable;
pub(crate) mod fusion;
pub(crate) mod gemm;
pub(crate) mod graph;
pub(crate) mod inplace;
pub(crate) mod ix;
pub(crate) mod kcompile;
pub(crate) mod kernel;
pub(crate) mod launch;
pub(crate) mod lower;
pub(crate) mod math;
pub(crate) mod narrowlib;
pub(crate) mod pool;
pub(crate) mod profile;
pub(crate) mod program;
pub(crate) mod sortlib;
pub(crate) mod tokens;
pub(crate) mod unsupported;
pub(crate) mod verify;
pub(crate) mod widen;

pub use buffers::MemoryUse;
pub use compile::{CompileProfile, compile, fusion_text, warm_up};
pub use executable::Executable;
pub use launch::PARALLEL_THRESHOLD;
pub use pool::THREADS_VAR;
pub use profile::PROFILE_VAR;
pub use unsupported::supports_element_type;

/// How many threads run a large kernel (the calling thread included):
/// `OXLA_NUM_THREADS` if it was a positive integer when the first
/// computation was compiled, else the cores this process may use (at most
/// 64). Kernels under
/// [`PARALLEL_THRESHOLD`] elements always run on the calling thread.
///
/// ```
/// assert!(oxla_jit::num_threads() >= 1);
/// ```
pub fn num_threads() -> usize {
    pool::pool().map_or(1, |p| p.threads())
}
pub use math::{ulp_bound, ulp_bound_binary};
