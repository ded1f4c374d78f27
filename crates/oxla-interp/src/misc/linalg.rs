//! `cholesky` and `triangular-solve`, matrix by matrix over the leading
//! (batch) dimensions, in the element type (`f32`, `f64`; `bf16`/`f16`
//! with every operation rounded to the type, as XLA:CPU computes them;
//! `c64`/`c128` with XLA's complex product and quotient).
//!
//! XLA:CPU expands both into blocked algorithms whose summation order
//! differs from the textbook loops here, so results agree with XLA within
//! rounding, not bit for bit (the tests compare with a tolerance).
//!
//! - `cholesky(a, lower)`: the Cholesky–Banachiewicz algorithm on the lower
//!   triangle of `a` (the upper one, transposed, for `lower=false`, giving
//!   `U = L^T`; for complex matrices `A = L L^H`, the upper triangle read
//!   conjugated and `U = L^H`, the pivots `sqrt(re) + 0i`). The other triangle of the result is zero, as XLA's
//!   expander leaves it. As in XLA, a matrix whose factorisation meets a NaN
//!   pivot (`sqrt` of a negative or NaN number: not positive definite) is
//!   all NaN; a zero pivot divides by zero and gives infinities, not NaN.
//! - `triangular-solve(a, b)`: `op(a)` is `a` with only its `lower` (or
//!   upper) triangle read, ones on the diagonal if `unit_diagonal`, then
//!   transposed for `TRANSPOSE` and `ADJOINT`, conjugated too for
//!   `ADJOINT` (the same as `TRANSPOSE` for real types);
//!   `left_side` solves `op(a) x = b` by forward or back substitution, and
//!   otherwise `x op(a) = b`, which is `op(a)^T x^T = b^T`.

use num_like::Float;
use oxla_ir::{ArrayData, Literal, Transpose, TriangularSolveOptions};

use crate::ops::{OpResult, array};

/// The operations the two algorithms need, for `f32`, `f64`, `bf16`,
/// `f16`, `c64` and `c128`.
mod num_like {
    use oxla_ir::{Complex64, Complex128};

    use crate::complex::xla;

    pub(crate) trait Float:
        Copy + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self>
    {
        const ZERO: Self;
        const ONE: Self;
        const NAN: Self;
        /// `self · o` (complex: XLA's product, [`xla::mul`]).
        fn times(self, o: Self) -> Self;
        /// `self / o` (complex: XLA's quotient, [`xla::div`]).
        fn over(self, o: Self) -> Self;
        /// The Cholesky pivot's root: `sqrt(self)`; for complex numbers
        /// `sqrt(re) + 0i`, as XLA's expander takes it.
        fn sqrt(self) -> Self;
        /// The complex conjugate (the value itself for real types).
        fn conj(self) -> Self;
        fn is_nan(self) -> bool;
    }

    macro_rules! float {
        ($t:ty) => {
            impl Float for $t {
                const ZERO: Self = 0.0;
                const ONE: Self = 1.0;
                const NAN: Self = <$t>::NAN;
                fn times(self, o: Self) -> Self {
                    self * o
                }
                fn over(self, o: Self) -> Self {
                    self / o
                }
                fn sqrt(self) -> Self {
                    <$t>::sqrt(self)
                }
                fn conj(self) -> Self {
                    self
                }
                fn is_nan(self) -> bool {
                    <$t>::is_nan(self)
                }
            }
        };
    }
    float!(f32);
    float!(f64);

    /// The half-width floats: every operation in `f32`, rounded to the
    /// type after each one, as XLA:CPU computes their elementwise ops (and
    /// so its expansion of the two algorithms).
    macro_rules! half {
        ($t:ty) => {
            impl Float for $t {
                const ZERO: Self = <$t>::ZERO;
                const ONE: Self = <$t>::ONE;
                const NAN: Self = <$t>::NAN;
                fn times(self, o: Self) -> Self {
                    self * o
                }
                fn over(self, o: Self) -> Self {
                    self / o
                }
                fn sqrt(self) -> Self {
                    <$t>::from_f32(self.to_f32().sqrt())
                }
                fn conj(self) -> Self {
                    self
                }
                fn is_nan(self) -> bool {
                    <$t>::is_nan(self)
                }
            }
        };
    }
    half!(oxla_ir::bf16);
    half!(oxla_ir::f16);

