//! TML broadcasting, lowered to the strict IR.
//!
//! TML has different rules for different kinds of operation, and nested
//! tensor types ([`TmlType`]): `tensor<tensor<int, 3>, 3>` ("3x(3)") is not
//! `tensor<int, 3, 3>` ("3x3"), and broadcasting applies per nesting level.
//!
//! * **Arithmetic** ([`Tml::add`], `sub`, `mul`, `div`, `rem`, `pow`,
//!   `max`, `min`): within each nesting level, dims of length 1 are added
//!   on the left and dims of length 1 stretch, as in NumPy; a scalar
//!   broadcasts into every level.
//!
//!   ```text
//!   tensor<int, 3>        a:      3         [1, 2, 3]
//!   tensor<int, 3, 1>     b:  3 x 1         [1; 2; 3]
//!   ---------------------------------
//!   tensor<int, 3, 3>     a + b:  3 x 3     [2, 3, 4; 3, 4, 5; 4, 5, 6]
//!   ```
//!
//! * **Relational** (`eq` ... `ge`, numeric roots), **logical**
//!   (`logical_and/or/xor`, `bool`) and **bitwise** (`bitwise_and/or/xor`,
//!   unsigned): only a scalar with a tensor, or two tensors of the same
//!   dims at every nesting level. No element is ever added implicitly.
//! * **Assignment** ([`Tml::assign`], [`check_assign`]): the value
//!   broadcasts to the target's type without changing it.
//! * **Narrowcasting** ([`TmlType::narrow`], [`Tml::narrow`]): drops the
//!   top-level dims of length 1; never fails.
//! * **Index access broadcasting** ([`get`], [`set`] on literals;
//!   [`Tml::get`], [`Tml::set`] in the IR): any index on a dimension of
//!   length 1, any number of indices past the last dimension, bounds
//!   checks elsewhere.
//!
//! # Lowering
//!
//! A TML value is an oxla op holding the flat array (outer dims, then
//! inner dims) together with its [`TmlType`] ([`Value`]). Per-level
//! broadcasting becomes `broadcast_dimensions` on the flat shape: each
//! operand's dims at each level map right-aligned onto the result's dims at
//! that level. When neither operand has the result's flat rank (possible
//! only with nesting), one is first broadcast to the result's dims with
//! an explicit `broadcast`.
//!
//! ```text
//! tensor<int, 3, 3, 3>          3 x 3 x 3              -> dims {0,1,2}
//! tensor<tensor<int, 3, 3>, 3>          3 x (3 x 3)    -> dims {2,3,4}
//! ------------------------------------------------
//! tensor<tensor<int, 3, 3>, 3, 3, 3>    3 x 3 x 3 x (3 x 3)
//! ```
//!
//! # Readings of the specification
//!
//! * "Result of broadcasting is a tensor ... with bool as root scalar
//!   type" closes the section on logical, relational *and* bitwise
//!   operations. We apply it to relational and logical operations; a
//!   bitwise operation keeps its unsigned root type, since its result is
//!   the bitwise combination, which a bool cannot hold. The shape rule
//!   (scalar with tensor, or the same dims at every level) applies to all
//!   three.
//! * "Scalar/root scalar type must be compatible" and TML's type inference
//!   become *equal root types*: oxla converts no types implicitly.
//! * Negative indices are refused everywhere, including on dimensions of
//!   length 1 and on scalars; strings and chars have no oxla type.
//! * Narrowcasting's `int a = 1; b = narrow(b)` is read as `narrow(a)`.

mod index;
mod types;

pub use index::{get, set};
pub use types::{TmlType, check_assign, infer_binary_type};

use oxla_ir::{BinaryOp, Builder, ComparisonDirection, ComparisonOrder, Literal, Op, Result};

use crate::lower::{internal, place};
use index::{iab_positions, index_text};
use types::{check_assign_as, flat_mapping, invalid};

