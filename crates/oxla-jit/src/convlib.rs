//! The tiled direct convolution: an `f32` convolution whose input has its
//! features innermost and whose output has them last (NHWC in, NHWC out,
//! one group), computed without a patches matrix. Fusion sends it the
//! convolutions with base dilation only (`fusion/conv.rs::tiled` says
//! why); the routine handles any such convolution.
//!
//! Why: the GEMM path (`fusion/conv.rs`) first copies every window of the
//! input into a patches matrix `[M, K]` (`K = taps x features`; for the
//! peers' CNN 29 MB written whole and read back) and then hands it to the
//! GEMM, which packs it once more. Here each output row `m` (an output
//! position) is computed from `taps` runs of `features` contiguous input
//! elements read where they lie: a tile of `R` output rows and up to 32
//! output features is held in 12 AVX registers while the kernel walks the
//! live taps and, for each, the input features (a broadcast of the input
//! element per row, `R x NV` fused multiply-adds against a row of the
//! packed filter). Nothing is written but the output.
//!
//! Rows are walked *line* by line (a line: every output position that
//! differs only in the innermost non-feature output dimension); a thread
//! takes a contiguous run of lines (`launch.rs`). Within a line the rows
//! are grouped by phase of the innermost dimension's base (`lhs`)
//! dilation `d` (positions `o = p, p + d, ...`), so every row of a tile
//! meets the dilation's holes at the same taps: a tap where every row of
//! the tile reads a hole or padding is skipped whole. That is how the
//! input gradient of a strided convolution (`lhs_dilate=2`, three
//! quarters holes) does only the live quarter of the work. A tap where
//! some rows of a tile are on padding and others are not reads a zero run
//! for the padded rows.
//!
//! Exactness: each output element is `sum_k lhs x rhs` over `k = (tap,
//! feature)` in increasing order from `+0`, the interpreter's order, with
//! fused multiply-adds (one rounding per step instead of two) and zero
//! terms for padding taps of mixed tiles: within the float dot bound of
//! `docs/jit.md`, and equal to the interpreter wherever every product and
//! partial sum is exact. An infinite or NaN kernel entry that meets
//! padding in a mixed tile gives NaN, as on the GEMM path.
//!
//! Invariant: the descriptor words a kernel passes are checked here
//! ([`Desc::decode`]) against the buffers' lengths before any element is
//! read; the verifier (`verify.rs`, rule `ConvBounds`) checks that those
//! lengths are the buffers' own, so no input reads or writes outside a
//! buffer.

use crate::entity::BufferId;

/// One non-feature dimension of the output, and the input dimension it
/// reads: input index `(o stride - pad_low + w rhs_dilation) /
/// lhs_dilation` at output index `o` and window index `w`, where that is
/// a whole number inside the input (else the tap is padding or a hole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConvDim {
    /// The output's extent.
    pub(crate) out: i64,
    /// The input's extent.
    pub(crate) input: i64,
    /// The input's element stride.
    pub(crate) in_stride: i64,
    pub(crate) stride: i64,
    pub(crate) pad_low: i64,
    pub(crate) lhs_dilation: i64,
    pub(crate) rhs_dilation: i64,
    /// The window's size (1 for the batch dimension).
    pub(crate) window: i64,
    /// The window index is `(tap / tap_stride) % window` (taps are
    /// numbered row-major over the window's dimensions).
    pub(crate) tap_stride: i64,
}

/// Words per [`ConvDim`] in the descriptor.
const DIM_WORDS: usize = 9;
/// Words before the dimensions in the descriptor.
const HEAD_WORDS: usize = 7;

impl ConvDim {
    fn words(&self) -> [i64; DIM_WORDS] {
        [
            self.out,
            self.input,
            self.in_stride,
            self.stride,
            self.pad_low,
            self.lhs_dilation,
            self.rhs_dilation,
            self.window,
            self.tap_stride,
        ]
    }

