//! Helpers shared by the tests: paths, `.npy` files, a name-blind printing
//! of computations, and value comparisons.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use oxla_ir::ir::{Body, ComputationId, InstId};
use oxla_ir::{ArrayData, Computation, ElementType, Literal};

/// `tests/data/...` of the repository.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(rel)
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reads a `.npy` file (little-endian, C order) as a literal.
pub fn read_npy(path: &Path) -> Literal {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..6],
        b"\x93NUMPY",
        "{}: not a .npy file",
        path.display()
    );
    let (len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[start..start + len]).unwrap();
    let data = &bytes[start + len..];
    let field = |key: &str| {
        let at = header
            .find(key)
            .unwrap_or_else(|| panic!("{header}: no {key}"))
            + key.len();
        header[at..].trim_start_matches([':', ' ']).to_string()
    };
    assert!(field("'fortran_order'").starts_with("False"), "{header}");
    let descr = field("'descr'");
    let descr = descr
        .trim_start_matches('\'')
        .split('\'')
        .next()
        .unwrap()
        .to_string();
    let shape = field("'shape'");
    let shape = &shape[1..shape.find(')').unwrap()];
    let dims: Vec<i64> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    fn le<const N: usize, T>(data: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
        data.chunks_exact(N)
            .map(|c| f(c.try_into().unwrap()))
            .collect()
    }
    let array = match descr.as_str() {
        "|b1" => ArrayData::Pred(data.iter().map(|&b| b != 0).collect()),
        "|i1" => ArrayData::S8(le(data, i8::from_le_bytes)),
        "<i2" => ArrayData::S16(le(data, i16::from_le_bytes)),
        "<i4" => ArrayData::S32(le(data, i32::from_le_bytes)),
        "<i8" => ArrayData::S64(le(data, i64::from_le_bytes)),
        "|u1" => ArrayData::U8(data.to_vec()),
        "<u2" => ArrayData::U16(le(data, u16::from_le_bytes)),
        "<u4" => ArrayData::U32(le(data, u32::from_le_bytes)),
        "<u8" => ArrayData::U64(le(data, u64::from_le_bytes)),
        "<f4" => ArrayData::F32(le(data, f32::from_le_bytes)),
        "<f8" => ArrayData::F64(le(data, f64::from_le_bytes)),
        // The types of issue 13: NumPy's own and ml_dtypes' names.
        other => {
            let ty = match other {
                "<f2" => ElementType::F16,
                "<c8" => ElementType::C64,
                "<c16" => ElementType::C128,
                "bfloat16" => ElementType::Bf16,
                "float8_e4m3fn" => ElementType::F8E4M3FN,
                "float8_e5m2" | "<f1" => ElementType::F8E5M2,
                "int4" => ElementType::S4,
                "uint4" => ElementType::U4,
                _ => panic!("{}: unsupported dtype {other}", path.display()),
            };
            ArrayData::from_bytes(ty, data, false).unwrap()
        }
    };
    Literal::from_array_data(&dims, array).unwrap()
}

/// The module printed with every name replaced by its position (`v3`,
/// `b1`), parameters first, identical called bodies merged and bodies
/// ordered by first use, so that modules that differ only in names, in where the
/// parameters stand (MLIR has them all up front) and in how reducers are
/// shared print the same.
pub fn canonical(comp: &Computation) -> String {
    let bodies = comp.bodies();
    // Merge identical bodies (after renaming), callees first.
    let mut rep: Vec<ComputationId> = Vec::new();
    let mut renamed: Vec<Body> = Vec::new();
    for (k, b) in bodies.iter().enumerate() {
        let mut b = params_first(b);
        b.name = String::new();
        for (i, inst) in b.instructions.iter_mut().enumerate() {
            inst.name = format!("v{i}");
            for called in inst.kind.called_computations_mut() {
                *called = rep[called.index()];
            }
        }
        let same = (k + 1 < bodies.len())
            .then(|| renamed.iter().position(|r| *r == b))
            .flatten();
        rep.push(ComputationId(same.unwrap_or(k) as u32));
        renamed.push(b);
    }
    // Order by first use from the entry (post-order), renumber.
    fn visit(id: usize, renamed: &[Body], order: &mut Vec<usize>) {
        if order.contains(&id) {
            return;
        }
        for inst in &renamed[id].instructions {
            for called in inst.kind.called_computations() {
                visit(called.index(), renamed, order);
            }
        }
        order.push(id);
    }
    let mut order = Vec::new();
    visit(renamed.len() - 1, &renamed, &mut order);
    let new_id: HashMap<usize, u32> = order
        .iter()
        .enumerate()
        .map(|(n, &k)| (k, n as u32))
        .collect();
    let out: Vec<Body> = order
        .iter()
        .enumerate()
        .map(|(n, &k)| {
            let mut b = renamed[k].clone();
            b.name = if n + 1 == order.len() {
                "entry".into()
            } else {
                format!("b{n}")
            };
            for inst in &mut b.instructions {
                for called in inst.kind.called_computations_mut() {
                    *called = ComputationId(new_id[&called.index()]);
                }
            }
            b
        })
        .collect();
    Computation::from_bodies("m", out).unwrap().to_hlo_text()
}

