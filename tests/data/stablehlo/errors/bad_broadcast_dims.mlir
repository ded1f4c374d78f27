// error: 4:10: stablehlo.broadcast_in_dim: Invalid broadcast: Input dimension should be either 1 or equal to the output dimension it is broadcasting into; the 0th operand dimension is 3, the 0th output dimension is 2 (f32[3] to f32[2,3], broadcast_dimensions={0}): size 3 cannot stretch to 2; only size 1 stretches.
module @m {
  func.func public @main(%arg0: tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
