//! The backends a workload can run on.

use oxla::{Computation, Executable, Literal, Result};

/// A backend by name.
pub enum Backend {
    /// The Cranelift JIT.
    Jit,
    /// The reference interpreter (for checking the harness; slow).
    Interp,
}

/// A compiled workload.
pub enum Compiled<'a> {
    /// Native code.
    Jit(Box<Executable>),
    /// The interpreter holds the computation.
    Interp(&'a Computation),
}

impl Backend {
    /// `jit` or `interp`.
    pub fn new(name: &str) -> Result<Backend> {
        match name {
            "jit" => Ok(Backend::Jit),
            "interp" => Ok(Backend::Interp),
            other => Err(oxla::Error::Backend {
                backend: other.into(),
                message: "unknown backend; use jit or interp".into(),
            }),
        }
    }

    /// Compiles (or, for the interpreter, just keeps) the computation.
    pub fn compile<'a>(&self, comp: &'a Computation) -> Result<Compiled<'a>> {
        match self {
            Backend::Jit => Ok(Compiled::Jit(Box::new(oxla::compile(comp)?))),
            Backend::Interp => Ok(Compiled::Interp(comp)),
        }
    }
}

impl Compiled<'_> {
    /// Runs and returns the result (the JIT writes into the storage of a
    /// dropped earlier result when it kept one).
    pub fn run(&self, args: &[&Literal]) -> Result<Literal> {
        match self {
            Compiled::Jit(e) => e.run(args),
            Compiled::Interp(c) => oxla::evaluate(c, args),
        }
    }

    /// Runs into a freshly allocated output, as if nothing were reused: the
    /// result is dropped and the storage the JIT keeps for reuse is freed
    /// (the cost a program pays when it holds on to every result).
    pub fn run_fresh(&self, args: &[&Literal]) -> Result<()> {
        drop(std::hint::black_box(self.run(args)?));
        if let Compiled::Jit(e) = self {
            e.release_cached_outputs();
        }
        Ok(())
    }

    /// Whether the backend can write into a caller-provided output.
    pub fn has_run_into(&self) -> bool {
        matches!(self, Compiled::Jit(_))
    }

    /// Runs into `out`.
    pub fn run_into(&self, args: &[&Literal], out: &mut Literal) -> Result<()> {
        match self {
            Compiled::Jit(e) => e.run_into(args, out),
            Compiled::Interp(_) => {
                *out = self.run(args)?;
                Ok(())
            }
        }
    }

    /// Whether the result can be written over argument 0 in place
    /// (`Executable::run_in_place`; XLA's donation of argument 0).
    pub fn runs_in_place(&self) -> bool {
        matches!(self, Compiled::Jit(e) if e.runs_in_place(0))
    }

    /// `x = f(x, others...)`, in place.
    pub fn run_in_place(&self, x: &mut Literal, others: &[&Literal]) -> Result<()> {
        match self {
            Compiled::Jit(e) => e.run_in_place(0, x, others),
            Compiled::Interp(_) => {
                let mut args = vec![&*x];
                args.extend_from_slice(others);
                let r = self.run(&args)?;
                *x = r;
                Ok(())
            }
        }
    }
}
