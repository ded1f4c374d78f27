//! Hostile input for `evaluate`: every kind of wrong argument (count,
//! element type, dims, tuples, zero-size and huge dims), and computations
//! whose values would need more memory than the evaluation budget. Each is
//! a typed error, never a panic or an aborted allocation.

#![allow(clippy::result_large_err)]

use oxla_interp::{MAX_EVAL_BYTES, evaluate, evaluate_with_budget};
use oxla_ir::{ElementType, Error, Literal, Shape, parse_hlo_module};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A module whose entry is `body` (a list of instructions, the last the root).
fn module(body: &str) -> oxla_ir::Computation {
    let text = format!("HloModule m\n\nENTRY e {{\n{body}}}\n");
    parse_hlo_module(&text).unwrap_or_else(|e| panic!("test module does not parse: {e}\n{text}"))
}

fn f32s(dims: &[i64], values: Vec<f32>) -> Literal {
    Literal::from_vec(dims, values).unwrap_or_else(|e| panic!("bad test literal: {e}"))
}

/// The error `evaluate_with_budget` gives, with its code and a fragment of
/// its message checked.
fn refused(
    comp: &oxla_ir::Computation,
    args: &[&Literal],
    budget: u64,
    code: &str,
    fragment: &str,
) -> Error {
    match evaluate_with_budget(comp, args, budget) {
        Ok(v) => panic!("expected {code} ({fragment}), but evaluated to {v}\n{comp}"),
        Err(e) => {
            assert_eq!(e.code(), code, "{e}");
            assert!(
                e.to_string().contains(fragment),
                "expected `{fragment}` in:\n{e}"
            );
            e
        }
    }
}

// ---------------------------------------------------------------------------
// Wrong arguments
// ---------------------------------------------------------------------------

/// One wrong argument list: `(what, args, code, message fragment)`.
type Case<'a> = (&'a str, Vec<Literal>, &'a str, &'a str);

#[test]
fn wrong_arguments_are_typed_errors() {
    let comp = module(
        "  x = f32[2,3]{1,0} parameter(0)\n  v = s32[3]{0} parameter(1)\n  \
         ROOT n = f32[2,3]{1,0} negate(x)\n",
    );
    let x = || f32s(&[2, 3], vec![1., 2., 3., 4., 5., 6.]);
    let v = || Literal::from_vec(&[3], vec![1i32, 2, 3]).unwrap();
    let cases: Vec<Case<'_>> = vec![
        (
            "no arguments",
            vec![],
            "OX0401",
            "takes 2 argument(s) (x: f32[2,3], v: s32[3]), but 0 were passed",
        ),
        ("one too few", vec![x()], "OX0401", "but 1 were passed"),
        (
            "one too many",
            vec![x(), v(), v()],
            "OX0401",
            "but 3 were passed",
        ),
        (
            "swapped",
            vec![v(), x()],
            "OX0402",
            "Argument 0 (parameter `x`) of computation `m` must have shape f32[2,3], but has shape s32[3]",
        ),
        (
            "element type",
            vec![x(), Literal::from_vec(&[3], vec![1f32, 2., 3.]).unwrap()],
            "OX0402",
            "parameter `v`) of computation `m` must have shape s32[3], but has shape f32[3]",
        ),
        (
            "transposed dims",
            vec![f32s(&[3, 2], vec![0.; 6]), v()],
            "OX0402",
            "must have shape f32[2,3], but has shape f32[3,2]",
        ),
        (
            "flattened",
            vec![f32s(&[6], vec![0.; 6]), v()],
            "OX0402",
            "but has shape f32[6]",
        ),
        (
            "extra unit dim",
            vec![f32s(&[1, 2, 3], vec![0.; 6]), v()],
            "OX0402",
            "but has shape f32[1,2,3]",
        ),
        (
            "scalar",
            vec![Literal::scalar(1f32), v()],
            "OX0402",
            "but has shape f32[]",
        ),
        (
            "zero-size",
            vec![f32s(&[0, 3], vec![]), v()],
            "OX0402",
            "but has shape f32[0,3]",
        ),
        (
            "tuple",
            vec![Literal::tuple(vec![x()]), v()],
            "OX0402",
            "but has shape (f32[2,3])",
        ),
        (
            "pred",
            vec![
                x(),
                Literal::from_vec(&[3], vec![true, false, true]).unwrap(),
            ],
            "OX0402",
            "but has shape pred[3]",
        ),
    ];
    for (what, args, code, fragment) in &cases {
        let args: Vec<&Literal> = args.iter().collect();
        let e = refused(&comp, &args, MAX_EVAL_BYTES, code, fragment);
        // The same through `evaluate`, whatever budget the environment sets.
        assert_eq!(evaluate(&comp, &args).unwrap_err(), e, "{what}");
    }
    // The right arguments still work.
    let out = evaluate(&comp, &[&x(), &v()]).unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        vec![-1., -2., -3., -4., -5., -6.]
    );
}

