//! `oxla-bench --models`: the twelve JAX models of the peers' model
//! benchmark, compiled and timed on the JIT.
//!
//! The modules live in `crates/oxla-bench/models/` (copied from
//! `shared/peers/models/modules/`, see the README there): `NAME.hlo` as
//! JAX prints it and `NAME.meta.json` with its inputs and description.
//! Every model is fed the values `oxla bench --seed 0` feeds it (SplitMix64
//! per parameter, the generator of `crates/oxla-cli/src/inputs.rs`), so the
//! figures are comparable with the `bench.py` run whose JSON `--xla FILE`
//! reads: that script times XLA and IREE on the same values by default.
//!
//! Per model the mode prints compile time (median of several compiles),
//! median run time (the interleaving harness of this crate, one round of
//! at least `min_round` per round), GFLOP/s where the module has dots or
//! convolutions (counted from the IR as `oxla bench` counts them) and
//! GB/s of inputs plus outputs otherwise, and, with `--xla FILE`, XLA's and
//! IREE's run times from that file and oxla's speedup over each. Those
//! ratios are against another process's figures, taken at another time:
//! `bench.py --oxla` gives the same-run ratios.
//!
//! A model the JIT refuses gets a row with the first line of the error; the
//! mode never stops at one model's failure.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use oxla::{Computation, Literal, Shape};

use crate::json::Json;
use crate::{Call, interleaved};

#[path = "../../oxla-cli/src/flops.rs"]
#[allow(dead_code)] // the CLI's formatting helper is not used here
mod flops;

#[path = "../../oxla-cli/src/random.rs"]
mod random;

/// The directory of the bundled models.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

/// Options of the model mode.
#[derive(Debug, Clone)]
pub struct ModelOptions {
    /// Where `NAME.hlo` and `NAME.meta.json` are.
    pub dir: PathBuf,
    /// Model names to run (all when empty).
    pub only: Vec<String>,
    /// Timed rounds per model.
    pub rounds: usize,
    /// Minimum time of one round.
    pub min_round: Duration,
    /// Compiles timed per model (the median is reported).
    pub compiles: usize,
    /// `bench.py --json` output to compare with.
    pub xla: Option<PathBuf>,
}

impl Default for ModelOptions {
    fn default() -> ModelOptions {
        ModelOptions {
            dir: default_dir(),
            only: vec![],
            rounds: 5,
            min_round: Duration::from_millis(200),
            compiles: 5,
            xla: None,
        }
    }
}

/// One model's measurements.
#[derive(Debug, Clone)]
pub struct ModelRow {
    /// The model's name (its file stem).
    pub name: String,
    /// What it is (from `meta.json`).
    pub description: String,
    /// What was measured, or the first line of the error.
    pub outcome: Result<Measured, String>,
    /// XLA's run time from `--xla`, ms.
    pub xla_run_ms: Option<f64>,
    /// XLA's compile time from `--xla`, ms.
    pub xla_compile_ms: Option<f64>,
    /// IREE's run time from `--xla`, ms.
    pub iree_run_ms: Option<f64>,
}

/// What a model that ran measured.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// Median compile time, ms (verify + compile; parsing excluded).
    pub compile_ms: f64,
    /// Median per-call run time, ms.
    pub run_ms: f64,
    /// Fastest round's per-call time, ms.
    pub min_ms: f64,
    /// FLOPs per call of the dots and convolutions, if any.
    pub flops: Option<u128>,
    /// Bytes of inputs plus outputs per call.
    pub bytes: u128,
}

/// The model names in `dir` (files `NAME.hlo`), sorted.
pub fn model_names(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".hlo").map(str::to_string)
        })
        .collect();
    names.sort();
    Ok(names)
}

/// Bytes of a (possibly tuple) shape.
fn byte_size(shape: &Shape) -> u128 {
    if shape.is_tuple() {
        return shape.tuple_shapes().iter().map(byte_size).sum();
    }
    shape.element_count().max(0) as u128 * shape.element_type().byte_size() as u128
}

