#!/usr/bin/env bash
# The fault-injection soak: rowbridge replicates a randomized workload on real servers while
# faults hit every part of it on a random schedule, then the target must equal the source.
#
#   bash tests/soak/soak.sh [--minutes N] [--seed S] [--build DIR] [--source FLAVOR]
#                           [--summary FILE] [--keep]
#     --minutes N    how long faults and workload run (default 10; a fraction is allowed: 1.5).
#                    Setup and the final checks add about a minute.
#     --seed S       seeds the schedule: which faults, in which order, their durations and the
#                    workload's random choices (default: random, printed). Timing depends on
#                    the machine, so a seed repeats the sequence, not the exact interleaving.
#     --build DIR    a CMake build directory holding rowbridge and rowbridge-loadgen
#                    (default build/asan of the repository)
#     --source F     the source server: mariadb (10.11, the default), mysql (9.x), mariadb11
#                    (tests/servers/testservers.sh --source)
#     --summary FILE where the report goes too (default: soak-summary.txt in the work directory,
#                    which is kept when the soak fails, or with --keep)
#     --keep         keep the work directory (servers' data, config, every log)
#
# What runs: own throwaway MariaDB/MySQL and ClickHouse servers (tests/servers/testservers.sh,
# in the work directory, always stopped at the end); a loopback TCP proxy (tcp_proxy.py) between
# rowbridge and each server, which stalls or drops connections on command; rowbridge `run`
# (restarted by the soak whenever it exits) with an initial copy of rows written before its first
# start; rowbridge-loadgen inserting, updating and deleting in every table (restarted when a
# source fault kills it), and now and then an UPDATE that changes primary keys.
#
# Tables (database soak): r_orders, r_accounts (mode replica), c_events, c_ledger (mode
# changelog): ints, BIGINT (UNSIGNED too), DECIMAL, non-ASCII VARCHAR, DATE, DATETIME and
# nullable columns. soak.victim (replica) gets one statement-logged INSERT per run, which must
# stop it with a message (checked in the log and in /status); it is left out of the comparison.
# soak.noise, which no rule matches, gets statement-logged DML all along: harmless by design.
#
# Faults, each 2-6 s after the previous one ended (seeded): rowbridge kill -9 (then restart),
# rowbridge SIGSTOP for 2-8 s then SIGCONT, source TERM and KILL (then restart), ClickHouse TERM
# and KILL (then restart), the dump thread KILLed on the source, binlog rotation (FLUSH BINARY
# LOGS), the network to the source and to ClickHouse stalled for 2-12 s or dropped (every
# connection reset), statement-logged DML on the unmatched table.
#
# The end: the workload stops; rowbridge must catch up (its saved checkpoint reaches the source's
# binlog end after a marker transaction in an unmatched database) and stop cleanly on SIGTERM;
# `rowbridge check` must pass; and an independent comparison dumps every compared table from both
# sides (replica: FINAL WHERE _is_deleted = 0; changelog: the latest change per key unless it is a
# delete) and diffs them; a changelog table must also hold every change once (count = distinct
# (version, key) pairs). Exit status 0 only with 0 differences, check passed, the statement DML stopped the
# victim table as documented and rowbridge never exited unless the soak killed it or stopped it.
set -uo pipefail
SOAK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TS=("bash" "$SOAK_ROOT/tests/servers/testservers.sh")

minutes=10 seed="" build="$SOAK_ROOT/build/asan" source_flavor=mariadb summary="" keep=0
usage() {
  sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --minutes) minutes="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    --build) build="${2:?}"; shift 2 ;;
    --source) source_flavor="${2:?}"; shift 2 ;;
    --summary) summary="${2:?}"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) usage ;;
    *) echo "soak.sh: unknown argument $1" >&2; usage ;;
  esac
done
case "$source_flavor" in mariadb | mysql | mariadb11) ;; *) usage ;; esac
duration="$(awk -v m="$minutes" 'BEGIN { if (m + 0 <= 0) exit 1; printf "%d", m * 60 + 0.5 }')" ||
  { echo "soak.sh: --minutes must be a positive number" >&2; exit 2; }
