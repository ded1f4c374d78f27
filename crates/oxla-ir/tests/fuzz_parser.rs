//! Hostile input for the HLO text parser: a deterministic mutation fuzzer
//! that runs under plain `cargo test`, the corpus it starts from, and every
//! input that ever broke the parser, kept as a regression test.
//!
//! The fuzzer starts from `tests/data/fuzz/corpus/` (JAX's modules, our
//! dialect, programs printed by `oxla-testgen`, and hand-written nasty
//! cases), mutates it with a seeded xorshift generator (`fuzz/mutator.rs`:
//! bit flips, deletions, HLO tokens inserted once or thousands of times,
//! splices of two files, duplicated and swapped lines, numbers replaced by
//! edge values, names replaced by other names), and checks for each mutant
//! that the parser
//!
//! - returns `Ok` or a non-empty list of errors, without panicking, and its
//!   errors print (`Display`, `summary`, `render`) without panicking;
//! - returns within [`PER_INPUT_LIMIT`] (1 s in release, 5 s in debug); a
//!   watchdog stops the whole run if one input takes [`HANG_LIMIT`];
//! - never asks for one allocation above [`MAX_ALLOCATION`] (the process is
//!   stopped at the request, before the system allocator aborts it) and
//!   never holds more than [`live_bytes_bound`] at once;
//! - when it accepts the input, prints text that parses back and prints the
//!   same again.
//!
//! Mutants that reach an error message not seen before join the pool that
//! later mutants start from, so the run walks deeper into the parser than
//! one mutation from the corpus would.
//!
//! A failing input is written to `$CARGO_TARGET_TMPDIR/fuzz-failures/`.
//! Minimise it by hand, save it in `tests/data/fuzz/regressions/`, and say
//! in that folder's `README.md` what it broke; [`regressions`] runs every
//! file there.
//!
//! `cargo test -p oxla-ir --test fuzz_parser` runs 5,000 mutants (seed 1).
//! `OXLA_FUZZ_ITERS=N`, `OXLA_FUZZ_SEED=S` and `OXLA_FUZZ_SECS=T` (stop
//! after T seconds) run longer: `just fuzz`.

#![allow(clippy::result_large_err)]

#[path = "fuzz/mutator.rs"]
mod mutator;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::time::{Duration, Instant};

use mutator::{Rng, mutate};
use oxla_ir::parser::parse_hlo_module_diagnostics;
use oxla_ir::{Error, parse_hlo_module};

// ---------------------------------------------------------------------------
// Bounds
// ---------------------------------------------------------------------------

/// The longest one input may take to parse (and, if accepted, to print and
/// parse again). Debug builds of the parser are about 20 times slower.
const PER_INPUT_LIMIT: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(5)
} else {
    Duration::from_secs(1)
};

/// After this long on one input the watchdog saves it and ends the process:
/// a hang must fail the run, not stall it.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// The longest a regression input may take to parse, in any build.
const REGRESSION_LIMIT: Duration = Duration::from_secs(1);

/// The largest single allocation a parse may request. No input under
/// [`mutator::MAX_MUTANT_LEN`] needs anything near it; a request above it
/// means memory is sized from a number in the text (a literal of 10^12
/// elements) rather than from the text itself.
const MAX_ALLOCATION: usize = 1 << 30;

/// The most bytes a parse of `len` bytes of text may hold at once: the
/// parser promises "a small multiple of its own length".
fn live_bytes_bound(len: usize) -> i64 {
    (16 << 20) + 256 * len as i64
}

// ---------------------------------------------------------------------------
// The watched parse: allocation accounting, panic capture, watchdog
// ---------------------------------------------------------------------------

/// The system allocator, plus per-thread accounting while a parse is
/// watched.
struct Counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

