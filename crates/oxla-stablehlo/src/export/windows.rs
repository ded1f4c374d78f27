//! The windowed ops as JAX prints them: `stablehlo.convolution` in its
//! pretty form (`dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//! window = {...}`), `stablehlo.reduce_window` and
//! `stablehlo.select_and_scatter` in the generic form with every attribute
//! spelled out and their computations as regions.
//!
//! Two differences of meaning that the text carries over, as XLA's own
//! HLO-to-StableHLO conversion does: StableHLO's `reduce_window` pads (and
//! fills dilation holes) with the init value where XLA skips those
//! positions, which agrees whenever the init is the reducer's identity
//! (what JAX emits); and `select_and_scatter` has no dilation, so a dilated
//! one is refused.

use oxla_ir::ir::OpKind;
use oxla_ir::{ConvolutionDimensionNumbers, Precision, Shape, Window};

use super::tensor_type;

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
fn dim_numbers(d: &ConvolutionDimensionNumbers) -> String {
    let side = |a: (i64, &str), b: (i64, &str), spatial: &[i64]| -> String {
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
        format!("[{}]", names.join(", "))
    };
    format!(
        "{}x{}->{}",
        side(
            (d.input_batch_dimension, "b"),
            (d.input_feature_dimension, "f"),
            &d.input_spatial_dimensions
        ),
        side(
            (d.kernel_input_feature_dimension, "i"),
            (d.kernel_output_feature_dimension, "o"),
            &d.kernel_spatial_dimensions
        ),
        side(
            (d.output_batch_dimension, "b"),
            (d.output_feature_dimension, "f"),
            &d.output_spatial_dimensions
        )
    )
}

/// `[[1, 0], [0, 2]]`.
fn pad_pairs(window: &Window) -> String {
    let pairs: Vec<String> = window
        .dimensions
        .iter()
        .map(|d| format!("[{}, {}]", d.padding_low, d.padding_high))
        .collect();
    format!("[{}]", pairs.join(", "))
}

/// The text of a `stablehlo.convolution` (after `%v = `) of operands `x`
/// and `w` of shapes `xt`, `wt` into `ty`, or `None` if `kind` is not a
/// convolution.
pub(super) fn convolution(
    (x, xt): (&str, &Shape),
    (w, wt): (&str, &Shape),
    kind: &OpKind,
    ty: &str,
) -> Option<String> {
    let OpKind::Convolution {
        window,
        dims,
        feature_group_count,
        batch_group_count,
        precision,
    } = kind
    else {
        return None;
    };
    let field = |f: fn(&oxla_ir::WindowDim) -> String| -> String {
        let v: Vec<String> = window.dimensions.iter().map(f).collect();
        format!("[{}]", v.join(", "))
    };
    let precision: Vec<String> = precision
        .iter()
        .map(|p| {
            let name = match p {
                Precision::Default => "DEFAULT",
                Precision::High => "HIGH",
                Precision::Highest => "HIGHEST",
            };
            format!("#stablehlo<precision {name}>")
        })
        .collect();
    Some(format!(
        "stablehlo.convolution({x}, {w}) dim_numbers = {}, window = {{stride = {}, pad = {}, \
         lhs_dilate = {}, rhs_dilate = {}, reverse = {}}} {{batch_group_count = {batch_group_count} : i64, \
         feature_group_count = {feature_group_count} : i64, precision_config = [{}]}} : ({}, {}) -> {ty}",
        dim_numbers(dims),
        field(|d| d.stride.to_string()),
        pad_pairs(window),
        field(|d| d.base_dilation.to_string()),
        field(|d| d.window_dilation.to_string()),
        field(|d| d.window_reversal.to_string()),
        precision.join(", "),
        tensor_type(xt),
        tensor_type(wt)
    ))
}

