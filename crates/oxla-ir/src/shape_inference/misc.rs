//! Shape inference for the misc family: `bitcast-convert`, `bitcast`,
//! `reduce-precision`, `rng`, `rng-bit-generator`, `cholesky`,
//! `triangular-solve` and the `batch-norm-*` ops.
//!
//! Each function runs XLA's checks in XLA's order
//! (`xla/service/shape_inference.cc`; `rng` and `rng-bit-generator` from
//! `hlo_verifier.cc`), and each failure is an [`OpProblem`] whose message
//! starts with XLA's wording. Ops whose result XLA reads from the declared
//! shape (`bitcast-convert`'s element type, `bitcast`'s dims, `rng`'s and
//! `rng-bit-generator`'s shapes) take it as an argument and check it, so a
//! declared shape that cannot be produced is an error here rather than a
//! wrong value later.

use super::{invalid, require_array, type_error, validate_result};
use crate::ir::{RngAlgorithm, RngDistribution, TriangularSolveOptions};
use crate::opcode::TypeSet;
use crate::{ElementType, OpProblem, Result, Shape};

/// `bitcast-convert` of `operand` to `element_type`: the same dims for
/// equal widths; a new minor dimension of `old / new` when narrowing; the
/// last dimension (which must be `new / old`) removed when widening.
///
/// ```
/// use oxla_ir::{shape_inference::infer_bitcast_convert_shape, ElementType::*, Shape};
/// let x = Shape::new(F32, &[4]);
/// assert_eq!(infer_bitcast_convert_shape(&x, U8)?.to_string(), "u8[4,4]");
/// assert_eq!(infer_bitcast_convert_shape(&x, S32)?.to_string(), "s32[4]");
/// let bytes = Shape::new(U8, &[3, 4]);
/// assert_eq!(infer_bitcast_convert_shape(&bytes, F32)?.to_string(), "f32[3]");
/// assert!(infer_bitcast_convert_shape(&Shape::new(U8, &[3]), F32).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_bitcast_convert_shape(operand: &Shape, element_type: ElementType) -> Result<Shape> {
    const OP: &str = "bitcast-convert";
    let to = operand.with_element_type(element_type);
    if !operand.is_array() || element_type.is_tuple() {
        return Err(invalid(
            OP,
            OpProblem::BitcastConvertTuple {
                operand: operand.clone(),
                to: if element_type.is_tuple() {
                    Shape::tuple(vec![])
                } else {
                    to
                },
            },
        ));
    }
    let (from_bits, to_bits) = (operand.element_type().bit_width(), element_type.bit_width());
    // XLA counts `pred` as one bit, so `pred[8]` would "widen" to `u8[]`;
    // no backend defines those bits, so `pred` converts only to itself.
    let pred_mix = operand.element_type().is_pred() != element_type.is_pred();
    if pred_mix || from_bits.max(to_bits) % from_bits.min(to_bits) != 0 {
        return Err(invalid(
            OP,
            OpProblem::BitcastConvertWidths {
                operand: operand.clone(),
                to,
            },
        ));
    }
    if from_bits > to_bits {
        let mut dims = operand.dims().to_vec();
        dims.push(i64::from(from_bits / to_bits));
        return validate_result(OP, Shape::new(element_type, &dims), &[operand]);
    }
    if from_bits < to_bits {
        let ratio = to_bits / from_bits;
        return match operand.dims().split_last() {
            Some((&last, rest)) if last == i64::from(ratio) => Ok(Shape::new(element_type, rest)),
            _ => Err(invalid(
                OP,
                OpProblem::BitcastConvertLastDimension {
                    operand: operand.clone(),
                    to,
                    ratio,
                },
            )),
        };
    }
    Ok(to)
}

