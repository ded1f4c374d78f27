//! The windowed ops: `convolution`, `reduce-window` and
//! `select-and-scatter`, as XLA's `HloEvaluator` computes them.
//!
//! All three place a window over a base (see [`oxla_ir::ir::Window`] for
//! the geometry) and visit, for one output (or source) index, the window's
//! elements in row-major order of the window (its last dimension fastest),
//! **skipping every position that holds no base element** (padding, and the
//! holes of base dilation): XLA's `IterateThroughWindow`. Per dimension the
//! visited elements are computed arithmetically ([`taps`]), so a huge
//! window, padding or dilation costs nothing for the positions it skips.
//!
//! - `convolution`: each output element starts from zero and adds
//!   `lhs * rhs` (one rounding for the product, one for the sum) over the
//!   window positions in that order, and for each position over the input
//!   features of its group in increasing order. The kernel is read at
//!   `size - 1 - k` along a reversed dimension. For `pred` the sum is `or`
//!   and the product `and` (XLA's `acc + l * r` in `bool`). Integers wrap in the result
//!   type: this is what XLA:CPU computes (checked with JAX); XLA's reference
//!   evaluator accumulates `s8`..`s32` in 64 bits and then saturates, which
//!   differs only on overflow. The sums run in the type a dot of the same
//!   operand and result types sums in (`shape_inference::dot_compute_type`,
//!   XLA:CPU's rule, checked with JAX): a result type wider than the
//!   operands (`s8` to `s32`, `bf16` to `f32`) converts the operands first;
//!   the narrow floats always sum in `f32` and round once at the end (a
//!   `bf16` convolution is not a chain of `bf16` adds: XLA:CPU upcasts it);
//!   sub-byte integers sum in 64 bits and wrap at the end.
//! - `reduce-window`: `acc = init`, then `acc = reducer(acc, x)` for each
//!   visited element (so the init is folded in once, and padding never is).
//! - `select-and-scatter`: the result starts as `init` everywhere. For each
//!   source index in row-major order, the first visited element of its
//!   window is the candidate; each later element `e` replaces it when
//!   `select(candidate, e)` is false (so `select = ge` keeps the earliest of
//!   equal maxima); then `result[pos] = scatter(source_value, result[pos])`
//!   (the evaluator's argument order). A window without base elements
//!   scatters nothing.

use oxla_ir::ir::{BinaryOp, OpKind, WindowDim};
use oxla_ir::shape::row_major_strides;
use oxla_ir::{
    ArrayData, Body, ComparisonDirection, ComparisonOrder, ComputationId,
    ConvolutionDimensionNumbers, Literal, NativeType, Shape, Window, dispatch_array,
};

use crate::Eval;
use crate::element::{Element, compare};
use crate::index::{element_count, for_each_index};
use crate::ops::{OpResult, array, in_compute_type, same_type, scalar_value};

/// A window element that lands on a base element: window index `k` reads
/// base index `base` (along one dimension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tap {
    k: i64,
    base: i64,
}

