#!/usr/bin/env bash
# Catch-up of a binlog backlog (the seed's growing gap; issue 4 item 10), with its baselines in the
# same run, on local throwaway servers. Prints one results table.
#
#   bench/catchup.sh [--rows N] [--rounds N] [--max-string N] [--build DIR] [--out DIR] [--smoke] [--keep]
#     --rows N       backlog of seed rows (default 1000000)
#     --rounds N     rounds of each baseline; the median is shown (default 3)
#     --compression M  rowbridge's target.compression: auto (default; none here, on 127.0.0.1),
#                    lz4, zstd or none. clickhouse-client's baseline compresses the same way.
#     --max-string N longest generated string/blob of a row (loadgen; default 32)
#     --max-rows N   rowbridge's batch.max_rows (default 100000)
#     --build DIR    where rowbridge and rowbridge-loadgen are (default build/rel, a Release build)
#     --out DIR      also write results.md there
#     --smoke        20,000 rows, one round: checks that everything works, measures nothing
#     --keep         keep the work directory (config, logs)
#   ROWBRIDGE_BENCH_PERF=FILE in the environment: `perf record` rowbridge's catch-up into FILE
#   (options: ROWBRIDGE_BENCH_PERF_OPTIONS, default "-F 999"; e.g. "-e page-faults -c 20 -g").
#
# 1. `rowbridge run` starts once on an empty seed table (bifrost_test.binlog_field_test_1, MyISAM)
#    so that it has a checkpoint, and is stopped (SIGTERM).
# 2. The backlog: rowbridge-loadgen writes N rows (seed flags: -conn 2 -batchsize 1000, no pause)
#    into a fresh binlog file while rowbridge is stopped.
# 3. rowbridge run starts again and is timed from its start until /metrics shows every row written
#    to ClickHouse (changelog rows in the seed's own ClickHouse table). Its CPU time and peak RSS
#    come from /proc/PID. Also noted: when its checkpoint reached the source's end position. Then
#    SIGTERM, and `rowbridge check` must find the target equal to the source.
# 4. Baseline: the same rows, exported from that ClickHouse table as Native, inserted into an
#    identical table by `clickhouse-client --query 'INSERT INTO ... FORMAT Native'` (wall time of
#    the whole process, as bench/clickhouse_insert_vs_client.sh does).
# 5. Baseline: `mariadb-binlog -v --base64-output=decode-rows` decoding the backlog's binlog files.
# Targets (issue 4): rowbridge's end-to-end rate >= 70 % of clickhouse-client's, and >= 1,000,000
# rows per rowbridge CPU-second; the table says whether each was met.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rows=1000000 rounds=3 max_rows=100000 compression=auto max_string=32 build="$BENCH_ROOT/build/rel" out="" smoke=0 keep=0
while (($#)); do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --compression) compression="$2"; shift 2 ;;
    --max-rows) max_rows="$2"; shift 2 ;;
    *) bench_common_option "$@"; shift "$BENCH_SHIFT" ;;
  esac
done
if ((smoke)); then rows=20000 rounds=1; fi
BENCH_BUILD="$(bench_build_dir "$build")"
# clickhouse-client's flags for the same compression (auto means none: the server is local).
case "$compression" in
  auto | none) client_compression=(--compression 0) ;;
  lz4) client_compression=(--compression 1) ;;
  zstd) client_compression=(--compression 1 --network_compression_method zstd) ;;
  *) bench_die "--compression: auto, lz4, zstd or none, not '$compression'" ;;
esac
command -v mariadb-binlog >/dev/null || bench_die "mariadb-binlog is not installed"

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-catchup.XXXXXX")"
trap 'bench_cleanup "$work" "$keep"' EXIT
trap 'exit 130' INT TERM

bench_say "starting MariaDB and ClickHouse"
bench_start_servers "$work"
bench_create_seed_tables 1
bench_create_seed_ch_table bifrost_test.binlog_field_test_1
bench_create_seed_ch_table bench.client

