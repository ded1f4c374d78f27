//! `expand_broadcasts`: rewrites a computation into XLA's strict HLO form.
//!
//! oxla's IR keeps the broadcasting of XLA's *builder*: a binary op may
//! carry `broadcast_dimensions` (InDim broadcasting of a lower-rank
//! operand), equal-rank operands may stretch their size-1 dimensions
//! (degenerate broadcasting), `select` and `clamp` accept scalar operands,
//! and a `broadcast` may stretch a size-1 operand dimension (like StableHLO's
//! `broadcast_in_dim`). HLO itself allows none of that: every operand of an
//! elementwise instruction has the result's dims, and a `broadcast` maps
//! sizes exactly. This pass makes every implicit broadcast explicit, emitting
//! the same instruction sequences as XLA's `XlaBuilder` (see
//! `shared/reference/xla-rules.md`, A3, A4 and A9), so that its output is
//! valid HLO text as printed.
//!
//! # The rewrite of a binary op
//!
//! For a binary op whose inferred result has dims `R`, XLA's builder runs
//! three steps, and so does this pass:
//!
//! 1. **Rank expansion** (InDim). Each operand of lower rank than `R` that is
//!    not a scalar becomes `broadcast(x), dimensions=broadcast_dimensions` to
//!    `R`'s dims with the operand's *own* sizes written at the mapped
//!    positions, so a size-1 dimension stays 1 at this stage.
//! 2. **Degenerate expansion.** Each operand whose dims still differ from
//!    `R`: a scalar becomes `broadcast(x), dimensions={}`; any other operand
//!    (now of `R`'s rank) is reshaped to the sizes it keeps (the size-1
//!    dimensions that must stretch are dropped), then broadcast to `R` with
//!    `dimensions` = the kept indices.
//! 3. The op itself, with no `broadcast_dimensions`.
//!
//! Step 1 runs for both operands before step 2 runs for either, as in
//! `XlaBuilder::BinaryOp`. XLA's worked example,
//! `add(f32[1,2], f32[2,3,1]), broadcast_dimensions={1,2}` (result
//! `f32[2,3,2]`):
//!
//! ```text
//!  lhs f32[1,2]                               rhs f32[2,3,1]
//!     |  1. broadcast, dimensions={1,2}          |
//!     v     (sizes kept: the 1 stays 1)          |
//!  f32[2,1,2]                                    |
//!     |  2. reshape (drop dim 1, size 1)         |  2. reshape (drop dim 2, size 1)
//!     v                                          v
//!  f32[2,2]                                   f32[2,3]
//!     |     broadcast, dimensions={0,2}          |     broadcast, dimensions={0,1}
//!     v                                          v
//!  f32[2,3,2] ------------> add <------------ f32[2,3,2]
//!                   3.  f32[2,3,2]
//! ```
//!
//! # The other rewrites
//!
//! - A `broadcast` that stretches a size-1 operand dimension becomes what
//!   XLA's `BroadcastInDim` emits: a `broadcast` to the intermediate shape
//!   that keeps the operand's sizes, then step 2 above. A `broadcast` that
//!   maps sizes exactly is kept as it is.
//!
//!   ```text
//!   broadcast(f32[2,1,4] x), dimensions={0,1,2} -> f32[2,3,4]
//!     ==>  f32[2,1,4] --broadcast {0,1,2}--> f32[2,1,4] --reshape--> f32[2,4]
//!                     --broadcast {0,2}--> f32[2,3,4]
//!   ```
//! - `select` and `clamp`: a scalar operand next to array operands becomes
//!   `broadcast(x), dimensions={}` to the result's dims (with its own element
//!   type). HLO would accept clamp's scalar `min`/`max` as they are, but
//!   `XlaBuilder::TernaryOp` broadcasts them as well, and this pass emits
//!   what the builder emits.
//! - Unary ops and `convert` never broadcast; every other op is not
//!   elementwise. Both are copied unchanged (with renumbered operands).
//!
//! # Invariants
//!
//! - Instructions that need no change keep their names; the op a chain
//!   feeds (and, for a rewritten `broadcast`, the last instruction of its
//!   chain) keeps the original name, so the root keeps its name. New
//!   instructions get fresh names `broadcast.N` / `reshape.N`, with `N` from
//!   one counter for the whole computation starting at its instruction
//!   count, skipping names already in use; the names are deterministic.
//! - Instructions stay in definition order; new ones come right before their
//!   user. Called bodies (reducers) go through the same rewrite and keep
//!   their positions, so `to_apply` ids stay valid.
//! - The output is built with [`Computation::from_bodies`] (which verifies)
//!   and checked with [`verify_strict_hlo`]; a failure of either is a bug in
//!   this pass and is reported as [`Error::Internal`] with `stage` =
//!   `"expand_broadcasts pass"`. The input is verified first; an input that
//!   does not verify is not rewritten, and the verifier's error is returned.
//! - The pass is idempotent: its output needs no change, so a second run
//!   copies it and prints the same text.

