#!/usr/bin/env bash
# The test command: installs what is needed, checks the formatting, builds rowbridge with
# ASan+UBSan, starts throwaway MariaDB and ClickHouse servers, runs every unit and integration test
# and the benchmark scripts in smoke mode (bench/*.sh --smoke) against them, then the integration
# tests again against each other source flavor (MySQL 9.x: all of them; MariaDB 11.8: the
# pipeline tests, the cluster suite among them, copy, check, quoting and test-server tests), builds the libFuzzer targets with clang
# and runs each for a bounded time, and stops the servers again, also when a test fails. Prints a
# summary; exits non-zero if any step failed.
#
# Tests that only one flavor can run say so in their name: *MariaDbOnly* (e.g. comparisons with
# mariadb-binlog, MariaDB-only authentication) and *MySqlOnly*.
#
# Knobs (environment):
#   ROWBRIDGE_TEST_BUILD   the ASan build directory             (default build/asan)
#   ROWBRIDGE_FUZZ_BUILD   the fuzz build directory              (default build/fuzz)
#   ROWBRIDGE_FUZZ_SECONDS seconds per fuzz target; 0 skips fuzzing (default 10; longer runs by hand)
#   ROWBRIDGE_TEST_JOBS    parallel ctest jobs                   (default 2 x cores)
#   ROWBRIDGE_CTEST_ARGS   extra ctest arguments, e.g. "-R Binlog"
#   ROWBRIDGE_SKIP_DEPS=1  do not run scripts/install-deps.sh
#   ROWBRIDGE_TEST_SOURCES the other source flavors to run the integration tests against
#                          (default "mysql mariadb11"; "" runs MariaDB 10.11 only)
#   ROWBRIDGE_PACKAGE_TEST=0  skip the Debian package step (scripts/package.sh --install-test:
#                          a release build, the .deb, installed into a clean Debian 12 chroot)
#   ROWBRIDGE_SOAK_MINUTES minutes of faults in the short soak (default 2; 0 skips it)
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT" || exit 1

BUILD="${ROWBRIDGE_TEST_BUILD:-$ROOT/build/asan}"
FUZZ_BUILD="${ROWBRIDGE_FUZZ_BUILD:-$ROOT/build/fuzz}"
FUZZ_SECONDS="${ROWBRIDGE_FUZZ_SECONDS:-10}"
CORES="$(nproc)"
read -r -a OTHER_SOURCES <<<"${ROWBRIDGE_TEST_SOURCES-mysql mariadb11}"
JOBS="${ROWBRIDGE_TEST_JOBS:-$((CORES * 2))}"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/rowbridge-ccache}"
# Fresh clones in other directories (CI) still hit the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-3G}"

START=$SECONDS
SUMMARY=()
DETAILS=()  # lines a step adds below its own summary line
FAILED=0

# step NAME COMMAND...: runs one step, records its outcome and duration.
step() {
  local step_name="$1" t0=$SECONDS rc=0
  shift
  echo
  echo "==== $step_name"
  "$@" || rc=$?
  if ((rc == 0)); then
    SUMMARY+=("$(printf '  %-6s %-44s %5ss' PASS "$step_name" $((SECONDS - t0)))")
  else
    SUMMARY+=("$(printf '  %-6s %-44s %5ss  (exit %s)' FAIL "$step_name" $((SECONDS - t0)) "$rc")")
    FAILED=1
  fi
  SUMMARY+=("${DETAILS[@]}")
  DETAILS=()
  return "$rc"
}

SERVERS_DIR=""
finish() {
  local rc=$?
  if [[ -n "$SERVERS_DIR" ]]; then
    bash "$ROOT/tests/servers/testservers.sh" stop "$SERVERS_DIR" || FAILED=1
    if ((FAILED)); then
      echo "test servers' logs are kept in $SERVERS_DIR"
    else
      rm -rf "$SERVERS_DIR"
    fi
  fi
  echo
  echo "==== summary ($((SECONDS - START))s in all)"
  printf '%s\n' "${SUMMARY[@]}"
  if ((FAILED || rc)); then
    echo "RESULT: FAILED"
    exit 1
  fi
  echo "RESULT: all steps passed"
  exit 0
}
trap finish EXIT
trap 'exit 130' INT TERM

deps() { "$ROOT/scripts/install-deps.sh"; }

