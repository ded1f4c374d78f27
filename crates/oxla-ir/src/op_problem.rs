//! What is wrong with an op's operands or attributes, as data.
//!
//! [`Error::InvalidOp`](crate::Error::InvalidOp) carries the op's name and
//! one [`OpProblem`]: a variant per check of shape inference (and of the
//! builder and verifier around it), each holding the shapes and numbers
//! involved, so a test matches the variant (`OpProblem::ReshapeElementCount
//! { .. }`) and a user reads a message that names every operand shape in
//! XLA notation. Broadcasting errors of binary ops have variants of their
//! own on [`Error`](crate::Error), with drawn diagnostics.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, Error, OpProblem, Shape};
//! let mut b = Builder::new("r");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
//! let err = b.reshape(x, &[4]).unwrap_err();
//! assert!(matches!(
//!     &err,
//!     Error::InvalidOp { problem: OpProblem::ReshapeElementCount { .. }, .. }
//! ));
//! assert_eq!(
//!     err.to_string(),
//!     "Invalid reshape: f32[2,3] has 6 elements but f32[4] has 4; a reshape keeps the element count."
//! );
//! # Ok::<(), Error>(())
//! ```

use crate::ir::{ConvolutionDimensionNumbers, Window};
use crate::shape::dims_text;
use crate::{ElementType, Shape};

