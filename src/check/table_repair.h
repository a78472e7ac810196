// The repair in place of one table's target (state::TableRepair): `rowbridge run` runs it
// alongside its stream for each repair the checkpoint records. It is `check` over the target
// (every source table that goes into it), with each range found different repaired at once
// (range_repair.h) before the next range is compared.
//
// Why writing into the live target is exact: the repair's rows take versions from a band that
// was reserved when the repair was recorded, at a clean stop of the stream (every version in
// ClickHouse then below the band, every version the stream hands out from then on above it). For
// a key the stream changes after that point, the stream's row outranks whatever the repair
// writes, whenever either is written; for a key it does not change, the source's row now is its
// row at that point, which is what the repair writes. Nothing the repair writes can be wrong for
// long, and a repair interrupted by a crash is simply run again from the start.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "check/range_repair.h"
#include "check/table_check.h"
#include "config/config.h"
#include "mysql/connection.h"

namespace rowbridge::check {

struct TableRepairResult {
  TableCheckResult check;  // what the comparison found, before the repair
  RepairCounts counts;
};

// Repairs the target of source table `table` ("db.table") with versions from `version_base`
// (see above). `before_range` is called before each differing range is repaired, on the repair's
// source connection. Ends early when `stop` is set (result.check.stopped). Throws Error on a
// server error or a table the repair cannot handle (no primary key, columns check cannot read).
TableRepairResult RepairTable(const config::Config& config, const std::string& table,
                              uint64_t version_base,
                              const std::function<void(mysql::Connection&)>& before_range,
                              const std::atomic<bool>* stop);

}  // namespace rowbridge::check
