//! Cranelift code generation: one function per kernel.
//!
//! Every kernel has the signature
//! `extern "C" fn(buffers: *const *mut u8, start: i64, end: i64)`: a table
//! with one base pointer per buffer of the executable, and the range of
//! the *partition loop* (the outermost loop the thread pool may split;
//! kernels without one ignore the range).
//!
//! ## Loop nests
//!
//! A kernel loops over its variables in [`KernelSpec::order`], outermost
//! first. Each node of the expression graph is emitted at the shallowest
//! loop level where all its index variables are known (its *level*), so
//! everything that does not depend on the innermost variable is computed
//! once per row, not per element. The innermost loop has an unrolled
//! 128-bit vector body (f32x4, f64x2, i32x4, i16x8, i8x16, i64x2) and a
//! scalar tail; it is vectorised when every value varying along it is
//! read contiguously (stride 1), all its types have one byte size (`pred`
//! values become lane masks of that size), and Cranelift has every op for
//! that lane type. Otherwise the innermost loop is scalar. Loads from a
//! buffer read at stride 0 along the innermost loop are hoisted and
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

// Emitters of the misc family (round-nearest-afz, same-width bitcasts).
mod misc;

use cranelift_codegen::Context;
use cranelift_codegen::ir::{
    AbiParam, BlockArg, ConstantData, Endianness, Function, InstBuilder, MemFlagsData,
    StackSlotData, StackSlotKind, Type, Value, condcodes::FloatCC, condcodes::IntCC,
    immediates::Ieee32, immediates::Ieee64, types,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module, default_libcall_names};
use oxla_ir::{BinaryOp, ComparisonDirection, ElementType, Error, Result, UnaryOp};

use crate::graph::{Cond, Fold, FoldId, Graph, Node, NodeId};
use crate::ix::{Atom, Ix, Var};
use crate::math::MathLib;

/// A compiled kernel.
pub(crate) type KernelFn = unsafe extern "C" fn(*const *mut u8, i64, i64);

fn backend(message: impl Into<String>) -> Error {
    Error::Backend {
        backend: "jit".into(),
        message: message.into(),
    }
}

/// The scalar CLIF type of an element type (`pred` is one byte, 0 or 1).
pub(crate) fn clif_type(et: ElementType) -> Type {
    match et {
        ElementType::Pred | ElementType::S8 | ElementType::U8 | ElementType::Tuple => types::I8,
        ElementType::S16 | ElementType::U16 => types::I16,
        ElementType::S32 | ElementType::U32 => types::I32,
        ElementType::S64 | ElementType::U64 => types::I64,
        ElementType::F32 => types::F32,
        ElementType::F64 => types::F64,
    }
}

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

fn size_of(et: ElementType) -> u32 {
    et.byte_size().max(1) as u32
}

fn width_mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

/// How a reduce combines.
#[derive(Clone, Debug)]
pub(crate) enum Reducer {
    /// A commutative, associative binary op applied to the two reducer
    /// parameters.
    Op(BinaryOp),
    /// Any other reducer body: its nodes read `Var` slot 0 (accumulator)
    /// and slot 1 (element).
    Body(NodeId),
}

/// What a kernel does per element.
#[derive(Clone, Debug)]
pub(crate) enum Work {
    /// `out[out_offset] = root`.
    Store {
        root: NodeId,
        out: usize,
        out_offset: Ix,
    },
    /// A reduction whose reduced variables are the innermost loops,
    /// starting at depth `first_reduced`.
    Row {
        x: NodeId,
        init: NodeId,
        reducer: Reducer,
        out: usize,
        out_offset: Ix,
        first_reduced: usize,
    },
    /// A reduction whose innermost loop walks the output's last dimension;
    /// the reduced loops start at depth `first_reduced`.
    Col {
        x: NodeId,
        init: NodeId,
        reducer: Reducer,
        out: usize,
        out_offset: Ix,
        first_reduced: usize,
    },
}

/// A value a pass stores per element besides its own result: `node` into
/// `buf` at `offset` (a row-group kernel keeps a costly value there so that
/// a later pass over the same row loads it instead of recomputing it).
#[derive(Clone, Debug)]
pub(crate) struct Keep {
    pub(crate) node: NodeId,
    pub(crate) buf: usize,
    pub(crate) offset: Ix,
    pub(crate) ty: ElementType,
}

/// What one pass of a kernel computes.
#[derive(Clone, Debug)]
pub(crate) struct Pass {
    pub(crate) work: Work,
    /// The element type of the values stored/accumulated.
    pub(crate) ty: ElementType,
    /// Extra per-element stores.
    pub(crate) keep: Vec<Keep>,
    /// A row group's *row pass*: a `Store` of one value per row, computed
    /// at the row depth with no loop of its own.
    pub(crate) row_only: bool,
}

impl Pass {
    /// Every node the pass evaluates: its per-element value, the values it
    /// keeps, and for a reduction its init and reducer body.
    pub(crate) fn roots(&self) -> Vec<NodeId> {
        let (x, body) = self.work.roots();
        let mut roots = vec![x];
        roots.extend(self.keep.iter().map(|k| k.node));
        if let Work::Row { init, .. } | Work::Col { init, .. } = &self.work {
            roots.push(*init);
        }
        roots.extend(body);
        roots
    }
}

/// One loop kernel to compile.
pub(crate) struct KernelSpec {
    pub(crate) graph: Graph,
    /// Every loop variable, outermost first.
    pub(crate) order: Vec<Var>,
    /// The depth of the loop `start..end` applies to.
    pub(crate) partition: Option<usize>,
    /// What the kernel computes: one pass for an ordinary kernel; several
    /// for a row group, run one after the other per iteration of the loops
    /// above `row_depth` (each pass runs its own loops from `row_depth` down).
    pub(crate) passes: Vec<Pass>,
    /// Where the passes of a row group start (`None`: one pass).
    pub(crate) row_depth: Option<usize>,
}

impl KernelSpec {
    /// An ordinary one-pass kernel.
    pub(crate) fn single(
        graph: Graph,
        order: Vec<Var>,
        partition: Option<usize>,
        work: Work,
        ty: ElementType,
    ) -> KernelSpec {
        KernelSpec {
            graph,
            order,
            partition,
            passes: vec![Pass {
                work,
                ty,
                keep: vec![],
                row_only: false,
            }],
            row_depth: None,
        }
    }
}

/// Description of how the innermost loop was compiled (for the debug text).
#[derive(Clone, Debug)]
pub(crate) struct VecPlan {
    /// Lane width in bytes.
    pub(crate) width: u32,
    /// Vector copies per iteration.
    pub(crate) unroll: u32,
    /// The vector type of the stored or accumulated values.
    pub(crate) lane_type: Type,
    /// The copies cover the whole innermost loop (no loop, no tail).
    pub(crate) whole: bool,
}

/// How a loop kernel was compiled (for the debug text).
pub(crate) struct KernelInfo {
    /// Each pass's vector plan.
    pub(crate) vplans: Vec<Option<VecPlan>>,
    /// The pass that touches the next row, and the buffers it touches.
    pub(crate) touch: Option<(usize, Vec<usize>)>,
}

/// A dot kernel.
pub(crate) struct DotSpec {
    pub(crate) ty: ElementType,
    pub(crate) lhs: (usize, [i64; 3]),
    pub(crate) rhs: (usize, [i64; 3]),
    pub(crate) out: usize,
    pub(crate) batch: i64,
    pub(crate) m: i64,
    pub(crate) k: i64,
    pub(crate) n: i64,
}

impl DotSpec {
    /// `true` when the kernel partitions over the batch, else over rows.
    pub(crate) fn by_batch(&self) -> bool {
        self.ty.is_float() && self.batch > 1
    }
}

/// Defines `extern "C" fn $name`: `C = A x B` for `$t` through
/// `matrixmultiply::$gemm` (called from JIT code).
macro_rules! gemm_entry {
    ($name:ident, $t:ty, $gemm:ident) => {
        /// `C = A x B` through `matrixmultiply` (called from JIT code).
        extern "C" fn $name(
            m: i64,
            k: i64,
            n: i64,
            a: *const $t,
            rsa: i64,
            csa: i64,
            b: *const $t,
            rsb: i64,
            csb: i64,
            c: *mut $t,
            rsc: i64,
        ) {
            if m <= 0 || n <= 0 {
                return;
            }
            // SAFETY: the kernel passes pointers into buffers of the checked
            // shapes: A covers m x k at strides (rsa, csa), B k x n at
            // (rsb, csb), C m x n at (rsc, 1); with beta = 0, C is only
            // written.
            unsafe {
                if k <= 0 {
                    for i in 0..m {
                        std::ptr::write_bytes(c.offset((i * rsc) as isize), 0, n as usize);
                    }
                    return;
                }
                matrixmultiply::$gemm(
                    m as usize,
                    k as usize,
                    n as usize,
                    1.0,
                    a,
                    rsa as isize,
                    csa as isize,
                    b,
                    rsb as isize,
                    csb as isize,
                    0.0,
                    c,
                    rsc as isize,
                    1,
                );
            }
        }
    };
}

gemm_entry!(oxla_jit_gemm_f32, f32, sgemm);
gemm_entry!(oxla_jit_gemm_f64, f64, dgemm);

/// One JIT module and the state to fill it.
pub(crate) struct Jit {
    pub(crate) module: JITModule,
    ctx: Context,
    fbc: FunctionBuilderContext,
    math: MathLib,
    gemm: [FuncId; 2],
    ids: Vec<FuncId>,
    /// The CLIF text of each kernel, captured before it is compiled.
    pub(crate) clif: Vec<String>,
}

impl Jit {
    /// A module for the host ISA, optimising for speed (verifier on in
    /// debug builds only).
    pub(crate) fn new() -> Result<Jit> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| backend(format!("setting {k}={v}: {e}")))
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
        let isa = cranelift_native::builder()
            .map_err(|e| backend(format!("host ISA: {e}")))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| backend(format!("host ISA: {e}")))?;
        let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
        jb.symbol("oxla_jit_gemm_f32", oxla_jit_gemm_f32 as *const u8);
        jb.symbol("oxla_jit_gemm_f64", oxla_jit_gemm_f64 as *const u8);
        MathLib::register_symbols(&mut jb);
        let mut module = JITModule::new(jb);
        let math = MathLib::new(&mut module)?;
        let mut gemm = Vec::new();
        for (name, ty) in [
            ("oxla_jit_gemm_f32", types::I64),
            ("oxla_jit_gemm_f64", types::I64),
        ] {
            let mut sig = module.make_signature();
            for _ in 0..11 {
                sig.params.push(AbiParam::new(ty));
            }
            let id = module
                .declare_function(name, Linkage::Import, &sig)
                .map_err(|e| backend(format!("declaring {name}: {e}")))?;
            gemm.push(id);
        }
        Ok(Jit {
            ctx: module.make_context(),
            module,
            fbc: FunctionBuilderContext::new(),
            math,
            gemm: [gemm[0], gemm[1]],
            ids: Vec::new(),
            clif: Vec::new(),
        })
    }

    fn begin(&mut self) {
        self.module.clear_context(&mut self.ctx);
        let ptr = self.module.target_config().pointer_type();
        let sig = &mut self.ctx.func.signature;
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
    }

    fn finish(&mut self) -> Result<usize> {
        let name = format!("kernel{}", self.ids.len());
        self.clif
            .push(format!("; {name}\n{}", self.ctx.func.display()));
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &self.ctx.func.signature)
            .map_err(|e| backend(format!("declaring {name}: {e}")))?;
        self.module
            .define_function(id, &mut self.ctx)
            .map_err(|e| backend(format!("compiling {name}: {e:?}")))?;
        self.ids.push(id);
        Ok(self.ids.len() - 1)
    }

    /// Compiles a loop kernel; returns its index and how its innermost
    /// loop was vectorised.
    pub(crate) fn loop_kernel(&mut self, spec: &KernelSpec) -> Result<(usize, KernelInfo)> {
        self.begin();
        let plan;
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
            let mut em = Em::new(&mut b, &mut self.module, &self.math, spec)?;
            em.kernel()?;
            let touched = em
                .touch_loads
                .iter()
                .filter_map(|&n| match &em.nodes[n] {
                    Node::Load { buf, .. } => Some(*buf),
                    _ => None,
                })
                .collect();
            plan = KernelInfo {
                vplans: em.passes.iter().map(|p| p.vplan.clone()).collect(),
                touch: em.touch_pass.map(|p| (p, touched)),
            };
            b.seal_all_blocks();
            b.finalize(self.module.target_config());
        }
        Ok((self.finish()?, plan))
    }

    /// Compiles a dot kernel.
    pub(crate) fn dot_kernel(&mut self, spec: &DotSpec) -> Result<usize> {
        self.begin();
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
            let gemm = if spec.ty == ElementType::F64 {
                self.gemm[1]
            } else {
                self.gemm[0]
            };
            emit_dot(&mut b, &mut self.module, gemm, spec);
            b.seal_all_blocks();
            b.finalize(self.module.target_config());
        }
        self.finish()
    }

    /// Links every kernel and returns their entry points.
    pub(crate) fn finalize(&mut self) -> Result<Vec<KernelFn>> {
        self.module
            .finalize_definitions()
            .map_err(|e| backend(format!("linking kernels: {e}")))?;
        Ok(self
            .ids
            .iter()
            .map(|&id| {
                let p = self.module.get_finalized_function(id);
                // SAFETY: `p` is the entry of a function compiled with the
                // kernel signature above (pointer, i64, i64; SysV C ABI).
                unsafe { std::mem::transmute::<*const u8, KernelFn>(p) }
            })
            .collect())
    }
}

fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn bc_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Scalar or vector emission.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    S,
    /// Lanes of `w` bytes.
    V(u32),
}

/// The emitter of one loop kernel.
struct Em<'a, 'f> {
    b: &'a mut FunctionBuilder<'f>,
    module: &'a mut JITModule,
    math: &'a MathLib,
    spec: &'a KernelSpec,
    nodes: &'a [Node],
    level: Vec<usize>,
    depth: usize,
    var_val: Vec<Option<Value>>,
    scal: Vec<Option<Value>>,
    splat: Vec<Option<Value>>,
    rowptr: Vec<Option<Value>>,
    bases: Vec<Option<Value>>,
    table: Value,
    start: Value,
    end: Value,
    /// The pass being emitted.
    cur: usize,
    /// Per pass: its level-`depth` nodes, the reducer body's, every node
    /// it reads (a mask), and its vector plan.
    passes: Vec<PassNodes>,
    /// Nodes that read a reducer `Var` (emitted per element only).
    var_dep: Vec<bool>,
    vplan: Option<VecPlan>,
    /// Level-`depth` nodes each body evaluates, ascending.
    x_nodes: Vec<NodeId>,
    body_nodes: Vec<NodeId>,
    /// Values bound to `Var` slots 0 and 1 in the current emission.
    bind: [Option<Value>; 2],
    /// Row accumulators of a `Row` kernel.
    acc_vec: Vec<Variable>,
    acc_s: Option<Variable>,
    /// Row pointer of the output (Store and Col kernels).
    out_row: Option<Value>,
    /// Row pointers of the pass's `keep` stores.
    keep_rows: Vec<Value>,
    /// A row group's prefetch: the pass that touches the next row of the
    /// first pass's inputs, and those loads.
    touch_pass: Option<usize>,
    touch_loads: Vec<NodeId>,
    /// Row pointers of the touches (next row) in the current pass.
    touch_rows: Vec<Value>,
    /// The constant-pool base inside a vector loop (a loop-carried copy,
    /// see `cpool` and [`Em::strip`]).
    cbase: Option<Value>,
    /// Current innermost index (scalar) while emitting a body.
    cur_i: Option<Value>,
    inner_lo: Option<Value>,
    inner_hi: Option<Value>,
}

/// What the emitter precomputes for one pass.
struct PassNodes {
    x_nodes: Vec<NodeId>,
    body_nodes: Vec<NodeId>,
    reads: Vec<bool>,
    vplan: Option<VecPlan>,
}

/// Nodes reachable from `roots`, ascending.
pub(crate) fn closure(nodes: &[Node], roots: &[NodeId]) -> Vec<NodeId> {
    let mut seen = vec![false; nodes.len()];
    let mut stack = roots.to_vec();
    while let Some(n) = stack.pop() {
        if seen[n] {
            continue;
        }
        seen[n] = true;
        stack.extend(nodes[n].operands());
    }
    (0..nodes.len()).filter(|&n| seen[n]).collect()
}

impl Work {
    /// The buffer the work writes.
    pub(crate) fn out(&self) -> usize {
        match self {
            Work::Store { out, .. } | Work::Row { out, .. } | Work::Col { out, .. } => *out,
        }
    }

    /// The per-element value (stored or folded) and the reducer body root.
    fn roots(&self) -> (NodeId, Option<NodeId>) {
        match self {
            Work::Store { root, .. } => (*root, None),
            Work::Row { x, reducer, .. } | Work::Col { x, reducer, .. } => (
                *x,
                match reducer {
                    Reducer::Body(r) => Some(*r),
                    Reducer::Op(_) => None,
                },
            ),
        }
    }
}

impl<'a, 'f> Em<'a, 'f> {
    fn new(
        b: &'a mut FunctionBuilder<'f>,
        module: &'a mut JITModule,
        math: &'a MathLib,
        spec: &'a KernelSpec,
    ) -> Result<Em<'a, 'f>> {
        let nodes = &spec.graph.nodes[..];
        let depth = spec.order.len();
        let nvars = spec.graph.extents.len();
        let mut depth_of = vec![0usize; nvars];
        for (d, &v) in spec.order.iter().enumerate() {
            depth_of[v as usize] = d;
        }
        let mut level = vec![0usize; nodes.len()];
        for (n, node) in nodes.iter().enumerate() {
            let mut l = 0;
            let mut vars = Vec::new();
            for ix in node.index_exprs() {
                ix.collect_vars(&mut vars);
            }
            for v in vars {
                l = l.max(depth_of.get(v as usize).map_or(depth, |d| d + 1));
            }
            if matches!(node, Node::Var { .. }) {
                l = depth;
            }
            for o in node.operands() {
                l = l.max(level[o]);
            }
            level[n] = l;
        }
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let mut var_dep = vec![false; nodes.len()];
        let mut passes = Vec::new();
        for pass in &spec.passes {
            let (x, body_root) = pass.work.roots();
            let mut x_roots = vec![x];
            x_roots.extend(pass.keep.iter().map(|k| k.node));
            let x_nodes: Vec<NodeId> = closure(nodes, &x_roots)
                .into_iter()
                .filter(|&n| level[n] == depth && depth > 0)
                .collect();
            let body_all = body_root.map(|r| closure(nodes, &[r])).unwrap_or_default();
            let body_nodes: Vec<NodeId> = body_all
                .iter()
                .copied()
                .filter(|&n| level[n] == depth && depth > 0)
                .collect();
            for &n in &body_nodes {
                var_dep[n] = true;
            }
            let mut reads = vec![false; nodes.len()];
            for n in closure(nodes, &pass.roots()) {
                reads[n] = true;
            }
            passes.push(PassNodes {
                x_nodes,
                body_nodes,
                reads,
                vplan: None,
            });
        }
        let nbuf = nodes
            .iter()
            .filter_map(|n| match n {
                Node::Load { buf, .. } => Some(*buf),
                _ => None,
            })
            .chain(spec.passes.iter().map(|p| p.work.out()))
            .chain(
                spec.passes
                    .iter()
                    .flat_map(|p| p.keep.iter().map(|k| k.buf)),
            )
            .max()
            .unwrap_or(0)
            + 1;
        let mut em = Em {
            b,
            module,
            math,
            spec,
            nodes,
            level,
            depth,
            var_val: vec![None; nvars],
            scal: vec![None; nodes.len()],
            splat: vec![None; nodes.len()],
            rowptr: vec![None; nodes.len()],
            bases: vec![None; nbuf],
            table: params[0],
            start: params[1],
            end: params[2],
            cur: 0,
            passes,
            var_dep,
            vplan: None,
            x_nodes: vec![],
            body_nodes: vec![],
            bind: [None, None],
            acc_vec: Vec::new(),
            acc_s: None,
            out_row: None,
            keep_rows: Vec::new(),
            touch_pass: None,
            touch_loads: Vec::new(),
            touch_rows: Vec::new(),
            cbase: None,
            cur_i: None,
            inner_lo: None,
            inner_hi: None,
        };
        for p in 0..em.passes.len() {
            em.select(p);
            let plan = if spec.passes[p].row_only {
                None
            } else {
                em.vector_plan()
            };
            em.passes[p].vplan = plan;
        }
        em.select(0);
        em.plan_touches();
        Ok(em)
    }

    /// In a row group whose first pass streams its rows from memory and a
    /// later vectorised pass does more work per element, that later pass
    /// also loads the first pass's inputs one row ahead (a load per vector,
    /// result unused): the hardware prefetchers then stream the next row
    /// into the cache while this one is being computed, and the first pass
    /// of the next row reads it from there. Only buffers the kernel does
    /// not write are touched (input data; no race), at offsets clamped into
    /// the buffer.
    fn plan_touches(&mut self) {
        let Some(rd) = self.spec.row_depth else {
            return;
        };
        if rd == 0 || self.depth == 0 || self.passes.len() < 2 {
            return;
        }
        let inner = self.spec.order[self.depth - 1];
        let row_var = self.spec.order[rd - 1];
        let written: Vec<usize> = self
            .spec
            .passes
            .iter()
            .flat_map(|p| std::iter::once(p.work.out()).chain(p.keep.iter().map(|k| k.buf)))
            .collect();
        let loads: Vec<NodeId> = self.passes[0]
            .x_nodes
            .iter()
            .copied()
            .filter(|&n| match &self.nodes[n] {
                Node::Load {
                    buf, offset, clamp, ..
                } => {
                    !clamp
                        && !written.contains(buf)
                        && offset.affine_coefficient(inner) == Some(1)
                        && offset.affine_coefficient(row_var).is_some_and(|c| c > 0)
                }
                _ => false,
            })
            .collect();
        if loads.is_empty() || self.passes[0].vplan.is_none() {
            return;
        }
        let busiest = (1..self.passes.len())
            .filter(|&p| self.passes[p].vplan.is_some())
            .max_by_key(|&p| self.passes[p].x_nodes.len());
        if let Some(p) = busiest
            && self.passes[p].x_nodes.len() > 2 * self.passes[0].x_nodes.len()
        {
            self.touch_pass = Some(p);
            self.touch_loads = loads;
        }
    }

    /// Makes pass `p` the one being emitted.
    fn select(&mut self, p: usize) {
        self.cur = p;
        self.x_nodes = self.passes[p].x_nodes.clone();
        self.body_nodes = self.passes[p].body_nodes.clone();
        self.vplan = self.passes[p].vplan.clone();
    }

