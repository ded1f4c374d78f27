//! Sort kernels: stubs into the run-time sorts, and the merge sort with
//! the comparator compiled inline.
//!
//! A sort by keys or a top-k is a *stub*: it writes its descriptor (rows,
//! buffers, key encodings; `sortlib::sort_descriptor`) into a stack slot
//! and calls `oxla_jit_sort_rows` or `oxla_jit_topk_rows` with the buffer
//! table and its range of rows. The keys themselves were computed by the
//! step's key kernels, ordinary loop kernels (vectorised like any other).
//!
//! Any other comparator is compiled into the kernel: per row, a bottom-up
//! merge sort of the row's indices in two index arrays of the scratch
//! buffer, exactly the interpreter's algorithm (`oxla_interp`'s
//! `merge_sort`: runs of width 1, 2, 4, ...; the right element is taken
//! only when the comparator says it goes strictly before the left one), so
//! the kernel makes the same comparator calls on the same pairs and ends
//! with the same permutation, whatever the comparator (a strict weak order
//! or not). Each call evaluates the comparator's expression graph in place
//! (`a_k` and `b_k` are loads of operand `k` at the two elements'
//! positions). Then every operand with a result is gathered through the
//! permutation (each index clamped into the row, so even a broken
//! permutation could not read outside it).

use cranelift_codegen::ir::{
    AbiParam, InstBuilder, StackSlotData, StackSlotKind, Value, condcodes::IntCC, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITBuilder;
use cranelift_module::{Linkage, Module};
use oxla_ir::{ElementType, Result};

use crate::entity::{BufferId, IdVec, NodeId};
use crate::graph::{Node, reachable};
use crate::kernel::{InlineComparator, SortKernel, SortOrder};
use crate::sortlib::{self, Encoding, KeyWords};

use super::loops::KernelEmitter;
use super::schedule::Schedule;
use super::{Jit, Mode, bug, clif_type, flags, setup_error, size_of};

/// The run-time entry points, by name.
const SORT_ROWS: &str = "oxla_jit_sort_rows";
const TOPK_ROWS: &str = "oxla_jit_topk_rows";

/// Registers the run-time sort entry points on the builder.
pub(super) fn register_symbols(jb: &mut JITBuilder) {
    jb.symbol(SORT_ROWS, sortlib::oxla_jit_sort_rows as *const u8);
    jb.symbol(TOPK_ROWS, sortlib::oxla_jit_topk_rows as *const u8);
}

/// How the run-time routines read keys of `ty`.
fn encoding(ty: ElementType) -> Encoding {
    match ty {
        ElementType::F32 | ElementType::F64 => Encoding::Float,
        ElementType::S8 | ElementType::S16 | ElementType::S32 | ElementType::S64 => {
            Encoding::Signed
        }
        ElementType::Pred
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::Tuple
        | ElementType::Token => Encoding::Unsigned,
        // Never reached: unsupported.rs refuses the types of issue 13
        // before compiling, and `fusion::sort` makes no key sort of them.
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
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::C64
        | ElementType::C128 => Encoding::Unsigned,
    }
}

impl Jit {
    /// Compiles a sort kernel; returns its index and its line of the
    /// fusion text.
    pub(crate) fn sort_kernel(&mut self, kernel: &SortKernel) -> Result<(usize, String)> {
        self.begin();
        let rows = kernel.rows;
        let bytes = |ty: ElementType| size_of(ty);
        let text = match &kernel.order {
            SortOrder::Keys(keys) => {
                let words = sortlib::sort_descriptor(
                    rows,
                    &keys
                        .iter()
                        .map(|k| KeyWords {
                            buf: k.buf.index(),
                            bytes: bytes(k.ty),
                            encoding: encoding(k.ty),
                            descending: k.descending,
                        })
                        .collect::<Vec<_>>(),
                    &kernel
                        .inputs
                        .iter()
                        .zip(&kernel.outputs)
                        .map(|(&(i, ty), o)| (i.index(), o.map(|o| o.index()), bytes(ty)))
                        .collect::<Vec<_>>(),
                );
                self.emit_stub(SORT_ROWS, &words)?;
                format!(
                    "rows={} length={} stride={}: stable sort by {} key(s) (oxla_jit_sort_rows)",
                    rows.count,
                    rows.length,
                    rows.stride,
                    keys.len()
                )
            }
            SortOrder::TopK { k, largest } => {
                let &(input, ty) = kernel
                    .inputs
                    .first()
                    .ok_or_else(|| bug("a top-k without an operand"))?;
                let out = |j: usize| kernel.outputs.get(j).copied().flatten().map(|b| b.index());
                let words = sortlib::topk_descriptor(
                    rows.count,
                    rows.length,
                    *k,
                    bytes(ty),
                    encoding(ty),
                    *largest,
                    input.index(),
                    out(0),
                    out(1),
                );
                self.emit_stub(TOPK_ROWS, &words)?;
                format!(
                    "rows={} length={}: top {k} by selection (oxla_jit_topk_rows)",
                    rows.count, rows.length
                )
            }
            SortOrder::Comparator(c) => {
                let schedule = Schedule::new(&c.kernel);
                {
                    let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
                    let mut em = KernelEmitter::new(
                        &mut b,
                        &mut self.module,
                        &self.math,
                        &c.kernel,
                        &schedule,
                    );
                    em.emit_merge_sort(kernel, c)?;
                    b.seal_all_blocks();
                    b.finalize(self.module.target_config());
                }
                format!(
                    "rows={} length={} stride={}: merge sort, comparator inline ({} nodes, {} indices)",
                    rows.count,
                    rows.length,
                    rows.stride,
                    reachable(&c.kernel.graph.nodes, &[c.root]).len(),
                    c.index_type
                )
            }
        };
        Ok((self.finish()?, text))
    }

    /// A kernel that writes `words` into a stack slot and calls the
    /// run-time routine `name(table, start, end, words, len)`.
    fn emit_stub(&mut self, name: &str, words: &[i64]) -> Result<()> {
        let ptr = self.module.target_config().pointer_type();
        let mut sig = self.module.make_signature();
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(types::I64));
        let id = self
            .module
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| setup_error(format!("declaring {name}: {e}")))?;
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.block_params(entry).to_vec();
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (words.len().max(1) * 8) as u32,
            3,
        ));
        for (i, &w) in words.iter().enumerate() {
            let v = b.ins().iconst(types::I64, w);
            b.ins().stack_store(ptr, v, slot, (i * 8) as i32);
        }
        let addr = b.ins().stack_addr(ptr, slot, 0);
        let len = b.ins().iconst(types::I64, words.len() as i64);
        let f = self.module.declare_func_in_func(id, b.func);
        b.ins().call(f, &[p[0], p[1], p[2], addr, len]);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(self.module.target_config());
        Ok(())
    }
}

