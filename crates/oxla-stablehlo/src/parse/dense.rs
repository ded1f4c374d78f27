//! `dense<...>` and `dense_resource<...>` constants as [`Literal`]s.
//!
//! Three spellings carry a constant's values, and each is checked against
//! the tensor type it is read as:
//! - elements: a splat (`dense<1.0>`, one value for every element) or
//!   nested lists that match the dims exactly (`dense<[[1, 2], [3, 4]]>`);
//!   floats are decimals or their bits in hex (`0xFF800000`), integers are
//!   decimal or hex, `i1` is `true`/`false` (or 1/0);
//! - a hex blob, `dense<"0x...">`: the elements' little-endian bytes, one
//!   byte per `i1`, either one element (a splat) or all of them;
//! - `dense_resource<name>`: a blob from the file's `{-# dialect_resources
//!   #-}` section, whose first four bytes give its alignment.
//!
//! Memory: lists and blobs hold as many values as the text spells out. A
//! splat names one value for any number of elements, so a splat is
//! expanded only while the module's splat budget lasts; past it the caller
//! builds the constant as a scalar and a broadcast (the same values).

use std::collections::HashMap;

use oxla_ir::{ArrayData, ElementType, Literal, RealFloat, Result, Shape, SubByteInt};

use super::cursor::parse_int;
use super::source::Source;
use super::syntax::{Attr, AttrAt, DenseBody, DenseElem};

/// A constant's values.
pub(super) enum Dense {
    /// Every element.
    Full(Literal),
    /// One scalar that every element equals (a splat past the budget).
    Splat(Literal),
}

/// Reads `attr` (a `dense<...>` or `dense_resource<...>`) as a literal of
/// `shape` (an array). `op` names the op in messages.
pub(super) fn dense_literal(
    src: &Source<'_>,
    resources: &HashMap<String, (String, usize)>,
    attr: &AttrAt,
    shape: &Shape,
    splat_budget: &mut usize,
    op: &str,
) -> Result<Dense> {
    let et = shape.element_type();
    let n = shape.element_count() as usize;
    let err =
        |pos: usize, msg: String, expected: &str| src.error(pos, format!("{op}: {msg}"), expected);
    match &attr.attr {
        Attr::Dense(DenseBody::Empty, _) => {
            if n != 0 {
                return Err(err(
                    attr.pos,
                    format!("`dense<>` has no values but {shape} has {n} element(s)"),
                    "one value per element, or a splat",
                ));
            }
            full(shape, empty(et), attr.pos, src, op)
        }
        Attr::Dense(DenseBody::Hex(hex, pos), _) => {
            let bytes = hex_bytes(hex).ok_or_else(|| {
                err(
                    *pos,
                    "the hex blob is not `0x` followed by pairs of hex digits".into(),
                    "\"0x0000803F...\"",
                )
            })?;
            let size = byte_size(et);
            if bytes.len() == size && n != 1 {
                let v = decode(et, &bytes);
                return splat(shape, v, n, splat_budget, *pos, src, op);
            }
            if bytes.len() != size * n {
                return Err(err(
                    *pos,
                    format!(
                        "the hex blob has {} byte(s), but {shape} needs {} ({n} element(s) of {size} byte(s)) or {size} for a splat",
                        bytes.len(),
                        size * n
                    ),
                    "one element's bytes per element",
                ));
            }
            full(shape, decode(et, &bytes), *pos, src, op)
        }
        Attr::Dense(DenseBody::Elements(elem), _) => {
            if let DenseElem::Scalar(s, e) = elem
                && shape.rank() > 0
            {
                let mut v = empty(et);
                push_value(src, &mut v, *s, *e, op)?;
                return splat(shape, v, n, splat_budget, *s, src, op);
            }
            if let DenseElem::Complex(pos, re, im) = elem
                && shape.rank() > 0
            {
                let mut v = empty(et);
                push_complex(src, &mut v, *pos, *re, *im, op)?;
                return splat(shape, v, n, splat_budget, *pos, src, op);
            }
            let mut data = empty(et);
            walk(src, elem, shape.dims(), 0, &mut data, op)?;
            full(shape, data, attr.pos, src, op)
        }
        Attr::DenseResource(name, _) => {
            let Some((blob, pos)) = resources.get(name) else {
                let why = if name == "__elided__" {
                    "the constant's values were elided when the file was printed; print it again without eliding large constants"
                } else {
                    "the file's `{-# dialect_resources: { builtin: { ... } } #-}` section does not define it"
                };
                return Err(err(
                    attr.pos,
                    format!("the resource `{name}` has no data: {why}"),
                    "a resource defined at the end of the file",
                ));
            };
            let bytes = hex_bytes(blob).ok_or_else(|| {
                err(
                    *pos,
                    format!("the resource `{name}` is not `0x` followed by pairs of hex digits"),
                    "\"0x04000000...\"",
                )
            })?;
            let size = byte_size(et);
            if bytes.len() < 4 || bytes.len() - 4 != size * n {
                return Err(err(
                    *pos,
                    format!(
                        "the resource `{name}` has {} byte(s) of data, but {shape} needs {} ({n} element(s) of {size} byte(s)) after the 4 alignment bytes",
                        bytes.len().saturating_sub(4),
                        size * n
                    ),
                    "4 alignment bytes, then one element's bytes per element",
                ));
            }
            full(shape, decode(et, &bytes[4..]), *pos, src, op)
        }
        other => Err(err(
            attr.pos,
            format!(
                "expected a `dense<...>` constant, found {}",
                describe(other)
            ),
            "`dense<...> : tensor<...>`",
        )),
    }
}

