module @jit_f64_model attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf64> {mhlo.sharding = "{replicated}"}, %arg1: tensor<4x2xf64> {mhlo.sharding = "{replicated}"}) -> (tensor<3x2xf64> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
    %1 = stablehlo.tanh %0 : tensor<3x2xf64>
    %2 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f64>) -> tensor<3x2xf64>
    %4 = stablehlo.multiply %1, %3 : tensor<3x2xf64>
    %5 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.reduce(%arg0 init: %5) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<3xf64>) -> tensor<3x1xf64>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x2xf64>
    %9 = stablehlo.add %4, %8 : tensor<3x2xf64>
    return %9 : tensor<3x2xf64>
  }
}
