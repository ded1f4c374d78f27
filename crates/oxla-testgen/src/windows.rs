//! Random windowed ops (`convolution`, `reduce-window`,
//! `select-and-scatter`), emitted when [`GenConfig::windows`] is on, with a
//! model of their shapes written from XLA's text ([`model_window`],
//! [`model_convolution`]), independent of shape inference.
//!
//! The windows are small and varied: sizes 1–3, strides 1–3, padding −1–2
//! (never cropping past the base), base and window dilation 1–2, reversal
//! (convolution only); convolutions with 0–3 spatial dimensions, every
//! dimension order, and feature or batch groups. Select-and-scatter gets
//! no dilation (StableHLO has none), and its windows may cover padding only.

use oxla_ir::ir::ComparisonDirection;
use oxla_ir::{
    Builder, Computation, ConvolutionDimensionNumbers, ElementType, Op, Result, Shape, Window,
    WindowDim,
};

use crate::{Gen, GenConfig, Program, Rng, reducer};

/// XLA's window output dims of `window` over `base` (its `InferWindowOutputShape`):
/// `None` if the window is invalid (a rank, a size, stride or dilation
/// below 1, padding that crops past the base).
pub fn model_window(base: &[i64], window: &Window) -> Option<Vec<i64>> {
    if base.len() != window.dimensions.len() {
        return None;
    }
    base.iter()
        .zip(&window.dimensions)
        .map(|(&n, d)| {
            if d.size < 1 || d.stride < 1 || d.base_dilation < 1 || d.window_dilation < 1 {
                return None;
            }
            let dilate = |n: i64, k: i64| if n == 0 { 0 } else { (n - 1) * k + 1 };
            let padded = d.padding_low + dilate(n, d.base_dilation) + d.padding_high;
            let span = dilate(d.size, d.window_dilation);
            if padded < 0 {
                None
            } else if span > padded {
                Some(0)
            } else {
                Some((padded - span) / d.stride + 1)
            }
        })
        .collect()
}

/// The result dims of a convolution, from XLA's operation semantics:
/// batch `lhs batch / batch_group_count`, features the kernel's output
/// features, spatial dims the window over the input's. `None` if the
/// groups or sizes do not fit.
pub fn model_convolution(
    lhs: &[i64],
    rhs: &[i64],
    window: &Window,
    d: &ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
) -> Option<Vec<i64>> {
    let at = |v: &[i64], k: i64| v.get(usize::try_from(k).ok()?).copied();
    let (batch, features) = (
        at(lhs, d.input_batch_dimension)?,
        at(lhs, d.input_feature_dimension)?,
    );
    let (k_in, k_out) = (
        at(rhs, d.kernel_input_feature_dimension)?,
        at(rhs, d.kernel_output_feature_dimension)?,
    );
    let groups_fit = feature_group_count >= 1
        && batch_group_count >= 1
        && (feature_group_count == 1 || batch_group_count == 1)
        && features == k_in * feature_group_count
        && k_out % feature_group_count == 0
        && k_out % batch_group_count == 0
        && batch % batch_group_count == 0;
    let spatial: Option<Vec<i64>> = d
        .input_spatial_dimensions
        .iter()
        .map(|&k| at(lhs, k))
        .collect();
    let kernel: Option<Vec<i64>> = d
        .kernel_spatial_dimensions
        .iter()
        .map(|&k| at(rhs, k))
        .collect();
    if !groups_fit || kernel? != window.sizes() {
        return None;
    }
    let windows = model_window(&spatial?, window)?;
    let mut out = vec![0; lhs.len()];
    *out.get_mut(usize::try_from(d.output_batch_dimension).ok()?)? = batch / batch_group_count;
    *out.get_mut(usize::try_from(d.output_feature_dimension).ok()?)? = k_out;
    for (&k, n) in d.output_spatial_dimensions.iter().zip(windows) {
        *out.get_mut(usize::try_from(k).ok()?)? = n;
    }
    Some(out)
}

/// A random permutation of `0..n`.
fn permutation(rng: &mut Rng, n: usize) -> Vec<i64> {
    let mut p: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        p.swap(i, j);
    }
    p
}

