//! CHLO's math functions, lowered to HLO ops the way StableHLO's
//! `chlo-legalize-to-stablehlo` pass expands them (the decompositions XLA
//! runs: the Cephes polynomials for `erfc`, Giles' for `erf_inv`, Lanczos'
//! approximation for `lgamma` and `digamma`, the `atan2` forms of the
//! inverse trigonometric functions, the integer walk of `next_after`).
//!
//! HLO has none of these ops, so the reader spells each one out; JAX's
//! values on the CPU come from the same expansions, so oxla's agree with
//! them to a few ulps (the differences are the HLO ops' own: `exp`, `log`,
//! `atan2`, ...). The ops XLA evaluates in f32 for narrower floats (`erfc`,
//! `erf_inv`, `lgamma`, `digamma`, `cosh`, `sinh`) are upcast from bf16 and
//! f16 here too; the others compute in the operand's type. Operands of
//! other element types are refused with the type named.

// The coefficients are written as published (Cephes, Giles, Lanczos), with
// more digits than an f64 holds, so that they can be checked against the
// sources digit for digit.
#![allow(clippy::excessive_precision)]

use oxla_ir::ir::{InstId, OpKind};
use oxla_ir::{
    BinaryOp, ComparisonDirection, ComparisonOrder, ElementType, FftType, Literal, Result, Shape,
    UnaryOp,
};

use super::super::lower::OpCx;
use super::int_literal;

type Cx<'c, 'l, 'm, 's, 'a> = &'c mut OpCx<'l, 'm, 's, 'a>;

/// Builds elementwise expressions of one shape `s` inside an op's lowering.
struct Fx<'c, 'l, 'm, 's, 'a> {
    cx: Cx<'c, 'l, 'm, 's, 'a>,
    s: Shape,
}

use ComparisonDirection::{Eq, Ge, Gt, Le, Lt, Ne};

impl Fx<'_, '_, '_, '_, '_> {
    fn et(&self) -> ElementType {
        self.s.element_type()
    }

    /// A scalar literal of the expression's element type broadcast to `s`.
    fn splat(&mut self, lit: Literal, shape: &Shape) -> Result<InstId> {
        let c = self.cx.constant(lit)?;
        self.cx.push(
            OpKind::Broadcast {
                dimensions: Vec::new(),
            },
            vec![c],
            shape,
        )
    }

    /// The float constant `v` (rounded to the element type).
    fn k(&mut self, v: f64) -> Result<InstId> {
        let et = self.et();
        let lit = Literal::float_scalar(et, v).ok_or_else(|| {
            self.cx.err(
                self.cx.op.pos,
                format!("a constant of element type {et}"),
                "a float operand",
            )
        })?;
        let s = self.s.clone();
        self.splat(lit, &s)
    }

    fn un(&mut self, op: UnaryOp, a: InstId) -> Result<InstId> {
        let s = self.cx.shape(a);
        self.cx.push(OpKind::Unary(op), vec![a], &s)
    }

    fn bin(&mut self, op: BinaryOp, a: InstId, b: InstId) -> Result<InstId> {
        let s = self.cx.shape(a);
        let kind = OpKind::Binary {
            op,
            broadcast_dimensions: Vec::new(),
        };
        self.cx.push(kind, vec![a, b], &s)
    }

    fn add(&mut self, a: InstId, b: InstId) -> Result<InstId> {
        self.bin(BinaryOp::Add, a, b)
    }
    fn sub(&mut self, a: InstId, b: InstId) -> Result<InstId> {
        self.bin(BinaryOp::Sub, a, b)
    }
    fn mul(&mut self, a: InstId, b: InstId) -> Result<InstId> {
        self.bin(BinaryOp::Mul, a, b)
    }
    fn div(&mut self, a: InstId, b: InstId) -> Result<InstId> {
        self.bin(BinaryOp::Div, a, b)
    }

    fn cmp(&mut self, dir: ComparisonDirection, a: InstId, b: InstId) -> Result<InstId> {
        let s = self.cx.shape(a).with_element_type(ElementType::Pred);
        let kind = OpKind::Binary {
            op: BinaryOp::Compare(dir, ComparisonOrder::Natural),
            broadcast_dimensions: Vec::new(),
        };
        self.cx.push(kind, vec![a, b], &s)
    }

    /// `a <dir> v` for the constant `v`.
    fn cmp_k(&mut self, dir: ComparisonDirection, a: InstId, v: f64) -> Result<InstId> {
        let c = self.k(v)?;
        self.cmp(dir, a, c)
    }

    fn sel(&mut self, p: InstId, a: InstId, b: InstId) -> Result<InstId> {
        let s = self.cx.shape(a);
        self.cx.push(OpKind::Select, vec![p, a, b], &s)
    }

    /// `c[0] x^(n-1) + ... + c[n-1]`, by Horner's rule.
    fn poly(&mut self, x: InstId, coeffs: &[f64]) -> Result<InstId> {
        let mut p = self.k(coeffs[0])?;
        for &c in &coeffs[1..] {
            p = self.mul(p, x)?;
            let c = self.k(c)?;
            p = self.add(p, c)?;
        }
        Ok(p)
    }

    fn convert(&mut self, a: InstId, et: ElementType) -> Result<InstId> {
        let s = self.cx.shape(a).with_element_type(et);
        self.cx.push(OpKind::Convert, vec![a], &s)
    }

    /// The largest finite value of the element type.
    fn max_finite(&self) -> f64 {
        let et = self.et();
        if et == ElementType::F64 {
            f64::MAX
        } else if et == ElementType::F16 {
            65504.0
        } else if et == ElementType::Bf16 {
            3.3895313892515355e38
        } else {
            f32::MAX as f64
        }
    }
}

