//! A `scatter` of several inputs (a tuple result) as one-input scatters
//! of packed bit patterns, so a backend with a one-input `scatter` kernel
//! runs it with the same bits.
//!
//! The interpreter (`oxla_interp`'s scatter) walks the updates once, the
//! scatter dimensions outer and the window dimensions inner (row-major),
//! skips a window whose start is out of bounds in any dimension, and at
//! each element it writes calls the combiner on the tuple of the inputs'
//! current values and the tuple of the updates. Every input is indexed
//! alike, so the inputs travel together: here the values of the inputs
//! whose results depend on one another (a *group*) are packed into one
//! unsigned integer per element (each input's bits, through the unsigned
//! type of its width, at its own offset; `pred` as one bit), a one-input
//! scatter runs on the packed arrays with a combiner that unpacks its two
//! arguments, applies the original combiner's elementwise ops and packs
//! the group's results, and the result is unpacked. The same updates meet
//! the same values in the same order, and packing and unpacking are
//! integer operations on bit patterns, so every result has the
//! interpreter's bits (NaN payloads included).
//!
//! Groups: result `k` depends on the combiner parameters its value reads
//! (current value `j` is parameter `j`, update `j` parameter `n + j`);
//! results `k` and `j` are in one group when either reads the other's
//! input (closed transitively). Independent inputs (`.at[].set` on several
//! arrays, a pair summed componentwise) become one scatter each, of any
//! width; a coupled group (the pair with the larger first value) of at
//! most 64 bits is one packed scatter. A coupled group wider than that is
//! a `while` loop over the scatter positions in the interpreter's order:
//! per position, its start read from the indices and checked unclamped,
//! the inputs' and updates' windows sliced out, the combiner applied to
//! whole windows (the elements of one window are distinct) and kept where
//! the window is in bounds, written back with `dynamic-update-slice`: the
//! same values combined in the same order, one loop iteration per
//! position (slow for many positions; exact).
//!
//! Expanded only when that is exact: a combiner of elementwise ops (as
//! for the variadic `reduce-window`, [`super::reduce_window`]) whose root
//! is a tuple, and inputs of real types (not complex, not tuples).
//! Otherwise the op is kept (a backend refuses it).

use super::reduce_window::{Lifted, lift};
use crate::ir::Body;
use crate::{
    Builder, Computation, ElementType, Literal, Op, OpKind, Result, ScatterDimensionNumbers, Shape,
};

/// The widest group packed (the widest unsigned type).
pub(crate) const MAX_GROUP_BITS: u32 = 64;

/// The bits an input of `ty` takes in a packed value; `None` for the
/// types that are not packed (complex, tuples, tokens).
pub(crate) fn packed_width(ty: ElementType) -> Option<u32> {
    if ty.is_pred() {
        Some(1)
    } else if ty.is_complex() || ty == ElementType::Tuple || ty == ElementType::Token {
        None
    } else {
        Some(ty.bit_width())
    }
}

/// The unsigned type of the smallest width of 8, 16, 32 and 64 that
/// holds `bits`.
pub(crate) fn packed_type(bits: u32) -> Option<ElementType> {
    [8, 16, 32, 64]
        .into_iter()
        .find(|&w| w >= bits)
        .and_then(ElementType::unsigned_of_width)
}

/// The scalar `value` of the unsigned type `ty`, broadcast to `dims`.
fn splat(b: &mut Builder, ty: ElementType, value: u64, dims: &[i64]) -> Result<Op> {
    let lit = match ty.bit_width() {
        8 => Literal::scalar(value as u8),
        16 => Literal::scalar(value as u16),
        32 => Literal::scalar(value as u32),
        64 => Literal::scalar(value),
        _ => {
            return Err(crate::Error::UnsupportedElementType {
                op: "scatter".into(),
                shape: Shape::scalar(ty).to_string(),
                expected: "a packed type of 8, 16, 32 or 64 bits".into(),
                help: "pack the scatter's inputs into u8, u16, u32 or u64.".into(),
            });
        }
    };
    let c = b.constant(lit)?;
    if dims.is_empty() {
        Ok(c)
    } else {
        b.broadcast_in_dim(c, dims, &[])
    }
}

