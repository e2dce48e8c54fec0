//! The local embedding model: a static token-embedding model computed in
//! process (no network, microseconds per text). A text's vector is the mean of
//! its tokens' vectors, at unit length, as WordLlama's own inference computes
//! it. The model in `models/` is WordLlama `l2_supercat` (256 dimensions,
//! MIT), copied from its PyPI wheel by the script beside it, and compiled
//! into the binary; `posts.model_path` loads another from a directory.

use std::{
    fs::File,
    io::{BufReader, Read, Seek, SeekFrom},
    path::{Path, PathBuf},
};

use half::f16;
use safetensors::{
    Dtype,
    tensor::{Metadata, TensorInfo},
};
use tokenizers::Tokenizer;

/// The token LLaMA's tokenizer gives a word start it keeps apart (`▁`
/// alone, before digits and some scripts): not a piece of the word.
const WORD_START: u32 = 29871;

/// The model's files in its directory.
const TOKENIZER_FILE: &str = "tokenizer.json";
/// The token table: the one tensor of this safetensors file, `[vocab, dims]`.
const TABLE_FILE: &str = "l2_supercat_256.safetensors";

/// Why the model could not be loaded; names the file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("cannot read the local embedding model's {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the local embedding model's {path} is not a valid model file: {reason}")]
    Invalid { path: PathBuf, reason: String },
}

/// A loaded static embedding model.
pub struct WordModel {
    tokenizer: Tokenizer,
    /// Token vectors quantized to 8 bits, `dims` per token: the float16 table
    /// would be 16 MB and need converting per use, float32 32 MB; 8 bits with
    /// a scale per token keep cosines within 0.001 of the original (the
    /// `matches_wordllamas_own_inference` test) in 8 MB.
    table: Vec<i8>,
    scales: Vec<f32>,
    dims: usize,
    name: String,
}

/// The model compiled into the binary (`models/wordllama-l2-supercat-256`):
/// the service needs no file beside it.
const EMBEDDED_TOKENIZER: &[u8] =
    include_bytes!("../../models/wordllama-l2-supercat-256/tokenizer.json");
const EMBEDDED_TABLE: &[u8] =
    include_bytes!("../../models/wordllama-l2-supercat-256/l2_supercat_256.safetensors");
/// The embedded model's name, as a loaded directory's would be.
const EMBEDDED_NAME: &str = "wordllama-l2-supercat-256";

impl WordModel {
    /// The model compiled into the binary.
    pub fn embedded() -> Result<Self, ModelError> {
        let label = Path::new("(embedded)").join(EMBEDDED_NAME);
        let table = std::io::Cursor::new(EMBEDDED_TABLE);
        let model = Self::from_parts(
            EMBEDDED_TOKENIZER,
            &label.join(TOKENIZER_FILE),
            table,
            &label.join(TABLE_FILE),
            EMBEDDED_NAME.to_owned(),
        );
        release_pages(EMBEDDED_TABLE);
        release_pages(EMBEDDED_TOKENIZER);
        model
    }

