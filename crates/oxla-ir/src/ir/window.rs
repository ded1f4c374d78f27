//! The attributes of the windowed ops (`convolution`, `reduce-window`,
//! `select-and-scatter`): a [`Window`] of [`WindowDim`]s and a
//! convolution's [`ConvolutionDimensionNumbers`], with their HLO spellings
//! (`window={size=3x3 stride=2x2 pad=1_1x0_2}`, `dim_labels=b01f_01io->b01f`).
//!
//! These types hold what the text says, valid or not: shape inference
//! ([`crate::shape_inference::infer_convolution_shape`] and its siblings)
//! is what checks them against the operands, in XLA's order. The text
//! readers here refuse only what cannot be represented (a malformed token,
//! a field given twice, fields of different lengths), with XLA's wording.
//!
//! How a window places its positions over one base dimension of size `n`
//! (XLA's semantics, shared by all three ops): the base is first dilated
//! (`base_dilation - 1` holes between neighbours, so
//! `(n - 1) * base_dilation + 1` positions), then padded by `padding_low`
//! and `padding_high` (negative padding removes positions). Output index `o`
//! places the window at `o * stride`; window element `k` then reads padded
//! position `o * stride + k * window_dilation`. Positions on padding or on a
//! hole hold no base element.

use crate::error::{Error, Result};
use crate::op_problem::OpProblem;

/// One dimension of a [`Window`]. [`WindowDim::new`] gives XLA's defaults
/// for everything but the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowDim {
    /// How many elements the window covers (before window dilation).
    pub size: i64,
    /// How far consecutive windows are apart, in dilated padded positions.
    pub stride: i64,
    /// Positions added before the dilated base (removed when negative).
    pub padding_low: i64,
    /// Positions added after the dilated base (removed when negative).
    pub padding_high: i64,
    /// Base (lhs) dilation: `base_dilation - 1` holes between base elements.
    pub base_dilation: i64,
    /// Window (rhs) dilation: the window's elements are this far apart.
    pub window_dilation: i64,
    /// `convolution` only: the kernel is read backwards along this dimension.
    pub window_reversal: bool,
}

impl WindowDim {
    /// A dimension of `size` with stride 1, no padding, no dilation, no
    /// reversal.
    pub fn new(size: i64) -> WindowDim {
        WindowDim {
            size,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            base_dilation: 1,
            window_dilation: 1,
            window_reversal: false,
        }
    }
}

/// A window: one [`WindowDim`] per spatial dimension (convolution) or per
/// operand dimension (reduce-window, select-and-scatter).
///
/// ```
/// use oxla_ir::Window;
/// let w = Window::from_dimensions(&[3, 3], &[2, 2], &[(1, 1), (0, 2)], &[], &[])?;
/// assert_eq!(w.dimensions[1].padding_high, 2);
/// assert_eq!(w.to_string(), "size=3x3 stride=2x2 pad=1_1x0_2");
/// let err = Window::from_dimensions(&[3, 3], &[2], &[], &[], &[]).unwrap_err();
/// assert!(err.to_string().contains("Window has different number of window dimensions than of window strides"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Window {
    /// The dimensions, in order.
    pub dimensions: Vec<WindowDim>,
}

impl Window {
    /// A window of the given dimensions.
    pub fn new(dimensions: Vec<WindowDim>) -> Window {
        Window { dimensions }
    }

