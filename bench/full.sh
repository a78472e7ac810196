#!/usr/bin/env bash
# The seed's full-copy test (3): TABLES seed tables copied into ONE ClickHouse table (the seed's
# own table, changelog rows with binlog_event_type and bifrost_data_version) by `rowbridge
# snapshot` with the seed's thread counts (3 readers, 6 writers), and, in the same run on the same
# servers, the baseline: ClickHouse's own `INSERT INTO t SELECT * FROM mysql(...)`, one per source
# table, all at once, into one MergeTree table of the types mysql() gives. Prints one results
# table: seconds, rows/min, CPU of rowbridge, ClickHouse and MariaDB, rowbridge's peak RSS.
#
#   bench/full.sh [--rows N] [--tables N] [--engine E] [--max-string N] [--build DIR] [--out DIR] [--smoke] [--keep]
#     --rows N       rows in all source tables together (default 1000000), split evenly
#     --tables N     source tables merged into the one target (default 3)
#     --engine E     the source tables' engine (default MyISAM, the seed's): InnoDB shows what the
#                    copy's key-ordered reads cost the source when rows are stored in key order
#     --max-string N longest generated string/blob of a row (loadgen; default 32)
#     --build DIR    where rowbridge and rowbridge-loadgen are (default build/rel, a Release build)
#     --out DIR      also write results.md there
#     --smoke        30,000 rows: checks that everything works, measures nothing
#     --keep         keep the work directory (config, logs)
#
# Source tables: bifrost_test.binlog_field_test_1..N (MyISAM, as the seed, unless --engine), filled by
# rowbridge-loadgen (-conn 2 -batchsize 1000, no pause); table t's ids start at t * 10^10, so the
# merged target never sees a key twice. rowbridge's CPU time and peak RSS come from /usr/bin/time,
# the servers' CPU time from /proc/PID/stat. After the copy `rowbridge check` must find the target
# equal to the sources, and both targets must hold every row.
# ROWBRIDGE_BENCH_PERF=FILE in the environment: `perf record -a` during rowbridge's copy into FILE;
# the servers' pids go to FILE.pids (rowbridge: `perf report --comm rowbridge`).
# (bench/snapshot_vs_mysql_function.sh is the one-table variant with a rowbridge-created replica
# table.)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rows=1000000 tables=3 engine="" max_string=32 build="$BENCH_ROOT/build/rel" out="" smoke=0 keep=0
while (($#)); do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --tables) tables="$2"; shift 2 ;;
    --engine) engine="$2"; shift 2 ;;
    *) bench_common_option "$@"; shift "$BENCH_SHIFT" ;;
  esac
done
if ((smoke)); then rows=30000; fi
BENCH_BUILD="$(bench_build_dir "$build")"
per_table=$((rows / tables))
rows=$((per_table * tables))

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-full.XXXXXX")"
trap 'bench_cleanup "$work" "$keep"' EXIT
trap 'exit 130' INT TERM

bench_say "starting MariaDB and ClickHouse"
bench_start_servers "$work"
bench_create_seed_tables "$tables" "$engine"
bench_create_seed_ch_table bifrost_test.binlog_field_test_1

bench_say "filling $tables source tables with $per_table rows each"
load_pids=()
for ((t = 1; t <= tables; t++)); do
  bench_loadgen -table "binlog_field_test_$t" -count "$per_table" -batchsize 1000 -conn 2 -time_interval 0 --seed "$t" \
    --max-string "$max_string" --report-every 10 >"$work/loadgen_$t.log" 2>&1 &
  load_pids+=("$!")
done
for ((t = 1; t <= tables; t++)); do
  wait "${load_pids[t - 1]}" || { cat "$work/loadgen_$t.log" >&2; bench_die "rowbridge-loadgen failed"; }
done
count_sql="SELECT 0"
for ((t = 1; t <= tables; t++)); do count_sql+=" + (SELECT COUNT(*) FROM bifrost_test.binlog_field_test_$t)"; done
source_rows="$(bench_sql -N -e "$count_sql")"
((source_rows == rows)) || bench_die "the source tables hold $source_rows rows, wanted $rows"

config="$work/rowbridge.yaml"
{
  bench_config_head "$work/state" "$(bench_free_port)" 4803
  cat <<EOF
tables:
  # All source tables into the seed's one ClickHouse table, as it is.
  - match: bifrost_test.binlog_field_test_*
    target: bifrost_test.binlog_field_test_1
    mode: changelog
    meta_columns: {event_type: binlog_event_type, version: bifrost_data_version}
    create_table: false
    conversion: {on_out_of_range: clamp}
snapshot: {chunk_rows: 100000, readers: 3, writers: 6}
EOF
} >"$config"
ch_pid="$ROWBRIDGE_TEST_CH_PID" my_pid="$ROWBRIDGE_TEST_MYSQL_PID"

bench_say "1. rowbridge snapshot -c $config"
perf_pid=""
if [[ -n "${ROWBRIDGE_BENCH_PERF:-}" ]]; then
  echo "mariadbd $my_pid clickhouse $ch_pid" >"$ROWBRIDGE_BENCH_PERF.pids"
  perf record -a -F 999 -o "$ROWBRIDGE_BENCH_PERF" >/dev/null 2>&1 &
  perf_pid=$!
  BENCH_PIDS+=("$perf_pid")