/// Shapes joined by `, ` for messages.
fn list(shapes: &[Shape]) -> String {
    shapes
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One failed check of an op; see the module docs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OpProblem {
    // -- every op -----------------------------------------------------------
    /// An operand that must be an array is a tuple.
    #[error("expected an array for {what}, but got the tuple {shape}.")]
    NotAnArray {
        /// Which operand, in words.
        what: String,
        /// Its (tuple) shape.
        shape: Shape,
    },
    /// The op has the wrong number of operands.
    #[error("takes {expected} operand(s) but has {}{}.", .operands.len(), operand_list(.operands))]
    OperandCount {
        /// How many it takes, in words (`2`, `at least 1`).
        expected: String,
        /// The operands it has.
        operands: Vec<Shape>,
    },
    // -- custom-call and tokens -----------------------------------------------
    /// `operand_layout_constraints` gives another number of shapes than
    /// the custom-call has operands (XLA's parser's wording).
    #[error("Expected {operands} operand layout constraints, {given} given")]
    LayoutConstraintCount {
        /// How many operands the custom-call has.
        operands: usize,
        /// How many constraints are given.
        given: usize,
    },
    /// A layout constraint's shape is not its operand's (element type and
    /// dims; the layout is the constraint).
    #[error(
        "Operand {index} is not compatible with operand shape: the constraint {constraint} is given for the operand {operand}"
    )]
    LayoutConstraintShape {
        /// Which operand.
        index: usize,
        /// The constraint's shape.
        constraint: Shape,
        /// The operand's shape.
        operand: Shape,
    },
    /// `stochastic-convert`'s operands or result type do not fit (XLA's
    /// sentence in `message`).
    #[error("{message} (operand {operand}, random {random}).")]
    StochasticConvert {
        /// XLA's sentence.
        message: String,
        /// The float operand.
        operand: Shape,
        /// The random operand.
        random: Shape,
    },
    /// A `ragged-dot`'s ragged or group dimensions or its `group_sizes` do
    /// not fit its operands (XLA's sentence, after the dot's own checks).
    #[error("Cannot infer shape for ragged dot operation: {lhs} <ragged_dot> {rhs}. {addendum}")]
    RaggedDot {
        /// What is wrong, in XLA's words.
        addendum: String,
        /// The left operand.
        lhs: Shape,
        /// The right operand.
        rhs: Shape,
    },
    /// An operand that must be a token is not (`add-dependency`'s second).
    #[error("Operand {index} must be a token (token[]), but is {shape}.")]
    NotAToken {
        /// Which operand.
        index: usize,
        /// Its shape.
        shape: Shape,
    },
    /// A called computation does not exist, or comes after its caller.
    #[error(
        "{attribute} refers to computation #{id}, which does not exist or is not called before its caller."
    )]
    MissingComputation {
        /// The attribute naming it (`to_apply`).
        attribute: String,
        /// Its index in the computation.
        id: u32,
    },
    /// A dimension list names a dimension the operand does not have.
    #[error(
        "{what} {} names dimension {dimension}, but {operand} has rank {} (valid: 0..{}).",
        dims_text(.dims), .operand.rank(), .operand.rank()
    )]
    DimensionOutOfRange {
        /// Which list, in words.
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// The offending entry.
        dimension: i64,
        /// The operand it indexes.
        operand: Shape,
    },
    /// A dimension list names a dimension twice.
    #[error("{what} {} names dimension {dimension} twice (operand {operand}).", dims_text(.dims))]
    DimensionRepeated {
        /// Which list, in words.
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// The repeated entry.
        dimension: i64,
        /// The operand it indexes.
        operand: Shape,
    },
    /// The result the op would produce is not a valid shape.
    #[error("the result {result} is not a valid shape: {reason} (operand {}).", list(.operands))]
    InvalidResult {
        /// The result, in XLA notation (it may hold negative sizes).
        result: String,
        /// Why it is invalid.
        reason: String,
        /// The operands.
        operands: Vec<Shape>,
    },

    // -- constants, convert, select, clamp -----------------------------------
    /// A constant of tuple shape (build a tuple of constants instead).
    #[error("tuple constants ({shape}) are not supported; build a tuple of constants.")]
    TupleConstant {
        /// The literal's shape.
        shape: Shape,
    },
    /// `convert` to the tuple "element type".
    #[error("cannot convert {operand} to a tuple type.")]
    ConvertToTuple {
        /// The operand.
        operand: Shape,
    },
    /// `select`'s predicate is not `pred`.
    #[error(
        "the predicate must have element type pred, but is {pred} (operands {pred}, {on_true}, {on_false})."
    )]
    SelectPredicateType {
        /// The predicate.
        pred: Shape,
        /// The value where it is true.
        on_true: Shape,
        /// The value where it is false.
        on_false: Shape,
    },
    /// `select`'s branches have different element types.
    #[error(
        "on_true {on_true} and on_false {on_false} must have the same element type; convert one first."
    )]
    SelectBranchTypes {
        /// The value where the predicate is true.
        on_true: Shape,
        /// The value where it is false.
        on_false: Shape,
    },
    /// `clamp`'s operands have different element types.
    #[error("min {min}, operand {operand} and max {max} must have the same element type.")]
    ClampTypes {
        /// The lower bound.
        min: Shape,
        /// The clamped operand.
        operand: Shape,
        /// The upper bound.
        max: Shape,
    },
    /// A ternary op's non-scalar operands have different dims.
    #[error(
        "operands {} must have the same dims, except that scalars broadcast; use broadcast_in_dim to give them one shape.",
        list(.operands)
    )]
    TernaryDims {
        /// The operands.
        operands: Vec<Shape>,
    },

    // -- broadcast ------------------------------------------------------------
    /// `broadcast_in_dim` to a lower rank.
    #[error(
        "InDim style broadcast must be to an equal or higher ranked shape; operand rank: {}; output rank: {} ({operand} to {output}).",
        .operand.rank(), .output.rank()
    )]
    BroadcastToLowerRank {
        /// The operand.
        operand: Shape,
        /// The requested result.
        output: Shape,
    },
    /// `broadcast_dimensions` has not one entry per operand dimension.
    #[error(
        "Size of broadcast_dimensions has to match operand's rank; operand rank: {}, size of broadcast_dimensions {} ({operand} to {output}, broadcast_dimensions={}).\nhelp: {help}",
        .operand.rank(), .broadcast_dimensions.len(), dims_text(.broadcast_dimensions)
    )]
    BroadcastDimensionsCount {
        /// The operand.
        operand: Shape,
        /// The requested result.
        output: Shape,
        /// The mapping.
        broadcast_dimensions: Vec<i64>,
        /// Which mapping would be valid.
        help: String,
    },
    /// A `broadcast_dimensions` entry is not a dimension of the result.
    #[error(
        "Broadcast dimension {dimension} is out of bound: {output} has rank {} ({operand} to {output}, broadcast_dimensions={}).\nhelp: {help}",
        .output.rank(), dims_text(.broadcast_dimensions)
    )]
    BroadcastDimensionOutOfBounds {
        /// The operand.
        operand: Shape,
        /// The requested result.
        output: Shape,
        /// The offending entry.
        dimension: i64,
        /// The mapping.
        broadcast_dimensions: Vec<i64>,
        /// Which mapping would be valid.
        help: String,
    },
    /// An operand dimension maps to a result dimension of another size (and
    /// is not 1).
    #[error(
        "Input dimension should be either 1 or equal to the output dimension it is broadcasting into; the {operand_dimension}th operand dimension is {operand_size}, the {output_dimension}th output dimension is {output_size} ({operand} to {output}, broadcast_dimensions={}): size {operand_size} cannot stretch to {output_size}; only size 1 stretches.\nhelp: {help}",
        dims_text(.broadcast_dimensions)
    )]
    BroadcastSizeMismatch {
        /// The operand.
        operand: Shape,
        /// The requested result.
        output: Shape,
        /// The operand dimension.
        operand_dimension: usize,
        /// Its size.
        operand_size: i64,
        /// The result dimension it maps to.
        output_dimension: i64,
        /// That dimension's size.
        output_size: i64,
        /// The mapping.
        broadcast_dimensions: Vec<i64>,
        /// Which mapping would be valid.
        help: String,
    },
    /// `broadcast_dimensions` is not strictly increasing.
    #[error(
        "Broadcast dimensions order is wrong: {dimension} comes after {previous} ({operand} to {output}, broadcast_dimensions={}); the list must be strictly increasing.\nhelp: {help}",
        dims_text(.broadcast_dimensions)
    )]
    BroadcastDimensionsOrder {
        /// The operand.
        operand: Shape,
        /// The requested result.
        output: Shape,
        /// The entry out of order.
        dimension: i64,
        /// The entry before it.
        previous: i64,
        /// The mapping.
        broadcast_dimensions: Vec<i64>,
        /// Which mapping would be valid.
        help: String,
    },
    /// XLA's client `Broadcast` with a negative size.
    #[error(
        "Broadcast with negative dimension size {size} (operand {operand}, sizes {}).",
        dims_text(.sizes)
    )]
    NegativeBroadcastSize {
        /// The operand.
        operand: Shape,
        /// The sizes prepended.
        sizes: Vec<i64>,
        /// The negative one.
        size: i64,
    },

    // -- reshape, transpose, slice, concatenate, pad --------------------------
    /// `reshape` to another element count.
    #[error(
        "{operand} has {} elements but {result} has {}; a reshape keeps the element count.",
        .operand.element_count(), .result.element_count()
    )]
    ReshapeElementCount {
        /// The operand.
        operand: Shape,
        /// The requested result.
        result: Shape,
    },
    /// `transpose`'s permutation has not one entry per dimension.
    #[error(
        "the permutation {} has {} entries but {operand} has rank {}.",
        dims_text(.permutation), .permutation.len(), .operand.rank()
    )]
    PermutationLength {
        /// The operand.
        operand: Shape,
        /// The permutation.
        permutation: Vec<i64>,
    },
    /// `slice`'s lists have not one entry per dimension.
    #[error(
        "starts {}, limits {} and strides {} must each have one entry per dimension of {operand} (rank {}).",
        dims_text(.starts), dims_text(.limits), dims_text(.strides), .operand.rank()
    )]
    SliceRank {
        /// The operand.
        operand: Shape,
        /// Start per dimension.
        starts: Vec<i64>,
        /// Limit per dimension.
        limits: Vec<i64>,
        /// Stride per dimension.
        strides: Vec<i64>,
    },
    /// A `slice` stride below 1.
    #[error("stride {stride} of dimension {dimension} must be at least 1 (operand {operand}).")]
    SliceStride {
        /// The operand.
        operand: Shape,
        /// The dimension.
        dimension: usize,
        /// Its stride.
        stride: i64,
    },
    /// A `slice` start or limit outside `0 <= start <= limit <= size`.
    #[error(
        "dimension {dimension} of {operand} has size {size}, so its slice needs 0 <= start <= limit <= {size}; got start {start}, limit {limit}.",
        size = .operand.dims()[*.dimension]
    )]
    SliceBounds {
        /// The operand.
        operand: Shape,
        /// The dimension.
        dimension: usize,
        /// Its start.
        start: i64,
        /// Its limit.
        limit: i64,
    },
    /// `concatenate` with no operand.
    #[error("needs at least one operand.")]
    ConcatenateNothing,
    /// `concatenate` of scalars.
    #[error("scalars cannot be concatenated ({}); reshape them to [1] first.", list(.operands))]
    ConcatenateScalars {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// `concatenate` along a dimension the operands do not have.
    #[error(
        "dimension {dimension} is out of range for rank {} ({}).",
        .operands[0].rank(), list(.operands)
    )]
    ConcatenateDimension {
        /// The operands (at least one).
        operands: Vec<Shape>,
        /// The dimension.
        dimension: i64,
    },
    /// `concatenate` of different element types.
    #[error("operands must have one element type ({}).", list(.operands))]
    ConcatenateTypes {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// `concatenate` of different ranks.
    #[error("operands must have the same rank ({}).", list(.operands))]
    ConcatenateRanks {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// `concatenate` operands that differ in a dimension other than the
    /// joined one.
    #[error(
        "operands must agree on every dimension except {dimension}, but differ at dimension {at} ({}).",
        list(.operands)
    )]
    ConcatenateDims {
        /// The operands.
        operands: Vec<Shape>,
        /// The joined dimension.
        dimension: usize,
        /// Where they differ.
        at: usize,
    },
    /// `pad`'s padding value is not a scalar of the operand's type.
    #[error(
        "the padding value must be a scalar of the operand's element type, {}[], but is {padding_value} (operand {operand}).",
        .operand.element_type()
    )]
    PadValue {
        /// The operand.
        operand: Shape,
        /// The padding value.
        padding_value: Shape,
    },
    /// `pad`'s config has not one entry per dimension.
    #[error(
        "the padding config has {entries} entries but {operand} has rank {}.",
        .operand.rank()
    )]
    PadConfigLength {
        /// The operand.
        operand: Shape,
        /// How many entries the config has.
        entries: usize,
    },
    /// Negative interior padding.
    #[error(
        "interior padding {interior} of dimension {dimension} is negative (operand {operand})."
    )]
    PadInteriorNegative {
        /// The operand.
        operand: Shape,
        /// The dimension.
        dimension: usize,
        /// Its interior padding.
        interior: i64,
    },
    /// Padding that would give a negative or overflowing size.
    #[error(
        "dimension {dimension} of {operand} (size {}) padded by lo={lo}, hi={hi}, interior={interior} would have a negative or overflowing size.",
        .operand.dims()[*.dimension]
    )]
    PadSize {
        /// The operand.
        operand: Shape,
        /// The dimension.
        dimension: usize,
        /// Padding before.
        lo: i64,
        /// Padding after.
        hi: i64,
        /// Padding between.
        interior: i64,
    },

    // -- reduce, dot, iota ----------------------------------------------------
    /// `reduce`'s init is not a scalar of the operand's type.
    #[error(
        "the init value must be {}[] (a scalar of the operand's element type), but is {init} (operand {operand}).",
        .operand.element_type()
    )]
    ReduceInit {
        /// The operand.
        operand: Shape,
        /// The init value.
        init: Shape,
    },
    /// The reducer's signature does not fit the operand.
    #[error(
        "the reducer must have signature ({t}[], {t}[]) -> {t}[] to reduce {operand}, but has ({}) -> {result}.",
        list(.parameters), t = .operand.element_type()
    )]
    ReducerSignature {
        /// The operand.
        operand: Shape,
        /// The reducer's parameters.
        parameters: Vec<Shape>,
        /// The reducer's result.
        result: Shape,
    },
    /// A reducer computation without an entry body.
    #[error("the reducer `{reducer}` has no entry body.")]
    ReducerWithoutEntry {
        /// The reducer's name.
        reducer: String,
    },
    /// `dot`'s batch (or contracting) lists differ in length.
    #[error(
        "lhs_{kind}_dims {} and rhs_{kind}_dims {} must have the same length (lhs {lhs}, rhs {rhs}).",
        dims_text(.lhs_dims), dims_text(.rhs_dims)
    )]
    DotDimensionsLength {
        /// `batch` or `contracting`.
        kind: String,
        /// The left operand.
        lhs: Shape,
        /// The right operand.
        rhs: Shape,
        /// The left list.
        lhs_dims: Vec<i64>,
        /// The right list.
        rhs_dims: Vec<i64>,
    },
    /// Paired `dot` dimensions of different sizes.
    #[error(
        "{kind} dimension {lhs_dimension} of lhs has size {} but its partner, dimension {rhs_dimension} of rhs, has size {} (lhs {lhs}, rhs {rhs}).",
        .lhs.dims()[*.lhs_dimension as usize], .rhs.dims()[*.rhs_dimension as usize]
    )]
    DotSizeMismatch {
        /// `batch` or `contracting`.
        kind: String,
        /// The left operand.
        lhs: Shape,
        /// The right operand.
        rhs: Shape,
        /// The left dimension.
        lhs_dimension: i64,
        /// The right dimension.
        rhs_dimension: i64,
    },
    /// XLA's `Dot` of operands that are not vectors or matrices.
    #[error(
        "dot takes vectors or matrices, but got {lhs} and {rhs}; use dot_general for other ranks."
    )]
    DotRank {
        /// The left operand.
        lhs: Shape,
        /// The right operand.
        rhs: Shape,
    },
    /// `complex` of parts whose dims differ.
    #[error("the parts of a complex number must have the same dims, but got {re} and {im}.")]
    ComplexPartsDims {
        /// The real parts.
        re: Shape,
        /// The imaginary parts.
        im: Shape,
    },
    /// `complex` of a part type without a complex type.
    #[error(
        "Complex component type is not implemented: {part} (only f32 and f64 parts make c64 and c128)."
    )]
    ComplexPartType {
        /// The parts.
        part: Shape,
    },
    /// An `fft` whose operand, type or lengths do not fit.
    #[error("{fft_type} with fft_length={fft_length:?} on {operand}: {reason}.")]
    FftShape {
        /// The operand.
        operand: Shape,
        /// `FFT`, `IFFT`, `RFFT` or `IRFFT`.
        fft_type: String,
        /// The transform lengths.
        fft_length: Vec<i64>,
        /// What is wrong.
        reason: String,
    },
    /// A `dot` result type its operands cannot give: an integer narrower
    /// than the operands, complex from real operands, or real from complex
    /// ones.
    #[error(
        "a dot of {lhs} and {rhs} cannot have result type {result}: the preferred type may widen \
         integers or change the precision of floats, but not narrow integers or move between \
         real and complex."
    )]
    DotResultType {
        /// The left operand.
        lhs: Shape,
        /// The right operand.
        rhs: Shape,
        /// The result type asked for.
        result: ElementType,
    },
    /// `iota` along a dimension its shape does not have.
    #[error(
        "iota_dimension {dimension} is out of range for {shape} (rank {}).",
        .shape.rank()
    )]
    IotaDimension {
        /// The shape.
        shape: Shape,
        /// The dimension.
        dimension: i64,
    },
    /// An axis argument of a composite op outside the operand's rank.
    #[error("axis {axis} is out of range for {shape} (rank {}).", .shape.rank())]
    AxisOutOfRange {
        /// The operand.
        shape: Shape,
        /// The axis.
        axis: i64,
    },

    // -- tuples and control flow (the ctrl family) ----------------------------
    /// `get-tuple-element` of an array.
    #[error("Cannot infer shape: attempting to index into non-tuple: {operand}.")]
    GetTupleElementOfArray {
        /// The operand.
        operand: Shape,
    },
    /// `get-tuple-element` with an index outside the tuple.
    #[error(
        "Cannot infer shape: attempt to index out of tuple bounds: {index} >= {} in shape {operand}.",
        .operand.tuple_shapes().len()
    )]
    GetTupleElementIndex {
        /// The tuple.
        operand: Shape,
        /// The index asked for.
        index: i64,
    },
    /// A `while` condition with other than one parameter.
    #[error("Condition must take 1 arguments; got {}.", .condition.parameters.len())]
    WhileConditionArity {
        /// The condition's signature.
        condition: Signature,
    },
    /// A `while` body with other than one parameter.
    #[error("Body must take 1 arguments; got {}.", .body.parameters.len())]
    WhileBodyArity {
        /// The body's signature.
        body: Signature,
    },
    /// A `while` condition that does not return `pred[]`.
    #[error(
        "Condition must return a boolean; got Condition: {condition}; body: {body}; init: {init}."
    )]
    WhileConditionResult {
        /// The condition's signature.
        condition: Signature,
        /// The body's signature.
        body: Signature,
        /// The initial state.
        init: Shape,
    },
    /// The loop state's shape differs between init, condition and body.
    #[error(
        "The parameter of condition and body, the result of the body, and init must all have the same shape; got Condition: {condition}; body: {body}; init: {init}."
    )]
    WhileShapes {
        /// The condition's signature.
        condition: Signature,
        /// The body's signature.
        body: Signature,
        /// The initial state.
        init: Shape,
    },
    /// A conditional's selector is not a scalar.
    #[error("The first operand of conditional must be a scalar. Got {selector}.")]
    ConditionalSelectorRank {
        /// The selector.
        selector: Shape,
    },
    /// A conditional's selector is neither `pred[]` nor `s32[]`.
    #[error("branch_index must be bool or int32_t; got {selector}.")]
    ConditionalSelectorType {
        /// The selector.
        selector: Shape,
    },
    /// A `pred` conditional without exactly two branches, or an indexed one
    /// without any.
    #[error(
        "a conditional with a {selector} selector needs {}, but has {branches}.",
        if .selector.element_type().is_pred() { "2 branch computations (true_computation and false_computation)" } else { "at least 1 branch computation" }
    )]
    ConditionalBranchCount {
        /// The selector.
        selector: Shape,
        /// How many branches it has.
        branches: usize,
    },
    /// A conditional without one operand per branch after the selector.
    #[error(
        "Expected {} operands for conditional instruction: the selector and one per branch computation ({branches}), but got {}{}.",
        .branches + 1, .operands.len(), operand_list(.operands)
    )]
    ConditionalOperandCount {
        /// How many branches it has.
        branches: usize,
        /// The operands, selector included.
        operands: Vec<Shape>,
    },
    /// A branch computation with other than one parameter.
    #[error("branch computation {branch} must take 1 argument; got {}.", .computation.parameters.len())]
    ConditionalBranchArity {
        /// The branch number.
        branch: usize,
        /// Its signature.
        computation: Signature,
    },
    /// A branch operand that does not fit its branch's parameter.
    #[error(
        "branch operand {branch} must match the shape of the only parameter of branch computation {branch}: got operand: {operand}; computation: {computation}."
    )]
    ConditionalBranchOperand {
        /// The branch number.
        branch: usize,
        /// The operand passed to it.
        operand: Shape,
        /// Its signature.
        computation: Signature,
    },
    /// Branches that return different shapes.
    #[error(
        "the result of branch 0 computation and branch {branch} computation must have the same shape: got branch 0 computation result: {first}; branch {branch} computation result: {result}."
    )]
    ConditionalBranchResults {
        /// The branch number.
        branch: usize,
        /// Branch 0's result.
        first: Shape,
        /// This branch's result.
        result: Shape,
    },
    /// `map` operands of different dims.
    #[error("Map operation requires all operands to have the same shape; got: {}.", list(.operands))]
    MapShapes {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// `map` over fewer dimensions than the operands have.
    #[error(
        "Map applied to a subset of dimensions currently not supported: arg_dimension_size: {}, requested_map_dimensions_size: {}.",
        .operand.rank(), .dimensions.len()
    )]
    MapDimensionsCount {
        /// The (first array) operand.
        operand: Shape,
        /// The dimensions given.
        dimensions: Vec<i64>,
    },
    /// `map` dimensions other than `0, 1, ..`.
    #[error(
        "Map requires monotonically increasing dimension numbers; got: {}.",
        .dimensions.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
    )]
    MapDimensionsOrder {
        /// The dimensions given.
        dimensions: Vec<i64>,
    },
    /// A mapped computation whose arity is not the operand count.
    #[error(
        "Map applied function arity must match number of arguments; got: arity: {}, arguments: {}.",
        .computation.parameters.len(), .operands.len()
    )]
    MapArity {
        /// The operands.
        operands: Vec<Shape>,
        /// The computation's signature.
        computation: Signature,
    },
    /// A mapped computation that does not return a scalar.
    #[error("Mapped computation's result has to be a scalar; got: {}.", .computation.result)]
    MapResult {
        /// The computation's signature.
        computation: Signature,
    },
    /// A mapped computation with a non-scalar parameter.
    #[error(
        "Mapped computation's parameter has to be a scalar; got parameter {index} shape: {parameter}."
    )]
    MapParameter {
        /// The parameter number.
        index: usize,
        /// Its shape.
        parameter: Shape,
    },
    /// A mapped computation's parameter of another type than its operand.
    #[error(
        "Mapped computation's parameter type has to match argument element type; got parameter {index} shape: {parameter}, argument shape: {argument}."
    )]
    MapParameterType {
        /// The parameter number.
        index: usize,
        /// Its shape.
        parameter: Shape,
        /// The operand it receives elements of.
        argument: Shape,
    },
    /// A `reduce` with an odd number of operands (inputs and inits pair up).
    #[error("Reduce must have an even number of arguments, has {}{}.", .operands.len(), operand_list(.operands))]
    ReduceOddOperands {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// Inputs of a variadic `reduce` with different dims.
    #[error(
        "All reduced tensors must have the same dimension. Tensor 0 has shape {first}, Tensor {index} has shape {input}."
    )]
    ReduceInputDims {
        /// Input 0.
        first: Shape,
        /// Which input differs.
        index: usize,
        /// That input.
        input: Shape,
    },
    /// A variadic `reduce` over a dimension its inputs do not have.
    #[error("Reducing out-of-bounds dimension {dimension} in shape {operand}.")]
    ReduceDimensionOutOfBounds {
        /// The dimension.
        dimension: i64,
        /// Input 0.
        operand: Shape,
    },
    /// A variadic `reduce` that names a dimension twice.
    #[error("Duplicate reduction dimension: {dimension} (dimensions {}).", dims_text(.dimensions))]
    ReduceDuplicateDimension {
        /// The repeated dimension.
        dimension: i64,
        /// The list.
        dimensions: Vec<i64>,
    },
    /// A reducer without two parameters per input.
    #[error(
        "Reduction function must take {} parameters, but takes {} parameter(s) ({reducer}).",
        2 * .inputs, .reducer.parameters.len()
    )]
    ReducerParameterCount {
        /// How many inputs the reduce has.
        inputs: usize,
        /// The reducer's signature.
        reducer: Signature,
    },
    /// A reducer that does not return one value per input.
    #[error(
        "Reduction function must produce a tuple with {inputs} elements, but {} ({reducer}).",
        if .reducer.result.is_tuple() { format!("has {} elements", .reducer.result.tuple_shapes().len()) } else { "produces a scalar".to_string() }
    )]
    ReducerResultArity {
        /// How many inputs the reduce has.
        inputs: usize,
        /// The reducer's signature.
        reducer: Signature,
    },
    /// A reducer whose result is not a scalar or a tuple of scalars.
    #[error(
        "Reduction function must return a scalar or tuple of scalars but returns shape: {} ({reducer}).",
        .reducer.result
    )]
    ReducerResultNotScalars {
        /// The reducer's signature.
        reducer: Signature,
    },
    /// A reducer's accumulator parameter of another shape than its result.
    #[error(
        "Reduction function's {index}-th parameter shape differs from the result shape: {parameter} vs {accumulator}."
    )]
    ReducerAccumulatorParameter {
        /// The parameter number.
        index: usize,
        /// Its shape.
        parameter: Shape,
        /// The result (element) it accumulates into.
        accumulator: Shape,
    },
    /// An init value of another shape than the reducer's accumulator.
    #[error(
        "Reduction function's accumulator shape at index {index} differs from the init_value shape: {accumulator} vs {init}."
    )]
    ReducerInit {
        /// The input number.
        index: usize,
        /// The accumulator (reducer result element).
        accumulator: Shape,
        /// The init value.
        init: Shape,
    },
    /// A reducer's input parameter of another type than its input's
    /// elements.
    #[error(
        "Reduction function's {index}-th parameter shape differs from the input type element type: {parameter} vs {element}."
    )]
    ReducerInputParameter {
        /// The parameter number.
        index: usize,
        /// Its shape.
        parameter: Shape,
        /// The input's element, as a scalar.
        element: Shape,
    },
    /// A reducer's input parameter of another type than its accumulator.
    #[error(
        "Reduction function's {index}-th parameter shape must match the result shape, but got {parameter} vs {accumulator}."
    )]
    ReducerInputAccumulator {
        /// The parameter number.
        index: usize,
        /// Its shape.
        parameter: Shape,
        /// The accumulator it pairs with.
        accumulator: Shape,
    },

    // -- sort, top-k and the comparison type (the sort family) ---------------
    /// A `compare` whose type (`type=`) does not go with its operands'
    /// element type: XLA's verifier accepts only the element type's default
    /// (`FLOAT`, `SIGNED` or `UNSIGNED`) and, for floats, `TOTALORDER`.
    #[error(
        "Expected comparison type {expected}. actual: {actual}, operand: {operand}; {}",
        comparison_type_help(*.actual, .operand)
    )]
    ComparisonType {
        /// What XLA would accept, in its words (`SIGNED`, `FLOAT or
        /// TOTALORDER`).
        expected: String,
        /// The type given.
        actual: crate::ComparisonType,
        /// The operand whose element type decides.
        operand: Shape,
    },
    /// `sort` operands of different dims.
    #[error(
        "Sort keys and values dimensions must match. Keys shape is: {keys}, values shape (operand index {index}) is: {values}."
    )]
    SortDimensionsMismatch {
        /// The first operand (the keys).
        keys: Shape,
        /// The operand that differs.
        values: Shape,
        /// Its position among the operands.
        index: usize,
    },
    /// A `sort` comparator that does not return `pred[]`.
    #[error(
        "The Sort compare computation shape does not lead to a scalar predicate shape: {result}; the comparator returns pred[] (true when its first element must come first)."
    )]
    SortComparatorResult {
        /// What the comparator returns.
        result: Shape,
    },
    /// A `sort` comparator without two parameters per operand.
    #[error(
        "Expected the compare computation of sort to have {expected} parameters, has {}: two per operand, interleaved ({}).",
        .parameters.len(), interleaved(.operands)
    )]
    SortComparatorParameterCount {
        /// How many it must have (twice the operand count).
        expected: usize,
        /// The comparator's parameters.
        parameters: Vec<Shape>,
        /// The sorted operands.
        operands: Vec<Shape>,
    },
    /// A `sort` comparator parameter that is not a scalar of its operand's
    /// element type.
    #[error(
        "Expected the {index}-th parameter of the compare computation of sort to have shape {expected}, but got {actual}; parameters 2k and 2k+1 are scalars of operand k's element type ({})",
        interleaved(.operands)
    )]
    SortComparatorParameter {
        /// The parameter number.
        index: usize,
        /// The scalar it must be.
        expected: Shape,
        /// What it is.
        actual: Shape,
        /// The sorted operands.
        operands: Vec<Shape>,
    },
    /// A sort dimension the operands do not have.
    #[error(
        "Expected the sort_dimension {dimension} of sort to be smaller than the rank {} of the operand(s) ({operand}); valid: 0..{}.",
        .operand.rank(), .operand.rank()
    )]
    SortDimension {
        /// The dimension.
        dimension: i64,
        /// The first operand.
        operand: Shape,
    },
    /// `topk` of a scalar: it works on the last dimension.
    #[error("topk works on the last dimension, but its operand {operand} is a scalar.")]
    TopKScalar {
        /// The operand.
        operand: Shape,
    },
    /// `topk` with a negative `k`.
    #[error("k={k} is negative; topk takes 0 <= k <= {} for {operand}.", last_dim(.operand))]
    TopKNegative {
        /// The operand.
        operand: Shape,
        /// The `k` given.
        k: i64,
    },
    /// `topk` with `k` larger than the last dimension.
    #[error(
        "k={k} is larger than the last dimension of size={} ({operand}).",
        last_dim(.operand)
    )]
    TopKTooLarge {
        /// The operand.
        operand: Shape,
        /// The `k` given.
        k: i64,
    },

    // -- windows: convolution, reduce-window, select-and-scatter --------------
    /// A window field with another number of entries than the sizes.
    #[error(
        "Window has different number of window dimensions than of {field}: {dimensions} window dimensions, {count} {field}."
    )]
    WindowFieldCount {
        /// The field (`window strides`, `padding entries`, ...).
        field: String,
        /// How many window dimensions there are.
        dimensions: usize,
        /// How many entries the field has.
        count: usize,
    },
    /// A window whose rank is not the base's.
    #[error(
        "Window has dimension {window_rank} but base shape has dimension {}: window={{{window}}}, base {base}.",
        .base.rank()
    )]
    WindowRank {
        /// The window.
        window: Window,
        /// Its number of dimensions.
        window_rank: usize,
        /// The base it slides over (a convolution's spatial dims).
        base: Shape,
    },
    /// A window size, stride or dilation below 1.
    #[error("Window {{{window}}} has a non-positive {what}: {value} in dimension {dimension}.")]
    WindowNotPositive {
        /// The window.
        window: Window,
        /// `dimension`, `stride`, `base area dilation factor` or `window
        /// dilation factor`.
        what: String,
        /// The window dimension.
        dimension: usize,
        /// The offending value.
        value: i64,
    },
    /// Negative padding that removes more than the whole dilated base (XLA
    /// aborts here; oxla refuses).
    #[error(
        "Window {{{window}}} pads dimension {dimension} of the base {base} to a negative size ({padded}): negative padding may remove at most the whole dilated base."
    )]
    WindowPaddedBaseNegative {
        /// The window.
        window: Window,
        /// The window dimension.
        dimension: usize,
        /// The base it slides over.
        base: Shape,
        /// The padded, dilated size.
        padded: i64,
    },
    /// `window_reversal` on a window op other than `convolution`.
    #[error(
        "window {{{window}}} reverses dimension {dimension}, but only a convolution's window may be reversed (rhs_reversal)."
    )]
    WindowReversal {
        /// The window.
        window: Window,
        /// The first reversed dimension.
        dimension: usize,
    },
    /// A convolution group count below 1.
    #[error("{what} must be a positive number, got {count}.")]
    ConvolutionGroupCount {
        /// `feature_group_count` or `batch_group_count`.
        what: String,
        /// The count.
        count: i64,
    },
    /// Both convolution group counts above 1.
    #[error(
        "both batch_group_count {batch_group_count} and feature_group_count {feature_group_count} cannot be greater than 1."
    )]
    ConvolutionGroupCounts {
        /// The feature group count.
        feature_group_count: i64,
        /// The batch group count.
        batch_group_count: i64,
    },
    /// Convolution dimension numbers with different spatial counts.
    #[error(
        "{} must have same number of dimensions: {} input, {} kernel and {} output spatial dimensions ({}).",
        if .input.len() != .kernel.len() { "Both arguments to convolution" } else { "Both input and output of convolution" },
        .input.len(), .kernel.len(), .output.len(), .dims.describe()
    )]
    ConvolutionSpatialCount {
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
        /// The input's spatial dimensions.
        input: Vec<i64>,
        /// The kernel's spatial dimensions.
        kernel: Vec<i64>,
        /// The output's spatial dimensions.
        output: Vec<i64>,
    },
    /// A convolution window with another rank than the spatial count.
    #[error(
        "Window must have same number of dimensions as dimension numbers: window={{{window}}} has {} dimension(s), dim_labels={} has {spatial} spatial dimension(s).",
        .window.rank(), .dims.labels()
    )]
    ConvolutionWindowRank {
        /// The window.
        window: Window,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
        /// How many spatial dimensions they name.
        spatial: usize,
    },
    /// A convolution operand without rank `spatial + 2`.
    #[error(
        "The {side} argument to a convolution should have rank {expected}; {}: {operand}.",
        .side.to_lowercase()
    )]
    ConvolutionOperandRank {
        /// `LHS` or `RHS`.
        side: String,
        /// `spatial dimensions + 2`.
        expected: usize,
        /// The operand.
        operand: Shape,
    },
    /// A convolution dimension number outside `0..rank`.
    #[error("A dimension number is out of range in convolution: {} (rank {rank}).", .dims.describe())]
    ConvolutionDimensionOutOfRange {
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
        /// The operands' rank.
        rank: usize,
    },
    /// Convolution dimension numbers that name a dimension twice.
    #[error(
        "{which} dimensions of convolution must contain each dimension exactly once: {}.",
        .dims.describe()
    )]
    ConvolutionDimensionsNotPermutation {
        /// `Input`, `Window` or `Output`.
        which: String,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
    },
    /// Kernel output features not a multiple of the batch group count.
    #[error(
        "Expected output feature dimension size (value {features}) to be a multiple of batch group count {batch_group_count}; got <conv>({lhs}, {rhs}), dim_labels={}.",
        .dims.labels()
    )]
    ConvolutionBatchGroupFeatures {
        /// The kernel's output features.
        features: i64,
        /// The batch group count.
        batch_group_count: i64,
        /// The input.
        lhs: Shape,
        /// The kernel.
        rhs: Shape,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
    },
    /// Input features not `feature_group_count` times the kernel's input
    /// features.
    #[error(
        "Expected LHS feature dimension (value {input_features}) to be a multiple of feature_group_count (value {feature_group_count}), and LHS feature dimension / feature_group_count = RHS feature dimension (value {kernel_input_features}); got <conv>({lhs}, {rhs}), dim_labels={}.",
        .dims.labels()
    )]
    ConvolutionInputFeatures {
        /// The input's features.
        input_features: i64,
        /// The feature group count.
        feature_group_count: i64,
        /// The kernel's input features.
        kernel_input_features: i64,
        /// The input.
        lhs: Shape,
        /// The kernel.
        rhs: Shape,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
    },
    /// Kernel output features not a multiple of the feature group count.
    #[error(
        "Expected output feature dimension (value {features}) to be divisible by feature_group_count (value {feature_group_count}); got <conv>({lhs}, {rhs}), dim_labels={}.",
        .dims.labels()
    )]
    ConvolutionOutputFeatures {
        /// The kernel's output features.
        features: i64,
        /// The feature group count.
        feature_group_count: i64,
        /// The input.
        lhs: Shape,
        /// The kernel.
        rhs: Shape,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
    },
    /// Input batch not a multiple of the batch group count.
    #[error(
        "Expected input batch dimension (value {batch}) to be divisible by batch_group_count (value {batch_group_count}); got <conv>({lhs}, {rhs}), dim_labels={}.",
        .dims.labels()
    )]
    ConvolutionBatch {
        /// The input's batch.
        batch: i64,
        /// The batch group count.
        batch_group_count: i64,
        /// The input.
        lhs: Shape,
        /// The kernel.
        rhs: Shape,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
    },
    /// Kernel spatial sizes that are not the window's sizes.
    #[error(
        "Window dimensions do not match RHS shape: RHS shape {rhs} has spatial sizes {}, but window={{{window}}} has sizes {}; dim_labels={}.",
        dims_text(.kernel_sizes), dims_text(&.window.sizes()), .dims.labels()
    )]
    ConvolutionWindowSizes {
        /// The kernel.
        rhs: Shape,
        /// Its spatial sizes, in spatial order.
        kernel_sizes: Vec<i64>,
        /// The window.
        window: Window,
        /// The dimension numbers.
        dims: ConvolutionDimensionNumbers,
    },
    /// A convolution result type narrower than its integer operands.
    #[error(
        "`preferred_element_type` must not be narrower than the original type: the operands are {lhs} and {rhs}, the result {result}."
    )]
    ConvolutionNarrowResult {
        /// The input.
        lhs: Shape,
        /// The kernel.
        rhs: Shape,
        /// The result's element type.
        result: ElementType,
    },
    /// A convolution result type that XLA allows but oxla cannot compute
    /// exactly yet (mixed precision).
    #[error(
        "a {result} result from {} operands ({lhs}, {rhs}) is mixed precision, which oxla does not support yet; only a result type that holds every operand value exactly (s8 to s32, f32 to f64, ...) is. Convert the operands to {result} first.",
        .lhs.element_type()
    )]
    ConvolutionMixedPrecision {
        /// The input.
        lhs: Shape,
        /// The kernel.
        rhs: Shape,
        /// The result's element type.
        result: ElementType,
    },
    /// A reduce-window with an odd number of operands.
    #[error(
        "expects an even number of operands (N inputs, then N init values), but has {}{}.",
        .operands.len(), operand_list(.operands)
    )]
    ReduceWindowOddOperands {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// Inputs of a variadic reduce-window with different dims.
    #[error(
        "All reduced tensors must have the same dimension. Tensor 0 has shape {first}, Tensor {index} has shape {input}."
    )]
    ReduceWindowInputDims {
        /// The first input.
        first: Shape,
        /// The input that differs.
        index: usize,
        /// Its shape.
        input: Shape,
    },
    /// A reducer (of reduce-window, or select-and-scatter's `scatter`) whose
    /// signature does not fit.
    #[error(
        "{}: the reducer must have signature ({t}[], {t}[]) -> {t}[] with init {t}[], but has ({}) -> {result} with init {init}.",
        .problem, list(.parameters), t = .input_type
    )]
    WindowReducer {
        /// XLA's first sentence (`Reduction function must take 2
        /// parameters, ...`).
        problem: String,
        /// The element type of the values reduced.
        input_type: ElementType,
        /// The init value.
        init: Shape,
        /// The reducer's parameters.
        parameters: Vec<Shape>,
        /// The reducer's result.
        result: Shape,
    },
    /// select-and-scatter's `select` with other than two parameters.
    #[error("Select function must take 2 parameters, but takes {} parameter(s): ({}).", .parameters.len(), list(.parameters))]
    SelectParameterCount {
        /// Its parameters.
        parameters: Vec<Shape>,
    },
    /// select-and-scatter's `select` not returning `pred[]`.
    #[error("Select function must have rank-0 PRED result, but returns {result}.")]
    SelectResult {
        /// Its result.
        result: Shape,
    },
    /// A `select` parameter of another type than the operand's elements.
    #[error(
        "Select function's {which} parameter shape currently must match the operand element shape, but got {parameter} vs {}[] (operand {operand}).",
        .operand.element_type()
    )]
    SelectParameter {
        /// `first` or `second`.
        which: String,
        /// The parameter.
        parameter: Shape,
        /// The operand.
        operand: Shape,
    },
    /// A select-and-scatter source that is not the window-reduced operand.
    #[error(
        "Source shape does not match the shape of window-reduced operand: source({scattered}), window-reduced operand({reduced}); operand {operand}, window={{{window}}}."
    )]
    SelectAndScatterSource {
        /// The source (the values scattered).
        scattered: Shape,
        /// The operand's window output shape.
        reduced: Shape,
        /// The operand.
        operand: Shape,
        /// The window.
        window: Window,
    },
    // -- indexing: gather, scatter, dynamic-slice, dynamic-update-slice -------
    // The first sentence of each message is XLA's (`shape_inference.cc`),
    // punctuation included, so that searching for an XLA error finds ours.
    /// `gather`'s or `scatter`'s indices are not integers.
    #[error("{} indices parameter must be an integral tensor; got {indices}.", title(.op))]
    IndicesNotIntegral {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The indices.
        indices: Shape,
    },
    /// `index_vector_dim` outside `[0, rank(indices)]`.
    #[error(
        "{} index leaf dimension must be within [0, rank({n}) + 1). rank({n}) is {} and {op} index leaf dimension is {index_vector_dim}.",
        title(.op), .indices.rank(), n = indices_name(.op)
    )]
    IndexVectorDimOutOfRange {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The indices.
        indices: Shape,
        /// The dimension.
        index_vector_dim: i64,
    },
    /// A dimension list of `gather` or `scatter` that must be ascending is not.
    #[error("{}", unsorted_text(.op, .list, .dims))]
    IndexDimsUnsorted {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The list's attribute name (`offset_dims`).
        list: &'static str,
        /// The list.
        dims: Vec<i64>,
    },
    /// A dimension list of `gather` or `scatter` names a dimension twice.
    #[error("{}", repeated_text(.op, .list, .dims))]
    IndexDimsRepeated {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The list's attribute name.
        list: &'static str,
        /// The list.
        dims: Vec<i64>,
    },
    /// An entry of a dimension list of `gather` or `scatter` is not a
    /// dimension of what it indexes.
    #[error("{}", out_of_range_text(.op, .list, *.position, .dims[*.position], *.bound))]
    IndexDimOutOfRange {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The list's attribute name.
        list: &'static str,
        /// The list.
        dims: Vec<i64>,
        /// The position of the offending entry.
        position: usize,
        /// The rank it must stay below.
        bound: i64,
    },
    /// `start_index_map` (`scatter_dims_to_operand_dims`) has not one entry
    /// per element of an index vector.
    #[error(
        "{} op has {entries} elements in {list} and the bound of dimension index_vector_dim={index_vector_dim} of {} is {bound}. These two numbers must be equal.",
        title(.op), indices_name(.op)
    )]
    IndexVectorSize {
        /// `gather` or `scatter`.
        op: &'static str,
        /// `start_index_map` or `scatter_dims_to_operand_dims`.
        list: &'static str,
        /// How many entries the list has.
        entries: usize,
        /// The index vector dimension.
        index_vector_dim: i64,
        /// Its size (1 when implicit).
        bound: i64,
    },
    /// The two batching-dimension lists differ in length.
    #[error(
        "{} and {} in {op} op must be of the same size; got: {} and {}.",
        batching_lists(.op).0, batching_lists(.op).1, .operand_dims.len(), .indices_dims.len()
    )]
    BatchingDimsLength {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The operand's (input's) batching dimensions.
        operand_dims: Vec<i64>,
        /// The indices' batching dimensions.
        indices_dims: Vec<i64>,
    },
    /// Two dimension lists that StableHLO requires disjoint share a dimension
    /// (XLA does not check this).
    #[error(
        "{first} and {second} in {op} op must not share a dimension; got {dimension} in both ({first}={}, {second}={}).",
        dims_text(.first_dims), dims_text(.second_dims)
    )]
    IndexDimsOverlap {
        /// `gather` or `scatter`.
        op: &'static str,
        /// The first list's name.
        first: &'static str,
        /// The first list.
        first_dims: Vec<i64>,
        /// The second list's name.
        second: &'static str,
        /// The second list.
        second_dims: Vec<i64>,
        /// The shared dimension.
        dimension: i64,
    },
    /// The index vector dimension is also a batching dimension of the
    /// indices (StableHLO forbids it; XLA does not check).
    #[error(
        "index_vector_dim={index_vector_dim} of {op} op must not be one of the {list} {} of {indices}.",
        dims_text(.dims)
    )]
    IndexVectorDimIsBatching {
        /// `gather` or `scatter`.
        op: &'static str,
        /// `start_indices_batching_dims` or `scatter_indices_batching_dims`.
        list: &'static str,
        /// The list.
        dims: Vec<i64>,
        /// The index vector dimension.
        index_vector_dim: i64,
        /// The indices.
        indices: Shape,
    },
    /// Paired batching dimensions of different sizes (StableHLO forbids it;
    /// XLA does not check).
    #[error(
        "batching dimension {operand_dimension} of {operand} has size {} but its partner, dimension {indices_dimension} of the indices {indices}, has size {}; paired batching dimensions must have the same size.",
        .operand.dims()[*.operand_dimension as usize], .indices.dims()[*.indices_dimension as usize]
    )]
    BatchingDimSizes {
        /// The operand (input).
        operand: Shape,
        /// The indices.
        indices: Shape,
        /// The operand's (input's) batching dimension.
        operand_dimension: i64,
        /// Its partner in the indices.
        indices_dimension: i64,
    },
    /// `gather`'s `slice_sizes` has not one entry per operand dimension.
    #[error(
        "Gather op must have one slice size for every input dimension; got: len(slice_sizes)={}, input_shape.rank={}. The operand is {operand}, slice_sizes={}.",
        .slice_sizes.len(), .operand.rank(), dims_text(.slice_sizes)
    )]
    GatherSliceSizesCount {
        /// The operand.
        operand: Shape,
        /// The slice sizes.
        slice_sizes: Vec<i64>,
    },
    /// An operand dimension of `gather` is neither an offset, a collapsed
    /// nor a batching dimension (or the counts do not add up).
    #[error(
        "All components of the offset index in a gather op must either be a offset dimension or explicitly collapsed or explicitly batched; got len(slice_sizes)={}, output_slice_sizes={}, collapsed_slice_dims={}, operand_batching_dims={}.",
        .slice_sizes.len(), joined(.offset_dims), joined(.collapsed_slice_dims), joined(.operand_batching_dims)
    )]
    GatherOffsetComponents {
        /// The slice sizes.
        slice_sizes: Vec<i64>,
        /// The offset dimensions.
        offset_dims: Vec<i64>,
        /// The collapsed dimensions.
        collapsed_slice_dims: Vec<i64>,
        /// The operand batching dimensions.
        operand_batching_dims: Vec<i64>,
    },
    /// A `gather` slice size outside `[0, dim]`.
    #[error(
        "Slice size at index {index} in gather op is out of range, must be within [0, {}), got {size}. The operand is {operand}.",
        .operand.dims()[*.index] + 1
    )]
    GatherSliceSize {
        /// The operand.
        operand: Shape,
        /// The dimension.
        index: usize,
        /// Its slice size.
        size: i64,
    },
    /// A collapsed or batching dimension of `gather` with a slice size
    /// above 1.
    #[error(
        "Gather op can only {} with bound 1 or 0, but bound is {size} for index {dimension} at position {position}.",
        if *.batching { "have operand_batching_dims" } else { "collapse slice dims" }
    )]
    GatherSliceBound {
        /// `true` for a batching dimension, `false` for a collapsed one.
        batching: bool,
        /// The operand dimension.
        dimension: i64,
        /// Its slice size.
        size: i64,
        /// Its position in its list.
        position: usize,
    },
    /// `scatter` with an even number of operands.
    #[error(
        "Invalid argument count of scatter op: Expected {}, saw {}; a scatter takes N inputs, the indices and N updates.",
        .operands.len() / 2 * 2 + 1, .operands.len()
    )]
    ScatterOperandCount {
        /// The operands.
        operands: Vec<Shape>,
    },
    /// A variadic `scatter`'s inputs (or updates) differ in dims (StableHLO
    /// forbids it; XLA does not check).
    #[error("all {what} of a scatter must have the same dims; got {}.", list(.shapes))]
    ScatterOperandDims {
        /// `inputs` or `updates`.
        what: &'static str,
        /// Their shapes.
        shapes: Vec<Shape>,
    },
    /// `scatter`'s updates have the wrong rank.
    #[error(
        "Updates tensor must be of rank {expected}; got {}. The updates are {updates} and the indices {indices}: the rank must be rank(indices) - 1 + |update_window_dims|, counting an implicit trailing index vector dimension when index_vector_dim equals rank(indices).",
        .updates.rank()
    )]
    ScatterUpdatesRank {
        /// The rank the dimension numbers require.
        expected: i64,
        /// The updates.
        updates: Shape,
        /// The indices.
        indices: Shape,
    },
    /// `scatter`'s window dimensions do not add up to the input rank.
    #[error(
        "Scatter op has window of size {window_size}; doesn't match operand of rank {}. The operand is {input}: |update_window_dims| + |inserted_window_dims| + |input_batching_dims| must equal its rank.",
        .input.rank()
    )]
    ScatterWindowSize {
        /// `|update_window_dims| + |inserted_window_dims| + |input_batching_dims|`.
        window_size: i64,
        /// The input.
        input: Shape,
    },
    /// An update window larger than the input dimension it updates.
    #[error(
        "Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of operand. For dimension {dimension}, updates bound is {updates_bound}, operand bound is {operand_bound}."
    )]
    ScatterWindowBound {
        /// The updates dimension.
        dimension: i64,
        /// Its size.
        updates_bound: i64,
        /// The size of the input dimension it updates.
        operand_bound: i64,
    },
    /// An updates scatter dimension that differs from its indices dimension.
    #[error(
        "Bounds of the scatter dimensions of updates must be same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension {dimension}, updates bound is {updates_bound}, scatter_indices bound is {indices_bound}."
    )]
    ScatterScatterBound {
        /// The updates dimension.
        dimension: i64,
        /// Its size.
        updates_bound: i64,
        /// The size of the indices dimension it pairs with.
        indices_bound: i64,
    },
    /// An update (reduction) computation with the wrong parameter count.
    #[error(
        "Reduction function must take {expected} parameters, but takes {} parameter(s). Its signature is ({}) -> {result}.",
        .parameters.len(), list(.parameters)
    )]
    ReductionFunctionParameterCount {
        /// How many it must take.
        expected: usize,
        /// Its parameters.
        parameters: Vec<Shape>,
        /// Its result.
        result: Shape,
    },
    /// An update (reduction) computation whose result has the wrong arity.
    #[error(
        "Reduction function must produce a tuple with {expected} elements, but {}.",
        match .result.is_tuple() { true => format!("has {} elements", .result.tuple_shapes().len()), false => "produces a scalar".to_string() }
    )]
    ReductionFunctionResultArity {
        /// How many results it must have.
        expected: usize,
        /// Its result.
        result: Shape,
    },
    /// An update (reduction) computation with a non-scalar result.
    #[error(
        "Reduction function must return a scalar or tuple of scalars but returns shape: {result}"
    )]
    ReductionFunctionResultNotScalar {
        /// Its result.
        result: Shape,
    },
    /// The `index`-th accumulator parameter differs from the `index`-th result.
    #[error(
        "Reduction function's {index}-th parameter shape differs from the result shape: {parameter} vs {result}"
    )]
    ReductionFunctionParameterResult {
        /// The parameter number.
        index: usize,
        /// The parameter.
        parameter: Shape,
        /// The result (element).
        result: Shape,
    },
    /// The `index`-th accumulator is not of the input's element type.
    #[error(
        "Reduction function's accumulator shape at index {index} differs from the init_value shape: {accumulator} vs {init}"
    )]
    ReductionFunctionAccumulatorInit {
        /// The input number.
        index: usize,
        /// The accumulator (result element).
        accumulator: Shape,
        /// A scalar of the input's element type.
        init: Shape,
    },
    /// An update parameter not of the updates' element type.
    #[error(
        "Reduction function's {index}-th parameter shape differs from the input type element type: {parameter} vs {input}"
    )]
    ReductionFunctionInputType {
        /// The parameter number.
        index: usize,
        /// The parameter.
        parameter: Shape,
        /// A scalar of the updates' element type.
        input: Shape,
    },
    /// An update parameter not of its accumulator's type.
    #[error(
        "Reduction function's {index}-th parameter shape must match the result shape, but got {parameter} vs {result}."
    )]
    ReductionFunctionParameterMatch {
        /// The parameter number.
        index: usize,
        /// The parameter.
        parameter: Shape,
        /// The result (element).
        result: Shape,
    },
    /// `dynamic-slice` (`dynamic-update-slice`) without one start index per
    /// operand dimension.
    #[error(
        "{} start number of dimensions {indices} must match rank {} of slice input ({operand}).",
        dynamic_title(.op), .operand.rank()
    )]
    DynamicSliceIndexCount {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// How many start indices it has.
        indices: usize,
        /// The operand.
        operand: Shape,
    },
    /// The old form (one rank-1 index vector) with more than one index operand.
    #[error("{} should have exactly 1 index operand, has {indices}.", dynamic_title(.op))]
    DynamicSliceIndexVectorCount {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// How many index operands it has.
        indices: usize,
    },
    /// The old form's index vector has not one entry per operand dimension.
    #[error(
        "{} start number of dimensions {} ({index}) must match rank {} of slice input ({operand}).",
        dynamic_title(.op), .index.dims()[0], .operand.rank()
    )]
    DynamicSliceIndexVectorLength {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// The index vector.
        index: Shape,
        /// The operand.
        operand: Shape,
    },
    /// A start index that is not a scalar.
    #[error("{} indices must be scalar, not {index}.", dynamic_title(.op))]
    DynamicSliceIndexNotScalar {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// The index.
        index: Shape,
    },
    /// A start index that is not an integer.
    #[error("{} start indices must be of integral type. Got {index}.", dynamic_title(.op))]
    DynamicSliceIndexType {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// The index.
        index: Shape,
    },
    /// Start indices of different types.
    #[error(
        "{} start indices must all have the same shape, got mismatching indices with shapes {first} and {other}.",
        dynamic_title(.op)
    )]
    DynamicSliceIndexShapes {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// The first index.
        first: Shape,
        /// One that differs.
        other: Shape,
    },
    /// `dynamic_slice_sizes` without one entry per operand dimension.
    #[error(
        "Dynamic slice index count does not match argument rank: {} vs {}. The operand is {operand}, dynamic_slice_sizes={}.",
        .slice_sizes.len(), .operand.rank(), dims_text(.slice_sizes)
    )]
    DynamicSliceSizesCount {
        /// The operand.
        operand: Shape,
        /// The slice sizes.
        slice_sizes: Vec<i64>,
    },
    /// A negative `dynamic_slice_sizes` entry.
    #[error("Negative size index to dynamic slice: {size}. The operand is {operand}.")]
    DynamicSliceNegativeSize {
        /// The operand.
        operand: Shape,
        /// The size.
        size: i64,
    },
    /// A slice (or update) larger than the operand dimension.
    #[error(
        "{} dim size {size} greater than dynamic slice dimension: {}. The operand is {operand}; the dimension is {dimension}.",
        if *.op == "dynamic-slice" { "Slice" } else { "Update" }, .operand.dims()[*.dimension]
    )]
    DynamicSliceSizeTooLarge {
        /// `dynamic-slice` or `dynamic-update-slice`.
        op: &'static str,
        /// The operand.
        operand: Shape,
        /// The dimension.
        dimension: usize,
        /// The slice's (update's) size there.
        size: i64,
    },
    /// `dynamic-update-slice`'s update has another rank than the operand.
    #[error(
        "Dynamic update slice update rank does not match argument rank: {} vs {}. The update is {update}, the operand {operand}.",
        .update.rank(), .operand.rank()
    )]
    DynamicUpdateSliceRank {
        /// The operand.
        operand: Shape,
        /// The update.
        update: Shape,
    },
    /// `dynamic-update-slice`'s update has another element type.
    #[error(
        "Dynamic update slice update element type does not match argument. operand.element_type: {} vs update.element_type: {}. The operand is {operand}, the update {update}.",
        .operand.element_type().name().to_uppercase(), .update.element_type().name().to_uppercase()
    )]
    DynamicUpdateSliceType {
        /// The operand.
        operand: Shape,
        /// The update.
        update: Shape,
    },

    // -- the misc family: bitcasts, reduce-precision, rng, linear algebra,
    //    batch norm (XLA's wording first) ------------------------------------
    /// `bitcast-convert` from or to a tuple.
    #[error("Cannot convert from or to tuple type; requested conversion: {operand} => {to}.")]
    BitcastConvertTuple {
        /// The operand.
        operand: Shape,
        /// The requested result.
        to: Shape,
    },
    /// `bitcast-convert` between widths that do not divide each other (or
    /// between `pred`, whose bits XLA counts as 1, and another type).
    #[error(
        "Cannot bitcast types with undivisible bit-widths: {} => {} ({operand} => {to}; pred converts only to pred).",
        .operand.element_type(), .to.element_type()
    )]
    BitcastConvertWidths {
        /// The operand.
        operand: Shape,
        /// The requested result.
        to: Shape,
    },
    /// A widening `bitcast-convert` whose operand's last dimension is not the
    /// ratio of the widths.
    #[error(
        "Last dimension of input shape={} is not equal to ratio of bit-widths={ratio} for bitcast-convert from {operand} to {}.",
        .operand.dims().last().map_or("none".to_string(), |d| d.to_string()), .to.element_type()
    )]
    BitcastConvertLastDimension {
        /// The operand.
        operand: Shape,
        /// The requested result.
        to: Shape,
        /// The wider width over the narrower one.
        ratio: u32,
    },
    /// A `bitcast` that changes the element type.
    #[error(
        "bitcast cannot change the element type ({operand} => {result}): oxla takes every layout as the default, under which a bitcast is a reshape; use bitcast-convert to reinterpret bits."
    )]
    BitcastElementType {
        /// The operand.
        operand: Shape,
        /// The declared result.
        result: Shape,
    },
    /// A `bitcast` that changes the number of elements.
    #[error(
        "Bitcast cannot have different shape sizes of output ({}) and operand ({}) ({result}) ({operand}).",
        .result.element_count(), .operand.element_count()
    )]
    BitcastElementCount {
        /// The operand.
        operand: Shape,
        /// The declared result.
        result: Shape,
    },
    /// `reduce-precision` keeping no exponent bit.
    #[error("Expected exponent_bits >= 1; got {exponent_bits} (operand {operand}).")]
    ReducePrecisionExponentBits {
        /// The operand.
        operand: Shape,
        /// The attribute.
        exponent_bits: i64,
    },
    /// `reduce-precision` with negative mantissa bits.
    #[error("Expected non-negative mantissa_bits; got {mantissa_bits} (operand {operand}).")]
    ReducePrecisionMantissaBits {
        /// The operand.
        operand: Shape,
        /// The attribute.
        mantissa_bits: i64,
    },
    /// `rng` with an operand that is not a scalar.
    #[error("Expected scalar types for the two operands of Rng instruction: {a}, {b}.")]
    RngOperandsNotScalar {
        /// The first operand.
        a: Shape,
        /// The second operand.
        b: Shape,
    },
    /// `rng` whose operands and result have different element types.
    #[error(
        "Expected compatible element types for the result and the two operands of Rng instruction: ({a}, {b}) -> {result}."
    )]
    RngElementTypes {
        /// The first operand.
        a: Shape,
        /// The second operand.
        b: Shape,
        /// The declared result.
        result: Shape,
    },
    /// `rng` with `distribution=rng_normal` of a type that is not a float.
    #[error(
        "Element type not supported. Expected element to be FloatingPointType for RngNormal: {result}."
    )]
    RngNormalType {
        /// The declared result.
        result: Shape,
    },
    /// `rng` declared with a tuple result.
    #[error("rng produces an array, but its result is declared as the tuple {result}.")]
    RngTupleResult {
        /// The declared result.
        result: Shape,
    },
    /// `rng-bit-generator` whose result is not a pair.
    #[error("Expected tuple shape with 2 elements for RngBitGenerator. Got: {result}.")]
    RngBitGeneratorResult {
        /// The declared result.
        result: Shape,
    },
    /// `rng-bit-generator` whose new state differs from the state.
    #[error(
        "Expected state shape to match between input and output for RngBitGenerator. Got {state} vs. {new_state}."
    )]
    RngBitGeneratorStateMismatch {
        /// The operand.
        state: Shape,
        /// The first element of the declared result.
        new_state: Shape,
    },
    /// `rng-bit-generator` asked for bits of a type that is not an unsigned
    /// integer array.
    #[error(
        "Unsupported shape for RngBitGenerator: {bits}; the bits must be an array of u8, u16, u32 or u64."
    )]
    RngBitGeneratorBits {
        /// The second element of the declared result.
        bits: Shape,
    },
    /// `rng-bit-generator`'s state is not what its algorithm reads.
    #[error(
        "the state of rng-bit-generator with algorithm={algorithm} must be {expected}, but is {state}."
    )]
    RngBitGeneratorState {
        /// The algorithm's name.
        algorithm: String,
        /// The shapes it takes, in words.
        expected: String,
        /// The operand.
        state: Shape,
    },
    /// `cholesky` of fewer than two dimensions.
    #[error("The 'a' argument to Cholesky must have rank >= 2, got shape {a}.")]
    CholeskyRank {
        /// The operand.
        a: Shape,
    },
    /// `cholesky` of non-square matrices.
    #[error("The two minor dimensions of 'a' must have compatible size, got {a}.")]
    CholeskyNotSquare {
        /// The operand.
        a: Shape,
    },
    /// `triangular-solve` operands of another or different element types.
    #[error(
        "Expected element types in shape to be floating or complex and identical for TriangularSolve; got {} and {} ({a}, {b}).",
        .a.element_type(), .b.element_type()
    )]
    TriangularSolveTypes {
        /// The matrix.
        a: Shape,
        /// The right-hand side.
        b: Shape,
    },
    /// `triangular-solve`'s `a` has fewer than two dimensions.
    #[error("The 'a' argument to TriangularSolve must have rank >= 2, got shape {a}.")]
    TriangularSolveRank {
        /// The matrix.
        a: Shape,
    },
    /// `triangular-solve`'s operands have different ranks.
    #[error("Arguments to triangular solve must have equal rank; got {b} and {a}.")]
    TriangularSolveRanks {
        /// The matrix.
        a: Shape,
        /// The right-hand side.
        b: Shape,
    },
    /// `triangular-solve`'s `a` is not square.
    #[error("The two minor dimensions of 'a' must have equal size, got {a}.")]
    TriangularSolveNotSquare {
        /// The matrix.
        a: Shape,
    },
    /// `a`'s size is not `b`'s solved dimension.
    #[error(
        "The shared dimension of 'a' and 'b' does not match, got shapes {a} and {b} (left_side={left_side})."
    )]
    TriangularSolveSharedDimension {
        /// The matrix.
        a: Shape,
        /// The right-hand side.
        b: Shape,
        /// Whether `a` multiplies from the left.
        left_side: bool,
    },
    /// `triangular-solve`'s batch dimensions differ.
    #[error(
        "The leading batch dimensions of the arguments to triangular solve must be equal; got {b} and {a}."
    )]
    TriangularSolveBatchDimensions {
        /// The matrix.
        a: Shape,
        /// The right-hand side.
        b: Shape,
    },
    /// `feature_index` at or past the operand's rank.
    #[error(
        "Expected feature_index of {op} to be smaller than the rank of operand_shape; got feature_index {feature_index}, and rank {} (operand {operand}).",
        .operand.rank()
    )]
    BatchNormFeatureIndexTooLarge {
        /// The op's name.
        op: String,
        /// The operand.
        operand: Shape,
        /// The attribute.
        feature_index: i64,
    },
    /// A negative `feature_index`.
    #[error(
        "Expected feature_index of {op} to be a non-negative number, got {feature_index} (operand {operand})."
    )]
    BatchNormFeatureIndexNegative {
        /// The op's name.
        op: String,
        /// The operand.
        operand: Shape,
        /// The attribute.
        feature_index: i64,
    },
    /// `batch-norm-grad`'s operand and output gradient of different ranks.
    #[error(
        "Expected operand_shape of batch-norm-grad to have the same rank as output_grad_shape; got rank(oprand_shape) {}, and rank(output_grad_shape) {} ({operand}, {grad_output}).",
        .operand.rank(), .grad_output.rank()
    )]
    BatchNormGradRanks {
        /// The operand.
        operand: Shape,
        /// The output gradient.
        grad_output: Shape,
    },
    /// A per-feature input that is not a vector.
    #[error("{input} input of {op} must have rank 1, but has rank {} ({shape}).", .shape.rank())]
    BatchNormInputRank {
        /// The op's name.
        op: String,
        /// `Offset`, `Scale`, `Mean` or `Var`.
        input: String,
        /// Its shape.
        shape: Shape,
    },
    /// A batch-norm operand that is not a float array.
    #[error(
        "The {what} to {op} must have a floating point element type, but the shape is {}.",
        .shape.element_type()
    )]
    BatchNormNotFloat {
        /// The op's name.
        op: String,
        /// `operand` or `output_grad`.
        what: String,
        /// Its shape.
        shape: Shape,
    },
    /// A batch-norm input of another element type than the operand's.
    #[error(
        "The inputs should have the same element type for {op}, but the element type of {input} is {} and the element type of operand is {} ({shape}, {operand}).",
        .shape.element_type(), .operand.element_type()
    )]
    BatchNormInputType {
        /// The op's name.
        op: String,
        /// Which input, in XLA's words (`scale factor`, `mean`).
        input: String,
        /// Its shape.
        shape: Shape,
        /// The operand.
        operand: Shape,
    },
    /// A per-feature input of another size than the feature dimension.
    #[error(
        "The size of {input} should be compatible with feature count, but the size of {input} is {} and the feature count is {feature_count} ({shape}, operand {operand}).",
        .shape.dims().first().copied().unwrap_or(0)
    )]
    BatchNormFeatureCount {
        /// Which input, in XLA's words (`offset factor`, `variance`).
        input: String,
        /// Its shape.
        shape: Shape,
        /// The size of the operand's feature dimension.
        feature_count: i64,
        /// The operand.
        operand: Shape,
    },
    /// `batch-norm-grad`'s output gradient of other dims than the operand.
    #[error(
        "The bounds of operand shape should be compatible with output_grad's, but the bound of operand_shape at dimension {dimension} is {} and the bound of output_grad_shape is {} ({operand}, {grad_output}).",
        .operand.dims().get(*.dimension).copied().unwrap_or(0), .grad_output.dims().get(*.dimension).copied().unwrap_or(0)
    )]
    BatchNormGradBounds {
        /// The operand.
        operand: Shape,
        /// The output gradient.
        grad_output: Shape,
        /// The first dimension that differs.
        dimension: usize,
    },
}

