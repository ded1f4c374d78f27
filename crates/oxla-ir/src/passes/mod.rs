//! Passes: rewrites of a verified [`Computation`](crate::Computation) into
//! another verified one. Every pass output goes through the verifier (in
//! every build, since verification is cheap next to compilation); a pass
//! that breaks an invariant is reported with the pass named.
//!
//! - [`expand_broadcasts()`]: makes every implicit broadcast explicit, giving
//!   XLA's strict HLO form (what `XlaBuilder` emits).
//! - [`batch_norm`]: the batch-norm ops expanded into primitives as XLA
//!   expands them (what the interpreter evaluates).
//! - [`expand_misc()`]: the three below, for the JIT.
//! - [`expand_ops()`]: inlines the expansions of instructions (how the JIT
//!   runs the batch-norm and random-number ops).
//! - [`complex`]: complex values as pairs of real arrays (how the JIT
//!   computes `c64` and `c128`).
//! - [`bitcast`]: a width-changing `bitcast-convert` as shifts and
//!   same-width bitcasts.
//! - [`linalg`]: `cholesky` and `triangular-solve` as `while` loops over
//!   columns and rows, in the interpreter's order.
//! - [`random`]: `rng-bit-generator` and `rng` as primitives, bit for bit
//!   as the interpreter draws them.
//! - [`stochastic`]: `stochastic-convert` as elementwise primitives, value
//!   for value as the interpreter computes it.
//! - [`reduce_window`]: a `reduce-window` of several inputs as pads,
//!   strided slices and the reducer's elementwise ops, in the
//!   interpreter's order.
//! - [`narrow`]: `topk` and `reduce-precision` of the narrow floats and
//!   sub-byte integers as sorts, slices and integer steps on the bits, as
//!   the interpreter computes them.
//! - [`scatter`]: a `scatter` of several inputs as one-input scatters of
//!   packed bit patterns, exactly.
//! - [`ragged_dot`]: `ragged-dot` as masks and dense dots, as the
//!   interpreter computes it.

pub mod batch_norm;
pub mod bitcast;
pub mod complex;
pub mod expand_broadcasts;
mod inline;
pub mod linalg;
pub mod narrow;
pub mod ragged_dot;
pub mod random;
pub mod reduce_window;
pub mod scatter;
pub mod stochastic;
mod stream;

pub use inline::expand_ops;
pub(crate) use inline::expand_ops_unverified;

pub use expand_broadcasts::expand_broadcasts;

/// The misc ops a backend with no kernels of their own runs as primitives
/// (the batch-norm ops, `rng-bit-generator`, `rng`, a width-changing
/// `bitcast-convert`, `cholesky`, `triangular-solve`, `ragged-dot`,
/// `stochastic-convert`, a `reduce-window` or `scatter` of several
/// inputs, `topk` and `reduce-precision` of a narrow type), expanded by [`batch_norm::expand_all`], [`random::expand_all`],
/// [`bitcast::expand_all`], [`linalg::expand_all`],
/// [`ragged_dot::expand_all`], [`stochastic::expand_all`],
/// [`reduce_window::expand_all`], [`scatter::expand_all`] and
/// [`narrow::expand_all`] in turn; `None`
/// (nothing built, nothing copied) when `comp` holds none of them.
///
/// ```
/// use oxla_ir::{Builder, ElementType::{F32, U8}, Shape, passes};
/// let mut b = Builder::new("m");
/// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
/// let y = b.bitcast_convert_type(x, U8)?;
/// let comp = b.build(y)?;
/// assert!(passes::expand_misc(&comp)?.is_some());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_misc(comp: &crate::Computation) -> crate::Result<Option<crate::Computation>> {
    use crate::OpKind;
    let any = comp.bodies().iter().any(|body| {
        body.instructions.iter().any(|inst| {
            let expanded = matches!(
                inst.kind,
                OpKind::BatchNormTraining { .. }
                    | OpKind::BatchNormInference { .. }
                    | OpKind::BatchNormGrad { .. }
                    | OpKind::Rng { .. }
                    | OpKind::RngBitGenerator { .. }
                    | OpKind::Cholesky { .. }
                    | OpKind::TriangularSolve { .. }
                    | OpKind::StochasticConvert
                    | OpKind::RaggedDot { .. }
            );
            let width_change = inst.kind == OpKind::BitcastConvert
                && inst.operands.first().is_some_and(|o| {
                    body.instructions.get(o.index()).is_some_and(|o| {
                        o.shape.element_type().bit_width() != inst.shape.element_type().bit_width()
                    })
                });
            expanded
                || width_change
                || reduce_window::is_variadic(&inst.kind, inst.operands.len(), &inst.shape)
                || scatter::is_variadic(&inst.kind, inst.operands.len(), &inst.shape)
                || narrow::expands(
                    &inst.kind,
                    inst.operands
                        .first()
                        .and_then(|o| body.instructions.get(o.index()))
                        .map(|o| &o.shape),
                )
        })
    });
    if !any {
        return Ok(None);
    }
    let c = batch_norm::expand_all(comp)?;
    let c = random::expand_all(&c)?;
    let c = bitcast::expand_all(&c)?;
    let c = linalg::expand_all(&c)?;
    let c = ragged_dot::expand_all(&c)?;
    let c = stochastic::expand_all(&c)?;
    let c = reduce_window::expand_all(&c)?;
    let c = scatter::expand_all(&c)?;
    narrow::expand_all(&c).map(Some)
}
