//! The arithmetic of one element: what every elementwise op computes for a
//! single value of each element type, with XLA's semantics.
//!
//! [`Element`] is implemented once per Rust type by three macros (signed
//! integers, unsigned integers, floats) and by hand for `bool`. Each op is
//! looked up once per instruction as a plain `fn` pointer
//! ([`Element::unary_fn`], [`Element::binary_fn`]); `None` means the op is not
//! defined for the type, which shape inference already rules out, so the
//! interpreter reports it as an evaluation error rather than guessing.
//!
//! Conversions go through [`Conv`], a value that holds any element exactly
//! (`bool`, every integer as `i128`, every float as `f64`), so the 121
//! source/target pairs of `convert` are two small functions per type.

use oxla_ir::{BinaryOp, ComparisonDirection, NativeType, UnaryOp};

/// A value of any element type, held exactly: the middle step of `convert`
/// and `iota`. (`f32` widens to `f64` exactly; every integer fits `i128`.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Conv {
    /// A `pred`.
    Pred(bool),
    /// Any signed or unsigned integer.
    Int(i128),
    /// Any real float (every one is exact in `f64`).
    Float(f64),
    /// `c64` or `c128`: (re, im).
    Complex(f64, f64),
}

/// XLA's semantics for one element type.
pub(crate) trait Element: NativeType {
    /// The value as a [`Conv`] (exact).
    fn to_conv(self) -> Conv;

    /// XLA's `convert` from any value: integers wrap to the target width,
    /// floats truncate toward zero and saturate into an integer type (NaN
    /// gives 0), integers round to the nearest float (ties to even), `f64`
    /// rounds to `f32`, `pred` becomes 0 or 1, and a number becomes `pred`
    /// as `x != 0` (so NaN is `true`).
    fn from_conv(value: Conv) -> Self;

    /// The unary op as a function, or `None` where the type does not have
    /// it. `is-finite` (whose result is `pred`) is not here.
    fn unary_fn(op: UnaryOp) -> Option<fn(Self) -> Self>;

    /// The binary op as a function, or `None` where the type does not have
    /// it. Comparisons (whose result is `pred`) are not here: see
    /// [`compare`].
    fn binary_fn(op: BinaryOp) -> Option<fn(Self, Self) -> Self>;

    /// The additive zero, where a `dot` starts accumulating.
    fn zero() -> Self {
        Self::from_conv(Conv::Int(0))
    }

    /// `a <direction> b` (see [`compare`]).
    fn compare(direction: ComparisonDirection, a: Self, b: Self) -> bool;
    /// The value's place in the total order of `compare ...,
    /// type=TOTALORDER`, or `None` for the types without one (every type
    /// but the floats): XLA's rule, the bits read as a signed integer `i`
    /// of the same width and mapped to `i < 0 ? i ^ INT_MAX : i`.
    fn total_order_key(self) -> Option<i64> {
        None
    }
}

/// `a <direction> b` in the total order of floats (`TOTALORDER`): the keys
/// of [`Element::total_order_key`] compared as integers, `EQ` and `NE`
/// included (so `-0 != +0`, and a NaN equals a NaN with the same bits).
/// `None` for a type without a total order.
pub(crate) fn compare_total<T: Element>(
    direction: ComparisonDirection,
    a: T,
    b: T,
) -> Option<bool> {
    Some(compare(
        direction,
        a.total_order_key()?,
        b.total_order_key()?,
    ))
}

/// `a <direction> b`: IEEE for floats (every comparison with NaN is false
/// except `NE`), `false < true` for `pred`, unsigned order for unsigned
/// integers; complex values are only equal or not (shape inference refuses
/// the ordered directions on them).
pub(crate) fn compare<T: Element>(direction: ComparisonDirection, a: T, b: T) -> bool {
    T::compare(direction, a, b)
}

