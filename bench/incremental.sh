#!/usr/bin/env bash
# The seed's incremental test (2.1), on local throwaway servers: TABLES seed tables, each written
# by rowbridge-loadgen with the seed's insertDataTest flags (2 connections x 1000 rows every
# 100 ms), while `rowbridge run` replicates them into the seed's own ClickHouse tables (changelog
# rows with binlog_event_type and bifrost_data_version). Prints one results table:
#   rows/min and MB/min replicated, lag p50/p99/max, INSERTs per second into the busiest table,
#   rowbridge CPU % and peak RSS;
# and writes a time series (CSV) and a PNG chart of throughput, lag, CPU and RSS over time.
#
#   bench/incremental.sh [--seconds N] [--tables N] [--conn N] [--batchsize N] [--interval MS]
#                        [--max-string N] [--sample-ms MS] [--copy-rows N] [--copy-at S]
#                        [--build DIR] [--out DIR] [--smoke] [--keep]
#     --seconds N    how long the load runs (default 60)
#     --tables N     seed tables written and replicated (default 3)
#     --conn, --batchsize, --interval, --max-string   loadgen per table (default 2, 1000, 100 ms, 32)
#     --sample-ms    sampling period of the time series (default 200)
#     --copy-rows N  also a seed table of N rows (binlog_field_test_big, its own replica target,
#                    copied at the first start, not written by the load), copied again alongside
#                    the stream (`POST /tables/.../resnapshot`) --copy-at seconds into the load
#                    (default 10): the results add the copy's time and rate, and the other tables'
#                    lag while it ran (issue 17's online copy)
#     --build DIR    where rowbridge and rowbridge-loadgen are (default build/rel, a Release build)
#     --out DIR      where incremental.csv, .png and -results.md go (default: the work
#                    directory, which is then kept unless --smoke)
#     --smoke        a few seconds of light load: checks that everything works, measures nothing
#     --keep         keep the work directory (config, logs)
#
# Every sample (each --sample-ms; bench/sampler.py) records: the source's row count (MyISAM's
# exact COUNT(*)), rowbridge's /metrics (rows written to ClickHouse, binlog bytes received,
# rowbridge_target_bytes_total, rowbridge_replication_lag_seconds) and /proc of the rowbridge
# process (CPU ticks, RSS). Two lags:
#   rows lag:   for a sample at t whose source count is S, the time until rowbridge had written S
#               rows (end to end: committed in MariaDB -> inserted in ClickHouse; resolution one
#               sample period);
#   metric lag: rowbridge's own rowbridge_replication_lag_seconds (now - commit time of the
#               oldest row not yet in ClickHouse), as sampled.
# Rates are over the time from the load's start until rowbridge has written every source row.
# The run fails loudly when rowbridge exits, stops a table, does not catch up, replicates nothing,
# or when `rowbridge check` finds the target different from the source at the end.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

seconds=60 tables=3 conn=2 batchsize=1000 interval=100 max_string=32 sample_ms=200
copy_rows=0 copy_at=10
build="$BENCH_ROOT/build/rel" out="" smoke=0 keep=0
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --tables) tables="$2"; shift 2 ;;
    --conn) conn="$2"; shift 2 ;;
    --batchsize) batchsize="$2"; shift 2 ;;
    --interval) interval="$2"; shift 2 ;;
    --sample-ms) sample_ms="$2"; shift 2 ;;
    --copy-rows) copy_rows="$2"; shift 2 ;;
    --copy-at) copy_at="$2"; shift 2 ;;
    *) bench_common_option "$@"; shift "$BENCH_SHIFT" ;;
  esac
