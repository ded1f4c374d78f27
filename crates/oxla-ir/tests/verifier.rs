//! The verifier on broken computations that HLO text cannot describe.
//!
//! Most verifier cases are `.hlo` files (`tests/hlo/verifier/`, run by
//! `cargo test -p oxla --test hlo`; see `docs/testing.md`): the unverified
//! parser reads a broken module and the verifier's problems are matched by
//! message and instruction. What stays here is assembled by hand with
//! `Computation::from_bodies_unverified`, because the parser itself refuses
//! it before the verifier could (it resolves operands by name and sorts
//! them into definition order, checks names, called computations and
//! shapes as it reads), or because it is about the Rust API (a broken
//! computation handed to `Builder::reduce`, `expand_broadcasts` on an
//! unverified computation). Each report is snapshotted whole, so a reader
//! sees how problems are rendered and located.

use oxla_ir::ElementType::{F32, S32};
use oxla_ir::ir::{BinaryOp, Body, ComputationId, InstId, Instruction, OpKind, UnaryOp};
use oxla_ir::passes::expand_broadcasts;
use oxla_ir::{Builder, Computation, ElementType, Error, Literal, Shape, verifier};

fn shape(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::new(ty, dims)
}

fn inst(name: &str, kind: OpKind, operands: &[u32], shape: Shape) -> Instruction {
    Instruction {
        name: name.into(),
        kind,
        operands: operands.iter().map(|&o| InstId(o)).collect(),
        shape,
    }
}

fn param(name: &str, number: i64, shape: Shape) -> Instruction {
    inst(name, OpKind::Parameter { number }, &[], shape)
}

fn add(broadcast_dimensions: &[i64]) -> OpKind {
    OpKind::Binary {
        op: BinaryOp::Add,
        broadcast_dimensions: broadcast_dimensions.to_vec(),
    }
}

fn body(name: &str, instructions: Vec<Instruction>, root: u32) -> Body {
    Body {
        name: name.into(),
        instructions,
        root: InstId(root),
    }
}

/// A computation of one entry body, unverified.
fn entry(instructions: Vec<Instruction>, root: u32) -> Computation {
    Computation::from_bodies_unverified("broken", vec![body("broken", instructions, root)])
}

/// The scalar reducer `(f32[], f32[]) -> f32[]`.
fn sum_body(name: &str) -> Body {
    body(
        name,
        vec![
            param("a", 0, shape(F32, &[])),
            param("b", 1, shape(F32, &[])),
            inst("s", add(&[]), &[0, 1], shape(F32, &[])),
        ],
        2,
    )
}

/// The verifier's report for `comp`, which must not verify; also checks that
/// the error carries one problem per expected instruction, in order.
fn report(comp: &Computation, located_at: &[&str]) -> String {
    let err = verifier::verify(comp).expect_err("the computation must not verify");
    check_located(&err, located_at);
    err.to_string()
}

fn check_located(err: &Error, located_at: &[&str]) {
    let Error::Verification { problems, .. } = err else {
        panic!("expected Error::Verification, got {err:?}");
    };
    let at: Vec<&str> = problems.iter().map(|p| p.instruction.as_str()).collect();
    assert_eq!(at, located_at, "{err}");
}

#[test]
fn operand_referencing_a_later_instruction() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            inst("n", OpKind::Unary(UnaryOp::Neg), &[2], shape(F32, &[2])),
            inst("e", OpKind::Unary(UnaryOp::Exp), &[2], shape(F32, &[2])),
        ],
        2,
    );
    insta::assert_snapshot!(
        "operand_referencing_a_later_instruction",
        report(&comp, &["n", "e"])
    );
}

#[test]
fn operand_that_does_not_exist() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            inst("n", OpKind::Unary(UnaryOp::Neg), &[7], shape(F32, &[2])),
        ],
        1,
    );
    insta::assert_snapshot!("operand_that_does_not_exist", report(&comp, &["n"]));
}

/// A shape the text format cannot even write (the parser validates shapes
/// as it reads them).
#[test]
fn invalid_parameter_shape() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            param("y", 1, shape(F32, &[2, -3])),
        ],
        0,
    );
    insta::assert_snapshot!("invalid_parameter_shape", report(&comp, &["y"]));
}

#[test]
fn duplicate_instruction_names() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            inst("x", OpKind::Unary(UnaryOp::Neg), &[0], shape(F32, &[2])),
        ],
        1,
    );
    insta::assert_snapshot!("duplicate_instruction_names", report(&comp, &["x"]));
}

#[test]
fn duplicate_body_names() {
    let entry_body = body(
        "sum",
        vec![
            param("x", 0, shape(F32, &[2])),
            inst("n", OpKind::Unary(UnaryOp::Neg), &[0], shape(F32, &[2])),
        ],
        1,
    );
    let comp = Computation::from_bodies_unverified("dup", vec![sum_body("sum"), entry_body]);
    insta::assert_snapshot!("duplicate_body_names", report(&comp, &["<body>"]));
}

