// error: 3:33: func.func @main: argument %arg0: the type `tensor<2xbf16>` is not supported: oxla has no element type `bf16` (it has i1, i8..i64, ui8..ui64, f32, f64)
module @m {
  func.func public @main(%arg0: tensor<2xbf16>) -> tensor<2xbf16> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xbf16>
    return %0 : tensor<2xbf16>
  }
}
