//! Machine code for a module's kernels: each distinct kernel compiled once,
//! the distinct ones in parallel on the thread pool.
//!
//! Code generation (`codegen/`) builds every kernel's CLIF function; this
//! module then takes over:
//!
//! 1. **A kernel's own buffer table.** A kernel reads its buffers' base
//!    pointers from the region's buffer table (`load.i64 table+8k`), so two
//!    kernels that do the same work on different buffers differ only in
//!    those offsets. [`canonical_table`] renumbers them in the order the
//!    function first reads them (`0, 8, 16, ...`) and returns the map from
//!    the new entries to the region's buffers; the run-time program then
//!    gives the kernel a table stretch of its own with those pointers
//!    (`program.rs`). It applies only when the table pointer is used by
//!    loads at constant offsets and nothing else (a kernel that passes it
//!    on, such as a sort stub, keeps the region's table), so the map lists
//!    every buffer the kernel's code can reach.
//! 2. **Identical kernels compiled once.** After renumbering, the CLIF text
//!    of a kernel is its key: the model blocks repeat (the same layer norm,
//!    projection or activation on other buffers), and a kernel whose text
//!    was seen before shares the earlier kernel's code.
//! 3. **In parallel.** Cranelift's `Context::compile` of one function is
//!    independent of every other, but `cranelift-jit`'s module is not
//!    `Sync`: the distinct functions are compiled to machine code on the
//!    thread pool (largest first, claimed one at a time), and then defined
//!    in the module one by one with their bytes and relocations
//!    (`define_function_bytes`), which is what `define_function` does after
//!    compiling.
//!
//! 4. **The CLIF text on demand.** Printing every kernel's CLIF costs
//!    about as much as building it, and only `Executable::clif_text` reads
//!    it: kernels are told apart by their function's stencil (its hash,
//!    then equality, [`Distinct`]), and the text is printed from a copy of
//!    the functions the first time it is asked for ([`ClifText`]).
//!
//! Invariant: the machine code of kernel `k` is exactly what
//! `define_function` would have made of its (renumbered) function; only
//! where it is compiled and how often changes.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, OnceLock};

use cranelift_codegen::Context;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{Function, InstructionData, Opcode};
use cranelift_codegen::isa::TargetIsa;
use cranelift_module::{FuncId, ModuleReloc};

use crate::error::{Stage, internal};
use crate::pool::pool;

/// Renumbers the buffer-table loads of `func` (a kernel, whose first
/// parameter is the table) in the order they first appear, and returns,
/// per new entry, the table entry it stood for. `None`, with `func`
/// unchanged, when the table pointer has any use other than a load at a
/// non-negative constant offset that is a multiple of 8.
pub(crate) fn canonical_table(func: &mut Function) -> Option<Vec<u32>> {
    let entry = func.layout.entry_block()?;
    let table = *func.dfg.block_params(entry).first()?;
    let mut loads = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if !func.dfg.inst_values(inst).any(|v| v == table) {
                continue;
            }
            match func.dfg.insts[inst] {
                InstructionData::Load {
                    opcode: Opcode::Load,
                    arg,
                    offset,
                    ..
                } if arg == table => {
                    let off = i32::from(offset);
                    if off < 0 || off % 8 != 0 {
                        return None;
                    }
                    loads.push((inst, (off / 8) as u32));
                }
                _ => return None,
            }
        }
    }
    let mut map: Vec<u32> = Vec::new();
    let mut index: HashMap<u32, u32> = HashMap::new();
    for &(inst, old) in &loads {
        let new = *index.entry(old).or_insert_with(|| {
            map.push(old);
            (map.len() - 1) as u32
        });
        if let InstructionData::Load { offset, .. } = &mut func.dfg.insts[inst] {
            *offset = ((new * 8) as i32).into();
        }
    }
    Some(map)
}

/// The distinct functions of a module, found by structure: two equal
/// functions (stencils: blocks, instructions, values, constants,
/// signature; and parameters: the external names their calls resolve
/// to) compile to the same machine code and print the same CLIF text, so
/// sharing code between them is what sharing it between equal texts did.
/// Hashing the stencil is a walk over its arenas; printing it was several
/// times that.
#[derive(Default)]
pub(crate) struct Distinct {
    /// Stencil hash to the distinct functions with that hash.
    by_hash: HashMap<u64, Vec<usize>>,
    hasher: std::collections::hash_map::RandomState,
}

