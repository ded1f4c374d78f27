//! What the JIT does not compile yet, refused before any native code is
//! built: a `reduce-window` or `scatter` of several inputs (or with a
//! tuple-returning body) that `oxla_ir::passes::{reduce_window, scatter}`
//! do not expand; windows of more than 2^24 positions (the
//! kernels walk every position); an `rng` in a computation called per
//! element (elsewhere the misc family's ops are
//! expanded into primitives first, `oxla_ir::passes::expand_misc`, `rng`'s
//! stream position threaded through loops and branches), `fft` and the
//! complex types `c64`, `c128` anywhere in the computation as a safety net
//! (`compile` first lowers complex values to pairs of real arrays,
//! `oxla_ir::passes::complex`, which refuses what it does not cover, so
//! none reach this check; see [`supports_element_type`]) (`topk` of a
//! narrow float or sub-byte integer and `reduce-precision` of a narrow
//! float are expanded into primitives, `oxla_ir::passes::narrow`; the
//! other ops compile for them: `codegen/narrow.rs`; their dots and
//! convolutions after `widen.rs` rewrites them into ops of one wide
//! type);
//! and, inside a computation called per element (a reducer, a comparator
//! or a mapped computation, whose code is inlined into the kernels),
//! `while`, `conditional`, `sort`, `topk`, a `reduce` of several inputs,
//! `convolution`, `reduce-window`, `select-and-scatter`, `scatter` and
//! `dynamic-update-slice`. Loop and branch bodies compile like the entry.
//! Each is an
//! [`Error::UnsupportedOp`] naming the op and the instruction; the
//! interpreter runs all of them.
//!
//! This is the one place that decides it: [`check`] runs first in
//! `compile`, so the rest of the JIT may assume none of these occur (its
//! exhaustive matches give them an internal error, never a result).

use oxla_ir::{Body, Computation, ElementType, Error, Instruction, OpKind, Result, Shape, Window};

/// `true` for the element types the JIT compiles every op of: every real
/// type (`pred`, the integers of 1 to 64 bits, the narrow floats, `f32`,
/// `f64`) and `token` (an empty array: `tokens.rs`). The complex types
/// compile as pairs of real arrays for the ops `oxla_ir::passes::complex`
/// covers (not `fft`, not most complex transcendentals, ...), so they
/// are `false` here.
///
/// ```
/// use oxla_ir::ElementType;
/// assert!(oxla_jit::supports_element_type(ElementType::F32));
/// assert!(oxla_jit::supports_element_type(ElementType::Bf16));
/// assert!(!oxla_jit::supports_element_type(ElementType::C64));
/// ```
pub fn supports_element_type(ty: ElementType) -> bool {
    match ty {
        ElementType::Pred
        | ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64
        | ElementType::F32
        | ElementType::F64
        | ElementType::Tuple
        | ElementType::Token => true,
        ElementType::C64 | ElementType::C128 => false,
    }
}

/// The first element type of `shape` (a tuple's, depth first) the JIT
/// does not compile.
fn unsupported_type(shape: &Shape) -> Option<ElementType> {
    if shape.is_tuple() {
        return shape.tuple_shapes().iter().find_map(unsupported_type);
    }
    Some(shape.element_type()).filter(|&t| !supports_element_type(t))
}

/// Refuses `comp` if any body holds something the JIT cannot compile.
pub(crate) fn check(comp: &Computation) -> Result<()> {
    let inline = inline_bodies(comp);
    for (bi, body) in comp.bodies().iter().enumerate() {
        for inst in &body.instructions {
            if let Some(ty) = unsupported_type(&inst.shape) {
                let reason = format!(
                    "the JIT does not compile element type {ty} yet (its value has shape {})",
                    inst.shape
                );
                return Err(refuse(body, inst, &reason));
            }
            if let Some(reason) = narrow_reason(body, inst) {
                return Err(refuse(body, inst, reason));
            }
            if let Some(reason) = reason(body, inst, inline[bi]) {
                return Err(refuse(body, inst, reason));
            }
        }
    }
    Ok(())
}

