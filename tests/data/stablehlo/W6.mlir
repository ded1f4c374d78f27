module @jit_w6 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3x5x2xf32>, %arg1: tensor<3x2xf32>) -> (tensor<4x3x5x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 3] : (tensor<3x2xf32>) -> tensor<4x3x5x2xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<4x3x5x2xf32>
    return %1 : tensor<4x3x5x2xf32>
  }
}
