//! Arguments for `oxla run` and `oxla bench`: `.npy` files checked against
//! the module's parameters, or deterministic random values.
//!
//! Random inputs come from SplitMix64 seeded with `seed` and the parameter
//! number, so a (module, seed) pair always gives the same values on every
//! machine: floats uniform in [-1, 1), signed integers in [-10, 10],
//! unsigned integers in [0, 10], `pred` true or false with equal odds.

use oxla::{ArrayData, Computation, ElementType, Literal, Shape};

use crate::CliError;

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
        let lit = oxla::npy::read_npy(path).map_err(|e| CliError::Failure(e.to_string()))?;
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
            let mut rng = SplitMix64(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            random_literal(shape, &mut rng)
        })
        .collect()
}

fn random_literal(shape: &Shape, rng: &mut SplitMix64) -> Result<Literal, CliError> {
    if shape.is_tuple() {
        let elements = shape
            .tuple_shapes()
            .iter()
            .map(|s| random_literal(s, rng))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Literal::tuple(elements));
    }
    let n = shape.element_count().max(0) as usize;
    let int = |rng: &mut SplitMix64| (rng.next() % 21) as i64 - 10;
    let uint = |rng: &mut SplitMix64| rng.next() % 11;
    let data: ArrayData = match shape.element_type() {
        ElementType::Pred => (0..n)
            .map(|_| rng.next() >> 63 == 1)
            .collect::<Vec<_>>()
            .into(),
        ElementType::S8 => (0..n).map(|_| int(rng) as i8).collect::<Vec<_>>().into(),
        ElementType::S16 => (0..n).map(|_| int(rng) as i16).collect::<Vec<_>>().into(),
        ElementType::S32 => (0..n).map(|_| int(rng) as i32).collect::<Vec<_>>().into(),
        ElementType::S64 => (0..n).map(|_| int(rng)).collect::<Vec<_>>().into(),
        ElementType::U8 => (0..n).map(|_| uint(rng) as u8).collect::<Vec<_>>().into(),
        ElementType::U16 => (0..n).map(|_| uint(rng) as u16).collect::<Vec<_>>().into(),
        ElementType::U32 => (0..n).map(|_| uint(rng) as u32).collect::<Vec<_>>().into(),
        ElementType::U64 => (0..n).map(|_| uint(rng)).collect::<Vec<_>>().into(),
        ElementType::F32 => (0..n).map(|_| rng.unit() as f32).collect::<Vec<_>>().into(),
        ElementType::F64 => (0..n).map(|_| rng.unit()).collect::<Vec<_>>().into(),
        // The other types from their bit patterns: small integers wrapped
        // to the width, floats in [-1, 1) rounded to the type, complex
        // values with both parts so.
        ty @ (ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4) => {
            let bytes: Vec<u8> = (0..n).map(|_| int(rng) as u8).collect();
            from_bytes(ty, &bytes)?
        }
        ty @ (ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16) => {
            let mut bytes = Vec::new();
            for _ in 0..n {
                let v = Literal::float_scalar(ty, rng.unit())
                    .and_then(|l| l.array_data().map(ArrayData::to_le_bytes))
                    .unwrap_or_default();
                bytes.extend(v);
            }
            from_bytes(ty, &bytes)?
        }
        ElementType::C64 => (0..n)
            .map(|_| oxla::Complex64::new(rng.unit() as f32, rng.unit() as f32))
            .collect::<Vec<_>>()
            .into(),
        ElementType::C128 => (0..n)
            .map(|_| oxla::Complex128::new(rng.unit(), rng.unit()))
            .collect::<Vec<_>>()
            .into(),
        ElementType::Tuple | ElementType::Token => {
            return Err(CliError::Failure(format!(
                "cannot generate a value of shape {shape}"
            )));
        }
    };
    Literal::from_array_data(shape.dims(), data).map_err(|e| CliError::Failure(e.to_string()))
}

fn from_bytes(ty: ElementType, bytes: &[u8]) -> Result<ArrayData, CliError> {
    ArrayData::from_bytes(ty, bytes, false)
        .ok_or_else(|| CliError::Failure(format!("cannot generate values of type {ty}")))
}

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and the same on every
/// platform.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
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
    fn random_values_are_deterministic_and_in_range() {
        let mut a = SplitMix64(7);
        let mut b = SplitMix64(7);
        for _ in 0..1000 {
            let (x, y) = (a.unit(), b.unit());
            assert_eq!(x, y);
            assert!((-1.0..1.0).contains(&x));
        }
        let lit = random_literal(&Shape::new(ElementType::S8, &[100]), &mut SplitMix64(1)).unwrap();
        assert!(
            lit.to_vec::<i8>()
                .unwrap()
                .iter()
                .all(|v| (-10..=10).contains(v))
        );
    }

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(12.0), "12 B");
        assert_eq!(human_bytes(64.0 * 1024.0 * 1024.0), "64.0 MiB");
    }
}
