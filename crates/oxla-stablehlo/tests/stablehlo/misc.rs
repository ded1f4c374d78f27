//! The misc family in StableHLO, both ways.
//!
//! In: the forms MLIR prints (pinned below, printed by jaxlib's MLIR from
//! the generic form) for `popcnt`, `count_leading_zeros`, `cbrt`, `tan`,
//! `round_nearest_afz`, `chlo.erf`, `chlo.tan`, `bitcast_convert`,
//! `reduce_precision`, `rng`, `rng_bit_generator`, `cholesky`,
//! `triangular_solve` and the batch norms read as the HLO ops, in the pretty
//! and in the generic form alike.
//!
//! Both ways: every module of `tests/hlo/misc/` that parses exports and
//! reads back to a module that computes the same bits, prints the same
//! module when nothing is flattened or rewritten on the way (tuples are
//! flattened, a `bitcast` is written as a reshape, `rng`'s shape becomes a
//! constant operand), and then exports again to the same text.

use std::path::Path;

use oxla_ir::Computation;
use oxla_ir::ir::OpKind;
use oxla_stablehlo::{parse_stablehlo, to_stablehlo};

use super::common::canonical;
use super::round_trip::{has_tuples, same_results};

/// One module per op, as jaxlib's MLIR prints it (`get_asm()` of the
/// generic text below).
const PRETTY: &str = r#"module {
  func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<4xi32>, %arg3: tensor<2xui64>, %arg4: tensor<2xf32>, %arg5: tensor<2x2xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xui64>, tensor<4xui32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
    %0 = stablehlo.popcnt %arg2 : tensor<4xi32>
    %1 = stablehlo.count_leading_zeros %arg2 : tensor<4xi32>
    %2 = stablehlo.cbrt %arg0 : tensor<2x2xf32>
    %3 = stablehlo.tan %arg0 : tensor<2x2xf32>
    %4 = stablehlo.round_nearest_afz %arg0 : tensor<2x2xf32>
    %5 = stablehlo.bitcast_convert %arg2 : (tensor<4xi32>) -> tensor<4xf32>
    %6 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<2x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<2> : tensor<2xi64>
    %7 = stablehlo.rng %cst, %cst_0, %c, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
    %output_state, %output = stablehlo.rng_bit_generator %arg3, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    %8 = stablehlo.cholesky %arg0, lower = true : tensor<2x2xf32>
    %9 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %output_1, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg0, %arg4, %arg4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %10 = "stablehlo.batch_norm_inference"(%arg0, %arg4, %arg4, %arg4, %arg4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%arg0, %arg4, %arg4, %arg4, %arg5) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %11 = chlo.erf %arg0 : tensor<2x2xf32> -> tensor<2x2xf32>
    %12 = chlo.tan %arg0 : tensor<2x2xf32> -> tensor<2x2xf32>
    %13 = stablehlo.cholesky %arg0 : tensor<2x2xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %output_state, %output, %8, %9, %output_1, %batch_mean, %batch_var, %10, %grad_operand, %grad_scale, %grad_offset, %11, %12, %13 : tensor<4xi32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xui64>, tensor<4xui32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
}
"#;

