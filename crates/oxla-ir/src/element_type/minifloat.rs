//! The float8 kinds and `f4e2m1fn`: newtypes over `u8` holding the bit
//! pattern, with exact conversions to `f32`/`f64` and correctly rounded
//! ones back (round to nearest, ties to even), following `ml_dtypes` and
//! XLA:CPU (checked against JAX in `tests/hlo/types/`).
//!
//! One generic codec serves every kind; a [`Format`] says where the kind
//! departs from IEEE:
//!
//! | kind | e/m bits | bias | inf | NaN | -0 | overflow |
//! |---|---|---|---|---|---|---|
//! | `f8e5m2`, `f8e4m3`, `f8e3m4` | 5/2, 4/3, 3/4 | 15, 7, 3 | yes | IEEE | yes | ±inf |
//! | `f8e4m3fn` | 4/3 | 7 | no | `S.1111.111` | yes | NaN |
//! | `f8e4m3fnuz`, `f8e5m2fnuz`, `f8e4m3b11fnuz` | 4/3, 5/2, 4/3 | 8, 16, 11 | no | `0x80` | no (`-0 → +0`) | NaN |
//! | `f8e8m0fnu` | 8/0, unsigned | 127 | no | `0xFF` | no zero at all | NaN |
//! | `f4e2m1fn` | 2/1 | 1 | no | none (NaN → `-0`) | yes | saturates to ±6 |
//!
//! `f8e8m0fnu` is a power of two, `2^(e-127)`: zero, negatives and NaN
//! convert to NaN, positive values below `2^-127` to `2^-127`. Only the low
//! 4 bits of an `f4e2m1fn` byte are used (the constructors mask).
//! NaN converted to `f32` is the quiet NaN, positive for the kinds whose
//! one NaN is `0x80` (as XLA:CPU gives it).

use std::cmp::Ordering;
use std::fmt;

/// Where a kind keeps its NaN and infinity.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specials {
    /// IEEE: the all-ones exponent holds ±inf (mantissa 0) and NaN.
    Ieee,
    /// No infinity; NaN is all ones below the sign (`fn` kinds).
    AllOnesNan,
    /// No infinity, no `-0`: the pattern of `-0` (`0x80`) is the one NaN.
    NegativeZeroNan,
    /// No infinity and no NaN: NaN converts to `-0`, overflow saturates.
    Saturating,
    /// Unsigned, exponent only: `0xFF` is NaN, there is no zero.
    ExponentOnly,
}

/// A minifloat encoding.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Format {
    pub(crate) exponent: u32,
    pub(crate) mantissa: u32,
    pub(crate) bias: i32,
    pub(crate) specials: Specials,
    /// The bit pattern of the largest finite value.
    pub(crate) max_bits: u8,
}

/// `2^e` as an `f64` (exact for the exponents of these formats).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

impl Format {
    /// Whether a NaN of this encoding has a payload to set (`nan(0x1)` in
    /// HLO text): only the IEEE-like kinds, whose NaNs are all the
    /// patterns of the all-ones exponent but infinity.
    pub(crate) fn has_nan_payloads(&self) -> bool {
        self.specials == Specials::Ieee
    }

    fn signed(&self) -> bool {
        self.specials != Specials::ExponentOnly
    }

    fn sign_bit(&self) -> u8 {
        if self.signed() {
            1 << (self.exponent + self.mantissa)
        } else {
            0
        }
    }

    fn mask(&self) -> u8 {
        let bits = self.exponent + self.mantissa + u32::from(self.signed());
        (((1u16 << bits) - 1) & 0xff) as u8
    }

    fn is_nan(&self, bits: u8) -> bool {
        let e_max = ((1u16 << self.exponent) - 1) as u8;
        let e = (bits >> self.mantissa) & e_max;
        let m = bits & ((1 << self.mantissa) - 1);
        match self.specials {
            Specials::Ieee => e == e_max && m != 0,
            Specials::AllOnesNan => e == e_max && m == (1 << self.mantissa) - 1,
            Specials::NegativeZeroNan => bits == self.sign_bit(),
            Specials::Saturating => false,
            Specials::ExponentOnly => bits == 0xff,
        }
    }

