//! What a run reports when it is done: its log line, its metrics, its run
//! record (`GET /api/runs/{runId}`) and the stream's last event; and the
//! span it runs in.

use std::time::Duration;

use tracing::{Span, field::Empty};

use super::{Run, RunEvent, events};
use crate::{
    contract::{CombinedSuggestionsResponse, RunRecord},
    metrics::Metrics,
    otel,
    runs::RunRecords,
};

/// Where a run's report goes.
pub struct Sinks<'a> {
    pub metrics: &'a Metrics,
    pub runs: &'a RunRecords,
}

/// The run's log line, metrics, record and the stream's last event.
pub fn finish(sinks: Sinks<'_>, response: &CombinedSuggestionsResponse, run: &Run, span: &Span) {
    let meta = &response.meta;
    span.in_scope(|| {
        tracing::info!(path = ?meta.path, rounds = meta.rounds, m365 = response.m365.len(),
        posts = response.posts.len(), elapsed_ms = meta.elapsed_ms, "run done")
    });
    let deadline = run.deadline();
    sinks.metrics.run_done(
        meta.path.as_str(),
        meta.rounds,
        &meta.degraded,
        deadline.elapsed().as_secs_f64(),
        deadline.is_late(),
    );
    sinks.runs.record(run_record(response, run.take_trail()));
    run.emit(RunEvent::Result {
        data: Box::new(response.clone()),
    });
}

/// The span a run works and logs in. With traces exported, its own
/// `invoke_agent` span (OpenTelemetry GenAI conventions), in the request's.
/// Without, the request's span, when it has a `run_id` field, takes the
/// run's id: the run's lines name the request and the run in one span, and
/// the tracing registry, which keeps a slot and a field map for as many spans
/// as were ever open at once, holds one per request in flight, not two. A run
/// `/mcp` starts (in its `tools/call` span) has an `invoke_agent` span.
pub fn run_span(run_id: &str) -> Span {
    let request = Span::current();
    if !otel::enabled() && request.has_field("run_id") {
        request.record("run_id", run_id);
        return request;
    }
    invoke_agent_span(run_id)
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
