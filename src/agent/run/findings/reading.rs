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
/// A candidate post's text as read: a third of an English row's.
const WEAK_POST_BYTES: usize = MAX_POST_CHARS / 3;

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
            // in a third of a row's bytes (a Korean line costs what an
            // English one does) — enough to judge it by, and the whole
            // reading within 5 KiB a view (set B's longer posts).
            let weak = candidates.contains(r);
            let post_text = |p: &str| match weak {
                true => within_bytes(p, WEAK_POST_BYTES),
                false => truncate(p, MAX_POST_CHARS),
            };
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
                        one_line(&post_text(&p.text)),
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

/// The longest start of `s` within `max` bytes (whole characters), with an
/// ellipsis when cut.
fn within_bytes(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let end = s
        .char_indices()
        .map(|(i, c)| i + c.len_utf8())
        .take_while(|&end| end <= max)
        .last()
        .unwrap_or(0);
    format!("{}…", &s[..end])
}

/// `s` on one line: runs of whitespace (newlines too) as one space.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::PostSummary;

    #[test]
    fn a_weak_post_is_read_in_a_third_of_a_rows_bytes_in_any_language_and_a_related_one_in_full() {
        let english =
            "My laptop fan runs loud all day since the last update, even when idle. ".repeat(5);
        let korean = "업데이트 이후로 노트북 팬이 하루 종일 시끄럽게 돌아가요. ".repeat(10);
        let findings = Findings::default();
        let refs = findings.add_posts(
            vec![
                PostSummary::example("p-en", &english),
                PostSummary::example("p-ko", &korean),
                PostSummary::example("p-full", &korean),
            ],
            &[false, false, true],
        );
        let text = findings.text(Source::Posts, &refs);
        let rows: Vec<&str> = text.lines().skip(1).collect();
        let read = |row: &str| row.split(" | ").nth(3).unwrap_or_default().to_owned();
        for row in &rows[..2] {
            assert!(row.ends_with(WEAK), "{row}");
            let cut = read(row);
            let cut = cut.trim_end_matches('…');
            assert!(
                (WEAK_POST_BYTES - 3..=WEAK_POST_BYTES).contains(&cut.len()),
                "{} bytes: {row}",
                cut.len()
            );
        }
        assert_eq!(
            read(rows[2]).chars().count(),
            MAX_POST_CHARS + 1,
            "a related post is read to its 300 characters: {}",
            rows[2]
        );
    }
}
