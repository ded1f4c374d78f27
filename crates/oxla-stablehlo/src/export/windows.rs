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
    let [lhs, rhs, out] = d.names().map(|side| format!("[{}]", side.join(", ")));
    format!("{lhs}x{rhs}->{out}")
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

    /// A max-pool and its gradient as JAX prints them (jax 0.10.2), but for
    /// JAX's no-op pad before the select-and-scatter and MLIR's spacing of
    /// `compare`, which the exporter prints as it does everywhere: regions
    /// numbered from the parent's final counters, each sibling region from
    /// the same counters, block arguments after the function's.
    #[test]
    fn pools_print_as_jax_prints_them() {
        let text = "\
HloModule pools

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY pools {
  x = f32[1,4,4,2] parameter(0)
  ninf = f32[] constant(-inf)
  p = f32[1,2,2,2] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max
  zero = f32[] constant(0)
  g = f32[1,4,4,2] select-and-scatter(x, p, zero), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x0_1x1_0x0_0}, select=ge, scatter=add
  ROOT t = (f32[1,2,2,2], f32[1,4,4,2]) tuple(p, g)
}
";
        let comp = match oxla_ir::parse_hlo_module(text) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let mlir = match crate::to_stablehlo(&comp) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let want = "\
module @pools attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32> {jax.result_info = \"result[0]\"}, tensor<1x4x4x2xf32> {jax.result_info = \"result[1]\"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = \"stablehlo.reduce_window\"(%arg0, %cst) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = \"stablehlo.select_and_scatter\"(%arg0, %0, %cst_0) <{padding = dense<[[0, 0], [0, 1], [1, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.compare GE, %arg1, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    }, {
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x4x4x2xf32>
    return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>
  }
}
";
        assert_eq!(mlir, want);
    }

    #[test]
    fn a_dilated_select_and_scatter_is_refused() {
        let text = "HloModule d\n\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                    ROOT c = pred[] compare(a, b), direction=GE\n}\n\nENTRY d {\n  \
                    x = f32[2] parameter(0)\n  g = f32[2] parameter(1)\n  z = f32[] parameter(2)\n  \
                    ROOT s = f32[2] select-and-scatter(x, g, z), window={size=2 lhs_dilate=2}, \
                    select=ge, scatter=ge2\n}\n";
        // `scatter` must be a reducer: build the module with one.
        let text = text.replace(
            "\n\nENTRY",
            "\n\nge2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
             ROOT s = f32[] add(a, b)\n}\n\nENTRY",
        );
        let comp = match oxla_ir::parse_hlo_module(&text) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        match crate::to_stablehlo(&comp) {
            Err(crate::ExportError::Unsupported {
                instruction,
                reason,
                ..
            }) => {
                assert_eq!(instruction, "s");
                assert!(reason.contains("no dilation"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

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
