//! The memory budget of an evaluation: checked before anything is computed.
//!
//! Shapes may have up to 2^40 elements ([`oxla_ir::shape::MAX_ELEMENTS`]),
//! so a valid module can ask for terabytes: `broadcast` of a scalar to
//! `f32[100000,100000,100]` is four. Allocating that would abort the process
//! (an allocation failure is not an unwind), so [`check`] adds up what the
//! interpreter will hold, from the shapes alone, and refuses a computation
//! that needs more than the budget with an [`Error::Evaluation`] naming the
//! instruction, its shape and the budget.
//!
//! What is counted, because it is what [`crate::evaluate`] allocates:
//! - every instruction's result, in every body, as if kept until its body
//!   returns (parameters and constants are borrowed, and tuples, their
//!   elements, loop states and branch results share the values they are
//!   made of, so they count 0; a called body runs one call at a time, so its
//!   values count once however often it runs);
//! - the largest scratch space of any one instruction, freed when it
//!   finishes: an elementwise operand stretched to the result's dims, and
//!   the position lists (8 bytes each) of a reduce or a dot.
//!
//! The budget is [`MAX_EVAL_BYTES`] (8 GiB), or the number of bytes in the
//! environment variable `OXLA_MAX_EVAL_BYTES`.

use oxla_ir::{Body, Computation, Error, Instruction, OpKind, Result, Shape};

/// The default budget of one evaluation: 8 GiB.
pub const MAX_EVAL_BYTES: u64 = 8 << 30;

/// The environment variable that overrides [`MAX_EVAL_BYTES`].
pub const MAX_EVAL_BYTES_VAR: &str = "OXLA_MAX_EVAL_BYTES";

/// The budget in force: `OXLA_MAX_EVAL_BYTES` (a number of bytes, `_`
/// allowed between digits) or [`MAX_EVAL_BYTES`]. A value that is not a
/// number is an error rather than silently the default.
///
/// ```
/// // Unless the environment says otherwise:
/// if std::env::var_os("OXLA_MAX_EVAL_BYTES").is_none() {
///     assert_eq!(oxla_interp::max_eval_bytes()?, 8 << 30);
/// }
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn max_eval_bytes() -> Result<u64> {
    match std::env::var(MAX_EVAL_BYTES_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(MAX_EVAL_BYTES),
        Ok(v) => v
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| Error::Evaluation {
                instruction: format!("<{MAX_EVAL_BYTES_VAR}>"),
                message: format!(
                    "{MAX_EVAL_BYTES_VAR}={v:?} is not a number of bytes (such as 8589934592)"
                ),
            }),
        Err(std::env::VarError::NotUnicode(v)) => Err(Error::Evaluation {
            instruction: format!("<{MAX_EVAL_BYTES_VAR}>"),
            message: format!("{MAX_EVAL_BYTES_VAR}={v:?} is not a number of bytes"),
        }),
    }
}

/// Checks that evaluating `comp` fits in `budget` bytes (see the module
/// docs for what is counted).
pub(crate) fn check(comp: &Computation, budget: u64) -> Result<()> {
    let budget = u128::from(budget);
    let mut held: u128 = 0;
    let mut largest_scratch: (u128, &str) = (0, "");
    for body in comp.bodies() {
        for inst in &body.instructions {
            let result = if shares_its_operands(&inst.kind) {
                0
            } else {
                value_bytes(&inst.shape)
            };
            let scratch = scratch_bytes(body, inst);
            if result + scratch > budget {
                return Err(over_budget(
                    inst,
                    format!(
                        "its result {} needs {}{}",
                        inst.shape,
                        bytes_text(result),
                        if scratch > 0 {
                            format!(" and {} of scratch space", bytes_text(scratch))
                        } else {
                            String::new()
                        }
                    ),
                    budget,
                ));
            }
            held += result;
            if scratch > largest_scratch.0 {
                largest_scratch = (scratch, &inst.name);
            }
            if held + largest_scratch.0 > budget {
                return Err(over_budget(
                    inst,
                    format!(
                        "its result {} ({}) brings the values the interpreter holds to {}{}",
                        inst.shape,
                        bytes_text(result),
                        bytes_text(held),
                        if largest_scratch.0 > 0 {
                            format!(
                                ", plus {} of scratch space for `{}`",
                                bytes_text(largest_scratch.0),
                                largest_scratch.1
                            )
                        } else {
                            String::new()
                        }
                    ),
                    budget,
                ));
            }
        }
    }
    Ok(())
}

