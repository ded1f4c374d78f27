//! The JIT's one integration-test binary: differential tests against the
//! interpreter, argument checks, fusion snapshots, threading.

mod checks;
mod common;
mod complex;
mod control;
mod fusion;
mod inplace;
mod loopgroup;
mod loopstate;
mod narrow;
mod narrow_dot;
mod nested;
mod ops;
mod random;
mod reduce_dot;
mod reuse;
mod rng_stream;
mod rowgroup;
mod shapes;
mod sort;
mod threads;
mod tokens;
mod types;
mod updates;
mod windows;
