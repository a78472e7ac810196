#include "mapping/vector_converters.h"

#include "binlog/value_decoder.h"
#include "clickhouse/columns/array.h"
#include "clickhouse/columns/numeric.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using clickhouse::Column;
using clickhouse::TypeCode;

template <typename F>
void VectorToArray(const Converter&, const Cell& cell, Column& column, ConvertScratch& scratch) {
  scratch.floats.resize(binlog::CellVectorLength(cell));
  const std::span<const float> values = binlog::CellVector(cell, scratch.floats);
  auto& array = static_cast<clickhouse::ColumnArray&>(column);
  auto& elements = array.nested_as<clickhouse::ColumnNumber<F>>();
  for (float v : values) elements.Append(static_cast<F>(v));
  array.FinishRow();
}

void VectorToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch& scratch) {
  scratch.text.clear();
  AppendMysqlText(cell, *c.zone, scratch.text);
  PutText(c, cell, column, scratch.text);
}

}  // namespace

bool SelectVectorConverter(Converter& c, std::string& why_not) {
  if (c.text_sink != TextSink::kNone) {
    c.fn = &VectorToText;
    return true;
  }
  if (c.target.code == TypeCode::kArray) {
    const TypeCode element = c.target.nested.at(0).code;
    if (element == TypeCode::kFloat32) {
      c.fn = &VectorToArray<float>;
      return true;
    }
    if (element == TypeCode::kFloat64) {
      c.fn = &VectorToArray<double>;
      return true;
    }
  }
  why_not = fmt::format("{} does not take VECTOR values", c.target.name);
  return false;
}

}  // namespace rowbridge::mapping
