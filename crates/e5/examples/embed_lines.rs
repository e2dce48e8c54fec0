//! Embeds JSON lines `{"id", "text", "kind"}` (`kind`: `q` query, else
//! passage) from stdin and writes `{"id", "kind", "v"}` lines: the raw
//! vectors `tests/quality/e5_choices.py` compares the prefix and language
//! choices with. `cargo run --release -p linkup-e5 --example embed_lines`.

use std::io::BufRead;

use linkup_e5::{Kind, Model};

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/multilingual-e5-small/e5-small-koen-q4.bin"
    );
    let bytes = std::fs::read(path).expect("the model file");
    let model = Model::from_bytes(Box::leak(bytes.into_boxed_slice())).expect("the model");
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("a line");
        let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        let kind = if v["kind"] == "q" {
            Kind::Query
        } else {
            Kind::Passage
        };
        let e = model.embed(v["text"].as_str().unwrap_or_default(), kind);
        println!(
            "{}",
            serde_json::json!({"id": v["id"], "kind": v["kind"], "v": e})
        );
    }
}