/// A random window over `base` (one dimension per entry; `sizes` fixes the
/// sizes where given) whose padding never crops past the base.
fn random_window(rng: &mut Rng, base: &[i64], sizes: Option<&[i64]>, dilation: bool) -> Window {
    let dims = base
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let mut d = WindowDim::new(match sizes {
                Some(s) => s[i],
                None => 1 + rng.below(3) as i64,
            });
            d.stride = 1 + rng.below(3) as i64;
            if dilation && rng.chance(0.3) {
                d.base_dilation = 2;
            }
            if dilation && rng.chance(0.3) {
                d.window_dilation = 2;
            }
            let dilated = if n == 0 {
                0
            } else {
                (n - 1) * d.base_dilation + 1
            };
            d.padding_low = rng.below(4) as i64 - 1;
            d.padding_high = rng.below(4) as i64 - 1;
            // Never crop past the base (refused, and XLA aborts there).
            while d.padding_low + dilated + d.padding_high < 0 {
                d.padding_low += 1;
            }
            d
        })
        .collect();
    Window::new(dims)
}

/// A reducer-like `(T[], T[]) -> pred[]`: `compare(a, b)` in `direction`.
fn comparison(ty: ElementType, direction: ComparisonDirection) -> Result<Computation> {
    let mut s = Builder::new("select");
    let a = s.parameter(0, Shape::scalar(ty), "a")?;
    let b = s.parameter(1, Shape::scalar(ty), "b")?;
    let c = s.compare(a, b, direction, &[])?;
    s.build(c)
}

/// Whether a float sum of `ty` may appear (as for `reduce` and `dot`).
fn sums_allowed(cfg: &GenConfig, ty: ElementType) -> bool {
    !ty.is_float() || cfg.float_reassociation
}

