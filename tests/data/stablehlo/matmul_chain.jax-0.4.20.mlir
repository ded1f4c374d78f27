module @jit_matmul_chain attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<6x5xf32> {mhlo.sharding = "{replicated}"}, %arg2: tensor<5x3xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<4x3xf32> {jax.result_info = "[0]"}, tensor<1x4x3xf32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
    %1 = stablehlo.dot_general %0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x6xf32>) -> tensor<1x4x6xf32>
    %3 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x5xf32>, tensor<5x3xf32>) -> tensor<6x3xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [1, 2] : (tensor<6x3xf32>) -> tensor<1x6x3xf32>
    %5 = stablehlo.dot_general %2, %4, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x4x6xf32>, tensor<1x6x3xf32>) -> tensor<1x4x3xf32>
    return %1, %5 : tensor<4x3xf32>, tensor<1x4x3xf32>
  }
}
