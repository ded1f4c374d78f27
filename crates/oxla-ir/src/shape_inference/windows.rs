//! Shape inference of the windowed ops: `convolution`, `reduce-window` and
//! `select-and-scatter`, with XLA's checks in XLA's order
//! (`InferConvolveShape`, `InferReduceWindowShape`,
//! `InferSelectAndScatterShape` and their shared `InferWindowOutputShape`
//! and `VerifyReducerShape`), each failure an [`OpProblem`] whose message
//! starts with XLA's sentence.
//!
//! Where oxla is stricter than XLA, and why:
//! - a convolution's operands share one element type, and its result type
//!   may differ from it only where every operand value converts exactly
//!   (`s8` to `s32`, `f32` to `f64`): other mixed precision is issue 13's;
//! - a window whose negative padding removes more than the whole dilated
//!   base is refused (XLA's `StridedBound` aborts on it);
//! - `rhs_reversal` is refused outside `convolution`, where XLA ignores it.

use super::{
    check_operand_types, higher_precision_type, invalid, require_array, type_error, validate_result,
};
use crate::ir::{ConvolutionDimensionNumbers, Window};
use crate::opcode::Opcode;
use crate::{ElementType, OpProblem, Result, Shape};

/// XLA's `InferWindowOutputShape`: the dims of the windows of `window` over
/// `base` (one entry per base dimension), with element type `ty`. Per
/// dimension: `dilated(n, d) = n == 0 ? 0 : (n - 1) * d + 1`; the padded
/// base is `padding_low + dilated(base, base_dilation) + padding_high`; the
/// output is 0 if the dilated window is larger, else `(padded - dilated
/// window) / stride + 1`. `op` names the op in messages.
///
/// ```
/// use oxla_ir::{shape_inference::infer_window_output_shape, ElementType::F32, Shape, Window};
/// let w = Window::from_dimensions(&[3, 3], &[2, 2], &[(1, 1), (1, 1)], &[], &[])?;
/// let out = infer_window_output_shape("reduce-window", &Shape::new(F32, &[16, 15]), &w, F32)?;
/// assert_eq!(out.to_string(), "f32[8,8]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_window_output_shape(
    op: &str,
    base: &Shape,
    window: &Window,
    ty: ElementType,
) -> Result<Shape> {
    if window.rank() != base.rank() {
        return Err(invalid(
            op,
            OpProblem::WindowRank {
                window: window.clone(),
                window_rank: window.rank(),
                base: base.clone(),
            },
        ));
    }
    let mut dims = Vec::with_capacity(window.rank());
    for (i, (d, &n)) in window.dimensions.iter().zip(base.dims()).enumerate() {
        for (what, value, min) in [
            ("dimension", d.size, 1),
            ("stride", d.stride, 1),
            ("base area dilation factor", d.base_dilation, 1),
            ("window dilation factor", d.window_dilation, 1),
        ] {
            if value < min {
                return Err(invalid(
                    op,
                    OpProblem::WindowNotPositive {
                        window: window.clone(),
                        what: what.into(),
                        dimension: i,
                        value,
                    },
                ));
            }
        }
        // In i128 nothing here overflows: every factor is below 2^63.
        let dilated = |n: i64, d: i64| -> i128 {
            if n == 0 {
                0
            } else {
                (i128::from(n) - 1) * i128::from(d) + 1
            }
        };
        let padded =
            i128::from(d.padding_low) + dilated(n, d.base_dilation) + i128::from(d.padding_high);
        if padded < 0 {
            return Err(invalid(
                op,
                OpProblem::WindowPaddedBaseNegative {
                    window: window.clone(),
                    dimension: i,
                    base: base.clone(),
                    padded: i64::try_from(padded).unwrap_or(i64::MIN),
                },
            ));
        }
        let window_size = dilated(d.size, d.window_dilation);
        let out = if window_size > padded {
            0
        } else {
            (padded - window_size) / i128::from(d.stride) + 1
        };
        // At most the padded size; past i64 only with absurd padding.
        dims.push(i64::try_from(out).unwrap_or(i64::MAX));
    }
    validate_result(op, Shape::new(ty, &dims), &[base])
}

