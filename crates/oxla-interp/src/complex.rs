//! `c64` and `c128`: XLA's complex arithmetic on (re, im) pairs of `f32` or
//! `f64`, each part computed in its own type.
//!
//! Every complex op is a formula over real operations on the parts, one
//! function per op in [`xla`] (the single place they are written, so that
//! a backend lowering complex ops into real ones can follow them step for
//! step): `add`/`subtract` per part; `multiply`, `divide`, `abs`, `sign`,
//! `rsqrt`, `exponential-minus-one`, `sine`, `cosine`, `tanh`, `tan`,
//! `power` and `logistic` as XLA:CPU's elemental emitter computes them;
//! `sqrt`, `log`, `log-plus-one` and `exponential` as StableHLO's complex
//! math expander (which XLA applies to every StableHLO module, JAX's
//! included). Checked against XLA:CPU over special and ordinary values in
//! `tests/hlo/types/complex_transcendental.hlo`. Comparisons are
//! `EQ`/`NE` only. The ops that build and take apart complex arrays
//! (`complex`, `real`, `imag`) and `fft` are here too.

use oxla_ir::{
    ArrayData, BinaryOp, ComparisonDirection, Complex64, Complex128, ElementType, FftType, Literal,
    Shape, UnaryOp,
};

use crate::element::{Conv, Element};
use crate::ops::{OpResult, array};

/// `|z|` of a `c64` as XLA computes it ([`xla::abs`]).
pub(crate) fn magnitude64(z: Complex64) -> f32 {
    xla::abs((z.re, z.im))
}

/// `|z|` of a `c128` as XLA computes it ([`xla::abs`]).
pub(crate) fn magnitude128(z: Complex128) -> f64 {
    xla::abs((z.re, z.im))
}

