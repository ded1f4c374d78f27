//! Reductions: the accumulators of a pass whose work is a row or column
//! reduction.
//!
//! A row reduction (reduced loops innermost) keeps its accumulator in a
//! variable: scalar in the interpreter's order, or, for a commutative op
//! whose loop is vectorised, `lanes × unroll` partial accumulators started
//! from the op's identity and combined (with `init`) when the row ends. A
//! column reduction (the output's last dimension innermost) fills its
//! output row with `init` and folds each reduced step's row of elements
//! into it, in order.

use cranelift_codegen::ir::{InstBuilder, Value, condcodes::IntCC};
use oxla_ir::{BinaryOp, ElementType, Result};

use crate::entity::{BufferId, IdVec, NodeId};
use crate::ix::Ix;
use crate::kernel::{Acc, Reducer, Work};

use super::loops::KernelEmitter;
use super::{Mode, bug, clif_type, flags, int_type, size_of, vector_type, width_mask};

impl KernelEmitter<'_, '_> {
    /// The current pass's reduction, if its work is one.
    fn reduction(&self) -> Option<(NodeId, ElementType, Reducer, BufferId, Ix, usize)> {
        match self.work() {
            Work::RowReduce {
                init,
                reducer,
                out,
                out_offset,
                first_reduced,
                ..
            }
            | Work::ColumnReduce {
                init,
                reducer,
                out,
                out_offset,
                first_reduced,
                ..
            } => Some((
                *init,
                self.value_type(),
                reducer.clone(),
                *out,
                out_offset.clone(),
                *first_reduced,
            )),
            Work::Store { .. } | Work::Update { .. } => None,
        }
    }

    /// Whether the current pass is a row reduction that keeps vector
    /// accumulators.
    fn row_reduce_is_vectorised(&self) -> bool {
        matches!(
            (self.work(), self.vector()),
            (
                Work::RowReduce {
                    reducer: Reducer::Op(_),
                    ..
                },
                Some(_)
            )
        )
    }

