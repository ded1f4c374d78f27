// error: 4:44: stablehlo.constant: a list of 3 element(s) for dimension 1 of size 2
module @m {
  func.func public @main() -> tensor<2x2xi32> {
    %c = stablehlo.constant dense<[[1, 2], [3, 4, 5]]> : tensor<2x2xi32>
    return %c : tensor<2x2xi32>
  }
}
