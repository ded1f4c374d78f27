//! `expand_broadcasts` on every broadcasting pattern of XLA's builder: the
//! printed HLO before and after the pass is snapshotted, and every output is
//! checked for the strict HLO form by the verifier and, independently, by
//! [`check_strict_form`] here, and for idempotence.

use oxla_ir::ElementType::{F32, Pred, S32};
use oxla_ir::ir::{BinaryOp, Body, InstId, Instruction, OpKind};
use oxla_ir::passes::{expand_broadcasts, expand_broadcasts::PASS_NAME};
use oxla_ir::{Builder, Computation, ElementType, Error, Shape, verifier};

fn shape(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::new(ty, dims)
}

/// Builds `lhs op rhs` with `broadcast_dimensions`.
fn binary(
    name: &str,
    op: BinaryOp,
    lhs: Shape,
    rhs: Shape,
    broadcast_dimensions: &[i64],
) -> Computation {
    let mut b = Builder::new(name);
    let x = b.parameter(0, lhs, "x").unwrap();
    let y = b.parameter(1, rhs, "y").unwrap();
    let r = b.binary(x, y, op, broadcast_dimensions).unwrap();
    b.build(r).unwrap()
}

fn add(lhs: &[i64], rhs: &[i64], broadcast_dimensions: &[i64]) -> Computation {
    binary(
        "add",
        BinaryOp::Add,
        shape(F32, lhs),
        shape(F32, rhs),
        broadcast_dimensions,
    )
}

/// Runs the pass, checks its output, and returns the before/after text for
/// a snapshot.
fn check(comp: &Computation) -> String {
    let before = comp.to_hlo_text();
    let after = expand_broadcasts(comp).unwrap();
    verifier::verify(&after).unwrap();
    verifier::verify_strict_hlo(&after).unwrap();
    check_strict_form(&after);
    // Same signature, same root name.
    assert_eq!(after.parameter_shapes(), comp.parameter_shapes());
    assert_eq!(after.parameter_names(), comp.parameter_names());
    assert_eq!(after.result_shape(), comp.result_shape());
    assert_eq!(
        after.entry().root_inst().name,
        comp.entry().root_inst().name
    );
    // Idempotent.
    let again = expand_broadcasts(&after).unwrap();
    assert_eq!(again.to_hlo_text(), after.to_hlo_text());
    assert_eq!(again, after);
    format!("before:\n{before}\nafter:\n{}", after.to_hlo_text())
}

