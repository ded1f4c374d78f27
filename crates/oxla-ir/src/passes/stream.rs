//! `rng`'s stream position threaded through loops and branches as a value,
//! so that an `rng` in a `while` body or a `conditional` branch draws where
//! the interpreter's does.
//!
//! The interpreter's `rng` draws from one Philox stream whose `u64` block
//! counter starts at 0 at each run and advances, as each `rng` is
//! evaluated, by the blocks it draws ([`super::random::rng_blocks`], fixed
//! by its shape): every instruction of a body in definition order, a loop's
//! body once per iteration, only the branch a `conditional` takes. That
//! position is a run-time value once an `rng` sits in a loop or a branch;
//! [`thread`] makes it data: the entry starts a `u64[]` counter at 0, each
//! `rng` gets it as a third operand and is followed by `counter + blocks`,
//! and a loop or branch whose body draws (directly or in a loop or branch
//! of its own) carries it: the loop state becomes `(state, counter)`, the
//! branch operands `(operand_k, counter)` and its results `(result,
//! counter)`, each body reading its old parameter as element 0. The
//! condition of such a loop reads its state the same way.
//!
//! A loop whose condition draws (the condition returns only its `pred`,
//! so its counter cannot come back out) is rebuilt around two new bodies:
//! its state becomes `(state, counter, p)`, the condition is called once
//! before the loop and at the end of each iteration as the one branch of
//! a `conditional` (threaded like any branch: `(state, counter) -> (pred,
//! counter)`), the old body likewise, and the new condition returns `p`:
//! condition, body, condition, ..., the interpreter's order of draws. The
//! new bodies sit just before the body holding the loop (callees before
//! callers), the other bodies renumbered.
//!
//! [`thread`] leaves the computation unverified (an `rng` of three
//! operands is no HLO): [`super::random::expand_all`] expands those `rng`s
//! with the counter operand at once, and verifies the result.
//!
//! Not threaded (`None`, the `rng`s stay and a backend refuses them): an
//! `rng` in a computation called per element (a reducer or mapped computation, called
//! a data-dependent number of times in an order the interpreter does not
//! promise), or in a body called from several places in different roles
//! (a branch of a conditional that draws and of one that does not).

use crate::ir::{Body, ComputationId, InstId, Instruction};
use crate::{BinaryOp, Computation, ElementType, Literal, OpKind, Shape};

/// How a body is called.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The entry: the counter starts at 0 here.
    Entry,
    /// A loop body or a branch: the counter comes in with the parameter
    /// and goes out with the result.
    Threaded,
    /// The condition of a threaded loop: reads the state's element 0.
    Condition,
    /// Left as it is.
    Untouched,
}

