//! The HLO text printer: the only source of oxla's text format.
//!
//! The output is XLA's short-form HLO text: `HloModule name,
//! entry_computation_layout={...}`, then the called computations (reducers),
//! then the one marked `ENTRY`; one instruction per line as
//! `name = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}`, with the root
//! prefixed `ROOT `. Array shapes carry the default row-major layout
//! (`{1,0}`); scalars carry none. A binary op prints its
//! `broadcast_dimensions` only when it has some (equal-rank and scalar
//! operands have none), so a computation without InDim broadcasting is valid
//! XLA text as it stands; [`crate::passes::expand_broadcasts()`] turns any
//! computation into that form.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, Shape};
//! let mut b = Builder::new("example");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
//! let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
//! let y = b.add(x, v, &[1])?;
//! let text = b.build(y)?.to_hlo_text();
//! assert_eq!(text, "\
//! HloModule example, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2,3]{1,0}}
//!
//! ENTRY example {
//!   x = f32[2,3]{1,0} parameter(0)
//!   v = f32[3]{0} parameter(1)
//!   ROOT add.2 = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
//! }
//! ");
//! # Ok::<(), oxla_ir::Error>(())
//! ```

use std::fmt::Write;

use crate::ir::{Body, ComputationId, Instruction, OpKind, PadDim, Precision, Window};
use crate::shape::dims_text;
use crate::{ComparisonOrder, ComparisonType, Computation, Shape};

/// A shape with its default (row-major) layout: `f32[2,3]{1,0}`, `f32[]`,
/// `(f32[2]{0}, s32[])`.
pub(crate) fn shape_with_layout(shape: &Shape) -> String {
    if shape.is_tuple() {
        let parts: Vec<String> = shape.tuple_shapes().iter().map(shape_with_layout).collect();
        return format!("({})", parts.join(", "));
    }
    if shape.rank() == 0 {
        return shape.to_string();
    }
    let layout: Vec<i64> = (0..shape.rank() as i64).rev().collect();
    format!("{shape}{}", dims_text(&layout))
}

/// The whole module as HLO text (ends with a newline).
pub(crate) fn print_computation(comp: &Computation) -> String {
    let mut out = String::new();
    // Broken computations print too (the verifier's reports show them):
    // no bodies, or a root out of range, only shorten the header.
    let Some(entry) = comp.bodies().last() else {
        let _ = writeln!(out, "HloModule {}", comp.name());
        return out;
    };
    let params: Vec<String> = entry
        .parameter_shapes()
        .iter()
        .map(shape_with_layout)
        .collect();
    let result = entry
        .instructions
        .get(entry.root.index())
        .map_or_else(|| "<no root>".to_string(), |r| shape_with_layout(&r.shape));
    let _ = writeln!(
        out,
        "HloModule {}, entry_computation_layout={{({})->{result}}}",
        comp.name(),
        params.join(", "),
    );
    let n = comp.bodies().len();
    for (i, body) in comp.bodies().iter().enumerate() {
        out.push('\n');
        print_body(&mut out, comp, body, i + 1 == n);
    }
    out
}

/// Prints `body` in definition order, but for its root, which comes last
/// (as XLA prints it) unless a later instruction reads it: a body whose
/// root is not its last instruction (a StableHLO function returning a
/// parameter, with tokens made after it) would otherwise open with
/// `ROOT`. The parser keeps the source order of independent instructions,
/// so the printed text reads back into a body that prints the same.
fn print_body(out: &mut String, comp: &Computation, body: &Body, is_entry: bool) {
    let prefix = if is_entry { "ENTRY " } else { "" };
    let _ = writeln!(out, "{prefix}{} {{", body.name);
    let root = body.root.index();
    let root_read_later = body
        .instructions
        .iter()
        .skip(root + 1)
        .any(|inst| inst.operands.contains(&body.root));
    let line = |out: &mut String, i: usize, inst: &Instruction| {
        let marker = if i == root { "ROOT " } else { "" };
        let _ = writeln!(out, "  {marker}{}", instruction_text(comp, body, inst));
    };
    for (i, inst) in body.instructions.iter().enumerate() {
        if i != root || root_read_later {
            line(out, i, inst);
        }
    }
    if !root_read_later && let Some(inst) = body.instructions.get(root) {
        line(out, root, inst);
    }
    out.push_str("}\n");
}

