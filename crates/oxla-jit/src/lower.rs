//! Lowering: each fusion step becomes a kernel description
//! ([`KernelSpec`] or [`DotSpec`]) with its loop variables chosen.
//!
//! Loop variables are the non-unit dimensions of the iteration space
//! (size-1 dimensions are read at index 0 and need no loop). Adjacent
//! variables whose every index expression strides them as one row-major
//! dimension (`stride_k == stride_{k+1} * n_{k+1}` in every load, guard,
//! iota and the output) are merged into one longer loop: a same-shape
//! elementwise kernel runs as a single flat loop.

use oxla_ir::{
    BinaryOp, Body, Computation, ElementType, Error, InstId, OpKind, Result,
    shape::row_major_strides,
};

use crate::codegen::{DotSpec, KernelSpec, Reducer, Work};
use crate::fusion::{Plan, StepKind};
use crate::graph::{Ctx, Graph, NodeId, Source, delinearise};
use crate::ix::{Ix, Var};

fn backend(message: impl Into<String>) -> Error {
    Error::Backend {
        backend: "jit".into(),
        message: message.into(),
    }
}

fn entry_source(plan: &Plan) -> impl Fn(InstId) -> Option<Source> + '_ {
    |i| plan.materialised.get(&i).map(|&b| Source::Buffer(b))
}

/// Maps a kernel's output index (and the loop extents) to the index its
/// root is read at.
type IndexOf<'a> = &'a dyn Fn(&[Ix], &[i64]) -> Vec<Ix>;

/// Where a loop kernel writes: buffer `out`, row-major over `dims`.
struct Target<'a> {
    out: usize,
    dims: &'a [i64],
    ty: ElementType,
}

/// A loop kernel computing `root` over the target's dims; `index_of` maps
/// the output index to `root`'s index. With `expand_root`, `root` is
/// computed even though it has a buffer (it is the one being written).
fn loop_spec(
    comp: &Computation,
    plan: &Plan,
    target: Target,
    root: InstId,
    expand_root: bool,
    index_of: IndexOf,
) -> Result<KernelSpec> {
    let Target {
        out,
        dims: out_dims,
        ty,
    } = target;
    let source = entry_source(plan);
    let ctx = Ctx {
        body_id: comp.entry_id(),
        body: comp.entry(),
        source: &source,
    };
    let strides = row_major_strides(out_dims);
    // First pass: one variable per non-unit dimension.
    let dims: Vec<usize> = (0..out_dims.len()).filter(|&d| out_dims[d] != 1).collect();
    let extents: Vec<i64> = dims.iter().map(|&d| out_dims[d]).collect();
    let index: Vec<Ix> = dim_index(out_dims, &dims, &extents, &[]);
    let build = |extents: Vec<i64>, index: Vec<Ix>| -> Result<(Graph, NodeId, Ix)> {
        let mut g = Graph::new(extents);
        let ri = index_of(&index, &g.extents);
        let node = if expand_root {
            g.build(&ctx, root, ri)?
        } else {
            g.value(&ctx, root, ri)?
        };
        let mut off = Ix::constant(0);
        for (ix, s) in index.iter().zip(&strides) {
            off = off.add(&ix.scale(*s));
        }
        Ok((g, node, off))
    };
    let (mut graph, mut node, mut out_offset) = build(extents.clone(), index)?;
    // Merge adjacent variables that stride as one.
    let groups = merge_groups(&graph, &[&out_offset], &extents, None);
    if groups.len() < extents.len() {
        let new_extents: Vec<i64> = groups
            .iter()
            .map(|g| g.iter().map(|&v| extents[v]).product())
            .collect();
        let index = dim_index(out_dims, &dims, &new_extents, &groups);
        (graph, node, out_offset) = build(new_extents, index)?;
    }
    let nv = graph.extents.len();
    Ok(KernelSpec {
        graph,
        order: (0..nv as Var).collect(),
        partition: (nv > 0).then_some(0),
        work: Work::Store {
            root: node,
            out,
            out_offset,
        },
        ty,
    })
}

/// The index of each dimension of `out_dims` in terms of the loop
/// variables: `dims` are the non-unit dimensions; `groups` (if not empty)
/// lists which of them each variable covers (merged, row-major).
fn dim_index(out_dims: &[i64], dims: &[usize], extents: &[i64], groups: &[Vec<usize>]) -> Vec<Ix> {
    let mut index = vec![Ix::constant(0); out_dims.len()];
    if groups.is_empty() {
        for (v, &d) in dims.iter().enumerate() {
            index[d] = Ix::var(v as Var);
        }
        return index;
    }
    for (nv, group) in groups.iter().enumerate() {
        let sizes: Vec<i64> = group.iter().map(|&v| out_dims[dims[v]]).collect();
        let parts = delinearise(&Ix::var(nv as Var), &sizes, extents);
        for (k, &v) in group.iter().enumerate() {
            index[dims[v]] = parts[k].clone();
        }
    }
    index
}

