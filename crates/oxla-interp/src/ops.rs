//! One function per op: operand literals in, the result's values out.
//!
//! Each op is split in two: an untyped entry that takes [`Literal`]s, checks
//! that they are arrays of one element type, and dispatches on that type
//! (with [`oxla_ir::dispatch_array!`]); and a typed kernel, generic over
//! [`Element`] or [`NativeType`], that works on plain slices. Kernels index
//! slices only through positions a [`View`] has checked, or after checking
//! lengths themselves, so malformed input is an `Err`, never a panic.
//!
//! Errors are plain messages here; the evaluator wraps them in
//! [`oxla_ir::Error::Evaluation`] with the instruction's name.

use std::borrow::Cow;

use oxla_ir::shape::row_major_strides;
use oxla_ir::{
    ArrayData, BinaryOp, ComparisonOrder, DotDimensionNumbers, ElementType, Literal, NativeType,
    PadDim, Shape, UnaryOp, dispatch_array,
};

use crate::element::{Conv, Element, compare, compare_total};
use crate::index::{View, element_count, for_each_index};

/// The result of a kernel: a value, or what went wrong in words.
pub(crate) type OpResult<T> = std::result::Result<T, String>;

/// Runs `$body` with `$T` standing for the Rust type of the element type
/// `$ty`; `$tuple` is the value for `ElementType::Tuple`.
macro_rules! with_element_type {
    ($ty:expr, $T:ident => $body:expr, tuple => $tuple:expr) => {
        oxla_ir::with_native_type!($ty, $T => $body, tuple => $tuple)
    };
}

/// The values of an array literal; an error for a tuple.
pub(crate) fn array(literal: &Literal) -> OpResult<&ArrayData> {
    literal.array_data().ok_or_else(|| {
        format!(
            "an operand is the tuple {} where an array is needed",
            literal.shape()
        )
    })
}

/// The values of `literal` as the same Rust type as `_like`: the second
/// (third, ...) operand of an op whose operands share one element type.
pub(crate) fn same_type<'a, T: NativeType>(_like: &[T], literal: &'a Literal) -> OpResult<&'a [T]> {
    literal.as_slice::<T>().map_err(|_| {
        format!(
            "operand {} should have element type {}",
            literal.shape(),
            T::ELEMENT_TYPE
        )
    })
}

/// The one value of a rank-0 literal of type `T`.
pub(crate) fn scalar_value<T: NativeType>(literal: &Literal) -> OpResult<T> {
    match literal.as_slice::<T>() {
        Ok([value]) if literal.shape().rank() == 0 => Ok(*value),
        _ => Err(format!(
            "expected a {}[] scalar, got {}",
            T::ELEMENT_TYPE,
            literal.shape()
        )),
    }
}

/// An op that the element type does not have (shape inference rules this
/// out before evaluation).
fn undefined(op: impl std::fmt::Display, ty: ElementType) -> String {
    format!("{op} is not defined for element type {ty}")
}

/// Dimension numbers as indices; an error for a negative one.
fn indices(dims: &[i64]) -> OpResult<Vec<usize>> {
    dims.iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("negative dimension number {d}")))
        .collect()
}

/// How an elementwise operand of rank `rank` lines up with a result of rank
/// `out_rank`: operand dimension `i` feeds result dimension `map[i]`. Equal
/// ranks line up dimension by dimension; a lower-rank operand follows
/// `broadcast_dimensions` (empty for a scalar).
fn operand_map(rank: usize, out_rank: usize, broadcast_dimensions: &[i64]) -> OpResult<Vec<usize>> {
    if rank == out_rank {
        Ok((0..rank).collect())
    } else {
        indices(broadcast_dimensions)
    }
}

/// An elementwise operand stretched to the result dims (XLA's implicit
/// broadcasting made explicit): borrowed when the dims already agree.
fn broadcast_to<'a, T: Copy>(
    data: &'a [T],
    dims: &[i64],
    out_dims: &[i64],
    map: &[usize],
) -> OpResult<Cow<'a, [T]>> {
    if dims == out_dims && data.len() == element_count(out_dims) {
        return Ok(Cow::Borrowed(data));
    }
    let view = View::broadcast(dims, out_dims, map)?;
    Ok(Cow::Owned(view.gather(data, out_dims)?))
}