fi
ch0="$(bench_cpu_ticks "$ch_pid")" my0="$(bench_cpu_ticks "$my_pid")" t0="$(bench_now)"
BENCH_MYSQL_PASSWORD="$ROWBRIDGE_TEST_MYSQL_PASSWORD" /usr/bin/time -f "%U %S %M" -o "$work/time" \
  "$BENCH_BUILD/rowbridge" snapshot -c "$config" --progress lines >"$work/snapshot.log" 2>&1 ||
  { tail -n 30 "$work/snapshot.log" >&2; bench_die "rowbridge snapshot failed"; }
t1="$(bench_now)" ch1="$(bench_cpu_ticks "$ch_pid")" my1="$(bench_cpu_ticks "$my_pid")"
if [[ -n "$perf_pid" ]]; then
  kill -INT "$perf_pid" 2>/dev/null || true
  wait "$perf_pid" 2>/dev/null || true
fi
read -r rb_user rb_sys rb_rss_kb <"$work/time"
rb_rows="$(bench_ch --query "SELECT count() FROM bifrost_test.binlog_field_test_1")"
((rb_rows == rows)) || bench_die "rowbridge snapshot wrote $rb_rows rows, wanted $rows"
bench_check "$config" "$work/check.log"

bench_say "2. INSERT INTO ... SELECT * FROM mysql(...), $tables at once"
fn() { echo "mysql('127.0.0.1:$ROWBRIDGE_TEST_MYSQL_PORT', 'bifrost_test', 'binlog_field_test_$1', '$ROWBRIDGE_TEST_MYSQL_USER', '$ROWBRIDGE_TEST_MYSQL_PASSWORD')"; }
bench_ch --query "DROP DATABASE IF EXISTS bench_fn"
bench_ch --query "CREATE DATABASE bench_fn"
bench_ch --query "CREATE TABLE bench_fn.merged ENGINE = MergeTree ORDER BY id AS SELECT * FROM $(fn 1) LIMIT 0"
fch0="$(bench_cpu_ticks "$ch_pid")" fmy0="$(bench_cpu_ticks "$my_pid")" f0="$(bench_now)"
fn_pids=()
for ((t = 1; t <= tables; t++)); do
  bench_ch --query "INSERT INTO bench_fn.merged SELECT * FROM $(fn "$t")" 2>"$work/fn_$t.err" &
  fn_pids+=("$!")
done
for ((t = 1; t <= tables; t++)); do
  wait "${fn_pids[t - 1]}" || { cat "$work/fn_$t.err" >&2; bench_die "INSERT ... SELECT FROM mysql() failed"; }
done
f1="$(bench_now)" fch1="$(bench_cpu_ticks "$ch_pid")" fmy1="$(bench_cpu_ticks "$my_pid")"
fn_rows="$(bench_ch --query "SELECT count() FROM bench_fn.merged")"
((fn_rows == rows)) || bench_die "mysql() copied $fn_rows rows, wanted $rows"

results="$work/results.md"
awk -v rows="$rows" -v tables="$tables" -v engine="${engine:-MyISAM}" -v t0="$t0" -v t1="$t1" -v f0="$f0" -v f1="$f1" \
  -v rbu="$rb_user" -v rbs="$rb_sys" -v rss="$rb_rss_kb" -v hz="$BENCH_HZ" \
  -v ch0="$ch0" -v ch1="$ch1" -v my0="$my0" -v my1="$my1" -v smoke="$smoke" \
  -v fch0="$fch0" -v fch1="$fch1" -v fmy0="$fmy0" -v fmy1="$fmy1" \
  -v loadavg="$(bench_loadavg)" -v cores="$(nproc)" -v server="$(bench_ch --query "SELECT version()")" '
BEGIN {
  rt = t1 - t0; ft = f1 - f0; rb_cpu = rbu + rbs
  printf "\nfull copy (seed 3): %d seed tables (%s), %d rows in all, into one ClickHouse table%s\n", tables, engine, rows, smoke ? " (SMOKE: not a measurement)" : ""
  printf "MariaDB 10.11 -> ClickHouse %s on 127.0.0.1, %d cores, load average at the end %s\n\n", server, cores, loadavg
  printf "| method | seconds | rows/min | rowbridge CPU s | rowbridge CPU %% | rows/min per rowbridge core | ClickHouse CPU s | MariaDB CPU s | rowbridge peak RSS MiB |\n"
  printf "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
  printf "| rowbridge snapshot (3 readers, 6 writers) | %.2f | %.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.0f |\n", rt, rows / rt * 60, rb_cpu, rb_cpu / rt * 100, rows / rb_cpu * 60, (ch1 - ch0) / hz, (my1 - my0) / hz, rss / 1024
  printf "| INSERT ... SELECT FROM mysql(), %d at once | %.2f | %.0f | | | | %.2f | %.2f | |\n", tables, ft, rows / ft * 60, (fch1 - fch0) / hz, (fmy1 - fmy0) / hz
  printf "\nrowbridge / mysql() rate = %.0f %%\n", (rows / rt) / (rows / ft) * 100
}' | tee "$results"
[[ -z "$out" ]] || { mkdir -p "$out" && cp "$results" "$out/full-results.md"; }