    /// `c64` and `c128`: XLA's complex product and quotient.
    macro_rules! complex {
        ($c:ty, $f:ty) => {
            impl Float for $c {
                const ZERO: Self = <$c>::new(0.0, 0.0);
                const ONE: Self = <$c>::new(1.0, 0.0);
                const NAN: Self = <$c>::new(<$f>::NAN, <$f>::NAN);
                fn times(self, o: Self) -> Self {
                    let (re, im) = xla::mul((self.re, self.im), (o.re, o.im));
                    <$c>::new(re, im)
                }
                fn over(self, o: Self) -> Self {
                    let (re, im) = xla::div((self.re, self.im), (o.re, o.im));
                    <$c>::new(re, im)
                }
                fn sqrt(self) -> Self {
                    <$c>::new(self.re.sqrt(), 0.0)
                }
                fn conj(self) -> Self {
                    <$c>::new(self.re, -self.im)
                }
                fn is_nan(self) -> bool {
                    self.re.is_nan() || self.im.is_nan()
                }
            }
        };
    }
    complex!(Complex64, f32);
    complex!(Complex128, f64);
}

/// The size `n` of the square matrices in the two minor dims of `dims`,
/// and how many there are.
fn matrices(dims: &[i64]) -> OpResult<(usize, usize, usize)> {
    match dims {
        [batch @ .., rows, cols] => {
            let batch = batch.iter().product::<i64>().max(0) as usize;
            Ok((batch, *rows as usize, *cols as usize))
        }
        _ => Err(format!("expected matrices, got dims {dims:?}")),
    }
}

fn cholesky_typed<T: Float>(a: &[T], dims: &[i64], lower: bool) -> OpResult<Vec<T>> {
    let (batch, n, m) = matrices(dims)?;
    if n != m || a.len() != batch * n * n {
        return Err(format!("cholesky needs square matrices, got dims {dims:?}"));
    }
    let mut out = vec![T::ZERO; a.len()];
    if out.is_empty() {
        return Ok(out);
    }
    for (a, l) in a.chunks(n * n).zip(out.chunks_mut(n * n)) {
        // The lower triangle read: a[i][j] for i >= j (transposed for upper).
        // (For complex matrices the upper triangle is read conjugated:
        // A = U^H U, so L = U^H.)
        let at = |i: usize, j: usize| {
            if lower {
                a[i * n + j]
            } else {
                a[j * n + i].conj()
            }
        };
        let mut failed = false;
        for j in 0..n {
            for i in j..n {
                let mut s = at(i, j);
                for k in 0..j {
                    s = s - l[i * n + k].times(l[j * n + k].conj());
                }
                if i == j {
                    let d = s.sqrt();
                    failed |= d.is_nan();
                    l[j * n + j] = d;
                } else {
                    l[i * n + j] = s.over(l[j * n + j]);
                }
            }
        }
        if failed {
            l.fill(T::NAN);
        } else if !lower {
            // U = L^T (L^H for complex matrices).
            for i in 0..n {
                for j in 0..i {
                    l[j * n + i] = l[i * n + j].conj();
                    l[i * n + j] = T::ZERO;
                }
            }
        }
    }
    Ok(out)
}

/// `cholesky(a)` (see the module docs).
pub(crate) fn cholesky(a: &Literal, lower: bool) -> OpResult<ArrayData> {
    let dims = a.shape().dims();
    match array(a)? {
        ArrayData::F32(v) => Ok(ArrayData::F32(cholesky_typed(v, dims, lower)?)),
        ArrayData::F64(v) => Ok(ArrayData::F64(cholesky_typed(v, dims, lower)?)),
        ArrayData::Bf16(v) => Ok(ArrayData::Bf16(cholesky_typed(v, dims, lower)?)),
        ArrayData::F16(v) => Ok(ArrayData::F16(cholesky_typed(v, dims, lower)?)),
        ArrayData::C64(v) => Ok(ArrayData::C64(cholesky_typed(v, dims, lower)?)),
        ArrayData::C128(v) => Ok(ArrayData::C128(cholesky_typed(v, dims, lower)?)),
        other @ (ArrayData::Pred(_)
        | ArrayData::S8(_)
        | ArrayData::S16(_)
        | ArrayData::S32(_)
        | ArrayData::S64(_)
        | ArrayData::U8(_)
        | ArrayData::U16(_)
        | ArrayData::U32(_)
        | ArrayData::U64(_)) => Err(format!(
            "cholesky is not defined for {}",
            other.element_type()
        )),
        // The sub-byte and 8-bit floats: not evaluated yet (a typed error,
        // never a result computed by another rule).
        other @ (ArrayData::S1(_)
        | ArrayData::S2(_)
        | ArrayData::S4(_)
        | ArrayData::U1(_)
        | ArrayData::U2(_)
        | ArrayData::U4(_)
        | ArrayData::F4E2M1FN(_)
        | ArrayData::F8E3M4(_)
        | ArrayData::F8E4M3(_)
        | ArrayData::F8E4M3FN(_)
        | ArrayData::F8E4M3FNUZ(_)
        | ArrayData::F8E4M3B11FNUZ(_)
        | ArrayData::F8E5M2(_)
        | ArrayData::F8E5M2FNUZ(_)
        | ArrayData::F8E8M0FNU(_)) => Err(format!(
            "cholesky of {} is not supported yet: convert to f32 (or f64) first",
            other.element_type()
        )),
    }
}

