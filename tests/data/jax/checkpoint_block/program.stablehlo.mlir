module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xf32>, %arg1: tensor<6x6xf32>, %arg2: tensor<3x6xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<6x6xf32> {jax.result_info = "result[1][0]"}, tensor<6x6xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x6xf32>) -> tensor<3x6xf32>
    %1 = stablehlo.tanh %0 : tensor<3x6xf32>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x6xf32>) -> tensor<3x6xf32>
    %3 = stablehlo.tanh %2 : tensor<3x6xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<3x6xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x6xf32>
    %6 = stablehlo.multiply %5, %3 : tensor<3x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x6xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x6xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<3x6xf32>
    %10:4 = stablehlo.optimization_barrier %arg0, %arg1, %arg2, %9 : tensor<6x6xf32>, tensor<6x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>
    %11 = stablehlo.dot_general %10#2, %10#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x6xf32>) -> tensor<3x6xf32>
    %12 = stablehlo.tanh %11 : tensor<3x6xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x6xf32>
    %14 = stablehlo.subtract %13, %12 : tensor<3x6xf32>
    %15 = stablehlo.dot_general %12, %10#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x6xf32>) -> tensor<3x6xf32>
    %16 = stablehlo.tanh %15 : tensor<3x6xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x6xf32>
    %18 = stablehlo.subtract %17, %16 : tensor<3x6xf32>
    %19 = stablehlo.multiply %10#3, %18 : tensor<3x6xf32>
    %20 = stablehlo.multiply %19, %16 : tensor<3x6xf32>
    %21 = stablehlo.add %19, %20 : tensor<3x6xf32>
    %22 = stablehlo.dot_general %21, %12, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<6x6xf32>
    %23 = stablehlo.transpose %22, dims = [1, 0] : (tensor<6x6xf32>) -> tensor<6x6xf32>
    %24 = stablehlo.dot_general %21, %10#1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x6xf32>) -> tensor<3x6xf32>
    %25 = stablehlo.multiply %24, %14 : tensor<3x6xf32>
    %26 = stablehlo.multiply %25, %12 : tensor<3x6xf32>
    %27 = stablehlo.add %25, %26 : tensor<3x6xf32>
    %28 = stablehlo.dot_general %27, %10#2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<6x6xf32>
    %29 = stablehlo.transpose %28, dims = [1, 0] : (tensor<6x6xf32>) -> tensor<6x6xf32>
    return %7, %29, %23 : tensor<f32>, tensor<6x6xf32>, tensor<6x6xf32>
  }
}
