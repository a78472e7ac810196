#!/usr/bin/env bash
# Full copy of N seed rows into ClickHouse, two ways, side by side on the same servers in one run:
#   1. rowbridge snapshot  (chunked, consistent with the binlog, resumable, with progress)
#   2. ClickHouse's own    INSERT INTO t SELECT * FROM mysql('host:port', db, table, user, pwd)
# For each: wall seconds, rows/s, CPU seconds of rowbridge (1) and of clickhouse-server and
# mariadbd (both), and peak RSS of rowbridge.
#
# Usage: bench/snapshot_vs_mysql_function.sh [ROWS] [BUILD_DIR]
#   ROWS       seed rows to copy (default 1000000)
#   BUILD_DIR  where rowbridge and rowbridge-loadgen are (default build/rel; build it with
#              cmake -S . -B build/rel -G Ninja -DCMAKE_BUILD_TYPE=Release)
# Starts its own throwaway servers (tests/servers/testservers.sh) unless ROWBRIDGE_TEST_SERVERS_DIR
# points at running ones.
set -euo pipefail

rows=${1:-1000000}
build=${2:-build/rel}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
for b in rowbridge rowbridge-loadgen; do
  [[ -x "$build/$b" ]] || { echo "no $build/$b: build a Release first" >&2; exit 1; }
done

if [[ -z "${ROWBRIDGE_TEST_SERVERS_DIR:-}" ]]; then
  dir=$(mktemp -d /tmp/rowbridge-bench.XXXXXX)
  bash tests/servers/testservers.sh start --owner-pid=$$ "$dir" >/dev/null
  trap 'bash tests/servers/testservers.sh stop --remove "$dir" >/dev/null 2>&1 || true' EXIT
  eval "$(bash tests/servers/testservers.sh env "$dir")"
