module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<i32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.compare GT, %0, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %10 = stablehlo.subtract %arg0, %9 : tensor<5xf32>
      stablehlo.return %10 : tensor<5xf32>
    }, {
      %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %10 = stablehlo.multiply %arg0, %9 : tensor<5xf32>
      stablehlo.return %10 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %4 = stablehlo.clamp %c, %arg1, %c_1 : tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %10 = stablehlo.add %arg0, %9 : tensor<5xf32>
      stablehlo.return %10 : tensor<5xf32>
    }, {
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %10 = stablehlo.maximum %arg0, %9 : tensor<5xf32>
      stablehlo.return %10 : tensor<5xf32>
    }, {
      %9 = stablehlo.negate %arg0 : tensor<5xf32>
      stablehlo.return %9 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %6 = stablehlo.subtract %arg1, %c_2 : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<2> : tensor<i32>
    %7 = stablehlo.clamp %c_3, %6, %c_4 : tensor<i32>
    %8 = "stablehlo.case"(%7) ({
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %10 = stablehlo.add %arg0, %9 : tensor<5xf32>
      stablehlo.return %10 : tensor<5xf32>
    }, {
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %10 = stablehlo.maximum %arg0, %9 : tensor<5xf32>
      stablehlo.return %10 : tensor<5xf32>
    }, {
      %9 = stablehlo.negate %arg0 : tensor<5xf32>
      stablehlo.return %9 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    return %3, %5, %8 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
  }
}
