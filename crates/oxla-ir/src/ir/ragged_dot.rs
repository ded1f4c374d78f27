//! `ragged-dot`'s attributes: a dot whose lhs has one ragged dimension cut
//! into consecutive groups by a `group_sizes` operand.
//!
//! The three modes follow from where the ragged dimension sits (XLA's
//! `RaggedDotDimensionNumbers`): a free (non-contracting) lhs dimension
//! picks, row by row, which slice of the rhs group dimension the row is
//! multiplied with; a contracting dimension splits the sum into one result
//! per group (a new leading result dimension); a batch dimension changes
//! nothing about the values (the rhs has no group dimension to choose from).
//! The shape rules live in `shape_inference::ragged_dot`; the helpers here
//! are the one statement of the mode and of which lhs dimensions index
//! `group_sizes`, shared by shape inference, the interpreter and the JIT's
//! expansion.

use super::DotDimensionNumbers;

/// The dimension numbers of a `ragged-dot`: a dot's, plus the lhs ragged
/// dimension and the rhs group dimension.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct RaggedDotDimensionNumbers {
    /// Batch and contracting dimensions, as for `dot`.
    pub dot: DotDimensionNumbers,
    /// The lhs ragged dimensions (exactly one in a valid op).
    pub lhs_ragged: Vec<i64>,
    /// The rhs group dimensions (one when the ragged dimension is free,
    /// none otherwise).
    pub rhs_group: Vec<i64>,
}

/// Where a `ragged-dot`'s ragged dimension sits, which decides what it
/// computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RaggedDotMode {
    /// A free lhs dimension: `[b,m,k] x [g,b,k,n] -> [b,m,n]`, each row `m`
    /// multiplied with the rhs slice of its group.
    NonContracting,
    /// A contracting dimension: `[b,m,k] x [b,k,n] -> [g,b,m,n]`, one sum
    /// per group over the group's part of `k`.
    Contracting,
    /// A batch dimension: `[b,m,k] x [b,k,n] -> [b,m,n]`, the plain dot.
    Batch,
}

impl RaggedDotDimensionNumbers {
    /// The lhs ragged dimension, when exactly one is given.
    pub fn ragged_dimension(&self) -> Option<i64> {
        match self.lhs_ragged.as_slice() {
            [d] => Some(*d),
            _ => None,
        }
    }

    /// The mode `ragged` (an lhs dimension) puts the op in.
    ///
    /// ```
    /// use oxla_ir::{DotDimensionNumbers, RaggedDotDimensionNumbers, RaggedDotMode};
    /// let dims = RaggedDotDimensionNumbers {
    ///     dot: DotDimensionNumbers { lhs_contracting: vec![1], rhs_contracting: vec![1], ..Default::default() },
    ///     lhs_ragged: vec![0],
    ///     rhs_group: vec![0],
    /// };
    /// assert_eq!(dims.mode(0), RaggedDotMode::NonContracting);
    /// assert_eq!(dims.mode(1), RaggedDotMode::Contracting);
    /// ```
    pub fn mode(&self, ragged: i64) -> RaggedDotMode {
        if self.dot.lhs_batch.contains(&ragged) {
            RaggedDotMode::Batch
        } else if self.dot.lhs_contracting.contains(&ragged) {
            RaggedDotMode::Contracting
        } else {
            RaggedDotMode::NonContracting
        }
    }

    /// The lhs dimensions that index `group_sizes` before its last (group)
    /// dimension, in order, as XLA defines them: the lhs batch dimensions
    /// (in a batch mode only those listed before the ragged one), then the
    /// lhs contracting dimensions listed before the ragged one (contracting
    /// mode) or the free lhs dimensions before it (non-contracting mode).
    pub fn group_prefix(&self, lhs_rank: usize, ragged: i64) -> Vec<i64> {
        let dot = &self.dot;
        let mut prefix = dot.lhs_batch.clone();
        match self.mode(ragged) {
            RaggedDotMode::Batch => {
                let at = dot
                    .lhs_batch
                    .iter()
                    .position(|&d| d == ragged)
                    .unwrap_or(dot.lhs_batch.len());
                prefix.truncate(at);
            }
            RaggedDotMode::Contracting => prefix.extend(
                dot.lhs_contracting
                    .iter()
                    .take_while(|&&d| d != ragged)
                    .copied(),
            ),
            RaggedDotMode::NonContracting => prefix.extend(
                (0..lhs_rank as i64)
                    .filter(|d| !dot.lhs_batch.contains(d) && !dot.lhs_contracting.contains(d))
                    .take_while(|&d| d != ragged),
            ),
        }
        prefix
    }

    /// Where lhs dimension `d` (a batch or free one) lands in the dot's
    /// result: the batch dims first, in their listed order, then the free
    /// dims in increasing order; `None` for a contracting dimension.
    pub fn lhs_result_position(&self, lhs_rank: usize, d: i64) -> Option<usize> {
        let dot = &self.dot;
        if let Some(i) = dot.lhs_batch.iter().position(|&b| b == d) {
            return Some(i);
        }
        (0..lhs_rank as i64)
            .filter(|x| !dot.lhs_batch.contains(x) && !dot.lhs_contracting.contains(x))
            .position(|f| f == d)
            .map(|i| i + dot.lhs_batch.len())
    }

    /// The rhs dimension paired with lhs batch or contracting dimension
    /// `d`.
    pub fn rhs_partner(&self, d: i64) -> Option<i64> {
        let dot = &self.dot;
        let find = |l: &[i64], r: &[i64]| {
            l.iter()
                .position(|&x| x == d)
                .and_then(|i| r.get(i).copied())
        };
        find(&dot.lhs_batch, &dot.rhs_batch)
            .or_else(|| find(&dot.lhs_contracting, &dot.rhs_contracting))
    }

    /// The dimension numbers of the dot of the lhs with one group's rhs
    /// slice (the rhs group dimension `group` removed).
    pub fn group_slice_dims(&self, group: i64) -> DotDimensionNumbers {
        let shift = |v: &[i64]| -> Vec<i64> {
            v.iter()
                .map(|&d| if d > group { d - 1 } else { d })
                .collect()
        };
        DotDimensionNumbers {
            lhs_batch: self.dot.lhs_batch.clone(),
            lhs_contracting: self.dot.lhs_contracting.clone(),
            rhs_batch: shift(&self.dot.rhs_batch),
            rhs_contracting: shift(&self.dot.rhs_contracting),
        }
    }
}
