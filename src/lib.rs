//! linkup-suggestions: the service behind LinkUp's Suggestions panel.
//!
//! # Layout
//! Each module's `//!` says what it owns; `scripts/check_layout.py` (CI)
//! fails on an import circle between modules and on a file over 350 lines.
//! - [`settings`]: typed configuration (files + environment), checked.
//! - [`app`]: the composition root — `App::build` opens the store, the
//!   post index, the clients and the cache once and hands each part what
//!   it needs; `App::run_until` serves and drains.
//! - [`api`]: HTTP only — routes, handlers (they parse and answer),
//!   `ApiError`, middleware, `/mcp`'s door.
//! - [`parts`]: what the app opens once — the upstream clients (and the
//!   LLM's credential), the store, the post index over it, the cache's
//!   shared tier — for `App::build` and the test harnesses.
//! - [`panels`]: the panels service, the one policy behind every door
//!   (the HTTP routes, MCP's `get_suggestions`): cache → coalescing →
//!   admission → run → store.
//! - [`cache`]: the panel cache (repeat views) — per post, request and
//!   caller, identical concurrent misses sharing one run.
//! - [`contract`]: wire types of the HTTP API (and the run record's).
//! - [`degraded`]: every reason `meta.degraded` can carry, with its wire string.
//! - [`agent`]: the orchestrator and its rooms — the run (its deadline,
//!   Graph budget, findings, one door to the tools), the agent graph
//!   (retrieve → llmCall → toolExec → formatResponse), the direct searches
//!   (the fallback's), load control (admission, allowance, circuit).
//! - [`tools`]: the MCP server and its tools (typed results), reached by the
//!   agent over an in-process duplex and by any MCP client at `/mcp`.
//! - [`llm`]: the `ChatModel` seam in the agent's types, and Azure OpenAI
//!   (chat, embeddings, model families) behind it.
//! - [`azure_auth`]: Microsoft Entra ID tokens for Azure OpenAI and
//!   PostgreSQL (keyless Azure): the token-source seam, the SDK's
//!   credentials, and the keeper that refreshes them in the background.
//! - [`msgraph`]: Microsoft Graph search client and its hits' mapping.
//! - [`posts`]: the post index — in-memory BM25 and vectors per model id,
//!   ranking, one seam for its embedding models (the local multilingual
//!   model, the word model, Azure's), background embedding and purging.
//! - [`board`]: what the board already knows — the documents users shared
//!   on posts and their replies: written through the store with their
//!   post, held in memory in step with it.
//! - [`store`]: storage only — the `Store` trait over SQLite or PostgreSQL
//!   (posts and run records); keeps the post index's ranking in step.
//! - [`runs`]: run records, batched to the store off the request path.
//! - [`metrics`]: the Prometheus metrics every part records into.
//! - [`otel`]: OpenTelemetry traces (GenAI conventions) over OTLP.
//! - [`upstream`]: the upstreams' HTTP clients (HTTP/2 connections opened
//!   by stream limit); their bodies read with a size cap, large ones parsed
//!   off the workers; transport errors classified once.
//! - [`ratelimit`]: what an upstream's rate limits allow (per caller for
//!   Graph; after a 429, nothing until its retry time).
//! - [`server`]: the HTTP/1 listener — connection cap, header/idle timeouts,
//!   graceful shutdown.
//! - [`telemetry`]: tracing subscriber set-up (payload-logging crates clamped).
//! - [`keywords`]: keyword extraction for keyword-based searches (Korean
//!   by stems and bigrams).

pub mod agent;
pub mod api;
pub mod app;
pub mod azure_auth;
pub mod board;
pub mod cache;
pub mod contract;
pub mod degraded;
pub mod keywords;
pub mod llm;
pub mod metrics;
pub mod msgraph;
pub mod otel;
pub mod panels;
pub mod parts;
pub mod posts;
pub mod ratelimit;
pub mod runs;
pub mod server;
pub mod settings;
pub mod store;
pub mod telemetry;
pub mod tools;
pub mod upstream;

pub use app::App;
