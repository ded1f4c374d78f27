//! # oxla-interp: the reference interpreter
//!
//! This crate exists to be the **oracle**: every other backend (the
//! Cranelift JIT first) is checked against [`evaluate`] bit for bit. It is
//! written for obviousness and exactness, not speed: each op is a direct
//! transcription of XLA's semantics over row-major `Vec`s, one element at a
//! time, with no fusion, no reassociation and no fused multiply-add. When
//! the JIT and the interpreter disagree, the interpreter is presumed right,
//! so every choice below is XLA's (its `HloEvaluator`), spelled out.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, Literal, Shape};
//! let mut b = Builder::new("add_row");
//! let m = b.parameter(0, Shape::new(F32, &[2, 3]), "m")?;
//! let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
//! let y = b.add(m, v, &[1])?; // v is added to every row
//! let comp = b.build(y)?;
//! let m = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?;
//! let v = Literal::from_vec(&[3], vec![7f32, 8., 9.])?;
//! let out = oxla_interp::evaluate(&comp, &[&m, &v])?;
//! assert_eq!(out.to_vec::<f32>()?, vec![8., 10., 12., 11., 13., 15.]);
//! # Ok::<(), oxla_ir::Error>(())
//! ```
//!
//! ## How it works
//!
//! [`evaluate`] verifies the computation, checks the arguments, then walks
//! the entry body's instructions in order (they are topologically ordered),
//! keeping one value per [`InstId`](oxla_ir::InstId) in a `Vec`. Parameters
//! and constants are borrowed, not copied. A `reduce` runs its reducer body
//! through the same evaluator, once per element, on scalar literals; a
//! reducer that is a single binary op of its two parameters is applied as
//! that op's element function directly (the same function, minus the
//! literals).
//!
//! Elementwise operands that do not have the result's dims are read through
//! a stride view (see the `index` module): operand dimension `i` lines up with result
//! dimension `i` (equal ranks) or `broadcast_dimensions[i]` (a lower-rank
//! operand); a scalar lines up with nothing; and any operand dimension of
//! size 1 is read at index 0 whatever the result's size (degenerate
//! broadcasting). So `f32[4] + f32[1,2]` with `{0}` gives `f32[4,2]`, and
//! `f32[1,2] + f32[4,3,1]` with `{1,2}` gives `f32[4,3,2]`.
//!
//! ## Semantics
//!
//! Integers are two's complement and wrap (`add`, `subtract`, `multiply`,
//! `negate`, `abs`, `power`, and the sums of `dot`). The edge cases:
//!
//! | op | case | result |
//! |----|------|--------|
//! | `divide` | `x / 0`, signed | `-1` (all bits set) |
//! | `divide` | `x / 0`, unsigned | `MAX` (all bits set) |
//! | `divide` | `MIN / -1` | `MIN` |
//! | `remainder` | `x % 0` | `x` |
//! | `remainder` | `MIN % -1` | `0` |
//! | `remainder` | sign | the dividend's (`-7 % 2 = -1`) |
//! | `power` | `1^y`, `x^0` (so `0^0`) | `1` |
//! | `power` | `x^y`, `y < 0`, `x != 1` (`-1` included) | `0` |
//! | `power` | `x^y`, `y > 0` | exact `x^y` modulo 2^bits |
//! | `shift-*` | amount | read as unsigned: a negative amount is huge |
//! | `shift-left` | amount ≥ bits | `0` |
//! | `shift-right-logical` | amount ≥ bits | `0` (on the unsigned bit pattern, also for signed types) |
//! | `shift-right-arithmetic` | amount ≥ bits | `0` or `-1`, by the sign bit (on the signed bit pattern, also for unsigned types) |
//! | `abs`, `negate` | `MIN` | `MIN` |
//! | `sign` | | `-1`, `0`, `1` (unsigned: `0`, `1`) |
//!
//! Floats are IEEE-754 in the element type: `add`, `subtract`, `multiply`,
//! `divide`, `sqrt` are Rust's operators, one rounding each; `remainder` is
//! C's `fmod`; `power` is `powf`; `atan2(lhs, rhs)` is `lhs.atan2(rhs)`
//! (`y` = lhs); `rsqrt` is `1 / sqrt(x)` and `logistic` is
//! `1 / (1 + exp(-x))`, both computed in the element type; transcendental
//! functions are Rust's `std` (the platform's libm). `maximum`/`minimum`
//! return NaN if either operand is NaN (the left one if both are), and
//! order `-0 < +0`. `sign` gives `±1`, keeps `±0` and NaN.
//! `round-nearest-even` rounds ties to even. Comparisons are IEEE: every
//! comparison with NaN is false except `NE`.
//!
//! `pred`: `not`, `and`, `or`, `xor` are logical; `add` and `maximum` are
//! `or`, `multiply` and `minimum` are `and`; comparisons order
//! `false < true`. For integers `not`/`and`/`or`/`xor` are bitwise.
//!
//! `convert`: float → integer truncates toward zero and saturates at the
//! integer's range, NaN → 0; integer → float rounds to nearest (ties to
//! even); integer → integer wraps (keeps the low bits); `f64 → f32` rounds
//! to nearest; `pred` → number is 0 or 1; number → `pred` is `x != 0` (NaN
//! is `true`). `iota` converts its index the same way.
//!
//! `clamp(min, x, max)` is `minimum(maximum(min, x), max)` with the rules
//! above (so a NaN anywhere gives NaN). `dot_general` starts each sum from
//! zero and adds `lhs * rhs` in increasing contracting-index order
//! (row-major over the contracting dimensions as listed), rounding after
//! every multiply and every add. `reduce` folds `acc = reducer(acc, x)`
//! from `init`, over the reduced elements in row-major order.
//!
//! ## Invariants
//!
//! - `evaluate` never panics on a computation or arguments a user can pass,
//!   and never asks for more memory than its budget (the `budget` module):
//!   it verifies the computation first, checks the arguments, adds up the
//!   bytes every result will take, checks every
//!   index view against the data it reads before the loop that reads it,
//!   and checks that every instruction produces exactly its declared shape.
//!   Anything impossible (a tuple where an array must be, an op the element
//!   type does not have) is an [`Error::Evaluation`] naming the instruction.
//! - A called body only calls bodies before it, so evaluation terminates.
//! - Nothing is reassociated or fused: the order of floating-point
//!   operations is the one documented above, and is the contract a backend
//!   must meet to agree bit for bit.

