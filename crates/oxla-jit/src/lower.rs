//! Lowering: each fusion step becomes kernel descriptions
//! ([`LoopKernel`], [`DotKernel`]) with their loop variables chosen.
//!
//! Loop variables are the non-unit dimensions of the iteration space
//! (size-1 dimensions are read at index 0 and need no loop). Adjacent
//! variables whose every index expression strides them as one row-major
//! dimension (`stride_k == stride_{k+1} * n_{k+1}` in every load, guard,
//! iota and the output) are merged into one longer loop: a same-shape
//! elementwise kernel runs as a single flat loop. A loop kernel whose
//! guards flip along its innermost loop is split into stretches
//! ([`split_points`]); a transposing one is tiled ([`tile_plan`]).
//!
//! Lowering decides how a step runs, never whether: it is total for
//! whatever fusion emits. Row groups in particular were decided by fusion
//! (`fusion::row_groups`), which checked their reads; lowering only lays
//! out their loops. Its errors are the graph builder's (a kernel past the
//! node budget, folds nested too deep) and internal ones.

use oxla_ir::{
    BinaryOp, Body, Computation, ComputationId, ElementType, Error, InstId, OpKind, Result,
    shape::row_major_strides,
};

use crate::entity::{BufferId, IdVec, LoopVar, NodeId};
use crate::error::{Stage, internal};
use crate::fusion::{InitLeaf, KeepPlan, Plan, RowSpace, Step, StepKind, pass_source};
use crate::graph::{Ctx, Graph, Node, Source, delinearise};
use crate::ix::{Extents, Ix};
use crate::kernel::{Acc, DotKernel, KeptValue, KernelDesc, LoopKernel, Pass, Reducer, Work};

mod conv;
mod loop_group;
mod ops;
mod sort;

pub(crate) use loop_group::groups_as_one;

/// An internal error of lowering.
fn bug(message: impl Into<String>) -> Error {
    internal(Stage::Lowering, message)
}

fn entry_source(plan: &Plan) -> impl Fn(InstId) -> Option<Source> + '_ {
    |i| plan.materialised.get(&i).map(|&b| Source::Buffer(b))
}

/// Maps a kernel's output index (and the loop extents) to the index its
/// root is read at.
type IndexOf<'a> = &'a dyn Fn(&[Ix], &Extents) -> Vec<Ix>;

/// Where a loop kernel writes: buffer `out`, row-major over `dims`.
struct Target<'a> {
    out: BufferId,
    dims: &'a [i64],
    ty: ElementType,
}

/// One loop variable per non-unit dimension of `dims`: the dimension each
/// variable walks, and the extents.
fn loop_dims(dims: &[i64]) -> (IdVec<LoopVar, usize>, Extents) {
    let walked: IdVec<LoopVar, usize> = (0..dims.len()).filter(|&d| dims[d] != 1).collect();
    let extents: Extents = walked.values().map(|&d| dims[d]).collect();
    (walked, extents)
}

/// Every loop variable of `extents`, in order.
fn in_order(extents: &Extents) -> Vec<LoopVar> {
    extents.keys().collect()
}

