//! A fake OpenTelemetry collector: the OTLP/HTTP trace receiver as the
//! protocol specifies it (`POST /v1/traces`, `application/x-protobuf`
//! `ExportTraceServiceRequest`, answered 200 with an empty
//! `ExportTraceServiceResponse`), decoding with the protocol's own types.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Router, body::Bytes, extract::State, http::header, response::IntoResponse, routing::post,
};
use opentelemetry_proto::tonic::{
    collector::trace::v1::ExportTraceServiceRequest,
    common::v1::{AnyValue, any_value},
};
use prost::Message;

/// One received span, flattened.
#[derive(Debug, Clone)]
pub struct Span {
    pub service: String,
    pub name: String,
    /// 1 internal, 2 server, 3 client.
    pub kind: i32,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    pub attributes: HashMap<String, String>,
    /// 2 = error.
    pub status_code: i32,
}

impl Span {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

#[derive(Default)]
struct Received {
    /// Every export body, as sent.
    raw: Vec<Bytes>,
    spans: Vec<Span>,
}

pub struct Collector {
    addr: std::net::SocketAddr,
    received: Arc<Mutex<Received>>,
}

impl Collector {
    pub async fn start() -> Self {
        let received = Arc::new(Mutex::new(Received::default()));
        let app = Router::new()
            .route("/v1/traces", post(export))
            .with_state(received.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, received }
    }

    /// The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn spans(&self) -> Vec<Span> {
        self.received.lock().unwrap().spans.clone()
    }

    /// Every byte exported so far.
    pub fn raw(&self) -> Vec<u8> {
        self.received.lock().unwrap().raw.concat()
    }

    /// Waits (up to 20 s) until a span satisfies `pred`.
    pub async fn wait_for(&self, what: &str, pred: impl Fn(&Span) -> bool) -> Span {
        for _ in 0..200 {
            if let Some(s) = self.spans().into_iter().find(&pred) {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no exported span is {what}; got {:#?}", self.spans());
    }
}

async fn export(State(received): State<Arc<Mutex<Received>>>, body: Bytes) -> impl IntoResponse {
    let request = ExportTraceServiceRequest::decode(body.clone()).expect("an OTLP trace export");
    let mut received = received.lock().unwrap();
    received.raw.push(body);
    for resource in request.resource_spans {
        let service = resource
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .find(|a| a.key == "service.name")
            .map(|a| text(a.value.as_ref()))
            .unwrap_or_default();
        for scope in resource.scope_spans {
            for s in scope.spans {
                received.spans.push(Span {
                    service: service.clone(),
                    name: s.name,
                    kind: s.kind,
                    trace_id: hex(&s.trace_id),
                    span_id: hex(&s.span_id),
                    parent_span_id: hex(&s.parent_span_id),
                    attributes: s
                        .attributes
                        .iter()
                        .map(|a| (a.key.clone(), text(a.value.as_ref())))
                        .collect(),
                    status_code: s.status.map_or(0, |st| st.code),
                });
            }
        }
    }
    // An empty ExportTraceServiceResponse: full success.
    (
        [(header::CONTENT_TYPE, "application/x-protobuf")],
        Vec::<u8>::new(),
    )
}

/// An attribute value as text; arrays as `[a,b]`.
fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::ArrayValue(a)) => {
            let items: Vec<String> = a.values.iter().map(|v| text(Some(v))).collect();
            format!("[{}]", items.join(","))
        }
        _ => String::new(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
