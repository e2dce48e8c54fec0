//! A post's keywords as the board spells them: a misspelt English word
//! respelt by the index's own statistics ([`keywords::respelt`]).

use super::{PostIndex, relevance};
use crate::keywords;

impl PostIndex {
    /// The keywords of a post's `text` and `tags`
    /// ([`keywords::post_keywords`]), each misspelt English word respelt as
    /// the posts spell it (`pasword` → `password`), duplicates dropped:
    /// what the Microsoft 365 query and the evidence of its hits are made
    /// of. A word the model's vocabulary holds whole, in lower case or
    /// capitalized (`spending`, `Korea`), is a word of the language, not a
    /// slip, and stays. Words stay as written without a model, or in an
    /// index too small to tell (under 30 posts).
    pub fn keywords(&self, text: &str, tags: &[String]) -> Vec<String> {
        let words = keywords::post_keywords(text, tags);
        let ranking = &self.ranking;
        // The model's vocabulary (the multilingual model's, else the word
        // model's): one piece for a word frequent in the language.
        let pieces: &dyn Fn(&str) -> usize = match (ranking.multilingual(), ranking.word_model()) {
            (Some(m), _) => &|w| m.pieces(w),
            (None, Some(m)) => &|w| m.pieces(w),
            (None, None) => return words,
        };
        if ranking.counts().0 < relevance::MIN_POSTS_FOR_SPREAD {
            return words;
        }
        // A word the vocabulary holds whole, in lower case or capitalized.
        let is_word = |w: &str| {
            let mut capitalized = w.to_owned();
            capitalized[..1].make_ascii_uppercase();
            pieces(w) == 1 || pieces(&capitalized) == 1
        };
        let holding = |term: &str| ranking.document_frequency(term).1;
        let mut out: Vec<String> = Vec::with_capacity(words.len());
        for word in words {
            let word = keywords::respelt(&word, holding, is_word).unwrap_or(word);
            if !out.contains(&word) {
                out.push(word);
            }
        }
        out
    }
}
