//! Index arithmetic: walking multi-indices in row-major order, and reading
//! an operand "through" a view of it.
//!
//! Every data-movement op (broadcast, transpose, slice, reverse, and the
//! implicit broadcasting of elementwise operands) is one [`View`]: output
//! element `idx` reads operand element `offset + Σ idx[j] * strides[j]`.
//! Broadcasting is stride 0, reversal a negative stride, slicing an offset
//! and a scaled stride. [`View::check`] proves once, before the loop, that
//! every index the view can produce lies inside the operand, so the loops
//! index slices directly and cannot panic.

use oxla_ir::shape::row_major_strides;

/// Calls `f` with every multi-index of `dims` in row-major order (the last
/// dimension fastest). A rank-0 `dims` has one index, `[]`; a `dims` with a
/// 0 has none. The index buffer is allocated once.
pub(crate) fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64])) {
    if dims.iter().any(|&d| d <= 0) {
        return;
    }
    let mut idx = vec![0i64; dims.len()];
    loop {
        f(&idx);
        // Advance like an odometer; done when the first digit rolls over.
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// The number of elements of `dims`.
pub(crate) fn element_count(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}

/// How output multi-indices map to positions in an operand's row-major
/// data: position = `offset + Σ idx[j] * strides[j]`, one stride per output
/// dimension.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct View {
    /// The position of output index `[0, ..., 0]`.
    pub offset: i64,
    /// The step per output dimension (0 where the operand is replicated).
    pub strides: Vec<i64>,
}

impl View {
    /// The operand read in order: output dims equal the operand dims.
    pub fn identity(dims: &[i64]) -> View {
        View {
            offset: 0,
            strides: row_major_strides(dims),
        }
    }

    /// Operand dimension `i` feeds output dimension `map[i]`; output
    /// dimensions not in `map` replicate the operand. An operand dimension
    /// of size 1 is read at index 0 whatever the output size (degenerate
    /// broadcasting); any other size must equal its output dimension's.
    pub fn broadcast(
        operand_dims: &[i64],
        out_dims: &[i64],
        map: &[usize],
    ) -> Result<View, String> {
        if map.len() != operand_dims.len() {
            return Err(format!(
                "{} operand dimensions but a map of {} entries",
                operand_dims.len(),
                map.len()
            ));
        }
        let operand_strides = row_major_strides(operand_dims);
        let mut strides = vec![0i64; out_dims.len()];
        for (i, &d) in map.iter().enumerate() {
            let Some(&out_size) = out_dims.get(d) else {
                return Err(format!(
                    "operand dimension {i} maps to dimension {d}, but the result has rank {}",
                    out_dims.len()
                ));
            };
            let size = operand_dims[i];
            if size == out_size && size != 1 {
                strides[d] = operand_strides[i];
            } else if size != 1 {
                return Err(format!(
                    "operand dimension {i} (size {size}) cannot broadcast to dimension {d} (size {out_size})"
                ));
            }
        }
        Ok(View { offset: 0, strides })
    }

    /// `out.dims[i] = operand.dims[permutation[i]]`.
    pub fn transpose(operand_dims: &[i64], permutation: &[usize]) -> Result<View, String> {
        let operand_strides = row_major_strides(operand_dims);
        let strides = permutation
            .iter()
            .map(|&p| operand_strides.get(p).copied())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("permutation {permutation:?} is out of range"))?;
        Ok(View { offset: 0, strides })
    }

    /// Output index `j` of dimension `i` reads `starts[i] + j * steps[i]`.
    pub fn slice(operand_dims: &[i64], starts: &[i64], steps: &[i64]) -> View {
        let operand_strides = row_major_strides(operand_dims);
        // A step may be huge (any step >= 1 is valid); saturating keeps the
        // arithmetic defined, and `check` then sees the true reach.
        let offset = starts
            .iter()
            .zip(&operand_strides)
            .fold(0i64, |acc, (s, t)| acc.saturating_add(s.saturating_mul(*t)));
        let strides = steps
            .iter()
            .zip(&operand_strides)
            .map(|(s, t)| s.saturating_mul(*t))
            .collect();
        View { offset, strides }
    }

    /// Dimensions listed in `reversed` are read from the end.
    pub fn reverse(operand_dims: &[i64], reversed: &[usize]) -> View {
        let mut view = View::identity(operand_dims);
        for &d in reversed {
            if let (Some(&n), Some(stride)) = (operand_dims.get(d), view.strides.get_mut(d)) {
                view.offset += (n - 1).max(0) * *stride;
                *stride = -*stride;
            }
        }
        view
    }

    /// Checks that every output index in `out_dims` reads a position in
    /// `0..len`, which makes indexing with [`View::position`] safe.
    pub fn check(&self, out_dims: &[i64], len: usize) -> Result<(), String> {
        if self.strides.len() != out_dims.len() {
            return Err(format!(
                "a view of rank {} read at rank {}",
                self.strides.len(),
                out_dims.len()
            ));
        }
        if element_count(out_dims) == 0 {
            return Ok(());
        }
        let (mut lo, mut hi) = (self.offset, self.offset);
        for (&d, &s) in out_dims.iter().zip(&self.strides) {
            let reach = (d - 1).saturating_mul(s);
            lo = lo.saturating_add(reach.min(0));
            hi = hi.saturating_add(reach.max(0));
        }
        if lo < 0 || hi >= len as i64 {
            return Err(format!(
                "reads positions {lo}..={hi} of an operand with {len} elements"
            ));
        }
        Ok(())
    }

    /// The operand position that output index `idx` reads.
    pub fn position(&self, idx: &[i64]) -> usize {
        let p: i64 = self.offset
            + idx
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<i64>();
        p as usize
    }

    /// The operand read through the view: one value per output index, in
    /// row-major order.
    pub fn gather<T: Copy>(&self, src: &[T], out_dims: &[i64]) -> Result<Vec<T>, String> {
        self.check(out_dims, src.len())?;
        let mut out = Vec::with_capacity(element_count(out_dims));
        for_each_index(out_dims, |idx| out.push(src[self.position(idx)]));
        Ok(out)
    }

    /// The positions this view names, in row-major order of `dims`: the
    /// bases and offsets a reduction or a contraction adds up. Nothing is
    /// read here, so nothing is checked: the caller checks the view of the
    /// sums it indexes with (a base may lie past the end when there are no
    /// offsets to add to it).
    pub fn positions(&self, dims: &[i64]) -> Vec<usize> {
        let mut out = Vec::with_capacity(element_count(dims));
        for_each_index(dims, |idx| out.push(self.position(idx)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_row_major() {
        let mut seen = Vec::new();
        for_each_index(&[2, 3], |i| seen.push(i.to_vec()));
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[1], vec![0, 1]);
        assert_eq!(seen[3], vec![1, 0]);
        let mut n = 0;
        for_each_index(&[], |_| n += 1);
        assert_eq!(n, 1);
        for_each_index(&[3, 0], |_| n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn views() {
        let x: Vec<i32> = (0..6).collect(); // [[0,1,2],[3,4,5]]
        let t = View::transpose(&[2, 3], &[1, 0]).unwrap();
        assert_eq!(t.gather(&x, &[3, 2]).unwrap(), vec![0, 3, 1, 4, 2, 5]);
        let r = View::reverse(&[2, 3], &[1]);
        assert_eq!(r.gather(&x, &[2, 3]).unwrap(), vec![2, 1, 0, 5, 4, 3]);
        let s = View::slice(&[2, 3], &[0, 1], &[1, 2]);
        assert_eq!(s.gather(&x, &[2, 1]).unwrap(), vec![1, 4]);
        let b = View::broadcast(&[3], &[2, 3], &[1]).unwrap();
        assert_eq!(
            b.gather(&[7, 8, 9], &[2, 3]).unwrap(),
            vec![7, 8, 9, 7, 8, 9]
        );
        assert!(View::broadcast(&[3], &[2, 3], &[0]).is_err());
        assert!(
            View::slice(&[2, 3], &[0, 2], &[1, 1])
                .check(&[2, 2], 6)
                .is_err()
        );
    }
}
