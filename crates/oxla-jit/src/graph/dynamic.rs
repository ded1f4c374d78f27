//! `gather` and `dynamic-slice` as index maps: the operand is read at an
//! index whose starts come from data, not copied.
//!
//! Building one takes two steps of the walk (see `Graph::walk`): first
//! the start indices are built (each a value of the indices operand at the
//! batch position, or a scalar start operand), then each becomes a
//! [`Node::Index`] that widens and clamps it exactly as the interpreter
//! does (`[0, dim - size]`), and the operand is requested at
//! `start + offset` per dimension, the start a data index
//! ([`Ix::data`]) carrying that range. So an embedding lookup is a load at
//! `128 * n3 + i2`: the row read once per output row (`n3` is hoisted to
//! the row's loop level), the inner loop contiguous and vectorised.
//!
//! Starts that cannot move (a slice as large as its dimension: the clamp
//! gives 0) read no data; in a dimension where the slice is empty, the
//! start is clamped into `[0, dim - 1]` instead of `[0, dim]` (nothing is
//! read, so only the verifier's bounds proof sees the difference); a `gather`'s batching dimensions take the batch
//! position itself (shape inference keeps it in range, as the interpreter
//! relies on); a `gather` whose slice is empty in some dimension gives
//! zeros, as XLA's CPU backend does (and the interpreter).

use oxla_ir::{ElementType, Result};

use super::{Build, Ctx, Graph, Key, Node, bug, build_kind};
use crate::entity::NodeId;
use crate::ix::Ix;

/// Where one operand dimension's start comes from.
#[derive(Clone, Debug)]
pub(super) enum Start {
    /// A fixed index (a batching dimension's batch position, or 0).
    Fixed(Ix),
    /// Start request `request`, an integer of type `from`, clamped into
    /// `0..=hi` (`hi > 0`).
    Data {
        request: usize,
        from: ElementType,
        hi: i64,
    },
}

/// How a `gather` or `dynamic-slice` reads its operand at one index.
pub(super) enum IndexPlan {
    /// Every element is zero (a `gather` slice with no elements).
    Zero,
    /// Read the start requests, then the operand at `start + offset` per
    /// dimension.
    Read {
        requests: Vec<Key>,
        dims: Vec<(Start, Ix)>,
    },
}

