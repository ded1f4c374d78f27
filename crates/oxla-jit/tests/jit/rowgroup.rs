//! Row groups: reduces over the innermost dims and the loops that read
//! them back over the same rows, compiled as one kernel with one pass per
//! step (softmax, log-softmax, layer norm and random programs of that
//! shape), and the cases that must not become one (a result read at
//! another row, a kept value read at another element).

use oxla_ir::{Builder, Computation, ElementType, Literal, Op, Shape, composite};

use crate::common::*;
use crate::reduce_dot::reducer;

const F32: ElementType = ElementType::F32;
const F64: ElementType = ElementType::F64;

fn kernels(comp: &Computation) -> (usize, String) {
    let exe = oxla_jit::compile(comp).expect("compile");
    (exe.kernel_count(), exe.fusion_text().to_string())
}

fn assert_group(comp: &Computation, passes: usize) {
    let (k, text) = kernels(comp);
    assert_eq!(k, 1, "{text}");
    assert!(
        text.contains(&format!("row-group of {passes} passes")),
        "{text}"
    );
}

/// Absolute bound for a value of magnitude <= `scale` computed through a
/// sum of `n` terms that may be reassociated (plus a few roundings).
fn sum_tol(n: i64, ty: ElementType, scale: f64) -> Tol {
    let eps = if ty == F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    Tol::Abs(scale * (4.0 * n as f64 + 16.0) * eps)
}

fn softmax_like(name: &str, ty: ElementType, dims: &[i64], axis: i64) -> Computation {
    let mut b = Builder::new(name);
    let x = b.parameter(0, sh(ty, dims), "x").expect("x");
    let y = match name {
        "softmax" => composite::softmax(&mut b, x, axis),
        _ => composite::log_softmax(&mut b, x, axis),
    }
    .expect("composite");
    b.build(y).expect("build")
}

#[test]
fn softmax_and_log_softmax_are_one_kernel() {
    for (ty, dims) in [
        (F32, vec![7i64, 37]),
        (F32, vec![3, 1, 5, 130]),
        (F32, vec![2, 3]),
        (F64, vec![9, 17]),
        // Parallel: split by rows across the pool.
        (F32, vec![513, 300]),
        (F32, vec![64, 1030]),
    ] {
        let axis = dims.len() as i64 - 1;
        let n = dims[axis as usize];
        let x = sh(ty, &dims);
        let comp = softmax_like("softmax", ty, &dims, axis);
        assert_group(&comp, 3);
        check_tol(&comp, &[values(&x, 1)], sum_tol(n, ty, 1.0));
        let comp = softmax_like("log_softmax", ty, &dims, axis);
        // max, sum of exp, log of the sum (a row pass), the subtraction.
        assert_group(&comp, 4);
        // |x - max| <= 8 and log(sum) carries the sum's relative error.
        check_tol(&comp, &[values(&x, 2)], sum_tol(n, ty, 16.0));
    }
    // Special values: NaN, infinities, -0 in the rows.
    let x = sh(F32, &[17, 23]);
    let comp = softmax_like("softmax", F32, &[17, 23], 1);
    check_tol(&comp, &[edges(&x, 0, 5)], sum_tol(23, F32, 1.0));
}

#[test]
fn layer_norm_is_one_kernel() {
    for (ty, dims) in [
        (F32, vec![5i64, 48]),
        (F32, vec![2, 3, 33]),
        (F64, vec![6, 20]),
        (F32, vec![300, 257]),
    ] {
        let d = *dims.last().expect("rank");
        let axis = dims.len() as i64 - 1;
        let mut b = Builder::new("layer_norm");
        let x = b.parameter(0, sh(ty, &dims), "x").expect("x");
        let g = b.parameter(1, sh(ty, &[d]), "gamma").expect("g");
        let be = b.parameter(2, sh(ty, &[d]), "beta").expect("b");
        let y = composite::layer_norm(&mut b, x, g, be, axis, 1e-5).expect("ln");
        let comp = b.build(y).expect("build");
        assert_group(&comp, 3);
        let args = [
            values(&sh(ty, &dims), 3),
            values(&sh(ty, &[d]), 4),
            values(&sh(ty, &[d]), 5),
        ];
        // Normalised values are O(1) times gamma (<= 4), plus beta.
        check_tol(&comp, &args, sum_tol(d, ty, 64.0));
    }
}

