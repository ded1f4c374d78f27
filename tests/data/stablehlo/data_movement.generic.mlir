"builtin.module"() <{sym_name = "jit_data_movement"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x3xf32>, tensor<4xi32>) -> (tensor<7x5xf32>, tensor<2x2xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<2x6xf32>, tensor<5xi32>, tensor<4x3xi32>, tensor<4x3xf32>, tensor<2x4xi32>, tensor<3x3xf32>, tensor<4x3xf64>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x3xf32>, %arg1: tensor<4xi32>):
    %0 = "stablehlo.constant"() <{value = dense<-1.500000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.pad"(%arg0, %0) <{edge_padding_high = array<i64: -1, 2>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 1, 0>}> : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x5xf32>
    %2 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 2, 1>}> : (tensor<4x3xf32>) -> tensor<2x2xf32>
    %3 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %5 = "stablehlo.multiply"(%arg0, %4) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %6 = "stablehlo.concatenate"(%arg0, %5) <{dimension = 1 : i64}> : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
    %7 = "stablehlo.reverse"(%arg0) <{dimensions = array<i64: 0, 1>}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %8 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %9 = "stablehlo.reshape"(%8) : (tensor<3x4xf32>) -> tensor<2x6xf32>
    %10 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<5xi32>
    %11 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %12 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<5xi32>
    %13 = "stablehlo.multiply"(%10, %12) : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
    %14 = "stablehlo.constant"() <{value = dense<1.000000e+01> : tensor<f32>}> : () -> tensor<f32>
    %15 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %16 = "stablehlo.multiply"(%arg0, %15) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %17 = "stablehlo.convert"(%16) : (tensor<4x3xf32>) -> tensor<4x3xi32>
    %18 = "stablehlo.constant"() <{value = dense<-5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %19 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %20 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %21 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %22 = "stablehlo.clamp"(%20, %arg0, %21) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %23 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xi32>) -> tensor<2x4xi32>
    %24 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x3xi32>
    %25 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 3>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<3xi32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xi32>) -> tensor<1x3xi32>
    %27 = "stablehlo.broadcast_in_dim"(%26) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x3xi32>) -> tensor<4x3xi32>
    %28 = "stablehlo.compare"(%24, %27) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi1>
    %29 = "stablehlo.convert"(%28) : (tensor<4x3xi1>) -> tensor<4x3xf32>
    %30 = "stablehlo.transpose"(%29) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %31 = "stablehlo.dot_general"(%30, %arg0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
    %32 = "stablehlo.convert"(%arg0) : (tensor<4x3xf32>) -> tensor<4x3xf64>
    "func.return"(%1, %2, %6, %7, %9, %13, %17, %22, %23, %31, %32) : (tensor<7x5xf32>, tensor<2x2xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<2x6xf32>, tensor<5xi32>, tensor<4x3xi32>, tensor<4x3xf32>, tensor<2x4xi32>, tensor<3x3xf32>, tensor<4x3xf64>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
