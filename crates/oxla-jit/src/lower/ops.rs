//! Lowering of the indexing and windowed ops' steps (`fusion::OpStep`):
//!
//! - **`dynamic-update-slice`**: a copy of the operand (unless the step
//!   runs in place), then a `Work::Update` kernel over the update's shape
//!   writing at `start + j`, the starts clamped data indices computed once
//!   per call; split across threads like any loop (each element of the
//!   window is its own).
//! - **`scatter`**: a copy of the input (unless in place), then one
//!   `Work::Update` kernel over the updates: the scatter dimensions outer,
//!   the window dimensions inner, both row-major, run on one thread in that
//!   order, which is the interpreter's, so repeated indices combine in the
//!   same order (bit-exact float sums). Per window, the start is read from
//!   the indices (widened, then clamped for the address) and checked
//!   unclamped against `[0, dim - window]`: a window out of bounds anywhere
//!   is skipped whole (its elements are written back unchanged). The
//!   combiner is inlined on `(current, update)`: a recognised op vectorises
//!   along the window's contiguous dimension, a general body compiles as
//!   it is.
//! - **`reduce-window`**: a column reduction, the output's last dimension
//!   innermost and the window's dimensions (row-major) as the reduced
//!   loops, so each output element folds its window in the interpreter's
//!   order from `init`; positions that hold no operand element (padding,
//!   base dilation) are skipped by a guard around the reducer, never
//!   folded as a value. Vectorised along the output's last dimension when
//!   the window reads it contiguously.
//! - **`convolution`** (direct; the GEMM path of larger ones is
//!   `lower/conv.rs`): the same column reduction with the window
//!   and the group's input features as reduced loops, `acc + lhs * rhs`
//!   from zero, padding skipped: the interpreter's order, bit-exact for
//!   every type. An output feature dimension split by feature or batch
//!   groups becomes two loops (group, feature within it), so every index
//!   stays affine; with features innermost (NHWC) the kernel is a row of
//!   vector multiply-adds per input feature.
//! - **`select-and-scatter`**: first, per source element, the position of
//!   the element its window selects (a column reduction whose accumulator
//!   is the position, `-1` before the first element; the candidate's value
//!   is read back at that position); then the result is filled with the
//!   init value and each source value scattered onto its position in
//!   source order (`scatter(source, current)`), on one thread.

use oxla_ir::{
    BinaryOp, ComparisonDirection, ComparisonOrder, ElementType, InstId, OpKind, Result, UnaryOp,
    WindowDim, shape::row_major_strides,
};

use super::conv;
use super::{
    Target, bug, dim_index, entry_source, in_order, loop_dims, loop_kernels, merge_groups,
    merged_extents, reducer_of, reducer_source,
};
use crate::entity::{BufferId, IdVec, LoopVar, NodeId};
use crate::fusion::{OpStep, Plan, Step};
use crate::graph::{Cond, Ctx, Graph, Node, Source, delinearise};
use crate::ix::{Extents, Ix};
use crate::kernel::{KernelDesc, LoopKernel, Reducer, Work};
use oxla_ir::Computation;

/// The kernels of an op step, run in order.
pub(super) fn lower_op_step(
    comp: &Computation,
    plan: &Plan,
    step: &Step,
    op: &OpStep,
) -> Result<Vec<KernelDesc>> {
    let loops = |v: Vec<LoopKernel>| v.into_iter().map(KernelDesc::Loop).collect::<Vec<_>>();
    Ok(match op {
        OpStep::UpdateSlice { inst, in_place } => {
            let mut kernels = copy_operand(comp, plan, step.out, *inst, *in_place)?;
            kernels.extend(update_slice_kernel(comp, plan, step.out, *inst)?);
            loops(kernels)
        }
        OpStep::Scatter { inst, in_place } => {
            let mut kernels = copy_operand(comp, plan, step.out, *inst, *in_place)?;
            kernels.extend(scatter_kernel(comp, plan, step.out, *inst)?);
            loops(kernels)
        }
        OpStep::SelectPositions { inst } => {
            loops(vec![positions_kernel(comp, plan, step.out, *inst)?])
        }
        OpStep::SelectScatter { inst, positions } => loops(select_scatter_kernels(
            comp, plan, step.out, *inst, *positions,
        )?),
        OpStep::ReduceWindow { inst } => {
            loops(vec![reduce_window_kernel(comp, plan, step.out, *inst)?])
        }
        OpStep::Convolution { inst } => {
            loops(vec![convolution_kernel(comp, plan, step.out, *inst)?])
        }
        OpStep::ConvPatches { inst } => {
            loops(vec![conv::patches_kernel(comp, plan, step.out, *inst)?])
        }
        OpStep::ConvFilter { inst } => {
            loops(vec![conv::filter_kernel(comp, plan, step.out, *inst)?])
        }
        OpStep::ConvGemm {
            inst,
            patches,
            filter,
            ..
        } => vec![conv::gemm(comp, *inst, *patches, *filter, step.out)?],
        OpStep::ConvUnpack { inst, product } => {
            loops(vec![conv::unpack_kernel(comp, step.out, *inst, *product)?])
        }
        OpStep::ConvInput { inst } => loops(vec![conv::input_kernel(comp, plan, step.out, *inst)?]),
        OpStep::ConvTiled {
            inst,
            input,
            filter,
        } => vec![conv::tiled(comp, plan, *inst, *input, *filter, step.out)?],
    })
}

