#!/usr/bin/env python3
"""Checks that the Dockerfile's build stage copies every file of this
repository that the release build read, and builds as CI does.

What the build read is the build's own record: Cargo's dependency file
(target/release/linkup-suggestions.d, written by `cargo build --release`),
plus the manifest, the lock file and the build script. Run after that build:

    python3 scripts/check_dockerfile.py
"""

import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = "cargo build --release --locked"


def build_stage(dockerfile: str) -> tuple[list[str], list[str]]:
    """The sources COPY'd into the first stage before its last build, and
    the stage's RUN commands."""
    copied, runs = [], []
    stage = 0
    for line in joined_lines(dockerfile):
        words = line.split(None, 1)
        if not words:
            continue
        instruction, rest = words[0].upper(), (words[1] if len(words) > 1 else "")
        if instruction == "FROM":
            stage += 1
            if stage > 1:
                break
        elif instruction == "COPY":
            args = [a for a in shlex.split(rest) if not a.startswith("--")]
            copied.extend(args[:-1])
        elif instruction == "RUN":
            runs.append(rest)
    return copied, runs


def joined_lines(text: str) -> list[str]:
    """Instructions with their continuation lines joined, comments dropped."""
    out, current = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
        else:
            out.append(current + line)
            current = ""
    return out


def read_by_build(depfile: Path) -> set[str]:
    """Repository files the build read, relative to the repository."""
    text = depfile.read_text().replace("\\\n", " ")
    _, _, deps = text.partition(": ")
    read = {"Cargo.toml", "Cargo.lock"}
    if (ROOT / "build.rs").exists():
        read.add("build.rs")
    for dep in deps.split():
        path = Path(dep)
        if not path.is_absolute():
            path = ROOT / path
        try:
            rel = path.resolve().relative_to(ROOT)
        except ValueError:
            continue  # the toolchain's and the registry's files
        if rel.parts[0] != "target":
            read.add(rel.as_posix())
    return read


def covered(path: str, copied: list[str]) -> bool:
    for source in copied:
        source = source.rstrip("/").removeprefix("./")
        if source in (".", "") or path == source or path.startswith(source + "/"):
            return True
    return False


def main() -> int:
    dockerfile = (ROOT / "Dockerfile").read_text()
    copied, runs = build_stage(dockerfile)
    problems = []
    if not runs or BUILD not in runs[-1]:
        problems.append(f"the build stage's last RUN does not run `{BUILD}` as CI does")
    depfile = ROOT / "target/release/linkup-suggestions.d"
    if not depfile.exists():
        problems.append(f"{depfile} is missing: run `{BUILD}` first")
    else:
        missing = sorted(p for p in read_by_build(depfile) if not covered(p, copied))
        problems += [f"the build reads {p}, which the Dockerfile's build stage does not copy" for p in missing]
    for problem in problems:
        print(f"Dockerfile: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
