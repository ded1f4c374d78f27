//! The indexing and windowed ops at sizes the `.hlo` files do not reach:
//! large enough to take the threaded and vectorised paths, with repeated
//! and out-of-range indices, non-associative combiners, grouped and
//! dilated convolutions. Every result is the interpreter's, bit for bit
//! (the JIT computes these ops in the interpreter's order), except float
//! convolutions computed as a GEMM, which sum in the GEMM's order within
//! the bound `docs/jit.md` states ([`check_conv`]).

use oxla_ir::{Computation, ElementType, Literal, Shape};

use crate::common::*;

fn module(text: &str) -> Computation {
    oxla_ir::parse_hlo_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Integer indices `lo + (k * 7919) % span` (repeats and, where the range
/// passes the operand, out-of-range values).
fn indices(ty: ElementType, dims: &[i64], lo: i128, span: i128) -> Literal {
    literal_from(&sh(ty, dims), |_| 0.0, |k| lo + (k as i128 * 7919) % span)
}

/// An integer dot (exact) feeds the update: its buffer is the update's.
#[test]
fn dynamic_update_slice_of_a_dying_intermediate_runs_in_place() {
    let comp = module(
        "HloModule dus\n\
         ENTRY dus {\n\
           x = s32[512,64] parameter(0)\n\
           w = s32[64,256] parameter(1)\n\
           u = s32[64,256] parameter(2)\n\
           i = s32[] parameter(3)\n\
           zero = s32[] constant(0)\n\
           y = s32[512,256] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n\
           ROOT d = s32[512,256] dynamic-update-slice(y, u, i, zero)\n\
         }\n",
    );
    let text = oxla_jit::fusion_text(&comp).expect("fusion text");
    assert!(text.contains("(in place)"), "{text}");
    for start in [0, 7, 448, 500, -3] {
        let i = literal_from(&sh(ElementType::S32, &[]), |_| 0.0, |_| start);
        check(
            &comp,
            &[
                values(&sh(ElementType::S32, &[512, 64]), 1),
                values(&sh(ElementType::S32, &[64, 256]), 15),
                values(&sh(ElementType::S32, &[64, 256]), 2),
                i,
            ],
        );
    }
}

#[test]
fn dynamic_update_slice_of_an_argument_copies_then_updates() {
    // The operand is read again after the update: no update in place.
    let comp = module(
        "HloModule dus2\n\
         ENTRY dus2 {\n\
           x = s16[300,40] parameter(0)\n\
           u = s16[30,17] parameter(1)\n\
           i = s16[] parameter(2)\n\
           j = s16[] parameter(3)\n\
           d = s16[300,40] dynamic-update-slice(x, u, i, j)\n\
           ROOT s = s16[300,40] add(d, x)\n\
         }\n",
    );
    for (i, j) in [(0, 0), (300, 23), (100, 40), (3, -1)] {
        check(
            &comp,
            &[
                values(&sh(ElementType::S16, &[300, 40]), 3),
                values(&sh(ElementType::S16, &[30, 17]), 4),
                literal_from(&sh(ElementType::S16, &[]), |_| 0.0, |_| i),
                literal_from(&sh(ElementType::S16, &[]), |_| 0.0, |_| j),
            ],
        );
    }
}

fn scatter_rows(combiner: &str, ty: &str) -> Computation {
    module(&format!(
        "HloModule scatter_rows\n\
         combine {{\n\
           a = {ty}[] parameter(0)\n\
           b = {ty}[] parameter(1)\n\
           ROOT c = {ty}[] {combiner}(a, b)\n\
         }}\n\
         ENTRY scatter_rows {{\n\
           x = {ty}[1024,64] parameter(0)\n\
           idx = s32[4096] parameter(1)\n\
           u = {ty}[4096,64] parameter(2)\n\
           ROOT s = {ty}[1024,64] scatter(x, idx, u), update_window_dims={{1}}, \
             inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, \
             index_vector_dim=1, to_apply=combine\n\
         }}\n"
    ))
}

#[test]
fn scatter_rows_with_repeats_and_out_of_range_indices_combine_in_order() {
    // Indices in [-5, 1100): most rows hit several times, some skipped.
    for (combiner, ty) in [
        ("add", ElementType::F32),
        ("subtract", ElementType::F32),
        ("multiply", ElementType::S32),
        ("maximum", ElementType::F64),
    ] {
        let name = ty.to_string();
        let comp = scatter_rows(combiner, &name);
        check(
            &comp,
            &[
                values(&sh(ty, &[1024, 64]), 5),
                indices(ElementType::S32, &[4096], -5, 1105),
                values(&sh(ty, &[4096, 64]), 6),
            ],
        );
    }
}

#[test]
fn scatter_of_points_with_a_two_instruction_combiner() {
    // Scalar updates at (row, col) points of a 2-d input: x * 2 + u, in
    // update order; u64 indices past i64::MAX are out of range.
    let comp = module(
        "HloModule scatter_points\n\
         combine {\n\
           a = f32[] parameter(0)\n\
           b = f32[] parameter(1)\n\
           two = f32[] constant(2)\n\
           t = f32[] multiply(a, two)\n\
           ROOT c = f32[] add(t, b)\n\
         }\n\
         ENTRY scatter_points {\n\
           x = f32[33,47] parameter(0)\n\
           idx = u64[3000,2] parameter(1)\n\
           u = f32[3000] parameter(2)\n\
           ROOT s = f32[33,47] scatter(x, idx, u), update_window_dims={}, \
             inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, \
             index_vector_dim=1, to_apply=combine\n\
         }\n",
    );
    let idx = literal_from(
        &sh(ElementType::U64, &[3000, 2]),
        |_| 0.0,
        |k| match k % 97 {
            0 => u64::MAX as i128,
            _ => (k as i128 * 7919) % 50,
        },
    );
    check(
        &comp,
        &[
            values(&sh(ElementType::F32, &[33, 47]), 7),
            idx,
            values(&sh(ElementType::F32, &[3000]), 8),
        ],
    );
}

#[test]
fn reduce_windows_pool_large_nhwc_inputs() {
    for (reducer, init, window, out) in [
        (
            "maximum",
            "-inf",
            "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0",
            "f32[4,32,32,32]",
        ),
        (
            "add",
            "0",
            "size=1x2x2x1 stride=1x1x1x1 pad=0_0x0_1x0_1x0_0",
            "f32[4,64,64,32]",
        ),
        (
            "add",
            "0.5",
            "size=1x3x2x1 stride=1x2x1x1 lhs_dilate=1x2x1x1 rhs_dilate=1x1x2x1",
            "f32[4,63,62,32]",
        ),
    ] {
        let comp = module(&format!(
            "HloModule pool\n\
             r {{\n\
               a = f32[] parameter(0)\n\
               b = f32[] parameter(1)\n\
               ROOT c = f32[] {reducer}(a, b)\n\
             }}\n\
             ENTRY pool {{\n\
               x = f32[4,64,64,32] parameter(0)\n\
               init = f32[] constant({init})\n\
               ROOT p = {out} reduce-window(x, init), window={{{window}}}, to_apply=r\n\
             }}\n"
        ));
        check(&comp, &[values(&sh(ElementType::F32, &[4, 64, 64, 32]), 9)]);
    }
}

/// Runs a float convolution (the root of `comp`, two parameters) through
/// both backends: each element of the JIT's result must be within
/// `2 K eps sum |l r|` of the interpreter's, `K` the terms per element and
/// `sum |l r|` the interpreter's convolution of the absolute values; and
/// the fusion text must say whether a reordering path (the GEMM, or the
/// tiled kernel of `convlib.rs`) was taken (`reordered`). Returns the
/// fusion text.
fn check_conv(comp: &Computation, args: &[Literal], reordered: bool) -> String {
    let entry = comp.entry();
    let root = entry.inst(entry.root);
    let oxla_ir::OpKind::Convolution { window, dims, .. } = &root.kind else {
        panic!("not a convolution\n{comp}");
    };
    let kernel = entry.inst(root.operands[1]).shape.dims();
    let k = window.dimensions.iter().map(|w| w.size).product::<i64>()
        * kernel[dims.kernel_input_feature_dimension as usize];
    let abs: Vec<Literal> = args
        .iter()
        .map(|a| {
            let v: Vec<f32> = a.to_vec::<f32>().unwrap().iter().map(|x| x.abs()).collect();
            Literal::from_vec(a.shape().dims(), v).unwrap()
        })
        .collect();
    let refs: Vec<&Literal> = args.iter().collect();
    let want = oxla_interp::evaluate(comp, &refs)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let abs_refs: Vec<&Literal> = abs.iter().collect();
    let sums = oxla_interp::evaluate(comp, &abs_refs)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let exe = oxla_jit::compile(comp).unwrap();
    let text = exe.fusion_text();
    let taken = text.contains("convolution gemm") || text.contains("(tiled)");
    assert_eq!(taken, reordered, "{text}");
    let got = exe.run(&refs).unwrap().to_vec::<f32>().unwrap();
    for (i, ((g, w), s)) in got.iter().zip(&want).zip(&sums).enumerate() {
        let bound = 2.0 * k as f64 * f32::EPSILON as f64 * *s as f64 * (1.0 + 1e-6);
        assert!(
            g == w || ((*g as f64) - (*w as f64)).abs() <= bound,
            "element {i}: jit {g} vs interpreter {w}, bound {bound}\n{comp}\n{text}"
        );
    }
    text.to_string()
}

#[test]
fn convolutions_of_every_layout_and_grouping_agree() {
    // The last element: whether the JIT takes the GEMM path.
    let cases = [
        // NHWC x HWIO, SAME padding.
        (
            "f32[4,32,32,16]",
            "f32[3,3,16,32]",
            "f32[4,32,32,32]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
            true,
        ),
        // NCHW x OIHW, strided and dilated.
        (
            "f32[2,16,33,31]",
            "f32[24,16,3,2]",
            "f32[2,24,16,30]",
            "window={size=3x2 stride=2x1 rhs_dilate=2x3 pad=2_1x0_2}, dim_labels=bf01_oi01->bf01",
            true,
        ),
        // Depthwise (feature groups = input features), NHWC.
        (
            "f32[2,40,40,32]",
            "f32[3,3,1,32]",
            "f32[2,40,40,32]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32",
            false,
        ),
        // Grouped: 4 groups of 8 input features.
        (
            "f32[2,20,20,32]",
            "f32[3,3,8,16]",
            "f32[2,18,18,16]",
            "window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=4",
            true,
        ),
        // Batch groups (a weight gradient), base dilation, reversal.
        (
            "f32[4,18,18,6]",
            "f32[5,5,6,8]",
            "f32[2,35,18,8]",
            "window={size=5x5 lhs_dilate=2x1 pad=2_2x2_2 rhs_reversal=1x0}, \
             dim_labels=b01f_01io->b01f, batch_group_count=2",
            true,
        ),
    ];
    for (lhs, rhs, out, attrs, gemm) in cases {
        let comp = module(&format!(
            "HloModule conv\n\
             ENTRY conv {{\n\
               x = {lhs} parameter(0)\n\
               k = {rhs} parameter(1)\n\
               ROOT c = {out} convolution(x, k), {attrs}\n\
             }}\n"
        ));
        let shapes: Vec<Shape> = comp
            .entry()
            .instructions
            .iter()
            .take(2)
            .map(|i| i.shape.clone())
            .collect();
        let args = [values(&shapes[0], 10), values(&shapes[1], 11)];
        let _ = check_conv(&comp, &args, gemm);
        if !gemm {
            // The direct kernel sums in the interpreter's order.
            check(&comp, &args);
        }
    }
}

/// Whether this machine takes the tiled convolution path (`convlib.rs`):
/// AVX2 and FMA, and not switched off for measurements.
fn tiles() -> bool {
    #[cfg(target_arch = "x86_64")]
    let simd =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    let simd = false;
    simd && std::env::var("OXLA_CONV_GEMM_ONLY").map_or(true, |v| v != "1")
}

/// NHWC convolutions on the reordering paths, those with base dilation
/// tiled where the machine can (else the GEMM): row counts that are not whole tiles, output features
/// that are not whole vectors or tiles, padding (negative too), strides,
/// both dilations (input gradients: `lhs_dilate`), reversal, a batch or
/// spatial dimension innermost among the output's, large enough to be
/// threaded; each within the reordering bound of the interpreter.
#[test]
fn tiled_convolutions_agree_at_odd_sizes() {
    let cases = [
        // The peers' CNN's second convolution, at batch 8.
        (
            "f32[8,28,28,16]",
            "f32[3,3,16,32]",
            "f32[8,28,28,32]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        ),
        // Its first: one input feature, 16 outputs.
        (
            "f32[8,28,28,1]",
            "f32[3,3,1,16]",
            "f32[8,28,28,16]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        ),
        // 45 output features (a tile of 32, then 13), odd rows, strides.
        (
            "f32[3,31,29,7]",
            "f32[3,2,7,45]",
            "f32[3,15,28,45]",
            "window={size=3x2 stride=2x1 pad=0_0x0_0}, dim_labels=b01f_01io->b01f",
        ),
        // An input gradient: base dilation 2, padding 2_1, kernel 01oi.
        (
            "f32[4,14,14,24]",
            "f32[3,3,20,24]",
            "f32[4,28,28,20]",
            "window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01oi->b01f",
        ),
        // Base dilation 3 in one dimension, window dilation, reversal.
        (
            "f32[2,11,13,6]",
            "f32[3,3,6,12]",
            "f32[2,33,13,12]",
            "window={size=3x3 pad=2_2x2_2 lhs_dilate=3x1 rhs_dilate=1x2 rhs_reversal=1x0}, \
             dim_labels=b01f_01io->b01f",
        ),
        // Negative padding (a crop) and 5 output features.
        (
            "f32[2,20,20,3]",
            "f32[2,2,3,5]",
            "f32[2,18,17,5]",
            "window={size=2x2 pad=-1_0x-1_-1}, dim_labels=b01f_01io->b01f",
        ),
        // The batch dimension innermost among the output's (0b1f), and a
        // 1-d convolution.
        (
            "f32[6,17,9,8]",
            "f32[3,3,8,16]",
            "f32[17,6,9,16]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->0b1f",
        ),
        (
            "f32[5,100,12]",
            "f32[7,12,40]",
            "f32[5,94,40]",
            "window={size=7}, dim_labels=b0f_0io->b0f",
        ),
    ];
    for (lhs, rhs, out, attrs) in cases {
        let comp = module(&format!(
            "HloModule conv\n\
             ENTRY conv {{\n\
               x = {lhs} parameter(0)\n\
               k = {rhs} parameter(1)\n\
               ROOT c = {out} convolution(x, k), {attrs}\n\
             }}\n"
        ));
        let shapes: Vec<Shape> = comp
            .entry()
            .instructions
            .iter()
            .take(2)
            .map(|i| i.shape.clone())
            .collect();
        let args = [values(&shapes[0], 30), values(&shapes[1], 31)];
        let text = check_conv(&comp, &args, true);
        // Only base-dilated convolutions are tiled (`fusion/conv.rs`).
        let dilated = attrs.contains("lhs_dilate");
        assert_eq!(text.contains("(tiled)"), tiles() && dilated, "{text}");
    }
}

/// A bias add and `relu` fused into the input copy of a tiled (base
/// dilated) convolution, each element computed once.
#[test]
fn a_fused_producer_feeds_the_tiled_convolution_through_its_input_copy() {
    let comp = module(
        "HloModule cnn\n\
         ENTRY cnn {\n\
           x = f32[4,14,14,16] parameter(0)\n\
           b = f32[16] parameter(1)\n\
           k = f32[3,3,16,32] parameter(2)\n\
           bb = f32[4,14,14,16] broadcast(b), dimensions={3}\n\
           s = f32[4,14,14,16] add(x, bb)\n\
           z = f32[] constant(0)\n\
           zb = f32[4,14,14,16] broadcast(z), dimensions={}\n\
           r = f32[4,14,14,16] maximum(s, zb)\n\
           ROOT c = f32[4,28,28,32] convolution(r, k), \
             window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f\n\
         }\n",
    );
    let text = oxla_jit::fusion_text(&comp).expect("fusion text");
    if tiles() {
        assert!(text.contains("convolution input of c"), "{text}");
    }
    // Quarter values: every sum is exact in any order, so the result is
    // the interpreter's bit for bit on either path.
    let args: Vec<Literal> = [
        (vec![4, 14, 14, 16], 40usize),
        (vec![16], 41),
        (vec![3, 3, 16, 32], 42),
    ]
    .iter()
    .map(|(d, seed)| {
        literal_from(
            &sh(ElementType::F32, d),
            |k| (((k * 7919 + seed) % 17) as f64 - 8.0) / 4.0,
            |_| 0,
        )
    })
    .collect();
    check(&comp, &args);
}

#[test]
fn integer_convolutions_wrap_as_the_interpreter_does() {
    let comp = module(
        "HloModule conv_s8\n\
         ENTRY conv_s8 {\n\
           x = s8[2,24,24,8] parameter(0)\n\
           k = s8[3,3,8,8] parameter(1)\n\
           ROOT c = s8[2,24,24,8] convolution(x, k), window={size=3x3 pad=1_1x1_1}, \
             dim_labels=b01f_01io->b01f\n\
         }\n",
    );
    // 72 terms per element and 8 output features: the blocked integer dot
    // (wrapping, so exact in its order too).
    let text = oxla_jit::fusion_text(&comp).expect("fusion text");
    assert!(text.contains("convolution gemm"), "{text}");
    check(
        &comp,
        &[
            values(&sh(ElementType::S8, &[2, 24, 24, 8]), 12),
            values(&sh(ElementType::S8, &[3, 3, 8, 8]), 13),
        ],
    );
}

#[test]
fn select_and_scatter_large_pool_gradients() {
    for (window, source) in [
        ("size=1x2x2x1 stride=1x2x2x1", "f32[4,32,32,16]"),
        (
            "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0",
            "f32[4,32,32,16]",
        ),
    ] {
        let comp = module(&format!(
            "HloModule pool_grad\n\
             ge {{\n\
               a = f32[] parameter(0)\n\
               b = f32[] parameter(1)\n\
               ROOT c = pred[] compare(a, b), direction=GE\n\
             }}\n\
             add {{\n\
               a = f32[] parameter(0)\n\
               b = f32[] parameter(1)\n\
               ROOT c = f32[] add(a, b)\n\
             }}\n\
             ENTRY pool_grad {{\n\
               x = f32[4,64,64,16] parameter(0)\n\
               s = {source} parameter(1)\n\
               init = f32[] constant(0)\n\
               ROOT g = f32[4,64,64,16] select-and-scatter(x, s, init), \
                 window={{{window}}}, select=ge, scatter=add\n\
             }}\n"
        ));
        // Coarse values: many ties, which the earliest position wins.
        let x = literal_from(
            &sh(ElementType::F32, &[4, 64, 64, 16]),
            |k| ((k * 7919) % 5) as f64,
            |_| 0,
        );
        let src = values(&comp.entry().instructions[1].shape, 14);
        check(&comp, &[x, src]);
    }
}

/// A 1x1 NHWC convolution over a parameter needs no patches: the GEMM
/// reads the input's buffer as its `[M, K]` matrix. With a fused producer
/// (`x + x`) the input is copied (as patches, or for the tiled kernel),
/// and with NCHW the patches are.
#[test]
fn pointwise_convolutions_read_their_input_as_the_patches() {
    let x = sh(ElementType::F32, &[4, 16, 16, 32]);
    let k = sh(ElementType::F32, &[1, 1, 32, 48]);
    for (root, input, copies) in [
        ("c = f32[4,16,16,48] convolution(x, k)", "", false),
        (
            "c = f32[4,16,16,48] convolution(y, k)",
            "y = f32[4,16,16,32] add(x, x)\n",
            true,
        ),
    ] {
        let comp = module(&format!(
            "HloModule pw\n\
             ENTRY pw {{\n\
               x = f32[4,16,16,32] parameter(0)\n\
               k = f32[1,1,32,48] parameter(1)\n\
               {input}\
               ROOT {root}, window={{size=1x1}}, dim_labels=b01f_01io->b01f\n\
             }}\n"
        ));
        let text = oxla_jit::fusion_text(&comp).expect("fusion text");
        // With a fused producer, the patches (GEMM path) or the input
        // (tiled path) are copied.
        let copied = text.contains("convolution patches") || text.contains("convolution input of");
        assert_eq!(copied, copies, "{text}");
        let _ = check_conv(&comp, &[values(&x, 20), values(&k, 21)], true);
    }
    let nchw = module(
        "HloModule pw_nchw\n\
         ENTRY pw_nchw {\n\
           x = f32[4,32,16,16] parameter(0)\n\
           k = f32[48,32,1,1] parameter(1)\n\
           ROOT c = f32[4,48,16,16] convolution(x, k), window={size=1x1}, \
             dim_labels=bf01_oi01->bf01\n\
         }\n",
    );
    let text = oxla_jit::fusion_text(&nchw).expect("fusion text");
    assert!(text.contains("convolution patches"), "{text}");
    let args = [
        values(&sh(ElementType::F32, &[4, 32, 16, 16]), 22),
        values(&sh(ElementType::F32, &[48, 32, 1, 1]), 23),
    ];
    let _ = check_conv(&nchw, &args, true);
}
