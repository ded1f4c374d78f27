//! Lowering of sort steps: the key kernels of a sort by keys (loop
//! kernels over the sort's elements) and the sort kernels themselves.

use oxla_ir::{Computation, ComputationId, ElementType, InstId, OpKind, Result};

use crate::entity::{BufferId, NodeId};
use crate::fusion::{Plan, SortHow, SortStep};
use crate::graph::{Ctx, Graph, Node, Source};
use crate::ix::{Extents, Ix};
use crate::kernel::{InlineComparator, LoopKernel, Pass, SortKernel, SortOrder, Work};
use crate::sortlib::Rows;

use super::bug;

/// Where the comparator's parameters and constants are found: `a_k`
/// (parameter `2k`) is `side_a[k]`, `b_k` is `side_b[k]` (none: the key
/// expression reads no `b_k`), non-scalar constants in their buffers.
fn comparator_source<'a>(
    comp: &'a Computation,
    plan: &'a Plan,
    comparator: ComputationId,
    side_a: &'a [NodeId],
    side_b: &'a [NodeId],
) -> impl Fn(InstId) -> Option<Source> + 'a {
    let body = comp.body(comparator);
    // Only these leaves are found; every other op of the body is computed.
    move |i: InstId| {
        let kind = &body.inst(i).kind;
        if let OpKind::Parameter { number } = *kind {
            let k = usize::try_from(number / 2).ok()?;
            let side = if number % 2 == 0 { side_a } else { side_b };
            side.get(k).map(|&n| Source::Node(n))
        } else if let OpKind::Constant { .. } = kind {
            plan.called_constants
                .get(&(comparator, i))
                .map(|&b| Source::Buffer(b))
        } else {
            None
        }
    }
}

/// A load of each of `inputs` at `offset`.
fn loads(graph: &mut Graph, plan: &Plan, inputs: &[BufferId], offset: &Ix) -> Vec<NodeId> {
    inputs
        .iter()
        .map(|&buf| {
            let shape = &plan.buffers[buf].shape;
            graph.add(Node::Load {
                buf,
                ty: shape.element_type(),
                offset: offset.clone(),
                numel: shape.element_count(),
                clamp: false,
            })
        })
        .collect()
}

/// The key kernel writing `out`: `out[i] = expr(a = element i)`, one flat
/// loop over the sort's elements, split across threads.
pub(super) fn sort_key_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    comparator: ComputationId,
    expr: InstId,
    inputs: &[BufferId],
) -> Result<LoopKernel> {
    let shape = &plan.buffers[out].shape;
    let mut extents = Extents::new();
    let v = extents.push(shape.element_count());
    let mut graph = Graph::new(extents);
    let at = Ix::var(v);
    let side_a = loads(&mut graph, plan, inputs, &at);
    let source = comparator_source(comp, plan, comparator, &side_a, &[]);
    let ctx = Ctx {
        comp,
        body_id: comparator,
        source: &source,
        called: &plan.called_constants,
    };
    let root = graph.build(&ctx, expr, vec![])?;
    Ok(LoopKernel::single(
        graph,
        vec![v],
        Some(0),
        Work::Store {
            root,
            out,
            out_offset: at,
        },
        shape.element_type(),
    ))
}

/// The sort kernel of `step`.
pub(super) fn sort_kernel(comp: &Computation, plan: &Plan, step: &SortStep) -> Result<SortKernel> {
    let first = step
        .inputs
        .first()
        .ok_or_else(|| bug("a sort without operands"))?;
    let dims = plan.buffers[*first].shape.dims().to_vec();
    let length = *dims
        .get(step.dimension)
        .ok_or_else(|| bug("a sort dimension out of range"))?;
    let stride: i64 = dims[step.dimension + 1..].iter().product();
    let numel: i64 = dims.iter().product();
    let rows = Rows {
        count: if length == 0 { 0 } else { numel / length },
        length,
        stride: stride.max(1),
    };
    let inputs: Vec<(BufferId, ElementType)> = step
        .inputs
        .iter()
        .map(|&b| (b, plan.buffers[b].shape.element_type()))
        .collect();
    let order = match &step.how {
        SortHow::Keys(keys) => SortOrder::Keys(keys.clone()),
        SortHow::TopK { k, largest } => SortOrder::TopK {
            k: *k,
            largest: *largest,
        },
        SortHow::Comparator { to_apply, scratch } => {
            // Two position variables, each ranging over every element.
            let mut extents = Extents::new();
            let a = extents.push(numel);
            let b = extents.push(numel);
            let mut graph = Graph::new(extents);
            let side_a = loads(&mut graph, plan, &step.inputs, &Ix::var(a));
            let side_b = loads(&mut graph, plan, &step.inputs, &Ix::var(b));
            let source = comparator_source(comp, plan, *to_apply, &side_a, &side_b);
            let ctx = Ctx {
                comp,
                body_id: *to_apply,
                source: &source,
                called: &plan.called_constants,
            };
            let root = graph.build(&ctx, comp.body(*to_apply).root, vec![])?;
            let kernel = LoopKernel {
                graph,
                loop_order: vec![a, b],
                // The emitter's range (`bounds(0)`) is the kernel's rows.
                split_loop: Some(0),
                passes: vec![Pass {
                    work: Work::Store {
                        root,
                        out: *scratch,
                        out_offset: Ix::constant(0),
                    },
                    value_type: ElementType::Pred,
                    keeps: vec![],
                    per_row: false,
                }],
                row_loops: None,
            };
            SortOrder::Comparator(Box::new(InlineComparator {
                kernel,
                root,
                a,
                b,
                scratch: *scratch,
                index_type: plan.buffers[*scratch].shape.element_type(),
            }))
        }
    };
    Ok(SortKernel {
        rows,
        inputs,
        outputs: step.outputs.clone(),
        order,
    })
}
