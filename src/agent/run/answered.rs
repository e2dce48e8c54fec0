//! What an answered search call added to the run's findings: the refs of
//! its results, as the run remembers the call (memo) and the model reads it.

use super::findings::Findings;
use crate::degraded::Source;

/// What an answered call added to the run's findings.
#[derive(Debug, Clone)]
pub enum Answered {
    /// Microsoft 365 items, by their refs; `broadened` when the query found
    /// nothing and these match some of its terms.
    M365 { refs: Vec<String>, broadened: bool },
    /// Posts, by their refs.
    Posts(Vec<String>),
}

impl Answered {
    /// The refs of the results.
    pub fn refs(&self) -> &[String] {
        match self {
            Self::M365 { refs, .. } | Self::Posts(refs) => refs,
        }
    }

    /// The answer with only the results under `refs`, in that order.
    pub fn keeping(self, refs: &[String]) -> Self {
        let kept = |found: Vec<String>| -> Vec<String> {
            refs.iter().filter(|r| found.contains(r)).cloned().collect()
        };
        match self {
            Self::M365 {
                refs: found,
                broadened,
            } => Self::M365 {
                refs: kept(found),
                broadened,
            },
            Self::Posts(found) => Self::Posts(kept(found)),
        }
    }

    /// The results as the model reads them: M365 `{ref, title, source,
    /// description}`, posts `{ref, text, tags, category}`.
    pub fn for_model(&self, findings: &Findings) -> String {
        match self {
            Self::M365 { refs, broadened } => {
                let text = findings.text(Source::M365, refs);
                if *broadened {
                    format!("(nothing matched every word; these match some)\n{text}")
                } else {
                    text
                }
            }
            Self::Posts(refs) => findings.text(Source::Posts, refs),
        }
    }
}
