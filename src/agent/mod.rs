//! A suggestions run, from request to panel, in four rooms:
//! - [`run`]: one run whole — its input, its [`Deadline`], its Graph
//!   budget, what it found, how it went, its one door to the tools
//!   (`RunCtx::search`: memo, budget, events, tracing), the panel built
//!   from it and its report;
//! - [`graph`]: the agent — the small graph runtime and its nodes
//!   (retrieve → llmCall → toolExec → formatResponse) and the prompt;
//! - [`direct`]: the direct searches, no model: the fallback's, and the
//!   first searches pre-retrieval makes with the same queries;
//! - [`load`]: load control — admission within the memory budget, each
//!   caller's allowance of agent runs, the LLM circuit.
//!
//! The [`Orchestrator`] (one run per request) decides which course a run
//! takes and reports it.

mod direct;
mod graph;
mod load;
mod orchestrator;
mod run;
#[cfg(test)]
mod test_support;

pub use load::{Admission, Overloaded, Ticket};
pub use orchestrator::Orchestrator;
pub use run::{Deadline, Emitter, RunEvent, RunInput};
