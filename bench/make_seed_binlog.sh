#!/usr/bin/env bash
# Writes a binlog file holding N rows of the seed table (tests/data/seed/mysql_schema.sql,
# 30 columns), inserted by rowbridge-loadgen with the seed's insertDataTest flags into a
# throwaway MariaDB started by tests/servers/testservers.sh. The benchmarks decode it.
#
#   bench/make_seed_binlog.sh [--rows N] [--loadgen PATH] [--row-metadata MINIMAL|FULL] OUTPUT
#
# OUTPUT receives one complete binlog file (FORMAT_DESCRIPTION first) that contains the CREATE
# TABLE and every inserted row and nothing else of note. The server is stopped and its directory
# removed at the end, also on failure. Written atomically: OUTPUT appears only when complete.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rows=500000
loadgen=""
row_metadata=FULL
out=""
while (($#)); do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --rows=*) rows="${1#*=}"; shift ;;
    --loadgen) loadgen="$2"; shift 2 ;;
    --loadgen=*) loadgen="${1#*=}"; shift ;;
    --row-metadata) row_metadata="$2"; shift 2 ;;
    --row-metadata=*) row_metadata="${1#*=}"; shift ;;
    -*) echo "make_seed_binlog: unknown option $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[[ -n "$out" ]] || { echo "usage: make_seed_binlog.sh [--rows N] [--loadgen PATH] OUTPUT" >&2; exit 2; }
if [[ -z "$loadgen" ]]; then
  for candidate in "$ROOT/build/rel/rowbridge-loadgen" "$ROOT/build/release/rowbridge-loadgen" \
    "$(command -v rowbridge-loadgen || true)"; do
    [[ -n "$candidate" && -x "$candidate" ]] && { loadgen="$candidate"; break; }
  done
fi
[[ -x "$loadgen" ]] || { echo "make_seed_binlog: rowbridge-loadgen not found (--loadgen PATH)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-seedbinlog.XXXXXX")"
cleanup() {
  bash "$ROOT/tests/servers/testservers.sh" stop --remove "$work/servers" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "make_seed_binlog: starting a throwaway MariaDB in $work" >&2
bash "$ROOT/tests/servers/testservers.sh" start --no-clickhouse --owner-pid=$$ \
  --mariadb-opt=--binlog-row-metadata="$row_metadata" "$work/servers" >&2
eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$work/servers")"
sql() { bash "$ROOT/tests/servers/testservers.sh" mariadb "$work/servers" "$@"; }

# A fresh binlog file for our rows only.
sql -e "FLUSH BINARY LOGS"
file="$(sql -N -e "SHOW MASTER STATUS" | cut -f1)"
sql <"$ROOT/tests/data/seed/mysql_schema.sql"
echo "make_seed_binlog: inserting $rows seed rows with $loadgen" >&2
# The seed's insertDataTest flags; no pause between statements: we want the rows, not a rate.
"$loadgen" -host 127.0.0.1 -port "$ROWBRIDGE_TEST_MYSQL_PORT" -user "$ROWBRIDGE_TEST_MYSQL_USER" \
  -pwd "$ROWBRIDGE_TEST_MYSQL_PASSWORD" -schema bifrost_test -table binlog_field_test_1 \
  -count "$rows" -batchsize 1000 -conn 2 -time_interval 0 --report-every 5 >&2
sql -e "FLUSH BINARY LOGS"
inserted="$(sql -N -e "SELECT COUNT(*) FROM bifrost_test.binlog_field_test_1")"
[[ "$inserted" == "$rows" ]] || { echo "make_seed_binlog: table holds $inserted rows, wanted $rows" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
cp "$ROWBRIDGE_TEST_MYSQL_DATADIR/$file" "$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
echo "make_seed_binlog: wrote $out ($(stat -c %s "$out") bytes, $rows rows, binlog $file)" >&2