impl Distinct {
    /// The index among `seen` of a function equal to `func`, or `None`
    /// after noting that `func` will be pushed to `seen` as a new one.
    pub(crate) fn find_or_add(&mut self, func: &Function, seen: &[Function]) -> Option<usize> {
        let bucket = self
            .by_hash
            .entry(self.hasher.hash_one(&func.stencil))
            .or_default();
        if let Some(&d) = bucket.iter().find(|&&d| seen[d] == *func) {
            return Some(d);
        }
        bucket.push(seen.len());
        None
    }
}

/// The CLIF text of a module's kernels, printed on first use: per kernel
/// a header line, followed by its function's text for the first kernel of
/// each distinct function.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClifText {
    /// Per kernel: its header, and its function when it is the first
    /// with that code (a copy taken before code generation changes it).
    kernels: Vec<(String, Option<Function>)>,
    text: OnceLock<String>,
}

impl ClifText {
    /// Adds a kernel: `func` when its code is new, `None` when it shares
    /// an earlier kernel's (the header says whose).
    pub(crate) fn push(&mut self, header: String, func: Option<Function>) {
        self.kernels.push((header, func));
    }

    /// The text, printed the first time it is asked for.
    pub(crate) fn text(&self) -> &str {
        self.text.get_or_init(|| {
            let parts: Vec<String> = self
                .kernels
                .iter()
                .map(|(header, func)| match func {
                    Some(f) => format!("{header}\n{}", f.display()),
                    None => format!("{header}\n"),
                })
                .collect();
            parts.join("\n")
        })
    }
}

/// One compiled function: its bytes, their alignment, and relocations.
pub(crate) struct Code {
    pub(crate) bytes: Vec<u8>,
    pub(crate) alignment: u64,
    pub(crate) relocs: Vec<ModuleReloc>,
}

/// Compiles `func` (declared in the module as `id`).
fn compile_one(isa: &dyn TargetIsa, func: Function, id: FuncId) -> Result<Code, String> {
    let mut ctx = Context::for_function(func);
    ctx.compile(isa, &mut ControlPlane::default())
        .map_err(|e| format!("{:?}", e.inner))?;
    let code = ctx
        .compiled_code()
        .ok_or_else(|| "no code after compiling".to_string())?;
    Ok(Code {
        bytes: code.code_buffer().to_vec(),
        alignment: u64::from(code.buffer.alignment),
        relocs: code
            .buffer
            .relocs()
            .iter()
            .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
            .collect(),
    })
}

// What the batch shares across threads is read-only: the ISA and the
// functions (each taken by one thread), checked to be `Sync` here because
// the batch crosses into the pool as a raw pointer.
const _: fn() = || {
    fn sync<T: ?Sized + Sync>() {}
    sync::<dyn TargetIsa>();
    sync::<Mutex<Option<Function>>>();
};

/// The functions of one module to compile, and their results.
struct Batch<'a> {
    isa: &'a dyn TargetIsa,
    /// Function `i`, taken by the thread that compiles it.
    funcs: Vec<Mutex<Option<Function>>>,
    ids: Vec<FuncId>,
    /// The order to compile them in (largest first).
    order: Vec<usize>,
    out: Vec<Mutex<Option<Result<Code, String>>>>,
}

impl Batch<'_> {
    /// Compiles the functions at positions `lo..hi` of the order.
    fn run(&self, lo: usize, hi: usize) {
        for &i in self.order.get(lo..hi).unwrap_or(&[]) {
            let func = self.funcs[i].lock().map(|mut f| f.take()).ok().flatten();
            let result = match func {
                Some(f) => catch_unwind(AssertUnwindSafe(|| compile_one(self.isa, f, self.ids[i])))
                    .unwrap_or_else(|_| Err("Cranelift panicked".to_string())),
                None => Err("compiled twice".to_string()),
            };
            if let Ok(mut slot) = self.out[i].lock() {
                *slot = Some(result);
            }
        }
    }
}

