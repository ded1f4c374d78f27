//! Expression graphs: what one kernel computes per element, with every
//! index map resolved.
//!
//! A fusion group's root is evaluated at the kernel's loop index. Walking
//! down its operands, each op rewrites the index it is read at (broadcast
//! drops dimensions, transpose permutes them, slice scales and offsets,
//! reshape linearises and splits, pad and concatenate add guards) until a
//! materialised value is reached, which becomes a [`Node::Load`] at an
//! element offset that is an [`Ix`] of the loop variables. Nothing is
//! copied: a broadcast operand is a load whose offset does not use the
//! broadcast loop variables (stride 0).
//!
//! Nodes are hash-consed: the same instruction read at the same index is
//! computed once per element, however many paths lead to it.

use std::collections::HashMap;

use oxla_ir::{
    BinaryOp, Body, ComputationId, ElementType, Error, InstId, Literal, OpKind, Result, UnaryOp,
    shape::row_major_strides,
};

use crate::ix::Ix;

/// Index of a node in [`Graph::nodes`].
pub(crate) type NodeId = usize;

/// One condition of a `pad`/`concatenate` guard.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Cond {
    /// `lo <= ix < hi`.
    Range { ix: Ix, lo: i64, hi: i64 },
    /// `ix mod d == 0`.
    Divisible { ix: Ix, d: i64 },
}

/// One value computed per element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    /// Element `offset` of buffer `buf` (`numel` elements of `ty`); with
    /// `clamp` the offset is clamped into the buffer first (a read under a
    /// guard that may be false).
    Load {
        buf: usize,
        ty: ElementType,
        offset: Ix,
        numel: i64,
        clamp: bool,
    },
    /// A constant (its bits, zero-extended to 64).
    Const { ty: ElementType, bits: u64 },
    /// The index `index` converted to `ty`.
    Iota { ty: ElementType, index: Ix },
    /// A value bound by the kernel (the reducer's accumulator and element).
    Var { ty: ElementType, slot: u8 },
    /// `op(x)`; `ty` is the operand type.
    Unary {
        op: UnaryOp,
        ty: ElementType,
        x: NodeId,
    },
    /// `op(a, b)`; `ty` is the operand type.
    Binary {
        op: BinaryOp,
        ty: ElementType,
        a: NodeId,
        b: NodeId,
    },
    /// `convert`.
    Convert {
        from: ElementType,
        to: ElementType,
        x: NodeId,
    },
    /// `p ? a : b`.
    Select {
        ty: ElementType,
        p: NodeId,
        a: NodeId,
        b: NodeId,
    },
    /// `min(max(lo, x), hi)`.
    Clamp {
        ty: ElementType,
        lo: NodeId,
        x: NodeId,
        hi: NodeId,
    },
    /// `pred`: every condition holds.
    InBounds { conds: Vec<Cond> },
}

impl Node {
    /// The element type of the value.
    pub(crate) fn ty(&self) -> ElementType {
        match self {
            Node::Load { ty, .. }
            | Node::Const { ty, .. }
            | Node::Iota { ty, .. }
            | Node::Var { ty, .. }
            | Node::Select { ty, .. }
            | Node::Clamp { ty, .. } => *ty,
            Node::Unary { op, ty, .. } => match op {
                UnaryOp::IsFinite => ElementType::Pred,
                _ => *ty,
            },
            Node::Binary { op, ty, .. } => match op {
                BinaryOp::Compare(_) => ElementType::Pred,
                _ => *ty,
            },
            Node::Convert { to, .. } => *to,
            Node::InBounds { .. } => ElementType::Pred,
        }
    }

    /// The nodes this one reads.
    pub(crate) fn operands(&self) -> Vec<NodeId> {
        match self {
            Node::Load { .. }
            | Node::Const { .. }
            | Node::Iota { .. }
            | Node::Var { .. }
            | Node::InBounds { .. } => vec![],
            Node::Unary { x, .. } | Node::Convert { x, .. } => vec![*x],
            Node::Binary { a, b, .. } => vec![*a, *b],
            Node::Select { p, a, b, .. } => vec![*p, *a, *b],
            Node::Clamp { lo, x, hi, .. } => vec![*lo, *x, *hi],
        }
    }

