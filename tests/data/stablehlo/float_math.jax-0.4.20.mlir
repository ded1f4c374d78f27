module @jit_float_math attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<3x5xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<3x5xf32> {jax.result_info = "[0]"}, tensor<3x5xf32> {jax.result_info = "[1]"}, tensor<3x5xf32> {jax.result_info = "[2]"}, tensor<3x5xf32> {jax.result_info = "[3]"}, tensor<3x5xf32> {jax.result_info = "[4]"}, tensor<3x5xf32> {jax.result_info = "[5]"}, tensor<3x5xf32> {jax.result_info = "[6]"}, tensor<3x5xf32> {jax.result_info = "[7]"}, tensor<3x5xf32> {jax.result_info = "[8]"}, tensor<3x5xf32> {jax.result_info = "[9]"}, tensor<3x5xf32> {jax.result_info = "[10]"}, tensor<3x5xf32> {jax.result_info = "[11]"}, tensor<3x5xf32> {jax.result_info = "[12]"}, tensor<3x5xi1> {jax.result_info = "[13]"}, tensor<3x5xf32> {jax.result_info = "[14]"}, tensor<3x5xf32> {jax.result_info = "[15]"}, tensor<3x5xf32> {jax.result_info = "[16]"}, tensor<3x5xi1> {jax.result_info = "[17]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<3x5xf32>
    %1 = stablehlo.abs %arg0 : tensor<3x5xf32>
    %2 = stablehlo.log_plus_one %1 : tensor<3x5xf32>
    %3 = stablehlo.exponential_minus_one %arg0 : tensor<3x5xf32>
    %4 = stablehlo.sine %arg0 : tensor<3x5xf32>
    %5 = stablehlo.cosine %arg0 : tensor<3x5xf32>
    %6 = stablehlo.abs %arg1 : tensor<3x5xf32>
    %7 = stablehlo.sqrt %6 : tensor<3x5xf32>
    %8 = stablehlo.abs %arg1 : tensor<3x5xf32>
    %9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %11 = stablehlo.add %8, %10 : tensor<3x5xf32>
    %12 = stablehlo.rsqrt %11 : tensor<3x5xf32>
    %13 = call @sigmoid(%arg0) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %14 = stablehlo.atan2 %arg0, %arg1 : tensor<3x5xf32>
    %15 = stablehlo.abs %arg0 : tensor<3x5xf32>
    %16 = stablehlo.power %15, %arg1 : tensor<3x5xf32>
    %17 = stablehlo.floor %arg0 : tensor<3x5xf32>
    %18 = stablehlo.ceil %arg0 : tensor<3x5xf32>
    %19 = call @round(%arg0) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %20 = stablehlo.divide %arg0, %arg1 : tensor<3x5xf32>
    %21 = call @isfinite(%20) : (tensor<3x5xf32>) -> tensor<3x5xi1>
    %22 = stablehlo.divide %arg0, %arg1 : tensor<3x5xf32>
    %23 = call @remainder(%arg0, %arg1) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %24 = stablehlo.maximum %arg0, %arg1 : tensor<3x5xf32>
    %25 = stablehlo.compare  LT, %arg0, %arg1,  FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %26 = stablehlo.compare  NE, %arg0, %arg1,  FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %27 = stablehlo.and %25, %26 : tensor<3x5xi1>
    %28 = stablehlo.compare  GE, %arg0, %arg1,  FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %29 = stablehlo.or %27, %28 : tensor<3x5xi1>
    return %0, %2, %3, %4, %5, %7, %12, %13, %14, %16, %17, %18, %19, %21, %22, %23, %24, %29 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>
  }
  func.func private @sigmoid(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.negate %arg0 : tensor<3x5xf32>
    %1 = stablehlo.exponential %0 : tensor<3x5xf32>
    %2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %4 = stablehlo.add %3, %1 : tensor<3x5xf32>
    %5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %7 = stablehlo.divide %6, %4 : tensor<3x5xf32>
    return %7 : tensor<3x5xf32>
  }
  func.func private @round(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
  func.func private @isfinite(%arg0: tensor<3x5xf32>) -> tensor<3x5xi1> {
    %0 = stablehlo.is_finite %arg0 : (tensor<3x5xf32>) -> tensor<3x5xi1>
    return %0 : tensor<3x5xi1>
  }
  func.func private @remainder(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<3x5xf32>
    %1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %3 = stablehlo.compare  NE, %0, %2,  FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %6 = stablehlo.compare  LT, %0, %5,  FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %9 = stablehlo.compare  LT, %arg1, %8,  FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %10 = stablehlo.compare  NE, %6, %9,  UNSIGNED : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %11 = stablehlo.and %10, %3 : tensor<3x5xi1>
    %12 = stablehlo.add %0, %arg1 : tensor<3x5xf32>
    %13 = stablehlo.select %11, %12, %0 : tensor<3x5xi1>, tensor<3x5xf32>
    return %13 : tensor<3x5xf32>
  }
}
