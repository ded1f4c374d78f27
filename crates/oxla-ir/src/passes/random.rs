//! The random-number ops built from integer primitives, bit for bit as
//! the interpreter computes them (`oxla_interp`'s `misc/random.rs`, whose
//! module docs define the layouts): [`rng_bit_generator`] (ThreeFry-2x32
//! and Philox-4x32, as XLA:CPU's `RngBitGeneratorExpander` builds them
//! from adds, rotates, xors and 32x32->64-bit multiplies) and [`rng`]
//! (Philox on the stream of [`RNG_KEY`], whose counter starts at 0 at each
//! run and advances by every `rng` in evaluation order).
//!
//! Every step of a bit generator is an integer operation, so a backend
//! that computes the primitives exactly (the JIT) gives the interpreter's
//! bits. `rng`'s uniform values add a float multiply and add (exact in the
//! same order); its normal values go through `log`, `sqrt`, `sin` and
//! `cos`, each within the backend's ulp bound of the interpreter's.
//!
//! [`expand_all`] inlines the expansions into a computation. An `rng`'s
//! stream position is known before the run when every `rng` sits in the
//! entry body (one evaluated once per run, in definition order:
//! [`rng_offsets`]); otherwise it is a run-time value, threaded through
//! the loops and branches that draw (`super::stream`), and each `rng`
//! draws at that value ([`rng_at`]). An `rng` in a loop condition or a
//! computation called per element is kept.

use crate::{
    Builder, Computation, ElementType, Error, Literal, Op, OpKind, Result, RngAlgorithm,
    RngDistribution, Shape,
};

/// The key of the Philox stream `rng` draws from.
pub const RNG_KEY: u64 = 0x5851_F42D_4C95_7F2D;

/// The ThreeFry-2x32 rotations.
const THREEFRY_ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];

/// The Philox-4x32 multipliers and key increments.
const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

/// The 32-bit words `(low, high)` of the `u64` array `x`.
fn split(b: &mut Builder, x: Op) -> Result<(Op, Op)> {
    let lo = b.convert(x, ElementType::U32)?;
    let s = b.constant_scalar(32u64)?;
    let h = b.shift_right_logical(x, s, &[])?;
    let hi = b.convert(h, ElementType::U32)?;
    Ok((lo, hi))
}

/// `lo | hi << 32` as `u64`.
fn join(b: &mut Builder, lo: Op, hi: Op) -> Result<Op> {
    let lo = b.convert(lo, ElementType::U64)?;
    let hi = b.convert(hi, ElementType::U64)?;
    let s = b.constant_scalar(32u64)?;
    let hi = b.shift_left(hi, s, &[])?;
    b.or(lo, hi, &[])
}

/// `x` rotated left by `r` (0 < r < 32), `u32`.
fn rotate(b: &mut Builder, x: Op, r: u32) -> Result<Op> {
    let l = b.constant_scalar(r)?;
    let rr = b.constant_scalar(32 - r)?;
    let hi = b.shift_left(x, l, &[])?;
    let lo = b.shift_right_logical(x, rr, &[])?;
    b.or(hi, lo, &[])
}

/// ThreeFry-2x32, 20 rounds, of the counter words `x` under the scalar
/// key words `key`.
fn threefry2x32(b: &mut Builder, key: (Op, Op), x: (Op, Op)) -> Result<(Op, Op)> {
    let c = b.constant_scalar(0x1BD1_1BDAu32)?;
    let k01 = b.xor(key.0, key.1, &[])?;
    let k2 = b.xor(c, k01, &[])?;
    let ks = [key.0, key.1, k2];
    let mut x0 = b.add(x.0, ks[0], &[])?;
    let mut x1 = b.add(x.1, ks[1], &[])?;
    for group in 0..5u32 {
        let rotations = &THREEFRY_ROTATIONS[(group as usize % 2) * 4..][..4];
        for &r in rotations {
            x0 = b.add(x0, x1, &[])?;
            let rot = rotate(b, x1, r)?;
            x1 = b.xor(rot, x0, &[])?;
        }
        let g = group as usize + 1;
        x0 = b.add(x0, ks[g % 3], &[])?;
        x1 = b.add(x1, ks[(g + 1) % 3], &[])?;
        let n = b.constant_scalar(group + 1)?;
        x1 = b.add(x1, n, &[])?;
    }
    Ok((x0, x1))
}

