//! The correctly rounded fused multiply-add of `f64` arrays, built from
//! real ops only, for the `c128` products of the complex lowering.
//!
//! Why: `f64` has no wider float type, so the round-to-odd construction
//! of `fma_f32` has no `f64` analogue; HLO has no fused multiply-add op.
//! The exact value of `x·y + z` is computed instead in 64-bit integer
//! arithmetic on the significands (the method of musl's `fma`): each
//! operand's significand is normalised to 54 bits with its exponent; the
//! 106-bit product is formed from 32-bit halves as two `u64` words; `z`
//! is aligned to it with a sticky bit for what a shift drops; the two are
//! added or subtracted in 128 bits; the top 63 bits of the result (its
//! last bit sticky) are converted to `f64` by one correctly rounded
//! `s64 -> f64` conversion and scaled by powers of two, exactly. Results
//! below the normal range are rounded once at the subnormal precision
//! (pre-rounded so that the scaling is exact, or with a top bit added so
//! that the conversion rounds at the right place).
//!
//! Invariant: the result is `f64::mul_add`'s bits for every input, NaN
//! payloads aside (where `x` or `y` is zero, infinite or NaN, or the exact
//! sum is zero, the result is `x·y + z` in two steps, which is the fused
//! result there; where `z` alone is zero it is `x·y`, and where `z` alone
//! is infinite or NaN it is `z`). Every
//! branch is computed and selected per element: the arithmetic is
//! integer (wrapping, shifts of 64 or more give 0, as HLO's do) and
//! cannot trap.

use std::collections::HashMap;

use super::Lowering;
use crate::ir::{BinaryOp, ComparisonDirection, InstId, UnaryOp};
use crate::{ElementType, Literal, Result};

/// `f64` with the values of its operands' significands, exponents and
/// signs: [`Fma::normalize`]'s result.
struct Num {
    /// The significand with its leading 1, shifted left by one: 54 bits,
    /// the last 0.
    m: InstId,
    /// The exponent of `m`'s last bit (`s64`).
    e: InstId,
    /// The sign bit (`u64`, 0 or 1).
    sign: InstId,
    /// Zero, infinite or NaN.
    special: InstId,
    /// Zero.
    zero: InstId,
}

/// The builder of one fused multiply-add: the lowering, the element
/// dims, the instruction name base and the constants made so far.
struct Fma<'l, 'a> {
    l: &'l mut Lowering<'a>,
    base: String,
    dims: Vec<i64>,
    u64s: HashMap<u64, InstId>,
    s64s: HashMap<i64, InstId>,
}

impl Fma<'_, '_> {
    fn u(&mut self, v: u64) -> InstId {
        if let Some(&c) = self.u64s.get(&v) {
            return c;
        }
        let c = self.l.splat(&self.base, Literal::scalar(v), &self.dims);
        self.u64s.insert(v, c);
        c
    }

    fn s(&mut self, v: i64) -> InstId {
        if let Some(&c) = self.s64s.get(&v) {
            return c;
        }
        let c = self.l.splat(&self.base, Literal::scalar(v), &self.dims);
        self.s64s.insert(v, c);
        c
    }

    fn bin(&mut self, op: BinaryOp, a: InstId, b: InstId) -> InstId {
        self.l.binary(&self.base, op, a, b)
    }

