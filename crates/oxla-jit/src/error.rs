//! The JIT's errors, in two kinds.
//!
//! - *Limits* a user can act on, each its own variant of
//!   [`oxla_ir::Error`] with the limit's value, its bound and the
//!   instruction or shape: [`Error::JitNodeBudget`] (a kernel's expression
//!   graph, `graph::MAX_NODES`), [`Error::JitFoldDepth`] (folds nested in
//!   called bodies, `graph::MAX_FOLD_DEPTH`), [`Error::JitAllocation`] (an
//!   output or intermediate the system cannot allocate).
//! - *Bugs*: [`Error::Internal`], naming the [`Stage`] whose invariant
//!   does not hold and the invariant. The JIT's IR verifier
//!   (`verify.rs`) reports through it, as does every stage that meets
//!   what an earlier one promised never to produce.
//!
//! Nothing else: every JIT error is one of these (the general
//! `Error::Backend` is left to other backends).

use oxla_ir::Error;

/// A stage of the JIT, for internal errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Fusion and buffer assignment (`fusion/`): the plan of each region.
    Fusion,
    /// The index analysis (`graph.rs`): expression graphs.
    Index,
    /// Lowering (`lower.rs`): kernel descriptions.
    Lowering,
    /// The IR verifier on fusion's plan (`verify::check_plan`).
    VerifyPlan,
    /// The IR verifier on lowering's kernels (`verify::check_kernels`).
    VerifyKernels,
    /// Building the Cranelift module: settings, host ISA, helpers.
    Setup,
    /// Code generation (`codegen/`, `math.rs`).
    Codegen,
    /// Linking the compiled kernels.
    Link,
    /// The run path (`executable.rs`).
    Run,
}

impl Stage {
    /// The stage's name in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stage::Fusion => "fusion",
            Stage::Index => "index analysis",
            Stage::Lowering => "lowering",
            Stage::VerifyPlan => "IR verifier (after fusion)",
            Stage::VerifyKernels => "IR verifier (after lowering)",
            Stage::Setup => "Cranelift setup",
            Stage::Codegen => "code generation",
            Stage::Link => "linking",
            Stage::Run => "run path",
        }
    }
}

/// An internal error of `stage`: `invariant` does not hold.
pub(crate) fn internal(stage: Stage, invariant: impl Into<String>) -> Error {
    Error::Internal {
        stage: format!("the JIT's {}", stage.name()),
        message: invariant.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_name_their_stage_and_code() {
        let e = internal(Stage::Lowering, "a row group pass is a dot");
        assert!(matches!(&e, Error::Internal { stage, .. } if stage == "the JIT's lowering"));
        assert_eq!(e.code(), "OX0999");
        let text = e.to_string();
        assert!(
            text.contains("JIT's lowering: a row group pass is a dot"),
            "{text}"
        );
        assert!(text.contains("bug in oxla"), "{text}");
    }
}
