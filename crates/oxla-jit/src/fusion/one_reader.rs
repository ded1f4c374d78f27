//! Values with one reading kernel: the cost rules' cuts taken back where
//! the cut value would be computed once per element anyway.
//!
//! The cost rules of [`super::Plan::build`] count a value's fused
//! expression as a tree: a subexpression read twice counts twice, and a
//! value read by two instructions counts as shared. Inside one kernel
//! neither is true: the expression graph is hash-consed (`graph.rs`), so a
//! value read by several fused instructions at the same element is
//! computed once. JAX's `erfc` (GELU) reads `1/x²` in every step of a
//! 16-term polynomial and its `exp` branch from two selects: the tree
//! rules gave both a buffer, and the GELU became three kernels that wrote
//! and reread two arrays of the whole activation's size.
//!
//! Invariant: a value is un-materialised only when every path from it to
//! a materialised instruction goes through elementwise instructions of its
//! own dims and ends in one instruction (for a `dot`, one operand of it)
//! that reads each element of the path's last value once per output
//! element: an elementwise instruction of the same dims, a `reduce`'s
//! input, a `dot`'s operand. So exactly one kernel computes it, once per
//! element, at the element's own index (no broadcast repeats it), and
//! that kernel's fused expression, counted as a graph, stays within
//! [`MAX_COST`].

use std::collections::HashSet;

use oxla_ir::{Body, InstId, OpKind};

use super::{EXPENSIVE, MAX_COST, op_cost};

/// The one instruction (and, for a `dot`, the one operand slot) that
/// reads `x`'s value through fused elementwise instructions of `x`'s dims,
/// or `None` when there are several or a path leaves that form.
fn one_reader(body: &Body, users: &[Vec<InstId>], mat: &[bool], x: InstId) -> Option<InstId> {
    let dims = body.inst(x).shape.dims();
    let mut reader: Option<(InstId, Option<usize>)> = None;
    let mut seen: HashSet<InstId> = HashSet::new();
    let mut stack = vec![x];
    while let Some(v) = stack.pop() {
        for &u in &users[v.index()] {
            let ui = body.inst(u);
            let elementwise = ui.kind.opcode().class().is_elementwise() && ui.shape.dims() == dims;
            if !mat[u.index()] {
                if !elementwise {
                    return None;
                }
                if seen.insert(u) {
                    stack.push(u);
                }
                continue;
            }
            let slots: Vec<usize> = (0..ui.operands.len())
                .filter(|&k| ui.operands[k] == v)
                .collect();
            let slot = if let OpKind::DotGeneral { .. } = ui.kind {
                match slots[..] {
                    [k] => Some(k),
                    _ => return None,
                }
            } else if let OpKind::Reduce { .. } = ui.kind {
                // An input of the reduce, not an init value.
                if slots.iter().any(|&k| k >= ui.operands.len() / 2) {
                    return None;
                }
                None
            } else if elementwise {
                None
            } else {
                return None;
            };
            match reader {
                None => reader = Some((u, slot)),
                Some(r) if r == (u, slot) => {}
                Some(_) => return None,
            }
        }
    }
    reader.map(|(u, _)| u)
}

/// The cost of the expression fused into `root`'s kernel, each fused
/// instruction counted once (as the hash-consed graph computes it).
fn graph_cost(body: &Body, mat: &[bool], root: InstId) -> u64 {
    let mut seen: HashSet<InstId> = HashSet::new();
    let mut stack: Vec<InstId> = body.inst(root).operands.clone();
    let mut cost = op_cost(&body.inst(root).kind);
    while let Some(v) = stack.pop() {
        if mat[v.index()] || !seen.insert(v) {
            continue;
        }
        let vi = body.inst(v);
        cost = cost.saturating_add(op_cost(&vi.kind));
        stack.extend(vi.operands.iter().copied());
    }
    cost
}

/// Takes back the buffer of each value in `by_cost` (given one by the
/// cost rules only) that one kernel would compute once per element (see
/// the module docs), latest first so that a chain of such values fuses
/// whole.
pub(super) fn fuse_one_reader_values(
    body: &Body,
    live: &[bool],
    mat: &mut [bool],
    by_cost: &[bool],
) {
    let n = body.instructions.len();
    let mut users: Vec<Vec<InstId>> = vec![Vec::new(); n];
    for (i, inst) in body.instructions.iter().enumerate() {
        if live[i] {
            for o in &inst.operands {
                if !users[o.index()].contains(&InstId(i as u32)) {
                    users[o.index()].push(InstId(i as u32));
                }
            }
        }
    }
    for i in (0..n).rev() {
        if !by_cost[i] || !mat[i] {
            continue;
        }
        let x = InstId(i as u32);
        if !body.inst(x).kind.opcode().class().is_elementwise() {
            continue;
        }
        let Some(reader) = one_reader(body, &users, mat, x) else {
            continue;
        };
        mat[i] = false;
        if graph_cost(body, mat, reader) > MAX_COST {
            mat[i] = true;
        }
    }
}

/// Takes back the buffer of each value in `by_cost` whose expression,
/// counted as a graph over the final buffers, costs less than one
/// transcendental ([`EXPENSIVE`]): each kernel that reads it recomputes a
/// few cheap ops instead of a store and a reload of the whole array.
/// Softmax over a masked, scaled score (`select(mask, s / 8, -big)`) read
/// by the max pass, the `exp` pass and the division had a buffer because
/// the tree count included the mask's own expression, which then got a
/// buffer of its own. Runs after every other cut, in definition order, so
/// a value's readers are judged with it fused.
pub(super) fn fuse_cheap_values(body: &Body, live: &[bool], mat: &mut [bool], by_cost: &[bool]) {
    for i in 0..body.instructions.len() {
        let x = InstId(i as u32);
        if live[i]
            && by_cost[i]
            && mat[i]
            && body.inst(x).kind.opcode().class().is_elementwise()
            && graph_cost(body, mat, x) < EXPENSIVE
        {
            mat[i] = false;
        }
    }
}