// ---------------------------------------------------------------------------
// Elementwise ops
// ---------------------------------------------------------------------------

/// `iota`: each element is its index along `dimension`, converted to the
/// element type as `convert` would.
pub(crate) fn iota(shape: &Shape, dimension: i64) -> OpResult<ArrayData> {
    fn typed<T: Element>(dims: &[i64], dimension: usize) -> OpResult<ArrayData> {
        if dimension >= dims.len() {
            return Err(format!("iota dimension {dimension} is out of range"));
        }
        let mut out = Vec::with_capacity(element_count(dims));
        for_each_index(dims, |idx| {
            out.push(T::from_conv(Conv::Int(idx[dimension] as i128)))
        });
        Ok(T::into_data(out))
    }
    let dimension =
        usize::try_from(dimension).map_err(|_| "negative iota dimension".to_string())?;
    with_element_type!(shape.element_type(), T => typed::<T>(shape.dims(), dimension),
        tuple => Err("iota cannot produce a tuple".into()))
}

/// A unary op; `is-finite` gives `pred`, the others keep the type.
pub(crate) fn unary(op: UnaryOp, x: &Literal) -> OpResult<ArrayData> {
    fn typed<T: Element>(op: UnaryOp, x: &[T]) -> OpResult<ArrayData> {
        let f = T::unary_fn(op).ok_or_else(|| undefined(op, T::ELEMENT_TYPE))?;
        Ok(T::into_data(x.iter().map(|&v| f(v)).collect()))
    }
    let data = array(x)?;
    let ty = data.element_type();
    if op == UnaryOp::IsFinite {
        // A float is finite when its exact value is.
        fn finite<T: Element>(v: &[T]) -> ArrayData {
            ArrayData::Pred(
                v.iter()
                    .map(|x| matches!(x.to_conv(), Conv::Float(f) if f.is_finite()))
                    .collect(),
            )
        }
        if !ty.is_float() {
            return Err(undefined(op, ty));
        }
        return Ok(dispatch_array!(data, v => finite(v)));
    }
    // `abs` of a complex number is its magnitude, of the part type.
    if op == UnaryOp::Abs {
        if let ArrayData::C64(v) = data {
            return Ok(ArrayData::F32(
                v.iter().map(|&z| crate::complex::magnitude64(z)).collect(),
            ));
        }
        if let ArrayData::C128(v) = data {
            return Ok(ArrayData::F64(
                v.iter().map(|&z| crate::complex::magnitude128(z)).collect(),
            ));
        }
    }
    dispatch_array!(data, v => typed(op, v))
}

/// A binary op with XLA's broadcasting: each operand is read through its
/// map onto the result dims (see [`operand_map`]), size-1 dimensions
/// replicated. Comparisons give `pred`.
pub(crate) fn binary(
    op: BinaryOp,
    broadcast_dimensions: &[i64],
    lhs: &Literal,
    rhs: &Literal,
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    fn typed<T: Element>(
        op: BinaryOp,
        (a, a_dims, a_map): (&[T], &[i64], Vec<usize>),
        (b, b_dims, b_map): (&[T], &[i64], Vec<usize>),
        out_dims: &[i64],
    ) -> OpResult<ArrayData> {
        let a = broadcast_to(a, a_dims, out_dims, &a_map)?;
        let b = broadcast_to(b, b_dims, out_dims, &b_map)?;
        let pairs = a.iter().zip(b.iter());
        Ok(match op {
            BinaryOp::Compare(direction, ComparisonOrder::Natural) => {
                ArrayData::Pred(pairs.map(|(&x, &y)| compare(direction, x, y)).collect())
            }
            BinaryOp::Compare(direction, ComparisonOrder::Total) => ArrayData::Pred(
                pairs
                    .map(|(&x, &y)| compare_total(direction, x, y))
                    .collect::<Option<_>>()
                    .ok_or_else(|| undefined(op, T::ELEMENT_TYPE))?,
            ),
            // Same-type ops: the element type's own function.
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::Pow
            | BinaryOp::Atan2
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical => {
                let f = T::binary_fn(op).ok_or_else(|| undefined(op, T::ELEMENT_TYPE))?;
                T::into_data(pairs.map(|(&x, &y)| f(x, y)).collect())
            }
        })
    }
    let out_rank = out_dims.len();
    let (l_dims, r_dims) = (lhs.shape().dims(), rhs.shape().dims());
    let l_map = operand_map(l_dims.len(), out_rank, broadcast_dimensions)?;
    let r_map = operand_map(r_dims.len(), out_rank, broadcast_dimensions)?;
    dispatch_array!(array(lhs)?, a => {
        let b = same_type(a, rhs)?;
        typed(op, (a, l_dims, l_map), (b, r_dims, r_map), out_dims)
    })
}