/// Builds `x` (rank 3 here), a row max and min over the last `red` dims,
/// and `(x - max) * min` read back with the kept dims.
fn max_min_chain(ty: ElementType, dims: &[i64], red: &[i64]) -> Computation {
    let mut b = Builder::new("maxmin");
    let x = b.parameter(0, sh(ty, dims), "x").expect("x");
    let lo = b.parameter(1, sh(ty, &[]), "lo").expect("lo");
    let hi = b.parameter(2, sh(ty, &[]), "hi").expect("hi");
    let keep: Vec<i64> = (0..dims.len() as i64)
        .filter(|d| !red.contains(d))
        .collect();
    let m = b.reduce(x, lo, red, &reducer(ty, "max")).expect("max");
    let c = b.sub(x, m, &keep).expect("sub");
    let n = b.reduce(c, hi, red, &reducer(ty, "min")).expect("min");
    let y = b.mul(c, n, &keep).expect("mul");
    b.build(y).expect("build")
}

#[test]
fn exact_groups_are_bit_exact() {
    for (ty, dims, red) in [
        (F32, vec![6i64, 10], vec![1i64]),
        (F32, vec![4, 1, 9], vec![2]),
        (F32, vec![4, 9, 1], vec![1, 2]),
        (F32, vec![3, 4, 10], vec![2]),
        (F32, vec![5, 6, 7], vec![1, 2]),
        (F64, vec![3, 2, 19], vec![2]),
        (ElementType::S32, vec![7, 13], vec![1]),
        (ElementType::S8, vec![5, 40], vec![1]),
        (ElementType::U16, vec![3, 17], vec![1]),
        (F32, vec![260, 300], vec![1]),
    ] {
        let comp = max_min_chain(ty, &dims, &red);
        assert_group(&comp, 3);
        let s = sh(ty, &[]);
        let lo = if ty.is_float() {
            literal_from(&s, |_| f64::NEG_INFINITY, |_| 0)
        } else {
            edges(&s, 3, 1)
        };
        let hi = if ty.is_float() {
            literal_from(&s, |_| f64::INFINITY, |_| 0)
        } else {
            edges(&s, 4, 1)
        };
        check(&comp, &[values(&sh(ty, &dims), 7), lo.clone(), hi.clone()]);
        check(&comp, &[edges(&sh(ty, &dims), 1, 3), lo, hi]);
    }
}

#[test]
fn integer_sums_products_pred_results_and_reducer_bodies() {
    let ty = ElementType::S32;
    let dims = [9i64, 21];
    let (mut b, p) = builder("ints", &[sh(ty, &dims), sh(ty, &[])]);
    let s = b
        .reduce(p[0], p[1], &[1], &reducer(ty, "add"))
        .expect("sum");
    let q = b
        .reduce(p[0], p[1], &[1], &reducer(ty, "mul"))
        .expect("prod");
    let f = b
        .reduce(p[0], p[1], &[1], &reducer(ty, "sub"))
        .expect("fold");
    let a = b.mul(p[0], s, &[0]).expect("a");
    let c = b.add(a, q, &[0]).expect("c");
    let y = b.xor(c, f, &[0]).expect("y");
    let ge = b.ge(y, s, &[0]).expect("ge");
    let t = b.tuple(&[y, ge]).expect("tuple");
    let comp = b.build(t).expect("build");
    let (k, text) = kernels(&comp);
    assert!(k <= 2, "{text}");
    assert!(text.contains("row-group"), "{text}");
    check(
        &comp,
        &[values(&sh(ty, &dims), 8), edges(&sh(ty, &[]), 2, 1)],
    );
    check(
        &comp,
        &[edges(&sh(ty, &dims), 5, 7), edges(&sh(ty, &[]), 1, 1)],
    );
    // A pred result as the last pass.
    let f = sh(F32, &[8, 33]);
    let (mut b, p) = builder("argmax_mask", &[f.clone(), sh(F32, &[])]);
    let m = b
        .reduce(p[0], p[1], &[1], &reducer(F32, "max"))
        .expect("max");
    let y = b.ge(p[0], m, &[0]).expect("ge");
    let comp = b.build(y).expect("build");
    assert_group(&comp, 2);
    let ninf = literal_from(&sh(F32, &[]), |_| f64::NEG_INFINITY, |_| 0);
    check(&comp, &[values(&f, 9), ninf.clone()]);
    check(&comp, &[edges(&f, 2, 3), ninf]);
}

