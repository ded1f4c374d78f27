module @jit_data_movement attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<4xi32> {mhlo.sharding = "{replicated}"}) -> (tensor<7x5xf32> {jax.result_info = "[0]"}, tensor<2x2xf32> {jax.result_info = "[1]"}, tensor<4x6xf32> {jax.result_info = "[2]"}, tensor<4x3xf32> {jax.result_info = "[3]"}, tensor<2x6xf32> {jax.result_info = "[4]"}, tensor<5xi32> {jax.result_info = "[5]"}, tensor<4x3xi32> {jax.result_info = "[6]"}, tensor<4x3xf32> {jax.result_info = "[7]"}, tensor<2x4xi32> {jax.result_info = "[8]"}, tensor<3x3xf32> {jax.result_info = "[9]"}, tensor<4x3xf64> {jax.result_info = "[10]"}) {
    %0 = stablehlo.constant dense<-1.500000e+00> : tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0], high = [-1, 2], interior = [1, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x5xf32>
    %2 = stablehlo.slice %arg0 [0:4:2, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
    %3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %5 = stablehlo.multiply %arg0, %4 : tensor<4x3xf32>
    %6 = stablehlo.concatenate %arg0, %5, dim = 1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
    %7 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<4x3xf32>
    %8 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %9 = stablehlo.reshape %8 : (tensor<3x4xf32>) -> tensor<2x6xf32>
    %10 = stablehlo.iota dim = 0 : tensor<5xi32>
    %11 = stablehlo.constant dense<3> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %13 = stablehlo.multiply %10, %12 : tensor<5xi32>
    %14 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %16 = stablehlo.multiply %arg0, %15 : tensor<4x3xf32>
    %17 = stablehlo.convert %16 : (tensor<4x3xf32>) -> tensor<4x3xi32>
    %18 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %19 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %21 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %22 = stablehlo.clamp %20, %arg0, %21 : tensor<4x3xf32>
    %23 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
    %24 = stablehlo.iota dim = 0 : tensor<4x3xi32>
    %25 = stablehlo.slice %arg1 [0:3] : (tensor<4xi32>) -> tensor<3xi32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [1] : (tensor<3xi32>) -> tensor<1x3xi32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<4x3xi32>
    %28 = stablehlo.compare  EQ, %24, %27,  SIGNED : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi1>
    %29 = stablehlo.convert %28 : (tensor<4x3xi1>) -> tensor<4x3xf32>
    %30 = stablehlo.transpose %29, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %31 = stablehlo.dot_general %30, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
    %32 = stablehlo.convert %arg0 : (tensor<4x3xf32>) -> tensor<4x3xf64>
    return %1, %2, %6, %7, %9, %13, %17, %22, %23, %31, %32 : tensor<7x5xf32>, tensor<2x2xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<2x6xf32>, tensor<5xi32>, tensor<4x3xi32>, tensor<4x3xf32>, tensor<2x4xi32>, tensor<3x3xf32>, tensor<4x3xf64>
  }
}
