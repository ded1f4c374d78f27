//! JAX programs built on convolution, reduce-window and select-and-scatter
//! (a small CNN in NHWC and in NCHW, depthwise and grouped convolutions and
//! their gradients, 1-D and 3-D convolutions, max- and average-pool
//! gradients, an s8 convolution into s32, integer pools), as JAX prints
//! their HLO, with JAX's results on XLA:CPU: `tests/data/windows/`, written
//! by `scripts/windows_programs.py` (which also checks that oxla's StableHLO
//! of each runs in XLA and gives JAX's results).
//!
//! Each program must parse, and the interpreter must give JAX's results:
//! integers bit for bit, floats within the tolerance of `programs.tsv`
//! (`|oxla - jax| <= atol + rtol * |jax|`), because XLA:CPU sums a
//! convolution in another order than XLA's evaluator, which oxla follows.
//! The JIT, which computes these ops in the interpreter's order, must
//! give JAX's results within the same tolerances.

use std::path::{Path, PathBuf};

use oxla::{ArrayData, Literal};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/windows")
}

/// One row of `programs.tsv`.
struct Program {
    name: String,
    inputs: usize,
    outputs: usize,
    rtol: f64,
    atol: f64,
}

fn programs() -> Vec<Program> {
    let index = std::fs::read_to_string(data_dir().join("programs.tsv"))
        .unwrap_or_else(|e| panic!("cannot read programs.tsv: {e}"));
    index
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let num = |i: usize| -> f64 {
                f.get(i)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("programs.tsv: bad field {i} in `{l}`"))
            };
            Program {
                name: f[0].to_string(),
                inputs: num(1) as usize,
                outputs: num(2) as usize,
                rtol: num(3),
                atol: num(4),
            }
        })
        .collect()
}

/// The leaves of a result, in order (a tuple flattened).
fn leaves(l: &Literal, out: &mut Vec<Literal>) {
    match l.tuple_elements() {
        Some(elements) => elements.iter().for_each(|e| leaves(e, out)),
        None => out.push(l.clone()),
    }
}

/// `None` if `got` matches `want`; otherwise what differs.
fn difference(got: &Literal, want: &Literal, rtol: f64, atol: f64) -> Option<String> {
    if got.shape() != want.shape() {
        return Some(format!(
            "shape {} where JAX gives {}",
            got.shape(),
            want.shape()
        ));
    }
    let floats = |g: Vec<f64>, w: Vec<f64>| -> Option<String> {
        let (i, err) = g
            .iter()
            .zip(&w)
            .map(|(g, w)| (g - w).abs() - (atol + rtol * w.abs()))
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (i, e)| {
                if e > best.1 { (i, e) } else { best }
            });
        (err > 0.0 || g.iter().zip(&w).any(|(g, w)| g.is_nan() != w.is_nan()))
            .then(|| format!("element {i} is {} where JAX gives {}", g[i], w[i]))
    };
    match (got.array_data(), want.array_data()) {
        (Some(ArrayData::F32(g)), Some(ArrayData::F32(w))) => floats(
            g.iter().map(|&x| f64::from(x)).collect(),
            w.iter().map(|&x| f64::from(x)).collect(),
        ),
        (Some(ArrayData::F64(g)), Some(ArrayData::F64(w))) => floats(g.clone(), w.clone()),
        (Some(g), Some(w)) => (g != w).then(|| "integer values differ".to_string()),
        _ => Some("not arrays".into()),
    }
}

#[test]
fn jax_programs_match_in_the_interpreter() {
    let programs = programs();
    assert!(programs.len() >= 8, "only {} programs", programs.len());
    let mut failures = Vec::new();
    for p in &programs {
        let dir = data_dir().join(&p.name);
        let text = std::fs::read_to_string(dir.join("program.hlo"))
            .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        let comp = match oxla::hlo::parse(&text) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{}: does not parse: {e}", p.name));
                continue;
            }
        };
        let read = |f: String| {
            oxla::npy::read_npy(dir.join(&f)).unwrap_or_else(|e| panic!("{}/{f}: {e}", p.name))
        };
        let inputs: Vec<Literal> = (0..p.inputs).map(|i| read(format!("in{i}.npy"))).collect();
        let expected: Vec<Literal> = (0..p.outputs)
            .map(|i| read(format!("out{i}.npy")))
            .collect();
        let args: Vec<&Literal> = inputs.iter().collect();
        match oxla::evaluate(&comp, &args) {
            Ok(result) => {
                let mut got = Vec::new();
                leaves(&result, &mut got);
                if got.len() != expected.len() {
                    failures.push(format!(
                        "{}: {} results where JAX gives {}",
                        p.name,
                        got.len(),
                        expected.len()
                    ));
                }
                for (k, (g, w)) in got.iter().zip(&expected).enumerate() {
                    if let Some(d) = difference(g, w, p.rtol, p.atol) {
                        failures.push(format!("{}: result {k}: {d}", p.name));
                    }
                }
            }
            Err(e) => failures.push(format!("{}: the interpreter fails: {e}", p.name)),
        }
        // The JIT computes these ops in the interpreter's order: it meets
        // JAX within the same tolerances.
        match oxla::compile(&comp).and_then(|exe| exe.run(&args)) {
            Ok(result) => {
                let mut got = Vec::new();
                leaves(&result, &mut got);
                for (k, (g, w)) in got.iter().zip(&expected).enumerate() {
                    if let Some(d) = difference(g, w, p.rtol, p.atol) {
                        failures.push(format!("{}: JIT result {k}: {d}", p.name));
                    }
                }
            }
            Err(e) => failures.push(format!("{}: the JIT fails: {e}", p.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
