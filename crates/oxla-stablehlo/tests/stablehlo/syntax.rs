//! Forms the JAX corpus does not show: what older JAX versions, TensorFlow
//! and other exporters print. Each case is checked against the HLO it must
//! give (an inline snapshot, reviewed by hand), or against the same program
//! in JAX 0.10's form, and the ones with values are evaluated.

use oxla_ir::{Computation, Literal};
use oxla_stablehlo::parse_stablehlo;

use super::common::{canonical, leaves, same_bits};

fn parse(text: &str) -> Computation {
    parse_stablehlo(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The module's HLO text without the header line (names and all).
fn hlo(text: &str) -> String {
    let printed = parse(text).to_hlo_text();
    printed
        .split_once('\n')
        .map_or(printed.clone(), |(_, rest)| rest.trim().to_string())
}

fn run(text: &str, args: &[Literal]) -> Literal {
    let comp = parse(text);
    let refs: Vec<&Literal> = args.iter().collect();
    let interp = oxla_interp::evaluate(&comp, &refs).unwrap();
    let jit = match oxla_jit::compile(&comp) {
        Ok(exe) => exe.run(&refs).unwrap(),
        // An op the JIT refuses (`opt-barrier`): the interpreter only.
        Err(oxla_ir::Error::UnsupportedOp { .. }) => return interp,
        Err(e) => panic!("{e}"),
    };
    let (a, b) = (leaves(&interp), leaves(&jit));
    assert!(
        a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| same_bits(x, y)),
        "the JIT and the interpreter differ:\n{interp}\n{jit}"
    );
    interp
}

fn f32s(dims: &[i64], v: &[f32]) -> Literal {
    Literal::from_vec(dims, v.to_vec()).unwrap()
}

#[test]
fn older_jax_generic_attributes_read_as_the_current_form() {
    // JAX 0.4.x: attributes in `{...}` with `dense<...> : tensor<Nxi64>`
    // lists (a splat for equal entries), dialect attributes spelled out,
    // `mhlo.sharding` on arguments, a region-form reduce.
    let old = r#"
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<3x4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<4x2xf32> {jax.result_info = ""}, tensor<2xf32>, tensor<2xi1>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = "stablehlo.transpose"(%0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%arg0 init: %2) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {
      %7 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }
    %4 = "stablehlo.slice"(%arg0) {limit_indices = dense<[2, 1]> : tensor<2xi64>, start_indices = dense<0> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %5 = "stablehlo.reshape"(%4) : (tensor<2x1xf32>) -> tensor<2xf32>
    %6 = "stablehlo.compare"(%3, %5) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    return %1, %3, %6 : tensor<4x2xf32>, tensor<2xf32>, tensor<2xi1>
  }
}
"#;
    let new = r#"
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<4x2xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}, tensor<2xi1> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %3 = stablehlo.slice %arg0 [0:2, 0:1] : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %4 = stablehlo.reshape %3 : (tensor<2x1xf32>) -> tensor<2xf32>
    %5 = stablehlo.compare GT, %2, %4, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    return %1, %2, %5 : tensor<4x2xf32>, tensor<2xf32>, tensor<2xi1>
  }
}
"#;
    assert_eq!(canonical(&parse(old)), canonical(&parse(new)));
    // The generic form of every op, properties in `<{...}>`, a block label.
    let generic = r#"
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xi1>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>):
    %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = "stablehlo.transpose"(%0) <{permutation = array<i64: 1, 0>}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %2 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %3 = "stablehlo.reduce"(%a, %2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %9 = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%9) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %4 = "stablehlo.slice"(%a) <{limit_indices = array<i64: 2, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %5 = "stablehlo.reshape"(%4) : (tensor<2x1xf32>) -> tensor<2xf32>
    %6 = "stablehlo.compare"(%3, %5) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    "func.return"(%1, %3, %6) : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xi1>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()
"#;
    assert_eq!(canonical(&parse(generic)), canonical(&parse(new)));
}

