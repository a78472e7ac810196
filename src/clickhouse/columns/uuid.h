// UUID column. ClickHouse keeps a UUID as a UInt128 made of two little-endian UInt64 halves, the
// HIGH half first: the text 00112233-4455-6677-8899-aabbccddeeff goes on the wire as
// 77 66 55 44 33 22 11 00 ff ee dd cc bb aa 99 88. This class takes UUIDs in their usual
// (RFC 4122, big-endian) byte or text form and does the swap.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "clickhouse/columns/fixed_width.h"

namespace rowbridge::clickhouse {

struct UuidHalves {
  uint64_t high = 0;  // first 8 bytes of the RFC form, as a big-endian number
  uint64_t low = 0;
  bool operator==(const UuidHalves&) const = default;
};

class ColumnUuid : public FixedWidthColumn<UuidHalves> {
 public:
  ColumnUuid();
  // 16 bytes in RFC 4122 order (as MySQL's UUID_TO_BIN(x, 0) / MariaDB's UUID type stores them).
  void AppendBytes(const uint8_t* rfc_bytes);
  // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", hex in either case; throws Error(kConversion).
  void AppendParsed(std::string_view text);
  UuidHalves At(size_t row) const { return Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnUuid>(); }
};

static_assert(sizeof(UuidHalves) == 16);

}  // namespace rowbridge::clickhouse