/// The result element type of a convolution of `lhs` and `rhs` declared
/// as `preferred`: the higher-precision operand type unless declared, as
/// XLA's `InferConvolveShape` (operands of different types, as a dot's:
/// `s8 x s16 -> s32`); XLA's `MaybeUpcast` (an integer result may not be
/// narrower), and then oxla's rule that the conversion to the result type
/// must be exact.
fn convolution_result_type(
    lhs: &Shape,
    rhs: &Shape,
    preferred: Option<ElementType>,
) -> Result<ElementType> {
    let from = higher_precision_type(lhs.element_type(), rhs.element_type());
    let Some(to) = preferred.filter(|&t| t != from) else {
        return Ok(from);
    };
    if !from.is_float() && to.bit_width() < from.bit_width() {
        return Err(invalid(
            "convolution",
            OpProblem::ConvolutionNarrowResult {
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                result: to,
            },
        ));
    }
    let exact = (from.is_float() && to.is_float() && to.bit_width() > from.bit_width())
        || (from.is_signed_integer()
            && to.is_signed_integer()
            && to.bit_width() > from.bit_width())
        || (from.is_unsigned_integer() && to.is_integer() && to.bit_width() > from.bit_width());
    if exact {
        Ok(to)
    } else {
        Err(invalid(
            "convolution",
            OpProblem::ConvolutionMixedPrecision {
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                result: to,
            },
        ))
    }
}

