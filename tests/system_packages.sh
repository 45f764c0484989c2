#!/usr/bin/env bash
# System packages the tests need, installed by `make test` before pytest runs
# (never from inside a test): Debian's chromium for the web view test.
# As root with apt-get, a missing package is installed; otherwise the script
# says what to install, and the test that needs it fails with the same advice
# (set KRONOGRAPH_TEST_NO_BROWSER=1 to skip the browser test instead).
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
if [ -n "${KRONOGRAPH_TEST_NO_BROWSER:-}" ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium for the web view test" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
    echo "note: the web view test needs Debian's chromium: apt-get install chromium" \
         "(or set KRONOGRAPH_TEST_NO_BROWSER=1 to skip it)" >&2
fi