    /// The identity of `op` on `et`, as bits: what each vector accumulator
    /// starts from (the reduction's `init` is combined once, at the end).
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
            // Not commutative-associative: a `Reducer::Op` never holds
            // these (lowering keeps them as a `Reducer::Body`).
            (
                BinaryOp::Sub
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::Pow
                | BinaryOp::Atan2
                | BinaryOp::ShiftLeft
                | BinaryOp::ShiftRightArithmetic
                | BinaryOp::ShiftRightLogical
                | BinaryOp::Compare(..),
                _,
            ) => 0,
        }
    }

    /// Before the loop at depth `d`: when the current pass's reduced loops
    /// start there, a row reduction's accumulators start (from `init`, or
    /// from the op's identity when vectorised), and a column reduction's
    /// output row is filled with `init`.
    pub(super) fn begin_reduction(&mut self, d: usize) -> Result<()> {
        let Some((init, ty, reducer, out, out_offset, first)) = self.reduction() else {
            return Ok(());
        };
        if d != first {
            return Ok(());
        }
        match self.work() {
            Work::RowReduce { .. } => {
                let init_v = self.scalar[init].ok_or_else(|| bug("reduce init not computed"))?;
                let acc = self.b.declare_var(clif_type(ty));
                if let (true, Reducer::Op(op), Some(plan)) =
                    (self.row_reduce_is_vectorised(), &reducer, self.vector())
                {
                    let id = Self::identity_bits(*op, ty);
                    let idv = self.constant(Mode::Scalar, ty, id);
                    self.b.def_var(acc, idv);
                    self.vector_accumulators.clear();
                    for _ in 0..plan.unroll {
                        let v = self.b.declare_var(vector_type(ty, plan.width));
                        let k = self.constant(Mode::Vector(plan.width), ty, id);
                        self.b.def_var(v, k);
                        self.vector_accumulators.push(v);
                    }
                } else {
                    self.b.def_var(acc, init_v);
                }
                self.scalar_accumulator = Some(acc);
                self.more_accumulators.clear();
                for a in self.work().more() {
                    let v = self.b.declare_var(clif_type(a.ty));
                    let init_v =
                        self.scalar[a.init].ok_or_else(|| bug("reduce init not computed"))?;
                    self.b.def_var(v, init_v);
                    self.more_accumulators.push(v);
                }
            }
            Work::ColumnReduce { .. } => {
                // Row pointer of the output, then fill it with `init`.
                let inner = self.kernel.loop_order[self.schedule.loop_count - 1];
                let base = self.buffer_base(out);
                let off_ix = out_offset.without_var(inner);
                let off = self.index_value(&off_ix);
                let row = self.address(base, off, size_of(ty));
                self.out_row = Some(row);
                let (lo, hi) = self.bounds(self.schedule.loop_count - 1);
                let init_v = self.scalar[init].ok_or_else(|| bug("reduce init not computed"))?;
                let mut fills = vec![(row, ty, init_v)];
                self.more_rows.clear();
                for a in self.work().more() {
                    let base = self.buffer_base(a.out);
                    let r = self.address(base, off, size_of(a.ty));
                    let v = self.scalar[a.init].ok_or_else(|| bug("reduce init not computed"))?;
                    self.more_rows.push(r);
                    fills.push((r, a.ty, v));
                }
                let plan = self.vector().cloned();
                self.vector_loop_and_tail(lo, hi, plan, &mut |em, mode, i, u| {
                    for &(row, ty, init_v) in &fills {
                        let v = match mode {
                            Mode::Scalar => init_v,
                            Mode::Vector(w) => em.splat_scalar(ty, w, init_v),
                        };
                        em.store_at(mode, ty, row, i, u, v);
                    }
                    Ok(())
                })?;
            }
            Work::Store { .. } | Work::Update { .. } => {}
        }
        Ok(())
    }

    /// After the loop at depth `d`: when the current pass's reduced loops
    /// started there, a row reduction combines its accumulators (vector
    /// lanes, then `init`) and stores the result.
    pub(super) fn finish_reduction(&mut self, d: usize) -> Result<()> {
        let Some((init, ty, reducer, out, out_offset, first)) = self.reduction() else {
            return Ok(());
        };
        if d != first {
            return Ok(());
        }
        if let Work::RowReduce { .. } = self.work() {
            let acc = self
                .scalar_accumulator
                .ok_or_else(|| bug("row accumulator missing"))?;
            let mut total = self.b.use_var(acc);
            if let (true, Reducer::Op(op)) = (self.row_reduce_is_vectorised(), &reducer) {
                let vs: Vec<Value> = self
                    .vector_accumulators
                    .clone()
                    .into_iter()
                    .map(|v| self.b.use_var(v))
                    .collect();
                let w = self.vector().map_or(4, |p| p.width);
                let mut v = vs[0];
                for &o in &vs[1..] {
                    v = self.binary(Mode::Vector(w), *op, ty, v, o, None)?;
                }
                let lanes = 16 / w;
                for l in 0..lanes {
                    let mut s = self.b.ins().extractlane(v, l as u8);
                    if ty.is_pred() {
                        let z = self.b.ins().iconst(int_type(w), 0);
                        s = self.b.ins().icmp(IntCC::NotEqual, s, z);
                    }
                    total = self.binary(Mode::Scalar, *op, ty, total, s, None)?;
                }
                let init_v = self.scalar[init].ok_or_else(|| bug("reduce init not computed"))?;
                total = self.binary(Mode::Scalar, *op, ty, init_v, total, None)?;
            }
            let off = self.index_value(&out_offset);
            let base = self.buffer_base(out);
            let a = self.address(base, off, size_of(ty));
            self.b.ins().store(flags(), total, a, 0);
            let more = self.work().more();
            for (acc, &v) in more.iter().zip(&self.more_accumulators.clone()) {
                let value = self.b.use_var(v);
                let base = self.buffer_base(acc.out);
                let a = self.address(base, off, size_of(acc.ty));
                self.b.ins().store(flags(), value, a, 0);
            }
        }
        Ok(())
    }

    /// One reduction step: the reducer applied to the accumulators `accs`
    /// and the elements `xs` (one each, or one per input of a variadic
    /// reduce, whose other reducer roots are `more`'s); the new
    /// accumulators. A reducer body's per-element nodes go into `vals`.
    #[allow(clippy::too_many_arguments, reason = "one step of one reduction")]
    pub(super) fn apply_reducer(
        &mut self,
        mode: Mode,
        reducer: &Reducer,
        more: &[Acc],
        accs: &[Value],
        xs: &[Value],
        u: u32,
        vals: &mut IdVec<NodeId, Option<Value>>,
    ) -> Result<Vec<Value>> {
        match reducer {
            Reducer::Op(op) => Ok(vec![self.binary(
                mode,
                *op,
                self.value_type(),
                accs[0],
                xs[0],
                None,
            )?]),
            Reducer::Body(root) => {
                self.reducer_args = accs.iter().chain(xs).map(|&v| Some(v)).collect();
                for &n in &self.pass_schedule().reducer_nodes {
                    let v = self.element_node(mode, n, u, vals)?;
                    vals[n] = Some(v);
                }
                let mut out = vec![self.value_of(mode, *root, vals)?];
                for a in more {
                    out.push(self.value_of(mode, a.combine, vals)?);
                }
                Ok(out)
            }
        }
    }
}