/// The graph context of the entry body with `plan`'s buffers.
pub(super) fn with_ctx<R>(comp: &Computation, plan: &Plan, f: impl FnOnce(&Ctx) -> R) -> R {
    let source = entry_source(plan);
    let ctx = Ctx {
        body_id: comp.entry_id(),
        comp,
        called: &plan.called_constants,
        source: &source,
    };
    f(&ctx)
}

/// `Σ index[d] * strides[d]`.
pub(super) fn linear(index: &[Ix], strides: &[i64]) -> Ix {
    let mut off = Ix::constant(0);
    for (ix, s) in index.iter().zip(strides) {
        off = off.add(&ix.scale(*s));
    }
    off
}

/// The kernels that copy an update's operand (operand 0 of `inst`) into
/// `out`: none when the step runs in place (the operand is already there).
fn copy_operand(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
    in_place: bool,
) -> Result<Vec<LoopKernel>> {
    if in_place {
        return Ok(vec![]);
    }
    let i = comp.entry().inst(inst);
    let id = |ix: &[Ix], _: &Extents| ix.to_vec();
    let target = Target {
        out,
        dims: i.shape.dims(),
        ty: i.shape.element_type(),
    };
    loop_kernels(comp, plan, target, i.operands[0], false, &id)
}

/// A data index read from `node` (an integer of type `from`) clamped into
/// `0..=hi`.
fn clamped(graph: &mut Graph, node: NodeId, from: ElementType, hi: i64) -> Ix {
    if hi <= 0 {
        return Ix::constant(0);
    }
    let n = graph.add(Node::Index {
        x: node,
        from,
        lo: 0,
        hi,
    });
    Ix::data(n, 0, hi)
}

/// The `dynamic-update-slice` window kernel: `out[start + j] = update[j]`.
fn update_slice_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<Vec<LoopKernel>> {
    let body = comp.entry();
    let i = body.inst(inst);
    let out_dims = i.shape.dims().to_vec();
    let update = i.operands[1];
    let upd_dims = body.inst(update).shape.dims().to_vec();
    if upd_dims.contains(&0) {
        return Ok(vec![]);
    }
    let vector = i.operands.len() == 3 && body.inst(i.operands[2]).shape.rank() == 1;
    let strides = row_major_strides(&out_dims);
    let ty = i.shape.element_type();
    with_ctx(comp, plan, |ctx| {
        let (dims, extents) = loop_dims(&upd_dims);
        let build = |extents: Extents, groups: &[Vec<LoopVar>]| -> Result<(Graph, NodeId, Ix)> {
            let mut g = Graph::new(extents);
            let j = dim_index(&upd_dims, &dims, &g.extents.clone(), groups);
            let mut at = Vec::with_capacity(out_dims.len());
            for (d, &n) in out_dims.iter().enumerate() {
                let hi = (n - upd_dims[d]).max(0);
                let start = if hi == 0 {
                    Ix::constant(0)
                } else {
                    let (slot, index) = if vector {
                        (2, vec![Ix::constant(d as i64)])
                    } else {
                        (2 + d, vec![])
                    };
                    let s = i.operands[slot];
                    let from = body.inst(s).shape.element_type();
                    let node = g.value(ctx, s, index)?;
                    clamped(&mut g, node, from, hi)
                };
                at.push(start.add(&j[d]));
            }
            let root = g.value(ctx, update, j)?;
            Ok((g, root, linear(&at, &strides)))
        };
        let (mut graph, mut root, mut offset) = build(extents.clone(), &[])?;
        let groups = merge_groups(&graph, &[&offset], &extents, None);
        if groups.len() < extents.len() {
            (graph, root, offset) = build(merged_extents(&groups, &extents), &groups)?;
        }
        let nv = graph.extents.len();
        let order = in_order(&graph.extents);
        Ok(vec![LoopKernel::single(
            graph,
            order,
            (nv > 0).then_some(0),
            Work::Update {
                root,
                out,
                out_offset: offset,
            },
            ty,
        )])
    })
}

