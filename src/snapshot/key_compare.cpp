#include "snapshot/key_compare.h"

#include <cstring>
#include <tuple>

#include "binlog/decimal.h"
#include "binlog/value_decoder.h"
#include "common/error.h"
#include "mapping/mysql_text.h"

namespace rowbridge::snapshot {

namespace {

using binlog::Cell;
using binlog::ColumnType;

template <typename T>
int Sign(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

std::string_view Bytes(const Cell& c) {
  return binlog::CellBytes(c);
}

int CompareBytes(std::string_view a, std::string_view b) {
  const int r = a.compare(b);
  return r < 0 ? -1 : (r > 0 ? 1 : 0);
}

int CompareDecimal(const Cell& a, const Cell& b) {
  const binlog::ColumnDef& ca = *a.column;
  const binlog::ColumnDef& cb = *b.column;
  if (ca.precision != cb.precision || ca.scale != cb.scale)
    Fail(ErrorCode::kInternal, "DECIMAL key values of different types compared");
  const binlog::DecimalValue x = binlog::DecodeDecimal(a.data, a.size, ca.precision, ca.scale);
  const binlog::DecimalValue y = binlog::DecodeDecimal(b.data, b.size, cb.precision, cb.scale);
  if (x.unscaled.IsNegative() != y.unscaled.IsNegative()) return x.unscaled.IsNegative() ? -1 : 1;
  // Same sign: two's complement limbs compare as unsigned from the top.
  for (int i = 3; i >= 0; --i) {
    if (x.unscaled.limbs[i] != y.unscaled.limbs[i])
      return x.unscaled.limbs[i] < y.unscaled.limbs[i] ? -1 : 1;
  }
  return 0;
}

auto PartsTuple(const binlog::TemporalParts& p) {
  return std::make_tuple(p.year, p.month, p.day, p.hour, p.minute, p.second, p.microsecond);
}

int64_t TimeMicros(const binlog::TemporalParts& p) {
  const int64_t v = ((int64_t{p.hour} * 60 + p.minute) * 60 + p.second) * 1000000 + p.microsecond;
  return p.negative ? -v : v;
}

}  // namespace

bool NeedsCollator(const binlog::ColumnDef& column) {
  switch (column.type) {
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
      return column.charset != 63;
    default:
      return false;
  }
}

int CompareKeyCell(const Cell& a, const Cell& b, const TextCollator& collator) {
  if (a.is_null || b.is_null) return Sign(!a.is_null, !b.is_null);
  const binlog::ColumnDef& column = *a.column;
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      if (column.is_unsigned)
        return Sign(binlog::CellUnsignedInteger(a), binlog::CellUnsignedInteger(b));
      return Sign(binlog::CellSignedInteger(a), binlog::CellSignedInteger(b));
    case ColumnType::kYear:
      return Sign(binlog::CellYear(a), binlog::CellYear(b));
    case ColumnType::kBit:
      return Sign(binlog::CellBit(a), binlog::CellBit(b));
    case ColumnType::kEnum:
      return Sign(binlog::CellEnumIndex(a), binlog::CellEnumIndex(b));
    case ColumnType::kSet:
      return Sign(binlog::CellSetBits(a), binlog::CellSetBits(b));
    case ColumnType::kFloat:
      return Sign(binlog::CellFloat(a), binlog::CellFloat(b));
    case ColumnType::kDouble:
      return Sign(binlog::CellDouble(a), binlog::CellDouble(b));
    case ColumnType::kNewDecimal:
      return CompareDecimal(a, b);
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      return Sign(PartsTuple(mapping::CellDateParts(a)), PartsTuple(mapping::CellDateParts(b)));
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2:
      return Sign(PartsTuple(mapping::CellDateTimeParts(a)),
                  PartsTuple(mapping::CellDateTimeParts(b)));
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2: {
      const binlog::TimestampValue x = mapping::CellTimestamp(a);
      const binlog::TimestampValue y = mapping::CellTimestamp(b);
      return Sign(std::make_tuple(x.seconds, x.microsecond),
                  std::make_tuple(y.seconds, y.microsecond));
    }
    case ColumnType::kTime:
    case ColumnType::kTime2:
      return Sign(TimeMicros(mapping::CellTimeParts(a)), TimeMicros(mapping::CellTimeParts(b)));
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob: {
      if (!NeedsCollator(column)) {
        std::string_view x = Bytes(a), y = Bytes(b);
        if (column.type == ColumnType::kString) {
          while (!x.empty() && x.back() == '\0') x.remove_suffix(1);
          while (!y.empty() && y.back() == '\0') y.remove_suffix(1);
        }
        return CompareBytes(x, y);
      }
      if (!collator)
        Fail(ErrorCode::kInternal, "key column {} needs a collation to compare", column.name);
      const int r = collator(column, Bytes(a), Bytes(b));
      return r < 0 ? -1 : (r > 0 ? 1 : 0);
    }
    default:
      Fail(ErrorCode::kUnsupported, "key column {} has type {}, which cannot order chunks",
           column.name, binlog::ColumnTypeName(column.type));
  }
}

int CompareKeys(std::span<const Cell> a, std::span<const Cell> b, const TextCollator& collator) {
  if (a.size() != b.size())
    Fail(ErrorCode::kInternal, "key tuples of {} and {} columns compared", a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const int r = CompareKeyCell(a[i], b[i], collator);
    if (r != 0) return r;
  }
  return 0;
}

bool SameKeyBytes(std::span<const Cell> a, std::span<const Cell> b) {
  if (a.size() != b.size())
    Fail(ErrorCode::kInternal, "key tuples of {} and {} columns compared", a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_null != b[i].is_null) return false;
    if (!a[i].is_null && Bytes(a[i]) != Bytes(b[i])) return false;
  }
  return true;
}

}  // namespace rowbridge::snapshot