/// `(high, low)` words of the 64-bit product of the `u32` array `x` and
/// `m`.
fn mul_hi_lo(b: &mut Builder, x: Op, m: u32) -> Result<(Op, Op)> {
    let x = b.convert(x, ElementType::U64)?;
    let m = b.constant_scalar(u64::from(m))?;
    let p = b.mul(x, m, &[])?;
    let (lo, hi) = split(b, p)?;
    Ok((hi, lo))
}

/// Philox-4x32, 10 rounds, of the counter words `x` under the scalar key
/// words `key`.
fn philox4x32(b: &mut Builder, key: (Op, Op), x: [Op; 4]) -> Result<[Op; 4]> {
    let (mut k0, mut k1) = key;
    let mut x = x;
    let w0 = b.constant_scalar(PHILOX_W0)?;
    let w1 = b.constant_scalar(PHILOX_W1)?;
    for _ in 0..10 {
        let (hi0, lo0) = mul_hi_lo(b, x[0], PHILOX_M0)?;
        let (hi1, lo1) = mul_hi_lo(b, x[2], PHILOX_M1)?;
        let a = b.xor(hi1, x[1], &[])?;
        let a = b.xor(a, k0, &[])?;
        let c = b.xor(hi0, x[3], &[])?;
        let c = b.xor(c, k1, &[])?;
        x = [a, lo1, c, lo0];
        k0 = b.add(k0, w0, &[])?;
        k1 = b.add(k1, w1, &[])?;
    }
    Ok(x)
}

/// The element `i` (a `u64` scalar) of the `u64[k]` array `v`.
fn element(b: &mut Builder, v: Op, i: i64) -> Result<Op> {
    let s = b.slice(v, &[i], &[i + 1], &[1])?;
    b.reshape(s, &[])
}

/// A 128-bit counter `(lo, hi)` (scalars) plus the `u64` array `n`, as
/// arrays `(lo, hi)`.
fn add128(b: &mut Builder, (lo, hi): (Op, Op), n: Op) -> Result<(Op, Op)> {
    let sum = b.add(n, lo, &[])?;
    let carry = b.lt(sum, lo, &[])?;
    let carry = b.convert(carry, ElementType::U64)?;
    let hi = b.add(carry, hi, &[])?;
    Ok((sum, hi))
}

/// `words` 32-bit Philox words (`u32[words]`) from the counter `(lo, hi)`
/// under `key` (scalars), and the number of blocks they take.
fn philox_words(b: &mut Builder, key: Op, counter: (Op, Op), words: i64) -> Result<(Op, i64)> {
    let blocks = (words + 3) / 4;
    let i = b.iota(Shape::new(ElementType::U64, &[blocks]), 0)?;
    let (lo, hi) = add128(b, counter, i)?;
    let (l0, l1) = split(b, lo)?;
    let (h0, h1) = split(b, hi)?;
    let key = split(b, key)?;
    let out = philox4x32(b, key, [l0, l1, h0, h1])?;
    let mut cols = Vec::with_capacity(4);
    for w in out {
        cols.push(b.reshape(w, &[blocks, 1])?);
    }
    let all = b.concatenate(&cols, 1)?;
    let flat = b.reshape(all, &[blocks * 4])?;
    let w = b.slice(flat, &[0], &[words], &[1])?;
    Ok((w, blocks))
}

