// error: 4:10: chlo.erfc: takes an f16, bf16, f32 or f64 operand, not s32[4]
module @jit_gelu attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi32>) -> (tensor<4xi32> {jax.result_info = "result"}) {
    %0 = chlo.erfc %arg0 : tensor<4xi32> -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
}
