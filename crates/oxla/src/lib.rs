//! # oxla
//!
//! An XLA-style tensor IR with XLA's explicit broadcasting semantics, a
//! reference interpreter and a Cranelift JIT ([`compile`] gives an
//! [`Executable`] whose `run` matches [`evaluate`]). This facade re-exports
//! the public API; depend on this crate.
//!
//! ```
//! use oxla::{Builder, Computation, ElementType, Error, Literal, Shape};
//! let mut b = Builder::new("example");
//! let x = b.parameter(0, Shape::new(ElementType::F32, &[2, 3]), "x")?;  // dims are i64, as in XLA
//! let v = b.parameter(1, Shape::new(ElementType::F32, &[3]), "v")?;
//! let y = b.add(x, v, &[1])?;            // every binary op takes broadcast_dimensions: &[i64]
//! let s: Shape = b.shape(y)?;            // the inferred shape of any op
//! let comp: Computation = b.build(y)?;   // verified
//! println!("{}", comp.to_hlo_text());    // Display prints the same text
//! let out: Literal = oxla::evaluate(&comp, &[&Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?,
//!                                           &Literal::from_vec(&[3], vec![7f32, 8., 9.])?])?;
//! assert_eq!(out.shape().dims(), &[2, 3]);
//! assert_eq!(out.to_vec::<f32>()?, vec![8., 10., 12., 11., 13., 15.]);
//! # Ok::<(), Error>(())
//! ```

pub mod npy;

pub use oxla_client::{numpy, tml};
pub use oxla_interp::evaluate;
pub use oxla_ir::{
    ArrayData, BinaryOp, Builder, ComparisonDirection, Computation, DotDimensionNumbers,
    ElementType, Error, Literal, NativeType, Op, OpProblem, Opcode, PadDim, Result, Shape,
    StorageSink, UnaryOp, VerifierProblem,
};
pub use oxla_ir::{
    composite, diagnostic, ir, parse_hlo_module, parser, passes, printer, shape_inference, verifier,
};
pub use oxla_jit::{Executable, THREADS_VAR, compile, fusion_text, num_threads};
