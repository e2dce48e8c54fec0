//! In-memory copy of the post vectors for semantic ranking: unit-length
//! vectors quantized to 8 bits (a scale per vector) in one contiguous buffer,
//! scanned by integer dot product (exact scan of quantized vectors; at 100k
//! × 256-d the buffer is 25 MB instead of 100 MB of f32, and scanning it is
//! bound by memory bandwidth).

use std::{
    collections::HashMap,
    hash::{Hash, Hasher},
    sync::{Arc, Mutex, PoisonError},
};

/// Post id → slot; vectors stored contiguously, `dims` bytes per slot.
#[derive(Default)]
pub struct VectorSet {
    dims: usize,
    data: Vec<i8>,
    /// Per slot: post id, expiry in unix ms (None = never), and the scale that
    /// turns its quantized components back into the unit vector's.
    slots: Vec<(String, Option<i64>, f32)>,
    index: HashMap<String, usize>,
    /// A digest of the text each vector was computed from → its slot: a
    /// query that is a stored post's text reads its vector.
    texts: HashMap<u64, usize>,
    /// Per slot, the digest of its text.
    digests: Vec<u64>,
    /// The spreads computed since the vectors last changed, by the digest
    /// of the text whose vector they are of (see [`Self::spread`]).
    spreads: Mutex<HashMap<u64, Spread>>,
    /// The scans made since the vectors last changed, by their query,
    /// exclusions and limit (see [`Self::nearest`]).
    scans: Mutex<HashMap<u64, Arc<Scan>>>,
}

/// A scan's nearest posts and spread.
type Scan = (Vec<(String, f32)>, Spread);

/// Spreads, and scans, remembered at most; past it a memo starts again.
const MEMO: usize = 1024;

impl VectorSet {
    /// Vectors held.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Adds or replaces `id`'s vector, computed from a text of digest `text`.
    pub fn insert(&mut self, id: String, text: u64, expires_at_ms: Option<i64>, vector: Vec<f32>) {
        if self.dims != 0 && vector.len() != self.dims {
            tracing::warn!(
                expected = self.dims,
                got = vector.len(),
                "vector of another size ignored"
            );
            return;
        }
        let Some((quantized, scale)) = quantize(&vector) else {
            return;
        };
        self.forget_memos();
        self.dims = vector.len();
        let slot = match self.index.get(&id) {
            Some(&slot) => {
                self.data[slot * self.dims..(slot + 1) * self.dims].copy_from_slice(&quantized);
                self.slots[slot] = (id, expires_at_ms, scale);
                self.forget_text(slot);
                self.digests[slot] = text;
                slot
            }
            None => {
                self.index.insert(id.clone(), self.slots.len());
                self.slots.push((id, expires_at_ms, scale));
                self.data.extend_from_slice(&quantized);
                self.digests.push(text);
                self.slots.len() - 1
            }
        };
        self.texts.insert(text, slot);
    }

    /// The vector computed from a text of digest `text`, when one is held.
    pub fn of_text(&self, text: u64) -> Option<Vec<f32>> {
        let &slot = self.texts.get(&text)?;
        let scale = self.slots[slot].2;
        let v = &self.data[slot * self.dims..(slot + 1) * self.dims];
        Some(v.iter().map(|&q| f32::from(q) * scale).collect())
    }

    /// Drops the text digest of `slot` (unless another slot holds it now).
    fn forget_text(&mut self, slot: usize) {
        let digest = self.digests[slot];
        if self.texts.get(&digest) == Some(&slot) {
            self.texts.remove(&digest);
        }
    }

