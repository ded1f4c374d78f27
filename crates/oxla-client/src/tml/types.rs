//! TML types (scalars and nested tensors) and the pure type rules:
//! broadcasting per op class, assignment broadcasting, narrowcasting, and
//! the type of an indexed value. The [`super::Tml`] builder calls these
//! first and lowers only what they accept.

use std::fmt;

use oxla_ir::{ElementType, Error, Result, Shape};

use super::{OpClass, TmlOp};
use crate::lower::dims_list;

/// A TML type: a base (scalar) type, or a tensor of elements of some TML
/// type, which may itself be a tensor.
///
/// `tensor<tensor<int, 3>, 3>` (a 3-vector of 3-vectors, "3x(3)") is not
/// `tensor<int, 3, 3>` ("3x3"): broadcasting works per nesting level. Both
/// lower to the same flat array, `s64[3,3]`: the flat dims are the outer
/// dims followed by the inner ones ([`TmlType::flat_dims`]).
///
/// TML's `int`, `uint`, `real` and `bool` are oxla's `s64`, `u64`, `f64`
/// and `pred`; the other element types print with their oxla names.
///
/// ```
/// use oxla_client::tml::TmlType;
/// let v3 = TmlType::tensor(TmlType::INT, &[3]);
/// let nested = TmlType::tensor(v3.clone(), &[3]);
/// let flat = TmlType::tensor(TmlType::INT, &[3, 3]);
/// assert_eq!(nested.to_string(), "tensor<tensor<int, 3>, 3>");
/// assert_eq!(flat.to_string(), "tensor<int, 3, 3>");
/// assert_ne!(nested, flat);
/// assert_eq!(nested.flat_dims(), flat.flat_dims());
/// assert_eq!(nested.levels(), vec![&[3][..], &[3][..]]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TmlType {
    /// A base type (`int`, `real`, `bool`, ...).
    Scalar(ElementType),
    /// `tensor<element, dims...>`: at least one dimension.
    Tensor {
        /// The type of each element (a scalar or another tensor).
        element: Box<TmlType>,
        /// The dimension lengths of this nesting level.
        dims: Vec<i64>,
    },
}

impl TmlType {
    /// TML's `int`, a signed 64-bit integer (`s64`).
    pub const INT: TmlType = TmlType::Scalar(ElementType::S64);
    /// TML's `uint`, an unsigned 64-bit integer (`u64`).
    pub const UINT: TmlType = TmlType::Scalar(ElementType::U64);
    /// TML's `real`, a 64-bit float (`f64`).
    pub const REAL: TmlType = TmlType::Scalar(ElementType::F64);
    /// TML's `bool` (`pred`).
    pub const BOOL: TmlType = TmlType::Scalar(ElementType::Pred);

    /// `tensor<element, dims...>`. Not checked: see [`TmlType::validate`].
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// assert_eq!(TmlType::tensor(TmlType::REAL, &[1, 2]).to_string(), "tensor<real, 1, 2>");
    /// ```
    pub fn tensor(element: TmlType, dims: &[i64]) -> TmlType {
        TmlType::Tensor {
            element: Box::new(element),
            dims: dims.to_vec(),
        }
    }

