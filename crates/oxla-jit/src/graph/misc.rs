//! Expression nodes for the misc family's elementwise ops that are not
//! single nodes: a same-width `bitcast-convert` is a [`Node::Bitcast`], and
//! `reduce-precision` is integer arithmetic on the bits between two of
//! them, exactly the interpreter's algorithm (`oxla-interp`'s `misc.rs`),
//! so the JIT's result is bit-exact.

use oxla_ir::{BinaryOp, ComparisonDirection, ComparisonOrder, ElementType, Result};

use super::{Graph, Node, NodeId, Scope, bug};

impl Graph {
    /// `x`'s bits (of type `from`) as `to`; `x` itself when the types agree.
    pub(super) fn bitcast(
        &mut self,
        scope: Scope,
        from: ElementType,
        to: ElementType,
        x: NodeId,
    ) -> Result<NodeId> {
        if from == to {
            return Ok(x);
        }
        if from.bit_width() != to.bit_width() || from.is_pred() || to.is_pred() {
            return Err(bug(format!(
                "bitcast-convert from {from} to {to} changes the width; the JIT refuses it before"
            )));
        }
        Ok(self.put(scope, Node::Bitcast { from, to, x }))
    }

    /// `reduce-precision(x)` of the float type `ty` to `exponent_bits` and
    /// `mantissa_bits`: round the mantissa to nearest even by adding
    /// `0111..1` plus the last kept bit and masking, send exponents past the
    /// narrower range to infinity and those at or below its smallest normal
    /// to zero, and keep a NaN as it is.
    pub(super) fn reduce_precision(
        &mut self,
        s: Scope,
        ty: ElementType,
        exponent_bits: i64,
        mantissa_bits: i64,
        x: NodeId,
    ) -> Result<NodeId> {
        let (bits_ty, total, src_man) = match ty {
            ElementType::F32 => (ElementType::U32, 32u32, 23u32),
            ElementType::F64 => (ElementType::U64, 64, 52),
            ElementType::Pred
            | ElementType::S8
            | ElementType::S16
            | ElementType::S32
            | ElementType::S64
            | ElementType::U8
            | ElementType::U16
            | ElementType::U32
            | ElementType::U64
            | ElementType::Tuple
            | ElementType::Token
            // Refused before compiling (unsupported.rs).
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
            | ElementType::C128 => {
                return Err(bug(format!("reduce-precision of {ty}")));
            }
        };
        let src_exp = total - src_man - 1;
        let c = |g: &mut Graph, bits: u64| g.put(s, Node::Const { ty: bits_ty, bits });
        let bin = |g: &mut Graph, op: BinaryOp, a: NodeId, b: NodeId| {
            g.put(
                s,
                Node::Binary {
                    op,
                    ty: bits_ty,
                    a,
                    b,
                },
            )
        };
        let mut v = self.bitcast(s, ty, bits_ty, x)?;
        if mantissa_bits < i64::from(src_man) {
            let cut = src_man - mantissa_bits as u32;
            let last_kept = 1u64 << cut;
            let mask = c(self, last_kept);
            let last = bin(self, BinaryOp::And, v, mask);
            let amount = c(self, u64::from(cut));
            let last = bin(self, BinaryOp::ShiftRightLogical, last, amount);
            let base = c(self, (last_kept >> 1) - 1);
            let bias = bin(self, BinaryOp::Add, last, base);
            let sum = bin(self, BinaryOp::Add, v, bias);
            let keep = c(self, !(last_kept - 1) & width_mask(total));
            v = bin(self, BinaryOp::And, sum, keep);
        }
        if exponent_bits < i64::from(src_exp) {
            let sign_mask = c(self, 1u64 << (total - 1));
            let exp_mask_bits = ((1u64 << src_exp) - 1) << src_man;
            let exp_mask = c(self, exp_mask_bits);
            let bias = (1u64 << (src_exp - 1)) - 1;
            let reduced_bias = (1u64 << (exponent_bits as u32 - 1)) - 1;
            let x_exp = bin(self, BinaryOp::And, v, exp_mask);
            let signed_zero = bin(self, BinaryOp::And, v, sign_mask);
            let signed_inf = bin(self, BinaryOp::Or, signed_zero, exp_mask);
            let max = c(self, (bias + reduced_bias) << src_man);
            let min = c(self, (bias - reduced_bias) << src_man);
            let over = bin(
                self,
                BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Natural),
                x_exp,
                max,
            );
            let under = bin(
                self,
                BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Natural),
                x_exp,
                min,
            );
            v = self.put(
                s,
                Node::Select {
                    ty: bits_ty,
                    p: over,
                    a: signed_inf,
                    b: v,
                },
            );
            v = self.put(
                s,
                Node::Select {
                    ty: bits_ty,
                    p: under,
                    a: signed_zero,
                    b: v,
                },
            );
        }
        let rounded = self.bitcast(s, bits_ty, ty, v)?;
        let is_nan = self.put(
            s,
            Node::Binary {
                op: BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Natural),
                ty,
                a: x,
                b: x,
            },
        );
        Ok(self.put(
            s,
            Node::Select {
                ty,
                p: is_nan,
                a: x,
                b: rounded,
            },
        ))
    }
}

/// The low `bits` bits set.
fn width_mask(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
