//! The TML broadcasting text, example by example, with nested types.

use oxla_client::tml::{self, Tml, TmlOp, TmlType, Value, check_assign, infer_binary_type};
use oxla_ir::{Builder, ElementType, Literal, Result};

use crate::{coords, eval, filled};

fn t(element: TmlType, dims: &[i64]) -> TmlType {
    TmlType::tensor(element, dims)
}

fn int(dims: &[i64]) -> TmlType {
    t(TmlType::INT, dims)
}

/// An `int` constant of type `ty` (flat values, row-major).
fn int_value(tml: &mut Tml, ty: TmlType, values: &[i64]) -> Result<Value> {
    let dims = ty.flat_dims();
    tml.constant(ty, Literal::from_vec(&dims, values.to_vec())?)
}

/// Builds `v`, evaluates it, and checks its flat dims against its type.
fn run(b: &Builder, v: &Value) -> Result<Literal> {
    let out = eval(&b.build(v.op())?, &[])?;
    assert_eq!(out.shape(), &v.ty().flat_shape());
    Ok(out)
}

// ---------------------------------------------------------------------------
// Logical, relational and bitwise operations
// ---------------------------------------------------------------------------

#[test]
fn spec_relational_scalar_with_tensor() -> Result<()> {
    let mut bld = Builder::new("rel_scalar");
    let mut tml = Tml::new(&mut bld);
    // a = 1; b = [1, 2, 3]; c = [b, b, b]
    let a = int_value(&mut tml, TmlType::INT, &[1])?;
    let b = int_value(&mut tml, int(&[3]), &[1, 2, 3])?;
    let c = int_value(&mut tml, t(int(&[3]), &[3]), &[1, 2, 3, 1, 2, 3, 1, 2, 3])?;
    // d = a > b  ->  [false, false, false]
    let d = tml.gt(&a, &b)?;
    assert_eq!(d.ty(), &t(TmlType::BOOL, &[3]));
    assert_eq!(run(&bld, &d)?.to_vec::<bool>()?, vec![false; 3]);
    // d = a > c  ->  [[false, false, false], ...], of type tensor<tensor<bool, 3>, 3>
    let mut tml = Tml::new(&mut bld);
    let d = tml.gt(&a, &c)?;
    assert_eq!(d.ty().to_string(), "tensor<tensor<bool, 3>, 3>");
    assert_eq!(run(&bld, &d)?.to_vec::<bool>()?, vec![false; 9]);
    Ok(())
}

#[test]
fn spec_relational_compatible_tensors() -> Result<()> {
    let mut bld = Builder::new("rel_tensors");
    let mut tml = Tml::new(&mut bld);
    // a = [1, 2, 3]; b = [4, 5, -1]; c = [a, a, a]; d = [b, b, b]
    let a = int_value(&mut tml, int(&[3]), &[1, 2, 3])?;
    let b = int_value(&mut tml, int(&[3]), &[4, 5, -1])?;
    let nested = t(int(&[3]), &[3]);
    let c = int_value(&mut tml, nested.clone(), &[1, 2, 3, 1, 2, 3, 1, 2, 3])?;
    let d = int_value(&mut tml, nested, &[4, 5, -1, 4, 5, -1, 4, 5, -1])?;
    // The same example read with [a, a, a] as a flat 3x3 tensor.
    let cf = int_value(&mut tml, int(&[3, 3]), &[1, 2, 3, 1, 2, 3, 1, 2, 3])?;
    let df = int_value(&mut tml, int(&[3, 3]), &[4, 5, -1, 4, 5, -1, 4, 5, -1])?;
    let x = tml.gt(&a, &b)?;
    let y = tml.gt(&c, &d)?;
    let yf = tml.gt(&cf, &df)?;
    assert_eq!(run(&bld, &x)?.to_vec::<bool>()?, vec![false, false, true]);
    let row = [false, false, true];
    let want: Vec<bool> = row.iter().cycle().take(9).copied().collect();
    assert_eq!(run(&bld, &y)?.to_vec::<bool>()?, want);
    assert_eq!(run(&bld, &yf)?.to_vec::<bool>()?, want);
    // Neither needs any broadcasting: no broadcast_dimensions at all.
    assert!(!bld.build(y.op())?.to_hlo_text().contains("broadcast"));
    Ok(())
}

