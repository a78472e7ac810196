// RowArena: rows of Cells whose bytes the arena owns, for rows that must outlive the buffer they
// were read from (a chunk's SELECT result, the row events of a binlog window). Rows are appended,
// then read; Clear() keeps the capacity, so a reused arena allocates nothing once it has grown to
// the largest chunk.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "binlog/cell.h"

namespace rowbridge::snapshot {

class RowArena {
 public:
  void Clear() {
    bytes_.clear();
    cells_.clear();
    offsets_.clear();
    rows_.clear();
    sealed_ = true;
  }
  // Copies `cells` (their ColumnDef pointers are kept, so the columns must outlive the row).
  size_t Add(std::span<const binlog::Cell> cells) {
    rows_.push_back({cells_.size(), cells.size()});
    for (const binlog::Cell& c : cells) {
      offsets_.push_back(bytes_.size());
      bytes_.append(reinterpret_cast<const char*>(c.data), c.size);
      cells_.push_back(c);
    }
    sealed_ = false;
    return rows_.size() - 1;
  }
  size_t size() const { return rows_.size(); }
  size_t bytes() const { return bytes_.size(); }
  // Row `i`; valid until the next Add or Clear.
  std::span<const binlog::Cell> Row(size_t i) {
    Seal();
    return {cells_.data() + rows_[i].first, rows_[i].count};
  }

 private:
  struct RowRef {
    size_t first;
    size_t count;
  };
  void Seal() {
    if (sealed_) return;
    for (size_t i = 0; i < cells_.size(); ++i) {
      cells_[i].data = cells_[i].size == 0 && cells_[i].is_null
                           ? nullptr
                           : reinterpret_cast<const uint8_t*>(bytes_.data()) + offsets_[i];
    }
    sealed_ = true;
  }

  std::string bytes_;
  std::vector<binlog::Cell> cells_;
  std::vector<size_t> offsets_;
  std::vector<RowRef> rows_;
  bool sealed_ = true;
};

}  // namespace rowbridge::snapshot
