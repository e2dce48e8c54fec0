#!/usr/bin/env python3
"""Issue 63: which similar posts the panel admits, by what the multilingual
model says about the pair (its corrected cosine, a scale of the model's own)
and the rank it gives it, as prototypes on stored vectors, per language
slice, on set A's halves and on set B at each board size.

    python3 tests/quality/admission.py inputs /tmp/adm.in.jsonl
    cargo run --release -p linkup-e5 --example embed_lines < /tmp/adm.in.jsonl > /tmp/adm.vec.jsonl
    python3 tests/quality/admission.py calibrate /tmp/adm.vec.jsonl      # set A tuning only
    MODE=reference python3 tests/quality/admission.py eval /tmp/adm.vec.jsonl tuning b30 b300 b3000
    python3 tests/quality/admission.py sizes /tmp/adm.vec.jsonl              # set A tuning, boards of 30/100/408
    FIRST=3.0 python3 tests/quality/admission.py eval /tmp/adm.vec.jsonl tuning b30 b300 b3000  # nearest alone from 3
    MOVED=1 python3 tests/quality/admission.py eval /tmp/adm.vec.jsonl tuning b30 b300 b3000

Yardsticks (MODE): `board` (today: the board's spread of similarities to
the question), `pairs` (the model's spread of unrelated pairs per language
pair), `reference` (the question's similarities to the model's reference
board, the tuning half's posts), `equal` (the same, both languages weighed
equally), `own` (its own language's reference posts only). Needs numpy.
Meaning only (no words): the quality bench's figures, through the service,
add the posts related by words.

`sizes` and `MOVED=1`: the floors moved down on a board smaller than set
A's tuning board of 408, to let as many unrelated posts pass by chance as
there (the board's posts × the normal tail above the floor held equal;
`Floors::on_board`; `MOVED=both` raises them on larger boards too). `sizes` judges that on set A's tuning half alone:
each question on boards of 30 and 100 of the tuning posts (its related
posts and others drawn at random, three draws).
"""
import json, os, sys
from math import erfc, sqrt

import numpy as np

ROOT = os.path.dirname(os.path.abspath(__file__))
MEANS = os.path.join(ROOT, '..', '..', 'models', 'multilingual-e5-small', 'language-means.json')


def lang(t):
    return 'ko' if any('\uac00' <= c <= '\ud7a3' for c in t) else 'en'


def text_of(x):
    return (x['text'].strip() + ' ' + ' '.join(x.get('tags', []))).strip()


def load(name):
    """(posts, questions) of set A's half `tuning`/`heldout`, or of set B's
    board of `b30`/`b300`/`b3000` posts."""
    if name.startswith('b'):
        d = json.load(open(os.path.join(ROOT, 'set_b.json')))
        size = int(name[1:])
        return [p for p in d['posts'] if p['board'] <= size], d['questions']
    d = json.load(open(os.path.join(ROOT, name + '.json')))
    k = json.load(open(os.path.join(ROOT, 'korean.json')))
    return d['posts'] + k['posts'], d['questions'] + [q for q in k['questions'] if q.get('half') == name]


def write_inputs(path):
    seen = set()
    with open(path, 'w') as out:
        for name in ('tuning', 'heldout', 'b3000'):
            try:
                posts, qs = load(name)
            except FileNotFoundError:
                continue
            for x in posts + qs:
                t = text_of(x)
                if t not in seen:
                    seen.add(t)
                    out.write(json.dumps({'id': t, 'text': t, 'kind': 'q'}, ensure_ascii=False) + '\n')


def vectors(path):
    means = {k: np.array(v) for k, v in json.load(open(MEANS)).items()}
    V = {}
    for line in open(path):
        r = json.loads(line)
        v = np.array(r['v']) - means[lang(r['id'])]
        V[r['id']] = v / np.linalg.norm(v)
    return V


class Board:
    def __init__(self, V, name):
        self.posts, self.qs = load(name)
        self.ids = [p['id'] for p in self.posts]
        self.plang = {p['id']: p.get('lang') or lang(p['text']) for p in self.posts}
        self.P = np.array([V[text_of(p)] for p in self.posts])
        self.V = V

    def scores(self, q):
        return self.P @ self.V[text_of(q)]


def tally(board, q, kept, st):
    """Adds a panel's posts to the per-slice hits `st`; returns its unrelated posts."""
    ql = q.get('lang') or lang(q['text'])
    same = [i for i in q['posts'] if board.plang.get(i, ql) == ql]
    other = [i for i in q['posts'] if board.plang.get(i, ql) != ql]
    cross = ql + '->' + ('en' if ql == 'ko' else 'ko')
    for name, labels in ((ql, same), (cross, other)):
        if labels:
            x = st.setdefault(name, [0, 0])
            x[1] += 1
            x[0] += any(i in labels for i in kept)
    return sum(1 for i in kept if i not in q['posts'])


