//! Real computations built from primitives (a dense layer with ReLU,
//! softmax, log-softmax, layer norm, GELU), evaluated and compared with the
//! same math written directly in Rust.

use oxla::composite;
use oxla::{Builder, ElementType::F32, Literal, Shape};

fn close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {i}: got {g}, want {w}"
        );
    }
}

fn rows(x: &[f32], n: usize) -> Vec<&[f32]> {
    x.chunks(n).collect()
}

const X: [f32; 8] = [1.0, -2.0, 3.5, 0.25, -1.0, 0.0, 10.0, -10.0];

#[test]
fn dense_relu_layer() {
    let mut b = Builder::new("mlp");
    let x = b.parameter(0, Shape::new(F32, &[2, 4]), "x").unwrap();
    let w = b.parameter(1, Shape::new(F32, &[4, 3]), "w").unwrap();
    let bias = b.parameter(2, Shape::new(F32, &[3]), "b").unwrap();
    let z = composite::dense(&mut b, x, w, bias).unwrap();
    let y = composite::relu(&mut b, z).unwrap();
    let comp = b.build(y).unwrap();
    let wv: Vec<f32> = (0..12).map(|i| (i as f32 - 5.0) / 4.0).collect();
    let bv = vec![0.5f32, -1.0, 2.0];
    let out = oxla::evaluate(
        &comp,
        &[
            &Literal::from_vec(&[2, 4], X.to_vec()).unwrap(),
            &Literal::from_vec(&[4, 3], wv.clone()).unwrap(),
            &Literal::from_vec(&[3], bv.clone()).unwrap(),
        ],
    )
    .unwrap();
    let mut want = vec![];
    for r in 0..2 {
        for c in 0..3 {
            let mut acc = 0.0f32;
            for k in 0..4 {
                acc += X[r * 4 + k] * wv[k * 3 + c];
            }
            want.push((acc + bv[c]).max(0.0));
        }
    }
    close(&out.to_vec::<f32>().unwrap(), &want, 1e-6);
}

fn run_rowwise(build: impl Fn(&mut Builder, oxla::Op) -> oxla::Op) -> Vec<f32> {
    let mut b = Builder::new("rowwise");
    let x = b.parameter(0, Shape::new(F32, &[2, 4]), "x").unwrap();
    let y = build(&mut b, x);
    let comp = b.build(y).unwrap();
    oxla::evaluate(&comp, &[&Literal::from_vec(&[2, 4], X.to_vec()).unwrap()])
        .unwrap()
        .to_vec::<f32>()
        .unwrap()
}

#[test]
fn softmax_and_log_softmax_over_rows() {
    let got = run_rowwise(|b, x| composite::softmax(b, x, 1).unwrap());
    let got_log = run_rowwise(|b, x| composite::log_softmax(b, x, 1).unwrap());
    let (mut want, mut want_log) = (vec![], vec![]);
    for row in rows(&X, 4) {
        let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let s: f32 = row.iter().map(|v| (v - m).exp()).sum();
        want.extend(row.iter().map(|v| (v - m).exp() / s));
        want_log.extend(row.iter().map(|v| v - m - s.ln()));
    }
    close(&got, &want, 1e-6);
    close(&got_log, &want_log, 1e-6);
    // Each row sums to 1.
    for row in rows(&got, 4) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
}

#[test]
fn softmax_over_columns_uses_the_other_mapping() {
    let mut b = Builder::new("softmax0");
    let x = b.parameter(0, Shape::new(F32, &[2, 4]), "x").unwrap();
    let y = composite::softmax(&mut b, x, 0).unwrap();
    let text = b.build(y).unwrap().to_hlo_text();
    assert!(text.contains("broadcast_dimensions={1}"), "{text}");
    let got = run_rowwise(|b, x| composite::softmax(b, x, 0).unwrap());
    for c in 0..4 {
        let (a, d) = (X[c], X[4 + c]);
        let m = a.max(d);
        let s = (a - m).exp() + (d - m).exp();
        close(
            &[got[c], got[4 + c]],
            &[(a - m).exp() / s, (d - m).exp() / s],
            1e-6,
        );
    }
}

#[test]
fn layer_norm_matches_the_formula() {
    let mut b = Builder::new("layer_norm");
    let x = b.parameter(0, Shape::new(F32, &[2, 4]), "x").unwrap();
    let g = b.parameter(1, Shape::new(F32, &[4]), "gamma").unwrap();
    let be = b.parameter(2, Shape::new(F32, &[4]), "beta").unwrap();
    let y = composite::layer_norm(&mut b, x, g, be, 1, 1e-5).unwrap();
    let comp = b.build(y).unwrap();
    insta::assert_snapshot!(comp.to_hlo_text());
    let gamma = [1.0f32, 2.0, 0.5, -1.0];
    let beta = [0.0f32, 1.0, -1.0, 0.5];
    let out = oxla::evaluate(
        &comp,
        &[
            &Literal::from_vec(&[2, 4], X.to_vec()).unwrap(),
            &Literal::from_vec(&[4], gamma.to_vec()).unwrap(),
            &Literal::from_vec(&[4], beta.to_vec()).unwrap(),
        ],
    )
    .unwrap();
    let mut want = vec![];
    for row in rows(&X, 4) {
        let mean = row.iter().sum::<f32>() / 4.0;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / 4.0;
        for (i, v) in row.iter().enumerate() {
            want.push((v - mean) / (var + 1e-5).sqrt() * gamma[i] + beta[i]);
        }
    }
    close(&out.to_vec::<f32>().unwrap(), &want, 1e-5);
}

#[test]
fn gelu_matches_the_tanh_approximation() {
    let got = run_rowwise(|b, x| composite::gelu(b, x).unwrap());
    let c = (2.0f32 / std::f32::consts::PI).sqrt();
    let want: Vec<f32> = X
        .iter()
        .map(|&x| 0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh()))
        .collect();
    close(&got, &want, 1e-6);
}

#[test]
fn composites_refuse_integers_and_bad_axes() {
    let mut b = Builder::new("bad");
    let i = b
        .parameter(0, Shape::new(oxla::ElementType::S32, &[2, 4]), "i")
        .unwrap();
    let f = b.parameter(1, Shape::new(F32, &[2, 4]), "f").unwrap();
    let e = composite::softmax(&mut b, i, 1).unwrap_err();
    assert!(e.to_string().contains("s32[2,4]"), "{e}");
    let e = composite::softmax(&mut b, f, 2).unwrap_err();
    assert!(
        e.to_string()
            .contains("axis 2 is out of range for f32[2,4]"),
        "{e}"
    );
}
