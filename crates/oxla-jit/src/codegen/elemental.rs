//! The per-op rules: every arithmetic, logic, comparison, selection and
//! conversion node in scalar and 128-bit vector form, with the
//! interpreter's semantics bit for bit (see the module docs of `codegen`),
//! and beside them [`vector_support`], the rule that says which nodes have
//! a vector form at all. A new op gets both here, together.

use cranelift_codegen::ir::{
    BlockArg, ConstantData, InstBuilder, Type, Value, condcodes::FloatCC, condcodes::IntCC,
    immediates::Ieee32, immediates::Ieee64, types,
};
use cranelift_frontend::FunctionBuilder;
use oxla_ir::{BinaryOp, ComparisonDirection, ComparisonOrder, ElementType, Result, UnaryOp};

use crate::entity::{IdVec, LoopVar, NodeId};
use crate::graph::Node;
use crate::math::MathLib;

use super::loops::KernelEmitter;
use super::memory::{iota_vectorises, load_vectorises};
use super::{Mode, bitcast_flags, bug, clif_type, int_type, size_of, vector_type, width_mask};

/// The innermost loop a vector form is asked for.
pub(super) struct Lanes<'s> {
    /// The lane width in bytes.
    pub(super) width: u32,
    /// The innermost loop's variable and extent.
    pub(super) inner: LoopVar,
    pub(super) inner_extent: i64,
    /// Each node's loop level, and the innermost level.
    pub(super) level: &'s IdVec<NodeId, usize>,
    pub(super) loop_count: usize,
}

/// A node's vector form.
#[derive(Clone, Copy, Debug)]
pub(super) struct VectorSupport {
    /// It calls the math library (long inline code or a call per lane).
    pub(super) calls_math: bool,
}

/// Whether `node` (evaluated per element of the innermost loop) has a
/// vector form for `lanes`, and what it costs; `None` if not. Every type
/// involved has the lane width (checked by the caller). Integer division,
/// per-lane shift amounts, size-changing conversions and folds have none.
pub(super) fn vector_support(node: &Node, lanes: &Lanes) -> Option<VectorSupport> {
    let w = lanes.width;
    let vt = |et: ElementType| vector_type(et, w);
    let plain = VectorSupport { calls_math: false };
    let math = VectorSupport { calls_math: true };
    let yes = |ok: bool, support: VectorSupport| ok.then_some(support);
    match node {
        Node::Load {
            offset,
            numel,
            ty,
            clamp,
            ..
        } => yes(
            load_vectorises(
                offset,
                *ty,
                *numel,
                *clamp,
                lanes.inner,
                lanes.inner_extent,
                w,
            ) && data_hoisted(offset, lanes),
            plain,
        ),
        Node::Iota { ty, index } => yes(
            iota_vectorises(*ty, index, lanes.inner, lanes.inner_extent),
            plain,
        ),
        Node::Const { .. } | Node::Var { .. } => Some(plain),
        Node::Unary { op, ty, .. } => match op {
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Not => Some(plain),
            // Cranelift lowers these for scalars only on x86-64.
            UnaryOp::PopCnt | UnaryOp::Clz => None,
            UnaryOp::RoundNearestAfz => yes(ty.is_float(), plain),
            UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::RoundNearestEven
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::IsFinite => yes(ty.is_float(), plain),
            oxla_ir::transcendental_unary_ops!() => yes(MathLib::handles_unary(*op, vt(*ty)), math),
        },
        Node::Binary { op, ty, b, .. } => match op {
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::Compare(..) => Some(plain),
            // Bytes multiply through 16-bit lanes (`imul_bytes`).
            BinaryOp::Mul => Some(plain),
            BinaryOp::Div => yes(ty.is_float(), plain),
            BinaryOp::Rem | BinaryOp::Pow | BinaryOp::Atan2 => {
                yes(ty.is_float() && MathLib::handles_binary(*op, vt(*ty)), math)
            }
            // The amount must be one scalar per row.
            BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => {
                yes(lanes.level[*b] < lanes.loop_count, plain)
            }
        },
        Node::Convert { from, to, .. } => {
            use ElementType as E;
            let ok = if from.is_pred() || to.is_pred() {
                true
            } else if size_of(*from) != size_of(*to) {
                false
            } else {
                // The pairs Cranelift converts lane by lane.
                (from.is_integer() && to.is_integer())
                    || matches!(
                        (from, to),
                        (E::F32, E::S32 | E::U32)
                            | (E::S32 | E::U32, E::F32)
                            | (E::S64 | E::U64, E::F64)
                    )
            };
            yes(ok, plain)
        }
        Node::Select { .. } | Node::Clamp { .. } => Some(plain),
        // Same width by construction: a bitcast of lanes.
        Node::Bitcast { .. } => Some(plain),
        // A fold is a scalar loop of its own; a data index varying along
        // the loop makes its loads gathers.
        Node::InBounds { .. } | Node::Fold { .. } | Node::Capture { .. } | Node::Index { .. } => {
            None
        }
    }
}

