//! The findings as the model reads them: one line a result, in full the
//! first time and by ref after, a candidate read short and marked weak.

use super::{Collected, Findings};
use crate::{
    degraded::Source,
    tools::{
        output::{MAX_DESCRIPTION_CHARS, MAX_POST_CHARS},
        truncate,
    },
};

/// The mark of a candidate's row (see [`Collected::candidates`]).
const WEAK: &str = " | weak";

impl Findings {
    /// The newest replies of the most similar posts as the model reads
    /// them (`post ref | author | reply`); None when there are none.
    pub fn replies_text(&self) -> Option<String> {
        let c = self.lock();
        if c.replies.is_empty() {
            return None;
        }
        let mut text = String::from("post | author | reply");
        for reply in &c.replies {
            text.push_str(&format!(
                "\n{} | {} | {}",
                reply.post,
                one_line(&reply.author),
                reply.text
            ));
        }
        Some(text)
    }

    /// The results under `refs` as the model reads them, one line each
    /// (M365 `ref | source | title | description ≤ 200`, posts `ref |
    /// category | tags | text ≤ 300`): in full the first time, by ref alone
    /// after that, so nothing is sent to the model twice.
    pub fn text(&self, source: Source, refs: &[String]) -> String {
        let mut c = self.lock();
        let Collected {
            m365,
            posts,
            read,
            candidates,
            ..
        } = &mut *c;
        let mut text = String::from(match source {
            Source::M365 => "ref | source | title | description",
            _ => "ref | category | tags | text",
        });
        for r in refs {
            text.push('\n');
            text.push_str(r);
            if !read.insert(r.clone()) {
                text.push_str(" | (listed above)");
                continue;
            }
            // A candidate is read short — a document by its title, a post
            // in a third — enough to judge it by, and the whole reading
            // within 5 KB a view (set B's longer posts).
            let weak = candidates.contains(r);
            let cut = |max: usize| if weak { max / 3 } else { max };
            let description = |max: usize| if weak { 0 } else { max };
            let fields = match source {
                Source::M365 => m365.iter().find(|(x, _)| x == r).map(|(_, m)| {
                    [
                        m.source.as_str().to_owned(),
                        one_line(&m.title),
                        one_line(&truncate(
                            &m.description,
                            description(MAX_DESCRIPTION_CHARS),
                        )),
                    ]
                }),
                _ => posts.iter().find(|(x, _)| x == r).map(|(_, p)| {
                    [
                        p.category.as_str().to_owned(),
                        one_line(&p.tags.join(", ")),
                        one_line(&truncate(&p.text, cut(MAX_POST_CHARS))),
                    ]
                }),
            };
            for field in fields.iter().flatten() {
                text.push_str(" | ");
                text.push_str(field);
            }
            if weak {
                text.push_str(WEAK);
            }
        }
        text
    }
}

/// `s` on one line: runs of whitespace (newlines too) as one space.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
