//! How a replica follows the database: a listening connection applies the posts changed after the last change
//! number it applied (deletions and expiry as tombstones), on every
//! notification and every few seconds; a lost connection is retried with
//! backoff, and a replica too far behind reloads everything.

use std::{
    collections::HashMap,
    hash::{BuildHasher, RandomState},
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use futures::{StreamExt, TryStreamExt};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Client, Statement, types::ToSql};

use super::{
    Connect,
    mirror::{Body, Mirror},
};
use crate::store::{Knowledge, Unavailable};

/// The channel every write notifies.
pub(super) const CHANNEL: &str = "post_changes";
/// Changes read per catch-up query.
const PAGE: i64 = 500;
/// The listener catches up at least this often, notified or not: a safety
/// net, and how a silently dead connection is noticed.
const CATCH_UP_EVERY: Duration = Duration::from_secs(5);
/// A catch-up (or a connection with its first catch-up, which may load
/// every post) not done by then drops the connection and reconnects.
const CATCH_UP_TIMEOUT: Duration = Duration::from_secs(30);
/// Reconnection delays: doubling from the first to the last, with jitter.
const RECONNECT_FIRST: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(10);

const CHANGES_AFTER_SEQ: &str =
    "SELECT id, seq, deleted, body::text, search_text, expires_at, embedding, embedding_model,
            knowledge::text
     FROM posts WHERE seq > $1 ORDER BY seq, id LIMIT 500";
const CHANGES_AFTER_ROW: &str =
    "SELECT id, seq, deleted, body::text, search_text, expires_at, embedding, embedding_model,
            knowledge::text
     FROM posts WHERE (seq, id) > ($1, $2) ORDER BY seq, id LIMIT 500";
const PURGED_THROUGH: &str = "SELECT purged_through FROM change_counter";

/// Where a replica is in the change sequence.
#[derive(Default)]
pub(super) struct Cursor {
    /// Every post was loaded once (before that, catching up means loading).
    loaded: bool,
    /// Changes up to this number are applied ...
    pub seq: i64,
    /// ... and, when set, those of number `seq` up to this id.
    after_id: Option<String>,
}

/// A listening connection: notifications arrive on `changed`.
pub(super) struct Session {
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
    pub async fn start(
        connect: &Connect,
        mirror: &Mirror,
        cursor: &mut Cursor,
    ) -> Result<Self, Unavailable> {
        tokio::time::timeout(CATCH_UP_TIMEOUT, Self::connect(connect, mirror, cursor))
            .await
            .map_err(|_| Unavailable::TimedOut)?
    }

    async fn connect(
        connect: &Connect,
        mirror: &Mirror,
        cursor: &mut Cursor,
    ) -> Result<Self, Unavailable> {
        let (client, mut connection) = connect.current().connect(connect.tls.clone()).await?;
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
    async fn serve(&mut self, mirror: &Mirror, cursor: &mut Cursor) -> Unavailable {
        let mut every = tokio::time::interval(CATCH_UP_EVERY);
        every.reset();
        loop {
            tokio::select! {
                changed = self.changed.recv() => {
                    if changed.is_none() {
                        return match (&mut self.driver).await {
                            Ok(Err(e)) => e.into(),
                            _ => Unavailable::Closed,
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
                Err(_) => return Unavailable::TimedOut,
            }
        }
    }

    /// Applies every change after `cursor`, in order; loads everything
    /// instead on the first call, or when tombstones it had not seen were deleted.
    async fn catch_up(&self, mirror: &Mirror, cursor: &mut Cursor) -> Result<(), Unavailable> {
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
    async fn load_all(&self, mirror: &Mirror, cursor: &mut Cursor) -> Result<(), Unavailable> {
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
                "SELECT id, body::text, search_text, expires_at, embedding, embedding_model,
                        knowledge::text
                 FROM posts WHERE NOT deleted",
                std::iter::empty::<&(dyn ToSql + Sync)>(),
            )
            .await?;
        let (mut load, mut bodies) = (mirror.index.clone().loader(), HashMap::new());
        let mut rows = std::pin::pin!(rows);
        while let Some(row) = rows.try_next().await? {
            let id: String = row.get(0);
            let (json, text): (String, String) = (row.get(1), row.get(2));
            let expires_at_ms: Option<i64> = row.get(3);
            let vector = mirror.vector(row.get(4), row.get(5));
            load.insert(&id, &text, expires_at_ms, vector);
            if let Some(column) = row.get::<_, Option<&str>>(6) {
                let knowledge = Knowledge::from_column(Some(column));
                load.knowledge(&id, expires_at_ms, knowledge);
            }
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
            let mut current = mirror.bodies.write().map_err(|_| Unavailable::Poisoned)?;
            load.install();
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
pub async fn listen(
    mirror: Arc<Mirror>,
    connect: Connect,
    mut session: Session,
    mut cursor: Cursor,
) {
    loop {
        let error = session.serve(&mirror, &mut cursor).await;
        drop(session);
        mirror.connected.store(false, Ordering::Relaxed);
        tracing::warn!(
            error.message = %error,
            "post index database connection lost; posts may be stale until it is back"
        );
        let mut delay = RECONNECT_FIRST;
        session = loop {
            tokio::time::sleep(jittered(delay)).await;
            match Session::start(&connect, &mirror, &mut cursor).await {
                Ok(session) => break session,
                Err(e) => {
                    tracing::debug!(
                        error.message = %e,
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
