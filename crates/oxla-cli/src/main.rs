//! The `oxla` command: run, check, dump, convert and benchmark HLO modules.
//!
//! Every subcommand reads its module through [`parse_module`] (HLO text in
//! XLA's short and long forms, JAX's dumps, our dialect), which verifies it;
//! `run` and `bench` use the JIT unless `--backend interp` asks for the
//! reference interpreter. The command uses the `oxla` facade only.
//!
//! Errors go to stderr: exit status 2 for usage errors (and for features
//! not built yet), 1 for failures (a module that does not parse, a run that
//! fails). No input makes the command panic: output goes through [`Out`],
//! which turns a closed pipe into a quiet exit.

// `oxla::Error` is large by design (it carries shapes and messages as data).
#![allow(clippy::result_large_err)]

mod args;
mod backend;
mod compare;
mod demo;
mod flops;
mod inputs;
mod random;

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use args::{Opt, Parsed, Spec, UsageError};
use backend::Backend;
use oxla::{Computation, Error, Literal};

/// What went wrong, and so which exit status.
#[derive(Debug)]
pub enum CliError {
    /// A command line that does not fit (exit 2); `command` picks the help
    /// to point at.
    Usage {
        /// What is wrong.
        message: String,
        /// The subcommand, if known.
        command: Option<&'static str>,
    },
    /// A feature that is not built yet (exit 2).
    Unavailable(String),
    /// The command ran and failed (exit 1).
    Failure(String),
    /// Standard output was closed (a pipe into `head`): stop quietly.
    ClosedOutput,
}

impl CliError {
    fn usage(message: impl Into<String>) -> CliError {
        CliError::Usage {
            message: message.into(),
            command: None,
        }
    }

    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage { .. } | CliError::Unavailable(_) => ExitCode::from(2),
            CliError::Failure(_) => ExitCode::from(1),
            CliError::ClosedOutput => ExitCode::SUCCESS,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage { message, command } => {
                let help = match command {
                    Some(c) => format!("oxla {c} --help"),
                    None => "oxla --help".into(),
                };
                write!(f, "error: {message}\n\nRun `{help}` for usage.")
            }
            CliError::Unavailable(m) | CliError::Failure(m) => write!(f, "error: {m}"),
            CliError::ClosedOutput => Ok(()),
        }
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        CliError::Failure(e.to_string())
    }
}

fn main() -> ExitCode {
    let mut argv = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => argv.push(s),
            Err(bad) => {
                let e = CliError::usage(format!("argument {bad:?} is not valid UTF-8"));
                eprintln!("{e}");
                return e.exit_code();
            }
        }
    }
    match dispatch(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::ClosedOutput) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{e}");
            e.exit_code()
        }
    }
}

/// Writes to stdout without panicking when it is closed.
struct Out;

impl Out {
    fn print(text: &str) -> Result<(), CliError> {
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush())
        {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CliError::ClosedOutput),
            Err(e) => Err(CliError::Failure(format!(
                "cannot write to standard output: {e}"
            ))),
        }
    }

    fn println(text: &str) -> Result<(), CliError> {
        Out::print(text)?;
        Out::print("\n")
    }
}

/// A note on stderr (ignored if stderr is closed).
fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

// ---------------------------------------------------------------------------
// Help texts
// ---------------------------------------------------------------------------

const HELP: &str = "\
oxla: an XLA-style tensor compiler. Runs, checks and converts HLO modules.

Usage: oxla <COMMAND> [ARGS]

Commands:
  run      Run a module on .npy inputs (or random ones) and print or save the result
  check    Parse and verify a module; print it with every inferred shape, or its errors
  dump     Print a module after a compilation stage (parsed, expanded, fused, clif)
  convert  Convert a module to our dialect, strict XLA HLO, or StableHLO MLIR
  bench    Time a module on .npy inputs (or random ones)
  demo     Build, print and evaluate XLA's broadcasting examples
  help     Print this message or the help of a command

Options:
  -h, --help     Print help (also after a command: `oxla run --help`)
  -V, --version  Print the version