fn reduce_of(to_apply: u32) -> Body {
    body(
        "entry",
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            inst(
                "zero",
                OpKind::Constant {
                    literal: Literal::scalar(0f32),
                },
                &[],
                shape(F32, &[]),
            ),
            inst(
                "r",
                OpKind::Reduce {
                    dimensions: vec![1],
                    to_apply: ComputationId(to_apply),
                },
                &[0, 1],
                shape(F32, &[2]),
            ),
        ],
        2,
    )
}

#[test]
fn reduce_referring_to_a_body_that_does_not_exist() {
    let comp = Computation::from_bodies_unverified("missing", vec![sum_body("sum"), reduce_of(5)]);
    insta::assert_snapshot!(
        "reduce_referring_to_a_body_that_does_not_exist",
        report(&comp, &["r"])
    );
}

#[test]
fn reduce_referring_to_its_own_body() {
    // The entry is body #1; a body may only call bodies before it.
    let comp =
        Computation::from_bodies_unverified("recursive", vec![sum_body("sum"), reduce_of(1)]);
    insta::assert_snapshot!("reduce_referring_to_its_own_body", report(&comp, &["r"]));
}

#[test]
fn root_out_of_range_and_empty_bodies() {
    let comp = entry(vec![param("x", 0, shape(F32, &[2]))], 3);
    insta::assert_snapshot!("root_out_of_range", report(&comp, &["<root>"]));
    let comp = entry(vec![], 0);
    insta::assert_snapshot!("empty_body", report(&comp, &["<root>"]));
    let comp = Computation::from_bodies_unverified("nothing", vec![]);
    insta::assert_snapshot!("no_bodies", report(&comp, &["<none>"]));
}

/// How a report of several problems reads (help lines under their
/// message), with the two problems text cannot make: an operand defined
/// later and a duplicate name.
#[test]
fn several_problems_are_all_reported_in_order() {
    let reducer = body(
        "sum",
        vec![
            param("a", 0, shape(F32, &[])),
            param("b", 1, shape(F32, &[])),
            // Wrong declared shape inside a called body.
            inst("s", add(&[]), &[0, 1], shape(F32, &[1])),
        ],
        2,
    );
    let main = body(
        "main",
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("v", 3, shape(S32, &[3])),
            // Element types differ.
            inst("sum", add(&[1]), &[0, 1], shape(F32, &[2, 3])),
            // Refers to a later instruction.
            inst("n", OpKind::Unary(UnaryOp::Neg), &[4], shape(F32, &[2, 3])),
            // Duplicate name; pred operand for a select's branch type clash.
            inst("sum", OpKind::Select, &[0, 0, 0], shape(F32, &[2, 3])),
        ],
        4,
    );
    let comp = Computation::from_bodies_unverified("many", vec![reducer, main]);
    let text = report(&comp, &["s", "sum", "n", "sum", "sum", "v"]);
    insta::assert_snapshot!("several_problems_are_all_reported_in_order", text);
    // `from_bodies` refuses the same bodies with the same report.
    let err = Computation::from_bodies("many", comp.bodies().to_vec()).unwrap_err();
    assert_eq!(err.to_string(), text);
}

// ---------------------------------------------------------------------------
// Passes on unverified computations
// ---------------------------------------------------------------------------

/// `expand_broadcasts` drops an identity `broadcast_dimensions` on equal
/// ranks. Only an unverified computation can hold one (the builder and the
/// verified parser keep the canonical empty list); that the strict verifier
/// refuses it is `tests/hlo/verifier/strict_hlo.hlo`.
#[test]
fn expand_broadcasts_drops_an_identity_list() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("y", 1, shape(F32, &[2, 3])),
            inst("sum", add(&[0, 1]), &[0, 1], shape(F32, &[2, 3])),
        ],
        2,
    );
    verifier::verify(&comp).unwrap();
    let strict = expand_broadcasts(&comp).unwrap();
    assert!(
        strict
            .to_hlo_text()
            .contains("sum = f32[2,3]{1,0} add(x, y)\n")
    );
    verifier::verify_strict_hlo(&strict).unwrap();
}

#[test]
fn unverified_computations_print_and_are_refused_as_reducers() {
    let empty = Computation::from_bodies_unverified("empty", vec![]);
    assert_eq!(empty.to_string(), "HloModule empty\n");
    let rootless = entry(vec![param("x", 0, shape(F32, &[2]))], 7);
    let text = rootless.to_string();
    assert!(
        text.starts_with("HloModule broken, entry_computation_layout={(f32[2]{0})-><no root>}"),
        "{text}"
    );
    assert!(text.contains("x = f32[2]{0} parameter(0)"), "{text}");

    // Builder::reduce reads its reducer: a broken one is an error.
    let mut b = Builder::new("r");
    let x = b.parameter(0, shape(F32, &[3]), "x").unwrap();
    let zero = b.constant_scalar(0f32).unwrap();
    for bad in [&empty, &rootless] {
        let err = b.reduce(x, zero, &[0], bad).unwrap_err();
        assert!(matches!(err, Error::Verification { .. }), "{err}");
    }
}