[[ -n "$seed" ]] || seed=$(((RANDOM << 15) | RANDOM))
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "soak.sh: --seed must be a number" >&2; exit 2; }
RANDOM=$seed
[[ -d "$build" ]] || { echo "soak.sh: no build directory $build" >&2; exit 2; }
build="$(cd "$build" && pwd)"
for bin in rowbridge rowbridge-loadgen; do
  [[ -x "$build/$bin" ]] || { echo "soak.sh: missing $build/$bin (cmake --build $build --target $bin)" >&2; exit 2; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-soak.XXXXXX")"
servers="$work/servers"
rb_log="$work/rowbridge.log"
timeline="$work/timeline.log"
findings_file="$work/findings.txt"
[[ -n "$summary" ]] || summary="$work/soak-summary.txt"
: >"$findings_file"
T0=$SECONDS

say() { printf '[soak %4ds] %s\n' $((SECONDS - T0)) "$*" | tee -a "$timeline" >&2; }
die() {
  say "FAILED: $*"
  FAILED=1
  exit 1
}

# ---------------------------------------------------------------------------------------------
# Processes and cleanup

RB_PID="" PROXY_PID="" FAILED=0
declare -A LG_PID=()
alive() {
  local state
  [[ -n "$1" && -r "/proc/$1/stat" ]] || return 1
  state="$(sed -E 's/^[0-9]+ \(.*\) ([A-Za-z]).*/\1/' "/proc/$1/stat" 2>/dev/null)" || return 1
  [[ "$state" != Z && "$state" != X ]]
}

cleanup() {
  local rc=$? pid
  ((rc)) && FAILED=1
  if alive "$RB_PID"; then
    kill -CONT "$RB_PID" 2>/dev/null
    kill -KILL "$RB_PID" 2>/dev/null
    wait "$RB_PID" 2>/dev/null
  fi
  for pid in "${LG_PID[@]}" "$PROXY_PID"; do
    [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${LG_PID[@]}" "$PROXY_PID"; do
    [[ -n "$pid" ]] && wait "$pid" 2>/dev/null
  done
  # KILL: a graceful stop of ClickHouse takes tens of seconds, and the data is thrown away or only
  # read (what a crash leaves is on disk too).
  if [[ -d "$servers" ]]; then
    "${TS[@]}" stop --kill "$servers" >>"$work/servers.log" 2>&1 || true
  fi
  if ((FAILED || keep)); then
    echo "soak: work directory kept: $work (rowbridge.log, timeline.log, config, servers/)" >&2
  else
    "${TS[@]}" stop --remove "$servers" >/dev/null 2>&1 || true
    local kept=""
    if [[ "$summary" == "$work/"* ]]; then
      kept="${TMPDIR:-/tmp}/rowbridge-soak-$seed.summary.txt"
      cp "$summary" "$kept" 2>/dev/null && echo "soak: summary kept in $kept" >&2
    fi
    rm -rf "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# Servers and SQL

src_sql() { "${TS[@]}" mariadb "$servers" "$@"; }
ch_sql() { clickhouse-client --host 127.0.0.1 --port "$ROWBRIDGE_TEST_CH_PORT" "$@"; }
load_env() { eval "$("${TS[@]}" env "$servers")"; }

say "seed $seed, ${duration}s of faults, source $source_flavor, build $build, work $work"
"${TS[@]}" start --source="$source_flavor" --owner-pid=$$ "$servers" >>"$work/servers.log" 2>&1 ||
  { tail -n 30 "$work/servers.log" >&2; die "the test servers did not start"; }
load_env
say "servers: $ROWBRIDGE_TEST_MYSQL_VERSION on port $ROWBRIDGE_TEST_MYSQL_PORT, ClickHouse on port $ROWBRIDGE_TEST_CH_PORT"

binlog_end() {
  src_sql -N -e "SHOW MASTER STATUS" 2>/dev/null | awk 'NF {print $1, $2; exit}' | grep . ||
    src_sql -N -e "SHOW BINARY LOG STATUS" | awk 'NF {print $1, $2; exit}'
}

# The compared tables: name, mode, columns as NAME:HOW (n: a number as text, s: a string as hex,
# d: a DATE as days since 1970-01-01 (ClickHouse 18.16 shows day 0 as 0000-00-00), t: a DATETIME
# to the second).
TABLES=(r_orders r_accounts c_events c_ledger)
declare -A MODE=([r_orders]=replica [r_accounts]=replica [c_events]=changelog [c_ledger]=changelog)
declare -A COLS=(
  [r_orders]="id:n customer:n qty:n amount:n note:s created:t shipped:t"
  [r_accounts]="id:n owner:s balance:n points:n flags:n opened:d updated:t"
  [c_events]="id:n kind:n payload:s amount:n big:n at:t"
  [c_ledger]="id:n account:n delta:n memo:s booked:t settled:t"
)
src_sql -e "
  DROP DATABASE IF EXISTS soak; CREATE DATABASE soak CHARACTER SET utf8mb4;
  DROP DATABASE IF EXISTS soak_marker; CREATE DATABASE soak_marker;
  CREATE TABLE soak_marker.m (id INT AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB;
  CREATE TABLE soak.r_orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer INT NOT NULL,
    qty SMALLINT UNSIGNED NOT NULL, amount DECIMAL(12,2) NOT NULL, note VARCHAR(48) NOT NULL,
    created DATETIME NOT NULL, shipped DATETIME NULL) ENGINE=InnoDB;
  CREATE TABLE soak.r_accounts (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, owner VARCHAR(40) NOT NULL,
    balance DECIMAL(20,4) NULL, points BIGINT NOT NULL, flags TINYINT NOT NULL, opened DATE NOT NULL,
    updated DATETIME NOT NULL) ENGINE=InnoDB;
  CREATE TABLE soak.c_events (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, kind TINYINT UNSIGNED NOT NULL,
    payload VARCHAR(100) NULL, amount DECIMAL(10,3) NOT NULL, big BIGINT UNSIGNED NOT NULL,
    at DATETIME NOT NULL) ENGINE=InnoDB;
  CREATE TABLE soak.c_ledger (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, account INT NOT NULL,
    delta DECIMAL(18,6) NOT NULL, memo VARCHAR(64) NOT NULL, booked DATETIME NOT NULL,
    settled DATETIME NULL) ENGINE=InnoDB;
  CREATE TABLE soak.victim (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v VARCHAR(32) NOT NULL,
    n INT NULL) ENGINE=InnoDB;
  CREATE TABLE soak.noise (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v VARCHAR(32) NOT NULL,
    n INT NOT NULL) ENGINE=InnoDB;
  INSERT INTO soak.noise (v, n) VALUES ('ä', 1), ('ö', 2), ('ü', 3);" ||
  die "could not create the source tables"
ch_sql -q "CREATE DATABASE IF NOT EXISTS soak" || die "could not create the ClickHouse database"

# rowbridge-loadgen on a table of soak; ARGS are its flags (tools/loadgen/main.cpp). It execs, so
# that `loadgen ... &` makes $! the loadgen itself (a TERM to a subshell would orphan it); run it
# in the foreground only inside $( ) or ( ).
loadgen() {
  ASAN_OPTIONS="detect_leaks=0" exec "$build/rowbridge-loadgen" -host 127.0.0.1 \
    -port "$ROWBRIDGE_TEST_MYSQL_PORT" -user "$ROWBRIDGE_TEST_MYSQL_USER" \
    -pwd "$ROWBRIDGE_TEST_MYSQL_PASSWORD" -schema soak "$@"
}

# Rows before the first start, so that the initial copy has work (in several chunks).
preload_rows=2000
say "preloading $preload_rows rows per table"
for t in "${TABLES[@]}" victim; do
  (loadgen -table "$t" -count "$preload_rows" -batchsize 250 -conn 2 -time_interval 0 \
    --seed "$((seed % 100000 + 1))" --report-every 60) >"$work/preload-$t.log" 2>&1 ||
    { cat "$work/preload-$t.log" >&2; die "preloading soak.$t failed"; }
done

# An UPDATE that moves a few keys to negative numbers (loadgen's AUTO_INCREMENT never makes
# those): a key change must delete the old key in both modes.
KEY_CHANGES=0
key_change() {
  local t="${TABLES[RANDOM % ${#TABLES[@]}]}" k=$((RANDOM % 41))
  if src_sql -e "UPDATE soak.$t SET id = -id WHERE id > 0 AND id % 41 = $k ORDER BY id LIMIT 2" \
    >>"$work/workload.log" 2>&1; then
    KEY_CHANGES=$((KEY_CHANGES + 1))
  fi
}
for ((i = 0; i < 4; i++)); do key_change; done

# ---------------------------------------------------------------------------------------------
# The proxy and rowbridge

python3 "$SOAK_ROOT/tests/soak/tcp_proxy.py" --ports-file "$work/proxy.ports" \
  "source=$ROWBRIDGE_TEST_MYSQL_PORT" "clickhouse=$ROWBRIDGE_TEST_CH_PORT" >"$work/proxy.log" 2>&1 &
PROXY_PID=$!
for ((i = 0; i < 100; i++)); do [[ -s "$work/proxy.ports" ]] && break; sleep 0.1; done
[[ -s "$work/proxy.ports" ]] || { cat "$work/proxy.log" >&2; die "the TCP proxy did not start"; }
proxy_port() { awk -v n="$1" '$1 == n {print $2}' "$work/proxy.ports"; }
# proxy COMMAND...: one command to the proxy (tcp_proxy.py); prints its reply.
proxy() {
  local reply
  reply="$(timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && shift && echo "$*" >&3 && cat <&3' \
    _ "$(proxy_port control)" "$@")"
  [[ "$reply" == ok* ]] || say "proxy: '$*' answered '$reply'"
  echo "$reply"
}

http_port="$(bash -c 'source "$1"; _ts_free_port "$2" "$3" "$4" "$5"' _ \
  "$SOAK_ROOT/tests/servers/testservers.sh" "$ROWBRIDGE_TEST_MYSQL_PORT" "$ROWBRIDGE_TEST_CH_PORT" \
  "$(proxy_port source)" "$(proxy_port clickhouse)")"
server_id=$((5000 + seed % 1000))
config="$work/rowbridge.yaml"
cat >"$config" <<EOF
# Written by tests/soak/soak.sh (seed $seed). Both servers are reached through tcp_proxy.py.
source:
  host: 127.0.0.1
  port: $(proxy_port source)
  user: $ROWBRIDGE_TEST_MYSQL_REPL_USER
  password: \${SOAK_SOURCE_PASSWORD}
  server_id: $server_id
  tls: {mode: disabled}
  heartbeat_period: 1s
  read_timeout: 5s
  connect_timeout: 3s
  reconnect: {initial_backoff: 200ms, max_backoff: 2s}
target:
  host: 127.0.0.1
  port: $(proxy_port clickhouse)
  database: soak
  connect_timeout: 3s
  query_timeout: 20s
tables:
  - match: soak.r_*
    mode: replica
  - match: soak.c_*
    mode: changelog
  - match: soak.victim
    mode: replica
snapshot: {enabled: true, chunk_rows: 500}
batch: {max_rows: 5000, max_delay: 500ms}
http: {listen: "127.0.0.1:$http_port"}
log: {level: info}
EOF

http_get() {
  local response
  response="$(timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" "$2" >&3 && cat <&3' _ "$http_port" "$1" \
    2>/dev/null)" || return 1
  [[ "$(head -n1 <<<"$response")" == *" 200 "* ]] || return 1
  sed '1,/^\r\{0,1\}$/d' <<<"$response"
}

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
RB_STARTS=0 RB_OFFSET=0 UNEXPECTED_EXITS=0
rb_start() {
  RB_STARTS=$((RB_STARTS + 1))
  echo "==== soak: rowbridge start #$RB_STARTS at $(date -u +%FT%TZ)" >>"$rb_log"
  RB_OFFSET="$(stat -c %s "$rb_log")"
  SOAK_SOURCE_PASSWORD="$ROWBRIDGE_TEST_MYSQL_REPL_PASSWORD" "$build/rowbridge" run -c "$config" \
    </dev/null >>"$rb_log" 2>&1 &
  RB_PID=$!
}

finding() {
  say "FINDING: $1"
  {
    echo "- $1"
    [[ -n "${2:-}" ]] && sed 's/^/    /' <<<"$2"
  } >>"$findings_file"
}

# Restarts rowbridge if it exited; an exit the soak did not cause is a finding.
rb_supervise() {
  alive "$RB_PID" && return 0
  local rc=0
  wait "$RB_PID" 2>/dev/null || rc=$?
  UNEXPECTED_EXITS=$((UNEXPECTED_EXITS + 1))
  finding "rowbridge exited with status $rc without being killed or stopped (start #$RB_STARTS); its log's last lines:" \
    "$(tail -c +"$((RB_OFFSET + 1))" "$rb_log" | tail -n 25)"
  sleep 1
  rb_start
}

# Stops rowbridge with SIGTERM; it must exit 0 within 120 s.
rb_stop_clean() {
  local rc=0 i
  kill -TERM "$RB_PID" 2>/dev/null
  for ((i = 0; i < 1200; i++)); do alive "$RB_PID" || break; sleep 0.1; done
  if alive "$RB_PID"; then
    finding "rowbridge did not exit within 120 s of SIGTERM" "$(tail -n 25 "$rb_log")"
    kill -KILL "$RB_PID" 2>/dev/null
  fi
  wait "$RB_PID" 2>/dev/null || rc=$?
  RB_PID=""
  ((rc == 0)) || finding "rowbridge exited with status $rc after SIGTERM" "$(tail -n 25 "$rb_log")"
  return "$rc"
}

# ---------------------------------------------------------------------------------------------
# The workload

declare -A LG_RUNS=()
LG_RESTARTS=0
lg_start() {
  local t="$1" n="${LG_RUNS[$1]:-0}"
  n=$((n + 1))
  LG_RUNS[$t]=$n
  local -a mix=(--update-percent 30 --delete-percent 10 -batchsize 15 -time_interval 250 -conn 2)
  [[ "$t" == victim ]] && mix=(--update-percent 20 --delete-percent 5 -batchsize 2 -time_interval 1000 -conn 1)
  loadgen -table "$t" "${mix[@]}" --duration "$((duration + 600))" \
    --seed "$((seed % 100000 * 100 + n))" --report-every 5 >"$work/loadgen-$t.$n.log" 2>&1 &
  LG_PID[$t]=$!
}
# Restarts each loadgen that exited (a source restart or a killed connection ends it).
lg_supervise() {
  local t rc
  for t in "${!LG_PID[@]}"; do
    alive "${LG_PID[$t]}" && continue
    rc=0
    wait "${LG_PID[$t]}" 2>/dev/null || rc=$?
    LG_RESTARTS=$((LG_RESTARTS + 1))
    echo "loadgen $t run ${LG_RUNS[$t]} ended with status $rc: $(grep -v '^progress' "$work/loadgen-$t.${LG_RUNS[$t]}.log" | tail -n 1)" >>"$work/workload.log"
    lg_start "$t"
  done
}

# ---------------------------------------------------------------------------------------------
# Faults

declare -A FAULTS=()
count() { FAULTS[$1]=$((${FAULTS[$1]:-0} + 1)); }

restart_source() {
  "${TS[@]}" start --no-clickhouse "$servers" >>"$work/servers.log" 2>&1 ||
    { tail -n 20 "$work/servers.log" >&2; die "the source did not restart"; }
  load_env
}
restart_clickhouse() {
  "${TS[@]}" start --no-mariadb "$servers" >>"$work/servers.log" 2>&1 ||
    { tail -n 20 "$work/servers.log" >&2; die "ClickHouse did not restart"; }
  load_env
}

fault_rowbridge_kill9() {
  alive "$RB_PID" || return 0
  say "fault: kill -9 rowbridge (pid $RB_PID)"
  kill -KILL "$RB_PID"
  wait "$RB_PID" 2>/dev/null
  count "rowbridge kill -9"
  rb_start
}
fault_rowbridge_sigstop() {
  alive "$RB_PID" || return 0
  local seconds=$((2 + RANDOM % 7))
  say "fault: SIGSTOP rowbridge for ${seconds}s"
  kill -STOP "$RB_PID"
  sleep "$seconds"
  kill -CONT "$RB_PID"
  count "rowbridge SIGSTOP/SIGCONT"
}
fault_source_stop() {
  local how="$1" down=$((1 + RANDOM % 4))
  say "fault: source $how, down ${down}s"
  local -a kill=()
  [[ "$how" == KILL ]] && kill=(--kill)
  "${TS[@]}" stop "${kill[@]}" --only=mariadb "$servers" >>"$work/servers.log" 2>&1
  sleep "$down"
  restart_source
  count "source $how + restart"
}
fault_clickhouse_stop() {
  local how="$1" down=$((1 + RANDOM % 4))
  say "fault: ClickHouse $how, down ${down}s"
  local -a kill=()
  [[ "$how" == KILL ]] && kill=(--kill)
  "${TS[@]}" stop "${kill[@]}" --only=clickhouse "$servers" >>"$work/servers.log" 2>&1
  sleep "$down"
  restart_clickhouse
  count "ClickHouse $how + restart"
}
fault_kill_dump_thread() {
  local ids="" i id
  for ((i = 0; i < 10; i++)); do
    ids="$(src_sql -N -e "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'" 2>/dev/null)"
    [[ -n "$ids" ]] && break
    sleep 0.3
  done
  if [[ -z "$ids" ]]; then
    say "fault: KILL the dump thread: none found (rowbridge is reconnecting); skipped"
    return 0
  fi
  for id in $ids; do
    say "fault: KILL $id (the dump thread on the source)"
    src_sql -e "KILL $id" 2>/dev/null
  done
  count "dump thread KILLed on the source"
}
fault_rotate() {
  say "fault: FLUSH BINARY LOGS"
  src_sql -e "FLUSH BINARY LOGS" && count "binlog rotation"
}
fault_stall() {
  local route="$1" seconds=$((2 + RANDOM % 11))
  say "fault: network to $route stalled for ${seconds}s"
  proxy stall "$route" "$seconds" >/dev/null
  count "network stall: $route"
  # Nothing else happens meanwhile (tcp_proxy.py says why).
  sleep "$seconds"
}
fault_drop() {
  local route="$1" reply
  reply="$(proxy drop "$route")"
  say "fault: network to $route dropped (${reply#ok } connections reset)"
  count "network drop: $route"
}
fault_statement_dml_unmatched() {
  local k=$((RANDOM % 7))
  say "fault: statement-logged DML on soak.noise (no rule matches it)"
  src_sql -e "SET SESSION binlog_format=STATEMENT;
    INSERT INTO soak.noise (v, n) VALUES ('stmt-$k', $k);
    UPDATE soak.noise SET n = n + 1 WHERE id % 7 = $k;
    DELETE FROM soak.noise WHERE id % 11 = $k AND id > 3;" >>"$work/workload.log" 2>&1 &&
    count "statement-logged DML on an unmatched table"
}

# The victim's statement DML: the table must be stopped with a message in the log and /status.
STMT_LOG="no" STMT_STATUS="no" STMT_DONE=0 STMT_MESSAGE=""
victim_status() {
  http_get /status | python3 -c '
import json, sys
for t in json.load(sys.stdin).get("tables", []):
    if t["source"] == {"database": "soak", "table": "victim"} and t.get("last_error"):
        print(t["last_error"]["message"])' 2>/dev/null
}
statement_dml_on_matched_table() {
  STMT_DONE=1
  say "statement-logged INSERT into soak.victim (replicated): it must stop that table"
  src_sql -e "SET SESSION binlog_format=STATEMENT;
    INSERT INTO soak.victim (v, n) VALUES ('statement-logged', 42);" ||
    { finding "the statement-logged INSERT into soak.victim failed"; return; }
  local deadline=$((SECONDS + 120)) line message
  while ((SECONDS < deadline)); do
    rb_supervise
    lg_supervise
    if [[ "$STMT_LOG" == no ]]; then
      line="$(grep -m1 'stopped replicating soak.victim:' "$rb_log")" && {
        STMT_LOG=yes
        STMT_MESSAGE="${line#*stopped replicating }"
        say "log: ${line:0:300}"
      }
    fi
    if [[ "$STMT_LOG" == yes ]]; then
      message="$(victim_status)"
      if [[ "$message" == *statement* ]]; then
        STMT_STATUS=yes
        say "/status: soak.victim last_error: ${message:0:200}"
        return
      fi
    fi
    sleep 1
  done
  finding "statement-logged DML on soak.victim: stopped-table message in the log: $STMT_LOG, in /status: $STMT_STATUS (after 120 s)"
}

FAULT_KINDS=(rowbridge_kill9 rowbridge_kill9 rowbridge_kill9 rowbridge_sigstop rowbridge_sigstop
  source_term source_kill clickhouse_term clickhouse_kill kill_dump_thread kill_dump_thread
  rotate rotate stall_source stall_clickhouse drop_source drop_source drop_clickhouse
  drop_clickhouse statement_dml_unmatched)
inject_fault() {
  case "${FAULT_KINDS[RANDOM % ${#FAULT_KINDS[@]}]}" in
    rowbridge_kill9) fault_rowbridge_kill9 ;;
    rowbridge_sigstop) fault_rowbridge_sigstop ;;
    source_term) fault_source_stop TERM ;;
    source_kill) fault_source_stop KILL ;;
    clickhouse_term) fault_clickhouse_stop TERM ;;
    clickhouse_kill) fault_clickhouse_stop KILL ;;
    kill_dump_thread) fault_kill_dump_thread ;;
    rotate) fault_rotate ;;
    stall_source) fault_stall source ;;
    stall_clickhouse) fault_stall clickhouse ;;
    drop_source) fault_drop source ;;
    drop_clickhouse) fault_drop clickhouse ;;
    statement_dml_unmatched) fault_statement_dml_unmatched ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# The soak

