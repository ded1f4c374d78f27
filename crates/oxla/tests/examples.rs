//! Every example in the repository's `examples/` folder, run as a test so
//! none can rot: each is compiled in here as a module and its `main` called
//! (it returns an error when what it computes is wrong). Adding an example
//! adds two lines here; see `examples/README.md`.

#[path = "../../../examples/builder.rs"]
mod builder;
#[path = "../../../examples/jax_classifier.rs"]
mod jax_classifier;

#[test]
fn builder_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    builder::main()
}

#[test]
fn jax_classifier_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    jax_classifier::main()
}
