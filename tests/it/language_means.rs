//! The multilingual model's language means (models/multilingual-e5-small/
//! language-means.json) are what the tuning half's posts give: each
//! language's mean vector of its posts as the index embeds them (text and
//! tags, as a query). English: tuning.json's posts; Korean: korean.json's
//! Korean posts, less those of the held-out questions. Held-out data never
//! enters them. `LINKUP_WRITE_MEANS=1` writes the file again.
//!
//! The same posts are the model's reference board
//! (models/multilingual-e5-small/reference.bin: their vectors as the index
//! holds them, the means subtracted): a query's similarity to a post is
//! judged against its similarities to them, whatever board it is on (issue
//! 63). `LINKUP_WRITE_MEANS=1` writes it too.

use std::path::PathBuf;

use linkup_e5::{Kind, Model};
use linkup_suggestions::keywords::korean::is_korean;
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

fn mean(vectors: &[Vec<f32>]) -> Vec<f64> {
    let mut sum = vec![0f64; vectors[0].len()];
    for v in vectors {
        for (s, x) in sum.iter_mut().zip(v) {
            *s += f64::from(*x);
        }
    }
    sum.iter().map(|s| s / vectors.len() as f64).collect()
}

/// `raw` less `mean`, at unit length: as the index holds a post's vector.
fn corrected(raw: &[f32], mean: &[f64]) -> Vec<f32> {
    let v: Vec<f32> = raw.iter().zip(mean).map(|(x, m)| x - *m as f32).collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / norm).collect()
}

/// The reference board's file: `E5R1`, dimensions and count (u32), then
/// each vector as a scale (f32) and its components over it (i8), little-endian.
fn reference_file(vectors: &[Vec<f32>]) -> Vec<u8> {
    let mut out = b"E5R1".to_vec();
    out.extend((vectors[0].len() as u32).to_le_bytes());
    out.extend((vectors.len() as u32).to_le_bytes());
    for v in vectors {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = max / 127.0;
        out.extend(scale.to_le_bytes());
        out.extend(v.iter().map(|x| (x / scale).round() as i8 as u8));
    }
    out
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
    let embed = |texts: &[String]| -> Vec<Vec<f32>> {
        texts.iter().map(|t| model.embed(t, Kind::Query)).collect()
    };
    let (ko_raw, en_raw) = (embed(&ko), embed(&en));
    let (ko_texts, en_texts) = (ko, en);
    let (ko, en) = (mean(&ko_raw), mean(&en_raw));
    // Each corrected by its own text's language, as the index does (the
    // English-centred set's posts include Korean ones).
    let reference: Vec<Vec<f32>> = en_raw
        .iter()
        .zip(&en_texts)
        .chain(ko_raw.iter().zip(&ko_texts))
        .map(|(v, t)| corrected(v, if is_korean(t) { &ko } else { &en }))
        .collect();
    let reference_path = repo("models/multilingual-e5-small/reference.bin");
    if std::env::var_os("LINKUP_WRITE_MEANS").is_some() {
        std::fs::write(&reference_path, reference_file(&reference)).expect("written");
    }
    // Within a step of the 8-bit quantization: another CPU's kernels may
    // round the last bits of a float differently.
    let stored = std::fs::read(&reference_path).expect("the reference board");
    let computed = reference_file(&reference);
    assert_eq!(stored.len(), computed.len(), "the reference board's size");
    let dims = reference[0].len();
    for (i, (a, b)) in stored[12..]
        .chunks(4 + dims)
        .zip(computed[12..].chunks(4 + dims))
        .enumerate()
    {
        let value = |c: &[u8], j: usize| {
            f32::from_le_bytes([c[0], c[1], c[2], c[3]]) * f32::from(c[4 + j] as i8)
        };
        let worst = (0..dims)
            .map(|j| (value(a, j) - value(b, j)).abs())
            .fold(0f32, f32::max);
        assert!(worst < 0.02, "reference post {i} differs by {worst}");
    }
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
