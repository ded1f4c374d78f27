// error: 2:1: module @m: there is no @main function, and 0 public functions to run instead
module @m {
  func.func private @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    return %arg0 : tensor<2xf32>
  }
}