/// `convert` to `to` (see [`Element::from_conv`] for the rules).
pub(crate) fn convert(x: &Literal, to: ElementType) -> OpResult<ArrayData> {
    fn typed<S: Element>(x: &[S], to: ElementType) -> OpResult<ArrayData> {
        with_element_type!(to, T => Ok(T::into_data(
            x.iter().map(|&v| T::from_conv(v.to_conv())).collect(),
        )), tuple => Err("cannot convert to a tuple".into()))
    }
    dispatch_array!(array(x)?, v => typed(v, to))
}

/// `select(pred, on_true, on_false)`; scalar operands broadcast.
pub(crate) fn select(
    pred: &Literal,
    on_true: &Literal,
    on_false: &Literal,
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    fn typed<T: NativeType>(
        pred: &[bool],
        on_true: (&[T], &[i64]),
        on_false: (&[T], &[i64]),
        out_dims: &[i64],
    ) -> OpResult<ArrayData> {
        let t = stretch(on_true.0, on_true.1, out_dims)?;
        let f = stretch(on_false.0, on_false.1, out_dims)?;
        Ok(T::into_data(
            pred.iter()
                .zip(t.iter().zip(f.iter()))
                .map(|(&p, (&t, &f))| if p { t } else { f })
                .collect(),
        ))
    }
    let p = pred
        .as_slice::<bool>()
        .map_err(|_| format!("the predicate {} is not pred", pred.shape()))?;
    let p = stretch(p, pred.shape().dims(), out_dims)?;
    dispatch_array!(array(on_true)?, t => {
        let f = same_type(t, on_false)?;
        typed(&p, (t, on_true.shape().dims()), (f, on_false.shape().dims()), out_dims)
    })
}

/// An operand of `select` or `clamp`: a scalar, or already of the result
/// dims.
fn stretch<'a, T: Copy>(data: &'a [T], dims: &[i64], out_dims: &[i64]) -> OpResult<Cow<'a, [T]>> {
    let map = operand_map(dims.len(), out_dims.len(), &[])?;
    broadcast_to(data, dims, out_dims, &map)
}

/// `clamp(min, x, max) = minimum(maximum(min, x), max)` with the element
/// type's `maximum`/`minimum`: for floats a NaN in any operand gives NaN
/// (the first NaN of min, x, max, as XLA's evaluator returns).
pub(crate) fn clamp(
    min: &Literal,
    x: &Literal,
    max: &Literal,
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    fn typed<T: Element>(
        (lo, lo_dims): (&[T], &[i64]),
        (x, x_dims): (&[T], &[i64]),
        (hi, hi_dims): (&[T], &[i64]),
        out_dims: &[i64],
    ) -> OpResult<ArrayData> {
        let maximum =
            T::binary_fn(BinaryOp::Max).ok_or_else(|| undefined("clamp", T::ELEMENT_TYPE))?;
        let minimum =
            T::binary_fn(BinaryOp::Min).ok_or_else(|| undefined("clamp", T::ELEMENT_TYPE))?;
        let lo = stretch(lo, lo_dims, out_dims)?;
        let x = stretch(x, x_dims, out_dims)?;
        let hi = stretch(hi, hi_dims, out_dims)?;
        Ok(T::into_data(
            lo.iter()
                .zip(x.iter().zip(hi.iter()))
                .map(|(&l, (&v, &h))| minimum(maximum(l, v), h))
                .collect(),
        ))
    }
    dispatch_array!(array(x)?, v => {
        let lo = same_type(v, min)?;
        let hi = same_type(v, max)?;
        typed((lo, min.shape().dims()), (v, x.shape().dims()), (hi, max.shape().dims()), out_dims)
    })
}

