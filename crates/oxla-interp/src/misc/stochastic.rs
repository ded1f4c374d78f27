//! `stochastic-convert`: XLA's stochastic rounding of floats to signed
//! integers (its `StochasticConvertDecomposer`), computed exactly in `f64`.

use oxla_ir::{ArrayData, ElementType, Literal};

use crate::ops::OpResult;

/// `stochastic-convert(x, random)` to the signed integer type `to`, as
/// XLA's `StochasticConvertDecomposer` computes it, element by element:
/// `t = floor(|x|)`, `f = |x| - t` (exact), round `t` up when `random <
/// convert(f * 2^bits)`, negate when `x < 0`, then `x <= MIN` gives `MIN`
/// and `x >= MAX` gives `MAX` (the bounds rounded to `x`'s type, as XLA's
/// constants are). Every step is exact in `f64` for every float type up to
/// `f64`'s fractions scaled by `2^64`, which `f64` holds as well (a power
/// of two). XLA defines it for signed integer results only; an unsigned
/// one is refused.
pub(crate) fn stochastic_convert(
    x: &Literal,
    random: &Literal,
    to: ElementType,
) -> OpResult<ArrayData> {
    if !to.is_signed_integer() {
        return Err(format!(
            "stochastic-convert to {to}: XLA defines it for signed integer results only"
        ));
    }
    let bits = random.element_type().bit_width();
    let xs = crate::ops::convert(x, ElementType::F64)?;
    let rs = crate::ops::convert(random, ElementType::U64)?;
    let (ArrayData::F64(xs), ArrayData::U64(rs)) = (xs, rs) else {
        return Err("stochastic-convert: the operands did not convert".into());
    };
    let width = to.bit_width();
    let min = -(1i128 << (width - 1));
    let max = (1i128 << (width - 1)) - 1;
    // The bounds as constants of the operand's type (rounded as XLA's
    // `MakeScalarLike` rounds them).
    let bound = |v: i128| -> OpResult<f64> {
        let lit = Literal::scalar(v as i64);
        let in_type = crate::ops::convert(&lit, x.element_type())?;
        let back = Literal::from_array_data(&[], in_type).map_err(|e| e.to_string())?;
        let ArrayData::F64(v) = crate::ops::convert(&back, ElementType::F64)? else {
            return Err("stochastic-convert: the bound did not convert".into());
        };
        v.first().copied().ok_or_else(|| "no bound".to_string())
    };
    let (min_f, max_f) = (bound(min)?, bound(max)?);
    let wrap = |v: i128| -> i128 {
        let m = 1i128 << width;
        let r = v.rem_euclid(m);
        if r > max { r - m } else { r }
    };
    let scale = 2f64.powi(bits as i32);
    let out: Vec<i64> = xs
        .iter()
        .zip(&rs)
        .map(|(&v, &r)| {
            let a = v.abs();
            let t = a.floor();
            let f = a - t;
            // XLA's float -> unsigned convert: NaN is 0, values clamp.
            let fixed = f * scale;
            let fixed = if fixed.is_nan() {
                0u128
            } else {
                fixed.clamp(0.0, (scale - 1.0).max(0.0)) as u128
            };
            let up = (r as u128) < fixed;
            let ti: i128 = if t.is_nan() {
                0
            } else {
                t.clamp(min as f64, max as f64) as i128
            };
            let mut res = wrap(ti + i128::from(up));
            if v < 0.0 {
                res = wrap(-res);
            }
            if v <= min_f {
                res = min;
            }
            if v >= max_f {
                res = max;
            }
            res as i64
        })
        .collect();
    crate::ops::convert(
        &Literal::from_vec(x.shape().dims(), out).map_err(|e| e.to_string())?,
        to,
    )
}
