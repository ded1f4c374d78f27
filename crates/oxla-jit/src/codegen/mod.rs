//! Cranelift code generation: one function per kernel description.
//!
//! Every kernel has the signature
//! `extern "C" fn(buffers: *const *mut u8, start: i64, end: i64)`: a table
//! with one base pointer per buffer of the executable, and the range of
//! the kernel's *split loop* (the loop the thread pool may cut into
//! chunks; kernels without one ignore the range).
//!
//! ## Stages
//!
//! | file | what it does |
//! |---|---|
//! | `schedule.rs` | the analysis, before any Cranelift value exists: the loop level of every node, which nodes each pass computes per element, and how each innermost loop is vectorised ([`VectorPlan`]) |
//! | `loops.rs` | the emitter of a loop kernel ([`KernelEmitter`]): the loop nest, the passes of a row group, the vector main loop and its scalar tail, one element |
//! | `reduce.rs` | the accumulators of row and column reductions |
//! | `memory.rs` | index expressions to addresses: buffer bases, row pointers, loads and stores (scalar, vector, reversed, `pred` masks), guards, `iota` |
//! | `elemental.rs` | the per-op rules: every arithmetic, logic, comparison and conversion op in scalar and vector form, beside the rule that says whether a node has a vector form |
//! | `fold.rs` | folds (reduces and dots of called bodies), emitted in place as scalar loops |
//! | `conv.rs` | tiled convolution kernels: one call into `convlib.rs` per thread |
//! | `dot.rs` | dot kernels: one call into the float GEMM (`gemm.rs`) per thread for floats, a blocked exact loop for integers |
//! | `sort.rs` | sort kernels: stubs into the run-time sorts by keys and top-k (`sortlib.rs`), and the merge sort with the comparator compiled inline |
//!
//! ## Loop nests
//!
//! A kernel loops over its variables in [`LoopKernel::loop_order`],
//! outermost first. Each node of the expression graph is emitted at the
//! shallowest loop level where all its index variables are known (its
//! *level*), so everything that does not depend on the innermost variable
//! is computed once per row, not per element. The innermost loop has an
//! unrolled 128-bit vector body (f32x4, f64x2, i32x4, i16x8, i8x16, i64x2)
//! and a scalar tail; it is vectorised when every value varying along it
//! is read contiguously (stride 1), all its types have one byte size
//! (`pred` values become lane masks of that size), and Cranelift has every
//! op for that lane type. Otherwise the innermost loop is scalar. Loads
//! from a buffer read at stride 0 along the innermost loop are hoisted and
//! splatted, never materialised.
//!
//! ## Exactness
//!
//! Every op is emitted with the interpreter's semantics, bit for bit:
//! wrapping integers; division and remainder by zero (`-1`/`MAX`, `x`)
//! and `MIN / -1` guarded with selects so nothing traps; shifts of the bit
//! width or more give 0 or the sign fill; saturating float → integer
//! conversion with NaN → 0; no multiply-add is contracted into `fma`.
//! Float `maximum`/`minimum` propagate NaN and order `-0 < +0`:
//! `max(a, b)` is emitted as `m1 = b < a ? a : b` and `m2 = a < b ? b : a`
//! (each one `maxps`/`maxss`), `m1 & m2` (equal only differs for ±0,
//! where the AND gives +0), then `uno(a, b) ? a + b : that` (a NaN
//! operand gives NaN); `min` uses `|` to let -0 win. Six cheap
//! instructions, against CLIF `fmax`'s eight and its scalar branches.
//!
//! The one documented difference: a float `add`/`multiply` reduction along
//! the innermost loop keeps `lanes × unroll` partial accumulators (and
//! adds them up at the end), so its rounding differs from the
//! interpreter's left-to-right fold; see `docs/jit.md` for the bound.
//!
//! ## Memory safety
//!
//! The emitted code dereferences the buffer table without checks. What
//! makes that sound is checked before: the run path checks every
//! argument's shape, and `verify::check_kernels` checks every description
//! (every load inside its buffer or clamped into it, every store inside
//! its output) before any of it is compiled.

mod conv;
mod dot;
mod elemental;
mod fold;
mod loops;
mod memory;
// Emitters of the misc family (round-nearest-afz, same-width bitcasts).
mod misc;
// Narrow floats and sub-byte integers: computed wider, rounded or wrapped.
mod narrow;
mod reduce;
mod schedule;
mod sort;

use cranelift_codegen::Context;
use cranelift_codegen::ir::{AbiParam, Endianness, MemFlagsData, Type, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module, default_libcall_names};
use oxla_ir::{ElementType, Error, Result};

use crate::entity::BufferId;
use crate::error::{Stage, internal};
use crate::kernel::{DotKernel, LoopKernel};
use crate::math::MathLib;

pub(crate) use narrow::computes_narrow;
pub(crate) use schedule::VectorPlan;

