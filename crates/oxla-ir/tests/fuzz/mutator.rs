//! The mutation engine of the HLO fuzzers: a seeded xorshift generator and
//! the mutations that turn a corpus file into hostile input.
//!
//! It works on bytes, not on `&str`, so that a mutant may hold NUL bytes,
//! split UTF-8 sequences and invalid UTF-8; each fuzzer decides how such
//! bytes reach the code under test (the parser test reads them with
//! `String::from_utf8_lossy`, the CLI test writes them to a file as they
//! are). Everything is deterministic: the same seed gives the same mutants
//! on every machine, so a failure is reproduced from its seed and iteration.
//!
//! It is shared by `crates/oxla-ir/tests/fuzz_parser.rs` and
//! `crates/oxla-cli/tests/hostile.rs` through `#[path]`, and depends on
//! nothing but `std`.

// Each fuzzer uses a different part of this module.
#![allow(dead_code)]

/// xorshift64*: small, fast and seedable. Not for cryptography.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; 0 is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// `true` one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// HLO tokens inserted by the fuzzer: the syntax the parser branches on,
/// keywords, attribute names, and values at the edges of what it accepts.
pub const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    ":",
    "->",
    "%",
    "\"",
    "\\",
    "/*",
    "*/",
    "\n",
    " ",
    "ROOT ",
    "ENTRY ",
    "HloModule m\n",
    "f32[",
    "f32[]",
    "s32[2,3]{1,0}",
    "pred[",
    "u64[0]",
    "(f32[], s32[2])",
    "bf16[2]",
    "parameter(0)",
    "parameter(1)",
    "constant(",
    "constant({1, 2})",
    "constant(nan(0x1))",
    "add(",
    "reduce(",
    "fusion(",
    "copy(",
    "tuple(",
    "dot(",
    "iota()",
    "dimensions={",
    "dimensions={0}",
    "broadcast_dimensions={",
    "broadcast_dimensions={1}",
    "to_apply=",
    "calls=",
    "get-tuple-element(",
    "index=",
    "index=-1",
    "while(",
    "condition=",
    "body=",
    "conditional(",
    "branch_computations={",
    "true_computation=",
    "false_computation=",
    "opt-barrier(",
    "map(",
    "call(",
    "()",
    "slice={[0:2:0]}",
    "padding=0_0x1_1_1",
    "iota_dimension=",
    "direction=LT",
    "type=TOTALORDER",
    "type=SIGNED",
    "sort(",
    "is_stable=true",
    "topk(",
    "k=3",
    "largest=false",
    "lhs_contracting_dims={",
    "rhs_contracting_dims={1}",
    "metadata={op_name=\"x\"}",
    "gather(",
    "scatter(",
    "dynamic-slice(",
    "dynamic-update-slice(",
    "offset_dims={",
    "collapsed_slice_dims={0}",
    "start_index_map={1,0}",
    "operand_batching_dims={0}",
    "index_vector_dim=",
    "slice_sizes={",
    "update_window_dims={}",
    "input_batching_dims={",
    "dynamic_slice_sizes={2}",
    "indices_are_sorted=true",
    // The misc family's attributes and their edges.
    "exponent_bits=",
    "mantissa_bits=-1",
    "distribution=rng_normal",
    "algorithm=rng_philox",
    "lower=true",
    "transpose_a=ADJOINT",
    "left_side=",
    "epsilon=1e-05",
    "epsilon=nan",
    "feature_index=-1",
    "bitcast-convert(",
    "rng-bit-generator(",
    "{...}",
    "-1",
    "0",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "1099511627776",
    "-inf",
    "1e400",
    "\0",
    "é",
    "\u{FFFD}",
    "\u{1F600}",
    "FileNames\n",
    // The syntax XLA's parser accepts beyond the printer's.
    "//",
    "// a comment\n",
    "/*index=5*/",
    "HloModule m:\n",
    "negate(",
    "multiply(a, ",
    "f32[] constant(0)",
    "constant((",
    "(1, {2, 3})",
    "constant({...})",
    ",\n    ",
    "result_accuracy={mode=highest}",
    "result_accuracy={tolerance={ulps=",
    "type=TOTALORDER",
    "type=FLOAT",
    "algorithm=dot_f32_f32_f32",
    "operand_precision={highest,default}",
    "{1,0:T(8,128)(2,1)E(32)S(1)}",
    "{0:D(",
    "P(f32[2])",
    "entry_computation_layout={(",
    "input_output_alias={ {0}: (0, {}) }",
    "replica_count=",
    "execution_thread=\"main\"",
    "sharding={replicated}",
    "backend_config={\"k\":[",
    "frontend_attributes={\n",
    "control-predecessors={",
    "f32[<=3]",
    "all-reduce(",
    "get-tuple-element(",
];

/// Numbers that replace a number of the input.
pub const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "63",
    "64",
    "65",
    "127",
    "128",
    "-129",
    "255",
    "256",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "1048576",
    "1099511627776",
    "1099511627777",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999",
    "1e38",
    "3.5e38",
    "1e-45",
    "-0",
    "+7",
    "00",
    "0x10",
];

/// Bytes that replace a byte of the input: the parser's separators, NUL,
/// and bytes that are never valid UTF-8 on their own.
const BYTES: &[u8] = b"{}()[],=:%\"\\/*\n\r\t -_.0123456789xe\0\x7f\x80\xc3\xe2\xf0\xff";

