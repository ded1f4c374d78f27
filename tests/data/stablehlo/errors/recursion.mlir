// error: 8:15: func.call: @f calls itself (through @main -> @f); recursion cannot be inlined
module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = call @f(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func private @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = call @f(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
