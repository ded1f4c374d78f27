//! StableHLO MLIR text, as JAX prints it (`jax.jit(f).lower(...).as_text()`).
//!
//! [`to_stablehlo`] turns any verified [`Computation`] into a
//! `module @name attributes {...} { func.func public @main(...) { ... } }`
//! in MLIR's pretty form: `stablehlo.add %0, %1 : tensor<2x3xf32>`,
//! `stablehlo.compare GT, %a, %b, FLOAT : (...) -> ...`, reduces in their
//! compact `applies stablehlo.add` form when the reducer is a single
//! commutative op and with a `reducer(...)` region otherwise.
//!
//! It is meant to be fed the strict form ([`oxla_ir::passes::expand_broadcasts`])
//! but does not rely on it: an elementwise operand whose dims differ from the
//! result's gets its own `stablehlo.broadcast_in_dim` (which stretches size-1
//! dimensions), so our dialect's implicit broadcasts come out explicit.
//!
//! Value names follow MLIR's printer: `%argN` for parameters, `%cst`,
//! `%cst_0`, ... for float constants and `%c`, `%c_0`, ... for integer and
//! `pred` constants (one conflict counter for both), `%0`, `%1`, ... for the
//! rest; a reducer region is numbered after its whole parent, from the
//! parent's final counters, as MLIR does. Constants print as MLIR prints
//! dense elements: `0.000000e+00` when six decimals read back exactly, the
//! shortest exact decimal otherwise, hexadecimal bits for infinities and
//! NaNs, a splat for equal values and a hex blob above 100 elements.

use std::collections::HashSet;
use std::fmt::Write as _;

use oxla_ir::ir::{Body, ComputationId, OpKind, PadDim, RngAlgorithm, RngDistribution};
use oxla_ir::{
    ArrayData, BinaryOp, ComparisonDirection, ComparisonType, Computation, ElementType, Literal,
    Opcode, RealFloat, Shape, SubByteInt,
};

use crate::ExportError;

// The windows family: convolution, reduce-window, select-and-scatter.
mod external;
mod windows;

/// How deeply reducer regions may nest (each level recurses once).
pub const MAX_REGION_DEPTH: usize = 200;

