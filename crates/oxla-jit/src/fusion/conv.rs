//! Convolution as a GEMM (*im2col*): which convolutions take that path
//! ([`gemm_geometry`]) and the steps that compute them.
//!
//! A convolution with `G = feature_group_count * batch_group_count` groups
//! is, per group `g`, the product of two matrices:
//!
//! - the *patches* `P[g]`, `M x K`: one row per output position `m` (the
//!   output's dimensions other than its feature dimension, in the
//!   output's order), one column per window position and input feature of
//!   the group, `k = (window position, row-major; feature)`; the element
//!   is the input's at that position, or zero where the window lies on
//!   padding or a hole of base dilation;
//! - the *filter* `F[g]`, `K x N`: the kernel's entries for the group's
//!   `N = output features / G` output features, read backwards along the
//!   reversed window dimensions.
//!
//! `P` and `F` are two temporaries written by two loop steps
//! ([`OpStep::ConvPatches`], [`OpStep::ConvFilter`]), both in the result's
//! element type (operands are converted first, as the interpreter does),
//! both exactly row-major `[G, M, K]` and `[G, K, N]`, so the product is
//! a canonical dot ([`OpStep::ConvGemm`]: the float GEMM, or the blocked
//! integer dot). Its `[G, M, N]` result *is* the output's layout when
//! there is one group and the feature dimension is the output's last
//! (NHWC, and JAX's weight gradients `01bf`): the GEMM then writes the
//! output directly. Otherwise it writes a third temporary that a last
//! loop step permutes into the output ([`OpStep::ConvUnpack`]).
//!
//! A 1x1 convolution with unit strides, no padding and one group over an
//! input that has a buffer, in the result's type, with its features last
//! and its other dimensions in the output's order (NHWC in, NHWC out) has
//! the input itself as its patches: the GEMM reads that buffer and the
//! patches step is left out ([`input_as_patches`]).
//!
//! An `f32` convolution with base dilation (JAX's input gradients of
//! strided convolutions), one group, its input's features innermost and
//! its output's features last (NHWC in and out) runs *tiled* instead,
//! where the machine has AVX2 and FMA ([`tiled`]): no patches, the output computed from the
//! input where it lies, a tile of rows and output features at a time
//! (`convlib.rs`). Its steps: the input in the result's type when it has
//! no such buffer ([`OpStep::ConvInput`], its fused producers evaluated
//! once per element instead of once per tap), the filter `[1, K, N]`
//! ([`OpStep::ConvFilter`]), and the kernel ([`OpStep::ConvTiled`]).
//!
//! Exactness: integer products wrap, so any summation order gives the
//! interpreter's result; `pred` convolutions never take this path (their
//! "sum" is `or`). A float GEMM sums in its own order, within the float
//! dot bound of `docs/jit.md` (`2 K eps sum |l r|` per element). A zero
//! stands for padding where the interpreter skips the position: the same
//! for finite kernels, but an infinite or NaN kernel entry that meets
//! padding gives NaN (as in XLA), where the interpreter skips it.

use oxla_ir::{Body, ElementType, InstId, OpKind, Shape};

use super::ops::OpStep;
use super::{BufferKind, Plan, Step, StepKind};
use crate::entity::BufferId;

/// Per-group products below this many multiply-adds per output element
/// (`K`) stay direct: the copy into patches costs about as much as the
/// product itself.
const MIN_K: i64 = 4;
/// Fewer output features per group than this (depthwise convolutions:
/// one) stay direct: a GEMM with a handful of columns runs at a fraction
/// of its speed, while the direct kernel vectorises along the features.
const MIN_N: i64 = 4;
/// The patches temporary is at most this many bytes (beyond, the direct
/// kernel, which needs no temporary).
const MAX_PATCH_BYTES: i64 = 1 << 30;

/// The sizes of a convolution computed as a GEMM (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConvGemm {
    /// The result's element type (the product's).
    pub(crate) ty: ElementType,
    /// `G`: feature groups times batch groups (one of them is 1).
    pub(crate) groups: i64,
    /// `M`: output positions per group.
    pub(crate) m: i64,
    /// `K`: window positions times the kernel's input features.
    pub(crate) k: i64,
    /// `N`: output features per group.
    pub(crate) n: i64,
    /// Whether `[G, M, N]` row-major is the output's own layout.
    pub(crate) writes_output: bool,
}

impl ConvGemm {
    /// The patches' shape, `[G, M, K]`.
    pub(crate) fn patches_shape(&self) -> Shape {
        Shape::new(self.ty, &[self.groups, self.m, self.k])
    }

