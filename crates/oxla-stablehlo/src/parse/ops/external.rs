//! The ops of code outside the module and of ordering: `stablehlo.after_all`
//! (a token ordered after its operands), read into HLO's `after-all`, and
//! `stablehlo.custom_call`, read into HLO's `custom-call` with the
//! attributes the exporter writes (`api_version`, a string
//! `backend_config`, `has_side_effect`), in the order written; any other
//! attribute is refused by name (the reader refuses attributes it does not
//! read), never dropped.
//! Tokens carry no values; the IR keeps them so that the module prints
//! back as it was written.

use oxla_ir::ir::{InstId, OpKind};
use oxla_ir::{CustomCall, CustomCallApiVersion, Result};

use super::super::syntax::Attr;

use super::super::lower::OpCx;

/// `stablehlo.after_all`: a token ordered after its operands (tokens, or
/// any values as HLO allows).
pub(super) fn after_all(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(cx.operands.len(), 1)?;
    let r = cx.results[0].clone();
    let operands = cx.operands.clone();
    Ok(vec![cx.push(OpKind::AfterAll, operands, &r)?])
}

/// HLO's escaped form of a string the MLIR reader unescaped (HLO keeps a
/// custom-call's target and `backend_config` as written between quotes).
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// `stablehlo.custom_call @target(%a, ...) {api_version = 4 : i32,
/// backend_config = "...", has_side_effect = true}` (or the generic form's
/// `call_target_name = "target"`): HLO's `custom-call`, which both
/// backends refuse to run (it names code outside the module), read so
/// that `check`, `dump` and `convert` take the module.
pub(super) fn custom_call(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(cx.operands.len(), 1)?;
    let target = match cx.attr("callee") {
        Some(a) => match &a.attr {
            Attr::Symbol(s) => s.clone(),
            _ => return Err(cx.err(a.pos, "the target must be a symbol", "@target")),
        },
        None => match &cx
            .required("call_target_name", "call_target_name = \"target\"")?
            .attr
        {
            Attr::Str(s) => s.clone(),
            _ => {
                return Err(cx.err(
                    cx.op.pos,
                    "`call_target_name` must be a string",
                    "call_target_name = \"target\"",
                ));
            }
        },
    };
    let mut call = CustomCall::new(&escaped(&target));
    for named in &cx.op.attrs {
        let (key, a) = (named.key.as_str(), &named.value);
        match key {
            "api_version" => {
                let version = match a.attr {
                    Attr::Int(1) => CustomCallApiVersion::Original,
                    Attr::Int(2) => CustomCallApiVersion::StatusReturning,
                    Attr::Int(3) => CustomCallApiVersion::StatusReturningUnified,
                    Attr::Int(4) => CustomCallApiVersion::TypedFfi,
                    _ => {
                        return Err(cx.err(
                            a.pos,
                            "`api_version` must be 1, 2, 3 or 4",
                            "api_version = 4 : i32",
                        ));
                    }
                };
                call.api_version = version;
                call.attributes
                    .push(("api_version".into(), version.name().into()));
            }
            "backend_config" => match &a.attr {
                Attr::Str(s) => call
                    .attributes
                    .push(("backend_config".into(), format!("\"{}\"", escaped(s)))),
                _ => {
                    return Err(cx.err(
                        a.pos,
                        "only a string `backend_config` is read (a dictionary has no HLO \
                         text form oxla keeps)",
                        "backend_config = \"...\"",
                    ));
                }
            },
            "has_side_effect" => match a.attr {
                Attr::Bool(b) => call
                    .attributes
                    .push(("custom_call_has_side_effect".into(), b.to_string())),
                _ => {
                    return Err(cx.err(a.pos, "`has_side_effect` must be a boolean", "true"));
                }
            },
            // Any other attribute stays unread: the reader refuses it by name.
            _ => continue,
        }
    }
    cx.read(&["api_version", "backend_config", "has_side_effect"]);
    let r = cx.results[0].clone();
    let operands = cx.operands.clone();
    Ok(vec![cx.push(
        OpKind::CustomCall(Box::new(call)),
        operands,
        &r,
    )?])
}
