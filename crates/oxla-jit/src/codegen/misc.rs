//! Emitters of the misc family's elementwise ops: `round-nearest-afz`
//! (Cranelift has no instruction for it) and the same-width bitcast that
//! `bitcast-convert` and `reduce-precision` use. `popcnt` and
//! `count-leading-zeros` are Cranelift's own instructions; `erf`, `cbrt` and
//! `tan` are calls per lane (`math.rs`).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use oxla_ir::ElementType;

use super::loops::KernelEmitter;
use super::{Mode, clif_type, vector_type};

impl KernelEmitter<'_, '_> {
    /// `x` rounded to the nearest integral value, ties away from zero, as
    /// Rust's `round` (the interpreter's): `t = trunc(|x|)`; `t + 1` if
    /// `|x| - t >= 0.5` (the difference is exact); then `x`'s sign. NaN
    /// stays NaN and infinities stay themselves (their difference is NaN);
    /// `-0.4` gives `-0`.
    pub(super) fn round_nearest_afz(&mut self, mode: Mode, et: ElementType, x: Value) -> Value {
        let (half, one, sign, bits_et) = if et == ElementType::F32 {
            (
                u64::from(0.5f32.to_bits()),
                u64::from(1.0f32.to_bits()),
                1u64 << 31,
                ElementType::U32,
            )
        } else {
            (
                0.5f64.to_bits(),
                1.0f64.to_bits(),
                1u64 << 63,
                ElementType::U64,
            )
        };
        let a = self.b.ins().fabs(x);
        let t = self.b.ins().trunc(a);
        let d = self.b.ins().fsub(a, t);
        let half = self.constant(mode, et, half);
        let up = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
        let one = self.constant(mode, et, one);
        let t1 = self.b.ins().fadd(t, one);
        let r = self.select(mode, up, t1, t);
        let (ft, it) = match mode {
            Mode::Scalar => (clif_type(et), clif_type(bits_et)),
            Mode::Vector(w) => (vector_type(et, w), vector_type(bits_et, w)),
        };
        let rb = self.bitcast_to(it, r);
        let xb = self.bitcast_to(it, x);
        let sign = self.constant(mode, bits_et, sign);
        let sign = self.b.ins().band(xb, sign);
        let signed = self.b.ins().bor(rb, sign);
        self.bitcast_to(ft, signed)
    }

    /// The bits of `x` read as `to` (same width): `bitcast-convert`.
    pub(super) fn bitcast_bits(&mut self, mode: Mode, to: ElementType, x: Value) -> Value {
        let t = match mode {
            Mode::Scalar => clif_type(to),
            Mode::Vector(w) => vector_type(to, w),
        };
        self.bitcast_to(t, x)
    }
}