    fn from_words(w: &[i64]) -> Option<ConvDim> {
        let d = ConvDim {
            out: *w.first()?,
            input: *w.get(1)?,
            in_stride: *w.get(2)?,
            stride: *w.get(3)?,
            pad_low: *w.get(4)?,
            lhs_dilation: *w.get(5)?,
            rhs_dilation: *w.get(6)?,
            window: *w.get(7)?,
            tap_stride: *w.get(8)?,
        };
        let positive = [
            d.out,
            d.input,
            d.stride,
            d.lhs_dilation,
            d.rhs_dilation,
            d.window,
            d.tap_stride,
        ];
        let small = |x: i64| x.unsigned_abs() < (1 << 31);
        (positive.iter().all(|&x| x >= 1 && small(x))
            && d.in_stride >= 0
            && small(d.in_stride)
            && small(d.pad_low))
        .then_some(d)
    }

    /// The input index read at output index `o` and tap `t`, if any.
    #[inline]
    fn index(&self, o: i64, t: i64) -> Option<i64> {
        let w = (t / self.tap_stride) % self.window;
        let pos = o * self.stride - self.pad_low + w * self.rhs_dilation;
        if pos < 0 || pos % self.lhs_dilation != 0 {
            return None;
        }
        let i = pos / self.lhs_dilation;
        (i < self.input).then_some(i)
    }
}

/// A tiled convolution kernel: `out[m, z] = sum over (tap, c) of
/// input[at (m, tap), c] x filter[tap * features + c, z]`.
#[derive(Clone, Debug)]
pub(crate) struct ConvKernel {
    /// The input, its features innermost (unit stride), `f32`.
    pub(crate) input: BufferId,
    /// The filter, row-major `[taps x features, n]`.
    pub(crate) filter: BufferId,
    /// The output, row-major `[M, n]` (`M` the product of `dims`' extents).
    pub(crate) out: BufferId,
    /// Input features per tap.
    pub(crate) features: i64,
    /// Output features.
    pub(crate) n: i64,
    /// Window positions.
    pub(crate) taps: i64,
    /// The output's non-feature dimensions, in its order (at least one).
    pub(crate) dims: Vec<ConvDim>,
    /// The lengths (elements) of the input, filter and output buffers,
    /// passed to the routine, which checks its reads and writes against
    /// them (the verifier checks they are the buffers' own).
    pub(crate) lens: [i64; 3],
}

impl ConvKernel {
    /// The kernel's range is `0..split_extent()`: lines of the output
    /// (positions differing only in the last of `dims`).
    pub(crate) fn split_extent(&self) -> i64 {
        let k = self.dims.len().saturating_sub(1);
        self.dims[..k].iter().map(|d| d.out).product()
    }

    /// Output positions (`M`).
    pub(crate) fn rows(&self) -> i64 {
        self.dims.iter().map(|d| d.out).product()
    }

    /// Elements of the output.
    pub(crate) fn out_len(&self) -> i64 {
        self.rows() * self.n
    }

    /// Elements of the filter.
    pub(crate) fn filter_len(&self) -> i64 {
        self.taps * self.features * self.n
    }

    /// One past the largest input offset the kernel may read.
    pub(crate) fn input_span(&self) -> i64 {
        self.dims
            .iter()
            .map(|d| (d.input - 1) * d.in_stride)
            .sum::<i64>()
            + self.features
    }

    /// Multiply-adds per line (for the launch policy).
    pub(crate) fn work_per_line(&self) -> i64 {
        let inner = self.dims.last().map_or(1, |d| d.out);
        inner
            .saturating_mul(self.taps)
            .saturating_mul(self.features)
            .saturating_mul(self.n)
    }

    /// The descriptor the run-time routine reads.
    pub(crate) fn words(&self) -> Vec<i64> {
        let lens = self.lens;
        let mut w = vec![
            self.features,
            self.n,
            self.taps,
            self.dims.len() as i64,
            lens[0],
            lens[1],
            lens[2],
        ];
        for d in &self.dims {
            w.extend(d.words());
        }
        w
    }
}

/// A descriptor read back and checked.
#[derive(Debug)]
struct Desc {
    features: usize,
    n: usize,
    taps: usize,
    dims: Vec<ConvDim>,
    lens: [usize; 3],
}

