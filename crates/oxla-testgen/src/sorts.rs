//! Random `sort`s and `topk`s, emitted when [`GenConfig::sorts`] is on,
//! with their result shapes modelled from XLA's text (a sort gives its
//! operands' shapes, one array or a tuple; a top-k gives `(values, s32
//! indices)` with the last dimension `k`), independent of shape inference.
//!
//! Sorts take one to three operands of the same dims and random element
//! types, along any dimension, stable or not, with a comparator that is
//! one of: a natural-order comparison of one operand (`LT`, `GT`, and the
//! non-strict `LE`/`GE`, which are not strict weak orders), a `TOTALORDER`
//! comparison of a float operand, a lexicographic comparison of two
//! operands, a swapped `compare(b, a)`, or a constant (a comparator that
//! always says "before"). The arguments carry NaNs, signed zeros and
//! integer extremes (see `random_literal`).
//!
//! [`GenConfig::sorts`]: crate::GenConfig::sorts

use oxla_ir::ir::ComparisonDirection;
use oxla_ir::{Builder, Computation, ElementType, Op, Result, Shape};

use crate::{Gen, Rng};

/// A random comparator for operands of element types `types`:
/// `(a_0, b_0, a_1, b_1, ...) -> pred[]`.
fn comparator(rng: &mut Rng, types: &[ElementType]) -> Result<Computation> {
    use ComparisonDirection as D;
    let mut c = Builder::new("comparator");
    let mut params = Vec::with_capacity(types.len());
    for (k, &ty) in types.iter().enumerate() {
        let a = c.parameter(2 * k as i64, Shape::scalar(ty), &format!("a{k}"))?;
        let b = c.parameter(2 * k as i64 + 1, Shape::scalar(ty), &format!("b{k}"))?;
        params.push((a, b, ty));
    }
    // Complex operands ride along; only the others have an order to compare.
    let params: Vec<(Op, Op, ElementType)> =
        params.into_iter().filter(|p| !p.2.is_complex()).collect();
    let pick = |rng: &mut Rng| params[rng.below(params.len() as u64) as usize];
    let floats: Vec<(Op, Op, ElementType)> =
        params.iter().copied().filter(|p| p.2.is_float()).collect();
    let root = match rng.below(6) {
        0 | 1 => {
            let (a, b, _) = pick(rng);
            c.compare(a, b, rng.pick(&[D::Lt, D::Gt, D::Le, D::Ge]), &[])?
        }
        2 if !floats.is_empty() => {
            let (a, b, _) = floats[rng.below(floats.len() as u64) as usize];
            c.compare_total_order(a, b, rng.pick(&[D::Lt, D::Gt]), &[])?
        }
        3 if params.len() >= 2 => {
            // By operand i, then operand j.
            let ((a, b, _), (x, y, _)) = (pick(rng), pick(rng));
            let first = c.compare(a, b, D::Lt, &[])?;
            let tie = c.compare(a, b, D::Eq, &[])?;
            let second = c.compare(x, y, D::Gt, &[])?;
            let both = c.and(tie, second, &[])?;
            c.or(first, both, &[])?
        }
        4 => {
            let (a, b, _) = pick(rng);
            c.compare(b, a, D::Lt, &[])?
        }
        5 => c.constant_scalar(rng.chance(0.5))?,
        _ => {
            let (a, b, _) = pick(rng);
            c.compare(a, b, D::Lt, &[])?
        }
    };
    c.build(root)
}

impl Gen<'_> {
    /// A `sort` or `topk` of `a` (of shape `ashape`): checks the builder's
    /// shape against the model and records the op; an array result joins
    /// the values later ops use, a tuple the values the root returns.
    pub(crate) fn sort_step(&mut self, a: Op, ashape: &Shape) -> Result<()> {
        let rank = ashape.rank();
        // Complex numbers have no order to sort by.
        if rank == 0 || ashape.element_type().is_complex() {
            return Ok(());
        }
        let (op, model, name) = if self.rng.chance(0.7) {
            let mut operands = vec![a];
            let mut shapes = vec![ashape.clone()];
            for _ in 0..self.rng.below(3) {
                let ty = self.rng.pick(&self.cfg.element_types);
                let s = ashape.with_element_type(ty);
                operands.push(self.param(s.clone())?);
                shapes.push(s);
            }
            let types: Vec<ElementType> = shapes.iter().map(Shape::element_type).collect();
            let cmp = comparator(self.rng, &types)?;
            let dimension = self.rng.below(rank as u64) as i64;
            let stable = self.rng.chance(0.5);
            let op = self.b.sort(&operands, dimension, stable, &cmp)?;
            let model = match &shapes[..] {
                [one] => one.clone(),
                _ => Shape::tuple(shapes),
            };
            (op, model, "sort")
        } else {
            let last = ashape.dims()[rank - 1];
            let k = self.rng.below(last as u64 + 1) as i64;
            let op = self.b.top_k(a, k, self.rng.chance(0.7))?;
            let mut dims = ashape.dims().to_vec();
            dims[rank - 1] = k;
            let model = Shape::tuple(vec![
                Shape::new(ashape.element_type(), &dims),
                Shape::new(ElementType::S32, &dims),
            ]);
            (op, model, "topk")
        };
        let got = self.b.shape(op)?;
        if got != model {
            return Err(oxla_ir::Error::Internal {
                stage: "generator".into(),
                message: format!(
                    "{name}: builder inferred {got}, the generator's model says {model}"
                ),
            });
        }
        self.ops.push(name);
        if model.is_tuple() {
            self.keep.push(op);
        } else {
            self.values.push((op, model));
        }
        Ok(())
    }
}