/// A loop kernel computing `root` over the target's dims; `index_of` maps
/// the output index to `root`'s index. With `expand_root`, `root` is
/// computed even though it has a buffer (it is the one being written).
fn loop_kernels(
    comp: &Computation,
    plan: &Plan,
    target: Target,
    root: InstId,
    expand_root: bool,
    index_of: IndexOf,
) -> Result<Vec<LoopKernel>> {
    let Target {
        out,
        dims: out_dims,
        ty,
    } = target;
    let source = entry_source(plan);
    let ctx = Ctx {
        body_id: comp.entry_id(),
        comp,
        called: &plan.called_constants,
        source: &source,
    };
    let strides = row_major_strides(out_dims);
    // First pass: one variable per non-unit dimension.
    let (dims, extents) = loop_dims(out_dims);
    let index: Vec<Ix> = dim_index(out_dims, &dims, &extents, &[]);
    let build = |extents: Extents, index: Vec<Ix>| -> Result<(Graph, NodeId, Ix)> {
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
    let (mut graph, mut node, mut out_offset) = build(extents.clone(), index.clone())?;
    let spec = |graph: Graph, node: NodeId, out_offset: Ix| {
        let nv = graph.extents.len();
        let order = in_order(&graph.extents);
        LoopKernel::single(
            graph,
            order,
            (nv > 0).then_some(0),
            Work::Store {
                root: node,
                out,
                out_offset,
            },
            ty,
        )
    };
    // Merge adjacent variables that stride as one.
    let groups = merge_groups(&graph, &[&out_offset], &extents, None);
    let total: i64 = extents.values().product();
    let points = if groups.len() == extents.len() && expand_root && total >= SPLIT_MIN_ELEMENTS {
        split_points(&graph, &extents)
    } else {
        None
    };
    if let Some(points) = points {
        // Guards that flip along the innermost loop: one kernel per stretch
        // (see `split_points`).
        let q = LoopVar::new(extents.len() - 1);
        let mut pieces = Vec::with_capacity(points.len() + 1);
        let bounds: Vec<i64> = std::iter::once(0)
            .chain(points)
            .chain(std::iter::once(extents[q]))
            .collect();
        for w in bounds.windows(2) {
            let mut piece_extents = extents.clone();
            piece_extents[q] = w[1] - w[0];
            let mut piece_index = index.clone();
            piece_index[dims[q]] = Ix::var(q).add_constant(w[0]);
            let (g, n, o) = build(piece_extents, piece_index)?;
            pieces.push(spec(g, n, o));
        }
        return Ok(pieces);
    }
    if groups.len() < extents.len() {
        let new_extents = merged_extents(&groups, &extents);
        let index = dim_index(out_dims, &dims, &new_extents, &groups);
        (graph, node, out_offset) = build(new_extents, index)?;
    } else if let Some(tiles) = tile_plan(&graph, &extents) {
        // A transposing read: tile two loops (see `tile_plan`).
        let (tiled_extents, index) = tiled_index(out_dims, &dims, &extents, tiles);
        let (g, n, o) = build(tiled_extents, index)?;
        if all_affine(&g, &o) {
            (graph, node, out_offset) = (g, n, o);
        }
    }
    Ok(vec![spec(graph, node, out_offset)])
}

/// The extents of merged variables: each group's product.
fn merged_extents(groups: &[Vec<LoopVar>], extents: &Extents) -> Extents {
    groups
        .iter()
        .map(|g| g.iter().map(|&v| extents[v]).product())
        .collect()
}

/// Loop kernels with fewer elements are never split by `split_points`.
const SPLIT_MIN_ELEMENTS: i64 = 1 << 14;
/// At most this many stretches per split kernel (each is compiled).
const SPLIT_MAX_PIECES: usize = 8;

/// Where to cut the innermost loop `q` so that no guard (a `pad`'s or a
/// `concatenate`'s, which select between operands per element) changes
/// value inside a stretch: the points where a `lo <= ±q + c < hi`
/// condition flips. Cut there, each stretch's graph is built with `q`
/// confined to it, so the index ranges settle every such guard (a
/// concatenate reads one operand, a pad's border is all padding or all
/// operand), and the loop vectorises. `None` when no guard varies along
/// `q`, when one varies in a way this does not resolve (with other loop
/// variables, a stride other than ±1, interior padding), or when it would
/// take more than [`SPLIT_MAX_PIECES`] stretches.
fn split_points(graph: &Graph, extents: &Extents) -> Option<Vec<i64>> {
    use crate::graph::{Cond, Node};
    use crate::ix::Atom;
    let q = LoopVar::new(extents.len().checked_sub(1)?);
    let n = extents[q];
    let mut points = Vec::new();
    for node in graph.nodes.values() {
        let Node::InBounds { conds } = node else {
            continue;
        };
        for c in conds {
            let ix = match c {
                Cond::Range { ix, .. } | Cond::Divisible { ix, .. } => ix,
            };
            let coef = ix.affine_coefficient(q)?;
            if coef == 0 {
                continue;
            }
            let Cond::Range { lo, hi, .. } = c else {
                return None;
            };
            let only_q = ix.terms().len() == 1 && ix.terms()[0].0 == Atom::Var(q);
            if !only_q {
                return None;
            }
            let k = ix.constant_part();
            // lo <= coef*q + k < hi, as q in [a, b).
            let (a, b) = match coef {
                1 => (lo.checked_sub(k)?, hi.checked_sub(k)?),
                -1 => (
                    k.checked_sub(*hi)?.checked_add(1)?,
                    k.checked_sub(*lo)?.checked_add(1)?,
                ),
                _ => return None,
            };
            points.extend([a, b].into_iter().filter(|&p| p > 0 && p < n));
        }
    }
    points.sort_unstable();
    points.dedup();
    (!points.is_empty() && points.len() < SPLIT_MAX_PIECES).then_some(points)
}

/// Tile sizes for loop `p` (the input's contiguous dimension), largest
/// first: long runs along the input's rows.
const TILE_P: [i64; 5] = [128, 64, 32, 16, 8];
/// Tile sizes for the innermost loop `q` (the output's contiguous
/// dimension), largest first. Its input rows are a whole row apart, often
/// a multiple of 4 KiB, so they all map to one L1 set: more than 8 of them
/// (the associativity) evict each other.
const TILE_Q: [i64; 2] = [8, 4];

/// Two loops to tile and their tile sizes (see [`tile_plan`]).
#[derive(Clone, Copy)]
struct Tiles {
    /// The loop the input is contiguous along, and its tile size.
    p: LoopVar,
    tp: i64,
    /// The innermost loop (the output is contiguous along it), and its
    /// tile size.
    q: LoopVar,
    tq: i64,
}

/// How to tile a transposing loop nest: loops `(p, q)` and tile sizes
/// `(tp, tq)`, when some load reads the innermost loop `q` with a stride
/// other than 0 or 1 (a transpose: consecutive output elements lie a row
/// apart in the input) and an outer loop `p` with stride 1. Run as is,
/// every element of such a read touches a new cache line (and, for long
/// rows, a new page), evicted before its neighbours are read. Tiled, the
/// two innermost loops walk a `tp × tq` block: `tq` input rows read `tp`
/// consecutive elements each, and the output's `tp` rows get `tq`
/// consecutive elements, completed by the next block along `q` while they
/// are still in cache. Each extent must hold at least two tiles.
///
/// Measured on the AMD VM, 2 threads, f32 transpose: 4096² from 77 to
/// 8 ms, 1024² from 2.4 to 0.6 ms (XLA: 40 and 0.47 ms allocating; 106 and
/// 2.5 ms for `transpose(x) + 1`). Square 32 × 32 tiles took 25 ms: their
/// 32 input rows 16 KiB apart thrash one L1 set.
fn tile_plan(graph: &Graph, extents: &Extents) -> Option<Tiles> {
    let q = LoopVar::new(extents.len().checked_sub(1)?);
    let tq = TILE_Q
        .into_iter()
        .find(|&t| extents[q] % t == 0 && extents[q] >= 2 * t)?;
    graph.nodes.values().find_map(|n| {
        let crate::graph::Node::Load { offset, .. } = n else {
            return None;
        };
        let cq = offset.affine_coefficient(q)?;
        if cq == 0 || cq == 1 {
            return None;
        }
        extents.keys().take(q.index()).find_map(|p| {
            if offset.affine_coefficient(p) != Some(1) {
                return None;
            }
            let tp = TILE_P
                .into_iter()
                .find(|&t| extents[p] % t == 0 && extents[p] >= 2 * t)?;
            Some(Tiles { p, tp, q, tq })
        })
    })
}

/// Extents and output index of the tiled nest: loop `p` becomes a block
/// loop `p` (`extent / tp`) and a tile loop `nv`, loop `q` a block loop
/// `q` and a tile loop `nv + 1`; the two tile loops are innermost.
fn tiled_index(
    out_dims: &[i64],
    dims: &IdVec<LoopVar, usize>,
    extents: &Extents,
    Tiles { p, tp, q, tq }: Tiles,
) -> (Extents, Vec<Ix>) {
    let mut tiled = extents.clone();
    tiled[p] /= tp;
    tiled[q] /= tq;
    let p_tile = tiled.push(tp);
    let q_tile = tiled.push(tq);
    let mut index = vec![Ix::constant(0); out_dims.len()];
    for (v, &d) in dims.iter() {
        index[d] = if v == p {
            Ix::var(v).scale(tp).add(&Ix::var(p_tile))
        } else if v == q {
            Ix::var(v).scale(tq).add(&Ix::var(q_tile))
        } else {
            Ix::var(v)
        };
    }
    (tiled, index)
}

/// Whether every index expression of `graph` (and `extra`) is affine in
/// every loop variable.
fn all_affine(graph: &Graph, extra: &Ix) -> bool {
    std::iter::once(extra)
        .chain(graph.nodes.values().flat_map(|n| n.index_exprs()))
        .all(|ix| {
            graph
                .extents
                .keys()
                .all(|v| ix.affine_coefficient(v).is_some())
        })
}

/// The index of each dimension of `out_dims` in terms of the loop
/// variables: `dims` gives the dimension each first-pass variable walks;
/// `groups` (if not empty) lists which of those each (merged) variable
/// covers, row-major.
fn dim_index(
    out_dims: &[i64],
    dims: &IdVec<LoopVar, usize>,
    extents: &Extents,
    groups: &[Vec<LoopVar>],
) -> Vec<Ix> {
    let mut index = vec![Ix::constant(0); out_dims.len()];
    if groups.is_empty() {
        for (v, &d) in dims.iter() {
            index[d] = Ix::var(v);
        }
        return index;
    }
    for (merged, group) in groups.iter().enumerate() {
        let sizes: Vec<i64> = group.iter().map(|&v| out_dims[dims[v]]).collect();
        let parts = delinearise(&Ix::var(LoopVar::new(merged)), &sizes, extents);
        for (k, &v) in group.iter().enumerate() {
            index[dims[v]] = parts[k].clone();
        }
    }
    index
}

/// Consecutive runs of variables that can be merged: every index
/// expression of the graph and every `extra` one strides them as one
/// row-major dimension. `class`, if given, only merges variables of the
/// same class.
fn merge_groups(
    graph: &Graph,
    extra: &[&Ix],
    extents: &Extents,
    class: Option<&IdVec<LoopVar, bool>>,
) -> Vec<Vec<LoopVar>> {
    let mut ixs: Vec<&Ix> = extra.to_vec();
    for n in graph.nodes.values() {
        ixs.extend(n.index_exprs());
    }
    let mut groups: Vec<Vec<LoopVar>> = Vec::new();
    let mut prev: Option<LoopVar> = None;
    for v in extents.keys() {
        let joins = prev.is_some_and(|u| {
            class.is_none_or(|c| c[v] == c[u])
                && ixs.iter().all(
                    |ix| match (ix.affine_coefficient(u), ix.affine_coefficient(v)) {
                        (Some(a), Some(b)) => a == b.wrapping_mul(extents[v]),
                        _ => false,
                    },
                )
        });
        prev = Some(v);
        if joins && let Some(last) = groups.last_mut() {
            last.push(v);
            continue;
        }
        groups.push(vec![v]);
    }
    groups
}

/// The kernel of a `dot-operand-copy` step: `source` in canonical order,
/// converted to `ty` (the dot's compute type) where it has another type.
fn dot_copy_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    source: InstId,
    groups: &[Vec<usize>; 3],
    ty: ElementType,
) -> Result<LoopKernel> {
    let shape = &comp.entry().inst(source).shape;
    let dims = shape.dims().to_vec();
    let sizes: Vec<i64> = groups
        .iter()
        .map(|g| g.iter().map(|&d| dims[d]).product())
        .collect();
    let rank = dims.len();
    let groups = groups.clone();
    let index_of = move |canon: &[Ix], ext: &Extents| -> Vec<Ix> {
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
    let from = shape.element_type();
    let mut specs = loop_kernels(comp, plan, target, source, false, &index_of)?;
    let mut spec = specs
        .pop()
        .ok_or_else(|| bug("a dot operand copy lowered to no kernel"))?;
    if from != ty {
        for pass in &mut spec.passes {
            let Work::Store { root, .. } = &mut pass.work else {
                return Err(bug("a dot operand copy that is not a store"));
            };
            *root = spec.graph.add(Node::Convert {
                from,
                to: ty,
                x: *root,
            });
            pass.value_type = ty;
        }
    }
    Ok(spec)
}

/// Recognises a reducer that is one commutative, associative op of its
/// two parameters.
fn reducer_op(body: &Body) -> Option<BinaryOp> {
    body.binary_reducer()
        .map(|r| r.op)
        .filter(|op| op.is_commutative_associative())
}

/// How a reducer body's parameters and constants are found: parameter `k`
/// is `slots[k]`, a non-scalar constant its buffer. Only these leaves are
/// found; every other op of the body is computed.
fn reducer_source<'a>(
    rbody: &'a Body,
    to_apply: ComputationId,
    called: &'a std::collections::HashMap<(ComputationId, InstId), BufferId>,
    slots: impl AsRef<[Source]> + 'a,
) -> impl Fn(InstId) -> Option<Source> + 'a {
    move |i: InstId| {
        let kind = &rbody.inst(i).kind;
        if let OpKind::Parameter { number } = *kind {
            slots.as_ref().get(number as usize).copied()
        } else if let OpKind::Constant { .. } = kind {
            called.get(&(to_apply, i)).map(|&b| Source::Buffer(b))
        } else {
            None
        }
    }
}