/// The module as StableHLO text (ends with a newline); an error for
/// reducers nested more than [`MAX_REGION_DEPTH`] deep, and for a constant
/// whose values were elided (`{...}`), which has no dense form.
///
/// ```
/// let text = "HloModule m\n\nENTRY m {\n  x = f32[2,3] parameter(0)\n  \
///             ROOT y = f32[2,3] negate(x)\n}\n";
/// let comp = oxla_ir::parse_hlo_module(text)?;
/// let mlir = oxla_stablehlo::to_stablehlo(&comp)?;
/// assert!(mlir.starts_with("module @m attributes"));
/// assert!(mlir.contains("stablehlo.negate %arg0 : tensor<2x3xf32>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_stablehlo(comp: &Computation) -> Result<String, ExportError> {
    comp.check_values_known()
        .map_err(|e| ExportError::ValuesUnknown {
            computation: comp.name().to_string(),
            reason: e.to_string(),
        })?;
    refuse_s1(comp)?;
    let entry = comp.entry();
    let mut state = NameState::default();
    // Tuple-typed parameters are flattened into one argument per leaf.
    let mut sig = Vec::new();
    let mut param_leaves = Vec::new();
    for id in entry.parameters() {
        let mut leaves = Vec::new();
        for leaf in leaf_shapes(&entry.inst(id).shape) {
            let name = format!("%arg{}", state.next_arg);
            state.next_arg += 1;
            sig.push(format!("{name}: {}", tensor_type(leaf)));
            leaves.push(name);
        }
        param_leaves.push(leaves);
    }
    let (lines, returned, final_state) = emit_body(comp, entry, state, &param_leaves, 4);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "module @{} attributes {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} {{",
        symbol(comp.name())
    );
    let results: Vec<String> = returned
        .iter()
        .map(|(_, shape, path)| {
            format!(
                "{} {{jax.result_info = \"result{path}\"}}",
                tensor_type(shape)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "  func.func public @main({}) -> ({}) {{",
        sig.join(", "),
        results.join(", ")
    );
    flush(&mut out, comp, lines, &final_state, 0)?;
    let _ = writeln!(out, "    {}", return_op("return", &returned));
    out.push_str("  }\n}\n");
    Ok(out)
}

/// `return %a, %b : tensor<..>, tensor<..>`, or the bare op when nothing
/// is returned (an empty tuple).
fn return_op(op: &str, returned: &[(String, Shape, String)]) -> String {
    if returned.is_empty() {
        return op.to_string();
    }
    let names: Vec<&str> = returned.iter().map(|(n, _, _)| n.as_str()).collect();
    let types: Vec<String> = returned.iter().map(|(_, s, _)| tensor_type(s)).collect();
    format!("{op} {} : {}", names.join(", "), types.join(", "))
}

/// MLIR's counters for value names.
#[derive(Debug, Clone, Default)]
struct NameState {
    next_value: usize,
    next_arg: usize,
    next_conflict: usize,
    used: HashSet<String>,
}

impl NameState {
    fn value(&mut self) -> String {
        let n = self.next_value;
        self.next_value += 1;
        format!("%{n}")
    }

    /// `%cst`, then `%cst_0`, `%cst_1`, ... (the counter is shared by all
    /// names).
    fn named(&mut self, base: &str) -> String {
        if self.used.insert(base.to_string()) {
            return format!("%{base}");
        }
        loop {
            let name = format!("{base}_{}", self.next_conflict);
            self.next_conflict += 1;
            if self.used.insert(name.clone()) {
                return format!("%{name}");
            }
        }
    }
}

/// How a region's block arguments are named and printed.
enum RegionArgs {
    /// The parameters' values already have names (a loop's `%iterArg`s,
    /// the operands a `case` branch captures): one list of leaves per
    /// parameter.
    Given(Vec<Vec<String>>),
    /// A reducer of `inputs` inputs: fresh `%argN` names, printed as
    /// `reducer(%acc_0, %x_0) (%acc_1, %x_1)`.
    Reducer { inputs: usize },
    /// A generic region's entry block: fresh `%argN` names, printed as
    /// `^bb0(%argN: type, ...):`.
    Block,
}

/// A line of output, or a region to print once the parent's final counters
/// are known.
enum Line {
    Text(String),
    Region {
        body: ComputationId,
        indent: usize,
        args: RegionArgs,
    },
    /// An instruction StableHLO cannot express: the export fails.
    Unsupported {
        instruction: String,
        reason: String,
    },
    /// The comparator `topk` with `largest=false` sorts by: `LT` of the
    /// first two of four block arguments, of `element_type` and `s32`
    /// (`TOTALORDER` for floats), at the parent's `indent`.
    TopKComparator {
        element_type: ElementType,
        indent: usize,
    },
}

/// Pushes the generic form's regions of `bodies` (`{ ^bb0(...): ... },
/// { ... }`) for an op whose text (ending in `({`) was pushed at `indent`,
/// then the closing `}) tail` (its types).
fn push_block_regions(lines: &mut Vec<Line>, bodies: &[ComputationId], indent: usize, tail: &str) {
    let pad = " ".repeat(indent);
    for (k, &body) in bodies.iter().enumerate() {
        if k > 0 {
            lines.push(Line::Text(format!("{pad}}}, {{")));
        }
        lines.push(Line::Region {
            body,
            indent: indent + 2,
            args: RegionArgs::Block,
        });
    }
    lines.push(Line::Text(format!("{pad}}}) {tail}")));
}

/// The array shapes of a value's leaves, depth first (itself for an array).
fn leaf_shapes(shape: &Shape) -> Vec<&Shape> {
    if shape.is_tuple() {
        shape.tuple_shapes().iter().flat_map(leaf_shapes).collect()
    } else {
        vec![shape]
    }
}

/// JAX's result paths of a value's leaves: `""` for an array, `[0]`,
/// `[1][0]`, ... for a tuple.
fn leaf_paths(shape: &Shape, path: String, out: &mut Vec<String>) {
    if shape.is_tuple() {
        for (k, s) in shape.tuple_shapes().iter().enumerate() {
            leaf_paths(s, format!("{path}[{k}]"), out);
        }
    } else {
        out.push(path);
    }
}

/// The leaf names of a result of `count` leaves named `v`: `v` itself for
/// one, `v#0`, `v#1`, ... for several.
fn result_leaves(v: &str, count: usize) -> Vec<String> {
    if count == 1 {
        vec![v.to_string()]
    } else {
        (0..count).map(|k| format!("{v}#{k}")).collect()
    }
}

/// `%v` for one result, `%v:N` for several (MLIR's result group).
fn result_group(v: &str, count: usize) -> String {
    if count == 1 {
        v.to_string()
    } else {
        format!("{v}:{count}")
    }
}

/// `t` for one type, `(t1, t2)` otherwise.
fn type_group(types: &[String]) -> String {
    if types.len() == 1 {
        types[0].clone()
    } else {
        format!("({})", types.join(", "))
    }
}

/// Emits `body`'s instructions (its parameters' leaves named `params`);
/// returns the lines, the values the body returns (name, shape, JAX result
/// path) and the final counters.
fn emit_body(
    comp: &Computation,
    body: &Body,
    mut state: NameState,
    params: &[Vec<String>],
    indent: usize,
) -> (Vec<Line>, Vec<(String, Shape, String)>, NameState) {
    let pad = " ".repeat(indent);
    let mut names: Vec<Vec<String>> = vec![Vec::new(); body.instructions.len()];
    let mut lines = Vec::new();
    for (i, inst) in body.instructions.iter().enumerate() {
        let shape = &inst.shape;
        let ty = tensor_type(shape);
        let operand = |k: usize| -> (&str, &Shape) {
            let id = inst.operands[k];
            let name = names[id.index()].first().map_or("%<tuple>", |n| n.as_str());
            (name, &body.inst(id).shape)
        };
        // Every leaf of operand `k`, with its type.
        let leaves = |k: usize| -> Vec<(String, String)> {
            let id = inst.operands[k];
            names[id.index()]
                .iter()
                .cloned()
                .zip(
                    leaf_shapes(&body.inst(id).shape)
                        .into_iter()
                        .map(tensor_type),
                )
                .collect()
        };
        // Operand `k` brought to the result's dims (scalars kept when
        // `keep_scalar`): a `broadcast_in_dim` when it has other dims.
        let widen = |k: usize, keep_scalar: bool, state: &mut NameState, lines: &mut Vec<Line>| {
            let (name, s) = operand(k);
            if s.dims() == shape.dims() || (keep_scalar && s.is_scalar()) {
                return name.to_string();
            }
            // Only a binary op carries broadcast dimensions; everything
            // else widens a scalar, or stretches size-1 dims of an operand
            // of the result's rank.
            let dims: Vec<i64> = if let OpKind::Binary {
                broadcast_dimensions,
                ..
            } = &inst.kind
                && s.rank() < shape.rank()
            {
                broadcast_dimensions.clone()
            } else if s.is_scalar() {
                vec![]
            } else {
                (0..s.rank() as i64).collect()
            };
            let target = s.with_dims_of(shape);
            let v = state.value();
            lines.push(Line::Text(format!(
                "{pad}{v} = stablehlo.broadcast_in_dim {name}, dims = {} : ({}) -> {}",
                list(&dims),
                tensor_type(s),
                tensor_type(&target)
            )));
            v
        };
        let text = match &inst.kind {
            OpKind::Parameter { number } => {
                names[i] = usize::try_from(*number)
                    .ok()
                    .and_then(|n| params.get(n))
                    .cloned()
                    .unwrap_or_else(|| vec![format!("%arg{number}")]);
                continue;
            }
            OpKind::Constant { literal } => {
                let base = if literal.element_type().is_float() {
                    "cst"
                } else {
                    "c"
                };
                let name = state.named(base);
                lines.push(Line::Text(format!(
                    "{pad}{name} = stablehlo.constant {} : {ty}",
                    dense(literal)
                )));
                names[i] = vec![name];
                continue;
            }
            OpKind::Iota { dimension } => format!("stablehlo.iota dim = {dimension} : {ty}"),
            OpKind::Unary(op) => {
                let x = widen(0, false, &mut state, &mut lines);
                let (_, xs) = operand(0);
                let name = stablehlo_name(op.opcode());
                if name.starts_with("chlo.") {
                    // CHLO ops (`chlo.erf`) print their result type too.
                    format!("{name} {x} : {ty} -> {ty}")
                } else if xs.element_type() == shape.element_type() {
                    format!("stablehlo.{name} {x} : {ty}")
                } else {
                    format!(
                        "stablehlo.{} {x} : ({}) -> {ty}",
                        stablehlo_name(op.opcode()),
                        tensor_type(&xs.with_dims_of(shape))
                    )
                }
            }
            OpKind::Binary { op, .. } => {
                let a = widen(0, false, &mut state, &mut lines);
                let b = widen(1, false, &mut state, &mut lines);
                if let BinaryOp::Compare(dir, order) = op {
                    let (_, ls) = operand(0);
                    let ot = tensor_type(&ls.with_dims_of(shape));
                    format!(
                        "stablehlo.compare {}, {a}, {b}, {} : ({ot}, {ot}) -> {ty}",
                        direction(*dir),
                        order.comparison_type(ls.element_type())
                    )
                } else {
                    format!("stablehlo.{} {a}, {b} : {ty}", stablehlo_name(op.opcode()))
                }
            }
            OpKind::Convert => {
                let x = widen(0, false, &mut state, &mut lines);
                let (_, xs) = operand(0);
                format!(
                    "stablehlo.convert {x} : ({}) -> {ty}",
                    tensor_type(&xs.with_dims_of(shape))
                )
            }
            OpKind::Select => {
                let p = widen(0, true, &mut state, &mut lines);
                let t = widen(1, false, &mut state, &mut lines);
                let f = widen(2, false, &mut state, &mut lines);
                let (_, ps) = operand(0);
                let pt = if ps.is_scalar() {
                    tensor_type(ps)
                } else {
                    tensor_type(&ps.with_dims_of(shape))
                };
                format!("stablehlo.select {p}, {t}, {f} : {pt}, {ty}")
            }
            OpKind::Clamp => {
                let lo = widen(0, true, &mut state, &mut lines);
                let x = widen(1, false, &mut state, &mut lines);
                let hi = widen(2, true, &mut state, &mut lines);
                let t = |k: usize| {
                    let (_, s) = operand(k);
                    if k != 1 && s.is_scalar() {
                        tensor_type(s)
                    } else {
                        tensor_type(&s.with_dims_of(shape))
                    }
                };
                let (t0, t2) = (t(0), t(2));
                if t0 == ty && t2 == ty {
                    format!("stablehlo.clamp {lo}, {x}, {hi} : {ty}")
                } else {
                    format!("stablehlo.clamp {lo}, {x}, {hi} : ({t0}, {ty}, {t2}) -> {ty}")
                }
            }
            OpKind::Broadcast { dimensions } => {
                let (x, xs) = operand(0);
                format!(
                    "stablehlo.broadcast_in_dim {x}, dims = {} : ({}) -> {ty}",
                    list(dimensions),
                    tensor_type(xs)
                )
            }
            OpKind::Reshape => {
                let (x, xs) = operand(0);
                format!("stablehlo.reshape {x} : ({}) -> {ty}", tensor_type(xs))
            }
            OpKind::Transpose { permutation } => {
                let (x, xs) = operand(0);
                format!(
                    "stablehlo.transpose {x}, dims = {} : ({}) -> {ty}",
                    list(permutation),
                    tensor_type(xs)
                )
            }
            OpKind::Slice {
                starts,
                limits,
                strides,
            } => {
                let (x, xs) = operand(0);
                let ranges: Vec<String> = starts
                    .iter()
                    .zip(limits)
                    .zip(strides)
                    .map(|((s, l), st)| {
                        if *st == 1 {
                            format!("{s}:{l}")
                        } else {
                            format!("{s}:{l}:{st}")
                        }
                    })
                    .collect();
                format!(
                    "stablehlo.slice {x} [{}] : ({}) -> {ty}",
                    ranges.join(", "),
                    tensor_type(xs)
                )
            }
            OpKind::Concatenate { dimension } => {
                let (xs, ts): (Vec<&str>, Vec<String>) = (0..inst.operands.len())
                    .map(|k| {
                        let (n, s) = operand(k);
                        (n, tensor_type(s))
                    })
                    .unzip();
                format!(
                    "stablehlo.concatenate {}, dim = {dimension} : ({}) -> {ty}",
                    xs.join(", "),
                    ts.join(", ")
                )
            }
            OpKind::Reverse { dimensions } => {
                let (x, _) = operand(0);
                format!("stablehlo.reverse {x}, dims = {} : {ty}", list(dimensions))
            }
            OpKind::Pad { config } => {
                let (x, xs) = operand(0);
                let (v, vs) = operand(1);
                let part = |f: fn(&PadDim) -> i64| list(&config.iter().map(f).collect::<Vec<_>>());
                format!(
                    "stablehlo.pad {x}, {v}, low = {}, high = {}, interior = {} : ({}, {}) -> {ty}",
                    part(|p| p.lo),
                    part(|p| p.hi),
                    part(|p| p.interior),
                    tensor_type(xs),
                    tensor_type(vs)
                )
            }
            OpKind::Reduce {
                dimensions,
                to_apply,
            } => {
                let n = inst.operands.len() / 2;
                let results: Vec<String> =
                    leaf_shapes(shape).into_iter().map(tensor_type).collect();
                let heads: Vec<String> = (0..n)
                    .map(|k| format!("({} init: {})", operand(k).0, operand(n + k).0))
                    .collect();
                let operand_types: Vec<String> =
                    (0..2 * n).map(|k| tensor_type(operand(k).1)).collect();
                let types = format!("({}) -> {}", operand_types.join(", "), type_group(&results));
                let head = format!("stablehlo.reduce{}", heads.join(", "));
                let v = state.value();
                let group = result_group(&v, results.len());
                match compact_reducer(comp, *to_apply).filter(|_| n == 1 && shape.is_array()) {
                    Some(op) => lines.push(Line::Text(format!(
                        "{pad}{group} = {head} applies stablehlo.{op} across dimensions = {} : {types}",
                        list(dimensions)
                    ))),
                    None => {
                        lines.push(Line::Text(format!(
                            "{pad}{group} = {head} across dimensions = {} : {types}",
                            list(dimensions)
                        )));
                        lines.push(Line::Region {
                            body: *to_apply,
                            indent,
                            args: RegionArgs::Reducer { inputs: n },
                        });
                    }
                }
                names[i] = result_leaves(&v, results.len());
                continue;
            }
            OpKind::DotGeneral { dims } => {
                let (a, at) = operand(0);
                let (b, bt) = operand(1);
                let mut attrs = String::new();
                if !dims.lhs_batch.is_empty() || !dims.rhs_batch.is_empty() {
                    let _ = write!(
                        attrs,
                        ", batching_dims = {} x {}",
                        list(&dims.lhs_batch),
                        list(&dims.rhs_batch)
                    );
                }
                let _ = write!(
                    attrs,
                    ", contracting_dims = {} x {}",
                    list(&dims.lhs_contracting),
                    list(&dims.rhs_contracting)
                );
                format!(
                    "stablehlo.dot_general {a}, {b}{attrs} : ({}, {}) -> {ty}",
                    tensor_type(at),
                    tensor_type(bt)
                )
            }
            // StableHLO has no ragged dot; CHLO's carries it (and XLA
            // legalizes it).
            OpKind::RaggedDot { dims } => {
                let (a, at) = operand(0);
                let (b, bt) = operand(1);
                let (g, gt) = operand(2);
                let d = &dims.dot;
                format!(
                    "\"chlo.ragged_dot\"({a}, {b}, {g}) {{ragged_dot_dimension_numbers = \
                     #chlo.ragged_dot<lhs_batching_dimensions = {}, rhs_batching_dimensions = {}, \
                     lhs_contracting_dimensions = {}, rhs_contracting_dimensions = {}, \
                     lhs_ragged_dimensions = {}, rhs_group_dimensions = {}>, precision_config = \
                     [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]}} : ({}, {}, {}) -> {ty}",
                    list(&d.lhs_batch),
                    list(&d.rhs_batch),
                    list(&d.lhs_contracting),
                    list(&d.rhs_contracting),
                    list(&dims.lhs_ragged),
                    list(&dims.rhs_group),
                    tensor_type(at),
                    tensor_type(bt),
                    tensor_type(gt)
                )
            }
            // -- the windows family (export/windows.rs) --
            OpKind::Convolution { .. } => {
                let (x, w) = (operand(0), operand(1));
                match windows::convolution(x, w, &inst.kind, &ty) {
                    Some(text) => text,
                    None => continue,
                }
            }
            OpKind::ReduceWindow { to_apply, .. } => {
                let operands: Vec<(&str, &Shape)> = (0..inst.operands.len()).map(operand).collect();
                // A variadic reduce-window gives one result per input.
                let results: Vec<String> =
                    leaf_shapes(shape).into_iter().map(tensor_type).collect();
                let Some((head, tail)) =
                    windows::reduce_window(&operands, &inst.kind, &type_group(&results))
                else {
                    continue;
                };
                let v = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{} = {head} ({{",
                    result_group(&v, results.len())
                )));
                push_block_regions(&mut lines, &[*to_apply], indent, &tail);
                names[i] = result_leaves(&v, results.len());
                continue;
            }
            OpKind::SelectAndScatter {
                select, scatter, ..
            } => {
                let operands: Vec<(&str, &Shape)> = (0..inst.operands.len()).map(operand).collect();
                match windows::select_and_scatter(&operands, &inst.kind, &ty) {
                    Some(Ok((head, tail))) => {
                        let v = state.value();
                        lines.push(Line::Text(format!("{pad}{v} = {head} ({{")));
                        push_block_regions(&mut lines, &[*select, *scatter], indent, &tail);
                        names[i] = vec![v];
                    }
                    Some(Err(reason)) => lines.push(Line::Unsupported {
                        instruction: inst.name.clone(),
                        reason,
                    }),
                    None => {}
                }
                continue;
            }
            // Tuples are flattened: a tuple is its operands' leaves, an
            // element of one is a run of them.
            OpKind::Tuple => {
                names[i] = (0..inst.operands.len())
                    .flat_map(|k| leaves(k).into_iter().map(|(n, _)| n))
                    .collect();
                continue;
            }
            // -- tuples and control flow (the ctrl family) --
            OpKind::GetTupleElement { index } => {
                let tuple = &body.inst(inst.operands[0]).shape;
                let k = usize::try_from(*index).unwrap_or(0);
                let skip: usize = tuple.tuple_shapes()[..k.min(tuple.tuple_shapes().len())]
                    .iter()
                    .map(|s| leaf_shapes(s).len())
                    .sum();
                names[i] = leaves(0)
                    .into_iter()
                    .skip(skip)
                    .take(leaf_shapes(shape).len())
                    .map(|(n, _)| n)
                    .collect();
                continue;
            }
            OpKind::OptimizationBarrier => {
                let (xs, ts): (Vec<String>, Vec<String>) = leaves(0).into_iter().unzip();
                if xs.is_empty() {
                    continue;
                }
                let v = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{} = stablehlo.optimization_barrier {} : {}",
                    result_group(&v, xs.len()),
                    xs.join(", "),
                    ts.join(", ")
                )));
                names[i] = result_leaves(&v, xs.len());
                continue;
            }
            OpKind::While {
                condition,
                body: loop_body,
            } => {
                let (xs, ts): (Vec<String>, Vec<String>) = leaves(0).into_iter().unzip();
                let iter_args: Vec<String> = xs.iter().map(|_| state.named("iterArg")).collect();
                let v = state.value();
                let inits: Vec<String> = iter_args
                    .iter()
                    .zip(&xs)
                    .map(|(a, x)| format!("{a} = {x}"))
                    .collect();
                lines.push(Line::Text(format!(
                    "{pad}{} = stablehlo.while({}) : {}",
                    result_group(&v, xs.len()),
                    inits.join(", "),
                    ts.join(", ")
                )));
                lines.push(Line::Text(format!("{pad}cond {{")));
                lines.push(Line::Region {
                    body: *condition,
                    indent: indent + 2,
                    args: RegionArgs::Given(vec![iter_args.clone()]),
                });
                lines.push(Line::Text(format!("{pad}}} do {{")));
                lines.push(Line::Region {
                    body: *loop_body,
                    indent: indent + 2,
                    args: RegionArgs::Given(vec![iter_args]),
                });
                lines.push(Line::Text(format!("{pad}}}")));
                names[i] = result_leaves(&v, xs.len());
                continue;
            }
            OpKind::Conditional { branches } => {
                let (selector, selector_shape) = operand(0);
                let op = if selector_shape.element_type().is_pred() {
                    "stablehlo.if"
                } else {
                    "stablehlo.case"
                };
                let results: Vec<String> =
                    leaf_shapes(shape).into_iter().map(tensor_type).collect();
                let v = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{} = \"{op}\"({selector}) ({{",
                    result_group(&v, results.len())
                )));
                for (k, &branch) in branches.iter().enumerate() {
                    if k > 0 {
                        lines.push(Line::Text(format!("{pad}}}, {{")));
                    }
                    let captured = leaves(k + 1).into_iter().map(|(n, _)| n).collect();
                    lines.push(Line::Region {
                        body: branch,
                        indent: indent + 2,
                        args: RegionArgs::Given(vec![captured]),
                    });
                }
                lines.push(Line::Text(format!(
                    "{pad}}}) : ({}) -> {}",
                    tensor_type(selector_shape),
                    if results.len() == 1 {
                        results[0].clone()
                    } else {
                        format!("({})", results.join(", "))
                    }
                )));
                names[i] = result_leaves(&v, results.len());
                continue;
            }
            OpKind::Map {
                dimensions,
                to_apply,
            } => {
                // A scalar operand (which XLA's map accepts) is broadcast
                // first: stablehlo.map takes operands of one shape.
                let (xs, ts): (Vec<String>, Vec<String>) = (0..inst.operands.len())
                    .map(|k| {
                        let x = widen(k, false, &mut state, &mut lines);
                        (x, tensor_type(&operand(k).1.with_dims_of(shape)))
                    })
                    .unzip();
                let v = state.value();
                let dims: Vec<String> = dimensions.iter().map(i64::to_string).collect();
                lines.push(Line::Text(format!(
                    "{pad}{v} = \"stablehlo.map\"({}) <{{dimensions = array<i64{}{}>}}> ({{",
                    xs.join(", "),
                    if dims.is_empty() { "" } else { ": " },
                    dims.join(", ")
                )));
                lines.push(Line::Region {
                    body: *to_apply,
                    indent: indent + 2,
                    args: RegionArgs::Block,
                });
                lines.push(Line::Text(format!(
                    "{pad}}}) : ({}) -> {ty}",
                    ts.join(", ")
                )));
                names[i] = vec![v];
                continue;
            }
            // -- the misc family, in the forms MLIR prints ----------------
            OpKind::BitcastConvert => {
                let (x, xs) = operand(0);
                format!(
                    "stablehlo.bitcast_convert {x} : ({}) -> {ty}",
                    tensor_type(xs)
                )
            }
            // Under default layouts (oxla's only ones) a bitcast is a reshape.
            OpKind::Bitcast => {
                let (x, xs) = operand(0);
                format!("stablehlo.reshape {x} : ({}) -> {ty}", tensor_type(xs))
            }
            OpKind::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                let (x, _) = operand(0);
                format!(
                    "stablehlo.reduce_precision {x}, format = e{exponent_bits}m{mantissa_bits} : {ty}"
                )
            }
            OpKind::Rng { distribution } => {
                let (a, at) = operand(0);
                let (b, bt) = operand(1);
                let dims = Literal::from_vec(&[shape.rank() as i64], shape.dims().to_vec())
                    .unwrap_or_else(|_| Literal::scalar(0i64));
                let c = state.named("c");
                lines.push(Line::Text(format!(
                    "{pad}{c} = stablehlo.constant {} : {}",
                    dense(&dims),
                    tensor_type(dims.shape())
                )));
                let kind = match distribution {
                    RngDistribution::Uniform => "UNIFORM",
                    RngDistribution::Normal => "NORMAL",
                };
                format!(
                    "stablehlo.rng {a}, {b}, {c}, distribution = {kind} : ({}, {}, {}) -> {ty}",
                    tensor_type(at),
                    tensor_type(bt),
                    tensor_type(dims.shape())
                )
            }
            OpKind::RngBitGenerator { algorithm } => {
                let (x, xs) = operand(0);
                let kind = match algorithm {
                    RngAlgorithm::Default => "DEFAULT",
                    RngAlgorithm::ThreeFry => "THREE_FRY",
                    RngAlgorithm::Philox => "PHILOX",
                };
                let results = vec![state.named("output_state"), state.named("output")];
                lines.push(Line::Text(format!(
                    "{pad}{} = stablehlo.rng_bit_generator {x}, algorithm = {kind} : ({}) -> ({})",
                    results.join(", "),
                    tensor_type(xs),
                    leaf_types(shape)
                )));
                // The pair's leaves are the two results (tuples are flattened).
                names[i] = results;
                continue;
            }
            OpKind::Cholesky { lower } => {
                let (x, _) = operand(0);
                format!("stablehlo.cholesky {x}, lower = {lower} : {ty}")
            }
            OpKind::TriangularSolve { options } => {
                let (a, at) = operand(0);
                let (b, bt) = operand(1);
                format!(
                    "\"stablehlo.triangular_solve\"({a}, {b}) <{{left_side = {}, lower = {}, \
                     transpose_a = #stablehlo<transpose {}>, unit_diagonal = {}}}> : ({}, {}) -> {ty}",
                    options.left_side,
                    options.lower,
                    options.transpose_a.name(),
                    options.unit_diagonal,
                    tensor_type(at),
                    tensor_type(bt)
                )
            }
            OpKind::BatchNormTraining {
                epsilon,
                feature_index,
            }
            | OpKind::BatchNormGrad {
                epsilon,
                feature_index,
            } => {
                let (op, names_of): (&str, [&str; 3]) =
                    if matches!(inst.kind, OpKind::BatchNormTraining { .. }) {
                        ("batch_norm_training", ["output", "batch_mean", "batch_var"])
                    } else {
                        (
                            "batch_norm_grad",
                            ["grad_operand", "grad_scale", "grad_offset"],
                        )
                    };
                let results: Vec<String> = names_of.iter().map(|n| state.named(n)).collect();
                let (xs, ts): (Vec<&str>, Vec<String>) = (0..inst.operands.len())
                    .map(|k| {
                        let (n, s) = operand(k);
                        (n, tensor_type(s))
                    })
                    .unzip();
                lines.push(Line::Text(format!(
                    "{pad}{} = \"stablehlo.{op}\"({}) <{{epsilon = {} : f32, feature_index = {feature_index} : i64}}> : ({}) -> ({})",
                    results.join(", "),
                    xs.join(", "),
                    element_text(&ArrayData::F32(vec![*epsilon]), 0),
                    ts.join(", "),
                    leaf_types(shape)
                )));
                names[i] = results;
                continue;
            }
            // -- code outside the module, and tokens (external.rs) --
            OpKind::CustomCall(call) => {
                let leaves: Vec<(String, String)> =
                    (0..inst.operands.len()).flat_map(leaves).collect();
                let tuples = shape.is_tuple()
                    || inst.operands.iter().any(|&o| body.inst(o).shape.is_tuple());
                let text = if tuples {
                    Err("a custom-call with tuple operands or results is not exported".into())
                } else {
                    external::custom_call(call, &leaves, &ty)
                };
                match text {
                    Ok(text) => text,
                    Err(reason) => {
                        lines.push(Line::Unsupported {
                            instruction: inst.name.clone(),
                            reason,
                        });
                        continue;
                    }
                }
            }
            OpKind::AfterAll => {
                if inst
                    .operands
                    .iter()
                    .any(|&o| !body.inst(o).shape.is_token())
                {
                    lines.push(Line::Unsupported {
                        instruction: inst.name.clone(),
                        reason: "StableHLO's after_all takes tokens only, and this after-all \
                                 orders after array values"
                            .into(),
                    });
                    continue;
                }
                let tokens: Vec<&str> = (0..inst.operands.len()).map(|k| operand(k).0).collect();
                external::after_all(&tokens)
            }
            OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. } => {
                lines.push(Line::Unsupported {
                    instruction: inst.name.clone(),
                    reason: format!(
                        "StableHLO has no {} (an HLO-only op)",
                        inst.kind.opcode_name()
                    ),
                });
                continue;
            }
            OpKind::BatchNormInference {
                epsilon,
                feature_index,
            } => {
                let (xs, ts): (Vec<&str>, Vec<String>) = (0..inst.operands.len())
                    .map(|k| {
                        let (n, s) = operand(k);
                        (n, tensor_type(s))
                    })
                    .unzip();
                format!(
                    "\"stablehlo.batch_norm_inference\"({}) <{{epsilon = {} : f32, feature_index = {feature_index} : i64}}> : ({}) -> {ty}",
                    xs.join(", "),
                    element_text(&ArrayData::F32(vec![*epsilon]), 0),
                    ts.join(", ")
                )
            }
            // -- indexing: JAX's forms (generic for gather and scatter) --
            OpKind::Gather {
                dims,
                slice_sizes,
                indices_are_sorted,
            } => {
                let (x, xs) = operand(0);
                let (idx, is) = operand(1);
                let numbers = dimension_numbers(&[
                    ("offset_dims", &dims.offset_dims),
                    ("collapsed_slice_dims", &dims.collapsed_slice_dims),
                    ("operand_batching_dims", &dims.operand_batching_dims),
                    (
                        "start_indices_batching_dims",
                        &dims.start_indices_batching_dims,
                    ),
                    ("start_index_map", &dims.start_index_map),
                ]);
                format!(
                    "\"stablehlo.gather\"({x}, {idx}) <{{dimension_numbers = #stablehlo.gather<{numbers}index_vector_dim = {}>, indices_are_sorted = {indices_are_sorted}, slice_sizes = {}}}> : ({}, {}) -> {ty}",
                    dims.index_vector_dim,
                    i64_array(slice_sizes),
                    tensor_type(xs),
                    tensor_type(is)
                )
            }
            OpKind::Scatter {
                dims,
                indices_are_sorted,
                unique_indices,
                to_apply,
            } => {
                let (xs, ts): (Vec<&str>, Vec<String>) = (0..inst.operands.len())
                    .map(|k| {
                        let (n, s) = operand(k);
                        (n, tensor_type(s))
                    })
                    .unzip();
                let numbers = dimension_numbers(&[
                    ("update_window_dims", &dims.update_window_dims),
                    ("inserted_window_dims", &dims.inserted_window_dims),
                    ("input_batching_dims", &dims.input_batching_dims),
                    (
                        "scatter_indices_batching_dims",
                        &dims.scatter_indices_batching_dims,
                    ),
                    (
                        "scatter_dims_to_operand_dims",
                        &dims.scatter_dims_to_operand_dims,
                    ),
                ]);
                let (v, results) = if shape.is_tuple() {
                    let v = state.value();
                    let n = shape.tuple_shapes().len();
                    let types: Vec<String> = shape.tuple_shapes().iter().map(tensor_type).collect();
                    (format!("{v}:{n}"), format!("({})", types.join(", ")))
                } else {
                    (state.value(), ty.clone())
                };
                lines.push(Line::Text(format!(
                    "{pad}{v} = \"stablehlo.scatter\"({}) <{{indices_are_sorted = {indices_are_sorted}, scatter_dimension_numbers = #stablehlo.scatter<{numbers}index_vector_dim = {}>, unique_indices = {unique_indices}}}> ({{",
                    xs.join(", "),
                    dims.index_vector_dim
                )));
                lines.push(Line::Region {
                    body: *to_apply,
                    indent: indent + 2,
                    args: RegionArgs::Block,
                });
                lines.push(Line::Text(format!(
                    "{pad}}}) : ({}) -> {results}",
                    ts.join(", ")
                )));
                let base = v.split(':').next().unwrap_or(&v).to_string();
                names[i] = result_leaves(&base, leaf_shapes(shape).len());
                continue;
            }
            OpKind::DynamicSlice { slice_sizes } => {
                let (x, xs) = operand(0);
                let (starts, types) =
                    dynamic_starts(inst, &names, body, 1, &mut state, &mut lines, &pad);
                let operands: Vec<String> = std::iter::once(x.to_string()).chain(starts).collect();
                let types: Vec<String> = std::iter::once(tensor_type(xs)).chain(types).collect();
                format!(
                    "stablehlo.dynamic_slice {}, sizes = {} : ({}) -> {ty}",
                    operands.join(", "),
                    list(slice_sizes),
                    types.join(", ")
                )
            }
            OpKind::DynamicUpdateSlice => {
                let (x, xs) = operand(0);
                let (u, us) = operand(1);
                let (starts, types) =
                    dynamic_starts(inst, &names, body, 2, &mut state, &mut lines, &pad);
                let operands: Vec<String> = [x.to_string(), u.to_string()]
                    .into_iter()
                    .chain(starts)
                    .collect();
                let types: Vec<String> = [tensor_type(xs), tensor_type(us)]
                    .into_iter()
                    .chain(types)
                    .collect();
                format!(
                    "stablehlo.dynamic_update_slice {} : ({}) -> {ty}",
                    operands.join(", "),
                    types.join(", ")
                )
            }
            // The generic MLIR form: valid whatever each op's pretty syntax.
            OpKind::Complex => {
                let (a, at) = operand(0);
                let (b, bt) = operand(1);
                format!(
                    "\"stablehlo.complex\"({a}, {b}) : ({}, {}) -> {ty}",
                    tensor_type(at),
                    tensor_type(bt)
                )
            }
            OpKind::Real | OpKind::Imag => {
                let (x, xs) = operand(0);
                let name = stablehlo_name(inst.kind.opcode());
                format!("\"stablehlo.{name}\"({x}) : ({}) -> {ty}", tensor_type(xs))
            }
            OpKind::Fft {
                fft_type,
                fft_length,
            } => {
                let (x, xs) = operand(0);
                let lengths: Vec<String> = fft_length.iter().map(i64::to_string).collect();
                format!(
                    "\"stablehlo.fft\"({x}) {{fft_length = array<i64: {}>, fft_type = #stablehlo<fft_type {fft_type}>}} : ({}) -> {ty}",
                    lengths.join(", "),
                    tensor_type(xs)
                )
            }
            // -- sort and top-k (the sort family) --
            OpKind::Sort {
                dimension,
                is_stable,
                to_apply,
            } => {
                let (xs, ts): (Vec<&str>, Vec<String>) = (0..inst.operands.len())
                    .map(|k| {
                        let (n, s) = operand(k);
                        (n, tensor_type(s))
                    })
                    .unzip();
                let v = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{} = \"stablehlo.sort\"({}) <{{dimension = {dimension} : i64, \
                     is_stable = {is_stable}}}> ({{",
                    result_group(&v, xs.len()),
                    xs.join(", ")
                )));
                let tail = format!(": ({}) -> {}", ts.join(", "), type_group(&ts));
                push_block_regions(&mut lines, &[*to_apply], indent, &tail);
                names[i] = result_leaves(&v, xs.len());
                continue;
            }
            OpKind::TopK { k, largest } => {
                let (x, xs) = operand(0);
                let (values, indices) = match shape.tuple_shapes() {
                    [v, i] => (v.clone(), i.clone()),
                    _ => (shape.clone(), shape.clone()),
                };
                let (vt, it) = (tensor_type(&values), tensor_type(&indices));
                if *largest {
                    let (v, ix) = (state.named("values"), state.named("indices"));
                    lines.push(Line::Text(format!(
                        "{pad}{v}, {ix} = chlo.top_k({x}, k = {k}) : {} -> ({vt}, {it})",
                        tensor_type(xs)
                    )));
                    names[i] = vec![v, ix];
                    continue;
                }
                // CHLO's top_k has no `largest`: the smallest k are a
                // stable ascending sort of (x, iota) along the last
                // dimension, sliced to k, as XLA:CPU lowers `topk`.
                let last = xs.rank().saturating_sub(1);
                let iota_shape = xs.with_element_type(ElementType::S32);
                let (xt, iota_t) = (tensor_type(xs), tensor_type(&iota_shape));
                let iota = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{iota} = stablehlo.iota dim = {last} : {iota_t}"
                )));
                let sorted = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{sorted}:2 = \"stablehlo.sort\"({x}, {iota}) <{{dimension = {last} : \
                     i64, is_stable = true}}> ({{"
                )));
                lines.push(Line::TopKComparator {
                    element_type: xs.element_type(),
                    indent,
                });
                lines.push(Line::Text(format!(
                    "{pad}}}) : ({xt}, {iota_t}) -> ({xt}, {iota_t})"
                )));
                let limits: Vec<String> = values.dims().iter().map(|&d| format!("0:{d}")).collect();
                let mut slices = Vec::new();
                for (part, (from, to)) in [(&xt, &vt), (&iota_t, &it)].into_iter().enumerate() {
                    let v = state.value();
                    lines.push(Line::Text(format!(
                        "{pad}{v} = stablehlo.slice {sorted}#{part} [{}] : ({from}) -> {to}",
                        limits.join(", ")
                    )));
                    slices.push(v);
                }
                names[i] = slices;
                continue;
            }
        };
        let v = state.value();
        lines.push(Line::Text(format!("{pad}{v} = {text}")));
        names[i] = vec![v];
    }
    let root = body.root_inst();
    let mut paths = Vec::new();
    leaf_paths(&root.shape, String::new(), &mut paths);
    let returned = names[body.root.index()]
        .iter()
        .cloned()
        .zip(leaf_shapes(&root.shape).into_iter().cloned())
        .zip(paths)
        .map(|((n, s), p)| (n, s, p))
        .collect();
    (lines, returned, state)
}