/// A few words naming an attribute's kind, for messages.
pub(super) fn describe(a: &Attr) -> &'static str {
    match a {
        Attr::Unit => "a unit attribute",
        Attr::Bool(_) => "a boolean",
        Attr::Int(_) => "an integer",
        Attr::Float(_) => "a float",
        Attr::Str(_) => "a string",
        Attr::Symbol(_) => "a symbol",
        Attr::Keyword(_) => "a keyword",
        Attr::Type(_) => "a type",
        Attr::Array(_) => "an array",
        Attr::Dict(_) => "a dictionary",
        Attr::DenseArray(_) => "an `array<...>`",
        Attr::Dense(..) => "a `dense<...>`",
        Attr::DenseResource(..) => "a `dense_resource<...>`",
        Attr::Dialect(..) => "a dialect attribute",
        Attr::Opaque => "an attribute oxla does not read",
    }
}

fn full(shape: &Shape, data: ArrayData, pos: usize, src: &Source<'_>, op: &str) -> Result<Dense> {
    Literal::from_array_data(shape.dims(), data)
        .map(Dense::Full)
        .map_err(|e| src.error(pos, format!("{op}: {e}"), "one value per element"))
}

/// A splat of the one value in `v`: expanded while the budget lasts.
fn splat(
    shape: &Shape,
    v: ArrayData,
    n: usize,
    budget: &mut usize,
    pos: usize,
    src: &Source<'_>,
    op: &str,
) -> Result<Dense> {
    if n <= *budget {
        *budget -= n;
        let data = v.gather(&vec![0; n]);
        return full(shape, data, pos, src, op);
    }
    Literal::from_array_data(&[], v)
        .map(Dense::Splat)
        .map_err(|e| src.error(pos, format!("{op}: {e}"), "one value"))
}

