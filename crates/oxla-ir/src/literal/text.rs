//! How each element type's values print in HLO text, as XLA prints them:
//! integers in decimal; `f32`/`f64` integral values without `.0`, else the
//! shortest text that reads back exactly; the narrow floats with C's
//! `%.<N>g`, `N` being the type's `max_digits10` (4 for `bf16`, 5 for
//! `f16`, 3 for `f8e4m3fn`, 2 for `f8e5m2`: `0.1001`, `3.2e+02`); `nan`,
//! `-nan`, `inf`, `-inf`, `-0` for the specials; complex as `(re, im)`.

use crate::element_type::{MiniFloat, SubByteInt};
use crate::{
    Complex64, Complex128, Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FN,
    Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, Int1, Int2, Int4, Uint1, Uint2,
    Uint4, bf16, f16,
};

/// A value's HLO text.
pub(crate) trait HloValue {
    fn hlo_text(self) -> String;
}

macro_rules! display_text {
    ($($t:ty),*) => {$(
        impl HloValue for $t {
            fn hlo_text(self) -> String {
                self.to_string()
            }
        }
    )*};
}
display_text!(bool, i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! sub_byte_text {
    ($($t:ty),*) => {$(
        impl HloValue for $t {
            fn hlo_text(self) -> String {
                self.get().to_string()
            }
        }
    )*};
}
sub_byte_text!(Int1, Int2, Int4, Uint1, Uint2, Uint4);

impl HloValue for f32 {
    fn hlo_text(self) -> String {
        format_float(f64::from(self), self.is_sign_negative(), || {
            format!("{self:?}")
        })
    }
}

impl HloValue for f64 {
    fn hlo_text(self) -> String {
        format_float(self, self.is_sign_negative(), || format!("{self:?}"))
    }
}

impl HloValue for bf16 {
    fn hlo_text(self) -> String {
        format_g(self.to_f64(), 4)
    }
}

impl HloValue for f16 {
    fn hlo_text(self) -> String {
        format_g(self.to_f64(), 5)
    }
}

/// `max_digits10` of a float with `p` significant bits:
/// `ceil(p * log10(2)) + 1`.
fn max_digits10(mantissa_bits: u32) -> usize {
    let p = f64::from(mantissa_bits + 1);
    (p * std::f64::consts::LOG10_2).ceil() as usize + 1
}

macro_rules! minifloat_text {
    ($($t:ty),*) => {$(
        impl HloValue for $t {
            fn hlo_text(self) -> String {
                format_g(self.to_f64(), max_digits10(<$t as MiniFloat>::FORMAT.mantissa))
            }
        }
    )*};
}
minifloat_text!(
    Float8E4M3FN,
    Float8E5M2,
    Float8E4M3,
    Float8E3M4,
    Float8E4M3FNUZ,
    Float8E5M2FNUZ,
    Float8E4M3B11FNUZ,
    Float8E8M0FNU,
    Float4E2M1FN
);

impl HloValue for Complex64 {
    fn hlo_text(self) -> String {
        format!("({}, {})", self.re.hlo_text(), self.im.hlo_text())
    }
}

impl HloValue for Complex128 {
    fn hlo_text(self) -> String {
        format!("({}, {})", self.re.hlo_text(), self.im.hlo_text())
    }
}

/// The specials every float prints alike: `nan`, `-nan`, `inf`, `-inf`,
/// `0`, `-0`.
fn special(x: f64) -> Option<String> {
    let negative = x.is_sign_negative();
    let sign = if negative { "-" } else { "" };
    if x.is_nan() {
        Some(format!("{sign}nan"))
    } else if x.is_infinite() {
        Some(format!("{sign}inf"))
    } else if x == 0.0 {
        Some(format!("{sign}0"))
    } else {
        None
    }
}

/// Formats a float as XLA prints `f32`/`f64`: integral values without
/// `.0`, the specials, otherwise the shortest text that reads back exactly.
pub(crate) fn format_float(x: f64, negative: bool, shortest: impl Fn() -> String) -> String {
    if let Some(s) = special(if negative { -x.abs() } else { x.abs() }) {
        return s;
    }
    if x.fract() == 0.0 && x.abs() < 1e16 {
        return format!("{}", x as i64);
    }
    shortest()
}

/// C's `printf("%.<digits>g", x)`: `digits` significant digits, trailing
/// zeros removed, exponent form when the decimal exponent is below -4 or
/// at least `digits` (`3.2e+02`, `1e-05`).
pub(crate) fn format_g(x: f64, digits: usize) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let digits = digits.max(1);
    let sci = format!("{:.*e}", digits - 1, x);
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= digits as i32 {
        let mantissa = trim_zeros(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    } else {
        let decimals = (digits as i32 - 1 - exponent).max(0) as usize;
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xla_prints_narrow_floats_with_g() {
        // What XLA printed for these constants (JAX 0.10.2).
        assert_eq!(bf16::from_f32(0.1).hlo_text(), "0.1001");
        assert_eq!(bf16::from_f32(1e-3).hlo_text(), "0.0009995");
        assert_eq!(bf16::from_f32(300.0).hlo_text(), "300");
        assert_eq!(f16::from_f32(0.1).hlo_text(), "0.099976");
        assert_eq!(f16::from_f32(1e-3).hlo_text(), "0.0010004");
        assert_eq!(Float8E4M3FN::from_f32(0.1).hlo_text(), "0.102");
        assert_eq!(Float8E4M3FN::from_f32(1e-3).hlo_text(), "0.00195");
        assert_eq!(Float8E4M3FN::from_f32(300.0).hlo_text(), "288");
        assert_eq!(Float8E5M2::from_f32(0.1).hlo_text(), "0.094");
        assert_eq!(Float8E5M2::from_f32(300.0).hlo_text(), "3.2e+02");
        assert_eq!(Float8E5M2::from_f32(1e-3).hlo_text(), "0.00098");
        assert_eq!(Float8E8M0FNU::from_f32(0.1).hlo_text(), "0.12");
        assert_eq!(Float8E8M0FNU::from_f32(300.0).hlo_text(), "2.6e+02");
        assert_eq!(Float8E4M3FN::from_f32(f32::INFINITY).hlo_text(), "nan");
        assert_eq!(Float4E2M1FN::from_f32(f32::NAN).hlo_text(), "-0");
        assert_eq!(Float4E2M1FN::from_f32(-2.5).hlo_text(), "-2");
        assert_eq!(Complex64::new(0.1, -0.0).hlo_text(), "(0.1, -0)");
        assert_eq!(
            Complex128::new(f64::from(0.1f32), 3.0).hlo_text(),
            "(0.10000000149011612, 3)"
        );
        assert_eq!(format_g(1e-5, 4), "1e-05");
        assert_eq!(format_g(-2.5, 2), "-2.5");
    }
}
