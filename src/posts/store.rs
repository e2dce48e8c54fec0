//! SQLite storage of the post index: one WAL database, posts as JSON with an
//! FTS5 (bm25) index of their text and tags, and their embedding when known.

use std::{
    path::Path,
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use rusqlite::{Connection, OptionalExtension, params};

use super::PostIndexError;
use crate::contract::PostSummary;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS posts (
    rowid       INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    body        TEXT NOT NULL,
    search_text TEXT NOT NULL,
    expires_at  INTEGER,
    embedding   BLOB
);
CREATE INDEX IF NOT EXISTS posts_expires_at ON posts(expires_at);
CREATE VIRTUAL TABLE IF NOT EXISTS posts_fts USING fts5(
    search_text, content='posts', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS posts_ai AFTER INSERT ON posts BEGIN
    INSERT INTO posts_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER IF NOT EXISTS posts_ad AFTER DELETE ON posts BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;
CREATE TRIGGER IF NOT EXISTS posts_au AFTER UPDATE OF search_text ON posts BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
    INSERT INTO posts_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
";

const READERS: usize = 4;

/// Lexical ranking scores the newest posts only: bm25 costs time per matching
/// post, and common words match most of a large index (B6: 117 ms at 100k).
/// Semantic ranking still covers every post.
const LEXICAL_WINDOW: i64 = 20_000;

/// (post id, expiry in unix ms, vector).
pub type StoredVector = (String, Option<i64>, Vec<f32>);
/// (post id, text to embed, expiry in unix ms).
pub type PendingPost = (String, String, Option<i64>);

/// A post as written: the summary plus what the index derives from it.
pub struct StoredPost {
    pub post: PostSummary,
    pub search_text: String,
    pub expires_at_ms: Option<i64>,
}

/// Blocking access to the database: one writer, a few readers (WAL lets them
/// read while the writer commits). Call from `spawn_blocking`.
pub struct Store {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl Store {
    pub fn open(path: &Path) -> Result<Self, PostIndexError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| PostIndexError::Open(e.to_string()))?;
        }
        let writer = Connection::open(path)?;
        // FULL: an acknowledged write is on disk before the response leaves.
        writer.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000;",
        )?;
        writer.execute_batch(SCHEMA)?;
        let readers = (0..READERS)
            .map(|_| {
                let c = Connection::open(path)?;
                c.execute_batch("PRAGMA busy_timeout=5000; PRAGMA query_only=1;")?;
                Ok(Mutex::new(c))
            })
            .collect::<Result<_, rusqlite::Error>>()?;
        Ok(Self {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
        })
    }

    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, PostIndexError> {
        let i = self.next_reader.fetch_add(1, Ordering::Relaxed) % self.readers.len();
        let conn = self.readers[i]
            .lock()
            .map_err(|_| PostIndexError::Poisoned)?;
        Ok(f(&conn)?)
    }

    fn write<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, PostIndexError> {
        let mut conn = self.writer.lock().map_err(|_| PostIndexError::Poisoned)?;
        Ok(f(&mut conn)?)
    }

    /// Inserts or replaces posts in one transaction; returns for each whether it was new.
    /// The stored vector is kept when the searchable text did not change.
    pub fn upsert(&self, posts: &[StoredPost]) -> Result<Vec<bool>, PostIndexError> {
        self.write(|conn| {
            let tx = conn.transaction()?;
            let mut created = Vec::with_capacity(posts.len());
            {
                let mut exists = tx.prepare_cached("SELECT 1 FROM posts WHERE id = ?1")?;
                let mut upsert = tx.prepare_cached(
                    "INSERT INTO posts (id, body, search_text, expires_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(id) DO UPDATE SET body = excluded.body,
                       expires_at = excluded.expires_at,
                       embedding = CASE WHEN posts.search_text = excluded.search_text
                                   THEN posts.embedding ELSE NULL END,
                       search_text = excluded.search_text",
                )?;
                for p in posts {
                    let is_new = !exists.exists(params![p.post.id])?;
                    let body = serde_json::to_string(&p.post).unwrap_or_default();
                    upsert.execute(params![p.post.id, body, p.search_text, p.expires_at_ms])?;
                    created.push(is_new);
                }
            }
            tx.commit()?;
            Ok(created)
        })
    }

    /// Deletes a post; true when it existed.
    pub fn delete(&self, id: &str) -> Result<bool, PostIndexError> {
        self.write(|c| Ok(c.execute("DELETE FROM posts WHERE id = ?1", params![id])? > 0))
    }

    /// Deletes posts expired at `now_ms`; returns their ids.
    pub fn purge_expired(&self, now_ms: i64) -> Result<Vec<String>, PostIndexError> {
        self.write(|c| {
            let mut stmt = c.prepare(
                "DELETE FROM posts WHERE expires_at IS NOT NULL AND expires_at <= ?1 RETURNING id",
            )?;
            stmt.query_map(params![now_ms], |r| r.get(0))?.collect()
        })
    }

    /// Posts by id, live at `now_ms`, in the order asked.
    pub fn get_many(
        &self,
        ids: &[String],
        now_ms: i64,
    ) -> Result<Vec<PostSummary>, PostIndexError> {
        self.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT body FROM posts WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
            )?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                let body: Option<String> = stmt
                    .query_row(params![id, now_ms], |r| r.get(0))
                    .optional()?;
                if let Some(post) = body.and_then(|b| serde_json::from_str(&b).ok()) {
                    out.push(post);
                }
            }
            Ok(out)
        })
    }

    /// Ids of live posts matching an FTS5 query, best bm25 first.
    pub fn lexical(
        &self,
        fts_query: &str,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<String>, PostIndexError> {
        self.read(|c| {
            let mut stmt = c.prepare_cached(
                // Rank inside FTS5 first (`rank` is bm25), then look up only the
                // best rows; expired rows among them are dropped (purging keeps
                // them rare).
                "SELECT p.id FROM (SELECT rowid, rank FROM posts_fts WHERE posts_fts MATCH ?1
                                   AND rowid > (SELECT coalesce(max(rowid), 0) FROM posts) - ?4
                                   ORDER BY rank LIMIT ?3) AS hit
                 JOIN posts p ON p.rowid = hit.rowid
                 WHERE p.expires_at IS NULL OR p.expires_at > ?2
                 ORDER BY hit.rank",
            )?;
            stmt.query_map(
                params![fts_query, now_ms, limit as i64, LEXICAL_WINDOW],
                |r| r.get(0),
            )?
            .collect()
        })
    }

    /// Every stored vector with its post's expiry (loaded once at start-up).
    pub fn vectors(&self) -> Result<Vec<StoredVector>, PostIndexError> {
        self.read(|c| {
            let mut stmt = c.prepare(
                "SELECT id, expires_at, embedding FROM posts WHERE embedding IS NOT NULL",
            )?;
            stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, decode(&r.get::<_, Vec<u8>>(2)?)))
            })?
            .collect()
        })
    }

    /// Up to `limit` posts still waiting for a vector: (id, text to embed, expiry).
    pub fn pending_embeddings(&self, limit: usize) -> Result<Vec<PendingPost>, PostIndexError> {
        self.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT id, search_text, expires_at FROM posts WHERE embedding IS NULL LIMIT ?1",
            )?;
            stmt.query_map(params![limit as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect()
        })
    }

    /// Stores a vector, unless the post's text changed since it was read.
    pub fn set_embedding(
        &self,
        id: &str,
        search_text: &str,
        vector: &[f32],
    ) -> Result<bool, PostIndexError> {
        let blob: Vec<u8> = vector.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.write(|c| {
            Ok(c.execute(
                "UPDATE posts SET embedding = ?3 WHERE id = ?1 AND search_text = ?2",
                params![id, search_text, blob],
            )? > 0)
        })
    }
}

fn decode(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
