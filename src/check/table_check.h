// Compares one target table with the source table(s) replicated into it.
//
// 1. Row counts: source COUNT(*) against the target's current rows (replica: FINAL WHERE
//    is_deleted = 0; changelog: keys whose latest version is not a delete).
// 2. Checksums over primary-key ranges: when the first key column is an integer, the key space is
//    cut at every `chunk_rows`-th source key into ranges (lo, hi]; each range is read from both
//    sides (source: streamed SELECT; target: through our ClickHouse client), every row is
//    normalised (row_normalizer.h) and an order-independent checksum of the range is compared.
//    Other keys are checked as one range.
// 3. A range whose checksums differ is narrowed down to its keys: rows are matched by key and
//    every key missing in the target, extra in the target, or with different values is counted,
//    and the first `max_listed` are listed with the first differing columns.
// Memory is bounded by one range of rows per side.
//
// With a repairer (range_repair.h), each differing range is repaired in place after it is
// compared; the result still describes what the comparison found before the repair.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "check/range_repair.h"
#include "clickhouse/client.h"
#include "config/config.h"
#include "config/target_template.h"
#include "mapping/converter.h"
#include "mysql/connection.h"
#include "tables/replicated_table.h"

namespace rowbridge::check {

struct TableCheckSpec {
  // One, or several merged into one target, each with its rule and its columns known. The first
  // one's rule gives the mode, meta columns and replicated columns.
  std::vector<tables::ReplicatedTable> sources;
  config::QualifiedName target;
  mapping::ConverterSettings settings;  // the rule's conversion (TableResolver::PlanOptionsFor)
  uint64_t chunk_rows = 10000;
  size_t max_listed = 20;
  // Set: each range found different is repaired (range_repair.h) before the next is compared.
  RangeRepairer* repairer = nullptr;
  // Set: the check ends after the range it is in (TableCheckResult::stopped).
  const std::atomic<bool>* stop = nullptr;
};

struct Difference {
  enum class Kind { kMissingInTarget, kExtraInTarget, kChanged, kDuplicateInSource };
  Kind kind;
  std::string key;     // "id=5"
  std::string detail;  // for kChanged: the differing columns with both values
};

struct TableCheckResult {
  std::string sources;  // "db.t" or "db.t1, db.t2"
  std::string target;   // "db.t"
  uint64_t source_rows = 0;
  uint64_t target_rows = 0;
  uint64_t ranges = 0;
  uint64_t ranges_differing = 0;
  uint64_t missing = 0, extra = 0, changed = 0, duplicates = 0;
  std::vector<std::string> problems;  // columns that could not be compared
  std::vector<Difference> listed;     // at most max_listed
  bool stopped = false;               // TableCheckSpec::stop ended it early

  bool equal() const {
    return source_rows == target_rows && missing == 0 && extra == 0 && changed == 0 &&
           duplicates == 0 && problems.empty();
  }
};

// Runs the check. Errors (a server unreachable, a table missing) throw rowbridge::Error.
TableCheckResult CheckTable(const TableCheckSpec& spec, mysql::Connection& source,
                            clickhouse::Client& target);

const char* DifferenceKindName(Difference::Kind kind);

// "FROM ... WHERE ...": the target's current row of each key among the rows `condition` selects,
// as `rule`'s mode reads it: FINAL's survivors (replica), or each key's latest change unless it
// is a delete (changelog). `quoted_table` and `quoted_keys` ("`a`, `b`") are quoted already.
std::string CurrentRowsClause(const config::TableRule& rule, const std::string& quoted_table,
                              const std::string& quoted_keys, const std::string& condition);

}  // namespace rowbridge::check
