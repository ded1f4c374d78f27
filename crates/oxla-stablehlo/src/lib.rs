//! # oxla-stablehlo: StableHLO MLIR text and oxla's IR
//!
//! StableHLO is what JAX prints by default (`jax.jit(f).lower(...).as_text()`),
//! what `jax.export` holds, and what IREE and PJRT consume. This crate turns a
//! verified [`Computation`](oxla_ir::Computation) into that text
//! ([`to_stablehlo`]).
#![warn(missing_docs)]

mod export;
mod parse;

pub use export::to_stablehlo;
pub use parse::parse_stablehlo;
