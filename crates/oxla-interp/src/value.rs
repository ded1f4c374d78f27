//! The interpreter's values: literals that are shared, never copied, as they
//! flow through tuples, loops and branches.
//!
//! A [`Value`] is a literal the caller owns (an argument or a constant,
//! borrowed), an array computed here (behind an `Rc`, so every value that
//! holds it shares one buffer), or a tuple built here (an `Rc`'d list of
//! values). Building a tuple, taking an element out of one, passing a loop's
//! state from one iteration to the next, or handing an operand to a branch
//! copies no array: a `while` whose state carries a large array it does not
//! change costs nothing per iteration for that array.
//!
//! Invariant: a `Shared` literal is an array (tuples are always `Tuple`);
//! a `Borrowed` literal may be either.

use std::rc::Rc;

use oxla_ir::{Literal, Shape};

use crate::ops::OpResult;

/// A value of the interpreter; see the module docs.
#[derive(Debug, Clone)]
pub(crate) enum Value<'a> {
    /// An argument or a constant: borrowed for the whole evaluation.
    Borrowed(&'a Literal),
    /// An array computed by the interpreter.
    Shared(Rc<Literal>),
    /// A tuple built by the interpreter.
    Tuple(Rc<Vec<Value<'a>>>),
}

impl<'a> Value<'a> {
    /// A computed literal; a tuple literal is taken apart into a tuple of
    /// values (moving its elements, not copying them).
    pub(crate) fn from_literal(literal: Literal) -> Value<'a> {
        match literal.into_tuple_elements() {
            Ok(elements) => Value::tuple(elements.into_iter().map(Value::from_literal).collect()),
            Err(array) => Value::Shared(Rc::new(array)),
        }
    }

    /// A tuple of values.
    pub(crate) fn tuple(elements: Vec<Value<'a>>) -> Value<'a> {
        Value::Tuple(Rc::new(elements))
    }

    /// The literal of an array value, for the ops that read arrays. A
    /// tuple is an error naming its shape (a borrowed tuple literal is
    /// returned, and refused by the op that needs an array).
    pub(crate) fn array(&self) -> OpResult<&Literal> {
        match self {
            Value::Borrowed(l) => Ok(l),
            Value::Shared(l) => Ok(l),
            Value::Tuple(_) => Err(format!(
                "an operand is the tuple {} where an array is needed",
                self.shape()
            )),
        }
    }

    /// Element `index` of a tuple value (shared, not copied).
    pub(crate) fn element(&self, index: i64) -> OpResult<Value<'a>> {
        let out_of_range = || format!("no element {index} in a value of shape {}", self.shape());
        let i = usize::try_from(index).map_err(|_| out_of_range())?;
        match self {
            Value::Borrowed(l) => l
                .tuple_elements()
                .and_then(|t| t.get(i))
                .map(Value::Borrowed)
                .ok_or_else(out_of_range),
            Value::Tuple(t) => t.get(i).cloned().ok_or_else(out_of_range),
            Value::Shared(_) => Err(out_of_range()),
        }
    }

    /// `true` if the value has exactly `shape`.
    pub(crate) fn has_shape(&self, shape: &Shape) -> bool {
        match self {
            Value::Borrowed(l) => l.shape() == shape,
            Value::Shared(l) => l.shape() == shape,
            Value::Tuple(t) => {
                shape.is_tuple()
                    && shape.tuple_shapes().len() == t.len()
                    && t.iter()
                        .zip(shape.tuple_shapes())
                        .all(|(v, s)| v.has_shape(s))
            }
        }
    }

    /// The value's shape (built for tuples: for messages).
    pub(crate) fn shape(&self) -> Shape {
        match self {
            Value::Borrowed(l) => l.shape().clone(),
            Value::Shared(l) => l.shape().clone(),
            Value::Tuple(t) => Shape::tuple(t.iter().map(Value::shape).collect()),
        }
    }

    /// The value as a literal the caller owns: moved out when nothing else
    /// holds it, copied otherwise (borrowed literals always are).
    pub(crate) fn into_literal(self) -> Literal {
        match self {
            Value::Borrowed(l) => l.clone(),
            Value::Shared(l) => Rc::try_unwrap(l).unwrap_or_else(|shared| (*shared).clone()),
            Value::Tuple(t) => {
                let elements = Rc::try_unwrap(t).unwrap_or_else(|shared| (*shared).clone());
                Literal::tuple(elements.into_iter().map(Value::into_literal).collect())
            }
        }
    }
}
