#!/usr/bin/env bash
# rowbridge's binlog decoder against `mariadb-binlog -v` on the same file of seed rows, side by
# side in one run, and prints a results table (medians of several rounds, and ratios).
#
#   bench/decoder_vs_mariadb_binlog.sh [--rounds N] [--build DIR]
#
# Each round runs, one after the other so they never compete for a core:
#   1. rowbridge_bench BM_SeedBinlogDecode: frame + CRC32 + rows + every cell through its typed
#      decoder, file in memory (rows/s per CPU-second of its one thread);
#   2. rowbridge dump-binlog --format=mysqlbinlog FILE > /dev/null: the same work as the baseline
#      (decode and print every row as `###` lines), reading the file;
#   3. mariadb-binlog -v --base64-output=decode-rows FILE > /dev/null: the baseline.
# For 2 and 3 the wall time and the CPU time (user+sys) of the process are measured with
# /usr/bin/time; rows/s is rows / wall time, rows per CPU-second is rows / CPU time.
#
# The seed binlog comes from bench/make_seed_binlog.sh, cached as seed_binlog.h describes
# (ROWBRIDGE_BENCH_SEED_BINLOG / ROWBRIDGE_BENCH_SEED_ROWS are honoured).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=5
build="$ROOT/build/rel"
while (($#)); do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --rounds=*) rounds="${1#*=}"; shift ;;
    --build) build="$2"; shift 2 ;;
    --build=*) build="${1#*=}"; shift ;;
    *) echo "usage: $0 [--rounds N] [--build DIR]" >&2; exit 2 ;;
  esac
done
build="$(cd "$build" && pwd)"
for bin in rowbridge_bench rowbridge rowbridge-loadgen; do
  [[ -x "$build/$bin" ]] || {
    echo "missing $build/$bin; build it: cmake -S . -B build/rel -G Ninja -DCMAKE_BUILD_TYPE=Release" \
      "-DROWBRIDGE_TESTS=OFF && cmake --build build/rel --target rowbridge_bench rowbridge rowbridge-loadgen" >&2
    exit 1
  }
done
command -v mariadb-binlog >/dev/null || { echo "mariadb-binlog not installed" >&2; exit 1; }

rows_env="${ROWBRIDGE_BENCH_SEED_ROWS:-500000}"
file="${ROWBRIDGE_BENCH_SEED_BINLOG:-$build/bench-data/seed_rows_${rows_env}.binlog}"
if [[ ! -f "$file" ]]; then
  bash "$ROOT/bench/make_seed_binlog.sh" --rows "$rows_env" --loadgen "$build/rowbridge-loadgen" "$file"
fi
export ROWBRIDGE_BENCH_SEED_BINLOG="$file"

work="$(mktemp -d "${TMPDIR:-/tmp}/rowbridge-decbench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Fields of the first benchmark in a Google Benchmark JSON file, space-separated.
bench_field() {
  python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
print(" ".join(str(b.get(k, "")) for k in sys.argv[2:]))' "$@"
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# Times a command whose stdout goes to /dev/null; appends "wall cpu" to $1.
timed() {
  local out="$1"
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null
  awk '{printf "%s %.3f\n", $1, $2 + $3}' "$work/time" >>"$out"
}

rows=""
for ((r = 1; r <= rounds; r++)); do
  echo "round $r/$rounds" >&2
  "$build/rowbridge_bench" --benchmark_filter='^BM_SeedBinlogDecode$' --benchmark_min_time=2 \
    --benchmark_format=json --benchmark_out="$work/bench_$r.json" --benchmark_out_format=json \
    >/dev/null 2>"$work/bench_$r.err" || { cat "$work/bench_$r.err" >&2; exit 1; }
  if [[ "$(bench_field "$work/bench_$r.json" error_occurred)" == "True" ]]; then
    bench_field "$work/bench_$r.json" error_message >&2
    exit 1
  fi
  bench_field "$work/bench_$r.json" rows_per_second MB_per_second allocs_per_row >>"$work/decoder"
  rows="$(bench_field "$work/bench_$r.json" rows_per_pass)"
  timed "$work/dump" "$build/rowbridge" dump-binlog --format=mysqlbinlog "$file"
  timed "$work/mariadb" mariadb-binlog -v --base64-output=decode-rows "$file"
done

bytes="$(stat -c %s "$file")"
dec_rps="$(cut -d' ' -f1 "$work/decoder" | median)"
dec_mbs="$(cut -d' ' -f2 "$work/decoder" | median)"
dec_allocs="$(cut -d' ' -f3 "$work/decoder" | sort -g | tail -1)"
dump_wall="$(cut -d' ' -f1 "$work/dump" | median)"
dump_cpu="$(cut -d' ' -f2 "$work/dump" | median)"
mdb_wall="$(cut -d' ' -f1 "$work/mariadb" | median)"
mdb_cpu="$(cut -d' ' -f2 "$work/mariadb" | median)"

awk -v rows="$rows" -v bytes="$bytes" -v rounds="$rounds" -v file="$file" \
  -v dec_rps="$dec_rps" -v dec_mbs="$dec_mbs" -v dec_allocs="$dec_allocs" \
  -v dump_wall="$dump_wall" -v dump_cpu="$dump_cpu" -v mdb_wall="$mdb_wall" -v mdb_cpu="$mdb_cpu" \
  -v loadavg="$(cut -d' ' -f1-3 /proc/loadavg)" -v cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" '
BEGIN {
  printf "\nbinlog: %s (%d rows of the seed table, %.1f MB)\n", file, rows, bytes / 1e6
  printf "cpu: %s; load average at the end: %s; medians of %d rounds\n\n", cpu, loadavg, rounds
  printf "| what | wall s | CPU s | rows/s (wall) | rows per CPU-second | MB per CPU-second |\n"
  printf "|---|---:|---:|---:|---:|---:|\n"
  printf "| rowbridge decoder (BM_SeedBinlogDecode, in memory, %s allocs/row) | | | | %.0f | %.1f |\n", dec_allocs, dec_rps, dec_mbs
  printf "| rowbridge dump-binlog --format=mysqlbinlog | %.2f | %.2f | %.0f | %.0f | %.1f |\n", dump_wall, dump_cpu, rows / dump_wall, rows / dump_cpu, bytes / 1e6 / dump_cpu
  printf "| mariadb-binlog -v --base64-output=decode-rows | %.2f | %.2f | %.0f | %.0f | %.1f |\n", mdb_wall, mdb_cpu, rows / mdb_wall, rows / mdb_cpu, bytes / 1e6 / mdb_cpu
  printf "\nratios (per CPU-second): decoder / mariadb-binlog = %.1fx; dump-binlog / mariadb-binlog = %.1fx\n", dec_rps / (rows / mdb_cpu), (rows / dump_cpu) / (rows / mdb_cpu)
  printf "target: decoder >= 2,000,000 rows/s on one core: %s\n", dec_rps >= 2000000 ? "met" : "NOT met"
}'
