//! A query's search: candidates by words (BM25 and rare words) and by
//! meaning (the configured model's vectors, the word model standing in
//! when Azure's query embedding fails), fused by rank and kept only when
//! related ([`relevance`](super::relevance)); and how specific a word is.

use tokio::time::Instant;

use super::{
    Embedder, PostIndex, PostIndexError, Scored,
    ranking::WordHits,
    relevance::{
        self, Admit, MIN_COVERAGE, log_candidates, related_by_coverage, related_by_meaning,
    },
    vectors::{self, fuse},
};
use crate::{contract::PostSummary, keywords::query_terms, llm::LlmErrorKind, store::now_ms};

/// Candidates taken from each ranking before fusion.
pub const CANDIDATES: usize = 50;
/// Posts of the prior that [`PostIndex::specificity`] starts from: as many
/// as the index needs before its spread tells (the relevance floors' count).
const PRIOR_POSTS: usize = relevance::MIN_POSTS_FOR_SPREAD;
/// The share of the prior's posts that has any given word.
const PRIOR_SHARE: f32 = 0.05;

/// How long a search may wait for its query's vector.
#[derive(Debug, Clone, Copy, Default)]
pub struct Within {
    /// When the vector is given up (Azure's embedding, or the multilingual
    /// model's inference of a text it has not seen): None, no limit.
    pub by: Option<Instant>,
    /// The service is overloaded (brownout): a text the multilingual model
    /// has not seen is ranked by words, not embedded.
    pub overloaded: bool,
}

/// Search results; `lexical_only` when semantic ranking was wanted but unavailable.
#[derive(Debug, Default)]
pub struct PostSearch {
    pub posts: Vec<PostSummary>,
    /// Per post, whether the floors admit it (all of them, unless the
    /// search asked for [`Admit::Candidates`]).
    pub related: Vec<bool>,
    pub lexical_only: bool,
    /// Why the query's Azure embedding failed (`LlmError::kind`), when it did.
    pub embedding_error: Option<LlmErrorKind>,
    /// The word model ranked by meaning in place of the failed Azure one.
    pub word_model_stood_in: bool,
}

impl PostIndex {
    /// How specific a word is: the inverse document frequency of its index
    /// terms among the posts (a Korean stem's rarest bigram: the posts that
    /// have the word have that one), smoothed by a prior of
    /// [`PRIOR_POSTS`] posts in which every word is equally common, so a
    /// word no post has is as specific as can be; in an index too small to
    /// tell (under 30 posts), its rarity in the language by the word
    /// model's vocabulary, where the model knows the word (see
    /// `WordModel::rarity`).
    pub fn specificity(&self, word: &str) -> f32 {
        let terms = query_terms(word);
        if terms.is_empty() {
            return 0.0;
        }
        let ranking = &self.ranking;
        let (n, df) = terms
            .iter()
            .map(|t| ranking.document_frequency(t))
            .min_by_key(|&(_, df)| df)
            .unwrap_or((0, 0));
        if n < relevance::MIN_POSTS_FOR_SPREAD
            && let Some(model) = ranking.word_model()
        {
            return model.rarity(word);
        }
        let prior = PRIOR_POSTS as f32;
        ((n as f32 + prior + 1.0) / (df as f32 + PRIOR_SHARE * prior + 0.5)).ln()
    }

    /// Up to `limit` live posts related to `query`, most relevant first,
    /// without `exclude`. Only related posts: by words, a post must contain
    /// enough of the query's term weight and three quarters of the best
    /// candidate's; by meaning, be similar enough and within a band of the
    /// best candidate. Meaning weighs twice words in the ranking, so a post
    /// saying the same in other words comes first.
    pub async fn search(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
        within: Within,
        admit: Admit,
    ) -> Result<PostSearch, PostIndexError> {
        let started = std::time::Instant::now();
        let result = self
            .search_ranked(query, exclude, limit, within, admit)
            .await;
        self.metrics.post_search(started.elapsed().as_secs_f64());
        result
    }

    async fn search_ranked(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
        within: Within,
        admit: Admit,
    ) -> Result<PostSearch, PostIndexError> {
        let now = now_ms();
        let words = self.by_words(query, now, exclude, CANDIDATES)?;
        let lexical = &words.ranked;
        let (semantic, embedding_error) = self.semantic(query, now, exclude, within).await;
        let word_model_stood_in = embedding_error.is_some() && semantic.is_some();
        let (ids, lexical_only) = match semantic {
            Some((semantic, spread, board)) => {
                let floors = self.floors.on_board(board);
                let by_meaning = related_by_meaning(&semantic, spread, &floors);
                // Where the model's meaning can judge (the spread tells), its
                // floors may ask more of words alone (see `Floors`).
                let by_words = match floors.words_beside_meaning {
                    Some(coverage) if relevance::tells(spread) => {
                        related_by_coverage(&words, coverage, false)
                    }
                    _ => related_by_coverage(&words, MIN_COVERAGE, true),
                };
                let related: Vec<&str> = by_words.chain(by_meaning).collect();
                if self.payload_logs {
                    log_candidates(&words, Some((&semantic, spread)), &related);
                }
                let mut ids: Vec<(String, bool)> = fuse(&[(lexical, 1.0), (&semantic, 2.0)])
                    .into_iter()
                    .filter(|id| related.contains(&id.as_str()))
                    .map(|id| (id, true))
                    .take(limit)
                    .collect();
                // Then the model's next best by meaning (not by words: on
                // set B's board of 300, fused with the words' ranking, the
                // five read held the related post for 0.67 of questions).
                if admit == Admit::Candidates {
                    for (id, _) in &semantic {
                        if ids.len() == limit {
                            break;
                        }
                        if !ids.iter().any(|(x, _)| x == id) {
                            ids.push((id.clone(), false));
                        }
                    }
                }
                (ids, false)
            }
            None => {
                let ids = relevance::by_words(&words, limit, admit);
                if self.payload_logs {
                    let related: Vec<&str> = ids
                        .iter()
                        .filter(|(_, admitted)| *admitted)
                        .map(|(id, _)| id.as_str())
                        .collect();
                    log_candidates(&words, None, &related);
                }
                (ids, self.embedder != Embedder::None)
            }
        };
        let (ids, related): (Vec<String>, Vec<bool>) = ids.into_iter().unzip();
        let posts = self.summaries(ids.clone(), now).await?;
        // A post gone since it was ranked is not returned: its flag goes too.
        let related = posts
            .iter()
            .map(|p| {
                ids.iter()
                    .position(|id| *id == p.id)
                    .is_some_and(|i| related[i])
            })
            .collect();
        Ok(PostSearch {
            posts,
            related,
            lexical_only,
            embedding_error,
            word_model_stood_in,
        })
    }

