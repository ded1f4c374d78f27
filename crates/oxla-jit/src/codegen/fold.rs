//! Folds: reduces and dots inside called bodies, emitted in place.
//!
//! A fold node's value is a scalar loop over the fold's own variables
//! (row-major: the interpreter's order, so float results agree bit for
//! bit), run wherever the node is evaluated. Values of its body that do not
//! vary along it are computed once, before the loop; captured values come
//! from the enclosing scope. Short folds are unrolled.

use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::Variable;
use oxla_ir::{ElementType, Result};

use crate::entity::{BufferId, FoldId, IdVec, NodeId};
use crate::graph::{Fold, Node, reachable};
use crate::ix::Ix;
use crate::kernel::LoopKernel;

use super::loops::KernelEmitter;
use super::{Mode, bug, flags};

/// A fold of at most this many steps is unrolled...
const FOLD_UNROLL_STEPS: i64 = 8;
/// ...when its per-step nodes, copied once per step, stay this few and
/// include no nested fold.
const FOLD_UNROLL_NODES: i64 = 256;

/// What the emitter knows while emitting one [`Fold`].
struct FoldEmit<'n> {
    fold: &'n Fold,
    /// Values of the nodes that do not vary along the fold, computed
    /// before its loop.
    fixed: IdVec<NodeId, Option<Value>>,
    /// Nodes computed per step, ascending: the element's, then the
    /// combiner's.
    element_nodes: Vec<NodeId>,
    combine_nodes: Vec<NodeId>,
    /// The captured values (the fold node's operands after `init`).
    caps: Vec<Value>,
    /// Base pointers of the buffers the fold's loads read.
    bases: Vec<(BufferId, Value)>,
}

