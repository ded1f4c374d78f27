module @jit_log_softmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x10xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}) -> (tensor<4x10xf32> {jax.result_info = ""}) {
    %0 = call @log_softmax(%arg0) : (tensor<4x10xf32>) -> tensor<4x10xf32>
    return %0 : tensor<4x10xf32>
  }
  func.func private @log_softmax(%arg0: tensor<4x10xf32>) -> tensor<4x10xf32> {
    %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.maximum across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x10xf32>
    %4 = stablehlo.subtract %arg0, %3 : tensor<4x10xf32>
    %5 = stablehlo.exponential %4 : tensor<4x10xf32>
    %6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%5 init: %6) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %9 = stablehlo.log %8 : tensor<4x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x10xf32>
    %11 = stablehlo.subtract %4, %10 : tensor<4x10xf32>
    return %11 : tensor<4x10xf32>
  }
}