/// `bitcast` of `operand` to the declared `result`: under the default
/// layouts (the only ones oxla has) a reshape, so the element type and the
/// element count must be kept.
///
/// ```
/// use oxla_ir::{shape_inference::infer_bitcast_shape, ElementType::*, Shape};
/// let x = Shape::new(F32, &[2, 3]);
/// assert_eq!(infer_bitcast_shape(&x, &Shape::new(F32, &[6]))?.to_string(), "f32[6]");
/// assert!(infer_bitcast_shape(&x, &Shape::new(S32, &[6])).is_err());
/// assert!(infer_bitcast_shape(&x, &Shape::new(F32, &[5])).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_bitcast_shape(operand: &Shape, result: &Shape) -> Result<Shape> {
    const OP: &str = "bitcast";
    require_array(OP, "the operand", operand)?;
    require_array(OP, "the result", result)?;
    let result = validate_result(OP, result.clone(), &[operand])?;
    if result.element_type() != operand.element_type() {
        return Err(invalid(
            OP,
            OpProblem::BitcastElementType {
                operand: operand.clone(),
                result,
            },
        ));
    }
    if result.element_count() != operand.element_count() {
        return Err(invalid(
            OP,
            OpProblem::BitcastElementCount {
                operand: operand.clone(),
                result,
            },
        ));
    }
    Ok(result)
}

/// `reduce-precision`: a float operand, `exponent_bits >= 1`,
/// `mantissa_bits >= 0`; the shape is kept.
///
/// ```
/// use oxla_ir::{shape_inference::infer_reduce_precision_shape, ElementType::*, Shape};
/// let x = Shape::new(F32, &[8]);
/// assert_eq!(infer_reduce_precision_shape(&x, 8, 7)?, x);
/// assert!(infer_reduce_precision_shape(&x, 0, 7).is_err());
/// assert!(infer_reduce_precision_shape(&Shape::new(S32, &[8]), 8, 7).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_reduce_precision_shape(
    operand: &Shape,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Shape> {
    const OP: &str = "reduce-precision";
    require_array(OP, "the operand", operand)?;
    if !operand.element_type().is_float() {
        return Err(type_error(OP, operand, TypeSet::Float));
    }
    if exponent_bits < 1 {
        return Err(invalid(
            OP,
            OpProblem::ReducePrecisionExponentBits {
                operand: operand.clone(),
                exponent_bits,
            },
        ));
    }
    if mantissa_bits < 0 {
        return Err(invalid(
            OP,
            OpProblem::ReducePrecisionMantissaBits {
                operand: operand.clone(),
                mantissa_bits,
            },
        ));
    }
    Ok(operand.clone())
}

/// `rng(a, b)` with the declared `result`: two scalars of the result's
/// element type; `rng_normal` needs floats (`rng_uniform` takes floats,
/// integers and `pred`, which is every array type).
///
/// ```
/// use oxla_ir::{shape_inference::infer_rng_shape, ir::RngDistribution, ElementType::*, Shape};
/// let s = Shape::scalar(F32);
/// let out = Shape::new(F32, &[16]);
/// assert_eq!(infer_rng_shape(&s, &s, RngDistribution::Normal, &out)?, out);
/// let i = Shape::scalar(S32);
/// assert!(infer_rng_shape(&i, &i, RngDistribution::Normal, &Shape::new(S32, &[16])).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_rng_shape(
    a: &Shape,
    b: &Shape,
    distribution: RngDistribution,
    result: &Shape,
) -> Result<Shape> {
    const OP: &str = "rng";
    require_array(OP, "the first operand", a)?;
    require_array(OP, "the second operand", b)?;
    if !a.is_scalar() || !b.is_scalar() {
        return Err(invalid(
            OP,
            OpProblem::RngOperandsNotScalar {
                a: a.clone(),
                b: b.clone(),
            },
        ));
    }
    if result.is_tuple() {
        return Err(invalid(
            OP,
            OpProblem::RngTupleResult {
                result: result.clone(),
            },
        ));
    }
    if a.element_type() != b.element_type() || a.element_type() != result.element_type() {
        return Err(invalid(
            OP,
            OpProblem::RngElementTypes {
                a: a.clone(),
                b: b.clone(),
                result: result.clone(),
            },
        ));
    }
    match distribution {
        RngDistribution::Uniform => {}
        RngDistribution::Normal => {
            if !result.element_type().is_float() {
                return Err(invalid(
                    OP,
                    OpProblem::RngNormalType {
                        result: result.clone(),
                    },
                ));
            }
        }
    }
    validate_result(OP, result.clone(), &[a, b])
}

