//! The `check` helpers: run a computation through the JIT and through the
//! interpreter and compare.
//!
//! Comparison rule: integers and `pred` bit for bit; floats bit for bit
//! (so `-0` differs from `+0`) except that any two NaNs are equal (NaN
//! payloads and signs are not part of the contract), within `ulps` units
//! in the last place when a tolerance is asked for (transcendentals), or
//! within an absolute bound (reassociated float sums).

use oxla_ir::{
    ArrayData, Builder, Computation, ElementType, Float4E2M1FN, Float8E3M4, Float8E4M3,
    Float8E4M3B11FNUZ, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU,
    Int1, Int2, Int4, Literal, RealFloat, Shape, SubByteInt, Uint1, Uint2, Uint4, bf16, f16,
};

/// How close the JIT must be to the interpreter.
#[derive(Clone, Copy, Debug)]
pub enum Tol {
    /// Bit for bit (NaN == NaN).
    Exact,
    /// Floats within this many ulps (NaN == NaN, infinities exact).
    Ulps(u64),
    /// Floats within this absolute distance (NaN == NaN).
    Abs(f64),
}

fn ordered32(x: f32) -> i64 {
    let b = x.to_bits() as i32;
    (if b < 0 { i32::MIN - b } else { b }) as i64
}

fn ordered64(x: f64) -> i128 {
    let b = x.to_bits() as i64;
    (if b < 0 { i64::MIN - b } else { b }) as i128
}

fn close32(a: f32, b: f32, tol: Tol) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    match tol {
        Tol::Exact => a.to_bits() == b.to_bits(),
        Tol::Ulps(u) => {
            if a.is_infinite() || b.is_infinite() {
                return a == b;
            }
            (ordered32(a) - ordered32(b)).unsigned_abs() <= u
        }
        Tol::Abs(d) => a == b || ((a as f64) - (b as f64)).abs() <= d,
    }
}

fn close64(a: f64, b: f64, tol: Tol) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    match tol {
        Tol::Exact => a.to_bits() == b.to_bits(),
        Tol::Ulps(u) => {
            if a.is_infinite() || b.is_infinite() {
                return a == b;
            }
            (ordered64(a) - ordered64(b)).unsigned_abs() <= u as u128
        }
        Tol::Abs(d) => a == b || (a - b).abs() <= d,
    }
}