def figures(board, panel):
    """hit@5 per slice and unrelated posts a panel; panel(q) -> the post ids shown."""
    st, unrel = {}, 0
    for q in board.qs:
        unrel += tally(board, q, panel(q), st)
    out = {k: a / b for k, (a, b) in st.items()}
    out['unrelated'] = unrel / len(board.qs)
    return out


def evaluate(board, admit, cap=5):
    """By cosine; admit(sorted scores) -> how many are shown."""
    def panel(q):
        sc = board.scores(q)
        order = np.argsort(-sc)[:20]
        return [board.ids[j] for j in order[:min(admit(sc[order]), cap)]]
    return figures(board, panel)


def fmt(f):
    return ' '.join(f'{k} {f.get(k, float("nan")):.2f}' for k in ('en', 'ko', 'en->ko', 'ko->en', 'unrelated'))


def pairs(board):
    """Cosines of related (question, post) pairs, and of the best unrelated
    post of each question."""
    rel, best_unrel = [], []
    for q in board.qs:
        sc = board.scores(q)
        labels = set(q['posts'])
        rel += [sc[j] for j, i in enumerate(board.ids) if i in labels]
        best_unrel.append(max(sc[j] for j, i in enumerate(board.ids) if i not in labels))
    return np.array(rel), np.array(best_unrel)


def rule(floor, band, first=None):
    """The nearest post when its cosine is at least `floor` (or `first`
    alone: the nearest post clearly first), further ones at least `floor`
    and within `band` of the nearest."""
    def admit(s):
        if s[0] < floor:
            return 0
        k = 1
        while k < len(s) and s[k] >= floor and s[k] >= s[0] - band:
            k += 1
        return k
    return admit


def language_pairs(board):
    """The model's similarity of unrelated pairs per (question's language,
    post's language): mean and standard deviation over every question-post
    pair of the board not labelled related."""
    acc = {}
    for q in board.qs:
        ql = q.get('lang') or lang(q['text'])
        sc = board.scores(q)
        labels = set(q['posts'])
        for j, i in enumerate(board.ids):
            if i not in labels:
                acc.setdefault((ql, board.plang[i]), []).append(sc[j])
    return {k: (float(np.mean(v)), float(np.std(v))) for k, v in acc.items()}


def reference(V):
    """The model's reference board: the tuning half's posts (English:
    tuning.json's; Korean: korean.json's not labelled for a held-out
    question), as the language means are computed."""
    t = json.load(open(os.path.join(ROOT, 'tuning.json')))
    k = json.load(open(os.path.join(ROOT, 'korean.json')))
    held = {i for q in k['questions'] if q['half'] == 'heldout' for i in q['posts']}
    return {'en': np.array([V[text_of(p)] for p in t['posts']]),
            'ko': np.array([V[text_of(p)] for p in k['posts'] if p['lang'] == 'ko' and p['id'] not in held])}


def spreads(board, q, mode, R=None, stats=None):
    """(mean, std) a candidate of each language is judged against."""
    ql = q.get('lang') or lang(q['text'])
    v = board.V[text_of(q)]
    if mode == 'board':
        sc = board.scores(q)
        return {l: (sc.mean(), sc.std()) for l in ('en', 'ko')}
    if mode == 'pairs':
        return {l: stats[(ql, l)] for l in ('en', 'ko')}
    a, b = R['en'] @ v, R['ko'] @ v
    if mode == 'reference':
        r = np.concatenate([a, b])
        return {l: (r.mean(), r.std()) for l in ('en', 'ko')}
    if mode == 'equal':
        m = (a.mean() + b.mean()) / 2
        var = (a.var() + b.var()) / 2 + ((a.mean() - b.mean()) / 2) ** 2
        return {l: (m, var ** 0.5) for l in ('en', 'ko')}
    own = R[ql] @ v
    return {l: (own.mean(), own.std()) for l in ('en', 'ko')}


def evaluate_z(board, mode, zmin, band, cap=5, R=None, stats=None, first=None):
    """In deviations of `mode`'s yardstick: at least `zmin`, within `band`
    of the best; the nearest post alone from `first` deviations (its rank
    says what a floor cannot: it is the model's best)."""
    def panel(q):
        ms = spreads(board, q, mode, R, stats)
        sc = board.scores(q)
        z = np.array([(x - ms[board.plang[i]][0]) / ms[board.plang[i]][1] for x, i in zip(sc, board.ids)])
        order = np.argsort(-z)[:20]
        best = z[order[0]]
        kept = [board.ids[j] for j in order if z[j] >= zmin and z[j] >= best - band][:cap]
        if not kept and first is not None and best >= first:
            kept = [board.ids[order[0]]]
        return kept
    return figures(board, panel)


