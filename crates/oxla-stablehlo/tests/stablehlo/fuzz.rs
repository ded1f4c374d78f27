//! Hostile input: the reader never panics, never hangs, and what it
//! accepts is a verified module.
//!
//! A deterministic mutation fuzzer (seeded xorshift) starts from every
//! `.mlir` file under `tests/data/stablehlo/` plus the nasty inputs below
//! (deep nesting, calls that double at every level, huge splats and
//! shapes, bytes that are not UTF-8), applies bit flips, deletions, MLIR
//! tokens inserted once or a thousand times, splices of two files,
//! duplicated and swapped lines, numbers replaced by edge values and names
//! replaced by other names, and checks for each mutant that
//! [`parse_stablehlo`]
//! - returns, within [`PER_INPUT_LIMIT`], without panicking (a watchdog
//!   fails the run if one input takes [`HANG_LIMIT`]);
//! - when it refuses, returns a located `Error::Parse` that prints;
//! - when it accepts, returns a module whose HLO text the HLO parser reads
//!   back and whose StableHLO it reads back.
//!
//! [`ITERATIONS`] mutants run under plain `cargo test` (a few seconds);
//! `OXLA_FUZZ_ITERS` and `OXLA_FUZZ_SEED` run more. A failing input is
//! written to `$CARGO_TARGET_TMPDIR/stablehlo-fuzz/`, and the input being
//! parsed is always in `current.mlir` there (for a crash that reports
//! nothing, such as a stack overflow).

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use oxla_ir::Error;
use oxla_stablehlo::{parse_stablehlo, to_stablehlo};

use super::common::data;

/// Mutants per run under `cargo test`.
const ITERATIONS: usize = 1500;

/// The longest one input may take (debug builds are some 20 times slower
/// than release, and CI machines are shared).
const PER_INPUT_LIMIT: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(5)
} else {
    Duration::from_secs(1)
};

