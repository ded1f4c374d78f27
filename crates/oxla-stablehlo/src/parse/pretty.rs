//! The pretty (custom) forms of the ops in [`super::ops::OPS`], as
//! StableHLO's and CHLO's assembly formats print them.
//!
//! Each form fills the same [`Operation`] the generic form does, under the
//! generic form's attribute names (`dims = [1]` of `broadcast_in_dim` is
//! `broadcast_dimensions`; the compact reduce `applies stablehlo.add`
//! becomes a reducer region holding that one op), so the lowering never
//! knows which form it reads.

use oxla_ir::{Result, Shape};

use super::ops::Syntax;
use super::syntax::{
    Attr, AttrAt, Block, BlockArg, NamedAttr, Operation, Parser, Region, ResultDef, Type, TypeAt,
    Use,
};

/// Reads the rest of `op` (after its name) in the pretty form `syntax`.
pub(super) fn parse(p: &mut Parser<'_, '_>, syntax: Syntax, op: &mut Operation) -> Result<()> {
    match syntax {
        Syntax::SameType => same_type(p, op),
        Syntax::Functional => functional(p, op),
        Syntax::Compare => compare(p, op),
        Syntax::Select => select(p, op),
        Syntax::Constant => constant(p, op),
        Syntax::Iota => iota(p, op),
        Syntax::ListAttr(keyword, attr) => list_attr(p, op, keyword, attr, false),
        Syntax::ListAttrSameType(keyword, attr) => list_attr(p, op, keyword, attr, true),
        Syntax::Slice => slice(p, op),
        Syntax::Concatenate => concatenate(p, op),
        Syntax::Pad => pad(p, op),
        Syntax::Reduce => reduce(p, op),
        Syntax::DotGeneral => dot_general(p, op),
        Syntax::Dot => dot(p, op),
        Syntax::Tuple => tuple(p, op),
        Syntax::Return => ret(p, op),
        Syntax::Composite => composite(p, op),
        Syntax::OptimizationBarrier => optimization_barrier(p, op),
        Syntax::Call => call(p, op),
        Syntax::ChloTyped => chlo_typed(p, op),
        Syntax::GetTupleElement => get_tuple_element(p, op),
        Syntax::While => while_loop(p, op),
        Syntax::Convolution => convolution(p, op),
        Syntax::DynamicSlice => dynamic_slice(p, op),
        Syntax::TopK => top_k(p, op),
        Syntax::KeywordAfterOperands {
            keyword,
            attr,
            optional,
            same_type,
        } => keyword_after_operands(p, op, keyword, attr, optional, same_type),
        Syntax::ReducePrecision => reduce_precision(p, op),
        Syntax::ComplexParts => complex_parts(p, op),
        Syntax::Fft => fft(p, op),
        Syntax::AfterAll => after_all(p, op),
        Syntax::GenericOnly => Err(p.c.err(
            op.pos,
            format!(
                "{} has no pretty form; write it in the generic form (`\"{}\"(...)`)",
                op.name, op.name
            ),
            "the generic form",
        )),
    }
}

fn same_type(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    same_type_signature(p, op)
}

