#!/usr/bin/env python3
"""Issue 50, stop 58: floors for posts in the other language, on the
TUNING half only, from the multilingual model's vectors (the inputs and
vectors of e5_choices.py: see its docstring for the first two commands).

    python3 tests/quality/e5_floors.py /tmp/e5.vec.jsonl tuning

Prints hit@5 per slice and unrelated posts a panel for today's floors
(z >= 3.5 over all posts, within 1.5 deviations of the best), a band under
the best of each language, the other language judged by its own spread,
and its best post alone. Meaning only (no words), so its figures for
today's floors are within 0.05 of the quality bench's, not equal.
Pure Python: a minute or so.
"""
import json, math, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e5_choices import load, lang, norm, sub, dot
V={}
for l in open(sys.argv[1]):
    r=json.loads(l); V[(r['id'],r['kind'])]=r['v']
half=sys.argv[2] if len(sys.argv)>2 else 'tuning'
posts,qs=load(half)
plang={p['id']:p.get('lang') or lang(p['text']) for p in posts}
pv={p['id']:V[('p:'+p['id'],'q')] for p in posts}
# Each language's mean over the posts loaded (every Korean post: near the
# shipped means, which take the 82 not labelled for a held-out question).
means={L:[sum(c)/len(vs) for c in zip(*vs)] for L in ['ko','en'] for vs in [[pv[i] for i in pv if plang[i]==L]]}
pv={i:norm(sub(v,means[plang[i]])) for i,v in pv.items()}
def ms(xs):
    m=sum(xs)/len(xs); return m, math.sqrt(sum((x-m)**2 for x in xs)/len(xs))
S=[]
for q in qs:
    ql=q.get('lang') or lang(q['text'])
    v=norm(sub(V[('q:'+q['id'],'q')],means[ql]))
    s={i:dot(v,pv[i]) for i in pv}
    S.append((q,ql,s,ms(list(s.values()))))
# Each language's own spread of similarities, per question.
G=[{L:ms([s[i] for i in s if plang[i]==L]) for L in ['ko','en']} for q,ql,s,_ in S]

def evaluate(rule, **kw):
    """hit@5 per slice and unrelated posts a panel when `rule` admits a
    candidate of the top 20: rule(similarity, mean, std, best, best of its
    language, same language as the question, its language's (mean, std),
    its rank within its language)."""
    st={}; unrel=[0,0]
    for (q,ql,s,(m,sd)),g in zip(S,G):
        ranked=sorted(s,key=lambda i:-s[i])[:20]
        best={L:max([s[i] for i in ranked if plang[i]==L],default=9) for L in ['ko','en']}
        rank={}; kept=[]
        for i in ranked:
            L=plang[i]; rank[L]=rank.get(L,0)+1
            if rule(s[i],m,sd,s[ranked[0]],best[L],L==ql,g[L],rank[L],**kw): kept.append(i)
        kept=kept[:5]
        unrel[0]+=sum(1 for i in kept if i not in q['posts']); unrel[1]+=1
        same=[i for i in q['posts'] if plang.get(i,ql)==ql]; other=[i for i in q['posts'] if plang.get(i,ql)!=ql]
        cross=ql+'->'+('en' if ql=='ko' else 'ko')
        for name,labels in [(ql,same),(cross,other)]:
            if not labels: continue
            x=st.setdefault(name,[0,0]); x[1]+=1
            if any(i in labels for i in kept): x[0]+=1
    return ' '.join(f'{k} {a/b:.2f}' for k,(a,b) in sorted(st.items()))+f' unrel {unrel[0]/unrel[1]:.2f}'

def today(s,m,sd,b,bl,same,g,rk,zmin=3.5,band=1.5):
    return s>=m+zmin*sd and s>=b-band*sd
def band_per_language(s,m,sd,b,bl,same,g,rk,zmin=3.5,band=1.5):
    return s>=m+zmin*sd and s>=bl-band*sd
def own_spread(s,m,sd,b,bl,same,g,rk,zmin=3.5,band=1.5,zx=3.5):
    if same: return today(s,m,sd,b,bl,same,g,rk,zmin,band)
    gm,gs=g; return s>=gm+zx*gs and s>=bl-band*gs
def best_other(s,m,sd,b,bl,same,g,rk,zmin=3.5,band=1.5,zx=3.0,topx=1):
    if same: return today(s,m,sd,b,bl,same,g,rk,zmin,band)
    gm,gs=g; return rk<=topx and s>=gm+zx*gs

print("today's floors:        ", evaluate(today))
print("band per language:     ", evaluate(band_per_language))
for zx in [3.5,3.75,4.0]:
    print(f"other language, own spread {zx}:", evaluate(own_spread,zx=zx))
for zx in [2.5,3.0,3.5]:
  for topx in [1,2]:
    print(f"other language's best {topx} at {zx}:", evaluate(best_other,zx=zx,topx=topx))