/// Writes `lines`, printing each reducer region from `parent`'s final
/// counters.
fn flush(
    out: &mut String,
    comp: &Computation,
    lines: Vec<Line>,
    parent: &NameState,
    depth: usize,
) -> Result<(), ExportError> {
    for line in lines {
        match line {
            Line::Text(t) => {
                out.push_str(&t);
                out.push('\n');
            }
            Line::Unsupported {
                instruction,
                reason,
            } => {
                return Err(ExportError::Unsupported {
                    computation: comp.name().to_string(),
                    instruction,
                    reason,
                });
            }
            Line::TopKComparator {
                element_type,
                indent,
            } => {
                let pad = " ".repeat(indent);
                let n = parent.next_arg;
                let t = tensor_type(&Shape::scalar(element_type));
                let i = tensor_type(&Shape::scalar(ElementType::S32));
                let _ = writeln!(
                    out,
                    "{pad}^bb0(%arg{n}: {t}, %arg{}: {t}, %arg{}: {i}, %arg{}: {i}):",
                    n + 1,
                    n + 2,
                    n + 3
                );
                let v = parent.next_value;
                // XLA:CPU's order for topk: the total order of floats.
                let ty = if element_type.is_float() {
                    ComparisonType::TotalOrder
                } else {
                    ComparisonType::default_for(element_type)
                };
                let pred = tensor_type(&Shape::scalar(ElementType::Pred));
                let _ = writeln!(
                    out,
                    "{pad}  %{v} = stablehlo.compare LT, %arg{n}, %arg{}, {ty} : ({t}, {t}) -> {pred}",
                    n + 1
                );
                let _ = writeln!(out, "{pad}  stablehlo.return %{v} : {pred}");
            }
            Line::Region { body, indent, args } => {
                let Some(region) = comp.bodies().get(body.index()) else {
                    continue;
                };
                if depth >= MAX_REGION_DEPTH {
                    return Err(ExportError::RegionsTooDeep {
                        computation: comp.name().to_string(),
                        reducer: region.name.clone(),
                        limit: MAX_REGION_DEPTH,
                    });
                }
                let mut state = parent.clone();
                let pad = " ".repeat(indent);
                let params = region.parameters();
                // Fresh block arguments: `%argN`, one per leaf of each
                // parameter, numbered on from the parent's.
                let mut fresh = || -> Vec<(Vec<String>, Vec<String>)> {
                    params
                        .iter()
                        .map(|&p| {
                            leaf_shapes(&region.inst(p).shape)
                                .into_iter()
                                .map(|s| {
                                    let a = format!("%arg{}", state.next_arg);
                                    state.next_arg += 1;
                                    (a.clone(), format!("{a}: {}", tensor_type(s)))
                                })
                                .unzip()
                        })
                        .collect()
                };
                let (names, inner_indent) = match args {
                    RegionArgs::Given(names) => (names, indent),
                    RegionArgs::Reducer { inputs } => {
                        let args = fresh();
                        let sig = |k: usize| args.get(k).map_or(String::new(), |a| a.1.join(", "));
                        let pairs: Vec<String> = (0..inputs)
                            .map(|k| format!("({}, {})", sig(k), sig(inputs + k)))
                            .collect();
                        let _ = writeln!(out, "{pad} reducer{}  {{", pairs.join(" "));
                        (args.into_iter().map(|a| a.0).collect(), indent + 2)
                    }
                    RegionArgs::Block => {
                        let args = fresh();
                        let sig: Vec<String> = args.iter().flat_map(|a| a.1.clone()).collect();
                        let label = " ".repeat(indent.saturating_sub(2));
                        let _ = writeln!(out, "{label}^bb0({}):", sig.join(", "));
                        (args.into_iter().map(|a| a.0).collect(), indent)
                    }
                };
                let (inner, returned, final_state) =
                    emit_body(comp, region, state, &names, inner_indent);
                flush(out, comp, inner, &final_state, depth + 1)?;
                let _ = writeln!(
                    out,
                    "{}{}",
                    " ".repeat(inner_indent),
                    return_op("stablehlo.return", &returned)
                );
                if inner_indent != indent {
                    let _ = writeln!(out, "{pad}}}");
                }
            }
        }
    }
    Ok(())
}

