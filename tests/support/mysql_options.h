// ConnectOptions for rowbridge's own MySQL client (src/mysql) from a test server's address, so
// every protocol test logs in the same way.
#pragma once

#include "mysql/connection.h"
#include "support/test_servers.h"

namespace rowbridge::testing {

// The address's root user over TCP (TLS left at its default, kPreferred), with timeouts generous
// enough for a loaded machine (connect 10 s, read and write 60 s; the write timeout is the
// default).
mysql::ConnectOptions MysqlConnectOptions(const MysqlAddress& server);

}  // namespace rowbridge::testing
