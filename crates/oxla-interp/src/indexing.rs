//! The indexing family: `gather`, `scatter`, `dynamic-slice` and
//! `dynamic-update-slice`, as XLA's `HloEvaluator` runs them.
//!
//! Each op first turns its index operands into positions in row-major
//! data, then moves values. The rules, all XLA's:
//!
//! - **Indices** of any integer type, unsigned included, are widened
//!   before use (a `u64` above `i64::MAX` saturates to `i64::MAX`, which
//!   behaves as the huge value it is: every start beyond the operand clamps
//!   or skips alike).
//! - **`gather`, `dynamic-slice`, `dynamic-update-slice` clamp** every
//!   start to `[0, dim - size]` (size = the slice size or update dim), so
//!   the slice or update always lies inside the operand, shifted if need
//!   be. A `gather`'s batching dimensions take their index from the batch
//!   position, unclamped (shape inference guarantees it is in range). A
//!   `gather` whose slice is empty in a collapsed dimension (slice size 0)
//!   still has result elements: they are zeros, as XLA's CPU backend gives.
//! - **`scatter` skips** an update window **whole** when, in any input
//!   dimension, its start is negative or past `dim - window_size` (XLA's
//!   rule; StableHLO's spec skips element by element instead). Windows are
//!   applied in XLA's evaluator order: the updates' scatter dimensions in
//!   row-major order, and within each window its elements in row-major
//!   order; a repeated index applies every update, in that order. The
//!   update computation gets `(current, update)` in that order, so a
//!   non-commutative one ("replace": return the update) is deterministic:
//!   the last update wins.
//!
//! Invariant: positions are computed from dimension numbers that shape
//! inference has checked, and every position is checked against the data
//! before it is read or written, so malformed input is an `Err`, never a
//! panic. The work is linear in the result (`gather`, `dynamic-slice`) or
//! in the updates (`scatter`, `dynamic-update-slice`), plus one pass over
//! the indices.

use oxla_ir::shape::row_major_strides;
use oxla_ir::{
    ArrayData, Body, ComputationId, GatherDimensionNumbers, Literal, NativeType,
    ScatterDimensionNumbers, SubByteInt, dispatch_array,
};

use crate::Eval;
use crate::element::Element;
use crate::index::for_each_index;
use crate::ops::{OpResult, array};
use crate::value::Value;

/// The values of an integer array, widened to `i64` (saturating: only a
/// `u64` above `i64::MAX` changes, and it stays out of range either way).
pub(crate) fn index_values(indices: &Literal) -> OpResult<Vec<i64>> {
    integer_values(indices, |x| i64::try_from(x).unwrap_or(i64::MAX))
}

/// The values of an integer array, every one exact (`u64` included).
pub(crate) fn exact_integer_values(values: &Literal) -> OpResult<Vec<i128>> {
    integer_values(values, i128::from)
}

