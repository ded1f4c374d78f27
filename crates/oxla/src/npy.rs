//! NumPy `.npy` files: reading them into [`Literal`]s and writing literals
//! out, with a small reader and writer of our own (no dependency).
//!
//! The format (numpy's `numpy/lib/format.py`): the magic `\x93NUMPY`, a
//! major and minor version byte, the header length (`u16` little-endian in
//! version 1.0, `u32` in 2.0 and 3.0), then the header, a Python dict
//! literal such as `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`
//! padded with spaces and ending in `\n`, then the raw data.
//!
//! Supported: versions 1.0, 2.0 and 3.0; byte orders `<`, `>`, `|` and `=`;
//! C order; the dtypes of every oxla element type: `b1` (pred), `i1`..`i8`,
//! `u1`..`u8`, `f4`, `f8`. Refused with a clear [`Error::Io`]:
//! `fortran_order: True`, object arrays (`|O`), structured dtypes and every
//! other dtype (`f2`, `c8`, strings, dates, ...).
//!
//! Invariants: nothing is allocated from what a header claims; the data
//! length must equal shape × item size exactly (a truncated or padded file
//! is an error), so a hostile header cannot make the reader allocate more
//! than the file it came in. Files are written in version 1.0 (2.0 when the
//! header does not fit in 64 KiB), little-endian, with the header padded so
//! the data starts at a multiple of 64 bytes, as numpy does.
//!
//! ```
//! use oxla::{npy, Literal};
//! let x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?;
//! let bytes = npy::to_npy_bytes(&x)?;
//! assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
//! assert_eq!(bytes.len() % 64, 24 % 64); // a 64-byte-aligned header, then 24 bytes
//! assert_eq!(npy::from_npy_bytes(&bytes)?, x);
//! # Ok::<(), oxla::Error>(())
//! ```

// `Error` is large by design (it carries shapes and messages as data).
#![allow(clippy::result_large_err)]

use std::path::Path;

use crate::{ArrayData, ElementType, Error, Literal, Result};

const MAGIC: &[u8] = b"\x93NUMPY";

/// Where the data starts is a multiple of this (numpy's `ARRAY_ALIGN`).
const ALIGN: usize = 64;

/// The deepest nesting of tuples and lists accepted in a header.
const MAX_HEADER_NESTING: usize = 16;

/// The name used in errors for bytes that did not come from a file.
const BYTES_SOURCE: &str = "<npy bytes>";

/// Reads a `.npy` file.
pub fn read_npy(path: impl AsRef<Path>) -> Result<Literal> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot read the file: {e}"),
    })?;
    from_npy_bytes(&bytes).map_err(|e| match e {
        Error::Io { message, .. } => Error::Io {
            path: path.display().to_string(),
            message,
        },
        other => other,
    })
}

/// Writes `literal` (an array) as a `.npy` file.
pub fn write_npy(path: impl AsRef<Path>, literal: &Literal) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_npy_bytes(literal).map_err(|e| match e {
        Error::Io { message, .. } => Error::Io {
            path: path.display().to_string(),
            message,
        },
        other => other,
    })?;
    std::fs::write(path, bytes).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot write the file: {e}"),
    })
}

fn invalid(message: impl Into<String>) -> Error {
    Error::Io {
        path: BYTES_SOURCE.into(),
        message: message.into(),
    }
}

/// Decodes the contents of a `.npy` file.
///
/// ```
/// // A hand-made big-endian file: two int16 values, 1 and -2.
/// let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
/// let header = "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }";
/// bytes.extend((header.len() as u16).to_le_bytes());
/// bytes.extend(header.as_bytes());
/// bytes.extend([0x00, 0x01, 0xff, 0xfe]);
/// let x = oxla::npy::from_npy_bytes(&bytes)?;
/// assert_eq!(x.to_vec::<i16>()?, vec![1, -2]);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn from_npy_bytes(bytes: &[u8]) -> Result<Literal> {
    decode_npy(bytes, None)
}

