//! The element types whose arithmetic is another type's: the narrow floats
//! (`bf16`, `f16`, the float8 kinds, `f4e2m1fn`) and the sub-byte integers
//! (`s1`..`s4`, `u1`..`u4`), with the interpreter's semantics bit for bit
//! (`oxla-interp`'s `narrow.rs`, `docs/types.md`).
//!
//! A value of these types is always its stored bit pattern, in the
//! storage integer of [`clif_type`] (`i16` for `bf16`/`f16`, `i8` for the
//! rest): loads, stores, `select`, data movement and same-width bitcasts
//! are bit moves, so they copy NaN payloads and vectorise like any integer.
//! Only the ops compute:
//!
//! - a narrow float op widens its operands to `f32` (exact), runs the `f32`
//!   op the interpreter runs (the JIT's own IEEE arithmetic, or the call
//!   into `std`/`libm` the interpreter makes for a transcendental), and
//!   rounds the result back with the interpreter's rounding for the kind
//!   (`narrowlib`'s routines; `bf16`'s two, a shift and a rounding on the
//!   bits, inline as `half` writes them); `logistic` is XLA's expansion
//!   with each step rounded; a `convert` into the kind rounds once from the exact
//!   `f64` value;
//! - a sub-byte integer is held as its value in an `i8`/`u8` (sign-extended
//!   for the signed kinds, as `oxla_ir::Int4` stores it); an op computes in
//!   8 bits and wraps to the width, except the shifts and bit counts,
//!   which see the type's own width.
//!
//! These nodes have no vector form (`vector_support` says so); the
//! reductions of these types keep scalar accumulators, folded in the
//! interpreter's order.

use cranelift_codegen::ir::{
    AbiParam, InstBuilder, Value, condcodes::FloatCC, condcodes::IntCC, types,
};
use cranelift_module::{Linkage, Module};
use oxla_ir::{BinaryOp, ComparisonOrder, ElementType, Result, UnaryOp};

use crate::narrowlib::{Conversion, NarrowFn, StdFn, is_narrow_float};

use super::loops::KernelEmitter;
use super::{Mode, bitcast_flags, bug, clif_type};

/// Whether `ty` is a sub-byte integer.
pub(crate) fn is_sub_byte(ty: ElementType) -> bool {
    ty.is_integer() && ty.bit_width() < 8
}

/// Whether ops on `ty` go through this module (and so have no vector
/// form).
pub(crate) fn computes_narrow(ty: ElementType) -> bool {
    is_narrow_float(ty) || is_sub_byte(ty)
}

/// The 8-bit type a sub-byte integer computes in.
fn base_type(ty: ElementType) -> ElementType {
    if ty.is_signed_integer() {
        ElementType::S8
    } else {
        ElementType::U8
    }
}

/// The low `bits` bits set.
fn low_mask(bits: u32) -> i64 {
    (1i64 << bits) - 1
}