/// `convolution`: XLA's `InferConvolveShape`. `result_type` is the declared
/// element type (`None`: the operands'). The result has the output batch
/// `lhs batch / batch_group_count`, the output feature the kernel's output
/// features, and the spatial dims of the window over the input's spatial
/// dims, placed where `dims` says.
///
/// ```
/// use oxla_ir::shape_inference::infer_convolution_shape;
/// use oxla_ir::{ConvolutionDimensionNumbers, ElementType::F32, Shape, Window};
/// let dims = ConvolutionDimensionNumbers::from_labels("b01f_01io->b01f").unwrap();
/// let window = Window::from_dimensions(&[3, 3], &[2, 2], &[(1, 1), (1, 1)], &[], &[])?;
/// let (x, w) = (Shape::new(F32, &[1, 16, 16, 3]), Shape::new(F32, &[3, 3, 3, 16]));
/// let y = infer_convolution_shape(&x, &w, &window, &dims, 1, 1, None)?;
/// assert_eq!(y.to_string(), "f32[1,8,8,16]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_convolution_shape(
    lhs: &Shape,
    rhs: &Shape,
    window: &Window,
    dims: &ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
    result_type: Option<ElementType>,
) -> Result<Shape> {
    const OP: &str = "convolution";
    require_array(OP, "lhs of convolution", lhs)?;
    require_array(OP, "rhs of convolution", rhs)?;
    // Operands of different real (or different complex) types sum in the
    // compute type, as a dot's do (`dot_compute_type`); a real with a
    // complex operand is refused as oxla refuses implicit promotion.
    if lhs.element_type().is_complex() == rhs.element_type().is_complex() {
        for operand in [lhs, rhs] {
            if !Opcode::Convolution.accepts(operand.element_type()) {
                return Err(type_error(OP, operand, Opcode::Convolution.types()));
            }
        }
    } else {
        check_operand_types(Opcode::Convolution, lhs, rhs)?;
    }
    for (what, count) in [
        ("feature_group_count", feature_group_count),
        ("batch_group_count", batch_group_count),
    ] {
        if count <= 0 {
            return Err(invalid(
                OP,
                OpProblem::ConvolutionGroupCount {
                    what: what.into(),
                    count,
                },
            ));
        }
    }
    if batch_group_count > 1 && feature_group_count > 1 {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionGroupCounts {
                feature_group_count,
                batch_group_count,
            },
        ));
    }
    let spatial = dims.input_spatial_dimensions.len();
    if dims.kernel_spatial_dimensions.len() != spatial
        || dims.output_spatial_dimensions.len() != spatial
    {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionSpatialCount {
                dims: dims.clone(),
                input: dims.input_spatial_dimensions.clone(),
                kernel: dims.kernel_spatial_dimensions.clone(),
                output: dims.output_spatial_dimensions.clone(),
            },
        ));
    }
    if window.rank() != spatial {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionWindowRank {
                window: window.clone(),
                dims: dims.clone(),
                spatial,
            },
        ));
    }
    let rank = spatial + 2;
    for (side, operand) in [("LHS", lhs), ("RHS", rhs)] {
        if operand.rank() != rank {
            return Err(invalid(
                OP,
                OpProblem::ConvolutionOperandRank {
                    side: side.into(),
                    expected: rank,
                    operand: operand.clone(),
                },
            ));
        }
    }
    let list = |a: i64, b: i64, rest: &[i64]| -> Vec<i64> {
        let mut v = vec![a, b];
        v.extend_from_slice(rest);
        v
    };
    let sides = [
        (
            "Input",
            list(
                dims.input_batch_dimension,
                dims.input_feature_dimension,
                &dims.input_spatial_dimensions,
            ),
        ),
        (
            "Window",
            list(
                dims.kernel_input_feature_dimension,
                dims.kernel_output_feature_dimension,
                &dims.kernel_spatial_dimensions,
            ),
        ),
        (
            "Output",
            list(
                dims.output_batch_dimension,
                dims.output_feature_dimension,
                &dims.output_spatial_dimensions,
            ),
        ),
    ];
    if sides
        .iter()
        .flat_map(|(_, v)| v)
        .any(|&d| d < 0 || d as usize >= rank)
    {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionDimensionOutOfRange {
                dims: dims.clone(),
                rank,
            },
        ));
    }
    for (which, v) in &sides {
        let mut sorted = v.clone();
        sorted.sort_unstable();
        if sorted.iter().enumerate().any(|(i, &d)| d != i as i64) {
            return Err(invalid(
                OP,
                OpProblem::ConvolutionDimensionsNotPermutation {
                    which: (*which).into(),
                    dims: dims.clone(),
                },
            ));
        }
    }
    // Every dimension number is in range from here on.
    let l = |d: i64| lhs.dims()[d as usize];
    let r = |d: i64| rhs.dims()[d as usize];
    let input_features = l(dims.input_feature_dimension);
    let input_batch = l(dims.input_batch_dimension);
    let kernel_input_features = r(dims.kernel_input_feature_dimension);
    let kernel_output_features = r(dims.kernel_output_feature_dimension);
    let (lhs_, rhs_, dims_) = (lhs.clone(), rhs.clone(), dims.clone());
    if kernel_output_features % batch_group_count != 0 {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionBatchGroupFeatures {
                features: kernel_output_features,
                batch_group_count,
                lhs: lhs_,
                rhs: rhs_,
                dims: dims_,
            },
        ));
    }
    if input_features % feature_group_count != 0
        || input_features / feature_group_count != kernel_input_features
    {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionInputFeatures {
                input_features,
                feature_group_count,
                kernel_input_features,
                lhs: lhs_,
                rhs: rhs_,
                dims: dims_,
            },
        ));
    }
    if kernel_output_features % feature_group_count != 0 {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionOutputFeatures {
                features: kernel_output_features,
                feature_group_count,
                lhs: lhs_,
                rhs: rhs_,
                dims: dims_,
            },
        ));
    }
    if input_batch % batch_group_count != 0 {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionBatch {
                batch: input_batch,
                batch_group_count,
                lhs: lhs_,
                rhs: rhs_,
                dims: dims_,
            },
        ));
    }
    let kernel_sizes: Vec<i64> = dims
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| r(d))
        .collect();
    if kernel_sizes != window.sizes() {
        return Err(invalid(
            OP,
            OpProblem::ConvolutionWindowSizes {
                rhs: rhs_,
                kernel_sizes,
                window: window.clone(),
                dims: dims_,
            },
        ));
    }
    let input_spatial: Vec<i64> = dims
        .input_spatial_dimensions
        .iter()
        .map(|&d| l(d))
        .collect();
    let base = Shape::new(lhs.element_type(), &input_spatial);
    let windows = infer_window_output_shape(OP, &base, window, lhs.element_type())?;
    let ty = convolution_result_type(lhs, rhs, result_type)?;
    let mut out = vec![0; rank];
    out[dims.output_batch_dimension as usize] = input_batch / batch_group_count;
    out[dims.output_feature_dimension as usize] = kernel_output_features;
    for (&d, &n) in dims.output_spatial_dimensions.iter().zip(windows.dims()) {
        out[d as usize] = n;
    }
    validate_result(OP, Shape::new(ty, &out), &[lhs, rhs])
}

