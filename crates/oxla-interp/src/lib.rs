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
//! keeping one value per [`InstId`](oxla_ir::InstId) in a `Vec` until the
//! last instruction that reads it. Values (the `value` module) are shared,
//! never copied: parameters and constants are borrowed, computed arrays sit
//! behind an `Rc`, and a tuple is a list of values, so building one, taking
//! an element out, or handing a loop's state to the next iteration copies
//! no array; an operand read for the last time is handed over rather than
//! shared. A `reduce` runs its reducer body through the same evaluator,
//! once per element, on scalar literals; a reducer that is a single binary
//! op of its two parameters is applied as that op's element function
//! directly (the same function, minus the literals). `while`,
//! `conditional`, `map` and the variadic `reduce` run their bodies through
//! the same evaluator too (the `ctrl` module), at most
//! [`MAX_CALL_DEPTH`] calls deep.
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
//! functions are Rust's `std` (the platform's libm), except `erf`, `cbrt`
//! and `tan`, which are musl's libm (the `libm` crate: the same bits on
//! every host, within one ulp). `maximum`/`minimum`
//! return NaN if either operand is NaN (the left one if both are), and
//! order `-0 < +0`. `sign` gives `±1`, keeps `±0` and NaN.
//! `round-nearest-even` rounds ties to even, `round-nearest-afz` away from
//! zero (Rust's `round`). `popcnt` and `count-leading-zeros` count on the
//! element's own bits. Comparisons are IEEE: every
//! comparison with NaN is false except `NE`; with `type=TOTALORDER` they
//! compare XLA's integer keys of the bits instead (`-NaN < -inf < -0 < +0 <
//! +inf < +NaN`, `-0 != +0`).
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
//! above (so a NaN anywhere gives NaN; for `pred`, `(x or min) and max`).
//! The misc family's other ops (bitcasts, `reduce-precision`, the random
//! numbers, `cholesky`, `triangular-solve`, batch norm) are in the `misc`
//! module, whose docs give their rules; `docs/ops.md` has them all. `dot_general` starts each sum from
//! zero and adds `lhs * rhs` in increasing contracting-index order
//! (row-major over the contracting dimensions as listed), rounding after
//! every multiply and every add. `reduce` folds `acc = reducer(acc, x)`
//! from `init`, over the reduced elements in row-major order. The windowed
//! ops (`convolution`, `reduce-window`, `select-and-scatter`) follow XLA's
//! evaluator: see the `windows` module and `docs/ops.md`. `sort` is one
//! stable merge sort whatever `is_stable` says, and `topk` a stable sort by
//! the total order (the `sort` module, `docs/ops.md`).
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
//! - A called body only calls bodies before it, so calls nest boundedly
//!   (and [`MAX_CALL_DEPTH`] bounds the stack). A `while` whose condition
//!   never fails runs forever, as in XLA.
//! - Nothing is reassociated or fused: the order of floating-point
//!   operations is the one documented above, and is the contract a backend
//!   must meet to agree bit for bit.

#![warn(missing_docs)]
// `oxla_ir::Error` is large (its variants carry shapes and help text as
// strings); that is oxla-ir's design, and every fallible function here
// returns it.
#![allow(clippy::result_large_err)]

mod budget;
mod complex;
mod ctrl;
mod element;
mod index;
mod indexing;
mod misc;
mod narrow;
mod ops;
mod ragged_dot;
mod sort;
mod value;
mod windows;

pub use budget::{MAX_EVAL_BYTES, MAX_EVAL_BYTES_VAR, max_eval_bytes};

use std::rc::Rc;

use oxla_ir::{
    ArrayData, Body, Computation, ComputationId, Error, Instruction, Literal, NativeType, OpKind,
    Result, dispatch_array,
};

use crate::element::Element;
use crate::ops::{OpResult, array};
use crate::value::Value;

