//! The HLO text parser: the inverse of [`crate::printer`].
//!
//! It reads HLO text as XLA and JAX print it, in both of XLA's forms:
//!
//! - the short form our printer writes (`add.2 = f32[2,3]{1,0} add(x, v)`),
//! - the long form of XLA's dumps (`%add = f32[2,3]{1,0} add(f32[2,3]{1,0}
//!   %x, f32[2,3]{1,0} %v)`, computation headers `%name (p: f32[]) -> f32[]`).
//!
//! What it ignores, because oxla does not model it: layouts (`{1,0}`), module
//! attributes (`entry_computation_layout=`, `is_scheduled=`, ...), the
//! `FileNames`/`FunctionNames`/`FileLocations`/`StackFrames` sections of
//! optimized dumps, and every instruction attribute that oxla has no field
//! for (`metadata=`, `backend_config=`, `sharding=`, `frontend_attributes=`,
//! `origin=`, the comparison `type=`, a fusion's `kind=`, ...). Those are
//! skipped as balanced brackets and strings, and must end on their line.
//!
//! Two XLA constructs are rewritten into oxla's IR as they are read:
//! - `fusion(...)`, calls=%f: the fused computation is inlined at the call
//!   site, its parameters replaced by the fusion's operands; its root takes
//!   the fusion's name. This runs XLA's optimized dumps.
//! - `copy(x)` is the identity once layouts are ignored: uses of the copy
//!   become uses of `x`.
//!
//! Every other XLA op oxla lacks (`get-tuple-element`, `dynamic-slice`, ...)
//! is a parse error at the opcode.
//!
//! Invariants:
//! - every computation the parser returns went through the same per-instruction
//!   shape inference ([`crate::shape_inference::infer_instruction_shape`]) as built
//!   ones, compared against the declared shape, and then through
//!   [`Computation::from_bodies`];
//! - instructions are put in definition order (a stable topological sort, so
//!   text that is already in order keeps its order) and called computations
//!   before their callers, entry last;
//! - `parse(print(c))` prints exactly as `print(c)`;
//! - no input panics, recurses without bound or allocates more than a small
//!   multiple of its own length: literals are read value by value and
//!   counted against their declared shape, never allocated from it; nesting
//!   (tuple shapes, literals, fusion inlining) is capped, and so is the
//!   number of instructions fusion inlining may copy.
//!
//! Errors are [`Error::Parse`] with the 1-based line and column, the source
//! line and a caret under the offending text, and what would have been
//! accepted there. [`parse_hlo_module_diagnostics`] returns every semantic
//! error found (one per independent root cause) rather than the first.
//!
//! ```
//! use oxla_ir::parse_hlo_module;
//! let text = "\
//! HloModule axpy, entry_computation_layout={(f32[], f32[4]{0})->f32[4]{0}}
//!
//! ENTRY %axpy (a: f32[], x: f32[4]) -> f32[4] {
//!   %a = f32[] parameter(0)
//!   %x = f32[4]{0} parameter(1)
//!   %b = f32[4]{0} broadcast(f32[] %a), dimensions={}, metadata={op_name=\"a\"}
//!   ROOT %m = f32[4]{0} multiply(f32[4]{0} %b, f32[4]{0} %x)
//! }
//! ";
//! let comp = parse_hlo_module(text)?;
//! assert_eq!(comp.name(), "axpy");
//! assert_eq!(comp.result_shape().to_string(), "f32[4]");
//! // The printer writes the short form; parsing that prints the same again.
//! let printed = comp.to_hlo_text();
//! assert_eq!(parse_hlo_module(&printed)?.to_hlo_text(), printed);
//!
//! let err = parse_hlo_module("HloModule m\n\nENTRY e {\n  ROOT x = f32[2] frobnicate()\n}\n")
//!     .unwrap_err();
//! assert!(err.to_string().starts_with("4:19: unknown opcode `frobnicate`"));
//! # Ok::<(), oxla_ir::Error>(())
//! ```

// `Error` is large by design (it carries shapes and source lines as data).
#![allow(clippy::result_large_err)]

// The attributes of the misc family.
mod misc;

use std::collections::{HashMap, HashSet};

use crate::Opcode;
use crate::ir::{
    BinaryOp, Body, ComparisonDirection, ComputationId, DotDimensionNumbers, InstId, Instruction,
    OpKind, PadDim,
};
use crate::shape::MAX_RANK;
use crate::shape_inference::infer_instruction_shape;
use crate::{ArrayData, Computation, ElementType, Error, Literal, Result, Shape};

/// The deepest nesting accepted for tuple shapes and for fusions inlined
/// into fusions.
const MAX_NESTING: usize = 64;

/// The fewest instructions fusion inlining may visit (and so create) in a
/// module; the budget grows with the module's text (16 per instruction).
/// A fused computation called from several places is copied at every call,
/// so calls that double at each level would otherwise make 2^depth copies.
const MIN_INLINE_BUDGET: usize = 1 << 14;

/// How many characters of a long source line an error shows on each side
/// of the column.
const SNIPPET_CONTEXT: usize = 60;

/// The most errors [`parse_hlo_module_diagnostics`] reports.
const MAX_ERRORS: usize = 50;

/// Parses HLO text into a verified [`Computation`]; the first error found is
/// returned (see [`parse_hlo_module_diagnostics`] for all of them).
pub fn parse_hlo_module(text: &str) -> Result<Computation> {
    parse_hlo_module_diagnostics(text).map_err(|errors| {
        errors.into_iter().next().unwrap_or_else(|| Error::Parse {
            line: 1,
            column: 1,
            message: "the module could not be parsed".into(),
            snippet: String::new(),
            caret: "^".into(),
            expected: "an HLO module".into(),
        })
    })
}

/// Parses HLO text into a verified [`Computation`], or returns every error
/// found (never an empty list). A syntax error stops parsing, so it comes
/// alone; semantic errors (undefined names, shapes that do not match what
/// the operands give) are collected, one per independent cause: an
/// instruction whose operand is already in error is not reported again.
///
/// ```
/// let text = "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
///             y = f32[3] negate(x)\n  ROOT z = s32[2] negate(x)\n}\n";
/// let errors = oxla_ir::parser::parse_hlo_module_diagnostics(text).unwrap_err();
/// assert_eq!(errors.len(), 2);
/// assert!(errors[0].to_string().starts_with("5:7: `y` declares shape f32[3]"));
/// ```
pub fn parse_hlo_module_diagnostics(text: &str) -> std::result::Result<Computation, Vec<Error>> {
    let src = Source::new(text);
    let module = Cursor::new(&src).module().map_err(|e| vec![e])?;
    Lowering::new(&src, &module).run()
}

/// Parses HLO text into a [`Computation`] that has **not** been verified, so
/// that text can describe a broken computation for the verifier to report
/// (`.hlo` test files do; see `docs/testing.md`).
///
/// The parser still checks what only text has: syntax, shapes as written,
/// names (undefined operands, duplicates, unknown called computations),
/// cycles, headers and fusions. What the verifier checks is left to it:
/// declared shapes are taken as written (no shape inference), operand
/// counts, parameter numbering and called signatures are not looked at, and
/// binary ops keep `broadcast_dimensions` exactly as written (the verified
/// parser drops an identity list on equal ranks). Errors are returned like
/// [`parse_hlo_module_diagnostics`]'s. Never hand the result to a backend
/// before [`crate::verifier::verify`] accepts it.
///
/// ```
/// use oxla_ir::{parser, verifier};
/// let text = "HloModule m\n\nENTRY e {\n  x = f32[2,3] parameter(0)\n  \
///             v = f32[3] parameter(1)\n  \
///             ROOT y = f32[2,3] add(x, v), broadcast_dimensions={0}\n}\n";
/// assert!(oxla_ir::parse_hlo_module(text).is_err());
/// let comp = parser::parse_hlo_module_unverified(text).expect("syntax and names are fine");
/// let err = verifier::verify(&comp).unwrap_err();
/// assert!(err.to_string().contains("Broadcast dimension 0 mismatch: 3 != 2"));
/// ```
pub fn parse_hlo_module_unverified(text: &str) -> std::result::Result<Computation, Vec<Error>> {
    let src = Source::new(text);
    let module = Cursor::new(&src).module().map_err(|e| vec![e])?;
    let mut lowering = Lowering::new(&src, &module);
    lowering.verify = false;
    lowering.run()
}

/// Parses a literal written in XLA's literal text: an array shape followed
/// by its values in HLO constant notation (`f32[] 1`, `s32[3] {1, 2, 3}`,
/// `f32[2,2] {{1, 2}, {3, 4}}`, `pred[2] {true, false}`), or a tuple of
/// literals in parentheses (`(f32[] 1, (s32[2] {1, 2}))`). Floats take
/// `inf`, `-inf`, `nan`, `-nan` and `nan(0x...)`. This is what
/// [`Literal`]'s `Display` prints, so `parse_literal(&x.to_string())` gives
/// `x` back. Leave a space between the shape and `{`: a brace right after
/// the `]` is read as a layout, as in HLO.
///
/// ```
/// use oxla_ir::{Literal, parser::parse_literal};
/// let x = parse_literal("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")?;
/// assert_eq!(x, Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?);
/// assert_eq!(parse_literal(&x.to_string())?, x);
/// let t = parse_literal("(f32[] 1, s32[2] {1, 2})")?;
/// assert_eq!(t.tuple_elements().map(<[Literal]>::len), Some(2));
/// assert!(parse_literal("s32[2] {1, 2, 3}").is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn parse_literal(text: &str) -> Result<Literal> {
    let src = Source::new(text);
    let mut cursor = Cursor::new(&src);
    let literal = cursor.literal_text(0)?;
    cursor.expect_done("the literal")?;
    Ok(literal)
}

