//! The one integration-test binary of oxla-client: every example of the
//! Array API and TML broadcasting texts, with its values (computed by
//! `oxla_interp::evaluate` on the built computation) or its refusal (a
//! reviewed snapshot of the message), plus property tests of the rules.

// `oxla_ir::Error` is large; tests return it through `?` like the library.
#![allow(clippy::result_large_err)]

mod numpy_world;
mod properties;
mod tml_world;
mod worlds;

use oxla_ir::{Computation, Literal, NativeType, Result, shape::row_major_strides};

/// Evaluates `comp` on `args` with the reference interpreter.
pub fn eval(comp: &Computation, args: &[&Literal]) -> Result<Literal> {
    oxla_interp::evaluate(comp, args)
}

/// A literal of `dims` holding `f(i)` at row-major position `i`.
pub fn filled<T: NativeType>(dims: &[i64], f: impl Fn(usize) -> T) -> Literal {
    let n: i64 = dims.iter().product();
    Literal::from_vec(dims, (0..n as usize).map(f).collect()).expect("valid test literal")
}

/// The row-major position in an array of `dims` of the element that NumPy
/// broadcasting reads for the output coordinate `out` (right-aligned; size-1
/// dims read position 0).
pub fn source_position(out: &[i64], dims: &[i64]) -> usize {
    let strides = row_major_strides(dims);
    let shift = out.len() - dims.len();
    dims.iter()
        .enumerate()
        .map(|(j, &d)| {
            if d == 1 {
                0
            } else {
                out[shift + j] * strides[j]
            }
        })
        .sum::<i64>() as usize
}

/// Every coordinate of `dims`, row-major.
pub fn coords(dims: &[i64]) -> Vec<Vec<i64>> {
    let n: i64 = dims.iter().product();
    let mut out = Vec::with_capacity(n as usize);
    let mut c = vec![0i64; dims.len()];
    for _ in 0..n {
        out.push(c.clone());
        for d in (0..dims.len()).rev() {
            c[d] += 1;
            if c[d] < dims[d] {
                break;
            }
            c[d] = 0;
        }
    }
    out
}
