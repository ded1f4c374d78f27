"builtin.module"() <{sym_name = "jit_w6"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x3x5x2xf32>, tensor<3x2xf32>) -> tensor<4x3x5x2xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x3x5x2xf32>, %arg1: tensor<3x2xf32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1, 3>}> : (tensor<3x2xf32>) -> tensor<4x3x5x2xf32>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<4x3x5x2xf32>, tensor<4x3x5x2xf32>) -> tensor<4x3x5x2xf32>
    "func.return"(%1) : (tensor<4x3x5x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