#[test]
fn relational_ops_add_no_elements() -> Result<()> {
    // [1, 2, 3] > [1, 2, 3]^T would be fine arithmetic broadcasting, but
    // comparisons never add elements implicitly.
    let err = infer_binary_type(TmlOp::Gt, &int(&[3]), &int(&[3, 1])).unwrap_err();
    insta::assert_snapshot!("relational_refused_row_vs_column", err.to_string());
    let err = infer_binary_type(TmlOp::Eq, &int(&[3]), &int(&[1, 3])).unwrap_err();
    assert!(
        err.to_string().contains("structures are 3 and 1x3"),
        "{err}"
    );
    Ok(())
}

#[test]
fn op_classes_check_their_root_types() -> Result<()> {
    let bools = t(TmlType::BOOL, &[2]);
    let uints = t(TmlType::UINT, &[2]);
    let ints = int(&[2]);
    let reals = t(TmlType::REAL, &[2]);
    // Relational: numeric; logical: bool; bitwise: unsigned.
    assert_eq!(infer_binary_type(TmlOp::Lt, &reals, &TmlType::REAL)?, bools);
    assert_eq!(infer_binary_type(TmlOp::Lt, &uints, &uints)?, bools);
    assert_eq!(
        infer_binary_type(TmlOp::LogicalXor, &bools, &TmlType::BOOL)?,
        bools
    );
    // Our reading: a bitwise result keeps its unsigned root.
    assert_eq!(
        infer_binary_type(TmlOp::BitwiseAnd, &uints, &TmlType::UINT)?,
        uints
    );
    let refusals = [
        infer_binary_type(TmlOp::Lt, &bools, &bools),
        infer_binary_type(TmlOp::LogicalAnd, &ints, &ints),
        infer_binary_type(TmlOp::BitwiseOr, &ints, &ints),
        infer_binary_type(TmlOp::BitwiseOr, &bools, &bools),
        infer_binary_type(TmlOp::Add, &bools, &bools),
        infer_binary_type(TmlOp::Add, &ints, &reals),
        infer_binary_type(TmlOp::Gt, &ints, &TmlType::REAL),
    ];
    let text: Vec<String> = refusals
        .into_iter()
        .map(|r| r.map(|ty| ty.to_string()).unwrap_err().to_string())
        .collect();
    insta::assert_snapshot!("root_type_refusals", text.join("\n"));
    Ok(())
}

#[test]
fn logical_and_bitwise_values() -> Result<()> {
    let mut bld = Builder::new("bits");
    let mut tml = Tml::new(&mut bld);
    let p = tml.constant(
        t(TmlType::BOOL, &[4]),
        Literal::from_vec(&[4], vec![true, true, false, false])?,
    )?;
    let q = tml.constant(TmlType::BOOL, Literal::scalar(true))?;
    let u = tml.constant(
        t(TmlType::UINT, &[3]),
        Literal::from_vec(&[3], vec![0b1100u64, 0b1010, 0b0110])?,
    )?;
    let m = tml.constant(TmlType::UINT, Literal::scalar(0b0110u64))?;
    let and = tml.logical_and(&p, &q)?;
    let xor = tml.logical_xor(&q, &p)?;
    let bits = tml.bitwise_and(&u, &m)?;
    let bor = tml.bitwise_or(&m, &u)?;
    let bxor = tml.bitwise_xor(&u, &u)?;
    let lor = tml.logical_or(&p, &p)?;
    assert_eq!(bits.ty(), u.ty());
    assert_eq!(
        run(&bld, &and)?.to_vec::<bool>()?,
        vec![true, true, false, false]
    );
    assert_eq!(
        run(&bld, &xor)?.to_vec::<bool>()?,
        vec![false, false, true, true]
    );
    assert_eq!(
        run(&bld, &lor)?.to_vec::<bool>()?,
        vec![true, true, false, false]
    );
    assert_eq!(
        run(&bld, &bits)?.to_vec::<u64>()?,
        vec![0b0100, 0b0010, 0b0110]
    );
    assert_eq!(
        run(&bld, &bor)?.to_vec::<u64>()?,
        vec![0b1110, 0b1110, 0b0110]
    );
    assert_eq!(run(&bld, &bxor)?.to_vec::<u64>()?, vec![0, 0, 0]);
    Ok(())
}

