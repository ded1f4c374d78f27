//! Build a small network with the builder, print it as HLO and as StableHLO,
//! and run it on the JIT and on the reference interpreter.
//!
//! ```sh
//! cargo run --release --example builder
//! ```
//!
//! The network is one dense layer with a bias and a ReLU, then a softmax
//! over the classes: `softmax(relu(x . w + b))` for a batch of 4 inputs of
//! 8 features and 3 classes. The dense layer is written with primitives, to
//! show how a binary op names the dimensions its lower-rank operand maps to
//! (`broadcast_dimensions`); the softmax comes from `oxla::composite`.

use oxla::{Builder, Computation, ElementType::F32, Literal, Shape, composite};

const BATCH: i64 = 4;
const FEATURES: i64 = 8;
const CLASSES: i64 = 3;

/// `softmax(relu(x . w + b))`, with `x: f32[4,8]`, `w: f32[8,3]`, `b: f32[3]`.
fn network() -> oxla::Result<Computation> {
    let mut b = Builder::new("classifier");
    let x = b.parameter(0, Shape::new(F32, &[BATCH, FEATURES]), "x")?;
    let w = b.parameter(1, Shape::new(F32, &[FEATURES, CLASSES]), "w")?;
    let bias = b.parameter(2, Shape::new(F32, &[CLASSES]), "bias")?;
    let xw = b.dot(x, w)?; // f32[4,3]
    // The bias, f32[3], maps to dimension 1 of f32[4,3]: it is added to
    // every row. `&[0]` would be an error naming both shapes (3 != 4).
    let z = b.add(xw, bias, &[1])?;
    // A scalar operand broadcasts everywhere: `&[]`.
    let zero = b.constant_scalar(0f32)?;
    let h = b.max(z, zero, &[])?;
    let probabilities = composite::softmax(&mut b, h, 1)?;
    b.build(probabilities)
}

/// Deterministic values in [-1, 1) for a `dims`-shaped f32 literal.
fn values(dims: &[i64], seed: u32) -> oxla::Result<Literal> {
    let n: i64 = dims.iter().product();
    let data = (0..n as u32)
        .map(|i| ((i * 37 + seed * 11) % 23) as f32 / 11.5 - 1.0)
        .collect();
    Literal::from_vec(dims, data)
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let comp = network()?;
    println!(
        "== HLO text (oxla::hlo::print)\n{}",
        oxla::hlo::print(&comp)
    );
    println!(
        "== StableHLO (oxla::stablehlo::print)\n{}",
        oxla::stablehlo::print(&comp)?
    );

    let args = [
        values(&[BATCH, FEATURES], 1)?,
        values(&[FEATURES, CLASSES], 2)?,
        Literal::from_vec(&[CLASSES], vec![0.5f32, 0.25, 0.75])?,
    ];
    let args: Vec<&Literal> = args.iter().collect();

    let exe = oxla::compile(&comp)?; // native code for this CPU, compiled once
    let jit = exe.run(&args)?;
    let interp = oxla::evaluate(&comp, &args)?; // the reference interpreter
    println!("== JIT ({} kernel(s))\n{jit}\n", exe.kernel_count());
    println!("== interpreter\n{interp}\n");

    // `exp` is within a few ulps on the JIT (docs/jit-accuracy.md), every
    // other op here exact, so the two agree to a few parts in 10^7.
    let (jit, interp) = (jit.to_vec::<f32>()?, interp.to_vec::<f32>()?);
    let worst = jit
        .iter()
        .zip(&interp)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    if jit.len() != interp.len() || worst > 1e-6 {
        return Err(format!("the JIT and the interpreter differ by up to {worst:e}").into());
    }
    // Each row is a probability distribution over the classes.
    for row in interp.chunks(CLASSES as usize) {
        let sum: f32 = row.iter().sum();
        if (sum - 1.0).abs() > 1e-6 {
            return Err(format!("a softmax row sums to {sum}, not 1").into());
        }
    }
    println!("JIT and interpreter agree (largest difference {worst:e}); every row sums to 1.");
    Ok(())
}
