//! Large outputs run on the thread pool: the same results as the
//! interpreter (which is single-threaded), also when many threads run one
//! executable at once.

use oxla_ir::{Builder, ElementType, Literal};

use crate::common::*;

#[test]
fn pool_path_matches_the_interpreter() {
    // W5-like: max(x * w + b, 0) over 300x700 (> the parallel threshold),
    // and the flat same-shape case (one merged loop split in chunks).
    let x = sh(ElementType::F32, &[300, 701]);
    let w = sh(ElementType::F32, &[701]);
    let c = sh(ElementType::F32, &[300]);
    let (mut b, p) = builder("w5", &[x.clone(), w.clone(), c.clone()]);
    let xw = b.mul(p[0], p[1], &[1]).expect("mul");
    let a = b.add(xw, p[2], &[0]).expect("add");
    let z = b.constant_scalar(0f32).expect("c");
    let y = b.max(a, z, &[]).expect("max");
    let comp = b.build(y).expect("build");
    let args = [values(&x, 1), values(&w, 2), values(&c, 3)];
    check(&comp, &args);

    let (mut b, p) = builder("flat", &[x.clone(), x.clone()]);
    let y = b.sub(p[0], p[1], &[]).expect("sub");
    let comp = b.build(y).expect("build");
    check(&comp, &[values(&x, 4), edges(&x, 0, 1)]);

    // A large row reduction and a large column reduction.
    let mut r = Builder::new("max");
    let a = r.parameter(0, sh(ElementType::S32, &[]), "a").expect("a");
    let bb = r.parameter(1, sh(ElementType::S32, &[]), "b").expect("b");
    let m = r.max(a, bb, &[]).expect("max");
    let maxc = r.build(m).expect("build");
    for dim in [0, 1] {
        let xs = sh(ElementType::S32, &[400, 333]);
        let mut b = Builder::new("red");
        let xp = b.parameter(0, xs.clone(), "x").expect("x");
        let init = b.constant_scalar(i32::MIN).expect("c");
        let y = b.reduce(xp, init, &[dim], &maxc).expect("reduce");
        let comp = b.build(y).expect("build");
        check(&comp, &[values(&xs, 5)]);
    }
}

#[test]
fn one_executable_runs_on_many_threads_at_once() {
    let x = sh(ElementType::S64, &[256, 513]);
    let v = sh(ElementType::S64, &[513]);
    let (mut b, p) = builder("shared", &[x.clone(), v.clone()]);
    let y = b.mul(p[0], p[1], &[1]).expect("mul");
    let comp = b.build(y).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    let args = [values(&x, 1), values(&v, 2)];
    let refs: Vec<&Literal> = args.iter().collect();
    let want = oxla_interp::evaluate(&comp, &refs).expect("evaluate");
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5 {
                    let got = exe.run(&refs).expect("run");
                    assert!(difference(&got, &want, Tol::Exact).is_none());
                }
            });
        }
    });
}

#[test]
fn recycled_outputs_are_reused_and_overwritten() {
    // Large (huge-page advice, pool) and small outputs, f32 and pred, from
    // many threads at once: every result is complete and right whether its
    // storage is fresh or handed back.
    let x = sh(ElementType::F32, &[300, 257]);
    let v = sh(ElementType::F32, &[257]);
    let (mut b, p) = builder("recycle", &[x.clone(), v.clone()]);
    let y = b.sub(p[0], p[1], &[1]).expect("sub");
    let comp = b.build(y).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    let args = [values(&x, 1), values(&v, 2)];
    let refs: Vec<&Literal> = args.iter().collect();
    let want = oxla_interp::evaluate(&comp, &refs).expect("evaluate");
    std::thread::scope(|s| {
        for t in 0..4 {
            let (exe, refs, want) = (&exe, &refs, &want);
            s.spawn(move || {
                for k in 0..6 {
                    let got = exe.run(refs).expect("run");
                    assert!(difference(&got, want, Tol::Exact).is_none());
                    if (t + k) % 3 != 0 {
                        exe.recycle(got);
                    }
                }
            });
        }
    });
    // Other shapes, scalars and junk are ignored.
    exe.recycle(Literal::scalar(1f32));
    exe.recycle(Literal::from_vec(&[3], vec![1i32, 2, 3]).expect("lit"));
    exe.recycle(Literal::tuple(vec![]));
    let got = exe.run(&refs).expect("run");
    assert!(difference(&got, &want, Tol::Exact).is_none());
    // A caller's own literal of the right shape is fine too: fully overwritten.
    let junk = literal_from(&x, |_| f64::NAN, |_| 0);
    exe.recycle(junk);
    let got = exe.run(&refs).expect("run");
    assert!(difference(&got, &want, Tol::Exact).is_none());

    // A tuple result (with a pred element and a duplicate leaf): run only.
    let (mut b, p) = builder("tuple", &[x.clone(), v.clone()]);
    let y = b.sub(p[0], p[1], &[1]).expect("sub");
    let g = b.gt(p[0], p[1], &[1]).expect("gt");
    let t = b.tuple(&[y, g, y]).expect("t");
    let comp = b.build(t).expect("build");
    check(&comp, &[values(&x, 3), edges(&v, 1, 1)]);
}
