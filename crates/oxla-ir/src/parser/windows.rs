//! The attributes of the windowed ops as the parser reads them:
//! `window={...}` ([`Window::parse`]), `dim_labels=`
//! ([`ConvolutionDimensionNumbers::from_labels`]), the group counts and
//! `operand_precision={...}`. Errors point into the attribute's text.

use super::{Attrs, CallsFixup, RawOp};
use crate::ir::{
    ComputationId, ConvolutionDimensionNumbers, OpKind, Precision, Window, WindowTextError,
};
use crate::{Error, Result};

impl<'s, 'a> Attrs<'_, 's, 'a> {
    /// The value text of `key` and where it starts, if given.
    fn text(&self, key: &'static str) -> Option<(usize, &'a str)> {
        self.get(key).map(|c| {
            let text: &'a str = c.src.text;
            (c.pos, &text[c.pos..c.end])
        })
    }

    /// A parse error at `offset` into the value of `key` (which starts at
    /// `start`).
    fn text_error(&self, start: usize, key: &str, e: WindowTextError) -> Error {
        self.cursor.err(
            start + e.offset,
            format!("invalid `{key}`: {}", e.message),
            e.expected,
        )
    }

    /// `window={size=3x3 stride=2x2}`; an absent window has no dimensions
    /// (what XLA prints for a window over a scalar).
    fn window(&self) -> Result<Window> {
        let Some((start, text)) = self.text("window") else {
            return Ok(Window::default());
        };
        let inner = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .ok_or_else(|| {
                self.cursor.err(
                    start,
                    "expected '{' to start window attribute",
                    "`window={size=3x3 ...}`",
                )
            })?;
        Window::parse(inner).map_err(|e| self.text_error(start + 1, "window", e))
    }

    /// `dim_labels=b01f_01io->b01f` (required).
    fn dim_labels(&self) -> Result<ConvolutionDimensionNumbers> {
        let (start, text) = self
            .text("dim_labels")
            .ok_or_else(|| self.missing("dim_labels", "b01f_01io->b01f"))?;
        ConvolutionDimensionNumbers::from_labels(text)
            .map_err(|e| self.text_error(start, "dim_labels", e))
    }

    /// An integer attribute that defaults to 1 (`feature_group_count=2`).
    fn count(&self, key: &'static str) -> Result<i64> {
        let Some(mut c) = self.get(key) else {
            return Ok(1);
        };
        let value = c.int(&format!("the value of `{key}`"))?.0;
        c.expect_done(&format!("the value of `{key}`"))?;
        Ok(value)
    }

    /// `operand_precision={default,highest}`: one precision per operand;
    /// absent means the default for both. Every precision is computed at
    /// the element type's full precision; `packed_nibble` is refused.
    fn operand_precision(&self) -> Result<[Precision; 2]> {
        let Some(mut c) = self.get("operand_precision") else {
            return Ok([Precision::Default; 2]);
        };
        c.expect("{", "opening the operand_precision list")?;
        let mut list = Vec::new();
        loop {
            c.skip_ws()?;
            let pos = c.pos;
            let word = c.peek_word();
            let precision = Precision::from_name(word).ok_or_else(|| {
                let message = if word == "packed_nibble" {
                    "operand_precision `packed_nibble` (two 4-bit values per element) is not supported"
                        .to_string()
                } else {
                    format!("unknown operand precision {}", c.found())
                };
                c.err(pos, message, "one of default, high, highest")
            })?;
            c.pos += word.len();
            list.push((precision, pos));
            if c.eat("}")? {
                break;
            }
            c.expect(",", "or `}` in the operand_precision list")?;
        }
        c.expect_done("the operand_precision list")?;
        match list[..] {
            [(a, _), (b, _)] => Ok([a, b]),
            _ => Err(self.cursor.err(
                list.first().map_or(c.pos, |&(_, p)| p),
                format!(
                    "operand_precision lists {} precision(s), but a convolution has 2 operands",
                    list.len()
                ),
                "`operand_precision={p,p}` with one precision per operand",
            )),
        }
    }

    /// `convolution`'s attributes.
    pub(super) fn convolution(&self) -> Result<OpKind> {
        Ok(OpKind::Convolution {
            window: self.window()?,
            dims: self.dim_labels()?,
            feature_group_count: self.count("feature_group_count")?,
            batch_group_count: self.count("batch_group_count")?,
            precision: self.operand_precision()?,
        })
    }

    /// `reduce-window`'s attributes; `to_apply` is resolved later, by name.
    pub(super) fn reduce_window(&self) -> Result<RawOp> {
        Ok(RawOp::Calls {
            kind: OpKind::ReduceWindow {
                window: self.window()?,
                to_apply: ComputationId(0),
            },
            callees: vec![self.name("to_apply")?],
            fixup: CallsFixup::None,
        })
    }

    /// `select-and-scatter`'s attributes; `select` and `scatter` are
    /// resolved later, by name.
    pub(super) fn select_and_scatter(&self) -> Result<RawOp> {
        Ok(RawOp::Calls {
            kind: OpKind::SelectAndScatter {
                window: self.window()?,
                select: ComputationId(0),
                scatter: ComputationId(0),
            },
            callees: vec![self.name("select")?, self.name("scatter")?],
            fixup: CallsFixup::None,
        })
    }
}