/// `values` (each of its element type, all of dims `dims`) packed into
/// one array of the unsigned type `packed`, the first value in the lowest
/// bits.
pub(crate) fn pack(
    b: &mut Builder,
    values: &[Op],
    packed: ElementType,
    dims: &[i64],
) -> Result<Op> {
    let mut acc: Option<Op> = None;
    let mut offset = 0u32;
    for &x in values {
        let ty = b.shape(x)?.element_type();
        let width = packed_width(ty).unwrap_or(0);
        let bits = if ty.is_pred() {
            b.convert(x, packed)?
        } else {
            let unsigned = ElementType::unsigned_of_width(width).unwrap_or(ty);
            let u = if unsigned == ty {
                x
            } else {
                b.bitcast_convert_type(x, unsigned)?
            };
            if unsigned == packed {
                u
            } else {
                b.convert(u, packed)?
            }
        };
        let placed = if offset == 0 {
            bits
        } else {
            let s = splat(b, packed, u64::from(offset), dims)?;
            b.shift_left(bits, s, &[])?
        };
        acc = Some(match acc {
            Some(a) => b.or(a, placed, &[])?,
            None => placed,
        });
        offset += width;
    }
    match acc {
        Some(a) => Ok(a),
        None => splat(b, packed, 0, dims),
    }
}

/// The values of `types` packed in `x` (of the unsigned type `packed`)
/// by [`pack`].
pub(crate) fn unpack(
    b: &mut Builder,
    x: Op,
    types: &[ElementType],
    packed: ElementType,
    dims: &[i64],
) -> Result<Vec<Op>> {
    let mut out = Vec::with_capacity(types.len());
    let mut offset = 0u32;
    for &ty in types {
        let width = packed_width(ty).unwrap_or(0);
        let shifted = if offset == 0 {
            x
        } else {
            let s = splat(b, packed, u64::from(offset), dims)?;
            b.shift_right_logical(x, s, &[])?
        };
        let bits = if width == packed.bit_width() {
            shifted
        } else {
            let m = splat(b, packed, (1u64 << width) - 1, dims)?;
            b.and(shifted, m, &[])?
        };
        let v = if ty.is_pred() {
            let zero = splat(b, packed, 0, dims)?;
            b.ne(bits, zero, &[])?
        } else {
            let unsigned = ElementType::unsigned_of_width(width).unwrap_or(ty);
            let u = if unsigned == packed {
                bits
            } else {
                b.convert(bits, unsigned)?
            };
            if unsigned == ty {
                u
            } else {
                b.bitcast_convert_type(u, ty)?
            }
        };
        out.push(v);
        offset += width;
    }
    Ok(out)
}

