// error: 4:37: stablehlo.constant: the hex blob has 8 byte(s), but f32[3] needs 12 (3 element(s) of 4 byte(s)) or 4 for a splat
module @m {
  func.func public @main() -> tensor<3xf32> {
    %cst = stablehlo.constant dense<"0x0000803F00000040"> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
}
