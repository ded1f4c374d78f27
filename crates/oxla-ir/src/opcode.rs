//! The op table: one row per HLO opcode, the single source of what oxla
//! knows about each op apart from its attributes.
//!
//! Modelled on XLA's `HLO_OPCODE_LIST` (`xla/hlo/ir/hlo_opcode.h`): each row
//! gives the opcode's text spelling, its arity, its [`OpClass`], the element
//! types it accepts ([`TypeSet`]), its [`Cost`] for fusion, its [`OpFlags`]
//! and its StableHLO name. The [`op_table!`](crate::opcode) invocation below
//! generates from the rows:
//!
//! - [`UnaryOp`] and [`BinaryOp`], the elementwise ops that
//!   [`OpKind::Unary`](crate::OpKind::Unary) and
//!   [`OpKind::Binary`](crate::OpKind::Binary) carry;
//! - [`Opcode`], every opcode, with [`Opcode::ALL`], [`Opcode::from_name`],
//!   [`Opcode::arity`], [`Opcode::accepts`] and the rest of the row.
//!
//! Who reads the table: shape inference (its element-type gates), the parser
//! (opcode names), the printer, the random program generator (which ops take
//! which types), the JIT's fusion cost model, reducer recognition
//! ([`Body::binary_reducer`](crate::Body::binary_reducer)) and the StableHLO
//! exporter. Matches over [`UnaryOp`], [`BinaryOp`], [`Opcode`] and
//! [`OpKind`](crate::OpKind) in library code list every variant (no `_ =>`),
//! so a new row is a compile error everywhere a decision is needed: see
//! "Adding an op" in `docs/architecture.md`.
//!
//! ```
//! use oxla_ir::{BinaryOp, ElementType, OpClass, Opcode, UnaryOp};
//! let add = Opcode::from_name("add").unwrap();
//! assert_eq!(add, Opcode::Binary(BinaryOp::Add));
//! assert!(add.is_commutative_associative());
//! assert_eq!(Opcode::from_name("exponential").unwrap().class(), OpClass::Transcendental);
//! assert!(!UnaryOp::Exp.opcode().accepts(ElementType::S32));
//! assert_eq!(Opcode::from_name("compare").unwrap(), Opcode::Compare);
//! assert_eq!(Opcode::Compare.name(), "compare");
//! ```

use std::fmt;

use crate::{ComparisonDirection, ComparisonOrder, ElementType};

/// How many operands an op takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arity {
    /// Exactly this many.
    Fixed(usize),
    /// This many or more.
    AtLeast(usize),
}

impl Arity {
    /// `true` if `n` operands are allowed.
    pub fn allows(self, n: usize) -> bool {
        match self {
            Arity::Fixed(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Fixed(k) => write!(f, "{k}"),
            Arity::AtLeast(k) => write!(f, "at least {k}"),
        }
    }
}

/// What kind of work an op does; groups ops that backends treat alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// No operands: `parameter`, `constant`, `iota`.
    Leaf,
    /// Elementwise arithmetic, exact or correctly rounded (`add`, `sqrt`).
    Arithmetic,
    /// Elementwise, computed by polynomials or library calls (`exp`, `pow`).
    Transcendental,
    /// Elementwise rounding of floats to integral values (`floor`).
    Rounding,
    /// Elementwise logic on bits or `pred` (`and`, `not`).
    Bitwise,
    /// Elementwise shifts of integers.
    Shift,
    /// Elementwise comparison or test, giving `pred` (`compare`, `is-finite`).
    Comparison,
    /// Elementwise change of element type (`convert`).
    Conversion,
    /// Elementwise choice between operands (`select`, `clamp`).
    Selection,
    /// Moves or repeats elements without computing (`broadcast`, `slice`).
    IndexMap,
    /// Folds a computation over dimensions (`reduce`).
    Reduction,
    /// Contracts dimensions of two operands (`dot`).
    Contraction,
    /// Builds or takes apart tuples.
    Tuple,
    /// Runs called computations as control flow (`while`, `conditional`),
    /// per element (`map`), or fences optimizations (`opt-barrier`).
    Control,
    /// Transforms whole dimensions at once (`fft`).
    Transform,
    /// Reorders elements by comparing them (`sort`, `topk`).
    Sorting,
    /// Draws random numbers (`rng`) or random bits (`rng-bit-generator`).
    Random,
    /// Factorises matrices or solves with them (`cholesky`,
    /// `triangular-solve`), batched over leading dimensions.
    LinearAlgebra,
    /// Batch normalisation (`batch-norm-*`): evaluated by expanding it into
    /// primitives, as XLA does.
    Normalization,
    /// Calls code outside the module (`custom-call`): nothing to run.
    External,
    /// Orders side effects with tokens (`after-all`, `add-dependency`);
    /// a token carries no data.
    Token,
}

impl OpClass {
    /// The element type of an elementwise op of this class whose (first)
    /// operand is `operand`: `pred` for comparisons and tests (`compare`,
    /// `is-finite`), else the operand's own type.
    ///
    /// ```
    /// use oxla_ir::{ElementType, UnaryOp};
    /// assert_eq!(UnaryOp::IsFinite.class().result_type(ElementType::F32), ElementType::Pred);
    /// assert_eq!(UnaryOp::Exp.class().result_type(ElementType::F32), ElementType::F32);
    /// ```
    pub fn result_type(self, operand: ElementType) -> ElementType {
        if self == OpClass::Comparison {
            ElementType::Pred
        } else {
            operand
        }
    }