// ---------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------

/// The operand read through `view`, for any element type.
fn gather(x: &Literal, view: &View, out_dims: &[i64]) -> OpResult<ArrayData> {
    dispatch_array!(array(x)?, v => Ok(view.gather(v, out_dims)?.into()))
}

/// `broadcast`: operand dimension `i` becomes output dimension
/// `dimensions[i]`; a size-1 operand dimension stretches.
pub(crate) fn broadcast(x: &Literal, dimensions: &[i64], out_dims: &[i64]) -> OpResult<ArrayData> {
    let view = View::broadcast(x.shape().dims(), out_dims, &indices(dimensions)?)?;
    gather(x, &view, out_dims)
}

/// `transpose`: `out.dims[i] = x.dims[permutation[i]]`.
pub(crate) fn transpose(x: &Literal, permutation: &[i64], out_dims: &[i64]) -> OpResult<ArrayData> {
    let view = View::transpose(x.shape().dims(), &indices(permutation)?)?;
    gather(x, &view, out_dims)
}

/// `slice`: output index `j` of dimension `i` reads
/// `starts[i] + j * strides[i]`.
pub(crate) fn slice(
    x: &Literal,
    starts: &[i64],
    strides: &[i64],
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    let view = View::slice(x.shape().dims(), starts, strides);
    gather(x, &view, out_dims)
}

/// `reverse` along `dimensions`.
pub(crate) fn reverse(x: &Literal, dimensions: &[i64]) -> OpResult<ArrayData> {
    let dims = x.shape().dims();
    let view = View::reverse(dims, &indices(dimensions)?);
    gather(x, &view, dims)
}

/// `concatenate` along `dimension`: for each index of the dimensions before
/// it, the operands' blocks one after another.
pub(crate) fn concatenate(
    operands: &[&Literal],
    dimension: i64,
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    fn typed<T: NativeType>(
        first: &[T],
        operands: &[&Literal],
        d: usize,
        out_dims: &[i64],
    ) -> OpResult<ArrayData> {
        let outer = element_count(out_dims.get(..d).ok_or("dimension out of range")?);
        let mut blocks = Vec::with_capacity(operands.len());
        for operand in operands {
            let values = same_type(first, operand)?;
            let inner = element_count(operand.shape().dims().get(d..).unwrap_or(&[]));
            if values.len() != outer * inner {
                return Err(format!(
                    "operand {} does not fit the result dims {out_dims:?}",
                    operand.shape()
                ));
            }
            blocks.push((values, inner));
        }
        let mut out = Vec::with_capacity(element_count(out_dims));
        for o in 0..outer {
            for (values, inner) in &blocks {
                out.extend_from_slice(&values[o * inner..(o + 1) * inner]);
            }
        }
        Ok(T::into_data(out))
    }
    let d = usize::try_from(dimension).map_err(|_| "negative dimension".to_string())?;
    let first = operands
        .first()
        .ok_or_else(|| "concatenate needs at least one operand".to_string())?;
    dispatch_array!(array(first)?, v => typed(v, operands, d, out_dims))
}