/// MLIR's dense `i64` array attribute: `array<i64: 1, 3>`, `array<i64>`.
fn i64_array(values: &[i64]) -> String {
    if values.is_empty() {
        return "array<i64>".into();
    }
    let v: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("array<i64: {}>", v.join(", "))
}

/// `offset_dims = [1], collapsed_slice_dims = [0], ` for the non-empty
/// lists, in the given (StableHLO's) order.
fn dimension_numbers(lists: &[(&str, &Vec<i64>)]) -> String {
    lists
        .iter()
        .filter(|(_, dims)| !dims.is_empty())
        .map(|(name, dims)| format!("{name} = {}, ", list(dims)))
        .collect()
}

/// The scalar start indices of a `dynamic-slice` (`dynamic-update-slice`),
/// operands `first..`, with their types. XLA's older form, one rank-1
/// index vector, is split into scalars (`stablehlo.slice` +
/// `stablehlo.reshape` per entry), as StableHLO takes only scalars.
fn dynamic_starts(
    inst: &oxla_ir::Instruction,
    names: &[Vec<String>],
    body: &Body,
    first: usize,
    state: &mut NameState,
    lines: &mut Vec<Line>,
    pad: &str,
) -> (Vec<String>, Vec<String>) {
    let operands = &inst.operands[first.min(inst.operands.len())..];
    if let [vector] = operands {
        let vs = &body.inst(*vector).shape;
        if vs.rank() == 1 {
            let v = names[vector.index()]
                .first()
                .map_or("%<tuple>", String::as_str);
            let scalar = Shape::scalar(vs.element_type());
            let one = Shape::new(vs.element_type(), &[1]);
            let mut starts = Vec::new();
            for k in 0..vs.dims()[0] {
                let s = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{s} = stablehlo.slice {v} [{k}:{}] : ({}) -> {}",
                    k + 1,
                    tensor_type(vs),
                    tensor_type(&one)
                )));
                let r = state.value();
                lines.push(Line::Text(format!(
                    "{pad}{r} = stablehlo.reshape {s} : ({}) -> {}",
                    tensor_type(&one),
                    tensor_type(&scalar)
                )));
                starts.push(r);
            }
            let types = vec![tensor_type(&scalar); starts.len()];
            return (starts, types);
        }
    }
    operands
        .iter()
        .map(|o| {
            let name = names[o.index()].first().cloned().unwrap_or_default();
            (name, tensor_type(&body.inst(*o).shape))
        })
        .unzip()
}

