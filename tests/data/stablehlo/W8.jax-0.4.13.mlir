module @jit_w1 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x16xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<16xf32> {jax.arg_info = "v", mhlo.sharding = "{replicated}"}) -> (tensor<16x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<16x16xf32>
    return %1 : tensor<16x16xf32>
  }
}
