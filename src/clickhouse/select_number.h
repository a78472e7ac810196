// The one number a query such as "SELECT toUInt64(count()) FROM ..." returns.
#pragma once

#include <cstdint>
#include <string_view>

#include "clickhouse/client.h"

namespace rowbridge::clickhouse {

// The first column of the first row, which must be UInt64 (else Error(kProtocol) from the column
// cast); 0 when the query returns no row. Throws what Client::Select throws.
uint64_t SelectUInt64(Client& client, std::string_view sql);

}  // namespace rowbridge::clickhouse