    /// XLA's `MakeWindow`/`InferWindowFromDimensions`: one entry per
    /// dimension in `sizes`; each other list is either empty (the default
    /// everywhere) or as long as `sizes`. `padding` is `(low, high)`.
    pub fn from_dimensions(
        sizes: &[i64],
        strides: &[i64],
        padding: &[(i64, i64)],
        base_dilation: &[i64],
        window_dilation: &[i64],
    ) -> Result<Window> {
        for (field, count) in [
            ("window strides", strides.len()),
            ("padding entries", padding.len()),
            ("lhs dilation factors", base_dilation.len()),
            ("rhs dilation factors", window_dilation.len()),
        ] {
            if count != 0 && count != sizes.len() {
                return Err(Error::InvalidOp {
                    op: "window".into(),
                    problem: OpProblem::WindowFieldCount {
                        field: field.into(),
                        dimensions: sizes.len(),
                        count,
                    },
                });
            }
        }
        let at = |v: &[i64], i: usize| v.get(i).copied().unwrap_or(1);
        let dimensions = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                let (padding_low, padding_high) = padding.get(i).copied().unwrap_or((0, 0));
                WindowDim {
                    size,
                    stride: at(strides, i),
                    padding_low,
                    padding_high,
                    base_dilation: at(base_dilation, i),
                    window_dilation: at(window_dilation, i),
                    window_reversal: false,
                }
            })
            .collect();
        Ok(Window { dimensions })
    }

    /// How many dimensions the window has.
    pub fn rank(&self) -> usize {
        self.dimensions.len()
    }

    /// The sizes, one per dimension.
    pub fn sizes(&self) -> Vec<i64> {
        self.dimensions.iter().map(|d| d.size).collect()
    }

    /// `true` if some dimension has base or window dilation.
    pub fn has_dilation(&self) -> bool {
        self.dimensions
            .iter()
            .any(|d| d.base_dilation != 1 || d.window_dilation != 1)
    }

    /// `true` if some dimension is reversed.
    pub fn has_reversal(&self) -> bool {
        self.dimensions.iter().any(|d| d.window_reversal)
    }

    /// Reads XLA's spelling, the text between the braces of `window={...}`:
    /// `size=3x3 stride=2x2 pad=1_1x0_2 lhs_dilate=1x2 rhs_dilate=2x1
    /// rhs_reversal=0x1`, fields in any order, `size` required. On failure:
    /// the byte offset in `text`, the message and what was expected there.
    pub fn parse(text: &str) -> std::result::Result<Window, WindowTextError> {
        window_text::parse(text)
    }
}

/// XLA's spelling of a window (the inside of `window={...}`): `size` always,
/// every other field only where some dimension differs from its default.
impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let field = |f: &mut std::fmt::Formatter<'_>,
                     first: bool,
                     name: &str,
                     value: &dyn Fn(&WindowDim) -> String|
         -> std::fmt::Result {
            if !first {
                f.write_str(" ")?;
            }
            let parts: Vec<String> = self.dimensions.iter().map(value).collect();
            write!(f, "{name}={}", parts.join("x"))
        };
        let any = |p: &dyn Fn(&WindowDim) -> bool| self.dimensions.iter().any(p);
        if self.dimensions.is_empty() {
            return Ok(());
        }
        field(f, true, "size", &|d| d.size.to_string())?;
        if any(&|d| d.stride != 1) {
            field(f, false, "stride", &|d| d.stride.to_string())?;
        }
        if any(&|d| d.padding_low != 0 || d.padding_high != 0) {
            field(f, false, "pad", &|d| {
                format!("{}_{}", d.padding_low, d.padding_high)
            })?;
        }
        if any(&|d| d.base_dilation != 1) {
            field(f, false, "lhs_dilate", &|d| d.base_dilation.to_string())?;
        }
        if any(&|d| d.window_dilation != 1) {
            field(f, false, "rhs_dilate", &|d| d.window_dilation.to_string())?;
        }
        if any(&|d| d.window_reversal) {
            field(f, false, "rhs_reversal", &|d| {
                u8::from(d.window_reversal).to_string()
            })?;
        }
        Ok(())
    }
}

/// Why a window's or a `dim_labels` text does not read: where, what, and
/// what would have been accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowTextError {
    /// Byte offset of the problem in the text read.
    pub offset: usize,
    /// What is wrong (XLA's wording where XLA has one).
    pub message: String,
    /// What would have been accepted.
    pub expected: String,
}