/// `rng-bit-generator(state)` with the declared `result`: a pair
/// `(new_state, bits)` whose `new_state` is the state's shape, `bits` an
/// unsigned integer array (what XlaBuilder emits), and a state the
/// algorithm reads: `u64[2]` for ThreeFry, `u64[2]` or `u64[3]` for Philox
/// and the default (StableHLO's rule; XLA does not check it).
///
/// ```
/// use oxla_ir::{shape_inference::infer_rng_bit_generator_shape, ir::RngAlgorithm, ElementType::*, Shape};
/// let state = Shape::new(U64, &[2]);
/// let out = Shape::tuple(vec![state.clone(), Shape::new(U32, &[4, 4])]);
/// assert_eq!(infer_rng_bit_generator_shape(&state, RngAlgorithm::ThreeFry, &out)?, out);
/// let three = Shape::new(U64, &[3]);
/// let out3 = Shape::tuple(vec![three.clone(), Shape::new(U32, &[4])]);
/// assert!(infer_rng_bit_generator_shape(&three, RngAlgorithm::ThreeFry, &out3).is_err());
/// assert!(infer_rng_bit_generator_shape(&three, RngAlgorithm::Philox, &out3).is_ok());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_rng_bit_generator_shape(
    state: &Shape,
    algorithm: RngAlgorithm,
    result: &Shape,
) -> Result<Shape> {
    const OP: &str = "rng-bit-generator";
    require_array(OP, "the state", state)?;
    let [new_state, bits] = result.tuple_shapes() else {
        return Err(invalid(
            OP,
            OpProblem::RngBitGeneratorResult {
                result: result.clone(),
            },
        ));
    };
    if new_state != state {
        return Err(invalid(
            OP,
            OpProblem::RngBitGeneratorStateMismatch {
                state: state.clone(),
                new_state: new_state.clone(),
            },
        ));
    }
    if !bits.is_array() || !bits.element_type().is_unsigned_integer() {
        return Err(invalid(
            OP,
            OpProblem::RngBitGeneratorBits { bits: bits.clone() },
        ));
    }
    let (sizes, expected): (&[i64], &str) = match algorithm {
        RngAlgorithm::ThreeFry => (&[2], "u64[2]"),
        RngAlgorithm::Philox | RngAlgorithm::Default => (&[2, 3], "u64[2] or u64[3]"),
    };
    let state_ok = state.element_type() == ElementType::U64
        && state.rank() == 1
        && sizes.contains(&state.dims()[0]);
    if !state_ok {
        return Err(invalid(
            OP,
            OpProblem::RngBitGeneratorState {
                algorithm: algorithm.name().to_string(),
                expected: expected.to_string(),
                state: state.clone(),
            },
        ));
    }
    validate_result(OP, bits.clone(), &[state])?;
    Ok(result.clone())
}

/// `cholesky(a)`: floats or complex, rank >= 2, square minor dimensions; the shape is
/// kept.
///
/// ```
/// use oxla_ir::{shape_inference::infer_cholesky_shape, ElementType::F32, Shape};
/// let a = Shape::new(F32, &[3, 4, 4]);
/// assert_eq!(infer_cholesky_shape(&a)?, a);
/// assert!(infer_cholesky_shape(&Shape::new(F32, &[4, 3])).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_cholesky_shape(a: &Shape) -> Result<Shape> {
    const OP: &str = "cholesky";
    require_array(OP, "the operand", a)?;
    if !(a.element_type().is_float() || a.element_type().is_complex()) {
        return Err(type_error(OP, a, TypeSet::FloatOrComplex));
    }
    let n = a.rank();
    if n < 2 {
        return Err(invalid(OP, OpProblem::CholeskyRank { a: a.clone() }));
    }
    if a.dims()[n - 2] != a.dims()[n - 1] {
        return Err(invalid(OP, OpProblem::CholeskyNotSquare { a: a.clone() }));
    }
    Ok(a.clone())
}