done
if ((smoke)); then seconds=4 batchsize=200; fi
BENCH_BUILD="$(bench_build_dir "$build")"
command -v gnuplot >/dev/null || bench_die "gnuplot is not installed (scripts/install-deps.sh)"

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-incremental.XXXXXX")"
[[ -n "$out" ]] || { out="$work"; ((smoke)) || keep=1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
trap 'bench_cleanup "$work" "$keep"' EXIT
trap 'exit 130' INT TERM

bench_say "starting MariaDB and ClickHouse"
bench_start_servers "$work"
bench_create_seed_tables "$tables"
for ((t = 1; t <= tables; t++)); do bench_create_seed_ch_table "bifrost_test.binlog_field_test_$t"; done
big_rule=""
if ((copy_rows > 0)); then
  bench_sql -e "CREATE TABLE bifrost_test.binlog_field_test_big LIKE bifrost_test.binlog_field_test_1"
  bench_say "filling binlog_field_test_big with $copy_rows rows"
  bench_loadgen -table binlog_field_test_big -conn 2 -batchsize 1000 -time_interval 0 \
    -count "$copy_rows" --seed 99 --max-string "$max_string" >"$work/loadgen_big.log" 2>&1 ||
    { cat "$work/loadgen_big.log" >&2; bench_die "rowbridge-loadgen failed to fill the big table"; }
  # Before the seed tables' rule, which would match it too.
  big_rule="  - match: bifrost_test.binlog_field_test_big
    mode: replica
    conversion: {on_out_of_range: clamp}"
fi

port="$(bench_free_port)"
config="$work/rowbridge.yaml"
{
  bench_config_head "$work/state" "$port" 4801
  cat <<EOF
tables:
$big_rule
  # The seed's own ClickHouse tables, as they are: one appended row per change.
  - match: bifrost_test.binlog_field_test_*
    target: "bifrost_test.{table}"
    mode: changelog
    meta_columns: {event_type: binlog_event_type, version: bifrost_data_version}
    create_table: false
    conversion: {on_out_of_range: clamp}
batch: {max_rows: 100000, max_delay: 1s}
EOF
} >"$config"
log="$work/rowbridge.log"
bench_say "rowbridge run -c $config (admin port $port)"
bench_rowbridge_run "$config" "$log" "$port"
if ((copy_rows > 0)); then
  bench_say "waiting for the first start's copy of binlog_field_test_big"
  for ((i = 0; i < 1800; i++)); do
    grep -q "reading the binlog of" "$log" && break
    bench_rowbridge_alive_or_die "$log" "$port"
    sleep 0.5
  done
  grep -q "reading the binlog of" "$log" || bench_die "the first start's copy did not end in 15 minutes"
fi

count_sql="SELECT 0"
for ((t = 1; t <= tables; t++)); do count_sql+=" + (SELECT COUNT(*) FROM bifrost_test.binlog_field_test_$t)"; done
raw="$work/samples.txt"
: >"$raw"
# Samples: t source_rows replicated_rows binlog_bytes target_bytes metric_lag cpu_ticks rss_kb
python3 "$BENCH_ROOT/bench/sampler.py" --port "$port" --pid "$RB_PID" --out "$raw" \
  --period-ms "$sample_ms" --sql "$count_sql" --metrics rowbridge_rows_total,rowbridge_source_bytes_total,rowbridge_target_bytes_total,rowbridge_replication_lag_seconds &
sampler_pid=$!
BENCH_PIDS+=("$sampler_pid")
for ((i = 0; i < 100; i++)); do [[ -s "$raw" ]] && break; sleep 0.1; done
[[ -s "$raw" ]] || bench_die "the sampler took no sample (rowbridge /metrics on port $port)"

bench_say "load: $tables tables x rowbridge-loadgen -conn $conn -batchsize $batchsize -time_interval $interval for ${seconds}s"
t_load0="$(bench_now)"
load_pids=()
for ((t = 1; t <= tables; t++)); do
  bench_loadgen -table "binlog_field_test_$t" -conn "$conn" -batchsize "$batchsize" \
    -time_interval "$interval" --duration "$seconds" --seed "$t" --max-string "$max_string" \
    --report-every 10 >"$work/loadgen_$t.log" 2>&1 &
  load_pids+=("$!")
  BENCH_PIDS+=("$!")
done

t_load1="" deadline="" caught=0 t_copy0="" t_copy1=""
while :; do
  sleep 0.5
  bench_rowbridge_alive_or_die "$log" "$port"
  if ((copy_rows > 0)) && [[ -z "$t_copy0" ]] &&
    awk -v a="$t_load0" -v b="$(bench_now)" -v c="$copy_at" 'BEGIN {exit !(b - a >= c)}'; then
    t_copy0="$(bench_now)"
    answer="$(BENCH_MYSQL_PASSWORD="$ROWBRIDGE_TEST_MYSQL_PASSWORD" "$BENCH_BUILD/rowbridge" \
      resnapshot -c "$config" bifrost_test.binlog_field_test_big 2>&1)" ||
      bench_die "the resnapshot was refused: $answer"
    bench_say "$answer"
  fi
  if [[ -n "$t_copy0" && -z "$t_copy1" ]] &&
    grep -q "resnapshot of bifrost_test.binlog_field_test_big handed over" "$log"; then
    t_copy1="$(bench_now)"
    bench_say "the copy was handed over after $(awk -v a="$t_copy0" -v b="$t_copy1" 'BEGIN {printf "%.1f", b - a}') s"
  fi
  kill -0 "$sampler_pid" 2>/dev/null || bench_die "the sampler exited"
  if [[ -z "$t_load1" ]]; then
    running=0
    for pid in "${load_pids[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
    if ((!running)); then
      t_load1="$(bench_now)"
      for ((t = 1; t <= tables; t++)); do
        wait "${load_pids[t - 1]}" || { cat "$work/loadgen_$t.log" >&2; bench_die "rowbridge-loadgen failed"; }
      done
      source_final="$(bench_sql -N -e "$count_sql")"
      deadline=$((SECONDS + 120 + seconds))
      bench_say "load done: $source_final source rows; waiting for rowbridge to catch up"
    fi
  else
    read -r _ _ replicated _ < <(tail -n 1 "$raw")
    if ((${replicated%.*} >= source_final)) && [[ "$copy_rows" == 0 || -n "$t_copy1" ]]; then
      caught=1
      break
    fi
    ((SECONDS < deadline)) || { tail -n 20 "$log" >&2; bench_die "rowbridge did not catch up: $replicated of $source_final rows"; }
  fi
done
# A few more samples of the quiet tail, for the chart.
sleep 2
kill -TERM "$sampler_pid"
wait "$sampler_pid" || true
hwm_kb="$(bench_vm_hwm_kb "$RB_PID")"
idle_rss_kb="$(bench_vm_rss_kb "$RB_PID")"
# INSERTs per table: the batches each source table was written in (rowbridge_flush_rows' count,
# one series per table; each table has a target of its own here), the busiest table's.
max_table_batches="$(python3 -c '
import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(max([float(l.split()[-1]) for l in text.splitlines() if l.startswith("rowbridge_flush_rows_count{")] or [0]))
' "$port")"
((source_final > 0)) || bench_die "the load wrote no rows"
bench_rowbridge_stop "$log"
bench_check "$config" "$work/check.log"

# The time series: per sample, trailing 1 s rates and both lags.
csv="$out/incremental.csv"
awk -v t0="$t_load0" -v t1="$t_load1" -v hz="$BENCH_HZ" '
  {n++; t[n] = $1 - t0; s[n] = $2; r[n] = $3; bb[n] = $4; tb[n] = $5; ml[n] = $6; cpu[n] = $7; rss[n] = $8}
  END {
    print "t_s,source_rows,replicated_rows,source_rows_per_s,replicated_rows_per_s,binlog_MB_per_s,rows_lag_s,metric_lag_s,cpu_pct,rss_MiB"
    j = 1
    for (i = 1; i <= n; i++) {
      k = i; while (k > 1 && t[i] - t[k] < 1.0) k--
      dt = t[i] - t[k]
      # first sample at or after i with every row of sample i written
      if (j < i) j = i
      while (j < n && r[j] < s[i]) j++
      lag = r[j] >= s[i] ? t[j] - t[i] : -1
      printf "%.3f,%d,%d,%.0f,%.0f,%.2f,%.3f,%.3f,%.1f,%.1f\n", t[i], s[i], r[i],
        (dt > 0 ? (s[i] - s[k]) / dt : 0), (dt > 0 ? (r[i] - r[k]) / dt : 0),
        (dt > 0 ? (bb[i] - bb[k]) / dt / 1e6 : 0), lag, ml[i],
        (dt > 0 ? (cpu[i] - cpu[k]) / hz / dt * 100 : 0), rss[i] / 1024
    }
  }' "$raw" >"$csv"

load_s="$(awk -v a="$t_load0" -v b="$t_load1" 'BEGIN {printf "%.3f", b - a}')"
# The figures span from the last sample before the load to the first with every source row written.
first="$(awk -v t0="$t_load0" '$1 <= t0 {line = $0} END {print line}' "$raw")"
last="$(awk -v n="$source_final" '$3 >= n {print; exit}' "$raw")"
[[ -n "$first" && -n "$last" ]] || bench_die "no samples before the load or after catching up ($raw)"
# Lags of the samples taken while the load ran; rowbridge's metric only from its first written row
# on (until then it shows the age of the last event before the load: the CREATE TABLEs).
lag_rows() {
  awk -F, -v end="$load_s" -v col="$1" 'NR > 1 && $3 > 0 {w = 1}
    NR > 1 && $1 >= 0 && $1 <= end && (col == 7 || w) {print $col}' "$csv"
}
results="$out/incremental-results.md"
awk -v first="$first" -v last="$last" -v t0="$t_load0" -v load_s="$load_s" -v hz="$BENCH_HZ" \
  -v hwm="$hwm_kb" -v idle="$idle_rss_kb" -v tables="$tables" -v conn="$conn" -v bs="$batchsize" \
  -v iv="$interval" -v smoke="$smoke" -v loadavg="$(bench_loadavg)" -v cores="$(nproc)" \
  -v batches="$max_table_batches" \
  -v l50="$(lag_rows 7 | bench_percentile 50)" -v l99="$(lag_rows 7 | bench_percentile 99)" \
  -v lmax="$(lag_rows 7 | bench_percentile 100)" -v m50="$(lag_rows 8 | bench_percentile 50)" \
  -v m99="$(lag_rows 8 | bench_percentile 99)" -v mmax="$(lag_rows 8 | bench_percentile 100)" '
BEGIN {
  split(first, a, " "); split(last, b, " ")
  span = b[1] - a[1]                     # load start -> every source row written
  rows = b[3] - a[3]; src = b[2] - a[2]
  cpu_s = (b[7] - a[7]) / hz
  printf "\nincremental (seed 2.1): %d tables x rowbridge-loadgen -conn %d -batchsize %d -time_interval %d, load %.1f s%s\n", tables, conn, bs, iv, load_s, smoke ? " (SMOKE: not a measurement)" : ""
  printf "source rows written %d; rowbridge wrote %d rows to ClickHouse in %.1f s (load start -> caught up); %d cores, load average at the end %s\n\n", src, rows, span, cores, loadavg
  printf "| figure | value |\n|---|---:|\n"
  printf "| offered load (loadgen), rows/min | %.0f |\n", src / load_s * 60
  printf "| replicated, rows/min | %.0f |\n", rows / span * 60
  printf "| binlog read, MB/min | %.1f |\n", (b[4] - a[4]) / 1e6 / span * 60
  printf "| rowbridge_target_bytes_total (its estimate of row bytes buffered: cells + 8 B each), MB/min | %.1f |\n", (b[5] - a[5]) / 1e6 / span * 60
  printf "| lag p50 / p99 / max, s (rows: commit -> in ClickHouse) | %.2f / %.2f / %.2f |\n", l50, l99, lmax
  printf "| lag p50 / p99 / max, s (rowbridge_replication_lag_seconds) | %.2f / %.2f / %.2f |\n", m50, m99, mmax
  printf "| INSERTs per second into the busiest table (its batches / time to catch up) | %.2f |\n", batches / span
  printf "| rowbridge CPU, %% of one core | %.0f |\n", cpu_s / span * 100
  printf "| rowbridge CPU seconds | %.2f |\n", cpu_s
  printf "| replicated rows per rowbridge CPU-second | %.0f |\n", (cpu_s > 0 ? rows / cpu_s : 0)
  printf "| replicated rows/min per rowbridge core (rows/min / CPU share) | %.0f |\n", (cpu_s > 0 ? rows / cpu_s * 60 : 0)
  printf "| rowbridge peak RSS (VmHWM), MiB | %.0f |\n", hwm / 1024
  printf "| rowbridge RSS 2 s after catching up (idle), MiB | %.0f |\n", idle / 1024
  if (rows <= 0) exit 1
}' | tee "$results"
if ((copy_rows > 0)); then
  # The streamed tables' lag from the resnapshot's request to its hand-over, against the rest of
  # the load.
  c0="$(awk -v a="$t_load0" -v b="$t_copy0" 'BEGIN {printf "%.3f", b - a}')"
  c1="$(awk -v a="$t_load0" -v b="$t_copy1" 'BEGIN {printf "%.3f", b - a}')"
  window_lag() {  # window_lag in|out: rows lags of the samples inside/outside [c0, c1] of the load
    awk -F, -v end="$load_s" -v c0="$c0" -v c1="$c1" -v side="$1" 'NR > 1 && $1 >= 0 && $1 <= end {
      inside = $1 >= c0 && $1 <= c1
      if ((side == "in") == inside) print $7 }' "$csv"
  }
  awk -v rows="$copy_rows" -v c0="$c0" -v c1="$c1" \
    -v i50="$(window_lag in | bench_percentile 50)" -v i99="$(window_lag in | bench_percentile 99)" \
    -v imax="$(window_lag in | bench_percentile 100)" -v o50="$(window_lag out | bench_percentile 50)" \
    -v o99="$(window_lag out | bench_percentile 99)" -v omax="$(window_lag out | bench_percentile 100)" '
  BEGIN {
    printf "| online copy: rows, seconds (request -> hand-over), rows/s | %d, %.1f, %.0f |\n", rows, c1 - c0, rows / (c1 - c0)
    printf "| the streamed tables lag p50 / p99 / max during the copy, s (rows) | %.2f / %.2f / %.2f |\n", i50, i99, imax
    printf "| the streamed tables lag p50 / p99 / max outside it, s (rows) | %.2f / %.2f / %.2f |\n", o50, o99, omax
  }' | tee -a "$results"