/// The reducer of a reduce with body `to_apply`: one op, or the body's
/// nodes over `Var` slots 0 (accumulator) and 1 (element).
fn reducer_of(
    comp: &Computation,
    plan: &Plan,
    graph: &mut Graph,
    to_apply: ComputationId,
) -> Result<Reducer> {
    let rbody = comp.body(to_apply);
    Ok(match reducer_op(rbody) {
        Some(op) => Reducer::Op(op),
        None => {
            let src = reducer_source(
                rbody,
                to_apply,
                &plan.called_constants,
                [Source::Var(0), Source::Var(1)],
            );
            let rctx = Ctx {
                body_id: to_apply,
                comp,
                called: &plan.called_constants,
                source: &src,
            };
            Reducer::Body(graph.value(&rctx, rbody.root, vec![])?)
        }
    })
}

/// The new values of a variadic reducer's accumulators: the leaves of
/// its root tuple, built over `Var` slots (accumulators `0..n`, then
/// elements `n..2n`: the reducer's parameters in order).
fn reducer_roots(
    comp: &Computation,
    plan: &Plan,
    graph: &mut Graph,
    to_apply: ComputationId,
    slots: &[Source],
) -> Result<Vec<NodeId>> {
    let rbody = comp.body(to_apply);
    let called = &plan.called_constants;
    let src = reducer_source(rbody, to_apply, called, slots);
    let rctx = Ctx {
        body_id: to_apply,
        comp,
        called,
        source: &src,
    };
    let leaves = crate::fusion::tuples::value_trees(rbody)[rbody.root.index()].flat();
    leaves
        .into_iter()
        .map(|s| match s {
            crate::fusion::tuples::Sym::Inst(r) => graph.value(&rctx, r, vec![]),
            crate::fusion::tuples::Sym::Part(..) => Err(bug(format!(
                "the reducer `{}` returns an element of a tuple parameter",
                rbody.name
            ))),
        })
        .collect()
}