/// The kinds of binary operation TML broadcasts differently.
///
/// ```
/// use oxla_client::tml::{OpClass, TmlOp};
/// assert_eq!(TmlOp::Ge.class(), OpClass::Relational);
/// assert_eq!(OpClass::Bitwise.name(), "bitwise");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// `+ - * / % ^`, max, min: per-level NumPy broadcasting.
    Arithmetic,
    /// Comparisons of numeric values; result `bool`.
    Relational,
    /// `and`, `or`, `xor` of `bool`s; result `bool`.
    Logical,
    /// `and`, `or`, `xor` of unsigned integers, bit by bit.
    Bitwise,
}

impl OpClass {
    /// `arithmetic`, `relational`, `logical`, `bitwise`.
    pub fn name(self) -> &'static str {
        match self {
            OpClass::Arithmetic => "arithmetic",
            OpClass::Relational => "relational",
            OpClass::Logical => "logical",
            OpClass::Bitwise => "bitwise",
        }
    }
}

macro_rules! tml_ops {
    ($($(#[$m:meta])* $variant:ident => $name:ident, $class:ident, $core:expr, $root:literal;)*) => {
        /// The binary operations of TML: the one table of their names,
        /// classes and core ops.
        ///
        /// ```
        /// use oxla_client::tml::{OpClass, TmlOp};
        /// use oxla_ir::BinaryOp;
        /// assert_eq!(TmlOp::ALL.len(), 20);
        /// assert_eq!(TmlOp::BitwiseAnd.name(), "bitwise_and");
        /// assert_eq!(TmlOp::BitwiseAnd.class(), OpClass::Bitwise);
        /// assert_eq!(TmlOp::BitwiseAnd.core(), BinaryOp::And);
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum TmlOp {
            $($(#[$m])* $variant,)*
        }

        impl TmlOp {
            /// Every op, in table order.
            pub const ALL: &'static [TmlOp] = &[$(TmlOp::$variant),*];

            /// The name, as the [`Tml`] method: `add`, `gt`, `logical_and`.
            pub fn name(self) -> &'static str {
                match self { $(TmlOp::$variant => stringify!($name)),* }
            }

            /// Which broadcasting rules apply.
            pub fn class(self) -> OpClass {
                match self { $(TmlOp::$variant => OpClass::$class),* }
            }

            /// The core op it lowers to.
            pub fn core(self) -> BinaryOp {
                match self { $(TmlOp::$variant => $core),* }
            }
        }

        impl<'a> Tml<'a> {
            $(
                #[doc = concat!(
                    "`", stringify!($name), "` (", stringify!($class),
                    "): [`Tml::binary`] with [`TmlOp::", stringify!($variant), "`].\n\n",
                    "```\n",
                    "use oxla_client::tml::{Tml, TmlType};\n",
                    "use oxla_ir::{Builder, ElementType};\n",
                    "let root = TmlType::Scalar(ElementType::from_name(\"", $root, "\").unwrap());\n",
                    "let mut b = Builder::new(\"", stringify!($name), "\");\n",
                    "let mut tml = Tml::new(&mut b);\n",
                    "let x = tml.parameter(0, TmlType::tensor(root.clone(), &[2, 3]), \"x\")?;\n",
                    "let s = tml.parameter(1, root, \"s\")?;\n",
                    "let y = tml.", stringify!($name), "(&x, &s)?;\n",
                    "assert_eq!(y.ty().flat_dims(), vec![2, 3]);\n",
                    "# Ok::<(), oxla_ir::Error>(())\n",
                    "```"
                )]
                pub fn $name(&mut self, lhs: &Value, rhs: &Value) -> Result<Value> {
                    self.binary(TmlOp::$variant, lhs, rhs)
                }
            )*
        }
    };
}

tml_ops! {
    /// `+`.
    Add => add, Arithmetic, BinaryOp::Add, "f64";
    /// `-`.
    Sub => sub, Arithmetic, BinaryOp::Sub, "f64";
    /// `*`, elementwise.
    Mul => mul, Arithmetic, BinaryOp::Mul, "f64";
    /// `/`.
    Div => div, Arithmetic, BinaryOp::Div, "f64";
    /// `%`.
    Rem => rem, Arithmetic, BinaryOp::Rem, "f64";
    /// `^`.
    Pow => pow, Arithmetic, BinaryOp::Pow, "f64";
    /// Elementwise maximum.
    Max => max, Arithmetic, BinaryOp::Max, "s64";
    /// Elementwise minimum.
    Min => min, Arithmetic, BinaryOp::Min, "s64";
    /// `==`.
    Eq => eq, Relational, BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural), "s64";
    /// `!=`.
    Ne => ne, Relational, BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Natural), "s64";
    /// `<`.
    Lt => lt, Relational, BinaryOp::Compare(ComparisonDirection::Lt, ComparisonOrder::Natural), "f64";
    /// `<=`.
    Le => le, Relational, BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Natural), "f64";
    /// `>`.
    Gt => gt, Relational, BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Natural), "u64";
    /// `>=`.
    Ge => ge, Relational, BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural), "u64";
    /// Logical and of `bool`s.
    LogicalAnd => logical_and, Logical, BinaryOp::And, "pred";
    /// Logical or of `bool`s.
    LogicalOr => logical_or, Logical, BinaryOp::Or, "pred";
    /// Logical xor of `bool`s.
    LogicalXor => logical_xor, Logical, BinaryOp::Xor, "pred";
    /// Bitwise and of unsigned integers.
    BitwiseAnd => bitwise_and, Bitwise, BinaryOp::And, "u64";
    /// Bitwise or of unsigned integers.
    BitwiseOr => bitwise_or, Bitwise, BinaryOp::Or, "u32";
    /// Bitwise xor of unsigned integers.
    BitwiseXor => bitwise_xor, Bitwise, BinaryOp::Xor, "u8";
}