say "rowbridge run -c $config (admin port $http_port, server_id $server_id)"
rb_start
for t in "${TABLES[@]}" victim; do lg_start "$t"; done
T_FAULTS=$SECONDS
T_END=$((SECONDS + duration))
next_fault=$((SECONDS + 2))
next_key_change=$((SECONDS + 3))
# Once the initial copy is done (a statement before the copy's end is in the copy) and a while
# into the run, so that faults come before and after it.
stmt_at=$((SECONDS + duration * 2 / 5))
while ((SECONDS < T_END)); do
  rb_supervise
  lg_supervise
  if ((SECONDS >= next_key_change)); then
    key_change
    next_key_change=$((SECONDS + 2 + RANDOM % 4))
  fi
  if ((!STMT_DONE && SECONDS >= stmt_at)) && grep -q 'initial copy done' "$rb_log"; then
    statement_dml_on_matched_table
  elif ((SECONDS >= next_fault)); then
    inject_fault
    next_fault=$((SECONDS + 2 + RANDOM % 5))
  fi
  sleep 0.5
done
((STMT_DONE)) || {
  grep -q 'initial copy done' "$rb_log" || finding "the initial copy never finished"
  statement_dml_on_matched_table
}
total_faults=0
for k in "${!FAULTS[@]}"; do total_faults=$((total_faults + FAULTS[$k])); done
say "faults done: $total_faults in $((SECONDS - T_FAULTS))s; stopping the workload"

