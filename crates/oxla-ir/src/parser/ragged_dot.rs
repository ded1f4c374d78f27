//! `ragged-dot`'s attributes, read as XLA's parser reads them: the dot's
//! four dimension lists, `lhs_ragged_dims` and `rhs_group_dims` (each
//! optional, empty when not written; shape inference says what is
//! missing), and `operand_precision`, one precision for each of `lhs` and
//! `rhs` (`group_sizes` has none). XLA:CPU computes at the full precision
//! of the type, which each precision asks for or allows, so it is checked
//! and then has nothing left to change.

use super::Attrs;
use crate::Result;
use crate::ir::{DotDimensionNumbers, OpKind, RaggedDotDimensionNumbers};

impl Attrs<'_, '_, '_> {
    /// `ragged-dot(lhs, rhs, group_sizes), lhs_contracting_dims={1},
    /// rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}`.
    pub(super) fn ragged_dot(&self) -> Result<OpKind> {
        if let Some((count, pos)) = self.operand_precisions()?
            && count != 2
        {
            return Err(self.cursor.err(
                pos,
                format!(
                    "operand_precision lists {count} precision(s), but `ragged-dot` has one \
                     for each of lhs and rhs"
                ),
                "`operand_precision={default,default}`",
            ));
        }
        Ok(OpKind::RaggedDot {
            dims: RaggedDotDimensionNumbers {
                dot: DotDimensionNumbers {
                    lhs_batch: self.dims("lhs_batch_dims")?.unwrap_or_default(),
                    rhs_batch: self.dims("rhs_batch_dims")?.unwrap_or_default(),
                    lhs_contracting: self.dims("lhs_contracting_dims")?.unwrap_or_default(),
                    rhs_contracting: self.dims("rhs_contracting_dims")?.unwrap_or_default(),
                },
                lhs_ragged: self.dims("lhs_ragged_dims")?.unwrap_or_default(),
                rhs_group: self.dims("rhs_group_dims")?.unwrap_or_default(),
            },
        })
    }
}
