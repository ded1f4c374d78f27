//! Transcendental functions for the JIT: inline Cranelift code for `exp`,
//! `expm1`, `log`, `log1p`, `tanh`, `logistic`, `sin` and `cos`, and calls
//! into Rust's `std` for `pow`, `atan2` and float `rem`.
//!
//! Cranelift has no instruction for any of these, and a call per element
//! costs about 6 ns, against under 2 ns for an inline `f32x4` polynomial
//! (see `shared/reference/cranelift-notes.md`). [`MathLib`] emits the same
//! algorithm for the four float types the JIT uses (`f32`, `f64`, `f32x4`,
//! `f64x2`); every step is lane-wise, so a vector lane and a scalar give the
//! same bits for the same input.
//!
//! The reference is Rust's `std`, which the interpreter `oxla_interp` calls:
//! inline results are within [`ulp_bound`] units in the last place of it, and
//! `docs/jit-accuracy.md` holds the measurement. Special values follow `std`
//! exactly: NaN in gives NaN out, infinities, zeros (with their sign),
//! overflow to infinity, underflow to zero and the subnormal range are all
//! handled branch-free with selects.
//!
//! # Algorithms
//!
//! - **exp**: clamp `x` to a range just past overflow and underflow; take
//!   `n = round(x / ln 2)` by adding `1.5 * 2^mantissa_bits` (the integer then
//!   sits in the low bits of the sum, so no float-to-int conversion is
//!   needed); reduce to `r = x - n ln 2` with `ln 2` split in two
//!   (Cody-Waite), `|r| <= ln(2)/2`; `e^r = 1 + p(r)` where `p(r) = r + r^2
//!   P(r)` approximates `e^r - 1` (Cephes' 6-term `P` for f32, the Taylor
//!   series to `r^13` for f64); then multiply by `2^n1` and `2^n2` with `n1 +
//!   n2 = n`, so that results just below overflow and in the subnormal range
//!   are scaled without an intermediate overflow and rounded once. Vectors
//!   whose every lane has `|x| <= 86.9` (f32; 708 for f64) skip the clamp
//!   and scale by adding `n` to the exponent field (exact there, same bits);
//!   any other vector (NaN, infinities, the edges of the range) takes the
//!   full path in a cold block.
//! - **expm1**: the same reduction; `2^n p(r) + (2^n - 1)` while `2^n - 1` is
//!   exact, `exp` beyond that, and `x` itself for `x = ±0`.
//! - **log**: subnormal inputs are first scaled by `2^23` (`2^54`); the bits
//!   give `x = 2^k m` with `m` in `[sqrt(1/2), sqrt(2))`, `f = m - 1`; f32 uses
//!   Cephes' `logf` polynomial, f64 uses fdlibm's `log` (`s = f / (2 + f)` and a
//!   degree-14 polynomial in `s`); `k ln 2` is added in two parts. `0` gives
//!   `-inf`, negatives and NaN give NaN, `+inf` gives `+inf`.
//! - **log1p**: `u = 1 + x` rounded, the log of `u` as above plus fdlibm's
//!   correction `c / u`, where `c` is the rounding error of `1 + x`; this keeps
//!   full accuracy near `x = 0`.
//! - **tanh**: below `|x| = 0.625` Cephes' odd polynomial (f32) or rational
//!   function (f64) in `x^2`; above, `1 - 2 / (e^(2|x|) + 1)` with the
//!   denominator computed from the exp reduction as `2^n p(r) + (2^n + 1)`
//!   in one rounding (`|x|` clamped to where `tanh` is already 1); the sign of
//!   `x` is copied onto the result.
//! - **logistic**: `1 / (1 + exp(-x))`, the same formula the interpreter
//!   evaluates, with the inline `exp`.
//! - **sin, cos**: f64 follows fdlibm: `n = round(x 2/pi)`, `x - n pi/2` with
//!   `pi/2` in four parts of which the first three have 33 bits (so their
//!   products with `n < 2^20` are exact), the pieces summed with Fast2Sum into
//!   a double-double `y0 + y1`, then fdlibm's `__kernel_sin`/`__kernel_cos` on
//!   `y0 + y1`, chosen and negated by `n mod 4`. f32 follows musl's `sinf`:
//!   the reduction and musl's `__sindf`/`__cosdf` polynomials run in f64
//!   (an `f32x4` as two `f64x2` halves) and the result is rounded to f32 once.
//!   The reduction is valid for `|x| <= 2^28` (f32) and `|x| <= 2^20` (f64):
//!   when any lane is beyond that (or infinite) the whole value goes to a cold
//!   block that calls `std`'s `sin`/`cos` lane by lane, which is exact against
//!   the interpreter.
//! - **pow, atan2, rem**: an `extern "C"` call per lane into Rust's `powf`,
//!   `atan2` and `%`: bit-exact against the interpreter, about 6 ns a lane.
//!
//! Every multiply-add is a single `fma` when the ISA has FMA, and a multiply
//! then an add otherwise (Cranelift would turn each `fma` lane into a libcall);
//! both variants are tested against the same bounds.
//!
//! Vector constants are loads from the process-wide constant pool
//! (`cpool`) addressed from a base the caller passes (`cbase`, loop-variant
//! in the JIT's vector loops), so they are not hoisted into the 16 xmm
//! registers and spilled, but folded into the instructions that use them.
//!
//! # Using it
//!
//! Call [`MathLib::register_symbols`] on the `JITBuilder` before building the
//! module, [`MathLib::new`] once per module, then [`MathLib::emit_unary`] /
//! [`MathLib::emit_binary`] for each op that [`MathLib::handles_unary`] /
//! [`MathLib::handles_binary`] accepts. `sin` and `cos` add blocks (a cold
//! call path and a merge block): after `emit_unary` returns, the builder is
//! positioned in a new block, which the caller simply continues. Values
//! defined before the call remain usable after it. The vector `exp` (and
//! `logistic`, which uses it) does the same.

#![allow(
    clippy::excessive_precision,
    reason = "coefficients keep the decimal spelling of their published source"
)]

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, BlockArg, ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use oxla_ir::{BinaryOp, ElementType, Error, UnaryOp};

use crate::error::{Stage, internal};

/// The largest error, in units in the last place against Rust's `std`, of
/// what the JIT emits for `op` on elements of type `ty`, scalar or vector,
/// with or without FMA.
///
/// 0 means bit-exact: that holds for ops `MathLib` does not emit (the JIT's own
/// IEEE arithmetic) and for the ones it forwards to `std`. The numbers are
/// the measured maxima of `docs/jit-accuracy.md`, which the unit tests check:
/// for example 1 for `exp` on f32, 4 for `logistic`, whose reference
/// `1 / (1 + exp(-x))` rounds three times.
pub fn ulp_bound(op: UnaryOp, ty: ElementType) -> u32 {
    let f64 = match ty {
        ElementType::F32 => false,
        ElementType::F64 => true,
        ElementType::Pred
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::Tuple
        | ElementType::Token => return 0,
        // Types the JIT refuses (`unsupported.rs`): nothing is emitted.
        ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::C64
        | ElementType::C128 => return 0,
    };
    let (f32_bound, f64_bound) = match op {
        UnaryOp::Exp => (1, 1),
        UnaryOp::Expm1 => (2, 2),
        UnaryOp::Log => (1, 1),
        UnaryOp::Log1p => (2, 2),
        UnaryOp::Tanh => (2, 2),
        UnaryOp::Logistic => (4, 4),
        UnaryOp::Sin => (1, 1),
        UnaryOp::Cos => (1, 1),
        // Calls into the very `libm` functions the interpreter uses.
        UnaryOp::Erf | UnaryOp::Cbrt | UnaryOp::Tan => (0, 0),
        UnaryOp::PopCnt | UnaryOp::Clz | UnaryOp::RoundNearestAfz => (0, 0),
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Sqrt
        | UnaryOp::Rsqrt
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::RoundNearestEven
        | UnaryOp::Not
        | UnaryOp::IsFinite => (0, 0),
    };
    if f64 { f64_bound } else { f32_bound }
}

/// The binary counterpart of [`ulp_bound`]: `pow`, `atan2` and float `rem`
/// call `std`, so every binary op is bit-exact.
pub fn ulp_bound_binary(op: BinaryOp, ty: ElementType) -> u32 {
    let _ = (op, ty);
    0
}

/// The `extern "C"` helpers that JIT code calls, one per function and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Helper {
    Powf,
    Pow,
    Atan2f,
    Atan2,
    Fmodf,
    Fmod,
    Sinf,
    Sin,
    Cosf,
    Cos,
    Erff,
    Erf,
    Cbrtf,
    Cbrt,
    Tanf,
    Tan,
}

impl Helper {
    const ALL: [Helper; 16] = [
        Helper::Powf,
        Helper::Pow,
        Helper::Atan2f,
        Helper::Atan2,
        Helper::Fmodf,
        Helper::Fmod,
        Helper::Sinf,
        Helper::Sin,
        Helper::Cosf,
        Helper::Cos,
        Helper::Erff,
        Helper::Erf,
        Helper::Cbrtf,
        Helper::Cbrt,
        Helper::Tanf,
        Helper::Tan,
    ];

    fn name(self) -> &'static str {
        match self {
            Helper::Powf => "oxla_powf",
            Helper::Pow => "oxla_pow",
            Helper::Atan2f => "oxla_atan2f",
            Helper::Atan2 => "oxla_atan2",
            Helper::Fmodf => "oxla_fmodf",
            Helper::Fmod => "oxla_fmod",
            Helper::Sinf => "oxla_sinf",
            Helper::Sin => "oxla_sin",
            Helper::Cosf => "oxla_cosf",
            Helper::Cos => "oxla_cos",
            Helper::Erff => "oxla_erff",
            Helper::Erf => "oxla_erf",
            Helper::Cbrtf => "oxla_cbrtf",
            Helper::Cbrt => "oxla_cbrt",
            Helper::Tanf => "oxla_tanf",
            Helper::Tan => "oxla_tan",
        }
    }

    fn address(self) -> *const u8 {
        match self {
            Helper::Powf => oxla_powf as *const u8,
            Helper::Pow => oxla_pow as *const u8,
            Helper::Atan2f => oxla_atan2f as *const u8,
            Helper::Atan2 => oxla_atan2 as *const u8,
            Helper::Fmodf => oxla_fmodf as *const u8,
            Helper::Fmod => oxla_fmod as *const u8,
            Helper::Sinf => oxla_sinf as *const u8,
            Helper::Sin => oxla_sin as *const u8,
            Helper::Cosf => oxla_cosf as *const u8,
            Helper::Cos => oxla_cos as *const u8,
            Helper::Erff => oxla_erff as *const u8,
            Helper::Erf => oxla_erf as *const u8,
            Helper::Cbrtf => oxla_cbrtf as *const u8,
            Helper::Cbrt => oxla_cbrt as *const u8,
            Helper::Tanf => oxla_tanf as *const u8,
            Helper::Tan => oxla_tan as *const u8,
        }
    }

    /// The element type of the arguments and the result.
    fn ty(self) -> Type {
        match self {
            Helper::Powf
            | Helper::Atan2f
            | Helper::Fmodf
            | Helper::Sinf
            | Helper::Cosf
            | Helper::Erff
            | Helper::Cbrtf
            | Helper::Tanf => types::F32,
            Helper::Pow
            | Helper::Atan2
            | Helper::Fmod
            | Helper::Sin
            | Helper::Cos
            | Helper::Erf
            | Helper::Cbrt
            | Helper::Tan => types::F64,
        }
    }

    fn arity(self) -> usize {
        match self {
            Helper::Powf
            | Helper::Pow
            | Helper::Atan2f
            | Helper::Atan2
            | Helper::Fmodf
            | Helper::Fmod => 2,
            Helper::Sinf
            | Helper::Sin
            | Helper::Cosf
            | Helper::Cos
            | Helper::Erff
            | Helper::Erf
            | Helper::Cbrtf
            | Helper::Cbrt
            | Helper::Tanf
            | Helper::Tan => 1,
        }
    }

    fn index(self) -> usize {
        Helper::ALL.iter().position(|&h| h == self).unwrap_or(0)
    }
}

