//! The IR: instructions in arenas addressed by typed `u32` handles.
//!
//! A [`Computation`] is what XLA calls a module: one entry [`Body`] plus the
//! bodies it calls (reducers), all in one vector with the entry last, so a
//! called body always comes before its caller. A [`Body`] holds its
//! [`Instruction`]s in definition order (every operand comes before its
//! user); instructions refer to each other by [`InstId`] and to called bodies
//! by [`ComputationId`], never by pointer.
//!
//! What each opcode is (its name, arity, class, accepted types, cost and
//! flags) lives in the op table, [`crate::opcode`]; [`OpKind`] adds the
//! attributes each op carries. Matches over them are exhaustive, so a new op
//! shows every place that must handle it.
//!
//! Invariants of a verified computation (see [`crate::verifier`]):
//! - every instruction's shape equals what [`crate::shape_inference`] gives
//!   for its operands and attributes;
//! - operands refer to earlier instructions of the same body;
//! - parameters are numbered densely from 0, each number once;
//! - called bodies have the signature their caller needs;
//! - instruction names are unique within their body, and body names within
//!   the computation.

use std::fmt;

pub use crate::opcode::{BinaryOp, UnaryOp};
use crate::{ElementType, Literal, Opcode, Shape};

// The windows family: the attribute types of convolution, reduce-window
// and select-and-scatter.
mod window;
pub use window::{ConvolutionDimensionNumbers, Window, WindowDim, WindowTextError};
mod fft;
pub use fft::FftType;
mod custom_call;
pub use custom_call::{CustomCall, CustomCallApiVersion};
mod ragged_dot;
pub use ragged_dot::{RaggedDotDimensionNumbers, RaggedDotMode};

/// The index of an instruction within its [`Body`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

impl InstId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The index of a body within its [`Computation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputationId(pub u32);

impl ComputationId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

macro_rules! op_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $variant),* }
        impl $name {
            /// Every variant, in table order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// The HLO text spelling.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            /// Parses the HLO text spelling.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$variant),)* _ => None }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
    };
}

op_enum!(
    /// The direction of a `compare`.
    ComparisonDirection {
        /// `==`
        Eq => "EQ",
        /// `!=`
        Ne => "NE",
        /// `<`
        Lt => "LT",
        /// `<=`
        Le => "LE",
        /// `>`
        Gt => "GT",
        /// `>=`
        Ge => "GE",
    }
);

op_enum!(
    /// How precisely an operand of a `convolution` (or `dot`) must be used
    /// (XLA's `operand_precision`). On the CPU every precision computes at
    /// the full precision of the element type, which is what oxla does.
    Precision {
        /// The backend's default.
        Default => "default",
        /// More precise than the default where the hardware differs.
        High => "high",
        /// The full precision of the element type.
        Highest => "highest",
    }
);

op_enum!(
    /// XLA's comparison type, the `type=` of a `compare`: how the operands
    /// are ordered. Each element type has a default (`FLOAT` for floats,
    /// `SIGNED` for signed integers, `UNSIGNED` for unsigned integers and
    /// `pred`), and floats may instead use `TOTALORDER`; no other pairing is
    /// valid. The IR stores the choice as a [`ComparisonOrder`].
    ComparisonType {
        /// IEEE-754: every comparison with NaN is false except `NE`, and
        /// `-0 == +0`.
        Float => "FLOAT",
        /// The total order of floats: `-NaN < -inf < ... < -0 < +0 < ... <
        /// +inf < +NaN`, compared bit pattern by bit pattern.
        TotalOrder => "TOTALORDER",
        /// Two's complement integers.
        Signed => "SIGNED",
        /// Unsigned integers and `pred` (`false < true`).
        Unsigned => "UNSIGNED",
    }
);

impl ComparisonType {
    /// The type a `compare` of `ty` operands has when none is written.
    ///
    /// ```
    /// use oxla_ir::{ComparisonType, ElementType};
    /// assert_eq!(ComparisonType::default_for(ElementType::F64), ComparisonType::Float);
    /// assert_eq!(ComparisonType::default_for(ElementType::Pred), ComparisonType::Unsigned);
    /// ```
    pub fn default_for(ty: ElementType) -> ComparisonType {
        // Every real float kind and complex (whose EQ/NE compare the parts
        // as floats) is FLOAT; integers by their sign; `pred` UNSIGNED.
        if ty.is_float() || ty.is_complex() {
            ComparisonType::Float
        } else if ty.is_signed_integer() {
            ComparisonType::Signed
        } else {
            ComparisonType::Unsigned
        }
    }
}

/// The order a `compare` uses, as the IR stores it: one value per meaning,
/// so a comparison has a single representation whatever text it came from.
/// XLA's `type=` ([`ComparisonType`]) maps onto it: the element type's
/// default type is [`ComparisonOrder::Natural`], `TOTALORDER` (floats only)
/// is [`ComparisonOrder::Total`], and any other pairing is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ComparisonOrder {
    /// The element type's own order: IEEE for floats, signed or unsigned
    /// for integers, `false < true` for `pred` (XLA's default type).
    #[default]
    Natural,
    /// `TOTALORDER`: floats compared as the signed integers
    /// `bits < 0 ? bits ^ INT_MAX : bits`, so `-NaN < -inf < -0 < +0 < +inf
    /// < +NaN`, `-0 != +0` and a NaN equals a NaN of the same bits. Floats
    /// only.
    Total,
}