/// `comp` with `rng`'s stream counter threaded through every loop and
/// branch that draws (see the module docs), unverified, its `rng`s taking
/// the counter as a third operand; `None` when an `rng` sits where the
/// counter cannot be threaded.
pub(crate) fn thread(comp: &Computation) -> Option<Computation> {
    let bodies = comp.bodies();
    let n = bodies.len();
    let entry = comp.entry_id().index();
    // Whether each body draws, directly or through its own regions; an
    // `rng` reached through a per-element call or a condition refuses.
    let mut draws = vec![None::<bool>; n];
    fn visit(bodies: &[Body], b: usize, draws: &mut [Option<bool>]) -> Option<bool> {
        if let Some(d) = draws.get(b).copied().flatten() {
            return Some(d);
        }
        let body = bodies.get(b)?;
        let mut d = false;
        for inst in &body.instructions {
            match &inst.kind {
                OpKind::Rng { .. } => d = true,
                OpKind::While { condition, body } => {
                    d |= visit(bodies, condition.index(), draws)?;
                    d |= visit(bodies, body.index(), draws)?;
                }
                OpKind::Conditional { branches } => {
                    for c in branches {
                        d |= visit(bodies, c.index(), draws)?;
                    }
                }
                kind => {
                    for c in kind.called_computations() {
                        if visit(bodies, c.index(), draws)? {
                            return None;
                        }
                    }
                }
            }
        }
        *draws.get_mut(b)? = Some(d);
        Some(d)
    }
    visit(bodies, entry, &mut draws)?;
    let draws: Vec<bool> = draws.into_iter().map(|d| d == Some(true)).collect();
    // The roles, and the loops and branches that carry the counter: a body
    // called from several places must have the same role at each.
    let mut assigned: Vec<Option<Role>> = vec![None; n];
    assigned[entry] = Some(Role::Entry);
    let mut assign = |c: usize, r: Role| -> Option<()> {
        match assigned.get(c)? {
            Some(old) if *old != r => None,
            _ => {
                assigned[c] = Some(r);
                Some(())
            }
        }
    };
    for body in bodies {
        for inst in &body.instructions {
            match &inst.kind {
                OpKind::While { condition, body } => {
                    let (b, c) = if draws[condition.index()] {
                        (Role::Threaded, Role::Threaded)
                    } else if draws[body.index()] {
                        (Role::Threaded, Role::Condition)
                    } else {
                        (Role::Untouched, Role::Untouched)
                    };
                    assign(body.index(), b)?;
                    assign(condition.index(), c)?;
                }
                OpKind::Conditional { branches } => {
                    let r = if branches.iter().any(|c| draws[c.index()]) {
                        Role::Threaded
                    } else {
                        Role::Untouched
                    };
                    for c in branches {
                        assign(c.index(), r)?;
                    }
                }
                kind => {
                    for c in kind.called_computations() {
                        assign(c.index(), Role::Untouched)?;
                    }
                }
            }
        }
    }
    let role: Vec<Role> = assigned
        .into_iter()
        .map(|r| r.unwrap_or(Role::Untouched))
        .collect();
    let mut names: std::collections::HashSet<String> = bodies
        .iter()
        .flat_map(|b| {
            b.instructions
                .iter()
                .map(|i| i.name.clone())
                .chain(std::iter::once(b.name.clone()))
        })
        .collect();
    // The new ids: each body after the wrapper pairs of the loops with a
    // drawing condition that it and the bodies before it hold.
    let wrapped = |body: &Body| {
        body.instructions
            .iter()
            .filter(
                |i| matches!(&i.kind, OpKind::While { condition, .. } if draws[condition.index()]),
            )
            .count() as u32
    };
    let mut new_id = Vec::with_capacity(n);
    let mut shift = 0u32;
    for body in bodies {
        shift += 2 * wrapped(body);
        new_id.push(ComputationId(new_id.len() as u32 + shift));
    }
    let mut out = Vec::with_capacity(n + shift as usize);
    for (b, body) in bodies.iter().enumerate() {
        let mut wrappers = Vec::new();
        let mut cx = Rewrite {
            draws: &draws,
            names: &mut names,
            new_id: &new_id,
            next_wrapper: ComputationId(new_id[b].0 - 2 * wrapped(body)),
            wrappers: &mut wrappers,
        };
        let rewritten = match role[b] {
            Role::Untouched => {
                let mut copy = body.clone();
                for inst in &mut copy.instructions {
                    for c in inst.kind.called_computations_mut() {
                        *c = *new_id.get(c.index())?;
                    }
                }
                copy
            }
            r => rewrite(body, r, &mut cx)?,
        };
        out.extend(wrappers);
        out.push(rewritten);
    }
    Some(Computation::from_bodies_unverified(comp.name(), out))
}

/// What [`rewrite`] reads and adds to.
struct Rewrite<'a> {
    draws: &'a [bool],
    names: &'a mut std::collections::HashSet<String>,
    /// Each old body id's new one.
    new_id: &'a [ComputationId],
    /// The id of the next wrapper body.
    next_wrapper: ComputationId,
    /// The wrapper bodies made so far (condition, body pairs).
    wrappers: &'a mut Vec<Body>,
}

/// A one-branch `conditional` calling `branch` on `operand` (a value of
/// `insts`), of shape `shape`.
fn call(
    insts: &mut Vec<Instruction>,
    names: &mut std::collections::HashSet<String>,
    base: &str,
    branch: ComputationId,
    operand: InstId,
    shape: Shape,
) -> InstId {
    insts.push(Instruction {
        name: fresh(names, &format!("{base}.index")),
        kind: OpKind::Constant {
            literal: Literal::scalar(0i32),
        },
        operands: vec![],
        shape: Shape::scalar(ElementType::S32),
    });
    let index = InstId((insts.len() - 1) as u32);
    insts.push(Instruction {
        name: fresh(names, base),
        kind: OpKind::Conditional {
            branches: vec![branch],
        },
        operands: vec![index, operand],
        shape,
    });
    InstId((insts.len() - 1) as u32)
}

