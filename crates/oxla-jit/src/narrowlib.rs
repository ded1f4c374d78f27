//! The run-time routines JIT code calls for the narrow floats (`bf16`,
//! `f16`, the float8 kinds, `f4e2m1fn`): widening a stored bit pattern to
//! `f32`, rounding an `f32` result back after an op, rounding an `f64`
//! (a conversion) once, and the `f32` functions of `std` the interpreter
//! calls for the transcendentals.
//!
//! Why calls rather than inline code: every routine here is the very
//! function the interpreter (`oxla-interp`'s `narrow.rs`) runs — the
//! conversions of `oxla_ir`'s types (`RealFloat`, `half`) and `std`'s
//! `f32` functions — so the JIT's results equal the interpreter's bit for
//! bit by construction, for every kind's rounding, overflow, NaN and
//! negative-zero rules. The values cross the call as `u32` bits (the low
//! 8 or 16 bits hold the pattern) and `f32`/`f64`, the SysV C ABI's plain
//! integer and float registers.
//!
//! Invariant: [`NarrowFn::ALL`] lists every routine, and each routine's
//! name and address come from one row of the [`narrow_routines!`] table,
//! so a routine cannot be registered under another's name.

use cranelift_codegen::ir::{Type, types};
use cranelift_jit::JITBuilder;
use oxla_ir::{
    ElementBits, ElementType, Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ,
    Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, RealFloat, bf16, f16,
};

/// What a routine does to a narrow float kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Conversion {
    /// `fn(bits: u32) -> f32`: the stored pattern's value (exact).
    Widen,
    /// `fn(x: f32) -> u32`: an op's `f32` result rounded to the kind the
    /// way the interpreter rounds after each op (once for `bf16`, `f16`
    /// and `f8e8m0fnu`, through `f16` for the other float8 kinds and
    /// `f4e2m1fn`, as XLA:CPU computes them in `f16`).
    Round,
    /// `fn(x: f64) -> u32`: `x` rounded to the kind once (`convert`).
    FromF64,
}

/// The `f32` functions of `std` the interpreter calls for a narrow
/// float's transcendental ops (`x.exp()`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum StdFn {
    Exp,
    Expm1,
    Ln,
    Ln1p,
    Tanh,
    Sin,
    Cos,
}

impl StdFn {
    pub(crate) const ALL: [StdFn; 7] = [
        StdFn::Exp,
        StdFn::Expm1,
        StdFn::Ln,
        StdFn::Ln1p,
        StdFn::Tanh,
        StdFn::Sin,
        StdFn::Cos,
    ];
}

extern "C" fn oxla_std_expf(x: f32) -> f32 {
    x.exp()
}
extern "C" fn oxla_std_expm1f(x: f32) -> f32 {
    x.exp_m1()
}
extern "C" fn oxla_std_lnf(x: f32) -> f32 {
    x.ln()
}
extern "C" fn oxla_std_ln1pf(x: f32) -> f32 {
    x.ln_1p()
}
extern "C" fn oxla_std_tanhf(x: f32) -> f32 {
    x.tanh()
}
extern "C" fn oxla_std_sinf(x: f32) -> f32 {
    x.sin()
}
extern "C" fn oxla_std_cosf(x: f32) -> f32 {
    x.cos()
}

/// The rounding of an op's `f32` result to `T`, as the interpreter's
/// `Lift::narrow` does.
fn round_f32<T: RealFloat>(x: f32, through_f16: bool) -> T {
    if through_f16 {
        T::from_f32(f16::from_f32(x).to_f32())
    } else {
        T::from_f32(x)
    }
}

/// One row per narrow float kind: the element type, the Rust type, whether
/// an op's result rounds through `f16`, and the three routines' names.
macro_rules! narrow_routines {
    ($($variant:ident, $t:ty, $through_f16:literal, $widen:ident, $round:ident, $from_f64:ident;)*) => {
        $(
            extern "C" fn $widen(bits: u32) -> f32 {
                <$t as RealFloat>::to_f32(<$t as ElementBits>::from_bits128(u128::from(bits)))
            }
            extern "C" fn $round(x: f32) -> u32 {
                ElementBits::to_bits128(round_f32::<$t>(x, $through_f16)) as u32
            }
            extern "C" fn $from_f64(x: f64) -> u32 {
                ElementBits::to_bits128(<$t as RealFloat>::from_f64(x)) as u32
            }
        )*

        /// A routine of this module.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub(crate) enum NarrowFn {
            /// A conversion of a narrow float kind.
            Conv(ElementType, Conversion),
            /// An `f32` function of `std`.
            Std(StdFn),
        }

        impl NarrowFn {
            /// Every routine.
            pub(crate) fn all() -> Vec<NarrowFn> {
                let mut all = Vec::new();
                $(
                    for c in [Conversion::Widen, Conversion::Round, Conversion::FromF64] {
                        all.push(NarrowFn::Conv(ElementType::$variant, c));
                    }
                )*
                all.extend(StdFn::ALL.iter().map(|&f| NarrowFn::Std(f)));
                all
            }

            /// Its symbol, or `None` for a type that is not a narrow float.
            pub(crate) fn name(self) -> Option<&'static str> {
                Some(match self {
                    $(
                        NarrowFn::Conv(ElementType::$variant, Conversion::Widen) => stringify!($widen),
                        NarrowFn::Conv(ElementType::$variant, Conversion::Round) => stringify!($round),
                        NarrowFn::Conv(ElementType::$variant, Conversion::FromF64) => stringify!($from_f64),
                    )*
                    NarrowFn::Conv(..) => return None,
                    NarrowFn::Std(f) => match f {
                        StdFn::Exp => "oxla_std_expf",
                        StdFn::Expm1 => "oxla_std_expm1f",
                        StdFn::Ln => "oxla_std_lnf",
                        StdFn::Ln1p => "oxla_std_ln1pf",
                        StdFn::Tanh => "oxla_std_tanhf",
                        StdFn::Sin => "oxla_std_sinf",
                        StdFn::Cos => "oxla_std_cosf",
                    },
                })
            }

            /// Its address, or `None` for a type that is not a narrow float.
            fn address(self) -> Option<*const u8> {
                Some(match self {
                    $(
                        NarrowFn::Conv(ElementType::$variant, Conversion::Widen) => $widen as *const u8,
                        NarrowFn::Conv(ElementType::$variant, Conversion::Round) => $round as *const u8,
                        NarrowFn::Conv(ElementType::$variant, Conversion::FromF64) => $from_f64 as *const u8,
                    )*
                    NarrowFn::Conv(..) => return None,
                    NarrowFn::Std(f) => match f {
                        StdFn::Exp => oxla_std_expf as *const u8,
                        StdFn::Expm1 => oxla_std_expm1f as *const u8,
                        StdFn::Ln => oxla_std_lnf as *const u8,
                        StdFn::Ln1p => oxla_std_ln1pf as *const u8,
                        StdFn::Tanh => oxla_std_tanhf as *const u8,
                        StdFn::Sin => oxla_std_sinf as *const u8,
                        StdFn::Cos => oxla_std_cosf as *const u8,
                    },
                })
            }
        }
    };
}

