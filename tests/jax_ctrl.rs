//! JAX programs with loops, branches, tuples and argmax-style reduces run in
//! the interpreter and match JAX.
//!
//! `scripts/jax_ctrl.py` wrote `tests/data/jax_ctrl/`: for each program
//! `NAME`, the HLO text JAX prints (`NAME.hlo`), its arguments
//! (`NAME.in<k>.npy`) and the leaves of JAX's result (`NAME.out<k>.npy`).
//! Every program must parse, print and re-parse to the same text, evaluate
//! to JAX's result exactly (floats bit for bit, any NaN matching any NaN:
//! these programs add and multiply small integers, compare, select and
//! shift), and be refused by the JIT with `Error::UnsupportedOp` until the
//! JIT compiles control flow (then this test must change).

use std::path::{Path, PathBuf};

use oxla::{ArrayData, Error, Literal};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/jax_ctrl")
}

/// The files `NAME.<kind><k>.npy`, k = 0, 1, ... while they exist.
fn numbered(dir: &Path, name: &str, kind: &str) -> Vec<Literal> {
    (0..)
        .map(|k| dir.join(format!("{name}.{kind}{k}.npy")))
        .take_while(|p| p.exists())
        .map(|p| oxla::npy::read_npy(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// The array leaves of a result, depth first.
fn leaves(l: &Literal) -> Vec<&Literal> {
    match l.tuple_elements() {
        Some(t) => t.iter().flat_map(leaves).collect(),
        None => vec![l],
    }
}

/// Bit-exact equality, except that any NaN matches any NaN.
fn same(a: &Literal, b: &Literal) -> bool {
    if a.shape() != b.shape() {
        return false;
    }
    match (a.array_data(), b.array_data()) {
        (Some(ArrayData::F32(x)), Some(ArrayData::F32(y))) => x
            .iter()
            .zip(y)
            .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())),
        (Some(ArrayData::F64(x)), Some(ArrayData::F64(y))) => x
            .iter()
            .zip(y)
            .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())),
        _ => a == b,
    }
}

#[test]
fn jax_control_flow_programs_match_jax() {
    let dir = data_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "hlo").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 17,
        "only {} programs in {}",
        names.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(dir.join(format!("{name}.hlo"))).unwrap_or_default();
        let comp = match oxla::hlo::parse(&text) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        let printed = comp.to_hlo_text();
        match oxla::hlo::parse(&printed) {
            Ok(again) if again.to_hlo_text() == printed => {}
            Ok(_) => failures.push(format!("{name}: prints differently after a round trip")),
            Err(e) => failures.push(format!("{name}: its printed text does not parse: {e}")),
        }
        let inputs = numbered(&dir, name, "in");
        let expected = numbered(&dir, name, "out");
        let args: Vec<&Literal> = inputs.iter().collect();
        match oxla::evaluate(&comp, &args) {
            Ok(got) => {
                let got = leaves(&got);
                if got.len() != expected.len()
                    || !got.iter().zip(&expected).all(|(g, e)| same(g, e))
                {
                    let got: Vec<String> = got.iter().map(|l| l.to_string()).collect();
                    let want: Vec<String> = expected.iter().map(|l| l.to_string()).collect();
                    failures.push(format!("{name}: got {got:?}, JAX gives {want:?}"));
                }
            }
            Err(e) => failures.push(format!("{name}: evaluation failed: {e}")),
        }
        match oxla::compile(&comp) {
            Err(Error::UnsupportedOp { backend, .. }) if backend == "jit" => {}
            Err(e) => failures.push(format!("{name}: the JIT fails otherwise: {e}")),
            Ok(_) => failures.push(format!(
                "{name}: the JIT now compiles it: check its result here instead"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
