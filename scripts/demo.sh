#!/usr/bin/env bash
# The rowbridge demo, on a fresh Debian 12 machine:
#   installs what it needs (scripts/install-deps.sh), builds rowbridge (release), starts a local
#   MariaDB and ClickHouse (tests/servers/testservers.sh, in a temporary directory, on free
#   loopback ports), creates the seed's tables (source bifrost_test.binlog_field_test_1..3; the
#   seed's own ClickHouse table as a changelog target of table 1 through meta_columns; replica
#   targets for tables 2 and 3), fills them with some existing rows, runs `rowbridge run` (which
#   first copies the existing rows, then streams the binlog), writes load with rowbridge-loadgen
#   (the seed's insertDataTest flags: 2 connections x 1000 rows every 100 ms per table), shows
#   live rows/s and lag from /metrics, stops the load, waits until rowbridge has caught up, and ends
#   with `rowbridge check`, whose verdict is the demo's exit status. Everything it started is
#   stopped on exit, also on failure or Ctrl-C.
#
#   bash scripts/demo.sh [--source mariadb|mysql|mariadb11] [--seconds N] [--existing N] [--keep]
#     --source F    the source server: MariaDB 10.11 from Debian 12 (default), MySQL 9.x or
#                   MariaDB 11.8 from a Debian chroot built once by scripts/source-chroots.sh
#     --seconds N   how long the load runs (default 30)
#     --existing N  rows per table written before rowbridge starts, copied by the snapshot (50000)
#     --keep        keep the temporary directory (config, logs) for a look afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=30
existing=50000
keep=0
source_flavor=mariadb
usage="usage: $0 [--source mariadb|mysql|mariadb11] [--seconds N] [--existing N] [--keep]"
while (($#)); do
  case "$1" in
    --source) source_flavor="$2"; shift 2 ;;
    --source=*) source_flavor="${1#*=}"; shift ;;
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --existing) existing="$2"; shift 2 ;;
    --existing=*) existing="${1#*=}"; shift ;;
    --keep) keep=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { printf '\ndemo: FAILED: %s\n' "$*" >&2; exit 1; }

say "1/9 installing Debian packages (scripts/install-deps.sh)"
bash "$ROOT/scripts/install-deps.sh"

say "2/9 building rowbridge (release)"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/rowbridge-ccache}"
build="$ROOT/build/release"
cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROWBRIDGE_TESTS=OFF \
  -DROWBRIDGE_BENCH=OFF >/dev/null
cmake --build "$build" --target rowbridge rowbridge-loadgen
rb="$build/rowbridge"
loadgen="$build/rowbridge-loadgen"

# The demo needs `rowbridge run`. Say so plainly rather than pretend. (`rowbridge X --help` prints
# the top-level help for an unknown X, so look for the command in the list of subcommands.)
has_command() { "$rb" --help 2>/dev/null | grep -qE "^  $1( |\$)"; }
if ! has_command run; then
  die "this build of rowbridge has no \`run\` command yet (the pipeline is not merged), so there is
