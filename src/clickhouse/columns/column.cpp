#include "clickhouse/columns/column.h"

namespace rowbridge::clickhouse {

void Column::CheckRow(size_t row) const {
  if (row >= Size())
    Fail(ErrorCode::kInternal, "ClickHouse column {}: row {} out of range (size {})", type_name_,
         row, Size());
}

void FailWrongColumnClass(const Column& column, const char* wanted) {
  Fail(ErrorCode::kInternal, "ClickHouse column of type {} is not a {}", column.type_name(),
       wanted);
}

}  // namespace rowbridge::clickhouse