    fn add(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::Add, a, b)
    }

    fn sub(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::Sub, a, b)
    }

    fn mul(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::Mul, a, b)
    }

    fn and(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::And, a, b)
    }

    fn or(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::Or, a, b)
    }

    fn shl(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::ShiftLeft, a, b)
    }

    fn shr(&mut self, a: InstId, b: InstId) -> InstId {
        self.bin(BinaryOp::ShiftRightLogical, a, b)
    }

    fn cmp(&mut self, dir: ComparisonDirection, a: InstId, b: InstId) -> InstId {
        self.l.cmp(&self.base, dir, a, b)
    }

    fn sel(&mut self, p: InstId, a: InstId, b: InstId) -> InstId {
        self.l.select(&self.base, p, a, b)
    }

    fn not(&mut self, p: InstId) -> InstId {
        self.l.unary(&self.base, UnaryOp::Not, p)
    }

    /// An `s64` shift amount as `u64` (a negative one becomes at least
    /// 2^63, shifting everything out).
    fn amount(&mut self, v: InstId) -> InstId {
        self.l.bitcast(&self.base, v, ElementType::U64)
    }

    /// 1 where `v` is nonzero, else 0 (`u64`): C's `!!v`.
    fn nz(&mut self, v: InstId) -> InstId {
        let zero = self.u(0);
        let one = self.u(1);
        let p = self.cmp(ComparisonDirection::Ne, v, zero);
        self.sel(p, one, zero)
    }

    /// `v`'s significand, exponent and sign (see [`Num`]); subnormals
    /// are scaled by 2^63 first (exactly).
    fn normalize(&mut self, v: InstId) -> Result<Num> {
        use ComparisonDirection::Eq;
        let ix = self.l.bitcast(&self.base, v, ElementType::U64);
        let (c52, c63, c7ff) = (self.u(52), self.u(63), self.u(0x7ff));
        let sign = self.shr(ix, c63);
        let eb = self.shr(ix, c52);
        let eb = self.and(eb, c7ff);
        let zero = self.u(0);
        let sub = self.cmp(Eq, eb, zero);
        let scale = self
            .l
            .float(&self.base, ElementType::F64, 2f64.powi(63), &self.dims)?;
        let scaled = self.mul(v, scale);
        let ix2 = self.l.bitcast(&self.base, scaled, ElementType::U64);
        let eb2 = self.shr(ix2, c52);
        let eb2 = self.and(eb2, c7ff);
        let is_zero = self.cmp(Eq, eb2, zero);
        let is_zero = self.l.binary(&self.base, BinaryOp::And, sub, is_zero);
        let infnan = self.cmp(Eq, eb, c7ff);
        let special = self.l.binary(&self.base, BinaryOp::Or, infnan, is_zero);
        let ix = self.sel(sub, ix2, ix);
        let eb = self.l.bitcast(&self.base, eb, ElementType::S64);
        let eb2 = self.l.bitcast(&self.base, eb2, ElementType::S64);
        let c63s = self.s(63);
        let eb2 = self.sub(eb2, c63s);
        let e = self.sel(sub, eb2, eb);
        let bias = self.s(0x3ff + 52 + 1);
        let e = self.sub(e, bias);
        let frac = self.u((1u64 << 52) - 1);
        let lead = self.u(1u64 << 52);
        let one = self.u(1);
        let m = self.and(ix, frac);
        let m = self.or(m, lead);
        let m = self.shl(m, one);
        Ok(Num {
            m,
            e,
            sign,
            special,
            zero: is_zero,
        })
    }

    /// The 128-bit product of two 54-bit significands as `(hi, lo)`.
    fn mul128(&mut self, x: InstId, y: InstId) -> (InstId, InstId) {
        use ComparisonDirection::Lt;
        let (low32, c32, one, zero) = (self.u(0xffff_ffff), self.u(32), self.u(1), self.u(0));
        let xlo = self.and(x, low32);
        let xhi = self.shr(x, c32);
        let ylo = self.and(y, low32);
        let yhi = self.shr(y, c32);
        let t1 = self.mul(xlo, ylo);
        let a = self.mul(xlo, yhi);
        let b = self.mul(xhi, ylo);
        let t2 = self.add(a, b);
        let t3 = self.mul(xhi, yhi);
        let t2l = self.shl(t2, c32);
        let lo = self.add(t1, t2l);
        let t2h = self.shr(t2, c32);
        let hi = self.add(t3, t2h);
        let carry = self.cmp(Lt, lo, t1);
        let carry = self.sel(carry, one, zero);
        let hi = self.add(hi, carry);
        (hi, lo)
    }

    /// `i` (`u64`, below 2^63) with `sign` (0 or 1), converted to `f64`
    /// (one correct rounding).
    fn signed_f64(&mut self, i: InstId, neg: InstId) -> InstId {
        let i = self.l.bitcast(&self.base, i, ElementType::S64);
        let n = self.l.unary(&self.base, UnaryOp::Neg, i);
        let i = self.sel(neg, n, i);
        self.l.convert(&self.base, i, ElementType::F64)
    }

    /// `2^n` as `f64` for `n` in `[-1022, 1023]` (`s64`).
    fn pow2(&mut self, n: InstId) -> InstId {
        let bias = self.s(1023);
        let b = self.add(n, bias);
        let c52 = self.s(52);
        let b = self.shl(b, c52);
        self.l.bitcast(&self.base, b, ElementType::F64)
    }

    /// `r · 2^n` as musl's `scalbn`: at most two steps of `2^1023` or
    /// `2^-969` (exact while the value stays normal), then `2^n` with `n`
    /// clamped to the normal exponents.
    fn scalbn(&mut self, r: InstId, n: InstId) -> Result<InstId> {
        use ComparisonDirection::{Gt, Lt};
        let dims = self.dims.clone();
        let (hi, lo) = (self.s(1023), self.s(-1022));
        let up = self
            .l
            .float(&self.base, ElementType::F64, 2f64.powi(1023), &dims)?;
        let down = self
            .l
            .float(&self.base, ElementType::F64, 2f64.powi(-969), &dims)?;
        let unit = self.l.float(&self.base, ElementType::F64, 1.0, &dims)?;
        let (step_up, step_down, none) = (self.s(1023), self.s(-969), self.s(0));
        let mut y = r;
        let mut n = n;
        for _ in 0..2 {
            let big = self.cmp(Gt, n, hi);
            let small = self.cmp(Lt, n, lo);
            let f = self.sel(small, down, unit);
            let f = self.sel(big, up, f);
            let k = self.sel(small, step_down, none);
            let k = self.sel(big, step_up, k);
            y = self.mul(y, f);
            n = self.sub(n, k);
        }
        let n = self.l.binary(&self.base, BinaryOp::Min, n, hi);
        let n = self.l.binary(&self.base, BinaryOp::Max, n, lo);
        let f = self.pow2(n);
        Ok(self.mul(y, f))
    }

    /// `fma(x, y, z)` (see the module docs).
    fn run(&mut self, x: InstId, y: InstId, z: InstId) -> Result<InstId> {
        use ComparisonDirection::{Eq, Gt, Lt, Ne};
        let nx = self.normalize(x)?;
        let ny = self.normalize(y)?;
        let nz = self.normalize(z)?;
        let (rhi, rlo) = self.mul128(nx.m, ny.m);
        let (zero, one) = (self.u(0), self.u(1));
        let (c64, c54, c53, c10) = (self.s(64), self.u(54), self.u(53), self.u(10));
        let c64u = self.u(64);
        // Align: e = ex + ey; d = ez - e.
        let e = self.add(nx.e, ny.e);
        let d = self.sub(nz.e, e);
        let s0 = self.s(0);
        let dpos = self.cmp(Gt, d, s0);
        let dlt64 = self.cmp(Lt, d, c64);
        // d in 1..64: z shifted left by d across the two words.
        let du = self.amount(d);
        let zlo_a = self.shl(nz.m, du);
        let rd = self.sub(c64, d);
        let rdu = self.amount(rd);
        let zhi_a = self.shr(nz.m, rdu);
        // d >= 64: z is the high word, r shifted right by d - 64.
        let d2 = self.sub(d, c64);
        let d2u = self.amount(d2);
        let r2 = self.sub(c64, d2);
        let r2u = self.amount(r2);
        let a1 = self.shl(rhi, r2u);
        let a2 = self.shr(rlo, d2u);
        let a3 = self.shl(rlo, r2u);
        let a3 = self.nz(a3);
        let rlo_b = self.or(a1, a2);
        let rlo_b = self.or(rlo_b, a3);
        let rhi_b = self.shr(rhi, d2u);
        let d2big = self.cmp(ComparisonDirection::Ge, d2, c64);
        let rlo_b = self.sel(d2big, one, rlo_b);
        let rhi_b = self.sel(d2big, zero, rhi_b);
        let e_b = self.sub(nz.e, c64);
        // d <= 0: z shifted right by -d, sticky.
        let dn = self.l.unary(&self.base, UnaryOp::Neg, d);
        let dnu = self.amount(dn);
        let rn = self.sub(c64, dn);
        let rnu = self.amount(rn);
        let zc = self.shr(nz.m, dnu);
        let zs = self.shl(nz.m, rnu);
        let zs = self.nz(zs);
        let zlo_c = self.or(zc, zs);
        let dnbig = self.cmp(ComparisonDirection::Ge, dn, c64);
        let zlo_c = self.sel(dnbig, one, zlo_c);
        // Pick the case.
        let case_b = self.not(dlt64);
        let case_b = self.l.binary(&self.base, BinaryOp::And, dpos, case_b);
        let zlo_p = self.sel(case_b, zero, zlo_a);
        let zlo = self.sel(dpos, zlo_p, zlo_c);
        let zhi_p = self.sel(case_b, nz.m, zhi_a);
        let zhi = self.sel(dpos, zhi_p, zero);
        let rlo = self.sel(case_b, rlo_b, rlo);
        let rhi = self.sel(case_b, rhi_b, rhi);
        let e = self.sel(case_b, e_b, e);
        // Add or subtract.
        let sign = self.bin(BinaryOp::Xor, nx.sign, ny.sign);
        let same = self.cmp(Eq, sign, nz.sign);
        let slo = self.add(rlo, zlo);
        let carry = self.cmp(Lt, slo, zlo);
        let carry = self.sel(carry, one, zero);
        let shi = self.add(rhi, zhi);
        let shi = self.add(shi, carry);
        let dlo = self.sub(rlo, zlo);
        let borrow = self.cmp(Lt, rlo, dlo);
        let borrow = self.sel(borrow, one, zero);
        let dhi = self.sub(rhi, zhi);
        let dhi = self.sub(dhi, borrow);
        let c63 = self.u(63);
        let top = self.shr(dhi, c63);
        let negative = self.cmp(Ne, top, zero);
        let nlo = self.sub(zero, dlo);
        let nhi = self.sub(zero, dhi);
        let bl = self.nz(dlo);
        let nhi = self.sub(nhi, bl);
        let dlo = self.sel(negative, nlo, dlo);
        let dhi = self.sel(negative, nhi, dhi);
        let flipped = self.bin(BinaryOp::Xor, sign, one);
        let dsign = self.sel(negative, flipped, sign);
        let rlo = self.sel(same, slo, dlo);
        let rhi = self.sel(same, shi, dhi);
        let sign = self.sel(same, sign, dsign);
        // The top 63 bits with a sticky last bit, and the exponent.
        let hi_nz = self.cmp(Ne, rhi, zero);
        let lo_nz = self.cmp(Ne, rlo, zero);
        let clz_hi = self.l.unary(&self.base, UnaryOp::Clz, rhi);
        let k = self.sub(clz_hi, one);
        let k64 = self.sub(c64u, k);
        let h1 = self.shl(rhi, k);
        let h2 = self.shr(rlo, k64);
        let h3 = self.shl(rlo, k);
        let h3 = self.nz(h3);
        let t_hi = self.or(h1, h2);
        let t_hi = self.or(t_hi, h3);
        let clz_lo = self.l.unary(&self.base, UnaryOp::Clz, rlo);
        let top_lo = self.cmp(Eq, clz_lo, zero);
        let kl = self.sub(clz_lo, one);
        let l1 = self.shr(rlo, one);
        let l2 = self.and(rlo, one);
        let l_top = self.or(l1, l2);
        let l_sh = self.shl(rlo, kl);
        let t_lo = self.sel(top_lo, l_top, l_sh);
        let kl = self.sel(top_lo, zero, kl);
        let m = self.sel(hi_nz, t_hi, t_lo);
        let k = self.sel(hi_nz, k, kl);
        let k = self.l.bitcast(&self.base, k, ElementType::S64);
        let e64 = self.add(e, c64);
        let e = self.sel(hi_nz, e64, e);
        let e = self.sub(e, k);
        let exact_zero = self.bin(BinaryOp::Or, hi_nz, lo_nz);
        let exact_zero = self.not(exact_zero);
        // To f64, rounding once at the subnormal precision below 2^-1022.
        let neg = self.cmp(Ne, sign, zero);
        let r = self.signed_f64(m, neg);
        let (lim, edge_e) = (self.s(-1022 - 62), self.s(-1022 - 63));
        let tiny = self.cmp(Lt, e, lim);
        let edge = self.cmp(Eq, e, edge_e);
        let dims = self.dims.clone();
        let c_pos = self
            .l
            .float(&self.base, ElementType::F64, 2f64.powi(63), &dims)?;
        let c_neg = self
            .l
            .float(&self.base, ElementType::F64, -(2f64.powi(63)), &dims)?;
        let c = self.sel(neg, c_neg, c_pos);
        let at_min = self.cmp(Ne, r, c);
        let low = self.shl(m, c53);
        let inexact = self.cmp(Ne, low, zero);
        let edge_inexact = self.bin(BinaryOp::And, edge, at_min);
        let edge_inexact = self.bin(BinaryOp::And, edge_inexact, inexact);
        let i2 = self.shr(m, one);
        let mb = self.and(m, one);
        let i2 = self.or(i2, mb);
        let bit62 = self.u(1u64 << 62);
        let i2 = self.or(i2, bit62);
        let r2 = self.signed_f64(i2, neg);
        let two = self.l.float(&self.base, ElementType::F64, 2.0, &dims)?;
        let r2 = self.mul(two, r2);
        let r2 = self.sub(r2, c);
        let i3 = self.shr(m, c10);
        let s3 = self.shl(m, c54);
        let s3 = self.nz(s3);
        let i3 = self.or(i3, s3);
        let i3 = self.shl(i3, c10);
        let r3 = self.signed_f64(i3, neg);
        let deep = self.not(edge);
        let deep = self.bin(BinaryOp::And, tiny, deep);
        let r = self.sel(edge_inexact, r2, r);
        let r = self.sel(deep, r3, r);
        let scaled = self.scalbn(r, e)?;
        // The special cases.
        let xy = self.mul(x, y);
        let plain = self.add(xy, z);
        let xy_special = self.bin(BinaryOp::Or, nx.special, ny.special);
        let z_infnan = self.not(nz.zero);
        let z_infnan = self.bin(BinaryOp::And, nz.special, z_infnan);
        let out = self.sel(exact_zero, plain, scaled);
        let out = self.sel(z_infnan, z, out);
        // A zero `z`: the product rounded once, its sign kept where it
        // underflows (`x·y + 0` would turn `-0` into `+0`).
        let out = self.sel(nz.zero, xy, out);
        Ok(self.sel(xy_special, plain, out))
    }
}

impl Lowering<'_> {
    /// `fma(x, y, z)` of `f64` arrays of one shape, correctly rounded
    /// (`f64::mul_add`'s bits), from real and integer ops (the module
    /// docs).
    pub(super) fn fma_f64(
        &mut self,
        base: &str,
        x: InstId,
        y: InstId,
        z: InstId,
    ) -> Result<InstId> {
        let dims = self.shape(x).dims().to_vec();
        let mut f = Fma {
            l: self,
            base: base.to_string(),
            dims,
            u64s: HashMap::new(),
            s64s: HashMap::new(),
        };
        f.run(x, y, z)
    }
}
