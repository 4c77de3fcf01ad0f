#!/usr/bin/env bash
# `npm run setup:system`: installs the system packages of .ci/system-packages (Debian or Ubuntu,
# apt), the optional tools some tests need: virus and spam scanners, PgBouncer, OCR, Chromium.
# .ci/run calls this same script, so a developer's machine and CI cannot drift apart.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=$(sed -e 's/#.*//' .ci/system-packages | tr -s ' \n' ' ')

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:system: no apt-get here; install these (Debian names) with your package manager:$packages" >&2
  exit 1
fi
as_root=""
if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi

missing=""
for package in $packages; do dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"; done
if [ -n "$missing" ]; then
  echo "setup:system: installing$missing"
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "setup:system: every package is installed:$packages"
fi

# Rspamd's tests keep Bayes statistics in Redis on 127.0.0.1:6379; a container has no init that
# starts the service after the install.
if command -v redis-server >/dev/null 2>&1 && ! (redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG); then
  echo "setup:system: starting redis-server on 127.0.0.1:6379"
  $as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
fi
