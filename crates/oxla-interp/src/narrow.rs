//! The element types whose arithmetic is another type's, rounded back:
//! the narrow floats compute every op in `f32` and round the result after
//! each op, as XLA:CPU does (checked against JAX over every value of each
//! float8 kind and every pair for `+ - × ÷`): `bf16` and `f16` round once;
//! the float8 kinds and `f4e2m1fn` round to `f16` first, then to their type
//! (XLA:CPU computes them in `f16`, so a result halfway in the narrow type
//! after the first rounding goes to even: `exp(-0.375)` in `f8e5m2` is
//! 0.75, not 0.625); `f8e8m0fnu`, whose range `f16` lacks, rounds once.
//! `logistic` is XLA's expansion `1 / (1 + exp(-x))` with every step
//! rounded to the type, as XLA:CPU expands it before widening. XLA:CPU
//! also flushes `f32` subnormals to zero, which the interpreter does not:
//! results below `2^-126` can differ there. The
//! sub-byte integers (`s1`..`s4`, `u1`..`u4`) compute in `i8`/`u8` and
//! wrap to their width, except for the shifts, which see the type's own
//! width.
//!
//! The ops are taken from the wider type's [`Element`] impl, so every op
//! that type has flows here without a line per op: a table of `fn`
//! pointers, one per op of the op table, each a generic function that
//! looks its op up by index ([`TABLE_SIZE`] bounds the table; a test
//! checks that it covers every op).

use oxla_ir::{
    BinaryOp, ComparisonDirection, Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ,
    Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, Int1, Int2, Int4,
    RealFloat, SubByteInt, Uint1, Uint2, Uint4, UnaryOp, bf16, f16,
};

use crate::element::{Conv, Element, ordered};

/// How many ops the lifted tables hold (at least `UnaryOp::ALL.len()` and
/// `BinaryOp::ALL.len()`).
pub(crate) const TABLE_SIZE: usize = 48;

/// A type computed as another ([`Lift::Wide`]) and converted back.
pub(crate) trait Lift: Copy + 'static {
    /// The type the ops run in.
    type Wide: Element;
    /// The value in the wide type (exact).
    fn widen(self) -> Self::Wide;
    /// The wide result rounded (floats) or wrapped (integers) back.
    fn narrow(wide: Self::Wide) -> Self;
}

fn lifted_unary<T: Lift, const K: usize>(x: T) -> T {
    match UnaryOp::ALL
        .get(K)
        .and_then(|&op| <T::Wide as Element>::unary_fn(op))
    {
        Some(f) => T::narrow(f(x.widen())),
        None => x,
    }
}

fn lifted_binary<T: Lift, const K: usize>(a: T, b: T) -> T {
    match BinaryOp::ALL
        .get(K)
        .and_then(|&op| <T::Wide as Element>::binary_fn(op))
    {
        Some(f) => T::narrow(f(a.widen(), b.widen())),
        None => a,
    }
}

macro_rules! tables {
    ($($k:literal)*) => {
        fn unary_table<T: Lift>() -> [fn(T) -> T; TABLE_SIZE] {
            [$(lifted_unary::<T, $k>),*]
        }
        fn binary_table<T: Lift>() -> [fn(T, T) -> T; TABLE_SIZE] {
            [$(lifted_binary::<T, $k>),*]
        }
    };
}
tables!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
    24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
);

/// `op` on `T` through its wide type, if the wide type has it.
pub(crate) fn unary_via_wide<T: Lift>(op: UnaryOp) -> Option<fn(T) -> T> {
    <T::Wide as Element>::unary_fn(op)?;
    let k = UnaryOp::ALL.iter().position(|&o| o == op)?;
    unary_table::<T>().get(k).copied()
}

/// `op` on `T` through its wide type, if the wide type has it.
pub(crate) fn binary_via_wide<T: Lift>(op: BinaryOp) -> Option<fn(T, T) -> T> {
    <T::Wide as Element>::binary_fn(op)?;
    let k = BinaryOp::ALL.iter().position(|&o| o == op)?;
    binary_table::<T>().get(k).copied()
}

