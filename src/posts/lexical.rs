//! In-memory BM25 ranking of the stored posts' search text: a postings list
//! per term, scored per query over the posts that contain a query term only.
//! Loaded from the store at start-up and kept in step with every committed
//! write (through the ranking, the store's index).

use std::collections::{HashMap, HashSet};

use crate::keywords::index_terms;

/// BM25 parameters, the usual ones (also SQLite FTS5's).
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// One post containing a term.
#[derive(Clone, Copy)]
struct Posting {
    slot: u32,
    freq: u32,
}

struct Doc {
    id: String,
    len: u32,
    expires_at_ms: Option<i64>,
    /// Distinct term ids, to find its postings on removal.
    terms: Box<[u32]>,
}

/// Term ids, postings by term id, and posts by slot (`None` = free slot).
#[derive(Default)]
pub struct Lexical {
    vocabulary: HashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    docs: Vec<Option<Doc>>,
    free: Vec<u32>,
    slots: HashMap<String, u32>,
    total_len: u64,
}

impl Lexical {
    /// Posts indexed (live or expired but not yet purged).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Posts containing `term` (an index term).
    pub fn document_frequency(&self, term: &str) -> usize {
        self.vocabulary
            .get(term)
            .map_or(0, |&id| self.postings[id as usize].len())
    }

    /// Adds or replaces a post's text.
    pub fn insert(&mut self, id: &str, text: &str, expires_at_ms: Option<i64>) {
        self.remove_many([id]);
        let mut freqs: HashMap<u32, u32> = HashMap::new();
        let mut len = 0u32;
        for token in index_terms(text) {
            len += 1;
            let next = self.postings.len() as u32;
            let term = *self.vocabulary.entry(token.into()).or_insert(next);
            if term == next {
                self.postings.push(Vec::new());
            }
            *freqs.entry(term).or_default() += 1;
        }
        let slot = self.free.pop().unwrap_or(self.docs.len() as u32);
        for (&term, &freq) in &freqs {
            self.postings[term as usize].push(Posting { slot, freq });
        }
        let doc = Doc {
            id: id.to_owned(),
            len,
            expires_at_ms,
            terms: freqs.into_keys().collect(),
        };
        match self.docs.get_mut(slot as usize) {
            Some(free) => *free = Some(doc),
            None => self.docs.push(Some(doc)),
        }
        self.slots.insert(id.to_owned(), slot);
        self.total_len += u64::from(len);
    }

    /// Changes an indexed post's expiry (its text unchanged); false when the
    /// post is not indexed.
    pub fn set_expiry(&mut self, id: &str, expires_at_ms: Option<i64>) -> bool {
        let doc = self
            .slots
            .get(id)
            .and_then(|&slot| self.docs[slot as usize].as_mut());
        match doc {
            Some(doc) => {
                doc.expires_at_ms = expires_at_ms;
                true
            }
            None => false,
        }
    }