    /// The spreads and scans remembered are of other vectors than these now.
    fn forget_memos(&mut self) {
        self.spreads
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.scans
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// How similar the posts are to `query`, the vector of a text of digest
    /// `text`: as [`Self::nearest`]'s spread, remembered until the vectors
    /// change (a view judges several texts against its post's one vector,
    /// and one scan of every vector tells the spread for all of them).
    pub fn spread(&self, text: u64, query: &[f32]) -> Spread {
        let memo = || self.spreads.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(spread) = memo().get(&text) {
            return *spread;
        }
        let (_, spread) = self.scan(query, 0, &[], 1);
        let mut memo = memo();
        if memo.len() >= MEMO {
            memo.clear();
        }
        memo.insert(text, spread);
        spread
    }

    /// Sets a held vector's expiry; false when the id has no vector.
    pub fn set_expiry(&mut self, id: &str, expires_at_ms: Option<i64>) -> bool {
        let Some(&slot) = self.index.get(id) else {
            return false;
        };
        self.slots[slot].1 = expires_at_ms;
        self.forget_memos();
        true
    }

    /// Removes a vector by moving the last one into its slot.
    pub fn remove(&mut self, id: &str) {
        let Some(slot) = self.index.remove(id) else {
            return;
        };
        self.forget_memos();
        self.forget_text(slot);
        let last = self.slots.len() - 1;
        if slot != last {
            let (d, src) = (self.dims, last * self.dims);
            self.data.copy_within(src..src + d, slot * d);
            self.slots.swap(slot, last);
            self.digests.swap(slot, last);
            self.index.insert(self.slots[slot].0.clone(), slot);
            if self.texts.get(&self.digests[slot]) == Some(&last) {
                self.texts.insert(self.digests[slot], slot);
            }
        }
        self.digests.pop();
        self.slots.pop();
        self.data.truncate(last * self.dims);
    }

    /// The `limit` live posts most similar to `query`, best first, with
    /// their cosine similarity, and how similar the posts are to it overall.
    /// Remembered until the vectors change: a view's posts search and its
    /// shares (`agent::direct::shares`) ask the same of its post's vector,
    /// and a scan of every vector is most of a search's cost. A post that
    /// expired since is left out (its place is not filled: posts expiring
    /// are few, and the next change of the vectors scans again).
    pub fn nearest(
        &self,
        query: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> (Vec<(String, f32)>, Spread) {
        let key = {
            let mut h = std::hash::DefaultHasher::new();
            for x in query {
                x.to_bits().hash(&mut h);
            }
            (exclude, limit).hash(&mut h);
            h.finish()
        };
        let memo = || self.scans.lock().unwrap_or_else(PoisonError::into_inner);
        let remembered = memo().get(&key).cloned();
        let scan = match remembered {
            Some(scan) => scan,
            None => {
                let scan = Arc::new(self.scan(query, now_ms, exclude, limit));
                let mut memo = memo();
                if memo.len() >= MEMO {
                    memo.clear();
                }
                memo.insert(key, scan.clone());
                scan
            }
        };
        let live = |id: &String| {
            self.index
                .get(id)
                .and_then(|&slot| self.slots[slot].1)
                .is_none_or(|expires| expires > now_ms)
        };
        let found = scan.0.iter().filter(|(id, _)| live(id)).cloned().collect();
        (found, scan.1)
    }

    /// [`Self::nearest`], scanning every vector.
    fn scan(
        &self,
        query: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> (Vec<(String, f32)>, Spread) {
        if query.len() != self.dims || limit == 0 {
            return (Vec::new(), Spread::default());
        }
        let Some((query, query_scale)) = quantize(query) else {
            return (Vec::new(), Spread::default());
        };
        let (mut sum, mut sum_sq) = (0f64, 0f64);
        // Keep the best `limit` (score, slot) in a small sorted buffer.
        let mut best: Vec<(f32, usize)> = Vec::with_capacity(limit + 1);
        // The dot products a block of vectors at a time, by the widest
        // integer instructions the CPU has, then the block's bookkeeping.
        let mut dots = [0i32; BLOCK];
        for (block, vectors) in self.data.chunks(BLOCK * self.dims).enumerate() {
            let dots = &mut dots[..vectors.len() / self.dims];
            dot_each(vectors, &query, dots);
            for (i, &d) in dots.iter().enumerate() {
                let slot = block * BLOCK + i;
                let (id, expires, scale) = &self.slots[slot];
                let score = d as f32 * scale;
                sum += f64::from(score);
                sum_sq += f64::from(score) * f64::from(score);
                if best.len() == limit && score <= best[limit - 1].0 {
                    continue;
                }
                if expires.is_some_and(|e| e <= now_ms) || exclude.contains(id) {
                    continue;
                }
                let at = best.partition_point(|(s, _)| *s >= score);
                best.insert(at, (score, slot));
                best.truncate(limit);
            }
        }
        let n = self.slots.len().max(1) as f64;
        let mean = sum / n;
        let spread = Spread {
            mean: (mean * f64::from(query_scale)) as f32,
            std: ((sum_sq / n - mean * mean).max(0.0).sqrt() * f64::from(query_scale)) as f32,
            posts: self.slots.len(),
        };
        let found = best
            .into_iter()
            .map(|(score, slot)| (self.slots[slot].0.clone(), score * query_scale))
            .collect();
        (found, spread)
    }
}

/// How similar the indexed posts are to a query: the mean and standard
/// deviation of their cosines (expired and excluded posts included: they
/// are few, and the scan stays one pass).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f32,
    pub std: f32,
    pub posts: usize,
}

/// The unit vector of `v` as 8-bit components and the scale back (its largest
/// component maps to ±127); None for a zero or non-finite vector.
fn quantize(v: &[f32]) -> Option<(Vec<i8>, f32)> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs())) / norm;
    if !(norm.is_normal() && max.is_normal()) {
        return None;
    }
    let scale = max / 127.0;
    let q = v.iter().map(|x| (x / norm / scale).round() as i8).collect();
    Some((q, scale))
}