/// How deeply called computations may nest while evaluating (a loop in a
/// loop in a branch, a reducer in a loop body ...): deeper calls are an
/// [`Error::Evaluation`] rather than a stack overflow. 64 is what the JIT
/// allows for nested folds (so the oracle covers it); each level costs
/// about 12 KiB of stack in a debug build (much less optimised), so 64
/// levels run in 768 KiB, well inside a 2 MiB thread. JAX programs nest a
/// few.
pub const MAX_CALL_DEPTH: usize = 64;

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
    // A constant printed as `{...}` has no values to compute with.
    comp.check_values_known()?;
    refuse_external_code(comp)?;
    comp.check_arguments(args)?;
    budget::check(comp, max_bytes)?;
    let cx = Eval::new(comp);
    let args: Vec<Value<'_>> = args.iter().map(|&a| Value::Borrowed(a)).collect();
    misc::random::with_fresh_stream(|| cx.call(comp.entry_id(), args, 0)).map(Value::into_literal)
}

/// Refuses a computation that calls code outside the module (a
/// `custom-call` anywhere, called bodies included): there is nothing in
/// the module to run for it. An [`Error::UnsupportedOp`] naming the target.
fn refuse_external_code(comp: &Computation) -> Result<()> {
    for body in comp.bodies() {
        for inst in &body.instructions {
            if let OpKind::CustomCall(call) = &inst.kind {
                return Err(Error::UnsupportedOp {
                    backend: "interpreter".into(),
                    op: "custom-call".into(),
                    instruction: inst.name.clone(),
                    computation: body.name.clone(),
                    reason: format!(
                        "`custom-call` to `{}` calls code outside the module; oxla cannot run it",
                        call.target
                    ),
                });
            }
        }
    }
    Ok(())
}

/// What every body evaluation of one [`evaluate`] shares: the computation,
/// and for each body where each instruction's value is read for the last
/// time (so it can be handed over rather than shared, and dropped).
pub(crate) struct Eval<'a> {
    comp: &'a Computation,
    /// `last_use[body][i]`: the last instruction reading instruction `i`'s
    /// value (`i` itself when none does; `usize::MAX` for the root).
    last_use: Vec<Vec<usize>>,
}

impl<'a> Eval<'a> {
    fn new(comp: &'a Computation) -> Eval<'a> {
        let last_use = comp
            .bodies()
            .iter()
            .map(|body| {
                let mut last: Vec<usize> = (0..body.instructions.len()).collect();
                for (i, inst) in body.instructions.iter().enumerate() {
                    for o in &inst.operands {
                        if let Some(l) = last.get_mut(o.index()) {
                            *l = (*l).max(i);
                        }
                    }
                }
                if let Some(root) = last.get_mut(body.root.index()) {
                    *root = usize::MAX;
                }
                last
            })
            .collect();
        Eval { comp, last_use }
    }

    /// The name of body `id`, for messages.
    pub(crate) fn body_name(&self, id: ComputationId) -> &'a str {
        self.comp
            .bodies()
            .get(id.index())
            .map_or("?", |b| b.name.as_str())
    }