    /// Every index expression the node evaluates.
    pub(crate) fn index_exprs(&self) -> Vec<&Ix> {
        match self {
            Node::Load { offset, .. } => vec![offset],
            Node::Iota { index, .. } => vec![index],
            Node::InBounds { conds } => conds
                .iter()
                .map(|c| match c {
                    Cond::Range { ix, .. } | Cond::Divisible { ix, .. } => ix,
                })
                .collect(),
            _ => vec![],
        }
    }
}

/// Where a materialised instruction's value lives, for the graph builder.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    /// Buffer `id` of the executable.
    Buffer(usize),
    /// A value bound by the kernel.
    Var(u8),
    /// A node already built (a reducer applied to known values).
    Node(NodeId),
}

/// The body being walked and how its materialised values are found.
pub(crate) struct Ctx<'a> {
    pub(crate) body_id: ComputationId,
    pub(crate) body: &'a Body,
    pub(crate) source: &'a dyn Fn(InstId) -> Option<Source>,
}

/// A hash-consed node list being built.
#[derive(Default)]
pub(crate) struct Graph {
    pub(crate) nodes: Vec<Node>,
    /// Loop extents of the kernel's variables (for simplification).
    pub(crate) extents: Vec<i64>,
    dedup: HashMap<Node, NodeId>,
    memo: HashMap<(ComputationId, InstId, Vec<Ix>, bool), NodeId>,
}

/// The most nodes one kernel may have before the fusion planner cuts it.
pub(crate) const MAX_NODES: usize = 4000;

fn backend(message: String) -> Error {
    Error::Backend {
        backend: "jit".into(),
        message,
    }
}

/// The bits of scalar `literal` zero-extended to 64 (`None` if not a
/// scalar array).
pub(crate) fn scalar_bits(literal: &Literal) -> Option<u64> {
    use oxla_ir::ArrayData as D;
    let data = literal.array_data()?;
    if data.len() != 1 {
        return None;
    }
    Some(match data {
        D::Pred(v) => v[0] as u64,
        D::S8(v) => v[0] as u8 as u64,
        D::S16(v) => v[0] as u16 as u64,
        D::S32(v) => v[0] as u32 as u64,
        D::S64(v) => v[0] as u64,
        D::U8(v) => v[0] as u64,
        D::U16(v) => v[0] as u64,
        D::U32(v) => v[0] as u64,
        D::U64(v) => v[0],
        D::F32(v) => v[0].to_bits() as u64,
        D::F64(v) => v[0].to_bits(),
    })
}

type Key = (ComputationId, InstId, Vec<Ix>, bool);

/// The row-major index of `linear` in `dims`, innermost first and nested
/// (`i_last = L % n_last`, `i_prev = (L / n_last) % n_prev`, ...), the
/// form in which a later row-major linearisation folds back to `L`.
pub(crate) fn delinearise(linear: &Ix, dims: &[i64], ext: &[i64]) -> Vec<Ix> {
    let mut out = vec![Ix::constant(0); dims.len()];
    let mut q = linear.clone();
    for d in (0..dims.len()).rev() {
        out[d] = q.modulo(dims[d], ext);
        q = q.div(dims[d], ext);
    }
    out
}

impl Graph {
    /// An empty graph over loop variables with `extents`.
    pub(crate) fn new(extents: Vec<i64>) -> Graph {
        Graph {
            extents,
            ..Graph::default()
        }
    }

    /// Forgets which instruction was built at which index (the nodes stay,
    /// still hash-consed): the next build may map materialised values to
    /// other sources.
    pub(crate) fn forget_instructions(&mut self) {
        self.memo.clear();
    }

    /// The node built for `inst` of body `body` at `index` (unguarded)
    /// since the last [`Graph::forget_instructions`].
    pub(crate) fn built(&self, body: ComputationId, inst: InstId, index: &[Ix]) -> Option<NodeId> {
        self.memo.get(&(body, inst, index.to_vec(), false)).copied()
    }

    /// Adds `node` (or finds the equal one).
    pub(crate) fn add(&mut self, node: Node) -> NodeId {
        if let Some(&id) = self.dedup.get(&node) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(node.clone());
        self.dedup.insert(node, id);
        id
    }

    /// A constant node.
    pub(crate) fn constant(&mut self, ty: ElementType, bits: u64) -> NodeId {
        self.add(Node::Const { ty, bits })
    }

