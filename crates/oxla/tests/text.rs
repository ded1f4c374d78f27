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

/// Reducers that each reduce with the one before, one more level deep than
/// the StableHLO writer follows.
#[test]
fn stablehlo_refusals_are_oxla_errors() {
    let levels = oxla::stablehlo::MAX_REGION_DEPTH + 2;
    let mut text = String::from(
        "HloModule deep\n\nr0 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         ROOT s = f32[] add(a, b)\n}\n\n",
    );
    for k in 1..levels {
        text.push_str(&format!(
            "r{k} {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
             ROOT s = f32[] reduce(a, b), dimensions={{}}, to_apply=r{}\n}}\n\n",
            k - 1
        ));
    }
    text.push_str(&format!(
        "ENTRY deep {{\n  x = f32[4] parameter(0)\n  z = f32[] constant(0)\n  \
         ROOT s = f32[] reduce(x, z), dimensions={{0}}, to_apply=r{}\n}}\n",
        levels - 1
    ));
    let comp = oxla::hlo::parse(&text).unwrap();
    let err = match oxla::stablehlo::print(&comp) {
        Ok(mlir) => panic!("written, {} bytes", mlir.len()),
        Err(e) => e,
    };
    assert_eq!(err.code(), "OX0801");
    match &err {
        Error::Backend { backend, message } => {
            assert_eq!(backend, "stablehlo");
            assert!(
                message.contains("reducer regions nest more than 200 levels deep"),
                "{message}"
            );
        }
        other => panic!("not a backend error: {other}"),
    }
}