/// The pool's entry: `table` is a `&Batch`.
///
/// # Safety
///
/// `table` must point to a live `Batch` and `lo..hi` lie inside its order.
unsafe extern "C" fn run_chunk(table: *const *mut u8, lo: i64, hi: i64) {
    // SAFETY: `compile_all` passes its own `Batch`, which outlives the
    // pool job (`Pool::run` returns only when every chunk is done); every
    // field the threads share is `Sync` (checked above).
    let batch = unsafe { &*table.cast::<Batch<'_>>() };
    batch.run(lo as usize, hi as usize);
}

/// Compiles `funcs` (declared as `ids`) for `isa`, in parallel when the
/// pool has threads and there is more than one; the codes in order.
pub(crate) fn compile_all(
    isa: &dyn TargetIsa,
    funcs: Vec<Function>,
    ids: Vec<FuncId>,
) -> oxla_ir::Result<Vec<Code>> {
    let n = funcs.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(funcs[i].dfg.num_insts()));
    let batch = Batch {
        isa,
        funcs: funcs.into_iter().map(|f| Mutex::new(Some(f))).collect(),
        ids,
        order,
        out: (0..n).map(|_| Mutex::new(None)).collect(),
    };
    match pool() {
        Some(p) if n > 1 => p.run(run_chunk, (&raw const batch).cast::<*mut u8>(), n as i64, 1),
        _ => batch.run(0, n),
    }
    batch
        .out
        .into_iter()
        .enumerate()
        .map(|(i, slot)| {
            match slot.into_inner().ok().flatten() {
                Some(Ok(code)) => Ok(code),
                Some(Err(e)) => Err(e),
                None => Err("not compiled".to_string()),
            }
            .map_err(|e| {
                internal(
                    Stage::Codegen,
                    format!("compiling kernel function {i}: {e}"),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Signature, types};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// A kernel-shaped function that stores its second argument into the
    /// buffers at table offsets `offsets` (bytes) and, if `leak`, also
    /// computes an address from the table pointer.
    fn kernel(offsets: &[i32], leak: bool) -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        for _ in 0..3 {
            sig.params.push(AbiParam::new(types::I64));
        }
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fbc);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let (table, x) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        for &o in offsets {
            let p = b.ins().load(types::I64, MemFlagsData::new(), table, o);
            b.ins().store(MemFlagsData::new(), x, p, 0);
        }
        if leak {
            let q = b.ins().iadd_imm_s(table, 8);
            b.ins().store(MemFlagsData::new(), x, q, 0);
        }
        b.ins().return_(&[]);
        b.seal_all_blocks();
        let isa = crate::codegen::host_isa().expect("host ISA");
        b.finalize(isa.frontend_config());
        func
    }

    fn load_offsets(f: &Function) -> Vec<i32> {
        let mut out = Vec::new();
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                if let InstructionData::Load { offset, .. } = f.dfg.insts[inst] {
                    out.push(i32::from(offset));
                }
            }
        }
        out
    }

    #[test]
    fn table_loads_are_renumbered_in_first_use_order() {
        let mut f = kernel(&[24, 8, 24, 0], false);
        assert_eq!(canonical_table(&mut f), Some(vec![3, 1, 0]));
        assert_eq!(load_offsets(&f), vec![0, 8, 0, 16]);
    }

    #[test]
    fn kernels_on_other_buffers_get_one_text() {
        let mut a = kernel(&[40, 16], false);
        let mut b = kernel(&[8, 32], false);
        assert_eq!(canonical_table(&mut a), Some(vec![5, 2]));
        assert_eq!(canonical_table(&mut b), Some(vec![1, 4]));
        assert_eq!(a.display().to_string(), b.display().to_string());
        let mut c = kernel(&[8, 8], false);
        canonical_table(&mut c);
        assert_ne!(a.display().to_string(), c.display().to_string());
    }

    #[test]
    fn equal_functions_are_found_and_others_are_new() {
        let mut seen = Vec::new();
        let mut distinct = Distinct::default();
        for (offsets, expected) in [
            (&[8, 16][..], None),
            (&[8, 8][..], None),
            (&[8, 16][..], Some(0)),
            (&[8, 8][..], Some(1)),
            (&[16, 8][..], None),
        ] {
            let f = kernel(offsets, false);
            let found = distinct.find_or_add(&f, &seen);
            assert_eq!(found, expected, "{offsets:?}");
            if found.is_none() {
                seen.push(f);
            }
        }
    }

    #[test]
    fn the_clif_text_is_printed_on_demand_with_a_header_per_kernel() {
        let f = kernel(&[8], false);
        let printed = f.display().to_string();
        let mut clif = ClifText::default();
        clif.push("; kernel0: function0".to_string(), Some(f));
        clif.push("; kernel1: the code of function0".to_string(), None);
        assert_eq!(
            clif.text(),
            format!("; kernel0: function0\n{printed}\n; kernel1: the code of function0\n")
        );
    }

    #[test]
    fn a_table_pointer_used_otherwise_keeps_the_region_table() {
        for (offsets, leak) in [(&[8, 16][..], true), (&[-8][..], false), (&[12][..], false)] {
            let mut f = kernel(offsets, leak);
            let before = f.display().to_string();
            assert_eq!(canonical_table(&mut f), None, "{offsets:?} {leak}");
            assert_eq!(f.display().to_string(), before);
        }
    }
}
