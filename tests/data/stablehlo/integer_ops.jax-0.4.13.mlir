module @jit_integer_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi32> {jax.arg_info = "a", mhlo.sharding = "{replicated}"}, %arg1: tensor<3x4xi32> {jax.arg_info = "b", mhlo.sharding = "{replicated}"}, %arg2: tensor<3x4xui8> {jax.arg_info = "u", mhlo.sharding = "{replicated}"}, %arg3: tensor<3x4xi1> {jax.arg_info = "p", mhlo.sharding = "{replicated}"}) -> (tensor<3x4xi32> {jax.result_info = "[0]"}, tensor<3x4xi32> {jax.result_info = "[1]"}, tensor<3x4xi32> {jax.result_info = "[2]"}, tensor<3x4xui8> {jax.result_info = "[3]"}, tensor<3x4xi32> {jax.result_info = "[4]"}, tensor<3x4xi32> {jax.result_info = "[5]"}, tensor<3x4xi32> {jax.result_info = "[6]"}, tensor<3x4xui8> {jax.result_info = "[7]"}, tensor<3x4xi1> {jax.result_info = "[8]"}, tensor<4xi32> {jax.result_info = "[9]"}, tensor<3xi32> {jax.result_info = "[10]"}) {
    %0 = call @floor_divide(%arg0, %arg1) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %1 = call @remainder(%arg0, %arg1) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %2 = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %4 = stablehlo.shift_left %arg0, %3 : tensor<3x4xi32>
    %5 = stablehlo.constant dense<1> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %7 = stablehlo.shift_right_arithmetic %arg1, %6 : tensor<3x4xi32>
    %8 = stablehlo.xor %4, %7 : tensor<3x4xi32>
    %9 = stablehlo.constant dense<7> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %11 = stablehlo.and %arg0, %10 : tensor<3x4xi32>
    %12 = stablehlo.or %8, %11 : tensor<3x4xi32>
    %13 = stablehlo.constant dense<3> : tensor<ui8>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<ui8>) -> tensor<3x4xui8>
    %15 = stablehlo.shift_right_logical %arg2, %14 : tensor<3x4xui8>
    %16 = stablehlo.constant dense<3> : tensor<ui8>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui8>) -> tensor<3x4xui8>
    %18 = stablehlo.multiply %arg2, %17 : tensor<3x4xui8>
    %19 = stablehlo.add %15, %18 : tensor<3x4xui8>
    %20 = stablehlo.negate %arg1 : tensor<3x4xi32>
    %21 = call @_where_1(%arg3, %arg0, %20) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %22 = stablehlo.maximum %arg0, %arg1 : tensor<3x4xi32>
    %23 = stablehlo.minimum %arg0, %arg1 : tensor<3x4xi32>
    %24 = stablehlo.subtract %22, %23 : tensor<3x4xi32>
    %25 = stablehlo.subtract %arg0, %arg1 : tensor<3x4xi32>
    %26 = stablehlo.abs %25 : tensor<3x4xi32>
    %27 = call @sign(%arg0) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %28 = stablehlo.multiply %26, %27 : tensor<3x4xi32>
    %29 = stablehlo.add %24, %28 : tensor<3x4xi32>
    %30 = stablehlo.constant dense<-3> : tensor<i64>
    %31 = stablehlo.constant dense<5> : tensor<i64>
    %32 = call @clip(%arg0, %30, %31) : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
    %33 = stablehlo.not %arg2 : tensor<3x4xui8>
    %34 = stablehlo.constant dense<90> : tensor<ui8>
    %35 = stablehlo.broadcast_in_dim %34, dims = [] : (tensor<ui8>) -> tensor<3x4xui8>
    %36 = stablehlo.xor %33, %35 : tensor<3x4xui8>
    %37 = stablehlo.constant dense<0> : tensor<i32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %39 = stablehlo.compare  GT, %arg0, %38,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %40 = stablehlo.and %arg3, %39 : tensor<3x4xi1>
    %41 = stablehlo.not %arg3 : tensor<3x4xi1>
    %42 = stablehlo.or %40, %41 : tensor<3x4xi1>
    %43 = stablehlo.multiply %arg0, %arg1 : tensor<3x4xi32>
    %44 = stablehlo.constant dense<0> : tensor<i32>
    %45 = stablehlo.reduce(%43 init: %44) applies stablehlo.add across dimensions = [0] : (tensor<3x4xi32>, tensor<i32>) -> tensor<4xi32>
    %46 = stablehlo.constant dense<1> : tensor<i32>
    %47 = stablehlo.reduce(%arg1 init: %46) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4xi32>, tensor<i32>) -> tensor<3xi32>
    return %0, %1, %12, %19, %21, %29, %32, %36, %42, %45, %47 : tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi1>, tensor<4xi32>, tensor<3xi32>
  }
  func.func private @floor_divide(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<3x4xi32>
    %1 = stablehlo.sign %arg0 : tensor<3x4xi32>
    %2 = stablehlo.sign %arg1 : tensor<3x4xi32>
    %3 = stablehlo.compare  NE, %1, %2,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<3x4xi32>
    %5 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %7 = stablehlo.compare  NE, %4, %6,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %8 = stablehlo.and %3, %7 : tensor<3x4xi1>
    %9 = stablehlo.constant dense<1> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %11 = stablehlo.subtract %0, %10 : tensor<3x4xi32>
    %12 = call @_where(%8, %11, %0) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    return %12 : tensor<3x4xi32>
  }
  func.func private @_where(%arg0: tensor<3x4xi1>, %arg1: tensor<3x4xi32>, %arg2: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x4xi1>, tensor<3x4xi32>
    return %0 : tensor<3x4xi32>
  }
  func.func private @remainder(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %2 = stablehlo.compare  EQ, %arg1, %1,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %3 = stablehlo.constant dense<1> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %5 = call @_where_0(%2, %4, %arg1) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %6 = stablehlo.remainder %arg0, %5 : tensor<3x4xi32>
    %7 = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %9 = stablehlo.compare  NE, %6, %8,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %10 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %12 = stablehlo.compare  LT, %6, %11,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %13 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %15 = stablehlo.compare  LT, %5, %14,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %16 = stablehlo.compare  NE, %12, %15,  UNSIGNED : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %17 = stablehlo.and %16, %9 : tensor<3x4xi1>
    %18 = stablehlo.add %6, %5 : tensor<3x4xi32>
    %19 = stablehlo.select %17, %18, %6 : tensor<3x4xi1>, tensor<3x4xi32>
    return %19 : tensor<3x4xi32>
  }
  func.func private @_where_0(%arg0: tensor<3x4xi1>, %arg1: tensor<3x4xi32>, %arg2: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x4xi1>, tensor<3x4xi32>
    return %0 : tensor<3x4xi32>
  }
  func.func private @_where_1(%arg0: tensor<3x4xi1>, %arg1: tensor<3x4xi32>, %arg2: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x4xi1>, tensor<3x4xi32>
    return %0 : tensor<3x4xi32>
  }
  func.func private @sign(%arg0: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.sign %arg0 : tensor<3x4xi32>
    return %0 : tensor<3x4xi32>
  }
  func.func private @clip(%arg0: tensor<3x4xi32>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<3x4xi32> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<3x4xi32>
    %3 = stablehlo.convert %arg2 : (tensor<i64>) -> tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %5 = stablehlo.minimum %4, %2 : tensor<3x4xi32>
    return %5 : tensor<3x4xi32>
  }
}