    /// `true` for the classes whose ops compute each output element from
    /// the operand elements at the same index (after broadcasting).
    pub fn is_elementwise(self) -> bool {
        match self {
            OpClass::Arithmetic
            | OpClass::Transcendental
            | OpClass::Rounding
            | OpClass::Bitwise
            | OpClass::Shift
            | OpClass::Comparison
            | OpClass::Conversion
            | OpClass::Selection => true,
            OpClass::Leaf
            | OpClass::IndexMap
            | OpClass::Reduction
            | OpClass::Contraction
            | OpClass::Tuple
            | OpClass::Control
            | OpClass::Transform
            | OpClass::Sorting
            | OpClass::Random
            | OpClass::LinearAlgebra
            | OpClass::Normalization
            | OpClass::External
            | OpClass::Token => false,
        }
    }
}

/// A set of element types an op accepts (on its gated operand).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeSet {
    /// Every array element type, `pred` and complex included.
    Any,
    /// Every array element type but the complex ones (what has an order).
    Real,
    /// Integers and real floats: every array type but `pred` and complex.
    Arithmetic,
    /// Integers, real floats and complex: every array type but `pred`.
    Numeric,
    /// Real floating-point types (`f4e2m1fn` to `f64`).
    Float,
    /// Real floating-point and complex types.
    FloatOrComplex,
    /// Signed and unsigned integers.
    Integer,
    /// `pred` and the integers: what bitwise logic takes.
    IntegerOrPred,
}

impl TypeSet {
    /// `true` if `ty` is in the set (never for `Tuple`).
    pub fn contains(self, ty: ElementType) -> bool {
        if ty.is_tuple() {
            return false;
        }
        match self {
            TypeSet::Any => true,
            TypeSet::Real => !ty.is_complex(),
            TypeSet::Arithmetic => ty.is_arithmetic(),
            TypeSet::Numeric => ty.is_arithmetic() || ty.is_complex(),
            TypeSet::Float => ty.is_float(),
            TypeSet::FloatOrComplex => ty.is_float() || ty.is_complex(),
            TypeSet::Integer => ty.is_integer(),
            TypeSet::IntegerOrPred => ty.is_integer() || ty.is_pred(),
        }
    }

    /// Every set, for tests.
    pub const ALL: [TypeSet; 8] = [
        TypeSet::Any,
        TypeSet::Real,
        TypeSet::Arithmetic,
        TypeSet::Numeric,
        TypeSet::Float,
        TypeSet::FloatOrComplex,
        TypeSet::Integer,
        TypeSet::IntegerOrPred,
    ];

    /// The set in words, for "Expected element type ... to be `<this>`".
    pub fn describe(self) -> &'static str {
        match self {
            TypeSet::Any => "an array element type",
            TypeSet::Real => "a non-complex element type",
            TypeSet::Arithmetic => "an integer or real floating-point type",
            TypeSet::Numeric => "an integer, floating-point or complex type",
            TypeSet::Float => "a real floating-point type (f32, f64, bf16, f16, ...)",
            TypeSet::FloatOrComplex => "a floating-point or complex type",
            TypeSet::Integer => "an integer type",
            TypeSet::IntegerOrPred => "pred or an integer type",
        }
    }
}

/// What an op costs when a backend fuses it into the loop that reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cost {
    /// A few instructions per element (index maps, most arithmetic).
    Cheap,
    /// An integer or float division.
    Division,
    /// A polynomial or library call per element.
    Transcendental,
    /// Not fusible into a consumer's loop: the op gets its own kernel and
    /// buffer (`reduce`, `dot`), or is a leaf that lives in memory.
    Materialised,
}

impl Cost {
    /// The weight the JIT's fusion model gives one element of this op where
    /// a consumer's loop computes or reads it. A [`Cost::Materialised`] op
    /// is never recomputed: its consumers read it from memory, weight 1.
    pub const fn weight(self) -> u64 {
        match self {
            Cost::Cheap | Cost::Materialised => 1,
            Cost::Division => 3,
            Cost::Transcendental => 10,
        }
    }
}

/// Properties of an op, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OpFlags(u8);

impl OpFlags {
    /// No flag.
    pub const NONE: OpFlags = OpFlags(0);
    /// `f(a, b) = f(b, a)` and `f(f(a, b), c) = f(a, f(b, c))` (exactly for
    /// integers; up to rounding for float `add`/`multiply`): a reducer made
    /// of this op may be evaluated in any order and split across threads.
    pub const COMMUTATIVE_ASSOCIATIVE: OpFlags = OpFlags(1);

    /// Both sets of flags.
    pub const fn union(self, other: OpFlags) -> OpFlags {
        OpFlags(self.0 | other.0)
    }