Modules are HLO text as XLA and JAX print it (`jax.jit(f).lower(x).as_text(dialect=\"hlo\")`,
XLA's optimized dumps with fusions) or as oxla prints it. `run` and `bench` compile the
module with the JIT; `--backend interp` runs the reference interpreter instead.

Examples:
  oxla check model.hlo
  oxla run model.hlo --input x.npy --input w.npy --output y.npy
  oxla convert model.hlo --to stablehlo
  oxla bench model.hlo --iterations 20
";

const RUN_HELP: &str = "\
Run a module and print or save its result.

Usage: oxla run <MODULE> [--input FILE.npy]... [--output OUT.npy] [--backend jit|interp] [--compare] [--seed N]

Options:
  --input FILE.npy   An argument, one per parameter, in parameter order. Without any
                     --input, deterministic random arguments are generated: floats uniform
                     in [-1, 1), signed integers in [-10, 10], unsigned in [0, 10], pred
                     true/false (SplitMix64 seeded with --seed and the parameter number)
  --output OUT.npy   Write the result as .npy instead of printing it (a tuple result is
                     written as OUT.0.npy, OUT.1.npy, ...)
  --backend NAME     jit (the Cranelift JIT, the default) or interp (the reference
                     interpreter, the oracle every JIT result is checked against)
  --compare          Run on both backends and compare the results
  --seed N           Seed for random arguments (default 0)
  -h, --help         Print this help

Without --output the result is printed in XLA literal notation; large results show
their first and last values.

Examples:
  oxla run W5.hlo.txt
  oxla run model.hlo --input x.npy --input w.npy --output y.npy
  oxla run model.hlo --seed 7 --backend interp
";

const CHECK_HELP: &str = "\
Parse and verify a module. Prints the module as oxla reads it (every instruction with its
inferred shape) and exits 0, or prints every error as FILE:LINE:COLUMN with the source line
and exits 1: after an unknown or unsupported op or a malformed attribute, checking goes on
with the next instruction (up to 50 errors). A module whose constants were printed as `{...}`
checks, but cannot be run.

Usage: oxla check <MODULE>

Examples:
  oxla check model.hlo
  oxla check W9_softmax.optimized.hlo.txt   # fusions are inlined
";

const DUMP_HELP: &str = "\
Print a module after a compilation stage.

Usage: oxla dump <MODULE> [--stage parsed|expanded|fused|clif]

Stages:
  parsed    The module as parsed and verified (the default)
  expanded  After expand_broadcasts: XLA's strict HLO, every broadcast explicit
  fused     The JIT's fusion groups: one kernel per group
  clif      The Cranelift IR of each kernel the JIT generates

Examples:
  oxla dump model.hlo --stage expanded
";

const CONVERT_HELP: &str = "\
Convert a module to another text form.

Usage: oxla convert <MODULE> --to oxla|hlo|stablehlo [--output FILE]

Targets:
  oxla       Our dialect, as oxla prints it (binary ops may carry broadcast_dimensions)
  hlo        XLA's strict HLO: after expand_broadcasts, readable by XLA's parser
  stablehlo  StableHLO MLIR text, as JAX prints it (func.func public @main(...))

Options:
  --to TARGET          The form to write (required)
  -o, --output FILE    Write to FILE instead of standard output
  -h, --help           Print this help

Examples:
  oxla convert model.hlo --to stablehlo
  oxla convert model.hlo --to hlo --output model.strict.hlo
";

const BENCH_HELP: &str = "\
Time a module on .npy inputs or deterministic random ones.

Usage: oxla bench <MODULE> [--input FILE.npy]... [--iterations N] [--warmup N] [--backend jit|interp] [--seed N]

