#!/usr/bin/env bash
# The three ways rowbridge could write into a ClickHouse cluster, side by side on one throwaway
# cluster (tests/servers/testservers.sh --cluster: shard 1 = node1, shard 2 = node2 + node3), in
# paired rounds whose order alternates; prints the median and range of each way's wall time.
#
#   bench/cluster_insert.sh [--rounds N] [--inserts K] [--rows R]
#
# Each round writes K inserts of R rows (id, a string of about 40 bytes, a version) of a
# ReplicatedReplacingMergeTree table through node1, as rowbridge's writers send batches:
#   async   INSERT into the Distributed table, insert_distributed_sync=0 (ClickHouse's default):
#           timed until every row is in its shard's local table (the Distributed table queues the
#           rows on node1 and sends them in the background)
#   sync    the same with insert_distributed_sync=1 (what rowbridge sends): timed until the last
#           INSERT returns, when every row is on its shard
#   direct  each insert split by the sharding key and sent to each shard's local table (node1,
#           node2) at once: what writing to the shards ourselves would cost at best (the split is
#           done by the servers here, not by the client)
# The K inserts of a way run in one clickhouse-client session (--multiquery), so its start-up is
# paid once per round; the table is truncated on every node between runs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=5
inserts=100
rows=1000
while (($#)); do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --inserts) inserts="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--inserts K] [--rows R]" >&2; exit 2 ;;
  esac
done

dir="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-bench-cluster.XXXXXX")"
trap 'bash "$ROOT/tests/servers/testservers.sh" stop --remove "$dir" >/dev/null 2>&1 || true' EXIT
bash "$ROOT/tests/servers/testservers.sh" start --no-mariadb --no-clickhouse --cluster \
  --owner-pid=$$ "$dir" >&2
eval "$(bash "$ROOT/tests/servers/testservers.sh" env "$dir")"
ports=("$ROWBRIDGE_TEST_CLUSTER_NODE1_PORT" "$ROWBRIDGE_TEST_CLUSTER_NODE2_PORT"
  "$ROWBRIDGE_TEST_CLUSTER_NODE3_PORT")
cluster="$ROWBRIDGE_TEST_CLUSTER_NAME"
ch() {
  local port="$1"
  shift
  clickhouse-client --host 127.0.0.1 --port "$port" --multiquery "$@"
}

ch "${ports[0]}" -q "
CREATE DATABASE bench ON CLUSTER $cluster;
CREATE TABLE bench.t_local ON CLUSTER $cluster (id UInt64, s String, _version UInt64)
  ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/bench/t_local', '{replica}',
  _version) ORDER BY id;
CREATE TABLE bench.t ON CLUSTER $cluster AS bench.t_local
  ENGINE = Distributed($cluster, bench, t_local, cityHash64(id))" >/dev/null

# The INSERTs of one run: K statements of R rows each, ids continuing across statements.
statements() {
  local into="$1" where="$2" k
  for ((k = 0; k < inserts; k++)); do
    printf 'INSERT INTO %s SELECT number, concat(toString(number), %s), 1 FROM numbers(%d, %d)%s;\n' \
      "$into" "'-abcdefghijklmnopqrstuvwxyz0123456789'" $((k * rows)) "$rows" "$where"
  done
}

total=$((inserts * rows))
shard_rows() {  # rows in the local tables of shard 1 (node1) and shard 2 (node2)
  echo $(($(ch "${ports[0]}" -q "SELECT count() FROM bench.t_local") + \
    $(ch "${ports[1]}" -q "SELECT count() FROM bench.t_local")))
}
truncate_all() {
  ch "${ports[0]}" -q "TRUNCATE TABLE bench.t_local ON CLUSTER $cluster" >/dev/null
}

run_way() {
  local way="$1" t0 t1
  truncate_all
  t0="$(date +%s.%N)"
  case "$way" in
    async)
      statements bench.t "" | ch "${ports[0]}" --insert_distributed_sync=0
      while (($(shard_rows) < total)); do sleep 0.01; done
      ;;
    sync)
      statements bench.t "" | ch "${ports[0]}" --insert_distributed_sync=1
      ;;
    direct)
      # The Distributed table sends a row to shard (cityHash64(id) % 2) + 1.
      statements bench.t_local " WHERE cityHash64(number) % 2 = 0" | ch "${ports[0]}" &
      statements bench.t_local " WHERE cityHash64(number) % 2 = 1" | ch "${ports[1]}"
      wait
      ;;
  esac
  t1="$(date +%s.%N)"
  local got
  got="$(shard_rows)"
  ((got == total)) || { echo "$way: $got rows on the shards, expected $total" >&2; exit 1; }
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'
}

declare -A times=()
ways=(async sync direct)
for ((r = 0; r < rounds; r++)); do
  order=("${ways[@]}")
  ((r % 2)) && order=(direct sync async)
  for way in "${order[@]}"; do
    s="$(run_way "$way")"
    times[$way]+="$s "
    echo "round $((r + 1)) $way: ${s}s" >&2
  done
done

echo "cluster inserts: $rounds rounds of $inserts inserts x $rows rows through node1"
printf '%-8s %10s %22s %14s\n' way median_s range_s rows_per_s
for way in "${ways[@]}"; do
  # shellcheck disable=SC2086
  read -r median lo hi < <(printf '%s\n' ${times[$way]} | sort -n |
    awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; print m, v[1], v[NR]}')
  printf '%-8s %10.3f %10.3f-%-10.3f %14.0f\n' "$way" "$median" "$lo" "$hi" \
    "$(echo "$total $median" | awk '{print $1 / $2}')"
done