/// The groups of the results of `combiner`, a body of `2 n` scalar
/// parameters returning a tuple of `n` (see the module docs), each in
/// ascending order; `None` when its root is not such a tuple.
pub(crate) fn groups(combiner: &Body, n: usize) -> Option<Vec<Vec<usize>>> {
    if n == 0 || 2 * n > 64 {
        return None;
    }
    // The parameters each instruction reads, as a bit set.
    let mut reads: Vec<u64> = Vec::with_capacity(combiner.instructions.len());
    for inst in &combiner.instructions {
        let r = if let OpKind::Parameter { number } = &inst.kind {
            1u64.checked_shl(u32::try_from(*number).ok()?).unwrap_or(0)
        } else {
            inst.operands
                .iter()
                .filter_map(|o| reads.get(o.index()))
                .fold(0, |a, &r| a | r)
        };
        reads.push(r);
    }
    let root = combiner.instructions.get(combiner.root.index())?;
    if !matches!(root.kind, OpKind::Tuple) || root.operands.len() != n {
        return None;
    }
    // Union-find over the results.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut k: usize) -> usize {
        while parent[k] != k {
            parent[k] = parent[parent[k]];
            k = parent[k];
        }
        k
    }
    for (k, o) in root.operands.iter().enumerate() {
        let r = *reads.get(o.index())?;
        for p in 0..2 * n {
            if r & (1u64 << p) != 0 {
                let (a, c) = (find(&mut parent, k), find(&mut parent, p % n));
                parent[a] = c;
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; n];
    for k in 0..n {
        let r = find(&mut parent, k);
        match slot[r] {
            Some(g) => out[g].push(k),
            None => {
                slot[r] = Some(out.len());
                out.push(vec![k]);
            }
        }
    }
    Some(out)
}

/// The one-input combiner of `group`: two scalars of `packed`, unpacked
/// into the group's current values and updates, `combiner`'s elementwise
/// ops applied (the other inputs' parameters read zeros, which the
/// group's results do not depend on), the group's results packed.
fn packed_combiner(
    combiner: &Body,
    types: &[ElementType],
    group: &[usize],
    packed: ElementType,
) -> Result<Option<Computation>> {
    let n = types.len();
    let mut b = Builder::new("packed_combiner");
    let cur = b.parameter(0, Shape::scalar(packed), "current")?;
    let upd = b.parameter(1, Shape::scalar(packed), "update")?;
    let group_types: Vec<ElementType> = group.iter().map(|&k| types[k]).collect();
    let cur_values = unpack(&mut b, cur, &group_types, packed, &[])?;
    let upd_values = unpack(&mut b, upd, &group_types, packed, &[])?;
    let mut params = Vec::with_capacity(2 * n);
    for (half, values) in [&cur_values, &upd_values].into_iter().enumerate() {
        for (j, &ty) in types.iter().enumerate() {
            let p = match group.iter().position(|&k| k == j) {
                Some(g) => values[g],
                None => b.constant(Literal::zeros(&Shape::scalar(ty))?)?,
            };
            debug_assert!(params.len() == half * n + j);
            params.push(p);
        }
    }
    let Some(Lifted::Tuple(results)) = lift(&mut b, combiner, &params, &[])? else {
        return Ok(None);
    };
    let mut mine = Vec::with_capacity(group.len());
    for &k in group {
        match results.get(k).and_then(Lifted::array) {
            Some(r) => mine.push(r),
            None => return Ok(None),
        }
    }
    let root = pack(&mut b, &mine, packed, &[])?;
    b.build(root).map(Some)
}

/// `scatter` of the arrays `inputs` at `indices` with the arrays
/// `updates`, the combiner `combiner` (a body of the computation) and
/// `dims`, built from one-input scatters of packed values and, for groups
/// wider than 64 bits, loops (see the module docs); the results in input
/// order, or `None` when it is not expanded.
#[allow(clippy::too_many_arguments)]
pub fn scatter(
    b: &mut Builder,
    inputs: &[Op],
    indices: Op,
    updates: &[Op],
    combiner: &Body,
    dims: &ScatterDimensionNumbers,
    indices_are_sorted: bool,
    unique_indices: bool,
) -> Result<Option<Vec<Op>>> {
    let n = inputs.len();
    if updates.len() != n {
        return Ok(None);
    }
    let Some(groups) = groups(combiner, n) else {
        return Ok(None);
    };
    let mut types = Vec::with_capacity(n);
    for &x in inputs {
        types.push(b.shape(x)?.element_type());
    }
    let mut packed_types = Vec::with_capacity(groups.len());
    for g in &groups {
        let bits = g
            .iter()
            .map(|&k| packed_width(types[k]))
            .try_fold(0u32, |s, w| w.map(|w| s + w));
        let Some(bits) = bits else {
            return Ok(None);
        };
        // `None`: wider than any unsigned type, run as a loop.
        packed_types.push(
            Some(bits)
                .filter(|&b| b <= MAX_GROUP_BITS)
                .and_then(packed_type),
        );
    }
    let in_dims = b.shape(inputs[0])?.dims().to_vec();
    let upd_dims = b.shape(updates[0])?.dims().to_vec();
    let mut results: Vec<Option<Op>> = vec![None; n];
    for (g, &packed) in groups.iter().zip(&packed_types) {
        let Some(packed) = packed else {
            let Some(outs) = scatter_loop(b, inputs, indices, updates, combiner, dims, g)? else {
                return Ok(None);
            };
            for (&k, r) in g.iter().zip(outs) {
                results[k] = Some(r);
            }
            continue;
        };
        let Some(f) = packed_combiner(combiner, &types, g, packed)? else {
            return Ok(None);
        };
        let xs: Vec<Op> = g.iter().map(|&k| inputs[k]).collect();
        let us: Vec<Op> = g.iter().map(|&k| updates[k]).collect();
        let x = pack(b, &xs, packed, &in_dims)?;
        let u = pack(b, &us, packed, &upd_dims)?;
        let s = b.scatter(
            &[x],
            indices,
            &[u],
            &f,
            dims,
            indices_are_sorted,
            unique_indices,
        )?;
        let group_types: Vec<ElementType> = g.iter().map(|&k| types[k]).collect();
        for (&k, r) in g.iter().zip(unpack(b, s, &group_types, packed, &in_dims)?) {
            results[k] = Some(r);
        }
    }
    Ok(results.into_iter().collect())
}

/// The results of `group` of a scatter (as [`scatter`]) computed by a
/// `while` loop over the scatter positions in row-major order (the
/// interpreter's): per position, the start read from the indices and
/// checked unclamped against `[0, dim - window]`, the window of each input
/// and of each update sliced out, the combiner's elementwise ops applied
/// to whole windows (the positions of one window are distinct elements),
/// kept only when the window is in bounds, and written back. `None` when
/// the combiner is not elementwise.
fn scatter_loop(
    b: &mut Builder,
    inputs: &[Op],
    indices: Op,
    updates: &[Op],
    combiner: &Body,
    dims: &ScatterDimensionNumbers,
    group: &[usize],
) -> Result<Option<Vec<Op>>> {
    let n = inputs.len();
    let in_dims = b.shape(inputs[0])?.dims().to_vec();
    let upd_dims = b.shape(updates[0])?.dims().to_vec();
    let irank = b.shape(indices)?.rank();
    let mine: Vec<Op> = group.iter().map(|&k| inputs[k]).collect();
    let rank = in_dims.len();
    let window_update: Vec<usize> = dims
        .update_window_dims
        .iter()
        .map(|&d| d as usize)
        .collect();
    let scatter_update: Vec<usize> = (0..upd_dims.len())
        .filter(|d| !window_update.contains(d))
        .collect();
    let window_input: Vec<usize> = (0..rank)
        .filter(|&d| {
            let d = d as i64;
            !dims.inserted_window_dims.contains(&d) && !dims.input_batching_dims.contains(&d)
        })
        .collect();
    let mut window = vec![1i64; rank];
    for (&d, &u) in window_input.iter().zip(&window_update) {
        window[d] = upd_dims[u];
    }
    let positions: i64 = scatter_update.iter().map(|&d| upd_dims[d]).product();
    let nothing = positions <= 0
        || upd_dims.contains(&0)
        || in_dims.iter().zip(&window).any(|(&n, &w)| w > n || n <= 0);
    if nothing {
        // No window is applied: the inputs as they are.
        return Ok(Some(mine));
    }
    let mut types = Vec::with_capacity(n);
    for &x in inputs {
        types.push(b.shape(x)?.element_type());
    }
    // The loop state: (position, the group's inputs, indices, updates).
    let mut state_ops = vec![b.constant(Literal::scalar(0i64))?];
    state_ops.extend(&mine);
    state_ops.push(indices);
    state_ops.extend(group.iter().map(|&k| updates[k]));
    let state = b.tuple(&state_ops)?;
    let state_shape = b.shape(state)?;
    let g = group.len();

    let mut c = Builder::new("scatter_positions_left");
    let st = c.parameter(0, state_shape.clone(), "state")?;
    let i = c.get_tuple_element(st, 0)?;
    let end = c.constant(Literal::scalar(positions))?;
    let more = c.lt(i, end, &[])?;
    let condition = c.build(more)?;

    let mut w = Builder::new("scatter_position");
    let st = w.parameter(0, state_shape, "state")?;
    let i = w.get_tuple_element(st, 0)?;
    let mut xs = Vec::with_capacity(g);
    for k in 0..g {
        xs.push(w.get_tuple_element(st, 1 + k as i64)?);
    }
    let idx = w.get_tuple_element(st, 1 + g as i64)?;
    let mut us = Vec::with_capacity(g);
    for k in 0..g {
        us.push(w.get_tuple_element(st, 2 + (g + k) as i64)?);
    }
    // The position's coordinates along the update's scatter dimensions
    // (row-major), which are the indices' batch dimensions in order.
    let mut coords = Vec::with_capacity(scatter_update.len());
    let mut stride = positions;
    for &d in &scatter_update {
        stride /= upd_dims[d];
        let s = w.constant(Literal::scalar(stride))?;
        let size = w.constant(Literal::scalar(upd_dims[d]))?;
        let q = w.div(i, s, &[])?;
        coords.push(w.rem(q, size, &[])?);
    }
    let zero = w.constant(Literal::scalar(0i64))?;
    let ivd = dims.index_vector_dim as usize;
    let batch_dims: Vec<usize> = (0..irank.max(ivd + 1)).filter(|&d| d != ivd).collect();
    let coord_of = |e: usize| -> Op {
        batch_dims
            .iter()
            .position(|&d| d == e)
            .and_then(|j| coords.get(j).copied())
            .unwrap_or(zero)
    };
    let mut starts = vec![zero; rank];
    let mut in_bounds = w.constant(Literal::scalar(true))?;
    for (k, &d) in dims.scatter_dims_to_operand_dims.iter().enumerate() {
        let d = d as usize;
        let raw = if irank == 0 {
            idx
        } else {
            let mut at = Vec::with_capacity(irank);
            for e in 0..irank {
                at.push(if e == ivd {
                    w.constant(Literal::scalar(k as i64))?
                } else {
                    coord_of(e)
                });
            }
            let one = w.dynamic_slice(idx, &at, &vec![1; irank])?;
            w.reshape(one, &[])?
        };
        // Widened to s64 (a u64 past i64::MAX wraps negative: out of
        // bounds either way).
        let v = w.convert(raw, ElementType::S64)?;
        let top = w.constant(Literal::scalar(in_dims[d] - window[d]))?;
        let ge = w.ge(v, zero, &[])?;
        let le = w.le(v, top, &[])?;
        let ok = w.and(ge, le, &[])?;
        in_bounds = w.and(in_bounds, ok, &[])?;
        starts[d] = v;
    }
    for (&d, &e) in dims
        .input_batching_dims
        .iter()
        .zip(&dims.scatter_indices_batching_dims)
    {
        starts[d as usize] = coord_of(e as usize);
    }
    // Each update's window at this position, in the input's layout.
    let mut upd_starts = vec![zero; upd_dims.len()];
    let mut upd_sizes = upd_dims.clone();
    for (j, &d) in scatter_update.iter().enumerate() {
        upd_starts[d] = coords[j];
        upd_sizes[d] = 1;
    }
    let mut params = Vec::with_capacity(2 * n);
    for half in 0..2 {
        for (j, &ty) in types.iter().enumerate() {
            let p = match group.iter().position(|&k| k == j) {
                Some(q) if half == 0 => w.dynamic_slice(xs[q], &starts, &window)?,
                Some(q) => {
                    let u = w.dynamic_slice(us[q], &upd_starts, &upd_sizes)?;
                    w.reshape(u, &window)?
                }
                None => {
                    let z = w.constant(Literal::zeros(&Shape::scalar(ty))?)?;
                    w.broadcast_in_dim(z, &window, &[])?
                }
            };
            params.push(p);
        }
    }
    let Some(Lifted::Tuple(results)) = lift(&mut w, combiner, &params, &window)? else {
        return Ok(None);
    };
    let keep = w.broadcast_in_dim(in_bounds, &window, &[])?;
    let mut next = Vec::with_capacity(state_ops.len());
    let one = w.constant(Literal::scalar(1i64))?;
    next.push(w.add(i, one, &[])?);
    for (q, &k) in group.iter().enumerate() {
        let Some(r) = results.get(k).and_then(Lifted::array) else {
            return Ok(None);
        };
        let new = w.select(keep, r, params[k])?;
        next.push(w.dynamic_update_slice(xs[q], new, &starts)?);
    }
    next.push(idx);
    next.extend(&us);
    let root = w.tuple(&next)?;
    let body = w.build(root)?;

    let done = b.while_loop(&condition, &body, state)?;
    let mut out = Vec::with_capacity(g);
    for k in 0..g {
        out.push(b.get_tuple_element(done, 1 + k as i64)?);
    }
    Ok(Some(out))
}

/// `comp` with every `scatter` of several inputs built from one-input
/// scatters of packed values and loops ([`scatter`]) where its combiner is
/// elementwise; the others are kept.
///
/// ```
/// use oxla_ir::{OpKind, passes::scatter};
/// let text = "HloModule m\n\
///     pair {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n  \
///     b = f32[] parameter(2)\n  j = s32[] parameter(3)\n  \
///     gt = pred[] compare(b, a), direction=GT\n  m = f32[] select(gt, b, a)\n  \
///     k = s32[] select(gt, j, i)\n  ROOT t = (f32[], s32[]) tuple(m, k)\n}\n\
///     ENTRY m {\n  x = f32[4] parameter(0)\n  ix = s32[4] parameter(1)\n  \
///     at = s32[3,1] parameter(2)\n  u = f32[3] parameter(3)\n  ui = s32[3] parameter(4)\n  \
///     ROOT r = (f32[4], s32[4]) scatter(x, ix, at, u, ui), update_window_dims={}, \
///     inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, \
///     to_apply=pair\n}\n";
/// let comp = oxla_ir::parse_hlo_module(text)?;
/// let out = scatter::expand_all(&comp)?;
/// let entry = out.entry();
/// let scatters: Vec<_> = entry.instructions.iter()
///     .filter(|i| matches!(i.kind, OpKind::Scatter { .. })).collect();
/// // One scatter of (f32, s32) pairs packed into u64.
/// assert_eq!(scatters.len(), 1);
/// assert_eq!(scatters[0].shape.to_string(), "u64[4]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "scatter::expand_all pass", |inst, operands| {
        let OpKind::Scatter {
            dims,
            indices_are_sorted,
            unique_indices,
            to_apply,
        } = &inst.kind
        else {
            return Ok(None);
        };
        if !is_variadic(&inst.kind, operands.len(), &inst.shape) {
            return Ok(None);
        }
        let Some(combiner) = comp.bodies().get(to_apply.index()) else {
            return Ok(None);
        };
        let n = (operands.len() - 1) / 2;
        let mut b = Builder::new("scatter");
        let mut params = Vec::with_capacity(operands.len());
        for (k, s) in operands.iter().enumerate() {
            params.push(b.parameter(k as i64, s.clone(), &format!("p{k}"))?);
        }
        let (inputs, rest) = params.split_at(n);
        let (indices, updates) = (rest[0], &rest[1..]);
        match scatter(
            &mut b,
            inputs,
            indices,
            updates,
            combiner,
            dims,
            *indices_are_sorted,
            *unique_indices,
        )? {
            Some(outs) => {
                let t = b.tuple(&outs)?;
                b.build(t).map(Some)
            }
            None => Ok(None),
        }
    })
}

/// Whether `inst`'s kind is a `scatter` [`expand_all`] looks at.
pub(crate) fn is_variadic(kind: &OpKind, operands: usize, shape: &Shape) -> bool {
    matches!(kind, OpKind::Scatter { .. }) && (operands != 3 || shape.is_tuple())
}