    /// The current pass's work.
    fn work(&self) -> &'a Work {
        &self.spec.passes[self.cur].work
    }

    /// The current pass's element type.
    fn ty(&self) -> ElementType {
        self.spec.passes[self.cur].ty
    }

    /// The current pass's extra stores.
    fn keeps(&self) -> &'a [Keep] {
        &self.spec.passes[self.cur].keep
    }

    // ----------------------------------------------------------------
    // Small helpers
    // ----------------------------------------------------------------

    fn ic(&mut self, v: i64) -> Value {
        self.b.ins().iconst(types::I64, v)
    }

    fn base(&mut self, buf: usize) -> Value {
        if let Some(v) = self.bases[buf] {
            return v;
        }
        // Loaded in the entry block (see `kernel`), so always set there.
        let p = self
            .b
            .ins()
            .load(types::I64, flags(), self.table, (buf * 8) as i32);
        self.bases[buf] = Some(p);
        p
    }

    fn bc(&mut self, ty: Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().bitcast(ty, bc_flags(), v)
        }
    }

    /// A constant in `mode` (a `pred` constant is 0/1 scalar, a mask as a
    /// vector).
    fn konst(&mut self, mode: Mode, et: ElementType, bits: u64) -> Value {
        let s = match (mode, et) {
            (Mode::V(w), ElementType::Pred) => {
                let t = int_type(w);
                let v = if bits != 0 { width_mask(w) } else { 0 };
                self.b.ins().iconst(t, v as i64)
            }
            (_, ElementType::F32) => self.b.ins().f32const(Ieee32::with_bits(bits as u32)),
            (_, ElementType::F64) => self.b.ins().f64const(Ieee64::with_bits(bits)),
            _ => {
                let t = clif_type(et);
                let v = bits & width_mask(t.bytes());
                self.b.ins().iconst(t, v as i64)
            }
        };
        match mode {
            Mode::S => s,
            Mode::V(w) => self.b.ins().splat(vector_type(et, w), s),
        }
    }

    /// A scalar value as a vector (a `pred` 0/1 becomes a lane mask).
    fn splat_scalar(&mut self, et: ElementType, w: u32, v: Value) -> Value {
        if et.is_pred() {
            let t = int_type(w);
            let wide = if t == types::I8 {
                v
            } else {
                self.b.ins().uextend(t, v)
            };
            let m = self.b.ins().ineg(wide);
            self.b.ins().splat(vector_type(et, w), m)
        } else {
            self.b.ins().splat(vector_type(et, w), v)
        }
    }

    fn sel(&mut self, mode: Mode, cond: Value, a: Value, b: Value) -> Value {
        match mode {
            Mode::S => self.b.ins().select(cond, a, b),
            Mode::V(_) => {
                let t = self.b.func.dfg.value_type(a);
                let c = self.bc(t, cond);
                self.b.ins().bitselect(c, a, b)
            }
        }
    }

    fn vconst_lanes(&mut self, t: Type, lanes: &[i64]) -> Value {
        let bytes = t.lane_type().bytes() as usize;
        let mut data = Vec::with_capacity(16);
        for &l in lanes {
            data.extend_from_slice(&l.to_le_bytes()[..bytes]);
        }
        let c = self.b.func.dfg.constants.insert(ConstantData::from(data));
        self.b.ins().vconst(t, c)
    }

    // ----------------------------------------------------------------
    // Index expressions
    // ----------------------------------------------------------------

    fn ix(&mut self, e: &Ix) -> Value {
        let mut acc: Option<Value> = None;
        for (atom, c) in e.terms() {
            let a = match atom {
                Atom::Var(v) => self.var_val[*v as usize].unwrap_or_else(|| {
                    // Unreachable for a well-formed nest: every variable is
                    // bound before the nodes of its level are emitted.
                    self.b.ins().iconst(types::I64, 0)
                }),
                Atom::Div(x, d) => {
                    let xv = self.ix(x);
                    let dv = self.ic(*d);
                    self.b.ins().sdiv(xv, dv)
                }
                Atom::Mod(x, d) => {
                    let xv = self.ix(x);
                    let dv = self.ic(*d);
                    self.b.ins().srem(xv, dv)
                }
            };
            let t = if *c == 1 {
                a
            } else {
                let cv = self.ic(*c);
                self.b.ins().imul(a, cv)
            };
            acc = Some(match acc {
                None => t,
                Some(s) => self.b.ins().iadd(s, t),
            });
        }
        let k = e.constant_part();
        match acc {
            None => self.ic(k),
            Some(s) if k == 0 => s,
            Some(s) => {
                let kv = self.ic(k);
                self.b.ins().iadd(s, kv)
            }
        }
    }

    fn clamp_i64(&mut self, v: Value, lo: Value, hi: Value) -> Value {
        let a = self.b.ins().smax(v, lo);
        self.b.ins().smin(a, hi)
    }

    fn addr(&mut self, base: Value, offset: Value, size: u32) -> Value {
        let off = if size == 1 {
            offset
        } else {
            let sh = self.ic(size.trailing_zeros() as i64);
            self.b.ins().ishl(offset, sh)
        };
        self.b.ins().iadd(base, off)
    }

    fn cond(&mut self, c: &Cond) -> Value {
        match c {
            Cond::Range { ix, lo, hi } => {
                let v = self.ix(ix);
                let lov = self.ic(*lo);
                let hiv = self.ic(*hi);
                let a = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, v, lov);
                let b = self.b.ins().icmp(IntCC::SignedLessThan, v, hiv);
                self.b.ins().band(a, b)
            }
            Cond::Divisible { ix, d } => {
                let v = self.ix(ix);
                let dv = self.ic(*d);
                let r = self.b.ins().srem(v, dv);
                let z = self.ic(0);
                self.b.ins().icmp(IntCC::Equal, r, z)
            }
        }
    }

    // ----------------------------------------------------------------
    // Vectorisation analysis
    // ----------------------------------------------------------------

    fn vector_plan(&self) -> Option<VecPlan> {
        let depth = self.depth;
        if depth == 0 {
            return None;
        }
        let inner = self.spec.order[depth - 1];
        let n_inner = self.spec.graph.extents[inner as usize];
        let nodes = self.nodes;
        let mut varying: Vec<NodeId> = self.x_nodes.clone();
        varying.extend(&self.body_nodes);
        // Row reductions with a general body fold in order: scalar.
        let work = self.work();
        let ty = self.ty();
        let reducer = match work {
            Work::Store { .. } => None,
            Work::Row { reducer, .. } | Work::Col { reducer, .. } => Some(reducer),
        };
        if let (Work::Row { .. }, Some(Reducer::Body(_))) = (work, reducer) {
            return None;
        }
        let mut w = 0u32;
        let mut note = |et: ElementType| {
            if !et.is_pred() {
                w = w.max(size_of(et));
            }
        };
        note(ty);
        for &n in &varying {
            note(nodes[n].ty());
        }
        for k in self.keeps() {
            note(k.ty);
        }
        if w == 0 {
            w = 1;
        }
        let fits = |et: ElementType| et.is_pred() || size_of(et) == w;
        if !fits(ty) || self.keeps().iter().any(|k| !fits(k.ty)) {
            return None;
        }
        let mut math = false;
        for &n in &varying {
            let node = &nodes[n];
            if !fits(node.ty()) {
                return None;
            }
            for o in node.operands() {
                if !fits(nodes[o].ty()) {
                    return None;
                }
            }
            let vt = |et: ElementType| vector_type(et, w);
            let ok = match node {
                Node::Load {
                    offset,
                    numel,
                    ty,
                    clamp,
                    ..
                } => match offset.affine_coefficient(inner) {
                    Some(1) => *numel >= n_inner && (ty.is_pred() || size_of(*ty) == w),
                    // Read backwards (a `reverse` of the innermost axis): a
                    // vector load and a lane reversal (`load_at`).
                    Some(-1) => !clamp && !ty.is_pred() && size_of(*ty) == w,
                    _ => false,
                },
                Node::Const { .. } => true,
                Node::Iota { ty, index } => {
                    index.affine_coefficient(inner) == Some(1)
                        && (ty.is_integer()
                            || (*ty == ElementType::F32 && n_inner < (1 << 31))
                            || *ty == ElementType::F64)
                }
                Node::Var { .. } => true,
                Node::Unary { op, ty, .. } => match op {
                    UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Not => true,
                    // Cranelift lowers these for scalars only on x86-64.
                    UnaryOp::PopCnt | UnaryOp::Clz => false,
                    UnaryOp::RoundNearestAfz => ty.is_float(),
                    UnaryOp::Floor
                    | UnaryOp::Ceil
                    | UnaryOp::RoundNearestEven
                    | UnaryOp::Sqrt
                    | UnaryOp::Rsqrt
                    | UnaryOp::IsFinite => ty.is_float(),
                    oxla_ir::transcendental_unary_ops!() => {
                        math = true;
                        MathLib::handles_unary(*op, vt(*ty))
                    }
                },
                Node::Binary { op, ty, b, .. } => match op {
                    BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Max
                    | BinaryOp::Min
                    | BinaryOp::And
                    | BinaryOp::Or
                    | BinaryOp::Xor
                    | BinaryOp::Compare(_) => true,
                    // Bytes multiply through 16-bit lanes (`imul_bytes`).
                    BinaryOp::Mul => true,
                    BinaryOp::Div => ty.is_float(),
                    BinaryOp::Rem | BinaryOp::Pow | BinaryOp::Atan2 => {
                        math = true;
                        ty.is_float() && MathLib::handles_binary(*op, vt(*ty))
                    }
                    BinaryOp::ShiftLeft
                    | BinaryOp::ShiftRightArithmetic
                    | BinaryOp::ShiftRightLogical => self.level[*b] < depth,
                },
                Node::Convert { from, to, .. } => {
                    use ElementType as E;
                    if from.is_pred() || to.is_pred() {
                        true
                    } else if size_of(*from) != size_of(*to) {
                        false
                    } else {
                        match (from, to) {
                            (f, t) if f.is_integer() && t.is_integer() => true,
                            (E::F32, E::S32 | E::U32) => true,
                            (E::S32 | E::U32, E::F32) => true,
                            (E::S64 | E::U64, E::F64) => true,
                            _ => false,
                        }
                    }
                }
                Node::Select { .. } | Node::Clamp { .. } => true,
                // Same width by construction: a bitcast of lanes.
                Node::Bitcast { .. } => true,
                // A fold is a scalar loop of its own.
                Node::InBounds { .. } | Node::Fold { .. } | Node::Capture { .. } => false,
            };
            if !ok {
                return None;
            }
        }
        let lanes = (16 / w) as i64;
        if n_inner < lanes {
            return None;
        }
        let count = varying.len();
        // Transcendental bodies are long already (and each copy costs
        // compile time): one copy.
        let max_unroll: u32 = if math {
            1
        } else if count <= 16 {
            4
        } else if count <= 48 {
            2
        } else {
            1
        };
        // A short row of whole vectors (W6's 32 floats) is emitted as
        // straight-line copies, with no loop or tail around them.
        let inner_split = self.spec.partition == Some(depth - 1);
        if !math && !inner_split && count <= 16 && n_inner % lanes == 0 && n_inner / lanes <= 8 {
            return Some(VecPlan {
                width: w,
                unroll: (n_inner / lanes) as u32,
                lane_type: vector_type(ty, w),
                whole: true,
            });
        }
        // Fewer copies when the loop is short, so the vector body runs.
        let mut unroll = max_unroll;
        while unroll > 1 && (unroll as i64) * lanes > n_inner {
            unroll /= 2;
        }
        Some(VecPlan {
            width: w,
            unroll,
            lane_type: vector_type(ty, w),
            whole: false,
        })
    }

    // ----------------------------------------------------------------
    // The loop nest
    // ----------------------------------------------------------------

    fn kernel(&mut self) -> Result<()> {
        // Every buffer base is loaded in the entry block so that it
        // dominates every use.
        let mut bufs: Vec<usize> = self
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Load { buf, .. } => Some(*buf),
                _ => None,
            })
            .collect();
        for p in &self.spec.passes {
            bufs.push(p.work.out());
            bufs.extend(p.keep.iter().map(|k| k.buf));
        }
        bufs.sort();
        bufs.dedup();
        for b in bufs {
            self.base(b);
        }
        self.emit_level(0)?;
        if self.spec.row_depth == Some(0) {
            self.passes_here(0)?;
        } else {
            self.hook_before(0)?;
            self.nest(0)?;
            self.hook_after(0)?;
        }
        self.b.ins().return_(&[]);
        Ok(())
    }

    /// A row group at depth `d` (all loops above bound): each pass in turn,
    /// with its own loops from `d` down. A pass's row-level values (those
    /// known at depth `d`) are emitted just before it, so a value a pass
    /// reads from an earlier pass's output is loaded after it was stored.
    fn passes_here(&mut self, d: usize) -> Result<()> {
        for p in 0..self.spec.passes.len() {
            self.select(p);
            // Splats and row pointers are per pass (lane widths may differ).
            self.splat.iter_mut().for_each(|v| *v = None);
            self.rowptr.iter_mut().for_each(|v| *v = None);
            self.emit_level(d)?;
            if self.spec.passes[p].row_only {
                let Work::Store {
                    root,
                    out,
                    out_offset,
                } = self.work()
                else {
                    return Err(backend("a row pass that is not a store"));
                };
                let v = self.scal[*root].ok_or_else(|| backend("row pass value not computed"))?;
                let off = self.ix(out_offset);
                let base = self.base(*out);
                let a = self.addr(base, off, size_of(self.ty()));
                self.b.ins().store(flags(), v, a, 0);
                continue;
            }
            self.hook_before(d)?;
            self.nest(d)?;
            self.hook_after(d)?;
        }
        Ok(())
    }

    fn bounds(&mut self, depth: usize) -> (Value, Value) {
        if self.spec.partition == Some(depth) {
            (self.start, self.end)
        } else {
            let v = self.spec.order[depth];
            let n = self.spec.graph.extents[v as usize];
            (self.ic(0), self.ic(n))
        }
    }

    /// Emits the scalar value of every node of level `l` that is not part
    /// of a per-element body.
    ///
    /// In a row group, levels from the row depth down belong to one pass:
    /// only the nodes the current pass reads are emitted there.
    fn emit_level(&mut self, l: usize) -> Result<()> {
        if l == self.depth && self.depth > 0 {
            return Ok(());
        }
        let per_pass = self.spec.row_depth.is_some_and(|r| l >= r);
        for n in 0..self.nodes.len() {
            if self.level[n] == l
                && self.scal[n].is_none()
                && !self.var_dep[n]
                && (!per_pass || self.passes[self.cur].reads[n])
            {
                let v = self.node(Mode::S, n, 0)?;
                self.scal[n] = Some(v);
            }
        }
        Ok(())
    }

    /// A counted loop `for i in lo..hi`, body emitted by `f`; leaves the
    /// builder in the exit block.
    fn counted_loop(
        &mut self,
        lo: Value,
        hi: Value,
        f: &mut dyn FnMut(&mut Self, Value) -> Result<()>,
    ) -> Result<()> {
        let body = self.b.create_block();
        let iv = self.b.append_block_param(body, types::I64);
        let exit = self.b.create_block();
        let c = self.b.ins().icmp(IntCC::SignedLessThan, lo, hi);
        self.b
            .ins()
            .brif(c, body, &[BlockArg::Value(lo)], exit, &[]);
        self.b.switch_to_block(body);
        f(self, iv)?;
        let one = self.ic(1);
        let next = self.b.ins().iadd(iv, one);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, next, hi);
        self.b
            .ins()
            .brif(c, body, &[BlockArg::Value(next)], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    fn nest(&mut self, d: usize) -> Result<()> {
        let depth = self.depth;
        if depth == 0 {
            return self.store_scalar_point();
        }
        if d == depth - 1 {
            return self.inner();
        }
        let (lo, hi) = self.bounds(d);
        let var = self.spec.order[d] as usize;
        let group_below = self.spec.row_depth == Some(d + 1);
        self.counted_loop(lo, hi, &mut |em, i| {
            em.var_val[var] = Some(i);
            if group_below {
                em.passes_here(d + 1)?;
            } else {
                em.emit_level(d + 1)?;
                em.hook_before(d + 1)?;
                em.nest(d + 1)?;
                em.hook_after(d + 1)?;
            }
            // Values of deeper levels do not dominate the next iteration.
            for n in 0..em.nodes.len() {
                if em.level[n] > d {
                    em.scal[n] = None;
                    em.splat[n] = None;
                    em.rowptr[n] = None;
                }
            }
            Ok(())
        })
    }

    /// Rank-0 Store kernels: one element, no loop.
    fn store_scalar_point(&mut self) -> Result<()> {
        if let Work::Store {
            root,
            out,
            out_offset,
        } = self.work()
        {
            let v = self.scal[*root].ok_or_else(|| backend("rank-0 root not computed"))?;
            let off = self.ix(out_offset);
            let base = self.base(*out);
            let a = self.addr(base, off, size_of(self.ty()));
            self.b.ins().store(flags(), v, a, 0);
        }
        Ok(())
    }

    fn reduce_parts(&self) -> Option<(NodeId, ElementType, Reducer, usize, Ix, usize)> {
        match self.work() {
            Work::Row {
                init,
                reducer,
                out,
                out_offset,
                first_reduced,
                ..
            }
            | Work::Col {
                init,
                reducer,
                out,
                out_offset,
                first_reduced,
                ..
            } => Some((
                *init,
                self.ty(),
                reducer.clone(),
                *out,
                out_offset.clone(),
                *first_reduced,
            )),
            Work::Store { .. } => None,
        }
    }

    /// Whether this Row kernel keeps vector accumulators.
    fn row_vectorised(&self) -> bool {
        matches!(
            (self.work(), &self.vplan),
            (
                Work::Row {
                    reducer: Reducer::Op(_),
                    ..
                },
                Some(_)
            )
        )
    }

    fn identity_bits(op: BinaryOp, et: ElementType) -> u64 {
        use ElementType as E;
        let bytes = size_of(et);
        let ones = width_mask(bytes);
        let smin = 1u64 << (bytes * 8 - 1);
        match (op, et) {
            (BinaryOp::Add, E::F32) => (-0.0f32).to_bits() as u64,
            (BinaryOp::Add, E::F64) => (-0.0f64).to_bits(),
            (BinaryOp::Mul, E::F32) => 1.0f32.to_bits() as u64,
            (BinaryOp::Mul, E::F64) => 1.0f64.to_bits(),
            (BinaryOp::Max, E::F32) => f32::NEG_INFINITY.to_bits() as u64,
            (BinaryOp::Max, E::F64) => f64::NEG_INFINITY.to_bits(),
            (BinaryOp::Min, E::F32) => f32::INFINITY.to_bits() as u64,
            (BinaryOp::Min, E::F64) => f64::INFINITY.to_bits(),
            (BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor, _) => 0,
            (BinaryOp::Mul, E::Pred) => 1,
            (BinaryOp::Mul, _) => 1,
            (BinaryOp::And | BinaryOp::Min, E::Pred) => 1,
            (BinaryOp::Max, E::Pred) => 0,
            (BinaryOp::And, _) => ones,
            (BinaryOp::Max, t) if t.is_signed_integer() => smin,
            (BinaryOp::Max, _) => 0,
            (BinaryOp::Min, t) if t.is_signed_integer() => smin - 1,
            (BinaryOp::Min, _) => ones,
            _ => 0,
        }
    }

    fn hook_before(&mut self, d: usize) -> Result<()> {
        let Some((init, ty, reducer, out, out_offset, first)) = self.reduce_parts() else {
            return Ok(());
        };
        if d != first {
            return Ok(());
        }
        match self.work() {
            Work::Row { .. } => {
                let init_v = self.scal[init].ok_or_else(|| backend("reduce init not computed"))?;
                let acc = self.b.declare_var(clif_type(ty));
                if let (true, Reducer::Op(op), Some(plan)) =
                    (self.row_vectorised(), &reducer, self.vplan.clone())
                {
                    let id = Self::identity_bits(*op, ty);
                    let idv = self.konst(Mode::S, ty, id);
                    self.b.def_var(acc, idv);
                    self.acc_vec.clear();
                    for _ in 0..plan.unroll {
                        let v = self.b.declare_var(vector_type(ty, plan.width));
                        let k = self.konst(Mode::V(plan.width), ty, id);
                        self.b.def_var(v, k);
                        self.acc_vec.push(v);
                    }
                } else {
                    self.b.def_var(acc, init_v);
                }
                self.acc_s = Some(acc);
            }
            Work::Col { .. } => {
                // Row pointer of the output, then fill it with `init`.
                let inner = self.spec.order[self.depth - 1];
                let base = self.base(out);
                let off_ix = out_offset.without_var(inner);
                let off = self.ix(&off_ix);
                let row = self.addr(base, off, size_of(ty));
                self.out_row = Some(row);
                let (lo, hi) = self.bounds(self.depth - 1);
                let init_v = self.scal[init].ok_or_else(|| backend("reduce init not computed"))?;
                let plan = self.vplan.clone();
                self.strip(lo, hi, plan, &mut |em, mode, i, u| {
                    let v = match mode {
                        Mode::S => init_v,
                        Mode::V(w) => em.splat_scalar(ty, w, init_v),
                    };
                    em.store_at(mode, ty, row, i, u, v);
                    Ok(())
                })?;
            }
            Work::Store { .. } => {}
        }
        Ok(())
    }

    fn hook_after(&mut self, d: usize) -> Result<()> {
        let Some((init, ty, reducer, out, out_offset, first)) = self.reduce_parts() else {
            return Ok(());
        };
        if d != first {
            return Ok(());
        }
        if let Work::Row { .. } = self.work() {
            let acc = self
                .acc_s
                .ok_or_else(|| backend("row accumulator missing"))?;
            let mut total = self.b.use_var(acc);
            if let (true, Reducer::Op(op)) = (self.row_vectorised(), &reducer) {
                let vs: Vec<Value> = self
                    .acc_vec
                    .clone()
                    .into_iter()
                    .map(|v| self.b.use_var(v))
                    .collect();
                let w = self.vplan.as_ref().map_or(4, |p| p.width);
                let mut v = vs[0];
                for &o in &vs[1..] {
                    v = self.binop(Mode::V(w), *op, ty, v, o, None)?;
                }
                let lanes = 16 / w;
                for l in 0..lanes {
                    let mut s = self.b.ins().extractlane(v, l as u8);
                    if ty.is_pred() {
                        let z = self.b.ins().iconst(int_type(w), 0);
                        s = self.b.ins().icmp(IntCC::NotEqual, s, z);
                    }
                    total = self.binop(Mode::S, *op, ty, total, s, None)?;
                }
                let init_v = self.scal[init].ok_or_else(|| backend("reduce init not computed"))?;
                total = self.binop(Mode::S, *op, ty, init_v, total, None)?;
            }
            let off = self.ix(&out_offset);
            let base = self.base(out);
            let a = self.addr(base, off, size_of(ty));
            self.b.ins().store(flags(), total, a, 0);
        }
        Ok(())
    }

    /// Emits a vector main loop (if `plan`) and a scalar tail over
    /// `lo..hi`; `f(mode, i, u)` emits one step (vector copy `u` at
    /// element `i + u * lanes`, or one scalar element `i`).
    fn strip(
        &mut self,
        lo: Value,
        hi: Value,
        plan: Option<VecPlan>,
        f: &mut dyn FnMut(&mut Self, Mode, Value, u32) -> Result<()>,
    ) -> Result<()> {
        let mut tail_lo = lo;
        if let Some(p) = &plan
            && p.whole
        {
            for u in 0..p.unroll {
                f(self, Mode::V(p.width), lo, u)?;
            }
            return Ok(());
        }
        if let Some(p) = plan {
            let lanes = 16 / p.width;
            let step = (lanes * p.unroll) as i64;
            let count = self.b.ins().isub(hi, lo);
            let mask = self.ic(-step);
            let main = self.b.ins().band(count, mask);
            let main_end = self.b.ins().iadd(lo, main);
            // The vector loop carries the constant-pool base as a block
            // parameter passed back as `base + 0`: the phi is not removed
            // before the egraph runs (which then folds the `+ 0`), so the
            // base counts as loop-variant and the constant loads addressed
            // from it stay next to their uses, where the backend folds them
            // into memory operands instead of hoisting them into registers.
            let body = self.b.create_block();
            let iv = self.b.append_block_param(body, types::I64);
            let cb = self.b.append_block_param(body, types::I64);
            let exit = self.b.create_block();
            let base0 = self.ic(crate::cpool::base());
            let c = self.b.ins().icmp(IntCC::SignedLessThan, lo, main_end);
            self.b.ins().brif(
                c,
                body,
                &[BlockArg::Value(lo), BlockArg::Value(base0)],
                exit,
                &[],
            );
            self.b.switch_to_block(body);
            self.cbase = Some(cb);
            for u in 0..p.unroll {
                f(self, Mode::V(p.width), iv, u)?;
            }
            self.cbase = None;
            let s = self.ic(step);
            let next = self.b.ins().iadd(iv, s);
            let zero = self.ic(0);
            let cb_next = self.b.ins().iadd(cb, zero);
            let c = self.b.ins().icmp(IntCC::SignedLessThan, next, main_end);
            self.b.ins().brif(
                c,
                body,
                &[BlockArg::Value(next), BlockArg::Value(cb_next)],
                exit,
                &[],
            );
            self.b.switch_to_block(exit);
            tail_lo = main_end;
        }
        self.counted_loop(tail_lo, hi, &mut |em, i| f(em, Mode::S, i, 0))
    }

    fn store_at(&mut self, mode: Mode, et: ElementType, row: Value, i: Value, u: u32, v: Value) {
        let size = size_of(et);
        let a = self.addr(row, i, size);
        match mode {
            Mode::S => {
                self.b.ins().store(flags(), v, a, 0);
            }
            Mode::V(w) => {
                let lanes = 16 / w;
                let off = (u * lanes * size) as i32;
                if et.is_pred() {
                    let bytes = self.mask_to_bytes(w, v);
                    self.b.ins().store(flags(), bytes, a, off);
                } else {
                    self.b.ins().store(flags(), v, a, off);
                }
            }
        }
    }

    fn load_at(&mut self, mode: Mode, et: ElementType, row: Value, i: Value, u: u32) -> Value {
        let size = size_of(et);
        let a = self.addr(row, i, size);
        match mode {
            Mode::S => self.b.ins().load(clif_type(et), flags(), a, 0),
            Mode::V(w) => {
                let lanes = 16 / w;
                let off = (u * lanes * size) as i32;
                if et.is_pred() {
                    self.bytes_to_mask(w, a, off)
                } else {
                    self.b.ins().load(vector_type(et, w), flags(), a, off)
                }
            }
        }
    }

    /// Lanes `i + u·lanes ..` of a row read backwards (element `j` at
    /// `row - j·size`): the vector ending at `row - (i + u·lanes)·size`,
    /// its lanes reversed with a byte shuffle (`pshufb`).
    fn load_reversed(&mut self, w: u32, et: ElementType, row: Value, i: Value, u: u32) -> Value {
        let size = size_of(et);
        let lanes = 16 / w;
        let ni = self.b.ins().ineg(i);
        let a = self.addr(row, ni, size);
        let off = -(((u * lanes + lanes - 1) * size) as i32);
        let vt = vector_type(et, w);
        let v = self.b.ins().load(vt, flags(), a, off);
        let mut idx = [0u8; 16];
        for (k, b) in idx.iter_mut().enumerate() {
            let (lane, byte) = (k as u32 / w, k as u32 % w);
            *b = ((lanes - 1 - lane) * w + byte) as u8;
        }
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(&idx[..]));
        let bytes = self.bc(types::I8X16, v);
        let r = self.b.ins().shuffle(bytes, bytes, imm);
        self.bc(vt, r)
    }

    /// Loads `16 / w` `pred` bytes at `a + off` as a lane mask of `w` bytes.
    fn bytes_to_mask(&mut self, w: u32, a: Value, off: i32) -> Value {
        let mut v = match w {
            1 => self.b.ins().load(types::I8X16, flags(), a, off),
            _ => {
                let (st, vt) = match w {
                    2 => (types::I64, types::I64X2),
                    4 => (types::I32, types::I32X4),
                    _ => (types::I16, types::I16X8),
                };
                let s = self.b.ins().load(st, flags(), a, off);
                let v = self.b.ins().scalar_to_vector(vt, s);
                self.bc(types::I8X16, v)
            }
        };
        let mut lw = 1;
        while lw < w {
            v = self.b.ins().uwiden_low(v);
            lw *= 2;
        }
        let t = int_type(w).by(16 / w).unwrap_or(types::I8X16);
        let z = self.b.ins().iconst(int_type(w), 0);
        let zv = self.b.ins().splat(t, z);
        self.b.ins().icmp(IntCC::NotEqual, v, zv)
    }

    /// A lane mask of `w` bytes as `16 / w` bytes 0/1 (a scalar or vector
    /// value to store).
    fn mask_to_bytes(&mut self, w: u32, m: Value) -> Value {
        let one8 = self.b.ins().iconst(types::I8, 1);
        let ones = self.b.ins().splat(types::I8X16, one8);
        match w {
            1 => {
                let m = self.bc(types::I8X16, m);
                self.b.ins().band(m, ones)
            }
            2 | 4 => {
                let mut v = m;
                if w == 4 {
                    v = self.b.ins().snarrow(v, v);
                }
                v = self.b.ins().snarrow(v, v);
                let v = self.b.ins().band(v, ones);
                let (vt, st) = if w == 2 {
                    (types::I64X2, types::I64)
                } else {
                    (types::I32X4, types::I32)
                };
                let _ = st;
                let v = self.bc(vt, v);
                self.b.ins().extractlane(v, 0)
            }
            _ => {
                let bytes = self.bc(types::I8X16, m);
                let mut idx = [0u8; 16];
                idx[1] = 8;
                let imm = self
                    .b
                    .func
                    .dfg
                    .immediates
                    .push(ConstantData::from(&idx[..]));
                let s = self.b.ins().shuffle(bytes, bytes, imm);
                let s = self.b.ins().band(s, ones);
                let v = self.bc(types::I16X8, s);
                self.b.ins().extractlane(v, 0)
            }
        }
    }

    /// The innermost loop: row pointers, splats, then the vector main loop
    /// and the scalar tail.
    fn inner(&mut self) -> Result<()> {
        let depth = self.depth;
        let inner = self.spec.order[depth - 1];
        let (lo, hi) = self.bounds(depth - 1);
        self.inner_lo = Some(lo);
        self.inner_hi = Some(hi);
        let plan = self.vplan.clone();
        // Row pointers of loads read along the innermost loop.
        let mut varying: Vec<NodeId> = self.x_nodes.clone();
        varying.extend(self.body_nodes.clone());
        for &n in &varying {
            if let Node::Load {
                buf,
                ty,
                offset,
                numel,
                clamp,
            } = &self.nodes[n]
                && offset.affine_coefficient(inner).is_some()
            {
                let rest = offset.without_var(inner);
                let mut off = self.ix(&rest);
                if *clamp && plan.is_some() {
                    // Keep every lane of every vector in the buffer.
                    let neg_lo = self.b.ins().ineg(lo);
                    let n = self.ic(*numel);
                    let lim = self.b.ins().isub(n, hi);
                    off = self.clamp_i64(off, neg_lo, lim);
                }
                let base = self.base(*buf);
                let p = self.addr(base, off, size_of(*ty));
                self.rowptr[n] = Some(p);
            }
        }
        // Output row pointer.
        if let Work::Store {
            out, out_offset, ..
        } = self.work()
        {
            let rest = out_offset.without_var(inner);
            let off = self.ix(&rest);
            let base = self.base(*out);
            let p = self.addr(base, off, size_of(self.ty()));
            self.out_row = Some(p);
        }
        // Row pointers of the next row's inputs this pass touches.
        self.touch_rows.clear();
        if self.touch_pass == Some(self.cur) && plan.is_some() {
            let row_var = self.spec.order[self.spec.row_depth.unwrap_or(1).max(1) - 1];
            let n_inner = self.spec.graph.extents[inner as usize];
            for n in self.touch_loads.clone() {
                if let Node::Load {
                    buf,
                    ty,
                    offset,
                    numel,
                    ..
                } = &self.nodes[n]
                {
                    let step = offset.affine_coefficient(row_var).unwrap_or(0);
                    let rest = offset.without_var(inner).add_constant(step);
                    let off = self.ix(&rest);
                    let lim = self.ic((*numel - n_inner).max(0));
                    let off = self.b.ins().smin(off, lim);
                    let base = self.base(*buf);
                    let p = self.addr(base, off, size_of(*ty));
                    self.touch_rows.push(p);
                }
            }
        }
        // Row pointers of the values the pass keeps for later passes.
        self.keep_rows.clear();
        for k in self.keeps() {
            let rest = k.offset.without_var(inner);
            let off = self.ix(&rest);
            let base = self.base(k.buf);
            let p = self.addr(base, off, size_of(k.ty));
            self.keep_rows.push(p);
        }
        // Splats of invariant operands.
        if let Some(p) = &plan {
            let w = p.width;
            let mut need: Vec<NodeId> = Vec::new();
            for &n in &varying {
                for o in self.nodes[n].operands() {
                    if self.level[o] < depth {
                        need.push(o);
                    }
                }
            }
            match self.work() {
                Work::Store { root, .. } => need.push(*root),
                Work::Row { x, .. } | Work::Col { x, .. } => need.push(*x),
            }
            need.extend(self.keeps().iter().map(|k| k.node));
            for n in need {
                if self.level[n] < depth && self.splat[n].is_none() {
                    let s = self.scal[n].ok_or_else(|| backend("invariant operand missing"))?;
                    let v = self.splat_scalar(self.nodes[n].ty(), w, s);
                    self.splat[n] = Some(v);
                }
            }
        }
        let var = inner as usize;
        self.strip(lo, hi, plan, &mut |em, mode, i, u| {
            em.element(mode, var, i, u)
        })
    }

    /// One step of the innermost loop.
    fn element(&mut self, mode: Mode, var: usize, i: Value, u: u32) -> Result<()> {
        self.var_val[var] = Some(i);
        self.cur_i = Some(i);
        let mut vals: Vec<Option<Value>> = vec![None; self.nodes.len()];
        let xs = self.x_nodes.clone();
        for n in xs {
            let v = self.node_in(mode, n, u, &vals)?;
            vals[n] = Some(v);
        }
        if let Mode::V(w) = mode {
            for k in 0..self.touch_rows.len() {
                let n = self.touch_loads[k];
                let size = size_of(self.nodes[n].ty());
                let a = self.addr(self.touch_rows[k], i, size);
                let off = (u * (16 / w) * size) as i32;
                self.b.ins().load(types::I32, flags(), a, off);
            }
        }
        let ty = self.ty();
        for (k, keep) in self.keeps().iter().enumerate() {
            let v = self.get(mode, keep.node, &vals)?;
            let row = self.keep_rows[k];
            self.store_at(mode, keep.ty, row, i, u, v);
        }
        match self.work().clone() {
            Work::Store { root, .. } => {
                let v = self.get(mode, root, &vals)?;
                let row = self.out_row.ok_or_else(|| backend("output row missing"))?;
                self.store_at(mode, ty, row, i, u, v);
            }
            Work::Row { x, reducer, .. } => {
                let xv = self.get(mode, x, &vals)?;
                match (mode, reducer) {
                    (Mode::V(w), Reducer::Op(op)) => {
                        let var = self.acc_vec[u as usize];
                        let acc = self.b.use_var(var);
                        let r = self.binop(Mode::V(w), op, ty, acc, xv, None)?;
                        self.b.def_var(var, r);
                    }
                    (_, reducer) => {
                        let var = self
                            .acc_s
                            .ok_or_else(|| backend("row accumulator missing"))?;
                        let acc = self.b.use_var(var);
                        let r = self.apply(Mode::S, &reducer, acc, xv, u, &mut vals)?;
                        self.b.def_var(var, r);
                    }
                }
            }
            Work::Col { x, reducer, .. } => {
                let xv = self.get(mode, x, &vals)?;
                let row = self.out_row.ok_or_else(|| backend("output row missing"))?;
                let acc = self.load_at(mode, ty, row, i, u);
                let r = self.apply(mode, &reducer, acc, xv, u, &mut vals)?;
                self.store_at(mode, ty, row, i, u, r);
            }
        }
        Ok(())
    }

    fn apply(
        &mut self,
        mode: Mode,
        reducer: &Reducer,
        acc: Value,
        x: Value,
        u: u32,
        vals: &mut [Option<Value>],
    ) -> Result<Value> {
        match reducer {
            Reducer::Op(op) => self.binop(mode, *op, self.ty(), acc, x, None),
            Reducer::Body(root) => {
                self.bind = [Some(acc), Some(x)];
                for n in self.body_nodes.clone() {
                    let v = self.node_in(mode, n, u, vals)?;
                    vals[n] = Some(v);
                }
                self.get(mode, *root, vals)
            }
        }
    }

    /// The value of node `n` in `mode` inside a body (`vals` holds the
    /// body's nodes computed so far).
    fn get(&mut self, mode: Mode, n: NodeId, vals: &[Option<Value>]) -> Result<Value> {
        if let Some(v) = vals[n] {
            return Ok(v);
        }
        match mode {
            Mode::S => self.scal[n].ok_or_else(|| backend(format!("node {n} not computed"))),
            Mode::V(w) => {
                if let Some(v) = self.splat[n] {
                    return Ok(v);
                }
                let s = self.scal[n].ok_or_else(|| backend(format!("node {n} not computed")))?;
                let v = self.splat_scalar(self.nodes[n].ty(), w, s);
                Ok(v)
            }
        }
    }

    fn node_in(&mut self, mode: Mode, n: NodeId, u: u32, vals: &[Option<Value>]) -> Result<Value> {
        let ops: Vec<Value> = self.nodes[n]
            .operands()
            .into_iter()
            .map(|o| self.get(mode, o, vals))
            .collect::<Result<_>>()?;
        self.emit_node(mode, n, u, &ops)
    }

    /// A hoisted node (operands in `scal`).
    fn node(&mut self, mode: Mode, n: NodeId, u: u32) -> Result<Value> {
        let ops: Vec<Value> = self.nodes[n]
            .operands()
            .into_iter()
            .map(|o| {
                self.scal[o].ok_or_else(|| backend(format!("operand {o} of node {n} missing")))
            })
            .collect::<Result<_>>()?;
        self.emit_node(mode, n, u, &ops)
    }

    fn emit_node(&mut self, mode: Mode, n: NodeId, u: u32, ops: &[Value]) -> Result<Value> {
        let node = self.nodes[n].clone();
        let amount = match (mode, &node) {
            (Mode::V(_), Node::Binary { b, .. }) => self.scal[*b],
            _ => None,
        };
        if let Some(v) = self.pure_op(mode, &node, ops, amount)? {
            return Ok(v);
        }
        Ok(match node {
            Node::Load {
                buf,
                ty,
                offset,
                numel,
                clamp,
            } => match (mode, self.rowptr[n], self.cur_i) {
                (Mode::V(w), Some(row), Some(i))
                    if offset.affine_coefficient(self.spec.order[self.depth - 1]) == Some(-1) =>
                {
                    self.load_reversed(w, ty, row, i, u)
                }
                (Mode::V(_), Some(row), Some(i)) => self.load_at(mode, ty, row, i, u),
                (Mode::S, Some(row), Some(i)) if !clamp && self.level[n] == self.depth => {
                    let inner = self.spec.order[self.depth - 1];
                    let s = offset.affine_coefficient(inner).unwrap_or(0);
                    let off = if s == 1 {
                        i
                    } else {
                        let sv = self.ic(s);
                        self.b.ins().imul(i, sv)
                    };
                    let a = self.addr(row, off, size_of(ty));
                    self.b.ins().load(clif_type(ty), flags(), a, 0)
                }
                _ => {
                    let base = self.base(buf);
                    self.load_scalar(base, ty, &offset, numel, clamp)
                }
            },
            Node::Iota { ty, index } => match mode {
                Mode::S => {
                    let v = self.ix(&index);
                    self.convert(Mode::S, ElementType::S64, ty, v)?
                }
                Mode::V(w) => {
                    let inner = self.spec.order[self.depth - 1];
                    let rest = index.without_var(inner);
                    let r = self.ix(&rest);
                    let i = self.cur_i.ok_or_else(|| backend("iota outside a loop"))?;
                    let lanes = 16 / w;
                    let s = self.b.ins().iadd(r, i);
                    let uo = self.ic((u * lanes) as i64);
                    let s = self.b.ins().iadd(s, uo);
                    let it = int_type(w);
                    let s = if it == types::I64 {
                        s
                    } else {
                        self.b.ins().ireduce(it, s)
                    };
                    let vt = it.by(lanes).unwrap_or(types::I32X4);
                    let sv = self.b.ins().splat(vt, s);
                    let lane_ids: Vec<i64> = (0..lanes as i64).collect();
                    let c = self.vconst_lanes(vt, &lane_ids);
                    let v = self.b.ins().iadd(sv, c);
                    if ty.is_float() {
                        self.b.ins().fcvt_from_sint(vector_type(ty, w), v)
                    } else {
                        v
                    }
                }
            },
            Node::Var { slot, .. } => {
                self.bind[slot as usize].ok_or_else(|| backend("reducer variable unbound"))?
            }
            Node::Fold { fold, .. } => match mode {
                Mode::S => self.emit_fold(fold, ops[0], &ops[1..])?,
                Mode::V(_) => return Err(backend("a fold in a vector loop")),
            },
            Node::Capture { .. } => return Err(backend("a fold's capture read outside its fold")),
            other => return Err(backend(format!("node {other:?} has no emitter"))),
        })
    }

    /// The value of a node that only combines its operands' values `ops`
    /// (constants, arithmetic, conversions, selects, guards), in the
    /// kernel's loops or in a fold alike; `None` for nodes that read
    /// memory, loop variables or reducer slots. `amount` is a shift's
    /// scalar amount when it is known per row.
    fn pure_op(
        &mut self,
        mode: Mode,
        node: &Node,
        ops: &[Value],
        amount: Option<Value>,
    ) -> Result<Option<Value>> {
        Ok(Some(match node {
            Node::Const { ty, bits } => self.konst(mode, *ty, *bits),
            Node::Unary { op, ty, .. } => self.unop(mode, *op, *ty, ops[0])?,
            Node::Binary { op, ty, .. } => self.binop(mode, *op, *ty, ops[0], ops[1], amount)?,
            Node::Convert { from, to, .. } => self.convert(mode, *from, *to, ops[0])?,
            Node::Bitcast { to, .. } => self.bitcast_bits(mode, *to, ops[0]),
            Node::Select { .. } => self.sel(mode, ops[0], ops[1], ops[2]),
            Node::Clamp { ty, .. } => {
                let m = self.binop(mode, BinaryOp::Max, *ty, ops[0], ops[1], None)?;
                self.binop(mode, BinaryOp::Min, *ty, m, ops[2], None)?
            }
            Node::InBounds { conds } => {
                let mut acc: Option<Value> = None;
                for c in conds {
                    let v = self.cond(c);
                    acc = Some(match acc {
                        None => v,
                        Some(a) => self.b.ins().band(a, v),
                    });
                }
                let v = match acc {
                    Some(v) => v,
                    None => self.b.ins().iconst(types::I8, 1),
                };
                match mode {
                    Mode::S => v,
                    Mode::V(w) => self.splat_scalar(ElementType::Pred, w, v),
                }
            }
            _ => return Ok(None),
        }))
    }

    /// One element of buffer `base` at `offset` (clamped into the buffer's
    /// `numel` elements when `clamp`: a guarded read).
    fn load_scalar(
        &mut self,
        base: Value,
        ty: ElementType,
        offset: &Ix,
        numel: i64,
        clamp: bool,
    ) -> Value {
        let mut off = self.ix(offset);
        if clamp {
            let z = self.ic(0);
            let m = self.ic(numel - 1);
            off = self.clamp_i64(off, z, m);
        }
        let a = self.addr(base, off, size_of(ty));
        self.b.ins().load(clif_type(ty), flags(), a, 0)
    }

    // ----------------------------------------------------------------
    // Ops
    // ----------------------------------------------------------------

    fn fmaxmin(&mut self, mode: Mode, is_max: bool, a: Value, b: Value) -> Value {
        let lt1 = if is_max {
            self.b.ins().fcmp(FloatCC::LessThan, b, a)
        } else {
            self.b.ins().fcmp(FloatCC::LessThan, a, b)
        };
        let m1 = self.sel(mode, lt1, a, b);
        let lt2 = if is_max {
            self.b.ins().fcmp(FloatCC::LessThan, a, b)
        } else {
            self.b.ins().fcmp(FloatCC::LessThan, b, a)
        };
        let m2 = self.sel(mode, lt2, b, a);
        let t = self.b.func.dfg.value_type(a);
        let it = match t {
            types::F32 => types::I32,
            types::F64 => types::I64,
            types::F32X4 => types::I32X4,
            _ => types::I64X2,
        };
        let (i1, i2) = (self.bc(it, m1), self.bc(it, m2));
        let merged = if is_max {
            self.b.ins().band(i1, i2)
        } else {
            self.b.ins().bor(i1, i2)
        };
        let merged = self.bc(t, merged);
        let uno = self.b.ins().fcmp(FloatCC::Unordered, a, b);
        let nan = self.b.ins().fadd(a, b);
        self.sel(mode, uno, nan, merged)
    }

    fn unop(&mut self, mode: Mode, op: UnaryOp, et: ElementType, x: Value) -> Result<Value> {
        let float = et.is_float();
        Ok(match op {
            UnaryOp::Neg => {
                if float {
                    self.b.ins().fneg(x)
                } else {
                    self.b.ins().ineg(x)
                }
            }
            UnaryOp::Abs => {
                if float {
                    self.b.ins().fabs(x)
                } else if et.is_signed_integer() {
                    self.b.ins().iabs(x)
                } else {
                    x
                }
            }
            UnaryOp::Sign => {
                if float {
                    let zb = 0u64;
                    let one = if et == ElementType::F32 {
                        1.0f32.to_bits() as u64
                    } else {
                        1.0f64.to_bits()
                    };
                    let mone = if et == ElementType::F32 {
                        (-1.0f32).to_bits() as u64
                    } else {
                        (-1.0f64).to_bits()
                    };
                    let z = self.konst(mode, et, zb);
                    let p = self.konst(mode, et, one);
                    let n = self.konst(mode, et, mone);
                    let gt = self.b.ins().fcmp(FloatCC::GreaterThan, x, z);
                    let r = self.sel(mode, gt, p, x);
                    let lt = self.b.ins().fcmp(FloatCC::LessThan, x, z);
                    self.sel(mode, lt, n, r)
                } else if et.is_signed_integer() {
                    let one = self.konst(mode, et, 1);
                    let mone = self.konst(mode, et, u64::MAX);
                    let a = self.b.ins().smin(x, one);
                    self.b.ins().smax(a, mone)
                } else {
                    let one = self.konst(mode, et, 1);
                    self.b.ins().umin(x, one)
                }
            }
            UnaryOp::Not => {
                if et.is_pred() && mode == Mode::S {
                    let one = self.b.ins().iconst(types::I8, 1);
                    self.b.ins().bxor(x, one)
                } else {
                    self.b.ins().bnot(x)
                }
            }
            UnaryOp::Floor => self.b.ins().floor(x),
            UnaryOp::Ceil => self.b.ins().ceil(x),
            UnaryOp::RoundNearestEven => self.b.ins().nearest(x),
            UnaryOp::Sqrt => self.b.ins().sqrt(x),
            UnaryOp::Rsqrt => {
                let s = self.b.ins().sqrt(x);
                let one = if et == ElementType::F32 {
                    1.0f32.to_bits() as u64
                } else {
                    1.0f64.to_bits()
                };
                let o = self.konst(mode, et, one);
                self.b.ins().fdiv(o, s)
            }
            UnaryOp::IsFinite => {
                let inf = if et == ElementType::F32 {
                    f32::INFINITY.to_bits() as u64
                } else {
                    f64::INFINITY.to_bits()
                };
                let a = self.b.ins().fabs(x);
                let i = self.konst(mode, et, inf);
                self.b.ins().fcmp(FloatCC::LessThan, a, i)
            }
            // The misc family: bit counts at the element's width, and
            // rounding ties away from zero (`codegen/misc.rs`).
            UnaryOp::PopCnt => self.b.ins().popcnt(x),
            UnaryOp::Clz => self.b.ins().clz(x),
            UnaryOp::RoundNearestAfz => self.round_nearest_afz(mode, et, x),
            oxla_ir::transcendental_unary_ops!() => {
                self.math
                    .emit_unary(self.module, self.b, op, x, self.cbase)?
            }
        })
    }

    fn int_cc(dir: ComparisonDirection, signed: bool) -> IntCC {
        use ComparisonDirection as D;
        match (dir, signed) {
            (D::Eq, _) => IntCC::Equal,
            (D::Ne, _) => IntCC::NotEqual,
            (D::Lt, true) => IntCC::SignedLessThan,
            (D::Le, true) => IntCC::SignedLessThanOrEqual,
            (D::Gt, true) => IntCC::SignedGreaterThan,
            (D::Ge, true) => IntCC::SignedGreaterThanOrEqual,
            (D::Lt, false) => IntCC::UnsignedLessThan,
            (D::Le, false) => IntCC::UnsignedLessThanOrEqual,
            (D::Gt, false) => IntCC::UnsignedGreaterThan,
            (D::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
        }
    }

    fn float_cc(dir: ComparisonDirection) -> FloatCC {
        use ComparisonDirection as D;
        match dir {
            D::Eq => FloatCC::Equal,
            D::Ne => FloatCC::NotEqual,
            D::Lt => FloatCC::LessThan,
            D::Le => FloatCC::LessThanOrEqual,
            D::Gt => FloatCC::GreaterThan,
            D::Ge => FloatCC::GreaterThanOrEqual,
        }
    }

    /// `op(a, b)` on operands of type `et`. In vector mode a shift amount
    /// is the scalar `amount`.
    fn binop(
        &mut self,
        mode: Mode,
        op: BinaryOp,
        et: ElementType,
        a: Value,
        b: Value,
        amount: Option<Value>,
    ) -> Result<Value> {
        let float = et.is_float();
        let pred = et.is_pred();
        let signed = et.is_signed_integer();
        Ok(match op {
            BinaryOp::Add if pred => self.b.ins().bor(a, b),
            BinaryOp::Mul if pred => self.b.ins().band(a, b),
            BinaryOp::Max if pred => self.b.ins().bor(a, b),
            BinaryOp::Min if pred => self.b.ins().band(a, b),
            BinaryOp::Add if float => self.b.ins().fadd(a, b),
            BinaryOp::Add => self.b.ins().iadd(a, b),
            BinaryOp::Sub if float => self.b.ins().fsub(a, b),
            BinaryOp::Sub => self.b.ins().isub(a, b),
            BinaryOp::Mul if float => self.b.ins().fmul(a, b),
            BinaryOp::Mul if mode != Mode::S && et.byte_size() == 1 => imul_bytes(self.b, a, b),
            BinaryOp::Mul => self.b.ins().imul(a, b),
            BinaryOp::Div if float => self.b.ins().fdiv(a, b),
            BinaryOp::Div => self.int_divrem(op, et, a, b),
            BinaryOp::Rem if !float => self.int_divrem(op, et, a, b),
            BinaryOp::Max if float => self.fmaxmin(mode, true, a, b),
            BinaryOp::Min if float => self.fmaxmin(mode, false, a, b),
            BinaryOp::Max if signed => self.b.ins().smax(a, b),
            BinaryOp::Max => self.b.ins().umax(a, b),
            BinaryOp::Min if signed => self.b.ins().smin(a, b),
            BinaryOp::Min => self.b.ins().umin(a, b),
            BinaryOp::Pow if !float => self.int_pow(et, a, b),
            BinaryOp::Rem | BinaryOp::Pow | BinaryOp::Atan2 => {
                self.math.emit_binary(self.module, self.b, op, a, b)?
            }
            BinaryOp::And => self.b.ins().band(a, b),
            BinaryOp::Or => self.b.ins().bor(a, b),
            BinaryOp::Xor => self.b.ins().bxor(a, b),
            BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => {
                let amt = match mode {
                    Mode::S => b,
                    Mode::V(_) => {
                        amount.ok_or_else(|| backend("vector shift by a varying amount"))?
                    }
                };
                self.shift(mode, op, et, a, amt)
            }
            BinaryOp::Compare(dir) => {
                if float {
                    self.b.ins().fcmp(Self::float_cc(dir), a, b)
                } else {
                    self.b.ins().icmp(Self::int_cc(dir, signed), a, b)
                }
            }
        })
    }

    fn shift(&mut self, mode: Mode, op: BinaryOp, et: ElementType, x: Value, amt: Value) -> Value {
        let bits = size_of(et) * 8;
        let t = self.b.func.dfg.value_type(amt);
        let w = self.b.ins().iconst(t, bits as i64);
        let big = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, amt, w);
        match op {
            BinaryOp::ShiftRightArithmetic => {
                let wm1 = self.b.ins().iconst(t, (bits - 1) as i64);
                let a = self.b.ins().select(big, wm1, amt);
                self.b.ins().sshr(x, a)
            }
            _ => {
                let r = if op == BinaryOp::ShiftLeft {
                    self.b.ins().ishl(x, amt)
                } else {
                    self.b.ins().ushr(x, amt)
                };
                let z = self.konst(mode, et, 0);
                self.b.ins().select(big, z, r)
            }
        }
    }

    fn int_divrem(&mut self, op: BinaryOp, et: ElementType, x: Value, y: Value) -> Value {
        let t = clif_type(et);
        let bits = t.bits();
        let zero = self.b.ins().iconst(t, 0);
        let one = self.b.ins().iconst(t, 1);
        let is_zero = self.b.ins().icmp(IntCC::Equal, y, zero);
        let signed = et.is_signed_integer();
        let bad = if signed {
            let min = self.b.ins().iconst(t, (1u64 << (bits - 1)) as i64);
            let m1 = self.b.ins().iconst(t, width_mask(t.bytes()) as i64);
            let a = self.b.ins().icmp(IntCC::Equal, x, min);
            let b = self.b.ins().icmp(IntCC::Equal, y, m1);
            let ovf = self.b.ins().band(a, b);
            self.b.ins().bor(is_zero, ovf)
        } else {
            is_zero
        };
        let ys = self.b.ins().select(bad, one, y);
        match op {
            BinaryOp::Div => {
                let q = if signed {
                    self.b.ins().sdiv(x, ys)
                } else {
                    self.b.ins().udiv(x, ys)
                };
                let all = self.b.ins().iconst(t, width_mask(t.bytes()) as i64);
                self.b.ins().select(is_zero, all, q)
            }
            _ => {
                let r = if signed {
                    self.b.ins().srem(x, ys)
                } else {
                    self.b.ins().urem(x, ys)
                };
                self.b.ins().select(is_zero, x, r)
            }
        }
    }

    /// Integer power by repeated squaring (a loop over the exponent's
    /// bits), with the interpreter's rules for negative exponents.
    fn int_pow(&mut self, et: ElementType, x: Value, y: Value) -> Value {
        let t = clif_type(et);
        let head = self.b.create_block();
        let acc = self.b.append_block_param(head, t);
        let base = self.b.append_block_param(head, t);
        let e = self.b.append_block_param(head, t);
        let body = self.b.create_block();
        let exit = self.b.create_block();
        let r = self.b.append_block_param(exit, t);
        let one = self.b.ins().iconst(t, 1);
        self.b.ins().jump(
            head,
            &[BlockArg::Value(one), BlockArg::Value(x), BlockArg::Value(y)],
        );
        self.b.switch_to_block(head);
        let zero = self.b.ins().iconst(t, 0);
        let done = self.b.ins().icmp(IntCC::Equal, e, zero);
        self.b
            .ins()
            .brif(done, exit, &[BlockArg::Value(acc)], body, &[]);
        self.b.switch_to_block(body);
        let one = self.b.ins().iconst(t, 1);
        let bit = self.b.ins().band(e, one);
        let prod = self.b.ins().imul(acc, base);
        let acc2 = self.b.ins().select(bit, prod, acc);
        let base2 = self.b.ins().imul(base, base);
        let e2 = self.b.ins().ushr(e, one);
        self.b.ins().jump(
            head,
            &[
                BlockArg::Value(acc2),
                BlockArg::Value(base2),
                BlockArg::Value(e2),
            ],
        );
        self.b.switch_to_block(exit);
        if et.is_signed_integer() {
            let one = self.b.ins().iconst(t, 1);
            let zero = self.b.ins().iconst(t, 0);
            let x1 = self.b.ins().icmp(IntCC::Equal, x, one);
            let y0 = self.b.ins().icmp(IntCC::Equal, y, zero);
            let neg = self.b.ins().icmp(IntCC::SignedLessThan, y, zero);
            let r = self.b.ins().select(neg, zero, r);
            let trivial = self.b.ins().bor(x1, y0);
            self.b.ins().select(trivial, one, r)
        } else {
            r
        }
    }

    fn convert(
        &mut self,
        mode: Mode,
        from: ElementType,
        to: ElementType,
        x: Value,
    ) -> Result<Value> {
        use ElementType as E;
        if from == to {
            return Ok(x);
        }
        if let Mode::V(w) = mode {
            // Same lane width (checked by the vector plan).
            return Ok(if to.is_pred() {
                if from.is_float() {
                    let z = self.konst(mode, from, 0);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                } else {
                    let z = self.konst(mode, from, 0);
                    self.b.ins().icmp(IntCC::NotEqual, x, z)
                }
            } else if from.is_pred() {
                let one_bits = match to {
                    E::F32 => 1.0f32.to_bits() as u64,
                    E::F64 => 1.0f64.to_bits(),
                    _ => 1,
                };
                let one = self.konst(Mode::V(w), to, one_bits);
                let it = vector_type(E::Pred, w);
                let onei = self.bc(it, one);
                let r = self.b.ins().band(x, onei);
                self.bc(vector_type(to, w), r)
            } else if from.is_integer() && to.is_integer() {
                x
            } else if from.is_float() {
                if to.is_signed_integer() {
                    self.b.ins().fcvt_to_sint_sat(vector_type(to, w), x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(vector_type(to, w), x)
                }
            } else if from.is_signed_integer() {
                self.b.ins().fcvt_from_sint(vector_type(to, w), x)
            } else {
                self.b.ins().fcvt_from_uint(vector_type(to, w), x)
            });
        }
        let tt = clif_type(to);
        Ok(if to.is_pred() {
            if from.is_float() {
                let z = self.konst(Mode::S, from, 0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            } else {
                let z = self.konst(Mode::S, from, 0);
                self.b.ins().icmp(IntCC::NotEqual, x, z)
            }
        } else if from.is_pred() {
            if to.is_float() {
                let w = self.b.ins().uextend(types::I32, x);
                self.b.ins().fcvt_from_uint(tt, w)
            } else if tt == types::I8 {
                x
            } else {
                self.b.ins().uextend(tt, x)
            }
        } else if from.is_integer() && to.is_integer() {
            let (fb, tb) = (clif_type(from).bits(), tt.bits());
            if fb == tb {
                x
            } else if fb > tb {
                self.b.ins().ireduce(tt, x)
            } else if from.is_signed_integer() {
                self.b.ins().sextend(tt, x)
            } else {
                self.b.ins().uextend(tt, x)
            }
        } else if from.is_integer() {
            let ft = clif_type(from);
            let x = if ft.bits() < 32 {
                if from.is_signed_integer() {
                    self.b.ins().sextend(types::I32, x)
                } else {
                    self.b.ins().uextend(types::I32, x)
                }
            } else {
                x
            };
            if from.is_signed_integer() {
                self.b.ins().fcvt_from_sint(tt, x)
            } else {
                self.b.ins().fcvt_from_uint(tt, x)
            }
        } else if to.is_float() {
            if to == E::F64 {
                self.b.ins().fpromote(tt, x)
            } else {
                self.b.ins().fdemote(tt, x)
            }
        } else if tt.bits() >= 32 {
            if to.is_signed_integer() {
                self.b.ins().fcvt_to_sint_sat(tt, x)
            } else {
                self.b.ins().fcvt_to_uint_sat(tt, x)
            }
        } else {
            // Narrow targets: saturate through i32, then clamp.
            let v = self.b.ins().fcvt_to_sint_sat(types::I32, x);
            let bits = tt.bits();
            let (lo, hi) = if to.is_signed_integer() {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            } else {
                (0, (1i64 << bits) - 1)
            };
            let lov = self.b.ins().iconst(types::I32, lo as u32 as i64);
            let hiv = self.b.ins().iconst(types::I32, hi as u32 as i64);
            let a = self.b.ins().smax(v, lov);
            let a = self.b.ins().smin(a, hiv);
            self.b.ins().ireduce(tt, a)
        })
    }
}

// ---------------------------------------------------------------------
// Folds: reduces and dots inside called bodies
// ---------------------------------------------------------------------

/// A fold of at most this many steps is unrolled...
const FOLD_UNROLL_STEPS: i64 = 8;
/// ...when its per-step nodes, copied once per step, stay this few and
/// include no nested fold.
const FOLD_UNROLL_NODES: i64 = 256;

/// What the emitter knows while emitting one [`Fold`].
struct FoldEmit<'n> {
    fold: &'n Fold,
    /// Values of the nodes that do not vary along the fold, computed
    /// before its loop.
    fixed: Vec<Option<Value>>,
    /// Nodes computed per step, ascending: the element's, then the
    /// combiner's.
    element_nodes: Vec<NodeId>,
    combine_nodes: Vec<NodeId>,
    /// The captured values (the fold node's operands after `init`).
    caps: Vec<Value>,
    /// Base pointers of the buffers the fold's loads read.
    bases: Vec<(usize, Value)>,
}