/// A TML value in a computation being built: the op holding its flat
/// array, and its TML type.
///
/// ```
/// use oxla_client::tml::{Tml, TmlType};
/// use oxla_ir::Builder;
/// let mut b = Builder::new("value");
/// let ty = TmlType::tensor(TmlType::tensor(TmlType::INT, &[3]), &[2]);
/// let v = Tml::new(&mut b).parameter(0, ty.clone(), "v")?;
/// assert_eq!(v.ty(), &ty);
/// assert_eq!(b.shape(v.op())?.to_string(), "s64[2,3]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    op: Op,
    ty: TmlType,
}

impl Value {
    /// The op holding the flat array (outer dims, then inner dims).
    pub fn op(&self) -> Op {
        self.op
    }

    /// The TML type.
    pub fn ty(&self) -> &TmlType {
        &self.ty
    }
}

/// TML-style broadcasting over a [`Builder`]: typed values in, explicit
/// core ops out.
///
/// ```
/// use oxla_client::tml::{Tml, TmlType};
/// use oxla_ir::{Builder, Literal};
/// let mut b = Builder::new("tml");
/// let mut tml = Tml::new(&mut b);
/// let a = tml.constant(TmlType::tensor(TmlType::INT, &[3]), Literal::from_vec(&[3], vec![1i64, 2, 3])?)?;
/// let col = tml.constant(TmlType::tensor(TmlType::INT, &[3, 1]), Literal::from_vec(&[3, 1], vec![1i64, 2, 3])?)?;
/// let c = tml.add(&a, &col)?;
/// assert_eq!(c.ty().to_string(), "tensor<int, 3, 3>");
/// let text = b.build(c.op())?.to_hlo_text();
/// assert!(text.contains("broadcast_dimensions={1}"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Debug)]
pub struct Tml<'a> {
    b: &'a mut Builder,
}

