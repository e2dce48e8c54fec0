//! Why a panel is degraded: every reason `meta.degraded` can carry, with its
//! wire string. docs/http-api.md's table lists each of them (a test compares).

use std::{borrow::Cow, fmt};

use strum::VariantArray;

use crate::{
    llm::{LlmError, LlmErrorKind},
    msgraph::GraphErrorKind,
};

/// A source of the panel, as named in `unavailableSources`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    M365,
    Posts,
    ActionHint,
}

impl Source {
    /// Every source, in the order `unavailableSources` lists them.
    pub const ALL: [Self; 3] = [Self::M365, Self::Posts, Self::ActionHint];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::M365 => "m365",
            Self::Posts => "posts",
            Self::ActionHint => "actionHint",
        }
    }
}

/// One reason in `meta.degraded`. Variants carrying a kind name it after
/// their prefix (`m365_timeout`, `embeddings_too_large`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Degraded {
    /// No Azure OpenAI chat deployment: the fallback served.
    LlmUnconfigured,
    /// Recent consecutive LLM failures: the agent was skipped.
    LlmCircuitOpen,
    /// The LLM failed (`llm_rate_limited`, `llm_timeout`, …): the fallback served.
    Llm(LlmFailure),
    /// The final answer was not the JSON asked for.
    LlmOutputUnparseable,
    /// `agent.max_rounds` reached while the model still called tools.
    RoundCap,
    /// More tool calls in a round than `agent.max_tool_calls_per_round`.
    ToolCallCap,
    /// The model called a tool not offered, or with arguments it rejects.
    ToolArgumentsInvalid,
    /// No Graph token: M365 was not searched.
    M365NoToken,
    /// A Graph search failed (`m365_<kind>`).
    M365(GraphErrorKind),
    /// One of a search's two Graph requests failed (`m365_partial_<kind>`).
    M365Partial(GraphErrorKind),
    /// Embeddings configured but unavailable: posts ranked by words only.
    PostsLexicalOnly,
    /// Azure's query embedding failed: the word model, in process, ranked
    /// the posts (its wire name, `posts_local_model`, is the contract's).
    PostsWordModel,
    /// The post index failed.
    PostsIndexError,
    /// At the deadline, even the posts ranked by words came too late.
    PostsTimeout,
    /// The shared post database is unreachable: posts come from this
    /// replica's memory and may miss other replicas' latest writes.
    PostsStale,
    /// The query's embedding failed (`embeddings_<kind>`).
    Embeddings(LlmErrorKind),
    /// The LLM could not write `generate_action_hint`'s hint (`hint_llm_<kind>`).
    HintLlm(LlmErrorKind),
    /// The LLM answered `generate_action_hint` with no hint.
    HintLlmEmpty,
    /// A tool answered an error for this source (`<source>_tool_error`).
    ToolError(Source),
    /// A call on the in-process MCP connection failed.
    McpCallFailed,
    /// `agent.timeout_ms` elapsed: what was collected is returned.
    Deadline,
    /// Many runs in flight: the fallback served, to spare memory and the model.
    Overloaded,
    /// The caller used up its agent runs for the minute: the fallback served.
    CallerRateLimited,
}

/// The LLM failures the agent reports under their own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmFailure {
    RateLimited,
    ContentFilter,
    Timeout,
    TooLarge,
    /// Azure OpenAI refused the key or token (401/403).
    Unauthorized,
    /// No Microsoft Entra ID token: Entra refused or could not be reached.
    TokenUnavailable,
    /// Any other failure (5xx, unreachable, malformed body).
    Error,
}

impl From<&LlmError> for Degraded {
    fn from(e: &LlmError) -> Self {
        match e {
            LlmError::Unconfigured => Self::LlmUnconfigured,
            LlmError::RateLimited { .. } => Self::Llm(LlmFailure::RateLimited),
            LlmError::ContentFilter => Self::Llm(LlmFailure::ContentFilter),
            LlmError::Timeout => Self::Llm(LlmFailure::Timeout),
            LlmError::TooLarge => Self::Llm(LlmFailure::TooLarge),
            LlmError::Unauthorized => Self::Llm(LlmFailure::Unauthorized),
            LlmError::NoToken => Self::Llm(LlmFailure::TokenUnavailable),
            _ => Self::Llm(LlmFailure::Error),
        }
    }
}

