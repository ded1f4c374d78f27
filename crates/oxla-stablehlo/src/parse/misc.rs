//! The misc family's lowerings: `bitcast_convert`, `reduce_precision`,
//! `rng`, `rng_bit_generator`, `cholesky`, `triangular_solve` and the batch
//! norms, each one HLO instruction (the unary ops are rows of
//! [`super::ops::OPS`] with [`super::ops::Lower::Unary`]).
//!
//! The attributes are StableHLO's, read in either form (the pretty forms
//! store them under the generic names, see [`super::pretty`]); every
//! attribute StableHLO requires is required here too.

use oxla_ir::ir::{InstId, OpKind};
use oxla_ir::{Result, RngAlgorithm, RngDistribution, Shape, Transpose, TriangularSolveOptions};

use super::lower::OpCx;
use super::ops::tuple_results;
use super::syntax::Attr;

type Cx<'c, 'l, 'm, 's, 'a> = &'c mut OpCx<'l, 'm, 's, 'a>;

/// A boolean attribute; `default` when it is absent (an error when there
/// is none).
fn flag(cx: Cx<'_, '_, '_, '_, '_>, key: &str, default: Option<bool>) -> Result<bool> {
    let example = format!("{key} = true");
    let a = match (cx.attr(key), default) {
        (Some(a), _) => a,
        (None, Some(d)) => return Ok(d),
        (None, None) => {
            return Err(cx.err(
                cx.op.pos,
                format!("the attribute `{key}` is missing"),
                example,
            ));
        }
    };
    match &a.attr {
        Attr::Bool(b) => Ok(*b),
        _ => Err(cx.err(a.pos, format!("`{key}` must be true or false"), example)),
    }
}

/// The one instruction `kind` on all the operands, with the declared result.
fn one(cx: Cx<'_, '_, '_, '_, '_>, kind: OpKind) -> Result<Vec<InstId>> {
    let r = cx.results[0].clone();
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}

/// The one instruction `kind`, whose several StableHLO results are the
/// elements of its tuple.
fn tupled(cx: Cx<'_, '_, '_, '_, '_>, kind: OpKind) -> Result<Vec<InstId>> {
    let shape = Shape::tuple(cx.results.clone());
    let t = cx.push(kind, cx.operands.clone(), &shape)?;
    tuple_results(cx, t)
}

pub(super) fn bitcast_convert(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    one(cx, OpKind::BitcastConvert)
}

pub(super) fn reduce_precision(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let exponent_bits = cx.int("exponent_bits", "format = e5m10")?;
    let mantissa_bits = cx.int("mantissa_bits", "format = e5m10")?;
    one(
        cx,
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        },
    )
}

/// `stablehlo.rng %a, %b, %shape`: HLO's `rng(a, b)` with the result's
/// shape, which the `shape` operand must state as a constant.
pub(super) fn rng(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 1)?;
    let Some((word, pos)) = cx.word("rng_distribution") else {
        return Err(cx.err(
            cx.op.pos,
            "the distribution is missing",
            "distribution = UNIFORM or NORMAL",
        ));
    };
    let distribution = match word.as_str() {
        "UNIFORM" => RngDistribution::Uniform,
        "NORMAL" => RngDistribution::Normal,
        w => {
            return Err(cx.err(
                pos,
                format!("unknown distribution `{w}`"),
                "UNIFORM or NORMAL",
            ));
        }
    };
    let r = cx.results[0].clone();
    let shape = cx.operands[2];
    let stated = cx.constant_value(shape).and_then(|l| {
        let s = l.shape();
        let n = s.element_count() as usize;
        (s.rank() == 1 && s.element_type().is_integer())
            .then(|| {
                let data = l.array_data()?;
                (0..n)
                    .map(|i| data.format_value(i).parse::<i64>().ok())
                    .collect::<Option<Vec<i64>>>()
            })
            .flatten()
    });
    match stated {
        Some(dims) if dims.as_slice() == r.dims() => {}
        Some(dims) => {
            return Err(cx.err(
                cx.op.pos,
                format!("the shape operand gives dims {dims:?}, but the result is {r}"),
                "a shape operand equal to the result's dims",
            ));
        }
        None => {
            return Err(cx.err(
                cx.op.pos,
                format!(
                    "the shape operand ({}) is not a constant rank-1 integer tensor: oxla needs static shapes",
                    cx.shape(shape)
                ),
                "a constant shape operand, such as dense<[2, 3]> : tensor<2xi64>",
            ));
        }
    }
    // HLO's `rng` takes its shape from its result type: the constant is
    // dropped unless something else uses it.
    cx.read_only(shape);
    let operands = cx.operands[..2].to_vec();
    Ok(vec![cx.push(OpKind::Rng { distribution }, operands, &r)?])
}