narrow_routines! {
    Bf16, bf16, false, oxla_widen_bf16, oxla_round_bf16, oxla_from_f64_bf16;
    F16, f16, false, oxla_widen_f16, oxla_round_f16, oxla_from_f64_f16;
    F8E4M3FN, Float8E4M3FN, true, oxla_widen_f8e4m3fn, oxla_round_f8e4m3fn, oxla_from_f64_f8e4m3fn;
    F8E5M2, Float8E5M2, true, oxla_widen_f8e5m2, oxla_round_f8e5m2, oxla_from_f64_f8e5m2;
    F8E4M3, Float8E4M3, true, oxla_widen_f8e4m3, oxla_round_f8e4m3, oxla_from_f64_f8e4m3;
    F8E3M4, Float8E3M4, true, oxla_widen_f8e3m4, oxla_round_f8e3m4, oxla_from_f64_f8e3m4;
    F8E4M3FNUZ, Float8E4M3FNUZ, true, oxla_widen_f8e4m3fnuz, oxla_round_f8e4m3fnuz, oxla_from_f64_f8e4m3fnuz;
    F8E5M2FNUZ, Float8E5M2FNUZ, true, oxla_widen_f8e5m2fnuz, oxla_round_f8e5m2fnuz, oxla_from_f64_f8e5m2fnuz;
    F8E4M3B11FNUZ, Float8E4M3B11FNUZ, true, oxla_widen_f8e4m3b11fnuz, oxla_round_f8e4m3b11fnuz, oxla_from_f64_f8e4m3b11fnuz;
    F8E8M0FNU, Float8E8M0FNU, false, oxla_widen_f8e8m0fnu, oxla_round_f8e8m0fnu, oxla_from_f64_f8e8m0fnu;
    F4E2M1FN, Float4E2M1FN, true, oxla_widen_f4e2m1fn, oxla_round_f4e2m1fn, oxla_from_f64_f4e2m1fn;
}

impl NarrowFn {
    /// Its parameter and result types.
    pub(crate) fn signature(self) -> (Type, Type) {
        match self {
            NarrowFn::Conv(_, Conversion::Widen) => (types::I32, types::F32),
            NarrowFn::Conv(_, Conversion::Round) => (types::F32, types::I32),
            NarrowFn::Conv(_, Conversion::FromF64) => (types::F64, types::I32),
            NarrowFn::Std(_) => (types::F32, types::F32),
        }
    }
}

/// Registers every routine on the builder.
pub(crate) fn register_symbols(jb: &mut JITBuilder) {
    for f in NarrowFn::all() {
        if let (Some(name), Some(address)) = (f.name(), f.address()) {
            jb.symbol(name, address);
        }
    }
}

/// Whether `ty` is computed as `f32` and rounded back after each op (the
/// narrow floats).
pub(crate) fn is_narrow_float(ty: ElementType) -> bool {
    NarrowFn::Conv(ty, Conversion::Widen).name().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_narrow_float_has_its_routines() {
        for ty in ElementType::ALL {
            assert_eq!(is_narrow_float(ty), ty.is_narrow_float(), "{ty}");
        }
        let names: std::collections::HashSet<_> =
            NarrowFn::all().iter().filter_map(|f| f.name()).collect();
        assert_eq!(names.len(), NarrowFn::all().len());
    }

    #[test]
    fn rounding_follows_each_kind() {
        // 257 is a tie in bf16: to even, 256.
        assert_eq!(oxla_round_bf16(257.0), 0x4380);
        // Through f16 first: exp(-0.375) = 0.68728 is 0.6875 in f16, a tie
        // in f8e5m2 that goes to the even 0.75.
        let e = (-0.375f32).exp();
        assert_eq!(oxla_widen_f8e5m2(oxla_round_f8e5m2(e)), 0.75);
        // f8e4m3fn overflows to NaN, f4e2m1fn saturates at 6.
        assert!(oxla_widen_f8e4m3fn(oxla_round_f8e4m3fn(1000.0)).is_nan());
        assert_eq!(oxla_widen_f4e2m1fn(oxla_from_f64_f4e2m1fn(100.0)), 6.0);
    }
}