/// After this long on one input the watchdog fails the run.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// Inputs built to hit the reader's limits.
fn nasty() -> Vec<Vec<u8>> {
    let header = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n";
    let mut out: Vec<String> = vec![
        String::new(),
        "module".into(),
        "module @m {".into(),
        "{-# dialect_resources: { builtin: { x: \"0x0400\" } } #-}".into(),
        format!("#a = {}1{}", "[".repeat(5000), "]".repeat(5000)),
        format!("!t = {}tensor<f32>{}", "tuple<".repeat(5000), ">".repeat(5000)),
        format!("{header}  %0 = stablehlo.constant dense<{}1{}> : tensor<1xf32>\n", "[".repeat(5000), "]".repeat(5000)),
        format!("{header}{}", "  \"stablehlo.add\"() ({".repeat(3000)),
        format!("{header}  %0 = stablehlo.constant dense<1.0> : tensor<1000000x1000000xf32>\n  return %a : tensor<2xf32>\n}}\n"),
        format!("{header}  %0 = stablehlo.constant dense<1.0> : tensor<99999999999999999999xf32>\n  return %a : tensor<2xf32>\n}}\n"),
        format!("{header}  %0 = stablehlo.iota dim = 0 : tensor<{}xf32>\n  return %a : tensor<2xf32>\n}}\n", "2x".repeat(100)),
        format!("{header}  %0:99999999 = stablehlo.optimization_barrier %a : tensor<2xf32>\n"),
        format!("{header}  %0 = stablehlo.add %a#99999999999999999999, %a : tensor<2xf32>\n"),
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = \"stablehlo.add\"(%a, %a) <{}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n\u{0}\u{1}".into(),
    ];
    // Regions nested past the limit, generic at the top of a module and
    // pretty in reduces: refused before the stack runs out.
    out.push(format!(
        "module @m {{ {}",
        "\"stablehlo.add\"() ({  ".repeat(3000)
    ));
    let mut reduces = String::from("%r = stablehlo.add %x, %y : tensor<f32>");
    for _ in 0..40 {
        reduces = format!(
            "%r = stablehlo.reduce(%v init: %x) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>\n reducer(%x: tensor<f32>, %y: tensor<f32>) {{\n  %v = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<2xf32>\n  {reduces}\n  stablehlo.return %r : tensor<f32>\n}}"
        );
    }
    out.push(format!(
        "func.func @main(%v: tensor<2xf32>, %x: tensor<f32>) -> tensor<f32> {{\n  {reduces}\n  return %r : tensor<f32>\n}}\n"
    ));
    // Calls that double at every level: 2^30 adds if inlined naively.
    let mut doubling = String::from(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = call @f0(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    );
    for k in 0..30 {
        doubling.push_str(&format!(
            "func.func private @f{k}(%a: tensor<2xf32>) -> tensor<2xf32> {{\n  %0 = call @f{n}(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  %1 = call @f{n}(%0) : (tensor<2xf32>) -> tensor<2xf32>\n  return %1 : tensor<2xf32>\n}}\n",
            n = k + 1
        ));
    }
    doubling.push_str("func.func private @f30(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n");
    out.push(doubling);
    // A chain of 200 calls, each a level deeper.
    let mut chain = String::from(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = call @f0(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    );
    for k in 0..200 {
        chain.push_str(&format!(
            "func.func private @f{k}(%a: tensor<2xf32>) -> tensor<2xf32> {{\n  %0 = call @f{n}(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}}\n",
            n = k + 1
        ));
    }
    chain.push_str("func.func private @f200(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n");
    out.push(chain);
    let mut bytes: Vec<Vec<u8>> = out.into_iter().map(String::into_bytes).collect();
    bytes.push(b"func.func @main(%a: tensor<2xf32>) -> \xff\xfe tensor<2xf32> {".to_vec());
    bytes
}

fn corpus() -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for dir in ["stablehlo", "stablehlo/errors"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(data(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .collect();
        paths.sort();
        files.extend(paths.into_iter().map(|p| std::fs::read(p).unwrap()));
    }
    files.extend(nasty());
    files
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Tokens the grammar branches on, and values at the edges.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "%",
    "%0",
    "%0#1",
    "%arg0",
    "@main",
    "@f",
    "^bb0",
    "#loc",
    "!t",
    "\"",
    "tensor<",
    "tensor<?xf32>",
    "tensor<2x3xf32>",
    "tensor<0xf32>",
    "tuple<",
    "dense<",
    "dense<>",
    "dense<\"0x\">",
    "dense_resource<",
    "array<i64: ",
    "loc(",
    "{-#",
    "#-}",
    "return",
    "stablehlo.return",
    "func.func",
    "func.call",
    "call",
    "module",
    "stablehlo.add",
    "stablehlo.reduce",
    "stablehlo.constant",
    "chlo.broadcast_add",
    "stablehlo.composite",
    "applies",
    "across dimensions = [",
    "reducer(",
    "init:",
    "contracting_dims = [1] x [0]",
    "format = e5m10",
    "format = e0m0",
    "distribution = NORMAL",
    "algorithm = THREE_FRY",
    "lower = true",
    "#stablehlo<transpose ADJOINT>",
    "stablehlo.rng_bit_generator",
    "dims = [",
    " : ",
    "0x7FC00000",
    "-0.0",
    "1e309",
    "9223372036854775807",
    "18446744073709551616",
    "-1",
    "0",
    "i1",
    "ui64",
    "bf16",
    "f64",
    "\n",
    "//",
];

const EDGE_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "64",
    "65",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "1099511627776",
];

fn mutate(rng: &mut Rng, input: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    let mut m = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = m.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                m[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below(64.min(len - i));
                m.drain(i..i + n);
            }
            2 | 3 => {
                let i = rng.below(len + 1);
                let tok = TOKENS[rng.below(TOKENS.len())];
                let times = if rng.below(10) == 0 {
                    1 + rng.below(1000)
                } else {
                    1
                };
                let ins = tok.repeat(times);
                m.splice(i..i, ins.into_bytes());
            }
            4 => {
                let other = &pool[rng.below(pool.len())];
                let (i, j) = (rng.below(len + 1), rng.below(other.len() + 1));
                m.truncate(i);
                m.extend_from_slice(&other[j..]);
            }
            5 | 6 => {
                let mut lines: Vec<Vec<u8>> =
                    m.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                if rng.below(2) == 0 {
                    lines.swap(a, b);
                } else {
                    let l = lines[a].clone();
                    lines.insert(b, l);
                }
                m = lines.join(&b'\n');
            }
            7 => {
                // A number replaced by an edge value.
                let starts: Vec<usize> = (0..len)
                    .filter(|&i| {
                        m[i].is_ascii_digit() && (i == 0 || !m[i - 1].is_ascii_alphanumeric())
                    })
                    .collect();
                if let Some(&i) = starts.get(rng.below(starts.len())) {
                    let mut j = i;
                    while j < len && m[j].is_ascii_digit() {
                        j += 1;
                    }
                    let v = EDGE_NUMBERS[rng.below(EDGE_NUMBERS.len())];
                    m.splice(i..j, v.bytes());
                }
            }
            _ => {
                // A value name replaced by another.
                let names: Vec<usize> = (0..len).filter(|&i| m[i] == b'%').collect();
                if names.len() >= 2 {
                    let a = names[rng.below(names.len())];
                    let b = names[rng.below(names.len())];
                    let end = |s: usize| {
                        let mut e = s + 1;
                        while e < len && (m[e].is_ascii_alphanumeric() || m[e] == b'_') {
                            e += 1;
                        }
                        e
                    };
                    let name = m[b..end(b)].to_vec();
                    let ea = end(a);
                    m.splice(a..ea, name);
                }
            }
        }
    }
    m
}

