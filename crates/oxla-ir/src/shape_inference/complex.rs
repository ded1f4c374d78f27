//! Shape inference for the complex-number ops: `complex`, `real`, `imag`
//! and `fft`, with XLA's checks in XLA's order (`hlo-op-set.md` §3.20,
//! §3.23).

use super::{invalid, require_array, type_error};
use crate::opcode::{Opcode, TypeSet};
use crate::{Error, FftType, OpProblem, Result, Shape};

/// `complex(re, im)`: two real float arrays of one type and the same dims;
/// `f32` gives `c64`, `f64` gives `c128` (no other part type has a
/// complex type).
///
/// ```
/// use oxla_ir::{ElementType::*, Shape, shape_inference::infer_complex_shape};
/// let x = Shape::new(F32, &[4]);
/// assert_eq!(infer_complex_shape(&x, &x)?.to_string(), "c64[4]");
/// assert!(infer_complex_shape(&Shape::new(Bf16, &[4]), &Shape::new(Bf16, &[4])).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_complex_shape(re: &Shape, im: &Shape) -> Result<Shape> {
    const OP: &str = "complex";
    require_array(OP, "the real part", re)?;
    require_array(OP, "the imaginary part", im)?;
    if !TypeSet::Float.contains(re.element_type()) {
        return Err(type_error(OP, re, TypeSet::Float));
    }
    if re.element_type() != im.element_type() {
        return Err(Error::ElementTypeMismatch {
            op: OP.into(),
            lhs: re.clone(),
            rhs: im.clone(),
            help: "give both parts the same type (f32 or f64).".into(),
        });
    }
    if re.dims() != im.dims() {
        return Err(invalid(
            OP,
            OpProblem::ComplexPartsDims {
                re: re.clone(),
                im: im.clone(),
            },
        ));
    }
    let Some(ty) = re.element_type().complex_of() else {
        return Err(invalid(OP, OpProblem::ComplexPartType { part: re.clone() }));
    };
    Ok(re.with_element_type(ty))
}

/// `real(z)` and `imag(z)`: a complex array gives its part type; a real
/// float array is allowed too (`real(x) = x`, `imag(x) = 0`).
///
/// ```
/// use oxla_ir::{ElementType::*, Opcode, Shape, shape_inference::infer_real_imag_shape};
/// let z = Shape::new(C128, &[2]);
/// assert_eq!(infer_real_imag_shape(Opcode::Imag, &z)?.to_string(), "f64[2]");
/// assert!(infer_real_imag_shape(Opcode::Real, &Shape::new(S32, &[2])).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_real_imag_shape(opcode: Opcode, operand: &Shape) -> Result<Shape> {
    let op = opcode.name();
    require_array(op, "the operand", operand)?;
    let ty = operand.element_type();
    if !opcode.accepts(ty) {
        return Err(type_error(op, operand, opcode.types()));
    }
    Ok(operand.with_element_type(ty.complex_component().unwrap_or(ty)))
}

/// `fft`: 1 to 3 transformed (trailing) dimensions; `FFT`/`IFFT` take and
/// give complex arrays of the same shape (their trailing dims must equal
/// `fft_length`, as StableHLO requires); `RFFT` takes `f32`/`f64` whose
/// trailing dims are `fft_length` and gives `c64`/`c128` with the last one
/// `n/2 + 1`; `IRFFT` takes complex with trailing dims `fft_length` except
/// the last, `n/2 + 1`, and gives the part type with the last one `n`.
///
/// ```
/// use oxla_ir::{ElementType::*, FftType, Shape, shape_inference::infer_fft_shape};
/// let x = Shape::new(F32, &[8, 32]);
/// let f = infer_fft_shape(&x, FftType::Rfft, &[32])?;
/// assert_eq!(f.to_string(), "c64[8,17]");
/// assert_eq!(infer_fft_shape(&f, FftType::Irfft, &[32])?.to_string(), "f32[8,32]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_fft_shape(operand: &Shape, fft_type: FftType, fft_length: &[i64]) -> Result<Shape> {
    const OP: &str = "fft";
    require_array(OP, "the operand", operand)?;
    let problem = |reason: String| {
        invalid(
            OP,
            OpProblem::FftShape {
                operand: operand.clone(),
                fft_type: fft_type.to_string(),
                fft_length: fft_length.to_vec(),
                reason,
            },
        )
    };
    if !(1..=3).contains(&fft_length.len()) {
        return Err(problem(format!(
            "FFT only supports ranks 1-3, but fft_length has {} entries",
            fft_length.len()
        )));
    }
    if fft_length.iter().any(|&n| n < 0) {
        return Err(problem("fft_length entries must be non-negative".into()));
    }
    let ty = operand.element_type();
    let (types, result_type) = match fft_type {
        FftType::Fft | FftType::Ifft => (TypeSet::FloatOrComplex, Some(ty)),
        FftType::Rfft => (TypeSet::Float, ty.complex_of()),
        FftType::Irfft => (TypeSet::FloatOrComplex, ty.complex_component()),
    };
    let complex_input = fft_type != FftType::Rfft;
    if !types.contains(ty) || complex_input != ty.is_complex() {
        return Err(problem(format!(
            "{fft_type} requires {} input, got {ty}",
            if complex_input {
                "complex"
            } else {
                "f32 or f64"
            }
        )));
    }
    let Some(result_type) = result_type else {
        return Err(problem(format!(
            "{fft_type} requires f32 or f64 input, got {ty}"
        )));
    };
    let rank = operand.rank();
    if rank < fft_length.len() {
        return Err(problem(format!(
            "FFT of rank {} requires input of at least same rank",
            fft_length.len()
        )));
    }
    let trailing = &operand.dims()[rank - fft_length.len()..];
    let last = fft_length.len() - 1;
    let mut expected = fft_length.to_vec();
    if fft_type == FftType::Irfft {
        expected[last] = fft_length[last] / 2 + 1;
    }
    if trailing != expected {
        return Err(problem(format!(
            "the trailing dims {trailing:?} of the operand must be {expected:?}"
        )));
    }
    let mut dims = operand.dims().to_vec();
    match fft_type {
        FftType::Fft | FftType::Ifft => {}
        FftType::Rfft => dims[rank - 1] = fft_length[last] / 2 + 1,
        FftType::Irfft => dims[rank - 1] = fft_length[last],
    }
    Ok(Shape::new(result_type, &dims))
}