use loops::KernelEmitter;
use schedule::Schedule;

/// A compiled kernel.
pub(crate) type KernelFn = unsafe extern "C" fn(*const *mut u8, i64, i64);

/// An internal error of code generation.
fn bug(message: impl Into<String>) -> Error {
    internal(Stage::Codegen, message)
}

/// An error setting up the Cranelift module.
fn setup_error(message: impl Into<String>) -> Error {
    internal(Stage::Setup, message)
}

/// The scalar CLIF type of an element type (`pred` is one byte, 0 or 1).
pub(crate) fn clif_type(et: ElementType) -> Type {
    match et {
        ElementType::Pred
        | ElementType::S8
        | ElementType::U8
        | ElementType::Tuple
        | ElementType::Token => types::I8,
        ElementType::S16 | ElementType::U16 => types::I16,
        ElementType::S32 | ElementType::U32 => types::I32,
        ElementType::S64 | ElementType::U64 => types::I64,
        ElementType::F32 => types::F32,
        ElementType::F64 => types::F64,
        // Held as their bits (`codegen/narrow.rs`); complex types are
        // refused before code is built (`unsupported.rs`), the storage
        // integer keeps this total.
        ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU => types::I8,
        ElementType::Bf16 | ElementType::F16 => types::I16,
        ElementType::C64 => types::I64,
        ElementType::C128 => types::I128,
    }
}

/// The integer type of `bytes` bytes.
fn int_type(bytes: u32) -> Type {
    match bytes {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        _ => types::I64,
    }
}

/// The 128-bit vector type of `et` when lanes are `w` bytes wide (`pred`
/// is a lane mask of `w` bytes).
pub(crate) fn vector_type(et: ElementType, w: u32) -> Type {
    let lanes = 16 / w;
    if et.is_pred() {
        int_type(w).by(lanes).unwrap_or(types::I8X16)
    } else {
        clif_type(et).by(lanes).unwrap_or(types::I8X16)
    }
}

/// The bytes of one element of `et` in a buffer (`pred`: 1).
fn size_of(et: ElementType) -> u32 {
    et.byte_size().max(1) as u32
}

/// The low `bytes * 8` bits set.
fn width_mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

/// The flags of every load and store of tensor data: it never traps (the
/// verifier keeps every access inside its buffer) and has no alignment
/// guarantee.
fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// The flags of a bitcast between vector types (lane order is memory
/// order).
fn bitcast_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Scalar or vector emission.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Scalar,
    /// Lanes of `w` bytes.
    Vector(u32),
}

/// How a loop kernel was compiled (for the fusion text).
pub(crate) struct KernelReport {
    /// Each pass's vector plan.
    pub(crate) vector_plans: Vec<Option<VectorPlan>>,
    /// The pass that touches the next row, and the buffers it touches.
    pub(crate) next_row_touch: Option<(usize, Vec<BufferId>)>,
}

/// One JIT module and the state to fill it.
pub(crate) struct Jit {
    pub(crate) module: JITModule,
    ctx: Context,
    fbc: FunctionBuilderContext,
    math: MathLib,
    gemm: dot::GemmEntries,
    /// Per kernel: the distinct function it runs, and its own buffer
    /// table (`None`: the region's), see `kcompile.rs`.
    kernels: Vec<(usize, Option<Vec<u32>>)>,
    /// The distinct functions: declared ids, and functions until compiled.
    ids: Vec<FuncId>,
    funcs: Vec<cranelift_codegen::ir::Function>,
    /// The distinct functions by structure (`kcompile.rs`).
    distinct: crate::kcompile::Distinct,
    /// The CLIF text of each kernel, captured before it is compiled and
    /// printed on demand.
    pub(crate) clif: crate::kcompile::ClifText,
}

/// The host ISA with our flags, set up once per process: optimising for
/// speed, verifier on in debug builds only.
pub(crate) fn host_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa> {
    static ISA: std::sync::OnceLock<
        std::result::Result<cranelift_codegen::isa::OwnedTargetIsa, String>,
    > = std::sync::OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v).map_err(|e| format!("setting {k}={v}: {e}"))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(
            &mut flags,
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        )?;
        set(&mut flags, "is_pic", "false")?;
        // Frames past a page (the integer dot's packed strip of B) probe
        // each page as they grow, so they cannot step over a guard page.
        set(&mut flags, "enable_probestack", "true")?;
        set(&mut flags, "probestack_strategy", "inline")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        cranelift_native::builder()
            .map_err(|e| format!("host ISA: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| format!("host ISA: {e}"))
    })
    .clone()
    .map_err(setup_error)
}

