// TABLE_MAP optional metadata as MariaDB 10.11 really writes it.
#include <gtest/gtest.h>

#include <filesystem>

#include "binlog/binlog_event_reader.h"
#include "binlog/binlog_file_reader.h"
#include "binlog/table_map_event.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

// MariaDB counts YEAR as a numeric column in the SIGNEDNESS bitmap; reading it MySQL's way gave
// every later integer its neighbour's flag (an UNSIGNED 255 read back as -1).
TEST(BinlogTableMap, MariadbSignednessCountsYear) {
  ScopedMariaDb server({"--binlog-row-metadata=FULL"});
  server.Sql(
      "CREATE DATABASE d; CREATE TABLE d.t (y YEAR, u TINYINT UNSIGNED, s TINYINT, "
      "b BIGINT UNSIGNED, c DECIMAL(5,2) UNSIGNED, f FLOAT);"
      "INSERT INTO d.t VALUES (2024, 255, -1, 1, 1.5, 2);"
      "FLUSH BINARY LOGS;");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(server.address().datadir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("mysql-bin.0", 0) == 0) files.push_back(entry.path());
  }
  ASSERT_FALSE(files.empty()) << "no binlog in " << server.address().datadir;
  bool seen = false;
  for (const auto& path : files) {
    binlog::BinlogFileReader file(path.string());
    binlog::BinlogEventReader reader(file);
    binlog::Event ev;
    while (reader.Next(ev)) {
      if (ev.type() != binlog::EventType::kTableMap) continue;
      binlog::TableMap map = binlog::ParseTableMap(ev, reader.format());
      if (map.table != "t") continue;
      seen = true;
      ASSERT_EQ(map.columns.size(), 6u);
      EXPECT_EQ(map.columns[1].name, "u");
      EXPECT_TRUE(map.columns[1].signedness_known);
      EXPECT_TRUE(map.columns[1].is_unsigned) << "u";
      EXPECT_FALSE(map.columns[2].is_unsigned) << "s";
      EXPECT_TRUE(map.columns[3].is_unsigned) << "b";
      EXPECT_TRUE(map.columns[4].is_unsigned) << "c";
      EXPECT_FALSE(map.columns[5].is_unsigned) << "f";
    }
  }
  EXPECT_TRUE(seen) << "no TABLE_MAP for d.t found";
}

}  // namespace
}  // namespace rowbridge::testing