/// `true` for the instructions whose value is made of values that exist
/// already (an argument, a constant, an operand, a called body's result),
/// shared rather than copied, so they hold no bytes of their own.
fn shares_its_operands(kind: &OpKind) -> bool {
    match kind {
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::OptimizationBarrier
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::AddDependency => true,
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
        | OpKind::StochasticConvert
        | OpKind::RngGetAndUpdateState { .. }
        | OpKind::RaggedDot { .. } => false,
    }
}

fn over_budget(inst: &Instruction, what: String, budget: u128) -> Error {
    Error::Evaluation {
        instruction: inst.name.clone(),
        message: format!(
            "{what}, more than the evaluation budget of {}; set {MAX_EVAL_BYTES_VAR} to a larger \
             number of bytes to allow it",
            bytes_text(budget)
        ),
    }
}

/// Bytes of a value of `shape`; a tuple's are its elements'.
fn value_bytes(shape: &Shape) -> u128 {
    if shape.is_tuple() {
        return shape.tuple_shapes().iter().map(value_bytes).sum();
    }
    elements(shape) * shape.element_type().byte_size() as u128
}

fn elements(shape: &Shape) -> u128 {
    shape.element_count().max(0) as u128
}

/// What one scalar `Literal` holds (its shape and a one-value vector), a
/// bound for the comparator arguments `sort` builds.
const SCALAR_LITERAL_BYTES: u128 = 256;

