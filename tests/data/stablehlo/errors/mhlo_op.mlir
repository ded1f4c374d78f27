// error: 3:8: unknown op `mhlo.add`; oxla reads StableHLO, not MHLO (`jax.jit(f).lower(x).as_text()` prints StableHLO)
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mhlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