/// Checks nested lists against `dims` from level `level` on, appending the
/// values in row-major order.
fn walk(
    src: &Source<'_>,
    elem: &DenseElem,
    dims: &[i64],
    level: usize,
    data: &mut ArrayData,
    op: &str,
) -> Result<()> {
    match elem {
        DenseElem::Scalar(s, e) => {
            if level != dims.len() {
                return Err(src.error(
                    *s,
                    format!(
                        "{op}: a value where a list of {} element(s) belongs (dimension {level})",
                        dims[level]
                    ),
                    format!("a `[...]` list of {} element(s)", dims[level]),
                ));
            }
            push_value(src, data, *s, *e, op)
        }
        DenseElem::List(items, pos) => {
            let Some(&want) = dims.get(level) else {
                return Err(src.error(
                    *pos,
                    format!(
                        "{op}: a list nested deeper than the tensor's {} dimension(s)",
                        dims.len()
                    ),
                    "a value",
                ));
            };
            if items.len() as i64 != want {
                return Err(src.error(
                    *pos,
                    format!(
                        "{op}: a list of {} element(s) for dimension {level} of size {want}",
                        items.len()
                    ),
                    format!("{want} element(s)"),
                ));
            }
            items
                .iter()
                .try_for_each(|i| walk(src, i, dims, level + 1, data, op))
        }
        DenseElem::Complex(pos, re, im) => {
            if level != dims.len() {
                return Err(src.error(
                    *pos,
                    format!(
                        "{op}: a value where a list of {} element(s) belongs (dimension {level})",
                        dims[level]
                    ),
                    format!("a `[...]` list of {} element(s)", dims[level]),
                ));
            }
            push_complex(src, data, *pos, *re, *im, op)
        }
    }
}

/// Appends the complex number `(re, im)` to `data`, whose element type
/// must be complex (each part read as the part type).
fn push_complex(
    src: &Source<'_>,
    data: &mut ArrayData,
    pos: usize,
    re: (usize, usize),
    im: (usize, usize),
    op: &str,
) -> Result<()> {
    match data {
        ArrayData::C64(v) => {
            let mut parts = ArrayData::F32(Vec::new());
            push_value(src, &mut parts, re.0, re.1, op)?;
            push_value(src, &mut parts, im.0, im.1, op)?;
            if let ArrayData::F32(p) = parts {
                v.push(oxla_ir::Complex64::new(p[0], p[1]));
            }
            Ok(())
        }
        ArrayData::C128(v) => {
            let mut parts = ArrayData::F64(Vec::new());
            push_value(src, &mut parts, re.0, re.1, op)?;
            push_value(src, &mut parts, im.0, im.1, op)?;
            if let ArrayData::F64(p) = parts {
                v.push(oxla_ir::Complex128::new(p[0], p[1]));
            }
            Ok(())
        }
        other => Err(src.error(
            pos,
            format!(
                "{op}: a complex number in a constant of element type {}",
                crate::export::element_type(other.element_type())
            ),
            "a real value",
        )),
    }
}

/// An empty vector of the element type.
fn empty(et: ElementType) -> ArrayData {
    // A tuple never reaches here: constants are arrays.
    ArrayData::zeros(et, 0).unwrap_or(ArrayData::F64(Vec::new()))
}

/// Bytes per element in a blob (`i1` takes one byte).
fn byte_size(et: ElementType) -> usize {
    et.byte_size().max(1)
}

