#include <gtest/gtest.h>

#include <thread>

#include "common/log_fields.h"

namespace rowbridge {
namespace {

std::string Render() {
  std::string out;
  for (const LogField& f : CurrentLogFields()) {
    out += f.key + "=" + (f.number ? f.value : "'" + f.value + "'") + " ";
  }
  return out;
}

TEST(LogFields, NestAndLeaveWithTheirScope) {
  EXPECT_EQ(Render(), "");
  {
    LogFields table;
    table.Table("shop", "orders");
    EXPECT_EQ(Render(), "database='shop' table='orders' ");
    {
      LogFields position;
      position.Position("mysql-bin.000003", 1234, "0-1-42").Add("table", "items");
      EXPECT_EQ(Render(),
                "database='shop' table='orders' binlog_file='mysql-bin.000003' binlog_pos=1234 "
                "gtid='0-1-42' table='items' ");
    }
    EXPECT_EQ(Render(), "database='shop' table='orders' ");
    LogFields no_gtid;
    no_gtid.Position("b.1", 4);
    EXPECT_EQ(Render(), "database='shop' table='orders' binlog_file='b.1' binlog_pos=4 ");
  }
  EXPECT_EQ(Render(), "");
}

TEST(LogFields, BelongToTheirThread) {
  LogFields mine;
  mine.Add("k", "v");
  std::string other;
  std::thread([&] { other = Render(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(Render(), "k='v' ");
}

}  // namespace
}  // namespace rowbridge
