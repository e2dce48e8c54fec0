#!/usr/bin/env bash
# Makes sure PostgreSQL's server programs (and openssl, which makes the TLS
# test's certificates) are installed, and prints the
# directory that holds them (initdb, postgres, pg_isready) as the last line of
# stdout. The tests start throwaway servers from it (tests/it/support/postgres.rs).
#
# When they are missing and we are root on Debian/Ubuntu, Debian's
# `postgresql` package is installed (apt-get); otherwise it says what to do.
set -euo pipefail

bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

dir=$(bin_dir || true)
if [ -z "$dir" ] || [ ! -x "$dir/initdb" ] || ! command -v openssl >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "postgres setup: installing Debian's postgresql and openssl packages" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq --no-install-recommends postgresql openssl >&2
        dir=$(bin_dir)
    else
        echo "postgres setup: PostgreSQL or openssl is not installed; run: sudo apt-get install postgresql openssl" >&2
        exit 1
    fi
fi
echo "$dir"
