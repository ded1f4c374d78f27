//! Output storage reuse: large results give their storage back to the
//! executable when dropped, and the next `run` writes there. A result that
//! is still alive is never written.

use oxla_ir::{Builder, ElementType, Literal, Shape};

use crate::common::{Tol, difference, values};

const N: i64 = 1024; // [N,N] f32 = 4 MiB: the smallest "large" output

fn sh(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::new(ty, dims)
}

/// `x * s + v` with `v` broadcast along dimension 1.
fn axpy(rows: i64) -> (oxla_ir::Computation, Shape, Shape) {
    let x = sh(ElementType::F32, &[rows, N]);
    let v = sh(ElementType::F32, &[N]);
    let mut b = Builder::new("axpy");
    let px = b.parameter(0, x.clone(), "x").expect("x");
    let pv = b.parameter(1, v.clone(), "v").expect("v");
    let two = b.constant(Literal::scalar(2f32)).expect("c");
    let m = b.mul(px, two, &[]).expect("mul");
    let y = b.add(m, pv, &[1]).expect("add");
    (b.build(y).expect("build"), x, v)
}

fn ptr(l: &Literal) -> *const f32 {
    l.as_slice::<f32>().expect("f32").as_ptr()
}

#[test]
fn dropped_large_results_are_reused_and_fully_overwritten() {
    let (comp, x, v) = axpy(N);
    let exe = oxla_jit::compile(&comp).expect("compile");
    assert_eq!(exe.cached_output_bytes(), 0);
    let mut first_ptr = None;
    // Different inputs every call: a stale element of the previous result
    // would show up as a wrong value.
    for seed in 0..4u64 {
        let args = [values(&x, seed), values(&v, seed + 10)];
        let refs: Vec<&Literal> = args.iter().collect();
        let want = oxla_interp::evaluate(&comp, &refs).expect("evaluate");
        let got = exe.run(&refs).expect("run");
        assert_eq!(exe.cached_output_bytes(), 0, "the kept buffer is in use");
        if let Some(p) = first_ptr {
            assert_eq!(ptr(&got), p, "call {seed} did not reuse the storage");
        }
        first_ptr = Some(ptr(&got));
        assert!(difference(&got, &want, Tol::Exact).is_none(), "call {seed}");
        drop(got);
        assert_eq!(exe.cached_output_bytes(), (N * N * 4) as usize);
    }
    exe.release_cached_outputs();
    assert_eq!(exe.cached_output_bytes(), 0);
}

#[test]
fn live_results_are_never_written() {
    let (comp, x, v) = axpy(N);
    let exe = oxla_jit::compile(&comp).expect("compile");
    let a = [values(&x, 1), values(&v, 2)];
    let b = [values(&x, 3), values(&v, 4)];
    let ra: Vec<&Literal> = a.iter().collect();
    let rb: Vec<&Literal> = b.iter().collect();
    let want_a = oxla_interp::evaluate(&comp, &ra).expect("evaluate");
    let want_b = oxla_interp::evaluate(&comp, &rb).expect("evaluate");
    let first = exe.run(&ra).expect("run");
    let clone = first.clone();
    let second = exe.run(&rb).expect("run");
    assert_ne!(ptr(&first), ptr(&second));
    drop(clone); // a clone's storage is its own: not kept
    assert_eq!(exe.cached_output_bytes(), 0);
    let third = exe.run(&rb).expect("run");
    assert!(difference(&first, &want_a, Tol::Exact).is_none());
    assert!(difference(&second, &want_b, Tol::Exact).is_none());
    assert!(difference(&third, &want_b, Tol::Exact).is_none());
    // Both dropped: only one buffer per output is kept.
    drop(first);
    drop(second);
    assert_eq!(exe.cached_output_bytes(), (N * N * 4) as usize);
}

#[test]
fn small_results_are_not_kept_unless_recycled() {
    let (comp, x, v) = axpy(N / 2); // 2 MiB
    let exe = oxla_jit::compile(&comp).expect("compile");
    let args = [values(&x, 1), values(&v, 2)];
    let refs: Vec<&Literal> = args.iter().collect();
    drop(exe.run(&refs).expect("run"));
    assert_eq!(exe.cached_output_bytes(), 0);
    exe.recycle(exe.run(&refs).expect("run"));
    assert_eq!(exe.cached_output_bytes(), (N / 2 * N * 4) as usize);
}