/// The op of a reducer that is one commutative binary op of its two
/// parameters, in order, and nothing else (MLIR's condition for the
/// compact form).
fn compact_reducer(comp: &Computation, id: ComputationId) -> Option<String> {
    let body = comp.bodies().get(id.index())?;
    let reducer = body.binary_reducer()?;
    (body.instructions.len() == 3 && !reducer.swapped && reducer.op.is_commutative_associative())
        .then(|| stablehlo_name(reducer.op.opcode()))
}

trait WithDims {
    fn with_dims_of(&self, other: &Shape) -> Shape;
}

impl WithDims for Shape {
    /// This element type with `other`'s dims.
    fn with_dims_of(&self, other: &Shape) -> Shape {
        Shape::new(self.element_type(), other.dims())
    }
}

/// An MLIR symbol name: bare when it can be, quoted otherwise.
fn symbol(name: &str) -> String {
    let bare = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// `[0, 2]`.
fn list(values: &[i64]) -> String {
    let v: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", v.join(", "))
}

/// StableHLO has no 1-bit signed integer (its integers are `si2`..`si64`,
/// written signless, `ui2`..`ui64`, and `i1`, which is the boolean): an
/// `s1` value would read back as `pred`, so a module holding one is
/// refused, naming the first instruction and its shape.
fn refuse_s1(comp: &Computation) -> Result<(), ExportError> {
    fn has_s1(s: &oxla_ir::Shape) -> bool {
        if s.is_array() {
            s.element_type() == ElementType::S1
        } else {
            s.tuple_shapes().iter().any(has_s1)
        }
    }
    for body in comp.bodies() {
        if let Some(i) = body.instructions.iter().find(|i| has_s1(&i.shape)) {
            return Err(ExportError::Unsupported {
                computation: comp.name().to_string(),
                instruction: i.name.clone(),
                reason: format!(
                    "its shape {} holds s1, and StableHLO has no 1-bit signed integer (`i1` is its boolean; convert to s2 or pred first)",
                    i.shape
                ),
            });
        }
    }
    Ok(())
}

/// `f32`, `i1`, `ui8`, `bf16`, `f8E4M3FN`, `complex<f32>`, ...
pub(crate) fn element_type(ty: ElementType) -> &'static str {
    match ty {
        ElementType::Pred => "i1",
        // Refused before anything is written (`refuse_s1`).
        ElementType::S1 => "si1",
        ElementType::S2 => "i2",
        ElementType::S4 => "i4",
        ElementType::S8 => "i8",
        ElementType::S16 => "i16",
        ElementType::S32 => "i32",
        ElementType::S64 => "i64",
        ElementType::U1 => "ui1",
        ElementType::U2 => "ui2",
        ElementType::U4 => "ui4",
        ElementType::U8 => "ui8",
        ElementType::U16 => "ui16",
        ElementType::U32 => "ui32",
        ElementType::U64 => "ui64",
        ElementType::F4E2M1FN => "f4E2M1FN",
        ElementType::F8E3M4 => "f8E3M4",
        ElementType::F8E4M3 => "f8E4M3",
        ElementType::F8E4M3FN => "f8E4M3FN",
        ElementType::F8E4M3FNUZ => "f8E4M3FNUZ",
        ElementType::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
        ElementType::F8E5M2 => "f8E5M2",
        ElementType::F8E5M2FNUZ => "f8E5M2FNUZ",
        ElementType::F8E8M0FNU => "f8E8M0FNU",
        ElementType::Bf16 => "bf16",
        ElementType::F16 => "f16",
        ElementType::F32 => "f32",
        ElementType::F64 => "f64",
        ElementType::C64 => "complex<f32>",
        ElementType::C128 => "complex<f64>",
        ElementType::Tuple => "tuple",
        ElementType::Token => "!stablehlo.token",
    }
}

