// error: 8:35: stablehlo.multiply: %arg1 is defined outside this region; oxla lowers a region to a computation of its own, which cannot use outside values
module @m {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %1 = stablehlo.add %a, %b : tensor<f32>
      %2 = stablehlo.multiply %1, %arg1 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }
    return %0 : tensor<2xf32>
  }
}