    /// Loads the model in `dir` (its `tokenizer.json` and token table).
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let tokenizer_path = dir.join(TOKENIZER_FILE);
        let bytes = read(&tokenizer_path)?;
        let table_path = dir.join(TABLE_FILE);
        let file = File::open(&table_path).map_err(|source| ModelError::Read {
            path: table_path.clone(),
            source,
        })?;
        let name = dir
            .file_name()
            .map_or_else(|| "local".into(), |n| n.to_string_lossy().into_owned());
        Self::from_parts(&bytes, &tokenizer_path, file, &table_path, name)
    }

    /// A model from its tokenizer's JSON and its token table, read row by
    /// row: the float16 table is never in memory whole (16 MB that the
    /// allocator would keep after loading). The paths name the parts in errors.
    fn from_parts(
        tokenizer: &[u8],
        tokenizer_path: &Path,
        mut table: impl Read + Seek,
        table_path: &Path,
        name: String,
    ) -> Result<Self, ModelError> {
        let tokenizer = Tokenizer::from_bytes(tokenizer).map_err(|e| ModelError::Invalid {
            path: tokenizer_path.to_owned(),
            reason: e.to_string(),
        })?;
        let invalid = |reason: String| ModelError::Invalid {
            path: table_path.to_owned(),
            reason,
        };
        let read_error = |source: std::io::Error| ModelError::Read {
            path: table_path.to_owned(),
            source,
        };
        let (data_start, tensor) = table_header(&mut table).map_err(|e| match e {
            HeaderError::Read(e) => read_error(e),
            HeaderError::Invalid(reason) => invalid(reason),
        })?;
        let [vocab, dims] = *tensor.shape.as_slice() else {
            return Err(invalid(format!(
                "shape {:?}, not [vocab, dims]",
                tensor.shape
            )));
        };
        let (begin, end) = tensor.data_offsets;
        let size = end.checked_sub(begin);
        let table_len = table.seek(SeekFrom::End(0)).map_err(read_error)?;
        if tensor.dtype != Dtype::F16
            || vocab == 0
            || dims == 0
            || size.is_none()
            || size != vocab.checked_mul(dims).and_then(|n| n.checked_mul(2))
            || data_start.saturating_add(end as u64) > table_len
        {
            return Err(invalid(format!(
                "{:?} {vocab}x{dims} at bytes {begin}..{end} of {table_len}, not a float16 table",
                tensor.dtype
            )));
        }
        if tokenizer.get_vocab_size(true) > vocab {
            return Err(invalid(format!(
                "{vocab} token vectors for a tokenizer of {}",
                tokenizer.get_vocab_size(true)
            )));
        }
        table
            .seek(SeekFrom::Start(data_start + begin as u64))
            .map_err(read_error)?;
        let (table, scales) =
            quantize_rows(BufReader::new(table), vocab, dims).map_err(read_error)?;
        Ok(Self {
            tokenizer,
            table,
            scales,
            dims,
            name,
        })
    }

    /// The model's name (its directory's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Dimensions of its vectors.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Bytes the loaded token table holds.
    pub fn table_bytes(&self) -> usize {
        self.table.len() + self.scales.len() * size_of::<f32>()
    }

    /// How many tokens the tokenizer splits `word` into: one for the
    /// frequent words its vocabulary holds whole, more for rare ones.
    pub fn pieces(&self, word: &str) -> usize {
        self.tokenizer.encode_fast(word, false).map_or(0, |e| {
            e.get_ids().iter().filter(|&&id| id != WORD_START).count()
        })
    }

    /// How rare `word` is in the language, in nats: its vocabulary holds
    /// frequent words whole, roughly in order of frequency (the tokenizer's
    /// merges were learnt most frequent first), so a whole word's rank stands
    /// for its frequency (Zipf: `-ln p ≈ ln rank`); a word split into
    /// pieces of several letters is rarer than any whole one. A word spelt
    /// out letter by letter or byte by byte (Hangul, to this model) is one
    /// it knows nothing of: the middle of its vocabulary, neither common nor rare.
    pub fn rarity(&self, word: &str) -> f32 {
        let Ok(encoding) = self.tokenizer.encode_fast(word, false) else {
            return 0.0;
        };
        let ids: Vec<u32> = encoding
            .get_ids()
            .iter()
            .copied()
            .filter(|&id| id != WORD_START)
            .collect();
        let vocab = self.scales.len() as f32;
        let spelt_out = |id: &u32| {
            self.tokenizer.id_to_token(*id).is_none_or(|t| {
                t.starts_with("<0x") || t.trim_start_matches('▁').chars().count() <= 1
            })
        };
        match ids.as_slice() {
            [] => 1.0,
            [id] => (*id).max(2) as f32,
            ids if ids.iter().any(spelt_out) => vocab / 2.0,
            _ => vocab,
        }
        .ln()
    }

    /// The unit vector of `text`; None when it has no token (empty text).
    pub fn embed_text(&self, text: &str) -> Option<Vec<f32>> {
        let encoding = self.tokenizer.encode_fast(text, false).ok()?;
        let mut sum = vec![0f32; self.dims];
        let mut tokens = 0;
        for &id in encoding.get_ids() {
            let id = id as usize;
            let Some(row) = self.table.get(id * self.dims..(id + 1) * self.dims) else {
                continue;
            };
            let scale = self.scales[id];
            for (s, &q) in sum.iter_mut().zip(row) {
                *s += f32::from(q) * scale;
            }
            tokens += 1;
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if tokens == 0 || !norm.is_normal() {
            return None;
        }
        sum.iter_mut().for_each(|x| *x /= norm);
        Some(sum)
    }
}

/// Lets the kernel take back the pages of `bytes`, part of the binary's
/// read-only data, once they have been read: the model is loaded into its
/// own tables, and its 18 MB of file pages would otherwise stay resident
/// (B12: +17 MB of RSS). Read-only file pages are reloaded from the binary
/// if touched again, so nothing is lost.
fn release_pages(bytes: &'static [u8]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (bytes.as_ptr() as usize).next_multiple_of(PAGE);
        let end = (bytes.as_ptr() as usize + bytes.len()) / PAGE * PAGE;
        if end > start {
            // SAFETY: the range lies inside a `'static` read-only mapping of
            // the executable; MADV_DONTNEED on a private file mapping that
            // was never written only drops its pages from this process.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
}

fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|source| ModelError::Read {
        path: path.to_owned(),
        source,
    })
}

