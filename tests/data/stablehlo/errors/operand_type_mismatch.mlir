// error: 4:39: stablehlo.dot_general: the operand %arg1 has type f32[3,4], but the op's signature gives it `tensor<4x3xf32>` (f32[4,3])
module @m {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
