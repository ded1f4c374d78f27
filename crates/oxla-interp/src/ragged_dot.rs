//! `ragged-dot`: a dot whose lhs ragged dimension is cut into consecutive
//! groups by `group_sizes`, written as the definition reads rather than as
//! a fast kernel.
//!
//! Group `g` (for one index of `group_sizes`' leading dimensions) covers
//! the ragged positions `start <= i < end`, where `start` is the sum of the
//! sizes before `g` and `end = start + size`, both wrapped to the sizes'
//! integer type, as JAX computes them. Sizes that sum past the ragged
//! dimension cut the last groups short; sizes that sum short of it leave
//! the positions after the last group in no group; a negative size gives
//! an empty group (and moves the next group's start back). Positions are
//! compared with the bounds in the sizes' type, as JAX compares them (an
//! `iota` of that type). Then:
//! - ragged non-contracting: each result element is the sum, over the
//!   groups its row is in (one, or none: zero), of the dot of the row with
//!   the rhs slice of that group; the group sum starts at zero and adds in
//!   group order (one exact add when the row is in one group);
//! - ragged contracting: result `[g, ...]` is the dot of `lhs` and `rhs`
//!   over the contracting positions of group `g` only (the others are
//!   skipped: both operands are zeroed there, so no `0 * inf` appears);
//! - ragged batch: the plain dot (`group_sizes` changes nothing).
//!
//! This is the operation's definition (StableHLO's `chlo.ragged_dot`);
//! JAX's CPU lowering multiplies masked zeros instead of skipping, which
//! differs only where an operand holds an infinity or NaN outside the
//! group.

use oxla_ir::{
    ArrayData, ElementType, Literal, RaggedDotDimensionNumbers, RaggedDotMode, Shape,
    dispatch_array,
};

use crate::element::Element;
use crate::index::for_each_index;
use crate::indexing::exact_integer_values;
use crate::ops::{OpResult, array, dot_general, same_type};

/// The group ranges: for each index of `group_sizes`' leading dims
/// (row-major) and each group, `(start, end)`.
struct Groups {
    /// `ranges[p * count + g]`.
    ranges: Vec<(i128, i128)>,
    /// The number of groups.
    count: usize,
    /// The sizes of the leading dims (empty when `group_sizes` is `[g]`,
    /// which applies to every prefix).
    prefix_dims: Vec<i64>,
    /// The sizes' type, in which positions are compared with the bounds.
    ty: ElementType,
}

