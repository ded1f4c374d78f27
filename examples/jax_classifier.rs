//! Run a classifier exported from JAX: read its StableHLO and its weights,
//! compile it once, run a batch, print the predictions and the time per
//! batch.
//!
//! ```sh
//! cargo run --release --example jax_classifier
//! ```
//!
//! The model is a two-layer MLP (16 features, 32 hidden units with a ReLU,
//! a softmax over 4 classes) trained in JAX by `scripts/jax_classifier.py`,
//! which wrote what this example reads, under `examples/jax_classifier/`:
//! `model.stablehlo.mlir` (what `jax.jit(predict).lower(...).as_text()`
//! printed), the weights `w1.npy`, `b1.npy`, `w2.npy`, `b2.npy`, a batch
//! `x.npy` with its true `labels.npy`, and JAX's probabilities for it,
//! `probs.npy`. The example fails when oxla's probabilities are not JAX's
//! (within a few float32 ulps) or its predictions differ from JAX's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use oxla::Literal;

/// `examples/jax_classifier/` of the repository (`CARGO_MANIFEST_DIR` is
/// `crates/oxla` for both `cargo run --example` and the test suite).
fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jax_classifier")
}

fn npy(name: &str) -> oxla::Result<Literal> {
    oxla::npy::read_npy(dir().join(format!("{name}.npy")))
}

/// The index of the largest value of each row of `classes` values.
fn argmax_rows(values: &[f32], classes: usize) -> Vec<usize> {
    values
        .chunks(classes)
        .map(|row| {
            (0..row.len())
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .unwrap_or(0)
        })
        .collect()
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The model: parsed and verified, with errors located in the MLIR text.
    let text = std::fs::read_to_string(dir().join("model.stablehlo.mlir"))?;
    let model = oxla::stablehlo::parse(&text)?;
    let params: Vec<String> = model
        .parameter_shapes()
        .iter()
        .map(|s| s.to_string())
        .collect();
    println!(
        "model `{}`: ({}) -> {}",
        model.name(),
        params.join(", "),
        model.result_shape()
    );

    // Its parameters in order: the batch, then the weights.
    let x = npy("x")?;
    let weights = [npy("w1")?, npy("b1")?, npy("w2")?, npy("b2")?];
    let mut args = vec![&x];
    args.extend(&weights);

    let start = Instant::now();
    let exe = oxla::compile(&model)?; // once
    println!("compiled in {:.1} ms", start.elapsed().as_secs_f64() * 1e3);

    let runs = 20;
    let start = Instant::now();
    let mut probs = exe.run(&args)?;
    for _ in 1..runs {
        probs = exe.run(&args)?;
    }
    let per_batch = start.elapsed().as_secs_f64() / f64::from(runs);
    let batch = x.shape().dims()[0];
    println!(
        "{runs} runs of a batch of {batch}: {:.1} us per batch",
        per_batch * 1e6
    );

    let classes = probs.shape().dims()[1] as usize;
    let got = probs.to_vec::<f32>()?;
    let want = npy("probs")?.to_vec::<f32>()?;
    let labels = npy("labels")?.to_vec::<i32>()?;
    let predicted = argmax_rows(&got, classes);
    let jax_predicted = argmax_rows(&want, classes);
    println!("predictions (true class in brackets):");
    for (row, (p, l)) in predicted.iter().zip(&labels).enumerate().take(16) {
        let confidence = got[row * classes + p];
        println!("  x[{row:2}]: class {p} ({l}), p = {confidence:.3}");
    }
    let correct = predicted
        .iter()
        .zip(&labels)
        .filter(|&(&p, &l)| i32::try_from(p) == Ok(l))
        .count();
    println!(
        "accuracy on the batch: {correct}/{} = {:.3}",
        labels.len(),
        correct as f64 / labels.len() as f64
    );

    // Checks: the same probabilities as JAX (the JIT's exp is within a
    // few ulps, docs/jit-accuracy.md; sums may be in another order) and
    // the same predictions.
    let worst = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    if got.len() != want.len() || worst > 1e-5 {
        return Err(format!("oxla's probabilities differ from JAX's by up to {worst:e}").into());
    }
    if predicted != jax_predicted {
        return Err("oxla's predictions differ from JAX's".into());
    }
    println!("oxla matches JAX (largest difference {worst:e}) and predicts the same classes.");
    Ok(())
}
