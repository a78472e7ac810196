// How every test logs in to a test server with one of rowbridge's own clients: the address's
// host, port, user and password, and the timeouts a loaded machine needs (connect 10 s, read and
// write 60 s each). Used by support/mysql_options.h and support/clickhouse_options.h.
#pragma once

#include <chrono>

namespace rowbridge::testing {

// `Options` is mysql::ConnectOptions or clickhouse::ClientOptions, `Address` the matching
// MysqlAddress or ClickHouseAddress.
template <typename Options, typename Address>
Options ServerLogin(const Address& server) {
  Options o;
  o.host = server.host;
  o.port = server.port;
  o.user = server.user;
  o.password = server.password;
  o.tcp.connect_timeout = std::chrono::seconds(10);
  o.tcp.read_timeout = std::chrono::seconds(60);
  o.tcp.write_timeout = std::chrono::seconds(60);
  return o;
}

}  // namespace rowbridge::testing