/// The element types of a tuple shape, joined: `tensor<2xui64>, tensor<4xui32>`.
fn leaf_types(shape: &Shape) -> String {
    let parts: Vec<String> = shape.tuple_shapes().iter().map(tensor_type).collect();
    parts.join(", ")
}

/// `tensor<2x3xf32>`, `tensor<f32>`, `tuple<tensor<2xf32>, tensor<i32>>`.
fn tensor_type(shape: &Shape) -> String {
    if shape.is_tuple() {
        let parts: Vec<String> = shape.tuple_shapes().iter().map(tensor_type).collect();
        return format!("tuple<{}>", parts.join(", "));
    }
    if shape.is_token() {
        return "!stablehlo.token".into();
    }
    let mut s = String::from("tensor<");
    for d in shape.dims() {
        let _ = write!(s, "{d}x");
    }
    s.push_str(element_type(shape.element_type()));
    s.push('>');
    s
}

/// StableHLO's name of an op without the `stablehlo.` prefix, from the op
/// table (`log-plus-one` is `log_plus_one`).
fn stablehlo_name(opcode: Opcode) -> String {
    let name = opcode.stablehlo_name().unwrap_or(opcode.name());
    name.strip_prefix("stablehlo.").unwrap_or(name).to_string()
}

fn direction(dir: ComparisonDirection) -> &'static str {
    match dir {
        ComparisonDirection::Eq => "EQ",
        ComparisonDirection::Ne => "NE",
        ComparisonDirection::Lt => "LT",
        ComparisonDirection::Le => "LE",
        ComparisonDirection::Gt => "GT",
        ComparisonDirection::Ge => "GE",
    }
}

