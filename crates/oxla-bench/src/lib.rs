//! # oxla-bench: the W1–W10 workloads, measured against a same-run baseline
//!
//! Absolute times on a shared 2-core machine are noise, so every figure is
//! reported next to a baseline measured **in the same run, interleaved
//! round by round** with the workload: a plain memcpy moving the same
//! number of bytes (on one thread and on two), or, for the matrix product,
//! a naive triple loop. Criterion and divan time one function at a time,
//! and on a shared machine whose speed drifts ±30% from minute to minute
//! two such timings make no ratio; interleaving is the point here, so this
//! harness is our own. `cargo bench -p oxla-bench` runs both: the `divan`
//! target (divan's statistics and throughput for every workload, way of
//! calling and baseline) and the `workloads` target (this harness: the
//! same-run ratios).
//!
//! Bytes are counted as XLA's peers script counts them: input bytes plus
//! output bytes. The memcpy baseline copies half that many bytes, so it
//! moves the same traffic (each byte copied is read once and written once).
//!
//! Workloads that only write (W3 and W4 read 32 KiB and write 64 MiB) get
//! one more baseline: a two-thread fill of their output bytes with
//! non-temporal stores, the fastest a pure write stream goes on the
//! machine. On some machines DRAM writes alone are slower than a mix of
//! reads and writes, so that ceiling sits below the memcpy rate.
//!
//! Workloads that only read (W9a reads 64 MiB and writes 16 KiB) get a
//! read-only ceiling in the same way: a two-thread pass that reads the
//! input bytes and sums them.
//!
//! Run: `cargo bench -p oxla-bench` (all workloads at n = 4096), or
//! `cargo run --release -p oxla-bench -- --n 1024 --only W1,W8`.
//!
//! `cargo run --release -p oxla-bench -- --models [--xla bench.json]` times
//! the twelve JAX models of `crates/oxla-bench/models/` instead ([`models`]).

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

/// What a [`MemcpyBaseline`] does to its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaselineOp {
    /// `memcpy` from one buffer to another: every byte read once and
    /// written once.
    Copy,
    /// Writes every byte of the destination with non-temporal (streaming)
    /// stores, nothing read: the fastest a pure write stream can go on
    /// this machine (x86-64; a plain fill elsewhere). The same-run ceiling
    /// for workloads that only write (W3, W4).
    StreamingFill,
    /// Reads every byte of the source (a vectorised sum, nothing written
    /// but the sum): the fastest a pure read stream goes on this machine.
    /// The same-run ceiling for workloads that only read (W9a).
    ReadSum,
}

/// A copy (or streaming fill) of `bytes` bytes, on one thread or on two:
/// the memory-bandwidth baseline. The second thread is persistent and owns
/// its half of the buffers, so a two-thread pass costs two channel
/// messages, not a thread spawn.
pub struct MemcpyBaseline {
    op: BaselineOp,
    src: Vec<u8>,
    dst: Vec<u8>,
    half_src: Vec<u8>,
    half_dst: Vec<u8>,
    worker: Option<(std::sync::mpsc::Sender<()>, std::sync::mpsc::Receiver<()>)>,
}

/// One pass of `op` over `dst` (from `src` for a copy).
fn baseline_pass(op: BaselineOp, dst: &mut [u8], src: &[u8]) {
    match op {
        BaselineOp::Copy => dst.copy_from_slice(src),
        BaselineOp::StreamingFill => streaming_fill(dst, 0x5a),
        BaselineOp::ReadSum => {
            let s = read_sum(src);
            if let Some(d) = dst.first_mut() {
                *d = s as u8;
            }
        }
    }
    std::hint::black_box(dst);
}

/// Sets every byte of `dst` to `byte`: whole 64-byte lines with
/// non-temporal stores (then `sfence`), the partial lines at either end
/// with plain ones.
pub fn streaming_fill(dst: &mut [u8], byte: u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_set1_epi8, _mm_sfence, _mm_stream_si128};
        let head = dst.as_ptr().align_offset(64).min(dst.len());
        let (front, rest) = dst.split_at_mut(head);
        front.fill(byte);
        let lines = rest.len() / 64;
        let (body, tail) = rest.split_at_mut(lines * 64);
        // SAFETY: SSE2 is baseline on x86-64; every store is to a 16-byte
        // aligned address inside `body` (64-byte aligned, whole lines).
        unsafe {
            let v = _mm_set1_epi8(byte as i8);
            let p = body.as_mut_ptr();
            for i in 0..lines * 4 {
                _mm_stream_si128(p.add(i * 16).cast::<__m128i>(), v);
            }
            _mm_sfence();
        }
        tail.fill(byte);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.fill(byte);
}