fi
dir=$ROWBRIDGE_TEST_SERVERS_DIR
mysql() { bash tests/servers/testservers.sh mariadb "$dir" "$@"; }
ch() { bash tests/servers/testservers.sh clickhouse "$dir" "$@"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_per_second=$(getconf CLK_TCK)

# The seed table (MyISAM, as the seed has it), filled with the seed's load generator.
mysql -e "DROP DATABASE IF EXISTS bifrost_test"
mysql < tests/data/seed/mysql_schema.sql
mysql -e "ALTER TABLE bifrost_test.binlog_field_test_1 AUTO_INCREMENT = 1"
echo "filling bifrost_test.binlog_field_test_1 with $rows rows..." >&2
"$build/rowbridge-loadgen" --host 127.0.0.1 --port "$ROWBRIDGE_TEST_MYSQL_PORT" \
  --user "$ROWBRIDGE_TEST_MYSQL_USER" --password "$ROWBRIDGE_TEST_MYSQL_PASSWORD" \
  --schema bifrost_test --table binlog_field_test_1 --count "$rows" --batchsize 1000 --conn 2 \
  --max-string 64 --report-every 1000 >/dev/null
actual=$(mysql -N -e "SELECT COUNT(*) FROM bifrost_test.binlog_field_test_1")

work=$(mktemp -d /tmp/rowbridge-bench-run.XXXXXX)
ch -q "DROP DATABASE IF EXISTS bench_rb"
ch -q "DROP DATABASE IF EXISTS bench_fn"
ch -q "CREATE DATABASE bench_fn"
cat > "$work/rowbridge.yaml" <<EOF
source: {host: 127.0.0.1, port: $ROWBRIDGE_TEST_MYSQL_PORT, user: $ROWBRIDGE_TEST_MYSQL_USER, password: '$ROWBRIDGE_TEST_MYSQL_PASSWORD', server_id: 4747, tls: {mode: disabled}}
target: {host: 127.0.0.1, port: $ROWBRIDGE_TEST_CH_PORT, database: bench_rb}
tables:
  - match: bifrost_test.binlog_field_test_1
    conversion: {on_out_of_range: clamp}
snapshot: {chunk_rows: 100000, readers: 3, writers: 6}
state: {store: file, path: $work/state}
http: {enabled: false}
log: {level: warn}
EOF

ch_pid=$ROWBRIDGE_TEST_CH_PID
my_pid=$ROWBRIDGE_TEST_MYSQL_PID

# 1. rowbridge snapshot
ch0=$(cpu_ticks "$ch_pid"); my0=$(cpu_ticks "$my_pid"); t0=$(date +%s.%N)
/usr/bin/time -f "%U %S %M" -o "$work/time" "$build/rowbridge" snapshot -c "$work/rowbridge.yaml" \
  --progress lines 2>"$work/rowbridge.log"
t1=$(date +%s.%N); ch1=$(cpu_ticks "$ch_pid"); my1=$(cpu_ticks "$my_pid")
read -r rb_user rb_sys rb_rss_kb < "$work/time"
rb_rows=$(ch -q "SELECT count() FROM bench_rb.binlog_field_test_1 FINAL")

# 2. ClickHouse's mysql() table function into a table of the same columns.
ch -q "CREATE TABLE bench_fn.binlog_field_test_1 ENGINE = MergeTree ORDER BY id AS SELECT * FROM \
  mysql('127.0.0.1:$ROWBRIDGE_TEST_MYSQL_PORT', 'bifrost_test', 'binlog_field_test_1', \
  '$ROWBRIDGE_TEST_MYSQL_USER', '$ROWBRIDGE_TEST_MYSQL_PASSWORD') LIMIT 0"
fch0=$(cpu_ticks "$ch_pid"); fmy0=$(cpu_ticks "$my_pid"); f0=$(date +%s.%N)
ch -q "INSERT INTO bench_fn.binlog_field_test_1 SELECT * FROM \
  mysql('127.0.0.1:$ROWBRIDGE_TEST_MYSQL_PORT', 'bifrost_test', 'binlog_field_test_1', \
  '$ROWBRIDGE_TEST_MYSQL_USER', '$ROWBRIDGE_TEST_MYSQL_PASSWORD')"
f1=$(date +%s.%N); fch1=$(cpu_ticks "$ch_pid"); fmy1=$(cpu_ticks "$my_pid")
fn_rows=$(ch -q "SELECT count() FROM bench_fn.binlog_field_test_1")

awk -v rows="$actual" -v rbr="$rb_rows" -v fnr="$fn_rows" -v t0="$t0" -v t1="$t1" -v f0="$f0" -v f1="$f1" \
  -v rbu="$rb_user" -v rbs="$rb_sys" -v rss="$rb_rss_kb" -v hz="$ticks_per_second" \
  -v ch0="$ch0" -v ch1="$ch1" -v my0="$my0" -v my1="$my1" \
  -v fch0="$fch0" -v fch1="$fch1" -v fmy0="$fmy0" -v fmy1="$fmy1" 'BEGIN {
  rt = t1 - t0; ft = f1 - f0;
  printf "source rows: %d (seed table binlog_field_test_1, MyISAM)\n", rows;
  printf "%-32s %10s %12s %14s %16s %14s %12s\n", "method", "seconds", "rows/s", "rowbridge CPU s", "clickhouse CPU s", "mariadb CPU s", "peak RSS MiB";
  printf "%-32s %10.2f %12.0f %14.2f %16.2f %14.2f %12.1f\n", "rowbridge snapshot", rt, rbr / rt, rbu + rbs, (ch1 - ch0) / hz, (my1 - my0) / hz, rss / 1024;
  printf "%-32s %10.2f %12.0f %14s %16.2f %14.2f %12s\n", "INSERT ... SELECT FROM mysql()", ft, fnr / ft, "-", (fch1 - fch0) / hz, (fmy1 - fmy0) / hz, "-";
  if (rbr != rows || fnr != rows) printf "WARNING: row counts differ: source %d, rowbridge %d, mysql() %d\n", rows, rbr, fnr;
}'
rm -rf "$work"
