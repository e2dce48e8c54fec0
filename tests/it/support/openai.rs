//! A fake Azure OpenAI resource speaking the documented wire format:
//! `POST /openai/deployments/{deployment}/chat/completions?api-version=…` and
//! `…/embeddings`, authenticated by the `api-key` header, answering
//! `chat.completion` / embedding `list` objects, and Azure's error bodies
//! (`{"error": {"code", "message"}}`, 400 `content_filter`, 429 + Retry-After).
//! Chat answers are scripted per test; embeddings are a deterministic
//! bag-of-concepts (synonyms share a dimension) so semantic search is testable.

use std::{
    collections::{HashMap, VecDeque},
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Json, Router,
    body::Bytes,
    extract::{Path, Query, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
};
use serde_json::{Value, json};

use super::faults::{self, Fault};

pub const API_KEY: &str = "azure-key-SECRET-9d2e";

/// One scripted chat answer.
#[derive(Clone, Debug)]
pub enum ChatStep {
    /// A plain text answer.
    Reply(String),
    /// Parallel tool calls: (function name, arguments object).
    ToolCalls(Vec<(&'static str, Value)>),
    /// One tool call whose `arguments` string is given verbatim (e.g. not JSON).
    RawToolCall(&'static str, &'static str),
    /// The final structured answer (serialised into `content`).
    Final(Value),
    /// A model that answers from what it was given when that holds what it
    /// looks for: when a result line of the request (in a tool message or
    /// the run's first results) contains one of `looks_for`
    /// (case-insensitive) — a document's (`m3 | …`) when `search_m365` is
    /// offered, else a post's (`p2 | …`) — the final answer as [`SelectAll`];
    /// else the tool calls of `search`. In a queue, the step after it is the
    /// answer after searching, skipped when it answers at once.
    SearchUnlessFound {
        looks_for: Vec<String>,
        search: Vec<(&'static str, Value)>,
    },
    /// The final answer of a model that keeps everything it was shown: every
    /// ref the tool messages listed (`m3 | …` lines), in order, at most 10
    /// documents and 5 posts; what broadened searches found only when no
    /// other search found a document.
    SelectAll,
    /// 200 and headers at once, then the body one byte every 200 ms, forever.
    Drip,
    Status(u16),
    ContentFilter,
    Hang,
    Malformed,
    /// A valid completion of about 20 MB, streamed without `Content-Length`.
    Huge,
    /// A valid completion cut in half, then the connection closes.
    Truncated,
}

/// What the embeddings endpoint does.
#[derive(Clone, Debug)]
pub enum EmbedBehavior {
    Normal,
    Status(u16),
    Hang,
    /// 200 and headers at once, then the body one byte every 200 ms, forever.
    Drip,
    /// A valid answer of about 20 MB (vectors of 400,000 dimensions).
    Huge,
    /// A normal answer after this long.
    Slow(Duration),
    /// About this percent of answers faulty: 500, 429, hang, 20 MB, or 2.5 s late.
    Chaos(u64),
}

impl ChatStep {
    /// One round calling both searches with `query`.
    pub fn searches(query: &str) -> Self {
        Self::ToolCalls(vec![
            ("search_m365", json!({ "query": query })),
            ("search_posts", json!({ "query": query })),
        ])
    }
}

/// Size of the fakes' huge answers.
pub const HUGE_BYTES: usize = 20 * 1024 * 1024;

/// One request received.
#[derive(Clone, Debug)]
pub struct Received {
    /// The HTTP version the request came over.
    pub version: axum::http::Version,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// Size of the request body.
    pub bytes_in: usize,
}

#[derive(Default)]
struct Script {
    /// Keyless: the Entra ID token accepted (`Authorization: Bearer …`)
    /// in place of the key.
    bearer: Option<String>,
    chat: VecDeque<ChatStep>,
    chat_default: Option<ChatStep>,
    /// When set, the step is chosen by the request's round (assistant messages
    /// so far): stateless, so concurrent runs each get the whole script.
    by_round: Vec<ChatStep>,
    chat_latency: Duration,
    embed_latency: Duration,
    /// Bytes of chat completion bodies sent back.
    chat_bytes_out: usize,
    /// Keep no request log (load benchmarks).
    no_record: bool,
    embed: Option<EmbedBehavior>,
    received: Vec<Received>,
    /// Chat answers delayed, and how much longer than asked their timers slept.
    oversleep: super::Oversleep,
    /// Chat calls waiting out their latency now.
    chat_waiting: usize,
    /// Percent of chat answers replaced by a fault.
    chaos_percent: u64,
    chaos: super::faults::Chaos,
    /// Synonym groups of the embedding model, besides [`CONCEPTS`].
    concepts: Vec<Vec<String>>,
    /// A real model's vectors by input text: when set, the fake serves
    /// these instead of its own (an input not in it is a 400).
    vectors: Option<Arc<HashMap<String, Vec<f32>>>>,
}

/// Handle of a running fake; clones share it.
#[derive(Clone)]
pub struct FakeOpenAi {
    addr: SocketAddr,
    script: Arc<Mutex<Script>>,
}

/// Words that mean the same to the fake embedding model.
const CONCEPTS: &[&[&str]] = &[
    &["car", "automobile", "vehicle", "carpool", "ride"],
    &["deploy", "deployment", "release", "ship", "rollout"],
    &["lunch", "meal", "food", "restaurant", "eat"],
];

impl FakeOpenAi {
    pub async fn start() -> Self {
        let script = Arc::new(Mutex::new(Script::default()));
        let app = Router::new()
            .route("/openai/deployments/{deployment}/{*op}", post(handle))
            .route("/openai/v1/{*op}", post(handle_v1))
            .with_state(script.clone());
        let listener = super::fake_listener();
        let addr = listener.local_addr().expect("addr");
        // As Azure's and Graph's front ends do: no Nagle delay between a
        // response's HTTP/2 frames.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, script }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Accepts `Authorization: Bearer <token>` instead of the key (Entra
    /// ID); anything else gets Azure's documented 401.
    pub fn accept_bearer(&self, token: &str) {
        self.script.lock().unwrap().bearer = Some(token.to_owned());
    }

    /// Queues chat answers; when the queue is empty the fake replies with a stock hint.
    pub fn chat(&self, steps: impl IntoIterator<Item = ChatStep>) {
        self.script.lock().unwrap().chat.extend(steps);
    }

    /// Answers each request with `steps[round]` (the last step once past the end).
    pub fn chat_by_round(&self, steps: Vec<ChatStep>) {
        self.script.lock().unwrap().by_round = steps;
    }

    /// Words the embedding model also treats as one meaning, per group.
    pub fn concepts(&self, groups: Vec<Vec<String>>) {
        self.script.lock().unwrap().concepts = groups;
    }

    /// Serves these vectors (a real model's, by input text) as embeddings.
    pub fn vectors(&self, vectors: HashMap<String, Vec<f32>>) {
        self.script.lock().unwrap().vectors = Some(Arc::new(vectors));
    }

    /// Every input text the embeddings endpoint was asked for so far.
    pub fn embedded_inputs(&self) -> Vec<String> {
        self.received()
            .iter()
            .filter(|r| r.path.ends_with("embeddings"))
            .flat_map(|r| match &r.body["input"] {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// Delays every chat and embeddings answer.
    pub fn latency(&self, chat: Duration, embeddings: Duration) {
        let mut s = self.script.lock().unwrap();
        s.chat_latency = chat;
        s.embed_latency = embeddings;
    }

    /// Stops recording requests (keeps the byte counters).
    pub fn stop_recording(&self) {
        self.script.lock().unwrap().no_record = true;
    }

    /// Chat answers delayed so far, and their timers' total sleep beyond the latency asked.
    pub fn chat_oversleep(&self) -> super::Oversleep {
        self.script.lock().unwrap().oversleep
    }

    /// Chat calls waiting out their latency now (the caller's requests in
    /// flight on the model).
    pub fn chat_waiting(&self) -> usize {
        self.script.lock().unwrap().chat_waiting
    }

    /// Bytes of chat completion bodies answered so far.
    pub fn chat_bytes_out(&self) -> usize {
        self.script.lock().unwrap().chat_bytes_out
    }

    /// What the chat answers once the queue is empty (default: a stock text reply).
    pub fn chat_default(&self, step: ChatStep) {
        self.script.lock().unwrap().chat_default = Some(step);
    }

    /// Replaces about `percent` % of chat answers by a fault (500, 429,
    /// hang, truncated, 20 MB, drip).
    pub fn chat_chaos(&self, percent: u64) {
        self.script.lock().unwrap().chaos_percent = percent;
    }

    pub fn embeddings(&self, b: EmbedBehavior) {
        self.script.lock().unwrap().embed = Some(b);
    }

    pub fn received(&self) -> Vec<Received> {
        self.script.lock().unwrap().received.clone()
    }

    /// Requests to the chat endpoint.
    pub fn chat_requests(&self) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.path.ends_with("chat/completions"))
            .collect()
    }
}

fn azure_error(status: u16, code: &str, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = (
        status,
        Json(json!({ "error": { "code": code, "message": message } })),
    )
        .into_response();
    if status == StatusCode::TOO_MANY_REQUESTS {
        // Azure OpenAI sends both.
        res.headers_mut()
            .insert("retry-after", "6".parse().unwrap());
        res.headers_mut()
            .insert("retry-after-ms", "6000".parse().unwrap());
    }
    res
}

/// The v1 API: no `api-version`, the deployment in the body's `model`.
async fn handle_v1(
    State(script): State<Arc<Mutex<Script>>>,
    Path(op): Path<String>,
    Query(query): Query<std::collections::HashMap<String, String>>,
    version: axum::http::Version,
    headers: HeaderMap,
    raw: String,
) -> Response {
    let body: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let Some(deployment) = body["model"].as_str().map(str::to_owned) else {
        return param_error(
            400,
            "missing_required_parameter",
            "model",
            "Missing required parameter: 'model'.",
        );
    };
    if query
        .get("api-version")
        .is_some_and(|v| v != "preview" && v != "latest")
    {
        return azure_error(400, "BadRequest", "API version not supported");
    }
    let request = Request {
        deployment: &deployment,
        op: &op,
        version,
        headers: &headers,
        v1: true,
    };
    serve(&script, request, raw, body).await
}

async fn handle(
    State(script): State<Arc<Mutex<Script>>>,
    Path((deployment, op)): Path<(String, String)>,
    Query(query): Query<std::collections::HashMap<String, String>>,
    version: axum::http::Version,
    headers: HeaderMap,
    raw: String,
) -> Response {
    let body: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    if !query.contains_key("api-version") {
        return azure_error(404, "404", "Resource not found");
    }
    let request = Request {
        deployment: &deployment,
        op: &op,
        version,
        headers: &headers,
        v1: false,
    };
    serve(&script, request, raw, body).await
}

/// A documented invalid-request error naming a parameter (OpenAI's shape,
/// which Azure OpenAI answers for parameters a model does not take).
fn param_error(status: u16, code: &str, param: &str, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    (
        status,
        Json(
            json!({ "error": { "message": message, "type": "invalid_request_error",
            "param": param, "code": code } }),
        ),
    )
        .into_response()
}

/// What a deployment refuses, by its model family (the deployment's name
/// says which model it runs): reasoning models take no sampling parameters
/// and no `max_tokens` (o1 and o3 no parallel tool calls either); older chat
/// models no `json_schema` response format.
fn refused(deployment: &str, request: &Value) -> Option<Response> {
    let reasoning = ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|p| deployment.starts_with(p));
    if reasoning {
        if request.get("max_tokens").is_some() {
            return Some(param_error(
                400,
                "unsupported_parameter",
                "max_tokens",
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            ));
        }
        if request
            .get("temperature")
            .is_some_and(|t| t.as_f64() != Some(1.0))
        {
            return Some(param_error(
                400,
                "unsupported_value",
                "temperature",
                "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
            ));
        }
        if (deployment.starts_with("o1") || deployment.starts_with("o3"))
            && request.get("parallel_tool_calls").is_some()
        {
            return Some(param_error(
                400,
                "unsupported_parameter",
                "parallel_tool_calls",
                "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.",
            ));
        }
    } else if request.get("reasoning_effort").is_some() {
        return Some(param_error(
            400,
            "unsupported_parameter",
            "reasoning_effort",
            "Unrecognized request argument supplied: reasoning_effort",
        ));
    }
    let legacy = ["gpt-4-0613", "gpt-4o-2024-05-13"].contains(&deployment);
    if legacy && request["response_format"]["type"] == "json_schema" {
        return Some(param_error(
            400,
            "invalid_value",
            "response_format",
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        ));
    }
    None
}

/// What a request asked, whichever API shape it came in.
struct Request<'a> {
    deployment: &'a str,
    op: &'a str,
    version: axum::http::Version,
    headers: &'a HeaderMap,
    /// The v1 API (`/openai/v1/…`), not a dated one.
    v1: bool,
}

async fn serve(script: &Mutex<Script>, request: Request<'_>, raw: String, body: Value) -> Response {
    let Request {
        deployment,
        op,
        version,
        headers,
        v1,
    } = request;
    let headers_list = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
        .collect();
    {
        let mut s = script.lock().unwrap();
        if !s.no_record {
            s.received.push(Received {
                version,
                path: if v1 {
                    format!("/openai/v1/{op}")
                } else {
                    format!("/openai/deployments/{deployment}/{op}")
                },
                headers: headers_list,
                body: body.clone(),
                bytes_in: raw.len(),
            });
        }
    }
    let bearer = script.lock().unwrap().bearer.clone();
    if let Some(token) = bearer {
        let sent = headers.get("authorization").and_then(|v| v.to_str().ok());
        if sent != Some(format!("Bearer {token}").as_str()) {
            // Azure OpenAI's answer to a missing, invalid or expired token
            // (a different shape from its other errors).
            return (
                StatusCode::UNAUTHORIZED,
                Json(json!({
                    "statusCode": 401,
                    "message": "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired."
                })),
            )
                .into_response();
        }
    } else if headers.get("api-key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
        return azure_error(
            401,
            "401",
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
        );
    }
    match op {
        "chat/completions" => match refused(deployment, &body) {
            Some(refusal) => refusal,
            None => chat(script, deployment, &body).await,
        },
        "embeddings" => embeddings(script, &body).await,
        _ => azure_error(404, "404", "Resource not found"),
    }
}

/// Counts a chat call in [`Script::chat_waiting`] while it lives (also when
/// the caller hangs up mid-wait and the handler is dropped).
struct Waiting<'a>(&'a Mutex<Script>);

impl<'a> Waiting<'a> {
    fn new(script: &'a Mutex<Script>) -> Self {
        script.lock().unwrap().chat_waiting += 1;
        Self(script)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if let Ok(mut s) = self.0.lock() {
            s.chat_waiting -= 1;
        }
    }
}

async fn chat(script: &Mutex<Script>, deployment: &str, request: &Value) -> Response {
    let (step, latency) = {
        let mut s = script.lock().unwrap();
        let step = if s.by_round.is_empty() {
            s.chat.pop_front().or_else(|| s.chat_default.clone())
        } else {
            let messages = request["messages"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            let round = messages.iter().filter(|m| m["role"] == "assistant").count();
            if request.get("tools").is_none() {
                // Not an agent round (e.g. the hint tool's own call): plain text.
                Some(ChatStep::Reply(
                    "Start with the onboarding guide on SharePoint.".into(),
                ))
            } else {
                s.by_round.get(round).or(s.by_round.last()).cloned()
            }
        };
        let fault = s.chaos.pick(s.chaos_percent).map(|f| match f {
            Fault::Status500 => ChatStep::Status(500),
            Fault::Status429 => ChatStep::Status(429),
            Fault::Hang => ChatStep::Hang,
            Fault::Truncated => ChatStep::Truncated,
            Fault::Huge => ChatStep::Huge,
            Fault::Drip => ChatStep::Drip,
        });
        let step = match step {
            Some(ChatStep::SearchUnlessFound { looks_for, search }) => {
                if holds_any(request, &looks_for) {
                    if s.by_round.is_empty() {
                        s.chat.pop_front();
                    }
                    Some(ChatStep::SelectAll)
                } else {
                    Some(ChatStep::ToolCalls(search))
                }
            }
            other => other,
        };
        (fault.or(step), s.chat_latency)
    };
    if !latency.is_zero() {
        let waiting = Waiting::new(script);
        let over = super::delay(latency).await;
        drop(waiting);
        script.lock().unwrap().oversleep.add(over);
    }
    let stock = ChatStep::Reply("Start with the onboarding guide on SharePoint.".into());
    let (content, calls): (Value, Vec<(&str, String)>) = match step.unwrap_or(stock) {
        ChatStep::Reply(text) => (Value::String(text), Vec::new()),
        ChatStep::Final(answer) => (Value::String(answer.to_string()), Vec::new()),
        ChatStep::SelectAll => (Value::String(select_all(request).to_string()), Vec::new()),
        ChatStep::SearchUnlessFound { .. } => unreachable!("chosen above"),
        ChatStep::ToolCalls(calls) => (
            Value::Null,
            calls.into_iter().map(|(n, a)| (n, a.to_string())).collect(),
        ),
        ChatStep::RawToolCall(name, raw) => (Value::Null, vec![(name, raw.to_owned())]),
        ChatStep::Status(429) => return azure_error(429, "429", RATE_LIMIT_MESSAGE),
        ChatStep::Status(code) => {
            return azure_error(
                code,
                &code.to_string(),
                "The server had an error while processing your request.",
            );
        }
        ChatStep::ContentFilter => {
            return (StatusCode::BAD_REQUEST, Json(json!({ "error": {
                "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
                "type": null, "param": "prompt", "code": "content_filter", "status": 400,
                "innererror": { "code": "ResponsibleAIPolicyViolation",
                    "content_filter_result": { "hate": { "filtered": true, "severity": "high" } } } } })))
            .into_response();
        }
        ChatStep::Hang => std::future::pending().await,
        ChatStep::Drip => return faults::drip(),
        ChatStep::Huge => return faults::large(huge_completion(deployment), false),
        ChatStep::Truncated => {
            let whole = completion(deployment, json!("Start with the runbook."), Vec::new());
            return faults::truncated(Bytes::from(whole));
        }
        ChatStep::Malformed => {
            return (StatusCode::OK, "{\"id\":\"chatcmpl-1\",\"choices\":[").into_response();
        }
    };
    let text = completion(deployment, content, calls);
    script.lock().unwrap().chat_bytes_out += text.len();
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text,
    )
        .into_response()
}

/// The texts of the request's messages that can list results: tool
/// messages, and user messages (the run's first results follow the post).
fn result_texts(request: &Value) -> Vec<&str> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool" || m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect()
}

/// Whether a result line of the request holds one of `terms`: a
/// document's (`m3 | …`) when Microsoft 365 search is offered, else a
/// post's (`p2 | …`).
fn holds_any(request: &Value, terms: &[String]) -> bool {
    let terms: Vec<String> = terms.iter().map(|t| t.to_lowercase()).collect();
    let m365_offered = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|t| t["function"]["name"] == "search_m365");
    let wanted = if m365_offered { b'm' } else { b'p' };
    result_texts(request)
        .iter()
        .flat_map(|t| t.lines())
        .filter(|l| result_ref(l.split(" | ").next().unwrap_or_default()) == Some(wanted))
        .filter(|l| !l.ends_with("(listed above)"))
        .any(|l| {
            let l = l.to_lowercase();
            terms.iter().any(|t| l.contains(t.as_str()))
        })
}

/// `m` or `p` when `r` is a result ref (`m3`, `p12`).
fn result_ref(r: &str) -> Option<u8> {
    let digits = r
        .get(1..)
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    match r.as_bytes().first() {
        Some(b @ (b'm' | b'p')) if digits => Some(*b),
        _ => None,
    }
}

/// Every ref listed in the request's tool messages and first results, in order.
fn select_all(request: &Value) -> Value {
    let (mut m365, mut posts) = (Vec::<String>::new(), Vec::<String>::new());
    let all_texts = result_texts(request);
    // Like a careful model, it leaves out what a broadened search found when
    // a search matching every word found something.
    let broad = |t: &&str| t.starts_with("(nothing matched every word");
    let exact_found = all_texts.iter().any(|t| {
        !broad(t)
            && t.lines()
                .any(|l| result_ref(l.split(" | ").next().unwrap_or_default()) == Some(b'm'))
    });
    let tool_texts = all_texts.into_iter().filter(|t| !(exact_found && broad(t)));
    // One result per line (`m3 | …`), or a JSON array of `{ref, …}` objects.
    let refs = tool_texts.flat_map(|text| match serde_json::from_str::<Vec<Value>>(text) {
        Ok(items) => items
            .iter()
            .filter_map(|i| i["ref"].as_str().map(str::to_owned))
            .collect::<Vec<_>>(),
        Err(_) => text
            .lines()
            .map(|l| l.split(" | ").next().unwrap_or_default().to_owned())
            .collect(),
    });
    for r in refs {
        let r = r.as_str();
        let list = match result_ref(r) {
            Some(b'm') => &mut m365,
            Some(_) => &mut posts,
            None => continue,
        };
        if !list.iter().any(|x| x == r) {
            list.push(r.to_owned());
        }
    }
    m365.truncate(10);
    posts.truncate(5);
    let hint = (!m365.is_empty() || !posts.is_empty()).then_some("Start with the first result.");
    json!({ "m365": m365, "posts": posts, "actionHint": hint })
}

/// A `chat.completion` object as Azure OpenAI sends it.
fn completion(deployment: &str, content: Value, calls: Vec<(&str, String)>) -> String {
    let finish_reason = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    let mut message = json!({ "role": "assistant", "content": content, "refusal": null });
    if !calls.is_empty() {
        let tool_calls: Vec<Value> = calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({ "id": format!("call_{i}_{name}"), "type": "function",
                    "function": { "name": name, "arguments": args } })
            })
            .collect();
        message["tool_calls"] = Value::Array(tool_calls);
    }
    json!({
        "id": "chatcmpl-AbC123", "object": "chat.completion", "created": 1_763_900_000,
        "model": format!("{deployment}-2024-07-18"), "system_fingerprint": "fp_f3927aa00d",
        "choices": [{ "index": 0, "finish_reason": finish_reason, "logprobs": null, "message": message,
            "content_filter_results": { "hate": { "filtered": false, "severity": "safe" } } }],
        "prompt_filter_results": [{ "prompt_index": 0, "content_filter_results": {} }],
        "usage": { "prompt_tokens": 120, "completion_tokens": 14, "total_tokens": 134 }
    })
    .to_string()
}