// ---------------------------------------------------------------------------
// Source positions and errors
// ---------------------------------------------------------------------------

struct Source<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { text, line_starts }
    }

    /// The 1-based line of byte offset `pos`.
    fn line_of(&self, pos: usize) -> usize {
        match self.line_starts.binary_search(&pos) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// The 1-based column of byte offset `pos` (in characters).
    fn column_of(&self, pos: usize) -> usize {
        let start = self.line_starts[self.line_of(pos) - 1];
        self.text.get(start..pos).map_or(0, |p| p.chars().count()) + 1
    }

    /// A parse error at byte offset `pos`.
    fn error(&self, pos: usize, message: impl Into<String>, expected: impl Into<String>) -> Error {
        // Past the last visible character (end of input), point just after it.
        let visible_end = self.text.trim_end().len();
        let pos = if pos >= visible_end { visible_end } else { pos };
        let line = self.line_of(pos);
        let start = self.line_starts[line - 1];
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |e| start + e);
        let line_text = self.text[start..end].trim_end_matches('\r');
        let prefix = self.text.get(start..pos).unwrap_or("");
        let column = prefix.chars().count() + 1;
        // Long lines are shown as a window around the column.
        let chars: Vec<char> = line_text.chars().collect();
        let from = (column - 1).saturating_sub(SNIPPET_CONTEXT);
        let to = (column - 1 + SNIPPET_CONTEXT).min(chars.len());
        let mut snippet = String::new();
        let mut caret = String::new();
        if from > 0 {
            snippet.push_str("...");
            caret.push_str("   ");
        }
        snippet.extend(chars.get(from..to).unwrap_or(&[]));
        if to < chars.len() {
            snippet.push_str("...");
        }
        caret.extend(
            chars
                .get(from..column - 1)
                .unwrap_or(&[])
                .iter()
                .map(|&c| if c == '\t' { '\t' } else { ' ' }),
        );
        caret.push('^');
        Error::Parse {
            line,
            column,
            message: message.into(),
            snippet,
            caret,
            expected: expected.into(),
        }
    }
}

// ---------------------------------------------------------------------------
// Syntax: what the text says, before names are resolved
// ---------------------------------------------------------------------------

/// A name used at a position.
#[derive(Debug, Clone)]
struct NameRef {
    name: String,
    pos: usize,
}

/// An instruction's op as read: complete except for references to other
/// computations, which are resolved by name later.
#[derive(Debug, Clone)]
enum RawOp {
    Kind(OpKind),
    Reduce {
        dimensions: Vec<i64>,
        to_apply: NameRef,
    },
    Fusion {
        calls: NameRef,
    },
    Copy,
}

#[derive(Debug, Clone)]
struct RawOperand {
    name: NameRef,
    /// The shape written before the name in long form.
    shape: Option<(Shape, usize)>,
}

#[derive(Debug, Clone)]
struct RawInst {
    name: NameRef,
    is_root: bool,
    shape: Shape,
    shape_pos: usize,
    opcode: String,
    opcode_pos: usize,
    op: RawOp,
    operands: Vec<RawOperand>,
}

#[derive(Debug, Clone)]
struct Header {
    params: Vec<(Shape, usize)>,
    result: (Shape, usize),
    pos: usize,
}

#[derive(Debug, Clone)]
struct RawComp {
    name: NameRef,
    is_entry: bool,
    header: Option<Header>,
    insts: Vec<RawInst>,
    close_pos: usize,
}

#[derive(Debug)]
struct RawModule {
    name: String,
    comps: Vec<RawComp>,
    entry: usize,
}

/// An attribute as read: its key and the span of its value text.
struct RawAttr {
    key: NameRef,
    start: usize,
    end: usize,
}

/// The sections of optimized dumps that describe source locations.
const SECTIONS: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// Element types XLA has and oxla does not, for a precise message.
const XLA_ONLY_TYPES: &[&str] = &[
    "bf16",
    "f16",
    "c64",
    "c128",
    "s1",
    "s2",
    "s4",
    "u1",
    "u2",
    "u4",
    "f8e5m2",
    "f8e4m3fn",
    "f8e4m3b11fnuz",
    "f8e5m2fnuz",
    "f8e4m3fnuz",
    "f8e3m4",
    "f8e4m3",
    "token",
    "opaque",
];

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// A recursive-descent reader over `src.text[pos..end]`.
struct Cursor<'s, 'a> {
    src: &'s Source<'a>,
    bytes: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'s, 'a> Cursor<'s, 'a> {
    fn new(src: &'s Source<'a>) -> Cursor<'s, 'a> {
        Cursor {
            src,
            bytes: src.text.as_bytes(),
            pos: 0,
            end: src.text.len(),
        }
    }

    /// A cursor over the span `start..end` of the same source.
    fn sub(&self, start: usize, end: usize) -> Cursor<'s, 'a> {
        Cursor {
            src: self.src,
            bytes: self.bytes,
            pos: start,
            end,
        }
    }

    fn err(&self, pos: usize, message: impl Into<String>, expected: impl Into<String>) -> Error {
        self.src.error(pos, message, expected)
    }

    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        let i = self.pos + k;
        (i < self.end).then(|| self.bytes[i])
    }

    fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// What is at the cursor, for messages: `` `x` `` or "the end of the input".
    fn found(&self) -> String {
        if self.at_end() {
            return "the end of the input".into();
        }
        let rest = &self.src.text[self.pos..self.end];
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '%'))
            .take(40)
            .collect();
        if !word.is_empty() {
            return format!("`{word}`");
        }
        match rest.chars().next() {
            Some('\n') | Some('\r') => "the end of the line".into(),
            // A NUL or another control character would not show in the message.
            Some(c) if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
            None => "the end of the input".into(),
        }
    }

    /// Skips spaces, newlines and `/* ... */` comments.
    fn skip_ws(&mut self) -> Result<()> {
        self.skip_ws_impl(true)
    }

    /// Skips spaces and comments but stops at a newline.
    fn skip_inline_ws(&mut self) -> Result<()> {
        self.skip_ws_impl(false)
    }

    fn skip_ws_impl(&mut self, newlines: bool) -> Result<()> {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' if newlines => self.pos += 1,
                b'/' if self.peek_at(1) == Some(b'*') => {
                    let start = self.pos;
                    match self.src.text[self.pos + 2..self.end].find("*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => {
                            return Err(self.err(
                                start,
                                "unterminated comment",
                                "`*/` closing the comment",
                            ));
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Consumes whitespace and `s` if `s` comes next; otherwise moves
    /// nothing (so an error can point at the end of the previous token).
    fn eat(&mut self, s: &str) -> Result<bool> {
        let before = self.pos;
        self.skip_ws()?;
        if self.src.text[self.pos..self.end].starts_with(s) {
            self.pos += s.len();
            Ok(true)
        } else {
            self.pos = before;
            Ok(false)
        }
    }

    /// Skips whitespace and consumes `s`, or fails saying what it was for.
    fn expect(&mut self, s: &str, context: &str) -> Result<usize> {
        let before = self.pos;
        self.skip_ws()?;
        let pos = self.pos;
        if self.eat(s)? {
            return Ok(pos);
        }
        // When the line ends early, point at its end, where `s` is missing.
        let rest = self.src.text.get(before..pos).unwrap_or("");
        let (at, found) = if rest.contains('\n') || self.at_end() {
            let at = before + rest.find('\n').unwrap_or(rest.len());
            let found = if self.at_end() && !rest.contains('\n') {
                "the end of the input".to_string()
            } else {
                "the end of the line".to_string()
            };
            (at, found)
        } else {
            (pos, self.found())
        };
        Err(self.err(
            at,
            format!("expected `{s}` {context}, found {found}"),
            format!("`{s}` {context}"),
        ))
    }

    /// Consumes a keyword (a whole word) if it comes next.
    fn eat_keyword(&mut self, word: &str) -> Result<bool> {
        self.skip_ws()?;
        let rest = &self.src.text[self.pos..self.end];
        if rest.starts_with(word)
            && !rest
                .as_bytes()
                .get(word.len())
                .is_some_and(|&c| is_name_char(c))
        {
            self.pos += word.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// The word at the cursor (`[A-Za-z_][A-Za-z0-9_.-]*`), not consumed.
    fn peek_word(&self) -> &'a str {
        let text: &'a str = self.src.text;
        let bytes = self.bytes;
        let mut i = self.pos;
        if i < self.end && is_name_start(bytes[i]) {
            i += 1;
            while i < self.end && is_name_char(bytes[i]) {
                i += 1;
            }
        }
        &text[self.pos..i]
    }

    /// An HLO name, with or without its `%`.
    fn name(&mut self, what: &str) -> Result<NameRef> {
        self.skip_ws()?;
        let pos = self.pos;
        if self.peek() == Some(b'%') {
            self.pos += 1;
        }
        let word = self.peek_word();
        if word.is_empty() {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (letters, digits, `_`, `.`, `-`, not starting with a digit)"),
            ));
        }
        self.pos += word.len();
        Ok(NameRef {
            name: word.to_string(),
            pos,
        })
    }

    /// An integer (`-12`), as `i64`.
    fn int(&mut self, what: &str) -> Result<(i64, usize)> {
        self.skip_ws()?;
        let pos = self.pos;
        let mut i = self.pos;
        if i < self.end && matches!(self.bytes[i], b'-' | b'+') {
            i += 1;
        }
        let digits_start = i;
        while i < self.end && self.bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == digits_start {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (an integer)"),
            ));
        }
        let text = &self.src.text[pos..i];
        let value = text.parse::<i64>().map_err(|_| {
            self.err(
                pos,
                format!("{what} {text} does not fit in 64 bits"),
                format!("{what} between {} and {}", i64::MIN, i64::MAX),
            )
        })?;
        self.pos = i;
        Ok((value, pos))
    }

    /// Requires that nothing but whitespace is left.
    fn expect_done(&mut self, what: &str) -> Result<()> {
        self.skip_ws()?;
        if self.at_end() {
            Ok(())
        } else {
            Err(self.err(
                self.pos,
                format!("unexpected {} after {what}", self.found()),
                format!("the end of {what}"),
            ))
        }
    }

    // -- module structure --------------------------------------------------

    fn module(&mut self) -> Result<RawModule> {
        self.skip_ws()?;
        if !self.eat_keyword("HloModule")? {
            return Err(self.err(
                self.pos,
                format!(
                    "an HLO module starts with `HloModule <name>`, found {}",
                    self.found()
                ),
                "`HloModule`",
            ));
        }
        let name = self.name("the module name")?;
        // Module attributes (entry_computation_layout=..., is_scheduled=...).
        self.skip_inline_ws()?;
        while self.peek() == Some(b',') {
            self.pos += 1;
            self.attribute()?;
            self.skip_inline_ws()?;
        }
        let mut comps: Vec<RawComp> = Vec::new();
        loop {
            self.skip_ws()?;
            if self.at_end() {
                break;
            }
            let word = self.peek_word();
            if SECTIONS.contains(&word) && self.rest_of_line_blank(word.len()) {
                self.skip_section();
                continue;
            }
            comps.push(self.computation()?);
        }
        if comps.is_empty() {
            return Err(self.err(
                self.pos,
                format!("the module `{}` has no computations", name.name),
                "a computation, such as `ENTRY main { ... }`",
            ));
        }
        let mut entry = None;
        for (i, c) in comps.iter().enumerate() {
            if c.is_entry {
                if let Some(first) = entry {
                    let first: &RawComp = &comps[first];
                    return Err(self.err(
                        c.name.pos,
                        format!(
                            "a second ENTRY computation `{}`; `{}` (line {}) is already the entry",
                            c.name.name,
                            first.name.name,
                            self.src.line_of(first.name.pos)
                        ),
                        "one computation marked ENTRY",
                    ));
                }
                entry = Some(i);
            }
        }
        // XLA takes the last computation when none is marked.
        let entry = entry.unwrap_or(comps.len() - 1);
        Ok(RawModule {
            name: name.name,
            comps,
            entry,
        })
    }

    /// `true` if only blanks follow the next `skip` bytes on this line.
    fn rest_of_line_blank(&self, skip: usize) -> bool {
        let start = (self.pos + skip).min(self.end);
        let rest = &self.src.text[start..self.end];
        let line = rest.split('\n').next().unwrap_or("");
        line.trim().is_empty()
    }

    /// Skips a source-location section: its keyword line, then every line
    /// that is blank or starts with a number.
    fn skip_section(&mut self) {
        let mut first = true;
        while !self.at_end() {
            let rest = &self.src.text[self.pos..self.end];
            let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
            let trimmed = rest[..line_len].trim_start();
            if !first && !trimmed.is_empty() && !trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                return;
            }
            first = false;
            self.pos += line_len;
        }
    }

    fn computation(&mut self) -> Result<RawComp> {
        let is_entry = self.eat_keyword("ENTRY")?;
        self.skip_ws()?;
        let name = self.name("a computation name")?;
        self.skip_ws()?;
        let mut header = None;
        if self.peek() == Some(b'(') {
            let pos = self.pos;
            self.pos += 1;
            let mut params = Vec::new();
            if !self.eat(")")? {
                loop {
                    self.name("a parameter name")?;
                    self.expect(":", "after the parameter name")?;
                    params.push(self.shape(0)?);
                    if self.eat(")")? {
                        break;
                    }
                    self.expect(",", "or `)` in the parameter list")?;
                }
            }
            self.expect("->", "before the result shape")?;
            let result = self.shape(0)?;
            header = Some(Header {
                params,
                result,
                pos,
            });
        }
        // Computation attributes (execution_thread=...).
        while self.eat(",")? {
            self.attribute()?;
        }
        self.skip_ws()?;
        if self.peek() != Some(b'{') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected `{{` opening the body of computation `{}`, found {}",
                    name.name,
                    self.found()
                ),
                "`{`",
            ));
        }
        self.pos += 1;
        let mut insts = Vec::new();
        loop {
            self.skip_ws()?;
            if self.peek() == Some(b'}') {
                let close_pos = self.pos;
                self.pos += 1;
                return Ok(RawComp {
                    name,
                    is_entry,
                    header,
                    insts,
                    close_pos,
                });
            }
            if self.at_end() {
                return Err(self.err(
                    self.pos,
                    format!(
                        "computation `{}` (line {}) is not closed",
                        name.name,
                        self.src.line_of(name.pos)
                    ),
                    "`}` closing the computation",
                ));
            }
            insts.push(self.instruction()?);
        }
    }

    /// `key=value`; the value is skipped as balanced text ending at a
    /// top-level `,`, a closing bracket or the end of the line.
    fn attribute(&mut self) -> Result<RawAttr> {
        self.skip_ws()?;
        let key = self.name("an attribute name")?;
        self.skip_inline_ws()?;
        if self.peek() != Some(b'=') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected `=` after attribute `{}`, found {}",
                    key.name,
                    self.found()
                ),
                "`=`",
            ));
        }
        self.pos += 1;
        self.skip_inline_ws()?;
        let start = self.pos;
        let mut stack: Vec<(u8, usize)> = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'"' => self.skip_string(&key.name)?,
                b'{' | b'[' | b'(' => {
                    stack.push((c, self.pos));
                    self.pos += 1;
                }
                b'}' | b']' | b')' => {
                    let Some(&(open, open_pos)) = stack.last() else {
                        break;
                    };
                    let want = match open {
                        b'{' => b'}',
                        b'[' => b']',
                        _ => b')',
                    };
                    if c != want {
                        return Err(self.err(
                            self.pos,
                            format!(
                                "`{}` does not match the `{}` at column {} in the value of attribute `{}`",
                                c as char,
                                open as char,
                                self.src.column_of(open_pos),
                                key.name
                            ),
                            format!("`{}`", want as char),
                        ));
                    }
                    stack.pop();
                    self.pos += 1;
                }
                b'\n' => break,
                // At the top level a value ends at `,` or a blank.
                b',' | b' ' | b'\t' | b'\r' if stack.is_empty() => break,
                _ => self.pos += 1,
            }
        }
        if let Some(&(open, open_pos)) = stack.last() {
            let close = match open {
                b'{' => '}',
                b'[' => ']',
                _ => ')',
            };
            return Err(self.err(
                open_pos,
                format!(
                    "unterminated `{}` in the value of attribute `{}`",
                    open as char, key.name
                ),
                format!("`{close}` before the end of the line"),
            ));
        }
        let end = start + self.src.text[start..self.pos].trim_end().len();
        Ok(RawAttr { key, start, end })
    }

    /// Skips a `"..."` string with `\` escapes; it must end on its line.
    fn skip_string(&mut self, context: &str) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\n' => break,
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.end);
        Err(self.err(
            start,
            format!("unterminated string in the value of attribute `{context}`"),
            "`\"` before the end of the line",
        ))
    }

    // -- shapes and literals -----------------------------------------------

    /// A shape with an optional layout: `f32[2,3]{1,0}`, `pred[]`,
    /// `(f32[2]{0}, s32[])`. Validated.
    fn shape(&mut self, depth: usize) -> Result<(Shape, usize)> {
        self.skip_ws()?;
        let pos = self.pos;
        if depth > MAX_NESTING {
            return Err(self.err(
                pos,
                format!("tuple shapes nest deeper than {MAX_NESTING} levels"),
                "a shallower shape",
            ));
        }
        if self.peek() == Some(b'(') {
            self.pos += 1;
            let mut elements = Vec::new();
            if !self.eat(")")? {
                loop {
                    elements.push(self.shape(depth + 1)?.0);
                    if self.eat(")")? {
                        break;
                    }
                    self.expect(",", "or `)` in the tuple shape")?;
                }
            }
            return Ok((Shape::tuple(elements), pos));
        }
        let word = self.peek_word();
        let element_type = match ElementType::from_name(word) {
            Some(t) if self.peek_at(word.len()) == Some(b'[') => t,
            _ if XLA_ONLY_TYPES.contains(&word) => {
                return Err(self.err(
                    pos,
                    format!("element type `{word}` is not supported by oxla"),
                    "one of pred, s8, s16, s32, s64, u8, u16, u32, u64, f32, f64",
                ));
            }
            _ => {
                return Err(self.err(
                    pos,
                    format!("expected a shape, found {}", self.found()),
                    "a shape such as `f32[2,3]`, `pred[]` or `(f32[2], s32[])`",
                ));
            }
        };
        self.pos += word.len() + 1;
        let mut dims = Vec::new();
        self.skip_ws()?;
        if self.peek() != Some(b']') {
            loop {
                self.skip_ws()?;
                if matches!(self.peek(), Some(b'<') | Some(b'?')) {
                    return Err(self.err(
                        self.pos,
                        "dynamic dimensions (`<=N`, `?`) are not supported by oxla",
                        "a static dimension size",
                    ));
                }
                if dims.len() >= MAX_RANK {
                    return Err(self.err(
                        self.pos,
                        format!("the shape has more than {MAX_RANK} dimensions"),
                        format!("at most {MAX_RANK} dimensions"),
                    ));
                }
                dims.push(self.int("a dimension size")?.0);
                if self.eat("]")? {
                    break;
                }
                self.expect(",", "or `]` in the dimension list")?;
            }
        } else {
            self.pos += 1;
        }
        // A layout follows immediately: `{1,0}`, `{1,0:T(8,128)}`.
        if self.peek() == Some(b'{') {
            let open = self.pos;
            let mut depth = 0usize;
            while let Some(c) = self.peek() {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            self.pos += 1;
                            break;
                        }
                    }
                    b'\n' => break,
                    _ => {}
                }
                self.pos += 1;
            }
            if depth != 0 {
                return Err(self.err(open, "unterminated layout `{`", "`}` closing the layout"));
            }
        }
        let shape = Shape::new(element_type, &dims);
        shape.validate().map_err(|e| {
            self.err(
                pos,
                e.to_string(),
                "a shape with non-negative sizes and at most 2^40 elements",
            )
        })?;
        Ok((shape, pos))
    }

    /// The value of a `constant(...)` of `shape`: `7`, `{1, 2}`,
    /// `{ { 1, 2 }, { 3, 4 } }`.
    fn literal(&mut self, shape: &Shape) -> Result<Literal> {
        self.skip_ws()?;
        if shape.is_tuple() {
            // As the builder: a tuple of constants says the same thing.
            return Err(self.err(
                self.pos,
                format!("tuple constants ({shape}) are not supported"),
                "an array constant; build a tuple of constants instead",
            ));
        }
        let mut data = ArrayData::zeros(shape.element_type(), 0).ok_or_else(|| {
            self.err(
                self.pos,
                format!("a literal cannot have shape {shape}"),
                "an array shape",
            )
        })?;
        let pos = self.pos;
        if shape.rank() == 0 {
            if self.peek() == Some(b'{') {
                return Err(self.err(
                    pos,
                    format!("a scalar literal of shape {shape} has no braces"),
                    "a single value such as `1`",
                ));
            }
            self.value(&mut data, shape)?;
        } else {
            self.literal_group(shape, 0, &mut data)?;
        }
        Literal::from_array_data(shape.dims(), data)
            .map_err(|e| self.err(pos, e.to_string(), format!("a literal of shape {shape}")))
    }

    /// A literal in XLA's literal text: a shape and its values, or a
    /// parenthesised tuple of literals (see [`parse_literal`]).
    fn literal_text(&mut self, depth: usize) -> Result<Literal> {
        self.skip_ws()?;
        if depth > MAX_NESTING {
            return Err(self.err(
                self.pos,
                format!("tuple literals nest deeper than {MAX_NESTING} levels"),
                "a shallower literal",
            ));
        }
        if self.eat("(")? {
            let mut elements = Vec::new();
            if !self.eat(")")? {
                loop {
                    elements.push(self.literal_text(depth + 1)?);
                    if self.eat(")")? {
                        break;
                    }
                    self.expect(",", "or `)` in the tuple literal")?;
                }
            }
            return Ok(Literal::tuple(elements));
        }
        let (shape, _) = self.shape(depth)?;
        self.literal(&shape)
    }

    /// One `{ ... }` level of an array literal: `dims[dim]` items, each a
    /// nested group or (innermost) a value.
    fn literal_group(&mut self, shape: &Shape, dim: usize, data: &mut ArrayData) -> Result<()> {
        let dims = shape.dims();
        self.skip_ws()?;
        let open = self.pos;
        if self.peek() != Some(b'{') {
            return Err(self.err(
                open,
                format!(
                    "expected `{{` for dimension {dim} of the {shape} literal, found {}",
                    self.found()
                ),
                format!(
                    "`{{`: a literal of rank {} nests {} levels of braces",
                    dims.len(),
                    dims.len()
                ),
            ));
        }
        self.pos += 1;
        let n = dims[dim];
        let mut count: i64 = 0;
        if !self.eat("}")? {
            loop {
                self.skip_ws()?;
                if count == n {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "too many elements: dimension {dim} of the {shape} literal has size {n}"
                        ),
                        "`}`",
                    ));
                }
                if dim + 1 < dims.len() {
                    self.literal_group(shape, dim + 1, data)?;
                } else {
                    self.value(data, shape)?;
                }
                count += 1;
                if self.eat("}")? {
                    break;
                }
                self.expect(",", &format!("or `}}` in the {shape} literal"))?;
            }
        }
        if count != n {
            return Err(self.err(
                open,
                format!(
                    "dimension {dim} of the {shape} literal has size {n}, but this group has {count} element(s) (the shape has {} elements in all)",
                    shape.element_count()
                ),
                format!("{n} element(s) in this group"),
            ));
        }
        Ok(())
    }

    /// One value of an array literal, appended to `data`.
    fn value(&mut self, data: &mut ArrayData, shape: &Shape) -> Result<()> {
        self.skip_ws()?;
        let pos = self.pos;
        let mut i = self.pos;
        while i < self.end
            && (self.bytes[i].is_ascii_alphanumeric() || b".+-_".contains(&self.bytes[i]))
        {
            i += 1;
        }
        // A NaN with its payload: `nan(0x7fc00001)`.
        let word = &self.src.text[pos..i];
        if matches!(word, "nan" | "-nan" | "+nan") && i < self.end && self.bytes[i] == b'(' {
            while i < self.end && self.bytes[i] != b')' && self.bytes[i] != b'\n' {
                i += 1;
            }
            if i < self.end && self.bytes[i] == b')' {
                i += 1;
            }
        }
        let token = &self.src.text[pos..i];
        if token.starts_with("...") {
            return Err(self.err(
                pos,
                "the constant's values were elided (`{...}`) when this module was printed",
                "every value of the constant (print the module with large constants in full)",
            ));
        }
        if token.is_empty() {
            return Err(self.err(
                pos,
                format!(
                    "expected a value of type {}, found {}",
                    shape.element_type(),
                    self.found()
                ),
                format!("a value of type {}", shape.element_type()),
            ));
        }
        push_value(data, token).map_err(|(message, expected)| self.err(pos, message, expected))?;
        self.pos = i;
        Ok(())
    }

    // -- instructions --------------------------------------------------------

    fn instruction(&mut self) -> Result<RawInst> {
        let is_root = self.eat_keyword("ROOT")?;
        let name = self.name("an instruction name")?;
        self.expect("=", &format!("after the instruction name `{}`", name.name))?;
        let (shape, shape_pos) = self.shape(0)?;
        self.skip_ws()?;
        let opcode_pos = self.pos;
        let opcode = self.peek_word().to_string();
        if opcode.is_empty() {
            return Err(self.err(
                opcode_pos,
                format!("expected an opcode, found {}", self.found()),
                "an opcode such as `add` or `broadcast`",
            ));
        }
        let Some(template) = op_template(&opcode) else {
            let message = if crate::opcode::XLA_ONLY_OPCODES.contains(&opcode.as_str()) {
                format!("unsupported op `{opcode}`: oxla's IR has no such op")
            } else {
                format!("unknown opcode `{opcode}`")
            };
            return Err(self.err(opcode_pos, message, supported_ops_text()));
        };
        self.pos += opcode.len();
        self.expect("(", &format!("after the opcode `{opcode}`"))?;
        let mut operands = Vec::new();
        let mut number = 0;
        let mut literal = None;
        match template.operand_syntax() {
            OperandSyntax::ParameterNumber => {
                number = self.int("a parameter number")?.0;
                self.expect(")", "after the parameter number")?;
            }
            OperandSyntax::Literal => {
                literal = Some(self.literal(&shape)?);
                self.expect(")", "after the constant's value")?;
            }
            OperandSyntax::Operands => {
                if !self.eat(")")? {
                    loop {
                        operands.push(self.operand()?);
                        if self.eat(")")? {
                            break;
                        }
                        self.expect(",", "or `)` in the operand list")?;
                    }
                }
            }
        }
        let mut attrs: Vec<RawAttr> = Vec::new();
        while self.eat(",")? {
            let attr = self.attribute()?;
            if let Some(first) = attrs.iter().find(|a| a.key.name == attr.key.name) {
                return Err(self.err(
                    attr.key.pos,
                    format!(
                        "attribute `{}` is given twice (first at column {})",
                        attr.key.name,
                        self.src.column_of(first.key.pos)
                    ),
                    "each attribute once",
                ));
            }
            attrs.push(attr);
        }
        let attrs = Attrs {
            cursor: self,
            attrs,
            opcode: &opcode,
            opcode_pos,
        };
        let op = attrs.op(template, number, literal)?;
        Ok(RawInst {
            name,
            is_root,
            shape,
            shape_pos,
            opcode,
            opcode_pos,
            op,
            operands,
        })
    }

    /// An operand: a name, preceded by its shape in long form.
    fn operand(&mut self) -> Result<RawOperand> {
        self.skip_ws()?;
        let word = self.peek_word();
        let long_form = self.peek() == Some(b'(')
            || (!word.is_empty() && self.peek_at(word.len()) == Some(b'['));
        let shape = if long_form {
            Some(self.shape(0)?)
        } else {
            None
        };
        let name = self.name("an operand name")?;
        Ok(RawOperand { name, shape })
    }

    // -- attribute values ----------------------------------------------------

    /// `{0,2}`.
    fn dims_list(&mut self, what: &str) -> Result<Vec<i64>> {
        self.expect("{", &format!("opening the {what} list"))?;
        let mut dims = Vec::new();
        if self.eat("}")? {
            return Ok(dims);
        }
        loop {
            dims.push(self.int(&format!("a dimension number in {what}"))?.0);
            if self.eat("}")? {
                return Ok(dims);
            }
            self.expect(",", &format!("or `}}` in the {what} list"))?;
        }
    }

    /// `{[0:2], [1:3:2]}`.
    fn slice_spec(&mut self) -> Result<(Vec<i64>, Vec<i64>, Vec<i64>)> {
        self.expect("{", "opening the slice list")?;
        let (mut starts, mut limits, mut strides) = (vec![], vec![], vec![]);
        if self.eat("}")? {
            return Ok((starts, limits, strides));
        }
        loop {
            self.expect("[", "opening a `[start:limit:stride]` range")?;
            starts.push(self.int("a slice start")?.0);
            self.expect(":", "after the slice start")?;
            limits.push(self.int("a slice limit")?.0);
            strides.push(if self.eat(":")? {
                self.int("a slice stride")?.0
            } else {
                1
            });
            self.expect("]", "closing the slice range")?;
            if self.eat("}")? {
                return Ok((starts, limits, strides));
            }
            self.expect(",", "or `}` in the slice list")?;
        }
    }

    /// `0_0x1_2_1`: `lo_hi` or `lo_hi_interior` per dimension.
    fn padding_spec(&mut self) -> Result<Vec<PadDim>> {
        let mut config = Vec::new();
        self.skip_ws()?;
        if self.at_end() {
            return Ok(config);
        }
        loop {
            let lo = self.int("the low padding")?.0;
            self.expect("_", "between low and high padding")?;
            let hi = self.int("the high padding")?.0;
            let interior = if self.eat("_")? {
                self.int("the interior padding")?.0
            } else {
                0
            };
            config.push(PadDim { lo, hi, interior });
            self.skip_ws()?;
            if self.at_end() {
                return Ok(config);
            }
            self.expect("x", "between the paddings of two dimensions")?;
        }
    }
}