/// Vectors scanned per block: their dot products fit a 4 KB stack buffer.
const BLOCK: usize = 1024;

/// `out[i]` = the dot product of the `i`-th vector of `vectors` (each
/// `query.len()` long) with `query`. Compiled for AVX2 as well, chosen at run
/// time: at 100k posts of 384 dimensions a scan takes ~2.2 ms instead of ~3.5
/// ms (SSE2's byte products need more instructions to widen).
fn dot_each(vectors: &[i8], query: &[i8], out: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { dot_each_avx2(vectors, query, out) };
    }
    dot_each_portable(vectors, query, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_each_avx2(vectors: &[i8], query: &[i8], out: &mut [i32]) {
    dot_each_portable(vectors, query, out);
}

#[inline(always)]
fn dot_each_portable(vectors: &[i8], query: &[i8], out: &mut [i32]) {
    for (v, d) in vectors.chunks_exact(query.len()).zip(out) {
        *d = dot(v, query);
    }
}

/// Integer dot product with sixteen independent accumulators, so the compiler
/// can use SIMD multiply-adds.
#[inline(always)]
fn dot(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    acc.iter().sum::<i32>() + tail
}

/// Weighted reciprocal rank fusion of rankings (best first, with their
/// weights; their own scores are not used): robust to their different scales.
pub fn fuse<S>(rankings: &[(&[(String, S)], f64)]) -> Vec<String> {
    const K: f64 = 60.0;
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for (ranking, weight) in rankings {
        for (rank, (id, _)) in ranking.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() += weight / (K + rank as f64 + 1.0);
        }
    }
    let mut scores: Vec<(&str, f64)> = scores.into_iter().collect();
    scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    scores.into_iter().map(|(id, _)| id.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    impl VectorSet {
        fn nearest_ids(
            &self,
            q: &[f32],
            now: i64,
            exclude: &[String],
            limit: usize,
        ) -> Vec<String> {
            self.nearest(q, now, exclude, limit)
                .0
                .into_iter()
                .map(|(id, _)| id)
                .collect()
        }
    }

    #[test]
    fn nearest_skips_expired_excluded_and_orders_by_similarity() {
        let mut set = VectorSet::default();
        set.insert("a".into(), 0, None, vec![1.0, 0.0]);
        set.insert("b".into(), 0, None, vec![0.7, 0.7]);
        set.insert("c".into(), 0, Some(10), vec![1.0, 0.0]);
        set.insert("d".into(), 0, None, vec![1.0, 0.1]);
        let ids = set.nearest_ids(&[2.0, 0.0], 100, &["d".to_string()], 5);
        assert_eq!(ids, vec!["a", "b"]);
    }

    #[test]
    fn a_remembered_spread_is_the_scans_until_the_vectors_change() {
        let mut set = VectorSet::default();
        set.insert("a".into(), 0, None, vec![1.0, 0.0]);
        set.insert("b".into(), 0, None, vec![0.0, 1.0]);
        let q = [1.0, 0.0];
        let scanned = |set: &VectorSet| set.nearest(&q, 0, &[], 1).1;
        assert_eq!(set.spread(7, &q), scanned(&set));
        assert_eq!(set.spread(7, &q), scanned(&set), "remembered");
        set.insert("c".into(), 0, None, vec![1.0, 0.1]);
        assert_eq!(set.spread(7, &q), scanned(&set), "after an insert");
        assert_eq!(set.spread(7, &q).posts, 3);
        set.remove("a");
        assert_eq!(set.spread(7, &q), scanned(&set), "after a removal");
        assert_eq!(set.spread(7, &q).posts, 2);
    }

    #[test]
    fn a_new_expiry_applies_without_the_vector_being_given_again() {
        let mut set = VectorSet::default();
        set.insert("a".into(), 0, None, vec![1.0, 0.0]);
        assert!(set.set_expiry("a", Some(10)));
        assert!(!set.set_expiry("missing", Some(10)));
        assert_eq!(set.nearest_ids(&[1.0, 0.0], 5, &[], 5), ["a"]);
        assert!(
            set.nearest_ids(&[1.0, 0.0], 100, &[], 5).is_empty(),
            "expired at 10"
        );
    }

    #[test]
    fn a_remembered_scan_holds_until_the_vectors_change_without_posts_expired_since() {
        let mut set = VectorSet::default();
        set.insert("a".into(), 0, Some(10), vec![1.0, 0.0]);
        set.insert("b".into(), 0, None, vec![0.7, 0.7]);
        let q = [1.0, 0.0];
        assert_eq!(set.nearest_ids(&q, 5, &[], 5), ["a", "b"]);
        assert_eq!(set.nearest_ids(&q, 20, &[], 5), ["b"], "a expired at 10");
        assert_eq!(
            set.nearest_ids(&q, 5, &["b".to_owned()], 5),
            ["a"],
            "other exclusions, another scan"
        );
        set.insert("c".into(), 0, None, vec![1.0, 0.1]);
        assert_eq!(
            set.nearest_ids(&q, 20, &[], 5),
            ["c", "b"],
            "after an insert"
        );
        set.remove("c");
        assert_eq!(set.nearest_ids(&q, 20, &[], 5), ["b"], "after a removal");
        assert!(set.set_expiry("b", Some(15)));
        assert!(set.nearest_ids(&q, 20, &[], 5).is_empty(), "a new expiry");
    }

    #[test]
    fn removal_and_replacement_keep_the_other_vectors_intact() {
        let mut set = VectorSet::default();
        let v = |x: f32| {
            (0..10)
                .map(|i| if i == 0 { x } else { 0.1 })
                .collect::<Vec<f32>>()
        };
        for (id, x) in [("a", 1.0), ("b", 2.0), ("c", 3.0)] {
            set.insert(id.into(), 0, None, v(x));
        }
        set.remove("a");
        set.insert("b".into(), 0, None, v(-5.0));
        assert_eq!(set.nearest_ids(&v(1.0), 0, &[], 5), vec!["c", "b"]);
    }

    #[test]
    fn a_stored_posts_text_reads_its_vector_until_it_is_removed_or_replaced() {
        let mut set = VectorSet::default();
        set.insert("a".into(), 11, None, vec![0.6, 0.8]);
        set.insert("b".into(), 22, None, vec![1.0, 0.0]);
        let a = set.of_text(11).unwrap();
        assert!(
            (a[0] - 0.6).abs() < 0.01 && (a[1] - 0.8).abs() < 0.01,
            "{a:?}"
        );
        set.remove("a");
        assert!(set.of_text(11).is_none());
        assert!(
            set.of_text(22).is_some(),
            "b moved into a's slot, still found"
        );
        set.insert("b".into(), 33, None, vec![0.0, 1.0]);
        assert!(set.of_text(22).is_none(), "b's text changed");
        assert!(set.of_text(33).unwrap()[1] > 0.99);
    }

    #[test]
    fn the_dispatched_scan_gives_the_plain_dot_products() {
        // 37: two sixteen-lane chunks and a tail.
        let query: Vec<i8> = (0..37).map(|i| (i * 7 - 127) as i8).collect();
        let vectors: Vec<i8> = (0..37 * 5).map(|i| (i * 13 % 255 - 127) as i8).collect();
        let mut out = [0; 5];
        dot_each(&vectors, &query, &mut out);
        for (v, d) in vectors.chunks(37).zip(out) {
            let plain: i32 = v
                .iter()
                .zip(&query)
                .map(|(&x, &y)| x as i32 * y as i32)
                .sum();
            assert_eq!(d, plain);
        }
    }

    #[test]
    fn quantized_ranking_agrees_with_exact_cosine() {
        // Deterministic pseudo-random 256-d vectors.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        // More vectors than a scan's block, the nearest in later blocks.
        let vectors: Vec<Vec<f32>> = (0..2_500)
            .map(|_| (0..256).map(|_| next()).collect())
            .collect();
        let query: Vec<f32> = vectors[1500]
            .iter()
            .zip(&vectors[2400])
            .map(|(a, b)| a + b)
            .collect();
        let mut set = VectorSet::default();
        for (i, v) in vectors.iter().enumerate() {
            set.insert(i.to_string(), 0, None, v.clone());
        }
        let cosine = |v: &[f32]| {
            let n = |x: &[f32]| x.iter().map(|a| a * a).sum::<f32>().sqrt();
            v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>() / n(v) / n(&query)
        };
        let mut exact: Vec<(f32, String)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (cosine(v), i.to_string()))
            .collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let exact: Vec<String> = exact.into_iter().take(10).map(|(_, id)| id).collect();
        let found = set.nearest_ids(&query, 0, &[], 10);
        assert_eq!(found[..2], exact[..2]);
        let shared = found.iter().filter(|id| exact.contains(id)).count();
        assert!(shared >= 9, "{found:?} vs {exact:?}");
        let cosines: Vec<f32> = vectors.iter().map(|v| cosine(v)).collect();
        let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
        let var = cosines.iter().map(|c| (c - mean).powi(2)).sum::<f32>() / cosines.len() as f32;
        let (_, spread) = set.nearest(&query, 0, &[], 10);
        assert_eq!(spread.posts, 2_500);
        assert!((spread.mean - mean).abs() < 0.005, "{spread:?} vs {mean}");
        assert!(
            (spread.std - var.sqrt()).abs() < 0.005,
            "{spread:?} vs {}",
            var.sqrt()
        );
    }

    #[test]
    fn fusion_favours_items_ranked_by_both_and_weighs_meaning_more() {
        let ranked = |ids: &[&str]| -> Vec<(String, f32)> {
            ids.iter().map(|id| (id.to_string(), 0.0)).collect()
        };
        let lexical = ranked(&["x", "y"]);
        let semantic = ranked(&["z", "y"]);
        assert_eq!(fuse(&[(&lexical, 1.0), (&semantic, 1.0)])[0], "y");
        let semantic = ranked(&["z", "w"]);
        assert_eq!(
            fuse(&[(&lexical, 1.0), (&semantic, 2.0)])[0],
            "z",
            "first by meaning, absent by words, still first"
        );
    }
}
