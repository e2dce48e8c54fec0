#!/usr/bin/env python3
"""Deterministic generator of the "quoted subject" case family for LinkUp's side panel.

Writes quoted.json next to this file.  Python 3.11, standard library only.
Every choice comes from random.Random(20261128), so re-running produces
byte-identical output (the script also builds the set twice and compares).

Users often start a post by pasting the subject of one of their mails or the
title of a file: "RE: Updated leave policy guidance", "FW: Cluster update from
Platform - any idea what this means?", "회신: 법인카드 분실 신고 건 관련해서 질문",
"'Budget Policy 2023.pdf' 어디서 최신본 받나요?".  Each case here is such a post:
it quotes or paraphrases the subject/title of ONE existing document, and that
document is the label (the benchmark requires it in the panel's top 3).

No document is invented: the cases quote mails and files of the English set
(tuning.json/heldout.json, which share their m365 documents) and of korean.json.
A document's topic is the topic of the questions it is relevant to, and the
case goes into that topic's half (the `split` of its own set).  Distractor
documents (relevant to no question) get topic null and a half from a seeded
coin (a generator of its own, so that changing the selection moves no coin).

Variations, all chosen by the seeded generator (at most one word changed):
  prefix / prefix-dropped      RE:, Re:, FW:, Fwd:, 회신:, 전달: added (mails only),
                               or an existing "Re:" dropped
  one-word-changed:<kind>      synonym, number (singular/plural), typo (English
                               letter swap/drop/double, Korean vowel 자모 typo),
                               spacing (Korean: two words joined or one split),
                               dropped-word (a tag like [공지], "Reminder:", an
                               article, 안내, 방법, ...)
  ext                          a file title pasted with its extension (.docx, ...)
  lower                        lower-cased
  quoted                       wrapped in '...' or "..."
  wrapped / wrapped-ko         inside a short chatty English / Korean sentence
                               (Korean sentences also wrap English subjects)
  exact                        the subject alone, unchanged
Components are joined with "+" in the case's `style`.

Nothing under src/, tests/it/ or benches/ was read while writing this file.
"""

import json
import os
import random
import re
import sys

SEED = 20261128
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "quoted.json")
HALVES = ("tuning", "heldout")

KO_TARGET = 42          # cases with a Korean subject per half (about half of each half)
P_WRAP = 0.5            # wrapped in a chatty sentence
P_WRAP_KO_FOR_EN = 0.35  # an English subject wrapped in a Korean sentence
P_CHANGE = 0.35         # one word changed
P_PREFIX = 0.5          # a mail prefix added
P_EXT = 0.45            # a file title pasted with its extension
P_LOWER = 0.2           # lower-cased
KIND_WEIGHT = {"number": 3}   # weight of a kind of one-word change (others 1)
MIN_MAIL, MIN_FILE, MIN_SIZE, MAX_SIZE = 25, 15, 60, 100

HANGUL = re.compile(r"[\uac00-\ud7a3]")
LATIN = re.compile(r"[A-Za-z]")
PREFIX_RE = re.compile(r"^(?:re|fw|fwd|회신|전달)\s*:\s*", re.I)
TAG_RE = re.compile(r"^\[[^\]]+\]\s+")

# --------------------------------------------------------------------------
# word lists for the one-word changes (only words that occur in the titles)
# --------------------------------------------------------------------------