fn functional(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn compare(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    let (dir, pos) = p.c.expect_bare("a comparison direction (`GT`)")?;
    set(
        op,
        "comparison_direction",
        Attr::Keyword(dir.to_string()),
        pos,
    );
    p.c.expect(",", "after the comparison direction")?;
    op.operands = uses(p)?;
    if p.c.eat(",") {
        let (ty, pos) = p.c.expect_bare("a compare type (`FLOAT`)")?;
        set(op, "compare_type", Attr::Keyword(ty.to_string()), pos);
    }
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn select(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    p.c.expect(":", "before the op's types")?;
    let first = p.parse_type()?;
    if let Type::Function(..) = first.ty {
        return p.assign_function(op, first);
    }
    p.c.expect(",", "between the predicate type and the result type")?;
    let second = p.parse_type()?;
    op.operand_types = vec![first, second.clone(), second.clone()];
    op.result_types = vec![second];
    Ok(())
}

fn iota(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    let pos = p.c.expect_keyword("dim", "after stablehlo.iota")?;
    p.c.expect("=", "after `dim`")?;
    let (d, _) = p.c.integer("the iota dimension")?;
    set(op, "iota_dimension", Attr::Int(i128::from(d)), pos);
    attr_dict(p, op)?;
    p.c.expect(":", "before the result type")?;
    op.result_types = vec![p.parse_type()?];
    Ok(())
}

fn list_attr(
    p: &mut Parser<'_, '_>,
    op: &mut Operation,
    keyword: &str,
    attr: &str,
    same_type: bool,
) -> Result<()> {
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the operand")?;
    let pos = p.c.expect_keyword(keyword, "after the operand")?;
    p.c.expect("=", &format!("after `{keyword}`"))?;
    let (list, _) = p.c.int_list(keyword)?;
    set(op, attr, dense_array(&list), pos);
    attr_dict(p, op)?;
    if same_type {
        same_type_signature(p, op)
    } else {
        functional_signature(p, op)
    }
}

fn slice(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    let pos = p.c.expect("[", "opening the slice ranges")?;
    let (mut starts, mut limits, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    if !p.c.eat("]") {
        loop {
            starts.push(p.c.integer("a slice start")?.0);
            p.c.expect(":", "between a slice's start and limit")?;
            limits.push(p.c.integer("a slice limit")?.0);
            strides.push(if p.c.eat(":") {
                p.c.integer("a slice stride")?.0
            } else {
                1
            });
            if p.c.eat("]") {
                break;
            }
            p.c.expect(",", "or `]` after a slice range")?;
        }
    }
    set(op, "start_indices", dense_array(&starts), pos);
    set(op, "limit_indices", dense_array(&limits), pos);
    set(op, "strides", dense_array(&strides), pos);
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn concatenate(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    while p.c.peek() == Some(b'%') {
        op.operands.push(p.value_use()?);
        p.c.expect(",", "after an operand")?;
    }
    let pos = p.c.expect_keyword("dim", "after the operands")?;
    p.c.expect("=", "after `dim`")?;
    let (d, _) = p.c.integer("the concatenation dimension")?;
    set(op, "dimension", Attr::Int(i128::from(d)), pos);
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn pad(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the operand")?;
    op.operands.push(p.value_use()?);
    for (i, (keyword, attr)) in [
        ("low", "edge_padding_low"),
        ("high", "edge_padding_high"),
        ("interior", "interior_padding"),
    ]
    .into_iter()
    .enumerate()
    {
        p.c.expect(
            ",",
            if i == 0 {
                "after the padding value"
            } else {
                "between paddings"
            },
        )?;
        let pos = p.c.expect_keyword(keyword, "in stablehlo.pad")?;
        p.c.expect("=", &format!("after `{keyword}`"))?;
        let (list, _) = p.c.int_list(keyword)?;
        set(op, attr, dense_array(&list), pos);
    }
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn dot_general(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the left operand")?;
    op.operands.push(p.value_use()?);
    p.c.expect(",", "after the right operand")?;
    let pos = p.c.pos;
    let mut fields = Vec::new();
    let mut pair = |p: &mut Parser<'_, '_>, lhs: &str, rhs: &str| -> Result<()> {
        p.c.expect("=", "before the dimensions")?;
        let (l, lpos) = p.c.int_list("dimensions")?;
        p.c.expect_keyword("x", "between the left and right dimensions")?;
        let (r, rpos) = p.c.int_list("dimensions")?;
        fields.push(named(lhs, dense_array(&l), lpos));
        fields.push(named(rhs, dense_array(&r), rpos));
        Ok(())
    };
    if p.c.eat_keyword("batching_dims") {
        pair(p, "lhs_batching_dimensions", "rhs_batching_dimensions")?;
        p.c.expect(",", "after the batching dims")?;
    }
    p.c.expect_keyword("contracting_dims", "in stablehlo.dot_general")?;
    pair(
        p,
        "lhs_contracting_dimensions",
        "rhs_contracting_dimensions",
    )?;
    set(op, "dot_dimension_numbers", Attr::Dict(fields), pos);
    precision_and_algorithm(p, op)?;
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn dot(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the left operand")?;
    op.operands.push(p.value_use()?);
    precision_and_algorithm(p, op)?;
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn tuple(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    p.c.expect(":", "before the tuple type")?;
    let t = p.parse_type()?;
    let parts: Vec<TypeAt> = match &t.ty {
        Type::Value(s) if s.is_tuple() => s
            .tuple_shapes()
            .iter()
            .map(|e| TypeAt {
                ty: Type::Value(e.clone()),
                pos: t.pos,
                end: t.end,
            })
            .collect(),
        Type::Unsupported(_) => vec![t.clone(); op.operands.len()],
        Type::Value(_) | Type::Scalar(_) | Type::Function(..) => {
            return Err(p.c.err(t.pos, "expected a tuple type", "`tuple<...>`"));
        }
    };
    if parts.len() != op.operands.len() {
        return Err(p.c.err(
            t.pos,
            format!(
                "{} operand(s) for a tuple of {}",
                op.operands.len(),
                parts.len()
            ),
            "one operand per tuple element",
        ));
    }
    op.operand_types = parts;
    op.result_types = vec![t];
    Ok(())
}

fn ret(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    if p.c.eat(":") {
        op.operand_types = type_list(p)?;
        if op.operand_types.len() != op.operands.len() {
            return Err(p.c.err(
                op.pos,
                format!(
                    "{} value(s) but {} type(s)",
                    op.operands.len(),
                    op.operand_types.len()
                ),
                "one type per returned value",
            ));
        }
    } else if !op.operands.is_empty() {
        return Err(p.c.err(
            p.c.pos,
            "expected `:` and the returned values' types",
            "`: type, ...`",
        ));
    }
    Ok(())
}

/// `stablehlo.after_all %a, %b : !stablehlo.token, !stablehlo.token` (as
/// oxla writes it) or `: !stablehlo.token` (one type for all, and the
/// form with no operands): the result is a token.
fn after_all(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    p.c.expect(":", "before the tokens' types")?;
    let types = type_list(p)?;
    let Some(first) = types.first().cloned() else {
        return Err(p.c.err(op.pos, "expected a type", "`: !stablehlo.token`"));
    };
    op.operand_types = if types.len() == op.operands.len() {
        types
    } else if types.len() == 1 {
        vec![first.clone(); op.operands.len()]
    } else {
        return Err(p.c.err(
            op.pos,
            format!(
                "{} operand(s) but {} type(s)",
                op.operands.len(),
                types.len()
            ),
            "one type, or one per operand",
        ));
    };
    op.result_types = vec![TypeAt {
        ty: Type::Value(Shape::token()),
        ..first
    }];
    Ok(())
}

fn composite(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    let (name, pos) = p.c.string("the composite's name")?;
    set(op, "name", Attr::Str(name), pos);
    op.operands = uses(p)?;
    if p.c.eat("(") {
        loop {
            op.regions.push(p.region(None)?);
            if p.c.eat(")") {
                break;
            }
            p.c.expect(",", "or `)` after a region")?;
        }
    }
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn optimization_barrier(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    attr_dict(p, op)?;
    if p.c.eat("(") {
        p.c.expect(")", "for an empty barrier")?;
        return Ok(());
    }
    op.operands = uses(p)?;
    p.c.expect(":", "before the operands' types")?;
    op.operand_types = type_list(p)?;
    op.result_types = op.operand_types.clone();
    Ok(())
}

fn call(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    let (callee, pos) = p.c.symbol("the callee")?;
    set(op, "callee", Attr::Symbol(callee), pos);
    p.c.expect("(", "opening the call's arguments")?;
    op.operands = p.uses_until(")")?;
    attr_dict(p, op)?;
    functional_signature(p, op)
}

fn chlo_typed(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    chlo_signature(p, op)
}

/// `chlo.top_k(%x, k = 3) attr-dict : type -> (type, type)`.
fn top_k(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    p.c.expect("(", "opening chlo.top_k's operand")?;
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the operand")?;
    let pos = p.c.expect_keyword("k", "after the operand")?;
    p.c.expect("=", "after `k`")?;
    let (k, _) = p.c.integer("k")?;
    set(op, "k", Attr::Int(i128::from(k)), pos);
    p.c.expect(")", "closing chlo.top_k's operand and `k`")?;
    attr_dict(p, op)?;
    chlo_signature(p, op)
}

// -- the misc family ------------------------------------------------------

/// `%a, %b, keyword = WORD attr-dict : signature` (the misc family's
/// `rng`, `rng_bit_generator`, `cholesky`): the word stored as `attr`,
/// `true` and `false` as booleans; with `optional`, `, keyword = WORD` may
/// be left out, as MLIR leaves out an unset optional attribute.
fn keyword_after_operands(
    p: &mut Parser<'_, '_>,
    op: &mut Operation,
    keyword: &str,
    attr: &str,
    optional: bool,
    same_type: bool,
) -> Result<()> {
    op.operands = uses(p)?;
    if !optional || p.c.at(",") {
        p.c.expect(",", "after the operands")?;
        p.c.expect_keyword(keyword, "after the operands")?;
        p.c.expect("=", &format!("after `{keyword}`"))?;
        let (word, pos) = p.c.expect_bare(&format!("the {keyword}"))?;
        let value = match word {
            "true" => Attr::Bool(true),
            "false" => Attr::Bool(false),
            w => Attr::Keyword(w.to_string()),
        };
        set(op, attr, value, pos);
    }
    attr_dict(p, op)?;
    if same_type {
        same_type_signature(p, op)
    } else {
        functional_signature(p, op)
    }
}

/// `stablehlo.reduce_precision %x, format = e5m10 attr-dict : type`: the
/// format's two numbers stored as `exponent_bits` and `mantissa_bits`.
fn reduce_precision(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the operand")?;
    p.c.expect_keyword("format", "after the operand")?;
    p.c.expect("=", "after `format`")?;
    let (word, pos) = p.c.expect_bare("a format (`e5m10`)")?;
    let bits = word
        .strip_prefix('e')
        .and_then(|rest| rest.split_once('m'))
        .and_then(|(e, m)| Some((e.parse::<u32>().ok()?, m.parse::<u32>().ok()?)));
    let Some((exponent, mantissa)) = bits else {
        return Err(p.c.err(
            pos,
            format!("`{word}` is not a format"),
            "`eXmY`: X exponent bits and Y mantissa bits, such as e5m10",
        ));
    };
    set(op, "exponent_bits", Attr::Int(i128::from(exponent)), pos);
    set(op, "mantissa_bits", Attr::Int(i128::from(mantissa)), pos);
    attr_dict(p, op)?;
    same_type_signature(p, op)
}

// -- end of the misc family -----------------------------------------------

// -- complex numbers and fft ----------------------------------------------

/// `stablehlo.complex %re, %im attr-dict : tensor<4xcomplex<f32>>`: one
/// type, the result's; the parts have its part type (`f32`).
fn complex_parts(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    attr_dict(p, op)?;
    p.c.expect(":", "before the op's type")?;
    let t = p.parse_type()?;
    if let Type::Function(..) = t.ty {
        return p.assign_function(op, t);
    }
    let part = match &t.ty {
        Type::Value(s) => match s.element_type().complex_component() {
            Some(et) => Type::Value(s.with_element_type(et)),
            None => {
                return Err(p.c.err(
                    t.pos,
                    format!("the result type {s} is not complex"),
                    "a tensor of complex<f32> or complex<f64>",
                ));
            }
        },
        other => other.clone(),
    };
    let part = TypeAt {
        ty: part,
        pos: t.pos,
        end: t.end,
    };
    op.operand_types = vec![part; op.operands.len()];
    op.result_types = vec![t];
    Ok(())
}

/// `stablehlo.fft %x, type = FFT, length = [4] attr-dict : (type) ->
/// type`: stored as `fft_type` and `fft_length`.
fn fft(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    p.c.expect(",", "after the operand")?;
    p.c.expect_keyword("type", "after the operand")?;
    p.c.expect("=", "after `type`")?;
    let (word, pos) = p.c.expect_bare("an fft type (`FFT`)")?;
    set(op, "fft_type", Attr::Keyword(word.to_string()), pos);
    p.c.expect(",", "after the fft type")?;
    let pos = p.c.expect_keyword("length", "after the fft type")?;
    p.c.expect("=", "after `length`")?;
    let (list, _) = p.c.int_list("length")?;
    set(op, "fft_length", dense_array(&list), pos);
    attr_dict(p, op)?;
    functional_signature(p, op)
}

/// CHLO's types: `: (types) -> type`, or `: type, type -> type` and
/// `: type -> (types)`.
fn chlo_signature(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    p.c.expect(":", "before the op's types")?;
    let first = p.parse_type()?;
    if let Type::Function(..) = first.ty {
        return p.assign_function(op, first);
    }
    let mut ins = vec![first];
    while p.c.eat(",") {
        ins.push(p.parse_type()?);
    }
    p.c.expect("->", "before the result type")?;
    op.result_types = if p.c.eat("(") {
        let list = type_list(p)?;
        p.c.expect(")", "closing the result types")?;
        list
    } else {
        vec![p.parse_type()?]
    };
    if ins.len() != op.operands.len() {
        return Err(p.c.err(
            op.pos,
            format!(
                "{} operand(s) but {} operand type(s)",
                op.operands.len(),
                ins.len()
            ),
            "one type per operand",
        ));
    }
    op.operand_types = ins;
    Ok(())
}

fn named(key: &str, attr: Attr, pos: usize) -> NamedAttr {
    NamedAttr {
        key: key.to_string(),
        pos,
        value: AttrAt { attr, pos },
    }
}

fn set(op: &mut Operation, key: &str, attr: Attr, pos: usize) {
    op.attrs.push(named(key, attr, pos));
}

fn dense_array(values: &[i64]) -> Attr {
    Attr::DenseArray(values.iter().map(|&v| i128::from(v)).collect())
}

/// `%a, %b, ...`: operands for as long as a comma is followed by `%`.
fn uses(p: &mut Parser<'_, '_>) -> Result<Vec<Use>> {
    let mut out = Vec::new();
    if p.c.peek() != Some(b'%') {
        return Ok(out);
    }
    out.push(p.value_use()?);
    loop {
        let save = p.c.pos;
        if !p.c.eat(",") {
            break;
        }
        if p.c.peek() != Some(b'%') {
            p.c.pos = save;
            break;
        }
        out.push(p.value_use()?);
    }
    Ok(out)
}

/// An optional `{...}` after the op's own syntax, added to its attributes.
fn attr_dict(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    if !p.c.at("{") {
        return Ok(());
    }
    for a in p.dict()? {
        if op.attrs.iter().any(|b| b.key == a.key) {
            return Err(p.c.err(
                a.pos,
                format!("the attribute `{}` is given twice", a.key),
                "each attribute once",
            ));
        }
        op.attrs.push(a);
    }
    Ok(())
}

/// `type, type, ...`.
fn type_list(p: &mut Parser<'_, '_>) -> Result<Vec<TypeAt>> {
    let mut out = vec![p.parse_type()?];
    while p.c.eat(",") {
        out.push(p.parse_type()?);
    }
    Ok(out)
}

/// `: (types) -> types`.
fn functional_signature(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    p.c.expect(":", "before the op's type")?;
    let t = p.parse_type()?;
    p.assign_function(op, t)
}

/// `: type` (every operand and the result) or `: (types) -> type`.
fn same_type_signature(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    p.c.expect(":", "before the op's type")?;
    let t = p.parse_type()?;
    if let Type::Function(..) = t.ty {
        return p.assign_function(op, t);
    }
    op.operand_types = vec![t.clone(); op.operands.len()];
    op.result_types = vec![t];
    Ok(())
}

/// `stablehlo.constant dense<...> : type`, its `{attrs}` first, or the
/// generic fallback `stablehlo.constant() <{value = ...}> : () -> type`.
fn constant(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    if p.c.eat("(") {
        p.c.expect(")", "(a constant has no operands)")?;
        if p.c.eat("<") {
            op.attrs.extend(p.dict()?);
            p.c.expect(">", "closing the properties")?;
        }
        attr_dict(p, op)?;
        p.c.expect(":", "before the constant's type")?;
        let t = p.parse_type()?;
        return p.assign_function(op, t);
    }
    attr_dict(p, op)?;
    let value = p.attr()?;
    let ty = match &value.attr {
        Attr::Dense(_, Some(t)) | Attr::DenseResource(_, Some(t)) => t.clone(),
        Attr::Dense(_, None) | Attr::DenseResource(_, None) => {
            return Err(p.c.err(
                p.c.pos,
                "the constant has no type",
                "`: tensor<...>` after the value",
            ));
        }
        _ => {
            return Err(p.c.err(
                value.pos,
                "expected the constant's value",
                "`dense<...> : tensor<...>`",
            ));
        }
    };
    set(op, "value", value.attr.clone(), value.pos);
    op.result_types = vec![ty];
    Ok(())
}

/// `, precision = [DEFAULT, DEFAULT]` and `, algorithm = <...>`, each
/// optional.
fn precision_and_algorithm(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    while p.c.at(",") {
        let save = p.c.pos;
        p.c.eat(",");
        let word = p.c.peek_bare();
        if word == "precision" {
            let pos = p.c.expect_keyword("precision", "")?;
            p.c.expect("=", "after `precision`")?;
            p.c.expect("[", "opening the precisions")?;
            let mut items = Vec::new();
            if !p.c.eat("]") {
                loop {
                    let (w, wpos) = p.c.expect_bare("a precision (`DEFAULT`)")?;
                    items.push(AttrAt {
                        attr: Attr::Keyword(w.to_string()),
                        pos: wpos,
                    });
                    if p.c.eat("]") {
                        break;
                    }
                    p.c.expect(",", "or `]` after a precision")?;
                }
            }
            set(op, "precision_config", Attr::Array(items), pos);
        } else if word == "algorithm" {
            let pos = p.c.expect_keyword("algorithm", "")?;
            p.c.expect("=", "after `algorithm`")?;
            p.c.skip_balanced("a dot algorithm")?;
            set(op, "algorithm", Attr::Opaque, pos);
        } else {
            p.c.pos = save;
            break;
        }
    }
    Ok(())
}

/// `stablehlo.reduce(%x init: %c), (%y init: %d) applies stablehlo.add
/// across dimensions = [1] : type`, or `... across dimensions = [1] : type
/// reducer(%a: t, %b: t) (%c: t, %d: t) { ... }`.
fn reduce(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    let mut inputs = Vec::new();
    let mut inits = Vec::new();
    loop {
        p.c.expect("(", "opening an operand and its init value")?;
        inputs.push(p.value_use()?);
        p.c.expect_keyword("init", "after the operand")?;
        p.c.expect(":", "after `init`")?;
        inits.push(p.value_use()?);
        p.c.expect(")", "after the init value")?;
        if !p.c.eat(",") {
            break;
        }
    }
    op.operands = inputs.into_iter().chain(inits).collect();
    let compact = if p.c.eat_keyword("applies") {
        let (name, pos) = p.c.expect_bare("the reducing op (`stablehlo.add`)")?;
        Some((name.to_string(), pos))
    } else {
        None
    };
    p.c.expect_keyword("across", "before the reduced dimensions")?;
    let pos = p.c.expect_keyword("dimensions", "after `across`")?;
    p.c.expect("=", "after `dimensions`")?;
    let (dims, _) = p.c.int_list("the reduced dimensions")?;
    set(op, "dimensions", dense_array(&dims), pos);
    attr_dict(p, op)?;
    functional_signature(p, op)?;
    match compact {
        Some((name, npos)) => {
            // The reducer is `name` applied to two scalars of the first
            // input's element type, as MLIR builds it.
            let scalar = match op.operand_types.first().map(|t| &t.ty) {
                Some(Type::Value(s)) if s.is_array() => {
                    Type::Value(Shape::scalar(s.element_type()))
                }
                Some(Type::Unsupported(why)) => Type::Unsupported(why.clone()),
                _ => Type::Unsupported("the reduce has no array operand".into()),
            };
            let ty = TypeAt {
                ty: scalar,
                pos: npos,
                end: npos + name.len(),
            };
            let arg = |n: &str| BlockArg {
                name: n.to_string(),
                ty: ty.clone(),
                pos: npos,
                attrs: Vec::new(),
            };
            let value = |n: &str| Use {
                name: n.to_string(),
                index: 0,
                pos: npos,
            };
            let inner = Operation {
                name: name.clone(),
                pos: npos,
                results: vec![ResultDef {
                    name: "0".into(),
                    count: 1,
                    pos: npos,
                }],
                operands: vec![value("lhs"), value("rhs")],
                operand_types: vec![ty.clone(), ty.clone()],
                result_types: vec![ty.clone()],
                attrs: Vec::new(),
                regions: Vec::new(),
            };
            let ret = Operation {
                name: "stablehlo.return".into(),
                pos: npos,
                results: Vec::new(),
                operands: vec![value("0")],
                operand_types: vec![ty.clone()],
                result_types: Vec::new(),
                attrs: Vec::new(),
                regions: Vec::new(),
            };
            if super::ops::lookup(&name).is_none() {
                return Err(p.c.err(
                    npos,
                    format!("unknown op `{name}` in `applies`"),
                    "a binary op such as `stablehlo.add`",
                ));
            }
            op.regions.push(Region {
                blocks: vec![Block {
                    args: vec![arg("lhs"), arg("rhs")],
                    ops: vec![inner, ret],
                }],
                pos: npos,
            });
        }
        None => {
            p.c.expect_keyword("reducer", "before the reducer region")?;
            let (mut firsts, mut seconds) = (Vec::new(), Vec::new());
            while p.c.eat("(") {
                firsts.push(block_arg(p)?);
                p.c.expect(",", "between the reducer's arguments")?;
                seconds.push(block_arg(p)?);
                p.c.expect(")", "after the reducer's arguments")?;
            }
            let args = firsts.into_iter().chain(seconds).collect();
            op.regions.push(p.region(Some(args))?);
        }
    }
    Ok(())
}

/// `%name: type loc(...)`.
fn block_arg(p: &mut Parser<'_, '_>) -> Result<BlockArg> {
    let (name, pos) = p.c.sigil_name(b'%', "a reducer argument (`%arg0`)")?;
    p.c.expect(":", "after the argument")?;
    let ty = p.parse_type()?;
    p.skip_loc()?;
    Ok(BlockArg {
        name: name.to_string(),
        ty,
        pos,
        attrs: Vec::new(),
    })
}

/// `stablehlo.get_tuple_element %t[1] : (tuple<...>) -> type`.
fn get_tuple_element(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = vec![p.value_use()?];
    let pos = p.c.expect("[", "before the element index")?;
    let (index, _) = p.c.integer("the element index")?;
    p.c.expect("]", "after the element index")?;
    set(op, "index", Attr::Int(i128::from(index)), pos);
    attr_dict(p, op)?;
    functional_signature(p, op)
}

/// `stablehlo.while(%iterArg = %x, ...) : types attributes {...} cond {
/// ... } do { ... }`: the names before `=` are both regions' block
/// arguments, of the listed types.
fn while_loop(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    p.c.expect("(", "opening the loop's initial values")?;
    let mut names = Vec::new();
    if !p.c.eat(")") {
        loop {
            let (name, pos) = p.c.sigil_name(b'%', "a loop variable (`%iterArg`)")?;
            names.push((name.to_string(), pos));
            p.c.expect("=", "after the loop variable")?;
            op.operands.push(p.value_use()?);
            if p.c.eat(")") {
                break;
            }
            p.c.expect(",", "or `)` after a loop variable's initial value")?;
        }
    }
    let types = if names.is_empty() {
        Vec::new()
    } else {
        p.c.expect(":", "before the loop variables' types")?;
        type_list(p)?
    };
    if types.len() != names.len() {
        return Err(p.c.err(
            op.pos,
            format!(
                "{} loop variable(s) but {} type(s)",
                names.len(),
                types.len()
            ),
            "one type per loop variable",
        ));
    }
    if p.c.eat_keyword("attributes") {
        for a in p.dict()? {
            op.attrs.push(a);
        }
    }
    let args: Vec<BlockArg> = names
        .iter()
        .zip(&types)
        .map(|((name, pos), ty)| BlockArg {
            name: name.clone(),
            ty: ty.clone(),
            pos: *pos,
            attrs: Vec::new(),
        })
        .collect();
    p.c.expect_keyword("cond", "before the loop's condition")?;
    op.regions.push(p.region(Some(args.clone()))?);
    p.c.expect_keyword("do", "before the loop's body")?;
    op.regions.push(p.region(Some(args))?);
    op.operand_types = types.clone();
    op.result_types = types;
    Ok(())
}

/// `stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i,
/// o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]],
/// lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]}
/// {feature_group_count = 1 : i64, ...} : (types) -> type`: the labels
/// are stored as the generic form's `#stablehlo.conv<...>` holds them, the
/// window's fields under the generic names.
fn convolution(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    p.c.expect("(", "opening the operands")?;
    op.operands = p.uses_until(")")?;
    let pos = p.c.expect_keyword("dim_numbers", "after the operands")?;
    p.c.expect("=", "after `dim_numbers`")?;
    p.c.skip_ws();
    let start = p.c.pos;
    for (k, sep) in ["x", "->", ""].into_iter().enumerate() {
        if p.c.peek() != Some(b'[') {
            return Err(p.c.err(
                p.c.pos,
                format!(
                    "expected `[` opening dimension labels, found {}",
                    p.c.found()
                ),
                "`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`",
            ));
        }
        p.c.skip_balanced("dimension labels")?;
        if k < 2 {
            let ok = if sep == "x" {
                p.c.eat_keyword("x") || p.c.eat("x")
            } else {
                p.c.eat(sep)
            };
            if !ok {
                return Err(p.c.err(
                    p.c.pos,
                    format!(
                        "expected `{sep}` between dimension labels, found {}",
                        p.c.found()
                    ),
                    "`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`",
                ));
            }
        }
    }
    let end = p.c.pos;
    set(op, "dimension_numbers", Attr::Dialect(start, end), pos);
    if p.c.eat(",") {
        p.c.expect_keyword("window", "after the dimension numbers")?;
        p.c.expect("=", "after `window`")?;
        for a in p.dict()? {
            let key = match a.key.as_str() {
                "stride" => "window_strides",
                "pad" => "padding",
                "lhs_dilate" => "lhs_dilation",
                "rhs_dilate" => "rhs_dilation",
                "reverse" => "window_reversal",
                other => {
                    return Err(p.c.err(
                        a.pos,
                        format!("unknown window field `{other}`"),
                        "stride, pad, lhs_dilate, rhs_dilate or reverse",
                    ));
                }
            };
            set(op, key, a.value.attr, a.value.pos);
        }
    }
    attr_dict(p, op)?;
    functional_signature(p, op)
}

/// `stablehlo.dynamic_slice %x, %i, %j, sizes = [1, 2] : (types) -> type`.
fn dynamic_slice(p: &mut Parser<'_, '_>, op: &mut Operation) -> Result<()> {
    op.operands = uses(p)?;
    p.c.expect(",", "after the start indices")?;
    let pos = p.c.expect_keyword("sizes", "after the start indices")?;
    p.c.expect("=", "after `sizes`")?;
    let (sizes, _) = p.c.int_list("the slice sizes")?;
    set(op, "slice_sizes", dense_array(&sizes), pos);
    attr_dict(p, op)?;
    functional_signature(p, op)
}