    /// `true` if every flag of `other` is set.
    pub const fn contains(self, other: OpFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// One row of the op table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpInfo {
    /// The HLO text spelling (`add`, `get-tuple-element`).
    pub name: &'static str,
    /// How many operands the op takes.
    pub arity: Arity,
    /// What kind of work it does.
    pub class: OpClass,
    /// The element types its gated operand may have (the operand of a
    /// unary op, the left operand of a binary op, the result of `iota`).
    pub types: TypeSet,
    /// What fusing it costs.
    pub cost: Cost,
    /// Algebraic properties.
    pub flags: OpFlags,
    /// The StableHLO (or CHLO) op name, `None` where StableHLO has none.
    pub stablehlo: Option<&'static str>,
}

macro_rules! op_table {
    (
        unary {
            $( $(#[$um:meta])* $u:ident => $utext:literal, $uclass:ident, $utypes:ident, $ucost:ident,
               $ush:literal $(, $uflag:ident)*; )*
        }
        binary {
            $( $(#[$bm:meta])* $b:ident => $btext:literal, $bclass:ident, $btypes:ident, $bcost:ident,
               $bsh:literal $(, $bflag:ident)*; )*
        }
        other {
            $( $(#[$om:meta])* $o:ident => $otext:literal, $oarity:expr, $oclass:ident, $otypes:ident,
               $ocost:ident, $osh:expr $(, $oflag:ident)*; )*
        }
    ) => {
        /// Elementwise ops of one operand (the unary rows of the op table).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum UnaryOp {
            $( $(#[$um])* $u, )*
        }

        impl UnaryOp {
            /// Every unary op, in table order.
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$u),*];

            /// The op's row of the op table.
            pub fn info(self) -> &'static OpInfo {
                match self {
                    $( UnaryOp::$u => {
                        const INFO: OpInfo = OpInfo {
                            name: $utext,
                            arity: Arity::Fixed(1),
                            class: OpClass::$uclass,
                            types: TypeSet::$utypes,
                            cost: Cost::$ucost,
                            flags: OpFlags::NONE $(.union(OpFlags::$uflag))*,
                            stablehlo: Some($ush),
                        };
                        &INFO
                    } )*
                }
            }
        }

        /// Elementwise ops of two operands (the binary rows of the op table,
        /// plus `compare` with its direction); every one takes
        /// `broadcast_dimensions`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum BinaryOp {
            $( $(#[$bm])* $b, )*
            /// A comparison in a direction and an order (XLA's `type=`:
            /// [`ComparisonOrder::Total`] is `TOTALORDER`, floats only); the
            /// result element type is `pred`. Its row is [`Opcode::Compare`].
            Compare(ComparisonDirection, ComparisonOrder),
        }

        impl BinaryOp {
            /// Every binary op, one comparison per direction and order
            /// included.
            pub const ALL: &'static [BinaryOp] = &[
                $(BinaryOp::$b,)*
                BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural),
                BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Natural),
                BinaryOp::Compare(ComparisonDirection::Lt, ComparisonOrder::Natural),
                BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Natural),
                BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Natural),
                BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural),
                BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Total),
                BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Total),
                BinaryOp::Compare(ComparisonDirection::Lt, ComparisonOrder::Total),
                BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Total),
                BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Total),
                BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Total),
            ];

            /// The op's row of the op table ([`Opcode::Compare`]'s for every
            /// comparison).
            pub fn info(self) -> &'static OpInfo {
                match self {
                    $( BinaryOp::$b => {
                        const INFO: OpInfo = OpInfo {
                            name: $btext,
                            arity: Arity::Fixed(2),
                            class: OpClass::$bclass,
                            types: TypeSet::$btypes,
                            cost: Cost::$bcost,
                            flags: OpFlags::NONE $(.union(OpFlags::$bflag))*,
                            stablehlo: Some($bsh),
                        };
                        &INFO
                    } )*
                    BinaryOp::Compare(..) => Opcode::Compare.info(),
                }
            }
        }

        /// Every HLO opcode oxla has. The elementwise ones carry their
        /// [`UnaryOp`] or [`BinaryOp`]; a comparison is [`Opcode::Compare`]
        /// whatever its direction (an attribute), so [`Opcode::Binary`]
        /// never holds [`BinaryOp::Compare`] when built by this module.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Opcode {
            /// A unary elementwise op.
            Unary(UnaryOp),
            /// A binary elementwise op other than `compare`.
            Binary(BinaryOp),
            $( $(#[$om])* $o, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[
                $(Opcode::Unary(UnaryOp::$u),)*
                $(Opcode::Binary(BinaryOp::$b),)*
                $(Opcode::$o,)*
            ];

            /// The opcode's row of the op table.
            pub fn info(self) -> &'static OpInfo {
                match self {
                    Opcode::Unary(op) => op.info(),
                    Opcode::Binary(op) => op.info(),
                    $( Opcode::$o => {
                        const INFO: OpInfo = OpInfo {
                            name: $otext,
                            arity: $oarity,
                            class: OpClass::$oclass,
                            types: TypeSet::$otypes,
                            cost: Cost::$ocost,
                            flags: OpFlags::NONE $(.union(OpFlags::$oflag))*,
                            stablehlo: $osh,
                        };
                        &INFO
                    } )*
                }
            }
        }
    };
}

