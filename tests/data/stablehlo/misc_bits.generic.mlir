"builtin.module"() <{sym_name = "jit_misc_bits"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<3x4xi32>, tensor<3x4xui32>, tensor<3x4xf32>) -> (tensor<3x4xi32>, tensor<3x4xui32>, tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<3x4xi32>, %arg1: tensor<3x4xui32>, %arg2: tensor<3x4xf32>):
    %0 = "stablehlo.popcnt"(%arg0) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %1 = "stablehlo.count_leading_zeros"(%arg1) : (tensor<3x4xui32>) -> tensor<3x4xui32>
    %2 = "stablehlo.bitcast_convert"(%arg2) : (tensor<3x4xf32>) -> tensor<3x4xi32>
    %3 = "stablehlo.bitcast_convert"(%arg2) : (tensor<3x4xf32>) -> tensor<3x4xi32>
    %4 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %6 = "stablehlo.xor"(%3, %5) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %7 = "stablehlo.bitcast_convert"(%6) : (tensor<3x4xi32>) -> tensor<3x4xf32>
    %8 = "stablehlo.reduce_precision"(%arg2) <{exponent_bits = 8 : i32, mantissa_bits = 7 : i32}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %9 = "stablehlo.constant"() <{value = dense<1.000000e+03> : tensor<f32>}> : () -> tensor<f32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %11 = "stablehlo.multiply"(%arg2, %10) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %12 = "stablehlo.reduce_precision"(%11) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %13 = "stablehlo.constant"() <{value = dense<4.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %15 = "stablehlo.multiply"(%arg2, %14) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %16 = "stablehlo.round_nearest_afz"(%15) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    "func.return"(%0, %1, %2, %7, %8, %12, %16) : (tensor<3x4xi32>, tensor<3x4xui32>, tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
