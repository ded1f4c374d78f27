//! The sort family in StableHLO, both ways.
//!
//! Out: `compare_type = TOTALORDER` (once written as `FLOAT`),
//! `stablehlo.sort` with its comparator region and several results,
//! `chlo.top_k`, and the iota-sort-slice that stands for a `topk` of the
//! smallest, pinned as JAX prints them (the texts of `tests/hlo/sort/` also
//! run in XLA: `scripts/stablehlo_run_check.py`).
//!
//! In: JAX's own StableHLO for `jnp.sort`, `jnp.argsort` and `lax.top_k`
//! (the JAX corpus's `sort_topk` and `sort_special_values`) reads back and
//! computes JAX's outputs bit for bit; `chlo.top_k`'s pretty and generic
//! forms, `stablehlo.sort`'s defaults (the last dimension, not stable) and
//! the comparison types read as XLA's verifier allows them.

use oxla_ir::Literal;
use oxla_stablehlo::{parse_stablehlo, to_stablehlo};

use super::common::{canonical, data, leaves, read_npy, same_bits};

fn export(hlo: &str) -> String {
    let comp = oxla_ir::parse_hlo_module(hlo).unwrap_or_else(|e| panic!("{e}"));
    to_stablehlo(&comp).unwrap_or_else(|e| panic!("{e}"))
}

/// The module read from `mlir`, printed as HLO without its header line.
fn hlo(mlir: &str) -> String {
    let printed = parse_stablehlo(mlir)
        .unwrap_or_else(|e| panic!("{e}\n{mlir}"))
        .to_hlo_text();
    printed
        .split_once('\n')
        .map_or(printed.clone(), |(_, rest)| rest.trim().to_string())
}

#[test]
fn a_total_order_comparison_keeps_its_type() {
    let text = export(
        "HloModule m\n\nENTRY m {\n  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n  \
         ROOT c = pred[4] compare(x, y), direction=LT, type=TOTALORDER\n}\n",
    );
    assert!(
        text.contains(
            "%0 = stablehlo.compare LT, %arg0, %arg1, TOTALORDER : (tensor<4xf32>, \
             tensor<4xf32>) -> tensor<4xi1>"
        ),
        "{text}"
    );
}

#[test]
fn a_sort_of_two_operands_has_a_region_and_two_results() {
    let text = export(
        "HloModule m\n\nlt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  \
         ROOT c = pred[] compare(a, b), direction=LT\n}\n\nENTRY m {\n  k = f32[5] parameter(0)\n  \
         v = s32[5] parameter(1)\n  \
         ROOT s = (f32[5], s32[5]) sort(k, v), dimensions={0}, is_stable=true, to_apply=lt\n}\n",
    );
    assert_eq!(
        text,
        "module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5xi32>) -> (tensor<5xf32> {jax.result_info = \"result[0]\"}, tensor<5xi32> {jax.result_info = \"result[1]\"}) {
    %0:2 = \"stablehlo.sort\"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
      %1 = stablehlo.compare LT, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>
  }
}
"
    );
}

#[test]
fn a_sort_feeding_other_ops_numbers_its_region_after_them() {
    let text = export(
        "HloModule m\n\nlt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         ROOT c = pred[] compare(a, b), direction=LT\n}\n\nENTRY m {\n  x = f32[2,4] parameter(0)\n  \
         s = f32[2,4] sort(x), dimensions={1}, to_apply=lt\n  \
         ROOT first = f32[2,2] slice(s), slice={[0:2], [0:2]}\n}\n",
    );
    let body: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(
        body[..7],
        [
            "    %0 = \"stablehlo.sort\"(%arg0) <{dimension = 1 : i64, is_stable = false}> ({",
            "    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):",
            "      %2 = stablehlo.compare LT, %arg1, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
            "      stablehlo.return %2 : tensor<i1>",
            "    }) : (tensor<2x4xf32>) -> tensor<2x4xf32>",
            "    %1 = stablehlo.slice %0 [0:2, 0:2] : (tensor<2x4xf32>) -> tensor<2x2xf32>",
            "    return %1 : tensor<2x2xf32>",
        ]
    );
}

#[test]
fn topk_is_chlo_top_k_or_a_sort_and_slices() {
    let text = export(
        "HloModule m\n\nENTRY m {\n  x = f32[3,5] parameter(0)\n  \
         big = (f32[3,2], s32[3,2]) topk(x), k=2, largest=true\n  \
         small = (f32[3,2], s32[3,2]) topk(x), k=2, largest=false\n  \
         ROOT t = ((f32[3,2], s32[3,2]), (f32[3,2], s32[3,2])) tuple(big, small)\n}\n",
    );
    let body: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(
        body[..10],
        [
            "    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)",
            "    %0 = stablehlo.iota dim = 1 : tensor<3x5xi32>",
            "    %1:2 = \"stablehlo.sort\"(%arg0, %0) <{dimension = 1 : i64, is_stable = true}> ({",
            "    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):",
            "      %4 = stablehlo.compare LT, %arg1, %arg2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>",
            "      stablehlo.return %4 : tensor<i1>",
            "    }) : (tensor<3x5xf32>, tensor<3x5xi32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)",
            "    %2 = stablehlo.slice %1#0 [0:3, 0:2] : (tensor<3x5xf32>) -> tensor<3x2xf32>",
            "    %3 = stablehlo.slice %1#1 [0:3, 0:2] : (tensor<3x5xi32>) -> tensor<3x2xi32>",
            "    return %values, %indices, %2, %3 : tensor<3x2xf32>, tensor<3x2xi32>, tensor<3x2xf32>, tensor<3x2xi32>",
        ]
    );
}

