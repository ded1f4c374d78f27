//! The sub-byte integers `s1`, `s2`, `s4`, `u1`, `u2`, `u4`: newtypes over
//! `i8`/`u8` whose value always fits the type's width (the constructors
//! wrap, as XLA's `convert` and arithmetic do: the low bits are kept, then
//! sign-extended for the signed kinds). One value per byte in memory.

use std::fmt;

/// What every sub-byte integer offers.
///
/// ```
/// use oxla_ir::{Int4, SubByteInt, Uint2};
/// assert_eq!(Int4::wrapping_from(7).get(), 7);
/// assert_eq!(Int4::wrapping_from(8).get(), -8);
/// assert_eq!(Int4::wrapping_from(-9).get(), 7);
/// assert_eq!(Uint2::wrapping_from(5).get(), 1);
/// assert!(Int4::new(9).is_none());
/// ```
pub trait SubByteInt: Copy {
    /// The width in bits.
    const BITS: u32;
    /// `true` for the two's complement kinds.
    const SIGNED: bool;
    /// The smallest value.
    const MIN: i64;
    /// The largest value.
    const MAX: i64;
    /// The value, as an `i64`.
    fn get(self) -> i64;
    /// The low [`SubByteInt::BITS`] bits of `value`, read as this type.
    fn wrapping_from(value: i64) -> Self;
    /// `value` if it is in range.
    fn new(value: i64) -> Option<Self> {
        (Self::MIN..=Self::MAX)
            .contains(&value)
            .then(|| Self::wrapping_from(value))
    }
    /// The bit pattern, in the low bits.
    fn to_bits(self) -> u8 {
        (self.get() as u8) & ((1u16 << Self::BITS) - 1) as u8
    }
}

macro_rules! sub_byte {
    ($(#[$meta:meta])* $name:ident, $repr:ty, $bits:literal, $signed:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name($repr);

        impl SubByteInt for $name {
            const BITS: u32 = $bits;
            const SIGNED: bool = $signed;
            const MIN: i64 = if $signed { -(1 << ($bits - 1)) } else { 0 };
            const MAX: i64 = if $signed { (1 << ($bits - 1)) - 1 } else { (1 << $bits) - 1 };
            fn get(self) -> i64 {
                i64::from(self.0)
            }
            fn wrapping_from(value: i64) -> Self {
                let low = value & ((1 << $bits) - 1);
                let v = if $signed && low >= 1 << ($bits - 1) {
                    low - (1 << $bits)
                } else {
                    low
                };
                $name(v as $repr)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

sub_byte!(
    /// `s1`: a signed 1-bit integer, -1 or 0.
    Int1, i8, 1, true
);
sub_byte!(
    /// `s2`: a signed 2-bit integer, -2 to 1.
    Int2, i8, 2, true
);
sub_byte!(
    /// `s4`: a signed 4-bit integer, -8 to 7.
    Int4, i8, 4, true
);
sub_byte!(
    /// `u1`: an unsigned 1-bit integer, 0 or 1.
    Uint1, u8, 1, false
);
sub_byte!(
    /// `u2`: an unsigned 2-bit integer, 0 to 3.
    Uint2, u8, 2, false
);
sub_byte!(
    /// `u4`: an unsigned 4-bit integer, 0 to 15.
    Uint4, u8, 4, false
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_wrapping() {
        assert_eq!((Int1::MIN, Int1::MAX), (-1, 0));
        assert_eq!((Int2::MIN, Int2::MAX), (-2, 1));
        assert_eq!((Uint4::MIN, Uint4::MAX), (0, 15));
        assert_eq!(Int1::wrapping_from(1).get(), -1);
        assert_eq!(Uint1::wrapping_from(3).get(), 1);
        assert_eq!(Int4::wrapping_from(-8).to_bits(), 0x8);
        assert_eq!(Int2::wrapping_from(-1).to_bits(), 0x3);
        for v in -40..40 {
            let w = Int4::wrapping_from(v).get();
            assert!((-8..=7).contains(&w) && (v - w) % 16 == 0);
        }
    }
}
