//! The attributes of the misc family, read as XLA's parser reads them:
//! `reduce-precision`'s `exponent_bits`/`mantissa_bits`, `rng`'s
//! `distribution`, `rng-bit-generator`'s `algorithm`, `cholesky`'s `lower`,
//! `triangular-solve`'s options (proto fields: `left_side`, `lower`,
//! `unit_diagonal`, each `false` unless written, and `transpose_a`, which
//! XLA requires), and the batch-norm ops' `epsilon`/`feature_index`.
//! `bitcast` and `bitcast-convert` have none.

use super::{Attrs, Cursor};
use crate::Result;
use crate::ir::{OpKind, RngAlgorithm, RngDistribution, Transpose, TriangularSolveOptions};

/// A word value (`true`, `rng_uniform`, `NO_TRANSPOSE`) and where it is.
fn word<'s, 'a>(c: &mut Cursor<'s, 'a>, what: &str) -> Result<(&'a str, usize)> {
    c.skip_ws()?;
    let pos = c.pos;
    let w = c.peek_word();
    if w.is_empty() {
        return Err(c.err(
            pos,
            format!("expected {what}, found {}", c.found()),
            what.to_string(),
        ));
    }
    c.pos += w.len();
    Ok((w, pos))
}

impl Attrs<'_, '_, '_> {
    /// The value of `key` read by `read`, with nothing after it; `None`
    /// when the attribute is not written.
    fn misc_value<T>(
        &self,
        key: &'static str,
        read: impl FnOnce(&mut Cursor) -> Result<T>,
    ) -> Result<Option<T>> {
        let Some(mut c) = self.get(key) else {
            return Ok(None);
        };
        let value = read(&mut c)?;
        c.expect_done(&format!("the value of `{key}`"))?;
        Ok(Some(value))
    }

    fn misc_int(&self, key: &'static str) -> Result<i64> {
        self.misc_value(key, |c| Ok(c.int(key)?.0))?
            .ok_or_else(|| self.missing(key, "1"))
    }

    /// `true` or `false`; `false` when not written (a proto's default).
    fn misc_bool(&self, key: &'static str) -> Result<bool> {
        Ok(self
            .misc_value(key, |c| {
                let (w, pos) = word(c, "`true` or `false`")?;
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
        self.misc_value(key, |c| {
            let (w, pos) = word(c, names)?;
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
            .misc_value("epsilon", |c| {
                c.skip_ws()?;
                let pos = c.pos;
                let rest = &c.src.text[c.pos..c.end];
                let len = rest
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '.' | '-' | '+')))
                    .unwrap_or(rest.len());
                let token = &rest[..len];
                let value = token.parse::<f64>().map_err(|_| {
                    c.err(
                        pos,
                        format!("expects a float for `epsilon` but sees: `{token}`"),
                        "a float such as `0.001`",
                    )
                })?;
                c.pos += len;
                Ok(value as f32)
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
