// `rowbridge dump-binlog` reading a live replication stream prints the same row changes as the
// offline decoding of the very same binlog file.
#include <gtest/gtest.h>

#include "support/subprocess.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

std::vector<std::string> LiveArgs(const MysqlAddress& db, const std::string& file) {
  return {ROWBRIDGE_BINARY,        "dump-binlog", "--host",     db.host,      "--port",
          std::to_string(db.port), "--user",      db.repl_user, "--password", db.repl_password,
          "--start-file",          file,          "--format",   "mysqlbinlog"};
}

TEST(DumpBinlogLive, MatchesOfflineDecodingOfTheSameFile) {
  ScopedMariaDb server({"--binlog-row-metadata=FULL"});
  const MysqlAddress& db = server.address();
  server.Sql(
      "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), x DECIMAL(10,3));"
      "INSERT INTO d.t VALUES (1, 'one', -1.5), (2, 'zwei', 2.25);"
      "UPDATE d.t SET v = 'deux' WHERE id = 2; DELETE FROM d.t WHERE id = 1;");
  std::string file = server.Sql(BinlogStatusSql(db));
  file = file.substr(0, file.find('\t'));
  ASSERT_FALSE(file.empty());

  // Without --follow the dump ends at the end of the source's binlog.
  CommandResult live = RunCommand(LiveArgs(db, file), {}, std::chrono::seconds(60));
  ASSERT_EQ(live.exit_code, 0) << live.err;
  CommandResult offline = RunCommand(
      {ROWBRIDGE_BINARY, "dump-binlog", "--format", "mysqlbinlog", db.datadir + "/" + file});
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_NE(live.out.find("### UPDATE `d`.`t`"), std::string::npos) << live.out;
  EXPECT_NE(live.out.find("###   @2='deux'"), std::string::npos) << live.out;
  EXPECT_EQ(live.out, offline.out);
}

TEST(DumpBinlogLive, StartsFromAMariadbGtidMariaDbOnly) {
  ScopedMariaDb server;
  server.Sql(
      "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY);"
      "INSERT INTO d.t VALUES (1);");
  std::string gtid = server.Sql("SELECT @@gtid_binlog_pos");
  gtid.erase(gtid.find_last_not_of('\n') + 1);
  server.Sql("INSERT INTO d.t VALUES (2);");
  const MysqlAddress& db = server.address();
  CommandResult live = RunCommand({ROWBRIDGE_BINARY, "dump-binlog", "--host", db.host, "--port",
                                   std::to_string(db.port), "--user", db.repl_user, "--password",
                                   db.repl_password, "--start-gtid", gtid, "--format", "json"},
                                  {}, std::chrono::seconds(60));
  ASSERT_EQ(live.exit_code, 0) << live.err;
  // Only the transaction after the GTID position: the row with id 2.
  EXPECT_EQ(live.out.find("\"@1\":1}"), std::string::npos) << live.out;
  EXPECT_NE(live.out.find("\"@1\":2}"), std::string::npos) << live.out;
}

TEST(DumpBinlogLive, WrongPasswordIsAClearError) {
  ROWBRIDGE_REQUIRE_MYSQL();
  MysqlAddress db = MysqlFromEnv();
  CommandResult live =
      RunCommand({ROWBRIDGE_BINARY, "dump-binlog", "--host", db.host, "--port",
                  std::to_string(db.port), "--user", db.repl_user, "--password", "wrong"});
  EXPECT_EQ(live.exit_code, 1);
  EXPECT_NE(live.err.find("1045"), std::string::npos) << live.err;
}

}  // namespace
}  // namespace rowbridge::testing
