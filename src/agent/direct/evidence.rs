//! The evidence a Microsoft 365 hit carries for a post, and the one
//! ranking made of it: how much of the post's key-term weight the hit
//! holds (in its title, and in its title or Graph's summary of it), how
//! related it is by meaning (where a model tells), and Graph's
//! own order as a prior. Mails and files are ranked in one list by the
//! same evidence; what holds too little of it is left out, none rather
//! than filler.

use crate::{
    keywords::{index_terms_among, query_terms},
    posts::Meaning,
};

/// The weights of the evidence (docs/agent.md, "How relevance is decided";
/// chosen on the tuning half, BENCHMARKS.md "Issue 51").
struct Weights {
    /// Share of the key-term weight the title holds.
    title: f32,
    /// Share of it the title or the summary holds.
    text: f32,
    /// Relatedness by meaning, in standard deviations above the posts'
    /// mean similarity (clamped to −3…9), divided by 3.
    meaning: f32,
    /// How many times the word model's standard deviations one of the
    /// multilingual model's counts (it reads Korean, and separates related
    /// from unrelated better: BENCHMARKS.md "Issue 51").
    multilingual: f32,
    /// Graph's order within its entity group: `1 / (1 + rank)`.
    order: f32,
}

const WEIGHTS: Weights = Weights {
    title: 1.0,
    text: 1.0,
    meaning: 1.5,
    multilingual: 2.0,
    order: 0.3,
};

/// The floors. Where the local model tells, a hit is kept when it is at
/// least this related by meaning (standard deviations above the posts'
/// mean similarity to the post) ...
const MIN_MEANING: f32 = 0.0;
/// ... or its title holds this share of the post's key-term weight (a
/// quoted subject); where it does not tell, when the hit holds this share
/// of it in its title or summary, and this share of what the hit holding
/// most holds ...
const TITLE_ALONE: f32 = 0.6;
const MIN_COVERAGE: f32 = 0.25;
const SHARE_OF_MOST: f32 = 0.5;
/// ... and, either way, scores no more than this under the best hit (with
/// the weights above: 2.8 standard deviations of meaning, or 1.4 times all
/// the key terms).
const BAND: f32 = 1.4;

/// One key term of the post (a keyword of it or its tags): its weight (how
/// specific it is among the posts) and the index terms a text must hold to
/// contain it (its stem, or a Korean stem's bigrams).
#[derive(Debug)]
pub struct Term {
    weight: f32,
    parts: Vec<String>,
}

/// The key terms of a post (its keywords, `words`), weighted by
/// `specificity` (higher = rarer among the posts).
pub fn key_terms(words: &[String], specificity: impl Fn(&str) -> f32) -> Vec<Term> {
    words
        .iter()
        .map(|w| Term {
            // Even the most common word counts a little.
            weight: specificity(w).max(0.1),
            parts: query_terms(w),
        })
        .filter(|t| !t.parts.is_empty())
        .collect()
}

/// A hit as ranked: its title, Graph's summary (or the mail's preview),
/// and its rank within its entity group (files, mails).
pub struct Hit<'a> {
    pub title: &'a str,
    pub summary: &'a str,
    pub group_rank: usize,
    /// Relatedness by meaning, when a model tells.
    pub meaning: Option<Meaning>,
}

/// `meaning` in the word model's standard deviations.
pub fn deviations(meaning: Meaning) -> f32 {
    match meaning {
        Meaning::Words(z) => z,
        Meaning::Multilingual(z) => WEIGHTS.multilingual * z,
    }
}

/// What a hit holds of the post, and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// Share of the key-term weight in the title.
    pub in_title: f32,
    /// Share of it in the title or the summary.
    pub in_text: f32,
    pub score: f32,
}

/// The evidence `hit` carries for a post of `terms`.
pub fn evidence(terms: &[Term], hit: &Hit<'_>) -> Evidence {
    let wanted: Vec<&str> = terms
        .iter()
        .flat_map(|t| t.parts.iter().map(String::as_str))
        .collect();
    let w = &WEIGHTS;
    let title = index_terms_among(hit.title, &wanted);
    let summary = index_terms_among(hit.summary, &wanted);
    let holds = |terms_of: &[String], t: &Term| t.parts.iter().all(|p| terms_of.contains(p));
    let total: f32 = terms.iter().map(|t| t.weight).sum();
    let (mut in_title, mut in_text) = (0.0, 0.0);
    for t in terms {
        if holds(&title, t) {
            in_title += t.weight;
            in_text += t.weight;
        } else if holds(&summary, t) {
            in_text += t.weight;
        }
    }
    let (in_title, in_text) = if total > 0.0 {
        (in_title / total, in_text / total)
    } else {
        (0.0, 0.0)
    };
    let meaning = hit
        .meaning
        .map_or(0.0, |m| deviations(m).clamp(-3.0, 9.0) / 3.0);
    let score = w.title * in_title
        + w.text * in_text
        + w.meaning * meaning
        + w.order / (1.0 + hit.group_rank as f32);
    Evidence {
        in_title,
        in_text,
        score,
    }
}

