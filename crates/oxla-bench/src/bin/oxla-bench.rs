//! `cargo run --release -p oxla-bench -- [--n N] [--only W1,W5] [--quick]`,
//! or `... -- --models [--only a,b] [--xla bench.json]` for the JAX models.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = if args.iter().any(|a| a == "--models") {
        oxla_bench::models::main_with_args(args.into_iter())
    } else {
        oxla_bench::driver::main_with_args(args.into_iter())
    };
    std::process::exit(code);
}
