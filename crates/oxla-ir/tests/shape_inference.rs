//! Shape inference as a table: each row is an op with its operand shapes and
//! attributes, and either the shape it gives or the error it reports. Error
//! messages are pinned by insta snapshots so a change in wording is reviewed.

use oxla_ir::ir::{BinaryOp, ComparisonDirection, DotDimensionNumbers, PadDim, UnaryOp};
use oxla_ir::shape_inference as si;
use oxla_ir::{Builder, ElementType, ElementType::*, Error, Result, Shape};

fn s(t: ElementType, dims: &[i64]) -> Shape {
    Shape::new(t, dims)
}

/// Checks an inference result: `Ok(text)` must print as `text`; an error
/// must have a message containing every shape in `mentions` and is pinned by
/// a snapshot named `name`.
fn check(name: &str, got: Result<Shape>, expect: std::result::Result<&str, &[&str]>) {
    match (got, expect) {
        (Ok(shape), Ok(text)) => assert_eq!(shape.to_string(), text, "{name}"),
        (Err(e), Err(mentions)) => {
            let msg = e.to_string();
            for m in mentions {
                assert!(msg.contains(m), "{name}: message does not name {m}:\n{msg}");
            }
            insta::assert_snapshot!(name, msg);
        }
        (got, expect) => panic!("{name}: got {got:?}, expected {expect:?}"),
    }
}

#[test]
fn binary_type_rules() {
    let f = s(F32, &[2]);
    let i = s(S32, &[2]);
    let p = s(Pred, &[2]);
    let u = s(U8, &[2]);
    let bin = |op, a: &Shape, b: &Shape| si::infer_binary_op_shape(op, a, b, &[]);
    check(
        "mixed_types",
        bin(BinaryOp::Add, &f, &i),
        Err(&["f32[2]", "s32[2]"]),
    );
    check("sub_pred", bin(BinaryOp::Sub, &p, &p), Err(&["pred[2]"]));
    check("atan2_int", bin(BinaryOp::Atan2, &i, &i), Err(&["s32[2]"]));
    check("and_float", bin(BinaryOp::And, &f, &f), Err(&["f32[2]"]));
    check(
        "shift_float",
        bin(BinaryOp::ShiftLeft, &f, &f),
        Err(&["f32[2]"]),
    );
    check("and_pred", bin(BinaryOp::And, &p, &p), Ok("pred[2]"));
    check("xor_u8", bin(BinaryOp::Xor, &u, &u), Ok("u8[2]"));
    check("max_pred", bin(BinaryOp::Max, &p, &p), Ok("pred[2]"));
    check("pow_int", bin(BinaryOp::Pow, &i, &i), Ok("s32[2]"));
    check(
        "compare_gives_pred",
        bin(
            BinaryOp::Compare(ComparisonDirection::Lt, oxla_ir::ComparisonOrder::Natural),
            &f,
            &f,
        ),
        Ok("pred[2]"),
    );
    let t = Shape::tuple(vec![f.clone()]);
    check(
        "tuple_operand",
        bin(BinaryOp::Add, &t, &f),
        Err(&["(f32[2])"]),
    );
}

#[test]
fn unary_type_rules() {
    let f = s(F64, &[3]);
    let i = s(S8, &[3]);
    let p = s(Pred, &[3]);
    check(
        "exp_f64",
        si::infer_unary_op_shape(UnaryOp::Exp, &f),
        Ok("f64[3]"),
    );
    check(
        "exp_int",
        si::infer_unary_op_shape(UnaryOp::Exp, &i),
        Err(&["s8[3]"]),
    );
    check(
        "neg_pred",
        si::infer_unary_op_shape(UnaryOp::Neg, &p),
        Err(&["pred[3]"]),
    );
    check(
        "not_pred",
        si::infer_unary_op_shape(UnaryOp::Not, &p),
        Ok("pred[3]"),
    );
    check(
        "not_float",
        si::infer_unary_op_shape(UnaryOp::Not, &f),
        Err(&["f64[3]"]),
    );
    check(
        "is_finite",
        si::infer_unary_op_shape(UnaryOp::IsFinite, &f),
        Ok("pred[3]"),
    );
    check(
        "abs_int",
        si::infer_unary_op_shape(UnaryOp::Abs, &i),
        Ok("s8[3]"),
    );
}

