//! Random `gather`, `scatter`, `dynamic-slice` and `dynamic-update-slice`
//! steps for [`gen_program`](crate::gen_program), valid by construction.
//!
//! Each step picks the roles of the operand's dimensions first (indexed by
//! the index vector, collapsed or inserted, batching, window) and builds
//! the dimension numbers, the indices' and updates' shapes and the result
//! from that choice, with a model of the result's shape of its own (not
//! shape inference's), which the builder's answer is checked against.
//! Index values come from the generator's random literals, so most of them
//! are out of range or negative (the edges include MIN and MAX): clamping
//! and scatter's whole-window skip are exercised as often as the in-range
//! paths. The steps run only with [`GenConfig::indexing`](crate::GenConfig)
//! on, which the differential JIT test leaves off until the JIT compiles
//! these ops.

use oxla_ir::{
    Builder, Computation, ElementType, GatherDimensionNumbers, Op, Result, ScatterDimensionNumbers,
    Shape,
};

use crate::{Gen, Rng, random_dims};

/// The integer types indices may have: those of the configuration, or s32.
fn index_type(rng: &mut Rng, types: &[ElementType]) -> ElementType {
    let ints: Vec<ElementType> = types.iter().copied().filter(|t| t.is_integer()).collect();
    if ints.is_empty() {
        ElementType::S32
    } else {
        rng.pick(&ints)
    }
}

/// A random subset of `items`, in order, of at most `max` entries.
fn subset(rng: &mut Rng, items: &[i64], max: usize) -> Vec<i64> {
    let mut out: Vec<i64> = items.iter().copied().filter(|_| rng.chance(0.5)).collect();
    while out.len() > max {
        let i = rng.below(out.len() as u64) as usize;
        out.remove(i);
    }
    out
}

/// `k` distinct entries of `items`, in a random order.
fn shuffled_pick(rng: &mut Rng, items: &[i64], k: usize) -> Vec<i64> {
    let mut pool = items.to_vec();
    let mut out = Vec::new();
    while out.len() < k && !pool.is_empty() {
        let i = rng.below(pool.len() as u64) as usize;
        out.push(pool.remove(i));
    }
    out
}

/// The indices of a gather or scatter: their shape, the index vector
/// dimension, and (for each operand batching dimension, in order) the
/// indices dimension paired with it; the batch dims (all but the index
/// vector's) in order.
struct Indices {
    shape: Shape,
    index_vector_dim: i64,
    batching: Vec<i64>,
    batch_dims: Vec<i64>,
}

/// Indices with index vectors of length `k`, a batch of up to two free
/// dimensions plus one per `batching_sizes` entry (placed at random), of
/// element type `ty`.
fn gen_indices(g: &mut Gen<'_>, k: usize, batching_sizes: &[i64], ty: ElementType) -> Indices {
    let free = g.rng.below(3) as usize;
    // The batch: free dims (random sizes) and the batching partners, in a
    // random order; `partner[j]` is the batch position of partner j.
    let mut batch: Vec<(i64, Option<usize>)> = random_dims(g.rng, g.cfg, free)
        .into_iter()
        .map(|d| (d, None))
        .collect();
    for (j, &size) in batching_sizes.iter().enumerate() {
        let at = g.rng.below(batch.len() as u64 + 1) as usize;
        batch.insert(at, (size, Some(j)));
    }
    // The index vector dimension: anywhere, or implicit (trailing, k = 1).
    let implicit = k == 1 && g.rng.chance(0.3);
    let ivd = if implicit {
        batch.len()
    } else {
        g.rng.below(batch.len() as u64 + 1) as usize
    };
    let mut dims: Vec<i64> = batch.iter().map(|&(d, _)| d).collect();
    if !implicit {
        dims.insert(ivd, k as i64);
    }
    let position = |b: usize| if b >= ivd { b + 1 } else { b } as i64;
    let mut batching = vec![0; batching_sizes.len()];
    for (b, &(_, partner)) in batch.iter().enumerate() {
        if let Some(j) = partner {
            batching[j] = position(b);
        }
    }
    Indices {
        shape: Shape::new(ty, &dims),
        index_vector_dim: ivd as i64,
        batching,
        batch_dims: batch.iter().map(|&(d, _)| d).collect(),
    }
}

/// The `(update computation, name)` of a scatter with one input of `ty`:
/// add, max, min, "replace" (the update) or the current value minus the
/// update (the last two are not commutative: their result depends on the
/// order repeated indices are applied in).
fn update_computation(rng: &mut Rng, ty: ElementType) -> Result<(Computation, &'static str)> {
    let kind = rng.below(5);
    let name = ["add", "max", "min", "replace", "subtract"][kind as usize];
    let mut b = Builder::new(name);
    let cur = b.parameter(0, Shape::scalar(ty), "cur")?;
    let upd = b.parameter(1, Shape::scalar(ty), "upd")?;
    let root = match kind {
        0 if !ty.is_pred() => b.add(cur, upd, &[])?,
        // Complex numbers have no max or min (they replace instead).
        1 if !ty.is_complex() => b.max(cur, upd, &[])?,
        2 if !ty.is_complex() => b.min(cur, upd, &[])?,
        4 if !ty.is_pred() => b.sub(cur, upd, &[])?,
        _ => upd,
    };
    Ok((b.build(root)?, name))
}