impl<'a, 'f> Em<'a, 'f> {
    /// Emits [`Graph::folds`]`[f]` in place, starting from `init` with
    /// captured values `caps`, and returns the result: values that do not
    /// vary along the fold first, then a scalar loop nest over the fold's
    /// variables (row-major, the interpreter's order), or the steps one
    /// after the other when there are few. Nested folds are emitted where
    /// their values are needed, inside or before this one's loop.
    fn emit_fold(&mut self, f: FoldId, init: Value, caps: &[Value]) -> Result<Value> {
        let spec: &'a KernelSpec = self.spec;
        let fold = spec
            .graph
            .folds
            .get(f)
            .ok_or_else(|| backend(format!("fold {f} missing")))?;
        let need = spec.graph.var_count();
        if self.var_val.len() < need {
            self.var_val.resize(need, None);
        }
        let nodes = &fold.nodes;
        let own = |ix: &Ix| fold.vars.iter().any(|&(v, _)| ix.uses(v));
        // Operands come before their users, so one pass classifies.
        let mut varies = vec![false; nodes.len()];
        for (n, node) in nodes.iter().enumerate() {
            varies[n] = matches!(node, Node::Var { .. })
                || node.index_exprs().into_iter().any(own)
                || node.operands().iter().any(|&o| varies[o]);
        }
        let element_all = closure(nodes, &[fold.element]);
        let mut in_element = vec![false; nodes.len()];
        for &n in &element_all {
            in_element[n] = true;
        }
        let combine_all = closure(nodes, &[fold.combine]);
        let mut bases: Vec<(usize, Value)> = Vec::new();
        for node in nodes {
            if let Node::Load { buf, .. } = node
                && !bases.iter().any(|(b, _)| b == buf)
            {
                let p = self
                    .b
                    .ins()
                    .load(types::I64, flags(), self.table, (*buf * 8) as i32);
                bases.push((*buf, p));
            }
        }
        let mut st = FoldEmit {
            fold,
            fixed: vec![None; nodes.len()],
            element_nodes: element_all.iter().copied().filter(|&n| varies[n]).collect(),
            combine_nodes: combine_all
                .iter()
                .copied()
                .filter(|&n| varies[n] && !in_element[n])
                .collect(),
            caps: caps.to_vec(),
            bases,
        };
        let mut fixed_nodes: Vec<NodeId> = element_all
            .iter()
            .chain(&combine_all)
            .copied()
            .filter(|&n| !varies[n])
            .collect();
        fixed_nodes.sort_unstable();
        fixed_nodes.dedup();
        for n in fixed_nodes {
            let v = self.fold_node(&st, n, &st.fixed, [None, None])?;
            st.fixed[n] = Some(v);
        }
        let steps = fold
            .vars
            .iter()
            .try_fold(1i64, |p, &(_, n)| p.checked_mul(n.max(0)))
            .unwrap_or(i64::MAX);
        if steps == 0 {
            return Ok(init);
        }
        // A nested fold per step is a loop of its own: not copied.
        let per_step: Vec<NodeId> = st
            .element_nodes
            .iter()
            .chain(&st.combine_nodes)
            .copied()
            .collect();
        let small = (per_step.len() as i64) * steps <= FOLD_UNROLL_NODES
            && !per_step
                .iter()
                .any(|&n| matches!(nodes[n], Node::Fold { .. }));
        let result = if steps <= FOLD_UNROLL_STEPS && small {
            let mut acc = init;
            for step in 0..steps {
                // Row-major: the last variable fastest.
                let mut rest = step;
                for &(v, n) in fold.vars.iter().rev() {
                    let i = self.ic(rest % n);
                    self.var_val[v as usize] = Some(i);
                    rest /= n;
                }
                acc = self.fold_step(&st, acc)?;
            }
            acc
        } else {
            let ty = self.b.func.dfg.value_type(init);
            let acc = self.b.declare_var(ty);
            self.b.def_var(acc, init);
            self.fold_nest(&st, 0, acc)?;
            self.b.use_var(acc)
        };
        for &(v, _) in &fold.vars {
            self.var_val[v as usize] = None;
        }
        Ok(result)
    }

