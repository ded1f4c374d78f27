//! The Array API broadcasting text, example by example, and the NumPy
//! wrappers' lowering.

use oxla_client::numpy::{
    Index::{self, *},
    Np, broadcast_dimensions, broadcast_shapes, check_in_place, indexed_shape,
};
use oxla_ir::{
    BinaryOp, Builder, ComparisonDirection, ElementType, ElementType::*, Error, Literal, Result,
    Shape,
};

use crate::{coords, eval, filled, source_position};

/// The `add` line of the HLO text of `text`.
fn add_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.contains(" add("))
        .expect("an add instruction")
}

/// `x + y` for f32 operands of dims `a` and `b` through [`Np::add`]:
/// checks the result dims, the emitted `broadcast_dimensions` (as printed
/// after `add(x, y)`, or nothing), and every value against NumPy's
/// broadcasting read of the inputs.
fn check_add(a: &[i64], b: &[i64], result: &[i64], printed: &str) -> Result<()> {
    let mut bld = Builder::new("np_add");
    let x = bld.parameter(0, Shape::new(F32, a), "x")?;
    let y = bld.parameter(1, Shape::new(F32, b), "y")?;
    let z = Np::new(&mut bld).add(x, y)?;
    let comp = bld.build(z)?;
    assert_eq!(comp.result_shape(), &Shape::new(F32, result));
    assert_eq!(broadcast_shapes(&[a, b])?, result);
    let text = comp.to_hlo_text();
    assert!(
        add_line(&text).ends_with(&format!("add(x, y){printed}")),
        "{a:?} + {b:?}: {text}"
    );
    let xa = filled(a, |i| (i + 1) as f32);
    let yb = filled(b, |i| (1000 * (i + 1)) as f32);
    let got = eval(&comp, &[&xa, &yb])?;
    let (xs, ys) = (xa.to_vec::<f32>()?, yb.to_vec::<f32>()?);
    let want: Vec<f32> = coords(result)
        .iter()
        .map(|c| xs[source_position(c, a)] + ys[source_position(c, b)])
        .collect();
    assert_eq!(got.shape().dims(), result);
    assert_eq!(got.to_vec::<f32>()?, want, "{a:?} + {b:?}");
    Ok(())
}

#[test]
fn spec_compatible_examples_lower_to_explicit_broadcast_dimensions() -> Result<()> {
    // A (4d) 8x1x6x1, B (3d) 7x1x5 -> 8x7x6x5
    check_add(
        &[8, 1, 6, 1],
        &[7, 1, 5],
        &[8, 7, 6, 5],
        ", broadcast_dimensions={1,2,3}",
    )?;
    // A (2d) 5x4, B (1d) 1 -> 5x4
    check_add(&[5, 4], &[1], &[5, 4], ", broadcast_dimensions={1}")?;
    // A (2d) 5x4, B (1d) 4 -> 5x4
    check_add(&[5, 4], &[4], &[5, 4], ", broadcast_dimensions={1}")?;
    // A (3d) 15x3x5, B (3d) 15x1x5 -> 15x3x5: equal ranks, nothing to map
    check_add(&[15, 3, 5], &[15, 1, 5], &[15, 3, 5], "")?;
    // A (3d) 15x3x5, B (2d) 3x5 -> 15x3x5
    check_add(
        &[15, 3, 5],
        &[3, 5],
        &[15, 3, 5],
        ", broadcast_dimensions={1,2}",
    )?;
    // A (3d) 15x3x5, B (2d) 3x1 -> 15x3x5
    check_add(
        &[15, 3, 5],
        &[3, 1],
        &[15, 3, 5],
        ", broadcast_dimensions={1,2}",
    )?;
    Ok(())
}

#[test]
fn lower_rank_operand_on_the_left_is_mapped_too() -> Result<()> {
    check_add(
        &[7, 1, 5],
        &[8, 1, 6, 1],
        &[8, 7, 6, 5],
        ", broadcast_dimensions={1,2,3}",
    )?;
    check_add(&[3], &[2, 3], &[2, 3], ", broadcast_dimensions={1}")?;
    check_add(&[2, 1], &[1, 3], &[2, 3], "")?; // the outer operation
    check_add(&[1], &[4, 2, 3], &[4, 2, 3], ", broadcast_dimensions={2}")?;
    check_add(&[0, 1], &[1, 3], &[0, 3], "")?; // zero-size dims broadcast like any size
    Ok(())
}

