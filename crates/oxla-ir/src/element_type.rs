//! Element types: the scalar types an array can hold, and the Rust types that
//! stand for them.
//!
//! The set follows XLA's `PrimitiveType`: `pred` (boolean); signed and
//! unsigned integers of 1, 2, 4, 8, 16, 32 and 64 bits; the floats `f64`,
//! `f32`, `bf16`, `f16`, the eight float8 kinds and `f4e2m1fn`; and the
//! complex `c64`/`c128`. `Tuple` is not an element type of any array; it
//! marks a tuple [`Shape`](crate::Shape), as XLA's `TUPLE` does.
//!
//! **One table.** [`element_type_table!`](crate::element_type_table) lists
//! every type once (variant, HLO name, Rust type, bytes, bits, kind); the
//! enum, [`ElementType::ALL`], the names, the sizes, the [`NativeType`]
//! impls, [`ArrayData`](crate::ArrayData) and
//! [`dispatch_array!`](crate::dispatch_array) are generated from it, so a
//! new type is one row (and a compile error wherever a decision is needed).
//!
//! **Memory.** Every type takes whole bytes: sub-byte integers (`s4`, `u2`,
//! ...) and `f4e2m1fn` are stored one value per byte, unpacked, in the low
//! bits, as XLA stores them in a literal (its packing is a layout option
//! oxla does not have). [`ElementType::byte_size`] is that storage size;
//! [`ElementType::bit_width`] the value's width.
//!
//! **Predicates.** The kinds partition the array types: `pred`, signed
//! integer, unsigned integer, float (every real floating type, narrow ones
//! included: `is_float` means "has XLA's float semantics", not "is f32 or
//! f64"), complex. [`ElementType::is_arithmetic`] is integer or float, so
//! complex is outside it; ops that take complex name it in their
//! [`TypeSet`](crate::TypeSet).

use std::fmt;

mod bits;
mod float;
mod minifloat;
mod subbyte;

pub use bits::ElementBits;
pub use float::RealFloat;
pub use minifloat::{
    Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FN, Float8E4M3FNUZ,
    Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, MiniFloat,
};
pub use subbyte::{Int1, Int2, Int4, SubByteInt, Uint1, Uint2, Uint4};

/// The table of element types, handed to a callback macro: one row per
/// array element type, `Variant, "hlo name", RustType, bytes, bits, Kind;`.
/// Every list of types in oxla-ir is generated from these rows.
#[doc(hidden)]
#[macro_export]
macro_rules! element_type_table {
    ($callback:ident { $($args:tt)* }) => {
        $crate::$callback! { { $($args)* }
            Pred, "pred", bool, 1, 1, Pred;
            S1, "s1", $crate::Int1, 1, 1, Signed;
            S2, "s2", $crate::Int2, 1, 2, Signed;
            S4, "s4", $crate::Int4, 1, 4, Signed;
            S8, "s8", i8, 1, 8, Signed;
            S16, "s16", i16, 2, 16, Signed;
            S32, "s32", i32, 4, 32, Signed;
            S64, "s64", i64, 8, 64, Signed;
            U1, "u1", $crate::Uint1, 1, 1, Unsigned;
            U2, "u2", $crate::Uint2, 1, 2, Unsigned;
            U4, "u4", $crate::Uint4, 1, 4, Unsigned;
            U8, "u8", u8, 1, 8, Unsigned;
            U16, "u16", u16, 2, 16, Unsigned;
            U32, "u32", u32, 4, 32, Unsigned;
            U64, "u64", u64, 8, 64, Unsigned;
            F4E2M1FN, "f4e2m1fn", $crate::Float4E2M1FN, 1, 4, Float;
            F8E3M4, "f8e3m4", $crate::Float8E3M4, 1, 8, Float;
            F8E4M3, "f8e4m3", $crate::Float8E4M3, 1, 8, Float;
            F8E4M3FN, "f8e4m3fn", $crate::Float8E4M3FN, 1, 8, Float;
            F8E4M3FNUZ, "f8e4m3fnuz", $crate::Float8E4M3FNUZ, 1, 8, Float;
            F8E4M3B11FNUZ, "f8e4m3b11fnuz", $crate::Float8E4M3B11FNUZ, 1, 8, Float;
            F8E5M2, "f8e5m2", $crate::Float8E5M2, 1, 8, Float;
            F8E5M2FNUZ, "f8e5m2fnuz", $crate::Float8E5M2FNUZ, 1, 8, Float;
            F8E8M0FNU, "f8e8m0fnu", $crate::Float8E8M0FNU, 1, 8, Float;
            Bf16, "bf16", $crate::bf16, 2, 16, Float;
            F16, "f16", $crate::f16, 2, 16, Float;
            F32, "f32", f32, 4, 32, Float;
            F64, "f64", f64, 8, 64, Float;
            C64, "c64", $crate::Complex64, 8, 64, Complex;
            C128, "c128", $crate::Complex128, 16, 128, Complex;
        }
    };
}

