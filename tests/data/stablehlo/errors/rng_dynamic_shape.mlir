// error: 4:10: stablehlo.rng: the shape operand (s64[2]) is not a constant rank-1 integer tensor: oxla needs static shapes
module @jit_f {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<2xi64>) -> tensor<2x3xf32> {
    %0 = stablehlo.rng %arg0, %arg1, %arg2, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