/// `"0x0A0B"` as bytes.
fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let hex = s.strip_prefix("0x")?.as_bytes();
    if hex.len() % 2 != 0 {
        return None;
    }
    hex.chunks(2)
        .map(|p| {
            let hi = (p[0] as char).to_digit(16)?;
            let lo = (p[1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

/// Little-endian elements of `et` from `bytes` (a whole number of them).
fn decode(et: ElementType, bytes: &[u8]) -> ArrayData {
    ArrayData::from_bytes(et, bytes, false).unwrap_or_else(|| empty(et))
}

/// Appends the value written at `s..e` to `data`, or says why it does not
/// fit the element type.
pub(super) fn push_value(
    src: &Source<'_>,
    data: &mut ArrayData,
    s: usize,
    e: usize,
    op: &str,
) -> Result<()> {
    let text = src.text.get(s..e).unwrap_or("");
    let et = data.element_type();
    // The type as StableHLO spells it (`ui8`, `bf16`, `f8E4M3FN`).
    let ty = crate::export::element_type(et);
    let bad = |why: &str, expected: &str| {
        src.error(
            s,
            format!("{op}: `{text}` is not a valid {ty} value{why}"),
            expected,
        )
    };
    let hex = text.starts_with("0x");
    let int = |bits: u32, signed: bool| -> Result<i128> {
        let v = parse_int(text).ok_or_else(|| bad("", "an integer"))?;
        let (lo, hi) = if hex {
            // Hex spells the bit pattern.
            (0, (1i128 << bits) - 1)
        } else if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < lo || v > hi {
            return Err(bad(
                " (out of range)",
                &format!("an integer from {lo} to {hi}"),
            ));
        }
        Ok(if hex && signed && v >= 1i128 << (bits - 1) {
            v - (1i128 << bits)
        } else {
            v
        })
    };
    match data {
        ArrayData::Pred(v) => v.push(match text {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(bad("", "`true` or `false`")),
        }),
        ArrayData::S8(v) => v.push(int(8, true)? as i8),
        ArrayData::S16(v) => v.push(int(16, true)? as i16),
        ArrayData::S32(v) => v.push(int(32, true)? as i32),
        ArrayData::S64(v) => v.push(int(64, true)? as i64),
        ArrayData::U8(v) => v.push(int(8, false)? as u8),
        ArrayData::U16(v) => v.push(int(16, false)? as u16),
        ArrayData::U32(v) => v.push(int(32, false)? as u32),
        ArrayData::U64(v) => v.push(int(64, false)? as u64),
        ArrayData::S1(v) => v.push(SubByteInt::wrapping_from(int(1, true)? as i64)),
        ArrayData::S2(v) => v.push(SubByteInt::wrapping_from(int(2, true)? as i64)),
        ArrayData::S4(v) => v.push(SubByteInt::wrapping_from(int(4, true)? as i64)),
        ArrayData::U1(v) => v.push(SubByteInt::wrapping_from(int(1, false)? as i64)),
        ArrayData::U2(v) => v.push(SubByteInt::wrapping_from(int(2, false)? as i64)),
        ArrayData::U4(v) => v.push(SubByteInt::wrapping_from(int(4, false)? as i64)),
        ArrayData::F4E2M1FN(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E3M4(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E4M3(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E4M3FN(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E4M3FNUZ(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E4M3B11FNUZ(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E5M2(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E5M2FNUZ(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F8E8M0FNU(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::Bf16(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::F16(v) => v.push(narrow(text, hex, &int, &bad)?),
        ArrayData::C64(_) | ArrayData::C128(_) => {
            return Err(bad("", "a complex number `(re, im)`"));
        }
        ArrayData::F32(v) => v.push(if hex {
            f32::from_bits(int(32, false)? as u32)
        } else {
            parse_float::<f32>(text).ok_or_else(|| {
                bad(
                    "",
                    "a number such as `1.5`, `-2.0e-03` or bits in hex (`0x7FC00000`)",
                )
            })?
        }),
        ArrayData::F64(v) => v.push(if hex {
            f64::from_bits(int(64, false)? as u64)
        } else {
            parse_float::<f64>(text)
                .ok_or_else(|| bad("", "a number such as `1.5`, `-2.0e-03` or bits in hex"))?
        }),
    }
    Ok(())
}

/// A value of a float type narrower than `f32`: its bits in hex, or a
/// decimal rounded once to the type.
fn narrow<T: RealFloat>(
    text: &str,
    hex: bool,
    int: &dyn Fn(u32, bool) -> Result<i128>,
    bad: &dyn Fn(&str, &str) -> oxla_ir::Error,
) -> Result<T> {
    if hex {
        let bits = T::ELEMENT_TYPE.bit_width();
        return Ok(T::from_bits128(int(bits, false)? as u128));
    }
    parse_float::<f64>(text)
        .map(T::from_f64)
        .ok_or_else(|| bad("", "a number such as `1.5`, `-2.0e-03` or bits in hex"))
}

/// A decimal float (or integer) literal, correctly rounded to `T`.
fn parse_float<T: std::str::FromStr>(text: &str) -> Option<T> {
    let body = text.trim_start_matches(['-', '+']);
    let ok = body.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok {
        return None;
    }
    text.trim_start_matches('+').parse::<T>().ok()
}