impl Degraded {
    /// The reason as sent in `meta.degraded`.
    pub fn wire(&self) -> Cow<'static, str> {
        let fixed = |s: &'static str| Cow::Borrowed(s);
        match self {
            Self::LlmUnconfigured => fixed("llm_unconfigured"),
            Self::LlmCircuitOpen => fixed("llm_circuit_open"),
            Self::Llm(LlmFailure::RateLimited) => fixed("llm_rate_limited"),
            Self::Llm(LlmFailure::ContentFilter) => fixed("llm_content_filter"),
            Self::Llm(LlmFailure::Timeout) => fixed("llm_timeout"),
            Self::Llm(LlmFailure::TooLarge) => fixed("llm_too_large"),
            Self::Llm(LlmFailure::Unauthorized) => fixed("llm_unauthorized"),
            Self::Llm(LlmFailure::TokenUnavailable) => fixed("llm_token_unavailable"),
            Self::Llm(LlmFailure::Error) => fixed("llm_error"),
            Self::LlmOutputUnparseable => fixed("llm_output_unparseable"),
            Self::RoundCap => fixed("round_cap"),
            Self::ToolCallCap => fixed("tool_call_cap"),
            Self::ToolArgumentsInvalid => fixed("tool_arguments_invalid"),
            Self::M365NoToken => fixed("m365_no_token"),
            Self::M365(kind) => Cow::Owned(format!("m365_{}", kind.as_str())),
            Self::M365Partial(kind) => Cow::Owned(format!("m365_partial_{}", kind.as_str())),
            Self::PostsLexicalOnly => fixed("posts_lexical_only"),
            Self::PostsWordModel => fixed("posts_local_model"),
            Self::PostsIndexError => fixed("posts_index_error"),
            Self::PostsTimeout => fixed("posts_timeout"),
            Self::PostsStale => fixed("posts_stale"),
            Self::Embeddings(kind) => Cow::Owned(format!("embeddings_{}", kind.as_str())),
            Self::HintLlm(kind) => Cow::Owned(format!("hint_llm_{}", kind.as_str())),
            Self::HintLlmEmpty => fixed("hint_llm_empty_answer"),
            Self::ToolError(source) => Cow::Owned(format!("{}_tool_error", source.as_str())),
            Self::McpCallFailed => fixed("mcp_call_failed"),
            Self::Deadline => fixed("deadline"),
            Self::Overloaded => fixed("overloaded"),
            Self::CallerRateLimited => fixed("caller_rate_limited"),
        }
    }

    /// Every reason that can be sent: each variant with each kind it can carry.
    pub fn every() -> Vec<Self> {
        use LlmFailure::*;
        let mut all = vec![
            Self::LlmUnconfigured,
            Self::LlmCircuitOpen,
            Self::LlmOutputUnparseable,
            Self::RoundCap,
            Self::ToolCallCap,
            Self::ToolArgumentsInvalid,
            Self::M365NoToken,
            Self::PostsLexicalOnly,
            Self::PostsWordModel,
            Self::PostsIndexError,
            Self::PostsTimeout,
            Self::PostsStale,
            Self::McpCallFailed,
            Self::Deadline,
            Self::Overloaded,
            Self::CallerRateLimited,
            Self::HintLlmEmpty,
        ];
        all.extend(
            [
                RateLimited,
                ContentFilter,
                Timeout,
                TooLarge,
                Unauthorized,
                TokenUnavailable,
                Error,
            ]
            .map(Self::Llm),
        );
        let graph = GraphErrorKind::VARIANTS.iter().copied();
        all.extend(graph.clone().map(Self::M365));
        all.extend(graph.map(Self::M365Partial));
        let llm = LlmErrorKind::VARIANTS.iter().copied();
        all.extend(llm.clone().map(Self::Embeddings));
        all.extend(llm.map(Self::HintLlm));
        // M365's tool errors are its Graph failures (`m365_<kind>`).
        all.extend([Source::Posts, Source::ActionHint].map(Self::ToolError));
        all
    }

    /// The reason a wire string names (as sent in `meta.degraded`).
    pub fn from_wire(wire: &str) -> Option<Self> {
        Self::every().into_iter().find(|d| d.wire() == wire)
    }
}

impl fmt::Display for Degraded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.wire())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reasons docs/http-api.md's `meta.degraded` table names: every
    /// backquoted name in its first column, `<kind>` expanded to every kind.
    fn documented() -> Vec<String> {
        let readme = include_str!("../docs/http-api.md");
        let table = readme
            .split("`meta.degraded` reasons:")
            .nth(1)
            .expect("docs/http-api.md has the reasons table");
        let kinds = |pattern: &str| -> Vec<String> {
            let all: Vec<&str> = if pattern.starts_with("m365_") {
                GraphErrorKind::VARIANTS
                    .iter()
                    .map(|k| k.as_str())
                    .collect()
            } else {
                LlmErrorKind::VARIANTS.iter().map(|k| k.as_str()).collect()
            };
            all.iter().map(|k| pattern.replace("<kind>", k)).collect()
        };
        table
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .filter_map(|row| row.split('|').nth(1))
            .flat_map(|cell| {
                cell.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .flat_map(|name| match name.contains("<kind>") {
                true => kinds(&name),
                false => vec![name],
            })
            .collect()
    }

    #[test]
    fn the_docs_list_every_reason_and_no_other() {
        let mut sent: Vec<String> = Degraded::every().iter().map(|d| d.to_string()).collect();
        let mut documented = documented();
        sent.sort();
        sent.dedup();
        documented.sort();
        documented.dedup();
        assert_eq!(sent, documented);
    }

    #[test]
    fn llm_errors_map_to_their_reason() {
        let d = Degraded::from(&LlmError::RateLimited {
            retry_after_secs: None,
        });
        assert_eq!(d.wire(), "llm_rate_limited");
        assert_eq!(Degraded::from(&LlmError::Upstream(502)).wire(), "llm_error");
        assert_eq!(
            Degraded::M365(GraphErrorKind::Timeout).wire(),
            "m365_timeout"
        );
    }
}