/// `a op b` of `ty` operands (a comparison gives `pred`).
fn binary(g: &mut Graph, op: BinaryOp, ty: ElementType, a: NodeId, b: NodeId) -> NodeId {
    g.add(Node::Binary { op, ty, a, b })
}

/// The `s64` constant `v`.
fn const_s64(g: &mut Graph, v: i64) -> NodeId {
    g.add(Node::Const {
        ty: ElementType::S64,
        bits: v as u64,
    })
}

/// `p && q` of two `pred` nodes (either may be absent: true).
fn and(g: &mut Graph, p: Option<NodeId>, q: NodeId) -> NodeId {
    match p {
        None => q,
        Some(p) => binary(g, BinaryOp::And, ElementType::Pred, p, q),
    }
}

/// The `scatter` update kernel (see the module docs).
fn scatter_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<Vec<LoopKernel>> {
    let body = comp.entry();
    let i = body.inst(inst);
    let OpKind::Scatter { dims, to_apply, .. } = &i.kind else {
        return Err(bug("a scatter step on a non-scatter"));
    };
    let input_dims = i.shape.dims().to_vec();
    let (indices, updates) = (i.operands[1], i.operands[2]);
    let upd_dims = body.inst(updates).shape.dims().to_vec();
    if upd_dims.contains(&0) || input_dims.contains(&0) {
        return Ok(vec![]);
    }
    let ty = i.shape.element_type();
    let window_update: Vec<usize> = dims
        .update_window_dims
        .iter()
        .map(|&d| d as usize)
        .collect();
    let scatter_update: Vec<usize> = (0..upd_dims.len())
        .filter(|d| !window_update.contains(d))
        .collect();
    let window_input: Vec<usize> = (0..input_dims.len())
        .filter(|&d| {
            let d = d as i64;
            !dims.inserted_window_dims.contains(&d) && !dims.input_batching_dims.contains(&d)
        })
        .collect();
    let mut window_size = vec![1i64; input_dims.len()];
    for (&d, &u) in window_input.iter().zip(&window_update) {
        window_size[d] = upd_dims[u];
    }
    if input_dims.iter().zip(&window_size).any(|(&n, &w)| n < w) {
        // Every window is out of bounds: nothing is scattered.
        return Ok(vec![]);
    }
    // Loops: the scatter dimensions outer, then the window's, each
    // row-major (the interpreter's order); size-1 dimensions read 0.
    let mut extents: Extents = IdVec::new();
    let mut at_update = vec![Ix::constant(0); upd_dims.len()];
    for &d in scatter_update.iter().chain(&window_update) {
        if upd_dims[d] != 1 {
            at_update[d] = Ix::var(extents.push(upd_dims[d]));
        }
    }
    let idx = body.inst(indices);
    let from = idx.shape.element_type();
    let irank = idx.shape.rank();
    let ivd = dims.index_vector_dim as usize;
    let batch_dims: Vec<usize> = (0..irank.max(ivd + 1)).filter(|&d| d != ivd).collect();
    // The update's scatter index along indices dimension `e`.
    let batch_at = |e: usize| -> Ix {
        batch_dims
            .iter()
            .position(|&b| b == e)
            .and_then(|j| scatter_update.get(j))
            .map_or_else(|| Ix::constant(0), |&d| at_update[d].clone())
    };
    let strides = row_major_strides(&input_dims);
    let numel: i64 = input_dims.iter().product();
    with_ctx(comp, plan, |ctx| {
        let mut g = Graph::new(extents.clone());
        let mut start = vec![Ix::constant(0); input_dims.len()];
        let mut in_bounds: Option<NodeId> = None;
        for (k, &d) in dims.scatter_dims_to_operand_dims.iter().enumerate() {
            let d = d as usize;
            let index: Vec<Ix> = (0..irank)
                .map(|e| {
                    if e == ivd {
                        Ix::constant(k as i64)
                    } else {
                        batch_at(e)
                    }
                })
                .collect();
            let x = g.value(ctx, indices, index)?;
            let hi = input_dims[d] - window_size[d];
            // The window is applied only if its start, widened but not
            // clamped, lies in [0, hi].
            let raw = g.add(Node::Index {
                x,
                from,
                lo: i64::MIN,
                hi: i64::MAX,
            });
            let zero = const_s64(&mut g, 0);
            let top = const_s64(&mut g, hi);
            let ge = binary(
                &mut g,
                BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural),
                ElementType::S64,
                raw,
                zero,
            );
            let le = binary(
                &mut g,
                BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Natural),
                ElementType::S64,
                raw,
                top,
            );
            let both = and(&mut g, Some(ge), le);
            in_bounds = Some(and(&mut g, in_bounds, both));
            start[d] = clamped(&mut g, x, from, hi);
        }
        for (&d, &e) in dims
            .input_batching_dims
            .iter()
            .zip(&dims.scatter_indices_batching_dims)
        {
            start[d as usize] = batch_at(e as usize);
        }
        for (&d, &u) in window_input.iter().zip(&window_update) {
            start[d] = start[d].add(&at_update[u]);
        }
        let offset = linear(&start, &strides);
        let current = g.add(Node::Load {
            buf: out,
            ty,
            offset: offset.clone(),
            numel,
            clamp: false,
        });
        let update = g.value(ctx, updates, at_update.clone())?;
        let combined = combine(comp, plan, &mut g, *to_apply, [current, update])?;
        let root = match in_bounds {
            Some(p) => g.add(Node::Select {
                ty,
                p,
                a: combined,
                b: current,
            }),
            None => combined,
        };
        let order = in_order(&g.extents);
        Ok(vec![LoopKernel::single(
            g,
            order,
            None,
            Work::Update {
                root,
                out,
                out_offset: offset,
            },
            ty,
        )])
    })
}

