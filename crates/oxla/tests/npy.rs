//! `.npy` reading and writing: round trips for every element type and rank,
//! hand-made files (big-endian, versions 2.0/3.0), refusals (Fortran order,
//! object arrays, truncation, hostile headers), and a cross-check with
//! numpy when it is installed.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

use oxla::npy::{
    from_npy_bytes, from_npy_bytes_as, read_npy, read_npy_as, to_npy_bytes, write_npy,
};
use oxla::{ArrayData, ElementType, Error, Literal};

/// `n` deterministic values of `ty`, covering extremes and signs.
fn sample(ty: ElementType, n: usize) -> ArrayData {
    let k = |i: usize| i as i64 * 37 - 50;
    match ty {
        ElementType::Pred => (0..n).map(|i| i % 3 == 0).collect::<Vec<_>>().into(),
        ElementType::S8 => (0..n)
            .map(|i| [i8::MIN, i8::MAX, k(i) as i8][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::S16 => (0..n)
            .map(|i| [i16::MIN, i16::MAX, k(i) as i16][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::S32 => (0..n)
            .map(|i| [i32::MIN, i32::MAX, k(i) as i32][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::S64 => (0..n)
            .map(|i| [i64::MIN, i64::MAX, k(i)][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::U8 => (0..n)
            .map(|i| [0, u8::MAX, i as u8][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::U16 => (0..n)
            .map(|i| [0, u16::MAX, i as u16][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::U32 => (0..n)
            .map(|i| [0, u32::MAX, i as u32][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::U64 => (0..n)
            .map(|i| [0, u64::MAX, i as u64][i % 3])
            .collect::<Vec<_>>()
            .into(),
        ElementType::F32 => (0..n)
            .map(|i| [f32::MIN, f32::INFINITY, -0.0, k(i) as f32 / 7.0][i % 4])
            .collect::<Vec<_>>()
            .into(),
        ElementType::F64 => (0..n)
            .map(|i| [f64::MAX, f64::NEG_INFINITY, 1e-300, k(i) as f64 / 7.0][i % 4])
            .collect::<Vec<_>>()
            .into(),
        ElementType::Tuple | ElementType::Token => unreachable_tuple(),
        // The types of issue 13, from their text.
        ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::C64
        | ElementType::C128 => new_type_sample(ty, n),
    }
}

/// `n` values of a type of issue 13, covering its extremes and signs.
fn new_type_sample(ty: ElementType, n: usize) -> ArrayData {
    let bits = ty.bit_width() as i64;
    let text = |i: usize| -> String {
        if ty.is_integer() {
            let (lo, hi) = if ty.is_signed_integer() {
                (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            } else {
                (0, (1 << bits) - 1)
            };
            [lo, hi, lo + (i as i64 % (hi - lo + 1))][i % 3].to_string()
        } else if ty.is_complex() {
            ["(1.5, -2)", "(-0, inf)", "(0.25, 3)"][i % 3].to_string()
        } else if ty == ElementType::F8E8M0FNU {
            ["1", "0.5", "4", "2"][i % 4].to_string()
        } else {
            ["1.5", "-0.5", "4", "-3"][i % 4].to_string()
        }
    };
    let values: Vec<String> = (0..n).map(text).collect();
    let literal =
        oxla::internals::parser::parse_literal(&format!("{ty}[{n}] {{{}}}", values.join(", ")))
            .unwrap();
    literal.array_data().unwrap().clone()
}

fn unreachable_tuple() -> ArrayData {
    panic!("ElementType::ALL holds no tuple")
}

const DIMS: &[&[i64]] = &[&[], &[3], &[2, 3], &[2, 1, 3], &[0], &[2, 0, 4]];

fn literal(ty: ElementType, dims: &[i64]) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    Literal::from_array_data(dims, sample(ty, n)).unwrap()
}

/// A `.npy` file with a raw header (no padding) and raw data.
fn handmade(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut b = b"\x93NUMPY".to_vec();
    b.extend([version, 0]);
    if version == 1 {
        b.extend((header.len() as u16).to_le_bytes());
    } else {
        b.extend((header.len() as u32).to_le_bytes());
    }
    b.extend(header.as_bytes());
    b.extend(data);
    b
}

fn error_message(bytes: &[u8]) -> String {
    match from_npy_bytes(bytes) {
        Ok(l) => panic!("expected an error, read {l}"),
        Err(Error::Io { message, .. }) => message,
        Err(e) => panic!("expected an Io error, got {e}"),
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "oxla-npy-{tag}-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn round_trip_every_type_and_rank() {
    for ty in ElementType::ALL {
        for dims in DIMS {
            let x = literal(ty, dims);
            let bytes = to_npy_bytes(&x).unwrap();
            let header_end = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!(header_end % 64, 0, "data starts 64-byte aligned");
            assert_eq!(bytes[header_end - 1], b'\n');
            assert_eq!(bytes.len() - header_end, x.element_count() * ty.byte_size());
            // ml_dtypes' types are raw bytes (`<V2`, `<V1`) to NumPy: the
            // reader is told the type.
            let y = from_npy_bytes_as(&bytes, ty).unwrap();
            assert_eq!(y.shape(), x.shape());
            // Bitwise comparison (so -0 and signed values are exact).
            assert_eq!(to_npy_bytes(&y).unwrap(), bytes, "{ty} {dims:?}");
        }
    }
}

#[test]
fn writes_numpy_style_headers() {
    let cases = [
        (
            literal(ElementType::F32, &[2, 3]),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        ),
        (
            literal(ElementType::Pred, &[3]),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        ),
        (
            literal(ElementType::U16, &[]),
            "{'descr': '<u2', 'fortran_order': False, 'shape': (), }",
        ),
    ];
    for (x, header) in cases {
        let bytes = to_npy_bytes(&x).unwrap();
        let text = String::from_utf8_lossy(&bytes[10..]).to_string();
        assert!(text.starts_with(header), "{text}");
    }
}

#[test]
fn reads_big_endian_and_native_order() {
    let x = from_npy_bytes(&handmade(
        1,
        "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n",
        &[0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe],
    ))
    .unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), vec![0x0102, -2]);
    let x = from_npy_bytes(&handmade(
        1,
        "{'shape': (1, 2), 'fortran_order': False, 'descr': '>f8'}",
        &[0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0],
    ))
    .unwrap();
    assert_eq!(x.shape().dims(), &[1, 2]);
    assert_eq!(x.to_vec::<f64>().unwrap(), vec![1.0, -2.0]);
    let x = from_npy_bytes(&handmade(
        1,
        "{'descr': '>u2', 'fortran_order': False, 'shape': (3L,), }",
        &[0, 1, 1, 0, 0xff, 0xff],
    ))
    .unwrap();
    assert_eq!(x.to_vec::<u16>().unwrap(), vec![1, 256, 65535]);
    let native = if cfg!(target_endian = "big") {
        [0, 7]
    } else {
        [7, 0]
    };
    let x = from_npy_bytes(&handmade(
        1,
        "{'descr': '=i2', 'fortran_order': False, 'shape': (), }",
        &native,
    ))
    .unwrap();
    assert_eq!(x.to_vec::<i16>().unwrap(), vec![7]);
    let x = from_npy_bytes(&handmade(
        1,
        "{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": (4,)}",
        &[0, 1, 2, 0],
    ))
    .unwrap();
    assert_eq!(x.to_vec::<bool>().unwrap(), vec![false, true, true, false]);
}

#[test]
fn reads_versions_2_and_3() {
    for version in [2, 3] {
        let x = from_npy_bytes(&handmade(
            version,
            "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }\n",
            &(-5i64).to_le_bytes(),
        ))
        .unwrap();
        assert_eq!(x.to_vec::<i64>().unwrap(), vec![-5]);
    }
}

#[test]
fn refuses_what_it_cannot_read() {
    let f4 = |header: &str, data: &[u8]| error_message(&handmade(1, header, data));
    let cases = [
        (
            f4(
                "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                &[0; 16],
            ),
            "fortran_order: True is not supported",
        ),
        (
            f4(
                "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                &[0; 8],
            ),
            "object arrays",
        ),
        (
            f4(
                "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }",
                &[0; 16],
            ),
            "float dtype '<f16' is not supported",
        ),
        (
            f4(
                "{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }",
                &[0; 32],
            ),
            "complex dtype",
        ),
        (
            f4(
                "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }",
                &[0; 12],
            ),
            "string dtype",
        ),
        (
            f4(
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                &[0; 4],
            ),
            "structured dtypes",
        ),
        (
            f4(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                &[0; 8],
            ),
            "truncated .npy file: shape (3) of f32 needs 12 bytes of data, but the file has 8",
        ),
        (
            f4(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                &[0; 8],
            ),
            "needs 4 bytes of data, but the file has 8",
        ),
        (
            f4(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
                &[0; 8],
            ),
            "needs 4000000000000 bytes of data, but the file has 8",
        ),
        (
            f4(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }",
                &[],
            ),
            "more than 1099511627776 elements",
        ),
        (
            f4(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
                &[],
            ),
            "non-negative integers",
        ),
        (
            f4("{'descr': '<f4', 'fortran_order': False}", &[]),
            "has no 'shape'",
        ),
        (
            f4(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)",
                &[0; 4],
            ),
            "expected ',' or '}'",
        ),
        (
            f4(
                "{'descr': 'f4', 'fortran_order': False, 'shape': (1,), }",
                &[0; 4],
            ),
            "no byte order",
        ),
        (f4(&"(".repeat(100_000), &[]), "less nesting"),
        (error_message(b"PK\x03\x04 not numpy"), "not a .npy file"),
        (
            error_message(b"\x93NUMPY\x04\x00\x00\x00"),
            "unsupported .npy format version 4.0",
        ),
        (error_message(b"\x93NUMPY\x01"), "the version is missing"),
        (
            error_message(b"\x93NUMPY\x01\x00\xff\xff{'descr'"),
            "the header claims 65535 bytes",
        ),
    ];
    for (message, want) in cases {
        assert!(
            message.contains(want),
            "{message:?} should contain {want:?}"
        );
    }
}

#[test]
fn truncating_a_file_anywhere_is_an_error() {
    let bytes = to_npy_bytes(&literal(ElementType::F64, &[2, 3])).unwrap();
    for n in 0..bytes.len() {
        assert!(from_npy_bytes(&bytes[..n]).is_err(), "prefix of {n} bytes");
    }
}

#[test]
fn files_and_errors_name_their_path() {
    let dir = temp_dir("files");
    let path = dir.join("x.npy");
    let x = literal(ElementType::S32, &[2, 2]);
    write_npy(&path, &x).unwrap();
    assert_eq!(read_npy(&path).unwrap(), x);
    std::fs::write(&path, b"junk").unwrap();
    let err = read_npy(&path).unwrap_err().to_string();
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    let missing = dir.join("missing.npy");
    let err = read_npy(&missing).unwrap_err().to_string();
    assert!(err.contains("missing.npy: cannot read the file"), "{err}");
    let tuple = Literal::tuple(vec![x.clone(), x]);
    let err = write_npy(dir.join("t.npy"), &tuple)
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot be written as one .npy array"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Reads files numpy wrote and has numpy read files we wrote, when numpy is
/// installed; says loudly that it skipped otherwise.
#[test]
fn cross_check_with_numpy() {
    let has_numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_numpy {
        // Written to the real stderr, past the test harness's capture.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED cross_check_with_numpy: `python3 -c 'import numpy'` failed; \
             install numpy to cross-check the .npy reader and writer. ***\n"
        );
        return;
    }
    let dir = temp_dir("numpy");
    // numpy writes one file per dtype (big-endian variants too) ...
    let script = r#"
import numpy as np, sys
d = sys.argv[1]
for name in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64']:
    x = (np.arange(24).reshape(2, 3, 4) * 7 - 50).astype(name)
    np.save(f'{d}/np_{name}.npy', x)
    np.save(f'{d}/np_{name}_be.npy', x.astype(x.dtype.newbyteorder('>')))
np.save(f'{d}/np_scalar.npy', np.float32(2.5))
np.save(f'{d}/np_fortran.npy', np.asfortranarray(np.ones((2, 3), np.float32)))
for f in sys.argv[2:]:
    y = np.load(f'{d}/{f}.npy')
    ref = (np.arange(24).reshape(2, 3, 4) * 7 - 50).astype(f.split('_')[1])
    assert y.dtype == ref.dtype and y.shape == ref.shape and (y == ref).all(), f
print('ok')
"#;
    // ... and reads ours.
    // NumPy's own dtypes (ml_dtypes' are checked against files NumPy
    // wrote: numpy_wrote_the_new_types).
    let types = ElementType::ALL
        .into_iter()
        .filter(|&t| !numpy_name(t).is_empty());
    let mut ours = vec![];
    for ty in types {
        let name = numpy_name(ty);
        let values: Vec<i64> = (0..24).map(|i| i * 7 - 50).collect();
        let data: ArrayData = match ty {
            ElementType::Pred => values.iter().map(|&v| v != 0).collect::<Vec<_>>().into(),
            ElementType::S8 => values.iter().map(|&v| v as i8).collect::<Vec<_>>().into(),
            ElementType::S16 => values.iter().map(|&v| v as i16).collect::<Vec<_>>().into(),
            ElementType::S32 => values.iter().map(|&v| v as i32).collect::<Vec<_>>().into(),
            ElementType::S64 => values.clone().into(),
            ElementType::U8 => values.iter().map(|&v| v as u8).collect::<Vec<_>>().into(),
            ElementType::U16 => values.iter().map(|&v| v as u16).collect::<Vec<_>>().into(),
            ElementType::U32 => values.iter().map(|&v| v as u32).collect::<Vec<_>>().into(),
            ElementType::U64 => values.iter().map(|&v| v as u64).collect::<Vec<_>>().into(),
            ElementType::F32 => values.iter().map(|&v| v as f32).collect::<Vec<_>>().into(),
            ElementType::F64 => values.iter().map(|&v| v as f64).collect::<Vec<_>>().into(),
            ElementType::Tuple | ElementType::Token => unreachable_tuple(),
            ElementType::S1
            | ElementType::S2
            | ElementType::S4
            | ElementType::U1
            | ElementType::U2
            | ElementType::U4
            | ElementType::F4E2M1FN
            | ElementType::F8E3M4
            | ElementType::F8E4M3
            | ElementType::F8E4M3FN
            | ElementType::F8E4M3FNUZ
            | ElementType::F8E4M3B11FNUZ
            | ElementType::F8E5M2
            | ElementType::F8E5M2FNUZ
            | ElementType::F8E8M0FNU
            | ElementType::Bf16
            | ElementType::F16
            | ElementType::C64
            | ElementType::C128 => unreachable!("filtered out above"),
        };
        let x = Literal::from_array_data(&[2, 3, 4], data).unwrap();
        write_npy(dir.join(format!("ox_{name}.npy")), &x).unwrap();
        ours.push((ty, x, format!("ox_{name}")));
    }
    let mut cmd = Command::new("python3");
    cmd.args(["-c", script, dir.to_str().unwrap()]);
    cmd.args(ours.iter().map(|(_, _, f)| f.as_str()));
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "numpy rejected our files:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (ty, x, _) in &ours {
        let name = numpy_name(*ty);
        for suffix in ["", "_be"] {
            let y = read_npy(dir.join(format!("np_{name}{suffix}.npy"))).unwrap();
            assert_eq!(&y, x, "np_{name}{suffix}.npy");
        }
    }
    let s = read_npy(dir.join("np_scalar.npy")).unwrap();
    assert_eq!(s, Literal::scalar(2.5f32));
    let err = read_npy(dir.join("np_fortran.npy"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("fortran_order: True"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

fn numpy_name(ty: ElementType) -> &'static str {
    match ty {
        ElementType::Pred => "bool",
        ElementType::S8 => "int8",
        ElementType::S16 => "int16",
        ElementType::S32 => "int32",
        ElementType::S64 => "int64",
        ElementType::U8 => "uint8",
        ElementType::U16 => "uint16",
        ElementType::U32 => "uint32",
        ElementType::U64 => "uint64",
        ElementType::F32 => "float32",
        ElementType::F64 => "float64",
        ElementType::Tuple | ElementType::Token => "tuple",
        // Checked with files NumPy wrote (numpy_wrote_the_new_types).
        ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::C64
        | ElementType::C128 => "",
    }
}

/// `.npy` files `np.save` wrote for the types of issue 13 (with ml_dtypes;
/// `scripts/types_values.py`), committed with their bytes and values in
/// `tests/data/npy/files.tsv`: each reads back bit for bit, holds the
/// values listed, and oxla writes the same file byte for byte (the
/// `_named` files, JAX's tools' form with the ml_dtypes name as descr, are
/// read only).
#[test]
fn numpy_wrote_the_new_types() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/npy");
    let index = std::fs::read_to_string(dir.join("files.tsv")).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for line in index.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, ty, descr, hex, text] = cols[..] else {
            panic!("bad line {line:?}")
        };
        let ty = ElementType::from_name(ty).unwrap();
        let path = dir.join(file);
        let x = read_npy_as(&path, ty).unwrap();
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        assert_eq!(
            x.array_data().unwrap().to_le_bytes(),
            bytes,
            "{file}: the values' bits"
        );
        let want = oxla::internals::parser::parse_literal(text).unwrap();
        assert_eq!(x.shape(), want.shape(), "{file}");
        let (g, w) = (x.array_data().unwrap(), want.array_data().unwrap());
        for i in 0..g.len() {
            let norm = |s: String| s.replace("-nan", "nan");
            assert_eq!(
                norm(g.format_value(i)),
                norm(w.format_value(i)),
                "{file} element {i}"
            );
        }
        if descr.starts_with(['<', '>', '|']) {
            // np.save's own form: oxla writes the very same bytes.
            assert_eq!(
                to_npy_bytes(&x).unwrap(),
                std::fs::read(&path).unwrap(),
                "{file}"
            );
            // A file of ml_dtypes' raw bytes needs the type named.
            if descr.starts_with("<V") {
                assert!(read_npy(&path).is_err(), "{file} read without its type");
            }
        } else {
            // The named form needs no type.
            let y = read_npy(&path).unwrap();
            assert_eq!(y.shape(), x.shape(), "{file}");
            assert_eq!(y.array_data().unwrap().to_le_bytes(), bytes, "{file}");
        }
        seen.insert(ty);
    }
    let new: Vec<ElementType> = ElementType::ALL
        .into_iter()
        .filter(|&t| numpy_name(t).is_empty())
        .collect();
    assert!(
        new.iter().all(|t| seen.contains(t)),
        "a type without a NumPy file"
    );
}