/// The condition and body wrapping a loop whose condition draws (see the
/// module docs), for state shape `state`, the loop's old condition and
/// body (new ids).
fn wrappers(
    names: &mut std::collections::HashSet<String>,
    base: &str,
    state: &Shape,
    condition: ComputationId,
    body: ComputationId,
) -> [Body; 2] {
    let pred = Shape::scalar(ElementType::Pred);
    let pair = Shape::tuple(vec![state.clone(), counter_shape()]);
    let test = Shape::tuple(vec![pred.clone(), counter_shape()]);
    let triple = Shape::tuple(vec![state.clone(), counter_shape(), pred.clone()]);
    let gte = |name: String, of: InstId, index: i64, shape: Shape| Instruction {
        name,
        kind: OpKind::GetTupleElement { index },
        operands: vec![of],
        shape,
    };
    let push = |insts: &mut Vec<Instruction>, inst: Instruction| -> InstId {
        insts.push(inst);
        InstId((insts.len() - 1) as u32)
    };
    let tuple = |name: String, operands: Vec<InstId>, shape: Shape| Instruction {
        name,
        kind: OpKind::Tuple,
        operands,
        shape,
    };
    let param = |name: String| Instruction {
        name,
        kind: OpKind::Parameter { number: 0 },
        operands: vec![],
        shape: triple.clone(),
    };
    // The condition: the state's `p`.
    let mut insts = Vec::new();
    let st = push(
        &mut insts,
        param(fresh(names, &format!("{base}.test.state"))),
    );
    push(
        &mut insts,
        gte(fresh(names, &format!("{base}.test.p")), st, 2, pred.clone()),
    );
    let cond = Body {
        name: fresh(names, &format!("{base}.test")),
        instructions: insts,
        root: InstId(1),
    };
    // The body: the old body, then the old condition, each threaded.
    let mut insts = Vec::new();
    let st = push(
        &mut insts,
        param(fresh(names, &format!("{base}.step.state"))),
    );
    let s = push(
        &mut insts,
        gte(fresh(names, &format!("{base}.s")), st, 0, state.clone()),
    );
    let c = push(
        &mut insts,
        gte(fresh(names, &format!("{base}.c")), st, 1, counter_shape()),
    );
    let arg = push(
        &mut insts,
        tuple(
            fresh(names, &format!("{base}.in")),
            vec![s, c],
            pair.clone(),
        ),
    );
    let stepped = call(
        &mut insts,
        names,
        &format!("{base}.body"),
        body,
        arg,
        pair.clone(),
    );
    let s2 = push(
        &mut insts,
        gte(
            fresh(names, &format!("{base}.s")),
            stepped,
            0,
            state.clone(),
        ),
    );
    let c2 = push(
        &mut insts,
        gte(
            fresh(names, &format!("{base}.c")),
            stepped,
            1,
            counter_shape(),
        ),
    );
    let arg2 = push(
        &mut insts,
        tuple(fresh(names, &format!("{base}.in")), vec![s2, c2], pair),
    );
    let tested = call(
        &mut insts,
        names,
        &format!("{base}.cond"),
        condition,
        arg2,
        test,
    );
    let p = push(
        &mut insts,
        gte(fresh(names, &format!("{base}.p")), tested, 0, pred),
    );
    let c3 = push(
        &mut insts,
        gte(
            fresh(names, &format!("{base}.c")),
            tested,
            1,
            counter_shape(),
        ),
    );
    let root = push(
        &mut insts,
        tuple(
            fresh(names, &format!("{base}.next")),
            vec![s2, c3, p],
            triple,
        ),
    );
    let step = Body {
        name: fresh(names, &format!("{base}.step")),
        instructions: insts,
        root,
    };
    [cond, step]
}

/// A name not yet taken, from `base`.
fn fresh(names: &mut std::collections::HashSet<String>, base: &str) -> String {
    let mut k = 0usize;
    loop {
        let name = format!(
            "{base}.stream{}",
            if k == 0 {
                String::new()
            } else {
                format!(".{k}")
            }
        );
        k += 1;
        if names.insert(name.clone()) {
            return name;
        }
    }
}

/// The u64 scalar shape of the counter.
fn counter_shape() -> Shape {
    Shape::scalar(ElementType::U64)
}

