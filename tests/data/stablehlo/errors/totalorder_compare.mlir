// error: 4:46: stablehlo.compare: compare type TOTALORDER is not supported yet: oxla's comparisons follow IEEE 754 (NaN is unordered, -0 == +0)
module @m {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xi1> {
    %0 = stablehlo.compare LT, %arg0, %arg1, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    return %0 : tensor<2xi1>
  }
}
