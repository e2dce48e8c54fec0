//! PostgreSQL storage of the post index, shared by several replicas
//! (`posts.backend = "postgres"`). Every replica keeps the whole ranking in
//! memory (searches never touch the database) and follows the database's
//! changes: each write takes the next number of one change counter in its
//! transaction and notifies `post_changes`; a listening connection per
//! replica then applies the posts changed after the last number it applied
//! (deletions and expiry as tombstones), so a missed notification, a
//! reconnection or a late start loses nothing. The schema is versioned and
//! applied at start-up by whichever replica comes first.

use secrecy::ExposeSecret;
use std::{
    collections::HashMap,
    hash::{BuildHasher, RandomState},
    path::Path,
    sync::{
        Arc, RwLock,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use futures::{StreamExt, TryStreamExt};
use rustls::pki_types::{CertificateDer, pem::PemObject};
use tokio::sync::{mpsc, watch};
use tokio_postgres::{AsyncMessage, Client, Row, Statement, error::SqlState, types::ToSql};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{
    PostIndexError,
    local_model::LocalModel,
    now_ms,
    ranking::{Ranking, Vector},
    store::{PendingPost, StoredPost, StoredRun, decode, encode},
};
use crate::{contract::PostSummary, settings::PostsSettings};

/// The channel every write notifies.
const CHANNEL: &str = "post_changes";
/// Changes read per catch-up query.
const PAGE: i64 = 500;
/// A write (or a read of run records) not done by then answers 503.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Connecting, when the URL does not say (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a write waits for this replica's ranking to show it.
const APPLY_WAIT: Duration = Duration::from_secs(2);
/// The listener catches up at least this often, notified or not: a safety
/// net, and how a silently dead connection is noticed.
const CATCH_UP_EVERY: Duration = Duration::from_secs(5);
/// A catch-up (or a connection with its first catch-up, which may load
/// every post) not done by then drops the connection and reconnects.
const CATCH_UP_TIMEOUT: Duration = Duration::from_secs(30);
/// Reconnection delays: doubling from the first to the last, with jitter.
const RECONNECT_FIRST: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(10);
/// A replica embedding posts holds them this long; others skip them meanwhile.
const CLAIM_MS: i64 = 60_000;
/// Tombstones are deleted this long after the deletion; a replica that has
/// not caught up by then reloads every post.
const TOMBSTONE_MS: i64 = 7 * 24 * 3600 * 1000;

const CHANGES_AFTER_SEQ: &str =
    "SELECT id, seq, deleted, body::text, search_text, expires_at, embedding
     FROM posts WHERE seq > $1 ORDER BY seq, id LIMIT 500";
const CHANGES_AFTER_ROW: &str =
    "SELECT id, seq, deleted, body::text, search_text, expires_at, embedding
     FROM posts WHERE (seq, id) > ($1, $2) ORDER BY seq, id LIMIT 500";
const PURGED_THROUGH: &str = "SELECT purged_through FROM change_counter";
const NEXT_SEQ: &str = "UPDATE change_counter SET seq = seq + 1 RETURNING seq";
const NOTIFY: &str = "SELECT pg_notify('post_changes', $1)";

/// The shared store: a connection pool for writes, and this replica's
/// mirror of the posts, kept current by a listening task.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    mirror: Arc<Mirror>,
    /// The listening task, stopped with the store.
    listener: tokio::task::JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// This replica's copy of the live posts: the ranking and the bodies.
struct Mirror {
    ranking: Ranking,
    bodies: RwLock<HashMap<String, Body>>,
    /// The listening connection is up and has caught up.
    connected: AtomicBool,
    /// The last change number applied.
    applied: watch::Sender<i64>,
    /// Hashes search texts (whether a change changed the text).
    text_hashes: RandomState,
}

/// A post's JSON and expiry, and a hash of its search text.
struct Body {
    expires_at_ms: Option<i64>,
    text_hash: u64,
    json: Box<str>,
}

/// How to reach the database.
#[derive(Clone)]
struct Connect {
    config: tokio_postgres::Config,
    tls: MakeRustlsConnect,
}

impl Store {
    /// Connects, migrates the schema, loads every post and starts following
    /// the changes. Fails when the database cannot be reached.
    pub async fn open(
        settings: &PostsSettings,
        model: Option<Arc<LocalModel>>,
    ) -> Result<Self, PostIndexError> {
        let url = settings
            .database_url
            .as_ref()
            .ok_or_else(|| PostIndexError::Open("posts.database_url is not set".into()))?;
        let mut config: tokio_postgres::Config = url.expose_secret().parse().map_err(|_| {
            PostIndexError::Open("posts.database_url is not a PostgreSQL connection URL".into())
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("linkup-suggestions");
        }
        let connect = Connect {
            config,
            tls: tls(settings.tls_ca_file.as_deref())?,
        };
        let manager = Manager::from_config(
            connect.config.clone(),
            connect.tls.clone(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(settings.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(WRITE_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(WRITE_TIMEOUT))
            .build()
            .map_err(|e| PostIndexError::Open(e.to_string()))?;
        let mut client = pool
            .get()
            .await
            .map_err(|e| PostIndexError::Open(format!("connecting to PostgreSQL: {e}")))?;
        migrate(&mut client)
            .await
            .map_err(|e| PostIndexError::Open(e.to_string()))?;
        drop(client);
        let mirror = Arc::new(Mirror {
            ranking: Ranking::new(model),
            bodies: RwLock::default(),
            connected: AtomicBool::default(),
            applied: watch::Sender::default(),
            text_hashes: RandomState::default(),
        });
        let mut cursor = Cursor::default();
        let session = Session::start(&connect, &mirror, &mut cursor)
            .await
            .map_err(|e| PostIndexError::Open(format!("loading the posts: {e:#}")))?;
        tracing::info!(
            posts = mirror.ranking.counts().0,
            seq = cursor.seq,
            "post index loaded from PostgreSQL"
        );
        let listener = tokio::spawn(listen(mirror.clone(), connect, session, cursor));
        Ok(Self {
            inner: Arc::new(Inner {
                pool,
                mirror,
                listener,
            }),
        })
    }

    /// What searches read.
    pub fn ranking(&self) -> &Ranking {
        &self.inner.mirror.ranking
    }

    /// Whether the listening connection is up (else the ranking may miss
    /// other replicas' writes).
    pub fn connected(&self) -> bool {
        self.inner.mirror.connected.load(Ordering::Relaxed)
    }

    /// The posts with these ids live at `now_ms`, in this order (from memory).
    pub fn get_many(&self, ids: &[String], now_ms: i64) -> Vec<PostSummary> {
        let Ok(bodies) = self.inner.mirror.bodies.read() else {
            return Vec::new();
        };
        ids.iter()
            .filter_map(|id| bodies.get(id))
            .filter(|b| b.expires_at_ms.is_none_or(|e| e > now_ms))
            .filter_map(|b| serde_json::from_str(&b.json).ok())
            .collect()
    }

    /// Inserts or replaces posts in one transaction; returns for each
    /// whether it was new. Returns once this replica's ranking shows them.
    pub async fn upsert(&self, posts: Vec<StoredPost>) -> Result<Vec<bool>, PostIndexError> {
        // One row per id (the last wins, as when written one after another).
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (i, p) in posts.iter().enumerate() {
            last.insert(p.post.id.as_str(), i);
        }
        let rows: Vec<&StoredPost> = posts
            .iter()
            .enumerate()
            .filter(|(i, p)| last.get(p.post.id.as_str()) == Some(i))
            .map(|(_, p)| p)
            .collect();
        let ids: Vec<&str> = rows.iter().map(|p| p.post.id.as_str()).collect();
        let bodies: Vec<String> = rows
            .iter()
            .map(|p| serde_json::to_string(&p.post).unwrap_or_default())
            .collect();
        let texts: Vec<&str> = rows.iter().map(|p| p.search_text.as_str()).collect();
        let expires: Vec<Option<i64>> = rows.iter().map(|p| p.expires_at_ms).collect();
        let vectors: Vec<Option<Vec<u8>>> = rows
            .iter()
            .map(|p| p.vector.as_deref().map(encode))
            .collect();
        let (existing, seq) = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let seq = next_seq(&tx).await?;
            let existing: Vec<String> = tx
                .query(
                    "SELECT id FROM posts WHERE id = ANY($1) AND NOT deleted",
                    &[&ids],
                )
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect();
            let upsert = tx
                .prepare_cached(
                    "INSERT INTO posts (id, body, search_text, expires_at, embedding, seq)
                     SELECT u.id, u.body::jsonb, u.search_text, u.expires_at, u.embedding, $6
                     FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::bytea[])
                          AS u(id, body, search_text, expires_at, embedding)
                     ON CONFLICT (id) DO UPDATE SET
                       body = excluded.body,
                       search_text = excluded.search_text,
                       expires_at = excluded.expires_at,
                       embedding = CASE WHEN excluded.embedding IS NOT NULL THEN excluded.embedding
                                   WHEN posts.search_text = excluded.search_text THEN posts.embedding END,
                       embedding_claimed_until = CASE WHEN posts.search_text = excluded.search_text
                                   THEN posts.embedding_claimed_until END,
                       deleted = false,
                       deleted_at = NULL,
                       seq = excluded.seq",
                )
                .await?;
            tx.execute(&upsert, &[&ids, &bodies, &texts, &expires, &vectors, &seq])
                .await?;
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok((existing, seq))
        })
        .await?;
        self.inner.mirror.wait_applied(seq).await;
        let mut seen: Vec<&str> = existing.iter().map(String::as_str).collect();
        Ok(posts
            .iter()
            .map(|p| {
                let new = !seen.contains(&p.post.id.as_str());
                if new {
                    seen.push(&p.post.id);
                }
                new
            })
            .collect())
    }

    /// Deletes a post (a tombstone every replica applies); true when it existed.
    pub async fn delete(&self, id: &str) -> Result<bool, PostIndexError> {
        let seq = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let seq = next_seq(&tx).await?;
            let deleted = tx
                .execute(
                    "UPDATE posts SET deleted = true, deleted_at = $3, body = NULL,
                       search_text = NULL, embedding = NULL, embedding_claimed_until = NULL, seq = $2
                     WHERE id = $1 AND NOT deleted",
                    &[&id, &seq, &now_ms()],
                )
                .await?;
            if deleted == 0 {
                // Nothing changed: the counter's increment is rolled back.
                return Ok(None);
            }
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok(Some(seq))
        })
        .await?;
        if let Some(seq) = seq {
            self.inner.mirror.wait_applied(seq).await;
        }
        Ok(seq.is_some())
    }

    /// Turns the posts expired at `now_ms` into tombstones, and deletes the
    /// tombstones older than a week; returns how many posts expired.
    pub async fn purge_expired(&self, now_ms: i64) -> Result<usize, PostIndexError> {
        within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let any: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM posts WHERE NOT deleted AND expires_at <= $1)",
                    &[&now_ms],
                )
                .await?
                .get(0);
            let mut expired = 0;
            if any {
                let seq = next_seq(&tx).await?;
                expired = tx
                    .execute(
                        "UPDATE posts SET deleted = true, deleted_at = $1, body = NULL,
                           search_text = NULL, embedding = NULL, embedding_claimed_until = NULL,
                           seq = $2
                         WHERE NOT deleted AND expires_at <= $1",
                        &[&now_ms, &seq],
                    )
                    .await?;
                notify(&tx, seq).await?;
            }
            tx.execute(
                "WITH gone AS (DELETE FROM posts WHERE deleted AND deleted_at <= $1 RETURNING seq)
                 UPDATE change_counter SET purged_through = greatest(purged_through, gone.seq)
                 FROM (SELECT max(seq) AS seq FROM gone) AS gone WHERE gone.seq IS NOT NULL",
                &[&(now_ms - TOMBSTONE_MS)],
            )
            .await?;
            tx.commit().await?;
            Ok(expired as usize)
        })
        .await
    }

    /// Claims up to `limit` posts waiting for a vector that no other replica
    /// is embedding (`FOR UPDATE SKIP LOCKED`, then a lease of a minute).
    pub async fn claim_embeddings(&self, limit: usize) -> Result<Vec<PendingPost>, PostIndexError> {
        within(async {
            let client = self.client().await?;
            let rows = client
                .query(
                    "UPDATE posts SET embedding_claimed_until = $2 + $3
                     WHERE id IN (SELECT id FROM posts
                                  WHERE embedding IS NULL AND NOT deleted
                                    AND (embedding_claimed_until IS NULL OR embedding_claimed_until <= $2)
                                  ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
                     RETURNING id, search_text, expires_at",
                    &[&(limit as i64), &now_ms(), &CLAIM_MS],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect())
        })
        .await
    }

    /// Stores vectors (for every replica), each unless its post's text
    /// changed since it was claimed; returns how many were stored, once this
    /// replica's ranking has them.
    pub async fn set_embeddings(
        &self,
        items: Vec<(PendingPost, Vec<f32>)>,
    ) -> Result<usize, PostIndexError> {
        let ids: Vec<&str> = items.iter().map(|((id, _, _), _)| id.as_str()).collect();
        let texts: Vec<&str> = items.iter().map(|((_, t, _), _)| t.as_str()).collect();
        let vectors: Vec<Vec<u8>> = items.iter().map(|(_, v)| encode(v)).collect();
        let stored = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let seq = next_seq(&tx).await?;
            let stored = tx
                .execute(
                    "UPDATE posts SET embedding = u.embedding, embedding_claimed_until = NULL, seq = $4
                     FROM unnest($1::text[], $2::text[], $3::bytea[]) AS u(id, search_text, embedding)
                     WHERE posts.id = u.id AND posts.search_text = u.search_text AND NOT posts.deleted",
                    &[&ids, &texts, &vectors, &seq],
                )
                .await?;
            if stored == 0 {
                return Ok((0, None));
            }
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok((stored as usize, Some(seq)))
        })
        .await?;
        if let (_, Some(seq)) = stored {
            self.inner.mirror.wait_applied(seq).await;
        }
        Ok(stored.0)
    }

    /// Stores run records, then purges those past their retention at
    /// `now_ms` and the oldest beyond `max_records`; returns how many were purged.
    pub async fn put_runs(
        &self,
        runs: Vec<StoredRun>,
        now_ms: i64,
        max_records: u64,
    ) -> Result<usize, PostIndexError> {
        let ids: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        let keep: Vec<i64> = runs.iter().map(|r| r.keep_until_ms).collect();
        let records: Vec<&str> = runs.iter().map(|r| r.record.as_str()).collect();
        within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            tx.execute(
                "INSERT INTO runs (run_id, keep_until, record)
                 SELECT * FROM unnest($1::text[], $2::int8[], $3::text[])
                 ON CONFLICT (run_id) DO UPDATE SET keep_until = excluded.keep_until,
                   record = excluded.record",
                &[&ids, &keep, &records],
            )
            .await?;
            let purged = purge_runs(&tx, now_ms, max_records).await?;
            tx.commit().await?;
            Ok(purged)
        })
        .await
    }

    /// Purges the run records past their retention at `now_ms` and the
    /// oldest beyond `max_records`; returns how many.
    pub async fn purge_runs(&self, now_ms: i64, max_records: u64) -> Result<usize, PostIndexError> {
        within(async {
            let client = self.client().await?;
            purge_runs(&client, now_ms, max_records).await
        })
        .await
    }

    /// A run's record (JSON), unless unknown or past its retention at `now_ms`.
    pub async fn get_run(
        &self,
        run_id: &str,
        now_ms: i64,
    ) -> Result<Option<String>, PostIndexError> {
        within(async {
            let client = self.client().await?;
            Ok(client
                .query_opt(
                    "SELECT record FROM runs WHERE run_id = $1 AND keep_until > $2",
                    &[&run_id, &now_ms],
                )
                .await?
                .map(|r| r.get(0)))
        })
        .await
    }

    async fn client(&self) -> Result<Object, PostIndexError> {
        self.inner
            .pool
            .get()
            .await
            .map_err(|e| PostIndexError::Unavailable(e.to_string()))
    }
}

