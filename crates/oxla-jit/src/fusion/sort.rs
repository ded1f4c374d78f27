//! Fusion of `sort` and `topk`: which kernel sorts, and how its
//! comparator is compiled.
//!
//! A `sort` or `topk` is one step of its own ([`StepKind::Sort`]): its
//! operands are materialised, and it writes one buffer per result array
//! that anything reads (the buffers of its `get-tuple-element`s, or of the
//! result leaves when the tuple is returned).
//!
//! The comparator decides how the step sorts ([`SortHow`]):
//!
//! - **by keys** when it is a lexicographic comparison of keys in an order
//!   that is total on their bits ([`comparator_keys`]): `compare(L(a),
//!   L(b))` with `LT` or `GT`, `L` an expression of element `a`'s
//!   operands only and `L(b)` the same expression of `b`'s (or the
//!   swapped `compare(L(b), L(a))`), `TOTALORDER` for float keys and any
//!   order for integer and `pred` keys; and `or(first, and(eq(L(a), L(b)),
//!   rest))` for a tie broken by further keys (JAX's `num_keys > 1`, an
//!   index tie-break). Such a comparator is a strict weak order, so its
//!   stable sort is unique: the interpreter's merge sort and the JIT's
//!   radix sort by keys (`sortlib.rs`) agree. A key that is not just an
//!   operand (JAX's NaN and `-0` canonicalisation) is first computed into
//!   a buffer by a *key kernel* ([`StepKind::SortKey`]), a loop kernel
//!   whose expression is the comparator's `L` with `a_k` read from
//!   operand `k`;
//! - **by the comparator** otherwise: the comparator body is compiled
//!   inline into a merge sort that runs the interpreter's algorithm
//!   step for step (`codegen/sort.rs`), so the two agree for every
//!   comparator, strict weak order or not (IEEE `LT` with NaNs, `LE`, a
//!   constant);
//! - a `topk` selects the `k` winners of each row by their total-order
//!   keys (`sortlib.rs`).

use std::collections::HashMap;

use oxla_ir::{
    BinaryOp, Body, ComparisonDirection, ComparisonOrder, Computation, ComputationId, ElementType,
    InstId, OpKind, Result, Shape,
};

use super::{BufferKind, Plan, Step, StepClass, StepKind};
use crate::entity::BufferId;
use crate::error::{Stage, internal};
use crate::graph::scalar_bits;

/// One key of a sort by keys, as fusion finds it in the comparator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyExpr {
    /// Operand `k` itself, or an expression of the comparator body (the
    /// `a` side) a key kernel computes.
    pub(crate) source: KeySource,
    /// The key's element type.
    pub(crate) ty: ElementType,
    /// `GT`: larger keys first.
    pub(crate) descending: bool,
}

/// Where a key's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeySource {
    Operand(usize),
    Computed(InstId),
}

/// A key of a sort step: read from `buf` (an operand's buffer, or a key
/// kernel's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortKey {
    pub(crate) buf: BufferId,
    pub(crate) ty: ElementType,
    pub(crate) descending: bool,
}

/// How a sort step orders its rows (see the module docs).
#[derive(Clone, Debug)]
pub(crate) enum SortHow {
    /// A stable sort by keys, most significant first.
    Keys(Vec<SortKey>),
    /// The comparator `to_apply`, compiled inline into a merge sort that
    /// keeps two index arrays per row in `scratch`.
    Comparator {
        to_apply: ComputationId,
        scratch: BufferId,
    },
    /// `topk`: the first `k` of a stable sort by `GT` (`largest`) or `LT`
    /// in the total order.
    TopK { k: i64, largest: bool },
}

/// A `sort` or `topk` step (see [`StepKind::Sort`]).
///
/// [`StepKind::Sort`]: super::StepKind::Sort
#[derive(Clone, Debug)]
pub(crate) struct SortStep {
    /// The `sort` or `topk`.
    pub(crate) inst: InstId,
    /// The operands' buffers.
    pub(crate) inputs: Vec<BufferId>,
    /// One per result array: its buffer, if anything reads it.
    pub(crate) outputs: Vec<Option<BufferId>>,
    /// The sorted dimension.
    pub(crate) dimension: usize,
    pub(crate) how: SortHow,
}

