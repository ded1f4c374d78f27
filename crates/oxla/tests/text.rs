//! The facade's text entry points: HLO text in and out, StableHLO out, each
//! on modules JAX printed, and the errors they give.

use std::path::{Path, PathBuf};

use oxla::Error;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/hlo")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn stablehlo_of_parsed_jax_hlo_is_what_jax_printed() {
    for name in ["W1", "W5", "W9_softmax"] {
        let comp = oxla::hlo::parse(&read(&format!("{name}.hlo.txt"))).unwrap();
        let ours = oxla::stablehlo::print(&comp).unwrap();
        let jax = read(&format!("{name}.stablehlo.mlir"));
        assert_eq!(ours.trim_end(), jax.trim_end(), "{name}");
    }
}

#[test]
fn hlo_text_round_trips_and_strict_text_reads_back_strict() {
    let comp = oxla::hlo::parse(&read("small/dialect.hlo")).unwrap();
    let text = oxla::hlo::print(&comp);
    assert_eq!(oxla::hlo::print(&oxla::hlo::parse(&text).unwrap()), text);
    assert!(text.contains("broadcast_dimensions={1}"), "{text}");
    assert!(matches!(
        oxla::hlo::verify_strict(&comp),
        Err(Error::Verification { .. })
    ));
    let strict = oxla::hlo::print(&oxla::hlo::to_strict(&comp).unwrap());
    assert!(!strict.contains("broadcast_dimensions"), "{strict}");
    oxla::hlo::verify_strict(&oxla::hlo::parse(&strict).unwrap()).unwrap();
}

#[test]
fn parse_errors_are_located() {
    let text = "HloModule m\n\nENTRY m {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[2,3] frobnicate(x)\n}\n";
    match oxla::hlo::parse(text) {
        Err(Error::Parse {
            line,
            column,
            message,
            ..
        }) => {
            assert_eq!((line, column), (5, 21));
            assert!(message.contains("frobnicate"), "{message}");
        }
        other => panic!("not a located parse error: {other:?}"),
    }
}