#[test]
fn an_argsort_reads_the_second_result_of_the_sort() {
    // get-tuple-element of a sort's tuple is that result (`%0#1`), and a
    // tuple of the sort's results returns its leaves.
    let text = export(
        "HloModule m\n\nlt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  \
         ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n\nENTRY m {\n  \
         x = f32[3] parameter(0)\n  iota = s32[3] iota(), iota_dimension=0\n  \
         s = (f32[3], s32[3]) sort(x, iota), dimensions={0}, is_stable=true, to_apply=lt\n  \
         ROOT idx = s32[3] get-tuple-element(s), index=1\n}\n",
    );
    assert!(
        text.contains("%1:2 = \"stablehlo.sort\"(%arg0, %0)")
            && text.contains("return %1#1 : tensor<3xi32>"),
        "{text}"
    );
}

#[test]
fn jax_sorts_read_back_and_compute_jax_values() {
    for (program, outputs) in [("sort_topk", 4), ("sort_special_values", 2)] {
        let dir = data(&format!("jax/{program}"));
        let text = std::fs::read_to_string(dir.join("program.stablehlo.mlir")).unwrap();
        let comp = parse_stablehlo(&text).unwrap_or_else(|e| panic!("{program}: {e}"));
        let input = read_npy(&dir.join("in0.npy"));
        let got = oxla_interp::evaluate(&comp, &[&input]).unwrap();
        let got = leaves(&got);
        assert_eq!(got.len(), outputs, "{program}");
        for (k, g) in got.iter().enumerate() {
            let want: Literal = read_npy(&dir.join(format!("out{k}.npy")));
            assert!(same_bits(g, &want), "{program} output {k}:\n{g}\n{want}");
        }
    }
}

#[test]
fn chlo_top_k_reads_in_both_forms() {
    let pretty = "module @m {\n  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {\n    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)\n    return %values, %indices : tensor<3x2xf32>, tensor<3x2xi32>\n  }\n}\n";
    let generic = "module @m {\n  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {\n    %0:2 = \"chlo.top_k\"(%arg0) <{k = 2 : i64}> : (tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)\n    return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi32>\n  }\n}\n";
    let text = hlo(pretty);
    assert!(text.contains("topk(arg0), k=2, largest=true"), "{text}");
    let read = |mlir: &str| canonical(&parse_stablehlo(mlir).unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(read(generic), read(pretty));
}

#[test]
fn a_sort_takes_the_last_dimension_and_no_stability_by_default() {
    // StableHLO's defaults: dimension -1, is_stable false; a negative
    // dimension counts from the end.
    let sort = |attrs: &str| {
        format!(
            "module @m {{\n  func.func public @main(%arg0: tensor<2x3xi32>) -> tensor<2x3xi32> {{\n    %0 = \"stablehlo.sort\"(%arg0) {attrs} ({{\n    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):\n      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      stablehlo.return %1 : tensor<i1>\n    }}) : (tensor<2x3xi32>) -> tensor<2x3xi32>\n    return %0 : tensor<2x3xi32>\n  }}\n}}\n"
        )
    };
    let default = hlo(&sort(""));
    assert!(default.contains("dimensions={1}, to_apply="), "{default}");
    assert_eq!(hlo(&sort("<{dimension = -1 : i64}>")), default);
    let stable = hlo(&sort("<{dimension = 0 : i64, is_stable = true}>"));
    assert!(
        stable.contains("dimensions={0}, is_stable=true"),
        "{stable}"
    );
}

#[test]
fn comparison_types_read_as_xla_verifies_them() {
    let compare = |ty: &str, et: &str| {
        format!(
            "module @m {{\n  func.func public @main(%arg0: tensor<2x{et}>) -> tensor<2xi1> {{\n    %0 = stablehlo.compare LT, %arg0, %arg0, {ty} : (tensor<2x{et}>, tensor<2x{et}>) -> tensor<2xi1>\n    return %0 : tensor<2xi1>\n  }}\n}}\n"
        )
    };
    assert!(hlo(&compare("TOTALORDER", "f32")).contains("direction=LT, type=TOTALORDER"));
    assert!(!hlo(&compare("FLOAT", "f32")).contains("type="));
    assert!(!hlo(&compare("NOTYPE", "f64")).contains("type="));
    assert!(!hlo(&compare("UNSIGNED", "ui8")).contains("type="));
    for (ty, et) in [
        ("TOTALORDER", "i32"),
        ("SIGNED", "ui8"),
        ("FLOAT", "i64"),
        ("UNSIGNED", "f32"),
    ] {
        let err = parse_stablehlo(&compare(ty, et)).unwrap_err().to_string();
        assert!(
            err.contains(&format!("compare type {ty} does not fit operands")),
            "{ty} on {et}: {err}"
        );
    }
}
