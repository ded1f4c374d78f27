//! Arguments for `oxla run` and `oxla bench`: `.npy` files checked against
//! the module's parameters, or deterministic random values.
//!
//! Random inputs come from SplitMix64 seeded with `seed` and the parameter
//! number, so a (module, seed) pair always gives the same values on every
//! machine: floats uniform in [-1, 1), signed integers in [-10, 10],
//! unsigned integers in [0, 10], `pred` true or false with equal odds.

use oxla::{Computation, Literal, Shape};

use crate::CliError;
use crate::random::{SplitMix64, random_literal};

/// Refuse to generate more random input than this (8 GiB).
pub const MAX_RANDOM_BYTES: u128 = 8 << 30;

/// Reads one `.npy` file per parameter and checks each against its
/// parameter's shape.
pub fn read_inputs(comp: &Computation, paths: &[&str]) -> Result<Vec<Literal>, CliError> {
    let shapes = comp.parameter_shapes();
    let names = comp.parameter_names();
    if paths.len() != shapes.len() {
        return Err(CliError::Failure(format!(
            "`{}` takes {} parameter(s) ({}), but {} --input file(s) were given; pass one .npy \
             file per parameter, in order, or none for random inputs",
            comp.name(),
            shapes.len(),
            signature(&names, &shapes),
            paths.len()
        )));
    }
    let mut out = Vec::with_capacity(paths.len());
    for (k, path) in paths.iter().enumerate() {
        let lit = match oxla::npy::read_npy(path) {
            Ok(lit) => lit,
            // NumPy writes `ml_dtypes`' types (bf16, the float8 kinds,
            // int4, ...) as raw `<V2`/`<V1` values that only the parameter
            // can name; the first error stands if that does not read either.
            Err(e) if !shapes[k].is_tuple() => {
                oxla::npy::read_npy_as(path, shapes[k].element_type())
                    .map_err(|_| CliError::Failure(e.to_string()))?
            }
            Err(e) => return Err(CliError::Failure(e.to_string())),
        };
        if lit.shape() != &shapes[k] {
            return Err(CliError::Failure(format!(
                "{path}: parameter {k} (`{}`) has shape {}, but the file holds {}",
                names[k],
                shapes[k],
                lit.shape()
            )));
        }
        out.push(lit);
    }
    Ok(out)
}

/// `(x: f32[2,3], v: f32[3])`-style list.
pub fn signature(names: &[String], shapes: &[Shape]) -> String {
    names
        .iter()
        .zip(shapes)
        .map(|(n, s)| format!("{n}: {s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Bytes of a value of `shape` (tuples: the sum of their elements).
pub fn byte_size(shape: &Shape) -> u128 {
    if shape.is_tuple() {
        return shape.tuple_shapes().iter().map(byte_size).sum();
    }
    shape.element_count().max(0) as u128 * shape.element_type().byte_size() as u128
}

/// Deterministic random arguments for every parameter of `comp`.
pub fn random_inputs(comp: &Computation, seed: u64) -> Result<Vec<Literal>, CliError> {
    let shapes = comp.parameter_shapes();
    let total: u128 = shapes.iter().map(byte_size).sum();
    if total > MAX_RANDOM_BYTES {
        return Err(CliError::Failure(format!(
            "the parameters of `{}` need {} of input, more than the {} oxla generates at random; \
             pass --input files",
            comp.name(),
            human_bytes(total as f64),
            human_bytes(MAX_RANDOM_BYTES as f64)
        )));
    }
    shapes
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            random_literal(shape, &mut SplitMix64::for_parameter(seed, k))
                .map_err(CliError::Failure)
        })
        .collect()
}

/// `1.5 GiB`, `64.0 MiB`, `12 B`.
pub fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(12.0), "12 B");
        assert_eq!(human_bytes(64.0 * 1024.0 * 1024.0), "64.0 MiB");
    }
}
