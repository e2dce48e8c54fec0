//! What the stores write and read: posts with what the index derives from
//! them (and, copied, their shared documents and replies), run records, shared panels, vectors as bytes, and time as unix milliseconds. A
//! leaf: it depends on the contract's types only.

use time::{OffsetDateTime, format_description::well_known::Rfc3339};

use crate::contract::PostSummary;

/// A post as written: the summary plus what the index derives from it.
pub struct StoredPost {
    pub post: PostSummary,
    pub search_text: String,
    pub expires_at_ms: Option<i64>,
    /// Its vector when already known (a migration); None: kept when the
    /// text is unchanged, else computed later.
    pub vector: Option<Vec<f32>>,
    /// The id of the model that computed `vector`: a vector of another
    /// model than the index's is not kept.
    pub vector_model: Option<String>,
    /// Its shared documents and replies when copied (`migrate-posts`);
    /// None: kept as stored.
    pub knowledge: Option<super::Knowledge>,
}

/// A post waiting for its vector: (id, text to embed, expiry in unix ms).
pub type PendingPost = (String, String, Option<i64>);

/// A run record as stored: its id, JSON and when it may be purged.
pub struct StoredRun {
    pub run_id: String,
    pub keep_until_ms: i64,
    pub record: String,
}

/// A panel in the shared tier of the panel cache: its JSON under its key's
/// digest, until `expires_at_ms`.
pub struct SharedPanel {
    pub key: [u8; 32],
    /// Its post: a write or delete of it drops the panel.
    pub post_id: String,
    pub json: String,
    pub stored_at_ms: i64,
    pub expires_at_ms: i64,
}

/// What a change to a post's text does to its stored vector, as the
/// in-memory index applies it.
pub enum Vector {
    Keep,
    Set(Vec<f32>),
    Drop,
}

/// A vector as stored: its f32 components, little-endian.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// The vector [`encode`] stored.
pub fn decode(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Unix milliseconds of an RFC 3339 timestamp.
pub fn parse_time_ms(s: &str) -> Option<i64> {
    OffsetDateTime::parse(s, &Rfc3339)
        .ok()
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
}

/// Now, in unix milliseconds.
pub fn now_ms() -> i64 {
    (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}
