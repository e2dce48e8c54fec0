//! The ranking's bulk load: posts read at start-up (or by a replica's
//! full reload), indexed aside and installed at once.

use std::sync::Arc;

use super::{Ranking, write};
use crate::{
    posts::{lexical::Lexical, vectors::VectorSet},
    store::{Knowledge, Loader},
};

/// Posts read in bulk (at start-up, or a replica's full reload), installed
/// at once by [`Ranking::load`]. While the caller reads and indexes the
/// texts, a thread of its own computes the word model's vectors: at 100,000 posts
/// each takes about a second, so the start-up takes one, not two.
pub struct Load {
    ranking: Arc<Ranking>,
    lexical: Lexical,
    vectors: VectorSet,
    words: Option<WordsLoad>,
}

/// The word model's thread and the batch of texts on its way to it.
struct WordsLoad {
    batch: Vec<Text>,
    to_embed: std::sync::mpsc::Sender<Vec<Text>>,
    embedded: std::thread::JoinHandle<VectorSet>,
}

/// A post's id, searchable text and expiry.
type Text = (String, String, Option<i64>);

/// Texts sent to the embedding thread at a time.
const LOAD_BATCH: usize = 256;

impl Loader for Load {
    fn insert(
        &mut self,
        id: &str,
        text: &str,
        expires_at_ms: Option<i64>,
        vector: Option<Vec<f32>>,
    ) {
        self.lexical.insert(id, text, expires_at_ms);
        if let Some(v) = vector.filter(|_| self.ranking.vector_model.is_some()) {
            let digest = self.ranking.digest(text);
            self.vectors.insert(id.to_owned(), digest, expires_at_ms, v);
        }
        if let Some(words) = &mut self.words {
            words
                .batch
                .push((id.to_owned(), text.to_owned(), expires_at_ms));
            if words.batch.len() == LOAD_BATCH {
                let batch = std::mem::take(&mut words.batch);
                // A failed send means the thread is gone: `finish` says so.
                let _ = words.to_embed.send(batch);
            }
        }
    }

    /// Shared documents and replies are the board's (`crate::board`).
    fn knowledge(&mut self, _: &str, _: Option<i64>, _: Knowledge) {}

    fn install(mut self: Box<Self>) {
        let words = self.finish();
        let ranking = &self.ranking;
        *write(&ranking.lexical) = std::mem::take(&mut self.lexical);
        if let Some(set) = ranking.stored_set() {
            *write(set) = std::mem::take(&mut self.vectors);
        }
        if let Some(set) = ranking.words_set() {
            *write(set) = words;
        }
    }
}

impl Load {
    /// The word model's vectors of every text inserted (empty without it).
    fn finish(&mut self) -> VectorSet {
        let Some(words) = self.words.take() else {
            return VectorSet::default();
        };
        let _ = words.to_embed.send(words.batch);
        drop(words.to_embed);
        words.embedded.join().unwrap_or_else(|_| {
            tracing::error!(
                "the word model's thread failed: posts are ranked without it until re-indexed"
            );
            VectorSet::default()
        })
    }
}

impl Ranking {
    /// A bulk load (with the word model, its embedding thread started).
    pub(super) fn load(self: Arc<Self>) -> Load {
        let words = self.word_model.clone().map(|model| {
            let (to_embed, batches) = std::sync::mpsc::channel::<Vec<Text>>();
            let embedded = std::thread::spawn(move || {
                let mut set = VectorSet::default();
                for (id, text, expires) in batches.into_iter().flatten() {
                    if let Some(v) = model.embed_text(&text) {
                        set.insert(id, 0, expires, v);
                    }
                }
                set
            });
            WordsLoad {
                batch: Vec::with_capacity(LOAD_BATCH),
                to_embed,
                embedded,
            }
        });
        Load {
            ranking: self,
            lexical: Lexical::default(),
            vectors: VectorSet::default(),
            words,
        }
    }
}