#[test]
fn spec_example_hlo_text() -> Result<()> {
    let mut b = Builder::new("spec_example");
    let x = b.parameter(0, Shape::new(F32, &[8, 1, 6, 1]), "A")?;
    let y = b.parameter(1, Shape::new(F32, &[7, 1, 5]), "B")?;
    let z = Np::new(&mut b).add(x, y)?;
    insta::assert_snapshot!("spec_example_hlo", b.build(z)?.to_hlo_text());
    Ok(())
}

/// The three shape pairs the spec says do not broadcast: the dims-only
/// message and the op wrapper's message, one snapshot each.
fn refusal(a: &[i64], b: &[i64]) -> Result<String> {
    let shapes = broadcast_shapes(&[a, b]).unwrap_err();
    assert!(matches!(shapes, Error::FrontEnd { .. }));
    let mut bld = Builder::new("refused");
    let x = bld.parameter(0, Shape::new(F32, a), "x")?;
    let y = bld.parameter(1, Shape::new(F32, b), "y")?;
    let op = Np::new(&mut bld).add(x, y).unwrap_err();
    Ok(format!("{shapes}\n\n{op}"))
}

#[test]
fn spec_invalid_3_vs_4() -> Result<()> {
    // A (1d) 3, B (1d) 4: dimension does not match
    insta::assert_snapshot!("invalid_3_vs_4", refusal(&[3], &[4])?);
    Ok(())
}

#[test]
fn spec_invalid_2x1_vs_8x4x3() -> Result<()> {
    // A (2d) 2x1, B (3d) 8x4x3: second dimension does not match
    let text = refusal(&[2, 1], &[8, 4, 3])?;
    assert!(text.contains("axis 0 of the first, axis 1 of the second) has sizes 2 and 4"));
    insta::assert_snapshot!("invalid_2x1_vs_8x4x3", text);
    Ok(())
}

#[test]
fn spec_invalid_15x3x5_vs_15x3() -> Result<()> {
    // A (3d) 15x3x5, B (2d) 15x3: singleton dims are prepended, not appended
    let text = refusal(&[15, 3, 5], &[15, 3])?;
    assert!(text.contains("reshape it to [15, 3, 1]"));
    insta::assert_snapshot!("invalid_15x3x5_vs_15x3", text);
    Ok(())
}

#[test]
fn broadcast_shapes_of_many_shapes() -> Result<()> {
    assert_eq!(broadcast_shapes(&[])?, Vec::<i64>::new());
    assert_eq!(broadcast_shapes(&[&[]])?, Vec::<i64>::new());
    assert_eq!(broadcast_shapes(&[&[2, 3]])?, vec![2, 3]);
    assert_eq!(broadcast_shapes(&[&[], &[1], &[1, 1]])?, vec![1, 1]);
    assert_eq!(
        broadcast_shapes(&[&[6, 1, 1], &[5, 1], &[4]])?,
        vec![6, 5, 4]
    );
    assert_eq!(broadcast_shapes(&[&[0], &[1], &[]])?, vec![0]);
    let err = broadcast_shapes(&[&[2, 1], &[1], &[8, 4, 3]]).unwrap_err();
    insta::assert_snapshot!("invalid_three_shapes", err.to_string());
    let err = broadcast_shapes(&[&[2], &[-1]]).unwrap_err();
    assert!(matches!(err, Error::InvalidShape { .. }), "{err}");
    Ok(())
}

#[test]
fn broadcast_dimensions_are_right_aligned() {
    assert_eq!(broadcast_dimensions(2, 1), vec![1]);
    assert_eq!(broadcast_dimensions(4, 3), vec![1, 2, 3]);
    assert_eq!(broadcast_dimensions(3, 4), vec![1, 2, 3]);
    assert_eq!(broadcast_dimensions(5, 2), vec![3, 4]);
    assert!(broadcast_dimensions(3, 0).is_empty());
    assert!(broadcast_dimensions(0, 3).is_empty());
    assert!(broadcast_dimensions(3, 3).is_empty());
}