/// The hits' indices, best first, and those left out (under the floors:
/// see [`MIN_MEANING`]).
pub fn rank(terms: &[Term], hits: &[Hit<'_>]) -> (Vec<usize>, Vec<usize>) {
    let scored: Vec<(usize, Evidence)> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| (i, evidence(terms, h)))
        .collect();
    let most = scored.iter().map(|(_, e)| e.in_text).fold(0.0, f32::max);
    let enough = |i: usize, e: &Evidence| match hits[i].meaning {
        Some(m) => deviations(m) >= MIN_MEANING || e.in_title >= TITLE_ALONE,
        None => e.in_text >= MIN_COVERAGE && e.in_text >= SHARE_OF_MOST * most,
    };
    let best = scored
        .iter()
        .filter(|(i, e)| enough(*i, e))
        .map(|(_, e)| e.score)
        .fold(f32::MIN, f32::max);
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    for (i, e) in scored {
        if enough(i, &e) && e.score >= best - BAND {
            kept.push((i, e.score));
        } else {
            dropped.push(i);
        }
    }
    kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    (kept.into_iter().map(|(i, _)| i).collect(), dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keywords::post_keywords;

    fn key_terms(text: &str, tags: &[String], specificity: impl Fn(&str) -> f32) -> Vec<Term> {
        super::key_terms(&post_keywords(text, tags), specificity)
    }

    /// Specificity from a made-up index: everyday words are common.
    fn specificity(word: &str) -> f32 {
        match word {
            "policy" | "update" | "updated" | "question" => 1.0,
            _ => 3.0,
        }
    }

    fn hit<'a>(title: &'a str, summary: &'a str, group_rank: usize) -> Hit<'a> {
        Hit {
            title,
            summary,
            group_rank,
            meaning: None,
        }
    }

    #[test]
    fn a_hit_holding_every_key_term_ranks_above_hits_holding_one() {
        let terms = key_terms("Updated leave policy guidance", &[], specificity);
        let hits = [
            hit("Travel Policy Checklist.docx", "Checklist for travel", 0),
            hit("Budget Policy 2023.pdf", "The budget policy", 1),
            hit(
                "Updated leave policy guidance",
                "Please read the guidance",
                0,
            ),
        ];
        let (kept, dropped) = rank(&terms, &hits);
        assert_eq!(kept.first(), Some(&2), "the mail with the subject first");
        assert_eq!(
            dropped,
            [0, 1],
            "one common word of four, nothing by meaning: left out"
        );
    }

    #[test]
    fn the_title_weighs_more_than_the_summary_and_graphs_order_breaks_ties() {
        let terms = key_terms("vpn portal error", &[], specificity);
        let hits = [
            hit("Remote access", "the vpn portal error explained", 0),
            hit("VPN portal error", "what to do", 3),
            hit("VPN portal errors", "what to do", 1),
        ];
        let (kept, _) = rank(&terms, &hits);
        assert_eq!(kept, [2, 1, 0]);
    }

    #[test]
    fn korean_key_terms_match_their_nouns_with_particles_and_in_compounds() {
        let terms = key_terms("여름휴가 일정 문의", &[], |_| 2.0);
        let hits = [
            hit("휴가 일정 공유", "팀 일정", 0),
            hit("여름휴가 일정 문의", "여름휴가 일정을 알려주세요", 1),
        ];
        let (kept, _) = rank(&terms, &hits);
        assert_eq!(kept.first(), Some(&1));
        let e = evidence(&terms, &hits[1]);
        assert_eq!(e.in_title, 1.0);
    }

    #[test]
    fn the_multilingual_models_relatedness_counts_twice_the_word_models() {
        let terms = key_terms("연차 신청 방법", &[], specificity);
        let mut by_words = hit("Annual leave", "how to request", 0);
        by_words.meaning = Some(Meaning::Words(2.0));
        let mut multilingual = hit("Annual leave", "how to request", 0);
        multilingual.meaning = Some(Meaning::Multilingual(1.0));
        assert_eq!(evidence(&terms, &by_words), evidence(&terms, &multilingual));
        multilingual.meaning = Some(Meaning::Multilingual(-0.1));
        let (kept, _) = rank(&terms, &[multilingual]);
        assert!(kept.is_empty(), "unrelated by meaning, no shared word");
    }

    #[test]
    fn a_hit_related_by_meaning_is_kept_without_shared_words() {
        let terms = key_terms("k8s pods evicted", &[], specificity);
        let mut related = hit("Container memory limits", "requests and limits", 0);
        related.meaning = Some(Meaning::Words(2.0));
        let unrelated = hit("Office plants", "watering", 1);
        let (kept, dropped) = rank(&terms, &[related, unrelated]);
        assert_eq!((kept, dropped), (vec![0], vec![1]));
    }
}