/// Body `to_apply` inlined on `args` (its parameters 0 and 1).
fn combine(
    comp: &Computation,
    plan: &Plan,
    g: &mut Graph,
    to_apply: oxla_ir::ComputationId,
    args: [NodeId; 2],
) -> Result<NodeId> {
    let rbody = comp.body(to_apply);
    let src = reducer_source(
        rbody,
        to_apply,
        &plan.called_constants,
        [Source::Node(args[0]), Source::Node(args[1])],
    );
    let rctx = Ctx {
        body_id: to_apply,
        comp,
        called: &plan.called_constants,
        source: &src,
    };
    g.value(&rctx, rbody.root, vec![])
}

/// Where window element `k` of output index `o` lands in a base of `n`
/// elements along one dimension: the base index and the conditions under
/// which it is a base element (not padding, not a hole of base
/// dilation); `None` when it never is.
pub(super) fn window_index(
    o: &Ix,
    k: &Ix,
    w: &WindowDim,
    n: i64,
    ext: &Extents,
) -> Option<(Ix, Vec<Cond>)> {
    if n <= 0 {
        return None;
    }
    let t = o
        .scale(w.stride)
        .add(&k.scale(w.window_dilation))
        .add_constant(w.padding_low.wrapping_neg());
    let bd = w.base_dilation.max(1);
    let span = (n - 1) as i128 * bd as i128 + 1;
    let (lo, hi) = t.range(ext);
    let mut conds = Vec::new();
    if hi < 0 || lo >= span {
        return None;
    }
    if lo < 0 || hi >= span {
        conds.push(Cond::Range {
            ix: t.clone(),
            lo: 0,
            hi: i64::try_from(span).ok()?,
        });
    }
    if bd > 1 {
        match t.modulo(bd, ext).as_constant() {
            Some(0) => {}
            Some(_) => return None,
            None => conds.push(Cond::Divisible {
                ix: t.clone(),
                d: bd,
            }),
        }
        Some((t.div(bd, ext), conds))
    } else {
        Some((t, conds))
    }
}

/// Loop variables of a windowed kernel: `kept` over the output (one per
/// non-unit dimension, in order; the feature dimension of a grouped
/// convolution as two), `reduced` over the window (and a convolution's
/// input features), row-major.
struct WindowLoops {
    extents: Extents,
    kept: Vec<LoopVar>,
    reduced: Vec<LoopVar>,
}

