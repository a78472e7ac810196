#!/usr/bin/env bash
# The test command: installs what is needed, builds rowbridge with ASan+UBSan, starts throwaway
# MariaDB and ClickHouse servers, runs every test (unit, integration, a bounded fuzz run and the
# benchmark smoke runs), and stops the servers again, also when a test fails.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

"$ROOT/scripts/install-deps.sh"

BUILD="${ROWBRIDGE_TEST_BUILD:-$ROOT/build/asan}"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/rowbridge-ccache}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROWBRIDGE_SANITIZE=ON \
  -DROWBRIDGE_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