port="$(bench_free_port)"
config="$work/rowbridge.yaml"
{
  BENCH_COMPRESSION="$compression" bench_config_head "$work/state" "$port" 4802
  cat <<EOF
tables:
  - match: bifrost_test.binlog_field_test_1
    target: bifrost_test.binlog_field_test_1
    mode: changelog
    meta_columns: {event_type: binlog_event_type, version: bifrost_data_version}
    create_table: false
    conversion: {on_out_of_range: clamp}
batch: {max_rows: $max_rows, max_delay: 1s}
EOF
} >"$config"
log="$work/rowbridge.log"

bench_say "1. first start of rowbridge run (for a checkpoint), then stop"
bench_rowbridge_run "$config" "$log" "$port"
# The checkpoint itself: the state directory holds the copy's state (snapshot.json) first, and a
# stop before the first checkpoint would leave step 3 nothing to resume from.
for ((i = 0; i < 600; i++)); do
  compgen -G "$work/state/*.checkpoint.json" >/dev/null && break
  bench_rowbridge_alive_or_die "$log" "$port"
  sleep 0.1
done
bench_rowbridge_stop "$log"
ls "$work/state"/*.checkpoint.json >/dev/null 2>&1 || bench_die "rowbridge saved no checkpoint in $work/state"

bench_say "2. backlog: $rows seed rows into the binlog while rowbridge is stopped"
bench_sql -e "FLUSH BINARY LOGS"
first_file="$(bench_sql -N -e "SHOW MASTER STATUS" | cut -f1)"
bench_loadgen -table binlog_field_test_1 -count "$rows" -batchsize 1000 -conn 2 -time_interval 0 --max-string "$max_string" \
  --report-every 10 >"$work/loadgen.log" 2>&1 || { cat "$work/loadgen.log" >&2; bench_die "rowbridge-loadgen failed"; }
read -r last_file end_pos _ < <(bench_sql -N -e "SHOW MASTER STATUS")
source_rows="$(bench_sql -N -e "SELECT COUNT(*) FROM bifrost_test.binlog_field_test_1")"
((source_rows == rows)) || bench_die "the source table holds $source_rows rows, wanted $rows"
binlog_dir="$(dirname "$ROWBRIDGE_TEST_MYSQL_BINLOG_BASENAME")"
mapfile -t binlogs < <(bench_sql -N -e "SHOW BINARY LOGS" | cut -f1 |
  awk -v a="$first_file" -v b="$last_file" '$1 >= a && $1 <= b {print}')
binlog_bytes=0
for f in "${binlogs[@]}"; do binlog_bytes=$((binlog_bytes + $(stat -c %s "$binlog_dir/$f"))); done
end_number="$((10#${last_file##*.}))"
bench_say "backlog: $rows rows in ${binlogs[*]} ($((binlog_bytes / 1000000)) MB), ends at $last_file:$end_pos"

bench_say "3. rowbridge run catches up"
ch_ticks0="$(bench_cpu_ticks "$ROWBRIDGE_TEST_CH_PID")"
t0="$(bench_now)"
bench_rowbridge_start "$config" "$log"
# ROWBRIDGE_BENCH_PERF=FILE: also profile the catch-up (perf record of rowbridge into FILE).
# System-wide (-p would miss the threads rowbridge starts later); the pid goes to FILE.pid for
# `perf report --pid`.
perf_pid=""
if [[ -n "${ROWBRIDGE_BENCH_PERF:-}" ]]; then
  echo "$RB_PID" >"$ROWBRIDGE_BENCH_PERF.pid"
  # shellcheck disable=SC2086 # the options are words on purpose
  perf record -a ${ROWBRIDGE_BENCH_PERF_OPTIONS:--F 999} -o "$ROWBRIDGE_BENCH_PERF" >/dev/null 2>&1 &
  perf_pid=$!
  BENCH_PIDS+=("$perf_pid")
fi
raw="$work/samples.txt"
: >"$raw"
# Samples every 100 ms: t -1 rows_written checkpoint_file checkpoint_pos cpu_ticks rss_kb
python3 "$BENCH_ROOT/bench/sampler.py" --port "$port" --pid "$RB_PID" --out "$raw" --period-ms 100 \
  --metrics rowbridge_rows_total,rowbridge_checkpoint_file_number,rowbridge_checkpoint_position_bytes &
sampler_pid=$!
BENCH_PIDS+=("$sampler_pid")
bench_rowbridge_wait_healthy "$log" "$port"
deadline=$((SECONDS + 60 + rows / 5000))
caught="" ckpt=""
while :; do
  sleep 0.2
  caught="$(awk -v n="$rows" '$3 >= n {print; exit}' "$raw")"
  ckpt="$(awk -v f="$end_number" -v p="$end_pos" '$4 > f || ($4 == f && $5 >= p) {print; exit}' "$raw")"
  [[ -n "$caught" && -n "$ckpt" ]] && break
  bench_rowbridge_alive_or_die "$log" "$port"
  kill -0 "$sampler_pid" 2>/dev/null || bench_die "the sampler exited"
  ((SECONDS < deadline)) || { tail -n 1 "$raw" >&2; tail -n 20 "$log" >&2; bench_die "rowbridge did not catch up: the last sample (t - rows checkpoint_file checkpoint_pos ticks rss) is above; source end $last_file:$end_pos"; }
done
hwm="$(bench_vm_hwm_kb "$RB_PID")"
# utime stime minflt majflt of rowbridge a moment after it caught up (the split of its CPU time).
read -r rb_user rb_sys rb_minflt rb_majflt < <(awk '{print $14, $15, $10, $12}' "/proc/$RB_PID/stat")
if [[ -n "$perf_pid" ]]; then
  kill -INT "$perf_pid" 2>/dev/null || true
  wait "$perf_pid" 2>/dev/null || true
fi
ch_ticks1="$(bench_cpu_ticks "$ROWBRIDGE_TEST_CH_PID")"
kill -TERM "$sampler_pid"
wait "$sampler_pid" || true
read -r t_rows _ _ _ _ ticks _ <<<"$caught"
read -r t_ckpt _ <<<"$ckpt"
bench_rowbridge_stop "$log"
bench_check "$config" "$work/check.log"
target_rows="$(bench_ch --query "SELECT count() FROM bifrost_test.binlog_field_test_1")"
((target_rows == rows)) || bench_die "ClickHouse holds $target_rows rows, wanted $rows (each exactly once)"

bench_say "4. baseline: clickhouse-client INSERT ... FORMAT Native, $rounds round(s)"
bench_ch --query "SELECT * FROM bifrost_test.binlog_field_test_1 FORMAT Native" >"$work/rows.native"
for ((r = 1; r <= rounds; r++)); do
  bench_ch --query "TRUNCATE TABLE bench.client"
  c0="$(bench_cpu_ticks "$ROWBRIDGE_TEST_CH_PID")"
  /usr/bin/time -f "%e %U %S" -o "$work/time" \
    clickhouse-client --host 127.0.0.1 --port "$ROWBRIDGE_TEST_CH_PORT" \
    "${client_compression[@]}" --query "INSERT INTO bench.client FORMAT Native" <"$work/rows.native"
  c1="$(bench_cpu_ticks "$ROWBRIDGE_TEST_CH_PID")"
  awk -v c0="$c0" -v c1="$c1" -v hz="$BENCH_HZ" '{printf "%s %.2f %.2f\n", $1, $2 + $3, (c1 - c0) / hz}' \
    "$work/time" >>"$work/client"
  n="$(bench_ch --query "SELECT count() FROM bench.client")"
  ((n == rows)) || bench_die "clickhouse-client inserted $n rows, wanted $rows"
done

bench_say "5. baseline: mariadb-binlog -v decoding the backlog, $rounds round(s)"
for ((r = 1; r <= rounds; r++)); do
  (cd "$binlog_dir" && /usr/bin/time -f "%e %U %S" -o "$work/time" \
    mariadb-binlog -v --base64-output=decode-rows "${binlogs[@]}" >"$work/decoded.txt")
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time" >>"$work/mariadb"
done
decoded="$(grep -c '^### INSERT INTO' "$work/decoded.txt" || true)"
((decoded == rows)) || bench_die "mariadb-binlog decoded $decoded inserted rows, wanted $rows"

col() { cut -d' ' -f"$2" "$work/$1" | bench_median; }
results="$work/results.md"
awk -v rows="$rows" -v t0="$t0" -v t_rows="$t_rows" -v t_ckpt="$t_ckpt" -v ticks="$ticks" \
  -v hz="$BENCH_HZ" -v hwm="$hwm" -v ch_cpu0="$ch_ticks0" -v ch_cpu1="$ch_ticks1" \
  -v mb="$binlog_bytes" -v native_mb="$(stat -c %s "$work/rows.native")" -v rounds="$rounds" \
  -v cli_s="$(col client 1)" -v cli_cpu="$(col client 2)" -v cli_ch="$(col client 3)" \
  -v mdb_s="$(col mariadb 1)" -v mdb_cpu="$(col mariadb 2)" -v smoke="$smoke" \
  -v compression="$compression" -v client_flags="${client_compression[*]}" \
  -v rb_user="$rb_user" -v rb_sys="$rb_sys" -v rb_minflt="$rb_minflt" -v rb_majflt="$rb_majflt" \
  -v loadavg="$(bench_loadavg)" -v cores="$(nproc)" -v server="$(bench_ch --query "SELECT version()")" '
BEGIN {
  rb_s = t_rows - t0; rb_cpu = ticks / hz; rb_rps = rows / rb_s; cli_rps = rows / cli_s
  printf "\ncatch-up of a backlog of %d seed rows (binlog %.1f MB; Native %.1f MB)%s\n", rows, mb / 1e6, native_mb / 1e6, smoke ? " (SMOKE: not a measurement)" : ""
  printf "MariaDB 10.11 -> ClickHouse %s on 127.0.0.1, %d cores, load average at the end %s; baselines: medians of %d rounds\n", server, cores, loadavg, rounds
  printf "compression of the blocks sent: rowbridge target.compression %s, clickhouse-client the same (%s)\n\n", compression, client_flags
  printf "| what | seconds | rows/s | CPU s | rows per CPU-second | CPU s per M rows | ClickHouse server CPU s | peak RSS MiB |\n"
  printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
  printf "| rowbridge run: start -> every row in ClickHouse | %.2f | %.0f | %.2f | %.0f | %.2f | %.2f | %.0f |\n", rb_s, rb_rps, rb_cpu, rows / rb_cpu, rb_cpu / rows * 1e6, (ch_cpu1 - ch_cpu0) / hz, hwm / 1024
  printf "| clickhouse-client INSERT ... FORMAT Native | %.2f | %.0f | %.2f | %.0f | %.2f | %.2f | |\n", cli_s, cli_rps, cli_cpu, rows / cli_cpu, cli_cpu / rows * 1e6, cli_ch
  printf "| mariadb-binlog -v --base64-output=decode-rows (decode only) | %.2f | %.0f | %.2f | %.0f | %.2f | | |\n", mdb_s, rows / mdb_s, mdb_cpu, rows / mdb_cpu, mdb_cpu / rows * 1e6
  printf "\nrowbridge CPU when it caught up (up to 0.2 s later): user %.2f s, system %.2f s; page faults: %d minor, %d major\n", rb_user / hz, rb_sys / hz, rb_minflt, rb_majflt
  printf "rowbridge checkpoint at the source end position %.2f s after start\n", t_ckpt - t0
  printf "target: rowbridge / clickhouse-client rate = %.0f %% (>= 70 %%: %s)\n", rb_rps / cli_rps * 100, (rb_rps / cli_rps >= 0.7 ? "met" : "NOT met")
  printf "target: rowbridge rows per CPU-second = %.0f (>= 1,000,000: %s)\n", rows / rb_cpu, (rows / rb_cpu >= 1e6 ? "met" : "NOT met")
}' | tee "$results"
[[ -z "$out" ]] || { mkdir -p "$out" && cp "$results" "$out/catchup-results.md"; }
