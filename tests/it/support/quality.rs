//! The relevance evaluation: the labelled set in `tests/quality/` (Microsoft
//! 365 documents for the fake Graph, earlier posts, questions with the
//! documents and posts that would help their authors; generated with the
//! labels by `tests/quality/generate.py`, independently of the ranking code)
//! run through the real app against the fakes. The questions are split once
//! into a tuning half and a held-out half (`tuning.json`, `heldout.json`,
//! one corpus): decisions are tuned on the first; the figures that count,
//! and the floors the `quality` test holds, are the second's.
//!
//! The set is two files' worth: the English-centred one (`tuning.json`,
//! `heldout.json`) and the Korean and mixed one (`korean.json`, written by
//! `generate_ko.py`, its questions marked with their half), searched as one
//! corpus. Figures are also given per language: `en` and `ko` (questions in
//! that language, posts in it), `ko→en` and `en→ko` (a question whose similar
//! post is in the other language).
//!
//! Posts are ranked four ways: by words only (`posts.embedder = none`), by
//! the local model (nothing configured), by the fake Azure embedding model
//! (bag of concepts), and by a real published model behind the Azure wire
//! format (all-MiniLM-L6-v2's vectors, precomputed into
//! `tests/quality/real_model/vectors.json`), so that a rule that holds for
//! one model only shows.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::{Arc, Mutex},
};

use linkup_suggestions::azure_auth::Identity;
use tokio::sync::OnceCell;

use serde::Deserialize;
use serde_json::{Value, json};

mod shares;

pub use shares::evaluate_shares;

use super::{
    Doc, FakeGraph, FakeOpenAi, Options, TestApp,
    graph::TOKEN,
    openai::{ChatStep, Received},
    spawn_app_on, spawn_app_with,
};

/// Which half of the questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    Tuning,
    Heldout,
    /// Set B (`set_b.json`, written another way by `generate_b.py`), on
    /// its board of this many posts (30, 300 or 3,000): all of it is
    /// reported, nothing is tuned on it.
    B(usize),
}

impl Half {
    pub fn name(self) -> &'static str {
        match self {
            Self::Tuning => "tuning",
            Self::Heldout => "heldout",
            Self::B(_) => "b",
        }
    }
}

#[derive(Deserialize)]
struct Set {
    concepts: Vec<Vec<String>>,
    m365: Vec<SetDoc>,
    posts: Vec<SetPost>,
    questions: Vec<Question>,
    /// Which half and board this is ([`seed`]'s key).
    #[serde(skip)]
    key: String,
}

#[derive(Deserialize)]
struct SetDoc {
    id: String,
    kind: String,
    title: String,
    url: String,
    body: String,
    /// `en` or `ko` (set B).
    #[serde(default)]
    lang: Option<String>,
}

#[derive(Deserialize)]
struct SetPost {
    id: String,
    text: String,
    tags: Vec<String>,
    category: Option<String>,
    /// `ko` or `en` (korean.json); else told by the text.
    lang: Option<String>,
    /// Set B: the smallest board the post is on.
    board: Option<usize>,
}

impl SetPost {
    fn lang(&self) -> &str {
        self.lang.as_deref().unwrap_or_else(|| language(&self.text))
    }
}

/// `ko` for a text with Hangul in it, else `en`.
fn language(text: &str) -> &'static str {
    if text
        .chars()
        .any(|c| matches!(c, '\u{AC00}'..='\u{D7A3}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}'))
    {
        "ko"
    } else {
        "en"
    }
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
    /// `ko` or `en` (korean.json); else told by the text.
    lang: Option<String>,
    /// The half of a korean.json question (its file's questions are both).
    half: Option<String>,
}

impl Question {
    fn lang(&self) -> &str {
        self.lang.as_deref().unwrap_or_else(|| language(&self.text))
    }
}

/// The quoted-subject family (`tests/quality/quoted.json`, written by
/// `generate_quoted.py`): posts that quote or paraphrase the subject of
/// one of the caller's mails or the title of a file.
#[derive(Deserialize)]
struct QuotedSet {
    cases: Vec<QuotedCase>,
}

#[derive(Deserialize)]
struct QuotedCase {
    id: String,
    half: String,
    language: String,
    text: String,
    #[serde(default)]
    tags: Vec<String>,
    /// The quoted document's id.
    quoted: String,
    /// Its kind (`mail`, `file`, `list_item`).
    kind: String,
}

