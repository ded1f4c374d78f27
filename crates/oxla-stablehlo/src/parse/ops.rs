//! The op table: every op name the reader knows, how its pretty form is
//! written ([`Syntax`]) and how it becomes IR ([`Lower`]).
//!
//! Adding an op is local: a row in [`OPS`] (and, when its pretty form is
//! new, a [`Syntax`] variant in [`super::pretty`]) plus its lowering
//! function below. Ops the IR does not have yet are rows with
//! [`Lower::NotYet`]: they are refused at their name, in either form, with
//! the reason; an op missing from the table is an unknown op.

use oxla_ir::ir::{DotDimensionNumbers, InstId, OpKind, PadDim};
use oxla_ir::{
    BinaryOp, ComparisonDirection, ComparisonOrder, ComparisonType, ElementType, Int1, Int2, Int4,
    Literal, NativeType, Result, Shape, SubByteInt, Uint1, Uint2, Uint4, UnaryOp,
};

use super::lower::OpCx;
use super::misc;
use super::syntax::{Attr, NamedAttr};

// The op families, one file each, as in the IR.
mod chlo_math;
mod ctrl;
mod external;
mod indexing;
mod ragged_dot;
mod windows;

use chlo_math::{
    chlo_acos, chlo_acosh, chlo_asin, chlo_asinh, chlo_atan, chlo_atanh, chlo_broadcast_complex,
    chlo_conj, chlo_cosh, chlo_digamma, chlo_erf_inv, chlo_erfc, chlo_lgamma, chlo_next_after,
    chlo_sinh, complex, fft, imag, real,
};
use ctrl::{case, get_tuple_element, if_op, map, optimization_barrier, packed, while_loop};
use indexing::{dynamic_slice, dynamic_update_slice, gather, scatter};
use windows::{convolution, reduce_window, select_and_scatter};

