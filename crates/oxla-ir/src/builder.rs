//! The builder: the user's way to write a computation, op by op.
//!
//! Each method checks its operands through [`crate::shape_inference`] at
//! once and returns `Result<Op>`: an error points at the call that caused it,
//! not at `build` (XLA defers errors to `Build()`; we do not). An [`Op`] is a
//! small `Copy` handle that knows which builder made it, so handles of two
//! builders cannot be mixed by mistake.
//!
//! ```
//! use oxla_ir::{Builder, ElementType::F32, Shape};
//! let mut b = Builder::new("example");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
//! let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
//! let y = b.add(x, v, &[1])?;
//! assert_eq!(b.shape(y)?.to_string(), "f32[2,3]");
//! let comp = b.build(y)?;
//! assert!(comp.to_hlo_text().contains("add(x, v), broadcast_dimensions={1}"));
//! # Ok::<(), oxla_ir::Error>(())
//! ```

// The misc family: bit ops, bitcasts, rng, linear algebra, batch norm.
mod misc;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::ir::{
    BinaryOp, Body, ComparisonDirection, ComparisonOrder, ComparisonType, ComputationId,
    DotDimensionNumbers, GatherDimensionNumbers, InstId, Instruction, OpKind, PadDim,
    ScatterDimensionNumbers, UnaryOp,
};
use crate::shape_inference as si;
use crate::{Computation, ElementType, Error, Literal, Result, Shape};

mod ctrl;
// The windows family: convolution, reduce-window, select-and-scatter.
mod external;
mod ragged_dot;
mod windows;

static NEXT_BUILDER_ID: AtomicU32 = AtomicU32::new(1);

/// A handle to an op added to a [`Builder`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Op {
    builder: u32,
    index: u32,
}

