//! # oxla-bench: the W1–W10 workloads, measured against a same-run baseline
//!
//! Absolute times on a shared 2-core machine are noise, so every figure is
//! reported next to a baseline measured **in the same run, interleaved
//! round by round** with the workload: a plain memcpy moving the same
//! number of bytes (on one thread and on two), or, for the matrix product,
//! a naive triple loop. Criterion and divan time one function at a time;
//! interleaving is the point here, so the harness is our own.
//!
//! Bytes are counted as XLA's peers script counts them: input bytes plus
//! output bytes. The memcpy baseline copies half that many bytes, so it
//! moves the same traffic (each byte copied is read once and written once).
//!
//! Run: `cargo bench -p oxla-bench` (all workloads at n = 4096), or
//! `cargo run --release -p oxla-bench -- --n 1024 --only W1,W8`.

pub mod workloads;

use std::time::{Duration, Instant};

pub use workloads::{Baseline, Workload, workloads};

/// Order statistics of per-call times, in seconds.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    /// Median per-call time.
    pub median: f64,
    /// Fastest per-call time.
    pub min: f64,
    /// Slowest per-call time.
    pub max: f64,
}

impl Stats {
    fn of(mut samples: Vec<f64>) -> Stats {
        samples.sort_by(f64::total_cmp);
        Stats {
            median: samples[samples.len() / 2],
            min: samples[0],
            max: samples[samples.len() - 1],
        }
    }
}

/// Something timed per call; returns an error to abort the measurement.
pub type Call<'a> = Box<dyn FnMut() -> oxla::Result<()> + 'a>;

/// Runs each of `calls` in turn, round after round, `rounds` times; a round
/// of one call repeats it until `min_round` has passed (at least once).
/// Returns the median-of-rounds per-call times, one [`Stats`] per call.
pub fn interleaved(
    calls: &mut [Call<'_>],
    rounds: usize,
    min_round: Duration,
) -> oxla::Result<Vec<Stats>> {
    let mut samples = vec![Vec::with_capacity(rounds); calls.len()];
    // Warm up: first-touch page faults and caches are not the steady state.
    for c in calls.iter_mut() {
        c()?;
    }
    for _ in 0..rounds {
        for (i, c) in calls.iter_mut().enumerate() {
            let start = Instant::now();
            let mut n = 0u32;
            loop {
                c()?;
                n += 1;
                if start.elapsed() >= min_round {
                    break;
                }
            }
            samples[i].push(start.elapsed().as_secs_f64() / f64::from(n));
        }
    }
    Ok(samples.into_iter().map(Stats::of).collect())
}

/// A copy of `bytes` bytes from one buffer to another, on one thread or on
/// two: the memory-bandwidth baseline. The second thread is persistent and
/// owns its half of the buffers, so a two-thread copy costs two channel
/// messages, not a thread spawn.
pub struct MemcpyBaseline {
    src: Vec<u8>,
    dst: Vec<u8>,
    half_src: Vec<u8>,
    half_dst: Vec<u8>,
    worker: Option<(std::sync::mpsc::Sender<()>, std::sync::mpsc::Receiver<()>)>,
}

impl MemcpyBaseline {
    /// Buffers of `bytes` bytes, touched once so no page faults are timed.
    pub fn new(bytes: usize) -> MemcpyBaseline {
        let n = bytes.max(2);
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let (mut wsrc, mut wdst) = (vec![1u8; n - n / 2], vec![2u8; n - n / 2]);
        let spawned = std::thread::Builder::new()
            .name("memcpy-baseline".into())
            .spawn(move || {
                while go_rx.recv().is_ok() {
                    wdst.copy_from_slice(&wsrc);
                    std::hint::black_box(&mut wdst);
                    std::hint::black_box(&mut wsrc);
                    if done_tx.send(()).is_err() {
                        break;
                    }
                }
            })
            .is_ok();
        MemcpyBaseline {
            src: vec![1u8; n],
            dst: vec![2u8; n],
            half_src: vec![1u8; n / 2],
            half_dst: vec![2u8; n / 2],
            worker: spawned.then_some((go_tx, done_rx)),
        }
    }

    /// One copy of all the bytes, split across `threads` (1 or 2) threads.
    pub fn copy(&mut self, threads: usize) {
        match (&self.worker, threads) {
            (Some((go, done)), 2..) => {
                let _ = go.send(());
                self.half_dst.copy_from_slice(&self.half_src);
                let _ = done.recv();
            }
            _ => self.dst.copy_from_slice(&self.src),
        }
        std::hint::black_box(&mut self.dst);
    }
}

/// `c = a . b` for square row-major matrices, the naive i-k-j loop: the
/// baseline for W10.
pub fn naive_matmul(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    c.iter_mut().for_each(|x| *x = 0.0);
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            let row = &b[k * n..(k + 1) * n];
            let out = &mut c[i * n..(i + 1) * n];
            for (o, &bv) in out.iter_mut().zip(row) {
                *o += aik * bv;
            }
        }
    }
}

/// GB/s (1 GB = 1e9 bytes) for `bytes` moved in `seconds`.
pub fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

/// Formats a per-call time with a unit that suits it.
pub fn fmt_time(seconds: f64) -> String {
    if seconds < 1e-3 {
        format!("{:.2} µs", seconds * 1e6)
    } else {
        format!("{:.2} ms", seconds * 1e3)
    }
}

pub mod backend;
pub mod driver;
