//! StableHLO MLIR text out: what JAX prints by default
//! (`jax.jit(f).lower(x).as_text()`) and what `jax.export`, IREE and PJRT
//! consume, so a computation built or read here can go back to XLA's
//! runtimes. The writer is the `oxla-stablehlo` crate; [`print()`] first
//! brings the computation to XLA's strict form ([`crate::hlo::to_strict`]),
//! so the text reads as JAX would print the same function.
//!
//! [`parse()`] reads StableHLO text (JAX's pretty and generic forms,
//! `func.call`, `stablehlo.composite`, the `chlo` ops JAX leaves in) into
//! the same verified [`Computation`] the HLO parser gives; see
//! `docs/stablehlo.md` for what is read and what is refused.
//!
//! ```
//! use oxla::{Builder, ElementType::F32, Shape};
//! let mut b = Builder::new("example");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
//! let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
//! let y = b.add(x, v, &[1])?;
//! let mlir = oxla::stablehlo::print(&b.build(y)?)?;
//! assert!(mlir.starts_with("module @example attributes"));
//! assert!(mlir.contains(
//!     "func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xf32> {jax.result_info = \"result\"})"
//! ));
//! assert!(mlir.contains(
//!     "stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>"
//! ));
//! # Ok::<(), oxla::Error>(())
//! ```

use crate::{Computation, Error, Result};

pub use oxla_stablehlo::{ExportError, MAX_REGION_DEPTH};

/// Parses StableHLO MLIR text into a verified [`Computation`], or an
/// [`Error::Parse`] at the line and column of the MLIR text, naming the op.
///
/// ```
/// let mlir = r#"
/// func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<2x3xf32> {
///   %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
///   %1 = stablehlo.add %arg0, %0 : tensor<2x3xf32>
///   return %1 : tensor<2x3xf32>
/// }
/// "#;
/// let comp = oxla::stablehlo::parse(mlir)?;
/// assert_eq!(comp.result_shape().to_string(), "f32[2,3]");
/// let x = oxla::Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?;
/// let v = oxla::Literal::from_vec(&[3], vec![10f32, 20., 30.])?;
/// let y = oxla::compile(&comp)?.run(&[&x, &v])?;
/// assert_eq!(y.to_vec::<f32>()?, vec![11., 22., 33., 14., 25., 36.]);
/// let err = oxla::stablehlo::parse("func.func @main() {\n  %0 = stablehlo.frobnicate\n}").unwrap_err();
/// assert!(err.to_string().contains("stablehlo.frobnicate"), "{err}");
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn parse(text: &str) -> Result<Computation> {
    oxla_stablehlo::parse_stablehlo(text)
}

/// The computation as StableHLO MLIR text (`module @name ... { func.func
/// public @main(...) ... }`, ending with a newline), after
/// [`to_strict`](crate::hlo::to_strict).
///
/// The only computations refused are those whose reducers call `reduce`
/// more than [`MAX_REGION_DEPTH`] levels deep, and those with a dilated
/// `select-and-scatter` (StableHLO's has no dilation); the writer's own
/// [`ExportError`] comes back as [`Error::Backend`] with backend
/// `stablehlo`, so `?` works in a function returning [`oxla::Result`](crate::Result).
pub fn print(comp: &Computation) -> Result<String> {
    let strict = crate::hlo::to_strict(comp)?;
    oxla_stablehlo::to_stablehlo(&strict).map_err(into_error)
}

/// The writer's refusal as an [`Error`], its message whole.
fn into_error(e: ExportError) -> Error {
    Error::Backend {
        backend: "stablehlo".into(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{ExportError, into_error};
    use crate::Error;

    #[test]
    fn refusals_are_backend_errors_naming_the_writer() {
        let err = into_error(ExportError::RegionsTooDeep {
            computation: "deep".into(),
            reducer: "r1".into(),
            limit: 200,
        });
        assert_eq!(err.code(), "OX0801");
        assert_eq!(
            err.to_string(),
            "Backend error in stablehlo: cannot write `deep` as StableHLO: regions (reducers, \
             loops, branches) nest more than 200 levels deep (at `r1`)"
        );
        assert!(matches!(err, Error::Backend { backend, .. } if backend == "stablehlo"));
    }
}
