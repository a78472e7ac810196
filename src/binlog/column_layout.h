// How each column's value is laid out in a row image, precomputed once per TABLE_MAP so the row
// cursor finds every value's extent with a table lookup and at most one length read.
#pragma once

#include <cstdint>
#include <vector>

#include "binlog/table_map.h"

namespace rowbridge::binlog {

struct ColumnSlot {
  enum Kind : uint8_t {
    kFixed,        // `bytes` bytes of value
    kPrefixed,     // a `bytes`-byte little-endian length, then that many bytes
    kUnsupported,  // a type rowbridge cannot size; decoding a row that holds it fails
  };
  Kind kind = kUnsupported;
  uint8_t bytes = 0;
};

// One slot per column of `map`. Never fails: columns that cannot be sized get kUnsupported so
// only rows actually holding them raise an error.
std::vector<ColumnSlot> BuildColumnLayout(const TableMap& map);

}  // namespace rowbridge::binlog
