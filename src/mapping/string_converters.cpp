#include "mapping/string_converters.h"

#include <cctype>
#include <cstring>

#include "binlog/value_decoder.h"
#include "clickhouse/columns/uuid.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnType;
using clickhouse::Column;
using clickhouse::TypeCode;

void BytesToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  PutText(c, cell, column, binlog::CellBytes(cell));
}

// BINARY(n) values reach the binlog without their trailing zero bytes (MySQL and MariaDB strip
// them when packing the row), but they are part of the value: SELECT shows all n bytes.
void BinaryToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const std::string_view bytes = binlog::CellBytes(cell);
  const size_t width = c.source.meta;
  if (bytes.size() >= width || width > 255) {
    PutText(c, cell, column, bytes);
    return;
  }
  char padded[256] = {};
  if (!bytes.empty()) std::memcpy(padded, bytes.data(), bytes.size());  // data is null when empty
  PutText(c, cell, column, std::string_view(padded, width));
}

void GeometryToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  if (cell.size < 4)
    Fail(ErrorCode::kCorruption, "{}: GEOMETRY value of {} bytes is shorter than its SRID",
         c.column, cell.size);
  PutText(c, cell, column, binlog::CellBytes(cell).substr(4));
}

void JsonToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch& scratch) {
  scratch.text.clear();
  try {
    AppendMysqlText(cell, *c.zone, scratch.text);
  } catch (const Error& e) {
    throw e.WithMessage(fmt::format("{}: {}", c.column, e.what()));
  }
  PutText(c, cell, column, scratch.text);
}

[[noreturn]] void NotUuid(const Converter& c, const Cell& cell, const char* why) {
  std::string value;
  AppendMysqlText(cell, *c.zone, value);
  Fail(ErrorCode::kConversion, "cannot convert {} value '{}' ({}) to {}: {}", c.column, value,
       c.source_type, c.target_type, why);
}

void BinaryToUuid(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  uint8_t bytes[16] = {};
  // BINARY(16) values may arrive without their trailing zero bytes; they are part of the value.
  const bool padded_binary = c.source.type == ColumnType::kString && cell.size < 16;
  if (cell.size != 16 && !padded_binary) NotUuid(c, cell, "a UUID takes exactly 16 bytes");
  if (cell.size > 0) std::memcpy(bytes, cell.data, cell.size);
  static_cast<clickhouse::ColumnUuid&>(column).AppendBytes(bytes);
}

void TextToUuid(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const std::string_view text = binlog::CellBytes(cell);
  // Validate first, so a bad value is reported with its column and nothing is appended.
  bool ok = text.size() == 36;
  for (size_t i = 0; ok && i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    ok = dash ? text[i] == '-' : std::isxdigit(static_cast<unsigned char>(text[i])) != 0;
  }
  if (!ok) NotUuid(c, cell, "not a UUID in xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx form");
  static_cast<clickhouse::ColumnUuid&>(column).AppendParsed(text);
}

// Charset unknown (no optional metadata): 36 bytes are the text form, anything else the bytes.
void AnyToUuid(const Converter& c, const Cell& cell, Column& column, ConvertScratch& scratch) {
  if (cell.size == 36)
    TextToUuid(c, cell, column, scratch);
  else
    BinaryToUuid(c, cell, column, scratch);
}

}  // namespace

bool SelectStringConverter(Converter& c, std::string& why_not) {
  const ColumnType type = c.source.type;
  if (c.text_sink != TextSink::kNone) {
    const bool fixed_binary = type == ColumnType::kString && c.source.charset == 63;
    c.fn = type == ColumnType::kGeometry ? &GeometryToText
           : type == ColumnType::kJson   ? &JsonToText
           : fixed_binary                ? &BinaryToText
                                         : &BytesToText;
    if (c.fn == &BytesToText && c.text_sink == TextSink::kString)
      c.direct = DirectStore::kBytesToString;
    return true;
  }
  if (c.target.code == TypeCode::kUUID && type != ColumnType::kJson &&
      type != ColumnType::kGeometry) {
    c.fn = c.source.charset == 63  ? &BinaryToUuid
           : c.source.charset == 0 ? &AnyToUuid
                                   : &TextToUuid;
    return true;
  }
  why_not = fmt::format("{} does not take {} values", c.target.name, c.source_type);
  return false;
}

}  // namespace rowbridge::mapping
