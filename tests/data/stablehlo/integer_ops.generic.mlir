"builtin.module"() <{sym_name = "jit_integer_ops"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi1>) -> (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi1>, tensor<4xi32>, tensor<3xi32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg10: tensor<3x4xi32>, %arg11: tensor<3x4xi32>, %arg12: tensor<3x4xui8>, %arg13: tensor<3x4xi1>):
    %40 = "func.call"(%arg10, %arg11) <{callee = @floor_divide}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %41 = "func.call"(%arg10, %arg11) <{callee = @remainder}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %42 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %43 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %44 = "stablehlo.shift_left"(%arg10, %43) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %45 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %46 = "stablehlo.broadcast_in_dim"(%45) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %47 = "stablehlo.shift_right_arithmetic"(%arg11, %46) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %48 = "stablehlo.xor"(%44, %47) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %49 = "stablehlo.constant"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
    %50 = "stablehlo.broadcast_in_dim"(%49) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %51 = "stablehlo.and"(%arg10, %50) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %52 = "stablehlo.or"(%48, %51) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %53 = "stablehlo.constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %54 = "stablehlo.broadcast_in_dim"(%53) <{broadcast_dimensions = array<i64>}> : (tensor<ui8>) -> tensor<3x4xui8>
    %55 = "stablehlo.shift_right_logical"(%arg12, %54) : (tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x4xui8>
    %56 = "stablehlo.constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %57 = "stablehlo.broadcast_in_dim"(%56) <{broadcast_dimensions = array<i64>}> : (tensor<ui8>) -> tensor<3x4xui8>
    %58 = "stablehlo.multiply"(%arg12, %57) : (tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x4xui8>
    %59 = "stablehlo.add"(%55, %58) : (tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x4xui8>
    %60 = "stablehlo.negate"(%arg11) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %61 = "func.call"(%arg13, %arg10, %60) <{callee = @_where}> : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %62 = "stablehlo.maximum"(%arg10, %arg11) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %63 = "stablehlo.minimum"(%arg10, %arg11) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %64 = "stablehlo.subtract"(%62, %63) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %65 = "stablehlo.subtract"(%arg10, %arg11) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %66 = "stablehlo.abs"(%65) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %67 = "stablehlo.sign"(%arg10) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %68 = "stablehlo.multiply"(%66, %67) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %69 = "stablehlo.add"(%64, %68) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %70 = "stablehlo.constant"() <{value = dense<-3> : tensor<i64>}> : () -> tensor<i64>
    %71 = "stablehlo.constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
    %72 = "func.call"(%arg10, %70, %71) <{callee = @clip}> : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
    %73 = "stablehlo.not"(%arg12) : (tensor<3x4xui8>) -> tensor<3x4xui8>
    %74 = "stablehlo.constant"() <{value = dense<90> : tensor<ui8>}> : () -> tensor<ui8>
    %75 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64>}> : (tensor<ui8>) -> tensor<3x4xui8>
    %76 = "stablehlo.xor"(%73, %75) : (tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x4xui8>
    %77 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %78 = "stablehlo.broadcast_in_dim"(%77) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %79 = "stablehlo.compare"(%arg10, %78) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %80 = "stablehlo.and"(%arg13, %79) : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %81 = "stablehlo.not"(%arg13) : (tensor<3x4xi1>) -> tensor<3x4xi1>
    %82 = "stablehlo.or"(%80, %81) : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %83 = "stablehlo.multiply"(%arg10, %arg11) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %84 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %85 = "stablehlo.reduce"(%83, %84) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg16: tensor<i32>, %arg17: tensor<i32>):
      %89 = "stablehlo.add"(%arg16, %arg17) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%89) : (tensor<i32>) -> ()
    }) : (tensor<3x4xi32>, tensor<i32>) -> tensor<4xi32>
    %86 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %87 = "stablehlo.reduce"(%arg11, %86) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg14: tensor<i32>, %arg15: tensor<i32>):
      %88 = "stablehlo.multiply"(%arg14, %arg15) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%88) : (tensor<i32>) -> ()
    }) : (tensor<3x4xi32>, tensor<i32>) -> tensor<3xi32>
    "func.return"(%40, %41, %52, %59, %61, %69, %72, %76, %82, %85, %87) : (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xui8>, tensor<3x4xi1>, tensor<4xi32>, tensor<3xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>, res_attrs = [{}], sym_name = "floor_divide", sym_visibility = "private"}> ({
  ^bb0(%arg8: tensor<3x4xi32>, %arg9: tensor<3x4xi32>):
    %27 = "stablehlo.divide"(%arg8, %arg9) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %28 = "stablehlo.sign"(%arg8) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %29 = "stablehlo.sign"(%arg9) : (tensor<3x4xi32>) -> tensor<3x4xi32>
    %30 = "stablehlo.compare"(%28, %29) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %31 = "stablehlo.remainder"(%arg8, %arg9) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %32 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %34 = "stablehlo.compare"(%31, %33) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %35 = "stablehlo.and"(%30, %34) : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %36 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %38 = "stablehlo.subtract"(%27, %37) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %39 = "func.call"(%35, %38, %27) <{callee = @_where}> : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    "func.return"(%39) : (tensor<3x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<3x4xi1>, %arg6: tensor<3x4xi32>, %arg7: tensor<3x4xi32>):
    %26 = "stablehlo.select"(%arg5, %arg6, %arg7) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    "func.return"(%26) : (tensor<3x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>, res_attrs = [{}], sym_name = "remainder", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<3x4xi32>, %arg4: tensor<3x4xi32>):
    %6 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %7 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %8 = "stablehlo.compare"(%arg4, %7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %9 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %11 = "func.call"(%8, %10, %arg4) <{callee = @_where}> : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %12 = "stablehlo.remainder"(%arg3, %11) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %13 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %15 = "stablehlo.compare"(%12, %14) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %18 = "stablehlo.compare"(%12, %17) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %19 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %20 = "stablehlo.broadcast_in_dim"(%19) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %21 = "stablehlo.compare"(%11, %20) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %22 = "stablehlo.compare"(%18, %21) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %23 = "stablehlo.and"(%22, %15) : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %24 = "stablehlo.add"(%12, %11) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %25 = "stablehlo.select"(%23, %24, %12) : (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    "func.return"(%25) : (tensor<3x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3x4xi32>, %arg1: tensor<i64>, %arg2: tensor<i64>):
    %0 = "stablehlo.convert"(%arg1) : (tensor<i64>) -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %2 = "stablehlo.maximum"(%1, %arg0) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    %3 = "stablehlo.convert"(%arg2) : (tensor<i64>) -> tensor<i32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x4xi32>
    %5 = "stablehlo.minimum"(%4, %2) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    "func.return"(%5) : (tensor<3x4xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