/// XLA's `VerifyReducerShape` for one input of element type `input`: the
/// reducer takes two parameters, returns a scalar, its first parameter and
/// the init are the result's shape, its second parameter takes the input's
/// elements and is the result's shape too.
fn check_window_reducer(
    op: &str,
    parameters: &[Shape],
    result: &Shape,
    init: &Shape,
    input: ElementType,
) -> Result<()> {
    let problem = |p: String| {
        Err(invalid(
            op,
            OpProblem::WindowReducer {
                problem: p,
                input_type: input,
                init: init.clone(),
                parameters: parameters.to_vec(),
                result: result.clone(),
            },
        ))
    };
    if parameters.len() != 2 {
        return problem(format!(
            "Reduction function must take 2 parameters, but takes {} parameter(s)",
            parameters.len()
        ));
    }
    if result.is_tuple() {
        return problem(
            "Reduction function must produce a scalar for one input, but produces a tuple"
                .to_string(),
        );
    }
    if !result.is_scalar() {
        return problem(format!(
            "Reduction function must return a scalar or tuple of scalars but returns shape: {result}"
        ));
    }
    if parameters[0] != *result {
        return problem(format!(
            "Reduction function's 0-th parameter shape differs from the result shape: {} vs {result}",
            parameters[0]
        ));
    }
    if init != result {
        return problem(format!(
            "Reduction function's accumulator shape at index 0 differs from the init_value shape: {result} vs {init}"
        ));
    }
    let element = Shape::scalar(input);
    if parameters[1] != element {
        return problem(format!(
            "Reduction function's 1-th parameter shape differs from the input type element type: {} vs {element}",
            parameters[1]
        ));
    }
    if parameters[1] != *result {
        return problem(format!(
            "Reduction function's 1-th parameter shape must match the result shape, but got {} vs {result}",
            parameters[1]
        ));
    }
    Ok(())
}

/// Refuses `rhs_reversal` outside a convolution (XLA ignores it there).
fn check_no_reversal(op: &str, window: &Window) -> Result<()> {
    match window.dimensions.iter().position(|d| d.window_reversal) {
        Some(dimension) => Err(invalid(
            op,
            OpProblem::WindowReversal {
                window: window.clone(),
                dimension,
            },
        )),
        None => Ok(()),
    }
}

/// `reduce-window`: `operands` are N inputs then N init values (XLA's
/// `InferReduceWindowShape`): inputs share dims, the reducer fits
/// (`(T[], T[]) -> T[]` with a `T[]` init for one input), each input is an
/// array, and the result is the window output shape of the inputs with the
/// init's element type. With N > 1 inputs the reducer takes N
/// accumulators and N elements and returns the tuple of N scalars, and the
/// result is the tuple of one window output per input (XLA's variadic
/// form, checked as a variadic `reduce`'s reducer).
///
/// ```
/// use oxla_ir::shape_inference::infer_reduce_window_shape;
/// use oxla_ir::{ElementType::F32, Shape, Window};
/// let x = Shape::new(F32, &[1, 16, 16, 3]);
/// let init = Shape::scalar(F32);
/// let w = Window::from_dimensions(&[1, 2, 2, 1], &[1, 2, 2, 1], &[], &[], &[])?;
/// let reducer = [Shape::scalar(F32), Shape::scalar(F32)];
/// let y = infer_reduce_window_shape(&[&x, &init], &w, &reducer, &init)?;
/// assert_eq!(y.to_string(), "f32[1,8,8,3]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_reduce_window_shape(
    operands: &[&Shape],
    window: &Window,
    reducer_parameters: &[Shape],
    reducer_result: &Shape,
) -> Result<Shape> {
    const OP: &str = "reduce-window";
    if operands.is_empty() || !operands.len().is_multiple_of(2) {
        return Err(invalid(
            OP,
            OpProblem::ReduceWindowOddOperands {
                operands: operands.iter().map(|s| (*s).clone()).collect(),
            },
        ));
    }
    let n = operands.len() / 2;
    let (inputs, inits) = operands.split_at(n);
    for (i, input) in inputs.iter().enumerate().skip(1) {
        if !input.same_dims(inputs[0]) {
            return Err(invalid(
                OP,
                OpProblem::ReduceWindowInputDims {
                    first: inputs[0].clone(),
                    index: i,
                    input: (*input).clone(),
                },
            ));
        }
    }
    if n != 1 {
        return infer_variadic_reduce_window_shape(
            inputs,
            inits,
            window,
            reducer_parameters,
            reducer_result,
        );
    }
    let (input, init) = (inputs[0], inits[0]);
    // XLA checks the reducer first, against the input's element type,
    // which a tuple does not have: oxla says it is a tuple first.
    require_array(OP, "operand of reduce-window", input)?;
    check_window_reducer(
        OP,
        reducer_parameters,
        reducer_result,
        init,
        input.element_type(),
    )?;
    let out = infer_window_output_shape(OP, input, window, init.element_type())?;
    check_no_reversal(OP, window)?;
    Ok(out)
}

