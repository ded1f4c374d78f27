//! The wrapping 32-bit integer matrix product (`s32`, `u32`, and so the
//! `s8 x s8 -> s32` dots whose operands their copies widened): a
//! register-blocked kernel with AVX2 intrinsics, called from JIT code
//! through `gemm::oxla_jit_idot_32` on CPUs that have AVX2 (elsewhere the
//! dot kernel's own loop, `codegen/dot.rs`, runs).
//!
//! [`product_u32`] computes rows `r0..r1` (counted across batches, row `r`
//! is row `r % m` of batch `r / m`) of a batched `[batch, m, k] x
//! [batch, k, n]` product into a row-major `[batch, m, n]` C, the float
//! GEMM entries' contract (`gemm.rs`). It packs a block of B (`KC` steps of
//! `k`, all columns) into strips of `NR` columns, zero-padded, then keeps
//! an `MR x NR` tile of C in vector registers while it walks a strip: per
//! step of `k`, `MR` broadcasts of A and two vector loads of the strip feed
//! `2 MR` vector multiplies and adds (`vpmulld`, `vpaddd`). The generic
//! [`tile_loops`] states the same tile in plain loops: the fallback off
//! x86-64, and the definition the tests hold the intrinsics to.
//!
//! Exactness: the products and sums wrap (two's complement, as the
//! interpreter's), so any order gives the interpreter's bits; signed and
//! unsigned 32-bit types share the kernel (the low 32 bits of a wrapping
//! product and sum do not depend on signedness).
//!
//! Invariant: every pointer and stride handed in covers a view inside its
//! buffer (`verify.rs`, rule `DotBounds`, checks the dot kernels' views
//! before any code runs); the tile never reads A outside the range's rows
//! (missing rows of a partial tile repeat the last real row, and are not
//! stored) nor B outside its `k x n` view (packing pads with zeros).

/// Steps of `k` per packed block of B.
const KC: usize = 256;

/// An element the blocked kernel multiplies and adds.
pub(crate) trait Elem: Copy + 'static {
    /// Zero.
    const ZERO: Self;
    /// `acc + a * b`, wrapping.
    fn mac(acc: Self, a: Self, b: Self) -> Self;
    /// `x + y`, wrapping (between blocks of `k`).
    fn add(x: Self, y: Self) -> Self;
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const ZERO: $t = 0;
            #[inline(always)]
            fn mac(acc: $t, a: $t, b: $t) -> $t {
                acc.wrapping_add(a.wrapping_mul(b))
            }
            #[inline(always)]
            fn add(x: $t, y: $t) -> $t {
                x.wrapping_add(y)
            }
        }
    )*};
}
int_elem!(u32);

/// The operand views and sizes of one batched product, strides in
/// elements: A at `(sa0, rsa, csa)` per (batch, row, column), B at
/// `(sb0, rsb, csb)`, C row-major `[batch, m, n]`.
#[derive(Clone, Copy)]
pub(crate) struct Views<T> {
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) a: *const T,
    pub(crate) sa: [isize; 3],
    pub(crate) b: *const T,
    pub(crate) sb: [isize; 3],
    pub(crate) c: *mut T,
}