#![warn(missing_docs)]
// `oxla_ir::Error` is large (its variants carry shapes and help text as
// strings); that is oxla-ir's design, and every fallible function here
// returns it.
#![allow(clippy::result_large_err)]

mod budget;
mod element;
mod index;
mod misc;
mod ops;

pub use budget::{MAX_EVAL_BYTES, MAX_EVAL_BYTES_VAR, max_eval_bytes};

use std::borrow::Cow;

use oxla_ir::{
    ArrayData, Body, Computation, ComputationId, Error, Instruction, Literal, NativeType, OpKind,
    Result, dispatch_array,
};

use crate::element::Element;
use crate::ops::{OpResult, array};

/// Evaluates `comp` on `args` (one literal per parameter, in parameter
/// order) and returns the root's value: an array, or a tuple for a tuple
/// root.
///
/// Fails with [`Error::Verification`] if `comp` does not verify, with
/// [`Error::ArgumentCount`] or [`Error::ArgumentShape`] if `args` do not
/// match the parameters, and with [`Error::Evaluation`] if an instruction
/// cannot be evaluated or the values would need more memory than
/// [`max_eval_bytes`] (8 GiB unless `OXLA_MAX_EVAL_BYTES` says otherwise;
/// see [`evaluate_with_budget`]).
///
/// ```
/// use oxla_ir::{Builder, ElementType::{F32, S32}, Error, Literal, Shape};
/// let mut b = Builder::new("safe_div");
/// let x = b.parameter(0, Shape::new(S32, &[3]), "x")?;
/// let y = b.parameter(1, Shape::new(S32, &[3]), "y")?;
/// let q = b.div(x, y, &[])?;
/// let comp = b.build(q)?;
///
/// let x = Literal::from_vec(&[3], vec![7i32, i32::MIN, 5])?;
/// let y = Literal::from_vec(&[3], vec![2i32, -1, 0])?;
/// let q = oxla_interp::evaluate(&comp, &[&x, &y])?;
/// assert_eq!(q.to_vec::<i32>()?, vec![3, i32::MIN, -1]); // XLA: MIN/-1 = MIN, x/0 = -1
///
/// let wrong = Literal::from_vec(&[3], vec![1f32, 2., 3.])?;
/// let err = oxla_interp::evaluate(&comp, &[&x, &wrong]).unwrap_err();
/// assert!(matches!(err, Error::ArgumentShape { .. }));
/// assert!(err.to_string().contains("s32[3]") && err.to_string().contains("f32[3]"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn evaluate(comp: &Computation, args: &[&Literal]) -> Result<Literal> {
    evaluate_with_budget(comp, args, max_eval_bytes()?)
}

