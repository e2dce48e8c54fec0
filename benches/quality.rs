//! `cargo bench --bench quality`: the relevance evaluation (the labelled set
//! in `tests/quality/` through the real app and the fakes) printed per half,
//! the held-out half (the figures that count) beside the tuning half, with
//! the questions that failed and the queries that were sent. `QUALITY_HALF=
//! tuning` runs the tuning half alone (what tuning may look at);
//! `QUALITY_HALF=b` set B at its three board sizes (`b30`, `b300`, `b3000`
//! one of them); the `quality` test holds the held-out figures to their
//! floors. `QUALITY_SHARES=1` runs the board's knowledge instead: the
//! half's questions with colleagues' shares on their similar posts, with
//! and without them (issue 64).

#[path = "../tests/it/support/mod.rs"]
#[allow(dead_code)]
mod support;

use support::quality::{Half, evaluate, evaluate_shares};

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let halves = match std::env::var("QUALITY_HALF").as_deref() {
        Ok("tuning") => vec![Half::Tuning],
        Ok("heldout") => vec![Half::Heldout],
        Ok("b") => vec![Half::B(30), Half::B(300), Half::B(3000)],
        Ok(size) if size.starts_with('b') => {
            vec![Half::B(size[1..].parse().expect("b30, b300, b3000"))]
        }
        _ => vec![Half::Heldout, Half::Tuning],
    };
    if std::env::var_os("QUALITY_SHARES").is_some() {
        for half in halves {
            let figures = runtime.block_on(evaluate_shares(half));
            println!("## {half:?}, the board's knowledge\n\n{}", figures.table());
            println!("Missed ({}):", figures.misses.len());
            for miss in &figures.misses {
                println!("- {miss}");
            }
            println!();
        }
        return;
    }
    for half in halves {
        let figures = runtime.block_on(evaluate(half));
        println!("## {half:?}\n\n{}", figures.table());
        println!("Failed ({}):", figures.failures.len());
        for failure in &figures.failures {
            println!("- {failure}");
        }
        println!();
    }
}
