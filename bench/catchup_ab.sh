#!/usr/bin/env bash
# Two builds of rowbridge side by side on the catch-up benchmark (bench/catchup.sh), alternating
# A, B, A, B... so that both see the same moments of a noisy machine. Prints each run's key lines.
#
#   bench/catchup_ab.sh [--pairs N] [--rows N] BUILD_A BUILD_B
#     BUILD_A, BUILD_B  build directories holding rowbridge and rowbridge-loadgen (Release)
#     --pairs N         runs of each build (default 2)
#     --rows N          backlog of seed rows per run (default 1000000)
# Each run is `bench/catchup.sh --rows N --rounds 1 --build DIR` on fresh servers.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

pairs=2 rows=1000000
builds=()
while (($#)); do
  case "$1" in
    --pairs) pairs="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    -*) echo "catchup_ab.sh: unknown option $1" >&2; exit 2 ;;
    *) builds+=("$1"); shift ;;
  esac
done
if ((${#builds[@]} != 2)); then
  echo "usage: bench/catchup_ab.sh [--pairs N] [--rows N] BUILD_A BUILD_B" >&2
  exit 2
fi

for ((i = 1; i <= pairs; i++)); do
  for build in "${builds[@]}"; do
    echo "=== $build, pair $i"
    bash "$here/catchup.sh" --rows "$rows" --rounds 1 --build "$build" 2>&1 |
      grep -E '^\| (rowbridge run|clickhouse-client|mariadb-binlog)|user .* system|^target:' ||
      { echo "catchup_ab.sh: the run of $build failed" >&2; exit 1; }
  done
done