impl WindowLoops {
    fn new() -> WindowLoops {
        WindowLoops {
            extents: IdVec::new(),
            kept: Vec::new(),
            reduced: Vec::new(),
        }
    }

    /// A kept loop of `n` (its index; 0 for `n == 1`).
    fn keep(&mut self, n: i64) -> Ix {
        if n == 1 {
            return Ix::constant(0);
        }
        let v = self.extents.push(n);
        self.kept.push(v);
        Ix::var(v)
    }

    /// A reduced loop of `n` (its index; 0 for `n == 1`).
    fn reduce(&mut self, n: i64) -> Ix {
        if n == 1 {
            return Ix::constant(0);
        }
        let v = self.extents.push(n);
        self.reduced.push(v);
        Ix::var(v)
    }

    /// Gives the window at least one reduced loop (of one iteration) so
    /// that the reducer is applied where no loop is reduced either: call
    /// before the graph is built.
    fn finish(&mut self) {
        if self.reduced.is_empty() {
            let v = self.extents.push(1);
            self.reduced.push(v);
        }
    }

    /// The kernel folding `element` into `out` at `out_offset` from
    /// `init` with `reducer`, over these loops: a column reduction (the
    /// last kept loop innermost, the reduced loops just above it, in
    /// order), or a row reduction in order when nothing is kept. There is
    /// a reduced loop ([`WindowLoops::finish`]).
    #[allow(clippy::too_many_arguments, reason = "one reduction")]
    fn kernel(
        self,
        mut graph: Graph,
        element: NodeId,
        init: NodeId,
        reducer: Reducer,
        guard: Option<NodeId>,
        ty: ElementType,
        out: BufferId,
        out_offset: Ix,
    ) -> LoopKernel {
        // Positions outside the base are skipped: the reducer applies only
        // where the guard holds.
        let guarded = |graph: &mut Graph, reducer: Reducer| -> Reducer {
            let (acc, x) = (
                graph.add(Node::Var { ty, slot: 0 }),
                graph.add(Node::Var { ty, slot: 1 }),
            );
            let r = match reducer {
                Reducer::Op(op) => binary(graph, op, ty, acc, x),
                Reducer::Body(r) => r,
            };
            match guard {
                Some(p) => Reducer::Body(graph.add(Node::Select {
                    ty,
                    p,
                    a: r,
                    b: acc,
                })),
                None => Reducer::Body(r),
            }
        };
        let k = self.kept.len();
        if k == 0 {
            // A single output element: fold in order (never reassociated).
            let reducer = guarded(&mut graph, reducer);
            return LoopKernel::single(
                graph,
                self.reduced.clone(),
                None,
                Work::RowReduce {
                    element,
                    init,
                    reducer,
                    out,
                    out_offset,
                    first_reduced: 0,
                    more: vec![],
                },
                ty,
            );
        }
        let reducer = match guard {
            Some(_) => guarded(&mut graph, reducer),
            None => reducer,
        };
        let mut order: Vec<LoopVar> = self.kept[..k - 1].to_vec();
        order.extend(&self.reduced);
        order.push(self.kept[k - 1]);
        let partition = if k > 1 { 0 } else { order.len() - 1 };
        LoopKernel::single(
            graph,
            order,
            Some(partition),
            Work::ColumnReduce {
                element,
                init,
                reducer,
                out,
                out_offset,
                first_reduced: k - 1,
                more: vec![],
            },
            ty,
        )
    }
}

/// `InBounds` of `conds` (`None` when there are none).
fn guard_of(g: &mut Graph, conds: Vec<Cond>) -> Option<NodeId> {
    (!conds.is_empty()).then(|| g.add(Node::InBounds { conds }))
}