/// The kind of an element type: the partition the predicates read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `pred`.
    Pred,
    /// Two's complement integers, `s1` to `s64`.
    Signed,
    /// Unsigned integers, `u1` to `u64`.
    Unsigned,
    /// Real floating-point types, `f4e2m1fn` to `f64`.
    Float,
    /// Complex numbers, `c64` and `c128`.
    Complex,
    /// The element type of a tuple shape.
    Tuple,
    /// The element type of a token shape.
    Token,
}

#[doc(hidden)]
#[macro_export]
macro_rules! __define_element_type {
    ({} $($variant:ident, $name:literal, $rust:ty, $bytes:literal, $bits:literal, $kind:ident;)*) => {
        /// The element type of an array, spelled in HLO text as `pred`,
        /// `s8`, `bf16`, `f8e4m3fn`, `c64`, ... (lower case, XLA's names).
        ///
        /// ```
        /// use oxla_ir::ElementType;
        /// assert_eq!(ElementType::F32.to_string(), "f32");
        /// assert_eq!(ElementType::from_name("u16"), Some(ElementType::U16));
        /// assert_eq!(ElementType::from_name("f8e4m3fn"), Some(ElementType::F8E4M3FN));
        /// assert!(ElementType::S8.is_signed_integer());
        /// assert!(ElementType::Bf16.is_float() && !ElementType::C64.is_float());
        /// assert_eq!(ElementType::F64.byte_size(), 8);
        /// assert_eq!((ElementType::S4.byte_size(), ElementType::S4.bit_width()), (1, 4));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum ElementType {
            $($variant,)*
            /// Not an array element type: the element type of a tuple shape.
            Tuple,
            /// Not an array element type: the type of `token[]`, a value
            /// without data that orders side effects (`after-all`).
            Token,
        }

        impl ElementType {
            /// Every array element type, in the table's order (tests
            /// iterate over it).
            pub const ALL: [ElementType; ElementType::COUNT] = [$(ElementType::$variant),*];

            /// How many array element types there are.
            pub const COUNT: usize = [$(stringify!($variant)),*].len();

            /// The HLO text spelling: `pred`, `s32`, `bf16`, ..., `tuple`.
            pub fn name(self) -> &'static str {
                match self {
                    $(ElementType::$variant => $name,)*
                    ElementType::Tuple => "tuple",
                    ElementType::Token => "token",
                }
            }

            /// Bytes per element in a dense buffer: sub-byte types take one
            /// byte each (unpacked). Zero for `Tuple`.
            pub fn byte_size(self) -> usize {
                match self {
                    $(ElementType::$variant => $bytes,)*
                    ElementType::Tuple | ElementType::Token => 0,
                }
            }

            /// Bit width of the value (1 for `pred`, 4 for `s4`, 64 for
            /// `c64`); zero for `Tuple`.
            pub fn bit_width(self) -> u32 {
                match self {
                    $(ElementType::$variant => $bits,)*
                    ElementType::Tuple | ElementType::Token => 0,
                }
            }

            /// The kind: pred, signed, unsigned, float, complex or tuple.
            pub fn kind(self) -> TypeKind {
                match self {
                    $(ElementType::$variant => TypeKind::$kind,)*
                    ElementType::Tuple => TypeKind::Tuple,
                    ElementType::Token => TypeKind::Token,
                }
            }
        }

        $(
            impl sealed::Sealed for $rust {}
            impl NativeType for $rust {
                const ELEMENT_TYPE: ElementType = ElementType::$variant;
                fn into_data(values: Vec<Self>) -> $crate::ArrayData {
                    $crate::ArrayData::$variant(values)
                }
                fn slice_of(data: &$crate::ArrayData) -> Option<&[Self]> {
                    if let $crate::ArrayData::$variant(v) = data { Some(v) } else { None }
                }
                fn slice_of_mut(data: &mut $crate::ArrayData) -> Option<&mut [Self]> {
                    if let $crate::ArrayData::$variant(v) = data { Some(v) } else { None }
                }
            }
        )*
    };
}