op_table! {
    unary {
        /// `-x`; wraps for integers.
        Neg => "negate", Arithmetic, Numeric, Cheap, "stablehlo.negate";
        /// `|x|`; wraps for the most negative integer.
        Abs => "abs", Arithmetic, Numeric, Cheap, "stablehlo.abs";
        /// -1, 0 or 1 (and -0, +0, NaN for floats).
        Sign => "sign", Arithmetic, Numeric, Cheap, "stablehlo.sign";
        /// `e^x`.
        Exp => "exponential", Transcendental, FloatOrComplex, Transcendental, "stablehlo.exponential";
        /// `e^x - 1`.
        Expm1 => "exponential-minus-one", Transcendental, FloatOrComplex, Transcendental,
            "stablehlo.exponential_minus_one";
        /// Natural logarithm.
        Log => "log", Transcendental, FloatOrComplex, Transcendental, "stablehlo.log";
        /// `ln(1 + x)`.
        Log1p => "log-plus-one", Transcendental, FloatOrComplex, Transcendental, "stablehlo.log_plus_one";
        /// Square root (correctly rounded).
        Sqrt => "sqrt", Arithmetic, FloatOrComplex, Cheap, "stablehlo.sqrt";
        /// `1 / sqrt(x)`.
        Rsqrt => "rsqrt", Arithmetic, FloatOrComplex, Cheap, "stablehlo.rsqrt";
        /// Hyperbolic tangent.
        Tanh => "tanh", Transcendental, FloatOrComplex, Transcendental, "stablehlo.tanh";
        /// `1 / (1 + e^-x)`.
        Logistic => "logistic", Transcendental, FloatOrComplex, Transcendental, "stablehlo.logistic";
        /// Sine.
        Sin => "sine", Transcendental, FloatOrComplex, Transcendental, "stablehlo.sine";
        /// Cosine.
        Cos => "cosine", Transcendental, FloatOrComplex, Transcendental, "stablehlo.cosine";
        /// Round toward -inf.
        Floor => "floor", Rounding, Float, Cheap, "stablehlo.floor";
        /// Round toward +inf.
        Ceil => "ceil", Rounding, Float, Cheap, "stablehlo.ceil";
        /// Round to nearest, ties to even.
        RoundNearestEven => "round-nearest-even", Rounding, Float, Cheap,
            "stablehlo.round_nearest_even";
        /// Logical not for `pred`, bitwise not for integers.
        Not => "not", Bitwise, IntegerOrPred, Cheap, "stablehlo.not";
        /// Neither infinite nor NaN; result `pred`.
        IsFinite => "is-finite", Comparison, Float, Cheap, "stablehlo.is_finite";
        // -- bit ops, more float functions (the misc family) ----------------
        /// The number of set bits, at the element's own width.
        PopCnt => "popcnt", Bitwise, Integer, Cheap, "stablehlo.popcnt";
        /// The number of leading zero bits, at the element's own width
        /// (`clz(0)` is the width).
        Clz => "count-leading-zeros", Bitwise, Integer, Cheap, "stablehlo.count_leading_zeros";
        /// The error function.
        Erf => "erf", Transcendental, Float, Transcendental, "chlo.erf";
        /// The real cube root (`cbrt(-8) = -2`).
        Cbrt => "cbrt", Transcendental, Float, Transcendental, "stablehlo.cbrt";
        /// Tangent.
        Tan => "tan", Transcendental, FloatOrComplex, Transcendental, "stablehlo.tan";
        /// Round to nearest, ties away from zero.
        RoundNearestAfz => "round-nearest-afz", Rounding, Float, Cheap,
            "stablehlo.round_nearest_afz";
    }
    binary {
        /// `+`, wrapping for integers; `or` for `pred`.
        Add => "add", Arithmetic, Any, Cheap, "stablehlo.add", COMMUTATIVE_ASSOCIATIVE;
        /// `-`, wrapping for integers.
        Sub => "subtract", Arithmetic, Numeric, Cheap, "stablehlo.subtract";
        /// `*`, wrapping for integers; `and` for `pred`.
        Mul => "multiply", Arithmetic, Any, Cheap, "stablehlo.multiply", COMMUTATIVE_ASSOCIATIVE;
        /// `/`: integer division truncates; x/0 = -1 (all ones), MIN/-1 = MIN.
        Div => "divide", Arithmetic, Numeric, Division, "stablehlo.divide";
        /// Remainder with the dividend's sign; x%0 = x, MIN%-1 = 0.
        Rem => "remainder", Arithmetic, Arithmetic, Division, "stablehlo.remainder";
        /// Maximum (NaN if either float operand is NaN).
        Max => "maximum", Arithmetic, Real, Cheap, "stablehlo.maximum", COMMUTATIVE_ASSOCIATIVE;
        /// Minimum (NaN if either float operand is NaN).
        Min => "minimum", Arithmetic, Real, Cheap, "stablehlo.minimum", COMMUTATIVE_ASSOCIATIVE;
        /// `x^y`.
        Pow => "power", Transcendental, Numeric, Transcendental, "stablehlo.power";
        /// `atan2(y, x)` for floats.
        Atan2 => "atan2", Transcendental, Float, Transcendental, "stablehlo.atan2";
        /// Logical/bitwise and.
        And => "and", Bitwise, IntegerOrPred, Cheap, "stablehlo.and", COMMUTATIVE_ASSOCIATIVE;
        /// Logical/bitwise or.
        Or => "or", Bitwise, IntegerOrPred, Cheap, "stablehlo.or", COMMUTATIVE_ASSOCIATIVE;
        /// Logical/bitwise xor.
        Xor => "xor", Bitwise, IntegerOrPred, Cheap, "stablehlo.xor", COMMUTATIVE_ASSOCIATIVE;
        /// `<<`; shifts of the bit width or more give 0.
        ShiftLeft => "shift-left", Shift, Integer, Cheap, "stablehlo.shift_left";
        /// `>>` keeping the sign; shifts past the width give 0 or -1.
        ShiftRightArithmetic => "shift-right-arithmetic", Shift, Integer, Cheap,
            "stablehlo.shift_right_arithmetic";
        /// `>>` filling with zeros; shifts of the width or more give 0.
        ShiftRightLogical => "shift-right-logical", Shift, Integer, Cheap,
            "stablehlo.shift_right_logical";
    }
    other {
        /// An argument of the computation (or of a called body).
        Parameter => "parameter", Arity::Fixed(0), Leaf, Any, Materialised, None;
        /// A literal value.
        Constant => "constant", Arity::Fixed(0), Leaf, Any, Materialised,
            Some("stablehlo.constant");
        /// Counts along one dimension.
        Iota => "iota", Arity::Fixed(0), Leaf, Arithmetic, Cheap, Some("stablehlo.iota");
        /// A comparison (its direction is an attribute); gives `pred`.
        Compare => "compare", Arity::Fixed(2), Comparison, Any, Cheap,
            Some("stablehlo.compare");
        /// Change of element type.
        Convert => "convert", Arity::Fixed(1), Conversion, Any, Cheap,
            Some("stablehlo.convert");
        /// `pred ? on_true : on_false`, elementwise.
        Select => "select", Arity::Fixed(3), Selection, Any, Cheap, Some("stablehlo.select");
        /// `min(max(x, lo), hi)`, elementwise.
        Clamp => "clamp", Arity::Fixed(3), Selection, Real, Cheap, Some("stablehlo.clamp");
        /// Replicates an operand into a larger shape (BroadcastInDim).
        Broadcast => "broadcast", Arity::Fixed(1), IndexMap, Any, Cheap,
            Some("stablehlo.broadcast_in_dim");
        /// Row-major reinterpretation to other dims.
        Reshape => "reshape", Arity::Fixed(1), IndexMap, Any, Cheap, Some("stablehlo.reshape");
        /// Permutes dimensions.
        Transpose => "transpose", Arity::Fixed(1), IndexMap, Any, Cheap,
            Some("stablehlo.transpose");
        /// A strided window of an operand.
        Slice => "slice", Arity::Fixed(1), IndexMap, Any, Cheap, Some("stablehlo.slice");
        /// Joins operands along one dimension.
        Concatenate => "concatenate", Arity::AtLeast(1), IndexMap, Any, Cheap,
            Some("stablehlo.concatenate");
        /// Reverses dimensions.
        Reverse => "reverse", Arity::Fixed(1), IndexMap, Any, Cheap, Some("stablehlo.reverse");
        /// Edge and interior padding.
        Pad => "pad", Arity::Fixed(2), IndexMap, Any, Cheap, Some("stablehlo.pad");
        /// Folds a reducer computation over dimensions: N inputs, then N
        /// init values (N >= 1).
        Reduce => "reduce", Arity::AtLeast(2), Reduction, Any, Materialised,
            Some("stablehlo.reduce");
        /// General matrix product with batch and contracting dimensions.
        Dot => "dot", Arity::Fixed(2), Contraction, Any, Materialised,
            Some("stablehlo.dot_general");
        /// Groups values into a tuple.
        Tuple => "tuple", Arity::AtLeast(0), Tuple, Any, Cheap, Some("stablehlo.tuple");
        // -- tuples and control flow (the ctrl family) --
        /// One element of a tuple.
        GetTupleElement => "get-tuple-element", Arity::Fixed(1), Tuple, Any, Cheap,
            Some("stablehlo.get_tuple_element");
        /// A loop: a body computation applied while a condition computation
        /// holds.
        While => "while", Arity::Fixed(1), Control, Any, Materialised, Some("stablehlo.while");
        /// Runs one of several branch computations, chosen by a `pred` or an
        /// `s32` index.
        Conditional => "conditional", Arity::AtLeast(2), Control, Any, Materialised,
            Some("stablehlo.case");
        /// The identity, as a fence that optimizations do not cross.
        OptimizationBarrier => "opt-barrier", Arity::Fixed(1), Control, Any, Materialised,
            Some("stablehlo.optimization_barrier");
        /// Applies a scalar computation to the elements of arrays.
        Map => "map", Arity::AtLeast(1), Control, Any, Materialised, Some("stablehlo.map");
        // -- the windows family --
        /// Cross-correlation of a kernel over an input's spatial dimensions
        /// (for `pred`: the `or` of `and`s, as XLA computes it).
        Convolution => "convolution", Arity::Fixed(2), Contraction, Any, Materialised,
            Some("stablehlo.convolution");
        /// Folds a reducer computation over each window of its inputs.
        ReduceWindow => "reduce-window", Arity::AtLeast(2), Reduction, Any, Materialised,
            Some("stablehlo.reduce_window");
        /// Scatters source values onto the elements their windows select.
        SelectAndScatter => "select-and-scatter", Arity::Fixed(3), Reduction, Any, Materialised,
            Some("stablehlo.select_and_scatter");
        // -- indexing ---------------------------------------------------------
        /// Slices of an operand at starts read from an index array (clamped).
        Gather => "gather", Arity::Fixed(2), IndexMap, Any, Cheap, Some("stablehlo.gather");
        /// Combines update windows into inputs at starts read from an index
        /// array (out-of-bounds windows are skipped).
        Scatter => "scatter", Arity::AtLeast(3), Reduction, Any, Materialised,
            Some("stablehlo.scatter");
        /// A slice at starts given as operands (clamped).
        DynamicSlice => "dynamic-slice", Arity::AtLeast(1), IndexMap, Any, Cheap,
            Some("stablehlo.dynamic_slice");
        /// Writes an update into an operand at starts given as operands (clamped).
        DynamicUpdateSlice => "dynamic-update-slice", Arity::AtLeast(2), IndexMap, Any,
            Materialised, Some("stablehlo.dynamic_update_slice");
        // -- complex numbers ----------------------------------------------------
        /// `re + i·im` from two real arrays (`f32` → `c64`, `f64` → `c128`).
        Complex => "complex", Arity::Fixed(2), Conversion, Float, Cheap, Some("stablehlo.complex");
        /// The real part of a complex array (a real array is its own).
        Real => "real", Arity::Fixed(1), Conversion, FloatOrComplex, Cheap, Some("stablehlo.real");
        /// The imaginary part of a complex array (zero for a real array).
        Imag => "imag", Arity::Fixed(1), Conversion, FloatOrComplex, Cheap, Some("stablehlo.imag");
        /// A discrete Fourier transform over the 1 to 3 trailing dimensions.
        Fft => "fft", Arity::Fixed(1), Transform, FloatOrComplex, Materialised,
            Some("stablehlo.fft");
        // -- sort and top-k (the sort family) --
        /// Sorts one or more arrays of the same dims together along one
        /// dimension, ordered by a comparator computation.
        Sort => "sort", Arity::AtLeast(1), Sorting, Any, Materialised, Some("stablehlo.sort");
        /// The `k` largest (or smallest) elements along the last dimension,
        /// with their indices.
        TopK => "topk", Arity::Fixed(1), Sorting, Any, Materialised, Some("chlo.top_k");
        // -- bitcasts, reduce-precision, rng, linear algebra, batch norm ----
        // (the misc family)
        /// Reinterprets the bits of each element as another type; a width
        /// change adds or removes a minor dimension.
        BitcastConvert => "bitcast-convert", Arity::Fixed(1), Conversion, Any, Cheap,
            Some("stablehlo.bitcast_convert");
        /// Reinterprets a buffer as another shape: a reshape under the
        /// default layouts, which are the only ones oxla accepts.
        Bitcast => "bitcast", Arity::Fixed(1), IndexMap, Any, Cheap, None;
        /// Rounds floats to a narrower exponent and mantissa.
        ReducePrecision => "reduce-precision", Arity::Fixed(1), Rounding, Float, Cheap,
            Some("stablehlo.reduce_precision");
        /// Random numbers of a distribution between two scalars.
        Rng => "rng", Arity::Fixed(2), Random, Any, Materialised, Some("stablehlo.rng");
        /// Random bits from a counter-based generator state.
        RngBitGenerator => "rng-bit-generator", Arity::Fixed(1), Random, Integer, Materialised,
            Some("stablehlo.rng_bit_generator");
        /// The Cholesky factor of symmetric positive definite matrices.
        Cholesky => "cholesky", Arity::Fixed(1), LinearAlgebra, Float, Materialised,
            Some("stablehlo.cholesky");
        /// Solves triangular systems of equations.
        TriangularSolve => "triangular-solve", Arity::Fixed(2), LinearAlgebra, Float,
            Materialised, Some("stablehlo.triangular_solve");
        /// Normalises with the batch's mean and variance; gives them too.
        BatchNormTraining => "batch-norm-training", Arity::Fixed(3), Normalization, Float,
            Materialised, Some("stablehlo.batch_norm_training");
        /// Normalises with a given mean and variance.
        BatchNormInference => "batch-norm-inference", Arity::Fixed(5), Normalization, Float,
            Materialised, Some("stablehlo.batch_norm_inference");
        /// The gradients of batch normalisation.
        BatchNormGrad => "batch-norm-grad", Arity::Fixed(5), Normalization, Float,
            Materialised, Some("stablehlo.batch_norm_grad");
        // -- code outside the module, and tokens --
        /// A call to code outside the module: parsed and verified, never run.
        CustomCall => "custom-call", Arity::AtLeast(0), External, Any, Materialised,
            Some("stablehlo.custom_call");
        /// A token ordered after its operand tokens.
        AfterAll => "after-all", Arity::AtLeast(0), Token, Any, Cheap,
            Some("stablehlo.after_all");
        /// Its first operand, ordered after a token.
        AddDependency => "add-dependency", Arity::Fixed(2), Token, Any, Cheap, None;
        // -- stochastic rounding and the rng state --
        /// Converts floats to integers, rounding up when a random operand
        /// is below the fraction (XLA's stochastic rounding).
        StochasticConvert => "stochastic-convert", Arity::Fixed(2), Conversion, Float, Cheap, None;
        /// The backend's random state, advanced by `delta`: `u64[2]`.
        RngGetAndUpdateState => "rng-get-and-update-state", Arity::Fixed(0), Random, Any,
            Materialised, None;
        // -- ragged dot --
        /// A dot whose lhs has one dimension cut into groups by a third
        /// operand, `group_sizes` (mixture-of-experts layers).
        RaggedDot => "ragged-dot", Arity::Fixed(3), Contraction, Any, Materialised,
            Some("chlo.ragged_dot");
    }
}