    /// The loops of a fold from variable `d` inwards; the innermost body
    /// is one step on the accumulator `acc`.
    fn fold_nest(&mut self, st: &FoldEmit, d: usize, acc: Variable) -> Result<()> {
        let Some(&(v, n)) = st.fold.vars.get(d) else {
            let a = self.b.use_var(acc);
            let r = self.fold_step(st, a)?;
            self.b.def_var(acc, r);
            return Ok(());
        };
        let lo = self.ic(0);
        let hi = self.ic(n);
        self.counted_loop(lo, hi, &mut |em, i| {
            em.var_val[v as usize] = Some(i);
            em.fold_nest(st, d + 1, acc)
        })
    }

    /// One step of a fold (its variables bound): the element, then the
    /// combiner on `acc` and the element; returns the new accumulator.
    fn fold_step(&mut self, st: &FoldEmit, acc: Value) -> Result<Value> {
        let mut vals = st.fixed.clone();
        for &n in &st.element_nodes {
            let v = self.fold_node(st, n, &vals, [None, None])?;
            vals[n] = Some(v);
        }
        let x = vals[st.fold.element].ok_or_else(|| backend("fold element not computed"))?;
        for &n in &st.combine_nodes {
            let v = self.fold_node(st, n, &vals, [Some(acc), Some(x)])?;
            vals[n] = Some(v);
        }
        vals[st.fold.combine].ok_or_else(|| backend("fold combiner not computed"))
    }

