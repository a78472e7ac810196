# Shared shell helpers of the end-to-end benchmarks (bench/incremental.sh, catchup.sh, full.sh).
# Source it; it defines functions and BENCH_ROOT, and changes no shell options.
#
# The scripts run on throwaway servers (tests/servers/testservers.sh) unless
# ROWBRIDGE_TEST_SERVERS_DIR points at running ones (then their env must be exported, as
# `testservers.sh env` prints it). Every measurement reads /proc of a process the script started.

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_HZ="$(getconf CLK_TCK)"
BENCH_PIDS=()  # processes to TERM (then wait for) on exit

bench_die() {
  printf '%s: FAILED: %s\n' "$(basename "$0")" "$*" >&2
  exit 1
}
bench_say() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }

# bench_build_dir DIR: prints DIR made absolute after checking that rowbridge and
# rowbridge-loadgen are in it.
bench_build_dir() {
  local dir="$1" bin
  [[ -d "$dir" ]] || bench_die "no build directory $dir; build a Release first:
  cmake -S . -B build/rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DROWBRIDGE_BENCH=OFF -DROWBRIDGE_TESTS=OFF
  cmake --build build/rel -j2 --target rowbridge rowbridge-loadgen"
  dir="$(cd "$dir" && pwd)"
  for bin in rowbridge rowbridge-loadgen; do
    [[ -x "$dir/$bin" ]] || bench_die "missing $dir/$bin (cmake --build $dir --target $bin)"
  done
  echo "$dir"
}

# bench_start_servers WORK [testservers start options]: starts MariaDB and ClickHouse in WORK/servers
# (stopped by bench_cleanup) unless ROWBRIDGE_TEST_SERVERS_DIR is set; exports their env.
BENCH_OWN_SERVERS=""
bench_start_servers() {
  local work="$1"
  shift
  if [[ -z "${ROWBRIDGE_TEST_SERVERS_DIR:-}" ]]; then
    BENCH_OWN_SERVERS="$work/servers"
    bash "$BENCH_ROOT/tests/servers/testservers.sh" start --owner-pid=$$ "$@" "$BENCH_OWN_SERVERS" \
      >"$work/servers.log" 2>&1 || { cat "$work/servers.log" >&2; bench_die "test servers did not start"; }
    eval "$(bash "$BENCH_ROOT/tests/servers/testservers.sh" env "$BENCH_OWN_SERVERS")"
  fi
}

# bench_cleanup [KEEP_DIR]: TERMs the processes in BENCH_PIDS, stops our own servers, removes the
# work directory unless KEEP_DIR is 1. Meant for `trap ... EXIT`.
bench_cleanup() {
  local work="$1" keep="${2:-0}" pid
  for pid in "${BENCH_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${BENCH_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n "$BENCH_OWN_SERVERS" ]]; then
    bash "$BENCH_ROOT/tests/servers/testservers.sh" stop --remove "$BENCH_OWN_SERVERS" >/dev/null 2>&1 || true
  fi
  if [[ "$keep" == 1 ]]; then
    bench_say "kept $work"
  else
    rm -rf "$work"
  fi
}

# SQL on the source (root over TCP) and on ClickHouse.
bench_sql() {
  MYSQL_PWD="$ROWBRIDGE_TEST_MYSQL_PASSWORD" mariadb --no-defaults --connect-timeout=5 \
    --protocol=TCP -h127.0.0.1 -P"$ROWBRIDGE_TEST_MYSQL_PORT" -u"$ROWBRIDGE_TEST_MYSQL_USER" "$@"
}
bench_ch() { clickhouse-client --host 127.0.0.1 --port "$ROWBRIDGE_TEST_CH_PORT" "$@"; }

# /proc readings: CPU ticks (user+sys) and peak / current resident set (kB) of PID.
bench_cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
bench_vm_hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
bench_vm_rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
bench_loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
bench_now() { date +%s.%N; }

bench_median() {
  sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}

# A free loopback port for rowbridge's admin HTTP endpoint.
bench_free_port() {
  bash -c 'source "$1"; _ts_free_port "$2" "$3"' _ "$BENCH_ROOT/tests/servers/testservers.sh" \
    "$ROWBRIDGE_TEST_MYSQL_PORT" "$ROWBRIDGE_TEST_CH_PORT"
}

