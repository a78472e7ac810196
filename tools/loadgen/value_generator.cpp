#include "value_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common/civil_date.h"
#include "mysql/sql_quote.h"

namespace rowbridge::loadgen {
namespace {

constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-";
// A few multibyte characters so that string handling is exercised beyond ASCII.
// The last one needs 4 bytes (utf8mb4 only).
constexpr const char* kMultibyte[] = {"é", "ß", "中", "文", "😀"};
constexpr size_t kThreeByteChoices = 4;

}  // namespace

void ValueGenerator::AppendLiteral(const ColumnSpec& column, std::string& sql) {
  if (column.nullable && Below(20) == 0) {
    sql += "NULL";
    return;
  }
  auto out = std::back_inserter(sql);
  switch (column.kind) {
    case ValueKind::kSignedInt:
    case ValueKind::kUnsignedInt:
      AppendInteger(column, sql);
      return;
    case ValueKind::kFloat: {
      double v = static_cast<double>(static_cast<int64_t>(Below(2'000'000)) - 1'000'000) / 100.0;
      // FLOAT(9,2)-style columns: keep within the declared digits.
      if (column.precision > 0 && column.precision < 9) v = std::fmod(v, 1000.0);
      fmt::format_to(out, "{:.2f}", v);
      return;
    }
    case ValueKind::kDecimal:
      AppendDecimal(column, sql);
      return;
    case ValueKind::kString:
      AppendText(column, sql);
      return;
    case ValueKind::kBinary:
      AppendBinary(column, sql);
      return;
    case ValueKind::kEnum:
      sql += mysql::QuoteString(column.labels[Below(column.labels.size())]);
      return;
    case ValueKind::kSet: {
      std::string members;
      uint64_t mask = Next();
      for (size_t i = 0; i < column.labels.size() && i < 64; ++i) {
        if (!(mask >> i & 1)) continue;
        if (!members.empty()) members += ',';
        members += column.labels[i];
      }
      sql += mysql::QuoteString(members);
      return;
    }
    case ValueKind::kBit: {
      uint32_t bits = std::clamp<uint32_t>(column.precision, 1, 64);
      uint64_t v = bits == 64 ? Next() : Below(uint64_t{1} << bits);
      fmt::format_to(out, "{}", v);
      return;
    }
    case ValueKind::kYear:
      fmt::format_to(out, "{}", 1901 + Below(255));
      return;
    case ValueKind::kDate: {
      const CivilDate date = CivilFromDays(static_cast<int64_t>(Below(24800)));
      fmt::format_to(out, "'{:04}-{:02}-{:02}'", date.year, date.month, date.day);
      return;
    }
    case ValueKind::kTime: {
      bool negative = Below(10) == 0;
      uint64_t seconds = Below(10) == 0 ? Below(838ULL * 3600) : Below(86400);
      fmt::format_to(out, "'{}{:02}:{:02}:{:02}", negative ? "-" : "", seconds / 3600,
                     seconds / 60 % 60, seconds % 60);
      if (column.fsp) fmt::format_to(out, ".{:06}", Below(1'000'000));
      sql += '\'';
      return;
    }
    case ValueKind::kDateTime:
      AppendDateTime(column, sql);
      return;
    case ValueKind::kJson:
      fmt::format_to(out,
                     "'{{\"id\": {}, \"name\": \"n{}\", \"ok\": {}, \"tags\": [1, 2.5, null]}}'",
                     Below(1'000'000), Below(1000), Below(2) ? "true" : "false");
      return;
    case ValueKind::kGeometry:
      fmt::format_to(out, "ST_GeomFromText('POINT({} {})')", Below(360), Below(180));
      return;
  }
}

void ValueGenerator::AppendInteger(const ColumnSpec& column, std::string& sql) {
  auto out = std::back_inserter(sql);
  // Mostly small values, sometimes anywhere in the range including its ends.
  uint64_t pick = Below(100);
  if (column.kind == ValueKind::kUnsignedInt) {
    uint64_t v = pick == 0   ? column.max_value
                 : pick == 1 ? 0
                 : pick < 10
                     ? (column.max_value == UINT64_MAX ? Next() : Below(column.max_value + 1))
                     : Below(std::min<uint64_t>(column.max_value, 100000) + 1);
    fmt::format_to(out, "{}", v);
    return;
  }
  int64_t lo = column.min_value;
  int64_t hi = static_cast<int64_t>(column.max_value);
  int64_t v;
  if (pick == 0) {
    v = hi;
  } else if (pick == 1) {
    v = lo;
  } else if (pick < 10) {
    v = static_cast<int64_t>(Next());
    if (hi != INT64_MAX) {
      uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
      v = lo + static_cast<int64_t>(static_cast<uint64_t>(v) % span);
    }
  } else {
    int64_t small = std::min<int64_t>(hi, 100000);
    v = static_cast<int64_t>(Below(static_cast<uint64_t>(small) * 2 + 1)) - small;
    v = std::max(v, lo);
  }
  fmt::format_to(out, "{}", v);
}

void ValueGenerator::AppendText(const ColumnSpec& column, std::string& sql) {
  uint32_t limit = std::min(column.max_length, max_string_);
  uint64_t length = limit ? 1 + Below(limit) : 0;
  sql += '\'';
  for (uint64_t i = 0; i < length; ++i) {
    if (column.max_char_bytes > 1 && Below(16) == 0) {
      sql +=
          kMultibyte[Below(column.max_char_bytes == 4 ? std::size(kMultibyte) : kThreeByteChoices)];
    } else {
      sql += kLetters[Below(sizeof kLetters - 1)];
    }
  }
  sql += '\'';
}

void ValueGenerator::AppendBinary(const ColumnSpec& column, std::string& sql) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint32_t limit = std::min(column.max_length, max_string_);
  uint64_t length = limit ? 1 + Below(limit) : 0;
  if (length == 0) {
    sql += "''";
    return;
  }
  sql += "X'";
  for (uint64_t i = 0; i < length; ++i) {
    uint64_t byte = Below(256);
    sql += kHex[byte >> 4];
    sql += kHex[byte & 15];
  }
  sql += '\'';
}

