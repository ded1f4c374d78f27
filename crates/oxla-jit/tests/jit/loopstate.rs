//! Loop state updated in place by a loop group although a later member
//! reads the old value (dropout's threefry body): the group is one kernel
//! that loads every value of an element before it stores any, so nothing
//! is copied per iteration; and the corner cases that must still copy
//! (a member reading the old value at another element, a leaf that is
//! another leaf's old value). Every result is the interpreter's, bit for
//! bit.

use oxla_ir::{Computation, ElementType, parse_hlo_module};

use crate::common::*;

fn parse(text: &str) -> Computation {
    parse_hlo_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn fusion_text(comp: &Computation) -> String {
    oxla_jit::compile(comp)
        .expect("compile")
        .fusion_text()
        .to_string()
}

/// A loop of `trips` iterations over two `u32[rows, 64]` leaves whose
/// body is `body_ops` (defining `n1` and `n2`, the new leaves, from `x0`
/// and `x1`); the result is `(i, n1, n2)`.
fn state_loop(rows: i64, trips: i64, body_ops: &str) -> Computation {
    let s = format!("u32[{rows},64]{{1,0}}");
    parse(&format!(
        r#"HloModule state_loop
body {{
  p = (s32[], {s}, {s}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x0 = {s} get-tuple-element(p), index=1
  x1 = {s} get-tuple-element(p), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ib = u32[] convert(i1)
  ibb = {s} broadcast(ib), dimensions={{}}
  r = u32[] constant(13)
  l = u32[] constant(19)
  rb = {s} broadcast(r), dimensions={{}}
  lb = {s} broadcast(l), dimensions={{}}
{body_ops}
  ROOT t = (s32[], {s}, {s}) tuple(i1, n1, n2)
}}

cond {{
  p = (s32[], {s}, {s}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant({trips})
  ROOT lt = pred[] compare(i, n), direction=LT
}}

ENTRY e {{
  a = {s} parameter(0)
  b = {s} parameter(1)
  zero = s32[] constant(0)
  init = (s32[], {s}, {s}) tuple(zero, a, b)
  w = (s32[], {s}, {s}) while(init), condition=cond, body=body
  r0 = {s} get-tuple-element(w), index=1
  r1 = {s} get-tuple-element(w), index=2
  ROOT out = ({s}, {s}) tuple(r0, r1)
}}
"#
    ))
}

/// Threefry-like: `n1` is computed first, then `n2` recomputes the fused
/// sum `x0 + x1` (read by several members, cheap, so fused into each),
/// reading the old `x0` after `n1` is written.
const THREEFRY_LIKE: &str = r#"
  a0 = u32[ROWS,64]{1,0} add(x0, x1)
  s0 = u32[ROWS,64]{1,0} shift-left(x1, rb)
  t0 = u32[ROWS,64]{1,0} shift-right-logical(x1, lb)
  o0 = u32[ROWS,64]{1,0} or(s0, t0)
  y0 = u32[ROWS,64]{1,0} xor(a0, o0)
  s1 = u32[ROWS,64]{1,0} shift-left(y0, rb)
  t1 = u32[ROWS,64]{1,0} shift-right-logical(y0, lb)
  o1 = u32[ROWS,64]{1,0} or(s1, t1)
  y1 = u32[ROWS,64]{1,0} xor(y0, o1)
  n1 = u32[ROWS,64]{1,0} add(y1, ibb)
  s2 = u32[ROWS,64]{1,0} shift-left(y1, rb)
  t2 = u32[ROWS,64]{1,0} shift-right-logical(y1, lb)
  o2 = u32[ROWS,64]{1,0} or(s2, t2)
  y2 = u32[ROWS,64]{1,0} xor(a0, o2)
  n2 = u32[ROWS,64]{1,0} add(y2, n1)
"#;

fn body(template: &str, rows: i64) -> String {
    template.replace("ROWS", &rows.to_string())
}

fn check_loop(comp: &Computation, rows: i64) {
    let s = sh(ElementType::U32, &[rows, 64]);
    check(comp, &[values(&s, 3), values(&s, 4)]);
    check(comp, &[edges(&s, 0, 3), edges(&s, 1, 5)]);
}

#[test]
fn a_group_whose_later_member_reads_the_old_leaf_updates_both_in_place() {
    // Small (one thread) and large (threaded, vectorised).
    for (rows, trips) in [(1i64, 1i64), (3, 4), (1024, 5)] {
        let comp = state_loop(rows, trips, &body(THREEFRY_LIKE, rows));
        let text = fusion_text(&comp);
        assert!(text.contains("loop-group of"), "{text}");
        assert!(
            text.contains("per iteration: no state copied"),
            "rows = {rows}: a leaf is still copied per iteration\n{text}"
        );
        check_loop(&comp, rows);
    }
}

#[test]
fn leaves_swapped_by_the_body_are_exact() {
    // n1 is computed from the old x1 and n2 from the old x0 and n1: each
    // new leaf reads the other's old value.
    let ops = r#"
  s0 = u32[ROWS,64]{1,0} shift-left(x1, rb)
  t0 = u32[ROWS,64]{1,0} shift-right-logical(x1, lb)
  o0 = u32[ROWS,64]{1,0} or(s0, t0)
  a0 = u32[ROWS,64]{1,0} add(o0, x0)
  n1 = u32[ROWS,64]{1,0} xor(a0, ibb)
  s1 = u32[ROWS,64]{1,0} shift-left(x0, lb)
  y1 = u32[ROWS,64]{1,0} xor(s1, x1)
  n2 = u32[ROWS,64]{1,0} add(y1, n1)
"#;
    for (rows, trips) in [(2i64, 3i64), (1024, 4)] {
        let comp = state_loop(rows, trips, &body(ops, rows));
        check_loop(&comp, rows);
    }
    // A plain swap: each new leaf is the other's old value, copied.
    let swap = "  n1 = u32[ROWS,64]{1,0} add(x1, ibb)\n  n2 = u32[ROWS,64]{1,0} xor(x0, n1)\n";
    for (rows, trips) in [(2i64, 3i64), (1024, 4)] {
        let comp = state_loop(rows, trips, &body(swap, rows));
        check_loop(&comp, rows);
    }
}

#[test]
fn a_member_reading_the_old_leaf_at_another_element_keeps_the_copy() {
    // n2 reads x0 reversed: updating x0 in place would let it read
    // elements n1 already overwrote.
    let ops = r#"
  a0 = u32[ROWS,64]{1,0} add(x0, x1)
  n1 = u32[ROWS,64]{1,0} xor(a0, ibb)
  rx = u32[ROWS,64]{1,0} reverse(x0), dimensions={0,1}
  n2 = u32[ROWS,64]{1,0} add(rx, n1)
"#;
    for (rows, trips) in [(2i64, 3i64), (1024, 4)] {
        let comp = state_loop(rows, trips, &body(ops, rows));
        check_loop(&comp, rows);
    }
}

#[test]
fn a_leaf_that_is_another_leafs_old_value_keeps_the_copy() {
    // n2 is the old x0 itself (passed on to leaf 2), while n1 is computed
    // from it: leaf 1 must not be overwritten before the copy into leaf 2.
    let ops = r#"
  a0 = u32[ROWS,64]{1,0} add(x0, x1)
  y0 = u32[ROWS,64]{1,0} xor(a0, ibb)
  n1 = u32[ROWS,64]{1,0} add(y0, x0)
  n2 = u32[ROWS,64]{1,0} add(x0, rb)
"#;
    for (rows, trips) in [(2i64, 3i64), (1024, 4)] {
        let comp = state_loop(rows, trips, &body(ops, rows));
        check_loop(&comp, rows);
    }
}

#[test]
fn a_member_read_through_a_tuple_after_an_update_in_place_is_its_new_value() {
    // n1 updates leaf 1 in place; n2 reads n1 through a tuple element (the
    // shape an inlined call leaves), which must be n1's new value, not the
    // state's old one.
    let ops = r#"
  a0 = u32[ROWS,64]{1,0} add(x0, x1)
  n1 = u32[ROWS,64]{1,0} xor(a0, ibb)
  tp = (u32[ROWS,64]{1,0}, u32[ROWS,64]{1,0}) tuple(n1, x1)
  g1 = u32[ROWS,64]{1,0} get-tuple-element(tp), index=0
  y1 = u32[ROWS,64]{1,0} shift-left(g1, rb)
  n2 = u32[ROWS,64]{1,0} add(y1, x1)
"#;
    for (rows, trips) in [(2i64, 3i64), (1024, 4)] {
        let comp = state_loop(rows, trips, &body(ops, rows));
        check_loop(&comp, rows);
    }
}
