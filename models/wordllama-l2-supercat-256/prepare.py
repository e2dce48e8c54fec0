#!/usr/bin/env python3
"""Copies the local embedding model out of the `wordllama` wheel on PyPI.

WordLlama's l2_supercat model (MIT, Lee Miller): a static token-embedding
table (32,000 LLaMA-2 tokens x 256 dimensions, float16) and its tokenizer.
The files are copied byte for byte (their SHA-256 are printed and recorded in
SOURCE); the service quantizes the table when it loads it.

It also writes reference.json: embeddings of a few texts computed by the
package's own inference code (tokenize without special tokens, mean of the
token vectors, unit length), which the service's tests compare against.

Run from anywhere (needs network access to PyPI only):
    python3 models/wordllama-l2-supercat-256/prepare.py
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import venv

WHEEL = "wordllama==0.4.0.post1"
HERE = os.path.dirname(os.path.abspath(__file__))
TEXTS = [
    "How do I set up a CI/CD pipeline for our repo?",
    "Our pods keep getting evicted on the cluster, any internal guide on k8s resource limits?",
    "How do I get reimbursed for a client dinner?",
    "expense claim for a customer meal",
    "VPN 접속이 안 돼요. 재택근무 중인데 설정 가이드 있나요?",
    "연말정산 서류 어디서 받나요?",
    "Café près de la gare",
    "k8s OOMKilled help!!",
    "",
]

REFERENCE = r"""
import json, os, sys
import numpy as np
import wordllama
from safetensors.numpy import load_file
from tokenizers import Tokenizer
from wordllama.inference import WordLlamaInference
root = os.path.dirname(wordllama.__file__)
table = load_file(os.path.join(root, "weights/l2_supercat_256.safetensors"))["embedding.weight"]
tokenizer = Tokenizer.from_file(os.path.join(root, "tokenizers/l2_supercat_tokenizer_config.json"))
model = WordLlamaInference(table, tokenizer)
texts = json.loads(sys.argv[1])
out = []
for text in texts:
    ids = tokenizer.encode(text, add_special_tokens=False).ids
    v = model.embed([text], norm=False)[0]
    n = float(np.linalg.norm(v))
    out.append({"text": text, "ids": ids, "vector": [round(float(x) / n, 6) if n else 0.0 for x in v]})
print(json.dumps({"root": root, "items": out}))
"""


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        venv.create(tmp, with_pip=True)
        py = os.path.join(tmp, "bin", "python")
        subprocess.run([py, "-m", "pip", "install", "-q", WHEEL], check=True)
        result = subprocess.run([py, "-c", REFERENCE, json.dumps(TEXTS)], check=True,
                                capture_output=True, text=True)
        reference = json.loads(result.stdout)
        root = reference.pop("root")
        copies = {
            "weights/l2_supercat_256.safetensors": "l2_supercat_256.safetensors",
            "tokenizers/l2_supercat_tokenizer_config.json": "tokenizer.json",
        }
        lines = [f"Copied from the PyPI wheel {WHEEL} (MIT licence, LICENSE here) by prepare.py."]
        for src, dst in copies.items():
            shutil.copyfile(os.path.join(root, src), os.path.join(HERE, dst))
            lines.append(f"{dst} = wordllama/{src} sha256 {sha256(os.path.join(HERE, dst))}")
        dist = [d for d in os.listdir(os.path.dirname(root)) if d.startswith("wordllama-") and d.endswith(".dist-info")][0]
        shutil.copyfile(os.path.join(os.path.dirname(root), dist, "licenses", "LICENSE"),
                        os.path.join(HERE, "LICENSE"))
    with open(os.path.join(HERE, "SOURCE"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(reference, f, ensure_ascii=False)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
