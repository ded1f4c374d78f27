//! Shapes: an element type with a list of dimension sizes, or a tuple of
//! shapes.
//!
//! Dimension sizes are `i64`, as in XLA, so that a negative size given by a
//! user can be reported rather than wrapped. A [`Shape`] built with
//! [`Shape::new`] is not checked; [`Shape::validate`] checks it, and every
//! entry point that takes a shape from a user (parameters, iota, broadcast
//! sizes, literals) calls it. Shapes print in XLA notation: `f32[2,3]`,
//! `pred[]`, `(f32[2], s32[])`.

use std::fmt;

use crate::{ElementType, Error, Result};

/// The largest number of elements one array may have (2^40). Anything larger
/// is refused with [`Error::InvalidShape`] before memory is touched.
pub const MAX_ELEMENTS: i64 = 1 << 40;

/// The largest rank an array may have.
pub const MAX_RANK: usize = 64;

/// An array shape (element type and dims) or a tuple shape.
///
/// ```
/// use oxla_ir::{ElementType, Shape};
/// let s = Shape::new(ElementType::F32, &[2, 3]);
/// assert_eq!(s.to_string(), "f32[2,3]");
/// assert_eq!(s.rank(), 2);
/// assert_eq!(s.element_count(), 6);
/// assert_eq!(Shape::scalar(ElementType::Pred).to_string(), "pred[]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape {
    element_type: ElementType,
    dims: Vec<i64>,
    tuple_shapes: Vec<Shape>,
}

impl Shape {
    /// An array shape. Not validated: see [`Shape::validate`].
    pub fn new(element_type: ElementType, dims: &[i64]) -> Shape {
        Shape {
            element_type,
            dims: dims.to_vec(),
            tuple_shapes: Vec::new(),
        }
    }

    /// A rank-0 array shape.
    pub fn scalar(element_type: ElementType) -> Shape {
        Shape::new(element_type, &[])
    }

    /// A tuple shape.
    ///
    /// ```
    /// use oxla_ir::{ElementType, Shape};
    /// let t = Shape::tuple(vec![Shape::new(ElementType::F32, &[2]), Shape::scalar(ElementType::S32)]);
    /// assert_eq!(t.to_string(), "(f32[2], s32[])");
    /// ```
    pub fn tuple(shapes: Vec<Shape>) -> Shape {
        Shape {
            element_type: ElementType::Tuple,
            dims: Vec::new(),
            tuple_shapes: shapes,
        }
    }

    /// `token[]`: the shape of a token, which carries no data and only
    /// orders side effects (`after-all`, `add-dependency`).
    ///
    /// ```
    /// use oxla_ir::Shape;
    /// let t = Shape::token();
    /// assert_eq!(t.to_string(), "token[]");
    /// assert!(t.is_token() && !t.is_array() && !t.is_tuple());
    /// ```
    pub fn token() -> Shape {
        Shape::new(ElementType::Token, &[])
    }

    /// `true` for `token[]`.
    pub fn is_token(&self) -> bool {
        self.element_type.is_token()
    }

    /// The element type (`ElementType::Tuple` for a tuple).
    pub fn element_type(&self) -> ElementType {
        self.element_type
    }

    /// The dimension sizes (empty for scalars and tuples).
    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// `true` for array shapes.
    pub fn is_array(&self) -> bool {
        !self.element_type.is_tuple() && !self.element_type.is_token()
    }

    /// `true` for tuple shapes.
    pub fn is_tuple(&self) -> bool {
        self.element_type.is_tuple()
    }

    /// `true` for rank-0 arrays.
    pub fn is_scalar(&self) -> bool {
        self.is_array() && self.dims.is_empty()
    }

    /// The element shapes of a tuple (empty for arrays).
    pub fn tuple_shapes(&self) -> &[Shape] {
        &self.tuple_shapes
    }

    /// The number of elements, the product of the dims (1 for a scalar).
    /// Saturates at `i64::MAX`; call [`Shape::validate`] first for an exact
    /// answer.
    pub fn element_count(&self) -> i64 {
        self.dims
            .iter()
            .fold(1i64, |acc, &d| acc.saturating_mul(d.max(0)))
    }

    /// The same dims with another element type.
    pub fn with_element_type(&self, element_type: ElementType) -> Shape {
        Shape::new(element_type, &self.dims)
    }

    /// `true` when both are arrays with the same dims (element types may
    /// differ).
    pub fn same_dims(&self, other: &Shape) -> bool {
        self.is_array() && other.is_array() && self.dims == other.dims
    }

    /// Checks that dims are non-negative, the rank is at most [`MAX_RANK`]
    /// and the element count at most [`MAX_ELEMENTS`]; for tuples, checks
    /// every element.
    ///
    /// ```
    /// use oxla_ir::{ElementType, Shape};
    /// assert!(Shape::new(ElementType::F32, &[2, 0]).validate().is_ok());
    /// let err = Shape::new(ElementType::F32, &[2, -1]).validate().unwrap_err();
    /// assert!(err.to_string().contains("f32[2,-1]"));
    /// ```
    pub fn validate(&self) -> Result<()> {
        if self.is_tuple() {
            return self.tuple_shapes.iter().try_for_each(Shape::validate);
        }
        if self.dims.len() > MAX_RANK {
            return Err(Error::InvalidShape {
                shape: self.to_string(),
                reason: format!(
                    "rank {} exceeds the maximum rank {MAX_RANK}",
                    self.dims.len()
                ),
            });
        }
        if let Some((i, d)) = self.dims.iter().enumerate().find(|&(_, &d)| d < 0) {
            return Err(Error::InvalidShape {
                shape: self.to_string(),
                reason: format!("dimension {i} has negative size {d}"),
            });
        }
        let mut count: i64 = 1;
        for &d in &self.dims {
            count = match count.checked_mul(d) {
                Some(c) if c <= MAX_ELEMENTS => c,
                _ => {
                    return Err(Error::InvalidShape {
                        shape: self.to_string(),
                        reason: format!("it has more than the maximum of {MAX_ELEMENTS} elements"),
                    });
                }
            };
        }
        Ok(())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_tuple() {
            f.write_str("(")?;
            for (i, s) in self.tuple_shapes.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{s}")?;
            }
            return f.write_str(")");
        }
        write!(f, "{}[", self.element_type)?;
        write_joined(f, &self.dims)?;
        f.write_str("]")
    }
}

/// Writes `values` separated by commas without spaces: `2,3`.
pub(crate) fn write_joined(f: &mut impl fmt::Write, values: &[i64]) -> fmt::Result {
    for (i, d) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{d}")?;
    }
    Ok(())
}

/// Formats a dimension list as in HLO attributes: `{0,2}`.
///
/// ```
/// assert_eq!(oxla_ir::shape::dims_text(&[0, 2]), "{0,2}");
/// assert_eq!(oxla_ir::shape::dims_text(&[]), "{}");
/// ```
pub fn dims_text(values: &[i64]) -> String {
    let mut s = String::from("{");
    let _ = write_joined(&mut s, values);
    s.push('}');
    s
}

/// The row-major (last dimension fastest) strides of `dims`, in elements.
///
/// ```
/// assert_eq!(oxla_ir::shape::row_major_strides(&[2, 3, 4]), vec![12, 4, 1]);
/// ```
pub fn row_major_strides(dims: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
}