    /// The scalar value of node `n` of a fold's body; its operands are in
    /// `vals`, `bind` holds the accumulator and the element (`Var` slots).
    fn fold_node(
        &mut self,
        st: &FoldEmit,
        n: NodeId,
        vals: &[Option<Value>],
        bind: [Option<Value>; 2],
    ) -> Result<Value> {
        let node = &st.fold.nodes[n];
        let ops: Vec<Value> = node
            .operands()
            .into_iter()
            .map(|o| vals[o].ok_or_else(|| backend(format!("fold operand {o} of {n} missing"))))
            .collect::<Result<_>>()?;
        if let Some(v) = self.pure_op(Mode::S, node, &ops, None)? {
            return Ok(v);
        }
        Ok(match node {
            Node::Load {
                buf,
                ty,
                offset,
                numel,
                clamp,
            } => {
                let base = st
                    .bases
                    .iter()
                    .find(|(b, _)| b == buf)
                    .map(|&(_, p)| p)
                    .ok_or_else(|| backend(format!("fold buffer {buf} has no base")))?;
                self.load_scalar(base, *ty, offset, *numel, *clamp)
            }
            Node::Iota { ty, index } => {
                let v = self.ix(index);
                self.convert(Mode::S, ElementType::S64, *ty, v)?
            }
            Node::Var { slot, .. } => bind
                .get(*slot as usize)
                .copied()
                .flatten()
                .ok_or_else(|| backend("fold variable unbound"))?,
            Node::Capture { slot, .. } => st
                .caps
                .get(*slot as usize)
                .copied()
                .ok_or_else(|| backend("fold capture missing"))?,
            Node::Fold { fold, .. } => self.emit_fold(*fold, ops[0], &ops[1..])?,
            other => return Err(backend(format!("node {other:?} has no emitter in a fold"))),
        })
    }
}

