//! The board's knowledge, evaluated (issue 64 §5): a half's board of
//! earlier posts where each question's similar posts carry one or two of
//! the documents that would help it (shared by colleagues, through the
//! batch ingest) and one post in five also a tangential share (a document
//! of another topic); then the half's questions, on the fallback with a
//! Graph token, against the same board without shares. Built from the
//! labels alone, never from the ranking code.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    hash::{Hash, Hasher},
};

use serde_json::{Value, json};

use super::{Half, M365Figures, M365Sum, Options, Set, app, ask_settled, load, m365_ids};

/// A share placed on the board.
struct Placed {
    post: String,
    doc: String,
    tangential: bool,
}

/// The figures of one slice of questions whose similar posts carry a
/// share of their topic.
#[derive(Debug, Default, Clone, Copy)]
pub struct ShareSlice {
    pub questions: usize,
    /// A share of the question's topic is in its panel.
    pub share_shown: f64,
    /// The same, of the questions whose topic shares the caller may see:
    /// not only shared mails their own Graph search did not return (which
    /// the panel never shows: nobody else can open them).
    pub visible_shown: f64,
    /// How many questions those are.
    pub visible_questions: usize,
    /// Panels showing a tangential share.
    pub tangential_panels: f64,
    /// Panels showing any share that does not help the question (a
    /// tangential one, or one of another question's topic on the same post).
    pub unhelpful_share_panels: f64,
    pub without: M365Figures,
    pub with: M365Figures,
    /// Panels whose hint cites the board (a colleague's share or reply).
    pub hint_cites_board: f64,
}

/// Per slice: `en`, `ko` (question and the similar posts in one
/// language), `cross` (a share on a post in the other language), `all`.
pub struct ShareFigures {
    pub slices: BTreeMap<&'static str, ShareSlice>,
    pub shares: usize,
    pub tangential: usize,
    /// Per question: a topic share not shown, or a share shown that does
    /// not help it (to read while tuning, on the tuning half only).
    pub misses: Vec<String>,
}

