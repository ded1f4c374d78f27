//! The HLO text parser: the inverse of [`crate::printer`], and a reader of
//! the HLO text XLA accepts.
//!
//! It reads HLO text as XLA and JAX print it, in both of XLA's forms:
//!
//! - the short form our printer writes (`add.2 = f32[2,3]{1,0} add(x, v)`),
//! - the long form of XLA's dumps (`%add = f32[2,3]{1,0} add(f32[2,3]{1,0}
//!   %x, f32[2,3]{1,0} %v)`, computation headers `%name (p: f32[]) -> f32[]`),
//!
//! and what XLA's own parser (`xla/hlo/parser/hlo_parser.cc`) accepts besides:
//! `//` and `/* */` comments anywhere, the legacy `HloModule name:` header
//! and modules without a header, instructions written without a shape
//! (inferred by [`crate::shape_inference::infer_undeclared_shape`]), operands
//! written as nested instructions (`add(f32[] multiply(a, b), c)`, given the
//! names `multiply.anon`, ...), attributes spanning lines, tuple constants,
//! and constants whose values were elided (`constant({...})`, kept as
//! [`Literal::elided`]: the module checks, it never runs).
//! `docs/hlo-text.md` is the user's guide to what is accepted.
//!
//! Every attribute is honoured, refused, or accepted because it carries no
//! semantics on one CPU device; none is skipped unread. An instruction's
//! attributes are read by its op's arm of `Attrs::op`; the attributes
//! every instruction may carry (`metadata=`, `sharding=`, `backend_config=`,
//! ...) are validated by `Attrs::finish`, which refuses any other as
//! `unexpected attribute`. Module attributes are read by
//! `Cursor::module_attributes`. What oxla cannot honour is refused with a
//! message saying why: comparison types that do not fit the operands (as
//! XLA's verifier refuses them), dot algorithms other than the one
//! computed, `result_accuracy` tolerances tighter than oxla's stated bound,
//! several replicas or partitions, dynamic shapes, and the multi-device and
//! asynchronous ops.
//!
//! Two XLA constructs are rewritten into oxla's IR as they are read:
//! - `fusion(...)`, calls=%f (and `call(...)`, to_apply=%f): the called
//!   computation is inlined at the call site, its parameters replaced by the
//!   operands; its root takes the caller's name. This runs XLA's optimized
//!   dumps.
//! - `copy(x)` is the identity on values (layouts do not change values):
//!   uses of the copy become uses of `x`.
//!
//! A tuple constant becomes a `tuple` of array constants (the IR's constants
//! are arrays). Ops that call computations by name (`reduce`'s and `map`'s
//! `to_apply=`, `while`'s `condition=`/`body=`, `conditional`'s
//! `branch_computations=` or `true_computation=`/`false_computation=`) keep
//! their computations as bodies of their own. Every other XLA op oxla lacks
//! (`dynamic-slice`, `gather`, ...) is an error at the opcode.
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
//!   counted against their declared shape, never allocated from it (elided
//!   constants allocate nothing, and a large array written as one value
//!   becomes a `pad` of it); nesting
//!   (tuple shapes, literals, nested operands, fusion inlining) is capped,
//!   and so is the number of instructions fusion inlining may copy.
//!
//! Errors are [`Error::Parse`] with the 1-based line and column, the source
//! line and a caret under the offending text, and what would have been
//! accepted there. [`parse_hlo_module_diagnostics`] returns every error
//! found rather than the first: after a syntax error in an instruction the
//! parser skips to the next instruction and goes on, and semantic errors are
//! collected one per independent root cause.
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
mod custom_call;
mod misc;
mod ragged_dot;

use std::cell::{Cell, RefCell};
// The windows family's attributes: window, dim_labels, group counts.
mod windows;

use std::collections::{HashMap, HashSet};

use crate::ir::{
    BinaryOp, Body, ComparisonDirection, ComparisonOrder, ComparisonType, ComputationId,
    DotDimensionNumbers, GatherDimensionNumbers, InstId, Instruction, OpKind, PadDim,
    ScatterDimensionNumbers, UnaryOp,
};
use crate::opcode::{OUT_OF_SCOPE_OPCODES, XLA_ONLY_OPCODES};
use crate::shape::MAX_RANK;
use crate::shape_inference::{comparison_order, infer_instruction_shape, infer_undeclared_shape};
use crate::{ArrayData, Computation, ElementType, Error, FftType, Literal, Opcode, Result, Shape};

/// The deepest nesting accepted for tuple shapes, tuple literals, nested
/// operand instructions and fusions inlined into fusions.
const MAX_NESTING: usize = 64;

/// The fewest instructions fusion inlining may visit (and so create) in a
/// module; the budget grows with the module's text (16 per instruction).
/// A fused computation called from several places is copied at every call,
/// so calls that double at each level would otherwise make 2^depth copies.
const MIN_INLINE_BUDGET: usize = 1 << 14;

/// The most elements a constant written as one value for a whole array
/// (`f32[40] constant(15)`) is expanded to as a dense literal; a larger one
/// becomes a `pad` of that value with zeros, which allocates nothing.
const MAX_DENSE_SINGLE_VALUE: i64 = 4096;

/// How many characters of a long source line an error shows on each side
/// of the column.
const SNIPPET_CONTEXT: usize = 60;

/// The most errors [`parse_hlo_module_diagnostics`] reports; past it,
/// parsing stops.
pub const MAX_DIAGNOSTICS: usize = 50;

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
/// found (never an empty list), in the order of the text. A syntax error in
/// an instruction (an unknown or unsupported opcode, a malformed attribute)
/// is reported and parsing resumes at the next instruction, whose uses of
/// the broken one are not reported again; a syntax error outside
/// instructions (the module or a computation header) ends parsing. Semantic
/// errors (undefined names, shapes that do not match what the operands
/// give) are collected one per independent cause: an instruction whose
/// operand is already in error is not reported again. At most 50 errors
/// are returned.
///
/// ```
/// let text = "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
///             y = f32[3] negate(x)\n  g = f32[2] scaled-dot(x, x)\n  \
///             ROOT z = s32[2] negate(x)\n}\n";
/// let errors = oxla_ir::parser::parse_hlo_module_diagnostics(text).unwrap_err();
/// assert_eq!(errors.len(), 3);
/// assert!(errors[0].to_string().starts_with("5:7: `y` declares shape f32[3]"));
/// assert!(errors[1].to_string().starts_with("6:14: unsupported op `scaled-dot`"));
/// ```
pub fn parse_hlo_module_diagnostics(text: &str) -> std::result::Result<Computation, Vec<Error>> {
    let src = Source::new(text);
    let (module, syntax_errors) = Cursor::new(&src).module()?;
    Lowering::new(&src, &module, syntax_errors).run()
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
    let (module, syntax_errors) = Cursor::new(&src).module()?;
    let mut lowering = Lowering::new(&src, &module, syntax_errors);
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
    /// An op that calls computations: `kind` with placeholder ids, and the
    /// names that replace them, in the order of
    /// [`OpKind::called_computations_mut`].
    Calls {
        kind: OpKind,
        callees: Vec<NameRef>,
        fixup: CallsFixup,
    },
    /// `fusion(...), calls=f` or `call(...), to_apply=f`: inlined.
    Fusion {
        calls: NameRef,
        /// `call` (whose shape may be omitted) rather than `fusion`.
        is_call: bool,
    },
    Copy,
    /// A constant of tuple shape: lowered to a `tuple` of constants.
    TupleConstant(Literal),
    /// A large array constant written as one (scalar) value, which XLA
    /// stores at index 0 with zeros elsewhere: lowered to a `pad` of that
    /// value with zeros, allocating nothing.
    FirstOnlyConstant(Literal),
    /// An instruction whose text did not parse (its error is reported);
    /// instructions that use it are not reported again.
    Poisoned,
}

/// What an op that calls computations still needs from its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallsFixup {
    None,
    /// A conditional written with `true_computation=`/`false_computation=`
    /// (`true`) or `branch_computations=` (`false`): the selector's type
    /// must call for that form.
    ConditionalForm {
        pred: bool,
    },
    /// A `map` without `dimensions=`: every dimension of its operands.
    MapAllDimensions,
}

#[derive(Debug, Clone)]
struct RawOperand {
    name: NameRef,
    /// The shape written before the name in long form.
    shape: Option<(Shape, usize)>,
    /// The operand is the instruction at this index of the computation,
    /// written in place (`add(f32[] multiply(a, b), c)`).
    nested: Option<usize>,
}

/// What a `constant(...)` holds.
#[derive(Debug, Clone)]
enum ConstantValue {
    Literal(Literal),
    /// The value at index 0 of a large array whose other elements are zero.
    FirstOnly(Literal),
}

/// A check an attribute needs that waits for the operands' shapes.
#[derive(Debug, Clone)]
enum Check {
    /// `broadcast` without `dimensions`: valid for a scalar operand only.
    ScalarBroadcast,
    /// `compare`'s `type=`: the operands' default or, for floats,
    /// `TOTALORDER` (XLA's verifier's rule).
    CompareType { ty: ComparisonType, pos: usize },
    /// `dot`'s `algorithm=`: honoured when it names what oxla computes.
    DotAlgorithm { name: String, pos: usize },
    /// `result_accuracy=` on a unary op.
    ResultAccuracy { accuracy: Accuracy, pos: usize },
}

/// A `result_accuracy` attribute, as XLA's parser reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Accuracy {
    /// `{mode=default}` or `{mode=highest}`.
    Mode(&'static str),
    /// `{tolerance={atol=.., rtol=.., ulps=..}}`.
    Tolerance { atol: f64, rtol: f64, ulps: f64 },
}

#[derive(Debug, Clone)]
struct RawInst {
    name: NameRef,
    /// Written in place as an operand: the name is generated.
    nested: bool,
    is_root: bool,
    /// The declared shape; `None` when the text omits it.
    shape: Option<Shape>,
    shape_pos: usize,
    opcode: String,
    opcode_pos: usize,
    op: RawOp,
    operands: Vec<RawOperand>,
    checks: Vec<Check>,
    control_predecessors: Vec<NameRef>,
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

/// `entry_computation_layout={(params)->result}`.
#[derive(Debug)]
struct EntryLayout {
    params: Vec<(Shape, usize)>,
    result: (Shape, usize),
    pos: usize,
}

/// One `input_output_alias` entry (`{0}: (1, {}, must-alias)`) or, without
/// an output, one `buffer_donor` entry (`(1, {})`).
#[derive(Debug)]
struct Alias {
    output: Option<Vec<i64>>,
    parameter: i64,
    parameter_index: Vec<i64>,
    pos: usize,
}

/// The module attributes that need the entry computation to be checked.
#[derive(Debug, Default)]
struct ModuleAttrs {
    entry_layout: Option<EntryLayout>,
    aliases: Vec<Alias>,
}

#[derive(Debug)]
struct RawModule {
    name: String,
    comps: Vec<RawComp>,
    entry: usize,
    attrs: ModuleAttrs,
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
const XLA_ONLY_TYPES: &[&str] = &["opaque"];

/// The attributes every instruction may carry. None changes a value on one
/// CPU device; each is validated (see [`Attrs::finish`]) and then dropped.
const COMMON_ATTRIBUTES: &[&str] = &[
    "sharding",
    "frontend_attributes",
    "statistics",
    "parameter_replication",
    "control-predecessors",
    "origin",
    "metadata",
    "backend_config",
];

/// The module attributes XLA's parser accepts.
const MODULE_ATTRIBUTES: &[&str] = &[
    "alias_passthrough_params",
    "allow_spmd_sharding_propagation_to_output",
    "allow_spmd_sharding_propagation_to_parameters",
    "buffer_donor",
    "entry_computation_layout",
    "frontend_attributes",
    "input_output_alias",
    "is_scheduled",
    "num_partitions",
    "origin_recovery_table",
    "replica_count",
];

/// The dot algorithms XLA's parser knows (`algorithm=dot_f32_f32_f32`),
/// lower case, as printed.
const DOT_ALGORITHMS: &[&str] = &[
    "unset",
    "dot_any_f8_any_f8_f32",
    "dot_any_f8_any_f8_f32_fast_accum",
    "dot_f16_f16_f16",
    "dot_f16_f16_f32",
    "dot_bf16_bf16_bf16",
    "dot_bf16_bf16_f32",
    "dot_bf16_bf16_f32_x3",
    "dot_bf16_bf16_f32_x6",
    "dot_bf16_bf16_f32_x9",
    "dot_tf32_tf32_f32",
    "dot_tf32_tf32_f32_x3",
    "dot_f32_f32_f32",
    "dot_f64_f64_f64",
];

/// The ulps oxla promises for `op` against its oracle, the interpreter, when
/// a module asks with `result_accuracy={tolerance={ulps=N}}`: the JIT's
/// stated bound (`docs/jit-accuracy.md`, `oxla_jit::ulp_bound`; the same
/// for f32 and f64). `None` for the ops that take no `result_accuracy` in
/// XLA.
///
/// ```
/// use oxla_ir::{parser::result_accuracy_ulps, UnaryOp};
/// assert_eq!(result_accuracy_ulps(UnaryOp::Logistic), Some(4));
/// assert_eq!(result_accuracy_ulps(UnaryOp::Sqrt), Some(0));
/// assert_eq!(result_accuracy_ulps(UnaryOp::Neg), None);
/// ```
pub fn result_accuracy_ulps(op: UnaryOp) -> Option<u32> {
    match op {
        UnaryOp::Exp | UnaryOp::Log | UnaryOp::Sin | UnaryOp::Cos => Some(1),
        UnaryOp::Expm1 | UnaryOp::Log1p | UnaryOp::Tanh => Some(2),
        UnaryOp::Logistic => Some(4),
        UnaryOp::Sqrt | UnaryOp::Rsqrt => Some(0),
        // The misc family: the JIT calls the interpreter's own functions
        // (musl's libm), so the two agree bit for bit.
        UnaryOp::Erf | UnaryOp::Cbrt | UnaryOp::Tan => Some(0),
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::RoundNearestEven
        | UnaryOp::Not
        | UnaryOp::IsFinite
        | UnaryOp::PopCnt
        | UnaryOp::Clz
        | UnaryOp::RoundNearestAfz => None,
    }
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// `true` if `line` (from its first non-blank character) starts an
/// instruction: `[ROOT] [%]name = ` followed by a shape (`f32[`, `(`) or an
/// opcode and its `(`. Attribute lines (`key=value`) never match, since a
/// value is not followed by `(` or `[`. Used to resume after an error.
fn starts_instruction(line: &str) -> bool {
    let b = line.trim_start().as_bytes();
    let mut i = 0;
    if b.starts_with(b"ROOT") && b.get(4).is_some_and(|c| c.is_ascii_whitespace()) {
        i = 4;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
    }
    if b.get(i) == Some(&b'%') {
        i += 1;
    }
    if !b.get(i).is_some_and(|&c| is_name_start(c)) {
        return false;
    }
    while i < b.len() && is_name_char(b[i]) {
        i += 1;
    }
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if b.get(i) != Some(&b'=') {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if b.get(i) == Some(&b'(') {
        return true;
    }
    if !b.get(i).is_some_and(|&c| is_name_start(c)) {
        return false;
    }
    while i < b.len() && is_name_char(b[i]) {
        i += 1;
    }
    matches!(b.get(i), Some(b'[') | Some(b'('))
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

    /// The text from the cursor to the end of its span.
    fn rest(&self) -> &'a str {
        let text: &'a str = self.src.text;
        &text[self.pos.min(self.end)..self.end]
    }

    /// What is at the cursor, for messages: `` `x` `` or "the end of the input".
    fn found(&self) -> String {
        if self.at_end() {
            return "the end of the input".into();
        }
        let rest = self.rest();
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

    /// Skips spaces, newlines and comments (`/* ... */`, `//` to the end of
    /// the line).
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
                b'/' if self.peek_at(1) == Some(b'*') => self.skip_block_comment()?,
                b'/' if self.peek_at(1) == Some(b'/') => self.skip_line_comment(),
                _ => break,
            }
        }
        Ok(())
    }

