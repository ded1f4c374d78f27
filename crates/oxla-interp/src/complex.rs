//! `c64` and `c128`: XLA's complex arithmetic on (re, im) pairs of `f32` or
//! `f64`, each part computed in its own type.
//!
//! `add`/`subtract` are per part; `multiply` is `(ac - bd, ad + bc)` with
//! one fused multiply-add per part, as XLA:CPU computes it; `divide` is
//! Smith's algorithm (no overflow of `c² + d²`); `abs` (in `ops::unary`,
//! its result is real) is XLA's `max · sqrt(1 + (min/max)²)`; `sign` is
//! `z / |z|` (0 for 0); `exponential`, `log`, `sqrt`, `rsqrt`, `sine`,
//! `cosine`, `tanh`,
//! `exponential-minus-one`, `log-plus-one`, `logistic`, `tan` and `power`
//! follow
//! the usual principal-branch formulas. Comparisons are `EQ`/`NE` only.
//! The ops that build and take apart complex arrays (`complex`, `real`,
//! `imag`) and `fft` are here too.

use oxla_ir::{
    ArrayData, BinaryOp, ComparisonDirection, Complex64, Complex128, ElementType, FftType, Literal,
    Shape, UnaryOp,
};

use crate::element::{Conv, Element};
use crate::ops::{OpResult, array};

macro_rules! magnitude {
    ($name:ident, $c:ty, $f:ty) => {
        /// `|z|` as XLA computes it (checked against JAX): `max * sqrt(1 +
        /// r²)`, `r = min / max` over the parts' magnitudes, `1 + r²` one
        /// fused multiply-add; NaN when a part is NaN; `min` where the
        /// formula gives NaN (both parts 0, or both infinite).
        pub(crate) fn $name(z: $c) -> $f {
            let (a, b) = (z.re.abs(), z.im.abs());
            if a.is_nan() || b.is_nan() {
                return a + b;
            }
            let (max, min) = if a >= b { (a, b) } else { (b, a) };
            let r = min / max;
            let m = max * r.mul_add(r, 1.0).sqrt();
            if m.is_nan() { min } else { m }
        }
    };
}
magnitude!(magnitude64, Complex64, f32);
magnitude!(magnitude128, Complex128, f64);

