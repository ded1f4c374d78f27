//! The accuracy the HLO parser promises when a module asks for one: it
//! honours `result_accuracy={tolerance={ulps=N}}` from N =
//! `oxla_ir::parser::result_accuracy_ulps(op)`, so that number must never be
//! tighter than what the JIT states it delivers (`oxla_jit::ulp_bound`,
//! `docs/jit-accuracy.md`). If the JIT's bound grows, this fails until the
//! parser's promise grows with it.

use oxla::{ElementType, UnaryOp};

#[test]
fn result_accuracy_promises_no_more_than_the_jit_states() {
    let mut checked = 0;
    for &op in UnaryOp::ALL {
        let Some(promised) = oxla::internals::parser::result_accuracy_ulps(op) else {
            continue;
        };
        for ty in [ElementType::F32, ElementType::F64] {
            let stated = oxla_jit::ulp_bound(op, ty);
            assert!(
                promised >= stated,
                "the parser honours result_accuracy on {op} ({ty}) from {promised} ulp(s), \
                 but the JIT states {stated}"
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked, 26,
        "thirteen ops take result_accuracy (erf, cbrt and tan among them), in f32 and f64"
    );
}