/// `n` Philox values of `bits` bits (32 or 64) as `u32[n]` or `u64[n]`,
/// and the number of blocks they take.
fn philox_bits(
    b: &mut Builder,
    key: Op,
    counter: (Op, Op),
    n: i64,
    bits: u32,
) -> Result<(Op, i64)> {
    if bits == 64 {
        let (w, blocks) = philox_words(b, key, counter, 2 * n)?;
        let pairs = b.reshape(w, &[n, 2])?;
        let lo = b.slice(pairs, &[0, 0], &[n, 1], &[1, 1])?;
        let hi = b.slice(pairs, &[0, 1], &[n, 2], &[1, 1])?;
        let v = join(b, lo, hi)?;
        return Ok((b.reshape(v, &[n])?, blocks));
    }
    philox_words(b, key, counter, n)
}

/// ThreeFry output of `dims` (`u64` for 64 bits, else `u32`) from `counter`
/// under `key` (scalars), and how far the counter advances.
fn threefry_bits(
    b: &mut Builder,
    key: Op,
    counter: Op,
    dims: &[i64],
    bits: u32,
) -> Result<(Op, i64)> {
    let key = split(b, key)?;
    let n = dims.iter().product::<i64>().max(0);
    if bits == 64 {
        let i = b.iota(Shape::new(ElementType::U64, &[n]), 0)?;
        let c = b.add(i, counter, &[])?;
        let x = split(b, c)?;
        let (y0, y1) = threefry2x32(b, key, x)?;
        let v = join(b, y0, y1)?;
        return Ok((b.reshape(v, dims)?, n));
    }
    // Halve the first even dimension (else the first of the largest); a
    // scalar is [1].
    let full: Vec<i64> = if dims.is_empty() {
        vec![1]
    } else {
        dims.to_vec()
    };
    let split_dim = full.iter().position(|d| d % 2 == 0).unwrap_or_else(|| {
        let mut best = 0;
        for (i, &d) in full.iter().enumerate() {
            if d > full[best] {
                best = i;
            }
        }
        best
    });
    let mut half = full.clone();
    half[split_dim] = (full[split_dim] + 1) / 2;
    let half_count = half.iter().product::<i64>().max(0);
    // The row-major index in the half shape of each element.
    let shape = Shape::new(ElementType::U64, &full);
    let mut h: Option<Op> = None;
    let mut parity = None;
    let one = b.constant_scalar(1u64)?;
    for (d, &size) in half.iter().enumerate() {
        let mut i = b.iota(shape.clone(), d as i64)?;
        if d == split_dim {
            parity = Some(b.and(i, one, &[])?);
            i = b.shift_right_logical(i, one, &[])?;
        }
        h = Some(match h {
            None => i,
            Some(h) => {
                let s = b.constant_scalar(size as u64)?;
                let hs = b.mul(h, s, &[])?;
                b.add(hs, i, &[])?
            }
        });
    }
    let (Some(h), Some(parity)) = (h, parity) else {
        return Err(internal("a ThreeFry shape with no dimensions".into()));
    };
    let c = b.add(h, counter, &[])?;
    let x = split(b, c)?;
    let (y0, y1) = threefry2x32(b, key, x)?;
    let zero = b.constant_scalar(0u64)?;
    let even = b.eq(parity, zero, &[])?;
    let v = b.select(even, y0, y1)?;
    Ok((b.reshape(v, dims)?, half_count))
}

fn internal(message: String) -> Error {
    Error::Internal {
        stage: "random expansion".into(),
        message,
    }
}

/// A `u64` scalar constant.
fn u64c(b: &mut Builder, v: u64) -> Result<Op> {
    b.constant_scalar(v)
}

