//! The CHLO math ops JAX leaves in its StableHLO (`chlo.erfc`,
//! `chlo.lgamma`, `chlo.next_after`, ...), from `tests/data/stablehlo/chlo/`
//! (written by `scripts/chlo_corpus.py`): each reads, runs in the
//! interpreter and, where the JIT compiles it, in the JIT, and matches the
//! values JAX computed on the CPU within the ulps `cases.txt` allows for it
//! (0 for the bit-stepping `next_after`; NaN matches NaN, infinities must
//! be equal), or within as many ulps of 1.0 near the function's zeros.

use oxla_ir::{Computation, Literal};
use oxla_stablehlo::parse_stablehlo;

use super::common::{data, leaves, read, read_npy};

/// A float's bits mapped to an integer that orders like the float (so
/// that the difference of two is their distance in ulps).
fn ordered(bits: u64, width: usize) -> i128 {
    let sign = 1u64 << (width * 8 - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 { -mag } else { mag }
}

fn is_nan(bits: u64, width: usize) -> bool {
    let (exp_bits, man_bits) = match width {
        2 => (8, 7), // bf16 (the corpus has no f16)
        4 => (8, 23),
        _ => (11, 52),
    };
    let exp = (bits >> man_bits) & ((1 << exp_bits) - 1);
    exp == (1 << exp_bits) - 1 && bits & ((1 << man_bits) - 1) != 0
}

/// The value of a float of `width` bytes (bf16 for 2).
fn value(bits: u64, width: usize) -> f64 {
    match width {
        2 => f32::from_bits((bits as u32) << 16) as f64,
        4 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

/// The machine epsilon (one ulp of 1.0) of a float of `width` bytes.
fn epsilon(width: usize) -> f64 {
    match width {
        2 => 2f64.powi(-7),
        4 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// The largest distance in ulps between `got` and `want` (same type and
/// shape), leaving out elements within `abs_ulps` ulps of 1.0 of each
/// other (near a zero of the function, such as lgamma's at 1 and 2, the
/// expansion's absolute error is what it keeps, not a relative one); an
/// error when one is NaN and the other not.
fn ulps(got: &Literal, want: &Literal, abs_ulps: u128) -> Result<u128, String> {
    assert_eq!(got.shape(), want.shape());
    let (g, w) = (
        got.array_data().unwrap().to_le_bytes(),
        want.array_data().unwrap().to_le_bytes(),
    );
    // A complex element is two floats of half its size.
    let parts = if got.element_type().is_complex() {
        2
    } else {
        1
    };
    let width = g.len() / (got.element_count() * parts).max(1);
    let word = |b: &[u8]| {
        let mut x = [0u8; 8];
        x[..width].copy_from_slice(b);
        u64::from_le_bytes(x)
    };
    let mut worst = 0u128;
    for (i, (a, b)) in g.chunks(width).zip(w.chunks(width)).enumerate() {
        let (a, b) = (word(a), word(b));
        match (is_nan(a, width), is_nan(b, width)) {
            (true, true) => continue,
            (false, false) => {}
            _ => {
                return Err(format!(
                    "element {i}: NaN on one side only ({a:#x} vs {b:#x})"
                ));
            }
        }
        let near = (value(a, width) - value(b, width)).abs() <= abs_ulps as f64 * epsilon(width);
        if !near {
            worst = worst.max((ordered(a, width) - ordered(b, width)).unsigned_abs());
        }
    }
    Ok(worst)
}

/// The largest distance in ulps over every result (a tuple's leaves).
fn worst(got: &Literal, want: &[Literal], abs_ulps: u128) -> Result<u128, String> {
    let leaves = leaves(got);
    if leaves.len() != want.len() {
        return Err(format!("{} results, JAX {}", leaves.len(), want.len()));
    }
    let mut w = 0;
    for (k, (g, j)) in leaves.iter().zip(want).enumerate() {
        w = w.max(ulps(g, j, abs_ulps).map_err(|e| format!("result {k}: {e}"))?);
    }
    Ok(w)
}

#[test]
fn chlo_math_ops_from_jax_match_jax_within_their_ulps() {
    let list = read(&data("stablehlo/chlo/cases.txt"));
    let mut checked = 0;
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, allowed) = line.split_once(' ').expect("NAME ULPS");
        let allowed: u128 = allowed.parse().expect("ULPS");
        let text = read(&data(&format!("stablehlo/chlo/{name}.mlir")));
        let comp: Computation = parse_stablehlo(&text).unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let inputs: Vec<Literal> = (0..)
            .map(|k| data(&format!("stablehlo/chlo/{name}.in{k}.npy")))
            .take_while(|p| p.exists())
            .map(|p| read_npy(&p))
            .collect();
        let args: Vec<&Literal> = inputs.iter().collect();
        let want: Vec<Literal> = (0..)
            .map(|k| data(&format!("stablehlo/chlo/{name}.out{k}.npy")))
            .take_while(|p| p.exists())
            .map(|p| read_npy(&p))
            .collect();
        let got = oxla_interp::evaluate(&comp, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        let u = worst(&got, &want, allowed).unwrap_or_else(|e| panic!("{name} (interpreter): {e}"));
        if u > allowed {
            failures.push(format!(
                "{name}: the interpreter is {u} ulps from JAX (allowed {allowed}):\n{got}\nJAX:\n{want:?}"
            ));
        }
        let jit = match oxla_jit::compile(&comp) {
            Ok(exe) => {
                let r = exe.run(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
                let uj = worst(&r, &want, allowed).unwrap_or_else(|e| panic!("{name} (jit): {e}"));
                if uj > allowed {
                    failures.push(format!(
                        "{name}: the JIT is {uj} ulps from JAX (allowed {allowed}):\n{r}\nJAX:\n{want:?}"
                    ));
                }
                uj.to_string()
            }
            Err(e) => {
                let e = e.to_string();
                assert!(
                    e.contains("Unsupported by the jit"),
                    "{name}: the JIT fails other than by refusing: {e}"
                );
                "refused".into()
            }
        };
        report.push(format!("{name}: {u} / {jit}"));
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 38, "only {checked} cases");
    println!("ulps from JAX (interpreter / jit):\n{}", report.join("\n"));
}

/// `chlo.conj` and `chlo.broadcast_complex` (JAX writes neither: it spells
/// conj out in `real`/`imag`/`negate`, but other exporters keep them).
#[test]
fn chlo_conj_and_broadcast_complex_read_as_complex_ops() {
    use oxla_ir::Complex64;
    let text = r#"
module @m {
  func.func public @main(%re: tensor<3xf32>, %im: tensor<2x3xf32>) -> (tensor<2x3xcomplex<f32>>, tensor<3xf32>) {
    %z = chlo.broadcast_complex %re, %im : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
    %c = chlo.conj %z : tensor<2x3xcomplex<f32>> -> tensor<2x3xcomplex<f32>>
    %r = chlo.conj %re : tensor<3xf32> -> tensor<3xf32>
    return %c, %r : tensor<2x3xcomplex<f32>>, tensor<3xf32>
  }
}
"#;
    let comp = parse_stablehlo(text).unwrap_or_else(|e| panic!("{e}"));
    let re = Literal::from_vec(&[3], vec![1.0f32, -2.0, 0.5]).unwrap();
    let im = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, -4.0, 0.0, 6.0]).unwrap();
    let got = oxla_interp::evaluate(&comp, &[&re, &im]).unwrap();
    let leaves = leaves(&got);
    let want = Literal::from_vec(
        &[2, 3],
        [
            (1.0, 1.0),
            (-2.0, 2.0),
            (0.5, 3.0),
            (1.0, -4.0),
            (-2.0, 0.0),
            (0.5, 6.0),
        ]
        .iter()
        .map(|&(r, i)| Complex64::new(r, -i))
        .collect(),
    )
    .unwrap();
    assert_eq!(leaves[0], &want);
    assert_eq!(leaves[1], &re);
}