/// `work`, or 503 when it takes longer than [`WRITE_TIMEOUT`].
async fn within<T>(
    work: impl Future<Output = Result<T, PostIndexError>>,
) -> Result<T, PostIndexError> {
    tokio::time::timeout(WRITE_TIMEOUT, work)
        .await
        .map_err(|_| PostIndexError::Unavailable("the database did not answer in time".into()))?
}

/// Takes the next change number: the counter's row lock orders the writers,
/// so numbers become visible in order.
async fn next_seq(tx: &deadpool_postgres::Transaction<'_>) -> Result<i64, PostIndexError> {
    Ok(tx.query_one(NEXT_SEQ, &[]).await?.get(0))
}

/// Tells every listening replica that change `seq` is committed (delivered
/// at commit).
async fn notify(tx: &deadpool_postgres::Transaction<'_>, seq: i64) -> Result<(), PostIndexError> {
    tx.execute(NOTIFY, &[&seq.to_string()]).await?;
    Ok(())
}

async fn purge_runs(
    client: &impl deadpool_postgres::GenericClient,
    now_ms: i64,
    max_records: u64,
) -> Result<usize, PostIndexError> {
    let expired = client
        .execute("DELETE FROM runs WHERE keep_until <= $1", &[&now_ms])
        .await?;
    let excess = client
        .execute(
            "DELETE FROM runs WHERE seq <= (SELECT max(seq) FROM runs) - $1",
            &[&(max_records as i64)],
        )
        .await?;
    Ok((expired + excess) as usize)
}

