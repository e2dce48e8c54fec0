//! How related other texts (a post's Microsoft 365 hits) are to a post by
//! meaning, as the fallback's ranking weighs it: by the multilingual model
//! for a Korean post (the word model cannot read Hangul), by the word model
//! otherwise; in standard deviations above the text's mean similarity to
//! the multilingual model's reference board (`posts::reference`), or to
//! the board's posts for the word model (which has no reference board):
//! the yardstick of [`relevance::Floors`].

use futures::future::join_all;

use super::{PostIndex, Within, relevance, search_text};
use crate::keywords::korean::is_korean;

/// How related a text is to the post by meaning: standard deviations above
/// the posts' mean similarity to it, by the model that told.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Meaning {
    Words(f32),
    Multilingual(f32),
}

impl PostIndex {
    /// How related each of `texts` is to the post of `text` and `tags`. A
    /// Korean post by the multilingual model: its texts not seen yet are
    /// embedded on the pool by `within.by` (remembered as queries are; not
    /// under overload). None where no model tells: without one, with too
    /// few posts, or when a text's vector is not had in time.
    pub async fn relatedness(
        &self,
        text: &str,
        tags: &[String],
        texts: &[&str],
        within: Within,
    ) -> Option<Vec<Meaning>> {
        self.related(text, tags, texts, within, is_korean(text))
            .await
    }

    /// As [`Self::relatedness`], by the multilingual model whatever the
    /// post's language when it is loaded (for texts few and recurring, such
    /// as the titles of documents shared on posts: its vectors are
    /// remembered, and it judges on its reference board, any board's size).
    pub async fn relatedness_by_best_model(
        &self,
        text: &str,
        tags: &[String],
        texts: &[&str],
        within: Within,
    ) -> Option<Vec<Meaning>> {
        self.related(text, tags, texts, within, true).await
    }

    /// Up to `limit` live posts nearest to `query` by the multilingual
    /// model, without `exclude`, nearest first, each with its relatedness
    /// (standard deviations above the model's reference board). Asked with
    /// a posts search's query, exclusion and count, it reads that search's
    /// vector and scan (both remembered): no inference or scan of its own.
    /// None without the model or the query's vector.
    pub async fn nearest_by_meaning(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
        within: Within,
    ) -> Option<Vec<(String, f32)>> {
        let model = self.ranking.multilingual()?;
        let q = self.multilingual_query(query, within).await?;
        let spread = model.spread(&q);
        let (nearest, _) = self
            .ranking
            .nearest(&q, crate::store::now_ms(), exclude, limit)?;
        Some(
            nearest
                .into_iter()
                .map(|(id, cos)| (id, (cos - spread.mean) / spread.std))
                .collect(),
        )
    }

    /// By the multilingual model when `multilingual` and it is loaded, else
    /// by the word model.
    async fn related(
        &self,
        text: &str,
        tags: &[String],
        texts: &[&str],
        within: Within,
        multilingual: bool,
    ) -> Option<Vec<Meaning>> {
        if multilingual && self.ranking.multilingual().is_some() {
            // The post's search text: a stored post's vector is of it.
            let query = search_text(text, tags);
            return self.multilingual_relatedness(&query, texts, within).await;
        }
        self.word_relatedness(text, texts)
    }

    async fn multilingual_relatedness(
        &self,
        query: &str,
        texts: &[&str],
        within: Within,
    ) -> Option<Vec<Meaning>> {
        let ranking = &self.ranking;
        let model = ranking.multilingual()?;
        let q = self.multilingual_query(query, within).await?;
        // The model's yardstick, not the board's (see `Multilingual::spread`).
        let spread = model.spread(&q);
        let vectors = join_all(
            texts
                .iter()
                .map(|t| model.query(t, ranking.digest(t), within.by, !within.overloaded)),
        )
        .await;
        let embedded = vectors.iter().flatten().filter(|(_, now)| *now).count();
        if embedded > 0 {
            self.metrics.local_embeddings("hit", embedded as u64);
        }
        vectors
            .into_iter()
            .map(|v| {
                v.map(|(v, _)| Meaning::Multilingual((dot(&v, &q) - spread.mean) / spread.std))
            })
            .collect()
    }

    /// By the word model, computed in place: a bag of token vectors costs
    /// microseconds a text.
    fn word_relatedness(&self, query: &str, texts: &[&str]) -> Option<Vec<Meaning>> {
        let ranking = &self.ranking;
        let model = ranking.word_model()?;
        let q = model.embed_text(query)?;
        let spread = ranking.word_model_spread(ranking.digest(query), &q)?;
        if !relevance::tells(spread) {
            return None;
        }
        Some(
            texts
                .iter()
                .map(|t| {
                    let cos = ranking.word_vector(t).map_or(0.0, |v| dot(&v, &q));
                    Meaning::Words((cos - spread.mean) / spread.std)
                })
                .collect(),
        )
    }
}

/// The dot product of two vectors (their cosine, at unit length).
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
