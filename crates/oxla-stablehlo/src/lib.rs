//! # oxla-stablehlo: StableHLO MLIR text and oxla's IR
//!
//! StableHLO is what JAX prints by default (`jax.jit(f).lower(...).as_text()`),
//! what `jax.export` holds, and what IREE and PJRT consume. This crate turns a
//! verified [`Computation`](oxla_ir::Computation) into that text
//! ([`to_stablehlo`]). Users reach it through the `oxla` facade
//! (`oxla::stablehlo`), which also expands implicit broadcasts first so the
//! text is what JAX would print.
#![warn(missing_docs)]

use std::fmt;

mod export;
mod parse;

pub use export::{MAX_REGION_DEPTH, to_stablehlo};
pub use parse::parse_stablehlo;

/// Why a verified computation cannot be written as StableHLO text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportError {
    /// Regions (reducers, loop conditions and bodies, branches, mapped
    /// computations) nest deeper than [`MAX_REGION_DEPTH`] (each level is
    /// one recursion of the exporter).
    RegionsTooDeep {
        /// The module being exported.
        computation: String,
        /// The computation (reducer, loop body, ...) found at the limit.
        reducer: String,
        /// The deepest nesting written ([`MAX_REGION_DEPTH`]).
        limit: usize,
    },
    /// The module holds a constant whose values are unknown (printed as
    /// `{...}` by XLA), so it has no StableHLO form.
    ValuesUnknown {
        /// The module being exported.
        computation: String,
        /// Which constant, and why.
        reason: String,
    },
    /// An instruction StableHLO has no way to say (a dilated
    /// `select-and-scatter`).
    Unsupported {
        /// The module being exported.
        computation: String,
        /// The instruction.
        instruction: String,
        /// What StableHLO lacks.
        reason: String,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::RegionsTooDeep {
                computation,
                reducer,
                limit,
            } => write!(
                f,
                "cannot write `{computation}` as StableHLO: regions (reducers, loops, \
                 branches) nest more than {limit} levels deep (at `{reducer}`)"
            ),
            ExportError::ValuesUnknown {
                computation,
                reason,
            } => write!(f, "cannot write `{computation}` as StableHLO: {reason}"),
            ExportError::Unsupported {
                computation,
                instruction,
                reason,
            } => write!(
                f,
                "cannot write `{computation}` as StableHLO: `{instruction}`: {reason}"
            ),
        }
    }
}

impl std::error::Error for ExportError {}

#[cfg(test)]
mod tests {
    use super::{ExportError, MAX_REGION_DEPTH, to_stablehlo};

    /// A module whose reducers each reduce with the one before: `levels`
    /// reducers, the innermost (`r0`) a plain add, which prints in the
    /// compact `applies` form, so `levels - 1` nested regions.
    fn nested_reducers(levels: usize) -> oxla_ir::Computation {
        let mut text = String::from(
            "HloModule deep\n\nr0 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
             ROOT s = f32[] add(a, b)\n}\n\n",
        );
        for k in 1..levels {
            text.push_str(&format!(
                "r{k} {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                 ROOT s = f32[] reduce(a, b), dimensions={{}}, to_apply=r{}\n}}\n\n",
                k - 1
            ));
        }
        text.push_str(&format!(
            "ENTRY deep {{\n  x = f32[4] parameter(0)\n  z = f32[] constant(0)\n  \
             ROOT s = f32[] reduce(x, z), dimensions={{0}}, to_apply=r{}\n}}\n",
            levels - 1
        ));
        match oxla_ir::parse_hlo_module(&text) {
            Ok(comp) => comp,
            Err(e) => panic!("the test module does not parse: {e}"),
        }
    }

    #[test]
    fn regions_nest_up_to_the_limit_and_no_further() {
        match to_stablehlo(&nested_reducers(MAX_REGION_DEPTH + 1)) {
            Ok(text) => assert_eq!(text.matches("reducer(").count(), MAX_REGION_DEPTH),
            Err(e) => panic!("{MAX_REGION_DEPTH} regions are refused: {e}"),
        }
        let Err(err) = to_stablehlo(&nested_reducers(MAX_REGION_DEPTH + 2)) else {
            panic!("{} regions are written", MAX_REGION_DEPTH + 1);
        };
        assert_eq!(
            err,
            ExportError::RegionsTooDeep {
                computation: "deep".into(),
                reducer: "r1".into(),
                limit: MAX_REGION_DEPTH,
            }
        );
        assert_eq!(
            err.to_string(),
            "cannot write `deep` as StableHLO: regions (reducers, loops, branches) nest more \
             than 200 levels deep (at `r1`)"
        );
    }
}
