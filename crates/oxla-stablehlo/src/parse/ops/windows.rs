//! The windowed ops: `convolution` (pretty and generic forms),
//! `reduce_window` and `select_and_scatter`.
//!
//! Their attributes become the IR's [`Window`] (one [`oxla_ir::WindowDim`] per
//! spatial dimension for a convolution, per operand dimension for the
//! others), and `dimension_numbers` XLA's `dim_labels` (StableHLO's
//! `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` spells the same labels). As
//! XLA's own StableHLO-to-HLO conversion does, `reduce_window`'s padding
//! reads as XLA's: the two agree whenever the init value is the reducer's
//! identity, which is what JAX emits.

use oxla_ir::ir::{InstId, OpKind};
use oxla_ir::{ConvolutionDimensionNumbers, Precision, Result, Window};

use super::super::lower::OpCx;
use super::super::syntax::Attr;
use super::ctrl::{packed, regions};

/// `window_dimensions` and the optional fields of a `reduce_window` or
/// `select_and_scatter` (strides, base and window dilations, padding).
fn window(cx: &mut OpCx<'_, '_, '_, '_>, dilations: bool) -> Result<Window> {
    let sizes = cx.ints("window_dimensions", "window_dimensions = array<i64: 1, 2>")?;
    let strides = cx.opt_ints("window_strides", "window_strides = array<i64: 1, 2>")?;
    let (base, win) = if dilations {
        (
            cx.opt_ints("base_dilations", "base_dilations = array<i64: 1, 1>")?,
            cx.opt_ints("window_dilations", "window_dilations = array<i64: 1, 1>")?,
        )
    } else {
        (None, None)
    };
    let padding = cx.opt_pairs("padding", "padding = dense<0> : tensor<2x2xi64>")?;
    build_window(
        cx,
        &sizes,
        &strides.unwrap_or_default(),
        &padding.unwrap_or_default(),
        &base.unwrap_or_default(),
        &win.unwrap_or_default(),
    )
}

fn build_window(
    cx: &OpCx<'_, '_, '_, '_>,
    sizes: &[i64],
    strides: &[i64],
    padding: &[(i64, i64)],
    base: &[i64],
    win: &[i64],
) -> Result<Window> {
    Window::from_dimensions(sizes, strides, padding, base, win).map_err(|e| {
        cx.err(
            cx.op.pos,
            e.to_string(),
            "one entry per window dimension in every field",
        )
    })
}

/// `stablehlo.reduce_window`: `n` inputs and `n` init values, `n` results.
pub(in crate::parse) fn reduce_window(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let total = cx.operands.len();
    if total == 0 || !total.is_multiple_of(2) {
        return Err(cx.err(
            cx.op.pos,
            format!("has {total} operand(s), not inputs and as many init values"),
            "inputs, then one init value per input",
        ));
    }
    let n = total / 2;
    cx.arity(total, n)?;
    let window = window(cx, true)?;
    regions(cx, 1, "one reducer region")?;
    let to_apply = cx.region_body(0, "reducer")?;
    let shape = packed(&cx.results);
    let r = cx.push(
        OpKind::ReduceWindow { window, to_apply },
        cx.operands.clone(),
        &shape,
    )?;
    cx.unpack(r, n)
}

/// `stablehlo.select_and_scatter`: operand, source, init; a select and a
/// scatter region.
pub(in crate::parse) fn select_and_scatter(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 1)?;
    let window = window(cx, false)?;
    regions(cx, 2, "a select and a scatter region")?;
    let select = cx.region_body(0, "select")?;
    let scatter = cx.region_body(1, "scatter")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::SelectAndScatter {
            window,
            select,
            scatter,
        },
        cx.operands.clone(),
        &r,
    )?])
}

/// `dimension_numbers`: `#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>`
/// (what the pretty form's `dim_numbers` also gives), or its `raw` form of
/// named fields.
fn conv_dims(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<ConvolutionDimensionNumbers> {
    const EXAMPLE: &str = "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";
    let a = cx.required("dimension_numbers", EXAMPLE)?;
    let Attr::Dialect(start, end) = a.attr else {
        return Err(cx.err(
            a.pos,
            "`dimension_numbers` must be #stablehlo.conv<...>",
            EXAMPLE,
        ));
    };
    let text = cx.source_text(start, end);
    if let Some(raw) = text.trim_start().strip_prefix("raw") {
        let offset = end - raw.len();
        return raw_conv_dims(cx, offset, end);
    }
    let labels: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, ',' | '['))
        .collect::<String>()
        .replace("]x", "_")
        .replace(']', "");
    ConvolutionDimensionNumbers::from_labels(&labels).map_err(|e| {
        cx.err(
            a.pos,
            format!("invalid dimension numbers `{}`: {}", text.trim(), e.message),
            EXAMPLE,
        )
    })
}

