//! Complex values at the executable's boundary.
//!
//! The JIT compiles `c64` and `c128` through `oxla_ir::passes::complex`,
//! which rewrites the computation into real arithmetic: inside, every
//! complex value is two arrays of its part type; at the entry, a complex
//! parameter `c64[d]` is the real parameter `f32[d,2]` and a complex
//! result (leaf) the real result `f32[d,2]`. Those have the same bytes (a
//! complex element is its real part, then its imaginary part), so the
//! executable only reinterprets: each complex argument's values are
//! copied into a real literal of the widened shape, and each result leaf
//! back ([`argument`] and [`result`], the `Complex` translation of the
//! executable's boundary, `boundary.rs`).

use oxla_ir::{ArrayData, Computation, Literal, Result, Shape};

use crate::error::{Stage, internal};

/// `comp` lowered to real arithmetic, or `None` when it has no complex
/// value (see `oxla_ir::passes::complex`).
pub(crate) fn lower(comp: &Computation) -> Result<Option<Computation>> {
    Ok(oxla_ir::passes::complex::lower(comp, "jit")?.map(|l| l.computation))
}

/// `dims` with a trailing 2 (a complex array's parts side by side).
fn widened(dims: &[i64]) -> Vec<i64> {
    [dims, &[2]].concat()
}

/// Argument `arg` as the lowered computation takes it: a complex array as
/// its parts side by side, `None` for anything else (taken as it is).
pub(crate) fn argument(arg: &Literal) -> Result<Option<Literal>> {
    let ty = arg.element_type();
    let Some(part) = ty.complex_component() else {
        return Ok(None);
    };
    let data = arg
        .array_data()
        .ok_or_else(|| internal(Stage::Run, "a complex argument without values"))?;
    let bytes = data.to_le_bytes();
    let values = ArrayData::from_bytes(part, &bytes, false)
        .ok_or_else(|| internal(Stage::Run, "complex argument bytes"))?;
    Literal::from_array_data(&widened(arg.shape().dims()), values).map(Some)
}

/// The lowered computation's result `out` as the original result of
/// `shape`: each complex leaf reinterpreted from its parts side by side.
pub(crate) fn result(out: Literal, shape: &Shape) -> Result<Literal> {
    if shape.is_tuple() {
        let items = out
            .into_tuple_elements()
            .map_err(|_| internal(Stage::Run, "a tuple result that is not a tuple"))?;
        if items.len() != shape.tuple_shapes().len() {
            return Err(internal(Stage::Run, "a tuple result of another arity"));
        }
        let leaves = items
            .into_iter()
            .zip(shape.tuple_shapes())
            .map(|(l, s)| result(l, s))
            .collect::<Result<Vec<_>>>()?;
        return Ok(Literal::tuple(leaves));
    }
    if !shape.element_type().is_complex() {
        return Ok(out);
    }
    let data = out
        .array_data()
        .ok_or_else(|| internal(Stage::Run, "a complex result without values"))?;
    let bytes = data.to_le_bytes();
    let values = ArrayData::from_bytes(shape.element_type(), &bytes, false)
        .ok_or_else(|| internal(Stage::Run, "complex result bytes"))?;
    Literal::from_array_data(shape.dims(), values)
}