/// The `reduce-window` kernel (see the module docs).
fn reduce_window_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<LoopKernel> {
    let body = comp.entry();
    let i = body.inst(inst);
    let OpKind::ReduceWindow { window, to_apply } = &i.kind else {
        return Err(bug("a reduce-window step on a non-reduce-window"));
    };
    let (x, init_inst) = (i.operands[0], i.operands[1]);
    let x_dims = body.inst(x).shape.dims().to_vec();
    let out_dims = i.shape.dims().to_vec();
    let ty = i.shape.element_type();
    let mut loops = WindowLoops::new();
    let outs: Vec<Ix> = out_dims.iter().map(|&n| loops.keep(n)).collect();
    let ks: Vec<Ix> = window
        .dimensions
        .iter()
        .map(|w| loops.reduce(w.size))
        .collect();
    loops.finish();
    let out_offset = linear(&outs, &row_major_strides(&out_dims));
    with_ctx(comp, plan, |ctx| {
        let mut g = Graph::new(loops.extents.clone());
        let ext = g.extents.clone();
        let init = g.value(ctx, init_inst, vec![])?;
        let mut index = Vec::with_capacity(x_dims.len());
        let mut conds = Vec::new();
        let mut never = false;
        for (d, w) in window.dimensions.iter().enumerate() {
            match window_index(&outs[d], &ks[d], w, x_dims[d], &ext) {
                Some((ix, c)) => {
                    index.push(ix);
                    conds.extend(c);
                }
                None => {
                    never = true;
                    index.push(Ix::constant(0));
                }
            }
        }
        let (element, guard) = if never {
            let f = g.add(Node::Const {
                ty: ElementType::Pred,
                bits: 0,
            });
            (init, Some(f))
        } else if conds.is_empty() {
            (g.value(ctx, x, index)?, None)
        } else {
            let e = g.guarded_value(ctx, x, index)?;
            (e, guard_of(&mut g, conds))
        };
        let reducer = reducer_of(comp, plan, &mut g, *to_apply)?;
        Ok(loops.kernel(g, element, init, reducer, guard, ty, out, out_offset))
    })
}

/// The direct `convolution` kernel (see the module docs).
fn convolution_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<LoopKernel> {
    let body = comp.entry();
    let i = body.inst(inst);
    let OpKind::Convolution {
        window,
        dims,
        feature_group_count,
        batch_group_count,
        ..
    } = &i.kind
    else {
        return Err(bug("a convolution step on a non-convolution"));
    };
    let (lhs, rhs) = (i.operands[0], i.operands[1]);
    let (ls, rs) = (&body.inst(lhs).shape, &body.inst(rhs).shape);
    let (ld, rd) = (ls.dims().to_vec(), rs.dims().to_vec());
    let out_dims = i.shape.dims().to_vec();
    let ty = i.shape.element_type();
    let (fgc, bgc) = (*feature_group_count, *batch_group_count);
    let d = |x: i64| x as usize;
    let o_feat = d(dims.output_feature_dimension);
    let o_batch = d(dims.output_batch_dimension);
    let out_features = out_dims[o_feat];
    let igs = ld[d(dims.input_feature_dimension)] / fgc.max(1);
    let ogs = out_features / fgc.max(1);
    let mult = out_features / bgc.max(1);
    let bgs = ld[d(dims.input_batch_dimension)] / bgc.max(1);
    // Loops over the output, in its dimension order; the feature dimension
    // of a grouped convolution as (group, feature in group).
    let mut loops = WindowLoops::new();
    let mut outs = vec![Ix::constant(0); out_dims.len()];
    let mut feature_group = Ix::constant(0);
    let mut batch_group = Ix::constant(0);
    for (od, &n) in out_dims.iter().enumerate() {
        if od != o_feat {
            outs[od] = loops.keep(n);
            continue;
        }
        if fgc > 1 && bgc == 1 {
            let g = loops.keep(fgc);
            let z = loops.keep(ogs);
            outs[od] = g.scale(ogs).add(&z);
            feature_group = g;
        } else if bgc > 1 && fgc == 1 {
            let g = loops.keep(bgc);
            let z = loops.keep(mult);
            outs[od] = g.scale(mult).add(&z);
            batch_group = g;
        } else {
            outs[od] = loops.keep(n);
        }
    }
    // Reduced: the window (spatial order), then the group's input features.
    let ks: Vec<Ix> = window
        .dimensions
        .iter()
        .map(|w| loops.reduce(w.size))
        .collect();
    let iz = loops.reduce(igs);
    loops.finish();
    let out_offset = linear(&outs, &row_major_strides(&out_dims));
    with_ctx(comp, plan, |ctx| {
        let mut g = Graph::new(loops.extents.clone());
        let ext = g.extents.clone();
        let z = outs[o_feat].clone();
        if fgc > 1 && bgc > 1 {
            // Not produced by shape inference; the division keeps it right.
            feature_group = z.div(ogs.max(1), &ext);
            batch_group = z.div(mult.max(1), &ext);
        }
        let mut li = vec![Ix::constant(0); ld.len()];
        let mut ri = vec![Ix::constant(0); rd.len()];
        li[d(dims.input_batch_dimension)] = outs[o_batch].add(&batch_group.scale(bgs));
        li[d(dims.input_feature_dimension)] = feature_group.scale(igs).add(&iz);
        ri[d(dims.kernel_output_feature_dimension)] = z;
        ri[d(dims.kernel_input_feature_dimension)] = iz.clone();
        let mut conds = Vec::new();
        let mut never = false;
        for (s, w) in window.dimensions.iter().enumerate() {
            let (lsd, rsd, osd) = (
                d(dims.input_spatial_dimensions[s]),
                d(dims.kernel_spatial_dimensions[s]),
                d(dims.output_spatial_dimensions[s]),
            );
            match window_index(&outs[osd], &ks[s], w, ld[lsd], &ext) {
                Some((ix, c)) => {
                    li[lsd] = ix;
                    conds.extend(c);
                }
                None => never = true,
            }
            ri[rsd] = if w.window_reversal {
                ks[s].scale(-1).add_constant(w.size - 1)
            } else {
                ks[s].clone()
            };
        }
        let zero = g.add(Node::Const { ty, bits: 0 });
        let (element, guard) = if never {
            let f = g.add(Node::Const {
                ty: ElementType::Pred,
                bits: 0,
            });
            (zero, Some(f))
        } else {
            let l = if conds.is_empty() {
                g.value(ctx, lhs, li)?
            } else {
                g.guarded_value(ctx, lhs, li)?
            };
            let r = g.value(ctx, rhs, ri)?;
            let convert = |g: &mut Graph, x: NodeId, from: ElementType| {
                if from == ty {
                    x
                } else {
                    g.add(Node::Convert { from, to: ty, x })
                }
            };
            let l = convert(&mut g, l, ls.element_type());
            let r = convert(&mut g, r, rs.element_type());
            let mul = if ty.is_pred() {
                BinaryOp::And
            } else {
                BinaryOp::Mul
            };
            (binary(&mut g, mul, ty, l, r), guard_of(&mut g, conds))
        };
        let add = if ty.is_pred() {
            BinaryOp::Or
        } else {
            BinaryOp::Add
        };
        Ok(loops.kernel(
            g,
            element,
            zero,
            Reducer::Op(add),
            guard,
            ty,
            out,
            out_offset,
        ))
    })
}