    /// Skips a `/* ... */` comment at the cursor.
    fn skip_block_comment(&mut self) -> Result<()> {
        let start = self.pos;
        match self.src.text[self.pos + 2..self.end].find("*/") {
            Some(i) => {
                self.pos += 2 + i + 2;
                Ok(())
            }
            None => Err(self.err(start, "unterminated comment", "`*/` closing the comment")),
        }
    }

    /// Skips a `//` comment at the cursor, up to (not over) the line end.
    fn skip_line_comment(&mut self) {
        let rest = self.rest();
        self.pos += rest.find(['\n', '\r']).unwrap_or(rest.len());
    }

    /// Consumes whitespace and `s` if `s` comes next; otherwise moves
    /// nothing (so an error can point at the end of the previous token).
    fn eat(&mut self, s: &str) -> Result<bool> {
        let before = self.pos;
        self.skip_ws()?;
        if self.rest().starts_with(s) {
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
        let rest = self.rest();
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
        self.word_at(self.pos)
    }

    /// The word starting at byte `at`.
    fn word_at(&self, at: usize) -> &'a str {
        let text: &'a str = self.src.text;
        let bytes = self.bytes;
        let mut i = at;
        if i < self.end && is_name_start(bytes[i]) {
            i += 1;
            while i < self.end && is_name_char(bytes[i]) {
                i += 1;
            }
        }
        &text[at.min(i)..i]
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

    /// A number (`1`, `-2.5`, `1e-3`, `inf`), as `f64`, as XLA's
    /// `ParseDouble` reads it: a decimal that overflows `f64` is an error.
    fn number(&mut self, what: &str) -> Result<(f64, usize)> {
        self.skip_ws()?;
        let pos = self.pos;
        let token = self.value_token();
        let value = match parse_float(token, 52) {
            Some(FloatValue::Number) => token.parse::<f64>().ok(),
            Some(FloatValue::Bits(negative, 0)) => Some(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            Some(FloatValue::Bits(..)) | None => None,
        };
        let Some(value) = value else {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (a number such as `1`, `0.5` or `1e-6`)"),
            ));
        };
        if value.is_infinite() && !token.contains("inf") {
            return Err(self.err(pos, double_range_message(token), "a finite number"));
        }
        self.pos += token.len();
        Ok((value, pos))
    }

    /// `true` or `false`.
    fn boolean(&mut self, what: &str) -> Result<bool> {
        if self.eat_keyword("true")? {
            return Ok(true);
        }
        if self.eat_keyword("false")? {
            return Ok(false);
        }
        Err(self.err(
            self.pos,
            format!(
                "expected {what} (`true` or `false`), found {}",
                self.found()
            ),
            "`true` or `false`",
        ))
    }

    /// A `"..."` (or `'...'`) string.
    fn string(&mut self, what: &str) -> Result<()> {
        self.skip_ws()?;
        if !matches!(self.peek(), Some(b'"') | Some(b'\'')) {
            return Err(self.err(
                self.pos,
                format!("expected {what} (a quoted string), found {}", self.found()),
                "a string such as `\"text\"`",
            ));
        }
        self.skip_string(what)
    }

    /// The characters of a value at the cursor (letters, digits, `.+-_`,
    /// and a NaN payload `nan(0x...)`), not consumed.
    fn value_token(&self) -> &'a str {
        let mut i = self.pos;
        while i < self.end
            && (self.bytes[i].is_ascii_alphanumeric() || b".+-_".contains(&self.bytes[i]))
        {
            i += 1;
        }
        let text: &'a str = self.src.text;
        let word = &text[self.pos..i];
        if matches!(word, "nan" | "-nan" | "+nan") && i < self.end && self.bytes[i] == b'(' {
            while i < self.end && self.bytes[i] != b')' && self.bytes[i] != b'\n' {
                i += 1;
            }
            if i < self.end && self.bytes[i] == b')' {
                i += 1;
            }
        }
        &text[self.pos..i]
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

    /// The whole module, and the syntax errors recovered from on the way
    /// (an error that ends parsing comes back as the `Err` list).
    fn module(&mut self) -> std::result::Result<(RawModule, Vec<Error>), Vec<Error>> {
        let mut errors = Vec::new();
        match self.module_impl(&mut errors) {
            Ok(module) => Ok((module, errors)),
            Err(e) => {
                errors.push(e);
                Err(errors)
            }
        }
    }

