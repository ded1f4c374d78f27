//! Tuples as values: which array each leaf of a tuple-shaped value is.
//!
//! The JIT never builds a tuple. Every value of a body is a *tree* of
//! arrays ([`Tree`]) whose leaves are symbols ([`Sym`]): an array
//! instruction of the body (computed by a step, fused into one, a
//! parameter or a constant), or leaf `k` of an instruction that produces
//! several arrays at once (a tuple-shaped parameter, a `while`, a
//! `conditional`, a variadic `reduce`). `tuple` builds a tree of its
//! operands' trees, `get-tuple-element` takes a subtree and
//! `opt-barrier` passes its operand's tree through, so none of them costs
//! anything: a `get-tuple-element` reads the buffer of the leaf it names
//! (it *aliases* it), and a result tuple is only the list of its leaves.
//!
//! Leaves are numbered depth-first (`(a, (b, c))` has leaves `a`, `b`,
//! `c`), the order in which tuple arguments and results are flattened
//! everywhere in the JIT.

use oxla_ir::{Body, InstId, OpKind, Shape};

use super::StepClass;

/// One array of a value: see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Sym {
    /// The array instruction itself.
    Inst(InstId),
    /// Leaf `k` (depth-first) of an instruction that produces several
    /// arrays: a tuple-shaped parameter, a `while`, a `conditional`, a
    /// tuple-shaped `reduce`.
    Part(InstId, usize),
}

/// A value: one array, or a tuple of values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tree {
    Leaf(Sym),
    Tuple(Vec<Tree>),
}

impl Tree {
    /// The leaves, depth-first.
    pub(crate) fn flat(&self) -> Vec<Sym> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<Sym>) {
        match self {
            Tree::Leaf(s) => out.push(*s),
            Tree::Tuple(items) => items.iter().for_each(|t| t.collect(out)),
        }
    }

    /// The one array of an array value.
    pub(crate) fn leaf(&self) -> Option<Sym> {
        match self {
            Tree::Leaf(s) => Some(*s),
            Tree::Tuple(_) => None,
        }
    }
}

/// The number of array leaves of `shape`.
pub(crate) fn leaf_count(shape: &Shape) -> usize {
    if shape.is_tuple() {
        shape.tuple_shapes().iter().map(leaf_count).sum()
    } else {
        1
    }
}

/// The array shapes of `shape`'s leaves, depth-first.
pub(crate) fn leaf_shapes(shape: &Shape) -> Vec<Shape> {
    fn walk(s: &Shape, out: &mut Vec<Shape>) {
        if s.is_tuple() {
            s.tuple_shapes().iter().for_each(|e| walk(e, out));
        } else {
            out.push(s.clone());
        }
    }
    let mut out = Vec::new();
    walk(shape, &mut out);
    out
}

/// The tree of `shape` whose leaves are `Part(of, k)`, numbered from
/// `*next`.
fn parts(shape: &Shape, of: InstId, next: &mut usize) -> Tree {
    if shape.is_tuple() {
        Tree::Tuple(
            shape
                .tuple_shapes()
                .iter()
                .map(|s| parts(s, of, next))
                .collect(),
        )
    } else {
        *next += 1;
        Tree::Leaf(Sym::Part(of, *next - 1))
    }
}

/// Whether `kind` (of an instruction of `shape`) produces its arrays as
/// parts (see [`Sym::Part`]).
pub(crate) fn produces_parts(kind: &OpKind, shape: &Shape) -> bool {
    match super::step_class(kind) {
        StepClass::While { .. } | StepClass::Branch { .. } => true,
        StepClass::Param | StepClass::Reduce | StepClass::Sort { .. } | StepClass::TopK { .. } => {
            shape.is_tuple()
        }
        StepClass::Constant
        | StepClass::Alias
        | StepClass::Dot { .. }
        | StepClass::Family(_)
        | StepClass::Fused => false,
    }
}

/// Whether `kind` only passes values through (a tuple, an element of one,
/// a barrier): it computes nothing and has no buffer of its own.
pub(crate) fn is_alias(kind: &OpKind) -> bool {
    matches!(super::step_class(kind), StepClass::Alias)
}