/// One instruction as HLO text, without indentation or `ROOT`:
/// `add.2 = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}`.
pub fn instruction_text(comp: &Computation, body: &Body, inst: &Instruction) -> String {
    let mut s = format!(
        "{} = {} {}(",
        inst.name,
        shape_with_layout(&inst.shape),
        inst.kind.opcode_name()
    );
    let operands: Vec<&str> = inst
        .operands
        .iter()
        .map(|id| {
            body.instructions
                .get(id.index())
                .map(|o| o.name.as_str())
                .unwrap_or("<invalid operand>")
        })
        .collect();
    match &inst.kind {
        OpKind::Parameter { number } => {
            let _ = write!(s, "{number})");
        }
        OpKind::Constant { literal } => {
            let _ = write!(s, "{})", literal.values_text());
        }
        OpKind::Iota { .. }
        | OpKind::Unary(_)
        | OpKind::Binary { .. }
        | OpKind::Convert
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Broadcast { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Concatenate { .. }
        | OpKind::Reverse { .. }
        | OpKind::Pad { .. }
        | OpKind::Reduce { .. }
        | OpKind::DotGeneral { .. }
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Map { .. }
        | OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Gather { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Complex
        | OpKind::Real
        | OpKind::Imag
        | OpKind::Fft { .. }
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. }
        | OpKind::Rng { .. }
        | OpKind::RngBitGenerator { .. }
        | OpKind::Cholesky { .. }
        | OpKind::TriangularSolve { .. }
        | OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. }
        | OpKind::CustomCall(_)
        | OpKind::AfterAll
        | OpKind::AddDependency
        | OpKind::StochasticConvert
        | OpKind::RngGetAndUpdateState { .. }
        | OpKind::RaggedDot { .. } => {
            s.push_str(&operands.join(", "));
            s.push(')');
        }
    }
    for (key, value) in attributes(comp, body, inst) {
        let _ = write!(s, ", {key}={value}");
    }
    // A custom-call's other attributes, as written (`CustomCall::attributes`).
    if let OpKind::CustomCall(call) = &inst.kind {
        for (key, value) in &call.attributes {
            let _ = write!(s, ", {key}={value}");
        }
    }
    s
}

/// The name of body `id`, for a `to_apply=`-like attribute.
fn computation_name(comp: &Computation, id: ComputationId) -> String {
    comp.bodies()
        .get(id.index())
        .map(|b| b.name.clone())
        .unwrap_or_else(|| format!("<invalid computation {}>", id.0))
}