EN_SYN = {
    "policy": "rules", "guide": "manual", "guidelines": "rules", "guideline": "guidance", "handbook": "guide",
    "schedule": "timetable", "timetable": "schedule", "calendar": "schedule", "new": "updated",
    "changes": "updates", "booking": "reservation", "book": "reserve", "requesting": "getting",
    "template": "form", "report": "flag", "email": "mail", "mandatory": "required", "required": "mandatory",
    "employees": "staff", "staff": "employees", "allowance": "stipend", "program": "scheme",
    "programme": "program", "overview": "summary", "training": "course", "course": "training",
    "travel": "trip", "lost": "missing", "missing": "lost", "laptop": "notebook", "reviews": "evaluations",
    "creating": "making", "disabled": "blocked", "blocked": "disabled", "retired": "decommissioned",
    "shutdown": "switch-off", "moved": "shifted", "moves": "shifts", "shifted": "moved", "upgrade": "update",
    "results": "outcomes", "faq": "Q&A", "tips": "advice", "troubleshooting": "debugging", "catalog": "list",
    "rates": "amounts", "party": "celebration", "photos": "pictures", "costs": "spending",
    "cost": "spending", "submit": "send", "writing": "drafting", "settings": "options", "hours": "times",
    "apps": "applications", "approval": "sign-off", "documents": "paperwork", "benefit": "payment",
    "claim": "apply", "funding": "budget", "starting": "creating", "opens": "starts", "lottery": "draw",
    "orientation": "induction", "reminder": "notice", "vendor": "supplier", "invoices": "bills",
    "parcels": "packages", "recordings": "videos", "meal": "food", "chair": "seat", "standard": "guidelines",
    "people": "colleagues", "finding": "locating", "changing": "updating", "sending": "shipping",
    "notes": "minutes", "workflow": "process", "access": "permissions", "alert": "alarm", "flexible": "flex",
    "gifts": "presents", "company": "corporate",
}

KO_SYN = {
    "안내": "공지", "공지": "안내", "방법": "절차", "절차": "방법", "가이드": "매뉴얼", "신청": "요청", "요청": "신청",
    "양식": "서식", "규칙": "규정", "정책": "규정", "설정": "세팅", "템플릿": "양식", "리스트": "목록", "목록": "리스트",
    "사무실": "오피스", "이사": "이전", "비용": "요금", "기준": "규정", "일정": "스케줄", "변경": "조정", "마감": "기한",
    "종료": "중단", "요약": "정리", "대응": "조치", "해석": "분석", "도입": "시행", "지원": "보조", "정산": "청구",
    "청구": "신청", "오작동": "오류", "모집": "구함", "주의": "경고", "항목": "품목", "품목": "항목", "공사": "작업",
    "점검": "정비", "이용": "사용",
}

_NUMBER_PAIRS = [
    ("badge", "badges"), ("limit", "limits"), ("rate", "rates"), ("review", "reviews"),
    ("key", "keys"), ("credential", "credentials"), ("document", "documents"), ("tag", "tags"),
    ("rollout", "rollouts"), ("instance", "instances"), ("route", "routes"), ("area", "areas"),
    ("class", "classes"), ("mailbox", "mailboxes"), ("recording", "recordings"), ("visa", "visas"),
    ("flag", "flags"), ("log", "logs"), ("image", "images"), ("cost", "costs"), ("postmortem", "postmortems"),
    ("phone", "phones"), ("extension", "extensions"), ("parcel", "parcels"), ("courier", "couriers"),
    ("member", "members"), ("gift", "gifts"), ("point", "points"), ("conference", "conferences"),
    ("repository", "repositories"), ("namespace", "namespaces"), ("invoice", "invoices"), ("drive", "drives"),
    ("link", "links"), ("file", "files"), ("photo", "photos"), ("app", "apps"), ("license", "licenses"),
    ("rule", "rules"), ("desk", "desks"), ("hour", "hours"), ("level", "levels"), ("guideline", "guidelines"),
    ("checklist", "checklists"), ("policy", "policies"), ("guide", "guides"), ("template", "templates"),
    ("card", "cards"), ("printer", "printers"), ("loan", "loans"), ("allowance", "allowances"),
    ("laptop", "laptops"), ("schedule", "schedules"), ("calendar", "calendars"), ("catalog", "catalogs"),
    ("receipt", "receipts"), ("token", "tokens"), ("group", "groups"), ("list", "lists"),
    ("notification", "notifications"), ("meal", "meals"), ("signature", "signatures"),
    ("certificate", "certificates"), ("workflow", "workflows"), ("note", "notes"),
    ("room", "rooms"), ("lesson", "lessons"), ("booking", "bookings"), ("seat", "seats"), ("ticket", "tickets"),
    ("dashboard", "dashboards"), ("request", "requests"), ("job", "jobs"), ("visitor", "visitors"),
    ("customer", "customers"), ("employee", "employees"), ("engineer", "engineers"), ("service", "services"),
    ("resource", "resources"), ("practice", "practices"),
]
# (left out: report, setting, meeting, which are verbs or modifiers in these titles)
NUMBER = {a: b for a, b in _NUMBER_PAIRS}
NUMBER.update({b: a for a, b in _NUMBER_PAIRS})

