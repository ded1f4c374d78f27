//! Generator steps for the misc family: the ops the JIT compiles
//! (same-width `bitcast-convert`, `bitcast`, `reduce-precision`), behind
//! [`GenConfig::misc_ops`](crate::GenConfig::misc_ops), and the ones it
//! refuses for now (`rng`, `rng-bit-generator`, `cholesky`,
//! `triangular-solve`, and the ones it runs as expansions), behind
//! [`GenConfig::jit_unsupported_ops`](crate::GenConfig::jit_unsupported_ops),
//! which the differential test keeps off until the JIT compiles them. The
//! random-number and batch-norm ops, width-changing `bitcast-convert`,
//! `cholesky`, `triangular-solve` and `ragged-dot`, which the JIT runs as
//! expansions into primitives, are also behind
//! [`GenConfig::expanded_ops`](crate::GenConfig::expanded_ops).
//!
//! As for the other ops, each step's result shape comes from the
//! generator's own model, written from XLA's rules, and `step` checks it
//! against what the builder inferred.

use oxla_ir::ir::{RngAlgorithm, Transpose, TriangularSolveOptions};
use oxla_ir::{
    ArrayData, DotDimensionNumbers, ElementType, Literal, Op, RaggedDotDimensionNumbers, Result,
    Shape,
};

use crate::{Gen, random_dims};