    /// Evaluates body `id` on `params` (one value per parameter, already
    /// checked against the body's parameters by the caller's shape
    /// inference) at call depth `depth`, and returns its root's value.
    pub(crate) fn call<'b>(
        &self,
        id: ComputationId,
        params: Vec<Value<'b>>,
        depth: usize,
    ) -> Result<Value<'b>>
    where
        'a: 'b,
    {
        let at_body = |message: String| Error::Evaluation {
            instruction: format!("<computation #{}>", id.0),
            message,
        };
        if depth > MAX_CALL_DEPTH {
            return Err(at_body(format!(
                "calls nest more than {MAX_CALL_DEPTH} deep (at `{}`)",
                self.body_name(id)
            )));
        }
        let (Some(body), Some(last_use)) = (
            self.comp.bodies().get(id.index()),
            self.last_use.get(id.index()),
        ) else {
            return Err(at_body(format!(
                "{} has no computation #{}",
                self.comp.name(),
                id.0
            )));
        };
        let mut params: Vec<Option<Value<'b>>> = params.into_iter().map(Some).collect();
        let mut values: Vec<Option<Value<'b>>> = Vec::with_capacity(body.instructions.len());
        for (i, inst) in body.instructions.iter().enumerate() {
            let fail = |message: String| Error::Evaluation {
                instruction: inst.name.clone(),
                message,
            };
            let args = operands(inst, i, last_use, &mut values).map_err(fail)?;
            let value = self
                .instruction(id, inst, args, &mut params, depth)
                .map_err(fail)?;
            if !value.has_shape(&inst.shape) {
                return Err(fail(format!(
                    "it produced a value of shape {} but declares {}",
                    value.shape(),
                    inst.shape
                )));
            }
            // A value nothing reads (and not the root) is dropped at once.
            let keep = last_use.get(i).is_some_and(|&l| l != i);
            values.push(keep.then_some(value));
        }
        let root = body.root.index();
        values
            .get_mut(root)
            .and_then(Option::take)
            .ok_or_else(|| Error::Evaluation {
                instruction: format!("<root #{root}>"),
                message: format!("the root of `{}` is not one of its instructions", body.name),
            })
    }

    /// The value of `inst` (instruction of body `body`) from its operands'
    /// values `args`; a parameter takes its value out of `params`.
    fn instruction<'b>(
        &self,
        body: ComputationId,
        inst: &'a Instruction,
        mut args: Vec<Value<'b>>,
        params: &mut [Option<Value<'b>>],
        depth: usize,
    ) -> OpResult<Value<'b>>
    where
        'a: 'b,
    {
        let data: ArrayData = match &inst.kind {
            OpKind::Parameter { number } => {
                return usize::try_from(*number)
                    .ok()
                    .and_then(|n| params.get_mut(n))
                    .and_then(Option::take)
                    .ok_or_else(|| format!("no argument for parameter {number}"));
            }
            OpKind::Constant { literal } => return Ok(Value::Borrowed(literal)),
            OpKind::Tuple => return Ok(Value::tuple(args)),
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
            | OpKind::DotGeneral { .. }
            | OpKind::Convolution { .. }
            | OpKind::BitcastConvert
            | OpKind::Bitcast
            | OpKind::ReducePrecision { .. }
            | OpKind::Rng { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::Gather { .. }
            | OpKind::DynamicSlice { .. }
            | OpKind::DynamicUpdateSlice
            | OpKind::Complex
            | OpKind::Real
            | OpKind::Imag
            | OpKind::Fft { .. }
            | OpKind::StochasticConvert
            | OpKind::RaggedDot { .. } => array_op(inst, &args)?,
            OpKind::RngGetAndUpdateState { .. } => {
                return Err(
                    "rng-get-and-update-state reads the random state of XLA's runtime, \
                            which a module does not define; oxla cannot run it"
                        .into(),
                );
            }
            OpKind::Scatter {
                dims: numbers,
                indices_are_sorted: _,
                unique_indices: _,
                to_apply,
            } => {
                called_before(&[*to_apply], body)?;
                let operands = args
                    .iter()
                    .map(Value::array)
                    .collect::<OpResult<Vec<_>>>()?;
                let n = operands.len() / 2;
                let result = indexing::scatter(
                    (self, depth),
                    *to_apply,
                    &operands[..n],
                    operands[n],
                    &operands[n + 1..],
                    numbers,
                )?;
                return Ok(Value::from_literal(result));
            }
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
                if args.len() != 2 || inst.shape.is_tuple() {
                    return ctrl::reduce_variadic(self, *to_apply, &args, dimensions, inst, depth);
                }
                self.reduce_one(*to_apply, &args, dimensions, inst.shape.dims(), depth)?
            }
            // -- tuples and control flow (the ctrl family) --
            OpKind::GetTupleElement { index } => {
                return args
                    .first()
                    .ok_or_else(|| "operand 0 is missing".to_string())?
                    .element(*index);
            }
            OpKind::OptimizationBarrier => {
                return args.pop().ok_or_else(|| "operand 0 is missing".into());
            }
            // -- tokens: a token is a unit value --
            OpKind::AfterAll => return Ok(Value::from_literal(Literal::token())),
            OpKind::AddDependency => {
                return args
                    .into_iter()
                    .next()
                    .ok_or_else(|| "operand 0 is missing".into());
            }
            // Refused before evaluation starts (`refuse_external_code`).
            OpKind::CustomCall(call) => {
                return Err(format!(
                    "`custom-call` to `{}` calls code outside the module; oxla cannot run it",
                    call.target
                ));
            }
            OpKind::While {
                condition,
                body: loop_body,
            } => {
                let init = args
                    .pop()
                    .ok_or_else(|| "operand 0 is missing".to_string())?;
                return ctrl::run_while(self, *condition, *loop_body, init, depth);
            }
            OpKind::Conditional { branches } => {
                return ctrl::conditional(self, branches, args, depth);
            }
            OpKind::Map {
                dimensions: _,
                to_apply,
            } => ctrl::map(self, *to_apply, &args, &inst.shape, depth)?,
            // -- the windows family (windows.rs) --
            OpKind::ReduceWindow { window, to_apply } => {
                called_before(&[*to_apply], body)?;
                if args.len() != 2 || inst.shape.is_tuple() {
                    return ctrl::reduce_window_variadic(
                        self, *to_apply, &args, window, inst, depth,
                    );
                }
                windows::reduce_window(
                    self,
                    *to_apply,
                    args[0].array()?,
                    args[1].array()?,
                    window,
                    inst.shape.dims(),
                    depth,
                )?
            }
            OpKind::SelectAndScatter {
                window,
                select,
                scatter,
            } => {
                called_before(&[*select, *scatter], body)?;
                let [operand, source, init] = &args[..] else {
                    return Err("select-and-scatter takes 3 operands".into());
                };
                windows::select_and_scatter(
                    self,
                    (*select, *scatter),
                    operand.array()?,
                    source.array()?,
                    init.array()?,
                    window,
                    depth,
                )?
            }
            // -- sort and top-k (the sort family) --
            OpKind::Sort {
                dimension,
                to_apply,
                is_stable: _,
            } => {
                called_before(&[*to_apply], body)?;
                let operands = args
                    .iter()
                    .map(Value::array)
                    .collect::<OpResult<Vec<_>>>()?;
                let sorted = sort::sort(self, *to_apply, &operands, *dimension, depth)?;
                return sort::sort_result(sorted, &inst.shape).map(Value::from_literal);
            }
            OpKind::TopK { k, largest } => {
                let x = args.first().ok_or("operand 0 is missing")?.array()?;
                return sort::topk(x, *k, *largest).map(Value::from_literal);
            }
            // -- the misc family (misc.rs) --
            OpKind::RngBitGenerator { algorithm } => {
                let bits = inst
                    .shape
                    .tuple_shapes()
                    .get(1)
                    .ok_or("rng-bit-generator's result is not a (state, bits) pair")?;
                let state = args.first().ok_or("operand 0 is missing")?.array()?;
                return misc::rng_bit_generator(*algorithm, state, bits).map(Value::from_literal);
            }
            OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. } => {
                return misc::batch_norm(&inst.kind, args, depth);
            }
        };
        Literal::from_array_data(inst.shape.dims(), data)
            .map(|l| Value::Shared(Rc::new(l)))
            .map_err(|e| e.to_string())
    }

    /// A single-input `reduce` (`args` = `[x, init]`), kept out of
    /// [`Eval::instruction`] so that the frames of nested calls stay small.
    #[inline(never)]
    fn reduce_one(
        &self,
        to_apply: ComputationId,
        args: &[Value<'_>],
        dimensions: &[i64],
        out_dims: &[i64],
        depth: usize,
    ) -> OpResult<ArrayData> {
        let operand = |k: usize| -> OpResult<&Literal> {
            args.get(k)
                .ok_or_else(|| format!("operand {k} is missing"))?
                .array()
        };
        let (x, init) = (operand(0)?, operand(1)?);
        Ok(dispatch_array!(array(x)?, v => {
            self.reduce(to_apply, v, x.shape().dims(), init, dimensions, out_dims, depth)?.into()
        }))
    }

    /// `reduce` of `x` (of dims `x_dims`) with the reducer body `to_apply`.
    ///
    /// A reducer whose root is one binary op of its two parameters (`add`,
    /// `maximum`, ...: nearly every reducer) is applied as that op's element
    /// function, the very function its body would run on the two scalars;
    /// any other reducer runs its body through the evaluator, once per
    /// element.
    #[allow(clippy::too_many_arguments)]
    fn reduce<T: Element>(
        &self,
        to_apply: ComputationId,
        x: &[T],
        x_dims: &[i64],
        init: &Literal,
        dimensions: &[i64],
        out_dims: &[i64],
        depth: usize,
    ) -> OpResult<Vec<T>> {
        let init = ops::scalar_value(init)?;
        let direct = self
            .comp
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
                self.call_reducer(to_apply, acc, elem, depth)
            }),
        }
    }

    /// The reducer body `to_apply` as a function `(acc, x) -> acc`: a body
    /// whose root is one binary op of its two parameters is that op's
    /// element function; any other body runs through the evaluator, once
    /// per call.
    pub(crate) fn reducer_fn<T: Element>(
        &self,
        to_apply: ComputationId,
        depth: usize,
    ) -> impl FnMut(T, T) -> OpResult<T> + '_ {
        let direct = self
            .comp
            .bodies()
            .get(to_apply.index())
            .and_then(Body::binary_reducer)
            .and_then(|r| Some((T::binary_fn(r.op)?, r.swapped)));
        move |acc: T, elem: T| match direct {
            Some((f, false)) => Ok(f(acc, elem)),
            Some((f, true)) => Ok(f(elem, acc)),
            None => self.call_reducer(to_apply, acc, elem, depth),
        }
    }

    /// Runs body `id` on two scalars and returns its (array) result.
    pub(crate) fn call_on_scalars<T: NativeType>(
        &self,
        id: ComputationId,
        a: T,
        b: T,
        depth: usize,
    ) -> Result<Literal> {
        let (a, b) = (Literal::scalar(a), Literal::scalar(b));
        let result = self.call(
            id,
            vec![Value::Borrowed(&a), Value::Borrowed(&b)],
            depth + 1,
        )?;
        result
            .array()
            .cloned()
            .map_err(|message| Error::Evaluation {
                instruction: format!("<computation #{}>", id.0),
                message,
            })
    }

    /// The whole computation.
    pub(crate) fn computation(&self) -> &'a Computation {
        self.comp
    }

    /// Runs the reducer body `id` on two scalars of type `T` and returns its
    /// scalar result.
    fn call_reducer<T: NativeType>(
        &self,
        id: ComputationId,
        acc: T,
        x: T,
        depth: usize,
    ) -> OpResult<T> {
        let (acc, x) = (Literal::scalar(acc), Literal::scalar(x));
        let name = self.body_name(id);
        let result = self
            .call(
                id,
                vec![Value::Borrowed(&acc), Value::Borrowed(&x)],
                depth + 1,
            )
            .map_err(|e| format!("in the reducer `{name}`: {e}"))?;
        let result = result.array()?;
        match result.as_slice::<T>() {
            Ok(&[value]) if result.shape().rank() == 0 => Ok(value),
            _ => Err(format!(
                "the reducer `{name}` returned {} instead of a {}[] scalar",
                result.shape(),
                T::ELEMENT_TYPE
            )),
        }
    }
}

