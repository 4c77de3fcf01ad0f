#!/usr/bin/env bash
# `npm test` as on a machine with only Node and npm, on a machine that has everything: run as root
# (for the namespaces) from a clone after `npm ci`. A mount namespace hides every optional system
# tool and the machine's PostgreSQL binaries behind non-executable files; a network namespace
# hides the servers already running here (PostgreSQL, Redis, clamd, spamd), so the suite starts
# its embedded PostgreSQL and skips what needs a missing tool, as on a stock machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then echo "run as root: it needs a mount and a network namespace" >&2; exit 2; fi

hidden_tools="clamd freshclam spamd spamc rspamd rspamc redis-server redis-cli pgbouncer
  pdftoppm pdfimages pdfinfo pdftotext tesseract chromium psql pg_isready pg_ctl postgres initdb"
stand_in=$(mktemp /tmp/not-installed.XXXXXX)
empty_dir=$(mktemp -d /tmp/not-installed-dir.XXXXXX)
chmod 644 "$stand_in"
trap 'rm -rf "$stand_in" "$empty_dir"' EXIT

HIDDEN_TOOLS="$hidden_tools" STAND_IN="$stand_in" EMPTY_DIR="$empty_dir" \
  unshare --mount --net --propagation private bash -c '
    set -euo pipefail
    ip link set lo up
    for tool in $HIDDEN_TOOLS; do
      for dir in /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin; do
        if [ -e "$dir/$tool" ]; then mount --bind "$STAND_IN" "$dir/$tool"; fi
      done
    done
    if [ -d /usr/lib/postgresql ]; then mount --bind "$EMPTY_DIR" /usr/lib/postgresql; fi
    unset DATABASE_URL CI REQUIRE_SYSTEM_TOOLS
    exec npm test -- "$@"
  ' bash "$@"