/// The float types the decompositions take.
fn float_operand(cx: &OpCx<'_, '_, '_, '_>, x: InstId) -> Result<ElementType> {
    let s = cx.shape(x);
    let et = s.element_type();
    if matches!(
        et,
        ElementType::F64 | ElementType::F32 | ElementType::F16 | ElementType::Bf16
    ) {
        return Ok(et);
    }
    Err(cx.err(
        cx.op.pos,
        format!("takes an f16, bf16, f32 or f64 operand, not {s}"),
        "an f16, bf16, f32 or f64 operand",
    ))
}

/// Runs `f` on the one operand as StableHLO's `materializeWithUpcast` does:
/// in f32 for bf16 and f16 operands (converted back after), in the
/// operand's own type otherwise (`upcast` false).
fn unary_with(
    cx: Cx<'_, '_, '_, '_, '_>,
    upcast: bool,
    f: fn(&mut Fx<'_, '_, '_, '_, '_>, InstId) -> Result<InstId>,
) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let x = cx.operands[0];
    let et = float_operand(cx, x)?;
    let narrow = upcast && matches!(et, ElementType::F16 | ElementType::Bf16);
    let s = cx.shape(x);
    let work = if narrow {
        s.with_element_type(ElementType::F32)
    } else {
        s
    };
    let mut fx = Fx { cx, s: work };
    let x = if narrow {
        fx.convert(x, ElementType::F32)?
    } else {
        x
    };
    let r = f(&mut fx, x)?;
    let r = if narrow { fx.convert(r, et)? } else { r };
    Ok(vec![r])
}

// -- erf, erfc and erf_inv ------------------------------------------------------

/// erfc for |x| >= 1 (f32; Cephes' `erfcf`): `exp(-x²)/|x| · P(1/x²)`,
/// `R` instead of `P` from 2 on; `2 - erfc(-x)` for negative `x`.
fn erfc_ge_one_f32(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    const P: [f64; 9] = [
        2.326819970068386E-2,
        -1.387039388740657E-1,
        3.687424674597105E-1,
        -5.824733027278666E-1,
        6.210004621745983E-1,
        -4.944515323274145E-1,
        3.404879937665872E-1,
        -2.741127028184656E-1,
        5.638259427386472E-1,
    ];
    const R: [f64; 8] = [
        -1.047766399936249E+1,
        1.297719955372516E+1,
        -7.495518717768503E+0,
        2.921019019210786E+0,
        -1.015265279202700E+0,
        4.218463358204948E-1,
        -2.820767439740514E-1,
        5.641895067754075E-1,
    ];
    // The coefficients are f32 in XLA's expansion: round them first.
    let p: Vec<f64> = P.iter().map(|&c| c as f32 as f64).collect();
    let r: Vec<f64> = R.iter().map(|&c| c as f32 as f64).collect();
    let x2 = fx.mul(x, x)?;
    let z = fx.un(UnaryOp::Neg, x2)?;
    let ax = fx.un(UnaryOp::Abs, x)?;
    let one = fx.k(1.0)?;
    let rx2 = fx.div(one, x2)?;
    let ez = fx.un(UnaryOp::Exp, z)?;
    let rax = fx.div(one, ax)?;
    let ez_rax = fx.mul(ez, rax)?;
    let lt2 = fx.cmp_k(Lt, ax, 2.0)?;
    let pp = fx.poly(rx2, &p)?;
    let pr = fx.poly(rx2, &r)?;
    let poly = fx.sel(lt2, pp, pr)?;
    let approx = fx.mul(ez_rax, poly)?;
    erfc_tail(fx, x, z, approx, 88.72283905206835)
}

/// The shared end of the erfc expansions: 0 where `exp(z)` underflows,
/// `2 - erfc(-x)` for negative `x`.
fn erfc_tail(
    fx: &mut Fx<'_, '_, '_, '_, '_>,
    x: InstId,
    z: InstId,
    approx: InstId,
    maxlog: f64,
) -> Result<InstId> {
    let under = fx.cmp_k(Lt, z, -maxlog)?;
    let zero = fx.k(0.0)?;
    let clamped = fx.sel(under, zero, approx)?;
    let neg = fx.cmp(Lt, x, zero)?;
    let two = fx.k(2.0)?;
    let reflected = fx.sub(two, clamped)?;
    fx.sel(neg, reflected, clamped)
}

