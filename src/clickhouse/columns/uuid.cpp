#include "clickhouse/columns/uuid.h"

namespace rowbridge::clickhouse {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

ColumnUuid::ColumnUuid() : FixedWidthColumn<UuidHalves>("UUID") {}

void ColumnUuid::AppendBytes(const uint8_t* rfc_bytes) {
  UuidHalves v;
  for (int i = 0; i < 8; ++i) v.high = v.high << 8 | rfc_bytes[i];
  for (int i = 8; i < 16; ++i) v.low = v.low << 8 | rfc_bytes[i];
  AppendRaw(v);
}

void ColumnUuid::AppendParsed(std::string_view text) {
  uint8_t bytes[16];
  size_t byte_count = 0;
  bool ok = text.size() == 36;
  for (size_t i = 0; ok && i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = text[i] == '-';
      ++i;
      continue;
    }
    int hi = HexValue(text[i]);
    int lo = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
    ok = hi >= 0 && lo >= 0 && byte_count < 16;
    if (ok) bytes[byte_count++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  if (!ok || byte_count != 16) Fail(ErrorCode::kConversion, "'{}' is not a UUID", text);
  AppendBytes(bytes);
}

void ColumnUuid::AppendText(size_t row, std::string& out) const {
  static constexpr char kDigits[] = "0123456789abcdef";
  UuidHalves v = Raw(row);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    uint64_t half = i < 8 ? v.high : v.low;
    auto byte = static_cast<uint8_t>(half >> (8 * (7 - i % 8)));
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 15]);
  }
}

}  // namespace rowbridge::clickhouse
