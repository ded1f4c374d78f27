//! Control flow, tuples and variadic reduces on the JIT: `while` and
//! `conditional` as native control flow around their bodies' kernels, the
//! loop state updated in place, tuple arguments and results, argmax-style
//! reduces at sizes that take the threaded and vectorised paths. Every
//! result is the interpreter's, bit for bit.

use oxla_ir::{Computation, ElementType, Literal, parse_hlo_module};

use crate::common::*;

fn module(text: &str) -> Computation {
    parse_hlo_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A scan-like loop over `n`-element vectors: `h = h * a + x[i]` for 64
/// steps (`|a| < 1`: `a` is scaled by 0.2 into the loop's state by a
/// fused init), a counter, and `a` and `x` passed through. The body's kernel
/// writes `h` over its state in place: nothing is copied per iteration.
fn scan(n: i64) -> Computation {
    module(&format!(
        r#"HloModule scan

cond {{
  p = (s32[], f32[{n}], f32[{n}], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  steps = s32[] constant(64)
  ROOT lt = pred[] compare(i, steps), direction=LT
}}

body {{
  p = (s32[], f32[{n}], f32[{n}], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[{n}] get-tuple-element(p), index=1
  a = f32[{n}] get-tuple-element(p), index=2
  xs = f32[64] get-tuple-element(p), index=3
  ha = f32[{n}] multiply(h, a)
  x = f32[1] slice(xs), slice={{[0:1]}}
  xr = f32[] reshape(x)
  xb = f32[{n}] broadcast(xr), dimensions={{}}
  ix = f32[] convert(i)
  ib = f32[{n}] broadcast(ix), dimensions={{}}
  xi = f32[{n}] add(xb, ib)
  h2 = f32[{n}] add(ha, xi)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[{n}], f32[{n}], f32[64]) tuple(i2, h2, a, xs)
}}

ENTRY e {{
  h0 = f32[{n}] parameter(0)
  a = f32[{n}] parameter(1)
  xs = f32[64] parameter(2)
  fifth = f32[] constant(0.2)
  fifths = f32[{n}] broadcast(fifth), dimensions={{}}
  a5 = f32[{n}] multiply(a, fifths)
  zero = s32[] constant(0)
  init = (s32[], f32[{n}], f32[{n}], f32[64]) tuple(zero, h0, a5, xs)
  w = (s32[], f32[{n}], f32[{n}], f32[64]) while(init), condition=cond, body=body
  ROOT h = f32[{n}] get-tuple-element(w), index=1
}}
"#
    ))
}

#[test]
fn a_scan_updates_its_state_in_place_and_matches_at_every_size() {
    for n in [1, 7, 1000, (1 << 16) + 3] {
        let comp = scan(n);
        let f = |dims: &[i64], seed| values(&sh(ElementType::F32, dims), seed);
        check(&comp, &[f(&[n], 1), f(&[n], 2), f(&[64], 3)]);
        let exe = oxla_jit::compile(&comp).expect("compile");
        let text = exe.fusion_text();
        assert!(
            text.contains("per iteration: no state copied"),
            "n = {n}: the loop copies state per iteration\n{text}"
        );
        assert!(text.contains("updated in place"), "n = {n}\n{text}");
    }
}

/// Leaves that swap places, a constant leaf and a repeated leaf must be
/// copied: the loop is still right.
#[test]
fn permuted_repeated_and_constant_leaves_are_copied() {
    let comp = module(
        r#"HloModule swap

cond {
  p = (s32[], f32[300], f32[300], f32[300]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(5)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  p = (s32[], f32[300], f32[300], f32[300]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[300] get-tuple-element(p), index=1
  b = f32[300] get-tuple-element(p), index=2
  c = f32[300] get-tuple-element(p), index=3
  s = f32[300] add(a, c)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[300], f32[300], f32[300]) tuple(i2, b, s, s)
}

ENTRY e {
  a = f32[300] parameter(0)
  b = f32[300] parameter(1)
  c = f32[300] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[300], f32[300], f32[300]) tuple(zero, a, b, c)
  ROOT w = (s32[], f32[300], f32[300], f32[300]) while(init), condition=cond, body=body
}
"#,
    );
    let f = |seed| values(&sh(ElementType::F32, &[300]), seed);
    check(&comp, &[f(1), f(2), f(3)]);
}

/// A loop that never runs, a loop over an empty array, and nested loops.
#[test]
fn zero_trip_empty_and_nested_loops() {
    let comp = module(
        r#"HloModule nested

inner_cond {
  p = (s32[], s32[4], s32[0]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(j, k), direction=LT
}

inner_body {
  p = (s32[], s32[4], s32[0]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  v = s32[4] get-tuple-element(p), index=1
  e = s32[0] get-tuple-element(p), index=2
  jb = s32[4] broadcast(j), dimensions={}
  v2 = s32[4] add(v, jb)
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  ROOT t = (s32[], s32[4], s32[0]) tuple(j2, v2, e)
}

outer_cond {
  p = (s32[], s32[4], s32[0]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

outer_body {
  p = (s32[], s32[4], s32[0]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = s32[4] get-tuple-element(p), index=1
  e = s32[0] get-tuple-element(p), index=2
  zero = s32[] constant(0)
  init = (s32[], s32[4], s32[0]) tuple(zero, v, e)
  w = (s32[], s32[4], s32[0]) while(init), condition=inner_cond, body=inner_body
  v2 = s32[4] get-tuple-element(w), index=1
  v3 = s32[4] multiply(v2, v2)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[4], s32[0]) tuple(i2, v3, e)
}

ENTRY e {
  start = s32[] parameter(0)
  v = s32[4] parameter(1)
  e = s32[0] parameter(2)
  init = (s32[], s32[4], s32[0]) tuple(start, v, e)
  ROOT w = (s32[], s32[4], s32[0]) while(init), condition=outer_cond, body=outer_body
}
"#,
    );
    let v = Literal::from_vec(&[4], vec![1i32, -2, 3, 100_000]).expect("literal");
    let e = Literal::from_vec(&[0], Vec::<i32>::new()).expect("literal");
    for start in [0i32, 3, 4, 1000] {
        let s = Literal::from_vec(&[], vec![start]).expect("literal");
        check(&comp, &[s, v.clone(), e.clone()]);
    }
}

/// An `s32` selector picks its branch; out of range (negative or past the
/// end, `INT_MIN` and `INT_MAX`) picks the last one. Branches read large
/// operands of their own and write the conditional's outputs directly.
#[test]
fn branches_of_an_s32_selector_with_large_operands() {
    let n = 1 << 16;
    let comp = module(&format!(
        r#"HloModule branches

b0 {{
  p = f32[{n}] parameter(0)
  ROOT r = f32[{n}] negate(p)
}}

b1 {{
  p = (f32[{n}], f32[{n}]) parameter(0)
  x = f32[{n}] get-tuple-element(p), index=0
  y = f32[{n}] get-tuple-element(p), index=1
  ROOT r = f32[{n}] multiply(x, y)
}}

b2 {{
  p = f32[{n}] parameter(0)
  ROOT r = f32[{n}] abs(p)
}}

ENTRY e {{
  k = s32[] parameter(0)
  x = f32[{n}] parameter(1)
  y = f32[{n}] parameter(2)
  xy = (f32[{n}], f32[{n}]) tuple(x, y)
  ROOT c = f32[{n}] conditional(k, x, xy, y), branch_computations={{b0, b1, b2}}
}}
"#
    ));
    let f = |seed| values(&sh(ElementType::F32, &[n]), seed);
    for k in [0, 1, 2, 3, -1, i32::MIN, i32::MAX] {
        let k = Literal::from_vec(&[], vec![k]).expect("literal");
        check(&comp, &[k, f(1), f(2)]);
    }
}

/// Argmax as JAX writes it (a variadic reduce of values and iotas, NaN
/// wins, ties go to the lower index) over rows long enough for the
/// vectorised and threaded paths, with NaNs and ties among the values.
#[test]
fn argmax_over_large_rows_with_nans_and_ties() {
    let comp = module(
        r#"HloModule argmax

argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  anan = pred[] compare(av, av), direction=NE
  pick_a = pred[] or(gt, anan)
  eq = pred[] compare(av, bv), direction=EQ
  lower = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lower)
  a_wins = pred[] or(pick_a, tie)
  v = f32[] select(a_wins, av, bv)
  i = s32[] select(a_wins, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

ENTRY e {
  x = f32[64,4099] parameter(0)
  iota = s32[64,4099] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[64], s32[64]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
  v = f32[64] get-tuple-element(r), index=0
  i = s32[64] get-tuple-element(r), index=1
  ROOT t = (s32[64], f32[64]) tuple(i, v)
}
"#,
    );
    let shape = sh(ElementType::F32, &[64, 4099]);
    // Edge values (NaN, infinities, signed zeros, repeats) and ordinary
    // values with ties (rounded to a coarse grid).
    check(&comp, &[edges(&shape, 0, 7)]);
    let coarse = values(&shape, 5);
    let data: Vec<f32> = match coarse.array_data() {
        Some(oxla_ir::ArrayData::F32(v)) => v.iter().map(|x| x.round()).collect(),
        _ => panic!("f32 values"),
    };
    check(
        &comp,
        &[Literal::from_vec(&[64, 4099], data).expect("literal")],
    );
}

/// Tuple arguments (nested, with a scalar and an empty leaf) pass through
/// `opt-barrier` and `get-tuple-element` to a tuple result.
#[test]
fn tuple_arguments_barriers_and_tuple_results() {
    let comp = module(
        r#"HloModule tuples

ENTRY e {
  p = (f32[3], (s32[], u8[0])) parameter(0)
  q = f32[3] parameter(1)
  b = (f32[3], (s32[], u8[0])) opt-barrier(p)
  x = f32[3] get-tuple-element(b), index=0
  inner = (s32[], u8[0]) get-tuple-element(b), index=1
  k = s32[] get-tuple-element(inner), index=0
  s = f32[3] add(x, q)
  ROOT t = ((s32[], u8[0]), f32[3], s32[], f32[3]) tuple(inner, s, k, x)
}
"#,
    );
    let x = Literal::from_vec(&[3], vec![1.5f32, -0.0, f32::NAN]).expect("literal");
    let k = Literal::from_vec(&[], vec![-7i32]).expect("literal");
    let e = Literal::from_vec(&[0], Vec::<u8>::new()).expect("literal");
    let p = Literal::tuple(vec![x, Literal::tuple(vec![k, e])]);
    let q = Literal::from_vec(&[3], vec![2.0f32, 0.0, 1.0]).expect("literal");
    check(&comp, &[p, q]);
}