Prints the compile time (parse and verify, plus compilation for the JIT; the JIT's
once-per-process set-up is paid before the timer starts and printed on its own `setup:`
line, as XLA's is paid by a first compilation that its timed ones do not count), the median run
time with its spread (min and max), the bandwidth: (input + output bytes) / median, and,
for a module with dot, the compute rate: 2*M*N*K FLOPs per dot (batch included) / median.

Options:
  --input FILE.npy   One argument per parameter, in parameter order, as for `oxla run`.
                     Without any --input, deterministic random arguments are generated
                     (see `oxla run --help`)
  --iterations N     Timed runs (default 10)
  --warmup N         Untimed runs first (default 1)
  --backend NAME     jit (the Cranelift JIT, the default) or interp (the interpreter)
  --seed N           Seed for random arguments (default 0)
  -h, --help         Print this help

Examples:
  oxla bench W5.hlo.txt --iterations 20
  oxla bench model.hlo --input x.npy --input w.npy
  oxla bench model.hlo --backend interp --iterations 3
";

const DEMO_HELP: &str = "\
Build XLA's broadcasting examples with the builder, print each one's HLO text, evaluate
it and print the result.

Usage: oxla demo
";

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

const RUN: Spec = Spec {
    command: "run",
    options: &[
        Opt::value("input").repeatable(),
        Opt::value("output").short('o'),
        Opt::value("backend"),
        Opt::flag("compare"),
        Opt::value("seed"),
    ],
    positionals: &["MODULE"],
};
const CHECK: Spec = Spec {
    command: "check",
    options: &[],
    positionals: &["MODULE"],
};
const DUMP: Spec = Spec {
    command: "dump",
    options: &[Opt::value("stage")],
    positionals: &["MODULE"],
};
const CONVERT: Spec = Spec {
    command: "convert",
    options: &[Opt::value("to"), Opt::value("output").short('o')],
    positionals: &["MODULE"],
};
const BENCH: Spec = Spec {
    command: "bench",
    options: &[
        Opt::value("input").repeatable(),
        Opt::value("iterations"),
        Opt::value("warmup"),
        Opt::value("backend"),
        Opt::value("seed"),
    ],
    positionals: &["MODULE"],
};
const DEMO: Spec = Spec {
    command: "demo",
    options: &[],
    positionals: &[],
};

type Command = fn(&Parsed) -> Result<(), CliError>;

/// (spec, help, handler) of every subcommand.
const COMMANDS: &[(&Spec, &str, Command)] = &[
    (&RUN, RUN_HELP, cmd_run),
    (&CHECK, CHECK_HELP, cmd_check),
    (&DUMP, DUMP_HELP, cmd_dump),
    (&CONVERT, CONVERT_HELP, cmd_convert),
    (&BENCH, BENCH_HELP, cmd_bench),
    (&DEMO, DEMO_HELP, cmd_demo),
];

fn dispatch(argv: &[String]) -> Result<(), CliError> {
    let Some(first) = argv.first() else {
        let _ = write!(std::io::stderr(), "{HELP}");
        return Err(CliError::usage("no command given"));
    };
    match first.as_str() {
        "-h" | "--help" => return Out::print(HELP),
        "-V" | "--version" => return Out::println(&format!("oxla {}", env!("CARGO_PKG_VERSION"))),
        "help" => {
            return match argv.get(1).map(String::as_str) {
                None => Out::print(HELP),
                Some(name) => match COMMANDS.iter().find(|(s, _, _)| s.command == name) {
                    Some((_, help, _)) => Out::print(help),
                    None => Err(CliError::usage(format!("unknown command `{name}`"))),
                },
            };
        }
        _ => {}
    }
    let Some((spec, help, handler)) = COMMANDS.iter().find(|(s, _, _)| s.command == first) else {
        let names: Vec<&str> = COMMANDS.iter().map(|(s, _, _)| s.command).collect();
        return Err(CliError::usage(format!(
            "unknown command `{first}`; the commands are {}",
            names.join(", ")
        )));
    };
    let parsed = args::parse(spec, &argv[1..]).map_err(|UsageError(message)| CliError::Usage {
        message,
        command: Some(spec.command),
    })?;
    if parsed.help {
        return Out::print(help);
    }
    handler(&parsed).map_err(|e| match e {
        CliError::Usage { message, .. } => CliError::Usage {
            message,
            command: Some(spec.command),
        },
        other => other,
    })
}

// ---------------------------------------------------------------------------
// Loading modules
// ---------------------------------------------------------------------------

fn read_text(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::Failure(format!("{path}: cannot read the module: {e}")))
}