use std::collections::HashSet;

use crate::ir::{Body, InstId, Instruction, OpKind};
use crate::verifier::{verify, verify_strict_hlo};
use crate::{Computation, Error, Result, Shape};

/// The name this pass goes by in its errors.
pub const PASS_NAME: &str = "expand_broadcasts pass";

/// Rewrites `comp` into XLA's strict HLO form: no binary op carries
/// `broadcast_dimensions`, every operand of an elementwise op has the
/// result's dims, and every `broadcast` maps sizes exactly. See the module
/// documentation for the exact instruction sequences.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, Shape, passes::expand_broadcasts, verifier};
/// let mut b = Builder::new("mv");
/// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
/// let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
/// let y = b.add(x, v, &[1])?;
/// let comp = b.build(y)?;
/// assert!(verifier::verify_strict_hlo(&comp).is_err()); // implicit broadcast
///
/// let strict = expand_broadcasts(&comp)?;
/// verifier::verify_strict_hlo(&strict)?;
/// assert_eq!(strict.to_hlo_text(), "\
/// HloModule mv, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2,3]{1,0}}
///
/// ENTRY mv {
///   x = f32[2,3]{1,0} parameter(0)
///   v = f32[3]{0} parameter(1)
///   broadcast.3 = f32[2,3]{1,0} broadcast(v), dimensions={1}
///   ROOT add.2 = f32[2,3]{1,0} add(x, broadcast.3)
/// }
/// ");
/// // Idempotent: a second run changes nothing.
/// assert_eq!(expand_broadcasts(&strict)?, strict);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_broadcasts(comp: &Computation) -> Result<Computation> {
    verify(comp)?;
    let mut names = NameGen::new(comp);
    let mut bodies = Vec::with_capacity(comp.bodies().len());
    for body in comp.bodies() {
        bodies.push(rewrite_body(body, &mut names)?);
    }
    let out = Computation::from_bodies(comp.name(), bodies).map_err(|e| {
        pass_error(format!(
            "the rewritten computation does not verify (a bug in the pass):\n{e}"
        ))
    })?;
    verify_strict_hlo(&out).map_err(|e| {
        pass_error(format!(
            "the rewritten computation is not in strict HLO form (a bug in the pass):\n{e}"
        ))
    })?;
    Ok(out)
}

fn pass_error(message: String) -> Error {
    Error::Internal {
        stage: PASS_NAME.into(),
        message,
    }
}

/// Fresh, deterministic instruction names: `broadcast.N`, `reshape.N`.
struct NameGen {
    taken: HashSet<String>,
    next: usize,
}

impl NameGen {
    fn new(comp: &Computation) -> NameGen {
        let taken: HashSet<String> = comp
            .bodies()
            .iter()
            .flat_map(|b| b.instructions.iter().map(|i| i.name.clone()))
            .collect();
        let next = comp.bodies().iter().map(|b| b.instructions.len()).sum();
        NameGen { taken, next }
    }

    fn fresh(&mut self, base: &str) -> String {
        loop {
            let name = format!("{base}.{}", self.next);
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}

/// The new body under construction.
struct BodyWriter<'a> {
    names: &'a mut NameGen,
    insts: Vec<Instruction>,
}

impl BodyWriter<'_> {
    fn push(&mut self, name: String, kind: OpKind, operands: Vec<InstId>, shape: Shape) -> InstId {
        let id = InstId(self.insts.len() as u32);
        self.insts.push(Instruction {
            name,
            kind,
            operands,
            shape,
        });
        id
    }

