// `rowbridge run --start-at`: which form a text is. Resolving it against a source is tested live
// (tests/integration/pipeline_start_at_test.cpp).
#include <gtest/gtest.h>

#include "common/error.h"
#include "mysql/start_position.h"

namespace rowbridge::mysql {
namespace {

TEST(MysqlStartAt, ParsesEachForm) {
  EXPECT_EQ(ParseStartAt("now").kind, StartAt::Kind::kNow);
  EXPECT_EQ(ParseStartAt("earliest").kind, StartAt::Kind::kEarliest);
  StartAt file = ParseStartAt("mysql-bin.000042:1234");
  EXPECT_EQ(file.kind, StartAt::Kind::kFilePosition);
  EXPECT_EQ(file.file, "mysql-bin.000042");
  EXPECT_EQ(file.position, 1234u);
  for (const char* gtids :
       {"3e11fa47-71ca-11e1-9e33-c80aa9429562:5", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-100",
        "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,"
        "4e11fa47-71ca-11e1-9e33-c80aa9429562:1-3",
        "0-1-100", "0-1-100,1-2-7"}) {
    StartAt g = ParseStartAt(gtids);
    EXPECT_EQ(g.kind, StartAt::Kind::kGtidSet) << gtids;
    EXPECT_EQ(g.gtid_set, gtids);
  }
}

TEST(MysqlStartAt, RejectsWhatIsNoneOfThem) {
  for (const char* bad : {"", "yesterday", "mysql-bin.000001:2"}) {
    try {
      ParseStartAt(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find("--start-at"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rowbridge::mysql
