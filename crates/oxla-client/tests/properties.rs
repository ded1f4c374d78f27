//! Property tests: the rules against independent models, over thousands of
//! random shapes from a tiny deterministic PRNG (no dependencies).

use oxla_client::numpy::{self, Np};
use oxla_client::tml::{self, Tml, TmlOp, TmlType};
use oxla_ir::{Builder, ElementType::*, Literal, Result, Shape};

use crate::{coords, eval, filled, source_position};

/// xorshift64*: small, deterministic, good enough to pick shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A random shape of rank `0..=max_rank` with sizes from `sizes`.
fn shape(rng: &mut Rng, max_rank: u64, sizes: &[i64]) -> Vec<i64> {
    (0..rng.below(max_rank + 1))
        .map(|_| rng.pick(sizes))
        .collect()
}

/// A shape likely to broadcast with `other`: a suffix of it with some
/// sizes replaced by 1 (or, now and then, by something random), maybe with
/// extra leading dims.
fn related(rng: &mut Rng, other: &[i64], sizes: &[i64]) -> Vec<i64> {
    let keep = rng.below(other.len() as u64 + 1) as usize;
    let mut out: Vec<i64> = (0..rng.below(2)).map(|_| rng.pick(sizes)).collect();
    for &d in &other[other.len() - keep..] {
        out.push(match rng.below(6) {
            0 | 1 => 1,
            2 => rng.pick(sizes),
            _ => d,
        });
    }
    out
}