    fn shape(&self, id: InstId) -> Result<&Shape> {
        self.insts
            .get(id.index())
            .map(|i| &i.shape)
            .ok_or_else(|| internal(format!("operand #{} does not exist yet.", id.0)))
    }

    /// `name`, or a fresh name for `opcode`.
    fn name_or_fresh(&mut self, name: Option<String>, opcode: &str) -> String {
        name.unwrap_or_else(|| self.names.fresh(opcode))
    }

    /// A `broadcast` of `x` to `dims` (element type kept) with `dimensions`.
    fn broadcast(
        &mut self,
        x: InstId,
        dims: &[i64],
        dimensions: Vec<i64>,
        name: Option<String>,
    ) -> Result<InstId> {
        let shape = Shape::new(self.shape(x)?.element_type(), dims);
        let name = self.name_or_fresh(name, "broadcast");
        Ok(self.push(name, OpKind::Broadcast { dimensions }, vec![x], shape))
    }

    /// Step 1 (XLA's `BroadcastToTargetRank`): a non-scalar operand of lower
    /// rank than `result` becomes a broadcast to `result`'s dims with its own
    /// sizes at the positions `broadcast_dimensions` names.
    fn rank_expand(
        &mut self,
        x: InstId,
        result: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<InstId> {
        let xs = self.shape(x)?.clone();
        if xs.is_scalar() || xs.rank() >= result.len() {
            return Ok(x);
        }
        if broadcast_dimensions.len() != xs.rank() {
            return Err(internal(format!(
                "broadcast_dimensions {:?} do not fit operand {xs} of a result of dims {result:?}.",
                broadcast_dimensions
            )));
        }
        let mut target = result.to_vec();
        for (&size, &d) in xs.dims().iter().zip(broadcast_dimensions) {
            let slot = usize::try_from(d)
                .ok()
                .and_then(|d| target.get_mut(d))
                .ok_or_else(|| {
                    internal(format!(
                        "broadcast dimension {d} is out of range for dims {result:?}."
                    ))
                })?;
            *slot = size;
        }
        self.broadcast(x, &target, broadcast_dimensions.to_vec(), None)
    }

    /// Step 2 (XLA's `AddBroadcastSequence`): brings `x` to exactly
    /// `result`'s dims. A scalar gets one `broadcast`, dimensions={}; an
    /// operand of `result`'s rank is reshaped to the sizes it keeps and
    /// broadcast with the kept indices. The final broadcast gets `name` if
    /// given.
    fn degenerate_expand(
        &mut self,
        x: InstId,
        result: &[i64],
        name: Option<String>,
    ) -> Result<InstId> {
        let xs = self.shape(x)?.clone();
        if xs.dims() == result {
            return Ok(x);
        }
        if xs.is_scalar() {
            return self.broadcast(x, result, vec![], name);
        }
        if xs.rank() != result.len() {
            return Err(internal(format!(
                "operand {xs} has neither the rank of the result dims {result:?} nor rank 0."
            )));
        }
        let mut kept_dims = Vec::new();
        let mut kept_sizes = Vec::new();
        for (i, (&s, &r)) in xs.dims().iter().zip(result).enumerate() {
            if s == r {
                kept_dims.push(i as i64);
                kept_sizes.push(s);
            } else if s != 1 {
                return Err(internal(format!(
                    "dimension {i} of {xs} has size {s}, which is neither 1 nor the result size {r}."
                )));
            }
        }
        let reshaped_name = self.names.fresh("reshape");
        let reshaped = self.push(
            reshaped_name,
            OpKind::Reshape,
            vec![x],
            Shape::new(xs.element_type(), &kept_sizes),
        );
        self.broadcast(reshaped, result, kept_dims, name)
    }

    /// A scalar operand of a `select`/`clamp` with an array result becomes a
    /// broadcast to the result's dims; other operands are kept.
    fn scalar_to(&mut self, x: InstId, result: &[i64]) -> Result<InstId> {
        if self.shape(x)?.is_scalar() && !result.is_empty() {
            self.broadcast(x, result, vec![], None)
        } else {
            Ok(x)
        }
    }
}

fn internal(message: String) -> Error {
    pass_error(message)
}

/// Rewrites one body; `to_apply` ids stay valid because bodies keep their
/// positions.
fn rewrite_body(body: &Body, names: &mut NameGen) -> Result<Body> {
    let mut w = BodyWriter {
        names,
        insts: Vec::with_capacity(body.instructions.len()),
    };
    // Old instruction index -> new id.
    let mut map: Vec<InstId> = Vec::with_capacity(body.instructions.len());
    for inst in &body.instructions {
        let operands = inst
            .operands
            .iter()
            .map(|o| {
                map.get(o.index()).copied().ok_or_else(|| {
                    internal(format!(
                        "`{}` refers to operand #{}, not defined before it.",
                        inst.name, o.0
                    ))
                })
            })
            .collect::<Result<Vec<InstId>>>()?;
        let result = inst.shape.dims();
        let new_id = match &inst.kind {
            OpKind::Binary {
                op,
                broadcast_dimensions,
            } => {
                let [lhs, rhs] = operands[..] else {
                    return Err(internal(format!("`{}` needs two operands.", inst.name)));
                };
                let lhs = w.rank_expand(lhs, result, broadcast_dimensions)?;
                let rhs = w.rank_expand(rhs, result, broadcast_dimensions)?;
                let lhs = w.degenerate_expand(lhs, result, None)?;
                let rhs = w.degenerate_expand(rhs, result, None)?;
                w.push(
                    inst.name.clone(),
                    OpKind::Binary {
                        op: *op,
                        broadcast_dimensions: Vec::new(),
                    },
                    vec![lhs, rhs],
                    inst.shape.clone(),
                )
            }
            OpKind::Select | OpKind::Clamp => {
                let operands = operands
                    .into_iter()
                    .map(|o| w.scalar_to(o, result))
                    .collect::<Result<Vec<_>>>()?;
                w.push(
                    inst.name.clone(),
                    inst.kind.clone(),
                    operands,
                    inst.shape.clone(),
                )
            }
            OpKind::Broadcast { dimensions } => {
                let [x] = operands[..] else {
                    return Err(internal(format!("`{}` needs one operand.", inst.name)));
                };
                // XLA's BroadcastInDim: the intermediate keeps the operand's
                // own sizes at the mapped output dims.
                let xs = w.shape(x)?.clone();
                let mut intermediate = result.to_vec();
                for (&size, &d) in xs.dims().iter().zip(dimensions) {
                    if let Some(slot) = usize::try_from(d)
                        .ok()
                        .and_then(|d| intermediate.get_mut(d))
                    {
                        *slot = size;
                    }
                }
                if intermediate == result {
                    w.push(
                        inst.name.clone(),
                        inst.kind.clone(),
                        vec![x],
                        inst.shape.clone(),
                    )
                } else {
                    let widened = w.broadcast(x, &intermediate, dimensions.clone(), None)?;
                    w.degenerate_expand(widened, result, Some(inst.name.clone()))?
                }
            }
            OpKind::Parameter { .. }
            | OpKind::Constant { .. }
            | OpKind::Iota { .. }
            | OpKind::Unary(_)
            | OpKind::Convert
            | OpKind::Reshape
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::Reduce { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::Tuple
            | OpKind::GetTupleElement { .. }
            | OpKind::While { .. }
            | OpKind::Conditional { .. }
            | OpKind::OptimizationBarrier
            | OpKind::Map { .. }
            | OpKind::Convolution { .. }
            | OpKind::ReduceWindow { .. }
            | OpKind::SelectAndScatter { .. }
            | OpKind::Gather { .. }
            | OpKind::Scatter { .. }
            | OpKind::DynamicSlice { .. }
            | OpKind::DynamicUpdateSlice
            | OpKind::Complex
            | OpKind::Real
            | OpKind::Imag
            | OpKind::Fft { .. }
            | OpKind::Sort { .. }
            | OpKind::TopK { .. }
            | OpKind::BitcastConvert
            | OpKind::Bitcast
            | OpKind::ReducePrecision { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
            | OpKind::CustomCall(_)
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. } => w.push(
                inst.name.clone(),
                inst.kind.clone(),
                operands,
                inst.shape.clone(),
            ),
        };
        map.push(new_id);
    }
    let root = map.get(body.root.index()).copied().ok_or_else(|| {
        internal(format!(
            "the root #{} of `{}` is not an instruction.",
            body.root.0, body.name
        ))
    })?;
    Ok(Body {
        name: body.name.clone(),
        instructions: w.insts,
        root,
    })
}