/// Appends the value `token` to `data`, or says why it does not fit:
/// `(message, expected)`.
fn push_value(data: &mut ArrayData, token: &str) -> std::result::Result<(), (String, String)> {
    fn int<T: TryFrom<i128>>(token: &str, ty: &str) -> std::result::Result<T, (String, String)> {
        let numeric = token.trim_start_matches(['-', '+']);
        let v = if !numeric.is_empty() && numeric.bytes().all(|b| b.is_ascii_digit()) {
            token.parse::<i128>().ok()
        } else {
            None
        };
        let Some(v) = v else {
            return Err((
                format!("`{token}` is not a valid {ty} value"),
                format!("an integer ({ty})"),
            ));
        };
        T::try_from(v).map_err(|_| {
            (
                format!("{token} is out of range for {ty}"),
                format!("an integer that fits in {ty}"),
            )
        })
    }
    match data {
        ArrayData::Pred(v) => v.push(match token {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => {
                return Err((
                    format!("`{token}` is not a pred value"),
                    "`true` or `false`".into(),
                ));
            }
        }),
        ArrayData::S8(v) => v.push(int(token, "s8")?),
        ArrayData::S16(v) => v.push(int(token, "s16")?),
        ArrayData::S32(v) => v.push(int(token, "s32")?),
        ArrayData::S64(v) => v.push(int(token, "s64")?),
        ArrayData::U8(v) => v.push(int(token, "u8")?),
        ArrayData::U16(v) => v.push(int(token, "u16")?),
        ArrayData::U32(v) => v.push(int(token, "u32")?),
        ArrayData::U64(v) => v.push(int(token, "u64")?),
        ArrayData::F32(v) => v.push(match parse_float(token, 23) {
            Some(FloatValue::Number) => token
                .parse::<f32>()
                .map_err(|_| float_error(token, "f32"))?,
            Some(FloatValue::Bits(negative, payload)) => {
                let bits = (u32::from(negative) << 31) | 0x7f80_0000 | payload as u32;
                f32::from_bits(bits)
            }
            None => return Err(float_error(token, "f32")),
        }),
        ArrayData::F64(v) => v.push(match parse_float(token, 52) {
            Some(FloatValue::Number) => token
                .parse::<f64>()
                .map_err(|_| float_error(token, "f64"))?,
            Some(FloatValue::Bits(negative, payload)) => {
                let bits = (u64::from(negative) << 63) | 0x7ff0_0000_0000_0000 | payload;
                f64::from_bits(bits)
            }
            None => return Err(float_error(token, "f64")),
        }),
    }
    Ok(())
}