/// `pad`: the result starts as the padding value, then operand element `i`
/// goes to `lo + i * (interior + 1)` in each dimension, unless that falls
/// outside the result (negative `lo`/`hi` crop).
pub(crate) fn pad(
    x: &Literal,
    padding_value: &Literal,
    config: &[PadDim],
    out_dims: &[i64],
) -> OpResult<ArrayData> {
    fn typed<T: NativeType>(
        x: &[T],
        x_dims: &[i64],
        value: T,
        config: &[PadDim],
        out_dims: &[i64],
    ) -> OpResult<ArrayData> {
        if config.len() != x_dims.len()
            || out_dims.len() != x_dims.len()
            || x.len() != element_count(x_dims)
        {
            return Err(format!(
                "padding config of {} entries for an operand of dims {x_dims:?}",
                config.len()
            ));
        }
        let mut out = vec![value; element_count(out_dims)];
        let out_strides = row_major_strides(out_dims);
        let mut source = 0;
        for_each_index(x_dims, |idx| {
            let mut position = 0i64;
            let mut inside = true;
            for (i, p) in config.iter().enumerate() {
                // Saturating: `interior` may be huge when the dimension
                // has one element (it then never multiplies a non-zero).
                let step = p.interior.saturating_add(1);
                let target = p.lo.saturating_add(idx[i].saturating_mul(step));
                if target < 0 || target >= out_dims[i] {
                    inside = false;
                    break;
                }
                position += target * out_strides[i];
            }
            if inside {
                out[position as usize] = x[source];
            }
            source += 1;
        });
        Ok(T::into_data(out))
    }
    dispatch_array!(array(x)?, v => {
        let value = scalar_value(padding_value)?;
        typed(v, x.shape().dims(), value, config, out_dims)
    })
}

// ---------------------------------------------------------------------------
// Reductions and contractions
// ---------------------------------------------------------------------------

/// `reduce`: for each index of the kept dimensions (the result, in
/// row-major order), `acc = init`, then `acc = reducer(acc, x)` for each
/// element over the reduced dimensions in row-major order of those
/// dimensions taken in increasing order.
///
/// `reducer` is called with the element type's Rust values; the caller
/// runs the reducer body on them.
pub(crate) fn reduce<T: NativeType>(
    x: &[T],
    x_dims: &[i64],
    init: T,
    dimensions: &[i64],
    out_dims: &[i64],
    mut reducer: impl FnMut(T, T) -> OpResult<T>,
) -> OpResult<Vec<T>> {
    let (bases, offsets) = reduce_positions(x_dims, dimensions, out_dims, x.len())?;
    let mut out = Vec::with_capacity(bases.len());
    for base in bases {
        let mut acc = init;
        for offset in &offsets {
            acc = reducer(acc, x[base + offset])?;
        }
        out.push(acc);
    }
    Ok(out)
}

/// The positions a `reduce` of `dimensions` reads in row-major data of dims
/// `x_dims` (`len` values): one base per result element (the kept
/// dimensions, in row-major order) and the offsets added to it (the reduced
/// dimensions, taken in increasing order, in row-major order). Every
/// `base + offset` is checked to be below `len`.
pub(crate) fn reduce_positions(
    x_dims: &[i64],
    dimensions: &[i64],
    out_dims: &[i64],
    len: usize,
) -> OpResult<(Vec<usize>, Vec<usize>)> {
    let reduced = {
        let mut r = indices(dimensions)?;
        r.sort_unstable();
        r
    };
    let kept: Vec<usize> = (0..x_dims.len()).filter(|d| !reduced.contains(d)).collect();
    let strides = row_major_strides(x_dims);
    let pick = |ds: &[usize]| -> OpResult<(Vec<i64>, Vec<i64>)> {
        ds.iter()
            .map(|&d| match (x_dims.get(d), strides.get(d)) {
                (Some(&n), Some(&s)) => Ok((n, s)),
                _ => Err(format!("dimension {d} is out of range for dims {x_dims:?}")),
            })
            .collect::<OpResult<Vec<_>>>()
            .map(|v| v.into_iter().unzip())
    };
    let (kept_sizes, kept_strides) = pick(&kept)?;
    let (reduced_sizes, reduced_strides) = pick(&reduced)?;
    if kept_sizes != out_dims {
        return Err(format!(
            "reducing {dimensions:?} of dims {x_dims:?} keeps {kept_sizes:?}, not {out_dims:?}"
        ));
    }
    // Check the whole iteration space at once: base + offset stays inside.
    let all = View {
        offset: 0,
        strides: [kept_strides.clone(), reduced_strides.clone()].concat(),
    };
    all.check(&[kept_sizes.clone(), reduced_sizes.clone()].concat(), len)?;
    let bases = View {
        offset: 0,
        strides: kept_strides,
    }
    .positions(&kept_sizes);
    let offsets = View {
        offset: 0,
        strides: reduced_strides,
    }
    .positions(&reduced_sizes);
    Ok((bases, offsets))
}

