module @jit_mlp_layer attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<8x16xf32> {jax.arg_info = "w", mhlo.sharding = "{replicated}"}, %arg2: tensor<16xf32> {jax.arg_info = "b", mhlo.sharding = "{replicated}"}) -> (tensor<4x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x16xf32>
    %4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %6 = stablehlo.maximum %3, %5 : tensor<4x16xf32>
    return %6 : tensor<4x16xf32>
  }
}