/// The kernels of a `reduce` step: `outs` are its result buffers (one, or
/// one per input of a variadic reduce). Every input is read at the same
/// index; with several, each keeps an accumulator of its own and the
/// reducer body updates them all at once.
fn reduce_kernels(
    comp: &Computation,
    plan: &Plan,
    outs: &[BufferId],
    inst: InstId,
) -> Result<Vec<LoopKernel>> {
    let body = comp.entry();
    let ri = body.inst(inst);
    let OpKind::Reduce {
        dimensions,
        to_apply,
    } = &ri.kind
    else {
        return Err(bug("reduce step on a non-reduce"));
    };
    let n = ri.operands.len() / 2;
    let variadic = ri.shape.is_tuple();
    if n == 0 || outs.len() != n || (!variadic && n != 1) {
        return Err(bug(format!(
            "reduce `{}` of {} operands with {} output buffers",
            ri.name,
            ri.operands.len(),
            outs.len()
        )));
    }
    let out_shape = &plan.buffers[outs[0]].shape;
    let xdims = body.inst(ri.operands[0]).shape.dims().to_vec();
    let ty = out_shape.element_type();
    let reduced = |d: usize| dimensions.contains(&(d as i64));
    let (dims, extents) = loop_dims(&xdims);
    let kept: IdVec<LoopVar, bool> = dims.values().map(|&d| !reduced(d)).collect();
    // Output offset over the kept variables.
    let out_strides = row_major_strides(out_shape.dims());
    let kept_dims: Vec<usize> = (0..xdims.len()).filter(|&d| !reduced(d)).collect();
    let mut out_offset = Ix::constant(0);
    for (v, &d) in dims.iter() {
        if !reduced(d) {
            let pos = kept_dims.iter().position(|&k| k == d).unwrap_or(0);
            out_offset = out_offset.add(&Ix::var(v).scale(out_strides[pos]));
        }
    }
    let mut index = vec![Ix::constant(0); xdims.len()];
    for (v, &d) in dims.iter() {
        index[d] = Ix::var(v);
    }
    let source = entry_source(plan);
    let ctx = Ctx {
        body_id: comp.entry_id(),
        comp,
        called: &plan.called_constants,
        source: &source,
    };
    let build = || -> Result<(Graph, Vec<NodeId>, Vec<NodeId>)> {
        let mut graph = Graph::new(extents.clone());
        let mut xs = Vec::with_capacity(n);
        let mut inits = Vec::with_capacity(n);
        for k in 0..n {
            xs.push(graph.value(&ctx, ri.operands[k], index.clone())?);
        }
        for k in 0..n {
            inits.push(graph.value(&ctx, ri.operands[n + k], vec![])?);
        }
        Ok((graph, xs, inits))
    };
    let n_reduced = kept.values().filter(|k| !**k).count();
    let nv = extents.len();
    if xdims.iter().enumerate().any(|(d, &e)| e == 0 && reduced(d)) {
        // An empty reduced dim (with no empty kept one: the output is not
        // empty): every output element is its init, and no element is
        // read (a loop of zero trips around loads the verifier would have
        // to prove unreachable).
        let out_vars: Extents = out_shape
            .dims()
            .iter()
            .filter(|&&e| e != 1)
            .copied()
            .collect();
        let mut offset = Ix::constant(0);
        let mut v = 0;
        for (&e, &st) in out_shape.dims().iter().zip(&out_strides) {
            if e != 1 {
                offset = offset.add(&Ix::var(LoopVar::new(v)).scale(st));
                v += 1;
            }
        }
        let mut kernels = Vec::with_capacity(n);
        for (k, &out) in outs.iter().enumerate() {
            let mut graph = Graph::new(out_vars.clone());
            let root = graph.value(&ctx, ri.operands[n + k], vec![])?;
            kernels.push(LoopKernel::single(
                graph,
                in_order(&out_vars),
                (out_vars.len() > 0).then_some(0),
                Work::Store {
                    root,
                    out,
                    out_offset: offset.clone(),
                },
                plan.buffers[out].shape.element_type(),
            ));
        }
        return Ok(kernels);
    }
    if n_reduced == 0 {
        // Nothing to fold over: out = reducer(init, x) elementwise (one
        // kernel per output of a variadic reduce).
        let mut kernels = Vec::with_capacity(n);
        for (k, &out) in outs.iter().enumerate() {
            let (mut graph, xs, inits) = build()?;
            let slots: Vec<Source> = inits.iter().chain(&xs).map(|&v| Source::Node(v)).collect();
            let root = if variadic {
                reducer_roots(comp, plan, &mut graph, *to_apply, &slots)?
                    .get(k)
                    .copied()
                    .ok_or_else(|| {
                        bug(format!("the reducer of `{}` has too few results", ri.name))
                    })?
            } else {
                let rbody = comp.body(*to_apply);
                let called = &plan.called_constants;
                let src = reducer_source(rbody, *to_apply, called, [slots[0], slots[1]]);
                let rctx = Ctx {
                    body_id: *to_apply,
                    comp,
                    called,
                    source: &src,
                };
                graph.value(&rctx, rbody.root, vec![])?
            };
            kernels.push(LoopKernel::single(
                graph,
                in_order(&extents),
                (nv > 0).then_some(0),
                Work::Store {
                    root,
                    out,
                    out_offset: out_offset.clone(),
                },
                plan.buffers[out].shape.element_type(),
            ));
        }
        return Ok(kernels);
    }
    let (mut graph, xs, inits) = build()?;
    let (reducer, more) = if variadic {
        let slots: Vec<Source> = (0..2 * n).map(|k| Source::Var(k as u16)).collect();
        let roots = reducer_roots(comp, plan, &mut graph, *to_apply, &slots)?;
        let more = (1..n)
            .map(|k| Acc {
                element: xs[k],
                init: inits[k],
                combine: roots[k],
                out: outs[k],
                ty: plan.buffers[outs[k]].shape.element_type(),
            })
            .collect();
        (Reducer::Body(roots[0]), more)
    } else {
        (reducer_of(comp, plan, &mut graph, *to_apply)?, vec![])
    };
    let (x, init, out) = (xs[0], inits[0], outs[0]);
    let kept_vars: Vec<LoopVar> = extents.keys().filter(|&v| kept[v]).collect();
    let red_vars: Vec<LoopVar> = extents.keys().filter(|&v| !kept[v]).collect();
    let last_kept = kept.values().last().copied().unwrap_or(true);
    let (order, work, partition) = if !last_kept {
        let k = kept_vars.len();
        let mut order = kept_vars.clone();
        order.extend(&red_vars);
        (
            order,
            Work::RowReduce {
                element: x,
                init,
                reducer,
                out,
                out_offset,
                first_reduced: k,
                more,
            },
            (k > 0).then_some(0),
        )
    } else {
        let k = kept_vars.len();
        let mut order: Vec<LoopVar> = kept_vars[..k - 1].to_vec();
        order.extend(&red_vars);
        order.push(kept_vars[k - 1]);
        let partition = if k > 1 { 0 } else { order.len() - 1 };
        (
            order,
            Work::ColumnReduce {
                element: x,
                init,
                reducer,
                out,
                out_offset,
                first_reduced: k - 1,
                more,
            },
            Some(partition),
        )
    };
    Ok(vec![LoopKernel::single(graph, order, partition, work, ty)])
}

