module @jit_composite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "oxla.test.scaled_tanh" %arg0 {composite_attributes = {scale = 2.000000e+00 : f32}, decomposition = @oxla.test.scaled_tanh} : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<3x4xf32>
    return %2 : tensor<3x4xf32>
  }
  func.func private @oxla.test.scaled_tanh(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<3x4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3x4xf32>
    return %2 : tensor<3x4xf32>
  }
}