# ---------------------------------------------------------------------------------------------
# The end: catch up, stop, check, compare

proxy resume >/dev/null
proxy_stats="$(proxy stats)"
for t in "${!LG_PID[@]}"; do kill -TERM "${LG_PID[$t]}" 2>/dev/null; done
for t in "${!LG_PID[@]}"; do wait "${LG_PID[$t]}" 2>/dev/null; done
LG_PID=()
src_sql -e "INSERT INTO soak_marker.m VALUES ()" || die "the marker transaction failed"
read -r end_file end_pos < <(binlog_end)
[[ -n "${end_file:-}" ]] || die "cannot read the source's binlog position"
say "waiting until rowbridge's checkpoint reaches $end_file:$end_pos"
saved_checkpoint() {
  ch_sql -q "SELECT checkpoint FROM soak.rowbridge_state FINAL WHERE job = '$server_id' FORMAT TSVRaw" \
    2>/dev/null | python3 -c '
import json, sys
text = sys.stdin.read().strip()
if text:
    c = json.loads(text)
    print(c["file"], c["position"])' 2>/dev/null
}
caught_up=0 checkpoint=""
catchup_deadline=$((SECONDS + 300))
while ((SECONDS < catchup_deadline)); do
  rb_supervise
  checkpoint="$(saved_checkpoint)"
  if [[ -n "$checkpoint" ]]; then
    read -r cp_file cp_pos <<<"$checkpoint"
    if [[ "$cp_file" > "$end_file" ]] || [[ "$cp_file" == "$end_file" && "$cp_pos" -ge "$end_pos" ]]; then
      caught_up=1
      break
    fi
  fi
  sleep 1
