#!/usr/bin/env python3
"""Start-up time and resident memory of the release binary, with the local
model compiled in (the default) and read from its directory
(`posts.model_path`): `python3 benches/startup.py [RUNS]` after
`cargo build --release --locked`. Each run starts the binary from an empty
temporary directory with nothing configured, times it until it logs its
address, and reads /proc/PID/status one second later. Prints medians.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target/release/linkup-suggestions")
MODEL_DIR = os.path.join(ROOT, "models/wordllama-l2-supercat-256")


def run(model_path):
    env = {"PATH": os.environ["PATH"], "LINKUP__SERVER__ADDR": "127.0.0.1:0", "LINKUP__LOG__FORMAT": "json"}
    if model_path:
        env["LINKUP__POSTS__MODEL_PATH"] = model_path
    with tempfile.TemporaryDirectory() as cwd:
        started = time.monotonic()
        proc = subprocess.Popen([BINARY], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in proc.stdout:
            if '"addr"' in line:
                break
        ms = (time.monotonic() - started) * 1000
        time.sleep(1.0)
        with open(f"/proc/{proc.pid}/status") as f:
            status = {l.split(":")[0]: int(l.split()[1]) / 1024 for l in f if l.startswith(("VmRSS", "RssAnon", "RssFile"))}
        proc.terminate()
        proc.wait()
    return ms, status


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"binary: {os.path.getsize(BINARY) / 1e6:.1f} MB on disk")
    for label, model_path in [("compiled in", None), ("from its directory", MODEL_DIR)]:
        results = [run(model_path) for _ in range(runs)]
        med = lambda key: statistics.median(r[1][key] for r in results)
        times = [r[0] for r in results]
        print(
            f"model {label}: start-up to listening median {statistics.median(times):.0f} ms "
            f"(min {min(times):.0f}, max {max(times):.0f}); 1 s later VmRSS {med('VmRSS'):.1f} MB "
            f"(anonymous {med('RssAnon'):.1f}, file {med('RssFile'):.1f})"
        )


if __name__ == "__main__":
    main()
