#include <gtest/gtest.h>

#include "common/error.h"
#include "mysql/connection.h"
#include "mysql_test_env.h"

namespace rowbridge::mysql {
namespace {

using testing::EnvOr;

TEST(MysqlConnection, NativePasswordLoginQueryAndPing) {
  ConnectOptions o;
  ROWBRIDGE_REQUIRE_TEST_MYSQL(o);
  auto c = Connection::Connect(o);
  EXPECT_TRUE(c->is_mariadb());
  EXPECT_EQ(c->auth_plugin(), "mysql_native_password");
  ResultSet rs = c->Query("SELECT 1 AS one, NULL AS nothing, 'x\\0y' AS bin, @@version AS v");
  ASSERT_EQ(rs.column_count(), 4u);
  EXPECT_EQ(rs.columns()[0].name, "one");
  EXPECT_EQ(rs.ColumnIndex("v"), 3u);
  ASSERT_TRUE(rs.Next());
  EXPECT_EQ(rs.Field(0), "1");
  EXPECT_TRUE(rs.IsNull(1));
  EXPECT_EQ(rs.Field(2), std::string_view("x\0y", 3));
  EXPECT_NE(rs.Field(3).find("MariaDB"), std::string_view::npos);
  EXPECT_FALSE(rs.Next());
  c->Ping();
  EXPECT_EQ(c->QueryValue("SELECT CONNECTION_ID()"), std::to_string(c->connection_id()));
  auto r = c->Execute("DO 1");
  EXPECT_EQ(r.affected_rows, 0u);
}

TEST(MysqlConnection, WrongPasswordIsServerError1045) {
  ConnectOptions o;
  ROWBRIDGE_REQUIRE_TEST_MYSQL(o);
  o.password += "-wrong";
  try {
    Connection::Connect(o);
    FAIL() << "login with a wrong password succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
    EXPECT_EQ(e.server_code(), 1045) << e.what();
    EXPECT_EQ(e.sql_state(), "28000");
    std::string msg = e.what();
    EXPECT_NE(msg.find("1045"), std::string::npos) << msg;
    EXPECT_NE(msg.find("28000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Access denied"), std::string::npos) << msg;
    EXPECT_NE(msg.find(fmt::format("{}:{}", o.host, o.port)), std::string::npos) << msg;
  }
}

TEST(MysqlConnection, QueryErrorCarriesCodeAndState) {
  ConnectOptions o;
  ROWBRIDGE_REQUIRE_TEST_MYSQL(o);
  auto c = Connection::Connect(o);
  try {
    c->Query("SELECT * FROM no_such_db.no_such_table");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.server_code(), 1146) << e.what();
    EXPECT_EQ(e.sql_state(), "42S02");
  }
  c->Ping();  // the session is still usable after a server error
}

}  // namespace
}  // namespace rowbridge::mysql
