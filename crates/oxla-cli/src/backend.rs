//! The backends `oxla run` and `oxla bench` can use, behind one trait.
//!
//! [`prepare`] does the per-module work (nothing for the interpreter,
//! compilation for the JIT) and returns a [`Runner`] that runs the module on
//! arguments; `bench` times the two separately. The JIT is the default
//! ([`Backend::default`]): it is what a user measures and deploys; the
//! interpreter, the oracle, is one flag away.

use std::fmt;
use std::str::FromStr;

use oxla::{Computation, Literal};

use crate::CliError;

/// Which backend runs a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The reference interpreter (`oxla::evaluate`).
    Interp,
    /// The Cranelift JIT (`oxla::compile`), the default.
    #[default]
    Jit,
}

impl FromStr for Backend {
    type Err = CliError;

    fn from_str(s: &str) -> Result<Backend, CliError> {
        match s {
            "interp" => Ok(Backend::Interp),
            "jit" => Ok(Backend::Jit),
            _ => Err(CliError::usage(format!(
                "unknown backend `{s}`; use --backend interp or --backend jit"
            ))),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Interp => "interp",
            Backend::Jit => "jit",
        })
    }
}

/// A module ready to run.
pub trait Runner {
    /// Runs the module on `args` (in parameter order).
    fn run(&self, args: &[&Literal]) -> oxla::Result<Literal>;

    /// Lines for `bench` about what preparing the module built (the
    /// JIT: its peak memory and where the compile time went); none by
    /// default.
    fn details(&self) -> String {
        String::new()
    }
}

/// The interpreter needs no preparation: it walks the computation.
struct Interpreter<'c>(&'c Computation);

impl Runner for Interpreter<'_> {
    fn run(&self, args: &[&Literal]) -> oxla::Result<Literal> {
        oxla::evaluate(self.0, args)
    }
}

/// Prepares `comp` for `backend`.
pub fn prepare<'c>(
    backend: Backend,
    comp: &'c Computation,
) -> Result<Box<dyn Runner + 'c>, CliError> {
    match backend {
        Backend::Interp => Ok(Box::new(Interpreter(comp))),
        Backend::Jit => match oxla::compile(comp) {
            Ok(exe) => Ok(Box::new(exe)),
            // An op the JIT does not compile yet: the interpreter runs it.
            Err(e @ oxla::Error::UnsupportedOp { .. }) => Err(CliError::Failure(format!(
                "{e}\nhelp: run it on the interpreter: add `--backend interp`"
            ))),
            Err(e) => Err(e.into()),
        },
    }
}

/// The JIT's executable runs natively.
impl Runner for oxla::Executable {
    fn run(&self, args: &[&Literal]) -> oxla::Result<Literal> {
        oxla::Executable::run(self, args)
    }

    fn details(&self) -> String {
        let m = self.memory();
        let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
        format!(
            "peak:       {:.2} MiB (outputs {:.2} MiB + intermediates {:.2} MiB; \
             largest live set {:.2} MiB, one allocation each {:.2} MiB)\n\
             stages:     {}\n",
            mib(self.peak_bytes()),
            mib(m.outputs),
            mib(m.temporaries),
            mib(m.largest_live_set),
            mib(m.temporaries_unshared),
            self.compile_profile()
        )
    }
}