# bench_http_get PORT PATH: the body of a plain HTTP/1.0 GET on 127.0.0.1 (bash /dev/tcp, no curl);
# fails unless the status is 200.
bench_http_get() {
  local response
  response="$(exec 2>/dev/null 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3 && cat <&3)" || return 1
  [[ "$(head -n1 <<<"$response")" == *" 200 "* ]] || return 1
  sed '1,/^\r\{0,1\}$/d' <<<"$response"
}

# bench_metrics_values NAME... < metrics text: for each NAME, the sum of its samples (all labels).
bench_metrics_values() {
  awk -v names="$*" 'BEGIN {n = split(names, want, " "); for (i = 1; i <= n; i++) s[want[i]] = 0}
    /^#/ {next}
    {name = $1; sub(/\{.*/, "", name); if (name in s) s[name] += $NF}
    END {line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? " " : "") sprintf("%.17g", s[want[i]]); print line}'
}

# bench_create_seed_tables N: (re)creates database bifrost_test (and drops ClickHouse's) with the seed's MySQL tables
# binlog_field_test_1..N (tests/data/seed/mysql_schema.sql, MyISAM as the seed has it). Table t
# takes its ids from t * 10^10, so tables merged into one target never share a key.
bench_create_seed_tables() {
  local n="$1" engine="${2:-}" t
  bench_sql -e "DROP DATABASE IF EXISTS bifrost_test"
  bench_ch --query "DROP DATABASE IF EXISTS bifrost_test"
  bench_sql <"$BENCH_ROOT/tests/data/seed/mysql_schema.sql"
  for ((t = 2; t <= n; t++)); do
    bench_sql -e "CREATE TABLE bifrost_test.binlog_field_test_$t LIKE bifrost_test.binlog_field_test_1"
  done
  for ((t = 1; t <= n; t++)); do
    bench_sql -e "ALTER TABLE bifrost_test.binlog_field_test_$t AUTO_INCREMENT = ${t}0000000000"
    [[ -z "$engine" ]] || bench_sql -e "ALTER TABLE bifrost_test.binlog_field_test_$t ENGINE = $engine"
  done
}

# bench_create_seed_ch_table DB.TABLE: the seed's own ClickHouse table (user-made MergeTree with
# binlog_event_type and bifrost_data_version; tests/data/seed/clickhouse_schema.sql) under a name.
bench_create_seed_ch_table() {
  local name="$1" columns
  columns="$(sed -n '/binlog_field_test_1 (/,/) ENGINE/p' "$BENCH_ROOT/tests/data/seed/clickhouse_schema.sql" |
    sed '1s/.*(//; $s/) ENGINE.*//' | tr '\n' ' ')"
  bench_ch --query "CREATE DATABASE IF NOT EXISTS ${name%%.*}"
  bench_ch --query "DROP TABLE IF EXISTS $name"
  bench_ch --query "CREATE TABLE $name ($columns) ENGINE = MergeTree() ORDER BY id"
}

# bench_config_head STATE_DIR HTTP_PORT SERVER_ID [SOURCE_KEY...]: the source/target/state/http/log
# part of a rowbridge configuration (target database bifrost_test), with extra `source:` keys
# ("heartbeat_period: 1s"); the caller appends `tables:` etc. BENCH_COMPRESSION, if set, is
# target.compression.
bench_config_head() {
  cat <<EOF
# Written by $(basename "$0") (docs/configuration.md describes every key).
source:
  host: 127.0.0.1
  port: $ROWBRIDGE_TEST_MYSQL_PORT
  user: $ROWBRIDGE_TEST_MYSQL_USER
  password: \${BENCH_MYSQL_PASSWORD}
  server_id: $3
  tls: {mode: disabled}
$(for key in "${@:4}"; do echo "  $key"; done)
target:
  host: 127.0.0.1
  port: $ROWBRIDGE_TEST_CH_PORT
  database: bifrost_test
$([[ -z "${BENCH_COMPRESSION:-}" ]] || echo "  compression: $BENCH_COMPRESSION")
state: {store: file, path: $1}
http: {listen: "127.0.0.1:$2"}
log: {level: info}
EOF
}

# bench_loadgen ARGS...: rowbridge-loadgen ($BENCH_BUILD) on the test MariaDB, database
# bifrost_test; ARGS are the rest of the seed's insertDataTest flags (-table, -count, -batchsize,
# -conn, -time_interval) and loadgen's own (--duration, --max-string ...).
bench_loadgen() {
  "$BENCH_BUILD/rowbridge-loadgen" -host 127.0.0.1 -port "$ROWBRIDGE_TEST_MYSQL_PORT" \
    -user "$ROWBRIDGE_TEST_MYSQL_USER" -pwd "$ROWBRIDGE_TEST_MYSQL_PASSWORD" -schema bifrost_test "$@"
}

