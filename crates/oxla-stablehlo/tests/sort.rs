//! The sort family's StableHLO, as JAX prints it: `compare_type` for a
//! TOTALORDER comparison (once written as `FLOAT`), `stablehlo.sort` with
//! its comparator region and several results, `chlo.top_k`, and the
//! iota-sort-slice that stands for a `topk` of the smallest. The texts were
//! run in XLA (`scripts/stablehlo_run_check.py` over `tests/hlo/sort/`).

fn export(hlo: &str) -> String {
    let comp = oxla_ir::parse_hlo_module(hlo).unwrap_or_else(|e| panic!("{e}"));
    oxla_stablehlo::to_stablehlo(&comp).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_total_order_comparison_keeps_its_type() {
    let text = export(
        "HloModule m\n\nENTRY m {\n  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n  \
         ROOT c = pred[4] compare(x, y), direction=LT, type=TOTALORDER\n}\n",
    );
    assert!(
        text.contains(
            "%0 = stablehlo.compare  LT, %arg0, %arg1,  TOTALORDER : (tensor<4xf32>, \
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
      %1 = stablehlo.compare  LT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
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
            "      %2 = stablehlo.compare  LT, %arg1, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
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
            "      %4 = stablehlo.compare  LT, %arg1, %arg2,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>",
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
