//! The ops of code outside the module and of ordering: `stablehlo.after_all`
//! (a token ordered after its operands), read into HLO's `after-all`.
//! Tokens carry no values; the IR keeps them so that the module prints
//! back as it was written.

use oxla_ir::Result;
use oxla_ir::ir::{InstId, OpKind};

use super::super::lower::OpCx;

/// `stablehlo.after_all`: a token ordered after its operands (tokens, or
/// any values as HLO allows).
pub(super) fn after_all(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(cx.operands.len(), 1)?;
    let r = cx.results[0].clone();
    let operands = cx.operands.clone();
    Ok(vec![cx.push(OpKind::AfterAll, operands, &r)?])
}
