//! `cargo bench -p oxla-bench --bench divan`: the W1–W10 workloads under
//! [divan](https://docs.rs/divan), one benchmark per workload and way of
//! calling, with divan's statistics (fastest, slowest, median, mean) and
//! throughput in bytes per second (inputs + outputs, as the peers' script
//! counts them). The baselines are here too, as plain benchmarks.
//!
//! Divan times one function at a time, so on a noisy shared machine its
//! figures for two functions are not a ratio measured "in the same run";
//! the `workloads` bench target (our interleaving harness) gives those.
//! Filter with a regex: `cargo bench -p oxla-bench --bench divan -- W9b`.

use std::sync::OnceLock;

use divan::Bencher;
use divan::counter::BytesCount;
use oxla::{Executable, Literal};
use oxla_bench::{Baseline, BaselineOp, MemcpyBaseline, Workload, naive_matmul, workloads};

fn main() {
    divan::main();
}

const IDS: &[&str] = &[
    "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9a", "W9b", "W10",
];

/// Every workload at n = 4096, built once.
fn all() -> &'static [Workload] {
    static ALL: OnceLock<Vec<Workload>> = OnceLock::new();
    ALL.get_or_init(|| match workloads(4096) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("cannot build the workloads: {e}");
            std::process::exit(1)
        }
    })
}

fn workload(id: &str) -> &'static Workload {
    match all().iter().find(|w| w.id == id) {
        Some(w) => w,
        None => {
            eprintln!("no workload {id}");
            std::process::exit(1)
        }
    }
}

fn compiled(w: &Workload) -> Executable {
    match oxla::compile(&w.comp) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{}: {e}", w.id);
            std::process::exit(1)
        }
    }
}

fn ok<T>(r: oxla::Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}

/// Compile time: fuse, lower and JIT the workload.
#[divan::bench(args = IDS, sample_count = 20)]
fn compile(b: Bencher, id: &str) {
    let w = workload(id);
    b.bench(|| compiled(w));
}

/// `run`, dropping each result (its storage is reused by the next call).
#[divan::bench(args = IDS, sample_count = 30)]
fn run(b: Bencher, id: &str) {
    let w = workload(id);
    let exe = compiled(w);
    let args: Vec<&Literal> = w.args.iter().collect();
    b.counter(BytesCount::new(w.bytes))
        .bench_local(|| ok(exe.run(&args)));
}

/// `run` into a fresh allocation every call (the kept storage released).
#[divan::bench(args = IDS, sample_count = 30)]
fn run_fresh_output(b: Bencher, id: &str) {
    let w = workload(id);
    let exe = compiled(w);
    let args: Vec<&Literal> = w.args.iter().collect();
    b.counter(BytesCount::new(w.bytes)).bench_local(|| {
        drop(ok(exe.run(&args)));
        exe.release_cached_outputs();
    });
}

/// `run_into` a caller-provided output.
#[divan::bench(args = IDS, sample_count = 30)]
fn run_into(b: Bencher, id: &str) {
    let w = workload(id);
    let exe = compiled(w);
    let args: Vec<&Literal> = w.args.iter().collect();
    let mut out = ok(Literal::zeros(w.comp.result_shape()));
    b.counter(BytesCount::new(w.bytes))
        .bench_local(|| ok(exe.run_into(&args, &mut out)));
}

/// The baseline on two threads: a memcpy moving the same bytes (W1–W9),
/// or the naive triple loop (W10).
#[divan::bench(args = IDS, sample_count = 30)]
fn baseline(b: Bencher, id: &str) {
    let w = workload(id);
    match w.baseline {
        Baseline::Memcpy => {
            let mut m = MemcpyBaseline::new(w.bytes / 2);
            b.counter(BytesCount::new(w.bytes))
                .bench_local(|| m.copy(2));
        }
        Baseline::NaiveMatmul => {
            let n = w.comp.result_shape().dims()[0] as usize;
            let a = ok(w.args[0].to_vec::<f32>());
            let x = ok(w.args[1].to_vec::<f32>());
            let mut c = vec![0f32; n * n];
            b.bench_local(|| naive_matmul(&a, &x, &mut c, n));
        }
    }
}

/// The write-only ceiling (W3, W4: a two-thread streaming fill of the
/// output bytes) and the read-only ceiling (W9a: a two-thread read of the
/// input bytes).
#[divan::bench(args = ["W3", "W4", "W9a"], sample_count = 30)]
fn ceiling(b: Bencher, id: &str) {
    let w = workload(id);
    let out = w.comp.result_shape().element_count() as usize * 4;
    let (op, bytes) = if id == "W9a" {
        (BaselineOp::ReadSum, w.bytes - out)
    } else {
        (BaselineOp::StreamingFill, out)
    };
    let mut m = MemcpyBaseline::with_op(op, bytes);
    b.counter(BytesCount::new(bytes)).bench_local(|| m.copy(2));
}
