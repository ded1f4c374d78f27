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
            B::Add | B::Mul | B::Compare(..) => (x, v, &[1]),
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
fn accepts_attributes_without_semantics_on_one_device() {
    let text = r#"HloModule m, is_scheduled=true, entry_computation_layout={(f32[2]{0})->pred[2]{0}}, frontend_attributes={a="b,}"}

ENTRY %e (x: f32[2]) -> pred[2] {
  %x = f32[2]{0:T(128)} parameter(0), sharding={replicated}, metadata={op_name="x{" source_file="a\"b.py" source_line=3}
  /* a comment */ %c = f32[] constant(1), origin={{"c"}}
  %b = f32[2]{0} broadcast(f32[] %c), dimensions={}, backend_config={"k":[1,{"x":"}"}]}, frontend_attributes={_xla="host"}
  ROOT %lt = pred[2]{0} compare(f32[2]{0} %x, f32[2]{0} %b), direction=LT, type=FLOAT, control-predecessors={%c}
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
            module("  x = f32[2] parameter(0)\n  ROOT y = f32[4] all-gather(x), dimensions={0}\n"),
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
            module("  ROOT x = opaque[2] parameter(0)\n"),
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

// ---------------------------------------------------------------------------
// The HLO text XLA accepts: cases as data
// ---------------------------------------------------------------------------

/// What a case of [`cases`] must give.
enum Expect {
    /// It parses and verifies, and its print contains each of these lines
    /// (compared trimmed); the print parses back to the same print.
    Prints(&'static [&'static str]),
    /// It fails with exactly these errors, in this order, each message
    /// containing its text.
    Errors(&'static [&'static str]),
}

/// A complete module, the outcome it must have, and why it is here. Each
/// case is one `.hlo` file's worth, ready to move into a folder of test
/// files with its expectation.
struct Case {
    name: &'static str,
    text: String,
    expect: Expect,
}

fn case(name: &'static str, text: &str, expect: Expect) -> Case {
    Case {
        name,
        text: text.to_string(),
        expect,
    }
}

/// A module whose entry is `e` with `body` (one instruction per line).
fn entry(body: &str) -> String {
    format!("HloModule m\n\nENTRY e {{\n{body}\n}}\n")
}

use Expect::{Errors, Prints};

