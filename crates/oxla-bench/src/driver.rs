//! The command-line driver shared by `cargo bench` and the
//! `oxla-bench` binary.

use std::time::{Duration, Instant};

use crate::{
    Baseline, BaselineOp, Call, MemcpyBaseline, Stats, fmt_time, gbps, interleaved, naive_matmul,
    workloads,
};
use oxla::Literal;

/// The name of the streaming-fill baseline of write-only workloads.
pub const WRITE_CEILING: &str = "write-only ceiling, 2 threads (streaming fill of the output)";

/// The name of the read-only baseline (workloads that only read).
pub const READ_CEILING: &str = "read-only ceiling, 2 threads (sum of the input bytes)";

/// Options parsed from the command line.
#[derive(Debug, Clone)]
pub struct Options {
    /// Size of the square workloads (4096 for the published figures).
    pub n: i64,
    /// Workload ids to run (all when empty).
    pub only: Vec<String>,
    /// Rounds per measurement.
    pub rounds: usize,
    /// Minimum time of one round of one call.
    pub min_round: Duration,
    /// `jit` or `interp`.
    pub backend: String,
    /// `--dots`: time the matrix products (`dots.rs`) instead of W1-W10.
    pub dots: bool,
}

impl Options {
    /// Parses `--n N`, `--only W1,W2`, `--rounds R`, `--backend B`,
    /// `--quick`, `--dots`; ignores what cargo bench adds (`--bench`).
    pub fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
        let mut o = Options {
            n: 4096,
            only: vec![],
            rounds: 15,
            min_round: Duration::from_millis(30),
            backend: "jit".into(),
            dots: false,
        };
        let mut args = args.peekable();
        while let Some(a) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match a.as_str() {
                "--n" => o.n = value("--n")?.parse().map_err(|e| format!("--n: {e}"))?,
                "--only" => o.only = value("--only")?.split(',').map(str::to_string).collect(),
                "--rounds" => {
                    o.rounds = value("--rounds")?
                        .parse()
                        .map_err(|e| format!("--rounds: {e}"))?
                }
                "--backend" => o.backend = value("--backend")?,
                "--dots" => o.dots = true,
                "--quick" => {
                    o.n = 1024;
                    o.rounds = 5;
                    o.min_round = Duration::from_millis(10);
                }
                "-h" | "--help" => {
                    return Err("usage: oxla-bench [--n N] [--only W1,W5] [--rounds R] [--backend jit|interp] [--quick] [--dots]".into());
                }
                _ => {} // cargo bench passes --bench and filters; ignore them
            }
        }
        Ok(o)
    }
}

/// One row of the result table.
pub struct Row {
    /// Workload id.
    pub id: &'static str,
    /// Description.
    pub description: &'static str,
    /// Median compile time, seconds.
    pub compile: f64,
    /// Through `run`, dropping each result before the next call (as a
    /// loop does; the JIT reuses the dropped result's storage).
    pub run: Stats,
    /// Into a caller-provided output, where the backend has that path.
    pub run_into: Option<Stats>,
    /// `run` into a fresh allocation every call (kept storage released).
    pub run_fresh: Option<Stats>,
    /// `x = f(x, ...)` written over argument 0 (`run_in_place`), where the
    /// JIT can do that without allocating.
    pub run_in_place: Option<Stats>,
    /// The baselines, in the order of `baseline_names`.
    pub baselines: Vec<Stats>,
    /// Names of the baselines.
    pub baseline_names: Vec<&'static str>,
    /// Bytes moved per call.
    pub bytes: usize,
}