/// Which dimension of a convolution's input, kernel and output is which
/// (XLA's `ConvolutionDimensionNumbers`). Spatial lists are in spatial
/// order: spatial dimension `i` of the input is convolved with spatial
/// dimension `i` of the kernel and gives spatial dimension `i` of the
/// output, and window dimension `i` describes it.
///
/// ```
/// use oxla_ir::ConvolutionDimensionNumbers;
/// let d = ConvolutionDimensionNumbers::from_labels("b01f_01io->b01f").unwrap();
/// assert_eq!((d.input_batch_dimension, d.input_feature_dimension), (0, 3));
/// assert_eq!(d.kernel_spatial_dimensions, vec![0, 1]);
/// assert_eq!(d.labels(), "b01f_01io->b01f");
/// assert!(ConvolutionDimensionNumbers::from_labels("bb0_0io->b0f").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ConvolutionDimensionNumbers {
    /// The input's batch dimension.
    pub input_batch_dimension: i64,
    /// The input's feature dimension.
    pub input_feature_dimension: i64,
    /// The input's spatial dimensions.
    pub input_spatial_dimensions: Vec<i64>,
    /// The kernel's input-feature dimension.
    pub kernel_input_feature_dimension: i64,
    /// The kernel's output-feature dimension.
    pub kernel_output_feature_dimension: i64,
    /// The kernel's spatial dimensions.
    pub kernel_spatial_dimensions: Vec<i64>,
    /// The output's batch dimension.
    pub output_batch_dimension: i64,
    /// The output's feature dimension.
    pub output_feature_dimension: i64,
    /// The output's spatial dimensions.
    pub output_spatial_dimensions: Vec<i64>,
}

impl ConvolutionDimensionNumbers {
    /// Reads XLA's `dim_labels` spelling, `<lhs>_<rhs>-><out>`: the
    /// character at position `p` names what dimension `p` is: `b` (batch),
    /// `f` (feature), `i`/`o` (the kernel's input and output features) or a
    /// digit (a spatial dimension). All three parts have the same length,
    /// each names every dimension once.
    pub fn from_labels(text: &str) -> std::result::Result<Self, WindowTextError> {
        window_text::parse_dim_labels(text)
    }

    /// What each dimension of the input, the kernel and the output is, by
    /// position: `b`/`f` (`i`/`o` for the kernel), or a spatial
    /// dimension's index; `?` where no field names the position. Fields
    /// out of range are left out (the verifier reports them).
    ///
    /// ```
    /// use oxla_ir::ConvolutionDimensionNumbers;
    /// let d = ConvolutionDimensionNumbers::from_labels("bf01_oi01->b01f").unwrap();
    /// let [_, _, out] = d.names();
    /// assert_eq!(out, ["b", "0", "1", "f"]);
    /// ```
    pub fn names(&self) -> [Vec<String>; 3] {
        let side = |a: (i64, &str), b: (i64, &str), spatial: &[i64]| -> Vec<String> {
            let mut names = vec!["?".to_string(); spatial.len() + 2];
            let mut put = |d: i64, name: String| {
                if let Some(slot) = usize::try_from(d).ok().and_then(|d| names.get_mut(d)) {
                    *slot = name;
                }
            };
            put(a.0, a.1.to_string());
            put(b.0, b.1.to_string());
            for (i, &d) in spatial.iter().enumerate() {
                put(d, i.to_string());
            }
            names
        };
        [
            side(
                (self.input_batch_dimension, "b"),
                (self.input_feature_dimension, "f"),
                &self.input_spatial_dimensions,
            ),
            side(
                (self.kernel_input_feature_dimension, "i"),
                (self.kernel_output_feature_dimension, "o"),
                &self.kernel_spatial_dimensions,
            ),
            side(
                (self.output_batch_dimension, "b"),
                (self.output_feature_dimension, "f"),
                &self.output_spatial_dimensions,
            ),
        ]
    }

    /// XLA's `dim_labels` spelling (`b01f_01io->b01f`), from
    /// [`ConvolutionDimensionNumbers::names`]; a spatial dimension past the
    /// tenth has no digit and prints as `?`, as a position no field names.
    pub fn labels(&self) -> String {
        let [lhs, rhs, out] = self.names().map(|side| {
            side.iter()
                .map(|n| if n.len() == 1 { n.as_str() } else { "?" })
                .collect::<String>()
        });
        format!("{lhs}_{rhs}->{out}")
    }

