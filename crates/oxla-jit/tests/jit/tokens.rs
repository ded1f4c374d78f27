//! Tokens on the JIT: compiled as empty arrays (`tokens.rs`), taken and
//! given back as tokens wherever the signature has them, in every run
//! form.

use oxla_ir::{Literal, parse_hlo_module};

const MODULE: &str = r#"
HloModule tokens

left {
  p = (f32[3], token[]) parameter(0)
  x = f32[3] get-tuple-element(p), index=0
  t = token[] get-tuple-element(p), index=1
  n = f32[3] negate(x)
  u = token[] after-all(t, x)
  ROOT r = (f32[3], token[]) tuple(n, u)
}

right {
  p = (f32[3], token[]) parameter(0)
  x = f32[3] get-tuple-element(p), index=0
  t = token[] get-tuple-element(p), index=1
  d = f32[3] add(x, x)
  ROOT r = (f32[3], token[]) tuple(d, t)
}

ENTRY tokens {
  x = f32[3] parameter(0)
  t = token[] parameter(1)
  s = pred[] parameter(2)
  a = (f32[3], token[]) tuple(x, t)
  c = (f32[3], token[]) conditional(s, a, a), true_computation=left, false_computation=right
  y = f32[3] get-tuple-element(c), index=0
  u = token[] get-tuple-element(c), index=1
  z = f32[3] add-dependency(y, u)
  v = token[] after-all(u, t)
  w = (token[], f32[3]) tuple(u, y)
  ROOT r = (f32[3], token[], (token[], f32[3])) tuple(z, v, w)
}
"#;

#[test]
fn token_parameters_and_results_match_the_interpreter() {
    let comp = parse_hlo_module(MODULE).expect("parse");
    let exe = oxla_jit::compile(&comp).expect("compile");
    assert_eq!(exe.computation().result_shape(), comp.result_shape());
    let x = Literal::from_vec(&[3], vec![1f32, -2.0, 3.5]).expect("x");
    let t = Literal::token();
    for s in [true, false] {
        let s = Literal::scalar(s);
        let args = [&x, &t, &s];
        let want = oxla_interp::evaluate(&comp, &args).expect("interpreter");
        let got = exe.run(&args).expect("run");
        assert_eq!(got, want);
        let mut out = Literal::zeros(comp.result_shape()).expect("zeros");
        exe.run_into(&args, &mut out).expect("run_into");
        assert_eq!(out, want);
    }
    // A token where an array belongs, and the reverse, are refused.
    let s = Literal::scalar(true);
    assert!(exe.run(&[&t, &t, &s]).is_err());
    assert!(exe.run(&[&x, &x, &s]).is_err());
}

#[test]
fn a_token_result_alone_runs_in_place_of_its_parameter() {
    let comp = parse_hlo_module(
        "HloModule t\nENTRY t {\n  a = token[] parameter(0)\n  ROOT b = token[] after-all(a)\n}\n",
    )
    .expect("parse");
    let exe = oxla_jit::compile(&comp).expect("compile");
    let mut t = Literal::token();
    assert!(!exe.runs_in_place(0));
    exe.run_in_place(0, &mut t, &[]).expect("run_in_place");
    assert_eq!(t, Literal::token());
    assert_eq!(
        exe.run(&[&Literal::token()]).expect("run"),
        Literal::token()
    );
}