impl ComparisonOrder {
    /// The XLA comparison type this order has on `ty` operands.
    ///
    /// ```
    /// use oxla_ir::{ComparisonOrder, ComparisonType, ElementType::{F32, S8}};
    /// assert_eq!(ComparisonOrder::Natural.comparison_type(S8), ComparisonType::Signed);
    /// assert_eq!(ComparisonOrder::Total.comparison_type(F32), ComparisonType::TotalOrder);
    /// ```
    pub fn comparison_type(self, ty: ElementType) -> ComparisonType {
        match self {
            ComparisonOrder::Natural => ComparisonType::default_for(ty),
            ComparisonOrder::Total => ComparisonType::TotalOrder,
        }
    }

    /// The order XLA's comparison type `t` means on `ty` operands, or `None`
    /// where XLA's verifier refuses the pairing (`SIGNED` on `u8`,
    /// `TOTALORDER` on `s32`, `FLOAT` on integers).
    ///
    /// ```
    /// use oxla_ir::{ComparisonOrder, ComparisonType, ElementType::{F32, S32}};
    /// assert_eq!(ComparisonOrder::from_type(ComparisonType::Float, F32), Some(ComparisonOrder::Natural));
    /// assert_eq!(ComparisonOrder::from_type(ComparisonType::TotalOrder, S32), None);
    /// ```
    pub fn from_type(t: ComparisonType, ty: ElementType) -> Option<ComparisonOrder> {
        if t == ComparisonType::default_for(ty) {
            Some(ComparisonOrder::Natural)
        } else if t == ComparisonType::TotalOrder && ty.is_float() {
            Some(ComparisonOrder::Total)
        } else {
            None
        }
    }
}

/// Padding of one dimension: `lo` elements before, `hi` after (either may be
/// negative, which removes elements), `interior` between each pair (never
/// negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PadDim {
    /// Elements added before the first (removed when negative).
    pub lo: i64,
    /// Elements added after the last (removed when negative).
    pub hi: i64,
    /// Elements added between neighbours.
    pub interior: i64,
}

/// Which dimensions of a `dot_general` are batch and which are contracted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    /// Batch dimensions of the left operand.
    pub lhs_batch: Vec<i64>,
    /// Batch dimensions of the right operand (paired with `lhs_batch`).
    pub rhs_batch: Vec<i64>,
    /// Contracted dimensions of the left operand.
    pub lhs_contracting: Vec<i64>,
    /// Contracted dimensions of the right operand (paired).
    pub rhs_contracting: Vec<i64>,
}

// -- attributes of the misc family (rng, linear algebra) ----------------------

op_enum!(
    /// The distribution an `rng` draws from.
    RngDistribution {
        /// Uniform in `[a, b)`.
        Uniform => "rng_uniform",
        /// Normal with mean `a` and standard deviation `b`.
        Normal => "rng_normal",
    }
);

op_enum!(
    /// The generator an `rng-bit-generator` runs.
    RngAlgorithm {
        /// The backend's choice: Philox, as XLA:CPU chooses.
        Default => "rng_default",
        /// ThreeFry-2x32 with 20 rounds; state `u64[2]` = `[key, counter]`.
        ThreeFry => "rng_three_fry",
        /// Philox-4x32 with 10 rounds; state `u64[2]` or `u64[3]`.
        Philox => "rng_philox",
    }
);

op_enum!(
    /// What `triangular-solve` does to `a` before solving.
    Transpose {
        /// `a` as it is.
        NoTranspose => "NO_TRANSPOSE",
        /// `a` transposed.
        Transpose => "TRANSPOSE",
        /// `a` conjugate-transposed (the transpose, for real types).
        Adjoint => "ADJOINT",
    }
);

/// The options of a `triangular-solve`: solve `op(a) x = b` (`left_side`)
/// or `x op(a) = b`, reading the `lower` or upper triangle of `a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TriangularSolveOptions {
    /// `a` multiplies `x` from the left.
    pub left_side: bool,
    /// Read the lower triangle of `a` (else the upper one).
    pub lower: bool,
    /// Take `a`'s diagonal as ones without reading it.
    pub unit_diagonal: bool,
    /// What is done to `a` first.
    pub transpose_a: Transpose,
}

// -- indexing: gather, scatter, dynamic-slice, dynamic-update-slice ----------

/// How a `gather` reads its operand: XLA's `GatherDimensionNumbers`.
///
/// Each index vector of `start_indices` (the values along
/// `index_vector_dim`) gives the start of one slice of size `slice_sizes`;
/// `start_index_map[k]` is the operand dimension the `k`-th value indexes.
/// The result keeps the slice's dimensions at `offset_dims` and the
/// indices' other dimensions (the batch) in the remaining positions;
/// `collapsed_slice_dims` (size-1 slice dimensions) are dropped, and
/// `operand_batching_dims[i]` is indexed by the batch position of indices
/// dimension `start_indices_batching_dims[i]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// The result dimensions that hold slice (offset) dimensions, ascending.
    pub offset_dims: Vec<i64>,
    /// Operand dimensions of slice size 1 or 0 that the result drops, ascending.
    pub collapsed_slice_dims: Vec<i64>,
    /// The operand dimension each index-vector entry starts.
    pub start_index_map: Vec<i64>,
    /// Operand dimensions indexed by the batch position, ascending.
    pub operand_batching_dims: Vec<i64>,
    /// The `start_indices` dimension paired with each operand batching dimension.
    pub start_indices_batching_dims: Vec<i64>,
    /// The `start_indices` dimension that holds the index vectors; equal to
    /// its rank for an implicit trailing dimension of size 1.
    pub index_vector_dim: i64,
}