/// A valid completion of about [`HUGE_BYTES`] (built once).
fn huge_completion(deployment: &str) -> Bytes {
    static HUGE: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
    HUGE.get_or_init(|| {
        let content = "word ".repeat(HUGE_BYTES / 5);
        Bytes::from(completion(deployment, Value::String(content), Vec::new()))
    })
    .clone()
}

const RATE_LIMIT_MESSAGE: &str = "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-12-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds.";

async fn embeddings(script: &Mutex<Script>, body: &Value) -> Response {
    let (behavior, latency) = {
        let s = script.lock().unwrap();
        (
            match s.embed.clone().unwrap_or(EmbedBehavior::Normal) {
                EmbedBehavior::Chaos(percent) => match s.chaos.pick(percent) {
                    None => EmbedBehavior::Normal,
                    Some(Fault::Status500) => EmbedBehavior::Status(500),
                    Some(Fault::Status429) => EmbedBehavior::Status(429),
                    Some(Fault::Hang) => EmbedBehavior::Hang,
                    Some(Fault::Huge) => EmbedBehavior::Huge,
                    Some(Fault::Truncated | Fault::Drip) => {
                        EmbedBehavior::Slow(Duration::from_millis(2_500))
                    }
                },
                other => other,
            },
            s.embed_latency,
        )
    };
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    match behavior {
        EmbedBehavior::Normal | EmbedBehavior::Chaos(_) => {}
        EmbedBehavior::Slow(d) => tokio::time::sleep(d).await,
        EmbedBehavior::Status(code) => {
            return azure_error(
                code,
                &code.to_string(),
                "The server had an error while processing your request.",
            );
        }
        EmbedBehavior::Hang => tokio::time::sleep(Duration::from_secs(3600)).await,
        EmbedBehavior::Drip => return faults::drip(),
        EmbedBehavior::Huge => {
            let vector = vec![0.012_345_678_f32; HUGE_BYTES / 12];
            let answer = json!({ "object": "list", "model": "text-embedding-3-small",
                "data": [{ "object": "embedding", "index": 0, "embedding": vector }],
                "usage": { "prompt_tokens": 8, "total_tokens": 8 } });
            return faults::large(Bytes::from(answer.to_string()), false);
        }
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => {
            return azure_error(
                400,
                "invalid_request_error",
                "'input' is a required property",
            );
        }
    };
    let dims = body["dimensions"].as_u64().unwrap_or(1536) as usize;
    let (concepts, vectors) = {
        let s = script.lock().unwrap();
        (s.concepts.clone(), s.vectors.clone())
    };
    let mut data: Vec<Value> = Vec::with_capacity(inputs.len());
    for (i, text) in inputs.iter().enumerate() {
        let embedding = match &vectors {
            Some(table) => match table.get(text) {
                Some(v) => v.clone(),
                None => {
                    return azure_error(
                        400,
                        "invalid_request_error",
                        "input not in the fake's vector table",
                    );
                }
            },
            None => embed(text, dims, &concepts),
        };
        data.push(json!({ "object": "embedding", "index": i, "embedding": embedding }));
    }
    Json(
        json!({ "object": "list", "data": data, "model": "text-embedding-3-small",
        "usage": { "prompt_tokens": 8, "total_tokens": 8 } }),
    )
    .into_response()
}

