//! HLO -> StableHLO -> IR -> HLO prints the same module.
//!
//! Every HLO module in the repository's test data (`tests/data/**`: JAX's
//! modules, XLA's optimized dumps, our dialect, the parser's fuzz corpus,
//! programs `oxla-testgen` wrote, the StableHLO corpus's HLO) that the HLO
//! parser accepts is brought to strict HLO (`expand_broadcasts`, which
//! `oxla convert --to stablehlo` does too), exported with
//! [`to_stablehlo`], and read back with [`parse_stablehlo`]:
//! - the module read back prints as the strict module does, names aside
//!   ([`canonical`]);
//! - exporting it again prints the same StableHLO text, byte for byte;
//! - the module as written (before `expand_broadcasts`) exports and reads
//!   back to a module that computes the same bits on the same inputs.

use std::path::{Path, PathBuf};

use oxla_ir::ir::OpKind;
use oxla_ir::{ArrayData, Computation, ElementType, Literal, Shape};
use oxla_stablehlo::{parse_stablehlo, to_stablehlo};

use super::common::{canonical, data, read_npy, same_bits};

fn hlo_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        // XLA's test modules are regenerated locally, never committed:
        // what CI sees must not depend on them.
        if p.is_dir() && name != "xla_corpus" {
            hlo_files(&p, out);
        } else if name.ends_with(".hlo") || name.ends_with(".hlo.txt") {
            out.push(p);
        }
    }
}

/// Deterministic, varied arguments for a parameter shape.
fn argument(shape: &Shape, seed: &mut u64) -> Literal {
    if shape.is_tuple() {
        return Literal::tuple(
            shape
                .tuple_shapes()
                .iter()
                .map(|s| argument(s, seed))
                .collect(),
        );
    }
    let n = shape.element_count() as usize;
    let mut next = || {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as i64
    };
    let mut ints = |m: i64| (0..n).map(|_| next() % m - m / 2).collect::<Vec<i64>>();
    let data = match shape.element_type() {
        ElementType::Pred => ArrayData::Pred(ints(2).iter().map(|&v| v != 0).collect()),
        ElementType::S8 => ArrayData::S8(ints(200).iter().map(|&v| v as i8).collect()),
        ElementType::S16 => ArrayData::S16(ints(2000).iter().map(|&v| v as i16).collect()),
        ElementType::S32 => ArrayData::S32(ints(2000).iter().map(|&v| v as i32).collect()),
        ElementType::S64 => ArrayData::S64(ints(2000)),
        ElementType::U8 => ArrayData::U8(ints(200).iter().map(|&v| (v + 100) as u8).collect()),
        ElementType::U16 => ArrayData::U16(ints(2000).iter().map(|&v| (v + 1000) as u16).collect()),
        ElementType::U32 => ArrayData::U32(ints(2000).iter().map(|&v| (v + 1000) as u32).collect()),
        ElementType::U64 => ArrayData::U64(ints(2000).iter().map(|&v| (v + 1000) as u64).collect()),
        ElementType::F32 => ArrayData::F32(ints(4001).iter().map(|&v| v as f32 / 1000.0).collect()),
        ElementType::F64 => ArrayData::F64(ints(4001).iter().map(|&v| v as f64 / 1000.0).collect()),
        ElementType::Tuple | ElementType::Token => unreachable!("handled above"),
        // The types of issue 13 from their text: small values.
        ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4 => {
            // -1 or 0 signed, 0 or 1 unsigned: every width holds them.
            let lift = i64::from(!shape.element_type().is_signed_integer());
            let v = ints(2);
            text_data(shape, v.iter().map(|&x| (x + lift).to_string()))
        }
        ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16 => {
            let v = ints(17);
            text_data(shape, v.iter().map(|&x| (x as f64 / 4.0 + 2.5).to_string()))
        }
        ElementType::C64 | ElementType::C128 => {
            let (re, im) = (ints(4001), ints(4001));
            text_data(
                shape,
                re.iter()
                    .zip(&im)
                    .map(|(&a, &b)| format!("({}, {})", a as f64 / 1000.0, b as f64 / 1000.0)),
            )
        }
    };
    Literal::from_array_data(shape.dims(), data).unwrap()
}