    /// The filter's shape, `[G, K, N]`.
    pub(crate) fn filter_shape(&self) -> Shape {
        Shape::new(self.ty, &[self.groups, self.k, self.n])
    }

    /// The product's shape, `[G, M, N]`.
    pub(crate) fn product_shape(&self) -> Shape {
        Shape::new(self.ty, &[self.groups, self.m, self.n])
    }
}

/// The GEMM sizes of convolution `inst` when it takes the GEMM path:
/// a non-`pred` result, at least [`MIN_K`] terms per output element and
/// [`MIN_N`] output features per group, no empty dimension, and patches
/// of at most [`MAX_PATCH_BYTES`]; `None` (the direct kernel) otherwise.
pub(crate) fn gemm_geometry(body: &Body, inst: InstId) -> Option<ConvGemm> {
    let i = body.inst(inst);
    let OpKind::Convolution {
        window,
        dims,
        feature_group_count,
        batch_group_count,
        ..
    } = &i.kind
    else {
        return None;
    };
    let ty = i.shape.element_type();
    // The narrow floats and sub-byte integers compute through rounding
    // (wrapping) after every op, which only the direct loop does.
    if ty.is_pred()
        || crate::codegen::computes_narrow(ty)
        || !(ty.is_integer() || ty == ElementType::F32 || ty == ElementType::F64)
    {
        return None;
    }
    let rhs = body.inst(*i.operands.get(1)?).shape.dims().to_vec();
    let out = i.shape.dims().to_vec();
    // Shape inference never gives both kinds of groups at once.
    if *feature_group_count > 1 && *batch_group_count > 1 {
        return None;
    }
    let groups = feature_group_count.max(&1) * batch_group_count.max(&1);
    let o_feat = usize::try_from(dims.output_feature_dimension).ok()?;
    let features = *out.get(o_feat)?;
    let ci = *rhs.get(usize::try_from(dims.kernel_input_feature_dimension).ok()?)?;
    let positions = window
        .dimensions
        .iter()
        .try_fold(1i64, |acc, w| acc.checked_mul(w.size))?;
    let k = positions.checked_mul(ci)?;
    let m: i64 = out
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != o_feat)
        .map(|(_, &n)| n)
        .product();
    let n = features / groups;
    if features % groups != 0 || k < MIN_K || n < MIN_N || m == 0 {
        return None;
    }
    let bytes = groups
        .checked_mul(m)?
        .checked_mul(k)?
        .checked_mul(ty.byte_size() as i64)?;
    if bytes > MAX_PATCH_BYTES {
        return None;
    }
    Some(ConvGemm {
        ty,
        groups,
        m,
        k,
        n,
        writes_output: groups == 1 && o_feat + 1 == out.len(),
    })
}

/// The most window positions a tiled convolution takes (the run-time
/// routine keeps a pointer per position and row of a tile); JAX's weight
/// gradients (windows as large as the image) stay on the GEMM path.
const MAX_TILED_TAPS: i64 = 1024;

/// Whether convolution `inst` (GEMM sizes `geo`) runs tiled (see the
/// module docs); `own_input` is whether its input has a buffer.
///
/// Only convolutions with base dilation do, by measurement (2 cores, a
/// loaded machine, `docs/performance.md`): there the tiles skip the holes
/// the GEMM multiplies (the input gradient `grad_input`: 2x faster on one
/// thread, 1.4x on two). Without it the tiles lost: the peers' CNN's `K =
/// 144` convolution ran about 15% faster tiled on one thread but 1.6x
/// slower on two, and `resnet3x3` (`K = 576`, the packed filter past L1)
/// 1.1-1.5x slower.
pub(crate) fn tiled(body: &Body, inst: InstId, geo: &ConvGemm, own_input: bool) -> bool {
    let i = body.inst(inst);
    let OpKind::Convolution { window, dims, .. } = &i.kind else {
        return false;
    };
    let lhs = &body.inst(i.operands[0]).shape;
    let taps: i64 = window.dimensions.iter().map(|w| w.size).product();
    geo.ty == ElementType::F32
        && geo.groups == 1
        && geo.writes_output
        && dims.input_feature_dimension + 1 == lhs.rank() as i64
        && taps <= MAX_TILED_TAPS
        && window.dimensions.iter().any(|w| w.base_dilation > 1)
        && !(own_input && input_as_patches(body, inst, geo))
        && crate::convlib::available()
}

