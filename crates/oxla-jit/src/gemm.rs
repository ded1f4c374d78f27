//! The float GEMM: `C = A x B` for `f32` and `f64`, called from JIT code.
//!
//! The JIT does not generate float matrix products; it calls the `gemm`
//! crate (cache-blocked, packed, with micro-kernels chosen at run time by
//! CPU features: AVX2/FMA here), chosen over `matrixmultiply` by
//! measurement (`docs/performance.md`, "Matrix products": as fast on large
//! products, 1.3-1.5x faster on the small and batched ones of attention
//! heads). The crate's AVX-512 kernels sit behind its `x86-v4` feature,
//! left off: the machines we measure on expose AVX2 only, and an untested
//! kernel is not switched on.
//! Its single-threaded entry is used: the JIT's own pool splits a dot's
//! rows between threads (`launch.rs`), so the two never fight over cores.
//!
//! Two ways in:
//! - [`call`], the internal API (a dot kernel, and any other kernel that
//!   wants a matrix product, e.g. a convolution lowered to one): one
//!   product on strided views, `beta = 0` (C is only written);
//! - the `extern "C"` entries the dot kernels call
//!   ([`oxla_jit_gemm_f32`], [`oxla_jit_gemm_f64`]): the output rows
//!   `r0..r1` of a batched product, counted across batches (row `r` is row
//!   `r % m` of batch `r / m`), one [`call`] per batch segment. A thread's
//!   whole share of a batched dot is one call from JIT code, however many
//!   small matrices it holds.
//!
//! Invariant: every pointer and stride handed in covers a view that lies
//! inside its buffer (`verify::check_kernels`, rule `DotBounds`, checks the
//! dot kernels' views before any code runs).

/// An element type the float GEMM computes in.
pub(crate) trait GemmFloat: Copy + std::ops::Add<Output = Self> + 'static {
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
}

impl GemmFloat for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}

impl GemmFloat for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
}

/// `C = A x B` for `m x k` A at element strides `(rsa, csa)`, `k x n` B at
/// `(rsb, csb)`, `m x n` C at `(rsc, 1)`; C's old contents are ignored (a
/// product with `k = 0` is zero). Single-threaded.
///
/// Each element is a sum started from `+0`, as the interpreter's: the
/// crate's sum starts from the first product, so `-0 x 1` would give `-0`;
/// adding `+0` to every element of C afterwards (a pass over C while it is
/// still in cache) turns `-0` into `+0` and changes nothing else.
///
/// # Safety
///
/// Every element of the three views (`a + i rsa + p csa` for `i < m`,
/// `p < k`, and likewise for B and C) must lie inside a live allocation of
/// `T`s, the C view inside one no other thread touches during the call, and
/// C must not overlap A or B.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn call<T: GemmFloat>(
    m: usize,
    k: usize,
    n: usize,
    a: *const T,
    rsa: isize,
    csa: isize,
    b: *const T,
    rsb: isize,
    csb: isize,
    c: *mut T,
    rsc: isize,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            // SAFETY: row `i` of C (n elements from `c + i rsc`) is inside
            // C's view, which the caller guarantees is inside its buffer.
            unsafe {
                let row = c.offset(i as isize * rsc);
                for j in 0..n {
                    row.add(j).write(T::ZERO);
                }
            }
        }
        return;
    }
    // SAFETY: the views are inside their buffers and C overlaps neither
    // operand (the caller's contract); with `read_dst = false` the crate
    // writes C = 1 * (A x B) without reading it. `gemm` takes the
    // destination first and each matrix's column stride before its row
    // stride.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c,
            1,
            rsc,
            false,
            a,
            csa,
            rsa,
            b,
            csb,
            rsb,
            T::ZERO,
            T::ONE,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
    for i in 0..m {
        // SAFETY: row `i` of C (n elements from `c + i rsc`) is inside C's
        // view, which the caller guarantees is inside its buffer and this
        // thread's alone.
        let row = unsafe { std::slice::from_raw_parts_mut(c.offset(i as isize * rsc), n) };
        for x in row {
            *x = *x + T::ZERO;
        }
    }
}