/// A lowering function: the op's instructions, returning its results.
pub(super) type LowerFn = fn(&mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>>;

/// How an op becomes IR.
#[derive(Clone, Copy)]
pub(super) enum Lower {
    /// One elementwise unary instruction.
    Unary(UnaryOp),
    /// One elementwise binary instruction on operands of the same shape.
    Binary(BinaryOp),
    /// A CHLO broadcasting binary op: one binary instruction with XLA's
    /// implicit broadcasting (`broadcast_dimensions`, or NumPy's trailing
    /// alignment when absent).
    ChloBinary(BinaryOp),
    /// Its own function.
    Op(LowerFn),
    /// Ends a block (`func.return`, `stablehlo.return`).
    Terminator,
    /// An op oxla's IR does not have yet, and why it cannot be built from
    /// the ops it has.
    NotYet(&'static str),
}

/// How an op's pretty form is written.
#[derive(Clone, Copy, Debug)]
pub(super) enum Syntax {
    /// `%a, %b attr-dict : type` or `: (types) -> type`.
    SameType,
    /// `%a attr-dict : (types) -> types`.
    Functional,
    /// `GT, %a, %b, FLOAT attr-dict : (types) -> type`.
    Compare,
    /// `%p, %t, %f attr-dict : pred_type, type` or a function type.
    Select,
    /// `attr-dict dense<...> : type`.
    Constant,
    /// `dim = 0 attr-dict : type`.
    Iota,
    /// `%x, keyword = [..] attr-dict : (type) -> type`, the list stored as
    /// `attr`.
    ListAttr(&'static str, &'static str),
    /// `%x, keyword = [..] attr-dict : type`.
    ListAttrSameType(&'static str, &'static str),
    /// `%x [0:2, 1:4:2] attr-dict : (type) -> type`.
    Slice,
    /// `%a, %b, dim = 0 attr-dict : (types) -> type`.
    Concatenate,
    /// `%x, %v, low = [..], high = [..], interior = [..] attr-dict : ...`.
    Pad,
    /// `(%x init: %c) applies stablehlo.add across dimensions = [1] : ...`,
    /// or with a `reducer(...) { ... }` region.
    Reduce,
    /// `%a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
    /// precision = [...] : (types) -> type`.
    DotGeneral,
    /// `%a, %b, precision = [...] : (types) -> type`.
    Dot,
    /// `%a, %b attr-dict : tuple<...>`.
    Tuple,
    /// `%a, %b attr-dict : types`, or nothing.
    Return,
    /// `"name" %a, %b attr-dict : (types) -> types`.
    Composite,
    /// `attr-dict %a, %b : types`.
    OptimizationBarrier,
    /// `@callee(%a, %b) attr-dict : (types) -> types`.
    Call,
    /// CHLO's `%a, %b attr-dict : (types) -> type` and `%x : type -> type`.
    ChloTyped,
    /// `%t[1] attr-dict : (tuple<...>) -> type`.
    GetTupleElement,
    /// `(%iterArg = %x, ...) : types attributes {...} cond { ... } do { ... }`.
    While,
    /// `(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window =
    /// {stride = [..], pad = [[..]], ...} attr-dict : (types) -> type`.
    Convolution,
    /// `%x, %i, %j, sizes = [..] attr-dict : (types) -> type`.
    DynamicSlice,
    /// `chlo.top_k(%x, k = 3) attr-dict : type -> (type, type)`.
    TopK,
    // -- the misc family --------------------------------------------------
    /// `%a, %b, keyword = WORD attr-dict : type` (`same_type`) or `: (types)
    /// -> types`, the word stored as `attr`; `optional` when the
    /// `, keyword = WORD` may be left out.
    KeywordAfterOperands {
        keyword: &'static str,
        attr: &'static str,
        optional: bool,
        same_type: bool,
    },
    /// `%x, format = e5m10 attr-dict : type`.
    ReducePrecision,
    // -- end of the misc family ---------------------------------------------
    // -- complex numbers and fft --------------------------------------------
    /// `%re, %im attr-dict : complex_type` (the parts' type is the
    /// complex type's part) or `: (types) -> type`.
    ComplexParts,
    /// `%x, type = FFT, length = [4] attr-dict : (type) -> type`.
    Fft,
    /// `%a, %b attr-dict : types`: tokens in, one token out (one type
    /// for every operand, or one per operand; a lone type when none).
    AfterAll,
    /// No pretty form: the generic form only.
    GenericOnly,
}

/// One row of the table.
pub(super) struct OpDef {
    pub(super) name: &'static str,
    pub(super) syntax: Syntax,
    pub(super) lower: Lower,
}

const fn row(name: &'static str, syntax: Syntax, lower: Lower) -> OpDef {
    OpDef {
        name,
        syntax,
        lower,
    }
}

const fn not_yet(name: &'static str, why: &'static str) -> OpDef {
    row(name, Syntax::GenericOnly, Lower::NotYet(why))
}

const NO_OP: &str = "oxla's IR has no such op yet";

use Lower::{Binary, ChloBinary, Op, Terminator, Unary};
use Syntax::*;

/// Every op the reader knows.
pub(super) static OPS: &[OpDef] = &[
    // -- StableHLO: elementwise ------------------------------------------------
    row("stablehlo.abs", SameType, Unary(UnaryOp::Abs)),
    row("stablehlo.ceil", SameType, Unary(UnaryOp::Ceil)),
    row("stablehlo.cosine", SameType, Unary(UnaryOp::Cos)),
    row("stablehlo.exponential", SameType, Unary(UnaryOp::Exp)),
    row(
        "stablehlo.exponential_minus_one",
        SameType,
        Unary(UnaryOp::Expm1),
    ),
    row("stablehlo.floor", SameType, Unary(UnaryOp::Floor)),
    row("stablehlo.is_finite", SameType, Unary(UnaryOp::IsFinite)),
    row("stablehlo.log", SameType, Unary(UnaryOp::Log)),
    row("stablehlo.log_plus_one", SameType, Unary(UnaryOp::Log1p)),
    row("stablehlo.logistic", SameType, Unary(UnaryOp::Logistic)),
    row("stablehlo.negate", SameType, Unary(UnaryOp::Neg)),
    row("stablehlo.not", SameType, Unary(UnaryOp::Not)),
    row(
        "stablehlo.round_nearest_even",
        SameType,
        Unary(UnaryOp::RoundNearestEven),
    ),
    row("stablehlo.rsqrt", SameType, Unary(UnaryOp::Rsqrt)),
    row("stablehlo.sign", SameType, Unary(UnaryOp::Sign)),
    row("stablehlo.sine", SameType, Unary(UnaryOp::Sin)),
    row("stablehlo.sqrt", SameType, Unary(UnaryOp::Sqrt)),
    row("stablehlo.tanh", SameType, Unary(UnaryOp::Tanh)),
    row("stablehlo.convert", SameType, Op(convert)),
    row("stablehlo.add", SameType, Binary(BinaryOp::Add)),
    row("stablehlo.subtract", SameType, Binary(BinaryOp::Sub)),
    row("stablehlo.multiply", SameType, Binary(BinaryOp::Mul)),
    row("stablehlo.divide", SameType, Binary(BinaryOp::Div)),
    row("stablehlo.remainder", SameType, Binary(BinaryOp::Rem)),
    row("stablehlo.maximum", SameType, Binary(BinaryOp::Max)),
    row("stablehlo.minimum", SameType, Binary(BinaryOp::Min)),
    row("stablehlo.power", SameType, Binary(BinaryOp::Pow)),
    row("stablehlo.atan2", SameType, Binary(BinaryOp::Atan2)),
    row("stablehlo.and", SameType, Binary(BinaryOp::And)),
    row("stablehlo.or", SameType, Binary(BinaryOp::Or)),
    row("stablehlo.xor", SameType, Binary(BinaryOp::Xor)),
    row(
        "stablehlo.shift_left",
        SameType,
        Binary(BinaryOp::ShiftLeft),
    ),
    row(
        "stablehlo.shift_right_arithmetic",
        SameType,
        Binary(BinaryOp::ShiftRightArithmetic),
    ),
    row(
        "stablehlo.shift_right_logical",
        SameType,
        Binary(BinaryOp::ShiftRightLogical),
    ),
    row("stablehlo.compare", Compare, Op(compare)),
    row("stablehlo.select", Select, Op(select)),
    row("stablehlo.clamp", SameType, Op(clamp)),
    // -- StableHLO: data movement and the rest ----------------------------------
    row("stablehlo.constant", Constant, Op(constant)),
    row("stablehlo.iota", Iota, Op(iota)),
    row(
        "stablehlo.broadcast_in_dim",
        ListAttr("dims", "broadcast_dimensions"),
        Op(broadcast_in_dim),
    ),
    row(
        "stablehlo.broadcast",
        ListAttr("sizes", "broadcast_sizes"),
        Op(broadcast),
    ),
    row("stablehlo.reshape", Functional, Op(reshape)),
    row(
        "stablehlo.transpose",
        ListAttr("dims", "permutation"),
        Op(transpose),
    ),
    row("stablehlo.slice", Slice, Op(slice)),
    row("stablehlo.concatenate", Concatenate, Op(concatenate)),
    row(
        "stablehlo.reverse",
        ListAttrSameType("dims", "dimensions"),
        Op(reverse),
    ),
    row("stablehlo.pad", Pad, Op(pad)),
    row("stablehlo.reduce", Reduce, Op(reduce)),
    row("stablehlo.dot_general", DotGeneral, Op(dot_general)),
    row("stablehlo.dot", Dot, Op(dot)),
    row("stablehlo.tuple", Tuple, Op(tuple)),
    row("stablehlo.composite", Composite, Op(composite)),
    row(
        "stablehlo.optimization_barrier",
        OptimizationBarrier,
        Op(optimization_barrier),
    ),
    row(
        "stablehlo.get_tuple_element",
        GetTupleElement,
        Op(get_tuple_element),
    ),
    row("stablehlo.while", While, Op(while_loop)),
    row("stablehlo.if", GenericOnly, Op(if_op)),
    row("stablehlo.case", GenericOnly, Op(case)),
    row("stablehlo.map", GenericOnly, Op(map)),
    row("stablehlo.convolution", Convolution, Op(convolution)),
    row("stablehlo.reduce_window", GenericOnly, Op(reduce_window)),
    row(
        "stablehlo.select_and_scatter",
        GenericOnly,
        Op(select_and_scatter),
    ),
    row("stablehlo.gather", GenericOnly, Op(gather)),
    row("stablehlo.scatter", GenericOnly, Op(scatter)),
    row("stablehlo.dynamic_slice", DynamicSlice, Op(dynamic_slice)),
    row(
        "stablehlo.dynamic_update_slice",
        Functional,
        Op(dynamic_update_slice),
    ),
    row("stablehlo.return", Return, Terminator),
    // -- sort and top-k (the sort family) -----------------------------------
    row("stablehlo.sort", GenericOnly, Op(sort)),
    row("chlo.top_k", TopK, Op(chlo_top_k)),
    row(
        "chlo.ragged_dot",
        GenericOnly,
        Op(ragged_dot::chlo_ragged_dot),
    ),
    // -- func ------------------------------------------------------------------
    row("func.call", Call, Op(call)),
    row("func.return", Return, Terminator),
    // -- CHLO ------------------------------------------------------------------
    row("chlo.broadcast_add", ChloTyped, ChloBinary(BinaryOp::Add)),
    row(
        "chlo.broadcast_subtract",
        ChloTyped,
        ChloBinary(BinaryOp::Sub),
    ),
    row(
        "chlo.broadcast_multiply",
        ChloTyped,
        ChloBinary(BinaryOp::Mul),
    ),
    row(
        "chlo.broadcast_divide",
        ChloTyped,
        ChloBinary(BinaryOp::Div),
    ),
    row(
        "chlo.broadcast_remainder",
        ChloTyped,
        ChloBinary(BinaryOp::Rem),
    ),
    row(
        "chlo.broadcast_maximum",
        ChloTyped,
        ChloBinary(BinaryOp::Max),
    ),
    row(
        "chlo.broadcast_minimum",
        ChloTyped,
        ChloBinary(BinaryOp::Min),
    ),
    row("chlo.broadcast_power", ChloTyped, ChloBinary(BinaryOp::Pow)),
    row(
        "chlo.broadcast_atan2",
        ChloTyped,
        ChloBinary(BinaryOp::Atan2),
    ),
    row("chlo.broadcast_and", ChloTyped, ChloBinary(BinaryOp::And)),
    row("chlo.broadcast_or", ChloTyped, ChloBinary(BinaryOp::Or)),
    row("chlo.broadcast_xor", ChloTyped, ChloBinary(BinaryOp::Xor)),
    row(
        "chlo.broadcast_shift_left",
        ChloTyped,
        ChloBinary(BinaryOp::ShiftLeft),
    ),
    row(
        "chlo.broadcast_shift_right_arithmetic",
        ChloTyped,
        ChloBinary(BinaryOp::ShiftRightArithmetic),
    ),
    row(
        "chlo.broadcast_shift_right_logical",
        ChloTyped,
        ChloBinary(BinaryOp::ShiftRightLogical),
    ),
    row("chlo.broadcast_compare", ChloTyped, Op(chlo_compare)),
    row("chlo.broadcast_select", ChloTyped, Op(chlo_select)),
    row("chlo.constant", Constant, Op(constant)),
    row("chlo.constant_like", GenericOnly, Op(chlo_constant_like)),
    row("chlo.is_inf", ChloTyped, Op(chlo_is_inf)),
    row("chlo.is_pos_inf", ChloTyped, Op(chlo_is_pos_inf)),
    row("chlo.is_neg_inf", ChloTyped, Op(chlo_is_neg_inf)),
    row("chlo.square", ChloTyped, Op(chlo_square)),
    // -- complex numbers and fft (`ops/chlo_math.rs`) -------------------------
    row("stablehlo.complex", ComplexParts, Op(complex)),
    row("stablehlo.real", SameType, Op(real)),
    row("stablehlo.imag", SameType, Op(imag)),
    row("stablehlo.fft", Fft, Op(fft)),
    // -- CHLO math, expanded as XLA expands it (`ops/chlo_math.rs`) -----------
    row("chlo.erfc", ChloTyped, Op(chlo_erfc)),
    row("chlo.erf_inv", ChloTyped, Op(chlo_erf_inv)),
    row("chlo.acos", ChloTyped, Op(chlo_acos)),
    row("chlo.acosh", ChloTyped, Op(chlo_acosh)),
    row("chlo.asin", ChloTyped, Op(chlo_asin)),
    row("chlo.asinh", ChloTyped, Op(chlo_asinh)),
    row("chlo.atan", ChloTyped, Op(chlo_atan)),
    row("chlo.atanh", ChloTyped, Op(chlo_atanh)),
    row("chlo.cosh", ChloTyped, Op(chlo_cosh)),
    row("chlo.sinh", ChloTyped, Op(chlo_sinh)),
    row("chlo.lgamma", ChloTyped, Op(chlo_lgamma)),
    row("chlo.digamma", ChloTyped, Op(chlo_digamma)),
    row("chlo.next_after", ChloTyped, Op(chlo_next_after)),
    row("chlo.conj", ChloTyped, Op(chlo_conj)),
    row(
        "chlo.broadcast_complex",
        ChloTyped,
        Op(chlo_broadcast_complex),
    ),
    // -- the misc family (`misc.rs`) --------------------------------------------
    row("stablehlo.popcnt", SameType, Unary(UnaryOp::PopCnt)),
    row(
        "stablehlo.count_leading_zeros",
        SameType,
        Unary(UnaryOp::Clz),
    ),
    row("stablehlo.cbrt", SameType, Unary(UnaryOp::Cbrt)),
    row("stablehlo.tan", SameType, Unary(UnaryOp::Tan)),
    row(
        "stablehlo.round_nearest_afz",
        SameType,
        Unary(UnaryOp::RoundNearestAfz),
    ),
    row("chlo.erf", ChloTyped, Unary(UnaryOp::Erf)),
    row("chlo.tan", ChloTyped, Unary(UnaryOp::Tan)),
    row(
        "stablehlo.bitcast_convert",
        Functional,
        Op(misc::bitcast_convert),
    ),
    row(
        "stablehlo.reduce_precision",
        ReducePrecision,
        Op(misc::reduce_precision),
    ),
    row(
        "stablehlo.rng",
        KeywordAfterOperands {
            keyword: "distribution",
            attr: "rng_distribution",
            optional: false,
            same_type: false,
        },
        Op(misc::rng),
    ),
    row(
        "stablehlo.rng_bit_generator",
        KeywordAfterOperands {
            keyword: "algorithm",
            attr: "rng_algorithm",
            optional: false,
            same_type: false,
        },
        Op(misc::rng_bit_generator),
    ),
    row(
        "stablehlo.cholesky",
        KeywordAfterOperands {
            keyword: "lower",
            attr: "lower",
            optional: true,
            same_type: true,
        },
        Op(misc::cholesky),
    ),
    row(
        "stablehlo.triangular_solve",
        GenericOnly,
        Op(misc::triangular_solve),
    ),
    row(
        "stablehlo.batch_norm_training",
        GenericOnly,
        Op(misc::batch_norm_training),
    ),
    row(
        "stablehlo.batch_norm_inference",
        GenericOnly,
        Op(misc::batch_norm_inference),
    ),
    row(
        "stablehlo.batch_norm_grad",
        GenericOnly,
        Op(misc::batch_norm_grad),
    ),
    // -- not in the IR yet -----------------------------------------------------
    not_yet("chlo.polygamma", NO_OP),
    not_yet("chlo.zeta", NO_OP),
    not_yet("chlo.bessel_i1e", NO_OP),
    not_yet("chlo.broadcast_next_after", NO_OP),
    not_yet("chlo.broadcast_polygamma", NO_OP),
    not_yet("chlo.broadcast_zeta", NO_OP),
    not_yet("chlo.scan", NO_OP),
    not_yet("chlo.mulhi", NO_OP),
    not_yet("chlo._asin_acos_kernel", NO_OP),
    row("stablehlo.custom_call", Call, Op(external::custom_call)),
    not_yet("stablehlo.einsum", NO_OP),
    not_yet("stablehlo.unary_einsum", NO_OP),
    not_yet("stablehlo.torch_index_select", NO_OP),
    not_yet("stablehlo.uniform_quantize", "oxla has no quantized types"),
    not_yet(
        "stablehlo.uniform_dequantize",
        "oxla has no quantized types",
    ),
    row("stablehlo.after_all", AfterAll, Op(external::after_all)),
    // The older spelling of an `after_all` of nothing.
    row("stablehlo.create_token", AfterAll, Op(external::after_all)),
    not_yet(
        "stablehlo.infeed",
        "oxla has no infeed (data from the host while the module runs)",
    ),
    not_yet(
        "stablehlo.outfeed",
        "oxla has no outfeed (data to the host while the module runs)",
    ),
    not_yet(
        "stablehlo.send",
        "send and recv are multi-device ops, out of scope for oxla",
    ),
    not_yet(
        "stablehlo.recv",
        "send and recv are multi-device ops, out of scope for oxla",
    ),
    not_yet(
        "stablehlo.all_gather",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.all_reduce",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.all_to_all",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.reduce_scatter",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.collective_permute",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.collective_broadcast",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.cross-replica-sum",
        "oxla runs on one device (no collectives)",
    ),
    not_yet(
        "stablehlo.replica_id",
        "oxla runs on one device (no replicas)",
    ),
    not_yet(
        "stablehlo.partition_id",
        "oxla runs on one device (no partitions)",
    ),
    not_yet("stablehlo.async_start", NO_OP),
    not_yet("stablehlo.async_done", NO_OP),
    not_yet("stablehlo.get_dimension_size", "oxla needs static shapes"),
    not_yet("stablehlo.set_dimension_size", "oxla needs static shapes"),
    not_yet(
        "stablehlo.dynamic_broadcast_in_dim",
        "oxla needs static shapes",
    ),
    not_yet("stablehlo.dynamic_conv", "oxla needs static shapes"),
    not_yet("stablehlo.dynamic_gather", "oxla needs static shapes"),
    not_yet("stablehlo.dynamic_iota", "oxla needs static shapes"),
    not_yet("stablehlo.dynamic_pad", "oxla needs static shapes"),
    not_yet("stablehlo.dynamic_reshape", "oxla needs static shapes"),
    not_yet("stablehlo.real_dynamic_slice", "oxla needs static shapes"),
];

/// The table row for an op name.
pub(super) fn lookup(name: &str) -> Option<&'static OpDef> {
    OPS.iter().find(|d| d.name == name)
}

// ---------------------------------------------------------------------------
// Elementwise
// ---------------------------------------------------------------------------

/// `result_accuracy` on a transcendental op: honoured when it asks for the
/// default accuracy (what oxla gives), refused otherwise.
fn result_accuracy(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<()> {
    let Some(a) = cx.attr("result_accuracy") else {
        return Ok(());
    };
    let params = cx.params(a)?;
    let mode = params
        .iter()
        .find(|p| p.key == "mode")
        .map(|p| cx.word_of(&p.value));
    if mode.as_deref() == Some("DEFAULT") {
        return Ok(());
    }
    Err(cx.err(
        a.pos,
        format!(
            "result_accuracy with mode {} is not supported; oxla computes to its own stated ulp bounds (mode DEFAULT)",
            mode.unwrap_or_else(|| "(none)".into())
        ),
        "result_accuracy mode DEFAULT, or no result_accuracy",
    ))
}

pub(super) fn unary(cx: &mut OpCx<'_, '_, '_, '_>, op: UnaryOp) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    result_accuracy(cx)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Unary(op), cx.operands.clone(), &r)?])
}

