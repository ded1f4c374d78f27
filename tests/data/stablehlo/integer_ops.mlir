module @jit_integer_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xi32>, %arg2: tensor<3x4xui8>, %arg3: tensor<3x4xi1>) -> (tensor<3x4xi32> {jax.result_info = "result[0]"}, tensor<3x4xi32> {jax.result_info = "result[1]"}, tensor<3x4xi32> {jax.result_info = "result[2]"}, tensor<3x4xui8> {jax.result_info = "result[3]"}, tensor<3x4xi32> {jax.result_info = "result[4]"}, tensor<3x4xi32> {jax.result_info = "result[5]"}, tensor<3x4xi32> {jax.result_info = "result[6]"}, tensor<3x4xui8> {jax.result_info = "result[7]"}, tensor<3x4xi1> {jax.result_info = "result[8]"}, tensor<4xi32> {jax.result_info = "result[9]"}, tensor<3xi32> {jax.result_info = "result[10]"}) {
    %0 = call @floor_divide(%arg0, %arg1) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %1 = call @remainder(%arg0, %arg1) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %3 = stablehlo.shift_left %arg0, %2 : tensor<3x4xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %5 = stablehlo.shift_right_arithmetic %arg1, %4 : tensor<3x4xi32>
    %6 = stablehlo.xor %3, %5 : tensor<3x4xi32>
    %c_1 = stablehlo.constant dense<7> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %8 = stablehlo.and %arg0, %7 : tensor<3x4xi32>
    %9 = stablehlo.or %6, %8 : tensor<3x4xi32>
    %c_2 = stablehlo.constant dense<3> : tensor<ui8>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui8>) -> tensor<3x4xui8>
    %11 = stablehlo.shift_right_logical %arg2, %10 : tensor<3x4xui8>
    %c_3 = stablehlo.constant dense<3> : tensor<ui8>
    %12 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui8>) -> tensor<3x4xui8>
    %13 = stablehlo.multiply %arg2, %12 : tensor<3x4xui8>
    %14 = stablehlo.add %11, %13 : tensor<3x4xui8>
    %15 = stablehlo.negate %arg1 : tensor<3x4xi32>
    %16 = call @_where(%arg3, %arg0, %15) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %17 = stablehlo.maximum %arg0, %arg1 : tensor<3x4xi32>
    %18 = stablehlo.minimum %arg0, %arg1 : tensor<3x4xi32>
    %19 = stablehlo.subtract %17, %18 : tensor<3x4xi32>
    %20 = stablehlo.subtract %arg0, %arg1 : tensor<3x4xi32>
    %21 = stablehlo.abs %20 : tensor<3x4xi32>
    %22 = stablehlo.sign %arg0 : tensor<3x4xi32>
    %23 = stablehlo.multiply %21, %22 : tensor<3x4xi32>
    %24 = stablehlo.add %19, %23 : tensor<3x4xi32>
    %c_4 = stablehlo.constant dense<-3> : tensor<i64>
    %c_5 = stablehlo.constant dense<5> : tensor<i64>
    %25 = call @clip(%arg0, %c_4, %c_5) : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
    %26 = stablehlo.not %arg2 : tensor<3x4xui8>
    %c_6 = stablehlo.constant dense<90> : tensor<ui8>
    %27 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui8>) -> tensor<3x4xui8>
    %28 = stablehlo.xor %26, %27 : tensor<3x4xui8>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %30 = stablehlo.compare GT, %arg0, %29, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %31 = stablehlo.and %arg3, %30 : tensor<3x4xi1>
    %32 = stablehlo.not %arg3 : tensor<3x4xi1>
    %33 = stablehlo.or %31, %32 : tensor<3x4xi1>
    %34 = stablehlo.multiply %arg0, %arg1 : tensor<3x4xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %35 = stablehlo.reduce(%34 init: %c_8) applies stablehlo.add across dimensions = [0] : (tensor<3x4xi32>, tensor<i32>) -> tensor<4xi32>
    %c_9 = stablehlo.constant dense<1> : tensor<i32>
    %36 = stablehlo.reduce(%arg1 init: %c_9) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4xi32>, tensor<i32>) -> tensor<3xi32>
    return %0, %1, %9, %14, %16, %24, %25, %28, %33, %35, %36 : tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi1>, tensor<4xi32>, tensor<3xi32>
  }
  func.func private @floor_divide(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<3x4xi32>
    %1 = stablehlo.sign %arg0 : tensor<3x4xi32>
    %2 = stablehlo.sign %arg1 : tensor<3x4xi32>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<3x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %7 = stablehlo.and %3, %6 : tensor<3x4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %9 = stablehlo.subtract %0, %8 : tensor<3x4xi32>
    %10 = call @_where(%7, %9, %0) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    return %10 : tensor<3x4xi32>
  }
  func.func private @_where(%arg0: tensor<3x4xi1>, %arg1: tensor<3x4xi32>, %arg2: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x4xi1>, tensor<3x4xi32>
    return %0 : tensor<3x4xi32>
  }
  func.func private @remainder(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xi32>) -> tensor<3x4xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %3 = call @_where(%1, %2, %arg1) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<3x4xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %12 = stablehlo.and %11, %6 : tensor<3x4xi1>
    %13 = stablehlo.add %4, %3 : tensor<3x4xi32>
    %14 = stablehlo.select %12, %13, %4 : tensor<3x4xi1>, tensor<3x4xi32>
    return %14 : tensor<3x4xi32>
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