nothing to demonstrate: \`$rb --help\` lists no \`run\`. The demo works once \`rowbridge run\` exists."
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-demo.XXXXXX")"
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  bash "$ROOT/tests/servers/testservers.sh" stop "$work/servers" >/dev/null 2>&1 || true
  if ((keep)); then
    echo "demo: kept $work (config, logs)" >&2
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "3/9 starting the source ($source_flavor) and ClickHouse in $work/servers"
# The server's defaults (binlog_row_metadata=NO_LOG on MariaDB, MINIMAL on MySQL): rowbridge
# reads column names and types from information_schema when it first sees a table.
bash "$ROOT/tests/servers/testservers.sh" start --source="$source_flavor" --owner-pid=$$ \
  "$work/servers"
echo "source: $(bash "$ROOT/tests/servers/testservers.sh" mariadb "$work/servers" -N -e \
  'SELECT VERSION()')"
eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$work/servers")"
sql() { bash "$ROOT/tests/servers/testservers.sh" mariadb "$work/servers" "$@"; }
ch() { bash "$ROOT/tests/servers/testservers.sh" clickhouse "$work/servers" "$@"; }

say "4/9 creating the seed's tables"
sql <"$ROOT/tests/data/seed/mysql_schema.sql"
sql -e "CREATE TABLE bifrost_test.binlog_field_test_2 LIKE bifrost_test.binlog_field_test_1;
        CREATE TABLE bifrost_test.binlog_field_test_3 LIKE bifrost_test.binlog_field_test_1;"
ch --multiquery <"$ROOT/tests/data/seed/clickhouse_schema.sql"
echo "source: bifrost_test.binlog_field_test_1, _2, _3 (the seed's schema)"
echo "ClickHouse: bifrost_test.binlog_field_test_1 (the seed's table, changelog of table 1);"
echo "            bifrost_test.binlog_field_test_2, _3 are created by rowbridge (replica)"

say "5/9 writing $existing existing rows per table (the initial copy will take them)"
for t in 1 2 3; do
  "$loadgen" -host 127.0.0.1 -port "$ROWBRIDGE_TEST_MYSQL_PORT" -user "$ROWBRIDGE_TEST_MYSQL_USER" \
    -pwd "$ROWBRIDGE_TEST_MYSQL_PASSWORD" -schema bifrost_test -table "binlog_field_test_$t" \
    -count "$existing" -batchsize 1000 -conn 2 -time_interval 0 --seed "$((t + 10))" \
    --report-every 1000000 >"$work/existing_$t.log" 2>&1 ||
    { cat "$work/existing_$t.log" >&2; die "rowbridge-loadgen failed"; }
done

http_port="$(bash -c 'source "$1"; _ts_free_port "$2" "$3"' _ "$ROOT/tests/servers/testservers.sh" \
  "$ROWBRIDGE_TEST_MYSQL_PORT" "$ROWBRIDGE_TEST_CH_PORT")"
config="$work/rowbridge.yaml"
cat >"$config" <<EOF
# rowbridge demo configuration (docs/configuration.md describes every key).
source:
  host: 127.0.0.1
  port: $ROWBRIDGE_TEST_MYSQL_PORT
  user: $ROWBRIDGE_TEST_MYSQL_USER
  password: \${DEMO_MYSQL_PASSWORD}
  server_id: 4242
target:
  host: 127.0.0.1
  port: $ROWBRIDGE_TEST_CH_PORT
  database: bifrost_test
tables:
  # The seed's own ClickHouse table, unchanged: every change appended with its type and version.
  - match: bifrost_test.binlog_field_test_1
    target: bifrost_test.binlog_field_test_1
    mode: changelog
    meta_columns: {event_type: binlog_event_type, version: bifrost_data_version}
    create_table: false
    conversion: {on_out_of_range: clamp}
  # The other two: current state, one row per key (ReplacingMergeTree), created by rowbridge.
  - match: bifrost_test.binlog_field_test_*
    target: "bifrost_test.{table}"
    mode: replica
    conversion: {on_out_of_range: clamp}
snapshot: {enabled: true, chunk_rows: 20000, readers: 3, writers: 6}  # first start: copy, then stream
batch: {max_rows: 100000, max_delay: 1s}
state: {store: clickhouse}
http: {listen: "127.0.0.1:$http_port"}
EOF
export DEMO_MYSQL_PASSWORD="$ROWBRIDGE_TEST_MYSQL_PASSWORD"
echo "config: $config"

if has_command validate; then
  "$rb" validate -c "$config" || die "rowbridge validate found problems (above)"
fi

say "6/9 starting rowbridge run"
"$rb" run -c "$config" >"$work/rowbridge.log" 2>&1 &
rb_pid=$!
pids+=("$rb_pid")
# A plain HTTP/1.0 GET over bash's /dev/tcp (no curl needed): prints the body, fails unless 200.
http_get() {
  local response
  response="$(exec 2>/dev/null 3<>"/dev/tcp/127.0.0.1/$http_port" &&
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3 && cat <&3)" || return 1
  [[ "$(head -n1 <<<"$response")" == *" 200 "* ]] || return 1
  sed '1,/^\r\{0,1\}$/d' <<<"$response"
}
metrics_url="http://127.0.0.1:$http_port/metrics"
for ((i = 0; i < 300; i++)); do
  http_get /healthz >/dev/null && break
  kill -0 "$rb_pid" 2>/dev/null || { tail -n 40 "$work/rowbridge.log" >&2; die "rowbridge run exited"; }
  sleep 0.2
done
http_get /healthz >/dev/null ||
  { tail -n 40 "$work/rowbridge.log" >&2; die "rowbridge did not become healthy within 60 s"; }
echo "rowbridge is up (pid $rb_pid, log $work/rowbridge.log, metrics $metrics_url)"

# Rows in ClickHouse: copied by the snapshot plus written by the stream (rowbridge_rows_total).
rows_written() {
  http_get /metrics | awk '/^rowbridge_(rows_total|snapshot_rows_copied)[{ ]/ {s += $NF} END {printf "%d\n", s}'
}
# Tables rowbridge stopped (an error it cannot get past): fail at once, with its log lines.
stopped_tables() {
  http_get /metrics | awk '/^rowbridge_stopped_tables[{ ]/ {s += $NF} END {printf "%d\n", s}'
}
fail_if_stopped() {
  kill -0 "$rb_pid" 2>/dev/null || { tail -n 40 "$work/rowbridge.log" >&2; die "rowbridge run exited"; }
  if (($(stopped_tables) > 0)); then
    grep -E ' (error|warn) ' "$work/rowbridge.log" | tail -n 20 >&2
    die "rowbridge stopped replicating a table (log lines above)"
  fi
}
max_lag() {
  http_get /metrics |
    awk '/^rowbridge_replication_lag_seconds / {m = $NF + 0} END {printf "%.1f\n", m}'
}

say "7/9 writing load for ${seconds}s: rowbridge-loadgen on 3 tables, 2 connections x 1000 rows / 100 ms each"
load_pids=()
for t in 1 2 3; do
  "$loadgen" -host 127.0.0.1 -port "$ROWBRIDGE_TEST_MYSQL_PORT" -user "$ROWBRIDGE_TEST_MYSQL_USER" \
    -pwd "$ROWBRIDGE_TEST_MYSQL_PASSWORD" -schema bifrost_test -table "binlog_field_test_$t" \
    -batchsize 1000 -conn 2 -time_interval 100 --duration "$seconds" --seed "$t" \
    --report-every 1000000 >"$work/loadgen_$t.log" 2>&1 &
  load_pids+=("$!")
  pids+=("$!")
done
printf '%8s %14s %12s %10s\n' "time s" "rows written" "rows/s" "lag s"
prev="$(rows_written)"
start=$SECONDS
while :; do
  running=0
  for pid in "${load_pids[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
  ((running)) || break
  sleep 2
  fail_if_stopped
  now="$(rows_written)"
  printf '%8d %14d %12d %10s\n' $((SECONDS - start)) "$now" $(((now - prev) / 2)) "$(max_lag)"
  prev="$now"
done
for pid in "${load_pids[@]}"; do
  wait "$pid" || { cat "$work"/loadgen_*.log >&2; die "rowbridge-loadgen failed"; }
done
grep -h '^DONE' "$work"/loadgen_*.log || true
source_rows="$(sql -N -e "SELECT (SELECT COUNT(*) FROM bifrost_test.binlog_field_test_1) +
  (SELECT COUNT(*) FROM bifrost_test.binlog_field_test_2) + (SELECT COUNT(*) FROM bifrost_test.binlog_field_test_3)")"
echo "load stopped: $source_rows rows in the source tables"

say "8/9 waiting until rowbridge has caught up"
# Caught up: rowbridge's saved checkpoint (rowbridge_checkpoint_file_number/_position_bytes in
# /metrics) has reached the source's binlog end as it was when the load stopped, i.e. every change
# before it is in ClickHouse.
# MySQL 8.2 renamed SHOW MASTER STATUS, and 8.4 removed the old name.
status_sql="SHOW MASTER STATUS"
[[ "$source_flavor" == mysql ]] && status_sql="SHOW BINARY LOG STATUS"
read -r end_file end_pos _ < <(sql -N -e "$status_sql")
end_number="$((10#${end_file##*.}))"
checkpoint() {
  http_get /metrics | awk '/^rowbridge_checkpoint_file_number / {f = $NF} /^rowbridge_checkpoint_position_bytes / {p = $NF}
    END {printf "%d %d\n", f, p}'
}
caught=0
for ((i = 0; i < 600; i++)); do
  read -r file_number position < <(checkpoint)
  ((i % 5 == 0)) && printf 'rows written %d of %d, lag %ss, checkpoint %s:%s of %s:%s\n' \
    "$(rows_written)" "$source_rows" "$(max_lag)" "$file_number" "$position" "$end_number" "$end_pos"
  if ((file_number > end_number || (file_number == end_number && position >= end_pos))); then
    caught=1
    break
  fi
  fail_if_stopped
  sleep 1
done
((caught)) || die "rowbridge did not catch up within 10 minutes (log: $work/rowbridge.log)"
printf 'caught up: checkpoint at the source end %s:%s; rows written %d, lag %ss\n' "$end_file" \
  "$end_pos" "$(rows_written)" "$(max_lag)"

say "9/9 rowbridge check: source against target, row by row"
status=0
"$rb" check -c "$config" || status=$?
kill -TERM "$rb_pid" 2>/dev/null || true
wait "$rb_pid" || echo "demo: rowbridge run exited with status $? after SIGTERM" >&2
case "$status" in
  0) say "demo: OK — every replicated table matches its source" ;;
  1) die "rowbridge check found differences (above)" ;;
  *) die "rowbridge check could not complete (status $status)" ;;
esac
