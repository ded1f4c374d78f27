//! The builder method of `ragged-dot`, named as XlaBuilder names it
//! (`RaggedDot` is [`Builder::ragged_dot`]).

use super::{Builder, Op};
use crate::ir::{OpKind, RaggedDotDimensionNumbers};
use crate::shape_inference as si;
use crate::{ElementType, Result};

impl Builder {
    /// XLA's `RaggedDot`: a dot whose lhs ragged dimension is cut into
    /// consecutive groups of `group_sizes` elements; `result` is the
    /// preferred result type (`None`: the higher-precision operand type).
    /// A free ragged dimension multiplies each row with the rhs slice of
    /// its group (rows past the last group give zeros); a contracting one
    /// sums each group's part separately (a leading result dimension of
    /// groups); a batch one is the plain dot.
    ///
    /// ```
    /// use oxla_ir::{Builder, DotDimensionNumbers, ElementType::{F32, S32}, RaggedDotDimensionNumbers, Shape};
    /// let mut b = Builder::new("moe");
    /// let x = b.parameter(0, Shape::new(F32, &[6, 3]), "x")?;
    /// let w = b.parameter(1, Shape::new(F32, &[2, 3, 4]), "w")?;
    /// let g = b.parameter(2, Shape::new(S32, &[2]), "g")?;
    /// let dims = RaggedDotDimensionNumbers {
    ///     dot: DotDimensionNumbers { lhs_contracting: vec![1], rhs_contracting: vec![1], ..Default::default() },
    ///     lhs_ragged: vec![0],
    ///     rhs_group: vec![0],
    /// };
    /// let y = b.ragged_dot(x, w, g, &dims, None)?;
    /// assert_eq!(b.shape(y)?.to_string(), "f32[6,4]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn ragged_dot(
        &mut self,
        lhs: Op,
        rhs: Op,
        group_sizes: Op,
        dims: &RaggedDotDimensionNumbers,
        result: Option<ElementType>,
    ) -> Result<Op> {
        let shape = si::infer_ragged_dot_shape(
            self.shape_of(lhs)?,
            self.shape_of(rhs)?,
            self.shape_of(group_sizes)?,
            dims,
            result,
        )?;
        Ok(self.push(
            OpKind::RaggedDot { dims: dims.clone() },
            vec![lhs, rhs, group_sizes],
            shape,
            None,
        ))
    }
}
