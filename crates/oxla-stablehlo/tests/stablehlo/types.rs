//! The element types of issue 13 in StableHLO, both ways: every module of
//! `tests/hlo/types/` exports with MLIR's type names (`bf16`, `f16`,
//! `f8E4M3FN`, ..., `i4`/`ui4`, `complex<f32>`); those with real types
//! read back to the same module and export again to the same text
//! (complex tensors, complex constants and `fft` included).

use std::path::Path;

use oxla_stablehlo::{parse_stablehlo, to_stablehlo};

use super::common::canonical;
use super::misc::modules;
use super::round_trip::has_tuples;

#[test]
fn every_types_module_goes_to_stablehlo_and_back() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hlo/types");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    files.sort();
    let (mut exported, mut round_trips, mut complex) = (0, 0, 0);
    let mut names = std::collections::BTreeSet::new();
    for path in &files {
        for text in modules(path) {
            // Modules written to be refused (`// error:`) have nothing to export.
            let Ok(comp) = oxla_ir::parse_hlo_module(&text) else {
                continue;
            };
            let mlir =
                to_stablehlo(&comp).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
            exported += 1;
            for name in [
                "xbf16>",
                "xf16>",
                "xf8E4M3FN>",
                "xf8E5M2>",
                "xf8E4M3>",
                "xf8E3M4>",
                "xf8E4M3FNUZ>",
                "xf8E5M2FNUZ>",
                "xf8E4M3B11FNUZ>",
                "xf8E8M0FNU>",
                "xf4E2M1FN>",
                "xi4>",
                "xui4>",
                "xi2>",
                "xui2>",
                "xcomplex<f32>>",
                "xcomplex<f64>>",
            ] {
                if mlir.contains(name) {
                    names.insert(name);
                }
            }
            if mlir.contains("complex<") {
                complex += 1;
            }
            let back = parse_stablehlo(&mlir)
                .unwrap_or_else(|e| panic!("{}: {e}\n{mlir}", path.display()));
            // (`canonical` renames reducers, not sort comparators or calls:
            // those modules are checked by the re-export below.)
            let calls = text.contains(" sort(") || text.contains(" call(");
            if !has_tuples(&comp) && !calls {
                assert_eq!(
                    canonical(&back),
                    canonical(&comp),
                    "{}: the round trip changed the module\n{mlir}",
                    path.display()
                );
            }
            assert_eq!(to_stablehlo(&back).unwrap(), mlir, "{}", path.display());
            round_trips += 1;
        }
    }
    // Every narrow type and both complex types were written.
    assert_eq!(names.len(), 17, "{names:?}");
    assert!(
        exported >= 240 && round_trips >= 240 && complex >= 20,
        "{exported} exported, {round_trips} round trips, {complex} complex"
    );
}

/// StableHLO has no 1-bit signed integer (`i1` is its boolean): a module
/// with an `s1` value is refused by name, not written as `pred`.
#[test]
fn s1_is_refused_by_the_export() {
    let comp = oxla_ir::parse_hlo_module(
        "HloModule m\nENTRY e {\n  p = s1[3] parameter(0)\n  ROOT n = s1[3] negate(p)\n}\n",
    )
    .unwrap();
    let err = to_stablehlo(&comp)
        .expect_err("s1 has no StableHLO type")
        .to_string();
    assert!(
        err.contains("s1[3]") && err.contains("no 1-bit signed integer"),
        "{err}"
    );
    // u1 is `ui1` and reads back as u1.
    let comp = oxla_ir::parse_hlo_module(
        "HloModule m\nENTRY e {\n  p = u1[3] parameter(0)\n  ROOT n = u1[3] not(p)\n}\n",
    )
    .unwrap();
    let mlir = to_stablehlo(&comp).unwrap();
    assert!(mlir.contains("tensor<3xui1>"), "{mlir}");
    assert_eq!(
        canonical(&parse_stablehlo(&mlir).unwrap()),
        canonical(&comp)
    );
}
