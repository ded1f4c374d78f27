//! HLO text in and out: the form XLA and JAX print
//! (`jax.jit(f).lower(x).as_text(dialect="hlo")`, XLA's dumps, optimized
//! modules with fusions) and the form oxla prints.
//!
//! Text read by [`parse`] comes back as a verified [`Computation`], exactly
//! as if it had been built with the [`Builder`](crate::Builder): every
//! instruction's shape re-inferred, every name resolved. An error is located
//! at the line and column of the text ([`Error::Parse`]). [`print()`] is the
//! parser's inverse: parsing what it prints prints the same text again.
//!
//! Our dialect lets binary ops broadcast implicitly (with
//! `broadcast_dimensions`); XLA's own parser wants every broadcast explicit.
//! [`to_strict`] rewrites a computation into that strict form, and
//! [`verify_strict`] checks that a computation is in it.
//!
//! ```
//! let text = "HloModule axpy\n\nENTRY axpy {\n  a = f32[] parameter(0)\n  \
//!             x = f32[4] parameter(1)\n  y = f32[4] parameter(2)\n  \
//!             ax = f32[4] multiply(a, x)\n  ROOT r = f32[4] add(ax, y)\n}\n";
//! let comp = oxla::hlo::parse(text)?;
//! assert_eq!(comp.parameter_shapes().len(), 3);
//! // The scalar `a` broadcasts implicitly in our dialect; the strict form
//! // spells the broadcast out, as XLA's parser requires.
//! let strict = oxla::hlo::to_strict(&comp)?;
//! assert!(oxla::hlo::print(&strict).contains("broadcast(a), dimensions={}"));
//! # Ok::<(), oxla::Error>(())
//! ```

use crate::{Computation, Error, Result};

/// Parses HLO text into a verified [`Computation`]. The first error found is
/// returned as [`Error::Parse`], located at a 1-based line and column of
/// `text` with the source line and a caret under the column; see
/// [`parse_diagnostics`] for every error at once.
///
/// ```
/// let comp = oxla::hlo::parse(
///     "HloModule m\n\nENTRY m {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[2,3] negate(x)\n}\n",
/// )?;
/// assert_eq!(comp.result_shape().to_string(), "f32[2,3]");
///
/// // A declared shape that does not match what the operands give is an
/// // error located at that shape.
/// let err = oxla::hlo::parse(
///     "HloModule m\n\nENTRY m {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[3,2] negate(x)\n}\n",
/// )
/// .unwrap_err();
/// let oxla::Error::Parse { line, column, .. } = &err else {
///     panic!("not a located error: {err}");
/// };
/// assert_eq!((*line, *column), (5, 12));
/// assert!(err.to_string().starts_with("5:12: `y` declares shape f32[3,2] but its operands give f32[2,3]"));
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn parse(text: &str) -> Result<Computation> {
    oxla_ir::parse_hlo_module(text)
}

/// Parses HLO text into a verified [`Computation`], or returns every error
/// found (never an empty list), each located like [`parse`]'s, in text
/// order. The parser recovers after an error where it can (an unsupported
/// op, a bad attribute), and semantic errors (undefined names, declared
/// shapes that do not match their operands) are collected, one per
/// independent cause.
///
/// ```
/// let text = "HloModule m\n\nENTRY m {\n  x = f32[2] parameter(0)\n  \
///             y = f32[3] negate(x)\n  ROOT z = f32[2] add(x, w)\n}\n";
/// let errors = oxla::hlo::parse_diagnostics(text).unwrap_err();
/// let firsts: Vec<String> = errors
///     .iter()
///     .map(|e| e.to_string().lines().next().unwrap_or("").to_string())
///     .collect();
/// assert_eq!(
///     firsts,
///     [
///         "5:7: `y` declares shape f32[3] but its operands give f32[2]",
///         "6:26: undefined operand `w` in computation `m`",
///     ]
/// );
/// ```
pub fn parse_diagnostics(text: &str) -> std::result::Result<Computation, Vec<Error>> {
    oxla_ir::parser::parse_hlo_module_diagnostics(text)
}

/// The computation as HLO text: XLA's short form with layouts, in our
/// dialect (a binary op may carry `broadcast_dimensions`). The same text as
/// [`Computation::to_hlo_text`] and `Display`; [`parse`] reads it back to a
/// computation that prints the same.
///
/// ```
/// use oxla::{Builder, ElementType::F32, Shape};
/// let mut b = Builder::new("example");
/// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
/// let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
/// let y = b.add(x, v, &[1])?;
/// let comp = b.build(y)?;
/// let text = oxla::hlo::print(&comp);
/// assert!(text.starts_with("HloModule example, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2,3]{1,0}}"));
/// assert!(text.contains("ROOT add.2 = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}"));
/// assert_eq!(oxla::hlo::print(&oxla::hlo::parse(&text)?), text);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn print(comp: &Computation) -> String {
    comp.to_hlo_text()
}

/// The computation in XLA's strict HLO form, which XLA's own parser and
/// `XlaBuilder` accept: every implicit broadcast becomes an explicit
/// `broadcast` (and `reshape` where a size-1 dimension stretches), so no
/// binary op carries `broadcast_dimensions`. The result is verified with
/// [`verify_strict`] and computes the same values.
///
/// ```
/// use oxla::{Builder, ElementType::F32, Shape};
/// let mut b = Builder::new("example");
/// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
/// let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
/// let y = b.add(x, v, &[1])?;
/// let comp = b.build(y)?;
/// assert!(oxla::hlo::verify_strict(&comp).is_err());
/// let strict = oxla::hlo::to_strict(&comp)?;
/// let text = oxla::hlo::print(&strict);
/// assert!(!text.contains("broadcast_dimensions"));
/// assert!(text.contains("broadcast(v), dimensions={1}"));
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn to_strict(comp: &Computation) -> Result<Computation> {
    let strict = oxla_ir::passes::expand_broadcasts(comp)?;
    oxla_ir::verifier::verify_strict_hlo(&strict)?;
    Ok(strict)
}

/// Checks that `comp` is in XLA's strict form: every operand of an
/// elementwise op has the result's dims and every broadcast maps sizes
/// exactly. On failure, [`Error::Verification`] lists each instruction that
/// is not (see [`to_strict`] for the rewrite that makes it so).
pub fn verify_strict(comp: &Computation) -> Result<()> {
    oxla_ir::verifier::verify_strict_hlo(comp)
}
