// rowbridge-loadgen against the shared MariaDB: the seed's flags, the seed table and an
// arbitrary table with every generated type, and the update/delete mix.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/bytes.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using ::rowbridge::testing::ReadFile;

std::vector<std::string> LoadgenArgs(const MysqlAddress& db, const std::string& schema,
                                     const std::string& table) {
  return {ROWBRIDGE_LOADGEN_BINARY,
          "-host",
          db.host,
          "-port",
          std::to_string(db.port),
          "-user",
          db.user,
          "-pwd",
          db.password,
          "-schema",
          schema,
          "-table",
          table};
}

TEST(Loadgen, SeedFlagsFillTheSeedTable) {
  ROWBRIDGE_REQUIRE_MYSQL();
  auto db = MysqlFromEnv();
  std::string schema = UniqueName("loadgen");
  std::string ddl = ReadFile(SourceDir() / "tests/data/seed/mysql_schema.sql");
  // The seed file names its own database; run it inside ours.
  ddl.replace(ddl.find("CREATE DATABASE IF NOT EXISTS bifrost_test;"), 43, "");
  ddl.replace(ddl.find("USE bifrost_test;"), 17, "");
  RunMysqlSql(db, "CREATE DATABASE " + schema);
  RunMysqlSql(db, ddl, schema);

  auto args = LoadgenArgs(db, schema, "binlog_field_test_1");
  for (const char* a : {"-count", "5000", "-batchsize", "500", "-conn", "2", "-time_interval", "0"})
    args.push_back(a);
  auto result = RunCommand(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("DONE"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("inserted=5000"), std::string::npos) << result.out;
  EXPECT_EQ(RunMysqlSql(db, "SELECT COUNT(*) FROM binlog_field_test_1", schema), "5000\n");
  // Values vary: a constant generator would make a useless benchmark.
  EXPECT_GT(std::stoi(RunMysqlSql(db, "SELECT COUNT(DISTINCT testvarchar) FROM binlog_field_test_1",
                                  schema)),
            4000);
  RunMysqlSql(db, "DROP DATABASE " + schema);
}

TEST(Loadgen, AnyTableWithUpdatesAndDeletes) {
  ROWBRIDGE_REQUIRE_MYSQL();
  auto db = MysqlFromEnv();
  std::string schema = UniqueName("loadgen");
  RunMysqlSql(db, "CREATE DATABASE " + schema);
  RunMysqlSql(db,
              "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a DECIMAL(65,30), "
              "b DATETIME(6) NULL, c TIME(3), d JSON, e SET('x','y''q','z'), f BIT(5), "
              "g VARBINARY(20), h YEAR, i POINT, j DOUBLE, k MEDIUMINT UNSIGNED, l DATE)",
              schema);
  auto args = LoadgenArgs(db, schema, "t");
  for (const char* a : {"--count", "3000", "--batchsize", "100", "--conn", "3", "--time_interval",
                        "0", "--update-percent", "20", "--delete-percent", "10"})
    args.push_back(a);
  auto result = RunCommand(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("updated="), std::string::npos);
  int rows = std::stoi(RunMysqlSql(db, "SELECT COUNT(*) FROM t", schema));
  EXPECT_GT(rows, 0);
  EXPECT_LT(rows, 3000) << "deletes should have removed rows";
  RunMysqlSql(db, "DROP DATABASE " + schema);
}

TEST(Loadgen, MissingTableIsAClearError) {
  ROWBRIDGE_REQUIRE_MYSQL();
  auto db = MysqlFromEnv();
  auto result = RunCommand(LoadgenArgs(db, "mysql", "no_such_table_here"));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("no_such_table_here not found"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace rowbridge::testing
