//! Korean in the word analysis. A Korean word (eojeol) is a stem with
//! particles and verb endings written onto it (`휴가를`, `신청은요`,
//! `재시작돼요`): query terms are the stems, with those suffixes taken off,
//! and the post index matches Hangul by overlapping character bigrams of the
//! stems, as Lucene's CJK analysis does, so a compound or a spacing variant
//! still meets its parts (`연차휴가` and `휴가`). Latin terms written into a
//! Korean sentence keep their own analysis (`AWS가` is `aws`).

mod grammar;

use grammar::{
    DEPENDENT_NOUNS, FUNCTION_WORDS, LIGHT_VERB_ENDINGS, NOUN_FINAL_PARTICLES, PARTICLES,
    VERB_ENDINGS,
};

/// A Hangul syllable (U+AC00–U+D7A3).
pub fn is_hangul(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

/// A compatibility jamo (ㄱ–ㅣ, U+3131–U+318E): written alone they are
/// laughter, tears or typos (`ㅋㅋ`, `ㅠㅠ`), never a term.
pub fn is_jamo(c: char) -> bool {
    ('\u{3131}'..='\u{318E}').contains(&c)
}

/// Whether `text` is written in Korean: Hangul makes up at least a quarter
/// of its letters (Korean posts carry English terms — "PR 올렸는데 리뷰어
/// 승인" is Korean; an English post naming one Korean word is not).
pub fn is_korean(text: &str) -> bool {
    let (mut hangul, mut letters) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        hangul += usize::from(is_hangul(c));
    }
    hangul > 0 && hangul * 4 >= letters
}

/// The stem of a Hangul word for the index: its particles and light-verb
/// endings taken off (at most two, longest first, keeping two syllables at
/// least: `휴가` stays whole, `휴가가` is `휴가`). None for a function word
/// or a bare suffix (`어디서`, `하나요`).
pub fn stem(word: &str) -> Option<&str> {
    if FUNCTION_WORDS.contains(&word) || is_noun_suffix(word) {
        return None;
    }
    let mut stem = word;
    for _ in 0..2 {
        match strip_noun(stem) {
            Some(shorter) => stem = shorter,
            None => break,
        }
    }
    (!FUNCTION_WORDS.contains(&stem)).then_some(stem)
}

/// The query term of a Hangul word: its stem, as a person would type it
/// into a search box, or none for a predicate (a verb or adjective: it says
/// what to do, not what about). `next` is the word after it in the same
/// clause, if any: a one-syllable particle that nouns also end with comes
/// off only when a predicate or a function word follows (`파드가 계속`,
/// `서버가 죽었어요`), or when it is `이` after a closed syllable, the
/// subject particle's form there (`노트북이`). Before another noun, or
/// ending a title, it is the noun's own (`여름휴가 일정`, `심각도`). A
/// noun is never cut below itself.
pub fn query_stem<'a>(word: &'a str, next: Option<&str>) -> Option<&'a str> {
    if is_predicate(word, next) {
        return None;
    }
    let mut stem = word;
    for round in 0..2 {
        let Some(shorter) = strip_noun(stem) else {
            break;
        };
        let suffix = &stem[shorter.len()..];
        // Only the particle next to the following word is told by it.
        if NOUN_FINAL_PARTICLES.contains(&suffix)
            && (round > 0 || !particle_by_context(shorter, suffix, next))
        {
            break;
        }
        stem = shorter;
    }
    // 되다 after a verb's -아야/-어야 is "must" (`물어봐야되요`): no noun.
    if stem != word && stem.ends_with('야') && is_predicate(stem, None) {
        return None;
    }
    (!FUNCTION_WORDS.contains(&stem)).then_some(stem)
}

