//! Dots and convolutions of the narrow floats and sub-byte integers, and
//! dots whose result type differs from the type they sum in (`widen.rs`:
//! converts around an op of one wide type). Integer results are bit for
//! bit at every size; float dots sum in another order than the
//! interpreter's (the GEMM), so they agree within the float-dot bound,
//! plus one rounding to a narrow result type; float operands holding
//! small integers sum exactly in any order, so those agree bit for bit.

use oxla_ir::{DotDimensionNumbers, ElementType, Literal, parse_hlo_module};

use crate::common::*;

use ElementType::*;

fn matmul_dims() -> DotDimensionNumbers {
    DotDimensionNumbers {
        lhs_contracting: vec![1],
        rhs_contracting: vec![0],
        ..Default::default()
    }
}

/// Sizes `[m, k, n]`: a small product (the GEMM's edge paths) and one
/// large enough to be split across threads.
const SIZES: [[i64; 3]; 3] = [[3, 5, 4], [7, 33, 9], [96, 150, 70]];

/// `lhs x rhs -> out` on integers over each type's whole range (wrapping):
/// bit for bit.
#[test]
fn sub_byte_and_mixed_integer_dots_are_exact() {
    let cases = [
        (S4, S4, S4),
        (U4, U4, U4),
        (S2, S2, S2),
        (U1, U1, U1),
        (S4, S4, S8),
        (S4, S8, S32),
        (U2, U2, S32),
        (U4, U4, U64),
        (S1, S4, S16),
    ];
    for (l, r, out) in cases {
        for (s, [m, k, n]) in SIZES.into_iter().enumerate() {
            let (mut b, p) = builder("int_dot", &[sh(l, &[m, k]), sh(r, &[k, n])]);
            let d = b
                .dot_general_with_type(p[0], p[1], &matmul_dims(), out)
                .unwrap_or_else(|e| panic!("{l} x {r} -> {out}: {e}"));
            let comp = b.build(d).expect("build");
            let args = [
                values(&sh(l, &[m, k]), 11 + s as u64),
                values(&sh(r, &[k, n]), 23 + s as u64),
            ];
            check(&comp, &args);
        }
    }
}

/// Float operands holding small integers: every product and partial sum
/// is exact in `f32`, so any summation order gives the interpreter's bits,
/// and so does the rounding to a narrow result.
#[test]
fn narrow_float_dots_of_small_integers_are_exact() {
    let cases = [
        (Bf16, Bf16, F32),
        (Bf16, Bf16, Bf16),
        (F16, F16, F32),
        (F16, F16, F16),
        (Bf16, F16, F32),
        (F8E4M3FN, F8E4M3FN, F32),
        (F8E5M2, F8E5M2, Bf16),
        (F4E2M1FN, F4E2M1FN, F32),
        (F32, F32, Bf16),
        (F32, F32, F16),
        (F64, F64, F32),
        (Bf16, Bf16, F64),
    ];
    let small = |ty: ElementType, dims: &[i64], seed: u64| {
        literal_from(
            &sh(ty, dims),
            move |k| ((k as u64).wrapping_mul(2654435761).wrapping_add(seed) % 7) as f64 - 3.0,
            |_| 0,
        )
    };
    for (l, r, out) in cases {
        for (s, [m, k, n]) in SIZES.into_iter().enumerate() {
            let (mut b, p) = builder("small_dot", &[sh(l, &[m, k]), sh(r, &[k, n])]);
            let d = b
                .dot_general_with_type(p[0], p[1], &matmul_dims(), out)
                .unwrap_or_else(|e| panic!("{l} x {r} -> {out}: {e}"));
            let comp = b.build(d).expect("build");
            let args = [small(l, &[m, k], s as u64), small(r, &[k, n], 5 + s as u64)];
            check(&comp, &args);
        }
    }
}

/// `(mantissa bits, least normal exponent)` of a float type.
fn format(ty: ElementType) -> (i32, i32) {
    match ty {
        Bf16 => (7, -126),
        F16 => (10, -14),
        F32 => (23, -126),
        _ => (52, -1022),
    }
}

/// Spacing of `ty`'s values near `x` (an upper bound: `x 2^-mantissa`,
/// never below the subnormal spacing).
fn spacing(ty: ElementType, x: f64) -> f64 {
    let (mant, emin) = format(ty);
    (x.abs() * 2f64.powi(-mant)).max(2f64.powi(emin - mant))
}

