//! A suggestions run, from request to panel. The [`Orchestrator`] (one run
//! per request, one deadline) decides agent vs fallback; the run ([`run`])
//! holds what it found and how it went; the agent's graph ([`agent_graph`]:
//! retrieve → llmCall → toolExec → formatResponse, on the small
//! [`state_graph`] runtime) and the fallback's direct searches
//! ([`fallback`]) write it; the panel ([`panel`]) is built from it. Runs
//! are admitted within the memory budget ([`admission`]), and each caller
//! has an allowance of agent runs ([`allowance`]).

mod admission;
mod agent_graph;
mod allowance;
mod circuit;
mod ctx;
mod deadline;
pub mod events;
mod fallback;
mod findings;
pub mod format_response;
mod input;
mod llm_call;
mod orchestrator;
mod panel;
mod prompt;
mod report;
mod retrieve;
mod run;
mod state;
pub mod state_graph;
#[cfg(test)]
mod test_support;
mod tool_call;
mod tool_exec;

pub use admission::{Admission, Overloaded, Ticket};
pub use events::{Emitter, RunEvent};
pub use input::RunInput;
pub use orchestrator::Orchestrator;