/// The window elements of dimension `d` that land on base elements when
/// the window is at output index `o` over a base of size `n`, in
/// increasing `k`. Padded position `o * stride + k * window_dilation` must
/// lie on the dilated base `[padding_low, padding_low + (n - 1) *
/// base_dilation]` at a multiple of `base_dilation` from its start; the
/// range of `k` is computed, and the multiples found by solving a linear
/// congruence, so the cost is the number of taps, whatever the window.
pub(crate) fn taps(d: &WindowDim, n: i64, o: i64) -> Vec<Tap> {
    if n <= 0 || d.size <= 0 || d.stride <= 0 || d.base_dilation <= 0 || d.window_dilation <= 0 {
        return Vec::new();
    }
    let wd = i128::from(d.window_dilation);
    let bd = i128::from(d.base_dilation);
    // Base-relative dilated position of window element 0.
    let start = i128::from(o) * i128::from(d.stride) - i128::from(d.padding_low);
    let last = (i128::from(n) - 1) * bd;
    // 0 <= start + k * wd <= last, and 0 <= k < size.
    let k_min = (-start).div_euclid(wd) + i128::from((-start).rem_euclid(wd) != 0);
    let k_min = k_min.max(0);
    let k_max = (last - start).div_euclid(wd).min(i128::from(d.size) - 1);
    if k_min > k_max {
        return Vec::new();
    }
    // start + k * wd ≡ 0 (mod bd): with g = gcd(wd, bd) and m = bd / g,
    // solvable iff g divides start, and then k ≡ r (mod m).
    let g = gcd(wd, bd);
    if start.rem_euclid(g) != 0 {
        return Vec::new();
    }
    let m = bd / g;
    let r = ((-start / g).rem_euclid(m) * inverse(wd / g, m)).rem_euclid(m);
    let mut k = k_min + (r - k_min).rem_euclid(m);
    let mut out = Vec::new();
    while k <= k_max {
        let base = (start + k * wd) / bd;
        // Both fit: k < size and base < n.
        out.push(Tap {
            k: k as i64,
            base: base as i64,
        });
        k += m;
    }
    out
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `a⁻¹ mod m` for coprime `a`, `m` (0 when `m == 1`).
fn inverse(a: i128, m: i128) -> i128 {
    // Extended Euclid on (a, m): invariant old_s * a ≡ old_r (mod m).
    let (mut old_r, mut r) = (a.rem_euclid(m), m);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
    }
    old_s.rem_euclid(m)
}

/// Calls `f` with one tap per dimension, for every combination, in
/// row-major order of the dimensions (the last fastest).
fn for_each_combination(per_dim: &[Vec<Tap>], mut f: impl FnMut(&[Tap])) {
    let counts: Vec<i64> = per_dim.iter().map(|t| t.len() as i64).collect();
    let mut chosen = Vec::with_capacity(per_dim.len());
    for_each_index(&counts, |idx| {
        chosen.clear();
        chosen.extend(idx.iter().zip(per_dim).map(|(&i, t)| t[i as usize]));
        f(&chosen);
    });
}

/// The positions (row-major, in `base_dims`) of the base elements the
/// window visits at output index `out`, in visiting order.
pub(crate) fn window_positions(window: &Window, base_dims: &[i64], out: &[i64]) -> Vec<usize> {
    let strides = row_major_strides(base_dims);
    let per_dim: Vec<Vec<Tap>> = window
        .dimensions
        .iter()
        .zip(base_dims)
        .zip(out)
        .map(|((d, &n), &o)| taps(d, n, o))
        .collect();
    let mut positions = Vec::new();
    for_each_combination(&per_dim, |chosen| {
        let p: i64 = chosen.iter().zip(&strides).map(|(t, s)| t.base * s).sum();
        positions.push(p as usize);
    });
    positions
}

/// The element at `p`, or an error naming what was read (never a panic).
fn at<T: Copy>(data: &[T], p: usize, what: &str) -> OpResult<T> {
    data.get(p)
        .copied()
        .ok_or_else(|| format!("{what} position {p} is outside its {} values", data.len()))
}

// ---------------------------------------------------------------------------
// convolution
// ---------------------------------------------------------------------------

/// `convolution` of `lhs` and `rhs` into a result of shape `out` (see the
/// module docs for the order of the sums).
pub(crate) fn convolution(
    lhs: &Literal,
    rhs: &Literal,
    kind: &OpKind,
    out: &Shape,
) -> OpResult<ArrayData> {
    let OpKind::Convolution {
        window,
        dims,
        feature_group_count,
        batch_group_count,
        precision: _,
    } = kind
    else {
        return Err(format!("{} is not a convolution", kind.opcode_name()));
    };
    // XLA:CPU's accumulation, as for a dot: the sums run in the compute
    // type (the result type when at least as precise as the operands,
    // narrow floats in f32, sub-byte integers in 64 bits).
    let conv = Conv {
        window,
        dims,
        feature_group_count: *feature_group_count,
        batch_group_count: *batch_group_count,
        lhs_dims: lhs.shape().dims(),
        rhs_dims: rhs.shape().dims(),
        out_dims: out.dims(),
    };
    in_compute_type(
        lhs,
        rhs,
        out,
        |l, r| dispatch_array!(array(l)?, l => conv.typed(l, array(r)?).map(Into::into)),
    )
}

