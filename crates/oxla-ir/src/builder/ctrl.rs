//! Builder methods for tuples and control flow: `get_tuple_element`,
//! `while_loop`, `conditional`, `indexed_conditional`,
//! `optimization_barrier`, `map` and `reduce_variadic`, named after
//! XlaBuilder's (`While` is a Rust keyword, hence `while_loop`).
//!
//! Called computations are passed as [`Computation`]s built by other
//! builders; each is verified, its signature checked by shape inference,
//! and its bodies copied into this builder once (see `Builder::import`).

use super::{Builder, Op};
use crate::ir::OpKind;
use crate::shape_inference as si;
use crate::{Computation, Result, Shape, Signature};

/// The signature of a computation passed by the caller, after verifying it.
fn signature(comp: &Computation) -> Result<Signature> {
    crate::verifier::verify(comp)?;
    let entry = comp.entry();
    Ok(Signature {
        parameters: entry.parameter_shapes(),
        result: entry.result_shape().clone(),
    })
}

impl Builder {
    /// XLA's `GetTupleElement`: element `index` of a tuple.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, Shape};
    /// let mut b = Builder::new("second");
    /// let t = b.parameter(0, Shape::tuple(vec![Shape::new(F32, &[2]), Shape::scalar(S32)]), "t")?;
    /// let i = b.get_tuple_element(t, 1)?;
    /// assert_eq!(b.shape(i)?.to_string(), "s32[]");
    /// assert!(b.get_tuple_element(t, 2).is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn get_tuple_element(&mut self, tuple: Op, index: i64) -> Result<Op> {
        let shape = si::infer_get_tuple_element_shape(self.shape_of(tuple)?, index)?;
        Ok(self.push(OpKind::GetTupleElement { index }, vec![tuple], shape, None))
    }

    /// XLA's `While`: `s = init; while condition(s) { s = body(s) }`.
    /// `condition` is `(S) -> pred[]` and `body` is `(S) -> S`, where `S`
    /// is `init`'s shape (usually a tuple).
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::S32, Shape};
    /// let s32 = Shape::scalar(S32);
    /// let mut c = Builder::new("below_ten");
    /// let i = c.parameter(0, s32.clone(), "i")?;
    /// let ten = c.constant_scalar(10i32)?;
    /// let lt = c.lt(i, ten, &[])?;
    /// let condition = c.build(lt)?;
    /// let mut b = Builder::new("step");
    /// let i = b.parameter(0, s32.clone(), "i")?;
    /// let three = b.constant_scalar(3i32)?;
    /// let next = b.add(i, three, &[])?;
    /// let body = b.build(next)?;
    ///
    /// let mut m = Builder::new("count");
    /// let zero = m.constant_scalar(0i32)?;
    /// let w = m.while_loop(&condition, &body, zero)?;
    /// assert_eq!(m.shape(w)?, s32);
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn while_loop(
        &mut self,
        condition: &Computation,
        body: &Computation,
        init: Op,
    ) -> Result<Op> {
        let shape = si::infer_while_shape(
            &signature(condition)?,
            &signature(body)?,
            self.shape_of(init)?,
        )?;
        let condition = self.import(condition)?;
        let body = self.import(body)?;
        Ok(self.push(OpKind::While { condition, body }, vec![init], shape, None))
    }

    /// XLA's `Conditional` with a predicate: `true_computation(true_operand)`
    /// if `predicate` (a `pred[]`) holds, else
    /// `false_computation(false_operand)`. Only the chosen branch runs.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, Pred}, Shape};
    /// let x = Shape::new(F32, &[2]);
    /// let mut t = Builder::new("double");
    /// let p = t.parameter(0, x.clone(), "x")?;
    /// let d = t.add(p, p, &[])?;
    /// let double = t.build(d)?;
    /// let mut f = Builder::new("negate");
    /// let p = f.parameter(0, x.clone(), "x")?;
    /// let n = f.neg(p)?;
    /// let negate = f.build(n)?;
    ///
    /// let mut b = Builder::new("choose");
    /// let flag = b.parameter(0, Shape::scalar(Pred), "flag")?;
    /// let v = b.parameter(1, x.clone(), "v")?;
    /// let r = b.conditional(flag, v, &double, v, &negate)?;
    /// let text = b.build(r)?.to_hlo_text();
    /// assert!(text.contains("true_computation=double, false_computation=negate"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn conditional(
        &mut self,
        predicate: Op,
        true_operand: Op,
        true_computation: &Computation,
        false_operand: Op,
        false_computation: &Computation,
    ) -> Result<Op> {
        self.conditional_of(
            predicate,
            &[true_computation, false_computation],
            &[true_operand, false_operand],
        )
    }

    /// XLA's `Conditional` with a branch index: `branches[k](operands[k])`
    /// for `k = index` (an `s32[]`), the last branch when `index` is out of
    /// range. Only the chosen branch runs.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, Shape};
    /// let x = Shape::new(F32, &[2]);
    /// let mut branches = Vec::new();
    /// for k in 0..3 {
    ///     let mut br = Builder::new(&format!("times{k}"));
    ///     let p = br.parameter(0, x.clone(), "x")?;
    ///     let c = br.constant_scalar(k as f32)?;
    ///     let m = br.mul(p, c, &[])?;
    ///     branches.push(br.build(m)?);
    /// }
    /// let mut b = Builder::new("switch");
    /// let i = b.parameter(0, Shape::scalar(S32), "i")?;
    /// let v = b.parameter(1, x.clone(), "v")?;
    /// let refs: Vec<_> = branches.iter().collect();
    /// let r = b.indexed_conditional(i, &refs, &[v, v, v])?;
    /// assert_eq!(b.shape(r)?, x);
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn indexed_conditional(
        &mut self,
        index: Op,
        branches: &[&Computation],
        operands: &[Op],
    ) -> Result<Op> {
        self.conditional_of(index, branches, operands)
    }

    fn conditional_of(
        &mut self,
        selector: Op,
        branches: &[&Computation],
        operands: &[Op],
    ) -> Result<Op> {
        let signatures = branches
            .iter()
            .map(|c| signature(c))
            .collect::<Result<Vec<_>>>()?;
        let operand_shapes = operands
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let shape =
            si::infer_conditional_shape(self.shape_of(selector)?, &signatures, &operand_shapes)?;
        let branches = branches
            .iter()
            .map(|c| self.import(c))
            .collect::<Result<Vec<_>>>()?;
        let mut all = vec![selector];
        all.extend_from_slice(operands);
        Ok(self.push(OpKind::Conditional { branches }, all, shape, None))
    }

    /// XLA's `OptimizationBarrier`: `operand` unchanged (any shape, tuples
    /// included); optimizations do not move work across it.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("fence");
    /// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    /// let t = b.tuple(&[x, x])?;
    /// let f = b.optimization_barrier(t)?;
    /// assert_eq!(b.shape(f)?.to_string(), "(f32[3], f32[3])");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn optimization_barrier(&mut self, operand: Op) -> Result<Op> {
        let shape = si::infer_optimization_barrier_shape(self.shape_of(operand)?);
        Ok(self.push(OpKind::OptimizationBarrier, vec![operand], shape, None))
    }

    /// XLA's `Map`: `computation` (scalars in, a scalar out) applied to the
    /// elements of `operands` at each index; `dimensions` must list every
    /// dimension in order. The result's element type is the computation's.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, Pred}, Shape};
    /// let mut c = Builder::new("positive");
    /// let p = c.parameter(0, Shape::scalar(F32), "p")?;
    /// let zero = c.constant_scalar(0f32)?;
    /// let gt = c.gt(p, zero, &[])?;
    /// let positive = c.build(gt)?;
    /// let mut b = Builder::new("mask");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    /// let m = b.map(&[x], &positive, &[0, 1])?;
    /// assert_eq!(b.shape(m)?.to_string(), "pred[2,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn map(
        &mut self,
        operands: &[Op],
        computation: &Computation,
        dimensions: &[i64],
    ) -> Result<Op> {
        let shapes = operands
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<&Shape>>>()?;
        let shape = si::infer_map_shape(&shapes, dimensions, &signature(computation)?)?;
        let to_apply = self.import(computation)?;
        Ok(self.push(
            OpKind::Map {
                dimensions: dimensions.to_vec(),
                to_apply,
            },
            operands.to_vec(),
            shape,
            None,
        ))
    }

    /// XLA's `Reduce` of several inputs at once: `reducer` takes
    /// `(acc_0, .., acc_{n-1}, x_0, .., x_{n-1})` scalars and returns the
    /// tuple of the new accumulators; the result is the tuple of one array
    /// per input over the dimensions not reduced (argmax and argmin are
    /// such reduces of a value and its index).
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, Shape};
    /// let (f, s) = (Shape::scalar(F32), Shape::scalar(S32));
    /// let mut r = Builder::new("argmax");
    /// let (av, ai) = (r.parameter(0, f.clone(), "av")?, r.parameter(1, s.clone(), "ai")?);
    /// let (bv, bi) = (r.parameter(2, f.clone(), "bv")?, r.parameter(3, s.clone(), "bi")?);
    /// let keep = r.ge(av, bv, &[])?;
    /// let v = r.select(keep, av, bv)?;
    /// let i = r.select(keep, ai, bi)?;
    /// let t = r.tuple(&[v, i])?;
    /// let argmax = r.build(t)?;
    ///
    /// let mut b = Builder::new("rows");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    /// let idx = b.iota(Shape::new(S32, &[2, 3]), 1)?;
    /// let ninf = b.constant_scalar(f32::NEG_INFINITY)?;
    /// let zero = b.constant_scalar(0i32)?;
    /// let m = b.reduce_variadic(&[x, idx], &[ninf, zero], &argmax, &[1])?;
    /// assert_eq!(b.shape(m)?.to_string(), "(f32[2], s32[2])");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn reduce_variadic(
        &mut self,
        inputs: &[Op],
        inits: &[Op],
        reducer: &Computation,
        dimensions: &[i64],
    ) -> Result<Op> {
        let reducer_signature = signature(reducer)?;
        // One input with a scalar reducer is the classic reduce.
        if let ([input], [init]) = (inputs, inits)
            && reducer_signature.result.is_array()
        {
            return self.reduce(*input, *init, dimensions, reducer);
        }
        let input_shapes = inputs
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<&Shape>>>()?;
        let init_shapes = inits
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<&Shape>>>()?;
        let shape = si::infer_variadic_reduce_shape(
            &input_shapes,
            &init_shapes,
            dimensions,
            &reducer_signature,
        )?;
        let to_apply = self.import(reducer)?;
        let mut operands = inputs.to_vec();
        operands.extend_from_slice(inits);
        Ok(self.push(
            OpKind::Reduce {
                dimensions: dimensions.to_vec(),
                to_apply,
            },
            operands,
            shape,
            None,
        ))
    }
}