/// `body` rewritten for its role (see the module docs).
fn rewrite(body: &Body, role: Role, cx: &mut Rewrite<'_>) -> Option<Body> {
    let draws = cx.draws;
    let mut insts: Vec<Instruction> = Vec::with_capacity(body.instructions.len() + 8);
    let push = |insts: &mut Vec<Instruction>, inst: Instruction| -> InstId {
        insts.push(inst);
        InstId((insts.len() - 1) as u32)
    };
    let gte = |name: String, of: InstId, index: i64, shape: Shape| Instruction {
        name,
        kind: OpKind::GetTupleElement { index },
        operands: vec![of],
        shape,
    };
    // The parameter (a new one of the state and counter) and the counter.
    let param_shape = body
        .instructions
        .iter()
        .find(|i| matches!(i.kind, OpKind::Parameter { .. }))
        .map(|i| i.shape.clone());
    let mut new_param = None;
    let mut counter = match role {
        Role::Entry => {
            let c = Instruction {
                name: fresh(cx.names, "counter"),
                kind: OpKind::Constant {
                    literal: Literal::scalar(0u64),
                },
                operands: vec![],
                shape: counter_shape(),
            };
            push(&mut insts, c)
        }
        Role::Threaded | Role::Condition => {
            let p = param_shape?;
            let shape = Shape::tuple(vec![p, counter_shape()]);
            let np = Instruction {
                name: fresh(cx.names, &format!("{}.param", body.name)),
                kind: OpKind::Parameter { number: 0 },
                operands: vec![],
                shape,
            };
            let np = push(&mut insts, np);
            new_param = Some(np);
            let c = gte(fresh(cx.names, "counter"), np, 1, counter_shape());
            push(&mut insts, c)
        }
        Role::Untouched => return None,
    };
    let mut map: Vec<InstId> = Vec::with_capacity(body.instructions.len());
    for inst in &body.instructions {
        let operands: Vec<InstId> = inst.operands.iter().map(|o| map[o.index()]).collect();
        let id = if let (OpKind::Parameter { .. }, Some(np)) = (&inst.kind, new_param) {
            push(
                &mut insts,
                gte(inst.name.clone(), np, 0, inst.shape.clone()),
            )
        } else if let OpKind::Rng { distribution } = &inst.kind {
            let mut ops = operands;
            ops.push(counter);
            let r = push(
                &mut insts,
                Instruction {
                    name: inst.name.clone(),
                    kind: inst.kind.clone(),
                    operands: ops,
                    shape: inst.shape.clone(),
                },
            );
            let blocks = super::random::rng_blocks(*distribution, &inst.shape);
            if blocks > 0 {
                let k = push(
                    &mut insts,
                    Instruction {
                        name: fresh(cx.names, &format!("{}.blocks", inst.name)),
                        kind: OpKind::Constant {
                            literal: Literal::scalar(blocks),
                        },
                        operands: vec![],
                        shape: counter_shape(),
                    },
                );
                counter = push(
                    &mut insts,
                    Instruction {
                        name: fresh(cx.names, &format!("{}.next", inst.name)),
                        kind: OpKind::Binary {
                            op: BinaryOp::Add,
                            broadcast_dimensions: vec![],
                        },
                        operands: vec![counter, k],
                        shape: counter_shape(),
                    },
                );
            }
            r
        } else if let OpKind::While {
            condition: wc,
            body: wb,
        } = &inst.kind
            && draws[wc.index()]
        {
            let [init] = operands.as_slice() else {
                return None;
            };
            let (nc, nb) = (*cx.new_id.get(wc.index())?, *cx.new_id.get(wb.index())?);
            let pred = Shape::scalar(ElementType::Pred);
            let pair = Shape::tuple(vec![inst.shape.clone(), counter_shape()]);
            let test = Shape::tuple(vec![pred.clone(), counter_shape()]);
            let triple = Shape::tuple(vec![inst.shape.clone(), counter_shape(), pred.clone()]);
            let t = push(
                &mut insts,
                Instruction {
                    name: fresh(cx.names, &format!("{}.init", inst.name)),
                    kind: OpKind::Tuple,
                    operands: vec![*init, counter],
                    shape: pair,
                },
            );
            let base = format!("{}.first_test", inst.name);
            let first = call(&mut insts, cx.names, &base, nc, t, test);
            let p0 = push(
                &mut insts,
                gte(fresh(cx.names, &format!("{}.p", inst.name)), first, 0, pred),
            );
            let c1 = push(
                &mut insts,
                gte(fresh(cx.names, "counter"), first, 1, counter_shape()),
            );
            let st = push(
                &mut insts,
                Instruction {
                    name: fresh(cx.names, &format!("{}.state", inst.name)),
                    kind: OpKind::Tuple,
                    operands: vec![*init, c1, p0],
                    shape: triple.clone(),
                },
            );
            let [wcond, wbody] = wrappers(cx.names, &inst.name, &inst.shape, nc, nb);
            let ids = (cx.next_wrapper, ComputationId(cx.next_wrapper.0 + 1));
            cx.next_wrapper = ComputationId(cx.next_wrapper.0 + 2);
            cx.wrappers.push(wcond);
            cx.wrappers.push(wbody);
            let w = push(
                &mut insts,
                Instruction {
                    name: fresh(cx.names, &inst.name),
                    kind: OpKind::While {
                        condition: ids.0,
                        body: ids.1,
                    },
                    operands: vec![st],
                    shape: triple,
                },
            );
            counter = push(
                &mut insts,
                gte(fresh(cx.names, "counter"), w, 1, counter_shape()),
            );
            push(&mut insts, gte(inst.name.clone(), w, 0, inst.shape.clone()))
        } else if let OpKind::While { body: wb, .. } = &inst.kind
            && draws[wb.index()]
        {
            let [init] = operands.as_slice() else {
                return None;
            };
            let pair = Shape::tuple(vec![inst.shape.clone(), counter_shape()]);
            let t = push(
                &mut insts,
                Instruction {
                    name: fresh(cx.names, &format!("{}.init", inst.name)),
                    kind: OpKind::Tuple,
                    operands: vec![*init, counter],
                    shape: pair.clone(),
                },
            );
            let w = push(
                &mut insts,
                Instruction {
                    name: fresh(cx.names, &inst.name),
                    kind: renumbered(&inst.kind, cx.new_id)?,
                    operands: vec![t],
                    shape: pair,
                },
            );
            counter = push(
                &mut insts,
                gte(fresh(cx.names, "counter"), w, 1, counter_shape()),
            );
            push(&mut insts, gte(inst.name.clone(), w, 0, inst.shape.clone()))
        } else if let OpKind::Conditional { branches } = &inst.kind
            && branches.iter().any(|c| draws[c.index()])
        {
            let (selector, args) = operands.split_first()?;
            let mut ops = vec![*selector];
            for (k, a) in args.iter().enumerate() {
                let shape = Shape::tuple(vec![insts[a.index()].shape.clone(), counter_shape()]);
                ops.push(push(
                    &mut insts,
                    Instruction {
                        name: fresh(cx.names, &format!("{}.operand{k}", inst.name)),
                        kind: OpKind::Tuple,
                        operands: vec![*a, counter],
                        shape,
                    },
                ));
            }
            let pair = Shape::tuple(vec![inst.shape.clone(), counter_shape()]);
            let c = push(
                &mut insts,
                Instruction {
                    name: fresh(cx.names, &inst.name),
                    kind: renumbered(&inst.kind, cx.new_id)?,
                    operands: ops,
                    shape: pair,
                },
            );
            counter = push(
                &mut insts,
                gte(fresh(cx.names, "counter"), c, 1, counter_shape()),
            );
            push(&mut insts, gte(inst.name.clone(), c, 0, inst.shape.clone()))
        } else {
            let mut copy = inst.clone();
            copy.operands = operands;
            copy.kind = renumbered(&inst.kind, cx.new_id)?;
            push(&mut insts, copy)
        };
        map.push(id);
    }
    let root = map[body.root.index()];
    let root = if role == Role::Threaded {
        let shape = Shape::tuple(vec![insts[root.index()].shape.clone(), counter_shape()]);
        push(
            &mut insts,
            Instruction {
                name: fresh(cx.names, &format!("{}.result", body.name)),
                kind: OpKind::Tuple,
                operands: vec![root, counter],
                shape,
            },
        )
    } else {
        root
    };
    Some(Body {
        name: body.name.clone(),
        instructions: insts,
        root,
    })
}

/// `kind` with its called computations renumbered by `new_id`.
fn renumbered(kind: &OpKind, new_id: &[ComputationId]) -> Option<OpKind> {
    let mut k = kind.clone();
    for c in k.called_computations_mut() {
        *c = *new_id.get(c.index())?;
    }
    Some(k)
}
