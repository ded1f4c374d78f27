//! [`ElementBits`]: every element type's value as its bit pattern, the
//! form `.npy` files, StableHLO's hex constants and `bitcast-convert` read
//! and write.
//!
//! The pattern has [`ElementType::bit_width`](crate::ElementType::bit_width)
//! bits; in memory it takes
//! [`ElementType::byte_size`](crate::ElementType::byte_size) bytes,
//! little-endian, the unused high bits of a sub-byte value zero (as
//! `ml_dtypes` stores `int4`: -1 is `0x0F`). A complex value is its real
//! part's bits, then its imaginary part's (low bits first).

use super::minifloat::MiniFloat;
use super::subbyte::SubByteInt;
use crate::{
    Complex64, Complex128, Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FN,
    Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, Int1, Int2, Int4, Uint1, Uint2,
    Uint4, bf16, f16,
};

/// A value as its bit pattern.
///
/// ```
/// use oxla_ir::{ElementBits, Int4, SubByteInt, bf16};
/// assert_eq!(Int4::wrapping_from(-1).to_bits128(), 0xf);
/// assert_eq!(<Int4 as ElementBits>::from_bits128(0xff).get(), -1);
/// assert_eq!(bf16::from_f32(1.0).to_bits128(), 0x3f80);
/// ```
pub trait ElementBits: Sized {
    /// The bit pattern, in the low bits.
    fn to_bits128(self) -> u128;
    /// The value whose pattern is the low bits of `bits` (higher bits are
    /// ignored; `pred` is `true` for any non-zero pattern).
    fn from_bits128(bits: u128) -> Self;
}

impl ElementBits for bool {
    fn to_bits128(self) -> u128 {
        u128::from(self)
    }
    fn from_bits128(bits: u128) -> bool {
        bits & 0xff != 0
    }
}

macro_rules! primitive_bits {
    ($($t:ty => $u:ty),*) => {$(
        impl ElementBits for $t {
            fn to_bits128(self) -> u128 {
                u128::from(<$u>::from_ne_bytes(self.to_ne_bytes()))
            }
            fn from_bits128(bits: u128) -> $t {
                <$t>::from_ne_bytes((bits as $u).to_ne_bytes())
            }
        }
    )*};
}
primitive_bits!(
    i8 => u8, i16 => u16, i32 => u32, i64 => u64,
    u8 => u8, u16 => u16, u32 => u32, u64 => u64,
    f32 => u32, f64 => u64
);

macro_rules! half_bits {
    ($($t:ty),*) => {$(
        impl ElementBits for $t {
            fn to_bits128(self) -> u128 {
                u128::from(self.to_bits())
            }
            fn from_bits128(bits: u128) -> $t {
                <$t>::from_bits(bits as u16)
            }
        }
    )*};
}
half_bits!(bf16, f16);

macro_rules! minifloat_bits {
    ($($t:ty),*) => {$(
        impl ElementBits for $t {
            fn to_bits128(self) -> u128 {
                u128::from(MiniFloat::to_bits(self))
            }
            fn from_bits128(bits: u128) -> $t {
                <$t as MiniFloat>::from_bits(bits as u8)
            }
        }
    )*};
}
minifloat_bits!(
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

macro_rules! sub_byte_bits {
    ($($t:ty),*) => {$(
        impl ElementBits for $t {
            fn to_bits128(self) -> u128 {
                u128::from(SubByteInt::to_bits(self))
            }
            fn from_bits128(bits: u128) -> $t {
                <$t as SubByteInt>::wrapping_from((bits & 0xff) as i64)
            }
        }
    )*};
}
sub_byte_bits!(Int1, Int2, Int4, Uint1, Uint2, Uint4);

impl ElementBits for Complex64 {
    fn to_bits128(self) -> u128 {
        self.re.to_bits128() | (self.im.to_bits128() << 32)
    }
    fn from_bits128(bits: u128) -> Complex64 {
        Complex64::new(f32::from_bits128(bits), f32::from_bits128(bits >> 32))
    }
}

impl ElementBits for Complex128 {
    fn to_bits128(self) -> u128 {
        self.re.to_bits128() | (self.im.to_bits128() << 64)
    }
    fn from_bits128(bits: u128) -> Complex128 {
        Complex128::new(f64::from_bits128(bits), f64::from_bits128(bits >> 64))
    }
}
