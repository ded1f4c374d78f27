//! The backends a workload can run on.

use oxla::{Computation, Literal, Result};

/// A backend by name.
pub enum Backend {
    /// The reference interpreter (for checking the harness; slow).
    Interp,
}

/// A compiled workload.
pub enum Compiled<'a> {
    /// The interpreter holds the computation.
    Interp(&'a Computation),
}

impl Backend {
    /// `interp` (`jit` once the JIT is in).
    pub fn new(name: &str) -> Result<Backend> {
        match name {
            "interp" => Ok(Backend::Interp),
            other => Err(oxla::Error::Backend {
                backend: other.into(),
                message: "unknown backend; use interp".into(),
            }),
        }
    }

    /// Compiles (or, for the interpreter, just keeps) the computation.
    pub fn compile<'a>(&self, comp: &'a Computation) -> Result<Compiled<'a>> {
        match self {
            Backend::Interp => Ok(Compiled::Interp(comp)),
        }
    }
}

impl Compiled<'_> {
    /// Runs, allocating the output.
    pub fn run(&self, args: &[&Literal]) -> Result<Literal> {
        match self {
            Compiled::Interp(c) => oxla::evaluate(c, args),
        }
    }

    /// Whether the backend can write into a caller-provided output.
    pub fn has_run_into(&self) -> bool {
        false
    }

    /// Runs into `out`.
    pub fn run_into(&self, args: &[&Literal], out: &mut Literal) -> Result<()> {
        *out = self.run(args)?;
        Ok(())
    }
}