impl Mirror {
    /// Applies one changed row (see `CHANGES_AFTER_SEQ`).
    fn apply(&self, row: &Row) {
        let id: String = row.get(0);
        let Ok(mut bodies) = self.bodies.write() else {
            return;
        };
        if row.get::<_, bool>(2) {
            self.ranking.remove([id.as_str()]);
            bodies.remove(&id);
            return;
        }
        let (json, text): (String, String) = (row.get(3), row.get(4));
        let expires_at_ms: Option<i64> = row.get(5);
        let vector = match row.get::<_, Option<&[u8]>>(6) {
            Some(blob) => Vector::Set(decode(blob)),
            None => Vector::Drop,
        };
        let text_hash = self.text_hashes.hash_one(&text);
        // Most changes leave the text as it was (a vector, counts): the
        // text index is only rewritten when it changed.
        if bodies.get(&id).is_some_and(|b| b.text_hash == text_hash) {
            self.ranking.refresh(&id, &text, expires_at_ms, vector);
        } else {
            self.ranking.index(&id, &text, expires_at_ms, vector);
        }
        bodies.insert(
            id,
            Body {
                expires_at_ms,
                text_hash,
                json: json.into(),
            },
        );
    }

    /// Waits (a little) until this replica has applied change `seq`.
    async fn wait_applied(&self, seq: i64) {
        if !self.connected.load(Ordering::Relaxed) {
            return;
        }
        let mut applied = self.applied.subscribe();
        let _ = tokio::time::timeout(APPLY_WAIT, applied.wait_for(|a| *a >= seq)).await;
    }
}

