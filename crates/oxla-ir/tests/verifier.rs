//! The verifier on broken computations: each is assembled by hand with
//! `Computation::from_bodies_unverified` (the builder cannot produce them),
//! and the whole report is snapshotted, so a reader sees every problem found
//! and where it was located.

use oxla_ir::ElementType::{F32, Pred, S32};
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

/// Like [`report`], for the strict verifier.
fn strict_report(comp: &Computation, located_at: &[&str]) -> String {
    let err = verifier::verify_strict_hlo(comp).expect_err("the computation must not verify");
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
fn a_valid_computation_verifies() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("v", 1, shape(F32, &[3])),
            inst("sum", add(&[1]), &[0, 1], shape(F32, &[2, 3])),
        ],
        2,
    );
    verifier::verify(&comp).unwrap();
    assert!(Computation::from_bodies("ok", comp.bodies().to_vec()).is_ok());
}

#[test]
fn wrong_declared_shape_of_an_add() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("v", 1, shape(F32, &[3])),
            inst("sum", add(&[1]), &[0, 1], shape(F32, &[3, 2])),
        ],
        2,
    );
    insta::assert_snapshot!("wrong_declared_shape_of_an_add", report(&comp, &["sum"]));
}

#[test]
fn wrong_declared_element_type_of_a_compare() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            param("y", 1, shape(F32, &[2])),
            inst(
                "lt",
                OpKind::Binary {
                    op: BinaryOp::Compare(oxla_ir::ComparisonDirection::Lt),
                    broadcast_dimensions: vec![],
                },
                &[0, 1],
                shape(F32, &[2]),
            ),
        ],
        2,
    );
    insta::assert_snapshot!(
        "wrong_declared_element_type_of_a_compare",
        report(&comp, &["lt"])
    );
}

#[test]
fn shape_inference_errors_are_located_at_the_instruction() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("v", 1, shape(F32, &[3])),
            inst("sum", add(&[0]), &[0, 1], shape(F32, &[2, 3])),
        ],
        2,
    );
    insta::assert_snapshot!(
        "shape_inference_errors_are_located_at_the_instruction",
        report(&comp, &["sum"])
    );
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

#[test]
fn wrong_operand_count() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            inst("sum", add(&[]), &[0], shape(F32, &[2])),
            inst(
                "b",
                OpKind::Broadcast { dimensions: vec![] },
                &[],
                shape(F32, &[2]),
            ),
        ],
        1,
    );
    insta::assert_snapshot!("wrong_operand_count", report(&comp, &["sum", "b"]));
}

#[test]
fn duplicate_parameter_number() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            param("y", 0, shape(F32, &[2])),
            inst("sum", add(&[]), &[0, 1], shape(F32, &[2])),
        ],
        2,
    );
    insta::assert_snapshot!("duplicate_parameter_number", report(&comp, &["y"]));
}

#[test]
fn gap_in_parameter_numbering() {
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            param("y", 2, shape(F32, &[2])),
            inst("sum", add(&[]), &[0, 1], shape(F32, &[2])),
        ],
        2,
    );
    insta::assert_snapshot!("gap_in_parameter_numbering", report(&comp, &["y"]));
}

