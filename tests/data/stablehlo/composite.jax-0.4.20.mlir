module @jit_composite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<3x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.tanh %arg0 : tensor<3x4xf32>
    %1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<3x4xf32>
    %4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %6 = stablehlo.add %3, %5 : tensor<3x4xf32>
    return %6 : tensor<3x4xf32>
  }
}