/// How a `scatter` writes its inputs: XLA's `ScatterDimensionNumbers`.
///
/// Each index vector of `scatter_indices` gives the start of one update
/// window in the inputs; `scatter_dims_to_operand_dims[k]` is the input
/// dimension the `k`-th value indexes. The updates hold the window's
/// dimensions at `update_window_dims` and the indices' batch dimensions in
/// the remaining positions; `inserted_window_dims` are window dimensions of
/// size 1 the updates leave out, and `input_batching_dims[i]` is indexed by
/// the batch position of indices dimension `scatter_indices_batching_dims[i]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// The updates dimensions that hold window dimensions, ascending.
    pub update_window_dims: Vec<i64>,
    /// Input dimensions of window size 1 the updates leave out, ascending.
    pub inserted_window_dims: Vec<i64>,
    /// The input dimension each index-vector entry starts.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// Input dimensions indexed by the batch position, ascending.
    pub input_batching_dims: Vec<i64>,
    /// The `scatter_indices` dimension paired with each input batching dimension.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// The `scatter_indices` dimension that holds the index vectors; equal
    /// to its rank for an implicit trailing dimension of size 1.
    pub index_vector_dim: i64,
}

/// What an instruction does, with the attributes of its op. Operands live in
/// [`Instruction::operands`]; the order for each op is documented here.
#[derive(Debug, Clone, PartialEq)]
pub enum OpKind {
    /// No operands. `number` is the position in the argument list.
    Parameter {
        /// Parameter number, dense from 0.
        number: i64,
    },
    /// No operands; the value is the literal.
    Constant {
        /// The value.
        literal: Literal,
    },
    /// No operands: `out[i...] = i_dimension` converted to the element type.
    Iota {
        /// The dimension that counts.
        dimension: i64,
    },
    /// Operands: `[x]`.
    Unary(UnaryOp),
    /// Operands: `[lhs, rhs]`, broadcast as XLA's builder does.
    Binary {
        /// The op.
        op: BinaryOp,
        /// Which dimensions of the higher-rank operand the lower-rank
        /// operand's dimensions map to; empty for equal ranks and scalars.
        broadcast_dimensions: Vec<i64>,
    },
    /// Operands: `[x]`; the element type comes from the result shape.
    Convert,
    /// Operands: `[pred, on_true, on_false]`; `pred` may be a scalar.
    Select,
    /// Operands: `[min, x, max]`; `min` and `max` may be scalars.
    Clamp,
    /// Operands: `[x]`: `out[i_0..] = x[i_{dimensions[0]}, ..]`; a size-1
    /// dimension of `x` may map to any size (it is replicated).
    Broadcast {
        /// The output dimension each operand dimension maps to.
        dimensions: Vec<i64>,
    },
    /// Operands: `[x]`; row-major reinterpretation to the result dims.
    Reshape,
    /// Operands: `[x]`: `out.dims[i] = x.dims[permutation[i]]`.
    Transpose {
        /// The permutation.
        permutation: Vec<i64>,
    },
    /// Operands: `[x]`.
    Slice {
        /// Start index per dimension (inclusive).
        starts: Vec<i64>,
        /// Limit per dimension (exclusive).
        limits: Vec<i64>,
        /// Step per dimension (positive).
        strides: Vec<i64>,
    },
    /// Operands: the arrays joined, in order.
    Concatenate {
        /// The dimension they are joined along.
        dimension: i64,
    },
    /// Operands: `[x]`.
    Reverse {
        /// The dimensions reversed.
        dimensions: Vec<i64>,
    },
    /// Operands: `[x, padding_value]`.
    Pad {
        /// Padding per dimension.
        config: Vec<PadDim>,
    },
    /// Operands: `[x_0, .., x_{n-1}, init_0, .., init_{n-1}]` (`n >= 1`):
    /// folds `to_apply` over `dimensions`. With one input (`[x, init]`) the
    /// result is an array; with several it is the tuple of one array per
    /// input (argmax: a value and its index).
    Reduce {
        /// The dimensions reduced away.
        dimensions: Vec<i64>,
        /// The reducer, `(T[], T[]) -> T[]` for one input, `(acc_0, ..,
        /// acc_{n-1}, x_0, .., x_{n-1}) -> (T_0[], .., T_{n-1}[])` for `n`.
        to_apply: ComputationId,
    },
    /// Operands: `[lhs, rhs]`.
    DotGeneral {
        /// Batch and contracting dimensions.
        dims: DotDimensionNumbers,
    },
    /// Operands: the elements.
    Tuple,
    // -- the misc family ---------------------------------------------------
    /// Operands: `[x]`; the bits of each element reinterpreted as the result
    /// shape's element type (a width change adds or removes a minor
    /// dimension).
    BitcastConvert,
    /// Operands: `[x]`; the same elements in the result's dims (row-major:
    /// oxla takes every layout as the default one).
    Bitcast,
    /// Operands: `[x]`; rounds to `exponent_bits` and `mantissa_bits`.
    ReducePrecision {
        /// Exponent bits kept (at least 1).
        exponent_bits: i64,
        /// Mantissa bits kept (at least 0).
        mantissa_bits: i64,
    },
    /// Operands: `[a, b]`, two scalars: `[low, high)` or `(mean, sigma)`.
    Rng {
        /// The distribution.
        distribution: RngDistribution,
    },
    /// Operands: `[state]`; gives `(new_state, bits)`.
    RngBitGenerator {
        /// The generator.
        algorithm: RngAlgorithm,
    },
    /// Operands: `[a]`.
    Cholesky {
        /// Give `L` with `a = L L^T` (else `U` with `a = U^T U`).
        lower: bool,
    },
    /// Operands: `[a, b]`.
    TriangularSolve {
        /// Which system is solved.
        options: TriangularSolveOptions,
    },
    /// Operands: `[x, scale, offset]`; gives `(y, batch_mean, batch_var)`.
    BatchNormTraining {
        /// Added to the variance.
        epsilon: f32,
        /// The dimension of `x` that holds the features.
        feature_index: i64,
    },
    /// Operands: `[x, scale, offset, mean, variance]`.
    BatchNormInference {
        /// Added to the variance.
        epsilon: f32,
        /// The dimension of `x` that holds the features.
        feature_index: i64,
    },
    /// Operands: `[x, scale, mean, variance, grad_output]`; gives
    /// `(grad_x, grad_scale, grad_offset)`.
    BatchNormGrad {
        /// Added to the variance.
        epsilon: f32,
        /// The dimension of `x` that holds the features.
        feature_index: i64,
    },

