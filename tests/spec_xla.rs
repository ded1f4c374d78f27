//! The examples of XLA's broadcasting text that only the Rust API can
//! write: XLA's client `Broadcast(operand, sizes)`, which prepends `sizes`
//! as new major dimensions. (In HLO text it is `broadcast` with
//! `dimensions=` naming the last dimensions, which `tests/hlo/spec/` covers.)
//!
//! Every other example of the text (`shared/spec/xla-broadcasting.md`), with
//! its hand-derived values and error cases, is a `.hlo` file under
//! `tests/hlo/spec/`, run on the interpreter and the JIT by
//! `cargo test -p oxla --test hlo` (see `docs/testing.md`).

use oxla::{Builder, Literal};

/// `broadcast(x, sizes)` on the interpreter and on the JIT.
#[track_caller]
fn check_broadcast(x: Literal, sizes: &[i64], want: Literal) {
    let mut b = Builder::new("broadcast");
    let p = b.parameter(0, x.shape().clone(), "x").unwrap();
    let y = b.broadcast(p, sizes).unwrap();
    let comp = b.build(y).unwrap();
    assert_eq!(oxla::evaluate(&comp, &[&x]).unwrap(), want, "interpreter");
    let exe = oxla::compile(&comp).unwrap();
    assert_eq!(exe.run(&[&x]).unwrap(), want, "JIT");
}

fn f(dims: &[i64], values: &[f32]) -> Literal {
    Literal::from_vec(dims, values.to_vec()).unwrap()
}

#[test]
fn broadcast_prepends_major_dimensions() {
    check_broadcast(
        f(&[3], &[7., 8., 9.]),
        &[2],
        f(&[2, 3], &[7., 8., 9., 7., 8., 9.]),
    );
    check_broadcast(
        f(&[1, 2], &[5., 6.]),
        &[2],
        f(&[2, 1, 2], &[5., 6., 5., 6.]),
    );
    check_broadcast(f(&[], &[7.]), &[2, 3], f(&[2, 3], &[7.; 6]));
}

/// A negative size is refused with the message `docs/broadcasting.md`
/// quotes (as `broadcast_negative_size`).
#[test]
fn broadcast_negative_size() {
    let mut b = Builder::new("broadcast");
    let x = b
        .parameter(0, oxla::Shape::new(oxla::ElementType::F32, &[3]), "x")
        .unwrap();
    let message = b.broadcast(x, &[-2]).unwrap_err().to_string();
    assert!(
        message.contains("negative dimension size -2") && message.contains("f32[3]"),
        "{message}"
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/broadcasting.md")).unwrap();
    assert!(
        doc.contains("`broadcast_negative_size`") && doc.contains(&message),
        "docs/broadcasting.md does not quote the current message:\n{message}"
    );
}