#[test]
fn results_read_at_another_row_are_not_grouped() {
    let x = sh(F32, &[6, 11]);
    let ninf = literal_from(&sh(F32, &[]), |_| f64::NEG_INFINITY, |_| 0);
    // The max of the mirrored row.
    let (mut b, p) = builder("mirror", &[x.clone(), sh(F32, &[])]);
    let m = b
        .reduce(p[0], p[1], &[1], &reducer(F32, "max"))
        .expect("max");
    let r = b.reverse(m, &[0]).expect("rev");
    let y = b.sub(p[0], r, &[0]).expect("sub");
    let comp = b.build(y).expect("build");
    let (k, text) = kernels(&comp);
    assert_eq!(k, 2, "{text}");
    assert!(!text.contains("row-group"), "{text}");
    check(&comp, &[values(&x, 1), ninf.clone()]);
    // The max of the next row (a rotation through slices).
    let (mut b, p) = builder("rotate", &[x.clone(), sh(F32, &[])]);
    let m = b
        .reduce(p[0], p[1], &[1], &reducer(F32, "max"))
        .expect("max");
    let a = b.slice(m, &[1], &[6], &[1]).expect("a");
    let c = b.slice(m, &[0], &[1], &[1]).expect("c");
    let r = b.concatenate(&[a, c], 0).expect("cat");
    let y = b.sub(p[0], r, &[0]).expect("sub");
    let comp = b.build(y).expect("build");
    let (k, text) = kernels(&comp);
    assert_eq!(k, 2, "{text}");
    check(&comp, &[values(&x, 2), ninf.clone()]);
    // A reduce over the leading dim is a column reduce: no group.
    let (mut b, p) = builder("columns", &[x.clone(), sh(F32, &[])]);
    let m = b
        .reduce(p[0], p[1], &[0], &reducer(F32, "max"))
        .expect("max");
    let y = b.sub(p[0], m, &[1]).expect("sub");
    let comp = b.build(y).expect("build");
    let (k, text) = kernels(&comp);
    assert_eq!(k, 2, "{text}");
    check(&comp, &[values(&x, 3), ninf]);
}

#[test]
fn a_kept_value_read_at_another_element_is_recomputed() {
    // exp(x - max) is read reversed by the division: the group still forms
    // (the sum is read at its row) but exp is not kept in the output row.
    let x = sh(F32, &[9, 40]);
    let mut b = Builder::new("reversed");
    let p = b.parameter(0, x.clone(), "x").expect("x");
    let ninf = b.constant_scalar(f32::NEG_INFINITY).expect("c");
    let m = b.reduce(p, ninf, &[1], &reducer(F32, "max")).expect("max");
    let d = b.sub(p, m, &[0]).expect("sub");
    let e = b.exp(d).expect("exp");
    let z = b.constant_scalar(0f32).expect("z");
    let s = b.reduce(e, z, &[1], &reducer(F32, "add")).expect("sum");
    let r = b.reverse(e, &[1]).expect("rev");
    let y = b.div(r, s, &[0]).expect("div");
    let comp = b.build(y).expect("build");
    let (k, text) = kernels(&comp);
    assert_eq!(k, 1, "{text}");
    assert!(!text.contains("keeps"), "{text}");
    check_tol(&comp, &[values(&x, 4)], sum_tol(40, F32, 1.0));
    // Kept and also part of the result tuple (the kept row is the output's).
    let mut b = Builder::new("kept_twice");
    let p = b.parameter(0, x.clone(), "x").expect("x");
    let ninf = b.constant_scalar(f32::NEG_INFINITY).expect("c");
    let m = b.reduce(p, ninf, &[1], &reducer(F32, "max")).expect("max");
    let d = b.sub(p, m, &[0]).expect("sub");
    let e = b.exp(d).expect("exp");
    let z = b.constant_scalar(0f32).expect("z");
    let s = b.reduce(e, z, &[1], &reducer(F32, "add")).expect("sum");
    let y = b.div(e, s, &[0]).expect("div");
    let t = b.tuple(&[y, s, m]).expect("t");
    let comp = b.build(t).expect("build");
    let (k, text) = kernels(&comp);
    assert_eq!(k, 1, "{text}");
    check_tol(&comp, &[values(&x, 5)], sum_tol(40, F32, 64.0));
}

