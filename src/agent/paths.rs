//! The paths a run takes: the agent when the model is configured, healthy
//! and not throttled, else the fallback's direct searches; after an LLM
//! failure, the fallback for what the agent did not get; after tool calls the
//! model got wrong, the fallback's searches for the sources that got nothing;
//! at the deadline, posts by words.

use std::time::Duration;

use super::{
    Orchestrator, RunEvent, RunInput, agent_graph, fallback,
    findings::{Findings, Reach},
    graph::GraphError,
    response,
    run::Run,
    tool_call::CallCtx,
};
use crate::{
    contract::RunPath,
    degraded::{Degraded, Source},
    llm::LlmError,
};

impl Orchestrator {
    /// Agent when possible, else (or after an LLM failure) the fallback.
    pub(super) async fn serve(&self, ctx: CallCtx<'_>, input: &RunInput, run: &Run) {
        if let Some(reason) = self.reason_to_skip_the_agent() {
            let every = fallback::Searches {
                m365: true,
                posts: true,
            };
            return self.fall_back(ctx, input, run, reason, every).await;
        }
        // No posts search of our own here: the model is asked for one, an LLM
        // failure's fallback makes one if it has not run, and a deadline
        // without one completes the panel by words (`posts_by_words`).
        let result = agent_graph::run(agent_graph::Args {
            llm: &*self.llm,
            call: ctx,
            tools: &self.tools,
            input,
            settings: &self.settings,
            run,
        })
        .await;
        match result {
            Ok(_) => {
                self.circuit.record_success();
                run.take_path(RunPath::Agent);
                if run.noted(Degraded::ToolArgumentsInvalid) {
                    self.complete_missed(ctx, input, run).await;
                }
            }
            Err(e) => {
                let missing = fallback::Searches {
                    m365: true,
                    posts: ctx.findings.reach(Source::Posts) == Reach::NotCalled,
                };
                let reason = self.agent_failed(&e, run);
                self.fall_back(ctx, input, run, reason, missing).await;
            }
        }
    }

    /// Why the agent is not even tried: no model, the circuit open, or a
    /// 429's retry time not passed yet.
    fn reason_to_skip_the_agent(&self) -> Option<Degraded> {
        if !self.llm.configured() {
            Some(Degraded::LlmUnconfigured)
        } else if self.circuit.is_open() {
            Some(Degraded::LlmCircuitOpen)
        } else if self.llm.throttled() {
            Some(Degraded::from(&LlmError::RateLimited {
                retry_after_secs: None,
            }))
        } else {
            None
        }
    }

    /// What the agent's failure says, counted by the circuit when it is
    /// the model's (a refused post is not, nor a call slow tools left too
    /// little time).
    fn agent_failed(&self, e: &GraphError<LlmError>, run: &Run) -> Degraded {
        match e {
            GraphError::Node(e) => {
                if *e != LlmError::ContentFilter && !run.was_llm_cut_short() {
                    self.circuit.record_failure();
                }
                Degraded::from(e)
            }
            // Not the LLM's fault: the wiring let a run go round past its
            // step limit (or named a missing node).
            GraphError::StepLimit(_) | GraphError::UnknownNode(_) => {
                tracing::error!(error.kind = "agent_graph", error.message = %e, "agent graph stopped");
                Degraded::RoundCap
            }
        }
    }

    /// The fallback for `reason`, making `searches`.
    async fn fall_back(
        &self,
        ctx: CallCtx<'_>,
        input: &RunInput,
        run: &Run,
        reason: Degraded,
        searches: fallback::Searches,
    ) {
        run.note(reason);
        ctx.events.emit(RunEvent::Fallback {
            reason: reason.to_string(),
        });
        run.take_path(RunPath::Fallback);
        self.fallback(ctx, input, searches).await;
    }

    /// After tool calls the model got wrong: the fallback's searches for the
    /// sources that got nothing, their results added to the model's choice.
    async fn complete_missed(&self, ctx: CallCtx<'_>, input: &RunInput, run: &Run) {
        let searches = fallback::Searches {
            m365: input.graph_token.is_some()
                && ctx.findings.reach(Source::M365) != Reach::Answered,
            posts: ctx.findings.reach(Source::Posts) == Reach::NotCalled,
        };
        if !searches.m365 && !searches.posts {
            return;
        }
        self.fallback(ctx, input, searches).await;
        let collected = ctx.findings.snapshot();
        run.amend_selection(|selection| {
            if searches.m365 {
                selection.m365 = collected.m365.into_iter().map(|(r, _)| r).collect();
            }
            if searches.posts {
                selection.posts = collected.posts.into_iter().map(|(r, _)| r).collect();
            }
        });
    }

    /// At the deadline, when no posts search finished: the posts sharing the
    /// most words with this one (no upstream call, so it cannot hang), ranked
    /// by words only (`posts_lexical_only` when ranking by meaning was configured).
    pub(super) async fn posts_by_words(&self, findings: &Findings, input: &RunInput) {
        let exclude = [input.post_id.clone()];
        let query = input.posts_query();
        let search = self
            .deps
            .posts
            .search_by_words(&query, &exclude, response::MAX_POSTS);
        match tokio::time::timeout(LATE_READ, search).await {
            Ok(Ok(posts)) => {
                findings.answered(Source::Posts);
                findings.add_posts(posts);
                if self.deps.posts.embedder() != crate::posts::Embedder::None {
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
}

/// How long a deadline may wait for the posts read from the database.
const LATE_READ: Duration = Duration::from_millis(20);

impl Orchestrator {
    /// The fallback. Its Microsoft 365 searches and hint take one of
    /// [`FALLBACK_SLOTS`](super::FALLBACK_SLOTS): when a burst of runs falls back together (an LLM
    /// outage), the rest wait for a slot instead of oversubscribing the CPU, so
    /// every deadline still fires on time. The posts search takes no slot: it
    /// is the panel's floor, so a run still waiting at its deadline has posts.
    ///
    /// Boxed: its 5 KB of searches in flight would otherwise sit inline in
    /// every request's future, agent runs included (B4: 1,000 requests in
    /// flight held 5 MB for a path none of them took).
    async fn fallback(&self, ctx: CallCtx<'_>, input: &RunInput, searches: fallback::Searches) {
        Box::pin(fallback::run(
            ctx,
            input,
            searches,
            &self.fallback_slots,
            &self.deps.posts,
        ))
        .await;
    }
}