impl SortStep {
    /// Every buffer the step writes: its outputs and its scratch.
    pub(crate) fn writes(&self) -> Vec<BufferId> {
        let mut w: Vec<BufferId> = self.outputs.iter().flatten().copied().collect();
        if let SortHow::Comparator { scratch, .. } = &self.how {
            w.push(*scratch);
        }
        w
    }

    /// The step's head line in the fusion text.
    pub(crate) fn head(&self, comp: &Computation, body: &Body, plan: &Plan) -> String {
        let inst = body.inst(self.inst);
        let outs: Vec<String> = self
            .outputs
            .iter()
            .map(|o| o.map_or("-".to_string(), |b| format!("{b}")))
            .collect();
        let how = match &self.how {
            SortHow::Keys(keys) => {
                let keys: Vec<String> = keys
                    .iter()
                    .map(|k| {
                        format!(
                            "{} {}{}",
                            k.buf,
                            k.ty,
                            if k.descending { " descending" } else { "" }
                        )
                    })
                    .collect();
                format!("by keys [{}] (stable radix sort)", keys.join(", "))
            }
            SortHow::Comparator { to_apply, scratch } => format!(
                "by the comparator {} inline (merge sort, indices in {scratch} {})",
                comp.body(*to_apply).name,
                plan.buffers[*scratch].shape
            ),
            SortHow::TopK { k, largest } => format!(
                "top {k} {} (selection)",
                if *largest { "largest" } else { "smallest" }
            ),
        };
        format!(
            "{} root={} dimension={} {how} -> [{}]",
            inst.kind.opcode_name(),
            inst.name,
            self.dimension,
            outs.join(", ")
        )
    }

    /// Every buffer the step reads: its inputs and its keys.
    pub(crate) fn reads(&self) -> Vec<BufferId> {
        let mut r = self.inputs.clone();
        if let SortHow::Keys(keys) = &self.how {
            r.extend(keys.iter().map(|k| k.buf));
        }
        r.sort_unstable();
        r.dedup();
        r
    }
}

impl Plan {
    /// The steps of the `sort` or `topk` `id`: its key kernels, then the
    /// sort itself, writing the buffers `parts` (or `materialised`, for
    /// an array-shaped sort) hold for its results. None when nothing
    /// reads any result.
    pub(super) fn sort_steps(
        &mut self,
        comp: &Computation,
        id: InstId,
        parts: &HashMap<(InstId, usize), BufferId>,
    ) -> Result<()> {
        let body = comp.entry();
        let inst = body.inst(id);
        let inputs = inst
            .operands
            .iter()
            .map(|o| {
                self.materialised.get(o).copied().ok_or_else(|| {
                    internal(
                        Stage::Fusion,
                        format!(
                            "operand `{}` of `{}` has no buffer",
                            body.inst(*o).name,
                            inst.name
                        ),
                    )
                })
            })
            .collect::<Result<Vec<BufferId>>>()?;
        let outputs: Vec<Option<BufferId>> = if inst.shape.is_tuple() {
            (0..inst.shape.tuple_shapes().len())
                .map(|k| parts.get(&(id, k)).copied())
                .collect()
        } else {
            vec![self.materialised.get(&id).copied()]
        };
        let Some(out) = outputs.iter().flatten().next().copied() else {
            return Ok(());
        };
        let dims = body.inst(inst.operands[0]).shape.dims().to_vec();
        let (dimension, how) = match super::step_class(&inst.kind) {
            StepClass::TopK { k, largest } => (
                dims.len().saturating_sub(1),
                SortHow::TopK {
                    k: *k,
                    largest: *largest,
                },
            ),
            StepClass::Sort {
                dimension,
                to_apply,
            } => {
                let how = match comparator_keys(comp, *to_apply) {
                    Some(keys) => {
                        let mut sort_keys = Vec::with_capacity(keys.len());
                        for (c, key) in keys.into_iter().enumerate() {
                            let buf = match key.source {
                                KeySource::Operand(k) => *inputs.get(k).ok_or_else(|| {
                                    internal(
                                        Stage::Fusion,
                                        format!(
                                            "the comparator of `{}` reads operand {k}",
                                            inst.name
                                        ),
                                    )
                                })?,
                                KeySource::Computed(expr) => {
                                    let shape = Shape::new(key.ty, &dims);
                                    let name = format!("{}.key{c}", inst.name);
                                    let buf = self.push(BufferKind::Temp, &shape, &name);
                                    self.steps.push(Step {
                                        kind: StepKind::SortKey {
                                            sort: id,
                                            comparator: *to_apply,
                                            expr,
                                            inputs: inputs.clone(),
                                        },
                                        out: buf,
                                        fused: vec![],
                                    });
                                    buf
                                }
                            };
                            sort_keys.push(SortKey {
                                buf,
                                ty: key.ty,
                                descending: key.descending,
                            });
                        }
                        SortHow::Keys(sort_keys)
                    }
                    None => {
                        // Two index arrays per row: `s32` while a row's
                        // indices fit.
                        let numel = dims.iter().product::<i64>();
                        let length = usize::try_from(*dimension)
                            .ok()
                            .and_then(|d| dims.get(d))
                            .copied()
                            .unwrap_or(0);
                        let ty = if length <= i64::from(i32::MAX) {
                            ElementType::S32
                        } else {
                            ElementType::S64
                        };
                        let shape = Shape::new(ty, &[numel.saturating_mul(2)]);
                        let name = format!("{}.scratch", inst.name);
                        let scratch = self.push(BufferKind::Temp, &shape, &name);
                        SortHow::Comparator {
                            to_apply: *to_apply,
                            scratch,
                        }
                    }
                };
                (usize::try_from(*dimension).unwrap_or(0), how)
            }
            StepClass::Param
            | StepClass::Constant
            | StepClass::Alias
            | StepClass::While { .. }
            | StepClass::Branch { .. }
            | StepClass::Reduce
            | StepClass::Dot { .. }
            | StepClass::Family(_)
            | StepClass::Fused => {
                return Err(internal(
                    Stage::Fusion,
                    format!("`{}` is not a sort", inst.name),
                ));
            }
        };
        self.steps.push(Step {
            kind: StepKind::Sort(Box::new(SortStep {
                inst: id,
                inputs,
                outputs,
                dimension,
                how,
            })),
            out,
            fused: vec![],
        });
        Ok(())
    }
}

