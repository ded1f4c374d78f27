module @jit_w9b attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}) -> (tensor<8x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<8x16xf32>
    %4 = stablehlo.exponential %3 : tensor<8x16xf32>
    %5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%4 init: %5) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %8 = stablehlo.divide %4, %7 : tensor<8x16xf32>
    return %8 : tensor<8x16xf32>
  }
}