/// `v` wrapped to the integer type `ty`'s range (as its values read).
fn wrap_to(ty: ElementType, v: i128) -> i128 {
    let bits = ty.bit_width();
    let m = v.rem_euclid(1i128 << bits);
    if ty.is_signed_integer() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

impl Groups {
    fn new(group_sizes: &Literal) -> OpResult<Groups> {
        let ty = group_sizes.element_type();
        let dims = group_sizes.shape().dims();
        let count = dims.last().copied().unwrap_or(0).max(0) as usize;
        let sizes = exact_integer_values(group_sizes)?;
        // The running sum wraps to the sizes' type.
        let wrap = |v: i128| wrap_to(ty, v);
        let mut ranges = Vec::with_capacity(sizes.len());
        for row in sizes.chunks(count.max(1)) {
            let mut start = 0i128;
            for &size in row {
                let end = wrap(start + size);
                ranges.push((start, end));
                start = end;
            }
        }
        let prefix_dims = if dims.len() > 1 {
            dims[..dims.len() - 1].to_vec()
        } else {
            Vec::new()
        };
        Ok(Groups {
            ranges,
            count,
            prefix_dims,
            ty,
        })
    }

    /// Whether position `i` of the ragged dimension is in group `g`, for
    /// the prefix coordinates `prefix` (ignored when there are none).
    fn contains(&self, prefix: &[i64], g: usize, i: i64) -> bool {
        let mut p = 0usize;
        for (k, &d) in self.prefix_dims.iter().enumerate() {
            p = p * d as usize + prefix.get(k).copied().unwrap_or(0) as usize;
        }
        self.ranges
            .get(p * self.count + g)
            .is_some_and(|&(start, end)| {
                let i = wrap_to(self.ty, i128::from(i));
                start <= i && i < end
            })
    }
}

/// Evaluates `ragged-dot(lhs, rhs, group_sizes)` into `out`'s shape.
pub(crate) fn ragged_dot(
    lhs: &Literal,
    rhs: &Literal,
    group_sizes: &Literal,
    dims: &RaggedDotDimensionNumbers,
    out: &Shape,
) -> OpResult<ArrayData> {
    let ragged = dims
        .ragged_dimension()
        .ok_or("ragged-dot needs exactly one lhs ragged dimension")?;
    let groups = Groups::new(group_sizes)?;
    let prefix = dims.group_prefix(lhs.shape().rank(), ragged);
    match dims.mode(ragged) {
        RaggedDotMode::Batch => dot_general(lhs, rhs, &dims.dot, out),
        RaggedDotMode::NonContracting => non_contracting(lhs, rhs, &groups, dims, &prefix, out),
        RaggedDotMode::Contracting => contracting(lhs, rhs, &groups, dims, &prefix, out),
    }
}

/// Ragged rows: `Σ_g [row in g] · dot(lhs, rhs[g])`, in group order.
fn non_contracting(
    lhs: &Literal,
    rhs: &Literal,
    groups: &Groups,
    dims: &RaggedDotDimensionNumbers,
    prefix: &[i64],
    out: &Shape,
) -> OpResult<ArrayData> {
    let [group_dim] = dims.rhs_group[..] else {
        return Err("a ragged non-contracting dot needs one rhs group dimension".into());
    };
    let lhs_rank = lhs.shape().rank();
    let position = |d: i64| -> OpResult<usize> {
        dims.lhs_result_position(lhs_rank, d)
            .ok_or_else(|| format!("lhs dimension {d} is not a batch or free dimension"))
    };
    let prefix_at: Vec<usize> = prefix
        .iter()
        .map(|&d| position(d))
        .collect::<OpResult<_>>()?;
    let ragged_at = position(dims.ragged_dimension().unwrap_or(0))?;
    let slice_dims = dims.group_slice_dims(group_dim);
    let out_dims = out.dims();
    let mut parts = Vec::with_capacity(groups.count);
    let mut masks = Vec::with_capacity(groups.count);
    for g in 0..groups.count {
        let slice = take(rhs, group_dim as usize, g as i64)?;
        let part = dot_general(lhs, &slice, &slice_dims, out)?;
        parts.push(Literal::from_array_data(out_dims, part).map_err(|e| e.to_string())?);
        let mut mask = Vec::new();
        for_each_index(out_dims, |idx| {
            let p: Vec<i64> = prefix_at.iter().map(|&k| idx[k]).collect();
            mask.push(groups.contains(&p, g, idx[ragged_at]));
        });
        masks.push(mask);
    }
    let zeros = Literal::zeros(out).map_err(|e| e.to_string())?;
    Ok(dispatch_array!(array(&zeros)?, z => {
        let mut acc = z.to_vec();
        for (part, mask) in parts.iter().zip(&masks) {
            add_where(&mut acc, same_type(z, part)?, mask)?;
        }
        ArrayData::from(acc)
    }))
}

/// `acc[i] += part[i]` where `mask[i]`, in the element type.
fn add_where<T: Element>(acc: &mut [T], part: &[T], mask: &[bool]) -> OpResult<()> {
    let add = T::binary_fn(oxla_ir::BinaryOp::Add)
        .ok_or_else(|| format!("ragged-dot is not defined for {}", T::ELEMENT_TYPE))?;
    for ((a, &p), &m) in acc.iter_mut().zip(part).zip(mask) {
        if m {
            *a = add(*a, p);
        }
    }
    Ok(())
}

/// Ragged contraction: result `[g, ...]` is the dot over group `g`'s
/// contracting positions, both operands zeroed elsewhere.
fn contracting(
    lhs: &Literal,
    rhs: &Literal,
    groups: &Groups,
    dims: &RaggedDotDimensionNumbers,
    prefix: &[i64],
    out: &Shape,
) -> OpResult<ArrayData> {
    let dot = &dims.dot;
    let ragged = dims.ragged_dimension().unwrap_or(0);
    let paired = |d: i64| -> OpResult<usize> {
        dims.rhs_partner(d)
            .map(|r| r as usize)
            .ok_or_else(|| format!("lhs dimension {d} has no rhs partner"))
    };
    let lhs_at: Vec<usize> = prefix.iter().map(|&d| d as usize).collect();
    let rhs_at: Vec<usize> = prefix.iter().map(|&d| paired(d)).collect::<OpResult<_>>()?;
    let rhs_ragged = paired(ragged)?;
    let part_shape = Shape::new(out.element_type(), out.dims().get(1..).unwrap_or(&[]));
    let mut parts = Vec::with_capacity(groups.count);
    for g in 0..groups.count {
        let l = keep(lhs, |idx| {
            let p: Vec<i64> = lhs_at.iter().map(|&k| idx[k]).collect();
            groups.contains(&p, g, idx[ragged as usize])
        })?;
        let r = keep(rhs, |idx| {
            let p: Vec<i64> = rhs_at.iter().map(|&k| idx[k]).collect();
            groups.contains(&p, g, idx[rhs_ragged])
        })?;
        let part = dot_general(&l, &r, dot, &part_shape)?;
        parts.push(Literal::from_array_data(part_shape.dims(), part).map_err(|e| e.to_string())?);
    }
    let Some(first) = parts.first() else {
        return Literal::zeros(out)
            .map_err(|e| e.to_string())
            .and_then(|z| array(&z).cloned());
    };
    Ok(dispatch_array!(array(first)?, f => {
        let mut all = Vec::with_capacity(f.len() * parts.len());
        for part in &parts {
            all.extend_from_slice(same_type(f, part)?);
        }
        ArrayData::from(all)
    }))
}

/// `x` with the elements whose index fails `keep_at` set to zero.
fn keep(x: &Literal, keep_at: impl Fn(&[i64]) -> bool) -> OpResult<Literal> {
    let dims = x.shape().dims();
    let data = dispatch_array!(array(x)?, v => {
        let mut kept = v.to_vec();
        let mut k = 0;
        for_each_index(dims, |idx| {
            if !keep_at(idx) && let Some(e) = kept.get_mut(k) {
                *e = Element::zero();
            }
            k += 1;
        });
        ArrayData::from(kept)
    });
    Literal::from_array_data(dims, data).map_err(|e| e.to_string())
}

/// The slice of `x` at `index` of dimension `dim`, that dimension removed.
fn take(x: &Literal, dim: usize, index: i64) -> OpResult<Literal> {
    let dims = x.shape().dims();
    let mut kept: Vec<i64> = dims.to_vec();
    if dim >= kept.len() {
        return Err(format!("dimension {dim} is out of range for {}", x.shape()));
    }
    kept.remove(dim);
    let data = dispatch_array!(array(x)?, v => {
        let mut slice = Vec::with_capacity(v.len() / dims[dim].max(1) as usize);
        let mut k = 0;
        for_each_index(dims, |idx| {
            if idx[dim] == index && let Some(&e) = v.get(k) {
                slice.push(e);
            }
            k += 1;
        });
        ArrayData::from(slice)
    });
    Literal::from_array_data(&kept, data).map_err(|e| e.to_string())
}