/// erfc for |x| >= 1 (f64; Cephes' `erfc`): `exp(-x²) P(|x|)/Q(|x|)` below
/// 8, `exp(-x²) R(|x|)/S(|x|)` above.
fn erfc_ge_one_f64(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    const P: [f64; 9] = [
        2.46196981473530512524E-10,
        5.64189564831068821977E-1,
        7.46321056442269912687E0,
        4.86371970985681366614E1,
        1.96520832956077098242E2,
        5.26445194995477358631E2,
        9.34528527171957607540E2,
        1.02755188689515710272E3,
        5.57535335369399327526E2,
    ];
    const Q: [f64; 9] = [
        1.00000000000000000000E0,
        1.32281951154744992508E1,
        8.67072140885989742329E1,
        3.54937778887819891062E2,
        9.75708501743205489753E2,
        1.82390916687909736289E3,
        2.24633760818710981792E3,
        1.65666309194161350182E3,
        5.57535340817727675546E2,
    ];
    const R: [f64; 6] = [
        5.64189583547755073984E-1,
        1.27536670759978104416E0,
        5.01905042251180477414E0,
        6.16021097993053585195E0,
        7.40974269950448939160E0,
        2.97886665372100240670E0,
    ];
    const S: [f64; 7] = [
        1.00000000000000000000E0,
        2.26052863220117276590E0,
        9.39603524938001434673E0,
        1.20489539808096656605E1,
        1.70814450747565897222E1,
        9.60896809063285878198E0,
        3.36907645100081516050E0,
    ];
    let x2 = fx.mul(x, x)?;
    let z = fx.un(UnaryOp::Neg, x2)?;
    let ez = fx.un(UnaryOp::Exp, z)?;
    let ax = fx.un(UnaryOp::Abs, x)?;
    let p = fx.poly(ax, &P)?;
    let ezp = fx.mul(ez, p)?;
    let q = fx.poly(ax, &Q)?;
    let low = fx.div(ezp, q)?;
    let r = fx.poly(ax, &R)?;
    let ezr = fx.mul(ez, r)?;
    let s = fx.poly(ax, &S)?;
    let high = fx.div(ezr, s)?;
    let lt8 = fx.cmp_k(Lt, ax, 8.0)?;
    let approx = fx.sel(lt8, low, high)?;
    erfc_tail(fx, x, z, approx, 7.09782712893383996843E2)
}

/// erf for |x| < 1: `x T(x²)` (f32) or `x T(x²)/U(x²)` (f64), Cephes.
fn erf_le_one(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let x2 = fx.mul(x, x)?;
    if fx.et() == ElementType::F64 {
        const T: [f64; 5] = [
            9.60497373987051638749E0,
            9.00260197203842689217E1,
            2.23200534594684319226E3,
            7.00332514112805075473E3,
            5.55923013010394962768E4,
        ];
        const U: [f64; 6] = [
            1.00000000000000000000E0,
            3.35617141647503099647E1,
            5.21357949780152679795E2,
            4.59432382970980127987E3,
            2.26290000613890934246E4,
            4.92673942608635921086E4,
        ];
        let t = fx.poly(x2, &T)?;
        let xt = fx.mul(x, t)?;
        let u = fx.poly(x2, &U)?;
        return fx.div(xt, u);
    }
    const T: [f64; 7] = [
        7.853861353153693E-5,
        -8.010193625184903E-4,
        5.188327685732524E-3,
        -2.685381193529856E-2,
        1.128358514861418E-1,
        -3.761262582423300E-1,
        1.128379165726710E+0,
    ];
    let t: Vec<f64> = T.iter().map(|&c| c as f32 as f64).collect();
    let p = fx.poly(x2, &t)?;
    fx.mul(x, p)
}

/// `erfc(x)`: `1 - erf(x)` for |x| < 1, the erfc expansion otherwise.
fn erfc(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let big = if fx.et() == ElementType::F64 {
        erfc_ge_one_f64(fx, x)?
    } else {
        erfc_ge_one_f32(fx, x)?
    };
    let one = fx.k(1.0)?;
    let small = erf_le_one(fx, x)?;
    let small = fx.sub(one, small)?;
    let ax = fx.un(UnaryOp::Abs, x)?;
    let lt1 = fx.cmp(Lt, ax, one)?;
    fx.sel(lt1, small, big)
}

/// `erf_inv(x)`: Giles' single-precision approximation ("Approximating the
/// erfinv function", GPU Computing Gems), in `w = -log1p(-x²)`; its f64
/// variant in three ranges of `w`. `±inf` at `±1`.
fn erf_inv(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let negx = fx.un(UnaryOp::Neg, x)?;
    let mx2 = fx.mul(x, negx)?;
    let l = fx.un(UnaryOp::Log1p, mx2)?;
    let w = fx.un(UnaryOp::Neg, l)?;
    let p = if fx.et() == ElementType::F64 {
        erf_inv_f64(fx, w)?
    } else {
        erf_inv_f32(fx, w)?
    };
    let result = fx.mul(p, x)?;
    let ax = fx.un(UnaryOp::Abs, x)?;
    let at_one = fx.cmp_k(Eq, ax, 1.0)?;
    let inf = fx.k(f64::INFINITY)?;
    let xinf = fx.mul(x, inf)?;
    fx.sel(at_one, xinf, result)
}

