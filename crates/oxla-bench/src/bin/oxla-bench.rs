//! `cargo run --release -p oxla-bench -- [--n N] [--only W1,W5] [--quick]`

fn main() {
    std::process::exit(oxla_bench::driver::main_with_args(std::env::args().skip(1)));
}