/// `array<i64: 1, 2>` (`array<i64>` when empty).
fn array(values: impl Iterator<Item = i64>) -> String {
    let v: Vec<String> = values.map(|x| x.to_string()).collect();
    if v.is_empty() {
        "array<i64>".into()
    } else {
        format!("array<i64: {}>", v.join(", "))
    }
}

/// `dense<0> : tensor<4x2xi64>` (a splat when every entry is equal).
fn padding(window: &Window) -> String {
    let entries: Vec<i64> = window
        .dimensions
        .iter()
        .flat_map(|d| [d.padding_low, d.padding_high])
        .collect();
    let value = match entries.first() {
        None => String::new(),
        Some(first) if entries.iter().all(|e| e == first) => first.to_string(),
        Some(_) => pad_pairs(window),
    };
    format!("dense<{value}> : tensor<{}x2xi64>", window.rank())
}

/// The head (`"stablehlo.reduce_window"(%a, %b) <{...}>`, to which the
/// caller appends ` ({`) and the tail (`: (types) -> type`, after the
/// regions) of a reduce-window, or `None` if `kind` is not one.
pub(super) fn reduce_window(
    operands: &[(&str, &Shape)],
    kind: &OpKind,
    ty: &str,
) -> Option<(String, String)> {
    let OpKind::ReduceWindow { window, .. } = kind else {
        return None;
    };
    let d = &window.dimensions;
    let head = format!(
        "\"stablehlo.reduce_window\"({}) <{{base_dilations = {}, padding = {}, window_dilations = {}, \
         window_dimensions = {}, window_strides = {}}}>",
        names(operands),
        array(d.iter().map(|d| d.base_dilation)),
        padding(window),
        array(d.iter().map(|d| d.window_dilation)),
        array(d.iter().map(|d| d.size)),
        array(d.iter().map(|d| d.stride)),
    );
    Some((head, format!(": ({}) -> {ty}", types(operands))))
}

/// Like [`reduce_window`] for a select-and-scatter: `Err` with the reason
/// when StableHLO cannot say it (dilation).
pub(super) fn select_and_scatter(
    operands: &[(&str, &Shape)],
    kind: &OpKind,
    ty: &str,
) -> Option<Result<(String, String), String>> {
    let OpKind::SelectAndScatter { window, .. } = kind else {
        return None;
    };
    if window.has_dilation() {
        return Some(Err(format!(
            "stablehlo.select_and_scatter has no dilation, but the window is {{{window}}}"
        )));
    }
    let d = &window.dimensions;
    let head = format!(
        "\"stablehlo.select_and_scatter\"({}) <{{padding = {}, window_dimensions = {}, \
         window_strides = {}}}>",
        names(operands),
        padding(window),
        array(d.iter().map(|d| d.size)),
        array(d.iter().map(|d| d.stride)),
    );
    Some(Ok((head, format!(": ({}) -> {ty}", types(operands)))))
}

fn names(operands: &[(&str, &Shape)]) -> String {
    operands
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

fn types(operands: &[(&str, &Shape)]) -> String {
    operands
        .iter()
        .map(|(_, s)| tensor_type(s))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim_numbers_print_as_mlir_does() {
        let d = ConvolutionDimensionNumbers::from_labels("b01f_01io->b01f").unwrap();
        assert_eq!(dim_numbers(&d), "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
        let d = ConvolutionDimensionNumbers::from_labels("bf_oi->bf").unwrap();
        assert_eq!(dim_numbers(&d), "[b, f]x[o, i]->[b, f]");
        let w = Window::from_dimensions(&[3, 3], &[], &[(0, 1), (0, 1)], &[], &[]).unwrap();
        assert_eq!(padding(&w), "dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>");
        assert_eq!(padding(&Window::default()), "dense<> : tensor<0x2xi64>");
        let w = Window::from_dimensions(&[1, 2], &[], &[], &[], &[]).unwrap();
        assert_eq!(padding(&w), "dense<0> : tensor<2x2xi64>");
    }
}