/// StableHLO's elementwise ops take operands of one shape: no implicit
/// broadcasting (that is `stablehlo.broadcast_in_dim`'s job).
fn same_dims(cx: &OpCx<'_, '_, '_, '_>) -> Result<()> {
    let shapes: Vec<Shape> = cx.operands.iter().map(|&o| cx.shape(o)).collect();
    if let Some(s) = shapes.iter().find(|s| s.dims() != shapes[0].dims()) {
        return Err(cx.err(
            cx.op.pos,
            format!(
                "operands {} and {s} must have the same dims; StableHLO does not broadcast implicitly (use stablehlo.broadcast_in_dim, or chlo.broadcast_{})",
                shapes[0],
                cx.op.name.trim_start_matches("stablehlo.")
            ),
            "operands of one shape",
        ));
    }
    Ok(())
}

pub(super) fn binary(cx: &mut OpCx<'_, '_, '_, '_>, op: BinaryOp) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    same_dims(cx)?;
    let r = cx.results[0].clone();
    let kind = OpKind::Binary {
        op,
        broadcast_dimensions: Vec::new(),
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}

fn convert(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Convert, cx.operands.clone(), &r)?])
}

/// The direction and order of a comparison: its `compare_type` checked
/// against the operands' element type as XLA's verifier checks it (the
/// element type's default, or `TOTALORDER` for floats; `NOTYPE` is the
/// default).
fn comparison(
    cx: &mut OpCx<'_, '_, '_, '_>,
    et: ElementType,
) -> Result<(ComparisonDirection, ComparisonOrder)> {
    let Some((dir, dpos)) = cx.word("comparison_direction") else {
        return Err(cx.err(
            cx.op.pos,
            "the comparison direction is missing",
            "EQ, NE, LT, LE, GT or GE",
        ));
    };
    let direction = ComparisonDirection::from_name(&dir).ok_or_else(|| {
        cx.err(
            dpos,
            format!("unknown comparison direction `{dir}`"),
            "EQ, NE, LT, LE, GT or GE",
        )
    })?;
    let Some((ty, tpos)) = cx.word("compare_type").filter(|(t, _)| t != "NOTYPE") else {
        return Ok((direction, ComparisonOrder::Natural));
    };
    let default = ComparisonType::default_for(et);
    let order = ComparisonType::from_name(&ty)
        .and_then(|t| ComparisonOrder::from_type(t, et))
        .ok_or_else(|| {
            cx.err(
                tpos,
                format!("compare type {ty} does not fit operands of element type {et}"),
                if et.is_float() {
                    format!("compare type {default} or TOTALORDER")
                } else {
                    format!("compare type {default}")
                },
            )
        })?;
    Ok((direction, order))
}