    /// Checks that every tensor level has at least one dimension and no
    /// negative length, that the root is an array element type, and that
    /// the flat shape is a valid oxla shape.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// assert!(TmlType::tensor(TmlType::INT, &[2, 0]).validate().is_ok());
    /// assert!(TmlType::tensor(TmlType::INT, &[]).validate().is_err());
    /// assert!(TmlType::tensor(TmlType::INT, &[-1]).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: String| Error::InvalidShape {
            shape: self.to_string(),
            reason,
        };
        let mut t = self;
        let mut level = 0;
        while let TmlType::Tensor { element, dims } = t {
            if dims.is_empty() {
                return Err(bad(format!(
                    "the tensor at nesting level {level} has no dimensions (write its element \
                     type instead)"
                )));
            }
            if let Some(d) = dims.iter().find(|&&d| d < 0) {
                return Err(bad(format!(
                    "the tensor at nesting level {level} has the negative length {d}"
                )));
            }
            t = element;
            level += 1;
        }
        if self.root().is_tuple() {
            return Err(bad("a tuple is not a TML scalar type".into()));
        }
        self.flat_shape().validate()
    }

    /// `true` for a base type.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// assert!(TmlType::REAL.is_scalar());
    /// assert!(!TmlType::tensor(TmlType::REAL, &[1]).is_scalar());
    /// ```
    pub fn is_scalar(&self) -> bool {
        matches!(self, TmlType::Scalar(_))
    }

    /// The root scalar type, under every nesting level.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// use oxla_ir::ElementType;
    /// let t = TmlType::tensor(TmlType::tensor(TmlType::REAL, &[2]), &[3]);
    /// assert_eq!(t.root(), ElementType::F64);
    /// ```
    pub fn root(&self) -> ElementType {
        match self {
            TmlType::Scalar(t) => *t,
            TmlType::Tensor { element, .. } => element.root(),
        }
    }

    /// The dims of each nesting level, outermost first (empty for a scalar).
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// let t = TmlType::tensor(TmlType::tensor(TmlType::INT, &[4, 5]), &[2, 3]);
    /// assert_eq!(t.levels(), vec![&[2, 3][..], &[4, 5][..]]);
    /// assert!(TmlType::INT.levels().is_empty());
    /// ```
    pub fn levels(&self) -> Vec<&[i64]> {
        let mut out = Vec::new();
        let mut t = self;
        while let TmlType::Tensor { element, dims } = t {
            out.push(dims.as_slice());
            t = element;
        }
        out
    }

    /// The dims of the flat array this type lowers to: every level's dims,
    /// outermost first.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// let t = TmlType::tensor(TmlType::tensor(TmlType::INT, &[4, 5]), &[2, 3]);
    /// assert_eq!(t.flat_dims(), vec![2, 3, 4, 5]);
    /// ```
    pub fn flat_dims(&self) -> Vec<i64> {
        self.levels().concat()
    }

    /// The oxla shape of the flat array: `tensor<int, 3>` is `s64[3]`.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// let t = TmlType::tensor(TmlType::tensor(TmlType::BOOL, &[3]), &[2]);
    /// assert_eq!(t.flat_shape().to_string(), "pred[2,3]");
    /// ```
    pub fn flat_shape(&self) -> Shape {
        Shape::new(self.root(), &self.flat_dims())
    }

    /// The same structure with another root scalar type (`pred` for the
    /// result of a comparison).
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// use oxla_ir::ElementType;
    /// let t = TmlType::tensor(TmlType::tensor(TmlType::INT, &[3]), &[3]);
    /// assert_eq!(t.with_root(ElementType::Pred).to_string(), "tensor<tensor<bool, 3>, 3>");
    /// ```
    pub fn with_root(&self, root: ElementType) -> TmlType {
        match self {
            TmlType::Scalar(_) => TmlType::Scalar(root),
            TmlType::Tensor { element, dims } => TmlType::Tensor {
                element: Box::new(element.with_root(root)),
                dims: dims.clone(),
            },
        }
    }

    /// Narrowcasting: the top-level dims of length 1 are dropped; a tensor
    /// of only such dims becomes its element type; a scalar stays. Never
    /// fails, and never looks inside the element type.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// let t = |e, d: &[i64]| TmlType::tensor(e, d);
    /// assert_eq!(TmlType::INT.narrow(), TmlType::INT);
    /// assert_eq!(t(TmlType::INT, &[1]).narrow(), TmlType::INT);
    /// assert_eq!(t(TmlType::INT, &[1, 5, 1]).narrow(), t(TmlType::INT, &[5]));
    /// assert_eq!(t(TmlType::INT, &[5, 5]).narrow(), t(TmlType::INT, &[5, 5]));
    /// let nested = t(t(TmlType::INT, &[1]), &[5, 5]);
    /// assert_eq!(nested.narrow(), nested);
    /// ```
    pub fn narrow(&self) -> TmlType {
        match self {
            TmlType::Scalar(_) => self.clone(),
            TmlType::Tensor { element, dims } => {
                let kept: Vec<i64> = dims.iter().copied().filter(|&d| d != 1).collect();
                if kept.is_empty() {
                    (**element).clone()
                } else {
                    TmlType::Tensor {
                        element: element.clone(),
                        dims: kept,
                    }
                }
            }
        }
    }

    /// The type of `a[i1]...[ik]` for `a` of this type and `count = k`
    /// indices: each index consumes one dimension, outer levels first; a
    /// consumed level gives way to its element type; indices past the last
    /// dimension (index access broadcasting) leave the scalar as it is.
    ///
    /// ```
    /// use oxla_client::tml::TmlType;
    /// let t = TmlType::tensor(TmlType::tensor(TmlType::INT, &[3]), &[2, 2]);
    /// assert_eq!(t.indexed(1).to_string(), "tensor<tensor<int, 3>, 2>");
    /// assert_eq!(t.indexed(2).to_string(), "tensor<int, 3>");
    /// assert_eq!(t.indexed(7), TmlType::INT);
    /// ```
    pub fn indexed(&self, count: usize) -> TmlType {
        match self {
            TmlType::Scalar(_) => self.clone(),
            TmlType::Tensor { element, dims } if count < dims.len() => TmlType::Tensor {
                element: element.clone(),
                dims: dims[count..].to_vec(),
            },
            TmlType::Tensor { element, dims } => element.indexed(count - dims.len()),
        }
    }

    /// The nesting structure in the spec's notation: `3x3x3`, `3x(3x3)`,
    /// `scalar`.
    pub(crate) fn structure(&self) -> String {
        match self {
            TmlType::Scalar(_) => "scalar".into(),
            TmlType::Tensor { element, dims } => {
                let mut s: Vec<String> = dims.iter().map(i64::to_string).collect();
                if !element.is_scalar() {
                    s.push(format!("({})", element.structure()));
                }
                s.join("x")
            }
        }
    }
}