    // -- tuples and control flow (the ctrl family) ---------------------------
    /// Operands: `[t]`, a tuple: its element `index`.
    GetTupleElement {
        /// Which element, from 0.
        index: i64,
    },
    /// Operands: `[init]`: `s = init; while condition(s) { s = body(s) }`,
    /// and the result is `s` (`init` itself when the loop runs zero times).
    While {
        /// The condition, `(S) -> pred[]`.
        condition: ComputationId,
        /// The body, `(S) -> S`.
        body: ComputationId,
    },
    /// Operands: `[selector, operand_0, .., operand_{n-1}]`: runs branch `k`
    /// on `operand_k` and returns its result; only that branch runs. A
    /// `pred` selector picks branch 0 (XLA's `true_computation`) when true
    /// and branch 1 (`false_computation`) when false; an `s32` selector
    /// outside `0..n` picks the last branch.
    Conditional {
        /// The branches, `(operand_k) -> R` each.
        branches: Vec<ComputationId>,
    },
    /// Operands: `[x]`, any shape: `x` unchanged. It only stops
    /// optimizations from moving work across it.
    OptimizationBarrier,
    /// Operands: arrays of one shape (their element types may differ):
    /// `out[i] = to_apply(x_0[i], .., x_{n-1}[i])`.
    Map {
        /// Every dimension, in order (XLA maps over all of them).
        dimensions: Vec<i64>,
        /// The scalar computation, `(T_0[], .., T_{n-1}[]) -> R[]`.
        to_apply: ComputationId,
    },
    // -- the windows family ---------------------------------------------------
    /// Operands: `[lhs, rhs]` (input and kernel): a cross-correlation of
    /// the kernel over the input's spatial dimensions (XLA's `Conv`).
    Convolution {
        /// One entry per spatial dimension, in spatial order.
        window: Window,
        /// Which dimension of each operand and of the result is which.
        dims: ConvolutionDimensionNumbers,
        /// Groups of input features convolved separately (1: none).
        feature_group_count: i64,
        /// Groups of the batch convolved separately (1: none).
        batch_group_count: i64,
        /// `operand_precision` of lhs and rhs; every precision computes at
        /// the element type's full precision.
        precision: [Precision; 2],
    },
    /// Operands: `[inputs..., inits...]` (N of each): folds `to_apply` over
    /// each window of the inputs.
    ReduceWindow {
        /// One entry per input dimension.
        window: Window,
        /// The reducer, `(T[], T[]) -> T[]` (or its variadic form).
        to_apply: ComputationId,
    },
    /// Operands: `[operand, source, init]`: scatters each source element
    /// onto the element its window of `operand` selects.
    SelectAndScatter {
        /// One entry per operand dimension.
        window: Window,
        /// `(T[], T[]) -> pred[]`: `true` keeps the current selection.
        select: ComputationId,
        /// `(T[], T[]) -> T[]`: combines a source value with the result.
        scatter: ComputationId,
    },
    // -- indexing -------------------------------------------------------------
    /// Operands: `[operand, start_indices]`: slices of `slice_sizes` at the
    /// (clamped) starts the index vectors give.
    Gather {
        /// Where the slices' and the indices' dimensions go.
        dims: GatherDimensionNumbers,
        /// The size of every slice, one entry per operand dimension.
        slice_sizes: Vec<i64>,
        /// A promise that the indices are sorted (never relied on).
        indices_are_sorted: bool,
    },
    /// Operands: `[input_0..input_{N-1}, scatter_indices, update_0..update_{N-1}]`:
    /// the inputs with each update window combined into place by
    /// `to_apply`; an N-tuple for N > 1.
    Scatter {
        /// Where the windows' and the indices' dimensions go.
        dims: ScatterDimensionNumbers,
        /// A promise that the indices are sorted (never relied on).
        indices_are_sorted: bool,
        /// A promise that no two windows overlap (never relied on).
        unique_indices: bool,
        /// The update computation, `(cur_0..cur_{N-1}, upd_0..upd_{N-1})`
        /// scalars to the N new values (a tuple for N > 1).
        to_apply: ComputationId,
    },
    /// Operands: `[operand, start_0, .., start_{r-1}]` (one scalar per
    /// dimension), or XLA's older `[operand, starts]` with one rank-1 index
    /// vector: a slice of `slice_sizes` at the clamped starts.
    DynamicSlice {
        /// The slice's size per dimension.
        slice_sizes: Vec<i64>,
    },
    /// Operands: `[operand, update, start_0, .., start_{r-1}]` (or one rank-1
    /// index vector): the operand with `update` written at the clamped starts.
    DynamicUpdateSlice,
    // -- complex numbers ----------------------------------------------------------
    /// Operands: `[re, im]`, real arrays of one type and shape: `re + i·im`
    /// (`f32` gives `c64`, `f64` gives `c128`).
    Complex,
    /// Operands: `[z]`: the real part (a real operand is its own).
    Real,
    /// Operands: `[z]`: the imaginary part (zero for a real operand).
    Imag,
    /// Operands: `[x]`: a discrete Fourier transform over the trailing
    /// `fft_length.len()` (1 to 3) dimensions.
    Fft {
        /// Which transform.
        fft_type: FftType,
        /// The transform's length per transformed dimension (for `IRFFT`,
        /// the real output's).
        fft_length: Vec<i64>,
    },

