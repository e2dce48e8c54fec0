//! formatResponse: reads the model's final structured answer and selects the
//! results it names (by ref, or by url/id) from what the tools returned in this
//! run. Nothing the model writes reaches the response except its choice and
//! its hint (and the hint only when every URL in it was returned by a tool).

use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    runtime::{Node, NodeName, StepReport},
    state::RunState,
};
use crate::agent::run::{RunCtx, Selection, findings::Collected};
use crate::{degraded::Degraded, llm::LlmError};

pub const NAME: NodeName = "formatResponse";

pub struct FormatResponse<'a>(pub &'a RunCtx<'a>);

impl<'c> Node<RunState, LlmError> for FormatResponse<'c> {
    fn name(&self) -> NodeName {
        NAME
    }

    fn run<'a>(&'a self, state: &'a mut RunState) -> BoxFuture<'a, Result<StepReport, LlmError>> {
        Box::pin(async move {
            let _span = tracing::debug_span!("format_response").entered();
            if !state.pending_tool_calls().is_empty() {
                self.0.run.note(Degraded::RoundCap);
                tracing::warn!(
                    rounds = self.0.run.rounds(),
                    "round cap reached before a final answer"
                );
                return Ok(StepReport::default());
            }
            let content = state
                .messages
                .last()
                .and_then(|m| m.content.clone())
                .unwrap_or_default();
            let collected = self.0.run.findings.snapshot();
            match parse(&content, &collected) {
                Some(selection) => self.0.run.select(selection),
                None => {
                    tracing::warn!(
                        bytes = content.len(),
                        "final answer unparseable; using the collected results"
                    );
                    self.0.run.note(Degraded::LlmOutputUnparseable);
                }
            }
            Ok(StepReport::default())
        })
    }
}

/// Parses the final answer (fenced or not) into a selection grounded in `collected`.
pub fn parse(content: &str, collected: &Collected) -> Option<Selection> {
    let start = content.find('{')?;
    let end = content.rfind('}')?;
    let answer: Value = serde_json::from_str(content.get(start..=end)?).ok()?;
    let answer = answer.as_object()?;
    let items = |key: &str| {
        answer
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let m365 = select(&items("m365"), &collected.m365, |m| &m.url);
    let posts = select(&items("posts"), &collected.posts, |p| &p.id);
    let urls: Vec<&str> = collected.m365.iter().map(|(_, m)| m.url.as_str()).collect();
    let action_hint = answer
        .get("actionHint")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|h| !h.is_empty() && grounded_urls(h, &urls))
        .map(|h| crate::tools::truncate(h, 300));
    Some(Selection {
        m365,
        posts,
        action_hint,
    })
}

/// Refs of the collected results the answer items name, in answer order, once each.
fn select<T>(items: &[Value], collected: &[(String, T)], key: impl Fn(&T) -> &str) -> Vec<String> {
    let mut refs: Vec<String> = Vec::new();
    for item in items {
        let found = collected
            .iter()
            .find(|(r, t)| matches_item(item, r, &[key(t)]));
        if let Some((r, _)) = found.filter(|(r, _)| !refs.contains(r)) {
            refs.push(r.clone());
        }
    }
    refs
}

/// An answer item names a result by its ref, or by its url/id (as string or object field).
fn matches_item(item: &Value, r: &str, keys: &[&str]) -> bool {
    match item {
        Value::String(s) => s == r || keys.contains(&s.as_str()),
        Value::Object(o) => ["ref", "url", "id"].iter().any(|k| {
            o.get(*k)
                .and_then(Value::as_str)
                .is_some_and(|v| v == r || keys.contains(&v))
        }),
        _ => false,
    }
}

/// True when every URL in `text` is one of `urls`.
fn grounded_urls(text: &str, urls: &[&str]) -> bool {
    text.split_whitespace()
        .filter(|w| w.contains("http://") || w.contains("https://"))
        .all(|w| {
            let start = w.find("http").unwrap_or(0);
            let url = w[start..].trim_end_matches(['.', ',', ')', '\'', '"', ']', '>']);
            urls.contains(&url)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        agent::run::findings::Findings,
        contract::{M365Source, McpSuggestion, PostSummary},
    };

    fn collected() -> Collected {
        let s = Findings::default();
        s.add_m365(vec![McpSuggestion {
            title: "Guide".into(),
            url: "https://c.sharepoint.com/guide".into(),
            description: "d".into(),
            source_type: "m365".into(),
            source: M365Source::Sharepoint,
            status: "available".into(),
        }]);
        s.add_posts(vec![PostSummary::example("p-77", "t")], &[]);
        s.snapshot()
    }

    #[test]
    fn refs_urls_and_ids_select_collected_results_and_inventions_are_dropped() {
        let answer = r#"{"m365": ["m1", {"url": "https://evil.example/x"}, "m9"], "posts": [{"id": "p-77"}, "p-999"], "actionHint": "Read the Guide."}"#;
        let s = parse(answer, &collected()).unwrap();
        assert_eq!(
            s,
            Selection {
                m365: vec!["m1".into()],
                posts: vec!["p1".into()],
                action_hint: Some("Read the Guide.".into())
            }
        );
    }

    #[test]
    fn fenced_answers_parse_and_prose_does_not() {
        let fenced = "```json\n{\"m365\": [\"https://c.sharepoint.com/guide\"], \"posts\": [], \"actionHint\": null}\n```";
        assert_eq!(parse(fenced, &collected()).unwrap().m365, vec!["m1"]);
        assert!(parse("Here are your results!", &collected()).is_none());
    }

    #[test]
    fn a_hint_with_an_invented_url_is_dropped() {
        let answer =
            r#"{"m365": ["m1"], "posts": [], "actionHint": "See https://evil.example/phish now."}"#;
        assert_eq!(parse(answer, &collected()).unwrap().action_hint, None);
        let ok =
            r#"{"m365": ["m1"], "posts": [], "actionHint": "See https://c.sharepoint.com/guide."}"#;
        assert!(parse(ok, &collected()).unwrap().action_hint.is_some());
    }
}

/// formatResponse in a graph run driven by a scripted model.
#[cfg(test)]
mod in_a_run {
    use serde_json::json;

    use crate::{
        agent::test_support::{default_harness, run_with},
        degraded::Degraded,
        llm::scripted::{Reply, ScriptedModel},
    };

    #[tokio::test]
    async fn format_response_selects_by_ref_or_id_and_drops_what_no_tool_returned() {
        let h = default_harness(5).await;
        let model = ScriptedModel::new([
            Reply::Tools(vec![("search_posts", json!({"query": "pipeline"}))]),
            Reply::Text(
                json!({"m365": [{"url": "https://evil.example/x"}], "posts": ["p-77", "p9"],
                    "actionHint": "Read https://evil.example/x now"})
                .to_string(),
            ),
        ]);
        let state = run_with(&h, &model).await.unwrap();
        let selection = state.selection.unwrap();
        assert!(selection.m365.is_empty());
        assert_eq!(selection.posts, vec!["p1"]);
        assert_eq!(
            selection.action_hint, None,
            "a hint with an invented URL is dropped"
        );
    }

    #[tokio::test]
    async fn an_unparseable_final_answer_keeps_the_run_and_says_so() {
        let h = default_harness(5).await;
        let model = ScriptedModel::new([Reply::Text("Here you go!".into())]);
        let state = run_with(&h, &model).await.unwrap();
        assert!(state.selection.is_none());
        assert_eq!(state.degraded, vec![Degraded::LlmOutputUnparseable]);
    }
}
