//! Lowering of a convolution computed as a GEMM (`fusion/conv.rs` says
//! which ones and why): the patches and filter copies and the unpacking
//! copy are loop kernels of stores (threaded over their outer loop,
//! vectorised along the input features when the input has them
//! innermost); the product is a canonical dot kernel, the same the `dot`
//! op runs ([`gemm`]).
//!
//! A convolution computed tiled gets the input copy ([`input_kernel`], a
//! loop kernel of stores) when its input has no buffer of the result's
//! type, the same filter kernel, and a tiled convolution kernel
//! ([`tiled`], `convlib.rs`) whose description is built here.
//!
//! Every kernel here writes each element of its buffer once, at an affine
//! row-major offset, and reads its operands at affine indices: a window
//! position on padding or a base-dilation hole is a guarded load (clamped
//! into its buffer) selected away for a zero, so the IR verifier's rules
//! for loop kernels cover them unchanged.

use oxla_ir::{
    Computation, ConvolutionDimensionNumbers, ElementType, InstId, OpKind, Result, Window,
    shape::row_major_strides,
};

use super::bug;
use super::ops::{linear, window_index, with_ctx};
use crate::convlib::{ConvDim, ConvKernel};
use crate::entity::{BufferId, IdVec, LoopVar, NodeId};
use crate::fusion::conv::{ConvGemm, gemm_geometry};
use crate::fusion::{DotInput, DotSizes, Plan};
use crate::graph::{Graph, Node};
use crate::ix::{Extents, Ix};
use crate::kernel::{DotKernel, KernelDesc, LoopKernel, Work};

/// The convolution's attributes and its GEMM sizes.
struct Conv<'a> {
    window: &'a Window,
    dims: &'a ConvolutionDimensionNumbers,
    fgc: i64,
    bgc: i64,
    lhs: InstId,
    rhs: InstId,
    lhs_dims: Vec<i64>,
    rhs_dims: Vec<i64>,
    out_dims: Vec<i64>,
    geo: ConvGemm,
}

impl<'a> Conv<'a> {
    fn of(comp: &'a Computation, inst: InstId) -> Result<Conv<'a>> {
        let body = comp.entry();
        let i = body.inst(inst);
        let OpKind::Convolution {
            window,
            dims,
            feature_group_count,
            batch_group_count,
            ..
        } = &i.kind
        else {
            return Err(bug("a convolution GEMM step on a non-convolution"));
        };
        let geo = gemm_geometry(body, inst)
            .ok_or_else(|| bug("a convolution GEMM step on a convolution fusion kept direct"))?;
        let (lhs, rhs) = (i.operands[0], i.operands[1]);
        Ok(Conv {
            window,
            dims,
            fgc: (*feature_group_count).max(1),
            bgc: (*batch_group_count).max(1),
            lhs,
            rhs,
            lhs_dims: body.inst(lhs).shape.dims().to_vec(),
            rhs_dims: body.inst(rhs).shape.dims().to_vec(),
            out_dims: i.shape.dims().to_vec(),
            geo,
        })
    }

    /// The kernel's input features per group (`K / window positions`).
    fn group_inputs(&self) -> i64 {
        self.rhs_dims[self.dims.kernel_input_feature_dimension as usize]
    }
}

/// Loop variables of a copy kernel, outermost first.
struct Loops {
    extents: Extents,
}

impl Loops {
    /// A loop of `n` (its index; 0 for `n == 1`).
    fn var(&mut self, n: i64) -> Ix {
        if n == 1 {
            return Ix::constant(0);
        }
        Ix::var(self.extents.push(n))
    }

