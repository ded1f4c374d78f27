//! The indexing ops: `gather`, `scatter` (variadic too), `dynamic_slice`
//! and `dynamic_update_slice`, in the forms JAX prints (generic for gather
//! and scatter, with `#stablehlo.gather<...>`/`#stablehlo.scatter<...>`
//! dimension numbers; pretty for the dynamic slices).

use oxla_ir::Result;
use oxla_ir::ir::{GatherDimensionNumbers, InstId, OpKind, ScatterDimensionNumbers};

use super::super::lower::OpCx;
use super::super::syntax::{Attr, NamedAttr};
use super::ctrl::{packed, regions};

/// The `key = value` fields of a dimension-numbers attribute, each an
/// integer list but `index_vector_dim`.
fn dimension_fields(
    cx: &mut OpCx<'_, '_, '_, '_>,
    key: &str,
    example: &str,
) -> Result<(Vec<NamedAttr>, i64)> {
    let a = cx.required(key, example)?;
    let params = cx.params(a)?;
    let mut index_vector_dim = 0;
    let mut lists = Vec::new();
    for p in params {
        if p.key == "index_vector_dim" {
            index_vector_dim = match p.value.attr {
                Attr::Int(v) => i64::try_from(v).map_err(|_| {
                    cx.err(
                        p.pos,
                        "`index_vector_dim` is too large",
                        "index_vector_dim = 1",
                    )
                })?,
                _ => {
                    return Err(cx.err(
                        p.pos,
                        "`index_vector_dim` must be an integer",
                        "index_vector_dim = 1",
                    ));
                }
            };
        } else {
            lists.push(p);
        }
    }
    Ok((lists, index_vector_dim))
}

/// `stablehlo.gather`.
pub(in crate::parse) fn gather(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let example = "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>";
    let (fields, index_vector_dim) = dimension_fields(cx, "dimension_numbers", example)?;
    let mut dims = GatherDimensionNumbers {
        index_vector_dim,
        ..GatherDimensionNumbers::default()
    };
    for p in &fields {
        let list = cx.int_list(&p.value, &p.key, "[0, 1]")?;
        match p.key.as_str() {
            "offset_dims" => dims.offset_dims = list,
            "collapsed_slice_dims" => dims.collapsed_slice_dims = list,
            "operand_batching_dims" => dims.operand_batching_dims = list,
            "start_indices_batching_dims" => dims.start_indices_batching_dims = list,
            "start_index_map" => dims.start_index_map = list,
            other => {
                return Err(cx.err(
                    p.pos,
                    format!("unknown gather dimension field `{other}`"),
                    "offset_dims, collapsed_slice_dims, operand_batching_dims, start_indices_batching_dims, start_index_map or index_vector_dim",
                ));
            }
        }
    }
    let slice_sizes = cx.ints("slice_sizes", "slice_sizes = array<i64: 1, 8>")?;
    let indices_are_sorted = cx.flag("indices_are_sorted")?;
    let r = cx.results[0].clone();
    let kind = OpKind::Gather {
        dims,
        slice_sizes,
        indices_are_sorted,
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}

/// `stablehlo.scatter`: `n` inputs, the indices, `n` updates; `n` results.
pub(in crate::parse) fn scatter(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let total = cx.operands.len();
    if total < 3 || total % 2 != 1 {
        return Err(cx.err(
            cx.op.pos,
            format!("has {total} operand(s), not inputs, the indices and one update per input"),
            "inputs, the scatter indices, then one update per input",
        ));
    }
    let n = total / 2;
    cx.arity(total, n)?;
    let example = "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>";
    let (fields, index_vector_dim) = dimension_fields(cx, "scatter_dimension_numbers", example)?;
    let mut dims = ScatterDimensionNumbers {
        index_vector_dim,
        ..ScatterDimensionNumbers::default()
    };
    for p in &fields {
        let list = cx.int_list(&p.value, &p.key, "[0, 1]")?;
        match p.key.as_str() {
            "update_window_dims" => dims.update_window_dims = list,
            "inserted_window_dims" => dims.inserted_window_dims = list,
            "input_batching_dims" => dims.input_batching_dims = list,
            "scatter_indices_batching_dims" => dims.scatter_indices_batching_dims = list,
            "scatter_dims_to_operand_dims" => dims.scatter_dims_to_operand_dims = list,
            other => {
                return Err(cx.err(
                    p.pos,
                    format!("unknown scatter dimension field `{other}`"),
                    "update_window_dims, inserted_window_dims, input_batching_dims, scatter_indices_batching_dims, scatter_dims_to_operand_dims or index_vector_dim",
                ));
            }
        }
    }
    let indices_are_sorted = cx.flag("indices_are_sorted")?;
    let unique_indices = cx.flag("unique_indices")?;
    regions(cx, 1, "one update computation region")?;
    let to_apply = cx.region_body(0, "update computation")?;
    let shape = packed(&cx.results);
    let kind = OpKind::Scatter {
        dims,
        indices_are_sorted,
        unique_indices,
        to_apply,
    };
    let s = cx.push(kind, cx.operands.clone(), &shape)?;
    cx.unpack(s, n)
}

/// `stablehlo.dynamic_slice`: the operand, one scalar start per dimension.
pub(in crate::parse) fn dynamic_slice(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(cx.operands.len().max(1), 1)?;
    scalar_starts(cx, 1)?;
    let slice_sizes = cx.ints("slice_sizes", "sizes = [1, 2]")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::DynamicSlice { slice_sizes },
        cx.operands.clone(),
        &r,
    )?])
}

/// `stablehlo.dynamic_update_slice`: the operand, the update, one scalar
/// start per dimension.
pub(in crate::parse) fn dynamic_update_slice(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(cx.operands.len().max(2), 1)?;
    scalar_starts(cx, 2)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::DynamicUpdateSlice,
        cx.operands.clone(),
        &r,
    )?])
}

/// StableHLO's start indices are scalars, one per dimension (XLA's older
/// single index vector is HLO only).
fn scalar_starts(cx: &OpCx<'_, '_, '_, '_>, first: usize) -> Result<()> {
    for (k, &v) in cx.operands.iter().enumerate().skip(first) {
        let s = cx.shape(v);
        if !s.is_scalar() {
            return Err(cx.err(
                cx.op.operands[k].pos,
                format!("start index {} is {s}, not a scalar", k - first),
                "one scalar start index per dimension",
            ));
        }
    }
    Ok(())
}
