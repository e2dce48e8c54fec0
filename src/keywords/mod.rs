//! Keyword extraction from free text: what the keyword-based searches (Graph
//! KQL, the post index's BM25) are given instead of a raw sentence, and the
//! terms the post index matches posts and questions on. Korean words give
//! their stems ([`korean`]).

use std::{collections::HashSet, sync::LazyLock};

pub mod korean;
mod spelling;

pub use spelling::respelt;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::{UnicodeNormalization, char::is_combining_mark};

/// Function words that carry no topic: the NLTK English list and the
/// Stopwords-ISO Korean one (the `stop-words` crate); which of the remaining
/// words carry the topic is decided by how specific they are, not by a list.
static STOP_WORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    ["en", "ko"]
        .into_iter()
        .filter_map(stop_words::lookup)
        .flatten()
        .copied()
        .collect()
});

/// A mail subject's reply and forward prefixes (`RE:` is in NLTK's list):
/// a post quoting a subject carries them, and they are no topic.
const MAIL_PREFIXES: [&str; 3] = ["fw", "fwd", "회신"];

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(word) || MAIL_PREFIXES.contains(&word)
}

/// Distinct lower-cased keywords of `text` in order of appearance, stop words and
/// one-character tokens removed. A compound word stays whole (`CI/CD` gives
/// `ci/cd`, `e-mail` gives `e-mail`); other punctuation splits words. A
/// Korean word gives its stem (`신청은` gives `신청`), a Latin term written
/// with a particle its own (`AWS가` gives `aws`).
pub fn keywords(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || JOINERS.contains(&c)))
        .collect();
    for (i, word) in words.iter().enumerate() {
        // The next word of the same clause (punctuation between leaves an
        // empty part): what a Korean word's ending is told by.
        let next = words.get(i + 1).filter(|w| !w.is_empty()).copied();
        for (script, run) in runs(word) {
            let word = match script {
                Script::Jamo => continue,
                // One syllable alone is a numeral, a determiner or an
                // adverb far more often than a topic (`두`, `한`, `잘`).
                Script::Hangul => {
                    match korean::query_stem(run, next).filter(|s| s.chars().count() > 1) {
                        Some(stem) => stem.to_owned(),
                        None => continue,
                    }
                }
                Script::Other => run.trim_matches(|c| JOINERS.contains(&c)).to_lowercase(),
            };
            if (word.chars().count() < 2 && word.is_ascii())
                || is_stop_word(&word)
                || out.contains(&word)
            {
                continue;
            }
            out.push(word);
        }
    }
    out
}

/// The keywords of a post: its text's, then its tags' not among them;
/// without words holding a `:` (a KQL property filter, `author:kim`).
pub fn post_keywords(text: &str, tags: &[String]) -> Vec<String> {
    let mut words = keywords(text);
    for tag in tags {
        for k in keywords(tag) {
            if !words.contains(&k) {
                words.push(k);
            }
        }
    }
    words.retain(|t| !t.contains(':'));
    words
}

/// The scripts a word is analysed by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    /// Hangul syllables: stems and bigrams.
    Hangul,
    /// Compatibility jamo written alone (`ㅋㅋ`, `ㅠㅠ`): no term.
    Jamo,
    /// Latin, digits, other scripts: words and their English stems.
    Other,
}