/// Whether `word`, in front of `next`, is a verb or adjective of its own
/// (not a noun made one with 하다/되다), by the shape of its ending:
/// - a verb ending after a stem of one syllable or more (`싶은데`,
///   `났는데`, `받아야`, `봐요`, `줄이려면`);
/// - `아/어` fused into an open stem before `서`, `야`, `요` (`느려서`,
///   `바빠서`): nouns ending in `서` close the syllable before it
///   (`신청서`, `계약서`) or have another vowel (`보고서`, `명세서`);
/// - one syllable and an adnominal ending or a particle no noun ends with
///   (`먹은`, `같은`, `받을`, `중에`): a one-syllable stem is no term
///   either way;
/// - an adnominal form (ending in ㄴ or ㄹ) before a dependent noun
///   (`만들 수`, `만든 거`).
fn is_predicate(word: &str, next: Option<&str>) -> bool {
    if strip_noun(word).is_some() {
        // A noun with a particle, or made a verb: its noun is the term.
        return false;
    }
    let syllables: Vec<char> = word.chars().collect();
    let n = syllables.len();
    if strip_leaving(word, VERB_ENDINGS, 1).is_some() {
        return true;
    }
    if n >= 2
        && ['서', '야', '요'].contains(&syllables[n - 1])
        && jamo(syllables[n - 2]).is_some_and(|(vowel, fin)| {
            fin == 0
                && (FUSED_VOWELS.contains(&vowel)
                    // 하/내 + 어 (`해야`, `내야`); `개요` is a noun.
                    || (vowel == VOWEL_AE && syllables[n - 1] != '요'))
        })
    {
        return true;
    }
    // The dependent noun 거 written onto an adnominal form (`같은거`,
    // `하는거`).
    if n >= 3
        && syllables[n - 1] == '거'
        && jamo(syllables[n - 2]).is_some_and(|(_, fin)| fin == FINAL_N || fin == FINAL_L)
    {
        return true;
    }
    if n == 2 && ['은', '는', '을', '를', '에', '던', '된', '될'].contains(&syllables[1]) {
        return true;
    }
    let adnominal = jamo(syllables[n - 1]).is_some_and(|(_, fin)| fin == FINAL_N || fin == FINAL_L);
    adnominal && next.is_some_and(|w| DEPENDENT_NOUNS.contains(&w))
}

/// Whether `suffix` on `stem` is a particle, told by the word after it
/// (see [`query_stem`]).
fn particle_by_context(stem: &str, suffix: &str, next: Option<&str>) -> bool {
    let closed = stem
        .chars()
        .last()
        .and_then(jamo)
        .is_some_and(|(_, fin)| fin != 0);
    if suffix == "이" && closed {
        return true;
    }
    // A word of one syllable after it is an adverb (`안`, `잘`, `좀`).
    next.is_some_and(|w| {
        w.chars().count() == 1
            || FUNCTION_WORDS.contains(&w)
            || is_noun_suffix(w)
            || is_predicate(w, None)
            || strip(w, LIGHT_VERB_ENDINGS).is_some()
    })
}

/// The vowels `아`/`어` fuse into with an open stem: ㅏ, ㅓ, ㅕ, ㅘ, ㅝ
/// (`가`, `서`, `려`, `봐`, `줘`).
const FUSED_VOWELS: [u32; 5] = [0, 4, 6, 9, 14];
/// ㅐ, the vowel of 해 and 내 (하/내 + 어).
const VOWEL_AE: u32 = 1;
/// The final consonants ㄴ and ㄹ (adnominal endings).
const FINAL_N: u32 = 4;
const FINAL_L: u32 = 8;

/// A Hangul syllable's vowel and final consonant indices (0: none).
fn jamo(c: char) -> Option<(u32, u32)> {
    is_hangul(c).then(|| {
        let i = c as u32 - 0xAC00;
        ((i / 28) % 21, i % 28)
    })
}

/// Whether `w` is a particle or a light verb's ending.
fn is_noun_suffix(w: &str) -> bool {
    PARTICLES.contains(&w) || LIGHT_VERB_ENDINGS.contains(&w)
}

/// `word` without the longest particle or light verb's ending it ends with,
/// when two syllables remain.
fn strip_noun(word: &str) -> Option<&str> {
    [strip(word, PARTICLES), strip(word, LIGHT_VERB_ENDINGS)]
        .into_iter()
        .flatten()
        .min_by_key(|stem| stem.len())
}

/// `word` without the longest of `suffixes` it ends with, when two
/// syllables remain.
fn strip<'a>(word: &'a str, suffixes: &[&str]) -> Option<&'a str> {
    strip_leaving(word, suffixes, 2)
}

/// `word` without the longest of `suffixes` it ends with, when `least`
/// syllables remain.
fn strip_leaving<'a>(word: &'a str, suffixes: &[&str], least: usize) -> Option<&'a str> {
    let syllables = word.chars().count();
    suffixes
        .iter()
        .filter(|s| word.ends_with(**s) && syllables >= s.chars().count() + least)
        .map(|s| &word[..word.len() - s.len()])
        .min_by_key(|stem| stem.len())
}