/// TML's name of an element type: `int`, `uint`, `real`, `bool`, or
/// oxla's name for the others.
fn scalar_name(t: ElementType) -> &'static str {
    match t {
        ElementType::S64 => "int",
        ElementType::U64 => "uint",
        ElementType::F64 => "real",
        ElementType::Pred => "bool",
        other => other.name(),
    }
}

impl fmt::Display for TmlType {
    /// TML syntax: `int`, `tensor<real, 1, 2>`, `tensor<tensor<int, 3>, 3>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TmlType::Scalar(t) => f.write_str(scalar_name(*t)),
            TmlType::Tensor { element, dims } => {
                write!(f, "tensor<{element}")?;
                for d in dims {
                    write!(f, ", {d}")?;
                }
                f.write_str(">")
            }
        }
    }
}

pub(crate) fn invalid(op: &str, message: String) -> Error {
    Error::FrontEnd {
        world: "tml".into(),
        op: format!("tml.{op}"),
        message,
    }
}

fn level_name(level: usize) -> String {
    if level == 0 {
        "nesting level 0 (the outermost)".into()
    } else {
        format!("nesting level {level}")
    }
}

/// The arithmetic rule at one level: `Err((k, a, b))` when dimension `-k`
/// has lengths `a` and `b`, neither 1.
fn broadcast_level(a: &[i64], b: &[i64]) -> std::result::Result<Vec<i64>, (usize, i64, i64)> {
    let n = a.len().max(b.len());
    let mut out = vec![1; n];
    for k in 1..=n {
        let x = if k <= a.len() { a[a.len() - k] } else { 1 };
        let y = if k <= b.len() { b[b.len() - k] } else { 1 };
        out[n - k] = match (x, y) {
            (1, y) => y,
            (x, 1) => x,
            (x, y) if x == y => x,
            (x, y) => return Err((k, x, y)),
        };
    }
    Ok(out)
}

