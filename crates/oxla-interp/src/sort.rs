//! `sort` and `topk`: XLA's semantics, written as one stable merge sort.
//!
//! Both ops cut their operands into *rows*, the elements that differ only
//! in the sorted dimension (the last one for `topk`), and order each row by
//! [`merge_sort`], a bottom-up merge sort that takes an element from the
//! right run only when the comparator says it is strictly before the left
//! one. So:
//!
//! - the sort is **stable** whatever `is_stable` says (XLA's evaluator is
//!   stable too, and a strict weak order has one stable result, so ours is
//!   XLA's);
//! - it makes at most `n * ceil(log2 n)` comparator calls per row of `n`,
//!   and never loops or fails on a comparator that is not a strict weak
//!   order (`LE`, a comparator that always says true, IEEE `LT` with NaNs):
//!   the result is then some permutation, deterministic but unspecified;
//! - every operand is permuted by its row's permutation, so values follow
//!   their keys.
//!
//! A comparator is a computation on `2 * operands` scalars `(a_0, b_0, a_1,
//! b_1, ...)` returning `pred[]`; it is run through the evaluator on scalar
//! literals, except the common one-instruction `compare(p0, p1)` (or
//! `compare(p1, p0)`) of the first operand, which is applied as that
//! comparison directly (the same function the evaluator would run).
//!
//! `topk` is what XLA:CPU lowers it to: a stable sort of `(x, iota)` along
//! the last dimension by `GT` (`largest`) or `LT` in the total order of
//! floats (`TOTALORDER`; `+NaN` largest, `-NaN` smallest, `-0 < +0`) or
//! the natural order of integers and `pred`, then the first `k` of each row
//! with their indices as `s32`.

use oxla_ir::{
    ArrayData, BinaryOp, Body, ComparisonDirection, ComparisonOrder, ComputationId, Literal, Shape,
    dispatch_array,
};

use crate::Eval;
use crate::element::{Element, compare, compare_total};
use crate::ops::{OpResult, array};
use crate::value::Value;

/// The rows of an array of `dims` along `dimension`: `(count, length,
/// stride)`, where row `r` holds the elements at `start(r) + k * stride` for
/// `k` in `0..length`.
#[derive(Debug, Clone, Copy)]
struct Rows {
    count: usize,
    length: usize,
    stride: usize,
}

impl Rows {
    fn new(dims: &[i64], dimension: usize) -> OpResult<Rows> {
        let size = |ds: &[i64]| -> OpResult<usize> {
            ds.iter().try_fold(1usize, |acc, &d| {
                usize::try_from(d)
                    .ok()
                    .and_then(|d| acc.checked_mul(d))
                    .ok_or_else(|| format!("dims {ds:?} have no element count"))
            })
        };
        let length = dims
            .get(dimension)
            .ok_or_else(|| format!("dimension {dimension} is out of range for dims {dims:?}"))?;
        let stride = size(&dims[dimension + 1..])?;
        Ok(Rows {
            count: size(&dims[..dimension])? * stride,
            length: size(&[*length])?,
            stride,
        })
    }

    /// The position of the first element of row `r`.
    fn start(self, r: usize) -> usize {
        (r / self.stride) * self.length * self.stride + r % self.stride
    }
}

/// A stable merge sort of `0..n` by `before(a, b)` ("`a` must come before
/// `b`"), bottom-up: at most `n * ceil(log2 n)` calls, whatever `before`
/// answers. Returns the order: element `k` of the result is the index that
/// goes to position `k`.
pub(crate) fn merge_sort(
    n: usize,
    mut before: impl FnMut(usize, usize) -> OpResult<bool>,
) -> OpResult<Vec<usize>> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut merged = vec![0usize; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = lo.saturating_add(width).min(n);
            let hi = mid.saturating_add(width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut merged[lo..hi] {
                // The right element goes first only when it is strictly
                // before the left one: equal elements keep their order.
                let take_right = j < hi && (i >= mid || before(order[j], order[i])?);
                if take_right {
                    *slot = order[j];
                    j += 1;
                } else {
                    *slot = order[i];
                    i += 1;
                }
            }
            lo = hi;
        }
        std::mem::swap(&mut order, &mut merged);
        width = width.saturating_mul(2);
    }
    Ok(order)
}