/// An error of the module at `path`: parse errors read `path:line:col: ...`.
fn located(path: &str, e: &Error) -> String {
    match e {
        Error::Parse { .. } => format!("{path}:{e}"),
        _ => format!("{path}: {e}"),
    }
}

/// Whether the module at `path` is StableHLO MLIR rather than HLO text: by
/// its `.mlir` extension, or by how it starts after blank lines and `//`
/// comments (`module`, `func.func`, the generic `"builtin.module"` or
/// `"func.func"`, or an alias definition such as `#loc = ...`, none of which
/// HLO text can start with).
fn is_stablehlo(path: &str, text: &str) -> bool {
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with("//"))
        .unwrap_or("");
    path.ends_with(".mlir")
        || [
            "module",
            "func.func",
            "\"builtin.module\"",
            "\"func.func\"",
            "#",
            "!",
        ]
        .iter()
        .any(|p| first.starts_with(p))
}

/// Parses and verifies module text (StableHLO MLIR when [`is_stablehlo`]
/// says so, HLO text otherwise), or returns every error found (never an
/// empty list), each located at its line and column.
///
/// The one place that knows module formats: every command reads its module
/// through here ([`load`] stops at the first error, `check` reports them
/// all).
fn parse_module(path: &str, text: &str) -> Result<Computation, Vec<Error>> {
    if is_stablehlo(path, text) {
        oxla::stablehlo::parse(text).map_err(|e| vec![e])
    } else {
        oxla::hlo::parse_diagnostics(text)
    }
}

/// Reads, parses and verifies the module at `path`; the first error found
/// is the failure.
fn load(path: &str) -> Result<Computation, CliError> {
    let text = read_text(path)?;
    parse_module(path, &text).map_err(|errors| {
        CliError::Failure(match errors.first() {
            Some(e) => located(path, e),
            None => format!("{path}: the module is not valid"),
        })
    })
}

/// `--backend`, or the default (the JIT).
fn backend_of(p: &Parsed) -> Result<Backend, CliError> {
    p.value("backend")
        .map_or(Ok(Backend::default()), str::parse)
}

fn seed_of(p: &Parsed) -> Result<u64, CliError> {
    p.number("seed", 0u64)
        .map_err(|UsageError(m)| CliError::usage(m))
}

/// The arguments of `oxla run` and `oxla bench`: the `--input` files, or
/// random values when none are given.
fn arguments(p: &Parsed, comp: &Computation) -> Result<Vec<Literal>, CliError> {
    let paths = p.values("input");
    if paths.is_empty() {
        let seed = seed_of(p)?;
        if !comp.parameter_shapes().is_empty() {
            note(&format!(
                "note: no --input given; using random arguments (seed {seed}): {}",
                inputs::signature(&comp.parameter_names(), &comp.parameter_shapes())
            ));
        }
        inputs::random_inputs(comp, seed)
    } else {
        inputs::read_inputs(comp, &paths)
    }
}

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/// How many values a printed result shows before eliding the middle.
const PRINT_ELEMENTS: usize = 64;

fn cmd_run(p: &Parsed) -> Result<(), CliError> {
    let path = &p.positionals[0];
    let backend = backend_of(p)?;
    let comp = load(path)?;
    let args = arguments(p, &comp)?;
    let refs: Vec<&Literal> = args.iter().collect();
    let result = if p.flag("compare") {
        note("running the reference interpreter ...");
        let expected = backend::prepare(Backend::Interp, &comp)?.run(&refs)?;
        let other = if backend == Backend::Interp {
            Backend::Jit
        } else {
            backend
        };
        note(&format!("running the {other} backend ..."));
        let actual = backend::prepare(other, &comp)?.run(&refs)?;
        let report = compare::compare(&actual, &expected).map_err(CliError::Failure)?;
        let summary = format!(
            "compare {other} with interp: {} of {} element(s) outside tolerance (atol {}, rtol {}), max abs difference {:e}",
            report.mismatches,
            report.count,
            compare::ATOL,
            compare::RTOL,
            report.max_abs
        );
        note(&summary);
        if let Some((i, a, e)) = &report.first {
            note(&format!(
                "first mismatch at element {i}: {other} gives {a}, interp gives {e}"
            ));
        }
        if !report.ok() {
            return Err(CliError::Failure(format!(
                "{other} and interp disagree on {} element(s)",
                report.mismatches
            )));
        }
        actual
    } else {
        backend::prepare(backend, &comp)?.run(&refs)?
    };
    match p.value("output") {
        Some(out) => {
            for (file, lit) in output_files(Path::new(out), &result) {
                oxla::npy::write_npy(&file, lit)?;
                note(&format!("wrote {} ({})", file.display(), lit.shape()));
            }
            Ok(())
        }
        None => Out::println(&result.to_string_elided(PRINT_ELEMENTS)),
    }
}