    /// The node computing `root` at `index` (one [`Ix`] per dimension of
    /// `root`). `root` itself is expanded even if `ctx.source` names it.
    pub(crate) fn build(&mut self, ctx: &Ctx, root: InstId, index: Vec<Ix>) -> Result<NodeId> {
        self.walk(ctx, root, index, true)
    }

    /// The node reading `inst` at `index`: a load when `ctx.source` names
    /// it, its expression otherwise.
    pub(crate) fn value(&mut self, ctx: &Ctx, inst: InstId, index: Vec<Ix>) -> Result<NodeId> {
        self.walk(ctx, inst, index, false)
    }

    fn walk(&mut self, ctx: &Ctx, root: InstId, index: Vec<Ix>, expand: bool) -> Result<NodeId> {
        let top: Key = (ctx.body_id, root, index, false);
        if expand {
            // A root expanded here must not be found as a load in the memo.
            self.memo.remove(&top);
        }
        let mut stack: Vec<(Key, bool)> = vec![(top.clone(), false)];
        while let Some((key, expanded)) = stack.pop() {
            if self.memo.contains_key(&key) {
                continue;
            }
            if self.nodes.len() > MAX_NODES {
                return Err(backend(format!(
                    "a fused kernel of `{}` grew past {MAX_NODES} nodes",
                    ctx.body.name
                )));
            }
            let is_top = expand && key == top;
            let inst = ctx.body.inst(key.1);
            if !is_top && let Some(src) = (ctx.source)(key.1) {
                let id = self.source_node(src, inst.shape.element_type(), &inst.shape, &key);
                self.memo.insert(key, id);
                continue;
            }
            let plan = self.plan(ctx, &key)?;
            if !expanded {
                stack.push((key.clone(), true));
                for r in plan.requests {
                    if !self.memo.contains_key(&r) {
                        stack.push((r, false));
                    }
                }
                continue;
            }
            let operands: Vec<NodeId> = plan.requests.iter().map(|r| self.memo[r]).collect();
            let id = self.combine(ctx, &key, plan.shape, &operands)?;
            self.memo.insert(key, id);
        }
        Ok(self.memo[&top])
    }

    fn source_node(
        &mut self,
        src: Source,
        ty: ElementType,
        shape: &oxla_ir::Shape,
        key: &Key,
    ) -> NodeId {
        match src {
            Source::Var(slot) => self.add(Node::Var { ty, slot }),
            Source::Node(n) => n,
            Source::Buffer(buf) => {
                let numel = shape.element_count();
                if numel == 0 {
                    // Only reachable under a guard that is always false.
                    return self.constant(ty, 0);
                }
                let strides = row_major_strides(shape.dims());
                let mut offset = Ix::constant(0);
                for (ix, s) in key.2.iter().zip(&strides) {
                    offset = offset.add(&ix.scale(*s));
                }
                self.add(Node::Load {
                    buf,
                    ty,
                    offset,
                    numel,
                    clamp: key.3,
                })
            }
        }
    }
}

/// What building one instruction needs from its operands.
struct Plan {
    requests: Vec<Key>,
    shape: Shaped,
}

/// Extra data `combine` needs, decided with the requests.
enum Shaped {
    Plain,
    /// `concatenate`: for each requested operand but the last, the guard
    /// under which it is chosen.
    Concat(Vec<Vec<Cond>>),
    /// `pad`: the guard under which the operand is read (empty: always;
    /// `None`: never).
    Pad(Option<Vec<Cond>>),
}

