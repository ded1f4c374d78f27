// error: 5:12: func.return: @main returns f32[2] as result 0, but its signature declares s32[2]
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xi32> {
    %0 = stablehlo.negate %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