// ---------------------------------------------------------------------
// Row groups
// ---------------------------------------------------------------------

/// The passes of a row group built over one choice of loop variables.
struct GroupBuild {
    graph: Graph,
    passes: Vec<Pass>,
}

/// Builds every pass of `members` at `index` (the row space's index in
/// terms of the loop variables, which have `extents`; the first `n_rows`
/// are the row loops). `None` when, with these loop variables, a pass's
/// read of a buffer the group writes does not show up at the element (or
/// row) it was written at, or the kept value is not found at the current
/// element: fusion checked both on the unmerged variables
/// (`fusion::row_groups`), so `None` only ever answers a merged layout.
#[allow(clippy::too_many_arguments, reason = "one row group and one layout")]
fn build_group(
    comp: &Computation,
    plan: &Plan,
    space: &RowSpace,
    members: &[Step],
    keep: Option<KeepPlan>,
    extents: Extents,
    index: &[Ix],
    n_rows: usize,
) -> Result<Option<GroupBuild>> {
    let body = comp.entry();
    let body_id = comp.entry_id();
    let element = space.element_offset(index);
    let row_index = space.row_index(index);
    let row = space.row_offset(index);
    let mut graph = Graph::new(extents);
    let mut passes = Vec::with_capacity(members.len());
    // Where each buffer written in the group may be read: (buffer, offset).
    let mut written: Vec<(BufferId, Ix)> = Vec::new();
    for (m, step) in members.iter().enumerate() {
        let source = pass_source(plan, keep, m);
        let ctx = Ctx {
            body_id,
            comp,
            called: &plan.called_constants,
            source: &source,
        };
        graph.forget_instructions();
        let out_shape = &plan.buffers[step.out].shape;
        let per_row =
            matches!(step.kind, StepKind::Loop { .. }) && space.is_row_pass(out_shape.dims());
        let work = match step.kind {
            StepKind::Loop { root } => {
                let (at, offset) = if per_row {
                    (row_index.clone(), row.clone())
                } else {
                    (index.to_vec(), element.clone())
                };
                Work::Store {
                    root: graph.build(&ctx, root, at)?,
                    out: step.out,
                    out_offset: offset,
                }
            }
            StepKind::Reduce { inst } => {
                let ri = body.inst(inst);
                let OpKind::Reduce { to_apply, .. } = &ri.kind else {
                    return Err(bug("a row-group reduce pass on a non-reduce"));
                };
                let x = graph.value(&ctx, ri.operands[0], index.to_vec())?;
                let init = graph.value(&ctx, ri.operands[1], vec![])?;
                let reducer = reducer_of(comp, plan, &mut graph, *to_apply)?;
                // Every reduce of the group reduces the row space's reduced
                // dims: its result is one value per row.
                Work::RowReduce {
                    element: x,
                    init,
                    reducer,
                    out: step.out,
                    out_offset: row.clone(),
                    first_reduced: n_rows,
                    more: vec![],
                }
            }
            StepKind::DotCopy { .. }
            | StepKind::Dot { .. }
            | StepKind::RowGroup { .. }
            | StepKind::LoopGroup { .. }
            | StepKind::MultiReduce { .. }
            | StepKind::While(_)
            | StepKind::Conditional(_)
            | StepKind::Op(_)
            | StepKind::Sort(_)
            | StepKind::SortKey { .. } => {
                return Err(bug("a row-group pass that is not a loop or a reduce"));
            }
        };
        let mut keeps = Vec::new();
        if let Some(k) = keep
            && k.from == m
        {
            let Some(node) = graph.built(body_id, k.inst, index) else {
                return Ok(None);
            };
            keeps.push(KeptValue {
                node,
                buf: k.buf,
                offset: element.clone(),
                ty: body.inst(k.inst).shape.element_type(),
            });
            written.push((k.buf, element.clone()));
        }
        written.push((step.out, work.out_offset().clone()));
        passes.push(Pass {
            work,
            value_type: out_shape.element_type(),
            keeps,
            per_row,
        });
    }
    // Every read of a buffer the group writes is at the element (or row)
    // the current pass is at, which an earlier pass of the same thread has
    // finished.
    if !graph.loads_at(&written) {
        return Ok(None);
    }
    Ok(Some(GroupBuild { graph, passes }))
}