/// The result type of `lhs <op> rhs` under TML's broadcasting rules, or why
/// there is none.
///
/// * Arithmetic: per nesting level, dims of length 1 are added on the left
///   and dims of length 1 stretch (NumPy's rule, level by level); a scalar
///   broadcasts into every level; levels never merge.
/// * Relational, logical and bitwise: a scalar with a tensor, or two
///   tensors with the same dims at every nesting level. Relational needs a
///   numeric root type, logical `bool`, bitwise an unsigned integer.
/// * Both roots must be the same type (oxla converts no types implicitly).
/// * The result has the broadcast structure, with root `bool` for
///   relational and logical ops and the operands' root for arithmetic and
///   bitwise ones.
///
/// ```
/// use oxla_client::tml::{infer_binary_type, TmlOp, TmlType};
/// let t = |e, d: &[i64]| TmlType::tensor(e, d);
/// let row = t(TmlType::INT, &[3]);
/// let col = t(TmlType::INT, &[3, 1]);
/// assert_eq!(infer_binary_type(TmlOp::Add, &row, &col)?, t(TmlType::INT, &[3, 3]));
/// assert_eq!(infer_binary_type(TmlOp::Gt, &TmlType::INT, &row)?, t(TmlType::BOOL, &[3]));
/// assert!(infer_binary_type(TmlOp::Gt, &row, &col).is_err()); // no implicit elements
/// // 3x3x3 and 3x(3x3) are different: arithmetic broadcasts per level.
/// let flat = t(TmlType::INT, &[3, 3, 3]);
/// let nested = t(t(TmlType::INT, &[3, 3]), &[3]);
/// assert_eq!(
///     infer_binary_type(TmlOp::Add, &flat, &nested)?.to_string(),
///     "tensor<tensor<int, 3, 3>, 3, 3, 3>"
/// );
/// assert!(infer_binary_type(TmlOp::Eq, &flat, &nested).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_binary_type(op: TmlOp, lhs: &TmlType, rhs: &TmlType) -> Result<TmlType> {
    lhs.validate()?;
    rhs.validate()?;
    let name = op.name();
    let class = op.class();
    let structure = match class {
        OpClass::Arithmetic => arithmetic_structure(op, lhs, rhs, lhs, rhs, 0)?,
        OpClass::Relational | OpClass::Logical | OpClass::Bitwise => {
            if !(lhs.is_scalar() || rhs.is_scalar() || lhs.levels() == rhs.levels()) {
                return Err(invalid(
                    name,
                    format!(
                        "{name} ({}) of {lhs} and {rhs} needs a scalar and a tensor, or two \
                         tensors with the same dims at every nesting level, but their structures \
                         are {} and {}.\nhelp: relational, logical and bitwise operations never \
                         add elements implicitly; broadcast an operand explicitly first \
                         (tml.assign or an arithmetic op).",
                        class.name(),
                        lhs.structure(),
                        rhs.structure()
                    ),
                ));
            }
            if lhs.is_scalar() {
                rhs.clone()
            } else {
                lhs.clone()
            }
        }
    };
    let (lt, rt) = (lhs.root(), rhs.root());
    if lt != rt {
        return Err(invalid(
            name,
            format!(
                "{name} of {lhs} and {rhs}: the root scalar types {} and {} differ, and oxla \
                 converts no types implicitly; convert one operand first.",
                scalar_name(lt),
                scalar_name(rt)
            ),
        ));
    }
    let (ok, needs) = match class {
        OpClass::Arithmetic => (lt.is_arithmetic(), "a numeric root scalar type (not bool)"),
        OpClass::Relational => (lt.is_arithmetic(), "a numeric root scalar type (not bool)"),
        OpClass::Logical => (
            lt.is_pred(),
            "the root scalar type bool (for unsigned integers use the bitwise ops)",
        ),
        OpClass::Bitwise => (
            lt.is_unsigned_integer(),
            "an unsigned integer root scalar type such as uint (for bool use the logical ops)",
        ),
    };
    if !ok {
        return Err(invalid(
            name,
            format!(
                "{name} ({}) needs {needs}, but {lhs} and {rhs} have {}.",
                class.name(),
                scalar_name(lt)
            ),
        ));
    }
    Ok(match class {
        OpClass::Relational | OpClass::Logical => structure.with_root(ElementType::Pred),
        OpClass::Arithmetic | OpClass::Bitwise => structure,
    })
}

/// The arithmetic broadcast of `a` and `b` (at `level` inside `lhs` and
/// `rhs`), with `a`'s root.
fn arithmetic_structure(
    op: TmlOp,
    lhs: &TmlType,
    rhs: &TmlType,
    a: &TmlType,
    b: &TmlType,
    level: usize,
) -> Result<TmlType> {
    Ok(match (a, b) {
        (TmlType::Scalar(_), TmlType::Scalar(_)) => a.clone(),
        (TmlType::Scalar(_), TmlType::Tensor { element, dims }) => TmlType::Tensor {
            element: Box::new(arithmetic_structure(op, lhs, rhs, a, element, level + 1)?),
            dims: dims.clone(),
        },
        (TmlType::Tensor { element, dims }, TmlType::Scalar(_)) => TmlType::Tensor {
            element: Box::new(arithmetic_structure(op, lhs, rhs, element, b, level + 1)?),
            dims: dims.clone(),
        },
        (
            TmlType::Tensor {
                element: ea,
                dims: da,
            },
            TmlType::Tensor {
                element: eb,
                dims: db,
            },
        ) => {
            let dims = broadcast_level(da, db).map_err(|(k, x, y)| {
                let nested = if lhs.levels().len() > 1 || rhs.levels().len() > 1 {
                    format!(
                        "; nesting levels never merge: {} and {} are matched level by level",
                        lhs.structure(),
                        rhs.structure()
                    )
                } else {
                    String::new()
                };
                invalid(
                    op.name(),
                    format!(
                        "Broadcasting is not possible for {lhs} and {rhs}: at {}, the dims {} \
                         and {} differ at dimension -{k} (counting from the right), with lengths \
                         {x} and {y}, and neither is 1.\nhelp: within a nesting level, dims of \
                         length 1 are added on the left and dims of length 1 stretch{nested}.",
                        level_name(level),
                        dims_list(da),
                        dims_list(db),
                    ),
                )
            })?;
            TmlType::Tensor {
                element: Box::new(arithmetic_structure(op, lhs, rhs, ea, eb, level + 1)?),
                dims,
            }
        }
    })
}

