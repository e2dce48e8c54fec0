//! The direct searches' queries: the Microsoft 365 query (the post's most
//! specific words OR-ed) and the posts query (its text and tags), as tool
//! arguments.

use serde_json::{Map, Value};

use crate::{
    agent::run::{RunCtx, RunInput},
    keywords::{kql_term, most_specific},
    tools::{MAX_QUERY_CHARS, truncate},
};

/// The most specific words the query ORs.
const TOPIC_TERMS: usize = 4;
/// The arguments of a Microsoft 365 search for `query`.
pub fn m365_arguments(query: &str) -> Map<String, Value> {
    Map::from_iter([("query".to_owned(), Value::from(query))])
}

/// The arguments of the direct posts search: the post's text and tags.
pub fn posts_arguments(input: &RunInput) -> Map<String, Value> {
    Map::from_iter([("query".to_owned(), Value::from(posts_query(input)))])
}

/// The direct posts search's query: the post's text and tags, as long as
/// a tool's query may be.
pub fn posts_query(input: &RunInput) -> String {
    truncate(&input.posts_query(), MAX_QUERY_CHARS - 1)
}

/// The direct Microsoft 365 query, also pre-retrieval's: the post's
/// most specific words OR-ed. On the tuning half it finds as much as the
/// model's planned searches (recall@10 0.45, with the ranking by
/// meaning), where the two most specific AND-ed found 0.37 and left two
/// views in three to a second model round; beside it, that AND-ed query
/// added nothing on either half (BENCHMARKS.md, "One search").
pub fn topic_query(ctx: RunCtx<'_>) -> Option<String> {
    m365_query(ctx.keywords(), |w| ctx.specificity(w))
}

/// The keyword query for Graph: four most specific of a post's keywords
/// (`words`; `specificity`, higher = rarer among the posts) OR-ed,
/// compound words as phrases (Graph ranks what matches more of them
/// first); none when the post has no keyword. Everyday words that merely
/// come first in the sentence are not the topic.
fn m365_query(words: &[String], specificity: impl Fn(&str) -> f32) -> Option<String> {
    let topic: Vec<String> = most_specific(words, TOPIC_TERMS, &specificity)
        .iter()
        .map(|t| kql_term(t))
        .collect();
    (!topic.is_empty()).then(|| truncate(&topic.join(" OR "), MAX_QUERY_CHARS - 1))
}

#[cfg(test)]
mod tests {
    use crate::keywords::post_keywords;

    fn m365_query(
        text: &str,
        tags: &[String],
        specificity: impl Fn(&str) -> f32,
    ) -> Option<String> {
        super::m365_query(&post_keywords(text, tags), specificity)
    }

    /// Specificity from a made-up index: everyday words are common.
    fn specificity(word: &str) -> f32 {
        match word {
            "keep" | "getting" | "guide" | "internal" | "set" | "often" | "client" => 0.5,
            "cluster" | "pods" | "repo" => 2.0,
            _ => 4.0,
        }
    }

    #[test]
    fn graph_queries_are_made_of_the_most_specific_words_not_the_first_ones() {
        let q = m365_query(
            "Our pods keep getting evicted on the cluster, any internal guide on k8s resource limits?",
            &[],
            specificity,
        );
        assert_eq!(q.as_deref(), Some("evicted OR k8s OR resource OR limits"));
        assert_eq!(
            m365_query("CI/CD for the repo", &["devops".into()], specificity).as_deref(),
            Some("\"ci/cd\" OR repo OR devops"),
            "a compound word is one phrase; tags complete the text's keywords"
        );
        assert_eq!(
            m365_query("Payroll?", &[], specificity).as_deref(),
            Some("payroll")
        );
    }

    #[test]
    fn text_without_keywords_gives_no_graph_query() {
        assert_eq!(m365_query("how do I?", &[], specificity), None);
    }
}