thread_local! {
    /// Whether allocations on this thread are being counted.
    static WATCHED: Cell<bool> = const { Cell::new(false) };
    /// Bytes allocated minus bytes freed since the watch began.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    /// The highest `LIVE` since the watch began.
    static PEAK: Cell<i64> = const { Cell::new(0) };
    /// Whether a panic on this thread is captured rather than printed.
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    /// The last captured panic: its message and location.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn count(delta: i64) {
    let _ = WATCHED.try_with(|w| {
        if !w.get() {
            return;
        }
        if delta > MAX_ALLOCATION as i64 {
            // Stop counting before doing anything that allocates.
            w.set(false);
            oversized_allocation(delta);
        }
        let _ = LIVE.try_with(|live| {
            let now = live.get() + delta;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    });
}

// SAFETY: every method forwards to `System` with the same arguments; the
// accounting around it touches only `Cell`s in const-initialised
// thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as i64 - layout.size() as i64);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The input being parsed, for the watchdog and the allocation tripwire.
static CURRENT: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// When the current parse began, in milliseconds after [`epoch`] plus one;
/// 0 while no parse runs.
static STARTED_MS: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64 + 1
}

fn current_input() -> Vec<u8> {
    CURRENT.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A parse asked for `bytes` at once: save the input and stop, since the
/// system allocator would abort the process without saying which input.
#[cold]
fn oversized_allocation(bytes: i64) -> ! {
    let path = save_failure("oversized-allocation", &current_input());
    eprintln!(
        "fuzz_parser: a parse asked for {bytes} bytes in one allocation (limit {MAX_ALLOCATION}); \
         the input is saved in {}",
        path.display()
    );
    std::process::abort()
}

/// Serialises the tests of this file (they share the watchdog, the current
/// input and the panic hook) and installs the hook and the watchdog once.
fn harness() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        epoch();
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
            } else {
                default(info);
            }
        }));
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(250));
                let started = STARTED_MS.load(Ordering::Relaxed);
                if started != 0 && now_ms().saturating_sub(started) > HANG_LIMIT.as_millis() as u64
                {
                    let path = save_failure("hang", &current_input());
                    eprintln!(
                        "fuzz_parser: one input has been parsing for more than {HANG_LIMIT:?}; \
                         it is saved in {}",
                        path.display()
                    );
                    std::process::exit(1);
                }
            }
        });
    });
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the parser did with one input.
#[derive(Debug)]
struct Run {
    /// `"ok"`, or the first error's message with names and numbers blanked
    /// out (so that distinct outcomes count distinct messages); `Err` says
    /// which property failed.
    outcome: Result<String, String>,
    elapsed: Duration,
    peak_bytes: i64,
}

impl Run {
    /// Every property that failed, in words; empty when the input passed.
    fn problems(&self, len: usize) -> Vec<String> {
        let mut out = Vec::new();
        if let Err(e) = &self.outcome {
            out.push(e.clone());
        }
        if self.elapsed > PER_INPUT_LIMIT {
            out.push(format!(
                "took {:?} (limit {PER_INPUT_LIMIT:?})",
                self.elapsed
            ));
        }
        if self.peak_bytes > live_bytes_bound(len) {
            out.push(format!(
                "held {} bytes at once for {len} bytes of text (limit {})",
                self.peak_bytes,
                live_bytes_bound(len)
            ));
        }
        out
    }
}

/// Parses `input` (bytes read as UTF-8, invalid sequences replaced) under
/// watch; the caller must hold [`harness`].
fn run_one(input: &[u8]) -> Run {
    {
        let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        current.clear();
        current.extend_from_slice(input);
    }
    STARTED_MS.store(now_ms(), Ordering::Relaxed);
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    CAPTURING.with(|c| c.set(true));
    let start = Instant::now();
    WATCHED.with(|w| w.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(|| check_parse(input)));
    WATCHED.with(|w| w.set(false));
    let elapsed = start.elapsed();
    CAPTURING.with(|c| c.set(false));
    STARTED_MS.store(0, Ordering::Relaxed);
    let outcome = result.unwrap_or_else(|_| {
        let message = PANIC.with(|p| p.borrow_mut().take());
        Err(format!(
            "panicked: {}",
            message.unwrap_or_else(|| "(no message)".into())
        ))
    });
    Run {
        outcome,
        elapsed,
        peak_bytes: PEAK.with(Cell::get),
    }
}

