//! Input rules of DESIGN §2, each failure naming its field.

use super::error::ApiError;
use crate::{
    contract::{
        PostInput, PostSummary, Reply, ReplyInput, SharedDocument, SharedDocumentInput,
        SuggestionsRequest,
    },
    posts::parse_time_ms,
};

pub const MAX_TEXT_CHARS: usize = 10_000;
const MAX_ID_CHARS: usize = 128;
const MAX_TAGS: usize = 20;
const MAX_TAG_CHARS: usize = 50;
const MAX_SHORT_CHARS: usize = 200;

/// Checks a post id: 1–128 chars of `[A-Za-z0-9._:-]`.
pub fn post_id(field: &str, id: &str) -> Result<(), ApiError> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-');
    if id.is_empty() || id.len() > MAX_ID_CHARS || !id.chars().all(ok_char) {
        return Err(ApiError::invalid(
            field,
            "must be 1-128 characters of A-Z, a-z, 0-9, '.', '_', ':', '-'",
        ));
    }
    Ok(())
}

/// The trimmed text, 1–10,000 chars.
fn text(field: &str, text: &str) -> Result<String, ApiError> {
    bounded(field, text, MAX_TEXT_CHARS)
}

fn tags(tags: &[String]) -> Result<(), ApiError> {
    if tags.len() > MAX_TAGS {
        return Err(ApiError::invalid(
            "tags",
            format!("at most {MAX_TAGS} tags"),
        ));
    }
    if let Some(i) = tags.iter().position(|t| t.chars().count() > MAX_TAG_CHARS) {
        return Err(ApiError::invalid(
            &format!("tags[{i}]"),
            format!("a tag is at most {MAX_TAG_CHARS} characters"),
        ));
    }
    Ok(())
}

fn short(field: &str, value: &str) -> Result<(), ApiError> {
    if value.chars().count() > MAX_SHORT_CHARS {
        return Err(ApiError::invalid(
            field,
            format!("{field} must be at most {MAX_SHORT_CHARS} characters"),
        ));
    }
    Ok(())
}

/// A finite coordinate within ±`bound` degrees.
fn coordinate(field: &str, value: f64, bound: f64) -> Result<(), ApiError> {
    if value.is_finite() && (-bound..=bound).contains(&value) {
        Ok(())
    } else {
        Err(ApiError::invalid(
            field,
            format!("{field} must be a number between -{bound} and {bound}"),
        ))
    }
}

/// Validates a suggestions request; returns it with its text trimmed.
pub fn suggestions(mut req: SuggestionsRequest) -> Result<SuggestionsRequest, ApiError> {
    post_id("postId", &req.post_id)?;
    req.text = text("text", &req.text)?;
    tags(&req.tags)?;
    if let Some(c) = &req.category {
        short("category", c)?;
    }
    Ok(req)
}

/// Validates an ingested post (`prefix` names its place in a batch).
pub fn post(id: &str, input: PostInput, prefix: &str) -> Result<PostSummary, ApiError> {
    let f = |name: &str| format!("{prefix}{name}");
    post_id(&f("id"), id)?;
    if input.id.as_deref().is_some_and(|body_id| body_id != id) {
        return Err(ApiError::invalid(
            &f("id"),
            "id in the body differs from the id in the path",
        ));
    }
    let text = text(&f("text"), &input.text)?;
    tags(&input.tags)
        .map_err(|_| ApiError::invalid(&f("tags"), "at most 20 tags of at most 50 characters"))?;
    for (name, value) in [
        ("authorId", &input.author_id),
        ("authorName", &input.author_name),
    ] {
        short(&f(name), value)?;
    }
    if input.author_id.is_empty() {
        return Err(ApiError::invalid(
            &f("authorId"),
            "authorId must not be empty",
        ));
    }
    coordinate(&f("lat"), input.lat, 90.0)?;
    coordinate(&f("lng"), input.lng, 180.0)?;
    for (name, value) in [
        ("createdAt", &input.created_at),
        ("expiresAt", &input.expires_at),
    ] {
        if parse_time_ms(value).is_none() {
            return Err(ApiError::invalid(
                &f(name),
                format!("{name} must be an RFC 3339 timestamp"),
            ));
        }
    }
    Ok(PostSummary {
        id: id.to_owned(),
        author_id: input.author_id,
        author_name: input.author_name,
        text,
        tags: input.tags,
        lat: input.lat,
        lng: input.lng,
        mode: input.mode,
        category: input.category,
        created_at: input.created_at,
        expires_at: input.expires_at,
        interested_count: input.interested_count,
        join_count: input.join_count,
    })
}