/// Why `inst`, an op the JIT compiles for the wider types, is not
/// compiled for a narrow float or sub-byte integer operand or result, or
/// `None`: the ops whose kernels are not built from the per-element rules
/// of `codegen/narrow.rs` (`topk` runs a sort on raw keys;
/// `reduce-precision` edits the bits of `f32`/`f64`). Both reach here
/// expanded into primitives (`oxla_ir::passes::narrow`), so this is a
/// safety net. The dots and convolutions of these types reach here
/// rewritten into ops of one wide type (`widen.rs`).
fn narrow_reason(body: &Body, inst: &Instruction) -> Option<&'static str> {
    let narrow = std::iter::once(&inst.shape)
        .chain(
            inst.operands
                .iter()
                .filter_map(|&o| body.instructions.get(o.index()))
                .map(|o| &o.shape),
        )
        .any(|s| !s.is_tuple() && crate::codegen::computes_narrow(s.element_type()));
    if !narrow {
        return None;
    }
    if matches!(inst.kind, OpKind::TopK { .. }) {
        Some("a topk of a narrow float or sub-byte integer reached the JIT unexpanded")
    } else if matches!(inst.kind, OpKind::ReducePrecision { .. }) {
        Some("a reduce-precision of a narrow float reached the JIT unexpanded")
    } else {
        None
    }
}

/// For each body: whether it is called per element (its code inlined into
/// a kernel) rather than run as a region of its own (the entry, a loop's
/// condition or body, a branch).
fn inline_bodies(comp: &Computation) -> Vec<bool> {
    let n = comp.bodies().len();
    let mut region = vec![false; n];
    let mut inline = vec![false; n];
    let mut stack = vec![(comp.entry_id().index(), false)];
    while let Some((b, called)) = stack.pop() {
        let seen = if called { &mut inline } else { &mut region };
        if b >= n || std::mem::replace(&mut seen[b], true) {
            continue;
        }
        for inst in &comp.bodies()[b].instructions {
            let per_element =
                called || !matches!(inst.kind, OpKind::While { .. } | OpKind::Conditional { .. });
            for c in inst.kind.called_computations() {
                stack.push((c.index(), per_element));
            }
        }
    }
    inline
}

fn refuse(body: &Body, inst: &Instruction, reason: &str) -> Error {
    Error::UnsupportedOp {
        backend: "jit".into(),
        op: inst.kind.opcode_name().into(),
        instruction: inst.name.clone(),
        computation: body.name.clone(),
        reason: if let OpKind::CustomCall(_) = inst.kind {
            reason.to_string()
        } else {
            format!("{reason}; the interpreter (oxla_interp::evaluate) runs it")
        },
    }
}

/// The most positions a window of a convolution, `reduce-window` or
/// `select-and-scatter` may have: the JIT's kernels walk every position
/// (skipping padding by a guard), so a window of 2^40 positions padded
/// around a few elements would run for hours where the interpreter
/// computes the few positions that hold elements.
const MAX_WINDOW_POSITIONS: i64 = 1 << 24;

/// The number of positions of `window` (saturating).
fn window_positions(window: &Window) -> i64 {
    window
        .dimensions
        .iter()
        .fold(1i64, |n, d| n.saturating_mul(d.size.max(0)))
}

