//! The JAX program corpus (`tests/data/jax/`): each program's HLO text, as
//! JAX prints it, parsed, verified, evaluated by the interpreter and run by
//! the JIT on the program's `.npy` inputs, and compared with JAX's `.npy`
//! outputs. Float outputs match within the program's tolerance
//! (`programs.tsv`, with the reason in the program's `meta.json`); integer
//! and pred outputs match bit-exact.
//!
//! The outcome of each backend is `match` or the first thing that went
//! wrong, with its stage (`parse:`, `verify:`, `npy:`, `interp:`, `jit:`);
//! whether the `.npy` files can be read is recorded on its own (bf16 files
//! cannot be read until the element-type work lands).
//! `tests/data/jax/expected.tsv` records them (see the crate docs for how
//! changes are checked and blessed).

use std::collections::BTreeMap;
use std::path::Path;

use oxla::{Builder, Computation, ElementType, Literal};

use crate::{Expectations, data_dir, first_line, no_panic};

const MATCH: &str = "match";

/// One line of `programs.tsv`.
struct Program {
    name: String,
    inputs: usize,
    outputs: usize,
    rtol: f64,
    atol: f64,
}

fn programs(dir: &Path) -> Vec<Program> {
    let path = dir.join("programs.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.starts_with("name\t") || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() >= 5, "{}: a short line: {line}", path.display());
        let num = |s: &str| -> f64 {
            s.parse()
                .unwrap_or_else(|e| panic!("{}: `{s}` is not a number: {e}", path.display()))
        };
        out.push(Program {
            name: f[0].to_string(),
            inputs: num(f[1]) as usize,
            outputs: num(f[2]) as usize,
            rtol: num(f[3]),
            atol: num(f[4]),
        });
    }
    out
}

/// Reads `dir/<prefix><i>.npy` for `i` in `0..n`.
fn read_arrays(dir: &Path, prefix: &str, n: usize) -> Result<Vec<Literal>, String> {
    (0..n)
        .map(|i| {
            let file = format!("{prefix}{i}.npy");
            oxla::npy::read_npy(dir.join(&file))
                .map_err(|e| format!("npy: {}", first_line(&strip_paths(&e.to_string()))))
        })
        .collect()
}

/// Error messages from the `.npy` reader name the file by its full path:
/// keep only what does not depend on where the repository is.
fn strip_paths(message: &str) -> String {
    let dir = data_dir().join("jax");
    let dir = dir.to_string_lossy();
    message.replace(&*dir, "tests/data/jax")
}

/// The array leaves of `lit`, depth first (a tuple result is flattened in
/// order, as the script flattened JAX's output pytree).
fn leaves(lit: &Literal, out: &mut Vec<Literal>) {
    match lit.tuple_elements() {
        Some(elements) => {
            for e in elements {
                leaves(e, out);
            }
        }
        None => out.push(lit.clone()),
    }
}

/// The values of a float array as `f64`: directly for f32 and f64, through
/// oxla's own `convert` for any other float type.
fn float_values(lit: &Literal) -> Result<Vec<f64>, String> {
    if lit.element_type() == ElementType::F32 {
        let v = lit.to_vec::<f32>().map_err(|e| e.to_string())?;
        return Ok(v.into_iter().map(f64::from).collect());
    }
    if lit.element_type() == ElementType::F64 {
        return lit.to_vec::<f64>().map_err(|e| e.to_string());
    }
    let widen = || -> oxla::Result<Vec<f64>> {
        let mut b = Builder::new("widen");
        let x = b.parameter(0, lit.shape().clone(), "x")?;
        let y = b.convert(x, ElementType::F64)?;
        let comp = b.build(y)?;
        oxla::evaluate(&comp, &[lit])?.to_vec::<f64>()
    };
    widen().map_err(|e| first_line(&e.to_string()))
}

/// `Ok` when `got` matches `want`: same count, shapes and element types;
/// floats within `atol + rtol * |want|` (NaN matches NaN), everything else
/// bit-exact.
fn compare(got: &[Literal], want: &[Literal], rtol: f64, atol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs, JAX has {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.element_type() != w.element_type() || g.shape().dims() != w.shape().dims() {
            return Err(format!("out{i} is {}, JAX's is {}", g.shape(), w.shape()));
        }
        if !w.element_type().is_float() {
            if g != w {
                return Err(format!("out{i} ({}) differs (bit-exact)", w.shape()));
            }
            continue;
        }
        let (gv, wv) = (float_values(g)?, float_values(w)?);
        let mut bad = 0usize;
        let mut worst: Option<(usize, f64)> = None;
        for (k, (&a, &e)) in gv.iter().zip(&wv).enumerate() {
            let ok = (a.is_nan() && e.is_nan()) || a == e || (a - e).abs() <= atol + rtol * e.abs();
            if !ok {
                bad += 1;
                let excess = (a - e).abs() / (atol + rtol * e.abs()).max(f64::MIN_POSITIVE);
                if worst.is_none_or(|(_, x)| excess > x) {
                    worst = Some((k, excess));
                }
            }
        }
        if let Some((k, _)) = worst {
            return Err(format!(
                "out{i} differs at {bad} of {} elements; worst at {k}: got {:e}, JAX {:e} (rtol {rtol:e}, atol {atol:e})",
                wv.len(),
                gv[k],
                wv[k]
            ));
        }
    }
    Ok(())
}