/// `rng-bit-generator(state)` giving bits of shape `bits` (unsigned, 8 to
/// 64 bits), built from primitives: the tuple `(new_state, bits)`, bit for
/// bit as the interpreter computes it.
///
/// ```
/// use oxla_ir::{Builder, ElementType::{U32, U64}, RngAlgorithm, Shape, passes::random};
/// let mut b = Builder::new("bits");
/// let state = b.parameter(0, Shape::new(U64, &[2]), "state")?;
/// let out = random::rng_bit_generator(&mut b, RngAlgorithm::ThreeFry, state, &Shape::new(U32, &[4]))?;
/// assert_eq!(b.shape(out)?.to_string(), "(u64[2], u32[4])");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn rng_bit_generator(
    b: &mut Builder,
    algorithm: RngAlgorithm,
    state: Op,
    bits: &Shape,
) -> Result<Op> {
    let state_shape = b.shape(state)?;
    let result = Shape::tuple(vec![state_shape.clone(), bits.clone()]);
    crate::shape_inference::infer_rng_bit_generator_shape(&state_shape, algorithm, &result)?;
    let ty = bits.element_type();
    let width = if ty == ElementType::U64 { 64 } else { 32 };
    let n = bits.element_count().max(0);
    let key = element(b, state, 0)?;
    let lo = element(b, state, 1)?;
    let state_len = state_shape.dims().first().copied().unwrap_or(0);
    let (values, new_state) = match (algorithm, state_len) {
        (RngAlgorithm::ThreeFry, 2) => {
            let (v, advance) = threefry_bits(b, key, lo, bits.dims(), width)?;
            let a = u64c(b, advance as u64)?;
            let next = b.add(lo, a, &[])?;
            (v, vec![key, next])
        }
        (RngAlgorithm::Philox | RngAlgorithm::Default, 2 | 3) => {
            let hi = if state_len == 3 {
                element(b, state, 2)?
            } else {
                key
            };
            let (v, blocks) = philox_bits(b, key, (lo, hi), n, width)?;
            let v = b.reshape(v, bits.dims())?;
            let a = u64c(b, blocks as u64)?;
            let (next_lo, next_hi) = add128(b, (lo, hi), a)?;
            if state_len == 3 {
                (v, vec![key, next_lo, next_hi])
            } else {
                (v, vec![key, next_lo])
            }
        }
        (RngAlgorithm::ThreeFry | RngAlgorithm::Philox | RngAlgorithm::Default, _) => {
            return Err(internal(format!(
                "rng-bit-generator with algorithm={algorithm} cannot use the state {state_shape}"
            )));
        }
    };
    let values = if b.shape(values)?.element_type() == ty {
        values
    } else {
        b.convert(values, ty)?
    };
    let mut parts = Vec::with_capacity(new_state.len());
    for s in new_state {
        parts.push(b.reshape(s, &[1])?);
    }
    let new_state = b.concatenate(&parts, 0)?;
    b.tuple(&[new_state, values])
}

/// The number of Philox blocks an `rng` of `shape` draws from the stream
/// (see the interpreter's `rng`): none for `pred`, else its values of 32
/// bits (64 for `f64`, `s64`, `u64`; a normal distribution draws an even
/// count), four words a block.
pub fn rng_blocks(distribution: RngDistribution, shape: &Shape) -> u64 {
    let n = shape.element_count().max(0) as u64;
    let ty = shape.element_type();
    if ty == ElementType::Pred {
        return 0;
    }
    let draws = match distribution {
        RngDistribution::Uniform => n,
        RngDistribution::Normal => n.div_ceil(2) * 2,
    };
    let words = if ty.bit_width() == 64 {
        2 * draws
    } else {
        draws
    };
    words.div_ceil(4)
}

/// For each body of `comp`, for each instruction, the stream counter an
/// `rng` there starts at; `None` when some `rng` is outside the entry body
/// (its position then depends on the run).
pub fn rng_offsets(comp: &Computation) -> Option<Vec<u64>> {
    let entry = comp.entry_id().index();
    let mut offsets = Vec::new();
    let mut counter = 0u64;
    for (bi, body) in comp.bodies().iter().enumerate() {
        for inst in &body.instructions {
            if let OpKind::Rng { distribution } = inst.kind {
                if bi != entry {
                    return None;
                }
                offsets.push(counter);
                counter = counter.wrapping_add(rng_blocks(distribution, &inst.shape));
            }
        }
    }
    Some(offsets)
}