/// The keys of comparator `to_apply` if it is a lexicographic comparison
/// of keys in a total order (see the module docs), most significant
/// first; `None` if it is anything else.
pub(crate) fn comparator_keys(comp: &Computation, to_apply: ComputationId) -> Option<Vec<KeyExpr>> {
    let body = comp.bodies().get(to_apply.index())?;
    let mut keys = Vec::new();
    let mut at = body.root;
    loop {
        let inst = body.instructions.get(at.index())?;
        if !inst.shape.is_scalar() || inst.shape.element_type() != ElementType::Pred {
            return None;
        }
        // The last key: one strict comparison.
        if let Some((key, _)) = strict_key(body, at) {
            keys.push(key);
            return Some(keys);
        }
        // `or(first, and(eq, rest))`, in either operand order.
        let OpKind::Binary {
            op: BinaryOp::Or, ..
        } = inst.kind
        else {
            return None;
        };
        let (x, y) = (inst.operands[0], inst.operands[1]);
        let (first, tie) = if strict_key(body, x).is_some() {
            (x, y)
        } else {
            (y, x)
        };
        let (key, operands) = strict_key(body, first)?;
        let tie_inst = body.instructions.get(tie.index())?;
        let OpKind::Binary {
            op: BinaryOp::And, ..
        } = tie_inst.kind
        else {
            return None;
        };
        let (p, q) = (tie_inst.operands[0], tie_inst.operands[1]);
        let (rest, eq) = if equal_keys(body, p, operands, key.ty) {
            (q, p)
        } else {
            (p, q)
        };
        if !equal_keys(body, eq, operands, key.ty) {
            return None;
        }
        keys.push(key);
        at = rest;
    }
}

/// `compare(x, y)` with `LT` or `GT` where `y` mirrors `x` (or `x`
/// mirrors `y`), in an order total on the key type: the key and the
/// compare's operands.
fn strict_key(body: &Body, id: InstId) -> Option<(KeyExpr, (InstId, InstId))> {
    let inst = body.instructions.get(id.index())?;
    let OpKind::Binary {
        op: BinaryOp::Compare(direction, order),
        ..
    } = inst.kind
    else {
        return None;
    };
    let (x, y) = (*inst.operands.first()?, *inst.operands.get(1)?);
    let xs = &body.instructions.get(x.index())?.shape;
    if !xs.is_scalar() {
        return None;
    }
    let ty = xs.element_type();
    if !total_order(ty, order) {
        return None;
    }
    let descending = match direction {
        ComparisonDirection::Lt => false,
        ComparisonDirection::Gt => true,
        ComparisonDirection::Eq
        | ComparisonDirection::Ne
        | ComparisonDirection::Le
        | ComparisonDirection::Ge => return None,
    };
    // `compare(L(a), L(b))`, or the swapped `compare(L(b), L(a))`.
    let (a_side, descending) = if mirrors(body, x, y) {
        (x, descending)
    } else if mirrors(body, y, x) {
        (y, !descending)
    } else {
        return None;
    };
    let source = if let OpKind::Parameter { number } = body.instructions.get(a_side.index())?.kind
        && number % 2 == 0
    {
        KeySource::Operand(number as usize / 2)
    } else {
        KeySource::Computed(a_side)
    };
    Some((
        KeyExpr {
            source,
            ty,
            descending,
        },
        (x, y),
    ))
}