/// The model of the rule, written another way: pad both with leading 1s to
/// a common rank, then decide each dimension on its own.
fn model(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let pad = |s: &[i64]| {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    pad(a)
        .into_iter()
        .zip(pad(b))
        .map(|(x, y)| match (x, y) {
            _ if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

const SIZES: &[i64] = &[0, 1, 1, 1, 2, 2, 3, 4, 5];

#[test]
fn broadcast_shapes_matches_the_model_on_pairs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..6000 {
        let a = shape(&mut rng, 5, SIZES);
        let b = if rng.below(2) == 0 {
            related(&mut rng, &a, SIZES)
        } else {
            shape(&mut rng, 5, SIZES)
        };
        let (a, b) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
        let got = numpy::broadcast_shapes(&[&a, &b]);
        match (model(&a, &b), &got) {
            (Some(want), Ok(have)) => {
                assert_eq!(&want, have, "{a:?} {b:?}");
                ok += 1;
            }
            (None, Err(e)) => {
                assert!(e.to_string().contains("do not broadcast"), "{e}");
                refused += 1;
            }
            (want, got) => panic!("{a:?} {b:?}: model {want:?}, got {got:?}"),
        }
        // The rule is symmetric.
        assert_eq!(
            numpy::broadcast_shapes(&[&b, &a]).ok(),
            got.ok(),
            "{a:?} {b:?}"
        );
    }
    // Both outcomes are well covered.
    assert!(ok > 1500 && refused > 1500, "ok {ok}, refused {refused}");
}

#[test]
fn broadcast_shapes_matches_the_model_on_triples() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut ok = 0;
    for _ in 0..4000 {
        let a = shape(&mut rng, 4, SIZES);
        let b = related(&mut rng, &a, SIZES);
        let c = if rng.below(2) == 0 {
            related(&mut rng, &b, SIZES)
        } else {
            shape(&mut rng, 4, SIZES)
        };
        let want = model(&a, &b).and_then(|ab| model(&ab, &c));
        let got = numpy::broadcast_shapes(&[&a, &b, &c]);
        assert_eq!(want, got.clone().ok(), "{a:?} {b:?} {c:?}: {got:?}");
        ok += usize::from(want.is_some());
    }
    assert!(ok > 800, "ok {ok}");
}

#[test]
fn check_in_place_matches_the_model() {
    let mut rng = Rng(42);
    for _ in 0..4000 {
        let target = shape(&mut rng, 4, SIZES);
        let value = related(&mut rng, &target, SIZES);
        let allowed = model(&target, &value).as_deref() == Some(&target[..]);
        assert_eq!(
            numpy::check_in_place(&target, &value).is_ok(),
            allowed,
            "{value:?} into {target:?}"
        );
    }
}

#[test]
fn np_lowering_agrees_with_the_core_on_random_shapes() -> Result<()> {
    let mut rng = Rng(7);
    for _ in 0..1500 {
        let a = shape(&mut rng, 4, SIZES);
        let b = related(&mut rng, &a, SIZES);
        let (a, b) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
        let mut bld = Builder::new("random");
        let x = bld.parameter(0, Shape::new(F32, &a), "x")?;
        let y = bld.parameter(1, Shape::new(F32, &b), "y")?;
        let got = Np::new(&mut bld).mul(x, y);
        match (model(&a, &b), got) {
            (Some(want), Ok(z)) => {
                // The verifier re-infers the shape from the emitted
                // broadcast_dimensions: the core agrees with the model.
                let comp = bld.build(z)?;
                assert_eq!(comp.result_shape().dims(), want.as_slice());
                let dims = numpy::broadcast_dimensions(a.len(), b.len());
                let text = comp.to_hlo_text();
                let line = text.lines().find(|l| l.contains("multiply(")).unwrap_or("");
                if dims.is_empty() {
                    assert!(!line.contains("broadcast_dimensions"), "{line}");
                } else {
                    assert!(
                        line.ends_with(&format!(
                            "broadcast_dimensions={}",
                            oxla_ir::shape::dims_text(&dims)
                        )),
                        "{line}"
                    );
                }
            }
            (None, Err(e)) => assert!(e.to_string().starts_with("Invalid numpy.mul"), "{e}"),
            (want, got) => panic!("{a:?} {b:?}: model {want:?}, got {got:?}"),
        }
    }
    Ok(())
}

#[test]
fn np_values_match_a_reference_on_random_shapes() -> Result<()> {
    let mut rng = Rng(99);
    let small = &[1, 1, 2, 3];
    let mut checked = 0;
    while checked < 80 {
        let a = shape(&mut rng, 3, small);
        let b = related(&mut rng, &a, small);
        let Some(want_dims) = model(&a, &b) else {
            continue;
        };
        let mut bld = Builder::new("values");
        let x = bld.parameter(0, Shape::new(S32, &a), "x")?;
        let y = bld.parameter(1, Shape::new(S32, &b), "y")?;
        let z = Np::new(&mut bld).sub(x, y)?;
        let comp = bld.build(z)?;
        let xa = filled(&a, |i| 1 + i as i32);
        let yb = filled(&b, |i| 100 * (1 + i as i32));
        let (xs, ys) = (xa.to_vec::<i32>()?, yb.to_vec::<i32>()?);
        let want: Vec<i32> = coords(&want_dims)
            .iter()
            .map(|c| xs[source_position(c, &a)] - ys[source_position(c, &b)])
            .collect();
        assert_eq!(
            eval(&comp, &[&xa, &yb])?.to_vec::<i32>()?,
            want,
            "{a:?} {b:?}"
        );
        checked += 1;
    }
    Ok(())
}

/// A random TML type of up to `levels` nesting levels, rooted at `int`.
fn tml_type(rng: &mut Rng, levels: u64) -> TmlType {
    let mut ty = TmlType::INT;
    for _ in 0..rng.below(levels + 1) {
        let dims: Vec<i64> = (0..1 + rng.below(2))
            .map(|_| rng.pick(&[1, 1, 2, 3]))
            .collect();
        ty = TmlType::tensor(ty, &dims);
    }
    ty
}

/// Per-level model of TML arithmetic broadcasting, on lists of level dims.
fn tml_model(a: &[&[i64]], b: &[&[i64]]) -> Option<Vec<Vec<i64>>> {
    (0..a.len().max(b.len()))
        .map(|l| match (a.get(l), b.get(l)) {
            (Some(x), Some(y)) => model(x, y),
            (Some(x), None) | (None, Some(x)) => Some(x.to_vec()),
            (None, None) => None,
        })
        .collect()
}

/// The flat position read from an operand with `levels` for the result
/// coordinate `out` of a result with `result` levels.
fn tml_source(out: &[i64], result: &[Vec<i64>], levels: &[&[i64]]) -> usize {
    let mut offset = 0;
    let mut coord = Vec::new();
    for (l, rl) in result.iter().enumerate() {
        if let Some(ol) = levels.get(l) {
            let shift = rl.len() - ol.len();
            for (j, &d) in ol.iter().enumerate() {
                coord.push(if d == 1 { 0 } else { out[offset + shift + j] });
            }
        }
        offset += rl.len();
    }
    let flat: Vec<i64> = levels.concat();
    let strides = oxla_ir::shape::row_major_strides(&flat);
    coord.iter().zip(&strides).map(|(c, s)| c * s).sum::<i64>() as usize
}

#[test]
fn tml_arithmetic_matches_a_per_level_model() -> Result<()> {
    let mut rng = Rng(2024);
    let (mut ok, mut valued) = (0, 0);
    for round in 0..1500 {
        let a = tml_type(&mut rng, 3);
        let b = tml_type(&mut rng, 3);
        let want = tml_model(&a.levels(), &b.levels());
        let mut bld = Builder::new("tml_random");
        let mut t = Tml::new(&mut bld);
        let x = t.parameter(0, a.clone(), "x")?;
        let y = t.parameter(1, b.clone(), "y")?;
        let got = t.add(&x, &y);
        match (want, got) {
            (Some(levels), Ok(z)) => {
                let have: Vec<Vec<i64>> = z.ty().levels().iter().map(|l| l.to_vec()).collect();
                assert_eq!(have, levels, "{a} + {b}");
                let comp = bld.build(z.op())?;
                assert_eq!(comp.result_shape(), &z.ty().flat_shape());
                ok += 1;
                if round % 10 == 0 {
                    let xa = filled(&a.flat_dims(), |i| 1 + i as i64);
                    let yb = filled(&b.flat_dims(), |i| 1000 * (1 + i as i64));
                    let (xs, ys) = (xa.to_vec::<i64>()?, yb.to_vec::<i64>()?);
                    let want: Vec<i64> = coords(&z.ty().flat_dims())
                        .iter()
                        .map(|c| {
                            xs[tml_source(c, &have, &a.levels())]
                                + ys[tml_source(c, &have, &b.levels())]
                        })
                        .collect();
                    assert_eq!(
                        eval(&comp, &[&xa, &yb])?.to_vec::<i64>()?,
                        want,
                        "{a} + {b}"
                    );
                    valued += 1;
                }
            }
            (None, Err(e)) => assert!(e.to_string().contains("not possible"), "{e}"),
            (want, got) => panic!("{a} + {b}: model {want:?}, got {got:?}"),
        }
    }
    assert!(ok > 400 && valued > 40, "ok {ok}, valued {valued}");
    Ok(())
}

#[test]
fn tml_relational_accepts_exactly_scalar_or_same_structure() {
    let mut rng = Rng(5);
    for _ in 0..2000 {
        let a = tml_type(&mut rng, 2);
        let b = tml_type(&mut rng, 2);
        let allowed = a.is_scalar() || b.is_scalar() || a.levels() == b.levels();
        assert_eq!(
            tml::infer_binary_type(TmlOp::Le, &a, &b).is_ok(),
            allowed,
            "{a} <= {b}"
        );
    }
}

/// A random index that index access broadcasting accepts for `dims`.
fn iab_index(rng: &mut Rng, dims: &[i64]) -> Vec<i64> {
    (0..rng.below(dims.len() as u64 + 3))
        .map(|p| match dims.get(p as usize) {
            Some(&d) if d > 1 => rng.below(d as u64) as i64,
            _ => rng.below(1000) as i64,
        })
        .collect()
}

#[test]
fn iab_literal_and_ir_forms_agree() -> Result<()> {
    let mut rng = Rng(31337);
    for _ in 0..150 {
        let dims = shape(&mut rng, 3, &[1, 1, 2, 3]);
        let lit = filled(&dims, |i| i as i64);
        let index = iab_index(&mut rng, &dims);
        let ty = if dims.is_empty() {
            TmlType::INT
        } else {
            TmlType::tensor(TmlType::INT, &dims)
        };
        // Reads.
        let want = tml::get(&lit, &index)?;
        let mut bld = Builder::new("iab_get");
        let mut t = Tml::new(&mut bld);
        let a = t.constant(ty.clone(), lit.clone())?;
        let v = t.get(&a, &index)?;
        assert_eq!(eval(&bld.build(v.op())?, &[])?, want, "{dims:?}{index:?}");
        // Writes of a scalar, and of a value of the selected part's shape
        // with its leading dim (if any) set to 1.
        let part = want.shape().dims().to_vec();
        let mut vdims = part.clone();
        if let Some(first) = vdims.first_mut() {
            *first = 1;
        }
        for value in [Literal::scalar(-5i64), filled(&vdims, |i| -10 - i as i64)] {
            let mut expected = lit.clone();
            tml::set(&mut expected, &index, &value)?;
            let mut bld = Builder::new("iab_set");
            let mut t = Tml::new(&mut bld);
            let a = t.constant(ty.clone(), lit.clone())?;
            let vty = if vdims.is_empty() || value.shape().rank() == 0 {
                TmlType::INT
            } else {
                TmlType::tensor(TmlType::INT, value.shape().dims())
            };
            let v = t.constant(vty, value.clone())?;
            let out = t.set(&a, &index, &v)?;
            assert_eq!(
                eval(&bld.build(out.op())?, &[])?,
                expected,
                "{dims:?}{index:?} = {value}"
            );
        }
    }
    Ok(())
}