extern "C" fn oxla_powf(x: f32, y: f32) -> f32 {
    x.powf(y)
}
extern "C" fn oxla_pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}
extern "C" fn oxla_atan2f(y: f32, x: f32) -> f32 {
    y.atan2(x)
}
extern "C" fn oxla_atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}
extern "C" fn oxla_fmodf(x: f32, y: f32) -> f32 {
    x % y
}
extern "C" fn oxla_fmod(x: f64, y: f64) -> f64 {
    x % y
}
extern "C" fn oxla_sinf(x: f32) -> f32 {
    x.sin()
}
extern "C" fn oxla_sin(x: f64) -> f64 {
    x.sin()
}
extern "C" fn oxla_cosf(x: f32) -> f32 {
    x.cos()
}
extern "C" fn oxla_cos(x: f64) -> f64 {
    x.cos()
}
// The misc family's float functions: the interpreter's `libm` calls.
extern "C" fn oxla_erff(x: f32) -> f32 {
    libm::erff(x)
}
extern "C" fn oxla_erf(x: f64) -> f64 {
    libm::erf(x)
}
extern "C" fn oxla_cbrtf(x: f32) -> f32 {
    libm::cbrtf(x)
}
extern "C" fn oxla_cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}
extern "C" fn oxla_tanf(x: f32) -> f32 {
    libm::tanf(x)
}
extern "C" fn oxla_tan(x: f64) -> f64 {
    libm::tan(x)
}

/// Emits transcendental functions into functions of one `JITModule`.
pub(crate) struct MathLib {
    /// The imported helpers, indexed by [`Helper::index`].
    helpers: Vec<FuncId>,
    /// Whether the ISA has FMA: then multiply-adds are one `fma`.
    has_fma: bool,
}

/// The error for an op the math library has no code for: the emitter
/// asked for one that `handles_unary`/`handles_binary` refuses.
fn no_code(op: &str, ty: Type) -> Error {
    internal(
        Stage::Codegen,
        format!("the math library has no code for {op} on {ty}"),
    )
}

impl MathLib {
    /// Registers the `extern "C"` helpers on the builder; call it before
    /// `JITModule::new`, or the helpers resolve through `dlsym` and fail.
    pub(crate) fn register_symbols(jb: &mut JITBuilder) {
        for h in Helper::ALL {
            jb.symbol(h.name(), h.address());
        }
    }

    /// Declares the helpers in `module` (as imports) and reads the ISA flags.
    #[allow(clippy::result_large_err, reason = "the crate's one error type")]
    pub(crate) fn new(module: &mut JITModule) -> Result<MathLib, Error> {
        let has_fma = module
            .isa()
            .isa_flags()
            .iter()
            .any(|f| f.name == "has_fma" && f.as_bool() == Some(true));
        let mut helpers = Vec::with_capacity(Helper::ALL.len());
        for h in Helper::ALL {
            let mut sig = module.make_signature();
            for _ in 0..h.arity() {
                sig.params.push(AbiParam::new(h.ty()));
            }
            sig.returns.push(AbiParam::new(h.ty()));
            let id = module
                .declare_function(h.name(), Linkage::Import, &sig)
                .map_err(|e| {
                    internal(
                        Stage::Setup,
                        format!("cannot declare the math helper {}: {e}", h.name()),
                    )
                })?;
            helpers.push(id);
        }
        Ok(MathLib { helpers, has_fma })
    }

    /// True if `op` on values of type `ty` (`F32`, `F64`, `F32X4` or `F64X2`)
    /// is emitted by [`MathLib::emit_unary`].
    pub(crate) fn handles_unary(op: UnaryOp, ty: Type) -> bool {
        let float = is_float_type(ty);
        match op {
            oxla_ir::transcendental_unary_ops!() => float,
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::RoundNearestEven
            | UnaryOp::Not
            | UnaryOp::IsFinite
            | UnaryOp::PopCnt
            | UnaryOp::Clz
            | UnaryOp::RoundNearestAfz => false,
        }
    }

    /// True if `op` on values of type `ty` is emitted by
    /// [`MathLib::emit_binary`]: `pow`, `atan2` and `rem` on floats.
    pub(crate) fn handles_binary(op: BinaryOp, ty: Type) -> bool {
        let float = is_float_type(ty);
        match op {
            BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Rem => float,
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical
            | BinaryOp::Compare(..) => false,
        }
    }

    /// Emits `op(x)` at the builder's position and returns the result, of the
    /// type of `x`. `sin`, `cos` and the vector `exp`/`logistic` leave the
    /// builder in a new block. `cbase`, if given, is the base address of the
    /// constant pool to read vector constants from (see `cpool`); without
    /// it they are splatted constants.
    ///
    /// Fails if [`MathLib::handles_unary`] is false for `op` and the type of
    /// `x`.
    pub(crate) fn emit_unary(
        &self,
        module: &mut JITModule,
        fb: &mut FunctionBuilder,
        op: UnaryOp,
        x: Value,
        cbase: Option<Value>,
    ) -> Result<Value, Error> {
        let ty = fb.func.dfg.value_type(x);
        if !MathLib::handles_unary(op, ty) {
            return Err(no_code(op.name(), ty));
        }
        let fma = self.has_fma;
        Ok(match op {
            UnaryOp::Exp => Em { fb, ty, fma, cbase }.exp(x),
            UnaryOp::Expm1 => Em { fb, ty, fma, cbase }.expm1(x),
            UnaryOp::Log => Em { fb, ty, fma, cbase }.log(x),
            UnaryOp::Log1p => Em { fb, ty, fma, cbase }.log1p(x),
            UnaryOp::Tanh => Em { fb, ty, fma, cbase }.tanh(x),
            UnaryOp::Logistic => Em { fb, ty, fma, cbase }.logistic(x),
            UnaryOp::Sin => self.sin_cos(module, fb, false, x, cbase),
            UnaryOp::Cos => self.sin_cos(module, fb, true, x, cbase),
            // One call per lane into `libm`, as the interpreter computes them.
            UnaryOp::Erf => self.call_typed(module, fb, (Helper::Erff, Helper::Erf), x),
            UnaryOp::Cbrt => self.call_typed(module, fb, (Helper::Cbrtf, Helper::Cbrt), x),
            UnaryOp::Tan => self.call_typed(module, fb, (Helper::Tanf, Helper::Tan), x),
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::RoundNearestEven
            | UnaryOp::Not
            | UnaryOp::IsFinite
            | UnaryOp::PopCnt
            | UnaryOp::Clz
            | UnaryOp::RoundNearestAfz => return Err(no_code(op.name(), ty)),
        })
    }

    /// Emits `op(x, y)` (`x` is the left operand: `pow(x, y)`, `atan2(x, y)`
    /// with `x` the ordinate, `x % y`) as one call per lane into Rust's `std`.
    ///
    /// Fails if [`MathLib::handles_binary`] is false for `op` and the type
    /// of `x`.
    pub(crate) fn emit_binary(
        &self,
        module: &mut JITModule,
        fb: &mut FunctionBuilder,
        op: BinaryOp,
        x: Value,
        y: Value,
    ) -> Result<Value, Error> {
        let ty = fb.func.dfg.value_type(x);
        if !MathLib::handles_binary(op, ty) {
            return Err(no_code(op.name(), ty));
        }
        let f64 = ty.lane_type() == types::F64;
        let (helper_f32, helper_f64) = match op {
            BinaryOp::Pow => (Helper::Powf, Helper::Pow),
            BinaryOp::Atan2 => (Helper::Atan2f, Helper::Atan2),
            BinaryOp::Rem => (Helper::Fmodf, Helper::Fmod),
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical
            | BinaryOp::Compare(..) => return Err(no_code(op.name(), ty)),
        };
        let helper = if f64 { helper_f64 } else { helper_f32 };
        Ok(self.call_lanes(module, fb, helper, &[x, y]))
    }

    /// Calls the f32 or the f64 helper of `helpers` on `x`, by its type.
    fn call_typed(
        &self,
        module: &mut JITModule,
        fb: &mut FunctionBuilder,
        (f32_helper, f64_helper): (Helper, Helper),
        x: Value,
    ) -> Value {
        let f64 = fb.func.dfg.value_type(x).lane_type() == types::F64;
        let helper = if f64 { f64_helper } else { f32_helper };
        self.call_lanes(module, fb, helper, &[x])
    }

    /// Calls `helper` on `args`: once for scalars, once per lane for vectors.
    fn call_lanes(
        &self,
        module: &mut JITModule,
        fb: &mut FunctionBuilder,
        helper: Helper,
        args: &[Value],
    ) -> Value {
        let callee = module.declare_func_in_func(self.helpers[helper.index()], fb.func);
        let ty = fb.func.dfg.value_type(args[0]);
        if !ty.is_vector() {
            let call = fb.ins().call(callee, args);
            return fb.inst_results(call)[0];
        }
        let mut acc = args[0];
        for lane in 0..ty.lane_count() as u8 {
            let lane_args: Vec<Value> = args
                .iter()
                .map(|&a| fb.ins().extractlane(a, lane))
                .collect();
            let call = fb.ins().call(callee, &lane_args);
            let r = fb.inst_results(call)[0];
            acc = fb.ins().insertlane(acc, r, lane);
        }
        acc
    }