#[test]
fn zero_size_dims_are_valid_arguments() {
    let comp = module(
        "  x = f32[0,3]{1,0} parameter(0)\n  v = f32[3]{0} parameter(1)\n  \
         a = f32[0,3]{1,0} add(x, v), broadcast_dimensions={1}\n  \
         w = f32[3,0]{1,0} parameter(2)\n  \
         d = f32[0,0]{1,0} dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
         t = f32[3,0]{0,1} transpose(a), dimensions={1,0}\n  \
         ROOT r = (f32[0,0], f32[3,0], f32[0,3]) tuple(d, t, a)\n",
    );
    let x = f32s(&[0, 3], vec![]);
    let v = f32s(&[3], vec![1., 2., 3.]);
    let w = f32s(&[3, 0], vec![]);
    let out = evaluate(&comp, &[&x, &v, &w]).unwrap();
    assert_eq!(out.shape().to_string(), "(f32[0,0], f32[3,0], f32[0,3])");
    let parts = out.tuple_elements().unwrap();
    assert!(parts.iter().all(|p| p.element_count() == 0));
    // A zero-size argument must still have the parameter's dims.
    refused(
        &comp,
        &[&f32s(&[3, 0], vec![]), &v, &w],
        MAX_EVAL_BYTES,
        "OX0402",
        "must have shape f32[0,3], but has shape f32[3,0]",
    );
}

#[test]
fn huge_dims_cannot_be_passed() {
    // 2^40 elements is a valid shape, so the module parses...
    let comp = module(
        "  p = f32[1099511627776]{0} parameter(0)\n  ROOT n = f32[1099511627776]{0} negate(p)\n",
    );
    // ...but no argument of that shape can be built without its 4 TiB of
    // values, and every way of trying is a typed error.
    let err = Literal::from_vec(&[1 << 40], Vec::<f32>::new()).unwrap_err();
    assert!(
        matches!(err, Error::LiteralSize { expected, actual: 0, .. } if expected == 1 << 40),
        "{err}"
    );
    let err = Literal::from_vec(&[(1 << 40) + 1], Vec::<f32>::new()).unwrap_err();
    assert!(matches!(err, Error::InvalidShape { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("more than the maximum of 1099511627776 elements"),
        "{err}"
    );
    let err = Literal::from_vec(&[i64::MAX, 2], Vec::<f32>::new()).unwrap_err();
    assert!(matches!(err, Error::InvalidShape { .. }), "{err}");
    let err = Literal::from_vec(&[-1], Vec::<f32>::new()).unwrap_err();
    assert!(
        err.to_string().contains("dimension 0 has negative size -1"),
        "{err}"
    );
    // `Literal::zeros` asks the system first: 8 TiB of f64 is refused here
    // (or, where memory is overcommitted without limit, granted untouched),
    // never an abort.
    match Literal::zeros(&Shape::new(ElementType::F64, &[1 << 40])) {
        Err(e) => assert!(
            e.to_string()
                .contains("8796093022208 bytes cannot be allocated"),
            "{e}"
        ),
        Ok(z) => assert_eq!(z.element_count(), 1 << 40),
    }
    // A small argument for the huge parameter is a shape error.
    let small = f32s(&[3], vec![1., 2., 3.]);
    refused(
        &comp,
        &[&small],
        MAX_EVAL_BYTES,
        "OX0402",
        "must have shape f32[1099511627776], but has shape f32[3]",
    );
}

// ---------------------------------------------------------------------------
// The memory budget
// ---------------------------------------------------------------------------

#[test]
fn huge_intermediate_is_refused_before_anything_is_allocated() {
    let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  c = f32[] constant(1)\n  \
                b = f32[100000,100000,100]{2,1,0} broadcast(c), dimensions={}\n  \
                ROOT s = f32[] reduce(b, c), dimensions={0,1,2}, to_apply=add\n}\n";
    let comp = parse_hlo_module(text).unwrap();
    let e = refused(
        &comp,
        &[],
        MAX_EVAL_BYTES,
        "OX0601",
        "its result f32[100000,100000,100] needs 4000000000000 bytes (3.6 TiB), more than the \
         evaluation budget of 8589934592 bytes (8.0 GiB); set OXLA_MAX_EVAL_BYTES",
    );
    assert!(
        matches!(&e, Error::Evaluation { instruction, .. } if instruction == "b"),
        "{e}"
    );
    // `evaluate` refuses it too, under any budget the environment could
    // reasonably set.
    assert!(matches!(
        evaluate(&comp, &[]),
        Err(Error::Evaluation { .. })
    ));
}

#[test]
fn the_budget_counts_results_and_scratch() {
    // Three f32[100] results of 400 bytes each: 1200 bytes held in all.
    let chain = module(
        "  p = f32[100]{0} parameter(0)\n  a = f32[100]{0} negate(p)\n  \
         b = f32[100]{0} negate(a)\n  ROOT c = f32[100]{0} negate(b)\n",
    );
    let x = f32s(&[100], vec![1.; 100]);
    // The parameter is borrowed, not counted.
    assert!(evaluate_with_budget(&chain, &[&x], 1200).is_ok());
    let e = refused(
        &chain,
        &[&x],
        1199,
        "OX0601",
        "brings the values the interpreter holds to 1200 bytes (1.2 KiB), more than the evaluation budget of 1199 bytes (1.2 KiB)",
    );
    assert!(
        matches!(&e, Error::Evaluation { instruction, .. } if instruction == "c"),
        "{e}"
    );
    refused(
        &chain,
        &[&x],
        399,
        "OX0601",
        "its result f32[100] needs 400 bytes, more than",
    );

    // A broadcasting add copies its lower-rank operand out to the result's
    // dims first: 400 bytes of result and 400 of scratch.
    let add = module(
        "  m = f32[10,10]{1,0} parameter(0)\n  v = f32[10]{0} parameter(1)\n  \
         ROOT s = f32[10,10]{1,0} add(m, v), broadcast_dimensions={1}\n",
    );
    let m = f32s(&[10, 10], vec![1.; 100]);
    let v = f32s(&[10], vec![2.; 10]);
    assert_eq!(
        evaluate_with_budget(&add, &[&m, &v], 800)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![3.; 100]
    );
    refused(
        &add,
        &[&m, &v],
        799,
        "OX0601",
        "needs 400 bytes and 400 bytes of scratch space",
    );

    // A reduce keeps 8-byte positions: one per result element and one per
    // operand element.
    let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[10,10]{1,0} parameter(0)\n  \
                z = f32[] constant(0)\n  ROOT r = f32[10]{0} reduce(x, z), dimensions={1}, to_apply=add\n}\n";
    let reduce = parse_hlo_module(text).unwrap();
    // The reducer's `s` (4 bytes) + `r` (40) + scratch 8 * (10 + 100).
    assert!(evaluate_with_budget(&reduce, &[&m], 4 + 40 + 880).is_ok());
    refused(
        &reduce,
        &[&m],
        4 + 40 + 879,
        "OX0601",
        "scratch space for `r`",
    );
}