impl Desc {
    /// The descriptor in `words`, if every size is positive and the
    /// kernel's reads and writes fit the buffer lengths it names.
    fn decode(words: &[i64]) -> Option<Desc> {
        let head = words.get(..HEAD_WORDS)?;
        let ndims = usize::try_from(head[3]).ok()?;
        if ndims == 0 || words.len() != HEAD_WORDS + ndims * DIM_WORDS {
            return None;
        }
        let dims = words[HEAD_WORDS..]
            .chunks(DIM_WORDS)
            .map(ConvDim::from_words)
            .collect::<Option<Vec<_>>>()?;
        let (features, n, taps) = (head[0], head[1], head[2]);
        let lim = 1i64 << 31;
        if [features, n, taps].iter().any(|&x| x < 1 || x >= lim) {
            return None;
        }
        let kernel = ConvKernel {
            input: BufferId::new(0),
            filter: BufferId::new(0),
            out: BufferId::new(0),
            features,
            n,
            taps,
            dims,
            lens: [head[4], head[5], head[6]],
        };
        // Products in i128: no overflow for sizes below 2^31 and 16 dims
        // or fewer (checked below).
        if kernel.dims.len() > 16 {
            return None;
        }
        let rows: i128 = kernel.dims.iter().map(|d| i128::from(d.out)).product();
        let span: i128 = kernel
            .dims
            .iter()
            .map(|d| i128::from(d.input - 1) * i128::from(d.in_stride))
            .sum::<i128>()
            + i128::from(features);
        let fits = |need: i128, len: i64| len >= 0 && need <= i128::from(len);
        let (n128, f128, t128) = (i128::from(n), i128::from(features), i128::from(taps));
        if !(fits(span, head[4]) && fits(t128 * f128 * n128, head[5]) && fits(rows * n128, head[6]))
        {
            return None;
        }
        let u = |x: i64| usize::try_from(x).ok();
        Some(Desc {
            features: u(features)?,
            n: u(n)?,
            taps: u(taps)?,
            lens: [u(head[4])?, u(head[5])?, u(head[6])?],
            dims: kernel.dims,
        })
    }

    fn lines(&self) -> usize {
        let k = self.dims.len() - 1;
        self.dims[..k].iter().map(|d| d.out as usize).product()
    }
}

/// The environment variable that, set to `1`, keeps every convolution on
/// the GEMM path (for same-run before/after measurements; see
/// `docs/performance.md`).
pub const GEMM_ONLY_VAR: &str = "OXLA_CONV_GEMM_ONLY";

/// Whether the tiled path is on: the machine runs the vector tiles (AVX2
/// and FMA; elsewhere the GEMM path is faster than the scalar tiles) and
/// [`GEMM_ONLY_VAR`] is not `1`. Read once per process.
pub(crate) fn available() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| simd() && std::env::var(GEMM_ONLY_VAR).map_or(true, |v| v != "1"))
}

/// Whether this machine runs the vector tiles (AVX2 and FMA).
fn simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The most rows in a tile.
const MAX_R: usize = 8;
/// Output features per tile: four vectors of eight lanes.
const TILE_N: usize = 32;

/// Rows per tile for `nv` vectors of output features: `R x NV`
/// accumulators plus `NV` filter vectors and one broadcast stay within
/// the 16 vector registers.
fn rows_for(nv: usize) -> usize {
    match nv {
        4 => 3,
        3 => 4,
        2 => 6,
        _ => MAX_R,
    }
}

