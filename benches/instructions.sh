#!/usr/bin/env bash
# Instructions the service executes per request in a load scenario, counted by
# callgrind (valgrind): deterministic to about ±0.3 % on a quiet machine,
# where CPU time on a shared VM varies by ±30 % between runs. Beside other
# jobs the counts move too (slowed under callgrind, requests wait out
# deadlines and take other paths: one B1 run beside the test suite counted
# twice its quiet figure), so count alone. Per request = (count at 600 requests
# − count at 200 requests) / 440 (each count includes start-up, seeding and a
# warm-up of a tenth of the requests), so start-up cancels out.
#
#   benches/instructions.sh B1 [B5 ...]          # this checkout's release build
#   SERVICE=/path/to/other/build benches/instructions.sh B1
#   BENCH=/path/to/load-bench-binary benches/instructions.sh B1   # no cargo build
#   TRACES=1 benches/instructions.sh B1             # exporting traces (OTLP) to
#                                                   # a local receiver
#   DATABASE_URL=postgres://… benches/instructions.sh B1   # posts in PostgreSQL
#   BENCH_LLM_AUTH=managed-identity benches/instructions.sh B1   # an Entra ID
#                                                   # token in place of the key
#
# Needs valgrind (apt-get install valgrind). Takes ~50 s per scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 B1 [B5 ...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }

# BENCH: a load bench binary already built (else this checkout's is built).
bench=${BENCH:-$(cargo bench --locked --bench load --no-run 2>&1 |
    grep -o 'target/release/deps/load-[0-9a-f]*' | head -1)}
service=$(realpath "${SERVICE:-target/release/linkup-suggestions}")
valgrind=$(command -v valgrind)
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${receiver:-}" ] || kill "$receiver"' EXIT

# TRACES=1: a local OTLP/HTTP receiver that takes every export (200, an empty
# ExportTraceServiceResponse), as a collector would; the service exports to it.
otel_env=
if [ "${TRACES:-0}" = 1 ]; then
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 - "$port" <<'PY' &
import http.server, sys
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver).serve_forever()
PY
    receiver=$!
    otel_env="OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$port"
fi

# DATABASE_URL: the service keeps its posts (and run records) in that
# PostgreSQL database instead of SQLite.
store_env=
if [ -n "${DATABASE_URL:-}" ]; then
    store_env="LINKUP__POSTS__BACKEND=postgres DATABASE_URL=$DATABASE_URL"
fi

seed() { # scenario -> a database holding its seed posts and their vectors
    # Run natively once: under callgrind, the multilingual model would take
    # CPU-minutes to embed the 200 seed posts (B5). Started from a copy, the
    # counted runs load the stored vectors and re-seed unchanged posts.
    [ -z "${DATABASE_URL:-}" ] || return 0
    BENCH_REQUESTS=1 BENCH_SERVICE_BIN="$service" BENCH_GRACEFUL_STOP=1 \
        BENCH_DB_KEEP="$work/seeded.db" "$bench" "$1" >/dev/null 2>&1
    echo "BENCH_DB_FROM=$work/seeded.db"
}

count() { # scenario requests -> instructions of the whole service run
    # The bench starts the service with a cleared environment: absolute paths.
    printf '#!/bin/sh\nexec env %s %s %s --tool=callgrind --callgrind-out-file=%s %s "$@" 2>/dev/null\n' \
        "$otel_env" "$store_env" "$valgrind" "$work/out" "$service" >"$work/run.sh"
    chmod +x "$work/run.sh"
    env $seeded BENCH_REQUESTS=$2 BENCH_SERVICE_BIN="$work/run.sh" BENCH_GRACEFUL_STOP=1 \
        "$bench" "$1" >/dev/null 2>&1
    awk '/^totals:/ {print $2}' "$work/out"
}

for scenario in "$@"; do
    seeded=$(seed "$scenario")
    low=$(count "$scenario" 200)
    high=$(count "$scenario" 600)
    echo "$scenario $(basename "$service"): $(( (high - low) / 440 / 1000 )) k instructions/request"
done