/// Most characters of a shared document's title or a reply's text.
const MAX_BOARD_CHARS: usize = 500;
/// Most characters of a shared document's URL.
const MAX_URL_CHARS: usize = 4_096;

/// `value` trimmed, 1–`max` characters.
fn bounded(field: &str, value: &str, max: usize) -> Result<String, ApiError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ApiError::invalid(
            field,
            format!("{field} must not be empty"),
        ));
    }
    if trimmed.chars().count() > max {
        return Err(ApiError::invalid(
            field,
            format!("{field} must be at most {max} characters"),
        ));
    }
    Ok(trimmed.to_owned())
}

/// The ids of the path, and the body's own when it repeats them.
fn board_ids(
    (post_id, id_field, id): (&str, &str, &str),
    body_post: Option<&str>,
    body_id: Option<&str>,
) -> Result<(), ApiError> {
    self::post_id("postId", post_id)?;
    self::post_id(id_field, id)?;
    if body_post.is_some_and(|b| b != post_id) {
        return Err(ApiError::invalid(
            "postId",
            "postId in the body differs from the post id in the path",
        ));
    }
    if body_id.is_some_and(|b| b != id) {
        return Err(ApiError::invalid(
            "id",
            "id in the body differs from the id in the path",
        ));
    }
    Ok(())
}

fn created_at(value: &str) -> Result<(), ApiError> {
    match parse_time_ms(value) {
        Some(_) => Ok(()),
        None => Err(ApiError::invalid(
            "createdAt",
            "createdAt must be an RFC 3339 timestamp",
        )),
    }
}

/// Validates a document shared on a post (LinkUp's `SharedDocument`).
pub fn shared_document(
    post_id: &str,
    doc_id: &str,
    input: SharedDocumentInput,
) -> Result<SharedDocument, ApiError> {
    board_ids(
        (post_id, "docId", doc_id),
        input.post_id.as_deref(),
        input.id.as_deref(),
    )?;
    let sharer_id = bounded("sharerId", &input.sharer_id, MAX_SHORT_CHARS)?;
    let sharer_name = bounded("sharerName", &input.sharer_name, MAX_SHORT_CHARS)?;
    let title = bounded("title", &input.title, MAX_BOARD_CHARS)?;
    let url = bounded("url", &input.url, MAX_URL_CHARS)?;
    created_at(&input.created_at)?;
    Ok(SharedDocument {
        id: doc_id.to_owned(),
        post_id: post_id.to_owned(),
        sharer_id,
        sharer_name,
        title,
        url,
        source_type: input.source_type,
        created_at: input.created_at,
    })
}

/// Validates a reply to a post (LinkUp's `Reply`).
pub fn reply(post_id: &str, reply_id: &str, input: ReplyInput) -> Result<Reply, ApiError> {
    board_ids(
        (post_id, "replyId", reply_id),
        input.post_id.as_deref(),
        input.id.as_deref(),
    )?;
    let author_id = bounded("authorId", &input.author_id, MAX_SHORT_CHARS)?;
    let author_name = bounded("authorName", &input.author_name, MAX_SHORT_CHARS)?;
    let text = bounded("text", &input.text, MAX_BOARD_CHARS)?;
    created_at(&input.created_at)?;
    Ok(Reply {
        id: reply_id.to_owned(),
        post_id: post_id.to_owned(),
        author_id,
        author_name,
        text,
        created_at: input.created_at,
    })
}
