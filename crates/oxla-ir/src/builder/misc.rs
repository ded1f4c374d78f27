//! The builder methods of the misc family: bit ops and the float functions
//! XLA adds to the usual ones, bitcasts, `reduce-precision`, random numbers,
//! `cholesky`, `triangular-solve` and batch normalisation. Each is named as
//! XlaBuilder names it (`PopulationCount` is [`Builder::population_count`],
//! `Round` is [`Builder::round`], `BitcastConvertType` is
//! [`Builder::bitcast_convert_type`]).

use super::{Builder, Op};
use crate::ir::{OpKind, RngAlgorithm, RngDistribution, TriangularSolveOptions, UnaryOp};
use crate::shape_inference as si;
use crate::{ElementType, Error, OpProblem, Result, Shape};

impl Builder {
    /// The number of set bits of each integer, at its own width
    /// (`popcnt(s8 -1) = 8`).
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::S8, Literal, Shape};
    /// let mut b = Builder::new("popcnt");
    /// let x = b.parameter(0, Shape::new(S8, &[2]), "x")?;
    /// let y = b.population_count(x)?;
    /// assert!(b.build(y)?.to_hlo_text().contains("popcnt(x)"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn population_count(&mut self, operand: Op) -> Result<Op> {
        self.unary(UnaryOp::PopCnt, operand)
    }

    /// The number of leading zero bits of each integer, at its own width
    /// (`clz(0)` is the width).
    pub fn clz(&mut self, operand: Op) -> Result<Op> {
        self.unary(UnaryOp::Clz, operand)
    }

    /// The error function.
    pub fn erf(&mut self, operand: Op) -> Result<Op> {
        self.unary(UnaryOp::Erf, operand)
    }

    /// The real cube root (`cbrt(-8) = -2`).
    pub fn cbrt(&mut self, operand: Op) -> Result<Op> {
        self.unary(UnaryOp::Cbrt, operand)
    }

    /// The tangent.
    pub fn tan(&mut self, operand: Op) -> Result<Op> {
        self.unary(UnaryOp::Tan, operand)
    }

    /// Rounds to the nearest integral value, ties away from zero
    /// (`round-nearest-afz`: `2.5 -> 3`, `-2.5 -> -3`).
    pub fn round(&mut self, operand: Op) -> Result<Op> {
        self.unary(UnaryOp::RoundNearestAfz, operand)
    }

    /// Reinterprets the bits of each element as `element_type`. A narrower
    /// type adds a minor dimension (`f32[4] -> u8[4,4]`, least significant
    /// byte first); a wider one removes the last dimension, which must be
    /// the ratio of the widths.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, U8}, Shape};
    /// let mut b = Builder::new("bytes");
    /// let x = b.parameter(0, Shape::new(F32, &[4]), "x")?;
    /// let y = b.bitcast_convert_type(x, U8)?;
    /// assert_eq!(b.shape(y)?.to_string(), "u8[4,4]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn bitcast_convert_type(&mut self, operand: Op, element_type: ElementType) -> Result<Op> {
        let shape = si::infer_bitcast_convert_shape(self.shape_of(operand)?, element_type)?;
        Ok(self.push(OpKind::BitcastConvert, vec![operand], shape, None))
    }

    /// HLO's `bitcast` to `dims`: under the default layouts, which are the
    /// only ones oxla has, the same elements in row-major order (a reshape).
    /// XlaBuilder has no such method; passes and parsed text produce it.
    pub fn bitcast(&mut self, operand: Op, dims: &[i64]) -> Result<Op> {
        let x = self.shape_of(operand)?;
        let shape = si::infer_bitcast_shape(x, &Shape::new(x.element_type(), dims))?;
        Ok(self.push(OpKind::Bitcast, vec![operand], shape, None))
    }

    /// Rounds floats to `exponent_bits` and `mantissa_bits` (8 and 7
    /// emulate bf16), keeping their type: mantissas round to nearest even,
    /// values past the narrower range become infinities, values below its
    /// normal range become zeros.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("bf16ish");
    /// let x = b.parameter(0, Shape::new(F32, &[4]), "x")?;
    /// let y = b.reduce_precision(x, 8, 7)?;
    /// assert!(b.build(y)?.to_hlo_text().contains("exponent_bits=8, mantissa_bits=7"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn reduce_precision(
        &mut self,
        operand: Op,
        exponent_bits: i64,
        mantissa_bits: i64,
    ) -> Result<Op> {
        let shape = si::infer_reduce_precision_shape(
            self.shape_of(operand)?,
            exponent_bits,
            mantissa_bits,
        )?;
        Ok(self.push(
            OpKind::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            },
            vec![operand],
            shape,
            None,
        ))
    }

    fn rng(&mut self, distribution: RngDistribution, a: Op, b: Op, shape: Shape) -> Result<Op> {
        let shape =
            si::infer_rng_shape(self.shape_of(a)?, self.shape_of(b)?, distribution, &shape)?;
        Ok(self.push(OpKind::Rng { distribution }, vec![a, b], shape, None))
    }

    /// Random numbers of `shape`, uniform in `[a, b)` (scalars of the
    /// shape's element type). The values depend on the backend (see the
    /// interpreter's documentation): only their distribution is promised.
    pub fn rng_uniform(&mut self, a: Op, b: Op, shape: Shape) -> Result<Op> {
        self.rng(RngDistribution::Uniform, a, b, shape)
    }

    /// Random numbers of `shape`, normal with mean `mu` and standard
    /// deviation `sigma` (float scalars).
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("noise");
    /// let mu = b.constant_scalar(0f32)?;
    /// let sigma = b.constant_scalar(1f32)?;
    /// let z = b.rng_normal(mu, sigma, Shape::new(F32, &[16]))?;
    /// assert!(b.build(z)?.to_hlo_text().contains("distribution=rng_normal"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn rng_normal(&mut self, mu: Op, sigma: Op, shape: Shape) -> Result<Op> {
        self.rng(RngDistribution::Normal, mu, sigma, shape)
    }

    /// Random bits of `shape` from `state` with `algorithm`: a tuple
    /// `(new_state, bits)`. As in XlaBuilder, the bits have the unsigned
    /// integer type of the width of `shape`'s element type (`f32` gives
    /// `u32`). The state is `u64[2]` (`[key, counter]`), or `u64[3]` for
    /// Philox.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, U64}, RngAlgorithm, Shape};
    /// let mut b = Builder::new("bits");
    /// let state = b.parameter(0, Shape::new(U64, &[2]), "state")?;
    /// let out = b.rng_bit_generator(RngAlgorithm::ThreeFry, state, Shape::new(F32, &[4]))?;
    /// assert_eq!(b.shape(out)?.to_string(), "(u64[2], u32[4])");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn rng_bit_generator(
        &mut self,
        algorithm: RngAlgorithm,
        state: Op,
        shape: Shape,
    ) -> Result<Op> {
        let state_shape = self.shape_of(state)?.clone();
        // Bits of 8 to 64: the sub-byte types have no rng-bit-generator.
        let bits = shape.element_type().bit_width();
        let Some(unsigned) = ElementType::unsigned_of_width(bits).filter(|_| bits >= 8) else {
            return Err(Error::InvalidOp {
                op: "rng-bit-generator".into(),
                problem: OpProblem::RngBitGeneratorBits { bits: shape },
            });
        };
        let bits = shape.with_element_type(unsigned);
        let result = Shape::tuple(vec![state_shape.clone(), bits]);
        let result = si::infer_rng_bit_generator_shape(&state_shape, algorithm, &result)?;
        Ok(self.push(
            OpKind::RngBitGenerator { algorithm },
            vec![state],
            result,
            None,
        ))
    }

    /// The Cholesky factor of each matrix in the two minor dimensions of
    /// `a` (the others are batch dimensions): `L` with `a = L L^T` if
    /// `lower`, else `U` with `a = U^T U`. Only that triangle of `a` is
    /// read; the other triangle of the result is zero.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F64, Shape};
    /// let mut b = Builder::new("chol");
    /// let a = b.parameter(0, Shape::new(F64, &[2, 3, 3]), "a")?;
    /// let l = b.cholesky(a, true)?;
    /// assert!(b.build(l)?.to_hlo_text().contains("cholesky(a), lower=true"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn cholesky(&mut self, a: Op, lower: bool) -> Result<Op> {
        let shape = si::infer_cholesky_shape(self.shape_of(a)?)?;
        Ok(self.push(OpKind::Cholesky { lower }, vec![a], shape, None))
    }

    /// Solves `op(a) x = b` (`options.left_side`) or `x op(a) = b` for `x`,
    /// where `a` is triangular (its `lower` or upper triangle is read) and
    /// `op` is given by `transpose_a`; leading dimensions are batch
    /// dimensions.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape, Transpose, TriangularSolveOptions};
    /// let mut b = Builder::new("solve");
    /// let a = b.parameter(0, Shape::new(F32, &[3, 3]), "a")?;
    /// let rhs = b.parameter(1, Shape::new(F32, &[3, 2]), "b")?;
    /// let options = TriangularSolveOptions {
    ///     left_side: true, lower: true, unit_diagonal: false, transpose_a: Transpose::NoTranspose,
    /// };
    /// let x = b.triangular_solve(a, rhs, &options)?;
    /// assert_eq!(b.shape(x)?.to_string(), "f32[3,2]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn triangular_solve(
        &mut self,
        a: Op,
        b: Op,
        options: &TriangularSolveOptions,
    ) -> Result<Op> {
        let shape =
            si::infer_triangular_solve_shape(self.shape_of(a)?, self.shape_of(b)?, options)?;
        Ok(self.push(
            OpKind::TriangularSolve { options: *options },
            vec![a, b],
            shape,
            None,
        ))
    }

    /// Batch normalisation for training: normalises `operand` with the mean
    /// and (biased) variance over every dimension but `feature_index`, then
    /// scales and offsets it. Gives the tuple `(y, batch_mean, batch_var)`.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("bn");
    /// let x = b.parameter(0, Shape::new(F32, &[8, 4]), "x")?;
    /// let scale = b.parameter(1, Shape::new(F32, &[4]), "scale")?;
    /// let offset = b.parameter(2, Shape::new(F32, &[4]), "offset")?;
    /// let out = b.batch_norm_training(x, scale, offset, 0.001, 1)?;
    /// assert_eq!(b.shape(out)?.to_string(), "(f32[8,4], f32[4], f32[4])");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn batch_norm_training(
        &mut self,
        operand: Op,
        scale: Op,
        offset: Op,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<Op> {
        let shape = si::infer_batch_norm_training_shape(
            self.shape_of(operand)?,
            self.shape_of(scale)?,
            self.shape_of(offset)?,
            feature_index,
        )?;
        Ok(self.push(
            OpKind::BatchNormTraining {
                epsilon,
                feature_index,
            },
            vec![operand, scale, offset],
            shape,
            None,
        ))
    }

    /// Batch normalisation with a given `mean` and `variance`.
    #[allow(clippy::too_many_arguments, reason = "XlaBuilder's signature")]
    pub fn batch_norm_inference(
        &mut self,
        operand: Op,
        scale: Op,
        offset: Op,
        mean: Op,
        variance: Op,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<Op> {
        let shape = si::infer_batch_norm_inference_shape(
            self.shape_of(operand)?,
            self.shape_of(scale)?,
            self.shape_of(offset)?,
            self.shape_of(mean)?,
            self.shape_of(variance)?,
            feature_index,
        )?;
        Ok(self.push(
            OpKind::BatchNormInference {
                epsilon,
                feature_index,
            },
            vec![operand, scale, offset, mean, variance],
            shape,
            None,
        ))
    }

    /// The gradients of batch normalisation: `(grad_operand, grad_scale,
    /// grad_offset)` from the operand, the scale, the mean and variance it
    /// was normalised with, and the gradient of the output.
    #[allow(clippy::too_many_arguments, reason = "XlaBuilder's signature")]
    pub fn batch_norm_grad(
        &mut self,
        operand: Op,
        scale: Op,
        mean: Op,
        variance: Op,
        grad_output: Op,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<Op> {
        let shape = si::infer_batch_norm_grad_shape(
            self.shape_of(operand)?,
            self.shape_of(scale)?,
            self.shape_of(mean)?,
            self.shape_of(variance)?,
            self.shape_of(grad_output)?,
            feature_index,
        )?;
        Ok(self.push(
            OpKind::BatchNormGrad {
                epsilon,
                feature_index,
            },
            vec![operand, scale, mean, variance, grad_output],
            shape,
            None,
        ))
    }
}
