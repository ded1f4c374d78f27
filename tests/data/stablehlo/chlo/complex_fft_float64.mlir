module @jit_complex_program attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xf64>, %arg1: tensor<2x4xf64>) -> (tensor<2x4xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<2x4xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<2x3xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<2x6xf64> {jax.result_info = "result[3]"}, tensor<2x4xf64> {jax.result_info = "result[4]"}, tensor<2x4xf64> {jax.result_info = "result[5]"}, tensor<2x4xf64> {jax.result_info = "result[6]"}, tensor<2x4xcomplex<f64>> {jax.result_info = "result[7]"}, tensor<2x4xcomplex<f64>> {jax.result_info = "result[8]"}, tensor<2x4xcomplex<f64>> {jax.result_info = "result[9]"}, tensor<2x4xcomplex<f64>> {jax.result_info = "result[10]"}) {
    %cst = stablehlo.constant dense<[(0.000000e+00,1.000000e+00), (2.000000e+00,0.000000e+00), (3.000000e+00,0.000000e+00), (-0.000000e+00,-4.000000e+00)]> : tensor<4xcomplex<f64>>
    %0 = stablehlo.complex %arg0, %arg1 : tensor<2x4xcomplex<f64>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f64>>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x4xcomplex<f64>>
    %2 = stablehlo.multiply %0, %1 : tensor<2x4xcomplex<f64>>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [1] : (tensor<4xcomplex<f64>>) -> tensor<1x4xcomplex<f64>>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %5 = stablehlo.add %2, %4 : tensor<2x4xcomplex<f64>>
    %6 = call @fft(%5) : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %7 = call @fft_0(%5) : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %8 = call @fft_1(%arg0) : (tensor<2x4xf64>) -> tensor<2x3xcomplex<f64>>
    %9 = call @fft_2(%5) : (tensor<2x4xcomplex<f64>>) -> tensor<2x6xf64>
    %10 = stablehlo.real %5 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %11 = stablehlo.imag %5 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %12 = stablehlo.abs %5 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %13 = stablehlo.real %5 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %14 = stablehlo.imag %5 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %15 = stablehlo.negate %14 : tensor<2x4xf64>
    %16 = stablehlo.complex %13, %15 : tensor<2x4xcomplex<f64>>
    %17 = call @fft_3(%5) : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %18 = stablehlo.exponential %5 : tensor<2x4xcomplex<f64>>
    %19 = stablehlo.multiply %5, %5 : tensor<2x4xcomplex<f64>>
    %cst_1 = stablehlo.constant dense<(3.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %20 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<2x4xcomplex<f64>>
    %21 = stablehlo.add %0, %20 : tensor<2x4xcomplex<f64>>
    %22 = stablehlo.divide %19, %21 : tensor<2x4xcomplex<f64>>
    return %6, %7, %8, %9, %10, %11, %12, %16, %17, %18, %22 : tensor<2x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x6xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>
  }
  func.func private @fft(%arg0: tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    return %0 : tensor<2x4xcomplex<f64>>
  }
  func.func private @fft_0(%arg0: tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [4] : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    return %0 : tensor<2x4xcomplex<f64>>
  }
  func.func private @fft_1(%arg0: tensor<2x4xf64>) -> tensor<2x3xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4] : (tensor<2x4xf64>) -> tensor<2x3xcomplex<f64>>
    return %0 : tensor<2x3xcomplex<f64>>
  }
  func.func private @fft_2(%arg0: tensor<2x4xcomplex<f64>>) -> tensor<2x6xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [6] : (tensor<2x4xcomplex<f64>>) -> tensor<2x6xf64>
    return %0 : tensor<2x6xf64>
  }
  func.func private @fft_3(%arg0: tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [2, 4] : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    return %0 : tensor<2x4xcomplex<f64>>
  }
}