    /// The exact value of a bit pattern.
    pub(crate) fn decode(&self, bits: u8) -> f64 {
        let bits = bits & self.mask();
        if self.is_nan(bits) {
            let negative =
                self.specials != Specials::NegativeZeroNan && bits & self.sign_bit() != 0;
            return if negative { -f64::NAN } else { f64::NAN };
        }
        let e_max = ((1u16 << self.exponent) - 1) as u8;
        let e = i32::from((bits >> self.mantissa) & e_max);
        let m = f64::from(bits & ((1 << self.mantissa) - 1));
        let scale = pow2(self.mantissa as i32);
        let magnitude = if self.specials == Specials::Ieee && e == i32::from(e_max) {
            f64::INFINITY
        } else if e == 0 && self.specials != Specials::ExponentOnly {
            m / scale * pow2(1 - self.bias)
        } else {
            (1.0 + m / scale) * pow2(e - self.bias)
        };
        if bits & self.sign_bit() != 0 {
            -magnitude
        } else {
            magnitude
        }
    }

    fn nan_bits(&self, negative: bool) -> u8 {
        let sign = if negative { self.sign_bit() } else { 0 };
        match self.specials {
            // The quiet NaN: exponent all ones, top mantissa bit.
            Specials::Ieee => {
                sign | (((1 << self.exponent) - 1) << self.mantissa) | (1 << (self.mantissa - 1))
            }
            Specials::AllOnesNan => sign | (self.mask() & !self.sign_bit()),
            Specials::NegativeZeroNan => self.sign_bit(),
            // No NaN: XLA gives -0.
            Specials::Saturating => self.sign_bit(),
            Specials::ExponentOnly => 0xff,
        }
    }

    /// `x` rounded to the nearest value (ties to even), with the kind's
    /// rules for NaN, infinity, overflow and zero.
    pub(crate) fn encode(&self, x: f64) -> u8 {
        let negative = x.is_sign_negative();
        if x.is_nan() {
            return self.nan_bits(negative);
        }
        if self.specials == Specials::ExponentOnly && (negative || x == 0.0) {
            return self.nan_bits(negative);
        }
        let sign = if negative { self.sign_bit() } else { 0 };
        let max = self.decode(self.max_bits);
        let overflow = || match self.specials {
            Specials::Ieee => sign | (((1 << self.exponent) - 1) << self.mantissa),
            Specials::Saturating => sign | self.max_bits,
            Specials::AllOnesNan | Specials::NegativeZeroNan | Specials::ExponentOnly => {
                self.nan_bits(negative)
            }
        };
        let a = x.abs();
        if a.is_infinite() {
            return overflow();
        }
        if a == 0.0 {
            return if self.specials == Specials::NegativeZeroNan {
                0
            } else {
                sign
            };
        }
        // The smallest normal exponent; below it the grid is the
        // subnormals' (for e8m0, the smallest power of two).
        let e_min = if self.specials == Specials::ExponentOnly {
            -self.bias
        } else {
            1 - self.bias
        };
        let e = a.log2().floor() as i32;
        // log2 may round up just below a power of two: fix the exponent so
        // that 2^e <= a < 2^(e+1).
        let e = if pow2(e.clamp(-1022, 1023)) > a {
            e - 1
        } else {
            e
        };
        let quantum = e.max(e_min) - self.mantissa as i32;
        let n = (a / pow2(quantum.max(-1022))).round_ties_even();
        let rounded = n * pow2(quantum);
        if rounded > max {
            return overflow();
        }
        if n == 0.0 {
            return match self.specials {
                // No zero: the smallest value.
                Specials::ExponentOnly => 0,
                Specials::NegativeZeroNan => 0,
                Specials::Ieee | Specials::AllOnesNan | Specials::Saturating => sign,
            };
        }
        let implicit = pow2(self.mantissa as i32);
        let (n, quantum) = if n >= 2.0 * implicit {
            (n / 2.0, quantum + 1)
        } else {
            (n, quantum)
        };
        let bits = if n < implicit && self.specials != Specials::ExponentOnly {
            // Subnormal.
            n as u8
        } else {
            let field = quantum + self.mantissa as i32 + self.bias;
            ((field as u8) << self.mantissa) | (n - implicit) as u8
        };
        sign | bits
    }
}

