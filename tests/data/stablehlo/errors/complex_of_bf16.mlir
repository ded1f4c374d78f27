// error: 3:33: func.func @main: argument %arg0: the type `tensor<4xcomplex<bf16>>` is not supported: oxla has no type `complex<bf16>` (complex<f32> and complex<f64> only)
module @m {
  func.func public @main(%arg0: tensor<4xcomplex<bf16>>) -> tensor<4xbf16> {
    %0 = stablehlo.real %arg0 : (tensor<4xcomplex<bf16>>) -> tensor<4xbf16>
    return %0 : tensor<4xbf16>
  }
}
