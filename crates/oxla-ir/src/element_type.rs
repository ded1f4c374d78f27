//! Element types: the scalar types an array can hold, and the Rust types that
//! stand for them.
//!
//! The set follows XLA's `PrimitiveType`: `pred` (boolean), signed and
//! unsigned integers of 8 to 64 bits, and `f32`/`f64`. `Tuple` is not an
//! element type of any array; it marks a tuple [`Shape`](crate::Shape), as
//! XLA's `TUPLE` does.

use std::fmt;

/// The element type of an array, spelled in HLO text as `pred`, `s8`, ...,
/// `f64`.
///
/// ```
/// use oxla_ir::ElementType;
/// assert_eq!(ElementType::F32.to_string(), "f32");
/// assert_eq!(ElementType::from_name("u16"), Some(ElementType::U16));
/// assert!(ElementType::S8.is_signed_integer());
/// assert_eq!(ElementType::F64.byte_size(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    /// Boolean, printed `pred`; one byte per element in memory.
    Pred,
    /// Signed 8-bit integer.
    S8,
    /// Signed 16-bit integer.
    S16,
    /// Signed 32-bit integer.
    S32,
    /// Signed 64-bit integer.
    S64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// IEEE-754 binary32.
    F32,
    /// IEEE-754 binary64.
    F64,
    /// Not an array element type: the element type of a tuple shape.
    Tuple,
}

impl ElementType {
    /// Every array element type, in a fixed order (tests iterate over it).
    pub const ALL: [ElementType; 11] = [
        ElementType::Pred,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::F32,
        ElementType::F64,
    ];

    /// The HLO text spelling: `pred`, `s32`, `f32`, ..., `tuple`.
    pub fn name(self) -> &'static str {
        match self {
            ElementType::Pred => "pred",
            ElementType::S8 => "s8",
            ElementType::S16 => "s16",
            ElementType::S32 => "s32",
            ElementType::S64 => "s64",
            ElementType::U8 => "u8",
            ElementType::U16 => "u16",
            ElementType::U32 => "u32",
            ElementType::U64 => "u64",
            ElementType::F32 => "f32",
            ElementType::F64 => "f64",
            ElementType::Tuple => "tuple",
        }
    }

    /// Parses the HLO spelling of an array element type.
    pub fn from_name(name: &str) -> Option<ElementType> {
        ElementType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Bytes per element in a dense buffer (`pred` takes one byte).
    /// Zero for `Tuple`.
    pub fn byte_size(self) -> usize {
        match self {
            ElementType::Pred | ElementType::S8 | ElementType::U8 => 1,
            ElementType::S16 | ElementType::U16 => 2,
            ElementType::S32 | ElementType::U32 | ElementType::F32 => 4,
            ElementType::S64 | ElementType::U64 | ElementType::F64 => 8,
            ElementType::Tuple => 0,
        }
    }

    /// Bit width of the value (1 for `pred`).
    pub fn bit_width(self) -> u32 {
        match self {
            ElementType::Pred => 1,
            ElementType::S8
            | ElementType::S16
            | ElementType::S32
            | ElementType::S64
            | ElementType::U8
            | ElementType::U16
            | ElementType::U32
            | ElementType::U64
            | ElementType::F32
            | ElementType::F64
            | ElementType::Tuple => self.byte_size() as u32 * 8,
        }
    }

    /// `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, ElementType::F32 | ElementType::F64)
    }

    /// `s8` to `s64`.
    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ElementType::S8 | ElementType::S16 | ElementType::S32 | ElementType::S64
        )
    }

    /// `u8` to `u64`.
    pub fn is_unsigned_integer(self) -> bool {
        matches!(
            self,
            ElementType::U8 | ElementType::U16 | ElementType::U32 | ElementType::U64
        )
    }

    /// Any signed or unsigned integer (not `pred`).
    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    /// Integers and floats: every array type but `pred`.
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
/// `u8`..`u64`, `f32`, `f64`.
///
/// It is sealed: the set of element types is closed.
///
/// ```
/// use oxla_ir::{ElementType, NativeType};
/// assert_eq!(<f32 as NativeType>::ELEMENT_TYPE, ElementType::F32);
/// assert_eq!(<bool as NativeType>::ELEMENT_TYPE, ElementType::Pred);
/// ```
pub trait NativeType:
    sealed::Sealed + Copy + PartialEq + fmt::Debug + Send + Sync + 'static
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

macro_rules! native_types {
    ($($t:ty => $variant:ident),* $(,)?) => {
        $(
            impl sealed::Sealed for $t {}
            impl NativeType for $t {
                const ELEMENT_TYPE: ElementType = ElementType::$variant;
                fn into_data(values: Vec<Self>) -> crate::ArrayData {
                    crate::ArrayData::$variant(values)
                }
                fn slice_of(data: &crate::ArrayData) -> Option<&[Self]> {
                    if let crate::ArrayData::$variant(v) = data { Some(v) } else { None }
                }
                fn slice_of_mut(data: &mut crate::ArrayData) -> Option<&mut [Self]> {
                    if let crate::ArrayData::$variant(v) = data { Some(v) } else { None }
                }
            }
        )*
    };
}

native_types!(
    bool => Pred, i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, f32 => F32, f64 => F64,
);