/// The index terms of a Hangul stem: its overlapping character bigrams, or
/// the stem itself when it is one or two syllables.
pub fn bigrams(stem: &str) -> Vec<String> {
    let chars: Vec<char> = stem.chars().collect();
    if chars.len() <= 2 {
        return vec![stem.to_owned()];
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn particles_and_endings_come_off_and_short_stems_stay_whole() {
        for (word, want) in [
            ("휴가를", Some("휴가")),
            ("휴가", Some("휴가")),
            ("휴가가", Some("휴가")),
            ("신청은", Some("신청")),
            ("신청은요", Some("신청")),
            ("재시작돼요", Some("재시작")),
            ("신청하려면", Some("신청")),
            ("비용이", Some("비용")),
            ("파드가", Some("파드")),
            ("쿠버네티스", Some("쿠버네티스")),
            ("어디서", None),
            ("하나요", None),
            ("갑자기", None),
        ] {
            assert_eq!(stem(word), want, "{word}");
        }
    }

    #[test]
    fn a_verb_of_its_own_gives_no_query_term_and_a_noun_made_verb_its_noun() {
        assert_eq!(query_stem("줄이려면", None), None);
        assert_eq!(query_stem("깔려는데", None), None);
        assert_eq!(query_stem("신청하려면", None), Some("신청"));
        assert_eq!(query_stem("재시작돼요", None), Some("재시작"));
        assert_eq!(query_stem("비용이", Some("갑자기")), Some("비용"));
        assert_eq!(stem("줄이려면"), Some("줄이려면"), "indexed as written");
    }

    /// Issue 51's examples: predicate forms never take a query slot.
    #[test]
    fn verbs_and_adjectives_by_the_shape_of_their_endings_give_no_query_term() {
        for (word, next) in [
            ("느려서", Some("교체")),
            ("싶은데", None),
            ("봐요", None),
            ("먹은", Some("경비")),
            ("받아야", Some("머지")),
            ("같은", Some("거")),
            ("만들", Some("수")),
            ("만든", Some("거")),
            ("났는데", None),
            ("올렸는데", Some("리뷰어")),
            ("바빠서", None),
            ("좋은", Some("방법")),
            // Seen taking Graph query slots on the tuning half (stop 57).
            ("중인데", Some("설정")),
            ("있던데", None),
            ("뽑자고", Some("하셔서요")),
            ("해야", Some("하나요")),
            ("내야", Some("하나요")),
            ("하는거", Some("맞나요")),
            ("같은거", Some("필요한지")),
            ("물어봐야되요", None),
            ("건지", None),
            ("어디다", None),
        ] {
            assert_eq!(query_stem(word, next), None, "{word} {next:?}");
        }
    }

    /// A noun is never cut below itself: a one-syllable particle that
    /// nouns also end with comes off only where the next word says it is one.
    #[test]
    fn nouns_that_end_like_a_particle_stay_whole() {
        for (word, next, want) in [
            ("여름휴가", Some("일정"), "여름휴가"),
            ("여름휴가", None, "여름휴가"),
            ("여름휴가를", Some("언제"), "여름휴가"),
            ("심각도", Some("기준"), "심각도"),
            ("심각도가", Some("어떻게"), "심각도"),
            ("심각도", None, "심각도"),
            ("팀회의", Some("일정"), "팀회의"),
            ("파드가", Some("계속"), "파드"),
            ("서버가", Some("죽었어요"), "서버"),
            ("로그도", Some("안"), "로그"),
            ("노트북이", Some("너무"), "노트북"),
            ("급여명세서", Some("어디서"), "급여명세서"),
            ("신청서", None, "신청서"),
            ("월급날", None, "월급날"),
            ("리뷰어", Some("승인"), "리뷰어"),
            ("분야", None, "분야"),
            ("근거", None, "근거"),
            ("적응중이라", Some("운영"), "적응중"),
            ("필요한지", None, "필요"),
            ("서류가", Some("무엇인가요"), "서류"),
        ] {
            assert_eq!(query_stem(word, next), Some(want), "{word} {next:?}");
        }
    }

    #[test]
    fn long_stems_are_matched_by_their_bigrams() {
        assert_eq!(bigrams("휴가"), ["휴가"]);
        assert_eq!(bigrams("연차휴가"), ["연차", "차휴", "휴가"]);
        assert!(is_jamo('ㅠ') && !is_hangul('ㅠ') && is_hangul('휴'));
    }
}
