//! Shape inference: pure functions from (op, operand shapes, attributes) to
//! the result shape or an [`Error`].
//!
//! This is the one place that knows the rules. The [`crate::Builder`] calls
//! it when an op is added, the [`crate::verifier`] calls it again on every
//! instruction of a finished computation, and the parser calls it on what it
//! reads. Checks run in XLA's order (`xla/service/shape_inference.cc`), so
//! the first error reported is the one XLA would report.
//!
//! # Binary-op broadcasting, as a table
//!
//! | lhs        | rhs          | broadcast_dimensions | result       | why                                        |
//! |------------|--------------|----------------------|--------------|--------------------------------------------|
//! | `f32[2,3]` | `f32[]`      | `{}`                 | `f32[2,3]`   | scalars need no mapping                     |
//! | `f32[2,3]` | `f32[3]`     | `{1}`                | `f32[2,3]`   | InDim: v's dim 0 matches dim 1              |
//! | `f32[3,3]` | `f32[3]`     | `{0}`                | `f32[3,3]`   | InDim: each element of v becomes a row      |
//! | `f32[2,3]` | `f32[3]`     | `{0}`                | error        | 3 != 2 at dimension 0                       |
//! | `f32[2,3]` | `f32[3]`     | `{}`                 | error        | ranks differ and no mapping was given       |
//! | `f32[2,3,4]` | `f32[3,4]` | `{1,2}`              | `f32[2,3,4]` | InDim of a matrix                           |
//! | `f32[8,4]` | `f32[16,8,4]` | `{2,1}`             | error        | 8 != 4 at dimension 0 (checked before order)|
//! | `f32[2,1]` | `f32[2,3]`   | `{}`                 | `f32[2,3]`   | degenerate: 1 stretches                     |
//! | `f32[2,1]` | `f32[1,3]`   | `{}`                 | `f32[2,3]`   | outer operation                             |
//! | `f32[7,2,5]` | `f32[7,2,6]` | `{}`               | error        | 5 vs 6, neither is 1                        |
//! | `f32[4]`   | `f32[1,2]`   | `{0}`                | `f32[4,2]`   | InDim then degenerate                       |
//! | `f32[1,2]` | `f32[4,3,1]` | `{1,2}`              | `f32[4,3,2]` | InDim (4x1x2) then degenerate               |
//! | `f32[2,3]` | `f32[2,3]`   | `{1,0}`              | error        | equal ranks take `{}` or the identity only  |
//! | `f32[2]`   | `s32[2]`     | `{}`                 | error        | no implicit type promotion                  |

use crate::ir::{
    BinaryOp, ComparisonDirection, ComputationId, DotDimensionNumbers, OpKind, PadDim, UnaryOp,
};

// The windows family: convolution, reduce-window, select-and-scatter.
mod windows;
// The indexing family (gather, scatter, dynamic-slice, dynamic-update-slice).
mod indexing;
use crate::opcode::{OpClass, Opcode, TypeSet};
use crate::shape::dims_text;
use crate::{ElementType, Error, OpProblem, Result, Shape};
pub use indexing::*;
pub use windows::*;

mod ctrl;
pub use ctrl::*;
// `complex`, `real`, `imag` and `fft`.
mod complex;
pub use complex::*;
mod sort;
pub use sort::*;
// The misc family: bitcasts, reduce-precision, rng, linear algebra, batch norm.
mod misc;
pub use misc::*;
mod ragged_dot;
pub use ragged_dot::*;

fn invalid(op: &str, problem: OpProblem) -> Error {
    Error::InvalidOp {
        op: op.to_string(),
        problem,
    }
}

fn require_array(op: &str, what: &str, shape: &Shape) -> Result<()> {
    if shape.is_array() {
        Ok(())
    } else {
        Err(invalid(
            op,
            OpProblem::NotAnArray {
                what: what.to_string(),
                shape: shape.clone(),
            },
        ))
    }
}

/// Validates a result shape `out` computed from `operands`; an invalid one
/// (a negative size, too many elements) is reported with the operands.
fn validate_result(op: &str, out: Shape, operands: &[&Shape]) -> Result<Shape> {
    match out.validate() {
        Ok(()) => Ok(out),
        Err(Error::InvalidShape { shape, reason }) => Err(invalid(
            op,
            OpProblem::InvalidResult {
                result: shape,
                reason,
                operands: operands.iter().map(|s| (*s).clone()).collect(),
            },
        )),
        Err(other) => Err(other),
    }
}

fn type_error(op: &str, shape: &Shape, expected: TypeSet) -> Error {
    let ty = shape.element_type();
    let help = match expected {
        _ if ty.is_pred() => format!(
            "convert the {shape} operand to an integer type (e.g. s32) first, or use and/or/xor/not for logic on pred."
        ),
        TypeSet::Float | TypeSet::FloatOrComplex if ty.is_complex() => format!(
            "{op} is not defined on complex numbers; apply it to real({shape}) or imag({shape})."
        ),
        TypeSet::Float | TypeSet::FloatOrComplex => {
            format!("convert the {shape} operand to a floating-point type (e.g. f32) first.")
        }
        TypeSet::Real | TypeSet::Arithmetic if ty.is_complex() => format!(
            "complex numbers have no order; apply {op} to real({shape}), imag({shape}) or abs({shape})."
        ),
        _ if ty.is_float() => format!(
            "{op} works on bits; it needs integers (or pred), and {shape} holds floats. Use compare for tests on floats, or convert first."
        ),
        TypeSet::Any
        | TypeSet::Real
        | TypeSet::Arithmetic
        | TypeSet::Numeric
        | TypeSet::Integer
        | TypeSet::IntegerOrPred => {
            format!(
                "convert the {shape} operand to {} first.",
                expected.describe()
            )
        }
    };
    Error::UnsupportedElementType {
        op: op.to_string(),
        shape: shape.to_string(),
        expected: expected.describe().to_string(),
        help,
    }
}

/// The conversion that would make two element types agree: widen rather
/// than narrow; integers go to floats; pred goes to the other type.
fn promotion_help(lhs: &Shape, rhs: &Shape) -> String {
    let (a, b) = (lhs.element_type(), rhs.element_type());
    let rank = |t: ElementType| -> (u8, u32) {
        let class = if t.is_complex() {
            4
        } else if t.is_float() {
            3
        } else if t.is_integer() {
            2
        } else {
            1
        };
        (class, t.bit_width())
    };
    let (from, to) = if rank(a) < rank(b) {
        (lhs, b)
    } else {
        (rhs, a)
    };
    format!("convert one operand first, e.g. convert the {from} operand to {to}.")
}