/// The values of `shape` from their text, row-major.
fn text_data(shape: &Shape, values: impl Iterator<Item = String>) -> ArrayData {
    let values: Vec<String> = values.take(shape.element_count() as usize).collect();
    let text = format!(
        "{}[{}] {{{}}}",
        shape.element_type(),
        values.len(),
        values.join(", ")
    );
    let literal = oxla_ir::parser::parse_literal(&text).unwrap();
    literal.array_data().unwrap().clone()
}

/// The inputs committed next to a module (`NAME.in0.npy`, ... for
/// `NAME.hlo`; `in0.npy`, ... in a `program.hlo`'s folder), if any.
fn committed_inputs(path: &Path) -> Vec<Literal> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let stem = name.trim_end_matches(".txt").trim_end_matches(".hlo");
    let prefix = if stem == "program" {
        String::new()
    } else {
        format!("{stem}.")
    };
    (0..)
        .map(|k| path.with_file_name(format!("{prefix}in{k}.npy")))
        .take_while(|p| p.exists())
        .map(|p| read_npy(&p))
        .collect()
}

/// Whether the module has a `while` (which may not end on made-up inputs:
/// JAX's Collatz loop runs forever on a negative number).
fn has_loops(c: &Computation) -> bool {
    c.bodies()
        .iter()
        .flat_map(|b| &b.instructions)
        .any(|i| matches!(i.kind, OpKind::While { .. }))
}

/// Both evaluate to the same bits (or fail alike), on the module's
/// committed inputs, or on made-up ones when it has no loop and they are
/// small; false when not evaluated.
pub(super) fn same_results(a: &Computation, b: &Computation, what: &str) -> bool {
    same_results_on(a, b, what, None)
}

/// [`same_results`], on the inputs committed next to `path` if any.
fn same_results_on(a: &Computation, b: &Computation, what: &str, path: Option<&Path>) -> bool {
    let shapes = a.parameter_shapes();
    let committed = path.map(committed_inputs).unwrap_or_default();
    let usable = committed.len() == shapes.len()
        && committed.iter().zip(&shapes).all(|(l, s)| l.shape() == s);
    let args = if usable {
        committed
    } else {
        let elements: i64 = shapes.iter().map(Shape::element_count).sum();
        if has_loops(a) || elements > 1 << 16 || a.result_shape().element_count() > 1 << 16 {
            return false;
        }
        let mut seed = 7;
        shapes.iter().map(|s| argument(s, &mut seed)).collect()
    };
    let refs: Vec<&Literal> = args.iter().collect();
    // StableHLO takes a tuple argument's leaves as separate arguments.
    fn leaves<'l>(l: &'l Literal, out: &mut Vec<&'l Literal>) {
        match l.tuple_elements() {
            Some(elements) => elements.iter().for_each(|e| leaves(e, out)),
            None => out.push(l),
        }
    }
    let mut flat = Vec::new();
    for arg in &args {
        leaves(arg, &mut flat);
    }
    match (
        oxla_interp::evaluate(a, &refs),
        oxla_interp::evaluate(b, &flat),
    ) {
        (Ok(x), Ok(y)) => assert!(same_bits_deep(&x, &y), "{what}: results differ:\n{x}\n{y}"),
        (Err(_), Err(_)) => {}
        (x, y) => panic!("{what}: one fails, one does not: {x:?} / {y:?}"),
    }
    true
}