/// The inputs `oxla bench --seed 0` gives `comp` (the CLI's generator,
/// `random.rs`, included above).
pub fn inputs(comp: &Computation) -> Result<Vec<Literal>, String> {
    comp.parameter_shapes()
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            random::random_literal(shape, &mut random::SplitMix64::for_parameter(0, k))
        })
        .collect()
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Compiles and times one module.
pub fn measure(text: &str, opts: &ModelOptions) -> Result<Measured, String> {
    let comp = oxla::hlo::parse(text).map_err(|e| first_line(&e.to_string()))?;
    let mut compiles = Vec::new();
    for _ in 0..opts.compiles.max(1) {
        let t = Instant::now();
        let exe = oxla::compile(&comp).map_err(|e| first_line(&e.to_string()))?;
        compiles.push(t.elapsed().as_secs_f64() * 1e3);
        drop(exe);
    }
    let exe = oxla::compile(&comp).map_err(|e| first_line(&e.to_string()))?;
    let args = inputs(&comp)?;
    let refs: Vec<&Literal> = args.iter().collect();
    let out_bytes = byte_size(comp.result_shape());
    let in_bytes: u128 = comp.parameter_shapes().iter().map(byte_size).sum();
    let mut calls: Vec<Call<'_>> = vec![Box::new(|| {
        exe.run(&refs).map(|r| drop(std::hint::black_box(r)))
    })];
    let stats = interleaved(&mut calls, opts.rounds.max(1), opts.min_round)
        .map_err(|e| first_line(&e.to_string()))?;
    Ok(Measured {
        compile_ms: median(compiles),
        run_ms: stats[0].median * 1e3,
        min_ms: stats[0].min * 1e3,
        flops: flops::flop_count(&comp),
        bytes: in_bytes + out_bytes,
    })
}

/// One model's figures from `bench.py --json`: its name and
/// `[xla run ms, xla compile ms, iree run ms]`.
pub type Theirs = (String, [Option<f64>; 3]);

/// XLA's and IREE's figures per model from `bench.py --json`.
pub fn read_xla(path: &Path) -> Result<Vec<Theirs>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = Json::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let models = doc
        .get("models")
        .and_then(Json::as_array)
        .ok_or(format!("{}: no `models` array", path.display()))?;
    Ok(models
        .iter()
        .filter_map(|m| {
            let name = m.get("name")?.as_str()?.to_string();
            let f = |k: &str| m.get(k).and_then(Json::as_f64);
            Some((
                name,
                [f("xla_run_ms"), f("xla_compile_ms"), f("iree_run_ms")],
            ))
        })
        .collect())
}

/// Measures every selected model.
pub fn run(opts: &ModelOptions) -> Result<Vec<ModelRow>, String> {
    let xla = match &opts.xla {
        Some(p) => read_xla(p)?,
        None => vec![],
    };
    let mut rows = Vec::new();
    for name in model_names(&opts.dir)? {
        if !opts.only.is_empty() && !opts.only.contains(&name) {
            continue;
        }
        eprintln!("model {name} ...");
        let read = |ext: &str| {
            let p = opts.dir.join(format!("{name}.{ext}"));
            std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))
        };
        let description = read("meta.json")
            .ok()
            .and_then(|t| Json::parse(&t).ok())
            .and_then(|m| m.get("desc").and_then(Json::as_str).map(str::to_string))
            .unwrap_or_default();
        let outcome = read("hlo").and_then(|text| measure(&text, opts));
        let theirs = xla
            .iter()
            .find(|(n, _)| *n == name)
            .map_or([None; 3], |(_, f)| *f);
        rows.push(ModelRow {
            name,
            description,
            outcome,
            xla_run_ms: theirs[0],
            xla_compile_ms: theirs[1],
            iree_run_ms: theirs[2],
        });
    }
    Ok(rows)
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

fn fmt_ratio(theirs: Option<f64>, ours: f64) -> String {
    theirs.map_or("-".into(), |t| format!("{:.2}x", t / ours))
}

