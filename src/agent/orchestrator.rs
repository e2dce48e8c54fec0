//! The orchestrator: one run per request, one deadline, always a
//! `CombinedSuggestionsResponse`. Which course a run takes — the agent when
//! the model is configured, healthy and not throttled, else the direct
//! searches (the fallback); after an LLM failure, the direct searches for
//! what the agent did not get; after tool calls the model got wrong, the
//! direct searches for the sources that got nothing; at the deadline, posts
//! by words — and what it reports when it is done.

use std::{sync::Arc, time::Duration};

use tracing::{Instrument, Span};

use super::{
    direct,
    graph::{self, prompt, runtime::Stopped},
    load::{Admission, Allowance, Circuit, Overloaded, Ticket},
    run::{
        Deadline, Emitter, Run, RunCtx, RunEvent, RunInput, cut, findings::Reach, panel, report,
    },
};
use crate::{
    contract::{CombinedSuggestionsResponse, RunPath},
    degraded::{Degraded, Source},
    llm::{ChatModel, LlmError},
    runs::RunRecords,
    settings::AgentSettings,
    tools::{Caller, ToolDeps, connection::McpConnection},
};

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
    /// The slots of runs in flight.
    admission: Admission,
    /// Each caller's agent runs per minute.
    allowance: Allowance,
}

impl Orchestrator {
    /// Reports tool arguments and result summaries (`log.payloads`, development only).
    pub fn with_payloads(mut self, payloads: bool) -> Self {
        self.payloads = payloads;
        self
    }