/// The run-time routine of a tiled convolution kernel: lines
/// `start..end` of the output (see the module docs). `words` is the
/// kernel's descriptor ([`ConvKernel::words`]), `len` words long. Called
/// from JIT code; does nothing on a descriptor that does not check.
pub(crate) extern "C" fn oxla_jit_conv_f32(
    words: *const i64,
    len: i64,
    start: i64,
    end: i64,
    input: *const f32,
    filter: *const f32,
    out: *mut f32,
) {
    let Ok(len) = usize::try_from(len) else {
        return;
    };
    if words.is_null() || input.is_null() || filter.is_null() || out.is_null() {
        return;
    }
    // SAFETY: JIT code passes the address of its stack slot of `len`
    // descriptor words.
    let words = unsafe { std::slice::from_raw_parts(words, len) };
    let Some(d) = Desc::decode(words) else {
        return;
    };
    let (Ok(start), Ok(end)) = (usize::try_from(start), usize::try_from(end)) else {
        return;
    };
    if start >= end || end > d.lines() {
        return;
    }
    let per_line = d.dims[d.dims.len() - 1].out as usize * d.n;
    // SAFETY: the kernel passes its input, filter and output buffers and
    // their lengths in elements (the verifier's `ConvBounds` checks the
    // lengths are the buffers' own); `decode` checked that every read and
    // write fits those lengths. Lines `start..end` of the output are this
    // thread's alone (the pool hands out disjoint ranges), and the output
    // is a buffer of its own, never the input or the filter (a
    // convolution never runs in place).
    let (input, filter, out) = unsafe {
        (
            std::slice::from_raw_parts(input, d.lens[0]),
            std::slice::from_raw_parts(filter, d.lens[1]),
            std::slice::from_raw_parts_mut(out.add(start * per_line), (end - start) * per_line),
        )
    };
    run(&d, start..end, input, filter, out);
}