# The modules are compiled as unity builds (a module's files in batches, as one file): on a fresh
# machine this halves the build's CPU time (measured: 1170 s -> 484 s for src/, 16 -> 9 minutes
# for the whole build on 2 cores). The tests are compiled file by file (CMakeLists.txt).
build_asan() {
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROWBRIDGE_SANITIZE=ON \
    -DCMAKE_UNITY_BUILD=ON -DROWBRIDGE_BENCH=OFF >/dev/null &&
    cmake --build "$BUILD" -j "$CORES"
}

# With the shared MariaDB and ClickHouse, one ClickHouse cluster (--cluster: a ZooKeeper and three
# nodes) for the whole run: every cluster test of every flavor uses it (ROWBRIDGE_TEST_CLUSTER_DIR,
# one test at a time: CMakeLists.txt) instead of starting and stopping one of its own per test
# process. Measured on 2 busy cores (load 6-7), PipelineClusterTest.AltersDuringWritesStopNoTable
# and .TheCheckpointSurvivesTheLossOfTheTargetHost one after another with MariaDB 10.11: 69 s
# with a cluster each (34.9 + 34.3), 40 s on the shared one (23.4 + 16.1), which starts once per
# run in about 6-15 s.
start_servers() {
  SERVERS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-test-servers.XXXXXX")" &&
    bash "$ROOT/tests/servers/testservers.sh" start --cluster --owner-pid=$$ "$SERVERS_DIR" &&
    eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$SERVERS_DIR")"
}

stop_servers() {
  local dir="$SERVERS_DIR"
  SERVERS_DIR=""
  bash "$ROOT/tests/servers/testservers.sh" stop "$dir" || {
    echo "test servers' logs are kept in $dir"
    return 1
  }
  if ((FAILED)); then echo "test servers' logs are kept in $dir"; else rm -rf "$dir"; fi
}

# run_ctest [LOG_NAME [CTEST_SELECTION...]]: runs ctest (every test by default).
run_ctest() {
  # CI must never skip a server test: a missing server fails the test instead.
  export ROWBRIDGE_REQUIRE_SERVERS=1
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  local log="$BUILD/${1:-ctest}.log" rc=0
  shift || true
  # shellcheck disable=SC2086
  ctest --test-dir "$BUILD" --output-on-failure --timeout 600 -j "$JOBS" "$@" \
    ${ROWBRIDGE_CTEST_ARGS:-} 2>&1 | tee "$log" || rc=1
  local failed
  failed="$(sed -n '/The following tests FAILED/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
    sed -E 's/^[[:space:]]+[0-9]+ - ([^ ]+).*\((.*)\)$/\1 (\2)/')"
  if [[ -n "$failed" ]]; then
    while IFS= read -r line; do DETAILS+=("         failed: $line"); done <<<"$failed"
  fi
  # ctest calls a test "skipped" whenever gtest printed [  SKIPPED ], and gtest prints that too
  # when a fixture's SetUpTestSuite failed. Here every server and every fixture is present, so a
  # skip can only hide a failure: it fails the step (ROWBRIDGE_ALLOW_SKIPS=1 to allow them).
  local skipped
  skipped="$(sed -n '/The following tests did not run/,/^$/p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
    sed -E 's/^[[:space:]]+[0-9]+ - ([^ ]+).*$/\1/')"
  if [[ -n "$skipped" && "${ROWBRIDGE_ALLOW_SKIPS:-0}" != 1 ]]; then
    while IFS= read -r line; do DETAILS+=("         skipped (counts as failed): $line"); done <<<"$skipped"
    rc=1
  fi
  return "$rc"
}

# The end-to-end benchmark scripts in smoke mode (seconds, a few thousand rows) with the ASan
# binaries, on the test servers: they measure nothing here, but fail when anything is broken
# (rowbridge exits or stops a table, nothing is replicated, `rowbridge check` differs).
# They and the soak run with the column buffers in the huge-page arena (common/buffer_memory.h),
# as a Release build has them: elsewhere the ASan build keeps them on operator new.
bench_smoke() {
  local script rc=0
  for script in incremental catchup full; do
    echo "-- bench/$script.sh --smoke"
    ROWBRIDGE_BUFFER_ARENA=1 bash "$ROOT/bench/$script.sh" --smoke --build "$BUILD" || {
      rc=1
      DETAILS+=("         failed: bench/$script.sh --smoke")
    }
  done
  return "$rc"
}