    // -- sort and top-k (the sort family) --------------------------------------
    /// Operands: one or more arrays of the same dims (element types may
    /// differ), sorted together along `dimension` by one permutation per
    /// row: element `a` comes before `b` when `to_apply(a_0, b_0, a_1, b_1,
    /// ...)` is true. One operand gives an array, several the tuple of the
    /// sorted arrays. Always evaluated as a stable sort (see
    /// `docs/ops.md`), whatever `is_stable` says.
    Sort {
        /// The dimension sorted along.
        dimension: i64,
        /// Whether equal elements must keep their order (printed only when
        /// true).
        is_stable: bool,
        /// The comparator, `(T_0[], T_0[], T_1[], T_1[], ...) -> pred[]`:
        /// a strict weak order ("less than").
        to_apply: ComputationId,
    },
    /// Operands: `[x]`, an array of rank >= 1: the tuple `(values, s32
    /// indices)` of the `k` largest (`largest`) or smallest elements of each
    /// row of the last dimension, in order; ties keep the lower index first
    /// (a stable sort of `(x, iota)` with a `TOTALORDER` comparator, then
    /// the first `k`).
    TopK {
        /// How many elements per row.
        k: i64,
        /// The largest (`true`) or the smallest.
        largest: bool,
    },

    // -- code outside the module, and tokens ---------------------------------
    /// Operands: any values: a call to code outside the module
    /// (`custom_call_target`); the result is the declared shape. Parsed,
    /// verified and printed; never evaluated.
    CustomCall(Box<CustomCall>),
    /// Operands: any number of tokens: a token that orders after all of
    /// them (a token carries no data).
    AfterAll,
    /// Operands: `[x, token]`: `x` unchanged, ordered after the token.
    AddDependency,
    /// Operands: `[x, random]`, a float array and unsigned integers of its
    /// width and dims: `x` converted to the result's (signed) integer type,
    /// rounding `|x|` up when `random` is below its fraction scaled to the
    /// random type's range, saturating at the type's bounds.
    StochasticConvert,
    /// No operands: the backend's `u64[2]` random state, then advanced by
    /// `delta`. Parsed and verified; never evaluated (the state is the
    /// runtime's, not the module's).
    RngGetAndUpdateState {
        /// How far the state advances.
        delta: i64,
    },
    /// Operands: `[lhs, rhs, group_sizes]`: a dot whose lhs ragged
    /// dimension is cut into consecutive groups of `group_sizes` elements
    /// (see [`RaggedDotMode`]).
    RaggedDot {
        /// The dot's dimension numbers with the ragged and group dimensions.
        dims: RaggedDotDimensionNumbers,
    },
}

