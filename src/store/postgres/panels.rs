//! The panel cache's shared tier on PostgreSQL (`panel_cache`): lookups and
//! writes bounded by the caller's timeout, never waiting on the pool for
//! long; a post's writes drop its panels ([`drop_panels`]), the purge of
//! expired posts prunes expired panels ([`prune_panels`]).

use async_trait::async_trait;
use deadpool_postgres::GenericClient;

use super::{Store, within};
use crate::store::{SharedPanel, SharedPanels, StoreError};

#[async_trait]
impl SharedPanels for Store {
    async fn get_panel(
        &self,
        key: [u8; 32],
        now_ms: i64,
    ) -> Result<Option<SharedPanel>, StoreError> {
        within(async {
            let client = self.client().await?;
            // Prepared once per connection: a lookup is one round trip.
            let select = client
                .prepare_cached(
                    "SELECT post_id, panel, stored_at, expires_at FROM panel_cache
                     WHERE key = $1 AND expires_at > $2",
                )
                .await?;
            let row = client
                .query_opt(&select, &[&key.as_slice(), &now_ms])
                .await?;
            Ok(row.map(|r| SharedPanel {
                key,
                post_id: r.get(0),
                json: r.get(1),
                stored_at_ms: r.get(2),
                expires_at_ms: r.get(3),
            }))
        })
        .await
    }

    async fn put_panel(&self, panel: SharedPanel) -> Result<(), StoreError> {
        within(async {
            let client = self.client().await?;
            let upsert = client
                .prepare_cached(
                    "INSERT INTO panel_cache (key, post_id, panel, stored_at, expires_at)
                     VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (key) DO UPDATE SET post_id = excluded.post_id,
                       panel = excluded.panel, stored_at = excluded.stored_at,
                       expires_at = excluded.expires_at",
                )
                .await?;
            client
                .execute(
                    &upsert,
                    &[
                        &panel.key.as_slice(),
                        &panel.post_id,
                        &panel.json,
                        &panel.stored_at_ms,
                        &panel.expires_at_ms,
                    ],
                )
                .await?;
            Ok(())
        })
        .await
    }

    async fn reachable(&self) -> bool {
        within(async {
            let client = self.client().await?;
            client
                .execute("SELECT 1 FROM panel_cache LIMIT 0", &[])
                .await?;
            Ok(())
        })
        .await
        .is_ok()
    }
}

/// Drops the shared panels of the posts `ids` (in their write's transaction).
pub(super) async fn drop_panels(
    client: &impl GenericClient,
    ids: &[&str],
) -> Result<(), StoreError> {
    client
        .execute("DELETE FROM panel_cache WHERE post_id = ANY($1)", &[&ids])
        .await?;
    Ok(())
}

/// Deletes the shared panels expired at `now_ms`.
pub(super) async fn prune_panels(
    client: &impl GenericClient,
    now_ms: i64,
) -> Result<(), StoreError> {
    client
        .execute("DELETE FROM panel_cache WHERE expires_at <= $1", &[&now_ms])
        .await?;
    Ok(())
}
