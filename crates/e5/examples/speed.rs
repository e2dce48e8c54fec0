//! Milliseconds a text, one core: `cargo run --release -p linkup-e5
//! --example speed` embeds the reference texts (posts and questions of
//! the quality set, 377) three times and prints the median, the 90th
//! percentile and the median token count.

use std::time::Instant;

use linkup_e5::{Kind, Model};

fn main() {
    if std::env::var_os("FTZ").is_some() {
        #[allow(deprecated)]
        // SAFETY: sets flush-to-zero and denormals-are-zero for this thread.
        unsafe {
            use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
            _mm_setcsr(_mm_getcsr() | 0x8040);
        }
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/multilingual-e5-small/e5-small-koen-q4.bin"
    );
    let bytes = std::fs::read(path).expect("the model file");
    let model = Model::from_bytes(Box::leak(bytes.into_boxed_slice())).expect("the model");
    let file: serde_json::Value =
        serde_json::from_str(include_str!("../tests/reference.json")).expect("reference.json");
    let texts: Vec<&str> = file["references"]
        .as_array()
        .expect("references")
        .iter()
        .filter_map(|r| r["text"].as_str())
        .collect();
    let mut ms = Vec::new();
    let mut tokens = Vec::new();
    for _ in 0..3 {
        for text in &texts {
            let t = Instant::now();
            std::hint::black_box(model.embed(text, Kind::Passage));
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            tokens.push(model.tokens(text, Kind::Passage).len() + 2);
        }
    }
    ms.sort_by(f64::total_cmp);
    tokens.sort_unstable();
    println!(
        "{} texts: p50 {:.2} ms, p90 {:.2} ms; median {} tokens",
        ms.len(),
        ms[ms.len() / 2],
        ms[ms.len() * 9 / 10],
        tokens[tokens.len() / 2]
    );
}