done
if ((caught_up)); then
  say "caught up: checkpoint $checkpoint"
else
  finding "rowbridge did not catch up within 300 s: checkpoint '${checkpoint:-none}', binlog end $end_file:$end_pos" \
    "$(tail -n 25 "$rb_log")"
fi

stopped_tables="$(http_get /metrics | awk '$1 == "rowbridge_stopped_tables" {print $2}')"
final_status_message="$(victim_status)"
[[ "${stopped_tables%.*}" == 1 ]] ||
  finding "rowbridge_stopped_tables is '${stopped_tables:-unreadable}' at the end, expected 1 (soak.victim)" \
    "$(grep -E 'stopped replicating|stays stopped' "$rb_log" | sort | uniq -c | head -n 10)"
rb_stop_clean
say "rowbridge stopped cleanly"

compared=()
for t in "${TABLES[@]}"; do compared+=(--table "soak.$t"); done
check_rc=0
SOAK_SOURCE_PASSWORD="$ROWBRIDGE_TEST_MYSQL_REPL_PASSWORD" "$build/rowbridge" check -c "$config" \
  "${compared[@]}" >"$work/check.log" 2>&1 || check_rc=$?
if ((check_rc == 0)); then
  say "rowbridge check: $(tail -n 1 "$work/check.log")"