/// Where a replica is in the change sequence.
#[derive(Default)]
struct Cursor {
    /// Every post was loaded once (before that, catching up means loading).
    loaded: bool,
    /// Changes up to this number are applied ...
    seq: i64,
    /// ... and, when set, those of number `seq` up to this id.
    after_id: Option<String>,
}

/// A listening connection: notifications arrive on `changed`.
struct Session {
    client: Client,
    changed: mpsc::UnboundedReceiver<()>,
    driver: tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>,
    after_seq: Statement,
    after_row: Statement,
    purged_through: Statement,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

impl Session {
    /// Connects, listens, and catches up (so nothing committed before the
    /// LISTEN is missed); then the mirror is current.
    async fn start(
        connect: &Connect,
        mirror: &Mirror,
        cursor: &mut Cursor,
    ) -> anyhow::Result<Self> {
        tokio::time::timeout(CATCH_UP_TIMEOUT, Self::connect(connect, mirror, cursor))
            .await
            .map_err(|_| anyhow::anyhow!("connecting and catching up timed out"))?
    }

    async fn connect(
        connect: &Connect,
        mirror: &Mirror,
        cursor: &mut Cursor,
    ) -> anyhow::Result<Self> {
        let (client, mut connection) = connect.config.connect(connect.tls.clone()).await?;
        let (tx, changed) = mpsc::unbounded_channel();
        let driver = tokio::spawn(async move {
            let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = messages.next().await {
                if let AsyncMessage::Notification(_) = message? {
                    let _ = tx.send(());
                }
            }
            Ok(())
        });
        client.batch_execute(&format!("LISTEN {CHANNEL}")).await?;
        let session = Self {
            after_seq: client.prepare(CHANGES_AFTER_SEQ).await?,
            after_row: client.prepare(CHANGES_AFTER_ROW).await?,
            purged_through: client.prepare(PURGED_THROUGH).await?,
            client,
            changed,
            driver,
        };
        session.catch_up(mirror, cursor).await?;
        mirror.connected.store(true, Ordering::Relaxed);
        Ok(session)
    }

