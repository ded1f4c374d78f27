//! What the JIT does not compile of issue 13's types is refused, never
//! compiled wrongly: the complex ops the complex lowering does not cover
//! (`fft`, most transcendentals) give `Error::UnsupportedOp` from
//! `compile`; `topk` and `reduce-precision` of the narrow floats and
//! sub-byte integers compile as expansions (`oxla_ir::passes::narrow`).
//! The narrow floats and sub-byte integers themselves
//! compile (`narrow.rs` checks them against the interpreter), their dots
//! and convolutions too (`narrow_dot.rs`).

use oxla_ir::{ElementType, Error, parse_hlo_module};

/// `compile(text)` is refused as unsupported, naming `what`.
fn assert_refused(text: &str, what: &str) {
    let comp = match parse_hlo_module(text) {
        Ok(c) => c,
        Err(e) => panic!("the module does not parse: {e}\n{text}"),
    };
    match oxla_jit::compile(&comp) {
        Err(Error::UnsupportedOp {
            backend, reason, ..
        }) => {
            assert_eq!(backend, "jit");
            assert!(
                reason.contains(what),
                "reason {reason:?} does not name {what:?}"
            );
        }
        Err(other) => panic!("expected UnsupportedOp for {what}, got {other}"),
        Ok(_) => panic!("the JIT compiled a module with {what}:\n{text}"),
    }
}

/// The types [`oxla_jit::supports_element_type`] leaves out: the complex
/// types, which compile through the complex lowering for the ops it
/// covers (tests/jit/complex.rs) rather than every op.
fn partly_supported_types() -> Vec<ElementType> {
    ElementType::ALL
        .into_iter()
        .filter(|&t| !t.is_tuple() && !oxla_jit::supports_element_type(t))
        .collect()
}

#[test]
fn only_the_complex_types_are_partly_supported() {
    assert_eq!(
        partly_supported_types(),
        [ElementType::C64, ElementType::C128]
    );
    // What the lowering does not cover is refused, naming the op.
    for (ty, op) in [("c64", "fft"), ("c128", "tanh")] {
        let body = if op == "fft" {
            format!("ROOT f = {ty}[8] fft(p), fft_type=FFT, fft_length={{8}}")
        } else {
            format!("ROOT f = {ty}[8] tanh(p)")
        };
        assert_refused(
            &format!("HloModule m\nENTRY e {{\n  p = {ty}[8] parameter(0)\n  {body}\n}}\n"),
            "complex",
        );
    }
}

#[test]
fn a_complex_value_in_a_reducer_compiles() {
    let text = "HloModule m\n\
        add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
        s = c64[] complex(a, b)\n  \
        ROOT r = f32[] real(s)\n}\n\
        ENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  \
        ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}\n";
    let comp = parse_hlo_module(text).expect("parses");
    let x = oxla_ir::Literal::from_vec(&[4], vec![1f32, 2., 3., 4.]).expect("literal");
    crate::common::check(&comp, &[x]);
}

#[test]
fn mixed_type_dots_compile() {
    let dot = |l: &str, r: &str, out: &str| {
        format!(
            "HloModule m\nENTRY e {{\n  a = {l}[2,3] parameter(0)\n  b = {r}[3,4] parameter(1)\n  \
             ROOT d = {out}[2,4] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
        )
    };
    // A result at least as precise as the operands: the operands are
    // converted up and the dot sums in the result type (values checked
    // against the interpreter in tests/hlo/interp/dot_mixed.hlo).
    for (l, r, out) in [
        ("s8", "s8", "s32"),
        ("s8", "s16", "s16"),
        ("s16", "s8", "s16"),
        ("f32", "f32", "f64"),
        ("pred", "pred", "s32"),
        ("f32", "f32", "f32"),
        // Narrower than the sum, or narrow: converts around a wide dot.
        ("f64", "f64", "f32"),
        ("f32", "f32", "bf16"),
        ("bf16", "bf16", "bf16"),
        ("s4", "s4", "s4"),
        ("f8e4m3fn", "f8e4m3fn", "f32"),
    ] {
        let comp = parse_hlo_module(&dot(l, r, out)).expect("parses");
        if let Err(e) = oxla_jit::compile(&comp) {
            panic!("{l} x {r} -> {out} is refused: {e}");
        }
    }
}

#[test]
fn narrow_topk_compiles_and_matches_the_interpreter() {
    // Expanded into a stable sort and slices (`oxla_ir::passes::narrow`).
    for (ty, values) in [
        ("bf16", "{1, -2, 0.5, 3, -0, 0, 3, 7}"),
        ("f8e4m3fn", "{1, -2, 0.5, 3, -0, 0, 3, 7}"),
        ("s4", "{1, -2, 5, 3, -8, 0, 3, 7}"),
    ] {
        let topk = format!(
            "HloModule m\nENTRY e {{\n  a = {ty}[8] parameter(0)\n  \
             ROOT t = ({ty}[2], s32[2]) topk(a), k=2, largest=true\n}}\n"
        );
        let comp = parse_hlo_module(&topk).expect("parses");
        let x = oxla_ir::parser::parse_literal(&format!("{ty}[8] {values}")).expect("literal");
        crate::common::check(&comp, &[x]);
    }
}
