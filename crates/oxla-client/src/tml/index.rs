//! Index access broadcasting (IAB) on literals, and the index resolution
//! the IR form ([`super::Tml::get`], [`super::Tml::set`]) shares.
//!
//! Indices consume dimensions from the outermost. A dimension of length 1
//! takes any index (it is broadcast to any length); a longer dimension is
//! bounds-checked; indices past the last dimension are ignored (the value
//! is broadcast over any number of further dimensions), so every index
//! into a scalar is ignored. Negative indices are refused: they are no
//! position in any broadcast length.

use oxla_ir::shape::row_major_strides;
use oxla_ir::{Literal, Result};

use super::types::invalid;

/// `[999][1]`, TML's index syntax.
pub(crate) fn index_text(index: &[i64]) -> String {
    index.iter().map(|i| format!("[{i}]")).collect()
}

/// The position read at each of the first `min(index.len(), dims.len())`
/// dims of a value printed as `what`, under IAB.
pub(crate) fn iab_positions(op: &str, what: &str, dims: &[i64], index: &[i64]) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(index.len().min(dims.len()));
    for (p, &i) in index.iter().enumerate() {
        if i < 0 {
            return Err(invalid(
                op,
                format!(
                    "a{} with a of {what}: index {i} at position {p} is negative; TML indices \
                     count from 0 (index access broadcasting stretches dimensions of length 1 \
                     to any non-negative index, never below 0).",
                    index_text(index)
                ),
            ));
        }
        let Some(&d) = dims.get(p) else {
            continue; // past the last dimension: broadcast, ignored
        };
        if d == 1 {
            out.push(0);
        } else if i < d {
            out.push(i);
        } else {
            return Err(invalid(
                op,
                format!(
                    "a{} with a of {what}: index {i} at position {p} is out of bounds: dimension \
                     {p} has length {d}, so its index must be below {d}.\nhelp: index access \
                     broadcasting lets only dimensions of length 1, and positions past the last \
                     dimension, take any index.",
                    index_text(index)
                ),
            ));
        }
    }
    Ok(out)
}

/// The offset and length of the contiguous block `a[pos...]` selects.
fn block(dims: &[i64], pos: &[i64]) -> (usize, usize) {
    let strides = row_major_strides(dims);
    let base: i64 = pos.iter().zip(&strides).map(|(p, s)| p * s).sum();
    let len: i64 = dims[pos.len()..].iter().product();
    (base as usize, len as usize)
}

/// `a[i1][i2]...` with index access broadcasting: the element, or the
/// sub-array of the dimensions not indexed.
///
/// ```
/// use oxla_client::tml;
/// use oxla_ir::Literal;
/// let a = Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?; // tensor<real, 1, 2>
/// assert_eq!(tml::get(&a, &[0, 1])?, Literal::scalar(4.0f64));
/// assert_eq!(tml::get(&a, &[999, 1])?, Literal::scalar(4.0f64));
/// assert_eq!(tml::get(&a, &[999, 0, 1000, 2000])?, Literal::scalar(3.0f64));
/// assert_eq!(tml::get(&a, &[5])?.to_vec::<f64>()?, vec![3.0, 4.0]);
/// assert!(tml::get(&a, &[0, 2]).is_err()); // dimension 1 has length 2
/// let s = Literal::scalar(42i64);
/// assert_eq!(tml::get(&s, &[4, 5])?, s);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn get(a: &Literal, index: &[i64]) -> Result<Literal> {
    let data = a.array_data().ok_or_else(|| {
        invalid(
            "get",
            format!(
                "index access needs an array, but got the tuple {}.",
                a.shape()
            ),
        )
    })?;
    let dims = a.shape().dims();
    let pos = iab_positions("get", &a.shape().to_string(), dims, index)?;
    let (base, len) = block(dims, &pos);
    let picked: Vec<usize> = (base..base + len).collect();
    Literal::from_array_data(&dims[pos.len()..], data.gather(&picked))
}

/// `a[i1][i2]... = value` with index access broadcasting: writes `value`
/// into the element or sub-array selected as by [`get`] (so into the
/// scalar itself when `a` is a scalar). `value` must assignment-broadcast
/// to the selected part (at most its dims, each of the same length or 1)
/// and have `a`'s element type. On error `a` is unchanged.
///
/// A literal has one nesting level; for nested TML types use
/// [`super::Tml::set`], which knows the levels.
///
/// ```
/// use oxla_client::tml;
/// use oxla_ir::Literal;
/// let mut a = Literal::scalar(1i64);
/// tml::set(&mut a, &[1], &Literal::scalar(2i64))?; // a[1] = 2
/// assert_eq!(a, Literal::scalar(2i64));
/// let mut m = Literal::from_vec(&[2, 3], vec![0i64; 6])?;
/// tml::set(&mut m, &[1], &Literal::scalar(7i64))?; // m[1] = 7
/// assert_eq!(m.to_vec::<i64>()?, vec![0, 0, 0, 7, 7, 7]);
/// assert!(tml::set(&mut m, &[0], &Literal::from_vec(&[2], vec![1i64, 2])?).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn set(a: &mut Literal, index: &[i64], value: &Literal) -> Result<()> {
    let shape = a.shape().clone();
    let (Some(src), true) = (value.array_data(), shape.is_array()) else {
        return Err(invalid(
            "set",
            format!(
                "index access needs arrays, but got target {shape} and value {}.",
                value.shape()
            ),
        ));
    };
    let dims = shape.dims();
    let pos = iab_positions("set", &shape.to_string(), dims, index)?;
    let region = &dims[pos.len()..];
    let vdims = value.shape().dims();
    let fits = vdims.len() <= region.len()
        && vdims
            .iter()
            .rev()
            .zip(region.iter().rev())
            .all(|(&v, &r)| v == r || v == 1);
    if !fits {
        return Err(invalid(
            "set",
            format!(
                "Assignment not possible: a{} = value with a of {shape} and value {}: the value \
                 cannot be broadcast to the selected part, of dims {}, without changing it (it \
                 may have at most that many dims, each of the same length or 1).",
                index_text(index),
                value.shape(),
                crate::lower::dims_list(region)
            ),
        ));
    }
    if value.element_type() != shape.element_type() {
        return Err(invalid(
            "set",
            format!(
                "a{} = value with a of {shape} and value {}: the element types differ, and oxla \
                 converts no types implicitly; convert the value first.",
                index_text(index),
                value.shape()
            ),
        ));
    }
    // The source element of each element of the region, row-major.
    let (base, len) = block(dims, &pos);
    let vstrides = row_major_strides(vdims);
    let offset = region.len() - vdims.len();
    let mut sources = Vec::with_capacity(len);
    let mut coord = vec![0i64; region.len()];
    for _ in 0..len {
        let s: i64 = (0..vdims.len())
            .filter(|&j| vdims[j] != 1)
            .map(|j| coord[offset + j] * vstrides[j])
            .sum();
        sources.push(s as usize);
        for d in (0..region.len()).rev() {
            coord[d] += 1;
            if coord[d] < region[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    let values = src.gather(&sources);
    a.copy_values_from(base, &values).map_err(|e| {
        crate::lower::internal(
            "tml.set",
            format!("cannot write the value into the target: {e}"),
        )
    })
}
