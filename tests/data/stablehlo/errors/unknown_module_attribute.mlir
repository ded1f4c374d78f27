// error: 2:54: module @m: the attribute `stablehlo.frobnication_level` is not supported: oxla does not know what it means, and ignoring it could change the result
module @m attributes {mhlo.num_partitions = 1 : i32, stablehlo.frobnication_level = 3 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    return %arg0 : tensor<2xf32>
  }
}