/// `sort` of `operands` (arrays of one dims) along `dimension` by the
/// comparator body `to_apply`, called at depth `depth + 1`: the sorted
/// arrays, in operand order.
pub(crate) fn sort(
    cx: &Eval<'_>,
    to_apply: ComputationId,
    operands: &[&Literal],
    dimension: i64,
    depth: usize,
) -> OpResult<Vec<ArrayData>> {
    let first = operands.first().ok_or("sort has no operand")?;
    let dims = first.shape().dims();
    let dimension =
        usize::try_from(dimension).map_err(|_| format!("negative sort dimension {dimension}"))?;
    let rows = Rows::new(dims, dimension)?;
    let data = operands
        .iter()
        .map(|o| {
            if o.shape().dims() != dims {
                return Err(format!(
                    "sort operands have different dims: {} and {}",
                    first.shape(),
                    o.shape()
                ));
            }
            array(o)
        })
        .collect::<OpResult<Vec<&ArrayData>>>()?;
    let comparator = cx
        .comp
        .bodies()
        .get(to_apply.index())
        .ok_or_else(|| format!("no comparator computation #{}", to_apply.0))?;
    // `source[p]`: the position whose values go to position `p`.
    let mut source = vec![0usize; rows.count * rows.length];
    let mut place = |r: usize, order: &[usize]| {
        let start = rows.start(r);
        for (k, &from) in order.iter().enumerate() {
            source[start + k * rows.stride] = start + from * rows.stride;
        }
    };
    match direct_comparison(comparator) {
        Some((direction, order, swapped)) => {
            dispatch_array!(data[0], v => {
                for r in 0..rows.count {
                    let start = rows.start(r);
                    let at = |k: usize| v[start + k * rows.stride];
                    let sorted = merge_sort(rows.length, |a, b| {
                        let (a, b) = if swapped { (b, a) } else { (a, b) };
                        compare_in(direction, order, at(a), at(b))
                    })?;
                    place(r, &sorted);
                }
            })
        }
        None => {
            for r in 0..rows.count {
                let start = rows.start(r);
                // The row's elements as scalars, operand by operand.
                let scalars = data
                    .iter()
                    .map(|d| {
                        (0..rows.length)
                            .map(|k| {
                                Literal::from_array_data(&[], d.gather(&[start + k * rows.stride]))
                                    .map_err(|e| e.to_string())
                            })
                            .collect::<OpResult<Vec<Literal>>>()
                    })
                    .collect::<OpResult<Vec<Vec<Literal>>>>()?;
                let sorted = merge_sort(rows.length, |a, b| {
                    let args: Vec<Value<'_>> = scalars
                        .iter()
                        .flat_map(|s| [Value::Borrowed(&s[a]), Value::Borrowed(&s[b])])
                        .collect();
                    call_comparator(cx, to_apply, &comparator.name, args, depth)
                })?;
                place(r, &sorted);
            }
        }
    }
    Ok(data.iter().map(|d| d.gather(&source)).collect())
}

/// `a <direction> b` in `order`; an error for `TOTALORDER` on a type
/// without it (which the verifier refuses).
fn compare_in<T: Element>(
    direction: ComparisonDirection,
    order: ComparisonOrder,
    a: T,
    b: T,
) -> OpResult<bool> {
    match order {
        ComparisonOrder::Natural => Ok(compare(direction, a, b)),
        ComparisonOrder::Total => compare_total(direction, a, b).ok_or_else(|| {
            format!(
                "TOTALORDER is not defined for element type {}",
                T::ELEMENT_TYPE
            )
        }),
    }
}

/// A comparator that is one `compare` of its first two parameters and
/// nothing of the others: `(direction, order, swapped)`, `swapped` for
/// `compare(p1, p0)`.
fn direct_comparison(body: &Body) -> Option<(ComparisonDirection, ComparisonOrder, bool)> {
    let r = body.binary_of_parameters()?;
    let BinaryOp::Compare(direction, order) = r.op else {
        return None;
    };
    Some((direction, order, r.swapped))
}

/// Runs the comparator `id` (named `name`) on `args`, one call deeper than
/// `depth`, and returns its `pred[]` result.
fn call_comparator(
    cx: &Eval<'_>,
    id: ComputationId,
    name: &str,
    args: Vec<Value<'_>>,
    depth: usize,
) -> OpResult<bool> {
    let result = cx
        .call(id, args, depth + 1)
        .map_err(|e| format!("in the comparator `{name}`: {e}"))?;
    let result = result.array()?;
    match result.as_slice::<bool>() {
        Ok(&[value]) if result.shape().rank() == 0 => Ok(value),
        _ => Err(format!(
            "the comparator `{name}` returned {} instead of pred[]",
            result.shape()
        )),
    }
}