fn float_error(token: &str, ty: &str) -> (String, String) {
    (
        format!("`{token}` is not a valid {ty} value"),
        "a number such as `1`, `-2.5`, `1e-05`, or `inf`, `-inf`, `nan`".into(),
    )
}

enum FloatValue {
    /// Decimal text for `str::parse`.
    Number,
    /// An infinity (payload 0) or NaN: sign and mantissa bits.
    Bits(bool, u64),
}

/// Classifies a float token: decimal text, `inf`, `nan`, `nan(0x...)`.
fn parse_float(token: &str, mantissa_bits: u32) -> Option<FloatValue> {
    let (negative, body) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let quiet = 1u64 << (mantissa_bits - 1);
    match body {
        "inf" => return Some(FloatValue::Bits(negative, 0)),
        "nan" => return Some(FloatValue::Bits(negative, quiet)),
        _ => {}
    }
    if let Some(hex) = body
        .strip_prefix("nan(0x")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        let payload = u64::from_str_radix(hex, 16).ok()?;
        if payload == 0 || payload >= 1u64 << mantissa_bits {
            return None;
        }
        return Some(FloatValue::Bits(negative, payload));
    }
    let ok = !body.is_empty()
        && body.as_bytes()[0] != b'+'
        && body.as_bytes()[0] != b'-'
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && body.bytes().any(|b| b.is_ascii_digit());
    ok.then_some(FloatValue::Number)
}

/// What an opcode becomes before its attributes are read.
#[derive(Debug, Clone, Copy)]
enum Template {
    /// An op of the op table.
    Op(Opcode),
    Fusion,
    /// `call(...), to_apply=f`: what JAX prints for a nested jit; inlined
    /// like a fusion.
    Call,
    Copy,
}

/// What stands between an opcode's parentheses.
enum OperandSyntax {
    /// `parameter(0)`.
    ParameterNumber,
    /// `constant({1, 2})`.
    Literal,
    /// `add(x, y)`: operand names, each optionally after its shape.
    Operands,
}

impl Template {
    fn operand_syntax(self) -> OperandSyntax {
        let opcode = match self {
            Template::Fusion | Template::Call | Template::Copy => return OperandSyntax::Operands,
            Template::Op(opcode) => opcode,
        };
        match opcode {
            Opcode::Parameter => OperandSyntax::ParameterNumber,
            Opcode::Constant => OperandSyntax::Literal,
            Opcode::Iota
            | Opcode::Unary(_)
            | Opcode::Binary(_)
            | Opcode::Compare
            | Opcode::Convert
            | Opcode::Select
            | Opcode::Clamp
            | Opcode::Broadcast
            | Opcode::Reshape
            | Opcode::Transpose
            | Opcode::Slice
            | Opcode::Concatenate
            | Opcode::Reverse
            | Opcode::Pad
            | Opcode::Reduce
            | Opcode::Dot
            | Opcode::Tuple
            | Opcode::BitcastConvert
            | Opcode::Bitcast
            | Opcode::ReducePrecision
            | Opcode::Rng
            | Opcode::RngBitGenerator
            | Opcode::Cholesky
            | Opcode::TriangularSolve
            | Opcode::BatchNormTraining
            | Opcode::BatchNormInference
            | Opcode::BatchNormGrad => OperandSyntax::Operands,
        }
    }
}

/// Opcodes the parser reads that are not ops of the IR: their computations
/// are inlined (`fusion`, `call`) or they are dropped (`copy`).
const INLINED_OPCODES: [(&str, Template); 3] = [
    ("fusion", Template::Fusion),
    ("call", Template::Call),
    ("copy", Template::Copy),
];

/// The op an opcode names; `None` for an opcode oxla does not have. The
/// spellings come from the op table ([`Opcode::from_name`]).
fn op_template(opcode: &str) -> Option<Template> {
    match INLINED_OPCODES.iter().find(|(name, _)| *name == opcode) {
        Some((_, template)) => Some(*template),
        None => Opcode::from_name(opcode).map(Template::Op),
    }
}

/// The list of opcodes oxla reads, for "expected" texts.
fn supported_ops_text() -> String {
    let mut names: Vec<&str> = Opcode::ALL.iter().map(|op| op.name()).collect();
    names.extend(INLINED_OPCODES.iter().map(|(name, _)| *name));
    format!("an opcode oxla supports: {}", names.join(", "))
}

/// An instruction's attributes, interpreted for its op.
struct Attrs<'c, 's, 'a> {
    cursor: &'c Cursor<'s, 'a>,
    attrs: Vec<RawAttr>,
    opcode: &'c str,
    opcode_pos: usize,
}