/// Whether `order` is a total order on the bits of `ty`: `TOTALORDER` on
/// floats; either order on integers and `pred`.
fn total_order(ty: ElementType, order: ComparisonOrder) -> bool {
    match ty {
        ElementType::F32 | ElementType::F64 => order == ComparisonOrder::Total,
        ElementType::Pred
        | ElementType::S8
        | ElementType::S16
        | ElementType::S32
        | ElementType::S64
        | ElementType::U8
        | ElementType::U16
        | ElementType::U32
        | ElementType::U64 => true,
        // The types of issue 13 never get here (unsupported.rs refuses
        // them before compiling); no key sort for them.
        ElementType::Tuple
        | ElementType::Token
        | ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::C64
        | ElementType::C128 => false,
    }
}

/// Whether `id` is `compare(x, y)` (or `compare(y, x)`) with `EQ` in the
/// key's order: the tie of a key compared at `operands`.
fn equal_keys(body: &Body, id: InstId, operands: (InstId, InstId), ty: ElementType) -> bool {
    let Some(inst) = body.instructions.get(id.index()) else {
        return false;
    };
    let OpKind::Binary {
        op: BinaryOp::Compare(ComparisonDirection::Eq, order),
        ..
    } = inst.kind
    else {
        return false;
    };
    let ops = (inst.operands[0], inst.operands[1]);
    total_order(ty, order) && (ops == operands || ops == (operands.1, operands.0))
}

/// The most instruction pairs [`mirrors`] compares (comparators are
/// small; a huge one is simply compiled as a comparator).
const MIRROR_BUDGET: usize = 4096;

