module @jit_data_movement attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<4xi32>) -> (tensor<7x5xf32> {jax.result_info = "result[0]"}, tensor<2x2xf32> {jax.result_info = "result[1]"}, tensor<4x6xf32> {jax.result_info = "result[2]"}, tensor<4x3xf32> {jax.result_info = "result[3]"}, tensor<2x6xf32> {jax.result_info = "result[4]"}, tensor<5xi32> {jax.result_info = "result[5]"}, tensor<4x3xi32> {jax.result_info = "result[6]"}, tensor<4x3xf32> {jax.result_info = "result[7]"}, tensor<2x4xi32> {jax.result_info = "result[8]"}, tensor<3x3xf32> {jax.result_info = "result[9]"}, tensor<4x3xf64> {jax.result_info = "result[10]"}) {
    %cst = stablehlo.constant dense<-1.500000e+00> : tensor<f32>
    %0 = stablehlo.pad %arg0, %cst, low = [1, 0], high = [-1, 2], interior = [1, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x5xf32>
    %1 = stablehlo.slice %arg0 [0:4:2, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %3 = stablehlo.multiply %arg0, %2 : tensor<4x3xf32>
    %4 = stablehlo.concatenate %arg0, %3, dim = 1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
    %5 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<4x3xf32>
    %6 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %7 = stablehlo.reshape %6 : (tensor<3x4xf32>) -> tensor<2x6xf32>
    %8 = stablehlo.iota dim = 0 : tensor<5xi32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %10 = stablehlo.multiply %8, %9 : tensor<5xi32>
    %cst_1 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<4x3xf32>
    %13 = stablehlo.convert %12 : (tensor<4x3xf32>) -> tensor<4x3xi32>
    %cst_2 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %16 = stablehlo.clamp %14, %arg0, %15 : tensor<4x3xf32>
    %17 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
    %18 = stablehlo.iota dim = 0 : tensor<4x3xi32>
    %19 = stablehlo.slice %arg1 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<3xi32>) -> tensor<1x3xi32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<4x3xi32>
    %22 = stablehlo.compare EQ, %18, %21, SIGNED : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi1>
    %23 = stablehlo.convert %22 : (tensor<4x3xi1>) -> tensor<4x3xf32>
    %24 = stablehlo.transpose %23, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %25 = stablehlo.dot_general %24, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
    %26 = stablehlo.convert %arg0 : (tensor<4x3xf32>) -> tensor<4x3xf64>
    return %0, %1, %4, %5, %7, %10, %13, %16, %17, %25, %26 : tensor<7x5xf32>, tensor<2x2xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<2x6xf32>, tensor<5xi32>, tensor<4x3xi32>, tensor<4x3xf32>, tensor<2x4xi32>, tensor<3x3xf32>, tensor<4x3xf64>
  }
}
