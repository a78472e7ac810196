// ClientOptions for rowbridge's own ClickHouse client (src/clickhouse) from a test server's
// address, so every test logs in the same way: the twin of support/mysql_options.h.
#pragma once

#include "clickhouse/client.h"
#include "support/test_servers.h"

namespace rowbridge::testing {

// The address's default user over the native protocol (no TLS), with the timeouts a loaded
// machine needs (connect 10 s, read and write 60 s each).
clickhouse::ClientOptions ClickHouseClientOptions(const ClickHouseAddress& server);

}  // namespace rowbridge::testing