impl Op {
    /// The instruction this op became in the entry body of the built
    /// computation.
    pub(crate) fn inst_id(self) -> InstId {
        InstId(self.index)
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Op(builder {}, #{})", self.builder, self.index)
    }
}

/// Builds a [`Computation`] op by op, checking shapes as it goes.
#[derive(Debug, Clone)]
pub struct Builder {
    name: String,
    id: u32,
    instructions: Vec<Instruction>,
    names: HashSet<String>,
    parameter_numbers: HashMap<i64, String>,
    /// Called bodies (reducers), in dependency order, shared by name.
    called: Vec<Body>,
}

macro_rules! binary_methods {
    ($($(#[$m:meta])* $method:ident => $op:expr;)*) => {$(
        $(#[$m])*
        ///
        /// `broadcast_dimensions` maps the dims of the lower-rank operand to
        /// dims of the higher-rank one (XLA's InDim broadcasting); pass `&[]`
        /// for equal ranks or a scalar operand. Size-1 dims then broadcast.
        pub fn $method(&mut self, lhs: Op, rhs: Op, broadcast_dimensions: &[i64]) -> Result<Op> {
            self.binary(lhs, rhs, $op, broadcast_dimensions)
        }
    )*};
}

macro_rules! unary_methods {
    ($($(#[$m:meta])* $method:ident => $op:expr;)*) => {$(
        $(#[$m])*
        pub fn $method(&mut self, operand: Op) -> Result<Op> {
            self.unary($op, operand)
        }
    )*};
}

impl Builder {
    /// A builder for a computation called `name`.
    pub fn new(name: &str) -> Builder {
        Builder {
            name: sanitize_name(name),
            id: NEXT_BUILDER_ID.fetch_add(1, Ordering::Relaxed),
            instructions: Vec::new(),
            names: HashSet::new(),
            parameter_numbers: HashMap::new(),
            called: Vec::new(),
        }
    }

    /// The computation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn check(&self, op: Op) -> Result<&Instruction> {
        if op.builder != self.id || op.index as usize >= self.instructions.len() {
            return Err(Error::ForeignOp {
                builder: self.name.clone(),
                handle: format!("{op:?}"),
            });
        }
        Ok(&self.instructions[op.index as usize])
    }

    fn shape_of(&self, op: Op) -> Result<&Shape> {
        Ok(&self.check(op)?.shape)
    }

    /// The inferred shape of any op of this builder.
    pub fn shape(&self, op: Op) -> Result<Shape> {
        self.shape_of(op).cloned()
    }

    fn unique_name(&mut self, base: &str) -> String {
        let mut name = format!("{base}.{}", self.instructions.len());
        let mut k = 1;
        while self.names.contains(&name) {
            name = format!("{base}.{}.{k}", self.instructions.len());
            k += 1;
        }
        name
    }

    fn push(&mut self, kind: OpKind, operands: Vec<Op>, shape: Shape, name: Option<String>) -> Op {
        let name = name.unwrap_or_else(|| self.unique_name(kind.opcode_name()));
        self.names.insert(name.clone());
        let index = self.instructions.len() as u32;
        self.instructions.push(Instruction {
            name,
            kind,
            operands: operands.into_iter().map(Op::inst_id).collect(),
            shape,
        });
        Op {
            builder: self.id,
            index,
        }
    }

    /// Parameter `number` (dense from 0 by the time of `build`) of `shape`,
    /// named `name` in the HLO text.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("p");
    /// b.parameter(0, Shape::new(F32, &[2]), "x")?;
    /// assert!(b.parameter(0, Shape::new(F32, &[2]), "y").is_err()); // number 0 is taken
    /// assert!(b.parameter(1, Shape::new(F32, &[-2]), "z").is_err()); // negative size
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn parameter(&mut self, number: i64, shape: Shape, name: &str) -> Result<Op> {
        shape.validate()?;
        if number < 0 {
            return Err(Error::InvalidParameter {
                message: format!("parameter number {number} of `{name}` ({shape}) is negative."),
            });
        }
        if let Some(other) = self.parameter_numbers.get(&number) {
            return Err(Error::InvalidParameter {
                message: format!(
                    "parameter number {number} is already taken by `{other}`; `{name}` ({shape}) needs another number."
                ),
            });
        }
        if !is_valid_name(name) {
            return Err(Error::InvalidParameter {
                message: format!(
                    "`{name}` is not a valid HLO name: use letters, digits, `_`, `.` and `-`, not starting with a digit."
                ),
            });
        }
        if self.names.contains(name) {
            return Err(Error::InvalidParameter {
                message: format!("the name `{name}` is already used in `{}`.", self.name),
            });
        }
        self.parameter_numbers.insert(number, name.to_string());
        Ok(self.push(
            OpKind::Parameter { number },
            vec![],
            shape,
            Some(name.to_string()),
        ))
    }

    /// A constant.
    pub fn constant(&mut self, literal: Literal) -> Result<Op> {
        let shape = literal.shape().clone();
        if shape.is_tuple() {
            return Err(Error::InvalidOp {
                op: "constant".into(),
                problem: crate::OpProblem::TupleConstant { shape },
            });
        }
        Ok(self.push(OpKind::Constant { literal }, vec![], shape, None))
    }

    /// A scalar constant: `b.constant_scalar(0f32)`.
    pub fn constant_scalar<T: crate::NativeType>(&mut self, value: T) -> Result<Op> {
        self.constant(Literal::scalar(value))
    }

    /// An array of `shape` counting along `dimension`: `out[..i..] = i`.
    pub fn iota(&mut self, shape: Shape, dimension: i64) -> Result<Op> {
        let shape = si::infer_iota_shape(&shape, dimension)?;
        Ok(self.push(OpKind::Iota { dimension }, vec![], shape, None))
    }

    /// Any unary op (the named methods call this), for code that picks the
    /// op at run time.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape, UnaryOp};
    /// let mut b = Builder::new("u");
    /// let x = b.parameter(0, Shape::new(F32, &[2]), "x")?;
    /// for op in [UnaryOp::Exp, UnaryOp::Neg, UnaryOp::IsFinite] {
    ///     b.unary(op, x)?;
    /// }
    /// assert!(b.unary(UnaryOp::Not, x).is_err()); // not is for pred and integers
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn unary(&mut self, op: UnaryOp, operand: Op) -> Result<Op> {
        let shape = si::infer_unary_op_shape(op, self.shape_of(operand)?)?;
        Ok(self.push(OpKind::Unary(op), vec![operand], shape, None))
    }

    /// Any binary op (the named methods call this).
    pub fn binary(
        &mut self,
        lhs: Op,
        rhs: Op,
        op: BinaryOp,
        broadcast_dimensions: &[i64],
    ) -> Result<Op> {
        let (ls, rs) = (self.shape_of(lhs)?, self.shape_of(rhs)?);
        let shape = si::infer_binary_op_shape(op, ls, rs, broadcast_dimensions)?;
        // Equal ranks accept `{}` or the identity, which mean the same: keep
        // the canonical empty list.
        let dims = if ls.rank() == rs.rank() {
            Vec::new()
        } else {
            broadcast_dimensions.to_vec()
        };
        Ok(self.push(
            OpKind::Binary {
                op,
                broadcast_dimensions: dims,
            },
            vec![lhs, rhs],
            shape,
            None,
        ))
    }

    binary_methods! {
        /// `lhs + rhs` (wrapping for integers).
        add => BinaryOp::Add;
        /// `lhs - rhs` (wrapping for integers).
        sub => BinaryOp::Sub;
        /// `lhs * rhs` (wrapping for integers).
        mul => BinaryOp::Mul;
        /// `lhs / rhs`; integer division truncates, `x / 0 = -1`.
        div => BinaryOp::Div;
        /// Remainder with the sign of `lhs`; `x % 0 = x`.
        rem => BinaryOp::Rem;
        /// Elementwise maximum.
        max => BinaryOp::Max;
        /// Elementwise minimum.
        min => BinaryOp::Min;
        /// `lhs ^ rhs`.
        pow => BinaryOp::Pow;
        /// `atan2(lhs, rhs)` (floats only).
        atan2 => BinaryOp::Atan2;
        /// Logical (pred) or bitwise (integers) and.
        and => BinaryOp::And;
        /// Logical (pred) or bitwise (integers) or.
        or => BinaryOp::Or;
        /// Logical (pred) or bitwise (integers) xor.
        xor => BinaryOp::Xor;
        /// `lhs << rhs`; shifts of the bit width or more give 0.
        shift_left => BinaryOp::ShiftLeft;
        /// `lhs >> rhs` keeping the sign bit.
        shift_right_arithmetic => BinaryOp::ShiftRightArithmetic;
        /// `lhs >> rhs` shifting in zeros.
        shift_right_logical => BinaryOp::ShiftRightLogical;
        /// `lhs == rhs`, result `pred`.
        eq => BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural);
        /// `lhs != rhs`, result `pred`.
        ne => BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Natural);
        /// `lhs < rhs`, result `pred`.
        lt => BinaryOp::Compare(ComparisonDirection::Lt, ComparisonOrder::Natural);
        /// `lhs <= rhs`, result `pred`.
        le => BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Natural);
        /// `lhs > rhs`, result `pred`.
        gt => BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Natural);
        /// `lhs >= rhs`, result `pred`.
        ge => BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural);
    }

    /// A comparison with the direction as a value, in the element type's
    /// own order (IEEE for floats).
    pub fn compare(
        &mut self,
        lhs: Op,
        rhs: Op,
        direction: ComparisonDirection,
        broadcast_dimensions: &[i64],
    ) -> Result<Op> {
        let op = BinaryOp::Compare(direction, ComparisonOrder::Natural);
        self.binary(lhs, rhs, op, broadcast_dimensions)
    }

    /// A comparison of floats in their total order (XLA's `LtTotalOrder`
    /// and kin, `type=TOTALORDER`): `-NaN < -inf < -0 < +0 < +inf < +NaN`,
    /// and `-0 != +0`. What a sort comparator uses.
    ///
    /// ```
    /// use oxla_ir::{Builder, ComparisonDirection::Lt, ElementType::{F32, S32}, Shape};
    /// let mut b = Builder::new("lt");
    /// let x = b.parameter(0, Shape::new(F32, &[4]), "x")?;
    /// let y = b.parameter(1, Shape::new(F32, &[4]), "y")?;
    /// let lt = b.compare_total_order(x, y, Lt, &[])?;
    /// assert!(b.build(lt)?.to_hlo_text().contains("direction=LT, type=TOTALORDER"));
    /// let i = b.parameter(2, Shape::new(S32, &[4]), "i")?;
    /// assert!(b.compare_total_order(i, i, Lt, &[]).is_err()); // floats only
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn compare_total_order(
        &mut self,
        lhs: Op,
        rhs: Op,
        direction: ComparisonDirection,
        broadcast_dimensions: &[i64],
    ) -> Result<Op> {
        let op = BinaryOp::Compare(direction, ComparisonOrder::Total);
        self.binary(lhs, rhs, op, broadcast_dimensions)
    }

    /// XLA's `Compare` with an explicit comparison type: `ty` must be the
    /// element type's default (`FLOAT`, `SIGNED`, `UNSIGNED`) or, for
    /// floats, `TOTALORDER`, as XLA's verifier requires.
    ///
    /// ```
    /// use oxla_ir::{Builder, ComparisonDirection::Ge, ComparisonType, ElementType::U8, Shape};
    /// let mut b = Builder::new("ge");
    /// let x = b.parameter(0, Shape::new(U8, &[2]), "x")?;
    /// b.compare_with_type(x, x, Ge, ComparisonType::Unsigned, &[])?;
    /// let err = b.compare_with_type(x, x, Ge, ComparisonType::Signed, &[]).unwrap_err();
    /// assert!(err.to_string().contains("Expected comparison type UNSIGNED."));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn compare_with_type(
        &mut self,
        lhs: Op,
        rhs: Op,
        direction: ComparisonDirection,
        ty: ComparisonType,
        broadcast_dimensions: &[i64],
    ) -> Result<Op> {
        let order = si::comparison_order(ty, self.shape_of(rhs)?)?;
        self.binary(
            lhs,
            rhs,
            BinaryOp::Compare(direction, order),
            broadcast_dimensions,
        )
    }

    unary_methods! {
        /// `-x`.
        neg => UnaryOp::Neg;
        /// `|x|`.
        abs => UnaryOp::Abs;
        /// -1, 0 or 1 by the sign of `x`.
        sign => UnaryOp::Sign;
        /// `e^x`.
        exp => UnaryOp::Exp;
        /// `e^x - 1`.
        expm1 => UnaryOp::Expm1;
        /// `ln x`.
        log => UnaryOp::Log;
        /// `ln(1 + x)`.
        log1p => UnaryOp::Log1p;
        /// `sqrt x`.
        sqrt => UnaryOp::Sqrt;
        /// `1 / sqrt x`.
        rsqrt => UnaryOp::Rsqrt;
        /// `tanh x`.
        tanh => UnaryOp::Tanh;
        /// `1 / (1 + e^-x)`.
        logistic => UnaryOp::Logistic;
        /// `sin x`.
        sin => UnaryOp::Sin;
        /// `cos x`.
        cos => UnaryOp::Cos;
        /// Round toward -inf.
        floor => UnaryOp::Floor;
        /// Round toward +inf.
        ceil => UnaryOp::Ceil;
        /// Round to nearest, ties to even.
        round_nearest_even => UnaryOp::RoundNearestEven;
        /// Logical not (pred) or bitwise not (integers).
        not => UnaryOp::Not;
        /// `true` where `x` is neither infinite nor NaN.
        is_finite => UnaryOp::IsFinite;
    }

    /// Converts elements to `element_type` (floats to integers truncate
    /// toward zero and saturate; NaN becomes 0).
    pub fn convert(&mut self, operand: Op, element_type: ElementType) -> Result<Op> {
        let shape = si::infer_convert_shape(self.shape_of(operand)?, element_type)?;
        Ok(self.push(OpKind::Convert, vec![operand], shape, None))
    }

    /// `pred ? on_true : on_false`, elementwise; a scalar operand broadcasts.
    pub fn select(&mut self, pred: Op, on_true: Op, on_false: Op) -> Result<Op> {
        let shape = si::infer_select_shape(
            self.shape_of(pred)?,
            self.shape_of(on_true)?,
            self.shape_of(on_false)?,
        )?;
        Ok(self.push(OpKind::Select, vec![pred, on_true, on_false], shape, None))
    }

    /// `min(max(operand, min), max)`; `min`/`max` may be scalars.
    pub fn clamp(&mut self, min: Op, operand: Op, max: Op) -> Result<Op> {
        let shape = si::infer_clamp_shape(
            self.shape_of(min)?,
            self.shape_of(operand)?,
            self.shape_of(max)?,
        )?;
        Ok(self.push(OpKind::Clamp, vec![min, operand, max], shape, None))
    }

    /// XLA's `Broadcast`: prepends `sizes` as new major dimensions.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("bc");
    /// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    /// let y = b.broadcast(x, &[2, 4])?;
    /// assert_eq!(b.shape(y)?.to_string(), "f32[2,4,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn broadcast(&mut self, operand: Op, sizes: &[i64]) -> Result<Op> {
        let os = self.shape_of(operand)?;
        let shape = si::infer_broadcast_shape(os, sizes)?;
        let n = sizes.len() as i64;
        let dimensions = (n..n + os.rank() as i64).collect();
        Ok(self.push(OpKind::Broadcast { dimensions }, vec![operand], shape, None))
    }

    /// XLA's `BroadcastInDim`: operand dim `i` becomes output dim
    /// `broadcast_dimensions[i]` (equal size, or 1 which stretches).
    pub fn broadcast_in_dim(
        &mut self,
        operand: Op,
        out_dims: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<Op> {
        let shape = si::infer_broadcast_in_dim_shape(
            self.shape_of(operand)?,
            out_dims,
            broadcast_dimensions,
        )?;
        Ok(self.push(
            OpKind::Broadcast {
                dimensions: broadcast_dimensions.to_vec(),
            },
            vec![operand],
            shape,
            None,
        ))
    }

    /// Row-major reshape to `new_dims` (same element count).
    pub fn reshape(&mut self, operand: Op, new_dims: &[i64]) -> Result<Op> {
        let shape = si::infer_reshape_shape(self.shape_of(operand)?, new_dims)?;
        Ok(self.push(OpKind::Reshape, vec![operand], shape, None))
    }

    /// Permutes dimensions: output dim `i` is operand dim `permutation[i]`.
    pub fn transpose(&mut self, operand: Op, permutation: &[i64]) -> Result<Op> {
        let shape = si::infer_transpose_shape(self.shape_of(operand)?, permutation)?;
        Ok(self.push(
            OpKind::Transpose {
                permutation: permutation.to_vec(),
            },
            vec![operand],
            shape,
            None,
        ))
    }

    /// A strided slice `[start, limit)` with `stride` per dimension.
    pub fn slice(
        &mut self,
        operand: Op,
        starts: &[i64],
        limits: &[i64],
        strides: &[i64],
    ) -> Result<Op> {
        let shape = si::infer_slice_shape(self.shape_of(operand)?, starts, limits, strides)?;
        Ok(self.push(
            OpKind::Slice {
                starts: starts.to_vec(),
                limits: limits.to_vec(),
                strides: strides.to_vec(),
            },
            vec![operand],
            shape,
            None,
        ))
    }

    /// Joins `operands` along `dimension`.
    pub fn concatenate(&mut self, operands: &[Op], dimension: i64) -> Result<Op> {
        let shapes = operands
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let shape = si::infer_concatenate_shape(&shapes, dimension)?;
        Ok(self.push(
            OpKind::Concatenate { dimension },
            operands.to_vec(),
            shape,
            None,
        ))
    }

    /// Reverses the order of elements along `dimensions`.
    pub fn reverse(&mut self, operand: Op, dimensions: &[i64]) -> Result<Op> {
        let shape = si::infer_reverse_shape(self.shape_of(operand)?, dimensions)?;
        Ok(self.push(
            OpKind::Reverse {
                dimensions: dimensions.to_vec(),
            },
            vec![operand],
            shape,
            None,
        ))
    }

    /// Pads with `padding_value` (a scalar): `config[i]` for dimension `i`.
    pub fn pad(&mut self, operand: Op, padding_value: Op, config: &[PadDim]) -> Result<Op> {
        let shape = si::infer_pad_shape(
            self.shape_of(operand)?,
            self.shape_of(padding_value)?,
            config,
        )?;
        Ok(self.push(
            OpKind::Pad {
                config: config.to_vec(),
            },
            vec![operand, padding_value],
            shape,
            None,
        ))
    }

    /// Folds `reducer` (a computation `(T[], T[]) -> T[]`, e.g. built by
    /// another builder) over `dimensions`, starting from `init`.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut r = Builder::new("sum");
    /// let (a, c) = (r.parameter(0, Shape::scalar(F32), "a")?, r.parameter(1, Shape::scalar(F32), "c")?);
    /// let s = r.add(a, c, &[])?;
    /// let sum = r.build(s)?;
    /// let mut b = Builder::new("rowsum");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    /// let zero = b.constant_scalar(0f32)?;
    /// let y = b.reduce(x, zero, &[1], &sum)?;
    /// assert_eq!(b.shape(y)?.to_string(), "f32[2]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn reduce(
        &mut self,
        operand: Op,
        init: Op,
        dimensions: &[i64],
        reducer: &Computation,
    ) -> Result<Op> {
        // The reducer comes from the caller: an unverified one (no bodies,
        // a root out of range) is refused before it is read.
        crate::verifier::verify(reducer)?;
        let entry = reducer.entry();
        let shape = si::infer_reduce_shape(
            self.shape_of(operand)?,
            self.shape_of(init)?,
            dimensions,
            &entry.parameter_shapes(),
            entry.result_shape(),
        )?;
        let to_apply = self.import(reducer)?;
        Ok(self.push(
            OpKind::Reduce {
                dimensions: dimensions.to_vec(),
                to_apply,
            },
            vec![operand, init],
            shape,
            None,
        ))
    }

    /// Copies `comp`'s bodies into this builder's called bodies (once per
    /// distinct body), renaming on clashes, and returns the id its entry
    /// will have. `comp` must be verified (called bodies come before their
    /// callers).
    fn import(&mut self, comp: &Computation) -> Result<ComputationId> {
        let mut remap: Vec<ComputationId> = Vec::with_capacity(comp.bodies().len());
        for body in comp.bodies() {
            let mut body = body.clone();
            for inst in &mut body.instructions {
                for id in inst.kind.called_computations_mut() {
                    *id = remap[id.index()];
                }
            }
            let id = match self.called.iter().position(|b| *b == body) {
                Some(i) => ComputationId(i as u32),
                None => {
                    let taken: HashSet<&str> =
                        self.called.iter().map(|b| b.name.as_str()).collect();
                    let base = body.name.clone();
                    let mut k = 1;
                    while taken.contains(body.name.as_str()) || body.name == self.name {
                        body.name = format!("{base}.{k}");
                        k += 1;
                    }
                    self.called.push(body);
                    ComputationId(self.called.len() as u32 - 1)
                }
            };
            remap.push(id);
        }
        remap.last().copied().ok_or_else(|| Error::InvalidOp {
            op: "reduce".into(),
            problem: crate::OpProblem::ReducerWithoutEntry {
                reducer: comp.name().to_string(),
            },
        })
    }

    /// XLA's `DotGeneral`.
    pub fn dot_general(&mut self, lhs: Op, rhs: Op, dims: &DotDimensionNumbers) -> Result<Op> {
        let shape = si::infer_dot_general_shape(self.shape_of(lhs)?, self.shape_of(rhs)?, dims)?;
        Ok(self.push(
            OpKind::DotGeneral { dims: dims.clone() },
            vec![lhs, rhs],
            shape,
            None,
        ))
    }

    /// XLA's `DotGeneral` with a preferred result type: `bf16 x bf16 -> f32`
    /// (each product and sum in `f32`), `s8 x s8 -> s32`, or a narrower
    /// float (`f32 x f32 -> bf16`, computed in `f32` and rounded). See
    /// [`si::infer_dot_general_shape_with_type`] for the types allowed.
    ///
    /// ```
    /// use oxla_ir::{Builder, DotDimensionNumbers, ElementType::{Bf16, F32}, Shape};
    /// let mut b = Builder::new("mixed");
    /// let x = b.parameter(0, Shape::new(Bf16, &[2, 3]), "x")?;
    /// let y = b.parameter(1, Shape::new(Bf16, &[3, 4]), "y")?;
    /// let dims = DotDimensionNumbers { lhs_contracting: vec![1], rhs_contracting: vec![0], ..Default::default() };
    /// let d = b.dot_general_with_type(x, y, &dims, F32)?;
    /// assert_eq!(b.shape(d)?.to_string(), "f32[2,4]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn dot_general_with_type(
        &mut self,
        lhs: Op,
        rhs: Op,
        dims: &DotDimensionNumbers,
        result: ElementType,
    ) -> Result<Op> {
        let shape = si::infer_dot_general_shape_with_type(
            self.shape_of(lhs)?,
            self.shape_of(rhs)?,
            dims,
            Some(result),
        )?;
        Ok(self.push(
            OpKind::DotGeneral { dims: dims.clone() },
            vec![lhs, rhs],
            shape,
            None,
        ))
    }

    /// XLA's `Dot`: vector/matrix products contracting the last dimension of
    /// `lhs` with the first of `rhs`.
    pub fn dot(&mut self, lhs: Op, rhs: Op) -> Result<Op> {
        let dims = si::dot_dimension_numbers(self.shape_of(lhs)?, self.shape_of(rhs)?)?;
        self.dot_general(lhs, rhs, &dims)
    }

    /// XLA's `Sort`: sorts `operands` (arrays of the same dims; element
    /// types may differ) together along `dimension`, ordered by
    /// `comparator`, a computation `(a_0, b_0, a_1, b_1, ...) -> pred[]`
    /// (scalars, two per operand) that is true when element `a` must come
    /// before `b`. One operand gives an array, several a tuple. The sort is
    /// always stable; `is_stable` is kept for the text.
    ///
    /// ```
    /// use oxla_ir::{Builder, ComparisonDirection::Lt, ElementType::{F32, S32}, Shape};
    /// let mut c = Builder::new("lt");
    /// let a = c.parameter(0, Shape::scalar(F32), "a")?;
    /// let b = c.parameter(1, Shape::scalar(F32), "b")?;
    /// c.parameter(2, Shape::scalar(S32), "i")?;
    /// c.parameter(3, Shape::scalar(S32), "j")?;
    /// let lt = c.compare_total_order(a, b, Lt, &[])?;
    /// let lt = c.build(lt)?;
    /// let mut b = Builder::new("argsort");
    /// let x = b.parameter(0, Shape::new(F32, &[5]), "x")?;
    /// let iota = b.iota(Shape::new(S32, &[5]), 0)?;
    /// let s = b.sort(&[x, iota], 0, true, &lt)?;
    /// assert_eq!(b.shape(s)?.to_string(), "(f32[5], s32[5])");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn sort(
        &mut self,
        operands: &[Op],
        dimension: i64,
        is_stable: bool,
        comparator: &Computation,
    ) -> Result<Op> {
        // The comparator comes from the caller: verified before it is read.
        crate::verifier::verify(comparator)?;
        let shapes = operands
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let entry = comparator.entry();
        let shape = si::infer_sort_shape(
            &shapes,
            dimension,
            &entry.parameter_shapes(),
            entry.result_shape(),
        )?;
        let to_apply = self.import(comparator)?;
        Ok(self.push(
            OpKind::Sort {
                dimension,
                is_stable,
                to_apply,
            },
            operands.to_vec(),
            shape,
            None,
        ))
    }

    /// XLA's `TopK`: the tuple `(values, s32 indices)` of the `k` largest
    /// (`largest`) or smallest elements of each row of `operand`'s last
    /// dimension, in order; ties keep the lower index first, and under the
    /// total order `+NaN` is the largest value and `-NaN` the smallest.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("top2");
    /// let x = b.parameter(0, Shape::new(F32, &[3, 8]), "x")?;
    /// let t = b.top_k(x, 2, true)?;
    /// assert_eq!(b.shape(t)?.to_string(), "(f32[3,2], s32[3,2])");
    /// assert!(b.top_k(x, 9, true).is_err()); // k > 8
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn top_k(&mut self, operand: Op, k: i64, largest: bool) -> Result<Op> {
        let shape = si::infer_topk_shape(self.shape_of(operand)?, k)?;
        Ok(self.push(OpKind::TopK { k, largest }, vec![operand], shape, None))
    }

    /// A tuple of values (as a computation's root, it returns several
    /// results).
    pub fn tuple(&mut self, elements: &[Op]) -> Result<Op> {
        let shapes = elements
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let shape = si::infer_tuple_shape(&shapes);
        Ok(self.push(OpKind::Tuple, elements.to_vec(), shape, None))
    }

    // -- indexing ------------------------------------------------------------

    /// XLA's `Gather`: slices of `slice_sizes` of `operand` at the starts
    /// held by `start_indices` (see [`GatherDimensionNumbers`]). Each start
    /// is clamped so that its slice lies inside the operand.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, GatherDimensionNumbers, Shape};
    /// // An embedding lookup, `table[ids]`.
    /// let mut b = Builder::new("embed");
    /// let table = b.parameter(0, Shape::new(F32, &[10, 3]), "table")?;
    /// let ids = b.parameter(1, Shape::new(S32, &[5]), "ids")?;
    /// let dims = GatherDimensionNumbers {
    ///     offset_dims: vec![1],
    ///     collapsed_slice_dims: vec![0],
    ///     start_index_map: vec![0],
    ///     index_vector_dim: 1,
    ///     ..Default::default()
    /// };
    /// let rows = b.gather(table, ids, &dims, &[1, 3], false)?;
    /// assert_eq!(b.shape(rows)?.to_string(), "f32[5,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn gather(
        &mut self,
        operand: Op,
        start_indices: Op,
        dims: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<Op> {
        let shape = si::infer_gather_shape(
            self.shape_of(operand)?,
            self.shape_of(start_indices)?,
            dims,
            slice_sizes,
        )?;
        Ok(self.push(
            OpKind::Gather {
                dims: dims.clone(),
                slice_sizes: slice_sizes.to_vec(),
                indices_are_sorted,
            },
            vec![operand, start_indices],
            shape,
            None,
        ))
    }

    /// XLA's (variadic) `Scatter`: `inputs` with every window of `updates`
    /// combined into place by `update_computation` (a computation
    /// `(cur_0..cur_{N-1}, upd_0..upd_{N-1}) -> new`, a tuple for N > 1) at
    /// the starts held by `scatter_indices` (see [`ScatterDimensionNumbers`]).
    /// A window that would reach outside the inputs is skipped whole. The
    /// result is the input (N = 1) or a tuple of the N inputs.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, ScatterDimensionNumbers, Shape};
    /// let mut add = Builder::new("add");
    /// let (p, q) = (add.parameter(0, Shape::scalar(F32), "p")?, add.parameter(1, Shape::scalar(F32), "q")?);
    /// let sum = add.add(p, q, &[])?;
    /// let add = add.build(sum)?;
    /// // x.at[idx].add(u)
    /// let mut b = Builder::new("scatter_add");
    /// let x = b.parameter(0, Shape::new(F32, &[6]), "x")?;
    /// let idx = b.parameter(1, Shape::new(S32, &[4]), "idx")?;
    /// let u = b.parameter(2, Shape::new(F32, &[4]), "u")?;
    /// let dims = ScatterDimensionNumbers {
    ///     inserted_window_dims: vec![0],
    ///     scatter_dims_to_operand_dims: vec![0],
    ///     index_vector_dim: 1,
    ///     ..Default::default()
    /// };
    /// let y = b.scatter(&[x], idx, &[u], &add, &dims, false, false)?;
    /// assert_eq!(b.shape(y)?.to_string(), "f32[6]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &mut self,
        inputs: &[Op],
        scatter_indices: Op,
        updates: &[Op],
        update_computation: &Computation,
        dims: &ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
    ) -> Result<Op> {
        // The computation comes from the caller: refuse an unverified one
        // before reading it.
        crate::verifier::verify(update_computation)?;
        let mut operands: Vec<Op> = inputs.to_vec();
        operands.push(scatter_indices);
        operands.extend_from_slice(updates);
        let shapes = operands
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let entry = update_computation.entry();
        let shape = si::infer_scatter_shape(
            &shapes,
            dims,
            &entry.parameter_shapes(),
            entry.result_shape(),
        )?;
        let to_apply = self.import(update_computation)?;
        Ok(self.push(
            OpKind::Scatter {
                dims: dims.clone(),
                indices_are_sorted,
                unique_indices,
                to_apply,
            },
            operands,
            shape,
            None,
        ))
    }

    /// XLA's `DynamicSlice`: a slice of `slice_sizes` starting at the scalar
    /// `start_indices` (one per dimension, all of one integer type), each
    /// clamped to `[0, dim - size]` so the slice lies inside the operand.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, Shape};
    /// let mut b = Builder::new("window");
    /// let x = b.parameter(0, Shape::new(F32, &[4, 4]), "x")?;
    /// let i = b.parameter(1, Shape::scalar(S32), "i")?;
    /// let one = b.constant_scalar(1i32)?;
    /// let w = b.dynamic_slice(x, &[i, one], &[2, 2])?;
    /// assert_eq!(b.shape(w)?.to_string(), "f32[2,2]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn dynamic_slice(
        &mut self,
        operand: Op,
        start_indices: &[Op],
        slice_sizes: &[i64],
    ) -> Result<Op> {
        let indices = start_indices
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let shape = si::infer_dynamic_slice_shape(self.shape_of(operand)?, &indices, slice_sizes)?;
        let mut operands = vec![operand];
        operands.extend_from_slice(start_indices);
        Ok(self.push(
            OpKind::DynamicSlice {
                slice_sizes: slice_sizes.to_vec(),
            },
            operands,
            shape,
            None,
        ))
    }

    /// XLA's `DynamicUpdateSlice`: `operand` with `update` written at the
    /// scalar `start_indices`, each clamped to `[0, dim - update_dim]` so
    /// the update lies inside the operand.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::{F32, S32}, Shape};
    /// // A KV-cache write: one row at position `pos`.
    /// let mut b = Builder::new("cache_write");
    /// let cache = b.parameter(0, Shape::new(F32, &[8, 4]), "cache")?;
    /// let row = b.parameter(1, Shape::new(F32, &[1, 4]), "row")?;
    /// let pos = b.parameter(2, Shape::scalar(S32), "pos")?;
    /// let zero = b.constant_scalar(0i32)?;
    /// let c = b.dynamic_update_slice(cache, row, &[pos, zero])?;
    /// assert_eq!(b.shape(c)?.to_string(), "f32[8,4]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn dynamic_update_slice(
        &mut self,
        operand: Op,
        update: Op,
        start_indices: &[Op],
    ) -> Result<Op> {
        let indices = start_indices
            .iter()
            .map(|&o| self.shape_of(o))
            .collect::<Result<Vec<_>>>()?;
        let shape = si::infer_dynamic_update_slice_shape(
            self.shape_of(operand)?,
            self.shape_of(update)?,
            &indices,
        )?;
        let mut operands = vec![operand, update];
        operands.extend_from_slice(start_indices);
        Ok(self.push(OpKind::DynamicUpdateSlice, operands, shape, None))
    }

    /// Finishes the computation with `root` as its result, and verifies it.
    /// The builder stays usable (another `build` may pick another root).
    pub fn build(&self, root: Op) -> Result<Computation> {
        self.check(root)?;
        let count = self.parameter_numbers.len() as i64;
        if let Some(missing) = (0..count).find(|n| !self.parameter_numbers.contains_key(n)) {
            let mut numbers: Vec<i64> = self.parameter_numbers.keys().copied().collect();
            numbers.sort();
            return Err(Error::InvalidParameter {
                message: format!(
                    "parameters of `{}` must be numbered 0..{count} without gaps, but have numbers {:?}; number {missing} is missing.",
                    self.name, numbers
                ),
            });
        }
        let mut bodies = self.called.clone();
        bodies.push(Body {
            name: self.name.clone(),
            instructions: self.instructions.clone(),
            root: root.inst_id(),
        });
        Computation::from_bodies(self.name.clone(), bodies)
    }
}

/// `true` for names the HLO text can carry unquoted.
pub(crate) fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

fn sanitize_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    s
}