    /// The numbers as lists, for messages about numbers `labels` cannot
    /// show: `input {b=0, f=3, spatial={1,2}}, kernel {...}, output {...}`.
    pub fn describe(&self) -> String {
        use crate::shape::dims_text;
        format!(
            "input {{b={}, f={}, spatial={}}}, kernel {{i={}, o={}, spatial={}}}, output {{b={}, f={}, spatial={}}}",
            self.input_batch_dimension,
            self.input_feature_dimension,
            dims_text(&self.input_spatial_dimensions),
            self.kernel_input_feature_dimension,
            self.kernel_output_feature_dimension,
            dims_text(&self.kernel_spatial_dimensions),
            self.output_batch_dimension,
            self.output_feature_dimension,
            dims_text(&self.output_spatial_dimensions)
        )
    }
}

/// The text readers, kept apart from the types.
mod window_text {
    use super::{ConvolutionDimensionNumbers, Window, WindowDim, WindowTextError};

    fn error(offset: usize, message: impl Into<String>, expected: &str) -> WindowTextError {
        WindowTextError {
            offset,
            message: message.into(),
            expected: expected.into(),
        }
    }

    /// `3x3` (or `1_1x0_2` with `pairs`): integers joined by `x`, each a
    /// pair joined by `_` when `pairs`.
    fn dxd(
        value: &str,
        at: usize,
        name: &str,
        pairs: bool,
    ) -> Result<Vec<(i64, i64)>, WindowTextError> {
        let mut out = Vec::new();
        let mut offset = at;
        for part in value.split('x') {
            let numbers: Vec<&str> = part.split('_').collect();
            let parsed: Option<Vec<i64>> = numbers.iter().map(|n| n.parse::<i64>().ok()).collect();
            match (parsed.as_deref(), pairs) {
                (Some(&[v]), false) => out.push((v, 0)),
                (Some(&[lo, hi]), true) => out.push((lo, hi)),
                _ if pairs => {
                    return Err(error(
                        offset,
                        format!(
                            "expects padding_low and padding_high separated by '_', found `{part}`"
                        ),
                        "`low_high` per dimension, e.g. `pad=0_0x1_2`",
                    ));
                }
                _ => {
                    return Err(error(
                        offset,
                        format!("expects sub-attribute '{name}=ixj...', found `{part}`"),
                        "integers joined by `x`, e.g. `3x3`",
                    ));
                }
            }
            offset += part.len() + 1;
        }
        Ok(out)
    }

    pub(super) fn parse(text: &str) -> Result<Window, WindowTextError> {
        const FIELDS: [&str; 6] = [
            "size",
            "stride",
            "pad",
            "lhs_dilate",
            "rhs_dilate",
            "rhs_reversal",
        ];
        let mut values: [Option<Vec<(i64, i64)>>; 6] = Default::default();
        let mut pos = 0;
        for word in text.split_ascii_whitespace() {
            // Offsets of words: found in order in `text`.
            let at = pos + text[pos..].find(word).unwrap_or(0);
            pos = at + word.len();
            let Some((name, value)) = word.split_once('=') else {
                return Err(error(
                    at,
                    format!("expects sub-attributes in window, found `{word}`"),
                    "`name=value` with a name among size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal",
                ));
            };
            let Some(k) = FIELDS.iter().position(|f| *f == name) else {
                return Err(error(
                    at,
                    format!("unexpected attribute name: {name}"),
                    "one of size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal",
                ));
            };
            if values[k].is_some() {
                return Err(error(
                    at,
                    format!("sub-attribute '{name}=' already exists"),
                    "each sub-attribute once",
                ));
            }
            let parsed = dxd(value, at + name.len() + 1, name, name == "pad")?;
            if name == "rhs_reversal"
                && let Some(i) = parsed.iter().position(|&(v, _)| v != 0 && v != 1)
            {
                return Err(error(
                    at + name.len() + 1,
                    format!(
                        "rhs_reversal must be 0 or 1 per dimension, but dimension {i} has {}",
                        parsed[i].0
                    ),
                    "0 or 1 per dimension",
                ));
            }
            values[k] = Some(parsed);
        }
        let [size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal] = values;
        let Some(size) = size else {
            return Err(error(
                0,
                "sub-attribute 'size=' is required in the window attribute",
                "`size=` with one size per window dimension",
            ));
        };
        for (name, field) in [
            ("stride", &stride),
            ("pad", &pad),
            ("lhs_dilate", &lhs_dilate),
            ("rhs_dilate", &rhs_dilate),
            ("rhs_reversal", &rhs_reversal),
        ] {
            if field.as_ref().is_some_and(|v| v.len() != size.len()) {
                return Err(error(
                    0,
                    format!("expects '{name}=' has the same size as 'size='"),
                    "one entry per window dimension in every field",
                ));
            }
        }
        let at = |f: &Option<Vec<(i64, i64)>>, i: usize, default: (i64, i64)| {
            f.as_ref()
                .and_then(|v| v.get(i))
                .copied()
                .unwrap_or(default)
        };
        let dimensions = (0..size.len())
            .map(|i| {
                let (padding_low, padding_high) = at(&pad, i, (0, 0));
                WindowDim {
                    size: size[i].0,
                    stride: at(&stride, i, (1, 0)).0,
                    padding_low,
                    padding_high,
                    base_dilation: at(&lhs_dilate, i, (1, 0)).0,
                    window_dilation: at(&rhs_dilate, i, (1, 0)).0,
                    window_reversal: at(&rhs_reversal, i, (0, 0)).0 == 1,
                }
            })
            .collect();
        Ok(Window { dimensions })
    }