/// XLA's `logistic` expansion, `1 / (1 + exp(-x))`, each step in `T`.
fn logistic<T: Element>(x: T) -> T {
    let op = |u: UnaryOp| T::unary_fn(u);
    let bin = |b: BinaryOp| T::binary_fn(b);
    match (
        op(UnaryOp::Neg),
        op(UnaryOp::Exp),
        bin(BinaryOp::Add),
        bin(BinaryOp::Div),
    ) {
        (Some(neg), Some(exp), Some(add), Some(div)) => {
            let one = T::from_conv(Conv::Int(1));
            div(one, add(one, exp(neg(x))))
        }
        _ => x,
    }
}

/// `op` on a narrow float: [`unary_via_wide`], but `logistic` expanded.
fn narrow_float_unary<T: Lift + Element>(op: UnaryOp) -> Option<fn(T) -> T> {
    if op == UnaryOp::Logistic {
        Some(logistic::<T>)
    } else {
        unary_via_wide::<T>(op)
    }
}

/// XLA's total-order key for a narrow float's bit pattern: the bits read
/// as a signed integer `i` of the type's width, `i < 0 ? i ^ INT_MAX : i`;
/// `f8e8m0fnu`, which has no sign bit, orders by its bits.
fn narrow_total_order_key(bits: u128, ty: oxla_ir::ElementType) -> i64 {
    let width = ty.bit_width();
    let bits = bits as i64 & ((1i64 << width) - 1);
    if ty == oxla_ir::ElementType::F8E8M0FNU {
        return bits;
    }
    let max = (1i64 << (width - 1)) - 1;
    let i = if bits > max {
        bits - (1i64 << width)
    } else {
        bits
    };
    if i < 0 { i ^ max } else { i }
}

/// The rounding of a result computed in `f32`: once for `bf16`, `f16` and
/// `f8e8m0fnu`, through `f16` for the other float8 kinds and `f4e2m1fn`.
trait Rounding {
    const THROUGH_F16: bool;
}

macro_rules! narrow_float {
    ($($t:ty => $through_f16:literal),*) => {$(
        impl Rounding for $t {
            const THROUGH_F16: bool = $through_f16;
        }

        impl Lift for $t {
            type Wide = f32;
            fn widen(self) -> f32 {
                RealFloat::to_f32(self)
            }
            fn narrow(wide: f32) -> $t {
                if <$t as Rounding>::THROUGH_F16 {
                    RealFloat::from_f32(f16::from_f32(wide).to_f32())
                } else {
                    RealFloat::from_f32(wide)
                }
            }
        }

        impl Element for $t {
            fn compare(direction: ComparisonDirection, a: $t, b: $t) -> bool {
                ordered(direction, RealFloat::to_f64(a), RealFloat::to_f64(b))
            }

            fn to_conv(self) -> Conv {
                Conv::Float(RealFloat::to_f64(self))
            }

            /// Rounded once to the type, from the exact value.
            fn from_conv(value: Conv) -> $t {
                let x = match value {
                    Conv::Pred(b) => f64::from(u8::from(b)),
                    Conv::Int(i) => i as f64,
                    Conv::Float(f) | Conv::Complex(f, _) => f,
                };
                RealFloat::from_f64(x)
            }

            fn unary_fn(op: UnaryOp) -> Option<fn($t) -> $t> {
                narrow_float_unary::<$t>(op)
            }

            fn total_order_key(self) -> Option<i64> {
                Some(narrow_total_order_key(
                    oxla_ir::ElementBits::to_bits128(self),
                    <$t as oxla_ir::NativeType>::ELEMENT_TYPE,
                ))
            }

            fn binary_fn(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                binary_via_wide::<$t>(op)
            }
        }
    )*};
}
narrow_float!(
    bf16 => false,
    f16 => false,
    Float8E4M3FN => true,
    Float8E5M2 => true,
    Float8E4M3 => true,
    Float8E3M4 => true,
    Float8E4M3FNUZ => true,
    Float8E5M2FNUZ => true,
    Float8E4M3B11FNUZ => true,
    Float8E8M0FNU => false,
    Float4E2M1FN => true
);