fn compare(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    same_dims(cx)?;
    let et = cx.shape(cx.operands[0]).element_type();
    let (dir, order) = comparison(cx, et)?;
    let r = cx.results[0].clone();
    let kind = OpKind::Binary {
        op: BinaryOp::Compare(dir, order),
        broadcast_dimensions: Vec::new(),
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}

fn select(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Select, cx.operands.clone(), &r)?])
}

fn clamp(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Clamp, cx.operands.clone(), &r)?])
}

// ---------------------------------------------------------------------------
// Constants and data movement
// ---------------------------------------------------------------------------

fn constant(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(0, 1)?;
    let value = cx.required("value", "value = dense<...> : tensor<...>")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.dense_constant(value, &r)?])
}

fn iota(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(0, 1)?;
    let dimension = cx.int("iota_dimension", "dim = 0")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Iota { dimension }, Vec::new(), &r)?])
}

fn broadcast_in_dim(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let dimensions = cx.ints("broadcast_dimensions", "dims = [0, 1]")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::Broadcast { dimensions },
        cx.operands.clone(),
        &r,
    )?])
}

/// `stablehlo.broadcast`: `sizes` become new leading dimensions.
fn broadcast(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let sizes = cx.ints("broadcast_sizes", "sizes = [2, 3]")?;
    let rank = cx.shape(cx.operands[0]).rank() as i64;
    let n = sizes.len() as i64;
    let dimensions = (n..n + rank).collect();
    let r = cx.results[0].clone();
    let id = cx.push(OpKind::Broadcast { dimensions }, cx.operands.clone(), &r)?;
    let expected: Vec<i64> = sizes
        .iter()
        .copied()
        .chain(cx.shape(cx.operands[0]).dims().iter().copied())
        .collect();
    if r.dims() != expected.as_slice() {
        return Err(cx.err(
            cx.op.pos,
            format!(
                "sizes {sizes:?} on {} give dims {expected:?}, not the result's {r}",
                cx.shape(cx.operands[0])
            ),
            "a result of dims sizes ++ operand dims",
        ));
    }
    Ok(vec![id])
}

