//! `topk` and `reduce-precision` of the narrow types (the floats narrower
//! than `f32`, the integers narrower than a byte) built from primitives
//! computed as the interpreter computes them, so a backend whose kernels
//! for these two ops take only the wide types runs them with the same
//! bits.
//!
//! - **`topk`**: the interpreter takes the first `k` elements of each row
//!   after a stable merge sort by `GT` (`largest`) or `LT`, under the total
//!   order for floats and the natural order for integers. Here: a stable
//!   `sort` of the operand and an `s32` iota along the last dimension with
//!   that comparison on the values, then the first `k` columns of both. A
//!   stable sort by a strict weak order has one result, so the values and
//!   indices are the interpreter's.
//! - **`reduce-precision`** of `bf16` and `f16`: the interpreter rounds
//!   the type's own bits (round to nearest even by adding `0111..1` plus
//!   the last kept bit and masking, then exponents past the narrower range
//!   to infinity and those at or below its smallest normal to signed
//!   zero); a NaN stays the same NaN. Here the same integer steps on the
//!   bits (`u16`), the constants computed from the formats, and a select
//!   keeping NaNs.
//! - **`reduce-precision`** of the float8 kinds and `f4e2m1fn`: the
//!   interpreter widens to `f16` (exactly), rounds the `f16` bits as above
//!   and converts back; a NaN gives the type's NaN (the conversion of
//!   `f32`'s NaN). `f8e8m0fnu`, whose range `f16` lacks, goes through
//!   `f32`'s `reduce-precision`; a NaN stays as it is. Here the same
//!   converts around the same bit steps.

use crate::{
    Builder, ComparisonDirection, Computation, ElementType, Literal, Op, OpKind, Result, Shape,
};

/// Whether `ty` is a type whose `topk` and `reduce-precision` this pass
/// expands: a float narrower than 32 bits or an integer narrower than 8.
pub fn is_narrow(ty: ElementType) -> bool {
    (ty.is_float() && ty.bit_width() < 32)
        || ((ty.is_signed_integer() || ty.is_unsigned_integer()) && ty.bit_width() < 8)
}

/// The `u16` constant `value` broadcast to `dims`.
fn u16s(b: &mut Builder, value: u64, dims: &[i64]) -> Result<Op> {
    let c = b.constant(Literal::scalar(value as u16))?;
    b.broadcast_in_dim(c, dims, &[])
}

/// The interpreter's rounding of 16-bit float bits `v` (`u16`, with
/// `src_man` mantissa bits) to `exp`/`man` bits; NaNs are the caller's.
fn round_bits16(b: &mut Builder, v: Op, src_man: u32, exp: i64, man: i64) -> Result<Op> {
    let dims = b.shape(v)?.dims().to_vec();
    let src_exp = 16 - src_man - 1;
    let mut v = v;
    if man < i64::from(src_man) {
        let cut = src_man - man as u32;
        let last_kept = 1u64 << cut;
        let half = u16s(b, (last_kept >> 1) - 1, &dims)?;
        let kept_bit = u16s(b, last_kept, &dims)?;
        let shift = u16s(b, u64::from(cut), &dims)?;
        let bit = b.and(v, kept_bit, &[])?;
        let bit = b.shift_right_logical(bit, shift, &[])?;
        let bias = b.add(half, bit, &[])?;
        let sum = b.add(v, bias, &[])?;
        let keep = u16s(b, !(last_kept - 1) & 0xffff, &dims)?;
        v = b.and(sum, keep, &[])?;
    }
    if exp < i64::from(src_exp) && exp >= 1 {
        let exp_mask = ((1u64 << src_exp) - 1) << src_man;
        let bias = (1u64 << (src_exp - 1)) - 1;
        let reduced_bias = (1u64 << (exp as u32 - 1)) - 1;
        let mask = u16s(b, exp_mask, &dims)?;
        let sign = u16s(b, 0x8000, &dims)?;
        let x_exp = b.and(v, mask, &[])?;
        let signed_zero = b.and(v, sign, &[])?;
        let top = u16s(b, (bias + reduced_bias) << src_man, &dims)?;
        let bottom = u16s(b, (bias - reduced_bias) << src_man, &dims)?;
        let over = b.gt(x_exp, top, &[])?;
        let under = b.le(x_exp, bottom, &[])?;
        let inf = b.or(signed_zero, mask, &[])?;
        let flushed = b.select(under, signed_zero, v)?;
        v = b.select(over, inf, flushed)?;
    }
    Ok(v)
}