/// The `key=value` attributes of an op, in print order (XLA's).
fn attributes(comp: &Computation, body: &Body, inst: &Instruction) -> Vec<(&'static str, String)> {
    match &inst.kind {
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Reshape
        | OpKind::Tuple
        | OpKind::OptimizationBarrier
        | OpKind::DynamicUpdateSlice
        | OpKind::Complex
        | OpKind::Real
        | OpKind::Imag
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::AfterAll
        | OpKind::AddDependency
        | OpKind::StochasticConvert => vec![],
        OpKind::RngGetAndUpdateState { delta } => vec![("delta", delta.to_string())],
        // XLA's order: the dot's lists as for `dot`, then the ragged and
        // group dimensions when there are any.
        OpKind::RaggedDot { dims } => {
            let dot = &dims.dot;
            let mut attrs = vec![];
            if !dot.lhs_batch.is_empty() {
                attrs.push(("lhs_batch_dims", dims_text(&dot.lhs_batch)));
            }
            attrs.push(("lhs_contracting_dims", dims_text(&dot.lhs_contracting)));
            if !dot.rhs_batch.is_empty() {
                attrs.push(("rhs_batch_dims", dims_text(&dot.rhs_batch)));
            }
            attrs.push(("rhs_contracting_dims", dims_text(&dot.rhs_contracting)));
            if !dims.lhs_ragged.is_empty() {
                attrs.push(("lhs_ragged_dims", dims_text(&dims.lhs_ragged)));
            }
            if !dims.rhs_group.is_empty() {
                attrs.push(("rhs_group_dims", dims_text(&dims.rhs_group)));
            }
            attrs
        }
        // XLA's order: the target, then the called computations (`to_apply`
        // for one); the rest follow as written.
        OpKind::CustomCall(call) => {
            let mut attrs = vec![("custom_call_target", format!("\"{}\"", call.target))];
            match call.called_computations[..] {
                [] => {}
                [one] => attrs.push(("to_apply", computation_name(comp, one))),
                _ => {
                    let names: Vec<String> = call
                        .called_computations
                        .iter()
                        .map(|&b| computation_name(comp, b))
                        .collect();
                    attrs.push(("called_computations", format!("{{{}}}", names.join(", "))));
                }
            }
            attrs
        }
        OpKind::Fft {
            fft_type,
            fft_length,
        } => vec![
            ("fft_type", fft_type.to_string()),
            ("fft_length", dims_text(fft_length)),
        ],
        OpKind::Iota { dimension } => vec![("iota_dimension", dimension.to_string())],
        OpKind::Binary {
            op,
            broadcast_dimensions,
        } => {
            let mut attrs = vec![];
            if let crate::ir::BinaryOp::Compare(dir, order) = op {
                attrs.push(("direction", dir.name().to_string()));
                // XLA prints the type only when it is not the element
                // type's default, which in the IR is `Natural`.
                match order {
                    ComparisonOrder::Natural => {}
                    ComparisonOrder::Total => {
                        attrs.push(("type", ComparisonType::TotalOrder.to_string()));
                    }
                }
            }
            if !broadcast_dimensions.is_empty() {
                attrs.push(("broadcast_dimensions", dims_text(broadcast_dimensions)));
            }
            attrs
        }
        OpKind::Broadcast { dimensions } => vec![("dimensions", dims_text(dimensions))],
        OpKind::Transpose { permutation } => vec![("dimensions", dims_text(permutation))],
        OpKind::Slice {
            starts,
            limits,
            strides,
        } => {
            let parts: Vec<String> = starts
                .iter()
                .zip(limits)
                .zip(strides)
                .map(|((s, l), st)| {
                    if *st == 1 {
                        format!("[{s}:{l}]")
                    } else {
                        format!("[{s}:{l}:{st}]")
                    }
                })
                .collect();
            vec![("slice", format!("{{{}}}", parts.join(", ")))]
        }
        OpKind::Concatenate { dimension } => vec![("dimensions", dims_text(&[*dimension]))],
        OpKind::Reverse { dimensions } => vec![("dimensions", dims_text(dimensions))],
        OpKind::Pad { config } => vec![("padding", padding_text(config))],
        OpKind::Reduce {
            dimensions,
            to_apply,
        }
        | OpKind::Map {
            dimensions,
            to_apply,
        } => vec![
            ("dimensions", dims_text(dimensions)),
            ("to_apply", computation_name(comp, *to_apply)),
        ],
        OpKind::GetTupleElement { index } => vec![("index", index.to_string())],
        OpKind::While { condition, body } => vec![
            ("condition", computation_name(comp, *condition)),
            ("body", computation_name(comp, *body)),
        ],
        OpKind::Conditional { branches } => {
            // XLA prints the form the selector's type calls for.
            let pred_selector = inst
                .operands
                .first()
                .and_then(|id| body.instructions.get(id.index()))
                .is_some_and(|s| s.shape.element_type().is_pred());
            match branches[..] {
                [on_true, on_false] if pred_selector => vec![
                    ("true_computation", computation_name(comp, on_true)),
                    ("false_computation", computation_name(comp, on_false)),
                ],
                _ => {
                    let names: Vec<String> = branches
                        .iter()
                        .map(|&b| computation_name(comp, b))
                        .collect();
                    vec![("branch_computations", format!("{{{}}}", names.join(", ")))]
                }
            }
        }
        // -- sort and top-k (the sort family), in XLA's order --
        OpKind::Sort {
            dimension,
            is_stable,
            to_apply,
        } => {
            let mut attrs = vec![("dimensions", dims_text(&[*dimension]))];
            if *is_stable {
                attrs.push(("is_stable", "true".to_string()));
            }
            attrs.push(("to_apply", computation_name(comp, *to_apply)));
            attrs
        }
        OpKind::TopK { k, largest } => {
            vec![("k", k.to_string()), ("largest", largest.to_string())]
        }
        OpKind::DotGeneral { dims } => {
            let mut attrs = vec![];
            if !dims.lhs_batch.is_empty() {
                attrs.push(("lhs_batch_dims", dims_text(&dims.lhs_batch)));
            }
            attrs.push(("lhs_contracting_dims", dims_text(&dims.lhs_contracting)));
            if !dims.rhs_batch.is_empty() {
                attrs.push(("rhs_batch_dims", dims_text(&dims.rhs_batch)));
            }
            attrs.push(("rhs_contracting_dims", dims_text(&dims.rhs_contracting)));
            attrs
        }
        // -- the windows family: XLA's order and defaults --
        OpKind::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
            precision,
        } => {
            let mut attrs = window_attribute(window);
            attrs.push(("dim_labels", dims.labels()));
            if *feature_group_count != 1 {
                attrs.push(("feature_group_count", feature_group_count.to_string()));
            }
            if *batch_group_count != 1 {
                attrs.push(("batch_group_count", batch_group_count.to_string()));
            }
            if precision.iter().any(|p| *p != Precision::Default) {
                let p: Vec<&str> = precision.iter().map(|p| p.name()).collect();
                attrs.push(("operand_precision", format!("{{{}}}", p.join(","))));
            }
            attrs
        }
        OpKind::ReduceWindow { window, to_apply } => {
            let mut attrs = window_attribute(window);
            attrs.push(("to_apply", computation_name(comp, *to_apply)));
            attrs
        }
        OpKind::SelectAndScatter {
            window,
            select,
            scatter,
        } => {
            let mut attrs = window_attribute(window);
            attrs.push(("select", computation_name(comp, *select)));
            attrs.push(("scatter", computation_name(comp, *scatter)));
            attrs
        }
        // -- indexing: XLA's attribute order; batching lists only when
        // non-empty, the promises only when true.
        OpKind::Gather {
            dims,
            slice_sizes,
            indices_are_sorted,
        } => {
            let mut attrs = vec![
                ("offset_dims", dims_text(&dims.offset_dims)),
                (
                    "collapsed_slice_dims",
                    dims_text(&dims.collapsed_slice_dims),
                ),
                ("start_index_map", dims_text(&dims.start_index_map)),
            ];
            if !dims.operand_batching_dims.is_empty() {
                attrs.push((
                    "operand_batching_dims",
                    dims_text(&dims.operand_batching_dims),
                ));
            }
            if !dims.start_indices_batching_dims.is_empty() {
                attrs.push((
                    "start_indices_batching_dims",
                    dims_text(&dims.start_indices_batching_dims),
                ));
            }
            attrs.push(("index_vector_dim", dims.index_vector_dim.to_string()));
            attrs.push(("slice_sizes", dims_text(slice_sizes)));
            if *indices_are_sorted {
                attrs.push(("indices_are_sorted", "true".into()));
            }
            attrs
        }
        OpKind::Scatter {
            dims,
            indices_are_sorted,
            unique_indices,
            to_apply,
        } => {
            let mut attrs = vec![
                ("update_window_dims", dims_text(&dims.update_window_dims)),
                (
                    "inserted_window_dims",
                    dims_text(&dims.inserted_window_dims),
                ),
                (
                    "scatter_dims_to_operand_dims",
                    dims_text(&dims.scatter_dims_to_operand_dims),
                ),
            ];
            if !dims.input_batching_dims.is_empty() {
                attrs.push(("input_batching_dims", dims_text(&dims.input_batching_dims)));
            }
            if !dims.scatter_indices_batching_dims.is_empty() {
                attrs.push((
                    "scatter_indices_batching_dims",
                    dims_text(&dims.scatter_indices_batching_dims),
                ));
            }
            attrs.push(("index_vector_dim", dims.index_vector_dim.to_string()));
            if *indices_are_sorted {
                attrs.push(("indices_are_sorted", "true".into()));
            }
            if *unique_indices {
                attrs.push(("unique_indices", "true".into()));
            }
            attrs.push(("to_apply", computation_name(comp, *to_apply)));
            attrs
        }
        OpKind::DynamicSlice { slice_sizes } => {
            vec![("dynamic_slice_sizes", dims_text(slice_sizes))]
        }
        // The misc family, as XLA prints them: options of protos (cholesky,
        // triangular-solve) only where they differ from the default.
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => vec![
            ("exponent_bits", exponent_bits.to_string()),
            ("mantissa_bits", mantissa_bits.to_string()),
        ],
        OpKind::Rng { distribution } => vec![("distribution", distribution.name().to_string())],
        OpKind::RngBitGenerator { algorithm } => vec![("algorithm", algorithm.name().to_string())],
        OpKind::Cholesky { lower } => {
            if *lower {
                vec![("lower", "true".to_string())]
            } else {
                vec![]
            }
        }
        OpKind::TriangularSolve { options } => {
            let mut attrs = vec![];
            for (key, set) in [
                ("left_side", options.left_side),
                ("lower", options.lower),
                ("unit_diagonal", options.unit_diagonal),
            ] {
                if set {
                    attrs.push((key, "true".to_string()));
                }
            }
            attrs.push(("transpose_a", options.transpose_a.name().to_string()));
            attrs
        }
        OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        }
        | OpKind::BatchNormInference {
            epsilon,
            feature_index,
        }
        | OpKind::BatchNormGrad {
            epsilon,
            feature_index,
        } => vec![
            ("epsilon", six_digits(*epsilon)),
            ("feature_index", feature_index.to_string()),
        ],
    }
}

