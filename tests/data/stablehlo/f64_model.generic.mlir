"builtin.module"() <{sym_name = "jit_f64_model"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<3x4xf64>, %arg1: tensor<4x2xf64>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
    %1 = "stablehlo.tanh"(%0) : (tensor<3x2xf64>) -> tensor<3x2xf64>
    %2 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f64>}> : () -> tensor<f64>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64>}> : (tensor<f64>) -> tensor<3x2xf64>
    %4 = "stablehlo.multiply"(%1, %3) : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
    %5 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f64>}> : () -> tensor<f64>
    %6 = "stablehlo.reduce"(%arg0, %5) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f64>, %arg3: tensor<f64>):
      %10 = "stablehlo.add"(%arg2, %arg3) : (tensor<f64>, tensor<f64>) -> tensor<f64>
      "stablehlo.return"(%10) : (tensor<f64>) -> ()
    }) : (tensor<3x4xf64>, tensor<f64>) -> tensor<3xf64>
    %7 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xf64>) -> tensor<3x1xf64>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<3x1xf64>) -> tensor<3x2xf64>
    %9 = "stablehlo.add"(%4, %8) : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
    "func.return"(%9) : (tensor<3x2xf64>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
