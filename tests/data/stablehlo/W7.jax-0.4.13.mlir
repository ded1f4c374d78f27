module @jit_w7 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<16xf32> {jax.arg_info = "y", mhlo.sharding = "{replicated}"}) -> (tensor<8x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.compare  GT, %arg0, %0,  FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %2 = stablehlo.select %1, %arg0, %0 : tensor<8x16xi1>, tensor<8x16xf32>
    return %2 : tensor<8x16xf32>
  }
}
