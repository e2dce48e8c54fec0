//! The relevance evaluation: the labelled set in `tests/quality/set.json`
//! (Microsoft 365 documents for the fake Graph, earlier posts, questions with
//! the documents and posts that would help their authors, labelled by meaning
//! and independently of the ranking code) run through the real app against
//! the fakes. The fakes are deterministic, so the figures are too: the
//! `quality` test holds them to floors, `cargo bench --bench quality` prints
//! them.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Doc, Options, TestApp,
    graph::TOKEN,
    openai::{ChatStep, Received},
    spawn_app_with,
};

#[derive(Deserialize)]
struct Set {
    concepts: Vec<Vec<String>>,
    m365: Vec<SetDoc>,
    posts: Vec<SetPost>,
    questions: Vec<Question>,
}

#[derive(Deserialize)]
struct SetDoc {
    id: String,
    kind: String,
    title: String,
    url: String,
    body: String,
}

#[derive(Deserialize)]
struct SetPost {
    id: String,
    text: String,
    tags: Vec<String>,
    category: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Question {
    id: String,
    text: String,
    tags: Vec<String>,
    category: Option<String>,
    /// Ids of the documents that would help.
    m365: Vec<String>,
    /// Ids of the similar posts.
    posts: Vec<String>,
    /// What a model following the system prompt would search Microsoft 365 for.
    agent_queries: Vec<String>,
}

/// Ranking of Microsoft 365 documents, averaged over the questions.
#[derive(Debug, Default, Clone, Copy)]
pub struct M365Figures {
    pub recall_at_10: f64,
    /// Relevant share of what was returned (at most 10); 0 when nothing was.
    pub precision_at_10: f64,
    pub mrr: f64,
}

/// The similar posts of the panels.
#[derive(Debug, Default, Clone, Copy)]
pub struct PostFigures {
    /// Share of the questions with similar posts whose panel shows one.
    pub hit_at_5: f64,
    /// Over the questions with similar posts.
    pub mrr: f64,
    /// Posts in a panel that are not similar to its question, per panel (all questions).
    pub unrelated_per_panel: f64,
}

/// Everything the evaluation measures.
#[derive(Debug, Default, Clone, Copy)]
pub struct Figures {
    pub questions: usize,
    /// The fallback (no LLM): its keyword queries.
    pub fallback_m365: M365Figures,
    /// The agent with a scripted model that searches `agentQueries` and keeps
    /// every result it was shown (so this measures the search, not a model's choice).
    pub agent_m365: M365Figures,
    /// Posts found by words only (no embeddings deployment).
    pub posts_words: PostFigures,
    /// Posts found by words and meaning (the fake embedding model).
    pub posts_hybrid: PostFigures,
    pub chat_calls_per_request: f64,
    pub chat_bytes_per_request: f64,
}

fn load() -> Set {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/set.json");
    let text = std::fs::read_to_string(path).expect("tests/quality/set.json");
    serde_json::from_str(&text).expect("the evaluation set parses")
}

/// The set's categories as LinkUp's.
fn category(c: Option<&str>) -> Option<&'static str> {
    match c? {
        "question" => Some("question"),
        "help" => Some("help"),
        "info" => Some("share"),
        "event" => Some("meetup"),
        _ => Some("discussion"),
    }
}

fn docs(set: &Set) -> Vec<Doc> {
    set.m365
        .iter()
        .map(|d| match d.kind.as_str() {
            "mail" => Doc::mail(&d.title, &d.url, &d.body),
            "list_item" => Doc::list_item(&d.title, &d.url, &d.body),
            _ => Doc::file(&d.title, &d.url, &d.body),
        })
        .collect()
}

/// An app with the set's documents in Graph and its posts in the index.
async fn app(set: &Set, options: Options) -> TestApp {
    let app = spawn_app_with(options).await;
    app.graph.add(docs(set));
    app.openai.concepts(set.concepts.clone());
    let posts: Vec<Value> = set
        .posts
        .iter()
        .map(|p| {
            json!({"id": p.id, "authorId": "u1", "authorName": "Kim", "text": p.text,
                "tags": p.tags, "category": category(p.category.as_deref()).unwrap_or("discussion"),
                "lat": 37.5, "lng": 127.0, "createdAt": "2026-11-01T09:00:00Z",
                "expiresAt": "2099-01-01T00:00:00Z"})
        })
        .collect();
    let (status, body) = app.post_batch(&posts).await;
    assert_eq!(status, 200, "{body}");
    app
}

async fn ask(app: &TestApp, q: &Question) -> Value {
    let body = json!({"postId": format!("eval-{}", q.id), "text": q.text, "tags": q.tags,
        "category": category(q.category.as_deref())});
    let (status, body) = app.suggest(body, Some(TOKEN)).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// Ids of the panel's documents (by URL), in order.
fn m365_ids(set: &Set, body: &Value) -> Vec<String> {
    body["m365"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let url = item["url"].as_str()?;
            Some(
                set.m365
                    .iter()
                    .find(|d| d.url == url)
                    .map_or_else(|| format!("unknown:{url}"), |d| d.id.clone()),
            )
        })
        .collect()
}

fn panel_posts(body: &Value) -> Vec<String> {
    super::post_ids(body)
}