    /// `sin` or `cos`: the inline reduction where every lane is within its
    /// valid range, else a cold block calling `std` lane by lane.
    fn sin_cos(
        &self,
        module: &mut JITModule,
        fb: &mut FunctionBuilder,
        cos: bool,
        x: Value,
        cbase: Option<Value>,
    ) -> Value {
        let ty = fb.func.dfg.value_type(x);
        let f64 = ty.lane_type() == types::F64;
        let limit = if f64 {
            SIN_COS_LIMIT_F64
        } else {
            SIN_COS_LIMIT_F32
        };
        let too_big = {
            let mut e = Em {
                fb: &mut *fb,
                ty,
                fma: self.has_fma,
                cbase,
            };
            let ax = e.fb.ins().fabs(x);
            let lim = e.c(limit);
            let big = e.fb.ins().fcmp(FloatCC::GreaterThan, ax, lim);
            if ty.is_vector() {
                e.fb.ins().vany_true(big)
            } else {
                big
            }
        };
        let fast = fb.create_block();
        let slow = fb.create_block();
        let merge = fb.create_block();
        let result = fb.append_block_param(merge, ty);
        fb.ins().brif(too_big, slow, &[], fast, &[]);
        fb.seal_block(fast);
        fb.seal_block(slow);

        fb.switch_to_block(slow);
        fb.set_cold_block(slow);
        let helper = match (f64, cos) {
            (false, false) => Helper::Sinf,
            (false, true) => Helper::Cosf,
            (true, false) => Helper::Sin,
            (true, true) => Helper::Cos,
        };
        let r = self.call_lanes(module, fb, helper, &[x]);
        fb.ins().jump(merge, &[BlockArg::Value(r)]);

        fb.switch_to_block(fast);
        let r = {
            let mut e = Em {
                fb: &mut *fb,
                ty,
                fma: self.has_fma,
                cbase,
            };
            if f64 {
                e.sin_cos_f64(x, cos)
            } else {
                e.sin_cos_f32(x, cos)
            }
        };
        fb.ins().jump(merge, &[BlockArg::Value(r)]);

        fb.switch_to_block(merge);
        fb.seal_block(merge);
        result
    }
}

fn is_float_type(ty: Type) -> bool {
    ty == types::F32 || ty == types::F64 || ty == types::F32X4 || ty == types::F64X2
}

/// Above this `|x|` (and for infinities) f32 `sin`/`cos` call `std`: musl's
/// 25+53-bit `pi/2` reduction in f64 is exact enough below `2^28`.
const SIN_COS_LIMIT_F32: f64 = 268_435_456.0;
/// Above this `|x|` f64 `sin`/`cos` call `std`: the products of `n < 2^20`
/// with the 33-bit parts of `pi/2` are exact below `2^20`.
const SIN_COS_LIMIT_F64: f64 = 1_048_576.0;

/// `1.5 * 2^23`: adding it rounds an f32 of magnitude below `2^22` to an
/// integer, which then sits in the low bits of the sum.
const MAGIC_F32: f64 = 12_582_912.0;
/// `1.5 * 2^52`, the f64 counterpart of [`MAGIC_F32`].
const MAGIC_F64: f64 = 6_755_399_441_055_744.0;

/// The float layout constants of one element type.
struct Layout {
    /// Mantissa bits.
    mant: i64,
    /// Exponent bias.
    bias: i64,
    /// The bits of the rounding constant [`MAGIC_F32`] / [`MAGIC_F64`].
    magic_bits: i64,
    magic: f64,
}

const F32_LAYOUT: Layout = Layout {
    mant: 23,
    bias: 127,
    magic_bits: 0x4B40_0000,
    magic: MAGIC_F32,
};
const F64_LAYOUT: Layout = Layout {
    mant: 52,
    bias: 1023,
    magic_bits: 0x4338_0000_0000_0000,
    magic: MAGIC_F64,
};

/// Cephes `expf`: `e^r - 1 = r + r^2 P(r)` on `|r| <= ln(2)/2`.
const EXPM1_P_F32: [f64; 6] = [
    1.987_569_150_0e-4,
    1.398_199_950_7e-3,
    8.333_451_907_3e-3,
    4.166_579_589_4e-2,
    1.666_666_545_9e-1,
    5.000_000_120_1e-1,
];

/// Cephes `tanhf`: `tanh(x) = x + x^3 P(x^2)` for `|x| < 0.625`.
const TANH_P_F32: [f64; 5] = [
    -5.704_988_727_45e-3,
    2.063_908_879_54e-2,
    -5.373_971_555_31e-2,
    1.333_144_220_36e-1,
    -3.333_328_194_22e-1,
];
/// Cephes `tanh`: `tanh(x) = x + x^3 P(x^2) / Q(x^2)` for `|x| < 0.625`.
const TANH_P_F64: [f64; 3] = [
    -9.643_991_794_250_522_386_28e-1,
    -9.928_772_310_019_185_865_64e1,
    -1.614_687_684_417_084_479_52e3,
];
const TANH_Q_F64: [f64; 4] = [
    1.0,
    1.128_116_784_916_329_314_02e2,
    2.235_488_390_601_004_485_83e3,
    4.844_063_053_251_254_860_48e3,
];

/// Cephes `logf`: `log(1 + f) = f - f^2/2 + f^3 P(f)` on `[sqrt(1/2) - 1, sqrt(2) - 1)`.
const LOG_P_F32: [f64; 9] = [
    7.037_683_629_2e-2,
    -1.151_461_031_0e-1,
    1.167_699_874_0e-1,
    -1.242_014_084_6e-1,
    1.424_932_278_7e-1,
    -1.666_805_766_5e-1,
    2.000_071_476_5e-1,
    -2.499_999_399_3e-1,
    3.333_333_117_4e-1,
];

// fdlibm `log` (e_log.c), by bits.
const LG1: u64 = 0x3FE5_5555_5555_5593;
const LG2: u64 = 0x3FD9_9999_9997_FA04;
const LG3: u64 = 0x3FD2_4924_9422_9359;
const LG4: u64 = 0x3FCC_71C5_1D8E_78AF;
const LG5: u64 = 0x3FC7_4664_96CB_03DE;
const LG6: u64 = 0x3FC3_9A09_D078_C69F;
const LG7: u64 = 0x3FC2_F112_DF3E_5244;
/// `ln 2` to 32 bits (its products with exponents are exact) and the rest.
const LN2_HI: u64 = 0x3FE6_2E42_FEE0_0000;
const LN2_LO: u64 = 0x3DEA_39EF_3579_3C76;

// fdlibm `__rem_pio2`: pi/2 as three 33-bit parts and a 53-bit tail.
const PIO2_1: u64 = 0x3FF9_21FB_5440_0000;
const PIO2_2: u64 = 0x3DD0_B461_1A60_0000;
const PIO2_3: u64 = 0x3BA3_198A_2E00_0000;
const PIO2_3T: u64 = 0x397B_839A_2520_49C1;
// musl `__rem_pio2f`: pi/2 as 25 bits and the rest.
const PIO2F_1: u64 = 0x3FF9_21FB_5000_0000;
const PIO2F_1T: u64 = 0x3E51_10B4_611A_6263;

// fdlibm `__kernel_sin` / `__kernel_cos`.
const S1: u64 = 0xBFC5_5555_5555_5549;
const S2: u64 = 0x3F81_1111_1110_F8A6;
const S3: u64 = 0xBF2A_01A0_19C1_61D5;
const S4: u64 = 0x3EC7_1DE3_57B1_FE7D;
const S5: u64 = 0xBE5A_E5E6_8A2B_9CEB;
const S6: u64 = 0x3DE5_D93A_5ACF_D57C;
const C1: u64 = 0x3FA5_5555_5555_554C;
const C2: u64 = 0xBF56_C16C_16C1_5177;
const C3: u64 = 0x3EFA_01A0_19CB_1590;
const C4: u64 = 0xBE92_7E4F_809C_52AD;
const C5: u64 = 0x3E21_EE9E_BDB4_B1C4;
const C6: u64 = 0xBDA8_FAE9_BE88_38D4;

// musl `__sindf` / `__cosdf` (f64 polynomials accurate enough for f32).
const SF1: f64 = -0.166_666_666_416_265_235_595;
const SF2: f64 = 0.008_333_329_385_889_463_175_6;
const SF3: f64 = -0.000_198_393_348_360_966_317_347;
const SF4: f64 = 0.000_002_718_311_493_989_821_906_4;
const CF0: f64 = -0.499_999_997_251_031_003_120;
const CF1: f64 = 0.041_666_623_323_739_063_189_4;
const CF2: f64 = -0.001_388_676_377_460_992_946_92;
const CF3: f64 = 0.000_024_390_448_796_277_409_065_4;

/// An emitter for one float type (scalar or vector): constants are splatted,
/// comparisons give masks for vectors and `i8` for scalars, and [`Em::sel`]
/// hides the difference between `select` and `bitselect`.
struct Em<'a, 'b> {
    fb: &'a mut FunctionBuilder<'b>,
    ty: Type,
    fma: bool,
    /// The base address of vector constants (see `cpool`): a value the
    /// caller keeps loop-variant in vector loops, so that constant loads
    /// are not hoisted but folded into their one use.
    cbase: Option<Value>,
}