/// Decodes a `.npy` file holding values of `element_type`: a file with that
/// type's own dtype, or with the raw `V1`/`V2` dtype NumPy writes for
/// `ml_dtypes`' types (`bfloat16`, the float8 kinds, `int4`, ...), which
/// only the caller can name.
///
/// ```
/// use oxla::{npy, ElementType, Literal};
/// use oxla::bf16;
/// let x = Literal::from_vec(&[2], vec![bf16::from_f32(1.5), bf16::from_f32(-2.0)])?;
/// let bytes = npy::to_npy_bytes(&x)?; // dtype '<V2', as np.save writes it
/// assert!(npy::from_npy_bytes(&bytes).is_err()); // <V2 alone does not say bf16
/// assert_eq!(npy::from_npy_bytes_as(&bytes, ElementType::Bf16)?, x);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn from_npy_bytes_as(bytes: &[u8], element_type: ElementType) -> Result<Literal> {
    decode_npy(bytes, Some(element_type))
}

/// Reads a `.npy` file holding values of `element_type` (see
/// [`from_npy_bytes_as`]).
pub fn read_npy_as(path: impl AsRef<Path>, element_type: ElementType) -> Result<Literal> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: format!("cannot read the file: {e}"),
    })?;
    from_npy_bytes_as(&bytes, element_type).map_err(|e| match e {
        Error::Io { message, .. } => Error::Io {
            path: path.display().to_string(),
            message,
        },
        other => other,
    })
}

fn decode_npy(bytes: &[u8], hint: Option<ElementType>) -> Result<Literal> {
    if !bytes.starts_with(MAGIC) {
        return Err(invalid(
            "not a .npy file: it does not start with the magic string \\x93NUMPY",
        ));
    }
    let (major, minor) = match (bytes.get(6), bytes.get(7)) {
        (Some(&a), Some(&b)) => (a, b),
        _ => return Err(invalid("truncated .npy file: the version is missing")),
    };
    let (header_len, header_start) = match major {
        1 => match bytes.get(8..10) {
            Some(b) => (u16::from_le_bytes([b[0], b[1]]) as usize, 10usize),
            None => return Err(invalid("truncated .npy file: the header length is missing")),
        },
        2 | 3 => match bytes.get(8..12) {
            Some(b) => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12),
            None => return Err(invalid("truncated .npy file: the header length is missing")),
        },
        _ => {
            return Err(invalid(format!(
                "unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are supported)"
            )));
        }
    };
    let header_end = header_start
        .checked_add(header_len)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| {
            invalid(format!(
                "truncated .npy file: the header claims {header_len} bytes, but the file has {} bytes",
                bytes.len()
            ))
        })?;
    let raw = &bytes[header_start..header_end];
    // Versions 1 and 2 use latin-1 headers, version 3 UTF-8.
    let header: String = if major == 3 {
        std::str::from_utf8(raw)
            .map_err(|_| invalid("the .npy header is not valid UTF-8"))?
            .to_string()
    } else {
        raw.iter().map(|&b| b as char).collect()
    };
    let header = Header::parse(&header, hint)?;
    let data = &bytes[header_end..];
    decode(&header, data)
}