fi

png="$out/incremental.png"
gnuplot <<EOF || bench_die "gnuplot failed"
set terminal pngcairo noenhanced size 1000,900 font ",10"
set output "$png"
set datafile separator ","
set key top left
set grid
set xrange [-2:*]
set multiplot layout 3,1 title "rowbridge incremental: $tables seed tables, loadgen -conn $conn -batchsize $batchsize -time_interval $interval ($(date -u +%F), load avg $(bench_loadavg | cut -d' ' -f1))"
set ylabel "rows/s"
set format y "%.0s%c"
plot "$csv" using 1:4 with lines lw 1 title "written to MariaDB (loadgen)", \
     "$csv" using 1:5 with lines lw 2 title "written to ClickHouse (rowbridge)"
set ylabel "lag, s"
set format y "%g"
plot "$csv" using 1:7 with lines lw 2 title "rows lag: commit -> in ClickHouse", \
     "$csv" using 1:8 with lines lw 1 title "rowbridge_replication_lag_seconds"
set ylabel "CPU % of one core"
set y2label "RSS, MiB"
set y2tics
set xlabel "seconds since the load started"
plot "$csv" using 1:9 with lines lw 1 title "rowbridge CPU %", \
     "$csv" using 1:10 axes x1y2 with lines lw 2 title "rowbridge RSS, MiB"
unset multiplot
EOF
bench_say "time series: $csv; chart: $png; results: $results"
((caught)) || bench_die "rowbridge did not catch up"