    /// A store kernel over these loops, split across threads at the
    /// outermost.
    fn store(
        self,
        graph: Graph,
        root: NodeId,
        out: BufferId,
        offset: Ix,
        ty: ElementType,
    ) -> LoopKernel {
        let order: Vec<LoopVar> = self.extents.keys().collect();
        let split = (!order.is_empty()).then_some(0);
        LoopKernel::single(
            graph,
            order,
            split,
            Work::Store {
                root,
                out,
                out_offset: offset,
            },
            ty,
        )
    }
}

/// `x` (of type `from`) converted to `to`.
fn convert(g: &mut Graph, x: NodeId, from: ElementType, to: ElementType) -> NodeId {
    if from == to {
        x
    } else {
        g.add(Node::Convert { from, to, x })
    }
}

/// The patches kernel: `P[g, m, (window position, feature)]`, the input
/// at that position or zero (see `fusion/conv.rs`).
pub(super) fn patches_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<LoopKernel> {
    let c = Conv::of(comp, inst)?;
    let ty = c.geo.ty;
    let d = |x: i64| x as usize;
    let o_feat = d(c.dims.output_feature_dimension);
    let mut loops = Loops {
        extents: IdVec::new(),
    };
    let mut sizes = vec![c.geo.groups];
    let g = loops.var(c.geo.groups);
    let mut index = vec![g.clone()];
    let mut outs = vec![Ix::constant(0); c.out_dims.len()];
    for (od, &n) in c.out_dims.iter().enumerate() {
        if od != o_feat {
            outs[od] = loops.var(n);
            sizes.push(n);
            index.push(outs[od].clone());
        }
    }
    let ks: Vec<Ix> = c
        .window
        .dimensions
        .iter()
        .map(|w| {
            sizes.push(w.size);
            let k = loops.var(w.size);
            index.push(k.clone());
            k
        })
        .collect();
    let igs = c.group_inputs();
    let ci = loops.var(igs);
    sizes.push(igs);
    index.push(ci.clone());
    let offset = linear(&index, &row_major_strides(&sizes));
    let lty = comp.entry().inst(c.lhs).shape.element_type();
    with_ctx(comp, plan, |ctx| {
        let mut graph = Graph::new(loops.extents.clone());
        let ext = graph.extents.clone();
        let mut li = vec![Ix::constant(0); c.lhs_dims.len()];
        let batch = d(c.dims.input_batch_dimension);
        let bgs = c.lhs_dims[batch] / c.bgc;
        let group_batch = if c.bgc > 1 {
            g.scale(bgs)
        } else {
            Ix::constant(0)
        };
        let group_feature = if c.fgc > 1 {
            g.scale(igs)
        } else {
            Ix::constant(0)
        };
        li[batch] = outs[d(c.dims.output_batch_dimension)].add(&group_batch);
        li[d(c.dims.input_feature_dimension)] = group_feature.add(&ci);
        let mut conds = Vec::new();
        let mut never = false;
        for (s, w) in c.window.dimensions.iter().enumerate() {
            let lsd = d(c.dims.input_spatial_dimensions[s]);
            let osd = d(c.dims.output_spatial_dimensions[s]);
            match window_index(&outs[osd], &ks[s], w, c.lhs_dims[lsd], &ext) {
                Some((ix, cs)) => {
                    li[lsd] = ix;
                    conds.extend(cs);
                }
                None => never = true,
            }
        }
        let zero = graph.add(Node::Const { ty, bits: 0 });
        let root = if never {
            zero
        } else if conds.is_empty() {
            let v = graph.value(ctx, c.lhs, li)?;
            convert(&mut graph, v, lty, ty)
        } else {
            let v = graph.guarded_value(ctx, c.lhs, li)?;
            let v = convert(&mut graph, v, lty, ty);
            let p = graph.add(Node::InBounds { conds });
            graph.add(Node::Select {
                ty,
                p,
                a: v,
                b: zero,
            })
        };
        Ok(loops.store(graph, root, out, offset, ty))
    })
}

/// The filter kernel: `F[g, (window position, feature), z]`, the kernel's
/// entry for output feature `g * N + z`, reversed where the window says.
pub(super) fn filter_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<LoopKernel> {
    let c = Conv::of(comp, inst)?;
    let ty = c.geo.ty;
    let d = |x: i64| x as usize;
    let mut loops = Loops {
        extents: IdVec::new(),
    };
    let g = loops.var(c.geo.groups);
    let mut sizes = vec![c.geo.groups];
    let mut index = vec![g.clone()];
    let mut ri = vec![Ix::constant(0); c.rhs_dims.len()];
    for (s, w) in c.window.dimensions.iter().enumerate() {
        let k = loops.var(w.size);
        sizes.push(w.size);
        index.push(k.clone());
        ri[d(c.dims.kernel_spatial_dimensions[s])] = if w.window_reversal {
            k.scale(-1).add_constant(w.size - 1)
        } else {
            k
        };
    }
    let igs = c.group_inputs();
    let ci = loops.var(igs);
    let z = loops.var(c.geo.n);
    sizes.extend([igs, c.geo.n]);
    index.extend([ci.clone(), z.clone()]);
    ri[d(c.dims.kernel_input_feature_dimension)] = ci;
    ri[d(c.dims.kernel_output_feature_dimension)] = g.scale(c.geo.n).add(&z);
    let offset = linear(&index, &row_major_strides(&sizes));
    let rty = comp.entry().inst(c.rhs).shape.element_type();
    with_ctx(comp, plan, |ctx| {
        let mut graph = Graph::new(loops.extents.clone());
        let v = graph.value(ctx, c.rhs, ri)?;
        let root = convert(&mut graph, v, rty, ty);
        Ok(loops.store(graph, root, out, offset, ty))
    })
}

/// The unpacking kernel: the output, each element read from the product
/// `[G, M, N]` at its group, position and feature.
pub(super) fn unpack_kernel(
    comp: &Computation,
    out: BufferId,
    inst: InstId,
    product: BufferId,
) -> Result<LoopKernel> {
    let c = Conv::of(comp, inst)?;
    let ty = c.geo.ty;
    let o_feat = c.dims.output_feature_dimension as usize;
    let mut loops = Loops {
        extents: IdVec::new(),
    };
    let mut outs = vec![Ix::constant(0); c.out_dims.len()];
    let mut g = Ix::constant(0);
    let mut z = Ix::constant(0);
    let mut m_index = Vec::new();
    let mut m_sizes = Vec::new();
    for (od, &n) in c.out_dims.iter().enumerate() {
        if od == o_feat {
            g = loops.var(c.geo.groups);
            z = loops.var(c.geo.n);
            outs[od] = g.scale(c.geo.n).add(&z);
        } else {
            outs[od] = loops.var(n);
            m_index.push(outs[od].clone());
            m_sizes.push(n);
        }
    }
    let m = linear(&m_index, &row_major_strides(&m_sizes));
    let (gm, n) = (c.geo.m, c.geo.n);
    let at = g.scale(gm * n).add(&m.scale(n)).add(&z);
    let offset = linear(&outs, &row_major_strides(&c.out_dims));
    let mut graph = Graph::new(loops.extents.clone());
    let root = graph.add(Node::Load {
        buf: product,
        ty,
        offset: at,
        numel: c.geo.groups * gm * n,
        clamp: false,
    });
    Ok(loops.store(graph, root, out, offset, ty))
}

/// The product kernel: `out[g] = patches[g] x filter[g]` through the dot
/// kernel (the one place the convolution calls the GEMM).
pub(super) fn gemm(
    comp: &Computation,
    inst: InstId,
    patches: BufferId,
    filter: BufferId,
    out: BufferId,
) -> Result<KernelDesc> {
    let geo = Conv::of(comp, inst)?.geo;
    let ConvGemm {
        ty,
        groups,
        m,
        k,
        n,
        ..
    } = geo;
    Ok(KernelDesc::Dot(DotKernel {
        ty,
        lhs: DotInput {
            buf: patches,
            strides: [m * k, k, 1],
        },
        rhs: DotInput {
            buf: filter,
            strides: [k * n, n, 1],
        },
        out,
        sizes: DotSizes {
            batch: groups,
            m,
            k,
            n,
        },
    }))
}

/// The input copy of a tiled convolution: the input (fused producers
/// evaluated, converted to the result's type) stored row-major.
pub(super) fn input_kernel(
    comp: &Computation,
    plan: &Plan,
    out: BufferId,
    inst: InstId,
) -> Result<LoopKernel> {
    let c = Conv::of(comp, inst)?;
    let ty = c.geo.ty;
    let mut loops = Loops {
        extents: IdVec::new(),
    };
    let index: Vec<Ix> = c.lhs_dims.iter().map(|&n| loops.var(n)).collect();
    let offset = linear(&index, &row_major_strides(&c.lhs_dims));
    let lty = comp.entry().inst(c.lhs).shape.element_type();
    with_ctx(comp, plan, |ctx| {
        let mut graph = Graph::new(loops.extents.clone());
        let v = graph.value(ctx, c.lhs, index)?;
        let root = convert(&mut graph, v, lty, ty);
        Ok(loops.store(graph, root, out, offset, ty))
    })
}

/// The tiled convolution kernel of `inst`: the output from `input` (the
/// input's shape, row-major, the result's type) and `filter` (`[1, K,
/// N]`), one [`ConvDim`] per non-feature output dimension in the output's
/// order.
pub(super) fn tiled(
    comp: &Computation,
    plan: &Plan,
    inst: InstId,
    input: BufferId,
    filter: BufferId,
    out: BufferId,
) -> Result<KernelDesc> {
    let c = Conv::of(comp, inst)?;
    let strides = row_major_strides(&c.lhs_dims);
    let d = |x: i64| x as usize;
    let o_feat = d(c.dims.output_feature_dimension);
    let mut dims = Vec::new();
    for (od, &n) in c.out_dims.iter().enumerate() {
        if od == o_feat {
            continue;
        }
        if od == d(c.dims.output_batch_dimension) {
            let ib = d(c.dims.input_batch_dimension);
            dims.push(ConvDim {
                out: n,
                input: c.lhs_dims[ib],
                in_stride: strides[ib],
                stride: 1,
                pad_low: 0,
                lhs_dilation: 1,
                rhs_dilation: 1,
                window: 1,
                tap_stride: 1,
            });
            continue;
        }
        let s = c
            .dims
            .output_spatial_dimensions
            .iter()
            .position(|&x| d(x) == od)
            .ok_or_else(|| {
                bug("a convolution output dimension that is neither batch, feature nor spatial")
            })?;
        let w = &c.window.dimensions[s];
        let li = d(c.dims.input_spatial_dimensions[s]);
        dims.push(ConvDim {
            out: n,
            input: c.lhs_dims[li],
            in_stride: strides[li],
            stride: w.stride,
            pad_low: w.padding_low,
            lhs_dilation: w.base_dilation,
            rhs_dilation: w.window_dilation,
            window: w.size,
            tap_stride: c.window.dimensions[s + 1..]
                .iter()
                .map(|w| w.size)
                .product(),
        });
    }
    let taps: i64 = c.window.dimensions.iter().map(|w| w.size).product();
    let len = |b: BufferId| {
        plan.buffers
            .get(b)
            .map(|x| x.shape.element_count())
            .ok_or_else(|| bug("a tiled convolution on an unknown buffer"))
    };
    Ok(KernelDesc::Conv(ConvKernel {
        input,
        filter,
        out,
        features: c.group_inputs(),
        n: c.geo.n,
        taps,
        dims,
        lens: [len(input)?, len(filter)?, len(out)?],
    }))
}