/// [`evaluate`] with a memory budget of `max_bytes`: before computing
/// anything, the sizes of every instruction's result (from the shapes) are
/// added up, and a computation that needs more is refused with an
/// [`Error::Evaluation`] naming the instruction, its shape and the budget,
/// rather than aborting the process when an allocation fails.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, Error, Shape};
/// let mut b = Builder::new("huge");
/// let one = b.constant_scalar(1f32)?;
/// let big = b.broadcast(one, &[100_000, 100_000, 100])?; // 4 * 10^12 bytes
/// let comp = b.build(big)?;
/// let err = oxla_interp::evaluate_with_budget(&comp, &[], 1 << 30).unwrap_err();
/// assert!(matches!(&err, Error::Evaluation { instruction, .. } if instruction == "broadcast.1"));
/// assert!(err.to_string().contains("f32[100000,100000,100]"));
/// # Ok::<(), Error>(())
/// ```
pub fn evaluate_with_budget(
    comp: &Computation,
    args: &[&Literal],
    max_bytes: u64,
) -> Result<Literal> {
    oxla_ir::verifier::verify(comp)?;
    comp.check_arguments(args)?;
    budget::check(comp, max_bytes)?;
    misc::random::with_fresh_stream(|| evaluate_body(comp, comp.entry_id(), args))
}

/// Evaluates body `id` of `comp` on `params` (already checked against its
/// parameters by the caller) and returns its root's value.
fn evaluate_body<'a>(
    comp: &'a Computation,
    id: ComputationId,
    params: &[&'a Literal],
) -> Result<Literal> {
    let body = comp
        .bodies()
        .get(id.index())
        .ok_or_else(|| Error::Evaluation {
            instruction: format!("<computation #{}>", id.0),
            message: format!("{} has no computation #{}", comp.name(), id.0),
        })?;
    let mut values: Vec<Cow<'a, Literal>> = Vec::with_capacity(body.instructions.len());
    for inst in &body.instructions {
        let fail = |message: String| Error::Evaluation {
            instruction: inst.name.clone(),
            message,
        };
        let value = evaluate_instruction(comp, id, inst, &values, params).map_err(fail)?;
        if value.shape() != &inst.shape {
            return Err(fail(format!(
                "it produced a value of shape {} but declares {}",
                value.shape(),
                inst.shape
            )));
        }
        values.push(value);
    }
    let root = body.root.index();
    values
        .into_iter()
        .nth(root)
        .map(Cow::into_owned)
        .ok_or_else(|| Error::Evaluation {
            instruction: format!("<root #{root}>"),
            message: format!("the root of `{}` is not one of its instructions", body.name),
        })
}

