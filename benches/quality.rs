//! `cargo bench --bench quality`: the relevance evaluation (the labelled set
//! in `tests/quality/set.json` through the real app and the fakes) printed as
//! a table. The `quality` test holds the same figures to their floors.

#[path = "../tests/it/support/mod.rs"]
#[allow(dead_code)]
mod support;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let figures = runtime.block_on(support::quality::evaluate());
    println!("{}", figures.table());
}
