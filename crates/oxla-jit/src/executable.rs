//! [`Executable`]: the compiled program and its lean run path (argument
//! checks, output storage, the buffer table, kernel launches).

use std::sync::{Arc, Mutex, Weak};

use cranelift_jit::JITModule;
use oxla_ir::{
    ArrayData, Computation, ElementType, Error, Literal, Result, Shape, StorageSink, dispatch_array,
};

use crate::boundary::{Boundary, Translation};
use crate::buffers::MemoryUse;
use crate::codegen::KernelFn;
use crate::compile::CompileProfile;
use crate::entity::{BufferId, IdVec};
use crate::error::{Stage, internal};
use crate::fusion::{Buffer, BufferKind, Leaf, OutputTree, Plan};
use crate::launch::Launch;
use crate::pool::pool;
use crate::program::{Item, Program, Slot};

/// Output allocations of at least this many bytes ask for huge pages, and
/// results of at least this many bytes give their storage back to the
/// executable when dropped (see [`Executable::run`]).
const LARGE_OUTPUT: usize = 4 << 20;

/// One compiled kernel: its entry point and how it is launched.
#[derive(Clone, Debug)]
pub(crate) struct Kernel {
    pub(crate) entry: KernelFn,
    pub(crate) launch: Launch,
    /// What it computes, for the profile (`profile.rs`): the buffer its
    /// step writes, and where the step is.
    pub(crate) label: String,
}

/// A compiled computation. `Send + Sync`: one executable may run on many
/// threads at once.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
/// let mut b = Builder::new("add_row");
/// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
/// let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
/// let y = b.add(x, v, &[1])?;
/// let comp = b.build(y)?;
/// let exe = oxla_jit::compile(&comp)?;
/// let x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?;
/// let v = Literal::from_vec(&[3], vec![10f32, 20., 30.])?;
/// let out = exe.run(&[&x, &v])?;
/// assert_eq!(out.to_vec::<f32>()?, vec![11., 22., 33., 14., 25., 36.]);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub struct Executable {
    comp: Computation,
    param_shapes: Vec<Shape>,
    result_shape: Shape,
    /// The entry region's plan (its buffers and result leaves).
    plan: Plan,
    /// The run-time program: every region's buffers in one table, and the
    /// kernels, copies, loops and branches to run.
    program: Program,
    /// Whether some parameter is a tuple (arguments are then flattened
    /// into leaves).
    tuple_params: bool,
    /// Freed on drop.
    module: Mutex<Option<JITModule>>,
    clif: crate::kcompile::ClifText,
    fusion: String,
    /// The arena of the last run, kept for the next (see `buffers.rs`).
    arena: Mutex<Option<Vec<u64>>>,
    /// Whether any table entry is storage allocated per run.
    has_temps: bool,
    /// Output storage handed back by dropped results and
    /// [`Executable::recycle`], for the next run.
    spare: Arc<Spare>,
    /// Per parameter: whether [`Executable::run_in_place`] can write the
    /// result over it (see `inplace.rs`).
    in_place: Vec<bool>,
    /// Per-item times when `OXLA_PROFILE` is set (`profile.rs`).
    profile: crate::profile::Profile,
    /// Where the compilation's time went.
    compile_profile: CompileProfile,
    /// When the computation was compiled as another (tokens as empty
    /// arrays, complex values as real pairs): the computation as given and
    /// the translations of arguments and results between the two
    /// (`boundary.rs`); `comp` is then the one compiled.
    boundary: Option<Box<Boundary>>,
}

/// Storage kept for the next run's outputs: at most one buffer per output
/// buffer of the plan, and only storage that fits one.
struct Spare {
    kept: Mutex<Vec<ArrayData>>,
    /// Element type and element count of each output buffer.
    fits: Vec<(ElementType, usize)>,
}

impl Spare {
    /// Keeps `data` if it fits an output buffer and a slot is free; else
    /// drops it.
    fn keep(&self, data: ArrayData) {
        let ty = data.element_type();
        let n = data.len();
        if !self.fits.iter().any(|&(t, m)| t == ty && m == n) {
            return;
        }
        if let Ok(mut kept) = self.kept.lock()
            && kept.len() < self.fits.len()
        {
            kept.push(data);
        }
    }
}

impl StorageSink for Spare {
    fn reclaim(&self, data: ArrayData) {
        self.keep(data);
    }
}

/// An internal error of the run path.
fn bug(message: impl Into<String>) -> Error {
    internal(Stage::Run, message)
}

fn data_ptr(d: &ArrayData) -> *const u8 {
    dispatch_array!(d, v => v.as_ptr().cast::<u8>())
}

fn data_ptr_mut(d: &mut ArrayData) -> *mut u8 {
    dispatch_array!(d, v => v.as_mut_ptr().cast::<u8>())
}

/// Storage for `n` elements of `ty` with length 0: capacity only, not
/// initialised (and not zeroed: a fresh large allocation is an untouched
/// `mmap` whose pages the kernels' own threads fault in as they write).
fn uninit_storage(ty: ElementType, n: usize) -> Option<ArrayData> {
    fn vec<T>(n: usize) -> Option<Vec<T>> {
        let mut v = Vec::new();
        v.try_reserve_exact(n).ok()?;
        Some(v)
    }
    oxla_ir::with_native_type!(ty, T => Some(ArrayData::from(vec::<T>(n)?)), tuple => None)
}