/// The kernel of a row group: loop variables as in a reduce (row variables
/// first), merged where every access allows it, then one pass per member.
/// Fusion decided the group on the unmerged variables; if the merged index
/// maps do not show the group's reads where they were checked, the kernel
/// keeps the unmerged variables.
fn row_group_kernel(
    comp: &Computation,
    plan: &Plan,
    space: &RowSpace,
    members: &[Step],
    keep: Option<KeepPlan>,
) -> Result<LoopKernel> {
    let loops = space.loops();
    let n_kept = loops.reduced.values().filter(|&&r| !r).count();
    let index = dim_index(&space.dims, &loops.walks, &loops.extents, &[]);
    let Some(unmerged) = build_group(
        comp,
        plan,
        space,
        members,
        keep,
        loops.extents.clone(),
        &index,
        n_kept,
    )?
    else {
        return Err(bug(
            "a row group whose reads fusion checked does not build over its row space",
        ));
    };
    // Merge adjacent row (or element) variables that stride as one.
    let mut offsets: Vec<&Ix> = Vec::new();
    for p in &unmerged.passes {
        offsets.push(p.work.out_offset());
        offsets.extend(p.keeps.iter().map(|k| &k.offset));
    }
    let groups = merge_groups(
        &unmerged.graph,
        &offsets,
        &loops.extents,
        Some(&loops.reduced),
    );
    let (built, n_rows) = if groups.len() < loops.extents.len() {
        let new_extents = merged_extents(&groups, &loops.extents);
        let n_rows = groups.iter().filter(|g| !loops.reduced[g[0]]).count();
        let index = dim_index(&space.dims, &loops.walks, &new_extents, &groups);
        match build_group(
            comp,
            plan,
            space,
            members,
            keep,
            new_extents,
            &index,
            n_rows,
        )? {
            Some(merged) => (merged, n_rows),
            None => (unmerged, n_kept),
        }
    } else {
        (unmerged, n_kept)
    };
    Ok(LoopKernel {
        loop_order: in_order(&built.graph.extents),
        graph: built.graph,
        split_loop: Some(0),
        passes: built.passes,
        row_loops: Some(n_rows),
    })
}