/// Above this many elements MLIR prints a non-splat constant as a hex blob.
const HEX_THRESHOLD: usize = 100;

/// `dense<...>` for a constant.
fn dense(literal: &Literal) -> String {
    let Some(data) = literal.array_data() else {
        // Tuple constants have no dense form; MLIR would need a tuple op.
        return "dense<>".into();
    };
    let n = data.len();
    if n == 0 {
        return "dense<>".into();
    }
    let values: Vec<String> = (0..n).map(|i| element_text(data, i)).collect();
    let bits: Vec<Vec<u8>> = (0..n).map(|i| element_bytes(data, i)).collect();
    if bits.iter().all(|b| *b == bits[0]) {
        return format!("dense<{}>", values[0]);
    }
    // MLIR's hex form packs `i1` and sub-byte types; oxla writes them, and
    // complex values, element by element.
    let ty = data.element_type();
    if n > HEX_THRESHOLD && ty.bit_width() >= 8 && !ty.is_complex() {
        let mut hex = String::from("\"0x");
        for b in bits.iter().flatten() {
            let _ = write!(hex, "{b:02X}");
        }
        hex.push('"');
        return format!("dense<{hex}>");
    }
    let dims = literal.shape().dims();
    let mut out = String::from("dense<");
    let mut pos = 0;
    nested(&mut out, &values, dims, &mut pos);
    out.push('>');
    out
}

fn nested(out: &mut String, values: &[String], dims: &[i64], pos: &mut usize) {
    let Some((&n, rest)) = dims.split_first() else {
        out.push_str(&values[*pos]);
        *pos += 1;
        return;
    };
    out.push('[');
    for k in 0..n {
        if k > 0 {
            out.push_str(", ");
        }
        nested(out, values, rest, pos);
    }
    out.push(']');
}

fn element_bytes(data: &ArrayData, i: usize) -> Vec<u8> {
    data.gather(&[i]).to_le_bytes()
}

