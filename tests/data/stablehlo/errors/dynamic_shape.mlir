// error: 3:33: func.func @main: argument %arg0: the type `tensor<?x3xf32>` is not supported: dynamic dimensions (`?`) are not supported; oxla needs static shapes
module @m {
  func.func public @main(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
    return %arg0 : tensor<?x3xf32>
  }
}
