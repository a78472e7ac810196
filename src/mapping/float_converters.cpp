#include "mapping/float_converters.h"

#include <charconv>

#include "binlog/value_decoder.h"
#include "clickhouse/columns/numeric.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using clickhouse::Column;
using clickhouse::TypeCode;

void FloatToFloat32(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnFloat32&>(column).Append(binlog::CellFloat(cell));
}

// Through the shortest decimal text: a FLOAT column holds 1.1 as far as every MySQL client can
// tell, and widening the binary float would show 1.100000023841858 instead.
void FloatToFloat64(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  char text[32];
  const float f = binlog::CellFloat(cell);
  auto written = std::to_chars(text, text + sizeof(text), f);
  double d = f;
  std::from_chars(text, written.ptr, d);  // infinities/NaN cannot come from MySQL; d keeps f
  static_cast<clickhouse::ColumnFloat64&>(column).Append(d);
}

void DoubleToFloat64(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnFloat64&>(column).Append(binlog::CellDouble(cell));
}

void FloatToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatFloat(binlog::CellFloat(cell), text);
  PutText(c, cell, column, text.view());
}

void DoubleToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatDouble(binlog::CellDouble(cell), text);
  PutText(c, cell, column, text.view());
}

}  // namespace

bool SelectFloatConverter(Converter& c, std::string& why_not) {
  const bool is_float = c.source.type == binlog::ColumnType::kFloat;
  if (c.text_sink != TextSink::kNone) {
    c.fn = is_float ? &FloatToText : &DoubleToText;
    return true;
  }
  if (c.target.code == TypeCode::kFloat64) {
    c.fn = is_float ? &FloatToFloat64 : &DoubleToFloat64;
    return true;
  }
  if (c.target.code == TypeCode::kFloat32 && is_float) {
    c.fn = &FloatToFloat32;
    return true;
  }
  why_not = is_float ? fmt::format("{} does not take floating point numbers", c.target.name)
                     : fmt::format("{} cannot hold every DOUBLE exactly", c.target.name);
  return false;
}

}  // namespace rowbridge::mapping
