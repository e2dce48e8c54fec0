//! Keyword extraction from free text: what the keyword-based searches (Graph
//! KQL, the post index's BM25) are given instead of a raw sentence, and the
//! tokenizer the post index applies to the posts themselves.

/// English function words and question words that carry no topic.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "done", "for", "from", "get", "got", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into",
    "is", "it", "its", "just", "know", "let", "like", "may", "me", "might", "more", "most", "my",
    "need", "no", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other", "our",
    "ours", "out", "over", "own", "please", "same", "set", "she", "should", "so", "some", "such",
    "than", "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "us", "use", "very", "want", "was",
    "way", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours",
];

/// Distinct lower-cased keywords of `text` in order of appearance, stop words and
/// one-character tokens removed. Tokens split on anything but letters and digits,
/// so `CI/CD` yields `ci` and `cd`.
pub fn keywords(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in tokens(text) {
        if token.chars().count() < 2 && token.is_ascii() {
            continue;
        }
        if STOP_WORDS.contains(&token.as_str()) || out.contains(&token) {
            continue;
        }
        out.push(token);
    }
    out
}

/// Every lower-cased word of `text`: runs of letters and digits.
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_and_punctuation_are_removed() {
        assert_eq!(
            keywords("How do I set up a CI/CD pipeline for our team's repo?"),
            vec!["ci", "cd", "pipeline", "team", "repo"]
        );
    }

    #[test]
    fn repeated_words_appear_once_and_non_latin_text_is_kept() {
        assert_eq!(
            keywords("Deploy deploy DEPLOY 배포 방법"),
            vec!["deploy", "배포", "방법"]
        );
    }
}
