// error: 4:10: chlo.erfc is not supported yet: HLO has no `erfc` (XLA expands it); JAX's HLO text (`as_text(dialect="hlo")`) spells erfc out in ops oxla has, and runs
module @jit_gelu attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erfc %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
