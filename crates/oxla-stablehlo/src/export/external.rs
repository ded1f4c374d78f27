//! `custom-call` and the token ops in StableHLO: `stablehlo.custom_call`
//! with the attributes StableHLO has for it (the target, `backend_config`
//! as a string, `has_side_effect`, `api_version`), and
//! `stablehlo.after_all` on `!stablehlo.token`s. What StableHLO cannot say
//! is refused with a reason, never dropped: a custom-call's other
//! attributes (called computations, layout constraints, aliasing, a
//! dictionary `backend_config`, ...), tuple operands or results, and
//! `add-dependency` (an HLO-only op).

use oxla_ir::{CustomCall, CustomCallApiVersion};

/// The op text (after `%v = `) of a custom-call whose operands are
/// `(name, type)` pairs, each an array, and whose result type is `ty`; or
/// why it cannot be exported.
pub(super) fn custom_call(
    call: &CustomCall,
    operands: &[(String, String)],
    ty: &str,
) -> Result<String, String> {
    if !call.called_computations.is_empty() {
        return Err("a custom-call with called computations is not exported".into());
    }
    let version = match call.api_version {
        CustomCallApiVersion::Original => 1,
        CustomCallApiVersion::StatusReturning => 2,
        CustomCallApiVersion::StatusReturningUnified => 3,
        CustomCallApiVersion::TypedFfi => 4,
    };
    // `api_version` where it was written (the reader keeps the order, so
    // the module prints back as written), else at the end unless it is
    // StableHLO's default (1).
    let written = call.attributes.iter().any(|(k, _)| k == "api_version");
    let mut attrs = Vec::new();
    for (key, value) in &call.attributes {
        match key.as_str() {
            "api_version" => attrs.push(format!("api_version = {version} : i32")),
            "backend_config" if value.starts_with('"') => {
                attrs.push(format!("backend_config = {value}"));
            }
            "custom_call_has_side_effect" => attrs.push(format!("has_side_effect = {value}")),
            other => {
                return Err(format!(
                    "the custom-call attribute `{other}={value}` has no StableHLO form oxla \
                     writes"
                ));
            }
        }
    }
    if !written && version != 1 {
        attrs.push(format!("api_version = {version} : i32"));
    }
    let (names, types): (Vec<&str>, Vec<&str>) = operands
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .unzip();
    let attrs = if attrs.is_empty() {
        String::new()
    } else {
        format!(" {{{}}}", attrs.join(", "))
    };
    Ok(format!(
        "stablehlo.custom_call @\"{}\"({}){attrs} : ({}) -> {ty}",
        call.target,
        names.join(", "),
        types.join(", ")
    ))
}

/// The op text of an `after-all` of `tokens`.
pub(super) fn after_all(tokens: &[&str]) -> String {
    if tokens.is_empty() {
        return "stablehlo.after_all : !stablehlo.token".into();
    }
    format!(
        "stablehlo.after_all {} : {}",
        tokens.join(", "),
        vec!["!stablehlo.token"; tokens.len()].join(", ")
    )
}