EN_DROP = {"the", "a", "an", "your", "our", "new", "now", "please", "all"}
KO_DROP = {"안내", "방법", "관련", "및", "사내", "표준", "기존", "신규"}
# four- and five-syllable words that are split at a word boundary (복지포인트 -> 복지 포인트)
KO_SPLIT = {
    "주택자금": "주택 자금", "유연근무": "유연 근무", "연말정산": "연말 정산", "건강검진": "건강 검진", "육아휴직": "육아 휴직",
    "출산휴가": "출산 휴가", "법인카드": "법인 카드", "유선전화": "유선 전화", "개인정보": "개인 정보", "인체공학": "인체 공학",
    "방해금지": "방해 금지", "카드뉴스": "카드 뉴스", "화재경보": "화재 경보", "처리방침": "처리 방침", "연결통로": "연결 통로",
    "복지포인트": "복지 포인트", "경력증명서": "경력 증명서", "전자계약": "전자 계약", "신한은행": "신한 은행",
    "윤리경영": "윤리 경영", "법정의무교육": "법정 의무교육", "개인정보보호": "개인정보 보호", "근무시간": "근무 시간",
    "퇴근길": "퇴근 길",
}
# Korean vowel typos (jungseong index -> neighbour): ㅏ↔ㅑ ㅐ↔ㅔ ㅓ↔ㅕ ㅗ↔ㅛ ㅜ↔ㅠ ㅡ→ㅜ
KO_VOWEL = {0: 2, 2: 0, 1: 5, 5: 1, 4: 6, 6: 4, 8: 12, 12: 8, 13: 17, 17: 13, 18: 13}

# --------------------------------------------------------------------------
# wrapping sentences ({s} is the pasted subject, possibly quoted)
# --------------------------------------------------------------------------

WRAP = {
    ("en", "mail"): [
        "{s} - any idea what this means?",
        "{s}: does this apply to everyone?",
        "Got this mail today: {s}. What do I need to do?",
        "Question about {s}",
        "Anyone else get the {s} mail?",
        "{s} -- can someone explain?",
        "Just saw {s} in my inbox, is this for us too?",
        "Quick question on the {s} mail",
    ],
    ("en", "file"): [
        "Where can I find the latest version of {s}?",
        "Is {s} still up to date?",
        "Question about {s}",
        "Can't find {s} anymore, does anyone have the link?",
        "{s} - is there a newer version?",
        "Has anyone read {s}? I have a question about it.",
        "{s}: who owns this doc?",
    ],
    ("ko", "mail"): [
        "{s} 관련해서 질문",
        "{s} 건 관련해서 질문드립니다",
        "{s} 메일 받았는데 저도 해당되나요?",
        "{s} 이거 무슨 뜻인가요?",
        "오늘 {s} 메일 왔는데 뭘 해야 하는 건지 모르겠어요 ㅠ",
        "{s} 메일 보신 분 계세요?",
        "혹시 {s} 메일 내용 아시는 분?",
    ],
    ("ko", "file"): [
        "{s} 어디서 최신본 받나요?",
        "{s} 문서 어디 있는지 아시는 분?",
        "{s} 아직 유효한가요?",
        "혹시 {s} 링크 있으신 분 공유 부탁드려요",
        "{s} 관련해서 질문이요",
        "{s} 파일 최신 버전 어디 있나요?",
    ],
}
EN_PREFIXES = ["RE:", "Re:", "FW:", "Fwd:"]
KO_PREFIXES = ["회신:", "회신:", "전달:", "전달:", "RE:", "FW:"]   # Korean Outlook, plus forwards from English clients

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def lang_of(text):
    """the convention of generate_ko.py: ko if the text has Korean in it (two or more Hangul syllables)"""
    h = len(HANGUL.findall(text))
    if h >= 2:
        return "ko"
    assert h == 0, f"text with a single Hangul syllable: {text}"
    return "en"