/// The types each binary op is checked with: atan2 needs floats, the
/// bitwise and shift ops integers.
fn type_for(op: BinaryOp) -> ElementType {
    match op {
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => U32,
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => S32,
        _ => F32,
    }
}

#[test]
fn every_binary_op_has_a_wrapper_that_emits_the_mapping() -> Result<()> {
    for &op in BinaryOp::ALL {
        let t = type_for(op);
        let mut b = Builder::new("every");
        let x = b.parameter(0, Shape::new(t, &[2, 3]), "x")?;
        let v = b.parameter(1, Shape::new(t, &[3]), "v")?;
        let mut np = Np::new(&mut b);
        let by_method = match op {
            BinaryOp::Add => np.add(x, v)?,
            BinaryOp::Sub => np.sub(x, v)?,
            BinaryOp::Mul => np.mul(x, v)?,
            BinaryOp::Div => np.div(x, v)?,
            BinaryOp::Rem => np.rem(x, v)?,
            BinaryOp::Max => np.max(x, v)?,
            BinaryOp::Min => np.min(x, v)?,
            BinaryOp::Pow => np.pow(x, v)?,
            BinaryOp::Atan2 => np.atan2(x, v)?,
            BinaryOp::And => np.and(x, v)?,
            BinaryOp::Or => np.or(x, v)?,
            BinaryOp::Xor => np.xor(x, v)?,
            BinaryOp::ShiftLeft => np.shift_left(x, v)?,
            BinaryOp::ShiftRightArithmetic => np.shift_right_arithmetic(x, v)?,
            BinaryOp::ShiftRightLogical => np.shift_right_logical(x, v)?,
            BinaryOp::Compare(ComparisonDirection::Eq, _) => np.eq(x, v)?,
            BinaryOp::Compare(ComparisonDirection::Ne, _) => np.ne(x, v)?,
            BinaryOp::Compare(ComparisonDirection::Lt, _) => np.lt(x, v)?,
            BinaryOp::Compare(ComparisonDirection::Le, _) => np.le(x, v)?,
            BinaryOp::Compare(ComparisonDirection::Gt, _) => np.gt(x, v)?,
            BinaryOp::Compare(ComparisonDirection::Ge, _) => np.ge(x, v)?,
        };
        let by_value = np.binary(op, v, x)?;
        let want = if op.is_compare() { Pred } else { t };
        for y in [by_method, by_value] {
            assert_eq!(b.shape(y)?, Shape::new(want, &[2, 3]), "{op}");
        }
        let text = b.build(by_value)?.to_hlo_text();
        assert!(
            text.contains(&format!("{}(v, x)", op.name()))
                && text.contains("broadcast_dimensions={1}"),
            "{op}: {text}"
        );
    }
    Ok(())
}

#[test]
fn wrapper_values_for_a_few_ops() -> Result<()> {
    let mut b = Builder::new("few");
    let x = b.parameter(0, Shape::new(S32, &[2, 3]), "x")?;
    let v = b.parameter(1, Shape::new(S32, &[3]), "v")?;
    let mut np = Np::new(&mut b);
    let d = np.sub(x, v)?;
    let m = np.max(v, x)?;
    let c = np.lt(v, x)?;
    let t = np.builder().tuple(&[d, m, c])?;
    let comp = b.build(t)?;
    let xs = Literal::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?;
    let vs = Literal::from_vec(&[3], vec![3i32, 3, 3])?;
    let out = eval(&comp, &[&xs, &vs])?;
    let parts = out.tuple_elements().expect("a tuple");
    assert_eq!(parts[0].to_vec::<i32>()?, vec![-2, -1, 0, 1, 2, 3]);
    assert_eq!(parts[1].to_vec::<i32>()?, vec![3, 3, 3, 4, 5, 6]);
    assert_eq!(
        parts[2].to_vec::<bool>()?,
        vec![false, false, false, true, true, true]
    );
    Ok(())
}