#[test]
fn chlo_broadcasting_ops_lower_to_binary_ops_with_broadcast_dimensions() {
    let text = r#"
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %c: tensor<2x1xf32>, %r: tensor<1x3xf32>, %p: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>) {
  %0 = chlo.broadcast_add %x, %v {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_multiply %v, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = chlo.broadcast_subtract %c, %r : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %3 = chlo.broadcast_compare %x, %v {comparison_direction = #chlo<comparison_direction GT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = chlo.broadcast_select %p, %x, %v : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = "chlo.constant_like"(%x) <{value = 1.500000e+00 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = chlo.is_pos_inf %x : tensor<2x3xf32> -> tensor<2x3xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>
}
"#;
    let expected = r#"ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  c = f32[2,1]{1,0} parameter(2)
  r = f32[1,3]{1,0} parameter(3)
  p = pred[3]{0} parameter(4)
  add.0 = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
  multiply.1 = f32[2,3]{1,0} multiply(v, x), broadcast_dimensions={1}
  subtract.2 = f32[2,3]{1,0} subtract(c, r)
  compare.3 = pred[2,3]{1,0} compare(x, v), direction=GT, broadcast_dimensions={1}
  broadcast.9 = pred[2,3]{1,0} broadcast(p), dimensions={1}
  broadcast.10 = f32[2,3]{1,0} broadcast(v), dimensions={1}
  select.4 = f32[2,3]{1,0} select(broadcast.9, x, broadcast.10)
  constant.12 = f32[] constant(1.5)
  broadcast.5 = f32[2,3]{1,0} broadcast(constant.12), dimensions={}
  constant.14 = f32[] constant(inf)
  broadcast.15 = f32[2,3]{1,0} broadcast(constant.14), dimensions={}
  compare.6 = pred[2,3]{1,0} compare(x, broadcast.15), direction=EQ
  ROOT tuple = (f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0}, pred[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0}, pred[2,3]{1,0}) tuple(add.0, multiply.1, subtract.2, compare.3, select.4, broadcast.5, compare.6)
}"#;
    assert_eq!(hlo(text), expected);
    let out = run(
        text,
        &[
            f32s(&[2, 3], &[1., 2., 3., 4., f32::INFINITY, 6.]),
            f32s(&[3], &[10., 20., 30.]),
            f32s(&[2, 1], &[1., 2.]),
            f32s(&[1, 3], &[1., 10., 100.]),
            Literal::from_vec(&[3], vec![true, false, true]).unwrap(),
        ],
    );
    let e = out.tuple_elements().unwrap();
    assert_eq!(
        e[0].to_vec::<f32>().unwrap(),
        [11., 22., 33., 14., f32::INFINITY, 36.]
    );
    assert_eq!(
        e[2].to_vec::<f32>().unwrap(),
        [0., -9., -99., 1., -8., -98.]
    );
    assert_eq!(e[4].to_vec::<f32>().unwrap(), [1., 20., 3., 4., 20., 6.]);
    assert_eq!(
        e[6].to_vec::<bool>().unwrap(),
        [false, false, false, false, true, false]
    );
}

#[test]
fn dense_literals_in_every_spelling() {
    let text = r#"
module @consts {
  func.func public @main() -> (tensor<2x2xi32>, tensor<3xf32>, tensor<4xui8>, tensor<2xui64>, tensor<3xi1>, tensor<2xf32>, tensor<0xf32>, tensor<2xi16>, tensor<2xf64>, tensor<3xi8>) {
    %0 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
    %1 = stablehlo.constant dense<"0x0000803F000000C00000C07F"> : tensor<3xf32>
    %2 = stablehlo.constant dense<"0x07"> : tensor<4xui8>
    %3 = stablehlo.constant dense<[18446744073709551615, 0]> : tensor<2xui64>
    %4 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    %5 = stablehlo.constant dense<[0xFF800000, -0.000000e+00]> : tensor<2xf32>
    %6 = stablehlo.constant dense<> : tensor<0xf32>
    %7 = stablehlo.constant dense_resource<blob1> : tensor<2xi16>
    %8 = stablehlo.constant dense<[0.33333333333333331, 1.0E+300]> : tensor<2xf64>
    %9 = stablehlo.constant dense<[0x7F, 0x80, -1]> : tensor<3xi8>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x2xi32>, tensor<3xf32>, tensor<4xui8>, tensor<2xui64>, tensor<3xi1>, tensor<2xf32>, tensor<0xf32>, tensor<2xi16>, tensor<2xf64>, tensor<3xi8>
  }
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x02000000FFFF0100"
    }
  }
#-}
"#;
    let out = run(text, &[]);
    let e = out.tuple_elements().unwrap();
    assert_eq!(e[0].to_vec::<i32>().unwrap(), [1, -2, 3, 4]);
    let f = e[1].to_vec::<f32>().unwrap();
    assert_eq!(&f[..2], [1.0, -2.0]);
    assert!(f[2].is_nan());
    assert_eq!(e[2].to_vec::<u8>().unwrap(), [7, 7, 7, 7]);
    assert_eq!(e[3].to_vec::<u64>().unwrap(), [u64::MAX, 0]);
    assert_eq!(e[4].to_vec::<bool>().unwrap(), [true, false, true]);
    let f = e[5].to_vec::<f32>().unwrap();
    assert_eq!(f[0], f32::NEG_INFINITY);
    assert_eq!(f[1].to_bits(), (-0.0f32).to_bits());
    assert_eq!(e[6].element_count(), 0);
    assert_eq!(e[7].to_vec::<i16>().unwrap(), [-1, 1]);
    assert_eq!(e[8].to_vec::<f64>().unwrap(), [1.0 / 3.0, 1e300]);
    assert_eq!(e[9].to_vec::<i8>().unwrap(), [127, -128, -1]);
}