/// The outcomes of one program: (`.npy` files, interpreter, JIT).
fn run_program(dir: &Path, p: &Program) -> [String; 3] {
    let arrays = read_arrays(dir, "in", p.inputs)
        .and_then(|inputs| Ok((inputs, read_arrays(dir, "out", p.outputs)?)));
    let npy = match &arrays {
        Ok(_) => "ok".to_string(),
        Err(e) => e.clone(),
    };
    let parsed = || -> Result<Computation, String> {
        let path = dir.join("program.hlo");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let comp = no_panic(|| {
            oxla::hlo::parse(&text).map_err(|e| format!("parse: {}", first_line(&e.to_string())))
        })?;
        oxla::internals::verifier::verify(&comp)
            .map_err(|e| format!("verify: {}", first_line(&e.to_string())))?;
        Ok(comp)
    };
    let (comp, (inputs, want)) = match (parsed(), arrays) {
        (Ok(comp), Ok(arrays)) => (comp, arrays),
        (Err(e), _) | (Ok(_), Err(e)) => return [npy, e.clone(), e],
    };
    let args: Vec<&Literal> = inputs.iter().collect();
    let outcome = |stage: &str, result: Result<Literal, String>| -> String {
        let checked = result.and_then(|lit| {
            let mut got = Vec::new();
            leaves(&lit, &mut got);
            compare(&got, &want, p.rtol, p.atol)
        });
        match checked {
            Ok(()) => MATCH.to_string(),
            Err(e) if e.starts_with("panic: ") => e,
            Err(e) => format!("{stage}: {e}"),
        }
    };
    let interp = outcome(
        "interp",
        no_panic(|| oxla::evaluate(&comp, &args).map_err(|e| first_line(&e.to_string()))),
    );
    let jit = outcome(
        "jit",
        no_panic(|| {
            let exe = oxla::compile(&comp).map_err(|e| first_line(&e.to_string()))?;
            exe.run(&args).map_err(|e| first_line(&e.to_string()))
        }),
    );
    [npy, interp, jit]
}

const HEADER: &str = "\
# What oxla makes of each JAX program in tests/data/jax (checked by tests/corpus/jax.rs).
# Columns: program; whether oxla::npy reads its .npy inputs and outputs (`ok` or the
# first error); the interpreter's outcome; the JIT's outcome. `match` means parsed,
# verified, run and equal to JAX's outputs within the program's tolerance; otherwise
# the first failure, by stage (parse/verify/npy/interp/jit).
# Rewrite after a meant change: OXLA_CORPUS_BLESS=1 cargo test -p oxla --test corpus
# and review the diff (a program that stops matching is a regression).
";

#[test]
fn jax_programs_match_the_recorded_outcomes() {
    let dir = data_dir().join("jax");
    let programs = programs(&dir);
    assert!(
        programs.len() >= 20,
        "programs.tsv lists {} programs",
        programs.len()
    );
    let mut actual = BTreeMap::new();
    for p in &programs {
        actual.insert(p.name.clone(), run_program(&dir.join(&p.name), p).to_vec());
    }
    let n = actual.len();
    let count = |col: usize, what: &str| actual.values().filter(|o| o[col] == what).count();
    eprintln!(
        "JAX programs: {} of {n} match JAX in the interpreter, {} of {n} in the JIT; \
         the .npy files of {} of {n} are readable",
        count(1, MATCH),
        count(2, MATCH),
        count(0, "ok"),
    );
    for (name, o) in &actual {
        eprintln!(
            "  {name:20} npy: {} | interp: {} | jit: {}",
            o[0], o[1], o[2]
        );
    }
    Expectations {
        path: dir.join("expected.tsv"),
        header: HEADER.to_string(),
        columns: &["npy", "interp", "jit"],
    }
    .check(&actual, MATCH);
}

#[test]
fn compare_applies_the_tolerance_and_is_exact_for_integers() -> oxla::Result<()> {
    let want = [Literal::from_vec(&[3], vec![1.0f32, f32::NAN, -2.0])?];
    let close = [Literal::from_vec(&[3], vec![1.000001f32, f32::NAN, -2.0])?];
    let far = [Literal::from_vec(&[3], vec![1.1f32, f32::NAN, -2.0])?];
    assert_eq!(compare(&close, &want, 1e-5, 0.0), Ok(()));
    assert!(compare(&close, &want, 0.0, 0.0).is_err());
    let err = compare(&far, &want, 1e-5, 1e-6).unwrap_err();
    assert!(
        err.starts_with("out0 differs at 1 of 3 elements; worst at 0"),
        "{err}"
    );
    let ints = [Literal::from_vec(&[2], vec![1i32, 2])?];
    let other = [Literal::from_vec(&[2], vec![1i32, 3])?];
    assert!(compare(&other, &ints, 1.0, 1.0).is_err());
    assert!(compare(&ints, &ints, 0.0, 0.0).is_ok());
    let wrong_shape = [Literal::from_vec(&[1, 2], vec![1i32, 2])?];
    assert!(compare(&wrong_shape, &ints, 0.0, 0.0).is_err());
    Ok(())
}
