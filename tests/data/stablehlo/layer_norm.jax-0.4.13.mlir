module @jit_layer_norm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x16xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<16xf32> {jax.arg_info = "gamma", mhlo.sharding = "{replicated}"}, %arg2: tensor<16xf32> {jax.arg_info = "beta", mhlo.sharding = "{replicated}"}) -> (tensor<4x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %3 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %5 = stablehlo.divide %2, %4 : tensor<4x1xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %7 = stablehlo.subtract %arg0, %6 : tensor<4x16xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<4x16xf32>
    %9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%8 init: %9) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %12 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %14 = stablehlo.divide %11, %13 : tensor<4x1xf32>
    %15 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %16 = stablehlo.subtract %arg0, %15 : tensor<4x16xf32>
    %17 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %19 = stablehlo.add %14, %18 : tensor<4x1xf32>
    %20 = stablehlo.rsqrt %19 : tensor<4x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
    %22 = stablehlo.multiply %16, %21 : tensor<4x16xf32>
    %23 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %25 = stablehlo.multiply %22, %24 : tensor<4x16xf32>
    %26 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<4x16xf32>
    %28 = stablehlo.add %25, %27 : tensor<4x16xf32>
    return %28 : tensor<4x16xf32>
  }
}