/// Emits a dot kernel.
fn emit_dot(b: &mut FunctionBuilder, module: &mut JITModule, gemm: FuncId, spec: &DotSpec) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (table, start, end) = (p[0], p[1], p[2]);
    let ld = |b: &mut FunctionBuilder, buf: usize| {
        b.ins().load(types::I64, flags(), table, (buf * 8) as i32)
    };
    let a = ld(b, spec.lhs.0);
    let bb = ld(b, spec.rhs.0);
    let c = ld(b, spec.out);
    let size = size_of(spec.ty) as i64;
    let [sa0, sa1, sa2] = spec.lhs.1;
    let [sb0, sb1, sb2] = spec.rhs.1;
    let ic = |b: &mut FunctionBuilder, v: i64| b.ins().iconst(types::I64, v);
    let ptr_plus = |b: &mut FunctionBuilder, p: Value, idx: Value, stride_elems: i64| {
        elem_ptr(b, p, idx, stride_elems * size)
    };
    if spec.ty.is_float() {
        let fref = module.declare_func_in_func(gemm, b.func);
        let call_gemm = |b: &mut FunctionBuilder, m: Value, pa: Value, pb: Value, pc: Value| {
            let k = ic(b, spec.k);
            let n = ic(b, spec.n);
            let (rsa, csa, rsb, csb) = (ic(b, sa1), ic(b, sa2), ic(b, sb1), ic(b, sb2));
            let rsc = ic(b, spec.n);
            b.ins()
                .call(fref, &[m, k, n, pa, rsa, csa, pb, rsb, csb, pc, rsc]);
        };
        if spec.by_batch() {
            let body = b.create_block();
            let iv = b.append_block_param(body, types::I64);
            let exit = b.create_block();
            let c0 = b.ins().icmp(IntCC::SignedLessThan, start, end);
            b.ins().brif(c0, body, &[BlockArg::Value(start)], exit, &[]);
            b.switch_to_block(body);
            let pa = ptr_plus(b, a, iv, sa0);
            let pb = ptr_plus(b, bb, iv, sb0);
            let pc = ptr_plus(b, c, iv, spec.m * spec.n);
            let m = ic(b, spec.m);
            call_gemm(b, m, pa, pb, pc);
            let one = ic(b, 1);
            let next = b.ins().iadd(iv, one);
            let c1 = b.ins().icmp(IntCC::SignedLessThan, next, end);
            b.ins().brif(c1, body, &[BlockArg::Value(next)], exit, &[]);
            b.switch_to_block(exit);
        } else {
            // One batch; rows start..end.
            let m = b.ins().isub(end, start);
            let pa = ptr_plus(b, a, start, sa1);
            let pc = ptr_plus(b, c, start, spec.n);
            call_gemm(b, m, pa, bb, pc);
        }
        b.ins().return_(&[]);
        return;
    }
    emit_int_dot(b, spec, a, bb, c, start, end);
    b.ins().return_(&[]);
    let _ = Function::new;
}