pub(super) fn rng_bit_generator(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 2)?;
    let Some((word, pos)) = cx.word("rng_algorithm") else {
        return Err(cx.err(
            cx.op.pos,
            "the algorithm is missing",
            "algorithm = DEFAULT, THREE_FRY or PHILOX",
        ));
    };
    let algorithm = match word.as_str() {
        "DEFAULT" => RngAlgorithm::Default,
        "THREE_FRY" => RngAlgorithm::ThreeFry,
        "PHILOX" => RngAlgorithm::Philox,
        w => {
            return Err(cx.err(
                pos,
                format!("unknown algorithm `{w}`"),
                "DEFAULT, THREE_FRY or PHILOX",
            ));
        }
    };
    tupled(cx, OpKind::RngBitGenerator { algorithm })
}

/// `lower` is optional in StableHLO (false when absent).
pub(super) fn cholesky(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let lower = flag(cx, "lower", Some(false))?;
    one(cx, OpKind::Cholesky { lower })
}

/// Every option is required, as StableHLO requires them.
pub(super) fn triangular_solve(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let left_side = flag(cx, "left_side", None)?;
    let lower = flag(cx, "lower", None)?;
    let unit_diagonal = flag(cx, "unit_diagonal", None)?;
    let example = "transpose_a = #stablehlo<transpose NO_TRANSPOSE>";
    let Some((word, pos)) = cx.word("transpose_a") else {
        return Err(cx.err(cx.op.pos, "the attribute `transpose_a` is missing", example));
    };
    let transpose_a = Transpose::from_name(&word).ok_or_else(|| {
        cx.err(
            pos,
            format!("unknown transpose `{word}`"),
            "NO_TRANSPOSE, TRANSPOSE or ADJOINT",
        )
    })?;
    let options = TriangularSolveOptions {
        left_side,
        lower,
        unit_diagonal,
        transpose_a,
    };
    one(cx, OpKind::TriangularSolve { options })
}

/// `epsilon` (an `f32`, as written or as hex bits) and `feature_index`.
fn batch_norm_attrs(cx: Cx<'_, '_, '_, '_, '_>) -> Result<(f32, i64)> {
    let example = "epsilon = 1.000000e-03 : f32";
    let a = cx.required("epsilon", example)?;
    let epsilon = match &a.attr {
        Attr::Float(t) => match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16).ok().map(f32::from_bits),
            None => t.parse::<f32>().ok(),
        },
        _ => None,
    };
    let Some(epsilon) = epsilon else {
        return Err(cx.err(a.pos, "`epsilon` must be an f32", example));
    };
    let feature_index = cx.int("feature_index", "feature_index = 1 : i64")?;
    Ok((epsilon, feature_index))
}

pub(super) fn batch_norm_training(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 3)?;
    let (epsilon, feature_index) = batch_norm_attrs(cx)?;
    tupled(
        cx,
        OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        },
    )
}

pub(super) fn batch_norm_inference(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(5, 1)?;
    let (epsilon, feature_index) = batch_norm_attrs(cx)?;
    one(
        cx,
        OpKind::BatchNormInference {
            epsilon,
            feature_index,
        },
    )
}

pub(super) fn batch_norm_grad(cx: Cx<'_, '_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(5, 3)?;
    let (epsilon, feature_index) = batch_norm_attrs(cx)?;
    tupled(
        cx,
        OpKind::BatchNormGrad {
            epsilon,
            feature_index,
        },
    )
}