#[test]
fn broadcast_suggestions() {
    // The help line proposes the right-aligned choice first, then others.
    let v = s(F32, &[3]);
    let m = s(F32, &[3, 3]);
    assert_eq!(
        si::valid_broadcast_dimensions(&v, &m),
        vec![vec![1], vec![0]]
    );
    // Size-1 dims map anywhere; exact matches rank first.
    let a = s(F32, &[1, 4]);
    let b = s(F32, &[2, 4, 5]);
    assert_eq!(si::valid_broadcast_dimensions(&a, &b)[0], vec![0, 1]);
    // Nothing fits: 7 matches no dimension.
    assert!(si::valid_broadcast_dimensions(&s(F32, &[7]), &s(F32, &[2, 3])).is_empty());
    let e = si::infer_binary_op_shape(BinaryOp::Add, &s(F32, &[2, 3]), &s(F32, &[7]), &[1])
        .unwrap_err();
    assert!(matches!(
        e,
        Error::BroadcastDimensionMismatch {
            index: 0,
            mapped_to: 1,
            ..
        }
    ));
    check(
        "no_valid_mapping",
        Err(e),
        Err(&["f32[7]", "f32[2,3]", "no broadcast_dimensions is valid"]),
    );
    // Empty list, different ranks: the help suggests a mapping.
    let e =
        si::infer_binary_op_shape(BinaryOp::Mul, &s(F32, &[4, 5]), &s(F32, &[5]), &[]).unwrap_err();
    assert!(
        e.to_string()
            .contains("broadcast_dimensions={1} would be valid"),
        "{e}"
    );
}

#[test]
fn broadcast_in_dim_rules() {
    let x = s(F32, &[3, 1]);
    let b = |o: &Shape, out: &[i64], d: &[i64]| si::infer_broadcast_in_dim_shape(o, out, d);
    check("bid_ok", b(&x, &[2, 3, 4], &[1, 2]), Ok("f32[2,3,4]"));
    check(
        "bid_lower_rank_out",
        b(&x, &[3], &[0]),
        Err(&["f32[3,1]", "f32[3]"]),
    );
    check(
        "bid_wrong_len",
        b(&x, &[2, 3, 4], &[1]),
        Err(&["f32[3,1]", "f32[2,3,4]"]),
    );
    check(
        "bid_out_of_bound",
        b(&x, &[2, 3, 4], &[1, 3]),
        Err(&["f32[3,1]", "f32[2,3,4]"]),
    );
    check(
        "bid_size",
        b(&x, &[3, 4, 2], &[1, 2]),
        Err(&[
            "f32[3,1]",
            "f32[3,4,2]",
            "broadcast_dimensions={0,2} would be valid",
        ]),
    );
    check(
        "bid_order",
        b(&s(F32, &[3, 3]), &[3, 3], &[1, 0]),
        Err(&["f32[3,3]"]),
    );
    check(
        "bid_negative_out",
        b(&x, &[2, -3, 4], &[1, 2]),
        Err(&["f32[2,-3,4]"]),
    );
    check("bid_scalar", b(&s(S32, &[]), &[2, 2], &[]), Ok("s32[2,2]"));
    check(
        "broadcast_prepend",
        si::infer_broadcast_shape(&x, &[5]),
        Ok("f32[5,3,1]"),
    );
    check(
        "broadcast_negative",
        si::infer_broadcast_shape(&x, &[-5]),
        Err(&["f32[3,1]"]),
    );
}