/// The same module in MLIR's generic form (`print_generic_op_form=True`).
const GENERIC: &str = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x2xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<2xui64>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xui64>, tensor<4xui32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2x2xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<4xi32>, %arg3: tensor<2xui64>, %arg4: tensor<2xf32>, %arg5: tensor<2x2xf32>):
    %0 = "stablehlo.popcnt"(%arg2) : (tensor<4xi32>) -> tensor<4xi32>
    %1 = "stablehlo.count_leading_zeros"(%arg2) : (tensor<4xi32>) -> tensor<4xi32>
    %2 = "stablehlo.cbrt"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = "stablehlo.tan"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = "stablehlo.round_nearest_afz"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %5 = "stablehlo.bitcast_convert"(%arg2) : (tensor<4xi32>) -> tensor<4xf32>
    %6 = "stablehlo.reduce_precision"(%arg0) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %7 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %8 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %9 = "stablehlo.constant"() <{value = dense<2> : tensor<2xi64>}> : () -> tensor<2xi64>
    %10 = "stablehlo.rng"(%7, %8, %9) <{rng_distribution = #stablehlo<rng_distribution NORMAL>}> : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
    %11:2 = "stablehlo.rng_bit_generator"(%arg3) <{rng_algorithm = #stablehlo<rng_algorithm PHILOX>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    %12 = "stablehlo.cholesky"(%arg0) <{lower = true}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %13 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %14:3 = "stablehlo.batch_norm_training"(%arg0, %arg4, %arg4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %15 = "stablehlo.batch_norm_inference"(%arg0, %arg4, %arg4, %arg4, %arg4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    %16:3 = "stablehlo.batch_norm_grad"(%arg0, %arg4, %arg4, %arg4, %arg5) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %17 = "chlo.erf"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %18 = "chlo.tan"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %19 = "stablehlo.cholesky"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "func.return"(%0, %1, %2, %3, %4, %5, %6, %10, %11#0, %11#1, %12, %13, %14#0, %14#1, %14#2, %15, %16#0, %16#1, %16#2, %17, %18, %19) : (tensor<4xi32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xui64>, tensor<4xui32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;

/// Each op's HLO instruction, as the module read from [`PRETTY`] prints it
/// (names aside).
const INSTRUCTIONS: &[&str] = &[
    "s32[4]{0} popcnt(arg2)",
    "s32[4]{0} count-leading-zeros(arg2)",
    "f32[2,2]{1,0} cbrt(arg0)",
    "f32[2,2]{1,0} tan(arg0)",
    "f32[2,2]{1,0} round-nearest-afz(arg0)",
    "f32[4]{0} bitcast-convert(arg2)",
    "f32[2,2]{1,0} reduce-precision(arg0), exponent_bits=5, mantissa_bits=10",
    "f32[2,2]{1,0} rng(cst, cst_0), distribution=rng_normal",
    "(u64[2]{0}, u32[4]{0}) rng-bit-generator(arg3), algorithm=rng_philox",
    "f32[2,2]{1,0} cholesky(arg0), lower=true",
    "f32[2,3]{1,0} triangular-solve(arg0, arg1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
    "(f32[2,2]{1,0}, f32[2]{0}, f32[2]{0}) batch-norm-training(arg0, arg4, arg4), epsilon=0.001, feature_index=1",
    "f32[2,2]{1,0} batch-norm-inference(arg0, arg4, arg4, arg4, arg4), epsilon=0.001, feature_index=1",
    "(f32[2,2]{1,0}, f32[2]{0}, f32[2]{0}) batch-norm-grad(arg0, arg4, arg4, arg4, arg5), epsilon=0.001, feature_index=1",
    "f32[2,2]{1,0} erf(arg0)",
    "f32[2,2]{1,0} cholesky(arg0)\n",
];

#[test]
fn the_forms_mlir_prints_read_as_the_hlo_ops() {
    let pretty = parse_stablehlo(PRETTY).unwrap_or_else(|e| panic!("{e}"));
    let generic = parse_stablehlo(GENERIC).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(canonical(&pretty), canonical(&generic));
    let text = pretty.to_hlo_text();
    for inst in INSTRUCTIONS {
        assert!(text.contains(inst), "missing `{inst}` in\n{text}");
    }
    // Both `tan`s (StableHLO's and CHLO's) are HLO's `tan`.
    assert_eq!(text.matches(" tan(arg0)").count(), 2, "{text}");
}

/// The modules of an `.hlo` test file: each from its `HloModule` line to
/// the next comment.
pub(super) fn modules(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("HloModule") {
            out.extend(current.take());
            current = Some(String::new());
        } else if line.starts_with("//") {
            out.extend(current.take());
        }
        if let Some(m) = current.as_mut() {
            m.push_str(line);
            m.push('\n');
        }
    }
    out.extend(current);
    out
}

/// Whether the export rewrites something that reads back as other ops: a
/// `bitcast` (a reshape). (`rng`'s shape becomes a constant operand in
/// StableHLO, which the reader drops again.)
fn rewritten(c: &Computation) -> bool {
    c.bodies()
        .iter()
        .flat_map(|b| &b.instructions)
        .any(|i| matches!(i.kind, OpKind::Bitcast))
}

#[test]
fn every_misc_module_goes_to_stablehlo_and_back() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hlo/misc");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut same_module, mut same_values) = (0, 0);
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        for (k, text) in modules(path).iter().enumerate() {
            let what = format!("{file} module {k}");
            // The error cases do not parse (or do not verify).
            let Ok(comp) = oxla_ir::parse_hlo_module(text) else {
                continue;
            };
            let strict = oxla_ir::passes::expand_broadcasts(&comp).unwrap();
            let mlir = to_stablehlo(&strict).unwrap_or_else(|e| panic!("{what}: {e}"));
            let back = parse_stablehlo(&mlir).unwrap_or_else(|e| panic!("{what}: {e}\n{mlir}"));
            if !has_tuples(&strict) && !rewritten(&strict) {
                // (A flattened tuple's results are numbered anew.)
                assert_eq!(
                    to_stablehlo(&back).unwrap(),
                    mlir,
                    "{what}: exporting the module read back prints other text"
                );
            }
            if has_tuples(&strict) || rewritten(&strict) {
                assert!(same_results(&strict, &back, &what), "{what}: too large");
                same_values += 1;
            } else {
                assert_eq!(
                    canonical(&back),
                    canonical(&strict),
                    "{what}: the round trip changed the module\n{mlir}"
                );
                same_results(&strict, &back, &what);
                same_module += 1;
            }
        }
    }
    println!("{same_module} modules round-tripped, {same_values} compared by value");
    assert!(
        same_module >= 100,
        "only {same_module} modules round-tripped"
    );
    assert!(
        same_values >= 50,
        "only {same_values} modules compared by value"
    );
}