fn erf_inv_f32(fx: &mut Fx<'_, '_, '_, '_, '_>, w: InstId) -> Result<InstId> {
    const LT5: [f32; 9] = [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ];
    const GE5: [f32; 9] = [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ];
    let lt = fx.cmp_k(Lt, w, 5.0)?;
    let c = |fx: &mut Fx<'_, '_, '_, '_, '_>, i: usize| -> Result<InstId> {
        let a = fx.k(LT5[i] as f64)?;
        let b = fx.k(GE5[i] as f64)?;
        fx.sel(lt, a, b)
    };
    let k25 = fx.k(2.5)?;
    let w_lo = fx.sub(w, k25)?;
    let sw = fx.un(UnaryOp::Sqrt, w)?;
    let k3 = fx.k(3.0)?;
    let w_hi = fx.sub(sw, k3)?;
    let w = fx.sel(lt, w_lo, w_hi)?;
    let mut p = c(fx, 0)?;
    for i in 1..9 {
        let ci = c(fx, i)?;
        let pw = fx.mul(p, w)?;
        p = fx.add(ci, pw)?;
    }
    Ok(p)
}

fn erf_inv_f64(fx: &mut Fx<'_, '_, '_, '_, '_>, w: InstId) -> Result<InstId> {
    const LT625: [f64; 23] = [
        -3.6444120640178196996e-21,
        -1.685059138182016589e-19,
        1.2858480715256400167e-18,
        1.115787767802518096e-17,
        -1.333171662854620906e-16,
        2.0972767875968561637e-17,
        6.6376381343583238325e-15,
        -4.0545662729752068639e-14,
        -8.1519341976054721522e-14,
        2.6335093153082322977e-12,
        -1.2975133253453532498e-11,
        -5.4154120542946279317e-11,
        1.051212273321532285e-09,
        -4.1126339803469836976e-09,
        -2.9070369957882005086e-08,
        4.2347877827932403518e-07,
        -1.3654692000834678645e-06,
        -1.3882523362786468719e-05,
        0.0001867342080340571352,
        -0.00074070253416626697512,
        -0.0060336708714301490533,
        0.24015818242558961693,
        1.6536545626831027356,
    ];
    const LT16: [f64; 19] = [
        2.2137376921775787049e-09,
        9.0756561938885390979e-08,
        -2.7517406297064545428e-07,
        1.8239629214389227755e-08,
        1.5027403968909827627e-06,
        -4.013867526981545969e-06,
        2.9234449089955446044e-06,
        1.2475304481671778723e-05,
        -4.7318229009055733981e-05,
        6.8284851459573175448e-05,
        2.4031110387097893999e-05,
        -0.0003550375203628474796,
        0.00095328937973738049703,
        -0.0016882755560235047313,
        0.0024914420961078508066,
        -0.0037512085075692412107,
        0.005370914553590063617,
        1.0052589676941592334,
        3.0838856104922207635,
    ];
    const GE16: [f64; 17] = [
        -2.7109920616438573243e-11,
        -2.5556418169965252055e-10,
        1.5076572693500548083e-09,
        -3.7894654401267369937e-09,
        7.6157012080783393804e-09,
        -1.4960026627149240478e-08,
        2.9147953450901080826e-08,
        -6.7711997758452339498e-08,
        2.2900482228026654717e-07,
        -9.9298272942317002539e-07,
        4.5260625972231537039e-06,
        -1.9681778105531670567e-05,
        7.5995277030017761139e-05,
        -0.00021503011930044477347,
        -0.00013871931833623122026,
        1.0103004648645343977,
        4.8499064014085844221,
    ];
    let lt625 = fx.cmp_k(Lt, w, 6.25)?;
    let lt16 = fx.cmp_k(Lt, w, 16.0)?;
    // The coefficient of step `i`: the range's own, where it has one.
    let c = |fx: &mut Fx<'_, '_, '_, '_, '_>, i: usize| -> Result<InstId> {
        let mut c = fx.k(LT625[i])?;
        if i < 19 {
            let o = fx.k(LT16[i])?;
            c = fx.sel(lt625, c, o)?;
        }
        if i < 17 {
            let o = fx.k(GE16[i])?;
            c = fx.sel(lt16, c, o)?;
        }
        Ok(c)
    };
    let sw = fx.un(UnaryOp::Sqrt, w)?;
    let k3125 = fx.k(3.125)?;
    let w_lo = fx.sub(w, k3125)?;
    let k325 = fx.k(3.25)?;
    let k5 = fx.k(5.0)?;
    let shift = fx.sel(lt16, k325, k5)?;
    let w_hi = fx.sub(sw, shift)?;
    let w = fx.sel(lt625, w_lo, w_hi)?;
    let mut p = c(fx, 0)?;
    for i in 1..23 {
        let ci = c(fx, i)?;
        let pw = fx.mul(p, w)?;
        let next = fx.add(ci, pw)?;
        p = match i {
            1..17 => next,
            17..19 => fx.sel(lt16, next, p)?,
            _ => fx.sel(lt625, next, p)?,
        };
    }
    Ok(p)
}

