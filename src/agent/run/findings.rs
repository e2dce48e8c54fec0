//! What a run found and what became of each source: the results the tools
//! returned, each under the ref the run gave it (`m1`, `p1`, …),
//! whether each source answered or was lost, and the degradation reasons.
//! Owned by the run (outside its deadline, so what the deadline cuts keeps
//! what was found); the tool server keeps none of it.

use std::{
    collections::{HashMap, HashSet},
    sync::{Mutex, MutexGuard},
};

pub(crate) use crate::board::normalise_url;
use crate::{
    contract::{M365Source, McpSuggestion, PostSummary},
    degraded::{Degraded, Source},
};

mod reading;

pub(crate) use reading::one_line;

/// What calls to a source came to, over the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reach {
    /// No call to it finished.
    #[default]
    NotCalled,
    /// A call failed, timed out or could not be made, and none answered.
    Lost,
    /// A call answered (with results or with none).
    Answered,
}

/// The run's results so far, in collection order, deduplicated.
#[derive(Debug, Default, Clone)]
pub struct Collected {
    /// (`m1`, …) Microsoft 365 items.
    pub m365: Vec<(String, McpSuggestion)>,
    /// (`p1`, …) LinkUp posts.
    pub posts: Vec<(String, PostSummary)>,
    /// Per source, in [`Source::ALL`] order.
    reach: [Reach; 3],
    /// Reasons for `meta.degraded`.
    pub degraded: Vec<Degraded>,
    /// Refs the model has read in full.
    read: HashSet<String>,
    /// Refs of results the floors would not show (the ranking's next
    /// best, read by the model that judges): shown only when the model
    /// chooses them, never in a preview or a panel the model did not choose.
    candidates: HashSet<String>,
    /// Microsoft 365 refs given so far (items can be dropped; refs are not reused).
    m365_made: usize,
    /// The normalised URLs the run's Graph searches returned (kept or not).
    graph_urls: HashSet<String>,
    /// Who shared each document shared on a similar post, by its ref.
    pub shared_by: HashMap<String, String>,
    /// The newest replies of the most similar posts.
    pub replies: Vec<Reply>,
}

/// A reply to a similar post, as the model and the hint read it.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The post's ref.
    pub post: String,
    pub author: String,
    /// On one line, cut short.
    pub text: String,
}

impl Collected {
    pub fn reach(&self, source: Source) -> Reach {
        self.reach[source as usize]
    }

    /// Whether a Graph search of the run returned the document at
    /// `url` (normalised: [`normalise_url`]).
    pub fn graph_returned(&self, url: &str) -> bool {
        self.graph_urls.contains(url)
    }

    /// Whether the result under `r` is shown without the model choosing it.
    pub fn shown_unjudged(&self, r: &str) -> bool {
        !self.candidates.contains(r)
    }

    /// Those of `items` (the run's `m365` or `posts`) shown without the
    /// model choosing them, in order.
    pub fn unjudged<'a, T>(
        &'a self,
        items: &'a [(String, T)],
    ) -> impl Iterator<Item = &'a (String, T)> + 'a {
        items.iter().filter(|(r, _)| self.shown_unjudged(r))
    }

    /// Sources lost in this run, in `unavailableSources` order.
    pub fn lost(&self) -> impl Iterator<Item = Source> + '_ {
        Source::ALL
            .into_iter()
            .filter(|s| self.reach(*s) == Reach::Lost)
    }
}

/// The run's [`Collected`], written by parallel tool calls.
#[derive(Default)]
pub struct Findings(Mutex<Collected>);

impl Findings {
    fn lock(&self) -> MutexGuard<'_, Collected> {
        // Each method is a few pushes: a panic cannot leave it half-written.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records that a call to `source` answered: it is not unavailable,
    /// whatever other calls to it lost.
    pub fn answered(&self, source: Source) {
        self.lock().reach[source as usize] = Reach::Answered;
    }

    /// Records that a call to `source` was lost, with its reason. The source
    /// is unavailable unless another call to it answered.
    pub fn lost(&self, source: Source, reason: Degraded) {
        let mut c = self.lock();
        let reach = &mut c.reach[source as usize];
        if *reach == Reach::NotCalled {
            *reach = Reach::Lost;
        }
        push_unique(&mut c.degraded, reason);
    }

