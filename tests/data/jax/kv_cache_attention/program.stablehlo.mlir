module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x8xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<1x8xf32>, %arg3: tensor<1x8xf32>, %arg4: tensor<1x8xf32>, %arg5: tensor<i32>) -> (tensor<1x8xf32> {jax.result_info = "result[0]"}, tensor<16x8xf32> {jax.result_info = "result[1]"}, tensor<16x8xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg5, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<16> : tensor<i32>
    %1 = stablehlo.add %arg5, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg5 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.dynamic_update_slice %arg0, %arg3, %2, %c_1 : (tensor<16x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<16x8xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %arg5, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<16> : tensor<i32>
    %5 = stablehlo.add %arg5, %c_3 : tensor<i32>
    %6 = stablehlo.select %4, %5, %arg5 : tensor<i1>, tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.dynamic_update_slice %arg1, %arg4, %6, %c_4 : (tensor<16x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<16x8xf32>
    %8 = stablehlo.transpose %3, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %9 = stablehlo.dot_general %arg2, %8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
    %cst = stablehlo.constant dense<2.82842708> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
    %11 = stablehlo.divide %9, %10 : tensor<1x16xf32>
    %12 = stablehlo.iota dim = 0 : tensor<16xi32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [1] : (tensor<16xi32>) -> tensor<1x16xi32>
    %14 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<i32>) -> tensor<1x16xi32>
    %15 = stablehlo.compare LE, %13, %14, SIGNED : (tensor<1x16xi32>, tensor<1x16xi32>) -> tensor<1x16xi1>
    %cst_5 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
    %16 = call @_where(%15, %11, %cst_5) : (tensor<1x16xi1>, tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<1x16xf32>, tensor<f32>) -> tensor<1xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<1xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x16xf32>
    %22 = stablehlo.subtract %16, %21 : tensor<1x16xf32>
    %23 = stablehlo.exponential %22 : tensor<1x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<1x16xf32>, tensor<f32>) -> tensor<1xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x16xf32>
    %27 = stablehlo.divide %23, %26 : tensor<1x16xf32>
    %28 = stablehlo.dot_general %27, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x16xf32>, tensor<16x8xf32>) -> tensor<1x8xf32>
    return %28, %3, %7 : tensor<1x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
  }
  func.func private @_where(%arg0: tensor<1x16xi1>, %arg1: tensor<1x16xf32>, %arg2: tensor<f32>) -> tensor<1x16xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<1x16xi1>, tensor<1x16xf32>
    return %2 : tensor<1x16xf32>
  }
}
