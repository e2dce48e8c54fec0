#!/usr/bin/env bash
# Makes the Python virtualenv the MCP interop test runs its client in
# (tests/interop/mcp_client.py, on the official MCP Python SDK), and prints
# the venv's python as the last line of stdout. Everything else goes to stderr.
#
#   INTEROP_VENV    where the venv lives (default: <repo>/target/interop-venv)
#   INTEROP_PYTHON  the interpreter to build it from (default: python3)
#
# Idempotent: the sha256 of requirements.txt is recorded in the venv once the
# install succeeded; while it matches, nothing is done. When it differs (or
# the venv is missing or broken) the venv is rebuilt from scratch.
#
# Needs python3 and, for the install, PyPI. Where `python3 -m venv` cannot
# bootstrap pip (Debian without python3-venv: no ensurepip), the venv is made
# --without-pip and filled by the system pip (`pip --python`), or else by
# `virtualenv` if that is installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${INTEROP_VENV:-$repo/target/interop-venv}"
base_python="${INTEROP_PYTHON:-python3}"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
py="$venv/bin/python"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

log() { printf 'interop setup: %s\n' "$*" >&2; }

want="$(sha256sum "$requirements" | cut -d' ' -f1)"

up_to_date() {
    [[ -x "$py" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$py" -c '' 2>/dev/null
}

if up_to_date; then
    echo "$py"
    exit 0
fi

# Several tests may ask at once: one builds, the others wait and reuse it.
mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
    if up_to_date; then
        echo "$py"
        exit 0
    fi
fi

command -v "$base_python" >/dev/null 2>&1 || {
    log "$base_python not found (set INTEROP_PYTHON)"
    exit 1
}

if [[ -e "$venv" ]]; then
    # Only ever delete what is recognisably a venv (or empty).
    if [[ -f "$venv/pyvenv.cfg" ]] || [[ -d "$venv" && -z "$(ls -A "$venv")" ]]; then
        log "rebuilding $venv (requirements changed or venv broken)"
        rm -rf "$venv"
    else
        log "$venv exists and is not a virtualenv; refusing to replace it"
        exit 1
    fi
fi

log "creating $venv with $base_python"
if venv_out="$("$base_python" -m venv "$venv" 2>&1)"; then
    log "installing $(grep -v '^#' "$requirements" | xargs)"
    "$py" -m pip install -q -r "$requirements" >&2
else
    # Typically Debian without python3-venv: the venv module is there, ensurepip is not.
    rm -rf "$venv"
    if "$base_python" -m venv --without-pip "$venv" >&2 &&
        "$base_python" -m pip --python "$py" --version >/dev/null 2>&1; then
        log "no ensurepip; installing with $base_python's own pip into the venv"
        "$base_python" -m pip --python "$py" install -q -r "$requirements" >&2
    elif command -v virtualenv >/dev/null 2>&1; then
        rm -rf "$venv"
        log "no ensurepip; using virtualenv"
        virtualenv -q -p "$base_python" "$venv" >&2
        "$py" -m pip install -q -r "$requirements" >&2
    else
        rm -rf "$venv"
        printf '%s\n' "$venv_out" >&2
        log "cannot make a virtualenv: install python3-venv (or python3-pip >= 22.3, or virtualenv)"
        exit 1
    fi
fi

"$py" -c 'import mcp.client.streamable_http' || {
    log "the venv at $venv cannot import the MCP SDK"
    exit 1
}
echo "$want" >"$stamp"
echo "$py"