/// The shifts at a sub-byte width: the amount is read as the unsigned bit
/// pattern; amounts of the width or more give 0 (left, logical) or the
/// sign fill (arithmetic), which looks at the type's own top bit.
fn shift_left<T: SubByteInt>(a: T, b: T) -> T {
    let s = u32::from(b.to_bits());
    if s >= T::BITS {
        T::wrapping_from(0)
    } else {
        T::wrapping_from(a.get() << s)
    }
}

fn shift_right_arithmetic<T: SubByteInt>(a: T, b: T) -> T {
    let s = u32::from(b.to_bits());
    let bits = i64::from(a.to_bits());
    let signed = if (bits >> (T::BITS - 1)) & 1 == 1 {
        bits - (1 << T::BITS)
    } else {
        bits
    };
    T::wrapping_from(signed >> s.min(T::BITS))
}

fn shift_right_logical<T: SubByteInt>(a: T, b: T) -> T {
    let s = u32::from(b.to_bits());
    if s >= T::BITS {
        T::wrapping_from(0)
    } else {
        T::wrapping_from(i64::from(a.to_bits()) >> s)
    }
}

/// The set bits of a sub-byte value, at its own width.
fn popcnt<T: SubByteInt>(a: T) -> T {
    T::wrapping_from(i64::from(a.to_bits().count_ones()))
}

/// The leading zero bits of a sub-byte value, at its own width.
fn clz<T: SubByteInt>(a: T) -> T {
    let zeros = u32::from(a.to_bits()).leading_zeros() - (32 - T::BITS);
    T::wrapping_from(i64::from(zeros))
}

