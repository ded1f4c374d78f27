//! # oxla
//!
//! An XLA-style tensor IR with XLA's explicit broadcasting semantics, a
//! reference interpreter and a Cranelift JIT ([`compile`] gives an
//! [`Executable`] whose `run` matches [`evaluate`]). Depend on this crate:
//! it is the public API, and the only one with a stability promise.
//!
//! ```
//! use oxla::{Builder, Computation, ElementType, Error, Literal, Shape};
//! let mut b = Builder::new("example");
//! let x = b.parameter(0, Shape::new(ElementType::F32, &[2, 3]), "x")?;  // dims are i64, as in XLA
//! let v = b.parameter(1, Shape::new(ElementType::F32, &[3]), "v")?;
//! let y = b.add(x, v, &[1])?;            // every binary op takes broadcast_dimensions: &[i64]
//! let s: Shape = b.shape(y)?;            // the inferred shape of any op
//! let comp: Computation = b.build(y)?;   // verified
//! println!("{}", oxla::hlo::print(&comp));       // HLO text (Display prints the same)
//! println!("{}", oxla::stablehlo::print(&comp)?); // StableHLO MLIR, as JAX prints it
//! let args = [Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?,
//!             Literal::from_vec(&[3], vec![7f32, 8., 9.])?];
//! let args: Vec<&Literal> = args.iter().collect();
//! let out: Literal = oxla::evaluate(&comp, &args)?;   // the reference interpreter
//! assert_eq!(out.shape().dims(), &[2, 3]);
//! assert_eq!(out.to_vec::<f32>()?, vec![8., 10., 12., 11., 13., 15.]);
//! let exe = oxla::compile(&comp)?;                     // Cranelift, for the host CPU
//! assert_eq!(exe.run(&args)?, out);
//! # Ok::<(), Error>(())
//! ```
//!
//! ## What is here
//!
//! | you want to | use |
//! |---|---|
//! | build a computation | [`Builder`] (hands out [`Op`] handles; every method infers its shape), [`composite`] (dense, ReLU, softmax, layer norm, GELU) |
//! | describe values | [`ElementType`], [`Shape`], [`Literal`] ([`ArrayData`] for typed storage), [`npy`] files |
//! | run it | [`evaluate`] (the interpreter, the oracle); [`compile`] → [`Executable`] (the JIT; [`num_threads`], [`THREADS_VAR`]) |
//! | read and write text | [`hlo`] (HLO text in and out, XLA's strict form), [`stablehlo`] (StableHLO MLIR out) |
//! | broadcast as NumPy or TML do | [`numpy`], [`tml`]: front-ends that lower to the explicit IR |
//! | handle errors | [`Error`] (`code()`, `summary()`, `render()`; explained in `docs/errors.md`), [`Result`], [`VerifierProblem`] |
//!
//! The IR's inside (instructions, bodies, passes, shape inference, the
//! verifier) is reachable under [`internals`], for tools built on oxla; it
//! has no stability promise.
#![warn(missing_docs)]

pub mod hlo;
pub mod npy;
pub mod stablehlo;

pub use oxla_client::{numpy, tml};
pub use oxla_interp::evaluate;
pub use oxla_ir::composite;
pub use oxla_ir::{
    ArrayData, BinaryOp, Builder, ComparisonDirection, Computation, DotDimensionNumbers,
    ElementType, Error, Literal, NativeType, Op, OpProblem, Opcode, PadDim, Result, Shape,
    StorageSink, UnaryOp, VerifierProblem,
};
// The windows family's attributes (convolution, reduce-window,
// select-and-scatter), for the builder.
pub use oxla_ir::{ConvolutionDimensionNumbers, Precision, Window, WindowDim};
pub use oxla_ir::{GatherDimensionNumbers, ScatterDimensionNumbers};
// The Rust types of the element types beyond Rust's primitives (issue 13):
// bf16/f16 (the `half` crate's), the float8 kinds, f4e2m1fn, the sub-byte
// integers and c64/c128 (`num-complex`'s), with their conversions.
pub use oxla_ir::{
    Complex64, Complex128, ElementBits, Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ,
    Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, Int1, Int2, Int4,
    MiniFloat, RealFloat, SubByteInt, Uint1, Uint2, Uint4, bf16, f16,
};
pub use oxla_jit::{
    CompileProfile, Executable, MemoryUse, PROFILE_VAR, THREADS_VAR, compile, num_threads, warm_up,
};

/// The IR's internals: its instruction arena, the parser and printer
/// modules, the passes, shape inference and the verifier.
///
/// **No stability promise.** These are the modules the backends and the
/// tools in this workspace are built on; their items change whenever the IR
/// does (an op added, a field renamed), without notice. A program that only
/// builds, reads, writes and runs computations needs nothing here: the crate
/// root has it. Use these to write a pass, an analysis or a backend of your
/// own.
///
/// ```
/// use oxla::internals::ir::OpKind;
/// let comp = oxla::hlo::parse(
///     "HloModule m\n\nENTRY m {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[2,3] negate(x)\n}\n",
/// )?;
/// let entry = comp.entry();
/// assert!(matches!(entry.instructions[0].kind, OpKind::Parameter { number: 0 }));
/// assert_eq!(entry.root_inst().kind.opcode_name(), "negate");
/// # Ok::<(), oxla::Error>(())
/// ```
pub mod internals {
    pub use oxla_ir::{ir, parser, passes, printer, shape, shape_inference, verifier};
}
