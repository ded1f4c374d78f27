module @jit_tuple_and_order attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<2x3xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<2x3xf32> {jax.result_info = "[0]"}, tensor<2x3xf32> {jax.result_info = "[1]"}, tensor<f32> {jax.result_info = "[2]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<2x3xf32>
    %2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%1 init: %2) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    return %arg1, %0, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
  }
}
