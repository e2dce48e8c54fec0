//! Misspelt English words, and the word a board's posts spell instead.

use super::ENGLISH;

/// Posts that must spell a word before a misspelling is corrected to it:
/// one could be the same slip.
const MIN_SPELLING_POSTS: usize = 2;
/// The longest word respelt: longer than English words but a few, and each
/// letter more is ~54 more lookups (a hostile post of long words stays
/// cheap).
const MAX_LETTERS: usize = 24;

/// The English `word` (a keyword: lower-cased) as the posts spell it, when
/// its stem is one no post holds but one edit away (a letter deleted,
/// inserted or replaced, or two neighbours swapped) from stems posts do
/// hold: the one most posts hold (`posts_holding`, at least two), with the
/// word's ending kept (`perfomance` → `performance`, `clinet` → `client`).
/// None for a word the posts hold, a word of the language (`is_word`,
/// asked only of a word no post holds), one of another script or with
/// digits, a stem under five letters, where one edit reaches too many
/// words, and a word over [`MAX_LETTERS`].
pub fn respelt(
    word: &str,
    posts_holding: impl Fn(&str) -> usize,
    is_word: impl Fn(&str) -> bool,
) -> Option<String> {
    if !(5..=MAX_LETTERS).contains(&word.len()) || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let stem = ENGLISH.stem(word);
    if stem.len() < 5
        || !word.starts_with(stem.as_ref())
        || posts_holding(&stem) > 0
        || is_word(word)
    {
        return None;
    }
    let (mut best, mut most) = (None, MIN_SPELLING_POSTS - 1);
    for candidate in one_edit(&stem) {
        let n = posts_holding(&candidate);
        if n > most {
            (best, most) = (Some(candidate), n);
        }
    }
    let best = best?;
    let respelt = format!("{best}{}", &word[stem.len()..]);
    (ENGLISH.stem(&respelt) == best).then_some(respelt)
}

/// The lower-case ASCII words one edit from `word` (Damerau: a letter
/// deleted, inserted or replaced, or two neighbours swapped) that keep its
/// first letter: misspellings seldom change it (Yannakoudakis & Fawthrop,
/// 1983), and a word's first letter dropped is often another word
/// (`acount` is `account`, not `count`).
fn one_edit(word: &str) -> impl Iterator<Item = String> + '_ {
    let b = word.as_bytes();
    let spliced = move |at: usize, skip: usize, with: &[u8]| {
        let mut w = Vec::with_capacity(b.len() + 1);
        w.extend_from_slice(&b[..at]);
        w.extend_from_slice(with);
        w.extend_from_slice(&b[at + skip..]);
        String::from_utf8(w).unwrap_or_default()
    };
    let deleted = (1..b.len()).map(move |i| spliced(i, 1, &[]));
    let swapped = (2..b.len())
        .filter(move |&i| b[i - 1] != b[i])
        .map(move |i| spliced(i - 1, 2, &[b[i], b[i - 1]]));
    let replaced = (1..b.len())
        .flat_map(move |i| {
            (b'a'..=b'z')
                .filter(move |&c| c != b[i])
                .map(move |c| (i, c))
        })
        .map(move |(i, c)| spliced(i, 1, &[c]));
    let inserted = (1..=b.len())
        .flat_map(|i| (b'a'..=b'z').map(move |c| (i, c)))
        .map(move |(i, c)| spliced(i, 0, &[c]));
    deleted.chain(swapped).chain(replaced).chain(inserted)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn a_misspelt_word_is_respelt_as_the_posts_spell_it() {
        let posts: HashMap<String, usize> = [
            "perform", "client", "account", "review", "password", "dinner", "stage",
        ]
        .iter()
        .map(|w| (ENGLISH.stem(w).into_owned(), 5))
        .chain([("count".to_owned(), 50)])
        .collect();
        let holding = |t: &str| posts.get(t).copied().unwrap_or(0);
        for (typo, fixed) in [
            ("perfomance", "performance"),
            ("clinet", "client"),
            ("acount", "account"),
            ("reveiw", "review"),
            ("pasword", "password"),
            ("passwordd", "password"),
        ] {
            assert_eq!(
                respelt(typo, holding, |_| false).as_deref(),
                Some(fixed),
                "{typo}"
            );
        }
        for (word, why) in [
            ("client", "spelt as the posts do"),
            ("grafana", "no near word: a name"),
            ("dinr", "a stem under five letters"),
            ("clien7", "digits: a name"),
        ] {
            assert_eq!(respelt(word, holding, |_| false), None, "{word}: {why}");
        }
        let once = |t: &str| if t == "client" { 1 } else { 0 };
        assert_eq!(
            respelt("clinet", once, |_| false),
            None,
            "one post could share the slip"
        );
        // A hostile post's long word: no edit of it is looked up.
        let lookups = std::cell::Cell::new(0);
        let counted = |t: &str| {
            lookups.set(lookups.get() + 1);
            holding(t)
        };
        let long = format!("clinet{}", "x".repeat(1000));
        assert_eq!(respelt(&long, counted, |_| false), None);
        assert_eq!(lookups.get(), 0, "too long to be a word");
        assert_eq!(
            respelt("clinet", holding, |w| w == "clinet"),
            None,
            "a word of the language"
        );
    }
}