#[test]
fn negative_parameter_number_and_invalid_parameter_shape() {
    let comp = entry(
        vec![
            param("x", -1, shape(F32, &[2])),
            param("y", 0, shape(F32, &[2, -3])),
        ],
        0,
    );
    insta::assert_snapshot!(
        "negative_parameter_number_and_invalid_parameter_shape",
        report(&comp, &["y", "x"])
    );
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
fn reduce_with_a_valid_reducer_verifies() {
    let comp = Computation::from_bodies_unverified("ok", vec![sum_body("sum"), reduce_of(0)]);
    verifier::verify(&comp).unwrap();
}

#[test]
fn reduce_whose_reducer_has_the_wrong_signature() {
    let bad = body(
        "bad_sum",
        vec![
            param("a", 0, shape(F32, &[])),
            param("b", 1, shape(S32, &[])),
            param("c", 2, shape(F32, &[])),
            inst("s", add(&[]), &[0, 2], shape(F32, &[])),
        ],
        3,
    );
    let comp = Computation::from_bodies_unverified("bad_reducer", vec![bad, reduce_of(0)]);
    insta::assert_snapshot!(
        "reduce_whose_reducer_has_the_wrong_signature",
        report(&comp, &["r"])
    );
}

#[test]
fn reduce_whose_reducer_returns_an_array() {
    let bad = body(
        "vec_sum",
        vec![
            param("a", 0, shape(F32, &[])),
            param("b", 1, shape(F32, &[])),
            inst("s", add(&[]), &[0, 1], shape(F32, &[])),
            inst(
                "w",
                OpKind::Broadcast { dimensions: vec![] },
                &[2],
                shape(F32, &[2]),
            ),
        ],
        3,
    );
    let comp = Computation::from_bodies_unverified("bad_reducer", vec![bad, reduce_of(0)]);
    insta::assert_snapshot!(
        "reduce_whose_reducer_returns_an_array",
        report(&comp, &["r"])
    );
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
fn called_body_returning_a_tuple() {
    let tuple_body = body(
        "pair",
        vec![
            param("a", 0, shape(F32, &[])),
            param("b", 1, shape(F32, &[])),
            inst(
                "t",
                OpKind::Tuple,
                &[0, 1],
                Shape::tuple(vec![shape(F32, &[]), shape(F32, &[])]),
            ),
        ],
        2,
    );
    // What a called body returns is its caller's business: uncalled, or as
    // a loop body, a tuple is fine; as the reducer of one input it is not.
    let comp = Computation::from_bodies_unverified(
        "tuple_callee",
        vec![tuple_body.clone(), sum_body("sum")],
    );
    verifier::verify(&comp).unwrap();
    let comp = Computation::from_bodies_unverified("tuple_callee", vec![tuple_body, reduce_of(0)]);
    insta::assert_snapshot!("called_body_returning_a_tuple", report(&comp, &["r"]));
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
// The strict HLO form
// ---------------------------------------------------------------------------

/// A builder computation with every kind of implicit broadcast oxla allows.
fn implicit_broadcasts() -> Computation {
    let mut b = Builder::new("implicit");
    let x = b.parameter(0, shape(F32, &[2, 3]), "x").unwrap();
    let v = b.parameter(1, shape(F32, &[3]), "v").unwrap();
    let c = b.parameter(2, shape(F32, &[2, 1]), "c").unwrap();
    let p = b.parameter(3, shape(Pred, &[]), "p").unwrap();
    let s = b.parameter(4, shape(F32, &[1, 3]), "s").unwrap();
    let xv = b.add(x, v, &[1]).unwrap();
    let xc = b.mul(xv, c, &[]).unwrap();
    let sel = b.select(p, xc, x).unwrap();
    let wide = b.broadcast_in_dim(s, &[2, 3], &[0, 1]).unwrap();
    let sum = b.add(sel, wide, &[]).unwrap();
    b.build(sum).unwrap()
}

#[test]
fn strict_hlo_rejects_implicit_broadcasting() {
    let comp = implicit_broadcasts();
    verifier::verify(&comp).unwrap();
    let text = strict_report(&comp, &["add.5", "multiply.6", "select.7", "broadcast.8"]);
    insta::assert_snapshot!("strict_hlo_rejects_implicit_broadcasting", text);
}

#[test]
fn strict_hlo_accepts_the_expand_broadcasts_output() {
    let comp = implicit_broadcasts();
    let strict = expand_broadcasts(&comp).unwrap();
    verifier::verify(&strict).unwrap();
    verifier::verify_strict_hlo(&strict).unwrap();
}

#[test]
fn strict_hlo_rejects_identity_broadcast_dimensions_on_equal_ranks() {
    // Equal ranks with the identity list infer fine (XLA accepts it in the
    // builder) but HLO binary ops carry no such attribute.
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("y", 1, shape(F32, &[2, 3])),
            inst("sum", add(&[0, 1]), &[0, 1], shape(F32, &[2, 3])),
        ],
        2,
    );
    verifier::verify(&comp).unwrap();
    insta::assert_snapshot!(
        "strict_hlo_rejects_identity_broadcast_dimensions_on_equal_ranks",
        strict_report(&comp, &["sum"])
    );
    // The pass drops the list.
    let strict = expand_broadcasts(&comp).unwrap();
    assert!(
        strict
            .to_hlo_text()
            .contains("sum = f32[2,3]{1,0} add(x, y)\n")
    );
}

#[test]
fn strict_hlo_accepts_scalar_clamp_bounds() {
    // HLO's clamp still takes scalar min/max; only the operand must have the
    // result's dims.
    let comp = entry(
        vec![
            param("lo", 0, shape(F32, &[])),
            param("x", 1, shape(F32, &[2])),
            param("hi", 2, shape(F32, &[])),
            inst("c", OpKind::Clamp, &[0, 1, 2], shape(F32, &[2])),
        ],
        3,
    );
    verifier::verify_strict_hlo(&comp).unwrap();
}

#[test]
fn strict_hlo_on_malformed_broadcasts_reports_without_panicking() {
    // Shape inference reports these; the strict check must not index past
    // the operand list or the operand's dims.
    let comp = entry(
        vec![
            param("x", 0, shape(F32, &[2])),
            inst(
                "none",
                OpKind::Broadcast {
                    dimensions: vec![0],
                },
                &[],
                shape(F32, &[2]),
            ),
            inst(
                "long",
                OpKind::Broadcast {
                    dimensions: vec![0, 1],
                },
                &[0],
                shape(F32, &[2, 3]),
            ),
            inst(
                "negative",
                OpKind::Broadcast {
                    dimensions: vec![-1],
                },
                &[0],
                shape(F32, &[2, 3]),
            ),
        ],
        0,
    );
    insta::assert_snapshot!(
        "strict_hlo_on_malformed_broadcasts_reports_without_panicking",
        strict_report(&comp, &["none", "long", "negative"])
    );
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