impl OpKind {
    /// The op's row of the op table.
    pub fn opcode(&self) -> Opcode {
        match self {
            OpKind::Parameter { .. } => Opcode::Parameter,
            OpKind::Constant { .. } => Opcode::Constant,
            OpKind::Iota { .. } => Opcode::Iota,
            OpKind::Unary(op) => op.opcode(),
            OpKind::Binary { op, .. } => op.opcode(),
            OpKind::Convert => Opcode::Convert,
            OpKind::Select => Opcode::Select,
            OpKind::Clamp => Opcode::Clamp,
            OpKind::Broadcast { .. } => Opcode::Broadcast,
            OpKind::Reshape => Opcode::Reshape,
            OpKind::Transpose { .. } => Opcode::Transpose,
            OpKind::Slice { .. } => Opcode::Slice,
            OpKind::Concatenate { .. } => Opcode::Concatenate,
            OpKind::Reverse { .. } => Opcode::Reverse,
            OpKind::Pad { .. } => Opcode::Pad,
            OpKind::Reduce { .. } => Opcode::Reduce,
            OpKind::DotGeneral { .. } => Opcode::Dot,
            OpKind::Tuple => Opcode::Tuple,
            OpKind::GetTupleElement { .. } => Opcode::GetTupleElement,
            OpKind::While { .. } => Opcode::While,
            OpKind::Conditional { .. } => Opcode::Conditional,
            OpKind::OptimizationBarrier => Opcode::OptimizationBarrier,
            OpKind::Map { .. } => Opcode::Map,
            OpKind::Convolution { .. } => Opcode::Convolution,
            OpKind::ReduceWindow { .. } => Opcode::ReduceWindow,
            OpKind::SelectAndScatter { .. } => Opcode::SelectAndScatter,
            OpKind::Gather { .. } => Opcode::Gather,
            OpKind::Scatter { .. } => Opcode::Scatter,
            OpKind::DynamicSlice { .. } => Opcode::DynamicSlice,
            OpKind::DynamicUpdateSlice => Opcode::DynamicUpdateSlice,
            OpKind::Complex => Opcode::Complex,
            OpKind::Real => Opcode::Real,
            OpKind::Imag => Opcode::Imag,
            OpKind::Fft { .. } => Opcode::Fft,
            OpKind::Sort { .. } => Opcode::Sort,
            OpKind::TopK { .. } => Opcode::TopK,
            OpKind::BitcastConvert => Opcode::BitcastConvert,
            OpKind::Bitcast => Opcode::Bitcast,
            OpKind::ReducePrecision { .. } => Opcode::ReducePrecision,
            OpKind::Rng { .. } => Opcode::Rng,
            OpKind::RngBitGenerator { .. } => Opcode::RngBitGenerator,
            OpKind::Cholesky { .. } => Opcode::Cholesky,
            OpKind::TriangularSolve { .. } => Opcode::TriangularSolve,
            OpKind::BatchNormTraining { .. } => Opcode::BatchNormTraining,
            OpKind::BatchNormInference { .. } => Opcode::BatchNormInference,
            OpKind::BatchNormGrad { .. } => Opcode::BatchNormGrad,
            OpKind::CustomCall(_) => Opcode::CustomCall,
            OpKind::AfterAll => Opcode::AfterAll,
            OpKind::AddDependency => Opcode::AddDependency,
            OpKind::StochasticConvert => Opcode::StochasticConvert,
            OpKind::RngGetAndUpdateState { .. } => Opcode::RngGetAndUpdateState,
            OpKind::RaggedDot { .. } => Opcode::RaggedDot,
        }
    }

    /// The computations the op calls, in XLA's order (a `while`'s condition,
    /// then its body; a conditional's branches in order; `select` before
    /// `scatter`).
    ///
    /// ```
    /// use oxla_ir::{ComputationId, OpKind};
    /// let w = OpKind::While { condition: ComputationId(0), body: ComputationId(1) };
    /// assert_eq!(w.called_computations(), vec![ComputationId(0), ComputationId(1)]);
    /// let s = OpKind::Sort { dimension: 0, is_stable: true, to_apply: ComputationId(0) };
    /// assert_eq!(s.called_computations(), vec![ComputationId(0)]);
    /// assert!(OpKind::Tuple.called_computations().is_empty());
    /// ```
    pub fn called_computations(&self) -> Vec<ComputationId> {
        match self {
            OpKind::Reduce { to_apply, .. }
            | OpKind::Map { to_apply, .. }
            | OpKind::ReduceWindow { to_apply, .. }
            | OpKind::Scatter { to_apply, .. }
            | OpKind::Sort { to_apply, .. } => vec![*to_apply],
            OpKind::While { condition, body } => vec![*condition, *body],
            OpKind::Conditional { branches } => branches.clone(),
            OpKind::CustomCall(call) => call.called_computations.clone(),
            OpKind::SelectAndScatter {
                select, scatter, ..
            } => vec![*select, *scatter],
            OpKind::Parameter { .. }
            | OpKind::Constant { .. }
            | OpKind::Iota { .. }
            | OpKind::Unary(_)
            | OpKind::Binary { .. }
            | OpKind::Convert
            | OpKind::Select
            | OpKind::Clamp
            | OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::Tuple
            | OpKind::GetTupleElement { .. }
            | OpKind::OptimizationBarrier
            | OpKind::Convolution { .. }
            | OpKind::Gather { .. }
            | OpKind::DynamicSlice { .. }
            | OpKind::DynamicUpdateSlice
            | OpKind::Complex
            | OpKind::Real
            | OpKind::Imag
            | OpKind::Fft { .. }
            | OpKind::TopK { .. }
            | OpKind::BitcastConvert
            | OpKind::Bitcast
            | OpKind::ReducePrecision { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. } => vec![],
        }
    }

    /// The computations the op calls, to rewrite (when bodies are
    /// renumbered), in the order of [`OpKind::called_computations`].
    pub fn called_computations_mut(&mut self) -> Vec<&mut ComputationId> {
        match self {
            OpKind::Reduce { to_apply, .. }
            | OpKind::Map { to_apply, .. }
            | OpKind::ReduceWindow { to_apply, .. }
            | OpKind::Scatter { to_apply, .. }
            | OpKind::Sort { to_apply, .. } => vec![to_apply],
            OpKind::While { condition, body } => vec![condition, body],
            OpKind::Conditional { branches } => branches.iter_mut().collect(),
            OpKind::CustomCall(call) => call.called_computations.iter_mut().collect(),
            OpKind::SelectAndScatter {
                select, scatter, ..
            } => vec![select, scatter],
            OpKind::Parameter { .. }
            | OpKind::Constant { .. }
            | OpKind::Iota { .. }
            | OpKind::Unary(_)
            | OpKind::Binary { .. }
            | OpKind::Convert
            | OpKind::Select
            | OpKind::Clamp
            | OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::Tuple
            | OpKind::GetTupleElement { .. }
            | OpKind::OptimizationBarrier
            | OpKind::Convolution { .. }
            | OpKind::Gather { .. }
            | OpKind::DynamicSlice { .. }
            | OpKind::DynamicUpdateSlice
            | OpKind::Complex
            | OpKind::Real
            | OpKind::Imag
            | OpKind::Fft { .. }
            | OpKind::TopK { .. }
            | OpKind::BitcastConvert
            | OpKind::Bitcast
            | OpKind::ReducePrecision { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. } => vec![],
        }
    }

