//! The StableHLO reader's tests, as one binary.
//!
//! - `corpus`: JAX's own StableHLO (`tests/data/stablehlo/`, written by
//!   `scripts/stablehlo_corpus.py`) parses in all its forms, runs in the
//!   interpreter and the JIT, and matches JAX's outputs and the module
//!   parsed from JAX's HLO text;
//! - `round_trip`: every HLO module in the repository's test data goes
//!   HLO -> StableHLO (the exporter) -> IR and prints the same module;
//! - `syntax`: the forms JAX and other exporters print that the corpus does
//!   not show (older JAX, CHLO broadcasting, resources, hex blobs), each
//!   checked against the HLO it must give;
//! - `errors`: hand-broken MLIR files give located errors naming the op;
//! - `fuzz`: mutated corpus files never panic or hang;
//! - `jax_programs`: the realistic JAX programs of `tests/data/jax/`, read
//!   from their StableHLO, match JAX and their HLO text;
//! - `misc`: the misc family in (MLIR's pretty and generic forms) and
//!   both ways (every module of `tests/hlo/misc/`);
//! - `sort`: the sort family out (pinned texts) and in (JAX's sorts give
//!   JAX's values; defaults and comparison types).

#![allow(clippy::result_large_err)]

mod chlo;
mod common;
mod corpus;
mod errors;
mod fuzz;
mod jax_programs;
mod misc;
mod round_trip;
mod sort;
mod syntax;
mod types;
