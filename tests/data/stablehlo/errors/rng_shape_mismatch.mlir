// error: 6:10: stablehlo.rng: the shape operand gives dims [3, 2], but the result is f32[2,3]
module @jit_f {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<2x3xf32> {
    %c = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
    // The shape must state the result's dims.
    %0 = stablehlo.rng %arg0, %arg1, %c, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
