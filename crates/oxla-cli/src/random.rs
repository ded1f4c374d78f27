//! Deterministic random values for a module's parameters, shared by
//! `oxla run`/`oxla bench` and `oxla-bench --models` (which includes this
//! file by path, so both feed a model the same values).
//!
//! SplitMix64 seeded with the seed and the parameter number: floats uniform
//! in [-1, 1) (rounded to a narrow float type), signed integers in
//! [-10, 10], unsigned integers in [0, 10], `pred` true or false with equal
//! odds, complex values with both parts so.

use oxla::{ArrayData, ElementType, Literal, Shape};

/// A random value of `shape` (a tuple's elements in order) drawn from `rng`;
/// an error for a token.
pub fn random_literal(shape: &Shape, rng: &mut SplitMix64) -> Result<Literal, String> {
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
            return Err(format!("cannot generate a value of shape {shape}"));
        }
    };
    Literal::from_array_data(shape.dims(), data).map_err(|e| e.to_string())
}

fn from_bytes(ty: ElementType, bytes: &[u8]) -> Result<ArrayData, String> {
    ArrayData::from_bytes(ty, bytes, false)
        .ok_or_else(|| format!("cannot generate values of type {ty}"))
}

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and the same on every
/// platform.
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator of parameter `k` for `seed`.
    pub fn for_parameter(seed: u64, k: usize) -> SplitMix64 {
        SplitMix64(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

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
}