impl Graph {
    /// The index plan of the `gather` or `dynamic-slice` of `key`.
    pub(super) fn index_plan(&self, ctx: &Ctx, key: &Key) -> Result<IndexPlan> {
        let body = ctx.comp.body(key.body);
        let inst = body.inst(key.inst);
        let idx = &key.index;
        let operand_dims = body.inst(inst.operands[0]).shape.dims().to_vec();
        let request = |i: usize, index: Vec<Ix>| Key {
            scope: key.scope,
            frame: key.frame,
            body: key.body,
            inst: inst.operands[i],
            index,
            guarded: key.guarded,
        };
        let at = |d: usize| idx.get(d).cloned().unwrap_or_else(|| Ix::constant(0));
        match build_kind(&inst.kind) {
            Build::Gather { dims, slice_sizes } => {
                if slice_sizes.contains(&0) {
                    return Ok(IndexPlan::Zero);
                }
                let indices = body.inst(inst.operands[1]);
                let from = indices.shape.element_type();
                let irank = indices.shape.rank();
                let ivd = usize::try_from(dims.index_vector_dim)
                    .map_err(|_| bug("a gather with a negative index_vector_dim"))?;
                let out_rank = inst.shape.rank();
                // The result's batch dimensions, in order, hold the indices'
                // dimensions other than the index vector's, in order.
                let batch_out: Vec<usize> = (0..out_rank)
                    .filter(|&d| !dims.offset_dims.contains(&(d as i64)))
                    .collect();
                let batch_dims: Vec<usize> =
                    (0..irank.max(ivd + 1)).filter(|&d| d != ivd).collect();
                // The batch position along indices dimension `e`.
                let batch_at = |e: usize| -> Ix {
                    batch_dims
                        .iter()
                        .position(|&b| b == e)
                        .and_then(|j| batch_out.get(j))
                        .map_or_else(|| Ix::constant(0), |&d| at(d))
                };
                let mut starts = vec![Start::Fixed(Ix::constant(0)); operand_dims.len()];
                let mut requests = Vec::new();
                for (k, &d) in dims.start_index_map.iter().enumerate() {
                    let d = d as usize;
                    // An empty slice reads nothing, wherever it starts: its start
                    // is kept inside the dimension (the value is unobservable).
                    let hi = (operand_dims[d] - slice_sizes[d])
                        .min(operand_dims[d] - 1)
                        .max(0);
                    if hi == 0 {
                        continue;
                    }
                    // Entry k of the index vector at this batch position.
                    let index: Vec<Ix> = (0..irank)
                        .map(|e| {
                            if e == ivd {
                                Ix::constant(k as i64)
                            } else {
                                batch_at(e)
                            }
                        })
                        .collect();
                    starts[d] = Start::Data {
                        request: requests.len(),
                        from,
                        hi,
                    };
                    requests.push(request(1, index));
                }
                for (&o, &i) in dims
                    .operand_batching_dims
                    .iter()
                    .zip(&dims.start_indices_batching_dims)
                {
                    starts[o as usize] = Start::Fixed(batch_at(i as usize));
                }
                // Window dimensions of the operand, paired with offset dims.
                let window: Vec<usize> = (0..operand_dims.len())
                    .filter(|&d| {
                        let d = d as i64;
                        !dims.collapsed_slice_dims.contains(&d)
                            && !dims.operand_batching_dims.contains(&d)
                    })
                    .collect();
                let mut offsets = vec![Ix::constant(0); operand_dims.len()];
                for (&o, &r) in window.iter().zip(&dims.offset_dims) {
                    offsets[o] = at(r as usize);
                }
                Ok(IndexPlan::Read {
                    requests,
                    dims: starts.into_iter().zip(offsets).collect(),
                })
            }
            Build::DynamicSlice { slice_sizes } => {
                let vector =
                    inst.operands.len() == 2 && body.inst(inst.operands[1]).shape.rank() == 1;
                let mut dims = Vec::with_capacity(operand_dims.len());
                let mut requests = Vec::new();
                for (d, &n) in operand_dims.iter().enumerate() {
                    // An empty slice reads nothing: its start is kept inside
                    // the dimension (the value is unobservable).
                    let hi = (n - slice_sizes[d]).min(n - 1).max(0);
                    let start = if hi == 0 {
                        Start::Fixed(Ix::constant(0))
                    } else {
                        let (slot, index) = if vector {
                            (1, vec![Ix::constant(d as i64)])
                        } else {
                            (1 + d, vec![])
                        };
                        let from = body.inst(inst.operands[slot]).shape.element_type();
                        requests.push(request(slot, index));
                        Start::Data {
                            request: requests.len() - 1,
                            from,
                            hi,
                        }
                    };
                    dims.push((start, at(d)));
                }
                Ok(IndexPlan::Read { requests, dims })
            }
            Build::Reduce { .. } | Build::Dot { .. } | Build::Map { .. } | Build::Plan => Err(bug(
                format!("`{}` is not a gather or dynamic-slice", inst.name),
            )),
        }
    }

    /// The request for the operand of the `gather` or `dynamic-slice` of
    /// `key`, once its start requests are built (`starts`, in order): each
    /// start clamped by a [`Node::Index`] and read as a data index.
    pub(super) fn indexed_operand(
        &mut self,
        ctx: &Ctx,
        key: &Key,
        dims: &[(Start, Ix)],
        starts: &[NodeId],
    ) -> Result<Key> {
        let inst = ctx.comp.body(key.body).inst(key.inst);
        let mut index = Vec::with_capacity(dims.len());
        for (start, offset) in dims {
            let s = match start {
                Start::Fixed(ix) => ix.clone(),
                Start::Data { request, from, hi } => {
                    let x = *starts.get(*request).ok_or_else(|| {
                        bug(format!("start {request} of `{}` missing", inst.name))
                    })?;
                    let node = self.put(
                        key.scope,
                        Node::Index {
                            x,
                            from: *from,
                            lo: 0,
                            hi: *hi,
                        },
                    );
                    Ix::data(node, 0, *hi)
                }
            };
            index.push(s.add(offset));
        }
        Ok(Key {
            scope: key.scope,
            frame: key.frame,
            body: key.body,
            inst: inst.operands[0],
            index,
            guarded: key.guarded,
        })
    }
}
