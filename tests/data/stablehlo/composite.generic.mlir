"builtin.module"() <{sym_name = "jit_composite"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<3x4xf32>) -> tensor<3x4xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<3x4xf32>):
    %4 = "stablehlo.composite"(%arg1) <{composite_attributes = {scale = 2.000000e+00 : f32}, decomposition = @oxla.test.scaled_tanh, name = "oxla.test.scaled_tanh", version = 0 : i32}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %5 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %7 = "stablehlo.add"(%4, %6) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    "func.return"(%7) : (tensor<3x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<3x4xf32>) -> tensor<3x4xf32>, res_attrs = [{}], sym_name = "oxla.test.scaled_tanh", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3x4xf32>):
    %0 = "stablehlo.tanh"(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %1 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %3 = "stablehlo.multiply"(%0, %2) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    "func.return"(%3) : (tensor<3x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
