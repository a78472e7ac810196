// BinaryRows: the rows of a chunk's SELECT kept as their binary-protocol row packets, back to back
// in one buffer, so the chunk can be read again (a chunk read ahead, or one its binlog window
// touched) for one copy per row: nothing is done per value until a row is read back. Clear()
// keeps the capacity, so a reused BinaryRows stops allocating.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mysql/messages.h"

namespace rowbridge::snapshot {

class BinaryRows {
 public:
  void Clear() {
    bytes_.clear();
    starts_.clear();
  }
  // Keeps a copy of one row packet (mysql::BinaryResultSet::row()).
  void Add(std::string_view row_packet) {
    starts_.push_back(bytes_.size());
    bytes_.append(row_packet);
  }
  size_t size() const { return starts_.size(); }
  size_t bytes() const { return bytes_.size(); }

  // Row `i`'s values into `fields` (resized to the column count; nullopt = NULL), parsed again
  // with `columns`, the definitions of the result set the rows came from. The views are valid
  // until the next Add or Clear. A packet that does not parse throws Error(kProtocol) naming
  // `where`.
  void Get(size_t i, std::span<const mysql::ColumnDefinition> columns, std::string_view where,
           std::vector<std::optional<std::string_view>>& fields) const;

 private:
  std::string bytes_;
  std::vector<size_t> starts_;
  mutable std::vector<std::string_view> values_;
  mutable std::vector<uint8_t> nulls_;
};

}  // namespace rowbridge::snapshot
