//! Rewrites before fusion that change how a dot is computed, never what it
//! computes: the *transposed product*.
//!
//! Backward passes write `transpose(dot(a, b))` (JAX's weight gradient of
//! a dense layer is `dot(dy, x)` with both contracting dimensions 0, then
//! a transpose into the weight's `[in, out]` order). Left as it is, the
//! product is computed into a buffer and every consumer reads it through
//! the transpose, a strided walk over the whole matrix (in the MLP
//! training step the `w - lr * g` update of a `784 x 512` weight cost as
//! much as the product). But `transpose(a . b) = b . a` with the batch
//! dimensions kept and the free dimensions of the two sides swapped, so
//! the transpose is replaced by that dot and the consumers read it in
//! order.
//!
//! Invariants:
//! - The rewrite is exact in the interpreter's semantics: each element is
//!   the same sum, over the contracting indices in the same order, of the
//!   same products with their two factors swapped (a commutative
//!   multiply), started from the same zero. So the rewritten computation
//!   gives the interpreter's bits (NaN payloads aside).
//! - Only a transpose whose permutation is exactly "batch dimensions in
//!   place, then the right operand's free dimensions, then the left's" is
//!   replaced, and only when the dot has no other user (not even as a
//!   body's root), so no product is computed twice. The old dot is left
//!   dead; fusion skips dead instructions.

use oxla_ir::{Computation, DotDimensionNumbers, InstId, OpKind, Result};

/// `comp` with every `transpose(dot(a, b))` that is the dot's only use
/// replaced by the equal `dot(b, a)`; `None` when there is none.
pub(crate) fn transposed_products(comp: &Computation) -> Result<Option<Computation>> {
    let mut bodies = comp.bodies().to_vec();
    let mut changed = false;
    for body in &mut bodies {
        let mut uses = vec![0usize; body.instructions.len()];
        for inst in &body.instructions {
            for o in &inst.operands {
                if let Some(u) = uses.get_mut(o.index()) {
                    *u += 1;
                }
            }
        }
        if let Some(u) = uses.get_mut(body.root.index()) {
            *u += 1;
        }
        for i in 0..body.instructions.len() {
            let inst = &body.instructions[i];
            let (OpKind::Transpose { permutation }, [x]) = (&inst.kind, inst.operands.as_slice())
            else {
                continue;
            };
            let x = *x;
            let Some(dot) = body.instructions.get(x.index()) else {
                continue;
            };
            let (OpKind::DotGeneral { dims }, [a, b]) = (&dot.kind, dot.operands.as_slice()) else {
                continue;
            };
            if uses[x.index()] != 1 {
                continue;
            }
            let ranks = [a, b].map(|o| body.inst(*o).shape.rank());
            if swap_permutation(dims, ranks) != *permutation {
                continue;
            }
            let swapped = DotDimensionNumbers {
                lhs_batch: dims.rhs_batch.clone(),
                rhs_batch: dims.lhs_batch.clone(),
                lhs_contracting: dims.rhs_contracting.clone(),
                rhs_contracting: dims.lhs_contracting.clone(),
            };
            let operands: Vec<InstId> = vec![*b, *a];
            let x = x.index();
            let inst = &mut body.instructions[i];
            inst.kind = OpKind::DotGeneral { dims: swapped };
            inst.operands = operands;
            uses[x] = 0;
            changed = true;
        }
    }
    if !changed {
        return Ok(None);
    }
    // Verifying re-runs shape inference on the new dots: each must give
    // the transpose's shape.
    Computation::from_bodies(comp.name(), bodies).map(Some)
}

/// The permutation that turns `dot(a, b)`'s result (batch, `a`'s free,
/// `b`'s free dimensions) into `dot(b, a)`'s (batch, `b`'s free, `a`'s
/// free), for operands of ranks `ranks`.
fn swap_permutation(dims: &DotDimensionNumbers, ranks: [usize; 2]) -> Vec<i64> {
    let nb = dims.lhs_batch.len();
    let free_a = ranks[0].saturating_sub(nb + dims.lhs_contracting.len());
    let free_b = ranks[1].saturating_sub(nb + dims.rhs_contracting.len());
    let nb = nb as i64;
    let (fa, fb) = (free_a as i64, free_b as i64);
    (0..nb)
        .chain(nb + fa..nb + fa + fb)
        .chain(nb..nb + fa)
        .collect()
}

#[cfg(test)]
mod tests {
    //! The rewrite against the interpreter (bit-exact on values whose
    //! products and sums round), and the cases it must leave alone.

    use oxla_ir::{Literal, parse_hlo_module};