/// Reciprocal rank of the first relevant item (0 when none).
fn reciprocal_rank(ranked: &[String], relevant: &HashSet<&str>) -> f64 {
    ranked
        .iter()
        .position(|id| relevant.contains(id.as_str()))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

#[derive(Default)]
struct M365Sum {
    recall: f64,
    precision: f64,
    rr: f64,
    n: usize,
}

impl M365Sum {
    fn add(&mut self, ranked: &[String], labels: &[String]) {
        let relevant: HashSet<&str> = labels.iter().map(String::as_str).collect();
        let top: Vec<String> = ranked.iter().take(10).cloned().collect();
        let hits = top
            .iter()
            .filter(|id| relevant.contains(id.as_str()))
            .count() as f64;
        self.recall += hits / relevant.len().max(1) as f64;
        self.precision += if top.is_empty() {
            0.0
        } else {
            hits / top.len() as f64
        };
        self.rr += reciprocal_rank(&top, &relevant);
        self.n += 1;
    }

    fn figures(&self) -> M365Figures {
        let n = self.n.max(1) as f64;
        M365Figures {
            recall_at_10: self.recall / n,
            precision_at_10: self.precision / n,
            mrr: self.rr / n,
        }
    }
}

#[derive(Default)]
struct PostSum {
    hits: f64,
    rr: f64,
    with_similar: usize,
    unrelated: f64,
    panels: usize,
}

impl PostSum {
    fn add(&mut self, panel: &[String], labels: &[String]) {
        let relevant: HashSet<&str> = labels.iter().map(String::as_str).collect();
        let top: Vec<String> = panel.iter().take(5).cloned().collect();
        if !relevant.is_empty() {
            self.with_similar += 1;
            if top.iter().any(|id| relevant.contains(id.as_str())) {
                self.hits += 1.0;
            }
            self.rr += reciprocal_rank(&top, &relevant);
        }
        self.unrelated += top
            .iter()
            .filter(|id| !relevant.contains(id.as_str()))
            .count() as f64;
        self.panels += 1;
    }

    fn figures(&self) -> PostFigures {
        let with = self.with_similar.max(1) as f64;
        PostFigures {
            hit_at_5: self.hits / with,
            mrr: self.rr / with,
            unrelated_per_panel: self.unrelated / self.panels.max(1) as f64,
        }
    }
}

fn chat_requests(received: &[Received]) -> impl Iterator<Item = &Received> {
    received
        .iter()
        .filter(|r| r.path.ends_with("chat/completions"))
}

/// Runs the whole evaluation: the fallback by words only, the fallback with
/// embeddings, and the agent with the scripted model.
pub async fn evaluate() -> Figures {
    let set = load();
    let mut figures = Figures {
        questions: set.questions.len(),
        ..Figures::default()
    };

    let words = app(&set, Options::default()).await;
    let (mut m365, mut posts) = (M365Sum::default(), PostSum::default());
    for q in &set.questions {
        let body = ask(&words, q).await;
        m365.add(&m365_ids(&set, &body), &q.m365);
        posts.add(&panel_posts(&body), &q.posts);
    }
    figures.fallback_m365 = m365.figures();
    figures.posts_words = posts.figures();
    drop(words);

    let hybrid = app(
        &set,
        Options {
            embeddings: true,
            ..Options::default()
        },
    )
    .await;
    hybrid.wait_until_embedded(set.posts.len() as i64).await;
    let mut posts = PostSum::default();
    for q in &set.questions {
        let body = ask(&hybrid, q).await;
        posts.add(&panel_posts(&body), &q.posts);
    }
    figures.posts_hybrid = posts.figures();
    drop(hybrid);

    let agent = app(
        &set,
        Options {
            llm: true,
            embeddings: true,
            ..Options::default()
        },
    )
    .await;
    agent.wait_until_embedded(set.posts.len() as i64).await;
    let mut m365 = M365Sum::default();
    let before = chat_requests(&agent.openai.received()).count();
    for q in &set.questions {
        let mut calls: Vec<(&'static str, Value)> = q
            .agent_queries
            .iter()
            .map(|query| ("search_m365", json!({ "query": query })))
            .collect();
        calls.push(("search_posts", json!({ "query": q.text })));
        agent
            .openai
            .chat([ChatStep::ToolCalls(calls), ChatStep::SelectAll]);
        let body = ask(&agent, q).await;
        assert_eq!(body["meta"]["path"], "agent", "{body}");
        m365.add(&m365_ids(&set, &body), &q.m365);
    }
    let received = agent.openai.received();
    let calls: Vec<&Received> = chat_requests(&received).skip(before).collect();
    let bytes: usize = calls.iter().map(|r| r.bytes_in).sum();
    let n = set.questions.len().max(1) as f64;
    figures.agent_m365 = m365.figures();
    figures.chat_calls_per_request = calls.len() as f64 / n;
    figures.chat_bytes_per_request = bytes as f64 / n;
    figures
}

impl Figures {
    /// The figures as a Markdown table.
    pub fn table(&self) -> String {
        let m = |name: &str, f: &M365Figures| {
            format!(
                "| M365, {name} | recall@10 {:.2} · precision@10 {:.2} · MRR {:.2} |\n",
                f.recall_at_10, f.precision_at_10, f.mrr
            )
        };
        let p = |name: &str, f: &PostFigures| {
            format!(
                "| posts, {name} | hit@5 {:.2} · MRR {:.2} · unrelated per panel {:.2} |\n",
                f.hit_at_5, f.mrr, f.unrelated_per_panel
            )
        };
        format!(
            "{} questions\n\n| measure | figures |\n|---|---|\n{}{}{}{}| agent request | {:.2} chat calls · {:.0} bytes sent to the LLM |\n",
            self.questions,
            m("fallback", &self.fallback_m365),
            m(
                "agent (scripted model keeping what it is shown)",
                &self.agent_m365
            ),
            p("words only", &self.posts_words),
            p("hybrid (words + meaning)", &self.posts_hybrid),
            self.chat_calls_per_request,
            self.chat_bytes_per_request,
        )
    }
}
