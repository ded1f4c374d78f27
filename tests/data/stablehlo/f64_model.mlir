module @jit_f64_model attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf64>, %arg1: tensor<4x2xf64>) -> (tensor<3x2xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
    %1 = stablehlo.tanh %0 : tensor<3x2xf64>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x2xf64>
    %3 = stablehlo.multiply %1, %2 : tensor<3x2xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %4 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xf64>) -> tensor<3x1xf64>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x2xf64>
    %7 = stablehlo.add %3, %6 : tensor<3x2xf64>
    return %7 : tensor<3x2xf64>
  }
}
