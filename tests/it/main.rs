//! Integration tests: the real app over HTTP against fake upstreams on loopback.

mod agent;
mod http_edge;
mod mcp;
mod posts;
mod privacy;
mod slow_clients;
mod suggestions;
// Shared with benches/load.rs, which uses helpers the tests do not.
#[allow(dead_code)]
mod support;
