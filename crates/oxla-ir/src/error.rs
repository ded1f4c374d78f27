//! The one error type of oxla.
//!
//! Every variant carries the data a caller needs to react (the op, the
//! shapes as XLA text, the offending dimension), and its message names every
//! shape involved in XLA notation (`f32[2,3]`) and says what would have been
//! valid. The first sentence of each broadcasting message follows XLA's
//! wording (see `shared/reference/xla-rules.md`), so a user who searches for
//! an XLA error finds ours too; the `help:` part is ours.

use std::fmt;

/// Shorthand for `Result<T, oxla_ir::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in oxla, as data.
///
/// ```
/// use oxla_ir::{Builder, ElementType, Error, Shape};
/// let mut b = Builder::new("e");
/// let x = b.parameter(0, Shape::new(ElementType::F32, &[2, 3]), "x")?;
/// let v = b.parameter(1, Shape::new(ElementType::F32, &[3]), "v")?;
/// let err = b.add(x, v, &[0]).unwrap_err();
/// assert!(matches!(err, Error::BroadcastDimensionMismatch { .. }));
/// assert!(err.to_string().contains("f32[3] and f32[2,3]"));
/// assert!(err.to_string().contains("broadcast_dimensions={1}"));
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The two operands of a binary op have different element types.
    #[error(
        "Binary op {op} with different element types: {lhs} and {rhs}.\nhelp: oxla never \
         promotes types implicitly; {help}"
    )]
    ElementTypeMismatch {
        /// The op, HLO spelling (`add`, `compare`).
        op: String,
        /// The left operand's shape.
        lhs: crate::Shape,
        /// The right operand's shape.
        rhs: crate::Shape,
        /// Which conversion would make the types agree.
        help: String,
    },

    /// An operand has an element type the op does not accept.
    #[error(
        "Expected element type in shape to be {expected} for operation {op}; got {shape}.\nhelp: {help}"
    )]
    UnsupportedElementType {
        /// The op.
        op: String,
        /// The offending shape.
        shape: String,
        /// What would have been accepted, in words.
        expected: String,
        /// What to do about it.
        help: String,
    },

    /// Equal ranks with a `broadcast_dimensions` that is not empty and not the
    /// identity.
    #[error(
        "Broadcast dimensions field must either be not set or be the identity on binary \
         operations with operands of the same rank: {op}({lhs}, {rhs}) got \
         broadcast_dimensions={broadcast_dimensions}.\nhelp: {help}"
    )]
    BroadcastDimensionsNotIdentity {
        /// The op.
        op: String,
        /// Left shape.
        lhs: crate::Shape,
        /// Right shape.
        rhs: crate::Shape,
        /// The list given, as `{..}`.
        broadcast_dimensions: String,
        /// What would be valid.
        help: String,
    },

    /// Different ranks, a non-scalar smaller operand, and no
    /// `broadcast_dimensions`.
    #[error(
        "Shapes must be equal rank, but are {smaller} and {larger} (in {op}); XLA semantics do \
         not guess how a lower-rank operand lines up.\nhelp: {help}"
    )]
    ShapesMustBeEqualRank {
        /// The op.
        op: String,
        /// The lower-rank operand's shape.
        smaller: crate::Shape,
        /// The higher-rank operand's shape.
        larger: crate::Shape,
        /// What would be valid.
        help: String,
        /// The `broadcast_dimensions` that were given.
        broadcast_dimensions: Vec<i64>,
    },

    /// `broadcast_dimensions` does not have one entry per dimension of the
    /// lower-rank operand.
    #[error(
        "Size of broadcast_dimensions has to match lower-rank operand's rank;  lower-rank \
         operand's rank is {rank}, size of broadcast_dimensions is {size} (in {op} of {smaller} \
         and {larger}).\nhelp: {help}"
    )]
    BroadcastDimensionsSize {
        /// The op.
        op: String,
        /// Rank of the smaller operand.
        rank: usize,
        /// Length of the list given.
        size: usize,
        /// Smaller shape.
        smaller: crate::Shape,
        /// Larger shape.
        larger: crate::Shape,
        /// What would be valid.
        help: String,
        /// The `broadcast_dimensions` that were given.
        broadcast_dimensions: Vec<i64>,
    },

    /// A negative entry in `broadcast_dimensions`.
    #[error(
        "Broadcast dimension number ({dimension}) cannot be negative (in {op} of {smaller} and \
         {larger}).\nhelp: {help}"
    )]
    BroadcastDimensionNegative {
        /// The op.
        op: String,
        /// The entry.
        dimension: i64,
        /// Smaller shape.
        smaller: crate::Shape,
        /// Larger shape.
        larger: crate::Shape,
        /// What would be valid.
        help: String,
        /// The `broadcast_dimensions` that were given.
        broadcast_dimensions: Vec<i64>,
    },

    /// An entry of `broadcast_dimensions` past the higher-rank operand's rank.
    #[error(
        "Broadcast dimension number ({dimension}) too large; higher-rank operand has rank \
         {rank} (in {op} of {smaller} and {larger}).\nhelp: {help}"
    )]
    BroadcastDimensionTooLarge {
        /// The op.
        op: String,
        /// The entry.
        dimension: i64,
        /// Rank of the larger operand.
        rank: usize,
        /// Smaller shape.
        smaller: crate::Shape,
        /// Larger shape.
        larger: crate::Shape,
        /// What would be valid.
        help: String,
        /// The `broadcast_dimensions` that were given.
        broadcast_dimensions: Vec<i64>,
    },

    /// Dimension `index` of the smaller operand has a size that neither
    /// equals the size of the dimension it maps to nor is 1 (nor is that one 1).
    #[error(
        "Broadcast dimension {index} mismatch: {smaller_size} != {larger_size}; {smaller} and \
         {larger} (in {op}: dimension {index} of {smaller} was mapped to dimension {mapped_to} \
         of {larger}).\nhelp: {help}"
    )]
    BroadcastDimensionMismatch {
        /// The op.
        op: String,
        /// The dimension of the smaller operand.
        index: usize,
        /// The dimension of the larger operand it was mapped to.
        mapped_to: i64,
        /// Its size in the smaller operand.
        smaller_size: i64,
        /// The size of the dimension it maps to.
        larger_size: i64,
        /// Smaller shape.
        smaller: crate::Shape,
        /// Larger shape.
        larger: crate::Shape,
        /// What would be valid.
        help: String,
        /// The `broadcast_dimensions` that were given.
        broadcast_dimensions: Vec<i64>,
    },

    /// `broadcast_dimensions` is not strictly increasing.
    #[error(
        "Broadcast dimensions order is wrong: {dimension} comes after {previous} (in {op} of \
         {smaller} and {larger}); the list must be strictly increasing.\nhelp: {help}"
    )]
    BroadcastDimensionsOrder {
        /// The op.
        op: String,
        /// The entry out of order.
        dimension: i64,
        /// The entry before it.
        previous: i64,
        /// Smaller shape.
        smaller: crate::Shape,
        /// Larger shape.
        larger: crate::Shape,
        /// What would be valid.
        help: String,
        /// The `broadcast_dimensions` that were given.
        broadcast_dimensions: Vec<i64>,
    },

    /// Equal-rank operands whose sizes differ at a dimension where neither is 1.
    #[error(
        "Binary op {op} with incompatible shapes: {lhs} and {rhs}; dimension {dimension} is \
         {lhs_size} in {lhs} and {rhs_size} in {rhs}, and neither is 1.\nhelp: {help}"
    )]
    IncompatibleShapes {
        /// The op.
        op: String,
        /// Left shape (after any InDim step).
        lhs: crate::Shape,
        /// Right shape.
        rhs: crate::Shape,
        /// The first dimension that does not match.
        dimension: usize,
        /// Its size on the left.
        lhs_size: i64,
        /// Its size on the right.
        rhs_size: i64,
        /// What would be valid.
        help: String,
    },

    /// A shape with a negative size, too many dims or too many elements.
    #[error("Invalid shape {shape}: {reason}.")]
    InvalidShape {
        /// The shape.
        shape: String,
        /// Why it is invalid.
        reason: String,
    },

    /// An op's operands or attributes do not fit together (non-broadcasting
    /// ops: reshape, transpose, slice, pad, reduce, dot, ...).
    #[error("Invalid {op}: {problem}")]
    InvalidOp {
        /// The op (its HLO spelling, or a composite's name).
        op: String,
        /// What is wrong, as data: the shapes and numbers involved.
        problem: crate::OpProblem,
    },

    /// A NumPy or TML front-end refuses an operation its rules do not allow.
    #[error("Invalid {op}: {message}")]
    FrontEnd {
        /// The front-end's world (`numpy`, `tml`).
        world: String,
        /// The operation, as the front-end names it.
        op: String,
        /// What is wrong, naming the shapes, and what would be valid.
        message: String,
    },

    /// A bug in oxla: an invariant of one of its stages does not hold.
    #[error("Internal error in {stage}: {message} (this is a bug in oxla; please report it)")]
    Internal {
        /// The stage (`expand_broadcasts pass`, ...).
        stage: String,
        /// What went wrong.
        message: String,
    },

    /// An `Op` handle that this builder did not hand out.
    #[error(
        "Op handle {handle} does not belong to builder `{builder}`; ops can only combine \
         handles from the builder that created them."
    )]
    ForeignOp {
        /// The builder's name.
        builder: String,
        /// The handle, printed.
        handle: String,
    },

    /// Parameters of a computation are misnumbered, repeated or misnamed.
    #[error("Invalid parameter: {message}")]
    InvalidParameter {
        /// What is wrong.
        message: String,
    },

    /// A literal whose data length does not match its dims.
    #[error("Literal of shape {shape} needs {expected} values, but {actual} were given.")]
    LiteralSize {
        /// The shape asked for.
        shape: String,
        /// Element count of the shape.
        expected: i64,
        /// Values given.
        actual: usize,
    },

    /// Typed access to a literal with the wrong Rust type.
    #[error("Literal of shape {shape} cannot be read as {requested} values.")]
    LiteralType {
        /// The literal's shape.
        shape: String,
        /// The element type the Rust type stands for.
        requested: crate::ElementType,
    },

    /// The wrong number of arguments passed to a computation.
    #[error(
        "Computation `{computation}` takes {expected} argument(s) {signature}, but {actual} \
         were passed."
    )]
    ArgumentCount {
        /// The computation.
        computation: String,
        /// Parameters it declares.
        expected: usize,
        /// Arguments passed.
        actual: usize,
        /// Its parameter list, `(x: f32[2,3], v: f32[3])`.
        signature: String,
    },

    /// An argument whose shape differs from its parameter's.
    #[error(
        "Argument {number} (parameter `{name}`) of computation `{computation}` must have shape \
         {expected}, but has shape {actual}."
    )]
    ArgumentShape {
        /// The computation.
        computation: String,
        /// Parameter number.
        number: usize,
        /// Parameter name.
        name: String,
        /// The parameter's shape.
        expected: String,
        /// The argument's shape.
        actual: String,
    },

    /// A caller-provided output (`Executable::run_into`) whose shape
    /// differs from the computation's result shape.
    #[error(
        "The output passed for computation `{computation}` must have its result shape \
         {expected}, but has shape {actual}.\nhelp: allocate it with \
         `Literal::zeros(comp.result_shape())`, or call `run`, which allocates it."
    )]
    OutputShape {
        /// The computation.
        computation: String,
        /// The computation's result shape.
        expected: String,
        /// The output literal's shape.
        actual: String,
    },

    /// HLO text that does not parse. `line` and `column` are 1-based.
    #[error("{line}:{column}: {message}\n  {snippet}\n  {caret}\nexpected {expected}")]
    Parse {
        /// Line of the offending text (1-based).
        line: usize,
        /// Column of the offending text (1-based).
        column: usize,
        /// What went wrong.
        message: String,
        /// The source line.
        snippet: String,
        /// A `^` marker under the offending column.
        caret: String,
        /// What would have been accepted there.
        expected: String,
    },

    /// A backend (the JIT) could not compile or run a computation.
    #[error("Backend error in {backend}: {message}")]
    Backend {
        /// The backend (`jit`).
        backend: String,
        /// What happened.
        message: String,
    },

    /// A backend does not handle an op (yet): refused before any code is
    /// built, so the caller can run the computation elsewhere (the
    /// interpreter runs every op).
    #[error(
        "Unsupported by the {backend}: `{op}` (instruction `{instruction}` in `{computation}`): {reason}."
    )]
    UnsupportedOp {
        /// The backend (`jit`).
        backend: String,
        /// The op, as HLO spells it (`while`, `sort`).
        op: String,
        /// The instruction.
        instruction: String,
        /// The body holding it.
        computation: String,
        /// Why, and what to do instead.
        reason: String,
    },

    /// Reading or writing a file failed, or its contents are not valid.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What happened.
        message: String,
    },

    /// The verifier found problems; each is located at its instruction.
    #[error("{}", VerifierReport(.computation, .problems))]
    Verification {
        /// The computation verified.
        computation: String,
        /// Every problem found.
        problems: Vec<VerifierProblem>,
    },

    /// Evaluation could not proceed (a value no backend can produce).
    #[error("Evaluation failed at `{instruction}`: {message}")]
    Evaluation {
        /// The instruction.
        instruction: String,
        /// What happened.
        message: String,
    },

    /// A limit of the JIT: a fused kernel would need more expression
    /// nodes than the JIT's budget (`nodes` were built when it stopped).
    #[error(
        "The JIT cannot compile `{computation}`: a fused kernel would need more than {bound} \
         expression nodes (it had {nodes} when `{instruction}` was being expanded).\nhelp: only \
         a reducer body of tens of thousands of instructions (which cannot be split into \
         kernels) comes near this; split the body into several reduces, or run the \
         computation on the interpreter."
    )]
    JitNodeBudget {
        /// The computation (body) being expanded into the kernel.
        computation: String,
        /// The instruction being expanded when the budget ran out.
        instruction: String,
        /// The nodes built so far.
        nodes: usize,
        /// The budget.
        bound: usize,
    },

    /// A limit of the JIT: a reduce or dot of a called body nested inside
    /// more folds (reduces and dots of called bodies) than the JIT emits.
    #[error(
        "The JIT cannot compile `{instruction}` ({op}): it sits inside {depth} nested folds \
         (reduces and dots of called bodies); a kernel nests at most {bound}.\nhelp: flatten \
         the reducer bodies that call one another, or run the computation on the interpreter."
    )]
    JitFoldDepth {
        /// The reduce or dot.
        instruction: String,
        /// Its opcode (`reduce`, `dot`).
        op: String,
        /// How many folds enclose it.
        depth: usize,
        /// The most the JIT nests.
        bound: usize,
    },

    /// A limit of the machine: an output or intermediate buffer of a JIT
    /// run that the system cannot allocate (before any kernel runs).
    #[error(
        "The JIT cannot allocate an {role} of shape {shape} ({bytes} bytes) for `{instruction}` \
         of `{computation}`.\nhelp: the system refused the memory; use smaller shapes, or \
         pass the output with `run_into`."
    )]
    JitAllocation {
        /// The computation run.
        computation: String,
        /// The instruction whose value the buffer holds.
        instruction: String,
        /// `output` or `intermediate`.
        role: String,
        /// The buffer's shape.
        shape: String,
        /// The bytes asked for.
        bytes: u64,
    },
}

/// One problem found by the verifier.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifierProblem {
    /// The computation (entry or called) holding the instruction.
    pub computation: String,
    /// The instruction's name.
    pub instruction: String,
    /// The instruction as HLO text.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

struct VerifierReport<'a>(&'a String, &'a Vec<VerifierProblem>);

impl fmt::Display for VerifierReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Verification of `{}` found {} problem(s):",
            self.0,
            self.1.len()
        )?;
        for p in self.1 {
            write!(f, "\n  in {}, at `{}`:", p.computation, p.instruction)?;
            if !p.text.is_empty() {
                write!(f, "\n    {}", p.text)?;
            }
            // Continuation lines of a message (help:, output:) stay under it.
            let message = p.message.replace('\n', "\n           ");
            write!(f, "\n    error: {message}")?;
        }
        Ok(())
    }
}