macro_rules! complex_element {
    ($c:ty, $f:ty, $magnitude:ident) => {
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
                    UnaryOp::Sign => |z| {
                        let m = $magnitude(z);
                        if m == 0.0 {
                            <$c>::new(0.0, 0.0)
                        } else {
                            <$c>::new(z.re / m, z.im / m)
                        }
                    },
                    UnaryOp::Exp => exp,
                    UnaryOp::Expm1 => |z| {
                        // expm1(a) cos b - 2 sin²(b/2), e^a sin b: accurate
                        // near 0.
                        let h = (z.im / 2.0).sin();
                        <$c>::new(
                            z.re.exp_m1() * z.im.cos() - 2.0 * h * h,
                            z.re.exp() * z.im.sin(),
                        )
                    },
                    UnaryOp::Log => log,
                    UnaryOp::Log1p => |z| {
                        // ln|1 + z| = log1p(2a + a² + b²) / 2: accurate near 0.
                        let a = z.re;
                        <$c>::new(
                            0.5 * (a * (2.0 + a) + z.im * z.im).ln_1p(),
                            z.im.atan2(1.0 + a),
                        )
                    },
                    UnaryOp::Sqrt => sqrt,
                    UnaryOp::Rsqrt => |z| div(<$c>::new(1.0, 0.0), sqrt(z)),
                    UnaryOp::Tanh => |z| {
                        // (sinh 2a + i sin 2b) / (cosh 2a + cos 2b).
                        let d = (2.0 * z.re).cosh() + (2.0 * z.im).cos();
                        <$c>::new((2.0 * z.re).sinh() / d, (2.0 * z.im).sin() / d)
                    },
                    UnaryOp::Logistic => |z| {
                        div(
                            <$c>::new(1.0, 0.0),
                            add(<$c>::new(1.0, 0.0), exp(<$c>::new(-z.re, -z.im))),
                        )
                    },
                    UnaryOp::Sin => {
                        |z| <$c>::new(z.re.sin() * z.im.cosh(), z.re.cos() * z.im.sinh())
                    }
                    UnaryOp::Cos => {
                        |z| <$c>::new(z.re.cos() * z.im.cosh(), -(z.re.sin() * z.im.sinh()))
                    }
                    UnaryOp::Tan => |z| {
                        // (sin 2a + i sinh 2b) / (cos 2a + cosh 2b).
                        let d = (2.0 * z.re).cos() + (2.0 * z.im).cosh();
                        <$c>::new((2.0 * z.re).sin() / d, (2.0 * z.im).sinh() / d)
                    },
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
                    BinaryOp::Add => add,
                    BinaryOp::Sub => |a, b| <$c>::new(a.re - b.re, a.im - b.im),
                    BinaryOp::Mul => mul,
                    BinaryOp::Div => div,
                    BinaryOp::Pow => |x, y| {
                        if x.re == 0.0 && x.im == 0.0 {
                            // As XLA: 0^0 = 1; 0^y = 0 for real y > 0; else
                            // NaN (0^(1+i) is NaN in JAX).
                            return if y.re == 0.0 && y.im == 0.0 {
                                <$c>::new(1.0, 0.0)
                            } else if y.re > 0.0 && y.im == 0.0 {
                                <$c>::new(0.0, 0.0)
                            } else {
                                <$c>::new(<$f>::NAN, <$f>::NAN)
                            };
                        }
                        exp(mul(y, log(x)))
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

        fn add(a: $c, b: $c) -> $c {
            <$c>::new(a.re + b.re, a.im + b.im)
        }

        /// As XLA:CPU computes it (checked against JAX): each part one
        /// fused multiply-add, `fma(a, c, -bd) + i fma(b, c, ad)`.
        fn mul(a: $c, b: $c) -> $c {
            <$c>::new(
                a.re.mul_add(b.re, -(a.im * b.im)),
                a.im.mul_add(b.re, a.re * b.im),
            )
        }

        /// XLA:CPU's complex division (its elemental emitter, checked
        /// against JAX on a grid of special values): Smith's algorithm,
        /// scaling by the larger part of the divisor (the `b.im / b.re`
        /// form unless `|b.re| < |b.im|`, so also when a part is NaN), with
        /// the fused multiply-adds XLA:CPU's LLVM forms. Where that gives
        /// NaN in both parts, three corner cases are tried in order:
        /// - a zero divisor and a numerator not all NaN: `copysign(∞, b.re)`
        ///   times each part of `a`;
        /// - an infinite part in `a`, `b` finite: `a`'s parts replaced by
        ///   `copysign(1 or 0, part)` (1 where infinite), then `∞ · (a·conj b)`
        ///   part by part;
        /// - `a` finite, an infinite part in `b`: `b`'s parts replaced
        ///   likewise, then `0 · (a·conj b)` part by part.
        fn div(a: $c, b: $c) -> $c {
            let smith = if b.re.abs() < b.im.abs() {
                let r = b.re / b.im;
                let d = r.mul_add(b.re, b.im);
                <$c>::new(r.mul_add(a.re, a.im) / d, r.mul_add(a.im, -a.re) / d)
            } else {
                let r = b.im / b.re;
                let d = r.mul_add(b.im, b.re);
                <$c>::new(r.mul_add(a.im, a.re) / d, (-r).mul_add(a.re, a.im) / d)
            };
            if !(smith.re.is_nan() && smith.im.is_nan()) {
                return smith;
            }
            let inf = <$f>::INFINITY;
            // `copysign(1, x)` where `x` is infinite, `copysign(0, x)` else.
            let unit = |x: $f| {
                if x.is_infinite() {
                    (1.0 as $f).copysign(x)
                } else {
                    (0.0 as $f).copysign(x)
                }
            };
            let finite = |x: $f| x.abs() != inf && !x.is_nan();
            if b.re == 0.0 && b.im == 0.0 && !(a.re.is_nan() && a.im.is_nan()) {
                let s = inf.copysign(b.re);
                <$c>::new(s * a.re, s * a.im)
            } else if (a.re.is_infinite() || a.im.is_infinite()) && finite(b.re) && finite(b.im) {
                let (x, y) = (unit(a.re), unit(a.im));
                <$c>::new(inf * (x * b.re + y * b.im), inf * (y * b.re - x * b.im))
            } else if finite(a.re) && finite(a.im) && (b.re.is_infinite() || b.im.is_infinite()) {
                let (x, y) = (unit(b.re), unit(b.im));
                <$c>::new(0.0 * (a.re * x + a.im * y), 0.0 * (a.im * x - a.re * y))
            } else {
                smith
            }
        }

        fn exp(z: $c) -> $c {
            let m = z.re.exp();
            if z.im == 0.0 {
                return <$c>::new(m, z.im);
            }
            <$c>::new(m * z.im.cos(), m * z.im.sin())
        }

        fn log(z: $c) -> $c {
            <$c>::new($magnitude(z).ln(), z.im.atan2(z.re))
        }

        /// The principal root: `t = sqrt((|z| + |a|) / 2)`, then the parts
        /// from `t` and `b / 2t`, without cancellation. A zero gives
        /// `(+0, +0)` whatever its signs, as in XLA.
        fn sqrt(z: $c) -> $c {
            if z.re == 0.0 && z.im == 0.0 {
                return <$c>::new(0.0, 0.0);
            }
            let t = (($magnitude(z) + z.re.abs()) / 2.0).sqrt();
            if z.re >= 0.0 {
                <$c>::new(t, z.im / (2.0 * t))
            } else {
                <$c>::new(z.im.abs() / (2.0 * t), t.copysign(z.im))
            }
        }
    };
}

mod c64 {
    use super::*;
    complex_element!(Complex64, f32, magnitude64);
}

mod c128 {
    use super::*;
    complex_element!(Complex128, f64, magnitude128);
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
        assert_eq!(sqrt(z(-4.0, -0.0)), z(0.0, -2.0));
        assert!(Complex64::compare(
            ComparisonDirection::Eq,
            z(1.0, 0.0),
            z(1.0, -0.0)
        ));
        assert_eq!(Complex64::from_conv(Conv::Float(2.5)), z(2.5, 0.0));
    }

    /// Corner cases whose values JAX gives (scripts/complex_special.py).
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
    }
}
