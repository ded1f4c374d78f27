// error: 4:31: stablehlo.add: the value %1 is not defined
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %1 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
