//! The HLO text parser: round trips over built computations and over the
//! modules JAX emitted (`tests/data/hlo/`), XLA's long form, fusion
//! inlining, and the error messages for malformed text.
//!
//! The round-trip corpus is the `.hlo` test folder (`tests/hlo/`, run by
//! `cargo test -p oxla --test hlo`): every valid module there is parsed,
//! printed, parsed and printed again, and the printer's own output
//! (`// canonical`, including every module the other crates pin in
//! snapshots, `tests/hlo/parser/printed_modules.hlo`) must reprint unchanged.

#![allow(clippy::result_large_err)]

use std::path::PathBuf;

use ElementType::{F32, Pred, S32};
use oxla_ir::ir::OpKind;
use oxla_ir::parser::parse_hlo_module_diagnostics;
use oxla_ir::{
    Builder, Computation, DotDimensionNumbers, ElementType, Error, Literal, PadDim, Shape,
    parse_hlo_module,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The folder of HLO modules shared by the tests (copied from the JAX runs).
fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hlo")
}

fn read_module(name: &str) -> String {
    let path = data_dir().join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read test module {}: {e}", path.display()))
}

/// Parses `text`, prints it, parses the print and prints again: the two
/// prints must be equal. Returns the first print.
fn check_round_trip(text: &str) -> String {
    let comp = parse_hlo_module(text).unwrap_or_else(|e| panic!("parse failed:\n{e}\n{text}"));
    let printed = comp.to_hlo_text();
    let again = parse_hlo_module(&printed)
        .unwrap_or_else(|e| panic!("re-parse failed:\n{e}\n{printed}"))
        .to_hlo_text();
    assert_eq!(again, printed, "print(parse(print)) differs from print");
    printed
}

/// A built computation prints, parses back and prints the same text; without
/// NaNs (which are not `==` to themselves) it is also structurally equal.
fn check_built(comp: &Computation) {
    let text = comp.to_hlo_text();
    let parsed = parse_hlo_module(&text).unwrap_or_else(|e| panic!("parse failed:\n{e}\n{text}"));
    assert_eq!(parsed.to_hlo_text(), text);
    if !text.contains("nan") {
        assert_eq!(&parsed, comp, "{text}");
    }
}

/// The error `text` gives, as the user reads it.
fn parse_error(text: &str) -> String {
    match parse_hlo_module(text) {
        Ok(c) => panic!("expected an error, but parsed:\n{c}"),
        Err(e @ Error::Parse { .. }) => e.to_string(),
        Err(e) => panic!("expected a parse error, got: {e}"),
    }
}

fn f32s(dims: &[i64]) -> Shape {
    Shape::new(F32, dims)
}

fn scalar_reducer(
    name: &str,
    ty: ElementType,
    op: fn(&mut Builder, oxla_ir::Op, oxla_ir::Op) -> oxla_ir::Result<oxla_ir::Op>,
) -> Computation {
    let mut r = Builder::new(name);
    let a = r.parameter(0, Shape::scalar(ty), "a").unwrap();
    let b = r.parameter(1, Shape::scalar(ty), "b").unwrap();
    let s = op(&mut r, a, b).unwrap();
    r.build(s).unwrap()
}

// ---------------------------------------------------------------------------
// Round trips over built computations: every op
// ---------------------------------------------------------------------------

#[test]
fn round_trip_every_unary_op() {
    let mut b = Builder::new("unary");
    let x = b.parameter(0, f32s(&[2, 3]), "x").unwrap();
    let i = b.parameter(1, Shape::new(S32, &[4]), "i").unwrap();
    let p = b.parameter(2, Shape::new(Pred, &[]), "p").unwrap();
    let mut outs = vec![];
    for op in oxla_ir::UnaryOp::ALL {
        // Float ops take x; `not`, `popcnt` and `count-leading-zeros` take i.
        let operand = if op.accepts(F32) { x } else { i };
        let y = b.unary(*op, operand).unwrap();
        outs.push(y);
    }
    outs.push(b.not(p).unwrap());
    let root = b.tuple(&outs).unwrap();
    check_built(&b.build(root).unwrap());
}