// ---------------------------------------------------------------------------
// Arithmetic operations
// ---------------------------------------------------------------------------

#[test]
fn spec_arithmetic_row_plus_column() -> Result<()> {
    for row_dims in [&[3][..], &[1, 3][..]] {
        let mut bld = Builder::new("row_plus_col");
        let mut tml = Tml::new(&mut bld);
        // a = [1, 2, 3]; b = [1; 2; 3]; c = a + b
        let a = int_value(&mut tml, int(row_dims), &[1, 2, 3])?;
        let b = int_value(&mut tml, int(&[3, 1]), &[1, 2, 3])?;
        let c = tml.add(&a, &b)?;
        assert_eq!(c.ty(), &int(&[3, 3]));
        assert_eq!(
            run(&bld, &c)?.to_vec::<i64>()?,
            vec![2, 3, 4, 3, 4, 5, 4, 5, 6]
        );
    }
    Ok(())
}

#[test]
fn spec_arithmetic_incompatible() -> Result<()> {
    // a = [1, 2; 1, 2]; b = [1, 2, 3; 1, 2, 3]; c = a + b -> error
    let mut bld = Builder::new("incompatible");
    let mut tml = Tml::new(&mut bld);
    let a = int_value(&mut tml, int(&[2, 2]), &[1, 2, 1, 2])?;
    let b = int_value(&mut tml, int(&[2, 3]), &[1, 2, 3, 1, 2, 3])?;
    let err = tml.add(&a, &b).unwrap_err();
    insta::assert_snapshot!("arithmetic_refused_2x2_2x3", err.to_string());
    Ok(())
}

#[test]
fn arithmetic_with_scalars() -> Result<()> {
    let mut bld = Builder::new("scalar_arith");
    let mut tml = Tml::new(&mut bld);
    let c = int_value(&mut tml, t(int(&[2]), &[2]), &[1, 2, 3, 4])?;
    let s = int_value(&mut tml, TmlType::INT, &[10])?;
    let y = tml.mul(&s, &c)?;
    let z = tml.sub(&y, &s)?;
    assert_eq!(z.ty(), c.ty());
    assert_eq!(run(&bld, &z)?.to_vec::<i64>()?, vec![0, 10, 20, 30]);
    assert!(!bld.build(z.op())?.to_hlo_text().contains("broadcast"));
    Ok(())
}