    /// Removes posts; each postings list they were in is rewritten once
    /// (a scan of every post sharing a term with them: replacing a text
    /// costs in proportion to the index's size).
    pub fn remove_many<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        let mut gone = HashSet::new();
        let mut touched = HashSet::new();
        for id in ids {
            let Some(slot) = self.slots.remove(id) else {
                continue;
            };
            if let Some(doc) = self.docs[slot as usize].take() {
                self.total_len -= u64::from(doc.len);
                touched.extend(doc.terms.iter().copied());
            }
            gone.insert(slot);
            self.free.push(slot);
        }
        for term in touched {
            self.postings[term as usize].retain(|p| !gone.contains(&p.slot));
        }
    }

    /// Up to `limit` posts live at `now_ms` containing any of `terms`
    /// (index terms), best BM25 score first, each with its coverage: the
    /// share of the query's term weight (IDF; a term no post has weighs as
    /// much as the rarest) that the post contains, 0 to 1.
    #[cfg(test)]
    pub fn search(&self, terms: &[String], now_ms: i64, limit: usize) -> Vec<(String, f32)> {
        self.search_rare(terms, now_ms, limit, &|_| None).0
    }

    /// As [`Self::search`], with the ids of those candidates that share a
    /// rare term of the query: one at most one post in ten thousand has
    /// (at least one), and that `rare_in_language` says is rare in the
    /// language too (None: unknown, without a model). A term no post has
    /// and the language says is common (`set`, `team`) weighs nothing: it
    /// says nothing of the topic.
    pub fn search_rare(
        &self,
        terms: &[String],
        now_ms: i64,
        limit: usize,
        rare_in_language: &dyn Fn(&str) -> Option<bool>,
    ) -> (Vec<(String, f32)>, Vec<String>) {
        let n = self.slots.len() as f32;
        if n == 0.0 || limit == 0 {
            return (Vec::new(), Vec::new());
        }
        let rare_df = (self.slots.len() / 10_000).max(1);
        let mut rare: Vec<u32> = Vec::new();
        let avg_len = self.total_len as f32 / n;
        let idf = |df: f32| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let mut scores = vec![0f32; self.docs.len()];
        let mut matched = Vec::new();
        let mut seen = HashSet::new();
        // (term id, its IDF) of the query's terms some post has.
        let mut weights: Vec<(u32, f32)> = Vec::new();
        let mut query_weight = 0f32;
        for term in terms {
            if !seen.insert(term.as_str()) {
                continue;
            }
            let Some(&id) = self.vocabulary.get(term.as_str()) else {
                // As much as the rarest term a post has: in a small index a
                // missing term would otherwise outweigh every present one.
                if rare_in_language(term) != Some(false) {
                    query_weight += idf(1.0);
                }
                continue;
            };
            let postings = &self.postings[id as usize];
            if postings.len() <= rare_df && rare_in_language(term) == Some(true) {
                rare.push(id);
            }
            let idf = idf(postings.len() as f32);
            query_weight += idf;
            weights.push((id, idf));
            for p in postings {
                let Some(doc) = &self.docs[p.slot as usize] else {
                    continue;
                };
                let (tf, len) = (p.freq as f32, doc.len as f32);
                let score = &mut scores[p.slot as usize];
                if *score == 0.0 {
                    matched.push(p.slot);
                }
                *score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len));
            }
        }
        let mut ranked: Vec<(f32, u32)> = matched
            .into_iter()
            .filter(|&slot| self.is_live(slot, now_ms))
            .map(|slot| (scores[slot as usize], slot))
            .collect();
        let best_first = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, best_first);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(best_first);
        // Coverage of the few kept, from each one's own terms.
        let mut sharing_rare = Vec::new();
        let scored = ranked
            .into_iter()
            .filter_map(|(_, slot)| {
                let doc = self.docs[slot as usize].as_ref()?;
                let contained: f32 = weights
                    .iter()
                    .filter(|(id, _)| doc.terms.contains(id))
                    .map(|(_, w)| w)
                    .sum();
                if rare.iter().any(|t| doc.terms.contains(t)) {
                    sharing_rare.push(doc.id.clone());
                }
                Some((doc.id.clone(), contained / query_weight))
            })
            .collect();
        (scored, sharing_rare)
    }

    fn is_live(&self, slot: u32, now_ms: i64) -> bool {
        self.docs[slot as usize]
            .as_ref()
            .is_some_and(|d| d.expires_at_ms.is_none_or(|e| e > now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Lexical {
        fn ids(&self, terms: &[String], now_ms: i64, limit: usize) -> Vec<String> {
            self.search(terms, now_ms, limit)
                .into_iter()
                .map(|(id, _)| id)
                .collect()
        }
    }

    #[test]
    fn a_post_sharing_a_word_rare_in_the_index_and_the_language_is_named() {
        let index = index(&[
            ("zk", "zookeeper quorum lost"),
            ("lunch1", "lunch on friday"),
            ("lunch2", "lunch near the office"),
        ]);
        let q = terms(&["zookeeper", "lunch", "help", "friday"]);
        let rare_in_language = |t: &str| Some(t == "zookeep" || t == "friday");
        let (ranked, mut rare) = index.search_rare(&q, 0, 10, &rare_in_language);
        assert_eq!(ranked.len(), 3);
        rare.sort();
        assert_eq!(rare, ["lunch1", "zk"]);
        let (_, rare) = index.search_rare(&q, 0, 10, &|_| Some(false));
        assert!(rare.is_empty(), "common in the language: not rare");
    }

    #[test]
    fn coverage_is_the_share_of_the_query_weight_a_post_contains() {
        let index = index(&[
            ("both", "kafka consumer lag"),
            ("one", "kafka topics"),
            ("other", "lunch in the park"),
        ]);
        let found = index.search(&terms(&["kafka", "lag"]), 0, 10);
        assert_eq!(found[0].0, "both");
        assert!((found[0].1 - 1.0).abs() < 1e-6, "{found:?}");
        assert!(found[1].1 > 0.0 && found[1].1 < 0.5, "{found:?}");
        let unknown = index.search(&terms(&["kafka", "zookeeper"]), 0, 10);
        assert!(
            unknown.iter().all(|(_, c)| *c < 0.5),
            "a query term no post has weighs as much as the rarest: {unknown:?}"
        );
    }

    /// A question's terms, as the index makes them.
    fn terms(words: &[&str]) -> Vec<String> {
        index_terms(&words.join(" "))
    }

    fn index(posts: &[(&str, &str)]) -> Lexical {
        let mut index = Lexical::default();
        for (id, text) in posts {
            index.insert(id, text, None);
        }
        index
    }

    #[test]
    fn rare_terms_and_repeated_matches_rank_first() {
        let index = index(&[
            ("common", "the deployment of the service"),
            ("rare", "kubernetes deployment"),
            ("twice", "kubernetes kubernetes deployment"),
            ("none", "lunch near the station"),
        ]);
        let found = index.ids(&terms(&["kubernetes", "deployment"]), 0, 10);
        assert_eq!(found, ["twice", "rare", "common"]);
    }

    #[test]
    fn case_and_punctuation_do_not_matter() {
        let index = index(&[("a", "CI/CD Pipeline: GitHub-Actions")]);
        assert_eq!(index.ids(&terms(&["pipeline", "actions"]), 0, 10), ["a"]);
    }

    #[test]
    fn word_forms_accents_and_compounds_match() {
        let index = index(&[
            ("stems", "Our deployment pipelines run nightly"),
            ("accents", "Meetup at the café near the station"),
            ("compound", "Setting up CI/CD for the e-mail service"),
        ]);
        assert_eq!(index.ids(&terms(&["pipeline"]), 0, 10), ["stems"]);
        assert_eq!(index.ids(&terms(&["deploying"]), 0, 10), ["stems"]);
        assert_eq!(index.ids(&terms(&["cafe"]), 0, 10), ["accents"]);
        assert_eq!(index.ids(&terms(&["cicd"]), 0, 10), ["compound"]);
        assert_eq!(index.ids(&terms(&["email"]), 0, 10), ["compound"]);
    }

    #[test]
    fn replaced_removed_and_expired_posts_are_not_found() {
        let mut index = index(&[("a", "old text about kafka"), ("b", "kafka consumer")]);
        index.insert("a", "new text about redis", None);
        assert_eq!(index.ids(&terms(&["kafka"]), 0, 10), ["b"]);
        assert_eq!(index.ids(&terms(&["redis"]), 0, 10), ["a"]);
        index.insert("c", "kafka broker", Some(1_000));
        assert_eq!(index.ids(&terms(&["kafka"]), 999, 10).len(), 2);
        assert_eq!(index.ids(&terms(&["kafka"]), 1_000, 10), ["b"]);
        index.remove_many(["b", "missing"]);
        assert!(
            index
                .ids(&terms(&["kafka"]), 0, 10)
                .contains(&"c".to_string())
        );
        assert!(
            !index
                .ids(&terms(&["kafka"]), 0, 10)
                .contains(&"b".to_string())
        );
        // The freed slot is reused without mixing up postings.
        index.insert("d", "terraform module", None);
        assert_eq!(index.ids(&terms(&["terraform"]), 0, 10), ["d"]);
        assert!(
            !index
                .ids(&terms(&["kafka"]), 0, 10)
                .contains(&"d".to_string())
        );
    }

    #[test]
    fn the_limit_keeps_the_best() {
        let mut index = Lexical::default();
        for i in 0..100 {
            let text = if i == 42 {
                "helm helm helm chart"
            } else {
                "helm chart"
            };
            index.insert(&format!("p{i}"), text, None);
        }
        let found = index.ids(&terms(&["helm"]), 0, 5);
        assert_eq!(found.len(), 5);
        assert_eq!(found[0], "p42");
    }
}