#[test]
fn round_trip_every_binary_op_and_broadcast_dimensions() {
    let mut b = Builder::new("binary");
    let x = b.parameter(0, f32s(&[2, 3]), "x").unwrap();
    let v = b.parameter(1, f32s(&[3]), "v").unwrap();
    let s = b.parameter(2, f32s(&[]), "s").unwrap();
    let i = b.parameter(3, Shape::new(S32, &[2, 3]), "i").unwrap();
    let j = b.parameter(4, Shape::new(S32, &[2, 1]), "j").unwrap();
    let p = b.parameter(5, Shape::new(Pred, &[3]), "p").unwrap();
    let mut outs = vec![];
    for op in oxla_ir::BinaryOp::ALL {
        use oxla_ir::BinaryOp as B;
        let (l, r, dims): (_, _, &[i64]) = match op {
            B::And
            | B::Or
            | B::Xor
            | B::ShiftLeft
            | B::ShiftRightArithmetic
            | B::ShiftRightLogical => (i, j, &[]),
            B::Add | B::Mul | B::Compare(_) => (x, v, &[1]),
            B::Sub | B::Div | B::Max => (v, x, &[1]),
            B::Rem | B::Min | B::Pow | B::Atan2 => (x, s, &[]),
        };
        outs.push(b.binary(l, r, *op, dims).unwrap());
    }
    outs.push(b.and(p, p, &[]).unwrap());
    // The identity on equal ranks is accepted and kept canonical (empty).
    outs.push(b.add(x, x, &[0, 1]).unwrap());
    let root = b.tuple(&outs).unwrap();
    check_built(&b.build(root).unwrap());
}

#[test]
fn round_trip_structural_ops() {
    let mut b = Builder::new("structural");
    let x = b.parameter(0, f32s(&[2, 3]), "x").unwrap();
    let c = b.parameter(1, f32s(&[1, 3]), "c").unwrap();
    let lo = b.constant_scalar(-1f32).unwrap();
    let hi = b.constant_scalar(1f32).unwrap();
    let p = b.constant_scalar(true).unwrap();
    let outs = vec![
        b.convert(x, S32).unwrap(),
        b.select(p, x, x).unwrap(),
        b.clamp(lo, x, hi).unwrap(),
        b.broadcast(x, &[4]).unwrap(),
        b.broadcast_in_dim(c, &[5, 3], &[0, 1]).unwrap(),
        b.reshape(x, &[3, 2]).unwrap(),
        b.transpose(x, &[1, 0]).unwrap(),
        b.slice(x, &[0, 1], &[2, 3], &[1, 2]).unwrap(),
        b.concatenate(&[x, c], 0).unwrap(),
        b.reverse(x, &[0, 1]).unwrap(),
        b.pad(
            x,
            lo,
            &[
                PadDim {
                    lo: -1,
                    hi: 2,
                    interior: 0,
                },
                PadDim {
                    lo: 0,
                    hi: 1,
                    interior: 2,
                },
            ],
        )
        .unwrap(),
        b.iota(Shape::new(S32, &[4, 2]), 1).unwrap(),
    ];
    let root = b.tuple(&outs).unwrap();
    check_built(&b.build(root).unwrap());
}