fn cases() -> Vec<Case> {
    vec![
        // -- comments ---------------------------------------------------------
        case(
            "comments anywhere (XLA's Comments and SlashSlashComments tests)",
            "/* module description. */\nHloModule comments: // a comment\n// Garbage\n\nENTRY /*comment*/ c1 {\n  /* blah */\n  ROOT const1 = /*foo*/f32[1]{0} constant({12345 /*bar*/}) // Something else\n  /* comment\n     over lines */\n}\n\n/* something else */\n",
            Prints(&["ROOT const1 = f32[1]{0} constant({12345})"]),
        ),
        case(
            "`//` comments with CR line ends (XLA's Mac EOL test)",
            "HloModule slash_slash_comment:\r// Garbage\rENTRY c1 {\r// Foo bar\rROOT const1 = f32[1]{0} constant({12345}) // Something else\r}",
            Prints(&["ROOT const1 = f32[1]{0} constant({12345})"]),
        ),
        case(
            "the printer's /*index=5*/ markers in tuple shapes and operand lists",
            &entry(
                "  v = f32[] parameter(0)\n  ROOT t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(f32[] v, v, v, v, v, /*index=5*/f32[] v)",
            ),
            Prints(&["ROOT t = (f32[], f32[], f32[], f32[], f32[], f32[]) tuple(v, v, v, v, v, v)"]),
        ),
        case(
            "comments inside constants and attributes",
            &entry(
                "  ROOT c = f32[2,0,4,3]{3,2,1,0} constant({ { /*i0=0*/ }, { /*i0=1*/ } }), metadata={op_name=\"x\" /* note */ source_line=3}",
            ),
            Prints(&["ROOT c = f32[2,0,4,3]{3,2,1,0} constant({ { }, { } })"]),
        ),
        case(
            "an unterminated comment points at its start",
            &entry("  /* unterminated\n  ROOT c = f32[1]{0} constant({12345})"),
            Errors(&["4:3: unterminated comment"]),
        ),
        // -- instructions without a result shape ------------------------------
        case(
            "shapes inferred as XLA's parser infers them",
            &entry(
                "  a = f32[2,10]{1,0} parameter(0)\n  b = f32[10,2] parameter(1)\n  n = abs(a)\n  s = add(a, n)\n  d = dot(s, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  c = copy(d)\n  p = compare(c, c), direction=LT\n  l = select(p, c, c)\n  z = f32[] constant(0)\n  r = reduce(l, z), dimensions={1}, to_apply=sum\n  k = broadcast(z), dimensions={}\n  w = broadcast(l), dimensions={1,2}\n  ROOT t = tuple(r, k, w)",
            )
            .replace("HloModule m\n\n", "HloModule m\n\nsum {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = add(x, y)\n}\n\n"),
            Prints(&[
                "n = f32[2,10]{1,0} abs(a)",
                "d = f32[2,2]{1,0} dot(s, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                "p = pred[2,2]{1,0} compare(d, d), direction=LT",
                "r = f32[2]{0} reduce(l, z), dimensions={1}, to_apply=sum",
                "k = f32[] broadcast(z), dimensions={}",
                "w = f32[1,2,2,2]{3,2,1,0} broadcast(l), dimensions={1,2}",
                "ROOT t = (f32[2]{0}, f32[], f32[1,2,2,2]{3,2,1,0}) tuple(r, k, w)",
            ]),
        ),
        case(
            "ops whose shape XLA will not infer, each reported",
            &entry(
                "  p = f32[3] parameter(0)\n  s = slice(p), slice={[0:2]}\n  r = reshape(p)\n  v = convert(p)\n  i = iota(), iota_dimension=0\n  q = parameter(1)\n  ROOT c = constant(1)",
            ),
            Errors(&[
                "5:7: cannot infer shape for opcode: slice",
                "6:7: cannot infer shape for opcode: reshape",
                "7:7: cannot infer shape for opcode: convert",
                "8:7: cannot infer shape for opcode: iota",
                "9:7: cannot infer shape for opcode: parameter",
                "10:12: cannot infer shape for opcode: constant",
            ]),
        ),
        case(
            "an inferred shape that does not exist",
            &entry("  a = f32[2] parameter(0)\n  b = f32[3] parameter(1)\n  ROOT c = add(a, b)"),
            Errors(&["6:12: failed to infer shape for opcode: add (instruction `c`)"]),
        ),
        case(
            "fusion needs its shape; call does not",
            "HloModule m\n\nf {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\n\nENTRY e {\n  a = f32[2] parameter(0)\n  c = call(a), to_apply=f\n  ROOT u = fusion(c), kind=kLoop, calls=f\n}\n",
            Errors(&["11:12: cannot infer shape for opcode: fusion"]),
        ),
        case(
            "a scalar's broadcast may omit `dimensions`",
            &entry("  c = f32[] constant(1)\n  ROOT b = f32[3] broadcast(c)"),
            Prints(&["ROOT b = f32[3]{0} broadcast(c), dimensions={}"]),
        ),
        case(
            "a vector's broadcast may not (XLA's NestedBroadcastWithoutDimensionsAttribute)",
            "HloModule test\nENTRY test {\n    ROOT root = sqrt(f32[10,10] broadcast(f32[10] parameter(0)))\n}\n",
            Errors(&["3:33: attribute dimensions is expected but not seen"]),
        ),
        // -- nested operand instructions --------------------------------------
        case(
            "nested instructions get XLA's generated names",
            &entry(
                "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  multiply.anon = f32[] negate(a)\n  ROOT c = add(f32[] multiply(a, b), multiply(multiply.anon, negate(b)))",
            ),
            Prints(&[
                "multiply.anon.1 = f32[] multiply(a, b)",
                "negate.anon = f32[] negate(b)",
                "multiply.anon.2 = f32[] multiply(multiply.anon, negate.anon)",
                "ROOT c = f32[] add(multiply.anon.1, multiply.anon.2)",
            ]),
        ),
        case(
            "nested instructions take no attributes",
            &entry("  c = f32[] constant(1)\n  ROOT a = f32[2] add(f32[2] broadcast(c), dimensions={0})"),
            Errors(&["expected `,` or `)` in the operand list, found `=`"]),
        ),
        case(
            "nesting is capped",
            &entry(&format!(
                "  a = f32[] parameter(0)\n  ROOT r = {}a{}",
                "negate(".repeat(70),
                ")".repeat(70)
            )),
            Errors(&["nested instructions nest deeper than 64 levels"]),
        ),
        // -- module and computations -----------------------------------------
        case(
            "a module without a header is named after its entry",
            "ENTRY test {\n  ROOT root = f32[1,64,10,128]{1,0,2,3} parameter(0)\n}\n",
            Prints(&["HloModule module_test, entry_computation_layout={(f32[1,64,10,128]{3,2,1,0})->f32[1,64,10,128]{3,2,1,0}}"]),
        ),
        case(
            "without ENTRY the last computation is the entry, without ROOT the last instruction the root",
            "HloModule no_entry:\nc1 {\n  const1 = f32[1]{0} constant({12345})\n}\nc2 {\n  first = f32[1]{0} constant({1})\n  last = f32[1]{0} constant({67890})\n} // c2\n",
            Prints(&["ENTRY c2 {", "ROOT last = f32[1]{0} constant({67890})"]),
        ),
        case(
            "every module attribute XLA has, over several lines",
            "HloModule m, is_scheduled=true, replica_count=1, num_partitions=1, alias_passthrough_params=false,\n  frontend_attributes={attr_name=\"attr_value\", json={\"a\": [1, {\"b\": \"}\"}]}},\n  allow_spmd_sharding_propagation_to_parameters={true,false}, allow_spmd_sharding_propagation_to_output=true,\n  input_output_alias={ {0}: (0, {}, must-alias), {1}: (1, {}) }, buffer_donor={ (1, {}) },\n  entry_computation_layout={(f32[2]{0}, f32[2]{0}) -> (f32[2]{0}, f32[2]{0})}\n\nENTRY e (a: f32[2], b: f32[2]) -> (f32[2], f32[2]) {\n  a = f32[2]{0} parameter(0)\n  b = f32[2]{0} parameter(1)\n  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(a, b)\n}, execution_thread=\"main\"\n",
            Prints(&["ROOT t = (f32[2]{0}, f32[2]{0}) tuple(a, b)"]),
        ),
        case(
            "a non-default entry layout is honoured: oxla takes and gives values, not buffers",
            "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{0,1}}\n\nENTRY e {\n  p = f32[2,3]{0,1} parameter(0)\n  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n}\n",
            Prints(&["ROOT t = f32[3,2]{1,0} transpose(p), dimensions={1,0}"]),
        ),
        case(
            "unknown and repeated module attributes",
            "HloModule m, is_scheduled=true, foo=1\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n",
            Errors(&["1:33: unexpected attribute \"foo\" in the module header"]),
        ),
        case(
            "a repeated module attribute",
            "HloModule m, is_scheduled=true, is_scheduled=false\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n",
            Errors(&["attribute is_scheduled already exists"]),
        ),
        case(
            "several replicas are out of scope",
            "HloModule m, replica_count=5\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n",
            Errors(&["replica_count=5: a module for 5 replicas runs on several devices, which is out of scope"]),
        ),
        case(
            "several partitions are out of scope",
            "HloModule m, num_partitions=3\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n",
            Errors(&["num_partitions=3: a module for 3 partitions runs on several devices"]),
        ),
        case(
            "an entry layout that does not describe the entry",
            "HloModule m, entry_computation_layout={(f32[3]{0}, s32[])->f32[2]{0}}\n\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n",
            Errors(&["Number of parameters in entry computation layout (2) must be same as number of parameters of entry computation `e` (1)"]),
        ),
        case(
            "an entry layout with other shapes",
            "HloModule m, entry_computation_layout={(f32[3]{0})->s32[2]{0}}\n\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n",
            Errors(&[
                "the entry computation layout gives parameter 0 shape f32[3], but parameter 0 of `e` is f32[2]",
                "the entry computation layout gives the result shape s32[2], but the root of `e` has shape f32[2]",
            ]),
        ),
        case(
            "aliases must name what exists, with equal shapes",
            "HloModule m, input_output_alias={ {0}: (2, {}), {1}: (0, {0}), {3}: (0, {}), {1}: (0, {}, may-alias) }, buffer_donor={ (0, {1}) }\n\nENTRY e {\n  p = f32[2] parameter(0)\n  q = s32[] parameter(1)\n  ROOT t = (f32[2], s32[]) tuple(p, q)\n}\n",
            Errors(&[
                "the alias names parameter 2, but `e` has 2 parameter(s)",
                "shape index {0} does not exist in parameter 0 (f32[2])",
                "shape index {3} does not exist in the result",
                "output {1} (s32[]) is aliased with parameter 0 at {} (f32[2]), which has another shape",
                "shape index {1} does not exist in parameter 0",
            ]),
        ),
        case(
            "a malformed alias (XLA's AliasingWrongIndex)",
            "HloModule Module, input_output_alias={ {0 : (0, {0}), {1}: (0, {1}) }\n\nENTRY entry {\n  ROOT p = f32[] parameter(0)\n}\n",
            Errors(&["1:38: unterminated `{` in the value of attribute `input_output_alias`"]),
        ),
        case(
            "only execution_thread may follow a computation",
            &entry("  ROOT c = f32[] constant(1)").replace("}\n", "}, execution_thread=\"main\", color=\"red\"\n"),
            Errors(&["unexpected attribute \"color\" after computation `e`"]),
        ),
        // -- constants --------------------------------------------------------
        case(
            "one value for an array: XLA stores it at index 0, zeros elsewhere",
            &entry("  a = f32[3,2] constant(15)\n  b = pred[2] constant(true)\n  ROOT t = (f32[3,2], pred[2]) tuple(a, b)"),
            Prints(&[
                "a = f32[3,2]{1,0} constant({ { 15, 0 }, { 0, 0 }, { 0, 0 } })",
                "b = pred[2]{0} constant({true, false})",
            ]),
        ),
        case(
            "one value for an empty array",
            &entry("  ROOT a = f32[0] constant(15)"),
            Errors(&["tries to set value 15 to a literal in shape f32[0] at linear index 0"]),
        ),
        case(
            "one value for a large array: the same array, as a pad, allocating nothing",
            &entry("  ROOT a = f32[2,5000] constant(15)"),
            Prints(&[
                "a.value = f32[] constant(15)",
                "a.zero = f32[] constant(0)",
                "a.first = f32[1,1]{1,0} broadcast(a.value), dimensions={}",
                "ROOT a = f32[2,5000]{1,0} pad(a.first, a.zero), padding=0_1x0_4999",
            ]),
        ),
        case(
            "one value for a large array inside a tuple constant",
            &entry("  ROOT a = (f32[5000], s32[]) constant((15, 1))"),
            Errors(&["oxla expands that inside a tuple for at most 4096 elements"]),
        ),
        case(
            "tuple constants become tuples of constants (XLA's TupleConstant)",
            &entry(
                "  ROOT c = (f32[2,1]{1,0}, (f32[2]{0}, s32[]), ()) constant(( { {1}, {2} }, ({2, 42}, -3), () ))",
            ),
            Prints(&[
                "c.0 = f32[2,1]{1,0} constant({ { 1 }, { 2 } })",
                "c.1.0 = f32[2]{0} constant({2, 42})",
                "c.1.1 = s32[] constant(-3)",
                "c.1 = (f32[2]{0}, s32[]) tuple(c.1.0, c.1.1)",
                "c.2 = () tuple()",
                "ROOT c = (f32[2,1]{1,0}, (f32[2]{0}, s32[]), ()) tuple(c.0, c.1, c.2)",
            ]),
        ),
        case(
            "a tuple constant with too few elements",
            &entry("  ROOT c = (f32[], s32[2]) constant((1))"),
            Errors(&["expected `,` between the elements of the (f32[], s32[2]) literal, found `)`"]),
        ),
        case(
            "special float values",
            &entry("  ROOT c = f32[6] constant({nan, -nan, inf, -inf, -nan(0x7f), 1e-50})"),
            Prints(&["ROOT c = f32[6]{0} constant({nan, -nan, inf, -inf, -nan, 0})"]),
        ),
        case(
            "elided constants parse, verify and print back",
            &entry(
                "  a = f32[67,89]{1,0} constant({...})\n  b = (f32[], s32[2]) constant({ ... })\n  ROOT t = (f32[67,89], (f32[], s32[2])) tuple(a, b)",
            ),
            Prints(&[
                "a = f32[67,89]{1,0} constant({...})",
                "b.0 = f32[] constant({...})",
                "b.1 = s32[2]{0} constant({...})",
            ]),
        ),
        case(
            "`...` among values",
            &entry("  ROOT c = f32[3] constant({1, ...})"),
            Errors(&["`...` (elided values) must be a constant's only content"]),
        ),
        case(
            "f64 beyond its range (XLA's ConstantF64Overflow)",
            &entry("  a = f64[] constant(1.8e308)\n  ROOT b = f64[] constant(-1.8e308)"),
            Errors(&[
                "Constant 1.8e308 is out of range for double",
                "Constant -1.8e308 is out of range for double",
            ]),
        ),
        case(
            "f32 beyond its range",
            &entry("  ROOT c = f32[2] constant({3.4028235e38, 1e39})"),
            Errors(&["value 1e39 is out of range for literal's primitive type f32"]),
        ),
        case(
            "integers as XLA reads them: u64 wraps s64, pred takes any integer",
            &entry("  a = u64[] constant(-1)\n  b = pred[2] constant({2, 0})\n  ROOT t = (u64[], pred[2]) tuple(a, b)"),
            Prints(&["a = u64[] constant(18446744073709551615)", "b = pred[2]{0} constant({true, false})"]),
        ),
        case(
            "an unsigned value out of range (XLA's ConstantUnsignedOverflow)",
            &entry("  ROOT c = u32[] constant(4294967296)"),
            Errors(&["4294967296 is out of range for u32"]),
        ),
        // -- attributes ---------------------------------------------------------
        case(
            "attributes spanning lines (XLA's PipelinedSendRecv layout)",
            &entry(
                "  a = f32[2] parameter(0),\n    metadata={op_type=\"p\"\n      op_name=\"x\"},\n    frontend_attributes={\n      _xla_send_recv_pipeline=\"0\"\n    }\n  ROOT b = f32[2] negate(\n    f32[2] a\n  ), sharding={replicated},\n    backend_config={\"k\": [1,\n      2]}",
            ),
            Prints(&["ROOT b = f32[2]{0} negate(a)"]),
        ),
        case(
            "the attributes every instruction may carry",
            &entry(
                "  a = f32[2] parameter(0), parameter_replication={true}, sharding={{maximal device=1}}, origin={{\"a\"}}\n  b = f32[2] negate(a), statistics={visualizing_index=1,stat-1=33,stat-2=44}, frontend_attributes={attr_a=\"test_a\",attr_c={type=\"s64\"}}\n  ROOT c = f32[2] abs(b), control-predecessors={%a}, backend_config=\"foo\\\" bar\", metadata={op_type=\"const\" op_name=\"\\\"it\\'s\\n\" source_file=\"path/to/test.cc\" source_line=68, stack_frame_id=1, profile_type={1}, new_field=\"ok\"}",
            ),
            Prints(&["ROOT c = f32[2]{0} abs(b)"]),
        ),
        case(
            "malformed attributes without semantics are still errors",
            &entry(
                "  a = f32[2] parameter(0), sharding=replicated\n  b = f32[2] negate(a), metadata={source_line=\"x\"}\n  c = f32[2] negate(a), backend_config=foo\n  d = f32[2] negate(a), parameter_replication={true,false}\n  ROOT e = f32[2] abs(d), control-predecessors={zz}",
            ),
            Errors(&[
                "4:37: expected `{` opening the value of `sharding`, found `replicated`",
                "5:47: expected source_line, found `\"`",
                "6:40: expected the backend config (a quoted string), found `foo`",
                "7:47: parameter has 1 leaf buffers, but parameter_replication has 2 elements",
                "8:49: instruction 'zz' is not defined",
            ]),
        ),
        case(
            "an attribute the op does not take (XLA's UnexpectedAttribute)",
            &entry("  a = f32[2] parameter(0)\n  b = f32[2] negate(a), calls=%a\n  ROOT c = f32[2] add(a, b), result_accuracy={mode=default}"),
            Errors(&[
                "5:25: unexpected attribute \"calls\" on `negate`",
                "6:30: unexpected attribute \"result_accuracy\" on `add`",
            ]),
        ),
        case(
            "operand_precision: every precision is met by construction",
            &entry(
                "  a = f32[2,2] parameter(0)\n  b = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,DEFAULT}\n  ROOT c = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={}, algorithm=dot_f32_f32_f32",
            ),
            Prints(&["ROOT c = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"]),
        ),
        case(
            "operand_precision errors",
            &entry(
                "  a = f32[2,2] parameter(0)\n  b = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={packed_nibble,default}\n  ROOT c = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest}",
            ),
            Errors(&[
                "expects precision but sees: packed_nibble",
                "operand_precision lists 1 precision(s), but `dot` has 2 operand(s)",
            ]),
        ),
        case(
            "dot algorithms other than the one computed are refused",
            &entry(
                "  a = f32[2,2] parameter(0)\n  i = s32[2,2] parameter(1)\n  b = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=dot_bf16_bf16_f32\n  c = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=foo\n  d = s32[2,2] dot(i, i), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=dot_f32_f32_f32\n  ROOT e = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=UNSET",
            ),
            Errors(&[
                "algorithm=dot_bf16_bf16_f32 asks for another dot than the one computed: oxla computes a dot of f32 operands as dot_f32_f32_f32",
                "expects algorithm but sees: foo",
                "algorithm=dot_f32_f32_f32 asks for another dot than the one computed: oxla computes a dot of s32 operands in s32 arithmetic",
            ]),
        ),
        case(
            "comparison types: the default is honoured, TOTALORDER refused until it is",
            &entry(
                "  a = f32[2] parameter(0)\n  i = s32[2] parameter(1)\n  u = u8[2] parameter(2)\n  p = pred[2] compare(a, a), direction=LT, type=FLOAT\n  q = pred[2] compare(i, i), direction=LT, type=SIGNED\n  r = pred[2] compare(u, u), direction=LT, type=UNSIGNED\n  ROOT t = (pred[2], pred[2], pred[2]) tuple(p, q, r)",
            ),
            Prints(&["p = pred[2]{0} compare(a, a), direction=LT"]),
        ),
        case(
            "comparison type errors",
            &entry(
                "  a = f32[2] parameter(0)\n  i = s32[2] parameter(1)\n  p = pred[2] compare(i, i), direction=LT, type=TOTALORDER\n  q = pred[2] compare(i, i), direction=LT, type=UNSIGNED\n  ROOT r = pred[2] compare(a, a), direction=LT, type=PARTIALORDER",
            ),
            Errors(&[
                "6:49: invalid `compare` instruction `p`: Invalid compare: Expected comparison type SIGNED.",
                "7:49: invalid `compare` instruction `q`: Invalid compare: Expected comparison type SIGNED.",
                "8:54: expects comparison type but sees: PARTIALORDER",
            ]),
        ),
        case(
            "result_accuracy honoured: modes, and tolerances at least oxla's bound",
            &entry(
                "  x = f32[4] parameter(0)\n  a = f32[4] exponential(x), result_accuracy={mode=highest}\n  b = f32[4] exponential(a), result_accuracy={mode=DEFAULT}\n  c = f32[4] logistic(b), result_accuracy={tolerance={rtol=0.5, atol=1.0, ulps=4}}\n  ROOT d = f32[4] sqrt(c), result_accuracy={tolerance={}}",
            ),
            Prints(&["ROOT d = f32[4]{0} sqrt(c)"]),
        ),
        case(
            "result_accuracy as XLA validates it (its three invalid tests), and refused tolerances",
            &entry(
                "  x = f32[] parameter(0)\n  a = f32[] exponential(x), result_accuracy={mode=high}\n  b = f32[] exponential(x), result_accuracy={0.5}\n  c = f32[] exponential(x), result_accuracy={foo=10.0}\n  d = f32[] exponential(x), result_accuracy={mode=highest, tolerance={ulps=1}}\n  e = f32[] exponential(x), result_accuracy={tolerance={ulps=0}}\n  f = f32[] logistic(x), result_accuracy={tolerance={ulps=3, rtol=0.5}}\n  g = f32[] tanh(x), result_accuracy={tolerance={ulps=-1}}\n  ROOT h = f32[] negate(x), result_accuracy={mode=default}",
            ),
            Errors(&[
                "5:51: expects ResultAccuracy type but sees: high",
                "6:46: expects attribute name in result_accuracy",
                "7:46: invalid attribute name: foo",
                "8:58: expected `}` to end result_accuracy, found `,`",
                "9:45: result_accuracy asks `e` for 0 ulp(s), but oxla guarantees 1 ulp(s)",
                "10:42: result_accuracy asks `f` for 3 ulp(s), but oxla guarantees 4 ulp(s)",
                "11:38: result_accuracy tolerances must be non-negative numbers",
                "12:29: unexpected attribute \"result_accuracy\" on `negate`",
            ]),
        ),
        case(
            "fusion kinds",
            "HloModule m\n\nf {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\n\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] fusion(a), kind=kFoo, calls=f\n  ROOT c = f32[2] fusion(a), calls=f\n}\n",
            Errors(&[
                "10:30: expects fusion kind but sees: kFoo",
                "11:19: `fusion` needs the attribute `kind`",
            ]),
        ),
        case(
            "attributes with no effect on static shapes",
            "HloModule m\n\nf {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\n\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] fusion(a), kind=kCustom, calls=f, output_to_operand_aliasing={{}: (0, {})}\n  c = f32[2] call(b), to_apply=f, is_composite=true\n  ROOT r = f32[1,2] reshape(c), inferred_dimension=0\n}\n",
            Prints(&["ROOT r = f32[1,2]{1,0} reshape(c)"]),
        ),
        // -- layouts ------------------------------------------------------------
        case(
            "valid layouts, physical parts included",
            &entry(
                "  a = f32[2,3]{0,1} parameter(0)\n  b = f32[2,3]{1,0:T(8,128)(2,1)L(2)#(u32)*(u64)E(32)S(1)SC(0:10)(1:4,5)M(1024)} parameter(1)\n  c = u32[]{:T(128)} parameter(2)\n  d = f32[ 1, 2]{0, 1 } parameter(3)\n  e = f32[4]{0:D(D)T(2, * ,128)} parameter(4)\n  ROOT t = (f32[2,3], f32[2,3], u32[], f32[1,2], f32[4]) tuple(a, b, c, d, e)",
            ),
            Prints(&["a = f32[2,3]{1,0} parameter(0)", "d = f32[1,2]{1,0} parameter(3)"]),
        ),
        case(
            "invalid layouts (XLA's InvalidDimLevelType and RejectDensePhysicalShape)",
            &entry(
                "  a = f32[10,10]{1,0:D(X,C)} parameter(0)\n  b = f32[10,10]{1,0:T(128,8)P(f32[10,10])} parameter(1)\n  c = f32[2,3]{1} parameter(2)\n  d = f32[2,3]{1,1} parameter(3)\n  e = f32[2,3]{2,0} parameter(4)\n  f = f32[4]{0:D(C)} parameter(5)\n  g = f32[4]{0:#(s32)} parameter(6)\n  ROOT h = f32[4]{0:E(4)T(2)} parameter(7)",
            ),
            Errors(&[
                "4:24: expected a DimLevelType abbreviation (D, C, or S), found `X`",
                "5:30: Layout has physical shape, but is not for a sparse array",
                "6:15: Dimensions size is 2, but minor to major size is 1.",
                "7:15: layout {1,1} of f32[2,3] has a duplicate value (1)",
                "8:15: layout {2,0} of f32[2,3] has an out-of-bounds value (2)",
                "9:18: sparse layouts (dimension level type `C`) are not supported",
                "10:18: expecting an unsigned integer type for the index type, found `s32`",
                "11:25: expected `}` closing the layout, found `T`",
            ]),
        ),
        // -- out of scope -------------------------------------------------------
        case(
            "dynamic shapes are out of scope",
            &entry("  a = f32[<=3] parameter(0)\n  ROOT b = f32[?,2] parameter(1)"),
            Errors(&[
                "4:11: dynamic dimensions (`<=3`) are out of scope for oxla, a single-device engine for static shapes",
                "5:16: dynamic dimensions (`?`) are out of scope",
            ]),
        ),
        case(
            "multi-device and asynchronous ops are out of scope; missing ops are unsupported",
            &entry(
                "  a = f32[8] parameter(0)\n  b = f32[8] all-reduce(a), replica_groups={}, to_apply=add\n  c = u32[] replica-id()\n  d = f32[8] add-start(a, a)\n  e = (f32[8], f32[]) infeed(a)\n  f = f32[8] scaled-dot(a, a)\n  g = f32[8] frobnicate(a)\n  ROOT h = f32[8] negate(b)",
            ),
            Errors(&[
                "5:14: `all-reduce` is a multi-device collective: out of scope for oxla",
                "6:13: `replica-id` is a multi-device op (the replica id): out of scope",
                "7:14: `add-start` is the asynchronous form of `add`: out of scope",
                "8:23: `infeed` is a host transfer: out of scope",
                "9:14: unsupported op `scaled-dot`: oxla's IR has no such op",
                "10:14: unknown opcode `frobnicate`",
            ]),
        ),
        // -- every error of a module --------------------------------------------
        case(
            "syntax errors are recovered from and semantic ones found after them",
            &entry(
                "  a = f32[2] parameter(0)\n  b = f32[2] scaled-dot(a, a)\n  c = f32[2] negate(b)\n  d = f32[3] negate(a)\n  e = f32[2] dynamic-reshape(a), dimensions={0},\n    to_apply=lt,\n    metadata={op_name=\"x\"}\n  f = f32[2] add(a, zz)\n  g = f32[2] shuffle(a)\n  ROOT r = f32[2] negate(a)",
            ),
            Errors(&[
                "5:14: unsupported op `scaled-dot`",
                "7:7: `d` declares shape f32[3] but its operands give f32[2]",
                "8:14: unsupported op `dynamic-reshape`",
                "11:21: undefined operand `zz`",
                "12:14: unsupported op `shuffle`",
            ]),
        ),
    ]
}