/// The values of an integer array as `W`, a `u64` through `from_u64` (the
/// one integer type `i64` does not hold).
fn integer_values<W: From<i64>>(
    indices: &Literal,
    from_u64: impl Fn(u64) -> W,
) -> OpResult<Vec<W>> {
    fn widen<T: Copy, W: From<i64>>(v: &[T], f: impl Fn(T) -> i64) -> OpResult<Vec<W>> {
        Ok(v.iter().map(|&x| W::from(f(x))).collect())
    }
    let not_integer = |ty: &str| Err(format!("indices must be integers, not {ty}"));
    match array(indices)? {
        ArrayData::S8(v) => widen(v, i64::from),
        ArrayData::S16(v) => widen(v, i64::from),
        ArrayData::S32(v) => widen(v, i64::from),
        ArrayData::S64(v) => widen(v, |x| x),
        ArrayData::U8(v) => widen(v, i64::from),
        ArrayData::U16(v) => widen(v, i64::from),
        ArrayData::U32(v) => widen(v, i64::from),
        ArrayData::U64(v) => Ok(v.iter().map(|&x| from_u64(x)).collect()),
        ArrayData::S1(v) => widen(v, SubByteInt::get),
        ArrayData::S2(v) => widen(v, SubByteInt::get),
        ArrayData::S4(v) => widen(v, SubByteInt::get),
        ArrayData::U1(v) => widen(v, SubByteInt::get),
        ArrayData::U2(v) => widen(v, SubByteInt::get),
        ArrayData::U4(v) => widen(v, SubByteInt::get),
        other @ (ArrayData::Pred(_)
        | ArrayData::F4E2M1FN(_)
        | ArrayData::F8E3M4(_)
        | ArrayData::F8E4M3(_)
        | ArrayData::F8E4M3FN(_)
        | ArrayData::F8E4M3FNUZ(_)
        | ArrayData::F8E4M3B11FNUZ(_)
        | ArrayData::F8E5M2(_)
        | ArrayData::F8E5M2FNUZ(_)
        | ArrayData::F8E8M0FNU(_)
        | ArrayData::Bf16(_)
        | ArrayData::F16(_)
        | ArrayData::F32(_)
        | ArrayData::F64(_)
        | ArrayData::C64(_)
        | ArrayData::C128(_)) => not_integer(other.element_type().name()),
    }
}

/// A dimension number as an index (shape inference keeps them
/// non-negative).
fn dim(d: i64) -> OpResult<usize> {
    usize::try_from(d).map_err(|_| format!("negative dimension number {d}"))
}

/// The number of elements of `dims`.
fn element_count_of(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}

/// `Σ idx[j] * strides[j]` as a position below `len`, or an error.
fn position(idx: &[i64], strides: &[i64], len: usize) -> OpResult<usize> {
    let p: i64 = idx.iter().zip(strides).map(|(i, s)| i * s).sum();
    usize::try_from(p)
        .ok()
        .filter(|&p| p < len)
        .ok_or_else(|| format!("index {idx:?} is outside the data ({len} values)"))
}

/// The indices of a gather or scatter with the positions of their index
/// vectors: the values, the expanded dims (an implicit trailing 1 when
/// `index_vector_dim` equals the rank), their strides, and the dims that
/// are not the index vector dimension (the batch), in order.
struct IndexArray {
    values: Vec<i64>,
    strides: Vec<i64>,
    index_vector_dim: usize,
    /// The expanded dimensions other than `index_vector_dim`, in order.
    batch_dims: Vec<usize>,
}

impl IndexArray {
    fn new(indices: &Literal, index_vector_dim: i64) -> OpResult<IndexArray> {
        let mut dims = indices.shape().dims().to_vec();
        let index_vector_dim = dim(index_vector_dim)?;
        if index_vector_dim == dims.len() {
            dims.push(1);
        }
        Ok(IndexArray {
            values: index_values(indices)?,
            strides: row_major_strides(&dims),
            index_vector_dim,
            batch_dims: (0..dims.len()).filter(|&d| d != index_vector_dim).collect(),
        })
    }

    /// The position of the index vector at batch index `batch` (one entry
    /// per batch dimension).
    fn base(&self, batch: &[i64]) -> i64 {
        batch
            .iter()
            .zip(&self.batch_dims)
            .map(|(&b, &d)| b * self.strides[d])
            .sum()
    }

    /// Entry `k` of the index vector at `base`.
    fn value(&self, base: i64, k: usize) -> OpResult<i64> {
        usize::try_from(base + k as i64 * self.strides[self.index_vector_dim])
            .ok()
            .and_then(|p| self.values.get(p).copied())
            .ok_or_else(|| format!("index vector entry {k} at {base} is outside the indices"))
    }

    /// The batch index along expanded indices dimension `d` (a batching
    /// dimension, never the index vector dimension).
    fn batch_value(&self, batch: &[i64], d: i64) -> OpResult<i64> {
        let d = dim(d)?;
        self.batch_dims
            .iter()
            .position(|&b| b == d)
            .and_then(|j| batch.get(j).copied())
            .ok_or_else(|| format!("indices dimension {d} is not a batch dimension"))
    }
}