/// `b` with its parameters moved to the front, in number order.
fn params_first(b: &Body) -> Body {
    let params = b.parameters();
    let order: Vec<InstId> = params
        .iter()
        .copied()
        .chain(
            (0..b.instructions.len() as u32)
                .map(InstId)
                .filter(|i| !params.contains(i)),
        )
        .collect();
    let mut new_index = vec![0u32; order.len()];
    for (n, id) in order.iter().enumerate() {
        new_index[id.index()] = n as u32;
    }
    let instructions = order
        .iter()
        .map(|&id| {
            let mut inst = b.inst(id).clone();
            for o in &mut inst.operands {
                *o = InstId(new_index[o.index()]);
            }
            inst
        })
        .collect();
    Body {
        name: b.name.clone(),
        instructions,
        root: InstId(new_index[b.root.index()]),
    }
}

/// The leaves of a literal (the elements of a tuple, in order).
pub fn leaves(l: &Literal) -> Vec<&Literal> {
    match l.tuple_elements() {
        Some(es) => es.iter().flat_map(leaves).collect(),
        None => vec![l],
    }
}

/// Elements as f64 (integers exactly up to 2^53, which the tests stay under).
fn values(d: &ArrayData) -> Vec<f64> {
    match d {
        ArrayData::Pred(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::U8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::F64(v) => v.clone(),
        // The types of issue 13 by their text (a complex value's two parts).
        ArrayData::S1(_)
        | ArrayData::S2(_)
        | ArrayData::S4(_)
        | ArrayData::U1(_)
        | ArrayData::U2(_)
        | ArrayData::U4(_)
        | ArrayData::F4E2M1FN(_)
        | ArrayData::F8E3M4(_)
        | ArrayData::F8E4M3(_)
        | ArrayData::F8E4M3FN(_)
        | ArrayData::F8E4M3FNUZ(_)
        | ArrayData::F8E4M3B11FNUZ(_)
        | ArrayData::F8E5M2(_)
        | ArrayData::F8E5M2FNUZ(_)
        | ArrayData::F8E8M0FNU(_)
        | ArrayData::Bf16(_)
        | ArrayData::F16(_)
        | ArrayData::C64(_)
        | ArrayData::C128(_) => (0..d.len())
            .flat_map(|i| {
                let text = d.format_value(i);
                text.trim_matches(|c| c == '(' || c == ')')
                    .split(", ")
                    .map(|part| part.parse::<f64>().expect("a number"))
                    .collect::<Vec<f64>>()
            })
            .collect(),
    }
}

/// The largest error of `got` against `want` in units of the tolerance
/// `atol + rtol * |want|` (NaN matches NaN), after checking shapes; 0 when
/// bit-identical. Integer and pred elements must be equal.
pub fn error_ratio(got: &Literal, want: &Literal, atol: f64, rtol: f64, what: &str) -> f64 {
    assert_eq!(got.shape(), want.shape(), "{what}: shapes differ");
    let (g, w) = (got.array_data().unwrap(), want.array_data().unwrap());
    if g == w {
        return 0.0;
    }
    let float = got.element_type().is_float() || got.element_type().is_complex();
    let mut worst: f64 = 0.0;
    for (i, (a, b)) in values(g).into_iter().zip(values(w)).enumerate() {
        if a.is_nan() && b.is_nan() || a == b {
            continue;
        }
        assert!(float, "{what}: element {i} is {a}, JAX gives {b}");
        let ratio = (a - b).abs() / (atol + rtol * b.abs());
        assert!(
            ratio.is_finite(),
            "{what}: element {i} is {a}, JAX gives {b}"
        );
        worst = worst.max(ratio);
    }
    worst
}

/// Bit-identical literals (NaN payloads and the sign of zero included),
/// of every element type (a bf16 NaN equals itself here).
pub fn same_bits(a: &Literal, b: &Literal) -> bool {
    if a.shape() != b.shape() {
        return false;
    }
    match (a.array_data(), b.array_data()) {
        (Some(x), Some(y)) => x.to_le_bytes() == y.to_le_bytes(),
        (x, y) => x == y,
    }
}