/// Whether every data index `offset` reads is known above the innermost
/// loop (then a load contiguous along it is still one vector per row).
fn data_hoisted(offset: &crate::ix::Ix, lanes: &Lanes) -> bool {
    let mut data = Vec::new();
    offset.data_nodes(&mut data);
    data.iter().all(|&n| lanes.level[n] < lanes.loop_count)
}

/// `a * b` on 16 byte lanes, wrapping (the same bits for `s8` and `u8`).
/// x86-64 has no byte multiply and Cranelift 0.135 does not lower
/// `imul.i8x16`: each half is widened to 16-bit lanes, multiplied
/// (`pmullw`), cut to its low byte and packed back (`packuswb` of values
/// 0..=255, so nothing saturates).
pub(super) fn imul_bytes(fb: &mut FunctionBuilder, a: Value, b: Value) -> Value {
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

/// Which shift [`KernelEmitter::shift`] emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shift {
    /// `shift-left`.
    Left,
    /// `shift-right-logical`.
    RightLogical,
    /// `shift-right-arithmetic`.
    RightArithmetic,
}

/// Which result of an integer division [`KernelEmitter::int_divrem`] emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IntDiv {
    /// `divide`.
    Quotient,
    /// `remainder`.
    Remainder,
}

/// The amount of a shift: operand `b`, or in vector mode the scalar
/// `amount` (the vector plan requires one per row).
fn shift_amount(mode: Mode, b: Value, amount: Option<Value>) -> Result<Value> {
    match mode {
        Mode::Scalar => Ok(b),
        Mode::Vector(_) => amount.ok_or_else(|| bug("vector shift by a varying amount")),
    }
}

