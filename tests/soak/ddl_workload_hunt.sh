#!/usr/bin/env bash
# Runs the random DDL + DML workload with kill -9 (PipelineDdlTest.RandomDdlAndDmlWorkloadUnpaced
# WithKillNineEndsEqual) under many seeds, against one source flavor, and keeps the log of every
# failing seed: the hunt for the rare, timing-dependent faults that CI's one fixed seed per flavor
# does not meet. By hand only; it measures nothing and takes 10-60 s per seed.
#
#   tests/soak/ddl_workload_hunt.sh [--flavor mariadb|mysql|mariadb11] [--build DIR] [--paced]
#                                   [--out DIR] FROM TO
#     FROM TO      the seeds, inclusive (ROWBRIDGE_DDL_WORKLOAD_SEED)
#     --flavor F   the source (default mariadb: MariaDB 10.11)
#     --build DIR  the ASan build with rowbridge_integration_tests (default build/asan)
#     --paced      the paced form (as CI runs it) instead
#     --out DIR    where logs go (default /tmp/rowbridge-ddl-hunt): seed-N.log for each failure,
#                  results.txt one line per seed; `touch DIR/stop` ends the hunt after the seed
#                  that runs
# Servers: its own source and ClickHouse in DIR/servers, started once and stopped at the end.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
flavor=mariadb build="$ROOT/build/asan" paced=0 out=/tmp/rowbridge-ddl-hunt
while (($#)); do
  case "$1" in
    --flavor) flavor="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --paced) paced=1; shift ;;
    --out) out="$2"; shift 2 ;;
    -*) echo "ddl_workload_hunt: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# == 2)) || { echo "usage: ddl_workload_hunt.sh [options] FROM TO" >&2; exit 2; }
from="$1" to="$2"
tests="$build/rowbridge_integration_tests"
[[ -x "$tests" ]] || { echo "ddl_workload_hunt: no $tests (build the ASan tests first)" >&2; exit 1; }

mkdir -p "$out"
rm -f "$out/stop"
servers="$out/servers"
bash "$ROOT/tests/servers/testservers.sh" start --source="$flavor" "$servers" >"$out/servers.log" 2>&1 || {
  echo "ddl_workload_hunt: the servers did not start; see $out/servers.log" >&2
  exit 1
}
trap 'bash "$ROOT/tests/servers/testservers.sh" stop "$servers" >/dev/null 2>&1' EXIT
eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$servers")"
export ROWBRIDGE_REQUIRE_SERVERS=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test_name=PipelineDdlTest.RandomDdlAndDmlWorkloadUnpacedWithKillNineEndsEqual
((paced)) && test_name=PipelineDdlTest.RandomDdlAndDmlWorkloadWithKillNineEndsEqual

failures=0
for ((seed = from; seed <= to; seed++)); do
  [[ -e "$out/stop" ]] && break
  start=$SECONDS
  if ROWBRIDGE_DDL_WORKLOAD_SEED=$seed "$tests" \
    --gtest_filter="$test_name" >"$out/run.log" 2>&1; then
    result=pass
  else
    result=FAIL
    failures=$((failures + 1))
    cp "$out/run.log" "$out/seed-$seed.log"
  fi
  echo "$flavor seed $seed: $result ($((SECONDS - start)) s)" | tee -a "$out/results.txt"
done
echo "ddl_workload_hunt: $failures failing seed(s); logs in $out"
((failures == 0))