/// Encodes an array literal as the contents of a `.npy` file.
pub fn to_npy_bytes(literal: &Literal) -> Result<Vec<u8>> {
    let data = literal.array_data().ok_or_else(|| {
        invalid(format!(
            "a tuple ({}) cannot be written as one .npy array; write its elements separately",
            literal.shape()
        ))
    })?;
    let dims = literal.shape().dims();
    let shape = match dims {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        descr(literal.element_type())
    );
    // Version 1.0 unless the padded header does not fit a u16.
    let (version, prefix) = if header.len() + 1 + ALIGN + 10 <= u16::MAX as usize {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let total = prefix + header.len() + 1;
    header.extend(std::iter::repeat_n(' ', (ALIGN - total % ALIGN) % ALIGN));
    header.push('\n');
    let mut out = Vec::with_capacity(prefix + header.len() + data.len() * 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend(data.to_le_bytes());
    Ok(out)
}

/// The numpy dtype string oxla writes for an element type: what `np.save`
/// writes for the same array. `ml_dtypes`' types have no dtype string of
/// their own: NumPy writes `<V2` (raw 2-byte values) for `bfloat16`, `<V1`
/// for the float8 kinds, `float4_e2m1fn` and the sub-byte integers, and
/// `<f1` for `float8_e5m2`; such a file is read back with
/// [`from_npy_bytes_as`] / [`read_npy_as`], which name the type.
fn descr(ty: ElementType) -> &'static str {
    match ty {
        ElementType::Pred => "|b1",
        ElementType::S8 => "|i1",
        ElementType::S16 => "<i2",
        ElementType::S32 => "<i4",
        ElementType::S64 => "<i8",
        ElementType::U8 => "|u1",
        ElementType::U16 => "<u2",
        ElementType::U32 => "<u4",
        ElementType::U64 => "<u8",
        ElementType::F16 => "<f2",
        ElementType::F32 => "<f4",
        ElementType::F64 => "<f8",
        ElementType::C64 => "<c8",
        ElementType::C128 => "<c16",
        ElementType::Bf16 => "<V2",
        ElementType::F8E5M2 => "<f1",
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
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU => "<V1",
        ElementType::Tuple | ElementType::Token => "|V0",
    }
}

/// What the header says, checked.
struct Header {
    element_type: ElementType,
    big_endian: bool,
    dims: Vec<i64>,
}

impl Header {
    fn parse(text: &str, hint: Option<ElementType>) -> Result<Header> {
        let mut p = PyParser {
            chars: text.chars().collect(),
            pos: 0,
        };
        let value = p.value(0)?;
        p.skip_ws();
        if p.pos != p.chars.len() {
            return Err(invalid(format!(
                "unexpected text after the header dict at character {}: {text:?}",
                p.pos
            )));
        }
        let PyValue::Dict(entries) = value else {
            return Err(invalid(format!("the .npy header is not a dict: {text:?}")));
        };
        let get = |key: &str| {
            entries
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .ok_or_else(|| invalid(format!("the .npy header has no '{key}': {text:?}")))
        };
        let (element_type, big_endian) = match get("descr")? {
            PyValue::Str(s) => parse_descr(s, hint)?,
            PyValue::List(fields) | PyValue::Tuple(fields) => {
                return Err(invalid(format!(
                    "structured dtypes (a 'descr' list of {} field(s)) are not supported; save a plain array",
                    fields.len()
                )));
            }
            other => return Err(invalid(format!("'descr' must be a string, got {other:?}"))),
        };
        match get("fortran_order")? {
            PyValue::Bool(false) => {}
            PyValue::Bool(true) => {
                return Err(invalid(
                    "fortran_order: True is not supported: oxla reads C-order (row-major) \
                     arrays; save with np.save(path, np.ascontiguousarray(x))",
                ));
            }
            other => {
                return Err(invalid(format!(
                    "'fortran_order' must be True or False, got {other:?}"
                )));
            }
        }
        let dims = match get("shape")? {
            PyValue::Tuple(items) => items
                .iter()
                .map(|v| match v {
                    PyValue::Int(d) if *d >= 0 => Ok(*d),
                    other => Err(invalid(format!(
                        "'shape' must hold non-negative integers, got {other:?}"
                    ))),
                })
                .collect::<Result<Vec<i64>>>()?,
            other => {
                return Err(invalid(format!(
                    "'shape' must be a tuple such as (2, 3), got {other:?}"
                )));
            }
        };
        Ok(Header {
            element_type,
            big_endian,
            dims,
        })
    }
}

/// `<f4` → (F32, little-endian).
fn parse_descr(s: &str, hint: Option<ElementType>) -> Result<(ElementType, bool)> {
    let (order, code) = match s.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &s[1..]),
        _ => ('|', s),
    };
    let ty = match code {
        "b1" | "?" => ElementType::Pred,
        "i1" => ElementType::S8,
        "i2" => ElementType::S16,
        "i4" => ElementType::S32,
        "i8" => ElementType::S64,
        "u1" => ElementType::U8,
        "u2" => ElementType::U16,
        "u4" => ElementType::U32,
        "u8" => ElementType::U64,
        "f2" => ElementType::F16,
        "f4" => ElementType::F32,
        "f8" => ElementType::F64,
        "c8" => ElementType::C64,
        "c16" => ElementType::C128,
        // ml_dtypes' float8_e5m2 is the one that NumPy saves as a float.
        "f1" => ElementType::F8E5M2,
        // ml_dtypes' names, as JAX's tools write them in the header (np.load
        // reads them back once ml_dtypes is imported).
        "bfloat16" => ElementType::Bf16,
        "float8_e4m3fn" => ElementType::F8E4M3FN,
        "float8_e5m2" => ElementType::F8E5M2,
        "float8_e4m3" => ElementType::F8E4M3,
        "float8_e3m4" => ElementType::F8E3M4,
        "float8_e4m3fnuz" => ElementType::F8E4M3FNUZ,
        "float8_e5m2fnuz" => ElementType::F8E5M2FNUZ,
        "float8_e4m3b11fnuz" => ElementType::F8E4M3B11FNUZ,
        "float8_e8m0fnu" => ElementType::F8E8M0FNU,
        "float4_e2m1fn" => ElementType::F4E2M1FN,
        "int4" => ElementType::S4,
        "uint4" => ElementType::U4,
        "int2" => ElementType::S2,
        "uint2" => ElementType::U2,
        "int1" => ElementType::S1,
        "uint1" => ElementType::U1,
        "V1" | "V2" => match hint {
            Some(t) if code == format!("V{}", t.byte_size()) => t,
            _ => {
                return Err(invalid(format!(
                    "dtype '{s}' holds raw {}-byte values of a type NumPy does not name (np.save \
                     writes ml_dtypes' bfloat16 as <V2, and its float8, float4 and int4/int2 \
                     types as <V1): read the file with npy::read_npy_as or \
                     npy::from_npy_bytes_as, naming the element type",
                    &code[1..]
                )));
            }
        },
        _ => {
            let what = match code.chars().next() {
                Some('O') => "object arrays (dtype=object) cannot be read: they hold Python objects, not numbers".to_string(),
                Some('f') => format!("float dtype '{s}' is not supported"),
                Some('c') => format!("complex dtype '{s}' is not supported (c8 and c16 are)"),
                Some('U' | 'S' | 'a') => format!("string dtype '{s}' is not supported"),
                Some('M' | 'm') => format!("date/time dtype '{s}' is not supported"),
                _ => format!("dtype '{s}' is not supported"),
            };
            return Err(invalid(format!(
                "{what}; oxla reads b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16, \
                 ml_dtypes' names (bfloat16, float8_e4m3fn, int4, ...), and V1/V2 (ml_dtypes' \
                 types as np.save writes them) when the element type is named"
            )));
        }
    };
    if let Some(t) = hint.filter(|&t| t != ty) {
        return Err(invalid(format!(
            "the file holds {ty} values (dtype '{s}'), not the {t} asked for"
        )));
    }
    let big_endian = match order {
        '>' => true,
        '<' => false,
        '=' => cfg!(target_endian = "big"),
        _ if ty.byte_size() == 1 => false,
        // An ml_dtypes name is the machine's order, as NumPy's '='.
        _ if code.len() > 3 => cfg!(target_endian = "big"),
        _ => {
            return Err(invalid(format!(
                "dtype '{s}' has several bytes per element but no byte order ('<' or '>')"
            )));
        }
    };
    Ok((ty, big_endian))
}

