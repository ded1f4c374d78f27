//! # oxla-ir: the IR core of oxla
//!
//! Element types, shapes, literals, the IR, the builder, shape inference, the
//! verifier and the HLO text printer. This crate has no dependency on
//! Cranelift or on any backend; every backend depends on it.
//!
//! Data flows one way: [`Builder`] → [`Computation`] (verified) → passes
//! ([`passes`]) → a backend (`oxla-interp`, later the JIT).
//!
//! ```
//! use oxla_ir::{Builder, ElementType, Shape};
//! let mut b = Builder::new("example");
//! let x = b.parameter(0, Shape::new(ElementType::F32, &[2, 3]), "x")?;
//! let v = b.parameter(1, Shape::new(ElementType::F32, &[3]), "v")?;
//! let y = b.add(x, v, &[1])?;
//! let comp = b.build(y)?;
//! assert_eq!(comp.result_shape().to_string(), "f32[2,3]");
//! # Ok::<(), oxla_ir::Error>(())
//! ```
#![warn(missing_docs)]

pub mod builder;
pub mod composite;
pub mod diagnostic;
pub mod element_type;
pub mod error;
pub mod ir;
pub mod literal;
pub mod op_problem;
pub mod opcode;
pub mod parser;
pub mod passes;
pub mod printer;
pub mod shape;
pub mod shape_inference;
pub mod verifier;

pub use builder::{Builder, Op};
pub use element_type::{
    Complex64, Complex128, ElementBits, ElementType, FloatBits, NativeType, RealFloat, TypeKind,
    bf16, f16,
};
pub use element_type::{
    Float4E2M1FN, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FN, Float8E4M3FNUZ,
    Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU, MiniFloat,
};
pub use element_type::{Int1, Int2, Int4, SubByteInt, Uint1, Uint2, Uint4};
pub use error::{Error, Result, VerifierProblem};
pub use ir::{
    BinaryReducer, Body, ComparisonDirection, ComparisonOrder, ComparisonType, Computation,
    ComputationId, DotDimensionNumbers, InstId, Instruction, OpKind, PadDim, RngAlgorithm,
    RngDistribution, Transpose, TriangularSolveOptions,
};
// The windows family's attribute types.
pub use ir::{ConvolutionDimensionNumbers, Precision, Window, WindowDim};
// fft's attribute.
pub use ir::FftType;
// custom-call's attributes.
pub use ir::{CustomCall, CustomCallApiVersion};
pub use ir::{GatherDimensionNumbers, ScatterDimensionNumbers};
// ragged-dot's attributes.
pub use ir::{RaggedDotDimensionNumbers, RaggedDotMode};
pub use literal::{ArrayData, Literal, StorageSink};
pub use op_problem::{OpProblem, Signature};
pub use opcode::{Arity, BinaryOp, Cost, OpClass, OpFlags, OpInfo, Opcode, TypeSet, UnaryOp};
pub use parser::parse_hlo_module;
pub use shape::Shape;
