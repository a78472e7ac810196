#include "binlog/table_map_event.h"

#include <string>

#include "common/error.h"

namespace rowbridge::binlog {

namespace {

enum OptionalMetadataType : uint8_t {
  kSignedness = 1,
  kDefaultCharset = 2,
  kColumnCharset = 3,
  kColumnName = 4,
  kSetStrValue = 5,
  kEnumStrValue = 6,
  kGeometryType = 7,
  kSimplePrimaryKey = 8,
  kPrimaryKeyWithPrefix = 9,
  kEnumAndSetDefaultCharset = 10,
  kEnumAndSetColumnCharset = 11,
  kColumnVisibility = 12,
  kVectorDimensionality = 13,
};

// Reads the per-type metadata of one column from the TABLE_MAP metadata block.
void ReadColumnMeta(ByteReader& r, ColumnDef& col, const TableMap& map, size_t index) {
  switch (col.wire_type) {
    case ColumnType::kFloat:
    case ColumnType::kDouble:
    case ColumnType::kTimestamp2:
    case ColumnType::kDateTime2:
    case ColumnType::kTime2:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
    case ColumnType::kVector:
      col.meta = r.U8("column metadata");
      break;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      col.meta = r.U16("VARCHAR metadata");
      break;
    case ColumnType::kBit: {
      uint32_t bits = r.U8("BIT metadata");
      uint32_t bytes = r.U8("BIT metadata");
      col.meta = bytes * 8 + bits;
      break;
    }
    case ColumnType::kNewDecimal:
    case ColumnType::kDecimal:
      col.precision = r.U8("DECIMAL precision");
      col.scale = r.U8("DECIMAL scale");
      break;
    case ColumnType::kString:
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      // Two bytes, high byte first: the real type and the length. For CHAR columns longer than
      // 255 bytes the two top bits of the length are stored inverted in bits 4-5 of the type byte.
      uint32_t b0 = r.U8("CHAR metadata");
      uint32_t b1 = r.U8("CHAR metadata");
      if ((b0 & 0x30) != 0x30) {
        col.type = static_cast<ColumnType>(b0 | 0x30);
        col.meta = b1 | (((b0 & 0x30) ^ 0x30) << 4);
      } else {
        col.type = static_cast<ColumnType>(b0);
        col.meta = b1;
      }
      if (col.type != ColumnType::kString && col.type != ColumnType::kEnum &&
          col.type != ColumnType::kSet) {
        r.Corrupt(fmt::format("{}.{} column {}: CHAR metadata names type {}", map.database,
                              map.table, index + 1, b0));
      }
      break;
    }
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kLong:
    case ColumnType::kNull:
    case ColumnType::kTimestamp:
    case ColumnType::kLongLong:
    case ColumnType::kInt24:
    case ColumnType::kDate:
    case ColumnType::kTime:
    case ColumnType::kDateTime:
    case ColumnType::kYear:
    case ColumnType::kNewDate:
    case ColumnType::kBool:
      col.meta = 0;
      break;
    default:
      Fail(ErrorCode::kUnsupported,
           "{} at offset {}: {}.{} column {} has column type {} whose metadata is unknown",
           r.context(), r.offset(), map.database, map.table, index + 1,
           static_cast<unsigned>(col.wire_type));
  }
}

// Bitmaps in optional metadata are most-significant-bit first.
bool MsbBit(std::string_view bits, size_t i) {
  return (static_cast<uint8_t>(bits[i / 8]) >> (7 - i % 8)) & 1;
}

uint32_t ToU32(uint64_t v, ByteReader& r, const char* what) {
  if (v > UINT32_MAX) r.Corrupt(fmt::format("{} {} out of range", what, v));
  return static_cast<uint32_t>(v);
}

// Charset fields cover a subset of the columns (`matches`); assign in column order.
template <typename Pred>
void ReadDefaultCharset(ByteReader& r, TableMap& map, Pred matches) {
  uint32_t def = ToU32(r.LengthEncoded("default charset"), r, "default charset");
  std::vector<ColumnDef*> cols;
  for (auto& c : map.columns)
    if (matches(c.type)) cols.push_back(&c);
  for (auto* c : cols) c->charset = def;
  while (!r.AtEnd()) {
    uint64_t idx = r.LengthEncoded("charset column index");
    uint32_t cs = ToU32(r.LengthEncoded("column charset"), r, "column charset");
    if (idx >= cols.size()) r.Corrupt(fmt::format("charset column index {} out of range", idx));
    cols[idx]->charset = cs;
  }
}

template <typename Pred>
void ReadColumnCharsets(ByteReader& r, TableMap& map, Pred matches) {
  for (auto& c : map.columns) {
    if (!matches(c.type)) continue;
    if (r.AtEnd()) break;
    c.charset = ToU32(r.LengthEncoded("column charset"), r, "column charset");
  }
}

void ReadStrValues(ByteReader& r, TableMap& map, ColumnType type) {
  for (auto& c : map.columns) {
    if (c.type != type) continue;
    if (r.AtEnd()) break;
    uint64_t n = r.LengthEncoded("value count");
    if (n > r.remaining()) r.Corrupt(fmt::format("ENUM/SET value count {} too large", n));
    auto& values = type == ColumnType::kEnum ? c.enum_values : c.set_values;
    values.clear();
    values.reserve(n);
    for (uint64_t i = 0; i < n; ++i) values.emplace_back(r.LengthEncodedString("ENUM/SET value"));
  }
}

void ReadOptionalMetadata(ByteReader& r, TableMap& map) {
  while (!r.AtEnd()) {
    uint8_t field = r.U8("optional metadata type");
    uint64_t len = r.LengthEncoded("optional metadata length");
    if (len > r.remaining())
      r.Corrupt(
          fmt::format("optional metadata field {} of {} bytes overruns the event", field, len));
    uint64_t field_offset = r.offset();
    std::string_view value = r.Bytes(static_cast<size_t>(len), "optional metadata");
    ByteReader f(value, field_offset, r.context());
    switch (field) {
      case kSignedness: {
        size_t n = 0;
        for (auto& c : map.columns) {
          if (!IsNumericColumnType(c.type)) continue;
          if (n / 8 >= value.size()) f.Corrupt("SIGNEDNESS bitmap too short");
          const bool is_unsigned = MsbBit(value, n++);
          if (c.type == ColumnType::kYear) continue;  // its bit, but no signedness
          c.signedness_known = true;
          c.is_unsigned = is_unsigned;
        }
        break;
      }
      case kDefaultCharset:
        ReadDefaultCharset(f, map, IsCharacterColumnType);
        break;
      case kColumnCharset:
        ReadColumnCharsets(f, map, IsCharacterColumnType);
        break;
      case kEnumAndSetDefaultCharset:
        ReadDefaultCharset(
            f, map, [](ColumnType t) { return t == ColumnType::kEnum || t == ColumnType::kSet; });
        break;
      case kEnumAndSetColumnCharset:
        ReadColumnCharsets(
            f, map, [](ColumnType t) { return t == ColumnType::kEnum || t == ColumnType::kSet; });
        break;
      case kColumnName:
        for (auto& c : map.columns) {
          if (f.AtEnd()) break;
          c.name.assign(f.LengthEncodedString("column name"));
        }
        break;
      case kSetStrValue:
        ReadStrValues(f, map, ColumnType::kSet);
        break;
      case kEnumStrValue:
        ReadStrValues(f, map, ColumnType::kEnum);
        break;
      case kGeometryType:
        for (auto& c : map.columns) {
          if (c.type != ColumnType::kGeometry || f.AtEnd()) continue;
          c.geometry_type = ToU32(f.LengthEncoded("geometry type"), f, "geometry type");
        }
        break;
      case kSimplePrimaryKey:
      case kPrimaryKeyWithPrefix:
        map.primary_key.clear();
        while (!f.AtEnd()) {
          uint64_t idx = f.LengthEncoded("primary key column");
          uint32_t prefix = 0;
          if (field == kPrimaryKeyWithPrefix)
            prefix = ToU32(f.LengthEncoded("primary key prefix"), f, "primary key prefix");
          if (idx >= map.columns.size())
            f.Corrupt(fmt::format("primary key column {} out of range", idx));
          map.columns[idx].is_primary_key = true;
          map.columns[idx].primary_key_prefix = prefix;
          map.primary_key.push_back(static_cast<uint32_t>(idx));
        }
        break;
      case kColumnVisibility:
        for (size_t i = 0; i < map.columns.size(); ++i) {
          if (i / 8 >= value.size()) f.Corrupt("COLUMN_VISIBILITY bitmap too short");
          map.columns[i].visible = MsbBit(value, i);
        }
        break;
      case kVectorDimensionality:
        for (auto& c : map.columns) {
          if (c.type != ColumnType::kVector || f.AtEnd()) continue;
          c.vector_dimensions = ToU32(f.LengthEncoded("vector dimensions"), f, "vector dimensions");
        }
        break;
      default:
        break;  // a field from a newer server: its length lets us step over it
    }
  }
}

}  // namespace

