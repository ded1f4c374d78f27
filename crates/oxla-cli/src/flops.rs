//! Floating-point work of a module, for `oxla bench`'s GFLOP/s.
//!
//! Only the ops whose arithmetic dominates a run are counted, each by the
//! convention XLA's cost analysis and the GEMM literature use: a multiply
//! and an add per term of a contraction. Elementwise ops, reductions and
//! data movement count nothing here (`bench` reports them as bandwidth), so
//! a module without a counted op gets no GFLOP/s line at all.
//!
//! [`op_flops`] matches every op: a new op (convolution) is a compile error
//! until it says what it counts, and counting it is one function beside
//! [`dot_flops`].

use oxla::internals::ir::{Body, Instruction, OpKind, RaggedDotMode};
use oxla::{Computation, DotDimensionNumbers, Shape};

/// FLOPs of one run of `comp`: the sum over the counted ops of its entry
/// body (the other bodies are reducers, applied to scalars). `None` when
/// the entry has no counted op.
pub fn flop_count(comp: &Computation) -> Option<u128> {
    let entry = comp.entry();
    entry
        .instructions
        .iter()
        .filter_map(|inst| op_flops(entry, inst))
        .reduce(u128::saturating_add)
}

/// What one instruction counts; `None` for ops that are not counted.
fn op_flops(body: &Body, inst: &Instruction) -> Option<u128> {
    let operand = |k: usize| inst.operands.get(k).map(|&id| &body.inst(id).shape);
    match &inst.kind {
        OpKind::DotGeneral { dims } => Some(dot_flops(operand(0)?, dims, &inst.shape)),
        // Each row (or contracted element) is in at most one group: the
        // work of one dense dot, without the group dimension of a ragged
        // contraction's result.
        OpKind::RaggedDot { dims } => {
            let ragged = dims.ragged_dimension()?;
            let out = match dims.mode(ragged) {
                RaggedDotMode::Contracting => Shape::new(
                    inst.shape.element_type(),
                    inst.shape.dims().get(1..).unwrap_or(&[]),
                ),
                RaggedDotMode::NonContracting | RaggedDotMode::Batch => inst.shape.clone(),
            };
            Some(dot_flops(operand(0)?, &dims.dot, &out))
        }
        OpKind::Convolution { dims, .. } => Some(convolution_flops(
            operand(1)?,
            dims.kernel_output_feature_dimension,
            &inst.shape,
        )),
        // LAPACK's conventions: n^3/3 per Cholesky factor, k^2 per column
        // (or row) of the right-hand side of a triangular solve with k x k.
        OpKind::Cholesky { .. } => {
            let n = inst.shape.dims().last().map_or(0, |&n| n.max(0) as u128);
            let matrices = inst.shape.element_count().max(0) as u128 / (n * n).max(1);
            Some(matrices * n * n * n / 3)
        }
        OpKind::TriangularSolve { .. } => {
            let k = operand(0)?.dims().last().map_or(0, |&n| n.max(0) as u128);
            Some(inst.shape.element_count().max(0) as u128 * k)
        }
        OpKind::Parameter { .. }
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
        | OpKind::Tuple
        | OpKind::GetTupleElement { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Map { .. }
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
        // Comparisons, not arithmetic.
        | OpKind::Sort { .. }
        | OpKind::TopK { .. }
        | OpKind::BitcastConvert
        | OpKind::Bitcast
        | OpKind::ReducePrecision { .. }
        | OpKind::Rng { .. }
        | OpKind::RngBitGenerator { .. }
        | OpKind::BatchNormTraining { .. }
        | OpKind::BatchNormInference { .. }
        | OpKind::BatchNormGrad { .. }
        | OpKind::CustomCall(_)
        | OpKind::AfterAll
        | OpKind::AddDependency
        | OpKind::StochasticConvert
        | OpKind::RngGetAndUpdateState { .. } => None,
        // The work of a loop's or a branch's body depends on values known
        // only at run time (the trip count, the branch taken).
        OpKind::While { .. } | OpKind::Conditional { .. } => None,
    }
}

/// `2·M·N·K` for a dot, batch included: every element of the result (batch
/// × M × N of them) is a sum of K products, K being the product of the
/// contracted dimensions of the left operand.
fn dot_flops(lhs: &Shape, dims: &DotDimensionNumbers, result: &Shape) -> u128 {
    let k: u128 = dims
        .lhs_contracting
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .and_then(|d| lhs.dims().get(d))
                .map_or(0, |&n| n.max(0) as u128)
        })
        .product();
    2 * result.element_count().max(0) as u128 * k
}

