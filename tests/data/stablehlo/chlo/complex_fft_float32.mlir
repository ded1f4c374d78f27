module @jit_complex_program attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<2x4xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<2x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<2x3xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<2x6xf32> {jax.result_info = "result[3]"}, tensor<2x4xf32> {jax.result_info = "result[4]"}, tensor<2x4xf32> {jax.result_info = "result[5]"}, tensor<2x4xf32> {jax.result_info = "result[6]"}, tensor<2x4xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<2x4xcomplex<f32>> {jax.result_info = "result[8]"}, tensor<2x4xcomplex<f32>> {jax.result_info = "result[9]"}, tensor<2x4xcomplex<f32>> {jax.result_info = "result[10]"}) {
    %cst = stablehlo.constant dense<[(0.000000e+00,1.000000e+00), (2.000000e+00,0.000000e+00), (3.000000e+00,0.000000e+00), (-0.000000e+00,-4.000000e+00)]> : tensor<4xcomplex<f32>>
    %0 = stablehlo.complex %arg0, %arg1 : tensor<2x4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f32>>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<2x4xcomplex<f32>>
    %2 = stablehlo.multiply %0, %1 : tensor<2x4xcomplex<f32>>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [1] : (tensor<4xcomplex<f32>>) -> tensor<1x4xcomplex<f32>>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %5 = stablehlo.add %2, %4 : tensor<2x4xcomplex<f32>>
    %6 = call @fft(%5) : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %7 = call @fft_0(%5) : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %8 = call @fft_1(%arg0) : (tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>>
    %9 = call @fft_2(%5) : (tensor<2x4xcomplex<f32>>) -> tensor<2x6xf32>
    %10 = stablehlo.real %5 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %11 = stablehlo.imag %5 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %12 = stablehlo.abs %5 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %13 = stablehlo.real %5 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %14 = stablehlo.imag %5 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %15 = stablehlo.negate %14 : tensor<2x4xf32>
    %16 = stablehlo.complex %13, %15 : tensor<2x4xcomplex<f32>>
    %17 = call @fft_3(%5) : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %18 = stablehlo.exponential %5 : tensor<2x4xcomplex<f32>>
    %19 = stablehlo.multiply %5, %5 : tensor<2x4xcomplex<f32>>
    %cst_1 = stablehlo.constant dense<(3.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %20 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f32>>) -> tensor<2x4xcomplex<f32>>
    %21 = stablehlo.add %0, %20 : tensor<2x4xcomplex<f32>>
    %22 = stablehlo.divide %19, %21 : tensor<2x4xcomplex<f32>>
    return %6, %7, %8, %9, %10, %11, %12, %16, %17, %18, %22 : tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<2x6xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    return %0 : tensor<2x4xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [4] : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    return %0 : tensor<2x4xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4] : (tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>>
    return %0 : tensor<2x3xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<2x4xcomplex<f32>>) -> tensor<2x6xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [6] : (tensor<2x4xcomplex<f32>>) -> tensor<2x6xf32>
    return %0 : tensor<2x6xf32>
  }
  func.func private @fft_3(%arg0: tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [2, 4] : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    return %0 : tensor<2x4xcomplex<f32>>
  }
}