/// Where each array of `result` goes: `out` itself, or for a tuple
/// `out.0.npy`, `out.1.npy`, ... (nested: `out.1.0.npy`).
fn output_files<'l>(out: &Path, result: &'l Literal) -> Vec<(PathBuf, &'l Literal)> {
    fn walk<'l>(stem: &str, lit: &'l Literal, out: &mut Vec<(PathBuf, &'l Literal)>) {
        match lit.tuple_elements() {
            Some(elements) => {
                for (k, e) in elements.iter().enumerate() {
                    walk(&format!("{stem}.{k}"), e, out);
                }
            }
            None => out.push((PathBuf::from(format!("{stem}.npy")), lit)),
        }
    }
    if result.tuple_elements().is_none() {
        return vec![(out.to_path_buf(), result)];
    }
    let text = out.to_string_lossy();
    let stem = text.strip_suffix(".npy").unwrap_or(&text).to_string();
    let mut files = Vec::new();
    walk(&stem, result, &mut files);
    files
}

fn cmd_check(p: &Parsed) -> Result<(), CliError> {
    let path = &p.positionals[0];
    let text = read_text(path)?;
    match parse_module(path, &text) {
        Ok(comp) => Out::print(&comp.to_hlo_text()),
        Err(errors) => {
            for e in &errors {
                note(&located(path, e));
                note("");
            }
            let more = if errors.len() >= oxla::internals::parser::MAX_DIAGNOSTICS {
                " (check stops there: fix these and check again)"
            } else {
                ""
            };
            Err(CliError::Failure(format!(
                "{path}: {} error(s){more}; the module is not valid",
                errors.len()
            )))
        }
    }
}

fn cmd_dump(p: &Parsed) -> Result<(), CliError> {
    let stage = p.value("stage").unwrap_or("parsed");
    // Check the stage before reading the module, so a typo fails fast.
    match stage {
        "parsed" | "expanded" | "fused" | "clif" => {}
        _ => {
            return Err(CliError::usage(format!(
                "unknown stage `{stage}`; the stages are parsed, expanded, fused, clif"
            )));
        }
    }
    let comp = load(&p.positionals[0])?;
    match stage {
        "expanded" => Out::print(&oxla::hlo::print(&oxla::hlo::to_strict(&comp)?)),
        "fused" => Out::print(oxla::compile(&comp)?.fusion_text()),
        "clif" => Out::print(oxla::compile(&comp)?.clif_text()),
        _ => Out::print(&comp.to_hlo_text()),
    }
}

fn cmd_convert(p: &Parsed) -> Result<(), CliError> {
    let Some(to) = p.value("to") else {
        return Err(CliError::usage(
            "--to is required: --to oxla, --to hlo or --to stablehlo",
        ));
    };
    if !matches!(to, "oxla" | "hlo" | "stablehlo") {
        return Err(CliError::usage(format!(
            "unknown target `{to}`; use --to oxla, --to hlo or --to stablehlo"
        )));
    }
    let path = &p.positionals[0];
    let comp = load(path)?;
    let text = match to {
        "oxla" => Ok(oxla::hlo::print(&comp)),
        "hlo" => oxla::hlo::to_strict(&comp).map(|strict| oxla::hlo::print(&strict)),
        _ => oxla::stablehlo::print(&comp),
    }
    .map_err(|e| CliError::Failure(format!("{path}: {e}")))?;
    match p.value("output") {
        Some(out) => std::fs::write(out, text)
            .map_err(|e| CliError::Failure(format!("{out}: cannot write the file: {e}"))),
        None => Out::print(&text),
    }
}

