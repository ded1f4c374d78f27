// error: 4:67: stablehlo.custom_call: only a string `backend_config` is read (a dictionary has no HLO text form oxla keeps)
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = {mode = 1 : i32}} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