/// Defines `extern "C" fn $name`: rows `r0..r1` (across batches) of a
/// batched `[batch, m, k] x [batch, k, n]` product into a row-major
/// `[batch, m, n]` C, one [`call`] per batch segment.
macro_rules! gemm_entry {
    ($name:ident, $t:ty) => {
        /// Rows `r0..r1` (row `r` is row `r % m` of batch `r / m`) of a
        /// batched product: A at element strides `(sa0, rsa, csa)` per
        /// (batch, row, column), B at `(sb0, rsb, csb)`, C row-major
        /// `[batch, m, n]`. Called from JIT code.
        #[allow(clippy::too_many_arguments)]
        pub(crate) extern "C" fn $name(
            r0: i64,
            r1: i64,
            m: i64,
            k: i64,
            n: i64,
            a: *const $t,
            sa0: i64,
            rsa: i64,
            csa: i64,
            b: *const $t,
            sb0: i64,
            rsb: i64,
            csb: i64,
            c: *mut $t,
        ) {
            if m <= 0 || n <= 0 || r1 <= r0 || r0 < 0 || k < 0 {
                return;
            }
            let mut r = r0;
            while r < r1 {
                let (batch, row) = (r / m, r % m);
                let rows = (m - row).min(r1 - r);
                // SAFETY: the dot kernel passes its operand and output
                // buffers with the strides of its canonical views; the
                // verifier (`DotBounds`) checked that every (batch, row,
                // column) of those views is inside its buffer, and rows
                // `r0..r1` of C are this thread's alone (the pool hands out
                // disjoint row ranges). C is a separate output or temporary
                // buffer, never an operand (`inplace.rs`: a dot never runs
                // in place).
                unsafe {
                    let pa = a.offset((batch * sa0 + row * rsa) as isize);
                    let pb = b.offset((batch * sb0) as isize);
                    let pc = c.offset((r * n) as isize);
                    call::<$t>(
                        rows as usize,
                        k as usize,
                        n as usize,
                        pa,
                        rsa as isize,
                        csa as isize,
                        pb,
                        rsb as isize,
                        csb as isize,
                        pc,
                        n as isize,
                    );
                }
                r += rows;
            }
        }
    };
}

gemm_entry!(oxla_jit_gemm_f32, f32);
gemm_entry!(oxla_jit_gemm_f64, f64);

/// Rows `r0..r1` (row `r` is row `r % m` of batch `r / m`) of a
/// batched wrapping 32-bit integer product (signed or unsigned: the low
/// 32 bits do not depend on it) through the blocked kernel
/// (`blocked.rs`); the arguments are the float entries': A at element strides
/// `(sa0, rsa, csa)` per (batch, row, column), B at
/// `(sb0, rsb, csb)`, C row-major `[batch, m, n]`. Called from JIT
/// code.
#[allow(clippy::too_many_arguments)]
pub(crate) extern "C" fn oxla_jit_idot_32(
    r0: i64,
    r1: i64,
    m: i64,
    k: i64,
    n: i64,
    a: *const u32,
    sa0: i64,
    rsa: i64,
    csa: i64,
    b: *const u32,
    sb0: i64,
    rsb: i64,
    csb: i64,
    c: *mut u32,
) {
    if m <= 0 || n <= 0 || r1 <= r0 || r0 < 0 || k < 0 {
        return;
    }
    let v = crate::blocked::Views {
        m: m as usize,
        k: k as usize,
        n: n as usize,
        a,
        sa: [sa0 as isize, rsa as isize, csa as isize],
        b,
        sb: [sb0 as isize, rsb as isize, csb as isize],
        c,
    };
    // SAFETY: the dot kernel passes its operand and output buffers
    // with the strides of its canonical views; the verifier
    // (`DotBounds`) checked that every (batch, row, column) of those
    // views is inside its buffer, rows `r0..r1` of C are this
    // thread's alone (the pool hands out disjoint row ranges), and C
    // is never an operand (a dot never runs in place).
    unsafe { crate::blocked::product_u32(r0 as usize, r1 as usize, v) };
}