    pub(super) fn parse_dim_labels(
        text: &str,
    ) -> Result<ConvolutionDimensionNumbers, WindowTextError> {
        const EXAMPLE: &str = "dim labels such as `b01f_01io->b01f`";
        let Some((sides, out)) = text.split_once("->") else {
            return Err(error(
                0,
                format!("expects dim labels pattern, e.g., 'bf0_0io->0bf', found `{text}`"),
                EXAMPLE,
            ));
        };
        let Some((lhs, rhs)) = sides.split_once('_') else {
            return Err(error(
                0,
                format!("expects 3 items: lhs, rhs, and output dims, but sees {text}"),
                EXAMPLE,
            ));
        };
        let rank = lhs.len();
        if rank != rhs.len() || rank != out.len() || out.contains('_') {
            return Err(error(
                0,
                "convolution lhs, rhs, and output must have the same rank",
                EXAMPLE,
            ));
        }
        if rank < 2 {
            return Err(error(0, "convolution rank must >=2", EXAMPLE));
        }
        let spatial = rank - 2;
        // One side: the positions of its two letters and of each digit.
        let side = |s: &str,
                    offset: usize,
                    name: &str,
                    letters: [char; 2]|
         -> Result<(i64, i64, Vec<i64>), WindowTextError> {
            let mut seen = std::collections::HashSet::new();
            if !s.chars().all(|c| seen.insert(c)) {
                return Err(error(
                    offset,
                    format!("expects unique {name} dimension numbers, but sees {s}"),
                    "each dimension named once",
                ));
            }
            let mut a = -1;
            let mut b = -1;
            let mut digits = vec![-1; spatial];
            for (i, c) in s.chars().enumerate() {
                let slot = c
                    .to_digit(10)
                    .and_then(|d| digits.get_mut(d as usize))
                    .map(|slot| *slot = i as i64);
                if c == letters[0] {
                    a = i as i64;
                } else if c == letters[1] {
                    b = i as i64;
                } else if slot.is_none() {
                    let digits = if spatial == 0 {
                        String::new()
                    } else {
                        format!("0-{}", spatial - 1)
                    };
                    return Err(error(
                        offset + i,
                        format!(
                            "expects [{digits}{}{}] in {name} dimension numbers, found `{c}`",
                            letters[0], letters[1]
                        ),
                        "a letter of the side or a spatial dimension's digit",
                    ));
                }
            }
            Ok((a, b, digits))
        };
        let (ib, if_, is) = side(lhs, 0, "lhs", ['b', 'f'])?;
        let (ki, ko, ks) = side(rhs, lhs.len() + 1, "rhs", ['i', 'o'])?;
        let (ob, of, os) = side(out, sides.len() + 2, "output", ['b', 'f'])?;
        Ok(ConvolutionDimensionNumbers {
            input_batch_dimension: ib,
            input_feature_dimension: if_,
            input_spatial_dimensions: is,
            kernel_input_feature_dimension: ki,
            kernel_output_feature_dimension: ko,
            kernel_spatial_dimensions: ks,
            output_batch_dimension: ob,
            output_feature_dimension: of,
            output_spatial_dimensions: os,
        })
    }
}