    /// The HLO opcode spelling.
    pub fn opcode_name(&self) -> &'static str {
        self.opcode().name()
    }
}

/// One instruction: a name, an op with its attributes, operands, and the
/// shape it produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Unique within the computation; printed as the HLO name.
    pub name: String,
    /// The op and its attributes.
    pub kind: OpKind,
    /// Operands, each an earlier instruction of the same body.
    pub operands: Vec<InstId>,
    /// The result shape.
    pub shape: Shape,
}

/// One computation body: the entry, or a called computation (a reducer).
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Its name, unique within the [`Computation`].
    pub name: String,
    /// Instructions in definition order.
    pub instructions: Vec<Instruction>,
    /// The instruction whose value the body returns.
    pub root: InstId,
}

impl Body {
    /// The instruction behind a handle.
    pub fn inst(&self, id: InstId) -> &Instruction {
        &self.instructions[id.index()]
    }

    /// The root instruction.
    pub fn root_inst(&self) -> &Instruction {
        self.inst(self.root)
    }

    /// The parameters, ordered by parameter number (as many as the highest
    /// number + 1 in a verified body).
    pub fn parameters(&self) -> Vec<InstId> {
        let mut params: Vec<(i64, InstId)> = self
            .instructions
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| {
                if let OpKind::Parameter { number } = inst.kind {
                    Some((number, InstId(i as u32)))
                } else {
                    None
                }
            })
            .collect();
        params.sort();
        params.into_iter().map(|(_, id)| id).collect()
    }

    /// The parameter shapes, in parameter order.
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.parameters()
            .into_iter()
            .map(|id| self.inst(id).shape.clone())
            .collect()
    }

    /// The result shape (the root's).
    pub fn result_shape(&self) -> &Shape {
        &self.root_inst().shape
    }

    /// Recognises a reducer that is one binary op of its two scalar
    /// parameters (`ROOT r = f32[] add(p0, p1)`), the form every backend
    /// has a fast path for. `None` for anything else, comparisons included.
    ///
    /// ```
    /// use oxla_ir::{BinaryOp, Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("max");
    /// let x = b.parameter(0, Shape::scalar(F32), "x")?;
    /// let y = b.parameter(1, Shape::scalar(F32), "y")?;
    /// let m = b.max(y, x, &[])?;
    /// let c = b.build(m)?;
    /// let r = c.entry().binary_reducer().unwrap();
    /// assert_eq!((r.op, r.swapped), (BinaryOp::Max, true));
    /// assert!(r.op.is_commutative_associative());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn binary_reducer(&self) -> Option<BinaryReducer> {
        self.binary_of_parameters().filter(|r| !r.op.is_compare())
    }

    /// `Some` if the body is one binary op (a comparison included) of its
    /// two scalar parameters, numbered 0 and 1 in either order: the shape
    /// of a `reduce`'s reducer, or of a `sort`'s or `select-and-scatter`'s
    /// comparator. Backends run such a body as the op itself.
    ///
    /// ```
    /// use oxla_ir::{BinaryOp, ComparisonDirection::Gt, ComparisonOrder::Natural};
    /// let c = oxla_ir::parser::parse_hlo_module(
    ///     "HloModule m\n\ngt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
    ///      ROOT c = pred[] compare(a, b), direction=GT\n}\n\nENTRY e {\n  \
    ///      x = f32[4] parameter(0)\n  ROOT s = f32[4] sort(x), dimensions={0}, to_apply=gt\n}\n",
    /// )?;
    /// let r = c.bodies()[0].binary_of_parameters().unwrap();
    /// assert_eq!((r.op, r.swapped), (BinaryOp::Compare(Gt, Natural), false));
    /// assert!(c.bodies()[0].binary_reducer().is_none()); // a comparison reduces nothing
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn binary_of_parameters(&self) -> Option<BinaryReducer> {
        let root = self.instructions.get(self.root.index())?;
        let OpKind::Binary {
            op,
            broadcast_dimensions,
        } = &root.kind
        else {
            return None;
        };
        if !broadcast_dimensions.is_empty() || !root.shape.is_scalar() {
            return None;
        }
        let parameter = |k: usize| -> Option<i64> {
            let inst = self.instructions.get(root.operands.get(k)?.index())?;
            let OpKind::Parameter { number } = inst.kind else {
                return None;
            };
            inst.shape.is_scalar().then_some(number)
        };
        let swapped = match (parameter(0)?, parameter(1)?) {
            (0, 1) => false,
            (1, 0) => true,
            _ => return None,
        };
        Some(BinaryReducer { op: *op, swapped })
    }
}

/// A reducer body that is one binary op of its two parameters (see
/// [`Body::binary_reducer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinaryReducer {
    /// The op (a comparison only from [`Body::binary_of_parameters`]).
    pub op: BinaryOp,
    /// `false` for `op(p0, p1)`, `true` for `op(p1, p0)`.
    pub swapped: bool,
}