/// English function words: a real embedding model's similarity is carried by
/// the content words, so the fake leaves these out.
const FUNCTION_WORDS: &[&str] = &[
    "about", "after", "again", "all", "also", "and", "any", "anyone", "are", "because", "been",
    "before", "but", "can", "could", "did", "does", "for", "from", "get", "got", "had", "has",
    "have", "her", "here", "him", "his", "how", "into", "its", "just", "know", "let", "like",
    "may", "might", "more", "most", "need", "not", "now", "off", "once", "one", "only", "other",
    "our", "ours", "out", "over", "own", "please", "same", "she", "should", "some", "such", "than",
    "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "through", "too", "under", "until", "use", "very", "want", "was", "way", "were", "what",
    "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your", "yours",
];

/// Whether `word` is the Korean `stem` with particles or endings after it
/// (`법인카드를` of `법인카드`), as a multilingual model reads it.
fn korean_stem_of(stem: &str, word: &str) -> bool {
    let hangul = |c: char| ('\u{AC00}'..='\u{D7A3}').contains(&c);
    stem.chars().count() >= 2 && stem.chars().all(hangul) && word.starts_with(stem)
}

/// Bag of concepts: each word (or its synonym group: `extra`, then
/// [`CONCEPTS`]) adds to one dimension; words of one or two letters and
/// function words only as part of a group.
fn embed(text: &str, dims: usize, extra: &[Vec<String>]) -> Vec<f32> {
    let mut v = vec![0.0f32; dims];
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        let concept = extra
            .iter()
            .find(|group| group.contains(&word))
            .or_else(|| {
                extra
                    .iter()
                    .find(|group| group.iter().any(|g| korean_stem_of(g, &word)))
            })
            .map(|group| group[0].clone())
            .or_else(|| {
                CONCEPTS
                    .iter()
                    .find(|group| group.contains(&word.as_str()))
                    .map(|group| group[0].to_owned())
            });
        let content = word.chars().count() > 2 && !FUNCTION_WORDS.contains(&word.as_str());
        let Some(concept) = concept.or_else(|| content.then_some(word)) else {
            continue;
        };
        let h = concept.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        });
        v[(h % dims as u64) as usize] += 1.0;
    }
    v
}
