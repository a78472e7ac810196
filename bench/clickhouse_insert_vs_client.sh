#!/usr/bin/env bash
# Our ClickHouse client against clickhouse-client inserting the same seed rows into the same
# server, side by side in one run; prints a results table (medians of several rounds, ratio).
#
#   bench/clickhouse_insert_vs_client.sh [--rounds N] [--build DIR]
#
# A throwaway ClickHouse is started with tests/servers/testservers.sh (stopped at the end). Both
# sides insert every row of the seed binlog (seed_binlog.h), converted to the seed's ClickHouse
# table (tests/data/seed/clickhouse_schema.sql), in blocks of 100,000 rows, LZ4-compressed:
#   ours:   rowbridge_bench BM_SeedInsertOurClient (blocks built before timing; one INSERT)
#   client: clickhouse-client --query "INSERT INTO ... FORMAT Native" < the same rows as a
#           Native stream (written by the benchmark from the same blocks)
# Each round empties both tables first and runs ours, then the client; rows/s is rows / wall time
# of the INSERT (for clickhouse-client: of the whole process, which includes its start-up).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=5
build="$ROOT/build/rel"
while (($#)); do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --rounds=*) rounds="${1#*=}"; shift ;;
    --build) build="$2"; shift 2 ;;
    --build=*) build="${1#*=}"; shift ;;
    *) echo "usage: $0 [--rounds N] [--build DIR]" >&2; exit 2 ;;
  esac
done
build="$(cd "$build" && pwd)"
[[ -x "$build/rowbridge_bench" ]] || { echo "missing $build/rowbridge_bench (build target rowbridge_bench)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-chbench.XXXXXX")"
cleanup() {
  bash "$ROOT/tests/servers/testservers.sh" stop --remove "$work/servers" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

bash "$ROOT/tests/servers/testservers.sh" start --no-mariadb --owner-pid=$$ "$work/servers" >&2
eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$work/servers")"
ch() { clickhouse-client --host 127.0.0.1 --port "$ROWBRIDGE_TEST_CH_PORT" "$@"; }

ddl_columns="$(sed -n '/binlog_field_test_1 (/,/) ENGINE/p' "$ROOT/tests/data/seed/clickhouse_schema.sql" |
  sed '1s/.*(//; $s/) ENGINE.*//' | tr '\n' ' ')"
ch --query "CREATE DATABASE IF NOT EXISTS bench"
for t in ours client; do
  ch --query "CREATE TABLE bench.seed_$t ($ddl_columns) ENGINE = MergeTree() ORDER BY id"
done

# Fields of the first benchmark in a Google Benchmark JSON file, space-separated.
bench_field() {
  python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
print(" ".join(str(b.get(k, "")) for k in sys.argv[2:]))' "$@"
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

export ROWBRIDGE_BENCH_CH_HOST=127.0.0.1 ROWBRIDGE_BENCH_CH_PORT="$ROWBRIDGE_TEST_CH_PORT"
rows=""
for ((r = 1; r <= rounds; r++)); do
  echo "round $r/$rounds" >&2
  ch --query "TRUNCATE TABLE bench.seed_ours"
  ch --query "TRUNCATE TABLE bench.seed_client"
  native=""
  [[ -f "$work/seed.native" ]] || { native="$work/seed.native"; }
  ROWBRIDGE_BENCH_CH_TABLE=bench.seed_ours ROWBRIDGE_BENCH_NATIVE_OUT="$native" \
    "$build/rowbridge_bench" --benchmark_filter='^BM_SeedInsertOurClient' \
    --benchmark_format=json --benchmark_out="$work/ours_$r.json" --benchmark_out_format=json \
    >/dev/null 2>"$work/ours_$r.err" || { cat "$work/ours_$r.err" >&2; exit 1; }
  if [[ "$(bench_field "$work/ours_$r.json" error_occurred)" == "True" ]]; then
    bench_field "$work/ours_$r.json" error_message >&2
    exit 1
  fi
  bench_field "$work/ours_$r.json" real_time rows_per_second |
    awk '{printf "%.3f %s\n", $1 / 1000, $2}' >>"$work/ours"
  rows="$(bench_field "$work/ours_$r.json" rows_per_insert | awk '{printf "%d", $1}')"
  /usr/bin/time -f "%e %U %S" -o "$work/time" \
    clickhouse-client --host 127.0.0.1 --port "$ROWBRIDGE_TEST_CH_PORT" \
    --query "INSERT INTO bench.seed_client FORMAT Native" <"$work/seed.native"
  awk -v rows="$rows" '{printf "%s %.0f\n", $1, rows / $1}' "$work/time" >>"$work/client"
  n_ours="$(ch --query "SELECT count() FROM bench.seed_ours")"
  n_client="$(ch --query "SELECT count() FROM bench.seed_client")"
  [[ "$n_ours" == "$rows" && "$n_client" == "$rows" ]] ||
    { echo "row counts after round $r: ours $n_ours, client $n_client, expected $rows" >&2; exit 1; }
done
# Both tables hold the same values (checked once, on the last round).
same="$(ch --query "SELECT (SELECT groupBitXor(cityHash64(*)) FROM bench.seed_ours) = (SELECT groupBitXor(cityHash64(*)) FROM bench.seed_client)")"

ours_s="$(cut -d' ' -f1 "$work/ours" | median)"
ours_rps="$(cut -d' ' -f2 "$work/ours" | median)"
cli_s="$(cut -d' ' -f1 "$work/client" | median)"
cli_rps="$(cut -d' ' -f2 "$work/client" | median)"
server="$(ch --query "SELECT version()")"
awk -v rows="$rows" -v rounds="$rounds" -v server="$server" -v same="$same" \
  -v ours_s="$ours_s" -v ours_rps="$ours_rps" -v cli_s="$cli_s" -v cli_rps="$cli_rps" \
  -v native_mb="$(stat -c %s "$work/seed.native")" -v loadavg="$(cut -d' ' -f1-3 /proc/loadavg)" '
BEGIN {
  printf "\nClickHouse %s on 127.0.0.1; %d seed rows per INSERT (%.1f MB as Native); medians of %d rounds; load average at the end: %s\n\n", server, rows, native_mb / 1e6, rounds, loadavg
  printf "| what | seconds | rows/s |\n|---|---:|---:|\n"
  printf "| rowbridge ClickHouse client (LZ4, 100k-row blocks) | %.2f | %.0f |\n", ours_s, ours_rps
  printf "| clickhouse-client INSERT ... FORMAT Native (stdin) | %.2f | %.0f |\n", cli_s, cli_rps
  printf "\nratio ours / clickhouse-client = %.2f; both tables hold identical rows: %s\n", ours_rps / cli_rps, same == 1 ? "yes" : "NO"
}'
