//! `cargo bench -p oxla-bench`: every workload at n = 4096 against its
//! same-run baseline. Arguments after `--` go to the driver
//! (`cargo bench -p oxla-bench -- --only W1,W8`).

fn main() {
    std::process::exit(oxla_bench::driver::main_with_args(std::env::args().skip(1)));
}