/// Rows `r0..r1` of the product (see the module docs).
///
/// # Safety
///
/// Every element of A's and B's views (`a + bi sa0 + i rsa + p csa` for
/// `bi < batch`, `i < m`, `p < k`, likewise B) must lie inside a live
/// allocation of `T`s, rows `r0..r1` of C inside one no other thread
/// touches during the call, and C must not overlap A or B.
#[inline(always)]
unsafe fn product<T: Elem, const MR: usize, const NR: usize>(
    r0: usize,
    r1: usize,
    v: Views<T>,
    tile: Tile<T, MR, NR>,
) {
    let Views {
        m,
        k,
        n,
        a,
        sa,
        b,
        sb,
        c,
    } = v;
    if m == 0 || n == 0 || r1 <= r0 {
        return;
    }
    let strips = n.div_ceil(NR);
    let kc_max = k.clamp(1, KC);
    let mut pack = vec![T::ZERO; kc_max * strips * NR];
    let mut r = r0;
    while r < r1 {
        let (batch, row) = (r / m, r % m);
        let rows = (m - row).min(r1 - r);
        // SAFETY (all pointer arithmetic below): the offsets stay inside
        // the views the caller vouches for: batch < batch count, rows
        // row..row + rows < m, p < k, columns < n.
        let ab = unsafe { a.offset(batch as isize * sa[0] + row as isize * sa[1]) };
        let bb = unsafe { b.offset(batch as isize * sb[0]) };
        let cb = unsafe { c.add(r * n) };
        if k == 0 {
            for i in 0..rows * n {
                unsafe { cb.add(i).write(T::ZERO) };
            }
        }
        let mut k0 = 0;
        while k0 < k {
            let kc = (k - k0).min(KC);
            // Pack B[k0..k0 + kc, :] as strips of NR columns, each strip
            // kc rows of NR (columns past n are zero).
            for s in 0..strips {
                let strip = &mut pack[s * kc * NR..(s + 1) * kc * NR];
                let cols = (n - s * NR).min(NR);
                for (p, dst) in strip.chunks_exact_mut(NR).enumerate() {
                    let src =
                        unsafe { bb.offset((k0 + p) as isize * sb[1] + (s * NR) as isize * sb[2]) };
                    if sb[2] == 1 {
                        // SAFETY: columns s NR .. s NR + cols of row k0 + p.
                        let row = unsafe { std::slice::from_raw_parts(src, cols) };
                        dst[..cols].copy_from_slice(row);
                    } else {
                        for (j, d) in dst.iter_mut().enumerate().take(cols) {
                            *d = unsafe { *src.offset(j as isize * sb[2]) };
                        }
                    }
                    for d in &mut dst[cols..] {
                        *d = T::ZERO;
                    }
                }
            }
            let mut i0 = 0;
            while i0 < rows {
                let mr = (rows - i0).min(MR);
                // Row pointers of the tile at column k0; rows past the
                // range repeat its last row (computed, never stored).
                let arows: [*const T; MR] = std::array::from_fn(|t| unsafe {
                    ab.offset((i0 + t.min(mr - 1)) as isize * sa[1] + k0 as isize * sa[2])
                });
                for s in 0..strips {
                    let strip = &pack[s * kc * NR..(s + 1) * kc * NR];
                    let mut acc = [[T::ZERO; NR]; MR];
                    // SAFETY: the rows' k0..k0 + kc are inside A's view
                    // and the strip holds kc rows of NR.
                    unsafe { tile(kc, &arows, sa[2], strip.as_ptr(), &mut acc) };
                    let cols = (n - s * NR).min(NR);
                    for (t, tile_row) in acc.iter().enumerate().take(mr) {
                        let crow = unsafe { cb.add((i0 + t) * n + s * NR) };
                        for (j, &x) in tile_row.iter().enumerate().take(cols) {
                            unsafe {
                                let pc = crow.add(j);
                                pc.write(if k0 == 0 { x } else { T::add(pc.read(), x) });
                            }
                        }
                    }
                }
                i0 += MR;
            }
            k0 += kc;
        }
        r += rows;
    }
}

/// An `MR x NR` tile of C: `out[t][j] = sum over p < kc of
/// a[t][p csa] * strip[p NR + j]`, one in-order chain per element from
/// zero (each step `Elem::mac`).
type Tile<T, const MR: usize, const NR: usize> =
    unsafe fn(usize, &[*const T; MR], isize, *const T, &mut [[T; NR]; MR]);

/// The portable tile: constant-bound loops the compiler unrolls and
/// vectorises for whatever target features its caller has.
///
/// # Safety
///
/// `a[t] + p csa` for `p < kc` and `strip[..kc NR]` must be readable.
#[inline(always)]
unsafe fn tile_loops<T: Elem, const MR: usize, const NR: usize>(
    kc: usize,
    a: &[*const T; MR],
    csa: isize,
    strip: *const T,
    out: &mut [[T; NR]; MR],
) {
    let mut acc = [[T::ZERO; NR]; MR];
    for p in 0..kc {
        // SAFETY: p < kc (the caller's contract).
        let bv: [T; NR] = unsafe { strip.add(p * NR).cast::<[T; NR]>().read() };
        for t in 0..MR {
            let av = unsafe { *a[t].offset(p as isize * csa) };
            for j in 0..NR {
                acc[t][j] = T::mac(acc[t][j], av, bv[j]);
            }
        }
    }
    *out = acc;
}

/// The AVX2 tile, written with intrinsics so it stays in registers (the
/// plain loops, vectorised by the compiler, kept it in memory and ran
/// slower than the JIT's own loop): 4 x 16 32-bit integers, eight
/// accumulators, `vpmulld` and `vpaddd` (wrapping, as the interpreter's).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// The 32-bit integer tile (see [`super::Tile`]).
    ///
    /// # Safety
    ///
    /// The CPU has AVX2; `a[t] + p csa` for `p < kc` and `strip[..16 kc]`
    /// are readable.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tile_u32(
        kc: usize,
        a: &[*const u32; 4],
        csa: isize,
        strip: *const u32,
        out: &mut [[u32; 16]; 4],
    ) {
        let mut c = [[_mm256_setzero_si256(); 2]; 4];
        for p in 0..kc {
            // SAFETY: the caller's contract (p < kc).
            unsafe {
                let b0 = _mm256_loadu_si256(strip.add(p * 16).cast());
                let b1 = _mm256_loadu_si256(strip.add(p * 16 + 8).cast());
                for t in 0..4 {
                    let av = _mm256_set1_epi32(*a[t].offset(p as isize * csa) as i32);
                    c[t][0] = _mm256_add_epi32(c[t][0], _mm256_mullo_epi32(av, b0));
                    c[t][1] = _mm256_add_epi32(c[t][1], _mm256_mullo_epi32(av, b1));
                }
            }
        }
        for t in 0..4 {
            // SAFETY: out[t] holds 16 integers.
            unsafe {
                _mm256_storeu_si256(out[t].as_mut_ptr().cast(), c[t][0]);
                _mm256_storeu_si256(out[t].as_mut_ptr().add(8).cast(), c[t][1]);
            }
        }
    }
}