/// The transcendental unary ops (class [`OpClass::Transcendental`]) as a
/// pattern, for matches that must stay exhaustive. Transitional: the JIT's
/// emitters still match on it; a test checks it against the table.
///
/// ```
/// use oxla_ir::{UnaryOp, transcendental_unary_ops};
/// let costly = |op: UnaryOp| matches!(op, transcendental_unary_ops!());
/// assert!(costly(UnaryOp::Sin) && !costly(UnaryOp::Sqrt));
/// ```
#[macro_export]
macro_rules! transcendental_unary_ops {
    () => {
        $crate::UnaryOp::Exp
            | $crate::UnaryOp::Expm1
            | $crate::UnaryOp::Log
            | $crate::UnaryOp::Log1p
            | $crate::UnaryOp::Tanh
            | $crate::UnaryOp::Logistic
            | $crate::UnaryOp::Sin
            | $crate::UnaryOp::Cos
            | $crate::UnaryOp::Erf
            | $crate::UnaryOp::Cbrt
            | $crate::UnaryOp::Tan
    };
}

impl UnaryOp {
    /// The HLO text spelling.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Parses the HLO text spelling.
    pub fn from_name(s: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.iter().copied().find(|op| op.name() == s)
    }

    /// The op's [`Opcode`].
    pub fn opcode(self) -> Opcode {
        Opcode::Unary(self)
    }

