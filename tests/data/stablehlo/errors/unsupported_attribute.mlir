// error: 4:70: stablehlo.add: the attribute `xla.fast_math` is not supported: oxla does not know what it means here, and ignoring it could change the result
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg0 {mhlo.sharding = "{replicated}", xla.fast_math = true} : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