    fn module_impl(&mut self, errors: &mut Vec<Error>) -> Result<RawModule> {
        self.skip_ws()?;
        let mut name = None;
        let mut attrs = ModuleAttrs::default();
        if self.eat_keyword("HloModule")? {
            let n = self.name("the module name")?;
            // The legacy header `HloModule name:`.
            if self.peek() == Some(b':') {
                self.pos += 1;
            }
            attrs = self.module_attributes()?;
            name = Some(n);
        } else if !self.starts_headerless_module() {
            return Err(self.err(
                self.pos,
                format!(
                    "an HLO module starts with `HloModule <name>`, found {}",
                    self.found()
                ),
                "`HloModule`",
            ));
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
            comps.push(self.computation(errors)?);
        }
        if comps.is_empty() {
            let module = name.as_ref().map_or("", |n| n.name.as_str());
            return Err(self.err(
                self.pos,
                format!("the module `{module}` has no computations"),
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
        // Without a header, XLA names the module after its entry.
        let name = name.map_or_else(|| format!("module_{}", comps[entry].name.name), |n| n.name);
        Ok(RawModule {
            name,
            comps,
            entry,
            attrs,
        })
    }

    /// `true` if the text starts with a computation (`ENTRY ...` or
    /// `name {`): XLA reads such text as a module without a header.
    fn starts_headerless_module(&self) -> bool {
        let mut c = self.sub(self.pos, self.end);
        if c.eat_keyword("ENTRY").unwrap_or(false) {
            return true;
        }
        c.name("a computation name").is_ok() && c.eat("{").unwrap_or(false)
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
            let rest = self.rest();
            let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
            let trimmed = rest[..line_len].trim_start();
            if !first && !trimmed.is_empty() && !trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                return;
            }
            first = false;
            self.pos += line_len;
        }
    }

    /// The header's `, key=value` attributes, each read and checked: the
    /// ones with no effect on values on one device are validated and
    /// dropped, `replica_count`/`num_partitions` above 1 are refused, and
    /// those that need the entry computation are returned.
    fn module_attributes(&mut self) -> Result<ModuleAttrs> {
        let mut attrs = ModuleAttrs::default();
        let mut seen: Vec<RawAttr> = Vec::new();
        while self.eat(",")? {
            let attr = self.attribute()?;
            if let Some(first) = seen.iter().find(|a| a.key.name == attr.key.name) {
                return Err(self.err(
                    attr.key.pos,
                    format!(
                        "attribute {} already exists (first at column {})",
                        attr.key.name,
                        self.src.column_of(first.key.pos)
                    ),
                    "each module attribute once",
                ));
            }
            let mut c = self.sub(attr.start, attr.end);
            let key = attr.key.name.as_str();
            match key {
                "is_scheduled" | "alias_passthrough_params" => {
                    c.boolean(key)?;
                }
                "replica_count" | "num_partitions" => {
                    let (n, pos) = c.int(key)?;
                    if n != 1 {
                        let what = if key == "replica_count" {
                            "replicas"
                        } else {
                            "partitions"
                        };
                        return Err(self.err(
                            pos,
                            format!(
                                "{key}={n}: a module for {n} {what} runs on several devices, which is \
                                 out of scope for oxla, a single-device engine"
                            ),
                            format!("{key}=1"),
                        ));
                    }
                }
                "entry_computation_layout" => {
                    attrs.entry_layout = Some(c.entry_layout()?);
                }
                "input_output_alias" => attrs.aliases.extend(c.aliases(true)?),
                "buffer_donor" => attrs.aliases.extend(c.aliases(false)?),
                "frontend_attributes" => c.frontend_attributes()?,
                "allow_spmd_sharding_propagation_to_parameters"
                | "allow_spmd_sharding_propagation_to_output" => {
                    if c.peek() == Some(b'{') {
                        c.list("{", "}", key, |c| c.boolean(key).map(|_| ()))?;
                    } else {
                        c.boolean(key)?;
                    }
                }
                "origin_recovery_table" => c.braced_group(key)?,
                _ => {
                    return Err(self.err(
                        attr.key.pos,
                        format!("unexpected attribute \"{key}\" in the module header"),
                        format!("one of: {}", MODULE_ATTRIBUTES.join(", ")),
                    ));
                }
            }
            c.expect_done(&format!("the value of `{key}`"))?;
            seen.push(attr);
        }
        Ok(attrs)
    }

    /// `{(f32[2]{0}, s32[])->f32[2]{0}}`.
    fn entry_layout(&mut self) -> Result<EntryLayout> {
        let pos = self.expect("{", "opening the entry computation layout")?;
        self.expect("(", "before the parameter shapes")?;
        let mut params = Vec::new();
        if !self.eat(")")? {
            loop {
                params.push(self.shape(0)?);
                if self.eat(")")? {
                    break;
                }
                self.expect(",", "or `)` between parameter shapes")?;
            }
        }
        self.expect("->", "before the result shape")?;
        let result = self.shape(0)?;
        self.expect("}", "closing the entry computation layout")?;
        Ok(EntryLayout {
            params,
            result,
            pos,
        })
    }

    /// `{ {0}: (1, {}, must-alias), ... }` (with outputs) or
    /// `{ (1, {}), ... }` (buffer donors).
    fn aliases(&mut self, with_output: bool) -> Result<Vec<Alias>> {
        let mut out = Vec::new();
        self.list("{", "}", "the aliasing list", |c| {
            c.skip_ws()?;
            let pos = c.pos;
            let output = if with_output {
                let index = c.shape_index()?;
                c.expect(":", "after the output shape index")?;
                Some(index)
            } else {
                None
            };
            c.expect("(", "before the parameter number")?;
            let parameter = c.int("a parameter number")?.0;
            c.expect(",", "after the parameter number")?;
            let parameter_index = c.shape_index()?;
            if with_output && c.eat(",")? {
                c.skip_ws()?;
                let kind = c.peek_word();
                if !matches!(kind, "must-alias" | "may-alias") {
                    return Err(c.err(
                        c.pos,
                        format!("unexpected aliasing kind {}", c.found()),
                        "`must-alias` or `may-alias`",
                    ));
                }
                c.pos += kind.len();
            }
            c.expect(")", "closing the aliased parameter")?;
            out.push(Alias {
                output,
                parameter,
                parameter_index,
                pos,
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// A shape index: `{}`, `{0}`, `{1, 0}`.
    fn shape_index(&mut self) -> Result<Vec<i64>> {
        let mut index = Vec::new();
        self.list("{", "}", "the shape index", |c| {
            index.push(c.int("a tuple index")?.0);
            Ok(())
        })?;
        Ok(index)
    }

    /// `open item (, item)* close` (possibly empty); `item` reads one item.
    fn list(
        &mut self,
        open: &str,
        close: &str,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        self.expect(open, &format!("opening {what}"))?;
        if self.eat(close)? {
            return Ok(());
        }
        loop {
            item(self)?;
            if self.eat(close)? {
                return Ok(());
            }
            self.expect(",", &format!("or `{close}` in {what}"))?;
        }
    }

    /// A computation and its instructions. A syntax error in an instruction
    /// is pushed on `errors` and parsing resumes at the next instruction;
    /// the `Err` is an error parsing cannot go on from.
    fn computation(&mut self, errors: &mut Vec<Error>) -> Result<RawComp> {
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
        let mut insts: Vec<RawInst> = Vec::new();
        let close_pos = loop {
            self.skip_ws()?;
            if self.peek() == Some(b'}') {
                let close_pos = self.pos;
                self.pos += 1;
                break close_pos;
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
            let start = self.pos;
            let before = insts.len();
            if let Err(e) = self.instruction(&mut insts) {
                insts.truncate(before);
                if errors.len() + 1 >= MAX_DIAGNOSTICS {
                    return Err(e);
                }
                errors.push(e);
                // The instruction's name stays defined, so its users are
                // not reported again.
                let mut c = self.sub(start, self.end);
                let is_root = c.eat_keyword("ROOT").unwrap_or(false);
                if let Ok(n) = c.name("an instruction name")
                    && c.eat("=").unwrap_or(false)
                {
                    insts.push(RawInst {
                        name: n,
                        nested: false,
                        is_root,
                        shape: None,
                        shape_pos: start,
                        opcode: String::new(),
                        opcode_pos: start,
                        op: RawOp::Poisoned,
                        operands: Vec::new(),
                        checks: Vec::new(),
                        control_predecessors: Vec::new(),
                    });
                }
                let Some(next) = self.next_instruction_start(start) else {
                    // Nothing to resume at: the last error ends parsing.
                    return Err(errors.pop().unwrap_or_else(|| {
                        self.err(
                            start,
                            "this instruction could not be parsed",
                            "an instruction",
                        )
                    }));
                };
                self.pos = next;
            }
        };
        // Attributes after the body: `}, execution_thread="main"`.
        let mut seen = false;
        while self.eat(",")? {
            let attr = self.attribute()?;
            if attr.key.name != "execution_thread" {
                return Err(self.err(
                    attr.key.pos,
                    format!(
                        "unexpected attribute \"{}\" after computation `{}`",
                        attr.key.name, name.name
                    ),
                    "`execution_thread=\"...\"`",
                ));
            }
            if std::mem::replace(&mut seen, true) {
                return Err(self.err(
                    attr.key.pos,
                    "attribute execution_thread already exists",
                    "one `execution_thread`",
                ));
            }
            let mut c = self.sub(attr.start, attr.end);
            c.string("the execution thread")?;
            c.expect_done("the execution thread")?;
        }
        name_nested_instructions(&mut insts);
        Ok(RawComp {
            name,
            is_entry,
            header,
            insts,
            close_pos,
        })
    }

    /// Where parsing can resume after an error in the instruction starting
    /// at `from`: the next line that starts an instruction or closes the
    /// computation (`}`), skipping the lines of the broken instruction's
    /// open brackets. `None` if there is none (the rest of the text belongs
    /// to an unclosed bracket, string or comment).
    fn next_instruction_start(&self, from: usize) -> Option<usize> {
        let b = self.bytes;
        let mut depth: i64 = 0;
        let mut i = from;
        while i < self.end {
            match b[i] {
                b'"' | b'\'' => {
                    let quote = b[i];
                    i += 1;
                    while i < self.end && b[i] != quote && b[i] != b'\n' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if i < self.end && b[i] == quote {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = i + 2 + self.src.text[i + 2..self.end].find("*/")? + 2;
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < self.end && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'{' | b'(' | b'[' => {
                    depth += 1;
                    i += 1;
                }
                b'}' | b')' | b']' => {
                    depth -= 1;
                    i += 1;
                }
                b'\n' => {
                    i += 1;
                    let line_end = self.src.text[i..self.end]
                        .find('\n')
                        .map_or(self.end, |e| i + e);
                    let line = &self.src.text[i..line_end];
                    let trimmed = line.trim_start();
                    let at = i + (line.len() - trimmed.len());
                    if starts_instruction(trimmed) || (depth <= 0 && trimmed.starts_with('}')) {
                        return Some(at);
                    }
                }
                _ => i += 1,
            }
        }
        None
    }

    // -- instructions --------------------------------------------------------

    /// `[ROOT] name = [shape] opcode(operands), attributes`: pushes it onto
    /// `insts`, after the instructions nested in its operands.
    fn instruction(&mut self, insts: &mut Vec<RawInst>) -> Result<()> {
        let is_root = self.eat_keyword("ROOT")?;
        let name = self.name("an instruction name")?;
        self.expect("=", &format!("after the instruction name `{}`", name.name))?;
        self.skip_ws()?;
        let shape_pos = self.pos;
        let shape = if self.at_shape() {
            Some(self.shape(0)?.0)
        } else {
            None
        };
        let inst = self.instruction_body(insts, name, is_root, shape, shape_pos, 0, true)?;
        insts.push(inst);
        Ok(())
    }

    /// `true` if a shape starts at the cursor: `(` or a word followed by `[`.
    fn at_shape(&self) -> bool {
        let word = self.peek_word();
        self.peek() == Some(b'(') || (!word.is_empty() && self.peek_at(word.len()) == Some(b'['))
    }

    /// The opcode, operands and (unless nested) attributes of an
    /// instruction whose shape, if written, has been read.
    #[allow(clippy::too_many_arguments)]
    fn instruction_body(
        &mut self,
        insts: &mut Vec<RawInst>,
        name: NameRef,
        is_root: bool,
        shape: Option<Shape>,
        shape_pos: usize,
        depth: usize,
        allow_attributes: bool,
    ) -> Result<RawInst> {
        self.skip_ws()?;
        let opcode_pos = self.pos;
        if depth > MAX_NESTING {
            return Err(self.err(
                opcode_pos,
                format!("nested instructions nest deeper than {MAX_NESTING} levels"),
                "fewer instructions written inside operand lists",
            ));
        }
        let opcode = self.peek_word().to_string();
        if opcode.is_empty() {
            return Err(self.err(
                opcode_pos,
                format!("expected an opcode, found {}", self.found()),
                "an opcode such as `add` or `broadcast`",
            ));
        }
        let template = self.template(&opcode, opcode_pos)?;
        if shape.is_none() && matches!(template, Template::Op(Opcode::Constant)) {
            return Err(self.err(
                opcode_pos,
                "cannot infer shape for opcode: constant",
                "the constant's shape before the opcode: `c = f32[2] constant({1, 2})`",
            ));
        }
        self.pos += opcode.len();
        self.expect("(", &format!("after the opcode `{opcode}`"))?;
        let mut operands = Vec::new();
        let mut number = 0;
        let mut literal = None;
        match template.operand_syntax() {
            OperandSyntax::ParameterNumber => {
                let (n, pos) = self.int("a parameter number")?;
                if n < 0 {
                    return Err(self.err(
                        pos,
                        "parameter number must be >= 0",
                        "a parameter number (0, 1, ...)",
                    ));
                }
                number = n;
                self.expect(")", "after the parameter number")?;
            }
            OperandSyntax::Literal => {
                if let Some(shape) = &shape {
                    literal = Some(self.constant_value(shape)?);
                }
                self.expect(")", "after the constant's value")?;
            }
            OperandSyntax::Operands => {
                if !self.eat(")")? {
                    loop {
                        operands.push(self.operand(insts, depth)?);
                        if self.eat(")")? {
                            break;
                        }
                        self.expect(",", "or `)` in the operand list")?;
                    }
                }
            }
        }
        let mut raw_attrs: Vec<RawAttr> = Vec::new();
        // Nested instructions take no attributes: a comma after one starts
        // the next operand.
        while allow_attributes && self.eat(",")? {
            let attr = self.attribute()?;
            if let Some(first) = raw_attrs.iter().find(|a| a.key.name == attr.key.name) {
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
            raw_attrs.push(attr);
        }
        let attrs = Attrs::new(self, raw_attrs, &opcode, opcode_pos);
        let (op, checks) = attrs.op(template, number, literal, operands.len())?;
        let control_predecessors = attrs.finish(shape.as_ref())?;
        Ok(RawInst {
            name,
            nested: false,
            is_root,
            shape,
            shape_pos,
            opcode,
            opcode_pos,
            op,
            operands,
            checks,
            control_predecessors,
        })
    }

    /// What an opcode becomes, or why it is refused: out of scope
    /// (multi-device, asynchronous, dynamic), unsupported (an XLA op oxla
    /// lacks) or unknown.
    fn template(&self, opcode: &str, pos: usize) -> Result<Template> {
        if let Some(template) = op_template(opcode) {
            return Ok(template);
        }
        let known = |op: &str| {
            op_template(op).is_some()
                || XLA_ONLY_OPCODES.contains(&op)
                || OUT_OF_SCOPE_OPCODES.iter().any(|(n, _)| *n == op)
        };
        let why = OUT_OF_SCOPE_OPCODES
            .iter()
            .find(|(n, _)| *n == opcode)
            .map(|(_, why)| why.to_string())
            .or_else(|| {
                ["-start", "-update", "-done"].iter().find_map(|suffix| {
                    let base = opcode.strip_suffix(suffix)?;
                    known(base).then(|| format!("the asynchronous form of `{base}`"))
                })
            });
        let message = match why {
            Some(why) => format!(
                "`{opcode}` is {why}: out of scope for oxla, a single-device engine for static \
                 shapes"
            ),
            None if XLA_ONLY_OPCODES.contains(&opcode) => {
                format!("unsupported op `{opcode}`: oxla's IR has no such op")
            }
            None => format!("unknown opcode `{opcode}`"),
        };
        Err(self.err(pos, message, supported_ops_text()))
    }

    /// An operand: a name, preceded by its shape in long form, or an
    /// instruction written in place (`f32[] multiply(a, b)`, or without a
    /// shape), which is pushed onto `insts` and named later.
    fn operand(&mut self, insts: &mut Vec<RawInst>, depth: usize) -> Result<RawOperand> {
        self.skip_ws()?;
        let shape_pos = self.pos;
        let shape = if self.at_shape() {
            Some(self.shape(0)?)
        } else {
            None
        };
        self.skip_ws()?;
        let pos = self.pos;
        let word = self.peek_word();
        if self.peek() != Some(b'%') && !word.is_empty() {
            let mut after = self.sub(pos + word.len(), self.end);
            if after.skip_ws().is_ok() && after.peek() == Some(b'(') {
                let placeholder = NameRef {
                    name: String::new(),
                    pos,
                };
                let mut inst = self.instruction_body(
                    insts,
                    placeholder.clone(),
                    false,
                    shape.map(|(s, _)| s),
                    shape_pos,
                    depth + 1,
                    false,
                )?;
                inst.nested = true;
                insts.push(inst);
                return Ok(RawOperand {
                    name: placeholder,
                    shape: None,
                    nested: Some(insts.len() - 1),
                });
            }
        }
        let name = self.name("an operand name")?;
        Ok(RawOperand {
            name,
            shape,
            nested: None,
        })
    }

    /// `key=value`; the value is scanned as balanced text (strings and
    /// comments skipped) ending at a top-level `,`, blank, line end or
    /// closing bracket. Inside brackets a value may span lines.
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
        // A value may start on the next line (`calls=\n{...}`).
        self.skip_ws()?;
        let start = self.pos;
        // A value that opens `{` at the end of its line may be a block of
        // lines; otherwise a line that starts an instruction ends an
        // unclosed bracket, so one missing `}` does not swallow the rest.
        let block = {
            let rest = self.rest();
            rest.starts_with('{')
                && rest[1..]
                    .trim_start_matches([' ', '\t', '\r'])
                    .starts_with('\n')
        };
        let mut stack: Vec<(u8, usize)> = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'"' | b'\'' => self.skip_string(&key.name)?,
                b'/' if matches!(self.peek_at(1), Some(b'*') | Some(b'/')) => {
                    if stack.is_empty() {
                        break;
                    }
                    if self.peek_at(1) == Some(b'*') {
                        self.skip_block_comment()?;
                    } else {
                        self.skip_line_comment();
                    }
                }
                b'{' | b'[' | b'(' => {
                    stack.push((c, self.pos));
                    self.pos += 1;
                }
                b'}' | b']' | b')' => {
                    let Some(&(open, open_pos)) = stack.last() else {
                        break;
                    };
                    let want = closing(open);
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
                b'\n' => {
                    if stack.is_empty() {
                        break;
                    }
                    let next = self.rest()[1..].split('\n').next().unwrap_or("");
                    let boundary =
                        starts_instruction(next) || next.trim_start().starts_with("ENTRY ");
                    if !block
                        && boundary
                        && let Some(&(open, open_pos)) = stack.first()
                    {
                        return Err(unterminated(self, open, open_pos, &key.name));
                    }
                    self.pos += 1;
                }
                // At the top level a value ends at `,` or a blank; a
                // custom-call's `literal=` is a shape, a blank and values.
                b',' if stack.is_empty() => break,
                b' ' | b'\t' | b'\r' if stack.is_empty() && key.name != "literal" => break,
                _ => self.pos += 1,
            }
        }
        // The outermost bracket left open is where the value began to go
        // wrong.
        if let Some(&(open, open_pos)) = stack.first() {
            return Err(unterminated(self, open, open_pos, &key.name));
        }
        let end = start + self.src.text[start..self.pos].trim_end().len();
        Ok(RawAttr { key, start, end })
    }

    /// Skips a `"..."` or `'...'` string with `\` escapes; it must end on
    /// its line.
    fn skip_string(&mut self, context: &str) -> Result<()> {
        let start = self.pos;
        let quote = self.bytes[self.pos];
        self.pos += 1;
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.pos += 2,
                b'\n' => break,
                c if c == quote => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.end);
        Err(self.err(
            start,
            format!("unterminated string in the value of attribute `{context}`"),
            format!("`{}` before the end of the line", quote as char),
        ))
    }

    /// A `{ ... }` group (strings, comments and nested brackets skipped),
    /// for the attributes whose content carries no semantics here.
    fn braced_group(&mut self, what: &str) -> Result<()> {
        self.skip_ws()?;
        let open = self.pos;
        if self.peek() != Some(b'{') {
            return Err(self.err(
                open,
                format!(
                    "expected `{{` opening the value of `{what}`, found {}",
                    self.found()
                ),
                format!("`{what}={{...}}`"),
            ));
        }
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' | b'\'' => self.skip_string(what)?,
                b'/' if self.peek_at(1) == Some(b'*') => self.skip_block_comment()?,
                b'/' if self.peek_at(1) == Some(b'/') => self.skip_line_comment(),
                b'{' | b'(' | b'[' => {
                    depth += 1;
                    self.pos += 1;
                }
                b'}' | b')' | b']' => {
                    depth = depth.saturating_sub(1);
                    self.pos += 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => self.pos += 1,
            }
        }
        Err(unterminated(self, b'{', open, what))
    }

    // -- attribute values ----------------------------------------------------

    /// `{0,2}`.
    fn dims_list(&mut self, what: &str) -> Result<Vec<i64>> {
        let mut dims = Vec::new();
        self.list("{", "}", &format!("the {what} list"), |c| {
            dims.push(c.int(&format!("a dimension number in {what}"))?.0);
            Ok(())
        })?;
        Ok(dims)
    }

    /// `{[0:2], [1:3:2]}`.
    fn slice_spec(&mut self) -> Result<(Vec<i64>, Vec<i64>, Vec<i64>)> {
        let (mut starts, mut limits, mut strides) = (vec![], vec![], vec![]);
        self.list("{", "}", "the slice list", |c| {
            c.expect("[", "opening a `[start:limit:stride]` range")?;
            starts.push(c.int("a slice start")?.0);
            c.expect(":", "after the slice start")?;
            limits.push(c.int("a slice limit")?.0);
            strides.push(if c.eat(":")? {
                c.int("a slice stride")?.0
            } else {
                1
            });
            c.expect("]", "closing the slice range")?;
            Ok(())
        })?;
        Ok((starts, limits, strides))
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

    /// A word value (`LT`, `kLoop`, `dot_f32_f32_f32`) and its position.
    fn word(&mut self, what: &str) -> Result<(&'a str, usize)> {
        self.skip_ws()?;
        let pos = self.pos;
        let word = self.peek_word();
        if word.is_empty() {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                what.to_string(),
            ));
        }
        self.pos += word.len();
        Ok((word, pos))
    }

    /// `metadata={op_type="add" op_name="jit(f)/add" source_line=3}`: the
    /// known fields with their types; other fields (XLA adds some over time)
    /// must hold a string, an integer or a list.
    fn metadata(&mut self) -> Result<()> {
        self.expect("{", "opening the metadata")?;
        loop {
            self.eat(",")?;
            if self.eat("}")? {
                return Ok(());
            }
            let field = self.name("a metadata field")?;
            self.expect("=", &format!("after the metadata field `{}`", field.name))?;
            match field.name.as_str() {
                "op_type" | "op_name" | "source_file" | "deduplicated_name" | "scheduling_name" => {
                    self.string(&field.name)?
                }
                "source_line" | "source_end_line" | "source_column" | "source_end_column"
                | "stack_frame_id" => {
                    let (v, pos) = self.int(&field.name)?;
                    if i32::try_from(v).is_err() {
                        return Err(self.err(
                            pos,
                            format!("`{}` {v} is out of range for a 32-bit integer", field.name),
                            "a 32-bit integer",
                        ));
                    }
                }
                "profile_type" => self.list("{", "}", "the profile types", |c| {
                    c.int("a profile type").map(|_| ())
                })?,
                _ => {
                    self.skip_ws()?;
                    match self.peek() {
                        Some(b'"') | Some(b'\'') => self.string(&field.name)?,
                        Some(b'{') => self.braced_group(&field.name)?,
                        _ => {
                            self.int(&field.name)?;
                        }
                    }
                }
            }
        }
    }

    /// `frontend_attributes={key="value", other={json}}`.
    fn frontend_attributes(&mut self) -> Result<()> {
        self.list("{", "}", "the frontend attributes", |c| {
            let key = c.name("a frontend attribute name")?;
            c.expect("=", &format!("after the frontend attribute `{}`", key.name))?;
            c.skip_ws()?;
            if c.peek() == Some(b'{') {
                c.braced_group(&key.name)
            } else {
                c.string(&key.name)
            }
        })
    }

    /// `statistics={visualizing_index=1,stat-1=33}`.
    fn statistics(&mut self) -> Result<()> {
        self.list("{", "}", "the statistics", |c| {
            let key = c.name("a statistic name")?;
            c.expect("=", &format!("after the statistic `{}`", key.name))?;
            c.number(&format!("the value of statistic `{}`", key.name))?;
            Ok(())
        })
    }

    /// `backend_config="..."` or `backend_config={json}`.
    fn backend_config(&mut self) -> Result<()> {
        self.skip_ws()?;
        if self.peek() == Some(b'{') {
            self.braced_group("backend_config")
        } else {
            self.string("the backend config")
        }
    }

    /// `{%a, b}`: instruction names.
    fn name_list(&mut self, what: &str) -> Result<Vec<NameRef>> {
        let mut names = Vec::new();
        self.list("{", "}", what, |c| {
            names.push(c.name("an instruction name")?);
            Ok(())
        })?;
        Ok(names)
    }

    /// `result_accuracy={mode=highest}` or `{tolerance={atol=0, rtol=0,
    /// ulps=2}}`, read as XLA's parser reads it (modes `default` and
    /// `highest`, any case; tolerance fields in any order, the last of a
    /// repeated one counting).
    fn result_accuracy(&mut self) -> Result<Accuracy> {
        self.expect("{", "opening the result accuracy")?;
        self.skip_ws()?;
        let pos = self.pos;
        let key = self.peek_word();
        let after = self.sub(pos + key.len(), self.end);
        if key.is_empty() || after.rest().trim_start().as_bytes().first() != Some(&b'=') {
            return Err(self.err(
                pos,
                format!(
                    "expects attribute name in result_accuracy, found {}",
                    self.found()
                ),
                "`{mode=default}`, `{mode=highest}` or `{tolerance={atol=.., rtol=.., ulps=..}}`",
            ));
        }
        self.pos += key.len();
        self.expect("=", "after the result accuracy field")?;
        let accuracy = match key {
            "mode" => {
                let (mode, pos) = self.word("a result accuracy mode")?;
                match mode.to_ascii_lowercase().as_str() {
                    "default" => Accuracy::Mode("default"),
                    "highest" => Accuracy::Mode("highest"),
                    _ => {
                        return Err(self.err(
                            pos,
                            format!("expects ResultAccuracy type but sees: {mode}"),
                            "`default` or `highest`",
                        ));
                    }
                }
            }
            "tolerance" => {
                let (mut atol, mut rtol, mut ulps) = (0.0, 0.0, 0.0);
                self.list("{", "}", "the tolerance", |c| {
                    let field = c.name("a tolerance field")?;
                    c.expect("=", "after the tolerance field")?;
                    let value = c.number(&format!("the tolerance `{}`", field.name))?.0;
                    match field.name.as_str() {
                        "atol" => atol = value,
                        "rtol" => rtol = value,
                        "ulps" => ulps = value,
                        other => {
                            return Err(c.err(
                                field.pos,
                                format!("invalid attribute name: {other}"),
                                "`atol`, `rtol` or `ulps`",
                            ));
                        }
                    }
                    Ok(())
                })?;
                Accuracy::Tolerance { atol, rtol, ulps }
            }
            other => {
                return Err(self.err(
                    pos,
                    format!("invalid attribute name: {other}"),
                    "`mode` or `tolerance`",
                ));
            }
        };
        self.expect("}", "to end result_accuracy")?;
        Ok(accuracy)
    }

    // -- shapes and literals -----------------------------------------------

    /// A shape with an optional layout: `f32[2,3]{1,0}`, `pred[]`,
    /// `(f32[2]{0}, s32[])`. Validated; the layout is validated as XLA does
    /// and then dropped, since it does not change values.
    fn shape(&mut self, depth: usize) -> Result<(Shape, usize)> {
        self.shape_with(depth, true)
    }

    /// A shape; a layout after it is read only if `layouts` (literal text
    /// has none: `f32[3] {7, 8, 9}` is a shape and its values).
    fn shape_with(&mut self, depth: usize, layouts: bool) -> Result<(Shape, usize)> {
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
                    elements.push(self.shape_with(depth + 1, layouts)?.0);
                    if self.eat(")")? {
                        break;
                    }
                    self.expect(",", "or `)` in the tuple shape")?;
                }
            }
            return Ok((Shape::tuple(elements), pos));
        }
        let word = self.peek_word();
        // `token[]`: a token, which has no dims (and no layout but `{}`).
        if word == "token" && self.peek_at(word.len()) == Some(b'[') {
            self.pos += word.len() + 1;
            self.expect("]", "closing `token[` (a token has no dimensions)")?;
            let before = self.pos;
            self.skip_ws()?;
            if !(layouts && self.rest().starts_with("{}")) {
                self.pos = before;
            } else {
                self.pos += 2;
            }
            return Ok((Shape::token(), pos));
        }
        let element_type = match ElementType::from_name(word) {
            Some(t) if self.peek_at(word.len()) == Some(b'[') => t,
            _ if XLA_ONLY_TYPES.contains(&word) => {
                return Err(self.err(
                    pos,
                    format!("element type `{word}` is not supported by oxla"),
                    "an array element type such as pred, s32, f32, bf16 or c64",
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
                    let token: String = self
                        .rest()
                        .chars()
                        .take_while(|&c| c != ',' && c != ']' && !c.is_whitespace())
                        .take(24)
                        .collect();
                    return Err(self.err(
                        self.pos,
                        format!(
                            "dynamic dimensions (`{token}`) are out of scope for oxla, a \
                             single-device engine for static shapes"
                        ),
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
        let shape = Shape::new(element_type, &dims);
        shape.validate().map_err(|e| {
            self.err(
                pos,
                e.to_string(),
                "a shape with non-negative sizes and at most 2^40 elements",
            )
        })?;
        // As XLA: a `{` starts a layout only if an integer or `:` follows,
        // so `-> f32[2] {` opens a computation body.
        let before = self.pos;
        self.skip_ws()?;
        if layouts && self.peek() == Some(b'{') && self.layout_follows() {
            self.layout(&shape)?;
        } else {
            self.pos = before;
        }
        Ok((shape, pos))
    }

    /// `true` if the `{` at the cursor is followed by an integer or `:`.
    fn layout_follows(&self) -> bool {
        let mut c = self.sub(self.pos + 1, self.end);
        c.skip_ws().is_ok() && matches!(c.peek(), Some(b'0'..=b'9') | Some(b'-') | Some(b':'))
    }

    /// A layout, `{1,0}` or `{1,0:T(8,128)(2,1)E(4)S(1)}`, read as XLA's
    /// `ParseLayout` reads it: minor-to-major dims, then after `:` the
    /// optional parts `D(...)` `T(...)...` `L(n)` `#(uN)` `*(uN)` `E(n)`
    /// `S(n)` `SC(...)...` `P(shape)` `M(n)` in that order. Tiles, element
    /// sizes, memory spaces, split configs and padding place values in
    /// memory and are accepted; sparse dimension types and physical shapes
    /// are refused. The dims must be a permutation of the shape's.
    fn layout(&mut self, shape: &Shape) -> Result<()> {
        let open = self.pos;
        self.pos += 1;
        let mut minor_to_major = Vec::new();
        self.skip_ws()?;
        if matches!(self.peek(), Some(b'0'..=b'9') | Some(b'-')) {
            loop {
                minor_to_major.push(self.int("a layout dimension")?.0);
                if !self.eat(",")? {
                    break;
                }
            }
        }
        if self.eat(":")? {
            if self.eat_layout_part("D")? {
                self.list("(", ")", "the dimension level types", |c| {
                    let (kind, pos) = c.word("a dimension level type")?;
                    match kind {
                        "D" => {}
                        "C" | "S" | "H" => {
                            return Err(c.err(
                                pos,
                                format!(
                                    "sparse layouts (dimension level type `{kind}`) are not \
                                     supported: oxla's arrays are dense"
                                ),
                                "`D` (dense)",
                            ));
                        }
                        _ => {
                            return Err(c.err(
                                pos,
                                format!(
                                    "expected a DimLevelType abbreviation (D, C, or S), found `{kind}`"
                                ),
                                "`D`, `C` or `S`",
                            ));
                        }
                    }
                    // Unique (`+`) and unordered (`~`) markers.
                    if !c.eat("+")? {
                        c.eat("~")?;
                    }
                    Ok(())
                })?;
            }
            if self.eat_layout_part("T")? {
                loop {
                    self.list("(", ")", "a tile", |c| {
                        if !c.eat("*")? {
                            c.int("a tile size")?;
                        }
                        Ok(())
                    })?;
                    let before = self.pos;
                    self.skip_ws()?;
                    if self.peek() != Some(b'(') {
                        self.pos = before;
                        break;
                    }
                }
            }
            if self.eat_layout_part("L")? {
                self.layout_int("the tail padding alignment")?;
            }
            if self.eat("#")? {
                self.layout_unsigned_type("the index type")?;
            }
            if self.eat("*")? {
                self.layout_unsigned_type("the pointer type")?;
            }
            if self.eat_layout_part("E")? {
                self.layout_int("the element size in bits")?;
            }
            if self.eat_layout_part("S")? {
                self.layout_int("the memory space")?;
            }
            if self.eat_layout_part("SC")? {
                loop {
                    self.expect("(", "opening a split config")?;
                    self.int("a split dimension")?;
                    self.expect(":", "after the split dimension")?;
                    loop {
                        self.int("a split index")?;
                        if !self.eat(",")? {
                            break;
                        }
                    }
                    self.expect(")", "closing the split config")?;
                    let before = self.pos;
                    self.skip_ws()?;
                    if self.peek() != Some(b'(') {
                        self.pos = before;
                        break;
                    }
                }
            }
            self.skip_ws()?;
            if self.peek_word() == "P" {
                return Err(self.err(
                    self.pos,
                    "Layout has physical shape, but is not for a sparse array",
                    "a dense layout without `P(...)`",
                ));
            }
            if self.eat_layout_part("M")? {
                self.layout_int("the dynamic shape metadata prefix")?;
            }
        }
        self.expect("}", "closing the layout")?;
        let rank = shape.rank();
        if minor_to_major.len() != rank {
            return Err(self.err(
                open,
                format!(
                    "Dimensions size is {rank}, but minor to major size is {}.",
                    minor_to_major.len()
                ),
                format!("a layout listing each of the {rank} dimension(s) once"),
            ));
        }
        let mut seen = vec![false; rank];
        for &d in &minor_to_major {
            let problem = if d < 0 || d as usize >= rank {
                "an out-of-bounds value"
            } else if std::mem::replace(&mut seen[d as usize], true) {
                "a duplicate value"
            } else {
                continue;
            };
            return Err(self.err(
                open,
                format!(
                    "layout {} of {shape} has {problem} ({d}): minor_to_major must be a \
                     permutation of the {rank} dimension(s)",
                    crate::shape::dims_text(&minor_to_major)
                ),
                format!("a permutation of 0..{rank}"),
            ));
        }
        Ok(())
    }

    /// Consumes the layout part `letter` (a whole word) if it comes next.
    fn eat_layout_part(&mut self, letter: &str) -> Result<bool> {
        let before = self.pos;
        self.skip_ws()?;
        if self.peek_word() == letter {
            self.pos += letter.len();
            Ok(true)
        } else {
            self.pos = before;
            Ok(false)
        }
    }

    /// `(n)` after a layout letter.
    fn layout_int(&mut self, what: &str) -> Result<()> {
        self.expect("(", &format!("opening {what}"))?;
        self.int(what)?;
        self.expect(")", &format!("closing {what}"))?;
        Ok(())
    }

    /// `(u32)` after `#` or `*` in a layout.
    fn layout_unsigned_type(&mut self, what: &str) -> Result<()> {
        self.expect("(", &format!("opening {what}"))?;
        let (ty, pos) = self.word(what)?;
        if !matches!(ty, "u1" | "u2" | "u4" | "u8" | "u16" | "u32" | "u64") {
            return Err(self.err(
                pos,
                format!("expecting an unsigned integer type for {what}, found `{ty}`"),
                "an unsigned integer type such as `u32`",
            ));
        }
        self.expect(")", &format!("closing {what}"))?;
        Ok(())
    }

    /// The value of a `constant(...)` of `shape`: `7`, `{1, 2}`,
    /// `{ { 1, 2 }, { 3, 4 } }`, a tuple `(1, {2, 3})`, or `{...}` (elided
    /// values). A single value for an array (`f32[4] constant(7)`) is what
    /// XLA makes of it: that value at index 0 and zeros elsewhere.
    fn literal(&mut self, shape: &Shape, depth: usize) -> Result<Literal> {
        self.skip_ws()?;
        let pos = self.pos;
        if depth > MAX_NESTING {
            return Err(self.err(
                pos,
                format!("tuple literals nest deeper than {MAX_NESTING} levels"),
                "a shallower literal",
            ));
        }
        // XLA prints large constants, and every tuple constant, as
        // `{...}`; a tuple's scalar elements then print that way here.
        if let Some(end) = self.elided_at() {
            self.pos = end;
            return Literal::elided(shape)
                .map_err(|e| self.err(pos, e.to_string(), format!("a literal of shape {shape}")));
        }
        if shape.is_tuple() {
            let n = shape.tuple_shapes().len();
            self.expect("(", &format!("opening the {shape} tuple literal"))?;
            let mut elements = Vec::new();
            for (i, element) in shape.tuple_shapes().iter().enumerate() {
                if i > 0 {
                    self.expect(",", &format!("between the elements of the {shape} literal"))?;
                }
                elements.push(self.literal(element, depth + 1)?);
            }
            self.expect(
                ")",
                &format!("closing the {shape} tuple literal ({n} element(s))"),
            )?;
            return Ok(Literal::tuple(elements));
        }
        let mut data = ArrayData::zeros(shape.element_type(), 0).ok_or_else(|| {
            self.err(
                self.pos,
                format!("a literal cannot have shape {shape}"),
                "an array shape",
            )
        })?;
        if shape.rank() == 0 {
            if self.peek() == Some(b'{') {
                return Err(self.err(
                    pos,
                    format!("a scalar literal of shape {shape} has no braces"),
                    "a single value such as `1`",
                ));
            }
            self.value(&mut data, shape)?;
        } else if self.peek() == Some(b'{') {
            self.literal_group(shape, 0, &mut data)?;
        } else {
            return self.single_value_array(shape);
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
        let (shape, _) = self.shape_with(depth, false)?;
        self.literal(&shape, depth)
    }

    /// The end of a `{...}` (elided values) at the cursor, if there is one.
    fn elided_at(&self) -> Option<usize> {
        let mut c = self.sub(self.pos, self.end);
        if c.peek() != Some(b'{') {
            return None;
        }
        c.pos += 1;
        c.skip_ws().ok()?;
        if !c.rest().starts_with("...") {
            return None;
        }
        c.pos += 3;
        c.skip_ws().ok()?;
        (c.peek() == Some(b'}')).then_some(c.pos + 1)
    }

    /// The value of a top-level `constant(...)`: a literal, or, for a large
    /// array written as one value, that value alone (see
    /// [`MAX_DENSE_SINGLE_VALUE`]).
    fn constant_value(&mut self, shape: &Shape) -> Result<ConstantValue> {
        self.skip_ws()?;
        let pos = self.pos;
        if shape.is_array()
            && shape.rank() > 0
            && self.peek() != Some(b'{')
            && shape.element_count() > MAX_DENSE_SINGLE_VALUE
        {
            let mut one = ArrayData::zeros(shape.element_type(), 0).ok_or_else(|| {
                self.err(
                    pos,
                    format!("a literal cannot have shape {shape}"),
                    "an array shape",
                )
            })?;
            self.value(&mut one, shape)?;
            let value = Literal::from_array_data(&[], one).map_err(|e| {
                self.err(
                    pos,
                    e.to_string(),
                    format!("a value of type {}", shape.element_type()),
                )
            })?;
            return Ok(ConstantValue::FirstOnly(value));
        }
        self.literal(shape, 0).map(ConstantValue::Literal)
    }

    /// `f32[4] constant(7)`: XLA's parser stores the one value at index 0
    /// and leaves the other elements zero. Arrays of up to
    /// [`MAX_DENSE_SINGLE_VALUE`] elements become dense literals here (a
    /// larger one at the top of a constant is a pad, see
    /// [`Cursor::constant_value`]).
    fn single_value_array(&mut self, shape: &Shape) -> Result<Literal> {
        let pos = self.pos;
        let mut one = ArrayData::zeros(shape.element_type(), 0).ok_or_else(|| {
            self.err(
                pos,
                format!("a literal cannot have shape {shape}"),
                "an array shape",
            )
        })?;
        let token = self.value_token().to_string();
        self.value(&mut one, shape)?;
        let count = shape.element_count();
        if count == 0 {
            return Err(self.err(
                pos,
                format!(
                    "tries to set value {token} to a literal in shape {shape} at linear index 0, \
                     but the index is out of range"
                ),
                "`{}` for an empty array",
            ));
        }
        if count > MAX_DENSE_SINGLE_VALUE {
            return Err(self.err(
                pos,
                format!(
                    "the {shape} element of a tuple constant is written as the single value \
                     {token} (XLA stores it at index 0 with zeros elsewhere); oxla expands that \
                     inside a tuple for at most {MAX_DENSE_SINGLE_VALUE} elements"
                ),
                format!("every value of the {shape} element, in braces"),
            ));
        }
        let mut literal = Literal::zeros(shape)
            .map_err(|e| self.err(pos, e.to_string(), format!("a literal of shape {shape}")))?;
        literal
            .copy_values_from(0, &one)
            .map_err(|e| self.err(pos, e.to_string(), format!("a literal of shape {shape}")))?;
        Ok(literal)
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
        if let Some(component) = shape.element_type().complex_component() {
            return self.complex_value(data, shape, component);
        }
        let pos = self.pos;
        let token = self.value_token();
        if token.starts_with("...") {
            return Err(self.err(
                pos,
                "`...` (elided values) must be a constant's only content: `constant({...})`",
                "every value of the constant, or `{...}` alone",
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
        self.pos += token.len();
        Ok(())
    }

    /// One complex value `(re, im)`, appended to `data` (a `c64` or `c128`
    /// array whose parts have type `component`).
    fn complex_value(
        &mut self,
        data: &mut ArrayData,
        shape: &Shape,
        component: ElementType,
    ) -> Result<()> {
        let what = format!("a {} value `(re, im)`", shape.element_type());
        self.expect("(", &format!("opening {what}"))?;
        let part_shape = Shape::scalar(component);
        let mut parts = ArrayData::zeros(component, 0).ok_or_else(|| {
            self.err(
                self.pos,
                format!("{component} is not a complex part type"),
                "f32 or f64",
            )
        })?;
        self.value(&mut parts, &part_shape)?;
        self.expect(",", &format!("between the parts of {what}"))?;
        self.value(&mut parts, &part_shape)?;
        self.expect(")", &format!("closing {what}"))?;
        match (data, parts) {
            (ArrayData::C64(v), ArrayData::F32(p)) if p.len() == 2 => {
                v.push(crate::Complex64::new(p[0], p[1]))
            }
            (ArrayData::C128(v), ArrayData::F64(p)) if p.len() == 2 => {
                v.push(crate::Complex128::new(p[0], p[1]))
            }
            _ => {
                return Err(self.err(
                    self.pos,
                    format!("{what} does not fit the {shape} literal"),
                    format!("a value of type {}", shape.element_type()),
                ));
            }
        }
        Ok(())
    }
}

/// The closing bracket of `open`.
fn closing(open: u8) -> u8 {
    match open {
        b'{' => b'}',
        b'[' => b']',
        _ => b')',
    }
}

/// The error for a bracket opened at `open_pos` and never closed.
fn unterminated(c: &Cursor<'_, '_>, open: u8, open_pos: usize, what: &str) -> Error {
    c.err(
        open_pos,
        format!(
            "unterminated `{}` in the value of attribute `{what}`",
            open as char
        ),
        format!("`{}` closing it", closing(open) as char),
    )
}

/// Gives the instructions written as operands their names, `<opcode>.anon`
/// (then `.anon.1`, ...) as XLA does, avoiding every name of the
/// computation, and their users' operands the same names.
fn name_nested_instructions(insts: &mut [RawInst]) {
    if !insts.iter().any(|i| i.nested) {
        return;
    }
    let mut taken: HashSet<String> = insts
        .iter()
        .filter(|i| !i.nested)
        .map(|i| i.name.name.clone())
        .collect();
    let mut next: HashMap<String, usize> = HashMap::new();
    for inst in insts.iter_mut().filter(|i| i.nested) {
        let base = format!("{}.anon", inst.opcode);
        let mut name = base.clone();
        if taken.contains(&name) {
            let k = next.entry(base.clone()).or_insert(1);
            loop {
                name = format!("{base}.{k}");
                *k += 1;
                if !taken.contains(&name) {
                    break;
                }
            }
        }
        taken.insert(name.clone());
        inst.name.name = name;
    }
    let names: Vec<String> = insts.iter().map(|i| i.name.name.clone()).collect();
    for inst in insts.iter_mut() {
        for operand in &mut inst.operands {
            if let Some(j) = operand.nested {
                operand.name.name = names[j].clone();
            }
        }
    }
}

/// The message for a decimal beyond `f64`'s range, as XLA words it.
fn double_range_message(token: &str) -> String {
    format!(
        "Constant {token} is out of range for double (+/-{:e}) and so is unparsable",
        f64::MAX
    )
}

/// Appends the value `token` to `data`, or says why it does not fit:
/// `(message, expected)`. As XLA's parser: a `pred` takes `true`, `false`
/// or any integer (non-zero is true); a `u64` takes a negative integer as
/// its two's complement; a float that overflows its type is an error, not
/// an infinity.
fn push_value(data: &mut ArrayData, token: &str) -> std::result::Result<(), (String, String)> {
    fn integer(token: &str, ty: &str) -> std::result::Result<i128, (String, String)> {
        let numeric = token.trim_start_matches(['-', '+']);
        let v = if !numeric.is_empty() && numeric.bytes().all(|b| b.is_ascii_digit()) {
            token.parse::<i128>().ok()
        } else {
            None
        };
        v.ok_or_else(|| {
            (
                format!("`{token}` is not a valid {ty} value"),
                format!("an integer ({ty})"),
            )
        })
    }
    fn int<T: TryFrom<i128>>(token: &str, ty: &str) -> std::result::Result<T, (String, String)> {
        T::try_from(integer(token, ty)?).map_err(|_| {
            (
                format!("{token} is out of range for {ty}"),
                format!("an integer that fits in {ty}"),
            )
        })
    }
    match data {
        ArrayData::Pred(v) => v.push(match token {
            "true" => true,
            "false" => false,
            _ => {
                integer(token, "pred").map_err(|_| {
                    (
                        format!("`{token}` is not a pred value"),
                        "`true` or `false`".into(),
                    )
                })? != 0
            }
        }),
        ArrayData::S8(v) => v.push(int(token, "s8")?),
        ArrayData::S16(v) => v.push(int(token, "s16")?),
        ArrayData::S32(v) => v.push(int(token, "s32")?),
        ArrayData::S64(v) => v.push(int(token, "s64")?),
        ArrayData::U8(v) => v.push(int(token, "u8")?),
        ArrayData::U16(v) => v.push(int(token, "u16")?),
        ArrayData::U32(v) => v.push(int(token, "u32")?),
        ArrayData::U64(v) => {
            let n = integer(token, "u64")?;
            // XLA reads integers as s64, and keeps the bits for u64.
            let wrapped = i64::try_from(n).ok().filter(|&n| n < 0).map(|n| n as u64);
            v.push(match wrapped {
                Some(w) => w,
                None => int(token, "u64")?,
            })
        }
        ArrayData::S1(v) => v.push(sub_byte(token, "s1")?),
        ArrayData::S2(v) => v.push(sub_byte(token, "s2")?),
        ArrayData::S4(v) => v.push(sub_byte(token, "s4")?),
        ArrayData::U1(v) => v.push(sub_byte(token, "u1")?),
        ArrayData::U2(v) => v.push(sub_byte(token, "u2")?),
        ArrayData::U4(v) => v.push(sub_byte(token, "u4")?),
        ArrayData::Bf16(v) => v.push(narrow_float(token, "bf16", 7, |neg, payload| {
            crate::bf16::from_bits((u16::from(neg) << 15) | 0x7f80 | payload as u16)
        })?),
        ArrayData::F16(v) => v.push(narrow_float(token, "f16", 10, |neg, payload| {
            crate::f16::from_bits((u16::from(neg) << 15) | 0x7c00 | payload as u16)
        })?),
        ArrayData::F4E2M1FN(v) => v.push(minifloat(token, "f4e2m1fn")?),
        ArrayData::F8E3M4(v) => v.push(minifloat(token, "f8e3m4")?),
        ArrayData::F8E4M3(v) => v.push(minifloat(token, "f8e4m3")?),
        ArrayData::F8E4M3FN(v) => v.push(minifloat(token, "f8e4m3fn")?),
        ArrayData::F8E4M3FNUZ(v) => v.push(minifloat(token, "f8e4m3fnuz")?),
        ArrayData::F8E4M3B11FNUZ(v) => v.push(minifloat(token, "f8e4m3b11fnuz")?),
        ArrayData::F8E5M2(v) => v.push(minifloat(token, "f8e5m2")?),
        ArrayData::F8E5M2FNUZ(v) => v.push(minifloat(token, "f8e5m2fnuz")?),
        ArrayData::F8E8M0FNU(v) => v.push(minifloat(token, "f8e8m0fnu")?),
        ArrayData::C64(_) | ArrayData::C128(_) => {
            return Err((
                format!("`{token}` is not a complex value"),
                "a complex value `(re, im)`".into(),
            ));
        }
        ArrayData::F32(v) => v.push(match parse_float(token, 23) {
            Some(FloatValue::Number) => {
                let wide = token
                    .parse::<f64>()
                    .map_err(|_| float_error(token, "f32"))?;
                if wide.is_infinite() {
                    return Err((double_range_message(token), "a finite number".into()));
                }
                let x = token
                    .parse::<f32>()
                    .map_err(|_| float_error(token, "f32"))?;
                if x.is_infinite() {
                    return Err((
                        format!(
                            "value {token} is out of range for literal's primitive type f32, \
                             namely [{:e}, {:e}]",
                            f32::MIN,
                            f32::MAX
                        ),
                        "a value that fits in f32, or `inf`".into(),
                    ));
                }
                x
            }
            Some(FloatValue::Bits(negative, payload)) => {
                let bits = (u32::from(negative) << 31) | 0x7f80_0000 | payload as u32;
                f32::from_bits(bits)
            }
            None => return Err(float_error(token, "f32")),
        }),
        ArrayData::F64(v) => v.push(match parse_float(token, 52) {
            Some(FloatValue::Number) => {
                let x = token
                    .parse::<f64>()
                    .map_err(|_| float_error(token, "f64"))?;
                if x.is_infinite() {
                    return Err((double_range_message(token), "a finite number".into()));
                }
                x
            }
            Some(FloatValue::Bits(negative, payload)) => {
                let bits = (u64::from(negative) << 63) | 0x7ff0_0000_0000_0000 | payload;
                f64::from_bits(bits)
            }
            None => return Err(float_error(token, "f64")),
        }),
    }
    Ok(())
}

/// A sub-byte integer value, in range for its type.
fn sub_byte<T: crate::SubByteInt>(
    token: &str,
    ty: &str,
) -> std::result::Result<T, (String, String)> {
    let numeric = token.trim_start_matches(['-', '+']);
    let n = (!numeric.is_empty() && numeric.bytes().all(|b| b.is_ascii_digit()))
        .then(|| token.parse::<i64>().ok())
        .flatten()
        .ok_or_else(|| {
            (
                format!("`{token}` is not a valid {ty} value"),
                format!("an integer ({ty})"),
            )
        })?;
    T::new(n).ok_or_else(|| {
        (
            format!(
                "{token} is out of range for {ty}, namely [{}, {}]",
                T::MIN,
                T::MAX
            ),
            format!("an integer that fits in {ty}"),
        )
    })
}

/// A value of a float type narrower than `f32`: decimal text rounded to
/// nearest (an error if it overflows the type, as in XLA), `inf`, `nan`,
/// or `nan(0x...)` built by `special` from the sign and mantissa bits.
fn narrow_float<T: crate::RealFloat>(
    token: &str,
    ty: &str,
    mantissa_bits: u32,
    special: impl Fn(bool, u64) -> T,
) -> std::result::Result<T, (String, String)> {
    match parse_float(token, mantissa_bits) {
        Some(FloatValue::Number) => {
            let wide = token.parse::<f64>().map_err(|_| float_error(token, ty))?;
            if wide.is_infinite() {
                return Err((double_range_message(token), "a finite number".into()));
            }
            let x = T::from_f64(wide);
            if !x.to_f64().is_finite() {
                return Err((
                    format!("value {token} is out of range for literal's primitive type {ty}"),
                    format!("a value that {ty} can hold"),
                ));
            }
            Ok(x)
        }
        Some(FloatValue::Bits(negative, payload)) => Ok(special(negative, payload)),
        None => Err(float_error(token, ty)),
    }
}

/// A value of a float8 kind or `f4e2m1fn`: [`narrow_float`] whose `inf` and
/// `nan` are the kind's (a kind without infinity reads `inf` as its NaN).
/// A NaN payload (`nan(0x1)`) is refused for the kinds without infinity:
/// their NaN is one bit pattern (or none), with no payload to set (XLA's
/// parser: "does not support payloads").
fn minifloat<T: crate::RealFloat + crate::MiniFloat>(
    token: &str,
    ty: &str,
) -> std::result::Result<T, (String, String)> {
    let format = <T as crate::MiniFloat>::FORMAT;
    let body = token.trim_start_matches(['-', '+']);
    if !format.has_nan_payloads() && body.starts_with("nan(") {
        return Err((
            format!("`{token}` is not a valid {ty} value: {ty} has no NaN payloads"),
            "`nan`, without a payload".into(),
        ));
    }
    let bits = format.mantissa.max(1);
    narrow_float(token, ty, bits, |negative, payload| {
        let x = if payload == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
        <T as crate::RealFloat>::from_f64(if negative { -x } else { x })
    })
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
    /// `add(x, y)`: operands, each a name (optionally after its shape) or
    /// an instruction written in place.
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
            | Opcode::GetTupleElement
            | Opcode::While
            | Opcode::Conditional
            | Opcode::OptimizationBarrier
            | Opcode::Map
            | Opcode::Convolution
            | Opcode::ReduceWindow
            | Opcode::SelectAndScatter
            | Opcode::Gather
            | Opcode::Scatter
            | Opcode::DynamicSlice
            | Opcode::DynamicUpdateSlice
            | Opcode::Complex
            | Opcode::Real
            | Opcode::Imag
            | Opcode::Fft
            | Opcode::Sort
            | Opcode::TopK
            | Opcode::BitcastConvert
            | Opcode::Bitcast
            | Opcode::ReducePrecision
            | Opcode::Rng
            | Opcode::RngBitGenerator
            | Opcode::Cholesky
            | Opcode::TriangularSolve
            | Opcode::BatchNormTraining
            | Opcode::BatchNormInference
            | Opcode::BatchNormGrad
            | Opcode::CustomCall
            | Opcode::AfterAll
            | Opcode::AddDependency
            | Opcode::StochasticConvert
            | Opcode::RngGetAndUpdateState
            | Opcode::RaggedDot => OperandSyntax::Operands,
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

/// An instruction's attributes, interpreted for its op. Each attribute an
/// op's arm of [`Attrs::op`] reads is marked used; [`Attrs::finish`] then
/// validates the attributes every instruction may carry and refuses any
/// other, so no attribute is ever dropped unread. To give an op a new
/// attribute, read it in the op's arm.
struct Attrs<'c, 's, 'a> {
    cursor: &'c Cursor<'s, 'a>,
    attrs: Vec<RawAttr>,
    used: Vec<Cell<bool>>,
    /// The keys the op's arm asked for, for the message on an unexpected
    /// attribute.
    asked: RefCell<Vec<&'static str>>,
    opcode: &'c str,
    opcode_pos: usize,
}

impl<'c, 's, 'a> Attrs<'c, 's, 'a> {
    fn new(
        cursor: &'c Cursor<'s, 'a>,
        attrs: Vec<RawAttr>,
        opcode: &'c str,
        opcode_pos: usize,
    ) -> Attrs<'c, 's, 'a> {
        Attrs {
            cursor,
            used: attrs.iter().map(|_| Cell::new(false)).collect(),
            attrs,
            asked: RefCell::new(Vec::new()),
            opcode,
            opcode_pos,
        }
    }

    /// A cursor over the value of `key`, if given; marks it read.
    fn get(&self, key: &'static str) -> Option<Cursor<'s, 'a>> {
        self.asked.borrow_mut().push(key);
        let i = self.attrs.iter().position(|a| a.key.name == key)?;
        self.used[i].set(true);
        let a = &self.attrs[i];
        Some(self.cursor.sub(a.start, a.end))
    }

    fn missing(&self, key: &str, example: &str) -> Error {
        self.cursor.err(
            self.opcode_pos,
            format!("`{}` needs the attribute `{key}`", self.opcode),
            format!("`, {key}={example}` after the operands"),
        )
    }

    /// Reads the whole value of `key` with `read`, if given.
    fn read<T>(
        &self,
        key: &'static str,
        read: impl FnOnce(&mut Cursor<'s, 'a>) -> Result<T>,
    ) -> Result<Option<T>> {
        let Some(mut c) = self.get(key) else {
            return Ok(None);
        };
        let value = read(&mut c)?;
        c.expect_done(&format!("the value of `{key}`"))?;
        Ok(Some(value))
    }

    /// `operand_precision={default,high,...}` (of a dot or ragged-dot), if
    /// given: how many precisions it lists and where the list starts. Each
    /// must be `default`, `high` or `highest` (XLA:CPU computes every dot
    /// at the full precision of its type, which each of these allows).
    fn operand_precisions(&self) -> Result<Option<(usize, usize)>> {
        self.read("operand_precision", |c| {
            c.skip_ws()?;
            let pos = c.pos;
            let mut count = 0;
            c.list("{", "}", "the operand precisions", |c| {
                let (p, pos) = c.word("a precision")?;
                if !matches!(
                    p.to_ascii_lowercase().as_str(),
                    "default" | "high" | "highest"
                ) {
                    return Err(c.err(
                        pos,
                        format!("expects precision but sees: {p}"),
                        "default, high or highest",
                    ));
                }
                count += 1;
                Ok(())
            })?;
            Ok((count, pos))
        })
    }

    fn dims(&self, key: &'static str) -> Result<Option<Vec<i64>>> {
        self.read(key, |c| c.dims_list(key))
    }

    fn required_dims(&self, key: &'static str) -> Result<Vec<i64>> {
        self.dims(key)?.ok_or_else(|| self.missing(key, "{0}"))
    }

    /// `dimensions={d}` with exactly one entry, for the ops that work along
    /// one dimension (`concatenate` joins, `sort` sorts along it: `verb`).
    fn one_dimension(&self, verb: &str) -> Result<i64> {
        let dims = self.required_dims("dimensions")?;
        let [dimension] = dims[..] else {
            let pos = self.attrs.iter().find(|a| a.key.name == "dimensions");
            return Err(self.cursor.err(
                pos.map_or(self.opcode_pos, |a| a.start),
                format!(
                    "`{}` {verb} along one dimension, but `dimensions` lists {}",
                    self.opcode,
                    dims.len()
                ),
                "`dimensions={d}` with one dimension",
            ));
        };
        Ok(dimension)
    }

    fn name(&self, key: &'static str) -> Result<NameRef> {
        self.read(key, |c| c.name(&format!("a computation name for `{key}`")))?
            .ok_or_else(|| self.missing(key, "%computation"))
    }

    /// `{%a, %b}`: a list of computation names.
    fn names(&self, key: &'static str) -> Result<Vec<NameRef>> {
        self.read(key, |c| {
            c.expect("{", &format!("opening the `{key}` list"))?;
            let mut names = Vec::new();
            if !c.eat("}")? {
                loop {
                    c.skip_ws()?;
                    names.push(c.name(&format!("a computation name in `{key}`"))?);
                    if c.eat("}")? {
                        break;
                    }
                    c.expect(",", &format!("or `}}` in the `{key}` list"))?;
                }
            }
            Ok(names)
        })?
        .ok_or_else(|| self.missing(key, "{%a, %b}"))
    }

    /// The op of a `conditional`: `true_computation=`/`false_computation=`
    /// or `branch_computations=`, never both.
    fn conditional(&self) -> Result<RawOp> {
        let branch_list = self
            .attrs
            .iter()
            .find(|a| a.key.name == "branch_computations");
        let pair = self
            .attrs
            .iter()
            .find(|a| a.key.name == "true_computation" || a.key.name == "false_computation");
        let (callees, pred) = match (branch_list, pair) {
            (Some(_), Some(p)) => {
                return Err(self.cursor.err(
                    p.key.pos,
                    format!(
                        "`conditional` takes `branch_computations=` (an s32 selector) or \
                         `true_computation=` and `false_computation=` (a pred selector), not both; \
                         `{}` is given with `branch_computations`",
                        p.key.name
                    ),
                    "one of the two forms",
                ));
            }
            (Some(_), None) => (self.names("branch_computations")?, false),
            (None, Some(_)) => (
                vec![
                    self.name("true_computation")?,
                    self.name("false_computation")?,
                ],
                true,
            ),
            (None, None) => {
                return Err(self.missing("branch_computations", "{%b0, %b1}"));
            }
        };
        Ok(RawOp::Calls {
            kind: OpKind::Conditional {
                branches: vec![ComputationId(0); callees.len()],
            },
            callees,
            fixup: CallsFixup::ConditionalForm { pred },
        })
    }

    /// A required integer attribute: `index_vector_dim=1`.
    fn required_int(&self, key: &'static str) -> Result<i64> {
        self.read(key, |c| c.int(&format!("the value of `{key}`")))?
            .map(|(value, _)| value)
            .ok_or_else(|| self.missing(key, "0"))
    }

    /// An optional `true`/`false` attribute, `false` when absent.
    fn flag(&self, key: &'static str) -> Result<bool> {
        Ok(self.read(key, |c| c.boolean(key))?.unwrap_or(false))
    }

    /// The op an instruction with these attributes performs, and the checks
    /// its attributes need once the operands' shapes are known.
    fn op(
        &self,
        template: Template,
        number: i64,
        literal: Option<ConstantValue>,
        operand_count: usize,
    ) -> Result<(RawOp, Vec<Check>)> {
        let mut checks = Vec::new();
        let opcode = match template {
            Template::Fusion => {
                let calls = self.name("calls")?;
                let (kind, pos) = self
                    .read("kind", |c| c.word("a fusion kind"))?
                    .ok_or_else(|| self.missing("kind", "kLoop"))?;
                if !matches!(kind, "kLoop" | "kInput" | "kOutput" | "kCustom") {
                    return Err(self.cursor.err(
                        pos,
                        format!("expects fusion kind but sees: {kind}"),
                        "kLoop, kInput, kOutput or kCustom",
                    ));
                }
                // Which outputs may reuse which operands' buffers: memory
                // only.
                self.read("output_to_operand_aliasing", |c| {
                    c.braced_group("output_to_operand_aliasing")
                })?;
                return Ok((
                    RawOp::Fusion {
                        calls,
                        is_call: false,
                    },
                    checks,
                ));
            }
            Template::Call => {
                let calls = self.name("to_apply")?;
                // A composite is a call whose body is its decomposition.
                self.read("is_composite", |c| c.boolean("is_composite"))?;
                return Ok((
                    RawOp::Fusion {
                        calls,
                        is_call: true,
                    },
                    checks,
                ));
            }
            Template::Copy => return Ok((RawOp::Copy, checks)),
            Template::Op(opcode) => opcode,
        };
        let kind = match opcode {
            Opcode::Parameter => OpKind::Parameter { number },
            Opcode::Constant => match literal {
                Some(ConstantValue::Literal(literal)) if literal.shape().is_tuple() => {
                    return Ok((RawOp::TupleConstant(literal), checks));
                }
                Some(ConstantValue::Literal(literal)) => OpKind::Constant { literal },
                Some(ConstantValue::FirstOnly(value)) => {
                    return Ok((RawOp::FirstOnlyConstant(value), checks));
                }
                None => {
                    return Err(self.cursor.err(
                        self.opcode_pos,
                        "a constant needs its shape and its value",
                        "`c = f32[2] constant({1, 2})`",
                    ));
                }
            },
            Opcode::Iota => {
                let dimension = self
                    .read("iota_dimension", |c| c.int("the iota dimension"))?
                    .ok_or_else(|| self.missing("iota_dimension", "0"))?
                    .0;
                OpKind::Iota { dimension }
            }
            Opcode::Unary(op) => {
                if result_accuracy_ulps(op).is_some()
                    && let Some(mut c) = self.get("result_accuracy")
                {
                    c.skip_ws()?;
                    let pos = c.pos;
                    let accuracy = c.result_accuracy()?;
                    c.expect_done("the value of `result_accuracy`")?;
                    checks.push(Check::ResultAccuracy { accuracy, pos });
                }
                OpKind::Unary(op)
            }
            Opcode::Binary(op) => OpKind::Binary {
                op,
                broadcast_dimensions: self.dims("broadcast_dimensions")?.unwrap_or_default(),
            },
            Opcode::Compare => {
                let (word, pos) = self
                    .read("direction", |c| c.word("a comparison direction"))?
                    .ok_or_else(|| self.missing("direction", "LT"))?;
                let dir = ComparisonDirection::from_name(word).ok_or_else(|| {
                    self.cursor.err(
                        pos,
                        format!("unknown comparison direction `{word}`"),
                        "one of EQ, NE, LT, LE, GT, GE",
                    )
                })?;
                // What `type=` means is known from its name alone
                // (TOTALORDER is the total order, any other the element
                // type's default); whether it fits the operands is checked
                // once their shapes are known.
                let mut order = ComparisonOrder::Natural;
                if let Some((ty, pos)) = self.read("type", |c| c.word("a comparison type"))? {
                    let ty = ComparisonType::from_name(ty).ok_or_else(|| {
                        self.cursor.err(
                            pos,
                            format!("expects comparison type but sees: {ty}"),
                            "one of FLOAT, TOTALORDER, SIGNED, UNSIGNED",
                        )
                    })?;
                    if ty == ComparisonType::TotalOrder {
                        order = ComparisonOrder::Total;
                    }
                    checks.push(Check::CompareType { ty, pos });
                }
                OpKind::Binary {
                    op: BinaryOp::Compare(dir, order),
                    broadcast_dimensions: self.dims("broadcast_dimensions")?.unwrap_or_default(),
                }
            }
            Opcode::Convert => OpKind::Convert,
            Opcode::Select => OpKind::Select,
            Opcode::Clamp => OpKind::Clamp,
            Opcode::Broadcast => {
                // XLA lets a scalar's broadcast omit `dimensions` (`{}`).
                let dimensions = match self.dims("dimensions")? {
                    Some(dims) => dims,
                    None => {
                        checks.push(Check::ScalarBroadcast);
                        Vec::new()
                    }
                };
                OpKind::Broadcast { dimensions }
            }
            Opcode::Reshape => {
                // Which dimension a dynamic reshape infers: with static
                // shapes it names nothing to compute.
                self.read("inferred_dimension", |c| c.int("the inferred dimension"))?;
                OpKind::Reshape
            }
            Opcode::Transpose => OpKind::Transpose {
                permutation: self.required_dims("dimensions")?,
            },
            Opcode::Slice => {
                let (starts, limits, strides) = self
                    .read("slice", |c| c.slice_spec())?
                    .ok_or_else(|| self.missing("slice", "{[0:2], [1:3]}"))?;
                OpKind::Slice {
                    starts,
                    limits,
                    strides,
                }
            }
            Opcode::Concatenate => OpKind::Concatenate {
                dimension: self.one_dimension("joins")?,
            },
            Opcode::Reverse => OpKind::Reverse {
                dimensions: self.required_dims("dimensions")?,
            },
            Opcode::Pad => OpKind::Pad {
                config: self
                    .read("padding", |c| c.padding_spec())?
                    .ok_or_else(|| self.missing("padding", "0_0x1_2"))?,
            },
            Opcode::Reduce => {
                return Ok((
                    RawOp::Calls {
                        kind: OpKind::Reduce {
                            dimensions: self.required_dims("dimensions")?,
                            to_apply: ComputationId(0),
                        },
                        callees: vec![self.name("to_apply")?],
                        fixup: CallsFixup::None,
                    },
                    checks,
                ));
            }
            Opcode::Dot => {
                // XLA:CPU computes every dot at the full precision of its
                // type, which is what each of these asks for or allows.
                if let Some((count, pos)) = self.operand_precisions()?
                    && count != 0
                    && count != operand_count
                {
                    return Err(self.cursor.err(
                        pos,
                        format!(
                            "operand_precision lists {count} precision(s), but `dot` has \
                             {operand_count} operand(s)"
                        ),
                        "one precision per operand",
                    ));
                }
                if let Some((name, pos)) = self.read("algorithm", |c| c.word("a dot algorithm"))? {
                    let lower = name.to_ascii_lowercase();
                    if !DOT_ALGORITHMS.contains(&lower.as_str()) {
                        return Err(self.cursor.err(
                            pos,
                            format!("expects algorithm but sees: {name}"),
                            format!("one of {}", DOT_ALGORITHMS.join(", ")),
                        ));
                    }
                    checks.push(Check::DotAlgorithm { name: lower, pos });
                }
                OpKind::DotGeneral {
                    dims: DotDimensionNumbers {
                        lhs_batch: self.dims("lhs_batch_dims")?.unwrap_or_default(),
                        rhs_batch: self.dims("rhs_batch_dims")?.unwrap_or_default(),
                        lhs_contracting: self.dims("lhs_contracting_dims")?.unwrap_or_default(),
                        rhs_contracting: self.dims("rhs_contracting_dims")?.unwrap_or_default(),
                    },
                }
            }
            Opcode::Tuple => OpKind::Tuple,
            // -- sort and top-k (the sort family) --
            Opcode::Sort => {
                let dimension = self.one_dimension("sorts")?;
                return Ok((
                    RawOp::Calls {
                        kind: OpKind::Sort {
                            dimension,
                            is_stable: self
                                .read("is_stable", |c| c.boolean("is_stable"))?
                                .unwrap_or(false),
                            to_apply: ComputationId(0),
                        },
                        callees: vec![self.name("to_apply")?],
                        fixup: CallsFixup::None,
                    },
                    checks,
                ));
            }
            Opcode::TopK => OpKind::TopK {
                k: self
                    .read("k", |c| Ok(c.int("the value of `k`")?.0))?
                    .ok_or_else(|| self.missing("k", "1"))?,
                largest: self
                    .read("largest", |c| c.boolean("largest"))?
                    .unwrap_or(true),
            },
            // -- tuples and control flow (the ctrl family) --
            Opcode::GetTupleElement => OpKind::GetTupleElement {
                index: self
                    .read("index", |c| Ok(c.int("the tuple index")?.0))?
                    .ok_or_else(|| self.missing("index", "0"))?,
            },
            Opcode::While => {
                return Ok((
                    RawOp::Calls {
                        kind: OpKind::While {
                            condition: ComputationId(0),
                            body: ComputationId(0),
                        },
                        callees: vec![self.name("condition")?, self.name("body")?],
                        fixup: CallsFixup::None,
                    },
                    checks,
                ));
            }
            Opcode::Conditional => return Ok((self.conditional()?, checks)),
            Opcode::OptimizationBarrier => OpKind::OptimizationBarrier,
            Opcode::Map => {
                let dimensions = self.dims("dimensions")?;
                return Ok((
                    RawOp::Calls {
                        fixup: if dimensions.is_some() {
                            CallsFixup::None
                        } else {
                            CallsFixup::MapAllDimensions
                        },
                        kind: OpKind::Map {
                            dimensions: dimensions.unwrap_or_default(),
                            to_apply: ComputationId(0),
                        },
                        callees: vec![self.name("to_apply")?],
                    },
                    checks,
                ));
            }
            // -- the windows family (parser/windows.rs) --
            Opcode::Convolution => self.convolution()?,
            Opcode::ReduceWindow => return Ok((self.reduce_window()?, checks)),
            Opcode::SelectAndScatter => return Ok((self.select_and_scatter()?, checks)),
            // -- indexing --
            Opcode::Gather => OpKind::Gather {
                dims: GatherDimensionNumbers {
                    offset_dims: self.required_dims("offset_dims")?,
                    collapsed_slice_dims: self.required_dims("collapsed_slice_dims")?,
                    start_index_map: self.required_dims("start_index_map")?,
                    operand_batching_dims: self.dims("operand_batching_dims")?.unwrap_or_default(),
                    start_indices_batching_dims: self
                        .dims("start_indices_batching_dims")?
                        .unwrap_or_default(),
                    index_vector_dim: self.required_int("index_vector_dim")?,
                },
                slice_sizes: self.required_dims("slice_sizes")?,
                indices_are_sorted: self.flag("indices_are_sorted")?,
            },
            Opcode::Scatter => {
                return Ok((
                    RawOp::Calls {
                        kind: OpKind::Scatter {
                            dims: ScatterDimensionNumbers {
                                update_window_dims: self.required_dims("update_window_dims")?,
                                inserted_window_dims: self.required_dims("inserted_window_dims")?,
                                scatter_dims_to_operand_dims: self
                                    .required_dims("scatter_dims_to_operand_dims")?,
                                input_batching_dims: self
                                    .dims("input_batching_dims")?
                                    .unwrap_or_default(),
                                scatter_indices_batching_dims: self
                                    .dims("scatter_indices_batching_dims")?
                                    .unwrap_or_default(),
                                index_vector_dim: self.required_int("index_vector_dim")?,
                            },
                            indices_are_sorted: self.flag("indices_are_sorted")?,
                            unique_indices: self.flag("unique_indices")?,
                            to_apply: ComputationId(0),
                        },
                        callees: vec![self.name("to_apply")?],
                        fixup: CallsFixup::None,
                    },
                    checks,
                ));
            }
            Opcode::DynamicSlice => OpKind::DynamicSlice {
                slice_sizes: self.required_dims("dynamic_slice_sizes")?,
            },
            Opcode::DynamicUpdateSlice => OpKind::DynamicUpdateSlice,
            Opcode::Complex => OpKind::Complex,
            Opcode::Real => OpKind::Real,
            Opcode::Imag => OpKind::Imag,
            Opcode::Fft => {
                let (word, pos) = self
                    .read("fft_type", |c| c.word("an FFT type"))?
                    .ok_or_else(|| self.missing("fft_type", "FFT"))?;
                let fft_type = FftType::from_name(word).ok_or_else(|| {
                    self.cursor.err(
                        pos,
                        format!("unknown fft_type `{word}`"),
                        "one of FFT, IFFT, RFFT, IRFFT",
                    )
                })?;
                OpKind::Fft {
                    fft_type,
                    fft_length: self.required_dims("fft_length")?,
                }
            }
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
            Opcode::CustomCall => return Ok((self.custom_call()?, checks)),
            Opcode::AfterAll => OpKind::AfterAll,
            Opcode::AddDependency => OpKind::AddDependency,
            Opcode::StochasticConvert => OpKind::StochasticConvert,
            Opcode::RngGetAndUpdateState => OpKind::RngGetAndUpdateState {
                delta: self.required_int("delta")?,
            },
            Opcode::RaggedDot => self.ragged_dot()?,
        };
        Ok((RawOp::Kind(kind), checks))
    }

    /// Validates the attributes the op did not read: the ones every
    /// instruction may carry ([`COMMON_ATTRIBUTES`], which do not change
    /// values on one device: they are checked and dropped); any other is an
    /// `unexpected attribute`. Returns the control predecessors, whose names
    /// are checked once the computation is read.
    fn finish(&self, shape: Option<&Shape>) -> Result<Vec<NameRef>> {
        let mut predecessors = Vec::new();
        for (a, used) in self.attrs.iter().zip(&self.used) {
            if used.get() {
                continue;
            }
            let key = a.key.name.as_str();
            let mut c = self.cursor.sub(a.start, a.end);
            match key {
                "metadata" => c.metadata()?,
                "sharding" | "origin" => c.braced_group(key)?,
                "frontend_attributes" => c.frontend_attributes()?,
                "statistics" => c.statistics()?,
                "backend_config" => c.backend_config()?,
                "control-predecessors" => {
                    predecessors = c.name_list("the control predecessors")?;
                }
                "parameter_replication" => {
                    let mut count = 0usize;
                    c.list("{", "}", "the parameter replication", |c| {
                        c.boolean("a replication flag")?;
                        count += 1;
                        Ok(())
                    })?;
                    if let Some(shape) = shape {
                        let leaves = leaf_count(shape);
                        if leaves != count {
                            return Err(self.cursor.err(
                                a.start,
                                format!(
                                    "parameter has {leaves} leaf buffers, but \
                                     parameter_replication has {count} elements"
                                ),
                                format!("{leaves} flag(s)"),
                            ));
                        }
                    }
                }
                _ => {
                    let mut allowed: Vec<&str> = self.asked.borrow().clone();
                    allowed.extend_from_slice(COMMON_ATTRIBUTES);
                    allowed.sort_unstable();
                    allowed.dedup();
                    return Err(self.cursor.err(
                        a.key.pos,
                        format!("unexpected attribute \"{key}\" on `{}`", self.opcode),
                        format!("one of: {}", allowed.join(", ")),
                    ));
                }
            }
            c.expect_done(&format!("the value of `{key}`"))?;
        }
        Ok(predecessors)
    }
}

/// The number of arrays in a shape (1 for an array).
fn leaf_count(shape: &Shape) -> usize {
    if shape.is_tuple() {
        shape.tuple_shapes().iter().map(leaf_count).sum()
    } else {
        1
    }
}

/// The part of `shape` at tuple index `index` (`{}` is all of it).
fn subshape<'x>(shape: &'x Shape, index: &[i64]) -> Option<&'x Shape> {
    index.iter().try_fold(shape, |s, &i| {
        usize::try_from(i)
            .ok()
            .and_then(|i| s.tuple_shapes().get(i))
    })
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

    /// Appends an instruction named `name` (taken from now on).
    fn add(&mut self, name: String, kind: OpKind, operands: Vec<InstId>, shape: Shape) -> InstId {
        self.used.insert(name.clone());
        let id = InstId(self.instructions.len() as u32);
        self.instructions.push(Instruction {
            name,
            kind,
            operands,
            shape,
        });
        id
    }

    /// Appends an array of `shape` holding `value` at index 0 and zeros
    /// elsewhere, as XLA reads `f32[1000000] constant(7)`: the value
    /// broadcast to a shape of ones and padded with zeros at the high end of
    /// each dimension (`name.value`, `name.zero`, `name.first`, then `name`).
    fn add_first_only(
        &mut self,
        name: String,
        value: &Literal,
        zero: &Literal,
        shape: &Shape,
    ) -> InstId {
        self.used.insert(name.clone());
        let ty = shape.element_type();
        let scalar = Shape::scalar(ty);
        let value_name = self.fresh_name(&format!("{name}.value"));
        let v = self.add(
            value_name,
            OpKind::Constant {
                literal: value.clone(),
            },
            vec![],
            scalar.clone(),
        );
        let zero_name = self.fresh_name(&format!("{name}.zero"));
        let z = self.add(
            zero_name,
            OpKind::Constant {
                literal: zero.clone(),
            },
            vec![],
            scalar,
        );
        let ones = vec![1; shape.rank()];
        let first_name = self.fresh_name(&format!("{name}.first"));
        let first = self.add(
            first_name,
            OpKind::Broadcast { dimensions: vec![] },
            vec![v],
            Shape::new(ty, &ones),
        );
        let config = shape
            .dims()
            .iter()
            .map(|&d| PadDim {
                lo: 0,
                hi: d - 1,
                interior: 0,
            })
            .collect();
        self.add(name, OpKind::Pad { config }, vec![first, z], shape.clone())
    }

    /// Appends `literal` as a constant, or a tuple literal as a `tuple` of
    /// constants (elements named `name.0`, `name.1`, ...).
    fn add_literal(&mut self, name: String, literal: &Literal) -> InstId {
        self.used.insert(name.clone());
        match literal.tuple_elements() {
            Some(elements) => {
                let operands = elements
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let element = self.fresh_name(&format!("{name}.{i}"));
                        self.add_literal(element, e)
                    })
                    .collect();
                self.add(name, OpKind::Tuple, operands, literal.shape().clone())
            }
            None => self.add(
                name,
                OpKind::Constant {
                    literal: literal.clone(),
                },
                vec![],
                literal.shape().clone(),
            ),
        }
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
    /// Every error so far: the syntax errors the text recovered from, then
    /// the semantic ones.
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
    fn new(src: &'s Source<'a>, module: &'s RawModule, errors: Vec<Error>) -> Lowering<'s, 'a> {
        Lowering {
            src,
            module,
            by_name: HashMap::new(),
            resolved: Vec::new(),
            body_of: vec![None; module.comps.len()],
            bodies: Vec::new(),
            errors,
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
    /// [`MAX_DIAGNOSTICS`] are).
    fn reporting(&self) -> bool {
        self.errors.len() < MAX_DIAGNOSTICS
    }

    fn error(&mut self, pos: usize, message: impl Into<String>, expected: impl Into<String>) {
        if self.reporting() {
            self.errors.push(self.src.error(pos, message, expected));
        }
    }

    /// The errors, in the order of the text.
    fn fail<T>(mut self) -> std::result::Result<T, Vec<Error>> {
        self.errors.sort_by_key(|e| match e {
            Error::Parse { line, column, .. } => (*line, *column),
            _ => (usize::MAX, 0),
        });
        self.errors.truncate(MAX_DIAGNOSTICS);
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
            let references = c.insts.iter().flat_map(|inst| -> Vec<(&NameRef, bool)> {
                match &inst.op {
                    RawOp::Calls { callees, .. } => callees.iter().map(|r| (r, false)).collect(),
                    RawOp::Fusion { calls, .. } => vec![(calls, true)],
                    RawOp::Kind(_)
                    | RawOp::Copy
                    | RawOp::TupleConstant(_)
                    | RawOp::FirstOnlyConstant(_)
                    | RawOp::Poisoned => vec![],
                }
            });
            for (r, is_fusion) in references {
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
                for id in inst.kind.called_computations_mut() {
                    *id = ComputationId(new_id[id.index()]);
                }
            }
            bodies.push(body);
        }
        if let Some(entry) = bodies.last() {
            self.check_module_attributes(entry);
        }
        if !self.errors.is_empty() {
            return self.fail();
        }
        if !self.verify {
            return Ok(Computation::from_bodies_unverified(
                self.module.name.clone(),
                bodies,
            ));
        }
        Computation::from_bodies(self.module.name.clone(), bodies).map_err(|e| vec![e])
    }

    /// Checks the module attributes that describe the entry computation:
    /// `entry_computation_layout` must list its signature (any valid
    /// layouts: oxla exchanges values, not buffers), and every alias or
    /// donor must name parameters and outputs that exist, with equal shapes.
    fn check_module_attributes(&mut self, entry: &Body) {
        let module: &'s RawModule = self.module;
        let params = entry.parameter_shapes();
        let Some(root) = entry.instructions.get(entry.root.index()) else {
            return;
        };
        let result = root.shape.clone();
        if let Some(layout) = &module.attrs.entry_layout {
            if layout.params.len() != params.len() {
                self.error(
                    layout.pos,
                    format!(
                        "Number of parameters in entry computation layout ({}) must be same as \
                         number of parameters of entry computation `{}` ({})",
                        layout.params.len(),
                        entry.name,
                        params.len()
                    ),
                    format!("{} parameter shape(s)", params.len()),
                );
            } else {
                for (k, ((declared, pos), actual)) in layout.params.iter().zip(&params).enumerate()
                {
                    if declared != actual {
                        self.error(
                            *pos,
                            format!(
                                "the entry computation layout gives parameter {k} shape \
                                 {declared}, but parameter {k} of `{}` is {actual}",
                                entry.name
                            ),
                            format!("{actual}"),
                        );
                    }
                }
            }
            let (declared, pos) = &layout.result;
            if *declared != result {
                self.error(
                    *pos,
                    format!(
                        "the entry computation layout gives the result shape {declared}, but \
                         the root of `{}` has shape {result}",
                        entry.name
                    ),
                    format!("{result}"),
                );
            }
        }
        for alias in &module.attrs.aliases {
            let index_text = |i: &[i64]| crate::shape::dims_text(i);
            let Some(param) = usize::try_from(alias.parameter)
                .ok()
                .and_then(|p| params.get(p))
            else {
                self.error(
                    alias.pos,
                    format!(
                        "the alias names parameter {}, but `{}` has {} parameter(s)",
                        alias.parameter,
                        entry.name,
                        params.len()
                    ),
                    format!("a parameter number below {}", params.len()),
                );
                continue;
            };
            let Some(input) = subshape(param, &alias.parameter_index) else {
                self.error(
                    alias.pos,
                    format!(
                        "shape index {} does not exist in parameter {} ({param})",
                        index_text(&alias.parameter_index),
                        alias.parameter
                    ),
                    "a shape index of the parameter",
                );
                continue;
            };
            let Some(output_index) = &alias.output else {
                continue;
            };
            let Some(output) = subshape(&result, output_index) else {
                self.error(
                    alias.pos,
                    format!(
                        "shape index {} does not exist in the result ({result})",
                        index_text(output_index)
                    ),
                    "a shape index of the result",
                );
                continue;
            };
            if input != output {
                self.error(
                    alias.pos,
                    format!(
                        "output {} ({output}) is aliased with parameter {} at {} ({input}), \
                         which has another shape",
                        index_text(output_index),
                        alias.parameter,
                        index_text(&alias.parameter_index)
                    ),
                    "an output and a parameter of the same shape",
                );
            }
        }
    }

    /// Resolves operand names, control predecessors, the root and the
    /// definition order of `c`.
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
                if let Some(j) = o.nested {
                    ids.push(Some(j));
                    continue;
                }
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
            // Control dependencies order side effects, which oxla's ops do
            // not have; their names must still exist.
            for p in &inst.control_predecessors {
                if !index.contains_key(p.name.as_str()) {
                    self.error(
                        p.pos,
                        format!(
                            "instruction '{}' is not defined: `{}` names it as a control \
                             predecessor in computation `{}`",
                            p.name, inst.name.name, c.name.name
                        ),
                        "the name of an instruction of this computation",
                    );
                }
            }
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
        // XLA takes the last instruction when none is marked ROOT.
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
        // A parameter that did not parse would look like a gap: the
        // numbering is only checked when every instruction parsed.
        let complete = !comp.insts.iter().any(|i| matches!(i.op, RawOp::Poisoned));
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
            if !complete {
                break;
            }
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
        if let Some(h) = &comp.header
            && complete
        {
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
                    if let Some(shape) = &inst.shape
                        && hs != shape
                    {
                        self.error(
                            *hpos,
                            format!(
                                "the header gives parameter `{}` shape {hs}, but it is declared {shape}",
                                inst.name.name
                            ),
                            format!("{shape}"),
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
            if !ok || !self.check(inst, &ops, t) || !self.bitcast_layouts(comp, ci, i) {
                continue;
            }
            map[i] = match (&inst.op, args) {
                (RawOp::Poisoned, _) => continue,
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
                    let Some(declared) = &inst.shape else {
                        self.cannot_infer(inst);
                        continue;
                    };
                    if t.shape(arg) != declared {
                        let actual = t.shape(arg).clone();
                        self.error(
                            inst.shape_pos,
                            format!(
                                "parameter `{}` of fused computation `{}` is declared {declared}, but `{}` passes {actual}",
                                inst.name.name, comp.name.name, fusion.name.name
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
                    if let Some(declared) = &inst.shape
                        && t.shape(x) != declared
                    {
                        let actual = t.shape(x).clone();
                        self.error(
                            inst.shape_pos,
                            format!(
                                "`{}` declares shape {declared} but copies a value of shape {actual}",
                                inst.name.name
                            ),
                            format!("{actual}"),
                        );
                        continue;
                    }
                    Some(x)
                }
                (RawOp::Fusion { calls, is_call }, _) => {
                    if inst.shape.is_none() && !is_call {
                        self.cannot_infer(inst);
                        continue;
                    }
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
                    if let Some(declared) = &inst.shape
                        && t.shape(root) != declared
                    {
                        let actual = t.shape(root).clone();
                        self.error(
                            inst.shape_pos,
                            format!(
                                "`{}` declares shape {declared} but its called computation `{}` gives {actual}",
                                inst.name.name, calls.name
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
                    RawOp::Calls {
                        kind,
                        callees,
                        fixup,
                    },
                    _,
                ) => {
                    let bodies: Option<Vec<usize>> = callees
                        .iter()
                        .map(|r| {
                            self.by_name
                                .get(r.name.as_str())
                                .and_then(|&c| self.body_of[c])
                        })
                        .collect();
                    // A callee in error has been reported already.
                    let Some(bodies) = bodies else { continue };
                    let mut kind = kind.clone();
                    for (id, body) in kind.called_computations_mut().into_iter().zip(bodies) {
                        *id = ComputationId(body as u32);
                    }
                    if !self.fix_calls(t, inst, &mut kind, *fixup, &ops) {
                        continue;
                    }
                    self.push(t, inst, kind, ops, depth)
                }
                (RawOp::TupleConstant(literal), _) => {
                    let name = if depth == 0 {
                        inst.name.name.clone()
                    } else {
                        t.fresh_name(&inst.name.name)
                    };
                    Some(t.add_literal(name, literal))
                }
                (RawOp::FirstOnlyConstant(value), _) => {
                    let Some(shape) = &inst.shape else {
                        self.cannot_infer(inst);
                        continue;
                    };
                    let zero = match Literal::zeros(value.shape()) {
                        Ok(zero) => zero,
                        Err(e) => {
                            self.error(inst.opcode_pos, e.to_string(), "a constant");
                            continue;
                        }
                    };
                    let name = if depth == 0 {
                        inst.name.name.clone()
                    } else {
                        t.fresh_name(&inst.name.name)
                    };
                    Some(t.add_first_only(name, value, &zero, shape))
                }
                (RawOp::Kind(kind), _) => self.push(t, inst, kind.clone(), ops, depth),
            };
        }
        // An empty computation (reported) has no root.
        map.get(root_index).copied().flatten()
    }

    /// Reports that `inst` needs the shape its text omits.
    fn cannot_infer(&mut self, inst: &RawInst) {
        self.error(
            inst.opcode_pos,
            format!("cannot infer shape for opcode: {}", inst.opcode),
            format!(
                "the result shape before the opcode: `{} = f32[2] {}(...)`",
                inst.name.name, inst.opcode
            ),
        );
    }

    /// The checks of `inst`'s attributes that need its operands' shapes;
    /// `false` after reporting one that fails.
    fn check(&mut self, inst: &RawInst, ops: &[InstId], t: &Target) -> bool {
        let operand = ops.first().map(|&x| t.shape(x).clone());
        let ty = operand.as_ref().map(Shape::element_type);
        for check in &inst.checks {
            match check {
                Check::ScalarBroadcast => {
                    if let Some(shape) = &operand
                        && !shape.is_scalar()
                    {
                        self.error(
                            inst.opcode_pos,
                            format!(
                                "attribute dimensions is expected but not seen: only the \
                                 broadcast of a scalar may omit it, and `{}` broadcasts {shape}",
                                inst.name.name
                            ),
                            "`, dimensions={...}` mapping each operand dimension",
                        );
                        return false;
                    }
                }
                Check::CompareType { ty: given, pos } => {
                    let Some(shape) = &operand else { continue };
                    // Without array operands, shape inference reports.
                    if !shape.is_array() {
                        continue;
                    }
                    if let Err(e) = comparison_order(*given, shape) {
                        self.error(
                            *pos,
                            format!("invalid `compare` instruction `{}`: {e}", inst.name.name),
                            format!(
                                "`type={}` or no `type=`",
                                ComparisonType::default_for(shape.element_type())
                            ),
                        );
                        return false;
                    }
                }
                Check::DotAlgorithm { name, pos } => {
                    let Some(ty) = ty else { continue };
                    let computed = match ty {
                        ElementType::F32 => Some("dot_f32_f32_f32"),
                        ElementType::F64 => Some("dot_f64_f64_f64"),
                        // The half-width floats accumulate in f32 (docs/types.md).
                        ElementType::Bf16 => Some("dot_bf16_bf16_f32"),
                        ElementType::F16 => Some("dot_f16_f16_f32"),
                        ElementType::S1
                        | ElementType::S2
                        | ElementType::S4
                        | ElementType::U1
                        | ElementType::U2
                        | ElementType::U4
                        | ElementType::F4E2M1FN
                        | ElementType::F8E3M4
                        | ElementType::F8E4M3
                        | ElementType::F8E4M3FN
                        | ElementType::F8E4M3FNUZ
                        | ElementType::F8E4M3B11FNUZ
                        | ElementType::F8E5M2
                        | ElementType::F8E5M2FNUZ
                        | ElementType::F8E8M0FNU
                        | ElementType::C64
                        | ElementType::C128
                        | ElementType::Pred
                        | ElementType::S8
                        | ElementType::S16
                        | ElementType::S32
                        | ElementType::S64
                        | ElementType::U8
                        | ElementType::U16
                        | ElementType::U32
                        | ElementType::U64
                        | ElementType::Tuple
                        | ElementType::Token => None,
                    };
                    if name == "unset" || computed == Some(name.as_str()) {
                        continue;
                    }
                    let what = match computed {
                        Some(c) => {
                            let acc = if ty.is_narrow_float() {
                                ElementType::F32
                            } else {
                                ty
                            };
                            format!(
                                "oxla computes a dot of {ty} operands as {c} (inputs in {ty}, \
                                 accumulation in {acc})"
                            )
                        }
                        None => format!("oxla computes a dot of {ty} operands in {ty} arithmetic"),
                    };
                    self.error(
                        *pos,
                        format!(
                            "algorithm={name} asks for another dot than the one computed: {what}; \
                             it is refused rather than ignored"
                        ),
                        match computed {
                            Some(c) => format!("`algorithm={c}` or no `algorithm`"),
                            None => "no `algorithm`".to_string(),
                        },
                    );
                    return false;
                }
                Check::ResultAccuracy { accuracy, pos } => {
                    let Accuracy::Tolerance { atol, rtol, ulps } = *accuracy else {
                        // `default` is what oxla computes; `highest` is met
                        // by construction (docs/hlo-text.md).
                        continue;
                    };
                    let RawOp::Kind(OpKind::Unary(op)) = inst.op else {
                        continue;
                    };
                    let bound = result_accuracy_ulps(op).unwrap_or(0);
                    let message = if [atol, rtol, ulps].iter().any(|v| v.is_nan() || *v < 0.0) {
                        format!(
                            "result_accuracy tolerances must be non-negative numbers, got \
                             atol={atol} rtol={rtol} ulps={ulps}"
                        )
                    } else if ulps >= f64::from(bound) {
                        continue;
                    } else {
                        format!(
                            "result_accuracy asks `{}` for {ulps} ulp(s), but oxla guarantees \
                             {bound} ulp(s) against its oracle for `{op}` on {} \
                             (docs/jit-accuracy.md); it is refused rather than ignored",
                            inst.name.name,
                            ty.map_or_else(|| "floats".to_string(), |t| t.to_string())
                        )
                    };
                    self.error(
                        *pos,
                        message,
                        format!("`result_accuracy={{tolerance={{ulps={bound}}}}}` or looser, or `{{mode=highest}}`"),
                    );
                    return false;
                }
            }
        }
        true
    }

    /// Completes what an op that calls computations needs from its
    /// operands; `false` after an error (reported).
    fn fix_calls(
        &mut self,
        t: &Target,
        inst: &RawInst,
        kind: &mut OpKind,
        fixup: CallsFixup,
        ops: &[InstId],
    ) -> bool {
        match (fixup, kind) {
            (CallsFixup::None, _) => true,
            (CallsFixup::MapAllDimensions, OpKind::Map { dimensions, .. }) => {
                let rank = ops.first().map_or(0, |&o| t.shape(o).rank());
                *dimensions = (0..rank as i64).collect();
                true
            }
            (CallsFixup::ConditionalForm { pred }, OpKind::Conditional { .. }) => {
                let Some(&selector) = ops.first() else {
                    return true;
                };
                let ty = t.shape(selector).element_type();
                // Any other selector is refused by shape inference.
                let wrong = if pred {
                    ty == ElementType::S32
                } else {
                    ty == ElementType::Pred
                };
                if wrong {
                    let (given, wanted) = if pred {
                        (
                            "`true_computation=`/`false_computation=`",
                            "`branch_computations={...}`",
                        )
                    } else {
                        (
                            "`branch_computations=`",
                            "`true_computation=` and `false_computation=`",
                        )
                    };
                    self.error(
                        inst.opcode_pos,
                        format!(
                            "`{}` selects its branch with {}, which takes {wanted}, not {given}",
                            inst.name.name,
                            t.shape(selector)
                        ),
                        wanted,
                    );
                    return false;
                }
                true
            }
            (CallsFixup::MapAllDimensions | CallsFixup::ConditionalForm { .. }, _) => true,
        }
    }

    /// Adds one instruction after checking its declared shape against
    /// shape inference, or inferring it when the text omits it.
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
        let same_rank = shapes.len() == 2 && shapes[0].rank() == shapes[1].rank();
        let shape = match &inst.shape {
            // Unverified: the declared shape stands; the verifier reports.
            Some(declared) if !self.verify => declared.clone(),
            Some(declared) => match infer_instruction_shape(&kind, &shapes, declared, &called) {
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
                Ok(s) if s != *declared => {
                    self.error(
                        inst.shape_pos,
                        format!(
                            "`{}` declares shape {declared} but its operands give {s}",
                            inst.name.name
                        ),
                        format!("the shape {s}"),
                    );
                    return None;
                }
                Ok(s) => s,
            },
            None => match infer_undeclared_shape(&kind, &shapes, &called) {
                Ok(Some(s)) => s,
                Ok(None) => {
                    self.cannot_infer(inst);
                    return None;
                }
                Err(e) => {
                    self.error(
                        inst.opcode_pos,
                        format!(
                            "failed to infer shape for opcode: {} (instruction `{}`): {e}",
                            inst.opcode, inst.name.name
                        ),
                        "operands and attributes that fit together",
                    );
                    return None;
                }
            },
        };
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
        Some(t.add(name, kind, ops, shape))
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