    /// Catches up on every notification and every few seconds; returns why
    /// the connection is no longer usable.
    async fn serve(&mut self, mirror: &Mirror, cursor: &mut Cursor) -> anyhow::Error {
        let mut every = tokio::time::interval(CATCH_UP_EVERY);
        every.reset();
        loop {
            tokio::select! {
                changed = self.changed.recv() => {
                    if changed.is_none() {
                        return match (&mut self.driver).await {
                            Ok(Err(e)) => e.into(),
                            _ => anyhow::anyhow!("connection closed"),
                        };
                    }
                    // One catch-up serves every notification received so far.
                    while self.changed.try_recv().is_ok() {}
                }
                _ = every.tick() => {}
            }
            match tokio::time::timeout(CATCH_UP_TIMEOUT, self.catch_up(mirror, cursor)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return e,
                Err(_) => return anyhow::anyhow!("catching up timed out"),
            }
        }
    }

    /// Applies every change after `cursor`, in order; loads everything
    /// instead on the first call, or when tombstones it had not seen were deleted.
    async fn catch_up(&self, mirror: &Mirror, cursor: &mut Cursor) -> anyhow::Result<()> {
        if !cursor.loaded {
            return self.load_all(mirror, cursor).await;
        }
        loop {
            let rows = match &cursor.after_id {
                None => self.client.query(&self.after_seq, &[&cursor.seq]).await?,
                Some(id) => {
                    self.client
                        .query(&self.after_row, &[&cursor.seq, id])
                        .await?
                }
            };
            let purged: i64 = self
                .client
                .query_one(&self.purged_through, &[])
                .await?
                .get(0);
            if purged > cursor.seq || (purged == cursor.seq && cursor.after_id.is_some()) {
                tracing::info!("post tombstones purged before this replica saw them; reloading");
                return self.load_all(mirror, cursor).await;
            }
            rows.iter().for_each(|row| mirror.apply(row));
            if let Some(last) = rows.last() {
                cursor.seq = last.get(1);
                cursor.after_id = Some(last.get(0));
            }
            if (rows.len() as i64) < PAGE {
                // A change's rows commit together: all of `seq` is in.
                cursor.after_id = None;
                mirror.applied.send_replace(cursor.seq);
                return Ok(());
            }
        }
    }

