//! Loop groups: consecutive elementwise loop steps over one shape run as
//! one kernel (threefry's rounds in a loop body), bit for bit the
//! interpreter's; and the cases that must stay separate kernels (a member
//! read at another element, a member whose buffer has another name).

use oxla_ir::{Computation, ElementType, Literal, parse_hlo_module};

use crate::common::*;

fn parse(text: &str) -> Computation {
    parse_hlo_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn fusion(comp: &Computation) -> (usize, String) {
    let exe = oxla_jit::compile(comp).expect("compile");
    (exe.kernel_count(), exe.fusion_text().to_string())
}

/// Two threefry-like rounds over a u32 state of `n` elements: every
/// round's rotation and xor is read twice (so materialised), the results
/// are two leaves.
fn rounds(n: i64) -> Computation {
    parse(&format!(
        r#"HloModule rounds
ENTRY e {{
  x0 = u32[{n}]{{0}} parameter(0)
  x1 = u32[{n}]{{0}} parameter(1)
  r = u32[] constant(13)
  l = u32[] constant(19)
  rb = u32[{n}]{{0}} broadcast(r), dimensions={{}}
  lb = u32[{n}]{{0}} broadcast(l), dimensions={{}}
  a0 = u32[{n}]{{0}} add(x0, x1)
  s0 = u32[{n}]{{0}} shift-left(x1, rb)
  t0 = u32[{n}]{{0}} shift-right-logical(x1, lb)
  o0 = u32[{n}]{{0}} or(s0, t0)
  y0 = u32[{n}]{{0}} xor(a0, o0)
  a1 = u32[{n}]{{0}} add(a0, y0)
  s1 = u32[{n}]{{0}} shift-left(y0, rb)
  t1 = u32[{n}]{{0}} shift-right-logical(y0, lb)
  o1 = u32[{n}]{{0}} or(s1, t1)
  y1 = u32[{n}]{{0}} xor(a1, o1)
  a2 = u32[{n}]{{0}} add(a1, y1)
  s2 = u32[{n}]{{0}} shift-left(y1, rb)
  t2 = u32[{n}]{{0}} shift-right-logical(y1, lb)
  o2 = u32[{n}]{{0}} or(s2, t2)
  y2 = u32[{n}]{{0}} xor(a2, o2)
  ROOT t = (u32[{n}]{{0}}, u32[{n}]{{0}}) tuple(a2, y2)
}}
"#
    ))
}

#[test]
fn threefry_rounds_are_one_kernel() {
    // Small, one thread; large, split across the pool and vectorised.
    for n in [5i64, 64, 1 << 18] {
        let comp = rounds(n);
        let (k, text) = fusion(&comp);
        assert_eq!(k, 1, "{text}");
        assert!(text.contains("loop-group of"), "{text}");
        let s = sh(ElementType::U32, &[n]);
        check(&comp, &[values(&s, 1), values(&s, 2)]);
        check(&comp, &[edges(&s, 0, 3), edges(&s, 1, 5)]);
    }
}

/// A loop body of threefry rounds over a [rows, 4096] state for `trips`
/// iterations: both state leaves are computed by one loop group.
fn threefry_loop(rows: i64, trips: i64) -> Computation {
    parse(&format!(
        r#"HloModule threefry_loop
body {{
  p = (s32[], u32[{rows},64]{{1,0}}, u32[{rows},64]{{1,0}}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x0 = u32[{rows},64]{{1,0}} get-tuple-element(p), index=1
  x1 = u32[{rows},64]{{1,0}} get-tuple-element(p), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  r = u32[] constant(13)
  l = u32[] constant(19)
  rb = u32[{rows},64]{{1,0}} broadcast(r), dimensions={{}}
  lb = u32[{rows},64]{{1,0}} broadcast(l), dimensions={{}}
  a0 = u32[{rows},64]{{1,0}} add(x0, x1)
  s0 = u32[{rows},64]{{1,0}} shift-left(x1, rb)
  t0 = u32[{rows},64]{{1,0}} shift-right-logical(x1, lb)
  o0 = u32[{rows},64]{{1,0}} or(s0, t0)
  y0 = u32[{rows},64]{{1,0}} xor(a0, o0)
  a1 = u32[{rows},64]{{1,0}} add(a0, y0)
  s1 = u32[{rows},64]{{1,0}} shift-left(y0, rb)
  t1 = u32[{rows},64]{{1,0}} shift-right-logical(y0, lb)
  o1 = u32[{rows},64]{{1,0}} or(s1, t1)
  y1 = u32[{rows},64]{{1,0}} xor(a1, o1)
  a2 = u32[{rows},64]{{1,0}} add(a1, y1)
  s2 = u32[{rows},64]{{1,0}} shift-left(y1, rb)
  t2 = u32[{rows},64]{{1,0}} shift-right-logical(y1, lb)
  o2 = u32[{rows},64]{{1,0}} or(s2, t2)
  y2 = u32[{rows},64]{{1,0}} xor(a2, o2)
  ib = u32[] convert(i1)
  ibb = u32[{rows},64]{{1,0}} broadcast(ib), dimensions={{}}
  z1 = u32[{rows},64]{{1,0}} add(y2, ibb)
  ROOT t = (s32[], u32[{rows},64]{{1,0}}, u32[{rows},64]{{1,0}}) tuple(i1, a2, z1)
}}

cond {{
  p = (s32[], u32[{rows},64]{{1,0}}, u32[{rows},64]{{1,0}}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant({trips})
  ROOT lt = pred[] compare(i, n), direction=LT
}}

ENTRY e {{
  a = u32[{rows},64]{{1,0}} parameter(0)
  b = u32[{rows},64]{{1,0}} parameter(1)
  zero = s32[] constant(0)
  init = (s32[], u32[{rows},64]{{1,0}}, u32[{rows},64]{{1,0}}) tuple(zero, a, b)
  w = (s32[], u32[{rows},64]{{1,0}}, u32[{rows},64]{{1,0}}) while(init), condition=cond, body=body
  r0 = u32[{rows},64]{{1,0}} get-tuple-element(w), index=1
  r1 = u32[{rows},64]{{1,0}} get-tuple-element(w), index=2
  ROOT out = (u32[{rows},64]{{1,0}}, u32[{rows},64]{{1,0}}) tuple(r0, r1)
}}
"#
    ))
}

#[test]
fn loop_bodies_of_rounds_are_one_kernel_per_iteration() {
    for (rows, trips) in [(3i64, 1i64), (2, 5), (512, 5)] {
        let comp = threefry_loop(rows, trips);
        let (_, text) = fusion(&comp);
        assert!(text.contains("loop-group of"), "{text}");
        // The second leaf is updated in place by the group.
        assert!(text.contains("updated in place"), "{text}");
        let s = sh(ElementType::U32, &[rows, 64]);
        check(&comp, &[values(&s, 3), values(&s, 4)]);
    }
}

#[test]
fn a_member_read_at_another_element_ends_the_group() {
    // `b` reads `a` reversed: as one kernel it would recompute `a` at
    // another element, so the steps stay separate.
    let comp = parse(
        r#"HloModule rev
ENTRY e {
  x = f32[64]{0} parameter(0)
  three = f32[] constant(3)
  tb = f32[64]{0} broadcast(three), dimensions={}
  s = f32[64]{0} add(x, tb)
  a = f32[64]{0} divide(x, s)
  ra = f32[64]{0} reverse(a), dimensions={0}
  b = f32[64]{0} multiply(ra, a)
  ROOT t = (f32[64]{0}, f32[64]{0}) tuple(a, b)
}
"#,
    );
    let (k, text) = fusion(&comp);
    assert!(!text.contains("loop-group"), "{text}");
    assert_eq!(k, 2, "{text}");
    let s = sh(ElementType::F32, &[64]);
    check(&comp, &[values(&s, 5)]);
}

#[test]
fn groups_of_float_members_match_the_interpreter() {
    // A costly shared value (a chain of divisions, exact in IEEE
    // arithmetic, read by three later values) over a [33, 130] shape: one
    // kernel, merged into one loop.
    let comp = parse(
        r#"HloModule floats
ENTRY e {
  x = f32[33,130]{1,0} parameter(0)
  y = f32[33,130]{1,0} parameter(1)
  a = f32[33,130]{1,0} divide(x, y)
  s = f32[33,130]{1,0} add(a, y)
  b = f32[33,130]{1,0} divide(a, s)
  d = f32[33,130]{1,0} subtract(b, x)
  c = f32[33,130]{1,0} divide(b, d)
  e = f32[33,130]{1,0} multiply(c, x)
  f = f32[33,130]{1,0} divide(e, c)
  g = f32[33,130]{1,0} subtract(c, f)
  ROOT t = (f32[33,130]{1,0}, f32[33,130]{1,0}) tuple(g, e)
}
"#,
    );
    let (k, text) = fusion(&comp);
    assert_eq!(k, 1, "{text}");
    let s = sh(ElementType::F32, &[33, 130]);
    check(&comp, &[values(&s, 6), values(&s, 7)]);
    check(&comp, &[edges(&s, 0, 7), edges(&s, 3, 2)]);
}

#[test]
fn random_inputs_of_rounds_stay_exact() {
    let comp = rounds(4099);
    let s = sh(ElementType::U32, &[4099]);
    for seed in 0..4u64 {
        let args: Vec<Literal> = vec![values(&s, 10 + seed), values(&s, 20 + seed)];
        check(&comp, &args);
    }
}