/// The value of `inst`, whose operands are among `values`. `body` is the id
/// of the body being evaluated (called bodies must come before it).
fn evaluate_instruction<'a>(
    comp: &'a Computation,
    body: ComputationId,
    inst: &'a Instruction,
    values: &[Cow<'a, Literal>],
    params: &[&'a Literal],
) -> OpResult<Cow<'a, Literal>> {
    let operand = |k: usize| -> OpResult<&Literal> {
        inst.operands
            .get(k)
            .and_then(|id| values.get(id.index()))
            .map(|v| v.as_ref())
            .ok_or_else(|| format!("operand {k} is missing or not yet evaluated"))
    };
    let dims = inst.shape.dims();
    let data: ArrayData = match &inst.kind {
        OpKind::Parameter { number } => {
            let arg = usize::try_from(*number)
                .ok()
                .and_then(|n| params.get(n))
                .ok_or_else(|| format!("no argument for parameter {number}"))?;
            return Ok(Cow::Borrowed(*arg));
        }
        OpKind::Constant { literal } => return Ok(Cow::Borrowed(literal)),
        OpKind::Tuple => {
            let elements = (0..inst.operands.len())
                .map(|k| operand(k).cloned())
                .collect::<OpResult<Vec<_>>>()?;
            return Ok(Cow::Owned(Literal::tuple(elements)));
        }
        OpKind::Iota { dimension } => ops::iota(&inst.shape, *dimension)?,
        OpKind::Unary(op) => ops::unary(*op, operand(0)?)?,
        OpKind::Binary {
            op,
            broadcast_dimensions,
        } => ops::binary(*op, broadcast_dimensions, operand(0)?, operand(1)?, dims)?,
        OpKind::Convert => ops::convert(operand(0)?, inst.shape.element_type())?,
        OpKind::Select => ops::select(operand(0)?, operand(1)?, operand(2)?, dims)?,
        OpKind::Clamp => ops::clamp(operand(0)?, operand(1)?, operand(2)?, dims)?,
        OpKind::Broadcast { dimensions } => ops::broadcast(operand(0)?, dimensions, dims)?,
        OpKind::Reshape => array(operand(0)?)?.clone(),
        OpKind::Transpose { permutation } => ops::transpose(operand(0)?, permutation, dims)?,
        OpKind::Slice {
            starts,
            limits: _,
            strides,
        } => ops::slice(operand(0)?, starts, strides, dims)?,
        OpKind::Concatenate { dimension } => {
            let operands = (0..inst.operands.len())
                .map(operand)
                .collect::<OpResult<Vec<_>>>()?;
            ops::concatenate(&operands, *dimension, dims)?
        }
        OpKind::Reverse { dimensions } => ops::reverse(operand(0)?, dimensions)?,
        OpKind::Pad { config } => ops::pad(operand(0)?, operand(1)?, config, dims)?,
        OpKind::Reduce {
            dimensions,
            to_apply,
        } => {
            if to_apply.index() >= body.index() {
                return Err(format!(
                    "the reducer #{} does not come before its caller #{}",
                    to_apply.0, body.0
                ));
            }
            let (x, init) = (operand(0)?, operand(1)?);
            dispatch_array!(array(x)?, v => {
                reduce(comp, *to_apply, v, x.shape().dims(), init, dimensions, dims)?.into()
            })
        }
        OpKind::DotGeneral { dims: numbers } => {
            ops::dot_general(operand(0)?, operand(1)?, numbers, dims)?
        }
        // The misc family (`misc.rs`).
        OpKind::BitcastConvert => misc::bitcast_convert(operand(0)?, inst.shape.element_type())?,
        OpKind::Bitcast => array(operand(0)?)?.clone(),
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => misc::reduce_precision(operand(0)?, *exponent_bits, *mantissa_bits)?,
        OpKind::Rng { distribution } => {
            misc::rng(*distribution, operand(0)?, operand(1)?, &inst.shape)?
        }
        OpKind::RngBitGenerator { algorithm } => {
            let bits = inst
                .shape
                .tuple_shapes()
                .get(1)
                .ok_or("rng-bit-generator's result is not a (state, bits) pair")?;
            return Ok(Cow::Owned(misc::rng_bit_generator(
                *algorithm,
                operand(0)?,
                bits,
            )?));
        }
        OpKind::Cholesky { lower } => misc::cholesky(operand(0)?, *lower)?,
        OpKind::TriangularSolve { options } => {
            misc::triangular_solve(operand(0)?, operand(1)?, options)?
        }
        OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. } => {
            let args = (0..inst.operands.len())
                .map(operand)
                .collect::<OpResult<Vec<_>>>()?;
            return evaluate_expansion(&inst.kind, &args).map(Cow::Owned);
        }
    };
    Literal::from_array_data(dims, data)
        .map(Cow::Owned)
        .map_err(|e| e.to_string())
}