def subject_lang(title):
    """language of a subject, from its words outside (...) and [...]: ko if it has more Korean words than
    English ones, or ends with a Korean word (Korean titles end with the head noun: "API 게이트웨이 rate limit
    정책" is Korean, "Book your 건강검진 by 30 November" and "Downloading ... from Hometax (간소화 서비스)" are English)"""
    outside = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", title)
    toks = [t for t in re.findall(r"[A-Za-z0-9\uac00-\ud7a3]+", outside) if HANGUL.search(t) or LATIN.search(t)]
    assert toks, title
    ko = sum(bool(HANGUL.search(t)) for t in toks)
    return "ko" if ko > len(toks) - ko or HANGUL.search(toks[-1]) else "en"


def norm(text):
    """for the ambiguity checks: lower-case, no reply/forward prefix, no file extension, words only"""
    s = text.strip().lower()
    while PREFIX_RE.match(s):
        s = PREFIX_RE.sub("", s, count=1)
    s = re.sub(r"\.(docx|pdf|xlsx|pptx)\b", " ", s)
    return " ".join(re.findall(r"[0-9a-z\uac00-\ud7a3]+", s))


def contains(big, small):
    return f" {small} " in f" {big} "


def match_case(orig, rep):
    if orig.isupper() and len(orig) > 1:
        return rep if not rep.isalpha() else rep.upper()
    if orig[:1].isupper():
        return rep[:1].upper() + rep[1:]
    return rep


def ext_of(url):
    m = re.search(r"\.(docx|pdf|xlsx|pptx)$", url)
    assert m, url
    return m.group(1)


# --------------------------------------------------------------------------
# documents
# --------------------------------------------------------------------------


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def load_sets():
    """all documents of both sets with their topic (None for distractors) and half"""
    tuning, heldout, korean = read("tuning.json"), read("heldout.json"), read("korean.json")
    assert tuning["m365"] == heldout["m365"] and tuning["split"] == heldout["split"], "tuning/heldout differ in m365 or split"
    sets = {
        "en": dict(split=tuning["split"], m365=tuning["m365"], questions=tuning["questions"] + heldout["questions"]),
        "ko": dict(split=korean["split"], m365=korean["m365"], questions=korean["questions"]),
    }
    docs = []
    for name in ("en", "ko"):
        s = sets[name]
        half_of = {t: h for h in HALVES for t in s["split"][h]}
        topic_of = {}
        for q in s["questions"]:
            for i in q["m365"]:
                assert topic_of.setdefault(i, q["topic"]) == q["topic"], ("document relevant to two topics", name, i)
        for d in s["m365"]:
            t = topic_of.get(d["id"])
            docs.append(dict(set=name, id=d["id"], kind=d["kind"], title=d["title"], url=d["url"], topic=t,
                             half=half_of[t] if t else None))
    return sets, docs


def coin_halves(docs):
    """distractor mails and files: a half from a seeded coin, in a fixed order over all of them"""
    coin = random.Random(SEED)
    for d in sorted((d for d in docs if d["topic"] is None and d["kind"] in ("mail", "file")), key=lambda d: (d["set"], d["id"])):
        d["half"] = "tuning" if coin.random() < 0.5 else "heldout"


def ambiguous_titles(docs):
    """ids of documents whose title equals or contains (as whole words) another document's title, or is contained in one"""
    out = {}
    normed = [(d, norm(d["title"])) for d in docs]
    for a, na in normed:
        for b, nb in normed:
            if a is not b and (na == nb or contains(na, nb) or contains(nb, na)):
                out.setdefault((a["set"], a["id"]), []).append((b["set"], b["id"], b["title"]))
    return out