/// `topk` of `x` along its last dimension: the `k` first elements of each
/// row in the order of a stable sort by `GT` (`largest`) or `LT`, and
/// their indices.
pub(crate) fn topk(x: &Literal, k: i64, largest: bool) -> OpResult<Literal> {
    let dims = x.shape().dims();
    let last = dims
        .len()
        .checked_sub(1)
        .ok_or_else(|| format!("topk of the scalar {}", x.shape()))?;
    let rows = Rows::new(dims, last)?;
    let k = usize::try_from(k)
        .ok()
        .filter(|&k| k <= rows.length)
        .ok_or_else(|| format!("k={k} is out of range for {}", x.shape()))?;
    let direction = if largest {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Lt
    };
    let mut out_dims = dims.to_vec();
    out_dims[last] = k as i64;
    let mut positions = Vec::with_capacity(rows.count * k);
    let mut indices = Vec::with_capacity(rows.count * k);
    dispatch_array!(array(x)?, v => {
        for r in 0..rows.count {
            let start = r * rows.length;
            let row = &v[start..start + rows.length];
            let sorted = merge_sort(rows.length, |a, b| Ok(topk_before(direction, row[a], row[b])))?;
            for &i in &sorted[..k] {
                positions.push(start + i);
                indices.push(i32::try_from(i).map_err(|_| {
                    format!("index {i} of {} does not fit the s32 indices", x.shape())
                })?);
            }
        }
    });
    let values = array(x)?.gather(&positions);
    let values = Literal::from_array_data(&out_dims, values).map_err(|e| e.to_string())?;
    let indices = Literal::from_vec(&out_dims, indices).map_err(|e| e.to_string())?;
    Ok(Literal::tuple(vec![values, indices]))
}

/// `a <direction> b` as `topk` compares: the total order for floats, the
/// natural order for integers and `pred`.
fn topk_before<T: Element>(direction: ComparisonDirection, a: T, b: T) -> bool {
    compare_total(direction, a, b).unwrap_or_else(|| compare(direction, a, b))
}

/// The shape `sort` gives `operands`: the array itself, or the tuple.
pub(crate) fn sort_result(operands: Vec<ArrayData>, shape: &Shape) -> OpResult<Literal> {
    let dims = match shape.tuple_shapes().first() {
        Some(s) if shape.is_tuple() => s.dims().to_vec(),
        _ => shape.dims().to_vec(),
    };
    let mut arrays = operands
        .into_iter()
        .map(|d| Literal::from_array_data(&dims, d).map_err(|e| e.to_string()))
        .collect::<OpResult<Vec<Literal>>>()?;
    if shape.is_tuple() {
        Ok(Literal::tuple(arrays))
    } else {
        arrays
            .pop()
            .filter(|_| arrays.is_empty())
            .ok_or_else(|| format!("a sort of several operands declares the array {shape}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sort_is_stable_and_bounded() {
        let keys = [3, 1, 2, 1, 3, 0, 2];
        let mut calls = 0;
        let order = merge_sort(keys.len(), |a, b| {
            calls += 1;
            Ok(keys[a] < keys[b])
        })
        .unwrap();
        assert_eq!(order, vec![5, 1, 3, 2, 6, 0, 4]);
        assert!(calls <= 7 * 3, "{calls} comparisons");
    }

    #[test]
    fn merge_sort_survives_comparators_that_are_not_orders() {
        for n in [0, 1, 2, 7, 64, 1000] {
            let mut calls = 0usize;
            let always = merge_sort(n, |_, _| {
                calls += 1;
                Ok(true)
            })
            .unwrap();
            let log = usize::BITS - n.leading_zeros();
            assert!(calls <= n * log as usize, "n={n}: {calls} calls");
            let mut seen = always.clone();
            seen.sort();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "a permutation");
            // Deterministic.
            assert_eq!(merge_sort(n, |_, _| Ok(true)).unwrap(), always);
        }
        assert!(merge_sort(3, |_, _| Err("no".into())).is_err());
    }

    #[test]
    fn rows_start_where_their_elements_do() {
        // dims [2, 3, 4] along 1: rows of 3 elements, stride 4.
        let rows = Rows::new(&[2, 3, 4], 1).unwrap();
        assert_eq!((rows.count, rows.length, rows.stride), (8, 3, 4));
        let starts: Vec<usize> = (0..8).map(|r| rows.start(r)).collect();
        assert_eq!(starts, vec![0, 1, 2, 3, 12, 13, 14, 15]);
    }
}