/// The value tree of every instruction of `body`, by index.
pub(crate) fn value_trees(body: &Body) -> Vec<Tree> {
    let mut trees: Vec<Tree> = Vec::with_capacity(body.instructions.len());
    for (i, inst) in body.instructions.iter().enumerate() {
        let id = InstId(i as u32);
        let operand = |k: usize| inst.operands.get(k).map(|o| trees[o.index()].clone());
        let tree = match &inst.kind {
            OpKind::Tuple => Tree::Tuple(
                inst.operands
                    .iter()
                    .map(|o| trees[o.index()].clone())
                    .collect(),
            ),
            OpKind::GetTupleElement { index } => match operand(0) {
                Some(Tree::Tuple(mut items)) if (*index as usize) < items.len() => {
                    items.swap_remove(*index as usize)
                }
                // A verified body never takes an element of an array.
                _ => Tree::Leaf(Sym::Inst(id)),
            },
            OpKind::OptimizationBarrier => operand(0).unwrap_or(Tree::Leaf(Sym::Inst(id))),
            // Every other op: its parts, or itself.
            kind @ (OpKind::Parameter { .. }
            | OpKind::Constant { .. }
            | OpKind::Iota { .. }
            | OpKind::Unary(_)
            | OpKind::Binary { .. }
            | OpKind::Convert
            | OpKind::Select
            | OpKind::Clamp
            | OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::Reduce { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::While { .. }
            | OpKind::Conditional { .. }
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
            | OpKind::RaggedDot { .. }) => {
                if produces_parts(kind, &inst.shape) {
                    parts(&inst.shape, id, &mut 0)
                } else {
                    Tree::Leaf(Sym::Inst(id))
                }
            }
        };
        trees.push(tree);
    }
    trees
}

/// The first flat leaf index of each parameter of `body`, by parameter
/// number: parameters are flattened in number order, each depth-first.
pub(crate) fn param_leaf_base(body: &Body) -> Vec<usize> {
    let mut shapes: Vec<(i64, usize)> = body
        .instructions
        .iter()
        .filter_map(|inst| {
            let OpKind::Parameter { number } = inst.kind else {
                return None;
            };
            Some((number, leaf_count(&inst.shape)))
        })
        .collect();
    shapes.sort_unstable();
    let mut base = Vec::with_capacity(shapes.len());
    let mut next = 0;
    for (_, n) in shapes {
        base.push(next);
        next += n;
    }
    base
}

/// The symbol of flat parameter leaf `j` of `body`.
pub(crate) fn param_sym(body: &Body, j: usize) -> Option<Sym> {
    let base = param_leaf_base(body);
    let (i, inst) = body.instructions.iter().enumerate().find(|(_, inst)| {
        matches!(inst.kind, OpKind::Parameter { number }
            if base.get(number as usize).is_some_and(|&b| b <= j && j < b + leaf_count(&inst.shape)))
    })?;
    let OpKind::Parameter { number } = inst.kind else {
        return None;
    };
    let id = InstId(i as u32);
    Some(if inst.shape.is_tuple() {
        Sym::Part(id, j - base[number as usize])
    } else {
        Sym::Inst(id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxla_ir::ElementType::{F32, S32};
    use oxla_ir::parser::parse_hlo_module;

    #[test]
    fn elements_of_tuples_resolve_to_the_arrays_they_name() {
        let comp = parse_hlo_module(
            "HloModule t\n\
             ENTRY t {\n\
               p = (s32[], (f32[2], f32[3])) parameter(0)\n\
               x = f32[2] parameter(1)\n\
               inner = (f32[2], f32[3]) get-tuple-element(p), index=1\n\
               b = f32[3] get-tuple-element(inner), index=1\n\
               t = (f32[2], f32[3]) tuple(x, b)\n\
               f = (f32[2], f32[3]) opt-barrier(t)\n\
               ROOT y = f32[2] get-tuple-element(f), index=0\n\
             }",
        )
        .unwrap();
        let body = comp.entry();
        let trees = value_trees(body);
        let p = InstId(0);
        assert_eq!(trees[3], Tree::Leaf(Sym::Part(p, 2)));
        assert_eq!(trees[5].flat(), vec![Sym::Inst(InstId(1)), Sym::Part(p, 2)]);
        assert_eq!(trees[6].leaf(), Some(Sym::Inst(InstId(1))));
        assert_eq!(param_leaf_base(body), vec![0, 3]);
        let shape = Shape::tuple(vec![
            Shape::new(S32, &[]),
            Shape::tuple(vec![Shape::new(F32, &[2])]),
        ]);
        assert_eq!(leaf_count(&shape), 2);
        assert_eq!(leaf_shapes(&shape)[1], Shape::new(F32, &[2]));
    }
}