element_type_table!(__define_element_type {});

/// `bf16`: 1 sign, 8 exponent, 7 mantissa bits (the `half` crate's type).
pub use half::bf16;
/// `f16`: IEEE binary16 (the `half` crate's type).
pub use half::f16;
/// `c64`: a pair of `f32` (re, im).
pub type Complex64 = num_complex::Complex<f32>;
/// `c128`: a pair of `f64` (re, im).
pub type Complex128 = num_complex::Complex<f64>;

/// The bits of each part of a float format, for `reduce-precision`,
/// `bitcast-convert` and the printer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatBits {
    /// Exponent bits.
    pub exponent: u32,
    /// Explicit mantissa (fraction) bits.
    pub mantissa: u32,
}

impl ElementType {
    /// Parses the HLO spelling of an array element type.
    pub fn from_name(name: &str) -> Option<ElementType> {
        ElementType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Every real float type: `f4e2m1fn`, the float8 kinds, `bf16`, `f16`,
    /// `f32`, `f64`.
    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    /// `c64` or `c128`.
    pub fn is_complex(self) -> bool {
        self.kind() == TypeKind::Complex
    }

    /// Floats narrower than 32 bits (`bf16`, `f16`, float8, `f4e2m1fn`):
    /// the interpreter computes them in `f32`, rounding after each op.
    pub fn is_narrow_float(self) -> bool {
        self.is_float() && self.bit_width() < 32
    }

    /// `s1` to `s64`.
    pub fn is_signed_integer(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    /// `u1` to `u64`.
    pub fn is_unsigned_integer(self) -> bool {
        self.kind() == TypeKind::Unsigned
    }

    /// Any signed or unsigned integer (not `pred`).
    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    /// Integers narrower than a byte (`s1`..`s4`, `u1`..`u4`), stored one
    /// per byte.
    pub fn is_sub_byte_integer(self) -> bool {
        self.is_integer() && self.bit_width() < 8
    }

    /// Integers and real floats: every array type but `pred` and the
    /// complex types.
    pub fn is_arithmetic(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// `true` for `pred`.
    pub fn is_pred(self) -> bool {
        self == ElementType::Pred
    }

    /// `true` for `Tuple`, the one non-array "element type".
    pub fn is_tuple(self) -> bool {
        self == ElementType::Tuple
    }

    /// `true` for `Token`, the type of `token[]` (not an array).
    pub fn is_token(self) -> bool {
        self == ElementType::Token
    }

    /// The unsigned integer type of `bits` bits (`u1` to `u64`); `None` for
    /// a width no unsigned type has.
    ///
    /// ```
    /// use oxla_ir::ElementType;
    /// assert_eq!(ElementType::unsigned_of_width(4), Some(ElementType::U4));
    /// assert_eq!(ElementType::unsigned_of_width(ElementType::S16.bit_width()), Some(ElementType::U16));
    /// assert_eq!(ElementType::unsigned_of_width(24), None);
    /// ```
    pub fn unsigned_of_width(bits: u32) -> Option<ElementType> {
        ElementType::ALL
            .into_iter()
            .find(|t| t.is_unsigned_integer() && t.bit_width() == bits)
    }

    /// The type of each part of a complex type (`f32` for `c64`, `f64` for
    /// `c128`); `None` for every other type.
    pub fn complex_component(self) -> Option<ElementType> {
        if self == ElementType::C64 {
            Some(ElementType::F32)
        } else if self == ElementType::C128 {
            Some(ElementType::F64)
        } else {
            None
        }
    }

    /// The complex type whose parts are `self` (`c64` for `f32`, `c128`
    /// for `f64`); `None` for every other type.
    pub fn complex_of(self) -> Option<ElementType> {
        ElementType::ALL
            .into_iter()
            .find(|c| c.complex_component() == Some(self))
    }

    /// The exponent and mantissa bits of a real float type; `None` for the
    /// other kinds.
    pub fn float_bits(self) -> Option<FloatBits> {
        let (exponent, mantissa) = match self {
            ElementType::F4E2M1FN => (2, 1),
            ElementType::F8E3M4 => (3, 4),
            ElementType::F8E4M3
            | ElementType::F8E4M3FN
            | ElementType::F8E4M3FNUZ
            | ElementType::F8E4M3B11FNUZ => (4, 3),
            ElementType::F8E5M2 | ElementType::F8E5M2FNUZ => (5, 2),
            ElementType::F8E8M0FNU => (8, 0),
            ElementType::Bf16 => (8, 7),
            ElementType::F16 => (5, 10),
            ElementType::F32 => (8, 23),
            ElementType::F64 => (11, 52),
            ElementType::Pred
            | ElementType::S1
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
            | ElementType::C64
            | ElementType::C128
            | ElementType::Tuple
            | ElementType::Token => return None,
        };
        Some(FloatBits { exponent, mantissa })
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that stands for an array [`ElementType`]: `bool`, `i8`..`i64`,
/// `u8`..`u64`, `f32`, `f64`, [`bf16`], [`f16`], the float8 newtypes
/// ([`Float8E4M3FN`], ...), [`Float4E2M1FN`], the sub-byte integers
/// ([`Int4`], ...), [`Complex64`] and [`Complex128`].
///
/// It is sealed: the set of element types is closed.
///
/// ```
/// use oxla_ir::{bf16, ElementType, NativeType};
/// assert_eq!(<f32 as NativeType>::ELEMENT_TYPE, ElementType::F32);
/// assert_eq!(<bool as NativeType>::ELEMENT_TYPE, ElementType::Pred);
/// assert_eq!(<bf16 as NativeType>::ELEMENT_TYPE, ElementType::Bf16);
/// ```
pub trait NativeType:
    sealed::Sealed + ElementBits + Copy + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The element type this Rust type stands for.
    const ELEMENT_TYPE: ElementType;
    /// Wraps a vector of values into untyped array data.
    fn into_data(values: Vec<Self>) -> crate::ArrayData;
    /// Borrows the values back if `data` holds this type.
    fn slice_of(data: &crate::ArrayData) -> Option<&[Self]>;
    /// Mutably borrows the values if `data` holds this type.
    fn slice_of_mut(data: &mut crate::ArrayData) -> Option<&mut [Self]>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_partition_the_types() {
        for t in ElementType::ALL {
            let kinds = [
                t.is_pred(),
                t.is_signed_integer(),
                t.is_unsigned_integer(),
                t.is_float(),
                t.is_complex(),
            ];
            assert_eq!(kinds.iter().filter(|&&k| k).count(), 1, "{t}");
            assert_eq!(ElementType::from_name(t.name()), Some(t));
            assert!(t.byte_size() * 8 >= t.bit_width() as usize, "{t}");
            assert_eq!(t.float_bits().is_some(), t.is_float(), "{t}");
            if let Some(b) = t.float_bits() {
                let sign = u32::from(t != ElementType::F8E8M0FNU);
                assert_eq!(sign + b.exponent + b.mantissa, t.bit_width(), "{t}");
            }
        }
        assert_eq!(ElementType::ALL.len(), 30);
        assert_eq!(ElementType::from_name("tuple"), None);
        assert_eq!(ElementType::C64.complex_component(), Some(ElementType::F32));
        assert_eq!(ElementType::F64.complex_of(), Some(ElementType::C128));
        assert_eq!(ElementType::Bf16.complex_of(), None);
    }
}