/// What went wrong with one input, if anything.
fn check(input: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(input);
    let start = Instant::now();
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| match parse_stablehlo(&text) {
        Err(e @ Error::Parse { .. }) => {
            let _ = e.to_string();
            None
        }
        Err(e) => Some(format!("an error that is not located: {e}")),
        Ok(comp) => {
            let hlo = comp.to_hlo_text();
            if let Err(e) = oxla_ir::parse_hlo_module(&hlo) {
                return Some(format!("accepted, but its HLO does not parse: {e}\n{hlo}"));
            }
            match to_stablehlo(&comp).map(|s| parse_stablehlo(&s)) {
                Ok(Err(e)) => Some(format!(
                    "accepted, but its StableHLO does not read back: {e}"
                )),
                Ok(Ok(_)) | Err(_) => None,
            }
        }
    }));
    let elapsed = start.elapsed();
    match outcome {
        Err(p) => Some(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
        Ok(Some(problem)) => Some(problem),
        Ok(None) if elapsed > PER_INPUT_LIMIT => Some(format!("took {elapsed:?}")),
        Ok(None) => None,
    }
}

fn save(input: &[u8], k: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stablehlo-fuzz");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("failure-{k}.mlir"));
    let _ = std::fs::write(&path, input);
    path
}

#[test]
fn nasty_inputs_are_refused_quickly_or_read() {
    for (k, input) in nasty().iter().enumerate() {
        if let Some(problem) = check(input) {
            panic!("nasty input {k} ({}): {problem}", save(input, k).display());
        }
    }
    // The doubling calls hit the instruction budget, not the memory.
    let doubling = nasty()
        .into_iter()
        .find(|n| n.windows(5).any(|w| w == b"@f30("))
        .unwrap();
    let err = parse_stablehlo(&String::from_utf8_lossy(&doubling))
        .unwrap_err()
        .to_string();
    assert!(err.contains("too many instructions"), "{err}");
}

#[test]
fn mutants_never_panic_or_hang() {
    let iterations = std::env::var("OXLA_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ITERATIONS);
    let seed: u64 = std::env::var("OXLA_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let done = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel();
    let counter = Arc::clone(&done);
    // Quiet the panic messages of inputs that are caught and reported.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let worker = std::thread::spawn(move || {
        let pool = corpus();
        let current = save(b"", 0).with_file_name("current.mlir");
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut failures = Vec::new();
        for k in 0..iterations {
            let base = &pool[rng.below(pool.len())];
            let mutant = mutate(&mut rng, base, &pool);
            // A stack overflow aborts the process before any report: the
            // input is on disk first.
            let _ = std::fs::write(&current, &mutant);
            if let Some(problem) = check(&mutant) {
                failures.push(format!(
                    "mutant {k} ({}): {problem}",
                    save(&mutant, k).display()
                ));
            }
            counter.store(k + 1, Ordering::Relaxed);
        }
        let _ = tx.send(failures);
    });
    // The watchdog: the run may take as long as it needs, one input may not.
    let (mut seen, mut since) = (usize::MAX, Instant::now());
    let result = loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(failures) => break Ok(failures),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err("the fuzzer thread died".to_string());
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let now = done.load(Ordering::Relaxed);
        if now != seen {
            (seen, since) = (now, Instant::now());
        } else if since.elapsed() > HANG_LIMIT {
            break Err(format!(
                "mutant {now} (seed {seed}) has run for {HANG_LIMIT:?}; it is in current.mlir"
            ));
        }
    };
    panic::set_hook(hook);
    match result {
        Ok(failures) => {
            let _ = worker.join();
            assert!(
                failures.is_empty(),
                "{} failure(s):\n{}",
                failures.len(),
                failures.join("\n")
            );
        }
        Err(why) => panic!("{why}"),
    }
}