/// Checks that every entry of `dims` is in `0..rank` and appears once.
fn check_dimension_list(op: &str, what: &str, dims: &[i64], of: &Shape) -> Result<()> {
    let rank = of.rank();
    let mut seen = vec![false; rank];
    for &d in dims {
        let out_of_range = d < 0 || d as usize >= rank;
        if out_of_range || std::mem::replace(&mut seen[d as usize], true) {
            let (what, dims, dimension, operand) = (what.to_string(), dims.to_vec(), d, of.clone());
            return Err(invalid(
                op,
                if out_of_range {
                    OpProblem::DimensionOutOfRange {
                        what,
                        dims,
                        dimension,
                        operand,
                    }
                } else {
                    OpProblem::DimensionRepeated {
                        what,
                        dims,
                        dimension,
                        operand,
                    }
                },
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

/// The shape an instruction must have, given its operands' shapes: the
/// dispatch from an [`OpKind`] to its inference function, after the operand
/// count is checked against the op table's [`Arity`](crate::Arity). The
/// verifier and the parser call it on every instruction. `shape`
/// is the instruction's declared shape, which supplies what the op does not
/// determine by itself (a parameter's shape, a reshape's or broadcast's
/// target dims, a convert's element type, an iota's shape).
/// `called(id)` gives a called body's (parameter shapes, result shape).
pub fn infer_instruction_shape(
    kind: &OpKind,
    operands: &[&Shape],
    shape: &Shape,
    called: &dyn Fn(ComputationId) -> Option<(Vec<Shape>, Shape)>,
) -> Result<Shape> {
    let opcode = kind.opcode();
    let arity = opcode.arity();
    if !arity.allows(operands.len()) {
        return Err(invalid(
            opcode.name(),
            OpProblem::OperandCount {
                expected: arity.to_string(),
                operands: operands.iter().map(|s| (*s).clone()).collect(),
            },
        ));
    }
    match kind {
        OpKind::Parameter { .. } => {
            shape.validate()?;
            Ok(shape.clone())
        }
        OpKind::Constant { literal } => Ok(literal.shape().clone()),
        OpKind::Iota { dimension } => infer_iota_shape(shape, *dimension),
        OpKind::Unary(op) => infer_unary_op_shape(*op, operands[0]),
        OpKind::Binary {
            op,
            broadcast_dimensions,
        } => infer_binary_op_shape(*op, operands[0], operands[1], broadcast_dimensions),
        OpKind::Convert => infer_convert_shape(operands[0], shape.element_type()),
        OpKind::Select => infer_select_shape(operands[0], operands[1], operands[2]),
        OpKind::Clamp => infer_clamp_shape(operands[0], operands[1], operands[2]),
        OpKind::Broadcast { dimensions } => {
            infer_broadcast_in_dim_shape(operands[0], shape.dims(), dimensions)
        }
        OpKind::Reshape => infer_reshape_shape(operands[0], shape.dims()),
        OpKind::Transpose { permutation } => infer_transpose_shape(operands[0], permutation),
        OpKind::Slice {
            starts,
            limits,
            strides,
        } => infer_slice_shape(operands[0], starts, limits, strides),
        OpKind::Concatenate { dimension } => infer_concatenate_shape(operands, *dimension),
        OpKind::Reverse { dimensions } => infer_reverse_shape(operands[0], dimensions),
        OpKind::Pad { config } => infer_pad_shape(operands[0], operands[1], config),
        OpKind::Reduce {
            dimensions,
            to_apply,
        } => {
            let reducer = called_signature(called, *to_apply, "reduce", "to_apply")?;
            if !operands.len().is_multiple_of(2) {
                return Err(invalid(
                    "reduce",
                    OpProblem::ReduceOddOperands {
                        operands: operands.iter().map(|s| (*s).clone()).collect(),
                    },
                ));
            }
            // One input with a scalar reducer: the form every backend has.
            if operands.len() == 2 && reducer.result.is_array() {
                let (params, result) = (&reducer.parameters, &reducer.result);
                return infer_reduce_shape(operands[0], operands[1], dimensions, params, result);
            }
            let (inputs, inits) = operands.split_at(operands.len() / 2);
            infer_variadic_reduce_shape(inputs, inits, dimensions, &reducer)
        }
        OpKind::DotGeneral { dims } => infer_dot_general_shape_with_type(
            operands[0],
            operands[1],
            dims,
            shape.is_array().then(|| shape.element_type()),
        ),
        OpKind::Tuple => Ok(infer_tuple_shape(operands)),
        // The misc family.
        OpKind::BitcastConvert => infer_bitcast_convert_shape(operands[0], shape.element_type()),
        OpKind::Bitcast => infer_bitcast_shape(operands[0], shape),
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => infer_reduce_precision_shape(operands[0], *exponent_bits, *mantissa_bits),
        OpKind::Rng { distribution } => {
            infer_rng_shape(operands[0], operands[1], *distribution, shape)
        }
        OpKind::RngBitGenerator { algorithm } => {
            infer_rng_bit_generator_shape(operands[0], *algorithm, shape)
        }
        OpKind::Cholesky { .. } => infer_cholesky_shape(operands[0]),
        OpKind::TriangularSolve { options } => {
            infer_triangular_solve_shape(operands[0], operands[1], options)
        }
        OpKind::BatchNormTraining { feature_index, .. } => {
            infer_batch_norm_training_shape(operands[0], operands[1], operands[2], *feature_index)
        }
        OpKind::BatchNormInference { feature_index, .. } => infer_batch_norm_inference_shape(
            operands[0],
            operands[1],
            operands[2],
            operands[3],
            operands[4],
            *feature_index,
        ),
        OpKind::BatchNormGrad { feature_index, .. } => infer_batch_norm_grad_shape(
            operands[0],
            operands[1],
            operands[2],
            operands[3],
            operands[4],
            *feature_index,
        ),
        // -- code outside the module, and tokens --
        OpKind::CustomCall(call) => infer_custom_call_shape(operands, call, shape),
        OpKind::AfterAll => Ok(infer_after_all_shape(operands)),
        OpKind::AddDependency => infer_add_dependency_shape(operands[0], operands[1]),
        OpKind::StochasticConvert => {
            infer_stochastic_convert_shape(operands[0], operands[1], shape.element_type())
        }
        OpKind::RngGetAndUpdateState { .. } => Ok(Shape::new(ElementType::U64, &[2])),
        OpKind::RaggedDot { dims } => infer_ragged_dot_shape(
            operands[0],
            operands[1],
            operands[2],
            dims,
            shape.is_array().then(|| shape.element_type()),
        ),
        // -- tuples and control flow (the ctrl family) --
        OpKind::GetTupleElement { index } => infer_get_tuple_element_shape(operands[0], *index),
        OpKind::While { condition, body } => infer_while_shape(
            &called_signature(called, *condition, "while", "condition")?,
            &called_signature(called, *body, "while", "body")?,
            operands[0],
        ),
        OpKind::Conditional { branches } => {
            let branches = branches
                .iter()
                .map(|&b| called_signature(called, b, "conditional", "branch_computations"))
                .collect::<Result<Vec<_>>>()?;
            infer_conditional_shape(operands[0], &branches, &operands[1..])
        }
        OpKind::OptimizationBarrier => Ok(infer_optimization_barrier_shape(operands[0])),
        OpKind::Map {
            dimensions,
            to_apply,
        } => infer_map_shape(
            operands,
            dimensions,
            &called_signature(called, *to_apply, "map", "to_apply")?,
        ),
        // -- the windows family --
        OpKind::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
            precision: _,
        } => infer_convolution_shape(
            operands[0],
            operands[1],
            window,
            dims,
            *feature_group_count,
            *batch_group_count,
            shape.is_array().then(|| shape.element_type()),
        ),
        OpKind::ReduceWindow { window, to_apply } => {
            let (params, result) = called_params("reduce-window", "to_apply", *to_apply, called)?;
            infer_reduce_window_shape(operands, window, &params, &result)
        }
        OpKind::SelectAndScatter {
            window,
            select,
            scatter,
        } => {
            let op = "select-and-scatter";
            let select = called_params(op, "select", *select, called)?;
            let scatter = called_params(op, "scatter", *scatter, called)?;
            infer_select_and_scatter_shape(
                operands[0],
                (&select.0, &select.1),
                window,
                operands[1],
                operands[2],
                (&scatter.0, &scatter.1),
            )
        }
        // -- indexing --
        OpKind::Gather {
            dims, slice_sizes, ..
        } => infer_gather_shape(operands[0], operands[1], dims, slice_sizes),
        OpKind::Scatter { dims, to_apply, .. } => {
            let (params, result) = called(*to_apply).ok_or_else(|| {
                invalid(
                    "scatter",
                    OpProblem::MissingComputation {
                        attribute: "to_apply".into(),
                        id: to_apply.0,
                    },
                )
            })?;
            infer_scatter_shape(operands, dims, &params, &result)
        }
        OpKind::DynamicSlice { slice_sizes } => {
            infer_dynamic_slice_shape(operands[0], &operands[1..], slice_sizes)
        }
        OpKind::DynamicUpdateSlice => {
            infer_dynamic_update_slice_shape(operands[0], operands[1], &operands[2..])
        }
        // -- complex numbers --
        OpKind::Complex => infer_complex_shape(operands[0], operands[1]),
        OpKind::Real | OpKind::Imag => infer_real_imag_shape(kind.opcode(), operands[0]),
        OpKind::Fft {
            fft_type,
            fft_length,
        } => infer_fft_shape(operands[0], *fft_type, fft_length),
        // -- sort and top-k (the sort family) --
        OpKind::Sort {
            dimension,
            to_apply,
            ..
        } => {
            let comparator = called_signature(called, *to_apply, "sort", "to_apply")?;
            infer_sort_shape(
                operands,
                *dimension,
                &comparator.parameters,
                &comparator.result,
            )
        }
        OpKind::TopK { k, .. } => infer_topk_shape(operands[0], *k),
    }
}

/// The shape of an instruction written without one, as XLA's HLO parser
/// infers it (`ROOT s = add(a, b)`), or `Ok(None)` for the ops whose result
/// XLA's parser will not infer: `parameter`, `constant`, `iota`, `convert`,
/// `reshape`, `slice`, `bitcast`, `bitcast-convert`, `reduce-precision`,
/// `rng` and `rng-bit-generator` must carry their shape (`cannot infer shape for
/// opcode: ...`). Every other op goes through [`infer_instruction_shape`],
/// the same rules as a declared shape, except `broadcast`, whose result XLA
/// infers as its `dimensions` followed by the operand's dims (the builder's
/// `Broadcast(operand, sizes)`), then checks as usual.
///
/// ```
/// use oxla_ir::{ElementType::F32, OpKind, Shape, shape_inference::infer_undeclared_shape};
/// let x = Shape::new(F32, &[3]);
/// let none = |_| None;
/// let neg = oxla_ir::OpKind::Unary(oxla_ir::UnaryOp::Neg);
/// assert_eq!(infer_undeclared_shape(&neg, &[&x], &none)?, Some(x.clone()));
/// let b = OpKind::Broadcast { dimensions: vec![1] };
/// assert_eq!(infer_undeclared_shape(&b, &[&x], &none)?.unwrap().to_string(), "f32[1,3]");
/// assert_eq!(infer_undeclared_shape(&OpKind::Reshape, &[&x], &none)?, None);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_undeclared_shape(
    kind: &OpKind,
    operands: &[&Shape],
    called: &dyn Fn(ComputationId) -> Option<(Vec<Shape>, Shape)>,
) -> Result<Option<Shape>> {
    // For every op that reaches the last arm, `infer_instruction_shape`
    // does not read the declared shape; an empty tuple stands in for it.
    let unused = Shape::tuple(vec![]);
    match kind {
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
        | OpKind::Convert
        | OpKind::Reshape
        | OpKind::Slice { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. }
        | OpKind::Rng { .. }
        | OpKind::RngBitGenerator { .. } => Ok(None),
        OpKind::Broadcast { dimensions } => {
            let Some(operand) = operands.first().filter(|_| operands.len() == 1) else {
                return infer_instruction_shape(kind, operands, &unused, called).map(Some);
            };
            // XLA's parser infers it with the client `Broadcast(operand,
            // sizes)`, taking `dimensions` as the sizes.
            let declared = infer_broadcast_shape(operand, dimensions)?;
            infer_instruction_shape(kind, operands, &declared, called).map(Some)
        }
        OpKind::Unary(_)
        | OpKind::Binary { .. }
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Transpose { .. }
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
        | OpKind::Complex
        | OpKind::Real
        | OpKind::Imag
        | OpKind::Fft { .. }
        | OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Gather { .. }
        | OpKind::Scatter { .. }
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::AfterAll
        | OpKind::AddDependency
        | OpKind::RngGetAndUpdateState { .. }
        | OpKind::RaggedDot { .. } => {
            infer_instruction_shape(kind, operands, &unused, called).map(Some)
        }
        // The result type is the declared one.
        OpKind::StochasticConvert => Ok(None),
        // A custom-call's result is whatever its target gives: only the
        // declared shape says.
        OpKind::CustomCall(_) => Ok(None),
        OpKind::Cholesky { .. }
        | OpKind::TriangularSolve { .. }
        | OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. } => {
            infer_instruction_shape(kind, operands, &unused, called).map(Some)
        }
    }
}

/// A called body's (parameter shapes, result shape), or the error that it
/// is missing (`attribute` names it).
fn called_params(
    op: &str,
    attribute: &str,
    id: ComputationId,
    called: &dyn Fn(ComputationId) -> Option<(Vec<Shape>, Shape)>,
) -> Result<(Vec<Shape>, Shape)> {
    called(id).ok_or_else(|| {
        invalid(
            op,
            OpProblem::MissingComputation {
                attribute: attribute.into(),
                id: id.0,
            },
        )
    })
}

// ---------------------------------------------------------------------------
// Elementwise ops
// ---------------------------------------------------------------------------

/// The shape of a unary elementwise op: the operand's dims; `pred` for
/// `is-finite`, the operand's element type otherwise.
///
/// ```
/// use oxla_ir::{shape_inference::infer_unary_op_shape, ir::UnaryOp, ElementType, Shape};
/// let x = Shape::new(ElementType::F32, &[2]);
/// assert_eq!(infer_unary_op_shape(UnaryOp::IsFinite, &x)?.to_string(), "pred[2]");
/// let i = Shape::new(ElementType::S32, &[2]);
/// assert!(infer_unary_op_shape(UnaryOp::Exp, &i).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_unary_op_shape(op: UnaryOp, operand: &Shape) -> Result<Shape> {
    require_array(op.name(), "the operand", operand)?;
    let types = op.info().types;
    if !types.contains(operand.element_type()) {
        return Err(type_error(op.name(), operand, types));
    }
    // `abs` of a complex number is its magnitude, of the part type.
    if let (UnaryOp::Abs, Some(part)) = (op, operand.element_type().complex_component()) {
        return Ok(operand.with_element_type(part));
    }
    Ok(elementwise_result(op.class(), operand))
}

/// The result of an elementwise op of class `class` whose (first) operand
/// is `operand`: `pred` for comparisons and tests, else the operand's type.
fn elementwise_result(class: OpClass, operand: &Shape) -> Shape {
    operand.with_element_type(class.result_type(operand.element_type()))
}

/// The shape of a binary elementwise op with XLA's broadcasting: scalars,
/// InDim mapping of the lower-rank operand through `broadcast_dimensions`,
/// degenerate (size-1) dimensions of equal-rank operands, and both at once.
/// Comparisons give `pred`.
///
/// ```
/// use oxla_ir::{shape_inference::infer_binary_op_shape, ir::BinaryOp, ElementType::F32, Shape};
/// let s = infer_binary_op_shape(BinaryOp::Add,
///     &Shape::new(F32, &[1, 2]), &Shape::new(F32, &[4, 3, 1]), &[1, 2])?;
/// assert_eq!(s.to_string(), "f32[4,3,2]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_binary_op_shape(
    op: BinaryOp,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Shape> {
    let name = op.name();
    require_array(name, &format!("lhs of binary operation {name}"), lhs)?;
    require_array(name, &format!("rhs of binary operation {name}"), rhs)?;
    // XLA's opcode-specific type gate, on the left operand, before the
    // element types are compared.
    let types = op.info().types;
    if !types.contains(lhs.element_type()) {
        return Err(type_error(name, lhs, types));
    }
    if lhs.element_type() != rhs.element_type() {
        return Err(Error::ElementTypeMismatch {
            op: name.to_string(),
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            help: promotion_help(lhs, rhs),
        });
    }
    // Complex numbers are equal or not; they have no order.
    if let BinaryOp::Compare(direction, _) = op
        && lhs.element_type().is_complex()
        && !matches!(direction, ComparisonDirection::Eq | ComparisonDirection::Ne)
    {
        return Err(Error::UnsupportedElementType {
            op: format!("compare (direction={direction})"),
            shape: lhs.to_string(),
            expected: "a non-complex element type (complex values compare with EQ and NE only)"
                .into(),
            help: format!(
                "compare real({lhs}) and imag({lhs}), or abs({lhs}), with direction={direction}."
            ),
        });
    }
    let dims = infer_broadcast_dims(name, lhs, rhs, broadcast_dimensions)?;
    // XLA's verifier then checks the comparison type against the operands.
    if let BinaryOp::Compare(_, order) = op {
        comparison_order(order.comparison_type(rhs.element_type()), rhs)?;
    }
    Ok(elementwise_result(
        op.class(),
        &Shape::new(lhs.element_type(), &dims),
    ))
}

/// The result dims of broadcasting `lhs` with `rhs` under XLA's rules
/// (element types are not looked at). `op` names the op in messages.
pub fn infer_broadcast_dims(
    op: &str,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Vec<i64>> {
    if lhs.rank() == rhs.rank() {
        let identity: Vec<i64> = (0..lhs.rank() as i64).collect();
        if !broadcast_dimensions.is_empty() && broadcast_dimensions != identity.as_slice() {
            return Err(Error::BroadcastDimensionsNotIdentity {
                op: op.to_string(),
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                broadcast_dimensions: dims_text(broadcast_dimensions),
                help: if lhs.rank() == 0 {
                    "two scalars need no mapping: pass broadcast_dimensions={}.".to_string()
                } else {
                    format!(
                        "pass broadcast_dimensions={{}} (or the identity {}); equal-rank operands \
                         broadcast only through their size-1 dimensions. To reorder dimensions, \
                         transpose an operand first.",
                        dims_text(&identity)
                    )
                },
            });
        }
        return infer_degenerate_dims(op, lhs, rhs);
    }
    let (smaller, larger) = if lhs.rank() < rhs.rank() {
        (lhs, rhs)
    } else {
        (rhs, lhs)
    };
    let in_dim = infer_in_dim_dims(op, smaller, larger, broadcast_dimensions)?;
    let in_dim_shape = Shape::new(smaller.element_type(), &in_dim);
    infer_degenerate_dims(op, &in_dim_shape, larger)
}

/// XLA's `InferInDimBroadcastShape`: the larger operand's dims with the
/// smaller operand's sizes written at the mapped positions.
fn infer_in_dim_dims(
    op: &str,
    smaller: &Shape,
    larger: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Vec<i64>> {
    let help = || in_dim_help(smaller, larger);
    if broadcast_dimensions.is_empty() && !smaller.is_scalar() {
        return Err(Error::ShapesMustBeEqualRank {
            op: op.to_string(),
            smaller: smaller.clone(),
            larger: larger.clone(),
            help: help(),
            broadcast_dimensions: broadcast_dimensions.to_vec(),
        });
    }
    if broadcast_dimensions.len() != smaller.rank() {
        return Err(Error::BroadcastDimensionsSize {
            op: op.to_string(),
            rank: smaller.rank(),
            size: broadcast_dimensions.len(),
            smaller: smaller.clone(),
            larger: larger.clone(),
            help: help(),
            broadcast_dimensions: broadcast_dimensions.to_vec(),
        });
    }
    let mut out = larger.dims().to_vec();
    for (i, &d) in broadcast_dimensions.iter().enumerate() {
        if d < 0 {
            return Err(Error::BroadcastDimensionNegative {
                op: op.to_string(),
                dimension: d,
                smaller: smaller.clone(),
                larger: larger.clone(),
                help: help(),
                broadcast_dimensions: broadcast_dimensions.to_vec(),
            });
        }
        if d as usize >= larger.rank() {
            return Err(Error::BroadcastDimensionTooLarge {
                op: op.to_string(),
                dimension: d,
                rank: larger.rank(),
                smaller: smaller.clone(),
                larger: larger.clone(),
                help: help(),
                broadcast_dimensions: broadcast_dimensions.to_vec(),
            });
        }
        let s = smaller.dims()[i];
        let l = larger.dims()[d as usize];
        if s != l && s != 1 && l != 1 {
            return Err(Error::BroadcastDimensionMismatch {
                op: op.to_string(),
                index: i,
                mapped_to: d,
                smaller_size: s,
                larger_size: l,
                smaller: smaller.clone(),
                larger: larger.clone(),
                help: help(),
                broadcast_dimensions: broadcast_dimensions.to_vec(),
            });
        }
        if i > 0 && broadcast_dimensions[i - 1] >= d {
            return Err(Error::BroadcastDimensionsOrder {
                op: op.to_string(),
                dimension: d,
                previous: broadcast_dimensions[i - 1],
                smaller: smaller.clone(),
                larger: larger.clone(),
                help: help(),
                broadcast_dimensions: broadcast_dimensions.to_vec(),
            });
        }
        out[d as usize] = s;
    }
    Ok(out)
}

/// XLA's `InferDegenerateDimensionBroadcastShape` for equal ranks.
fn infer_degenerate_dims(op: &str, lhs: &Shape, rhs: &Shape) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(lhs.rank());
    for (i, (&a, &b)) in lhs.dims().iter().zip(rhs.dims()).enumerate() {
        out.push(if a == 1 {
            b
        } else if b == 1 || a == b {
            a
        } else {
            return Err(Error::IncompatibleShapes {
                op: op.to_string(),
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                dimension: i,
                lhs_size: a,
                rhs_size: b,
                help: "equal-rank operands broadcast only through size-1 dimensions; reshape or slice one operand so the sizes agree.".to_string(),
            });
        });
    }
    Ok(out)
}

/// Every strictly increasing `broadcast_dimensions` that maps `smaller` onto
/// `larger` legally, best first (exact size matches before size-1 matches;
/// among equals, the right-aligned NumPy-like choice first). Gives up on
/// very large searches and returns what it found.
///
/// ```
/// use oxla_ir::{shape_inference::valid_broadcast_dimensions, ElementType::F32, Shape};
/// let v = Shape::new(F32, &[3]);
/// let m = Shape::new(F32, &[3, 3]);
/// assert_eq!(valid_broadcast_dimensions(&v, &m), vec![vec![1], vec![0]]);
/// ```
pub fn valid_broadcast_dimensions(smaller: &Shape, larger: &Shape) -> Vec<Vec<i64>> {
    let (k, n) = (smaller.rank(), larger.rank());
    if k > n {
        return Vec::new();
    }
    let mut found: Vec<(usize, Vec<i64>)> = Vec::new();
    let mut current = Vec::with_capacity(k);
    let mut budget = 20_000usize;
    fn search(
        s: &[i64],
        l: &[i64],
        start: usize,
        current: &mut Vec<i64>,
        found: &mut Vec<(usize, Vec<i64>)>,
        budget: &mut usize,
    ) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let i = current.len();
        if i == s.len() {
            let exact = current
                .iter()
                .enumerate()
                .filter(|&(j, &d)| s[j] == l[d as usize])
                .count();
            found.push((exact, current.clone()));
            return;
        }
        for d in start..l.len() {
            if l.len() - d < s.len() - i {
                break;
            }
            if s[i] == l[d] || s[i] == 1 || l[d] == 1 {
                current.push(d as i64);
                search(s, l, d + 1, current, found, budget);
                current.pop();
            }
        }
    }
    search(
        smaller.dims(),
        larger.dims(),
        0,
        &mut current,
        &mut found,
        &mut budget,
    );
    // Best first: more exact matches; then later (right-aligned) positions.
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    found.into_iter().map(|(_, v)| v).collect()
}

/// The `help:` text for an InDim error: a valid list if one exists, or why
/// none does.
pub fn in_dim_help(smaller: &Shape, larger: &Shape) -> String {
    if smaller.is_scalar() {
        return format!(
            "a scalar broadcasts without a mapping: pass broadcast_dimensions={{}} for {smaller} \
             and {larger}."
        );
    }
    let valid = valid_broadcast_dimensions(smaller, larger);
    match valid.split_first() {
        Some((best, rest)) => {
            let mut text = format!(
                "broadcast_dimensions={} would be valid for {smaller} and {larger}: it maps {}.",
                dims_text(best),
                describe_mapping(smaller, larger, best)
            );
            if !rest.is_empty() {
                let others: Vec<String> = rest.iter().take(3).map(|d| dims_text(d)).collect();
                text.push_str(&format!(" Also valid: {}.", others.join(", ")));
            }
            text
        }
        None => match transpose_fix(smaller, larger) {
            Some((perm, transposed, map)) => format!(
                "no broadcast_dimensions is valid for {smaller} and {larger} as they stand, since \
                 a mapping must keep the order of the dimensions; transpose {smaller} with \
                 permutation {} (giving {transposed}), then broadcast_dimensions={} is valid.",
                dims_text(&perm),
                dims_text(&map)
            ),
            None => format!(
                "no broadcast_dimensions is valid for {smaller} and {larger}: the dimensions of \
                 {smaller} cannot be matched, in increasing order, to dimensions of {larger} of \
                 equal size or size 1. Reshape or transpose an operand first."
            ),
        },
    }
}

/// `dimension 0 (size 3) -> dimension 1 (size 3), ...`, saying which side
/// stretches where a size is 1.
fn describe_mapping(smaller: &Shape, larger: &Shape, map: &[i64]) -> String {
    map.iter()
        .enumerate()
        .map(|(i, &d)| {
            let (s, l) = (smaller.dims()[i], larger.dims()[d as usize]);
            if s == l {
                format!("dimension {i} (size {s}) -> dimension {d} (size {l})")
            } else if s == 1 {
                format!("dimension {i} (size 1, stretched to {l}) -> dimension {d} (size {l})")
            } else {
                format!("dimension {i} (size {s}) -> dimension {d} (size 1, stretched to {s})")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A transpose of `smaller` after which some mapping becomes valid, for
/// ranks small enough to try every permutation: (permutation, transposed
/// shape, mapping).
fn transpose_fix(smaller: &Shape, larger: &Shape) -> Option<(Vec<i64>, Shape, Vec<i64>)> {
    let k = smaller.rank();
    if !(2..=5).contains(&k) {
        return None;
    }
    let mut perm: Vec<i64> = (0..k as i64).collect();
    // Heap's algorithm over all permutations but the identity.
    let mut c = vec![0usize; k];
    let mut i = 0;
    while i < k {
        if c[i] < i {
            if i % 2 == 0 {
                perm.swap(0, i);
            } else {
                perm.swap(c[i], i);
            }
            let dims: Vec<i64> = perm.iter().map(|&p| smaller.dims()[p as usize]).collect();
            let t = Shape::new(smaller.element_type(), &dims);
            if let Some(map) = valid_broadcast_dimensions(&t, larger).into_iter().next() {
                return Some((perm, t, map));
            }
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    None
}

// ---------------------------------------------------------------------------
// Other ops
// ---------------------------------------------------------------------------

/// `convert`: the operand's dims with the new element type.
pub fn infer_convert_shape(operand: &Shape, element_type: ElementType) -> Result<Shape> {
    require_array("convert", "the operand", operand)?;
    if element_type.is_tuple() {
        return Err(invalid(
            "convert",
            OpProblem::ConvertToTuple {
                operand: operand.clone(),
            },
        ));
    }
    Ok(operand.with_element_type(element_type))
}

/// `select(pred, on_true, on_false)`: `pred` must be `pred`; the branches
/// must have one element type; every non-scalar operand must have the same
/// dims, and scalars broadcast (as XLA's builder does for ternary ops).
pub fn infer_select_shape(pred: &Shape, on_true: &Shape, on_false: &Shape) -> Result<Shape> {
    for (what, s) in [("pred", pred), ("on_true", on_true), ("on_false", on_false)] {
        require_array("select", what, s)?;
    }
    if !pred.element_type().is_pred() {
        return Err(invalid(
            "select",
            OpProblem::SelectPredicateType {
                pred: pred.clone(),
                on_true: on_true.clone(),
                on_false: on_false.clone(),
            },
        ));
    }
    if on_true.element_type() != on_false.element_type() {
        return Err(invalid(
            "select",
            OpProblem::SelectBranchTypes {
                on_true: on_true.clone(),
                on_false: on_false.clone(),
            },
        ));
    }
    let dims = common_ternary_dims("select", &[pred, on_true, on_false])?;
    Ok(Shape::new(on_true.element_type(), &dims))
}

/// `clamp(min, operand, max)`: one element type; `min`/`max` scalars or of
/// the operand's dims.
pub fn infer_clamp_shape(min: &Shape, operand: &Shape, max: &Shape) -> Result<Shape> {
    for (what, s) in [("min", min), ("operand", operand), ("max", max)] {
        require_array("clamp", what, s)?;
    }
    if min.element_type() != operand.element_type() || max.element_type() != operand.element_type()
    {
        return Err(invalid(
            "clamp",
            OpProblem::ClampTypes {
                min: min.clone(),
                operand: operand.clone(),
                max: max.clone(),
            },
        ));
    }
    if !Opcode::Clamp.accepts(operand.element_type()) {
        return Err(type_error("clamp", operand, Opcode::Clamp.types()));
    }
    let dims = common_ternary_dims("clamp", &[min, operand, max])?;
    Ok(Shape::new(operand.element_type(), &dims))
}

fn common_ternary_dims(op: &str, shapes: &[&Shape]) -> Result<Vec<i64>> {
    let mut dims: Option<&[i64]> = None;
    for s in shapes.iter().filter(|s| !s.is_scalar()) {
        match dims {
            None => dims = Some(s.dims()),
            Some(d) if d == s.dims() => {}
            Some(_) => {
                return Err(invalid(
                    op,
                    OpProblem::TernaryDims {
                        operands: shapes.iter().map(|s| (*s).clone()).collect(),
                    },
                ));
            }
        }
    }
    Ok(dims.unwrap_or(&[]).to_vec())
}

/// `broadcast_in_dim(operand, out_dims, broadcast_dimensions)` as XLA's
/// builder checks it: each operand dim maps to the output dim named in
/// `broadcast_dimensions` and must equal it or be 1; the list is strictly
/// increasing.
///
/// ```
/// use oxla_ir::{shape_inference::infer_broadcast_in_dim_shape, ElementType::F32, Shape};
/// let s = infer_broadcast_in_dim_shape(&Shape::new(F32, &[3, 1]), &[2, 3, 4], &[1, 2])?;
/// assert_eq!(s.to_string(), "f32[2,3,4]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_broadcast_in_dim_shape(
    operand: &Shape,
    out_dims: &[i64],
    broadcast_dimensions: &[i64],
) -> Result<Shape> {
    const OP: &str = "broadcast";
    require_array(OP, "the operand", operand)?;
    let out = validate_result(OP, Shape::new(operand.element_type(), out_dims), &[operand])?;
    let (o_, out_) = (operand.clone(), out.clone());
    let bd = broadcast_dimensions.to_vec();
    if operand.rank() > out.rank() {
        return Err(invalid(
            OP,
            OpProblem::BroadcastToLowerRank {
                operand: o_,
                output: out_,
            },
        ));
    }
    let help = || in_dim_help_strict(operand, &out);
    if broadcast_dimensions.len() != operand.rank() {
        return Err(invalid(
            OP,
            OpProblem::BroadcastDimensionsCount {
                operand: o_,
                output: out_,
                broadcast_dimensions: bd,
                help: help(),
            },
        ));
    }
    for (i, &d) in broadcast_dimensions.iter().enumerate() {
        if d < 0 || d as usize >= out.rank() {
            return Err(invalid(
                OP,
                OpProblem::BroadcastDimensionOutOfBounds {
                    operand: o_,
                    output: out_,
                    dimension: d,
                    broadcast_dimensions: bd,
                    help: help(),
                },
            ));
        }
        let (s, o) = (operand.dims()[i], out_dims[d as usize]);
        if s != o && s != 1 {
            return Err(invalid(
                OP,
                OpProblem::BroadcastSizeMismatch {
                    operand: o_,
                    output: out_,
                    operand_dimension: i,
                    operand_size: s,
                    output_dimension: d,
                    output_size: o,
                    broadcast_dimensions: bd,
                    help: help(),
                },
            ));
        }
        if i > 0 && broadcast_dimensions[i - 1] >= d {
            return Err(invalid(
                OP,
                OpProblem::BroadcastDimensionsOrder {
                    operand: o_,
                    output: out_,
                    dimension: d,
                    previous: broadcast_dimensions[i - 1],
                    broadcast_dimensions: bd,
                    help: help(),
                },
            ));
        }
    }
    Ok(out)
}

/// Like [`in_dim_help`], but for `broadcast_in_dim`, where only the operand
/// may have size-1 dims that stretch.
fn in_dim_help_strict(operand: &Shape, out: &Shape) -> String {
    let valid: Vec<Vec<i64>> = valid_broadcast_dimensions(operand, out)
        .into_iter()
        .filter(|m| {
            m.iter().enumerate().all(|(i, &d)| {
                operand.dims()[i] == 1 || operand.dims()[i] == out.dims()[d as usize]
            })
        })
        .collect();
    match valid.first() {
        Some(best) => format!("broadcast_dimensions={} would be valid.", dims_text(best)),
        None => format!(
            "no broadcast_dimensions maps {operand} into {out}: each operand dimension needs an \
             output dimension of the same size (or must be 1), in increasing order."
        ),
    }
}

/// XLA's client `Broadcast`: `sizes` are prepended as the major dims.
pub fn infer_broadcast_shape(operand: &Shape, sizes: &[i64]) -> Result<Shape> {
    require_array("broadcast", "the operand", operand)?;
    if let Some(&size) = sizes.iter().find(|&&d| d < 0) {
        return Err(invalid(
            "broadcast",
            OpProblem::NegativeBroadcastSize {
                operand: operand.clone(),
                sizes: sizes.to_vec(),
                size,
            },
        ));
    }
    let dims: Vec<i64> = sizes.iter().chain(operand.dims()).copied().collect();
    validate_result(
        "broadcast",
        Shape::new(operand.element_type(), &dims),
        &[operand],
    )
}

/// `reshape`: same element count, any dims.
pub fn infer_reshape_shape(operand: &Shape, new_dims: &[i64]) -> Result<Shape> {
    require_array("reshape", "the operand", operand)?;
    let out = validate_result(
        "reshape",
        Shape::new(operand.element_type(), new_dims),
        &[operand],
    )?;
    if out.element_count() != operand.element_count() {
        return Err(invalid(
            "reshape",
            OpProblem::ReshapeElementCount {
                operand: operand.clone(),
                result: out,
            },
        ));
    }
    Ok(out)
}

/// `transpose`: `permutation` is a permutation of `0..rank`;
/// `out.dims[i] = operand.dims[permutation[i]]`.
pub fn infer_transpose_shape(operand: &Shape, permutation: &[i64]) -> Result<Shape> {
    require_array("transpose", "the operand", operand)?;
    if permutation.len() != operand.rank() {
        return Err(invalid(
            "transpose",
            OpProblem::PermutationLength {
                operand: operand.clone(),
                permutation: permutation.to_vec(),
            },
        ));
    }
    check_dimension_list("transpose", "the permutation", permutation, operand)?;
    let dims: Vec<i64> = permutation
        .iter()
        .map(|&p| operand.dims()[p as usize])
        .collect();
    Ok(Shape::new(operand.element_type(), &dims))
}

/// `slice`: per dimension `0 <= start <= limit <= size`, `stride >= 1`;
/// result size `ceil((limit - start) / stride)`.
pub fn infer_slice_shape(
    operand: &Shape,
    starts: &[i64],
    limits: &[i64],
    strides: &[i64],
) -> Result<Shape> {
    require_array("slice", "the operand", operand)?;
    let r = operand.rank();
    if starts.len() != r || limits.len() != r || strides.len() != r {
        return Err(invalid(
            "slice",
            OpProblem::SliceRank {
                operand: operand.clone(),
                starts: starts.to_vec(),
                limits: limits.to_vec(),
                strides: strides.to_vec(),
            },
        ));
    }
    let mut dims = Vec::with_capacity(r);
    for i in 0..r {
        let (s, l, st, n) = (starts[i], limits[i], strides[i], operand.dims()[i]);
        if st < 1 {
            return Err(invalid(
                "slice",
                OpProblem::SliceStride {
                    operand: operand.clone(),
                    dimension: i,
                    stride: st,
                },
            ));
        }
        if s < 0 || s > l || l > n {
            return Err(invalid(
                "slice",
                OpProblem::SliceBounds {
                    operand: operand.clone(),
                    dimension: i,
                    start: s,
                    limit: l,
                },
            ));
        }
        // (l - s) >= 0 and st >= 1 here; written without `+ st - 1` so a
        // huge stride cannot overflow.
        dims.push((l - s) / st + i64::from((l - s) % st != 0));
    }
    Ok(Shape::new(operand.element_type(), &dims))
}

/// `concatenate`: at least one operand; equal ranks and element types; every
/// dim but `dimension` equal; the result adds up `dimension`.
pub fn infer_concatenate_shape(operands: &[&Shape], dimension: i64) -> Result<Shape> {
    const OP: &str = "concatenate";
    let Some(first) = operands.first() else {
        return Err(invalid(OP, OpProblem::ConcatenateNothing));
    };
    for s in operands {
        require_array(OP, "every operand", s)?;
    }
    let all = || {
        operands
            .iter()
            .map(|s| (*s).clone())
            .collect::<Vec<Shape>>()
    };
    if first.rank() == 0 {
        return Err(invalid(
            OP,
            OpProblem::ConcatenateScalars { operands: all() },
        ));
    }
    if dimension < 0 || dimension as usize >= first.rank() {
        return Err(invalid(
            OP,
            OpProblem::ConcatenateDimension {
                operands: all(),
                dimension,
            },
        ));
    }
    let d = dimension as usize;
    let mut dims = first.dims().to_vec();
    for s in &operands[1..] {
        if s.element_type() != first.element_type() {
            return Err(invalid(OP, OpProblem::ConcatenateTypes { operands: all() }));
        }
        if s.rank() != first.rank() {
            return Err(invalid(OP, OpProblem::ConcatenateRanks { operands: all() }));
        }
        for (i, (&a, &b)) in first.dims().iter().zip(s.dims()).enumerate() {
            if i != d && a != b {
                return Err(invalid(
                    OP,
                    OpProblem::ConcatenateDims {
                        operands: all(),
                        dimension: d,
                        at: i,
                    },
                ));
            }
        }
        dims[d] += s.dims()[d];
    }
    Ok(Shape::new(first.element_type(), &dims))
}

/// `reverse`: the listed dims exist and appear once; the shape is kept.
pub fn infer_reverse_shape(operand: &Shape, dimensions: &[i64]) -> Result<Shape> {
    require_array("reverse", "the operand", operand)?;
    check_dimension_list("reverse", "dimensions", dimensions, operand)?;
    Ok(operand.clone())
}

/// `pad`: a scalar padding value of the operand's type; one [`PadDim`] per
/// dimension, `interior >= 0`; size `lo + hi + n + max(n - 1, 0) * interior`
/// must not be negative.
pub fn infer_pad_shape(operand: &Shape, padding_value: &Shape, config: &[PadDim]) -> Result<Shape> {
    require_array("pad", "the operand", operand)?;
    require_array("pad", "the padding value", padding_value)?;
    if !padding_value.is_scalar() || padding_value.element_type() != operand.element_type() {
        return Err(invalid(
            "pad",
            OpProblem::PadValue {
                operand: operand.clone(),
                padding_value: padding_value.clone(),
            },
        ));
    }
    if config.len() != operand.rank() {
        return Err(invalid(
            "pad",
            OpProblem::PadConfigLength {
                operand: operand.clone(),
                entries: config.len(),
            },
        ));
    }
    let mut dims = Vec::with_capacity(config.len());
    for (i, (p, &n)) in config.iter().zip(operand.dims()).enumerate() {
        if p.interior < 0 {
            return Err(invalid(
                "pad",
                OpProblem::PadInteriorNegative {
                    operand: operand.clone(),
                    dimension: i,
                    interior: p.interior,
                },
            ));
        }
        let size = (|| {
            let interior = (n - 1).max(0).checked_mul(p.interior)?;
            p.lo.checked_add(p.hi)?
                .checked_add(n)?
                .checked_add(interior)
        })();
        match size {
            Some(s) if s >= 0 => dims.push(s),
            _ => {
                return Err(invalid(
                    "pad",
                    OpProblem::PadSize {
                        operand: operand.clone(),
                        dimension: i,
                        lo: p.lo,
                        hi: p.hi,
                        interior: p.interior,
                    },
                ));
            }
        }
    }
    validate_result(
        "pad",
        Shape::new(operand.element_type(), &dims),
        &[operand, padding_value],
    )
}

/// `reduce`: `init` is a scalar of the operand's element type, `dimensions`
/// exist and appear once, the reducer is `(T[], T[]) -> T[]`. The result
/// drops the reduced dims.
pub fn infer_reduce_shape(
    operand: &Shape,
    init: &Shape,
    dimensions: &[i64],
    reducer_parameters: &[Shape],
    reducer_result: &Shape,
) -> Result<Shape> {
    require_array("reduce", "the operand", operand)?;
    let ty = operand.element_type();
    let scalar = Shape::scalar(ty);
    if *init != scalar {
        return Err(invalid(
            "reduce",
            OpProblem::ReduceInit {
                operand: operand.clone(),
                init: init.clone(),
            },
        ));
    }
    check_dimension_list("reduce", "dimensions", dimensions, operand)?;
    let params_ok =
        reducer_parameters.len() == 2 && reducer_parameters.iter().all(|p| *p == scalar);
    if !params_ok || *reducer_result != scalar {
        return Err(invalid(
            "reduce",
            OpProblem::ReducerSignature {
                operand: operand.clone(),
                parameters: reducer_parameters.to_vec(),
                result: reducer_result.clone(),
            },
        ));
    }
    Ok(Shape::new(ty, &kept_dims(operand, dimensions)))
}

/// The dims of `operand` a reduce of `dimensions` keeps, in order.
pub(crate) fn kept_dims(operand: &Shape, dimensions: &[i64]) -> Vec<i64> {
    operand
        .dims()
        .iter()
        .enumerate()
        .filter(|(i, _)| !dimensions.contains(&(*i as i64)))
        .map(|(_, &d)| d)
        .collect()
}

/// `dot_general` without a preferred result type: the result has the
/// higher-precision operand type (see
/// [`infer_dot_general_shape_with_type`]).
pub fn infer_dot_general_shape(
    lhs: &Shape,
    rhs: &Shape,
    dims: &DotDimensionNumbers,
) -> Result<Shape> {
    infer_dot_general_shape_with_type(lhs, rhs, dims, None)
}

/// The higher-precision of two element types, as XLA's
/// `primitive_util::HigherPrecisionType`: complex over float over integer
/// over `pred`, then the wider.
pub fn higher_precision_type(a: ElementType, b: ElementType) -> ElementType {
    let rank = |t: ElementType| {
        let class = if t.is_complex() {
            3
        } else if t.is_float() {
            2
        } else if t.is_integer() {
            1
        } else {
            0
        };
        (class, t.bit_width(), t.is_signed_integer())
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The type a dot with operands `lhs`, `rhs` and result type `result`
/// sums in, as XLA:CPU computes it: the result type when it is at least as
/// precise as the operands (the operands converted up: `s8 x s8 -> s32`,
/// `bf16 x bf16 -> f32`), else the operands' higher-precision type (the
/// sum converted down: `f32 x f32 -> bf16`); floats narrower than `f32`
/// sum in `f32`, sub-byte integers in 64 bits.
///
/// ```
/// use oxla_ir::ElementType::{Bf16, F32, S32, S8};
/// use oxla_ir::shape_inference::dot_compute_type;
/// assert_eq!(dot_compute_type(S8, S8, S32), S32);
/// assert_eq!(dot_compute_type(F32, F32, Bf16), F32);
/// assert_eq!(dot_compute_type(Bf16, Bf16, Bf16), F32);
/// ```
pub fn dot_compute_type(lhs: ElementType, rhs: ElementType, result: ElementType) -> ElementType {
    let operand = higher_precision_type(lhs, rhs);
    let ty = if higher_precision_type(operand, result) == result {
        result
    } else {
        operand
    };
    if ty.is_narrow_float() {
        ElementType::F32
    } else if ty.is_sub_byte_integer() && ty.is_signed_integer() {
        ElementType::S64
    } else if ty.is_sub_byte_integer() {
        ElementType::U64
    } else {
        ty
    }
}

/// `dot_general`: batch and contracting lists paired, in range, not
/// repeated, with equal sizes. The result dims are the batch dims, then the
/// lhs free dims, then the rhs free dims. The operands may have different
/// element types, as in XLA (`s8 x s16`), as long as both are real or both
/// complex; the result type is `preferred` (the type written in the text:
/// `f32[2,4] dot(bf16[2,3] a, bf16[3,4] b)`), or the higher-precision
/// operand type. A preferred integer type may not be narrower than the
/// operands', nor complex for real operands or real for complex ones.
///
/// ```
/// use oxla_ir::{DotDimensionNumbers, ElementType::*, Shape};
/// use oxla_ir::shape_inference::infer_dot_general_shape_with_type;
/// let dims = DotDimensionNumbers { lhs_contracting: vec![1], rhs_contracting: vec![0], ..Default::default() };
/// let (a, b) = (Shape::new(Bf16, &[2, 3]), Shape::new(Bf16, &[3, 4]));
/// assert_eq!(infer_dot_general_shape_with_type(&a, &b, &dims, Some(F32))?.to_string(), "f32[2,4]");
/// let (i, j) = (Shape::new(S8, &[2, 3]), Shape::new(S16, &[3, 4]));
/// assert_eq!(infer_dot_general_shape_with_type(&i, &j, &dims, None)?.to_string(), "s16[2,4]");
/// assert!(infer_dot_general_shape_with_type(&i, &j, &dims, Some(S8)).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_dot_general_shape_with_type(
    lhs: &Shape,
    rhs: &Shape,
    dims: &DotDimensionNumbers,
    preferred: Option<ElementType>,
) -> Result<Shape> {
    const OP: &str = "dot";
    require_array(OP, "lhs", lhs)?;
    require_array(OP, "rhs", rhs)?;
    let (lt, rt) = (lhs.element_type(), rhs.element_type());
    if lt.is_complex() != rt.is_complex() {
        return Err(Error::ElementTypeMismatch {
            op: OP.into(),
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            help: promotion_help(lhs, rhs),
        });
    }
    for operand in [lhs, rhs] {
        if !Opcode::Dot.accepts(operand.element_type()) {
            return Err(type_error(OP, operand, Opcode::Dot.types()));
        }
    }
    let operand_type = higher_precision_type(lt, rt);
    let result_type = preferred.unwrap_or(operand_type);
    let narrower_integer = !operand_type.is_float()
        && !operand_type.is_complex()
        && result_type.bit_width() < operand_type.bit_width();
    if result_type.is_tuple()
        || result_type.is_complex() != operand_type.is_complex()
        || narrower_integer
    {
        return Err(invalid(
            OP,
            OpProblem::DotResultType {
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                result: result_type,
            },
        ));
    }
    for (kind, l, r) in [
        ("batch", &dims.lhs_batch, &dims.rhs_batch),
        ("contracting", &dims.lhs_contracting, &dims.rhs_contracting),
    ] {
        if l.len() != r.len() {
            return Err(invalid(
                OP,
                OpProblem::DotDimensionsLength {
                    kind: kind.to_string(),
                    lhs: lhs.clone(),
                    rhs: rhs.clone(),
                    lhs_dims: l.clone(),
                    rhs_dims: r.clone(),
                },
            ));
        }
    }
    let lhs_all: Vec<i64> = dims
        .lhs_batch
        .iter()
        .chain(&dims.lhs_contracting)
        .copied()
        .collect();
    let rhs_all: Vec<i64> = dims
        .rhs_batch
        .iter()
        .chain(&dims.rhs_contracting)
        .copied()
        .collect();
    check_dimension_list(OP, "lhs batch and contracting dims", &lhs_all, lhs)?;
    check_dimension_list(OP, "rhs batch and contracting dims", &rhs_all, rhs)?;
    for (kind, l, r) in [
        ("batch", &dims.lhs_batch, &dims.rhs_batch),
        ("contracting", &dims.lhs_contracting, &dims.rhs_contracting),
    ] {
        for (&a, &b) in l.iter().zip(r.iter()) {
            if lhs.dims()[a as usize] != rhs.dims()[b as usize] {
                return Err(invalid(
                    OP,
                    OpProblem::DotSizeMismatch {
                        kind: kind.to_string(),
                        lhs: lhs.clone(),
                        rhs: rhs.clone(),
                        lhs_dimension: a,
                        rhs_dimension: b,
                    },
                ));
            }
        }
    }
    let mut out: Vec<i64> = dims
        .lhs_batch
        .iter()
        .map(|&d| lhs.dims()[d as usize])
        .collect();
    out.extend(
        (0..lhs.rank() as i64)
            .filter(|d| !lhs_all.contains(d))
            .map(|d| lhs.dims()[d as usize]),
    );
    out.extend(
        (0..rhs.rank() as i64)
            .filter(|d| !rhs_all.contains(d))
            .map(|d| rhs.dims()[d as usize]),
    );
    Ok(Shape::new(result_type, &out))
}

/// The two operands of a contraction (`dot`, `convolution`) share one
/// element type (no implicit promotion), which `opcode` accepts.
fn check_operand_types(opcode: Opcode, lhs: &Shape, rhs: &Shape) -> Result<()> {
    if lhs.element_type() != rhs.element_type() {
        return Err(Error::ElementTypeMismatch {
            op: opcode.name().into(),
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            help: promotion_help(lhs, rhs),
        });
    }
    if !opcode.accepts(lhs.element_type()) {
        return Err(type_error(opcode.name(), lhs, opcode.types()));
    }
    Ok(())
}

/// The dimension numbers of XLA's `Dot`: vector or matrix operands,
/// contracting the last dimension of `lhs` with the first of `rhs`.
pub fn dot_dimension_numbers(lhs: &Shape, rhs: &Shape) -> Result<DotDimensionNumbers> {
    if !(1..=2).contains(&lhs.rank()) || !(1..=2).contains(&rhs.rank()) {
        return Err(invalid(
            "dot",
            OpProblem::DotRank {
                lhs: lhs.clone(),
                rhs: rhs.clone(),
            },
        ));
    }
    Ok(DotDimensionNumbers {
        lhs_contracting: vec![lhs.rank() as i64 - 1],
        rhs_contracting: vec![0],
        ..Default::default()
    })
}

/// `iota`: a non-`pred` array of rank >= 1 counting along `dimension`.
pub fn infer_iota_shape(shape: &Shape, dimension: i64) -> Result<Shape> {
    require_array("iota", "the shape", shape)?;
    shape.validate()?;
    if !Opcode::Iota.accepts(shape.element_type()) {
        return Err(type_error("iota", shape, Opcode::Iota.types()));
    }
    if dimension < 0 || dimension as usize >= shape.rank() {
        return Err(invalid(
            "iota",
            OpProblem::IotaDimension {
                shape: shape.clone(),
                dimension,
            },
        ));
    }
    Ok(shape.clone())
}

/// `tuple`: the tuple of the operand shapes.
pub fn infer_tuple_shape(operands: &[&Shape]) -> Shape {
    Shape::tuple(operands.iter().map(|s| (*s).clone()).collect())
}

/// A `custom-call`: its declared `shape` (valid, tuples included), after
/// XLA's parser's checks of `operand_layout_constraints`: one shape per
/// operand, each with its operand's element type and dims.
///
/// ```
/// use oxla_ir::{CustomCall, ElementType, Shape};
/// use oxla_ir::shape_inference::infer_custom_call_shape;
/// let x = Shape::new(ElementType::F32, &[2]);
/// let out = Shape::new(ElementType::S32, &[3]);
/// let mut call = CustomCall::new("f");
/// assert_eq!(infer_custom_call_shape(&[&x], &call, &out)?, out);
/// call.operand_layout_constraints = Some(vec![Shape::new(ElementType::F32, &[3])]);
/// let e = infer_custom_call_shape(&[&x], &call, &out).unwrap_err();
/// assert!(e.to_string().contains("Operand 0 is not compatible with operand shape"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_custom_call_shape(
    operands: &[&Shape],
    call: &crate::CustomCall,
    shape: &Shape,
) -> Result<Shape> {
    if let Some(constraints) = &call.operand_layout_constraints {
        if constraints.len() != operands.len() {
            return Err(invalid(
                "custom-call",
                OpProblem::LayoutConstraintCount {
                    operands: operands.len(),
                    given: constraints.len(),
                },
            ));
        }
        for (index, (constraint, operand)) in constraints.iter().zip(operands).enumerate() {
            if constraint != *operand {
                return Err(invalid(
                    "custom-call",
                    OpProblem::LayoutConstraintShape {
                        index,
                        constraint: constraint.clone(),
                        operand: (*operand).clone(),
                    },
                ));
            }
        }
    }
    validate_any(shape)?;
    Ok(shape.clone())
}

/// Validates every array of a shape (a tuple's, recursively); a token is
/// valid.
fn validate_any(shape: &Shape) -> Result<()> {
    if shape.is_tuple() {
        return shape.tuple_shapes().iter().try_for_each(validate_any);
    }
    if shape.is_token() {
        return Ok(());
    }
    shape.validate()
}

/// `after-all`: a token ordered after all its operands (any number, any
/// shapes: XLA's verifier checks only the result; the values its operands
/// carry are not read).
///
/// ```
/// use oxla_ir::{ElementType, Shape};
/// use oxla_ir::shape_inference::infer_after_all_shape;
/// let t = Shape::token();
/// assert_eq!(infer_after_all_shape(&[&t, &t]), Shape::token());
/// assert_eq!(infer_after_all_shape(&[]), Shape::token());
/// assert_eq!(infer_after_all_shape(&[&Shape::scalar(ElementType::F32)]), Shape::token());
/// ```
pub fn infer_after_all_shape(_operands: &[&Shape]) -> Shape {
    Shape::token()
}

/// `add-dependency(x, token)`: `x`'s shape (any shape); the second
/// operand must be a token.
///
/// ```
/// use oxla_ir::{ElementType, Shape};
/// use oxla_ir::shape_inference::infer_add_dependency_shape;
/// let x = Shape::new(ElementType::F32, &[2]);
/// assert_eq!(infer_add_dependency_shape(&x, &Shape::token())?, x);
/// assert!(infer_add_dependency_shape(&x, &x).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_add_dependency_shape(operand: &Shape, token: &Shape) -> Result<Shape> {
    if !token.is_token() {
        return Err(invalid(
            "add-dependency",
            OpProblem::NotAToken {
                index: 1,
                shape: token.clone(),
            },
        ));
    }
    Ok(operand.clone())
}

/// `stochastic-convert(x, random)` to `to` (XLA's
/// `InferStochasticConvertShape`): `x` a float array, `random` unsigned
/// integers of `x`'s bit width and dims, `to` an integer type; the result
/// is `x`'s dims in `to`.
///
/// ```
/// use oxla_ir::{ElementType::{F32, S8, U16, U32}, Shape};
/// use oxla_ir::shape_inference::infer_stochastic_convert_shape;
/// let x = Shape::new(F32, &[4, 3]);
/// let r = Shape::new(U32, &[4, 3]);
/// assert_eq!(infer_stochastic_convert_shape(&x, &r, S8)?.to_string(), "s8[4,3]");
/// assert!(infer_stochastic_convert_shape(&x, &Shape::new(U16, &[4, 3]), S8).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_stochastic_convert_shape(
    operand: &Shape,
    random: &Shape,
    to: ElementType,
) -> Result<Shape> {
    const OP: &str = "stochastic-convert";
    require_array(OP, "lhs of stochastic convert", operand)?;
    require_array(OP, "rhs of stochastic convert", random)?;
    let problem = |message: String| {
        Err(invalid(
            OP,
            OpProblem::StochasticConvert {
                message,
                operand: operand.clone(),
                random: random.clone(),
            },
        ))
    };
    if !operand.element_type().is_float() {
        return problem(format!(
            "The input of a stochastic convert must be of floating-point type, but got: {}",
            operand.element_type()
        ));
    }
    if !random.element_type().is_unsigned_integer() {
        return problem(format!(
            "The random number of a stochastic convert must be of unsigned integral type, but got: {}",
            random.element_type()
        ));
    }
    if !to.is_integer() {
        return problem(format!(
            "The output of a stochastic convert must be of integral type, but got: {to}"
        ));
    }
    let (ob, rb) = (
        operand.element_type().bit_width(),
        random.element_type().bit_width(),
    );
    if ob != rb {
        return problem(format!(
            "The random number is required to have same bits as the operand. But got random bits: {rb}, operand bits: {ob}"
        ));
    }
    if !operand.same_dims(random) {
        return problem(
            "The random number and the operand of a stochastic convert must have the same dimensions".into(),
        );
    }
    Ok(operand.with_element_type(to))
}