/// Defines a kernel entry: [`product`] with the AVX2 tile where the CPU
/// has AVX2 (checked at run time), with the portable tile elsewhere.
macro_rules! dispatch {
    ($name:ident, $t:ty, $mr:expr, $nr:expr, $wide_tile:expr) => {
        /// Rows `r0..r1` of a batched product (see [`product`]).
        ///
        /// # Safety
        ///
        /// As [`product`].
        pub(crate) unsafe fn $name(r0: usize, r1: usize, v: Views<$t>) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn wide(r0: usize, r1: usize, v: Views<$t>) {
                    // SAFETY: the caller's contract, passed on; the CPU
                    // has AVX2 (the caller checked).
                    unsafe { product::<$t, $mr, $nr>(r0, r1, v, $wide_tile) }
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2 (checked just now); the
                    // caller's contract, passed on.
                    return unsafe { wide(r0, r1, v) };
                }
            }
            // SAFETY: the caller's contract, passed on.
            unsafe { product::<$t, $mr, $nr>(r0, r1, v, tile_loops::<$t, $mr, $nr>) }
        }
    };
}

dispatch!(product_u32, u32, 4, 16, avx2::tile_u32);

/// Whether the CPU runs the AVX2 kernel (the JIT routes 32-bit integer
/// dots here only then: the portable tile is slower than its own loop).
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    //! The blocked kernel against an in-order triple loop: partial tiles,
    //! padded strips, several blocks of `k`, transposed and batched views,
    //! row ranges that cut batches.

    use super::*;

    /// Runs rows `r0..r1` of a `[batch, m, k] x [batch, k, n]` product of
    /// row-major operands (A transposed when `at`) and checks every row
    /// against the wrapping in-order sum, rows outside the range untouched.
    fn check_u32(batch: usize, m: usize, k: usize, n: usize, at: bool, r0: usize, r1: usize) {
        let a: Vec<u32> = (0..batch * m * k)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761))
            .collect();
        let b: Vec<u32> = (0..batch * k * n)
            .map(|i| (i as u32).wrapping_mul(40_503) ^ 0x9e37)
            .collect();
        // A element (bi, i, p) at bi m k + i k + p, or + p m + i.
        let (rsa, csa) = if at { (1, m as isize) } else { (k as isize, 1) };
        let mut c = vec![7u32; batch * m * n];
        let v = Views {
            m,
            k,
            n,
            a: a.as_ptr(),
            sa: [(m * k) as isize, rsa, csa],
            b: b.as_ptr(),
            sb: [(k * n) as isize, n as isize, 1],
            c: c.as_mut_ptr(),
        };
        // SAFETY: every view is inside its vector.
        unsafe { product_u32(r0, r1, v) };
        // The portable tile gives the same bits.
        let mut c2 = vec![7u32; batch * m * n];
        let v2 = Views {
            c: c2.as_mut_ptr(),
            ..v
        };
        // SAFETY: as above.
        unsafe { product::<u32, 4, 16>(r0, r1, v2, tile_loops::<u32, 4, 16>) };
        assert_eq!(c, c2);
        for r in 0..batch * m {
            let (bi, i) = (r / m, r % m);
            for j in 0..n {
                let want = (0..k).fold(0u32, |s, p| {
                    let av = a[bi * m * k + (i as isize * rsa + p as isize * csa) as usize];
                    s.wrapping_add(av.wrapping_mul(b[bi * k * n + p * n + j]))
                });
                let want = if (r0..r1).contains(&r) { want } else { 7 };
                assert_eq!(c[r * n + j], want, "row {r} column {j}");
            }
        }
    }

    #[test]
    fn integer_products_match_the_wrapping_sum() {
        check_u32(1, 9, 5, 21, false, 0, 9);
        check_u32(1, 7, 600, 33, true, 0, 7);
        check_u32(3, 5, 17, 16, false, 2, 13);
        check_u32(2, 3, 0, 4, false, 0, 6);
    }
}
