//! The emitter of a loop kernel: the driver that walks the loop nest and
//! asks the per-op rules (`elemental.rs`), the memory accesses
//! (`memory.rs`), the reductions (`reduce.rs`) and the folds (`fold.rs`)
//! for each node's value.
//!
//! [`KernelEmitter`] holds only Cranelift state: the function builder, the
//! kernel's arguments, and caches of the values already emitted (per node,
//! per loop variable, per buffer), which it forgets when a loop ends (a
//! value of a deeper level does not dominate the next iteration). What to
//! emit where was decided before, in the [`Schedule`].

use cranelift_codegen::ir::{BlockArg, InstBuilder, MemFlagsData, Value, condcodes::IntCC, types};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_jit::JITModule;
use oxla_ir::{ElementType, Result};

use crate::entity::{BufferId, IdVec, LoopVar, NodeId};
use crate::graph::Node;
use crate::kernel::{KeptValue, LoopKernel, Reducer, Work};
use crate::math::MathLib;

use super::schedule::{NextRowTouch, PassSchedule, Schedule, VectorPlan};
use super::{Mode, bug, flags, size_of, vector_type};

/// The most invariant vectors a vector loop holds in registers (splatted
/// before the loop); past that its constants are constant-pool loads. The
/// x86-64 backend has 16 xmm registers, and the loop needs some for its
/// own values: JAX's `erfc` has 30 polynomial constants, whose splats were
/// spilled and reloaded every iteration.
const MAX_HELD_SPLATS: usize = 10;

/// The emitter of one loop kernel.
pub(super) struct KernelEmitter<'a, 'f> {
    pub(super) b: &'a mut FunctionBuilder<'f>,
    pub(super) module: &'a mut JITModule,
    pub(super) math: &'a MathLib,
    pub(super) kernel: &'a LoopKernel,
    pub(super) nodes: &'a IdVec<NodeId, Node>,
    pub(super) schedule: &'a Schedule,
    /// The kernel's arguments: the buffer table and the split loop's range.
    pub(super) table: Value,
    start: Value,
    end: Value,
    /// The value of each loop variable in the loop being emitted.
    pub(super) loop_index: IdVec<LoopVar, Option<Value>>,
    /// Each hoisted node's scalar value, once emitted at its level.
    pub(super) scalar: IdVec<NodeId, Option<Value>>,
    /// Each hoisted node splatted to a vector, in the current innermost
    /// loop.
    pub(super) splatted: IdVec<NodeId, Option<Value>>,
    /// Each innermost-loop load's row pointer (its address at index 0 of
    /// the innermost loop).
    pub(super) row_ptr: IdVec<NodeId, Option<Value>>,
    /// Each buffer's base pointer, loaded in the entry block.
    pub(super) buffer_bases: IdVec<BufferId, Option<Value>>,
    /// The pass being emitted.
    pub(super) pass: usize,
    /// The reducer's arguments while a reducer body is emitted: `Var`
    /// slots 0 and 1 (accumulator, element), or for a variadic reduce of
    /// `n` inputs the `n` accumulators then the `n` elements.
    pub(super) reducer_args: Vec<Option<Value>>,
    /// A vectorised row reduction's accumulators, one per unrolled copy.
    pub(super) vector_accumulators: Vec<Variable>,
    /// A row reduction's scalar accumulator.
    pub(super) scalar_accumulator: Option<Variable>,
    /// A variadic row reduction's other accumulators (`Work::more`).
    pub(super) more_accumulators: Vec<Variable>,
    /// A variadic column reduction's other output rows (`Work::more`).
    pub(super) more_rows: Vec<Value>,
    /// The row pointer of the output (stores and column reductions).
    pub(super) out_row: Option<Value>,
    /// The row pointers of the pass's kept values.
    pub(super) kept_rows: Vec<Value>,
    /// The row pointers of the next row's inputs this pass touches.
    pub(super) touch_rows: Vec<Value>,
    /// The constant-pool base inside a vector loop (a loop-carried copy,
    /// see `cpool` and [`KernelEmitter::vector_loop_and_tail`]).
    pub(super) const_pool_base: Option<Value>,
    /// Whether the current vector loop reads its constants from the pool
    /// (it needs more invariant vectors than [`MAX_HELD_SPLATS`]).
    pub(super) pool_constants: bool,
    /// The innermost loop's index while an element is emitted.
    pub(super) inner_index: Option<Value>,
    /// The values of the data indices (`Node::Index` nodes) the index
    /// expressions being emitted read, when they are not hoisted values of
    /// the kernel's own scope (see [`KernelEmitter::index_value`]).
    pub(super) data_values: Vec<(NodeId, Value)>,
    /// Set when an index expression read a data index with no value: a bug,
    /// reported once the kernel is emitted.
    pub(super) missing_data: bool,
    /// How many folds are being emitted around the current node (a fold's
    /// nodes are not the kernel's: their data indices are always bound).
    pub(super) fold_depth: usize,
}

