#!/usr/bin/env python3
"""Issue 50's measured choices for the multilingual model, on the TUNING half
only: which prefix (query/passage) posts and questions are embedded with,
and whether each language's mean vector is subtracted, by the plain top-5 of
every question (no floors), per language slice (en, ko, en->ko, ko->en).

    python3 tests/quality/e5_choices.py inputs /tmp/e5.in.jsonl
    cargo run --release -p linkup-e5 --example embed_lines < /tmp/e5.in.jsonl > /tmp/e5.vec.jsonl
    python3 tests/quality/e5_choices.py eval /tmp/e5.vec.jsonl

Pure Python (no numpy): a minute or so.
"""
import json, math, sys, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)))

def lang(t): return 'ko' if any('\uac00'<=c<='\ud7a3' for c in t) else 'en'

def write_inputs(path):
    out=open(path,'w'); seen=set()
    for f in ['tuning','heldout','korean']:
        d=json.load(open(os.path.join(ROOT, f+'.json')))
        for t,x in [('p',p) for p in d['posts']]+[('q',q) for q in d['questions']]:
            if (t,x['id']) in seen: continue
            seen.add((t,x['id']))
            text=(x['text'].strip()+' '+' '.join(x['tags'])).strip()
            for kind in ['q','p']:
                out.write(json.dumps({'id':t+':'+x['id'],'text':text,'kind':kind},ensure_ascii=False)+'\n')

def load(half):
    d=json.load(open(os.path.join(ROOT, half+'.json'))); k=json.load(open(os.path.join(ROOT, 'korean.json')))
    return d['posts']+k['posts'], d['questions']+[q for q in k['questions'] if q.get('half')==half]

def sub(a,b): return [x-y for x,y in zip(a,b)]
def norm(a):
    n=math.sqrt(sum(x*x for x in a)); return [x/n for x in a]
def dot(a,b): return sum(x*y for x,y in zip(a,b))

def run(V, qk, pk, correct):
    posts,qs=load('tuning')
    plang={p['id']:p.get('lang') or lang(p['text']) for p in posts}
    pv={p['id']:V[('p:'+p['id'],pk)] for p in posts}
    if correct:
        means={L:[sum(c)/n for c in zip(*vs)] for L in ['ko','en'] for vs in [[pv[i] for i in pv if plang[i]==L]] for n in [len(vs)]}
        pv={i:norm(sub(v,means[plang[i]])) for i,v in pv.items()}
    stats={}
    for q in qs:
        ql=q.get('lang') or lang(q['text'])
        v=V[('q:'+q['id'],qk)]
        if correct: v=norm(sub(v,means[ql]))
        top=sorted(pv,key=lambda i:-dot(v,pv[i]))[:5]
        same=[i for i in q['posts'] if plang.get(i,ql)==ql]; other=[i for i in q['posts'] if plang.get(i,ql)!=ql]
        own='ko' if ql=='ko' else 'en'; cross='ko->en' if ql=='ko' else 'en->ko'
        for name,labels in [(own,same),(cross,other)]:
            if not labels: continue
            s=stats.setdefault(name,[0,0]); s[1]+=1
            if any(i in labels for i in top): s[0]+=1
    return ' '.join(f'{k} {a/b:.2f}' for k,(a,b) in sorted(stats.items()))

if __name__ == '__main__':
    if sys.argv[1] == 'inputs':
        write_inputs(sys.argv[2])
    else:
        V={}
        for l in open(sys.argv[2]):
            r=json.loads(l); V[(r['id'],r['kind'])]=r['v']
        for qk,pk in [('q','q'),('q','p'),('p','p')]:
            for c in [False,True]:
                print(f"questions {qk}, posts {pk}, {'language means subtracted' if c else 'raw'}: {run(V,qk,pk,c)}")