/// `reduce-precision(x)` of a narrow float `x` (see the module docs);
/// `None` for another type.
pub fn reduce_precision(
    b: &mut Builder,
    x: Op,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Option<Op>> {
    let ty = b.shape(x)?.element_type();
    if !ty.is_float() || ty.bit_width() >= 32 || exponent_bits < 1 || mantissa_bits < 0 {
        return Ok(None);
    }
    let r = match ty {
        ElementType::Bf16 | ElementType::F16 => {
            let src_man = if ty == ElementType::Bf16 { 7 } else { 10 };
            let bits = b.bitcast_convert_type(x, ElementType::U16)?;
            let r = round_bits16(b, bits, src_man, exponent_bits, mantissa_bits)?;
            let r = b.bitcast_convert_type(r, ty)?;
            let nan = b.ne(x, x, &[])?;
            b.select(nan, x, r)?
        }
        ElementType::F8E8M0FNU => {
            let w = b.convert(x, ElementType::F32)?;
            let r = b.reduce_precision(w, exponent_bits, mantissa_bits)?;
            let r = b.convert(r, ty)?;
            let nan = b.ne(w, w, &[])?;
            b.select(nan, x, r)?
        }
        ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ => {
            let dims = b.shape(x)?.dims().to_vec();
            let w = b.convert(x, ElementType::F16)?;
            let bits = b.bitcast_convert_type(w, ElementType::U16)?;
            let r = round_bits16(b, bits, 10, exponent_bits, mantissa_bits)?;
            let r = b.bitcast_convert_type(r, ElementType::F16)?;
            let r = b.convert(r, ty)?;
            let nan = b.ne(w, w, &[])?;
            let q = b.constant(Literal::scalar(f32::NAN))?;
            let q = b.convert(q, ty)?;
            let q = b.broadcast_in_dim(q, &dims, &[])?;
            b.select(nan, q, r)?
        }
        ElementType::Pred
        | ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::F32
        | ElementType::F64
        | ElementType::C64
        | ElementType::C128
        | ElementType::Tuple
        | ElementType::Token => return Ok(None),
    };
    Ok(Some(r))
}

/// `topk(x, k, largest)` as a stable sort and slices (see the module
/// docs): the tuple of values and `s32` indices.
pub fn top_k(b: &mut Builder, x: Op, k: i64, largest: bool) -> Result<Op> {
    let shape = b.shape(x)?;
    let ty = shape.element_type();
    let dims = shape.dims().to_vec();
    let last = dims.len().saturating_sub(1);
    let direction = if largest {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Lt
    };
    let mut c = Builder::new("topk_order");
    let p = c.parameter(0, Shape::scalar(ty), "a")?;
    let q = c.parameter(1, Shape::scalar(ty), "b")?;
    c.parameter(2, Shape::scalar(ElementType::S32), "i")?;
    c.parameter(3, Shape::scalar(ElementType::S32), "j")?;
    let before = if ty.is_float() {
        c.compare_total_order(p, q, direction, &[])?
    } else {
        c.compare(p, q, direction, &[])?
    };
    let order = c.build(before)?;
    let iota = b.iota(Shape::new(ElementType::S32, &dims), last as i64)?;
    let sorted = b.sort(&[x, iota], last as i64, true, &order)?;
    let starts = vec![0i64; dims.len()];
    let mut limits = dims.clone();
    if let Some(l) = limits.last_mut() {
        *l = k;
    }
    let strides = vec![1i64; dims.len()];
    let mut parts = Vec::with_capacity(2);
    for i in 0..2 {
        let s = b.get_tuple_element(sorted, i)?;
        parts.push(b.slice(s, &starts, &limits, &strides)?);
    }
    b.tuple(&parts)
}

/// `comp` with every `topk` and `reduce-precision` of a narrow type
/// ([`is_narrow`]) built from primitives ([`top_k`],
/// [`reduce_precision`]).
///
/// ```
/// use oxla_ir::{OpKind, passes::narrow};
/// let text = "HloModule m\n\
///     ENTRY m {\n  x = bf16[2,5] parameter(0)\n  \
///     r = bf16[2,5] reduce-precision(x), exponent_bits=5, mantissa_bits=2\n  \
///     ROOT t = (bf16[2,3], s32[2,3]) topk(r), k=3, largest=true\n}\n";
/// let comp = oxla_ir::parse_hlo_module(text)?;
/// let out = narrow::expand_all(&comp)?;
/// let mut ops = out.entry().instructions.iter();
/// assert!(ops.all(|i| !matches!(i.kind, OpKind::TopK { .. } | OpKind::ReducePrecision { .. })));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "narrow::expand_all pass", |inst, operands| {
        if !expands(&inst.kind, operands.first()) {
            return Ok(None);
        }
        let Some(shape) = operands.first() else {
            return Ok(None);
        };
        let mut b = Builder::new("narrow");
        let x = b.parameter(0, shape.clone(), "x")?;
        let root = if let OpKind::TopK { k, largest } = &inst.kind {
            top_k(&mut b, x, *k, *largest)?
        } else if let OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } = &inst.kind
            && let Some(r) = reduce_precision(&mut b, x, *exponent_bits, *mantissa_bits)?
        {
            r
        } else {
            return Ok(None);
        };
        b.build(root).map(Some)
    })
}

/// Whether an instruction of `kind` whose first operand has `shape` is
/// one [`expand_all`] expands.
pub(crate) fn expands(kind: &OpKind, shape: Option<&Shape>) -> bool {
    matches!(kind, OpKind::TopK { .. } | OpKind::ReducePrecision { .. })
        && shape.is_some_and(|s| !s.is_tuple() && is_narrow(s.element_type()))
}
