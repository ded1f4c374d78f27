module @jit_erfc attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<24xbf16>) -> (tensor<24xbf16> {jax.result_info = "result"}) {
    %0 = chlo.erfc %arg0 : tensor<24xbf16> -> tensor<24xbf16>
    return %0 : tensor<24xbf16>
  }
}