impl<'s, 'a> Attrs<'_, 's, 'a> {
    /// A cursor over the value of `key`, if given.
    fn get(&self, key: &str) -> Option<Cursor<'s, 'a>> {
        self.attrs
            .iter()
            .find(|a| a.key.name == key)
            .map(|a| self.cursor.sub(a.start, a.end))
    }

    fn missing(&self, key: &str, example: &str) -> Error {
        self.cursor.err(
            self.opcode_pos,
            format!("`{}` needs the attribute `{key}`", self.opcode),
            format!("`, {key}={example}` after the operands"),
        )
    }

    fn dims(&self, key: &str) -> Result<Option<Vec<i64>>> {
        let Some(mut c) = self.get(key) else {
            return Ok(None);
        };
        let dims = c.dims_list(key)?;
        c.expect_done(&format!("the `{key}` list"))?;
        Ok(Some(dims))
    }

    fn required_dims(&self, key: &str) -> Result<Vec<i64>> {
        self.dims(key)?.ok_or_else(|| self.missing(key, "{0}"))
    }

    fn name(&self, key: &str) -> Result<NameRef> {
        let mut c = self
            .get(key)
            .ok_or_else(|| self.missing(key, "%computation"))?;
        let name = c.name(&format!("a computation name for `{key}`"))?;
        c.expect_done(&format!("the `{key}` computation name"))?;
        Ok(name)
    }

    /// The op an instruction with these attributes performs.
    fn op(&self, template: Template, number: i64, literal: Option<Literal>) -> Result<RawOp> {
        let opcode = match template {
            Template::Fusion => {
                return Ok(RawOp::Fusion {
                    calls: self.name("calls")?,
                });
            }
            Template::Call => {
                return Ok(RawOp::Fusion {
                    calls: self.name("to_apply")?,
                });
            }
            Template::Copy => return Ok(RawOp::Copy),
            Template::Op(opcode) => opcode,
        };
        Ok(RawOp::Kind(match opcode {
            Opcode::Parameter => OpKind::Parameter { number },
            Opcode::Constant => OpKind::Constant {
                literal: literal.unwrap_or_else(|| Literal::scalar(false)),
            },
            Opcode::Iota => {
                let mut c = self
                    .get("iota_dimension")
                    .ok_or_else(|| self.missing("iota_dimension", "0"))?;
                let dimension = c.int("the iota dimension")?.0;
                c.expect_done("the iota dimension")?;
                OpKind::Iota { dimension }
            }
            Opcode::Unary(op) => OpKind::Unary(op),
            Opcode::Binary(op) => OpKind::Binary {
                op,
                broadcast_dimensions: self.dims("broadcast_dimensions")?.unwrap_or_default(),
            },
            Opcode::Compare => {
                let op = {
                    let mut c = self
                        .get("direction")
                        .ok_or_else(|| self.missing("direction", "LT"))?;
                    c.skip_ws()?;
                    let pos = c.pos;
                    let word = c.peek_word();
                    let dir = ComparisonDirection::from_name(word).ok_or_else(|| {
                        c.err(
                            pos,
                            format!("unknown comparison direction {}", c.found()),
                            "one of EQ, NE, LT, LE, GT, GE",
                        )
                    })?;
                    c.pos += word.len();
                    c.expect_done("the direction")?;
                    BinaryOp::Compare(dir)
                };
                OpKind::Binary {
                    op,
                    broadcast_dimensions: self.dims("broadcast_dimensions")?.unwrap_or_default(),
                }
            }
            Opcode::Convert => OpKind::Convert,
            Opcode::Select => OpKind::Select,
            Opcode::Clamp => OpKind::Clamp,
            Opcode::Broadcast => OpKind::Broadcast {
                dimensions: self.required_dims("dimensions")?,
            },
            Opcode::Reshape => OpKind::Reshape,
            Opcode::Transpose => OpKind::Transpose {
                permutation: self.required_dims("dimensions")?,
            },
            Opcode::Slice => {
                let mut c = self
                    .get("slice")
                    .ok_or_else(|| self.missing("slice", "{[0:2], [1:3]}"))?;
                let (starts, limits, strides) = c.slice_spec()?;
                c.expect_done("the slice list")?;
                OpKind::Slice {
                    starts,
                    limits,
                    strides,
                }
            }
            Opcode::Concatenate => {
                let dims = self.required_dims("dimensions")?;
                let [dimension] = dims[..] else {
                    let pos = self.attrs.iter().find(|a| a.key.name == "dimensions");
                    return Err(self.cursor.err(
                        pos.map_or(self.opcode_pos, |a| a.start),
                        format!(
                            "`concatenate` joins along one dimension, but `dimensions` lists {}",
                            dims.len()
                        ),
                        "`dimensions={d}` with one dimension",
                    ));
                };
                OpKind::Concatenate { dimension }
            }
            Opcode::Reverse => OpKind::Reverse {
                dimensions: self.required_dims("dimensions")?,
            },
            Opcode::Pad => {
                let mut c = self
                    .get("padding")
                    .ok_or_else(|| self.missing("padding", "0_0x1_2"))?;
                let config = c.padding_spec()?;
                OpKind::Pad { config }
            }
            Opcode::Reduce => {
                return Ok(RawOp::Reduce {
                    dimensions: self.required_dims("dimensions")?,
                    to_apply: self.name("to_apply")?,
                });
            }
            Opcode::Dot => OpKind::DotGeneral {
                dims: DotDimensionNumbers {
                    lhs_batch: self.dims("lhs_batch_dims")?.unwrap_or_default(),
                    rhs_batch: self.dims("rhs_batch_dims")?.unwrap_or_default(),
                    lhs_contracting: self.dims("lhs_contracting_dims")?.unwrap_or_default(),
                    rhs_contracting: self.dims("rhs_contracting_dims")?.unwrap_or_default(),
                },
            },
            Opcode::Tuple => OpKind::Tuple,
            // The misc family (`parser/misc.rs`).
            Opcode::BitcastConvert => OpKind::BitcastConvert,
            Opcode::Bitcast => OpKind::Bitcast,
            Opcode::ReducePrecision => self.reduce_precision()?,
            Opcode::Rng => self.rng()?,
            Opcode::RngBitGenerator => self.rng_bit_generator()?,
            Opcode::Cholesky => self.cholesky()?,
            Opcode::TriangularSolve => self.triangular_solve()?,
            Opcode::BatchNormTraining => self.batch_norm_training()?,
            Opcode::BatchNormInference => self.batch_norm_inference()?,
            Opcode::BatchNormGrad => self.batch_norm_grad()?,
        }))
    }
}

// ---------------------------------------------------------------------------
// Resolution and lowering into the IR
// ---------------------------------------------------------------------------

/// Names resolved within one computation.
struct Resolved {
    /// Operand indices of each instruction (`None`: undefined, reported).
    operands: Vec<Vec<Option<usize>>>,
    /// Definition order (a stable topological sort); empty after a cycle.
    order: Vec<usize>,
    /// The root instruction.
    root: usize,
}

/// The body being filled: the instructions and the names they use.
struct Target {
    instructions: Vec<Instruction>,
    used: HashSet<String>,
    /// Names of the computation itself, kept free for its own instructions
    /// while fused computations are inlined around them.
    reserved: HashSet<String>,
    /// The next suffix to try for each base name, so that copying one fused
    /// computation N times costs N lookups rather than N^2/2.
    next_suffix: HashMap<String, usize>,
}

impl Target {
    fn fresh_name(&mut self, base: &str) -> String {
        let taken = |n: &str| self.used.contains(n) || self.reserved.contains(n);
        if !taken(base) {
            return base.to_string();
        }
        let k = self.next_suffix.entry(base.to_string()).or_insert(1);
        loop {
            let name = format!("{base}.{k}");
            *k += 1;
            if !taken(&name) {
                return name;
            }
        }
    }

    fn shape(&self, id: InstId) -> &Shape {
        &self.instructions[id.index()].shape
    }
}

struct Lowering<'s, 'a> {
    src: &'s Source<'a>,
    module: &'s RawModule,
    by_name: HashMap<&'s str, usize>,
    resolved: Vec<Resolved>,
    /// Index into `bodies` of each lowered computation.
    body_of: Vec<Option<usize>>,
    bodies: Vec<Body>,
    errors: Vec<Error>,
    /// Instructions visited by fusion inlining so far (each inlining of a
    /// fused computation visits all of its instructions), and the most that
    /// may be (16 per instruction of the text, at least
    /// [`MIN_INLINE_BUDGET`]); past it, fusions are reported once and not
    /// inlined.
    inlined: usize,
    inline_budget: usize,
    inline_budget_reported: bool,
    /// Whether to run the verifier's checks (shape inference, parameter
    /// numbering, the canonical empty `broadcast_dimensions`); off only for
    /// [`parse_hlo_module_unverified`].
    verify: bool,
}

impl<'s, 'a> Lowering<'s, 'a> {
    fn new(src: &'s Source<'a>, module: &'s RawModule) -> Lowering<'s, 'a> {
        Lowering {
            src,
            module,
            by_name: HashMap::new(),
            resolved: Vec::new(),
            body_of: vec![None; module.comps.len()],
            bodies: Vec::new(),
            errors: Vec::new(),
            inlined: 0,
            inline_budget: module
                .comps
                .iter()
                .map(|c| c.insts.len())
                .sum::<usize>()
                .saturating_mul(16)
                .max(MIN_INLINE_BUDGET),
            inline_budget_reported: false,
            verify: true,
        }
    }

    /// Whether another error would still be reported (at most
    /// [`MAX_ERRORS`] are).
    fn reporting(&self) -> bool {
        self.errors.len() < MAX_ERRORS
    }

    fn error(&mut self, pos: usize, message: impl Into<String>, expected: impl Into<String>) {
        if self.reporting() {
            self.errors.push(self.src.error(pos, message, expected));
        }
    }

    fn fail<T>(mut self) -> std::result::Result<T, Vec<Error>> {
        self.errors.truncate(MAX_ERRORS);
        Err(self.errors)
    }