    /// Replaces the mirror with every live post, read in one snapshot.
    async fn load_all(&self, mirror: &Mirror, cursor: &mut Cursor) -> anyhow::Result<()> {
        let client = &self.client;
        client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .await?;
        let seq: i64 = client
            .query_one("SELECT seq FROM change_counter", &[])
            .await?
            .get(0);
        let rows = client
            .query_raw(
                "SELECT id, body::text, search_text, expires_at, embedding FROM posts WHERE NOT deleted",
                std::iter::empty::<&(dyn ToSql + Sync)>(),
            )
            .await?;
        let (mut load, mut bodies) = (mirror.ranking.loader(), HashMap::new());
        let mut rows = std::pin::pin!(rows);
        while let Some(row) = rows.try_next().await? {
            let id: String = row.get(0);
            let (json, text): (String, String) = (row.get(1), row.get(2));
            let expires_at_ms: Option<i64> = row.get(3);
            let vector = row.get::<_, Option<&[u8]>>(4).map(decode);
            load.insert(&id, &text, expires_at_ms, vector);
            bodies.insert(
                id,
                Body {
                    expires_at_ms,
                    text_hash: mirror.text_hashes.hash_one(&text),
                    json: json.into(),
                },
            );
        }
        client.batch_execute("COMMIT").await?;
        {
            let mut current = mirror
                .bodies
                .write()
                .map_err(|_| anyhow::anyhow!("post bodies lock poisoned"))?;
            mirror.ranking.load(load);
            *current = bodies;
        }
        *cursor = Cursor {
            loaded: true,
            seq,
            after_id: None,
        };
        mirror.applied.send_replace(seq);
        Ok(())
    }
}

/// Follows the changes for as long as the store lives: on a lost
/// connection, marks the mirror stale and reconnects with backoff.
async fn listen(mirror: Arc<Mirror>, connect: Connect, mut session: Session, mut cursor: Cursor) {
    loop {
        let error = session.serve(&mirror, &mut cursor).await;
        drop(session);
        mirror.connected.store(false, Ordering::Relaxed);
        tracing::warn!(
            error.message = format!("{error:#}"),
            "post index database connection lost; posts may be stale until it is back"
        );
        let mut delay = RECONNECT_FIRST;
        session = loop {
            tokio::time::sleep(jittered(delay)).await;
            match Session::start(&connect, &mirror, &mut cursor).await {
                Ok(session) => break session,
                Err(e) => {
                    tracing::debug!(
                        error.message = format!("{e:#}"),
                        "post index database still unreachable"
                    );
                    delay = (delay * 2).min(RECONNECT_MAX);
                }
            }
        };
        tracing::info!(
            seq = cursor.seq,
            "post index database reconnected; posts caught up"
        );
    }
}

/// `delay` minus up to a quarter, at random: replicas that lost the
/// database together do not all come back in the same instant.
fn jittered(delay: Duration) -> Duration {
    let random = RandomState::new().hash_one(std::time::Instant::now());
    delay.mul_f64(1.0 - (random % 1024) as f64 / 4096.0)
}

/// The TLS every connection uses when the server offers or the URL requires
/// it: the system's trust store, or the CAs of `ca_file`.
fn tls(ca_file: Option<&Path>) -> Result<MakeRustlsConnect, PostIndexError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let open = |e: &dyn std::fmt::Display| PostIndexError::Open(format!("database TLS: {e}"));
    let config = match ca_file {
        Some(path) => {
            let mut roots = rustls::RootCertStore::empty();
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| open(&format!("{}: {e}", path.display())))?;
            for cert in certs {
                roots
                    .add(cert.map_err(|e| open(&e))?)
                    .map_err(|e| open(&e))?;
            }
            rustls::ClientConfig::builder()
                .with_root_certificates(roots)
                .with_no_client_auth()
        }
        None => {
            use rustls_platform_verifier::ConfigVerifierExt;
            rustls::ClientConfig::with_platform_verifier().map_err(|e| open(&e))?
        }
    };
    Ok(MakeRustlsConnect::new(config))
}

