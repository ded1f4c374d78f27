# oxla developer recipes. The README's two commands come first; everything
# else is for developers. `just` is optional: each recipe is a plain command.

# Run the end-to-end demo (build, print HLO, evaluate, print results).
demo:
    cargo run --release -p oxla-cli -- demo

# Run the whole test suite, exactly as CI does.
test:
    cargo test --workspace

# CI's script (CI=true: changed snapshots fail instead of being written).
ci:
    bash .ci/run

# Review changed snapshots (needs `cargo install cargo-insta`).
snapshots:
    cargo insta review

# Accept nothing blindly: show pending snapshot files.
snapshots-pending:
    find . -name '*.snap.new' -not -path './target/*'

# Format and lint.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Benchmarks (criterion/divan benches of the JIT workloads).
bench:
    cargo bench --workspace

# Build the docs, doctests included.
doc:
    cargo test --workspace --doc
    cargo doc --workspace --no-deps