/// The table: one Markdown row per model, then the geometric means.
pub fn table(rows: &[ModelRow]) -> String {
    let mut s = String::from(
        "| model | compile ms | run ms | GFLOP/s | GB/s | XLA run ms | vs XLA | IREE run ms | vs IREE | XLA compile / oxla |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let (mut vs_xla, mut vs_iree) = (vec![], vec![]);
    for r in rows {
        let opt = |x: Option<f64>| x.map_or("-".into(), fmt_ms);
        match &r.outcome {
            Ok(m) => {
                let secs = m.run_ms * 1e-3;
                let gflops = m
                    .flops
                    .map_or("-".into(), |f| format!("{:.1}", f as f64 / secs / 1e9));
                let gbs = format!("{:.1}", m.bytes as f64 / secs / 1e9);
                if let Some(x) = r.xla_run_ms {
                    vs_xla.push(x / m.run_ms);
                }
                if let Some(x) = r.iree_run_ms {
                    vs_iree.push(x / m.run_ms);
                }
                s.push_str(&format!(
                    "| {} | {} | {} | {gflops} | {gbs} | {} | {} | {} | {} | {} |\n",
                    r.name,
                    fmt_ms(m.compile_ms),
                    fmt_ms(m.run_ms),
                    opt(r.xla_run_ms),
                    fmt_ratio(r.xla_run_ms, m.run_ms),
                    opt(r.iree_run_ms),
                    fmt_ratio(r.iree_run_ms, m.run_ms),
                    fmt_ratio(r.xla_compile_ms, m.compile_ms),
                ));
            }
            Err(_) => s.push_str(&format!(
                "| {} | fail | fail | - | - | {} | - | {} | - | - |\n",
                r.name,
                opt(r.xla_run_ms),
                opt(r.iree_run_ms)
            )),
        }
    }
    let geomean = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    let ran = rows.iter().filter(|r| r.outcome.is_ok()).count();
    s.push_str(&format!("\noxla ran {ran} of {} models", rows.len()));
    if !vs_xla.is_empty() {
        s.push_str(&format!(
            "; run speedup geomean vs XLA {:.2}x over {} (min {:.2}x)",
            geomean(&vs_xla),
            vs_xla.len(),
            vs_xla.iter().copied().fold(f64::INFINITY, f64::min)
        ));
    }
    if !vs_iree.is_empty() {
        s.push_str(&format!(
            ", vs IREE {:.2}x over {}",
            geomean(&vs_iree),
            vs_iree.len()
        ));
    }
    s.push('\n');
    for r in rows {
        if let Err(e) = &r.outcome {
            s.push_str(&format!("{} fails: {e}\n", r.name));
        }
    }
    s
}

/// Parses the model mode's options (after `--models`): `--only a,b`,
/// `--rounds R`, `--min-round-ms MS`, `--compiles N`, `--xla FILE`,
/// `--dir DIR`.
pub fn parse(args: impl Iterator<Item = String>) -> Result<ModelOptions, String> {
    let mut o = ModelOptions::default();
    let mut args = args.peekable();
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let number =
            |name: &str, v: String| v.parse::<usize>().map_err(|e| format!("{name} {v}: {e}"));
        match a.as_str() {
            "--models" | "--bench" => {}
            "--only" => o.only = value("--only")?.split(',').map(str::to_string).collect(),
            "--rounds" => o.rounds = number("--rounds", value("--rounds")?)?,
            "--compiles" => o.compiles = number("--compiles", value("--compiles")?)?,
            "--min-round-ms" => {
                o.min_round = Duration::from_millis(number(
                    "--min-round-ms",
                    value("--min-round-ms")?,
                )? as u64)
            }
            "--xla" => o.xla = Some(value("--xla")?.into()),
            "--dir" => o.dir = value("--dir")?.into(),
            "--quick" => {
                o.rounds = 3;
                o.min_round = Duration::from_millis(50);
                o.compiles = 3;
            }
            other => {
                return Err(format!(
                    "unknown option `{other}`; usage: oxla-bench --models [--only a,b] \
                     [--rounds R] [--min-round-ms MS] [--compiles N] [--xla bench.json] [--dir DIR] [--quick]"
                ));
            }
        }
    }
    Ok(o)
}

/// Entry point of `oxla-bench --models ...`.
pub fn main_with_args(args: impl Iterator<Item = String>) -> i32 {
    let opts = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    match run(&opts) {
        Ok(rows) => {
            println!(
                "Models on the JIT ({} thread(s)); {} round(s) of at least {} ms, median per call; \
                 compile: median of {}.\n",
                oxla::num_threads(),
                opts.rounds,
                opts.min_round.as_millis(),
                opts.compiles
            );
            println!("{}", table(&rows));
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
