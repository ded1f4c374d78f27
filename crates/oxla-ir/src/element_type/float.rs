//! [`RealFloat`]: the conversions every real float type shares, with XLA's
//! rounding and NaN rules, so that code generic over floats (the
//! interpreter's narrow-float arithmetic, literals built from `f64`) has
//! one definition of them.
//!
//! Narrowing rounds to nearest, ties to even: once, except from `f64` to
//! `bf16` and `f16`, which XLA:CPU rounds through `f32` (twice; checked
//! against JAX). NaN: `bf16` gets the
//! canonical quiet NaN of the same sign (XLA:CPU drops the payload), `f16`
//! keeps the payload's top bits and sets the quiet bit, the minifloats get
//! their kind's NaN ([`MiniFloat`]). Widening is exact.

use super::minifloat::MiniFloat;
use crate::{
    Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FN, Float8E4M3FNUZ,
    Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, NativeType, bf16, f16,
};

/// A real float element type.
///
/// ```
/// use oxla_ir::{bf16, RealFloat};
/// assert_eq!(<bf16 as RealFloat>::from_f64(1.0 / 3.0).to_f32(), 0.333984375);
/// assert_eq!(<bf16 as RealFloat>::from_f32(f32::from_bits(0x7fa1_2345)).to_bits(), 0x7fc0);
/// ```
pub trait RealFloat: NativeType + PartialOrd {
    /// The exact value.
    fn to_f64(self) -> f64;
    /// `x` rounded to this type (see the module docs).
    fn from_f64(x: f64) -> Self;
    /// The value as `f32` (exact for every type but `f64`).
    fn to_f32(self) -> f32;
    /// `x` rounded to this type.
    fn from_f32(x: f32) -> Self;
}

impl RealFloat for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(x: f32) -> f32 {
        x
    }
}

impl RealFloat for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(x: f32) -> f64 {
        f64::from(x)
    }
}

impl RealFloat for bf16 {
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    /// Through `f32`, as XLA:CPU converts.
    fn from_f64(x: f64) -> bf16 {
        <bf16 as RealFloat>::from_f32(x as f32)
    }
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> bf16 {
        if x.is_nan() {
            canonical_bf16_nan(x.is_sign_negative())
        } else {
            bf16::from_f32(x)
        }
    }
}

fn canonical_bf16_nan(negative: bool) -> bf16 {
    bf16::from_bits(if negative { 0xffc0 } else { 0x7fc0 })
}

impl RealFloat for f16 {
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    /// Through `f32`, as XLA:CPU converts.
    fn from_f64(x: f64) -> f16 {
        f16::from_f32(x as f32)
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
}

macro_rules! minifloat_real {
    ($($t:ty),*) => {$(
        impl RealFloat for $t {
            fn to_f64(self) -> f64 {
                MiniFloat::to_f64(self)
            }
            fn from_f64(x: f64) -> $t {
                MiniFloat::from_f64(x)
            }
            fn to_f32(self) -> f32 {
                MiniFloat::to_f32(self)
            }
            fn from_f32(x: f32) -> $t {
                MiniFloat::from_f32(x)
            }
        }
    )*};
}
minifloat_real!(
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