#[test]
fn a_materialised_intermediate_is_a_pass_of_its_own() {
    // t = (x - sum)^x^x is costly and used twice: it gets a buffer, written
    // by a loop pass and read back by the later passes at each element.
    let ty = ElementType::S32;
    let x = sh(ty, &[11, 29]);
    let (mut b, p) = builder("costly", &[x.clone(), sh(ty, &[])]);
    let r = b
        .reduce(p[0], p[1], &[1], &reducer(ty, "add"))
        .expect("sum");
    let d = b.sub(p[0], r, &[0]).expect("sub");
    let t1 = b.pow(d, p[0], &[]).expect("pow");
    let t = b.pow(t1, p[0], &[]).expect("pow");
    let s = b.reduce(t, p[1], &[1], &reducer(ty, "max")).expect("max");
    let y = b.add(t, s, &[0]).expect("y");
    let comp = b.build(y).expect("build");
    assert_group(&comp, 4);
    let small = literal_from(&x, |_| 0.0, |k| (k % 7) as i128 - 3);
    check(&comp, &[small, edges(&sh(ty, &[]), 2, 1)]);
    check(&comp, &[values(&x, 3), edges(&sh(ty, &[]), 1, 1)]);
}

#[test]
fn transposed_row_spaces_and_unmergeable_rows() {
    // The row space is a transpose of the parameter: row loads are strided.
    let x = sh(F32, &[10, 3, 4]);
    let ninf = literal_from(&sh(F32, &[]), |_| f64::NEG_INFINITY, |_| 0);
    let (mut b, p) = builder("transposed", &[x.clone(), sh(F32, &[])]);
    let t = b.transpose(p[0], &[1, 2, 0]).expect("t");
    let m = b.reduce(t, p[1], &[2], &reducer(F32, "max")).expect("max");
    let y = b.sub(t, m, &[0, 1]).expect("sub");
    let comp = b.build(y).expect("build");
    assert_group(&comp, 2);
    check(&comp, &[values(&x, 6), ninf.clone()]);
    check(&comp, &[edges(&x, 3, 5), ninf]);
}