// -- inverse trigonometric and hyperbolic functions ----------------------------

/// `acos(x) = atan2(sqrt((1 - x)(1 + x)), x)`.
fn acos(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let one = fx.k(1.0)?;
    let a = fx.sub(one, x)?;
    let b = fx.add(one, x)?;
    let ab = fx.mul(a, b)?;
    let s = fx.un(UnaryOp::Sqrt, ab)?;
    fx.bin(BinaryOp::Atan2, s, x)
}

/// `asin(x) = 2 atan2(x, 1 + sqrt((1 - x)(1 + x)))`.
fn asin(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let one = fx.k(1.0)?;
    let a = fx.sub(one, x)?;
    let b = fx.add(one, x)?;
    let ab = fx.mul(a, b)?;
    let s = fx.un(UnaryOp::Sqrt, ab)?;
    let d = fx.add(one, s)?;
    let t = fx.bin(BinaryOp::Atan2, x, d)?;
    fx.add(t, t)
}

/// `atan(x) = atan2(x, 1)`.
fn atan(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let one = fx.k(1.0)?;
    fx.bin(BinaryOp::Atan2, x, one)
}

/// `acosh(x) = log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1)))`, and
/// `log 2 + log x` from half the largest finite value on.
fn acosh(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let half_max = fx.max_finite() / 2.0;
    let big = fx.cmp_k(Ge, x, half_max)?;
    let two = fx.k(2.0)?;
    let l2 = fx.un(UnaryOp::Log, two)?;
    let lx = fx.un(UnaryOp::Log, x)?;
    let large = fx.add(l2, lx)?;
    let one = fx.k(1.0)?;
    let xm = fx.sub(x, one)?;
    let sm = fx.un(UnaryOp::Sqrt, xm)?;
    let xp = fx.add(x, one)?;
    let sp = fx.un(UnaryOp::Sqrt, xp)?;
    let sum = fx.add(sp, sm)?;
    let prod = fx.mul(sm, sum)?;
    let small = fx.un(UnaryOp::Log1p, prod)?;
    fx.sel(big, large, small)
}

/// `asinh(x) = sign(x) log1p(|x| + x²/(1 + sqrt(1 + x²)))`, and `sign(x)
/// (log 2 + log |x|)` from the square root of the largest finite value on.
fn asinh(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let sign = fx.un(UnaryOp::Sign, x)?;
    let ax = fx.un(UnaryOp::Abs, x)?;
    let max = fx.k(fx.max_finite())?;
    let root = fx.un(UnaryOp::Sqrt, max)?;
    let big = fx.cmp(Ge, ax, root)?;
    let two = fx.k(2.0)?;
    let l2 = fx.un(UnaryOp::Log, two)?;
    let lax = fx.un(UnaryOp::Log, ax)?;
    let large = fx.add(l2, lax)?;
    let ax2 = fx.mul(ax, ax)?;
    let one = fx.k(1.0)?;
    let t = fx.add(one, ax2)?;
    let st = fx.un(UnaryOp::Sqrt, t)?;
    let d = fx.add(one, st)?;
    let q = fx.div(ax2, d)?;
    let a = fx.add(ax, q)?;
    let small = fx.un(UnaryOp::Log1p, a)?;
    let mag = fx.sel(big, large, small)?;
    fx.mul(sign, mag)
}

/// `atanh(x) = (log1p(x) - log1p(-x)) / 2`, NaN for |x| > 1.
fn atanh(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let ax = fx.un(UnaryOp::Abs, x)?;
    let out = fx.cmp_k(Gt, ax, 1.0)?;
    let nan = fx.k(f64::NAN)?;
    let a = fx.un(UnaryOp::Log1p, x)?;
    let nx = fx.un(UnaryOp::Neg, x)?;
    let b = fx.un(UnaryOp::Log1p, nx)?;
    let d = fx.sub(a, b)?;
    let half = fx.k(0.5)?;
    let v = fx.mul(d, half)?;
    fx.sel(out, nan, v)
}