/// The first element where `got` and `want` differ, described.
pub fn difference(got: &Literal, want: &Literal, tol: Tol) -> Option<String> {
    if got.shape() != want.shape() {
        return Some(format!("shape {} != {}", got.shape(), want.shape()));
    }
    if let (Some(g), Some(w)) = (got.tuple_elements(), want.tuple_elements()) {
        for (i, (a, b)) in g.iter().zip(w).enumerate() {
            if let Some(d) = difference(a, b, tol) {
                return Some(format!("tuple element {i}: {d}"));
            }
        }
        return None;
    }
    let (Some(g), Some(w)) = (got.array_data(), want.array_data()) else {
        return Some("array vs tuple".into());
    };
    // Narrow floats and sub-byte integers: bit for bit (the JIT calls the
    // interpreter's own routines, transcendentals included), any two NaNs
    // equal.
    let ty = g.element_type();
    if ty == w.element_type() && (ty.is_narrow_float() || (ty.is_integer() && ty.bit_width() < 8)) {
        let (gb, wb) = (g.to_le_bytes(), w.to_le_bytes());
        let size = ty.byte_size();
        for i in 0..g.len().min(w.len()) {
            let (x, y) = (g.format_value(i), w.format_value(i));
            let nans = x.contains("nan") && y.contains("nan");
            if !nans && gb[i * size..(i + 1) * size] != wb[i * size..(i + 1) * size] {
                return Some(format!("element {i}: jit {x} != interpreter {y}"));
            }
        }
        return None;
    }
    macro_rules! cmp {
        ($a:expr, $b:expr, $eq:expr) => {{
            for (i, (x, y)) in $a.iter().zip($b.iter()).enumerate() {
                if !$eq(*x, *y) {
                    return Some(format!("element {i}: jit {x:?} != interpreter {y:?}"));
                }
            }
            None
        }};
    }
    match (g, w) {
        (ArrayData::F32(a), ArrayData::F32(b)) => cmp!(a, b, |x, y| close32(x, y, tol)),
        (ArrayData::F64(a), ArrayData::F64(b)) => cmp!(a, b, |x, y| close64(x, y, tol)),
        (ArrayData::C64(a), ArrayData::C64(b)) => {
            cmp!(a, b, |x: oxla_ir::Complex64, y: oxla_ir::Complex64| {
                close32(x.re, y.re, tol) && close32(x.im, y.im, tol)
            })
        }
        (ArrayData::C128(a), ArrayData::C128(b)) => {
            cmp!(a, b, |x: oxla_ir::Complex128, y: oxla_ir::Complex128| {
                close64(x.re, y.re, tol) && close64(x.im, y.im, tol)
            })
        }
        (ArrayData::Pred(a), ArrayData::Pred(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::S8(a), ArrayData::S8(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::S16(a), ArrayData::S16(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::S32(a), ArrayData::S32(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::S64(a), ArrayData::S64(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::U8(a), ArrayData::U8(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::U16(a), ArrayData::U16(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::U32(a), ArrayData::U32(b)) => cmp!(a, b, |x, y| x == y),
        (ArrayData::U64(a), ArrayData::U64(b)) => cmp!(a, b, |x, y| x == y),
        _ => Some("element types differ".into()),
    }
}

/// Runs `comp` on `args` through both backends and panics with the HLO,
/// the arguments and the first difference if they disagree beyond `tol`.
/// Also checks `run_into` (into a zeroed literal of the result's shape).
pub fn check_tol(comp: &Computation, args: &[Literal], tol: Tol) {
    let refs: Vec<&Literal> = args.iter().collect();
    let want = oxla_interp::evaluate(comp, &refs)
        .unwrap_or_else(|e| panic!("interpreter failed: {e}\n{comp}"));
    let exe = oxla_jit::compile(comp).unwrap_or_else(|e| panic!("compile failed: {e}\n{comp}"));
    let got = exe
        .run(&refs)
        .unwrap_or_else(|e| panic!("run failed: {e}\n{comp}"));
    if let Some(d) = difference(&got, &want, tol) {
        let mut s = format!("JIT != interpreter: {d}\n{comp}\n");
        for (i, a) in args.iter().enumerate() {
            s.push_str(&format!("arg {i}: {}\n", a.to_string_elided(64)));
        }
        s.push_str(&format!(
            "jit: {}\nwant: {}\n",
            got.to_string_elided(64),
            want.to_string_elided(64)
        ));
        s.push_str(exe.fusion_text());
        panic!("{s}");
    }
    let mut out = Literal::zeros(want.shape()).expect("zeros");
    exe.run_into(&refs, &mut out)
        .unwrap_or_else(|e| panic!("run_into failed: {e}\n{comp}"));
    if let Some(d) = difference(&out, &want, tol) {
        panic!("run_into != interpreter: {d}\n{comp}");
    }
}

/// [`check_tol`] bit for bit.
pub fn check(comp: &Computation, args: &[Literal]) {
    check_tol(comp, args, Tol::Exact)
}

/// Edge values of each element type, as `f64`/`i128` to be cast.
pub fn float_edges() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.75,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e30,
        -1e-30,
        2.5e-39,
        123.456,
        -7.0,
        1e10,
        0.1,
    ]
}

pub fn int_edges(ty: ElementType) -> Vec<i128> {
    let bits = ty.bit_width();
    let (min, max): (i128, i128) = if ty.is_signed_integer() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else if ty.is_pred() {
        (0, 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let mut v: Vec<i128> = vec![
        0,
        1,
        -1,
        min,
        max,
        2,
        3,
        -7,
        7,
        31,
        32,
        33,
        63,
        64,
        65,
        100,
        min + 1,
        max - 1,
    ];
    if ty.is_pred() {
        v = vec![0, 1];
    }
    v.into_iter().map(|x| wrap(x, ty)).collect()
}

/// `x` wrapped into `ty`'s range.
pub fn wrap(x: i128, ty: ElementType) -> i128 {
    if ty.is_pred() {
        return (x & 1 != 0) as i128;
    }
    let bits = ty.bit_width();
    let m = x.rem_euclid(1i128 << bits);
    if ty.is_signed_integer() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// A literal of `shape` whose element `i` is `f(i)` (as f64 or i128).
pub fn literal_from(
    shape: &Shape,
    fl: impl Fn(usize) -> f64,
    it: impl Fn(usize) -> i128,
) -> Literal {
    let n = shape.element_count() as usize;
    let dims = shape.dims();
    let ty = shape.element_type();
    let i = |k: usize| wrap(it(k), ty);
    let data: ArrayData = match ty {
        ElementType::Pred => (0..n).map(|k| i(k) != 0).collect::<Vec<_>>().into(),
        ElementType::S8 => (0..n).map(|k| i(k) as i8).collect::<Vec<_>>().into(),
        ElementType::S16 => (0..n).map(|k| i(k) as i16).collect::<Vec<_>>().into(),
        ElementType::S32 => (0..n).map(|k| i(k) as i32).collect::<Vec<_>>().into(),
        ElementType::S64 => (0..n).map(|k| i(k) as i64).collect::<Vec<_>>().into(),
        ElementType::U8 => (0..n).map(|k| i(k) as u8).collect::<Vec<_>>().into(),
        ElementType::U16 => (0..n).map(|k| i(k) as u16).collect::<Vec<_>>().into(),
        ElementType::U32 => (0..n).map(|k| i(k) as u32).collect::<Vec<_>>().into(),
        ElementType::U64 => (0..n).map(|k| i(k) as u64).collect::<Vec<_>>().into(),
        ElementType::F32 => (0..n).map(|k| fl(k) as f32).collect::<Vec<_>>().into(),
        ElementType::F64 => (0..n).map(fl).collect::<Vec<_>>().into(),
        ElementType::Tuple | ElementType::Token => panic!("no tuple literals here"),
        ElementType::S1 => sub_byte::<Int1>(n, i),
        ElementType::S2 => sub_byte::<Int2>(n, i),
        ElementType::S4 => sub_byte::<Int4>(n, i),
        ElementType::U1 => sub_byte::<Uint1>(n, i),
        ElementType::U2 => sub_byte::<Uint2>(n, i),
        ElementType::U4 => sub_byte::<Uint4>(n, i),
        ElementType::F4E2M1FN => narrow::<Float4E2M1FN>(n, &fl),
        ElementType::F8E3M4 => narrow::<Float8E3M4>(n, &fl),
        ElementType::F8E4M3 => narrow::<Float8E4M3>(n, &fl),
        ElementType::F8E4M3FN => narrow::<Float8E4M3FN>(n, &fl),
        ElementType::F8E4M3FNUZ => narrow::<Float8E4M3FNUZ>(n, &fl),
        ElementType::F8E4M3B11FNUZ => narrow::<Float8E4M3B11FNUZ>(n, &fl),
        ElementType::F8E5M2 => narrow::<Float8E5M2>(n, &fl),
        ElementType::F8E5M2FNUZ => narrow::<Float8E5M2FNUZ>(n, &fl),
        ElementType::F8E8M0FNU => narrow::<Float8E8M0FNU>(n, &fl),
        ElementType::Bf16 => narrow::<bf16>(n, &fl),
        ElementType::F16 => narrow::<f16>(n, &fl),
        // The JIT refuses these (tests/jit/types.rs); no test runs them.
        ElementType::C64 | ElementType::C128 => {
            panic!("no {ty} literals here: the JIT does not compile {ty}")
        }
    };
    Literal::from_array_data(dims, data).expect("literal")
}

/// `n` narrow floats `fl(k)`, each rounded once to `T`.
fn narrow<T: RealFloat>(n: usize, fl: &impl Fn(usize) -> f64) -> ArrayData
where
    ArrayData: From<Vec<T>>,
{
    (0..n)
        .map(|k| T::from_f64(fl(k)))
        .collect::<Vec<_>>()
        .into()
}

/// `n` sub-byte integers `i(k)` (already in range).
fn sub_byte<T: SubByteInt>(n: usize, i: impl Fn(usize) -> i128) -> ArrayData
where
    ArrayData: From<Vec<T>>,
{
    (0..n)
        .map(|k| T::wrapping_from(i(k) as i64))
        .collect::<Vec<_>>()
        .into()
}

/// A literal cycling through the edge values of its type, starting at
/// `phase` and stepping by `step` (coprime steps visit every value).
pub fn edges(shape: &Shape, phase: usize, step: usize) -> Literal {
    let ty = shape.element_type();
    let fe = float_edges();
    let ie = int_edges(ty);
    literal_from(
        shape,
        |k| fe[(phase + k * step) % fe.len()],
        |k| ie[(phase + k * step) % ie.len()],
    )
}

/// Pseudo-random ordinary values (no NaN): floats in [-4, 4), integers
/// over the whole range.
pub fn values(shape: &Shape, seed: u64) -> Literal {
    let h = move |k: usize| {
        let mut x = (k as u64)
            .wrapping_add(seed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^ (x >> 32)
    };
    literal_from(
        shape,
        |k| ((h(k) >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0,
        |k| h(k) as i64 as i128,
    )
}

/// All pairs of edge values: `(lhs, rhs)` of shape `[n*n]`.
pub fn edge_pairs(ty: ElementType) -> (Literal, Literal) {
    let fe = float_edges();
    let ie = int_edges(ty);
    let n = if ty.is_float() { fe.len() } else { ie.len() };
    let shape = Shape::new(ty, &[(n * n) as i64]);
    let a = literal_from(
        &shape,
        |k| fe[(k / n) % fe.len()],
        |k| ie[(k / n) % ie.len()],
    );
    let b = literal_from(
        &shape,
        |k| fe[(k % n) % fe.len()],
        |k| ie[(k % n) % ie.len()],
    );
    (a, b)
}

/// A builder with parameters of `shapes` named p0, p1, ...
pub fn builder(name: &str, shapes: &[Shape]) -> (Builder, Vec<oxla_ir::Op>) {
    let mut b = Builder::new(name);
    let ps = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            b.parameter(i as i64, s.clone(), &format!("p{i}"))
                .expect("parameter")
        })
        .collect();
    (b, ps)
}

pub fn sh(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::new(ty, dims)
}

/// The element types the JIT compiles (the others it refuses:
/// tests/jit/types.rs).
pub fn jit_types() -> Vec<ElementType> {
    ElementType::ALL
        .into_iter()
        .filter(|&t| oxla_jit::supports_element_type(t))
        .collect()
}