/// A stable number for `s` (choices that depend on nothing but the labels).
fn pick(s: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The shares: one or two of each question's documents on each of its
/// similar posts; on one post in five of those, a document no question
/// labelling that post would want.
fn plan(set: &Set) -> Vec<Placed> {
    let mut placed: Vec<Placed> = Vec::new();
    let mut wanted: HashMap<&str, HashSet<&str>> = HashMap::new();
    for q in &set.questions {
        let mut docs: Vec<&str> = q.m365.iter().map(String::as_str).collect();
        docs.sort_unstable();
        let n = 1 + (pick(&q.id) % 2) as usize;
        for post in &q.posts {
            wanted.entry(post).or_default().extend(docs.iter().copied());
            for doc in docs.iter().take(n) {
                if !placed.iter().any(|p| p.post == *post && p.doc == *doc) {
                    placed.push(Placed {
                        post: post.clone(),
                        doc: (*doc).to_owned(),
                        tangential: false,
                    });
                }
            }
        }
    }
    let mut hosts: Vec<&str> = wanted.keys().copied().collect();
    hosts.sort_unstable();
    for (i, host) in hosts.iter().enumerate().filter(|(i, _)| i % 5 == 0) {
        let other = set
            .m365
            .iter()
            .cycle()
            .skip(pick(host) as usize % set.m365.len() + i)
            .take(set.m365.len())
            .find(|d| !wanted[host].contains(d.id.as_str()));
        if let Some(doc) = other {
            placed.push(Placed {
                post: (*host).to_owned(),
                doc: doc.id.clone(),
                tangential: true,
            });
        }
    }
    placed
}

/// Whether a panel item came from a colleague's share.
fn shared_item(item: &Value) -> bool {
    let d = item["description"].as_str().unwrap_or_default();
    d.contains("on a similar post:") || d.contains("비슷한 게시글에 공유한 문서")
}

/// Whether a hint cites the board.
fn cites_board(hint: &Value) -> bool {
    let h = hint.as_str().unwrap_or_default();
    h.contains(" on a similar post — start there.")
        || h.contains(" answered a similar post:")
        || h.contains("님이 비슷한 게시글에")
}

/// Runs the half with and without the shares.
pub async fn evaluate_shares(half: Half) -> ShareFigures {
    let set = load(half);
    let placed = plan(&set);
    let without = app(&set, Options::default()).await;
    let with = app(&set, Options::default()).await;
    let lang_of: HashMap<&str, &str> = set
        .posts
        .iter()
        .map(|p| (p.id.as_str(), p.lang()))
        .collect();
    let url_of: HashMap<&str, &str> = set
        .m365
        .iter()
        .map(|d| (d.id.as_str(), d.url.as_str()))
        .collect();
    let title_of: HashMap<&str, &str> = set
        .m365
        .iter()
        .map(|d| (d.id.as_str(), d.title.as_str()))
        .collect();
    let kind_of: HashMap<&str, &str> = set
        .m365
        .iter()
        .map(|d| (d.id.as_str(), d.kind.as_str()))
        .collect();
    let items: Vec<Value> = placed
        .iter()
        .enumerate()
        .filter(|(_, p)| lang_of.contains_key(p.post.as_str()))
        .map(|(i, p)| {
            let source = match kind_of[p.doc.as_str()] {
                "mail" => "email",
                _ => "sharepoint",
            };
            json!({"postId": p.post, "id": format!("s-{i}"), "sharerId": "u9", "sharerName": "Bob",
                "title": title_of[p.doc.as_str()], "url": url_of[p.doc.as_str()],
                "sourceType": source, "createdAt": "2026-12-01T10:00:00Z"})
        })
        .collect();
    for chunk in items.chunks(1000) {
        let res = with
            .http
            .post(with.url("/api/posts/batch"))
            .json(&json!({"sharedDocuments": chunk}))
            .send()
            .await
            .expect("batch");
        assert_eq!(
            res.status(),
            200,
            "{}",
            res.text().await.unwrap_or_default()
        );
    }
    #[derive(Default)]
    struct Sum {
        n: usize,
        shown: usize,
        visible: usize,
        visible_shown: usize,
        tangential: usize,
        other_topic: usize,
        hints: usize,
        without: M365Sum,
        with: M365Sum,
    }
    let tangential_docs: HashSet<&str> = placed
        .iter()
        .filter(|p| p.tangential)
        .map(|p| p.doc.as_str())
        .collect();
    let mut sums: BTreeMap<&'static str, Sum> = BTreeMap::new();
    let mut misses = Vec::new();
    for q in &set.questions {
        let topic: Vec<&Placed> = placed
            .iter()
            .filter(|p| !p.tangential && q.posts.contains(&p.post) && q.m365.contains(&p.doc))
            .collect();
        if topic.is_empty() {
            continue;
        }
        let cross = topic
            .iter()
            .any(|p| lang_of.get(p.post.as_str()).is_some_and(|l| *l != q.lang()));
        let slice: &'static str = match (cross, q.lang()) {
            (true, _) => "cross",
            (false, "ko") => "ko",
            _ => "en",
        };
        let before = ask_settled(&without, q).await;
        let returned = with.graph.returned().len();
        let after = ask_settled(&with, q).await;
        let found = super::doc_ids(&set, &with.graph.returned()[returned..]);
        let visible = topic
            .iter()
            .any(|p| kind_of[p.doc.as_str()] != "mail" || found.contains(&p.doc));
        let shown_items = after["m365"].as_array().cloned().unwrap_or_default();
        let relevant: HashSet<&str> = q.m365.iter().map(String::as_str).collect();
        let ids = m365_ids(&set, &after);
        let shown = shown_items
            .iter()
            .zip(&ids)
            .any(|(item, id)| shared_item(item) && relevant.contains(id.as_str()));
        let tangential = shown_items.iter().zip(&ids).any(|(item, id)| {
            shared_item(item)
                && tangential_docs.contains(id.as_str())
                && !relevant.contains(id.as_str())
        });
        let other_topic = shown_items
            .iter()
            .zip(&ids)
            .any(|(item, id)| shared_item(item) && !relevant.contains(id.as_str()));
        if !shown || other_topic {
            let posts = super::super::post_ids(&after);
            let hosts: Vec<String> = topic
                .iter()
                .map(|p| {
                    let seen = if posts.contains(&p.post) {
                        "in panel"
                    } else {
                        "not in panel"
                    };
                    format!("{} ({seen}): '{}'", p.post, title_of[p.doc.as_str()])
                })
                .collect();
            let unhelpful: Vec<&str> = shown_items
                .iter()
                .zip(&ids)
                .filter(|(item, id)| shared_item(item) && !relevant.contains(id.as_str()))
                .map(|(item, _)| item["title"].as_str().unwrap_or_default())
                .collect();
            misses.push(format!(
                "{} [{slice}] shown {shown} [{}]: topic shares {hosts:?}; unhelpful shown {unhelpful:?}",
                q.id, q.text
            ));
        }
        for name in [slice, "all"] {
            let s = sums.entry(name).or_default();
            s.n += 1;
            s.shown += usize::from(shown);
            s.visible += usize::from(visible);
            s.visible_shown += usize::from(visible && shown);
            s.tangential += usize::from(tangential);
            s.other_topic += usize::from(other_topic);
            s.hints += usize::from(cites_board(&after["actionHint"]));
            s.without.add(&m365_ids(&set, &before), &q.m365, 0);
            s.with.add(&ids, &q.m365, 0);
        }
    }
    let rate = |x: usize, n: usize| x as f64 / n.max(1) as f64;
    ShareFigures {
        slices: sums
            .into_iter()
            .map(|(name, s)| {
                let slice = ShareSlice {
                    questions: s.n,
                    share_shown: rate(s.shown, s.n),
                    visible_shown: rate(s.visible_shown, s.visible),
                    visible_questions: s.visible,
                    tangential_panels: rate(s.tangential, s.n),
                    unhelpful_share_panels: rate(s.other_topic, s.n),
                    without: s.without.figures(),
                    with: s.with.figures(),
                    hint_cites_board: rate(s.hints, s.n),
                };
                (name, slice)
            })
            .collect(),
        shares: placed.iter().filter(|p| !p.tangential).count(),
        tangential: placed.iter().filter(|p| p.tangential).count(),
        misses,
    }
}

impl ShareFigures {
    /// The figures as a Markdown table.
    pub fn table(&self) -> String {
        let mut t = format!(
            "{} shares of a question's topic, {} tangential\n\n| slice | questions | a topic share shown | of those the caller may see | tangential shown | any unhelpful share shown | recall@10 without → with | precision@10 without → with | hint cites the board |\n|---|---|---|---|---|---|---|---|---|\n",
            self.shares, self.tangential
        );
        for (name, s) in &self.slices {
            t.push_str(&format!(
                "| {name} | {} | {:.2} | {:.2} ({}) | {:.2} | {:.2} | {:.2} → {:.2} | {:.2} → {:.2} | {:.2} |\n",
                s.questions,
                s.share_shown,
                s.visible_shown,
                s.visible_questions,
                s.tangential_panels,
                s.unhelpful_share_panels,
                s.without.recall_at_10,
                s.with.recall_at_10,
                s.without.precision_at_10,
                s.with.precision_at_10,
                s.hint_cites_board
            ));
        }
        t
    }
}