/// A called computation's parameter shapes and result shape, printed as
/// `(f32[], s32[]) -> pred[]`: what a problem with a called computation
/// (a loop's condition, a conditional's branch, a reducer) shows of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The parameter shapes, in parameter order.
    pub parameters: Vec<Shape>,
    /// The result shape.
    pub result: Shape,
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}) -> {}", list(&self.parameters), self.result)
    }
}

/// Why a comparison type does not go with an operand, for
/// [`OpProblem::ComparisonType`].
fn comparison_type_help(actual: crate::ComparisonType, operand: &Shape) -> String {
    use crate::ComparisonType;
    match actual {
        ComparisonType::TotalOrder => format!(
            "TOTALORDER orders floats only; {} compares with its own order (omit `type=`).",
            operand.element_type()
        ),
        ComparisonType::Float | ComparisonType::Signed | ComparisonType::Unsigned => format!(
            "the type must match the element type {}; omit `type=` for its default.",
            operand.element_type()
        ),
    }
}

/// `f32[4], s32[4] -> (f32[], f32[], s32[], s32[])`: the parameters a sort
/// comparator of these operands takes.
fn interleaved(operands: &[Shape]) -> String {
    let params: Vec<String> = operands
        .iter()
        .flat_map(|o| {
            let t = format!("{}[]", o.element_type());
            [t.clone(), t]
        })
        .collect();
    format!("{} -> ({})", list(operands), params.join(", "))
}