void ValueGenerator::AppendDecimal(const ColumnSpec& column, std::string& sql) {
  uint32_t int_digits = column.precision > column.scale ? column.precision - column.scale : 0;
  if (Below(2)) sql += '-';
  // Most values are short; the full width appears now and then.
  uint32_t digits = Below(8) == 0 ? int_digits : std::min<uint32_t>(int_digits, 1 + Below(4));
  if (digits == 0) sql += '0';
  for (uint32_t i = 0; i < digits; ++i)
    sql += static_cast<char>('0' + (i == 0 ? 1 + Below(9) : Below(10)));
  if (column.scale) {
    sql += '.';
    for (uint32_t i = 0; i < column.scale; ++i) sql += static_cast<char>('0' + Below(10));
  }
}

void ValueGenerator::AppendDateTime(const ColumnSpec& column, std::string& sql) {
  // TIMESTAMP holds 1970-01-01 00:00:01 .. 2038-01-19 03:14:07 UTC; stay a day inside it on
  // both ends so that no session time zone pushes a value out.
  int64_t seconds = 86400 + static_cast<int64_t>(Below(2'145'000'000ULL - 2 * 86400));
  const CivilDate date = CivilFromDays(seconds / 86400);
  int64_t sod = seconds % 86400;
  fmt::format_to(std::back_inserter(sql), "'{:04}-{:02}-{:02} {:02}:{:02}:{:02}", date.year,
                 date.month, date.day, sod / 3600, sod / 60 % 60, sod % 60);
  if (column.fsp) fmt::format_to(std::back_inserter(sql), ".{:06}", Below(1'000'000));
  sql += '\'';
}

}  // namespace rowbridge::loadgen