/// `2·out·K` for a convolution, K the terms of each output element's sum:
/// the kernel's input features (of one group) times its window, that is
/// the kernel's elements over its output features. Positions on padding
/// count too, as in the GEMM convention.
fn convolution_flops(kernel: &Shape, output_feature_dimension: i64, result: &Shape) -> u128 {
    let elements = kernel.element_count().max(0) as u128;
    let features = usize::try_from(output_feature_dimension)
        .ok()
        .and_then(|d| kernel.dims().get(d))
        .map_or(1, |&n| n.max(1) as u128);
    2 * result.element_count().max(0) as u128 * (elements / features)
}

/// `120 FLOP`, `34.6 MFLOP`, `2.15 GFLOP`: three significant digits.
pub fn human_flops(n: u128) -> String {
    const PREFIXES: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    let mut v = n as f64;
    let mut p = 0;
    // 999.5 and above would round up to 1000 of this prefix.
    while v >= 999.5 && p + 1 < PREFIXES.len() {
        v /= 1000.0;
        p += 1;
    }
    let digits = match v {
        _ if p == 0 => 0,
        _ if v < 10.0 => 2,
        _ if v < 100.0 => 1,
        _ => 0,
    };
    format!("{v:.digits$} {}FLOP", PREFIXES[p])
}

#[cfg(test)]
mod tests {
    use super::{flop_count, human_flops};

    #[test]
    fn flop_counts_read_well() {
        assert_eq!(human_flops(120), "120 FLOP");
        assert_eq!(human_flops(34_567_000), "34.6 MFLOP");
        assert_eq!(human_flops(2 * 1024 * 1024 * 1024), "2.15 GFLOP");
        assert_eq!(human_flops(999_999), "1.00 MFLOP");
    }

    fn count(entry: &str) -> Option<u128> {
        let text = format!("HloModule m\n\nENTRY m {{\n{entry}\n}}\n");
        flop_count(&oxla::hlo::parse(&text).unwrap())
    }

    #[test]
    fn a_matrix_product_counts_two_m_n_k() {
        assert_eq!(
            count(
                "x = f32[5,3] parameter(0)\n w = f32[3,4] parameter(1)\n \
                 ROOT y = f32[5,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}"
            ),
            Some(2 * 5 * 4 * 3)
        );
    }

    #[test]
    fn batch_and_every_dot_count() {
        assert_eq!(
            count(
                "x = f32[6,5,3] parameter(0)\n w = f32[6,3,4] parameter(1)\n \
                 a = f32[6,5,4] dot(x, w), lhs_batch_dims={0}, rhs_batch_dims={0}, \
                 lhs_contracting_dims={2}, rhs_contracting_dims={1}\n \
                 v = f32[3] parameter(2)\n \
                 b = f32[6,5] dot(x, v), lhs_contracting_dims={2}, rhs_contracting_dims={0}\n \
                 ROOT t = (f32[6,5,4], f32[6,5]) tuple(a, b)"
            ),
            Some(2 * 6 * 5 * 4 * 3 + 2 * 6 * 5 * 3)
        );
    }

    #[test]
    fn elementwise_work_is_not_counted() {
        assert_eq!(
            count("x = f32[5,3] parameter(0)\n ROOT y = f32[5,3] multiply(x, x)"),
            None
        );
    }
}