/// `rng(a, b)` of `shape` drawing from the stream at block `counter`,
/// built from primitives (see the interpreter's `rng` for the
/// definition): uniform floats from the top mantissa bits scaled into
/// `[a, b)`, uniform integers `a + bits % (b - a)`, normals by the
/// Box-Muller transform; a `pred` is `a`.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, RngDistribution, Shape, passes::random};
/// let mut b = Builder::new("u");
/// let lo = b.constant_scalar(0f32)?;
/// let hi = b.constant_scalar(1f32)?;
/// let u = random::rng(&mut b, RngDistribution::Uniform, lo, hi, &Shape::new(F32, &[8]), 0)?;
/// assert_eq!(b.shape(u)?.to_string(), "f32[8]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn rng(
    b: &mut Builder,
    distribution: RngDistribution,
    a: Op,
    hi: Op,
    shape: &Shape,
    counter: u64,
) -> Result<Op> {
    let lo = u64c(b, counter)?;
    rng_at(b, distribution, a, hi, shape, lo)
}

/// [`rng`] drawing from the stream at the block `counter`, a `u64[]`
/// value (computed at run time: an `rng` in a loop body or a branch, see
/// [`super::stream`]).
///
/// ```
/// use oxla_ir::{Builder, ElementType::{F32, U64}, RngDistribution, Shape, passes::random};
/// let mut b = Builder::new("u");
/// let lo = b.constant_scalar(0f32)?;
/// let hi = b.constant_scalar(1f32)?;
/// let at = b.parameter(0, Shape::scalar(U64), "counter")?;
/// let u = random::rng_at(&mut b, RngDistribution::Uniform, lo, hi, &Shape::new(F32, &[8]), at)?;
/// assert_eq!(b.shape(u)?.to_string(), "f32[8]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn rng_at(
    b: &mut Builder,
    distribution: RngDistribution,
    a: Op,
    hi: Op,
    shape: &Shape,
    lo: Op,
) -> Result<Op> {
    crate::shape_inference::infer_rng_shape(&b.shape(a)?, &b.shape(hi)?, distribution, shape)?;
    let ty = shape.element_type();
    let dims = shape.dims().to_vec();
    let n = shape.element_count().max(0);
    let key = u64c(b, RNG_KEY)?;
    let zero = u64c(b, 0)?;
    let bits = if ty.bit_width() == 64 { 64 } else { 32 };
    let draw = |b: &mut Builder, n: i64| philox_bits(b, key, (lo, zero), n, bits).map(|r| r.0);
    let float = |b: &mut Builder, n: i64| -> Result<Op> {
        let (mantissa, f) = if ty == ElementType::F64 {
            (52u32, ElementType::F64)
        } else {
            (23, ElementType::F32)
        };
        let v = draw(b, n)?;
        let s = if bits == 64 {
            b.constant_scalar(u64::from(64 - mantissa))?
        } else {
            b.constant_scalar(32 - mantissa)?
        };
        let top = b.shift_right_logical(v, s, &[])?;
        let x = b.convert(top, f)?;
        let scale = Literal::float_scalar(f, 2f64.powi(-(mantissa as i32)))
            .ok_or_else(|| internal(format!("no {f} constant")))?;
        let scale = b.constant(scale)?;
        b.mul(x, scale, &[])
    };
    let float_constant = |b: &mut Builder, v: f64| -> Result<Op> {
        let c =
            Literal::float_scalar(ty, v).ok_or_else(|| internal(format!("no {ty} constant")))?;
        b.constant(c)
    };
    let out = match (distribution, ty) {
        (_, ElementType::Pred) => b.broadcast_in_dim(a, &dims, &[])?,
        (RngDistribution::Uniform, ElementType::F32 | ElementType::F64) => {
            let u = float(b, n)?;
            let range = b.sub(hi, a, &[])?;
            let scaled = b.mul(u, range, &[])?;
            let v = b.add(scaled, a, &[])?;
            b.reshape(v, &dims)?
        }
        (RngDistribution::Normal, ElementType::F32 | ElementType::F64) => {
            let pairs = (n + 1) / 2;
            let u = float(b, 2 * pairs)?;
            let u = b.reshape(u, &[pairs, 2])?;
            let u1 = b.slice(u, &[0, 0], &[pairs, 1], &[1, 1])?;
            let u2 = b.slice(u, &[0, 1], &[pairs, 2], &[1, 1])?;
            let tiny = if ty == ElementType::F64 {
                float_constant(b, 1e-7)?
            } else {
                // `1e-7` as the interpreter writes it: an f32 literal.
                float_constant(b, f64::from(1e-7f32))?
            };
            let u1 = b.max(u1, tiny, &[])?;
            let two_pi = if ty == ElementType::F64 {
                float_constant(b, 2.0 * std::f64::consts::PI)?
            } else {
                float_constant(b, f64::from(2.0 * std::f32::consts::PI))?
            };
            let v1 = b.mul(two_pi, u2, &[])?;
            let minus_two = float_constant(b, -2.0)?;
            let l = b.log(u1)?;
            let l = b.mul(minus_two, l, &[])?;
            let r = b.sqrt(l)?;
            let s = b.sin(v1)?;
            let c = b.cos(v1)?;
            let z0 = b.mul(s, r, &[])?;
            let z1 = b.mul(c, r, &[])?;
            let z = b.concatenate(&[z0, z1], 1)?;
            let z = b.reshape(z, &[2 * pairs])?;
            let z = b.slice(z, &[0], &[n], &[1])?;
            let bz = b.mul(hi, z, &[])?;
            let v = b.add(a, bz, &[])?;
            b.reshape(v, &dims)?
        }
        (
            RngDistribution::Uniform,
            ElementType::S8
            | ElementType::S16
            | ElementType::S32
            | ElementType::S64
            | ElementType::U8
            | ElementType::U16
            | ElementType::U32
            | ElementType::U64,
        ) => {
            let u = ElementType::unsigned_of_width(ty.bit_width())
                .ok_or_else(|| internal(format!("rng of {ty} has no unsigned counterpart")))?;
            let v = draw(b, n)?;
            let v = if b.shape(v)?.element_type() == u {
                v
            } else {
                b.convert(v, u)?
            };
            let au = b.bitcast_convert_type(a, u)?;
            let bu = b.bitcast_convert_type(hi, u)?;
            let range = b.sub(bu, au, &[])?;
            // XLA's remainder: `x % 0 = x`.
            let dist = b.rem(v, range, &[])?;
            let one = b.constant(Literal::from_vec::<u8>(&[], vec![1])?)?;
            let one = b.convert(one, u)?;
            let half = b.shift_right_logical(dist, one, &[])?;
            let rest = b.sub(dist, half, &[])?;
            let s = b.add(au, half, &[])?;
            let s = b.add(s, rest, &[])?;
            let s = b.bitcast_convert_type(s, ty)?;
            b.reshape(s, &dims)?
        }
        // As XLA's rng expander (and the interpreter): drawn in f32, the
        // bounds converted, each value rounded back.
        (_, ElementType::Bf16 | ElementType::F16) => {
            let a32 = b.convert(a, ElementType::F32)?;
            let hi32 = b.convert(hi, ElementType::F32)?;
            let wide = Shape::new(ElementType::F32, &dims);
            let v = rng_at(b, distribution, a32, hi32, &wide, lo)?;
            b.convert(v, ty)?
        }
        (RngDistribution::Normal, _) | (RngDistribution::Uniform, _) => {
            return Err(internal(format!("rng of {ty} has no expansion")));
        }
    };
    Ok(out)
}