/// Lowers step `k` of `plan` into the kernels that compute it, run in
/// order: none when its output is empty, several for a loop split where
/// its guards flip (see `split_points`) or a variadic reduce of no reduced
/// dimension. A `while` step's kernels compute its fused init leaves into
/// the state; a `conditional` step has none (its branches are regions).
pub(crate) fn lower_step(comp: &Computation, plan: &Plan, k: usize) -> Result<Vec<KernelDesc>> {
    let step = &plan.steps[k];
    let body = comp.entry();
    let loop_kernel = |out: BufferId, root: InstId| -> Result<Vec<KernelDesc>> {
        let shape = &plan.buffers[out].shape;
        if shape.element_count() == 0 {
            return Ok(vec![]);
        }
        let id = |i: &[Ix], _: &Extents| i.to_vec();
        let target = Target {
            out,
            dims: shape.dims(),
            ty: shape.element_type(),
        };
        let specs = loop_kernels(comp, plan, target, root, true, &id)?;
        Ok(specs.into_iter().map(KernelDesc::Loop).collect())
    };
    match &step.kind {
        StepKind::While(w) => {
            let mut kernels = Vec::new();
            for (leaf, &out) in w.init.iter().zip(&w.state) {
                if let InitLeaf::Compute(root) = leaf {
                    kernels.extend(loop_kernel(out, *root)?);
                }
            }
            return Ok(kernels);
        }
        StepKind::Conditional(_) => return Ok(vec![]),
        StepKind::MultiReduce { inst, outs } => {
            if plan.buffers[step.out].shape.element_count() == 0 {
                return Ok(vec![]);
            }
            let specs = reduce_kernels(comp, plan, outs, *inst)?;
            return Ok(specs.into_iter().map(KernelDesc::Loop).collect());
        }
        StepKind::LoopGroup { members } => {
            let member = |m: &Step| {
                let StepKind::Loop { root } = m.kind else {
                    return Err(bug("a loop-group member that is not a loop step"));
                };
                loop_kernel(m.out, root)
            };
            return loop_group::loop_group_kernels(comp, plan, members, &member);
        }
        StepKind::Loop { .. }
        | StepKind::DotCopy { .. }
        | StepKind::Reduce { .. }
        | StepKind::RowGroup { .. }
        | StepKind::Dot { .. }
        | StepKind::Sort(_)
        | StepKind::SortKey { .. }
        | StepKind::Op(_) => {}
    }
    let out_shape = &plan.buffers[step.out].shape;
    if out_shape.element_count() == 0 {
        return Ok(vec![]);
    }
    Ok(match &step.kind {
        StepKind::Loop { root } => loop_kernel(step.out, *root)?,
        StepKind::DotCopy { source, groups, ty } => vec![KernelDesc::Loop(dot_copy_kernel(
            comp, plan, step.out, *source, groups, *ty,
        )?)],
        StepKind::Reduce { inst } => reduce_kernels(comp, plan, &[step.out], *inst)?
            .into_iter()
            .map(KernelDesc::Loop)
            .collect(),
        StepKind::RowGroup {
            space,
            passes,
            keep,
        } => vec![KernelDesc::Loop(row_group_kernel(
            comp, plan, space, passes, *keep,
        )?)],
        StepKind::Op(op) => ops::lower_op_step(comp, plan, step, op)?,
        StepKind::Dot {
            inst,
            lhs,
            rhs,
            sizes,
        } => vec![KernelDesc::Dot(DotKernel {
            ty: body.inst(*inst).shape.element_type(),
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            out: step.out,
            sizes: *sizes,
        })],
        StepKind::Sort(sort) => vec![KernelDesc::Sort(sort::sort_kernel(comp, plan, sort)?)],
        StepKind::SortKey {
            comparator,
            expr,
            inputs,
            ..
        } => vec![KernelDesc::Loop(sort::sort_key_kernel(
            comp,
            plan,
            step.out,
            *comparator,
            *expr,
            inputs,
        )?)],
        StepKind::While(_)
        | StepKind::Conditional(_)
        | StepKind::MultiReduce { .. }
        | StepKind::LoopGroup { .. } => vec![],
    })
}