impl KernelEmitter<'_, '_> {
    /// The merge sort of rows `start..end` (see the module docs).
    fn emit_merge_sort(&mut self, sk: &SortKernel, c: &InlineComparator) -> Result<()> {
        // Every base pointer in the entry block, so it dominates its uses.
        let mut bufs: Vec<BufferId> = sk.inputs.iter().map(|i| i.0).collect();
        bufs.extend(sk.outputs.iter().flatten());
        bufs.push(c.scratch);
        bufs.extend(c.kernel.graph.nodes.values().filter_map(|n| match n {
            Node::Load { buf, .. } => Some(*buf),
            _ => None,
        }));
        let most = bufs.iter().map(|b| b.index() + 1).max().unwrap_or(0);
        self.buffer_bases.grow_to(most, None);
        for &b in &bufs {
            self.buffer_base(b);
        }
        let order = reachable(&c.kernel.graph.nodes, &[c.root]);
        let moves: Vec<(BufferId, BufferId, ElementType)> = sk
            .inputs
            .iter()
            .zip(&sk.outputs)
            .filter_map(|(&(i, ty), o)| o.map(|o| (i, o, ty)))
            .collect();
        let (start, end) = self.bounds(0);
        self.counted_loop(start, end, &mut |em, r| {
            em.sort_row(sk, c, &order, &moves, r)
        })?;
        self.b.ins().return_(&[]);
        Ok(())
    }

    /// `base + index * bytes`.
    fn element_address(&mut self, base: Value, index: Value, bytes: i64) -> Value {
        let off = if bytes == 1 {
            index
        } else {
            self.b.ins().imul_imm_s(index, bytes)
        };
        self.b.ins().iadd(base, off)
    }

    /// The comparator on the elements at positions `pa` (its `a` side)
    /// and `pb`: a `pred` (`i8` 0 or 1).
    fn comparator_at(
        &mut self,
        c: &InlineComparator,
        order: &[NodeId],
        pa: Value,
        pb: Value,
    ) -> Result<Value> {
        self.loop_index[c.a] = Some(pa);
        self.loop_index[c.b] = Some(pb);
        let mut vals: IdVec<NodeId, Option<Value>> = IdVec::filled(self.nodes.len(), None);
        for &n in order {
            let v = self.element_node(Mode::Scalar, n, 0, &vals)?;
            vals[n] = Some(v);
        }
        vals[c.root].ok_or_else(|| bug("the comparator's root was not computed"))
    }

