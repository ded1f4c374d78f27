//! `dynamic-update-slice` of an argument (a KV cache's decode step): the
//! copy of the operand runs just before the first step that reads it
//! (`fusion::ops::sink_update_copies`), and the results are the
//! interpreter's at every offset, clamped ones included.

use oxla_ir::{Computation, ElementType, Literal, parse_hlo_module};

use crate::common::*;

/// A decode step over caches of `[b, h, s, d]`: both caches updated at
/// `pos`, the (scaled) attention scores, an elementwise step, and the
/// weighted values. The caches are exact data movement; the products
/// are sums in the GEMM's order, within `Tol::Abs(1e-3)` at these
/// magnitudes.
fn decode(b: i64, h: i64, s: i64, d: i64) -> Computation {
    let c = format!("f32[{b},{h},{s},{d}]");
    let u = format!("f32[{b},{h},1,{d}]");
    let text = format!(
        r#"HloModule decode
ENTRY e {{
  ck = {c} parameter(0)
  cv = {c} parameter(1)
  nk = {u} parameter(2)
  nv = {u} parameter(3)
  q = f32[{b},{h},{d}] parameter(4)
  pos = s32[] parameter(5)
  z = s32[] constant(0)
  dk = {c} dynamic-update-slice(ck, nk, z, z, pos, z)
  dv = {c} dynamic-update-slice(cv, nv, z, z, pos, z)
  hundredth = f32[] constant(0.01)
  hb = f32[{b},{h},{d}] broadcast(hundredth), dimensions={{}}
  qs = f32[{b},{h},{d}] multiply(q, hb)
  sc = f32[{b},{h},{s}] dot(qs, dk), lhs_batch_dims={{0,1}}, lhs_contracting_dims={{2}}, rhs_batch_dims={{0,1}}, rhs_contracting_dims={{3}}
  e = f32[{b},{h},{s}] negate(sc)
  o = f32[{b},{h},{d}] dot(e, dv), lhs_batch_dims={{0,1}}, lhs_contracting_dims={{2}}, rhs_batch_dims={{0,1}}, rhs_contracting_dims={{2}}
  ROOT t = ({c}, {c}, f32[{b},{h},{d}]) tuple(dk, dv, o)
}}
"#
    );
    parse_hlo_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn a_cache_update_copies_next_to_its_reader_and_matches_at_every_offset() {
    for (b, h, s, d) in [(1i64, 1i64, 4i64, 3i64), (2, 3, 64, 16), (4, 12, 256, 64)] {
        let comp = decode(b, h, s, d);
        let text = oxla_jit::compile(&comp)
            .expect("compile")
            .fusion_text()
            .to_string();
        // The value cache's copy comes after the key product, right
        // before the product that reads it.
        let at = |what: &str| {
            text.find(what)
                .unwrap_or_else(|| panic!("no `{what}` in\n{text}"))
        };
        assert!(at("root=dv") > at("root=dk"), "{text}");
        let cache = sh(ElementType::F32, &[b, h, s, d]);
        let upd = sh(ElementType::F32, &[b, h, 1, d]);
        let q = sh(ElementType::F32, &[b, h, d]);
        // In range, at both ends, and clamped from below and above.
        for pos in [0i32, 1, (s - 1) as i32, s as i32, -3, i32::MAX, i32::MIN] {
            let args = [
                values(&cache, 1),
                values(&cache, 2),
                values(&upd, 3),
                values(&upd, 4),
                values(&q, 5),
                Literal::scalar(pos),
            ];
            check_tol(&comp, &args, Tol::Abs(1e-3));
        }
    }
}
