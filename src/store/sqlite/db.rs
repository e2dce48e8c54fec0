//! The SQLite database itself: its schema, one writer and a few readers,
//! and the posts' reads and writes (blocking; the [`Store`](super::Store)
//! runs them on blocking threads).

use std::{
    path::Path,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use rusqlite::{Connection, OptionalExtension, params};

use crate::{
    contract::PostSummary,
    store::{
        Index, Knowledge, OpenError, PendingPost, StoreError, StoredPost,
        records::{decode, encode},
    },
};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS posts (
    rowid       INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    body        TEXT NOT NULL,
    search_text TEXT NOT NULL,
    expires_at  INTEGER,
    embedding   BLOB,
    -- The model that computed the embedding (see `Index::vector_model`).
    embedding_model TEXT
);
CREATE INDEX IF NOT EXISTS posts_expires_at ON posts(expires_at);
-- The embedding backlog: found without scanning the embedded posts.
CREATE INDEX IF NOT EXISTS posts_unembedded ON posts(rowid) WHERE embedding IS NULL;
-- Run records (GET /api/runs/{runId}): JSON, kept until keep_until (unix ms).
CREATE TABLE IF NOT EXISTS runs (
    seq        INTEGER PRIMARY KEY,
    run_id     TEXT NOT NULL UNIQUE,
    keep_until INTEGER NOT NULL,
    record     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_keep_until ON runs(keep_until);
DROP TRIGGER IF EXISTS posts_ai;
DROP TRIGGER IF EXISTS posts_ad;
DROP TRIGGER IF EXISTS posts_au;
DROP TABLE IF EXISTS posts_fts;
";

const READERS: usize = 4;

/// The writer's page cache, KiB (SQLite's default is 2,000): it writes run
/// records and posts and reads back little but the trees' upper pages, so a
/// full cache only held pages written once (B14: +1.7 MB resident after a
/// burst of 15,000 run records).
const WRITER_CACHE_KIB: u32 = 256;

/// Blocking access to the database: one writer, a few readers (WAL lets them
/// read while the writer commits). Call from a blocking thread ([`blocking`]).
pub struct Db {
    pub(super) writer: Mutex<Connection>,
    pub(super) readers: Vec<Mutex<Connection>>,
    pub(super) next_reader: AtomicUsize,
    index: Arc<dyn Index>,
    /// The index's vector model: the only vectors kept.
    model: Option<String>,
}

impl Db {
    /// Opens (or creates) the database at `path` and loads every post into `index`.
    pub fn open(path: &Path, index: Arc<dyn Index>) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| OpenError::CreateDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        let mut writer = Connection::open(path)?;
        // FULL: an acknowledged write is on disk before the response leaves.
        writer.execute_batch(&format!(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000; \
             PRAGMA cache_size=-{WRITER_CACHE_KIB};"
        ))?;
        writer.execute_batch(SCHEMA)?;
        let model = index.vector_model();
        super::models::adopt_vectors(&writer, model.as_deref())?;
        super::knowledge::add_column(&writer)?;
        let completed = crate::store::legacy::complete_stored_posts(&mut writer)?;
        if completed > 0 {
            tracing::info!(
                posts = completed,
                "legacy posts completed to the LinkUp contract"
            );
        }
        let readers = (0..READERS)
            .map(|_| {
                let c = Connection::open(path)?;
                c.execute_batch("PRAGMA busy_timeout=5000; PRAGMA query_only=1;")?;
                Ok(Mutex::new(c))
            })
            .collect::<Result<_, rusqlite::Error>>()?;
        let mut load = index.clone().loader();
        {
            let mut stmt = writer.prepare(
                "SELECT id, search_text, expires_at,
                        CASE WHEN embedding_model = ?1 THEN embedding END, knowledge
                 FROM posts",
            )?;
            let mut rows = stmt.query(params![model])?;
            while let Some(r) = rows.next()? {
                let (id, text, expires): (String, String, Option<i64>) =
                    (r.get(0)?, r.get(1)?, r.get(2)?);
                let vector = r.get::<_, Option<Vec<u8>>>(3)?.as_deref().map(decode);
                load.insert(&id, &text, expires, vector);
                let knowledge = r.get::<_, Option<String>>(4)?;
                load.knowledge(&id, expires, Knowledge::from_column(knowledge.as_deref()));
            }
        }
        load.install();
        Ok(Self {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            index,
            model,
        })
    }

    /// `post`'s vector, unless another model than the index's computed it.
    pub(super) fn kept_vector<'a>(&self, post: &'a StoredPost) -> Option<&'a Vec<f32>> {
        let ours = self.model.is_none() || post.vector_model == self.model;
        post.vector.as_ref().filter(|_| ours)
    }

    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let i = self.next_reader.fetch_add(1, Ordering::Relaxed) % self.readers.len();
        let conn = self.readers[i].lock().map_err(|_| StoreError::Poisoned)?;
        Ok(f(&conn)?)
    }

    pub(super) fn write<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let mut conn = self.writer.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(f(&mut conn)?)
    }

    /// `write`, then `index` brings the index up to date with what was
    /// committed, before the writer is released: memory follows commit order.
    pub(super) fn write_indexed<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
        index: impl FnOnce(&dyn Index, &T),
    ) -> Result<T, StoreError> {
        let mut conn = self.writer.lock().map_err(|_| StoreError::Poisoned)?;
        let out = f(&mut conn)?;
        index(&*self.index, &out);
        Ok(out)
    }

    /// Deletes a post; true when it existed.
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.write_indexed(
            |c| Ok(c.execute("DELETE FROM posts WHERE id = ?1", params![id])? > 0),
            |index, _| index.remove(&[id]),
        )
    }

    /// Deletes posts expired at `now_ms`; returns their ids.
    pub fn purge_expired(&self, now_ms: i64) -> Result<Vec<String>, StoreError> {
        self.write_indexed(
            |c| {
                let mut stmt = c.prepare(
                    "DELETE FROM posts WHERE expires_at IS NOT NULL AND expires_at <= ?1 RETURNING id",
                )?;
                stmt.query_map(params![now_ms], |r| r.get(0))?.collect()
            },
            |index, ids: &Vec<String>| {
                index.remove(&ids.iter().map(String::as_str).collect::<Vec<_>>())
            },
        )
    }

    /// Posts by id, live at `now_ms`, in the order asked.
    pub fn get_many(&self, ids: &[String], now_ms: i64) -> Result<Vec<PostSummary>, StoreError> {
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

    /// Up to `limit` stored posts after `after` (a rowid; 0 = from the
    /// start), with their vectors, in storage order; and the last rowid.
    pub fn export(&self, after: i64, limit: usize) -> Result<(Vec<StoredPost>, i64), StoreError> {
        self.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT rowid, body, search_text, expires_at, embedding, embedding_model, knowledge
                 FROM posts WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            )?;
            let mut rows = stmt.query(params![after, limit as i64])?;
            let (mut out, mut last) = (Vec::new(), after);
            while let Some(r) = rows.next()? {
                last = r.get(0)?;
                let Ok(post) = serde_json::from_str::<PostSummary>(&r.get::<_, String>(1)?) else {
                    continue;
                };
                out.push(StoredPost {
                    post,
                    search_text: r.get(2)?,
                    expires_at_ms: r.get(3)?,
                    vector: r.get::<_, Option<Vec<u8>>>(4)?.as_deref().map(decode),
                    vector_model: r.get(5)?,
                    knowledge: r
                        .get::<_, Option<String>>(6)?
                        .map(|k| Knowledge::from_column(Some(&k))),
                });
            }
            Ok((out, last))
        })
    }

    /// Up to `limit` posts still waiting for a vector: (id, text to embed, expiry).
    pub fn pending_embeddings(&self, limit: usize) -> Result<Vec<PendingPost>, StoreError> {
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

    /// Stores vectors in one transaction, each unless its post's text changed
    /// since it was read (then in the index); returns how many were stored.
    pub fn set_embeddings(&self, items: Vec<(PendingPost, Vec<f32>)>) -> Result<usize, StoreError> {
        let stored: Vec<bool> = self.write_indexed(
            |c| {
                let tx = c.transaction()?;
                let stored = {
                    let mut update = tx.prepare_cached(
                        "UPDATE posts SET embedding = ?3, embedding_model = ?4
                         WHERE id = ?1 AND search_text = ?2",
                    )?;
                    items
                        .iter()
                        .map(|((id, search_text, _), vector)| {
                            let row = params![id, search_text, encode(vector), self.model];
                            Ok(update.execute(row)? > 0)
                        })
                        .collect::<rusqlite::Result<Vec<bool>>>()?
                };
                tx.commit()?;
                Ok(stored)
            },
            |index, stored| {
                for (((id, text, expires), vector), _) in
                    items.iter().zip(stored).filter(|(_, stored)| **stored)
                {
                    index.set_vector(id.clone(), text, *expires, vector.clone());
                }
            },
        )?;
        let done = stored.into_iter().filter(|s| *s).count();
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::store::{Loader, StoredRun, Vector};

    /// An index that remembers which posts it holds and which have a
    /// vector, ranking by the model it names.
    #[derive(Default)]
    struct Held(Mutex<HashMap<String, bool>>, Option<String>);

    impl Held {
        fn counts(&self) -> (usize, usize) {
            let held = self.0.lock().unwrap();
            (held.len(), held.values().filter(|v| **v).count())
        }
    }

    impl Index for Held {
        fn loader(self: Arc<Self>) -> Box<dyn Loader> {
            Box::new(Fill(self))
        }
        fn index(&self, id: &str, _: &str, _: Option<i64>, vector: Vector) {
            let mut held = self.0.lock().unwrap();
            let had = held.get(id).copied().unwrap_or(false);
            let has = match vector {
                Vector::Keep => had,
                Vector::Set(_) => true,
                Vector::Drop => false,
            };
            held.insert(id.to_owned(), has);
        }
        fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
            self.index(id, text, expires_at_ms, vector);
        }
        fn set_vector(&self, id: String, _: &str, _: Option<i64>, _: Vec<f32>) {
            self.0.lock().unwrap().insert(id, true);
        }
        fn remove(&self, ids: &[&str]) {
            let mut held = self.0.lock().unwrap();
            ids.iter().for_each(|id| {
                held.remove(*id);
            });
        }
        fn posts(&self) -> usize {
            self.0.lock().unwrap().len()
        }
        fn set_knowledge(&self, _: &str, _: Option<i64>, _: Knowledge) {}

        fn vector_model(&self) -> Option<String> {
            self.1.clone()
        }
    }

    /// Loads straight into the index.
    struct Fill(Arc<Held>);

    impl Loader for Fill {
        fn insert(&mut self, id: &str, _: &str, _: Option<i64>, vector: Option<Vec<f32>>) {
            self.0
                .0
                .lock()
                .unwrap()
                .insert(id.to_owned(), vector.is_some());
        }
        fn knowledge(&mut self, _: &str, _: Option<i64>, _: Knowledge) {}
        fn install(self: Box<Self>) {}
    }

    fn open(dir: &tempfile::TempDir) -> (Db, Arc<Held>) {
        open_with(dir, "model-a")
    }

    fn open_with(dir: &tempfile::TempDir, model: &str) -> (Db, Arc<Held>) {
        let held = Arc::new(Held(Mutex::default(), Some(model.to_owned())));
        let db = Db::open(&dir.path().join("posts.db"), held.clone()).unwrap();
        (db, held)
    }

    #[test]
    fn a_change_of_model_drops_its_vectors_and_embeds_the_posts_again() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (store, held) = open_with(&dir, "model-a");
            store
                .upsert(&[stored("a", "first text"), stored("b", "other post")])
                .unwrap();
            let pending = store.pending_embeddings(10).unwrap();
            store
                .set_embeddings(pending.into_iter().map(|p| (p, vec![1.0, 0.0])).collect())
                .unwrap();
            assert_eq!(held.counts(), (2, 2));
        }
        // Reopened with the same model: loaded, nothing to embed.
        {
            let (store, held) = open_with(&dir, "model-a");
            assert_eq!(held.counts(), (2, 2));
            assert!(store.pending_embeddings(10).unwrap().is_empty());
        }
        // Another model: none of model-a's vectors is loaded, both posts wait.
        let (store, held) = open_with(&dir, "model-b");
        assert_eq!(held.counts(), (2, 0));
        assert_eq!(store.pending_embeddings(10).unwrap().len(), 2);
        // A migrated vector of another model is not kept either.
        let mut migrated = stored("c", "third");
        migrated.vector = Some(vec![0.0, 1.0]);
        migrated.vector_model = Some("model-a".into());
        store.upsert(&[migrated]).unwrap();
        assert_eq!(held.counts(), (3, 0));
        assert_eq!(store.pending_embeddings(10).unwrap().len(), 3);
    }

    #[test]
    fn vectors_stored_before_model_ids_are_adopted_by_an_azure_deployment_only() {
        for (model, loaded) in [("azure:embed-small", 1), ("multilingual-e5", 0)] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("posts.db");
            let old = Connection::open(&path).unwrap();
            old.execute_batch(
                "CREATE TABLE posts (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
                   body TEXT NOT NULL, search_text TEXT NOT NULL, expires_at INTEGER, embedding BLOB);",
            )
            .unwrap();
            let body = serde_json::to_string(&PostSummary::example("a", "vpn drops")).unwrap();
            old.execute(
                "INSERT INTO posts (id, body, search_text, embedding) VALUES ('a', ?1, 'vpn drops', ?2)",
                params![body, encode(&[1.0, 0.0])],
            )
            .unwrap();
            drop(old);
            let (store, held) = open_with(&dir, model);
            assert_eq!(held.counts(), (1, loaded), "{model}");
            assert_eq!(
                store.pending_embeddings(10).unwrap().len(),
                1 - loaded,
                "{model}"
            );
        }
    }

    fn stored(id: &str, text: &str) -> StoredPost {
        StoredPost {
            post: PostSummary::example(id, text),
            search_text: text.into(),
            expires_at_ms: None,
            vector: None,
            vector_model: None,
            knowledge: None,
        }
    }

    #[test]
    fn a_vector_computed_for_an_older_text_is_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let (store, held) = open(&dir);
        store
            .upsert(&[stored("a", "first text"), stored("b", "other post")])
            .unwrap();
        let pending = store.pending_embeddings(10).unwrap();
        assert_eq!(pending.len(), 2);
        // "a" is edited after its text was read for embedding.
        store.upsert(&[stored("a", "edited text")]).unwrap();

        let v = vec![0.5_f32; 4];
        let done = store
            .set_embeddings(pending.into_iter().map(|p| (p, v.clone())).collect())
            .unwrap();
        assert_eq!(done, 1, "only b's text is unchanged");
        let still: Vec<String> = store
            .pending_embeddings(10)
            .unwrap()
            .into_iter()
            .map(|(id, text, _)| format!("{id}:{text}"))
            .collect();
        assert_eq!(still, vec!["a:edited text"]);
        assert_eq!(held.counts(), (2, 1), "b alone has a vector");
        // Editing b's text drops its vector, in the database and in memory.
        store.upsert(&[stored("b", "other post, edited")]).unwrap();
        assert_eq!(held.counts(), (2, 0));
        assert_eq!(store.pending_embeddings(10).unwrap().len(), 2);
    }

    /// Bytes of page cache the connection holds (SQLite's own count).
    fn cache_used(c: &Connection) -> i32 {
        let (mut used, mut highwater) = (0, 0);
        // SAFETY: an open connection's handle and two out-parameters.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_db_status(
                c.handle(),
                rusqlite::ffi::SQLITE_DBSTATUS_CACHE_USED,
                &mut used,
                &mut highwater,
                0,
            )
        };
        assert_eq!(rc, rusqlite::ffi::SQLITE_OK);
        used
    }

    #[test]
    fn the_writer_does_not_keep_the_pages_of_what_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = open(&dir);
        // 4 MB of run records, 200 at a time as the recorder writes them.
        let record = "x".repeat(1_000);
        for batch in 0..20 {
            let runs: Vec<StoredRun> = (0..200)
                .map(|i| StoredRun {
                    run_id: format!("run-{batch}-{i}"),
                    keep_until_ms: i64::MAX,
                    record: record.clone(),
                })
                .collect();
            store.put_runs(&runs, 0, 1_000_000).unwrap();
        }
        let used = cache_used(&store.writer.lock().unwrap());
        assert!(
            used <= 2 * WRITER_CACHE_KIB as i32 * 1024,
            "{used} bytes cached"
        );
    }

    #[test]
    fn run_records_are_purged_past_their_retention_and_beyond_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = open(&dir);
        let run = |id: &str, keep_until_ms| StoredRun {
            run_id: id.into(),
            keep_until_ms,
            record: format!("{{\"runId\":\"{id}\"}}"),
        };
        let purged = store
            .put_runs(&[run("clean", 1_000), run("failed", 5_000)], 0, 10)
            .unwrap();
        assert_eq!(purged, 0);
        assert_eq!(
            store.get_run("clean", 999).unwrap().as_deref(),
            Some("{\"runId\":\"clean\"}")
        );
        // Past its retention: not returned, then purged.
        assert_eq!(store.get_run("clean", 1_000).unwrap(), None);
        assert_eq!(store.purge_runs(2_000, 10).unwrap(), 1);
        assert!(store.get_run("failed", 2_000).unwrap().is_some());

        // Beyond the cap, the oldest go first.
        let purged = store
            .put_runs(
                &[run("r1", 9_000), run("r2", 9_000), run("r3", 9_000)],
                2_000,
                2,
            )
            .unwrap();
        assert_eq!(purged, 2);
        let kept: Vec<bool> = ["failed", "r1", "r2", "r3"]
            .iter()
            .map(|id| store.get_run(id, 2_000).unwrap().is_some())
            .collect();
        assert_eq!(kept, vec![false, false, true, true]);
    }
}