/// Checks TML assignment broadcasting: a `value` may be assigned to a
/// variable of type `target` when it broadcasts to `target` without
/// changing it. At every nesting level the value has at most the target's
/// dims, each of the same length or 1 (right-aligned); a scalar value fits
/// anything; the root types are equal.
///
/// ```
/// use oxla_client::tml::{check_assign, TmlType};
/// let t = |e, d: &[i64]| TmlType::tensor(e, d);
/// check_assign(&t(TmlType::INT, &[3]), &TmlType::INT)?; // a = 1
/// check_assign(&t(TmlType::INT, &[3, 3]), &t(TmlType::INT, &[3]))?; // b = [1, 1, 1]
/// let err = check_assign(&t(TmlType::INT, &[3]), &t(TmlType::INT, &[2])).unwrap_err();
/// assert!(err.to_string().contains("Assignment not possible"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn check_assign(target: &TmlType, value: &TmlType) -> Result<()> {
    check_assign_as("assign", "", target, value)
}

/// [`check_assign`] with `op` and `place` (`a[1]`, or empty) in messages.
pub(crate) fn check_assign_as(
    op: &str,
    place: &str,
    target: &TmlType,
    value: &TmlType,
) -> Result<()> {
    target.validate()?;
    value.validate()?;
    let problem = assign_problem(target, value, 0).or_else(|| {
        (target.root() != value.root()).then(|| {
            format!(
                "the root scalar types differ ({} and {}), and oxla converts no types implicitly; \
                 convert the value first.",
                scalar_name(target.root()),
                scalar_name(value.root())
            )
        })
    });
    match problem {
        None => Ok(()),
        Some(problem) => {
            let what = if place.is_empty() {
                format!("the type {target}")
            } else {
                format!("{place}, of type {target},")
            };
            Err(invalid(
                op,
                format!(
                    "Assignment not possible: a value of type {value} cannot be broadcast to \
                     {what} without changing it: {problem}"
                ),
            ))
        }
    }
}

fn assign_problem(target: &TmlType, value: &TmlType, level: usize) -> Option<String> {
    match (target, value) {
        (_, TmlType::Scalar(_)) => None,
        (TmlType::Scalar(_), TmlType::Tensor { .. }) => Some(format!(
            "at {}, the target is the scalar type {target} but the value the tensor {value}; a \
             value may not have more dims than the target.",
            level_name(level)
        )),
        (
            TmlType::Tensor {
                element: et,
                dims: dt,
            },
            TmlType::Tensor {
                element: ev,
                dims: dv,
            },
        ) => {
            if dv.len() > dt.len() {
                return Some(format!(
                    "at {}, the value has {} dims {} but the target only {} {}; a value may not \
                     have more dims than the target.",
                    level_name(level),
                    dv.len(),
                    dims_list(dv),
                    dt.len(),
                    dims_list(dt)
                ));
            }
            for k in 1..=dv.len() {
                let (t, v) = (dt[dt.len() - k], dv[dv.len() - k]);
                if t != v && v != 1 {
                    return Some(format!(
                        "at {}, dimension -{k} (counting from the right) has length {t} in the \
                         target and {v} in the value; the value's length must equal the \
                         target's or be 1.",
                        level_name(level)
                    ));
                }
            }
            assign_problem(et, ev, level + 1)
        }
    }
}

/// Where each flat dim of `operand` goes among the flat dims of `result`,
/// a type it broadcasts to: per nesting level, right-aligned within that
/// level's dims. `None` if `operand` has a level `result` lacks or more
/// dims at a level (which the type rules never produce).
pub(crate) fn flat_mapping(operand: &TmlType, result: &TmlType) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    let (mut o, mut r, mut offset) = (operand, result, 0i64);
    loop {
        match (o, r) {
            (TmlType::Scalar(_), _) => return Some(out),
            (TmlType::Tensor { .. }, TmlType::Scalar(_)) => return None,
            (
                TmlType::Tensor {
                    element: eo,
                    dims: od,
                },
                TmlType::Tensor {
                    element: er,
                    dims: rd,
                },
            ) => {
                let shift = offset + rd.len().checked_sub(od.len())? as i64;
                out.extend((0..od.len() as i64).map(|j| shift + j));
                offset += rd.len() as i64;
                (o, r) = (eo, er);
            }
        }
    }
}