/// JAX's own StableHLO for `lax.rng_bit_generator` (jax 0.10.2: the key's
/// words bitcast to the `u64[2]` state and back), read and run in the
/// interpreter, gives JAX's bits (the JIT does not compile the op yet).
#[test]
fn jax_rng_bit_generator_reads_and_gives_jax_bits() {
    let mlir = r#"module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<4xui32> {jax.result_info = "result[0]"}, tensor<2x3xui32> {jax.result_info = "result[1]"}, tensor<4xui32> {jax.result_info = "result[2]"}, tensor<5xui32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %1 = stablehlo.bitcast_convert %0 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %1, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
    %2 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %3 = stablehlo.reshape %2 : (tensor<2x2xui32>) -> tensor<4xui32>
    %4 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_0, %output_1 = stablehlo.rng_bit_generator %5, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5xui32>)
    %6 = stablehlo.bitcast_convert %output_state_0 : (tensor<2xui64>) -> tensor<2x2xui32>
    %7 = stablehlo.reshape %6 : (tensor<2x2xui32>) -> tensor<4xui32>
    return %3, %output, %7, %output_1 : tensor<4xui32>, tensor<2x3xui32>, tensor<4xui32>, tensor<5xui32>
  }
}
"#;
    let comp = parse_stablehlo(mlir).unwrap_or_else(|e| panic!("{e}"));
    let key = oxla_ir::Literal::from_vec(&[4], vec![1u32, 2, 3, 4]).unwrap();
    let out = oxla_interp::evaluate(&comp, &[&key]).unwrap_or_else(|e| panic!("{e}"));
    // jax.jit(f)(np.array([1, 2, 3, 4], np.uint32)), printed by JAX.
    let want: [Vec<u32>; 4] = [
        vec![1, 2, 6, 4],
        vec![
            1576285164, 740599976, 2436392515, 2249660814, 2425682526, 1497962777,
        ],
        vec![1, 2, 5, 4],
        vec![512747620, 1298009047, 1267190206, 761827841, 1383286907],
    ];
    let got = super::common::leaves(&out);
    assert_eq!(got.len(), 4);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let g: Vec<u32> = (0..g.element_count())
            .map(|i| g.array_data().unwrap().format_value(i).parse().unwrap())
            .collect();
        assert_eq!(&g, w, "result {k}");
    }
}