/// `e^(x + log ½)` and `e^(log ½ - x)`, the halves of cosh and sinh that
/// do not overflow before the result does.
fn half_exps(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<(InstId, InstId)> {
    let half = fx.k(0.5)?;
    let lh = fx.un(UnaryOp::Log, half)?;
    let a = fx.add(x, lh)?;
    let ea = fx.un(UnaryOp::Exp, a)?;
    let b = fx.sub(lh, x)?;
    let eb = fx.un(UnaryOp::Exp, b)?;
    Ok((ea, eb))
}

/// `cosh(x) = e^(x + log ½) + e^(log ½ - x)`.
fn cosh(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let (a, b) = half_exps(fx, x)?;
    fx.add(a, b)
}

/// `sinh(x)`: `(expm1(x) + expm1(x)/(expm1(x) + 1)) / 2` for |x| < 1 (no
/// cancellation), `e^(x + log ½) - e^(log ½ - x)` otherwise.
fn sinh(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let (a, b) = half_exps(fx, x)?;
    let large = fx.sub(a, b)?;
    let e = fx.un(UnaryOp::Expm1, x)?;
    let one = fx.k(1.0)?;
    let half = fx.k(0.5)?;
    let e1 = fx.add(e, one)?;
    let r = fx.div(e, e1)?;
    let s = fx.add(e, r)?;
    let small = fx.mul(half, s)?;
    let ax = fx.un(UnaryOp::Abs, x)?;
    let lt1 = fx.cmp(Lt, ax, one)?;
    fx.sel(lt1, small, large)
}

// -- lgamma and digamma -----------------------------------------------------------

/// Lanczos' approximation with g = 7, n = 9 (the parameters XLA uses).
const LANCZOS_G: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.999_999_999_999_809_9;
const LANCZOS: [f64; 8] = [
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// The reflection test `x < ½`, and `z = -x` there, `x - 1` elsewhere.
fn reflect(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<(InstId, InstId)> {
    let need = fx.cmp_k(Lt, x, 0.5)?;
    let nx = fx.un(UnaryOp::Neg, x)?;
    let one = fx.k(1.0)?;
    let xm1 = fx.sub(x, one)?;
    let z = fx.sel(need, nx, xm1)?;
    Ok((need, z))
}

/// `t = z + g + ½` and `log t`, as `log(g + ½) + log1p(z / (g + ½))`.
fn lanczos_t(fx: &mut Fx<'_, '_, '_, '_, '_>, z: InstId) -> Result<(InstId, InstId)> {
    let gh = fx.k(LANCZOS_G + 0.5)?;
    let t = fx.add(gh, z)?;
    let lg = fx.k((LANCZOS_G + 0.5).ln())?;
    let q = fx.div(z, gh)?;
    let l1 = fx.un(UnaryOp::Log1p, q)?;
    let log_t = fx.add(lg, l1)?;
    Ok((t, log_t))
}

/// `lgamma(x)`: Lanczos for x ≥ ½, Euler's reflection below (with the
/// fractional part folded into [0, ½] for `sin(π·frac)`), `+inf` at ±inf.
fn lgamma(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let (need, z) = reflect(fx, x)?;
    let mut a = fx.k(LANCZOS_BASE)?;
    for (i, &c) in LANCZOS.iter().enumerate() {
        let c = fx.k(c)?;
        let k = fx.k((i + 1) as f64)?;
        let zk = fx.add(z, k)?;
        let q = fx.div(c, zk)?;
        a = fx.add(a, q)?;
    }
    let (t, log_t) = lanczos_t(fx, z)?;
    let t_over = fx.div(t, log_t)?;
    let half = fx.k(0.5)?;
    let zh = fx.add(z, half)?;
    let sum = fx.sub(zh, t_over)?;
    let r = fx.mul(sum, log_t)?;
    let log_a = fx.un(UnaryOp::Log, a)?;
    let c = fx.k((2f64.ln() + std::f64::consts::PI.ln()) / 2.0)?;
    let cr = fx.add(c, r)?;
    let lg = fx.add(cr, log_a)?;

    let ax = fx.un(UnaryOp::Abs, x)?;
    let fl = fx.un(UnaryOp::Floor, ax)?;
    let frac = fx.sub(ax, fl)?;
    let fold = fx.cmp(Lt, half, frac)?;
    let one = fx.k(1.0)?;
    let one_minus = fx.sub(one, frac)?;
    let frac = fx.sel(fold, one_minus, frac)?;
    let pi = fx.k(std::f64::consts::PI)?;
    let pf = fx.mul(pi, frac)?;
    let sn = fx.un(UnaryOp::Sin, pf)?;
    let denom = fx.un(UnaryOp::Log, sn)?;
    let lpi = fx.k(std::f64::consts::PI.ln())?;
    let d = fx.sub(lpi, denom)?;
    let refl = fx.sub(d, lg)?;
    let finite = fx.un(UnaryOp::IsFinite, denom)?;
    let neg_denom = fx.un(UnaryOp::Neg, denom)?;
    let refl = fx.sel(finite, refl, neg_denom)?;
    let lg = fx.sel(need, refl, lg)?;

    let inf = fx.k(f64::INFINITY)?;
    let is_inf = fx.cmp(Eq, ax, inf)?;
    fx.sel(is_inf, inf, lg)
}

/// `digamma(x)`: the derivative of Lanczos' lgamma for x ≥ ½, the
/// reflection `digamma(1 - x) - π cot(πx)` below, NaN at the poles (0 and
/// the negative integers).
fn digamma(fx: &mut Fx<'_, '_, '_, '_, '_>, x: InstId) -> Result<InstId> {
    let (need, z) = reflect(fx, x)?;
    let zero = fx.k(0.0)?;
    let mut a = fx.k(LANCZOS_BASE)?;
    let mut a_prime = zero;
    for (i, &c) in LANCZOS.iter().enumerate() {
        let c = fx.k(c)?;
        let k = fx.k((i + 1) as f64)?;
        let zk = fx.add(z, k)?;
        let zk2 = fx.mul(zk, zk)?;
        let q2 = fx.div(c, zk2)?;
        a_prime = fx.sub(a_prime, q2)?;
        let q = fx.div(c, zk)?;
        a = fx.add(a, q)?;
    }
    let (t, log_t) = lanczos_t(fx, z)?;
    let ap_a = fx.div(a_prime, a)?;
    let g = fx.k(LANCZOS_G)?;
    let g_t = fx.div(g, t)?;
    let s = fx.add(log_t, ap_a)?;
    let dg = fx.sub(s, g_t)?;

    let half = fx.k(0.5)?;
    let xh = fx.add(x, half)?;
    let fl = fx.un(UnaryOp::Floor, xh)?;
    let afl = fx.un(UnaryOp::Abs, fl)?;
    let reduced = fx.add(x, afl)?;
    let pi = fx.k(std::f64::consts::PI)?;
    let pr = fx.mul(pi, reduced)?;
    let cs = fx.un(UnaryOp::Cos, pr)?;
    let sn = fx.un(UnaryOp::Sin, pr)?;
    let pc = fx.mul(pi, cs)?;
    let cot = fx.div(pc, sn)?;
    let refl = fx.sub(dg, cot)?;
    let dg = fx.sel(need, refl, dg)?;

    let le0 = fx.cmp(Le, x, zero)?;
    let fx_ = fx.un(UnaryOp::Floor, x)?;
    let is_int = fx.cmp(Eq, x, fx_)?;
    let pole = fx.bin(BinaryOp::And, le0, is_int)?;
    let nan = fx.k(f64::NAN)?;
    fx.sel(pole, nan, dg)
}

// -- the rows' lowering functions ---------------------------------------------------

pub(in super::super) fn chlo_erfc(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, true, erfc)
}
pub(in super::super) fn chlo_erf_inv(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, true, erf_inv)
}
pub(in super::super) fn chlo_acos(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, false, acos)
}
pub(in super::super) fn chlo_asin(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, false, asin)
}
pub(in super::super) fn chlo_atan(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, false, atan)
}
pub(in super::super) fn chlo_acosh(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, false, acosh)
}
pub(in super::super) fn chlo_asinh(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, false, asinh)
}
pub(in super::super) fn chlo_atanh(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, false, atanh)
}
pub(in super::super) fn chlo_cosh(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, true, cosh)
}
pub(in super::super) fn chlo_sinh(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, true, sinh)
}
pub(in super::super) fn chlo_lgamma(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, true, lgamma)
}
pub(in super::super) fn chlo_digamma(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    unary_with(cx, true, digamma)
}

