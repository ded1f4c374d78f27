//! `c64` and `c128` through the JIT (`oxla_ir::passes::complex`: each
//! complex value a pair of real arrays) against the interpreter, bit for
//! bit: arithmetic on large arrays (the threaded, vectorised kernels) of
//! ordinary values, of every pair of special values and of random bit
//! patterns (the exact fused multiply-add at every rounding), data
//! movement, reductions, loops and branches carrying complex state, and
//! what is still refused.

use oxla_ir::{ArrayData, Complex64, Complex128, Error, Literal, parse_hlo_module};

use crate::common::{check, float_edges};

fn parse(text: &str) -> oxla_ir::Computation {
    parse_hlo_module(text).unwrap_or_else(|e| panic!("the module does not parse: {e}\n{text}"))
}

/// A SplitMix64 stream.
fn mix(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `n` `c64` values: random bit patterns (every exponent, subnormals,
/// infinities, NaN) when `bits`, else ordinary values in [-4, 4) with
/// every fourth part an edge value.
fn c64s(n: usize, seed: u64, bits: bool) -> Literal {
    let mut r = mix(seed);
    let edges = float_edges();
    let mut part = |k: usize| -> f32 {
        let x = r();
        if bits {
            f32::from_bits(x as u32)
        } else if k % 4 == 3 {
            edges[(x % edges.len() as u64) as usize] as f32
        } else {
            ((x >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0) as f32
        }
    };
    let v: Vec<Complex64> = (0..n)
        .map(|k| Complex64::new(part(2 * k), part(2 * k + 1)))
        .collect();
    Literal::from_array_data(&[n as i64], ArrayData::C64(v)).expect("literal")
}

fn c128s(n: usize, seed: u64) -> Literal {
    let mut r = mix(seed);
    let edges = float_edges();
    let mut part = |k: usize| -> f64 {
        let x = r();
        if k % 4 == 3 {
            edges[(x % edges.len() as u64) as usize]
        } else {
            (x >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0
        }
    };
    let v: Vec<Complex128> = (0..n)
        .map(|k| Complex128::new(part(2 * k), part(2 * k + 1)))
        .collect();
    Literal::from_array_data(&[n as i64], ArrayData::C128(v)).expect("literal")
}

/// Every pair of edge values as `c64[m*m]` operands `(a, b)`: the edge
/// values in each part, the pairs of complex values crossed.
fn c64_edge_pairs() -> (Literal, Literal) {
    let e: Vec<f32> = float_edges().iter().map(|&x| x as f32).collect();
    let zs: Vec<Complex64> = e
        .iter()
        .flat_map(|&re| e.iter().map(move |&im| Complex64::new(re, im)))
        .collect();
    let m = zs.len();
    let a: Vec<Complex64> = (0..m * m).map(|k| zs[k / m]).collect();
    let b: Vec<Complex64> = (0..m * m).map(|k| zs[k % m]).collect();
    let n = [(m * m) as i64];
    (
        Literal::from_array_data(&n, ArrayData::C64(a)).expect("a"),
        Literal::from_array_data(&n, ArrayData::C64(b)).expect("b"),
    )
}

/// Elementwise `c64` ops of two operands of `n` elements, with results of
/// several types.
fn arithmetic(n: usize) -> oxla_ir::Computation {
    parse(&format!(
        "HloModule m\nENTRY e {{\n  a = c64[{n}] parameter(0)\n  b = c64[{n}] parameter(1)\n  \
         s = c64[{n}] add(a, b)\n  d = c64[{n}] subtract(a, b)\n  p = c64[{n}] multiply(a, b)\n  \
         q = c64[{n}] divide(a, b)\n  g = c64[{n}] negate(q)\n  m = f32[{n}] abs(a)\n  \
         eq = pred[{n}] compare(a, b), direction=EQ\n  ne = pred[{n}] compare(p, s), direction=NE\n  \
         sel = c64[{n}] select(eq, d, g)\n  w = c128[{n}] convert(p)\n  r = f32[{n}] real(sel)\n  \
         i = f32[{n}] imag(s)\n  t = s32[{n}] convert(b)\n  bp = pred[{n}] convert(a)\n  \
         ROOT out = (c64[{n}], c64[{n}], f32[{n}], pred[{n}], c64[{n}], c128[{n}], f32[{n}], f32[{n}], s32[{n}], pred[{n}]) \
         tuple(s, p, m, ne, sel, w, r, i, t, bp)\n}}\n"
    ))
}

#[test]
fn c64_arithmetic_on_large_arrays_is_bit_exact() {
    // 2^17 elements: vectorised, and threaded across the pool.
    let n = 1 << 17;
    let comp = arithmetic(n);
    check(&comp, &[c64s(n, 1, false), c64s(n, 2, false)]);
}

#[test]
fn c64_arithmetic_on_random_bits_is_bit_exact() {
    // Every exponent and rounding: the emulated fused multiply-adds of
    // the products, the divisions and the magnitudes.
    let n = 1 << 16;
    let comp = arithmetic(n);
    check(&comp, &[c64s(n, 3, true), c64s(n, 4, true)]);
    // Small parts, products near the subnormals.
    let tiny = |l: Literal| {
        let Some(ArrayData::C64(v)) = l.array_data() else {
            panic!("c64")
        };
        let v: Vec<Complex64> = v
            .iter()
            .map(|z| Complex64::new(z.re * 1e-20, z.im * 3e-21))
            .collect();
        Literal::from_array_data(&[v.len() as i64], ArrayData::C64(v)).expect("literal")
    };
    check(&comp, &[tiny(c64s(n, 5, false)), tiny(c64s(n, 6, false))]);
}

#[test]
fn c64_arithmetic_on_every_pair_of_special_values_is_bit_exact() {
    let (a, b) = c64_edge_pairs();
    let n = a.element_count();
    check(&arithmetic(n), &[a, b]);
}

#[test]
fn complex_from_and_to_real_types() {
    let text = "HloModule m\nENTRY e {\n  x = f32[64] parameter(0)\n  y = f32[64] parameter(1)\n  \
        i = s64[64] parameter(2)\n  z = c64[64] complex(x, y)\n  c = c64[64] convert(i)\n  \
        d = c128[64] convert(x)\n  s = c64[64] add(z, c)\n  r = f32[64] real(x)\n  \
        m = f32[64] imag(y)\n  ROOT t = (c64[64], c128[64], f32[64], f32[64]) tuple(s, d, r, m)\n}\n";
    let comp = parse(text);
    let f =
        |seed| crate::common::values(&oxla_ir::Shape::new(oxla_ir::ElementType::F32, &[64]), seed);
    let i = crate::common::values(&oxla_ir::Shape::new(oxla_ir::ElementType::S64, &[64]), 9);
    check(&comp, &[f(7), f(8), i]);
}

#[test]
fn c128_arithmetic_without_fused_multiply_adds_is_bit_exact() {
    let n = 1 << 16;
    let text = format!(
        "HloModule m\nENTRY e {{\n  a = c128[{n}] parameter(0)\n  b = c128[{n}] parameter(1)\n  \
         s = c128[{n}] add(a, b)\n  d = c128[{n}] subtract(a, b)\n  g = c128[{n}] negate(d)\n  \
         eq = pred[{n}] compare(a, b), direction=NE\n  sel = c128[{n}] select(eq, s, g)\n  \
         f = c64[{n}] convert(sel)\n  ROOT out = (c128[{n}], c64[{n}]) tuple(sel, f)\n}}\n"
    );
    check(&parse(&text), &[c128s(n, 10), c128s(n, 11)]);
}

/// `n` `c128` values of the family `kind`: 0, random bit patterns (every
/// exponent, subnormals, infinities, NaN); 1, products that nearly cancel
/// in `a·b`'s parts (`im` a few ulps from `re`, so `re·re' - im·im'` loses
/// most bits); 2 and 3, ordinary values scaled so that products land near
/// the subnormals (2^-1022 to 2^-1080) or near overflow.
fn c128_family(n: usize, seed: u64, kind: u32) -> Literal {
    let mut r = mix(seed);
    let v: Vec<Complex128> = (0..n)
        .map(|_| {
            let (x, y) = (r(), r());
            match kind {
                0 => Complex128::new(f64::from_bits(x), f64::from_bits(y)),
                1 => {
                    let re = (x >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0;
                    let k = (y % 7) as i64 - 3;
                    Complex128::new(re, f64::from_bits((re.to_bits() as i64 + k) as u64))
                }
                _ => {
                    let scale = if kind == 2 {
                        2f64.powi(-505 - (y % 40) as i32)
                    } else {
                        2f64.powi(500 + (y % 24) as i32)
                    };
                    let re = ((x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale;
                    let im = ((y >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale;
                    Complex128::new(re, im)
                }
            }
        })
        .collect();
    Literal::from_array_data(&[n as i64], ArrayData::C128(v)).expect("literal")
}

#[test]
fn c128_products_quotients_and_magnitudes_are_bit_exact() {
    // The exact f64 fused multiply-add (integer arithmetic on the
    // significands) at every rounding: multiply, divide (Smith's
    // algorithm), abs and sign, on large arrays of every family.
    let n = 1 << 14;
    let text = format!(
        "HloModule m\nENTRY e {{\n  a = c128[{n}] parameter(0)\n  b = c128[{n}] parameter(1)\n  \
         p = c128[{n}] multiply(a, b)\n  q = c128[{n}] divide(a, b)\n  m = f64[{n}] abs(a)\n  \
         s = c128[{n}] sign(b)\n  \
         ROOT out = (c128[{n}], c128[{n}], f64[{n}], c128[{n}]) tuple(p, q, m, s)\n}}\n"
    );
    let comp = parse(&text);
    for kind in 0..4 {
        let a = c128_family(n, 100 + u64::from(kind), kind);
        let b = c128_family(n, 200 + u64::from(kind), kind);
        check(&comp, &[a.clone(), b.clone()]);
        // `a·conj(a)`-like pairs: each product's parts cancel exactly or
        // nearly.
        check(&comp, &[a.clone(), a]);
    }
    check(&comp, &[c128s(n, 300), c128s(n, 301)]);
    // Every pair of special values.
    let e = float_edges();
    let zs: Vec<Complex128> = e
        .iter()
        .flat_map(|&re| e.iter().map(move |&im| Complex128::new(re, im)))
        .collect();
    let m = zs.len();
    let a: Vec<Complex128> = (0..m * m).map(|k| zs[k / m]).collect();
    let b: Vec<Complex128> = (0..m * m).map(|k| zs[k % m]).collect();
    let k = (m * m) as i64;
    let text = text.replace(&format!("[{n}]"), &format!("[{k}]"));
    check(
        &parse(&text),
        &[
            Literal::from_array_data(&[k], ArrayData::C128(a)).expect("a"),
            Literal::from_array_data(&[k], ArrayData::C128(b)).expect("b"),
        ],
    );
}

#[test]
fn c128_dots_are_bit_exact() {
    let text = "HloModule m\nENTRY e {\n  a = c128[3,4,5] parameter(0)\n  b = c128[5,4,6] parameter(1)\n  \
        ROOT d = c128[3,6] dot(a, b), lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}\n}\n";
    let comp = parse(text);
    for kind in [0, 1, 2] {
        let a = c128_family(60, 400 + u64::from(kind), kind)
            .reshape(&[3, 4, 5])
            .expect("reshape");
        let b = c128_family(120, 500 + u64::from(kind), kind)
            .reshape(&[5, 4, 6])
            .expect("reshape");
        check(&comp, &[a, b]);
    }
}

#[test]
fn complex_data_movement_is_bit_exact() {
    let text = "HloModule m\nENTRY e {\n  a = c64[6,8] parameter(0)\n  i = s32[] parameter(1)\n  \
        t = c64[8,6] transpose(a), dimensions={1,0}\n  s = c64[3,8] slice(a), slice={[1:4], [0:8]}\n  \
        c = c64[9,8] concatenate(a, s), dimensions={0}\n  r = c64[9,8] reverse(c), dimensions={0,1}\n  \
        z = c64[] constant((1, -2))\n  p = c64[11,10] pad(r, z), padding=1_1x1_1\n  \
        b = c64[4,6,8] broadcast(a), dimensions={1,2}\n  h = c64[48] reshape(t)\n  \
        ds = c64[2,8] dynamic-slice(a, i, i), dynamic_slice_sizes={2,8}\n  \
        up = c64[6,8] dynamic-update-slice(a, ds, i, i)\n  \
        idx = s32[3,1] constant({{5},{0},{2}})\n  \
        g = c64[3,8] gather(a, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}\n  \
        ROOT out = (c64[11,10], c64[4,6,8], c64[48], c64[6,8], c64[3,8]) tuple(p, b, h, up, g)\n}\n";
    let comp = parse(text);
    let a = c64s(48, 12, false).reshape(&[6, 8]).expect("reshape");
    for i in [-3, 0, 2, 9] {
        check(&comp, &[a.clone(), Literal::scalar(i)]);
    }
}

#[test]
fn complex_sums_and_loop_state() {
    // A reduce over c64 with the complex add (a variadic reduce over the
    // parts), a while loop whose state holds a c64 array (z <- z * w + z,
    // three times), and a conditional returning a complex value.
    let text = "HloModule m\n\
        add {\n  x = c64[] parameter(0)\n  y = c64[] parameter(1)\n  ROOT s = c64[] add(x, y)\n}\n\
        cond {\n  st = (s32[], c64[16], c64[16]) parameter(0)\n  k = s32[] get-tuple-element(st), index=0\n  \
        three = s32[] constant(3)\n  ROOT lt = pred[] compare(k, three), direction=LT\n}\n\
        body {\n  st = (s32[], c64[16], c64[16]) parameter(0)\n  k = s32[] get-tuple-element(st), index=0\n  \
        z = c64[16] get-tuple-element(st), index=1\n  w = c64[16] get-tuple-element(st), index=2\n  \
        one = s32[] constant(1)\n  k1 = s32[] add(k, one)\n  zw = c64[16] multiply(z, w)\n  z1 = c64[16] add(zw, z)\n  \
        ROOT out = (s32[], c64[16], c64[16]) tuple(k1, z1, w)\n}\n\
        yes {\n  v = c64[16] parameter(0)\n  ROOT n = c64[16] negate(v)\n}\n\
        no {\n  v = c64[16] parameter(0)\n  ROOT m = c64[16] multiply(v, v)\n}\n\
        ENTRY e {\n  a = c64[16] parameter(0)\n  b = c64[16] parameter(1)\n  f = pred[] parameter(2)\n  \
        zero = s32[] constant(0)\n  init = (s32[], c64[16], c64[16]) tuple(zero, a, b)\n  \
        loop = (s32[], c64[16], c64[16]) while(init), condition=cond, body=body\n  \
        z = c64[16] get-tuple-element(loop), index=1\n  \
        c = c64[16] conditional(f, z, a), true_computation=yes, false_computation=no\n  \
        m = c64[4,4] reshape(c)\n  i = c64[] constant((0, 0))\n  \
        r = c64[4] reduce(m, i), dimensions={1}, to_apply=add\n  \
        ROOT out = (c64[16], c64[4]) tuple(c, r)\n}\n";
    let comp = parse(text);
    for flag in [true, false] {
        check(
            &comp,
            &[
                c64s(16, 13, false),
                c64s(16, 14, false),
                Literal::scalar(flag),
            ],
        );
    }
}

#[test]
fn a_complex_argument_is_checked_against_the_original_shape() {
    let comp = parse(
        "HloModule m\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT n = c64[4] negate(a)\n}\n",
    );
    let exe = oxla_jit::compile(&comp).expect("compiles");
    assert_eq!(
        exe.computation().parameter_shapes(),
        comp.parameter_shapes()
    );
    // The lowering's own parameter shape is not accepted.
    let wrong = Literal::from_vec(&[4, 2], vec![0f32; 8]).expect("literal");
    assert!(exe.run(&[&wrong]).is_err());
    let right = c64s(4, 15, false);
    let got = exe.run(&[&right]).expect("runs");
    assert_eq!(got.shape(), comp.result_shape());
}

/// `compile(text)` is refused as unsupported, naming `what`.
fn assert_refused(text: &str, what: &str) {
    match oxla_jit::compile(&parse(text)) {
        Err(Error::UnsupportedOp {
            backend,
            reason,
            op,
            ..
        }) => {
            assert_eq!(backend, "jit");
            assert!(
                reason.contains(what) || op.contains(what),
                "reason {reason:?} does not name {what:?}"
            );
        }
        Err(other) => panic!("expected UnsupportedOp for {what}, got {other}"),
        Ok(_) => panic!("the JIT compiled a module with {what}:\n{text}"),
    }
}

#[test]
fn what_the_lowering_does_not_cover_is_refused() {
    assert_refused(
        "HloModule m\nENTRY e {\n  a = c64[8] parameter(0)\n  ROOT f = c64[8] fft(a), fft_type=FFT, fft_length={8}\n}\n",
        "fft",
    );
    // The transcendentals whose formulas cancel (no ulp bound over the
    // JIT's real functions).
    assert_refused(
        "HloModule m\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT t = c64[4] tanh(a)\n}\n",
        "tanh",
    );
    // A tuple parameter holding a complex value.
    assert_refused(
        "HloModule m\nENTRY e {\n  a = (c64[4], f32[4]) parameter(0)\n  ROOT g = c64[4] get-tuple-element(a), index=0\n}\n",
        "tuple parameter",
    );
}

#[test]
fn complex_dots_and_signs_are_bit_exact() {
    // Batch and two contracting dims, listed out of order; a real
    // operand converted; `sign` of every kind of value.
    let text = "HloModule m\nENTRY e {\n  a = c64[2,3,4,5] parameter(0)\n  b = c64[2,5,4,6] parameter(1)\n  \
        v = c64[7,33] parameter(2)\n  w = c64[33] parameter(3)\n  \
        d = c64[2,3,6] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={3,2}, rhs_contracting_dims={1,2}\n  \
        mv = c64[7] dot(v, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
        s = c64[7,33] sign(v)\n  ROOT out = (c64[2,3,6], c64[7], c64[7,33]) tuple(d, mv, s)\n}\n";
    let comp = parse(text);
    let shaped = |seed, dims: &[i64], bits| {
        let n: i64 = dims.iter().product();
        c64s(n as usize, seed, bits).reshape(dims).expect("reshape")
    };
    for bits in [false, true] {
        check(
            &comp,
            &[
                shaped(20, &[2, 3, 4, 5], bits),
                shaped(21, &[2, 5, 4, 6], bits),
                shaped(22, &[7, 33], bits),
                shaped(23, &[33], bits),
            ],
        );
    }
}

/// The bound of `exp` of `c64` (docs/jit-accuracy.md): each part within
/// 5 ulps of the interpreter's (its real exp, cos and sin within an ulp,
/// three roundings of products).
const EXP_ULPS: u64 = 5;

#[test]
fn c64_exp_is_within_its_bound() {
    let n = 1 << 16;
    let text = format!(
        "HloModule m\nENTRY e {{\n  a = c64[{n}] parameter(0)\n  ROOT x = c64[{n}] exponential(a)\n}}\n"
    );
    let comp = parse(&text);
    let tol = crate::common::Tol::Ulps(EXP_ULPS);
    // Ordinary values with edge parts, and values near overflow (the
    // exp(x/2)^2 form).
    crate::common::check_tol(&comp, &[c64s(n, 30, false)], tol);
    let Some(ArrayData::C64(v)) = c64s(n, 31, false).array_data().cloned() else {
        panic!("c64")
    };
    let big: Vec<Complex64> = v
        .iter()
        .map(|z| Complex64::new(86.0 + z.re, z.im))
        .collect();
    let big = Literal::from_array_data(&[n as i64], ArrayData::C64(big)).expect("literal");
    crate::common::check_tol(&comp, &[big], tol);
    let (a, _) = c64_edge_pairs();
    let text = format!(
        "HloModule m\nENTRY e {{\n  a = c64[{k}] parameter(0)\n  ROOT x = c64[{k}] exponential(a)\n}}\n",
        k = a.element_count()
    );
    crate::common::check_tol(&parse(&text), &[a], tol);
}

/// The bound of `log` of `c64` and `c128` (docs/jit-accuracy.md): each
/// part within 4 ulps of the interpreter's (the imaginary part, `atan2`,
/// is exact; the real part is one `log1p` (2 ulps) of an exactly computed
/// sum, or `ln(max)` plus half a `log1p` whose cancellation is bounded).
const LOG_ULPS: u64 = 4;

#[test]
fn complex_log_rsqrt_and_c128_exp_are_within_their_bounds() {
    let n = 1 << 14;
    let unary = |ty: &str, op: &str, k: i64| {
        parse(&format!(
            "HloModule m\nENTRY e {{\n  a = {ty}[{k}] parameter(0)\n  ROOT x = {ty}[{k}] {op}(a)\n}}\n"
        ))
    };
    let log = crate::common::Tol::Ulps(LOG_ULPS);
    let exp = crate::common::Tol::Ulps(EXP_ULPS);
    // Ordinary values, values near the unit circle (the log1p branch)
    // and random bit patterns.
    let Some(ArrayData::C64(v)) = c64s(n, 50, false).array_data().cloned() else {
        panic!("c64")
    };
    let unit: Vec<Complex64> = v
        .iter()
        .map(|z| {
            let a = z.re;
            Complex64::new(a.cos() * (1.0 + z.im * 1e-3), a.sin())
        })
        .collect();
    let unit = Literal::from_array_data(&[n as i64], ArrayData::C64(unit)).expect("literal");
    for args in [c64s(n, 51, false), unit, c64s(n, 52, true)] {
        crate::common::check_tol(&unary("c64", "log", n as i64), &[args], log);
    }
    let (a, _) = c64_edge_pairs();
    let k = a.element_count();
    crate::common::check_tol(&unary("c64", "log", k as i64), &[a], log);
    for kind in 0..4 {
        let args = [c128_family(n, 600 + u64::from(kind), kind)];
        crate::common::check_tol(&unary("c128", "log", n as i64), &args, log);
    }
    let args = [c128s(n, 610)];
    crate::common::check_tol(&unary("c128", "log", n as i64), &args, log);
    crate::common::check_tol(&unary("c128", "exponential", n as i64), &args, exp);
    // rsqrt: the real cos and sin of an exact angle times an exact
    // magnitude.
    let rsqrt = crate::common::Tol::Ulps(RSQRT_ULPS);
    for args in [c64s(n, 53, false), c64s(n, 54, true)] {
        crate::common::check_tol(&unary("c64", "rsqrt", n as i64), &[args], rsqrt);
    }
    let (a, _) = c64_edge_pairs();
    crate::common::check_tol(&unary("c64", "rsqrt", k as i64), &[a], rsqrt);
    for kind in [0, 2, 3] {
        let args = [c128_family(n, 620 + u64::from(kind), kind)];
        crate::common::check_tol(&unary("c128", "rsqrt", n as i64), &args, rsqrt);
    }
}

/// The bound of `rsqrt` of `c64` and `c128`: each part is an exactly
/// computed magnitude times the JIT's `cos` or `sin` (1 ulp) of an exact
/// angle, rounded once.
const RSQRT_ULPS: u64 = 2;

#[test]
fn complex_sqrt_is_bit_exact() {
    // Only correctly rounded steps: c64 and c128 alike.
    let n = 1 << 16;
    for (ty, args) in [
        ("c64", vec![c64s(n, 40, false)]),
        ("c64", vec![c64s(n, 41, true)]),
        ("c128", vec![c128s(n, 42)]),
    ] {
        let text = format!(
            "HloModule m\nENTRY e {{\n  a = {ty}[{n}] parameter(0)\n  ROOT s = {ty}[{n}] sqrt(a)\n}}\n"
        );
        check(&parse(&text), &args);
    }
    let (a, _) = c64_edge_pairs();
    let k = a.element_count();
    let text = format!(
        "HloModule m\nENTRY e {{\n  a = c64[{k}] parameter(0)\n  ROOT s = c64[{k}] sqrt(a)\n}}\n"
    );
    check(&parse(&text), &[a]);
}
