module @jit_float_math attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xf32>) -> (tensor<3x5xf32> {jax.result_info = "result[0]"}, tensor<3x5xf32> {jax.result_info = "result[1]"}, tensor<3x5xf32> {jax.result_info = "result[2]"}, tensor<3x5xf32> {jax.result_info = "result[3]"}, tensor<3x5xf32> {jax.result_info = "result[4]"}, tensor<3x5xf32> {jax.result_info = "result[5]"}, tensor<3x5xf32> {jax.result_info = "result[6]"}, tensor<3x5xf32> {jax.result_info = "result[7]"}, tensor<3x5xf32> {jax.result_info = "result[8]"}, tensor<3x5xf32> {jax.result_info = "result[9]"}, tensor<3x5xf32> {jax.result_info = "result[10]"}, tensor<3x5xf32> {jax.result_info = "result[11]"}, tensor<3x5xf32> {jax.result_info = "result[12]"}, tensor<3x5xi1> {jax.result_info = "result[13]"}, tensor<3x5xf32> {jax.result_info = "result[14]"}, tensor<3x5xf32> {jax.result_info = "result[15]"}, tensor<3x5xf32> {jax.result_info = "result[16]"}, tensor<3x5xi1> {jax.result_info = "result[17]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<3x5xf32>
    %1 = stablehlo.abs %arg0 : tensor<3x5xf32>
    %2 = stablehlo.log_plus_one %1 : tensor<3x5xf32>
    %3 = stablehlo.exponential_minus_one %arg0 : tensor<3x5xf32>
    %4 = stablehlo.sine %arg0 : tensor<3x5xf32>
    %5 = stablehlo.cosine %arg0 : tensor<3x5xf32>
    %6 = stablehlo.abs %arg1 : tensor<3x5xf32>
    %7 = stablehlo.sqrt %6 : tensor<3x5xf32>
    %8 = stablehlo.abs %arg1 : tensor<3x5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %10 = stablehlo.add %8, %9 : tensor<3x5xf32>
    %11 = stablehlo.rsqrt %10 : tensor<3x5xf32>
    %12 = stablehlo.negate %arg0 : tensor<3x5xf32>
    %13 = stablehlo.exponential %12 : tensor<3x5xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %15 = stablehlo.add %14, %13 : tensor<3x5xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %17 = stablehlo.divide %16, %15 : tensor<3x5xf32>
    %18 = stablehlo.atan2 %arg0, %arg1 : tensor<3x5xf32>
    %19 = stablehlo.abs %arg0 : tensor<3x5xf32>
    %20 = stablehlo.power %19, %arg1 : tensor<3x5xf32>
    %21 = stablehlo.floor %arg0 : tensor<3x5xf32>
    %22 = stablehlo.ceil %arg0 : tensor<3x5xf32>
    %23 = call @round(%arg0) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %24 = stablehlo.divide %arg0, %arg1 : tensor<3x5xf32>
    %25 = stablehlo.is_finite %24 : (tensor<3x5xf32>) -> tensor<3x5xi1>
    %26 = stablehlo.divide %arg0, %arg1 : tensor<3x5xf32>
    %27 = call @remainder(%arg0, %arg1) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %28 = stablehlo.maximum %arg0, %arg1 : tensor<3x5xf32>
    %29 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %30 = stablehlo.compare NE, %arg0, %arg1, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %31 = stablehlo.and %29, %30 : tensor<3x5xi1>
    %32 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %33 = stablehlo.or %31, %32 : tensor<3x5xi1>
    return %0, %2, %3, %4, %5, %7, %11, %17, %18, %20, %21, %22, %23, %25, %26, %27, %28, %33 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>
  }
  func.func private @round(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
  func.func private @remainder(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<3x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %4 = stablehlo.compare LT, %0, %3, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %6 = stablehlo.compare LT, %arg1, %5, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %7 = stablehlo.compare NE, %4, %6, UNSIGNED : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %8 = stablehlo.and %7, %2 : tensor<3x5xi1>
    %9 = stablehlo.add %0, %arg1 : tensor<3x5xf32>
    %10 = stablehlo.select %8, %9, %0 : tensor<3x5xi1>, tensor<3x5xf32>
    return %10 : tensor<3x5xf32>
  }
}
