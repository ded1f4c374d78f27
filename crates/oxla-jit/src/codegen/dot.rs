//! Dot kernels: `C = A x B` on canonical `[batch, m, k] x [batch, k, n]`
//! operands, the kernel's range counting output rows across batches.
//! Floats make one call into the float GEMM (`crate::gemm`) for the
//! thread's rows, 32-bit integers one call into the AVX2 blocked kernel
//! (`crate::blocked`) where the CPU has AVX2; the other integers run an
//! exact, cache- and register-blocked loop emitted here ([`emit_int_dot`]).

use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value, condcodes::IntCC, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use oxla_ir::{ElementType, Result};

use crate::entity::BufferId;
use crate::gemm;
use crate::kernel::DotKernel;

use super::elemental::imul_bytes;
use super::setup_error;
use super::{clif_type, flags, size_of, vector_type};

/// Emits a dot kernel.
pub(super) fn emit_dot(
    b: &mut FunctionBuilder,
    module: &mut JITModule,
    gemm: Option<FuncId>,
    spec: &DotKernel,
) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (table, start, end) = (p[0], p[1], p[2]);
    let ld = |b: &mut FunctionBuilder, buf: BufferId| {
        b.ins()
            .load(types::I64, flags(), table, (buf.index() * 8) as i32)
    };
    let a = ld(b, spec.lhs.buf);
    let bb = ld(b, spec.rhs.buf);
    let c = ld(b, spec.out);
    let [sa0, sa1, sa2] = spec.lhs.strides;
    let [sb0, sb1, sb2] = spec.rhs.strides;
    let ic = |b: &mut FunctionBuilder, v: i64| b.ins().iconst(types::I64, v);
    if let Some(gemm) = gemm {
        // One call for the thread's rows `start..end` (across batches):
        // the entry cuts them into batch segments (`gemm.rs`).
        let fref = module.declare_func_in_func(gemm, b.func);
        let s = &spec.sizes;
        let mut args = vec![start, end];
        for v in [s.m, s.k, s.n] {
            args.push(ic(b, v));
        }
        args.push(a);
        for v in [sa0, sa1, sa2] {
            args.push(ic(b, v));
        }
        args.push(bb);
        for v in [sb0, sb1, sb2] {
            args.push(ic(b, v));
        }
        args.push(c);
        b.ins().call(fref, &args);
        b.ins().return_(&[]);
        return;
    }
    emit_int_dot(b, spec, a, bb, c, start, end);
    b.ins().return_(&[]);
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
    spec: &DotKernel,
    a: Value,
    bb: Value,
    c: Value,
    start: Value,
    end: Value,
) {
    let size = size_of(spec.ty) as i64;
    let [sa0, sa1, _] = spec.lhs.strides;
    let [sb0, sb1, _] = spec.rhs.strides;
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
    let n_blocked = if vec_ok {
        spec.sizes.n / strip * strip
    } else {
        0
    };
    let mv = spec.sizes.m.max(1);
    // Row pointers of row `r`: (C row at column 0, A row, B at row 0).
    let row_ptrs = |b: &mut FunctionBuilder, r: Value| {
        let m = ic(b, mv);
        let bi = b.ins().sdiv(r, m);
        let ii = b.ins().srem(r, m);
        let crow = ptr_plus(b, c, r, spec.sizes.n);
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
        let kn = ic(b, spec.sizes.k);
        counted(b, zero, kn, INT_DOT_KB, &mut |b, k0| {
            let k0b = b.ins().iadd_imm_s(k0, INT_DOT_KB);
            let kn = ic(b, spec.sizes.k);
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
                    let crow0 = ptr_plus(b, c, r, spec.sizes.n);
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
    if n_blocked == spec.sizes.n {
        return;
    }
    // The plain row loop over columns n_blocked..n: zero the C row, then
    // C[r, j] += A[r, k] * B[k, j] for each k in increasing order.
    let lo = n_blocked;
    let vec_end = if vec_ok {
        lo + (spec.sizes.n - lo) / lanes * lanes
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
        if spec.sizes.n > vec_end {
            let (l, h) = (ic(b, vec_end), ic(b, spec.sizes.n));
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
        let kn = ic(b, spec.sizes.k);
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

/// The imported GEMM entry points of one module.
pub(super) struct GemmEntries {
    /// In the order of [`GemmEntries::SYMBOLS`].
    ids: Vec<FuncId>,
}

impl GemmEntries {
    /// The entry points' names and addresses, in declaration order.
    const SYMBOLS: [(&'static str, *const u8); 3] = [
        ("oxla_jit_gemm_f32", gemm::oxla_jit_gemm_f32 as *const u8),
        ("oxla_jit_gemm_f64", gemm::oxla_jit_gemm_f64 as *const u8),
        ("oxla_jit_idot_32", gemm::oxla_jit_idot_32 as *const u8),
    ];

    /// Registers the entry points on the builder (before the module is
    /// made, or they resolve through `dlsym` and fail).
    pub(super) fn register_symbols(jb: &mut JITBuilder) {
        for (name, address) in GemmEntries::SYMBOLS {
            jb.symbol(name, address);
        }
    }

    /// Declares the entry points in `module` (as imports).
    pub(super) fn declare(module: &mut JITModule) -> Result<GemmEntries> {
        let mut ids = Vec::with_capacity(GemmEntries::SYMBOLS.len());
        for (name, _) in GemmEntries::SYMBOLS {
            let mut sig = module.make_signature();
            for _ in 0..gemm::ENTRY_ARGS {
                sig.params.push(AbiParam::new(types::I64));
            }
            let id = module
                .declare_function(name, Linkage::Import, &sig)
                .map_err(|e| setup_error(format!("declaring {name}: {e}")))?;
            ids.push(id);
        }
        Ok(GemmEntries { ids })
    }

    /// The entry point for dots of `ty`: the float GEMM for `f32`/`f64`,
    /// the AVX2 blocked kernel (`blocked.rs`) for 32-bit integers on CPUs
    /// that have AVX2; the other integer and `pred` dots call none (the
    /// loop emitted here runs them).
    pub(super) fn for_type(&self, ty: ElementType) -> Option<FuncId> {
        use ElementType as E;
        let index = match ty {
            E::F32 => 0,
            E::F64 => 1,
            E::S32 | E::U32 if crate::blocked::available() => 2,
            // Sub-byte integers and narrow floats were widened
            // (`widen.rs`) and complex dots lowered to real ones
            // (`complex.rs`) before any kernel exists.
            E::S32
            | E::U32
            | E::Pred
            | E::S8
            | E::S16
            | E::S64
            | E::U8
            | E::U16
            | E::U64
            | E::S1
            | E::S2
            | E::S4
            | E::U1
            | E::U2
            | E::U4
            | E::F4E2M1FN
            | E::F8E3M4
            | E::F8E4M3
            | E::F8E4M3FN
            | E::F8E4M3FNUZ
            | E::F8E4M3B11FNUZ
            | E::F8E5M2
            | E::F8E5M2FNUZ
            | E::F8E8M0FNU
            | E::Bf16
            | E::F16
            | E::C64
            | E::C128
            | E::Tuple
            | E::Token => return None,
        };
        self.ids.get(index).copied()
    }
}