/// A convolution's attributes and dims, read once.
struct Conv<'a> {
    window: &'a Window,
    dims: &'a ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
    lhs_dims: &'a [i64],
    rhs_dims: &'a [i64],
    out_dims: &'a [i64],
}

impl Conv<'_> {
    fn typed<T: Element>(&self, l: &[T], r: &ArrayData) -> OpResult<Vec<T>> {
        let r: &[T] = T::slice_of(r).ok_or_else(|| {
            format!(
                "convolution operands of types {} and {}",
                T::ELEMENT_TYPE,
                r.element_type()
            )
        })?;
        let add = T::binary_fn(BinaryOp::Add)
            .ok_or_else(|| format!("convolution is not defined for {}", T::ELEMENT_TYPE))?;
        let mul = T::binary_fn(BinaryOp::Mul)
            .ok_or_else(|| format!("convolution is not defined for {}", T::ELEMENT_TYPE))?;
        let d = self.dims;
        let dim = |dims: &[i64], k: i64| -> OpResult<usize> {
            usize::try_from(k)
                .ok()
                .filter(|&k| k < dims.len())
                .ok_or_else(|| format!("dimension number {k} is out of range for {dims:?}"))
        };
        let (ls, rs) = (
            row_major_strides(self.lhs_dims),
            row_major_strides(self.rhs_dims),
        );
        let lhs_dim = |k: i64| dim(self.lhs_dims, k);
        let rhs_dim = |k: i64| dim(self.rhs_dims, k);
        let out_dim = |k: i64| dim(self.out_dims, k);
        let (ib, if_) = (
            lhs_dim(d.input_batch_dimension)?,
            lhs_dim(d.input_feature_dimension)?,
        );
        let (ki, ko) = (
            rhs_dim(d.kernel_input_feature_dimension)?,
            rhs_dim(d.kernel_output_feature_dimension)?,
        );
        let (ob, of) = (
            out_dim(d.output_batch_dimension)?,
            out_dim(d.output_feature_dimension)?,
        );
        let spatial: Vec<(usize, usize, usize)> = (0..d.input_spatial_dimensions.len())
            .map(|i| -> OpResult<_> {
                let get = |v: &[i64]| {
                    v.get(i)
                        .copied()
                        .ok_or_else(|| "spatial dimension lists differ in length".to_string())
                };
                Ok((
                    lhs_dim(get(&d.input_spatial_dimensions)?)?,
                    rhs_dim(get(&d.kernel_spatial_dimensions)?)?,
                    out_dim(get(&d.output_spatial_dimensions)?)?,
                ))
            })
            .collect::<OpResult<_>>()?;
        if spatial.len() != self.window.rank() {
            return Err("the window's rank is not the spatial count".into());
        }
        let (fgc, bgc) = (self.feature_group_count, self.batch_group_count);
        let input_features = self.lhs_dims[if_];
        let input_batch = self.lhs_dims[ib];
        let output_features = self.rhs_dims[ko];
        if fgc <= 0 || bgc <= 0 || output_features % fgc != 0 || output_features % bgc != 0 {
            return Err("invalid group counts".into());
        }
        let input_group_size = input_features / fgc;
        let output_group_size = output_features / fgc;
        let batch_group_size = input_batch / bgc;
        let depthwise_multiplier = output_features / bgc;
        let mut out = Vec::with_capacity(element_count(self.out_dims));
        let mut failure = None;
        for_each_index(self.out_dims, |idx| {
            if failure.is_some() {
                return;
            }
            let b = idx[ob];
            let z = idx[of];
            let feature_group = z / output_group_size.max(1);
            let batch_group = z / depthwise_multiplier.max(1);
            let lhs_batch = b + batch_group * batch_group_size;
            let per_dim: Vec<Vec<Tap>> = spatial
                .iter()
                .zip(&self.window.dimensions)
                .map(|(&(li, _, oi), w)| taps(w, self.lhs_dims[li], idx[oi]))
                .collect();
            let mut acc = T::zero();
            let mut sum = || -> OpResult<()> {
                let mut result = Ok(());
                for_each_combination(&per_dim, |chosen| {
                    if result.is_err() {
                        return;
                    }
                    let mut lp = lhs_batch * ls[ib];
                    let mut rp = z * rs[ko];
                    for ((t, &(li, ri, _)), w) in
                        chosen.iter().zip(&spatial).zip(&self.window.dimensions)
                    {
                        let k = if w.window_reversal {
                            w.size - 1 - t.k
                        } else {
                            t.k
                        };
                        lp += t.base * ls[li];
                        rp += k * rs[ri];
                    }
                    for iz in 0..input_group_size {
                        let lz = feature_group * input_group_size + iz;
                        let x = at(l, (lp + lz * ls[if_]) as usize, "lhs");
                        let y = at(r, (rp + iz * rs[ki]) as usize, "rhs");
                        match (x, y) {
                            (Ok(x), Ok(y)) => acc = add(acc, mul(x, y)),
                            (Err(e), _) | (_, Err(e)) => {
                                result = Err(e);
                                return;
                            }
                        }
                    }
                });
                result
            };
            match sum() {
                Ok(()) => out.push(acc),
                Err(e) => failure = Some(e),
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

// ---------------------------------------------------------------------------
// reduce-window
// ---------------------------------------------------------------------------

/// `reduce-window` of `x` from `init` with the reducer body `to_apply`,
/// into a result of dims `out_dims`.
pub(crate) fn reduce_window(
    ev: &Eval<'_>,
    to_apply: ComputationId,
    x: &Literal,
    init: &Literal,
    window: &Window,
    out_dims: &[i64],
    depth: usize,
) -> OpResult<ArrayData> {
    fn typed<T: Element>(
        ev: &Eval<'_>,
        to_apply: ComputationId,
        (x, x_dims): (&[T], &[i64]),
        init: &Literal,
        window: &Window,
        (out_dims, depth): (&[i64], usize),
    ) -> OpResult<ArrayData> {
        let init: T = scalar_value(init)?;
        let mut reducer = ev.reducer_fn::<T>(to_apply, depth);
        let mut out = Vec::with_capacity(element_count(out_dims));
        let mut failure = None;
        for_each_index(out_dims, |idx| {
            if failure.is_some() {
                return;
            }
            let mut acc = init;
            for p in window_positions(window, x_dims, idx) {
                match at(x, p, "operand").and_then(|v| reducer(acc, v)) {
                    Ok(v) => acc = v,
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                }
            }
            out.push(acc);
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(T::into_data(out)),
        }
    }
    dispatch_array!(array(x)?, v => typed(ev, to_apply, (v, x.shape().dims()), init, window, (out_dims, depth)))
}

// ---------------------------------------------------------------------------
// select-and-scatter
// ---------------------------------------------------------------------------

/// `select-and-scatter` (see the module docs); the result has the
/// operand's dims.
pub(crate) fn select_and_scatter(
    ev: &Eval<'_>,
    (select, scatter): (ComputationId, ComputationId),
    operand: &Literal,
    source: &Literal,
    init: &Literal,
    window: &Window,
    depth: usize,
) -> OpResult<ArrayData> {
    fn typed<T: Element>(
        (ev, depth): (&Eval<'_>, usize),
        (select, scatter): (ComputationId, ComputationId),
        (x, x_dims): (&[T], &[i64]),
        (source, source_dims): (&[T], &[i64]),
        init: &Literal,
        window: &Window,
    ) -> OpResult<ArrayData> {
        let init: T = scalar_value(init)?;
        let mut select = select_fn::<T>(ev, select, depth);
        let mut scatter = ev.reducer_fn::<T>(scatter, depth);
        let mut result = vec![init; element_count(x_dims)];
        let mut failure: Option<String> = None;
        let mut s = 0usize;
        for_each_index(source_dims, |idx| {
            if failure.is_some() {
                return;
            }
            let mut step = || -> OpResult<()> {
                let value = at(source, s, "source")?;
                s += 1;
                let mut candidate: Option<(T, usize)> = None;
                for p in window_positions(window, x_dims, idx) {
                    let e = at(x, p, "operand")?;
                    candidate = match candidate {
                        Some((c, cp)) if select(c, e)? => Some((c, cp)),
                        _ => Some((e, p)),
                    };
                }
                if let Some((_, p)) = candidate {
                    let current = at(&result, p, "result")?;
                    result[p] = scatter(value, current)?;
                }
                Ok(())
            };
            if let Err(e) = step() {
                failure = Some(e);
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(T::into_data(result)),
        }
    }
    dispatch_array!(array(operand)?, v => {
        let src = same_type(v, source)?;
        typed((ev, depth), (select, scatter), (v, operand.shape().dims()), (src, source.shape().dims()), init, window)
    })
}

/// The `select` body as a function: a body whose root compares its two
/// parameters (`ROOT r = pred[] compare(p0, p1), direction=GE`) is that
/// comparison; any other body is run through the evaluator.
fn select_fn<'e, T: Element>(
    ev: &'e Eval<'_>,
    id: ComputationId,
    depth: usize,
) -> impl FnMut(T, T) -> OpResult<bool> + 'e {
    let direct = ev
        .computation()
        .bodies()
        .get(id.index())
        .and_then(compare_of_parameters);
    move |a: T, b: T| match direct {
        Some((direction, false)) => Ok(compare(direction, a, b)),
        Some((direction, true)) => Ok(compare(direction, b, a)),
        None => call_select(ev, id, a, b, depth),
    }
}

/// `Some((direction, swapped))` if `body` is one `compare` of its two
/// scalar parameters (`swapped`: `compare(p1, p0)`).
fn compare_of_parameters(body: &Body) -> Option<(ComparisonDirection, bool)> {
    if body.instructions.len() != 3 {
        return None;
    }
    let r = body.binary_of_parameters()?;
    // A TOTALORDER compare runs through the evaluator (its own order).
    let BinaryOp::Compare(direction, ComparisonOrder::Natural) = r.op else {
        return None;
    };
    Some((direction, r.swapped))
}

/// Runs the `select` body on two scalars and returns its `pred`.
fn call_select<T: NativeType>(
    ev: &Eval<'_>,
    id: ComputationId,
    a: T,
    b: T,
    depth: usize,
) -> OpResult<bool> {
    let name = ev.body_name(id);
    let result = ev
        .call_on_scalars(id, a, b, depth)
        .map_err(|e| format!("in the select computation `{name}`: {e}"))?;
    match result.as_slice::<bool>() {
        Ok(&[value]) if result.shape().rank() == 0 => Ok(value),
        _ => Err(format!(
            "the select computation `{name}` returned {} instead of pred[]",
            result.shape()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(size: i64, stride: i64, lo: i64, bd: i64, wd: i64) -> WindowDim {
        WindowDim {
            stride,
            padding_low: lo,
            base_dilation: bd,
            window_dilation: wd,
            ..WindowDim::new(size)
        }
    }

    /// The obvious definition: every k, kept when it lands on an element.
    fn brute(d: &WindowDim, n: i64, o: i64) -> Vec<Tap> {
        (0..d.size)
            .filter_map(|k| {
                let p = o * d.stride + k * d.window_dilation - d.padding_low;
                (p >= 0 && p % d.base_dilation == 0 && p / d.base_dilation < n).then_some(Tap {
                    k,
                    base: p / d.base_dilation,
                })
            })
            .collect()
    }

    #[test]
    fn taps_agree_with_the_definition() {
        for size in 1..5 {
            for stride in 1..4 {
                for lo in -3..4 {
                    for bd in 1..5 {
                        for wd in 1..5 {
                            let d = dim(size, stride, lo, bd, wd);
                            for n in 0..5 {
                                for o in 0..6 {
                                    assert_eq!(
                                        taps(&d, n, o),
                                        brute(&d, n, o),
                                        "{d:?} n={n} o={o}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn huge_windows_cost_only_their_taps() {
        // A window of 2^41 elements with 2^40 padding over 3 elements
        // dilated by 2^20.
        let d = dim(1 << 41, 1, 1 << 40, 1 << 20, 1);
        let t = taps(&d, 3, 0);
        assert_eq!(t.len(), 3);
        assert_eq!(
            t[2],
            Tap {
                k: (1 << 40) + (2 << 20),
                base: 2
            }
        );
    }
}