/// `window={size=3x3 stride=2x2}`, or nothing for a window without
/// dimensions (as XLA prints it).
fn window_attribute(window: &Window) -> Vec<(&'static str, String)> {
    if window.dimensions.is_empty() {
        vec![]
    } else {
        vec![("window", format!("{{{window}}}"))]
    }
}

/// An `f32` attribute as XLA prints it (absl's `StrCat`: `%g` with six
/// significant digits, `0.001`, `1e-05`), or the shortest text that reads
/// back exactly where six digits would not.
///
/// ```
/// # use oxla_ir::printer::six_digits;
/// assert_eq!(six_digits(0.001), "0.001");
/// assert_eq!(six_digits(1e-5), "1e-05");
/// assert_eq!(six_digits(100.0), "100");
/// assert_eq!(six_digits(1234567.0), "1234567");
/// assert_eq!(six_digits(0.1234567), "0.1234567");
/// ```
pub fn six_digits(x: f32) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // `{:.5e}` rounds to six significant digits: `1.00000e-5`.
    let sci = format!("{x:.5e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let g = if (-4..6).contains(&exponent) {
        let decimals = (5 - exponent).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exponent.abs())
    };
    if g.parse::<f32>().ok() == Some(x) {
        return g;
    }
    // The shortest digits that read back: plain, or with an exponent when
    // that is shorter (`1e-12`, not `0.000000000001`).
    let plain = format!("{x}");
    let exp = format!("{x:e}");
    if plain.len() <= exp.len() { plain } else { exp }
}

/// XLA's padding syntax: `lo_hi` or `lo_hi_interior` per dimension, joined by
/// `x`: `0_0x1_2_1`.
pub(crate) fn padding_text(config: &[PadDim]) -> String {
    config
        .iter()
        .map(|p| {
            if p.interior == 0 {
                format!("{}_{}", p.lo, p.hi)
            } else {
                format!("{}_{}_{}", p.lo, p.hi, p.interior)
            }
        })
        .collect::<Vec<_>>()
        .join("x")
}
