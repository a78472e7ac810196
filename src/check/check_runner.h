// `rowbridge check`: every source table a rule of the config matches is compared with its target
// table (table_check.h); tables merged into one target are compared together. Prints one line
// per target and the listed differences, then a summary.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/retry.h"
#include "config/config.h"

namespace rowbridge::check {

// From 1 s, doubling up to 10 s, at most 2 minutes per table.
RetryPolicy CheckRetryPolicy();

struct CheckOptions {
  uint64_t chunk_rows = 10000;  // source rows per checksummed key range
  size_t max_listed = 20;       // differences listed per table
  // Only these source tables ("db.table"); empty = every matched table.
  std::vector<std::string> only_tables;
  // A transient error (too many connections, a lock wait timeout, ClickHouse busy, the network)
  // while listing the tables or checking one is retried after a backoff on new connections; the
  // table's check starts over. A permanent error is reported at once.
  RetryPolicy retry = CheckRetryPolicy();
  // Set: gets one source table ("db.table") of each target found different.
  std::vector<std::string>* different = nullptr;
};

enum class CheckOutcome { kEqual = 0, kDifferent = 1, kError = 2 };

// Never throws: an error (bad connection, missing table) is printed to `out` and makes the
// outcome kError; the remaining tables are still checked when the connections are usable.
CheckOutcome RunCheck(const config::Config& config, const CheckOptions& options, std::FILE* out);

}  // namespace rowbridge::check