macro_rules! sub_byte {
    ($($t:ty => $wide:ty),*) => {$(
        impl Lift for $t {
            type Wide = $wide;
            fn widen(self) -> $wide {
                self.get() as $wide
            }
            fn narrow(wide: $wide) -> $t {
                <$t>::wrapping_from(i64::from(wide))
            }
        }

        impl Element for $t {
            fn compare(direction: ComparisonDirection, a: $t, b: $t) -> bool {
                ordered(direction, a.get(), b.get())
            }

            fn to_conv(self) -> Conv {
                Conv::Int(i128::from(self.get()))
            }

            /// Integers wrap to the width; floats truncate toward zero and
            /// saturate (NaN gives 0), as for the wider integers.
            fn from_conv(value: Conv) -> $t {
                match value {
                    Conv::Pred(b) => <$t>::wrapping_from(i64::from(b)),
                    Conv::Int(i) => <$t>::wrapping_from(i as i64),
                    Conv::Float(f) | Conv::Complex(f, _) => {
                        let t = if f.is_nan() { 0.0 } else { f.trunc() };
                        <$t>::wrapping_from(t.clamp(<$t>::MIN as f64, <$t>::MAX as f64) as i64)
                    }
                }
            }

            fn unary_fn(op: UnaryOp) -> Option<fn($t) -> $t> {
                // The bit counts see the type's own width too.
                if op == UnaryOp::PopCnt {
                    Some(popcnt::<$t>)
                } else if op == UnaryOp::Clz {
                    Some(clz::<$t>)
                } else {
                    unary_via_wide::<$t>(op)
                }
            }

            fn binary_fn(op: BinaryOp) -> Option<fn($t, $t) -> $t> {
                // The shifts see the type's own width; every other op is
                // the wide type's, wrapped.
                if op == BinaryOp::ShiftLeft {
                    Some(shift_left::<$t>)
                } else if op == BinaryOp::ShiftRightArithmetic {
                    Some(shift_right_arithmetic::<$t>)
                } else if op == BinaryOp::ShiftRightLogical {
                    Some(shift_right_logical::<$t>)
                } else {
                    binary_via_wide::<$t>(op)
                }
            }
        }
    )*};
}
sub_byte!(Int1 => i8, Int2 => i8, Int4 => i8, Uint1 => u8, Uint2 => u8, Uint4 => u8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_cover_every_op() {
        assert!(UnaryOp::ALL.len() <= TABLE_SIZE);
        assert!(BinaryOp::ALL.len() <= TABLE_SIZE);
        for &op in UnaryOp::ALL {
            assert_eq!(
                <bf16 as Element>::unary_fn(op).is_some(),
                <f32 as Element>::unary_fn(op).is_some(),
                "{op}"
            );
        }
    }

    #[test]
    fn narrow_arithmetic_rounds_after_each_op() {
        let add = <bf16 as Element>::binary_fn(BinaryOp::Add).expect("add");
        // 256 + 1 is 257, which bf16 rounds to 256 (ties to even).
        assert_eq!(
            add(bf16::from_f32(256.0), bf16::from_f32(1.0)).to_f32(),
            256.0
        );
        let mul = <Float8E4M3FN as Element>::binary_fn(BinaryOp::Mul).expect("mul");
        let big = <Float8E4M3FN as RealFloat>::from_f32(448.0);
        assert!(RealFloat::to_f32(mul(big, big)).is_nan());
        // Through f16: exp(-0.375) = 0.68728 is 0.6875 in f16, a tie in
        // f8e5m2 that goes to the even 0.75 (JAX gives 0.75).
        let exp = <Float8E5M2 as Element>::unary_fn(UnaryOp::Exp).expect("exp");
        let x = <Float8E5M2 as RealFloat>::from_f32(-0.375);
        assert_eq!(RealFloat::to_f32(exp(x)), 0.75);
        // logistic rounds each step: 1 / (1 + 0.9921875) = 0.50390625 in
        // bf16 (JAX's value), not logistic(0.00589) = 0.50147 -> 0.5.
        let logistic = <bf16 as Element>::unary_fn(UnaryOp::Logistic).expect("logistic");
        assert_eq!(
            logistic(bf16::from_f64(0.005889892578125)).to_f32(),
            0.50390625
        );
    }

    #[test]
    fn sub_byte_integers_wrap_at_their_width() {
        let s4 = |v: i64| Int4::wrapping_from(v);
        let add = <Int4 as Element>::binary_fn(BinaryOp::Add).expect("add");
        assert_eq!(add(s4(7), s4(1)).get(), -8);
        let div = <Int4 as Element>::binary_fn(BinaryOp::Div).expect("div");
        assert_eq!(div(s4(-8), s4(-1)).get(), -8);
        assert_eq!(div(s4(3), s4(0)).get(), -1);
        let srl = <Int4 as Element>::binary_fn(BinaryOp::ShiftRightLogical).expect("srl");
        assert_eq!(srl(s4(-1), s4(1)).get(), 7);
        let sra = <Uint4 as Element>::binary_fn(BinaryOp::ShiftRightArithmetic).expect("sra");
        assert_eq!(
            sra(Uint4::wrapping_from(8), Uint4::wrapping_from(1)).get(),
            12
        );
        // popcnt and clz count at the type's width: s4 -1 has 4 bits set
        // (not i8's 8), u4 1 has 3 leading zeros (not u8's 7).
        let pop = <Int4 as Element>::unary_fn(UnaryOp::PopCnt).expect("popcnt");
        assert_eq!(pop(Int4::wrapping_from(-1)).get(), 4);
        let clz = <Uint4 as Element>::unary_fn(UnaryOp::Clz).expect("clz");
        assert_eq!(clz(Uint4::wrapping_from(1)).get(), 3);
        let shl = <Uint2 as Element>::binary_fn(BinaryOp::ShiftLeft).expect("shl");
        assert_eq!(
            shl(Uint2::wrapping_from(3), Uint2::wrapping_from(1)).get(),
            2
        );
        assert_eq!(Int4::from_conv(Conv::Float(100.0)).get(), 7);
        assert_eq!(Int4::from_conv(Conv::Float(f64::NAN)).get(), 0);
        assert_eq!(Uint4::from_conv(Conv::Int(17)).get(), 1);
    }
}