/// `dot_general`: result dims are the batch dims, then the lhs free dims,
/// then the rhs free dims (free = neither batch nor contracting, in
/// increasing order). Each result element starts from zero and adds
/// `lhs * rhs` over the contracting index space in row-major order of the
/// contracting lists (the last listed dimension fastest), one rounding per
/// multiply and per add, as XLA's evaluator does. Integers wrap.
///
/// Operands and result of different types follow XLA:CPU (checked against
/// JAX): the dot runs in the result type when it is at least as precise as
/// the operands (`s8 x s8 -> s32`, `bf16 x bf16 -> f32`: operands converted
/// up first), else in the operands' type, the result converted
/// (`f32 x f32 -> bf16`). Floats narrower than `f32` always accumulate in
/// `f32` and round once at the end (a `bf16` dot is not a chain of `bf16`
/// adds), sub-byte integers in 64 bits wrapped at the end.
pub(crate) fn dot_general(
    lhs: &Literal,
    rhs: &Literal,
    dims: &DotDimensionNumbers,
    out: &Shape,
) -> OpResult<ArrayData> {
    in_compute_type(lhs, rhs, out, |l, r| {
        Ok(dispatch_array!(array(l)?, a => {
            let b = same_type(a, r)?;
            ArrayData::from(dot_typed(a, l.shape().dims(), b, r.shape().dims(), dims, out.dims())?)
        }))
    })
}

/// `f` (a dot or a convolution of `lhs` and `rhs` into `out`) run in the
/// type XLA:CPU sums in (`shape_inference::dot_compute_type`): the
/// operands converted to it first, `f`'s values converted to `out`'s type
/// after.
pub(crate) fn in_compute_type(
    lhs: &Literal,
    rhs: &Literal,
    out: &Shape,
    f: impl FnOnce(&Literal, &Literal) -> OpResult<ArrayData>,
) -> OpResult<ArrayData> {
    let result = out.element_type();
    let compute =
        oxla_ir::shape_inference::dot_compute_type(lhs.element_type(), rhs.element_type(), result);
    let (l, r) = (as_type(lhs, compute)?, as_type(rhs, compute)?);
    let values = f(&l, &r)?;
    if compute == result {
        return Ok(values);
    }
    let wide = Literal::from_array_data(out.dims(), values).map_err(|e| e.to_string())?;
    convert(&wide, result)
}

/// `x` converted to `ty` (borrowed when it has that type).
fn as_type(x: &Literal, ty: ElementType) -> OpResult<Cow<'_, Literal>> {
    if x.element_type() == ty {
        return Ok(Cow::Borrowed(x));
    }
    let data = convert(x, ty)?;
    Literal::from_array_data(x.shape().dims(), data)
        .map(Cow::Owned)
        .map_err(|e| e.to_string())
}

/// One operand's side of a dot: positions for the result dims and for the
/// contracting dims.
struct DotSide {
    /// Strides per result dimension (0 for the other operand's free dims).
    out: View,
    /// Strides per contracting dimension.
    contracting: View,
}