/// `comp` with every `rng-bit-generator` and `rng` expanded into
/// primitives (see the module docs); an `rng` in a loop condition or a
/// computation called per element is kept (every `rng` is then, since
/// the stream positions of the others depend on it).
///
/// ```
/// use oxla_ir::{Builder, ElementType::{U32, U64}, OpKind, RngAlgorithm, Shape, passes::random};
/// let mut b = Builder::new("bits");
/// let state = b.parameter(0, Shape::new(U64, &[2]), "state")?;
/// let out = b.rng_bit_generator(RngAlgorithm::Philox, state, Shape::new(U32, &[8]))?;
/// let comp = b.build(out)?;
/// let expanded = random::expand_all(&comp)?;
/// let mut ops = expanded.bodies().iter().flat_map(|b| &b.instructions);
/// assert!(ops.all(|i| !matches!(i.kind, OpKind::RngBitGenerator { .. })));
/// assert_eq!(expanded.result_shape(), comp.result_shape());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    let offsets = rng_offsets(comp);
    if offsets.is_none()
        && let Some(threaded) = super::stream::thread(comp)
    {
        // `rng`s in loops and branches: each takes its stream counter as a
        // third operand.
        crate::verifier::verify(comp)?;
        return super::expand_ops_unverified(
            &threaded,
            "random::expand_all pass",
            |inst, operands| expand_one(inst, operands, None),
        );
    }
    let mut next_rng = 0usize;
    super::expand_ops(comp, "random::expand_all pass", |inst, operands| {
        let Some(offsets) = &offsets else {
            return expand_one(inst, operands, None);
        };
        if let OpKind::Rng { .. } = inst.kind {
            let Some(&counter) = offsets.get(next_rng) else {
                return Err(internal(format!("{} has no stream offset", inst.name)));
            };
            next_rng += 1;
            expand_one(inst, operands, Some(counter))
        } else {
            expand_one(inst, operands, None)
        }
    })
}