/// The quoted-subject family's figures on one half.
#[derive(Debug, Default, Clone)]
pub struct QuotedFigures {
    /// Share of the cases whose quoted document is in the panel's top 3.
    pub top_3: f64,
    /// Mean reciprocal rank of the quoted document.
    pub mrr: f64,
    /// (in the top 3, cases) per `language kind`.
    pub by: BTreeMap<String, (usize, usize)>,
}

/// Ranking of Microsoft 365 documents, averaged over the questions.
#[derive(Debug, Default, Clone, Copy)]
pub struct M365Figures {
    pub recall_at_10: f64,
    /// Relevant share of what was returned (at most 10); 0 when nothing was.
    pub precision_at_10: f64,
    pub mrr: f64,
    /// Microsoft Graph requests per panel.
    pub graph_requests: f64,
    /// Recall of what the searches returned, before the service ranked
    /// it: what any ranking of them could reach (the fallback's only).
    pub found: f64,
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

/// Everything the evaluation measures on one half.
#[derive(Debug, Default, Clone)]
pub struct Figures {
    pub questions: usize,
    /// The fallback (no LLM): its keyword queries.
    pub fallback_m365: M365Figures,
    /// The agent (pre-retrieval on, the default) with a scripted model that
    /// keeps every result it was shown (so this measures the search, not a
    /// model's choice): see `agent_run`.
    pub agent: AgentFigures,
    /// The same with pre-retrieval off: the model decides every search.
    pub agent_model_searches: AgentFigures,
    /// Posts by words only (`posts.embedder = none`).
    pub posts_words: PostFigures,
    /// Posts by words and the local model (nothing configured).
    pub posts_local: PostFigures,
    /// Posts by words and the fake Azure embedding model.
    pub posts_azure_fake: PostFigures,
    /// Posts by words and a real model's vectors behind the Azure wire
    /// format (None when its vectors file is absent).
    pub posts_azure_real: Option<PostFigures>,
    /// The same measures per language slice (`en`, `ko`, `ko→en`, `en→ko`).
    pub slices: BTreeMap<&'static str, Slice>,
    /// The quoted-subject family on the fallback (None without quoted.json).
    pub quoted: Option<QuotedFigures>,
    /// What failed, one line per question and measure, with the queries sent.
    pub failures: Vec<String>,
}

/// The agent's figures on one course.
#[derive(Debug, Default, Clone, Copy)]
pub struct AgentFigures {
    pub m365: M365Figures,
    pub posts: PostFigures,
    pub chat_calls_per_request: f64,
    /// Share of the views answered in one chat call.
    pub one_call_share: f64,
    pub chat_bytes_per_request: f64,
}

/// The figures of one language slice. In `ko→en` and `en→ko` a hit is a
/// similar post in the other language, and unrelated posts are counted in
/// the question's own language's slice only.
#[derive(Debug, Default, Clone, Copy)]
pub struct Slice {
    pub questions: usize,
    pub fallback_m365: M365Figures,
    pub posts_words: PostFigures,
    pub posts_local: PostFigures,
    pub posts_azure_fake: PostFigures,
}

/// The language slices a question's panel counts in, with the labels its
/// posts are judged by there and whether unrelated posts count.
fn slices_of(set: &Set, q: &Question) -> Vec<(&'static str, Vec<String>, bool)> {
    let lang = q.lang();
    let (same, other): (Vec<String>, Vec<String>) = q.posts.iter().cloned().partition(|id| {
        set.posts
            .iter()
            .find(|p| &p.id == id)
            .is_none_or(|p| p.lang() == lang)
    });
    let (own, cross) = if lang == "ko" {
        ("ko", "ko→en")
    } else {
        ("en", "en→ko")
    };
    let mut out = vec![(own, same, true)];
    if !other.is_empty() {
        out.push((cross, other, false));
    }
    out
}

/// Per-slice sums, turned into [`Slice`] figures at the end.
#[derive(Default)]
struct Slices {
    m365: BTreeMap<&'static str, M365Sum>,
    posts: BTreeMap<(&'static str, &'static str), PostSum>,
    questions: BTreeMap<&'static str, usize>,
}

impl Slices {
    fn posts(&mut self, run: &'static str, set: &Set, q: &Question, panel: &[String]) {
        for (slice, labels, unrelated) in slices_of(set, q) {
            let sum = self.posts.entry((slice, run)).or_default();
            sum.add_slice(panel, &labels, &q.posts, unrelated);
        }
    }

