// error: 4:115: stablehlo.dot_general: the result type `tensor<2x5xf32>` (f32[2,5]) does not match the type its operands give, f32[2,4]
module @m {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
    return %0 : tensor<2x4xf32>
  }
}