/// `stablehlo.create_token` (the older spelling of an `after_all` of
/// nothing) reads as HLO's `after-all()`; `infeed`/`outfeed` are refused
/// naming the op and why.
#[test]
fn create_token_reads_as_after_all_and_infeed_is_refused() {
    let text = "module @m {\n  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {\n    \
                %0 = stablehlo.create_token : !stablehlo.token\n    \
                %1 = stablehlo.after_all %0 : !stablehlo.token\n    \
                return %arg0 : tensor<2xf32>\n  }\n}\n";
    let comp = parse_stablehlo(text).unwrap();
    let after_all: Vec<usize> = comp
        .entry()
        .instructions
        .iter()
        .filter(|i| matches!(i.kind, OpKind::AfterAll))
        .map(|i| i.operands.len())
        .collect();
    assert_eq!(after_all, [0, 1]);
    // The root (the parameter) is not the last instruction: it prints
    // last, as XLA prints a root, and the text reads back into the same.
    let printed = comp.to_string();
    let body: Vec<&str> = printed.lines().filter(|l| l.starts_with("  ")).collect();
    assert!(
        body.last()
            .is_some_and(|l| l.trim_start().starts_with("ROOT"))
            && body.iter().filter(|l| l.contains("ROOT")).count() == 1,
        "{printed}"
    );
    let again = oxla_ir::parse_hlo_module(&printed).unwrap();
    assert_eq!(again.to_string(), printed);
    let infeed = text.replace(
        "%1 = stablehlo.after_all %0 : !stablehlo.token",
        "%1:2 = \"stablehlo.infeed\"(%0) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)",
    );
    let err = parse_stablehlo(&infeed).unwrap_err().to_string();
    assert!(
        err.contains("stablehlo.infeed") && err.contains("no infeed"),
        "{err}"
    );
}

/// A `custom-call` with the attributes StableHLO has for it (the target,
/// escapes included, a string `backend_config`, `has_side_effect`,
/// `api_version` where written) goes to `stablehlo.custom_call` and reads
/// back into the same module; an attribute the reader does not keep is
/// refused by name.
#[test]
fn custom_calls_go_to_stablehlo_and_back() {
    let text = r#"HloModule cc

ENTRY cc {
  x = f32[4] parameter(0)
  a = f32[4] custom-call(x), custom_call_target="foo\"bar", backend_config="cfg \"q\"", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI
  b = f32[4] custom-call(a), custom_call_target="plain"
  ROOT c = f32[4] custom-call(b), custom_call_target="v2", api_version=API_VERSION_STATUS_RETURNING, backend_config="z"
}
"#;
    let comp = oxla_ir::parse_hlo_module(text).unwrap();
    let mlir = to_stablehlo(&comp).unwrap();
    assert!(
        mlir.contains(r#"stablehlo.custom_call @"plain"(%0) : "#),
        "{mlir}"
    );
    let back = parse_stablehlo(&mlir).unwrap();
    assert_eq!(canonical(&back), canonical(&comp));
    let refused = mlir.replace(
        "backend_config = \"z\"",
        "operand_layouts = [], backend_config = \"z\"",
    );
    assert_ne!(refused, mlir);
    let err = parse_stablehlo(&refused).unwrap_err().to_string();
    assert!(err.contains("`operand_layouts`"), "{err}");
}