/// Why `inst` cannot be compiled, or `None`; `inline` when its body is
/// called per element.
fn reason(body: &Body, inst: &Instruction, inline: bool) -> Option<&'static str> {
    match &inst.kind {
        // Expanded before this check (`oxla_ir::passes::scatter`) but for
        // these.
        OpKind::Scatter { .. } if inst.operands.len() != 3 || inst.shape.is_tuple() => Some(
            "the JIT compiles a scatter of several inputs only with a combiner of elementwise \
             ops returning a tuple, on real types",
        ),
        // Expanded before this check (`oxla_ir::passes::reduce_window`)
        // but for these.
        OpKind::ReduceWindow { .. } if inst.operands.len() != 2 || inst.shape.is_tuple() => Some(
            "the JIT compiles a reduce-window of several inputs only with a reducer of \
             elementwise ops, no window reversal, and a window of at most 256 positions \
             unless the inputs whose results depend on one another take at most 64 bits \
             per element together",
        ),
        OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicUpdateSlice
            if inline =>
        {
            Some(
                "the JIT does not compile this op inside a computation called per element \
                 (a reducer, a comparator or a mapped computation)",
            )
        }
        OpKind::Convolution { window, .. }
        | OpKind::ReduceWindow { window, .. }
        | OpKind::SelectAndScatter { window, .. }
            if window_positions(window) > MAX_WINDOW_POSITIONS =>
        {
            Some(
                "the JIT walks every position of a window, and this window has more than \
                 2^24 (the interpreter computes which positions hold elements)",
            )
        }
        OpKind::Complex | OpKind::Real | OpKind::Imag | OpKind::Fft { .. } => {
            Some("the JIT does not compile complex-number ops and fft yet")
        }
        OpKind::Sort { .. } | OpKind::TopK { .. } if inline => Some(
            "the JIT does not compile sort and topk inside a computation called per element \
             (a reducer, a comparator or a mapped computation)",
        ),
        OpKind::While { .. } | OpKind::Conditional { .. } if inline => Some(
            "the JIT does not compile control flow inside a computation called per element \
             (a reducer or a mapped computation)",
        ),
        OpKind::Reduce { .. } if inline && inst.shape.is_tuple() => Some(
            "the JIT does not compile a reduce of several inputs inside a computation called \
             per element (a reducer or a mapped computation)",
        ),
        // Code outside the module, and tokens (issue 12's last ops).
        OpKind::CustomCall(_) => Some(
            "a custom-call calls code outside the module; oxla cannot run it (the \
             interpreter refuses it too)",
        ),
        // Removed before this check (`tokens.rs`: tokens are empty arrays).
        OpKind::AfterAll | OpKind::AddDependency => {
            Some("a token op reached the JIT's checks (tokens are removed before them)")
        }
        // Expanded before this check (`oxla_ir::passes::stochastic`) for
        // signed integer results, the only ones the interpreter runs.
        OpKind::StochasticConvert => {
            Some("the JIT compiles stochastic-convert to signed integer types only")
        }
        OpKind::RaggedDot { .. } => Some(
            "the JIT compiles ragged-dot through its expansion (oxla_ir::passes::expand_misc), \
             which this one did not get",
        ),
        OpKind::RngGetAndUpdateState { .. } => Some(
            "rng-get-and-update-state reads the random state of XLA's runtime, which oxla \
             does not have (the interpreter refuses it too)",
        ),
        // Width changes are expanded before this check
        // (`oxla_ir::passes::bitcast`) but for `pred`, which has bits only
        // as `pred`.
        OpKind::BitcastConvert
            if inst
                .operands
                .first()
                .map(|o| body.inst(*o).shape.element_type().bit_width())
                != Some(inst.shape.element_type().bit_width()) =>
        {
            Some(
                "a bitcast-convert between pred and another type has no defined bits (the \
                 interpreter refuses it too)",
            )
        }
        // Expanded before this check (`oxla_ir::passes::linalg`) for f32,
        // f64, bf16 and f16, the only types the interpreter runs them for.
        OpKind::Cholesky { .. } | OpKind::TriangularSolve { .. } => {
            Some("the JIT compiles cholesky and triangular-solve of f32, f64, bf16 and f16 only")
        }
        // Expanded before this check (`oxla_ir::passes::random`), the
        // stream counter threaded through loops and branches
        // (`oxla_ir::passes::stream`) but for these places.
        OpKind::Rng { .. } => Some(
            "the JIT does not compile an rng in a computation called per element (a reducer \
             or mapped computation), where its position in the random stream is not threaded",
        ),
        OpKind::Parameter { .. }
        | OpKind::Constant { .. }
        | OpKind::Iota { .. }
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
        | OpKind::Gather { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::Convolution { .. }
        | OpKind::ReduceWindow { .. }
        | OpKind::SelectAndScatter { .. }
        | OpKind::Scatter { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::While { .. }
        | OpKind::Conditional { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Map { .. }
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. } => None,
        // Expanded into primitives before this check
        // (`oxla_ir::passes::expand_misc`: batch-norm, random, linalg; the
        // element types they refuse are refused above).
        OpKind::RngBitGenerator { .. }
        | OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. } => None,
    }
}