/// The number of `i64`-sized arguments of the entries.
pub(crate) const ENTRY_ARGS: usize = 14;

#[cfg(test)]
mod tests {
    //! [`call`] against an in-order triple loop on small strided views,
    //! and the batched entry's segmenting.

    use super::*;

    fn naive(m: usize, k: usize, n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn call_matches_the_triple_loop_with_a_transposed_operand() {
        let (m, k, n) = (5, 7, 3);
        // Small integers: exact in any order.
        let a: Vec<f64> = (0..m * k).map(|i| (i % 5) as f64 - 2.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (i % 7) as f64 - 3.0).collect();
        let want = naive(m, k, n, &a, &b);
        // B stored transposed: element (p, j) at j * k + p.
        let mut bt = vec![0.0; k * n];
        for p in 0..k {
            for j in 0..n {
                bt[j * k + p] = b[p * n + j];
            }
        }
        let mut c = vec![f64::NAN; m * n];
        // SAFETY: every view is inside its vector.
        unsafe {
            call(
                m,
                k,
                n,
                a.as_ptr(),
                k as isize,
                1,
                bt.as_ptr(),
                1,
                k as isize,
                c.as_mut_ptr(),
                n as isize,
            );
        }
        assert_eq!(c, want);
    }

    #[test]
    fn sums_start_from_positive_zero() {
        let (a, b) = ([-0.0f32, 0.0], [1.0f32, -1.0]);
        let mut c = [f32::NAN; 1];
        // SAFETY: A is 1 x 2, B 2 x 1, C 1 x 1.
        unsafe {
            call(
                1,
                2,
                1,
                a.as_ptr(),
                2,
                1,
                b.as_ptr(),
                1,
                1,
                c.as_mut_ptr(),
                1,
            )
        };
        // 0 + (-0 x 1) + (0 x -1) = +0 (the crate alone gives -0).
        assert_eq!(c[0].to_bits(), 0);
    }

    #[test]
    fn k_zero_writes_zeros() {
        let mut c = vec![f32::NAN; 6];
        // SAFETY: A and B are never read (k = 0); C is 2 x 3.
        unsafe {
            call::<f32>(
                2,
                0,
                3,
                [].as_ptr(),
                0,
                1,
                [].as_ptr(),
                3,
                1,
                c.as_mut_ptr(),
                3,
            )
        };
        assert_eq!(c, vec![0.0; 6]);
    }

    #[test]
    fn the_entry_computes_a_row_range_across_batches() {
        let (batch, m, k, n) = (3usize, 4usize, 5usize, 2usize);
        let a: Vec<f32> = (0..batch * m * k).map(|i| (i % 9) as f32 - 4.0).collect();
        let b: Vec<f32> = (0..batch * k * n).map(|i| (i % 5) as f32 - 2.0).collect();
        let mut c = vec![-1.0f32; batch * m * n];
        // Rows 3..10: the end of batch 0, all of batch 1, the start of 2.
        oxla_jit_gemm_f32(
            3,
            10,
            m as i64,
            k as i64,
            n as i64,
            a.as_ptr(),
            (m * k) as i64,
            k as i64,
            1,
            b.as_ptr(),
            (k * n) as i64,
            n as i64,
            1,
            c.as_mut_ptr(),
        );
        for r in 0..batch * m {
            let (bi, i) = (r / m, r % m);
            for j in 0..n {
                let want: f32 = (0..k)
                    .map(|p| a[bi * m * k + i * k + p] * b[bi * k * n + p * n + j])
                    .sum();
                let got = c[r * n + j];
                if (3..10).contains(&r) {
                    assert_eq!(got, want, "row {r} column {j}");
                } else {
                    assert_eq!(got, -1.0, "row {r} is outside the range");
                }
            }
        }
    }
}