/// Consecutive runs of variables (in `0..extents.len()`) that can be
/// merged: every index expression of the graph and every `extra` one
/// strides them as one row-major dimension. `class`, if given, only merges
/// variables of the same class.
fn merge_groups(
    graph: &Graph,
    extra: &[&Ix],
    extents: &[i64],
    class: Option<&[bool]>,
) -> Vec<Vec<usize>> {
    let mut ixs: Vec<&Ix> = extra.to_vec();
    for n in &graph.nodes {
        ixs.extend(n.index_exprs());
    }
    let n = extents.len();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for v in 0..n {
        let joins = v > 0
            && class.is_none_or(|c| c[v] == c[v - 1])
            && ixs.iter().all(|ix| {
                match (
                    ix.affine_coefficient((v - 1) as Var),
                    ix.affine_coefficient(v as Var),
                ) {
                    (Some(a), Some(b)) => a == b.wrapping_mul(extents[v]),
                    _ => false,
                }
            });
        if joins && let Some(last) = groups.last_mut() {
            last.push(v);
            continue;
        }
        groups.push(vec![v]);
    }
    groups
}

/// The kernel of a `dot-operand-copy` step.
fn dot_copy_spec(
    comp: &Computation,
    plan: &Plan,
    out: usize,
    source: InstId,
    groups: &[Vec<usize>; 3],
) -> Result<KernelSpec> {
    let shape = &comp.entry().inst(source).shape;
    let dims = shape.dims().to_vec();
    let sizes: Vec<i64> = groups
        .iter()
        .map(|g| g.iter().map(|&d| dims[d]).product())
        .collect();
    let rank = dims.len();
    let groups = groups.clone();
    let index_of = move |canon: &[Ix], ext: &[i64]| -> Vec<Ix> {
        let mut idx = vec![Ix::constant(0); rank];
        for (g, group) in groups.iter().enumerate() {
            let gs: Vec<i64> = group.iter().map(|&d| dims[d]).collect();
            let parts = delinearise(&canon[g], &gs, ext);
            for (k, &d) in group.iter().enumerate() {
                idx[d] = parts[k].clone();
            }
        }
        idx
    };
    let target = Target {
        out,
        dims: &sizes,
        ty: shape.element_type(),
    };
    loop_spec(comp, plan, target, source, false, &index_of)
}

/// Recognises a reducer that is one commutative, associative op of its
/// two parameters.
fn reducer_op(body: &Body) -> Option<BinaryOp> {
    let root = body.root_inst();
    let OpKind::Binary {
        op,
        broadcast_dimensions,
    } = &root.kind
    else {
        return None;
    };
    if !broadcast_dimensions.is_empty()
        || !matches!(
            op,
            BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::Max
                | BinaryOp::Min
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
        )
    {
        return None;
    }
    let nums: Vec<i64> = root
        .operands
        .iter()
        .filter_map(|&o| match body.inst(o).kind {
            OpKind::Parameter { number } => Some(number),
            _ => None,
        })
        .collect();
    (nums == [0, 1] || nums == [1, 0]).then_some(*op)
}

