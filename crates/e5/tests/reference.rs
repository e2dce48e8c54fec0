//! The port against the package's own C engine: every text of
//! tests/reference.json (377, Korean and English, queries and passages),
//! embedded from the cut Korean+English model file, within cosine 0.99 of
//! the vector the C engine gave on the package's whole model.

use base64::Engine;
use linkup_e5::{Kind, Model};

fn model() -> Model {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/multilingual-e5-small/e5-small-koen-q4.bin"
    );
    let bytes = std::fs::read(path).expect("the model file (models/multilingual-e5-small)");
    Model::from_bytes(Box::leak(bytes.into_boxed_slice())).expect("the model reads")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn every_reference_text_embeds_within_cosine_0_99_of_the_c_engine() {
    let model = model();
    let file: serde_json::Value =
        serde_json::from_str(include_str!("reference.json")).expect("reference.json");
    let references = file["references"].as_array().expect("references");
    assert!(references.len() >= 200);
    let mut worst = (1.0f32, String::new());
    let mut hangul = 0;
    for r in references {
        let text = r["text"].as_str().expect("text");
        let kind = match r["kind"].as_str() {
            Some("query") => Kind::Query,
            _ => Kind::Passage,
        };
        let scale = r["scale"].as_f64().expect("scale") as f32;
        let stored = base64::engine::general_purpose::STANDARD
            .decode(r["vector"].as_str().expect("vector"))
            .expect("base64");
        let reference: Vec<f32> = stored.iter().map(|q| f32::from(*q as i8) * scale).collect();
        let ported = model.embed(text, kind);
        assert_eq!(ported.len(), 384);
        let c = cosine(&ported, &reference);
        if c < worst.0 {
            worst = (c, text.to_owned());
        }
        hangul += usize::from(text.chars().any(|c| ('가'..='힣').contains(&c)));
    }
    assert!(
        hangul >= 100 && references.len() - hangul >= 100,
        "both languages"
    );
    eprintln!(
        "{} texts, worst cosine {} ({:?})",
        references.len(),
        worst.0,
        worst.1
    );
    assert!(worst.0 >= 0.99, "cosine {} for {:?}", worst.0, worst.1);
}

#[test]
fn related_texts_are_nearer_than_unrelated_ones_across_languages() {
    let model = model();
    let q = model.embed("휴가 신청은 어디서 하나요?", Kind::Query);
    let related = model.embed(
        "How to request annual leave in the HR portal",
        Kind::Passage,
    );
    let unrelated = model.embed(
        "The Kubernetes cluster upgrade is scheduled for Friday",
        Kind::Passage,
    );
    assert!(cosine(&q, &related) > cosine(&q, &unrelated) + 0.02);
}

#[test]
fn a_text_past_512_tokens_is_embedded_by_windows_and_an_empty_one_too() {
    let model = model();
    let long = "deployment pipeline runbook ".repeat(300);
    assert!(model.tokens(&long, Kind::Passage).len() > 510);
    let v = model.embed(&long, Kind::Passage);
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-3);
    assert_eq!(model.embed("", Kind::Query).len(), 384);
}