/// The update computation of a scatter with two inputs of `types`: each
/// result the sum (`or` for pred) of its current value and its update, or
/// both results taken from the pair with the larger first value.
pub(crate) fn pair_computation(rng: &mut Rng, types: [ElementType; 2]) -> Result<Computation> {
    let mut b = Builder::new("pair");
    let cur: Vec<Op> = (0..2)
        .map(|i| b.parameter(i, Shape::scalar(types[i as usize]), &format!("cur{i}")))
        .collect::<Result<_>>()?;
    let upd: Vec<Op> = (0..2)
        .map(|i| b.parameter(i + 2, Shape::scalar(types[i as usize]), &format!("upd{i}")))
        .collect::<Result<_>>()?;
    // The larger first value: not for complex numbers, which have no order.
    let out = if rng.chance(0.5) && !types[0].is_complex() {
        let gt = b.compare(upd[0], cur[0], oxla_ir::ComparisonDirection::Gt, &[])?;
        vec![b.select(gt, upd[0], cur[0])?, b.select(gt, upd[1], cur[1])?]
    } else {
        (0..2)
            .map(|i| {
                if types[i].is_pred() {
                    b.or(cur[i], upd[i], &[])
                } else {
                    b.add(cur[i], upd[i], &[])
                }
            })
            .collect::<Result<_>>()?
    };
    let root = b.tuple(&out)?;
    b.build(root)
}