#[test]
fn scalars_and_rank_0_need_no_mapping() -> Result<()> {
    let mut b = Builder::new("scalars");
    let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    let s = b.parameter(1, Shape::scalar(F32), "s")?;
    let mut np = Np::new(&mut b);
    let y = np.mul(s, x)?;
    let two = np.scalar_like(x, 2.0)?;
    let z = np.add(y, two)?;
    let comp = b.build(z)?;
    let text = comp.to_hlo_text();
    assert!(text.contains("multiply(s, x)\n"), "{text}");
    assert!(!text.contains("broadcast_dimensions"), "{text}");
    let out = eval(
        &comp,
        &[&filled(&[2, 3], |i| i as f32), &Literal::scalar(10f32)],
    )?;
    assert_eq!(out.to_vec::<f32>()?, vec![2., 12., 22., 32., 42., 52.]);
    Ok(())
}

#[test]
fn scalar_like_takes_the_array_type_or_refuses() -> Result<()> {
    let mut b = Builder::new("like");
    let i = b.parameter(0, Shape::new(S32, &[2]), "i")?;
    let u = b.parameter(1, Shape::new(U8, &[2]), "u")?;
    let p = b.parameter(2, Shape::new(Pred, &[2]), "p")?;
    let f = b.parameter(3, Shape::new(F32, &[2]), "f")?;
    let mut np = Np::new(&mut b);
    for (like, value, ok) in [
        (i, -7.0, true),
        (i, 2.5, false),
        (i, 3e9, false),
        (u, 255.0, true),
        (u, 300.0, false),
        (u, -1.0, false),
        (p, 1.0, true),
        (p, 2.0, false),
        (f, 0.1, true),
        (f, f64::NAN, true),
    ] {
        let got = np.scalar_like(like, value);
        assert_eq!(got.is_ok(), ok, "{value}: {got:?}");
    }
    let err = np.scalar_like(i, 2.5).unwrap_err();
    insta::assert_snapshot!("scalar_like_refused", err.to_string());
    Ok(())
}

#[test]
fn element_types_are_never_promoted() -> Result<()> {
    let mut b = Builder::new("types");
    let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    let v = b.parameter(1, Shape::new(S32, &[3]), "v")?;
    let err = Np::new(&mut b).add(x, v).unwrap_err();
    assert!(matches!(err, Error::ElementTypeMismatch { .. }), "{err}");
    Ok(())
}

#[test]
fn foreign_and_tuple_operands_are_errors() -> Result<()> {
    let mut other = Builder::new("other");
    let o = other.parameter(0, Shape::new(F32, &[3]), "o")?;
    let mut b = Builder::new("mine");
    let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    let t = b.tuple(&[x])?;
    let mut np = Np::new(&mut b);
    assert!(matches!(np.add(x, o), Err(Error::ForeignOp { .. })));
    assert!(np.add(x, t).is_err());
    assert!(np.assign(t, &[], x).is_err());
    assert!(np.get(t, &[At(0)]).is_err());
    Ok(())
}

#[test]
fn spec_in_place_examples() -> Result<()> {
    // x = empty((2, 3, 4)); a = empty((1, 3, 4))
    check_in_place(&[2, 3, 4], &[1, 3, 4])?; // x[...] = a: OK
    let err = check_in_place(&[3, 4], &[1, 3, 4]).unwrap_err(); // x[1, ...] = a: refused
    insta::assert_snapshot!("in_place_refused_check", err.to_string());

    let mut b = Builder::new("setitem");
    let x = b.parameter(0, Shape::new(F32, &[2, 3, 4]), "x")?;
    let a = b.parameter(1, Shape::new(F32, &[1, 3, 4]), "a")?;
    let mut np = Np::new(&mut b);
    assert_eq!(indexed_shape(&[2, 3, 4], &[Ellipsis])?, vec![2, 3, 4]);
    assert_eq!(indexed_shape(&[2, 3, 4], &[At(1), Ellipsis])?, vec![3, 4]);
    let err = np.assign(x, &[At(1), Ellipsis], a).unwrap_err();
    insta::assert_snapshot!("in_place_refused_assign", err.to_string());
    let y = np.assign(x, &[Ellipsis], a)?;
    let comp = b.build(y)?;
    insta::assert_snapshot!("in_place_allowed_hlo", comp.to_hlo_text());
    let xs = filled(&[2, 3, 4], |i| i as f32);
    let as_ = filled(&[1, 3, 4], |i| -(i as f32));
    let out = eval(&comp, &[&xs, &as_])?;
    let a_vals = as_.to_vec::<f32>()?;
    let want: Vec<f32> = a_vals.iter().chain(&a_vals).copied().collect();
    assert_eq!(out.to_vec::<f32>()?, want);
    Ok(())
}

