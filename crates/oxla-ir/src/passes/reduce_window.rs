//! A `reduce-window` of several inputs (or whose reducer returns a tuple)
//! built from pads, strided slices, selects and the reducer's own
//! elementwise ops, in the interpreter's order, so a backend with a
//! single-input `reduce-window` kernel runs it with the same bits.
//!
//! The interpreter (`oxla_interp`'s `ctrl::reduce_window_variadic`) starts
//! each output position's accumulators at the init values and folds in,
//! with the reducer, the inputs' elements at every window position that
//! holds an element (padding and base-dilation holes are skipped), in
//! row-major order of the window. Here each input is padded as the window
//! pads and dilates it (`pad` with `interior = base_dilation - 1`); for
//! each window offset `k` (row-major) a strided slice gives every output
//! position's element at offset `k`, and the same slice of a padded `true`
//! mask says whether that position holds an element. The reducer's body,
//! made of elementwise ops on scalars, is applied to whole arrays (each
//! scalar op becomes the same op over the output's dims) and its results
//! kept where the mask is true: every output element sees the reducer
//! applied to the same values in the same order as in the interpreter.
//!
//! Expanded only when that is cheap and exact: a reducer of elementwise
//! ops (parameters, constants, unary and binary ops, comparisons,
//! `select`, `clamp`, `convert`, same-width `bitcast-convert`, tuples), a
//! window of at most [`MAX_POSITIONS`] offsets (each adds a copy of the
//! reducer), and no `window_reversal` (the interpreter's reduce-window
//! does not reverse). A larger window is folded by one-input
//! reduce-windows of packed bit patterns ([`reduce_window_packed`]) when
//! the inputs whose results depend on one another take at most 64 bits
//! per element together. Otherwise the op is kept (a backend refuses
//! it).

use crate::ir::Body;
use crate::{
    Builder, Computation, ElementType, Literal, Op, OpKind, PadDim, Result, Shape, Window,
};

/// The most window offsets a `reduce-window` is unrolled over.
pub const MAX_POSITIONS: i64 = 256;

/// A reducer value lifted to arrays: an array or a tuple of them.
#[derive(Clone)]
pub(crate) enum Lifted {
    Array(Op),
    Tuple(Vec<Lifted>),
}

impl Lifted {
    pub(crate) fn array(&self) -> Option<Op> {
        match self {
            Lifted::Array(op) => Some(*op),
            Lifted::Tuple(_) => None,
        }
    }
}