impl<'a, 'f> KernelEmitter<'a, 'f> {
    /// An emitter of `kernel`, scheduled as `schedule`, into `b`: creates
    /// the entry block.
    pub(super) fn new(
        b: &'a mut FunctionBuilder<'f>,
        module: &'a mut JITModule,
        math: &'a MathLib,
        kernel: &'a LoopKernel,
        schedule: &'a Schedule,
    ) -> KernelEmitter<'a, 'f> {
        let nodes = &kernel.graph.nodes;
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let buffer_count = nodes
            .values()
            .filter_map(|n| match n {
                Node::Load { buf, .. } => Some(buf.index()),
                _ => None,
            })
            .chain(kernel.written().map(|b| b.index()))
            .max()
            .unwrap_or(0)
            + 1;
        KernelEmitter {
            b,
            module,
            math,
            kernel,
            nodes,
            schedule,
            table: params[0],
            start: params[1],
            end: params[2],
            loop_index: IdVec::filled(kernel.graph.extents.len(), None),
            scalar: IdVec::filled(nodes.len(), None),
            splatted: IdVec::filled(nodes.len(), None),
            row_ptr: IdVec::filled(nodes.len(), None),
            buffer_bases: IdVec::filled(buffer_count, None),
            pass: 0,
            reducer_args: Vec::new(),
            vector_accumulators: Vec::new(),
            scalar_accumulator: None,
            more_accumulators: Vec::new(),
            more_rows: Vec::new(),
            out_row: None,
            kept_rows: Vec::new(),
            touch_rows: Vec::new(),
            const_pool_base: None,
            pool_constants: false,
            inner_index: None,
            data_values: Vec::new(),
            missing_data: false,
            fold_depth: 0,
        }
    }

