//! The orchestrator: one run per request, one deadline, always a
//! `CombinedSuggestionsResponse`. It decides agent vs fallback, runs the agent
//! graph ([`agent_graph`]) when the LLM is configured and healthy, and falls
//! back to direct tool calls ([`fallback`]) on any LLM failure.

mod agent_graph;
mod circuit;
pub mod events;
mod fallback;
pub mod format_response;
pub mod graph;
mod llm_call;
mod prompt;
mod response;
mod state;
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
use tracing::Instrument;

pub use events::{Emitter, RunEvent};

use crate::{
    contract::{CombinedSuggestionsResponse, RunPath},
    degraded::Degraded,
    llm::LlmError,
    settings::{AgentSettings, Secret},
    tools::{Session, Source, ToolDeps, connection::McpConnection},
};
use circuit::Circuit;
use graph::GraphError;
use state::Selection;

/// What a run needs from the request.
pub struct RunInput {
    pub post_id: String,
    pub text: String,
    pub tags: Vec<String>,
    pub category: Option<String>,
    /// The caller's Microsoft Graph token, if any.
    pub graph_token: Option<Secret>,
    /// When the request arrived: the deadline counts from here.
    pub arrived: Instant,
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
    /// The process's MCP connection to the tools.
    conn: Arc<McpConnection>,
    /// The connection's tools as chat functions.
    tools: prompt::OfferedTools,
    fallback_slots: tokio::sync::Semaphore,
    settings: AgentSettings,
    circuit: Circuit,
}

impl Orchestrator {
    pub fn new(deps: Arc<ToolDeps>, conn: Arc<McpConnection>, settings: AgentSettings) -> Self {
        let circuit = Circuit::new(
            settings.circuit_failure_threshold,
            Duration::from_millis(settings.circuit_cooldown_ms),
        );
        Self {
            deps,
            tools: prompt::OfferedTools::new(conn.tools()),
            conn,
            settings,
            circuit,
            fallback_slots: tokio::sync::Semaphore::new(FALLBACK_SLOTS),
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
        let run_id = uuid::Uuid::new_v4().to_string();
        let deadline = input.arrived + Duration::from_millis(self.settings.timeout_ms);
        let span = tracing::info_span!("invoke_agent", run_id = %run_id);
        let session = Session::new(
            input.graph_token.clone(),
            input.post_id.clone(),
            input.text.clone(),
        );
        let mut outcome = Outcome::default();
        let _registered = self.conn.register(session.clone());
        let work = self.serve(&self.conn, &session, &input, &events, &mut outcome);
        if tokio::time::timeout_at(deadline, work.instrument(span.clone()))
            .await
            .is_err()
        {
            outcome.path = Some(RunPath::Partial);
            outcome.degraded.push(Degraded::Deadline);
            // What the deadline cut is lost, not empty: say so.
            if input.graph_token.is_some() && !session.answered(Source::M365) {
                session.mark_lost(Source::M365, Degraded::M365("timeout"));
            }
            if !session.posts_searched() {
                self.posts_by_words(&session, &input).await;
            }
        }
        let path = outcome.path.unwrap_or(RunPath::Partial);
        let response = response::build(response::Parts {
            session: &session,
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
        events.emit(RunEvent::Result {
            data: Box::new(response.clone()),
        });
        response
    }

    /// Agent when possible, else (or after an LLM failure) the fallback.
    async fn serve(
        &self,
        conn: &McpConnection,
        session: &Session,
        input: &RunInput,
        events: &Emitter,
        outcome: &mut Outcome,
    ) {
        let skip = if !self.deps.llm.chat_configured() {
            Some(Degraded::LlmUnconfigured)
        } else if self.circuit.is_open() {
            Some(Degraded::LlmCircuitOpen)
        } else {
            None
        };
        if let Some(reason) = skip {
            session.disable_llm();
            outcome.degraded.push(reason);
            events.emit(RunEvent::Fallback {
                reason: reason.to_string(),
            });
            outcome.path = Some(RunPath::Fallback);
            let all = fallback::Searches {
                m365: true,
                posts: true,
            };
            self.fallback(conn, session, input, events, all).await;
            return;
        }
        // No posts search of our own here: the model is asked for one, an LLM
        // failure's fallback makes one if it has not run, and a deadline
        // without one completes the panel by words (`posts_by_words`).
        let result = agent_graph::run(agent_graph::Args {
            llm: &self.deps.llm,
            conn,
            tools: &self.tools,
            session,
            input,
            events,
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
                    self.complete_missed(conn, session, input, events, outcome)
                        .await;
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
                session.disable_llm();
                outcome.degraded.push(reason);
                events.emit(RunEvent::Fallback {
                    reason: reason.to_string(),
                });
                outcome.path = Some(RunPath::Fallback);
                let searches = fallback::Searches {
                    m365: true,
                    posts: !session.posts_searched(),
                };
                self.fallback(conn, session, input, events, searches).await;
            }
        }
    }

    /// After tool calls the model got wrong: the fallback's searches for the
    /// sources that got nothing, their results added to the model's choice.
    async fn complete_missed(
        &self,
        conn: &McpConnection,
        session: &Session,
        input: &RunInput,
        events: &Emitter,
        outcome: &mut Outcome,
    ) {
        let searches = fallback::Searches {
            m365: input.graph_token.is_some() && !session.answered(Source::M365),
            posts: !session.posts_searched(),
        };
        if !searches.m365 && !searches.posts {
            return;
        }
        self.fallback(conn, session, input, events, searches).await;
        if let Some(selection) = &mut outcome.selection {
            let collected = session.snapshot();
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
    async fn posts_by_words(&self, session: &Session, input: &RunInput) {
        let exclude = [input.post_id.clone()];
        let search = self
            .deps
            .posts
            .search_by_words(&input.text, &exclude, response::MAX_POSTS);
        match tokio::time::timeout(LATE_READ, search).await {
            Ok(Ok(posts)) => {
                session.mark_answered(Source::Posts);
                session.add_posts(posts);
                if self.deps.llm.embeddings_configured() {
                    session.degrade(Degraded::PostsLexicalOnly);
                }
            }
            Ok(Err(e)) => {
                tracing::error!(error.kind = "index_error", error.message = %e, "post search failed");
                session.mark_lost(Source::Posts, Degraded::PostsIndexError);
            }
            Err(_) => session.mark_lost(Source::Posts, Degraded::PostsTimeout),
        }
    }
}

/// How long a deadline may wait for the posts read from the database.
const LATE_READ: Duration = Duration::from_millis(20);

impl Orchestrator {
    /// The fallback. Its Microsoft 365 searches and hint take one of
    /// [`FALLBACK_SLOTS`]: when a burst of runs falls back together (an LLM
    /// outage), the rest wait for a slot instead of oversubscribing the CPU, so
    /// every deadline still fires on time. The posts search takes no slot: it
    /// is the panel's floor, so a run still waiting at its deadline has posts.
    async fn fallback(
        &self,
        conn: &McpConnection,
        session: &Session,
        input: &RunInput,
        events: &Emitter,
        searches: fallback::Searches,
    ) {
        fallback::run(conn, session, input, events, searches, &self.fallback_slots).await;
    }
}

/// Concurrent fallback runs (each a few ms of CPU; measured in B3).
const FALLBACK_SLOTS: usize = 32;
