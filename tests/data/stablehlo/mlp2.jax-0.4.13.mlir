module @jit_mlp2 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<8x16xf32> {jax.arg_info = "w1", mhlo.sharding = "{replicated}"}, %arg2: tensor<16xf32> {jax.arg_info = "b1", mhlo.sharding = "{replicated}"}, %arg3: tensor<16x5xf32> {jax.arg_info = "w2", mhlo.sharding = "{replicated}"}, %arg4: tensor<5xf32> {jax.arg_info = "b2", mhlo.sharding = "{replicated}"}) -> (tensor<4x5xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x16xf32>
    %4 = call @relu(%3) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x5xf32>) -> tensor<4x5xf32>
    %6 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<4x5xf32>
    %8 = stablehlo.add %5, %7 : tensor<4x5xf32>
    %9 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.reduce(%8 init: %9) applies stablehlo.maximum across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x5xf32>
    %13 = stablehlo.subtract %8, %12 : tensor<4x5xf32>
    %14 = stablehlo.exponential %13 : tensor<4x5xf32>
    %15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%14 init: %15) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x5xf32>
    %19 = stablehlo.divide %14, %18 : tensor<4x5xf32>
    return %19 : tensor<4x5xf32>
  }
  func.func private @relu(%arg0: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<4x16xf32>
    return %2 : tensor<4x16xf32>
  }
}