    /// A fallback panel's documents, in the question's language's slice,
    /// and (its documents in the other language only) in the cross slice.
    fn m365(
        &mut self,
        set: &Set,
        q: &Question,
        ranked: &[String],
        found: &[String],
        requests: usize,
    ) {
        let lang = q.lang();
        let (own, cross) = if lang == "ko" {
            ("ko", "ko→en")
        } else {
            ("en", "en→ko")
        };
        let sum = self.m365.entry(own).or_default();
        sum.add(ranked, &q.m365, requests);
        sum.add_found(found, &q.m365);
        *self.questions.entry(own).or_default() += 1;
        let other: Vec<String> = q
            .m365
            .iter()
            .filter(|id| {
                set.m365
                    .iter()
                    .find(|d| &d.id == *id)
                    .is_some_and(|d| language(&format!("{} {}", d.title, d.body)) != lang)
            })
            .cloned()
            .collect();
        if !other.is_empty() {
            // Recall of the other language's documents; precision counts
            // them alone.
            let sum = self.m365.entry(cross).or_default();
            sum.add(ranked, &other, requests);
            sum.add_found(found, &other);
        }
    }

    fn figures(&self) -> BTreeMap<&'static str, Slice> {
        let mut out: BTreeMap<&'static str, Slice> = BTreeMap::new();
        for (&slice, sum) in &self.m365 {
            out.entry(slice).or_default().fallback_m365 = sum.figures();
        }
        for (&slice, &n) in &self.questions {
            out.entry(slice).or_default().questions = n;
        }
        for (&(slice, run), sum) in &self.posts {
            let f = out.entry(slice).or_default();
            let figures = sum.figures();
            match run {
                "words" => f.posts_words = figures,
                "local" => f.posts_local = figures,
                _ => f.posts_azure_fake = figures,
            }
        }
        out
    }
}

fn read(name: &str) -> Set {
    let path = format!("{}/tests/quality/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the evaluation set");
    serde_json::from_str(&text).expect("the evaluation set parses")
}

/// The English-centred set's half (the real English model's vectors are
/// computed for its texts only).
fn load_english(half: Half) -> Set {
    read(half.name())
}

/// One half: the English-centred set's, with korean.json's corpus and its
/// questions of that half.
fn load(half: Half) -> Set {
    if let Half::B(size) = half {
        let mut set = read("set_b");
        set.posts.retain(|p| p.board.is_some_and(|b| b <= size));
        assert_eq!(set.posts.len(), size, "set B's board of {size}");
        set.key = format!("{half:?}");
        return set;
    }
    let mut set = load_english(half);
    set.key = format!("{half:?}");
    let korean = read("korean");
    set.concepts.extend(korean.concepts);
    set.m365.extend(korean.m365);
    set.posts.extend(korean.posts);
    set.questions.extend(
        korean
            .questions
            .into_iter()
            .filter(|q| q.half.as_deref() == Some(half.name())),
    );
    set
}

/// The real model's vectors by text, when `tests/quality/real_model/vectors.json` exists.
fn real_vectors() -> Option<HashMap<String, Vec<f32>>> {
    #[derive(Deserialize)]
    struct File {
        vectors: HashMap<String, String>,
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/quality/real_model/vectors.json"
    );
    let file: File = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(
        file.vectors
            .into_iter()
            .map(|(text, b64)| (text, decode_f32(&b64)))
            .collect(),
    )
}