/// The expansion of `inst` (of operand shapes `operands`), or `None`: a
/// `rng-bit-generator`; an `rng` at the stream block `counter`, or at the
/// counter given as its third operand (`stream::thread`), or `None` for an
/// `rng` with neither (kept).
fn expand_one(
    inst: &crate::Instruction,
    operands: &[Shape],
    counter: Option<u64>,
) -> Result<Option<Computation>> {
    let mut b = Builder::new(&inst.kind.opcode_name().replace('-', "_"));
    let mut params = Vec::with_capacity(operands.len());
    for (i, s) in operands.iter().enumerate() {
        params.push(b.parameter(i as i64, s.clone(), &format!("p{i}"))?);
    }
    let root = if let OpKind::RngBitGenerator { algorithm } = inst.kind {
        let ([state], [_, bits]) = (params.as_slice(), inst.shape.tuple_shapes()) else {
            return Err(internal(format!(
                "{} takes one operand and gives a pair, not {}",
                inst.name, inst.shape
            )));
        };
        rng_bit_generator(&mut b, algorithm, *state, bits)?
    } else if let OpKind::Rng { distribution } = inst.kind {
        match (params.as_slice(), counter) {
            (&[lo, hi], Some(counter)) => rng(&mut b, distribution, lo, hi, &inst.shape, counter)?,
            (&[lo, hi, at], None) => rng_at(&mut b, distribution, lo, hi, &inst.shape, at)?,
            (&[_, _], None) => return Ok(None),
            _ => {
                return Err(internal(format!(
                    "{} is not an rng of two operands",
                    inst.name
                )));
            }
        }
    } else {
        return Ok(None);
    };
    b.build(root).map(Some)
}