#[test]
fn in_place_rule_cases() -> Result<()> {
    for (target, value, ok) in [
        (&[2, 3, 4][..], &[4][..], true),
        (&[2, 3, 4], &[3, 1], true),
        (&[2, 3, 4], &[], true),
        (&[3], &[2, 3], false),
        (&[1, 4], &[3, 4], false),
        (&[2, 3], &[2], false),
        (&[0, 3], &[1, 3], true),
        (&[0, 3], &[2, 3], false),
        (&[], &[], true),
        (&[], &[1], false),
    ] {
        assert_eq!(
            check_in_place(target, value).is_ok(),
            ok,
            "{value:?} into {target:?}"
        );
    }
    insta::assert_snapshot!(
        "in_place_would_stretch",
        check_in_place(&[1, 4], &[3, 4]).unwrap_err().to_string()
    );
    insta::assert_snapshot!(
        "in_place_size_mismatch",
        check_in_place(&[2, 3], &[2]).unwrap_err().to_string()
    );
    Ok(())
}

/// `target[index] = value` for f32 literals, computed by hand: NumPy's
/// semantics as a reference for [`Np::assign`].
fn reference_assign(target: &Literal, index: &[Index], value: &Literal) -> Result<Vec<f32>> {
    let dims = target.shape().dims().to_vec();
    let mut out = target.to_vec::<f32>()?;
    let vals = value.to_vec::<f32>()?;
    let vdims = value.shape().dims().to_vec();
    // Expand the index the simple way: leading entries, then `:` for the rest.
    let mut full: Vec<Index> = Vec::new();
    let named = index.iter().filter(|i| **i != Ellipsis).count();
    for &i in index {
        if i == Ellipsis {
            full.extend(std::iter::repeat_n(Full, dims.len() - named));
        } else {
            full.push(i);
        }
    }
    full.resize(dims.len(), Full);
    for (pos, c) in coords(&dims).iter().enumerate() {
        let mut region_coord = Vec::new();
        let mut inside = true;
        for (k, &i) in full.iter().enumerate() {
            match i {
                At(p) => inside &= c[k] == if p < 0 { p + dims[k] } else { p },
                Range(s, e) => {
                    inside &= c[k] >= s && c[k] < e;
                    region_coord.push(c[k] - s);
                }
                Full | Ellipsis => region_coord.push(c[k]),
            }
        }
        if inside {
            out[pos] = vals[source_position(&region_coord, &vdims)];
        }
    }
    Ok(out)
}

#[test]
fn assign_values_match_numpy() -> Result<()> {
    let cases: Vec<(Vec<i64>, Vec<Index>, Vec<i64>)> = vec![
        (vec![2, 3, 4], vec![At(1), Ellipsis], vec![4]),
        (vec![2, 3, 4], vec![At(1), Ellipsis], vec![3, 1]),
        (vec![2, 3, 4], vec![Ellipsis, Range(1, 3)], vec![2]),
        (vec![2, 3, 4], vec![Full, At(-1)], vec![1, 4]),
        (vec![2, 3, 4], vec![At(0), At(2), At(3)], vec![]),
        (vec![2, 3, 4], vec![Range(0, 1)], vec![1, 3, 4]),
        (vec![4], vec![Range(1, 1)], vec![1]),
        (vec![4], vec![], vec![4]),
    ];
    for (tdims, index, vdims) in cases {
        let mut b = Builder::new("assign");
        let x = b.parameter(0, Shape::new(F32, &tdims), "x")?;
        let a = b.parameter(1, Shape::new(F32, &vdims), "a")?;
        let y = Np::new(&mut b).assign(x, &index, a)?;
        let comp = b.build(y)?;
        let xs = filled(&tdims, |i| i as f32);
        let as_ = filled(&vdims, |i| -1.0 - i as f32);
        let got = eval(&comp, &[&xs, &as_])?.to_vec::<f32>()?;
        assert_eq!(
            got,
            reference_assign(&xs, &index, &as_)?,
            "{index:?} {vdims:?}"
        );
    }
    Ok(())
}

