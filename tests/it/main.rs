//! Integration tests: the real app over HTTP against fake upstreams on loopback.

mod agent;
mod board;
mod board_panel;
mod cli;
mod contract;
mod docs;
mod errors;
mod http_edge;
mod interop;
mod keyless;
mod language_means;
mod m365_ranking;
mod mcp;
mod mcp_http;
mod metrics;
mod model_families;
mod multilingual;
mod overload;
mod panel_cache;
mod panel_cache_life;
mod posts;
mod privacy;
mod quality;
mod relevance;
mod replicas;
mod runs;
mod shutdown;
mod slow_clients;
mod suggestions;
mod traces;
mod upstream_faults;
mod upstream_http;
// Shared with benches/load.rs, which uses helpers the tests do not.
#[allow(dead_code)]
mod support;