impl Gen<'_> {
    /// One windowed op on `a` (of shape `ashape`): its op, shape by the
    /// model, and name; `None` when `a` does not suit the op picked.
    pub(crate) fn window_step(
        &mut self,
        a: Op,
        ashape: &Shape,
    ) -> Result<Option<(Op, Shape, &'static str)>> {
        let ty = ashape.element_type();
        Ok(match self.rng.below(3) {
            0 if (2..=5).contains(&ashape.rank()) && sums_allowed(self.cfg, ty) => {
                Some(self.convolution(a, ashape)?)
            }
            1 => {
                let kind = if ty.is_pred() {
                    1 + self.rng.below(2) // max and min are `or` and `and`
                } else if sums_allowed(self.cfg, ty) {
                    self.rng.below(3)
                } else {
                    1 + self.rng.below(2)
                };
                let window = random_window(self.rng, ashape.dims(), None, true);
                let Some(dims) = model_window(ashape.dims(), &window) else {
                    return Ok(None);
                };
                let init = self.param(Shape::scalar(ty))?;
                // Two inputs make a tuple, which only programs with control
                // flow and tuples read: a second input of another element
                // type, folded with it by a pair reducer (argmax's form).
                let ty2 = self.rng.pick(&self.cfg.element_types);
                let pairs = self.cfg.control_flow
                    && (sums_allowed(self.cfg, ty) || ty.is_pred())
                    && (sums_allowed(self.cfg, ty2) || ty2.is_pred());
                if self.rng.chance(0.25) && pairs {
                    let second = self.param(Shape::new(ty2, ashape.dims()))?;
                    let init2 = self.param(Shape::scalar(ty2))?;
                    let f = crate::indexing::pair_computation(self.rng, [ty, ty2])?;
                    let op =
                        self.b
                            .reduce_window_variadic(&[a, second], &[init, init2], &f, &window)?;
                    let shape = Shape::tuple(vec![Shape::new(ty, &dims), Shape::new(ty2, &dims)]);
                    return Ok(Some((op, shape, "reduce-window")));
                }
                let op = self
                    .b
                    .reduce_window(a, init, &reducer(ty, kind)?, &window)?;
                Some((op, Shape::new(ty, &dims), "reduce-window"))
            }
            // select-and-scatter compares: not on complex numbers.
            2 if !ty.is_pred() && !ty.is_complex() && sums_allowed(self.cfg, ty) => {
                let window = random_window(self.rng, ashape.dims(), None, false);
                let Some(dims) = model_window(ashape.dims(), &window) else {
                    return Ok(None);
                };
                let source = self.param(Shape::new(ty, &dims))?;
                let init = self.param(Shape::scalar(ty))?;
                let direction = self.rng.pick(&[
                    ComparisonDirection::Ge,
                    ComparisonDirection::Gt,
                    ComparisonDirection::Le,
                    ComparisonDirection::Lt,
                ]);
                let select = comparison(ty, direction)?;
                let scatter = reducer(ty, self.rng.below(3))?;
                let op = self
                    .b
                    .select_and_scatter(a, &select, &window, source, init, &scatter)?;
                Some((op, ashape.clone(), "select-and-scatter"))
            }
            _ => None,
        })
    }

    /// A convolution with `a` as its input: random dimension orders, a
    /// kernel parameter fitting a random window and groups.
    fn convolution(&mut self, a: Op, ashape: &Shape) -> Result<(Op, Shape, &'static str)> {
        let rank = ashape.rank();
        let spatial = rank - 2;
        let lhs = permutation(self.rng, rank);
        let rhs = permutation(self.rng, rank);
        let out = permutation(self.rng, rank);
        let dims = ConvolutionDimensionNumbers {
            input_batch_dimension: lhs[0],
            input_feature_dimension: lhs[1],
            input_spatial_dimensions: lhs[2..].to_vec(),
            kernel_input_feature_dimension: rhs[0],
            kernel_output_feature_dimension: rhs[1],
            kernel_spatial_dimensions: rhs[2..].to_vec(),
            output_batch_dimension: out[0],
            output_feature_dimension: out[1],
            output_spatial_dimensions: out[2..].to_vec(),
        };
        let size = |d: i64| ashape.dims()[d as usize];
        let (batch, features) = (size(lhs[0]), size(lhs[1]));
        let divisors = |n: i64| -> Vec<i64> { (1..=n.max(1)).filter(|g| n % g == 0).collect() };
        // Feature groups, batch groups, or neither.
        let (fgc, bgc) = match self.rng.below(3) {
            0 if features > 1 => (self.rng.pick(&divisors(features)), 1),
            1 if batch > 1 => (1, self.rng.pick(&divisors(batch))),
            _ => (1, 1),
        };
        // Up to 6 output features per group: from 4 on (with 4 terms per
        // output element), the JIT computes the convolution as a GEMM.
        let k_out = fgc.max(bgc) * (1 + self.rng.below(6) as i64);
        let k_sizes: Vec<i64> = (0..spatial).map(|_| 1 + self.rng.below(3) as i64).collect();
        let base: Vec<i64> = lhs[2..].iter().map(|&d| size(d)).collect();
        let mut window = random_window(self.rng, &base, Some(&k_sizes), true);
        for d in &mut window.dimensions {
            d.window_reversal = self.rng.chance(0.3);
        }
        let mut kernel = vec![0; rank];
        kernel[rhs[0] as usize] = features / fgc;
        kernel[rhs[1] as usize] = k_out;
        for (&d, &n) in rhs[2..].iter().zip(&k_sizes) {
            kernel[d as usize] = n;
        }
        let ty = ashape.element_type();
        let want = model_convolution(ashape.dims(), &kernel, &window, &dims, fgc, bgc);
        let k = self.param(Shape::new(ty, &kernel))?;
        let op = self
            .b
            .conv_general_dilated(a, k, &window, &dims, fgc, bgc)?;
        let want = want.unwrap_or_default();
        Ok((op, Shape::new(ty, &want), "convolution"))
    }
}

/// A program of one random convolution (random dimension orders, window,
/// dilations, reversal, feature or batch groups, up to 6 output features
/// per group) of a `ty` input of `dims` (rank 2 to 5) and a kernel
/// parameter: what the JIT's convolution paths are tested on. Its
/// arguments are random literals of the parameters' shapes.
pub fn gen_convolution(
    rng: &mut Rng,
    cfg: &GenConfig,
    ty: ElementType,
    dims: &[i64],
) -> Result<Program> {
    let mut g = Gen {
        rng,
        cfg,
        b: Builder::new("convolution"),
        params: Vec::new(),
        values: Vec::new(),
        ops: Vec::new(),
        body_ops: Vec::new(),
        keep: Vec::new(),
    };
    let shape = Shape::new(ty, dims);
    let x = g.param(shape.clone())?;
    let (op, _, name) = g.convolution(x, &shape)?;
    let comp = g.b.build(op)?;
    let args = g
        .params
        .iter()
        .map(|s| crate::random_literal(g.rng, s))
        .collect::<Result<Vec<_>>>()?;
    Ok(Program {
        comp,
        args,
        ops: vec![name],
    })
}
