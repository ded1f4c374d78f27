//! `chlo.ragged_dot`, which is how StableHLO carries HLO's `ragged-dot`
//! (StableHLO proper has no ragged dot): `"chlo.ragged_dot"(%lhs, %rhs,
//! %group_sizes) {ragged_dot_dimension_numbers = #chlo.ragged_dot<...>,
//! precision_config = [...]}`, read back into the one HLO op.

use oxla_ir::ir::{InstId, OpKind};
use oxla_ir::{RaggedDotDimensionNumbers, Result};

use super::super::lower::OpCx;
use super::super::syntax::NamedAttr;
use super::precision;

/// `chlo.ragged_dot`: the dot's four lists and the ragged and group
/// dimensions, each `[]` when not written.
pub(super) fn chlo_ragged_dot(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 1)?;
    let a = cx.required(
        "ragged_dot_dimension_numbers",
        "#chlo.ragged_dot<lhs_contracting_dimensions = [1], ...>",
    )?;
    let params: Vec<NamedAttr> = cx.params(a)?;
    let mut dims = RaggedDotDimensionNumbers::default();
    for p in &params {
        let list = cx.int_list(&p.value, &p.key, "[0, 1]")?;
        match p.key.as_str() {
            "lhs_batching_dimensions" => dims.dot.lhs_batch = list,
            "rhs_batching_dimensions" => dims.dot.rhs_batch = list,
            "lhs_contracting_dimensions" => dims.dot.lhs_contracting = list,
            "rhs_contracting_dimensions" => dims.dot.rhs_contracting = list,
            "lhs_ragged_dimensions" => dims.lhs_ragged = list,
            "rhs_group_dimensions" => dims.rhs_group = list,
            k => {
                return Err(cx.err(
                    p.pos,
                    format!("unknown ragged dot dimension field `{k}`"),
                    "lhs_/rhs_ batching/contracting dimensions, lhs_ragged_dimensions, \
                     rhs_group_dimensions",
                ));
            }
        }
    }
    precision(cx)?;
    let r = cx.results[0].clone();
    let operands = cx.operands.clone();
    Ok(vec![cx.push(OpKind::RaggedDot { dims }, operands, &r)?])
}