/// The properties of one parse, as [`Run::outcome`].
fn check_parse(input: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(input);
    match parse_hlo_module_diagnostics(&text) {
        Ok(comp) => {
            let printed = comp.to_hlo_text();
            let again = parse_hlo_module(&printed)
                .map_err(|e| format!("accepted, but its print does not parse: {e}\n{printed}"))?;
            let reprinted = again.to_hlo_text();
            if reprinted != printed {
                return Err(format!(
                    "accepted, but print(parse(print)) differs from print:\n{printed}\n---\n{reprinted}"
                ));
            }
            Ok("ok".into())
        }
        Err(errors) => {
            let Some(first) = errors.first() else {
                return Err("rejected with an empty list of errors".into());
            };
            for e in &errors {
                // Every form a user may see must print.
                let _ = (e.to_string(), e.summary(), e.render());
                if let Error::Parse { line, column, .. } = e
                    && (*line == 0 || *column == 0)
                {
                    return Err(format!("an error at line {line}, column {column}: {e}"));
                }
            }
            Ok(signature(first))
        }
    }
}

/// An error's code and message with quoted names and numbers blanked out:
/// two inputs that fail the same way have the same signature.
fn signature(e: &Error) -> String {
    let message = match e {
        Error::Parse { message, .. } => message.clone(),
        other => other.to_string(),
    };
    let mut out = format!("{} ", e.code());
    let mut quoted = false;
    let mut last_digit = false;
    for c in message.chars().take(120) {
        match c {
            '`' => {
                quoted = !quoted;
                if quoted {
                    out.push_str("`_`");
                }
            }
            _ if quoted => {}
            '0'..='9' => {
                if !last_digit {
                    out.push('#');
                }
            }
            _ => out.push(c),
        }
        last_digit = c.is_ascii_digit();
    }
    out
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fuzz")
}

