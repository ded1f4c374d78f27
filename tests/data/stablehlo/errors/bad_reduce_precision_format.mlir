// error: 4:53: stablehlo.reduce_precision: `e5x10` is not a format
module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.reduce_precision %arg0, format = e5x10 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
