//! The panels service: the one policy behind every door that answers a
//! Suggestions panel — `POST /api/suggestions`, `GET
//! /api/posts/{postId}/suggestions` and MCP's `get_suggestions`. In this
//! order: the cache (a repeat view by the same caller is served before
//! admission, so also while shedding; `no-cache` recomputes, `no-store`
//! neither reads nor writes), coalescing (identical concurrent misses share
//! one run, which outlives a client that goes away), admission (no run slot
//! in time: refused), the run, and storing its panel. The doors parse the
//! request and write the answer in their own format.

use std::{sync::Arc, time::Duration};

use secrecy::ExposeSecret;
use tokio::sync::mpsc::UnboundedReceiver;
use tracing::Instrument;

use crate::{
    agent::{Deadline, Emitter, Orchestrator, RunEvent, RunInput, Ticket},
    cache::{self, Entry, Fresh, Outcome, PanelCache, PanelKey, View},
    contract::CombinedSuggestionsResponse,
    posts::PostIndex,
};

/// The panels service, one per app.
pub struct Panels {
    orchestrator: Arc<Orchestrator>,
    /// None when `cache.enabled` is false.
    cache: Option<PanelCache>,
    /// Where a cached panel's posts are checked still live.
    posts: PostIndex,
    /// `agent.timeout_ms`: how long a request waits for an identical one's run.
    timeout: Duration,
}

/// How a caller asks for a panel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked {
    /// The run's events as they happen (NDJSON), the panel last.
    pub stream: bool,
    /// Compute afresh and replace the stored panel (`no-cache`).
    pub no_cache: bool,
    /// Neither read nor store (`no-store`).
    pub no_store: bool,
}

/// What a request gets.
pub enum Answer {
    /// The panel, computed for this request or served from the cache.
    Panel(Panel),
    /// A miss streamed as its run goes (not shared; stored at its end).
    Stream(Events),
}

/// A panel for the caller.
pub struct Panel {
    pub panel: CombinedSuggestionsResponse,
    /// Over the panel's content, not `meta`.
    pub etag: String,
    /// How the cache holds it; None when it does not (cache off,
    /// `no-store`).
    pub kept: Option<Kept>,
}

/// How the cache holds a panel.
#[derive(Debug, Clone, Copy)]
pub struct Kept {
    /// How long it is still served.
    pub fresh_for: Duration,
    /// Served from the cache: its age (None: computed for this request).
    pub age: Option<Duration>,
}

/// A streamed run's events, the last one its panel. The run stops when
/// they are dropped (the client went away).
pub struct Events {
    /// The run's id, known before it starts.
    pub run_id: String,
    rx: UnboundedReceiver<RunEvent>,
    _run: AbortOnDrop,
}

impl Events {
    /// The next event; None once the run is over.
    pub async fn next(&mut self) -> Option<RunEvent> {
        self.rx.recv().await
    }
}

/// Where a request stands after the cache, coalescing and admission.
enum LookedUp {
    Served(Panel),
    Miss(Miss),
}

/// An admitted request whose panel must be computed.
struct Miss {
    orchestrator: Arc<Orchestrator>,
    input: RunInput,
    ticket: Ticket,
    /// Where its panel is stored (None: cache off, or `no-store`).
    keep: Option<(PanelCache, PanelKey)>,
    /// How long the caller's token still lives (an entry's life ends with it).
    token_left: Option<Duration>,
}

impl Miss {
    /// A miss's run, shared with identical requests that come while it runs
    /// when its panel will be kept; its panel stored.
    async fn run(self) -> Result<Panel, Overloaded> {
        let Self {
            orchestrator,
            input,
            ticket,
            keep,
            token_left,
        } = self;
        // A panel nothing will keep (the caller's token has expired) is not
        // shared: it ends with its request.
        let kept = token_left != Some(Duration::ZERO);
        match keep {
            Some((cache, key)) if kept => {
                let run = async move { orchestrator.run(input, Emitter::default(), ticket).await };
                let (ran, outcome) = cache.get_or_run(key, token_left, run).await;
                cache.count(outcome);
                match ran {
                    Some(ran) => Ok(fresh(&ran)),
                    // The shared run's task ended without a panel (it
                    // panicked): a bug, logged; the caller may try again.
                    None => {
                        tracing::error!("a shared suggestions run ended without a panel");
                        Err(Overloaded {
                            retry_after_secs: 1,
                        })
                    }
                }
            }
            keep => {
                let panel = orchestrator.run(input, Emitter::default(), ticket).await;
                let etag = cache::etag(&panel);
                if let Some((cache, key)) = keep {
                    cache.count(Outcome::Miss);
                    cache.store(&key, panel.clone(), token_left).await;
                }
                Ok(Panel {
                    panel,
                    etag,
                    kept: None,
                })
            }
        }
    }

    /// A miss's run, its events streamed as it goes (not shared: a stream
    /// shows its own run); its panel stored when it will be kept.
    fn stream(self) -> Events {
        if let Some((cache, _)) = &self.keep {
            cache.count(Outcome::Miss);
        }
        let Self {
            orchestrator,
            input,
            ticket,
            keep,
            token_left,
        } = self;
        let run_id = input.run_id.clone();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let run = tokio::spawn(
            async move {
                let panel = orchestrator.run(input, Emitter::new(tx), ticket).await;
                if let Some((cache, key)) = keep {
                    cache.store(&key, panel, token_left).await;
                }
            }
            .in_current_span(),
        );
        Events {
            run_id,
            rx,
            _run: AbortOnDrop(run),
        }
    }
}

