//! The misc family: `bitcast-convert`, `bitcast`, `reduce-precision`, the
//! random-number ops (`random`), `cholesky` and `triangular-solve`
//! (`linalg`), and the batch-norm ops, evaluated as the expansion into
//! primitives that XLA runs (`oxla_ir::passes::batch_norm`).
//!
//! Every function here follows XLA (its evaluator, or the expander XLA:CPU
//! runs where the evaluator has none) and is exact where XLA's result is
//! defined bit for bit: `bitcast-convert` and `reduce-precision` work on
//! bit patterns and never pass a value through a float operation, so NaN
//! payloads survive; `rng-bit-generator` reproduces XLA:CPU's ThreeFry and
//! Philox bits.

mod linalg;
pub(crate) mod random;
mod stochastic;

pub(crate) use linalg::{cholesky, triangular_solve};
pub(crate) use random::{rng, rng_bit_generator};
pub(crate) use stochastic::stochastic_convert;

use oxla_ir::{ArrayData, ElementType, Literal, OpKind, RealFloat};

use crate::Eval;
use crate::ops::{OpResult, array};
use crate::value::Value;

/// The values of `data` as one little-endian stream of bits, row-major,
/// each value its `bit_width` bits (sub-byte values packed, as XLA's
/// `bitcast-convert` sees them): the image XLA reinterprets.
fn to_bits(data: &ArrayData) -> Vec<bool> {
    let width = data.element_type().bit_width() as usize;
    let mut out = Vec::with_capacity(data.len() * width);
    oxla_ir::dispatch_array!(data, v => for &x in v.iter() {
        let bits = oxla_ir::ElementBits::to_bits128(x);
        out.extend((0..width).map(|b| (bits >> b) & 1 == 1));
    });
    out
}

/// A batch-norm op, evaluated as the expansion into primitives XLA runs
/// (`oxla_ir::passes::batch_norm`) on the operand values `args`, one call
/// level below the op (`depth`).
pub(crate) fn batch_norm<'b>(
    kind: &OpKind,
    args: Vec<Value<'b>>,
    depth: usize,
) -> OpResult<Value<'b>> {
    let shapes: Vec<_> = args.iter().map(Value::shape).collect();
    let expansion = oxla_ir::passes::batch_norm::expansion(kind, &shapes)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{} has no expansion", kind.opcode_name()))?;
    // The expansion is a computation of its own: its values owned here.
    let args: Vec<Value<'_>> = args
        .into_iter()
        .map(|a| Value::from_literal(a.into_literal()))
        .collect();
    Eval::new(&expansion)
        .call(expansion.entry_id(), args, depth + 1)
        .map(|v| Value::from_literal(v.into_literal()))
        .map_err(|e| format!("in the expansion of {}: {e}", kind.opcode_name()))
}

/// Reads a little-endian stream of `bits` as values of `ty`
/// (`bit_width` bits each).
fn from_bits(ty: ElementType, bits: &[bool]) -> OpResult<ArrayData> {
    let width = ty.bit_width() as usize;
    let size = ty.byte_size();
    if ty.is_tuple() || width == 0 || !bits.len().is_multiple_of(width) {
        return Err(format!("{} bits cannot be read as {ty} values", bits.len()));
    }
    let bytes: Vec<u8> = bits
        .chunks_exact(width)
        .flat_map(|c| {
            let word = c
                .iter()
                .enumerate()
                .fold(0u128, |w, (b, &on)| w | (u128::from(on) << b));
            word.to_le_bytes().into_iter().take(size)
        })
        .collect();
    ArrayData::from_bytes(ty, &bytes, false)
        .ok_or_else(|| format!("{} bytes cannot be read as {ty} values", bytes.len()))
}

/// `bitcast-convert` of `x` to `to`: the row-major little-endian bits of
/// `x` read as `to` values (sub-byte values packed, low bits first). With equal widths each element keeps its bits;
/// narrowing splits element `i` into the new minor dimension, least
/// significant part first (`f32 1.0 -> u8 {0, 0, 128, 63}`); widening joins
/// them back.
pub(crate) fn bitcast_convert(x: &Literal, to: ElementType) -> OpResult<ArrayData> {
    let data = array(x)?;
    if data.element_type().is_pred() != to.is_pred() {
        return Err(format!(
            "bitcast-convert between pred and {to} has no defined bits"
        ));
    }
    from_bits(to, &to_bits(data))
}