/// `word` cut where its script changes (`AWS가` is `AWS` and `가`).
fn runs(word: &str) -> Vec<(Script, &str)> {
    let script = |c: char| {
        if korean::is_hangul(c) {
            Script::Hangul
        } else if korean::is_jamo(c) {
            Script::Jamo
        } else {
            Script::Other
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<Script> = None;
    for (i, c) in word.char_indices() {
        let s = script(c);
        if current.is_some_and(|cur| cur != s) {
            out.push((current.unwrap_or(s), &word[start..i]));
            start = i;
        }
        current = Some(s);
    }
    if let Some(s) = current {
        out.push((s, &word[start..]));
    }
    out
}

/// A keyword as a KQL term: a compound word as a phrase (`"ci/cd"`), so
/// Graph matches its parts together.
pub fn kql_term(keyword: &str) -> String {
    if keyword.contains(JOINERS) {
        format!("\"{keyword}\"")
    } else {
        keyword.to_owned()
    }
}

/// The query with its terms OR-ed (KQL), for a search that found nothing:
/// `"quoted phrases"` kept whole, operators and stop words left out. None
/// when there is nothing to broaden (one term, or already OR-ed).
pub fn broadened(kql: &str) -> Option<String> {
    let mut terms: Vec<String> = Vec::new();
    for (i, part) in kql.split('"').enumerate() {
        if i % 2 == 1 {
            let phrase = part.trim();
            if !phrase.is_empty() {
                terms.push(format!("\"{phrase}\""));
            }
            continue;
        }
        for word in part.split_whitespace() {
            if word == "OR" {
                return None;
            }
            if word == "AND" || word == "NOT" {
                continue;
            }
            let bare = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if bare.chars().count() < 2 || is_stop_word(&bare) {
                continue;
            }
            if !terms.contains(&word.to_owned()) {
                terms.push(word.to_owned());
            }
        }
    }
    (terms.len() > 1).then(|| terms.join(" OR "))
}

/// The `n` most specific of `keywords` (by `specificity`, higher = more
/// specific; ties keep the text's order), in the text's order.
pub fn most_specific(
    keywords: &[String],
    n: usize,
    specificity: impl Fn(&str) -> f32,
) -> Vec<String> {
    let mut scored: Vec<(usize, f32)> = keywords
        .iter()
        .enumerate()
        .map(|(i, k)| (i, specificity(k)))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen: Vec<usize> = scored.into_iter().take(n).map(|(i, _)| i).collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| keywords[i].clone()).collect()
}

/// Characters that join the parts of a compound word: `CI/CD`, `e-mail`, `node.js`.
const JOINERS: [char; 4] = ['/', '-', '.', '&'];

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The terms the post index matches on, for posts and questions alike: each
/// word accent-folded (`café` = `cafe`), lower-cased and reduced to its
/// English Snowball stem (`pipelines` = `pipeline`); a compound word also as
/// one joined word (`CI/CD` gives `ci`, `cd` and `cicd`, so `cicd` and `ci cd`
/// match it); a Korean word by its stem's character bigrams (`연차휴가를`
/// gives `연차`, `차휴`, `휴가`). Stop words and one-letter ASCII parts are
/// left out.
pub fn index_terms(text: &str) -> Vec<String> {
    terms(text, true, None)
}

/// The terms a query is matched by: [`index_terms`], but a Korean word by
/// its stem's bigrams only, so that its particles (`양식이` has `식이`) add
/// no term that no post is about.
pub fn query_terms(text: &str) -> Vec<String> {
    terms(text, false, None)
}

/// Those of [`index_terms`] that can be among `wanted` (index terms of
/// other texts): for matching a long text against a few terms, a word
/// whose stem cannot be one of them is not stemmed. A stem keeps its
/// word's first two letters (`y` may become `i`: `dying`, `die`).
pub fn index_terms_among(text: &str, wanted: &[&str]) -> Vec<String> {
    terms(text, true, Some(wanted))
}

/// Whether `word` (folded) can have one of `wanted` as its term.
fn may_be_among(word: &str, wanted: Option<&[&str]>) -> bool {
    let Some(wanted) = wanted else {
        return true;
    };
    let mut letters = word.chars();
    let (first, second) = (letters.next(), letters.next());
    wanted.iter().any(|term| {
        let mut t = term.chars();
        t.next() == first
            && match (t.next(), second) {
                (None, _) => true,
                (Some(a), Some(b)) => a == b || (a == 'i' && b == 'y'),
                (Some(_), None) => false,
            }
    })
}

fn terms(text: &str, whole_korean_words: bool, wanted: Option<&[&str]>) -> Vec<String> {
    let mut out = Vec::new();
    let words = text.split(|c: char| !(c.is_alphanumeric() || JOINERS.contains(&c)));
    for word in words {
        // Most words are ASCII: one run, no allocation for its parts.
        if word.is_ascii() {
            other_terms(&mut out, word, wanted);
            continue;
        }
        for (script, run) in runs(word) {
            match script {
                Script::Jamo => {}
                Script::Hangul => korean_terms(&mut out, run, whole_korean_words),
                Script::Other => other_terms(&mut out, run, wanted),
            }
        }
    }
    out
}

/// [`index_terms`] of a Hangul word: the bigrams of the word (when
/// `whole_word`) and of its stem. The stem's alone would lose a noun that ends like a particle
/// (`연차휴가` is not `연차휴` + `가`); the word's alone would miss a
/// stem of two syllables written with its particle (`휴가를`).
fn korean_terms(out: &mut Vec<String>, word: &str, whole_word: bool) {
    let Some(stem) = korean::stem(word).filter(|s| !is_stop_word(s)) else {
        return;
    };
    let mut terms = if whole_word {
        korean::bigrams(word)
    } else {
        Vec::new()
    };
    for term in korean::bigrams(stem) {
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    out.extend(terms);
}

/// [`index_terms`] of a word in another script than Hangul.
fn other_terms(out: &mut Vec<String>, word: &str, wanted: Option<&[&str]>) {
    let word = word.trim_matches(|c| JOINERS.contains(&c));
    if word.is_empty() {
        return;
    }
    // An ASCII word (no compound) that cannot give a wanted term is not
    // even folded.
    if wanted.is_some() && word.is_ascii() && !word.contains(JOINERS) {
        let mut head = [0; 2];
        let n = word.len().min(2);
        head[..n].copy_from_slice(&word.as_bytes()[..n]);
        head.make_ascii_lowercase();
        if !may_be_among(std::str::from_utf8(&head[..n]).unwrap_or_default(), wanted) {
            return;
        }
    }
    let folded = fold(word);
    let parts: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() > 1 {
        push_term(out, &parts.concat(), wanted);
    }
    for part in parts {
        push_term(out, part, wanted);
    }
}

fn push_term(out: &mut Vec<String>, word: &str, wanted: Option<&[&str]>) {
    if !may_be_among(word, wanted) || (word.len() < 2 && word.is_ascii()) || is_stop_word(word) {
        return;
    }
    let term = if word.chars().all(char::is_alphabetic) {
        ENGLISH.stem(word).into_owned()
    } else {
        // `k8s`, `2fa`, `v2`: names, not English words.
        word.to_owned()
    };
    out.push(term);
}

/// Lower-cased, compatibility forms unified (`ﬁ` = `fi`, full-width =
/// ASCII) and accents removed; recomposed, so Hangul stays syllables.
fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    word.nfkd()
        .filter(|c| !is_combining_mark(*c))
        .nfc()
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_and_punctuation_are_removed_and_compounds_kept_whole() {
        assert_eq!(
            keywords("How do I set up a CI/CD pipeline for our team's repo?"),
            vec!["set", "ci/cd", "pipeline", "team", "repo"],
            "function words go (a standard list); `set` is a word, its weight decides"
        );
        assert_eq!(keywords("E-mail on k8s."), vec!["e-mail", "k8s"]);
        assert_eq!(kql_term("ci/cd"), "\"ci/cd\"");
        assert_eq!(kql_term("pipeline"), "pipeline");
    }

    #[test]
    fn a_query_is_broadened_to_its_terms_or_ed_with_phrases_kept() {
        assert_eq!(
            broadened("deployment pipeline \"ci/cd\" for the repo").as_deref(),
            Some("deployment OR pipeline OR \"ci/cd\" OR repo")
        );
        assert_eq!(broadened("pipeline"), None, "one term: nothing to broaden");
        assert_eq!(broadened("a OR b"), None, "already broad");
        assert_eq!(
            broadened("vpn AND home").as_deref(),
            Some("vpn OR home"),
            "operators are not terms"
        );
    }

    #[test]
    fn terms_among_wanted_ones_skip_only_words_that_cannot_be_them() {
        let wanted = ["polici", "leav"];
        assert_eq!(
            index_terms_among("Updated Leave Policy guidance, policies", &wanted),
            ["leav", "polici", "polici"]
        );
        // Every word of the evaluation corpus, and Snowball's exceptional
        // forms: a word's own terms are never skipped.
        let corpus = [
            include_str!("../../tests/quality/tuning.json"),
            include_str!("../../tests/quality/heldout.json"),
            "dying lying tying skies skis idly gently ugly early only singly news",
        ]
        .concat();
        for word in corpus.split(|c: char| !c.is_alphanumeric()) {
            let own = index_terms(word);
            let own: Vec<&str> = own.iter().map(String::as_str).collect();
            assert_eq!(index_terms_among(word, &own), own, "{word}");
        }
    }

    #[test]
    fn the_most_specific_words_are_chosen_and_keep_the_texts_order() {
        let words: Vec<String> = ["keep", "getting", "evicted", "k8s", "limits"]
            .map(str::to_owned)
            .into();
        let idf = |w: &str| match w {
            "keep" | "getting" => 0.3,
            "limits" => 2.0,
            _ => 5.0,
        };
        assert_eq!(most_specific(&words, 2, idf), ["evicted", "k8s"]);
        assert_eq!(most_specific(&words, 3, idf), ["evicted", "k8s", "limits"]);
        assert_eq!(most_specific(&words, 9, idf).len(), 5);
        assert!(
            keywords("the of and 그리고").is_empty(),
            "English and Korean function words"
        );
    }

    #[test]
    fn repeated_words_appear_once_and_non_latin_text_is_kept() {
        assert_eq!(
            keywords("Deploy deploy DEPLOY 배포 방법"),
            vec!["deploy", "배포", "방법"]
        );
    }

    #[test]
    fn index_terms_match_stems_folded_accents_and_compounds() {
        assert_eq!(index_terms("Pipelines"), index_terms("pipeline"));
        assert_eq!(index_terms("Deploying"), index_terms("deploy"));
        assert_eq!(
            index_terms("Café près de la gare"),
            index_terms("cafe pres de la gare")
        );
        let cicd = index_terms("Our CI/CD setup");
        assert!(cicd.contains(&"cicd".to_owned()), "{cicd:?}");
        assert!(cicd.contains(&"ci".to_owned()) && cicd.contains(&"cd".to_owned()));
        assert!(index_terms("e-mail").contains(&index_terms("email")[0]));
        assert_eq!(index_terms("k8s cluster"), ["k8s", "cluster"]);
        assert_eq!(
            index_terms("How do I set up the deployment?"),
            ["set", "deploy"]
        );
        assert_eq!(index_terms("배포 방법"), ["배포", "방법"]);
    }

    #[test]
    fn korean_words_give_their_stems_and_latin_terms_keep_theirs() {
        assert_eq!(
            keywords("AWS 비용이 갑자기 두 배가 됐어요"),
            ["aws", "비용", "배가"],
            "`배가` is a noun too; specificity, not a list, ranks it"
        );
        assert_eq!(
            keywords("연차 휴가 신청은 어디서 하나요?"),
            ["연차", "휴가", "신청"]
        );
        assert_eq!(
            keywords("쿠버네티스 파드가 계속 재시작돼요ㅠㅠ"),
            ["쿠버네티스", "파드", "재시작"]
        );
        assert_eq!(keywords("PR을 CI/CD에서 돌려요"), ["pr", "ci/cd"]);
    }

    /// Issue 51's questions: the nouns and Latin terms a person would type
    /// into Outlook's search box, no predicate forms, no noun cut.
    #[test]
    fn korean_questions_give_their_nouns_and_latin_terms() {
        for (text, want) in [
            (
                "노트북이 너무 느려서 교체 신청하고 싶은데 어디서 하나요?",
                &["노트북", "교체", "신청"][..],
            ),
            (
                "월급날인데 급여명세서 어디서 봐요?",
                &["월급날", "급여명세서"],
            ),
            (
                "고객이랑 저녁 먹은 경비 처리 어떻게 해요?",
                &["고객", "저녁", "경비", "처리"],
            ),
            (
                "PR 올렸는데 리뷰어 승인 받아야 머지되나요?",
                &["pr", "리뷰어", "승인", "머지"],
            ),
            ("여름휴가 일정 문의", &["여름휴가", "일정", "문의"]),
            ("장애 심각도 기준이 뭔가요?", &["장애", "심각도", "기준"]),
            ("같은 문서를 만들 수 있나요?", &["문서"]),
            (
                "배포 중에 에러 났는데 롤백해야 하나요?",
                &["배포", "에러", "롤백"],
            ),
            (
                "FW: 회신: 여름휴가 일정 문의",
                &["여름휴가", "일정", "문의"],
            ),
            (
                "다국어 작업이 필요하다고 해서요. 인튠인가 그거 깔면 되나요?",
                &["다국어", "작업", "필요", "인튠"],
            ),
        ] {
            assert_eq!(keywords(text), want, "{text}");
        }
    }

    #[test]
    fn korean_index_terms_are_stem_bigrams_that_meet_across_particles_and_spacing() {
        assert!(index_terms("휴가를").contains(&"휴가".to_owned()));
        assert_eq!(
            index_terms("연차휴가 신청은요"),
            ["연차", "차휴", "휴가", "신청", "청은", "은요"]
        );
        assert!(
            index_terms("연차 휴가")
                .iter()
                .all(|t| index_terms("연차휴가를").contains(t))
        );
        assert_eq!(index_terms("AWS가 ㅠㅠ"), index_terms("AWS"));
        assert_eq!(query_terms("양식이 있나요"), ["양식"]);
        assert_eq!(query_terms("AWS 비용"), index_terms("AWS 비용"));
    }
}