/// An error with the server's code and message when it is one (the
/// message, never the detail, which may quote values).
pub fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} {}", db.code().code(), db.message()),
        None => e.to_string(),
    }
}

/// Database errors that mean "unreachable or not now" (503, retry later);
/// any other is the store's own failure.
impl From<tokio_postgres::Error> for PostIndexError {
    fn from(e: tokio_postgres::Error) -> Self {
        let transient = match e.code() {
            None => true,
            Some(code) => {
                matches!(&code.code()[..2], "08" | "53" | "57")
                    || [
                        SqlState::READ_ONLY_SQL_TRANSACTION,
                        SqlState::T_R_SERIALIZATION_FAILURE,
                        SqlState::T_R_DEADLOCK_DETECTED,
                    ]
                    .contains(code)
            }
        };
        if transient {
            Self::Unavailable(describe(&e))
        } else {
            Self::Postgres(e)
        }
    }
}

/// The schema's migrations, in order: (version, name, SQL). Applied ones are
/// never edited; a change is a new migration.
const MIGRATIONS: &[(i32, &str, &str)] = &[(
    1,
    "posts",
    include_str!("../../migrations/postgres/0001_posts.sql"),
)];

/// The advisory lock that lets one replica migrate at a time (an arbitrary,
/// fixed key: "linkup" in ASCII).
const MIGRATION_LOCK: i64 = 0x6c69_6e6b_7570;

/// Why the schema could not be brought up to date.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error(
        "the database's schema is version {found}, newer than this build's {known}: run a newer build"
    )]
    Newer { found: i32, known: i32 },
    #[error("migrating the schema: {0}")]
    Postgres(#[from] tokio_postgres::Error),
}

/// Applies the migrations the database lacks, in one transaction under an
/// advisory lock: replicas starting together apply each migration once, the
/// others wait and find it done. Returns the versions applied.
pub async fn migrate(client: &mut Client) -> Result<Vec<i32>, MigrationError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version    integer PRIMARY KEY,
            name       text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )",
    )
    .await?;
    let current: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            &[],
        )
        .await?
        .get(0);
    let known = MIGRATIONS.last().map_or(0, |m| m.0);
    if current > known {
        return Err(MigrationError::Newer {
            found: current,
            known,
        });
    }
    let mut applied = Vec::new();
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .await?;
        applied.push(*version);
    }
    tx.commit().await?;
    if !applied.is_empty() {
        tracing::info!(versions = ?applied, "post index schema migrated");
    }
    Ok(applied)
}