impl Jit {
    /// A module for the host ISA (set up once per process, see
    /// [`host_isa`]).
    pub(crate) fn new() -> Result<Jit> {
        let mut jb = JITBuilder::with_isa(host_isa()?, default_libcall_names());
        dot::GemmEntries::register_symbols(&mut jb);
        MathLib::register_symbols(&mut jb);
        sort::register_symbols(&mut jb);
        conv::register_symbols(&mut jb);
        crate::narrowlib::register_symbols(&mut jb);
        let mut module = JITModule::new(jb);
        let math = MathLib::new(&mut module)?;
        let gemm = dot::GemmEntries::declare(&mut module)?;
        Ok(Jit {
            ctx: module.make_context(),
            module,
            fbc: FunctionBuilderContext::new(),
            math,
            gemm,
            kernels: Vec::new(),
            ids: Vec::new(),
            funcs: Vec::new(),
            distinct: Default::default(),
            clif: Default::default(),
        })
    }

    /// Starts a function with the kernel signature.
    fn begin(&mut self) {
        self.module.clear_context(&mut self.ctx);
        let ptr = self.module.target_config().pointer_type();
        let sig = &mut self.ctx.func.signature;
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
    }

    /// Takes the function built since [`Jit::begin`] as kernel `k` (the
    /// index returned): renumbers its buffer table and, unless an
    /// identical function was seen before, declares it for
    /// [`Jit::finalize`] to compile.
    fn finish(&mut self) -> Result<usize> {
        let k = self.kernels.len();
        let mut func =
            std::mem::replace(&mut self.ctx.func, cranelift_codegen::ir::Function::new());
        let table = crate::kcompile::canonical_table(&mut func);
        let tables = match &table {
            Some(map) => {
                let names: Vec<String> = map.iter().map(|b| format!("buf{b}")).collect();
                format!(" (buffer table: {})", names.join(" "))
            }
            None => String::new(),
        };
        let d = match self.distinct.find_or_add(&func, &self.funcs) {
            Some(d) => {
                self.clif.push(
                    format!("; kernel{k}{tables}: the code of function{d}"),
                    None,
                );
                d
            }
            None => {
                let d = self.ids.len();
                let name = format!("kernel{k}");
                let id = self
                    .module
                    .declare_function(&name, Linkage::Local, &func.signature)
                    .map_err(|e| bug(format!("declaring {name}: {e}")))?;
                self.clif.push(
                    format!("; kernel{k}{tables}: function{d}"),
                    Some(func.clone()),
                );
                self.ids.push(id);
                self.funcs.push(func);
                d
            }
        };
        self.kernels.push((d, table));
        Ok(k)
    }

    /// The kernels' own buffer tables (see [`Jit::finish`]), by kernel.
    pub(crate) fn tables(&self) -> Vec<Option<Vec<u32>>> {
        self.kernels.iter().map(|(_, t)| t.clone()).collect()
    }

    /// The distinct functions compiled.
    pub(crate) fn compiled_count(&self) -> usize {
        self.ids.len()
    }

    /// Compiles a loop kernel; returns its index and how its innermost
    /// loop was vectorised.
    pub(crate) fn loop_kernel(&mut self, kernel: &LoopKernel) -> Result<(usize, KernelReport)> {
        self.begin();
        let schedule = Schedule::new(kernel);
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
            let mut em =
                KernelEmitter::new(&mut b, &mut self.module, &self.math, kernel, &schedule);
            em.emit_kernel()?;
            b.seal_all_blocks();
            b.finalize(self.module.target_config());
        }
        let report = schedule.report(kernel);
        Ok((self.finish()?, report))
    }

    /// Compiles a dot kernel.
    pub(crate) fn dot_kernel(&mut self, kernel: &DotKernel) -> Result<usize> {
        self.begin();
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
            let gemm = self.gemm.for_type(kernel.ty);
            dot::emit_dot(&mut b, &mut self.module, gemm, kernel);
            b.seal_all_blocks();
            b.finalize(self.module.target_config());
        }
        self.finish()
    }

    /// Compiles the distinct functions (in parallel, `kcompile.rs`),
    /// links them, and returns every kernel's entry point.
    pub(crate) fn finalize(&mut self) -> Result<Vec<KernelFn>> {
        let funcs = std::mem::take(&mut self.funcs);
        let codes = crate::kcompile::compile_all(self.module.isa(), funcs, self.ids.clone())?;
        for (code, &id) in codes.iter().zip(&self.ids) {
            self.module
                .define_function_bytes(id, code.alignment, &code.bytes, &code.relocs)
                .map_err(|e| bug(format!("defining {id}: {e}")))?;
        }
        self.module
            .finalize_definitions()
            .map_err(|e| internal(Stage::Link, format!("linking kernels: {e}")))?;
        Ok(self
            .kernels
            .iter()
            .map(|&(d, _)| {
                let p = self.module.get_finalized_function(self.ids[d]);
                // SAFETY: `p` is the entry of a function compiled with the
                // kernel signature above (pointer, i64, i64; SysV C ABI).
                unsafe { std::mem::transmute::<*const u8, KernelFn>(p) }
            })
            .collect())
    }
}
