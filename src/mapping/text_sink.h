// Writing text into whichever text column a converter targets: String, LowCardinality(String)
// (nullable or not) or FixedString(N). Shared by every converter family that renders text.
#pragma once

#include <string_view>

#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/string.h"
#include "mapping/converter.h"
#include "mapping/mysql_text.h"

namespace rowbridge::mapping {

// FixedString(N) takes at most N bytes; longer values go through the string_too_long rule
// (clamp keeps the first N bytes).
void PutTextTooLong(const Converter& c, const binlog::Cell& cell, clickhouse::Column& column,
                    std::string_view text);

inline void PutText(const Converter& c, const binlog::Cell& cell, clickhouse::Column& column,
                    std::string_view text) {
  switch (c.text_sink) {
    case TextSink::kString:
      static_cast<clickhouse::ColumnString&>(column).Append(text);
      return;
    case TextSink::kLowCardinality:
      static_cast<clickhouse::ColumnLowCardinalityString&>(column).Append(text);
      return;
    case TextSink::kFixedString: {
      auto& fixed = static_cast<clickhouse::ColumnFixedString&>(column);
      if (text.size() > fixed.width()) {
        PutTextTooLong(c, cell, column, text);
        return;
      }
      fixed.Append(text);
      return;
    }
    case TextSink::kNone:
      break;
  }
}

// True if the (unwrapped) target is a text column; sets c.text_sink accordingly.
bool IsTextTarget(Converter& c);

}  // namespace rowbridge::mapping
