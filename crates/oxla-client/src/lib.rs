//! # oxla-client: implicit broadcasting as client-level wrappers
//!
//! XLA's IR is strict: a binary op between operands of different ranks
//! must say, in `broadcast_dimensions`, how the lower-rank one lines up.
//! XLA's broadcasting text leaves the rest to the client: "If necessary,
//! implicit and magical features can be added in client-level wrappers."
//! This crate is those wrappers, one module per world:
//!
//! * [`numpy`]: the NumPy / Array API rule (right-aligned, size-1
//!   dimensions stretch), its in-place semantics, and basic indexing;
//! * [`tml`]: TML's rules, which differ per kind of operation and apply
//!   per nesting level of nested tensor types, with assignment
//!   broadcasting, narrowcasting and index access broadcasting.
//!
//! Each wrapper decides the result by its world's rule (refusing with that
//! world's explanation), then emits ops of the strict
//! [`oxla_ir::Builder`] only: every binary op of the built computation
//! carries its computed `broadcast_dimensions`, visible in
//! `to_hlo_text()`, and the verifier checks it like any other.
//!
//! ```
//! use oxla_client::numpy::Np;
//! use oxla_ir::{Builder, ElementType::F32, Shape};
//! let mut b = Builder::new("implicit");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
//! let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
//! let y = Np::new(&mut b).add(x, v)?; // no broadcast_dimensions written...
//! let text = b.build(y)?.to_hlo_text();
//! assert!(text.contains("add(x, v), broadcast_dimensions={1}")); // ...but emitted
//! # Ok::<(), oxla_ir::Error>(())
//! ```
//!
//! Invariants: this crate adds no opcode and no IR (it depends on
//! `oxla-ir` alone); every refusal is an [`oxla_ir::Error`], never a panic;
//! no element type is converted implicitly in either world.
#![warn(missing_docs)]
// `oxla_ir::Error` is large (216 bytes); every fallible function here
// returns it, as the core's do. Boxing it is the core's decision.
#![allow(clippy::result_large_err)]

mod lower;
pub mod numpy;
pub mod tml;
