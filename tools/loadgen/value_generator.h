// Random SQL literals for a column, fast enough that one connection can produce tens of
// thousands of rows per second. Values are realistic rather than uniform: short strings, dates
// in the TIMESTAMP range, mostly sub-day TIMEs, occasional NULLs in nullable columns.
#pragma once

#include <cstdint>
#include <string>

#include "column_spec.h"

namespace rowbridge::loadgen {

class ValueGenerator {
 public:
  // `max_string` caps generated string/blob lengths (the column's own limit also applies).
  ValueGenerator(uint64_t seed, uint32_t max_string) : state_(seed), max_string_(max_string) {}

  // Appends one SQL literal for `column` to `sql`.
  void AppendLiteral(const ColumnSpec& column, std::string& sql);

  uint64_t Next() {
    // splitmix64: cheap, and good enough for test data.
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t bound) { return bound ? Next() % bound : 0; }

 private:
  void AppendInteger(const ColumnSpec& column, std::string& sql);
  void AppendText(const ColumnSpec& column, std::string& sql);
  void AppendBinary(const ColumnSpec& column, std::string& sql);
  void AppendDecimal(const ColumnSpec& column, std::string& sql);
  void AppendDateTime(const ColumnSpec& column, std::string& sql);

  uint64_t state_;
  uint32_t max_string_;
};

}  // namespace rowbridge::loadgen
