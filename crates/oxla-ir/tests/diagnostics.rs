//! The drawn form of every kind of shape error, pinned by snapshots.

use oxla_ir::ir::BinaryOp;
use oxla_ir::shape_inference::infer_binary_op_shape;
use oxla_ir::{ElementType::*, Shape};

fn render(name: &str, lhs: &[i64], rhs: &[i64], dims: &[i64], code: &str) {
    let e = infer_binary_op_shape(
        BinaryOp::Add,
        &Shape::new(F32, lhs),
        &Shape::new(F32, rhs),
        dims,
    )
    .expect_err(name);
    assert_eq!(e.code(), code, "{name}");
    let summary = e.summary();
    assert!(
        !summary.contains('\n') && summary.starts_with(&format!("[{code}]")),
        "{summary}"
    );
    insta::assert_snapshot!(name, format!("{}\n--- summary ---\n{summary}", e.render()));
}

#[test]
fn every_broadcast_error_draws_its_shapes() {
    render("mismatch", &[2, 3], &[3], &[0], "OX0106");
    render("mismatch_no_fix", &[2, 3], &[7], &[1], "OX0106");
    render("no_mapping", &[2, 3, 4], &[3, 4], &[], "OX0102");
    render("wrong_length", &[2, 3, 4], &[3, 4], &[1], "OX0103");
    render("negative", &[2, 3, 4], &[3, 4], &[-1, 2], "OX0104");
    render("too_large", &[2, 3, 4], &[3, 4], &[1, 3], "OX0105");
    render(
        "order_checked_after_size",
        &[16, 8, 4],
        &[8, 4],
        &[2, 1],
        "OX0106",
    );
    render("order_same_sizes", &[4, 4, 4], &[4, 4], &[2, 1], "OX0107");
    render("incompatible", &[7, 2, 5], &[7, 2, 6], &[], "OX0108");
    render("not_identity", &[2, 3], &[2, 3], &[1, 0], "OX0101");
}

#[test]
fn other_errors_render_their_message_under_the_code() {
    let e = infer_binary_op_shape(
        BinaryOp::Add,
        &Shape::new(F32, &[2]),
        &Shape::new(S32, &[2]),
        &[],
    )
    .unwrap_err();
    assert_eq!(e.code(), "OX0001");
    let r = e.render();
    assert!(
        r.starts_with("error[OX0001]: Binary op add with different element types"),
        "{r}"
    );
}