/// What every minifloat newtype offers: its bits and exact conversions.
///
/// ```
/// use oxla_ir::{Float8E4M3FN, MiniFloat};
/// let x = Float8E4M3FN::from_f32(0.1);
/// assert_eq!(x.to_bits(), 0x1d);
/// assert_eq!(x.to_f32(), 0.1015625);
/// assert!(Float8E4M3FN::from_f32(500.0).is_nan()); // no infinity: overflow is NaN
/// ```
pub trait MiniFloat: Copy {
    /// The kind's encoding.
    #[doc(hidden)]
    const FORMAT: Format;
    /// The value with this bit pattern (bits above the type's width are
    /// dropped).
    fn from_bits(bits: u8) -> Self;
    /// The bit pattern.
    fn to_bits(self) -> u8;
    /// The exact value as `f32` (every value of every kind is an `f32`).
    fn to_f32(self) -> f32 {
        Self::FORMAT.decode(self.to_bits()) as f32
    }
    /// The exact value as `f64`.
    fn to_f64(self) -> f64 {
        Self::FORMAT.decode(self.to_bits())
    }
    /// `x` rounded to the nearest value, ties to even (see the module
    /// docs for NaN, infinity and overflow).
    fn from_f32(x: f32) -> Self {
        Self::from_f64(f64::from(x))
    }
    /// `x` rounded once to the nearest value, ties to even.
    fn from_f64(x: f64) -> Self {
        Self::from_bits(Self::FORMAT.encode(x))
    }
    /// `true` for the kind's NaN.
    fn is_nan(self) -> bool {
        Self::FORMAT.is_nan(self.to_bits())
    }
}

macro_rules! minifloat {
    ($(#[$meta:meta])* $name:ident, $e:literal, $m:literal, $bias:literal, $specials:ident, $max:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Default)]
        pub struct $name(u8);

        impl MiniFloat for $name {
            const FORMAT: Format = Format {
                exponent: $e,
                mantissa: $m,
                bias: $bias,
                specials: Specials::$specials,
                max_bits: $max,
            };
            fn from_bits(bits: u8) -> Self {
                $name(bits & Self::FORMAT.mask())
            }
            fn to_bits(self) -> u8 {
                self.0
            }
        }

        /// IEEE equality of the values (NaN is unequal to itself, `-0 == +0`).
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.to_f64() == other.to_f64()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.to_f64().partial_cmp(&other.to_f64())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.to_f32())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
    };
}

minifloat!(
    /// `f8e4m3fn`: 4 exponent bits (bias 7), 3 mantissa bits, no infinity,
    /// NaN `S.1111.111`; largest finite 448 (NVIDIA, OCP "E4M3").
    Float8E4M3FN, 4, 3, 7, AllOnesNan, 0x7e
);
minifloat!(
    /// `f8e5m2`: IEEE-like with 5 exponent bits (bias 15) and 2 mantissa
    /// bits; largest finite 57344.
    Float8E5M2, 5, 2, 15, Ieee, 0x7b
);
minifloat!(
    /// `f8e4m3`: IEEE-like with 4 exponent bits (bias 7) and 3 mantissa
    /// bits; largest finite 240.
    Float8E4M3, 4, 3, 7, Ieee, 0x77
);
minifloat!(
    /// `f8e3m4`: IEEE-like with 3 exponent bits (bias 3) and 4 mantissa
    /// bits; largest finite 15.5.
    Float8E3M4, 3, 4, 3, Ieee, 0x6f
);
minifloat!(
    /// `f8e4m3fnuz`: 4 exponent bits (bias 8), 3 mantissa bits, no
    /// infinity, no `-0` (`0x80` is NaN); largest finite 240.
    Float8E4M3FNUZ, 4, 3, 8, NegativeZeroNan, 0x7f
);
minifloat!(
    /// `f8e5m2fnuz`: 5 exponent bits (bias 16), 2 mantissa bits, no
    /// infinity, no `-0` (`0x80` is NaN); largest finite 57344.
    Float8E5M2FNUZ, 5, 2, 16, NegativeZeroNan, 0x7f
);
minifloat!(
    /// `f8e4m3b11fnuz`: 4 exponent bits (bias 11), 3 mantissa bits, no
    /// infinity, no `-0` (`0x80` is NaN); largest finite 30.
    Float8E4M3B11FNUZ, 4, 3, 11, NegativeZeroNan, 0x7f
);
minifloat!(
    /// `f8e8m0fnu`: an unsigned power of two `2^(e-127)` (the OCP MX scale
    /// type): no sign, no zero, `0xFF` is NaN; from `2^-127` to `2^127`.
    Float8E8M0FNU, 8, 0, 127, ExponentOnly, 0xfe
);
minifloat!(
    /// `f4e2m1fn`: 2 exponent bits (bias 1), 1 mantissa bit, no infinity
    /// and no NaN (values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives),
    /// stored in the low 4 bits of a byte.
    Float4E2M1FN, 2, 1, 1, Saturating, 0x7
);

