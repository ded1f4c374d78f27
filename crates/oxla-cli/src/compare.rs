//! Comparing two results (`oxla run --compare`): integers and `pred`
//! exactly, floats within `|a - b| <= ATOL + RTOL * |b|` (NaN matches NaN).

use oxla::{ArrayData, Literal};

/// Absolute tolerance for floats.
pub const ATOL: f64 = 1e-5;
/// Relative tolerance for floats.
pub const RTOL: f64 = 1e-4;

/// How two results differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Elements compared.
    pub count: usize,
    /// Elements outside tolerance.
    pub mismatches: usize,
    /// The largest absolute difference.
    pub max_abs: f64,
    /// The first mismatching element: (row-major index, actual, expected).
    pub first: Option<(usize, String, String)>,
}

impl Report {
    /// `true` when everything is within tolerance.
    pub fn ok(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `actual` with `expected`; `Err` when their shapes differ.
pub fn compare(actual: &Literal, expected: &Literal) -> Result<Report, String> {
    if actual.shape() != expected.shape() {
        return Err(format!(
            "the results have different shapes: {} and {}",
            actual.shape(),
            expected.shape()
        ));
    }
    let mut report = Report {
        count: 0,
        mismatches: 0,
        max_abs: 0.0,
        first: None,
    };
    if let (Some(a), Some(e)) = (actual.tuple_elements(), expected.tuple_elements()) {
        for (x, y) in a.iter().zip(e) {
            let r = compare(x, y)?;
            if report.first.is_none() {
                report.first = r.first.map(|(i, x, y)| (report.count + i, x, y));
            }
            report.count += r.count;
            report.mismatches += r.mismatches;
            report.max_abs = report.max_abs.max(r.max_abs);
        }
        return Ok(report);
    }
    let (Some(a), Some(e)) = (actual.array_data(), expected.array_data()) else {
        return Err("a tuple and an array cannot be compared".into());
    };
    report.count = a.len();
    let mut note = |i: usize, bad: bool, abs: f64| {
        if abs > report.max_abs {
            report.max_abs = abs;
        }
        if bad {
            report.mismatches += 1;
            if report.first.is_none() {
                report.first = Some((i, a.format_value(i), e.format_value(i)));
            }
        }
    };
    macro_rules! exact {
        ($x:expr, $y:expr) => {
            for (i, (p, q)) in $x.iter().zip($y.iter()).enumerate() {
                note(i, p != q, if p == q { 0.0 } else { f64::INFINITY });
            }
        };
    }
    macro_rules! close {
        ($x:expr, $y:expr) => {
            for (i, (&p, &q)) in $x.iter().zip($y.iter()).enumerate() {
                let (p, q) = (p as f64, q as f64);
                if p.is_nan() || q.is_nan() {
                    note(i, p.is_nan() != q.is_nan(), 0.0);
                } else if p == q {
                    note(i, false, 0.0);
                } else {
                    let abs = (p - q).abs();
                    note(i, abs.is_nan() || abs > ATOL + RTOL * q.abs(), abs);
                }
            }
        };
    }
    match (a, e) {
        (ArrayData::Pred(x), ArrayData::Pred(y)) => exact!(x, y),
        (ArrayData::S8(x), ArrayData::S8(y)) => exact!(x, y),
        (ArrayData::S16(x), ArrayData::S16(y)) => exact!(x, y),
        (ArrayData::S32(x), ArrayData::S32(y)) => exact!(x, y),
        (ArrayData::S64(x), ArrayData::S64(y)) => exact!(x, y),
        (ArrayData::U8(x), ArrayData::U8(y)) => exact!(x, y),
        (ArrayData::U16(x), ArrayData::U16(y)) => exact!(x, y),
        (ArrayData::U32(x), ArrayData::U32(y)) => exact!(x, y),
        (ArrayData::U64(x), ArrayData::U64(y)) => exact!(x, y),
        (ArrayData::F32(x), ArrayData::F32(y)) => close!(x, y),
        (ArrayData::F64(x), ArrayData::F64(y)) => close!(x, y),
        // The narrow floats, sub-byte integers and complex types: the JIT
        // computes them bit-exactly with the interpreter (docs/jit.md), so
        // their stored bits must be equal.
        (x, y) if x.element_type() == y.element_type() => {
            let size = x.element_type().byte_size().max(1);
            let (xb, yb) = (x.to_le_bytes(), y.to_le_bytes());
            let (xs, ys): (Vec<&[u8]>, Vec<&[u8]>) =
                (xb.chunks(size).collect(), yb.chunks(size).collect());
            exact!(xs, ys);
        }
        _ => return Err("the results have different element types".into()),
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_within_tolerance_match() {
        let a = Literal::from_vec(&[4], vec![1.0f32, f32::NAN, 1e6, -0.0]).unwrap();
        let b = Literal::from_vec(&[4], vec![1.0f32 + 1e-6, f32::NAN, 1e6 + 50.0, 0.0]).unwrap();
        let r = compare(&a, &b).unwrap();
        assert!(r.ok(), "{r:?}");
        let c = Literal::from_vec(&[4], vec![1.1f32, 0.0, 1e6, 0.0]).unwrap();
        let r = compare(&c, &b).unwrap();
        assert_eq!(r.mismatches, 2);
        assert_eq!(r.first.as_ref().map(|f| f.0), Some(0));
    }

    #[test]
    fn integers_must_match_exactly_and_shapes_must_agree() {
        let a = Literal::from_vec(&[2], vec![1i32, 2]).unwrap();
        let b = Literal::from_vec(&[2], vec![1i32, 3]).unwrap();
        assert_eq!(compare(&a, &b).unwrap().mismatches, 1);
        let c = Literal::from_vec(&[1, 2], vec![1i32, 2]).unwrap();
        assert!(compare(&a, &c).is_err());
    }

    #[test]
    fn narrow_floats_compare_by_their_bits() {
        let ty = oxla::ElementType::Bf16;
        let one = Literal::float_scalar(ty, 1.0).unwrap();
        let also_one = Literal::float_scalar(ty, 1.0).unwrap();
        let two = Literal::float_scalar(ty, 2.0).unwrap();
        assert!(compare(&one, &also_one).unwrap().ok());
        let r = compare(&one, &two).unwrap();
        assert_eq!((r.count, r.mismatches), (1, 1));
        let f = Literal::float_scalar(oxla::ElementType::F16, 1.0).unwrap();
        assert!(compare(&one, &f).is_err());
    }
}
