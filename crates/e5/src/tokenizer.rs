//! XLM-RoBERTa's SentencePiece unigram tokenizer, as the model file holds
//! it: the pieces with their scores, and the character normalisation
//! table. Text is normalised character by character, runs of spaces
//! collapsed, a metaspace (`▁`, U+2581) put before it and in place of each
//! space; then the best segmentation by the pieces' scores is found
//! (Viterbi), an unknown character costing the lowest score less 10.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
};

use crate::{Error, reader::Reader};

/// The metaspace SentencePiece writes in place of a space.
const META: char = '\u{2581}';

/// The tokenizer, borrowing the pieces' bytes from the model image.
pub struct Tokenizer {
    pub bos: u32,
    pub eos: u32,
    unk: u32,
    unk_score: f32,
    max_piece_bytes: usize,
    scores: Vec<f32>,
    /// Each piece's bytes → its id.
    pieces: HashMap<&'static [u8], u32, BuildHasherDefault<Fnv>>,
    /// Normalisation: a character → the characters it becomes.
    normal: HashMap<char, Vec<char>, BuildHasherDefault<Fnv>>,
}

impl Tokenizer {
    /// Reads the tokenizer section of the model image.
    pub(crate) fn read(r: &mut Reader<'static>) -> Result<Self, Error> {
        let n = r.count()?;
        let bos = r.u32()?;
        let eos = r.u32()?;
        let _pad = r.u32()?;
        let unk = r.u32()?;
        let blob_len = r.u64()? as usize;
        let offs = r.u32s(n + 1)?;
        let scores = r.f32s(n)?;
        let blob = r.bytes(blob_len)?;
        let mut pieces = HashMap::with_capacity_and_hasher(n, Default::default());
        let mut max_piece_bytes = 1;
        for id in 0..n {
            let (a, b) = (offs[id] as usize, offs[id + 1] as usize);
            let piece = blob
                .get(a..b)
                .ok_or(Error::Malformed("a piece's offsets"))?;
            max_piece_bytes = max_piece_bytes.max(piece.len());
            if !piece.is_empty() {
                // The first of two equal pieces wins, as in the C engine's
                // table (first inserted, first probed).
                pieces.entry(piece).or_insert(id as u32);
            }
        }
        let unk_score = scores.iter().copied().fold(f32::INFINITY, f32::min) - 10.0;
        let n_norm = r.count()?;
        let norm_bytes = r.u32()? as usize;
        let mut norm = Reader::new(r.bytes(norm_bytes)?);
        let mut normal = HashMap::with_capacity_and_hasher(n_norm, Default::default());
        for _ in 0..n_norm {
            let from = norm.char()?;
            let outs = norm.u8()? as usize;
            let to = (0..outs)
                .map(|_| norm.char())
                .collect::<Result<Vec<_>, _>>()?;
            normal.insert(from, to);
        }
        Ok(Self {
            bos,
            eos,
            unk,
            unk_score,
            max_piece_bytes,
            scores,
            pieces,
            normal,
        })
    }

    /// The ids of `text`'s pieces, without the sentence markers.
    pub fn content(&self, text: &str) -> Vec<u32> {
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars() {
            match self.normal.get(&c) {
                Some(to) => chars.extend_from_slice(to),
                None => chars.push(c),
            }
        }
        chars.dedup_by(|b, a| *a == ' ' && *b == ' ');
        if chars.first() != Some(&' ') {
            chars.insert(0, META);
        }
        let mut buf = String::with_capacity(chars.len() * 3);
        let mut starts = Vec::with_capacity(chars.len() + 1);
        for c in chars {
            starts.push(buf.len());
            buf.push(if c == ' ' { META } else { c });
        }
        starts.push(buf.len());
        self.viterbi(buf.as_bytes(), &starts)
    }

    /// The best segmentation of `buf` (its characters starting at
    /// `starts`) into pieces.
    fn viterbi(&self, buf: &[u8], starts: &[usize]) -> Vec<u32> {
        let n = starts.len() - 1;
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        // (piece, the character it starts at); `None`: an unknown character.
        let mut back: Vec<(Option<u32>, usize)> = vec![(None, 0); n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] == f32::NEG_INFINITY {
                continue;
            }
            let from = starts[i];
            for e in i + 1..=n {
                if starts[e] - from > self.max_piece_bytes {
                    break;
                }
                if let Some(&id) = self.pieces.get(&buf[from..starts[e]])
                    && id != self.unk
                {
                    let score = best[i] + self.scores[id as usize];
                    if score > best[e] {
                        best[e] = score;
                        back[e] = (Some(id), i);
                    }
                }
            }
            let unknown = best[i] + self.unk_score;
            if unknown > best[i + 1] {
                best[i + 1] = unknown;
                back[i + 1] = (None, i);
            }
        }
        let mut ids = Vec::new();
        let mut i = n;
        while i > 0 {
            let (piece, from) = back[i];
            ids.push(piece.unwrap_or(self.unk));
            i = from;
        }
        ids.reverse();
        ids
    }
}

/// FNV-1a: the pieces are short byte strings, looked up many times a text.
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}
