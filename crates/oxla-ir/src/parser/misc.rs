//! The attributes of the misc family, read as XLA's parser reads them:
//! `reduce-precision`'s `exponent_bits`/`mantissa_bits`, `rng`'s
//! `distribution`, `rng-bit-generator`'s `algorithm`, `cholesky`'s `lower`,
//! `triangular-solve`'s options (proto fields: `left_side`, `lower`,
//! `unit_diagonal`, each `false` unless written, and `transpose_a`, which
//! XLA requires: its proto default is invalid), and the batch-norm ops'
//! `epsilon`/`feature_index`. `bitcast` and `bitcast-convert` have none,
//! but a `bitcast` reinterprets buffers in their layouts, and oxla has only
//! the default ones: [`Lowering::bitcast_layouts`] refuses a `bitcast`
//! whose result or operand is written with another layout.

use super::{Attrs, Lowering, RawComp, RawOp};
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

/// Whether the shape written at `pos` (`f32[2,3]{1,0}`) has the default
/// layout: none written, or minor-to-major descending without tiles.
/// `None` when no shape is written there.
fn default_layout_at(text: &str, pos: usize) -> Option<bool> {
    let rest = text.get(pos..)?;
    let open = rest.find('[')?;
    let close = open + rest[open..].find(']')?;
    let after = rest[close + 1..].trim_start();
    let Some(layout) = after.strip_prefix('{') else {
        return Some(true);
    };
    // A `{` not followed by a number or `:` opens a body, not a layout.
    if !layout
        .trim_start()
        .starts_with(|c: char| c.is_ascii_digit() || c == ':')
    {
        return Some(true);
    }
    let end = layout.find('}')?;
    let layout = &layout[..end];
    let (order, parts) = layout.split_once(':').unwrap_or((layout, ""));
    let dims: Vec<i64> = order
        .split(',')
        .filter_map(|d| d.trim().parse().ok())
        .collect();
    let descending = dims.windows(2).all(|w| w[0] > w[1]);
    Some(descending && !parts.contains("T("))
}

impl Lowering<'_, '_> {
    /// `false` (after reporting it) if instruction `i` of `comp`, a
    /// `bitcast`, is written with a non-default layout on its result or
    /// on its operand (where the operand is defined, or in long form):
    /// under another layout a bitcast moves elements, which oxla, keeping
    /// no layouts, cannot do.
    pub(super) fn bitcast_layouts(&mut self, comp: &RawComp, ci: usize, i: usize) -> bool {
        let inst = &comp.insts[i];
        if !matches!(inst.op, RawOp::Kind(crate::ir::OpKind::Bitcast)) {
            return true;
        }
        let text = self.src.text;
        let mut written = vec![(inst.shape_pos, "its result")];
        if let Some(operand) = inst.operands.first() {
            if let Some((_, pos)) = &operand.shape {
                written.push((*pos, "its operand"));
            }
            if let Some(Some(j)) = self.resolved[ci].operands[i].first()
                && comp.insts[*j].shape.is_some()
            {
                written.push((comp.insts[*j].shape_pos, "its operand's definition"));
            }
        }
        for (pos, what) in written {
            if default_layout_at(text, pos) == Some(false) {
                self.error(
                    pos,
                    format!(
                        "`{}` is a bitcast with a non-default layout on {what}: a bitcast \
                         reinterprets buffers in their layouts, and oxla keeps none (every \
                         array is row-major), so it is refused rather than computed as a \
                         reshape",
                        inst.name.name
                    ),
                    "the default layout (`{1,0}` for a matrix), or a transpose and a reshape",
                );
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::default_layout_at;

    #[test]
    fn default_layouts_are_told_apart() {
        assert_eq!(default_layout_at("f32[2,3]{1,0} bitcast(x)", 0), Some(true));
        assert_eq!(default_layout_at("f32[2,3] bitcast(x)", 0), Some(true));
        assert_eq!(
            default_layout_at("f32[2,3]{0,1} bitcast(x)", 0),
            Some(false)
        );
        assert_eq!(
            default_layout_at("f32[8,128]{1,0:T(8,128)} x", 0),
            Some(false)
        );
        assert_eq!(default_layout_at("f32[8]{0:S(1)} x", 0), Some(true));
        assert_eq!(default_layout_at("f32[] {\n", 0), Some(true));
        assert_eq!(default_layout_at("bitcast(x)", 0), None);
    }
}