/// The variadic form of [`infer_reduce_window_shape`]: every input an
/// array, the reducer XLA's `VerifyReducerShape` for N inputs, the result
/// the tuple of the window output shapes with each init's element type.
fn infer_variadic_reduce_window_shape(
    inputs: &[&Shape],
    inits: &[&Shape],
    window: &Window,
    reducer_parameters: &[Shape],
    reducer_result: &Shape,
) -> Result<Shape> {
    const OP: &str = "reduce-window";
    for input in inputs {
        require_array(OP, "operand of reduce-window", input)?;
    }
    let reducer = crate::Signature {
        parameters: reducer_parameters.to_vec(),
        result: reducer_result.clone(),
    };
    super::ctrl::check_reducer(OP, &reducer, inits, inputs)?;
    let outs = inputs
        .iter()
        .zip(inits)
        .map(|(input, init)| infer_window_output_shape(OP, input, window, init.element_type()))
        .collect::<Result<Vec<_>>>()?;
    check_no_reversal(OP, window)?;
    Ok(Shape::tuple(outs))
}

/// `select-and-scatter` (XLA's `InferSelectAndScatterShape`): `select` is
/// `(T[], T[]) -> pred[]` for the operand's `T`, `scatter` a reducer of the
/// source's elements with `init`, and `source` has the shape of the
/// window-reduced operand. The result has the operand's shape.
///
/// ```
/// use oxla_ir::shape_inference::infer_select_and_scatter_shape;
/// use oxla_ir::{ElementType::{F32, Pred}, Shape, Window};
/// let x = Shape::new(F32, &[4, 4]);
/// let g = Shape::new(F32, &[2, 2]);
/// let w = Window::from_dimensions(&[2, 2], &[2, 2], &[], &[], &[])?;
/// let s = [Shape::scalar(F32), Shape::scalar(F32)];
/// let out = infer_select_and_scatter_shape(
///     &x, (&s, &Shape::scalar(Pred)), &w, &g, &Shape::scalar(F32), (&s, &Shape::scalar(F32)))?;
/// assert_eq!(out, x);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_select_and_scatter_shape(
    operand: &Shape,
    select: (&[Shape], &Shape),
    window: &Window,
    source: &Shape,
    init: &Shape,
    scatter: (&[Shape], &Shape),
) -> Result<Shape> {
    const OP: &str = "select-and-scatter";
    require_array(OP, "operand of select-and-scatter", operand)?;
    let (select_parameters, select_result) = select;
    if select_parameters.len() != 2 {
        return Err(invalid(
            OP,
            OpProblem::SelectParameterCount {
                parameters: select_parameters.to_vec(),
            },
        ));
    }
    if *select_result != Shape::scalar(ElementType::Pred) {
        return Err(invalid(
            OP,
            OpProblem::SelectResult {
                result: select_result.clone(),
            },
        ));
    }
    let element = Shape::scalar(operand.element_type());
    for (which, parameter) in ["first", "second"].into_iter().zip(select_parameters) {
        if *parameter != element {
            return Err(invalid(
                OP,
                OpProblem::SelectParameter {
                    which: which.into(),
                    parameter: parameter.clone(),
                    operand: operand.clone(),
                },
            ));
        }
    }
    let (scatter_parameters, scatter_result) = scatter;
    check_window_reducer(
        OP,
        scatter_parameters,
        scatter_result,
        init,
        source.element_type(),
    )?;
    let reduced = infer_window_output_shape(OP, operand, window, operand.element_type())?;
    if *source != reduced {
        return Err(invalid(
            OP,
            OpProblem::SelectAndScatterSource {
                scattered: source.clone(),
                reduced,
                operand: operand.clone(),
                window: window.clone(),
            },
        ));
    }
    check_no_reversal(OP, window)?;
    Ok(operand.clone())
}
