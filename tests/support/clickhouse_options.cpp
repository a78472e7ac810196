#include "support/clickhouse_options.h"

#include "support/server_login.h"

namespace rowbridge::testing {

clickhouse::ClientOptions ClickHouseClientOptions(const ClickHouseAddress& server) {
  return ServerLogin<clickhouse::ClientOptions>(server);
}

}  // namespace rowbridge::testing