/// The strict form, checked without the verifier: no binary op carries
/// `broadcast_dimensions`, elementwise operands have the result's dims, and
/// broadcasts map sizes exactly.
fn check_strict_form(comp: &Computation) {
    for body in comp.bodies() {
        for inst in &body.instructions {
            let operands: Vec<&Shape> =
                inst.operands.iter().map(|&o| &body.inst(o).shape).collect();
            let same_dims = |o: &&Shape| o.dims() == inst.shape.dims();
            match &inst.kind {
                OpKind::Binary {
                    broadcast_dimensions,
                    ..
                } => {
                    assert!(broadcast_dimensions.is_empty(), "{}", inst.name);
                    assert!(operands.iter().all(same_dims), "{}", inst.name);
                }
                OpKind::Unary(_) | OpKind::Convert | OpKind::Select | OpKind::Clamp => {
                    assert!(operands.iter().all(same_dims), "{}", inst.name);
                }
                OpKind::Broadcast { dimensions } => {
                    assert_eq!(dimensions.len(), operands[0].rank(), "{}", inst.name);
                    for (i, &d) in dimensions.iter().enumerate() {
                        assert_eq!(
                            operands[0].dims()[i],
                            inst.shape.dims()[d as usize],
                            "{}",
                            inst.name
                        );
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn matrix_plus_vector_along_dimension_1() {
    insta::assert_snapshot!(check(&add(&[2, 3], &[3], &[1])));
}

#[test]
fn matrix_plus_vector_along_dimension_0() {
    insta::assert_snapshot!(check(&add(&[2, 3], &[2], &[0])));
}

#[test]
fn vector_plus_matrix_lower_rank_on_the_left() {
    insta::assert_snapshot!(check(&add(&[3], &[2, 3], &[1])));
}

#[test]
fn cube_plus_matrix() {
    insta::assert_snapshot!(check(&add(&[2, 3, 4], &[3, 4], &[1, 2])));
}

#[test]
fn degenerate_column_plus_matrix() {
    insta::assert_snapshot!(check(&add(&[2, 1], &[2, 3], &[])));
}

#[test]
fn degenerate_leading_dimension() {
    insta::assert_snapshot!(check(&add(&[1, 2, 5], &[7, 2, 5], &[])));
}

#[test]
fn degenerate_middle_dimension() {
    insta::assert_snapshot!(check(&add(&[7, 2, 5], &[7, 1, 5], &[])));
}

#[test]
fn outer_column_plus_row() {
    insta::assert_snapshot!(check(&add(&[2, 1], &[1, 3], &[])));
}

#[test]
fn in_dim_then_degenerate_vector_plus_row() {
    // f32[4] + f32[1,2] {0} -> f32[4,2].
    insta::assert_snapshot!(check(&add(&[4], &[1, 2], &[0])));
}

#[test]
fn in_dim_then_degenerate_row_plus_cube() {
    // f32[1,2] + f32[4,3,1] {1,2} -> InDim f32[4,1,2] -> f32[4,3,2].
    insta::assert_snapshot!(check(&add(&[1, 2], &[4, 3, 1], &[1, 2])));
}

#[test]
fn xla_a4_in_dimension_and_degenerate_broadcasting() {
    // BroadcastSimpleTest.InDimensionAndDegenerateBroadcasting, exactly as
    // XLA's builder lowers it (xla-rules.md A4).
    let comp = add(&[1, 2], &[2, 3, 1], &[1, 2]);
    let text = check(&comp);
    let after = expand_broadcasts(&comp).unwrap();
    let lines: Vec<String> = after
        .entry()
        .instructions
        .iter()
        .map(|i| {
            let operands: Vec<&str> = i
                .operands
                .iter()
                .map(|&o| after.entry().inst(o).name.as_str())
                .collect();
            format!(
                "{} {} {:?} {:?}",
                i.kind.opcode_name(),
                i.shape,
                operands,
                i.kind
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            "parameter f32[1,2] [] Parameter { number: 0 }",
            "parameter f32[2,3,1] [] Parameter { number: 1 }",
            "broadcast f32[2,1,2] [\"x\"] Broadcast { dimensions: [1, 2] }",
            "reshape f32[2,2] [\"broadcast.3\"] Reshape",
            "broadcast f32[2,3,2] [\"reshape.4\"] Broadcast { dimensions: [0, 2] }",
            "reshape f32[2,3] [\"y\"] Reshape",
            "broadcast f32[2,3,2] [\"reshape.6\"] Broadcast { dimensions: [0, 1] }",
            "add f32[2,3,2] [\"broadcast.5\", \"broadcast.7\"] Binary { op: Add, broadcast_dimensions: [] }",
        ]
    );
    insta::assert_snapshot!(text);
}

#[test]
fn xla_structure_equal_rank_degenerate() {
    // XLA: Add(f32[1,2,3], f32[1,2,1]) -> add(param0, broadcast(reshape(param1))).
    insta::assert_snapshot!(check(&add(&[1, 2, 3], &[1, 2, 1], &[])));
}

#[test]
fn xla_structure_in_dim_and_degenerate() {
    // XLA: Add(f32[2,3], f32[2,1,4], {0,1}) ->
    // add(broadcast(param0), broadcast(reshape(param1))).
    insta::assert_snapshot!(check(&add(&[2, 3], &[2, 1, 4], &[0, 1])));
}

#[test]
fn scalar_plus_matrix() {
    insta::assert_snapshot!(check(&add(&[], &[2, 3], &[])));
}

#[test]
fn matrix_times_scalar_integer() {
    insta::assert_snapshot!(check(&binary(
        "mul",
        BinaryOp::Mul,
        shape(S32, &[2, 3]),
        shape(S32, &[]),
        &[]
    )));
}

#[test]
fn size_1_stretches_to_size_0() {
    // A size-1 dimension may stretch to size 0; in f32[1] + f32[0] the
    // operand is reshaped to a scalar, then broadcast with dimensions={}.
    insta::assert_snapshot!(check(&add(&[2, 1], &[2, 0], &[])));
    insta::assert_snapshot!(
        "size_1_stretches_to_size_0_rank_1",
        check(&add(&[1], &[0], &[]))
    );
}

#[test]
fn scalar_plus_scalar_is_unchanged() {
    let comp = add(&[], &[], &[]);
    let after = expand_broadcasts(&comp).unwrap();
    assert_eq!(after, comp);
}

#[test]
fn compare_with_broadcasting_gives_pred() {
    insta::assert_snapshot!(check(&binary(
        "gt",
        BinaryOp::Compare(
            oxla_ir::ComparisonDirection::Gt,
            oxla_ir::ComparisonOrder::Natural,
        ),
        shape(F32, &[2, 1]),
        shape(F32, &[3]),
        &[1]
    )));
}

#[test]
fn and_of_predicates_with_broadcasting() {
    insta::assert_snapshot!(check(&binary(
        "and",
        BinaryOp::And,
        shape(Pred, &[2, 3, 4]),
        shape(Pred, &[3]),
        &[1]
    )));
}

#[test]
fn broadcast_in_dim_with_a_size_1_stretch() {
    // f32[3,1] -> f32[2,3,4] {1,2}: dimension 1 (size 1) stretches to 4.
    let mut b = Builder::new("bcast");
    let x = b.parameter(0, shape(F32, &[3, 1]), "x").unwrap();
    let y = b.broadcast_in_dim(x, &[2, 3, 4], &[1, 2]).unwrap();
    insta::assert_snapshot!(check(&b.build(y).unwrap()));
}

#[test]
fn xla_structure_broadcast_in_dim_same_rank() {
    // XLA: BroadcastInDim(f32[2,1,4], {2,3,4}, {0,1,2}) ->
    // broadcast(reshape(broadcast(x))).
    let mut b = Builder::new("bcast");
    let x = b.parameter(0, shape(F32, &[2, 1, 4]), "x").unwrap();
    let y = b.broadcast_in_dim(x, &[2, 3, 4], &[0, 1, 2]).unwrap();
    insta::assert_snapshot!(check(&b.build(y).unwrap()));
}

#[test]
fn exact_broadcasts_are_unchanged() {
    let mut b = Builder::new("bcast");
    let x = b.parameter(0, shape(F32, &[3]), "x").unwrap();
    let s = b.parameter(1, shape(F32, &[]), "s").unwrap();
    let y = b.broadcast(x, &[2, 4]).unwrap();
    let z = b.broadcast_in_dim(s, &[2, 4, 3], &[]).unwrap();
    let w = b.add(y, z, &[]).unwrap();
    let comp = b.build(w).unwrap();
    let after = expand_broadcasts(&comp).unwrap();
    assert_eq!(after, comp);
    verifier::verify_strict_hlo(&after).unwrap();
}

#[test]
fn select_with_a_scalar_predicate() {
    let mut b = Builder::new("select");
    let p = b.parameter(0, shape(Pred, &[]), "p").unwrap();
    let x = b.parameter(1, shape(F32, &[2, 3]), "x").unwrap();
    let y = b.parameter(2, shape(F32, &[2, 3]), "y").unwrap();
    let r = b.select(p, x, y).unwrap();
    insta::assert_snapshot!(check(&b.build(r).unwrap()));
}

#[test]
fn select_with_scalar_branches() {
    let mut b = Builder::new("select");
    let p = b.parameter(0, shape(Pred, &[4]), "p").unwrap();
    let one = b.constant_scalar(1f32).unwrap();
    let zero = b.constant_scalar(0f32).unwrap();
    let r = b.select(p, one, zero).unwrap();
    insta::assert_snapshot!(check(&b.build(r).unwrap()));
}

#[test]
fn clamp_with_scalar_bounds() {
    // XlaBuilder::TernaryOp broadcasts clamp's scalar bounds too, although
    // HLO would accept them.
    let mut b = Builder::new("clamp");
    let lo = b.constant_scalar(0f32).unwrap();
    let x = b.parameter(0, shape(F32, &[2, 2]), "x").unwrap();
    let hi = b.constant_scalar(6f32).unwrap();
    let r = b.clamp(lo, x, hi).unwrap();
    insta::assert_snapshot!(check(&b.build(r).unwrap()));
}

#[test]
fn reduce_with_a_reducer_body_that_broadcasts() {
    // The reducer adds a f32[1] to a f32[1,1] with broadcast_dimensions={1}
    // before reshaping back to a scalar: the pass rewrites called bodies too.
    let mut r = Builder::new("odd_sum");
    let a = r.parameter(0, shape(F32, &[]), "a").unwrap();
    let c = r.parameter(1, shape(F32, &[]), "c").unwrap();
    let a11 = r.reshape(a, &[1, 1]).unwrap();
    let c1 = r.reshape(c, &[1]).unwrap();
    let s = r.add(a11, c1, &[1]).unwrap();
    let s0 = r.reshape(s, &[]).unwrap();
    let reducer = r.build(s0).unwrap();

    let mut b = Builder::new("rowsum");
    let x = b.parameter(0, shape(F32, &[2, 3]), "x").unwrap();
    let v = b.parameter(1, shape(F32, &[3]), "v").unwrap();
    let xv = b.add(x, v, &[1]).unwrap();
    let zero = b.constant_scalar(0f32).unwrap();
    let y = b.reduce(xv, zero, &[1], &reducer).unwrap();
    let out = b.mul(y, zero, &[]).unwrap();
    insta::assert_snapshot!(check(&b.build(out).unwrap()));
}

#[test]
fn chained_ops_reuse_nothing_and_keep_names() {
    // Each op gets its own broadcast chain (XLA's builder does no CSE), and
    // the unary op between them is copied.
    let mut b = Builder::new("chain");
    let x = b.parameter(0, shape(F32, &[2, 3]), "x").unwrap();
    let v = b.parameter(1, shape(F32, &[3]), "v").unwrap();
    let s = b.add(x, v, &[1]).unwrap();
    let e = b.exp(s).unwrap();
    let m = b.mul(e, v, &[1]).unwrap();
    let c = b.convert(m, S32).unwrap();
    insta::assert_snapshot!(check(&b.build(c).unwrap()));
}

#[test]
fn fresh_names_skip_names_already_in_use() {
    // A parameter already called `broadcast.3`, the first fresh name.
    let mut b = Builder::new("clash");
    let x = b.parameter(0, shape(F32, &[2, 3]), "x").unwrap();
    let v = b.parameter(1, shape(F32, &[3]), "broadcast.3").unwrap();
    let y = b.add(x, v, &[1]).unwrap();
    insta::assert_snapshot!(check(&b.build(y).unwrap()));
}

#[test]
fn tuple_root_of_several_results() {
    let mut b = Builder::new("pair");
    let x = b.parameter(0, shape(F32, &[2, 3]), "x").unwrap();
    let v = b.parameter(1, shape(F32, &[2]), "v").unwrap();
    let s = b.add(x, v, &[0]).unwrap();
    let d = b.sub(v, x, &[0]).unwrap();
    let t = b.tuple(&[s, d]).unwrap();
    insta::assert_snapshot!(check(&b.build(t).unwrap()));
}

// ---------------------------------------------------------------------------
// Errors name the pass
// ---------------------------------------------------------------------------

fn param(name: &str, number: i64, shape: Shape) -> Instruction {
    Instruction {
        name: name.into(),
        kind: OpKind::Parameter { number },
        operands: vec![],
        shape,
    }
}

#[test]
fn an_input_that_does_not_verify_is_refused_with_the_verifiers_report() {
    let body = Body {
        name: "broken".into(),
        instructions: vec![
            param("x", 0, shape(F32, &[2, 3])),
            param("v", 1, shape(F32, &[3])),
            Instruction {
                name: "sum".into(),
                kind: OpKind::Binary {
                    op: BinaryOp::Add,
                    broadcast_dimensions: vec![0],
                },
                operands: vec![InstId(0), InstId(1)],
                shape: shape(F32, &[2, 3]),
            },
        ],
        root: InstId(2),
    };
    let comp = Computation::from_bodies_unverified("broken", vec![body]);
    let err = expand_broadcasts(&comp).unwrap_err();
    assert!(matches!(&err, Error::Verification { computation, .. } if computation == "broken"));
    insta::assert_snapshot!(err.to_string());
}

#[test]
fn pass_name_is_stable() {
    assert_eq!(PASS_NAME, "expand_broadcasts pass");
}