def select(rng, docs, skipped):
    """per half: every topic mail, every Korean-subject topic file, every Korean-subject distractor mail,
    every distractor mail whose subject starts with "Re:";
    Korean-subject distractor files up to KO_TARGET; then as many English-subject topic files
    as there are Korean-subject cases minus the English-subject mails"""
    chosen = []
    for half in HALVES:
        pool = [d for d in docs if d["half"] == half and d["kind"] in ("mail", "file")
                and (d["set"], d["id"]) not in skipped and len(d["title"].split()) >= 2]
        pool.sort(key=lambda d: (d["set"], d["id"]))
        for d in pool:
            d["subject_lang"] = subject_lang(d["title"])

        def part(kind, lang, topical):
            return [d for d in pool if d["kind"] == kind and d["subject_lang"] == lang and (d["topic"] is not None) == topical]

        picked = part("mail", "en", True) + part("mail", "ko", True) + part("mail", "ko", False) + part("file", "ko", True)
        # distractor mails whose stored subject starts with "Re:" (so that the prefix can be dropped)
        picked += [d for d in part("mail", "en", False) if PREFIX_RE.match(d["title"])]
        n_ko = sum(d["subject_lang"] == "ko" for d in picked)
        extra = part("file", "ko", False)
        picked += rng.sample(extra, max(0, min(len(extra), KO_TARGET - n_ko)))
        n_ko = sum(d["subject_lang"] == "ko" for d in picked)
        n_en = sum(d["subject_lang"] == "en" for d in picked)
        en_files = part("file", "en", True)
        picked += rng.sample(en_files, max(MIN_FILE // 2, n_ko - n_en))
        chosen += sorted(picked, key=lambda d: (d["set"], d["id"]))
    return chosen


# --------------------------------------------------------------------------
# variations
# --------------------------------------------------------------------------

WORD = re.compile(r"([^\w]*)(\w+)([^\w]*)")


def english_typo(rng, w):
    """one letter swapped with its neighbour, dropped or doubled (never the first letter)"""
    while True:
        op = rng.choice(["swap", "drop", "double"])
        i = rng.randrange(1, len(w) - 1)
        if op == "swap":
            t = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        elif op == "drop":
            t = w[:i] + w[i + 1:]
        else:
            t = w[:i] + w[i] + w[i:]
        if t != w and t.lower() != w.lower():
            return t


def korean_typo(rng, w):
    """one vowel of one syllable replaced by its neighbour on the keyboard/in sound (신청 -> 신쳥)"""
    spots = [i for i, c in enumerate(w) if HANGUL.match(c) and ((ord(c) - 0xAC00) % 588) // 28 in KO_VOWEL]
    i = rng.choice(spots)
    code = ord(w[i]) - 0xAC00
    lead, vowel, tail = code // 588, (code % 588) // 28, code % 28
    c = chr(0xAC00 + lead * 588 + KO_VOWEL[vowel] * 28 + tail)
    return w[:i] + c + w[i + 1:]


def one_word_changes(core, lang):
    """candidate changes of exactly one word: {kind: [new core | ("typo", token index)]}"""
    toks = core.split(" ")
    out = {}

    def put(kind, i, new_tok):
        t = toks[:i] + ([new_tok] if new_tok is not None else []) + toks[i + 1:]
        out.setdefault(kind, []).append(" ".join(t))

    for i, tok in enumerate(toks):
        m = WORD.fullmatch(tok)
        if not m:
            continue
        pre, w, post = m.groups()
        if pre.startswith("[") or post.endswith("]"):
            continue    # a tag ([공지], [Platform]) is pasted as it is, or dropped whole (below)
        lw = w.lower()
        if re.fullmatch(r"[A-Za-z]+", w):
            if lw in EN_SYN:
                put("synonym", i, pre + match_case(w, EN_SYN[lw]) + post)
            if lw in NUMBER:
                put("number", i, pre + match_case(w, NUMBER[lw]) + post)
            if lang == "en" and len(w) >= 5 and not w.isupper() and w[1:].islower():
                out.setdefault("typo", []).append(("typo", i))
            if lw in EN_DROP and not pre and not post and len(toks) >= 3:
                put("dropped-word", i, None)
        elif re.fullmatch(r"[\uac00-\ud7a3]+", w):
            if w in KO_SYN:
                put("synonym", i, pre + KO_SYN[w] + post)
            if lang == "ko" and len(w) >= 2 and any(((ord(c) - 0xAC00) % 588) // 28 in KO_VOWEL for c in w):
                out.setdefault("typo", []).append(("typo", i))
            if w in KO_DROP and not pre and not post and len(toks) >= 3:
                put("dropped-word", i, None)
            if lang == "ko" and w in KO_SPLIT and not pre and not post:
                put("spacing", i, KO_SPLIT[w])
    if lang == "ko":   # two short Korean words joined (출장 경비 -> 출장경비)
        for i in range(len(toks) - 1):
            a, b = toks[i], toks[i + 1]
            if re.fullmatch(r"[\uac00-\ud7a3]+", a) and re.fullmatch(r"[\uac00-\ud7a3]+", b) and len(a) + len(b) <= 6:
                out.setdefault("spacing", []).append(" ".join(toks[:i] + [a + b] + toks[i + 2:]))
    # a leading tag ([공지], [Platform]) or "Reminder:" is one dropped word
    m = TAG_RE.match(core) or re.match(r"^Reminder:\s+", core)
    if m and len(core[m.end():].split()) >= 2:
        out.setdefault("dropped-word", []).append(core[m.end():])
    return out


def apply_change(rng, core, lang):
    options = one_word_changes(core, lang)
    if not options:
        return core, None
    kinds = sorted(options)
    # a singular/plural change is possible for few titles: weighted up so that both halves get some
    kind = rng.choices(kinds, weights=[KIND_WEIGHT.get(k, 1) for k in kinds])[0]
    pick = rng.choice(options[kind])
    if kind == "typo":
        toks = core.split(" ")
        i = pick[1]
        pre, w, post = WORD.fullmatch(toks[i]).groups()
        toks[i] = pre + (english_typo(rng, w) if lang == "en" else korean_typo(rng, w)) + post
        pick = " ".join(toks)
    return pick, kind


def make_case(rng, d):
    lang = d["subject_lang"]
    styles = []
    wrap_lang = None
    if rng.random() < P_WRAP:
        wrap_lang = "ko" if lang == "ko" or rng.random() < P_WRAP_KO_FOR_EN else "en"
    korean_post = lang == "ko" or wrap_lang == "ko"

    core = d["title"]
    prefix = ""
    if d["kind"] == "mail":
        m = PREFIX_RE.match(core)
        r = rng.random()
        if m and r < 0.7:
            core = core[m.end():]
            styles.append("prefix-dropped")
        elif (m and r < 0.85) or (not m and r < P_PREFIX):
            prefix = rng.choice(KO_PREFIXES if korean_post else EN_PREFIXES)
            styles.append("prefix")
    base = core
    change = None
    if rng.random() < P_CHANGE:
        core, change = apply_change(rng, core, lang)
        if change:
            styles.append(f"one-word-changed:{change}")
    changed = core
    if d["kind"] == "file" and not core.endswith(("?", "!")) and rng.random() < P_EXT:
        core = f"{core}.{ext_of(d['url'])}"
        styles.append("ext")
    subject = f"{prefix} {core}" if prefix else core
    if rng.random() < P_LOWER and subject.lower() != subject:
        subject = subject.lower()
        styles.append("lower")
    if wrap_lang:
        q = rng.choice(["", "", "'", '"'])
        if q and q in subject:
            q = '"' if q == "'" else "'"
        if q:
            styles.append("quoted")
        text = rng.choice(WRAP[(wrap_lang, d["kind"])]).format(s=f"{q}{subject}{q}")
        styles.append("wrapped" if wrap_lang == "en" else "wrapped-ko")
    else:
        text = subject
    return dict(half=d["half"], topic=d["topic"], style="+".join(styles) or "exact", language=lang_of(text), text=text,
                tags=[], quoted=d["id"], kind=d["kind"], source_set=d["set"],
                _base=base, _changed=changed, _change=change, _subject=subject, _subject_lang=lang, _title=d["title"])


def build():
    sets, docs = load_sets()
    coin_halves(docs)
    skipped = ambiguous_titles(docs)
    rng = random.Random(SEED)
    cases = [make_case(rng, d) for d in select(rng, docs, skipped)]
    rng.shuffle(cases)
    for i, c in enumerate(cases, 1):
        c["id"] = f"s{i:03d}"
    return sets, docs, skipped, cases


# --------------------------------------------------------------------------
# checks, output
# --------------------------------------------------------------------------

FIELDS = ("id", "half", "topic", "style", "language", "text", "tags", "quoted", "kind", "source_set")
STYLE_PARTS = {"exact", "prefix", "prefix-dropped", "ext", "lower", "quoted", "wrapped", "wrapped-ko"} | {
    f"one-word-changed:{k}" for k in ("synonym", "number", "typo", "spacing", "dropped-word")}


def serialise(cases):
    out = {"seed": SEED, "cases": [{k: c[k] for k in FIELDS} for c in sorted(cases, key=lambda c: c["id"])]}
    return json.dumps(out, ensure_ascii=False, indent=1) + "\n"


def tokens_differ_by_one(a, b):
    ta, tb = a.split(" "), b.split(" ")
    if len(ta) == len(tb):
        return sum(x != y for x, y in zip(ta, tb)) == 1
    if len(ta) == len(tb) + 1:
        return any(ta[:i] + ta[i + 1:] == tb for i in range(len(ta)))
    return False


def validate(sets, docs, skipped, cases):
    byid = {(d["set"], d["id"]): d for d in docs}
    # the input: no quoted document shares (or contains) another document's title
    assert len({(c["source_set"], c["quoted"]) for c in cases}) == len(cases), "a document quoted twice"
    others = [(d, norm(d["title"])) for d in docs]
    split_half = {name: {t: h for h in HALVES for t in sets[name]["split"][h]} for name in sets}
    relevant = {name: {i for q in sets[name]["questions"] for i in q["m365"]} for name in sets}
    for c in cases:
        key = (c["source_set"], c["quoted"])
        # the quoted id exists in its set, with this kind and title
        assert key in byid, ("unknown document", key)
        d = byid[key]
        assert c["kind"] == d["kind"] and c["kind"] in ("mail", "file"), c
        assert c["quoted"].startswith("kd" if c["source_set"] == "ko" else "d"), c
        # the half is the topic's half (or the coin's, for a distractor)
        if c["topic"] is not None:
            assert c["quoted"] in relevant[c["source_set"]], c
            assert any(c["quoted"] in q["m365"] and q["topic"] == c["topic"] for q in sets[c["source_set"]]["questions"]), c
            assert c["half"] == split_half[c["source_set"]][c["topic"]], ("case in the wrong half", c)
        else:
            assert c["quoted"] not in relevant[c["source_set"]], ("a topic document marked as distractor", c)
            assert c["half"] == d["half"] and c["half"] in HALVES, c
        # no other document has the quoted title
        nt = norm(d["title"])
        assert key not in skipped, key
        clash = [o["title"] for o, no in others if o is not d and (no == nt or contains(no, nt) or contains(nt, no))]
        assert not clash, ("title shared with another document", d["title"], clash)
        # the text names no other document: neither the text nor the pasted subject is (or contains,
        # or is contained in) another document's title
        nx, ns = norm(c["text"]), norm(c["_changed"])
        for o, no in others:
            if o is d:
                continue
            assert nx != no, ("text equals another title", c["text"], o["title"])
            assert ns != no and not contains(no, ns) and not contains(ns, no), ("subject matches another title", c["text"], o["title"])
        # at most one word changed, and the pasted subject is in the text
        if c["_change"] is None:
            assert c["_changed"] == c["_base"] and "one-word-changed" not in c["style"], c
        elif c["_change"] == "spacing":
            assert c["_changed"] != c["_base"] and c["_changed"].replace(" ", "") == c["_base"].replace(" ", ""), c
        elif c["_change"] == "dropped-word" and TAG_RE.match(c["_base"]):   # a tag like "[사진 동호회]" counts as one word
            assert c["_changed"] == TAG_RE.sub("", c["_base"], count=1) or tokens_differ_by_one(c["_base"], c["_changed"]), c
        else:
            assert tokens_differ_by_one(c["_base"], c["_changed"]), ("more than one word changed", c["_base"], c["_changed"])
        assert c["_subject"] in c["text"], c
        assert c["_base"] == d["title"] or PREFIX_RE.sub("", d["title"], count=1) == c["_base"], c
        # styles and language
        parts = c["style"].split("+")
        assert set(parts) <= STYLE_PARTS and len(parts) == len(set(parts)), c["style"]
        assert c["kind"] == "mail" or not {"prefix", "prefix-dropped"} & set(parts), c
        assert c["kind"] == "file" or "ext" not in parts, c
        assert c["language"] == lang_of(c["text"]), c
        assert "wrapped" not in parts or c["_subject_lang"] == "en", c
        assert c["tags"] == [] and c["id"].startswith("s"), c
    # unique texts and ids
    assert len({c["text"] for c in cases}) == len(cases), "duplicate texts"
    assert len({norm(c["text"]) for c in cases}) == len(cases), "texts equal after normalising"
    assert len({c["id"] for c in cases}) == len(cases)
    # sizes per half
    for half in HALVES:
        hc = [c for c in cases if c["half"] == half]
        n_mail = sum(c["kind"] == "mail" for c in hc)
        n_file = sum(c["kind"] == "file" for c in hc)
        n_ko = sum(c["_subject_lang"] == "ko" for c in hc)
        assert MIN_SIZE <= len(hc) <= MAX_SIZE, (half, len(hc))
        assert n_mail >= MIN_MAIL and n_file >= MIN_FILE, (half, n_mail, n_file)
        assert 0.4 * len(hc) <= n_ko <= 0.6 * len(hc), (half, n_ko, len(hc))
        for src in ("en", "ko"):
            assert sum(c["source_set"] == src for c in hc) >= 15, (half, src)
        assert sum(c["_subject_lang"] == "en" and c["language"] == "ko" and "wrapped-ko" in c["style"] for c in hc) >= 5, half
        assert sum(c["topic"] is not None for c in hc) >= 0.75 * len(hc), half
        # each half has every main variation
        parts = [p.split(":")[0] for c in hc for p in c["style"].split("+")]
        for p, n in (("exact", 5), ("prefix", 10), ("ext", 10), ("lower", 5), ("one-word-changed", 15),
                     ("quoted", 10), ("wrapped", 8), ("wrapped-ko", 15)):
            assert parts.count(p) >= n, (half, p, parts.count(p))
    # every variation is used
    used = {p for c in cases for p in c["style"].split("+")}
    assert used == STYLE_PARTS, STYLE_PARTS - used
    assert sum(c["_change"] is not None for c in cases) >= 0.2 * len(cases)


def stats(cases, skipped, size):
    def count(items, key):
        out = {}
        for x in items:
            out[key(x)] = out.get(key(x), 0) + 1
        return dict(sorted(out.items()))
    print(f"cases {len(cases)}; {len(skipped)} documents skipped for a shared or overlapping title")
    for half in HALVES:
        hc = [c for c in cases if c["half"] == half]
        print(f"{half}: {len(hc)} cases; kind {count(hc, lambda c: c['kind'])}; subject {count(hc, lambda c: c['_subject_lang'])}; "
              f"post language {count(hc, lambda c: c['language'])}; source set {count(hc, lambda c: c['source_set'])}; "
              f"distractors {sum(c['topic'] is None for c in hc)}")
        print(f"   subject x kind {count(hc, lambda c: c['_subject_lang'] + '/' + c['kind'])}; "
              f"post language x kind {count(hc, lambda c: c['language'] + '/' + c['kind'])}")
        parts = {}
        for c in hc:
            for p in c["style"].split("+"):
                parts[p] = parts.get(p, 0) + 1
        print(f"   style parts {dict(sorted(parts.items()))}")
    print(f"{OUT}: {size} bytes")


def review(docs, cases, n, seed):
    byid = {(d["set"], d["id"]): d for d in docs}
    for c in random.Random(seed).sample(sorted(cases, key=lambda c: c["id"]), n):
        d = byid[(c["source_set"], c["quoted"])]
        print(f"== {c['id']} [{c['half']}/{c['topic']}/{c['style']}/{c['language']}] {c['text']}")
        print(f"   -> {c['source_set']}:{c['quoted']} {c['kind']:4} {d['title']}")


def main(argv):
    sets, docs, skipped, cases = build()
    validate(sets, docs, skipped, cases)
    text = serialise(cases)
    assert serialise(build()[3]) == text, "a second build in the same run differs"
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    with open(OUT, encoding="utf-8") as f:
        assert f.read() == text
    stats(cases, skipped, os.path.getsize(OUT))
    if "--review" in argv:
        review(docs, cases, 20, 7)


if __name__ == "__main__":
    main(sys.argv[1:])
