#include "support/mysql_options.h"

#include "support/server_login.h"

namespace rowbridge::testing {

mysql::ConnectOptions MysqlConnectOptions(const MysqlAddress& server) {
  return ServerLogin<mysql::ConnectOptions>(server);
}

}  // namespace rowbridge::testing