/// The same array leaves, in order, bit for bit: StableHLO returns a
/// nested tuple's leaves as separate results.
fn same_bits_deep(a: &Literal, b: &Literal) -> bool {
    fn leaves<'l>(l: &'l Literal, out: &mut Vec<&'l Literal>) {
        match l.tuple_elements() {
            Some(elements) => elements.iter().for_each(|e| leaves(e, out)),
            None => out.push(l),
        }
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    leaves(a, &mut x);
    leaves(b, &mut y);
    x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_bits(p, q))
}

/// Whether a value anywhere in the module is a tuple (StableHLO flattens
/// them).
pub(super) fn has_tuples(c: &Computation) -> bool {
    c.bodies()
        .iter()
        .flat_map(|b| &b.instructions)
        .any(|i| i.shape.is_tuple())
}

#[test]
fn hlo_to_stablehlo_to_ir_prints_the_same_module() {
    let mut files = Vec::new();
    hlo_files(&data(""), &mut files);
    let (mut round_trips, mut evaluated, mut flattened, mut unevaluated) = (0, 0, 0, 0);
    let mut unread = Vec::new();
    for path in &files {
        let what = path.strip_prefix(data("")).unwrap().display().to_string();
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(comp) = oxla_ir::parse_hlo_module(&text) else {
            continue;
        };
        let strict = oxla_ir::passes::expand_broadcasts(&comp).unwrap();
        let Ok(mlir) = to_stablehlo(&strict) else {
            continue;
        };
        let back = match parse_stablehlo(&mlir) {
            Ok(back) => back,
            // Ops the reader does not have (the op set may grow faster):
            // counted, and must be none.
            Err(e) if e.to_string().contains("not supported yet") => {
                unread.push(format!(
                    "{what}: {}",
                    e.to_string().lines().next().unwrap_or("")
                ));
                continue;
            }
            Err(e) => panic!("{what}: its StableHLO does not read back:\n{e}\n{mlir}"),
        };
        // `stablehlo.rng` takes its shape as a constant operand: the reader
        // keeps that constant as an unused instruction, and the exporter
        // writes it besides the one it makes for the `rng`, so the text
        // differs by one constant there (the values are compared below).
        if !mlir.contains("stablehlo.rng ") {
            assert_eq!(
                to_stablehlo(&back).unwrap_or_else(|e| panic!("{what}: {e}")),
                mlir,
                "{what}: exporting the module read back prints other text"
            );
        }
        if has_tuples(&strict) || has_tuples(&back) {
            // StableHLO has no tuple values: the writer flattens them, and
            // the reader packs what the IR needs as tuples again (a loop's
            // state, a branch's captured values, a variadic result), which
            // need not be the tuples the module had. It must compute the
            // same values.
            if same_results_on(&strict, &back, &what, Some(path)) {
                flattened += 1;
            } else {
                unevaluated += 1;
            }
            continue;
        }
        assert_eq!(
            canonical(&back),
            canonical(&strict),
            "{what}: the round trip changed the module\n{mlir}"
        );
        round_trips += 1;
        // Our dialect's implicit broadcasts come back explicit: the same values.
        let loose = to_stablehlo(&comp).unwrap();
        let back = parse_stablehlo(&loose).unwrap_or_else(|e| panic!("{what}: {e}\n{loose}"));
        if same_results_on(&comp, &back, &what, Some(path)) {
            evaluated += 1;
        }
    }
    assert!(
        round_trips >= 60,
        "only {round_trips} of {} files round-tripped",
        files.len()
    );
    assert!(evaluated >= 40, "only {evaluated} modules were evaluated");
    println!(
        "{round_trips} modules round-tripped, {evaluated} evaluated, {flattened} with tuples \
         compared by value ({unevaluated} more by their exported text only: loops without \
         committed inputs, or too large), {} not read back (ops the reader lacks), of {} files",
        unread.len(),
        files.len()
    );
    assert!(
        unread.is_empty(),
        "the reader lacks ops the exporter writes:\n{}",
        unread.join("\n")
    );
}
