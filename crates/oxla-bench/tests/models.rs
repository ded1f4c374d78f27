//! The model mode cannot rot: `oxla-bench --models` on a tiny budget prints
//! a row per bundled model whose figures parse, and every model runs on the
//! JIT or is refused with the JIT's typed `Unsupported` error. Not a timing:
//! the figures are only checked to be positive numbers.

use std::process::Command;

#[test]
fn model_mode_prints_a_parsable_row_per_model() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let names = oxla_bench::models::model_names(&dir).unwrap();
    assert_eq!(names.len(), 12, "{names:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_oxla-bench"))
        .args([
            "--models",
            "--rounds",
            "1",
            "--min-round-ms",
            "0",
            "--compiles",
            "1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let mut ran = 0;
    for name in &names {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{stdout}"));
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 10, "{row}");
        if cells[1] == "fail" {
            let why = stdout
                .lines()
                .find(|l| l.starts_with(&format!("{name} fails: ")))
                .unwrap_or_else(|| panic!("no reason for {name}:\n{stdout}"));
            assert!(why.contains("Unsupported by the jit"), "{why}");
            continue;
        }
        // Compile ms and run ms are positive; GB/s (rounded) is a number.
        for (k, cell) in cells[1..3].iter().chain(&cells[4..5]).enumerate() {
            let v: f64 = cell
                .parse()
                .unwrap_or_else(|e| panic!("{row}: cell {k}: {e}"));
            assert!(v.is_finite() && (v > 0.0 || k == 2 && v == 0.0), "{row}");
        }
        ran += 1;
    }
    assert!(ran >= 11, "only {ran} models ran:\n{stdout}");
    let summary = format!("oxla ran {ran} of 12 models");
    assert!(stdout.contains(&summary), "{stdout}");
}

#[test]
fn xla_figures_are_read_and_compared() {
    let dir = std::env::temp_dir().join(format!("oxla-bench-xla-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bench.json");
    std::fs::write(
        &path,
        r#"{"models": [{"name": "matmul_768", "xla_run_ms": 36.0, "xla_compile_ms": 65.7,
            "iree_run_ms": 76.6, "errors": {}}, {"name": "other", "xla_run_ms": NaN}]}"#,
    )
    .unwrap();
    let figures = oxla_bench::models::read_xla(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(figures.len(), 2);
    assert_eq!(figures[0].0, "matmul_768");
    assert_eq!(figures[0].1, [Some(36.0), Some(65.7), Some(76.6)]);
    assert_eq!(figures[1].1, [None, None, None]);
    let row = oxla_bench::models::ModelRow {
        name: "matmul_768".into(),
        description: String::new(),
        outcome: Ok(oxla_bench::models::Measured {
            compile_ms: 6.57,
            run_ms: 18.0,
            min_ms: 17.0,
            flops: Some(2 * 768 * 768 * 768),
            bytes: 3 * 768 * 768 * 4,
        }),
        xla_run_ms: Some(36.0),
        xla_compile_ms: Some(65.7),
        iree_run_ms: Some(76.6),
    };
    let t = oxla_bench::models::table(&[row]);
    assert!(
        t.contains(
            "| matmul_768 | 6.57 | 18.00 | 50.3 | 0.4 | 36.00 | 2.00x | 76.60 | 4.26x | 10.00x |"
        ),
        "{t}"
    );
    assert!(t.contains("run speedup geomean vs XLA 2.00x over 1"), "{t}");
}