/// `vocab` little-endian float16 rows of `dims` read from `data` as 8-bit
/// components with a scale per row (its largest component maps to ±127).
fn quantize_rows(
    mut data: impl Read,
    vocab: usize,
    dims: usize,
) -> std::io::Result<(Vec<i8>, Vec<f32>)> {
    let mut table = Vec::with_capacity(vocab * dims);
    let mut scales = Vec::with_capacity(vocab);
    let mut bytes = vec![0u8; 2 * dims];
    let mut row = vec![0f32; dims];
    for _ in 0..vocab {
        data.read_exact(&mut bytes)?;
        for (x, b) in row.iter_mut().zip(bytes.chunks_exact(2)) {
            *x = f16::from_le_bytes([b[0], b[1]]).to_f32();
        }
        let max = row.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max.is_normal() { max / 127.0 } else { 1.0 };
        table.extend(row.iter().map(|x| (x / scale).round() as i8));
        scales.push(scale);
    }
    Ok((table, scales))
}

/// Why a safetensors header could not be read.
enum HeaderError {
    Read(std::io::Error),
    Invalid(String),
}

/// The largest header read: a one-tensor file's is a few hundred bytes.
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// A safetensors file's header (its length, then its JSON, as the format
/// says): where the data starts, and its one tensor.
fn table_header(file: &mut impl Read) -> Result<(u64, TensorInfo), HeaderError> {
    let mut len = [0u8; 8];
    file.read_exact(&mut len).map_err(HeaderError::Read)?;
    let len = u64::from_le_bytes(len);
    if len > MAX_HEADER_BYTES {
        return Err(HeaderError::Invalid(format!("a header of {len} bytes")));
    }
    let mut header = vec![0u8; len as usize];
    file.read_exact(&mut header).map_err(HeaderError::Read)?;
    let metadata: Metadata =
        serde_json::from_slice(&header).map_err(|e| HeaderError::Invalid(e.to_string()))?;
    let mut tensors = metadata.tensors().into_values();
    match (tensors.next(), tensors.next()) {
        (Some(tensor), None) => Ok((8 + len, tensor.clone())),
        _ => Err(HeaderError::Invalid("not one tensor".into())),
    }
}

/// The model shipped with the service (compiled in).
#[cfg(test)]
pub(crate) fn shipped() -> WordModel {
    WordModel::embedded().expect("the shipped model loads")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::posts::meaning::dot;

    #[derive(serde::Deserialize)]
    struct Reference {
        items: Vec<Item>,
    }

    #[derive(serde::Deserialize)]
    struct Item {
        text: String,
        ids: Vec<u32>,
        vector: Vec<f32>,
    }

    #[test]
    fn matches_wordllamas_own_inference() {
        let model = shipped();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models/wordllama-l2-supercat-256/reference.json");
        let reference: Reference =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(reference.items.len() >= 8);
        for item in reference.items {
            let ids = model
                .tokenizer
                .encode_fast(item.text.as_str(), false)
                .unwrap();
            assert_eq!(ids.get_ids(), item.ids, "tokens of {:?}", item.text);
            match model.embed_text(&item.text) {
                Some(v) => {
                    let cos = dot(&v, &item.vector);
                    assert!(
                        cos > 0.999,
                        "{:?}: cosine {cos} with WordLlama's",
                        item.text
                    );
                }
                None => assert!(item.ids.is_empty(), "{:?} has tokens", item.text),
            }
        }
    }

    #[test]
    fn related_texts_are_closer_than_unrelated_ones() {
        let model = shipped();
        let cos = |a: &str, b: &str| -> f32 {
            let (a, b) = (model.embed_text(a).unwrap(), model.embed_text(b).unwrap());
            dot(&a, &b)
        };
        let q = "VPN connection drops when working from home";
        assert!(cos(q, "remote access VPN setup guide") > cos(q, "cafeteria lunch menu"));
        assert_eq!(model.dims(), 256);
        assert!(model.table_bytes() < 9_000_000, "{}", model.table_bytes());
    }

    #[test]
    fn a_model_directory_loads_the_same_model_as_the_embedded_one() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/wordllama-l2-supercat-256");
        let loaded = WordModel::load(&dir).unwrap();
        let embedded = shipped();
        assert_eq!(loaded.name(), embedded.name());
        let text = "How do I set up CI/CD for our repo?";
        assert_eq!(loaded.embed_text(text), embedded.embed_text(text));
    }

    #[test]
    fn a_missing_or_corrupt_model_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = WordModel::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains("tokenizer.json"), "{err}");
        let shipped =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("models/wordllama-l2-supercat-256");
        std::fs::copy(
            shipped.join(TOKENIZER_FILE),
            dir.path().join(TOKENIZER_FILE),
        )
        .unwrap();
        std::fs::write(dir.path().join(TABLE_FILE), b"not a model").unwrap();
        let err = WordModel::load(dir.path()).err().unwrap().to_string();
        assert!(
            err.contains(TABLE_FILE) && err.contains("not a valid model"),
            "{err}"
        );
        // A table cut short (an interrupted copy): its header is whole.
        let table = std::fs::read(shipped.join(TABLE_FILE)).unwrap();
        std::fs::write(dir.path().join(TABLE_FILE), &table[..table.len() / 2]).unwrap();
        let err = WordModel::load(dir.path()).err().unwrap().to_string();
        assert!(
            err.contains(TABLE_FILE) && err.contains("not a valid model"),
            "{err}"
        );
    }
}