    /// What the schedule says of the current pass.
    pub(super) fn pass_schedule(&self) -> &'a PassSchedule {
        let schedule: &'a Schedule = self.schedule;
        &schedule.passes[self.pass]
    }

    /// The current pass's vector plan (`None`: scalar).
    pub(super) fn vector(&self) -> Option<&'a VectorPlan> {
        self.pass_schedule().vector.as_ref()
    }

    /// The next-row touch, if the current pass is the one that touches.
    fn touches_here(&self) -> Option<&'a NextRowTouch> {
        let schedule: &'a Schedule = self.schedule;
        schedule
            .next_row_touch
            .as_ref()
            .filter(|t| t.pass == self.pass)
    }

    /// The current pass's work.
    pub(super) fn work(&self) -> &'a Work {
        let kernel: &'a LoopKernel = self.kernel;
        &kernel.passes[self.pass].work
    }

    /// The element type the current pass stores or accumulates.
    pub(super) fn value_type(&self) -> ElementType {
        self.kernel.passes[self.pass].value_type
    }

    /// The current pass's kept values.
    pub(super) fn keeps(&self) -> &'a [KeptValue] {
        let kernel: &'a LoopKernel = self.kernel;
        &kernel.passes[self.pass].keeps
    }

    /// Emits the whole kernel: buffer bases, then the loop nest (or the
    /// passes of a row group), then the return.
    pub(super) fn emit_kernel(&mut self) -> Result<()> {
        // Every buffer base is loaded in the entry block so that it
        // dominates every use.
        let mut bufs: Vec<BufferId> = self
            .nodes
            .values()
            .filter_map(|n| match n {
                Node::Load { buf, .. } => Some(*buf),
                _ => None,
            })
            .collect();
        bufs.extend(self.kernel.written());
        bufs.sort();
        bufs.dedup();
        for b in bufs {
            self.buffer_base(b);
        }
        self.emit_hoisted(0)?;
        if self.kernel.row_loops == Some(0) {
            self.emit_passes(0)?;
        } else {
            self.begin_reduction(0)?;
            self.emit_loops(0)?;
            self.finish_reduction(0)?;
        }
        self.b.ins().return_(&[]);
        if self.missing_data {
            return Err(bug("an index expression read a data index with no value"));
        }
        Ok(())
    }

    /// A row group at depth `d` (all loops above bound): each pass in turn,
    /// with its own loops from `d` down. A pass's row-level values (those
    /// known at depth `d`) are emitted just before it, so a value a pass
    /// reads from an earlier pass's output is loaded after it was stored.
    fn emit_passes(&mut self, d: usize) -> Result<()> {
        for p in 0..self.kernel.passes.len() {
            self.pass = p;
            // Splats and row pointers are per pass (lane widths may differ).
            self.splatted.fill(None);
            self.row_ptr.fill(None);
            self.emit_hoisted(d)?;
            if self.kernel.passes[p].per_row {
                let Work::Store {
                    root,
                    out,
                    out_offset,
                } = self.work()
                else {
                    return Err(bug("a row pass that is not a store"));
                };
                let v = self.scalar[*root].ok_or_else(|| bug("row pass value not computed"))?;
                let off = self.index_value(out_offset);
                let base = self.buffer_base(*out);
                let a = self.address(base, off, size_of(self.value_type()));
                self.b.ins().store(flags(), v, a, 0);
                continue;
            }
            self.begin_reduction(d)?;
            self.emit_loops(d)?;
            self.finish_reduction(d)?;
        }
        Ok(())
    }

    /// The range of the loop at `depth`: the kernel's `start..end` for the
    /// split loop, else `0..extent`.
    pub(super) fn bounds(&mut self, depth: usize) -> (Value, Value) {
        if self.kernel.split_loop == Some(depth) {
            (self.start, self.end)
        } else {
            let v = self.kernel.loop_order[depth];
            let n = self.kernel.graph.extents[v];
            (self.int64(0), self.int64(n))
        }
    }

    /// Emits the scalar value of every node of level `l` that is not part
    /// of a per-element body.
    ///
    /// In a row group, levels from the row depth down belong to one pass:
    /// only the nodes the current pass reads are emitted there.
    fn emit_hoisted(&mut self, l: usize) -> Result<()> {
        if l == self.schedule.loop_count && self.schedule.loop_count > 0 {
            return Ok(());
        }
        let per_pass = self.kernel.row_loops.is_some_and(|r| l >= r);
        for n in self.nodes.keys() {
            if self.schedule.level[n] == l
                && self.scalar[n].is_none()
                && !self.schedule.in_reducer[n]
                && (!per_pass || self.schedule.passes[self.pass].reads[n])
            {
                let v = self.hoisted_node(Mode::Scalar, n, 0)?;
                self.scalar[n] = Some(v);
            }
        }
        Ok(())
    }

    /// A counted loop `for i in lo..hi`, body emitted by `f`; leaves the
    /// builder in the exit block.
    pub(super) fn counted_loop(
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
        let one = self.int64(1);
        let next = self.b.ins().iadd(iv, one);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, next, hi);
        self.b
            .ins()
            .brif(c, body, &[BlockArg::Value(next)], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// The loops from depth `d` inwards (each binding its variable, then
    /// emitting the values of the next level), the innermost one last.
    fn emit_loops(&mut self, d: usize) -> Result<()> {
        let depth = self.schedule.loop_count;
        if depth == 0 {
            return self.store_rank0();
        }
        if d == depth - 1 {
            return self.innermost_loop();
        }
        let (lo, hi) = self.bounds(d);
        let var = self.kernel.loop_order[d];
        let group_below = self.kernel.row_loops == Some(d + 1);
        self.counted_loop(lo, hi, &mut |em, i| {
            em.loop_index[var] = Some(i);
            if group_below {
                em.emit_passes(d + 1)?;
            } else {
                em.emit_hoisted(d + 1)?;
                em.begin_reduction(d + 1)?;
                em.emit_loops(d + 1)?;
                em.finish_reduction(d + 1)?;
            }
            // Values of deeper levels do not dominate the next iteration.
            for n in em.nodes.keys() {
                if em.schedule.level[n] > d {
                    em.scalar[n] = None;
                    em.splatted[n] = None;
                    em.row_ptr[n] = None;
                }
            }
            Ok(())
        })
    }

    /// Rank-0 Store kernels: one element, no loop.
    fn store_rank0(&mut self) -> Result<()> {
        if let Work::Store {
            root,
            out,
            out_offset,
        }
        | Work::Update {
            root,
            out,
            out_offset,
        } = self.work()
        {
            let v = self.scalar[*root].ok_or_else(|| bug("rank-0 root not computed"))?;
            let off = self.index_value(out_offset);
            let base = self.buffer_base(*out);
            let a = self.address(base, off, size_of(self.value_type()));
            self.b.ins().store(flags(), v, a, 0);
        }
        Ok(())
    }

    /// Emits a vector main loop (if `plan`) and a scalar tail over
    /// `lo..hi`; `f(mode, i, u)` emits one step (vector copy `u` at
    /// element `i + u * lanes`, or one scalar element `i`).
    pub(super) fn vector_loop_and_tail(
        &mut self,
        lo: Value,
        hi: Value,
        plan: Option<VectorPlan>,
        f: &mut dyn FnMut(&mut Self, Mode, Value, u32) -> Result<()>,
    ) -> Result<()> {
        let mut tail_lo = lo;
        if let Some(p) = &plan
            && p.whole_row
        {
            for u in 0..p.unroll {
                f(self, Mode::Vector(p.width), lo, u)?;
            }
            return Ok(());
        }
        if let Some(p) = plan {
            let lanes = 16 / p.width;
            let step = (lanes * p.unroll) as i64;
            let count = self.b.ins().isub(hi, lo);
            let mask = self.int64(-step);
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
            let base0 = self.int64(crate::cpool::base());
            let c = self.b.ins().icmp(IntCC::SignedLessThan, lo, main_end);
            self.b.ins().brif(
                c,
                body,
                &[BlockArg::Value(lo), BlockArg::Value(base0)],
                exit,
                &[],
            );
            self.b.switch_to_block(body);
            self.const_pool_base = Some(cb);
            for u in 0..p.unroll {
                f(self, Mode::Vector(p.width), iv, u)?;
            }
            self.const_pool_base = None;
            let s = self.int64(step);
            let next = self.b.ins().iadd(iv, s);
            let zero = self.int64(0);
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
        self.counted_loop(tail_lo, hi, &mut |em, i| f(em, Mode::Scalar, i, 0))
    }

    /// The innermost loop: row pointers, splats, then the vector main loop
    /// and the scalar tail.
    fn innermost_loop(&mut self) -> Result<()> {
        let depth = self.schedule.loop_count;
        let inner = self.kernel.loop_order[depth - 1];
        let (lo, hi) = self.bounds(depth - 1);
        let plan = self.vector().cloned();
        // Row pointers of loads read along the innermost loop.
        let schedule = self.pass_schedule();
        let mut varying: Vec<NodeId> = schedule.element_nodes.clone();
        varying.extend(schedule.reducer_nodes.iter().copied());
        for &n in &varying {
            if let Node::Load {
                buf,
                ty,
                offset,
                numel,
                clamp,
            } = &self.nodes[n]
                && offset.affine_coefficient(inner).is_some()
                && self.data_hoisted(offset)
            {
                let rest = offset.without_var(inner);
                let mut off = self.index_value(&rest);
                if *clamp && plan.is_some() {
                    // Keep every lane of every vector in the buffer.
                    let neg_lo = self.b.ins().ineg(lo);
                    let n = self.int64(*numel);
                    let lim = self.b.ins().isub(n, hi);
                    off = self.clamp_i64(off, neg_lo, lim);
                }
                let base = self.buffer_base(*buf);
                let p = self.address(base, off, size_of(*ty));
                self.row_ptr[n] = Some(p);
            }
        }
        // Output row pointer (an update at an offset that varies per
        // element by data, or that does not step by one element along the
        // innermost loop, computes its address per element).
        if let Work::Update { out_offset, .. } = self.work()
            && (!self.data_hoisted(out_offset) || out_offset.affine_coefficient(inner) != Some(1))
        {
            self.out_row = None;
        } else if let Work::Store {
            out, out_offset, ..
        }
        | Work::Update {
            out, out_offset, ..
        } = self.work()
        {
            let rest = out_offset.without_var(inner);
            let off = self.index_value(&rest);
            let base = self.buffer_base(*out);
            let p = self.address(base, off, size_of(self.value_type()));
            self.out_row = Some(p);
        }
        // Row pointers of the next row's inputs this pass touches.
        self.touch_rows.clear();
        if let Some(touch) = self.touches_here()
            && plan.is_some()
        {
            let row_var = self.kernel.loop_order[self.kernel.row_loops.unwrap_or(1).max(1) - 1];
            let n_inner = self.kernel.graph.extents[inner];
            for &n in &touch.loads {
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
                    let off = self.index_value(&rest);
                    let lim = self.int64((*numel - n_inner).max(0));
                    let off = self.b.ins().smin(off, lim);
                    let base = self.buffer_base(*buf);
                    let p = self.address(base, off, size_of(*ty));
                    self.touch_rows.push(p);
                }
            }
        }
        // Row pointers of the values the pass keeps for later passes.
        self.kept_rows.clear();
        for k in self.keeps() {
            let rest = k.offset.without_var(inner);
            let off = self.index_value(&rest);
            let base = self.buffer_base(k.buf);
            let p = self.address(base, off, size_of(k.ty));
            self.kept_rows.push(p);
        }
        // Splats of invariant operands.
        self.pool_constants = false;
        if let Some(p) = &plan {
            let w = p.width;
            let mut need: Vec<NodeId> = Vec::new();
            for &n in &varying {
                for o in self.nodes[n].value_operands() {
                    if self.schedule.level[o] < depth {
                        need.push(o);
                    }
                }
            }
            need.extend(self.work().roots().0);
            need.extend(self.keeps().iter().map(|k| k.node));
            need.retain(|&n| self.schedule.level[n] < depth);
            need.sort_unstable();
            need.dedup();
            // More invariant vectors than the registers can hold: the
            // constants among them become constant-pool loads at their
            // uses (`pooled_constant`), folded into memory operands,
            // instead of splats held (and spilled) across the loop.
            self.pool_constants = need.len() > MAX_HELD_SPLATS;
            for n in need {
                if self.pool_constants && self.poolable(n) {
                    continue;
                }
                if self.splatted[n].is_none() {
                    let s = self.scalar[n].ok_or_else(|| bug("invariant operand missing"))?;
                    let v = self.splat_scalar(self.nodes[n].ty(), w, s);
                    self.splatted[n] = Some(v);
                }
            }
        }
        let var = inner;
        self.vector_loop_and_tail(lo, hi, plan, &mut |em, mode, i, u| {
            em.emit_element(mode, var, i, u)
        })
    }

    /// One step of the innermost loop.
    fn emit_element(&mut self, mode: Mode, var: LoopVar, i: Value, u: u32) -> Result<()> {
        self.loop_index[var] = Some(i);
        self.inner_index = Some(i);
        let mut vals: IdVec<NodeId, Option<Value>> = IdVec::filled(self.nodes.len(), None);
        for &n in &self.pass_schedule().element_nodes {
            let v = self.element_node(mode, n, u, &vals)?;
            vals[n] = Some(v);
        }
        if let (Mode::Vector(w), Some(touch)) = (mode, self.touches_here()) {
            for k in 0..self.touch_rows.len() {
                let n = touch.loads[k];
                let size = size_of(self.nodes[n].ty());
                let a = self.address(self.touch_rows[k], i, size);
                let off = (u * (16 / w) * size) as i32;
                self.b.ins().load(types::I32, flags(), a, off);
            }
        }
        let ty = self.value_type();
        for (k, keep) in self.keeps().iter().enumerate() {
            let v = self.value_of(mode, keep.node, &vals)?;
            let row = self.kept_rows[k];
            self.store_at(mode, keep.ty, row, i, u, v);
        }
        match self.work().clone() {
            Work::Store { root, .. } => {
                let v = self.value_of(mode, root, &vals)?;
                let row = self.out_row.ok_or_else(|| bug("output row missing"))?;
                self.store_at(mode, ty, row, i, u, v);
            }
            Work::Update {
                root,
                out,
                out_offset,
            } => {
                let v = self.value_of(mode, root, &vals)?;
                match self.out_row {
                    Some(row) => self.store_at(mode, ty, row, i, u, v),
                    None => {
                        // The offset's data indices are computed per element.
                        let mut data = Vec::new();
                        out_offset.data_nodes(&mut data);
                        self.data_values.clear();
                        for n in data {
                            let dv = self.value_of(Mode::Scalar, n, &vals)?;
                            self.data_values.push((n, dv));
                        }
                        let off = self.index_value(&out_offset);
                        self.data_values.clear();
                        let base = self.buffer_base(out);
                        let a = self.address(base, off, size_of(ty));
                        self.b.ins().store(flags(), v, a, 0);
                    }
                }
            }
            Work::RowReduce {
                element: x,
                reducer,
                more,
                ..
            } => {
                let xv = self.value_of(mode, x, &vals)?;
                match (mode, reducer) {
                    (Mode::Vector(w), Reducer::Op(op)) => {
                        let var = self.vector_accumulators[u as usize];
                        let acc = self.b.use_var(var);
                        let r = self.binary(Mode::Vector(w), op, ty, acc, xv, None)?;
                        self.b.def_var(var, r);
                    }
                    (_, reducer) => {
                        let var = self
                            .scalar_accumulator
                            .ok_or_else(|| bug("row accumulator missing"))?;
                        let mut vars = vec![var];
                        vars.extend(self.more_accumulators.iter().copied());
                        let mut accs = Vec::with_capacity(vars.len());
                        let mut xs = vec![xv];
                        for &v in &vars {
                            accs.push(self.b.use_var(v));
                        }
                        for a in &more {
                            xs.push(self.value_of(mode, a.element, &vals)?);
                        }
                        let rs = self.apply_reducer(
                            Mode::Scalar,
                            &reducer,
                            &more,
                            &accs,
                            &xs,
                            u,
                            &mut vals,
                        )?;
                        for (&v, r) in vars.iter().zip(rs) {
                            self.b.def_var(v, r);
                        }
                    }
                }
            }
            Work::ColumnReduce {
                element: x,
                reducer,
                more,
                ..
            } => {
                let row = self.out_row.ok_or_else(|| bug("output row missing"))?;
                let mut rows = vec![(row, ty)];
                rows.extend(self.more_rows.iter().zip(&more).map(|(&r, a)| (r, a.ty)));
                let mut xs = vec![self.value_of(mode, x, &vals)?];
                for a in &more {
                    xs.push(self.value_of(mode, a.element, &vals)?);
                }
                let accs: Vec<Value> = rows
                    .iter()
                    .map(|&(r, t)| self.load_at(mode, t, r, i, u))
                    .collect();
                let rs = self.apply_reducer(mode, &reducer, &more, &accs, &xs, u, &mut vals)?;
                for (&(r, t), v) in rows.iter().zip(rs) {
                    self.store_at(mode, t, r, i, u, v);
                }
            }
        }
        Ok(())
    }

    /// The value of node `n` in `mode` inside a body (`vals` holds the
    /// body's nodes computed so far).
    pub(super) fn value_of(
        &mut self,
        mode: Mode,
        n: NodeId,
        vals: &IdVec<NodeId, Option<Value>>,
    ) -> Result<Value> {
        if let Some(v) = vals[n] {
            return Ok(v);
        }
        match mode {
            Mode::Scalar => self.scalar[n].ok_or_else(|| bug(format!("node {n} not computed"))),
            Mode::Vector(w) => {
                if let Some(v) = self.splatted[n] {
                    return Ok(v);
                }
                if let Some(v) = self.pooled_constant(w, n) {
                    return Ok(v);
                }
                let s = self.scalar[n].ok_or_else(|| bug(format!("node {n} not computed")))?;
                let v = self.splat_scalar(self.nodes[n].ty(), w, s);
                Ok(v)
            }
        }
    }

    /// Whether `n` is a constant the vector loop may read from the
    /// constant pool: any but a `pred` (a lane mask of the loop's width).
    fn poolable(&self, n: NodeId) -> bool {
        matches!(self.nodes[n], Node::Const { ty, .. } if !ty.is_pred())
    }

    /// Constant `n` as `w`-byte lanes loaded from the constant pool at its
    /// use, inside a vector loop that carries the pool's base (see `cpool`
    /// and [`KernelEmitter::vector_loop_and_tail`]); `None` elsewhere, for
    /// other nodes, or when the pool is full.
    fn pooled_constant(&mut self, w: u32, n: NodeId) -> Option<Value> {
        if !self.pool_constants {
            return None;
        }
        let base = self.const_pool_base?;
        let Node::Const { ty, bits } = self.nodes[n] else {
            return None;
        };
        if ty.is_pred() {
            return None;
        }
        let off = crate::cpool::offset_of(crate::cpool::splat_bits(bits, w * 8))?;
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_aligned()
            .with_readonly()
            .with_can_move();
        Some(self.b.ins().load(vector_type(ty, w), flags, base, off))
    }

    /// The value of per-element node `n` (operands from `vals`, or hoisted
    /// and splatted).
    pub(super) fn element_node(
        &mut self,
        mode: Mode,
        n: NodeId,
        u: u32,
        vals: &IdVec<NodeId, Option<Value>>,
    ) -> Result<Value> {
        // Data indices are scalars (a vectorised load reads one per row).
        let values = self.nodes[n].value_operands().len();
        let ops: Vec<Value> = self.nodes[n]
            .operands()
            .into_iter()
            .enumerate()
            .map(|(k, o)| {
                let m = if k < values { mode } else { Mode::Scalar };
                self.value_of(m, o, vals)
            })
            .collect::<Result<_>>()?;
        self.emit_node(mode, n, u, &ops)
    }

    /// A hoisted node (operands in `scalar`).
    pub(super) fn hoisted_node(&mut self, mode: Mode, n: NodeId, u: u32) -> Result<Value> {
        let ops: Vec<Value> = self.nodes[n]
            .operands()
            .into_iter()
            .map(|o| self.scalar[o].ok_or_else(|| bug(format!("operand {o} of node {n} missing"))))
            .collect::<Result<_>>()?;
        self.emit_node(mode, n, u, &ops)
    }

    /// Node `n` in `mode` (vector copy `u`) from its operands' values:
    /// the per-op rules (`elemental.rs`), loads and iotas (`memory.rs`),
    /// reducer arguments and folds (`fold.rs`).
    fn emit_node(&mut self, mode: Mode, n: NodeId, u: u32, ops: &[Value]) -> Result<Value> {
        let node = self.nodes[n].clone();
        self.bind_data(&node, ops);
        let v = self.emit_bound_node(mode, n, &node, u, ops);
        self.data_values.clear();
        v
    }

    /// [`KernelEmitter::emit_node`] once its data indices are bound.
    fn emit_bound_node(
        &mut self,
        mode: Mode,
        n: NodeId,
        node: &Node,
        u: u32,
        ops: &[Value],
    ) -> Result<Value> {
        let node = node.clone();
        let amount = match (mode, &node) {
            (Mode::Vector(_), Node::Binary { b, .. }) => self.scalar[*b],
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
            } => self.load_node(mode, n, u, buf, ty, &offset, numel, clamp),
            Node::Iota { ty, index } => self.iota(mode, u, ty, &index)?,
            Node::Var { slot, .. } => self
                .reducer_args
                .get(slot as usize)
                .copied()
                .flatten()
                .ok_or_else(|| bug("reducer variable unbound"))?,
            Node::Fold { fold, .. } => match mode {
                Mode::Scalar => self.emit_fold(fold, ops[0], &ops[1..])?,
                Mode::Vector(_) => return Err(bug("a fold in a vector loop")),
            },
            Node::Capture { .. } => return Err(bug("a fold's capture read outside its fold")),
            other => return Err(bug(format!("node {other:?} has no emitter"))),
        })
    }
}
