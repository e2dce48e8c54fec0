//! The orchestrator: one run per request, one deadline, always a
//! `CombinedSuggestionsResponse`. It decides agent vs fallback, runs the agent
//! graph ([`agent_graph`]) when the LLM is configured and healthy, and falls
//! back to direct tool calls ([`fallback`]) on any LLM failure.

mod agent_graph;
mod circuit;
pub mod events;
mod fallback;
mod findings;
pub mod format_response;
pub mod graph;
mod llm_call;
mod prompt;
mod response;
mod state;
#[cfg(test)]
mod test_support;
mod tool_call;
mod tool_exec;

use std::{
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
    time::Duration,
};

use tokio::time::Instant;
use tracing::{Instrument, field::Empty};

pub use events::{Emitter, RunEvent};

use crate::{
    contract::{CombinedSuggestionsResponse, RunPath, RunRecord, SuggestionsRequest},
    degraded::{Degraded, Source},
    llm::{ChatModel, LlmError},
    otel,
    runs::RunRecords,
    settings::{AgentSettings, Secret},
    tools::{Caller, GraphBudget, ToolDeps, connection::McpConnection},
};
use circuit::Circuit;
use findings::{Findings, Reach};
use graph::GraphError;
use state::Selection;
use tool_call::CallCtx;

/// What a run needs from the request.
pub struct RunInput {
    /// The run's id (`meta.runId`, `X-Run-Id`).
    pub run_id: String,
    pub post_id: String,
    pub text: String,
    pub tags: Vec<String>,
    pub category: Option<String>,
    /// The caller's Microsoft Graph token, if any.
    pub graph_token: Option<Secret>,
    /// When the request arrived: the deadline counts from here.
    pub arrived: Instant,
}

impl RunInput {
    /// What the run searches similar posts for when the model does not: the
    /// text and the author's tags, which name the post's topic.
    pub fn posts_query(&self) -> String {
        let mut query = self.text.trim().to_owned();
        for tag in &self.tags {
            query.push(' ');
            query.push_str(tag);
        }
        query
    }

    /// A new run id.
    pub fn new_run_id() -> String {
        uuid::Uuid::new_v4().to_string()
    }

    /// The run for a validated `POST /api/suggestions` body.
    pub fn for_request(
        req: SuggestionsRequest,
        graph_token: Option<Secret>,
        arrived: Instant,
    ) -> Self {
        Self {
            run_id: Self::new_run_id(),
            post_id: req.post_id,
            text: req.text,
            tags: req.tags,
            category: req.category,
            graph_token,
            arrived,
        }
    }
}

/// How a run went, filled in as it goes (it may be cut by the deadline).
#[derive(Default)]
struct Outcome {
    path: Option<RunPath>,
    rounds: AtomicU32,
    degraded: Vec<Degraded>,
    selection: Option<Selection>,
}

/// Produces suggestions panels.
pub struct Orchestrator {
    deps: Arc<ToolDeps>,
    /// The chat model the agent calls (the configured Azure deployment).
    llm: Arc<dyn ChatModel>,
    /// The process's MCP connection to the tools.
    conn: Arc<McpConnection>,
    /// The connection's tools as chat functions.
    tools: prompt::OfferedTools,
    fallback_slots: tokio::sync::Semaphore,
    settings: AgentSettings,
    circuit: Circuit,
    runs: RunRecords,
    /// `log.payloads`: runs report their tool arguments and results.
    payloads: bool,
}

impl Orchestrator {
    /// Reports tool arguments and result summaries (`log.payloads`, development only).
    pub fn with_payloads(mut self, payloads: bool) -> Self {
        self.payloads = payloads;
        self
    }

    /// Calls `llm` instead of the configured Azure deployment.
    pub fn with_model(mut self, llm: Arc<dyn ChatModel>) -> Self {
        self.llm = llm;
        self
    }

    pub fn new(
        deps: Arc<ToolDeps>,
        conn: Arc<McpConnection>,
        settings: AgentSettings,
        runs: RunRecords,
    ) -> Self {
        let circuit = Circuit::new(
            settings.circuit_failure_threshold,
            Duration::from_millis(settings.circuit_cooldown_ms),
        );
        Self {
            llm: Arc::new(deps.llm.clone()),
            deps,
            tools: prompt::OfferedTools::new(conn.tools()),
            conn,
            settings,
            circuit,
            runs,
            fallback_slots: tokio::sync::Semaphore::new(FALLBACK_SLOTS),
            payloads: false,
        }
    }

