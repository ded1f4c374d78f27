module @jit_misc_float attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>) -> (tensor<4x5xf32> {jax.result_info = "result[0]"}, tensor<4x5xf32> {jax.result_info = "result[1]"}, tensor<4x5xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x5xf32>
    %2 = stablehlo.cbrt %1 : tensor<4x5xf32>
    %3 = stablehlo.tan %arg0 : tensor<4x5xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %5 = stablehlo.multiply %arg0, %4 : tensor<4x5xf32>
    %6 = chlo.erf %5 : tensor<4x5xf32> -> tensor<4x5xf32>
    return %2, %3, %6 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>
  }
}