/// The reducer `body` applied to the arrays `params` (of dims `dims`),
/// each scalar op made an op over `dims`; `None` when it holds an op that
/// is not elementwise.
pub(crate) fn lift(
    b: &mut Builder,
    body: &Body,
    params: &[Op],
    dims: &[i64],
) -> Result<Option<Lifted>> {
    let mut values: Vec<Lifted> = Vec::with_capacity(body.instructions.len());
    for inst in &body.instructions {
        let scalar_or_tuple = inst.shape.is_tuple() || inst.shape.dims().is_empty();
        if !scalar_or_tuple {
            return Ok(None);
        }
        let arg = |i: usize| -> Option<Op> {
            inst.operands
                .get(i)
                .and_then(|o| values.get(o.index()))
                .and_then(Lifted::array)
        };
        let v = match &inst.kind {
            OpKind::Parameter { number } => {
                match usize::try_from(*number).ok().and_then(|n| params.get(n)) {
                    Some(&p) => Lifted::Array(p),
                    None => return Ok(None),
                }
            }
            OpKind::Constant { literal } => {
                let c = b.constant(literal.clone())?;
                Lifted::Array(b.broadcast_in_dim(c, dims, &[])?)
            }
            OpKind::Unary(op) => match arg(0) {
                Some(x) => Lifted::Array(b.unary(*op, x)?),
                None => return Ok(None),
            },
            OpKind::Binary { op, .. } => match (arg(0), arg(1)) {
                (Some(x), Some(y)) => Lifted::Array(b.binary(x, y, *op, &[])?),
                _ => return Ok(None),
            },
            OpKind::Select => match (arg(0), arg(1), arg(2)) {
                (Some(p), Some(t), Some(f)) => Lifted::Array(b.select(p, t, f)?),
                _ => return Ok(None),
            },
            OpKind::Clamp => match (arg(0), arg(1), arg(2)) {
                (Some(lo), Some(x), Some(hi)) => Lifted::Array(b.clamp(lo, x, hi)?),
                _ => return Ok(None),
            },
            OpKind::Convert => match arg(0) {
                Some(x) => Lifted::Array(b.convert(x, inst.shape.element_type())?),
                None => return Ok(None),
            },
            OpKind::BitcastConvert => match arg(0) {
                Some(x)
                    if b.shape(x)?.element_type().bit_width()
                        == inst.shape.element_type().bit_width() =>
                {
                    Lifted::Array(b.bitcast_convert_type(x, inst.shape.element_type())?)
                }
                _ => return Ok(None),
            },
            // A scalar reshaped or broadcast to a scalar is itself.
            OpKind::Reshape | OpKind::Broadcast { .. } | OpKind::OptimizationBarrier => {
                match inst.operands.first().and_then(|o| values.get(o.index())) {
                    Some(v) => v.clone(),
                    None => return Ok(None),
                }
            }
            OpKind::Tuple => {
                let items: Option<Vec<Lifted>> = inst
                    .operands
                    .iter()
                    .map(|o| values.get(o.index()).cloned())
                    .collect();
                match items {
                    Some(items) => Lifted::Tuple(items),
                    None => return Ok(None),
                }
            }
            OpKind::GetTupleElement { index } => {
                let item = inst
                    .operands
                    .first()
                    .and_then(|o| values.get(o.index()))
                    .and_then(|t| match t {
                        Lifted::Tuple(items) => {
                            usize::try_from(*index).ok().and_then(|i| items.get(i))
                        }
                        Lifted::Array(_) => None,
                    });
                match item {
                    Some(v) => v.clone(),
                    None => return Ok(None),
                }
            }
            OpKind::Iota { .. }
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::Reduce { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::Bitcast
            | OpKind::ReducePrecision { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
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
            | OpKind::CustomCall(_)
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. } => return Ok(None),
        };
        values.push(v);
    }
    Ok(values.get(body.root.index()).cloned())
}

/// `reduce-window` of the arrays `inputs` with the scalar `inits`, the
/// reducer `reducer` (a body of the computation) and `window`, giving
/// the arrays of dims `out_dims` (see the module docs); `None` when it is
/// not expanded.
pub fn reduce_window(
    b: &mut Builder,
    inputs: &[Op],
    inits: &[Op],
    reducer: &Body,
    window: &Window,
    out_dims: &[i64],
) -> Result<Option<Vec<Op>>> {
    let n = inputs.len();
    if n == 0 || inits.len() != n {
        return Ok(None);
    }
    let in_dims = b.shape(inputs[0])?.dims().to_vec();
    let rank = in_dims.len();
    if window.dimensions.len() != rank || window.dimensions.iter().any(|d| d.window_reversal) {
        return Ok(None);
    }
    let positions = window
        .dimensions
        .iter()
        .try_fold(1i64, |p, d| p.checked_mul(d.size.max(0)));
    let Some(positions) = positions.filter(|&p| p <= MAX_POSITIONS) else {
        return Ok(None);
    };
    let mut accs = Vec::with_capacity(n);
    for &init in inits {
        accs.push(b.broadcast_in_dim(init, out_dims, &[])?);
    }
    let empty = |dims: &[i64]| dims.iter().any(|&d| d <= 0);
    if empty(out_dims) || empty(&in_dims) || positions == 0 {
        // No position holds an element: the inits.
        return Ok(Some(accs));
    }
    let config: Vec<PadDim> = window
        .dimensions
        .iter()
        .map(|d| PadDim {
            lo: d.padding_low,
            hi: d.padding_high,
            interior: d.base_dilation - 1,
        })
        .collect();
    let mut padded = Vec::with_capacity(n);
    for (&x, &init) in inputs.iter().zip(inits) {
        padded.push(b.pad(x, init, &config)?);
    }
    let yes = b.constant(Literal::scalar(true))?;
    let no = b.constant(Literal::scalar(false))?;
    let ones = b.broadcast_in_dim(yes, &in_dims, &[])?;
    let mask = b.pad(ones, no, &config)?;
    let sizes: Vec<i64> = window.dimensions.iter().map(|d| d.size).collect();
    let strides: Vec<i64> = window.dimensions.iter().map(|d| d.stride).collect();
    let mut offset = vec![0i64; rank];
    for _ in 0..positions {
        let starts: Vec<i64> = offset
            .iter()
            .zip(&window.dimensions)
            .map(|(&k, d)| k * d.window_dilation)
            .collect();
        let limits: Vec<i64> = starts
            .iter()
            .zip(out_dims)
            .zip(&strides)
            .map(|((&s, &o), &st)| s + (o - 1) * st + 1)
            .collect();
        let held = b.slice(mask, &starts, &limits, &strides)?;
        let mut params = accs.clone();
        for &p in &padded {
            params.push(b.slice(p, &starts, &limits, &strides)?);
        }
        let Some(Lifted::Tuple(results)) = lift(b, reducer, &params, out_dims)? else {
            return Ok(None);
        };
        if results.len() != n {
            return Ok(None);
        }
        for (acc, r) in accs.iter_mut().zip(&results) {
            let Some(r) = r.array() else {
                return Ok(None);
            };
            *acc = b.select(held, r, *acc)?;
        }
        // The next offset, row-major (the last dimension fastest).
        for d in (0..rank).rev() {
            offset[d] += 1;
            if offset[d] < sizes[d] {
                break;
            }
            offset[d] = 0;
        }
    }
    Ok(Some(accs))
}

/// `reduce-window` of the arrays `inputs` with the scalar `inits` (as
/// [`reduce_window`]) for a window of any number of offsets: the results
/// grouped by which inputs they read (as a variadic scatter's,
/// `super::scatter`), each group's inputs and inits packed into one
/// unsigned integer per element (at most 64 bits), folded by a one-input
/// `reduce-window` whose reducer unpacks its two arguments, applies the
/// reducer's elementwise ops and packs the group's results, and unpacked.
/// The one-input op folds the same elements in the same order (padding
/// and holes skipped, never folded), and packing is integer work on bit
/// patterns, so the results are the interpreter's. `None` when the
/// reducer is not elementwise, a type is not packed or a group is wider
/// than 64 bits.
pub fn reduce_window_packed(
    b: &mut Builder,
    inputs: &[Op],
    inits: &[Op],
    reducer: &Body,
    window: &Window,
    out_dims: &[i64],
) -> Result<Option<Vec<Op>>> {
    use super::scatter::{MAX_GROUP_BITS, groups, pack, packed_type, packed_width, unpack};
    let n = inputs.len();
    if n == 0 || inits.len() != n || window.dimensions.iter().any(|d| d.window_reversal) {
        return Ok(None);
    }
    let Some(groups) = groups(reducer, n) else {
        return Ok(None);
    };
    let mut types = Vec::with_capacity(n);
    for &x in inputs {
        types.push(b.shape(x)?.element_type());
    }
    let in_dims = b.shape(inputs[0])?.dims().to_vec();
    let mut results: Vec<Option<Op>> = vec![None; n];
    for g in &groups {
        let bits = g
            .iter()
            .map(|&k| packed_width(types[k]))
            .try_fold(0u32, |s, w| w.map(|w| s + w));
        let Some(packed) = bits
            .filter(|&bits| bits <= MAX_GROUP_BITS)
            .and_then(packed_type)
        else {
            return Ok(None);
        };
        let group_types: Vec<ElementType> = g.iter().map(|&k| types[k]).collect();
        // The group's reducer on packed scalars.
        let mut r = Builder::new("packed_reducer");
        let acc = r.parameter(0, Shape::scalar(packed), "acc")?;
        let x = r.parameter(1, Shape::scalar(packed), "x")?;
        let accs = unpack(&mut r, acc, &group_types, packed, &[])?;
        let xs = unpack(&mut r, x, &group_types, packed, &[])?;
        let mut params = Vec::with_capacity(2 * n);
        for values in [&accs, &xs] {
            for (j, &ty) in types.iter().enumerate() {
                params.push(match g.iter().position(|&k| k == j) {
                    Some(q) => values[q],
                    None => r.constant(Literal::zeros(&Shape::scalar(ty))?)?,
                });
            }
        }
        let Some(Lifted::Tuple(items)) = lift(&mut r, reducer, &params, &[])? else {
            return Ok(None);
        };
        let mut mine = Vec::with_capacity(g.len());
        for &k in g {
            match items.get(k).and_then(Lifted::array) {
                Some(v) => mine.push(v),
                None => return Ok(None),
            }
        }
        let root = pack(&mut r, &mine, packed, &[])?;
        let f = r.build(root)?;
        let gx: Vec<Op> = g.iter().map(|&k| inputs[k]).collect();
        let gi: Vec<Op> = g.iter().map(|&k| inits[k]).collect();
        let px = pack(b, &gx, packed, &in_dims)?;
        let pi = pack(b, &gi, packed, &[])?;
        let out = b.reduce_window(px, pi, &f, window)?;
        for (&k, v) in g
            .iter()
            .zip(unpack(b, out, &group_types, packed, out_dims)?)
        {
            results[k] = Some(v);
        }
    }
    Ok(results.into_iter().collect())
}

/// `comp` with every `reduce-window` of several inputs, or whose reducer
/// returns a tuple, built from primitives ([`reduce_window`]) where that
/// is cheap and exact, else from packed one-input reduce-windows
/// ([`reduce_window_packed`]) where that is exact; the others are kept.
///
/// ```
/// use oxla_ir::{OpKind, passes::reduce_window};
/// let text = "HloModule m\n\
///     argmax {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n  \
///     b = f32[] parameter(2)\n  j = s32[] parameter(3)\n  \
///     gt = pred[] compare(b, a), direction=GT\n  m = f32[] select(gt, b, a)\n  \
///     k = s32[] select(gt, j, i)\n  ROOT t = (f32[], s32[]) tuple(m, k)\n}\n\
///     ENTRY m {\n  x = f32[8] parameter(0)\n  ix = s32[8] iota(), iota_dimension=0\n  \
///     lo = f32[] constant(-inf)\n  z = s32[] constant(0)\n  \
///     ROOT r = (f32[3], s32[3]) reduce-window(x, ix, lo, z), window={size=3 stride=3 pad=0_1}, \
///     to_apply=argmax\n}\n";
/// let comp = oxla_ir::parse_hlo_module(text)?;
/// let out = reduce_window::expand_all(&comp)?;
/// let mut ops = out.bodies().iter().flat_map(|b| &b.instructions);
/// assert!(ops.all(|i| !matches!(i.kind, OpKind::ReduceWindow { .. })));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "reduce_window::expand_all pass", |inst, operands| {
        let OpKind::ReduceWindow { window, to_apply } = &inst.kind else {
            return Ok(None);
        };
        if operands.len() == 2 && !inst.shape.is_tuple() {
            return Ok(None);
        }
        let Some(reducer) = comp.bodies().get(to_apply.index()) else {
            return Ok(None);
        };
        let n = operands.len() / 2;
        let out_dims = match inst.shape.tuple_shapes().first() {
            Some(s) => s.dims().to_vec(),
            None => return Ok(None),
        };
        let mut b = Builder::new("reduce_window");
        let mut params = Vec::with_capacity(operands.len());
        for (k, s) in operands.iter().enumerate() {
            params.push(b.parameter(k as i64, s.clone(), &format!("p{k}"))?);
        }
        let (inputs, inits) = params.split_at(n);
        let outs = match reduce_window(&mut b, inputs, inits, reducer, window, &out_dims)? {
            Some(outs) => Some(outs),
            None => reduce_window_packed(&mut b, inputs, inits, reducer, window, &out_dims)?,
        };
        match outs {
            Some(outs) => {
                let t = b.tuple(&outs)?;
                b.build(t).map(Some)
            }
            None => Ok(None),
        }
    })
}

/// Whether `inst`'s kind is a `reduce-window` [`expand_all`] looks at.
pub(crate) fn is_variadic(kind: &OpKind, operands: usize, shape: &Shape) -> bool {
    matches!(kind, OpKind::ReduceWindow { .. }) && (operands != 2 || shape.is_tuple())
}