    /// The MCP connection (for readiness).
    pub fn connection(&self) -> &McpConnection {
        &self.conn
    }

    /// Whether the LLM circuit breaker currently skips the agent.
    pub fn circuit_open(&self) -> bool {
        self.circuit.is_open()
    }

    /// Runs one request to its panel, by the deadline whatever the upstreams do.
    pub async fn run(&self, input: RunInput, events: Emitter) -> CombinedSuggestionsResponse {
        let events = events.with_payloads(self.payloads);
        let run_id = input.run_id.clone();
        let deadline = input.arrived + Duration::from_millis(self.settings.timeout_ms);
        let span = tracing::info_span!(
            "invoke_agent",
            run_id = %run_id,
            otel.name = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.provider.name = Empty,
            gen_ai.agent.name = Empty,
        );
        otel::record(
            &span,
            &[
                ("otel.name", "invoke_agent linkup-suggestions"),
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.provider.name", otel::PROVIDER),
                ("gen_ai.agent.name", otel::AGENT),
            ],
        );
        let graph_budget = GraphBudget::new(GRAPH_REQUESTS_PER_PANEL);
        let registered = self.conn.register(
            Caller::new(input.graph_token.clone(), Some(input.post_id.clone()))
                .with_graph_budget(graph_budget.clone()),
        );
        let findings = Findings::default();
        let ctx = CallCtx {
            conn: &self.conn,
            session: registered.id(),
            findings: &findings,
            events: &events,
            graph_budget: &graph_budget,
        };
        let mut outcome = Outcome::default();
        let work = self.serve(ctx, &input, &mut outcome);
        if tokio::time::timeout_at(deadline, work.instrument(span.clone()))
            .await
            .is_err()
        {
            outcome.path = Some(RunPath::Partial);
            outcome.degraded.push(Degraded::Deadline);
            // What the deadline cut is lost, not empty: say so.
            if input.graph_token.is_some() && findings.reach(Source::M365) != Reach::Answered {
                findings.lost(
                    Source::M365,
                    Degraded::M365(crate::msgraph::GraphErrorKind::Timeout),
                );
            }
            if findings.reach(Source::Posts) == Reach::NotCalled {
                self.posts_by_words(&findings, &input).await;
            }
        }
        drop(registered);
        if self.deps.posts.stale() {
            outcome.degraded.push(Degraded::PostsStale);
        }
        let path = outcome.path.unwrap_or(RunPath::Partial);
        let response = response::build(response::Parts {
            findings: &findings,
            has_token: input.graph_token.is_some(),
            path,
            rounds: outcome.rounds.load(Ordering::Relaxed),
            run_id,
            elapsed_ms: input.arrived.elapsed().as_millis() as u64,
            degraded: outcome.degraded,
            selection: outcome.selection,
        });
        span.in_scope(|| {
            tracing::info!(path = ?path, rounds = response.meta.rounds, m365 = response.m365.len(),
            posts = response.posts.len(), elapsed_ms = response.meta.elapsed_ms, "run done")
        });
        let elapsed = input.arrived.elapsed();
        self.deps.metrics.run_done(
            path.as_str(),
            response.meta.rounds,
            &response.meta.degraded,
            elapsed.as_secs_f64(),
            elapsed > Duration::from_millis(self.settings.timeout_ms + LATE_MS),
        );
        self.runs.record(run_record(&response, events.take_trail()));
        events.emit(RunEvent::Result {
            data: Box::new(response.clone()),
        });
        response
    }