/// Lines `lines` of the output into `out` (which starts at the first).
fn run(d: &Desc, lines: std::ops::Range<usize>, input: &[f32], filter: &[f32], out: &mut [f32]) {
    let (c, n, taps) = (d.features, d.n, d.taps);
    let k = taps * c;
    let npad = n.div_ceil(8) * 8;
    // The filter with its rows padded to whole vectors (zeros).
    let mut fp = vec![0f32; k * npad];
    for (dst, src) in fp.chunks_exact_mut(npad).zip(filter.chunks_exact(n)) {
        dst[..n].copy_from_slice(src);
    }
    let zeros = vec![0f32; c];
    let (outer, inner) = d.dims.split_at(d.dims.len() - 1);
    let inner = &inner[0];
    let ow = inner.out as usize;
    let istride = inner.in_stride as usize;
    let phases = (inner.lhs_dilation as usize).min(ow);
    let ld = inner.lhs_dilation;
    // Per tap: the inner dimension's dilated input position at output
    // index 0 (`pos = o stride + tap_pos`).
    let tap_pos: Vec<i64> = (0..taps as i64)
        .map(|t| ((t / inner.tap_stride) % inner.window) * inner.rhs_dilation - inner.pad_low)
        .collect();
    let mut base: Vec<Option<usize>> = vec![None; taps];
    let mut coords = vec![0i64; outer.len()];
    let mut ptrs: Vec<*const f32> = vec![zeros.as_ptr(); taps * MAX_R];
    let mut live: Vec<usize> = Vec::with_capacity(taps);
    let mut tile_out = [[0f32; TILE_N]; MAX_R];
    let simd = simd();
    let first = lines.start;
    for line in lines {
        let mut rem = line as i64;
        for (j, dim) in outer.iter().enumerate().rev() {
            coords[j] = rem % dim.out;
            rem /= dim.out;
        }
        for (t, b) in base.iter_mut().enumerate() {
            let mut off = 0i64;
            let mut ok = true;
            for (dim, &o) in outer.iter().zip(&coords) {
                match dim.index(o, t as i64) {
                    Some(i) => off += i * dim.in_stride,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            *b = ok.then_some(off as usize);
        }
        let line_out = &mut out[(line - first) * ow * n..][..ow * n];
        for nb in (0..npad).step_by(TILE_N) {
            let nv = ((npad - nb) / 8).min(TILE_N / 8);
            let r = rows_for(nv);
            let width = (n - nb).min(nv * 8);
            for phase in 0..phases {
                let mut o = phase;
                while o < ow {
                    let mut rows = [0usize; MAX_R];
                    let mut rv = 0;
                    while rv < r && o < ow {
                        rows[rv] = o;
                        rv += 1;
                        o += phases.max(1);
                    }
                    live.clear();
                    for (t, b) in base.iter().enumerate() {
                        let Some(b) = *b else { continue };
                        let mut any = false;
                        for ri in 0..r {
                            let row = rows[if ri < rv { ri } else { 0 }] as i64;
                            // The inner dimension's input index (no
                            // division without base dilation).
                            let pos = row * inner.stride + tap_pos[t];
                            let i = if ld == 1 {
                                (0..inner.input).contains(&pos).then_some(pos)
                            } else {
                                (pos >= 0 && pos % ld == 0 && pos / ld < inner.input)
                                    .then_some(pos / ld)
                            };
                            ptrs[t * r + ri] = match i {
                                Some(i) => {
                                    any = true;
                                    // SAFETY: `b` and `i` are indices
                                    // inside their dimensions (checked
                                    // above and in the line's taps), so
                                    // `at + c <= input_span <= input.len()`
                                    // (`Desc::decode`).
                                    unsafe { input.as_ptr().add(b + i as usize * istride) }
                                }
                                None => zeros.as_ptr(),
                            };
                        }
                        if any {
                            live.push(t);
                        }
                    }
                    let f = &fp[nb..];
                    // SAFETY: every pointer in `ptrs` for a live tap points
                    // at `c` elements of `input` or `zeros` (sliced above);
                    // `f` holds the filter rows `t c .. t c + c` at stride
                    // `npad` from column `nb`, `nv` vectors wide (`nb + 8
                    // nv <= npad`).
                    unsafe { tile(simd, nv, &ptrs, &live, c, f, npad, &mut tile_out) };
                    for (ri, &row) in rows.iter().enumerate().take(rv) {
                        line_out[row * n + nb..][..width].copy_from_slice(&tile_out[ri][..width]);
                    }
                }
            }
        }
    }
}

/// One tile: `out[r][..8 nv]` = the sums of row `r` of the tile
/// (`rows_for(nv)` rows, pointers `ptrs[t r_count + r]` per tap `t`) over
/// the `live` taps.
///
/// # Safety
///
/// For each live tap `t` and row `r`, `ptrs[t R + r]` points at `c`
/// readable elements; `f` holds at least `(t c + c - 1) npad + 8 nv`
/// elements for every live `t`.
#[allow(clippy::too_many_arguments)]
unsafe fn tile(
    simd: bool,
    nv: usize,
    ptrs: &[*const f32],
    live: &[usize],
    c: usize,
    f: &[f32],
    npad: usize,
    out: &mut [[f32; TILE_N]; MAX_R],
) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: AVX2 and FMA are present (`available`); the caller's
        // contract covers the reads.
        unsafe {
            match nv {
                4 => avx::tile::<3, 4>(ptrs, live, c, f.as_ptr(), npad, out),
                3 => avx::tile::<4, 3>(ptrs, live, c, f.as_ptr(), npad, out),
                2 => avx::tile::<6, 2>(ptrs, live, c, f.as_ptr(), npad, out),
                _ => avx::tile::<MAX_R, 1>(ptrs, live, c, f.as_ptr(), npad, out),
            }
        }
        return;
    }
    let _ = simd;
    let r_count = rows_for(nv);
    for (r, row) in out.iter_mut().enumerate().take(r_count) {
        let acc = &mut row[..8 * nv];
        acc.fill(0.0);
        for &t in live {
            let p = ptrs[t * r_count + r];
            for ci in 0..c {
                // SAFETY: the caller's contract: `p` has `c` elements.
                let a = unsafe { *p.add(ci) };
                let fr = &f[(t * c + ci) * npad..][..8 * nv];
                for (x, &w) in acc.iter_mut().zip(fr) {
                    *x = a.mul_add(w, *x);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    //! The AVX2/FMA tile: `R` rows by `NV` vectors of eight output
    //! features, all accumulators in registers.

    use std::arch::x86_64::{
        _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };

    use super::{MAX_R, TILE_N};

    /// See `super::tile`.
    ///
    /// # Safety
    ///
    /// AVX2 and FMA are present; `super::tile`'s contract.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile<const R: usize, const NV: usize>(
        ptrs: &[*const f32],
        live: &[usize],
        c: usize,
        f: *const f32,
        npad: usize,
        out: &mut [[f32; TILE_N]; MAX_R],
    ) {
        // No closures here (`std::array::from_fn`): a closure does not
        // inherit `target_feature`, so the intrinsics in it would be calls.
        let mut acc = [[_mm256_setzero_ps(); NV]; R];
        let mut p = [std::ptr::null::<f32>(); R];
        let mut fv = [_mm256_setzero_ps(); NV];
        for &t in live {
            p.copy_from_slice(&ptrs[t * R..t * R + R]);
            // SAFETY (this block and the loop's): the caller's contract:
            // each `p[r]` has `c` elements, and `f` has the filter rows of
            // tap `t`, `8 NV` elements each at stride `npad`.
            let ft = unsafe { f.add(t * c * npad) };
            for ci in 0..c {
                unsafe {
                    let fr = ft.add(ci * npad);
                    for (v, x) in fv.iter_mut().enumerate() {
                        *x = _mm256_loadu_ps(fr.add(v * 8));
                    }
                    for r in 0..R {
                        let a = _mm256_broadcast_ss(&*p[r].add(ci));
                        for v in 0..NV {
                            acc[r][v] = _mm256_fmadd_ps(a, fv[v], acc[r][v]);
                        }
                    }
                }
            }
        }
        for (row, acc) in out.iter_mut().zip(&acc) {
            for (v, x) in acc.iter().enumerate() {
                // SAFETY: `row` has `TILE_N >= 8 NV` elements.
                unsafe { _mm256_storeu_ps(row.as_mut_ptr().add(v * 8), *x) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The routine against a naive convolution in the interpreter's
    //! order, on small integer-valued data (exact in any order, so the
    //! comparison is exact), over strides, padding, dilations of both
    //! kinds, odd row counts and output feature counts that are not whole
    //! vectors or tiles.

    use super::*;

    /// A 2-d NHWC convolution's kernel description and a naive result.
    struct Case {
        kernel: ConvKernel,
        input: Vec<f32>,
        filter: Vec<f32>,
    }

    #[allow(clippy::too_many_arguments)]
    fn case(
        batch: i64,
        hw: [i64; 2],
        c: i64,
        n: i64,
        win: [i64; 2],
        stride: i64,
        pad: i64,
        ld: i64,
        rd: i64,
    ) -> Case {
        let out = |i: i64, w: i64| {
            let dil_in = (i - 1) * ld + 1;
            let dil_w = (w - 1) * rd + 1;
            let padded = dil_in + 2 * pad;
            if padded < dil_w {
                0
            } else {
                (padded - dil_w) / stride + 1
            }
        };
        let (oh, ow) = (out(hw[0], win[0]), out(hw[1], win[1]));
        let spatial = |o: i64, input: i64, in_stride: i64, window: i64, tap_stride: i64| ConvDim {
            out: o,
            input,
            in_stride,
            stride,
            pad_low: pad,
            lhs_dilation: ld,
            rhs_dilation: rd,
            window,
            tap_stride,
        };
        let dims = vec![
            ConvDim {
                out: batch,
                input: batch,
                in_stride: hw[0] * hw[1] * c,
                stride: 1,
                pad_low: 0,
                lhs_dilation: 1,
                rhs_dilation: 1,
                window: 1,
                tap_stride: 1,
            },
            spatial(oh, hw[0], hw[1] * c, win[0], win[1]),
            spatial(ow, hw[1], c, win[1], 1),
        ];
        let kernel = ConvKernel {
            input: BufferId::new(0),
            filter: BufferId::new(1),
            out: BufferId::new(2),
            features: c,
            n,
            taps: win[0] * win[1],
            dims,
            lens: [0; 3],
        };
        let input = (0..batch * hw[0] * hw[1] * c)
            .map(|i| (i * 7 % 11) as f32 - 5.0)
            .collect();
        let filter = (0..kernel.filter_len())
            .map(|i| (i * 5 % 7) as f32 - 3.0)
            .collect();
        Case {
            kernel,
            input,
            filter,
        }
    }

    fn naive(cs: &Case) -> Vec<f32> {
        let k = &cs.kernel;
        let (c, n) = (k.features as usize, k.n as usize);
        let mut out = vec![0f32; k.out_len() as usize];
        let rows = k.rows();
        for m in 0..rows {
            let mut coords = vec![0i64; k.dims.len()];
            let mut rem = m;
            for (j, d) in k.dims.iter().enumerate().rev() {
                coords[j] = rem % d.out;
                rem /= d.out;
            }
            for z in 0..n {
                let mut acc = 0f32;
                for t in 0..k.taps {
                    let mut off = Some(0i64);
                    for (d, &o) in k.dims.iter().zip(&coords) {
                        off = off.and_then(|x| d.index(o, t).map(|i| x + i * d.in_stride));
                    }
                    let Some(off) = off else { continue };
                    for ci in 0..c {
                        acc +=
                            cs.input[off as usize + ci] * cs.filter[(t as usize * c + ci) * n + z];
                    }
                }
                out[m as usize * n + z] = acc;
            }
        }
        out
    }

    fn run_kernel(cs: &Case, splits: &[i64]) -> Vec<f32> {
        let k = &cs.kernel;
        let mut out = vec![f32::NAN; k.out_len() as usize];
        let mut k = k.clone();
        k.lens = [
            cs.input.len() as i64,
            cs.filter.len() as i64,
            out.len() as i64,
        ];
        let words = k.words();
        let mut bounds = vec![0];
        bounds.extend(splits.iter().copied());
        bounds.push(k.split_extent());
        for w in bounds.windows(2) {
            oxla_jit_conv_f32(
                words.as_ptr(),
                words.len() as i64,
                w[0],
                w[1],
                cs.input.as_ptr(),
                cs.filter.as_ptr(),
                out.as_mut_ptr(),
            );
        }
        out
    }

    #[test]
    fn tiles_match_the_naive_convolution() {
        let cases = [
            // The CNN's second convolution, small: 3x3 SAME, 32 features.
            case(2, [7, 9], 5, 32, [3, 3], 1, 1, 1, 1),
            // Output features that are not whole vectors or tiles.
            case(1, [6, 5], 3, 13, [3, 3], 1, 1, 1, 1),
            case(1, [5, 6], 2, 45, [2, 3], 1, 0, 1, 1),
            case(2, [5, 5], 1, 16, [3, 3], 1, 1, 1, 1),
            case(1, [4, 7], 4, 3, [3, 1], 1, 2, 1, 1),
            // Strided, dilated window, base dilation (input gradients).
            case(2, [9, 9], 3, 24, [3, 3], 2, 1, 1, 1),
            case(1, [9, 8], 2, 8, [3, 3], 1, 2, 1, 2),
            case(2, [5, 6], 4, 20, [3, 3], 1, 2, 2, 1),
            case(1, [4, 5], 3, 9, [4, 4], 1, 3, 3, 1),
            case(1, [6, 6], 2, 40, [3, 2], 3, 1, 2, 2),
        ];
        for (i, cs) in cases.iter().enumerate() {
            let want = naive(cs);
            assert_eq!(run_kernel(cs, &[]), want, "case {i}: one call");
            let lines = cs.kernel.split_extent();
            if lines > 2 {
                assert_eq!(
                    run_kernel(cs, &[1, lines / 2]),
                    want,
                    "case {i}: three calls"
                );
            }
        }
    }

    #[test]
    fn a_descriptor_that_does_not_fit_its_buffers_is_not_run() {
        let cs = case(1, [4, 4], 2, 8, [3, 3], 1, 1, 1, 1);
        let k = &cs.kernel;
        let mut out = vec![-1f32; k.out_len() as usize];
        // The input claimed one element shorter than the kernel reads.
        let mut k = k.clone();
        k.lens = [
            cs.input.len() as i64 - 1,
            cs.filter.len() as i64,
            out.len() as i64,
        ];
        let words = k.words();
        oxla_jit_conv_f32(
            words.as_ptr(),
            words.len() as i64,
            0,
            k.split_extent(),
            cs.input.as_ptr(),
            cs.filter.as_ptr(),
            out.as_mut_ptr(),
        );
        assert!(out.iter().all(|&x| x == -1.0));
        assert!(Desc::decode(&words[..words.len() - 1]).is_none());
    }
}