else
  finding "rowbridge check exited with status $check_rc" "$(tail -n 40 "$work/check.log")"
fi

# The independent comparison.
src_expr() {
  local name="${1%%:*}" how="${1##*:}"
  case "$how" in
    n) echo "COALESCE(CAST(\`$name\` AS CHAR), 'NULL')" ;;
    s) echo "COALESCE(HEX(\`$name\`), 'NULL')" ;;
    t) echo "COALESCE(DATE_FORMAT(\`$name\`, '%Y-%m-%d %H:%i:%s'), 'NULL')" ;;
    d) echo "COALESCE(CAST(DATEDIFF(\`$name\`, '1970-01-01') AS CHAR), 'NULL')" ;;
  esac
}
ch_expr() {
  local name="${1%%:*}" how="${1##*:}"
  case "$how" in
    n | t) echo "ifNull(toString(\`$name\`), 'NULL')" ;;
    s) echo "ifNull(hex(\`$name\`), 'NULL')" ;;
    d) echo "ifNull(toString(toUInt16(\`$name\`)), 'NULL')" ;;
  esac
}
total_differences=0
declare -A ROWS=() DIFFS=() DUPS=()
for t in "${TABLES[@]}"; do
  src_cols="" ch_cols=""
  for c in ${COLS[$t]}; do
    src_cols+="${src_cols:+, }$(src_expr "$c")"
    ch_cols+="${ch_cols:+, '|', }$(ch_expr "$c")"
  done
  src_sql -N -e "SELECT CONCAT_WS('|', $src_cols) FROM soak.$t ORDER BY id" >"$work/compare-$t.source" ||
    die "cannot dump soak.$t from the source"
  if [[ "${MODE[$t]}" == replica ]]; then
    query="SELECT concat($ch_cols) FROM soak.$t FINAL WHERE _is_deleted = 0 ORDER BY id FORMAT TSVRaw"
  else
    query="SELECT concat($ch_cols) FROM soak.$t WHERE (id, _version) IN
      (SELECT id, max(_version) FROM soak.$t GROUP BY id) AND _event_type != 'delete' ORDER BY id FORMAT TSVRaw"
    # A change is one row, except a key change: a 'delete' of the old key and an 'insert' of the
    # new one, with one version. So each (version, key) is there once, or a change is twice.
    read -r changes distinct < <(ch_sql -q "SELECT count(), uniqExact(_version, id) FROM soak.$t FORMAT TSV")
    DUPS[$t]=$((changes - distinct))
    ((DUPS[$t] == 0)) || finding "soak.$t: $changes changes but $distinct distinct (version, key) pairs: $((changes - distinct)) changes are there twice"
  fi
  ch_sql -q "$query" >"$work/compare-$t.target" || die "cannot dump soak.$t from ClickHouse"
  ROWS[$t]=$(wc -l <"$work/compare-$t.source")
  diff "$work/compare-$t.source" "$work/compare-$t.target" >"$work/compare-$t.diff"
  DIFFS[$t]=$(grep -c '^[<>]' "$work/compare-$t.diff")
  total_differences=$((total_differences + DIFFS[$t] + ${DUPS[$t]:-0}))
  ((DIFFS[$t] == 0)) || finding "soak.$t differs: ${DIFFS[$t]} lines (< source, > ClickHouse), first ones:" \
    "$(grep '^[<>]' "$work/compare-$t.diff" | head -n 10)"