/// `triangular-solve(a, b)`: one float or complex type; `a` of rank >= 2 and square,
/// `b` of `a`'s rank whose solved dimension (the second-to-last if
/// `left_side`, else the last) is `a`'s size, with the same leading batch
/// dimensions. The result is `b`'s shape.
///
/// ```
/// use oxla_ir::{shape_inference::infer_triangular_solve_shape, ElementType::F32, Shape};
/// use oxla_ir::ir::{Transpose, TriangularSolveOptions};
/// let options = TriangularSolveOptions {
///     left_side: true, lower: true, unit_diagonal: false, transpose_a: Transpose::NoTranspose,
/// };
/// let (a, b) = (Shape::new(F32, &[4, 4]), Shape::new(F32, &[4, 2]));
/// assert_eq!(infer_triangular_solve_shape(&a, &b, &options)?, b);
/// let right = TriangularSolveOptions { left_side: false, ..options };
/// assert!(infer_triangular_solve_shape(&a, &b, &right).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_triangular_solve_shape(
    a: &Shape,
    b: &Shape,
    options: &TriangularSolveOptions,
) -> Result<Shape> {
    const OP: &str = "triangular-solve";
    require_array(OP, "a", a)?;
    require_array(OP, "b", b)?;
    let pair = || (a.clone(), b.clone());
    let ty = a.element_type();
    if !(ty.is_float() || ty.is_complex()) || ty != b.element_type() {
        let (a, b) = pair();
        return Err(invalid(OP, OpProblem::TriangularSolveTypes { a, b }));
    }
    let n = a.rank();
    if n < 2 {
        return Err(invalid(OP, OpProblem::TriangularSolveRank { a: a.clone() }));
    }
    if b.rank() != n {
        let (a, b) = pair();
        return Err(invalid(OP, OpProblem::TriangularSolveRanks { a, b }));
    }
    if a.dims()[n - 2] != a.dims()[n - 1] {
        return Err(invalid(
            OP,
            OpProblem::TriangularSolveNotSquare { a: a.clone() },
        ));
    }
    let solved = if options.left_side { n - 2 } else { n - 1 };
    if a.dims()[n - 1] != b.dims()[solved] {
        let (a, b) = pair();
        return Err(invalid(
            OP,
            OpProblem::TriangularSolveSharedDimension {
                a,
                b,
                left_side: options.left_side,
            },
        ));
    }
    if a.dims()[..n - 2] != b.dims()[..n - 2] {
        let (a, b) = pair();
        return Err(invalid(
            OP,
            OpProblem::TriangularSolveBatchDimensions { a, b },
        ));
    }
    Ok(b.clone())
}

/// The checks the three batch-norm ops share on `feature_index` and their
/// per-feature inputs; each op calls them in XLA's order.
struct BatchNorm<'a> {
    op: &'static str,
    operand: &'a Shape,
}

/// A per-feature input: its shape, its name in rank messages (`Scale`)
/// and in type and size messages (`scale factor`).
type FeatureInput<'a> = (&'a Shape, &'static str, &'static str);