/// What a step made: the op, its modelled shape and its name; `None` when
/// the chosen op does not fit the operand.
pub(crate) type Made = Option<(Op, Shape, &'static str)>;

/// The element types of `bits` bits among `allowed` (the config's).
fn of_width(bits: u32, allowed: &[ElementType]) -> Vec<ElementType> {
    ElementType::ALL
        .into_iter()
        .filter(|t| !t.is_pred() && !t.is_tuple() && t.bit_width() == bits && allowed.contains(t))
        .collect()
}

impl Gen<'_> {
    /// The misc step kinds the config allows, in order: 0 and 1 the
    /// same-width ones, 2 to 6 the expanded ones (random numbers, linear
    /// algebra, batch-norm, width-changing bitcast, ragged-dot), 7 and 8
    /// the ones the JIT refuses (stochastic-convert, tokens).
    fn misc_kind_list(&self) -> Vec<u64> {
        let mut kinds = Vec::new();
        if self.cfg.misc_ops {
            kinds.extend([0, 1]);
        }
        if self.cfg.jit_unsupported_ops || self.cfg.expanded_ops {
            kinds.extend([2, 3, 4, 5, 6]);
        }
        if self.cfg.jit_unsupported_ops {
            kinds.extend([7, 8]);
        }
        kinds
    }

    /// How many misc step kinds the config allows.
    pub(crate) fn misc_kinds(&self) -> u64 {
        self.misc_kind_list().len() as u64
    }

    /// Misc step number `k` (below [`Gen::misc_kinds`]) on `a`.
    pub(crate) fn misc_step(&mut self, k: u64, a: Op, ashape: &Shape) -> Result<Made> {
        let kinds = self.misc_kind_list();
        let k = kinds.get(k as usize).copied().unwrap_or(5);
        match k {
            0 => self.same_width_bitcast(a, ashape),
            1 => self.bitcast_or_reduce_precision(a, ashape),
            2 => self.random_numbers(ashape),
            3 => self.linear_algebra(ashape),
            4 => self.batch_norm(ashape),
            6 => self.ragged_dot(ashape),
            7 => self.stochastic_convert(ashape),
            8 => self.tokens(a, ashape),
            _ => self.width_changing_bitcast(a, ashape),
        }
    }

    /// Whether an op whose result a backend may round differently (through
    /// a transcendental, or a sum in another order) may appear: as the
    /// config's flag says (`transcendentals`, `float_reassociation`), so
    /// that `jit_unsupported_ops` in a bit-exact differential run (the
    /// all-feature test) does not bring in float ragged-dots, batch-norm
    /// sums or normal `rng`; interpreter-only runs have both flags on.
    fn may(&self, flag: bool) -> bool {
        flag
    }

    fn same_width_bitcast(&mut self, a: Op, ashape: &Shape) -> Result<Made> {
        let ty = ashape.element_type();
        if ty.is_pred() {
            return Ok(None);
        }
        let targets = of_width(ty.bit_width(), &self.cfg.element_types);
        if targets.is_empty() {
            return Ok(None);
        }
        let to = self.rng.pick(&targets);
        let op = self.b.bitcast_convert_type(a, to)?;
        Ok(Some((op, ashape.with_element_type(to), "bitcast-convert")))
    }

    fn bitcast_or_reduce_precision(&mut self, a: Op, ashape: &Shape) -> Result<Made> {
        let ty = ashape.element_type();
        // reduce-precision takes the IEEE-layout floats (16 bits or more).
        if ty.is_float() && ty.bit_width() >= 16 && self.rng.chance(0.5) {
            let (e, m) = self.rng.pick(&[
                (8, 7),
                (5, 10),
                (5, 2),
                (4, 3),
                (8, 0),
                (11, 52),
                (1, 0),
                (3, 1),
            ]);
            let op = self.b.reduce_precision(a, e, m)?;
            return Ok(Some((op, ashape.clone(), "reduce-precision")));
        }
        // A bitcast keeps the elements: flatten, or add a unit dimension.
        let n = ashape.element_count();
        let dims: Vec<i64> = match self.rng.below(3) {
            0 => vec![n],
            1 => [ashape.dims(), &[1]].concat(),
            _ => [&[1], ashape.dims()].concat(),
        };
        if dims.len() > self.cfg.max_rank + 1 {
            return Ok(None);
        }
        let op = self.b.bitcast(a, &dims)?;
        Ok(Some((op, Shape::new(ty, &dims), "bitcast")))
    }

    fn width_changing_bitcast(&mut self, a: Op, ashape: &Shape) -> Result<Made> {
        let ty = ashape.element_type();
        if ty.is_pred() {
            return Ok(None);
        }
        let bits = ty.bit_width();
        let narrower: Vec<u32> = [8, 16, 32].into_iter().filter(|&w| w < bits).collect();
        if !narrower.is_empty() && self.rng.chance(0.5) && ashape.rank() <= self.cfg.max_rank {
            let w = self.rng.pick(&narrower);
            let targets = of_width(w, &self.cfg.element_types);
            if targets.is_empty() {
                return Ok(None);
            }
            let to = self.rng.pick(&targets);
            let op = self.b.bitcast_convert_type(a, to)?;
            let dims = [ashape.dims(), &[i64::from(bits / w)]].concat();
            return Ok(Some((
                op,
                Shape::new(to, &dims),
                "bitcast-convert (narrowing)",
            )));
        }
        // Widening: a fresh operand whose last dimension is the ratio.
        let wider: Vec<u32> = [16, 32, 64].into_iter().filter(|&w| w > bits).collect();
        if wider.is_empty() || ashape.rank() > self.cfg.max_rank {
            return Ok(None);
        }
        let w = self.rng.pick(&wider);
        let targets = of_width(w, &self.cfg.element_types);
        if targets.is_empty() {
            return Ok(None);
        }
        let to = self.rng.pick(&targets);
        let parts = [ashape.dims(), &[i64::from(w / bits)]].concat();
        let x = self.param(Shape::new(ty, &parts))?;
        let op = self.b.bitcast_convert_type(x, to)?;
        Ok(Some((
            op,
            ashape.with_element_type(to),
            "bitcast-convert (widening)",
        )))
    }

    fn random_numbers(&mut self, ashape: &Shape) -> Result<Made> {
        let ty = ashape.element_type();
        let dims = ashape.dims().to_vec();
        // rng draws f32, f64, pred and integers of 8 bits or more.
        let narrow = ty.is_complex() || ty.bit_width() < 8 || ty.is_narrow_float();
        if !narrow && self.rng.chance(0.5) {
            let lo = self.param(Shape::scalar(ty))?;
            let hi = self.param(Shape::scalar(ty))?;
            let normal =
                ty.is_float() && self.may(self.cfg.transcendentals) && self.rng.chance(0.5);
            let shape = Shape::new(ty, &dims);
            let op = if normal {
                self.b.rng_normal(lo, hi, shape.clone())?
            } else {
                self.b.rng_uniform(lo, hi, shape.clone())?
            };
            return Ok(Some((op, shape, "rng")));
        }
        let algorithm = self.rng.pick(&[
            RngAlgorithm::ThreeFry,
            RngAlgorithm::Philox,
            RngAlgorithm::Default,
        ]);
        let words = if algorithm != RngAlgorithm::ThreeFry && self.rng.chance(0.5) {
            3
        } else {
            2
        };
        let state_shape = Shape::new(ElementType::U64, &[words]);
        let state = self.param(state_shape.clone())?;
        let unsigned = self.rng.pick(&[
            ElementType::U8,
            ElementType::U16,
            ElementType::U32,
            ElementType::U64,
        ]);
        let bits = Shape::new(unsigned, &dims);
        let op = self.b.rng_bit_generator(algorithm, state, bits.clone())?;
        self.keep_pair(
            op,
            Shape::tuple(vec![state_shape, bits]),
            "rng-bit-generator",
        )
    }

    /// A tuple-valued op: checked against its model and returned by the
    /// root (no later step reads a tuple).
    fn keep_pair(&mut self, op: Op, model: Shape, name: &'static str) -> Result<Made> {
        let got = self.b.shape(op)?;
        if got != model {
            return Err(oxla_ir::Error::Internal {
                stage: "generator".into(),
                message: format!(
                    "{name}: builder inferred {got}, the generator's model says {model}"
                ),
            });
        }
        self.keep.push(op);
        self.ops.push(name);
        Ok(None)
    }

    /// `ragged-dot` in one of its three modes, with constant group sizes
    /// that may sum short of or past the ragged dimension (or be
    /// negative). Integer types always; floats only where a backend may
    /// reorder sums (`float_reassociation`), as for dots.
    fn ragged_dot(&mut self, ashape: &Shape) -> Result<Made> {
        let mut types = vec![ElementType::S32, ElementType::S64];
        if self.may(self.cfg.float_reassociation) {
            types.extend([ElementType::F32, ElementType::F64]);
        }
        types.retain(|t| self.cfg.element_types.contains(t));
        let ty = if types.contains(&ashape.element_type()) {
            ashape.element_type()
        } else if types.is_empty() {
            return Ok(None);
        } else {
            self.rng.pick(&types)
        };
        let size = |this: &mut Self| 1 + this.rng.below(this.cfg.max_dim.max(1) as u64) as i64;
        let (m, k, n, g) = (size(self), size(self), size(self), size(self));
        let batch = self.rng.chance(0.4);
        let b = size(self);
        let mode = self.rng.below(3);
        let dot = |lhs_batch: Vec<i64>, lhs_c, rhs_batch: Vec<i64>, rhs_c| DotDimensionNumbers {
            lhs_batch,
            rhs_batch,
            lhs_contracting: vec![lhs_c],
            rhs_contracting: vec![rhs_c],
        };
        // (lhs dims, rhs dims, sizes dims, dimension numbers, result dims)
        let (lhs, rhs, sizes, dims, out) = match (mode, batch) {
            // Ragged rows: [b,m,k] x [g,b,k,n], sizes [b,g] or [g].
            (0, true) => (
                vec![b, m, k],
                vec![g, b, k, n],
                if self.rng.chance(0.5) {
                    vec![b, g]
                } else {
                    vec![g]
                },
                RaggedDotDimensionNumbers {
                    dot: dot(vec![0], 2, vec![1], 2),
                    lhs_ragged: vec![1],
                    rhs_group: vec![0],
                },
                vec![b, m, n],
            ),
            (0, false) => (
                vec![m, k],
                vec![k, g, n],
                vec![g],
                RaggedDotDimensionNumbers {
                    dot: dot(vec![], 1, vec![], 0),
                    lhs_ragged: vec![0],
                    rhs_group: vec![1],
                },
                vec![m, n],
            ),
            // Ragged contraction: [m,k] x [k,n] -> [g,m,n].
            (1, _) => (
                vec![m, k],
                vec![k, n],
                vec![g],
                RaggedDotDimensionNumbers {
                    dot: dot(vec![], 1, vec![], 0),
                    lhs_ragged: vec![1],
                    rhs_group: vec![],
                },
                vec![g, m, n],
            ),
            // Ragged batch: [b,m,k] x [b,k,n].
            _ => (
                vec![b, m, k],
                vec![b, k, n],
                vec![g],
                RaggedDotDimensionNumbers {
                    dot: dot(vec![0], 2, vec![0], 1),
                    lhs_ragged: vec![0],
                    rhs_group: vec![],
                },
                vec![b, m, n],
            ),
        };
        let l = self.param(Shape::new(ty, &lhs))?;
        let r = self.param(Shape::new(ty, &rhs))?;
        // Sizes from -1 to a little past the ragged dimension's size.
        let count: i64 = sizes.iter().product();
        let values: Vec<i64> = (0..count)
            .map(|_| self.rng.below(m.max(k) as u64 + 3) as i64 - 1)
            .collect();
        let data = if self.rng.chance(0.5) {
            ArrayData::S32(values.iter().map(|&v| v as i32).collect())
        } else {
            ArrayData::S64(values)
        };
        let sizes = self.b.constant(Literal::from_array_data(&sizes, data)?)?;
        let op = self.b.ragged_dot(l, r, sizes, &dims, None)?;
        Ok(Some((op, Shape::new(ty, &out), "ragged-dot")))
    }

    /// `stochastic-convert` of new float and random parameters to a signed
    /// integer type (the JIT refuses it: interpreter-only runs).
    fn stochastic_convert(&mut self, ashape: &Shape) -> Result<Made> {
        let allowed = &self.cfg.element_types;
        let pairs: Vec<(ElementType, ElementType)> = [
            (ElementType::F16, ElementType::U16),
            (ElementType::Bf16, ElementType::U16),
            (ElementType::F32, ElementType::U32),
            (ElementType::F64, ElementType::U64),
        ]
        .into_iter()
        .filter(|(f, u)| allowed.contains(f) && allowed.contains(u))
        .collect();
        let targets: Vec<ElementType> = [
            ElementType::S8,
            ElementType::S16,
            ElementType::S32,
            ElementType::S64,
        ]
        .into_iter()
        .filter(|t| allowed.contains(t))
        .collect();
        if pairs.is_empty() || targets.is_empty() {
            return Ok(None);
        }
        let (f, u) = self.rng.pick(&pairs);
        let to = self.rng.pick(&targets);
        let dims = ashape.dims().to_vec();
        let x = self.param(Shape::new(f, &dims))?;
        let r = self.param(Shape::new(u, &dims))?;
        let op = self.b.stochastic_convert_type(x, r, to)?;
        Ok(Some((op, Shape::new(to, &dims), "stochastic-convert")))
    }

    /// `a` ordered after a token (`add-dependency` of an `after-all`,
    /// itself after another one); the JIT refuses tokens.
    fn tokens(&mut self, a: Op, ashape: &Shape) -> Result<Made> {
        if !ashape.is_array() {
            return Ok(None);
        }
        let first = self.b.after_all(&[])?;
        let token = if self.rng.chance(0.5) {
            self.b.after_all(&[first])?
        } else {
            first
        };
        let op = self.b.add_dependency(a, token)?;
        Ok(Some((op, ashape.clone(), "add-dependency")))
    }

    fn linear_algebra(&mut self, ashape: &Shape) -> Result<Made> {
        // cholesky and triangular-solve take f32 and f64.
        let ty = if ashape.element_type().is_float() && !ashape.element_type().is_narrow_float() {
            ashape.element_type()
        } else {
            self.rng.pick(&[ElementType::F32, ElementType::F64])
        };
        let batch_rank = self.rng.below(2) as usize;
        let batch = random_dims(self.rng, self.cfg, batch_rank);
        let k = self.rng.below(self.cfg.max_dim as u64 + 1) as i64;
        let square = [batch.as_slice(), &[k, k]].concat();
        let a = self.param(Shape::new(ty, &square))?;
        if self.rng.chance(0.4) {
            let op = self.b.cholesky(a, self.rng.chance(0.5))?;
            return Ok(Some((op, Shape::new(ty, &square), "cholesky")));
        }
        let m = self.rng.below(self.cfg.max_dim as u64 + 1) as i64;
        let left_side = self.rng.chance(0.5);
        let bdims = if left_side {
            [batch.as_slice(), &[k, m]].concat()
        } else {
            [batch.as_slice(), &[m, k]].concat()
        };
        let b = self.param(Shape::new(ty, &bdims))?;
        let options = TriangularSolveOptions {
            left_side,
            lower: self.rng.chance(0.5),
            unit_diagonal: self.rng.chance(0.3),
            transpose_a: self.rng.pick(&[
                Transpose::NoTranspose,
                Transpose::Transpose,
                Transpose::Adjoint,
            ]),
        };
        let op = self.b.triangular_solve(a, b, &options)?;
        Ok(Some((op, Shape::new(ty, &bdims), "triangular-solve")))
    }

    fn batch_norm(&mut self, ashape: &Shape) -> Result<Made> {
        let ty = if ashape.element_type().is_float() {
            ashape.element_type()
        } else {
            self.rng.pick(&[ElementType::F32, ElementType::F64])
        };
        let rank = 1 + self.rng.below(self.cfg.max_rank as u64) as usize;
        let dims = random_dims(self.rng, self.cfg, rank);
        let f = self.rng.below(rank as u64) as usize;
        let feature = Shape::new(ty, &[dims[f]]);
        let xshape = Shape::new(ty, &dims);
        let x = self.param(xshape.clone())?;
        let scale = self.param(feature.clone())?;
        let epsilon = self.rng.pick(&[0.001f32, 1e-5, 0.5]);
        let fi = f as i64;
        // Training and grad sum floats (in any order, on the JIT);
        // inference has no sum, and rsqrt is exact (1 / sqrt).
        let sums = self.may(self.cfg.float_reassociation);
        match if sums { self.rng.below(3) } else { 1 } {
            0 => {
                let offset = self.param(feature.clone())?;
                let op = self.b.batch_norm_training(x, scale, offset, epsilon, fi)?;
                let model = Shape::tuple(vec![xshape, feature.clone(), feature]);
                self.keep_pair(op, model, "batch-norm-training")
            }
            1 => {
                let offset = self.param(feature.clone())?;
                let mean = self.param(feature.clone())?;
                let var = self.param(feature.clone())?;
                let op = self
                    .b
                    .batch_norm_inference(x, scale, offset, mean, var, epsilon, fi)?;
                Ok(Some((op, xshape, "batch-norm-inference")))
            }
            _ => {
                let mean = self.param(feature.clone())?;
                let var = self.param(feature.clone())?;
                let dy = self.param(xshape.clone())?;
                let op = self
                    .b
                    .batch_norm_grad(x, scale, mean, var, dy, epsilon, fi)?;
                let model = Shape::tuple(vec![xshape, feature.clone(), feature]);
                self.keep_pair(op, model, "batch-norm-grad")
            }
        }
    }
}
