// `rowbridge check` reads source rows with a text-protocol SELECT but must normalise them with
// the pipeline's converters, which take binlog Cells. This file bridges the two: for each source
// column it names the SELECT expression whose text is exact (FLOAT/DOUBLE as `col + 0e0`, which
// prints every significant digit; TIMESTAMP as UNIX_TIMESTAMP(col), which does not depend on the
// session time zone; BIT/ENUM/SET as `CAST(col AS UNSIGNED)`, their number), and it encodes that
// text into the bytes a row event stores for the column, so converters see exactly what the binlog
// would give them.
//
// Supported: every integer type, FLOAT, DOUBLE, DECIMAL, DATE, TIME(fsp), DATETIME(fsp),
// TIMESTAMP(fsp) (the "2" storage formats), YEAR, BIT, ENUM, SET, CHAR/VARCHAR/BINARY/VARBINARY,
// TEXT/BLOB of every size, GEOMETRY. MySQL's binary JSON and VECTOR throw Error(kUnsupported).
// Text that does not parse as the column's type throws Error(kCorruption) naming the column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "binlog/cell.h"
#include "binlog/table_map.h"

namespace rowbridge::check {

// `quoted_name` is the column as it appears in SQL (backticks included).
std::string SourceSelectExpression(const binlog::ColumnDef& column, std::string_view quoted_name);

// True if check can read this column type at all (see above).
bool IsCheckableSourceType(const binlog::ColumnDef& column);

class TextCellEncoder {
 public:
  // Encodes one field (nullopt = SQL NULL) as a Cell of `column`. The cell points into this
  // encoder's buffer (or into `text` for strings): valid until the next Encode and while `text`
  // lives. `column` must outlive the cell.
  binlog::Cell Encode(const binlog::ColumnDef& column, uint32_t index,
                      std::optional<std::string_view> text);

 private:
  uint8_t buf_[64];
};

}  // namespace rowbridge::check