/// `chlo.next_after(x, y)`: the float after `x` towards `y`, by stepping
/// its bit pattern (as a signed integer of the same width) by one; `y`
/// when they are equal (or both zero), the smallest subnormal signed like
/// `y` from zero, NaN when either is NaN.
pub(in super::super) fn chlo_next_after(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let (x, y) = (cx.operands[0], cx.operands[1]);
    let et = float_operand(cx, x)?;
    let (sx, sy) = (cx.shape(x), cx.shape(y));
    if sx != sy {
        return Err(cx.err(
            cx.op.pos,
            format!("operands {sx} and {sy} must have the same shape"),
            "operands of one shape (chlo.broadcast_next_after broadcasts)",
        ));
    }
    let (it, bits) = if et == ElementType::F64 {
        (ElementType::S64, 64)
    } else if et == ElementType::F32 {
        (ElementType::S32, 32)
    } else {
        (ElementType::S16, 16)
    };
    let is = sx.with_element_type(it);
    let mut fx = Fx { cx, s: sx.clone() };
    let ki = |fx: &mut Fx<'_, '_, '_, '_, '_>, v: i128| -> Result<InstId> {
        let lit = int_literal(v, it).ok_or_else(|| {
            fx.cx
                .err(fx.cx.op.pos, "an integer constant out of range", "")
        })?;
        fx.splat(lit, &is)
    };
    let bitcast = |fx: &mut Fx<'_, '_, '_, '_, '_>, a: InstId, s: &Shape| {
        fx.cx.push(OpKind::BitcastConvert, vec![a], s)
    };
    let xi = bitcast(&mut fx, x, &is)?;
    let yi = bitcast(&mut fx, y, &is)?;
    let x_nan = fx.cmp(Ne, x, x)?;
    let y_nan = fx.cmp(Ne, y, y)?;
    let any_nan = fx.bin(BinaryOp::Or, x_nan, y_nan)?;
    let nan = fx.k(f64::NAN)?;
    let nan_i = bitcast(&mut fx, nan, &is)?;
    let sign_bit: i128 = -(1i128 << (bits - 1));
    let sign_mask = ki(&mut fx, sign_bit)?;
    let abs_mask = ki(&mut fx, (1i128 << (bits - 1)) - 1)?;
    let x_abs = fx.bin(BinaryOp::And, xi, abs_mask)?;
    let y_abs = fx.bin(BinaryOp::And, yi, abs_mask)?;
    let equal = fx.cmp(Eq, x, y)?;
    let zero_i = ki(&mut fx, 0)?;
    let x_zero = fx.cmp(Eq, x_abs, zero_i)?;
    let y_zero = fx.cmp(Eq, y_abs, zero_i)?;
    let x_sign = fx.bin(BinaryOp::And, xi, sign_mask)?;
    let y_sign = fx.bin(BinaryOp::And, yi, sign_mask)?;
    let one_i = ki(&mut fx, 1)?;
    let from_zero = fx.bin(BinaryOp::Or, y_sign, one_i)?;
    let signs_differ = fx.cmp(Ne, x_sign, y_sign)?;
    let x_larger = fx.cmp(Gt, x_abs, y_abs)?;
    let toward_zero = fx.bin(BinaryOp::Or, x_larger, signs_differ)?;
    let minus_one = ki(&mut fx, -1)?;
    let step = fx.sel(toward_zero, minus_one, one_i)?;
    let mut r = fx.add(xi, step)?;
    let zero_case = fx.sel(y_zero, yi, from_zero)?;
    r = fx.sel(x_zero, zero_case, r)?;
    r = fx.sel(equal, yi, r)?;
    r = fx.sel(any_nan, nan_i, r)?;
    Ok(vec![bitcast(&mut fx, r, &sx)?])
}

