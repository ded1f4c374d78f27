"builtin.module"() <{sym_name = "jit_float_math"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}, {jax.result_info = "result[11]"}, {jax.result_info = "result[12]"}, {jax.result_info = "result[13]"}, {jax.result_info = "result[14]"}, {jax.result_info = "result[15]"}, {jax.result_info = "result[16]"}, {jax.result_info = "result[17]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<3x5xf32>, %arg4: tensor<3x5xf32>):
    %15 = "stablehlo.exponential"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %16 = "stablehlo.abs"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %17 = "stablehlo.log_plus_one"(%16) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %18 = "stablehlo.exponential_minus_one"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %19 = "stablehlo.sine"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %20 = "stablehlo.cosine"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %21 = "stablehlo.abs"(%arg4) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %22 = "stablehlo.sqrt"(%21) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %23 = "stablehlo.abs"(%arg4) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %24 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %25 = "stablehlo.broadcast_in_dim"(%24) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x5xf32>
    %26 = "stablehlo.add"(%23, %25) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %27 = "stablehlo.rsqrt"(%26) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %28 = "stablehlo.negate"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %29 = "stablehlo.exponential"(%28) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %30 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %31 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x5xf32>
    %32 = "stablehlo.add"(%31, %29) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %33 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %34 = "stablehlo.broadcast_in_dim"(%33) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x5xf32>
    %35 = "stablehlo.divide"(%34, %32) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %36 = "stablehlo.atan2"(%arg3, %arg4) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %37 = "stablehlo.abs"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %38 = "stablehlo.power"(%37, %arg4) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %39 = "stablehlo.floor"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %40 = "stablehlo.ceil"(%arg3) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %41 = "func.call"(%arg3) <{callee = @round}> : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %42 = "stablehlo.divide"(%arg3, %arg4) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %43 = "stablehlo.is_finite"(%42) : (tensor<3x5xf32>) -> tensor<3x5xi1>
    %44 = "stablehlo.divide"(%arg3, %arg4) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %45 = "func.call"(%arg3, %arg4) <{callee = @remainder}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %46 = "stablehlo.maximum"(%arg3, %arg4) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %47 = "stablehlo.compare"(%arg3, %arg4) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %48 = "stablehlo.compare"(%arg3, %arg4) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %49 = "stablehlo.and"(%47, %48) : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %50 = "stablehlo.compare"(%arg3, %arg4) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %51 = "stablehlo.or"(%49, %50) : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    "func.return"(%15, %17, %18, %19, %20, %22, %27, %35, %36, %38, %39, %40, %41, %43, %44, %45, %46, %51) : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<3x5xf32>) -> tensor<3x5xf32>, res_attrs = [{}], sym_name = "round", sym_visibility = "private"}> ({
  ^bb0(%arg2: tensor<3x5xf32>):
    %14 = "stablehlo.round_nearest_even"(%arg2) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    "func.return"(%14) : (tensor<3x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>, res_attrs = [{}], sym_name = "remainder", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xf32>):
    %0 = "stablehlo.remainder"(%arg0, %arg1) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x5xf32>
    %3 = "stablehlo.compare"(%0, %2) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %4 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x5xf32>
    %6 = "stablehlo.compare"(%0, %5) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %7 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x5xf32>
    %9 = "stablehlo.compare"(%arg1, %8) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %10 = "stablehlo.compare"(%6, %9) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %11 = "stablehlo.and"(%10, %3) : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %12 = "stablehlo.add"(%0, %arg1) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %13 = "stablehlo.select"(%11, %12, %0) : (tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    "func.return"(%13) : (tensor<3x5xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
