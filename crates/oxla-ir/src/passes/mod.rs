//! Passes: rewrites of a verified [`Computation`](crate::Computation) into
//! another verified one. Every pass output goes through the verifier (in
//! every build, since verification is cheap next to compilation); a pass
//! that breaks an invariant is reported with the pass named.
//!
//! - [`expand_broadcasts()`]: makes every implicit broadcast explicit, giving
//!   XLA's strict HLO form (what `XlaBuilder` emits).
//! - [`batch_norm`]: the batch-norm ops expanded into primitives as XLA
//!   expands them (what the interpreter evaluates).
//! - [`expand_ops()`]: inlines the expansions of instructions (how the JIT
//!   runs the batch-norm and random-number ops).
//! - [`bitcast`]: a width-changing `bitcast-convert` as shifts and
//!   same-width bitcasts.
//! - [`random`]: `rng-bit-generator` and `rng` as primitives, bit for bit
//!   as the interpreter draws them.

pub mod batch_norm;
pub mod bitcast;
pub mod expand_broadcasts;
mod inline;
pub mod random;

pub use inline::expand_ops;

pub use expand_broadcasts::expand_broadcasts;
