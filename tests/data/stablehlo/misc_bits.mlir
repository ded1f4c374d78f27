module @jit_misc_bits attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xui32>, %arg2: tensor<3x4xf32>) -> (tensor<3x4xi32> {jax.result_info = "result[0]"}, tensor<3x4xui32> {jax.result_info = "result[1]"}, tensor<3x4xi32> {jax.result_info = "result[2]"}, tensor<3x4xf32> {jax.result_info = "result[3]"}, tensor<3x4xf32> {jax.result_info = "result[4]"}, tensor<3x4xf32> {jax.result_info = "result[5]"}, tensor<3x4xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.popcnt %arg0 : tensor<3x4xi32>
    %1 = stablehlo.count_leading_zeros %arg1 : tensor<3x4xui32>
    %2 = stablehlo.bitcast_convert %arg2 : (tensor<3x4xf32>) -> tensor<3x4xi32>
    %3 = stablehlo.bitcast_convert %arg2 : (tensor<3x4xf32>) -> tensor<3x4xi32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %5 = stablehlo.xor %3, %4 : tensor<3x4xi32>
    %6 = stablehlo.bitcast_convert %5 : (tensor<3x4xi32>) -> tensor<3x4xf32>
    %7 = stablehlo.reduce_precision %arg2, format = e8m7 : tensor<3x4xf32>
    %cst = stablehlo.constant dense<1.000000e+03> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %9 = stablehlo.multiply %arg2, %8 : tensor<3x4xf32>
    %10 = stablehlo.reduce_precision %9, format = e5m10 : tensor<3x4xf32>
    %cst_0 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %12 = stablehlo.multiply %arg2, %11 : tensor<3x4xf32>
    %13 = stablehlo.round_nearest_afz %12 : tensor<3x4xf32>
    return %0, %1, %2, %6, %7, %10, %13 : tensor<3x4xi32>, tensor<3x4xui32>, tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}
