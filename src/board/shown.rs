//! What each post's panel suggested (its Microsoft 365 items' URLs and
//! positions), remembered for a while in memory: a document later shared
//! on the post from one of them is the panel's use, counted as
//! `linkup_panel_shares_total{source, position}` (LinkUp's success
//! criterion). Only the service's own memory: URLs never leave it.

use std::{collections::HashMap, sync::Arc, time::Duration};

use crate::contract::{M365Source, McpSuggestion};

/// Posts whose panels are remembered (the least recently shown go first).
const POSTS: u64 = 10_000;
/// How long a panel is remembered: LinkUp's longest-lived post.
const KEPT: Duration = Duration::from_secs(7 * 24 * 3600);

/// Each URL a post's panels suggested: its source and best position.
type Urls = HashMap<String, (M365Source, usize)>;

/// Per post, the URLs its panels suggested.
pub struct Shown(moka::future::Cache<String, Arc<Urls>>);

impl Default for Shown {
    fn default() -> Self {
        Self(
            moka::future::Cache::builder()
                .max_capacity(POSTS)
                .time_to_live(KEPT)
                .build(),
        )
    }
}

impl Shown {
    /// Remembers what a panel of `post_id` suggested, with what earlier
    /// panels of it did (each URL at its best position).
    pub async fn record(&self, post_id: &str, m365: &[McpSuggestion]) {
        if m365.is_empty() {
            return;
        }
        let mut urls = self
            .0
            .get(post_id)
            .await
            .map(|known| (*known).clone())
            .unwrap_or_default();
        for (i, item) in m365.iter().enumerate() {
            let Some(url) = super::normalise_url(&item.url) else {
                continue;
            };
            let at = urls.entry(url).or_insert((item.source, i + 1));
            at.1 = at.1.min(i + 1);
        }
        self.0.insert(post_id.to_owned(), Arc::new(urls)).await;
    }

    /// Where a panel of `post_id` suggested `url`, if one did.
    pub async fn position(&self, post_id: &str, url: &str) -> Option<(M365Source, usize)> {
        let url = super::normalise_url(url)?;
        self.0.get(post_id).await?.get(&url).copied()
    }
}