macro_rules! complex_element {
    ($c:ty, $f:ty) => {
        impl Element for $c {
            fn compare(direction: ComparisonDirection, a: $c, b: $c) -> bool {
                let eq = a.re == b.re && a.im == b.im;
                match direction {
                    ComparisonDirection::Eq => eq,
                    ComparisonDirection::Ne => !eq,
                    // Refused by shape inference: complex numbers have no order.
                    ComparisonDirection::Lt
                    | ComparisonDirection::Le
                    | ComparisonDirection::Gt
                    | ComparisonDirection::Ge => false,
                }
            }

            fn to_conv(self) -> Conv {
                Conv::Complex(f64::from(self.re), f64::from(self.im))
            }

            /// A real value becomes `(x, 0)`; each part rounds to the part
            /// type.
            fn from_conv(value: Conv) -> $c {
                let (re, im) = match value {
                    Conv::Pred(b) => (f64::from(u8::from(b)), 0.0),
                    Conv::Int(i) => (i as f64, 0.0),
                    Conv::Float(f) => (f, 0.0),
                    Conv::Complex(re, im) => (re, im),
                };
                <$c>::new(re as $f, im as $f)
            }

            fn unary_fn(op: UnaryOp) -> Option<fn($c) -> $c> {
                let f: fn($c) -> $c = match op {
                    UnaryOp::Neg => |z| <$c>::new(-z.re, -z.im),
                    UnaryOp::Sign => |z| unary(z, xla::sign),
                    UnaryOp::Exp => |z| unary(z, xla::exp),
                    UnaryOp::Expm1 => |z| unary(z, xla::expm1),
                    UnaryOp::Log => |z| unary(z, xla::log),
                    UnaryOp::Log1p => |z| unary(z, xla::log1p),
                    UnaryOp::Sqrt => |z| unary(z, xla::sqrt),
                    UnaryOp::Rsqrt => |z| unary(z, xla::rsqrt),
                    UnaryOp::Tanh => |z| unary(z, xla::tanh),
                    UnaryOp::Logistic => |z| unary(z, xla::logistic),
                    UnaryOp::Sin => |z| unary(z, xla::sin),
                    UnaryOp::Cos => |z| unary(z, xla::cos),
                    UnaryOp::Tan => |z| unary(z, xla::tan),
                    // `abs` and `is-finite` have a real result (`ops::unary`);
                    // the rest are not defined on complex numbers.
                    UnaryOp::PopCnt
                    | UnaryOp::Clz
                    | UnaryOp::Erf
                    | UnaryOp::Cbrt
                    | UnaryOp::RoundNearestAfz
                    | UnaryOp::Abs
                    | UnaryOp::IsFinite
                    | UnaryOp::Floor
                    | UnaryOp::Ceil
                    | UnaryOp::RoundNearestEven
                    | UnaryOp::Not => return None,
                };
                Some(f)
            }

            fn binary_fn(op: BinaryOp) -> Option<fn($c, $c) -> $c> {
                let f: fn($c, $c) -> $c = match op {
                    BinaryOp::Add => |a, b| <$c>::new(a.re + b.re, a.im + b.im),
                    BinaryOp::Sub => |a, b| <$c>::new(a.re - b.re, a.im - b.im),
                    BinaryOp::Mul => mul,
                    BinaryOp::Div => div,
                    BinaryOp::Pow => |a, b| {
                        let (re, im) = xla::pow((a.re, a.im), (b.re, b.im));
                        <$c>::new(re, im)
                    },
                    BinaryOp::Rem
                    | BinaryOp::Max
                    | BinaryOp::Min
                    | BinaryOp::Atan2
                    | BinaryOp::And
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

        /// Applies a formula of [`xla`] to the parts of `z`.
        fn unary(z: $c, f: fn(($f, $f)) -> ($f, $f)) -> $c {
            let (re, im) = f((z.re, z.im));
            <$c>::new(re, im)
        }

        fn mul(a: $c, b: $c) -> $c {
            let (re, im) = xla::mul((a.re, a.im), (b.re, b.im));
            <$c>::new(re, im)
        }

        fn div(a: $c, b: $c) -> $c {
            let (re, im) = xla::div((a.re, a.im), (b.re, b.im));
            <$c>::new(re, im)
        }
    };
}

mod c64 {
    use super::*;
    complex_element!(Complex64, f32);
}

mod c128 {
    use super::*;
    complex_element!(Complex128, f64);
}

/// XLA's complex formulas, one function per op, written only with real
/// operations on the parts `(re, im)` so that a backend lowering complex
/// ops into real ones can follow them step for step.
///
/// Where the formulas come from (jaxlib 0.10.2's XLA:CPU, checked against
/// it in `tests/hlo/types/complex_transcendental.hlo`):
/// - `sqrt`, `log`, `log1p` and `exp` are StableHLO's complex math
///   expander (what XLA runs for a StableHLO module, hence for JAX's
///   `jnp.sqrt` & co. and for oxla's export);
/// - `abs`, `sign`, `rsqrt`, `expm1`, `sin`, `cos`, `tanh`, `tan`, `pow`,
///   `mul`, `div` and the `exp` inside `logistic` ([`exp_emitter`]) are
///   XLA:CPU's elemental emitter.
///
/// Each step is one rounded real operation unless it says `fma` (XLA:CPU's
/// LLVM fuses a product into the sum that alone uses it). `max`/`min` are
/// XLA's ([`max`], [`min`]): a NaN operand gives NaN. The real functions
/// (`exp`, `ln`, `sin`, `atan2`, ...) are Rust's: XLA:CPU's own
/// approximations land within a few ulps of them, the bound each op's test
/// states.
pub(crate) mod xla {
    use std::ops::{Add, Div, Mul, Neg, Sub};

    /// The part type of a complex number: `f32` for `c64`, `f64` for
    /// `c128`; the real operations the formulas use.
    pub(crate) trait Part:
        Copy
        + PartialOrd
        + Add<Output = Self>
        + Sub<Output = Self>
        + Mul<Output = Self>
        + Div<Output = Self>
        + Neg<Output = Self>
    {
        /// The largest finite value.
        const MAX: Self;
        /// `+∞`.
        const INF: Self;
        /// A quiet NaN.
        const NAN: Self;
        /// `v` rounded to the part type (the formulas' constants).
        fn c(v: f64) -> Self;
        fn abs(self) -> Self;
        fn sqrt(self) -> Self;
        fn exp(self) -> Self;
        fn exp_m1(self) -> Self;
        fn ln(self) -> Self;
        fn ln_1p(self) -> Self;
        fn sin(self) -> Self;
        fn cos(self) -> Self;
        fn atan2(self, x: Self) -> Self;
        fn powf(self, e: Self) -> Self;
        fn mul_add(self, a: Self, b: Self) -> Self;
        fn copysign(self, sign: Self) -> Self;
        fn is_nan(self) -> bool;
    }

    macro_rules! part {
        ($f:ty) => {
            impl Part for $f {
                const MAX: $f = <$f>::MAX;
                const INF: $f = <$f>::INFINITY;
                const NAN: $f = <$f>::NAN;
                fn c(v: f64) -> $f {
                    v as $f
                }
                fn abs(self) -> $f {
                    <$f>::abs(self)
                }
                fn sqrt(self) -> $f {
                    <$f>::sqrt(self)
                }
                fn exp(self) -> $f {
                    <$f>::exp(self)
                }
                fn exp_m1(self) -> $f {
                    <$f>::exp_m1(self)
                }
                fn ln(self) -> $f {
                    <$f>::ln(self)
                }
                fn ln_1p(self) -> $f {
                    <$f>::ln_1p(self)
                }
                fn sin(self) -> $f {
                    <$f>::sin(self)
                }
                fn cos(self) -> $f {
                    <$f>::cos(self)
                }
                fn atan2(self, x: $f) -> $f {
                    <$f>::atan2(self, x)
                }
                fn powf(self, e: $f) -> $f {
                    <$f>::powf(self, e)
                }
                fn mul_add(self, a: $f, b: $f) -> $f {
                    <$f>::mul_add(self, a, b)
                }
                fn copysign(self, sign: $f) -> $f {
                    <$f>::copysign(self, sign)
                }
                fn is_nan(self) -> bool {
                    <$f>::is_nan(self)
                }
            }
        };
    }
    part!(f32);
    part!(f64);

    /// A complex value as its parts `(re, im)`.
    pub(crate) type Z<F> = (F, F);

    /// XLA's `maximum`: NaN if either operand is NaN.
    pub(crate) fn max<F: Part>(a: F, b: F) -> F {
        if a.is_nan() || b.is_nan() {
            F::NAN
        } else if a >= b {
            a
        } else {
            b
        }
    }

    /// XLA's `minimum`: NaN if either operand is NaN.
    pub(crate) fn min<F: Part>(a: F, b: F) -> F {
        if a.is_nan() || b.is_nan() {
            F::NAN
        } else if a <= b {
            a
        } else {
            b
        }
    }

    /// `if cond { a } else { b }`: XLA's `select`.
    fn select<T>(cond: bool, a: T, b: T) -> T {
        if cond { a } else { b }
    }

    /// `a · b`: `(fma(a.re, b.re, -(a.im·b.im)), fma(a.im, b.re, a.re·b.im))`.
    pub(crate) fn mul<F: Part>(a: Z<F>, b: Z<F>) -> Z<F> {
        (a.0.mul_add(b.0, -(a.1 * b.1)), a.1.mul_add(b.0, a.0 * b.1))
    }

    /// `a / b`: Smith's algorithm scaled by the larger part of `b` (the
    /// `b.im / b.re` form unless `|b.re| < |b.im|`, so also when a part is
    /// NaN), with fused multiply-adds. Where that gives NaN in both parts,
    /// three corner cases are tried in order:
    /// 1. `b` zero and `a` not all NaN: `copysign(∞, b.re)` times each part
    ///    of `a`;
    /// 2. a part of `a` infinite, `b` finite: `a`'s parts replaced by
    ///    `copysign(1 or 0, part)` (1 where infinite), then
    ///    `∞ · (a·conj b)` part by part, unfused;
    /// 3. `a` finite, a part of `b` infinite: `b`'s parts replaced likewise,
    ///    then `0 · (a·conj b)` part by part, unfused.
    pub(crate) fn div<F: Part>(a: Z<F>, b: Z<F>) -> Z<F> {
        let ((ar, ai), (br, bi)) = (a, b);
        let smith = if br.abs() < bi.abs() {
            let r = br / bi;
            let d = r.mul_add(br, bi);
            (r.mul_add(ar, ai) / d, r.mul_add(ai, -ar) / d)
        } else {
            let r = bi / br;
            let d = r.mul_add(bi, br);
            (r.mul_add(ai, ar) / d, (-r).mul_add(ar, ai) / d)
        };
        if !(smith.0.is_nan() && smith.1.is_nan()) {
            return smith;
        }
        let (zero, one, inf) = (F::c(0.0), F::c(1.0), F::INF);
        let is_inf = |x: F| x.abs() == inf;
        let finite = |x: F| x.abs() != inf && !x.is_nan();
        // `copysign(1, x)` where `x` is infinite, `copysign(0, x)` else.
        let unit = |x: F| select(is_inf(x), one, zero).copysign(x);
        if br == zero && bi == zero && !(ar.is_nan() && ai.is_nan()) {
            let s = inf.copysign(br);
            (s * ar, s * ai)
        } else if (is_inf(ar) || is_inf(ai)) && finite(br) && finite(bi) {
            let (x, y) = (unit(ar), unit(ai));
            (inf * (x * br + y * bi), inf * (y * br - x * bi))
        } else if finite(ar) && finite(ai) && (is_inf(br) || is_inf(bi)) {
            let (x, y) = (unit(br), unit(bi));
            (zero * (ar * x + ai * y), zero * (ai * x - ar * y))
        } else {
            smith
        }
    }

    /// `|z|` (a real result): `max · sqrt(fma(r, r, 1))` with
    /// `r = min / max` over `|re|`, `|im|`; `min` where that is NaN (both
    /// parts 0, both infinite, or a NaN part).
    pub(crate) fn abs<F: Part>((x, y): Z<F>) -> F {
        let (ax, ay) = (x.abs(), y.abs());
        let (mx, mn) = (max(ax, ay), min(ax, ay));
        let r = mn / mx;
        let m = mx * r.mul_add(r, F::c(1.0)).sqrt();
        select(m.is_nan(), mn, m)
    }

    /// `sign(z) = z / |z|` part by part; `z` itself (a signed zero) where
    /// `|z| = 0`.
    pub(crate) fn sign<F: Part>(z: Z<F>) -> Z<F> {
        let m = abs(z);
        select(m == F::c(0.0), z, (z.0 / m, z.1 / m))
    }

    /// `exp(z)` (StableHLO's expander):
    /// 1. `e = exp(x)`;
    /// 2. where `e` overflows (`e == ∞`), `h = exp(x · 0.5)` and the parts
    ///    `(h · cos y) · h`, `(h · sin y) · h`; else `e · cos y`, `e · sin y`;
    /// 3. the imaginary part is `+0` where `y == 0`.
    pub(crate) fn exp<F: Part>((x, y): Z<F>) -> Z<F> {
        let e = x.exp();
        let h = (x * F::c(0.5)).exp();
        let (c, s) = (y.cos(), y.sin());
        let big = e == F::INF;
        let re = select(big, (h * c) * h, e * c);
        let im = select(big, (h * s) * h, e * s);
        (re, select(y == F::c(0.0), F::c(0.0), im))
    }

    /// `exp(z)` as XLA:CPU's elemental emitter computes it (the `exp` of
    /// XLA's `logistic` expansion): `(exp(x) · cos y, exp(x) · sin y)`.
    pub(crate) fn exp_emitter<F: Part>((x, y): Z<F>) -> Z<F> {
        let e = x.exp();
        (e * y.cos(), e * y.sin())
    }

    /// `logistic(z) = 1 / (exp_emitter(-z) + 1)`, XLA's expansion, with
    /// [`div`] (unfused: the sum is another loop's).
    pub(crate) fn logistic<F: Part>((x, y): Z<F>) -> Z<F> {
        let (er, ei) = exp_emitter((-x, -y));
        let (zero, one) = (F::c(0.0), F::c(1.0));
        div((one, zero), (er + one, ei + zero))
    }

    /// `cos(y) - 1` as XLA computes it (cephes' `cosm1`): where
    /// `y² > 0.61685` (`|y| > π/4`) `cos(y) - 1`; else
    /// `y⁴ · P(y²) + (-0.5 · y²)`, `P` by Horner from 0 (each step
    /// `fma(p, y², c)`).
    pub(crate) fn cosm1<F: Part>(y: F) -> F {
        const P: [f64; 7] = [
            4.737_750_796_424_621e-14,
            -1.147_028_484_342_536e-11,
            2.087_675_428_708_152e-9,
            -2.755_731_921_499_979e-7,
            2.480_158_730_157_055e-5,
            -1.388_888_888_888_887_2e-3,
            4.166_666_666_666_666_4e-2,
        ];
        let yy = y * y;
        let yyyy = yy * yy;
        let mut p = F::c(0.0);
        for c in P {
            p = p.mul_add(yy, F::c(c));
        }
        let small = yyyy.mul_add(p, F::c(-0.5) * yy);
        select(yy > F::c(0.61685), y.cos() - F::c(1.0), small)
    }

    /// `exp(z) - 1` (elemental emitter): with `m = expm1(x)`,
    /// `k = cosm1(y)`, the parts `fma(m, k + 1, k)` and
    /// `(m + 1) · sin y`, the latter `+0` where `y == 0`.
    pub(crate) fn expm1<F: Part>((x, y): Z<F>) -> Z<F> {
        let one = F::c(1.0);
        let m = x.exp_m1();
        let k = cosm1(y);
        let re = m.mul_add(k + one, k);
        let im = select(y == F::c(0.0), F::c(0.0), (m + one) * y.sin());
        (re, im)
    }

    /// `log(z)` (StableHLO's expander); the imaginary part is
    /// `atan2(y, x)`. The real part:
    /// 1. `s = x² + y² - 1` summed exactly enough: the squares split by
    ///    Dekker (`square_dekker`: high `x·x`, low part from Veltkamp's
    ///    split), the larger high square first, then the smaller, then the
    ///    low parts of `y²` and `x²`, each sum's error kept (fast 2Sum) and
    ///    the errors added last;
    /// 2. where `|s| < 0.5`, `0.5 · log1p(s)`;
    /// 3. else `fma(0.5, log1p(r · r), ln(mx))`, `mx = max(|x|, |y|)`,
    ///    `r = min(|x|, |y|) / mx` (1 where `min == mx`).
    pub(crate) fn log<F: Part>((x, y): Z<F>) -> Z<F> {
        let half = F::c(0.5);
        let neg1 = F::c(-1.0);
        let (yy, xx) = (y * y, x * x);
        let y_larger = yy > xx;
        let mxh = select(y_larger, yy, xx);
        let mnh = select(y_larger, xx, yy);
        let (yyl, xxl) = (square_dekker_low(y, yy), square_dekker_low(x, xx));
        let s2 = neg1 + mxh;
        let s1 = s2 + mnh;
        let s0 = s1 + yyl;
        let s = s0 + xxl;
        let low =
            (((mxh - (s2 - neg1)) + (mnh - (s1 - s2))) + (yyl - (s0 - s1))) + (xxl - (s - s0));
        let sum = s + low;
        let (ax, ay) = (x.abs(), y.abs());
        let mx = max(ax, ay);
        let mn = min(ax, ay);
        let r = select(mn == mx, F::c(1.0), mn / mx);
        let re = select(
            sum.abs() < half,
            half * sum.ln_1p(),
            half.mul_add((r * r).ln_1p(), mx.ln()),
        );
        (re, y.atan2(x))
    }

    /// The low part of Dekker's `v²` whose high part is `vv = v · v`:
    /// Veltkamp's split `vh = c·v + (v - c·v)`, `vl = v - vh` (`c` = 4097
    /// in `f32`, 134217729 in `f64`), then
    /// `fma(vl, vl, (fma(vh, vh, -vv) + vh·vl) + vh·vl)` (the products
    /// used once fused into their sums, as XLA:CPU's LLVM does).
    pub(crate) fn square_dekker_low<F: Part>(v: F, vv: F) -> F {
        let c = if F::MAX > F::c(1e308) {
            F::c(134_217_729.0)
        } else if F::MAX > F::c(1e38) {
            F::c(4097.0)
        } else {
            F::c(65.0)
        };
        let cv = c * v;
        let vh = cv + (v - cv);
        let vl = v - vh;
        let hl = vh * vl;
        vl.mul_add(vl, (vh.mul_add(vh, -vv) + hl) + hl)
    }

    /// `log(1 + z)` (StableHLO's expander); the imaginary part is
    /// `atan2(y, x + 1)`. The real part, with `mx = max(|x|, |y|)`:
    /// 1. where `mx > sqrt(MAX) · 0.01`: `fma(0.5, log1p(r · r), ln(mx))`,
    ///    `r = min(|x|, |y|) / mx` (1 where `min == mx`);
    /// 2. else where `|x + 1| + |y| < 0.2`:
    ///    `0.5 · ln(fma(x + 1, x + 1, y·y))`;
    /// 3. else `0.5 · log1p(t)`, `t = 2x + x² + y²` summed with 2Sum: the
    ///    terms `x + x`, `y·y`, `x·x`, then the Dekker low parts of `y²` and
    ///    `x²`, each sum's error kept and the errors added last.
    pub(crate) fn log1p<F: Part>((x, y): Z<F>) -> Z<F> {
        let (one, half) = (F::c(1.0), F::c(0.5));
        let (ax, ay) = (x.abs(), y.abs());
        let mx = max(ax, ay);
        let mn = min(ax, ay);
        let r = select(mn == mx, one, mn / mx);
        let xp1 = x + one;
        let yy = y * y;
        let xx = x * x;
        let far = half.mul_add((r * r).ln_1p(), mx.ln());
        let near_minus_one = half * xp1.mul_add(xp1, yy).ln();
        let x2 = x + x;
        let (yyl, xxl) = (square_dekker_low(y, yy), square_dekker_low(x, xx));
        let (s0, e0) = two_sum(x2, yy);
        let (s1, e1) = two_sum(s0, xx);
        let (s2, e2) = two_sum(s1, yyl);
        let (s3, e3) = two_sum(s2, xxl);
        let t = s3 + (((e0 + e1) + e2) + e3);
        let general = half * t.ln_1p();
        let re = select(
            mx > F::MAX.sqrt() * F::c(0.01),
            far,
            select(xp1.abs() + ay < F::c(0.2), near_minus_one, general),
        );
        (re, y.atan2(xp1))
    }

    /// Knuth's 2Sum: `s = a + b` and its rounding error
    /// `(a - (s - (s - a))) + (b - (s - a))`.
    pub(crate) fn two_sum<F: Part>(a: F, b: F) -> (F, F) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    /// `hypot(mx, mn)` for `mx = max`, `mn = min` of two magnitudes, as
    /// StableHLO's expander writes it: `√2 · mx` where `mx == mn`; else,
    /// with `r = (mn / mx)²` and `q = sqrt(1 + r)`, `mx + mx·r / 2` where
    /// `q == 1` and `r > 0`, `mx · q` otherwise.
    pub(crate) fn hypot<F: Part>(mx: F, mn: F) -> F {
        let one = F::c(1.0);
        let mn_over_mx = mn / mx;
        let r = mn_over_mx * mn_over_mx;
        let q = (one + r).sqrt();
        select(
            mx == mn,
            F::c(std::f64::consts::SQRT_2) * mx,
            select(q == one && r > F::c(0.0), mx + (mx * r) / F::c(2.0), mx * q),
        )
    }

    /// `sqrt(z)` (StableHLO's expander). With `ax = |x|`, `ay = |y|`:
    /// 1. `u0 = sqrt(hypot(ax, ay) / 2 + ax / 2)`;
    /// 2. `u`: where `ax == ay`, `sqrt(ax) · 1.5537739740300374 / √2`
    ///    (`sqrt((1 + √2) / 2) · √2`); else where `u0` is 0 or ∞
    ///    (underflow, overflow) the rescaled forms: with
    ///    `r0 = min / max` of `ax`, `ay` (1 where equal) and
    ///    `h = hypot(1, r0)`, `sqrt(ax) · (sqrt(1 + h) / √2)` where
    ///    `ax > ay`, `sqrt(ay) · (sqrt(r0 + h) / √2)` else; else `u0`;
    /// 3. `v = ay / 2u` likewise: `sqrt(ay) / 2.19736822693562` where
    ///    `ax == ay`; where `u0` is 0 or ∞, `sqrt(ay) · q / (sqrt(1 + h) ·
    ///    √2)` (`q = sqrt(ax) / sqrt(ay)` where `ax < ay`, else
    ///    `sqrt(ay) / sqrt(ax)`) where `ax > ay`, `sqrt(ay) / (sqrt(r0 + h)
    ///    · √2)` else; else `ay / (u0 · 2)`;
    /// 4. the result is `(u, ±v)` where `x >= 0`, `(v, ±u)` else, the sign
    ///    that of `y` (negative only where `y < 0`).
    pub(crate) fn sqrt<F: Part>((x, y): Z<F>) -> Z<F> {
        let (zero, one, two) = (F::c(0.0), F::c(1.0), F::c(2.0));
        let sq2 = F::c(std::f64::consts::SQRT_2);
        let (ax, ay) = (x.abs(), y.abs());
        let (sq_ax, sq_ay) = (ax.sqrt(), ay.sqrt());
        let eq = ax == ay;
        let lt = ax < ay;
        let gt = ax > ay;
        let mx = max(ax, ay);
        let mn = min(ax, ay);
        let u0 = (hypot(mx, mn) / two + ax / two).sqrt();
        let r0 = select(eq, one, select(lt, ax / ay, ay / ax));
        let ar0 = r0.abs();
        let h = hypot(max(one, ar0), min(one, ar0));
        let sq_1h = (one + h).sqrt();
        let sq_rh = (r0 + h).sqrt();
        let rescale = u0 == zero || u0 == F::INF;
        let u = select(
            eq,
            sq_ax * F::c(1.553_773_974_030_037_4) / sq2,
            select(
                rescale,
                select(gt, sq_ax * (sq_1h / sq2), sq_ay * (sq_rh / sq2)),
                u0,
            ),
        );
        let q = select(eq, one, select(lt, sq_ax / sq_ay, sq_ay / sq_ax));
        let v = select(
            eq,
            sq_ay / F::c(2.197_368_226_935_62),
            select(
                rescale,
                select(gt, (sq_ay * q) / (sq_1h * sq2), sq_ay / (sq_rh * sq2)),
                ay / (u0 * two),
            ),
        );
        let neg_y = y < zero;
        let re = select(x >= zero, u, v);
        let im = select(x < zero, select(neg_y, -u, u), select(neg_y, -v, v));
        (re, im)
    }

    /// `1 / sqrt(z)` (elemental emitter), `r = |z|^(-1/2)` and the angle
    /// `-atan2(y, x) / 2`:
    /// 1. with `mx`, `mn`, `d = sqrt(fma(mn/mx, mn/mx, 1))` as in [`abs`],
    ///    `r = (1 / sqrt(mx)) · (1 / sqrt(d))`, `1 / sqrt(mn)` where that is
    ///    NaN;
    /// 2. `t = atan2(y, x) · -0.5`, the parts `r · cos t`, `r · sin t`;
    /// 3. `(∞, NaN)` where `z` is 0; `(copysign(0, x), -copysign(0, y))`
    ///    where `|x| = ∞`, or `|y| = ∞` and `x` is NaN.
    pub(crate) fn rsqrt<F: Part>((x, y): Z<F>) -> Z<F> {
        let (zero, one) = (F::c(0.0), F::c(1.0));
        let rs = |v: F| one / v.sqrt();
        let (ax, ay) = (x.abs(), y.abs());
        let (mx, mn) = (max(ax, ay), min(ax, ay));
        let d = mn / mx;
        let s = d.mul_add(d, one).sqrt();
        let r0 = rs(mx) * rs(s);
        let r = select(r0.is_nan(), rs(mn), r0);
        let t = y.atan2(x) * F::c(-0.5);
        let zz = y == zero && x == zero;
        let inf_part = (ay == F::INF && x.is_nan()) || ax == F::INF;
        let re = select(zz, F::INF, select(inf_part, zero.copysign(x), r * t.cos()));
        let im = select(
            zz,
            F::NAN,
            select(inf_part, zero.copysign(y) * F::c(-1.0), r * t.sin()),
        );
        (re, im)
    }

    /// `sin(z)` (elemental emitter): with `e = exp(y)`, `sinh y = 0.5·e -
    /// 0.5/e`, `cosh y = 0.5·e + 0.5/e`, the parts `sin x · cosh y`,
    /// `cos x · sinh y`.
    pub(crate) fn sin<F: Part>((x, y): Z<F>) -> Z<F> {
        let (sinh, cosh) = sinh_cosh(y);
        (x.sin() * cosh, x.cos() * sinh)
    }

    /// `cos(z)` (elemental emitter): with `e = exp(y)`, `a = 0.5 · e`,
    /// `b = 0.5 / e` as in [`sin`], the parts `cos x · (a + b)` and
    /// `sin x · (b - a)` (`-sinh y` as a difference, so `cos(0 + 0i)` is
    /// `1 + 0i`).
    pub(crate) fn cos<F: Part>((x, y): Z<F>) -> Z<F> {
        let e = y.exp();
        let a = F::c(0.5) * e;
        let b = F::c(0.5) / e;
        (x.cos() * (a + b), x.sin() * (b - a))
    }

    /// `(sinh y, cosh y)` from one `exp`: `e = exp(y)`, `a = 0.5 · e`,
    /// `b = 0.5 / e`, `(a - b, a + b)`.
    pub(crate) fn sinh_cosh<F: Part>(y: F) -> (F, F) {
        let e = y.exp();
        let a = F::c(0.5) * e;
        let b = F::c(0.5) / e;
        (a - b, a + b)
    }

    /// `tanh(z)` (elemental emitter), `a = x`, `b = y`:
    /// 1. `p = expm1(a + a)`, `m = expm1(-1 · (a + a))`;
    /// 2. `c = cos b`, `nr = 4 · (c · sin b)` (`2 sin 2b`), the denominator
    ///    `fma(c · c, 4, p + m)` (`e^2a + e^-2a + 2 cos 2b`);
    /// 3. re = `(p - m) / denominator`, `copysign(1, a)` where `p + m = ∞`;
    ///    im = `nr / denominator`;
    /// 4. re is NaN where `nr` is NaN and `a` finite; im is `+0` where
    ///    `b == 0`, or `a` infinite and `nr` NaN.
    pub(crate) fn tanh<F: Part>((a, b): Z<F>) -> Z<F> {
        let (zero, neg1, four) = (F::c(0.0), F::c(-1.0), F::c(4.0));
        let two_a = a + a;
        let p = two_a.exp_m1();
        let m = (neg1 * two_a).exp_m1();
        let c = b.cos();
        let nr = four * (c * b.sin());
        let sum = p + m;
        let denominator = (c * c).mul_add(four, sum);
        let re = select(sum == F::INF, neg1.copysign(a), (p - m) / denominator);
        let im = nr / denominator;
        let a_inf = a.abs() == F::INF;
        let re = select(nr.is_nan() && !a_inf, F::NAN, re);
        let im = select(b == zero || (a_inf && nr.is_nan()), zero, im);
        (re, im)
    }

    /// `tan(z) = -i · tanh(i · z)`: [`tanh`] of `(-1 · y, x)` = `(t.re,
    /// t.im)`, then `(t.im, -1 · t.re)`.
    pub(crate) fn tan<F: Part>((x, y): Z<F>) -> Z<F> {
        let (re, im) = tanh((F::c(-1.0) * y, x));
        (im, F::c(-1.0) * re)
    }

    /// `a^b` (elemental emitter), `a = (x, y)`, `b = (c, d)`:
    /// 1. `m = |a|` ([`abs`]), `t = atan2(y, x)`;
    /// 2. `k = m^c · exp(-d · t)`, `q = fma(c, t, d · ln m)`, the parts
    ///    `k · cos q`, `k · sin q`;
    /// 3. then, each overriding the last: `(c == 0 ? 1 : 0, 0)` where
    ///    `m == 0`, `d == 0`, `c >= 0`; `(1, 0)` where `b` is 0; `(1, 0)`
    ///    where `a` is `1 + 0i`; `(∞, 0)` where `a` is `∞ + 0i` and `b`
    ///    real positive; `(0, 0)` where `a` is `∞ + 0i` and `b` real
    ///    negative.
    pub(crate) fn pow<F: Part>((x, y): Z<F>, (c, d): Z<F>) -> Z<F> {
        let (zero, one, inf) = (F::c(0.0), F::c(1.0), F::INF);
        let m = abs((x, y));
        let t = y.atan2(x);
        let k = m.powf(c) * (-d * t).exp();
        let q = c.mul_add(t, d * m.ln());
        let general = (k * q.cos(), k * q.sin());
        let r = select(
            m == zero && d == zero && zero <= c,
            (select(zero == c, one, zero), zero),
            general,
        );
        let r = select(zero == c && d == zero, (one, zero), r);
        let r = select(x == one && y == zero, (one, zero), r);
        let inf_real = x == inf && y == zero && d == zero;
        let r = select(inf_real && c > zero, (inf, zero), r);
        select(inf_real && c < zero, (zero, zero), r)
    }
}

/// `complex(re, im)`: the parts side by side (shape inference has checked
/// that they share one type and dims).
pub(crate) fn compose(re: &Literal, im: &Literal) -> OpResult<ArrayData> {
    match (array(re)?, array(im)?) {
        (ArrayData::F32(a), ArrayData::F32(b)) if a.len() == b.len() => Ok(ArrayData::C64(
            a.iter()
                .zip(b)
                .map(|(&r, &i)| Complex64::new(r, i))
                .collect(),
        )),
        (ArrayData::F64(a), ArrayData::F64(b)) if a.len() == b.len() => Ok(ArrayData::C128(
            a.iter()
                .zip(b)
                .map(|(&r, &i)| Complex128::new(r, i))
                .collect(),
        )),
        _ => Err(format!(
            "complex needs two f32 or two f64 arrays of one shape, got {} and {}",
            re.shape(),
            im.shape()
        )),
    }
}

/// `real(z)` (`imag` when `imag`): the part of a complex array; a real
/// float array is its own real part and has a zero imaginary part.
pub(crate) fn part(z: &Literal, imag: bool) -> OpResult<ArrayData> {
    let data = array(z)?;
    if let ArrayData::C64(v) = data {
        return Ok(ArrayData::F32(
            v.iter().map(|c| if imag { c.im } else { c.re }).collect(),
        ));
    }
    if let ArrayData::C128(v) = data {
        return Ok(ArrayData::F64(
            v.iter().map(|c| if imag { c.im } else { c.re }).collect(),
        ));
    }
    if !data.element_type().is_float() {
        return Err(format!(
            "real/imag of {} (not a float or complex array)",
            z.shape()
        ));
    }
    if imag {
        ArrayData::zeros(data.element_type(), data.len())
            .ok_or_else(|| format!("no memory for the imaginary parts of {}", z.shape()))
    } else {
        Ok(data.clone())
    }
}

/// A complex value computed in `f64`.
type C = (f64, f64);

/// `fft`: the transform over the trailing `fft_length.len()` dimensions,
/// computed as a direct DFT in `f64` (twiddles from `jk mod n`, so exact
/// at the quarter turns) and rounded once to the result type. `FFT` is
/// unscaled, `IFFT` scales by `1/n` per axis; `RFFT` transforms the last
/// axis first (keeping `n/2 + 1` bins), `IRFFT` last (extending the bins
/// by conjugate symmetry and taking the real part, so the imaginary parts
/// of the DC and Nyquist bins are ignored).
pub(crate) fn fft(
    x: &Literal,
    fft_type: FftType,
    fft_length: &[i64],
    out: &Shape,
) -> OpResult<ArrayData> {
    let mut data: Vec<C> = match array(x)? {
        ArrayData::C64(v) => v
            .iter()
            .map(|c| (f64::from(c.re), f64::from(c.im)))
            .collect(),
        ArrayData::C128(v) => v.iter().map(|c| (c.re, c.im)).collect(),
        ArrayData::F32(v) => v.iter().map(|&r| (f64::from(r), 0.0)).collect(),
        ArrayData::F64(v) => v.iter().map(|&r| (r, 0.0)).collect(),
        other => return Err(format!("fft of {} values", other.element_type())),
    };
    let mut dims: Vec<usize> = x
        .shape()
        .dims()
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    let rank = dims.len();
    let k = fft_length.len();
    if k == 0 || k > rank {
        return Err(format!(
            "fft_length {fft_length:?} for an operand of rank {rank}"
        ));
    }
    let last = rank - 1;
    let lengths: Vec<usize> = fft_length.iter().map(|&n| n.max(0) as usize).collect();
    let others = rank - k..last;
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            let inverse = fft_type == FftType::Ifft;
            for a in rank - k..rank {
                let n = dims[a];
                data = along_axis(&data, &dims, a, n, |line| dft(line, n, inverse));
            }
        }
        FftType::Rfft => {
            let n = lengths[k - 1];
            let bins = n / 2 + 1;
            data = along_axis(&data, &dims, last, bins, |line| dft(line, bins, false));
            dims[last] = bins;
            for a in others {
                let n = dims[a];
                data = along_axis(&data, &dims, a, n, |line| dft(line, n, false));
            }
        }
        FftType::Irfft => {
            for a in others {
                let n = dims[a];
                data = along_axis(&data, &dims, a, n, |line| dft(line, n, true));
            }
            let n = lengths[k - 1];
            data = along_axis(&data, &dims, last, n, |line| real_inverse(line, n));
            dims[last] = n;
        }
    }
    let values: ArrayData = match out.element_type() {
        ElementType::C64 => ArrayData::C64(
            data.iter()
                .map(|&(r, i)| Complex64::new(r as f32, i as f32))
                .collect(),
        ),
        ElementType::C128 => {
            ArrayData::C128(data.iter().map(|&(r, i)| Complex128::new(r, i)).collect())
        }
        ElementType::F32 => ArrayData::F32(data.iter().map(|&(r, _)| r as f32).collect()),
        ElementType::F64 => ArrayData::F64(data.iter().map(|&(r, _)| r).collect()),
        other => return Err(format!("fft cannot give {other}")),
    };
    if values.len() as i64 != out.element_count() {
        return Err(format!("fft of {} cannot give {out}", x.shape()));
    }
    Ok(values)
}

/// Applies `f` to every line of `data` (dims `dims`) along `axis`; each
/// line becomes `out_len` values.
fn along_axis(
    data: &[C],
    dims: &[usize],
    axis: usize,
    out_len: usize,
    f: impl Fn(&[C]) -> Vec<C>,
) -> Vec<C> {
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let n = dims[axis];
    let mut out = vec![(0.0, 0.0); outer * out_len * inner];
    let mut line = Vec::with_capacity(n);
    for o in 0..outer {
        for i in 0..inner {
            line.clear();
            line.extend((0..n).map(|j| data[(o * n + j) * inner + i]));
            for (j, v) in f(&line).into_iter().enumerate().take(out_len) {
                out[(o * out_len + j) * inner + i] = v;
            }
        }
    }
    out
}

/// `e^{sign·2πi·m/n}` with `m` reduced mod `n` first; exact at the
/// quarter turns (`1`, `±i`, `-1`), where `sin`/`cos` of a rounded `π`
/// would leave a `1e-16` residue.
fn twiddle(m: usize, n: usize, sign: f64) -> C {
    let m = m % n;
    if (4 * m).is_multiple_of(n) {
        return match 4 * m / n {
            0 => (1.0, 0.0),
            1 => (0.0, sign),
            2 => (-1.0, 0.0),
            _ => (0.0, -sign),
        };
    }
    let angle = sign * 2.0 * std::f64::consts::PI * m as f64 / n as f64;
    (angle.cos(), angle.sin())
}

/// The first `bins` outputs of the DFT of `line` (forward `e^{-2πi jk/n}`,
/// or inverse `e^{+2πi jk/n} / n`), `n = line.len()`.
fn dft(line: &[C], bins: usize, inverse: bool) -> Vec<C> {
    let n = line.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    let scale = if inverse && n > 0 {
        1.0 / n as f64
    } else {
        1.0
    };
    (0..bins)
        .map(|k| {
            let (mut re, mut im) = (0.0, 0.0);
            for (j, &(a, b)) in line.iter().enumerate() {
                let (c, s) = twiddle(j * k, n, sign);
                re += a * c - b * s;
                im += a * s + b * c;
            }
            (re * scale, im * scale)
        })
        .collect()
}

/// The real inverse of `n/2 + 1` bins: the bins extended to `n` by
/// `X[n - k] = conj(X[k])`, transformed back, the real part kept.
fn real_inverse(bins: &[C], n: usize) -> Vec<C> {
    let bin = |k: usize| -> C {
        if k < bins.len() {
            bins[k]
        } else {
            let (a, b) = bins.get(n - k).copied().unwrap_or((0.0, 0.0));
            (a, -b)
        }
    };
    let scale = if n > 0 { 1.0 / n as f64 } else { 1.0 };
    (0..n)
        .map(|j| {
            let mut re = 0.0;
            for k in 0..n {
                let (a, b) = bin(k);
                let (c, s) = twiddle(j * k, n, 1.0);
                re += a * c - b * s;
            }
            (re * scale, 0.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let z = |re, im| Complex64::new(re, im);
        let mul = <Complex64 as Element>::binary_fn(BinaryOp::Mul).expect("mul");
        assert_eq!(mul(z(1.0, 2.0), z(3.0, 4.0)), z(-5.0, 10.0));
        let div = <Complex64 as Element>::binary_fn(BinaryOp::Div).expect("div");
        assert_eq!(div(z(-5.0, 10.0), z(3.0, 4.0)), z(1.0, 2.0));
        // No overflow of c² + d².
        let big = div(z(1e30, 1e30), z(1e30, 1e30));
        assert_eq!(big, z(1.0, 0.0));
        let sqrt = <Complex64 as Element>::unary_fn(UnaryOp::Sqrt).expect("sqrt");
        assert_eq!(sqrt(z(-4.0, 0.0)), z(0.0, 2.0));
        // XLA's sign test is `y < 0`: a negative zero takes the upper root.
        assert_eq!(sqrt(z(-4.0, -0.0)), z(0.0, 2.0));
        assert_eq!(sqrt(z(-4.0, -1e-30)).im, -2.0);
        assert!(Complex64::compare(
            ComparisonDirection::Eq,
            z(1.0, 0.0),
            z(1.0, -0.0)
        ));
        assert_eq!(Complex64::from_conv(Conv::Float(2.5)), z(2.5, 0.0));
    }

    fn nan_() -> f64 {
        f64::NAN
    }

    /// Corner cases whose values JAX gives (scripts/complex_special.py,
    /// scripts/complex_transcendental.py).
    #[test]
    fn corner_cases_are_xlas() {
        let z = |re, im| Complex128::new(re, im);
        let bits = |c: Complex128| (c.re.to_bits(), c.im.to_bits());
        let sqrt = <Complex128 as Element>::unary_fn(UnaryOp::Sqrt).expect("sqrt");
        assert_eq!(bits(sqrt(z(0.0, -0.0))), bits(z(0.0, 0.0)));
        assert_eq!(bits(sqrt(z(-0.0, -0.0))), bits(z(0.0, 0.0)));
        let pow = <Complex128 as Element>::binary_fn(BinaryOp::Pow).expect("pow");
        let p = pow(z(0.0, 0.0), z(1.0, 1.0));
        assert!(p.re.is_nan() && p.im.is_nan());
        assert_eq!(pow(z(0.0, 0.0), z(2.0, 0.0)), z(0.0, 0.0));
        let div = <Complex128 as Element>::binary_fn(BinaryOp::Div).expect("div");
        let inf = f64::INFINITY;
        // A zero divisor: the numerator times copysign(∞, b.re).
        assert_eq!(div(z(-1.0, 0.0), z(0.0, 0.0)).re, -inf);
        assert_eq!(div(z(1.0, 1.0), z(-0.0, 0.0)), z(-inf, -inf));
        // An infinite numerator over a finite divisor.
        assert_eq!(div(z(inf, 0.0), z(2.0, 0.0)).re, inf);
        // A finite numerator over an infinite divisor: signed zeros.
        assert_eq!(bits(div(z(1.0, 1.0), z(-inf, 0.0))), bits(z(-0.0, -0.0)));
        // Signed zeros and infinities of the transcendental ops (JAX's
        // values, tests/hlo/types/complex_transcendental.hlo).
        let unary = |op| <Complex128 as Element>::unary_fn(op).expect("complex op");
        assert_eq!(bits(unary(UnaryOp::Cos)(z(0.0, 0.0))), bits(z(1.0, 0.0)));
        assert_eq!(bits(unary(UnaryOp::Cos)(z(-0.0, 0.0))), bits(z(1.0, -0.0)));
        assert_eq!(
            bits(unary(UnaryOp::Sign)(z(-0.0, -0.0))),
            bits(z(-0.0, -0.0))
        );
        assert_eq!(bits(unary(UnaryOp::Exp)(z(0.0, -0.0))), bits(z(1.0, 0.0)));
        let r = unary(UnaryOp::Rsqrt)(z(0.0, 0.0));
        assert!(r.re == inf && r.im.is_nan());
        assert_eq!(bits(unary(UnaryOp::Rsqrt)(z(0.0, inf))), bits(z(0.0, -0.0)));
        assert_eq!(unary(UnaryOp::Tanh)(z(inf, 1.0)), z(1.0, 0.0));
        assert_eq!(unary(UnaryOp::Tan)(z(1.0, inf)), z(0.0, 1.0));
        let l = unary(UnaryOp::Log)(z(-inf, inf));
        assert_eq!(l.re, inf);
        assert_eq!(l.im, 3.0 * std::f64::consts::FRAC_PI_4);
        assert_eq!(pow(z(inf, 0.0), z(2.0, 0.0)), z(inf, 0.0));
        assert_eq!(pow(z(inf, 0.0), z(-2.0, 0.0)), z(0.0, 0.0));
        assert_eq!(pow(z(1.0, 0.0), z(nan_(), 3.0)), z(1.0, 0.0));
    }
}