impl DotSide {
    /// `batch`/`contracting` are this operand's lists; `free_before` and
    /// `free_after` are how many result dims of the other operand's free
    /// dims come before and after this operand's free dims.
    fn new(
        dims: &[i64],
        batch: &[usize],
        contracting: &[usize],
        free_before: usize,
        free_after: usize,
    ) -> OpResult<DotSide> {
        let strides = row_major_strides(dims);
        let stride = |d: usize| {
            strides
                .get(d)
                .copied()
                .ok_or_else(|| format!("dimension {d} is out of range for dims {dims:?}"))
        };
        let free: Vec<usize> = (0..dims.len())
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect();
        let mut out = batch
            .iter()
            .map(|&d| stride(d))
            .collect::<OpResult<Vec<_>>>()?;
        out.extend(std::iter::repeat_n(0, free_before));
        out.extend(free.iter().map(|&d| strides[d]));
        out.extend(std::iter::repeat_n(0, free_after));
        let contracting = contracting
            .iter()
            .map(|&d| stride(d))
            .collect::<OpResult<Vec<_>>>()?;
        Ok(DotSide {
            out: View {
                offset: 0,
                strides: out,
            },
            contracting: View {
                offset: 0,
                strides: contracting,
            },
        })
    }

    /// Checks that every (result index, contracting index) pair reads
    /// inside `len` values.
    fn check(&self, out_dims: &[i64], contracting_dims: &[i64], len: usize) -> OpResult<()> {
        View {
            offset: 0,
            strides: [self.out.strides.clone(), self.contracting.strides.clone()].concat(),
        }
        .check(&[out_dims, contracting_dims].concat(), len)
    }
}

fn dot_typed<T: Element>(
    l: &[T],
    l_dims: &[i64],
    r: &[T],
    r_dims: &[i64],
    dims: &DotDimensionNumbers,
    out_dims: &[i64],
) -> OpResult<Vec<T>> {
    let add = T::binary_fn(BinaryOp::Add).ok_or_else(|| undefined("dot", T::ELEMENT_TYPE))?;
    let mul = T::binary_fn(BinaryOp::Mul).ok_or_else(|| undefined("dot", T::ELEMENT_TYPE))?;
    let (l_batch, r_batch) = (indices(&dims.lhs_batch)?, indices(&dims.rhs_batch)?);
    let (l_con, r_con) = (
        indices(&dims.lhs_contracting)?,
        indices(&dims.rhs_contracting)?,
    );
    let l_free = l_dims.len().saturating_sub(l_batch.len() + l_con.len());
    let r_free = r_dims.len().saturating_sub(r_batch.len() + r_con.len());
    let lhs = DotSide::new(l_dims, &l_batch, &l_con, 0, r_free)?;
    let rhs = DotSide::new(r_dims, &r_batch, &r_con, l_free, 0)?;
    let contracting_dims: Vec<i64> = l_con.iter().map(|&d| l_dims[d]).collect();
    let r_contracting_dims: Vec<i64> = r_con
        .iter()
        .filter_map(|&d| r_dims.get(d).copied())
        .collect();
    if contracting_dims != r_contracting_dims
        || out_dims.len() != lhs.out.strides.len()
        || out_dims.len() != rhs.out.strides.len()
    {
        return Err(format!(
            "dot of dims {l_dims:?} and {r_dims:?} with {dims:?} cannot give {out_dims:?}"
        ));
    }
    lhs.check(out_dims, &contracting_dims, l.len())?;
    rhs.check(out_dims, &contracting_dims, r.len())?;
    let l_offsets = lhs.contracting.positions(&contracting_dims);
    let r_offsets = rhs.contracting.positions(&contracting_dims);
    let mut out = Vec::with_capacity(element_count(out_dims));
    for_each_index(out_dims, |idx| {
        let (lb, rb) = (lhs.out.position(idx), rhs.out.position(idx));
        let mut acc = T::zero();
        for (lo, ro) in l_offsets.iter().zip(&r_offsets) {
            acc = add(acc, mul(l[lb + lo], r[rb + ro]));
        }
        out.push(acc);
    });
    Ok(out)
}