impl<'b> Em<'_, 'b> {
    /// The same emitter for another type.
    fn with_ty(&mut self, ty: Type) -> Em<'_, 'b> {
        Em {
            fb: &mut *self.fb,
            ty,
            fma: self.fma,
            cbase: self.cbase,
        }
    }

    fn is_f64(&self) -> bool {
        self.ty.lane_type() == types::F64
    }

    fn layout(&self) -> &'static Layout {
        if self.is_f64() {
            &F64_LAYOUT
        } else {
            &F32_LAYOUT
        }
    }

    /// The integer type with the float type's shape.
    fn ity(&self) -> Type {
        let lane = if self.is_f64() {
            types::I64
        } else {
            types::I32
        };
        if self.ty.is_vector() {
            lane.by(self.ty.lane_count()).unwrap_or(lane)
        } else {
            lane
        }
    }

    /// A vector constant of type `ty` with every lane `bits`, as a load
    /// from the constant pool at its use (see `cpool`: it then becomes a
    /// memory operand instead of a register held across the loop).
    fn pooled(&mut self, ty: Type, bits: u64) -> Option<Value> {
        let base = self.cbase?;
        let off = crate::cpool::offset_of(crate::cpool::splat_bits(bits, ty.lane_bits()))?;
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_aligned()
            .with_readonly()
            .with_can_move();
        Some(self.fb.ins().load(ty, flags, base, off))
    }

    /// A float constant (rounded to f32 for f32 lanes).
    fn c(&mut self, v: f64) -> Value {
        if self.ty.is_vector() {
            let bits = if self.is_f64() {
                v.to_bits()
            } else {
                u64::from((v as f32).to_bits())
            };
            if let Some(k) = self.pooled(self.ty, bits) {
                return k;
            }
        }
        let s = if self.is_f64() {
            self.fb.ins().f64const(v)
        } else {
            self.fb.ins().f32const(v as f32)
        };
        if self.ty.is_vector() {
            self.fb.ins().splat(self.ty, s)
        } else {
            s
        }
    }

    /// An integer constant of [`Em::ity`], wrapped to the lane width.
    fn ci(&mut self, v: i64) -> Value {
        let ity = self.ity();
        let lane = ity.lane_type();
        if ity.is_vector()
            && let Some(k) = self.pooled(ity, v as u64)
        {
            return k;
        }
        let s = if lane == types::I32 {
            self.fb.ins().iconst(types::I32, i64::from(v as u32))
        } else {
            self.fb.ins().iconst(types::I64, v)
        };
        if ity.is_vector() {
            self.fb.ins().splat(ity, s)
        } else {
            s
        }
    }

    fn add(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fadd(a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fsub(a, b)
    }
    fn mul(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fmul(a, b)
    }
    fn div(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fdiv(a, b)
    }
    fn addc(&mut self, a: Value, k: f64) -> Value {
        let k = self.c(k);
        self.add(a, k)
    }
    fn mulc(&mut self, a: Value, k: f64) -> Value {
        let k = self.c(k);
        self.mul(a, k)
    }

    /// `a * b + c`, one rounding with FMA, two without.
    fn mad(&mut self, a: Value, b: Value, c: Value) -> Value {
        if self.fma {
            self.fb.ins().fma(a, b, c)
        } else {
            let p = self.fb.ins().fmul(a, b);
            self.fb.ins().fadd(p, c)
        }
    }
    /// `a * k + c` for a constant `k`.
    fn madc(&mut self, a: Value, k: f64, c: Value) -> Value {
        let k = self.c(k);
        self.mad(a, k, c)
    }

    /// Horner's scheme, coefficients from the highest degree down.
    fn poly(&mut self, x: Value, coeffs: &[f64]) -> Value {
        let mut p = self.c(coeffs[0]);
        for &k in &coeffs[1..] {
            let k = self.c(k);
            p = self.mad(p, x, k);
        }
        p
    }

    fn cmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.fb.ins().fcmp(cc, a, b)
    }
    fn cmpc(&mut self, cc: FloatCC, a: Value, k: f64) -> Value {
        let k = self.c(k);
        self.cmp(cc, a, k)
    }

    /// `cond ? a : b`, for a condition from [`Em::cmp`] or an `icmp` of the
    /// same shape.
    fn sel(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.fb.func.dfg.value_type(a);
        if ty.is_vector() {
            let cty = self.fb.func.dfg.value_type(cond);
            let mask = if cty == ty {
                cond
            } else {
                self.fb.ins().bitcast(ty, MemFlagsData::new(), cond)
            };
            self.fb.ins().bitselect(mask, a, b)
        } else {
            self.fb.ins().select(cond, a, b)
        }
    }

    /// `min(x, hi)` that keeps a NaN `x` (one `minps` for vectors).
    fn min_keep_nan(&mut self, x: Value, hi: f64) -> Value {
        let hi = self.c(hi);
        let c = self.cmp(FloatCC::LessThan, hi, x);
        self.sel(c, hi, x)
    }
    /// `max(x, lo)` that keeps a NaN `x` (one `maxps` for vectors).
    fn max_keep_nan(&mut self, x: Value, lo: f64) -> Value {
        let lo = self.c(lo);
        let c = self.cmp(FloatCC::LessThan, x, lo);
        self.sel(c, lo, x)
    }

    fn bits(&mut self, x: Value) -> Value {
        let ity = self.ity();
        self.fb.ins().bitcast(ity, MemFlagsData::new(), x)
    }
    fn float_of(&mut self, i: Value) -> Value {
        let ty = self.ty;
        self.fb.ins().bitcast(ty, MemFlagsData::new(), i)
    }
    fn iaddc(&mut self, a: Value, k: i64) -> Value {
        let k = self.ci(k);
        self.fb.ins().iadd(a, k)
    }
    fn bandc(&mut self, a: Value, k: i64) -> Value {
        let k = self.ci(k);
        self.fb.ins().band(a, k)
    }
    fn shl(&mut self, a: Value, k: i64) -> Value {
        let k = self.fb.ins().iconst(types::I32, k);
        self.fb.ins().ishl(a, k)
    }
    fn shr(&mut self, a: Value, k: i64) -> Value {
        let k = self.fb.ins().iconst(types::I32, k);
        self.fb.ins().ushr(a, k)
    }

    // ---- exp family ------------------------------------------------------

    /// Cody-Waite reduction: returns `(t, n, r)` with `t = x/ln2 + magic`
    /// (whose low bits hold the integer `n`), `n` as a float, and
    /// `r = x - n ln 2`, `|r| <= ln(2)/2`. Needs `|x| < 2^21`-ish.
    fn exp_reduce(&mut self, x: Value) -> (Value, Value, Value) {
        let magic = self.layout().magic;
        let (ln2_hi, ln2_lo) = if self.is_f64() {
            (f64::from_bits(LN2_HI), f64::from_bits(LN2_LO))
        } else {
            // Cephes: 0.693359375 has 9 bits, so `n * ln2_hi` is exact.
            (0.693_359_375, -2.121_944_400_5e-4)
        };
        let mg = self.c(magic);
        let t = self.madc(x, std::f64::consts::LOG2_E, mg);
        let n = self.sub(t, mg);
        let r = self.madc(n, -ln2_hi, x);
        let r = self.madc(n, -ln2_lo, r);
        (t, n, r)
    }

    /// `e^r - 1` for `|r| <= ln(2)/2`, as `r + r^2 P(r)`.
    fn expm1_poly(&mut self, r: Value) -> Value {
        let p = if self.is_f64() {
            // The Taylor series to r^13: truncation below 2^-56 relative.
            let mut coeffs = [0.0; 12];
            let mut fact = 1.0f64;
            for k in 2..=13u32 {
                fact *= f64::from(k);
                coeffs[(13 - k) as usize] = 1.0 / fact;
            }
            self.poly(r, &coeffs)
        } else {
            self.poly(r, &EXPM1_P_F32)
        };
        let r2 = self.mul(r, r);
        self.mad(r2, p, r)
    }

    /// `y * 2^n` for the `t` of [`Em::exp_reduce`], as `y * 2^n1 * 2^n2`
    /// with `n1 = floor(n/2)`, so that neither factor overflows or is
    /// subnormal and only the last product rounds.
    fn scale2(&mut self, y: Value, t: Value) -> Value {
        let l = self.layout();
        let (mant, k) = (l.mant, l.bias - l.magic_bits / 2);
        let tb = self.bits(t);
        let h = self.shr(tb, 1);
        let d = self.fb.ins().isub(tb, h);
        let s1 = self.iaddc(h, k);
        let s1 = self.shl(s1, mant);
        let s1 = self.float_of(s1);
        let s2 = self.iaddc(d, k);
        let s2 = self.shl(s2, mant);
        let s2 = self.float_of(s2);
        let y = self.mul(y, s1);
        self.mul(y, s2)
    }

    /// `2^n` for the `t` of [`Em::exp_reduce`]; `n` must be a normal exponent.
    fn pow2(&mut self, t: Value) -> Value {
        let l = self.layout();
        let (mant, k) = (l.mant, l.bias - l.magic_bits);
        let tb = self.bits(t);
        let e = self.iaddc(tb, k);
        let e = self.shl(e, mant);
        self.float_of(e)
    }

    /// `exp`: for vectors whose every lane is well inside the normal
    /// range, a short path; otherwise (and for scalars) the full one.
    fn exp(&mut self, x: Value) -> Value {
        if self.ty.is_vector() {
            self.exp_vector(x)
        } else {
            self.exp_full(x)
        }
    }

    /// The vector `exp` with a fast path. When every lane has `|x| <=`
    /// 86.9 (f32) / 708 (f64), `n = round(x / ln 2)` is within
    /// `[-125, 127]` (`[-1021, 1022]`) and `e^r` within `[0.70, 1.42]`, so
    /// `e^r 2^n` is normal and finite: no clamp is needed, and the scaling
    /// is exact as an integer add of `n` to the exponent field (`n << mant`
    /// is `bits(t) << mant`: the rounding constant's bits shift out). That
    /// gives the same bits as the full path's two exact multiplies, which a
    /// cold block runs for any other vector (NaN, infinities, overflow and
    /// the subnormal range).
    fn exp_vector(&mut self, x: Value) -> Value {
        let ty = self.ty;
        let (limit, mant) = if self.is_f64() {
            (708.0, F64_LAYOUT.mant)
        } else {
            (86.9, F32_LAYOUT.mant)
        };
        // |x| as a mask with a pooled constant (one `andps`), then "any
        // lane beyond the limit or NaN" (one compare and a `ptest`).
        let abs_mask = if self.is_f64() {
            i64::MAX
        } else {
            i64::from(i32::MAX)
        };
        let xb = self.bits(x);
        let m = self.ci(abs_mask);
        let axb = self.fb.ins().band(xb, m);
        let ax = self.float_of(axb);
        let bad = self.cmpc(FloatCC::UnorderedOrGreaterThan, ax, limit);
        let any = self.fb.ins().vany_true(bad);
        let fast = self.fb.create_block();
        let slow = self.fb.create_block();
        let merge = self.fb.create_block();
        let result = self.fb.append_block_param(merge, ty);
        self.fb.ins().brif(any, slow, &[], fast, &[]);
        self.fb.seal_block(fast);
        self.fb.seal_block(slow);

        self.fb.switch_to_block(slow);
        self.fb.set_cold_block(slow);
        let r = self.exp_full(x);
        self.fb.ins().jump(merge, &[BlockArg::Value(r)]);

        self.fb.switch_to_block(fast);
        let (t, _n, r) = self.exp_reduce(x);
        let p = self.expm1_poly(r);
        let y = self.addc(p, 1.0);
        let tb = self.bits(t);
        let scale = self.shl(tb, mant);
        let yb = self.bits(y);
        let e = self.fb.ins().iadd(yb, scale);
        let e = self.float_of(e);
        self.fb.ins().jump(merge, &[BlockArg::Value(e)]);

        self.fb.switch_to_block(merge);
        self.fb.seal_block(merge);
        result
    }

    fn exp_full(&mut self, x: Value) -> Value {
        // Past these, exp is inf or 0 (after rounding) in the type.
        let (hi, lo) = if self.is_f64() {
            (710.0, -746.0)
        } else {
            (89.0, -104.0)
        };
        let xc = self.min_keep_nan(x, hi);
        let xc = self.max_keep_nan(xc, lo);
        let (t, _n, r) = self.exp_reduce(xc);
        let p = self.expm1_poly(r);
        let y = self.addc(p, 1.0);
        self.scale2(y, t)
    }

    fn expm1(&mut self, x: Value) -> Value {
        // Below `lo`, e^x < 2^-(mantissa+2) and expm1 rounds to -1; `n` stays
        // a normal exponent. Past `big_n`, 2^n - 1 is inexact and e^x - 1
        // rounds like e^x.
        let (hi, lo, big_n) = if self.is_f64() {
            (710.0, -40.0, 53.0)
        } else {
            (89.0, -20.0, 24.0)
        };
        let xc = self.min_keep_nan(x, hi);
        let xc = self.max_keep_nan(xc, lo);
        let (t, n, r) = self.exp_reduce(xc);
        let p = self.expm1_poly(r);
        let u = self.pow2(t);
        let um1 = self.addc(u, -1.0);
        let small = self.mad(u, p, um1);
        let y = self.addc(p, 1.0);
        let big = self.scale2(y, t);
        let is_big = self.cmpc(FloatCC::GreaterThan, n, big_n);
        let res = self.sel(is_big, big, small);
        let zero = self.cmpc(FloatCC::Equal, x, 0.0);
        self.sel(zero, x, res)
    }

    fn tanh(&mut self, x: Value) -> Value {
        let f64 = self.is_f64();
        let a = self.fb.ins().fabs(x);
        // Below 0.625 an odd approximation: Cephes' `tanhf` polynomial for
        // f32, its `tanh` rational for f64.
        let z = self.mul(a, a);
        let small = if f64 {
            let p = self.poly(z, &TANH_P_F64);
            let q = self.poly(z, &TANH_Q_F64);
            let pq = self.div(p, q);
            let az = self.mul(a, z);
            self.mad(az, pq, a)
        } else {
            let p = self.poly(z, &TANH_P_F32);
            let pz = self.mul(p, z);
            self.mad(pz, a, a)
        };
        // Above, `1 - 2 / (e^(2|x|) + 1)`, the denominator `2^n p(r) + (2^n +
        // 1)` rounded once; past `hi`, tanh rounds to 1 in the type.
        let hi = if f64 { 20.0 } else { 10.0 };
        let ac = self.min_keep_nan(a, hi);
        let a2 = self.add(ac, ac);
        let (t, _n, r) = self.exp_reduce(a2);
        let p = self.expm1_poly(r);
        let u = self.pow2(t);
        let up1 = self.addc(u, 1.0);
        let den = self.mad(u, p, up1);
        let two = self.c(2.0);
        let q = self.div(two, den);
        let one = self.c(1.0);
        let large = self.sub(one, q);
        let is_small = self.cmpc(FloatCC::LessThan, a, 0.625);
        let res = self.sel(is_small, small, large);
        // The sign of x onto the non-negative result.
        let sign_mask = if f64 { i64::MIN } else { 0x8000_0000 };
        let xb = self.bits(x);
        let sign = self.bandc(xb, sign_mask);
        let rb = self.bits(res);
        let rb = self.fb.ins().bor(rb, sign);
        self.float_of(rb)
    }

    fn logistic(&mut self, x: Value) -> Value {
        let nx = self.fb.ins().fneg(x);
        let e = self.exp(nx);
        let den = self.addc(e, 1.0);
        let one = self.c(1.0);
        self.div(one, den)
    }

    // ---- log family ------------------------------------------------------

    /// Splits a positive `u` into `2^k (1 + f)`, `1 + f` in `[sqrt(1/2),
    /// sqrt(2))`; returns `(k, f)` as floats. Subnormal `u` are scaled first
    /// when `subnormals` is set. Garbage for zero, negative, infinite or NaN `u`.
    fn log_split(&mut self, u: Value, subnormals: bool) -> (Value, Value) {
        let f64 = self.is_f64();
        let l = self.layout();
        let (sqrt_half, one, mant_mask, scale_bits) = if f64 {
            (
                0x3FE6_A09E_667F_3BCDi64,
                0x3FF0_0000_0000_0000i64,
                0x000F_FFFF_FFFF_FFFFi64,
                54.0f64,
            )
        } else {
            (0x3F35_04F3, 0x3F80_0000, 0x007F_FFFF, 23.0)
        };
        let (us, kadj) = if subnormals {
            let min = if f64 {
                f64::MIN_POSITIVE
            } else {
                f64::from(f32::MIN_POSITIVE)
            };
            let sub = self.cmpc(FloatCC::LessThan, u, min);
            let scaled = self.mulc(u, scale_bits.exp2());
            let us = self.sel(sub, scaled, u);
            let s = self.c(scale_bits);
            let z = self.c(0.0);
            (us, Some(self.sel(sub, s, z)))
        } else {
            (u, None)
        };
        let ub = self.bits(us);
        let ix = self.iaddc(ub, one - sqrt_half);
        let kb = self.shr(ix, l.mant);
        let kb = self.iaddc(kb, l.magic_bits - l.bias);
        let kf = self.float_of(kb);
        let magic = self.c(l.magic);
        let mut k = self.sub(kf, magic);
        if let Some(kadj) = kadj {
            k = self.sub(k, kadj);
        }
        let m = self.bandc(ix, mant_mask);
        let m = self.iaddc(m, sqrt_half);
        let m = self.float_of(m);
        let f = self.addc(m, -1.0);
        (k, f)
    }

    /// `k ln 2 + log(1 + f) + corr` for the split of [`Em::log_split`].
    fn log_finish(&mut self, k: Value, f: Value, corr: Option<Value>) -> Value {
        if self.is_f64() {
            // fdlibm e_log.c / s_log1p.c.
            let s = {
                let two = self.addc(f, 2.0);
                self.div(f, two)
            };
            let z = self.mul(s, s);
            let w = self.mul(z, z);
            let lg = |b: u64| f64::from_bits(b);
            let t1 = self.poly(w, &[lg(LG6), lg(LG4), lg(LG2)]);
            let t1 = self.mul(w, t1);
            let t2 = self.poly(w, &[lg(LG7), lg(LG5), lg(LG3), lg(LG1)]);
            let t2 = self.mul(z, t2);
            let big_r = self.add(t2, t1);
            let hf = self.mulc(f, 0.5);
            let hfsq = self.mul(hf, f);
            let mut lo = self.mulc(k, f64::from_bits(LN2_LO));
            if let Some(c) = corr {
                lo = self.add(lo, c);
            }
            let q = self.add(hfsq, big_r);
            let inner = self.mad(s, q, lo);
            let d = self.sub(hfsq, inner);
            let d = self.sub(d, f);
            let nd = self.fb.ins().fneg(d);
            self.madc(k, f64::from_bits(LN2_HI), nd)
        } else {
            // Cephes logf.
            let z = self.mul(f, f);
            let p = self.poly(f, &LOG_P_F32);
            let fz = self.mul(f, z);
            let mut y = self.mul(fz, p);
            y = self.madc(k, -2.121_944_400_5e-4, y);
            y = self.madc(z, -0.5, y);
            if let Some(c) = corr {
                y = self.add(y, c);
            }
            let res = self.add(f, y);
            self.madc(k, 0.693_359_375, res)
        }
    }

    fn log(&mut self, x: Value) -> Value {
        let (k, f) = self.log_split(x, true);
        let res = self.log_finish(k, f, None);
        let inf = self.cmpc(FloatCC::Equal, x, f64::INFINITY);
        let res = self.sel(inf, x, res);
        let zero = self.cmpc(FloatCC::Equal, x, 0.0);
        let ninf = self.c(f64::NEG_INFINITY);
        let res = self.sel(zero, ninf, res);
        let neg = self.cmpc(FloatCC::UnorderedOrLessThan, x, 0.0);
        let nan = self.c(f64::NAN);
        self.sel(neg, nan, res)
    }

    fn log1p(&mut self, x: Value) -> Value {
        let u = self.addc(x, 1.0);
        // `u` is a multiple of 2^-24 (2^-53) or zero: never subnormal.
        let (k, f) = self.log_split(u, false);
        // fdlibm: c = 1 + x - u, exactly, then c / u.
        let um = self.sub(u, x);
        let one = self.c(1.0);
        let c_big = self.sub(one, um);
        let u1 = self.addc(u, -1.0);
        let c_small = self.sub(x, u1);
        let kpos = self.cmpc(FloatCC::GreaterThan, k, 0.0);
        let c = self.sel(kpos, c_big, c_small);
        let c = self.div(c, u);
        let res = self.log_finish(k, f, Some(c));
        let inf = self.cmpc(FloatCC::Equal, x, f64::INFINITY);
        let res = self.sel(inf, x, res);
        let m1 = self.cmpc(FloatCC::Equal, x, -1.0);
        let ninf = self.c(f64::NEG_INFINITY);
        let res = self.sel(m1, ninf, res);
        let below = self.cmpc(FloatCC::UnorderedOrLessThan, x, -1.0);
        let nan = self.c(f64::NAN);
        let res = self.sel(below, nan, res);
        let zero = self.cmpc(FloatCC::Equal, x, 0.0);
        self.sel(zero, x, res)
    }

    // ---- sin, cos ---------------------------------------------------------

    /// Picks `sin` or `cos` of the reduced argument by the quadrant in the
    /// low bits of `t` and negates as needed: `sin(x)` is `s, c, -s, -c` for
    /// `n mod 4 = 0..3`, and `cos(x) = sin(x + pi/2)`. `self` is f64-laned.
    fn quadrant(&mut self, t: Value, s: Value, c: Value, cos: bool) -> Value {
        let mut q = self.bits(t);
        if cos {
            q = self.iaddc(q, 1);
        }
        let odd = self.bandc(q, 1);
        let one = self.ci(1);
        let swap = self.fb.ins().icmp(IntCC::Equal, odd, one);
        let res = self.sel(swap, c, s);
        let neg = self.bandc(q, 2);
        let sign = self.shl(neg, 62);
        let rb = self.bits(res);
        let rb = self.fb.ins().bxor(rb, sign);
        self.float_of(rb)
    }

    fn sin_cos_f64(&mut self, x: Value, cos: bool) -> Value {
        let b = f64::from_bits;
        let mg = self.c(MAGIC_F64);
        let t = self.madc(x, std::f64::consts::FRAC_2_PI, mg);
        let n = self.sub(t, mg);
        // x - n pi/2 = a - p2 - p3 - p4, with a and p2, p3 exact.
        let a = self.madc(n, -b(PIO2_1), x);
        let p2 = self.mulc(n, b(PIO2_2));
        let s1 = self.sub(a, p2);
        let e1 = self.sub(a, s1);
        let e1 = self.sub(e1, p2);
        let p3 = self.mulc(n, b(PIO2_3));
        let s2 = self.sub(s1, p3);
        let e2 = self.sub(s1, s2);
        let e2 = self.sub(e2, p3);
        let p4 = self.mulc(n, b(PIO2_3T));
        let tail = self.add(e1, e2);
        let tail = self.sub(tail, p4);
        let y0 = self.add(s2, tail);
        let y1 = self.sub(s2, y0);
        let y1 = self.add(y1, tail);

        let z = self.mul(y0, y0);
        let w = self.mul(z, z);
        // fdlibm __kernel_sin(y0, y1, 1).
        let sin = {
            let r1 = self.poly(z, &[b(S4), b(S3), b(S2)]);
            let r2 = self.poly(z, &[b(S6), b(S5)]);
            let zw = self.mul(z, w);
            let r = self.mad(zw, r2, r1);
            let v = self.mul(z, y0);
            // y0 - ((z (y1/2 - v r) - y1) - v S1)
            let vr = self.mul(v, r);
            let hy = self.mulc(y1, 0.5);
            let inner = self.sub(hy, vr);
            let inner = self.mul(z, inner);
            let inner = self.sub(inner, y1);
            let vs1 = self.mulc(v, b(S1));
            let inner = self.sub(inner, vs1);
            self.sub(y0, inner)
        };
        // musl __cos(y0, y1).
        let cos_v = {
            let r1 = self.poly(z, &[b(C3), b(C2), b(C1)]);
            let r1 = self.mul(z, r1);
            let r2 = self.poly(z, &[b(C6), b(C5), b(C4)]);
            let ww = self.mul(w, w);
            let r = self.mad(ww, r2, r1);
            let hz = self.mulc(z, 0.5);
            let one = self.c(1.0);
            let w1 = self.sub(one, hz);
            // w1 + (((1 - w1) - hz) + (z r - y0 y1))
            let d = self.sub(one, w1);
            let d = self.sub(d, hz);
            let zr = self.mul(z, r);
            let xy = self.mul(y0, y1);
            let zr = self.sub(zr, xy);
            let d = self.add(d, zr);
            self.add(w1, d)
        };
        let res = self.quadrant(t, sin, cos_v, cos);
        if cos {
            res
        } else {
            let zero = self.cmpc(FloatCC::Equal, x, 0.0);
            self.sel(zero, x, res)
        }
    }

    /// musl `sinf`/`cosf` in f64 on an f64-laned `xd` (already promoted).
    fn sin_cos_f32_in_f64(&mut self, xd: Value, cos: bool) -> Value {
        let b = f64::from_bits;
        let mg = self.c(MAGIC_F64);
        let t = self.madc(xd, std::f64::consts::FRAC_2_PI, mg);
        let n = self.sub(t, mg);
        let y = self.madc(n, -b(PIO2F_1), xd);
        let y = self.madc(n, -b(PIO2F_1T), y);
        let z = self.mul(y, y);
        let w = self.mul(z, z);
        // __sindf: (y + s (S1 + z S2)) + s w (S3 + z S4), s = z y.
        let sin = {
            let r = self.poly(z, &[SF4, SF3]);
            let s = self.mul(z, y);
            let q = self.poly(z, &[SF2, SF1]);
            let head = self.mad(s, q, y);
            let sw = self.mul(s, w);
            self.mad(sw, r, head)
        };
        // __cosdf: ((1 + z C0) + w C1) + w z (C2 + z C3).
        let cos_v = {
            let r = self.poly(z, &[CF3, CF2]);
            let one = self.c(1.0);
            let head = self.madc(z, CF0, one);
            let head = self.madc(w, CF1, head);
            let wz = self.mul(w, z);
            self.mad(wz, r, head)
        };
        self.quadrant(t, sin, cos_v, cos)
    }

    fn sin_cos_f32(&mut self, x: Value, cos: bool) -> Value {
        let res = if self.ty.is_vector() {
            // Two f64x2 halves: lanes 0-1 and lanes 2-3.
            let hi_mask = self.fb.func.dfg.immediates.push(ConstantData::from(
                &[8u8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15][..],
            ));
            let join_mask = self.fb.func.dfg.immediates.push(ConstantData::from(
                &[0u8, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23][..],
            ));
            // `shuffle` works on bytes; the bitcasts are free.
            let le = MemFlagsData::new().with_endianness(Endianness::Little);
            let lo = self.fb.ins().fvpromote_low(x);
            let xb = self.fb.ins().bitcast(types::I8X16, le, x);
            let xh = self.fb.ins().shuffle(xb, xb, hi_mask);
            let xh = self.fb.ins().bitcast(types::F32X4, le, xh);
            let hi = self.fb.ins().fvpromote_low(xh);
            let mut d = self.with_ty(types::F64X2);
            let rl = d.sin_cos_f32_in_f64(lo, cos);
            let rh = d.sin_cos_f32_in_f64(hi, cos);
            let rl = self.fb.ins().fvdemote(rl);
            let rh = self.fb.ins().fvdemote(rh);
            let rl = self.fb.ins().bitcast(types::I8X16, le, rl);
            let rh = self.fb.ins().bitcast(types::I8X16, le, rh);
            let r = self.fb.ins().shuffle(rl, rh, join_mask);
            self.fb.ins().bitcast(types::F32X4, le, r)
        } else {
            let xd = self.fb.ins().fpromote(types::F64, x);
            let mut d = self.with_ty(types::F64);
            let r = d.sin_cos_f32_in_f64(xd, cos);
            self.fb.ins().fdemote(types::F32, r)
        };
        if cos {
            res
        } else {
            let zero = self.cmpc(FloatCC::Equal, x, 0.0);
            self.sel(zero, x, res)
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each op is JIT-compiled into a loop `out[i] = op(in[i])` for every type
    //! (scalar and vector), with and without FMA, run over a sweep of inputs
    //! and compared with Rust's `std` in ulps. `OXLA_ULP_SWEEP=full` runs the
    //! large sweep behind `docs/jit-accuracy.md` and prints the table and the
    //! throughput; otherwise a reduced sweep runs (and says so).

    use super::*;
    use cranelift_codegen::Context;
    use cranelift_codegen::ir::{Block, MemFlagsData};
    use cranelift_codegen::settings::{self, Configurable};
    use cranelift_frontend::FunctionBuilderContext;
    use std::time::Instant;

    const UNARY: [UnaryOp; 8] = [
        UnaryOp::Exp,
        UnaryOp::Expm1,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Tanh,
        UnaryOp::Logistic,
        UnaryOp::Sin,
        UnaryOp::Cos,
    ];
    const BINARY: [BinaryOp; 3] = [BinaryOp::Pow, BinaryOp::Atan2, BinaryOp::Rem];
    /// The misc family's functions, one call per lane into libm: bit-exact.
    const CALLS: [UnaryOp; 3] = [UnaryOp::Erf, UnaryOp::Cbrt, UnaryOp::Tan];

    fn full_sweep() -> bool {
        std::env::var("OXLA_ULP_SWEEP").is_ok_and(|v| v == "full")
    }

    fn announce_sweep(what: &str) {
        if !full_sweep() {
            eprintln!(
                "\n*** {what}: REDUCED ulp sweep. Set OXLA_ULP_SWEEP=full for the sweep \
                 behind docs/jit-accuracy.md. ***\n"
            );
        }
    }

    #[derive(Clone, Copy, Debug)]
    enum Kernel {
        Unary(UnaryOp),
        Binary(BinaryOp),
    }

    /// A JIT module with a [`MathLib`], compiling one loop per kernel.
    struct Harness {
        module: JITModule,
        lib: MathLib,
        ctx: Context,
        fctx: FunctionBuilderContext,
        count: usize,
    }

    impl Harness {
        /// The host's ISA; with `fma: false`, the host less FMA, AVX and
        /// everything past SSSE3 (an x86-64 of about 2008), so the mul+add
        /// fallback and the SSE encodings are exercised too.
        fn new(fma: bool) -> Harness {
            let mut flags = settings::builder();
            flags.set("opt_level", "speed").unwrap();
            flags.set("enable_verifier", "true").unwrap();
            flags.set("is_pic", "false").unwrap();
            let mut isa = cranelift_native::builder().unwrap();
            if !fma {
                for f in [
                    "has_fma",
                    "has_avx",
                    "has_avx2",
                    "has_avx512f",
                    "has_avx512vl",
                    "has_avx512dq",
                    "has_avx512vbmi",
                    "has_avx512bitalg",
                    "has_sse41",
                    "has_sse42",
                ] {
                    isa.set(f, "false").unwrap();
                }
            }
            let isa = isa.finish(settings::Flags::new(flags)).unwrap();
            let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
            MathLib::register_symbols(&mut jb);
            let mut module = JITModule::new(jb);
            let lib = MathLib::new(&mut module).unwrap();
            assert!(fma || !lib.has_fma);
            let ctx = module.make_context();
            Harness {
                module,
                lib,
                ctx,
                fctx: FunctionBuilderContext::new(),
                count: 0,
            }
        }

        /// The FMA settings to test: off, and on where the host has it.
        fn fma_modes() -> Vec<bool> {
            let probe = Harness::new(true);
            if probe.lib.has_fma {
                vec![true, false]
            } else {
                vec![false]
            }
        }

        /// Compiles `fn(in.., out, n)` computing `out[i] = kernel(in..[i])`
        /// over `n` elements (a multiple of the lane count) of type `ty`.
        fn compile(&mut self, kernel: Kernel, ty: Type) -> *const u8 {
            let arity = match kernel {
                Kernel::Unary(_) => 1,
                Kernel::Binary(_) => 2,
            };
            let ptr = self.module.target_config().pointer_type();
            let mut sig = self.module.make_signature();
            for _ in 0..=arity {
                sig.params.push(AbiParam::new(ptr));
            }
            sig.params.push(AbiParam::new(types::I64));
            self.count += 1;
            let id = self
                .module
                .declare_function(&format!("kernel{}", self.count), Linkage::Export, &sig)
                .unwrap();
            self.ctx.func.signature = sig;
            let flags = MemFlagsData::new().with_notrap();
            {
                let mut fb = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
                let entry = fb.create_block();
                let header: Block = fb.create_block();
                let body = fb.create_block();
                let exit = fb.create_block();
                fb.append_block_params_for_function_params(entry);
                fb.switch_to_block(entry);
                fb.seal_block(entry);
                let params = fb.block_params(entry).to_vec();
                let esize = fb
                    .ins()
                    .iconst(types::I64, i64::from(ty.lane_type().bytes()));
                let end = fb.ins().imul(params[arity + 1], esize);
                let zero = fb.ins().iconst(types::I64, 0);
                let i = fb.append_block_param(header, types::I64);
                fb.ins().jump(header, &[BlockArg::Value(zero)]);
                fb.switch_to_block(header);
                let more = fb.ins().icmp(IntCC::UnsignedLessThan, i, end);
                fb.ins().brif(more, body, &[], exit, &[]);
                fb.switch_to_block(body);
                fb.seal_block(body);
                let mut args = Vec::new();
                for &p in &params[..arity] {
                    let addr = fb.ins().iadd(p, i);
                    args.push(fb.ins().load(ty, flags, addr, 0));
                }
                let y = match kernel {
                    Kernel::Unary(op) => {
                        self.lib
                            .emit_unary(&mut self.module, &mut fb, op, args[0], None)
                    }
                    Kernel::Binary(op) => {
                        self.lib
                            .emit_binary(&mut self.module, &mut fb, op, args[0], args[1])
                    }
                }
                .expect("the sweep asks only for ops the library handles");
                let out = fb.ins().iadd(params[arity], i);
                fb.ins().store(flags, y, out, 0);
                let step = fb.ins().iconst(types::I64, i64::from(ty.bytes()));
                let next = fb.ins().iadd(i, step);
                fb.ins().jump(header, &[BlockArg::Value(next)]);
                fb.seal_block(header);
                fb.switch_to_block(exit);
                fb.seal_block(exit);
                fb.ins().return_(&[]);
                fb.finalize(self.module.target_config());
            }
            let disasm = std::env::var("OXLA_MATH_DISASM").is_ok();
            self.ctx.set_disasm(disasm);
            self.module.define_function(id, &mut self.ctx).unwrap();
            if disasm {
                let code = self.ctx.compiled_code().and_then(|c| c.vcode.clone());
                println!("{kernel:?} on {ty}:\n{}", code.unwrap_or_default());
            }
            self.module.clear_context(&mut self.ctx);
            self.module.finalize_definitions().unwrap();
            self.module.get_finalized_function(id)
        }
    }

    /// Runs a unary kernel from [`Harness::compile`]; `input.len()` must be a
    /// multiple of 4.
    fn run_unary<T: Copy + Default>(f: *const u8, input: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); input.len()];
        run_unary_into(f, input, &mut out);
        out
    }

    fn run_unary_into<T: Copy>(f: *const u8, input: &[T], out: &mut [T]) {
        assert_eq!(input.len(), out.len());
        assert_eq!(input.len() % 4, 0);
        // SAFETY: `f` was compiled by `Harness::compile` for a unary kernel on
        // elements of type `T`: it reads `n` elements from the first pointer
        // and writes `n` to the second, and `n` is a multiple of the lanes.
        unsafe {
            let f: unsafe extern "C" fn(*const T, *mut T, i64) = std::mem::transmute(f);
            f(input.as_ptr(), out.as_mut_ptr(), input.len() as i64);
        }
    }

    /// Runs a binary kernel from [`Harness::compile`].
    fn run_binary<T: Copy + Default>(f: *const u8, a: &[T], b: &[T]) -> Vec<T> {
        assert_eq!(a.len(), b.len());
        let mut out = vec![T::default(); a.len()];
        // SAFETY: as in `run_unary`, with two inputs of equal length.
        unsafe {
            let f: unsafe extern "C" fn(*const T, *const T, *mut T, i64) = std::mem::transmute(f);
            f(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), a.len() as i64);
        }
        out
    }

    /// The element types the sweep runs on.
    trait Elem: Copy + Default + PartialEq + std::fmt::Debug {
        const TYPE: ElementType;
        const SCALAR: Type;
        const VECTOR: Type;
        fn reference(op: UnaryOp, x: Self) -> Self;
        fn reference_binary(op: BinaryOp, x: Self, y: Self) -> Self;
        /// The distance in ulps; `u64::MAX` for a NaN against a number, an
        /// infinity against a finite value, or zeros of different signs.
        fn ulps(got: Self, want: Self) -> u64;
        fn from_f64(v: f64) -> Self;
        /// Every special value worth checking, and the edges of each range.
        fn specials() -> Vec<Self>;
        /// A spread over all bit patterns.
        fn patterns(count: usize) -> Vec<Self>;
    }

    macro_rules! elem_impl {
        ($t:ty, $bits:ty, $sbits:ty, $et:expr, $scalar:expr, $vector:expr,
         $erf:path, $cbrt:path, $tan:path) => {
            impl Elem for $t {
                const TYPE: ElementType = $et;
                const SCALAR: Type = $scalar;
                const VECTOR: Type = $vector;
                fn reference(op: UnaryOp, x: $t) -> $t {
                    match op {
                        UnaryOp::Exp => x.exp(),
                        UnaryOp::Expm1 => x.exp_m1(),
                        UnaryOp::Log => x.ln(),
                        UnaryOp::Log1p => x.ln_1p(),
                        UnaryOp::Tanh => x.tanh(),
                        UnaryOp::Logistic => 1.0 / (1.0 + (-x).exp()),
                        UnaryOp::Sin => x.sin(),
                        UnaryOp::Cos => x.cos(),
                        UnaryOp::Erf => $erf(x),
                        UnaryOp::Cbrt => $cbrt(x),
                        UnaryOp::Tan => $tan(x),
                        other => panic!("no reference for {other}"),
                    }
                }
                fn reference_binary(op: BinaryOp, x: $t, y: $t) -> $t {
                    match op {
                        BinaryOp::Pow => x.powf(y),
                        BinaryOp::Atan2 => x.atan2(y),
                        BinaryOp::Rem => x % y,
                        other => panic!("no reference for {other:?}"),
                    }
                }
                fn ulps(got: $t, want: $t) -> u64 {
                    if got.is_nan() || want.is_nan() {
                        return if got.is_nan() && want.is_nan() {
                            0
                        } else {
                            u64::MAX
                        };
                    }
                    if got.to_bits() == want.to_bits() {
                        return 0;
                    }
                    if got.is_infinite() || want.is_infinite() || (got == 0.0 && want == 0.0) {
                        return u64::MAX;
                    }
                    // Order the bit patterns: negatives below positives.
                    let ord = |v: $t| {
                        let b = v.to_bits() as $sbits;
                        if b < 0 {
                            <$sbits>::MIN.wrapping_sub(b)
                        } else {
                            b
                        }
                    };
                    (ord(got) as i128 - ord(want) as i128).unsigned_abs() as u64
                }
                fn from_f64(v: f64) -> $t {
                    v as $t
                }
                fn specials() -> Vec<$t> {
                    let mut v = vec![
                        0.0,
                        -0.0,
                        <$t>::INFINITY,
                        <$t>::NEG_INFINITY,
                        <$t>::NAN,
                        -<$t>::NAN,
                        <$t>::MIN_POSITIVE,
                        <$t>::MAX,
                        <$t>::MIN,
                        <$t>::EPSILON,
                        <$t>::from_bits(1),
                        <$t>::from_bits(<$t>::MIN_POSITIVE.to_bits() - 1),
                        1.0,
                        -1.0,
                        2.0,
                        0.5,
                        std::f64::consts::PI as $t,
                        std::f64::consts::FRAC_PI_2 as $t,
                        std::f64::consts::FRAC_PI_4 as $t,
                        std::f64::consts::LN_2 as $t,
                    ];
                    // Near the overflow and underflow edges of exp and
                    // expm1, and the saturation of tanh and logistic.
                    let edges: [f64; 16] = [
                        88.72283935546875,
                        88.7228,
                        87.33654,
                        -87.33654,
                        -103.972084,
                        -103.27893,
                        709.782712893384,
                        709.0,
                        -708.3964185322641,
                        -745.1332191019411,
                        -744.44007192138,
                        9.010913,
                        18.714973875118524,
                        17.328679,
                        36.7368005696771,
                        -16.635532333438687,
                    ];
                    for e in edges {
                        let e = e as $t;
                        for d in -8..=8 {
                            let b = (e.to_bits() as $sbits + d) as $bits;
                            v.push(<$t>::from_bits(b));
                            v.push(-<$t>::from_bits(b));
                        }
                    }
                    // Near multiples of pi/2, where sin or cos cancel.
                    for k in 1..200 {
                        let m = (k as f64 * std::f64::consts::FRAC_PI_2) as $t;
                        for d in -2..=2 {
                            v.push(<$t>::from_bits((m.to_bits() as $sbits + d) as $bits));
                        }
                    }
                    // Around 1 (log, log1p) and -1 (log1p).
                    for one in [1.0 as $t, -1.0 as $t] {
                        for d in -64..=64 {
                            v.push(<$t>::from_bits((one.to_bits() as $sbits + d) as $bits));
                        }
                    }
                    // Powers of two, both signs.
                    let mut p = <$t>::from_bits(1);
                    while p.is_finite() {
                        v.push(p);
                        v.push(-p);
                        p *= 2.0;
                    }
                    v
                }
                fn patterns(count: usize) -> Vec<$t> {
                    let span = <$bits>::MAX as f64;
                    let step = (span / count as f64).max(1.0);
                    // An odd-ish step so the low mantissa bits vary.
                    let step = step as $bits | 1;
                    let mut out = Vec::with_capacity(count + 1);
                    let mut b: $bits = 0;
                    loop {
                        out.push(<$t>::from_bits(b));
                        match b.checked_add(step) {
                            Some(n) => b = n,
                            None => break,
                        }
                    }
                    out
                }
            }
        };
    }

    elem_impl!(
        f32,
        u32,
        i32,
        ElementType::F32,
        types::F32,
        types::F32X4,
        libm::erff,
        libm::cbrtf,
        libm::tanf
    );
    elem_impl!(
        f64,
        u64,
        i64,
        ElementType::F64,
        types::F64,
        types::F64X2,
        libm::erf,
        libm::cbrt,
        libm::tan
    );

    /// The value ranges each op is swept densely over, besides the special
    /// values and the spread over all bit patterns.
    fn ranges(op: UnaryOp, f64: bool) -> Vec<(f64, f64)> {
        match (op, f64) {
            (UnaryOp::Exp, false) => vec![(-110.0, 95.0), (-1.0, 1.0)],
            (UnaryOp::Exp, true) => vec![(-750.0, 720.0), (-1.0, 1.0)],
            (UnaryOp::Expm1, false) => vec![(-25.0, 95.0), (-1.0, 1.0), (-1e-4, 1e-4)],
            (UnaryOp::Expm1, true) => vec![(-45.0, 720.0), (-1.0, 1.0), (-1e-4, 1e-4)],
            (UnaryOp::Log, _) => vec![(0.0, 4.0), (0.5, 2.0), (0.0, 1e6)],
            (UnaryOp::Log1p, _) => vec![(-1.0, 2.0), (-1e-4, 1e-4), (-1.0, 1e6)],
            (UnaryOp::Tanh, _) => vec![(-25.0, 25.0), (-1.0, 1.0), (-1e-3, 1e-3)],
            (UnaryOp::Logistic, false) => vec![(-110.0, 110.0), (-20.0, 20.0)],
            (UnaryOp::Logistic, true) => vec![(-750.0, 750.0), (-40.0, 40.0)],
            (UnaryOp::Sin | UnaryOp::Cos, false) => {
                vec![(-10.0, 10.0), (-1e5, 1e5), (-3e8, 3e8)]
            }
            (UnaryOp::Sin | UnaryOp::Cos, true) => {
                vec![(-10.0, 10.0), (-1e5, 1e5), (-1.1e6, 1.1e6)]
            }
            // The misc family's calls into libm.
            (UnaryOp::Erf, _) => vec![(-6.0, 6.0), (-1e-3, 1e-3)],
            (UnaryOp::Cbrt, _) => vec![(-1e3, 1e3), (-1e-3, 1e-3)],
            (UnaryOp::Tan, _) => vec![(-10.0, 10.0), (-1e5, 1e5)],
            (other, _) => panic!("no sweep for {other}"),
        }
    }

    /// The inputs for `op`: specials, a spread over all bit patterns and the
    /// dense ranges, padded to a multiple of 4.
    fn sweep<T: Elem>(op: UnaryOp, patterns: usize, per_range: usize) -> Vec<T> {
        let mut xs = T::specials();
        xs.extend(T::patterns(patterns));
        for (lo, hi) in ranges(op, T::TYPE == ElementType::F64) {
            for i in 0..per_range {
                xs.push(T::from_f64(
                    lo + (hi - lo) * (i as f64 + 0.5) / per_range as f64,
                ));
            }
        }
        while xs.len() % 4 != 0 {
            xs.push(T::default());
        }
        xs
    }

    struct Worst<T> {
        ulps: u64,
        at: T,
        got: T,
        want: T,
        /// How many inputs were off by 0, 1, 2, 3 and 4 or more ulps.
        histogram: [usize; 5],
    }

    /// The largest error of `got` against `want` over `xs`.
    fn worst<T: Elem>(xs: &[T], got: &[T], want: &[T]) -> Worst<T> {
        let mut w = Worst {
            ulps: 0,
            at: T::default(),
            got: T::default(),
            want: T::default(),
            histogram: [0; 5],
        };
        for i in 0..xs.len() {
            let u = T::ulps(got[i], want[i]);
            w.histogram[u.min(4) as usize] += 1;
            if u > w.ulps {
                w.ulps = u;
                (w.at, w.got, w.want) = (xs[i], got[i], want[i]);
            }
        }
        w
    }

    /// Sweeps one op on one element type, scalar and vector, with and without
    /// FMA, and checks the error against [`ulp_bound`].
    fn check_unary<T: Elem>(op: UnaryOp) {
        let (patterns, per_range) = match (full_sweep(), T::TYPE) {
            (true, ElementType::F32) => (1 << 26, 1 << 22),
            (true, _) => (1 << 22, 1 << 21),
            (false, ElementType::F32) => (1 << 18, 1 << 15),
            (false, _) => (1 << 16, 1 << 14),
        };
        let xs: Vec<T> = sweep(op, patterns, per_range);
        let want: Vec<T> = xs.iter().map(|&x| T::reference(op, x)).collect();
        let bound = u64::from(ulp_bound(op, T::TYPE));
        let mut failures = Vec::new();
        for fma in Harness::fma_modes() {
            let mut h = Harness::new(fma);
            for ty in [T::SCALAR, T::VECTOR] {
                let f = h.compile(Kernel::Unary(op), ty);
                let got = run_unary(f, &xs);
                let w = worst(&xs, &got, &want);
                println!(
                    "ulp {:<22} {:<5} fma={:<5} max {:>3} ulp over {} inputs (worst at {:?}: got {:?}, std {:?}); \
                     off by 0/1/2/3/4+ ulp: {:?}",
                    op.name(),
                    ty.to_string(),
                    fma,
                    w.ulps,
                    xs.len(),
                    w.at,
                    w.got,
                    w.want,
                    w.histogram
                );
                if w.ulps > bound {
                    failures.push(format!(
                        "{} on {ty} (fma={fma}): {} ulp > bound {bound} at x = {:?}: got {:?}, std {:?}",
                        op.name(),
                        if w.ulps == u64::MAX { "special-value mismatch".to_string() } else { w.ulps.to_string() },
                        w.at,
                        w.got,
                        w.want
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    fn check_both(op: UnaryOp) {
        announce_sweep(op.name());
        check_unary::<f32>(op);
        check_unary::<f64>(op);
    }

    /// erf, cbrt and tan call libm lane by lane: the interpreter's bits,
    /// scalar and vector, special values included (bound 0).
    #[test]
    fn libm_calls_are_bit_exact() {
        for op in CALLS {
            check_both(op);
        }
    }

    /// The vector `exp` takes a short path when all lanes are in range and
    /// the full one otherwise; both must give the scalar's bits, whatever
    /// the neighbouring lanes (so results do not depend on alignment).
    #[test]
    fn vector_exp_paths_give_the_scalar_bits() {
        let mut base32: Vec<f32> = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            86.8,
            86.9,
            86.90001,
            87.0,
            88.3,
            88.72,
            88.73,
            89.0,
            -86.8,
            -86.9,
            -86.90001,
            -87.3,
            -87.4,
            -100.0,
            -103.9,
            -104.0,
            -105.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-30,
            -1e-45,
            3.5,
            -20.0,
        ];
        for k in 0..400 {
            base32.push(-110.0 + k as f32 * 0.55);
        }
        let mut base64: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            707.9,
            708.0,
            708.00001,
            709.7,
            709.8,
            710.0,
            -707.9,
            -708.0,
            -708.1,
            -745.1,
            -745.2,
            -746.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for k in 0..400 {
            base64.push(-760.0 + k as f64 * 3.7);
        }
        // Every value next to every other one in a vector.
        let mix32: Vec<f32> = (0..base32.len() * 4)
            .map(|i| base32[(i * 7 + i / 4) % base32.len()])
            .collect();
        let mix64: Vec<f64> = (0..base64.len() * 4)
            .map(|i| base64[(i * 5 + i / 4) % base64.len()])
            .collect();
        for fma in Harness::fma_modes() {
            let mut h = Harness::new(fma);
            let (s, v) = (
                h.compile(Kernel::Unary(UnaryOp::Exp), types::F32),
                h.compile(Kernel::Unary(UnaryOp::Exp), types::F32X4),
            );
            for (x, (a, b)) in mix32
                .iter()
                .zip(run_unary(s, &mix32).into_iter().zip(run_unary(v, &mix32)))
            {
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "exp({x}): {a} vs {b}"
                );
            }
            let (s, v) = (
                h.compile(Kernel::Unary(UnaryOp::Exp), types::F64),
                h.compile(Kernel::Unary(UnaryOp::Exp), types::F64X2),
            );
            for (x, (a, b)) in mix64
                .iter()
                .zip(run_unary(s, &mix64).into_iter().zip(run_unary(v, &mix64)))
            {
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "exp({x}): {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn exp_is_within_its_ulp_bound() {
        check_both(UnaryOp::Exp);
    }

    #[test]
    fn expm1_is_within_its_ulp_bound() {
        check_both(UnaryOp::Expm1);
    }

    #[test]
    fn log_is_within_its_ulp_bound() {
        check_both(UnaryOp::Log);
    }

    #[test]
    fn log1p_is_within_its_ulp_bound() {
        check_both(UnaryOp::Log1p);
    }

    #[test]
    fn tanh_is_within_its_ulp_bound() {
        check_both(UnaryOp::Tanh);
    }

    #[test]
    fn logistic_is_within_its_ulp_bound() {
        check_both(UnaryOp::Logistic);
    }

    #[test]
    fn sin_is_within_its_ulp_bound() {
        check_both(UnaryOp::Sin);
    }

    #[test]
    fn cos_is_within_its_ulp_bound() {
        check_both(UnaryOp::Cos);
    }

    fn check_binary<T: Elem>() {
        // The first specials (zeros, infinities, NaNs, extremes, small
        // integers), a spread of bit patterns and a grid: every pair of them.
        let mut vals = T::specials()[..20].to_vec();
        vals.extend(T::patterns(64));
        for i in 0..64 {
            vals.push(T::from_f64(-8.0 + 0.25 * i as f64));
        }
        let mut a = Vec::new();
        let mut b = Vec::new();
        for &x in &vals {
            for &y in &vals {
                a.push(x);
                b.push(y);
            }
        }
        while a.len() % 4 != 0 {
            a.push(T::default());
            b.push(T::default());
        }
        let mut h = Harness::new(true);
        for op in BINARY {
            let want: Vec<T> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| T::reference_binary(op, x, y))
                .collect();
            for ty in [T::SCALAR, T::VECTOR] {
                let f = h.compile(Kernel::Binary(op), ty);
                let got = run_binary(f, &a, &b);
                for i in 0..a.len() {
                    assert_eq!(
                        T::ulps(got[i], want[i]),
                        0,
                        "{op:?} on {ty}: {:?}, {:?} gave {:?}, std {:?}",
                        a[i],
                        b[i],
                        got[i],
                        want[i]
                    );
                }
            }
        }
    }

    #[test]
    fn pow_atan2_and_rem_are_bit_exact() {
        check_binary::<f32>();
        check_binary::<f64>();
    }

    #[test]
    fn handles_exactly_the_float_transcendentals() {
        for &op in UnaryOp::ALL {
            for ty in [
                types::F32,
                types::F64,
                types::F32X4,
                types::F64X2,
                types::I32,
                types::I32X4,
            ] {
                let float = is_float_type(ty);
                assert_eq!(
                    MathLib::handles_unary(op, ty),
                    float && (UNARY.contains(&op) || CALLS.contains(&op)),
                    "{op} {ty}"
                );
            }
        }
        for &op in BinaryOp::ALL {
            for ty in [types::F32, types::F64X2, types::I64] {
                let float = is_float_type(ty);
                assert_eq!(
                    MathLib::handles_binary(op, ty),
                    float && BINARY.contains(&op),
                    "{op:?} {ty}"
                );
            }
        }
        for op in UNARY {
            assert!(ulp_bound(op, ElementType::F32) >= 1 && ulp_bound(op, ElementType::F64) >= 1);
        }
        for op in CALLS {
            assert_eq!(ulp_bound(op, ElementType::F32), 0);
            assert_eq!(ulp_bound(op, ElementType::F64), 0);
        }
        assert_eq!(ulp_bound(UnaryOp::Sqrt, ElementType::F32), 0);
        assert_eq!(ulp_bound(UnaryOp::Exp, ElementType::S32), 0);
        assert_eq!(ulp_bound_binary(BinaryOp::Rem, ElementType::F32), 0);
    }

    /// Nanoseconds per element of each op over 4M elements and over 16K
    /// (cache-resident, run 256 times), best of 5, with the host's FMA
    /// setting, next to a native Rust loop over `std`. Only timed in the full
    /// sweep.
    #[test]
    fn throughput() {
        if !full_sweep() {
            announce_sweep("throughput (not timed)");
            return;
        }
        let mut h = Harness::new(true);
        println!(
            "throughput in ns/element, inputs evenly spread over [-8, 8], fma={}",
            h.lib.has_fma
        );
        for (n, reps) in [(1usize << 22, 1usize), (1 << 14, 256)] {
            let x32: Vec<f32> = (0..n)
                .map(|i| -8.0 + 16.0 * (i as f32) / n as f32)
                .collect();
            let x64: Vec<f64> = (0..n)
                .map(|i| -8.0 + 16.0 * (i as f64) / n as f64)
                .collect();
            let out32 = std::cell::RefCell::new(vec![0f32; n]);
            let out64 = std::cell::RefCell::new(vec![0f64; n]);
            let time = |f: &dyn Fn()| {
                (0..5)
                    .map(|_| {
                        let t = Instant::now();
                        for _ in 0..reps {
                            f();
                        }
                        t.elapsed().as_secs_f64() * 1e9 / (n * reps) as f64
                    })
                    .fold(f64::INFINITY, f64::min)
            };
            println!("\n{n} elements x {reps}:");
            println!("| op | f32 | f32x4 | f64 | f64x2 | std f32 | std f64 |");
            println!("|---|---|---|---|---|---|---|");
            for op in UNARY {
                let mut row = format!("| {} |", op.name());
                for ty in [types::F32, types::F32X4, types::F64, types::F64X2] {
                    let f = h.compile(Kernel::Unary(op), ty);
                    let ns = if ty.lane_type() == types::F32 {
                        time(&|| run_unary_into(f, &x32, &mut out32.borrow_mut()))
                    } else {
                        time(&|| run_unary_into(f, &x64, &mut out64.borrow_mut()))
                    };
                    row += &format!(" {ns:.2} |");
                }
                let ns = time(&|| {
                    for (o, &x) in out32.borrow_mut().iter_mut().zip(&x32) {
                        *o = f32::reference(op, std::hint::black_box(x));
                    }
                });
                row += &format!(" {ns:.2} |");
                let ns = time(&|| {
                    for (o, &x) in out64.borrow_mut().iter_mut().zip(&x64) {
                        *o = f64::reference(op, std::hint::black_box(x));
                    }
                });
                row += &format!(" {ns:.2} |");
                println!("{row}");
            }
        }
    }
}