#[test]
fn round_trip_reduce_and_dot() {
    let sum = scalar_reducer("sum", F32, |b, x, y| b.add(x, y, &[]));
    let max = scalar_reducer("max", F32, |b, x, y| b.max(x, y, &[]));
    let mut b = Builder::new("reduce_dot");
    let x = b.parameter(0, f32s(&[2, 3, 4]), "x").unwrap();
    let m = b.parameter(1, f32s(&[4, 5]), "m").unwrap();
    let y = b.parameter(2, f32s(&[2, 4, 5]), "y").unwrap();
    let zero = b.constant_scalar(0f32).unwrap();
    let ninf = b.constant_scalar(f32::NEG_INFINITY).unwrap();
    let r1 = b.reduce(x, zero, &[2], &sum).unwrap();
    let r2 = b.reduce(x, ninf, &[0, 2], &max).unwrap();
    let r3 = b.reduce(x, zero, &[1], &sum).unwrap();
    let v = b.reduce(m, zero, &[0], &sum).unwrap();
    let d1 = b.dot(m, v).unwrap();
    let dims = DotDimensionNumbers {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    let d2 = b.dot_general(x, y, &dims).unwrap();
    let root = b.tuple(&[r1, r2, r3, d1, d2]).unwrap();
    let comp = b.build(root).unwrap();
    assert_eq!(comp.bodies().len(), 3, "two reducers and the entry");
    check_built(&comp);
}

#[test]
fn round_trip_constants_of_every_type() {
    let mut b = Builder::new("constants");
    let lits = vec![
        Literal::scalar(true),
        Literal::from_vec(&[2, 2], vec![true, false, false, true]).unwrap(),
        Literal::scalar(-128i8),
        Literal::from_vec(&[3], vec![i16::MIN, 0, i16::MAX]).unwrap(),
        Literal::from_vec(&[2, 1, 2], vec![i32::MIN, -1, 0, i32::MAX]).unwrap(),
        Literal::from_vec(&[2], vec![i64::MIN, i64::MAX]).unwrap(),
        Literal::scalar(255u8),
        Literal::from_vec(&[2], vec![0u16, u16::MAX]).unwrap(),
        Literal::from_vec(&[1, 1, 1], vec![u32::MAX]).unwrap(),
        Literal::from_vec(&[2], vec![0u64, u64::MAX]).unwrap(),
        Literal::from_vec(
            &[3, 3],
            vec![
                0.0f32,
                -0.0,
                1.5,
                0.1,
                1e-7,
                f32::MAX,
                f32::MIN_POSITIVE,
                1e20,
                -123456.79,
            ],
        )
        .unwrap(),
        Literal::from_vec(&[4], vec![0.1f64, 1e300, -2.5e-300, 1.0 / 3.0]).unwrap(),
        Literal::from_vec(&[0], Vec::<f32>::new()).unwrap(),
        Literal::from_vec(&[2, 0], Vec::<f32>::new()).unwrap(),
        Literal::from_vec(&[0, 2], Vec::<i8>::new()).unwrap(),
    ];
    let ops: Vec<_> = lits.into_iter().map(|l| b.constant(l).unwrap()).collect();
    let root = b.tuple(&ops).unwrap();
    check_built(&b.build(root).unwrap());
}

#[test]
fn round_trip_special_floats() {
    let mut b = Builder::new("special");
    let f = Literal::from_vec(
        &[5],
        vec![f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN, -0.0],
    )
    .unwrap();
    let d = Literal::from_vec(&[3], vec![f64::INFINITY, f64::NAN, -f64::NAN]).unwrap();
    let a = b.constant(f).unwrap();
    let c = b.constant(d).unwrap();
    let root = b.tuple(&[a, c]).unwrap();
    let comp = b.build(root).unwrap();
    check_built(&comp);
    let text = comp.to_hlo_text();
    assert!(text.contains("{inf, -inf, nan, -nan, -0}"), "{text}");
    // The sign of a NaN survives the trip.
    let parsed = parse_hlo_module(&text).unwrap();
    let OpKind::Constant { literal } = &parsed.entry().instructions[0].kind else {
        panic!("expected a constant");
    };
    let v = literal.to_vec::<f32>().unwrap();
    assert!(v[2].is_nan() && v[2].is_sign_positive());
    assert!(v[3].is_nan() && v[3].is_sign_negative());
}

#[test]
fn round_trip_every_element_type_parameter() {
    for ty in ElementType::ALL {
        let mut b = Builder::new("p");
        let x = b.parameter(0, Shape::new(ty, &[2, 1, 3]), "x").unwrap();
        let s = b.parameter(1, Shape::new(ty, &[]), "s").unwrap();
        let root = b.tuple(&[x, s]).unwrap();
        check_built(&b.build(root).unwrap());
    }
}

// ---------------------------------------------------------------------------
// The modules JAX emitted
// ---------------------------------------------------------------------------

#[test]
fn jax_modules_round_trip_and_snapshot() {
    for name in ["W1", "W5", "W9_softmax"] {
        let printed = check_round_trip(&read_module(&format!("{name}.hlo.txt")));
        insta::assert_snapshot!(format!("jax_{name}"), printed);
    }
}

#[test]
fn optimized_jax_modules_inline_their_fusions() {
    for name in ["W1", "W5", "W9_softmax"] {
        let printed = check_round_trip(&read_module(&format!("{name}.optimized.hlo.txt")));
        assert!(!printed.contains("fusion("), "{printed}");
        assert!(!printed.contains("fused_computation"), "{printed}");
        insta::assert_snapshot!(format!("jax_{name}_optimized"), printed);
    }
}

#[test]
fn optimized_and_unoptimized_modules_have_the_same_signature() {
    for name in ["W1", "W5", "W9_softmax"] {
        let plain = parse_hlo_module(&read_module(&format!("{name}.hlo.txt"))).unwrap();
        let opt = parse_hlo_module(&read_module(&format!("{name}.optimized.hlo.txt"))).unwrap();
        assert_eq!(plain.parameter_shapes(), opt.parameter_shapes());
        assert_eq!(plain.result_shape(), opt.result_shape());
        assert_eq!(plain.name(), opt.name());
    }
}

/// The parser never panics: every prefix of every module, and every module
/// with one byte replaced, parses or fails with an error.
#[test]
fn truncated_and_mutated_modules_never_panic() {
    for file in std::fs::read_dir(data_dir()).unwrap() {
        let path = file.unwrap().path();
        if !path.to_string_lossy().ends_with(".hlo.txt") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.char_indices() {
            let _ = parse_hlo_module(&text[..i]);
        }
        let bytes = text.as_bytes();
        for (k, i) in (0..bytes.len()).step_by(7).enumerate() {
            let mut m = bytes.to_vec();
            let pool = b"{}()[],=%:-x0 \n\"*/";
            m[i] = pool[k % pool.len()];
            if let Ok(s) = std::str::from_utf8(&m) {
                let _ = parse_hlo_module(s);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// XLA's text forms
// ---------------------------------------------------------------------------

#[test]
fn xla_long_form_axpy() {
    // From xla/hlo/parser/hlo_parser_test.cc (AxpyParam).
    let text = "\
HloModule axpy_module, entry_computation_layout={(f32[], f32[2,4]{1,0}, f32[2,4]{1,0})->f32[2,4]{1,0}}

ENTRY %axpy.v5 (alpha: f32[], x: f32[2,4], y: f32[2,4]) -> f32[2,4] {
  %alpha = f32[] parameter(0)
  %broadcast = f32[2,4]{1,0} broadcast(f32[] %alpha), dimensions={}
  %x = f32[2,4]{1,0} parameter(1)
  %multiply = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %broadcast, f32[2,4]{1,0} %x)
  %y = f32[2,4]{1,0} parameter(2)
  ROOT %add = f32[2,4]{1,0} add(f32[2,4]{1,0} %multiply, f32[2,4]{1,0} %y)
}
";
    insta::assert_snapshot!("xla_axpy_long_form", check_round_trip(text));
}

#[test]
fn xla_short_form_reduce_with_reducer() {
    let text = "\
HloModule ReduceR3ToR2_module, entry_computation_layout={(f32[8,16,256]{2,1,0})->f32[8,16]{1,0}}

add_F32.v3 {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT add = f32[] add(lhs, rhs)
}

ENTRY ReduceR3ToR2.v3 {
  input = f32[8,16,256]{2,1,0} parameter(0)
  constant = f32[] constant(0)
  ROOT reduce = f32[8,16]{1,0} reduce(input, constant), dimensions={2}, to_apply=add_F32.v3
}
";
    let printed = check_round_trip(text);
    assert!(printed.contains("to_apply=add_F32.v3"), "{printed}");
}

#[test]
fn reducer_after_entry_and_out_of_order_instructions() {
    // The reducer comes after ENTRY; `sum` is used before it is defined and
    // ROOT is not last.
    let text = "\
HloModule m

ENTRY e {
  ROOT r = f32[2]{0} reduce(x, zero), dimensions={1}, to_apply=add
  x = f32[2,3]{1,0} parameter(0)
  zero = f32[] constant(0)
}

add {
  ROOT s = f32[] add(a, b)
  a = f32[] parameter(0)
  b = f32[] parameter(1)
}
";
    let printed = check_round_trip(text);
    insta::assert_snapshot!("reordered", printed);
}

#[test]
fn ignores_attributes_oxla_does_not_model() {
    let text = r#"HloModule m, is_scheduled=true, entry_computation_layout={(f32[2]{0})->pred[2]{0}}, frontend_attributes={a="b,}"}

ENTRY %e (x: f32[2]) -> pred[2] {
  %x = f32[2]{0:T(128)} parameter(0), sharding={replicated}, metadata={op_name="x{" source_file="a\"b.py" source_line=3}
  /* a comment */ %c = f32[] constant(1), origin={{"c"}}
  %b = f32[2]{0} broadcast(f32[] %c), dimensions={}, backend_config={"k":[1,{"x":"}"}]}, frontend_attributes={_xla="host"}
  ROOT %lt = pred[2]{0} compare(f32[2]{0} %x, f32[2]{0} %b), direction=LT, type=TOTALORDER, control-predecessors={%c}
}
"#;
    let printed = check_round_trip(text);
    assert!(
        printed.contains("compare(x, b), direction=LT\n"),
        "{printed}"
    );
}

#[test]
fn copy_is_the_identity_and_tuples_and_tuple_shapes_parse() {
    let text = "\
HloModule m

ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[2,3]{0,1} copy(x)
  n = f32[2,3]{1,0} negate(y)
  ROOT t = (f32[2,3]{1,0}, (f32[2,3]{1,0}, f32[2,3]{1,0})) tuple(n, (f32[2,3], f32[2,3]) u)
  u = (f32[2,3]{1,0}, f32[2,3]{1,0}) tuple(x, /*index=1*/ y)
}
";
    let printed = check_round_trip(text);
    assert!(printed.contains("negate(x)"), "{printed}");
    assert!(printed.contains("tuple(x, x)"), "{printed}");
}

#[test]
fn nested_fusions_are_inlined_with_fresh_names() {
    let text = "\
HloModule m

%inner (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p)
}

%outer (p0: f32[4], p1: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[4]{0} parameter(1)
  %n = f32[4]{0} add(%p0, %p1)
  ROOT %f = f32[4]{0} fusion(%n), kind=kLoop, calls=%inner
}

ENTRY %e (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %n = f32[4]{0} fusion(%x, %y), kind=kLoop, calls=%outer
  %f = f32[4]{0} fusion(%n), kind=kLoop, calls=%inner
  ROOT %m = f32[4]{0} multiply(%n, %f)
}
";
    let printed = check_round_trip(text);
    insta::assert_snapshot!("nested_fusions", printed);
}

#[test]
fn our_dialect_with_broadcast_dimensions_parses() {
    let text = "\
HloModule d

ENTRY d {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  s = f32[] parameter(2)
  a = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
  m = f32[2,3]{1,0} multiply(a, s)
  ROOT c = pred[2,3]{1,0} compare(m, v), direction=GE, broadcast_dimensions={1}
}
";
    check_round_trip(text);
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

fn module(body: &str) -> String {
    format!("HloModule m\n\nENTRY e {{\n{body}}}\n")
}

#[test]
fn error_messages() {
    let cases: Vec<(&str, String)> = vec![
        ("empty input", String::new()),
        ("no computations", "HloModule m\n".into()),
        (
            "unknown opcode",
            module("  x = f32[2] parameter(0)\n  ROOT y = f32[2] frobnicate(x)\n"),
        ),
        (
            "unsupported op",
            module(
                "  x = (f32[2], s32[]) parameter(0)\n  ROOT y = f32[2] get-tuple-element(x), index=0\n",
            ),
        ),
        (
            "missing close paren",
            module("  x = f32[2] parameter(0)\n  ROOT y = f32[2] negate(x\n"),
        ),
        (
            "bad shape",
            module("  x = f32[2,-3] parameter(0)\n  ROOT y = f32[2,-3] negate(x)\n"),
        ),
        (
            "unclosed dimension list",
            module("  x = f32[2 parameter(0)\n  ROOT y = f32[2] negate(x)\n"),
        ),
        (
            "unsupported element type",
            module("  ROOT x = bf16[2] parameter(0)\n"),
        ),
        (
            "undefined operand",
            module("  x = f32[2] parameter(0)\n  ROOT y = f32[2] add(x, z)\n"),
        ),
        (
            "shape mismatch with inference",
            module(
                "  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n  ROOT y = f32[3,2] add(x, v), broadcast_dimensions={1}\n",
            ),
        ),
        (
            "invalid broadcast dimensions",
            module(
                "  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n  ROOT y = f32[2,3] add(x, v), broadcast_dimensions={0}\n",
            ),
        ),
        (
            "duplicate names",
            module(
                "  x = f32[2] parameter(0)\n  x = f32[2] negate(x)\n  ROOT y = f32[2] negate(x)\n",
            ),
        ),
        (
            "huge literal",
            module("  ROOT c = f32[1000000,1000000] constant({ { 1, 2 } })\n"),
        ),
        (
            "huge shape",
            module("  ROOT c = f32[10000000,10000000] parameter(0)\n"),
        ),
        (
            "wrong literal element count",
            module("  ROOT c = s32[3] constant({1, 2})\n"),
        ),
        (
            "literal value out of range",
            module("  ROOT c = u8[2] constant({1, 256})\n"),
        ),
        (
            "unterminated attribute brace",
            module(
                "  x = f32[2] parameter(0), metadata={op_name=\"x\"\n  ROOT y = f32[2] negate(x)\n",
            ),
        ),
        (
            "missing attribute",
            module("  x = f32[2] parameter(0)\n  ROOT y = pred[2] compare(x, x)\n"),
        ),
        (
            "cycle",
            module(
                "  x = f32[2] parameter(0)\n  a = f32[2] add(x, b)\n  ROOT b = f32[2] add(x, a)\n",
            ),
        ),
        (
            "unknown reducer",
            module(
                "  x = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=sum\n",
            ),
        ),
        (
            "parameter gap",
            module("  x = f32[2] parameter(0)\n  ROOT y = f32[2] parameter(2)\n"),
        ),
        (
            "long form operand shape",
            module("  %x = f32[2] parameter(0)\n  ROOT %y = f32[2] negate(f32[3] %x)\n"),
        ),
        (
            "unclosed computation",
            "HloModule m\n\nENTRY e {\n  ROOT x = f32[2] parameter(0)\n".into(),
        ),
        (
            "elided constant",
            module("  ROOT c = f32[200] constant({...})\n"),
        ),
        (
            "tuple constant",
            module("  ROOT c = (f32[], s32[]) constant((1, 2))\n"),
        ),
        (
            "deep literal nesting",
            module(&format!(
                "  ROOT c = f32[1] constant({})\n",
                "{".repeat(100_000)
            )),
        ),
        (
            "deep tuple shape",
            module(&format!(
                "  ROOT c = {}f32[]{} parameter(0)\n",
                "(".repeat(100_000),
                ")".repeat(100_000)
            )),
        ),
    ];
    let mut report = String::new();
    for (name, text) in &cases {
        report.push_str(&format!("=== {name}\n{}\n\n", parse_error(text)));
    }
    insta::assert_snapshot!("errors", report);
}

#[test]
fn errors_carry_line_column_snippet_and_caret() {
    let err = parse_hlo_module(&module(
        "  x = f32[2] parameter(0)\n  ROOT y = f32[2] add(x, z)\n",
    ))
    .unwrap_err();
    let Error::Parse {
        line,
        column,
        snippet,
        caret,
        expected,
        ..
    } = err
    else {
        panic!("expected a parse error");
    };
    assert_eq!((line, column), (5, 26));
    assert_eq!(snippet, "  ROOT y = f32[2] add(x, z)");
    assert_eq!(caret, "                         ^");
    assert!(expected.contains("instruction"));
}

#[test]
fn diagnostics_report_each_independent_error_once() {
    let text = module(
        "  x = f32[2] parameter(0)\n  y = f32[3] negate(x)\n  w = f32[3] negate(y)\n  ROOT z = s32[2] negate(x)\n",
    );
    let errors = parse_hlo_module_diagnostics(&text).unwrap_err();
    let lines: Vec<String> = errors
        .iter()
        .map(|e| e.to_string().lines().next().unwrap_or("").to_string())
        .collect();
    // `w` uses `y`, already in error: not reported again.
    assert_eq!(
        lines,
        [
            "5:7: `y` declares shape f32[3] but its operands give f32[2]",
            "7:12: `z` declares shape s32[2] but its operands give f32[2]",
        ]
    );
}

#[test]
fn huge_shapes_do_not_allocate() {
    // 2^40 elements is the cap; a parameter of 2^39 elements is fine to
    // parse (nothing is allocated), a constant claiming as many fails fast.
    let ok = module("  ROOT x = f32[524288,1048576] parameter(0)\n");
    assert_eq!(
        parse_hlo_module(&ok)
            .unwrap()
            .result_shape()
            .element_count(),
        1 << 39
    );
    let text = module("  ROOT c = f32[524288,1048576] constant({ {1} })\n");
    assert!(parse_error(&text).contains("has size 1048576, but this group has 1 element"));
}

#[test]
fn calls_of_nested_jits_are_inlined() {
    // What JAX prints for `jax.nn.relu(x @ w + b)` before optimisation: the
    // nested jit of relu is a `call` with `to_apply=`.
    let text = "HloModule jit_mlp\n\nrelu.1 {\n  a = f32[4,5]{1,0} parameter(0)\n  c = f32[] constant(0)\n  b = f32[4,5]{1,0} broadcast(c), dimensions={}\n  ROOT m = f32[4,5]{1,0} maximum(a, b)\n}\n\nENTRY main {\n  x = f32[4,3]{1,0} parameter(0)\n  w = f32[3,5]{1,0} parameter(1)\n  d = f32[4,5]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT r = f32[4,5]{1,0} call(d), to_apply=relu.1\n}\n";
    let comp = oxla_ir::parse_hlo_module(text).unwrap();
    assert_eq!(comp.bodies().len(), 1, "the called computation is inlined");
    let printed = comp.to_hlo_text();
    assert!(
        printed.contains("ROOT r = f32[4,5]{1,0} maximum(d, b)"),
        "{printed}"
    );
    assert!(!printed.contains("call("), "{printed}");
    check_round_trip(&printed);
    // A call without to_apply is an error at the call.
    let err = parse_error(&text.replace(", to_apply=relu.1", ""));
    assert!(err.contains("to_apply"), "{err}");
}