/// No run slot was free in time (HTTP 503 `overloaded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overloaded {
    pub retry_after_secs: u64,
}

impl Panels {
    pub fn new(
        orchestrator: Arc<Orchestrator>,
        cache: Option<PanelCache>,
        posts: PostIndex,
        timeout: Duration,
    ) -> Self {
        Self {
            orchestrator,
            cache,
            posts,
            timeout,
        }
    }

    /// The panel for `input`, as `asked`: from the cache, from an identical
    /// request's run under way, or from a run of its own once admitted
    /// (streamed when `asked.stream`).
    pub async fn answer(&self, input: RunInput, asked: Asked) -> Result<Answer, Overloaded> {
        match self.look_up(input, asked).await? {
            LookedUp::Served(panel) => Ok(Answer::Panel(panel)),
            LookedUp::Miss(miss) if asked.stream => Ok(Answer::Stream(miss.stream())),
            LookedUp::Miss(miss) => miss.run().await.map(Answer::Panel),
        }
    }

    /// The panel for `input` whole, never streamed (MCP's `get_suggestions`).
    pub async fn panel(&self, input: RunInput, asked: Asked) -> Result<Panel, Overloaded> {
        match self.look_up(input, asked).await? {
            LookedUp::Served(panel) => Ok(panel),
            LookedUp::Miss(miss) => miss.run().await,
        }
    }

    /// The cache, then coalescing, then admission: a panel already there,
    /// or a run slot for a run of `input`'s own.
    async fn look_up(&self, input: RunInput, asked: Asked) -> Result<LookedUp, Overloaded> {
        let cache = self.cache.as_ref().filter(|_| !asked.no_store);
        let key = cache.map(|c| PanelKey::of(&view(&input), c.generation()));
        if let (Some(cache), Some(key)) = (cache, &key) {
            if asked.no_cache {
                cache.invalidate(key).await;
            } else if let Some(entry) = cache.get(key).await
                && let Some(panel) = self.served(&entry).await
            {
                cache.count(Outcome::Hit);
                return Ok(LookedUp::Served(panel));
            }
            if let Some(ran) = self.coalesce(cache, key, &input).await {
                return Ok(LookedUp::Served(fresh(&ran)));
            }
        } else if let Some(cache) = &self.cache {
            cache.count(Outcome::Bypass);
        }
        let ticket = match self.orchestrator.admit().await {
            Ok(ticket) => ticket,
            Err(o) => {
                // No slot, but an identical request's run may have started
                // meanwhile: its panel rather than a refusal.
                if let (Some(cache), Some(key)) = (cache, &key)
                    && let Some(ran) = self.coalesce(cache, key, &input).await
                {
                    return Ok(LookedUp::Served(fresh(&ran)));
                }
                return Err(Overloaded {
                    retry_after_secs: o.retry_after_secs,
                });
            }
        };
        let token = input.graph_token.as_ref().map(|t| t.expose_secret());
        let token_left = cache::token_left(token);
        Ok(LookedUp::Miss(Miss {
            orchestrator: self.orchestrator.clone(),
            input,
            ticket,
            keep: cache.cloned().zip(key),
            token_left,
        }))
    }

    /// The panel of an identical request's run under way, waited for without
    /// a run slot of its own until this request's deadline (and a little);
    /// None when there is no such run, or it gave nothing in time.
    async fn coalesce(
        &self,
        cache: &PanelCache,
        key: &PanelKey,
        input: &RunInput,
    ) -> Option<Fresh> {
        let shared = cache.running(key)?;
        let until = Deadline::new(input.arrived, self.timeout).shared_run_until();
        let ran = tokio::time::timeout_at(until, shared).await.ok()??;
        cache.count(Outcome::Coalesced);
        Some(ran)
    }

    /// A cached panel: its posts deleted or expired since left out, marked
    /// `meta.cached` (with its original run's id); None if the entry cannot
    /// be read back.
    async fn served(&self, entry: &Entry) -> Option<Panel> {
        let mut panel = entry.panel()?;
        let stored_posts = panel.posts.len();
        let ids: Vec<String> = panel.posts.iter().map(|p| p.id.clone()).collect();
        if !ids.is_empty() {
            let live = self.posts.live(ids).await.unwrap_or_default();
            panel.posts.retain(|p| live.contains(&p.id));
        }
        panel.meta.cached = true;
        // The tag covers content, not `meta`: the stored one holds unless a
        // post was dropped.
        let etag = if panel.posts.len() == stored_posts {
            entry.etag.clone()
        } else {
            cache::etag(&panel)
        };
        Some(Panel {
            panel,
            etag,
            kept: Some(Kept {
                fresh_for: entry.left(),
                age: Some(entry.stored.elapsed()),
            }),
        })
    }
}

/// What identifies `input`'s panel in the cache.
fn view(input: &RunInput) -> View<'_> {
    View {
        post_id: &input.post_id,
        text: &input.text,
        tags: &input.tags,
        category: input.category.as_deref(),
        token: input.graph_token.as_ref(),
    }
}

/// A panel just computed and stored.
fn fresh(ran: &Fresh) -> Panel {
    Panel {
        panel: (*ran.panel).clone(),
        etag: ran.entry.etag.clone(),
        kept: Some(Kept {
            fresh_for: ran.entry.left(),
            age: None,
        }),
    }
}

/// Aborts the streamed run when its events are dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
