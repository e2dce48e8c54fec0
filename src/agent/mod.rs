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
mod input;
mod llm_call;
mod paths;
mod prompt;
mod response;
mod run;
mod state;
#[cfg(test)]
mod test_support;
mod tool_call;
mod tool_exec;

use std::{sync::Arc, time::Duration};

use tracing::{Instrument, Span, field::Empty};

pub use events::{Emitter, RunEvent};
pub use input::RunInput;

use crate::{
    contract::{CombinedSuggestionsResponse, RunPath, RunRecord},
    degraded::{Degraded, Source},
    llm::ChatModel,
    msgraph::GraphErrorKind,
    otel,
    runs::RunRecords,
    settings::AgentSettings,
    tools::{Caller, GraphBudget, ToolDeps, connection::McpConnection},
};
use circuit::Circuit;
use findings::Reach;
use run::Run;
use tool_call::CallCtx;

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
        let span = invoke_agent_span(&input.run_id);
        let run = Run::default();
        self.work_by_deadline(&input, &run, &events, &span).await;
        if self.deps.posts.stale() {
            run.note(Degraded::PostsStale);
        }
        let response = response::build(response::Parts {
            run: &run,
            has_token: input.graph_token.is_some(),
            run_id: input.run_id.clone(),
            elapsed_ms: input.arrived.elapsed().as_millis() as u64,
        });
        self.report(&input, &response, &events, &span);
        response
    }

    /// The run's work, cut at the deadline: what it cut is then said lost,
    /// and posts searched by words when no search finished.
    async fn work_by_deadline(&self, input: &RunInput, run: &Run, events: &Emitter, span: &Span) {
        let deadline = input.arrived + Duration::from_millis(self.settings.timeout_ms);
        let graph_budget = GraphBudget::new(GRAPH_REQUESTS_PER_PANEL);
        let registered = self.conn.register(
            Caller::new(input.graph_token.clone(), Some(input.post_id.clone()))
                .with_graph_budget(graph_budget.clone())
                .with_deadline(deadline),
        );
        let ctx = CallCtx {
            conn: &self.conn,
            session: registered.id(),
            findings: &run.findings,
            events,
            graph_budget: &graph_budget,
        };
        let work = self.serve(ctx, input, run).instrument(span.clone());
        if tokio::time::timeout_at(deadline, work).await.is_err() {
            run.take_path(RunPath::Partial);
            run.note(Degraded::Deadline);
            let findings = &run.findings;
            if input.graph_token.is_some() && findings.reach(Source::M365) != Reach::Answered {
                findings.lost(Source::M365, Degraded::M365(GraphErrorKind::Timeout));
            }
            if findings.reach(Source::Posts) == Reach::NotCalled {
                self.posts_by_words(findings, input).await;
            }
        }
    }

    /// The run's log line, metrics, record and the stream's last event.
    fn report(
        &self,
        input: &RunInput,
        response: &CombinedSuggestionsResponse,
        events: &Emitter,
        span: &Span,
    ) {
        let meta = &response.meta;
        span.in_scope(|| {
            tracing::info!(path = ?meta.path, rounds = meta.rounds, m365 = response.m365.len(),
            posts = response.posts.len(), elapsed_ms = meta.elapsed_ms, "run done")
        });
        let elapsed = input.arrived.elapsed();
        self.deps.metrics.run_done(
            meta.path.as_str(),
            meta.rounds,
            &meta.degraded,
            elapsed.as_secs_f64(),
            elapsed > Duration::from_millis(self.settings.timeout_ms + LATE_MS),
        );
        self.runs.record(run_record(response, events.take_trail()));
        events.emit(RunEvent::Result {
            data: Box::new(response.clone()),
        });
    }
}

/// The run's `invoke_agent` span (OpenTelemetry GenAI conventions).
fn invoke_agent_span(run_id: &str) -> Span {
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
    span
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
    use tokio::time::Instant;

    use crate::{
        contract::RunPath,
        llm::{
            LlmError,
            scripted::{Reply, ScriptedModel},
        },
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
        let runs = RunRecords::new(h.store.clone(), runs_settings, h.deps.metrics.clone());
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
