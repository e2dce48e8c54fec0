//! The one context of a run that its nodes, its tool calls and the direct
//! searches borrow.

use super::{Run, RunInput};
use crate::{
    llm::{ChatModel, chat::ToolSpec},
    posts::PostIndex,
    tools::connection::McpConnection,
};

/// The one context of a run that its nodes, its tool calls and the
/// direct searches borrow: the request, where tool calls go, the run they
/// write (its deadline, budget and events), and what the model is offered.
#[derive(Clone, Copy)]
pub struct RunCtx<'a> {
    /// What the request asks for.
    pub input: &'a RunInput,
    /// The post index (the words' specificity, the local model's relatedness).
    pub posts: &'a PostIndex,
    /// What the board knows: the documents shared on posts, their replies.
    pub board: &'a crate::board::Board,
    pub conn: &'a McpConnection,
    /// The id the run's caller is registered under on the connection.
    pub session: &'a str,
    /// The run: findings, rounds, selection, reasons, Graph budget.
    pub run: &'a Run,
    pub llm: &'a dyn ChatModel,
    /// The tools offered to the model.
    pub tools: &'a [ToolSpec],
    pub max_tool_calls: usize,
    /// The service is overloaded (brownout): no CPU on new texts' vectors.
    pub brownout: bool,
}

impl<'a> RunCtx<'a> {
    /// The post's keywords as the board spells them
    /// ([`PostIndex::keywords`]), worked out once a run: the Microsoft 365
    /// query and the ranking of every search's hits share them.
    pub fn keywords(&self) -> &'a [String] {
        &self.keywords_weighed().0
    }

    /// How specific `word` is among the posts ([`PostIndex::specificity`]),
    /// worked out once a run for each of [`Self::keywords`].
    pub fn specificity(&self, word: &str) -> f32 {
        let (words, specificity) = self.keywords_weighed();
        match words.iter().position(|w| w == word) {
            Some(i) => specificity[i],
            None => self.posts.specificity(word),
        }
    }

    fn keywords_weighed(&self) -> &'a (Vec<String>, Vec<f32>) {
        let (input, posts) = (self.input, self.posts);
        self.run.keywords.get_or_init(|| {
            let words = posts.keywords(&input.text, &input.tags);
            let specificity = words.iter().map(|w| posts.specificity(w)).collect();
            (words, specificity)
        })
    }
}