/// Rounds the bits `v` of a float with `src_exp` exponent and `src_man`
/// mantissa bits (`total` bits in all) to `exp`/`man` bits, as XLA's
/// evaluator does: round the mantissa to nearest even by adding `0111..1`
/// plus the last kept bit and masking (a carry into the exponent is
/// right), then send exponents past the narrower range to infinity and
/// those at or below its smallest normal to zero (subnormals flush). NaN is
/// handled by the caller.
fn reduce_precision_bits(v: u64, total: u32, src_man: u32, exp: i64, man: i64) -> u64 {
    let src_exp = total - src_man - 1;
    let width_mask = if total == 64 {
        u64::MAX
    } else {
        (1u64 << total) - 1
    };
    let mut v = v;
    if man < i64::from(src_man) {
        let cut = src_man - man as u32;
        let last_kept = 1u64 << cut;
        let bias = (last_kept >> 1).wrapping_sub(1) + ((v & last_kept) >> cut);
        v = (v.wrapping_add(bias) & width_mask) & !(last_kept - 1);
    }
    if exp < i64::from(src_exp) {
        let sign = 1u64 << (total - 1);
        let exp_mask = ((1u64 << src_exp) - 1) << src_man;
        let bias = (1u64 << (src_exp - 1)) - 1;
        let reduced_bias = (1u64 << (exp as u32 - 1)) - 1;
        let x_exp = v & exp_mask;
        let signed_zero = v & sign;
        if x_exp > (bias + reduced_bias) << src_man {
            v = signed_zero | exp_mask;
        } else if x_exp <= (bias - reduced_bias) << src_man {
            v = signed_zero;
        }
    }
    v
}

/// `reduce-precision` of a float array to `exponent_bits` and
/// `mantissa_bits` (see [`reduce_precision_bits`]); the narrower floats
/// through f16 ([`via_f16`]); an f32, f64, bf16 or f16 NaN stays the same
/// NaN, payload and sign included, whatever the format (what XLA:CPU does
/// today; XLA's older evaluator turned it into `+inf` when no mantissa bit
/// was kept).
/// `reduce-precision` of a float narrower than f16 as XLA:CPU computes it:
/// widened to f16 (exact), rounded on f16's bits, then rounded back to the
/// type; a NaN comes back as the type's NaN (XLA:CPU's payloads there are
/// an artefact of its conversions: not reproduced, NaN stays NaN).
fn via_f16<T: RealFloat>(v: &[T], exponent_bits: i64, mantissa_bits: i64) -> Vec<T> {
    v.iter()
        .map(|&f| {
            let w = oxla_ir::f16::from_f32(f.to_f32());
            if w.is_nan() {
                return T::from_f32(f32::NAN);
            }
            let bits = u64::from(w.to_bits());
            let r = reduce_precision_bits(bits, 16, 10, exponent_bits, mantissa_bits);
            T::from_f32(oxla_ir::f16::from_bits(r as u16).to_f32())
        })
        .collect()
}