/// Measures every selected workload and returns the rows.
pub fn run(opts: &Options) -> oxla::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for w in workloads(opts.n)? {
        if !opts.only.is_empty() && !opts.only.iter().any(|o| o == w.id) {
            continue;
        }
        eprintln!("measuring {} ({}) ...", w.id, w.description);
        let args: Vec<&Literal> = w.args.iter().collect();
        let backend = crate::backend::Backend::new(&opts.backend)?;
        // Compile time: median of several compiles.
        let mut compiles = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            backend.compile(&w.comp)?;
            compiles.push(t.elapsed().as_secs_f64());
        }
        compiles.sort_by(f64::total_cmp);
        let exe = backend.compile(&w.comp)?;
        // `run` with fresh outputs gets an executable of its own: releasing
        // the kept storage of the shared one would penalise plain `run`.
        let exe_fresh = backend.compile(&w.comp)?;
        let mut out = Literal::zeros(w.comp.result_shape())?;
        let in_place = exe.runs_in_place();
        let mut donated = w.args[0].clone();
        let rest: Vec<&Literal> = w.args[1..].iter().collect();
        let mut memcpy = MemcpyBaseline::new(w.bytes / 2);
        let mut memcpy2 = MemcpyBaseline::new(w.bytes / 2);
        let out_bytes = w.comp.result_shape().element_count() as usize * 4;
        // Write-only workloads: inputs under 1/64 of the output.
        let write_only = (w.bytes - out_bytes) * 64 < out_bytes;
        let mut fill2 = MemcpyBaseline::with_op(
            BaselineOp::StreamingFill,
            if write_only { out_bytes } else { 2 },
        );
        // Read-only workloads: output under 1/64 of the inputs.
        let read_only = out_bytes * 64 < w.bytes - out_bytes;
        let mut read2 = MemcpyBaseline::with_op(
            BaselineOp::ReadSum,
            if read_only { w.bytes - out_bytes } else { 2 },
        );
        let (mut calls, names): (Vec<Call<'_>>, Vec<&'static str>) = match w.baseline {
            Baseline::Memcpy => {
                let mut calls: Vec<Call<'_>> = vec![
                    Box::new(|| {
                        memcpy.copy(1);
                        Ok(())
                    }),
                    Box::new(|| {
                        memcpy2.copy(2);
                        Ok(())
                    }),
                ];
                let mut names = vec!["memcpy 1 thread", "memcpy 2 threads"];
                if write_only {
                    calls.push(Box::new(|| {
                        fill2.copy(2);
                        Ok(())
                    }));
                    names.push(WRITE_CEILING);
                }
                if read_only {
                    calls.push(Box::new(|| {
                        read2.copy(2);
                        Ok(())
                    }));
                    names.push(READ_CEILING);
                }
                (calls, names)
            }
            Baseline::NaiveMatmul => {
                let m = w.comp.result_shape().dims()[0] as usize;
                let a = w.args[0].to_vec::<f32>()?;
                let b = w.args[1].to_vec::<f32>()?;
                let mut c = vec![0f32; m * m];
                (
                    vec![Box::new(move || {
                        naive_matmul(&a, &b, &mut c, m);
                        std::hint::black_box(&c);
                        Ok(())
                    })],
                    vec!["naive triple loop"],
                )
            }
        };
        let nb = calls.len();
        calls.push(Box::new(|| {
            exe.run(&args).map(|r| drop(std::hint::black_box(r)))
        }));
        let has_into = exe.has_run_into();
        if has_into {
            calls.push(Box::new(|| exe.run_into(&args, &mut out)));
            calls.push(Box::new(|| exe_fresh.run_fresh(&args)));
        }
        // In place over argument 0, like XLA's donated call `x = f(x, ...)`:
        // the values drift from call to call, as in the peers' script.
        if in_place {
            calls.push(Box::new(|| exe.run_in_place(&mut donated, &rest)));
        }
        let stats = interleaved(&mut calls, opts.rounds, opts.min_round)?;
        rows.push(Row {
            id: w.id,
            description: w.description,
            compile: compiles[compiles.len() / 2],
            run: stats[nb],
            run_into: has_into.then(|| stats[nb + 1]),
            run_fresh: has_into.then(|| stats[nb + 2]),
            run_in_place: in_place.then(|| stats[nb + if has_into { 3 } else { 1 }]),
            baselines: stats[..nb].to_vec(),
            baseline_names: names,
            bytes: w.bytes,
        });
    }
    Ok(rows)
}

/// The result table as Markdown.
pub fn table(rows: &[Row], opts: &Options) -> String {
    let mut s = format!(
        "Backend `{}`, n = {}, {} interleaved rounds of at least {} ms per call kind; medians [min–max].\n\n",
        opts.backend,
        opts.n,
        opts.rounds,
        opts.min_round.as_millis()
    );
    s.push_str("| W | workload | compile | run | GB/s | run, fresh output | run_in_place | run_into | GB/s | baseline | baseline GB/s | run_into / baseline |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let into = r
            .run_into
            .map_or(("n/a".to_string(), "n/a".to_string()), |st| {
                (
                    format!(
                        "{} [{}–{}]",
                        fmt_time(st.median),
                        fmt_time(st.min),
                        fmt_time(st.max)
                    ),
                    format!("{:.1}", gbps(r.bytes, st.median)),
                )
            });
        let best = r.run_into.unwrap_or(r.run).median;
        for (i, (b, name)) in r.baselines.iter().zip(&r.baseline_names).enumerate() {
            let (lead, cols) = if i == 0 {
                (
                    format!("| {} | {} | {} |", r.id, r.description, fmt_time(r.compile)),
                    format!(
                        " {} [{}–{}] | {:.1} | {} | {} | {} | {} |",
                        fmt_time(r.run.median),
                        fmt_time(r.run.min),
                        fmt_time(r.run.max),
                        gbps(r.bytes, r.run.median),
                        r.run_fresh
                            .map_or("n/a".to_string(), |st| fmt_time(st.median)),
                        r.run_in_place
                            .map_or("n/a".to_string(), |st| fmt_time(st.median)),
                        into.0,
                        into.1
                    ),
                )
            } else {
                ("| | | |".to_string(), " | | | | | |".to_string())
            };
            let ratio = if name.starts_with("naive") {
                format!("{:.1}x faster", b.median / best)
            } else {
                format!("{:.0}%", 100.0 * b.median / best)
            };
            s.push_str(&format!(
                "{lead}{cols} {name}: {} | {:.1} | {ratio} |\n",
                fmt_time(b.median),
                if name.starts_with("naive") {
                    f64::NAN
                } else {
                    gbps(r.bytes, b.median)
                }
            ));
        }
    }
    s
}

/// Entry point for the bench target and the binary.
pub fn main_with_args(args: impl Iterator<Item = String>) -> i32 {
    let opts = match Options::parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    if opts.dots {
        return match crate::dots::run(opts.rounds, opts.min_round) {
            Ok(t) => {
                println!("{t}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    match run(&opts) {
        Ok(rows) => {
            println!("{}", table(&rows, &opts));
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