impl<'a> KernelEmitter<'a, '_> {
    /// Emits `Graph::folds[f]` in place, starting from `init` with
    /// captured values `caps`, and returns the result: values that do not
    /// vary along the fold first, then a scalar loop nest over the fold's
    /// variables (row-major, the interpreter's order), or the steps one
    /// after the other when there are few. Nested folds are emitted where
    /// their values are needed, inside or before this one's loop.
    pub(super) fn emit_fold(&mut self, f: FoldId, init: Value, caps: &[Value]) -> Result<Value> {
        self.fold_depth += 1;
        let v = self.emit_fold_body(f, init, caps);
        self.fold_depth -= 1;
        v
    }

    /// [`KernelEmitter::emit_fold`], inside the fold.
    fn emit_fold_body(&mut self, f: FoldId, init: Value, caps: &[Value]) -> Result<Value> {
        let kernel: &'a LoopKernel = self.kernel;
        let fold = kernel
            .graph
            .folds
            .get(f)
            .ok_or_else(|| bug(format!("fold {f} missing")))?;
        let need = kernel.graph.var_count();
        self.loop_index.grow_to(need, None);
        let nodes = &fold.nodes;
        let own = |ix: &Ix| fold.vars.iter().any(|&(v, _)| ix.uses(v));
        // Operands come before their users, so one pass classifies.
        let mut varies: IdVec<NodeId, bool> = IdVec::filled(nodes.len(), false);
        for (n, node) in nodes.iter() {
            varies[n] = matches!(node, Node::Var { .. })
                || node.index_exprs().into_iter().any(own)
                || node.operands().iter().any(|&o| varies[o]);
        }
        let element_all = reachable(nodes, &[fold.element]);
        let mut in_element: IdVec<NodeId, bool> = IdVec::filled(nodes.len(), false);
        for &n in &element_all {
            in_element[n] = true;
        }
        let combine_all = reachable(nodes, &[fold.combine]);
        let mut bases: Vec<(BufferId, Value)> = Vec::new();
        for node in nodes.values() {
            if let Node::Load { buf, .. } = node
                && !bases.iter().any(|(b, _)| b == buf)
            {
                let p =
                    self.b
                        .ins()
                        .load(types::I64, flags(), self.table, (buf.index() * 8) as i32);
                bases.push((*buf, p));
            }
        }
        let mut st = FoldEmit {
            fold,
            fixed: IdVec::filled(nodes.len(), None),
            element_nodes: element_all.iter().copied().filter(|&n| varies[n]).collect(),
            combine_nodes: combine_all
                .iter()
                .copied()
                .filter(|&n| varies[n] && !in_element[n])
                .collect(),
            caps: caps.to_vec(),
            bases,
        };
        let mut fixed_nodes: Vec<NodeId> = element_all
            .iter()
            .chain(&combine_all)
            .copied()
            .filter(|&n| !varies[n])
            .collect();
        fixed_nodes.sort_unstable();
        fixed_nodes.dedup();
        for n in fixed_nodes {
            let v = self.fold_node(&st, n, &st.fixed, [None, None])?;
            st.fixed[n] = Some(v);
        }
        let steps = fold
            .vars
            .iter()
            .try_fold(1i64, |p, &(_, n)| p.checked_mul(n.max(0)))
            .unwrap_or(i64::MAX);
        if steps == 0 {
            return Ok(init);
        }
        // A nested fold per step is a loop of its own: not copied.
        let per_step: Vec<NodeId> = st
            .element_nodes
            .iter()
            .chain(&st.combine_nodes)
            .copied()
            .collect();
        let small = (per_step.len() as i64) * steps <= FOLD_UNROLL_NODES
            && !per_step
                .iter()
                .any(|&n| matches!(nodes[n], Node::Fold { .. }));
        let result = if steps <= FOLD_UNROLL_STEPS && small {
            let mut acc = init;
            for step in 0..steps {
                // Row-major: the last variable fastest.
                let mut rest = step;
                for &(v, n) in fold.vars.iter().rev() {
                    let i = self.int64(rest % n);
                    self.loop_index[v] = Some(i);
                    rest /= n;
                }
                acc = self.fold_step(&st, acc)?;
            }
            acc
        } else {
            let ty = self.b.func.dfg.value_type(init);
            let acc = self.b.declare_var(ty);
            self.b.def_var(acc, init);
            self.fold_nest(&st, 0, acc)?;
            self.b.use_var(acc)
        };
        for &(v, _) in &fold.vars {
            self.loop_index[v] = None;
        }
        Ok(result)
    }

    /// The loops of a fold from variable `d` inwards; the innermost body
    /// is one step on the accumulator `acc`.
    fn fold_nest(&mut self, st: &FoldEmit, d: usize, acc: Variable) -> Result<()> {
        let Some(&(v, n)) = st.fold.vars.get(d) else {
            let a = self.b.use_var(acc);
            let r = self.fold_step(st, a)?;
            self.b.def_var(acc, r);
            return Ok(());
        };
        let lo = self.int64(0);
        let hi = self.int64(n);
        self.counted_loop(lo, hi, &mut |em, i| {
            em.loop_index[v] = Some(i);
            em.fold_nest(st, d + 1, acc)
        })
    }

    /// One step of a fold (its variables bound): the element, then the
    /// combiner on `acc` and the element; returns the new accumulator.
    fn fold_step(&mut self, st: &FoldEmit, acc: Value) -> Result<Value> {
        let mut vals = st.fixed.clone();
        for &n in &st.element_nodes {
            let v = self.fold_node(st, n, &vals, [None, None])?;
            vals[n] = Some(v);
        }
        let x = vals[st.fold.element].ok_or_else(|| bug("fold element not computed"))?;
        for &n in &st.combine_nodes {
            let v = self.fold_node(st, n, &vals, [Some(acc), Some(x)])?;
            vals[n] = Some(v);
        }
        vals[st.fold.combine].ok_or_else(|| bug("fold combiner not computed"))
    }

    /// The scalar value of node `n` of a fold's body; its operands are in
    /// `vals`, `bind` holds the accumulator and the element (`Var` slots).
    fn fold_node(
        &mut self,
        st: &FoldEmit,
        n: NodeId,
        vals: &IdVec<NodeId, Option<Value>>,
        bind: [Option<Value>; 2],
    ) -> Result<Value> {
        let node = &st.fold.nodes[n];
        let ops: Vec<Value> = node
            .operands()
            .into_iter()
            .map(|o| vals[o].ok_or_else(|| bug(format!("fold operand {o} of {n} missing"))))
            .collect::<Result<_>>()?;
        self.bind_data(node, &ops);
        let v = self.fold_bound_node(st, node, &ops, bind);
        self.data_values.clear();
        v
    }

    /// [`KernelEmitter::fold_node`] once its data indices are bound.
    fn fold_bound_node(
        &mut self,
        st: &FoldEmit,
        node: &Node,
        ops: &[Value],
        bind: [Option<Value>; 2],
    ) -> Result<Value> {
        if let Some(v) = self.pure_op(Mode::Scalar, node, ops, None)? {
            return Ok(v);
        }
        Ok(match node {
            Node::Load {
                buf,
                ty,
                offset,
                numel,
                clamp,
            } => {
                let base = st
                    .bases
                    .iter()
                    .find(|(b, _)| b == buf)
                    .map(|&(_, p)| p)
                    .ok_or_else(|| bug(format!("fold buffer {buf} has no base")))?;
                self.load_scalar(base, *ty, offset, *numel, *clamp)
            }
            Node::Iota { ty, index } => {
                let v = self.index_value(index);
                self.convert(Mode::Scalar, ElementType::S64, *ty, v)?
            }
            Node::Var { slot, .. } => bind
                .get(*slot as usize)
                .copied()
                .flatten()
                .ok_or_else(|| bug("fold variable unbound"))?,
            Node::Capture { slot, .. } => st
                .caps
                .get(*slot as usize)
                .copied()
                .ok_or_else(|| bug("fold capture missing"))?,
            Node::Fold { fold, .. } => self.emit_fold(*fold, ops[0], &ops[1..])?,
            other => return Err(bug(format!("node {other:?} has no emitter in a fold"))),
        })
    }
}