/// A chain of `levels` computations, each running the next through a
/// conditional whose predicate is true: evaluating it nests `levels` calls.
fn nested_conditionals(levels: usize) -> oxla_ir::Computation {
    let mut text = String::from(
        "HloModule deep\n\nc0 {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n\n",
    );
    for k in 1..levels {
        text.push_str(&format!(
            "c{k} {{\n  x = f32[] parameter(0)\n  t = pred[] constant(true)\n  \
             ROOT c = f32[] conditional(t, x, x), true_computation=c{p}, false_computation=c{p}\n}}\n\n",
            p = k - 1
        ));
    }
    text.push_str(&format!(
        "ENTRY e {{\n  x = f32[] parameter(0)\n  t = pred[] constant(true)\n  \
         ROOT c = f32[] conditional(t, x, x), true_computation=c{p}, false_computation=c{p}\n}}\n",
        p = levels - 1
    ));
    parse_hlo_module(&text).unwrap_or_else(|e| panic!("test module does not parse: {e}"))
}

#[test]
fn calls_nest_up_to_the_limit_and_no_further() {
    let x = Literal::scalar(2f32);
    // The entry is depth 0; `levels` branches nest below it.
    let ok = nested_conditionals(oxla_interp::MAX_CALL_DEPTH);
    assert_eq!(evaluate(&ok, &[&x]).ok(), Some(Literal::scalar(-2f32)));
    let deep = nested_conditionals(oxla_interp::MAX_CALL_DEPTH + 1);
    let err = refused(
        &deep,
        &[&x],
        MAX_EVAL_BYTES,
        "OX0601",
        "calls nest more than 64 deep",
    );
    assert!(matches!(err, Error::Evaluation { .. }));
}

#[test]
fn tuple_arguments_are_checked_like_arrays() {
    let comp = module(
        "  t = (f32[2], (s32[], pred[])) parameter(0)\n  \
         inner = (s32[], pred[]) get-tuple-element(t), index=1\n  \
         ROOT b = pred[] get-tuple-element(inner), index=1\n",
    );
    let good = Literal::tuple(vec![
        f32s(&[2], vec![1., 2.]),
        Literal::tuple(vec![Literal::scalar(3i32), Literal::scalar(true)]),
    ]);
    assert_eq!(evaluate(&comp, &[&good]).ok(), Some(Literal::scalar(true)));
    // The inner tuple's element of another type, then an array for the tuple.
    let bad = Literal::tuple(vec![
        f32s(&[2], vec![1., 2.]),
        Literal::tuple(vec![Literal::scalar(3i64), Literal::scalar(true)]),
    ]);
    let err = refused(
        &comp,
        &[&bad],
        MAX_EVAL_BYTES,
        "OX0402",
        "(f32[2], (s32[], pred[]))",
    );
    assert!(
        err.to_string().contains("(f32[2], (s64[], pred[]))"),
        "{err}"
    );
    let array = f32s(&[2], vec![1., 2.]);
    refused(&comp, &[&array], MAX_EVAL_BYTES, "OX0402", "f32[2]");
}
