#!/usr/bin/env bash
# What one table's copy costs the source server (MariaDB) by access path, as server CPU seconds
# (/proc/PID/stat) for reading every row of the seed table (tests/data/seed/mysql_schema.sql):
# a full scan (`SELECT *`, what ClickHouse's mysql() sends), the copy's keyset reads
# (`FORCE INDEX(PRIMARY) WHERE id > last ORDER BY id LIMIT n`), key ranges without ORDER BY
# (default optimizer; with rowid-ordered multi-range reads), the key-only scans that find a read's
# end, and one full scan that sends nothing. Once with the seed's engine (MyISAM), once InnoDB.
# Rows are made with the SEQUENCE engine (strings of 0-31 bytes), not rowbridge-loadgen: the point
# is the access path, not the values. Text protocol (the mariadb client): the copy's binary
# protocol costs the server the same or less.
#
#   bench/source_read_cost.sh SERVERS_DIR [ROWS] [ROWS_PER_READ]
#     SERVERS_DIR    a running tests/servers/testservers.sh directory (its MariaDB is used; the
#                    database bench_read_cost is created and dropped)
#     ROWS           rows of the table (default 333333: one of bench/full.sh's three tables)
#     ROWS_PER_READ  rows per keyset read (default 13000: about the copy's 2.7 MiB reads)
set -euo pipefail
dir="${1:?usage: bench/source_read_cost.sh SERVERS_DIR [ROWS] [ROWS_PER_READ]}"
rows="${2:-333333}" step="${3:-13000}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
eval "$(bash "$root/tests/servers/testservers.sh" env "$dir")"
pid="$ROWBRIDGE_TEST_MYSQL_PID"
sql() {
  mariadb -h "$ROWBRIDGE_TEST_MYSQL_HOST" -P "$ROWBRIDGE_TEST_MYSQL_PORT" -u "$ROWBRIDGE_TEST_MYSQL_USER" \
    -p"$ROWBRIDGE_TEST_MYSQL_PASSWORD" bench_read_cost "$@"
}
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz="$(getconf CLK_TCK)"
work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-readcost.XXXXXX")"
trap 'rm -f "$work"/*.sql; rmdir "$work"' EXIT

# statements MODE: the SQL of one way of reading the whole table.
statements() {
  local x
  case "$1" in
    full) echo "SELECT * FROM t;" ;;
    count) echo "SELECT COUNT(*) FROM t IGNORE INDEX(PRIMARY) WHERE id > 1000 AND id <= $((1000 + step));" ;;
    keyset | range | mrr | keyonly)
      [[ "$1" == mrr ]] &&
        echo "SET SESSION optimizer_switch='mrr=on,mrr_sort_keys=on,mrr_cost_based=off', mrr_buffer_size=4194304;"
      for ((x = 0; x < rows; x += step)); do
        case "$1" in
          keyset) echo "SELECT * FROM t FORCE INDEX(PRIMARY) WHERE id > $x ORDER BY id LIMIT $step;" ;;
          range | mrr) echo "SELECT * FROM t WHERE id > $x AND id <= $((x + step));" ;;
          keyonly) echo "SELECT id FROM t FORCE INDEX(PRIMARY) WHERE id > $x ORDER BY id LIMIT 1 OFFSET $((step - 1));" ;;
        esac
      done
      ;;
  esac
}

mariadb -h "$ROWBRIDGE_TEST_MYSQL_HOST" -P "$ROWBRIDGE_TEST_MYSQL_PORT" -u "$ROWBRIDGE_TEST_MYSQL_USER" \
  -p"$ROWBRIDGE_TEST_MYSQL_PASSWORD" -e "DROP DATABASE IF EXISTS bench_read_cost; CREATE DATABASE bench_read_cost"
echo "| engine | reads | statements | server CPU s | wall s |"
echo "|---|---|---:|---:|---:|"
for engine in MyISAM InnoDB; do
  sed -n '/CREATE TABLE/,/ENGINE=/p' "$root/tests/data/seed/mysql_schema.sql" |
    sed "s/binlog_field_test_1/t/; s/ENGINE=MyISAM/ENGINE=$engine/" | { echo "DROP TABLE IF EXISTS t;"; cat; } | sql
  sql -e "INSERT INTO t (id, testvarchar, testchar, testtext, testblob, testmediumblob, testlongblob,
      testtinyblob, testint, testbigint, testdatetime, testdecimal, testdouble)
    SELECT seq, LEFT(MD5(seq), seq % 32), 'ab', LEFT(SHA1(seq), seq % 29), LEFT(MD5(seq + 1), seq % 17),
      LEFT(MD5(seq + 2), seq % 23), LEFT(MD5(seq + 3), seq % 31), LEFT(MD5(seq + 4), seq % 13), seq * 7,
      seq * 1000003, FROM_UNIXTIME(seq), seq / 100, seq / 7 FROM seq_1_to_$rows"
  statements full | sql >/dev/null # warm the page cache and the buffer pool
  for mode in full keyset range mrr keyonly count; do
    statements "$mode" >"$work/$mode.sql"
    t0="$(ticks)" w0="$(date +%s.%N)"
    sql <"$work/$mode.sql" >/dev/null
    t1="$(ticks)" w1="$(date +%s.%N)"
    awk -v e="$engine" -v m="$mode" -v n="$(grep -c '^SELECT' "$work/$mode.sql")" -v t="$((t1 - t0))" \
      -v hz="$hz" -v w0="$w0" -v w1="$w1" 'BEGIN { printf "| %s | %s | %d | %.2f | %.2f |\n", e, m, n, t / hz, w1 - w0 }'
  done
done
mariadb -h "$ROWBRIDGE_TEST_MYSQL_HOST" -P "$ROWBRIDGE_TEST_MYSQL_PORT" -u "$ROWBRIDGE_TEST_MYSQL_USER" \
  -p"$ROWBRIDGE_TEST_MYSQL_PASSWORD" -e "DROP DATABASE bench_read_cost"