    fn run(mut self) -> std::result::Result<Computation, Vec<Error>> {
        let module: &'s RawModule = self.module;
        let comps = &module.comps;
        // Computation names.
        for (i, c) in comps.iter().enumerate() {
            if let Some(&first) = self.by_name.get(c.name.name.as_str()) {
                let line = self.src.line_of(comps[first].name.pos);
                self.error(
                    c.name.pos,
                    format!(
                        "a computation named `{}` is already defined on line {line}",
                        c.name.name
                    ),
                    "a unique computation name",
                );
            } else {
                self.by_name.insert(c.name.name.as_str(), i);
            }
        }
        // Instruction names, operands, roots and definition order.
        for c in comps {
            let r = self.resolve(c);
            self.resolved.push(r);
        }
        // Calls between computations.
        let mut edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); comps.len()];
        let mut fused = vec![false; comps.len()];
        let mut applied = vec![false; comps.len()];
        for (ci, c) in comps.iter().enumerate() {
            for inst in &c.insts {
                let (r, is_fusion) = match &inst.op {
                    RawOp::Reduce { to_apply, .. } => (to_apply, false),
                    RawOp::Fusion { calls } => (calls, true),
                    RawOp::Kind(_) | RawOp::Copy => continue,
                };
                let Some(&target) = self.by_name.get(r.name.as_str()) else {
                    // Listing the computations costs O(module): only for
                    // errors that will be reported.
                    if !self.reporting() {
                        continue;
                    }
                    let known: Vec<&str> = comps
                        .iter()
                        .filter(|c| !c.is_entry)
                        .map(|c| c.name.name.as_str())
                        .collect();
                    self.error(
                        r.pos,
                        format!("no computation named `{}`", r.name),
                        if known.is_empty() {
                            "the name of a computation defined in the module".to_string()
                        } else {
                            format!("one of: {}", known.join(", "))
                        },
                    );
                    continue;
                };
                if target == self.module.entry {
                    self.error(
                        r.pos,
                        format!("the entry computation `{}` cannot be called", r.name),
                        "a computation other than the entry",
                    );
                    continue;
                }
                if is_fusion {
                    fused[target] = true;
                } else {
                    applied[target] = true;
                }
                edges[ci].push((target, r.pos));
            }
        }
        // Errors so far (undefined names) poison what uses them; lowering
        // goes on to find the independent ones.
        let order = match self.computation_order(&edges) {
            Ok(o) => o,
            Err(e) => {
                self.errors.push(e);
                return self.fail();
            }
        };
        // Computations called only by fusions are inlined, not kept.
        let kept = |ci: usize| applied[ci] || !fused[ci];
        for &ci in &order {
            if kept(ci) {
                self.lower_standalone(ci);
            }
        }
        if !self.errors.is_empty() {
            return self.fail();
        }
        // Bodies in lowering order (callees first), the entry moved last.
        let entry = self.module.entry;
        let mut final_order: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&ci| kept(ci) && ci != entry)
            .collect();
        final_order.push(entry);
        let mut new_id = vec![0u32; self.bodies.len()];
        for (k, &ci) in final_order.iter().enumerate() {
            if let Some(b) = self.body_of[ci] {
                new_id[b] = k as u32;
            }
        }
        let mut slots: Vec<Option<Body>> = std::mem::take(&mut self.bodies)
            .into_iter()
            .map(Some)
            .collect();
        let mut bodies = Vec::with_capacity(final_order.len());
        for &ci in &final_order {
            let Some(mut body) = self.body_of[ci].and_then(|b| slots[b].take()) else {
                continue;
            };
            for inst in &mut body.instructions {
                if let OpKind::Reduce { to_apply, .. } = &mut inst.kind {
                    *to_apply = ComputationId(new_id[to_apply.index()]);
                }
            }
            bodies.push(body);
        }
        if !self.verify {
            return Ok(Computation::from_bodies_unverified(
                self.module.name.clone(),
                bodies,
            ));
        }
        Computation::from_bodies(self.module.name.clone(), bodies).map_err(|e| vec![e])
    }

    /// Resolves operand names, the root and the definition order of `c`.
    fn resolve(&mut self, c: &RawComp) -> Resolved {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut ok = true;
        for (i, inst) in c.insts.iter().enumerate() {
            if let Some(&first) = index.get(inst.name.name.as_str()) {
                let line = self.src.line_of(c.insts[first].name.pos);
                self.error(
                    inst.name.pos,
                    format!(
                        "the name `{}` is already used on line {line} in computation `{}`",
                        inst.name.name, c.name.name
                    ),
                    "a name not used before in this computation",
                );
                ok = false;
            } else {
                index.insert(inst.name.name.as_str(), i);
            }
        }
        let mut operands = Vec::with_capacity(c.insts.len());
        for inst in &c.insts {
            let mut ids = Vec::with_capacity(inst.operands.len());
            for o in &inst.operands {
                match index.get(o.name.name.as_str()) {
                    Some(&j) => ids.push(Some(j)),
                    None => {
                        ids.push(None);
                        // Searching every computation for the name costs
                        // O(module): only for errors that will be reported.
                        if !self.reporting() {
                            continue;
                        }
                        let elsewhere =
                            self.module.comps.iter().find(|other| {
                                other.insts.iter().any(|i| i.name.name == o.name.name)
                            });
                        let hint = match elsewhere {
                            Some(other) => format!(
                                " (an instruction of that name is in computation `{}`; operands must come from the same computation)",
                                other.name.name
                            ),
                            None => String::new(),
                        };
                        self.error(
                            o.name.pos,
                            format!(
                                "undefined operand `{}` in computation `{}`{hint}",
                                o.name.name, c.name.name
                            ),
                            "the name of an instruction of this computation",
                        );
                    }
                }
            }
            operands.push(ids);
        }
        let mut root = None;
        for (i, inst) in c.insts.iter().enumerate() {
            if inst.is_root {
                if let Some(first) = root {
                    let first: &RawInst = &c.insts[first];
                    self.error(
                        inst.name.pos,
                        format!(
                            "a second ROOT in computation `{}`; `{}` (line {}) is already the root",
                            c.name.name,
                            first.name.name,
                            self.src.line_of(first.name.pos)
                        ),
                        "one instruction marked ROOT",
                    );
                    ok = false;
                } else {
                    root = Some(i);
                }
            }
        }
        if c.insts.is_empty() {
            self.error(
                c.close_pos,
                format!("computation `{}` has no instructions", c.name.name),
                "at least one instruction",
            );
            ok = false;
        }
        let root = root.unwrap_or(c.insts.len().saturating_sub(1));
        let mut order = Vec::new();
        if ok {
            match topological_order(c, &operands) {
                Ok(o) => order = o,
                Err((pos, message)) => {
                    self.error(pos, message, "operands that do not depend on their user");
                }
            }
        }
        Resolved {
            operands,
            order,
            root,
        }
    }

    /// Callees before callers (a post-order over `edges`, stable in source
    /// order), or an error on a cycle.
    fn computation_order(&self, edges: &[Vec<(usize, usize)>]) -> Result<Vec<usize>> {
        post_order(edges.len(), |v, k| edges[v].get(k).map(|&(u, _)| Some(u))).map_err(
            |(v, k, u)| {
                let comps = &self.module.comps;
                self.src.error(
                    edges[v][k].1,
                    format!(
                        "computation `{}` calls `{}`, which calls back into it",
                        comps[v].name.name, comps[u].name.name
                    ),
                    "calls without cycles",
                )
            },
        )
    }

    /// Lowers computation `ci` into a body of its own.
    fn lower_standalone(&mut self, ci: usize) {
        let module: &'s RawModule = self.module;
        let comp: &'s RawComp = &module.comps[ci];
        let errors_before = self.errors.len();
        let mut target = Target {
            instructions: Vec::with_capacity(comp.insts.len()),
            used: HashSet::new(),
            reserved: comp.insts.iter().map(|i| i.name.name.clone()).collect(),
            next_suffix: HashMap::new(),
        };
        // Parameters: numbered densely from 0, and as the header says.
        let mut params: Vec<(i64, &RawInst)> = comp
            .insts
            .iter()
            .filter_map(|i| {
                if let RawOp::Kind(OpKind::Parameter { number }) = i.op {
                    Some((number, i))
                } else {
                    None
                }
            })
            .collect();
        params.sort_by_key(|(n, _)| *n);
        for (k, &(n, inst)) in params.iter().enumerate() {
            if self.verify && n != k as i64 {
                let message = if k > 0 && params[k - 1].0 == n {
                    format!(
                        "parameter number {n} is already taken by `{}`",
                        params[k - 1].1.name.name
                    )
                } else {
                    format!(
                        "parameters of `{}` must be numbered 0..{} without gaps; number {k} is missing",
                        comp.name.name,
                        params.len()
                    )
                };
                self.error(inst.opcode_pos, message, format!("parameter({k})"));
                break;
            }
        }
        if let Some(h) = &comp.header {
            if h.params.len() != params.len() {
                self.error(
                    h.pos,
                    format!(
                        "the header of `{}` lists {} parameter(s), but the body has {}",
                        comp.name.name,
                        h.params.len(),
                        params.len()
                    ),
                    format!("{} parameter(s)", params.len()),
                );
            } else {
                for ((hs, hpos), (_, inst)) in h.params.iter().zip(&params) {
                    if *hs != inst.shape {
                        self.error(
                            *hpos,
                            format!(
                                "the header gives parameter `{}` shape {hs}, but it is declared {}",
                                inst.name.name, inst.shape
                            ),
                            format!("{}", inst.shape),
                        );
                    }
                }
            }
        }
        let root = self.inline(ci, &mut target, None, 0);
        if let (Some(h), Some(root)) = (&comp.header, root) {
            let (rs, rpos) = &h.result;
            if rs != target.shape(root) {
                let actual = target.shape(root).clone();
                self.error(
                    *rpos,
                    format!(
                        "the header of `{}` gives result shape {rs}, but its root has shape {actual}",
                        comp.name.name
                    ),
                    format!("{actual}"),
                );
            }
        }
        if self.errors.len() > errors_before {
            return;
        }
        let Some(root) = root else { return };
        self.body_of[ci] = Some(self.bodies.len());
        self.bodies.push(Body {
            name: comp.name.name.clone(),
            instructions: target.instructions,
            root,
        });
    }

    /// Lowers the instructions of computation `ci` into `t`, and returns the
    /// root's id (`None` after an error). With `args`, `ci` is a fused
    /// computation: its parameters become those operands, and its
    /// instructions get fresh names.
    fn inline(
        &mut self,
        ci: usize,
        t: &mut Target,
        args: Option<(&[InstId], &RawInst)>,
        depth: usize,
    ) -> Option<InstId> {
        let module: &'s RawModule = self.module;
        let comp: &'s RawComp = &module.comps[ci];
        let root_index = self.resolved[ci].root;
        if let Some((ops, fusion)) = args {
            let count = comp
                .insts
                .iter()
                .filter(|i| matches!(i.op, RawOp::Kind(OpKind::Parameter { .. })))
                .count();
            if count != ops.len() {
                self.error(
                    fusion.opcode_pos,
                    format!(
                        "`{}` passes {} operand(s) to `{}`, which has {count} parameter(s)",
                        fusion.name.name,
                        ops.len(),
                        comp.name.name
                    ),
                    format!("{count} operand(s)"),
                );
                return None;
            }
        }
        let mut map: Vec<Option<InstId>> = vec![None; comp.insts.len()];
        let order = self.resolved[ci].order.clone();
        for i in order {
            let inst: &'s RawInst = &comp.insts[i];
            let ops: Option<Vec<InstId>> = self.resolved[ci].operands[i]
                .iter()
                .map(|&j| j.and_then(|j| map[j]))
                .collect();
            // An operand in error: this instruction is not reported again.
            let Some(ops) = ops else { continue };
            let mut ok = true;
            for (o, &id) in inst.operands.iter().zip(&ops) {
                if let Some((s, pos)) = &o.shape
                    && s != t.shape(id)
                {
                    let actual = t.shape(id).clone();
                    self.error(
                        *pos,
                        format!(
                            "operand `{}` is written with shape {s}, but it has shape {actual}",
                            o.name.name
                        ),
                        format!("{actual}"),
                    );
                    ok = false;
                }
            }
            if !ok {
                continue;
            }
            map[i] = match (&inst.op, args) {
                (RawOp::Kind(OpKind::Parameter { number }), Some((args, fusion))) => {
                    let Some(&arg) = usize::try_from(*number).ok().and_then(|n| args.get(n)) else {
                        self.error(
                            inst.opcode_pos,
                            format!(
                                "parameter({number}) of fused computation `{}` has no operand in `{}`, which passes {}",
                                comp.name.name,
                                fusion.name.name,
                                args.len()
                            ),
                            format!("a parameter number below {}", args.len()),
                        );
                        continue;
                    };
                    if t.shape(arg) != &inst.shape {
                        let actual = t.shape(arg).clone();
                        self.error(
                            inst.shape_pos,
                            format!(
                                "parameter `{}` of fused computation `{}` is declared {}, but `{}` passes {actual}",
                                inst.name.name, comp.name.name, inst.shape, fusion.name.name
                            ),
                            format!("{actual}"),
                        );
                        continue;
                    }
                    Some(arg)
                }
                (RawOp::Copy, _) => {
                    let [x] = ops[..] else {
                        self.error(
                            inst.opcode_pos,
                            format!("`copy` takes 1 operand but has {}", ops.len()),
                            "one operand",
                        );
                        continue;
                    };
                    if t.shape(x) != &inst.shape {
                        let actual = t.shape(x).clone();
                        self.error(
                            inst.shape_pos,
                            format!(
                                "`{}` declares shape {} but copies a value of shape {actual}",
                                inst.name.name, inst.shape
                            ),
                            format!("{actual}"),
                        );
                        continue;
                    }
                    Some(x)
                }
                (RawOp::Fusion { calls }, _) => {
                    if depth >= MAX_NESTING {
                        self.error(
                            inst.opcode_pos,
                            format!("fusions nest deeper than {MAX_NESTING} levels"),
                            "shallower fusions",
                        );
                        continue;
                    }
                    // An unknown or entry callee has been reported already.
                    let Some(&callee) = self.by_name.get(calls.name.as_str()) else {
                        continue;
                    };
                    if callee == self.module.entry {
                        continue;
                    }
                    // Every inlining visits the callee's instructions once.
                    self.inlined = self
                        .inlined
                        .saturating_add(module.comps[callee].insts.len().max(1));
                    if self.inlined > self.inline_budget {
                        if !std::mem::replace(&mut self.inline_budget_reported, true) {
                            self.error(
                                inst.opcode_pos,
                                format!(
                                    "fused computations expand to more than {} instructions when \
                                     inlined (at `{}`, which calls `{}`): a fused computation is \
                                     copied at every fusion that calls it",
                                    self.inline_budget, inst.name.name, calls.name
                                ),
                                "each fused computation called by one fusion",
                            );
                        }
                        continue;
                    }
                    let start = t.instructions.len();
                    let Some(root) = self.inline(callee, t, Some((&ops, inst)), depth + 1) else {
                        continue;
                    };
                    if t.shape(root) != &inst.shape {
                        let actual = t.shape(root).clone();
                        self.error(
                            inst.shape_pos,
                            format!(
                                "`{}` declares shape {} but its fused computation `{}` gives {actual}",
                                inst.name.name, inst.shape, calls.name
                            ),
                            format!("{actual}"),
                        );
                        continue;
                    }
                    // The fused root takes the fusion's name.
                    if root.index() >= start {
                        let old = std::mem::take(&mut t.instructions[root.index()].name);
                        t.used.remove(&old);
                        let name = if depth == 0 {
                            inst.name.name.clone()
                        } else {
                            t.fresh_name(&inst.name.name)
                        };
                        t.used.insert(name.clone());
                        t.instructions[root.index()].name = name;
                    }
                    Some(root)
                }
                (
                    RawOp::Reduce {
                        dimensions,
                        to_apply,
                    },
                    _,
                ) => {
                    let body = self
                        .by_name
                        .get(to_apply.name.as_str())
                        .and_then(|&c| self.body_of[c]);
                    // A reducer in error has been reported already.
                    let Some(body) = body else { continue };
                    let kind = OpKind::Reduce {
                        dimensions: dimensions.clone(),
                        to_apply: ComputationId(body as u32),
                    };
                    self.push(t, inst, kind, ops, depth)
                }
                (RawOp::Kind(kind), _) => self.push(t, inst, kind.clone(), ops, depth),
            };
        }
        // An empty computation (reported) has no root.
        map.get(root_index).copied().flatten()
    }

    /// Adds one instruction after checking its declared shape against
    /// shape inference.
    fn push(
        &mut self,
        t: &mut Target,
        inst: &RawInst,
        mut kind: OpKind,
        ops: Vec<InstId>,
        depth: usize,
    ) -> Option<InstId> {
        let shapes: Vec<&Shape> = ops.iter().map(|&o| t.shape(o)).collect();
        let bodies = &self.bodies;
        let called = |id: ComputationId| -> Option<(Vec<Shape>, Shape)> {
            let b = bodies.get(id.index())?;
            let root = b.instructions.get(b.root.index())?;
            Some((b.parameter_shapes(), root.shape.clone()))
        };
        let result = infer_instruction_shape(&kind, &shapes, &inst.shape, &called);
        let same_rank = shapes.len() == 2 && shapes[0].rank() == shapes[1].rank();
        match result {
            // Unverified: the declared shape stands; the verifier reports.
            _ if !self.verify => {}
            Err(e) => {
                self.error(
                    inst.opcode_pos,
                    format!(
                        "invalid `{}` instruction `{}`: {e}",
                        inst.opcode, inst.name.name
                    ),
                    "operands and attributes that fit together",
                );
                return None;
            }
            Ok(s) if s != inst.shape => {
                self.error(
                    inst.shape_pos,
                    format!(
                        "`{}` declares shape {} but its operands give {s}",
                        inst.name.name, inst.shape
                    ),
                    format!("the shape {s}"),
                );
                return None;
            }
            Ok(_) => {}
        }
        // Equal ranks accept `{}` or the identity, which mean the same; keep
        // the canonical empty list as the builder does.
        if let OpKind::Binary {
            broadcast_dimensions,
            ..
        } = &mut kind
            && same_rank
            && self.verify
        {
            broadcast_dimensions.clear();
        }
        let name = if depth == 0 {
            inst.name.name.clone()
        } else {
            t.fresh_name(&inst.name.name)
        };
        t.used.insert(name.clone());
        let id = InstId(t.instructions.len() as u32);
        t.instructions.push(Instruction {
            name,
            kind,
            operands: ops,
            shape: inst.shape.clone(),
        });
        Some(id)
    }
}

