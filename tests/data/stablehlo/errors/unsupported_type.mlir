// error: 3:33: func.func @main: argument %arg0: the type `tensor<2xtf32>` is not supported: oxla has no element type `tf32` (it has i1..i64, ui1..ui64, the float8 kinds, f4E2M1FN, bf16, f16, f32, f64, complex<f32> and complex<f64>)
module @m {
  func.func public @main(%arg0: tensor<2xtf32>) -> tensor<2xtf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xtf32>
    return %0 : tensor<2xtf32>
  }
}