#[test]
fn assign_lowering_hlo() -> Result<()> {
    let mut b = Builder::new("assign_row");
    let x = b.parameter(0, Shape::new(F32, &[2, 3, 4]), "x")?;
    let row = b.parameter(1, Shape::new(F32, &[4]), "row")?;
    let y = Np::new(&mut b).assign(x, &[At(1), Ellipsis], row)?; // x[1, ...] = row
    insta::assert_snapshot!("assign_row_hlo", b.build(y)?.to_hlo_text());
    Ok(())
}

#[test]
fn get_values_match_numpy() -> Result<()> {
    let mut b = Builder::new("get");
    let x = b.parameter(0, Shape::new(S32, &[2, 3, 4]), "x")?;
    let mut np = Np::new(&mut b);
    let whole = np.get(x, &[Ellipsis])?;
    assert_eq!(whole, x);
    let r = np.get(x, &[At(1), Ellipsis, Range(-3, 100)])?; // x[1, ..., -3:100]
    let comp = b.build(r)?;
    let xs = filled(&[2, 3, 4], |i| i as i32);
    let out = eval(&comp, &[&xs])?;
    assert_eq!(out.shape().dims(), &[3, 3]);
    assert_eq!(
        out.to_vec::<i32>()?,
        vec![13, 14, 15, 17, 18, 19, 21, 22, 23]
    );
    Ok(())
}

#[test]
fn index_errors_use_numpy_words() -> Result<()> {
    let too_many = indexed_shape(&[2, 3], &[At(0), At(0), At(0)]).unwrap_err();
    let out_of_bounds = indexed_shape(&[2, 3], &[Full, At(-4)]).unwrap_err();
    let two_ellipses = indexed_shape(&[2, 3], &[Ellipsis, Ellipsis]).unwrap_err();
    insta::assert_snapshot!(
        "index_errors",
        format!("{too_many}\n{out_of_bounds}\n{two_ellipses}")
    );
    Ok(())
}

#[test]
fn assign_refuses_other_element_types() -> Result<()> {
    let mut b = Builder::new("types");
    let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    let v = b.parameter(1, Shape::new(S32, &[3]), "v")?;
    let err = Np::new(&mut b).assign(x, &[At(0)], v).unwrap_err();
    insta::assert_snapshot!("assign_type_refused", err.to_string());
    Ok(())
}

#[test]
fn augmented_assignment_keeps_the_target_shape() -> Result<()> {
    let mut b = Builder::new("iadd");
    let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    let a = b.parameter(1, Shape::new(F32, &[2, 3]), "a")?;
    let mut np = Np::new(&mut b);
    let err = np.update(BinaryOp::Add, x, &[Ellipsis], a).unwrap_err(); // x += a
    insta::assert_snapshot!("iadd_refused", err.to_string());
    let y = np.update(BinaryOp::Mul, a, &[At(1)], x)?; // a[1] *= x
    let comp = b.build(y)?;
    let out = eval(
        &comp,
        &[
            &Literal::from_vec(&[3], vec![1f32, 2., 3.])?,
            &Literal::from_vec(&[2, 3], vec![1f32, 1., 1., 2., 2., 2.])?,
        ],
    )?;
    assert_eq!(out.to_vec::<f32>()?, vec![1., 1., 1., 2., 4., 6.]);
    Ok(())
}

#[test]
fn broadcast_to_follows_the_in_place_rule() -> Result<()> {
    let mut b = Builder::new("bt");
    let x = b.parameter(0, Shape::new(S32, &[3, 1]), "x")?;
    let mut np = Np::new(&mut b);
    assert_eq!(np.broadcast_to(x, &[3, 1])?, x);
    let err = np.broadcast_to(x, &[3]).unwrap_err();
    insta::assert_snapshot!("broadcast_to_refused", err.to_string());
    assert!(matches!(
        np.broadcast_to(x, &[-1, 3, 1]),
        Err(Error::InvalidShape { .. })
    ));
    let y = np.broadcast_to(x, &[2, 3, 2])?;
    let comp = b.build(y)?;
    assert!(comp.to_hlo_text().contains("dimensions={1,2}"));
    let out = eval(&comp, &[&Literal::from_vec(&[3, 1], vec![1i32, 2, 3])?])?;
    assert_eq!(
        out.to_vec::<i32>()?,
        vec![1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]
    );
    Ok(())
}