/// Whether the input of convolution `inst` (sizes `geo`) is its own
/// patches matrix, row-major `[M, K]` (see the module docs).
fn input_as_patches(body: &Body, inst: InstId, geo: &ConvGemm) -> bool {
    let i = body.inst(inst);
    let OpKind::Convolution { window, dims, .. } = &i.kind else {
        return false;
    };
    let lhs = &body.inst(i.operands[0]).shape;
    let unit = window.dimensions.iter().all(|w| {
        w.size == 1
            && w.stride == 1
            && w.padding_low == 0
            && w.padding_high == 0
            && w.base_dilation == 1
    });
    let rank = i.shape.rank() as i64;
    let o_feat = dims.output_feature_dimension;
    // The input dimension behind each non-feature output dimension, in
    // the output's order: they must be 0, 1, ... with the features last.
    let behind: Vec<i64> = (0..rank)
        .filter(|&d| d != o_feat)
        .map(|d| {
            if d == dims.output_batch_dimension {
                dims.input_batch_dimension
            } else {
                dims.output_spatial_dimensions
                    .iter()
                    .position(|&s| s == d)
                    .map_or(-1, |s| dims.input_spatial_dimensions[s])
            }
        })
        .collect();
    geo.groups == 1
        && unit
        && lhs.element_type() == geo.ty
        && dims.input_feature_dimension == rank - 1
        && behind.iter().enumerate().all(|(k, &d)| d == k as i64)
}

impl Plan {
    /// Pushes the steps of convolution `inst` computed as a GEMM with
    /// sizes `geo` into `out` (see the module docs).
    pub(super) fn push_conv_gemm_steps(
        &mut self,
        body: &Body,
        inst: InstId,
        out: BufferId,
        geo: &ConvGemm,
    ) {
        let i = body.inst(inst);
        let step = |kind: OpStep, out: BufferId, fused: Vec<InstId>| Step {
            kind: StepKind::Op(kind),
            out,
            fused,
        };
        let own = self.materialised.get(&i.operands[0]).copied();
        if tiled(body, inst, geo, own.is_some()) {
            self.push_conv_tiled_steps(body, inst, out, geo, own);
            return;
        }
        let patches = match own {
            Some(buf) if input_as_patches(body, inst, geo) => buf,
            Some(_) | None => {
                let patches = self.push(
                    BufferKind::Temp,
                    &geo.patches_shape(),
                    &format!("{}.patches", i.name),
                );
                let fused = self.fused_under(body, &i.operands[..1]);
                self.steps
                    .push(step(OpStep::ConvPatches { inst }, patches, fused));
                patches
            }
        };
        let filter = self.push(
            BufferKind::Temp,
            &geo.filter_shape(),
            &format!("{}.filter", i.name),
        );
        let fused = self.fused_under(body, &i.operands[1..]);
        self.steps
            .push(step(OpStep::ConvFilter { inst }, filter, fused));
        let gemm = |direct: bool| OpStep::ConvGemm {
            inst,
            patches,
            filter,
            direct,
        };
        if geo.writes_output {
            self.steps.push(step(gemm(true), out, vec![]));
            return;
        }
        let product = self.push(
            BufferKind::Temp,
            &geo.product_shape(),
            &format!("{}.product", i.name),
        );
        self.steps.push(step(gemm(false), product, vec![]));
        self.steps
            .push(step(OpStep::ConvUnpack { inst, product }, out, vec![]));
    }

    /// Pushes the steps of convolution `inst` computed tiled (sizes
    /// `geo`, input buffer `own` if it has one) into `out`.
    fn push_conv_tiled_steps(
        &mut self,
        body: &Body,
        inst: InstId,
        out: BufferId,
        geo: &ConvGemm,
        own: Option<BufferId>,
    ) {
        let i = body.inst(inst);
        let step = |kind: OpStep, out: BufferId, fused: Vec<InstId>| Step {
            kind: StepKind::Op(kind),
            out,
            fused,
        };
        let lhs = &body.inst(i.operands[0]).shape;
        let input = match own {
            Some(buf) if lhs.element_type() == geo.ty => buf,
            Some(_) | None => {
                let input = self.push(
                    BufferKind::Temp,
                    &Shape::new(geo.ty, lhs.dims()),
                    &format!("{}.input", i.name),
                );
                let fused = self.fused_under(body, &i.operands[..1]);
                self.steps
                    .push(step(OpStep::ConvInput { inst }, input, fused));
                input
            }
        };
        let filter = self.push(
            BufferKind::Temp,
            &geo.filter_shape(),
            &format!("{}.filter", i.name),
        );
        let fused = self.fused_under(body, &i.operands[1..]);
        self.steps
            .push(step(OpStep::ConvFilter { inst }, filter, fused));
        self.steps.push(step(
            OpStep::ConvTiled {
                inst,
                input,
                filter,
            },
            out,
            vec![],
        ));
    }
}
