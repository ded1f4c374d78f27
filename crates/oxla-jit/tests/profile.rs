//! `OXLA_PROFILE=1`: an executable times each kernel launch and copy and
//! reports them per run. Its own test binary, since the variable is read
//! once per process.

use oxla_ir::{Builder, ElementType::F32, Literal, Shape};

#[test]
fn the_profile_names_every_kernel_and_counts_the_runs() {
    // SAFETY: this binary's only test sets the variable before any thread
    // reads the environment.
    unsafe { std::env::set_var(oxla_jit::PROFILE_VAR, "1") };
    let mut b = Builder::new("prof");
    let x = b.parameter(0, Shape::new(F32, &[256, 64]), "x").unwrap();
    let y = b.add(x, x, &[]).unwrap();
    let t = b.transpose(y, &[1, 0]).unwrap();
    let z = b.neg(t).unwrap();
    let exe = oxla_jit::compile(&b.build(z).unwrap()).unwrap();
    let arg = Literal::from_vec(&[256, 64], vec![1f32; 256 * 64]).unwrap();
    for _ in 0..3 {
        let out = exe.run(&[&arg]).unwrap();
        assert!(out.to_vec::<f32>().unwrap().iter().all(|&v| v == -2.0));
    }
    let text = exe.profile_text().expect("profiling is on");
    assert!(text.starts_with("profile of `prof`: 3 run(s)"), "{text}");
    assert!(
        text.contains("setup: buffer table, scratch storage"),
        "{text}"
    );
    let kernels = text
        .lines()
        .filter(|l| l.contains("[region 0, step"))
        .count();
    assert_eq!(kernels, exe.kernel_count(), "{text}");
    for line in text.lines().skip(2) {
        let calls: f64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert_eq!(calls, 1.0, "{line}");
    }
}
