//! Posts stored before ingestion enforced the LinkUp contract: their bodies
//! may hold `null` or unknown values where `PostSummary` now has a value.
//! Completed once, when the store opens (SQLite `user_version` 0 → 1).

use rusqlite::{Connection, params};
use serde_json::{Map, Value};

use crate::contract::{PostCategory, PostMode};

/// `user_version` once every stored body is a complete `PostSummary`.
const COMPLETE: i64 = 1;
/// `expiresAt` of a legacy post stored without one: it never expired before,
/// and still does not.
pub const NEVER_EXPIRES: &str = "9999-12-31T23:59:59Z";

/// Completes every legacy body in one transaction; returns how many changed.
pub fn complete_stored_posts(conn: &mut Connection) -> rusqlite::Result<usize> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version >= COMPLETE {
        return Ok(0);
    }
    let tx = conn.transaction()?;
    let mut changed = 0;
    {
        let mut select = tx.prepare("SELECT id, body FROM posts")?;
        let mut update = tx.prepare("UPDATE posts SET body = ?2 WHERE id = ?1")?;
        let rows = select
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for (id, body) in rows {
            if let Some(completed) = complete(&body) {
                update.execute(params![id, completed])?;
                changed += 1;
            }
        }
    }
    tx.execute_batch(&format!("PRAGMA user_version = {COMPLETE}"))?;
    tx.commit()?;
    Ok(changed)
}

/// The body with contract defaults where it had none (the LinkUp app's own
/// for `category`), or None when it needs nothing.
fn complete(body: &str) -> Option<String> {
    let mut value: Value = serde_json::from_str(body).ok()?;
    let post = value.as_object_mut()?;
    let mut changed = false;
    changed |= default_unless::<PostCategory>(post, "category", PostCategory::Discussion);
    changed |= default_unless::<PostMode>(post, "mode", PostMode::Online);
    let expires_ok = post
        .get("expiresAt")
        .and_then(Value::as_str)
        .is_some_and(|e| super::parse_time_ms(e).is_some());
    if !expires_ok {
        post.insert("expiresAt".into(), NEVER_EXPIRES.into());
        changed = true;
    }
    changed.then(|| value.to_string())
}

/// Sets `key` to `default` unless it holds a valid `T`; true when it did.
fn default_unless<T>(post: &mut Map<String, Value>, key: &str, default: T) -> bool
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let valid = post
        .get(key)
        .is_some_and(|v| serde_json::from_value::<T>(v.clone()).is_ok());
    if valid {
        return false;
    }
    post.insert(
        key.to_owned(),
        serde_json::to_value(default).unwrap_or(Value::Null),
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::PostSummary;

    #[test]
    fn legacy_nulls_get_the_contract_defaults() {
        let legacy = r#"{"id":"p1","authorId":"u","authorName":"Kim","text":"t","tags":[],
            "lat":1.0,"lng":2.0,"mode":"bar","category":null,"createdAt":"2026-01-01T00:00:00Z",
            "expiresAt":null,"interestedCount":0,"joinCount":0}"#;
        let post: PostSummary = serde_json::from_str(&complete(legacy).unwrap()).unwrap();
        assert_eq!(post.category, PostCategory::Discussion);
        assert_eq!(post.mode, PostMode::Online);
        assert_eq!(post.expires_at, NEVER_EXPIRES);
    }

    #[test]
    fn complete_bodies_are_left_alone() {
        let body =
            r#"{"id":"p1","mode":"both","category":"meetup","expiresAt":"2099-01-01T00:00:00Z"}"#;
        assert_eq!(complete(body), None);
    }

    #[test]
    fn a_database_with_legacy_rows_is_completed_once() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE posts (id TEXT, body TEXT)")
            .unwrap();
        conn.execute(
            "INSERT INTO posts VALUES ('a', ?1), ('b', ?2)",
            params![
                r#"{"id":"a","category":null,"expiresAt":null}"#,
                r#"{"id":"b","mode":"both","category":"help","expiresAt":"2099-01-01T00:00:00Z"}"#
            ],
        )
        .unwrap();
        assert_eq!(complete_stored_posts(&mut conn).unwrap(), 1);
        assert_eq!(complete_stored_posts(&mut conn).unwrap(), 0);
    }
}
