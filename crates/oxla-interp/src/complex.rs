//! `c64` and `c128`: XLA's complex arithmetic on (re, im) pairs of `f32` or
//! `f64`, each part computed in its own type.
//!
//! `add`/`subtract` are per part; `multiply` is `(ac - bd, ad + bc)`;
//! `divide` is Smith's algorithm (no overflow of `c² + d²`); `abs` (in
//! `ops::unary`, its result is real) is `hypot`; `sign` is `z / |z|` (0 for
//! 0); `exponential`, `log`, `sqrt`, `rsqrt`, `sine`, `cosine`, `tanh`,
//! `exponential-minus-one`, `log-plus-one`, `logistic` and `power` follow
//! the usual principal-branch formulas. Comparisons are `EQ`/`NE` only.

use oxla_ir::{BinaryOp, ComparisonDirection, Complex64, Complex128, UnaryOp};

use crate::element::{Conv, Element};

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
                    UnaryOp::Sign => |z| {
                        let m = z.re.hypot(z.im);
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
                    // `abs` and `is-finite` have a real result (`ops::unary`);
                    // the rest are not defined on complex numbers.
                    UnaryOp::Abs
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
                            // 0^0 = 1; 0^y = 0 for Re(y) > 0; else NaN.
                            return if y.re == 0.0 && y.im == 0.0 {
                                <$c>::new(1.0, 0.0)
                            } else if y.re > 0.0 {
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
                    | BinaryOp::Compare(_) => return None,
                };
                Some(f)
            }
        }

        fn add(a: $c, b: $c) -> $c {
            <$c>::new(a.re + b.re, a.im + b.im)
        }

        fn mul(a: $c, b: $c) -> $c {
            <$c>::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
        }

        /// Smith's algorithm: scale by the larger part of the divisor.
        fn div(a: $c, b: $c) -> $c {
            if b.re.abs() >= b.im.abs() {
                let r = b.im / b.re;
                let d = b.re + b.im * r;
                <$c>::new((a.re + a.im * r) / d, (a.im - a.re * r) / d)
            } else {
                let r = b.re / b.im;
                let d = b.im + b.re * r;
                <$c>::new((a.re * r + a.im) / d, (a.im * r - a.re) / d)
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
            <$c>::new(z.re.hypot(z.im).ln(), z.im.atan2(z.re))
        }

        /// The principal root: `t = sqrt((|z| + |a|) / 2)`, then the parts
        /// from `t` and `b / 2t`, without cancellation.
        fn sqrt(z: $c) -> $c {
            if z.re == 0.0 && z.im == 0.0 {
                return <$c>::new(0.0, z.im);
            }
            let t = ((z.re.hypot(z.im) + z.re.abs()) / 2.0).sqrt();
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
    complex_element!(Complex64, f32);
}

mod c128 {
    use super::*;
    complex_element!(Complex128, f64);
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
}
