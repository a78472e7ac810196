#include "tables/replay_window.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"

namespace rowbridge::tables {
namespace {

// The names created after a position, found past many pages of events. On MariaDB 11 the events
// inside a transaction show End_log_pos 0, which once ended the scan at the first page that
// ended inside one: a table created later was then copied as newly matched over the replay.
TEST(TablesReplayWindow, FindsTablesCreatedAfterThousandsOfEventsInTransactions) {
  ROWBRIDGE_REQUIRE_MYSQL();
  auto c = mysql::Connection::Connect(testing::MysqlConnectOptions(testing::MysqlFromEnv()));
  const std::string db = fmt::format("rb_replay_window_{}", getpid());
  c->Execute(fmt::format("DROP DATABASE IF EXISTS `{}`", db));
  c->Execute(fmt::format("CREATE DATABASE `{}`", db));
  c->Execute(fmt::format("USE `{}`", db));
  c->Execute("CREATE TABLE before_start (id INT PRIMARY KEY)");
  c->Execute("CREATE TABLE renamed_away (id INT PRIMARY KEY)");
  c->Execute("CREATE TABLE altered_away (id INT PRIMARY KEY)");

  const mysql::BinlogPosition start = mysql::CurrentBinlogPosition(*c);

  // About 3 events per INSERT (4 on MariaDB: its Annotate_rows), 700 INSERTs per transaction:
  // every page of 1000 ends inside a transaction.
  for (int t = 0; t < 3; ++t) {
    c->Execute("BEGIN");
    for (int i = 0; i < 700; ++i) {
      c->Execute(fmt::format("INSERT INTO before_start VALUES ({})", t * 1000 + i));
    }
    c->Execute("COMMIT");
    if (t == 0) c->Execute("CREATE TABLE created_late (id INT PRIMARY KEY)");
    if (t == 1) c->Execute("RENAME TABLE renamed_away TO renamed_late");
  }
  c->Execute("ALTER TABLE altered_away RENAME TO altered_late");
  c->Execute("CREATE TEMPORARY TABLE temporary_late (id INT)");

  std::set<std::string> created;
  // Tests beside this one create tables in their own databases on the shared server.
  for (const SourceTableName& name : TablesCreatedSince(*c, start.file, start.position)) {
    if (name.database == db) created.insert(name.ToString());
  }
  EXPECT_EQ(created, (std::set<std::string>{db + ".altered_late", db + ".created_late",
                                            db + ".renamed_late"}));
  c->Execute(fmt::format("DROP DATABASE `{}`", db));
}

}  // namespace
}  // namespace rowbridge::tables
