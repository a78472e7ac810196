#include "snapshot/binary_rows.h"

#include "common/error.h"
#include "mysql/binary_row.h"

namespace rowbridge::snapshot {

void BinaryRows::Get(size_t i, std::span<const mysql::ColumnDefinition> columns,
                     std::string_view where,
                     std::vector<std::optional<std::string_view>>& fields) const {
  if (i >= starts_.size()) {
    Fail(ErrorCode::kInvalidArgument, "{}: kept row {} of {} asked for", where, i, starts_.size());
  }
  const size_t end = i + 1 < starts_.size() ? starts_[i + 1] : bytes_.size();
  const std::string_view packet = std::string_view(bytes_).substr(starts_[i], end - starts_[i]);
  values_.resize(columns.size());
  nulls_.resize(columns.size());
  mysql::ParseBinaryRow(packet, columns, values_, nulls_, where);
  fields.resize(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    fields[c] = nulls_[c] ? std::nullopt : std::optional<std::string_view>(values_[c]);
  }
}

}  // namespace rowbridge::snapshot