fn cmd_bench(p: &Parsed) -> Result<(), CliError> {
    let path = &p.positionals[0];
    let backend = backend_of(p)?;
    let iterations: usize = p
        .number("iterations", 10usize)
        .map_err(|UsageError(m)| CliError::usage(m))?;
    let warmup: usize = p
        .number("warmup", 1usize)
        .map_err(|UsageError(m)| CliError::usage(m))?;
    if iterations == 0 {
        return Err(CliError::usage("--iterations must be at least 1"));
    }
    // The JIT's once-per-process costs (CPU features, the thread pool,
    // the code generator's first use) are paid here, outside the compile
    // timer, and printed on their own line.
    let setup = match backend {
        Backend::Interp => None,
        Backend::Jit => Some(oxla::warm_up()?),
    };
    let start = Instant::now();
    let comp = load(path)?;
    let parse_time = start.elapsed();
    let runner = backend::prepare(backend, &comp)?;
    let compile_time = start.elapsed();
    let args = arguments(p, &comp)?;
    let refs: Vec<&Literal> = args.iter().collect();
    let mut output_bytes = 0u128;
    for _ in 0..warmup {
        runner.run(&refs)?;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(iterations);
    // Progress on stderr once the loop has taken more than a second, then
    // at most once a second.
    let started = Instant::now();
    let mut last_progress = started;
    for k in 0..iterations {
        let t = Instant::now();
        let out = runner.run(&refs)?;
        times.push(t.elapsed());
        output_bytes = inputs::byte_size(out.shape());
        if started.elapsed() > Duration::from_secs(1)
            && last_progress.elapsed() >= Duration::from_secs(1)
        {
            last_progress = Instant::now();
            note(&format!("  {} of {iterations} iterations", k + 1));
        }
    }
    times.sort();
    let median = if iterations % 2 == 1 {
        times[iterations / 2]
    } else {
        (times[iterations / 2 - 1] + times[iterations / 2]) / 2
    };
    let input_bytes: u128 = comp.parameter_shapes().iter().map(inputs::byte_size).sum();
    let bytes = (input_bytes + output_bytes) as f64;
    let per_second = |amount: f64| {
        if median.as_secs_f64() > 0.0 {
            amount / median.as_secs_f64()
        } else {
            f64::INFINITY
        }
    };
    let gbs = per_second(bytes) / 1e9;
    let compute = match flops::flop_count(&comp) {
        Some(n) => format!(
            "compute:    {:.2} GFLOP/s ({} / median; 2*M*N*K per dot)\n",
            per_second(n as f64) / 1e9,
            flops::human_flops(n)
        ),
        None => String::new(),
    };
    let what = match backend {
        Backend::Interp => "parse + verify",
        Backend::Jit => "parse + verify + compile",
    };
    let threads = match backend {
        Backend::Interp => String::new(),
        Backend::Jit => format!(
            "threads:    {} (set with {})\n",
            oxla::num_threads(),
            oxla::THREADS_VAR
        ),
    };
    let setup = match setup {
        Some(d) => format!(
            "setup:      {} (once per process, before the compile timer: CPU features, \
             threads, the code generator's first use)\n",
            ms(d)
        ),
        None => String::new(),
    };
    let report = format!(
        "module:     {path} (`{}`), backend {backend}\n{threads}{setup}\
         compile:    {} ({what}; parsing alone {})\n\
         run:        median {}, min {}, max {} over {iterations} iteration(s) after {warmup} warm-up(s)\n\
         bandwidth:  {gbs:.2} GB/s ((inputs {} + output {}) / median)\n{compute}{}",
        comp.name(),
        ms(compile_time),
        ms(parse_time),
        ms(median),
        ms(times[0]),
        ms(times[iterations - 1]),
        inputs::human_bytes(input_bytes as f64),
        inputs::human_bytes(output_bytes as f64),
        runner.details(),
    );
    Out::print(&report)
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn cmd_demo(_: &Parsed) -> Result<(), CliError> {
    Out::print(&demo::run()?)
}
