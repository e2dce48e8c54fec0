//! In-memory copy of the post vectors for semantic ranking: unit-length
//! vectors, scanned by dot product (exact; fine for the index's size).

use std::collections::HashMap;

/// Post id → (expiry in unix ms, unit vector).
#[derive(Default)]
pub struct VectorSet {
    vectors: HashMap<String, (Option<i64>, Vec<f32>)>,
}

impl VectorSet {
    pub fn insert(&mut self, id: String, expires_at_ms: Option<i64>, mut vector: Vec<f32>) {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            vector.iter_mut().for_each(|x| *x /= norm);
            self.vectors.insert(id, (expires_at_ms, vector));
        }
    }

    pub fn remove(&mut self, id: &str) {
        self.vectors.remove(id);
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
        if norm == 0.0 {
            return Vec::new();
        }
        let mut scored: Vec<(f32, &String)> = self
            .vectors
            .iter()
            .filter(|(id, (exp, v))| {
                v.len() == query.len() && exp.is_none_or(|e| e > now_ms) && !exclude.contains(id)
            })
            .map(|(id, (_, v))| {
                (
                    v.iter().zip(query).map(|(a, b)| a * b).sum::<f32>() / norm,
                    id,
                )
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, id)| id.clone())
            .collect()
    }
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
    fn fusion_favours_items_ranked_by_both() {
        let lexical = vec!["x".to_string(), "y".to_string()];
        let semantic = vec!["z".to_string(), "y".to_string()];
        assert_eq!(fuse(&[&lexical, &semantic], 3)[0], "y");
    }
}