/// The kernel of a `reduce` step.
fn reduce_spec(comp: &Computation, plan: &Plan, out: usize, inst: InstId) -> Result<KernelSpec> {
    let body = comp.entry();
    let ri = body.inst(inst);
    let OpKind::Reduce {
        dimensions,
        to_apply,
    } = &ri.kind
    else {
        return Err(backend("reduce step on a non-reduce"));
    };
    let x_inst = ri.operands[0];
    let init_inst = ri.operands[1];
    let xdims = body.inst(x_inst).shape.dims().to_vec();
    let ty = ri.shape.element_type();
    let reduced = |d: usize| dimensions.contains(&(d as i64));
    let dims: Vec<usize> = (0..xdims.len()).filter(|&d| xdims[d] != 1).collect();
    let extents: Vec<i64> = dims.iter().map(|&d| xdims[d]).collect();
    let kept: Vec<bool> = dims.iter().map(|&d| !reduced(d)).collect();
    // Output offset over the kept variables.
    let out_strides = row_major_strides(ri.shape.dims());
    let kept_dims: Vec<usize> = (0..xdims.len()).filter(|&d| !reduced(d)).collect();
    let mut out_offset = Ix::constant(0);
    for (v, &d) in dims.iter().enumerate() {
        if !reduced(d) {
            let pos = kept_dims.iter().position(|&k| k == d).unwrap_or(0);
            out_offset = out_offset.add(&Ix::var(v as Var).scale(out_strides[pos]));
        }
    }
    let mut index = vec![Ix::constant(0); xdims.len()];
    for (v, &d) in dims.iter().enumerate() {
        index[d] = Ix::var(v as Var);
    }
    let source = entry_source(plan);
    let ctx = Ctx {
        body_id: comp.entry_id(),
        body,
        source: &source,
    };
    let mut graph = Graph::new(extents.clone());
    let x = graph.value(&ctx, x_inst, index)?;
    let init = graph.value(&ctx, init_inst, vec![])?;
    let rbody = comp.body(*to_apply);
    let called = &plan.called_constants;
    let reducer_ctx_source = |slots: [Source; 2]| {
        move |i: InstId| match rbody.inst(i).kind {
            OpKind::Parameter { number } => slots.get(number as usize).copied(),
            OpKind::Constant { .. } => called.get(&(to_apply.0, i)).map(|&b| Source::Buffer(b)),
            _ => None,
        }
    };
    let n_reduced = kept.iter().filter(|k| !**k).count();
    if n_reduced == 0 {
        // Nothing to fold over: out = reducer(init, x) elementwise.
        let src = reducer_ctx_source([Source::Node(init), Source::Node(x)]);
        let rctx = Ctx {
            body_id: *to_apply,
            body: rbody,
            source: &src,
        };
        let root = graph.value(&rctx, rbody.root, vec![])?;
        let nv = extents.len();
        return Ok(KernelSpec {
            graph,
            order: (0..nv as Var).collect(),
            partition: (nv > 0).then_some(0),
            work: Work::Store {
                root,
                out,
                out_offset,
            },
            ty,
        });
    }
    let reducer = match reducer_op(rbody) {
        Some(op) => Reducer::Op(op),
        None => {
            let src = reducer_ctx_source([Source::Var(0), Source::Var(1)]);
            let rctx = Ctx {
                body_id: *to_apply,
                body: rbody,
                source: &src,
            };
            Reducer::Body(graph.value(&rctx, rbody.root, vec![])?)
        }
    };
    let nv = extents.len();
    let kept_vars: Vec<Var> = (0..nv).filter(|&v| kept[v]).map(|v| v as Var).collect();
    let red_vars: Vec<Var> = (0..nv).filter(|&v| !kept[v]).map(|v| v as Var).collect();
    let last_kept = kept[nv - 1];
    let (order, work, partition) = if !last_kept {
        let k = kept_vars.len();
        let mut order = kept_vars.clone();
        order.extend(&red_vars);
        (
            order,
            Work::Row {
                x,
                init,
                reducer,
                out,
                out_offset,
                first_reduced: k,
            },
            (k > 0).then_some(0),
        )
    } else {
        let k = kept_vars.len();
        let mut order: Vec<Var> = kept_vars[..k - 1].to_vec();
        order.extend(&red_vars);
        order.push(kept_vars[k - 1]);
        let partition = if k > 1 { 0 } else { order.len() - 1 };
        (
            order,
            Work::Col {
                x,
                init,
                reducer,
                out,
                out_offset,
                first_reduced: k - 1,
            },
            Some(partition),
        )
    };
    Ok(KernelSpec {
        graph,
        order,
        partition,
        work,
        ty,
    })
}

/// The spec of every step, in order (`None` for steps with nothing to
/// compute).
pub(crate) enum Lowered {
    Loop(KernelSpec),
    Dot(DotSpec),
    Empty,
}

/// Lowers step `k` of `plan`.
pub(crate) fn lower_step(comp: &Computation, plan: &Plan, k: usize) -> Result<Lowered> {
    let step = &plan.steps[k];
    let out_shape = &plan.buffers[step.out].shape;
    if out_shape.element_count() == 0 {
        return Ok(Lowered::Empty);
    }
    let body = comp.entry();
    Ok(match &step.kind {
        StepKind::Loop { root } => {
            let id = |i: &[Ix], _: &[i64]| i.to_vec();
            let target = Target {
                out: step.out,
                dims: out_shape.dims(),
                ty: out_shape.element_type(),
            };
            Lowered::Loop(loop_spec(comp, plan, target, *root, true, &id)?)
        }
        StepKind::DotCopy { source, groups } => {
            Lowered::Loop(dot_copy_spec(comp, plan, step.out, *source, groups)?)
        }
        StepKind::Reduce { inst } => Lowered::Loop(reduce_spec(comp, plan, step.out, *inst)?),
        StepKind::Dot {
            inst,
            lhs,
            rhs,
            sizes,
        } => Lowered::Dot(DotSpec {
            ty: body.inst(*inst).shape.element_type(),
            lhs: (lhs.buf, lhs.strides),
            rhs: (rhs.buf, rhs.strides),
            out: step.out,
            batch: sizes.batch,
            m: sizes.m,
            k: sizes.k,
            n: sizes.n,
        }),
    })
}

/// The partition extent of a kernel (1 without a partition loop).
pub(crate) fn partition_extent(spec: &KernelSpec) -> i64 {
    spec.partition
        .map(|d| spec.graph.extents[spec.order[d] as usize])
        .unwrap_or(1)
}

/// Elements visited per partition step (the work below one iteration of
/// the partition loop).
pub(crate) fn work_per_step(spec: &KernelSpec) -> i64 {
    let total: i64 = spec.graph.extents.iter().product::<i64>().max(1);
    total / partition_extent(spec).max(1)
}