/// The ops that compute an array from array operands and call nothing
/// (kept out of [`Eval::instruction`], whose frame every nested call
/// carries).
#[inline(never)]
fn array_op(inst: &Instruction, args: &[Value<'_>]) -> OpResult<ArrayData> {
    let operand = |k: usize| -> OpResult<&Literal> {
        args.get(k)
            .ok_or_else(|| format!("operand {k} is missing"))?
            .array()
    };
    let dims = inst.shape.dims();
    Ok(match &inst.kind {
        OpKind::Iota { dimension } => ops::iota(&inst.shape, *dimension)?,
        OpKind::Unary(op) => ops::unary(*op, operand(0)?)?,
        OpKind::Binary {
            op,
            broadcast_dimensions,
        } => ops::binary(*op, broadcast_dimensions, operand(0)?, operand(1)?, dims)?,
        OpKind::RaggedDot { dims } => {
            ragged_dot::ragged_dot(operand(0)?, operand(1)?, operand(2)?, dims, &inst.shape)?
        }
        OpKind::StochasticConvert => {
            misc::stochastic_convert(operand(0)?, operand(1)?, inst.shape.element_type())?
        }
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
        OpKind::DotGeneral { dims: numbers } => {
            ops::dot_general(operand(0)?, operand(1)?, numbers, &inst.shape)?
        }
        // -- indexing (see the `indexing` module) --
        OpKind::Gather {
            dims: numbers,
            slice_sizes,
            indices_are_sorted: _,
        } => indexing::gather(operand(0)?, operand(1)?, numbers, slice_sizes, dims)?,
        OpKind::DynamicSlice { slice_sizes } => {
            let indices = (1..inst.operands.len())
                .map(operand)
                .collect::<OpResult<Vec<_>>>()?;
            indexing::dynamic_slice(operand(0)?, &indices, slice_sizes)?
        }
        OpKind::DynamicUpdateSlice => {
            let indices = (2..inst.operands.len())
                .map(operand)
                .collect::<OpResult<Vec<_>>>()?;
            indexing::dynamic_update_slice(operand(0)?, operand(1)?, &indices)?
        }
        // -- the windows family (windows.rs) --
        OpKind::Convolution { .. } => {
            windows::convolution(operand(0)?, operand(1)?, &inst.kind, &inst.shape)?
        }
        // -- complex numbers (complex.rs) --
        OpKind::Complex => complex::compose(operand(0)?, operand(1)?)?,
        OpKind::Real => complex::part(operand(0)?, false)?,
        OpKind::Imag => complex::part(operand(0)?, true)?,
        OpKind::Fft {
            fft_type,
            fft_length,
        } => complex::fft(operand(0)?, *fft_type, fft_length, &inst.shape)?,
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
        OpKind::Cholesky { lower } => misc::cholesky(operand(0)?, *lower)?,
        OpKind::TriangularSolve { options } => {
            misc::triangular_solve(operand(0)?, operand(1)?, options)?
        }
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Tuple
        | OpKind::Reduce { .. }
        | OpKind::GetTupleElement { .. }
        | OpKind::OptimizationBarrier
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::Map { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::RngBitGenerator { .. }
        | OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. }
        | OpKind::Scatter { .. }
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::CustomCall(_)
        | OpKind::AfterAll
        | OpKind::AddDependency
        | OpKind::RngGetAndUpdateState { .. } => {
            return Err(format!("`{}` is not an array op", inst.kind.opcode_name()));
        }
    })
}

/// Refuses called bodies that do not come before their caller `body`.
fn called_before(ids: &[ComputationId], body: ComputationId) -> OpResult<()> {
    match ids.iter().find(|id| id.index() >= body.index()) {
        Some(id) => Err(format!(
            "the called computation #{} does not come before its caller #{}",
            id.0, body.0
        )),
        None => Ok(()),
    }
}

/// The operand values of instruction `i`: an operand read here for the last
/// time is handed over (its slot emptied), any other is shared.
fn operands<'b>(
    inst: &Instruction,
    i: usize,
    last_use: &[usize],
    values: &mut [Option<Value<'b>>],
) -> OpResult<Vec<Value<'b>>> {
    let mut args = Vec::with_capacity(inst.operands.len());
    for (k, o) in inst.operands.iter().enumerate() {
        let j = o.index();
        let last_here = last_use.get(j) == Some(&i) && !inst.operands[k + 1..].contains(o);
        let slot = values
            .get_mut(j)
            .ok_or_else(|| format!("operand {k} is not yet evaluated"))?;
        let value = if last_here { slot.take() } else { slot.clone() };
        args.push(value.ok_or_else(|| format!("operand {k} is no longer held"))?);
    }
    Ok(args)
}
