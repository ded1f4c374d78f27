//! Passes: rewrites of a verified [`Computation`](crate::Computation) into
//! another verified one. Every pass output goes through the verifier (in
//! every build, since verification is cheap next to compilation); a pass
//! that breaks an invariant is reported with the pass named.

pub mod expand_broadcasts;

pub use expand_broadcasts::expand_broadcasts;