impl BatchNorm<'_> {
    fn problem(&self, problem: OpProblem) -> crate::Error {
        invalid(self.op, problem)
    }

    fn feature_index(&self, feature_index: i64) -> Result<()> {
        if feature_index >= self.operand.rank() as i64 {
            return Err(self.problem(OpProblem::BatchNormFeatureIndexTooLarge {
                op: self.op.to_string(),
                operand: self.operand.clone(),
                feature_index,
            }));
        }
        // XLA's batch-norm-grad skips this check (and then indexes with the
        // negative number); every op here makes it.
        if feature_index < 0 {
            return Err(self.problem(OpProblem::BatchNormFeatureIndexNegative {
                op: self.op.to_string(),
                operand: self.operand.clone(),
                feature_index,
            }));
        }
        Ok(())
    }

    fn ranks(&self, inputs: &[FeatureInput]) -> Result<()> {
        for &(shape, rank_name, _) in inputs {
            if shape.rank() != 1 {
                return Err(self.problem(OpProblem::BatchNormInputRank {
                    op: self.op.to_string(),
                    input: rank_name.to_string(),
                    shape: shape.clone(),
                }));
            }
        }
        Ok(())
    }

    fn float(&self, what: &str, shape: &Shape) -> Result<()> {
        if shape.element_type().is_float() {
            return Ok(());
        }
        Err(self.problem(OpProblem::BatchNormNotFloat {
            op: self.op.to_string(),
            what: what.to_string(),
            shape: shape.clone(),
        }))
    }

    fn types(&self, inputs: &[FeatureInput]) -> Result<()> {
        for &(shape, _, name) in inputs {
            if shape.element_type() != self.operand.element_type() {
                return Err(self.problem(OpProblem::BatchNormInputType {
                    op: self.op.to_string(),
                    input: name.to_string(),
                    shape: shape.clone(),
                    operand: self.operand.clone(),
                }));
            }
        }
        Ok(())
    }

    fn sizes(&self, inputs: &[FeatureInput], feature_index: i64) -> Result<Shape> {
        let feature_count = self.operand.dims()[feature_index as usize];
        for &(shape, _, name) in inputs {
            if shape.dims()[0] != feature_count {
                return Err(self.problem(OpProblem::BatchNormFeatureCount {
                    input: name.to_string(),
                    shape: shape.clone(),
                    feature_count,
                    operand: self.operand.clone(),
                }));
            }
        }
        Ok(Shape::new(self.operand.element_type(), &[feature_count]))
    }
}

/// `batch-norm-training(x, scale, offset)`: gives `(y, mean, variance)`,
/// `y` of `x`'s shape and the statistics of the feature dimension's size.
///
/// ```
/// use oxla_ir::{shape_inference::infer_batch_norm_training_shape, ElementType::F32, Shape};
/// let (x, v) = (Shape::new(F32, &[8, 16]), Shape::new(F32, &[16]));
/// let out = infer_batch_norm_training_shape(&x, &v, &v, 1)?;
/// assert_eq!(out.to_string(), "(f32[8,16], f32[16], f32[16])");
/// assert!(infer_batch_norm_training_shape(&x, &v, &v, 0).is_err()); // 8 features, not 16
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_batch_norm_training_shape(
    operand: &Shape,
    scale: &Shape,
    offset: &Shape,
    feature_index: i64,
) -> Result<Shape> {
    const OP: &str = "batch-norm-training";
    require_array(OP, "the operand", operand)?;
    require_array(OP, "the offset", offset)?;
    require_array(OP, "the scale", scale)?;
    let bn = BatchNorm { op: OP, operand };
    bn.feature_index(feature_index)?;
    let inputs: [FeatureInput; 2] = [
        (offset, "Offset", "offset factor"),
        (scale, "Scale", "scale factor"),
    ];
    bn.ranks(&inputs)?;
    bn.float("operand", operand)?;
    bn.types(&inputs)?;
    let feature = bn.sizes(&inputs, feature_index)?;
    Ok(Shape::tuple(vec![
        operand.clone(),
        feature.clone(),
        feature,
    ]))
}

