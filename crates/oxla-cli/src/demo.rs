//! `oxla demo`: the README's end-to-end example.
//!
//! Builds the computations of XLA's broadcasting text with the builder,
//! prints each one's HLO text, evaluates it and prints the result; then
//! shows what an invalid broadcast reports.

use std::fmt::Write;

use oxla::{Builder, Computation, ElementType::F32, Error, Literal, Shape};

/// One example: a title, the computation and its arguments.
struct Example {
    title: &'static str,
    comp: Computation,
    args: Vec<Literal>,
}

fn f32s(dims: &[i64], values: &[f32]) -> Result<Literal, Error> {
    Literal::from_vec(dims, values.to_vec())
}

/// Builds `lhs <op> rhs` with `broadcast_dimensions`.
fn binary(
    name: &str,
    lhs: &[i64],
    rhs: &[i64],
    dims: &[i64],
    op: impl FnOnce(&mut Builder, oxla::Op, oxla::Op, &[i64]) -> Result<oxla::Op, Error>,
) -> Result<Computation, Error> {
    let mut b = Builder::new(name);
    let x = b.parameter(0, Shape::new(F32, lhs), "x")?;
    let y = b.parameter(1, Shape::new(F32, rhs), "y")?;
    let r = op(&mut b, x, y, dims)?;
    b.build(r)
}

fn examples() -> Result<Vec<Example>, Error> {
    let add = |b: &mut Builder, x, y, d: &[i64]| b.add(x, y, d);
    let m23 = f32s(&[2, 3], &[1., 2., 3., 4., 5., 6.])?;
    let mut out = vec![
        Example {
            title: "scalar: |1 2 3; 4 5 6| + 7",
            comp: binary("matrix_plus_scalar", &[2, 3], &[], &[], add)?,
            args: vec![m23.clone(), Literal::scalar(7f32)],
        },
        Example {
            title: "InDim: |1 2 3; 4 5 6| + |7 8 9| with broadcast_dimensions=(1)",
            comp: binary("matrix_plus_vector", &[2, 3], &[3], &[1], add)?,
            args: vec![m23.clone(), f32s(&[3], &[7., 8., 9.])?],
        },
        Example {
            title: "InDim: 3x3 + |7 8 9| with (0): each vector element becomes a row",
            comp: binary("rows", &[3, 3], &[3], &[0], add)?,
            args: vec![f32s(&[3, 3], &[0.; 9])?, f32s(&[3], &[7., 8., 9.])?],
        },
        Example {
            title: "degenerate: (2,1) + (2,3)",
            comp: binary("degenerate", &[2, 1], &[2, 3], &[], add)?,
            args: vec![f32s(&[2, 1], &[10., 20.])?, m23.clone()],
        },
        Example {
            title: "outer operation: (2,1) + (1,3)",
            comp: binary("outer", &[2, 1], &[1, 3], &[], add)?,
            args: vec![f32s(&[2, 1], &[10., 20.])?, f32s(&[1, 3], &[1., 2., 3.])?],
        },
        Example {
            title: "composition: |1 2 3 4| + [5 6] (a 1x2 matrix) with (0) gives 4x2",
            comp: binary("composition", &[4], &[1, 2], &[0], add)?,
            args: vec![f32s(&[4], &[1., 2., 3., 4.])?, f32s(&[1, 2], &[5., 6.])?],
        },
        Example {
            title: "composition: f32[1,2] + f32[4,3,1] with (1,2) gives f32[4,3,2]",
            comp: binary("composition3", &[1, 2], &[4, 3, 1], &[1, 2], add)?,
            args: vec![
                f32s(&[1, 2], &[0.5, 0.25])?,
                f32s(&[4, 3, 1], &(0..12).map(|i| i as f32).collect::<Vec<_>>())?,
            ],
        },
        Example {
            title: "compare: (2,3) > (3) with (1) gives pred",
            comp: binary("greater", &[2, 3], &[3], &[1], |b, x, y, d| b.gt(x, y, d))?,
            args: vec![m23.clone(), f32s(&[3], &[2., 2., 7.])?],
        },
    ];
    out.push(Example {
        title: "a dense layer: max(x . w + b, 0), b broadcast over rows with (1)",
        comp: dense_layer()?,
        args: vec![
            m23,
            f32s(&[3, 2], &[1., -1., 0.5, 0.5, -1., 1.])?,
            f32s(&[2], &[0.5, -0.5])?,
        ],
    });
    Ok(out)
}

fn dense_layer() -> Result<Computation, Error> {
    let mut b = Builder::new("dense_relu");
    let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    let w = b.parameter(1, Shape::new(F32, &[3, 2]), "w")?;
    let bias = b.parameter(2, Shape::new(F32, &[2]), "b")?;
    let xw = b.dot(x, w)?;
    let z = b.add(xw, bias, &[1])?;
    let zero = b.constant_scalar(0f32)?;
    let y = b.max(z, zero, &[])?;
    b.build(y)
}

/// Runs the demo and returns what it prints.
pub fn run() -> Result<String, Error> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "oxla demo: XLA's broadcasting examples, built, printed, JIT-compiled and run\n"
    );
    for ex in examples()? {
        let _ = writeln!(out, "== {}", ex.title);
        let _ = write!(out, "{}", ex.comp);
        let args: Vec<&Literal> = ex.args.iter().collect();
        let start = std::time::Instant::now();
        let exe = oxla::compile(&ex.comp)?;
        let compiled = start.elapsed();
        let result = exe.run(&args)?;
        let reference = oxla::evaluate(&ex.comp, &args)?;
        let agree = if result == reference {
            "same as the reference interpreter"
        } else {
            "DIFFERS from the reference interpreter"
        };
        let _ = writeln!(
            out,
            "result (JIT: {} kernel(s), compiled in {:.2} ms; {agree}):\n{result}\n",
            exe.kernel_count(),
            compiled.as_secs_f64() * 1e3
        );
    }
    let _ = writeln!(
        out,
        "== an invalid broadcast: |1 2 3; 4 5 6| + |7 8 9| with (0)"
    );
    let mut b = Builder::new("invalid");
    let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
    match b.add(x, v, &[0]) {
        Err(e) => {
            let _ = writeln!(out, "{}", e.render());
        }
        Ok(_) => {
            let _ = writeln!(out, "unexpectedly accepted");
        }
    }
    Ok(out)
}
