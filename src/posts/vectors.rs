//! In-memory copy of the post vectors for semantic ranking: unit-length
//! vectors in one contiguous buffer, scanned by dot product (exact search;
//! 100k × 256-d is a few ms with the 8-lane kernel below).

use std::collections::HashMap;

/// Post id → slot; vectors stored contiguously, `dims` floats per slot.
#[derive(Default)]
pub struct VectorSet {
    dims: usize,
    data: Vec<f32>,
    /// Per slot: post id and expiry in unix ms (None = never).
    slots: Vec<(String, Option<i64>)>,
    index: HashMap<String, usize>,
}

impl VectorSet {
    pub fn insert(&mut self, id: String, expires_at_ms: Option<i64>, mut vector: Vec<f32>) {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || (self.dims != 0 && vector.len() != self.dims) {
            if self.dims != 0 && vector.len() != self.dims {
                tracing::warn!(
                    expected = self.dims,
                    got = vector.len(),
                    "vector of another size ignored"
                );
            }
            return;
        }
        self.dims = vector.len();
        vector.iter_mut().for_each(|x| *x /= norm);
        match self.index.get(&id) {
            Some(&slot) => {
                self.data[slot * self.dims..(slot + 1) * self.dims].copy_from_slice(&vector);
                self.slots[slot].1 = expires_at_ms;
            }
            None => {
                self.index.insert(id.clone(), self.slots.len());
                self.slots.push((id, expires_at_ms));
                self.data.extend_from_slice(&vector);
            }
        }
    }

    /// Removes a vector by moving the last one into its slot.
    pub fn remove(&mut self, id: &str) {
        let Some(slot) = self.index.remove(id) else {
            return;
        };
        let last = self.slots.len() - 1;
        if slot != last {
            let (d, src) = (self.dims, last * self.dims);
            self.data.copy_within(src..src + d, slot * d);
            self.slots.swap(slot, last);
            self.index.insert(self.slots[slot].0.clone(), slot);
        }
        self.slots.pop();
        self.data.truncate(last * self.dims);
    }

    /// Ids of the `limit` live posts most similar to `query`, best first.
    pub fn nearest(
        &self,
        query: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Vec<String> {
        let norm = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || query.len() != self.dims || limit == 0 {
            return Vec::new();
        }
        // Keep the best `limit` (score, slot) in a small sorted buffer.
        let mut best: Vec<(f32, usize)> = Vec::with_capacity(limit + 1);
        for (slot, v) in self.data.chunks_exact(self.dims).enumerate() {
            let score = dot(v, query);
            if best.len() == limit && score <= best[limit - 1].0 {
                continue;
            }
            let (id, expires) = &self.slots[slot];
            if expires.is_some_and(|e| e <= now_ms) || exclude.contains(id) {
                continue;
            }
            let at = best.partition_point(|(s, _)| *s >= score);
            best.insert(at, (score, slot));
            best.truncate(limit);
        }
        best.into_iter()
            .map(|(_, slot)| self.slots[slot].0.clone())
            .collect()
    }
}

/// Dot product with eight independent accumulators, so the compiler can use SIMD.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Reciprocal rank fusion of rankings (best first): robust to their different scales.
pub fn fuse(rankings: &[&[String]], limit: usize) -> Vec<String> {
    const K: f64 = 60.0;
    let mut scores: Vec<(String, f64)> = Vec::new();
    for ranking in rankings {
        for (rank, id) in ranking.iter().enumerate() {
            let score = 1.0 / (K + rank as f64 + 1.0);
            match scores.iter_mut().find(|(i, _)| i == id) {
                Some((_, s)) => *s += score,
                None => scores.push((id.clone(), score)),
            }
        }
    }
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    scores.into_iter().take(limit).map(|(id, _)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_skips_expired_excluded_and_orders_by_similarity() {
        let mut set = VectorSet::default();
        set.insert("a".into(), None, vec![1.0, 0.0]);
        set.insert("b".into(), None, vec![0.7, 0.7]);
        set.insert("c".into(), Some(10), vec![1.0, 0.0]);
        set.insert("d".into(), None, vec![1.0, 0.1]);
        let ids = set.nearest(&[2.0, 0.0], 100, &["d".to_string()], 5);
        assert_eq!(ids, vec!["a", "b"]);
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
            set.insert(id.into(), None, v(x));
        }
        set.remove("a");
        set.insert("b".into(), None, v(-5.0));
        assert_eq!(set.nearest(&v(1.0), 0, &[], 5), vec!["c", "b"]);
    }

    #[test]
    fn eight_lane_dot_product_matches_the_plain_one() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..19).map(|i| 1.0 - i as f32 * 0.1).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-4);
    }

    #[test]
    fn fusion_favours_items_ranked_by_both() {
        let lexical = vec!["x".to_string(), "y".to_string()];
        let semantic = vec!["z".to_string(), "y".to_string()];
        assert_eq!(fuse(&[&lexical, &semantic], 3)[0], "y");
    }
}
