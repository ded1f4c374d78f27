//! A `bitcast-convert` that changes the element width, built from
//! same-width bitcasts, shifts and integer converts (so a backend that
//! compiles only same-width bitcasts runs it). XLA's rule: narrowing `A`
//! to `B` adds a last dimension of `width(A) / width(B)` elements, each
//! one slice of the bits, the lowest bits first (little-endian);
//! widening removes such a dimension. Every step is an integer operation
//! on bit patterns, so the result is exact, NaN payloads included. The
//! sub-byte types (`s4`, `u2`, `f4e2m1fn`, ...) go through the unsigned
//! type of their width (`u4`, `u2`, `u1`), whose converts keep the low
//! bits.

use crate::{Builder, Computation, ElementType, Op, OpKind, Result, Shape};

/// `x` reinterpreted as `to` (same width), or `x` itself when it is
/// already of that type.
fn reinterpret(b: &mut Builder, x: Op, to: ElementType) -> Result<Op> {
    if b.shape(x)?.element_type() == to {
        Ok(x)
    } else {
        b.bitcast_convert_type(x, to)
    }
}

/// `bitcast-convert(x)` to `to`, whose width differs from `x`'s, built
/// from primitives (the sub-byte types too: their parts are the low bits
/// first, as the interpreter packs them); `None` when a type is `pred`,
/// whose bits are defined only as `pred` (the interpreter refuses a
/// bitcast between `pred` and another type), which stays as it is.
///
/// ```
/// use oxla_ir::{Builder, ElementType::{F32, U8}, Shape, passes::bitcast};
/// let mut b = Builder::new("bytes");
/// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
/// let y = bitcast::width_change(&mut b, x, U8)?.unwrap();
/// assert_eq!(b.shape(y)?.to_string(), "u8[3,4]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn width_change(b: &mut Builder, x: Op, to: ElementType) -> Result<Option<Op>> {
    let shape = b.shape(x)?;
    let from = shape.element_type();
    let (wa, wb) = (from.bit_width(), to.bit_width());
    let (Some(ua), Some(ub)) = (
        ElementType::unsigned_of_width(wa),
        ElementType::unsigned_of_width(wb),
    ) else {
        return Ok(None);
    };
    if from.is_pred() || to.is_pred() || wa == wb {
        return Ok(None);
    }
    let bits = reinterpret(b, x, ua)?;
    let dims = shape.dims().to_vec();
    let out = if wa > wb {
        // Part j of each element: the bits shifted right by j * width(B),
        // one elementwise expression over the result's shape.
        let r = i64::from(wa / wb);
        let rank = dims.len();
        let out_dims = [dims.as_slice(), &[r]].concat();
        let keep: Vec<i64> = (0..rank as i64).collect();
        let wide = b.broadcast_in_dim(bits, &out_dims, &keep)?;
        let j = b.iota(Shape::new(ua, &out_dims), rank as i64)?;
        let s = crate::Literal::from_vec::<u64>(&[], vec![u64::from(wb)])?;
        let s = b.constant(s)?;
        let s = b.convert(s, ua)?;
        let shift = b.mul(j, s, &[])?;
        let shifted = b.shift_right_logical(wide, shift, &[])?;
        b.convert(shifted, ub)?
    } else {
        let r = wb / wa;
        let Some((_, outer)) = dims.split_last() else {
            return Ok(None);
        };
        let rank = dims.len();
        let mut acc: Option<Op> = None;
        for j in 0..i64::from(r) {
            let mut starts = vec![0; rank];
            let mut limits = dims.clone();
            starts[rank - 1] = j;
            limits[rank - 1] = j + 1;
            let part = b.slice(bits, &starts, &limits, &vec![1; rank])?;
            let part = b.reshape(part, outer)?;
            let part = b.convert(part, ub)?;
            let s = crate::Literal::from_vec::<u64>(&[], vec![(j as u64) * u64::from(wa)])?;
            let s = b.constant(s)?;
            let s = b.convert(s, ub)?;
            let part = b.shift_left(part, s, &[])?;
            acc = Some(match acc {
                None => part,
                Some(a) => b.or(a, part, &[])?,
            });
        }
        let Some(acc) = acc else {
            return Ok(None);
        };
        acc
    };
    reinterpret(b, out, to).map(Some)
}

/// `comp` with every width-changing `bitcast-convert` built from
/// primitives ([`width_change`]); the others are kept.
///
/// ```
/// use oxla_ir::{Builder, ElementType::{F32, U8}, Shape, passes::bitcast};
/// let mut b = Builder::new("bytes");
/// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
/// let y = b.bitcast_convert_type(x, U8)?;
/// let comp = b.build(y)?;
/// let out = bitcast::expand_all(&comp)?;
/// assert!(out.to_hlo_text().contains("shift-right-logical"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "bitcast::expand_all pass", |inst, operands| {
        let (OpKind::BitcastConvert, [operand]) = (&inst.kind, operands) else {
            return Ok(None);
        };
        if operand.element_type().bit_width() == inst.shape.element_type().bit_width() {
            return Ok(None);
        }
        let mut b = Builder::new("bitcast_convert");
        let x = b.parameter(0, Shape::clone(operand), "x")?;
        match width_change(&mut b, x, inst.shape.element_type())? {
            Some(y) => b.build(y).map(Some),
            None => Ok(None),
        }
    })
}