fn element_text(data: &ArrayData, i: usize) -> String {
    /// A real float: MLIR's text when it reads back to the same bits in
    /// the type, else the bits in hex.
    fn real<T: RealFloat>(x: T) -> String {
        let bits = x.to_bits128();
        let width = T::ELEMENT_TYPE.bit_width() as usize;
        float_text(
            x.to_f64(),
            |s| {
                s.parse::<f64>()
                    .is_ok_and(|y| T::from_f64(y).to_bits128() == bits)
            },
            if width > 32 { 17 } else { 9 },
            format!("0x{:0w$X}", bits, w = width.div_ceil(4)),
        )
    }
    /// `(re,im)`, as MLIR prints a complex element.
    fn complex<T: RealFloat>(re: T, im: T) -> String {
        format!("({},{})", real(re), real(im))
    }
    match data {
        ArrayData::Pred(v) => v[i].to_string(),
        ArrayData::S1(v) => v[i].get().to_string(),
        ArrayData::S2(v) => v[i].get().to_string(),
        ArrayData::S4(v) => v[i].get().to_string(),
        ArrayData::S8(v) => v[i].to_string(),
        ArrayData::S16(v) => v[i].to_string(),
        ArrayData::S32(v) => v[i].to_string(),
        ArrayData::S64(v) => v[i].to_string(),
        ArrayData::U1(v) => v[i].get().to_string(),
        ArrayData::U2(v) => v[i].get().to_string(),
        ArrayData::U4(v) => v[i].get().to_string(),
        ArrayData::U8(v) => v[i].to_string(),
        ArrayData::U16(v) => v[i].to_string(),
        ArrayData::U32(v) => v[i].to_string(),
        ArrayData::U64(v) => v[i].to_string(),
        ArrayData::F4E2M1FN(v) => real(v[i]),
        ArrayData::F8E3M4(v) => real(v[i]),
        ArrayData::F8E4M3(v) => real(v[i]),
        ArrayData::F8E4M3FN(v) => real(v[i]),
        ArrayData::F8E4M3FNUZ(v) => real(v[i]),
        ArrayData::F8E4M3B11FNUZ(v) => real(v[i]),
        ArrayData::F8E5M2(v) => real(v[i]),
        ArrayData::F8E5M2FNUZ(v) => real(v[i]),
        ArrayData::F8E8M0FNU(v) => real(v[i]),
        ArrayData::Bf16(v) => real(v[i]),
        ArrayData::F16(v) => real(v[i]),
        ArrayData::F32(v) => real(v[i]),
        ArrayData::F64(v) => real(v[i]),
        ArrayData::C64(v) => complex(v[i].re, v[i].im),
        ArrayData::C128(v) => complex(v[i].re, v[i].im),
    }
}

/// MLIR's float printing: six significant digits if they read back exactly, else
/// LLVM's natural-precision decimal if it has a `.`, else the bits in hex.
fn float_text(x: f64, reads_back: impl Fn(&str) -> bool, digits: usize, hex: String) -> String {
    if !x.is_finite() {
        return hex;
    }
    let short = scientific(x, 6);
    if reads_back(&short) {
        return short;
    }
    let natural = natural_precision(x, digits);
    if natural.contains('.') && reads_back(&natural) {
        return natural;
    }
    hex
}

/// LLVM's `APFloat::toString(s, precision, 0, false)`: `precision`
/// significant digits, printed with `precision` digits after the point (so
/// the last is a padding zero) and a two-digit exponent: `5.641890e-01`.
fn scientific(x: f64, precision: usize) -> String {
    let s = format!("{x:.*e}", precision.saturating_sub(1));
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    let pad = if mantissa.contains('.') {
        "0"
    } else {
        ".000000"
    };
    format!("{mantissa}{pad}e{sign}{:02}", exp.abs())
}

/// LLVM's `APFloat::toString` with its defaults: `digits` significant
/// digits, trailing zeros dropped, plain notation unless that needs more
/// than three padding zeros, otherwise `d.dddE-N`.
fn natural_precision(x: f64, digits: usize) -> String {
    let s = format!("{:.*e}", digits - 1, x.abs());
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut ds: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    while ds.len() > 1 && ds.ends_with('0') {
        ds.pop();
    }
    let n = ds.len() as i32;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Exponent of the last digit: value = ds * 10^last.
    let last = exp - (n - 1);
    let scientific = if last >= 0 {
        last > 3 || n + last > digits as i32
    } else {
        exp < 0 && -exp > 3
    };
    if scientific {
        let (first, rest) = ds.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}.{rest}E{esign}{}", exp.abs());
    }
    if last >= 0 {
        return format!("{sign}{ds}{}", "0".repeat(last as usize));
    }
    let whole = exp + 1;
    if whole > 0 {
        let (a, b) = ds.split_at(whole as usize);
        format!("{sign}{a}.{b}")
    } else {
        format!("{sign}0.{}{ds}", "0".repeat((-whole) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_mlir_does() {
        let f = |x: f32| element_text(&ArrayData::F32(vec![x]), 0);
        assert_eq!(f(0.0), "0.000000e+00");
        assert_eq!(f(1.0), "1.000000e+00");
        assert_eq!(f(-2.5), "-2.500000e+00");
        assert_eq!(f(0.1), "1.000000e-01");
        // Integral past six digits: LLVM prints no `.`, so MLIR falls back to hex.
        assert_eq!(f(1234567.0), "0x4996B438");
        assert_eq!(f(0.000123), "1.230000e-04");
        assert_eq!(f(f32::NEG_INFINITY), "0xFF800000");
        assert_eq!(f(f32::INFINITY), "0x7F800000");
        assert_eq!(f(0.564_189_5), "0.564189494");
        assert_eq!(f(123456792.0), "0x4CEB79A3");
        assert_eq!(f(1.2345678e-7), "1.23456786E-7");
        let d = |x: f64| element_text(&ArrayData::F64(vec![x]), 0);
        assert_eq!(d(1.0 / 3.0), "0.33333333333333331");
        assert_eq!(d(f64::NAN), format!("0x{:016X}", f64::NAN.to_bits()));
    }

    #[test]
    fn constants_print_as_dense_attributes() {
        let l = Literal::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
        assert_eq!(dense(&l), "dense<[[1, 2], [3, 4]]>");
        let l = Literal::from_vec(&[3], vec![7u8, 7, 7]).unwrap();
        assert_eq!(dense(&l), "dense<7>");
        let l = Literal::from_vec(&[2], vec![true, false]).unwrap();
        assert_eq!(dense(&l), "dense<[true, false]>");
        let l = Literal::from_vec(&[0], Vec::<f32>::new()).unwrap();
        assert_eq!(dense(&l), "dense<>");
        let l = Literal::from_vec(&[101], (0..101).map(|i| i as i8).collect::<Vec<_>>()).unwrap();
        assert!(dense(&l).starts_with("dense<\"0x000102"));
    }

    /// Control flow and tuples, as they are flattened: the loop state's
    /// leaves become `%iterArg`s, branches capture their operands, a
    /// scalar operand of `map` is broadcast first, and an empty tuple
    /// returns nothing. XLA parses, compiles and runs this text (checked
    /// with jaxlib when it was written: `true, {1, 2}, 0.5` gives
    /// `{-8.5, -16.5}`).
    #[test]
    fn control_flow_exports_as_regions_over_flattened_tuples() {
        let text = r#"HloModule pin

cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[2] get-tuple-element(s), index=1
  y = f32[2] add(x, x)
  ROOT t = (s32[], f32[2]) tuple(j, y)
}

neg {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}

sub1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT d = f32[] subtract(a, b)
}

ENTRY pin {
  p = pred[] parameter(0)
  x = f32[2] parameter(1)
  s = f32[] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  y = f32[2] get-tuple-element(w), index=1
  c = f32[2] conditional(p, y, x), true_computation=neg, false_computation=neg
  m = f32[2] map(c, s), dimensions={0}, to_apply=sub1
  e = () tuple()
  ROOT r = (f32[2], ()) tuple(m, e)
}
"#;
        let comp = oxla_ir::parse_hlo_module(text).expect("the module parses");
        let expected = r#"module @pin attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<2xf32>, %arg2: tensor<f32>) -> (tensor<2xf32> {jax.result_info = "result[0]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1) : tensor<i32>, tensor<2xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      %5 = stablehlo.add %iterArg_0, %iterArg_0 : tensor<2xf32>
      stablehlo.return %4, %5 : tensor<i32>, tensor<2xf32>
    }
    %1 = "stablehlo.if"(%arg0) ({
      %4 = stablehlo.negate %0#1 : tensor<2xf32>
      stablehlo.return %4 : tensor<2xf32>
    }, {
      %4 = stablehlo.negate %arg1 : tensor<2xf32>
      stablehlo.return %4 : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %3 = "stablehlo.map"(%1, %2) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %4 = stablehlo.subtract %arg3, %arg4 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %3 : tensor<2xf32>
  }
}
"#;
        assert_eq!(to_stablehlo(&comp).expect("exports"), expected);
    }
}
