//! `custom-call`'s attributes, read as XLA's parser reads them. Every
//! attribute XLA accepts on a custom-call is validated by its kind (a
//! string, a word from a list, a boolean, an integer, shapes, a literal,
//! a braced group) and kept as written in [`CustomCall::attributes`], so
//! the printer gives it back; `api_version` and
//! `operand_layout_constraints` are also read into fields, checked by
//! shape inference. Any other attribute is `unexpected`, as on every op.

use super::{Attrs, CallsFixup, Cursor, RawOp};
use crate::ir::{ComputationId, CustomCall, CustomCallApiVersion, OpKind};
use crate::{Literal, Result, Shape};

/// The attributes of a custom-call kept as written, beyond the target and
/// the called computations. `backend_config` is here too: on a custom-call
/// it is the target's input, not a hint.
const KEPT: &[&str] = &[
    "api_version",
    "backend_config",
    "custom_call_has_side_effect",
    "operand_layout_constraints",
    "output_to_operand_aliasing",
    "schedule",
    "literal",
    "window",
    "dim_labels",
    "feature_group_count",
    "batch_group_count",
    "operand_precision",
    "padding_type",
    "custom_call_schedule",
];

impl Attrs<'_, '_, '_> {
    /// The op of a `custom-call`.
    pub(super) fn custom_call(&self) -> Result<RawOp> {
        let target = self
            .read("custom_call_target", |c| {
                let start = c.pos;
                c.string("the custom-call target")?;
                let text = c.sub(start, c.pos).rest().trim();
                Ok(text[1..text.len() - 1].to_string())
            })?
            .ok_or_else(|| self.missing("custom_call_target", "\"name\""))?;
        let mut call = CustomCall::new(&target);
        let callees = if self
            .attrs
            .iter()
            .any(|a| a.key.name == "called_computations")
        {
            self.names("called_computations")?
        } else if self.attrs.iter().any(|a| a.key.name == "to_apply") {
            vec![self.name("to_apply")?]
        } else {
            Vec::new()
        };
        // In the order written.
        for a in &self.attrs {
            let Some(&key) = KEPT.iter().find(|k| **k == a.key.name) else {
                continue;
            };
            let Some(mut c) = self.get(key) else { continue };
            let text = c.rest().trim().to_string();
            match key {
                "api_version" => call.api_version = api_version(&mut c)?,
                "backend_config" => {
                    c.skip_ws()?;
                    if c.peek() == Some(b'{') {
                        c.braced_group(key)?;
                    } else {
                        c.string("the backend config")?;
                    }
                }
                "custom_call_has_side_effect" => {
                    c.boolean(key)?;
                }
                "operand_layout_constraints" => {
                    let mut shapes = Vec::new();
                    c.list("{", "}", "the operand layout constraints", |c| {
                        shapes.push(c.shape(0)?.0);
                        Ok(())
                    })?;
                    call.operand_layout_constraints = Some(shapes);
                }
                "schedule" | "custom_call_schedule" => {
                    let (word, pos) = c.word("a custom-call schedule")?;
                    if !matches!(
                        word,
                        "SCHEDULE_NONE" | "SCHEDULE_LATEST" | "SCHEDULE_EARLIEST"
                    ) {
                        return Err(c.err(
                            pos,
                            format!("Unknown schedule {word}"),
                            "SCHEDULE_NONE, SCHEDULE_LATEST or SCHEDULE_EARLIEST",
                        ));
                    }
                }
                "literal" => {
                    layout_literal(&mut c, 0)?;
                }
                "feature_group_count" | "batch_group_count" => {
                    c.int(key)?;
                }
                "dim_labels" | "padding_type" => {
                    c.skip_ws()?;
                    let start = c.pos;
                    while c.peek().is_some_and(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'?' | b'-' | b'>')
                    }) {
                        c.pos += 1;
                    }
                    if c.pos == start {
                        return Err(c.err(start, format!("expected a value for `{key}`"), key));
                    }
                }
                // `window={size=2x2}`, `operand_precision={high,default}`,
                // `output_to_operand_aliasing={{0}: (1, {})}`.
                _ => c.braced_group(key)?,
            }
            c.expect_done(&format!("the value of `{key}`"))?;
            call.attributes.push((key.to_string(), text));
        }
        if callees.is_empty() {
            return Ok(RawOp::Kind(OpKind::CustomCall(Box::new(call))));
        }
        call.called_computations = vec![ComputationId(0); callees.len()];
        Ok(RawOp::Calls {
            kind: OpKind::CustomCall(Box::new(call)),
            callees,
            fixup: CallsFixup::None,
        })
    }
}

/// `api_version=API_VERSION_TYPED_FFI`, with XLA's errors for an unknown
/// name and for `API_VERSION_UNSPECIFIED`.
fn api_version(c: &mut Cursor<'_, '_>) -> Result<CustomCallApiVersion> {
    let (word, pos) = c.word("an API version")?;
    let names: Vec<&str> = CustomCallApiVersion::ALL.iter().map(|v| v.name()).collect();
    CustomCallApiVersion::from_name(word).ok_or_else(|| {
        let message = if word == "API_VERSION_UNSPECIFIED" {
            "Invalid API version: API_VERSION_UNSPECIFIED".to_string()
        } else {
            format!("Unknown API version {word}")
        };
        c.err(pos, message, format!("one of {}", names.join(", ")))
    })
}

/// A literal as a custom-call's `literal=` writes it: a shape with its
/// layout and the values, or a tuple of them in parentheses.
fn layout_literal(c: &mut Cursor<'_, '_>, depth: usize) -> Result<Literal> {
    c.skip_ws()?;
    if c.eat("(")? {
        let mut elements = Vec::new();
        if !c.eat(")")? {
            loop {
                elements.push(layout_literal(c, depth + 1)?);
                if c.eat(")")? {
                    break;
                }
                c.expect(",", "or `)` in the tuple literal")?;
            }
        }
        return Ok(Literal::tuple(elements));
    }
    let (shape, _): (Shape, usize) = c.shape_with(depth, true)?;
    c.literal(&shape, depth)
}