/// `chlo.conj`: `complex(real(z), -imag(z))`; a real operand is its own
/// conjugate.
pub(in super::super) fn chlo_conj(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let z = cx.operands[0];
    let s = cx.shape(z);
    let Some(part) = s.element_type().complex_component() else {
        return Ok(vec![z]);
    };
    let ps = s.with_element_type(part);
    let re = cx.push(OpKind::Real, vec![z], &ps)?;
    let im = cx.push(OpKind::Imag, vec![z], &ps)?;
    let neg = cx.push(OpKind::Unary(UnaryOp::Neg), vec![im], &ps)?;
    Ok(vec![cx.push(OpKind::Complex, vec![re, neg], &s)?])
}

/// `chlo.broadcast_complex(re, im)`: each part broadcast to the result's
/// dims (NumPy's trailing alignment, or `broadcast_dimensions` for the
/// lower-rank one), then `complex`.
pub(in super::super) fn chlo_broadcast_complex(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let r = cx.results[0].clone();
    let (l, rr) = (cx.shape(cx.operands[0]), cx.shape(cx.operands[1]));
    let dims = super::chlo_dims(cx, &l, &rr)?;
    let mut parts = Vec::new();
    for (k, &v) in cx.operands.clone().iter().enumerate() {
        let s = cx.shape(v);
        if s.dims() == r.dims() {
            parts.push(v);
            continue;
        }
        let (sr, rk) = (s.rank() as i64, r.rank() as i64);
        let lower = s.rank() < l.rank().max(rr.rank());
        let dimensions = if lower && !dims.is_empty() {
            dims.clone()
        } else {
            (rk - sr..rk).collect()
        };
        if sr > rk || dimensions.len() != s.rank() {
            return Err(cx.err(
                cx.op.pos,
                format!("operand {k} ({s}) does not broadcast to the result {r}"),
                "operands that broadcast to the result",
            ));
        }
        let target = r.with_element_type(s.element_type());
        parts.push(cx.push(OpKind::Broadcast { dimensions }, vec![v], &target)?);
    }
    Ok(vec![cx.push(OpKind::Complex, parts, &r)?])
}

// -- complex numbers and fft ----------------------------------------------------

/// `stablehlo.complex(re, im)`.
pub(in super::super) fn complex(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Complex, cx.operands.clone(), &r)?])
}

/// `stablehlo.real(z)`.
pub(in super::super) fn real(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Real, cx.operands.clone(), &r)?])
}

/// `stablehlo.imag(z)`.
pub(in super::super) fn imag(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Imag, cx.operands.clone(), &r)?])
}

/// `stablehlo.fft(x)`: `fft_type` (FFT, IFFT, RFFT or IRFFT) and
/// `fft_length` (one to three lengths), both required.
pub(in super::super) fn fft(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let Some((word, pos)) = cx.word("fft_type") else {
        return Err(cx.err(
            cx.op.pos,
            "the fft type is missing",
            "type = FFT, IFFT, RFFT or IRFFT",
        ));
    };
    let fft_type = FftType::from_name(&word).ok_or_else(|| {
        cx.err(
            pos,
            format!("unknown fft type `{word}`"),
            "FFT, IFFT, RFFT or IRFFT",
        )
    })?;
    let fft_length = cx.ints("fft_length", "length = [4]")?;
    let r = cx.results[0].clone();
    let kind = OpKind::Fft {
        fft_type,
        fft_length,
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}