/// A batch-norm op, evaluated as the expansion into primitives XLA runs
/// (`oxla_ir::passes::batch_norm`) on the operand values `args`.
fn evaluate_expansion(kind: &OpKind, args: &[&Literal]) -> OpResult<Literal> {
    let shapes: Vec<_> = args.iter().map(|a| a.shape().clone()).collect();
    let expansion = oxla_ir::passes::batch_norm::expansion(kind, &shapes)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{} has no expansion", kind.opcode_name()))?;
    evaluate_body(&expansion, expansion.entry_id(), args)
        .map_err(|e| format!("in the expansion of {}: {e}", kind.opcode_name()))
}

/// `reduce` of `x` (of dims `x_dims`) with the reducer body `to_apply`.
///
/// A reducer whose root is one binary op of its two parameters (`add`,
/// `maximum`, ...: nearly every reducer) is applied as that op's element
/// function, the very function its body would run on the two scalars;
/// any other reducer runs its body through the evaluator, once per element.
fn reduce<T: Element>(
    comp: &Computation,
    to_apply: ComputationId,
    x: &[T],
    x_dims: &[i64],
    init: &Literal,
    dimensions: &[i64],
    out_dims: &[i64],
) -> OpResult<Vec<T>> {
    let init = ops::scalar_value(init)?;
    let direct = comp
        .bodies()
        .get(to_apply.index())
        .and_then(Body::binary_reducer)
        .and_then(|r| {
            let (first, second) = if r.swapped { (1, 0) } else { (0, 1) };
            Some((T::binary_fn(r.op)?, first, second))
        });
    match direct {
        Some((f, first, second)) => {
            ops::reduce(x, x_dims, init, dimensions, out_dims, |acc, elem| {
                let params = [acc, elem];
                Ok(f(params[first], params[second]))
            })
        }
        None => ops::reduce(x, x_dims, init, dimensions, out_dims, |acc, elem| {
            call_reducer(comp, to_apply, acc, elem)
        }),
    }
}

/// Runs the reducer body `id` on two scalars of type `T` and returns its
/// scalar result.
fn call_reducer<T: NativeType>(comp: &Computation, id: ComputationId, acc: T, x: T) -> OpResult<T> {
    let (acc, x) = (Literal::scalar(acc), Literal::scalar(x));
    let name = comp
        .bodies()
        .get(id.index())
        .map_or("?", |b| b.name.as_str());
    let result = evaluate_body(comp, id, &[&acc, &x])
        .map_err(|e| format!("in the reducer `{name}`: {e}"))?;
    match result.as_slice::<T>() {
        Ok(&[value]) if result.shape().rank() == 0 => Ok(value),
        _ => Err(format!(
            "the reducer `{name}` returned {} instead of a {}[] scalar",
            result.shape(),
            T::ELEMENT_TYPE
        )),
    }
}
