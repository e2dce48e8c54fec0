//! The multilingual model's reference board: its vectors of the tuning
//! half's posts (`models/multilingual-e5-small/reference.bin`, written by
//! the `language_means` test from the posts the language means are of),
//! stored with the model. How similar a text is to a post is
//! judged against how similar it is to these, not to the board it is on:
//! LinkUp's live board is small (posts expire within a week) and of few
//! topics, and its own spread of similarities says little (issue 63: the
//! floors chosen on a board of 408 posts admitted a quarter of what the
//! model ranked first on a board of 36). Each question is still judged by
//! its own spread: a generic question is near every post.

use super::vectors::VectorSet;

/// The multilingual model's vectors of the reference posts.
pub const MULTILINGUAL: &[u8] = include_bytes!("../../models/multilingual-e5-small/reference.bin");

/// The multilingual model's reference board from its file of `dims`-long
/// vectors: `E5R1`, dimensions and count (u32), then each vector as a
/// scale (f32) and its components over it (i8), little-endian.
pub fn multilingual(bytes: &[u8], dims: usize) -> Result<VectorSet, String> {
    let bad = |why: &str| format!("reference board: {why}");
    let header = bytes.get(..12).ok_or_else(|| bad("too short"))?;
    let u32_at = |i: usize| {
        u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]) as usize
    };
    if &header[..4] != b"E5R1" || u32_at(4) != dims {
        return Err(bad("not of this model"));
    }
    let body = &bytes[12..];
    if body.len() != u32_at(8) * (4 + dims) {
        return Err(bad("truncated"));
    }
    let mut set = VectorSet::default();
    for (i, v) in body.chunks_exact(4 + dims).enumerate() {
        let scale = f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
        let vector = v[4..].iter().map(|&q| f32::from(q as i8) * scale).collect();
        set.insert(i.to_string(), 0, None, vector);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_board_is_read_whole_and_only_for_its_model() {
        assert_eq!(multilingual(MULTILINGUAL, 384).unwrap().len(), 326);
        assert!(
            multilingual(MULTILINGUAL, 256).is_err(),
            "another model's dimensions"
        );
        assert!(
            multilingual(&MULTILINGUAL[..100], 384).is_err(),
            "truncated"
        );
    }
}