/// Every `.hlo` file of `dir`, sorted by name: `(name, bytes)`.
fn read_hlo_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .map(|p| {
            let bytes =
                std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Writes a failing input where the test output says; returns the path.
fn save_failure(name: &str, input: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    let path = dir.join(format!("{name}.hlo"));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(&path, input);
    path
}

/// The start of an input, printable, for a failure message.
fn preview(input: &[u8]) -> String {
    let text = String::from_utf8_lossy(&input[..input.len().min(600)]);
    let more = if input.len() > 600 { "\n..." } else { "" };
    format!("{}{more}", text.escape_debug())
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

/// The hand-written hostile files of the corpus and the first error each
/// gives (empty: the module is valid). Each pins that the input is an
/// error, located and explained, rather than a panic, a hang or an abort.
const NASTY: &[(&str, &str)] = &[
    // Window attributes at the ends of i64 (the windows family): shape
    // inference works in i128, and the first refusal is a group count.
    (
        "nasty_window_extremes.hlo",
        "feature_group_count must be a positive number, got -9223372036854775808",
    ),
    // Nothing, or nothing that is a module.
    (
        "nasty_empty.hlo",
        "1:1: an HLO module starts with `HloModule <name>`, found the end of the input",
    ),
    (
        "nasty_only_comments.hlo",
        "an HLO module starts with `HloModule <name>`, found the end of the input",
    ),
    (
        "nasty_only_header.hlo",
        "expected the module name, found the end of the input",
    ),
    (
        "nasty_no_computations.hlo",
        "the module `m` has no computations",
    ),
    (
        "nasty_sections_only.hlo",
        "the module `m` has no computations",
    ),
    (
        "nasty_two_entries.hlo",
        "a second ENTRY computation `b`; `a` (line 3) is already the entry",
    ),
    // Nesting: refused past 64 levels or skipped without recursion.
    (
        "nasty_deep_braces.hlo",
        "expected a value of type f32, found `{`",
    ),
    (
        "nasty_deep_tuple_shape.hlo",
        "tuple shapes nest deeper than 64 levels",
    ),
    (
        "nasty_deep_attribute.hlo",
        "unterminated `{` in the value of attribute `metadata`",
    ),
    // As XLA: `{` starts a layout only before an integer or `:`.
    ("nasty_deep_layout.hlo", "expected an opcode, found `{`"),
    ("nasty_rank_64_constant.hlo", ""),
    ("nasty_rank_65.hlo", "the shape has more than 64 dimensions"),
    // Sizes: shapes up to 2^40 elements parse (nothing is allocated from
    // them); past that, or past i64, they are errors.
    ("nasty_huge_parameter.hlo", ""),
    ("nasty_broadcast_huge.hlo", ""),
    ("nasty_dot_huge.hlo", ""),
    ("nasty_reshape_huge.hlo", ""),
    (
        "nasty_too_many_elements.hlo",
        "Invalid shape f32[1099511627777]: it has more than the maximum of 1099511627776 elements",
    ),
    (
        "nasty_dim_overflows_i64.hlo",
        "a dimension size 99999999999999999999 does not fit in 64 bits",
    ),
    (
        "nasty_product_overflows_i64.hlo",
        "Invalid shape f32[4294967296,4294967296]",
    ),
    (
        "nasty_concatenate_overflow.hlo",
        "`c` declares shape f32[8] but its operands give f32[2199023255552]",
    ),
    (
        "nasty_pad_overflow.hlo",
        "would have a negative or overflowing size",
    ),
    (
        "nasty_pad_huge_interior.hlo",
        "would have a negative or overflowing size",
    ),
    // Literals are read value by value, never allocated from their shape.
    (
        "nasty_constant_1e7_few_values.hlo",
        "dimension 0 of the f32[10000000] literal has size 10000000, but this group has 3 element(s)",
    ),
    (
        "nasty_constant_1e12_elements.hlo",
        "dimension 1 of the f32[1000000,1000000] literal has size 1000000, but this group has 1 element(s) (the shape has 1000000000000 elements in all)",
    ),
    // An elided constant (`{...}`) parses and verifies, allocating
    // nothing; running it is refused.
    ("nasty_constant_elided.hlo", ""),
    (
        "nasty_long_line.hlo",
        "too many elements: dimension 0 of the f32[20000] literal has size 20000",
    ),
    (
        "nasty_float_values.hlo",
        "value 1e39 is out of range for literal's primitive type f32",
    ),
    ("nasty_int_values.hlo", "128 is out of range for s8"),
    // Text that ends too early.
    (
        "nasty_unterminated_string.hlo",
        "unterminated string in the value of attribute `metadata`",
    ),
    (
        "nasty_unterminated_body.hlo",
        "computation `e` (line 3) is not closed",
    ),
    ("nasty_unterminated_comment.hlo", "unterminated comment"),
    (
        "nasty_unterminated_layout.hlo",
        "expected `}` closing the layout, found `parameter`",
    ),
    (
        "nasty_unterminated_operands.hlo",
        "expected `,` or `)` in the operand list, found the end of the line",
    ),
    // Bytes that are not HLO.
    (
        "nasty_nul_bytes.hlo",
        "expected a computation name, found the control character U+0000",
    ),
    (
        "nasty_not_utf8.hlo",
        "expected `=` after the instruction name `x`, found `\u{FFFD}`",
    ),
    (
        "nasty_unicode_names.hlo",
        "expected `=` after the instruction name `x`, found `é`",
    ),
    ("nasty_crlf.hlo", ""),
    // Size of the text.
    ("nasty_long_metadata.hlo", ""),
    ("nasty_many_instructions.hlo", ""),
    (
        "nasty_many_undefined_operands.hlo",
        "undefined operand `u0` in computation `e`",
    ),
    // References: to itself, in cycles, into the entry, doubling fusions.
    (
        "nasty_self_operand.hlo",
        "`x` uses `x`, which depends on `x` itself (a cycle)",
    ),
    (
        "nasty_operand_cycle.hlo",
        "`b` uses `a`, which depends on `b` itself (a cycle)",
    ),
    (
        "nasty_to_apply_itself.hlo",
        "computation `r` calls `r`, which calls back into it",
    ),
    (
        "nasty_to_apply_caller.hlo",
        "computation `r2` calls `r1`, which calls back into it",
    ),
    (
        "nasty_to_apply_entry.hlo",
        "the entry computation `e` cannot be called",
    ),
    (
        "nasty_while_cond_is_itself.hlo",
        "computation `c` calls `c`, which calls back into it",
    ),
    (
        "nasty_conditional_entry_branch.hlo",
        "the entry computation `e` cannot be called",
    ),
    ("nasty_conditional_2000_branches.hlo", ""),
    (
        "nasty_gte_deep_index.hlo",
        "attempt to index out of tuple bounds: 9223372036854775807 >= 2",
    ),
    (
        "nasty_fusion_itself.hlo",
        "computation `f` calls `f`, which calls back into it",
    ),
    (
        "nasty_fusion_doubling.hlo",
        "fused computations expand to more than 16384 instructions when inlined",
    ),
    // Attributes at the edges of i64.
    (
        "nasty_parameter_number_max.hlo",
        "parameters of `e` must be numbered 0..1 without gaps; number 0 is missing",
    ),
    (
        "nasty_edge_attributes.hlo",
        "iota_dimension -1 is out of range for s32[4] (rank 1)",
    ),
    (
        "nasty_slice_stride_zero.hlo",
        "stride 0 of dimension 0 must be at least 1",
    ),
    (
        "nasty_slice_huge_bounds.hlo",
        "got start -9223372036854775808, limit 9223372036854775807",
    ),
    (
        "nasty_transpose_bad.hlo",
        "names dimension 9223372036854775807, but f32[2,3] has rank 2",
    ),
    (
        "nasty_broadcast_dims_bad.hlo",
        "Broadcast dimension number (-9223372036854775808) cannot be negative",
    ),
    (
        "nasty_reduce_dims_bad.hlo",
        "names dimension 9223372036854775807, but f32[4] has rank 1",
    ),
    // The indexing ops: dimension numbers at the edges of i64, a result
    // past the element limit, an update computation that is the entry.
    (
        "nasty_gather_index_vector_dim_max.hlo",
        "gather index leaf dimension is 9223372036854775807",
    ),
    (
        "nasty_gather_result_too_large.hlo",
        "it has more than the maximum of 1099511627776 elements",
    ),
    (
        "nasty_scatter_dims_huge.hlo",
        "Invalid update_window_dims set in scatter op; valid range is [0, 2). got: 9223372036854775807.",
    ),
    (
        "nasty_scatter_to_apply_entry.hlo",
        "the entry computation `m` cannot be called",
    ),
    (
        "nasty_dynamic_slice_sizes_min.hlo",
        "Negative size index to dynamic slice: -9223372036854775808.",
    ),
    // The syntax XLA accepts beyond the printer's: bounded or recovered
    // from.
    // 2^40 elements written as one value: a pad, nothing allocated.
    ("nasty_bare_scalar_huge.hlo", ""),
    (
        "nasty_deep_nested_operands.hlo",
        "nested instructions nest deeper than 64 levels",
    ),
    (
        "nasty_deep_tuple_literal.hlo",
        "expected a value of type f32, found `(`",
    ),
    ("nasty_layout_parts.hlo", ""),
    (
        "nasty_many_unsupported_ops.hlo",
        "5:15: unsupported op `scaled-dot`",
    ),
    (
        "nasty_unclosed_multiline_attribute.hlo",
        "expected `,` or `}` in the frontend attributes",
    ),
];

/// Every corpus file: the valid ones parse and round-trip, the nasty ones
/// give the error listed in [`NASTY`], and none breaks a bound.
#[test]
fn corpus() {
    let _h = harness();
    let files = read_hlo_files(&fuzz_dir().join("corpus"));
    assert!(
        files.len() >= 50,
        "the corpus has only {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for (name, bytes) in &files {
        let run = run_one(bytes);
        let mut problems = run.problems(bytes.len());
        let want = match NASTY.iter().find(|(n, _)| n == name) {
            Some((_, want)) => *want,
            None if name.starts_with("nasty_") => {
                problems.push("a nasty_ file that NASTY does not list".into());
                ""
            }
            None => "",
        };
        let text = String::from_utf8_lossy(bytes);
        match (parse_hlo_module(&text), want) {
            (Ok(_), "") => {}
            (Ok(_), want) => problems.push(format!("parsed, but should fail with `{want}`")),
            (Err(e), "") => problems.push(format!("should parse, but: {e}")),
            (Err(e), want) if !e.to_string().contains(want) => {
                problems.push(format!("should fail with `{want}`, but: {e}"))
            }
            (Err(_), _) => {}
        }
        if !problems.is_empty() {
            failures.push(format!("{name}: {}", problems.join("; ")));
        }
    }
    for (name, _) in NASTY {
        if !files.iter().any(|(n, _)| n == name) {
            failures.push(format!("{name}: listed in NASTY but not in the corpus"));
        }
    }
    assert!(
        failures.is_empty(),
        "corpus failures:\n{}",
        failures.join("\n")
    );
}

/// Every input that ever broke the parser, minimised: it must now pass
/// every property, and parse within [`REGRESSION_LIMIT`] even in a debug
/// build (the slow ones took 1.5 s to forever before their fix).
#[test]
fn regressions() {
    let _h = harness();
    let dir = fuzz_dir().join("regressions");
    let files = read_hlo_files(&dir);
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    let mut failures = Vec::new();
    for (name, bytes) in &files {
        let run = run_one(bytes);
        let mut problems = run.problems(bytes.len());
        if run.elapsed > REGRESSION_LIMIT {
            problems.push(format!(
                "took {:?} (limit {REGRESSION_LIMIT:?})",
                run.elapsed
            ));
        }
        if !readme.contains(name.as_str()) {
            problems.push("not described in regressions/README.md".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{name}: {}", problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "regressions:\n{}", failures.join("\n"));
}

/// The mutation fuzzer (see the module docs for the properties).
#[test]
fn fuzz() {
    let _h = harness();
    let iterations = env_number("OXLA_FUZZ_ITERS", 5_000);
    let seed = env_number("OXLA_FUZZ_SEED", 1);
    let deadline = std::env::var("OXLA_FUZZ_SECS")
        .ok()
        .map(|_| Instant::now() + Duration::from_secs(env_number("OXLA_FUZZ_SECS", 0)));
    let corpus: Vec<Vec<u8>> = read_hlo_files(&fuzz_dir().join("corpus"))
        .into_iter()
        .map(|(_, b)| b)
        .collect();
    let mut rng = Rng::new(seed);
    let mut seen: HashSet<String> = HashSet::new();
    // Mutants that reached an outcome first: later mutants start from them.
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut failures: Vec<(String, Vec<u8>)> = Vec::new();
    let mut failure_kinds: HashSet<String> = HashSet::new();
    let started = Instant::now();
    let (mut executions, mut accepted, mut bytes_total) = (0u64, 0u64, 0u64);
    let (mut slowest, mut slowest_len) = (Duration::ZERO, 0usize);
    let (mut peak, mut peak_len) = (0i64, 0usize);
    for i in 0..iterations {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let base = if !pool.is_empty() && rng.one_in(3) {
            &pool[rng.below(pool.len())]
        } else {
            &corpus[rng.below(corpus.len())]
        };
        let other = &corpus[rng.below(corpus.len())];
        let mutant = mutate(&mut rng, base, other);
        let run = run_one(&mutant);
        executions += 1;
        bytes_total += mutant.len() as u64;
        if run.elapsed > slowest {
            (slowest, slowest_len) = (run.elapsed, mutant.len());
        }
        if run.peak_bytes > peak {
            (peak, peak_len) = (run.peak_bytes, mutant.len());
        }
        let problems = run.problems(mutant.len());
        if !problems.is_empty() {
            // One example of each kind of failure (first line of the first problem).
            let kind = problems[0].lines().next().unwrap_or("").to_string();
            if failure_kinds.insert(kind) {
                failures.push((
                    format!("iteration {i} (seed {seed}): {}", problems.join("; ")),
                    mutant,
                ));
            }
            if failures.len() >= 20 {
                break;
            }
            continue;
        }
        let outcome = run.outcome.unwrap_or_default();
        if outcome == "ok" {
            accepted += 1;
        }
        if seen.insert(outcome) && mutant.len() <= 64 << 10 {
            if pool.len() < 2_000 {
                pool.push(mutant);
            } else {
                let k = rng.below(pool.len());
                pool[k] = mutant;
            }
        }
    }
    let elapsed = started.elapsed();
    println!(
        "fuzz_parser: {executions} executions in {elapsed:.1?} ({:.0} per second), seed {seed}; \
         {} distinct outcomes; {accepted} mutants accepted; mean input {} bytes; slowest input \
         {slowest:?} ({slowest_len} bytes); most memory held {peak} bytes ({peak_len} bytes of \
         input); {} failures",
        executions as f64 / elapsed.as_secs_f64().max(1e-9),
        seen.len(),
        bytes_total / executions.max(1),
        failures.len()
    );
    let mut report = String::new();
    for (k, (what, input)) in failures.iter().enumerate() {
        let path = save_failure(&format!("fuzz-{seed}-{k}"), input);
        report.push_str(&format!(
            "\n{what}\n  saved in {}\n  input: {}\n",
            path.display(),
            preview(input)
        ));
    }
    assert!(failures.is_empty(), "the fuzzer found failures:{report}");
}
