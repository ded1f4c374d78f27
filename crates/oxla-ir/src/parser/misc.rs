//! The attributes of the misc family, read as XLA's parser reads them:
//! `reduce-precision`'s `exponent_bits`/`mantissa_bits`, `rng`'s
//! `distribution`, `rng-bit-generator`'s `algorithm`, `cholesky`'s `lower`,
//! `triangular-solve`'s options (proto fields: `left_side`, `lower`,
//! `unit_diagonal`, each `false` unless written, and `transpose_a`, which
//! XLA requires: its proto default is invalid), and the batch-norm ops'
//! `epsilon`/`feature_index`. `bitcast` and `bitcast-convert` have none.

use super::Attrs;
use crate::Result;
use crate::ir::{OpKind, RngAlgorithm, RngDistribution, Transpose, TriangularSolveOptions};

impl Attrs<'_, '_, '_> {
    fn misc_int(&self, key: &'static str) -> Result<i64> {
        self.read(key, |c| Ok(c.int(key)?.0))?
            .ok_or_else(|| self.missing(key, "1"))
    }

    /// `true` or `false`; `false` when not written (a proto's default).
    fn misc_bool(&self, key: &'static str) -> Result<bool> {
        Ok(self
            .read(key, |c| {
                let (w, pos) = c.word("`true` or `false`")?;
                match w {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    other => Err(c.err(
                        pos,
                        format!("expects `true` or `false` for `{key}` but sees: {other}"),
                        "`true` or `false`",
                    )),
                }
            })?
            .unwrap_or(false))
    }

    /// A required enum attribute, read with `from_name`.
    fn misc_enum<T>(
        &self,
        key: &'static str,
        from_name: fn(&str) -> Option<T>,
        names: &str,
    ) -> Result<T> {
        self.read(key, |c| {
            let (w, pos) = c.word(names)?;
            from_name(w).ok_or_else(|| {
                c.err(
                    pos,
                    format!("expects {key} but sees: {w}"),
                    format!("one of {names}"),
                )
            })
        })?
        .ok_or_else(|| self.missing(key, names.split(", ").next().unwrap_or("")))
    }

    /// `reduce-precision`: `exponent_bits=8, mantissa_bits=7`.
    pub(super) fn reduce_precision(&self) -> Result<OpKind> {
        Ok(OpKind::ReducePrecision {
            exponent_bits: self.misc_int("exponent_bits")?,
            mantissa_bits: self.misc_int("mantissa_bits")?,
        })
    }

    /// `rng`: `distribution=rng_uniform` or `rng_normal`.
    pub(super) fn rng(&self) -> Result<OpKind> {
        Ok(OpKind::Rng {
            distribution: self.misc_enum(
                "distribution",
                RngDistribution::from_name,
                "rng_uniform, rng_normal",
            )?,
        })
    }

    /// `rng-bit-generator`: `algorithm=rng_default`, `rng_three_fry` or
    /// `rng_philox`.
    pub(super) fn rng_bit_generator(&self) -> Result<OpKind> {
        Ok(OpKind::RngBitGenerator {
            algorithm: self.misc_enum(
                "algorithm",
                RngAlgorithm::from_name,
                "rng_default, rng_three_fry, rng_philox",
            )?,
        })
    }

    /// `cholesky`: `lower=true`, or nothing for the upper factor.
    pub(super) fn cholesky(&self) -> Result<OpKind> {
        Ok(OpKind::Cholesky {
            lower: self.misc_bool("lower")?,
        })
    }

    /// `triangular-solve`: `left_side=true, lower=true, unit_diagonal=true,
    /// transpose_a=NO_TRANSPOSE` (the booleans only when true).
    pub(super) fn triangular_solve(&self) -> Result<OpKind> {
        Ok(OpKind::TriangularSolve {
            options: TriangularSolveOptions {
                left_side: self.misc_bool("left_side")?,
                lower: self.misc_bool("lower")?,
                unit_diagonal: self.misc_bool("unit_diagonal")?,
                transpose_a: self.misc_enum(
                    "transpose_a",
                    Transpose::from_name,
                    "NO_TRANSPOSE, TRANSPOSE, ADJOINT",
                )?,
            },
        })
    }

    /// `epsilon=0.001, feature_index=1` of the batch-norm ops. XLA reads
    /// `epsilon` as a double and then narrows it to `float`; so does this.
    fn batch_norm_attributes(&self) -> Result<(f32, i64)> {
        let epsilon = self
            .read("epsilon", |c| {
                Ok(c.number("a float for `epsilon`")?.0 as f32)
            })?
            .ok_or_else(|| self.missing("epsilon", "0.001"))?;
        Ok((epsilon, self.misc_int("feature_index")?))
    }

    /// `batch-norm-training`.
    pub(super) fn batch_norm_training(&self) -> Result<OpKind> {
        let (epsilon, feature_index) = self.batch_norm_attributes()?;
        Ok(OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        })
    }

    /// `batch-norm-inference`.
    pub(super) fn batch_norm_inference(&self) -> Result<OpKind> {
        let (epsilon, feature_index) = self.batch_norm_attributes()?;
        Ok(OpKind::BatchNormInference {
            epsilon,
            feature_index,
        })
    }

    /// `batch-norm-grad`.
    pub(super) fn batch_norm_grad(&self) -> Result<OpKind> {
        let (epsilon, feature_index) = self.batch_norm_attributes()?;
        Ok(OpKind::BatchNormGrad {
            epsilon,
            feature_index,
        })
    }
}