    /// Agent when possible, else (or after an LLM failure) the fallback.
    async fn serve(&self, ctx: CallCtx<'_>, input: &RunInput, outcome: &mut Outcome) {
        let skip = if !self.llm.configured() {
            Some(Degraded::LlmUnconfigured)
        } else if self.circuit.is_open() {
            Some(Degraded::LlmCircuitOpen)
        } else if self.llm.throttled() {
            // A 429's retry time has not passed: not even one call.
            Some(Degraded::from(&crate::llm::LlmError::RateLimited {
                retry_after_secs: None,
            }))
        } else {
            None
        };
        if let Some(reason) = skip {
            outcome.degraded.push(reason);
            ctx.events.emit(RunEvent::Fallback {
                reason: reason.to_string(),
            });
            outcome.path = Some(RunPath::Fallback);
            let all = fallback::Searches {
                m365: true,
                posts: true,
            };
            self.fallback(ctx, input, all).await;
            return;
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
            rounds: &outcome.rounds,
        })
        .await;
        match result {
            Ok(state) => {
                self.circuit.record_success();
                outcome.path = Some(RunPath::Agent);
                let invalid_calls = state.degraded.contains(&Degraded::ToolArgumentsInvalid);
                outcome.degraded.extend(state.degraded);
                outcome.selection = state.selection;
                if invalid_calls {
                    self.complete_missed(ctx, input, outcome).await;
                }
            }
            Err(e) => {
                let reason = match &e {
                    GraphError::Node(e) => {
                        if *e != LlmError::ContentFilter {
                            self.circuit.record_failure();
                        }
                        Degraded::from(e)
                    }
                    // Not the LLM's fault: the wiring let a run go round
                    // past its step limit (or named a missing node).
                    GraphError::StepLimit(_) | GraphError::UnknownNode(_) => {
                        tracing::error!(error.kind = "agent_graph", error.message = %e, "agent graph stopped");
                        Degraded::RoundCap
                    }
                };
                outcome.degraded.push(reason);
                ctx.events.emit(RunEvent::Fallback {
                    reason: reason.to_string(),
                });
                outcome.path = Some(RunPath::Fallback);
                let searches = fallback::Searches {
                    m365: true,
                    posts: ctx.findings.reach(Source::Posts) == Reach::NotCalled,
                };
                self.fallback(ctx, input, searches).await;
            }
        }
    }

    /// After tool calls the model got wrong: the fallback's searches for the
    /// sources that got nothing, their results added to the model's choice.
    async fn complete_missed(&self, ctx: CallCtx<'_>, input: &RunInput, outcome: &mut Outcome) {
        let searches = fallback::Searches {
            m365: input.graph_token.is_some()
                && ctx.findings.reach(Source::M365) != Reach::Answered,
            posts: ctx.findings.reach(Source::Posts) == Reach::NotCalled,
        };
        if !searches.m365 && !searches.posts {
            return;
        }
        self.fallback(ctx, input, searches).await;
        if let Some(selection) = &mut outcome.selection {
            let collected = ctx.findings.snapshot();
            if searches.m365 {
                selection.m365 = collected.m365.into_iter().map(|(r, _)| r).collect();
            }
            if searches.posts {
                selection.posts = collected.posts.into_iter().map(|(r, _)| r).collect();
            }
        }
    }

    /// At the deadline, when no posts search finished: the posts sharing the
    /// most words with this one (no upstream call, so it cannot hang), ranked
    /// by words only (`posts_lexical_only` when ranking by meaning was configured).
    async fn posts_by_words(&self, findings: &Findings, input: &RunInput) {
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

/// What `response`'s run did, for `GET /api/runs/{runId}`.
fn run_record(response: &CombinedSuggestionsResponse, trail: events::Trail) -> RunRecord {
    let meta = &response.meta;
    let started = time::OffsetDateTime::now_utc() - Duration::from_millis(meta.elapsed_ms);
    RunRecord {
        run_id: meta.run_id.clone(),
        started_at: started
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        path: meta.path,
        rounds: meta.rounds,
        elapsed_ms: meta.elapsed_ms,
        degraded: meta.degraded.clone(),
        unavailable_sources: response.unavailable_sources.clone(),
        steps: trail.steps,
        tool_calls: trail.tool_calls,
        llm_usage: trail.llm_usage,
    }
}

/// A response this much past its deadline counts as late (`linkup_run_late`).
const LATE_MS: u64 = 50;

/// How long a deadline may wait for the posts read from the database.
const LATE_READ: Duration = Duration::from_millis(20);

impl Orchestrator {
    /// The fallback. Its Microsoft 365 searches and hint take one of
    /// [`FALLBACK_SLOTS`]: when a burst of runs falls back together (an LLM
    /// outage), the rest wait for a slot instead of oversubscribing the CPU, so
    /// every deadline still fires on time. The posts search takes no slot: it
    /// is the panel's floor, so a run still waiting at its deadline has posts.
    async fn fallback(&self, ctx: CallCtx<'_>, input: &RunInput, searches: fallback::Searches) {
        fallback::run(ctx, input, searches, &self.fallback_slots, &self.deps.posts).await;
    }
}

/// Concurrent fallback runs (each a few ms of CPU; measured in B3).
const FALLBACK_SLOTS: usize = 32;
/// Microsoft Graph requests a panel may make, broadened retries included:
/// each counts against the caller's and the tenant's Graph throttling (the
/// TypeScript implementation made 2.0 per fallback panel and 5.3 per agent
/// panel). Three searches of two requests each; the fallback alone takes
/// at most [`fallback::GRAPH_REQUESTS`].
const GRAPH_REQUESTS_PER_PANEL: u32 = 6;

/// The orchestrator over the seam: a scripted model in place of Azure.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        contract::RunPath,
        llm::scripted::{Reply, ScriptedModel},
    };

    /// An orchestrator whose circuit opens after `threshold` failures, and
    /// the harness whose index it reads.
    async fn orchestrator(
        model: &Arc<ScriptedModel>,
        threshold: u32,
    ) -> (Orchestrator, test_support::Harness) {
        let h = test_support::harness(2, 8).await;
        let mut settings = h.settings.clone();
        settings.circuit_failure_threshold = threshold;
        let runs_settings = crate::settings::Settings::load_from(
            std::path::Path::new("config"),
            Default::default(),
        )
        .unwrap()
        .runs;
        let runs = RunRecords::new(h.deps.posts.store(), runs_settings, h.deps.metrics.clone());
        let o = Orchestrator::new(h.deps.clone(), h.conn.clone(), settings, runs)
            .with_model(model.clone());
        (o, h)
    }

    async fn ask(o: &Orchestrator) -> CombinedSuggestionsResponse {
        let input = RunInput {
            run_id: RunInput::new_run_id(),
            post_id: "p-new".into(),
            text: "How do I set up a deployment pipeline?".into(),
            tags: vec![],
            category: None,
            graph_token: None,
            arrived: Instant::now(),
        };
        o.run(input, Emitter::default()).await
    }

    #[tokio::test]
    async fn a_failing_model_gives_the_fallbacks_panel_and_says_why() {
        let model = Arc::new(ScriptedModel::new([Reply::Fail(LlmError::Upstream(503))]));
        let (o, _h) = orchestrator(&model, 5).await;
        let response = ask(&o).await;
        assert_eq!(response.meta.path, RunPath::Fallback);
        assert!(response.meta.degraded.iter().any(|d| d == "llm_error"));
        let posts: Vec<_> = response.posts.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(posts, ["p-77"], "the fallback found the post: {response:?}");
    }

    #[tokio::test]
    async fn the_circuit_skips_the_model_after_its_threshold_until_the_cooldown() {
        let model = Arc::new(ScriptedModel::new([
            Reply::Fail(LlmError::Timeout),
            Reply::Fail(LlmError::Upstream(500)),
        ]));
        let (o, _h) = orchestrator(&model, 2).await;
        ask(&o).await;
        ask(&o).await;
        assert!(o.circuit_open());
        let skipped = ask(&o).await;
        assert_eq!(model.received.lock().unwrap().len(), 2, "no third call");
        assert_eq!(skipped.meta.path, RunPath::Fallback);
        assert!(
            skipped
                .meta
                .degraded
                .iter()
                .any(|d| d == "llm_circuit_open")
        );
        assert!(!skipped.posts.is_empty());
    }

    #[tokio::test]
    async fn a_content_filter_refusal_does_not_count_toward_the_circuit() {
        let model = Arc::new(ScriptedModel::new([
            Reply::Fail(LlmError::ContentFilter),
            Reply::Fail(LlmError::ContentFilter),
        ]));
        let (o, _h) = orchestrator(&model, 2).await;
        let first = ask(&o).await;
        ask(&o).await;
        assert!(
            !o.circuit_open(),
            "a refused post says nothing of the model's health"
        );
        assert!(
            first
                .meta
                .degraded
                .iter()
                .any(|d| d == "llm_content_filter")
        );
    }
}