fn capacity(d: &ArrayData) -> usize {
    dispatch_array!(d, v => v.capacity())
}

/// Empties `d`, keeping its allocation.
fn clear(d: &mut ArrayData) {
    dispatch_array!(d, v => v.clear())
}

/// `words` zeroed words (zero pages straight from the allocator, untouched),
/// or `None` if they cannot be allocated.
fn zeroed_words(words: usize) -> Option<Vec<u64>> {
    let layout = std::alloc::Layout::array::<u64>(words.max(1)).ok()?;
    // SAFETY: `layout` has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` comes from the global allocator with the layout of
    // `[u64; words.max(1)]`, and all-zero bytes are valid `u64`s.
    Some(unsafe { Vec::from_raw_parts(p, words.max(1), words.max(1)) })
}

/// Sets the length of storage from [`Executable::output_storage`].
///
/// # Safety
///
/// The first `n` elements must have been written (with valid values of the
/// element type: 0 or 1 for `pred`), and `n` must not exceed the capacity.
unsafe fn assume_written(d: &mut ArrayData, n: usize) {
    // SAFETY: per the contract above.
    dispatch_array!(d, v => unsafe { v.set_len(n) })
}

/// Asks the kernel to back the 2 MiB-aligned interior of
/// `[ptr, ptr + bytes)` with huge pages before it is first touched (a
/// fresh `calloc` of this size is an untouched `mmap`): 32 faults per
/// 64 MiB instead of 16384.
fn advise_huge_pages(ptr: *const u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    let start = (ptr as usize).div_ceil(HUGE) * HUGE;
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside one live allocation of ours;
        // madvise only changes how its pages are backed, never contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

impl Executable {
    /// The executable of `comp`, fused as `plan`, with the kernels of
    /// `module` and their texts.
    #[allow(
        clippy::too_many_arguments,
        reason = "one per thing the compile driver hands over"
    )]
    pub(crate) fn new(
        comp: &Computation,
        plan: Plan,
        program: Program,
        module: JITModule,
        clif: crate::kcompile::ClifText,
        fusion: String,
        in_place: Vec<bool>,
        profile: CompileProfile,
    ) -> Executable {
        let has_temps = program.slots.iter().any(|s| matches!(s, Slot::Scratch(_)));
        let fits = plan
            .buffers
            .values()
            .filter(|b| matches!(b.kind, BufferKind::Output(_)))
            .map(|b| (b.shape.element_type(), b.shape.element_count() as usize))
            .collect();
        Executable {
            comp: comp.clone(),
            param_shapes: comp.parameter_shapes(),
            result_shape: comp.result_shape().clone(),
            plan,
            program,
            tuple_params: comp.parameter_shapes().iter().any(Shape::is_tuple),
            module: Mutex::new(Some(module)),
            clif,
            fusion,
            arena: Mutex::new(None),
            has_temps,
            spare: Arc::new(Spare {
                kept: Mutex::new(Vec::new()),
                fits,
            }),
            in_place,
            profile: crate::profile::Profile::default(),
            compile_profile: profile,
            boundary: None,
        }
    }

    /// This executable, compiled from `original` rewritten by
    /// `translation` (tokens as empty arrays, complex values as real
    /// pairs), as the executable of `original`: its arguments and results
    /// are translated at the boundary (`boundary.rs`). A run with a
    /// boundary never writes over an argument.
    pub(crate) fn with_boundary(
        mut self,
        translation: Translation,
        original: &Computation,
    ) -> Executable {
        self.in_place.fill(false);
        self.boundary = Some(Boundary::wrap(self.boundary.take(), translation, original));
        self
    }

    /// Where the compilation's time went, stage by stage.
    pub fn compile_profile(&self) -> &CompileProfile {
        &self.compile_profile
    }

    /// The memory one run takes beyond its arguments and constants: the
    /// outputs and the intermediates' arena (see [`MemoryUse`]).
    pub fn memory(&self) -> MemoryUse {
        let layout = &self.program.layout;
        MemoryUse {
            outputs: self
                .plan
                .buffers
                .values()
                .filter(|b| matches!(b.kind, BufferKind::Output(_)))
                .map(|b| {
                    b.shape.element_count() as usize * b.shape.element_type().byte_size().max(1)
                })
                .sum(),
            temporaries: layout.arena_bytes,
            temporaries_unshared: layout.unshared_bytes,
            largest_live_set: layout.largest_live_bytes,
        }
    }

    /// The peak bytes one [`Executable::run`] allocates: its outputs and
    /// the intermediates' arena, all live at once. Arguments and the
    /// executable's constants are not counted.
    pub fn peak_bytes(&self) -> usize {
        let m = self.memory();
        m.outputs + m.temporaries
    }

    /// The computation this was compiled from.
    pub fn computation(&self) -> &Computation {
        match &self.boundary {
            Some(b) => b.original(),
            None => &self.comp,
        }
    }

    /// The fusion decisions as HLO-like text (see [`crate::fusion_text`]).
    pub fn fusion_text(&self) -> &str {
        &self.fusion
    }

    /// The Cranelift IR of every kernel, as handed to the code generator.
    pub fn clif_text(&self) -> &str {
        self.clif.text()
    }

    /// The number of kernels compiled (a kernel inside a loop counts once,
    /// however often it runs).
    pub fn kernel_count(&self) -> usize {
        self.program.kernel_count
    }

    /// Leaf `j` of the arguments flattened (tuples depth-first).
    fn arg_leaf<'l>(&self, args: &[&'l Literal], j: usize) -> Option<&'l Literal> {
        if !self.tuple_params {
            return args.get(j).copied();
        }
        fn walk<'l>(l: &'l Literal, j: &mut usize) -> Option<&'l Literal> {
            match l.tuple_elements() {
                Some(items) => items.iter().find_map(|i| walk(i, j)),
                None if *j == 0 => Some(l),
                None => {
                    *j -= 1;
                    None
                }
            }
        }
        let mut j = j;
        args.iter().find_map(|a| walk(a, &mut j))
    }

    fn check_args(&self, args: &[&Literal]) -> Result<()> {
        let ok = args.len() == self.param_shapes.len()
            && args
                .iter()
                .zip(&self.param_shapes)
                .all(|(a, s)| a.shape() == s);
        if ok {
            return Ok(());
        }
        self.comp.check_arguments(args)?;
        Err(bug("arguments rejected"))
    }

    /// Runs on `args` (checked first: count, element type and dims of
    /// each) and returns the result, as `oxla_interp::evaluate` would.
    ///
    /// Output storage is reused: a result array of 4 MiB or more gives its
    /// storage back to this executable when it is dropped (see
    /// [`Literal::return_storage_to`]), and the next `run` writes there
    /// instead of allocating and page-faulting a fresh buffer. So a loop
    /// that drops each result before the next call allocates once. The
    /// executable keeps at most one buffer per output until it is dropped
    /// or [`Executable::release_cached_outputs`] is called; results that
    /// are still alive are never touched.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
    /// let mut b = Builder::new("double");
    /// let x = b.parameter(0, Shape::new(F32, &[1024, 1024]), "x")?;
    /// let y = b.add(x, x, &[])?;
    /// let exe = oxla_jit::compile(&b.build(y)?)?;
    /// let x = Literal::from_vec(&[1024, 1024], vec![1f32; 1 << 20])?;
    /// let first = exe.run(&[&x])?;
    /// let storage = first.as_slice::<f32>()?.as_ptr();
    /// drop(first); // 4 MiB: the storage goes back to `exe`
    /// let second = exe.run(&[&x])?;
    /// assert_eq!(second.as_slice::<f32>()?.as_ptr(), storage);
    /// assert!(second.as_slice::<f32>()?.iter().all(|&v| v == 2.0));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn run(&self, args: &[&Literal]) -> Result<Literal> {
        let Some(b) = &self.boundary else {
            return self.run_compiled(args);
        };
        let inner = b.arguments(args)?;
        let inner: Vec<&Literal> = inner.iter().map(|a| a.as_ref()).collect();
        b.result(self.run_compiled(&inner)?)
    }

    /// [`Executable::run`] of the computation as compiled (inside the
    /// boundary, if there is one).
    fn run_compiled(&self, args: &[&Literal]) -> Result<Literal> {
        self.check_args(args)?;
        let mut outputs: IdVec<BufferId, Option<ArrayData>> =
            IdVec::with_capacity(self.plan.buffers.len());
        for b in self.plan.buffers.values() {
            outputs.push(match b.kind {
                BufferKind::Output(_) => Some(self.output_storage(b)?),
                _ => None,
            });
        }
        self.execute(args, &mut outputs, &[])?;
        for (b, o) in self.plan.buffers.values().zip(outputs.values_mut()) {
            if let Some(d) = o {
                // SAFETY: output buffer `b` was allocated for its element
                // count, and its step has written every element, checked
                // when this executable was compiled: `verify::check_plan`
                // (every output buffer written by exactly one step) and
                // `verify::check_kernels` (that step's writes are one
                // element per iteration of their loops, inside the buffer,
                // adding up to all of it; a dot writes `batch * m * n`).
                // What each kind of write stores: loop kernels each index
                // of their iteration space, reduces each output element,
                // column reduces fill the row with `init` before folding,
                // dots overwrite C (the float GEMM with beta = 0 ignores
                // its prior contents; the integer kernel zeroes each row
                // first), and `pred` values are stored as 0 or 1.
                unsafe { assume_written(d, b.shape.element_count() as usize) };
            }
        }
        self.assemble(args, &self.plan.output, &mut outputs)
    }

    /// Hands a result of [`Executable::run`] back: its storage is kept and
    /// the next `run` writes its output there instead of allocating (and
    /// page-faulting) a new one. An array result of another shape, or a
    /// tuple, is simply dropped. (Results of 4 MiB or more do this on their
    /// own when dropped; `recycle` also takes smaller ones, or any literal
    /// of an output's shape.)
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
    /// let mut b = Builder::new("double");
    /// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    /// let y = b.add(x, x, &[])?;
    /// let exe = oxla_jit::compile(&b.build(y)?)?;
    /// let x = Literal::from_vec(&[3], vec![1f32, 2., 3.])?;
    /// for _ in 0..3 {
    ///     let out = exe.run(&[&x])?;
    ///     assert_eq!(out.to_vec::<f32>()?, vec![2., 4., 6.]);
    ///     exe.recycle(out); // the next run reuses this buffer
    /// }
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn recycle(&self, result: Literal) {
        if let Some(data) = result.into_array_data() {
            self.spare.keep(data);
        }
    }

    /// The bytes of output storage this executable keeps for its next run.
    pub fn cached_output_bytes(&self) -> usize {
        self.spare.kept.lock().map_or(0, |k| {
            k.iter()
                .map(|d| capacity(d) * d.element_type().byte_size())
                .sum()
        })
    }

    /// Frees the output storage this executable keeps for its next run
    /// (from dropped results and [`Executable::recycle`]); the next `run`
    /// allocates afresh.
    pub fn release_cached_outputs(&self) {
        let kept = self
            .spare
            .kept
            .lock()
            .map(|mut k| std::mem::take(&mut *k))
            .unwrap_or_default();
        drop(kept);
    }

    /// Storage for an output buffer of `shape`, length 0: a recycled one
    /// if one fits, else a new allocation (huge pages when large).
    fn output_storage(&self, buffer: &Buffer) -> Result<ArrayData> {
        let shape = &buffer.shape;
        let ty = shape.element_type();
        let n = shape.element_count() as usize;
        if let Ok(mut spare) = self.spare.kept.try_lock()
            && let Some(i) = spare
                .iter()
                .position(|d| d.element_type() == ty && capacity(d) >= n)
        {
            let mut d = spare.swap_remove(i);
            clear(&mut d);
            return Ok(d);
        }
        let mut data =
            uninit_storage(ty, n).ok_or_else(|| self.allocation_error(buffer, "output"))?;
        let bytes = n * ty.byte_size();
        if bytes >= LARGE_OUTPUT {
            advise_huge_pages(data_ptr(&data), bytes);
        }
        if cfg!(debug_assertions) && !ty.is_pred() {
            // Poison (debug builds): an element no kernel writes shows up
            // in the tests as a wrong value instead of a lucky zero.
            // SAFETY: the allocation holds `bytes` bytes.
            unsafe { std::ptr::write_bytes(data_ptr_mut(&mut data), 0xA5, bytes) };
        }
        Ok(data)
    }

    /// Runs on `args`, writing the result into `out`, which must already
    /// have the result's shape (an [`Error::OutputShape`] otherwise): no
    /// allocation for the output at all. For a tuple result the kernels
    /// write each leaf of `out` in place, and leaves that are arguments,
    /// constants or repeats are copied in.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
    /// let mut b = Builder::new("pair");
    /// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    /// let d = b.add(x, x, &[])?;
    /// let n = b.neg(x)?;
    /// let t = b.tuple(&[d, n])?;
    /// let exe = oxla_jit::compile(&b.build(t)?)?;
    /// let x = Literal::from_vec(&[3], vec![1f32, 2., 3.])?;
    /// let mut out = Literal::zeros(exe.computation().result_shape())?;
    /// exe.run_into(&[&x], &mut out)?;
    /// let leaves = out.tuple_elements().unwrap_or_default();
    /// assert_eq!(leaves[0].to_vec::<f32>()?, vec![2., 4., 6.]);
    /// assert_eq!(leaves[1].to_vec::<f32>()?, vec![-1., -2., -3.]);
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn run_into(&self, args: &[&Literal], out: &mut Literal) -> Result<()> {
        if let Some(b) = &self.boundary {
            // Through the boundary: the translated result replaces `out`.
            b.check(args)?;
            let original = b.original();
            if out.shape() != original.result_shape() {
                return Err(Error::OutputShape {
                    computation: original.name().to_string(),
                    expected: original.result_shape().to_string(),
                    actual: out.shape().to_string(),
                });
            }
            *out = self.run(args)?;
            return Ok(());
        }
        self.check_args(args)?;
        if out.shape() != &self.result_shape {
            return Err(Error::OutputShape {
                computation: self.comp.name().to_string(),
                expected: self.result_shape.to_string(),
                actual: out.shape().to_string(),
            });
        }
        // `out` has the result's shape, and a literal's data always
        // matches its shape: the kernels may fill all of it.
        if let OutputTree::Leaf(leaf) = &self.plan.output {
            let src = match leaf {
                Leaf::Buffer(b) => {
                    let p = out
                        .array_ptr_mut()
                        .ok_or_else(|| bug("the output literal is not an array"))?;
                    return self.execute(args, &mut IdVec::new(), &[(*b, p)]);
                }
                Leaf::Param(k) => self
                    .arg_leaf(args, k.index())
                    .ok_or_else(|| bug("a result leaf names a missing argument leaf"))?,
                Leaf::Constant(l) => l,
                Leaf::Duplicate(_) => return Err(bug("a duplicate leaf without a tuple")),
            };
            let values = src
                .array_data()
                .ok_or_else(|| bug("a tuple as an array result"))?;
            return out.copy_values_from(0, values);
        }
        self.run_into_tuple(args, out)
    }

    /// [`Executable::run_into`] for a tuple result: the kernels write each
    /// output buffer straight into its leaf of `out`; leaves that are
    /// arguments, constants or repeats of another leaf are copied in.
    fn run_into_tuple(&self, args: &[&Literal], out: &mut Literal) -> Result<()> {
        fn leaves<'t>(t: &'t OutputTree, acc: &mut Vec<&'t Leaf>) {
            match t {
                OutputTree::Leaf(l) => acc.push(l),
                OutputTree::Tuple(items) => items.iter().for_each(|i| leaves(i, acc)),
            }
        }
        let mut plan_leaves = Vec::new();
        leaves(&self.plan.output, &mut plan_leaves);
        let ptrs = out.leaf_ptrs_mut();
        if ptrs.len() != plan_leaves.len() {
            return Err(bug("the output literal's leaves do not match the result"));
        }
        fn shapes<'s>(s: &'s Shape, acc: &mut Vec<&'s Shape>) {
            if s.is_tuple() {
                s.tuple_shapes().iter().for_each(|e| shapes(e, acc));
            } else {
                acc.push(s);
            }
        }
        let mut leaf_shapes = Vec::new();
        shapes(&self.result_shape, &mut leaf_shapes);
        let bytes = |k: usize| {
            leaf_shapes.get(k).map_or(0, |s| {
                s.element_count() as usize * s.element_type().byte_size()
            })
        };
        // Where each output buffer goes: its first leaf.
        let mut into: Vec<(BufferId, *mut u8)> = Vec::new();
        for (leaf, &p) in plan_leaves.iter().zip(&ptrs) {
            if let Leaf::Buffer(b) = leaf {
                into.push((*b, p));
            }
        }
        let all_outputs_placed = self.plan.buffers.iter().all(|(i, b)| {
            !matches!(b.kind, BufferKind::Output(_)) || into.iter().any(|&(ob, _)| ob == i)
        });
        if !all_outputs_placed {
            return Err(bug("an output buffer has no leaf to write"));
        }
        self.execute(args, &mut IdVec::new(), &into)?;
        for (k, (leaf, &dst)) in plan_leaves.iter().zip(&ptrs).enumerate() {
            let src: *const u8 = match leaf {
                Leaf::Buffer(_) => continue,
                Leaf::Duplicate(b) => match into.iter().find(|&&(ob, _)| ob == *b) {
                    Some(&(_, p)) => p,
                    None => return Err(bug("a duplicate of a missing output")),
                },
                Leaf::Param(n) => self
                    .arg_leaf(args, n.index())
                    .and_then(|a| a.array_data())
                    .map(data_ptr)
                    .ok_or_else(|| bug("a tuple argument as a result leaf"))?,
                Leaf::Constant(l) => l
                    .array_data()
                    .map(data_ptr)
                    .ok_or_else(|| bug("a tuple constant as a result leaf"))?,
            };
            // SAFETY: leaf `k` of `out` and its source both hold the
            // leaf's shape (`out` was checked against the result shape, and
            // a literal's data always matches its shape), so both span
            // `bytes(k)` bytes of valid values; they are distinct
            // allocations (`out` is borrowed mutably, the sources are the
            // arguments, the constants, or another leaf of `out`).
            unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes(k)) };
        }
        Ok(())
    }

    /// Runs with parameter `number` read from `inout` and the result
    /// written over it (XLA's buffer donation, JAX's `donate_argnums`):
    /// `others` are the other arguments in parameter order. The result
    /// must be an array of the parameter's shape.
    ///
    /// When every kernel reads that parameter only at the element it is
    /// about to overwrite (elementwise work, broadcasts of the other
    /// operands, row-wise passes like softmax's), no output is allocated
    /// and `inout`'s storage is written in place; otherwise the result is
    /// computed out of place and then moved into `inout`. Either way
    /// `inout` ends up holding the result.
    /// [`Executable::runs_in_place`] says which.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
    /// let mut b = Builder::new("add_row");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    /// let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
    /// let y = b.add(x, v, &[1])?;
    /// let exe = oxla_jit::compile(&b.build(y)?)?;
    /// let mut x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?;
    /// let v = Literal::from_vec(&[3], vec![10f32, 20., 30.])?;
    /// assert!(exe.runs_in_place(0));
    /// exe.run_in_place(0, &mut x, &[&v])?; // x = x + v, no allocation
    /// assert_eq!(x.to_vec::<f32>()?, vec![11., 22., 33., 14., 25., 36.]);
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn run_in_place(
        &self,
        number: usize,
        inout: &mut Literal,
        others: &[&Literal],
    ) -> Result<()> {
        if let Some(b) = &self.boundary {
            // Through the boundary: computed out of place, then moved in.
            let original = b.original();
            let n = original.parameter_shapes().len();
            if number >= n || others.len() + 1 != n {
                return Err(Error::ArgumentCount {
                    computation: original.name().to_string(),
                    expected: n,
                    actual: others.len() + 1,
                    signature: format!(
                        "(run_in_place over parameter {number} with {} other argument(s))",
                        others.len()
                    ),
                });
            }
            let mut args: Vec<&Literal> = others.to_vec();
            args.insert(number, &*inout);
            b.check(&args)?;
            if original.result_shape() != inout.shape() {
                return Err(Error::OutputShape {
                    computation: original.name().to_string(),
                    expected: original.result_shape().to_string(),
                    actual: inout.shape().to_string(),
                });
            }
            let result = self.run(&args)?;
            *inout = result;
            return Ok(());
        }
        let n = self.param_shapes.len();
        if number >= n || others.len() + 1 != n {
            return Err(Error::ArgumentCount {
                computation: self.comp.name().to_string(),
                expected: n,
                actual: others.len() + 1,
                signature: format!(
                    "(run_in_place over parameter {number} with {} other argument(s))",
                    others.len()
                ),
            });
        }
        // The argument at parameter `k`: `inout` at `number`, else `others`
        // in order (a comparison per parameter, no allocation).
        let shapes_match = self.param_shapes.iter().enumerate().all(|(k, s)| {
            let arg = if k == number {
                Some(&*inout)
            } else {
                others.get(k - usize::from(k > number)).copied()
            };
            arg.is_some_and(|a| a.shape() == s)
        });
        if !shapes_match {
            let mut args: Vec<&Literal> = others.to_vec();
            args.insert(number, &*inout);
            self.check_args(&args)?;
        }
        if self.result_shape != self.param_shapes[number] {
            return Err(Error::OutputShape {
                computation: self.comp.name().to_string(),
                expected: self.result_shape.to_string(),
                actual: inout.shape().to_string(),
            });
        }
        if let (OutputTree::Leaf(Leaf::Buffer(b)), true) =
            (&self.plan.output, self.in_place[number])
        {
            let p = inout
                .array_ptr_mut()
                .ok_or_else(|| bug("the in-place argument is not an array"))?;
            let param = |k: usize| {
                if k == number {
                    p
                } else {
                    others
                        .get(k - usize::from(k > number))
                        .and_then(|a| a.array_data())
                        .map_or(std::ptr::null_mut(), |d| data_ptr(d) as *mut u8)
                }
            };
            return self.execute_with(&param, &mut IdVec::new(), &[(*b, p)]);
        }
        let result = {
            let mut args: Vec<&Literal> = others.to_vec();
            args.insert(number, &*inout);
            self.run(&args)?
        };
        *inout = result;
        Ok(())
    }

    /// Whether [`Executable::run_in_place`] over parameter `number` writes
    /// the result straight into the argument's storage (no allocation).
    pub fn runs_in_place(&self, number: usize) -> bool {
        self.boundary.is_none() && self.in_place.get(number).copied().unwrap_or(false)
    }

    /// Runs every kernel. `outputs[b]` holds output buffer `b`; `into`
    /// replaces one output buffer by a caller's pointer.
    fn execute(
        &self,
        args: &[&Literal],
        outputs: &mut IdVec<BufferId, Option<ArrayData>>,
        into: &[(BufferId, *mut u8)],
    ) -> Result<()> {
        let param = |k: usize| {
            self.arg_leaf(args, k)
                .and_then(|a| a.array_data())
                .map_or(std::ptr::null_mut(), |d| data_ptr(d) as *mut u8)
        };
        self.execute_with(&param, outputs, into)
    }

    /// [`Executable::execute`] with parameter `k`'s data at `param(k)`.
    /// Fails, before any kernel runs, only if a temporary cannot be
    /// allocated.
    fn execute_with(
        &self,
        param: &dyn Fn(usize) -> *mut u8,
        outputs: &mut IdVec<BufferId, Option<ArrayData>>,
        into: &[(BufferId, *mut u8)],
    ) -> Result<()> {
        let started = crate::profile::enabled().then(std::time::Instant::now);
        let n = self.program.slots.len();
        let mut small = [std::ptr::null_mut::<u8>(); 16];
        let mut big: Vec<*mut u8>;
        let table: &mut [*mut u8] = if n <= small.len() {
            &mut small[..n]
        } else {
            big = vec![std::ptr::null_mut(); n];
            &mut big
        };
        // One arena for every storage entry, 64-byte aligned inside.
        let layout = &self.program.layout;
        let words = (layout.arena_bytes + crate::buffers::ALIGN).div_ceil(8);
        let mut arena = if self.has_temps {
            let kept = self.arena.try_lock().ok().and_then(|mut a| a.take());
            match kept.filter(|a| a.len() >= words) {
                Some(a) => Some(a),
                None => match zeroed_words(words) {
                    Some(a) => Some(a),
                    None => return Err(self.arena_error(layout.arena_bytes)),
                },
            }
        } else {
            None
        };
        let arena_base = arena.as_mut().map_or(std::ptr::null_mut(), |a| {
            let p = a.as_mut_ptr().cast::<u8>();
            // SAFETY: the arena has `ALIGN` spare bytes, so the aligned
            // start stays inside it.
            unsafe { p.add(p.align_offset(crate::buffers::ALIGN)) }
        });
        for (i, slot) in self.program.slots.iter().enumerate() {
            table[i] = match slot {
                Slot::Arg(k) => param(*k),
                Slot::Const(c) => self.program.constants[*c]
                    .array_data()
                    .map_or(std::ptr::null_mut(), |d| data_ptr(d) as *mut u8),
                Slot::Scratch(_) => match layout.offsets.get(i).copied().flatten() {
                    // SAFETY: `buffers::assign` placed the entry inside
                    // the arena (`offset + bytes <= arena_bytes`, checked
                    // by `verify::check_buffer_layout`).
                    Some(off) if !arena_base.is_null() => unsafe { arena_base.add(off) },
                    _ => return Err(bug(format!("table entry {i} has no place in the arena"))),
                },
                Slot::Output(b) => match into.iter().find(|&&(ob, _)| ob == *b) {
                    Some(&(_, p)) => p,
                    None => outputs
                        .get_mut(*b)
                        .and_then(|o| o.as_mut())
                        .map_or(std::ptr::null_mut(), data_ptr_mut),
                },
                Slot::Same(j) => table.get(*j).copied().unwrap_or(std::ptr::null_mut()),
            };
        }
        if let Some(t) = started {
            let key = &self.program.slots as *const _ as usize;
            let label = || "setup: buffer table, scratch storage".to_string();
            self.profile.add(key, label, t.elapsed());
        }
        self.run_items(&self.program.items, table);
        if let (Some(a), Ok(mut kept)) = (arena, self.arena.try_lock()) {
            *kept = Some(a);
        }
        if let Some(t) = started {
            self.profile.add_run(t.elapsed());
        }
        Ok(())
    }

    /// Runs `items` on `table` (see `program.rs`).
    fn run_items(&self, items: &[Item], table: &[*mut u8]) {
        for item in items {
            let started = match item {
                Item::Kernel { .. } | Item::Copy { .. } if crate::profile::enabled() => {
                    Some(std::time::Instant::now())
                }
                Item::Kernel { .. }
                | Item::Copy { .. }
                | Item::While { .. }
                | Item::Cond { .. } => None,
            };
            self.run_item(item, table);
            if let Some(t) = started {
                let label = || match item {
                    Item::Kernel { kernel, .. } => format!(
                        "{} (extent {}{})",
                        kernel.label,
                        kernel.launch.extent,
                        if kernel.launch.parallel {
                            ", threaded"
                        } else {
                            ""
                        }
                    ),
                    Item::Copy { bytes, .. } => format!("copy of {bytes} bytes"),
                    Item::While { .. } | Item::Cond { .. } => String::new(),
                };
                self.profile
                    .add(item as *const Item as usize, label, t.elapsed());
            }
        }
    }

    /// Runs one item of a program.
    fn run_item(&self, item: &Item, table: &[*mut u8]) {
        {
            match item {
                Item::Kernel { base, kernel, .. } => {
                    let (f, l) = (kernel.entry, kernel.launch);
                    // `base` is the start of the kernel's region in the table
                    // (`Program::build` laid every region out inside it).
                    let t = table[*base..].as_ptr();
                    match (l.parallel, pool()) {
                        (true, Some(p)) => p.run(f, t, l.extent, l.chunk),
                        _ => {
                            // SAFETY: `f` was compiled for its region's
                            // buffer table, which starts at `t`; every
                            // pointer there addresses a buffer of the shape
                            // the region's plan gave it (arguments were
                            // checked, outputs and scratch storage allocated
                            // for the run, constants owned by `self`, and a
                            // region's parameters and results bound to its
                            // caller's buffers of the same shapes, checked by
                            // `verify::check_program`), and `0..extent` is
                            // its full range. Over that range every load
                            // stays inside its buffer or is clamped into it,
                            // every store inside its output, and no buffer is
                            // read before its step wrote it:
                            // `verify::check_kernels` checked each at compile
                            // time.
                            unsafe { f(t, 0, l.extent) }
                        }
                    }
                }
                Item::Copy { src, dst, bytes } => {
                    let (s, d) = (table[*src], table[*dst]);
                    if s != d && *bytes > 0 {
                        // SAFETY: both entries address buffers of the same
                        // shape, `bytes` long (`verify::check_program`
                        // compares the shapes of every copy), and distinct
                        // buffers never overlap (each is its own
                        // allocation, an argument or a constant).
                        unsafe { std::ptr::copy_nonoverlapping(s as *const u8, d, *bytes) };
                    }
                }
                Item::While { cond, pred, body } => loop {
                    self.run_items(cond, table);
                    // SAFETY: `pred` is a one-byte scratch entry the
                    // condition's items wrote (its region's one result
                    // leaf, a `pred[]`: 0 or 1).
                    let go = unsafe { *table[*pred] } != 0;
                    if !go {
                        break;
                    }
                    self.run_items(body, table);
                },
                Item::Cond {
                    selector,
                    ty,
                    branches,
                } => {
                    let p = table[*selector];
                    let k = if ty.is_pred() {
                        // SAFETY: the selector is a `pred[]` buffer: one
                        // byte, 0 or 1, written before this step.
                        usize::from(unsafe { *p } == 0)
                    } else {
                        // SAFETY: the selector is an `s32[]` buffer: four
                        // bytes, written before this step (read unaligned:
                        // scratch storage is 8-byte aligned, arguments need
                        // not be).
                        let v = unsafe { std::ptr::read_unaligned(p as *const i32) };
                        usize::try_from(v)
                            .ok()
                            .filter(|&k| k < branches.len())
                            .unwrap_or(branches.len().saturating_sub(1))
                    };
                    if let Some(items) = branches.get(k) {
                        self.run_items(items, table);
                    }
                }
            }
        }
    }

    /// The error for the arena of `bytes` bytes (every intermediate of a
    /// run), which the system cannot allocate: it names the largest
    /// intermediate.
    fn arena_error(&self, bytes: usize) -> Error {
        let largest = self
            .plan
            .buffers
            .values()
            .filter(|b| matches!(b.kind, BufferKind::Temp))
            .max_by_key(|b| b.shape.element_count());
        let (instruction, shape) = largest.map_or_else(
            || {
                (
                    "<loop or branch storage>".to_string(),
                    format!("u8[{bytes}]"),
                )
            },
            |b| (b.name.clone(), b.shape.to_string()),
        );
        // The bytes are the whole arena's (the largest intermediate's and
        // those live beside it).
        Error::JitAllocation {
            computation: self.comp.name().to_string(),
            instruction,
            role: "intermediate".to_string(),
            shape,
            bytes: bytes as u64,
        }
    }

    /// The error for `buffer` (an `output` or `intermediate`), which the
    /// system cannot allocate.
    fn allocation_error(&self, buffer: &Buffer, role: &str) -> Error {
        let shape = &buffer.shape;
        Error::JitAllocation {
            computation: self.comp.name().to_string(),
            instruction: buffer.name.clone(),
            role: role.to_string(),
            shape: shape.to_string(),
            bytes: (shape.element_count() as u64)
                .saturating_mul(shape.element_type().byte_size() as u64),
        }
    }

    fn assemble(
        &self,
        args: &[&Literal],
        tree: &OutputTree,
        outputs: &mut IdVec<BufferId, Option<ArrayData>>,
    ) -> Result<Literal> {
        match tree {
            OutputTree::Tuple(items) => Ok(Literal::tuple(
                items
                    .iter()
                    .map(|t| self.assemble(args, t, outputs))
                    .collect::<Result<_>>()?,
            )),
            OutputTree::Leaf(leaf) => match leaf {
                Leaf::Buffer(b) => {
                    let data = outputs[*b]
                        .take()
                        .ok_or_else(|| bug("output buffer taken twice"))?;
                    let dims = self.plan.buffers[*b].shape.dims().to_vec();
                    // Keep a copy for later duplicates of this leaf.
                    let mut lit = Literal::from_array_data(&dims, data)?;
                    if self.has_duplicate_of(*b) {
                        outputs[*b] = lit.array_data().cloned();
                    }
                    let bytes = lit.element_count() * lit.element_type().byte_size();
                    if bytes >= LARGE_OUTPUT {
                        let sink: Weak<dyn StorageSink> =
                            Arc::downgrade(&self.spare) as Weak<dyn StorageSink>;
                        lit.return_storage_to(sink);
                    }
                    Ok(lit)
                }
                Leaf::Param(k) => self
                    .arg_leaf(args, k.index())
                    .cloned()
                    .ok_or_else(|| bug("a result leaf names a missing argument leaf")),
                Leaf::Constant(l) => Ok(l.clone()),
                Leaf::Duplicate(b) => {
                    let data = outputs[*b]
                        .clone()
                        .ok_or_else(|| bug("duplicate of a missing output"))?;
                    Literal::from_array_data(self.plan.buffers[*b].shape.dims(), data)
                }
            },
        }
    }

    fn has_duplicate_of(&self, b: BufferId) -> bool {
        fn walk(t: &OutputTree, b: BufferId) -> bool {
            match t {
                OutputTree::Tuple(items) => items.iter().any(|i| walk(i, b)),
                OutputTree::Leaf(Leaf::Duplicate(d)) => *d == b,
                OutputTree::Leaf(_) => false,
            }
        }
        walk(&self.plan.output, b)
    }

    /// The element type of the result (`Tuple` for tuples).
    pub fn result_element_type(&self) -> ElementType {
        self.computation().result_shape().element_type()
    }

    /// With `OXLA_PROFILE=1` in the environment (see [`PROFILE_VAR`]), the
    /// time per run spent in each kernel launch and buffer copy (and in the
    /// setup of a run), slowest first; `None` when profiling is off or
    /// nothing ran. An executable prints it to stderr when dropped.
    ///
    /// [`PROFILE_VAR`]: crate::PROFILE_VAR
    pub fn profile_text(&self) -> Option<String> {
        if !crate::profile::enabled() {
            return None;
        }
        self.profile.text(self.comp.name())
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        if let Some(text) = self.profile_text() {
            eprint!("{text}");
        }
        let module = match self.module.get_mut() {
            Ok(m) => m.take(),
            Err(e) => e.into_inner().take(),
        };
        if let Some(m) = module {
            // SAFETY: the kernels' function pointers live only in
            // `self.kernels`, which dies with `self`; no run can be in
            // progress while `drop` has `&mut self`.
            unsafe { m.free_memory() };
        }
    }
}
