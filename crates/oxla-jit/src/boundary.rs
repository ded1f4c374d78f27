//! The executable's boundary: what lies between the signature the user
//! compiled and the one the kernels run.
//!
//! Some values are compiled as others before fusion sees them: tokens as
//! empty `pred[0]` arrays (`tokens.rs`), complex arrays as their real and
//! imaginary parts side by side (`complex.rs`). Each such rewrite is a
//! [`Translation`]; a [`Boundary`] holds the ones a computation went
//! through, outermost (closest to the user) first, each with the result
//! shape on its outer side. An entry point checks the user's arguments
//! against [`Boundary::original`] (count, element type and dims, with the
//! typed errors of `Computation::check_arguments`), passes each argument
//! inward through every translation, runs the kernels, and passes the
//! result outward through them in reverse. A new translation is one more
//! variant here and one pair of functions in its module, never another
//! wrapper around the run entry points.
//!
//! Invariant: [`Boundary::original`] is the computation as the user gave
//! it; its parameter and result shapes are the executable's. The layers
//! compose: translating a checked argument through every layer gives an
//! argument of the compiled computation's signature, and translating that
//! computation's result back through them in reverse gives a result of
//! the original's shape.

use std::borrow::Cow;

use oxla_ir::{Computation, Error, Literal, Result, Shape};

/// One rewrite of the values at the boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Translation {
    /// Tokens compiled as empty `pred[0]` arrays (`tokens.rs`).
    Tokens,
    /// Complex arrays compiled as their parts side by side, one trailing
    /// dimension of 2 (`complex.rs`).
    Complex,
}

/// A translation and the result shape on its outer side.
#[derive(Debug)]
struct Layer {
    translation: Translation,
    result: Shape,
}

/// The translations between the user's signature and the compiled one
/// (see the module docs).
#[derive(Debug)]
pub(crate) struct Boundary {
    /// The computation as the user gave it.
    original: Computation,
    /// Outermost first.
    layers: Vec<Layer>,
}

impl Boundary {
    /// The boundary of an executable compiled from `from` through
    /// `translation`, around the boundary `inner` the compiled computation
    /// already had, if any.
    pub(crate) fn wrap(
        inner: Option<Box<Boundary>>,
        translation: Translation,
        from: &Computation,
    ) -> Box<Boundary> {
        let mut layers = vec![Layer {
            translation,
            result: from.result_shape().clone(),
        }];
        if let Some(inner) = inner {
            layers.extend(inner.layers);
        }
        Box::new(Boundary {
            original: from.clone(),
            layers,
        })
    }

    /// The computation as the user gave it.
    pub(crate) fn original(&self) -> &Computation {
        &self.original
    }

    /// Checks `args` against the original parameters (count, element type
    /// and dims), with the typed errors of `Computation::check_arguments`.
    pub(crate) fn check(&self, args: &[&Literal]) -> Result<()> {
        let params = self.original.parameter_shapes();
        let ok =
            args.len() == params.len() && args.iter().zip(&params).all(|(a, s)| a.shape() == s);
        if ok {
            return Ok(());
        }
        self.original.check_arguments(args)?;
        Err(Error::Internal {
            stage: "run".into(),
            message: "arguments rejected".into(),
        })
    }

    /// `args` (checked first) as the compiled computation takes them:
    /// each passed inward through every translation (borrowed where no
    /// translation changes it).
    pub(crate) fn arguments<'a>(&self, args: &[&'a Literal]) -> Result<Vec<Cow<'a, Literal>>> {
        self.check(args)?;
        args.iter()
            .map(|&arg| {
                let mut value = Cow::Borrowed(arg);
                for layer in &self.layers {
                    let inner = match layer.translation {
                        Translation::Tokens => crate::tokens::argument(&value)?,
                        Translation::Complex => crate::complex::argument(&value)?,
                    };
                    if let Some(inner) = inner {
                        value = Cow::Owned(inner);
                    }
                }
                Ok(value)
            })
            .collect()
    }

    /// The compiled computation's result `out` as the original's: passed
    /// outward through every translation, innermost first.
    pub(crate) fn result(&self, out: Literal) -> Result<Literal> {
        self.layers
            .iter()
            .rev()
            .try_fold(out, |out, layer| match layer.translation {
                Translation::Tokens => Ok(crate::tokens::result(out, &layer.result)),
                Translation::Complex => crate::complex::result(out, &layer.result),
            })
    }
}