#[test]
fn data_movement_rules() {
    let x = s(S32, &[2, 3, 4]);
    check(
        "reshape_ok",
        si::infer_reshape_shape(&x, &[6, 4]),
        Ok("s32[6,4]"),
    );
    check(
        "reshape_count",
        si::infer_reshape_shape(&x, &[5, 5]),
        Err(&["s32[2,3,4]", "s32[5,5]"]),
    );
    check(
        "transpose_ok",
        si::infer_transpose_shape(&x, &[2, 0, 1]),
        Ok("s32[4,2,3]"),
    );
    check(
        "transpose_repeat",
        si::infer_transpose_shape(&x, &[0, 0, 1]),
        Err(&["s32[2,3,4]"]),
    );
    check(
        "transpose_len",
        si::infer_transpose_shape(&x, &[0, 1]),
        Err(&["s32[2,3,4]"]),
    );
    check(
        "slice_ok",
        si::infer_slice_shape(&x, &[0, 1, 0], &[2, 3, 4], &[1, 1, 3]),
        Ok("s32[2,2,2]"),
    );
    check(
        "slice_limit",
        si::infer_slice_shape(&x, &[0, 0, 0], &[2, 4, 4], &[1, 1, 1]),
        Err(&["s32[2,3,4]"]),
    );
    check(
        "slice_stride",
        si::infer_slice_shape(&x, &[0, 0, 0], &[2, 3, 4], &[1, 0, 1]),
        Err(&["s32[2,3,4]"]),
    );
    check(
        "slice_reversed",
        si::infer_slice_shape(&x, &[1, 0, 0], &[0, 3, 4], &[1, 1, 1]),
        Err(&["s32[2,3,4]"]),
    );
    let y = s(S32, &[2, 5, 4]);
    check(
        "concat_ok",
        si::infer_concatenate_shape(&[&x, &y], 1),
        Ok("s32[2,8,4]"),
    );
    check(
        "concat_mismatch",
        si::infer_concatenate_shape(&[&x, &y], 0),
        Err(&["s32[2,3,4]", "s32[2,5,4]"]),
    );
    check(
        "concat_types",
        si::infer_concatenate_shape(&[&x, &s(F32, &[2, 3, 4])], 0),
        Err(&["f32[2,3,4]"]),
    );
    check("concat_none", si::infer_concatenate_shape(&[], 0), Err(&[]));
    check(
        "reverse_ok",
        si::infer_reverse_shape(&x, &[0, 2]),
        Ok("s32[2,3,4]"),
    );
    check(
        "reverse_range",
        si::infer_reverse_shape(&x, &[3]),
        Err(&["s32[2,3,4]"]),
    );
    let pad = |lo, hi, interior| PadDim { lo, hi, interior };
    let v = s(F32, &[3]);
    let zero = s(F32, &[]);
    check(
        "pad_ok",
        si::infer_pad_shape(&v, &zero, &[pad(1, 2, 1)]),
        Ok("f32[8]"),
    );
    check(
        "pad_negative",
        si::infer_pad_shape(&v, &zero, &[pad(-1, -1, 0)]),
        Ok("f32[1]"),
    );
    check(
        "pad_too_negative",
        si::infer_pad_shape(&v, &zero, &[pad(-2, -2, 0)]),
        Err(&["f32[3]"]),
    );
    check(
        "pad_value_type",
        si::infer_pad_shape(&v, &s(S32, &[]), &[pad(0, 0, 0)]),
        Err(&["s32[]", "f32[3]"]),
    );
    check(
        "pad_interior",
        si::infer_pad_shape(&v, &zero, &[pad(0, 0, -1)]),
        Err(&["f32[3]"]),
    );
}