    /// What kind of work the op does.
    pub fn class(self) -> OpClass {
        self.info().class
    }

    /// `true` if the op accepts operands of element type `ty`.
    pub fn accepts(self, ty: ElementType) -> bool {
        self.info().types.contains(ty)
    }
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl BinaryOp {
    /// The HLO opcode spelling (`compare` for every comparison).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Parses an HLO opcode spelling other than `compare` (whose direction
    /// is an attribute).
    pub fn from_name(s: &str) -> Option<BinaryOp> {
        BinaryOp::ALL
            .iter()
            .copied()
            .find(|op| !op.is_compare() && op.name() == s)
    }

    /// The op's [`Opcode`] ([`Opcode::Compare`] for every comparison).
    pub fn opcode(self) -> Opcode {
        match self {
            BinaryOp::Compare(..) => Opcode::Compare,
            op => Opcode::Binary(op),
        }
    }

    /// `true` for comparisons.
    pub fn is_compare(self) -> bool {
        matches!(self, BinaryOp::Compare(..))
    }

    /// What kind of work the op does.
    pub fn class(self) -> OpClass {
        self.info().class
    }

    /// `true` if the op accepts (left) operands of element type `ty`: its
    /// row's types, narrowed to floats for a `TOTALORDER` comparison.
    ///
    /// ```
    /// use oxla_ir::{BinaryOp, ComparisonDirection::Lt, ComparisonOrder::Total, ElementType};
    /// assert!(BinaryOp::Compare(Lt, Total).accepts(ElementType::F64));
    /// assert!(!BinaryOp::Compare(Lt, Total).accepts(ElementType::S32));
    /// ```
    pub fn accepts(self, ty: ElementType) -> bool {
        // TOTALORDER is defined on floats only; the table's row is `compare`'s.
        let total = matches!(self, BinaryOp::Compare(_, ComparisonOrder::Total));
        self.info().types.contains(ty) && (!total || ty.is_float())
    }

    /// `true` for `add`, `multiply`, `maximum`, `minimum`, `and`, `or` and
    /// `xor`: a reducer made of one of them may fold in any order.
    pub fn is_commutative_associative(self) -> bool {
        self.info().flags.contains(OpFlags::COMMUTATIVE_ASSOCIATIVE)
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Opcode {
    /// The HLO text spelling.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Parses an HLO opcode spelling (`compare` gives [`Opcode::Compare`]).
    pub fn from_name(s: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| op.name() == s)
    }

    /// How many operands the op takes.
    pub fn arity(self) -> Arity {
        self.info().arity
    }

    /// What kind of work the op does.
    pub fn class(self) -> OpClass {
        self.info().class
    }

    /// `true` if the op accepts element type `ty` on its gated operand (see
    /// [`OpInfo::types`]).
    pub fn accepts(self, ty: ElementType) -> bool {
        self.info().types.contains(ty)
    }

    /// The element types the op accepts.
    pub fn types(self) -> TypeSet {
        self.info().types
    }

    /// What fusing the op costs.
    pub fn cost(self) -> Cost {
        self.info().cost
    }

    /// See [`OpFlags::COMMUTATIVE_ASSOCIATIVE`].
    pub fn is_commutative_associative(self) -> bool {
        self.info().flags.contains(OpFlags::COMMUTATIVE_ASSOCIATIVE)
    }

    /// The StableHLO (or CHLO) op name, `None` where StableHLO has none
    /// (`parameter`).
    pub fn stablehlo_name(self) -> Option<&'static str> {
        self.info().stablehlo
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Opcodes of XLA's single-device HLO that oxla does not have (yet): the
/// parser calls them unsupported rather than unknown. (`call`, `copy` and
/// `fusion` are read by the parser, which inlines or drops them.)
pub(crate) const XLA_ONLY_OPCODES: &[&str] = &[
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "call",
    "cosh",
    "dynamic-reshape",
    "mulhi",
    "scaled-dot",
    "scan",
    "shuffle",
    "sinh",
];

/// Opcodes of XLA's HLO that are out of oxla's scope, a single-device
/// engine for static shapes, with the reason: collectives and device ids
/// (several devices), host transfers and tokens, asynchronous pairs, and
/// dynamic shapes. The parser refuses them saying so. XLA's async sugar
/// (`add-start`, `custom-call-done`, ...) is refused with them.
pub(crate) const OUT_OF_SCOPE_OPCODES: &[(&str, &str)] = &[
    ("all-gather", "a multi-device collective"),
    ("all-gather-done", "a multi-device collective"),
    ("all-gather-start", "a multi-device collective"),
    ("all-reduce", "a multi-device collective"),
    ("all-reduce-done", "a multi-device collective"),
    ("all-reduce-start", "a multi-device collective"),
    ("all-to-all", "a multi-device collective"),
    ("async-done", "an asynchronous op"),
    ("async-start", "an asynchronous op"),
    ("async-update", "an asynchronous op"),
    ("collective-broadcast", "a multi-device collective"),
    ("collective-permute", "a multi-device collective"),
    ("collective-permute-done", "a multi-device collective"),
    ("collective-permute-start", "a multi-device collective"),
    ("collective-reduce", "a multi-device collective"),
    ("copy-done", "an asynchronous op"),
    ("copy-start", "an asynchronous op"),
    ("domain", "a sharding domain (multi-device)"),
    ("get-dimension-size", "a dynamic-shape op"),
    ("infeed", "a host transfer"),
    ("outfeed", "a host transfer"),
    ("partition-id", "a multi-device op (the partition id)"),
    ("ragged-all-to-all", "a multi-device collective"),
    ("recv", "a host or cross-device transfer"),
    ("recv-done", "a host or cross-device transfer"),
    ("reduce-scatter", "a multi-device collective"),
    ("replica-id", "a multi-device op (the replica id)"),
    ("send", "a host or cross-device transfer"),
    ("send-done", "a host or cross-device transfer"),
    ("set-dimension-size", "a dynamic-shape op"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut seen = HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op.name()), "{} appears twice", op.name());
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
        for &op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
            assert!(Opcode::ALL.contains(&op.opcode()));
        }
        for &op in BinaryOp::ALL {
            assert!(Opcode::ALL.contains(&op.opcode()));
        }
        assert_eq!(Opcode::from_name("no-such-op"), None);
        for name in XLA_ONLY_OPCODES {
            assert_eq!(Opcode::from_name(name), None, "{name} is in the table");
        }
        for (name, _) in OUT_OF_SCOPE_OPCODES {
            assert_eq!(Opcode::from_name(name), None, "{name} is in the table");
            assert!(!XLA_ONLY_OPCODES.contains(name), "{name} is listed twice");
        }
        assert!(
            !Opcode::ALL
                .iter()
                .any(|op| matches!(op, Opcode::Binary(BinaryOp::Compare(..))))
        );
    }

