// CityHash128 as published in CityHash v1.0.2, the version ClickHouse froze for the checksums of
// its compressed blocks. Later CityHash releases (1.0.3, 1.1.x) changed the mixing and give
// different results, so this must never be "upgraded". Inputs of any length are accepted; the
// result is the (low, high) pair exactly as ClickHouse stores it: low 64 bits first, each
// little-endian.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rowbridge::clickhouse {

struct CityHash128Value {
  uint64_t low = 0;
  uint64_t high = 0;
  bool operator==(const CityHash128Value&) const = default;
};

CityHash128Value CityHash128(const void* data, size_t size);

}  // namespace rowbridge::clickhouse
