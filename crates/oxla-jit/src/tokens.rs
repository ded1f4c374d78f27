//! Tokens (`token[]`): values that order side effects and carry no data.
//! The JIT compiles a computation with tokens as the same computation with
//! each token an empty `pred[0]` array (no storage, nothing to compute):
//! `after-all` becomes an empty constant, `add-dependency(x, t)` is `x`,
//! and token parameters, loop state and results are `pred[0]` leaves.
//! [`strip`] does the rewrite before anything else sees the computation;
//! the executable's boundary (`boundary.rs`) keeps the original signature
//! and turns token arguments into empty arrays ([`argument`]) and the
//! empty arrays at the result's token places back into tokens
//! ([`result`]).
//!
//! Invariant: after [`strip`] no instruction of the computation has a
//! token in its shape, so the rest of the JIT never meets one.

use oxla_ir::ir::{Body, InstId, Instruction};
use oxla_ir::{Computation, ElementType, Literal, OpKind, Result, Shape};

/// `shape` with every token (at any tuple depth) an empty `pred[0]`.
fn token_free(shape: &Shape) -> Shape {
    if shape.is_token() {
        Shape::new(ElementType::Pred, &[0])
    } else if shape.is_tuple() {
        Shape::tuple(shape.tuple_shapes().iter().map(token_free).collect())
    } else {
        shape.clone()
    }
}

/// Whether `shape` holds a token.
fn has_token(shape: &Shape) -> bool {
    shape.is_token() || (shape.is_tuple() && shape.tuple_shapes().iter().any(has_token))
}

/// `comp` with its tokens replaced by empty `pred[0]` arrays (see the
/// module docs), or `None` when it has none (nothing is verified or
/// copied then: `compile` verifies it next).
pub(crate) fn strip(comp: &Computation) -> Result<Option<Computation>> {
    let any = comp.bodies().iter().any(|b| {
        b.instructions.iter().any(|i| {
            has_token(&i.shape) || matches!(i.kind, OpKind::AfterAll | OpKind::AddDependency)
        })
    });
    if !any {
        return Ok(None);
    }
    // The rewrite reads operands by index: only a verified computation.
    oxla_ir::verifier::verify(comp)?;
    let mut bodies = Vec::with_capacity(comp.bodies().len());
    for body in comp.bodies() {
        let mut insts: Vec<Instruction> = Vec::with_capacity(body.instructions.len());
        let mut map: Vec<InstId> = Vec::with_capacity(body.instructions.len());
        for inst in &body.instructions {
            let operands: Vec<InstId> = inst.operands.iter().map(|o| map[o.index()]).collect();
            // `add-dependency(x, t)` is `x`.
            if let OpKind::AddDependency = inst.kind {
                let Some(&x) = operands.first() else {
                    return Err(crate::error::internal(
                        crate::error::Stage::Fusion,
                        format!("add-dependency {} has no operand", inst.name),
                    ));
                };
                map.push(x);
                continue;
            }
            let id = if let OpKind::AfterAll = inst.kind {
                Instruction {
                    name: inst.name.clone(),
                    kind: OpKind::Constant {
                        literal: Literal::from_vec::<bool>(&[0], vec![])?,
                    },
                    operands: vec![],
                    shape: token_free(&inst.shape),
                }
            } else {
                Instruction {
                    name: inst.name.clone(),
                    kind: inst.kind.clone(),
                    operands,
                    shape: token_free(&inst.shape),
                }
            };
            insts.push(id);
            map.push(InstId((insts.len() - 1) as u32));
        }
        bodies.push(Body {
            name: body.name.clone(),
            root: map[body.root.index()],
            instructions: insts,
        });
    }
    Computation::from_bodies(comp.name(), bodies).map(Some)
}

/// Argument `arg` as the token-free computation takes it: `None` when it
/// holds no token (it is taken as it is), else a copy with every token an
/// empty `pred[0]` array.
pub(crate) fn argument(arg: &Literal) -> Result<Option<Literal>> {
    if has_token(arg.shape()) {
        strip_literal(arg).map(Some)
    } else {
        Ok(None)
    }
}

/// `out`, a result of the token-free computation, with a token wherever
/// `shape` (the original result's) has one.
pub(crate) fn result(out: Literal, shape: &Shape) -> Literal {
    restore(out, shape)
}

/// `l` with its tokens replaced by empty `pred[0]` arrays.
fn strip_literal(l: &Literal) -> Result<Literal> {
    if l.shape().is_token() {
        return Literal::from_vec::<bool>(&[0], vec![]);
    }
    match l.tuple_elements() {
        Some(items) if has_token(l.shape()) => Ok(Literal::tuple(
            items
                .iter()
                .map(strip_literal)
                .collect::<Result<Vec<_>>>()?,
        )),
        _ => Ok(l.clone()),
    }
}

/// `l` (token-free) with a token wherever `shape` has one.
fn restore(l: Literal, shape: &Shape) -> Literal {
    if shape.is_token() {
        return Literal::token();
    }
    if !shape.is_tuple() || !has_token(shape) {
        return l;
    }
    match l.into_tuple_elements() {
        Ok(items) => Literal::tuple(
            items
                .into_iter()
                .zip(shape.tuple_shapes())
                .map(|(i, s)| restore(i, s))
                .collect(),
        ),
        Err(l) => l,
    }
}
