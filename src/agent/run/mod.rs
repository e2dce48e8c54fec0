//! One run, whole: its [`Deadline`] and Graph budget ([`budget`]), what it
//! found ([`Findings`]) and how it went — its path, its rounds, the model's
//! selection, the run's own reasons for `meta.degraded`, the answers of the
//! tool calls it made (its memo), its trail (steps, tool calls, tokens: its
//! run record) and where its events stream. Owned by the orchestrator
//! outside the deadline future (what the deadline cuts keeps what was
//! done), written by the nodes and the direct searches through its one
//! door to the tools ([`tool_call`]: `RunCtx::search`), read once by the
//! panel ([`panel`]) and the report ([`report`]).

pub mod answered;
pub mod budget;
mod ctx;
pub mod cut;
mod deadline;
pub mod events;
pub mod findings;
mod input;
pub mod panel;
pub mod report;
pub mod tool_call;

pub use ctx::RunCtx;
pub use deadline::Deadline;
pub use events::{Emitter, RunEvent};
pub use input::RunInput;

use std::{
    collections::HashMap,
    sync::{Mutex, MutexGuard, OnceLock},
};

use serde_json::{Map, Value};

use self::{answered::Answered, events::Trail, findings::Findings, tool_call::Tool};
use crate::{contract::RunPath, degraded::Degraded, tools::GraphBudget};

/// The model's choice, as refs into the run's findings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub m365: Vec<String>,
    pub posts: Vec<String>,
    pub action_hint: Option<String>,
}

/// A run in progress.
pub struct Run {
    /// The tools' results and what became of each source.
    pub findings: Findings,
    outcome: Mutex<Outcome>,
    /// When its answer is due, and each share of its time.
    deadline: Deadline,
    /// Microsoft Graph requests the run's searches may still make (the
    /// run's MCP caller spends the same).
    graph_budget: GraphBudget,
    /// Where the run's events stream, when someone listens.
    events: Emitter,
    /// The post's keywords as the board spells them, and how specific
    /// each is (`RunCtx::keywords`).
    keywords: OnceLock<(Vec<String>, Vec<f32>)>,
}

/// How the run turned out so far: its path, rounds, the model's choice,
/// its own reasons.
#[derive(Default)]
struct Outcome {
    path: Option<RunPath>,
    rounds: u32,
    selection: Option<Selection>,
    /// Why the run took its path or stopped short (the sources' own
    /// reasons are the findings').
    degraded: Vec<Degraded>,
    /// An LLM call was cut by the run's time before it had a fair share of
    /// it (slow tools spent the rest): no sign of the model failing.
    llm_cut_short: bool,
    /// Answers of the tool calls made, by [`memo_key`]. An identical call
    /// later (the model's, the direct searches') is answered from here.
    memo: HashMap<MemoKey, Answered>,
    /// Steps, tool calls and tokens so far: the run record's.
    trail: Trail,
}

impl Run {
    /// A run due by `deadline`, with a panel's Graph budget, streaming its
    /// events to `events`.
    pub fn new(deadline: Deadline, events: Emitter) -> Self {
        Self {
            findings: Findings::default(),
            outcome: Mutex::default(),
            deadline,
            graph_budget: budget::panel(),
            events,
            keywords: OnceLock::new(),
        }
    }

    /// When the run's answer is due, and each share of its time.
    pub fn deadline(&self) -> Deadline {
        self.deadline
    }

    /// Keeps `event` in the trail and streams it.
    pub fn emit(&self, event: RunEvent) {
        self.outcome().trail.record(&event);
        self.events.send(event);
    }

    /// Records the tokens of the chat call that made `round`.
    pub fn usage(&self, round: u32, input_tokens: u64, output_tokens: u64) {
        self.outcome()
            .trail
            .usage(round, input_tokens, output_tokens);
    }

    /// The trail so far, leaving an empty one (the run is over).
    pub fn take_trail(&self) -> Trail {
        std::mem::take(&mut self.outcome().trail)
    }

    /// Where the run's events stream (whether one listens; payloads).
    pub fn events(&self) -> &Emitter {
        &self.events
    }

    /// The Graph requests the run may still make.
    pub fn graph_budget(&self) -> &GraphBudget {
        &self.graph_budget
    }

    fn outcome(&self) -> MutexGuard<'_, Outcome> {
        // Each method is one assignment: a panic cannot leave it half-written.
        self.outcome.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The run serves this path (a later call overrides an earlier one).
    pub fn take_path(&self, path: RunPath) {
        self.outcome().path = Some(path);
    }

    /// The path taken; `partial` when the run never chose one.
    pub fn path(&self) -> RunPath {
        self.outcome().path.unwrap_or(RunPath::Partial)
    }

    /// Counts an LLM round made.
    pub fn round_done(&self) {
        self.outcome().rounds += 1;
    }

    pub fn rounds(&self) -> u32 {
        self.outcome().rounds
    }

    /// The model's final choice.
    pub fn select(&self, selection: Selection) {
        self.outcome().selection = Some(selection);
    }

    /// The model's choice, changed by `f` (when there is one).
    pub fn amend_selection(&self, f: impl FnOnce(&mut Selection)) {
        if let Some(s) = &mut self.outcome().selection {
            f(s);
        }
    }

    pub fn selection(&self) -> Option<Selection> {
        self.outcome().selection.clone()
    }

    /// An LLM call was cut by the run's time before it had a fair share of it.
    pub fn llm_cut_short(&self) {
        self.outcome().llm_cut_short = true;
    }

    /// Whether an LLM call was cut short (then its timeout does not count
    /// against the model).
    pub fn was_llm_cut_short(&self) -> bool {
        self.outcome().llm_cut_short
    }

    /// The answer of a call already made in this run with the same tool
    /// and arguments.
    pub fn recalled(&self, key: &MemoKey) -> Option<Answered> {
        self.outcome().memo.get(key).cloned()
    }

    /// Keeps a call's answer (or what is left of it), for an identical
    /// call later in the run.
    pub fn remember(&self, key: MemoKey, answered: Answered) {
        self.outcome().memo.insert(key, answered);
    }

    /// A reason of the run's own for `meta.degraded` (once).
    pub fn note(&self, reason: Degraded) {
        let mut outcome = self.outcome();
        if !outcome.degraded.contains(&reason) {
            outcome.degraded.push(reason);
        }
    }

    /// Whether the run noted `reason`.
    pub fn noted(&self, reason: Degraded) -> bool {
        self.outcome().degraded.contains(&reason)
    }

    /// Every reason for `meta.degraded`: the run's own first (why the path),
    /// then its sources', each once.
    pub fn degraded(&self, sources: &[Degraded]) -> Vec<Degraded> {
        let mut all = self.outcome().degraded.clone();
        for reason in sources {
            if !all.contains(reason) {
                all.push(*reason);
            }
        }
        all
    }
}

/// A call's key in the memo: the tool and its arguments as JSON.
pub type MemoKey = (Tool, String);

/// The memo key of a call of `tool` with `arguments` (written once a call).
pub fn memo_key(tool: Tool, arguments: &Map<String, Value>) -> MemoKey {
    let json = serde_json::to_string(arguments).unwrap_or_default();
    (tool, json)
}