#[test]
fn foreign_or_orphaned_storage_is_just_freed() {
    let (comp, x, v) = axpy(N);
    let args = [values(&x, 1), values(&v, 2)];
    let refs: Vec<&Literal> = args.iter().collect();
    let want = oxla_interp::evaluate(&comp, &refs).expect("evaluate");
    let exe = oxla_jit::compile(&comp).expect("compile");
    // A literal of another length handed to `recycle` fits no output: it
    // is not kept.
    exe.recycle(Literal::from_vec(&[7], vec![0f32; 7]).expect("lit"));
    assert_eq!(exe.cached_output_bytes(), 0);
    // Values changed in place are fine: the storage is still the output's.
    let mut got = exe.run(&refs).expect("run");
    got.as_mut_slice::<f32>().expect("f32")[0] = f32::NAN;
    drop(got);
    assert_eq!(exe.cached_output_bytes(), (N * N * 4) as usize);
    let got = exe.run(&refs).expect("run");
    assert!(difference(&got, &want, Tol::Exact).is_none());
    drop(got);
    // A result that outlives its executable keeps its values, and frees
    // its storage normally.
    let got = exe.run(&refs).expect("run");
    drop(exe);
    assert!(difference(&got, &want, Tol::Exact).is_none());
    drop(got);
}

#[test]
fn tuple_elements_and_other_threads_give_storage_back() {
    let x = sh(ElementType::F32, &[N, N]);
    let mut b = Builder::new("pair");
    let px = b.parameter(0, x.clone(), "x").expect("x");
    let n = b.neg(px).expect("neg");
    let c = b.gt(px, n, &[]).expect("gt"); // pred: 1 MiB, below the bar
    let e = b.exp(px).expect("exp");
    let t = b.tuple(&[n, c, e]).expect("tuple");
    let comp = b.build(t).expect("build");
    let exe = oxla_jit::compile(&comp).expect("compile");
    let args = [values(&x, 5)];
    let refs: Vec<&Literal> = args.iter().collect();
    let want = oxla_interp::evaluate(&comp, &refs).expect("evaluate");
    for _ in 0..3 {
        let got = exe.run(&refs).expect("run");
        assert!(difference(&got, &want, Tol::Ulps(2)).is_none());
        // Dropped on another thread.
        std::thread::scope(|s| {
            s.spawn(move || drop(got));
        });
        assert_eq!(exe.cached_output_bytes(), 2 * (N * N * 4) as usize);
    }
}

#[test]
fn concurrent_runs_share_kept_storage_safely() {
    // Four threads run one executable at once, with different inputs,
    // dropping or keeping their results: every result is right, and at
    // most one buffer is kept in the end.
    let (comp, x, v) = axpy(N);
    let exe = oxla_jit::compile(&comp).expect("compile");
    let inputs: Vec<[Literal; 2]> = (0..4)
        .map(|t| [values(&x, 20 + t), values(&v, 30 + t)])
        .collect();
    let wants: Vec<Literal> = inputs
        .iter()
        .map(|a| oxla_interp::evaluate(&comp, &[&a[0], &a[1]]).expect("evaluate"))
        .collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (exe, args, want) = (&exe, &inputs[t], &wants[t]);
            s.spawn(move || {
                let mut kept = Vec::new();
                for k in 0..5 {
                    let got = exe.run(&[&args[0], &args[1]]).expect("run");
                    assert!(
                        difference(&got, want, Tol::Exact).is_none(),
                        "thread {t} call {k}"
                    );
                    if k % 2 == 0 {
                        kept.push(got);
                    }
                }
                for got in &kept {
                    assert!(
                        difference(got, want, Tol::Exact).is_none(),
                        "thread {t} kept"
                    );
                }
            });
        }
    });
    assert_eq!(exe.cached_output_bytes(), (N * N * 4) as usize);
}