/// Whether `b` is `a` with every parameter `a_k` (`2k`) replaced by `b_k`
/// (`2k + 1`), and `a` reads no `b_k`: then `a` is a function of element
/// `a`'s operands and `b` the same function of element `b`'s.
fn mirrors(body: &Body, a: InstId, b: InstId) -> bool {
    let mut stack = vec![(a, b)];
    let mut seen = std::collections::HashSet::new();
    while let Some((x, y)) = stack.pop() {
        if !seen.insert((x, y)) {
            continue;
        }
        if seen.len() > MIRROR_BUDGET {
            return false;
        }
        let (Some(ix), Some(iy)) = (
            body.instructions.get(x.index()),
            body.instructions.get(y.index()),
        ) else {
            return false;
        };
        if ix.shape != iy.shape || ix.operands.len() != iy.operands.len() {
            return false;
        }
        let same_kind = match (&ix.kind, &iy.kind) {
            (OpKind::Parameter { number: p }, OpKind::Parameter { number: q }) => {
                p % 2 == 0 && *q == p + 1
            }
            (OpKind::Parameter { .. }, _) | (_, OpKind::Parameter { .. }) => false,
            (OpKind::Constant { literal: l }, OpKind::Constant { literal: m }) => {
                x == y
                    || match (scalar_bits(l), scalar_bits(m)) {
                        (Some(p), Some(q)) => p == q,
                        _ => false,
                    }
            }
            (kx, ky) => kx == ky,
        };
        if !same_kind {
            return false;
        }
        // Ops whose value depends on more than their operands (none in a
        // scalar comparator today; calls into other bodies must be the
        // same body, which `kx == ky` already requires).
        stack.extend(ix.operands.iter().copied().zip(iy.operands.iter().copied()));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxla_ir::parser::parse_hlo_module;

    fn keys_of(text: &str) -> Option<Vec<KeyExpr>> {
        let comp = parse_hlo_module(text).expect("parses");
        let body = comp.entry();
        let sort = body
            .instructions
            .iter()
            .find_map(|i| match i.kind {
                OpKind::Sort { to_apply, .. } => Some(to_apply),
                _ => None,
            })
            .expect("a sort");
        comparator_keys(&comp, sort)
    }

    fn module(comparator: &str) -> String {
        format!(
            "HloModule m\n\ncmp {{\n{comparator}\n}}\n\nENTRY e {{\n  x = f32[4] parameter(0)\n  \
             i = s32[4] parameter(1)\n  ROOT s = (f32[4], s32[4]) sort(x, i), dimensions={{0}}, \
             to_apply=cmp\n}}\n"
        )
    }

    const PARAMS: &str = "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                          i = s32[] parameter(2)\n  j = s32[] parameter(3)\n";

    #[test]
    fn total_order_compares_are_keys_and_ieee_ones_are_not() {
        let lt = keys_of(&module(&format!(
            "{PARAMS}  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER"
        )))
        .expect("keys");
        assert_eq!(
            lt,
            vec![KeyExpr {
                source: KeySource::Operand(0),
                ty: ElementType::F32,
                descending: false
            }]
        );
        // IEEE LT is not a strict weak order with NaNs.
        assert!(
            keys_of(&module(&format!(
                "{PARAMS}  ROOT c = pred[] compare(a, b), direction=LT"
            )))
            .is_none()
        );
        // LE is not strict.
        assert!(
            keys_of(&module(&format!(
                "{PARAMS}  ROOT c = pred[] compare(i, j), direction=LE"
            )))
            .is_none()
        );
        // Swapped: b < a is a descending sort; integers in any order.
        let gt = keys_of(&module(&format!(
            "{PARAMS}  ROOT c = pred[] compare(j, i), direction=LT"
        )))
        .expect("keys");
        assert_eq!(gt[0].source, KeySource::Operand(1));
        assert!(gt[0].descending);
        // Comparing a with a is no key.
        assert!(
            keys_of(&module(&format!(
                "{PARAMS}  ROOT c = pred[] compare(i, i), direction=LT"
            )))
            .is_none()
        );
    }

    #[test]
    fn jax_comparators_are_keys() {
        let canon = "  zero = f32[] constant(0)\n  nan = f32[] constant(nan)\n  \
                     az = pred[] compare(a, zero), direction=EQ\n  \
                     an = pred[] compare(a, a), direction=NE\n  \
                     a1 = f32[] select(az, zero, a)\n  a2 = f32[] select(an, nan, a1)\n  \
                     bz = pred[] compare(b, zero), direction=EQ\n  \
                     bn = pred[] compare(b, b), direction=NE\n  \
                     b1 = f32[] select(bz, zero, b)\n  b2 = f32[] select(bn, nan, b1)\n";
        let one = keys_of(&module(&format!(
            "{PARAMS}{canon}  ROOT c = pred[] compare(a2, b2), direction=LT, type=TOTALORDER"
        )))
        .expect("keys");
        assert!(matches!(one[0].source, KeySource::Computed(_)));
        let two = keys_of(&module(&format!(
            "{PARAMS}{canon}  lt = pred[] compare(a2, b2), direction=LT, type=TOTALORDER\n  \
             eq = pred[] compare(a2, b2), direction=EQ, type=TOTALORDER\n  \
             lt2 = pred[] compare(i, j), direction=LT\n  and = pred[] and(eq, lt2)\n  \
             ROOT or = pred[] or(lt, and)"
        )))
        .expect("keys");
        assert_eq!(two.len(), 2);
        assert_eq!(two[1].source, KeySource::Operand(1));
        // A tie on something else than the first key is no lexicographic
        // order.
        assert!(
            keys_of(&module(&format!(
                "{PARAMS}{canon}  lt = pred[] compare(a2, b2), direction=LT, type=TOTALORDER\n  \
                 eq = pred[] compare(i, j), direction=EQ\n  \
                 lt2 = pred[] compare(i, j), direction=LT\n  and = pred[] and(eq, lt2)\n  \
                 ROOT or = pred[] or(lt, and)"
            )))
            .is_none()
        );
        // A key reading element b on its a side is no key.
        assert!(
            keys_of(&module(&format!(
                "{PARAMS}  s = f32[] add(a, b)\n  t = f32[] add(b, a)\n  \
                 ROOT c = pred[] compare(s, t), direction=LT, type=TOTALORDER"
            )))
            .is_none()
        );
    }
}
