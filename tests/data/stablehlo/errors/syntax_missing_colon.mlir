// error: 4:55: stablehlo.broadcast_in_dim: expected `:` before the op's type, found `(`
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
