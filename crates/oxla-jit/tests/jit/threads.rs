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