/// `#stablehlo.conv<raw input_batch_dimension = 0, ...>`.
fn raw_conv_dims(
    cx: &mut OpCx<'_, '_, '_, '_>,
    start: usize,
    end: usize,
) -> Result<ConvolutionDimensionNumbers> {
    let mut d = ConvolutionDimensionNumbers::default();
    for p in cx.parse_params(start, end)? {
        let example = "input_batch_dimension = 0";
        let one = |cx: &OpCx<'_, '_, '_, '_>| -> Result<i64> {
            match cx.int_list(&p.value, &p.key, example) {
                Ok(v) if v.len() == 1 => Ok(v[0]),
                _ => match &p.value.attr {
                    Attr::Int(v) => i64::try_from(*v)
                        .map_err(|_| cx.err(p.pos, format!("`{}` is too large", p.key), example)),
                    _ => Err(cx.err(p.pos, format!("`{}` must be an integer", p.key), example)),
                },
            }
        };
        match p.key.as_str() {
            "input_batch_dimension" => d.input_batch_dimension = one(cx)?,
            "input_feature_dimension" => d.input_feature_dimension = one(cx)?,
            "input_spatial_dimensions" => {
                d.input_spatial_dimensions = cx.int_list(&p.value, &p.key, "[1, 2]")?
            }
            "kernel_input_feature_dimension" => d.kernel_input_feature_dimension = one(cx)?,
            "kernel_output_feature_dimension" => d.kernel_output_feature_dimension = one(cx)?,
            "kernel_spatial_dimensions" => {
                d.kernel_spatial_dimensions = cx.int_list(&p.value, &p.key, "[0, 1]")?
            }
            "output_batch_dimension" => d.output_batch_dimension = one(cx)?,
            "output_feature_dimension" => d.output_feature_dimension = one(cx)?,
            "output_spatial_dimensions" => {
                d.output_spatial_dimensions = cx.int_list(&p.value, &p.key, "[1, 2]")?
            }
            other => {
                return Err(cx.err(
                    p.pos,
                    format!("unknown convolution dimension field `{other}`"),
                    "input_/kernel_/output_ dimension fields",
                ));
            }
        }
    }
    Ok(d)
}

/// `precision_config`: one precision per operand (absent: the defaults).
fn precisions(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<[Precision; 2]> {
    let Some(a) = cx.attr("precision_config") else {
        return Ok([Precision::Default; 2]);
    };
    let Attr::Array(items) = &a.attr else {
        return Err(cx.err(
            a.pos,
            "precision_config must be a list",
            "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]",
        ));
    };
    let mut out = Vec::new();
    for item in items {
        let w = cx.word_of(item);
        let p = Precision::from_name(&w.to_ascii_lowercase()).ok_or_else(|| {
            cx.err(
                item.pos,
                format!("unknown precision `{w}`"),
                "DEFAULT, HIGH or HIGHEST",
            )
        })?;
        out.push(p);
    }
    match out.as_slice() {
        [] => Ok([Precision::Default; 2]),
        &[a, b] => Ok([a, b]),
        _ => Err(cx.err(
            a.pos,
            format!(
                "precision_config lists {} precisions for 2 operands",
                out.len()
            ),
            "one precision per operand",
        )),
    }
}

/// A group count, 1 when absent.
fn count(cx: &mut OpCx<'_, '_, '_, '_>, key: &str) -> Result<i64> {
    if cx.attr(key).is_none() {
        return Ok(1);
    }
    cx.int(key, &format!("{key} = 1 : i64"))
}

/// `stablehlo.convolution`, either form: the window's sizes are the
/// kernel's spatial dimensions.
pub(in crate::parse) fn convolution(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let dims = conv_dims(cx)?;
    let kernel = cx.shape(cx.operands[1]);
    let sizes: Vec<i64> = dims
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .and_then(|d| kernel.dims().get(d).copied())
                .ok_or_else(|| {
                    cx.err(
                        cx.op.pos,
                        format!("the kernel {kernel} has no dimension {d}"),
                        "kernel spatial dimensions within the kernel's rank",
                    )
                })
        })
        .collect::<Result<_>>()?;
    let strides = cx.opt_ints("window_strides", "window_strides = array<i64: 1, 1>")?;
    let padding = cx.opt_pairs("padding", "padding = dense<0> : tensor<2x2xi64>")?;
    let lhs = cx.opt_ints("lhs_dilation", "lhs_dilation = array<i64: 1, 1>")?;
    let rhs = cx.opt_ints("rhs_dilation", "rhs_dilation = array<i64: 1, 1>")?;
    let reversal = cx.opt_bools(
        "window_reversal",
        "window_reversal = array<i1: false, false>",
    )?;
    let mut window = build_window(
        cx,
        &sizes,
        &strides.unwrap_or_default(),
        &padding.unwrap_or_default(),
        &lhs.unwrap_or_default(),
        &rhs.unwrap_or_default(),
    )?;
    if let Some(rev) = reversal {
        if rev.len() != sizes.len() {
            return Err(cx.err(
                cx.op.pos,
                format!(
                    "window_reversal has {} entries for {} spatial dimensions",
                    rev.len(),
                    sizes.len()
                ),
                "one entry per spatial dimension",
            ));
        }
        for (d, r) in window.dimensions.iter_mut().zip(rev) {
            d.window_reversal = r;
        }
    }
    let feature_group_count = count(cx, "feature_group_count")?;
    let batch_group_count = count(cx, "batch_group_count")?;
    let precision = precisions(cx)?;
    let r = cx.results[0].clone();
    let kind = OpKind::Convolution {
        window,
        dims,
        feature_group_count,
        batch_group_count,
        precision,
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}