/// `select-and-scatter`'s first kernel: each source element's selected
/// position (see the module docs).
fn positions_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<LoopKernel> {
    let body = comp.entry();
    let i = body.inst(inst);
    let OpKind::SelectAndScatter { window, select, .. } = &i.kind else {
        return Err(bug("a select-and-scatter step on another op"));
    };
    let (x, source) = (i.operands[0], i.operands[1]);
    let xs = &body.inst(x).shape;
    let x_dims = xs.dims().to_vec();
    let xty = xs.element_type();
    let src_dims = body.inst(source).shape.dims().to_vec();
    let numel: i64 = x_dims.iter().product();
    let s64 = ElementType::S64;
    let mut loops = WindowLoops::new();
    let outs: Vec<Ix> = src_dims.iter().map(|&n| loops.keep(n)).collect();
    let ks: Vec<Ix> = window
        .dimensions
        .iter()
        .map(|w| loops.reduce(w.size))
        .collect();
    loops.finish();
    let out_offset = linear(&outs, &row_major_strides(&src_dims));
    let x_strides = row_major_strides(&x_dims);
    with_ctx(comp, plan, |ctx| {
        let mut g = Graph::new(loops.extents.clone());
        let ext = g.extents.clone();
        let none = const_s64(&mut g, -1);
        let mut index = Vec::with_capacity(x_dims.len());
        let mut conds = Vec::new();
        let mut never = numel == 0;
        for (d, w) in window.dimensions.iter().enumerate() {
            match window_index(&outs[d], &ks[d], w, x_dims[d], &ext) {
                Some((ix, c)) => {
                    index.push(ix);
                    conds.extend(c);
                }
                None => {
                    never = true;
                    index.push(Ix::constant(0));
                }
            }
        }
        let tap = g.add(Node::Iota {
            ty: s64,
            index: linear(&index, &x_strides),
        });
        let (element, value) = if never {
            // No window holds an operand element: nothing is selected.
            let v = g.add(Node::Const { ty: xty, bits: 0 });
            (none, v)
        } else if conds.is_empty() {
            (tap, g.value(ctx, x, index)?)
        } else {
            let v = g.guarded_value(ctx, x, index)?;
            let p = g.add(Node::InBounds { conds });
            let e = g.add(Node::Select {
                ty: s64,
                p,
                a: tap,
                b: none,
            });
            (e, v)
        };
        // The reducer: take the element when it is one and there is no
        // candidate yet or `select(candidate, element)` is false.
        let acc = g.add(Node::Var { ty: s64, slot: 0 });
        let el = g.add(Node::Var { ty: s64, slot: 1 });
        let at = clamped(&mut g, acc, s64, (numel - 1).max(0));
        let cand_index = delinearise(&at, &x_dims, &ext);
        let candidate = g.value(ctx, x, cand_index)?;
        let keep = combine(comp, plan, &mut g, *select, [candidate, value])?;
        let zero = const_s64(&mut g, 0);
        let is_el = binary(
            &mut g,
            BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural),
            s64,
            el,
            zero,
        );
        let empty = binary(
            &mut g,
            BinaryOp::Compare(ComparisonDirection::Lt, ComparisonOrder::Natural),
            s64,
            acc,
            zero,
        );
        let replace = g.add(Node::Unary {
            op: UnaryOp::Not,
            ty: ElementType::Pred,
            x: keep,
        });
        let either = binary(&mut g, BinaryOp::Or, ElementType::Pred, empty, replace);
        let take = binary(&mut g, BinaryOp::And, ElementType::Pred, is_el, either);
        let r = g.add(Node::Select {
            ty: s64,
            p: take,
            a: el,
            b: acc,
        });
        Ok(loops.kernel(
            g,
            element,
            none,
            Reducer::Body(r),
            None,
            s64,
            out,
            out_offset,
        ))
    })
}

