//! The run's one door to its tools ([`RunCtx::search`]), for toolExec,
//! pre-retrieval and the direct searches alike: the memo (an identical
//! call is answered from it), the `execute_tool` span, timing, the typed
//! result collected into the run's findings under the refs the run gives
//! it, the result count, the stream event and the log line. The Graph
//! budget is spent by the tool, from the caller the run registered. What
//! a failure means beyond its source is the caller's to decide.

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tokio::time::Instant;
use tracing::{Instrument, Span};

use super::{Run, RunCtx, answered::Answered, events::RunEvent, findings::Findings};
use crate::{
    degraded::Source,
    tools::output::{self, M365Found, PostsFound},
};

/// The tools a run calls: the searches (the model writes the hint itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    SearchM365,
    SearchPosts,
}

impl Tool {
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "search_m365" => Some(Self::SearchM365),
            "search_posts" => Some(Self::SearchPosts),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::SearchM365 => "search_m365",
            Self::SearchPosts => "search_posts",
        }
    }

    /// The panel source the tool's results fill.
    pub fn source(self) -> Source {
        match self {
            Self::SearchM365 => Source::M365,
            Self::SearchPosts => Source::Posts,
        }
    }
}

/// Why a tool call failed, as its span, log line and the run's trail name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum ToolFailure {
    /// The model named a tool not offered.
    UnknownTool,
    /// The arguments were not a JSON object, or the tool rejected them.
    InvalidArguments,
    /// The MCP call itself failed.
    McpError,
    /// The tool answered an error for its source.
    ToolError,
    /// The tool answered no result of its type.
    MalformedResult,
}

/// How a call ended.
pub enum Called {
    /// The tool answered; its results are in the findings.
    Answered(Answered),
    /// The tool rejected its arguments (an empty or too long query; its text).
    InvalidArguments(String),
    /// The tool answered an error (its text); its source is recorded as lost.
    ToolError(String),
    /// The MCP call itself failed (rejected arguments, a broken connection)
    /// or answered no result of the tool's type. Its error is not kept:
    /// rmcp's messages can quote the arguments.
    Failed,
}

/// A call in progress: its span and clock.
pub struct Traced<'e> {
    tool: String,
    span: Span,
    started: Instant,
    run: &'e Run,
    /// The call's arguments, kept when the run reports payloads.
    arguments: Option<Value>,
    /// Its results' titles or ids, likewise.
    results: Option<Vec<String>>,
}

impl<'e> Traced<'e> {
    /// Starts the span and the clock of a call to `tool` (`call_id`: the
    /// model's id for the call, when the model made it).
    pub fn start(tool: &str, call_id: Option<&str>, run: &'e Run) -> Self {
        Self {
            tool: tool.to_owned(),
            span: tracing::debug_span!(
                "execute_tool",
                otel.name = format!("execute_tool {tool}"),
                gen_ai.operation.name = "execute_tool",
                gen_ai.tool.name = tool,
                gen_ai.tool.type = "function",
                gen_ai.tool.call.id = call_id,
            ),
            started: Instant::now(),
            run,
            arguments: None,
            results: None,
        }
    }

    /// Makes the call through the MCP connection, collects its results into
    /// the run's findings, then reports it.
    async fn call(mut self, tool: Tool, ctx: RunCtx<'_>, args: Map<String, Value>) -> Called {
        let findings = &ctx.run.findings;
        if self.run.events().payloads() {
            self.arguments = Some(Value::Object(args.clone()));
        }
        let result = ctx
            .conn
            .call(ctx.session, tool.name(), args)
            .instrument(self.span.clone())
            .await;
        let Ok(result) = result else {
            self.failed(ToolFailure::McpError);
            return Called::Failed;
        };
        let reasons = output::degraded_of(&result);
        if result.is_error == Some(true) {
            let text = text_of(&result);
            return match reasons.first() {
                Some(reason) => {
                    findings.lost(tool.source(), *reason);
                    self.failed(ToolFailure::ToolError);
                    Called::ToolError(text)
                }
                None => {
                    self.failed(ToolFailure::InvalidArguments);
                    Called::InvalidArguments(text)
                }
            };
        }
        let Some((answered, count)) = collect(tool, result.structured_content, findings) else {
            self.failed(ToolFailure::MalformedResult);
            return Called::Failed;
        };
        findings.answered(tool.source());
        for reason in reasons {
            findings.degrade(reason);
        }
        if self.run.events().payloads() {
            self.results = Some(findings.summary(tool.source(), answered.refs()));
        }
        self.answered(count);
        Called::Answered(answered)
    }

