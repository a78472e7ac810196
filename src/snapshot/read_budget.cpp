#include "snapshot/read_budget.h"

#include <algorithm>

namespace rowbridge::snapshot {

uint64_t HeldReads(uint32_t connections) {
  // Packets of the read being converted (and of those in flight on the other connections), the
  // block being built and the block being sent: each up to twice its content.
  const uint64_t packets = connections > 1 ? uint64_t{connections} + 1 : 1;
  return 2 * (packets + 2);
}

uint64_t ReadBytes(uint64_t memory_limit, uint32_t tables_at_once, uint32_t connections) {
  const uint64_t share = memory_limit / std::max<uint32_t>(1, tables_at_once);
  return std::max<uint64_t>(1, share / HeldReads(connections));
}

ReadSizer::ReadSizer(uint64_t read_bytes, uint64_t max_rows)
    : read_bytes_(std::max<uint64_t>(1, read_bytes)), max_rows_(std::max<uint64_t>(1, max_rows)) {}

uint64_t ReadSizer::NextRows() const {
  uint64_t rows = std::min(ramp_, max_rows_);
  if (bytes_per_row_ > 0) rows = std::min(rows, read_bytes_ / bytes_per_row_);
  return std::max<uint64_t>(1, rows);
}

void ReadSizer::Measured(uint64_t rows, uint64_t bytes) {
  if (rows == 0) return;
  bytes_per_row_ = std::max<uint64_t>(1, (bytes + rows - 1) / rows);
  ramp_ = std::min(max_rows_, ramp_ * kGrowth);
}

}  // namespace rowbridge::snapshot