# bench_rowbridge_start CONFIG LOG: starts `rowbridge run` in the background and sets RB_PID.
RB_PID=""
bench_rowbridge_start() {
  BENCH_MYSQL_PASSWORD="$ROWBRIDGE_TEST_MYSQL_PASSWORD" "$BENCH_BUILD/rowbridge" run -c "$1" \
    >>"$2" 2>&1 &
  RB_PID=$!
  BENCH_PIDS+=("$RB_PID")
}

# bench_rowbridge_wait_healthy LOG HTTP_PORT: waits until /healthz answers 200; fails loudly (with
# the log's tail) if rowbridge exits or is not healthy within 60 s.
bench_rowbridge_wait_healthy() {
  local log="$1" port="$2" i
  for ((i = 0; i < 600; i++)); do
    bench_http_get "$port" /healthz >/dev/null && return 0
    kill -0 "$RB_PID" 2>/dev/null || { tail -n 30 "$log" >&2; bench_die "rowbridge run exited at start"; }
    sleep 0.1
  done
  tail -n 30 "$log" >&2
  bench_die "rowbridge run did not become healthy within 60 s"
}

# bench_rowbridge_run CONFIG LOG HTTP_PORT: both of the above.
bench_rowbridge_run() {
  bench_rowbridge_start "$1" "$2"
  bench_rowbridge_wait_healthy "$2" "$3"
}

# bench_rowbridge_stop LOG: SIGTERM to RB_PID (flush, checkpoint, exit); fails unless it exits 0.
bench_rowbridge_stop() {
  local log="$1" rc=0
  kill -TERM "$RB_PID" 2>/dev/null || true
  wait "$RB_PID" || rc=$?
  local pids=() pid
  for pid in "${BENCH_PIDS[@]}"; do [[ "$pid" == "$RB_PID" ]] || pids+=("$pid"); done
  BENCH_PIDS=("${pids[@]}")
  ((rc == 0)) || { tail -n 30 "$log" >&2; bench_die "rowbridge run exited with status $rc after SIGTERM"; }
}

# bench_rowbridge_alive_or_die LOG PORT: fails loudly when rowbridge exited, or stopped a table.
bench_rowbridge_alive_or_die() {
  local log="$1" port="$2" stopped
  kill -0 "$RB_PID" 2>/dev/null || { tail -n 30 "$log" >&2; bench_die "rowbridge run exited"; }
  stopped="$(bench_http_get "$port" /metrics | bench_metrics_values rowbridge_stopped_tables)" || return 0
  if [[ "${stopped%.*}" != 0 ]]; then
    grep -E '(error|warn)' "$log" | tail -n 20 >&2
    bench_die "rowbridge stopped replicating a table (log lines above)"
  fi
}

# bench_check CONFIG LOG: `rowbridge check`; fails loudly unless source and target are equal.
bench_check() {
  local rc=0
  BENCH_MYSQL_PASSWORD="$ROWBRIDGE_TEST_MYSQL_PASSWORD" "$BENCH_BUILD/rowbridge" check -c "$1" \
    >"$2" 2>&1 || rc=$?
  ((rc == 0)) || { cat "$2" >&2; bench_die "rowbridge check: source and target differ (status $rc)"; }
  tail -n 1 "$2" >&2
}

# Percentile (nearest rank) of the numbers on stdin: bench_percentile 99
bench_percentile() {
  sort -g | awk -v p="$1" '{v[NR] = $1} END {
    if (NR == 0) {print "nan"; exit}
    i = int(p / 100 * NR + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR; print v[i]}'
}

# Prints the calling script's usage (its header comment, up to `set -euo pipefail`) and exits 2.
bench_usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

# bench_common_option ARGS...: takes the options every end-to-end bench script has (--max-string
# N, --build DIR, --out DIR, --smoke, --keep) into the caller's max_string, build, out, smoke and
# keep, and sets BENCH_SHIFT to the number of arguments used; anything else is a usage error.
bench_common_option() {
  case "$1" in
    --max-string) max_string="$2"; BENCH_SHIFT=2 ;;
    --build) build="$2"; BENCH_SHIFT=2 ;;
    --out) out="$2"; BENCH_SHIFT=2 ;;
    --smoke) smoke=1; BENCH_SHIFT=1 ;;
    --keep) keep=1; BENCH_SHIFT=1 ;;
    *) bench_usage ;;
  esac
}