TUNING_BOARD = 408


def tail(z):
    return 0.5 * erfc(z / sqrt(2))


def moved(z, posts):
    """The floor `z` of the tuning board on a board of `posts` (as few as
    30; from 408 on, standing: MOVED=both raises it on larger boards too)."""
    most = None if os.environ.get('MOVED') == 'both' else TUNING_BOARD
    p = TUNING_BOARD * tail(z) / min(max(posts, 30), most or posts)
    lo, hi = 0.0, 10.0
    for _ in range(60):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if tail(m) > p else (lo, m)
    return lo


def sizes(V, R):
    """Set A's tuning questions each on boards of 30 and 100 of its posts:
    today's floors against the floors moved with the board."""
    full = Board(V, 'tuning')
    at = {i: j for j, i in enumerate(full.ids)}
    for posts in (30, 100, TUNING_BOARD):
        for name, floors in (('fixed', lambda n: (3.5, 3.0)), ('moved', lambda n: (moved(3.5, n), moved(3.0, n)))):
            rng, st, unrel, n = np.random.default_rng(0), {}, 0, 0
            for _ in range(3 if posts < TUNING_BOARD else 1):
                for q in full.qs:
                    own = [at[i] for i in q['posts'] if i in at]
                    others = [j for j, i in enumerate(full.ids) if i not in q['posts']]
                    pick = own + list(rng.choice(others, size=max(0, min(posts - len(own), len(others))), replace=False))
                    ms = spreads(full, q, 'reference', R)
                    ids = [full.ids[j] for j in pick]
                    z = np.array([(x - ms[full.plang[i]][0]) / ms[full.plang[i]][1]
                                  for x, i in zip(full.P[pick] @ full.V[text_of(q)], ids)])
                    zmin, first = floors(len(pick))
                    order = np.argsort(-z)[:20]
                    kept = [ids[j] for j in order if z[j] >= zmin and z[j] >= z[order[0]] - 1.5][:5]
                    if not kept and z[order[0]] >= first:
                        kept = [ids[order[0]]]
                    unrel += tally(full, q, kept, st)
                    n += 1
            out = {k: a / b for k, (a, b) in st.items()}
            out['unrelated'] = unrel / n
            print(f'tuning, boards of {posts}, {name} floors:', fmt(out))


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'inputs':
        write_inputs(sys.argv[2])
        sys.exit()
    V = vectors(sys.argv[2])
    R = reference(V)
    if cmd == 'sizes':
        sizes(V, R)
        sys.exit()
    if cmd == 'calibrate':
        b = Board(V, 'tuning')
        rel, unrel = pairs(b)
        print('related pairs: deciles', np.percentile(rel, [10, 25, 50, 75, 90]).round(3))
        print('best unrelated: deciles', np.percentile(unrel, [10, 25, 50, 75, 90]).round(3))
        for floor in (0.20, 0.25, 0.30, 0.35, 0.40):
            for band in (0.05, 0.10):
                print(f'cosine >= {floor:.2f}, band {band:.2f}:', fmt(evaluate(b, rule(floor, band))))
        stats = language_pairs(b)
        for mode in ('board', 'pairs', 'reference', 'equal', 'own'):
            for zmin, band in ((3.0, 1.0), (3.5, 1.5)):
                print(f'{mode} z >= {zmin}, band {band}:', fmt(evaluate_z(b, mode, zmin, band, R=R, stats=stats)))
    else:
        mode = os.environ.get('MODE', 'reference')
        zmin, band = float(os.environ.get('Z_MIN', '3.5')), float(os.environ.get('BAND', '1.5'))
        for name in sys.argv[3:] or ['tuning']:
            b = Board(V, name)
            first = float(os.environ['FIRST']) if os.environ.get('FIRST') else None
            zmin_b = zmin
            if os.environ.get('MOVED'):
                zmin_b, first = moved(zmin, len(b.ids)), moved(first or 3.0, len(b.ids))
            print(f'{name} ({len(b.ids)} posts, {len(b.qs)} questions) {mode} z >= {zmin_b:.2f}, band {band}, first {"none" if first is None else round(first, 2)}:',
                  fmt(evaluate_z(b, mode, zmin_b, band, R=R, first=first)), '| top 5:', fmt(evaluate(b, lambda s: 5)),
                  '| top 1:', fmt(evaluate(b, lambda s: 1)))