/// `batch-norm-inference(x, scale, offset, mean, variance)`: gives `x`'s
/// shape.
///
/// ```
/// use oxla_ir::{shape_inference::infer_batch_norm_inference_shape, ElementType::F32, Shape};
/// let (x, v) = (Shape::new(F32, &[2, 3, 5]), Shape::new(F32, &[3]));
/// assert_eq!(infer_batch_norm_inference_shape(&x, &v, &v, &v, &v, 1)?, x);
/// assert!(infer_batch_norm_inference_shape(&x, &v, &v, &v, &v, 3).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_batch_norm_inference_shape(
    operand: &Shape,
    scale: &Shape,
    offset: &Shape,
    mean: &Shape,
    variance: &Shape,
    feature_index: i64,
) -> Result<Shape> {
    const OP: &str = "batch-norm-inference";
    require_array(OP, "the operand", operand)?;
    require_array(OP, "the offset", offset)?;
    require_array(OP, "the scale", scale)?;
    require_array(OP, "the mean", mean)?;
    require_array(OP, "the variance", variance)?;
    let bn = BatchNorm { op: OP, operand };
    bn.feature_index(feature_index)?;
    // XLA checks the ranks of offset and scale only; the sizes below read
    // mean's and variance's first dimension, so oxla checks theirs too.
    bn.ranks(&[
        (offset, "Offset", "offset factor"),
        (scale, "Scale", "scale factor"),
        (mean, "Mean", "mean"),
        (variance, "Variance", "variance"),
    ])?;
    bn.float("operand", operand)?;
    let inputs: [FeatureInput; 4] = [
        (offset, "Offset", "offset factor"),
        (scale, "Scale", "scale factor"),
        (mean, "Mean", "mean"),
        (variance, "Variance", "variance"),
    ];
    bn.types(&inputs)?;
    bn.sizes(&inputs, feature_index)?;
    Ok(operand.clone())
}

/// `batch-norm-grad(x, scale, mean, variance, grad_output)`: gives
/// `(grad_x, grad_scale, grad_offset)`, `grad_x` of `x`'s shape.
///
/// ```
/// use oxla_ir::{shape_inference::infer_batch_norm_grad_shape, ElementType::F32, Shape};
/// let (x, v) = (Shape::new(F32, &[4, 2]), Shape::new(F32, &[2]));
/// let out = infer_batch_norm_grad_shape(&x, &v, &v, &v, &x, 1)?;
/// assert_eq!(out.to_string(), "(f32[4,2], f32[2], f32[2])");
/// assert!(infer_batch_norm_grad_shape(&x, &v, &v, &v, &Shape::new(F32, &[4, 3]), 1).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_batch_norm_grad_shape(
    operand: &Shape,
    scale: &Shape,
    mean: &Shape,
    variance: &Shape,
    grad_output: &Shape,
    feature_index: i64,
) -> Result<Shape> {
    const OP: &str = "batch-norm-grad";
    require_array(OP, "the operand", operand)?;
    require_array(OP, "the scale", scale)?;
    require_array(OP, "the mean", mean)?;
    require_array(OP, "the variance", variance)?;
    require_array(OP, "the output gradient", grad_output)?;
    let bn = BatchNorm { op: OP, operand };
    bn.feature_index(feature_index)?;
    if operand.rank() != grad_output.rank() {
        return Err(invalid(
            OP,
            OpProblem::BatchNormGradRanks {
                operand: operand.clone(),
                grad_output: grad_output.clone(),
            },
        ));
    }
    bn.ranks(&[
        (mean, "Mean", "mean"),
        (scale, "Scale", "scale factor"),
        (variance, "Var", "variance"),
    ])?;
    bn.float("operand", operand)?;
    bn.float("output_grad", grad_output)?;
    bn.types(&[
        (grad_output, "", "output_grad"),
        (scale, "Scale", "scale factor"),
        (mean, "Mean", "mean"),
        (variance, "Var", "variance"),
    ])?;
    let feature = bn.sizes(
        &[
            (mean, "Mean", "mean"),
            (scale, "Scale", "scale factor"),
            (variance, "Var", "variance"),
        ],
        feature_index,
    )?;
    if let Some(dimension) =
        (0..operand.rank()).find(|&i| operand.dims()[i] != grad_output.dims()[i])
    {
        return Err(invalid(
            OP,
            OpProblem::BatchNormGradBounds {
                operand: operand.clone(),
                grad_output: grad_output.clone(),
                dimension,
            },
        ));
    }
    Ok(Shape::tuple(vec![
        operand.clone(),
        feature.clone(),
        feature,
    ]))
}