/// `a * b` on 16 byte lanes, wrapping (the same bits for `s8` and `u8`).
/// x86-64 has no byte multiply and Cranelift 0.135 does not lower
/// `imul.i8x16`: each half is widened to 16-bit lanes, multiplied
/// (`pmullw`), cut to its low byte and packed back (`packuswb` of values
/// 0..=255, so nothing saturates).
fn imul_bytes(fb: &mut FunctionBuilder, a: Value, b: Value) -> Value {
    let (al, ah) = (fb.ins().uwiden_low(a), fb.ins().uwiden_high(a));
    let (bl, bh) = (fb.ins().uwiden_low(b), fb.ins().uwiden_high(b));
    let lo = fb.ins().imul(al, bl);
    let hi = fb.ins().imul(ah, bh);
    let ff = fb.ins().iconst(types::I16, 0xFF);
    let mask = fb.ins().splat(types::I16X8, ff);
    let lo = fb.ins().band(lo, mask);
    let hi = fb.ins().band(hi, mask);
    // i16x8 pairs narrow to i8x16: the type of both s8 and u8 vectors.
    fb.ins().unarrow(lo, hi)
}

/// `p + idx * stride_bytes`.
fn elem_ptr(b: &mut FunctionBuilder, p: Value, idx: Value, stride_bytes: i64) -> Value {
    let s = b.ins().iconst(types::I64, stride_bytes);
    let o = b.ins().imul(idx, s);
    b.ins().iadd(p, o)
}

/// Columns per strip of the blocked integer dot: four vectors, one cache
/// line of B per `k`.
const INT_DOT_STRIP_BYTES: i64 = 64;
/// `k` steps per block of the integer dot: a strip of B for one block is
/// `INT_DOT_KB` lines (16 KiB), resident in L1 while every row of the
/// thread's range walks it.
const INT_DOT_KB: i64 = 256;

/// The integer dot: `C[r, :] = sum_k A[r, k] * B[k, :]` in increasing `k`
/// for rows `r = batch * m + i` in `start..end`, wrapping (so exact in any
/// order). Operands are row-major canonical (`[batch, m, k]` and
/// `[batch, k, n]`, see `fusion.rs`).
///
/// Cache- and register-blocked where the element type has vectors: the
/// columns are cut into strips of 64 bytes and `k` into blocks of
/// [`INT_DOT_KB`]; for each strip and `k` block every row of the range
/// accumulates its strip of C in four vector registers while it walks the
/// block, so the strip of B (16 KiB) is read from L1, and C is loaded and
/// stored once per block instead of once per `k`. Columns past the last
/// whole strip run the plain row loop (vectorised, then scalar). Byte
/// types multiply through 16-bit lanes ([`imul_bytes`]).
fn emit_int_dot(
    b: &mut FunctionBuilder,
    spec: &DotSpec,
    a: Value,
    bb: Value,
    c: Value,
    start: Value,
    end: Value,
) {
    let size = size_of(spec.ty) as i64;
    let [sa0, sa1, _] = spec.lhs.1;
    let [sb0, sb1, _] = spec.rhs.1;
    let ic = |b: &mut FunctionBuilder, v: i64| b.ins().iconst(types::I64, v);
    let ptr_plus = |b: &mut FunctionBuilder, p: Value, idx: Value, stride_elems: i64| {
        elem_ptr(b, p, idx, stride_elems * size)
    };
    let t = clif_type(spec.ty);
    let w = size as u32;
    // Bytes multiply through 16-bit lanes (`imul_bytes`).
    let vec_ok = spec.ty.is_integer();
    let vmul = |b: &mut FunctionBuilder, x: Value, y: Value| {
        if w == 1 {
            imul_bytes(b, x, y)
        } else {
            b.ins().imul(x, y)
        }
    };
    let vt = vector_type(spec.ty, w.max(1));
    let lanes = (16 / w) as i64;
    let strip = INT_DOT_STRIP_BYTES / size;
    let n_blocked = if vec_ok { spec.n / strip * strip } else { 0 };
    let mv = spec.m.max(1);
    // Row pointers of row `r`: (C row at column 0, A row, B at row 0).
    let row_ptrs = |b: &mut FunctionBuilder, r: Value| {
        let m = ic(b, mv);
        let bi = b.ins().sdiv(r, m);
        let ii = b.ins().srem(r, m);
        let crow = ptr_plus(b, c, r, spec.n);
        let arow0 = ptr_plus(b, a, bi, sa0);
        let arow = ptr_plus(b, arow0, ii, sa1);
        let brow0 = ptr_plus(b, bb, bi, sb0);
        (crow, arow, brow0)
    };
    // A counted loop `for i in lo..hi step by `step`` (hi > lo known or
    // checked); `body` emits the loop body for index `i`.
    let counted = |b: &mut FunctionBuilder,
                   lo: Value,
                   hi: Value,
                   step: i64,
                   body: &mut dyn FnMut(&mut FunctionBuilder, Value)| {
        let head = b.create_block();
        let i = b.append_block_param(head, types::I64);
        let exit = b.create_block();
        let c0 = b.ins().icmp(IntCC::SignedLessThan, lo, hi);
        b.ins().brif(c0, head, &[BlockArg::Value(lo)], exit, &[]);
        b.switch_to_block(head);
        body(b, i);
        let s = ic(b, step);
        let next = b.ins().iadd(i, s);
        let c1 = b.ins().icmp(IntCC::SignedLessThan, next, hi);
        b.ins().brif(c1, head, &[BlockArg::Value(next)], exit, &[]);
        b.switch_to_block(exit);
    };
    if n_blocked > 0 {
        let units = (strip / lanes) as usize;
        // The packed strip of B for one k block: row k - k0 at 64 (k - k0).
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (INT_DOT_KB * INT_DOT_STRIP_BYTES) as u32,
            6,
        ));
        let pack = b.ins().stack_addr(types::I64, slot, 0);
        // Rows start..end, one batch segment at a time (B depends on the
        // batch): seg = [r0, r1) with r1 = min((r0 / m + 1) m, end).
        let seg = b.create_block();
        let r0 = b.append_block_param(seg, types::I64);
        let seg_done = b.create_block();
        let c0 = b.ins().icmp(IntCC::SignedLessThan, start, end);
        b.ins()
            .brif(c0, seg, &[BlockArg::Value(start)], seg_done, &[]);
        b.switch_to_block(seg);
        let m = ic(b, mv);
        let bi = b.ins().sdiv(r0, m);
        let bi1 = b.ins().iadd_imm_s(bi, 1);
        let batch_end = b.ins().imul(bi1, m);
        let early = b.ins().icmp(IntCC::SignedLessThan, batch_end, end);
        let r1 = b.ins().select(early, batch_end, end);
        let a_batch = ptr_plus(b, a, bi, sa0);
        let b_batch = ptr_plus(b, bb, bi, sb0);
        let row0 = b.ins().imul(bi, m);
        let zero = ic(b, 0);
        let nb = ic(b, n_blocked);
        let kn = ic(b, spec.k);
        counted(b, zero, kn, INT_DOT_KB, &mut |b, k0| {
            let k0b = b.ins().iadd_imm_s(k0, INT_DOT_KB);
            let kn = ic(b, spec.k);
            let short = b.ins().icmp(IntCC::SignedLessThan, k0b, kn);
            let k1 = b.ins().select(short, k0b, kn);
            let z = ic(b, 0);
            let first = b.ins().icmp(IntCC::Equal, k0, z);
            let zero = ic(b, 0);
            counted(b, zero, nb, strip, &mut |b, j0| {
                let bcol = ptr_plus(b, b_batch, j0, 1);
                // Pack B[k0..k1, j0..j0 + strip] into one contiguous run.
                counted(b, k0, k1, 1, &mut |b, k| {
                    let src = ptr_plus(b, bcol, k, sb1);
                    let kr = b.ins().isub(k, k0);
                    let dst = ptr_plus(b, pack, kr, strip);
                    for u in 0..units as i32 {
                        let v = b.ins().load(vt, flags(), src, u * 16);
                        b.ins().store(flags(), v, dst, u * 16);
                    }
                });
                counted(b, r0, r1, 1, &mut |b, r| {
                    let crow0 = ptr_plus(b, c, r, spec.n);
                    let crow = ptr_plus(b, crow0, j0, 1);
                    let ii = b.ins().isub(r, row0);
                    let arow = ptr_plus(b, a_batch, ii, sa1);
                    // The strip of C so far (zero in the first block).
                    let zs = b.ins().iconst(t, 0);
                    let zv = b.ins().splat(vt, zs);
                    let mut acc = Vec::with_capacity(units);
                    for u in 0..units as i32 {
                        let old = b.ins().load(vt, flags(), crow, u * 16);
                        acc.push(b.ins().select(first, zv, old));
                    }
                    // k loop with the accumulators as block parameters.
                    let head = b.create_block();
                    let k = b.append_block_param(head, types::I64);
                    let params: Vec<Value> =
                        (0..units).map(|_| b.append_block_param(head, vt)).collect();
                    let exit = b.create_block();
                    let outs: Vec<Value> =
                        (0..units).map(|_| b.append_block_param(exit, vt)).collect();
                    let mut args = vec![BlockArg::Value(k0)];
                    args.extend(acc.iter().map(|&v| BlockArg::Value(v)));
                    b.ins().jump(head, &args);
                    b.switch_to_block(head);
                    let pa = ptr_plus(b, arow, k, 1);
                    let av = b.ins().load(t, flags(), pa, 0);
                    let avv = b.ins().splat(vt, av);
                    let kr = b.ins().isub(k, k0);
                    let pb = ptr_plus(b, pack, kr, strip);
                    let mut next_acc = Vec::with_capacity(units);
                    for (u, &p) in params.iter().enumerate() {
                        let bv = b.ins().load(vt, flags(), pb, u as i32 * 16);
                        let prod = vmul(b, avv, bv);
                        next_acc.push(b.ins().iadd(p, prod));
                    }
                    let kn = b.ins().iadd_imm_s(k, 1);
                    let more = b.ins().icmp(IntCC::SignedLessThan, kn, k1);
                    let mut again = vec![BlockArg::Value(kn)];
                    again.extend(next_acc.iter().map(|&v| BlockArg::Value(v)));
                    let done: Vec<BlockArg> =
                        next_acc.iter().map(|&v| BlockArg::Value(v)).collect();
                    b.ins().brif(more, head, &again, exit, &done);
                    b.switch_to_block(exit);
                    for (u, &v) in outs.iter().enumerate() {
                        b.ins().store(flags(), v, crow, u as i32 * 16);
                    }
                });
            });
        });
        let more = b.ins().icmp(IntCC::SignedLessThan, r1, end);
        b.ins()
            .brif(more, seg, &[BlockArg::Value(r1)], seg_done, &[]);
        b.switch_to_block(seg_done);
    }
    if n_blocked == spec.n {
        return;
    }
    // The plain row loop over columns n_blocked..n: zero the C row, then
    // C[r, j] += A[r, k] * B[k, j] for each k in increasing order.
    let lo = n_blocked;
    let vec_end = if vec_ok {
        lo + (spec.n - lo) / lanes * lanes
    } else {
        lo
    };
    let shift = ic(b, size.trailing_zeros() as i64);
    // Columns lo..n: vectors over lo..vec_end, scalars over vec_end..n.
    let cols = |b: &mut FunctionBuilder, f: &mut dyn FnMut(&mut FunctionBuilder, Value, bool)| {
        if vec_end > lo {
            let (l, h) = (ic(b, lo), ic(b, vec_end));
            counted(b, l, h, lanes, &mut |b, j| f(b, j, true));
        }
        if spec.n > vec_end {
            let (l, h) = (ic(b, vec_end), ic(b, spec.n));
            counted(b, l, h, 1, &mut |b, j| f(b, j, false));
        }
    };
    counted(b, start, end, 1, &mut |b, r| {
        let (crow, arow, brow0) = row_ptrs(b, r);
        let zero_s = b.ins().iconst(t, 0);
        cols(b, &mut |b, j, vector| {
            let off = b.ins().ishl(j, shift);
            let p = b.ins().iadd(crow, off);
            let z = if vector {
                b.ins().splat(vt, zero_s)
            } else {
                zero_s
            };
            b.ins().store(flags(), z, p, 0);
        });
        let zero = ic(b, 0);
        let kn = ic(b, spec.k);
        counted(b, zero, kn, 1, &mut |b, kk| {
            let pa = ptr_plus(b, arow, kk, 1);
            let av = b.ins().load(t, flags(), pa, 0);
            let avv = if vec_ok { b.ins().splat(vt, av) } else { av };
            let brow = ptr_plus(b, brow0, kk, sb1);
            cols(b, &mut |b, j, vector| {
                let off = b.ins().ishl(j, shift);
                let pc = b.ins().iadd(crow, off);
                let pb = b.ins().iadd(brow, off);
                let ty = if vector { vt } else { t };
                let cv = b.ins().load(ty, flags(), pc, 0);
                let bv = b.ins().load(ty, flags(), pb, 0);
                let prod = if vector {
                    vmul(b, avv, bv)
                } else {
                    b.ins().imul(av, bv)
                };
                let s = b.ins().iadd(cv, prod);
                b.ins().store(flags(), s, pc, 0);
            });
        });
    });
}
