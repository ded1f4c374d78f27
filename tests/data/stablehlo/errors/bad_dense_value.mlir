// error: 4:39: stablehlo.constant: `256` is not a valid ui8 value (out of range)
module @m {
  func.func public @main() -> tensor<3xui8> {
    %c = stablehlo.constant dense<[1, 256, 3]> : tensor<3xui8>
    return %c : tensor<3xui8>
  }
}
