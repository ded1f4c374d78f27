//! Random control flow and tuples (`GenConfig::control_flow`): counted
//! `while` loops, both forms of `conditional`, `map`, argmax-style
//! variadic `reduce`, `opt-barrier`, and tuples taken apart with
//! `get-tuple-element`.
//!
//! Each step builds one of them around an existing value `a` and ends with
//! an array (a tuple result is read back with `get-tuple-element`), whose
//! shape the generator knows from its own model: a loop and a barrier keep
//! their state's shape, a branch returns its operand's, a map has its
//! operands' dims and its computation's element type, a reduce keeps the
//! dims not reduced. The differential test of exact programs (JIT against
//! interpreter) and the interpreter-only property test turn them on.

use oxla_ir::ComparisonOrder;
use oxla_ir::ir::{BinaryOp, ComparisonDirection};
use oxla_ir::{Builder, Computation, ElementType, Op, Result, Shape};

use crate::{Gen, binary_accepts, reducer};

/// A binary op that keeps `ty` (no comparison), usable on any `ty`:
/// `add` (which is `or` on `pred`) when nothing else is drawn.
fn same_type_op(g: &mut Gen<'_>, ty: ElementType) -> BinaryOp {
    let candidates: Vec<BinaryOp> = BinaryOp::ALL
        .iter()
        .copied()
        .filter(|&o| !o.is_compare() && binary_accepts(o, ty, g.cfg.transcendentals))
        .collect();
    if candidates.is_empty() {
        BinaryOp::Add
    } else {
        g.rng.pick(&candidates)
    }
}

/// A body `(x: shape) -> shape` returning `x`.
fn identity_body(name: &str, shape: &Shape) -> Result<Computation> {
    let mut b = Builder::new(name);
    let x = b.parameter(0, shape.clone(), "x")?;
    b.build(x)
}

/// A loop nested in `b`: `y = y op y`, `trips` times, on an `(s32, y)`
/// state.
fn inner_loop(b: &mut Builder, y: Op, shape: &Shape, op: BinaryOp, trips: i32) -> Result<Op> {
    let state = Shape::tuple(vec![Shape::scalar(ElementType::S32), shape.clone()]);
    let mut cb = Builder::new("inner_cond");
    let s = cb.parameter(0, state.clone(), "s")?;
    let i = cb.get_tuple_element(s, 0)?;
    let n = cb.constant_scalar(trips)?;
    let go = cb.lt(i, n, &[])?;
    let condition = cb.build(go)?;
    let mut body = Builder::new("inner_body");
    let s = body.parameter(0, state, "s")?;
    let i = body.get_tuple_element(s, 0)?;
    let x = body.get_tuple_element(s, 1)?;
    let one = body.constant_scalar(1i32)?;
    let next = body.add(i, one, &[])?;
    let x2 = body.binary(x, x, op, &[])?;
    let t = body.tuple(&[next, x2])?;
    let inner = body.build(t)?;
    let zero = b.constant_scalar(0i32)?;
    let init = b.tuple(&[zero, y])?;
    let w = b.while_loop(&condition, &inner, init)?;
    b.get_tuple_element(w, 1)
}

/// A body `(x: shape) -> shape` applying `op` to `x` and itself.
fn self_op_body(name: &str, shape: &Shape, op: BinaryOp) -> Result<Computation> {
    let mut b = Builder::new(name);
    let x = b.parameter(0, shape.clone(), "x")?;
    let y = b.binary(x, x, op, &[])?;
    b.build(y)
}

