// error: 4:10: stablehlo.add: operands f32[2,3] and f32[1,3] must have the same dims; StableHLO does not broadcast implicitly (use stablehlo.broadcast_in_dim, or chlo.broadcast_add)
module @m {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<1x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
