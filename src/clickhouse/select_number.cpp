#include "clickhouse/select_number.h"

#include "clickhouse/columns/numeric.h"

namespace rowbridge::clickhouse {

uint64_t SelectUInt64(Client& client, std::string_view sql) {
  uint64_t number = 0;
  client.Select(sql, [&](Block& block) {
    if (block.RowCount() > 0) number = As<ColumnUInt64>(block.At(0)).At(0);
    return true;
  });
  return number;
}

}  // namespace rowbridge::clickhouse
