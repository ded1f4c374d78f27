//! The narrow floats and sub-byte integers at every bit pattern: each
//! pattern against every other (the array and its reverse) through the
//! arithmetic ops, a transcendental and the conversions, on the JIT and
//! the interpreter, bit for bit (any two NaNs equal). `bf16` and `f16`
//! arrays of 65,536 elements also take the threaded path.

use oxla_ir::{ArrayData, ElementType, Literal, parse_hlo_module};

use crate::common::*;

/// Every bit pattern of `ty`, in order (one value per byte for the types
/// under 8 bits).
fn every_pattern(ty: ElementType) -> Literal {
    let n = 1usize << ty.bit_width();
    let size = ty.byte_size();
    let bytes: Vec<u8> = (0..n)
        .flat_map(|k| (k as u64).to_le_bytes()[..size].to_vec())
        .collect();
    let data = ArrayData::from_bytes(ty, &bytes, false).expect("patterns");
    Literal::from_array_data(&[n as i64], data).expect("literal")
}

fn run(ty: ElementType) {
    let name = ty.name();
    let n = 1usize << ty.bit_width();
    let float_ops = if ty.is_narrow_float() {
        format!(
            "  d = {name}[{n}] divide(x, y)\n  \
               e = {name}[{n}] exponential(x)\n  \
               l = {name}[{n}] logistic(y)\n  \
               s = {name}[{n}] sqrt(x)\n  \
               lt = pred[{n}] compare(x, y), direction=LT, type=TOTALORDER\n"
        )
    } else {
        format!(
            "  d = {name}[{n}] divide(x, y)\n  \
               e = {name}[{n}] shift-right-arithmetic(x, y)\n  \
               l = {name}[{n}] count-leading-zeros(y)\n  \
               s = {name}[{n}] popcnt(x)\n  \
               lt = pred[{n}] compare(x, y), direction=LT\n"
        )
    };
    let text = format!(
        "HloModule every_{name}\n\
         ENTRY e {{\n  \
           x = {name}[{n}] parameter(0)\n  \
           y = {name}[{n}] reverse(x), dimensions={{0}}\n  \
           a = {name}[{n}] add(x, y)\n  \
           m = {name}[{n}] multiply(x, y)\n  \
           mx = {name}[{n}] maximum(x, y)\n\
         {float_ops}  \
           f = f32[{n}] convert(x)\n  \
           h = f16[{n}] convert(x)\n  \
           i = s32[{n}] convert(x)\n  \
           ROOT t = ({name}[{n}], {name}[{n}], {name}[{n}], {name}[{n}], {name}[{n}], \
             {name}[{n}], {name}[{n}], pred[{n}], f32[{n}], f16[{n}], s32[{n}]) \
             tuple(a, m, mx, d, e, l, s, lt, f, h, i)\n\
         }}\n"
    );
    let comp = parse_hlo_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    check(&comp, &[every_pattern(ty)]);
}

#[test]
fn every_pattern_of_every_narrow_type_matches_the_interpreter() {
    for ty in ElementType::ALL {
        if ty.is_narrow_float() || (ty.is_integer() && ty.bit_width() < 8) {
            run(ty);
        }
    }
}

#[test]
fn conversions_into_the_narrow_floats_round_once_from_the_exact_value() {
    // f64 values at and around the ties of every narrow kind, and past
    // their ranges: the JIT rounds an f64 once, as the interpreter does
    // (f64 -> f32 -> bf16 would round twice).
    let mut vals = Vec::new();
    for e in -140..140 {
        let p = 2f64.powi(e);
        for m in [
            1.0,
            1.0078125,
            1.00390625,
            1.0039062500001,
            1.5,
            1.9999999,
            1.0 + 1e-12,
        ] {
            vals.push(p * m);
            vals.push(-p * m);
        }
    }
    vals.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e300]);
    let n = vals.len();
    for ty in ElementType::ALL.into_iter().filter(|t| t.is_narrow_float()) {
        let name = ty.name();
        let text = format!(
            "HloModule m\nENTRY e {{\n  x = f64[{n}] parameter(0)\n  \
             y = f32[{n}] convert(x)\n  a = {name}[{n}] convert(x)\n  b = {name}[{n}] convert(y)\n  \
             ROOT t = ({name}[{n}], {name}[{n}]) tuple(a, b)\n}}\n"
        );
        let comp = parse_hlo_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let x = Literal::from_vec(&[n as i64], vals.clone()).expect("literal");
        check(&comp, &[x]);
    }
}
