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
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --lib

# Benchmarks: divan statistics per workload, then the interleaved same-run
# ratio table (crates/oxla-bench).
bench:
    cargo bench --workspace

# Benchmarks in one quick pass (n = 1024, fewer rounds).
bench-quick:
    cargo run --release -p oxla-bench -- --quick

# Differential testing, JIT against the interpreter, for as long as asked:
# `just differential 100000` (CI runs a fixed budget).
differential cases="20000":
    OXLA_DIFF_CASES={{cases}} cargo test --release -p oxla-testgen --test differential -- --nocapture

# Memcheck over the JIT's test suite (records no invalid reads or writes;
# see docs/reliability.md). Slow: about 50x.
valgrind:
    cargo test -p oxla-jit --no-run
    valgrind --tool=memcheck --smc-check=all --error-exitcode=99 --leak-check=no \
      $(ls -t target/debug/deps/jit-* | grep -v '\.d$' | head -1) --test-threads=1

# Build the docs, doctests included.
doc:
    cargo test --workspace --doc
    cargo doc --workspace --no-deps

# JAX interop checks, both directions (scripts/jax_interop.py): JAX-printed
# HLO runs in oxla, and what `oxla convert --to stablehlo` prints runs in XLA,
# with the same results. Not part of CI: the first run installs jax into
# .venv-jax (a few minutes). Writes the report to docs/jax-interop.md; commit it.
jax-check:
    test -x .venv-jax/bin/python || python3 -m venv .venv-jax
    .venv-jax/bin/pip install --quiet --disable-pip-version-check jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6
    cargo build --release -p oxla-cli
    .venv-jax/bin/python scripts/jax_interop.py --oxla "${CARGO_TARGET_DIR:-target}/release/oxla" --work "${CARGO_TARGET_DIR:-target}/jax-interop" --report docs/jax-interop.md --command "just jax-check"

# Fuzz the HLO parser longer than CI does (release build; 1,000,000
# mutants by default, OXLA_FUZZ_SEED=S for another sequence,
# OXLA_FUZZ_SECS=T to stop after T seconds). Failing inputs are saved in
# the target dir's tmp/fuzz-failures/.
fuzz iters="1000000":
    OXLA_FUZZ_ITERS={{iters}} cargo test --release -p oxla-ir --test fuzz_parser -- fuzz --nocapture