/// A complete, verified program: the entry body and the bodies it calls.
///
/// Built by [`crate::Builder::build`] (or by a pass or the parser through
/// [`Computation::from_bodies`]); always verified on construction. Prints
/// as HLO text through [`Computation::to_hlo_text`] and `Display`.
///
/// ```
/// use oxla_ir::{Builder, ElementType, Shape};
/// let mut b = Builder::new("axpy");
/// let a = b.parameter(0, Shape::scalar(ElementType::F32), "a")?;
/// let x = b.parameter(1, Shape::new(ElementType::F32, &[4]), "x")?;
/// let ax = b.mul(a, x, &[])?;
/// let c = b.build(ax)?;
/// assert_eq!(c.name(), "axpy");
/// assert_eq!(c.parameter_shapes().len(), 2);
/// assert_eq!(c.result_shape().to_string(), "f32[4]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Computation {
    name: String,
    bodies: Vec<Body>,
}

impl Computation {
    /// Assembles a computation from bodies (the entry last) and verifies it.
    pub fn from_bodies(name: impl Into<String>, bodies: Vec<Body>) -> crate::Result<Computation> {
        let c = Computation::from_bodies_unverified(name, bodies);
        crate::verifier::verify(&c)?;
        Ok(c)
    }

    /// Assembles a computation without verifying it: for the verifier's own
    /// tests and for passes that verify later. Everything else must verify.
    pub fn from_bodies_unverified(name: impl Into<String>, bodies: Vec<Body>) -> Computation {
        Computation {
            name: name.into(),
            bodies,
        }
    }

    /// The module name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every body, the entry last.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// A body by id.
    pub fn body(&self, id: ComputationId) -> &Body {
        &self.bodies[id.index()]
    }

    /// The entry body.
    ///
    /// # Panics
    ///
    /// If there is none: only [`Computation::from_bodies_unverified`] can
    /// build such a computation, and every entry point that takes a
    /// computation from a caller (`verify`, `evaluate`, `compile`,
    /// `Builder::reduce`, the printer) refuses or prints it without calling
    /// this.
    pub fn entry(&self) -> &Body {
        self.bodies
            .last()
            .expect("a Computation always has an entry body")
    }

    /// The id of the entry body.
    pub fn entry_id(&self) -> ComputationId {
        ComputationId(self.bodies.len() as u32 - 1)
    }

    /// The entry's parameter shapes, in parameter order.
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.entry().parameter_shapes()
    }

    /// The entry's parameter names, in parameter order.
    pub fn parameter_names(&self) -> Vec<String> {
        let entry = self.entry();
        entry
            .parameters()
            .into_iter()
            .map(|id| entry.inst(id).name.clone())
            .collect()
    }

    /// The result shape.
    pub fn result_shape(&self) -> &Shape {
        self.entry().result_shape()
    }

    /// The program as HLO text (see [`crate::printer`]).
    pub fn to_hlo_text(&self) -> String {
        crate::printer::print_computation(self)
    }

    /// Refuses a computation whose values are not all known: one holding a
    /// constant whose values were elided when its text was printed (XLA
    /// prints large constants as `constant({...})`; see
    /// [`Literal::elided`]). Such a computation verifies, prints and can be
    /// checked, but running or converting it would read values that do not
    /// exist, so the backends (the interpreter, the JIT) call this before
    /// anything else. The error names the first such constant.
    ///
    /// ```
    /// let text = "HloModule m\n\nENTRY e {\n  ROOT c = f32[1000] constant({...})\n}\n";
    /// let comp = oxla_ir::parse_hlo_module(text)?;
    /// let err = comp.check_values_known().unwrap_err();
    /// assert!(err.to_string().contains("were elided"), "{err}");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn check_values_known(&self) -> crate::Result<()> {
        for body in &self.bodies {
            for inst in &body.instructions {
                if let OpKind::Constant { literal } = &inst.kind
                    && literal.is_elided()
                {
                    return Err(crate::Error::Evaluation {
                        instruction: inst.name.clone(),
                        message: format!(
                            "the values of this {} constant were elided (`{{...}}`) when the \
                             module was printed, so it cannot be run or converted (`oxla check` \
                             still verifies it); print the module with its constants in full \
                             (XLA: HloPrintOptions::print_large_constants)",
                            inst.shape
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Checks `args` against the entry's parameters: count, then each
    /// shape (element type and dims). Backends call this before running.
    pub fn check_arguments(&self, args: &[&Literal]) -> crate::Result<()> {
        let shapes = self.parameter_shapes();
        // Names are only needed for an error message.
        let names = || self.parameter_names();
        if args.len() != shapes.len() {
            let signature = names()
                .iter()
                .zip(&shapes)
                .map(|(n, s)| format!("{n}: {s}"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(crate::Error::ArgumentCount {
                computation: self.name.clone(),
                expected: shapes.len(),
                actual: args.len(),
                signature: format!("({signature})"),
            });
        }
        match args
            .iter()
            .zip(&shapes)
            .position(|(arg, shape)| arg.shape() != shape)
        {
            None => Ok(()),
            Some(i) => Err(crate::Error::ArgumentShape {
                computation: self.name.clone(),
                number: i,
                name: names()[i].clone(),
                expected: shapes[i].to_string(),
                actual: args[i].shape().to_string(),
            }),
        }
    }
}

impl fmt::Display for Computation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hlo_text())
    }
}