done

# Nothing may have written to the source since the marker: the comparison would not be fair.
# MariaDB writes a Binlog_checkpoint event of its own some time after a rotation (once the older
# file's transactions are durable): that carries no change, so it alone is not a write.
read -r after_file after_pos < <(binlog_end)
if [[ "$after_file $after_pos" != "$end_file $end_pos" ]]; then
  written=""
  if [[ "$after_file" == "$end_file" ]]; then
    written=$(src_sql -N -e "SHOW BINLOG EVENTS IN '$end_file' FROM $end_pos" |
      awk -F'\t' '$3 != "Binlog_checkpoint" {print $3}' | sort | uniq -c | xargs)
  else
    written="another binlog file"
  fi
  [[ -z "$written" ]] ||
    finding "the source's binlog moved from $end_file:$end_pos to $after_file:$after_pos during the checks ($written): something still wrote to it (a soak bug)"
fi

# ---------------------------------------------------------------------------------------------
# The report

loadgen_totals() {
  local f
  for f in "$work"/loadgen-*.log; do
    grep -E '^(progress|DONE) ' "$f" | tail -n 1
  done | awk '{for (i = 1; i <= NF; i++) {split($i, kv, "="); if (kv[1] in want) s[kv[1]] += kv[2]}}
    BEGIN {want["inserted"]; want["updated"]; want["deleted"]}
    END {printf "%d inserted, %d updated, %d deleted", s["inserted"], s["updated"], s["deleted"]}'
}
verdict=PASS
if ((total_differences != 0 || check_rc != 0 || UNEXPECTED_EXITS != 0)) || [[ -s "$findings_file" ]]; then
  verdict=FAIL