    use super::*;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| {
                let x = (i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 8;
                (x % 2000) as f32 / 997.0 - 1.0
            })
            .collect()
    }

    /// Rewrites `text`, checks how many dots the entry then holds among
    /// its live transposes, and that the interpreter gives the same bits
    /// before and after.
    fn check(text: &str, rewritten: bool) {
        let comp = parse_hlo_module(text).expect("parses");
        let new = transposed_products(&comp).expect("verifies");
        assert_eq!(new.is_some(), rewritten, "{text}");
        let Some(new) = new else { return };
        let root = new.entry().root_inst();
        let is_dot = matches!(root.kind, OpKind::DotGeneral { .. })
            || root
                .operands
                .iter()
                .any(|o| matches!(new.entry().inst(*o).kind, OpKind::DotGeneral { .. }));
        assert!(is_dot, "{}", new.to_hlo_text());
        let args: Vec<Literal> = comp
            .parameter_shapes()
            .iter()
            .enumerate()
            .map(|(p, s)| {
                Literal::from_vec(s.dims(), values(s.element_count() as usize, p as u32))
                    .expect("shape")
            })
            .collect();
        let refs: Vec<&Literal> = args.iter().collect();
        let want = oxla_interp::evaluate(&comp, &refs).expect("runs");
        let got = oxla_interp::evaluate(&new, &refs).expect("runs");
        assert_eq!(want, got);
    }

    #[test]
    fn a_weight_gradient_becomes_the_swapped_dot() {
        check(
            "HloModule m\n\nENTRY e {\n  dy = f32[8,5] parameter(0)\n  x = f32[8,7] parameter(1)\n  \
             g = f32[5,7] dot(dy, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n  \
             t = f32[7,5] transpose(g), dimensions={1,0}\n  w = f32[7,5] parameter(2)\n  \
             ROOT u = f32[7,5] subtract(w, t)\n}\n",
            true,
        );
    }

    #[test]
    fn batched_and_multi_dimensional_free_sides() {
        // Batch 2, a's free dims [3,4], b's free dim [6], contracting 5.
        check(
            "HloModule m\n\nENTRY e {\n  a = f32[2,3,4,5] parameter(0)\n  b = f32[2,5,6] parameter(1)\n  \
             d = f32[2,3,4,6] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, \
             lhs_contracting_dims={3}, rhs_contracting_dims={1}\n  \
             ROOT t = f32[2,6,3,4] transpose(d), dimensions={0,3,1,2}\n}\n",
            true,
        );
    }

    #[test]
    fn the_jit_runs_the_rewritten_gradient_step() {
        // Large enough for the threaded GEMM; integer values, so every sum
        // is exact in any order and the JIT must give the interpreter's
        // bits.
        let text = "HloModule m\n\nENTRY e {\n  dy = f32[64,96] parameter(0)\n  \
                    x = f32[64,130] parameter(1)\n  w = f32[130,96] parameter(2)\n  \
                    g = f32[96,130] dot(dy, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n  \
                    t = f32[130,96] transpose(g), dimensions={1,0}\n  \
                    ROOT u = f32[130,96] subtract(w, t)\n}\n";
        let comp = parse_hlo_module(text).expect("parses");
        let args: Vec<Literal> = comp
            .parameter_shapes()
            .iter()
            .enumerate()
            .map(|(p, s)| {
                let v: Vec<f32> = values(s.element_count() as usize, p as u32)
                    .iter()
                    .map(|x| (x * 4.0).round())
                    .collect();
                Literal::from_vec(s.dims(), v).expect("shape")
            })
            .collect();
        let refs: Vec<&Literal> = args.iter().collect();
        let want = oxla_interp::evaluate(&comp, &refs).expect("runs");
        let got = crate::compile(&comp)
            .expect("compiles")
            .run(&refs)
            .expect("runs");
        assert_eq!(want, got);
    }

    #[test]
    fn other_transposes_and_shared_dots_stay() {
        // The dot has a second user.
        check(
            "HloModule m\n\nENTRY e {\n  a = f32[3,4] parameter(0)\n  b = f32[4,5] parameter(1)\n  \
             d = f32[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
             t = f32[5,3] transpose(d), dimensions={1,0}\n  \
             ROOT r = (f32[5,3], f32[3,5]) tuple(t, d)\n}\n",
            false,
        );
        // A permutation that moves a batch dimension.
        check(
            "HloModule m\n\nENTRY e {\n  a = f32[2,3,4] parameter(0)\n  b = f32[2,4,5] parameter(1)\n  \
             d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, \
             lhs_contracting_dims={2}, rhs_contracting_dims={1}\n  \
             ROOT t = f32[3,2,5] transpose(d), dimensions={1,0,2}\n}\n",
            false,
        );
    }
}
