// error: 5:5: stablehlo.multiply: the value %0 is defined twice
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