fi
{
  echo "rowbridge fault-injection soak (tests/soak/soak.sh)"
  echo "  seed $seed, faults for ${duration}s ($((SECONDS - T0))s in all), source $ROWBRIDGE_TEST_MYSQL_VERSION ($source_flavor), ClickHouse $(ch_sql -q 'SELECT version()' 2>/dev/null)"
  echo "  build $build"
  echo
  echo "faults injected: $total_faults"
  for k in "${!FAULTS[@]}"; do printf '  %-46s %5d\n' "$k" "${FAULTS[$k]}"; done | sort
  echo "  (plus once: statement-logged INSERT into soak.victim, a replicated table)"
  echo
  echo "workload: rowbridge-loadgen $(loadgen_totals) rows (after $preload_rows preloaded rows per table);"
  echo "  $LG_RESTARTS loadgen restarts after source faults; $KEY_CHANGES UPDATEs changing primary keys"
  echo "rowbridge: $RB_STARTS starts, $UNEXPECTED_EXITS exits the soak did not cause"
  echo "proxy: ${proxy_stats#ok }"
  echo "statement DML on soak.victim: stopped with a message in the log: $STMT_LOG, in /status: $STMT_STATUS"
  [[ -n "$STMT_MESSAGE" ]] && echo "  ${STMT_MESSAGE:0:400}"
  echo "  at the end (after restarts): rowbridge_stopped_tables ${stopped_tables:-?}; /status last_error of soak.victim: $([[ -n "$final_status_message" ]] && echo shown || echo none)"
  echo "  soak.victim is left out of the comparison"
  echo "caught up: $([[ $caught_up == 1 ]] && echo "yes, checkpoint $checkpoint" || echo NO)"
  echo "rowbridge check: exit status $check_rc: $(tail -n 1 "$work/check.log")"
  echo
  echo "independent comparison (source vs ClickHouse, row for row):"
  printf '  %-16s %-9s %10s %12s %16s\n' table mode rows differences "changes twice"
  for t in "${TABLES[@]}"; do
    printf '  %-16s %-9s %10d %12d %16s\n' "soak.$t" "${MODE[$t]}" "${ROWS[$t]}" "${DIFFS[$t]}" \
      "$([[ ${MODE[$t]} == changelog ]] && echo "${DUPS[$t]}" || echo -)"
  done
  echo "differences: $total_differences"
  echo
  if [[ -s "$findings_file" ]]; then
    echo "findings:"
    cat "$findings_file"
  else
    echo "findings: none"
  fi
  echo
  echo "RESULT: $verdict"
} >"$summary"
cat "$summary"
[[ "$verdict" == PASS ]] || { FAILED=1; exit 1; }
exit 0