    /// Records a degradation that left its source usable.
    pub fn degrade(&self, reason: Degraded) {
        push_unique(&mut self.lock().degraded, reason);
    }

    pub fn reach(&self, source: Source) -> Reach {
        self.lock().reach(source)
    }

    /// Whether `reason` is among the degradations so far.
    pub fn has_degraded(&self, reason: Degraded) -> bool {
        self.lock().degraded.contains(&reason)
    }

    /// Adds Microsoft 365 items, merging duplicates (normalised URL, else
    /// case-folded title; the longer description wins). Returns their refs.
    pub fn add_m365(&self, items: Vec<McpSuggestion>) -> Vec<String> {
        let mut c = self.lock();
        items
            .into_iter()
            .map(|item| {
                if let Some(url) = normalise_url(&item.url) {
                    c.graph_urls.insert(url);
                }
                let existing = c.m365.iter_mut().find(|(_, old)| same_document(old, &item));
                match existing {
                    Some((r, old)) => {
                        if item.description.chars().count() > old.description.chars().count() {
                            *old = item;
                        }
                        r.clone()
                    }
                    None => {
                        c.m365_made += 1;
                        let r = format!("m{}", c.m365_made);
                        c.m365.push((r.clone(), item));
                        r
                    }
                }
            })
            .collect()
    }

    /// Adds documents shared on similar posts: one that a search found
    /// too stays one item, described as shared (both evidences). Returns
    /// their refs.
    /// Each item comes with who shared it.
    pub fn add_shared(&self, items: Vec<(McpSuggestion, String)>) -> Vec<String> {
        let mut c = self.lock();
        items
            .into_iter()
            .map(|(item, sharer)| {
                let existing = c.m365.iter_mut().find(|(_, old)| same_document(old, &item));
                let r = match existing {
                    Some((r, old)) => {
                        old.description = item.description;
                        let r = r.clone();
                        c.candidates.remove(&r);
                        r
                    }
                    None => {
                        c.m365_made += 1;
                        let r = format!("m{}", c.m365_made);
                        c.m365.push((r.clone(), item));
                        r
                    }
                };
                c.shared_by.insert(r.clone(), sharer);
                r
            })
            .collect()
    }

    /// Puts the posts under `answered` (answered by replies or shared
    /// documents) first among the posts shown unjudged, in their order.
    pub fn answered_first(&self, answered: &[String]) {
        let mut c = self.lock();
        let Collected {
            posts, candidates, ..
        } = &mut *c;
        // Stable: answered related posts, the other related ones, candidates.
        posts.sort_by_key(
            |(r, _)| match (candidates.contains(r), answered.contains(r)) {
                (false, true) => 0,
                (false, false) => 1,
                (true, _) => 2,
            },
        );
    }

    /// The newest replies of the most similar posts.
    pub fn replies(&self, replies: Vec<Reply>) {
        self.lock().replies = replies;
    }

    /// The title, description and whether it is a mail, of each Microsoft
    /// 365 item under `refs` (empty for an unknown ref).
    pub fn m365_hits(&self, refs: &[String]) -> Vec<(String, String, bool)> {
        let c = self.lock();
        refs.iter()
            .map(|r| {
                c.m365
                    .iter()
                    .find(|(x, _)| x == r)
                    .map_or_else(Default::default, |(_, i)| {
                        let mail = i.source == M365Source::Email;
                        (i.title.clone(), i.description.clone(), mail)
                    })
            })
            .collect()
    }

    /// What the results under `refs` are, in a word each: M365 titles, post ids.
    pub fn summary(&self, source: Source, refs: &[String]) -> Vec<String> {
        let c = self.lock();
        refs.iter()
            .filter_map(|r| match source {
                Source::M365 => c
                    .m365
                    .iter()
                    .find(|(x, _)| x == r)
                    .map(|(_, i)| i.title.clone()),
                _ => c
                    .posts
                    .iter()
                    .find(|(x, _)| x == r)
                    .map(|(_, p)| p.id.clone()),
            })
            .collect()
    }

    /// The refs of the Microsoft 365 items so far.
    pub fn m365_refs(&self) -> Vec<String> {
        self.lock().m365.iter().map(|(r, _)| r.clone()).collect()
    }