/// [`compare`] for the types whose `PartialOrd` is XLA's order: every real
/// type.
pub(crate) fn ordered<T: PartialOrd>(direction: ComparisonDirection, a: T, b: T) -> bool {
    match direction {
        ComparisonDirection::Eq => a == b,
        ComparisonDirection::Ne => a != b,
        ComparisonDirection::Lt => a < b,
        ComparisonDirection::Le => a <= b,
        ComparisonDirection::Gt => a > b,
        ComparisonDirection::Ge => a >= b,
    }
}

/// `base^exponent` by repeated squaring with wrapping multiplication: the
/// exact value modulo 2^bits. `$t` is an unsigned type; signed callers pass
/// the bit pattern (two's complement makes the result the same).
macro_rules! wrapping_pow {
    ($name:ident, $t:ty) => {
        fn $name(mut base: $t, mut exponent: $t) -> $t {
            let mut acc: $t = 1;
            while exponent != 0 {
                if exponent & 1 == 1 {
                    acc = acc.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                exponent >>= 1;
            }
            acc
        }
    };
}
wrapping_pow!(pow_u8, u8);
wrapping_pow!(pow_u16, u16);
wrapping_pow!(pow_u32, u32);
wrapping_pow!(pow_u64, u64);

impl Element for bool {
    fn compare(direction: ComparisonDirection, a: bool, b: bool) -> bool {
        ordered(direction, a, b)
    }

    fn to_conv(self) -> Conv {
        Conv::Pred(self)
    }

    fn from_conv(value: Conv) -> bool {
        match value {
            Conv::Pred(b) => b,
            Conv::Int(i) => i != 0,
            Conv::Float(f) => f != 0.0,
            Conv::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }

    fn unary_fn(op: UnaryOp) -> Option<fn(bool) -> bool> {
        match op {
            UnaryOp::Not => Some(|x| !x),
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Exp
            | UnaryOp::Expm1
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::RoundNearestEven
            | UnaryOp::IsFinite
            | UnaryOp::PopCnt
            | UnaryOp::Clz
            | UnaryOp::Erf
            | UnaryOp::Cbrt
            | UnaryOp::Tan
            | UnaryOp::RoundNearestAfz => None,
        }
    }

    fn binary_fn(op: BinaryOp) -> Option<fn(bool, bool) -> bool> {
        // `add` and `max` are `or`, `multiply` and `min` are `and`: what
        // XLA's evaluator gets by computing in `bool`.
        let f: fn(bool, bool) -> bool = match op {
            BinaryOp::Add | BinaryOp::Max | BinaryOp::Or => |a, b| a | b,
            BinaryOp::Mul | BinaryOp::Min | BinaryOp::And => |a, b| a & b,
            BinaryOp::Xor => |a, b| a ^ b,
            BinaryOp::Sub
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Pow
            | BinaryOp::Atan2
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical
            | BinaryOp::Compare(..) => return None,
        };
        Some(f)
    }
}

/// The conversions every integer type shares.
macro_rules! integer_common {
    ($t:ty) => {
        fn compare(direction: ComparisonDirection, a: $t, b: $t) -> bool {
            ordered(direction, a, b)
        }

        fn to_conv(self) -> Conv {
            Conv::Int(self as i128)
        }

        fn from_conv(value: Conv) -> $t {
            match value {
                Conv::Pred(b) => b as $t,
                // `as` from a wider integer keeps the low bits (wraps).
                Conv::Int(i) => i as $t,
                // `as` from a float truncates toward zero, saturates, and
                // maps NaN to 0: XLA's convert. Complex: the real part.
                Conv::Float(f) | Conv::Complex(f, _) => f as $t,
            }
        }
    };
}

/// Shifts shared by signed and unsigned integers. The amount is read as
/// unsigned, so a negative amount is a huge one; amounts of the bit width
/// or more give 0 (left, logical) or the sign fill (arithmetic). The
/// arithmetic shift looks at the signed bit pattern even for unsigned
/// types, the logical one at the unsigned pattern even for signed types.
macro_rules! integer_shift {
    ($t:ty, $signed:ty, $unsigned:ty, $op:expr) => {{
        const BITS: $unsigned = <$t>::BITS as $unsigned;
        let f: fn($t, $t) -> $t = match $op {
            ShiftKind::Left => |a, b| {
                let s = b as $unsigned;
                if s >= BITS { 0 } else { a << s as u32 }
            },
            ShiftKind::RightArithmetic => |a, b| {
                let s = b as $unsigned;
                let signed = a as $signed;
                if s >= BITS {
                    if signed < 0 { !0 } else { 0 }
                } else {
                    (signed >> s as u32) as $t
                }
            },
            ShiftKind::RightLogical => |a, b| {
                let s = b as $unsigned;
                if s >= BITS {
                    0
                } else {
                    ((a as $unsigned) >> s as u32) as $t
                }
            },
        };
        f
    }};
}

/// Which shift, so that [`integer_shift`] can be shared.
#[derive(Clone, Copy)]
enum ShiftKind {
    Left,
    RightArithmetic,
    RightLogical,
}

macro_rules! signed_element {
    ($t:ty, $unsigned:ty, $pow:ident) => {
        impl Element for $t {
            integer_common!($t);

            fn unary_fn(op: UnaryOp) -> Option<fn($t) -> $t> {
                let f: fn($t) -> $t = match op {
                    UnaryOp::Neg => <$t>::wrapping_neg,
                    UnaryOp::Abs => <$t>::wrapping_abs,
                    UnaryOp::Sign => <$t>::signum,
                    UnaryOp::Not => |x| !x,
                    // On the element's own bits: `popcnt(-1i8) = 8`.
                    UnaryOp::PopCnt => |x| x.count_ones() as $t,
                    UnaryOp::Clz => |x| x.leading_zeros() as $t,
                    // Defined on floats only (the op table's `Float` rows).
                    UnaryOp::Erf
                    | UnaryOp::Cbrt
                    | UnaryOp::Tan
                    | UnaryOp::RoundNearestAfz
                    | UnaryOp::Exp
                    | UnaryOp::Expm1
                    | UnaryOp::Log
                    | UnaryOp::Log1p
                    | UnaryOp::Sqrt
                    | UnaryOp::Rsqrt
                    | UnaryOp::Tanh
                    | UnaryOp::Logistic
                    | UnaryOp::Sin
                    | UnaryOp::Cos
                    | UnaryOp::Floor
                    | UnaryOp::Ceil
                    | UnaryOp::RoundNearestEven
                    | UnaryOp::IsFinite => return None,
                };
                Some(f)
            }

            fn binary_fn(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                let f: fn($t, $t) -> $t = match op {
                    BinaryOp::Add => <$t>::wrapping_add,
                    BinaryOp::Sub => <$t>::wrapping_sub,
                    BinaryOp::Mul => <$t>::wrapping_mul,
                    // x / 0 = -1; MIN / -1 = MIN (what wrapping_div gives).
                    BinaryOp::Div => |a, b| if b == 0 { -1 } else { a.wrapping_div(b) },
                    // x % 0 = x; MIN % -1 = 0 (what wrapping_rem gives).
                    BinaryOp::Rem => |a, b| if b == 0 { a } else { a.wrapping_rem(b) },
                    BinaryOp::Max => |a, b| a.max(b),
                    BinaryOp::Min => |a, b| a.min(b),
                    // XLA: 1^y = 1 and x^0 = 1; a negative exponent gives 0
                    // for every other base (-1 included); otherwise the
                    // wrapped exact power.
                    BinaryOp::Pow => |a, b| {
                        if a == 1 || b == 0 {
                            1
                        } else if b < 0 {
                            0
                        } else {
                            $pow(a as $unsigned, b as $unsigned) as $t
                        }
                    },
                    BinaryOp::And => |a, b| a & b,
                    BinaryOp::Or => |a, b| a | b,
                    BinaryOp::Xor => |a, b| a ^ b,
                    BinaryOp::ShiftLeft => integer_shift!($t, $t, $unsigned, ShiftKind::Left),
                    BinaryOp::ShiftRightArithmetic => {
                        integer_shift!($t, $t, $unsigned, ShiftKind::RightArithmetic)
                    }
                    BinaryOp::ShiftRightLogical => {
                        integer_shift!($t, $t, $unsigned, ShiftKind::RightLogical)
                    }
                    BinaryOp::Atan2 | BinaryOp::Compare(..) => return None,
                };
                Some(f)
            }
        }
    };
}

macro_rules! unsigned_element {
    ($t:ty, $signed:ty, $pow:ident) => {
        impl Element for $t {
            integer_common!($t);

            fn unary_fn(op: UnaryOp) -> Option<fn($t) -> $t> {
                let f: fn($t) -> $t = match op {
                    UnaryOp::Neg => <$t>::wrapping_neg,
                    UnaryOp::Abs => |x| x,
                    UnaryOp::Sign => |x| if x == 0 { 0 } else { 1 },
                    UnaryOp::Not => |x| !x,
                    // On the element's own bits: `popcnt(-1i8) = 8`.
                    UnaryOp::PopCnt => |x| x.count_ones() as $t,
                    UnaryOp::Clz => |x| x.leading_zeros() as $t,
                    // Defined on floats only (the op table's `Float` rows).
                    UnaryOp::Erf
                    | UnaryOp::Cbrt
                    | UnaryOp::Tan
                    | UnaryOp::RoundNearestAfz
                    | UnaryOp::Exp
                    | UnaryOp::Expm1
                    | UnaryOp::Log
                    | UnaryOp::Log1p
                    | UnaryOp::Sqrt
                    | UnaryOp::Rsqrt
                    | UnaryOp::Tanh
                    | UnaryOp::Logistic
                    | UnaryOp::Sin
                    | UnaryOp::Cos
                    | UnaryOp::Floor
                    | UnaryOp::Ceil
                    | UnaryOp::RoundNearestEven
                    | UnaryOp::IsFinite => return None,
                };
                Some(f)
            }

            fn binary_fn(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                let f: fn($t, $t) -> $t = match op {
                    BinaryOp::Add => <$t>::wrapping_add,
                    BinaryOp::Sub => <$t>::wrapping_sub,
                    BinaryOp::Mul => <$t>::wrapping_mul,
                    // x / 0 = MAX (all bits set).
                    BinaryOp::Div => |a, b| if b == 0 { <$t>::MAX } else { a / b },
                    // x % 0 = x.
                    BinaryOp::Rem => |a, b| if b == 0 { a } else { a % b },
                    BinaryOp::Max => |a, b| a.max(b),
                    BinaryOp::Min => |a, b| a.min(b),
                    BinaryOp::Pow => $pow,
                    BinaryOp::And => |a, b| a & b,
                    BinaryOp::Or => |a, b| a | b,
                    BinaryOp::Xor => |a, b| a ^ b,
                    BinaryOp::ShiftLeft => integer_shift!($t, $signed, $t, ShiftKind::Left),
                    BinaryOp::ShiftRightArithmetic => {
                        integer_shift!($t, $signed, $t, ShiftKind::RightArithmetic)
                    }
                    BinaryOp::ShiftRightLogical => {
                        integer_shift!($t, $signed, $t, ShiftKind::RightLogical)
                    }
                    BinaryOp::Atan2 | BinaryOp::Compare(..) => return None,
                };
                Some(f)
            }
        }
    };
}

signed_element!(i8, u8, pow_u8);
signed_element!(i16, u16, pow_u16);
signed_element!(i32, u32, pow_u32);
signed_element!(i64, u64, pow_u64);
unsigned_element!(u8, i8, pow_u8);
unsigned_element!(u16, i16, pow_u16);
unsigned_element!(u32, i32, pow_u32);
unsigned_element!(u64, i64, pow_u64);

macro_rules! float_element {
    ($t:ty, $signed:ty, $max:ident, $min:ident, $erf:path, $cbrt:path, $tan:path) => {
        /// XLA's `maximum`: NaN if either operand is NaN (the left one
        /// first), and `-0 < +0`.
        fn $max(a: $t, b: $t) -> $t {
            if a.is_nan() {
                a
            } else if b.is_nan() {
                b
            } else if a == b {
                // Equal: only the signs of zeros can differ; +0 wins.
                if a.is_sign_negative() { b } else { a }
            } else if a > b {
                a
            } else {
                b
            }
        }

        /// XLA's `minimum`: NaN if either operand is NaN (the left one
        /// first), and `-0 < +0`.
        fn $min(a: $t, b: $t) -> $t {
            if a.is_nan() {
                a
            } else if b.is_nan() {
                b
            } else if a == b {
                // Equal: only the signs of zeros can differ; -0 wins.
                if a.is_sign_negative() { a } else { b }
            } else if a < b {
                a
            } else {
                b
            }
        }

        impl Element for $t {
            fn compare(direction: ComparisonDirection, a: $t, b: $t) -> bool {
                ordered(direction, a, b)
            }

            fn to_conv(self) -> Conv {
                Conv::Float(self as f64)
            }

            fn total_order_key(self) -> Option<i64> {
                let i = self.to_bits() as $signed;
                Some(i64::from(if i < 0 { i ^ <$signed>::MAX } else { i }))
            }

            fn from_conv(value: Conv) -> $t {
                match value {
                    Conv::Pred(b) => {
                        if b {
                            1.0
                        } else {
                            0.0
                        }
                    }
                    // `as` from an integer rounds to nearest, ties to even.
                    Conv::Int(i) => i as $t,
                    // Exact for f32 -> f64 -> f32; rounds for f64 -> f32.
                    // Complex: the real part.
                    Conv::Float(f) | Conv::Complex(f, _) => f as $t,
                }
            }

            fn unary_fn(op: UnaryOp) -> Option<fn($t) -> $t> {
                let f: fn($t) -> $t = match op {
                    UnaryOp::Neg => |x| -x,
                    UnaryOp::Abs => <$t>::abs,
                    // ±1 by the sign; ±0 and NaN are returned unchanged.
                    UnaryOp::Sign => |x| {
                        if x.is_nan() || x == 0.0 {
                            x
                        } else {
                            (1.0 as $t).copysign(x)
                        }
                    },
                    UnaryOp::Exp => <$t>::exp,
                    UnaryOp::Expm1 => <$t>::exp_m1,
                    UnaryOp::Log => <$t>::ln,
                    UnaryOp::Log1p => <$t>::ln_1p,
                    UnaryOp::Sqrt => <$t>::sqrt,
                    UnaryOp::Rsqrt => |x| 1.0 / x.sqrt(),
                    UnaryOp::Tanh => <$t>::tanh,
                    UnaryOp::Logistic => |x| 1.0 / (1.0 + (-x).exp()),
                    UnaryOp::Sin => <$t>::sin,
                    UnaryOp::Cos => <$t>::cos,
                    UnaryOp::Floor => <$t>::floor,
                    UnaryOp::Ceil => <$t>::ceil,
                    UnaryOp::RoundNearestEven => <$t>::round_ties_even,
                    // Ties away from zero: `round`, not `floor(x + 0.5)`.
                    UnaryOp::RoundNearestAfz => <$t>::round,
                    UnaryOp::Erf => $erf,
                    UnaryOp::Cbrt => $cbrt,
                    UnaryOp::Tan => $tan,
                    UnaryOp::Not | UnaryOp::IsFinite | UnaryOp::PopCnt | UnaryOp::Clz => {
                        return None;
                    }
                };
                Some(f)
            }

            fn binary_fn(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                let f: fn($t, $t) -> $t = match op {
                    BinaryOp::Add => |a, b| a + b,
                    BinaryOp::Sub => |a, b| a - b,
                    BinaryOp::Mul => |a, b| a * b,
                    BinaryOp::Div => |a, b| a / b,
                    // C's fmod: the sign of the dividend.
                    BinaryOp::Rem => |a, b| a % b,
                    BinaryOp::Max => $max,
                    BinaryOp::Min => $min,
                    BinaryOp::Pow => <$t>::powf,
                    BinaryOp::Atan2 => <$t>::atan2,
                    BinaryOp::And
                    | BinaryOp::Or
                    | BinaryOp::Xor
                    | BinaryOp::ShiftLeft
                    | BinaryOp::ShiftRightArithmetic
                    | BinaryOp::ShiftRightLogical
                    | BinaryOp::Compare(..) => return None,
                };
                Some(f)
            }
        }
    };
}

// `erf`, `cbrt` and `tan` come from `libm` (a port of musl's libm) rather
// than the platform's: the same bits on every host, and the JIT calls the
// very same functions (docs/jit-accuracy.md gives their measured error).
float_element!(
    f32,
    i32,
    max_f32,
    min_f32,
    libm::erff,
    libm::cbrtf,
    libm::tanf
);
float_element!(f64, i64, max_f64, min_f64, libm::erf, libm::cbrt, libm::tan);

#[cfg(test)]
mod tests {
    use super::*;

    fn bin<T: Element>(op: BinaryOp, a: T, b: T) -> T {
        (T::binary_fn(op).expect("defined"))(a, b)
    }

    #[test]
    fn integer_edge_cases() {
        assert_eq!(bin(BinaryOp::Div, i32::MIN, -1), i32::MIN);
        assert_eq!(bin(BinaryOp::Div, 7i8, 0), -1);
        assert_eq!(bin(BinaryOp::Div, 7u16, 0), u16::MAX);
        assert_eq!(bin(BinaryOp::Rem, i64::MIN, -1), 0);
        assert_eq!(bin(BinaryOp::Rem, -7i32, 0), -7);
        assert_eq!(bin(BinaryOp::Rem, -7i32, 2), -1);
        assert_eq!(bin(BinaryOp::Pow, 3i32, 4), 81);
        assert_eq!(bin(BinaryOp::Pow, -1i32, -3), 0);
        assert_eq!(bin(BinaryOp::Pow, 1i32, -3), 1);
        assert_eq!(bin(BinaryOp::Pow, 0i32, 0), 1);
        assert_eq!(bin(BinaryOp::Pow, 2u8, 9), 0);
        assert_eq!(bin(BinaryOp::Pow, 3u8, 5), 243);
        assert_eq!(bin(BinaryOp::ShiftRightArithmetic, 0x80u8, 1), 0xC0);
        assert_eq!(bin(BinaryOp::ShiftRightArithmetic, 0x80u8, 8), 0xFF);
        assert_eq!(bin(BinaryOp::ShiftRightLogical, -1i8, 1), 0x7F);
        assert_eq!(bin(BinaryOp::ShiftLeft, 1i16, -1), 0);
    }

    #[test]
    fn float_max_min_zero_and_nan() {
        assert!(bin(BinaryOp::Max, -0.0f32, 0.0).is_sign_positive());
        assert!(bin(BinaryOp::Max, 0.0f32, -0.0).is_sign_positive());
        assert!(bin(BinaryOp::Min, 0.0f64, -0.0).is_sign_negative());
        assert!(bin(BinaryOp::Min, -0.0f64, 0.0).is_sign_negative());
        assert!(bin(BinaryOp::Max, 1.0f32, f32::NAN).is_nan());
        assert!(bin(BinaryOp::Min, f64::NAN, 1.0).is_nan());
    }

    #[test]
    fn conversions() {
        assert_eq!(i32::from_conv(f32::NAN.to_conv()), 0);
        assert_eq!(i32::from_conv(1e10f32.to_conv()), i32::MAX);
        assert_eq!(u8::from_conv((-1.5f64).to_conv()), 0);
        assert_eq!(i8::from_conv(300i32.to_conv()), 44);
        assert_eq!(f32::from_conv(16_777_217i64.to_conv()), 16_777_216.0);
        assert!(bool::from_conv(f32::NAN.to_conv()));
        assert_eq!(u64::from_conv(u64::MAX.to_conv()), u64::MAX);
    }
}