#[test]
fn every_op_lowers() -> Result<()> {
    for &op in TmlOp::ALL {
        let root = match op.class() {
            tml::OpClass::Arithmetic | tml::OpClass::Relational => TmlType::REAL,
            tml::OpClass::Logical => TmlType::BOOL,
            tml::OpClass::Bitwise => TmlType::UINT,
        };
        let mut bld = Builder::new("every");
        let mut tml = Tml::new(&mut bld);
        let x = tml.parameter(0, t(t(root.clone(), &[2]), &[3]), "x")?;
        let s = tml.parameter(1, root.clone(), "s")?;
        let y = tml.binary(op, &x, &s)?;
        let want_root = match op.class() {
            tml::OpClass::Relational | tml::OpClass::Logical => ElementType::Pred,
            tml::OpClass::Arithmetic | tml::OpClass::Bitwise => root.root(),
        };
        assert_eq!(y.ty(), &x.ty().with_root(want_root), "{op:?}");
        assert_eq!(tml.builder().shape(y.op())?, y.ty().flat_shape(), "{op:?}");
        // Two tensors of the same structure: every class accepts them.
        let z = tml.binary(op, &x, &x)?;
        assert_eq!(z.ty(), y.ty(), "{op:?}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Nested types: 3x3x3 is not 3x(3x3)
// ---------------------------------------------------------------------------

#[test]
fn nested_and_flat_types_differ() -> Result<()> {
    let flat = int(&[3, 3, 3]);
    let nested = t(int(&[3, 3]), &[3]);
    assert_eq!(flat.to_string(), "tensor<int, 3, 3, 3>");
    assert_eq!(nested.to_string(), "tensor<tensor<int, 3, 3>, 3>");
    assert_ne!(flat, nested);
    assert_eq!(flat.flat_shape(), nested.flat_shape());
    assert_eq!(nested.levels(), vec![&[3][..], &[3, 3][..]]);
    // Relational ops need the same dims on all levels: refused.
    let err = infer_binary_type(TmlOp::Gt, &flat, &nested).unwrap_err();
    insta::assert_snapshot!("relational_refused_flat_vs_nested", err.to_string());
    // A flat array op would accept them (same flat shape); TML does not.
    let mut bld = Builder::new("nested_rel");
    let mut tml = Tml::new(&mut bld);
    let a = tml.parameter(0, flat.clone(), "a")?;
    let b = tml.parameter(1, nested.clone(), "b")?;
    assert!(tml.eq(&a, &b).is_err());
    assert!(tml.eq(&a, &a).is_ok() && tml.eq(&b, &b).is_ok());
    Ok(())
}

#[test]
fn nested_arithmetic_broadcasts_per_level() -> Result<()> {
    let flat = int(&[3, 3, 3]);
    let nested = t(int(&[3, 3]), &[3]);
    let mut bld = Builder::new("nested_add");
    let mut tml = Tml::new(&mut bld);
    let a = tml.parameter(0, flat, "a")?;
    let b = tml.parameter(1, nested, "b")?;
    // Outer level: [3,3,3] with [3] -> [3,3,3]; inner: int with [3,3] -> [3,3].
    let c = tml.add(&a, &b)?;
    assert_eq!(c.ty().to_string(), "tensor<tensor<int, 3, 3>, 3, 3, 3>");
    let comp = bld.build(c.op())?;
    insta::assert_snapshot!("nested_add_hlo", comp.to_hlo_text());
    let av = filled(&[3, 3, 3], |i| i as i64);
    let bv = filled(&[3, 3, 3], |i| 1000 * i as i64);
    let out = eval(&comp, &[&av, &bv])?;
    let (xs, ys) = (av.to_vec::<i64>()?, bv.to_vec::<i64>()?);
    // c[i][j][k] = a[i][j][k] + b[k] (b[k] a 3x3 tensor): c[i,j,k,l,m] = a[i,j,k] + b[k,l,m]
    let want: Vec<i64> = coords(&[3, 3, 3, 3, 3])
        .iter()
        .map(|c| {
            xs[(c[0] * 9 + c[1] * 3 + c[2]) as usize] + ys[(c[2] * 9 + c[3] * 3 + c[4]) as usize]
        })
        .collect();
    assert_eq!(out.to_vec::<i64>()?, want);
    // NumPy on the flat arrays would give 3x3x3, elementwise.
    assert_eq!(
        oxla_client::numpy::broadcast_shapes(&[&[3, 3, 3], &[3, 3, 3]])?,
        vec![3, 3, 3]
    );
    Ok(())
}

#[test]
fn nested_levels_broadcast_separately() -> Result<()> {
    // tensor<tensor<int, 1>, 3> + tensor<tensor<int, 2>, 1>: both levels stretch.
    let a_ty = t(int(&[1]), &[3]);
    let b_ty = t(int(&[2]), &[1]);
    let mut bld = Builder::new("levels");
    let mut tml = Tml::new(&mut bld);
    let a = int_value(&mut tml, a_ty, &[1, 2, 3])?;
    let b = int_value(&mut tml, b_ty, &[10, 20])?;
    let c = tml.add(&a, &b)?;
    assert_eq!(c.ty().to_string(), "tensor<tensor<int, 2>, 3>");
    assert_eq!(
        run(&bld, &c)?.to_vec::<i64>()?,
        vec![11, 21, 12, 22, 13, 23]
    );
    // A mismatch at the inner level names that level.
    let err = infer_binary_type(TmlOp::Add, &t(int(&[2]), &[3]), &t(int(&[3]), &[3])).unwrap_err();
    insta::assert_snapshot!("arithmetic_refused_inner_level", err.to_string());
    Ok(())
}

#[test]
fn nested_assignment_maps_per_level() -> Result<()> {
    // A tensor<int, 3> assigned to tensor<tensor<int, 3>, 3> fills the outer
    // level (out[i][j] = v[i]); to tensor<int, 3, 3> it fills rows (v[j]).
    let mut bld = Builder::new("nested_assign");
    let mut tml = Tml::new(&mut bld);
    let v = int_value(&mut tml, int(&[3]), &[1, 2, 3])?;
    let nested = tml.assign(&t(int(&[3]), &[3]), &v)?;
    let flat = tml.assign(&int(&[3, 3]), &v)?;
    assert_eq!(
        run(&bld, &nested)?.to_vec::<i64>()?,
        vec![1, 1, 1, 2, 2, 2, 3, 3, 3]
    );
    assert_eq!(
        run(&bld, &flat)?.to_vec::<i64>()?,
        vec![1, 2, 3, 1, 2, 3, 1, 2, 3]
    );
    // A flat 3x3 value does not fit the nested type: 2 dims at level 0.
    let err = check_assign(&t(int(&[3]), &[3]), &int(&[3, 3])).unwrap_err();
    insta::assert_snapshot!("assign_refused_flat_into_nested", err.to_string());
    Ok(())
}

// ---------------------------------------------------------------------------
// Assignments
// ---------------------------------------------------------------------------

#[test]
fn spec_assignment_examples() -> Result<()> {
    let mut bld = Builder::new("assign");
    let mut tml = Tml::new(&mut bld);
    // a = [0, 0, 0] (tensor<int, 3>); a = 1 -> [1, 1, 1]
    let a_ty = int(&[3]);
    let one = int_value(&mut tml, TmlType::INT, &[1])?;
    let a = tml.assign(&a_ty, &one)?;
    assert_eq!(a.ty(), &a_ty);
    // b = 3x3 zeros (tensor<int, 3, 3>); b = [1, 1, 1] -> all ones
    let b_ty = int(&[3, 3]);
    let ones = int_value(&mut tml, int(&[3]), &[1, 1, 1])?;
    let b = tml.assign(&b_ty, &ones)?;
    assert_eq!(run(&bld, &a)?.to_vec::<i64>()?, vec![1; 3]);
    assert_eq!(run(&bld, &b)?.to_vec::<i64>()?, vec![1; 9]);
    Ok(())
}

#[test]
fn spec_assignment_refused() -> Result<()> {
    // tensor<int, 3> a = 0; a = [1, 3] -> Assignment not possible!
    let mut bld = Builder::new("assign_refused");
    let mut tml = Tml::new(&mut bld);
    let v = int_value(&mut tml, int(&[2]), &[1, 3])?;
    let err = tml.assign(&int(&[3]), &v).unwrap_err();
    insta::assert_snapshot!("assign_refused_3_from_2", err.to_string());
    Ok(())
}

#[test]
fn assignment_rule_cases() {
    let cases = [
        (int(&[3]), TmlType::INT, true),
        (int(&[3, 3]), int(&[3]), true),
        (int(&[3, 3]), int(&[3, 1]), true),
        (int(&[3, 3]), int(&[1, 1]), true),
        (int(&[3]), int(&[1, 3]), false), // more dims than the target
        (int(&[1]), int(&[3]), false),    // would stretch the target
        (TmlType::INT, int(&[1]), false), // a tensor into a scalar
        (int(&[3]), TmlType::REAL, false), // no implicit conversion
        (t(int(&[2]), &[3]), int(&[3]), true),
        (t(int(&[2]), &[3]), t(int(&[1]), &[1]), true),
        (t(int(&[2]), &[3]), t(int(&[3]), &[1]), false),
    ];
    for (target, value, ok) in cases {
        assert_eq!(
            check_assign(&target, &value).is_ok(),
            ok,
            "{value} into {target}"
        );
    }
}

// ---------------------------------------------------------------------------
// Narrowcasting
// ---------------------------------------------------------------------------

#[test]
fn spec_narrowcasting_examples() -> Result<()> {
    // int a = 1; narrow(a) -> int
    assert_eq!(TmlType::INT.narrow(), TmlType::INT);
    // tensor<int, 1> c; narrow(c) -> int
    assert_eq!(int(&[1]).narrow(), TmlType::INT);
    // tensor<int, 1, 5, 1> e; narrow(e) -> tensor<int, 5>
    assert_eq!(int(&[1, 5, 1]).narrow(), int(&[5]));
    // tensor<int, 5, 5> g; narrow(g) -> tensor<int, 5, 5>
    assert_eq!(int(&[5, 5]).narrow(), int(&[5, 5]));
    // tensor<tensor<int, 1>, 5, 5> i; narrow(i) -> unchanged (top level only)
    let i = t(int(&[1]), &[5, 5]);
    assert_eq!(i.narrow(), i);
    // All-ones at the top gives the element type, which is not narrowed.
    assert_eq!(t(int(&[1]), &[1, 1]).narrow(), int(&[1]));
    // Narrowcasting nests and never fails.
    assert_eq!(int(&[1, 1, 1]).narrow().narrow(), TmlType::INT);

    let mut bld = Builder::new("narrow");
    let mut tml = Tml::new(&mut bld);
    let c = int_value(&mut tml, int(&[1]), &[1])?;
    let e = int_value(&mut tml, int(&[1, 5, 1]), &[1, 2, 3, 4, 5])?;
    let g = int_value(&mut tml, int(&[5, 5]), &[7; 25])?;
    let ni = int_value(&mut tml, t(int(&[1]), &[5, 5]), &[0; 25])?;
    let d = tml.narrow(&c)?;
    let f = tml.narrow(&e)?;
    let h = tml.narrow(&g)?;
    let j = tml.narrow(&ni)?;
    assert_eq!(h.op(), g.op()); // nothing to drop: no op
    assert_eq!(j.op(), ni.op());
    assert_eq!(d.ty(), &TmlType::INT);
    assert_eq!(run(&bld, &d)?, Literal::scalar(1i64));
    assert_eq!(f.ty(), &int(&[5]));
    assert_eq!(run(&bld, &f)?.to_vec::<i64>()?, vec![1, 2, 3, 4, 5]);
    Ok(())
}

// ---------------------------------------------------------------------------
// Index access broadcasting
// ---------------------------------------------------------------------------

#[test]
fn spec_iab_on_literals() -> Result<()> {
    // a = [3, 4] of type tensor<real, 1, 2>
    let a = Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?;
    let four = Literal::scalar(4.0f64);
    assert_eq!(tml::get(&a, &[0, 1])?, four); // a[0][1] == 4
    assert_eq!(tml::get(&a, &[999, 1])?, four); // a[999][1] == 4
    assert_eq!(tml::get(&a, &[999, 1, 1000, 2000])?, four); // a[999][1][1000][2000] == 4
    assert_eq!(
        tml::get(&a, &[999, 0, 1000, 2000])?,
        Literal::scalar(3.0f64)
    );
    // a = 42 (int): a == a[0] == a[500] == a[4][5] == 42
    let s = Literal::scalar(42i64);
    for index in [&[][..], &[0], &[500], &[4, 5]] {
        assert_eq!(tml::get(&s, index)?, s, "{index:?}");
    }
    Ok(())
}

#[test]
fn spec_iab_scalar_reads_and_writes() -> Result<()> {
    // a = 1; b = a[1] -> 1; c = a[1][2][3] -> 1
    let mut a = Literal::scalar(1i64);
    assert_eq!(tml::get(&a, &[1])?, Literal::scalar(1i64));
    assert_eq!(tml::get(&a, &[1, 2, 3])?, Literal::scalar(1i64));
    // a[1] = 2 -> a = 2
    tml::set(&mut a, &[1], &Literal::scalar(2i64))?;
    assert_eq!(a, Literal::scalar(2i64));
    // a[1][2][3] = 3 -> a = 3
    tml::set(&mut a, &[1, 2, 3], &Literal::scalar(3i64))?;
    assert_eq!(a, Literal::scalar(3i64));
    Ok(())
}

#[test]
fn iab_errors() -> Result<()> {
    let a = Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?;
    let out_of_bounds = tml::get(&a, &[999, 2]).unwrap_err();
    let negative = tml::get(&a, &[-1]).unwrap_err();
    let mut m = Literal::from_vec(&[2, 3], vec![0i64; 6])?;
    let before = m.clone();
    let wrong_len = tml::set(&mut m, &[1], &Literal::from_vec(&[2], vec![1i64, 2])?).unwrap_err();
    let wrong_type = tml::set(&mut m, &[1], &Literal::scalar(1.0f64)).unwrap_err();
    let oob_write = tml::set(&mut m, &[2], &Literal::scalar(1i64)).unwrap_err();
    assert_eq!(m, before); // refused writes change nothing
    insta::assert_snapshot!(
        "iab_errors",
        [out_of_bounds, negative, wrong_len, wrong_type, oob_write]
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    Ok(())
}

#[test]
fn iab_literal_writes() -> Result<()> {
    // Writes through size-1 dims and past the last dim, and sub-array writes
    // with assignment broadcasting.
    let mut a = Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?;
    tml::set(&mut a, &[999, 1, 7], &Literal::scalar(5.0f64))?;
    assert_eq!(a.to_vec::<f64>()?, vec![3.0, 5.0]);
    let mut m = Literal::from_vec(&[2, 2, 3], vec![0i64; 12])?;
    tml::set(&mut m, &[1], &Literal::from_vec(&[2, 1], vec![1i64, 2])?)?;
    assert_eq!(m.to_vec::<i64>()?, vec![0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    tml::set(&mut m, &[0], &Literal::from_vec(&[3], vec![7i64, 8, 9])?)?;
    assert_eq!(m.to_vec::<i64>()?, vec![7, 8, 9, 7, 8, 9, 1, 1, 1, 2, 2, 2]);
    Ok(())
}

#[test]
fn spec_iab_in_the_ir() -> Result<()> {
    let mut bld = Builder::new("iab");
    let mut tml = Tml::new(&mut bld);
    let a_ty = t(TmlType::REAL, &[1, 2]);
    let a = tml.constant(a_ty, Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?)?;
    let reads = [
        (&[0, 1][..], 4.0),
        (&[999, 1], 4.0),
        (&[999, 1, 1000, 2000], 4.0),
        (&[999, 0, 1000, 2000], 3.0),
    ];
    let mut tml = Tml::new(&mut bld);
    let values: Vec<Value> = reads
        .iter()
        .map(|(index, _)| tml.get(&a, index))
        .collect::<Result<_>>()?;
    for ((index, want), v) in reads.iter().zip(&values) {
        assert_eq!(v.ty(), &TmlType::REAL);
        assert_eq!(run(&bld, v)?, Literal::scalar(*want), "{index:?}");
    }
    let mut tml = Tml::new(&mut bld);
    let row = tml.get(&a, &[999])?;
    assert_eq!(row.ty(), &t(TmlType::REAL, &[2]));
    assert_eq!(run(&bld, &row)?.to_vec::<f64>()?, vec![3.0, 4.0]);

    // Scalars: a = 42; a[0], a[500], a[4][5] are a itself.
    let mut tml = Tml::new(&mut bld);
    let s = int_value(&mut tml, TmlType::INT, &[42])?;
    for index in [&[0][..], &[500], &[4, 5]] {
        let v = tml.get(&s, index)?;
        assert_eq!(v.op(), s.op());
    }
    // a = 1; a[1] = 2 -> 2; a[1][2][3] = 3 -> 3
    let two = int_value(&mut tml, TmlType::INT, &[2])?;
    let three = int_value(&mut tml, TmlType::INT, &[3])?;
    let a1 = tml.set(&s, &[1], &two)?;
    let a2 = tml.set(&a1, &[1, 2, 3], &three)?;
    assert_eq!(run(&bld, &a1)?, Literal::scalar(2i64));
    assert_eq!(run(&bld, &a2)?, Literal::scalar(3i64));
    Ok(())
}

#[test]
fn iab_writes_in_the_ir() -> Result<()> {
    let mut bld = Builder::new("iab_set");
    let mut tml = Tml::new(&mut bld);
    // a = [3, 4] (tensor<real, 1, 2>); a[999][1] = 5 -> [3, 5]
    let a = tml.constant(
        t(TmlType::REAL, &[1, 2]),
        Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?,
    )?;
    let five = tml.constant(TmlType::REAL, Literal::scalar(5.0f64))?;
    let a2 = tml.set(&a, &[999, 1], &five)?;
    let comp = bld.build(a2.op())?;
    insta::assert_snapshot!("iab_set_hlo", comp.to_hlo_text());
    assert_eq!(eval(&comp, &[])?.to_vec::<f64>()?, vec![3.0, 5.0]);
    // m[1] = [1; 2] on tensor<int, 2, 2, 3>: assignment broadcasting inside.
    let mut tml = Tml::new(&mut bld);
    let m = int_value(&mut tml, int(&[2, 2, 3]), &[0; 12])?;
    let col = int_value(&mut tml, int(&[2, 1]), &[1, 2])?;
    let m2 = tml.set(&m, &[1], &col)?;
    assert_eq!(
        run(&bld, &m2)?.to_vec::<i64>()?,
        vec![0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    );
    // Refusals name the place and the types.
    let mut tml = Tml::new(&mut bld);
    let wide = int_value(&mut tml, int(&[4]), &[1, 2, 3, 4])?;
    let err = tml.set(&m, &[1], &wide).unwrap_err();
    let oob = tml.get(&m, &[0, 2]).unwrap_err();
    insta::assert_snapshot!("iab_ir_errors", format!("{err}\n{oob}"));
    Ok(())
}

#[test]
fn iab_on_nested_types_walks_the_levels() -> Result<()> {
    // tensor<tensor<int, 3>, 1>: a[5] is the inner vector, a[5][1] its
    // second element, a[5][1][9] still that element.
    let ty = t(int(&[3]), &[1]);
    let mut bld = Builder::new("nested_iab");
    let mut tml = Tml::new(&mut bld);
    let a = int_value(&mut tml, ty, &[7, 8, 9])?;
    let inner = tml.get(&a, &[5])?;
    let elem = tml.get(&a, &[5, 1, 9])?;
    assert_eq!(inner.ty(), &int(&[3]));
    assert_eq!(elem.ty(), &TmlType::INT);
    assert_eq!(run(&bld, &inner)?.to_vec::<i64>()?, vec![7, 8, 9]);
    assert_eq!(run(&bld, &elem)?, Literal::scalar(8i64));
    Ok(())
}

#[test]
fn types_print_in_tml_syntax_and_validate() {
    assert_eq!(
        t(t(TmlType::INT, &[3]), &[3]).to_string(),
        "tensor<tensor<int, 3>, 3>"
    );
    assert_eq!(t(TmlType::REAL, &[1, 2]).to_string(), "tensor<real, 1, 2>");
    assert_eq!(
        t(TmlType::Scalar(ElementType::F32), &[2]).to_string(),
        "tensor<f32, 2>"
    );
    assert_eq!(TmlType::BOOL.to_string(), "bool");
    assert_eq!(TmlType::UINT.to_string(), "uint");
    let bad = [
        t(TmlType::INT, &[]),
        t(t(TmlType::INT, &[-2]), &[3]),
        TmlType::Scalar(ElementType::Tuple),
    ];
    let messages: Vec<String> = bad
        .iter()
        .map(|ty| ty.validate().unwrap_err().to_string())
        .collect();
    insta::assert_snapshot!("invalid_types", messages.join("\n"));
}
