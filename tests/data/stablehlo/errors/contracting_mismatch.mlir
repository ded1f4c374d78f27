// error: 4:10: stablehlo.dot_general: Invalid dot: contracting dimension 1 of lhs has size 3 but its partner, dimension 0 of rhs, has size 4 (lhs f32[2,3], rhs f32[4,4]).
module @m {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