/// The size of the last dimension, or 0 for a scalar.
fn last_dim(shape: &Shape) -> i64 {
    shape.dims().last().copied().unwrap_or(0)
}

/// `: (f32[2], s32[])` after an operand count, or nothing for none.
fn operand_list(operands: &[Shape]) -> String {
    if operands.is_empty() {
        String::new()
    } else {
        format!(": ({})", list(operands))
    }
}

// -- indexing: message helpers ------------------------------------------------

/// `Gather` for `gather`: how XLA's messages start.
fn title(op: &str) -> String {
    let mut chars = op.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `Dynamic slice` for `dynamic-slice`, `Dynamic update slice` for
/// `dynamic-update-slice`.
fn dynamic_title(op: &str) -> String {
    title(&op.replace('-', " "))
}

/// The name XLA gives the indices operand of `op`.
fn indices_name(op: &str) -> &'static str {
    if op == "gather" {
        "start_indices"
    } else {
        "scatter_indices"
    }
}

/// The operand's and the indices' batching lists of `op`.
fn batching_lists(op: &str) -> (&'static str, &'static str) {
    if op == "gather" {
        ("operand_batching_dims", "start_indices_batching_dims")
    } else {
        ("input_batching_dims", "scatter_indices_batching_dims")
    }
}

/// `1, 0`, as XLA joins a list in messages.
fn joined(dims: &[i64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// XLA's message for a list that must be ascending.
fn unsorted_text(op: &str, list: &str, dims: &[i64]) -> String {
    let got = joined(dims);
    match (op, list) {
        ("gather", "offset_dims") => {
            format!("Output window dimensions in gather op must be ascending; got: {got}.")
        }
        // XLA ends these two without a period.
        ("gather", _) => format!("{list} in gather op must be sorted; got: {got}"),
        _ => format!("{list} in {op} op must be sorted; got: {got}."),
    }
}

/// XLA's message for a list that names a dimension twice.
fn repeated_text(op: &str, list: &str, dims: &[i64]) -> String {
    let got = joined(dims);
    match (op, list) {
        ("gather", "offset_dims") => {
            format!("Output window dimensions in gather op must not repeat; got: {got}.")
        }
        ("gather", "start_index_map" | "start_indices_batching_dims") => {
            format!("Repeated dimensions are not allowed in {list}; got: {got}.")
        }
        ("gather", _) => {
            format!("Repeated dimensions not allowed in {list} in gather op; got: {got}.")
        }
        (_, "scatter_dims_to_operand_dims") => {
            format!("Repeated dimensions not allowed in {list}; got: {got}.")
        }
        _ => format!("{list} in {op} op must not repeat; got: {got}."),
    }
}

/// XLA's message for a list entry out of range.
fn out_of_range_text(op: &str, list: &str, position: usize, value: i64, bound: i64) -> String {
    match (op, list) {
        ("gather", "offset_dims") => format!(
            "Offset dimension {position} in gather op is out of bounds; got {value}, but should have been in [0,{bound})."
        ),
        ("gather", "start_index_map" | "start_indices_batching_dims") => {
            format!("Invalid {list}; domain is [0, {bound}), got: {position}->{value}.")
        }
        (_, "scatter_dims_to_operand_dims") => {
            format!("Invalid {list} mapping; domain is [0, {bound}), got: {position}->{value}.")
        }
        // XLA separates these two parts with a period.
        (_, "update_window_dims") => {
            format!("Invalid {list} set in {op} op; valid range is [0, {bound}). got: {value}.")
        }
        _ => format!("Invalid {list} set in {op} op; valid range is [0, {bound}), got: {value}."),
    }
}