/// Little-endian float32 values from base64.
fn decode_f32(b64: &str) -> Vec<f32> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bytes = Vec::with_capacity(b64.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in b64.bytes().filter(|&c| c != b'=') {
        let Some(v) = ALPHABET.iter().position(|&a| a == c) else {
            continue;
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
        }
    }
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The set's categories as LinkUp's.
fn category(c: Option<&str>) -> Option<&'static str> {
    match c? {
        "question" => Some("question"),
        "help" => Some("help"),
        "info" | "share" => Some("share"),
        "event" | "meetup" => Some("meetup"),
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

/// An app with the set's documents in Graph and its posts in the index;
/// `QUALITY_MODEL_PATH` names another local model to evaluate
/// (`posts.model_path`).
async fn app(set: &Set, mut options: Options) -> TestApp {
    model_path(&mut options);
    let by_local_model = !options.embeddings
        && !options
            .env
            .iter()
            .any(|(k, _)| *k == "LINKUP__POSTS__EMBEDDER");
    let seed = if by_local_model {
        Some(seed(set).await)
    } else {
        None
    };
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    let app = spawn_app_on(options, graph, openai, Identity::default(), |env| {
        if let Some(seed) = &seed {
            std::fs::write(&env["LINKUP__POSTS__DB_PATH"], &seed[..]).expect("the seeded index");
        }
    })
    .await;
    app.openai.concepts(set.concepts.clone());
    app.graph.add(docs(set));
    if seed.is_none() {
        put_posts(&app, set).await;
    }
    app
}

/// `QUALITY_MODEL_PATH`, when set, as the local model (`posts.model_path`).
fn model_path(options: &mut Options) {
    if let Ok(path) = std::env::var("QUALITY_MODEL_PATH") {
        options.env.push(("LINKUP__POSTS__MODEL_PATH", path));
    }
}

/// The set's posts stored and embedded by the multilingual model, once per
/// test process: the SQLite index a service keeps across restarts. The apps
/// that rank posts by that model start from a copy of it, as a restarted
/// service does, instead of embedding the board again (~19 s of CPU for the
/// held-out board, which five apps of the evaluations use).
async fn seed(set: &Set) -> Arc<Vec<u8>> {
    type Seeds = BTreeMap<String, Arc<OnceCell<Arc<Vec<u8>>>>>;
    static SEEDS: Mutex<Seeds> = Mutex::new(BTreeMap::new());
    let cell = Arc::clone(
        SEEDS
            .lock()
            .expect("the seeds")
            .entry(set.key.clone())
            .or_default(),
    );
    let seed = cell
        .get_or_init(|| async {
            let mut options = Options::default();
            model_path(&mut options);
            let app = spawn_app_with(options).await;
            put_posts(&app, set).await;
            let dir = tempfile::tempdir().expect("temp dir");
            let copy = dir.path().join("seed.db");
            rusqlite::Connection::open(&app.db_path)
                .and_then(|c| c.execute("VACUUM INTO ?1", [copy.display().to_string()]))
                .expect("a copy of the index");
            Arc::new(std::fs::read(&copy).expect("the copy"))
        })
        .await;
    Arc::clone(seed)
}

fn embedder(name: &str) -> Vec<(&'static str, String)> {
    vec![("LINKUP__POSTS__EMBEDDER", name.to_owned())]
}

async fn ask(app: &TestApp, q: &Question) -> Value {
    let body = json!({"postId": format!("eval-{}", q.id), "text": q.text, "tags": q.tags,
        "category": category(q.category.as_deref())});
    let (status, body) = app.suggest(body, Some(TOKEN)).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// `q` asked twice on `app`, the second answer returned. The first view
/// embeds what the multilingual model had not (a Korean post's Microsoft
/// 365 hits, a shared document's title), which the service remembers; a
/// view on an idle machine has them in time, but one on a loaded machine
/// judges what it has not had within `VECTORS_WAIT` by words (a CI run
/// measured the held-out Korean precision 0.05 low so). The figures are
/// then the ranking's, not the machine's load.
async fn ask_settled(app: &TestApp, q: &Question) -> Value {
    ask(app, q).await;
    ask(app, q).await
}

/// Ids of the panel's documents (by URL), in order.
fn m365_ids(set: &Set, body: &Value) -> Vec<String> {
    let urls: Vec<String> = body["m365"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["url"].as_str().map(str::to_owned))
        .collect();
    doc_ids(set, &urls)
}

/// The set's ids of the documents at `urls`.
fn doc_ids(set: &Set, urls: &[String]) -> Vec<String> {
    urls.iter()
        .map(|url| {
            set.m365
                .iter()
                .find(|d| &d.url == url)
                .map_or_else(|| format!("unknown:{url}"), |d| d.id.clone())
        })
        .collect()
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
    graph_requests: usize,
    n: usize,
    found: f64,
}

impl M365Sum {
    /// Adds a panel; returns a description of its failure, if it failed
    /// (nothing relevant found, or less than half of what it shows).
    fn add(
        &mut self,
        ranked: &[String],
        labels: &[String],
        graph_requests: usize,
    ) -> Option<String> {
        let relevant: HashSet<&str> = labels.iter().map(String::as_str).collect();
        let top: Vec<String> = ranked.iter().take(10).cloned().collect();
        let hits = top
            .iter()
            .filter(|id| relevant.contains(id.as_str()))
            .count();
        let recall = hits as f64 / relevant.len().max(1) as f64;
        let precision = if top.is_empty() {
            0.0
        } else {
            hits as f64 / top.len() as f64
        };
        self.recall += recall;
        self.precision += precision;
        self.rr += reciprocal_rank(&top, &relevant);
        self.graph_requests += graph_requests;
        self.n += 1;
        (hits == 0 || precision < 0.5).then(|| {
            format!(
                "recall {recall:.2} precision {precision:.2}: shown {top:?}, relevant {labels:?}"
            )
        })
    }

    /// Adds what a panel's searches returned (`found`), before ranking.
    fn add_found(&mut self, found: &[String], labels: &[String]) {
        let hits = labels.iter().filter(|id| found.contains(id)).count();
        self.found += hits as f64 / labels.len().max(1) as f64;
    }

    fn figures(&self) -> M365Figures {
        let n = self.n.max(1) as f64;
        M365Figures {
            recall_at_10: self.recall / n,
            precision_at_10: self.precision / n,
            mrr: self.rr / n,
            graph_requests: self.graph_requests as f64 / n,
            found: self.found / n,
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
    /// Adds a panel; returns a description of its failure, if it failed (a
    /// similar post missed, or an unrelated one shown).
    fn add(&mut self, panel: &[String], labels: &[String]) -> Option<String> {
        let relevant: HashSet<&str> = labels.iter().map(String::as_str).collect();
        let top: Vec<String> = panel.iter().take(5).cloned().collect();
        let hit = top.iter().any(|id| relevant.contains(id.as_str()));
        if !relevant.is_empty() {
            self.with_similar += 1;
            if hit {
                self.hits += 1.0;
            }
            self.rr += reciprocal_rank(&top, &relevant);
        }
        let unrelated: Vec<&String> = top
            .iter()
            .filter(|id| !relevant.contains(id.as_str()))
            .collect();
        self.unrelated += unrelated.len() as f64;
        self.panels += 1;
        let missed = !relevant.is_empty() && !hit;
        (missed || !unrelated.is_empty())
            .then(|| format!("shown {top:?}, similar {labels:?}, unrelated {unrelated:?}"))
    }

    /// Adds a panel to a language slice: a hit is one of `labels` (the
    /// slice's similar posts); unrelated posts (none of `all`) are counted
    /// when `count_unrelated`.
    fn add_slice(
        &mut self,
        panel: &[String],
        labels: &[String],
        all: &[String],
        count_unrelated: bool,
    ) {
        let top: Vec<&String> = panel.iter().take(5).collect();
        if !labels.is_empty() {
            self.with_similar += 1;
            let relevant: HashSet<&str> = labels.iter().map(String::as_str).collect();
            let owned: Vec<String> = top.iter().map(|s| (*s).clone()).collect();
            if top.iter().any(|id| relevant.contains(id.as_str())) {
                self.hits += 1.0;
            }
            self.rr += reciprocal_rank(&owned, &relevant);
        }
        if count_unrelated {
            self.unrelated += top.iter().filter(|id| !all.contains(id)).count() as f64;
            self.panels += 1;
        }
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

/// Posts of every question's panel on `app`, summed; failures noted under `name`.
async fn posts_run(
    app: &TestApp,
    set: &Set,
    name: &'static str,
    failures: &mut Vec<String>,
    slices: &mut Slices,
) -> PostFigures {
    let mut posts = PostSum::default();
    for q in &set.questions {
        let body = ask(app, q).await;
        assert!(
            !super::strings(&body["meta"]["degraded"])
                .iter()
                .any(|d| d.starts_with("embeddings_")),
            "{name}: the embedding model failed: {body}"
        );
        let panel = super::post_ids(&body);
        slices.posts(name, set, q, &panel);
        if let Some(f) = posts.add(&panel, &q.posts) {
            failures.push(format!("{} posts {name} [{}]: {f}", q.id, q.text));
        }
    }
    posts.figures()
}

/// Runs the whole evaluation on one half: the fallback by words only, by
/// the local model, with each embedding model, and the agent with the
/// scripted model.
pub async fn evaluate(half: Half) -> Figures {
    let set = load(half);
    let mut f = Figures {
        questions: set.questions.len(),
        ..Figures::default()
    };

    // Nothing configured: the fallback, posts by the local model.
    let local = app(&set, Options::default()).await;
    let (mut m365, mut posts) = (M365Sum::default(), PostSum::default());
    let mut slices = Slices::default();
    for q in &set.questions {
        // Asked once before the measured view (see `ask_settled`); the
        // Graph requests counted are the measured view's.
        ask(&local, q).await;
        let before = local.graph.queries().len();
        let returned = local.graph.returned().len();
        let body = ask(&local, q).await;
        let queries = local.graph.queries()[before..].to_vec();
        let found = doc_ids(&set, &local.graph.returned()[returned..]);
        let ranked = m365_ids(&set, &body);
        slices.m365(&set, q, &ranked, &found, queries.len());
        m365.add_found(&found, &q.m365);
        slices.posts("local", &set, q, &super::post_ids(&body));
        if let Some(failed) = m365.add(&ranked, &q.m365, queries.len()) {
            f.failures.push(format!(
                "{} m365 fallback [{}]: {failed}; queries {queries:?}",
                q.id, q.text
            ));
        }
        if let Some(failed) = posts.add(&super::post_ids(&body), &q.posts) {
            f.failures
                .push(format!("{} posts local [{}]: {failed}", q.id, q.text));
        }
    }
    f.fallback_m365 = m365.figures();
    f.posts_local = posts.figures();
    f.quoted = match half {
        Half::B(_) => Some(quoted_run(&local, &set, subjects(&set), &mut f.failures).await),
        _ => match quoted_cases(half) {
            Some(cases) => Some(quoted_run(&local, &set, cases, &mut f.failures).await),
            None => None,
        },
    };
    drop(local);
    if std::env::var_os("QUALITY_FALLBACK_ONLY").is_some() {
        // The fallback's figures alone (a quicker loop while tuning them).
        f.slices = slices.figures();
        return f;
    }
    if let Half::B(_) = half {
        // Set B measures what carries: the fallback and the agent's reading.
        f.slices = slices.figures();
        f.agent = agent_run(&set, true, &mut f.failures).await;
        return f;
    }

    let words = app(
        &set,
        Options {
            env: embedder("none"),
            ..Options::default()
        },
    )
    .await;
    f.posts_words = posts_run(&words, &set, "words", &mut f.failures, &mut slices).await;
    drop(words);

    let options = || Options {
        embeddings: true,
        ..Options::default()
    };
    let fake = app(&set, options()).await;
    fake.wait_until_embedded(set.posts.len() as i64).await;
    f.posts_azure_fake = posts_run(&fake, &set, "azure-fake", &mut f.failures, &mut slices).await;
    f.slices = slices.figures();
    if let Ok(path) = std::env::var("QUALITY_DUMP_EMBEDDED") {
        // The texts the service embeds, for tests/quality/real_model/embed.py.
        let mut texts: Vec<String> = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        texts.extend(fake.openai.embedded_inputs());
        texts.sort();
        texts.dedup();
        std::fs::write(&path, serde_json::to_string(&texts).unwrap()).unwrap();
    }
    drop(fake);

    // An English model, with vectors for the English-centred set's texts.
    if let Some(vectors) = real_vectors() {
        let english = load_english(half);
        // Its vectors are the model's own size: no `dimensions` asked.
        let mut real_options = options();
        real_options
            .env
            .push(("LINKUP__AZURE_OPENAI__EMBEDDING_DIMENSIONS", "0".to_owned()));
        let real = spawn_app_with(real_options).await;
        real.openai.vectors(vectors);
        real.graph.add(docs(&english));
        put_posts(&real, &english).await;
        real.wait_until_embedded(english.posts.len() as i64).await;
        let mut unused = Slices::default();
        f.posts_azure_real =
            Some(posts_run(&real, &english, "azure-real", &mut f.failures, &mut unused).await);
    }

    f.agent = agent_run(&set, true, &mut f.failures).await;
    f.agent_model_searches = agent_run(&set, false, &mut Vec::new()).await;
    f
}

/// The quoted-subject family's cases of `half` (`quoted.json`; none
/// without it).
fn quoted_cases(half: Half) -> Option<Vec<QuotedCase>> {
    let path = format!("{}/tests/quality/quoted.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).ok()?;
    let quoted: QuotedSet = serde_json::from_str(&text).expect("quoted.json parses");
    Some(
        quoted
            .cases
            .into_iter()
            .filter(|c| c.half == half.name())
            .collect(),
    )
}

/// Issue 63's mail subjects on a set written another way: every mail of
/// the set, its subject (without `RE:` or `FW:`, as a colleague would
/// write it) posted as it is, and again in lower case (`home network
/// changes`, `Question about rca`).
fn subjects(set: &Set) -> Vec<QuotedCase> {
    set.m365
        .iter()
        .filter(|d| d.kind == "mail")
        .flat_map(|d| [(d, false), (d, true)])
        .map(|(d, lower)| {
            let mut subject = d.title.as_str();
            while let Some((prefix, rest)) = subject.split_once(':') {
                let prefix = prefix.trim().to_ascii_lowercase();
                if !matches!(prefix.as_str(), "re" | "fw" | "fwd") {
                    break;
                }
                subject = rest.trim_start();
            }
            QuotedCase {
                id: format!("subject-{}{}", d.id, if lower { "-lower" } else { "" }),
                half: "b".into(),
                language: d.lang.clone().unwrap_or_default(),
                text: if lower {
                    subject.to_lowercase()
                } else {
                    subject.to_owned()
                },
                tags: Vec::new(),
                quoted: d.id.clone(),
                kind: d.kind.clone(),
            }
        })
        .collect()
}

/// Quoted-subject cases on the fallback: is the quoted document in the
/// panel's top 3?
async fn quoted_run(
    app: &TestApp,
    set: &Set,
    cases: Vec<QuotedCase>,
    failures: &mut Vec<String>,
) -> QuotedFigures {
    let mut figures = QuotedFigures::default();
    let (mut top_3, mut rr, mut n) = (0usize, 0f64, 0usize);
    for case in &cases {
        let body =
            json!({"postId": format!("eval-{}", case.id), "text": case.text, "tags": case.tags});
        let before = app.graph.queries().len();
        let (status, body) = app.suggest(body, Some(TOKEN)).await;
        assert_eq!(status, 200, "{body}");
        let ranked = m365_ids(set, &body);
        let position = ranked.iter().position(|id| *id == case.quoted);
        let hit = position.is_some_and(|p| p < 3);
        n += 1;
        top_3 += usize::from(hit);
        rr += position.map_or(0.0, |p| 1.0 / (p + 1) as f64);
        let slot = figures
            .by
            .entry(format!("{} {}", case.language, case.kind))
            .or_default();
        slot.0 += usize::from(hit);
        slot.1 += 1;
        if !hit {
            let queries = app.graph.queries()[before..].to_vec();
            failures.push(format!(
                "{} quoted [{}]: {} at {position:?} of {ranked:?}; queries {queries:?}",
                case.id, case.text, case.quoted
            ));
        }
    }
    figures.top_3 = top_3 as f64 / n.max(1) as f64;
    figures.mrr = rr / n.max(1) as f64;
    figures
}

/// The agent with a scripted model over every question, pre-retrieval on
/// or off. The model plans the question's `agentQueries` and a posts
/// search; with pre-retrieval it answers at once when a result it was
/// given holds a word of its first planned query, and makes its plan
/// otherwise; it keeps every result it was shown.
async fn agent_run(set: &Set, pre_retrieval: bool, failures: &mut Vec<String>) -> AgentFigures {
    let agent = app(
        set,
        Options {
            llm: true,
            env: vec![
                ("LINKUP__AGENT__PRE_RETRIEVAL", pre_retrieval.to_string()),
                // Every question is asked with the one test token.
                ("LINKUP__AGENT__RUNS_PER_CALLER_PER_MINUTE", "0".into()),
            ],
            ..Options::default()
        },
    )
    .await;
    let mut m365 = M365Sum::default();
    let mut posts = PostSum::default();
    let mut one_call = 0;
    let before = chat_requests(&agent.openai.received()).count();
    for q in &set.questions {
        let mut calls: Vec<(&'static str, Value)> = q
            .agent_queries
            .iter()
            .map(|query| ("search_m365", json!({ "query": query })))
            .collect();
        calls.push(("search_posts", json!({ "query": q.text })));
        let first = if pre_retrieval {
            let looks_for = q.agent_queries.first().map_or_else(Vec::new, |query| {
                query
                    .split_whitespace()
                    .filter(|w| w.chars().count() >= 2)
                    .map(str::to_owned)
                    .collect()
            });
            ChatStep::SearchUnlessFound {
                looks_for,
                search: calls,
            }
        } else {
            ChatStep::ToolCalls(calls)
        };
        agent.openai.chat([first, ChatStep::SelectAll]);
        let sent = agent.graph.queries().len();
        let body = ask(&agent, q).await;
        assert_eq!(body["meta"]["path"], "agent", "{body}");
        if body["meta"]["rounds"] == 1 {
            one_call += 1;
        }
        let queries = agent.graph.queries()[sent..].to_vec();
        if let Some(failed) = m365.add(&m365_ids(set, &body), &q.m365, queries.len()) {
            failures.push(format!(
                "{} m365 agent [{}]: {failed}; queries {queries:?}",
                q.id, q.text
            ));
        }
        posts.add(&super::post_ids(&body), &q.posts);
    }
    let received = agent.openai.received();
    let calls: Vec<&Received> = chat_requests(&received).skip(before).collect();
    let bytes: usize = calls.iter().map(|r| r.bytes_in).sum();
    let n = set.questions.len().max(1) as f64;
    AgentFigures {
        m365: m365.figures(),
        posts: posts.figures(),
        chat_calls_per_request: calls.len() as f64 / n,
        one_call_share: one_call as f64 / n,
        chat_bytes_per_request: bytes as f64 / n,
    }
}

/// The set's posts written to `app` (a write returns once its posts are
/// embedded by the local model).
async fn put_posts(app: &TestApp, set: &Set) {
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
    for chunk in posts.chunks(500) {
        let (status, body) = app.post_batch(chunk).await;
        assert_eq!(status, 200, "{body}");
    }
}

impl Figures {
    /// The figures as a Markdown table.
    pub fn table(&self) -> String {
        let m = |name: &str, f: &M365Figures| {
            format!(
                "| M365, {name} | recall@10 {:.2} · precision@10 {:.2} · MRR {:.2} · {:.1} Graph requests per panel |\n",
                f.recall_at_10, f.precision_at_10, f.mrr, f.graph_requests
            )
        };
        let p = |name: &str, f: &PostFigures| {
            format!(
                "| posts, {name} | hit@5 {:.2} · MRR {:.2} · unrelated per panel {:.2} |\n",
                f.hit_at_5, f.mrr, f.unrelated_per_panel
            )
        };
        let real = self.posts_azure_real.as_ref().map_or_else(
            || "| posts, real model (all-MiniLM-L6-v2) via the Azure wire format | not measured: tests/quality/real_model/vectors.json absent |\n".to_owned(),
            |f| p("real English model (all-MiniLM-L6-v2) via the Azure wire format, English-centred set", f),
        );
        let mut slices = String::from(
            "\n| language | questions | M365 fallback recall@10 · precision@10 · MRR · found by the search | posts by words: hit@5 · unrelated | posts, local model: hit@5 · MRR · unrelated | posts, fake Azure model: hit@5 · unrelated |\n|---|---|---|---|---|---|\n",
        );
        for (name, s) in &self.slices {
            slices.push_str(&format!(
                "| {name} | {} | {:.2} · {:.2} · {:.2} · {:.2} | {:.2} · {:.2} | {:.2} · {:.2} · {:.2} | {:.2} · {:.2} |\n",
                s.questions,
                s.fallback_m365.recall_at_10,
                s.fallback_m365.precision_at_10,
                s.fallback_m365.mrr,
                s.fallback_m365.found,
                s.posts_words.hit_at_5,
                s.posts_words.unrelated_per_panel,
                s.posts_local.hit_at_5,
                s.posts_local.mrr,
                s.posts_local.unrelated_per_panel,
                s.posts_azure_fake.hit_at_5,
                s.posts_azure_fake.unrelated_per_panel,
            ));
        }
        let agent = |name: &str, a: &AgentFigures| {
            format!(
                "{}{}| agent request, {name} | {:.2} chat calls ({:.0} % in one) · {:.0} bytes sent to the LLM |\n",
                m(&format!("agent, {name}"), &a.m365),
                p(&format!("agent, {name}"), &a.posts),
                a.chat_calls_per_request,
                100.0 * a.one_call_share,
                a.chat_bytes_per_request,
            )
        };
        let quoted = self.quoted.as_ref().map_or_else(String::new, |q| {
            let by: Vec<String> =
                q.by.iter()
                    .map(|(k, (hit, n))| format!("{k} {hit}/{n}"))
                    .collect();
            format!(
                "| M365, fallback, quoted subjects | in the top 3 {:.2} · MRR {:.2} ({}) |\n",
                q.top_3,
                q.mrr,
                by.join(", ")
            )
        });
        format!(
            "{} questions\n\n| measure | figures |\n|---|---|\n{}| M365, fallback, what its searches returned (before ranking) | recall {:.2} |\n{quoted}{}{}{}{}{}{}{slices}",
            self.questions,
            m("fallback", &self.fallback_m365),
            self.fallback_m365.found,
            agent(
                "pre-retrieval (scripted model keeping what it is shown)",
                &self.agent
            ),
            agent(
                "the model's searches only (pre_retrieval = false)",
                &self.agent_model_searches
            ),
            p("words only (posts.embedder = none)", &self.posts_words),
            p("local model (nothing configured)", &self.posts_local),
            p("fake Azure embedding model", &self.posts_azure_fake),
            real,
        )
    }
}
