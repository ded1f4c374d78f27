//! The thread pool that splits large kernels by their outermost loop.
//!
//! One pool per process, created on first use with one worker thread per
//! core beyond the calling one (none on a single core). A large kernel
//! launch becomes one [`Job`]: its partition range cut into chunks that
//! the caller and the workers claim with an atomic counter, so a busy
//! core simply claims fewer chunks. The caller always works on its own job
//! too and then waits for the chunks others claimed; it never waits for a
//! worker to become free. No thread is spawned per call.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::codegen::KernelFn;

/// One kernel launch split in chunks.
struct Job {
    f: KernelFn,
    table: *const *mut u8,
    extent: i64,
    chunk: i64,
    chunks: i64,
    next: AtomicI64,
    done: AtomicI64,
    finished: Mutex<bool>,
    cv: Condvar,
}

// SAFETY: `table` points to the buffer table of a `run` call that does not
// return before every chunk of this job has completed (see `Pool::run`),
// and kernels only touch the disjoint output ranges of their chunks: every
// pass of a split kernel writes one element per iteration of loops that
// include the split loop (`verify::check_kernels`, rules `WriteMap` and
// `SplitLoopNotWritten`), so two chunks never write the same element.
unsafe impl Send for Job {}
// SAFETY: as above; the shared fields are atomics or behind a mutex.
unsafe impl Sync for Job {}

impl Job {
    /// Claims and runs chunks until none is left.
    fn work(&self) {
        loop {
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            if c >= self.chunks {
                return;
            }
            let lo = c * self.chunk;
            let hi = (lo + self.chunk).min(self.extent);
            // SAFETY: `f` is a kernel compiled for this table; `lo..hi` is
            // within its split loop's extent, where its accesses stay in
            // their buffers (`verify::check_kernels`); the table outlives
            // the job's completion (the caller waits for it).
            unsafe { (self.f)(self.table, lo, hi) };
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.chunks {
                let mut f = self.finished.lock().unwrap_or_else(|e| e.into_inner());
                *f = true;
                self.cv.notify_all();
            }
        }
    }

    fn exhausted(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.chunks
    }
}

pub(crate) struct Pool {
    queue: Mutex<VecDeque<Arc<Job>>>,
    cv: Condvar,
    workers: usize,
}

static POOL: OnceLock<Option<&'static Pool>> = OnceLock::new();

/// The environment variable that sets how many threads run a kernel (the
/// caller included), read once, when the first computation is compiled.
pub const THREADS_VAR: &str = "OXLA_NUM_THREADS";

/// Threads per kernel: `OXLA_NUM_THREADS` when it is a positive integer,
/// else the cores this process may run on; at most 64.
fn thread_count() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::env::var(THREADS_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(cores)
        .min(64)
}

/// The process-wide pool, or `None` when kernels run on one thread.
pub(crate) fn pool() -> Option<&'static Pool> {
    *POOL.get_or_init(|| {
        let workers = thread_count() - 1;
        if workers == 0 {
            return None;
        }
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            queue: Mutex::new(VecDeque::new()),
            cv: Condvar::new(),
            workers,
        }));
        for i in 0..workers {
            let spawned = std::thread::Builder::new()
                .name(format!("oxla-jit-{i}"))
                .spawn(move || pool.worker());
            if spawned.is_err() {
                return None;
            }
        }
        Some(pool)
    })
}

impl Pool {
    /// Threads that run a job: the workers and the caller.
    pub(crate) fn threads(&self) -> usize {
        self.workers + 1
    }

    fn worker(&self) {
        loop {
            let job = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    while q.front().is_some_and(|j| j.exhausted()) {
                        q.pop_front();
                    }
                    if let Some(j) = q.front() {
                        break j.clone();
                    }
                    q = self.cv.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            job.work();
        }
    }

    /// Runs `f(table, lo, hi)` over `0..extent` in chunks of `chunk`, on
    /// the caller and the workers; returns when every chunk is done.
    pub(crate) fn run(&self, f: KernelFn, table: *const *mut u8, extent: i64, chunk: i64) {
        let chunk = chunk.max(1);
        let chunks = (extent + chunk - 1) / chunk;
        let job = Arc::new(Job {
            f,
            table,
            extent,
            chunk,
            chunks,
            next: AtomicI64::new(0),
            done: AtomicI64::new(0),
            finished: Mutex::new(chunks == 0),
            cv: Condvar::new(),
        });
        {
            let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            q.push_back(job.clone());
        }
        self.cv.notify_all();
        job.work();
        let mut fin = job.finished.lock().unwrap_or_else(|e| e.into_inner());
        while !*fin {
            fin = job.cv.wait(fin).unwrap_or_else(|e| e.into_inner());
        }
        drop(fin);
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.retain(|j| !Arc::ptr_eq(j, &job));
    }
}
