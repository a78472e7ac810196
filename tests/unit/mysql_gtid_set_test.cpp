#include <gtest/gtest.h>

#include "common/byte_reader.h"
#include "common/error.h"
#include "mysql/gtid_set.h"

namespace rowbridge::mysql {
namespace {

const char* kUuidA = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const char* kUuidB = "ffffffff-0000-1111-2222-333344445555";

TEST(MysqlGtidSet, ParsesFormatsAndCoalesces) {
  auto set = MysqlGtidSet::Parse(std::string(kUuidB) + ":5-7,\n  " + kUuidA + ":1-3:4:10-12:11");
  EXPECT_EQ(set.ToString(), std::string(kUuidA) + ":1-4:10-12," + kUuidB + ":5-7");
  EXPECT_TRUE(set.Contains(Uuid::Parse(kUuidA), "", 4));
  EXPECT_FALSE(set.Contains(Uuid::Parse(kUuidA), "", 5));
  EXPECT_TRUE(set.Contains(Uuid::Parse(kUuidB), "", 7));
  EXPECT_TRUE(MysqlGtidSet::Parse("  ").empty());
  EXPECT_EQ(MysqlGtidSet::Parse(std::string("3E11FA47-71CA-11E1-9E33-C80AA9429562:9")).ToString(),
            std::string(kUuidA) + ":9");
}

TEST(MysqlGtidSet, TagsAreSeparateSequences) {
  auto set =
      MysqlGtidSet::Parse(std::string(kUuidA) + ":1-3:Blue:1-2:green:7," + kUuidA + ":blue:3");
  EXPECT_EQ(set.ToString(), std::string(kUuidA) + ":1-3:blue:1-3:green:7");
  EXPECT_TRUE(set.HasTags());
  EXPECT_TRUE(set.Contains(Uuid::Parse(kUuidA), "BLUE", 3));
  EXPECT_FALSE(set.Contains(Uuid::Parse(kUuidA), "green", 3));
  EXPECT_EQ(MysqlGtidSet::Parse(set.ToString()), set);
}

TEST(MysqlGtidSet, AddAndMergeKeepIntervalsDisjoint) {
  MysqlGtidSet set;
  Uuid a = Uuid::Parse(kUuidA);
  for (uint64_t g : {5, 1, 3, 2, 4, 9, 7}) set.Add(a, "", g);
  EXPECT_EQ(set.ToString(), std::string(kUuidA) + ":1-5:7:9");
  set.Add(a, "", 6, 8);
  EXPECT_EQ(set.Intervals(a), (std::vector<GtidInterval>{{1, 9}}));
  MysqlGtidSet other = MysqlGtidSet::Parse(std::string(kUuidA) + ":20-30," + kUuidB + ":1");
  set.Merge(other);
  EXPECT_EQ(set.ToString(), std::string(kUuidA) + ":1-9:20-30," + kUuidB + ":1");
  set.Add(a, "", 10, 19);
  EXPECT_EQ(set.Intervals(a), (std::vector<GtidInterval>{{1, 30}}));
}

TEST(MysqlGtidSet, RejectsBadText) {
  for (std::string bad :
       {std::string("nonsense"), std::string(kUuidA), std::string(kUuidA) + ":0",
        std::string(kUuidA) + ":5-3", std::string(kUuidA) + ":1-x", std::string(kUuidA) + ":tag",
        std::string(kUuidA) + ":9223372036854775808", std::string(kUuidA) + ":1,",
        std::string("3e11fa47-71ca-11e1-9e33-c80aa942956:1"),
        std::string(kUuidA) + ":1:" + std::string(33, 't') + ":1"}) {
    try {
      MysqlGtidSet::Parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    }
  }
}

TEST(MysqlGtidSet, EncodesUntaggedForComBinlogDumpGtid) {
  auto set = MysqlGtidSet::Parse(std::string(kUuidA) + ":1-3:7");
  std::string e = set.Encode();
  ASSERT_EQ(e.size(), 8u + 16 + 8 + 2 * 16);
  ByteReader r(e);
  EXPECT_EQ(r.U64(), 1u);
  EXPECT_EQ(r.Bytes(16),
            std::string_view(reinterpret_cast<const char*>(Uuid::Parse(kUuidA).bytes.data()), 16));
  EXPECT_EQ(r.U64(), 2u);
  EXPECT_EQ(r.U64(), 1u);
  EXPECT_EQ(r.U64(), 4u);  // end is exclusive
  EXPECT_EQ(r.U64(), 7u);
  EXPECT_EQ(r.U64(), 8u);
  EXPECT_EQ(MysqlGtidSet().Encode(), std::string(8, '\0'));
}

TEST(MysqlGtidSet, EncodesTaggedFormat) {
  auto set = MysqlGtidSet::Parse(std::string(kUuidA) + ":1:abc:2");
  std::string e = set.Encode();
  ByteReader r(e);
  EXPECT_EQ(r.U64(), (uint64_t{1} << 56) | (2u << 8) | 1u);
  r.Skip(16);
  EXPECT_EQ(r.U8(), 0u);  // untagged entry: empty tag
  EXPECT_EQ(r.U64(), 1u);
  EXPECT_EQ(r.U64(), 1u);
  EXPECT_EQ(r.U64(), 2u);
  r.Skip(16);
  EXPECT_EQ(r.U8(), 3u << 1);
  EXPECT_EQ(r.Bytes(3), "abc");
  EXPECT_EQ(r.U64(), 1u);
  EXPECT_EQ(r.U64(), 2u);
  EXPECT_EQ(r.U64(), 3u);
  EXPECT_TRUE(r.AtEnd());
}

TEST(MariadbGtidPosition, ParsesUpdatesAndFormats) {
  auto pos = MariadbGtidPosition::Parse(" 1-2-50, 0-1-100");
  EXPECT_EQ(pos.ToString(), "0-1-100,1-2-50");
  EXPECT_EQ(pos.Find(1)->sequence, 50u);
  pos.Update(MariadbGtid{1, 3, 51});
  pos.Update(MariadbGtid{7, 1, 1});
  EXPECT_EQ(pos.ToString(), "0-1-100,1-3-51,7-1-1");
  EXPECT_FALSE(pos.Find(2).has_value());
  EXPECT_TRUE(MariadbGtidPosition::Parse("").empty());
  EXPECT_EQ(MariadbGtid::Parse("4294967295-4294967295-18446744073709551615").ToString(),
            "4294967295-4294967295-18446744073709551615");
  for (const char* bad : {"0-1", "0-1-2-3", "a-b-c", "0-1-2,0-2-3", "4294967296-1-1", "0--1"}) {
    EXPECT_THROW(MariadbGtidPosition::Parse(bad), Error) << bad;
  }
}

}  // namespace
}  // namespace rowbridge::mysql
