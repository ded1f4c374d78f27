module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xui32>) -> (tensor<16xui32> {jax.result_info = "result[0]"}, tensor<16xui32> {jax.result_info = "result[1]"}, tensor<16xui32> {jax.result_info = "result[2]"}, tensor<16xi32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<16> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %1 = stablehlo.shift_right_logical %arg0, %0 : tensor<16xui32>
    %2 = stablehlo.xor %arg0, %1 : tensor<16xui32>
    %c_0 = stablehlo.constant dense<73244475> : tensor<ui32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %4 = stablehlo.multiply %2, %3 : tensor<16xui32>
    %c_1 = stablehlo.constant dense<16> : tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %6 = stablehlo.shift_right_logical %4, %5 : tensor<16xui32>
    %7 = stablehlo.xor %4, %6 : tensor<16xui32>
    %c_2 = stablehlo.constant dense<5> : tensor<ui32>
    %8 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %9 = stablehlo.shift_left %7, %8 : tensor<16xui32>
    %10 = stablehlo.xor %7, %9 : tensor<16xui32>
    %11 = stablehlo.popcnt %10 : tensor<16xui32>
    %12 = stablehlo.count_leading_zeros %arg0 : tensor<16xui32>
    %c_3 = stablehlo.constant dense<13> : tensor<ui32>
    %13 = call @remainder(%10, %c_3) : (tensor<16xui32>, tensor<ui32>) -> tensor<16xui32>
    %14 = stablehlo.convert %13 : (tensor<16xui32>) -> tensor<16xi32>
    return %10, %11, %12, %14 : tensor<16xui32>, tensor<16xui32>, tensor<16xui32>, tensor<16xi32>
  }
  func.func private @remainder(%arg0: tensor<16xui32>, %arg1: tensor<ui32>) -> tensor<16xui32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.compare EQ, %arg1, %c, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<ui32>
    %1 = call @_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %3 = stablehlo.remainder %arg0, %2 : tensor<16xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<ui32>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %5 = stablehlo.compare NE, %3, %4, UNSIGNED : (tensor<16xui32>, tensor<16xui32>) -> tensor<16xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %7 = stablehlo.compare LT, %3, %6, UNSIGNED : (tensor<16xui32>, tensor<16xui32>) -> tensor<16xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<ui32>
    %8 = stablehlo.compare LT, %1, %c_3, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<i1>) -> tensor<16xi1>
    %10 = stablehlo.compare NE, %7, %9, UNSIGNED : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
    %11 = stablehlo.and %10, %5 : tensor<16xi1>
    %12 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %13 = stablehlo.add %3, %12 : tensor<16xui32>
    %14 = stablehlo.select %11, %13, %3 : tensor<16xi1>, tensor<16xui32>
    return %14 : tensor<16xui32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<ui32>, %arg2: tensor<ui32>) -> tensor<ui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<ui32>
    return %0 : tensor<ui32>
  }
}