/// The values of the file, checked against the header.
fn decode(h: &Header, data: &[u8]) -> Result<Literal> {
    let size = h.element_type.byte_size();
    let count = h
        .dims
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .filter(|&c| c <= oxla_ir::shape::MAX_ELEMENTS);
    let shape_text = format!(
        "({})",
        h.dims
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let Some(count) = count else {
        return Err(invalid(format!(
            "the shape {shape_text} has more than {} elements",
            oxla_ir::shape::MAX_ELEMENTS
        )));
    };
    let expected = (count as u128) * size as u128;
    if expected != data.len() as u128 {
        let what = if (data.len() as u128) < expected {
            "truncated .npy file"
        } else {
            "malformed .npy file"
        };
        return Err(invalid(format!(
            "{what}: shape {shape_text} of {} needs {expected} bytes of data, but the file has {}",
            h.element_type,
            data.len()
        )));
    }
    let values = ArrayData::from_bytes(h.element_type, data, h.big_endian)
        .ok_or_else(|| invalid(format!("{} values cannot be read", h.element_type)))?;
    Literal::from_array_data(&h.dims, values).map_err(|e| invalid(e.to_string()))
}

/// The few Python literals a `.npy` header uses.
#[derive(Debug)]
enum PyValue {
    Str(String),
    Bool(bool),
    Int(i64),
    None,
    Tuple(Vec<PyValue>),
    List(Vec<PyValue>),
    Dict(Vec<(String, PyValue)>),
}

struct PyParser {
    chars: Vec<char>,
    pos: usize,
}

impl PyParser {
    fn skip_ws(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> Error {
        let text: String = self.chars.iter().collect();
        invalid(format!(
            "cannot read the .npy header: expected {what} at character {}: {text:?}",
            self.pos
        ))
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.chars.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<PyValue> {
        if depth > MAX_HEADER_NESTING {
            return Err(self.error("less nesting"));
        }
        self.skip_ws();
        match self.chars.get(self.pos).copied() {
            Some(q @ ('\'' | '"')) => {
                self.pos += 1;
                let mut s = String::new();
                loop {
                    match self.chars.get(self.pos).copied() {
                        Some(c) if c == q => {
                            self.pos += 1;
                            return Ok(PyValue::Str(s));
                        }
                        Some('\\') => {
                            if let Some(&c) = self.chars.get(self.pos + 1) {
                                s.push(c);
                            }
                            self.pos += 2;
                        }
                        Some(c) => {
                            s.push(c);
                            self.pos += 1;
                        }
                        None => return Err(self.error("the end of a string")),
                    }
                }
            }
            Some('{') => {
                self.pos += 1;
                let mut entries = Vec::new();
                loop {
                    if self.eat('}') {
                        return Ok(PyValue::Dict(entries));
                    }
                    let PyValue::Str(key) = self.value(depth + 1)? else {
                        return Err(self.error("a string key"));
                    };
                    if !self.eat(':') {
                        return Err(self.error("':'"));
                    }
                    let value = self.value(depth + 1)?;
                    entries.push((key, value));
                    if !self.eat(',') {
                        if self.eat('}') {
                            return Ok(PyValue::Dict(entries));
                        }
                        return Err(self.error("',' or '}'"));
                    }
                }
            }
            Some(open @ ('(' | '[')) => {
                self.pos += 1;
                let close = if open == '(' { ')' } else { ']' };
                let mut items = Vec::new();
                loop {
                    if self.eat(close) {
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    if !self.eat(',') {
                        if self.eat(close) {
                            break;
                        }
                        return Err(self.error(&format!("',' or '{close}'")));
                    }
                }
                Ok(if open == '(' {
                    PyValue::Tuple(items)
                } else {
                    PyValue::List(items)
                })
            }
            Some(c) if c.is_ascii_digit() || c == '-' => {
                let start = self.pos;
                self.pos += 1;
                while self.chars.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                let text: String = self.chars[start..self.pos].iter().collect();
                // Python 2 wrote long integers as `3L`.
                if self.chars.get(self.pos) == Some(&'L') {
                    self.pos += 1;
                }
                text.parse::<i64>()
                    .map(PyValue::Int)
                    .map_err(|_| self.error("an integer that fits in 64 bits"))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
                let word: String = self.chars[start..self.pos].iter().collect();
                match word.as_str() {
                    "True" => Ok(PyValue::Bool(true)),
                    "False" => Ok(PyValue::Bool(false)),
                    "None" => Ok(PyValue::None),
                    _ => {
                        self.pos = start;
                        Err(self.error("True, False, None, a number, a string, a tuple or a dict"))
                    }
                }
            }
            _ => Err(self.error("a value")),
        }
    }
}
