//! Korean in the word analysis. A Korean word (eojeol) is a stem with
//! particles and verb endings written onto it (`휴가를`, `신청은요`,
//! `재시작돼요`): query terms are the stems, with those suffixes taken off,
//! and the post index matches Hangul by overlapping character bigrams of the
//! stems, as Lucene's CJK analysis does, so a compound or a spacing variant
//! still meets its parts (`연차휴가` and `휴가`). Latin terms written into a
//! Korean sentence keep their own analysis (`AWS가` is `aws`).

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

/// What comes off the end of a word that leaves its noun: particles
/// (josa), the copula's forms, and the light verbs 하다/되다 with their
/// endings (`신청하려면`, `재시작돼요` are nouns made verbs). From Korean
/// grammar, not from any data set.
const NOUN_SUFFIXES: &[&str] = &[
    // Particles, and particles with a topic or additive marker after them.
    "이",
    "가",
    "은",
    "는",
    "을",
    "를",
    "의",
    "에",
    "께",
    "로",
    "와",
    "과",
    "도",
    "만",
    "나",
    "랑",
    "에서",
    "에게",
    "한테",
    "으로",
    "까지",
    "부터",
    "처럼",
    "보다",
    "라도",
    "이나",
    "이랑",
    "에는",
    "에서는",
    "으로는",
    "로는",
    "에도",
    "에서도",
    "으로도",
    "로도",
    "까지는",
    "부터는",
    "한테서",
    "에게서",
    "이라도",
    "이라고",
    "라고",
    "이라는",
    "라는",
    "이요",
    "은요",
    "는요",
    "도요",
    "만요",
    "에요",
    "이에요",
    "예요",
    "이죠",
    "이고",
    "인데",
    "인데요",
    "인가요",
    "이나요",
    "이랑요",
    // 하다 and 되다 with their endings.
    "해요",
    "했어요",
    "하나요",
    "하세요",
    "합니다",
    "하는",
    "하면",
    "하려면",
    "하려고",
    "하려는데",
    "해야",
    "해서",
    "하고",
    "하는데",
    "했는데",
    "하기",
    "할",
    "한",
    "함",
    "했",
    "할까요",
    "해도",
    "하게",
    "해주세요",
    "돼요",
    "됐어요",
    "되나요",
    "됩니다",
    "되는",
    "되면",
    "되어",
    "돼서",
    "되고",
    "된",
    "될",
    "됨",
    "됐는데",
    "되는데",
    "안돼요",
    "안되나요",
    "안돼",
    "되요",
];

/// Endings of a verb or adjective of its own (not a noun made one with
/// 하다/되다): such a word says what to do, not what about (`줄이려면`,
/// `깔려는데`), so it gives no query term.
const VERB_ENDINGS: &[&str] = &[
    "요",
    "나요",
    "가요",
    "까요",
    "어요",
    "아요",
    "네요",
    "지요",
    "는데",
    "는데요",
    "은데",
    "은데요",
    "거든요",
    "습니다",
    "니다",
    "세요",
    "주세요",
    "려면",
    "으려면",
    "려고",
    "으려고",
    "려는데",
    "면",
    "어서",
    "아서",
    "었어요",
    "았어요",
    "겠어요",
    "는지",
    "을까요",
    "ㄹ까요",
];

/// Whole words that carry no topic and that Stopwords-ISO's Korean list
/// lacks: colloquial question words and adverbs, and the requests and
/// auxiliary verbs questions end with.
const FUNCTION_WORDS: &[&str] = &[
    "어디서",
    "어디에",
    "어디로",
    "어떻게",
    "어케",
    "뭐",
    "뭔가요",
    "뭐예요",
    "뭐에요",
    "갑자기",
    "계속",
    "자꾸",
    "너무",
    "진짜",
    "정말",
    "다시",
    "지금",
    "요즘",
    "오늘",
    "내일",
    "어제",
    "빨리",
    "제발",
    "그냥",
    "아직",
    "벌써",
    "많이",
    "있나요",
    "없나요",
    "있어요",
    "없어요",
    "있는데",
    "없는데",
    "있는",
    "없는",
    "있을까요",
    "알려주세요",
    "알려줘요",
    "궁금해요",
    "궁금합니다",
    "부탁드려요",
    "부탁드립니다",
    "해주세요",
    "주세요",
    "하나요",
    "되나요",
    "안돼요",
    "돼요",
    "해요",
    "했어요",
    "됐어요",
    "합니다",
    "됩니다",
];

/// The stem of a Hangul word for the index: its particles and light-verb
/// endings taken off (at most two, longest first, keeping two syllables at
/// least: `휴가` stays whole, `휴가가` is `휴가`). None for a function word
/// or a bare suffix (`어디서`, `하나요`).
pub fn stem(word: &str) -> Option<&str> {
    if FUNCTION_WORDS.contains(&word) || NOUN_SUFFIXES.contains(&word) {
        return None;
    }
    let mut stem = word;
    for _ in 0..2 {
        match strip(stem, NOUN_SUFFIXES) {
            Some(shorter) => stem = shorter,
            None => break,
        }
    }
    (!FUNCTION_WORDS.contains(&stem)).then_some(stem)
}

/// The query term of a Hangul word: [`stem`], unless the word is a verb or
/// adjective of its own (a [`VERB_ENDINGS`] ending and no noun before it).
pub fn query_stem(word: &str) -> Option<&str> {
    if strip(word, NOUN_SUFFIXES).is_none() && strip(word, VERB_ENDINGS).is_some() {
        return None;
    }
    stem(word)
}

/// `word` without the longest of `suffixes` it ends with, when two
/// syllables remain.
fn strip<'a>(word: &'a str, suffixes: &[&str]) -> Option<&'a str> {
    let syllables = word.chars().count();
    suffixes
        .iter()
        .filter(|s| word.ends_with(**s) && syllables >= s.chars().count() + 2)
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
        assert_eq!(query_stem("줄이려면"), None);
        assert_eq!(query_stem("깔려는데"), None);
        assert_eq!(query_stem("신청하려면"), Some("신청"));
        assert_eq!(query_stem("재시작돼요"), Some("재시작"));
        assert_eq!(query_stem("비용이"), Some("비용"));
        assert_eq!(stem("줄이려면"), Some("줄이려면"), "indexed as written");
    }

    #[test]
    fn long_stems_are_matched_by_their_bigrams() {
        assert_eq!(bigrams("휴가"), ["휴가"]);
        assert_eq!(bigrams("연차휴가"), ["연차", "차휴", "휴가"]);
        assert!(is_jamo('ㅠ') && !is_hangul('ㅠ') && is_hangul('휴'));
    }
}
