//! B8: cost of the per-request MCP session (duplex, rmcp handshake, tools/list),
//! measured in this process.

use std::time::Instant;

use linkup_suggestions::tools::{Caller, connection::McpConnection};

use super::{Row, pct, proc_cpu_ms, support::deps::tool_deps};

fn own_rss_kb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0.0)
}

pub async fn b8(n: usize) -> Row {
    let built = tool_deps(&[("LINKUP__MSGRAPH__BASE_URL", "https://graph.invalid".into())]).await;
    let deps = built.deps.clone();
    // Before: a connection per request (duplex, handshake, tools/list).
    let mut lat = Vec::with_capacity(n);
    let cpu0 = proc_cpu_ms("self");
    for _ in 0..n {
        let t = Instant::now();
        let conn = McpConnection::open(deps.clone()).await.expect("connects");
        lat.push(t.elapsed());
        drop(conn);
    }
    let cpu = proc_cpu_ms("self") - cpu0;
    lat.sort();
    let rss0 = own_rss_kb();
    let mut held = Vec::new();
    for _ in 0..1000 {
        held.push(McpConnection::open(deps.clone()).await.expect("connects"));
    }
    let per_session_kb = (own_rss_kb() - rss0) / 1000.0;
    drop(held);
    // After: one connection; a request registers its session.
    let conn = McpConnection::open(deps.clone()).await.expect("connects");
    let t = Instant::now();
    for i in 0..n {
        let _registered = conn.register(Caller::new(None, Some(format!("p{i}"))));
    }
    let register_us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
    Row {
        id: "B8",
        scenario: format!(
            "MCP per request: a connection each (before) vs a registered session (after), {n} sequential"
        ),
        figures: format!(
            "before: p50 {:.3} ms, p99 {:.3} ms, CPU {:.3} ms and {per_session_kb:.0} KB per request; after: {register_us:.1} µs per request",
            pct(&lat, 0.5),
            pct(&lat, 0.99),
            cpu / n as f64
        ),
    }
}
