"builtin.module"() <{sym_name = "jit_misc_float"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x5xf32>):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+01> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
    %2 = "stablehlo.multiply"(%arg0, %1) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %3 = "stablehlo.cbrt"(%2) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %4 = "stablehlo.tan"(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %5 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
    %7 = "stablehlo.multiply"(%arg0, %6) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %8 = "chlo.erf"(%7) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    "func.return"(%3, %4, %8) : (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