/// `gather`: see the module docs.
pub(crate) fn gather(
    operand: &Literal,
    indices: &Literal,
    dims: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    let operand_dims = operand.shape().dims();
    let data = array(operand)?;
    // A slice with no elements (a collapsed dimension of slice size 0)
    // reads nothing: XLA's CPU backend gives zeros for every result element.
    if slice_sizes.contains(&0) {
        return ArrayData::zeros(data.element_type(), element_count_of(out_dims))
            .ok_or_else(|| format!("no memory for a result of dims {out_dims:?}"));
    }
    let strides = row_major_strides(operand_dims);
    let idx = IndexArray::new(indices, dims.index_vector_dim)?;
    // Result dims that are not offset dims hold the batch, in order; offset
    // dims hold the operand dims that are neither collapsed nor batching.
    let out_rank = out_dims.len() as i64;
    let batch_out: Vec<usize> = (0..out_rank)
        .filter(|d| !dims.offset_dims.contains(d))
        .map(dim)
        .collect::<OpResult<_>>()?;
    let window_operand: Vec<usize> = (0..operand_dims.len() as i64)
        .filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        })
        .map(dim)
        .collect::<OpResult<_>>()?;
    let offset_out: Vec<usize> = dims
        .offset_dims
        .iter()
        .map(|&d| dim(d))
        .collect::<OpResult<_>>()?;
    if window_operand.len() != offset_out.len() {
        return Err("offset_dims do not pair with the slice dimensions".into());
    }
    let mut batch = vec![0i64; batch_out.len()];
    let mut at = vec![0i64; operand_dims.len()];
    let mut positions = Vec::with_capacity(out_dims.iter().product::<i64>().max(0) as usize);
    let mut failure = None;
    for_each_index(out_dims, |out| {
        if failure.is_some() {
            return;
        }
        let mut step = || -> OpResult<usize> {
            for (b, &d) in batch.iter_mut().zip(&batch_out) {
                *b = out[d];
            }
            at.fill(0);
            let base = idx.base(&batch);
            for (k, &d) in dims.start_index_map.iter().enumerate() {
                let d = dim(d)?;
                let max_start = operand_dims[d] - slice_sizes[d];
                at[d] = idx.value(base, k)?.clamp(0, max_start.max(0));
            }
            for (&o, &i) in dims
                .operand_batching_dims
                .iter()
                .zip(&dims.start_indices_batching_dims)
            {
                at[dim(o)?] = idx.batch_value(&batch, i)?;
            }
            for (&o, &r) in window_operand.iter().zip(&offset_out) {
                at[o] += out[r];
            }
            position(&at, &strides, data.len())
        };
        match step() {
            Ok(p) => positions.push(p),
            Err(e) => failure = Some(e),
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(data.gather(&positions)),
    }
}

/// The clamped starts of a `dynamic-slice` or `dynamic-update-slice` of
/// `sizes` in `operand_dims`, from scalar index operands (or one rank-1
/// index vector).
fn dynamic_starts(operand_dims: &[i64], indices: &[&Literal], sizes: &[i64]) -> OpResult<Vec<i64>> {
    let raw: Vec<i64> = match indices {
        [vector] if vector.shape().rank() == 1 => index_values(vector)?,
        scalars => scalars
            .iter()
            .map(|s| {
                index_values(s)?
                    .first()
                    .copied()
                    .ok_or_else(|| "an empty start index".to_string())
            })
            .collect::<OpResult<_>>()?,
    };
    if raw.len() != operand_dims.len() || sizes.len() != operand_dims.len() {
        return Err(format!(
            "{} start indices and {} sizes for rank {}",
            raw.len(),
            sizes.len(),
            operand_dims.len()
        ));
    }
    Ok(raw
        .iter()
        .zip(operand_dims.iter().zip(sizes))
        .map(|(&i, (&d, &s))| i.clamp(0, (d - s).max(0)))
        .collect())
}

/// The positions in data of `operand_dims` of the box of `sizes` at
/// `starts`, in row-major order of the box.
fn box_positions(
    operand_dims: &[i64],
    starts: &[i64],
    sizes: &[i64],
    len: usize,
) -> OpResult<Vec<usize>> {
    let strides = row_major_strides(operand_dims);
    let mut positions = Vec::with_capacity(sizes.iter().product::<i64>().max(0) as usize);
    let mut at = vec![0i64; starts.len()];
    let mut failure = None;
    for_each_index(sizes, |idx| {
        for ((a, &s), &i) in at.iter_mut().zip(starts).zip(idx) {
            *a = s + i;
        }
        match position(&at, &strides, len) {
            Ok(p) => positions.push(p),
            Err(e) => failure = failure.take().or(Some(e)),
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(positions),
    }
}

/// `dynamic-slice`: the box of `slice_sizes` at the clamped starts.
pub(crate) fn dynamic_slice(
    operand: &Literal,
    indices: &[&Literal],
    slice_sizes: &[i64],
) -> OpResult<ArrayData> {
    let operand_dims = operand.shape().dims();
    let data = array(operand)?;
    let starts = dynamic_starts(operand_dims, indices, slice_sizes)?;
    let positions = box_positions(operand_dims, &starts, slice_sizes, data.len())?;
    Ok(data.gather(&positions))
}

/// `dynamic-update-slice`: the operand with `update` written at the
/// clamped starts.
pub(crate) fn dynamic_update_slice(
    operand: &Literal,
    update: &Literal,
    indices: &[&Literal],
) -> OpResult<ArrayData> {
    fn write<T: NativeType>(out: &mut [T], update: &Literal, positions: &[usize]) -> OpResult<()> {
        let values = update.as_slice::<T>().map_err(|e| e.to_string())?;
        if values.len() != positions.len() {
            return Err(format!(
                "the update has {} values for {} positions",
                values.len(),
                positions.len()
            ));
        }
        for (&p, &v) in positions.iter().zip(values) {
            let slot = out
                .get_mut(p)
                .ok_or_else(|| format!("position {p} is outside the operand"))?;
            *slot = v;
        }
        Ok(())
    }
    let operand_dims = operand.shape().dims();
    let mut out = array(operand)?.clone();
    let starts = dynamic_starts(operand_dims, indices, update.shape().dims())?;
    let positions = box_positions(operand_dims, &starts, update.shape().dims(), out.len())?;
    dispatch_array!(&mut out, v => write(v, update, &positions))?;
    Ok(out)
}

/// The `(input position, update position)` pairs a scatter combines, in
/// XLA's evaluator order, with out-of-bounds windows left out.
fn scatter_pairs(
    input_dims: &[i64],
    indices: &Literal,
    update_dims: &[i64],
    dims: &ScatterDimensionNumbers,
) -> OpResult<Vec<(usize, usize)>> {
    let idx = IndexArray::new(indices, dims.index_vector_dim)?;
    let input_strides = row_major_strides(input_dims);
    let update_strides = row_major_strides(update_dims);
    let input_len = input_dims.iter().product::<i64>().max(0) as usize;
    let update_len = update_dims.iter().product::<i64>().max(0) as usize;
    // Update dims: window dims (update_window_dims) and scatter dims (the
    // rest, pairing in order with the indices' batch dims).
    let window_update: Vec<usize> = dims
        .update_window_dims
        .iter()
        .map(|&d| dim(d))
        .collect::<OpResult<_>>()?;
    let scatter_update: Vec<usize> = (0..update_dims.len())
        .filter(|d| !window_update.contains(d))
        .collect();
    // Input dims the window dims update, in order.
    let window_input: Vec<usize> = (0..input_dims.len() as i64)
        .filter(|d| !dims.inserted_window_dims.contains(d) && !dims.input_batching_dims.contains(d))
        .map(dim)
        .collect::<OpResult<_>>()?;
    if window_input.len() != window_update.len() {
        return Err("update_window_dims do not pair with the input's window dimensions".into());
    }
    // The window extent in every input dimension (1 where inserted or
    // batching).
    let mut window_size = vec![1i64; input_dims.len()];
    for (&i, &u) in window_input.iter().zip(&window_update) {
        window_size[i] = update_dims[u];
    }
    let scatter_space: Vec<i64> = scatter_update.iter().map(|&d| update_dims[d]).collect();
    let window_space: Vec<i64> = window_update.iter().map(|&d| update_dims[d]).collect();
    let mut pairs = Vec::with_capacity(update_len);
    let mut start = vec![0i64; input_dims.len()];
    let mut at_input = vec![0i64; input_dims.len()];
    let mut at_update = vec![0i64; update_dims.len()];
    let mut failure = None;
    for_each_index(&scatter_space, |batch| {
        if failure.is_some() {
            return;
        }
        let mut window = || -> OpResult<()> {
            start.fill(0);
            let base = idx.base(batch);
            for (k, &d) in dims.scatter_dims_to_operand_dims.iter().enumerate() {
                start[dim(d)?] = idx.value(base, k)?;
            }
            for (&i, &s) in dims
                .input_batching_dims
                .iter()
                .zip(&dims.scatter_indices_batching_dims)
            {
                start[dim(i)?] = idx.batch_value(batch, s)?;
            }
            // XLA: any part of the window out of bounds skips all of it.
            let out_of_bounds = start
                .iter()
                .zip(input_dims.iter().zip(&window_size))
                .any(|(&s, (&d, &w))| s < 0 || s > d - w);
            if out_of_bounds {
                return Ok(());
            }
            at_update.fill(0);
            for (&d, &b) in scatter_update.iter().zip(batch) {
                at_update[d] = b;
            }
            let mut inner = Ok(());
            for_each_index(&window_space, |w| {
                if inner.is_err() {
                    return;
                }
                at_input.copy_from_slice(&start);
                for ((&i, &u), &o) in window_input.iter().zip(&window_update).zip(w) {
                    at_input[i] += o;
                    at_update[u] = o;
                }
                inner = position(&at_input, &input_strides, input_len).and_then(|p| {
                    let q = position(&at_update, &update_strides, update_len)?;
                    pairs.push((p, q));
                    Ok(())
                });
            });
            inner
        };
        if let Err(e) = window() {
            failure = Some(e);
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(pairs),
    }
}

/// `scatter` of `inputs` with `updates` at `indices`, combining with body
/// `to_apply` of `comp`: the input (one) or the tuple of inputs (several).
pub(crate) fn scatter(
    (ev, depth): (&Eval<'_>, usize),
    to_apply: ComputationId,
    inputs: &[&Literal],
    indices: &Literal,
    updates: &[&Literal],
    dims: &ScatterDimensionNumbers,
) -> OpResult<Literal> {
    let (Some(first_input), Some(first_update)) = (inputs.first(), updates.first()) else {
        return Err("a scatter needs at least one input and one update".into());
    };
    let input_dims = first_input.shape().dims();
    let pairs = scatter_pairs(input_dims, indices, first_update.shape().dims(), dims)?;
    let mut results: Vec<ArrayData> = inputs
        .iter()
        .map(|i| array(i).cloned())
        .collect::<OpResult<_>>()?;
    let updates: Vec<&ArrayData> = updates.iter().map(|u| array(u)).collect::<OpResult<_>>()?;
    // One input whose update computation is one binary op of its two
    // parameters (`add`: nearly every scatter) runs as that op's function.
    let direct = ev
        .computation()
        .bodies()
        .get(to_apply.index())
        .and_then(Body::binary_reducer);
    match (&mut results[..], &updates[..], direct) {
        ([out], [update], Some(reducer)) => {
            let applied = dispatch_array!(out, v => combine_direct(v, update, &pairs, reducer))?;
            if !applied {
                combine_by_body((ev, depth), to_apply, &mut results, &updates, &pairs)?;
            }
        }
        _ => combine_by_body((ev, depth), to_apply, &mut results, &updates, &pairs)?,
    }
    let mut literals = results
        .into_iter()
        .map(|data| Literal::from_array_data(input_dims, data).map_err(|e| e.to_string()))
        .collect::<OpResult<Vec<_>>>()?;
    Ok(if literals.len() == 1 {
        literals.remove(0)
    } else {
        Literal::tuple(literals)
    })
}

/// Applies a binary-op update computation as the op's element function;
/// `false` when the element type has no such function (then the body runs).
fn combine_direct<T: Element>(
    out: &mut [T],
    update: &ArrayData,
    pairs: &[(usize, usize)],
    reducer: oxla_ir::BinaryReducer,
) -> OpResult<bool> {
    let Some(f) = T::binary_fn(reducer.op) else {
        return Ok(false);
    };
    let update = T::slice_of(update).ok_or_else(|| {
        format!(
            "the updates are {}, not {}",
            update.element_type(),
            T::ELEMENT_TYPE
        )
    })?;
    for &(p, q) in pairs {
        let (Some(&u), Some(cur)) = (update.get(q), out.get(p).copied()) else {
            return Err(format!("positions {p}, {q} are outside the data"));
        };
        let params = [cur, u];
        let (a, b) = if reducer.swapped {
            (params[1], params[0])
        } else {
            (params[0], params[1])
        };
        out[p] = f(a, b);
    }
    Ok(true)
}

/// One element of `data` as a scalar literal.
fn element(data: &ArrayData, p: usize) -> OpResult<Literal> {
    dispatch_array!(data, v => v
        .get(p)
        .map(|&x| Literal::scalar(x))
        .ok_or_else(|| format!("position {p} is outside the data")))
}

/// Writes the scalar `value` at `p` of `data` (of the same element type).
fn set_element(data: &mut ArrayData, p: usize, value: &Literal) -> OpResult<()> {
    fn set<T: NativeType>(v: &mut [T], p: usize, value: &Literal) -> OpResult<()> {
        let x = match value.as_slice::<T>() {
            Ok(&[x]) if value.shape().rank() == 0 => x,
            _ => {
                return Err(format!(
                    "the update computation returned {} where a {}[] is needed",
                    value.shape(),
                    T::ELEMENT_TYPE
                ));
            }
        };
        let slot = v
            .get_mut(p)
            .ok_or_else(|| format!("position {p} is outside the data"))?;
        *slot = x;
        Ok(())
    }
    dispatch_array!(data, v => set(v, p, value))
}

/// Runs the update computation once per pair, on
/// `(cur_0..cur_{N-1}, upd_0..upd_{N-1})`, and stores its result(s).
fn combine_by_body(
    (ev, depth): (&Eval<'_>, usize),
    to_apply: ComputationId,
    results: &mut [ArrayData],
    updates: &[&ArrayData],
    pairs: &[(usize, usize)],
) -> OpResult<()> {
    let name = ev.body_name(to_apply);
    for &(p, q) in pairs {
        let mut args = Vec::with_capacity(2 * results.len());
        for r in results.iter() {
            args.push(element(r, p)?);
        }
        for u in updates {
            args.push(element(u, q)?);
        }
        let args = args.into_iter().map(Value::from_literal).collect();
        let value = ev
            .call(to_apply, args, depth + 1)
            .map_err(|e| format!("in the update computation `{name}`: {e}"))?
            .into_literal();
        match value.tuple_elements() {
            Some(elements) if elements.len() == results.len() => {
                for (r, e) in results.iter_mut().zip(elements) {
                    set_element(r, p, e)?;
                }
            }
            Some(elements) => {
                return Err(format!(
                    "the update computation `{name}` returned {} values for {} inputs",
                    elements.len(),
                    results.len()
                ));
            }
            None => match results {
                [r] => set_element(r, p, &value)?,
                _ => {
                    return Err(format!(
                        "the update computation `{name}` returned one value for {} inputs",
                        results.len()
                    ));
                }
            },
        }
    }
    Ok(())
}