fn reshape(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Reshape, cx.operands.clone(), &r)?])
}

fn transpose(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let permutation = cx.ints("permutation", "dims = [1, 0]")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::Transpose { permutation },
        cx.operands.clone(),
        &r,
    )?])
}

fn slice(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let starts = cx.ints("start_indices", "[0:2, 1:3]")?;
    let limits = cx.ints("limit_indices", "[0:2, 1:3]")?;
    let strides = cx.ints("strides", "[0:2:1, 1:3:1]")?;
    let r = cx.results[0].clone();
    let kind = OpKind::Slice {
        starts,
        limits,
        strides,
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &r)?])
}

fn concatenate(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    if cx.operands.is_empty() {
        return Err(cx.err(cx.op.pos, "takes at least one operand", "operands to join"));
    }
    cx.arity(cx.operands.len(), 1)?;
    let dimension = cx.int("dimension", "dim = 0")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::Concatenate { dimension },
        cx.operands.clone(),
        &r,
    )?])
}

fn reverse(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let dimensions = cx.ints("dimensions", "dims = [0]")?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::Reverse { dimensions },
        cx.operands.clone(),
        &r,
    )?])
}

fn pad(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let lo = cx.ints("edge_padding_low", "low = [0, 1]")?;
    let hi = cx.ints("edge_padding_high", "high = [0, 1]")?;
    let interior = cx.ints("interior_padding", "interior = [0, 0]")?;
    if lo.len() != hi.len() || lo.len() != interior.len() {
        return Err(cx.err(
            cx.op.pos,
            format!(
                "low, high and interior have {}, {} and {} entries",
                lo.len(),
                hi.len(),
                interior.len()
            ),
            "one entry per dimension in each",
        ));
    }
    let config = lo
        .iter()
        .zip(&hi)
        .zip(&interior)
        .map(|((&lo, &hi), &interior)| PadDim { lo, hi, interior })
        .collect();
    let r = cx.results[0].clone();
    Ok(vec![cx.push(
        OpKind::Pad { config },
        cx.operands.clone(),
        &r,
    )?])
}

