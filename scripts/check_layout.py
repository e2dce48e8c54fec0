#!/usr/bin/env python3
"""Fails on an import circle between the crate's modules, and on a source
file whose code (its unit tests apart) is over the size limit.

Each file under src/ is a module (`src/posts/sqlite.rs` is `posts::sqlite`).
A module depends on every module it names: `crate::a::b` paths (in `use`
trees too) and `super::x` paths. A dependency between a module and its own
ancestor is structure, not layering (a parent declares its children; a child
uses its parent's items), so it is left out. Every other dependency is
lifted to the two siblings it connects under their common parent
(`agent::fallback` -> `posts::fuse` is `agent` -> `posts`), and the siblings
of each parent must form no circle. Test modules (`#[cfg(test)] mod tests`)
are not read. It also checks that lib.rs's `# Layout` map names every
top-level module and no other.

Usage: scripts/check_layout.py [--graph]   (--graph prints the edges)
"""

import os
import re
import sys
from collections import defaultdict

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
MAX_LINES = 350  # issue 22: "no file over ~350 lines", its unit tests apart
TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod \w+\s*\{")


def module_of(path):
    parts = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def code_of(text):
    """The file without its test module and comments."""
    m = TEST_MODULE.search(text)
    if m:
        text = text[: m.start()]
    text = re.sub(r"//[^\n]*", "", text)
    return text


def use_paths(tree, prefix=()):
    """Paths named by a `use` tree body such as `a::{b, c::d}, e`."""
    items, depth, token = [], 0, ""
    for ch in tree:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(token)
            token = ""
        else:
            token += ch
    items.append(token)
    for item in items:
        item = item.strip()
        if not item:
            continue
        m = re.match(r"([\w:]*?)(::)?\{(.*)\}$", item, re.S)
        if m:
            head = tuple(p for p in m.group(1).split("::") if p)
            yield from use_paths(m.group(3), prefix + head)
        else:
            name = item.split(" as ")[0].strip()
            yield prefix + tuple(p for p in name.split("::") if p)


def referenced(module, code):
    """Absolute paths (tuples) this module's code names."""
    paths = []
    for m in re.finditer(r"\buse\s+(crate|super)::(\{.*?\}|[^;]*);", code, re.S):
        base = () if m.group(1) == "crate" else module[:-1]
        body = m.group(2)
        body = body[1:-1] if body.startswith("{") else body
        paths += [base + p for p in use_paths(body)]
    for m in re.finditer(r"\b(crate|super)((?:::\w+)+)", code):
        base = () if m.group(1) == "crate" else module[:-1]
        paths.append(base + tuple(p for p in m.group(2).split("::") if p))
    return paths


def resolve(path, modules):
    """The longest module that `path` names or names an item of."""
    for n in range(len(path), 0, -1):
        if path[:n] in modules:
            return path[:n]
    return None


def cycles(edges):
    """Every strongly connected component with more than one node."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def module_map_problems(files):
    """lib.rs's `# Layout` map must name every top-level module, and only those."""
    lib = open(os.path.join(SRC, "lib.rs"), encoding="utf-8").read()
    layout = lib.split("//! # Layout", 1)[-1].split("\n\n", 1)[0]
    mapped = set(re.findall(r"^//! - \[`(\w+)`\]", layout, re.M))
    declared = set(re.findall(r"^pub mod (\w+);", lib, re.M))
    problems = [f"lib.rs: module `{m}` is not in the `# Layout` map" for m in sorted(declared - mapped)]
    problems += [f"lib.rs: the `# Layout` map names `{m}`, which is no module" for m in sorted(mapped - declared)]
    return problems


def main():
    files = {}
    for d, _, fs in os.walk(SRC):
        for f in fs:
            if f.endswith(".rs"):
                path = os.path.join(d, f)
                files[module_of(path)] = path
    modules = set(files)
    siblings = defaultdict(lambda: defaultdict(set))  # parent -> a -> {b}
    why = {}
    problems = []
    for module, path in sorted(files.items()):
        text = open(path, encoding="utf-8").read()
        m = TEST_MODULE.search(text)
        lines = text[: m.start() if m else len(text)].count("\n")
        if lines > MAX_LINES:
            problems.append(f"{os.path.relpath(path, SRC)}: {lines} lines (limit {MAX_LINES})")
        for target in referenced(module, code_of(text)):
            target = resolve(target, modules)
            if target is None or target == module:
                continue
            common = 0
            while (
                common < min(len(module), len(target))
                and module[common] == target[common]
            ):
                common += 1
            if common == len(module) or common == len(target):
                continue  # an ancestor and its descendant
            parent, a, b = module[:common], module[common], target[common]
            siblings[parent][a].add(b)
            why.setdefault((parent, a, b), f"{'::'.join(module)} -> {'::'.join(target)}")
    if "--graph" in sys.argv:
        for parent, edges in sorted(siblings.items()):
            for a, bs in sorted(edges.items()):
                print(f"{'::'.join(parent) or 'crate'}: {a} -> {', '.join(sorted(bs))}")
    for parent, edges in sorted(siblings.items()):
        for component in cycles(edges):
            inside = [
                why[(parent, a, b)]
                for a in component
                for b in sorted(edges[a])
                if b in component
            ]
            where = "::".join(parent) or "crate"
            problems.append(
                f"import circle in {where}: {', '.join(component)} ({'; '.join(inside)})"
            )
    problems += module_map_problems(files)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"layout ok: {len(files)} modules, no import circle, no file over {MAX_LINES} lines")


if __name__ == "__main__":
    main()
