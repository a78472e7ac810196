// The binlog the benchmarks decode: rows of the seed table (tests/data/seed/mysql_schema.sql,
// 30 columns) written by a real MariaDB, made once by bench/make_seed_binlog.sh and cached.
//
// Where it lives: $ROWBRIDGE_BENCH_SEED_BINLOG if set (generated there if the file is missing),
// else <directory of the benchmark binary>/bench-data/seed_rows_<N>.binlog, N being
// $ROWBRIDGE_BENCH_SEED_ROWS (default 500000). Generating needs rowbridge-loadgen next to the
// benchmark binary (or $ROWBRIDGE_LOADGEN) and the Debian MariaDB server; it takes a minute.
#pragma once

#include <string>

namespace rowbridge::bench {

struct SeedBinlog {
  std::string path;
  std::string bytes;  // the whole file; empty when `error` is set
  std::string error;  // why there is no file (benchmarks report it with SkipWithError)
};

// Loads (generating first if needed) the seed binlog once per process; later calls return the
// same object.
const SeedBinlog& LoadSeedBinlog();

}  // namespace rowbridge::bench
