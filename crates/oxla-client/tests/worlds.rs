//! The same pairs of shapes under XLA's, NumPy's and TML's rules, as the
//! table in docs/broadcasting.md (generated here, so the document
//! and the code cannot drift apart unnoticed).

use oxla_client::numpy::broadcast_shapes;
use oxla_client::tml::{TmlOp, TmlType, infer_binary_type};
use oxla_ir::shape::dims_text;
use oxla_ir::shape_inference::{infer_binary_op_shape, valid_broadcast_dimensions};
use oxla_ir::{BinaryOp, ComparisonDirection, ComparisonOrder, ElementType::S64, Shape};

fn dims(d: &[i64]) -> String {
    format!(
        "[{}]",
        d.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    )
}

fn tml(d: &[i64]) -> TmlType {
    if d.is_empty() {
        TmlType::INT
    } else {
        TmlType::tensor(TmlType::INT, d)
    }
}

fn cell<T>(r: oxla_ir::Result<T>, show: impl Fn(T) -> String) -> String {
    r.map(show).unwrap_or_else(|_| "refused".into())
}

#[test]
fn side_by_side_table() {
    let rows: &[(&[i64], &[i64], bool)] = &[
        (&[2, 3], &[3], false),
        (&[2, 3], &[2], false),
        (&[3, 3], &[3], false),
        (&[2, 1], &[1, 3], false),
        (&[4], &[1, 2], false),
        (&[3], &[4], false),
        (&[8, 1, 6, 1], &[7, 1, 5], false),
        (&[15, 3, 5], &[15, 3], false),
        (&[], &[2, 3], false),
        (&[3], &[1, 3], true),
        (&[3], &[3], true),
        (&[], &[2, 3], true),
    ];
    let mut out = String::from(
        "| operands | XLA, no `broadcast_dimensions` | XLA, each valid `broadcast_dimensions` | NumPy / Array API | TML |\n\
         |---|---|---|---|---|\n",
    );
    for &(a, b, relational) in rows {
        let (sa, sb) = (Shape::new(S64, a), Shape::new(S64, b));
        let op = if relational {
            BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Natural)
        } else {
            BinaryOp::Add
        };
        let shown = |s: Shape| dims(s.dims());
        let implicit = cell(infer_binary_op_shape(op, &sa, &sb, &[]), shown);
        let explicit = if a.len() == b.len() || a.is_empty() || b.is_empty() {
            format!("`{{}}` → {implicit}")
        } else {
            let (small, large) = if a.len() < b.len() {
                (&sa, &sb)
            } else {
                (&sb, &sa)
            };
            let valid = valid_broadcast_dimensions(small, large);
            if valid.is_empty() {
                "none".to_string()
            } else {
                valid
                    .iter()
                    .map(|m| {
                        let r = cell(infer_binary_op_shape(op, &sa, &sb, m), shown);
                        format!("`{}` → {r}", dims_text(m))
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        };
        let numpy = cell(broadcast_shapes(&[a, b]), |d| dims(&d));
        let tml_op = if relational { TmlOp::Gt } else { TmlOp::Add };
        let tml = cell(infer_binary_type(tml_op, &tml(a), &tml(b)), |t| {
            dims(&t.flat_dims())
        });
        let sign = if relational { ">" } else { "+" };
        out.push_str(&format!(
            "| {} {sign} {} | {implicit} | {explicit} | {numpy} | {tml} |\n",
            dims(a),
            dims(b)
        ));
    }
    insta::assert_snapshot!("side_by_side", out);
}