/// A stable topological order of `c`'s instructions (source order when the
/// text already defines before use), or the position and message of a cycle.
fn topological_order(
    c: &RawComp,
    operands: &[Vec<Option<usize>>],
) -> std::result::Result<Vec<usize>, (usize, String)> {
    // An undefined operand (reported elsewhere) orders nothing.
    post_order(c.insts.len(), |v, k| operands[v].get(k).copied()).map_err(|(v, k, u)| {
        let inst = &c.insts[v];
        (
            inst.operands[k].name.pos,
            format!(
                "`{}` uses `{}`, which depends on `{}` itself (a cycle)",
                inst.name.name, c.insts[u].name.name, inst.name.name
            ),
        )
    })
}

/// Nodes `0..n` in post-order (every node after the nodes its edges reach),
/// stable in index order, iteratively so deep graphs cannot overflow the
/// stack. `edge(v, k)` is the `k`-th edge of `v`: `None` past the last,
/// `Some(None)` for an edge to skip. A cycle is reported as the edge that
/// closes it: `(v, k, u)`.
fn post_order(
    n: usize,
    edge: impl Fn(usize, usize) -> Option<Option<usize>>,
) -> std::result::Result<Vec<usize>, (usize, usize, usize)> {
    // 0 = not seen, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; n];
    let mut order = Vec::with_capacity(n);
    for s in 0..n {
        if state[s] != 0 {
            continue;
        }
        state[s] = 1;
        let mut stack = vec![(s, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (v, k) = *top;
            match edge(v, k) {
                Some(target) => {
                    top.1 += 1;
                    let Some(u) = target else { continue };
                    match state[u] {
                        0 => {
                            state[u] = 1;
                            stack.push((u, 0));
                        }
                        1 => return Err((v, k, u)),
                        _ => {}
                    }
                }
                None => {
                    state[v] = 2;
                    order.push(v);
                    stack.pop();
                }
            }
        }
    }
    Ok(order)
}