pub(crate) fn reduce_precision(
    x: &Literal,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> OpResult<ArrayData> {
    if exponent_bits < 1 || mantissa_bits < 0 {
        return Err(format!(
            "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got {exponent_bits} and {mantissa_bits}"
        ));
    }
    match array(x)? {
        ArrayData::F32(v) => Ok(ArrayData::F32(
            v.iter()
                .map(|&f| {
                    if f.is_nan() {
                        return f;
                    }
                    let bits = u64::from(f.to_bits());
                    let r = reduce_precision_bits(bits, 32, 23, exponent_bits, mantissa_bits);
                    f32::from_bits(r as u32)
                })
                .collect(),
        )),
        ArrayData::F64(v) => Ok(ArrayData::F64(
            v.iter()
                .map(|&f| {
                    if f.is_nan() {
                        return f;
                    }
                    let r =
                        reduce_precision_bits(f.to_bits(), 64, 52, exponent_bits, mantissa_bits);
                    f64::from_bits(r)
                })
                .collect(),
        )),
        // The half-width floats on their own bits (an f16 subnormal is
        // kept when the exponent is not narrowed, as on f16 hardware).
        ArrayData::Bf16(v) => Ok(ArrayData::Bf16(
            v.iter()
                .map(|&f| {
                    if f.is_nan() {
                        return f;
                    }
                    let r = reduce_precision_bits(
                        u64::from(f.to_bits()),
                        16,
                        7,
                        exponent_bits,
                        mantissa_bits,
                    );
                    oxla_ir::bf16::from_bits(r as u16)
                })
                .collect(),
        )),
        ArrayData::F16(v) => Ok(ArrayData::F16(
            v.iter()
                .map(|&f| {
                    if f.is_nan() {
                        return f;
                    }
                    let r = reduce_precision_bits(
                        u64::from(f.to_bits()),
                        16,
                        10,
                        exponent_bits,
                        mantissa_bits,
                    );
                    oxla_ir::f16::from_bits(r as u16)
                })
                .collect(),
        )),
        // The float8 kinds and f4e2m1fn as XLA:CPU computes them: widened
        // to f16 (exactly), rounded there by the f16 rule above, and
        // rounded back to the type; f8e8m0fnu, whose range f16 lacks,
        // through f32 (checked against JAX for every value of each kind
        // and every format up to e8m10).
        ArrayData::F4E2M1FN(v) => Ok(ArrayData::F4E2M1FN(via_f16(
            v,
            exponent_bits,
            mantissa_bits,
        ))),
        ArrayData::F8E3M4(v) => Ok(ArrayData::F8E3M4(via_f16(v, exponent_bits, mantissa_bits))),
        ArrayData::F8E4M3(v) => Ok(ArrayData::F8E4M3(via_f16(v, exponent_bits, mantissa_bits))),
        ArrayData::F8E4M3FN(v) => Ok(ArrayData::F8E4M3FN(via_f16(
            v,
            exponent_bits,
            mantissa_bits,
        ))),
        ArrayData::F8E4M3FNUZ(v) => Ok(ArrayData::F8E4M3FNUZ(via_f16(
            v,
            exponent_bits,
            mantissa_bits,
        ))),
        ArrayData::F8E4M3B11FNUZ(v) => Ok(ArrayData::F8E4M3B11FNUZ(via_f16(
            v,
            exponent_bits,
            mantissa_bits,
        ))),
        ArrayData::F8E5M2(v) => Ok(ArrayData::F8E5M2(via_f16(v, exponent_bits, mantissa_bits))),
        ArrayData::F8E5M2FNUZ(v) => Ok(ArrayData::F8E5M2FNUZ(via_f16(
            v,
            exponent_bits,
            mantissa_bits,
        ))),
        ArrayData::F8E8M0FNU(v) => Ok(ArrayData::F8E8M0FNU(
            v.iter()
                .map(|&f| {
                    let w = f.to_f32();
                    if w.is_nan() {
                        return f;
                    }
                    let bits = u64::from(w.to_bits());
                    let r = reduce_precision_bits(bits, 32, 23, exponent_bits, mantissa_bits);
                    oxla_ir::Float8E8M0FNU::from_f32(f32::from_bits(r as u32))
                })
                .collect(),
        )),
        other @ (ArrayData::Pred(_)
        | ArrayData::S1(_)
        | ArrayData::S2(_)
        | ArrayData::S4(_)
        | ArrayData::S8(_)
        | ArrayData::S16(_)
        | ArrayData::S32(_)
        | ArrayData::S64(_)
        | ArrayData::U1(_)
        | ArrayData::U2(_)
        | ArrayData::U4(_)
        | ArrayData::U8(_)
        | ArrayData::U16(_)
        | ArrayData::U32(_)
        | ArrayData::U64(_)
        | ArrayData::C64(_)
        | ArrayData::C128(_)) => Err(format!(
            "reduce-precision is not defined for {}",
            other.element_type()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rp32(x: f32, e: i64, m: i64) -> f32 {
        let out = reduce_precision(&Literal::scalar(x), e, m).expect("float");
        match out {
            ArrayData::F32(v) => v[0],
            _ => unreachable!("f32 in, f32 out"),
        }
    }

    #[test]
    fn reduce_precision_rounds_like_bf16_and_f16() {
        // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: even wins.
        assert_eq!(rp32(1.0 + 2f32.powi(-8), 8, 7), 1.0);
        assert_eq!(
            rp32(1.0 + 3.0 * 2f32.powi(-8), 8, 7),
            1.0 + 2.0 * 2f32.powi(-7)
        );
        // f16: 65520 rounds up past 65504 to inf; 1e-5 is subnormal in f16
        // and flushes to zero (convert would keep it).
        assert_eq!(rp32(65520.0, 5, 10), f32::INFINITY);
        assert_eq!(rp32(65504.0, 5, 10), 65504.0);
        assert_eq!(rp32(-1e-5, 5, 10).to_bits(), (-0.0f32).to_bits());
        // NaN payloads survive, even with no mantissa bit kept.
        let nan = f32::from_bits(0x7fc0_1234);
        assert_eq!(rp32(nan, 8, 7).to_bits(), 0x7fc0_1234);
        assert_eq!(rp32(nan, 8, 0).to_bits(), 0x7fc0_1234);
        // Wider than the source: unchanged.
        assert_eq!(rp32(0.1, 11, 52), 0.1);
    }

    /// `erf`, `cbrt` and `tan` (libm, musl's) against correctly rounded
    /// values (mpmath at 200 bits, rounded to the type): within one ulp,
    /// the bound docs/ops.md states (measured: erf 0.77, cbrt 0.50, tan
    /// 0.80 ulp over 120,000 inputs per function and type).
    #[test]
    #[allow(
        clippy::excessive_precision,
        reason = "the f32 values are written as the f64 mpmath printed, exactly"
    )]
    fn libm_functions_are_within_one_ulp() {
        fn ulps32(a: f32, b: f32) -> u32 {
            (a.to_bits() as i32)
                .wrapping_sub(b.to_bits() as i32)
                .unsigned_abs()
        }
        fn ulps64(a: f64, b: f64) -> u64 {
            (a.to_bits() as i64)
                .wrapping_sub(b.to_bits() as i64)
                .unsigned_abs()
        }
        type F32 = (fn(f32) -> f32, &'static [(f32, f32)]);
        type F64 = (fn(f64) -> f64, &'static [(f64, f64)]);
        let f32s: [(&str, F32); 3] = [
            (
                "erf",
                (
                    libm::erff,
                    &[
                        (-3.5f32, -0.9999992847442627f32),
                        (-0.8632636666297913f32, -0.7778530716896057f32),
                        (-0.0010000000474974513f32, -0.001128378789871931f32),
                        (1.0000000031710769e-30f32, 1.1283791266481092e-30f32),
                        (0.10000000149011612f32, 0.11246291548013687f32),
                        (0.5f32, 0.5204998850822449f32),
                        (0.75f32, 0.7111556529998779f32),
                        (1.0f32, 0.8427007794380188f32),
                        (1.5f32, 0.9661051630973816f32),
                        (2.0f32, 0.9953222870826721f32),
                        (3.0f32, 0.9999778866767883f32),
                        (5.621629238128662f32, 1.0f32),
                        (7.761031150817871f32, 1.0f32),
                        (27.0f32, 1.0f32),
                        (100.0f32, 1.0f32),
                        (10000000000.0f32, 1.0f32),
                    ],
                ),
            ),
            (
                "cbrt",
                (
                    libm::cbrtf,
                    &[
                        (-3.5f32, -1.5182944536209106f32),
                        (-0.8632636666297913f32, -0.9521700143814087f32),
                        (-0.0010000000474974513f32, -0.10000000149011612f32),
                        (1.0000000031710769e-30f32, 1.000000013351432e-10f32),
                        (0.10000000149011612f32, 0.46415889263153076f32),
                        (0.5f32, 0.7937005162239075f32),
                        (0.75f32, 0.9085602760314941f32),
                        (1.0f32, 1.0f32),
                        (1.5f32, 1.1447142362594604f32),
                        (2.0f32, 1.2599210739135742f32),
                        (3.0f32, 1.4422495365142822f32),
                        (5.621629238128662f32, 1.778091311454773f32),
                        (7.761031150817871f32, 1.9798842668533325f32),
                        (27.0f32, 3.0f32),
                        (100.0f32, 4.6415886878967285f32),
                        (10000000000.0f32, 2154.4345703125f32),
                    ],
                ),
            ),
            (
                "tan",
                (
                    libm::tanf,
                    &[
                        (-3.5f32, -0.3745856285095215f32),
                        (-0.8632636666297913f32, -1.1692521572113037f32),
                        (-0.0010000000474974513f32, -0.0010000003967434168f32),
                        (1.0000000031710769e-30f32, 1.0000000031710769e-30f32),
                        (0.10000000149011612f32, 0.10033467411994934f32),
                        (0.5f32, 0.5463024973869324f32),
                        (0.75f32, 0.9315964579582214f32),
                        (1.0f32, 1.5574077367782593f32),
                        (1.5f32, 14.101420402526855f32),
                        (2.0f32, -2.185039758682251f32),
                        (3.0f32, -0.14254654943943024f32),
                        (5.621629238128662f32, -0.7786012887954712f32),
                        (7.761031150817871f32, 10.727415084838867f32),
                        (27.0f32, -3.2737038135528564f32),
                        (100.0f32, -0.587213933467865f32),
                        (10000000000.0f32, -0.558349609375f32),
                    ],
                ),
            ),
        ];
        for (name, (f, table)) in f32s {
            for &(x, want) in table {
                assert!(ulps32(f(x), want) <= 1, "{name}({x}) = {} vs {want}", f(x));
            }
        }
        let f64s: [(&str, F64); 3] = [
            (
                "erf",
                (
                    libm::erf,
                    &[
                        (-3.5, -0.9999992569016276),
                        (-0.8632636666297913, -0.7778530859198233),
                        (-0.001, -0.0011283787909692365),
                        (1e-30, 1.1283791670955127e-30),
                        (0.1, 0.1124629160182849),
                        (0.5, 0.5204998778130465),
                        (0.75, 0.7111556336535151),
                        (1.0, 0.8427007929497149),
                        (1.5, 0.9661051464753108),
                        (2.0, 0.9953222650189527),
                        (3.0, 0.9999779095030014),
                        (5.6216291229495585, 0.9999999999999981),
                        (7.761031363510295, 1.0),
                        (27.0, 1.0),
                        (100.0, 1.0),
                        (10000000000.0, 1.0),
                    ],
                ),
            ),
            (
                "cbrt",
                (
                    libm::cbrt,
                    &[
                        (-3.5, -1.5182944859378313),
                        (-0.8632636666297913, -0.9521699856782367),
                        (-0.001, -0.1),
                        (1e-30, 1e-10),
                        (0.1, 0.4641588833612779),
                        (0.5, 0.7937005259840998),
                        (0.75, 0.9085602964160698),
                        (1.0, 1.0),
                        (1.5, 1.1447142425533319),
                        (2.0, 1.2599210498948732),
                        (3.0, 1.4422495703074083),
                        (5.6216291229495585, 1.7780913264420901),
                        (7.761031363510295, 1.9798843046630021),
                        (27.0, 3.0),
                        (100.0, 4.641588833612779),
                        (10000000000.0, 2154.4346900318837),
                    ],
                ),
            ),
            (
                "tan",
                (
                    libm::tan,
                    &[
                        (-3.5, -0.3745856401585947),
                        (-0.8632636666297913, -1.1692521057650878),
                        (-0.001, -0.0010000003333334668),
                        (1e-30, 1e-30),
                        (0.1, 0.10033467208545055),
                        (0.5, 0.5463024898437905),
                        (0.75, 0.9315964599440725),
                        (1.0, 1.5574077246549023),
                        (1.5, 14.101419947171719),
                        (2.0, -2.185039863261519),
                        (3.0, -0.1425465430742778),
                        (5.6216291229495585, -0.7786014645271305),
                        (7.761031363510295, 10.727439708095229),
                        (27.0, -3.273703800428119),
                        (100.0, -0.5872139151569291),
                        (10000000000.0, -0.5583496378112418),
                    ],
                ),
            ),
        ];
        for (name, (f, table)) in f64s {
            for &(x, want) in table {
                assert!(ulps64(f(x), want) <= 1, "{name}({x}) = {} vs {want}", f(x));
            }
        }
    }

    #[test]
    fn bitcast_convert_is_little_endian_and_keeps_nan_payloads() {
        let x = Literal::scalar(f32::from_bits(0x7f80_0001)); // a signalling NaN
        let bytes = bitcast_convert(&x, ElementType::U8).expect("bytes");
        assert_eq!(bytes, ArrayData::U8(vec![1, 0, 0x80, 0x7f]));
        let u8s = Literal::from_vec(&[4], vec![1u8, 0, 0x80, 0x7f]).expect("u8[4]");
        let back = bitcast_convert(&u8s, ElementType::F32).expect("f32");
        match back {
            ArrayData::F32(v) => assert_eq!(v[0].to_bits(), 0x7f80_0001),
            other => panic!("expected f32, got {other:?}"),
        }
    }

    #[test]
    fn bitcast_convert_packs_sub_byte_values_low_bits_first() {
        // s8 0x7e splits into s4 {-2, 7}; they join back.
        let x = Literal::scalar(0x7ei8);
        let parts = bitcast_convert(&x, ElementType::S4).expect("s4");
        assert_eq!(parts.format_value(0), "-2");
        assert_eq!(parts.format_value(1), "7");
        let s4 = Literal::from_array_data(&[2], parts).expect("s4[2]");
        assert_eq!(
            bitcast_convert(&s4, ElementType::S8).expect("s8"),
            ArrayData::S8(vec![0x7e])
        );
        // bf16 keeps its bits through u16.
        let b = Literal::scalar(oxla_ir::bf16::from_bits(0x7fc1));
        assert_eq!(
            bitcast_convert(&b, ElementType::U16).expect("u16"),
            ArrayData::U16(vec![0x7fc1])
        );
    }
}