/// `select-and-scatter`'s second step: fill with init, then scatter each
/// source value onto its position, in source order.
fn select_scatter_kernels(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
    positions: BufferId,
) -> Result<Vec<LoopKernel>> {
    let body = comp.entry();
    let i = body.inst(inst);
    let OpKind::SelectAndScatter { scatter, .. } = &i.kind else {
        return Err(bug("a select-and-scatter step on another op"));
    };
    let (source, init) = (i.operands[1], i.operands[2]);
    let out_dims = i.shape.dims().to_vec();
    let ty = i.shape.element_type();
    let numel: i64 = out_dims.iter().product();
    // The fill: out[i] = init.
    let scalar = |_: &[Ix], _: &Extents| Vec::new();
    let target = Target {
        out,
        dims: &out_dims,
        ty,
    };
    let mut kernels = loop_kernels(comp, plan, target, init, false, &scalar)?;
    let src_dims = body.inst(source).shape.dims().to_vec();
    if numel == 0 || src_dims.contains(&0) {
        return Ok(kernels);
    }
    let (dims, extents) = loop_dims(&src_dims);
    let s64 = ElementType::S64;
    with_ctx(comp, plan, |ctx| {
        let mut g = Graph::new(extents.clone());
        let index = dim_index(&src_dims, &dims, &extents, &[]);
        let at = linear(&index, &row_major_strides(&src_dims));
        let p = g.add(Node::Load {
            buf: positions,
            ty: s64,
            offset: at,
            numel: src_dims.iter().product(),
            clamp: false,
        });
        let zero = const_s64(&mut g, 0);
        let valid = binary(
            &mut g,
            BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural),
            s64,
            p,
            zero,
        );
        let offset = clamped(&mut g, p, s64, numel - 1);
        let current = g.add(Node::Load {
            buf: out,
            ty,
            offset: offset.clone(),
            numel,
            clamp: false,
        });
        let value = g.value(ctx, source, index)?;
        let combined = combine(comp, plan, &mut g, *scatter, [value, current])?;
        let root = g.add(Node::Select {
            ty,
            p: valid,
            a: combined,
            b: current,
        });
        let order = in_order(&g.extents);
        kernels.push(LoopKernel::single(
            g,
            order,
            None,
            Work::Update {
                root,
                out,
                out_offset: offset,
            },
            ty,
        ));
        Ok(kernels)
    })
}
