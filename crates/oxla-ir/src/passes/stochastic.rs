//! `stochastic-convert` built from elementwise primitives, value for value
//! as the interpreter computes it (`oxla_interp`'s `misc/stochastic.rs`,
//! XLA's `StochasticConvertDecomposer`), so a backend that compiles
//! converts, `floor` and integer arithmetic runs it with the same bits.
//!
//! The operand `x` is widened to `f64` first (exact for every float type),
//! where `t = floor(|x|)`, `f = |x| - t` and `f · 2^bits` are exact, as in
//! the interpreter (computing them in `x`'s type would overflow `f16`'s
//! range at `2^16`). The rounding bit is `random < convert(f · 2^bits)` in
//! the random operand's unsigned type (the scaled fraction is below
//! `2^bits`; NaN converts to 0). The integer part is converted with
//! saturation to `s64`, the bit added and the sign applied there, and the
//! result converted to the signed result type (an integer convert keeps
//! the low bits: the interpreter's wrap). Last, `x <= MIN` gives `MIN` and
//! `x >= MAX` gives `MAX`, the bounds converted to `x`'s type as XLA's
//! constants are. Where the integer part is out of the result's range the
//! saturating converts differ from the interpreter's clamps, but such an
//! `x` lies beyond a bound (rounding is monotone), so the last step gives
//! both the bound.

use crate::{Builder, Computation, ElementType, Literal, Op, OpKind, Result, Shape};

/// `stochastic-convert(x, random)` to the signed integer type `to`, built
/// from primitives (see the module docs); `None` when `to` is not a signed
/// integer type (the interpreter refuses those).
///
/// ```
/// use oxla_ir::{Builder, ElementType::{F32, S8, U32}, Shape, passes::stochastic};
/// let mut b = Builder::new("sc");
/// let x = b.parameter(0, Shape::new(F32, &[4]), "x")?;
/// let r = b.parameter(1, Shape::new(U32, &[4]), "r")?;
/// let y = stochastic::stochastic_convert(&mut b, x, r, S8)?.unwrap();
/// assert_eq!(b.shape(y)?.to_string(), "s8[4]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn stochastic_convert(
    b: &mut Builder,
    x: Op,
    random: Op,
    to: ElementType,
) -> Result<Option<Op>> {
    if !to.is_signed_integer() {
        return Ok(None);
    }
    let xs = b.shape(x)?;
    let rs = b.shape(random)?;
    let (xty, rty) = (xs.element_type(), rs.element_type());
    let dims = xs.dims().to_vec();
    let bits = rty.bit_width();
    let width = to.bit_width();
    if !xty.is_float() || bits == 0 || bits > 64 || width == 0 || width > 64 {
        return Ok(None);
    }
    let f64_scalar = |b: &mut Builder, v: f64| -> Result<Op> {
        let c = b.constant(Literal::scalar(v))?;
        b.broadcast_in_dim(c, &dims, &[])
    };
    let wide = b.convert(x, ElementType::F64)?;
    let a = b.abs(wide)?;
    let t = b.floor(a)?;
    let f = b.sub(a, t, &[])?;
    let scale = f64_scalar(b, 2f64.powi(bits as i32))?;
    let fixed = b.mul(f, scale, &[])?;
    let fixed = b.convert(fixed, rty)?;
    let up = b.lt(random, fixed, &[])?;
    let up = b.convert(up, ElementType::S64)?;
    let ti = b.convert(t, ElementType::S64)?;
    let res = b.add(ti, up, &[])?;
    let neg = b.neg(res)?;
    let zero = f64_scalar(b, 0.0)?;
    let negative = b.lt(wide, zero, &[])?;
    let res = b.select(negative, neg, res)?;
    let res = b.convert(res, to)?;
    // The bounds, as integers of the result type and as x's type.
    let min = if width == 64 {
        i64::MIN
    } else {
        -(1i64 << (width - 1))
    };
    let max = if width == 64 {
        i64::MAX
    } else {
        (1i64 << (width - 1)) - 1
    };
    let mut bound = |v: i64| -> Result<(Op, Op)> {
        let c = b.constant(Literal::scalar(v))?;
        let in_x = b.convert(c, xty)?;
        let in_x = b.broadcast_in_dim(in_x, &dims, &[])?;
        let in_to = b.convert(c, to)?;
        let in_to = b.broadcast_in_dim(in_to, &dims, &[])?;
        Ok((in_x, in_to))
    };
    let (min_x, min_to) = bound(min)?;
    let (max_x, max_to) = bound(max)?;
    let below = b.le(x, min_x, &[])?;
    let res = b.select(below, min_to, res)?;
    let above = b.ge(x, max_x, &[])?;
    b.select(above, max_to, res).map(Some)
}

/// `comp` with every `stochastic-convert` built from primitives
/// ([`stochastic_convert`]); one to an unsigned type is kept (the
/// interpreter refuses it).
///
/// ```
/// use oxla_ir::passes::stochastic;
/// let text = "HloModule m\nENTRY m {\n  x = f32[4] parameter(0)\n  \
///     r = u32[4] parameter(1)\n  ROOT c = s8[4] stochastic-convert(x, r)\n}\n";
/// let comp = oxla_ir::parse_hlo_module(text)?;
/// let out = stochastic::expand_all(&comp)?;
/// assert!(!out.to_hlo_text().contains("stochastic-convert"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "stochastic::expand_all pass", |inst, operands| {
        let (OpKind::StochasticConvert, [xs, rs]) = (&inst.kind, operands) else {
            return Ok(None);
        };
        let mut b = Builder::new("stochastic_convert");
        let x = b.parameter(0, Shape::clone(xs), "x")?;
        let r = b.parameter(1, Shape::clone(rs), "r")?;
        match stochastic_convert(&mut b, x, r, inst.shape.element_type())? {
            Some(y) => b.build(y).map(Some),
            None => Ok(None),
        }
    })
}