    #[test]
    fn elementwise_rows_agree_with_their_arity() {
        for &op in UnaryOp::ALL {
            assert_eq!(op.info().arity, Arity::Fixed(1));
            assert!(op.class().is_elementwise(), "{op}");
        }
        for &op in BinaryOp::ALL {
            assert_eq!(op.info().arity, Arity::Fixed(2));
            assert!(op.class().is_elementwise(), "{op}");
        }
    }

    #[test]
    fn type_sets_never_contain_tuple() {
        for set in TypeSet::ALL {
            assert!(!set.contains(ElementType::Tuple));
        }
        assert!(TypeSet::Any.contains(ElementType::Pred));
        assert!(!TypeSet::Arithmetic.contains(ElementType::Pred));
        assert!(TypeSet::IntegerOrPred.contains(ElementType::U8));
        assert!(!TypeSet::Integer.contains(ElementType::F32));
        assert!(TypeSet::Float.contains(ElementType::Bf16));
        assert!(!TypeSet::Float.contains(ElementType::C64));
        assert!(TypeSet::FloatOrComplex.contains(ElementType::C128));
        assert!(!TypeSet::Real.contains(ElementType::C64));
        assert!(TypeSet::Integer.contains(ElementType::S4));
    }

    #[test]
    fn the_transcendental_pattern_agrees_with_the_table() {
        for &op in UnaryOp::ALL {
            assert_eq!(
                matches!(op, crate::transcendental_unary_ops!()),
                op.class() == OpClass::Transcendental,
                "{op}"
            );
        }
    }

    #[test]
    fn commutative_associative_ops() {
        let ops: Vec<&str> = BinaryOp::ALL
            .iter()
            .filter(|op| op.is_commutative_associative())
            .map(|op| op.name())
            .collect();
        assert_eq!(
            ops,
            ["add", "multiply", "maximum", "minimum", "and", "or", "xor"]
        );
    }
}