/// Bytes `inst` allocates while it runs, besides its result.
fn scratch_bytes(body: &Body, inst: &Instruction) -> u128 {
    let operand = |k: usize| -> Option<&Shape> {
        let id = inst.operands.get(k)?;
        body.instructions.get(id.index()).map(|i| &i.shape)
    };
    let out = elements(&inst.shape);
    // An elementwise operand whose dims differ from the result's is first
    // copied out at the result's dims.
    let stretched = || -> u128 {
        (0..inst.operands.len())
            .filter_map(operand)
            .filter(|s| s.dims() != inst.shape.dims())
            .map(|s| out * s.element_type().byte_size() as u128)
            .sum()
    };
    let position = 8;
    match &inst.kind {
        OpKind::Binary { .. } | OpKind::Select | OpKind::Clamp => stretched(),
        // One position per result element (the bases) and per reduced
        // element (the offsets; at most the operand's elements). A
        // variadic reduce's result is a tuple: its first element counts.
        OpKind::Reduce { .. } => {
            let out = inst.shape.tuple_shapes().first().map_or(out, elements);
            position * (out + operand(0).map_or(0, elements))
        }
        // One position per contracted element on each side (at most each
        // operand's elements).
        // Operands of another type than the result, or narrower than
        // `f32`, are converted first (at most 8 bytes a value).
        OpKind::DotGeneral { .. } => {
            let converted: u128 = (0..2)
                .filter_map(operand)
                .filter(|s| {
                    s.element_type() != inst.shape.element_type()
                        || s.element_type().bit_width() < 32
                })
                .map(|s| elements(s) * 8)
                .sum();
            position * (operand(0).map_or(0, elements) + operand(1).map_or(0, elements))
                + converted
                + out * 8
        }
        // Operands converted to a wider result type first.
        OpKind::Convolution { .. } => (0..2)
            .filter_map(operand)
            .filter(|s| s.element_type() != inst.shape.element_type())
            .map(|s| elements(s) * inst.shape.element_type().byte_size() as u128)
            .sum(),
        OpKind::ReduceWindow { .. } | OpKind::SelectAndScatter { .. } => 0,
        // One position per result element, and the indices widened to i64.
        OpKind::Gather { .. } => position * (out + operand(1).map_or(0, elements)),
        // Two positions per update element, and the indices widened.
        OpKind::Scatter { .. } => {
            let n = inst.operands.len() / 2;
            position * (2 * operand(n + 1).map_or(0, elements) + operand(n).map_or(0, elements))
        }
        // One position per element moved.
        OpKind::DynamicSlice { .. } => position * out,
        OpKind::DynamicUpdateSlice => position * operand(1).map_or(0, elements),
        // Every value as an f64 pair, twice (one transform's input and
        // output), and a line of them.
        OpKind::Fft { .. } => {
            let most = out.max(operand(0).map_or(0, elements));
            2 * 16 * most
        }
        // The positions each element comes from, and a row's two orders;
        // a comparator run through the evaluator also holds one scalar
        // literal per operand and element of the row being sorted.
        OpKind::Sort { dimension, .. } => {
            let row = usize::try_from(*dimension)
                .ok()
                .and_then(|d| operand(0)?.dims().get(d).copied())
                .map_or(0, |n| n.max(0) as u128);
            let scalars = SCALAR_LITERAL_BYTES * row * inst.operands.len() as u128;
            position * (operand(0).map_or(0, elements) + 2 * row) + scalars
        }
        // A row's order, and the positions and indices picked.
        OpKind::TopK { .. } => position * 2 * operand(0).map_or(0, elements),
        // The misc family. `bitcast-convert` goes through the operand's
        // bytes; `rng` draws 64-bit counters per element; the linear algebra
        // ops copy their operands; a batch norm is evaluated as its
        // expansion, whose dozen intermediates are the size of its operand.
        OpKind::BitcastConvert => operand(0).map_or(0, value_bytes),
        OpKind::Rng { .. } | OpKind::RngBitGenerator { .. } => 16 * value_bytes(&inst.shape),
        OpKind::Cholesky { .. } | OpKind::TriangularSolve { .. } => {
            2 * (0..inst.operands.len())
                .filter_map(operand)
                .map(value_bytes)
                .sum::<u128>()
        }
        OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. } => 16 * operand(0).map_or(0, value_bytes),
        OpKind::Bitcast | OpKind::ReducePrecision { .. } => 0,
        // Never evaluated; a token holds nothing.
        OpKind::CustomCall(_) | OpKind::AfterAll | OpKind::AddDependency => 0,
        // Operands converted to f64 and u64, and the result as s64.
        OpKind::StochasticConvert => 24 * out,
        OpKind::RngGetAndUpdateState { .. } => 0,
        // One dot per group (its positions, converted operands and 8-byte
        // result, as for `dot`), each group's result and mask kept until
        // the groups are summed, and one copy of each operand (the rhs
        // slices, or the zeroed operands of a contracting dot).
        OpKind::RaggedDot { .. } => {
            let groups = operand(2)
                .and_then(|s| s.dims().last().copied())
                .map_or(0, |g| g.max(0) as u128);
            let (lhs, rhs) = (
                operand(0).map_or(0, elements),
                operand(1).map_or(0, elements),
            );
            position * (lhs + rhs)
                + 8 * (lhs + rhs)
                + groups.max(1) * out * (8 + 1 + inst.shape.element_type().byte_size() as u128)
                + operand(0).map_or(0, value_bytes)
                + operand(1).map_or(0, value_bytes)
        }
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Broadcast { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Concatenate { .. }
        | OpKind::Reverse { .. }
        | OpKind::Pad { .. }
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::OptimizationBarrier
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::Map { .. }
        | OpKind::Complex
        | OpKind::Real
        | OpKind::Imag => 0,
    }
}

/// `4000000000000 bytes (3.6 TiB)`.
fn bytes_text(bytes: u128) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{bytes} bytes ({value:.1} {})", UNITS[unit])
}
