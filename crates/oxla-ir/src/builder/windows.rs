//! The builder methods of the windowed ops, named as XlaBuilder names them.

use super::{Builder, Op};
use crate::ir::{ConvolutionDimensionNumbers, OpKind, Precision, Window};
use crate::shape_inference as si;
use crate::{Computation, Result};

impl Builder {
    /// XLA's `ConvGeneralDilated`: convolves `lhs` (the input) with `rhs`
    /// (the kernel). `window` has one dimension per spatial dimension, its
    /// sizes the kernel's spatial sizes, and carries the strides, padding,
    /// base (lhs) and window (rhs) dilation and reversal; `dims` says which
    /// dimension is which. The result has the operands' element type.
    ///
    /// ```
    /// use oxla_ir::{Builder, ConvolutionDimensionNumbers, ElementType::F32, Shape, Window};
    /// let mut b = Builder::new("conv");
    /// let x = b.parameter(0, Shape::new(F32, &[1, 16, 16, 3]), "x")?; // NHWC
    /// let w = b.parameter(1, Shape::new(F32, &[3, 3, 3, 8]), "w")?; // HWIO
    /// let dims = ConvolutionDimensionNumbers::from_labels("b01f_01io->b01f").unwrap();
    /// // 3x3, stride 2, SAME padding.
    /// let window = Window::from_dimensions(&[3, 3], &[2, 2], &[(0, 1), (0, 1)], &[], &[])?;
    /// let y = b.conv_general_dilated(x, w, &window, &dims, 1, 1)?;
    /// assert_eq!(b.shape(y)?.to_string(), "f32[1,8,8,8]");
    /// let text = b.build(y)?.to_hlo_text();
    /// assert!(text.contains("window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn conv_general_dilated(
        &mut self,
        lhs: Op,
        rhs: Op,
        window: &Window,
        dims: &ConvolutionDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
    ) -> Result<Op> {
        let shape = si::infer_convolution_shape(
            self.shape_of(lhs)?,
            self.shape_of(rhs)?,
            window,
            dims,
            feature_group_count,
            batch_group_count,
            None,
        )?;
        Ok(self.push(
            OpKind::Convolution {
                window: window.clone(),
                dims: dims.clone(),
                feature_group_count,
                batch_group_count,
                precision: [Precision::Default; 2],
            },
            vec![lhs, rhs],
            shape,
            None,
        ))
    }

    /// XLA's `ReduceWindowWithGeneralPadding`: folds `reducer` (a
    /// computation `(T[], T[]) -> T[]`) over each window of `operand`,
    /// starting from `init`. `window` has one dimension per operand
    /// dimension (size 1 where nothing is pooled).
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape, Window};
    /// let mut m = Builder::new("max");
    /// let (a, c) = (m.parameter(0, Shape::scalar(F32), "a")?, m.parameter(1, Shape::scalar(F32), "c")?);
    /// let max = m.max(a, c, &[])?;
    /// let max = m.build(max)?;
    /// let mut b = Builder::new("pool");
    /// let x = b.parameter(0, Shape::new(F32, &[1, 4, 4, 2]), "x")?;
    /// let ninf = b.constant_scalar(f32::NEG_INFINITY)?;
    /// let window = Window::from_dimensions(&[1, 2, 2, 1], &[1, 2, 2, 1], &[], &[], &[])?;
    /// let y = b.reduce_window(x, ninf, &max, &window)?;
    /// assert_eq!(b.shape(y)?.to_string(), "f32[1,2,2,2]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn reduce_window(
        &mut self,
        operand: Op,
        init: Op,
        reducer: &Computation,
        window: &Window,
    ) -> Result<Op> {
        // The reducer comes from the caller: verified before it is read.
        crate::verifier::verify(reducer)?;
        let entry = reducer.entry();
        let shape = si::infer_reduce_window_shape(
            &[self.shape_of(operand)?, self.shape_of(init)?],
            window,
            &entry.parameter_shapes(),
            entry.result_shape(),
        )?;
        let to_apply = self.import(reducer)?;
        Ok(self.push(
            OpKind::ReduceWindow {
                window: window.clone(),
                to_apply,
            },
            vec![operand, init],
            shape,
            None,
        ))
    }

    /// XLA's variadic `ReduceWindow`: folds `reducer` (N accumulators and
    /// N elements to the tuple of N scalars) over the windows of the N
    /// `operands` (one dims) at once, from the N `inits`; the result is the
    /// tuple of one window output per operand (argmax pooling, as JAX's
    /// `lax.reduce_window` of a pytree).
    ///
    /// ```
    /// use oxla_ir::{Builder, ComparisonDirection::Gt, ElementType::{F32, S32}, Shape, Window};
    /// let mut r = Builder::new("argmax");
    /// let (v, i) = (r.parameter(0, Shape::scalar(F32), "v")?, r.parameter(1, Shape::scalar(S32), "i")?);
    /// let (w, j) = (r.parameter(2, Shape::scalar(F32), "w")?, r.parameter(3, Shape::scalar(S32), "j")?);
    /// let gt = r.compare(w, v, Gt, &[])?;
    /// let (best, at) = (r.select(gt, w, v)?, r.select(gt, j, i)?);
    /// let root = r.tuple(&[best, at])?;
    /// let argmax = r.build(root)?;
    /// let mut b = Builder::new("pool");
    /// let x = b.parameter(0, Shape::new(F32, &[4, 4]), "x")?;
    /// let k = b.parameter(1, Shape::new(S32, &[4, 4]), "k")?;
    /// let ninf = b.constant_scalar(f32::NEG_INFINITY)?;
    /// let none = b.constant_scalar(-1i32)?;
    /// let window = Window::from_dimensions(&[2, 2], &[2, 2], &[], &[], &[])?;
    /// let y = b.reduce_window_variadic(&[x, k], &[ninf, none], &argmax, &window)?;
    /// assert_eq!(b.shape(y)?.to_string(), "(f32[2,2], s32[2,2])");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn reduce_window_variadic(
        &mut self,
        operands: &[Op],
        inits: &[Op],
        reducer: &Computation,
        window: &Window,
    ) -> Result<Op> {
        crate::verifier::verify(reducer)?;
        let entry = reducer.entry();
        let all: Vec<Op> = operands.iter().chain(inits).copied().collect();
        let shapes = all
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let shape = si::infer_reduce_window_shape(
            &shapes,
            window,
            &entry.parameter_shapes(),
            entry.result_shape(),
        )?;
        let to_apply = self.import(reducer)?;
        Ok(self.push(
            OpKind::ReduceWindow {
                window: window.clone(),
                to_apply,
            },
            all,
            shape,
            None,
        ))
    }

    /// XLA's `SelectAndScatterWithGeneralPadding`: the result starts as
    /// `init` everywhere; for each element of `source`, its window of
    /// `operand` picks one element with `select` (`(T[], T[]) -> pred[]`,
    /// `true` keeps the current pick), and `scatter` (`(T[], T[]) -> T[]`)
    /// combines the source value into the result there. The gradient of a
    /// max-pool is `select = ge`, `scatter = add`.
    ///
    /// ```
    /// use oxla_ir::{Builder, ComparisonDirection::Ge, ElementType::F32, Shape, Window};
    /// let scalar = || Shape::scalar(F32);
    /// let mut s = Builder::new("ge");
    /// let (a, c) = (s.parameter(0, scalar(), "a")?, s.parameter(1, scalar(), "c")?);
    /// let ge = s.compare(a, c, Ge, &[])?;
    /// let ge = s.build(ge)?;
    /// let mut t = Builder::new("add");
    /// let (a, c) = (t.parameter(0, scalar(), "a")?, t.parameter(1, scalar(), "c")?);
    /// let add = t.add(a, c, &[])?;
    /// let add = t.build(add)?;
    /// let mut b = Builder::new("maxpool_grad");
    /// let x = b.parameter(0, Shape::new(F32, &[4, 4]), "x")?;
    /// let g = b.parameter(1, Shape::new(F32, &[2, 2]), "g")?;
    /// let zero = b.constant_scalar(0f32)?;
    /// let window = Window::from_dimensions(&[2, 2], &[2, 2], &[], &[], &[])?;
    /// let dx = b.select_and_scatter(x, &ge, &window, g, zero, &add)?;
    /// assert_eq!(b.shape(dx)?.to_string(), "f32[4,4]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn select_and_scatter(
        &mut self,
        operand: Op,
        select: &Computation,
        window: &Window,
        source: Op,
        init: Op,
        scatter: &Computation,
    ) -> Result<Op> {
        crate::verifier::verify(select)?;
        crate::verifier::verify(scatter)?;
        let (s, t) = (select.entry(), scatter.entry());
        let shape = si::infer_select_and_scatter_shape(
            self.shape_of(operand)?,
            (&s.parameter_shapes(), s.result_shape()),
            window,
            self.shape_of(source)?,
            self.shape_of(init)?,
            (&t.parameter_shapes(), t.result_shape()),
        )?;
        let select = self.import(select)?;
        let scatter = self.import(scatter)?;
        Ok(self.push(
            OpKind::SelectAndScatter {
                window: window.clone(),
                select,
                scatter,
            },
            vec![operand, source, init],
            shape,
            None,
        ))
    }
}
