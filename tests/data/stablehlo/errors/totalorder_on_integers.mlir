// error: 4:46: stablehlo.compare: compare type TOTALORDER does not fit operands of element type s32
module @m {
  func.func public @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi1> {
    %0 = stablehlo.compare LT, %arg0, %arg1, TOTALORDER : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    return %0 : tensor<2xi1>
  }
}