impl KernelEmitter<'_, '_> {
    /// A call of `narrowlib` routine `f` on `x`.
    fn call_narrow(&mut self, f: NarrowFn, x: Value) -> Result<Value> {
        let name = f
            .name()
            .ok_or_else(|| bug(format!("no narrow routine {f:?}")))?;
        let (param, ret) = f.signature();
        let mut sig = self.module.make_signature();
        sig.params.push(AbiParam::new(param));
        sig.returns.push(AbiParam::new(ret));
        let id = self
            .module
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| bug(format!("declaring {name}: {e}")))?;
        let callee = self.module.declare_func_in_func(id, self.b.func);
        let call = self.b.ins().call(callee, &[x]);
        Ok(self.b.inst_results(call)[0])
    }

    /// The `f32` value of narrow float bits `x` of type `et` (exact).
    pub(super) fn narrow_widen(&mut self, et: ElementType, x: Value) -> Result<Value> {
        let w = self.b.ins().uextend(types::I32, x);
        if et == ElementType::Bf16 {
            return Ok(self.bf16_widen(w));
        }
        self.call_narrow(NarrowFn::Conv(et, Conversion::Widen), w)
    }

    /// `half`'s `bf16::to_f32` inline, on the bits `u` zero-extended to
    /// `i32`: the bits shifted up, a NaN's quiet bit set.
    fn bf16_widen(&mut self, u: Value) -> Value {
        let m = self.b.ins().band_imm_u(u, 0x7FFF);
        let nan = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, m, 0x7F80);
        let q = self.b.ins().bor_imm_u(u, 0x0040);
        let u = self.b.ins().select(nan, q, u);
        let s = self.b.ins().ishl_imm_u(u, 16);
        self.b.ins().bitcast(types::F32, bitcast_flags(), s)
    }

    /// `half`'s `bf16::from_f32` inline: round to nearest, ties to even, on
    /// the bits; a NaN keeps its top mantissa bits with the quiet bit set.
    fn bf16_round(&mut self, f: Value) -> Value {
        let x = self.b.ins().bitcast(types::I32, bitcast_flags(), f);
        let m = self.b.ins().band_imm_u(x, 0x7FFF_FFFF);
        let nan = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, m, 0x7F80_0000);
        let hi = self.b.ins().ushr_imm_u(x, 16);
        let round_bit = self.b.ins().band_imm_u(x, 0x8000);
        let sticky_or_odd = self.b.ins().band_imm_u(x, 3 * 0x8000 - 1);
        let r = self.b.ins().icmp_imm_u(IntCC::NotEqual, round_bit, 0);
        let s = self.b.ins().icmp_imm_u(IntCC::NotEqual, sticky_or_odd, 0);
        let up = self.b.ins().band(r, s);
        let up = self.b.ins().uextend(types::I32, up);
        let rounded = self.b.ins().iadd(hi, up);
        let q = self.b.ins().bor_imm_u(hi, 0x0040);
        let v = self.b.ins().select(nan, q, rounded);
        self.b.ins().ireduce(types::I16, v)
    }

    /// The `f32` result `f` of an op, rounded to `et` as the interpreter
    /// rounds after each op: the bits.
    pub(super) fn narrow_round(&mut self, et: ElementType, f: Value) -> Result<Value> {
        if et == ElementType::Bf16 {
            return Ok(self.bf16_round(f));
        }
        let r = self.call_narrow(NarrowFn::Conv(et, Conversion::Round), f)?;
        Ok(self.b.ins().ireduce(clif_type(et), r))
    }

    /// `f64` value `d` rounded once to `et` (a conversion): the bits.
    fn narrow_from_f64(&mut self, et: ElementType, d: Value) -> Result<Value> {
        let r = self.call_narrow(NarrowFn::Conv(et, Conversion::FromF64), d)?;
        Ok(self.b.ins().ireduce(clif_type(et), r))
    }

    /// `op` on narrow float bits `x` of type `et`.
    pub(super) fn narrow_float_unary(
        &mut self,
        op: UnaryOp,
        et: ElementType,
        x: Value,
    ) -> Result<Value> {
        let f = self.narrow_widen(et, x)?;
        let std = |f: StdFn| Some(f);
        let call = match op {
            UnaryOp::Exp => std(StdFn::Exp),
            UnaryOp::Expm1 => std(StdFn::Expm1),
            UnaryOp::Log => std(StdFn::Ln),
            UnaryOp::Log1p => std(StdFn::Ln1p),
            UnaryOp::Tanh => std(StdFn::Tanh),
            UnaryOp::Sin => std(StdFn::Sin),
            UnaryOp::Cos => std(StdFn::Cos),
            UnaryOp::IsFinite => {
                return self.unary(Mode::Scalar, op, ElementType::F32, f);
            }
            UnaryOp::Logistic => {
                // XLA's expansion 1 / (1 + exp(-x)), each step rounded.
                let n = self.b.ins().fneg(f);
                let n = self.narrow_round(et, n)?;
                let n = self.narrow_widen(et, n)?;
                let e = self.call_narrow(NarrowFn::Std(StdFn::Exp), n)?;
                let e = self.narrow_round(et, e)?;
                let e = self.narrow_widen(et, e)?;
                let one = self.b.ins().f32const(1.0);
                let s = self.b.ins().fadd(one, e);
                let s = self.narrow_round(et, s)?;
                let s = self.narrow_widen(et, s)?;
                let one = self.b.ins().f32const(1.0);
                let d = self.b.ins().fdiv(one, s);
                return self.narrow_round(et, d);
            }
            UnaryOp::Not | UnaryOp::PopCnt | UnaryOp::Clz => {
                return Err(bug(format!("{op} of {et}")));
            }
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::RoundNearestEven
            | UnaryOp::RoundNearestAfz
            | UnaryOp::Erf
            | UnaryOp::Cbrt
            | UnaryOp::Tan => None,
        };
        let r = match call {
            Some(s) => self.call_narrow(NarrowFn::Std(s), f)?,
            None => self.unary(Mode::Scalar, op, ElementType::F32, f)?,
        };
        self.narrow_round(et, r)
    }

    /// `op(a, b)` on narrow float bits of type `et`.
    pub(super) fn narrow_float_binary(
        &mut self,
        op: BinaryOp,
        et: ElementType,
        a: Value,
        b: Value,
    ) -> Result<Value> {
        match op {
            BinaryOp::Compare(dir, ComparisonOrder::Total) => {
                // XLA's key on the type's own bits: a signed integer of
                // its width (f4e2m1fn's 4 bits sign-extended; the order of
                // the 8-bit keys is the same), f8e8m0fnu's unsigned bits.
                if et == ElementType::F8E8M0FNU {
                    return Ok(self.b.ins().icmp(Self::int_cc(dir, false), a, b));
                }
                let (a, b) = if et.bit_width() < 8 {
                    let sh = i64::from(8 - et.bit_width());
                    let a = self.b.ins().ishl_imm_u(a, sh);
                    let a = self.b.ins().sshr_imm_u(a, sh);
                    let b = self.b.ins().ishl_imm_u(b, sh);
                    (a, self.b.ins().sshr_imm_u(b, sh))
                } else {
                    (a, b)
                };
                let t = self.b.func.dfg.value_type(a);
                let key = |em: &mut Self, i: Value| {
                    let sign = em.b.ins().sshr_imm_u(i, i64::from(t.bits() - 1));
                    let flip = em.b.ins().ushr_imm_u(sign, 1);
                    em.b.ins().bxor(i, flip)
                };
                let (ka, kb) = (key(self, a), key(self, b));
                Ok(self.b.ins().icmp(Self::int_cc(dir, true), ka, kb))
            }
            BinaryOp::Compare(dir, ComparisonOrder::Natural) => {
                let fa = self.narrow_widen(et, a)?;
                let fb = self.narrow_widen(et, b)?;
                Ok(self.b.ins().fcmp(Self::float_cc(dir), fa, fb))
            }
            BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical => Err(bug(format!("{} of {et}", op.name()))),
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::Pow
            | BinaryOp::Atan2 => {
                let fa = self.narrow_widen(et, a)?;
                let fb = self.narrow_widen(et, b)?;
                let r = self.binary(Mode::Scalar, op, ElementType::F32, fa, fb, None)?;
                self.narrow_round(et, r)
            }
        }
    }

    /// `x` (8 bits) wrapped to sub-byte type `et`: the low bits kept,
    /// sign-extended for the signed kinds.
    pub(super) fn wrap_sub_byte(&mut self, et: ElementType, x: Value) -> Value {
        let bits = et.bit_width();
        if et.is_signed_integer() {
            let sh = i64::from(8 - bits);
            let l = self.b.ins().ishl_imm_u(x, sh);
            self.b.ins().sshr_imm_u(l, sh)
        } else {
            self.b.ins().band_imm_u(x, low_mask(bits))
        }
    }

    /// `op` on sub-byte integer `x` of type `et`.
    pub(super) fn sub_byte_unary(
        &mut self,
        op: UnaryOp,
        et: ElementType,
        x: Value,
    ) -> Result<Value> {
        let bits = et.bit_width();
        let r = match op {
            // The bit counts see the type's own bits.
            UnaryOp::PopCnt => {
                let m = self.b.ins().band_imm_u(x, low_mask(bits));
                self.b.ins().popcnt(m)
            }
            UnaryOp::Clz => {
                let m = self.b.ins().band_imm_u(x, low_mask(bits));
                let z = self.b.ins().clz(m);
                self.b.ins().iadd_imm_s(z, -i64::from(8 - bits))
            }
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Not
            | UnaryOp::Exp
            | UnaryOp::Expm1
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::RoundNearestEven
            | UnaryOp::RoundNearestAfz
            | UnaryOp::IsFinite
            | UnaryOp::Erf
            | UnaryOp::Cbrt
            | UnaryOp::Tan => self.unary(Mode::Scalar, op, base_type(et), x)?,
        };
        Ok(self.wrap_sub_byte(et, r))
    }

    /// `op(a, b)` on sub-byte integers of type `et`.
    pub(super) fn sub_byte_binary(
        &mut self,
        op: BinaryOp,
        et: ElementType,
        a: Value,
        b: Value,
    ) -> Result<Value> {
        let bits = et.bit_width();
        let mask = low_mask(bits);
        let r = match op {
            BinaryOp::Compare(..) => {
                return self.binary(Mode::Scalar, op, base_type(et), a, b, None);
            }
            // The amount is the unsigned pattern; amounts of the width or
            // more give 0 (left, logical) or the sign fill (arithmetic,
            // which reads the type's own top bit, unsigned kinds too).
            BinaryOp::ShiftLeft | BinaryOp::ShiftRightLogical => {
                let s = self.b.ins().band_imm_u(b, mask);
                let big =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, s, i64::from(bits));
                let r = if op == BinaryOp::ShiftLeft {
                    self.b.ins().ishl(a, s)
                } else {
                    let am = self.b.ins().band_imm_u(a, mask);
                    self.b.ins().ushr(am, s)
                };
                let z = self.b.ins().iconst(types::I8, 0);
                self.b.ins().select(big, z, r)
            }
            BinaryOp::ShiftRightArithmetic => {
                let s = self.b.ins().band_imm_u(b, mask);
                let w = self.b.ins().iconst(types::I8, i64::from(bits));
                let s = self.b.ins().umin(s, w);
                let sh = i64::from(8 - bits);
                let l = self.b.ins().ishl_imm_u(a, sh);
                let sx = self.b.ins().sshr_imm_u(l, sh);
                self.b.ins().sshr(sx, s)
            }
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::Pow
            | BinaryOp::Atan2
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor => self.binary(Mode::Scalar, op, base_type(et), a, b, None)?,
        };
        Ok(self.wrap_sub_byte(et, r))
    }

    /// A sub-byte integer from float `f` (`f32` or `f64`): truncated toward
    /// zero, saturated at the type's range, NaN to 0.
    fn sub_byte_from_float(&mut self, to: ElementType, f: Value) -> Value {
        let v = self.b.ins().fcvt_to_sint_sat(types::I32, f);
        let bits = to.bit_width();
        let (lo, hi) = if to.is_signed_integer() {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        let lov = self.b.ins().iconst(types::I32, lo);
        let hiv = self.b.ins().iconst(types::I32, hi);
        let a = self.b.ins().smax(v, lov);
        let a = self.b.ins().smin(a, hiv);
        self.b.ins().ireduce(types::I8, a)
    }

    /// `convert` where `from` or `to` computes here (and they differ), as
    /// the interpreter converts: through the exact value, a narrow float
    /// rounded once from `f64`, a sub-byte integer wrapped or saturated.
    pub(super) fn narrow_convert(
        &mut self,
        from: ElementType,
        to: ElementType,
        x: Value,
    ) -> Result<Value> {
        if is_narrow_float(to) {
            let d = if is_narrow_float(from) {
                let f = self.narrow_widen(from, x)?;
                self.b.ins().fpromote(types::F64, f)
            } else if from == ElementType::F32 {
                self.b.ins().fpromote(types::F64, x)
            } else if from == ElementType::F64 {
                x
            } else if from.is_pred() {
                let w = self.b.ins().uextend(types::I32, x);
                self.b.ins().fcvt_from_uint(types::F64, w)
            } else if from.is_integer() {
                let t = self.b.func.dfg.value_type(x);
                let signed = from.is_signed_integer();
                let w = if t == types::I64 {
                    x
                } else if signed {
                    self.b.ins().sextend(types::I64, x)
                } else {
                    self.b.ins().uextend(types::I64, x)
                };
                if signed {
                    self.b.ins().fcvt_from_sint(types::F64, w)
                } else {
                    self.b.ins().fcvt_from_uint(types::F64, w)
                }
            } else {
                return Err(bug(format!("convert {from} to {to}")));
            };
            return self.narrow_from_f64(to, d);
        }
        if is_narrow_float(from) {
            let f = self.narrow_widen(from, x)?;
            return if is_sub_byte(to) {
                Ok(self.sub_byte_from_float(to, f))
            } else if to == ElementType::F32 {
                Ok(f)
            } else if to.is_pred() {
                let z = self.b.ins().f32const(0.0);
                Ok(self.b.ins().fcmp(FloatCC::NotEqual, f, z))
            } else {
                self.convert(Mode::Scalar, ElementType::F32, to, f)
            };
        }
        if is_sub_byte(to) {
            if from == ElementType::F32 || from == ElementType::F64 {
                return Ok(self.sub_byte_from_float(to, x));
            }
            if !(from.is_integer() || from.is_pred()) {
                return Err(bug(format!("convert {from} to {to}")));
            }
            let t = self.b.func.dfg.value_type(x);
            let v = if t == types::I8 {
                x
            } else {
                self.b.ins().ireduce(types::I8, x)
            };
            return Ok(self.wrap_sub_byte(to, v));
        }
        // `from` is sub-byte: its value in 8 bits converts as that.
        self.convert(Mode::Scalar, base_type(from), to, x)
    }

    /// The bits of a `bitcast-convert` to `to` of fewer than 8 bits, held
    /// as the type holds them: sign-extended for a signed integer, the low
    /// bits alone otherwise.
    pub(super) fn normalise_sub_byte_bits(&mut self, to: ElementType, x: Value) -> Value {
        if to.is_signed_integer() {
            self.wrap_sub_byte(to, x)
        } else {
            self.b.ins().band_imm_u(x, low_mask(to.bit_width()))
        }
    }
}