/// The largest mutant the fuzzer builds; bigger inputs only slow it down.
pub const MAX_MUTANT_LEN: usize = 1 << 20;

/// Applies 1 to 4 random mutations to `input`; `other` is a second corpus
/// input for splicing. The result is at most [`MAX_MUTANT_LEN`] bytes.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        mutate_once(rng, &mut out, other);
        out.truncate(MAX_MUTANT_LEN);
    }
    out
}

fn mutate_once(rng: &mut Rng, b: &mut Vec<u8>, other: &[u8]) {
    let len = b.len();
    match rng.below(12) {
        // Flip one bit.
        0 if len > 0 => {
            let i = rng.below(len);
            b[i] ^= 1 << rng.below(8);
        }
        // Replace one byte.
        1 if len > 0 => {
            let i = rng.below(len);
            b[i] = *rng.pick(BYTES);
        }
        // Delete a span: short, or now and then a large part of the input.
        2 if len > 0 => {
            let i = rng.below(len);
            let n = if rng.one_in(8) {
                rng.below(len - i) + 1
            } else {
                1 + rng.below(16)
            };
            b.drain(i..(i + n).min(len));
        }
        // Insert a token, now and then many times (deep nesting, long runs).
        3 | 4 => {
            let token = rng.pick(TOKENS).as_bytes();
            let times = if rng.one_in(10) {
                1 + rng.below(2000)
            } else {
                1
            };
            let i = rng.below(len + 1);
            let insert: Vec<u8> = token.repeat(times);
            b.splice(i..i, insert);
        }
        // Splice: a prefix of this input, a suffix of the other.
        5 => {
            let i = rng.below(len + 1);
            let j = rng.below(other.len() + 1);
            b.truncate(i);
            b.extend_from_slice(&other[j..]);
        }
        // Duplicate a line, up to many times (thousands of instructions).
        6 => {
            let lines = line_spans(b);
            let (s, e) = *rng.pick(&lines);
            let times = if rng.one_in(10) {
                1 + rng.below(3000)
            } else {
                1
            };
            let line = b[s..e].to_vec();
            let mut copies = Vec::with_capacity(line.len() * times);
            for _ in 0..times {
                copies.extend_from_slice(&line);
            }
            b.splice(e..e, copies);
        }
        // Delete or swap lines.
        7 => {
            let lines = line_spans(b);
            let (s, e) = *rng.pick(&lines);
            if rng.one_in(2) {
                b.drain(s..e);
            } else {
                let (s2, e2) = *rng.pick(&lines);
                let (first, second) = if s <= s2 {
                    ((s, e), (s2, e2))
                } else {
                    ((s2, e2), (s, e))
                };
                if first.1 <= second.0 {
                    let mut swapped = b[..first.0].to_vec();
                    swapped.extend_from_slice(&b[second.0..second.1]);
                    swapped.extend_from_slice(&b[first.1..second.0]);
                    swapped.extend_from_slice(&b[first.0..first.1]);
                    swapped.extend_from_slice(&b[second.1..]);
                    *b = swapped;
                }
            }
        }
        // Replace a number (a dimension, an attribute, a value).
        8 | 9 => {
            let numbers = spans(b, |c| c.is_ascii_digit());
            if numbers.is_empty() {
                return;
            }
            let (s, e) = *rng.pick(&numbers);
            let n = rng.pick(NUMBERS).as_bytes().to_vec();
            b.splice(s..e, n);
        }
        // Replace a name by another name of the input: self-references,
        // cycles, calls into the entry or into a caller.
        10 => {
            let names = spans(b, |c| c.is_ascii_alphabetic() || c == b'_');
            if names.len() < 2 {
                return;
            }
            let (s, _) = *rng.pick(&names);
            let (s2, _) = *rng.pick(&names);
            let e = name_end(b, s);
            let name = b[s2..name_end(b, s2)].to_vec();
            b.splice(s..e, name);
        }
        // Cut inside a multi-byte character, or append raw bytes.
        _ => {
            let i = rng.below(len + 1);
            const JUNK: &[&[u8]] = &[
                b"\xc3",
                b"\xe2\x82",
                b"\xf0\x9f\x98",
                b"\xff\xfe",
                b"\0\0",
                b"\r",
                b"\t",
            ];
            let junk = *rng.pick(JUNK);
            b.splice(i..i, junk.iter().copied());
        }
    }
}

/// The byte spans of the lines of `b`, newline included; at least one.
fn line_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    out.push((start, b.len()));
    out
}

/// Maximal runs of bytes that satisfy `f`, starting where the byte before
/// does not (at most 4096 of them, spread over the input).
fn spans(b: &[u8], f: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() && out.len() < 4096 {
        if f(b[i]) {
            let s = i;
            while i < b.len() && f(b[i]) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// The end of the HLO name that starts at `s` (letters, digits, `_`, `.`,
/// `-`).
fn name_end(b: &[u8], s: usize) -> usize {
    let mut e = s;
    while e < b.len() && (b[e].is_ascii_alphanumeric() || matches!(b[e], b'_' | b'.' | b'-')) {
        e += 1;
    }
    e
}
