module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xbf16>, %arg1: tensor<8xbf16>, %arg2: tensor<8x3xbf16>, %arg3: tensor<3xbf16>, %arg4: tensor<6x4xbf16>, %arg5: tensor<6x3xbf16>) -> (tensor<bf16> {jax.result_info = "result[0]"}, tensor<4x8xbf16> {jax.result_info = "result[1]"}, tensor<8xbf16> {jax.result_info = "result[2]"}, tensor<8x3xbf16> {jax.result_info = "result[3]"}, tensor<3xbf16> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x4xbf16>, tensor<4x8xbf16>) -> tensor<6x8xbf16>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xbf16>) -> tensor<1x8xbf16>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xbf16>) -> tensor<6x8xbf16>
    %3 = stablehlo.add %0, %2 : tensor<6x8xbf16>
    %4 = stablehlo.tanh %3 : tensor<6x8xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<6x8xbf16>
    %6 = stablehlo.subtract %5, %4 : tensor<6x8xbf16>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xbf16>, tensor<8x3xbf16>) -> tensor<6x3xbf16>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xbf16>) -> tensor<1x3xbf16>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x3xbf16>) -> tensor<6x3xbf16>
    %10 = stablehlo.add %7, %9 : tensor<6x3xbf16>
    %11 = stablehlo.subtract %10, %arg5 : tensor<6x3xbf16>
    %12 = stablehlo.multiply %11, %11 : tensor<6x3xbf16>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<6x3xbf16>
    %14 = stablehlo.multiply %13, %11 : tensor<6x3xbf16>
    %15 = stablehlo.convert %12 : (tensor<6x3xbf16>) -> tensor<6x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.800000e+01> : tensor<f32>
    %17 = stablehlo.divide %16, %cst_2 : tensor<f32>
    %18 = stablehlo.convert %17 : (tensor<f32>) -> tensor<bf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.800000e+01> : tensor<f32>
    %19 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<6x3xf32>
    %21 = stablehlo.convert %20 : (tensor<6x3xf32>) -> tensor<6x3xbf16>
    %22 = stablehlo.multiply %21, %14 : tensor<6x3xbf16>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %23 = stablehlo.reduce(%22 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<6x3xbf16>, tensor<bf16>) -> tensor<3xbf16>
    %24 = stablehlo.reshape %23 : (tensor<3xbf16>) -> tensor<1x3xbf16>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %25 = stablehlo.reduce(%24 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<1x3xbf16>, tensor<bf16>) -> tensor<3xbf16>
    %26 = stablehlo.dot_general %22, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x3xbf16>, tensor<6x8xbf16>) -> tensor<3x8xbf16>
    %27 = stablehlo.transpose %26, dims = [1, 0] : (tensor<3x8xbf16>) -> tensor<8x3xbf16>
    %28 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x3xbf16>, tensor<8x3xbf16>) -> tensor<6x8xbf16>
    %29 = stablehlo.multiply %28, %6 : tensor<6x8xbf16>
    %30 = stablehlo.multiply %29, %4 : tensor<6x8xbf16>
    %31 = stablehlo.add %29, %30 : tensor<6x8xbf16>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %32 = stablehlo.reduce(%31 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<6x8xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %33 = stablehlo.reshape %32 : (tensor<8xbf16>) -> tensor<1x8xbf16>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %34 = stablehlo.reduce(%33 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x8xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %35 = stablehlo.dot_general %31, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xbf16>, tensor<6x4xbf16>) -> tensor<8x4xbf16>
    %36 = stablehlo.transpose %35, dims = [1, 0] : (tensor<8x4xbf16>) -> tensor<4x8xbf16>
    %cst_9 = stablehlo.constant dense<1.000980e-01> : tensor<bf16>
    %37 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<bf16>) -> tensor<4x8xbf16>
    %38 = stablehlo.multiply %37, %36 : tensor<4x8xbf16>
    %39 = stablehlo.subtract %arg0, %38 : tensor<4x8xbf16>
    %cst_10 = stablehlo.constant dense<1.000980e-01> : tensor<bf16>
    %40 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<bf16>) -> tensor<8xbf16>
    %41 = stablehlo.multiply %40, %34 : tensor<8xbf16>
    %42 = stablehlo.subtract %arg1, %41 : tensor<8xbf16>
    %cst_11 = stablehlo.constant dense<1.000980e-01> : tensor<bf16>
    %43 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<8x3xbf16>
    %44 = stablehlo.multiply %43, %27 : tensor<8x3xbf16>
    %45 = stablehlo.subtract %arg2, %44 : tensor<8x3xbf16>
    %cst_12 = stablehlo.constant dense<1.000980e-01> : tensor<bf16>
    %46 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<3xbf16>
    %47 = stablehlo.multiply %46, %25 : tensor<3xbf16>
    %48 = stablehlo.subtract %arg3, %47 : tensor<3xbf16>
    return %18, %39, %42, %45, %48 : tensor<bf16>, tensor<4x8xbf16>, tensor<8xbf16>, tensor<8x3xbf16>, tensor<3xbf16>
  }
}