/// Every case of [`cases`] gives its outcome.
#[test]
fn hlo_text_cases() {
    let mut failures = Vec::new();
    for c in cases() {
        let outcome = parse_hlo_module_diagnostics(&c.text);
        let problem = match (&c.expect, outcome) {
            (Prints(lines), Ok(comp)) => {
                let printed = comp.to_hlo_text();
                let again = parse_hlo_module(&printed).map(|p| p.to_hlo_text());
                let missing: Vec<&&str> = lines
                    .iter()
                    .filter(|l| !printed.lines().any(|p| p.trim() == l.trim()))
                    .collect();
                if again.as_ref() != Ok(&printed) {
                    Some(format!(
                        "its print does not parse back the same:\n{printed}"
                    ))
                } else if !missing.is_empty() {
                    Some(format!("the print lacks {missing:?}:\n{printed}"))
                } else {
                    None
                }
            }
            (Prints(_), Err(errors)) => Some(format!(
                "should parse, but:\n{}",
                errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )),
            (Errors(want), Ok(comp)) => {
                Some(format!("should fail with {want:?}, but parsed:\n{comp}"))
            }
            (Errors(want), Err(errors)) => {
                let got: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                let matches = got.len() == want.len()
                    && got.iter().zip(want.iter()).all(|(g, w)| g.contains(w));
                (!matches).then(|| format!("want {want:?}, got:\n{}", got.join("\n---\n")))
            }
        };
        if let Some(p) = problem {
            failures.push(format!("=== {}\n{p}", c.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// An elided constant verifies and prints, and every backend entry point
/// refuses to read its values.
#[test]
fn elided_constants_check_but_never_run() {
    let text = entry("  ROOT c = f32[1000000000000] constant({...})");
    let comp = parse_hlo_module(&text).unwrap();
    assert_eq!(comp.result_shape().to_string(), "f32[1000000000000]");
    let err = comp.check_values_known().unwrap_err();
    assert_eq!(err.code(), "OX0601");
    assert!(
        err.to_string().starts_with(
            "Evaluation failed at `c`: the values of this f32[1000000000000] constant were elided"
        ),
        "{err}"
    );
    let OpKind::Constant { literal } = &comp.entry().instructions[0].kind else {
        panic!("expected a constant");
    };
    assert!(literal.is_elided() && literal.array_data().is_none());
    assert!(literal.as_slice::<f32>().is_err());
    assert!(literal.reshape(&[1000000, 1000000]).is_err());
    // A module with every value known passes.
    let full = parse_hlo_module(&entry("  ROOT c = f32[2] constant({1, 2})")).unwrap();
    assert!(full.check_values_known().is_ok());
}
