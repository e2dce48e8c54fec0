//! Graph search answers as panel items: the documented hit shapes (drive
//! items, list items, sites, messages), their links (Outlook on the web's
//! for a message without one), titles and highlight-free summaries.

use serde::Deserialize;
use serde_json::Value;

use crate::contract::{M365Source, McpSuggestion};

/// Outlook on the web's link to a message by its id: the form of Graph's own
/// `webLink`, for a hit that comes without one.
const OUTLOOK_READ_LINK: &str = "https://outlook.office365.com/owa/?ItemID=";
#[derive(Deserialize)]
pub(super) struct SearchResponse {
    #[serde(default)]
    pub value: Vec<SearchResponseItem>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SearchResponseItem {
    #[serde(default)]
    pub hits_containers: Vec<HitsContainer>,
}

#[derive(Deserialize)]
pub(super) struct HitsContainer {
    #[serde(default)]
    pub hits: Vec<SearchHit>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SearchHit {
    /// For a message, its id (what `GET /me/messages/{id}` takes).
    #[serde(default)]
    hit_id: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    resource: Value,
}

/// Maps one hit; None for a hit with nothing to link to.
pub(super) fn map_hit(hit: SearchHit) -> Option<McpSuggestion> {
    let r = &hit.resource;
    let text = |key: &str| r.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let odata_type = text("@odata.type").unwrap_or_default();
    let summary = hit
        .summary
        .as_deref()
        .map(strip_highlights)
        .filter(|s| !s.is_empty());
    let (source, url, title, fallback_description) = if odata_type.ends_with("message") {
        let url = match text("webLink") {
            Some(link) => link.to_owned(),
            None => outlook_link(text("id").or(hit.hit_id.as_deref())?),
        };
        let title = text("subject").unwrap_or("(no subject)");
        (
            M365Source::Email,
            url,
            title.to_owned(),
            text("bodyPreview"),
        )
    } else {
        let url = text("webUrl")?.to_owned();
        let title = text("name")
            .map(str::to_owned)
            .or_else(|| {
                r.pointer("/fields/title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| title_from_url(&url));
        let source = if odata_type.ends_with("driveItem") && is_personal_site(&url) {
            M365Source::Onedrive
        } else {
            M365Source::Sharepoint
        };
        (source, url, title, None)
    };
    let description = summary
        .or_else(|| fallback_description.map(strip_highlights))
        .unwrap_or_default();
    Some(McpSuggestion {
        title: strip_highlights(&title),
        url,
        description,
        source_type: "m365".to_owned(),
        source,
        status: "available".to_owned(),
    })
}

/// Outlook on the web's link to the message with this id.
fn outlook_link(id: &str) -> String {
    let id = percent_encoding::utf8_percent_encode(id, percent_encoding::NON_ALPHANUMERIC);
    format!("{OUTLOOK_READ_LINK}{id}&exvsurl=1&viewmodel=ReadMessageItem")
}

/// A OneDrive for Business URL lives on the tenant's `-my.sharepoint.com` host.
fn is_personal_site(url: &str) -> bool {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.to_ascii_lowercase().ends_with("-my.sharepoint.com"))
        })
        .unwrap_or(false)
}

/// A readable title for hits without a name (list items, site pages): the
/// last path segment, decoded, without `.aspx`, dashes as spaces; a list
/// item's `12_.000` becomes "<list> item 12".
fn title_from_url(url: &str) -> String {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .trim_end_matches('/');
    let mut segments = path.rsplit('/').map(|s| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    });
    let last = segments.next().unwrap_or_default();
    if let Some(n) = last
        .strip_suffix("_.000")
        .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
    {
        let list = segments.next().unwrap_or_default();
        return format!("{list} item {n}");
    }
    let stem = last.strip_suffix(".aspx").unwrap_or(&last);
    stem.replace('-', " ")
}

/// Removes Graph's hit highlighting (`<c0>`…`</c0>`, `<c1>`, … one tag per
/// highlighted term, and `<ddd/>`) and collapses spaces.
pub fn strip_highlights(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        match highlight_tag_len(tail) {
            Some(len) => {
                if tail.starts_with("<ddd/>") {
                    out.push_str("… ");
                }
                rest = &tail[len..];
            }
            None => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The length of the highlight tag `s` starts with: `<ddd/>`, `<cN>` or `</cN>`.
fn highlight_tag_len(s: &str) -> Option<usize> {
    if s.starts_with("<ddd/>") {
        return Some("<ddd/>".len());
    }
    let after = s.strip_prefix("</c").or_else(|| s.strip_prefix("<c"))?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && after[digits..].starts_with('>')).then(|| s.len() - after.len() + digits + 1)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn highlight_markup_is_stripped() {
        assert_eq!(
            strip_highlights(
                "Set up <c0>CI</c0>/CD <ddd/> the <c1>pipeline</c1>  now <c12>x</c12> <code>"
            ),
            "Set up CI/CD … the pipeline now x <code>"
        );
        assert_eq!(strip_highlights("a < b"), "a < b");
    }

    #[test]
    fn drive_items_on_personal_sites_are_onedrive() {
        let hit = |url: &str, ty: &str| SearchHit {
            hit_id: None,
            summary: Some("s".into()),
            resource: json!({"@odata.type": ty, "name": "Doc.docx", "webUrl": url}),
        };
        let od = map_hit(hit(
            "https://contoso-my.sharepoint.com/personal/kim/Documents/Doc.docx",
            "#microsoft.graph.driveItem",
        ))
        .unwrap();
        assert_eq!(od.source, M365Source::Onedrive);
        let sp = map_hit(hit(
            "https://contoso.sharepoint.com/sites/dev/Doc.docx",
            "#microsoft.graph.driveItem",
        ))
        .unwrap();
        assert_eq!(sp.source, M365Source::Sharepoint);
        let li = map_hit(hit(
            "https://contoso-my.sharepoint.com/personal/kim/Lists/x/1_.000",
            "#microsoft.graph.listItem",
        ))
        .unwrap();
        assert_eq!(li.source, M365Source::Sharepoint);
    }

    #[test]
    fn untitled_hits_get_a_readable_title_from_their_url() {
        assert_eq!(
            title_from_url(
                "https://c.sharepoint.com/sites/dev/SitePages/Pipeline-request-form.aspx"
            ),
            "Pipeline request form"
        );
        assert_eq!(
            title_from_url("https://c.sharepoint.com/sites/dev/Lists/Requests/12_.000"),
            "Requests item 12"
        );
        assert_eq!(
            title_from_url("https://c.sharepoint.com/sites/dev/Shared%20Documents/a%20b.docx"),
            "a b.docx"
        );
    }

    #[test]
    fn messages_are_email_with_subject_and_weblink() {
        let m = map_hit(SearchHit {
            hit_id: Some("AAMkA=".into()),
            summary: None,
            resource: json!({"@odata.type": "#microsoft.graph.message", "subject": "Pipeline",
                "bodyPreview": "see <c0>CI</c0>", "webLink": "https://outlook.office365.com/owa/?ItemID=1"}),
        })
        .unwrap();
        assert_eq!(
            (
                m.source,
                m.title.as_str(),
                m.description.as_str(),
                m.url.as_str()
            ),
            (
                M365Source::Email,
                "Pipeline",
                "see CI",
                "https://outlook.office365.com/owa/?ItemID=1"
            )
        );
    }

    #[test]
    fn a_message_without_a_web_link_is_linked_by_its_id_and_one_without_either_is_none() {
        // Graph's documented message hit: subject, bodyPreview, from; no webLink.
        let message = |hit_id: Option<&str>| SearchHit {
            hit_id: hit_id.map(str::to_owned),
            summary: Some("<c0>Contoso</c0> all hands<ddd/>".into()),
            resource: json!({"@odata.type": "#microsoft.graph.message", "subject": "Meet the new Contoso CEO",
                "bodyPreview": "Welcome", "from": {"emailAddress": {"name": "Lee", "address": "lee@contoso.com"}}}),
        };
        let m = map_hit(message(Some("AAMkAGI2+/=="))).unwrap();
        assert_eq!(
            m.url,
            "https://outlook.office365.com/owa/?ItemID=AAMkAGI2%2B%2F%3D%3D&exvsurl=1&viewmodel=ReadMessageItem"
        );
        assert_eq!(m.description, "Contoso all hands…");
        assert!(map_hit(message(None)).is_none());
    }
}