impl<'a> Tml<'a> {
    /// Wraps `b`; ops go into it, and `b` is usable again once the `Tml`
    /// is no longer used.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("new");
    /// let x = Tml::new(&mut b).parameter(0, TmlType::REAL, "x")?;
    /// let comp = b.build(x.op())?;
    /// assert_eq!(comp.result_shape().to_string(), "f64[]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn new(b: &'a mut Builder) -> Tml<'a> {
        Tml { b }
    }

    /// The wrapped builder, for ops outside the TML rules.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("builder");
    /// let mut tml = Tml::new(&mut b);
    /// let x = tml.parameter(0, TmlType::tensor(TmlType::REAL, &[2]), "x")?;
    /// let e = tml.builder().exp(x.op())?;
    /// let e = tml.value(e, x.ty().clone())?;
    /// let y = tml.mul(&e, &x)?;
    /// assert_eq!(y.ty(), x.ty());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn builder(&mut self) -> &mut Builder {
        self.b
    }

    /// A parameter of type `ty` (its flat shape in the computation).
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("p");
    /// let nested = TmlType::tensor(TmlType::tensor(TmlType::REAL, &[3]), &[2]);
    /// let x = Tml::new(&mut b).parameter(0, nested, "x")?;
    /// assert_eq!(b.shape(x.op())?.to_string(), "f64[2,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn parameter(&mut self, number: i64, ty: TmlType, name: &str) -> Result<Value> {
        ty.validate()?;
        let op = self.b.parameter(number, ty.flat_shape(), name)?;
        Ok(Value { op, ty })
    }

    /// A constant of type `ty` from a literal of its flat shape.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::{Builder, Literal};
    /// let mut b = Builder::new("c");
    /// let mut tml = Tml::new(&mut b);
    /// let ty = TmlType::tensor(TmlType::REAL, &[1, 2]);
    /// tml.constant(ty.clone(), Literal::from_vec(&[1, 2], vec![3.0f64, 4.0])?)?;
    /// assert!(tml.constant(ty, Literal::from_vec(&[2], vec![3.0f64, 4.0])?).is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn constant(&mut self, ty: TmlType, literal: Literal) -> Result<Value> {
        ty.validate()?;
        if literal.shape() != &ty.flat_shape() {
            return Err(invalid(
                "constant",
                format!(
                    "a constant of type {ty} needs a literal of shape {}, but got {}.",
                    ty.flat_shape(),
                    literal.shape()
                ),
            ));
        }
        let op = self.b.constant(literal)?;
        Ok(Value { op, ty })
    }

    /// Gives an op of the builder the TML type `ty`, whose flat shape it
    /// must have.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::{Builder, ElementType::S64, Shape};
    /// let mut b = Builder::new("v");
    /// let x = b.parameter(0, Shape::new(S64, &[3, 3]), "x")?;
    /// let tml = Tml::new(&mut b);
    /// let flat = tml.value(x, TmlType::tensor(TmlType::INT, &[3, 3]))?;
    /// let nested = tml.value(x, TmlType::tensor(TmlType::tensor(TmlType::INT, &[3]), &[3]))?;
    /// assert_ne!(flat.ty(), nested.ty());
    /// assert!(tml.value(x, TmlType::tensor(TmlType::INT, &[9])).is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn value(&self, op: Op, ty: TmlType) -> Result<Value> {
        ty.validate()?;
        let shape = self.b.shape(op)?;
        if shape != ty.flat_shape() {
            return Err(invalid(
                "value",
                format!(
                    "the type {ty} needs an op of shape {}, but the op has shape {shape}.",
                    ty.flat_shape()
                ),
            ));
        }
        Ok(Value { op, ty })
    }

    /// Any TML binary op: [`infer_binary_type`] decides the result type,
    /// then the core op is emitted with the per-level mapping as its
    /// `broadcast_dimensions` (after an explicit `broadcast` of the left
    /// operand when neither operand has the result's flat rank).
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlOp, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("bin");
    /// let mut tml = Tml::new(&mut b);
    /// let flat = tml.parameter(0, TmlType::tensor(TmlType::INT, &[3, 3, 3]), "flat")?;
    /// let nested = tml.parameter(1, TmlType::tensor(TmlType::tensor(TmlType::INT, &[3, 3]), &[3]), "nested")?;
    /// let sum = tml.binary(TmlOp::Add, &flat, &nested)?;
    /// assert_eq!(sum.ty().flat_dims(), vec![3, 3, 3, 3, 3]);
    /// assert!(tml.binary(TmlOp::Eq, &flat, &nested).is_err());
    /// let text = b.build(sum.op())?.to_hlo_text();
    /// assert!(text.contains("broadcast(flat), dimensions={0,1,2}"));
    /// assert!(text.contains("broadcast_dimensions={2,3,4}"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn binary(&mut self, op: TmlOp, lhs: &Value, rhs: &Value) -> Result<Value> {
        let ty = infer_binary_type(op, &lhs.ty, &rhs.ty)?;
        let name = format!("tml.{}", op.name());
        let dims = ty.flat_dims();
        let map = |v: &Value| {
            flat_mapping(&v.ty, &ty)
                .ok_or_else(|| internal(&name, format!("{} does not map into {ty}", v.ty)))
        };
        let (map_l, map_r) = (map(lhs)?, map(rhs)?);
        let (rank_l, rank_r) = (map_l.len(), map_r.len());
        let (l, bdims) = if rank_l == dims.len() {
            (lhs.op, map_r)
        } else if rank_r == dims.len() {
            (lhs.op, map_l)
        } else {
            // Neither operand spans the result (nested levels on both
            // sides): broadcast the left one explicitly first.
            (self.b.broadcast_in_dim(lhs.op, &dims, &map_l)?, map_r)
        };
        let out = self.b.binary(l, rhs.op, op.core(), &bdims)?;
        self.checked(&name, out, ty)
    }

    /// `out` as a value of `ty`, checking that the core agreed.
    fn checked(&self, name: &str, out: Op, ty: TmlType) -> Result<Value> {
        let shape = self.b.shape(out)?;
        if shape != ty.flat_shape() {
            return Err(internal(
                name,
                format!(
                    "lowered to {shape}, but the type {ty} is {}",
                    ty.flat_shape()
                ),
            ));
        }
        Ok(Value { op: out, ty })
    }

    /// `target = value` for a variable of type `target`: the value
    /// broadcast to `target` ([`check_assign`]), lowered to one `broadcast`
    /// (nothing when the flat dims already agree).
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("assign");
    /// let mut tml = Tml::new(&mut b);
    /// let row = tml.parameter(0, TmlType::tensor(TmlType::INT, &[3]), "row")?;
    /// let b33 = tml.assign(&TmlType::tensor(TmlType::INT, &[3, 3]), &row)?; // b = [1, 1, 1]
    /// assert_eq!(b33.ty().to_string(), "tensor<int, 3, 3>");
    /// let err = tml.assign(&TmlType::tensor(TmlType::INT, &[2]), &row).unwrap_err();
    /// assert!(err.to_string().contains("Assignment not possible"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn assign(&mut self, target: &TmlType, value: &Value) -> Result<Value> {
        check_assign(target, &value.ty)?;
        let op = self.stretch("tml.assign", value, target)?;
        self.checked("tml.assign", op, target.clone())
    }

    /// `value`'s op broadcast to the flat dims of `to` (which it fits).
    fn stretch(&mut self, name: &str, value: &Value, to: &TmlType) -> Result<Op> {
        let dims = to.flat_dims();
        if value.ty.flat_dims() == dims {
            return Ok(value.op);
        }
        let map = flat_mapping(&value.ty, to)
            .ok_or_else(|| internal(name, format!("{} does not map into {to}", value.ty)))?;
        self.b.broadcast_in_dim(value.op, &dims, &map)
    }

    /// `narrow(v)`: the value with its top-level dims of length 1 dropped
    /// ([`TmlType::narrow`]), lowered to a `reshape` (nothing when no dim
    /// is dropped). Never fails for a value of this builder.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("narrow");
    /// let mut tml = Tml::new(&mut b);
    /// let e = tml.parameter(0, TmlType::tensor(TmlType::INT, &[1, 5, 1]), "e")?;
    /// let f = tml.narrow(&e)?;
    /// assert_eq!(f.ty().to_string(), "tensor<int, 5>");
    /// assert_eq!(tml.builder().shape(f.op())?.to_string(), "s64[5]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn narrow(&mut self, v: &Value) -> Result<Value> {
        let ty = v.ty.narrow();
        let dims = ty.flat_dims();
        if dims == v.ty.flat_dims() {
            return Ok(Value { op: v.op, ty });
        }
        let op = self.b.reshape(v.op, &dims)?;
        self.checked("tml.narrow", op, ty)
    }

    /// `v[i1][i2]...` with index access broadcasting, for constant indices:
    /// a `slice` of the indexed positions, then a `reshape` to the type of
    /// the rest ([`TmlType::indexed`]). Dims of length 1 take any index,
    /// indices past the last dim are ignored, others are bounds-checked.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("get");
    /// let mut tml = Tml::new(&mut b);
    /// let a = tml.parameter(0, TmlType::tensor(TmlType::REAL, &[1, 2]), "a")?;
    /// let x = tml.get(&a, &[999, 1, 1000, 2000])?;
    /// assert_eq!(x.ty(), &TmlType::REAL);
    /// let err = tml.get(&a, &[0, 2]).unwrap_err();
    /// assert!(err.to_string().contains("dimension 1 has length 2"));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn get(&mut self, v: &Value, index: &[i64]) -> Result<Value> {
        let flat = v.ty.flat_dims();
        let pos = iab_positions("get", &v.ty.to_string(), &flat, index)?;
        let ty = v.ty.indexed(index.len());
        if pos.is_empty() {
            return Ok(Value { op: v.op, ty });
        }
        let mut starts = pos.clone();
        starts.resize(flat.len(), 0);
        let mut limits: Vec<i64> = pos.iter().map(|p| p + 1).collect();
        limits.extend_from_slice(&flat[pos.len()..]);
        let strides = vec![1; flat.len()];
        let sliced = self.b.slice(v.op, &starts, &limits, &strides)?;
        let op = self.b.reshape(sliced, &ty.flat_dims())?;
        self.checked("tml.get", op, ty)
    }

    /// `v[i1][i2]... = value`, functionally: returns `v` updated. The
    /// indexed part is found as by [`Tml::get`] (index access
    /// broadcasting, so `a[1][2][3] = 3` on a scalar sets the scalar); the
    /// value must assignment-broadcast to that part's type
    /// ([`check_assign`]). Lowered to `broadcast` and `reshape` of the
    /// value, then `pad` and `select` unless the part is all of `v`.
    ///
    /// ```
    /// use oxla_client::tml::{Tml, TmlType};
    /// use oxla_ir::Builder;
    /// let mut b = Builder::new("set");
    /// let mut tml = Tml::new(&mut b);
    /// let m = tml.parameter(0, TmlType::tensor(TmlType::INT, &[2, 3]), "m")?;
    /// let s = tml.parameter(1, TmlType::INT, "s")?;
    /// let m2 = tml.set(&m, &[1], &s)?; // m[1] = s
    /// assert_eq!(m2.ty(), m.ty());
    /// let a = tml.parameter(2, TmlType::INT, "a")?;
    /// let a2 = tml.set(&a, &[1, 2, 3], &s)?; // a[1][2][3] = s sets the scalar a
    /// assert_eq!(a2.op(), s.op());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn set(&mut self, v: &Value, index: &[i64], value: &Value) -> Result<Value> {
        let flat = v.ty.flat_dims();
        let pos = iab_positions("set", &v.ty.to_string(), &flat, index)?;
        let part = v.ty.indexed(index.len());
        check_assign_as("set", &format!("a{}", index_text(index)), &part, &value.ty)?;
        let stretched = self.stretch("tml.set", value, &part)?;
        let mut box_dims = vec![1; pos.len()];
        box_dims.extend(part.flat_dims());
        let boxed = if pos.is_empty() {
            stretched
        } else {
            self.b.reshape(stretched, &box_dims)?
        };
        let mut starts = pos;
        starts.resize(flat.len(), 0);
        let out = place(self.b, "tml.set", v.op, &starts, boxed)?;
        self.checked("tml.set", out, v.ty.clone())
    }
}