#[test]
fn reduce_dot_and_friends() {
    let x = s(F32, &[4, 5, 6]);
    let sc = s(F32, &[]);
    let sig = [sc.clone(), sc.clone()];
    check(
        "reduce_ok",
        si::infer_reduce_shape(&x, &sc, &[0, 2], &sig, &sc),
        Ok("f32[5]"),
    );
    check(
        "reduce_all",
        si::infer_reduce_shape(&x, &sc, &[0, 1, 2], &sig, &sc),
        Ok("f32[]"),
    );
    check(
        "reduce_init",
        si::infer_reduce_shape(&x, &s(F32, &[1]), &[0], &sig, &sc),
        Err(&["f32[1]", "f32[]"]),
    );
    check(
        "reduce_dim",
        si::infer_reduce_shape(&x, &sc, &[3], &sig, &sc),
        Err(&["f32[4,5,6]"]),
    );
    check(
        "reduce_signature",
        si::infer_reduce_shape(&x, &sc, &[0], std::slice::from_ref(&sc), &sc),
        Err(&["(f32[], f32[]) -> f32[]"]),
    );
    let a = s(F32, &[8, 2, 3]);
    let b = s(F32, &[8, 3, 5]);
    let batched = DotDimensionNumbers {
        lhs_batch: vec![0],
        rhs_batch: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    check(
        "dot_general_batched",
        si::infer_dot_general_shape(&a, &b, &batched),
        Ok("f32[8,2,5]"),
    );
    let wrong = DotDimensionNumbers {
        lhs_contracting: vec![1],
        ..batched.clone()
    };
    check(
        "dot_general_size",
        si::infer_dot_general_shape(&a, &b, &wrong),
        Err(&["f32[8,2,3]", "f32[8,3,5]"]),
    );
    let m = s(F32, &[2, 3]);
    let dims = si::dot_dimension_numbers(&m, &s(F32, &[3])).unwrap();
    check(
        "dot_mv",
        si::infer_dot_general_shape(&m, &s(F32, &[3]), &dims),
        Ok("f32[2]"),
    );
    check(
        "dot_rank3",
        si::dot_dimension_numbers(&a, &m).map(|_| m.clone()),
        Err(&["f32[8,2,3]"]),
    );
    check(
        // XLA takes dots of pred (an outer product here).
        "dot_pred",
        si::infer_dot_general_shape(&s(Pred, &[2]), &s(Pred, &[2]), &Default::default()),
        Ok("pred[2,2]"),
    );
    // select / clamp / iota / convert
    let p = s(Pred, &[2, 3]);
    check(
        "select_ok",
        si::infer_select_shape(&p, &m, &m),
        Ok("f32[2,3]"),
    );
    check(
        "select_scalar_pred",
        si::infer_select_shape(&s(Pred, &[]), &m, &m),
        Ok("f32[2,3]"),
    );
    check(
        "select_scalar_branch",
        si::infer_select_shape(&p, &sc, &m),
        Ok("f32[2,3]"),
    );
    check(
        "select_pred_type",
        si::infer_select_shape(&m, &m, &m),
        Err(&["f32[2,3]"]),
    );
    check(
        "select_dims",
        si::infer_select_shape(&s(Pred, &[3]), &m, &m),
        Err(&["pred[3]", "f32[2,3]"]),
    );
    check(
        "clamp_ok",
        si::infer_clamp_shape(&sc, &m, &sc),
        Ok("f32[2,3]"),
    );
    check(
        "clamp_types",
        si::infer_clamp_shape(&s(S32, &[]), &m, &sc),
        Err(&["s32[]", "f32[2,3]"]),
    );
    check(
        "iota_ok",
        si::infer_iota_shape(&s(U32, &[2, 3]), 1),
        Ok("u32[2,3]"),
    );
    check(
        "iota_dim",
        si::infer_iota_shape(&s(U32, &[2, 3]), 2),
        Err(&["u32[2,3]"]),
    );
    check("convert_ok", si::infer_convert_shape(&m, S8), Ok("s8[2,3]"));
}

#[test]
fn shape_validation() {
    let huge = Shape::new(F32, &[1 << 30, 1 << 30, 4]);
    check(
        "too_many_elements",
        huge.validate().map(|_| huge.clone()),
        Err(&["f32[1073741824,1073741824,4]"]),
    );
    let neg = Shape::new(U8, &[3, -1]);
    check(
        "negative_dim",
        neg.validate().map(|_| neg.clone()),
        Err(&["u8[3,-1]"]),
    );
    let mut b = Builder::new("v");
    assert!(matches!(
        b.parameter(0, neg, "x"),
        Err(Error::InvalidShape { .. })
    ));
    assert!(matches!(
        b.iota(Shape::new(S32, &[-4]), 0),
        Err(Error::InvalidShape { .. })
    ));
}

#[test]
fn builder_misuse() {
    let mut a = Builder::new("a");
    let mut b = Builder::new("b");
    let x = a.parameter(0, s(F32, &[2]), "x").unwrap();
    let y = b.parameter(0, s(F32, &[2]), "y").unwrap();
    let e = b.add(x, y, &[]).unwrap_err();
    assert!(matches!(e, Error::ForeignOp { .. }), "{e}");
    assert!(e.to_string().contains("builder `b`"));
    // Parameter numbering must be dense at build time.
    let mut c = Builder::new("c");
    let p = c.parameter(1, s(F32, &[2]), "p").unwrap();
    let e = c.build(p).unwrap_err();
    insta::assert_snapshot!("gap_in_parameters", e.to_string());
    // Names must be valid and unique.
    assert!(c.parameter(0, s(F32, &[2]), "p").is_err());
    assert!(c.parameter(0, s(F32, &[2]), "9lives").is_err());
    assert!(c.parameter(0, s(F32, &[2]), "has space").is_err());
    // The builder stays usable after an error.
    let q = c.parameter(0, s(F32, &[2]), "q").unwrap();
    let r = c.add(p, q, &[]).unwrap();
    assert_eq!(c.build(r).unwrap().parameter_names(), vec!["q", "p"]);
}

#[test]
fn reducers_are_imported_once_and_renamed_on_clash() {
    let reducer = |name: &str, max: bool| {
        let mut r = Builder::new(name);
        let a = r.parameter(0, s(F32, &[]), "a").unwrap();
        let c = r.parameter(1, s(F32, &[]), "c").unwrap();
        let y = if max {
            r.max(a, c, &[])
        } else {
            r.add(a, c, &[])
        }
        .unwrap();
        r.build(y).unwrap()
    };
    let sum = reducer("r", false);
    let max = reducer("r", true);
    let mut b = Builder::new("two_reductions");
    let x = b.parameter(0, s(F32, &[2, 3]), "x").unwrap();
    let z = b.constant_scalar(0f32).unwrap();
    let s1 = b.reduce(x, z, &[1], &sum).unwrap();
    let s2 = b.reduce(x, z, &[0], &sum).unwrap();
    let m = b.reduce(x, z, &[1], &max).unwrap();
    let t = b.tuple(&[s1, s2, m]).unwrap();
    let comp = b.build(t).unwrap();
    assert_eq!(comp.bodies().len(), 3, "sum imported once, max renamed");
    insta::assert_snapshot!("two_reducers", comp.to_hlo_text());
}

/// The windows family's refusals that HLO text cannot express (the text's
/// `dim_labels` always names each dimension once, in range, with equal
/// spatial counts), checked through the builder's types; the others are in
/// `tests/hlo/windows/`.
#[test]
fn convolution_dimension_numbers_from_the_api() {
    use oxla_ir::{ConvolutionDimensionNumbers, OpProblem, Window};
    let labels = |l: &str| match ConvolutionDimensionNumbers::from_labels(l) {
        Ok(d) => d,
        Err(e) => panic!("{l}: {e:?}"),
    };
    let (x, k) = (s(F32, &[1, 5, 2]), s(F32, &[3, 2, 4]));
    let window = Window::from_dimensions(&[3], &[], &[], &[], &[]).unwrap();
    let conv = |d: &ConvolutionDimensionNumbers| {
        si::infer_convolution_shape(&x, &k, &window, d, 1, 1, None)
    };
    let good = labels("b0f_0io->b0f");
    assert_eq!(conv(&good).unwrap().to_string(), "f32[1,3,4]");
    let problem = |r: Result<Shape>| match r {
        Err(Error::InvalidOp { problem, .. }) => problem,
        other => panic!("expected an InvalidOp, got {other:?}"),
    };

    let mut d = good.clone();
    d.kernel_spatial_dimensions.push(2);
    let p = problem(conv(&d));
    assert!(
        matches!(p, OpProblem::ConvolutionSpatialCount { .. }),
        "{p:?}"
    );
    assert!(
        p.to_string().starts_with(
            "Both arguments to convolution must have same number of dimensions: 1 input, 2 kernel"
        ),
        "{p}"
    );
    let mut d = good.clone();
    d.output_spatial_dimensions.clear();
    assert!(
        problem(conv(&d)).to_string().starts_with(
            "Both input and output of convolution must have same number of dimensions"
        ),
    );

    let mut d = good.clone();
    d.input_feature_dimension = 3;
    let p = problem(conv(&d));
    assert!(
        matches!(p, OpProblem::ConvolutionDimensionOutOfRange { rank: 3, .. }),
        "{p:?}"
    );
    assert!(
        p.to_string().starts_with(
            "A dimension number is out of range in convolution: input {b=0, f=3, spatial={1}}"
        ),
        "{p}"
    );
    let mut d = good.clone();
    d.output_batch_dimension = -1;
    assert!(matches!(
        problem(conv(&d)),
        OpProblem::ConvolutionDimensionOutOfRange { .. }
    ));

    for (side, which) in [(0, "Input"), (1, "Window"), (2, "Output")] {
        let mut d = good.clone();
        match side {
            0 => d.input_feature_dimension = d.input_batch_dimension,
            1 => d.kernel_spatial_dimensions[0] = d.kernel_output_feature_dimension,
            _ => d.output_batch_dimension = d.output_feature_dimension,
        }
        let p = problem(conv(&d));
        assert!(
            p.to_string().starts_with(&format!(
                "{which} dimensions of convolution must contain each dimension exactly once"
            )),
            "{p}"
        );
        // The labels of numbers that are not a permutation show a `?`.
        assert!(d.labels().contains('?'), "{}", d.labels());
    }

    let err = Window::from_dimensions(&[3, 3], &[1, 1], &[(0, 0)], &[], &[]).unwrap_err();
    assert!(matches!(
        &err,
        Error::InvalidOp {
            problem: OpProblem::WindowFieldCount {
                count: 1,
                dimensions: 2,
                ..
            },
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "Invalid window: Window has different number of window dimensions than of padding \
         entries: 2 window dimensions, 1 padding entries."
    );
}

/// A reduce-window or select-and-scatter whose called computation is not
/// there (only a hand-built computation can say so).
#[test]
fn windowed_ops_name_their_missing_computations() {
    use oxla_ir::ir::{Body, InstId, Instruction};
    use oxla_ir::{Computation, ComputationId, OpKind, Window};
    let inst = |name: &str, kind: OpKind, operands: Vec<u32>, shape: Shape| Instruction {
        name: name.into(),
        kind,
        operands: operands.into_iter().map(InstId).collect(),
        shape,
    };
    let window = Window::from_dimensions(&[2], &[2], &[], &[], &[]).unwrap();
    let entry = Body {
        name: "e".into(),
        instructions: vec![
            inst("x", OpKind::Parameter { number: 0 }, vec![], s(F32, &[4])),
            inst("g", OpKind::Parameter { number: 1 }, vec![], s(F32, &[2])),
            inst("z", OpKind::Parameter { number: 2 }, vec![], s(F32, &[])),
            inst(
                "s",
                OpKind::SelectAndScatter {
                    window: window.clone(),
                    select: ComputationId(5),
                    scatter: ComputationId(6),
                },
                vec![0, 1, 2],
                s(F32, &[4]),
            ),
            inst(
                "r",
                OpKind::ReduceWindow {
                    window,
                    to_apply: ComputationId(7),
                },
                vec![0, 2],
                s(F32, &[2]),
            ),
        ],
        root: InstId(4),
    };
    let err = Computation::from_bodies("m", vec![entry]).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("select refers to computation #5, which does not exist"),
        "{text}"
    );
    assert!(
        text.contains("to_apply refers to computation #7, which does not exist"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// Indexing: what the builder API adds to the `.hlo` cases of
// tests/hlo/indexing/ (typed problems, foreign handles, called computations
// handed in by the caller).
// ---------------------------------------------------------------------------

mod indexing {
    use oxla_ir::{
        Builder, Computation, ElementType::*, Error, GatherDimensionNumbers, OpProblem,
        ScatterDimensionNumbers, Shape,
    };

    fn rows() -> GatherDimensionNumbers {
        GatherDimensionNumbers {
            offset_dims: vec![1],
            collapsed_slice_dims: vec![0],
            start_index_map: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        }
    }

    fn problem(e: Error) -> OpProblem {
        match e {
            Error::InvalidOp { problem, .. } => problem,
            other => panic!("not an InvalidOp: {other}"),
        }
    }

    #[test]
    fn each_check_is_a_typed_problem_with_the_numbers() -> oxla_ir::Result<()> {
        let mut b = Builder::new("g");
        let x = b.parameter(0, Shape::new(F32, &[10, 3]), "x")?;
        let ids = b.parameter(1, Shape::new(S32, &[5]), "ids")?;
        let p = problem(b.gather(x, ids, &rows(), &[2, 3], false).unwrap_err());
        assert_eq!(
            p,
            OpProblem::GatherSliceBound {
                batching: false,
                dimension: 0,
                size: 2,
                position: 0
            }
        );
        let bad = GatherDimensionNumbers {
            offset_dims: vec![2, 1],
            ..rows()
        };
        let p = problem(b.gather(x, ids, &bad, &[1, 3], false).unwrap_err());
        assert!(matches!(
            p,
            OpProblem::IndexDimsUnsorted {
                op: "gather",
                list: "offset_dims",
                ..
            }
        ));
        let i = b.parameter(2, Shape::scalar(S32), "i")?;
        let j = b.parameter(3, Shape::scalar(S64), "j")?;
        let p = problem(b.dynamic_slice(x, &[i, j], &[2, 2]).unwrap_err());
        assert!(
            matches!(p, OpProblem::DynamicSliceIndexShapes { .. }),
            "{p:?}"
        );
        let p = problem(b.dynamic_slice(x, &[i, i], &[11, 2]).unwrap_err());
        assert_eq!(
            p.to_string(),
            "Slice dim size 11 greater than dynamic slice dimension: 10. The operand is f32[10,3]; the dimension is 0."
        );
        let u = b.parameter(4, Shape::new(F64, &[2, 2]), "u")?;
        let p = problem(b.dynamic_update_slice(x, u, &[i, i]).unwrap_err());
        assert!(
            matches!(p, OpProblem::DynamicUpdateSliceType { .. }),
            "{p:?}"
        );
        Ok(())
    }

    #[test]
    fn foreign_handles_and_broken_computations_are_refused() -> oxla_ir::Result<()> {
        let mut other = Builder::new("other");
        let foreign = other.parameter(0, Shape::new(S32, &[5]), "ids")?;
        let mut b = Builder::new("g");
        let x = b.parameter(0, Shape::new(F32, &[10, 3]), "x")?;
        let e = b.gather(x, foreign, &rows(), &[1, 3], false).unwrap_err();
        assert!(matches!(e, Error::ForeignOp { .. }), "{e}");
        let e = b
            .dynamic_slice(x, &[foreign, foreign], &[1, 1])
            .unwrap_err();
        assert!(matches!(e, Error::ForeignOp { .. }), "{e}");
        // An update computation assembled without the verifier (no body at
        // all) is refused before it is read.
        let empty = Computation::from_bodies_unverified("empty", vec![]);
        let ids = b.parameter(1, Shape::new(S32, &[5]), "ids")?;
        let u = b.parameter(2, Shape::new(F32, &[5, 3]), "u")?;
        let dims = ScatterDimensionNumbers {
            update_window_dims: vec![1],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        };
        let e = b
            .scatter(&[x], ids, &[u], &empty, &dims, false, false)
            .unwrap_err();
        assert!(matches!(e, Error::Verification { .. }), "{e}");
        Ok(())
    }

    /// A variadic scatter's update computation returns a tuple: the builder
    /// imports it as a called body, the verifier accepts it for a scatter
    /// (and only there), and the module prints and parses back.
    #[test]
    fn a_variadic_scatter_calls_a_tuple_returning_computation() -> oxla_ir::Result<()> {
        let mut f = Builder::new("pair");
        let p: Vec<_> = [(F32, "a"), (S32, "b"), (F32, "c"), (S32, "d")]
            .iter()
            .enumerate()
            .map(|(k, &(t, n))| f.parameter(k as i64, Shape::scalar(t), n))
            .collect::<oxla_ir::Result<_>>()?;
        let s0 = f.add(p[0], p[2], &[])?;
        let s1 = f.max(p[1], p[3], &[])?;
        let t = f.tuple(&[s0, s1])?;
        let pair = f.build(t)?;

        let mut b = Builder::new("variadic");
        let x = b.parameter(0, Shape::new(F32, &[4]), "x")?;
        let y = b.parameter(1, Shape::new(S32, &[4]), "y")?;
        let idx = b.parameter(2, Shape::new(S32, &[3]), "idx")?;
        let u = b.parameter(3, Shape::new(F32, &[3]), "u")?;
        let v = b.parameter(4, Shape::new(S32, &[3]), "v")?;
        let dims = ScatterDimensionNumbers {
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        };
        let s = b.scatter(&[x, y], idx, &[u, v], &pair, &dims, false, true)?;
        assert_eq!(b.shape(s)?.to_string(), "(f32[4], s32[4])");
        let comp = b.build(s)?;
        let text = comp.to_hlo_text();
        assert!(
            text.contains("unique_indices=true, to_apply=pair"),
            "{text}"
        );
        assert_eq!(oxla_ir::parse_hlo_module(&text)?.to_hlo_text(), text);
        // The same computation as a reducer is refused: only a scatter may
        // call a tuple-returning body.
        let mut r = Builder::new("r");
        let z = r.parameter(0, Shape::new(F32, &[4]), "z")?;
        let zero = r.constant_scalar(0f32)?;
        assert!(r.reduce(z, zero, &[0], &pair).is_err());
        Ok(())
    }
}