    /// Up to `limit` live posts related to `query` by words, without
    /// `exclude`: in memory (and SQLite) only, no upstream call.
    pub async fn search_by_words(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
    ) -> Result<Vec<PostSummary>, PostIndexError> {
        let now = now_ms();
        let words = self.by_words(query, now, exclude, CANDIDATES)?;
        let ids = relevance::by_words(&words, limit, Admit::Related);
        let ids = ids.into_iter().map(|(id, _)| id).collect();
        self.summaries(ids, now).await
    }

    /// Up to `limit` live posts by text rank (BM25) with their coverage,
    /// without `exclude`.
    fn by_words(
        &self,
        query: &str,
        now: i64,
        exclude: &[String],
        limit: usize,
    ) -> Result<WordHits, PostIndexError> {
        let mut found = self
            .ranking
            .by_words(&query_terms(query), now, limit + exclude.len())?;
        found.ranked.retain(|(id, _)| !exclude.contains(id));
        found.ranked.truncate(limit);
        found.sharing_rare.retain(|id| !exclude.contains(id));
        Ok(found)
    }

    /// The live posts with these ids, in this order.
    async fn summaries(
        &self,
        ids: Vec<String>,
        now: i64,
    ) -> Result<Vec<PostSummary>, PostIndexError> {
        Ok(self.store.get_many(ids, now).await?)
    }

    /// Ranking by meaning, by the configured model, with the spread it is
    /// judged against and how many posts it holds vectors of; when Azure's
    /// query embedding fails or is not back by `within.by`, by the word model,
    /// with the failure's kind. None when no model ranked (none configured,
    /// the query's vector not computed in time, or the vectors unreadable).
    async fn semantic(
        &self,
        query: &str,
        now: i64,
        exclude: &[String],
        within: Within,
    ) -> (
        Option<(Scored, vectors::Spread, usize)>,
        Option<LlmErrorKind>,
    ) {
        let ranking = &self.ranking;
        // Judged against the board's own spread.
        let with_count =
            |(scored, spread): (Scored, vectors::Spread)| (scored, spread, spread.posts);
        let by_word_model = || {
            let vector = ranking.word_model()?.embed_text(query)?;
            ranking
                .nearest_by_word_model(&vector, now, exclude, CANDIDATES)
                .map(with_count)
        };
        match self.embedder {
            Embedder::None => (None, None),
            Embedder::Local => {
                // Judged against the model's reference board, not this
                // board's spread (see `Multilingual::spread`).
                let ranked = match (
                    ranking.multilingual(),
                    self.multilingual_query(query, within).await,
                ) {
                    (Some(model), Some(vector)) => ranking
                        .nearest(&vector, now, exclude, CANDIDATES)
                        .map(|(scored, board)| (scored, model.spread(&vector), board.posts)),
                    _ => None,
                };
                (ranked, None)
            }
            Embedder::Azure => match self.azure_embedding(query, within.by).await {
                Ok(vector) => (
                    ranking
                        .nearest(&vector, now, exclude, CANDIDATES)
                        .map(with_count),
                    None,
                ),
                Err(kind) => {
                    tracing::warn!(
                        error.kind = kind.as_str(),
                        "query embedding failed; the word model ranks"
                    );
                    (by_word_model(), Some(kind))
                }
            },
        }
    }

    /// The multilingual model's vector of `query`: a stored post's when
    /// `query` is its text (a view's search: no inference), else a recent
    /// query's, else computed on the pool by `within.by` (not when
    /// overloaded).
    pub(super) async fn multilingual_query(&self, query: &str, within: Within) -> Option<Vec<f32>> {
        let ranking = &self.ranking;
        let model = ranking.multilingual()?;
        let digest = ranking.digest(query);
        if let Some(stored) = ranking.stored_vector(digest) {
            return Some(stored);
        }
        let (vector, embedded) = model
            .query(query, digest, within.by, !within.overloaded)
            .await?;
        if embedded {
            self.metrics.local_embeddings("query", 1);
        }
        Some(vector.to_vec())
    }

    /// Azure's embedding of `query`, given up at `by`; why not, when not.
    async fn azure_embedding(
        &self,
        query: &str,
        by: Option<Instant>,
    ) -> Result<Vec<f32>, LlmErrorKind> {
        let model = self.stored.as_ref().ok_or(LlmErrorKind::Unconfigured)?;
        let vectors = model.embed(&[query], by).await.map_err(|e| e.kind())?;
        vectors
            .into_iter()
            .next()
            .ok_or(LlmErrorKind::MalformedResponse)
    }
}