#[test]
fn a_splat_too_large_to_expand_becomes_a_broadcast_scalar() {
    let text = r#"
func.func @main() -> tensor<1000x1000xf32> {
  %0 = stablehlo.constant dense<2.500000e+00> : tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}
"#;
    assert_eq!(
        hlo(text),
        "ENTRY main {\n  constant.0 = f32[] constant(2.5)\n  ROOT broadcast.0 = f32[1000,1000]{1,0} broadcast(constant.0), dimensions={}\n}"
    );
    let small = text.replace("1000x1000", "2x2");
    assert_eq!(
        hlo(&small),
        "ENTRY main {\n  ROOT constant.0 = f32[2,2]{1,0} constant({ { 2.5, 2.5 }, { 2.5, 2.5 } })\n}"
    );
}

#[test]
fn calls_aliases_multiple_results_and_names() {
    // Bare functions (no `module`), a type alias, an attribute alias,
    // locations, a function called twice, results of several values, `call`
    // and `func.call`, an optimization barrier. A call's result takes the
    // caller's name for it (`%1` of an add is `add.1`).
    let text = r#"
!t = tensor<2xf32>
#loc1 = loc("x")
func.func public @main(%x: !t loc(#loc1), %y: !t) -> (!t, !t) {
  %0:2 = stablehlo.optimization_barrier %x, %y : !t, !t
  %1 = call @twice(%0#0) : (!t) -> !t
  %2 = func.call @twice(%0#1) : (!t) -> !t loc("here")
  %sum, %diff = call @sum_diff(%1, %2) : (!t, !t) -> (!t, !t)
  return %sum, %diff : !t, !t
}
func.func private @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @sum_diff(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.subtract %a, %b : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
"#;
    let expected = r#"ENTRY main {
  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  tuple.2 = (f32[2]{0}, f32[2]{0}) tuple(x, y)
  opt-barrier.3 = (f32[2]{0}, f32[2]{0}) opt-barrier(tuple.2)
  get-tuple-element.0 = f32[2]{0} get-tuple-element(opt-barrier.3), index=0
  get-tuple-element.0.1 = f32[2]{0} get-tuple-element(opt-barrier.3), index=1
  add.1 = f32[2]{0} add(get-tuple-element.0, get-tuple-element.0)
  add.2 = f32[2]{0} add(get-tuple-element.0.1, get-tuple-element.0.1)
  sum = f32[2]{0} add(add.1, add.2)
  diff = f32[2]{0} subtract(add.1, add.2)
  ROOT tuple = (f32[2]{0}, f32[2]{0}) tuple(sum, diff)
}"#;
    assert_eq!(hlo(text), expected);
    let out = run(text, &[f32s(&[2], &[1., 2.]), f32s(&[2], &[3., 5.])]);
    let e = out.tuple_elements().unwrap();
    assert_eq!(e[0].to_vec::<f32>().unwrap(), [8., 14.]);
    assert_eq!(e[1].to_vec::<f32>().unwrap(), [-4., -6.]);
}

#[test]
fn mixed_precision_dots_keep_their_result_type() {
    // `preferred_element_type`: an i8 dot accumulating in i32.
    let text = r#"
func.func @main(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
"#;
    let a = Literal::from_vec(&[2, 3], vec![100i8, 100, 100, -128, 1, 2]).unwrap();
    let b = Literal::from_vec(&[3], vec![100i8, 100, 100]).unwrap();
    // The interpreter alone: the JIT refuses mixed-type dots (issue 14).
    let got = oxla_interp::evaluate(&parse(text), &[&a, &b]).unwrap();
    assert_eq!(got.to_vec::<i32>().unwrap(), [30000, -12500]);
    // The dot itself has the result type, as in HLO: no converts.
    let printed = hlo(text);
    assert!(
        printed.contains("= s32[2]{0} dot(a, b)") && !printed.contains("convert"),
        "{printed}"
    );
    // A result type narrower than the operands' would lose values.
    let narrowing = text
        .replace("i8", "i32")
        .replace("-> tensor<2xi32>", "-> tensor<2xi16>")
        .replace("tensor<2xi32>\n", "tensor<2xi16>\n");
    let err = parse_stablehlo(&narrowing).unwrap_err().to_string();
    assert!(
        err.starts_with("3:8: stablehlo.dot_general:") && err.contains("s16"),
        "{err}"
    );
}