bool IsNumericColumnType(ColumnType t) {
  switch (t) {
    case ColumnType::kYear:
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
    case ColumnType::kFloat:
    case ColumnType::kDouble:
    case ColumnType::kNewDecimal:
    case ColumnType::kDecimal:
      return true;
    default:
      return false;
  }
}

bool IsCharacterColumnType(ColumnType t) {
  switch (t) {
    case ColumnType::kString:
    case ColumnType::kVarString:
    case ColumnType::kVarchar:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kGeometry:  // MySQL derives geometry (and VECTOR) fields from BLOB
    case ColumnType::kVector:
      return true;
    default:
      return false;
  }
}

TableMap ParseTableMap(const Event& event, const FormatDescription& format) {
  ByteReader r = event.BodyReader();
  TableMap map;
  uint8_t post_header = format.PostHeaderLength(EventType::kTableMap);
  map.table_id = post_header == 6 ? r.U32("table id") : r.U48("table id");
  map.flags = r.U16("table map flags");
  if (post_header > 8) r.Skip(post_header - 8, "table map post-header");
  uint8_t db_len = r.U8("database name length");
  map.database.assign(r.Bytes(db_len, "database name"));
  r.Skip(1, "database name NUL");
  uint8_t table_len = r.U8("table name length");
  map.table.assign(r.Bytes(table_len, "table name"));
  r.Skip(1, "table name NUL");
  uint64_t count = r.LengthEncoded("column count");
  if (count > r.remaining())
    r.Corrupt(
        fmt::format("{}.{}: column count {} exceeds the event", map.database, map.table, count));
  map.columns.resize(count);
  for (auto& c : map.columns) {
    c.wire_type = static_cast<ColumnType>(r.U8("column type"));
    c.type = c.wire_type;
  }
  uint64_t meta_len = r.LengthEncoded("metadata length");
  if (meta_len > r.remaining()) r.Corrupt("column metadata block overruns the event");
  uint64_t meta_offset = r.offset();
  ByteReader meta(r.Bytes(static_cast<size_t>(meta_len), "column metadata"), meta_offset,
                  event.context);
  for (size_t i = 0; i < map.columns.size(); ++i) ReadColumnMeta(meta, map.columns[i], map, i);
  if (!meta.AtEnd()) {
    meta.Corrupt(fmt::format("{}.{}: {} unused bytes in the column metadata block", map.database,
                             map.table, meta.remaining()));
  }
  std::string_view nulls = r.Bytes((map.columns.size() + 7) / 8, "column NULL bitmap");
  for (size_t i = 0; i < map.columns.size(); ++i) {
    map.columns[i].nullable = (static_cast<uint8_t>(nulls[i / 8]) >> (i % 8)) & 1;
  }
  ReadOptionalMetadata(r, map);
  return map;
}

}  // namespace rowbridge::binlog