#[cfg(test)]
mod tests {
    use super::*;

    fn all<T: MiniFloat>() -> Vec<T> {
        let width = T::FORMAT.exponent + T::FORMAT.mantissa + u32::from(T::FORMAT.signed());
        (0..1u16 << width).map(|b| T::from_bits(b as u8)).collect()
    }

    /// Every bit pattern decodes and encodes back to itself (NaNs to the
    /// kind's quiet NaN of the same sign).
    fn round_trips<T: MiniFloat>() {
        for x in all::<T>() {
            let back = T::from_f64(x.to_f64());
            if x.is_nan() {
                assert!(back.is_nan());
            } else {
                assert_eq!(back.to_bits(), x.to_bits(), "{:#x}", x.to_bits());
            }
        }
    }

    #[test]
    fn every_kind_round_trips() {
        round_trips::<Float8E4M3FN>();
        round_trips::<Float8E5M2>();
        round_trips::<Float8E4M3>();
        round_trips::<Float8E3M4>();
        round_trips::<Float8E4M3FNUZ>();
        round_trips::<Float8E5M2FNUZ>();
        round_trips::<Float8E4M3B11FNUZ>();
        round_trips::<Float8E8M0FNU>();
        round_trips::<Float4E2M1FN>();
    }

    #[test]
    fn largest_finite_values() {
        let max = |f: Format| f.decode(f.max_bits);
        assert_eq!(max(Float8E4M3FN::FORMAT), 448.0);
        assert_eq!(max(Float8E5M2::FORMAT), 57344.0);
        assert_eq!(max(Float8E4M3::FORMAT), 240.0);
        assert_eq!(max(Float8E3M4::FORMAT), 15.5);
        assert_eq!(max(Float8E4M3FNUZ::FORMAT), 240.0);
        assert_eq!(max(Float8E5M2FNUZ::FORMAT), 57344.0);
        assert_eq!(max(Float8E4M3B11FNUZ::FORMAT), 30.0);
        assert_eq!(max(Float8E8M0FNU::FORMAT), 2f64.powi(127));
        assert_eq!(max(Float4E2M1FN::FORMAT), 6.0);
        // Nothing finite is larger.
        for x in all::<Float8E4M3FN>() {
            assert!(x.is_nan() || x.to_f64().abs() <= 448.0);
        }
    }

    #[test]
    fn rounding_and_specials() {
        // Ties to even: 464 is halfway between 448 (even) and NaN (480).
        assert_eq!(Float8E4M3FN::from_f32(464.0).to_f32(), 448.0);
        assert!(Float8E4M3FN::from_f32(465.0).is_nan());
        assert!(Float8E4M3FN::from_f32(f32::INFINITY).is_nan());
        assert_eq!(Float8E5M2::from_f32(1e6).to_f32(), f32::INFINITY);
        assert_eq!(Float8E4M3FNUZ::from_f32(-0.0).to_bits(), 0);
        assert_eq!(Float4E2M1FN::from_f32(100.0).to_f32(), 6.0);
        assert_eq!(Float4E2M1FN::from_f32(-f32::INFINITY).to_f32(), -6.0);
        assert_eq!(Float4E2M1FN::from_f32(f32::NAN).to_bits(), 0x8);
        assert_eq!(Float4E2M1FN::from_f32(0.25).to_bits(), 0);
        // e8m0: ties go up (the implicit bit is the last one kept).
        assert_eq!(Float8E8M0FNU::from_f32(1.5).to_f32(), 2.0);
        assert_eq!(Float8E8M0FNU::from_f32(0.75).to_f32(), 1.0);
        assert_eq!(Float8E8M0FNU::from_f32(1e-40).to_bits(), 0);
        assert!(Float8E8M0FNU::from_f32(0.0).is_nan());
        assert!(Float8E8M0FNU::from_f32(-1.0).is_nan());
        // Subnormals.
        assert_eq!(Float8E4M3FN::from_bits(1).to_f32(), 2f32.powi(-9));
        assert_eq!(Float8E5M2::from_bits(1).to_f32(), 2f32.powi(-16));
        assert!(Float8E5M2FNUZ::from_bits(0x80).to_f32().is_sign_positive());
    }
}
