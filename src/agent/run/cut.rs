//! What a run cut by its deadline still answers: it is `partial`; Microsoft
//! 365 searches it cut are said lost; and when no posts search finished,
//! the posts sharing the most words with the post complete the panel.

use std::time::Duration;

use super::{
    Run, RunInput,
    findings::{Findings, Reach},
    panel,
};
use crate::{
    contract::RunPath,
    degraded::{Degraded, Source},
    msgraph::GraphErrorKind,
    posts::PostIndex,
};

/// How long a deadline may wait for the posts read from the database.
const LATE_READ: Duration = Duration::from_millis(20);

/// Closes `run`, cut by its deadline: what it cut is said lost, and posts
/// are searched by words when no search finished.
pub async fn cut(run: &Run, input: &RunInput, posts: &PostIndex) {
    run.take_path(RunPath::Partial);
    run.note(Degraded::Deadline);
    let findings = &run.findings;
    if input.graph_token.is_some() && findings.reach(Source::M365) != Reach::Answered {
        findings.lost(Source::M365, Degraded::M365(GraphErrorKind::Timeout));
    }
    if findings.reach(Source::Posts) == Reach::NotCalled {
        posts_by_words(posts, findings, input).await;
    }
}

/// The posts sharing the most words with this one (no upstream call, so it
/// cannot hang), ranked by words only (`posts_lexical_only` when ranking by
/// meaning was configured).
async fn posts_by_words(index: &PostIndex, findings: &Findings, input: &RunInput) {
    let exclude = [input.post_id.clone()];
    let query = input.posts_query();
    let search = index.search_by_words(&query, &exclude, panel::MAX_POSTS);
    match tokio::time::timeout(LATE_READ, search).await {
        Ok(Ok(posts)) => {
            findings.answered(Source::Posts);
            findings.add_posts(posts, &[]);
            if index.embedder() != crate::posts::Embedder::None {
                findings.degrade(Degraded::PostsLexicalOnly);
            }
        }
        Ok(Err(e)) => {
            tracing::error!(error.kind = "index_error", error.message = %e, "post search failed");
            findings.lost(Source::Posts, Degraded::PostsIndexError);
        }
        Err(_) => findings.lost(Source::Posts, Degraded::PostsTimeout),
    }
}