/// `stablehlo.reduce`: `n` inputs and `n` init values, `n` results (a
/// variadic reduce, such as argmax, is one IR reduce of a tuple).
fn reduce(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let total = cx.operands.len();
    if total == 0 || !total.is_multiple_of(2) {
        return Err(cx.err(
            cx.op.pos,
            format!("has {total} operand(s), not inputs and as many init values"),
            "inputs, then one init value per input",
        ));
    }
    let n = total / 2;
    cx.arity(total, n)?;
    let dimensions = cx.ints("dimensions", "across dimensions = [1]")?;
    if cx.region_count() != 1 {
        return Err(cx.err(
            cx.op.pos,
            format!("has {} regions, not one reducer", cx.region_count()),
            "one reducer region",
        ));
    }
    let to_apply = cx.region_body(0, "reducer")?;
    let shape = packed(&cx.results);
    let kind = OpKind::Reduce {
        dimensions,
        to_apply,
    };
    let r = cx.push(kind, cx.operands.clone(), &shape)?;
    cx.unpack(r, n)
}

/// `precision_config`: every precision is honoured, since oxla computes
/// dots at the operands' full precision, which each setting allows.
fn precision(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<()> {
    let Some(a) = cx.attr("precision_config") else {
        return Ok(());
    };
    let Attr::Array(items) = &a.attr else {
        return Err(cx.err(
            a.pos,
            "precision_config must be a list",
            "precision = [DEFAULT, DEFAULT]",
        ));
    };
    for item in items {
        let w = cx.word_of(item);
        if !matches!(w.as_str(), "DEFAULT" | "HIGH" | "HIGHEST") {
            return Err(cx.err(
                item.pos,
                format!("unknown precision `{w}`"),
                "DEFAULT, HIGH or HIGHEST",
            ));
        }
    }
    Ok(())
}

/// A dot with the given dimension numbers. A result element type other
/// than the operands' (`preferred_element_type`) is the dot's own, as in
/// HLO (`f32[4,5] dot(bf16[4,16], bf16[16,5])`); shape inference refuses
/// the ones XLA refuses (an integer result narrower than the operands).
fn dot_with(cx: &mut OpCx<'_, '_, '_, '_>, dims: DotDimensionNumbers) -> Result<Vec<InstId>> {
    precision(cx)?;
    if let Some(a) = cx.attr("algorithm") {
        return Err(cx.err(
            a.pos,
            "a dot algorithm is not supported: oxla computes dots one way, at the operands' precision",
            "no `algorithm`",
        ));
    }
    let r = cx.results[0].clone();
    let (a, b) = (cx.operands[0], cx.operands[1]);
    Ok(vec![cx.push(
        OpKind::DotGeneral { dims },
        vec![a, b],
        &r,
    )?])
}

fn dot_general(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let a = cx.required("dot_dimension_numbers", "contracting_dims = [1] x [0]")?;
    let params: Vec<NamedAttr> = cx.params(a)?;
    let mut dims = DotDimensionNumbers::default();
    for p in &params {
        let list = cx.int_list(&p.value, &p.key, "[0, 1]")?;
        match p.key.as_str() {
            "lhs_batching_dimensions" => dims.lhs_batch = list,
            "rhs_batching_dimensions" => dims.rhs_batch = list,
            "lhs_contracting_dimensions" => dims.lhs_contracting = list,
            "rhs_contracting_dimensions" => dims.rhs_contracting = list,
            k => {
                return Err(cx.err(
                    p.pos,
                    format!("unknown dot dimension field `{k}`"),
                    "lhs_/rhs_ batching/contracting dimensions",
                ));
            }
        }
    }
    dot_with(cx, dims)
}

fn dot(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let (l, r) = (cx.shape(cx.operands[0]), cx.shape(cx.operands[1]));
    let dims = oxla_ir::shape_inference::dot_dimension_numbers(&l, &r)
        .map_err(|e| cx.err(cx.op.pos, e.to_string(), "vector or matrix operands"))?;
    dot_with(cx, dims)
}

fn tuple(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(cx.operands.len(), 1)?;
    let r = cx.results[0].clone();
    Ok(vec![cx.push(OpKind::Tuple, cx.operands.clone(), &r)?])
}

/// `stablehlo.composite`: its meaning is its decomposition, inlined. The
/// name, version and `composite_attributes` describe the decomposition to
/// tools that replace it; the decomposition already computes with them.
fn composite(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let (callee, at) = cx.symbol("decomposition", "decomposition = @fn")?;
    cx.read(&["name", "composite_attributes", "version"]);
    if cx.region_count() > 0 {
        return Err(cx.err(
            cx.op.pos,
            "a composite with regions is not supported: oxla inlines the decomposition, which cannot take regions",
            "a composite without regions",
        ));
    }
    let args = cx.operands.clone();
    cx.call(callee, at, &args)
}

fn call(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let (callee, at) = cx.symbol("callee", "call @fn(...)")?;
    let args = cx.operands.clone();
    cx.call(callee, at, &args)
}

// ---------------------------------------------------------------------------
// CHLO
// ---------------------------------------------------------------------------

/// CHLO's broadcast dims: the attribute, or NumPy's trailing alignment of
/// the lower-rank operand.
fn chlo_dims(cx: &mut OpCx<'_, '_, '_, '_>, lhs: &Shape, rhs: &Shape) -> Result<Vec<i64>> {
    if let Some(a) = cx.attr("broadcast_dimensions") {
        return cx.int_list(
            a,
            "broadcast_dimensions",
            "broadcast_dimensions = array<i64: 1>",
        );
    }
    let (small, large) = if lhs.rank() < rhs.rank() {
        (lhs, rhs)
    } else {
        (rhs, lhs)
    };
    let (s, l) = (small.rank() as i64, large.rank() as i64);
    Ok(if s == l {
        Vec::new()
    } else {
        (l - s..l).collect()
    })
}

pub(super) fn chlo_binary(cx: &mut OpCx<'_, '_, '_, '_>, op: BinaryOp) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let (l, r) = (cx.shape(cx.operands[0]), cx.shape(cx.operands[1]));
    let broadcast_dimensions = chlo_dims(cx, &l, &r)?;
    let res = cx.results[0].clone();
    let kind = OpKind::Binary {
        op,
        broadcast_dimensions,
    };
    Ok(vec![cx.push(kind, cx.operands.clone(), &res)?])
}

