//! The builder methods of the ops HLO has beside computation proper:
//! tokens (`AfterAll`, and `add-dependency`, which XlaBuilder has no
//! method for) and `StochasticConvertType`.

use super::{Builder, Op};
use crate::ir::OpKind;
use crate::shape_inference as si;
use crate::{ElementType, Result, Shape};

impl Builder {
    /// XLA's `AfterAll`: a token ordered after `operands` (none: a fresh
    /// token).
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("tokens");
    /// let x = b.parameter(0, Shape::new(F32, &[2]), "x")?;
    /// let t = b.after_all(&[])?;
    /// let y = b.add_dependency(x, t)?;
    /// assert_eq!(b.shape(t)?.to_string(), "token[]");
    /// assert_eq!(b.shape(y)?.to_string(), "f32[2]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn after_all(&mut self, operands: &[Op]) -> Result<Op> {
        let shapes: Vec<&Shape> = operands
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<_>>()?;
        let shape = si::infer_after_all_shape(&shapes);
        Ok(self.push(OpKind::AfterAll, operands.to_vec(), shape, None))
    }

    /// HLO's `add-dependency`: `operand` unchanged, ordered after `token`.
    pub fn add_dependency(&mut self, operand: Op, token: Op) -> Result<Op> {
        let shape = si::infer_add_dependency_shape(self.shape_of(operand)?, self.shape_of(token)?)?;
        Ok(self.push(OpKind::AddDependency, vec![operand, token], shape, None))
    }

    /// XLA's `StochasticConvertType`: floats `operand` converted to the
    /// signed integer type `to`, rounding up when `random` (unsigned, the
    /// operand's width and dims) is below the fraction.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S8, U32}, Shape};
    /// let mut b = Builder::new("sc");
    /// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    /// let r = b.parameter(1, Shape::new(U32, &[3]), "r")?;
    /// let y = b.stochastic_convert_type(x, r, S8)?;
    /// assert_eq!(b.shape(y)?.to_string(), "s8[3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn stochastic_convert_type(
        &mut self,
        operand: Op,
        random: Op,
        to: ElementType,
    ) -> Result<Op> {
        let shape = si::infer_stochastic_convert_shape(
            self.shape_of(operand)?,
            self.shape_of(random)?,
            to,
        )?;
        Ok(self.push(
            OpKind::StochasticConvert,
            vec![operand, random],
            shape,
            None,
        ))
    }
}