    /// Admits runs by `admission` (else without bound).
    pub fn with_admission(mut self, admission: Admission) -> Self {
        self.admission = admission;
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
        let runs_per_caller = settings.runs_per_caller_per_minute;
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
            admission: Admission::unbounded(),
            allowance: Allowance::new(runs_per_caller),
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

    /// A slot for a run (held by its ticket), or when to come back.
    pub async fn admit(&self) -> Result<Ticket, Overloaded> {
        self.admission.admit().await
    }

    /// Runs one admitted request to its panel, by the deadline whatever the
    /// upstreams do; the ticket's slot is freed when it is done.
    pub async fn run(
        &self,
        input: RunInput,
        events: Emitter,
        ticket: Ticket,
    ) -> CombinedSuggestionsResponse {
        let span = report::run_span(&input.run_id);
        let deadline = Deadline::new(
            input.arrived,
            Duration::from_millis(self.settings.timeout_ms),
        );
        let run = Run::new(deadline, events.with_payloads(self.payloads));
        self.work_by_deadline(&input, &run, &span, ticket.brownout)
            .await;
        drop(ticket);
        if self.deps.posts.stale() {
            run.note(Degraded::PostsStale);
        }
        let response = panel::build(panel::Parts {
            run: &run,
            has_token: input.graph_token.is_some(),
            post_text: &input.text,
            run_id: input.run_id.clone(),
            elapsed_ms: deadline.elapsed_ms(),
        });
        self.deps.board.shown(&input.post_id, &response.m365).await;
        let sinks = report::Sinks {
            metrics: &self.deps.metrics,
            runs: &self.runs,
        };
        report::finish(sinks, &response, &run, &span);
        response
    }

    /// The run's work, cut at the deadline: what it cut is then said lost,
    /// and posts searched by words when no search finished.
    async fn work_by_deadline(&self, input: &RunInput, run: &Run, span: &Span, brownout: bool) {
        let deadline = run.deadline().at();
        let registered = self.conn.register(
            Caller::new(input.graph_token.clone(), Some(input.post_id.clone()))
                .with_graph_budget(run.graph_budget().clone())
                .with_deadline(deadline)
                .with_overload(brownout),
        );
        let ctx = RunCtx {
            input,
            posts: &self.deps.posts,
            board: &self.deps.board,
            conn: &self.conn,
            session: registered.id(),
            run,
            llm: &*self.llm,
            tools: self.tools.for_caller(input.graph_token.is_some()),
            max_tool_calls: self.settings.max_tool_calls_per_round,
            brownout,
        };
        let work = self.serve(ctx, brownout).instrument(span.clone());
        if tokio::time::timeout_at(deadline, work).await.is_err() {
            cut::cut(run, input, &self.deps.posts).await;
        }
    }

    /// Agent when possible, else (or after an LLM failure) the fallback.
    pub(super) async fn serve(&self, ctx: RunCtx<'_>, brownout: bool) {
        let run = ctx.run;
        let token = ctx.input.graph_token.as_ref();
        if let Some(reason) = self.reason_to_skip_the_agent(brownout, token) {
            let every = direct::Searches {
                m365: true,
                posts: true,
            };
            return self.fall_back(ctx, reason, every).await;
        }
        // The posts search is pre-retrieval's, or the model's; an LLM
        // failure's fallback makes one if none finished, and a deadline
        // without one completes the panel by words (`posts_by_words`).
        let course = graph::Plan {
            max_rounds: self.settings.max_rounds,
            pre_retrieval: self.settings.pre_retrieval,
        };
        let result = graph::run(ctx, course).await;
        match result {
            Ok(_) => {
                self.circuit.record_success();
                run.take_path(RunPath::Agent);
                if run.noted(Degraded::ToolArgumentsInvalid) {
                    self.complete_missed(ctx).await;
                }
            }
            Err(e) => {
                let missing = direct::Searches {
                    m365: true,
                    posts: run.findings.reach(Source::Posts) == Reach::NotCalled,
                };
                let reason = self.agent_failed(&e, run);
                self.fall_back(ctx, reason, missing).await;
            }
        }
    }

    /// Why the agent is not even tried: no model, many runs in flight
    /// (`brownout`), the circuit open, a 429's retry time not passed yet,
    /// or the caller (`token`'s holder) past its allowance.
    fn reason_to_skip_the_agent(
        &self,
        brownout: bool,
        token: Option<&crate::settings::Secret>,
    ) -> Option<Degraded> {
        if !self.llm.configured() {
            Some(Degraded::LlmUnconfigured)
        } else if brownout {
            Some(Degraded::Overloaded)
        } else if self.circuit.is_open() {
            Some(Degraded::LlmCircuitOpen)
        } else if self.llm.throttled() {
            Some(Degraded::from(&LlmError::RateLimited {
                retry_after_secs: None,
            }))
        } else if !self.allowance.take(token) {
            Some(Degraded::CallerRateLimited)
        } else {
            None
        }
    }

    /// What the agent's failure says, counted by the circuit when it is
    /// the model's (a refused post is not, nor a call slow tools left too
    /// little time, nor a timeout while the service is browned out).
    fn agent_failed(&self, e: &Stopped<LlmError>, run: &Run) -> Degraded {
        match e {
            Stopped::Node(e) => {
                // Past the soft threshold a late answer may be this
                // service's own queue (B14: a burst's first second opened
                // the circuit for 30 s, past the burst's end), and new runs
                // take the fallback there without the circuit.
                let ours = *e == LlmError::Timeout && self.admission.browned_out();
                if *e != LlmError::ContentFilter && !run.was_llm_cut_short() && !ours {
                    self.circuit.record_failure();
                }
                Degraded::from(e)
            }
            // Not the LLM's fault: the wiring let a run go round past its
            // step limit (or named a missing node).
            Stopped::StepLimit(_) | Stopped::UnknownNode(_) => {
                tracing::error!(error.kind = "agent_graph", error.message = %e, "agent graph stopped");
                Degraded::RoundCap
            }
        }
    }

    /// The fallback for `reason`, making `searches`.
    async fn fall_back(&self, ctx: RunCtx<'_>, reason: Degraded, searches: direct::Searches) {
        ctx.run.note(reason);
        ctx.run.emit(RunEvent::Fallback {
            reason: reason.to_string(),
        });
        ctx.run.take_path(RunPath::Fallback);
        // A run admitted past the soft threshold is bounded by admission
        // already; a slot held through its Graph searches would queue every
        // such run behind 32 (B14: in flight stayed at the bound, and every
        // run ended at its deadline).
        let slotted = reason != Degraded::Overloaded;
        self.fallback(ctx, searches, slotted).await;
    }

    /// After tool calls the model got wrong: the fallback's searches for the
    /// sources that got nothing, their results added to the model's choice.
    async fn complete_missed(&self, ctx: RunCtx<'_>) {
        let run = ctx.run;
        let searches = direct::Searches {
            m365: ctx.input.graph_token.is_some()
                && ctx.run.findings.reach(Source::M365) != Reach::Answered,
            posts: ctx.run.findings.reach(Source::Posts) == Reach::NotCalled,
        };
        if !searches.m365 && !searches.posts {
            return;
        }
        let shared = self.fallback(ctx, searches, true).await;
        let collected = ctx.run.findings.snapshot();
        run.amend_selection(|selection| {
            if searches.m365 {
                selection.m365 = collected
                    .unjudged(&collected.m365)
                    .map(|(r, _)| r.clone())
                    .collect();
            } else if !shared.is_empty() {
                // What colleagues shared on the posts now found, first.
                selection.m365.retain(|r| !shared.contains(r));
                selection.m365.splice(0..0, shared);
            }
            if searches.posts {
                selection.posts = collected
                    .unjudged(&collected.posts)
                    .map(|(r, _)| r.clone())
                    .collect();
            }
        });
    }

    /// The fallback. Its Microsoft 365 searches take one of
    /// [`FALLBACK_SLOTS`] when `slotted`: when a burst of runs falls back together (an LLM
    /// outage), the rest wait for a slot instead of oversubscribing the CPU, so
    /// every deadline still fires on time. The posts search takes no slot: it
    /// is the panel's floor, so a run still waiting at its deadline has posts.
    ///
    /// Boxed: its 5 KB of searches in flight would otherwise sit inline in
    /// every request's future, agent runs included (B4: 1,000 requests in
    /// flight held 5 MB for a path none of them took).
    async fn fallback(
        &self,
        ctx: RunCtx<'_>,
        searches: direct::Searches,
        slotted: bool,
    ) -> Vec<String> {
        let slots = slotted.then_some(&self.fallback_slots);
        Box::pin(direct::search(ctx, searches, slots)).await
    }
}

/// Concurrent fallback runs (each a few ms of CPU; measured in B3).
const FALLBACK_SLOTS: usize = 32;

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
    ) -> (Orchestrator, super::super::test_support::Harness) {
        let h = super::super::test_support::harness(2, 8).await;
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
        o.run(input(), Emitter::default(), o.admit().await.unwrap())
            .await
    }

    fn input() -> RunInput {
        RunInput {
            run_id: RunInput::new_run_id(),
            post_id: "p-new".into(),
            text: "How do I set up a deployment pipeline?".into(),
            tags: vec![],
            category: None,
            graph_token: None,
            arrived: Instant::now(),
        }
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
    async fn a_timeout_while_browned_out_does_not_open_the_circuit_and_one_after_does() {
        let model = Arc::new(ScriptedModel::new([
            Reply::Fail(LlmError::Timeout),
            Reply::Fail(LlmError::Timeout),
        ]));
        let (o, _h) = orchestrator(&model, 1).await;
        let o = o.with_admission(Admission::new(4, Duration::ZERO, Default::default()));
        // This run was admitted with room; three more came while it waited.
        let ticket = o.admit().await.unwrap();
        let others: Vec<_> = [o.admit().await, o.admit().await, o.admit().await]
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let late = o.run(input(), Emitter::default(), ticket).await;
        assert_eq!(late.meta.path, RunPath::Fallback);
        assert!(
            late.meta.degraded.iter().any(|d| d == "llm_timeout"),
            "{late:?}"
        );
        assert!(
            !o.circuit_open(),
            "past the soft threshold a timeout may be ours"
        );
        drop(others);
        ask(&o).await;
        assert!(o.circuit_open(), "with room, a timeout is the model's");
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
