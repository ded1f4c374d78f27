// error: 4:102: stablehlo.gather: unknown gather dimension field `collapsed_dims`
module @m {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<2x1xi32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
