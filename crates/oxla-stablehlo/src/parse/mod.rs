//! StableHLO MLIR text in: [`parse_stablehlo`].
//!
//! It reads what JAX 0.4 to 0.10 prints (`jax.jit(f).lower(*args).as_text()`,
//! `jax.export`'s `mlir_module()`), what [`crate::to_stablehlo`] writes, and
//! MLIR's generic form of the same (`"stablehlo.add"(%0, %1) : (...) -> ...`),
//! and builds the IR the HLO text parser would build for the same program.
//!
//! The data flows through four stages, one module each:
//! - [`cursor`] and [`syntax`]: the text as a tree (modules, functions,
//!   regions, ops in either form, attributes, types), every node located;
//! - [`pretty`]: each op's pretty form, read into the generic form's shape;
//! - [`ops`]: the op table, one row per op name, with the function that
//!   lowers it;
//! - [`lower`]: the tree to a verified [`Computation`], functions inlined,
//!   regions turned into called bodies, and [`dense`] for constants.
//!
//! What is read:
//! - `module @name attributes {...} { ... }` (or bare `func.func`s), the
//!   generic `"builtin.module"`, `#alias = ...` and `!alias = ...`
//!   definitions, `loc(...)` anywhere, and the file's trailing
//!   `{-# dialect_resources: ... #-}` blobs;
//! - `func.func` in either form; `@main` (or the only public function) is
//!   the entry, every other function is inlined where `func.call` (or
//!   `call`) calls it, and `stablehlo.composite` is its decomposition
//!   function inlined;
//! - the StableHLO ops oxla's IR has (elementwise unary and binary ops,
//!   `compare` (`TOTALORDER` too), `select`, `clamp`, `convert`,
//!   `constant`, `iota`, `broadcast_in_dim`, `broadcast`, `reshape`,
//!   `transpose`, `slice`, `concatenate`, `reverse`, `pad`, `reduce` (one
//!   input or several, as argmax prints it) in its compact and region
//!   forms, `dot_general`, `dot`, `tuple`, `get_tuple_element`,
//!   `optimization_barrier`, `while`, `if`, `case`, `map`, `gather`,
//!   `scatter`, `dynamic_slice`, `dynamic_update_slice`, `convolution`,
//!   `reduce_window`, `select_and_scatter`, `sort`, `chlo.top_k`,
//!   `chlo.ragged_dot` (HLO's `ragged-dot`), and `after_all` with the
//!   `!stablehlo.token` type;
//!   the misc family's `popcnt`, `count_leading_zeros`, `cbrt`, `tan`,
//!   `round_nearest_afz`, `bitcast_convert`, `reduce_precision`, `rng`,
//!   `rng_bit_generator`, `cholesky`, `triangular_solve`, the batch norms).
//!   Where StableHLO passes several values and the IR one (a loop's state,
//!   a variadic result, a barrier's operands), they are packed in a tuple;
//!   values a `while`, `if` or `case` region uses from outside it become
//!   extra loop state or branch operands ([`ops`]'s `ctrl`);
//! - the CHLO ops JAX and TensorFlow leave in, lowered to HLO ops: the
//!   `chlo.broadcast_*` binary ops and `broadcast_compare` (XLA's implicit
//!   broadcasting, with NumPy's trailing alignment when
//!   `broadcast_dimensions` is absent), `broadcast_select`, `constant`,
//!   `constant_like`, `is_inf`, `is_pos_inf`, `is_neg_inf`, `square`,
//!   `erf`, `tan`, `conj`, `broadcast_complex`, and the math functions
//!   XLA expands into HLO ops (`erfc`, `erf_inv`, the inverse
//!   trigonometric and hyperbolic functions, `cosh`, `sinh`, `lgamma`,
//!   `digamma`, `next_after`: [`ops`]'s `chlo_math`, expanded as StableHLO's
//!   `chlo-legalize-to-stablehlo` expands them);
//! - complex numbers: `complex`, `real`, `imag`, `fft`;
//! - `tensor<...>` of every element type oxla has (`i1` is pred, the
//!   narrow integer and float kinds, `complex<f32>`, `complex<f64>`), and
//!   `tuple<...>` of those; `dense<...>` as a splat, nested lists (complex
//!   elements as `(re,im)`) or a hex blob, and `dense_resource<...>`.
//!
//! What is ignored, because it says nothing about the values computed:
//! the attributes in [`lower::IGNORED_ATTRIBUTES`] (sharding, partition and
//! replica counts, memory kinds, layout modes, buffer donation and
//! aliasing, JAX's argument and result names, frontend attributes), the
//! `name`, `version` and `composite_attributes` of a composite (its
//! decomposition already computes with them), `precision_config` (oxla
//! computes at the operands' precision, which every setting allows), and
//! `loc(...)`.
//!
//! What is refused, with an error at the offending text: every other
//! attribute (an attribute is honoured or refused, never ignored); ops the
//! IR does not have and cannot be built from (`chlo.zeta`, collectives,
//! the token ops beyond `after_all`, ..., each with its reason); a `compare` whose type does not fit
//! its operands (`TOTALORDER` on integers, as XLA refuses it); a dot
//! `algorithm`; dynamic or unranked shapes; element types oxla lacks
//! (`tf32`, `complex<bf16>`, quantized, ...); control flow between blocks;
//! recursion.
//!
//! Errors are [`oxla_ir::Error::Parse`], as the HLO parser's: the line and
//! column, the source line with a caret, and a message that names the op
//! (`3:10: stablehlo.dot_general: ...`). No input panics, recurses without
//! bound or allocates without a bound that grows with the text.

// `Error` is large by design (it carries shapes and source lines as data).
#![allow(clippy::result_large_err)]

mod cursor;
mod dense;
mod lower;
mod misc;
mod ops;
mod pretty;
mod source;
mod syntax;

use oxla_ir::{Computation, Result};

/// Parses StableHLO MLIR text into a verified [`Computation`], or returns
/// the first error, located in the text.
///
/// ```
/// use oxla_stablehlo::parse_stablehlo;
/// let text = r#"
/// module @axpy {
///   func.func public @main(%arg0: tensor<f32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
///     %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<4xf32>
///     %1 = stablehlo.multiply %0, %arg1 : tensor<4xf32>
///     return %1 : tensor<4xf32>
///   }
/// }
/// "#;
/// let comp = parse_stablehlo(text)?;
/// assert_eq!(comp.name(), "axpy");
/// assert_eq!(comp.result_shape().to_string(), "f32[4]");
///
/// let bad = text.replace("%1 = stablehlo.multiply %0, %arg1 : tensor<4xf32>",
///                        "%1 = stablehlo.multiply %0, %arg0 : tensor<4xf32>");
/// let err = parse_stablehlo(&bad).unwrap_err().to_string();
/// assert!(err.starts_with("5:33: stablehlo.multiply: the operand %arg0 has type f32[]"), "{err}");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn parse_stablehlo(text: &str) -> Result<Computation> {
    let src = source::Source::new(text);
    let module = syntax::parse_module(&src)?;
    lower::lower(&src, &module)
}