    /// One row `r`: the index arrays, the merge passes, the gathers.
    fn sort_row(
        &mut self,
        sk: &SortKernel,
        c: &InlineComparator,
        order: &[NodeId],
        moves: &[(BufferId, BufferId, ElementType)],
        r: Value,
    ) -> Result<()> {
        let rows = sk.rows;
        let (len, stride) = (rows.length, rows.stride);
        let it = clif_type(c.index_type);
        let isz = i64::from(it.bytes());
        let lenv = self.int64(len);
        // The row's first element: (r / stride) * length * stride + r % stride.
        let base = if stride == 1 {
            self.b.ins().imul_imm_s(r, len)
        } else {
            let q = self.b.ins().sdiv_imm_s(r, stride);
            let m = self.b.ins().srem_imm_s(r, stride);
            let q = self.b.ins().imul_imm_s(q, len * stride);
            self.b.ins().iadd(q, m)
        };
        let scratch = self.buffer_base(c.scratch);
        let row_off = self.b.ins().imul_imm_s(r, 2 * len * isz);
        let ord = self.b.ins().iadd(scratch, row_off);
        let tmp = self.b.ins().iadd_imm_s(ord, len * isz);
        let narrow = |em: &mut Self, v: Value| {
            if it == types::I64 {
                v
            } else {
                em.b.ins().ireduce(it, v)
            }
        };
        let widen = |em: &mut Self, v: Value| {
            if it == types::I64 {
                v
            } else {
                em.b.ins().uextend(types::I64, v)
            }
        };
        // order[k] = k.
        let zero = self.int64(0);
        self.counted_loop(zero, lenv, &mut |em, k| {
            let kv = narrow(em, k);
            let a = em.element_address(ord, k, isz);
            em.b.ins().store(flags(), kv, a, 0);
            Ok(())
        })?;
        let final_order = if len > 1 {
            let width = self.b.declare_var(types::I64);
            let src = self.b.declare_var(types::I64);
            let dst = self.b.declare_var(types::I64);
            let lo = self.b.declare_var(types::I64);
            let (i, j, s) = (
                self.b.declare_var(types::I64),
                self.b.declare_var(types::I64),
                self.b.declare_var(types::I64),
            );
            let one = self.int64(1);
            self.b.def_var(width, one);
            self.b.def_var(src, ord);
            self.b.def_var(dst, tmp);
            let pass_head = self.b.create_block();
            let pass_body = self.b.create_block();
            let done = self.b.create_block();
            let lo_head = self.b.create_block();
            let lo_body = self.b.create_block();
            let pass_end = self.b.create_block();
            let m_head = self.b.create_block();
            let m_both = self.b.create_block();
            let m_body = self.b.create_block();
            let right = self.b.create_block();
            let left = self.b.create_block();
            let m_next = self.b.create_block();
            let t1_head = self.b.create_block();
            let t1_body = self.b.create_block();
            let t2_head = self.b.create_block();
            let t2_body = self.b.create_block();
            let lo_next = self.b.create_block();
            self.b.ins().jump(pass_head, &[]);
            // while width < length
            self.b.switch_to_block(pass_head);
            let w = self.b.use_var(width);
            let more = self.b.ins().icmp(IntCC::SignedLessThan, w, lenv);
            self.b.ins().brif(more, pass_body, &[], done, &[]);
            self.b.switch_to_block(pass_body);
            let z = self.int64(0);
            self.b.def_var(lo, z);
            self.b.ins().jump(lo_head, &[]);
            // for lo in (0..length).step_by(2 * width)
            self.b.switch_to_block(lo_head);
            let lov = self.b.use_var(lo);
            let more = self.b.ins().icmp(IntCC::SignedLessThan, lov, lenv);
            self.b.ins().brif(more, lo_body, &[], pass_end, &[]);
            self.b.switch_to_block(lo_body);
            let w = self.b.use_var(width);
            let lov = self.b.use_var(lo);
            let mid = self.b.ins().iadd(lov, w);
            let mid = self.b.ins().smin(mid, lenv);
            let hi = self.b.ins().iadd(mid, w);
            let hi = self.b.ins().smin(hi, lenv);
            self.b.def_var(i, lov);
            self.b.def_var(j, mid);
            self.b.def_var(s, lov);
            self.b.ins().jump(m_head, &[]);
            // Both runs non-empty: compare.
            self.b.switch_to_block(m_head);
            let iv = self.b.use_var(i);
            let left_more = self.b.ins().icmp(IntCC::SignedLessThan, iv, mid);
            self.b.ins().brif(left_more, m_both, &[], t1_head, &[]);
            self.b.switch_to_block(m_both);
            let jv = self.b.use_var(j);
            let right_more = self.b.ins().icmp(IntCC::SignedLessThan, jv, hi);
            self.b.ins().brif(right_more, m_body, &[], t1_head, &[]);
            self.b.switch_to_block(m_body);
            let srcv = self.b.use_var(src);
            let iv = self.b.use_var(i);
            let jv = self.b.use_var(j);
            let ai_addr = self.element_address(srcv, iv, isz);
            let ai = self.b.ins().load(it, flags(), ai_addr, 0);
            let bj_addr = self.element_address(srcv, jv, isz);
            let bj = self.b.ins().load(it, flags(), bj_addr, 0);
            // before(order[j], order[i]): the right element is `a`.
            let bj64 = widen(self, bj);
            let ai64 = widen(self, ai);
            let pa = self.b.ins().imul_imm_s(bj64, stride);
            let pa = self.b.ins().iadd(base, pa);
            let pb = self.b.ins().imul_imm_s(ai64, stride);
            let pb = self.b.ins().iadd(base, pb);
            let before = self.comparator_at(c, order, pa, pb)?;
            self.b.ins().brif(before, right, &[], left, &[]);
            self.b.switch_to_block(right);
            let dstv = self.b.use_var(dst);
            let sv = self.b.use_var(s);
            let a = self.element_address(dstv, sv, isz);
            self.b.ins().store(flags(), bj, a, 0);
            let jv = self.b.use_var(j);
            let jn = self.b.ins().iadd_imm_s(jv, 1);
            self.b.def_var(j, jn);
            self.b.ins().jump(m_next, &[]);
            self.b.switch_to_block(left);
            let dstv = self.b.use_var(dst);
            let sv = self.b.use_var(s);
            let a = self.element_address(dstv, sv, isz);
            self.b.ins().store(flags(), ai, a, 0);
            let iv = self.b.use_var(i);
            let inx = self.b.ins().iadd_imm_s(iv, 1);
            self.b.def_var(i, inx);
            self.b.ins().jump(m_next, &[]);
            self.b.switch_to_block(m_next);
            let sv = self.b.use_var(s);
            let sn = self.b.ins().iadd_imm_s(sv, 1);
            self.b.def_var(s, sn);
            self.b.ins().jump(m_head, &[]);
            // The rest of the left run, then of the right run.
            for (head, body, next, var, until) in [
                (t1_head, t1_body, t2_head, i, mid),
                (t2_head, t2_body, lo_next, j, hi),
            ] {
                self.b.switch_to_block(head);
                let v = self.b.use_var(var);
                let more = self.b.ins().icmp(IntCC::SignedLessThan, v, until);
                self.b.ins().brif(more, body, &[], next, &[]);
                self.b.switch_to_block(body);
                let srcv = self.b.use_var(src);
                let dstv = self.b.use_var(dst);
                let v = self.b.use_var(var);
                let sv = self.b.use_var(s);
                let from = self.element_address(srcv, v, isz);
                let x = self.b.ins().load(it, flags(), from, 0);
                let to = self.element_address(dstv, sv, isz);
                self.b.ins().store(flags(), x, to, 0);
                let vn = self.b.ins().iadd_imm_s(v, 1);
                self.b.def_var(var, vn);
                let sn = self.b.ins().iadd_imm_s(sv, 1);
                self.b.def_var(s, sn);
                self.b.ins().jump(head, &[]);
            }
            self.b.switch_to_block(lo_next);
            self.b.def_var(lo, hi);
            self.b.ins().jump(lo_head, &[]);
            // Swap the arrays, double the width.
            self.b.switch_to_block(pass_end);
            let sv = self.b.use_var(src);
            let dv = self.b.use_var(dst);
            self.b.def_var(src, dv);
            self.b.def_var(dst, sv);
            let w = self.b.use_var(width);
            let w2 = self.b.ins().ishl_imm_s(w, 1);
            self.b.def_var(width, w2);
            self.b.ins().jump(pass_head, &[]);
            self.b.switch_to_block(done);
            self.b.use_var(src)
        } else {
            ord
        };
        // out[base + p * stride] = in[base + order[p] * stride].
        let last = self.int64(len - 1);
        let zero = self.int64(0);
        let bases: Vec<(Value, Value, ElementType)> = moves
            .iter()
            .map(|&(i, o, ty)| (self.buffer_base(i), self.buffer_base(o), ty))
            .collect();
        self.counted_loop(zero, lenv, &mut |em, p| {
            let a = em.element_address(final_order, p, isz);
            let k = em.b.ins().load(it, flags(), a, 0);
            let k = widen(em, k);
            let k = em.b.ins().umin(k, last);
            let from = em.b.ins().imul_imm_s(k, stride);
            let from = em.b.ins().iadd(base, from);
            let to = em.b.ins().imul_imm_s(p, stride);
            let to = em.b.ins().iadd(base, to);
            for &(ib, ob, ty) in &bases {
                let size = i64::from(size_of(ty));
                let fa = em.element_address(ib, from, size);
                let v = em.b.ins().load(clif_type(ty), flags(), fa, 0);
                let ta = em.element_address(ob, to, size);
                em.b.ins().store(flags(), v, ta, 0);
            }
            Ok(())
        })?;
        Ok(())
    }
}