/// Random operands in [-4, 4): the JIT's sum (the GEMM's order) is within
/// `2 k eps sum |a b|` of the interpreter's in-order sum, `eps` that of
/// the compute type; a narrow result rounds each sum once, so the two
/// results are within that bound plus one spacing of the result type.
#[test]
fn narrow_float_dots_agree_within_the_float_dot_bound() {
    let cases = [
        (Bf16, Bf16, F32),
        (Bf16, Bf16, Bf16),
        (F16, F16, F32),
        (F16, F16, F16),
        (F8E4M3FN, F8E4M3FN, F32),
        (F32, F32, Bf16),
        (F32, F32, F16),
        (Bf16, Bf16, F64),
    ];
    for (l, r, out) in cases {
        let compute = oxla_ir::shape_inference::dot_compute_type(l, r, out);
        let eps = 2f64.powi(-format(compute).0);
        for (s, [m, k, n]) in SIZES.into_iter().enumerate() {
            // The dot, its value in f64, and the operands' values in f64
            // (for the bound).
            let (mut b, p) = builder("dot", &[sh(l, &[m, k]), sh(r, &[k, n])]);
            let d = b
                .dot_general_with_type(p[0], p[1], &matmul_dims(), out)
                .expect("dot");
            let d64 = b.convert(d, F64).expect("convert");
            let a64 = b.convert(p[0], F64).expect("convert");
            let b64 = b.convert(p[1], F64).expect("convert");
            let t = b.tuple(&[d64, a64, b64]).expect("tuple");
            let comp = b.build(t).expect("build");
            let args = [
                values(&sh(l, &[m, k]), 31 + s as u64),
                values(&sh(r, &[k, n]), 47 + s as u64),
            ];
            let refs: Vec<&Literal> = args.iter().collect();
            let want = oxla_interp::evaluate(&comp, &refs).expect("interpreter");
            let exe = oxla_jit::compile(&comp).unwrap_or_else(|e| panic!("{e}\n{comp}"));
            let got = exe.run(&refs).expect("run");
            let leaf = |x: &Literal, i: usize| -> Vec<f64> {
                x.tuple_elements().expect("tuple")[i]
                    .to_vec::<f64>()
                    .expect("f64")
            };
            let (g, w) = (leaf(&got, 0), leaf(&want, 0));
            let (av, bv) = (leaf(&want, 1), leaf(&want, 2));
            for i in 0..m as usize {
                for j in 0..n as usize {
                    let abs: f64 = (0..k as usize)
                        .map(|t| (av[i * k as usize + t] * bv[t * n as usize + j]).abs())
                        .sum();
                    let mut bound = 2.0 * k as f64 * eps * abs;
                    if out != compute {
                        bound += spacing(out, w[i * n as usize + j].abs() + bound);
                    }
                    let (x, y) = (g[i * n as usize + j], w[i * n as usize + j]);
                    assert!(
                        (x - y).abs() <= bound,
                        "{l} x {r} -> {out} [{m},{k}]x[{k},{n}] at ({i},{j}): jit {x} vs \
                         interpreter {y} (bound {bound})\n{}",
                        exe.fusion_text()
                    );
                }
            }
            // The operands' conversions are exact: bit for bit.
            assert_eq!(leaf(&got, 1), av);
            assert_eq!(leaf(&got, 2), bv);
        }
    }
}

/// A dot inside a reducer body (folded in the interpreter's order, in
/// `f32`: `1 + 2^-8 + 2^-8` is `1.0078125` there, where a chain of `bf16`
/// adds would give 1) and batched dots with transposed operands: bit for
/// bit.
#[test]
fn narrow_dots_in_bodies_and_batches_are_exact() {
    let text = "HloModule m\n\
        body {\n  \
          a = bf16[] parameter(0)\n  \
          b = bf16[] parameter(1)\n  \
          c = bf16[3] constant({1, 0.00390625, 0.00390625})\n  \
          u = bf16[3] broadcast(a), dimensions={}\n  \
          w = bf16[3] multiply(u, c)\n  \
          o = bf16[3] broadcast(b), dimensions={}\n  \
          ROOT d = bf16[] dot(w, o), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n\
        }\n\
        ENTRY e {\n  \
          x = bf16[6,40] parameter(0)\n  \
          z = bf16[] constant(1)\n  \
          r = bf16[6] reduce(x, z), dimensions={1}, to_apply=body\n  \
          y = s4[3,8,5] parameter(1)\n  \
          w = s4[3,5,8] parameter(2)\n  \
          q = s4[3,8,8] dot(y, w), lhs_batch_dims={0}, rhs_batch_dims={0}, \
            lhs_contracting_dims={2}, rhs_contracting_dims={1}\n  \
          t = f32[3,5,5] dot(y, w), lhs_batch_dims={0}, rhs_batch_dims={0}, \
            lhs_contracting_dims={1}, rhs_contracting_dims={2}\n  \
          ROOT o = (bf16[6], s4[3,8,8], f32[3,5,5]) tuple(r, q, t)\n\
        }\n";
    let comp = parse_hlo_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let args = [
        literal_from(&sh(Bf16, &[6, 40]), |k| [1.0, -1.0, 0.5][k % 3], |_| 0),
        values(&sh(S4, &[3, 8, 5]), 2),
        values(&sh(S4, &[3, 5, 8]), 3),
    ];
    check(&comp, &args);
}

/// Convolutions of mixed narrow types: the operands converted to the
/// result type, then the convolution of that type (the GEMM path for a
/// wide one). Small integers keep every float sum exact.
#[test]
fn mixed_narrow_convolutions_match() {
    let cases = [
        (Bf16, F32),
        (F16, F32),
        (S4, S8),
        (U4, S32),
        (F8E4M3FN, Bf16),
    ];
    for (ty, to) in cases {
        let from = ty.name();
        let text = format!(
            "HloModule conv\n\
             ENTRY e {{\n  \
               x = {from}[2,9,9,6] parameter(0)\n  \
               w = {from}[3,3,6,8] parameter(1)\n  \
               ROOT c = {to}[2,9,9,8] convolution(x, w), window={{size=3x3 pad=1_1x1_1}}, \
                 dim_labels=b01f_01io->b01f\n\
             }}\n"
        );
        let comp = parse_hlo_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let small = |dims: &[i64], seed: u64| {
            literal_from(
                &sh(ty, dims),
                move |k| ((k as u64).wrapping_mul(2654435761).wrapping_add(seed) % 5) as f64 - 2.0,
                move |k| ((k as u64).wrapping_mul(2654435761).wrapping_add(seed) % 5) as i128 - 2,
            )
        };
        let args = [small(&[2, 9, 9, 6], 1), small(&[3, 3, 6, 8], 2)];
        check(&comp, &args);
    }
}