impl Gen<'_> {
    /// One random indexing op on `a` (of shape `s`), with its shape by the
    /// generator's model; `None` when `a` does not suit the op picked.
    pub(crate) fn indexing_step(
        &mut self,
        a: Op,
        s: &Shape,
    ) -> Result<Option<(Op, Shape, &'static str)>> {
        match self.rng.below(4) {
            0 => self.gather(a, s),
            1 => self.scatter(a, s),
            2 => self.dynamic_slice(a, s),
            _ => self.dynamic_update_slice(a, s),
        }
    }

    fn gather(&mut self, a: Op, s: &Shape) -> Result<Option<(Op, Shape, &'static str)>> {
        let r = s.rank() as i64;
        let all: Vec<i64> = (0..r).collect();
        // One batching dimension at most; the index vector indexes others.
        let batching = subset(self.rng, &all, 1);
        let free: Vec<i64> = all
            .iter()
            .copied()
            .filter(|d| !batching.contains(d))
            .collect();
        let k = self.rng.below(free.len() as u64 + 1) as usize;
        let start_index_map = shuffled_pick(self.rng, &free, k.min(2));
        let collapsed = subset(self.rng, &free, free.len());
        let slice_sizes: Vec<i64> = (0..r)
            .map(|d| {
                let n = s.dims()[d as usize];
                if batching.contains(&d) || collapsed.contains(&d) {
                    n.min(1)
                } else {
                    self.rng.below(n as u64 + 1) as i64
                }
            })
            .collect();
        let window: Vec<i64> = (0..r)
            .filter(|d| !batching.contains(d) && !collapsed.contains(d))
            .map(|d| slice_sizes[d as usize])
            .collect();
        let ty = index_type(self.rng, &self.cfg.element_types);
        let batching_sizes: Vec<i64> = batching.iter().map(|&d| s.dims()[d as usize]).collect();
        let idx = gen_indices(self, start_index_map.len(), &batching_sizes, ty);
        // The result: the window's sizes at offset_dims (a random sorted
        // subset of the result's dimensions), the batch elsewhere.
        let out_rank = (window.len() + idx.batch_dims.len()) as i64;
        let mut offset_dims: Vec<i64> = (0..out_rank).collect();
        while offset_dims.len() > window.len() {
            let i = self.rng.below(offset_dims.len() as u64) as usize;
            offset_dims.remove(i);
        }
        let (mut w, mut b) = (window.iter(), idx.batch_dims.iter());
        let out: Vec<i64> = (0..out_rank)
            .map(|i| {
                *if offset_dims.contains(&i) {
                    w.next()
                } else {
                    b.next()
                }
                .unwrap_or(&0)
            })
            .collect();
        let dims = GatherDimensionNumbers {
            offset_dims,
            collapsed_slice_dims: collapsed,
            start_index_map,
            operand_batching_dims: batching,
            start_indices_batching_dims: idx.batching.clone(),
            index_vector_dim: idx.index_vector_dim,
        };
        let indices = self.param(idx.shape)?;
        let sorted = self.rng.chance(0.1);
        let op = self.b.gather(a, indices, &dims, &slice_sizes, sorted)?;
        Ok(Some((op, Shape::new(s.element_type(), &out), "gather")))
    }

    fn scatter(&mut self, a: Op, s: &Shape) -> Result<Option<(Op, Shape, &'static str)>> {
        let r = s.rank() as i64;
        let all: Vec<i64> = (0..r).collect();
        let batching = subset(self.rng, &all, 1);
        let free: Vec<i64> = all
            .iter()
            .copied()
            .filter(|d| !batching.contains(d))
            .collect();
        let k = self.rng.below(free.len() as u64 + 1) as usize;
        let sdod = shuffled_pick(self.rng, &free, k.min(2));
        let inserted = subset(self.rng, &free, free.len());
        // The window: the input dims neither inserted nor batching, each
        // at most as large as the input's.
        let window: Vec<i64> = all
            .iter()
            .filter(|d| !batching.contains(d) && !inserted.contains(d))
            .map(|&d| self.rng.below(s.dims()[d as usize] as u64 + 1) as i64)
            .collect();
        let ty = index_type(self.rng, &self.cfg.element_types);
        let batching_sizes: Vec<i64> = batching.iter().map(|&d| s.dims()[d as usize]).collect();
        let idx = gen_indices(self, sdod.len(), &batching_sizes, ty);
        // The updates: the window at update_window_dims, the batch elsewhere.
        let urank = (window.len() + idx.batch_dims.len()) as i64;
        let mut uwd: Vec<i64> = (0..urank).collect();
        while uwd.len() > window.len() {
            let i = self.rng.below(uwd.len() as u64) as usize;
            uwd.remove(i);
        }
        let (mut w, mut b) = (window.iter(), idx.batch_dims.iter());
        let udims: Vec<i64> = (0..urank)
            .map(|i| *if uwd.contains(&i) { w.next() } else { b.next() }.unwrap_or(&0))
            .collect();
        let dims = ScatterDimensionNumbers {
            update_window_dims: uwd,
            inserted_window_dims: inserted,
            scatter_dims_to_operand_dims: sdod,
            input_batching_dims: batching,
            scatter_indices_batching_dims: idx.batching.clone(),
            index_vector_dim: idx.index_vector_dim,
        };
        let indices = self.param(idx.shape)?;
        let ety = s.element_type();
        // Two inputs make a tuple, which only programs with control flow
        // and tuples read (the chance is drawn either way, so the stream
        // of programs with tuples on is unchanged).
        let (op, shape, name) = if self.rng.chance(0.25) && self.cfg.control_flow {
            // Two inputs: a second one of another element type.
            let ty2 = self.rng.pick(&self.cfg.element_types);
            let second = self.param(Shape::new(ty2, s.dims()))?;
            let u0 = self.param(Shape::new(ety, &udims))?;
            let u1 = self.param(Shape::new(ty2, &udims))?;
            let f = pair_computation(self.rng, [ety, ty2])?;
            let op = self
                .b
                .scatter(&[a, second], indices, &[u0, u1], &f, &dims, false, false)?;
            let shape = Shape::tuple(vec![s.clone(), Shape::new(ty2, s.dims())]);
            (op, shape, "scatter (two inputs)")
        } else {
            let u = self.param(Shape::new(ety, &udims))?;
            let (f, _) = update_computation(self.rng, ety)?;
            let op = self
                .b
                .scatter(&[a], indices, &[u], &f, &dims, false, false)?;
            (op, s.clone(), "scatter")
        };
        Ok(Some((op, shape, name)))
    }

    fn dynamic_starts(&mut self, rank: usize) -> Result<Vec<Op>> {
        let ty = index_type(self.rng, &self.cfg.element_types);
        (0..rank).map(|_| self.param(Shape::scalar(ty))).collect()
    }

    fn dynamic_slice(&mut self, a: Op, s: &Shape) -> Result<Option<(Op, Shape, &'static str)>> {
        let sizes: Vec<i64> = s
            .dims()
            .iter()
            .map(|&n| self.rng.below(n as u64 + 1) as i64)
            .collect();
        let starts = self.dynamic_starts(s.rank())?;
        let op = self.b.dynamic_slice(a, &starts, &sizes)?;
        Ok(Some((
            op,
            Shape::new(s.element_type(), &sizes),
            "dynamic-slice",
        )))
    }

    fn dynamic_update_slice(
        &mut self,
        a: Op,
        s: &Shape,
    ) -> Result<Option<(Op, Shape, &'static str)>> {
        let sizes: Vec<i64> = s
            .dims()
            .iter()
            .map(|&n| self.rng.below(n as u64 + 1) as i64)
            .collect();
        let update = self.param(Shape::new(s.element_type(), &sizes))?;
        let starts = self.dynamic_starts(s.rank())?;
        let op = self.b.dynamic_update_slice(a, update, &starts)?;
        Ok(Some((op, s.clone(), "dynamic-update-slice")))
    }
}
