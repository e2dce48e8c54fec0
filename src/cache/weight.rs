//! What a cached panel costs in memory, so that `cache.max_bytes` bounds
//! what the cache holds: every heap allocation of the entry (the panel's
//! JSON, its tag) and its key, rounded up as jemalloc rounds them (its size
//! classes, `nallocx`), and the cache's own bookkeeping per entry (moka's
//! hash-table node, its LRU and expiry links, the `Arc`s), measured; and
//! the allocator's share under load, measured. A panel of 10 documents and
//! 5 posts: 6.9 KB of JSON, ~8.5 KB held.

use std::mem::size_of;

use super::{Entry, PanelKey};

/// moka's bookkeeping per entry beyond the key and the value, measured with
/// the allocator of `a_full_cache_holds_its_bound_in_memory`: what full
/// caches of 1, 4 and 16 MiB held beyond their weighed entries grew by 290
/// bytes an entry (110 to 1,752 entries), over ~200 KB of the cache's own.
const PER_ENTRY: usize = 290;

/// What the allocator keeps beside the bytes a full cache holds, per byte,
/// in a service under load: freed entries leave holes in the slabs that
/// live ones share. Measured in B14 (each view a new post, the cache full):
/// resident memory 15 s after with the cache against without it, over what
/// the cache held. Medians of three runs against two: 2 %, 8 % and 10 % at
/// 500, 3,000 and 8,000 connections (the most in one run, 17 %). When an
/// entry was the panel's ~60 allocations rather than its JSON, 17–20 %.
const ALLOCATOR_SHARE_PERCENT: usize = 12;

/// The bytes `key` and `entry` hold, with the cache's bookkeeping and the
/// allocator's share.
pub fn of(key: &PanelKey, entry: &Entry) -> u32 {
    let held = PER_ENTRY
        // The key's copy in moka's node, its post id on the heap.
        + size_of::<PanelKey>()
        + allocation(key.post_id.capacity())
        // The `Arc<Entry>` allocation, and what the entry points to.
        + allocation(2 * size_of::<usize>() + size_of::<Entry>())
        + allocation(entry.json.len())
        + allocation(entry.etag.capacity());
    let bytes = held + held * ALLOCATOR_SHARE_PERCENT / 100;
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// What an allocation of `size` bytes takes: jemalloc's size class.
pub(super) fn allocation(size: usize) -> usize {
    if size == 0 {
        return 0;
    }
    // SAFETY: `nallocx` only computes a size class; it allocates nothing,
    // and any size with no flags is a valid argument.
    match unsafe { tikv_jemalloc_sys::nallocx(size, 0) } {
        0 => size,
        rounded => rounded,
    }
}

/// The cache's bound against what a full cache holds, counted by a global
/// allocator of this test binary that keeps, per thread, the bytes held (as
/// jemalloc's size classes round them).
#[cfg(test)]
mod tests {
    use std::{
        alloc::{GlobalAlloc, Layout, System},
        cell::Cell,
    };

    use super::*;
    use crate::{
        cache::{PanelCache, View},
        contract::{
            CombinedSuggestionsResponse, M365Source, McpSuggestion, PostSummary, ResponseMeta,
            RunPath,
        },
        settings::Settings,
    };

    struct Counting;

    thread_local! {
        static HELD: Cell<isize> = const { Cell::new(0) };
    }

    fn count(delta: isize) {
        let _ = HELD.try_with(|held| held.set(held.get() + delta));
    }

    fn held() -> isize {
        HELD.with(Cell::get)
    }

    // SAFETY: every call is System's with the same arguments; the counting
    // touches a thread-local cell only.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(layout) };
            if !p.is_null() {
                count(allocation(layout.size()) as isize);
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = unsafe { System.alloc_zeroed(layout) };
            if !p.is_null() {
                count(allocation(layout.size()) as isize);
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) };
            count(-(allocation(layout.size()) as isize));
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let p = unsafe { System.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                count(allocation(new_size) as isize - allocation(layout.size()) as isize);
            }
            p
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    /// A panel as the service answers one: ten documents, five posts, each
    /// of the lengths Graph and LinkUp give (varied by `i`).
    fn panel(i: usize) -> CombinedSuggestionsResponse {
        let text = |n: usize| "x".repeat(n + i % 37);
        let document = |d: usize| McpSuggestion {
            title: format!("Deployment runbook {i}-{d} {}", text(12)),
            url: format!(
                "https://contoso.sharepoint.com/sites/dev/Shared%20Documents/{}.docx",
                text(20)
            ),
            description: text(170),
            source_type: "m365".into(),
            source: M365Source::Sharepoint,
            status: "available".into(),
        };
        let post = |p: usize| {
            let mut post = PostSummary::example(&format!("p-{i}-{p}"), &text(180));
            post.tags = vec!["devops".into(), "ci".into()];
            post
        };
        CombinedSuggestionsResponse {
            m365: (0..10).map(document).collect(),
            posts: (0..5).map(post).collect(),
            action_hint: Some(format!("Start with '{}' on SharePoint.", text(30))),
            source: "mcp".into(),
            unavailable_sources: Vec::new(),
            meta: ResponseMeta {
                run_id: uuid::Uuid::new_v4().to_string(),
                path: RunPath::Fallback,
                rounds: 0,
                elapsed_ms: 12,
                degraded: vec!["llm_unconfigured".into()],
                provisional: false,
                cached: false,
            },
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_full_cache_holds_its_bound_in_memory() {
        let bound: u64 = 4 << 20;
        let mut settings = Settings::load_from(std::path::Path::new("config"), Default::default())
            .unwrap()
            .cache;
        settings.max_bytes = bound;
        let metrics = crate::metrics::Metrics::default();
        let start = held();
        let cache = PanelCache::new(&settings, [0; 32], metrics);
        // Three times what it holds: it is full, and has evicted.
        for i in 0..1_300 {
            let id = format!("p-{i}");
            let view = View {
                post_id: &id,
                text: "How do I set up a deployment pipeline?",
                tags: &[],
                category: None,
                token: None,
            };
            let key = PanelKey::of(&view, &[0; 32]);
            cache.store(&key, panel(i), None).await;
        }
        let (entries, weighed) = cache.size();
        let held = (held() - start) as f64;
        eprintln!("{entries} entries, weighed {weighed} B, held {held} B");
        assert!(entries < 1_300, "full: {entries} entries");
        // This allocator has no slabs to pin: it sees what is held, the
        // weight less the allocator's share. Held with that share, as in a
        // service under load, is the bound.
        let resident = held * (1.0 + ALLOCATOR_SHARE_PERCENT as f64 / 100.0);
        assert!(
            (resident / bound as f64 - 1.0).abs() <= 0.10,
            "held {held} B, with the allocator's share {resident} B, of {bound}"
        );
        assert!(
            (resident / weighed as f64 - 1.0).abs() <= 0.10,
            "held {held} B, with the allocator's share {resident} B, weighed {weighed}"
        );
    }
}
