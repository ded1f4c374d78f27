//! Launch policy: how each kernel's range is cut across threads.
//!
//! Every kernel takes a range `start..end` of its *split loop* (see
//! [`LoopKernel::split_extent`] and [`DotKernel::split_extent`]); a run
//! calls it once over the whole range, or the thread pool calls it on
//! chunks of the range. This module is the one place that decides which,
//! and how big the chunks are, for every kind of kernel:
//!
//! - a launch whose work (elements visited) reaches [`PARALLEL_THRESHOLD`]
//!   and whose range has at least 2 iterations goes to the pool; smaller
//!   ones run on the calling thread;
//! - the range is cut into about 8 chunks per thread (for balance: a core
//!   busy elsewhere claims fewer), each of at least 16 K elements of work
//!   (and, for a range of single elements, a multiple of 64);
//! - a GEMM call and a kernel split below its outermost loop (a column
//!   reduce split over its columns) get one contiguous chunk per thread
//!   instead: every chunk of theirs walks all the outer iterations (or
//!   packs its operands), so small chunks would read short runs a row
//!   apart. Measured: sum over axis 0 of `f32[4096,4096]` took 5.9 ms in
//!   256-column chunks, 4.8 ms on one thread.

use crate::kernel::{DotKernel, LoopKernel, SortKernel};

/// Kernels with fewer elements than this run on the calling thread.
pub const PARALLEL_THRESHOLD: i64 = 1 << 16;

/// The least work (elements visited) per chunk of a balanced launch.
const MIN_CHUNK_WORK: i64 = 16384;

/// Chunks per thread of a balanced launch.
const CHUNKS_PER_THREAD: i64 = 8;

/// How a kernel's range may be cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chunking {
    /// Many chunks, claimed by whichever thread is free.
    Balanced,
    /// One contiguous chunk per thread.
    OnePerThread,
}

/// What the launch policy needs to know of a kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaunchShape {
    /// Iterations of the split loop: the kernel's full range is
    /// `0..extent`.
    pub(crate) extent: i64,
    /// Elements visited per iteration of the split loop.
    pub(crate) work_per_iteration: i64,
    pub(crate) chunking: Chunking,
}

impl LaunchShape {
    /// The launch shape of a loop kernel.
    pub(crate) fn of_loop(kernel: &LoopKernel) -> LaunchShape {
        let extent = kernel.split_extent();
        let total: i64 = kernel.graph.extents.values().product::<i64>().max(1);
        LaunchShape {
            extent,
            work_per_iteration: total / extent.max(1),
            chunking: if kernel.split_loop.is_some_and(|d| d > 0) {
                Chunking::OnePerThread
            } else {
                Chunking::Balanced
            },
        }
    }

    /// The launch shape of a dot kernel: per iteration, one output row (of
    /// any batch); each thread gets one contiguous run of rows.
    pub(crate) fn of_dot(kernel: &DotKernel) -> LaunchShape {
        let s = &kernel.sizes;
        LaunchShape {
            extent: kernel.split_extent(),
            work_per_iteration: s.n * s.k.max(1),
            chunking: Chunking::OnePerThread,
        }
    }
}

impl LaunchShape {
    /// The launch shape of a tiled convolution kernel: lines of the
    /// output, each `inner x taps x features x n` multiply-adds, claimed
    /// in chunks by whichever thread is free (each chunk packs the filter
    /// once, small beside a chunk's work).
    pub(crate) fn of_conv(kernel: &crate::convlib::ConvKernel) -> LaunchShape {
        LaunchShape {
            extent: kernel.split_extent(),
            work_per_iteration: kernel.work_per_line().max(1),
            chunking: Chunking::Balanced,
        }
    }

    /// The launch shape of a sort kernel: rows claimed by whichever thread
    /// is free, each `length * log2(length)` of work (a top-k's scan,
    /// `length`).
    pub(crate) fn of_sort(kernel: &SortKernel) -> LaunchShape {
        let n = kernel.rows.length.max(1);
        let log = i64::from(64 - (n as u64).leading_zeros()).max(1);
        LaunchShape {
            extent: kernel.split_extent(),
            work_per_iteration: match kernel.order {
                crate::kernel::SortOrder::TopK { .. } => n,
                crate::kernel::SortOrder::Keys(_) | crate::kernel::SortOrder::Comparator(_) => {
                    n.saturating_mul(log)
                }
            },
            chunking: Chunking::Balanced,
        }
    }
}

/// How one kernel is launched: over `0..extent`, on the pool in chunks of
/// `chunk` iterations when `parallel`, else on the calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Launch {
    pub(crate) extent: i64,
    pub(crate) chunk: i64,
    pub(crate) parallel: bool,
}

impl Launch {
    /// The launch of a kernel of `shape` on `threads` threads (the caller
    /// included).
    pub(crate) fn new(shape: LaunchShape, threads: i64) -> Launch {
        let LaunchShape {
            extent,
            work_per_iteration,
            chunking,
        } = shape;
        let per = work_per_iteration.max(1);
        let total = extent.saturating_mul(per);
        let parallel = threads > 1 && total >= PARALLEL_THRESHOLD && extent >= 2;
        let chunk = match chunking {
            Chunking::OnePerThread => (extent + threads - 1) / threads,
            Chunking::Balanced => {
                // Several chunks per thread (for balance), each with enough
                // work.
                let min_iterations = (MIN_CHUNK_WORK + per - 1) / per;
                let chunk = ((extent + CHUNKS_PER_THREAD * threads - 1)
                    / (CHUNKS_PER_THREAD * threads))
                    .max(min_iterations);
                if work_per_iteration == 1 {
                    (chunk + 63) / 64 * 64
                } else {
                    chunk
                }
            }
        };
        Launch {
            extent,
            chunk,
            parallel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(extent: i64, work_per_iteration: i64, chunking: Chunking) -> LaunchShape {
        LaunchShape {
            extent,
            work_per_iteration,
            chunking,
        }
    }

    #[test]
    fn small_launches_stay_on_the_calling_thread() {
        let l = Launch::new(shape(256, 255, Chunking::Balanced), 2);
        assert!(!l.parallel, "{l:?}");
        let l = Launch::new(shape(1, 1 << 20, Chunking::Balanced), 2);
        assert!(!l.parallel, "one iteration cannot be split: {l:?}");
        let l = Launch::new(shape(1 << 20, 1, Chunking::Balanced), 1);
        assert!(!l.parallel, "one thread: {l:?}");
    }

    #[test]
    fn balanced_chunks_hold_enough_work_and_one_per_thread_chunks_cover_the_range() {
        // 4096 rows of 4096 elements on 2 threads: 16 chunks of 256 rows.
        let l = Launch::new(shape(4096, 4096, Chunking::Balanced), 2);
        assert_eq!((l.parallel, l.chunk), (true, 256));
        // A flat loop of 2^20 elements: chunks of at least 16 K, a multiple
        // of 64.
        let l = Launch::new(shape(1 << 20, 1, Chunking::Balanced), 2);
        assert_eq!(l.chunk, 65536);
        let l = Launch::new(shape(100_000, 1, Chunking::Balanced), 2);
        assert_eq!(l.chunk % 64, 0);
        assert!(l.chunk >= MIN_CHUNK_WORK, "{l:?}");
        // A column reduce split over 4097 columns on 2 threads.
        let l = Launch::new(shape(4097, 4096, Chunking::OnePerThread), 2);
        assert_eq!(l.chunk, 2049);
    }
}
