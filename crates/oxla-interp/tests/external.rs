//! A `custom-call` calls code outside the module: the interpreter refuses
//! it with a typed error naming the target, before evaluating anything
//! (even inside a branch that would not run).

use oxla_interp::evaluate;
use oxla_ir::{Error, Literal, parser::parse_hlo_module};

#[test]
fn a_custom_call_is_refused_naming_its_target() {
    let comp = parse_hlo_module(
        "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
         ROOT c = f32[2] custom-call(x), custom_call_target=\"__cpu$xnn_fusion\"\n}\n",
    )
    .unwrap();
    let x = Literal::from_vec(&[2], vec![1f32, 2.]).unwrap();
    let err = evaluate(&comp, &[&x]).unwrap_err();
    match &err {
        Error::UnsupportedOp {
            backend,
            op,
            instruction,
            reason,
            ..
        } => {
            assert_eq!(
                (backend.as_str(), op.as_str()),
                ("interpreter", "custom-call")
            );
            assert_eq!(instruction, "c");
            assert!(
                reason
                    .contains("`custom-call` to `__cpu$xnn_fusion` calls code outside the module"),
                "{reason}"
            );
        }
        other => panic!("expected UnsupportedOp, got {other:?}"),
    }
}

#[test]
fn a_custom_call_in_a_called_computation_is_refused_too() {
    let comp = parse_hlo_module(
        "HloModule m\n\nbranch {\n  p = f32[2] parameter(0)\n  \
         ROOT c = f32[2] custom-call(p), custom_call_target=\"kernel\"\n}\n\n\
         other {\n  ROOT p = f32[2] parameter(0)\n}\n\n\
         ENTRY e {\n  b = pred[] parameter(0)\n  x = f32[2] parameter(1)\n  \
         ROOT r = f32[2] conditional(b, x, x), true_computation=branch, false_computation=other\n}\n",
    )
    .unwrap();
    let b = Literal::scalar(false);
    let x = Literal::from_vec(&[2], vec![1f32, 2.]).unwrap();
    let err = evaluate(&comp, &[&b, &x]).unwrap_err();
    assert!(
        matches!(&err, Error::UnsupportedOp { op, .. } if op == "custom-call"),
        "{err:?}"
    );
}

#[test]
fn rng_get_and_update_state_is_refused() {
    let comp = parse_hlo_module(
        "HloModule m\n\nENTRY e {\n  ROOT s = u64[2] rng-get-and-update-state(), delta=4096\n}\n",
    )
    .unwrap();
    let err = evaluate(&comp, &[]).unwrap_err();
    assert!(
        err.to_string().contains("random state of XLA's runtime"),
        "{err}"
    );
}