impl Gen<'_> {
    /// One control-flow step on `a` (of shape `ashape`): the new value,
    /// its shape by the generator's model, and what was built; `None` when
    /// the drawn kind does not fit `a`.
    pub(crate) fn control_step(
        &mut self,
        a: Op,
        ashape: &Shape,
    ) -> Result<Option<(Op, Shape, &'static str)>> {
        let ty = ashape.element_type();
        Ok(Some(match self.rng.below(6) {
            0 => (self.counted_loop(a, ashape)?, ashape.clone(), "while"),
            1 => (self.branches(a, ashape)?, ashape.clone(), "conditional"),
            2 => {
                let (op, result_ty) = self.mapped(a, ashape)?;
                (op, ashape.with_element_type(result_ty), "map")
            }
            3 if ashape.rank() >= 1 && !ashape.element_type().is_complex() => {
                let (op, shape) = self.arg_extreme(a, ashape)?;
                (op, shape, "variadic reduce")
            }
            4 => {
                // A tuple through a barrier, one element read back.
                let (b, _) = self.value_of_type(ty)?;
                let bshape = self.b.shape(b)?;
                let t = self.b.tuple(&[a, b])?;
                let fenced = self.b.optimization_barrier(t)?;
                let k = self.rng.below(2);
                let op = self.b.get_tuple_element(fenced, k as i64)?;
                let shape = if k == 0 { ashape.clone() } else { bshape };
                (op, shape, "opt-barrier")
            }
            5 => {
                // A nested tuple taken apart.
                let (b, bshape) = self.value_of_type(ty)?;
                let inner = self.b.tuple(&[b, a])?;
                let outer = self.b.tuple(&[a, inner])?;
                let got = self.b.get_tuple_element(outer, 1)?;
                let k = self.rng.below(2);
                let op = self.b.get_tuple_element(got, k as i64)?;
                let shape = if k == 0 { bshape } else { ashape.clone() };
                (op, shape, "get-tuple-element")
            }
            _ => return Ok(None),
        }))
    }

    /// A counted loop `while (i < n) { (i, x, y, z) = (i + 1, x', y', z') }`
    /// from `(0, a, b, c)` with `n` in 0..4 (so zero trips happen), `c` of
    /// `a`'s shape; the result is `x` or `z`. The new values are drawn so
    /// that every kind of state update appears: in place (`x op x`, `x op
    /// z`, `x op max(x)`), read elsewhere (`reverse(x) op z`), swapped
    /// (`x' = z`, `z' = x`), repeated (`z' = x'`), passed through, a
    /// constant, and `y` updated by a branch or a loop nested in the body.
    fn counted_loop(&mut self, a: Op, ashape: &Shape) -> Result<Op> {
        let s32 = Shape::scalar(ElementType::S32);
        let ty = ashape.element_type();
        let other = self.rng.pick(&self.cfg.element_types);
        let (b, bshape) = self.value_of_type(other)?;
        let c = self.param(ashape.clone())?;
        let state = Shape::tuple(vec![
            s32.clone(),
            ashape.clone(),
            bshape.clone(),
            ashape.clone(),
        ]);
        let trips = self.rng.below(4) as i32;
        let mut cb = Builder::new("loop_cond");
        let s = cb.parameter(0, state.clone(), "s")?;
        let i = cb.get_tuple_element(s, 0)?;
        let n = cb.constant_scalar(trips)?;
        let go = cb.lt(i, n, &[])?;
        let condition = cb.build(go)?;

        let op = same_type_op(self, ty);
        let x_kind = self.rng.below(5);
        let z_kind = self.rng.below(4);
        let y_kind = self.rng.below(3);
        let y_op = same_type_op(self, bshape.element_type());
        let max_ok = binary_accepts(BinaryOp::Max, ty, false);
        let mut body = Builder::new("loop_body");
        let s = body.parameter(0, state.clone(), "s")?;
        let i = body.get_tuple_element(s, 0)?;
        let x = body.get_tuple_element(s, 1)?;
        let y = body.get_tuple_element(s, 2)?;
        let z = body.get_tuple_element(s, 3)?;
        let one = body.constant_scalar(1i32)?;
        let next = body.add(i, one, &[])?;
        let all: Vec<i64> = (0..ashape.rank() as i64).collect();
        let x2 = match x_kind {
            0 => body.binary(x, x, op, &[])?,
            1 => body.binary(x, z, op, &[])?,
            2 => {
                let r = body.reverse(x, &all)?;
                body.binary(r, z, op, &[])?
            }
            3 => z,
            _ if max_ok => {
                let m = reducer(ty, 1)?;
                let init = body.constant(oxla_ir::Literal::zeros(&Shape::scalar(ty))?)?;
                let peak = body.reduce(x, init, &all, &m)?;
                body.binary(x, peak, op, &[])?
            }
            _ => body.binary(x, x, op, &[])?,
        };
        let z2 = match z_kind {
            0 => z,
            1 => x,
            2 => x2,
            _ => {
                let zero = body.constant(oxla_ir::Literal::zeros(&Shape::scalar(ty))?)?;
                body.broadcast(zero, ashape.dims())?
            }
        };
        let y2 = match y_kind {
            0 => y,
            1 => {
                // A branch on the counter's parity.
                let two = body.constant_scalar(2i32)?;
                let parity = body.binary(i, two, BinaryOp::Rem, &[])?;
                let zero = body.constant_scalar(0i32)?;
                let even = body.binary(
                    parity,
                    zero,
                    BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural),
                    &[],
                )?;
                let twice = self_op_body("twice", &bshape, y_op)?;
                let same = identity_body("same", &bshape)?;
                body.conditional(even, y, &twice, y, &same)?
            }
            _ => inner_loop(&mut body, y, &bshape, y_op, 1 + (trips % 2))?,
        };
        let t = body.tuple(&[next, x2, y2, z2])?;
        let loop_body = body.build(t)?;

        let zero = self.b.constant_scalar(0i32)?;
        let init = self.b.tuple(&[zero, a, b, c])?;
        let w = self.b.while_loop(&condition, &loop_body, init)?;
        let k = if self.rng.chance(0.7) { 1 } else { 3 };
        self.b.get_tuple_element(w, k)
    }

    /// A conditional on `a`: a `pred` parameter choosing between two
    /// branches, or an `s32` parameter (any value, so out of range too)
    /// choosing among one to three.
    fn branches(&mut self, a: Op, ashape: &Shape) -> Result<Op> {
        let ty = ashape.element_type();
        let pred_form = self.rng.chance(0.5);
        let count = if pred_form {
            2
        } else {
            1 + self.rng.below(3) as usize
        };
        let mut bodies = Vec::with_capacity(count);
        for k in 0..count {
            let op = same_type_op(self, ty);
            bodies.push(self_op_body(&format!("branch{k}"), ashape, op)?);
        }
        let refs: Vec<&Computation> = bodies.iter().collect();
        let operands = vec![a; count];
        if pred_form {
            let p = self.param(Shape::scalar(ElementType::Pred))?;
            self.b.conditional(p, a, refs[0], a, refs[1])
        } else {
            let k = self.param(Shape::scalar(ElementType::S32))?;
            self.b.indexed_conditional(k, &refs, &operands)
        }
    }

    /// `map(a, b)` with a new parameter `b` of `a`'s shape and a scalar
    /// computation: a comparison (result `pred`) or a same-type op.
    fn mapped(&mut self, a: Op, ashape: &Shape) -> Result<(Op, ElementType)> {
        let ty = ashape.element_type();
        let b = self.param(ashape.clone())?;
        // Complex numbers compare EQ/NE only: no comparisons for them.
        let compare = self.rng.chance(0.3) && !ty.is_complex();
        let (op, result_ty) = if compare {
            let dir = self.rng.pick(&[
                ComparisonDirection::Lt,
                ComparisonDirection::Ge,
                ComparisonDirection::Ne,
            ]);
            (
                BinaryOp::Compare(dir, ComparisonOrder::Natural),
                ElementType::Pred,
            )
        } else {
            (same_type_op(self, ty), ty)
        };
        let mut f = Builder::new("mapped");
        let x = f.parameter(0, Shape::scalar(ty), "x")?;
        let y = f.parameter(1, Shape::scalar(ty), "y")?;
        let r = f.binary(x, y, op, &[])?;
        let f = f.build(r)?;
        let dims: Vec<i64> = (0..ashape.rank() as i64).collect();
        Ok((self.b.map(&[a, b], &f, &dims)?, result_ty))
    }

    /// An argmax or argmin of `a` along random dimensions (JAX's reducer:
    /// NaN wins, ties keep the lower index), as `reduce(a, iota, init_a,
    /// 0)`; one of the two results read back.
    fn arg_extreme(&mut self, a: Op, ashape: &Shape) -> Result<(Op, Shape)> {
        let ty = ashape.element_type();
        let s32 = ElementType::S32;
        let along = self.rng.below(ashape.rank() as u64) as i64;
        let dims: Vec<i64> = (0..ashape.rank() as i64)
            .filter(|&d| d == along || self.rng.chance(0.3))
            .collect();
        let direction = if self.rng.chance(0.5) {
            ComparisonDirection::Gt
        } else {
            ComparisonDirection::Lt
        };
        let mut r = Builder::new("arg_extreme");
        let av = r.parameter(0, Shape::scalar(ty), "av")?;
        let ai = r.parameter(1, Shape::scalar(s32), "ai")?;
        let bv = r.parameter(2, Shape::scalar(ty), "bv")?;
        let bi = r.parameter(3, Shape::scalar(s32), "bi")?;
        let better = r.binary(
            av,
            bv,
            BinaryOp::Compare(direction, ComparisonOrder::Natural),
            &[],
        )?;
        let nan = r.binary(
            av,
            av,
            BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Natural),
            &[],
        )?;
        let keep = r.or(better, nan, &[])?;
        let v = r.select(keep, av, bv)?;
        let eq = r.binary(
            av,
            bv,
            BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural),
            &[],
        )?;
        let lower = r.lt(ai, bi, &[])?;
        let tie = r.and(eq, lower, &[])?;
        let keep_index = r.or(keep, tie, &[])?;
        let i = r.select(keep_index, ai, bi)?;
        let t = r.tuple(&[v, i])?;
        let reducer = r.build(t)?;

        let idx = self
            .b
            .iota(Shape::new(s32, ashape.dims()), along as usize as i64)?;
        let init = self.param(Shape::scalar(ty))?;
        let zero = self.b.constant_scalar(0i32)?;
        let both = self
            .b
            .reduce_variadic(&[a, idx], &[init, zero], &reducer, &dims)?;
        let kept: Vec<i64> = ashape
            .dims()
            .iter()
            .enumerate()
            .filter(|(d, _)| !dims.contains(&(*d as i64)))
            .map(|(_, &n)| n)
            .collect();
        let k = self.rng.below(2);
        let op = self.b.get_tuple_element(both, k as i64)?;
        let shape = Shape::new(if k == 0 { ty } else { s32 }, &kept);
        Ok((op, shape))
    }
}