    /// Puts the Microsoft 365 items under `first` first, in that order, and
    /// forgets those under `drop`.
    pub fn rerank_m365(&self, first: &[String], drop: &[String]) {
        let mut c = self.lock();
        c.m365.retain(|(r, _)| !drop.contains(r));
        let place = |r: &String| first.iter().position(|f| f == r).unwrap_or(first.len());
        // Stable: the others keep their order, after `first`.
        c.m365.sort_by_key(|(r, _)| place(r));
    }

    /// Whether any result is a candidate only.
    pub fn has_candidates(&self) -> bool {
        !self.lock().candidates.is_empty()
    }

    /// Marks the Microsoft 365 results under `refs` as candidates only
    /// (see [`Collected::candidates`]).
    pub fn candidates(&self, refs: &[String]) {
        self.lock().candidates.extend(refs.iter().cloned());
    }

    /// Adds posts, merging by id; a new post whose `related` flag is
    /// false is a candidate only, and a post returned related is related
    /// (no flag: related). Returns their refs.
    pub fn add_posts(&self, posts: Vec<PostSummary>, related: &[bool]) -> Vec<String> {
        let mut c = self.lock();
        posts
            .into_iter()
            .enumerate()
            .map(|(i, post)| {
                let related = related.get(i).copied().unwrap_or(true);
                match c.posts.iter().find(|(_, p)| p.id == post.id) {
                    Some((r, _)) => {
                        let r = r.clone();
                        if related {
                            c.candidates.remove(&r);
                        }
                        r
                    }
                    None => {
                        let r = format!("p{}", c.posts.len() + 1);
                        c.posts.push((r.clone(), post));
                        if !related {
                            c.candidates.insert(r.clone());
                        }
                        r
                    }
                }
            })
            .collect()
    }

    /// A copy of everything so far.
    pub fn snapshot(&self) -> Collected {
        self.lock().clone()
    }

    /// Everything so far, leaving the findings empty (the run is over).
    pub fn take(&self) -> Collected {
        std::mem::take(&mut *self.lock())
    }
}

fn push_unique(list: &mut Vec<Degraded>, item: Degraded) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn same_document(a: &McpSuggestion, b: &McpSuggestion) -> bool {
    match (normalise_url(&a.url), normalise_url(&b.url)) {
        (Some(x), Some(y)) => x == y,
        _ => a.title.to_lowercase() == b.title.to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::M365Source;

    fn doc(title: &str, url: &str, description: &str) -> McpSuggestion {
        McpSuggestion {
            title: title.into(),
            url: url.into(),
            description: description.into(),
            source_type: "m365".into(),
            source: M365Source::Sharepoint,
            status: "available".into(),
        }
    }

    #[test]
    fn duplicate_urls_merge_and_the_longer_description_wins() {
        let f = Findings::default();
        let refs1 = f.add_m365(vec![doc("Guide", "https://x.sharepoint.com/a/", "short")]);
        let refs2 = f.add_m365(vec![
            doc(
                "Guide v2",
                "HTTPS://x.sharepoint.com/a#top",
                "a much longer description",
            ),
            doc("Other", "https://x.sharepoint.com/b", ""),
        ]);
        assert_eq!(refs1, vec!["m1"]);
        assert_eq!(refs2, vec!["m1", "m2"]);
        let c = f.snapshot();
        assert_eq!(c.m365.len(), 2);
        assert_eq!(c.m365[0].1.description, "a much longer description");
    }

    #[test]
    fn items_without_url_merge_by_case_folded_title() {
        let f = Findings::default();
        f.add_m365(vec![doc("Runbook", "", "one"), doc("RUNBOOK", "", "two")]);
        assert_eq!(f.snapshot().m365.len(), 1);
    }

    #[test]
    fn a_source_that_answered_once_is_not_lost_by_another_call() {
        let f = Findings::default();
        f.lost(
            Source::M365,
            Degraded::M365(crate::msgraph::GraphErrorKind::RateLimited),
        );
        f.answered(Source::M365);
        f.lost(
            Source::M365,
            Degraded::M365(crate::msgraph::GraphErrorKind::Timeout),
        );
        f.lost(Source::Posts, Degraded::PostsIndexError);
        let c = f.take();
        assert_eq!(c.reach(Source::M365), Reach::Answered);
        assert_eq!(c.lost().collect::<Vec<_>>(), [Source::Posts]);
        assert_eq!(c.degraded.len(), 3);
    }
}