/// Random programs of the row-group shape: a row space, reduces over its
/// trailing dims of expressions of the input and of earlier reduces (read
/// back over the kept dims), and a final loop over the space; exact types
/// and reducers only, so results must agree bit for bit.
#[test]
fn random_row_programs_agree_bit_for_bit() {
    let (mut groups, mut row_passes) = (0, 0);
    let cases = 300u64;
    for seed in 0..cases {
        let mut rng = Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let ty = [
            F32,
            F64,
            ElementType::S32,
            ElementType::S64,
            ElementType::U8,
        ][rng.below(5)];
        let rank = 2 + rng.below(3);
        let dims: Vec<i64> = (0..rank)
            .map(|_| {
                if rng.below(4) == 0 {
                    1
                } else {
                    1 + rng.below(if rank == 2 { 70 } else { 9 }) as i64
                }
            })
            .collect();
        let n_red = 1 + rng.below(rank - 1);
        let red: Vec<i64> = ((rank - n_red) as i64..rank as i64).collect();
        let keep: Vec<i64> = (0..(rank - n_red) as i64).collect();
        let kinds: &[&str] = if ty.is_float() {
            &["max", "min"]
        } else {
            &["add", "max", "min", "mul", "xor", "sub"]
        };
        let mut b = Builder::new("rows");
        let x = b.parameter(0, sh(ty, &dims), "x").expect("x");
        let init = b.parameter(1, sh(ty, &[]), "init").expect("init");
        let mut full = vec![x];
        let mut rows: Vec<Op> = vec![];
        let steps = 1 + rng.below(4);
        for _ in 0..steps {
            // A full-shape expression: an earlier one combined with a row
            // value read back over the kept dims.
            let a = full[rng.below(full.len())];
            let e = if !rows.is_empty() && rng.below(3) != 0 {
                let r = rows[rng.below(rows.len())];
                match rng.below(3) {
                    0 => b.sub(a, r, &keep),
                    1 => b.max(a, r, &keep),
                    _ => {
                        let bc = b.broadcast_in_dim(r, &dims, &keep).expect("bcast");
                        b.add(bc, a, &[])
                    }
                }
                .expect("combine")
            } else {
                b.min(a, x, &[]).expect("min")
            };
            full.push(e);
            let kind = kinds[rng.below(kinds.len())];
            let src = full[rng.below(full.len())];
            rows.push(
                b.reduce(src, init, &red, &reducer(ty, kind))
                    .expect("reduce"),
            );
            if !ty.is_float() && rows.len() >= 2 && rng.below(2) == 0 {
                // An integer power of row values: costly, so it gets a
                // buffer of its own, computed by a row pass.
                let (u, v) = (rows[rng.below(rows.len())], rows[rng.below(rows.len())]);
                rows.push(b.pow(u, v, &[]).expect("pow"));
            }
        }
        let last_row = *rows.last().expect("row");
        let a = full[rng.below(full.len())];
        let y = b.sub(a, last_row, &keep).expect("y");
        let root = if rng.below(3) == 0 {
            b.tuple(&[y, last_row]).expect("tuple")
        } else {
            y
        };
        let comp = b.build(root).expect("build");
        let (_, text) = kernels(&comp);
        if text.contains("row-group") {
            groups += 1;
        }
        if text.contains("row value") {
            row_passes += 1;
        }
        let s = sh(ty, &[]);
        let init_v = if ty.is_float() {
            literal_from(&s, |_| f64::NEG_INFINITY, |_| 0)
        } else {
            values(&s, seed)
        };
        check(&comp, &[values(&sh(ty, &dims), seed), init_v.clone()]);
        check(&comp, &[edges(&sh(ty, &dims), seed as usize, 7), init_v]);
    }
    assert!(
        groups > cases / 2,
        "only {groups} of {cases} formed a row group"
    );
    assert!(row_passes > 10, "only {row_passes} row passes");
}

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn results_are_the_same_from_run_and_run_into_on_many_threads() {
    // Large enough to be split across the pool; every row is checked.
    let x = sh(F32, &[700, 130]);
    let comp = softmax_like("softmax", F32, &[700, 130], 1);
    let exe = oxla_jit::compile(&comp).expect("compile");
    let arg = values(&x, 9);
    let a = exe.run(&[&arg]).expect("run");
    let mut out = Literal::zeros(comp.result_shape()).expect("zeros");
    for _ in 0..3 {
        exe.run_into(&[&arg], &mut out).expect("run_into");
        assert_eq!(
            a.to_vec::<f32>().expect("a"),
            out.to_vec::<f32>().expect("b")
        );
    }
    let s: Vec<f32> = a.to_vec::<f32>().expect("v");
    for row in s.chunks(130) {
        let t: f32 = row.iter().sum();
        assert!((t - 1.0).abs() < 1e-4, "row sums to {t}");
    }
    let _ = Shape::scalar(F32);
}