# The fault-injection soak, short (tests/soak/soak.sh, docs/running.md "Fault-injection soak"):
# random faults for ROWBRIDGE_SOAK_MINUTES on its own MariaDB and ClickHouse (the shared servers
# are not touched), then `rowbridge check` and a row-for-row comparison; about 3 minutes in all
# (2 minutes of faults: CI must stay near 45 minutes; longer soaks run by hand).
# The seed is random and printed, so each run covers another schedule and a failure repeats with
# --seed.
SOAK_MINUTES="${ROWBRIDGE_SOAK_MINUTES:-2}"
soak_short() {
  ROWBRIDGE_BUFFER_ARENA=1 bash "$ROOT/tests/soak/soak.sh" --minutes "$SOAK_MINUTES" --build "$BUILD"
}

# The source chroots (MySQL 9.x, MariaDB 11.8) are built in the background while the code
# compiles: the time goes to downloads. Their output waits in a log until the flavor runs.
CHROOTS_PID=""

# Swaps the shared source server for one of another flavor (ClickHouse stays), then runs the
# integration tests that flavor runs.
SOURCE_DIR=""
run_flavor() {
  local flavor="$1" rc=0
  # Tests of ClickHouse alone ran with the first flavor; they do not talk to a source
  # (ScopedClickHouseCluster.* is the cluster's own smoke test).
  local clickhouse_only='^ClickHouse|^PrivateClickHouse|^ScopedClickHouse'
  # The cluster pipeline tests (PipelineCluster*) run with every flavor, on the run's one cluster.
  local -a selection=(-L integration)
  case "$flavor" in
    mysql) selection+=(-E "MariaDbOnly|$clickhouse_only") ;;
    mariadb11) selection+=(-R 'Pipeline|Snapshot|Check|FirstHour|TestServers|SqlQuote|ReplayWindow' -E "MariaDbOnly|MySqlOnly|$clickhouse_only") ;;
  esac
  if [[ -n "$SOURCE_DIR" ]]; then
    bash "$ROOT/tests/servers/testservers.sh" stop --remove "$SOURCE_DIR" || return 1
  fi
  SOURCE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-test-$flavor.XXXXXX")" &&
    bash "$ROOT/tests/servers/testservers.sh" start --source="$flavor" --no-clickhouse \
      --owner-pid=$$ "$SOURCE_DIR" &&
    eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$SOURCE_DIR")" || return 1
  echo "source: $ROWBRIDGE_TEST_MYSQL_VERSION"
  run_ctest "ctest-$flavor" "${selection[@]}" || rc=1
  return "$rc"
}

build_fuzz() {
  cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" \
    -DROWBRIDGE_FUZZ=ON -DROWBRIDGE_TESTS=OFF -DCMAKE_UNITY_BUILD=ON \
    -DROWBRIDGE_BENCH=OFF >/dev/null &&
    cmake --build "$FUZZ_BUILD" -j "$CORES" --target "${FUZZERS[@]}"
}

# Runs one fuzz target for FUZZ_SECONDS. New inputs go to a corpus in the build directory; the
# seeds in tests/data/fuzz/<name>/ (if any) are read only. A crash leaves its input in
# $FUZZ_BUILD/artifacts/.
run_one_fuzzer() {
  local name="$1"
  local corpus="$FUZZ_BUILD/corpus/$name" seeds="$ROOT/tests/data/fuzz/$name"
  local log="$FUZZ_BUILD/logs/$name.log"
  mkdir -p "$corpus" "$FUZZ_BUILD/artifacts" "$FUZZ_BUILD/logs"
  local -a dirs=("$corpus")
  [[ -d "$seeds" ]] && dirs+=("$seeds")
  if ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="halt_on_error=1" \
    "$FUZZ_BUILD/$name" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$FUZZ_BUILD/artifacts/$name-" "${dirs[@]}" \
    >"$log" 2>&1; then
    echo "  fuzz $name: ok ($(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$log" |
      grep -oE '[0-9]+$') runs)"
    return 0
  fi
  echo "  fuzz $name: FAILED; last lines of $log:"
  tail -n 60 "$log"
  return 1
}

run_fuzzers() {
  local pids=() names=() i rc=0 fuzzer
  for fuzzer in "${FUZZERS[@]}"; do
    # At most one fuzzer per core at a time.
    while (($(jobs -rp | wc -l) >= CORES)); do wait -n || true; done
    run_one_fuzzer "$fuzzer" &
    pids+=($!)
    names+=("$fuzzer")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || {
      rc=1
      DETAILS+=("         fuzz target failed: ${names[$i]}")
    }
  done
  return "$rc"
}

