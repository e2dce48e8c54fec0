//! A tiny graph runtime: named nodes over a typed state, an edge table, and
//! one run loop that enforces the step limit, opens a span per node and
//! reports each step. The agent's wiring lives in [`super`].

use std::collections::HashMap;

use futures::future::BoxFuture;
use tokio::time::Instant;
use tracing::Instrument;

/// A node's name, as in logs and stream events.
pub type NodeName = &'static str;
/// Where every run starts.
pub const START: NodeName = "__start__";
/// Where every run ends.
pub const END: NodeName = "__end__";

/// What a node reports about its step (e.g. the tool calls it requested).
#[derive(Debug, Default, Clone)]
pub struct StepReport {
    pub tool_calls: Vec<String>,
}

/// One step of the graph over state `S`; it fails with an `E`.
pub trait Node<S, E>: Send + Sync {
    fn name(&self) -> NodeName;
    fn run<'a>(&'a self, state: &'a mut S) -> BoxFuture<'a, Result<StepReport, E>>;
}

/// An edge out of a node: fixed, or chosen from the state.
pub enum Edge<'a, S> {
    To(NodeName),
    Branch(Box<dyn Fn(&S) -> NodeName + Send + Sync + 'a>),
}

impl<'a, S> Edge<'a, S> {
    /// The edge `choose` picks from the state.
    pub fn branch(choose: impl Fn(&S) -> NodeName + Send + Sync + 'a) -> Self {
        Self::Branch(Box::new(choose))
    }
}

/// Why a graph run stopped early: a node's own error `E`, or the runtime's.
#[derive(Debug, thiserror::Error)]
pub enum Stopped<E: std::error::Error + 'static> {
    #[error("step limit of {0} reached")]
    StepLimit(usize),
    #[error("no node named {0}")]
    UnknownNode(NodeName),
    #[error("node failed: {0}")]
    Node(#[source] E),
}

/// A finished step, as given to the observer.
#[derive(Debug, Clone)]
pub struct Step {
    pub node: NodeName,
    pub step: usize,
    pub report: StepReport,
}

/// Nodes, edges and a step limit.
pub struct Graph<'a, S, E> {
    nodes: HashMap<NodeName, Box<dyn Node<S, E> + 'a>>,
    edges: HashMap<NodeName, Edge<'a, S>>,
    max_steps: usize,
}

impl<'a, S: Send, E: std::error::Error + 'static> Graph<'a, S, E> {
    pub fn new(max_steps: usize) -> Self {
        Self {
            nodes: HashMap::new(),
            edges: HashMap::new(),
            max_steps,
        }
    }

    pub fn node(mut self, node: impl Node<S, E> + 'a) -> Self {
        self.nodes.insert(node.name(), Box::new(node));
        self
    }

    pub fn edge(mut self, from: NodeName, edge: Edge<'a, S>) -> Self {
        self.edges.insert(from, edge);
        self
    }

    fn next(&self, from: NodeName, state: &S) -> NodeName {
        match self.edges.get(from) {
            Some(Edge::To(to)) => to,
            Some(Edge::Branch(choose)) => choose(state),
            None => END,
        }
    }

    /// Runs from START to END, calling `observe` after every step.
    pub async fn run(
        &self,
        state: &mut S,
        mut observe: impl FnMut(&Step, &S),
    ) -> Result<(), Stopped<E>> {
        let started = Instant::now();
        let mut current = self.next(START, state);
        let mut step = 0;
        while current != END {
            step += 1;
            if step > self.max_steps {
                return Err(Stopped::StepLimit(self.max_steps));
            }
            let node = self
                .nodes
                .get(current)
                .ok_or(Stopped::UnknownNode(current))?;
            let span = tracing::debug_span!("node", otel.name = current, node = current, step);
            let report = node
                .run(state)
                .instrument(span.clone())
                .await
                .map_err(Stopped::Node)?;
            let elapsed_ms = started.elapsed().as_millis() as u64;
            span.in_scope(
                || tracing::debug!(elapsed_ms, tool_calls = ?report.tool_calls, "node done"),
            );
            observe(
                &Step {
                    node: current,
                    step,
                    report,
                },
                state,
            );
            current = self.next(current, state);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends its name to the trace.
    struct Mark(NodeName);

    impl Node<Vec<NodeName>, std::fmt::Error> for Mark {
        fn name(&self) -> NodeName {
            self.0
        }
        fn run<'a>(
            &'a self,
            state: &'a mut Vec<NodeName>,
        ) -> BoxFuture<'a, Result<StepReport, std::fmt::Error>> {
            Box::pin(async move {
                state.push(self.0);
                Ok(StepReport::default())
            })
        }
    }

    fn two_rounds(s: &Vec<NodeName>) -> NodeName {
        if s.iter().filter(|n| **n == "llmCall").count() < 2 {
            "toolExec"
        } else {
            "formatResponse"
        }
    }

    fn agent_shape<'a>() -> Graph<'a, Vec<NodeName>, std::fmt::Error> {
        Graph::new(20)
            .node(Mark("llmCall"))
            .node(Mark("toolExec"))
            .node(Mark("formatResponse"))
            .edge(START, Edge::To("llmCall"))
            .edge("llmCall", Edge::branch(two_rounds))
            .edge("toolExec", Edge::To("llmCall"))
            .edge("formatResponse", Edge::To(END))
    }

    #[tokio::test]
    async fn runs_nodes_along_the_edges_until_end() {
        let mut trace = Vec::new();
        agent_shape().run(&mut trace, |_, _| {}).await.unwrap();
        assert_eq!(
            trace,
            vec!["llmCall", "toolExec", "llmCall", "formatResponse"]
        );
    }

    #[tokio::test]
    async fn adding_a_node_touches_only_the_wiring() {
        let mut trace = Vec::new();
        let graph = agent_shape()
            .node(Mark("audit"))
            .edge("toolExec", Edge::To("audit"))
            .edge("audit", Edge::To("llmCall"));
        let mut observed = Vec::new();
        graph
            .run(&mut trace, |step, _| observed.push(step.step))
            .await
            .unwrap();
        assert_eq!(
            trace,
            vec!["llmCall", "toolExec", "audit", "llmCall", "formatResponse"]
        );
        assert_eq!(observed, vec![1, 2, 3, 4, 5]);
    }

    #[tokio::test]
    async fn the_step_limit_stops_a_cycle() {
        let graph = Graph::new(3)
            .node(Mark("a"))
            .edge(START, Edge::To("a"))
            .edge("a", Edge::To("a"));
        let err = graph.run(&mut Vec::new(), |_, _| {}).await.unwrap_err();
        assert!(matches!(err, Stopped::StepLimit(3)));
    }
}