/// The sum of `src` as 64-bit words (wrapping), in 8 independent lanes so
/// the loop vectorises and the loads, not the adds, set its speed.
pub fn read_sum(src: &[u8]) -> u64 {
    let mut acc = [0u64; 8];
    let mut lines = src.chunks_exact(64);
    for line in &mut lines {
        for (a, w) in acc.iter_mut().zip(line.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            *a = a.wrapping_add(u64::from_le_bytes(b));
        }
    }
    let tail = lines
        .remainder()
        .iter()
        .fold(0u64, |t, &b| t.wrapping_add(u64::from(b)));
    acc.iter().fold(tail, |t, &a| t.wrapping_add(a))
}

impl MemcpyBaseline {
    /// A copy of `bytes` bytes; buffers touched once so no page faults are
    /// timed.
    pub fn new(bytes: usize) -> MemcpyBaseline {
        MemcpyBaseline::with_op(BaselineOp::Copy, bytes)
    }

    /// `op` over `bytes` bytes; buffers touched once so no page faults are
    /// timed.
    pub fn with_op(op: BaselineOp, bytes: usize) -> MemcpyBaseline {
        let n = bytes.max(2);
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let (wsrc, mut wdst) = (vec![1u8; n - n / 2], vec![2u8; n - n / 2]);
        let spawned = std::thread::Builder::new()
            .name("memcpy-baseline".into())
            .spawn(move || {
                while go_rx.recv().is_ok() {
                    baseline_pass(op, &mut wdst, &wsrc);
                    if done_tx.send(()).is_err() {
                        break;
                    }
                }
            })
            .is_ok();
        MemcpyBaseline {
            op,
            src: vec![1u8; n],
            dst: vec![2u8; n],
            half_src: vec![1u8; n / 2],
            half_dst: vec![2u8; n / 2],
            worker: spawned.then_some((go_tx, done_rx)),
        }
    }

    /// One pass over all the bytes, split across `threads` (1 or 2)
    /// threads.
    pub fn copy(&mut self, threads: usize) {
        match (&self.worker, threads) {
            (Some((go, done)), 2..) => {
                let _ = go.send(());
                baseline_pass(self.op, &mut self.half_dst, &self.half_src);
                let _ = done.recv();
            }
            _ => baseline_pass(self.op, &mut self.dst, &self.src),
        }
    }

    /// The destination buffer of the single-thread pass.
    pub fn destination(&self) -> &[u8] {
        &self.dst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_fill_sets_every_byte_and_no_other() {
        let mut buf = vec![0u8; 1000];
        for (lo, hi) in [(0, 0), (0, 1000), (1, 999), (3, 70), (64, 128), (5, 6)] {
            buf.fill(0);
            streaming_fill(&mut buf[lo..hi], 9);
            assert!(buf[lo..hi].iter().all(|&b| b == 9), "{lo}..{hi}");
            assert!(
                buf[..lo].iter().chain(&buf[hi..]).all(|&b| b == 0),
                "{lo}..{hi}"
            );
        }
    }

    #[test]
    fn baselines_write_what_they_should() {
        let mut m = MemcpyBaseline::new(4096);
        m.copy(1);
        assert!(m.destination().iter().all(|&b| b == 1));
        let mut f = MemcpyBaseline::with_op(BaselineOp::StreamingFill, 4096);
        f.copy(2);
        assert!(f.half_dst.iter().all(|&b| b == 0x5a));
        f.copy(1);
        assert!(f.destination().iter().all(|&b| b == 0x5a));
        let mut r = MemcpyBaseline::with_op(BaselineOp::ReadSum, 4096);
        r.copy(1);
        assert_eq!(r.destination()[0], read_sum(&[1u8; 4096]) as u8);
        assert!(r.destination()[1..].iter().all(|&b| b == 2));
    }

    #[test]
    fn read_sum_adds_every_byte_as_words() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let words: u64 = bytes
            .chunks_exact(64)
            .flat_map(|l| l.chunks_exact(8))
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
            .fold(0, u64::wrapping_add);
        let tail: u64 = bytes[960..].iter().map(|&b| u64::from(b)).sum();
        assert_eq!(read_sum(&bytes), words.wrapping_add(tail));
        assert_eq!(read_sum(&[]), 0);
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
pub mod dots;
pub mod driver;
pub mod json;
pub mod models;