if [[ "${ROWBRIDGE_SKIP_DEPS:-0}" != 1 ]]; then
  step "install dependencies" deps || exit 1
fi
# Formatting does not stop the run: the tests still say whether the code works.
step "format (scripts/check-format.sh)" "$ROOT/scripts/check-format.sh"
if ((${#OTHER_SOURCES[@]})); then
  bash "$ROOT/scripts/source-chroots.sh" all >"${TMPDIR:-/tmp}/rowbridge-source-chroots.log" 2>&1 &
  CHROOTS_PID=$!
fi
# The package's install test copies a pristine Debian 12 chroot; it is built (once, downloads)
# meanwhile too. scripts/package.sh waits for it (a lock) or builds it if this failed.
PACKAGE_TEST="${ROWBRIDGE_PACKAGE_TEST:-1}"
if [[ "$PACKAGE_TEST" == 1 ]]; then
  bash "$ROOT/scripts/source-chroots.sh" bookworm-pristine \
    >"${TMPDIR:-/tmp}/rowbridge-pristine-chroot.log" 2>&1 &
fi
step "build (ASan+UBSan)" build_asan || exit 1
# The package's release build runs at the lowest priority while the tests run: it takes CPU the
# tests leave idle (waiting on servers) rather than minutes of its own at the end.
PACKAGE_BUILD_PID=""
if [[ "$PACKAGE_TEST" == 1 ]]; then
  nice -n 19 bash "$ROOT/scripts/package.sh" >"${TMPDIR:-/tmp}/rowbridge-package-build.log" 2>&1 &
  PACKAGE_BUILD_PID=$!
fi
step "start test servers" start_servers || exit 1
step "unit and integration tests, MariaDB 10.11 (ctest)" run_ctest ctest -E MySqlOnly
step "benchmark scripts, smoke mode (bench/*.sh --smoke)" bench_smoke
if [[ "$SOAK_MINUTES" != 0 ]]; then
  step "fault-injection soak, ${SOAK_MINUTES} min (tests/soak/soak.sh)" soak_short
fi
if [[ -n "$CHROOTS_PID" ]]; then
  chroots() {
    wait "$CHROOTS_PID" && return 0
    cat "${TMPDIR:-/tmp}/rowbridge-source-chroots.log"
    return 1
  }
  if step "source chroots (scripts/source-chroots.sh)" chroots; then
    # The shared MariaDB 10.11 makes way for each other flavor in turn.
    bash "$ROOT/tests/servers/testservers.sh" stop --only=mariadb "$SERVERS_DIR" || FAILED=1
    for flavor in "${OTHER_SOURCES[@]}"; do
      step "integration tests, source $flavor (ctest)" run_flavor "$flavor"
    done
    if [[ -n "$SOURCE_DIR" ]]; then
      bash "$ROOT/tests/servers/testservers.sh" stop --remove "$SOURCE_DIR" || FAILED=1
    fi
  fi
fi
# The fuzzers need no servers; stop them now (finish() stops them if anything above failed).
step "stop test servers" stop_servers

mapfile -t FUZZERS < <(find "$ROOT/tests/fuzz" -maxdepth 1 -name '*_fuzzer.cpp' -printf '%f\n' \
  2>/dev/null | sed 's/\.cpp$//' | sort)
if ((${#FUZZERS[@]} == 0)); then
  SUMMARY+=("  (no fuzz targets in tests/fuzz)")
elif [[ "$FUZZ_SECONDS" == 0 ]]; then
  SUMMARY+=("  (fuzzing skipped: ROWBRIDGE_FUZZ_SECONDS=0)")
else
  if step "build fuzz targets (clang-14)" build_fuzz; then
    step "fuzz ${#FUZZERS[@]} targets x ${FUZZ_SECONDS}s" run_fuzzers
  fi
fi

if [[ "$PACKAGE_TEST" == 1 ]]; then
  # Waits for the background build, then package.sh finds it done and runs the install test.
  package() {
    wait "$PACKAGE_BUILD_PID" || {
      cat "${TMPDIR:-/tmp}/rowbridge-package-build.log"
      return 1
    }
    bash "$ROOT/scripts/package.sh" --install-test
  }
  step "Debian package + clean-chroot install" package
else
  SUMMARY+=("  (package step skipped: ROWBRIDGE_PACKAGE_TEST=0)")
fi
