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
//! width; a coupled group (the pair with the larger first value) is one
//! scatter of at most 64 bits.
//!
//! Expanded only when that is exact: a combiner of elementwise ops (as
//! for the variadic `reduce-window`, [`super::reduce_window`]) whose root
//! is a tuple, inputs of real types (not complex, not tuples), and every
//! group of at most 64 bits. Otherwise the op is kept (a backend refuses
//! it).

use super::reduce_window::{Lifted, lift};
use crate::ir::Body;
use crate::{
    Builder, Computation, ElementType, Literal, Op, OpKind, Result, ScatterDimensionNumbers, Shape,
};

/// The widest group packed (the widest unsigned type).
const MAX_GROUP_BITS: u32 = 64;

/// The bits an input of `ty` takes in a packed value; `None` for the
/// types that are not packed (complex, tuples, tokens).
fn packed_width(ty: ElementType) -> Option<u32> {
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
fn packed_type(bits: u32) -> Option<ElementType> {
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
        _ => Literal::scalar(value),
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
fn pack(b: &mut Builder, values: &[Op], packed: ElementType, dims: &[i64]) -> Result<Op> {
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
fn unpack(
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
fn groups(combiner: &Body, n: usize) -> Option<Vec<Vec<usize>>> {
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
/// `dims`, built from one-input scatters of packed values (see the module
/// docs); the results in input order, or `None` when it is not expanded.
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
        match bits
            .filter(|&bits| bits <= MAX_GROUP_BITS)
            .and_then(packed_type)
        {
            Some(p) => packed_types.push(p),
            None => return Ok(None),
        }
    }
    let in_dims = b.shape(inputs[0])?.dims().to_vec();
    let upd_dims = b.shape(updates[0])?.dims().to_vec();
    let mut results: Vec<Option<Op>> = vec![None; n];
    for (g, &packed) in groups.iter().zip(&packed_types) {
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

/// `comp` with every `scatter` of several inputs built from one-input
/// scatters of packed values ([`scatter`]) where that is exact; the
/// others are kept.
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