fn chlo_compare(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(2, 1)?;
    let et = cx.shape(cx.operands[0]).element_type();
    let (dir, order) = comparison(cx, et)?;
    chlo_binary(cx, BinaryOp::Compare(dir, order))
}

/// `chlo.broadcast_select`: each operand broadcast (NumPy style) to the
/// result's dims, then a select; a scalar predicate stays a scalar.
fn chlo_select(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(3, 1)?;
    let r = cx.results[0].clone();
    let mut ops = Vec::new();
    for (k, &v) in cx.operands.clone().iter().enumerate() {
        let s = cx.shape(v);
        if s.dims() == r.dims() || (k == 0 && s.is_scalar()) {
            ops.push(v);
            continue;
        }
        let (sr, rr) = (s.rank() as i64, r.rank() as i64);
        if sr > rr {
            return Err(cx.err(
                cx.op.pos,
                format!("operand {k} ({s}) has a higher rank than the result {r}"),
                "operands that broadcast to the result",
            ));
        }
        let dimensions = (rr - sr..rr).collect();
        let target = r.with_element_type(s.element_type());
        ops.push(cx.push(OpKind::Broadcast { dimensions }, vec![v], &target)?);
    }
    Ok(vec![cx.push(OpKind::Select, ops, &r)?])
}

/// `chlo.constant_like`: a splat of `value` with the operand's shape.
fn chlo_constant_like(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let a = cx.required("value", "value = 1.0 : f32")?;
    let r = cx.results[0].clone();
    let bad = || {
        cx.err(
            a.pos,
            format!(
                "the value does not fit the result's element type {}",
                r.element_type()
            ),
            "a value of the result's element type",
        )
    };
    let et = r.element_type();
    let lit = match &a.attr {
        Attr::Bool(b) if et.is_pred() => Literal::scalar(*b),
        Attr::Float(t) if et == ElementType::F32 => {
            Literal::scalar(t.parse::<f32>().map_err(|_| bad())?)
        }
        Attr::Float(t) if et == ElementType::F64 => {
            Literal::scalar(t.parse::<f64>().map_err(|_| bad())?)
        }
        Attr::Int(v) => int_literal(*v, et).ok_or_else(bad)?,
        _ => return Err(bad()),
    };
    let c = cx.constant(lit)?;
    Ok(vec![cx.push(
        OpKind::Broadcast {
            dimensions: Vec::new(),
        },
        vec![c],
        &r,
    )?])
}