impl Graph {
    fn plan(&self, ctx: &Ctx, key: &Key) -> Result<Plan> {
        let (bid, id, idx, guarded) = key;
        let inst = ctx.body.inst(*id);
        let ext = &self.extents;
        let operand = |k: usize| ctx.body.inst(inst.operands[k]);
        let req = |k: usize, index: Vec<Ix>, g: bool| (*bid, inst.operands[k], index, g);
        let plain = |requests| Plan {
            requests,
            shape: Shaped::Plain,
        };
        let g = *guarded;
        // The index of an elementwise operand: dimension i lines up with
        // result dimension map[i], size-1 dimensions read index 0.
        let elementwise = |k: usize, map: &dyn Fn(usize) -> usize| -> Vec<Ix> {
            let dims = operand(k).shape.dims();
            dims.iter()
                .enumerate()
                .map(|(i, &n)| {
                    if n == 1 {
                        Ix::constant(0)
                    } else {
                        idx[map(i)].clone()
                    }
                })
                .collect()
        };
        Ok(match &inst.kind {
            OpKind::Parameter { .. }
            | OpKind::Reduce { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::Tuple => {
                return Err(backend(format!(
                    "`{}` ({}) must be materialised before it is read in a fused kernel",
                    inst.name,
                    inst.kind.opcode_name()
                )));
            }
            OpKind::Constant { .. } | OpKind::Iota { .. } => plain(vec![]),
            OpKind::Unary(_) | OpKind::Convert => plain(vec![req(0, idx.clone(), g)]),
            OpKind::Select | OpKind::Clamp => plain(
                (0..3)
                    .map(|k| {
                        let index = if operand(k).shape.is_scalar() {
                            vec![]
                        } else {
                            elementwise(k, &|i| i)
                        };
                        req(k, index, g)
                    })
                    .collect(),
            ),
            OpKind::Binary {
                broadcast_dimensions,
                ..
            } => {
                let rank = inst.shape.rank();
                let requests = (0..2)
                    .map(|k| {
                        let r = operand(k).shape.rank();
                        let index = if r == rank {
                            elementwise(k, &|i| i)
                        } else if r == 0 {
                            vec![]
                        } else {
                            elementwise(k, &|i| broadcast_dimensions[i] as usize)
                        };
                        req(k, index, g)
                    })
                    .collect();
                plain(requests)
            }
            OpKind::Broadcast { dimensions } => {
                plain(vec![req(0, elementwise(0, &|i| dimensions[i] as usize), g)])
            }
            OpKind::Reshape => {
                let out_strides = row_major_strides(inst.shape.dims());
                let mut linear = Ix::constant(0);
                for (ix, s) in idx.iter().zip(&out_strides) {
                    linear = linear.add(&ix.scale(*s));
                }
                let dims = operand(0).shape.dims();
                plain(vec![req(0, delinearise(&linear, dims, ext), g)])
            }
            OpKind::Transpose { permutation } => {
                let mut index = vec![Ix::constant(0); idx.len()];
                for (k, &p) in permutation.iter().enumerate() {
                    index[p as usize] = idx[k].clone();
                }
                plain(vec![req(0, index, g)])
            }
            OpKind::Slice {
                starts, strides, ..
            } => {
                let index = idx
                    .iter()
                    .enumerate()
                    .map(|(d, ix)| ix.scale(strides[d]).add_constant(starts[d]))
                    .collect();
                plain(vec![req(0, index, g)])
            }
            OpKind::Reverse { dimensions } => {
                let dims = operand(0).shape.dims();
                let index = idx
                    .iter()
                    .enumerate()
                    .map(|(d, ix)| {
                        if dimensions.contains(&(d as i64)) {
                            ix.scale(-1).add_constant(dims[d] - 1)
                        } else {
                            ix.clone()
                        }
                    })
                    .collect();
                plain(vec![req(0, index, g)])
            }
            OpKind::Concatenate { dimension } => {
                let d = *dimension as usize;
                let (lo, hi) = idx[d].range(ext);
                let mut offset = 0i64;
                let mut parts = Vec::new();
                for k in 0..inst.operands.len() {
                    let n = operand(k).shape.dims()[d];
                    if n > 0 && (offset as i128) <= hi && ((offset + n) as i128) > lo {
                        parts.push((k, offset, n));
                    }
                    offset += n;
                }
                let single = parts.len() == 1;
                let mut requests = Vec::new();
                let mut guards = Vec::new();
                for (j, &(k, off, n)) in parts.iter().enumerate() {
                    let mut index = idx.clone();
                    index[d] = idx[d].add_constant(-off);
                    requests.push(req(k, index, g || !single));
                    if j + 1 < parts.len() {
                        guards.push(vec![Cond::Range {
                            ix: idx[d].clone(),
                            lo: off,
                            hi: off + n,
                        }]);
                    }
                }
                Plan {
                    requests,
                    shape: Shaped::Concat(guards),
                }
            }
            OpKind::Pad { config } => {
                let dims = operand(0).shape.dims();
                let mut conds = Vec::new();
                let mut never = false;
                let mut index = Vec::with_capacity(dims.len());
                for (dim, p) in config.iter().enumerate() {
                    let n = dims[dim];
                    let t = idx[dim].add_constant(p.lo.wrapping_neg());
                    let s = p.interior + 1;
                    let span = (n - 1).max(0) as i128 * s as i128 + 1;
                    let (tlo, thi) = t.range(ext);
                    if n == 0 || thi < 0 || tlo >= span {
                        never = true;
                    } else if tlo < 0 || thi >= span {
                        conds.push(Cond::Range {
                            ix: t.clone(),
                            lo: 0,
                            hi: span as i64,
                        });
                    }
                    if s > 1 {
                        let m = t.modulo(s, ext);
                        match m.as_constant() {
                            Some(0) => {}
                            Some(_) => never = true,
                            None => conds.push(Cond::Divisible {
                                ix: t.clone(),
                                d: s,
                            }),
                        }
                        index.push(t.div(s, ext));
                    } else {
                        index.push(t);
                    }
                }
                let pad_value = req(1, vec![], g);
                if never {
                    Plan {
                        requests: vec![pad_value],
                        shape: Shaped::Pad(None),
                    }
                } else {
                    let guarded_read = g || !conds.is_empty();
                    Plan {
                        requests: vec![req(0, index, guarded_read), pad_value],
                        shape: Shaped::Pad(Some(conds)),
                    }
                }
            }
        })
    }

    fn combine(&mut self, ctx: &Ctx, key: &Key, shaped: Shaped, ops: &[NodeId]) -> Result<NodeId> {
        let inst = ctx.body.inst(key.1);
        let ty = inst.shape.element_type();
        let operand_ty = |k: usize| ctx.body.inst(inst.operands[k]).shape.element_type();
        Ok(match &inst.kind {
            OpKind::Constant { literal } => match scalar_bits(literal) {
                Some(bits) if inst.shape.is_scalar() => self.constant(ty, bits),
                _ => {
                    return Err(backend(format!(
                        "constant `{}` {} has no buffer",
                        inst.name, inst.shape
                    )));
                }
            },
            OpKind::Iota { dimension } => self.add(Node::Iota {
                ty,
                index: key.2[*dimension as usize].clone(),
            }),
            OpKind::Unary(op) => self.add(Node::Unary {
                op: *op,
                ty: operand_ty(0),
                x: ops[0],
            }),
            OpKind::Binary { op, .. } => self.add(Node::Binary {
                op: *op,
                ty: operand_ty(0),
                a: ops[0],
                b: ops[1],
            }),
            OpKind::Convert => {
                let from = operand_ty(0);
                if from == ty {
                    ops[0]
                } else {
                    self.add(Node::Convert {
                        from,
                        to: ty,
                        x: ops[0],
                    })
                }
            }
            OpKind::Select => self.add(Node::Select {
                ty,
                p: ops[0],
                a: ops[1],
                b: ops[2],
            }),
            OpKind::Clamp => self.add(Node::Clamp {
                ty,
                lo: ops[0],
                x: ops[1],
                hi: ops[2],
            }),
            OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Reverse { .. } => ops[0],
            OpKind::Concatenate { .. } => {
                let Shaped::Concat(guards) = shaped else {
                    return Err(backend("concatenate planned without guards".into()));
                };
                let mut value = *ops.last().ok_or_else(|| {
                    backend(format!("concatenate `{}` reads no operand", inst.name))
                })?;
                for (j, conds) in guards.into_iter().enumerate().rev() {
                    let p = self.add(Node::InBounds { conds });
                    value = self.add(Node::Select {
                        ty,
                        p,
                        a: ops[j],
                        b: value,
                    });
                }
                value
            }
            OpKind::Pad { .. } => match shaped {
                Shaped::Pad(None) => ops[0],
                Shaped::Pad(Some(conds)) if conds.is_empty() => ops[0],
                Shaped::Pad(Some(conds)) => {
                    let p = self.add(Node::InBounds { conds });
                    self.add(Node::Select {
                        ty,
                        p,
                        a: ops[0],
                        b: ops[1],
                    })
                }
                _ => return Err(backend("pad planned without guards".into())),
            },
            OpKind::Parameter { .. }
            | OpKind::Reduce { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::Tuple => {
                return Err(backend(format!(
                    "`{}` cannot be computed inside a fused kernel",
                    inst.name
                )));
            }
        })
    }
}