    /// Reports an answered call with the number of results it held.
    pub fn answered(&self, count: usize) {
        let elapsed_ms = self.elapsed_ms();
        let tool = self.tool.as_str();
        self.span
            .in_scope(|| tracing::debug!(tool, count, elapsed_ms, "tool call done"));
        if let Some(arguments) = &self.arguments {
            // `log.payloads` (development): user text, on purpose.
            self.span.in_scope(|| {
                tracing::debug!(tool, arguments = %arguments, results = ?self.results, "tool call payload")
            });
        }
        self.emit(None, count, elapsed_ms);
    }

    /// Reports a call that failed for `failure` (or was never made).
    pub fn failed(&self, failure: ToolFailure) {
        let kind: &'static str = failure.into();
        let tool = self.tool.as_str();
        self.span
            .in_scope(|| tracing::warn!(tool, error.kind = kind, "tool call failed"));
        crate::otel::set_error(&self.span, kind);
        self.emit(Some(kind), 0, self.elapsed_ms());
    }

    fn emit(&self, error_kind: Option<&'static str>, count: usize, elapsed_ms: u64) {
        self.run.emit(RunEvent::Tool {
            tool: self.tool.clone(),
            ok: error_kind.is_none(),
            error_kind,
            count,
            elapsed_ms,
            arguments: self.arguments.clone(),
            results: self.results.clone(),
        });
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// The call's span (for what the caller logs about it).
    pub fn span(&self) -> &Span {
        &self.span
    }
}

impl RunCtx<'_> {
    /// The one way a run reaches its tools: a call this run made before
    /// (same tool, same arguments) is answered from its memo; else it is
    /// made through the MCP connection as the run's caller (whose Graph
    /// budget the tool spends), traced, its results collected into the
    /// findings, and remembered. `call_id`: the model's id for the call,
    /// when the model made it.
    pub async fn search(
        &self,
        tool: Tool,
        arguments: Map<String, Value>,
        call_id: Option<&str>,
    ) -> Called {
        let traced = Traced::start(tool.name(), call_id, self.run);
        let key = super::memo_key(tool, &arguments);
        if let Some(answered) = self.run.recalled(&key) {
            let name = tool.name();
            traced
                .span()
                .in_scope(|| tracing::debug!(tool = name, "answered from the run's memo"));
            return Called::Answered(answered);
        }
        let called = traced.call(tool, *self, arguments).await;
        if let Called::Answered(answered) = &called {
            self.run.remember(key, answered.clone());
        }
        called
    }
}

/// Moves a result's items into `findings` under refs; returns what was added
/// and how many results there were. None when the result is not of the
/// tool's type.
fn collect(
    tool: Tool,
    structured: Option<Value>,
    findings: &Findings,
) -> Option<(Answered, usize)> {
    let value = structured?;
    Some(match tool {
        Tool::SearchM365 => {
            let found: M365Found = serde_json::from_value(value).ok()?;
            let refs = findings.add_m365(found.items);
            let count = refs.len();
            let broadened = found.broadened;
            (Answered::M365 { refs, broadened }, count)
        }
        Tool::SearchPosts => {
            let found: PostsFound = serde_json::from_value(value).ok()?;
            // Candidates (`related` false) are the model's to judge.
            let refs = findings.add_posts(found.posts, &found.related);
            let count = refs.len();
            (Answered::Posts(refs), count)
        }
    })
}

/// The text content of a result.
fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect()
}
