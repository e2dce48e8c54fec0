//! The multilingual model's language means (models/multilingual-e5-small/
//! language-means.json) are what the tuning half's posts give: each
//! language's mean vector of its posts as the index embeds them (text and
//! tags, as a query). English: tuning.json's posts; Korean: korean.json's
//! Korean posts, less those of the held-out questions. Held-out data never
//! enters them. `LINKUP_WRITE_MEANS=1` writes the file again.

use std::path::PathBuf;

use linkup_e5::{Kind, Model};
use serde_json::Value;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn read(path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(repo(path)).expect(path)).expect(path)
}

/// A post's embedded text: as `posts::search_text` makes it.
fn text(post: &Value) -> String {
    let tags: Vec<String> = post["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    linkup_suggestions::posts::search_text(post["text"].as_str().unwrap_or_default(), &tags)
}

fn mean(model: &Model, texts: &[String]) -> Vec<f64> {
    let mut sum = vec![0f64; model.dims()];
    for t in texts {
        for (s, v) in sum.iter_mut().zip(model.embed(t, Kind::Query)) {
            *s += f64::from(v);
        }
    }
    sum.iter().map(|s| s / texts.len() as f64).collect()
}

#[test]
fn the_language_means_are_the_tuning_halfs_posts() {
    let bytes = std::fs::read(repo("models/multilingual-e5-small/e5-small-koen-q4.bin"))
        .expect("the model file");
    let model = Model::from_bytes(Box::leak(bytes.into_boxed_slice())).expect("the model");
    let tuning = read("tests/quality/tuning.json");
    let korean = read("tests/quality/korean.json");
    let held_out: Vec<&str> = korean["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["half"] == "heldout")
        .flat_map(|q| {
            q["posts"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
        })
        .collect();
    let en: Vec<String> = tuning["posts"]
        .as_array()
        .unwrap()
        .iter()
        .map(text)
        .collect();
    let ko: Vec<String> = korean["posts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["lang"] == "ko" && !held_out.contains(&p["id"].as_str().unwrap_or_default()))
        .map(text)
        .collect();
    assert!(
        en.len() > 200 && ko.len() > 50,
        "{} / {}",
        en.len(),
        ko.len()
    );
    let (ko, en) = (mean(&model, &ko), mean(&model, &en));
    let path = repo("models/multilingual-e5-small/language-means.json");
    if std::env::var_os("LINKUP_WRITE_MEANS").is_some() {
        let f32s = |v: &[f64]| v.iter().map(|x| *x as f32).collect::<Vec<f32>>();
        let json = serde_json::json!({ "ko": f32s(&ko), "en": f32s(&en) });
        std::fs::write(&path, json.to_string()).expect("written");
    }
    let stored = read("models/multilingual-e5-small/language-means.json");
    for (lang, computed) in [("ko", &ko), ("en", &en)] {
        let stored: Vec<f64> = stored[lang]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(stored.len(), computed.len(), "{lang}");
        let worst = stored
            .iter()
            .zip(computed)
            .map(|(a, b)| (a - b).abs())
            .fold(0f64, f64::max);
        assert!(worst < 1e-5, "{lang}: the stored means differ by {worst}");
    }
}
