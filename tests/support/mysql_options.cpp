#include "support/mysql_options.h"

#include <chrono>

namespace rowbridge::testing {

mysql::ConnectOptions MysqlConnectOptions(const MysqlAddress& server) {
  mysql::ConnectOptions o;
  o.host = server.host;
  o.port = server.port;
  o.user = server.user;
  o.password = server.password;
  o.tcp.connect_timeout = std::chrono::seconds(10);
  o.tcp.read_timeout = std::chrono::seconds(60);
  return o;
}

}  // namespace rowbridge::testing