impl KernelEmitter<'_, '_> {
    pub(super) fn bitcast_to(&mut self, ty: Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().bitcast(ty, bitcast_flags(), v)
        }
    }

    /// A constant in `mode` (a `pred` constant is 0/1 scalar, a mask as a
    /// vector).
    pub(super) fn constant(&mut self, mode: Mode, et: ElementType, bits: u64) -> Value {
        let s = match (mode, et) {
            (Mode::Vector(w), ElementType::Pred) => {
                let t = int_type(w);
                let v = if bits != 0 { width_mask(w) } else { 0 };
                self.b.ins().iconst(t, v as i64)
            }
            (_, ElementType::F32) => self.b.ins().f32const(Ieee32::with_bits(bits as u32)),
            (_, ElementType::F64) => self.b.ins().f64const(Ieee64::with_bits(bits)),
            // Integers, and the types kept as their storage integer (the
            // ones refused before code is built among them).
            (Mode::Scalar, ElementType::Pred)
            | (
                _,
                ElementType::S1
                | ElementType::S2
                | ElementType::S4
                | ElementType::S8
                | ElementType::S16
                | ElementType::S32
                | ElementType::S64
                | ElementType::U1
                | ElementType::U2
                | ElementType::U4
                | ElementType::U8
                | ElementType::U16
                | ElementType::U32
                | ElementType::U64
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
                | ElementType::C128
                | ElementType::Tuple
                | ElementType::Token,
            ) => {
                let t = clif_type(et);
                let v = bits & width_mask(t.bytes());
                self.b.ins().iconst(t, v as i64)
            }
        };
        match mode {
            Mode::Scalar => s,
            Mode::Vector(w) => self.b.ins().splat(vector_type(et, w), s),
        }
    }

    /// A scalar value as a vector (a `pred` 0/1 becomes a lane mask).
    pub(super) fn splat_scalar(&mut self, et: ElementType, w: u32, v: Value) -> Value {
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

    pub(super) fn select(&mut self, mode: Mode, cond: Value, a: Value, b: Value) -> Value {
        match mode {
            Mode::Scalar => self.b.ins().select(cond, a, b),
            Mode::Vector(_) => {
                let t = self.b.func.dfg.value_type(a);
                let c = self.bitcast_to(t, cond);
                self.b.ins().bitselect(c, a, b)
            }
        }
    }

    pub(super) fn vconst_lanes(&mut self, t: Type, lanes: &[i64]) -> Value {
        let bytes = t.lane_type().bytes() as usize;
        let mut data = Vec::with_capacity(16);
        for &l in lanes {
            data.extend_from_slice(&l.to_le_bytes()[..bytes]);
        }
        let c = self.b.func.dfg.constants.insert(ConstantData::from(data));
        self.b.ins().vconst(t, c)
    }

    /// The value of a node that only combines its operands' values `ops`
    /// (constants, arithmetic, conversions, selects, guards), in the
    /// kernel's loops or in a fold alike; `None` for nodes that read
    /// memory, loop variables or reducer slots. `amount` is a shift's
    /// scalar amount when it is known per row.
    pub(super) fn pure_op(
        &mut self,
        mode: Mode,
        node: &Node,
        ops: &[Value],
        amount: Option<Value>,
    ) -> Result<Option<Value>> {
        Ok(Some(match node {
            Node::Const { ty, bits } => self.constant(mode, *ty, *bits),
            Node::Unary { op, ty, .. } => self.unary(mode, *op, *ty, ops[0])?,
            Node::Binary { op, ty, .. } => self.binary(mode, *op, *ty, ops[0], ops[1], amount)?,
            Node::Convert { from, to, .. } => self.convert(mode, *from, *to, ops[0])?,
            Node::Bitcast { to, .. } => self.bitcast_bits(mode, *to, ops[0]),
            Node::Select { .. } => self.select(mode, ops[0], ops[1], ops[2]),
            Node::Clamp { ty, .. } => {
                let m = self.binary(mode, BinaryOp::Max, *ty, ops[0], ops[1], None)?;
                self.binary(mode, BinaryOp::Min, *ty, m, ops[2], None)?
            }
            Node::InBounds { conds } => {
                let mut acc: Option<Value> = None;
                for c in conds {
                    let v = self.condition(c);
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
                    Mode::Scalar => v,
                    Mode::Vector(w) => self.splat_scalar(ElementType::Pred, w, v),
                }
            }
            Node::Index { from, lo, hi, .. } => match mode {
                Mode::Scalar => self.index_clamp(ops[0], *from, *lo, *hi),
                Mode::Vector(_) => return Err(bug("a data index in a vector loop")),
            },
            _ => return Ok(None),
        }))
    }

    pub(super) fn float_max_min(&mut self, mode: Mode, is_max: bool, a: Value, b: Value) -> Value {
        let lt1 = if is_max {
            self.b.ins().fcmp(FloatCC::LessThan, b, a)
        } else {
            self.b.ins().fcmp(FloatCC::LessThan, a, b)
        };
        let m1 = self.select(mode, lt1, a, b);
        let lt2 = if is_max {
            self.b.ins().fcmp(FloatCC::LessThan, a, b)
        } else {
            self.b.ins().fcmp(FloatCC::LessThan, b, a)
        };
        let m2 = self.select(mode, lt2, b, a);
        let t = self.b.func.dfg.value_type(a);
        let it = match t {
            types::F32 => types::I32,
            types::F64 => types::I64,
            types::F32X4 => types::I32X4,
            _ => types::I64X2,
        };
        let (i1, i2) = (self.bitcast_to(it, m1), self.bitcast_to(it, m2));
        let merged = if is_max {
            self.b.ins().band(i1, i2)
        } else {
            self.b.ins().bor(i1, i2)
        };
        let merged = self.bitcast_to(t, merged);
        let uno = self.b.ins().fcmp(FloatCC::Unordered, a, b);
        let nan = self.b.ins().fadd(a, b);
        self.select(mode, uno, nan, merged)
    }

    pub(super) fn unary(
        &mut self,
        mode: Mode,
        op: UnaryOp,
        et: ElementType,
        x: Value,
    ) -> Result<Value> {
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
                    let z = self.constant(mode, et, zb);
                    let p = self.constant(mode, et, one);
                    let n = self.constant(mode, et, mone);
                    let gt = self.b.ins().fcmp(FloatCC::GreaterThan, x, z);
                    let r = self.select(mode, gt, p, x);
                    let lt = self.b.ins().fcmp(FloatCC::LessThan, x, z);
                    self.select(mode, lt, n, r)
                } else if et.is_signed_integer() {
                    let one = self.constant(mode, et, 1);
                    let mone = self.constant(mode, et, u64::MAX);
                    let a = self.b.ins().smin(x, one);
                    self.b.ins().smax(a, mone)
                } else {
                    let one = self.constant(mode, et, 1);
                    self.b.ins().umin(x, one)
                }
            }
            UnaryOp::Not => {
                if et.is_pred() && mode == Mode::Scalar {
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
                let o = self.constant(mode, et, one);
                self.b.ins().fdiv(o, s)
            }
            UnaryOp::IsFinite => {
                let inf = if et == ElementType::F32 {
                    f32::INFINITY.to_bits() as u64
                } else {
                    f64::INFINITY.to_bits()
                };
                let a = self.b.ins().fabs(x);
                let i = self.constant(mode, et, inf);
                self.b.ins().fcmp(FloatCC::LessThan, a, i)
            }
            // The misc family: bit counts at the element's width, and
            // rounding ties away from zero (`codegen/misc.rs`).
            UnaryOp::PopCnt => self.b.ins().popcnt(x),
            UnaryOp::Clz => self.b.ins().clz(x),
            UnaryOp::RoundNearestAfz => self.round_nearest_afz(mode, et, x),
            oxla_ir::transcendental_unary_ops!() => {
                self.math
                    .emit_unary(self.module, self.b, op, x, self.const_pool_base)?
            }
        })
    }

    pub(super) fn int_cc(dir: ComparisonDirection, signed: bool) -> IntCC {
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

    pub(super) fn float_cc(dir: ComparisonDirection) -> FloatCC {
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
    pub(super) fn binary(
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
            BinaryOp::Mul if mode != Mode::Scalar && et.byte_size() == 1 => {
                imul_bytes(self.b, a, b)
            }
            BinaryOp::Mul => self.b.ins().imul(a, b),
            BinaryOp::Div if float => self.b.ins().fdiv(a, b),
            BinaryOp::Div => self.int_divrem(IntDiv::Quotient, et, a, b),
            BinaryOp::Rem if !float => self.int_divrem(IntDiv::Remainder, et, a, b),
            BinaryOp::Max if float => self.float_max_min(mode, true, a, b),
            BinaryOp::Min if float => self.float_max_min(mode, false, a, b),
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
            BinaryOp::ShiftLeft => {
                let amt = shift_amount(mode, b, amount)?;
                self.shift(mode, Shift::Left, et, a, amt)
            }
            BinaryOp::ShiftRightArithmetic => {
                let amt = shift_amount(mode, b, amount)?;
                self.shift(mode, Shift::RightArithmetic, et, a, amt)
            }
            BinaryOp::ShiftRightLogical => {
                let amt = shift_amount(mode, b, amount)?;
                self.shift(mode, Shift::RightLogical, et, a, amt)
            }
            BinaryOp::Compare(dir, ComparisonOrder::Natural) => {
                if float {
                    self.b.ins().fcmp(Self::float_cc(dir), a, b)
                } else {
                    self.b.ins().icmp(Self::int_cc(dir, signed), a, b)
                }
            }
            BinaryOp::Compare(dir, ComparisonOrder::Total) => {
                if !float {
                    return Err(bug(format!("a TOTALORDER compare of {et}")));
                }
                let (a, b) = (self.total_order_key(a), self.total_order_key(b));
                self.b.ins().icmp(Self::int_cc(dir, true), a, b)
            }
        })
    }

    /// XLA's key for `TOTALORDER`: the float's bits as a signed integer `i`
    /// of the same width (lane by lane), mapped to `i < 0 ? i ^ INT_MAX : i`
    /// branch-free, as `i ^ ((i >> (bits - 1)) >>> 1)`. Signed comparisons
    /// of the keys order `-NaN < -inf < -0 < +0 < +inf < +NaN`, as the
    /// interpreter's `compare_total` does.
    fn total_order_key(&mut self, x: Value) -> Value {
        let it = self.b.func.dfg.value_type(x).as_int();
        let i = self.bitcast_to(it, x);
        let sign = self.b.ins().sshr_imm_u(i, i64::from(it.lane_bits() - 1));
        let flip = self.b.ins().ushr_imm_u(sign, 1);
        self.b.ins().bxor(i, flip)
    }

    pub(super) fn shift(
        &mut self,
        mode: Mode,
        op: Shift,
        et: ElementType,
        x: Value,
        amt: Value,
    ) -> Value {
        let bits = size_of(et) * 8;
        let t = self.b.func.dfg.value_type(amt);
        let w = self.b.ins().iconst(t, bits as i64);
        let big = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, amt, w);
        match op {
            Shift::RightArithmetic => {
                let wm1 = self.b.ins().iconst(t, (bits - 1) as i64);
                let a = self.b.ins().select(big, wm1, amt);
                self.b.ins().sshr(x, a)
            }
            Shift::Left | Shift::RightLogical => {
                let r = if op == Shift::Left {
                    self.b.ins().ishl(x, amt)
                } else {
                    self.b.ins().ushr(x, amt)
                };
                let z = self.constant(mode, et, 0);
                self.b.ins().select(big, z, r)
            }
        }
    }

    pub(super) fn int_divrem(&mut self, op: IntDiv, et: ElementType, x: Value, y: Value) -> Value {
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
            IntDiv::Quotient => {
                let q = if signed {
                    self.b.ins().sdiv(x, ys)
                } else {
                    self.b.ins().udiv(x, ys)
                };
                let all = self.b.ins().iconst(t, width_mask(t.bytes()) as i64);
                self.b.ins().select(is_zero, all, q)
            }
            IntDiv::Remainder => {
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
    pub(super) fn int_pow(&mut self, et: ElementType, x: Value, y: Value) -> Value {
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

    pub(super) fn convert(
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
        if let Mode::Vector(w) = mode {
            // Same lane width (checked by the vector plan).
            return Ok(if to.is_pred() {
                if from.is_float() {
                    let z = self.constant(mode, from, 0);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                } else {
                    let z = self.constant(mode, from, 0);
                    self.b.ins().icmp(IntCC::NotEqual, x, z)
                }
            } else if from.is_pred() {
                // The vector plan converts `pred` only to a type of the
                // mask's lane width that is an integer or `f32`/`f64`.
                let one_bits = match to {
                    E::F32 => 1.0f32.to_bits() as u64,
                    E::F64 => 1.0f64.to_bits(),
                    E::Pred
                    | E::S1
                    | E::S2
                    | E::S4
                    | E::S8
                    | E::S16
                    | E::S32
                    | E::S64
                    | E::U1
                    | E::U2
                    | E::U4
                    | E::U8
                    | E::U16
                    | E::U32
                    | E::U64
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
                    | E::Token => 1,
                };
                let one = self.constant(Mode::Vector(w), to, one_bits);
                let it = vector_type(E::Pred, w);
                let onei = self.bitcast_to(it, one);
                let r = self.b.ins().band(x, onei);
                self.bitcast_to(vector_type(to, w), r)
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
                let z = self.constant(Mode::Scalar, from, 0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            } else {
                let z = self.constant(Mode::Scalar, from, 0);
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