/// An integer as a scalar literal of `et`, if it fits.
fn int_literal(v: i128, et: ElementType) -> Option<Literal> {
    fn sub_byte<T: SubByteInt + NativeType>(v: i128) -> Option<Literal> {
        T::new(i64::try_from(v).ok()?).map(Literal::scalar)
    }
    if et.is_float() {
        return Literal::float_scalar(et, v as f64);
    }
    Some(match et {
        ElementType::Pred => Literal::scalar(match v {
            0 => false,
            1 => true,
            _ => return None,
        }),
        ElementType::S1 => sub_byte::<Int1>(v)?,
        ElementType::S2 => sub_byte::<Int2>(v)?,
        ElementType::S4 => sub_byte::<Int4>(v)?,
        ElementType::U1 => sub_byte::<Uint1>(v)?,
        ElementType::U2 => sub_byte::<Uint2>(v)?,
        ElementType::U4 => sub_byte::<Uint4>(v)?,
        ElementType::S8 => Literal::scalar(i8::try_from(v).ok()?),
        ElementType::S16 => Literal::scalar(i16::try_from(v).ok()?),
        ElementType::S32 => Literal::scalar(i32::try_from(v).ok()?),
        ElementType::S64 => Literal::scalar(i64::try_from(v).ok()?),
        ElementType::U8 => Literal::scalar(u8::try_from(v).ok()?),
        ElementType::U16 => Literal::scalar(u16::try_from(v).ok()?),
        ElementType::U32 => Literal::scalar(u32::try_from(v).ok()?),
        ElementType::U64 => Literal::scalar(u64::try_from(v).ok()?),
        ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::F32
        | ElementType::F64
        | ElementType::C64
        | ElementType::C128
        | ElementType::Tuple
        | ElementType::Token => return None,
    })
}

/// `x == value` (or `|x| == value` when `abs`) for an infinity test.
fn inf_test(cx: &mut OpCx<'_, '_, '_, '_>, negative: bool, abs: bool) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let x = cx.operands[0];
    let s = cx.shape(x);
    let inf = if s.element_type() == ElementType::F64 {
        Literal::scalar(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        })
    } else if s.element_type() == ElementType::F32 {
        Literal::scalar(if negative {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        })
    } else {
        return Err(cx.err(
            cx.op.pos,
            format!("needs a float operand, not {}", s.element_type()),
            "an f32 or f64 operand",
        ));
    };
    let lhs = if abs {
        cx.push(OpKind::Unary(UnaryOp::Abs), vec![x], &s)?
    } else {
        x
    };
    let c = cx.constant(inf)?;
    let c = cx.push(
        OpKind::Broadcast {
            dimensions: Vec::new(),
        },
        vec![c],
        &s,
    )?;
    let r = cx.results[0].clone();
    let kind = OpKind::Binary {
        op: BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural),
        broadcast_dimensions: Vec::new(),
    };
    Ok(vec![cx.push(kind, vec![lhs, c], &r)?])
}

fn chlo_is_inf(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    inf_test(cx, false, true)
}

fn chlo_is_pos_inf(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    inf_test(cx, false, false)
}

fn chlo_is_neg_inf(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    inf_test(cx, true, false)
}

/// `chlo.square`: `x * x`.
fn chlo_square(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 1)?;
    let x = cx.operands[0];
    let r = cx.results[0].clone();
    let kind = OpKind::Binary {
        op: BinaryOp::Mul,
        broadcast_dimensions: Vec::new(),
    };
    Ok(vec![cx.push(kind, vec![x, x], &r)?])
}

// -- sort and top-k (the sort family) -----------------------------------------

/// The results of a `tuple`-shaped instruction `t` of the ops that have
/// several results in StableHLO: one `get-tuple-element` per result.
pub(super) fn tuple_results(cx: &mut OpCx<'_, '_, '_, '_>, t: InstId) -> Result<Vec<InstId>> {
    let results = cx.results.clone();
    results
        .iter()
        .enumerate()
        .map(|(k, r)| cx.push(OpKind::GetTupleElement { index: k as i64 }, vec![t], r))
        .collect()
}

/// `stablehlo.sort`: the operands sorted together along `dimension`
/// (negative counts from the end; -1 when absent, as StableHLO's default)
/// by the comparator region; `is_stable` false when absent. One result per
/// operand.
fn sort(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    let n = cx.operands.len();
    cx.arity(n.max(1), n)?;
    let rank = cx.shape(cx.operands[0]).rank() as i64;
    let dimension = match cx.attr("dimension") {
        Some(_) => cx.int("dimension", "dimension = 0 : i64")?,
        None => -1,
    };
    let dimension = if dimension < 0 {
        dimension + rank
    } else {
        dimension
    };
    let is_stable = match cx.attr("is_stable") {
        None => false,
        Some(a) => match a.attr {
            Attr::Bool(b) => b,
            _ => {
                return Err(cx.err(
                    a.pos,
                    "`is_stable` must be true or false",
                    "is_stable = true",
                ));
            }
        },
    };
    if cx.region_count() != 1 {
        return Err(cx.err(
            cx.op.pos,
            format!("has {} regions, not one comparator", cx.region_count()),
            "one comparator region",
        ));
    }
    let to_apply = cx.region_body(0, "comparator")?;
    let kind = OpKind::Sort {
        dimension,
        is_stable,
        to_apply,
    };
    if let [r] = &cx.results[..] {
        let r = r.clone();
        return Ok(vec![cx.push(kind, cx.operands.clone(), &r)?]);
    }
    let shape = Shape::tuple(cx.results.clone());
    let t = cx.push(kind, cx.operands.clone(), &shape)?;
    tuple_results(cx, t)
}

/// `chlo.top_k`: the `k` largest elements of each row of the last
/// dimension and their indices (CHLO's op has no `largest`).
fn chlo_top_k(cx: &mut OpCx<'_, '_, '_, '_>) -> Result<Vec<InstId>> {
    cx.arity(1, 2)?;
    let k = cx.int("k", "k = 1")?;
    let shape = Shape::tuple(cx.results.clone());
    let kind = OpKind::TopK { k, largest: true };
    let t = cx.push(kind, cx.operands.clone(), &shape)?;
    tuple_results(cx, t)
}