fn triangular_solve_typed<T: Float>(
    a: &[T],
    b: &[T],
    dims: &[i64],
    options: &TriangularSolveOptions,
) -> OpResult<Vec<T>> {
    let (batch, rows, cols) = matrices(dims)?;
    // `op(a)` is k x k: k = rows of b when a is on the left, else cols.
    let k = if options.left_side { rows } else { cols };
    if a.len() != batch * k * k || b.len() != batch * rows * cols {
        return Err(format!(
            "triangular-solve operands do not fit the dims {dims:?}"
        ));
    }
    let (transposed, conjugated) = match options.transpose_a {
        Transpose::NoTranspose => (false, false),
        Transpose::Transpose => (true, false),
        Transpose::Adjoint => (true, true),
    };
    if b.is_empty() {
        // No right-hand side (a zero batch, k = 0 or no columns).
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(b.len());
    for (a, b) in a.chunks(k * k).zip(b.chunks(rows * cols)) {
        // m = op(a), dense, with the unread triangle zero.
        let mut m = vec![T::ZERO; k * k];
        for i in 0..k {
            for j in 0..k {
                let in_triangle = if options.lower { i >= j } else { i <= j };
                let v = if i == j && options.unit_diagonal {
                    T::ONE
                } else if in_triangle && conjugated {
                    a[i * k + j].conj()
                } else if in_triangle {
                    a[i * k + j]
                } else {
                    T::ZERO
                };
                let (r, c) = if transposed { (j, i) } else { (i, j) };
                m[r * k + c] = v;
            }
        }
        // Left side: solve m x = b. Right side: x m = b, i.e. m^T x^T =
        // b^T: transpose m and b, solve, transpose back.
        let (m, rhs, rhs_cols) = if options.left_side {
            (m, b.to_vec(), cols)
        } else {
            let mt: Vec<T> = (0..k * k).map(|p| m[(p % k) * k + p / k]).collect();
            let bt: Vec<T> = (0..rows * cols)
                .map(|p| b[(p % rows) * cols + p / rows])
                .collect();
            (mt, bt, rows)
        };
        // The system's matrix is lower triangular when `op(a)` is (the
        // triangle read, flipped by a transpose), and flips once more for
        // the right side's transpose.
        let op_lower = options.lower != transposed;
        let lower = op_lower == options.left_side;
        let mut x = rhs;
        for c in 0..rhs_cols {
            let order: Box<dyn Iterator<Item = usize>> = if lower {
                Box::new(0..k)
            } else {
                Box::new((0..k).rev())
            };
            for i in order {
                let mut s = x[i * rhs_cols + c];
                let others: Box<dyn Iterator<Item = usize>> = if lower {
                    Box::new(0..i)
                } else {
                    Box::new(i + 1..k)
                };
                for j in others {
                    s = s - m[i * k + j].times(x[j * rhs_cols + c]);
                }
                x[i * rhs_cols + c] = s.over(m[i * k + i]);
            }
        }
        if options.left_side {
            out.extend(x);
        } else {
            // x holds x^T (cols x rows).
            out.extend((0..rows * cols).map(|p| x[(p % cols) * rows + p / cols]));
        }
    }
    Ok(out)
}

/// `triangular-solve(a, b)` (see the module docs).
pub(crate) fn triangular_solve(
    a: &Literal,
    b: &Literal,
    options: &TriangularSolveOptions,
) -> OpResult<ArrayData> {
    let dims = b.shape().dims();
    let (a, b) = (array(a)?, array(b)?);
    if let (ArrayData::F32(a), ArrayData::F32(b)) = (a, b) {
        return Ok(ArrayData::F32(triangular_solve_typed(a, b, dims, options)?));
    }
    if let (ArrayData::F64(a), ArrayData::F64(b)) = (a, b) {
        return Ok(ArrayData::F64(triangular_solve_typed(a, b, dims, options)?));
    }
    if let (ArrayData::Bf16(a), ArrayData::Bf16(b)) = (a, b) {
        return Ok(ArrayData::Bf16(triangular_solve_typed(
            a, b, dims, options,
        )?));
    }
    if let (ArrayData::F16(a), ArrayData::F16(b)) = (a, b) {
        return Ok(ArrayData::F16(triangular_solve_typed(a, b, dims, options)?));
    }
    if let (ArrayData::C64(a), ArrayData::C64(b)) = (a, b) {
        return Ok(ArrayData::C64(triangular_solve_typed(a, b, dims, options)?));
    }
    if let (ArrayData::C128(a), ArrayData::C128(b)) = (a, b) {
        return Ok(ArrayData::C128(triangular_solve_typed(
            a, b, dims, options,
        )?));
    }
    Err(format!(
        "triangular-solve is not defined for {} and {}",
        a.element_type(),
        b.element_type()
    ))
}
