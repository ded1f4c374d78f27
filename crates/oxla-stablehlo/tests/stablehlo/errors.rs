//! Hand-broken MLIR: every file in `tests/data/stablehlo/errors/` starts
//! with `// error: ` and the first line the error must print
//! (`line:column: op: message`); the parser must refuse the file with
//! exactly that, an `Error::Parse`, never a panic.

use oxla_ir::Error;
use oxla_stablehlo::parse_stablehlo;

use super::common::{data, read};

#[test]
fn broken_files_give_located_errors_naming_the_op() {
    let dir = data("stablehlo/errors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let expected = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// error: "))
            .unwrap_or_else(|| panic!("{name}: the first line must be `// error: ...`"));
        let err = match parse_stablehlo(&text) {
            Ok(_) => {
                failures.push(format!("{name}: accepted"));
                continue;
            }
            Err(e) => e,
        };
        assert!(
            matches!(err, Error::Parse { .. }),
            "{name}: not a located error: {err:?}"
        );
        let printed = err.to_string();
        let first = printed.lines().next().unwrap_or("");
        if first != expected {
            failures.push(format!(
                "{name}:\n  expected: {expected}\n  got:      {first}\n{printed}"
            ));
        }
    }
    assert!(files.len() >= 25, "only {} broken files", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
