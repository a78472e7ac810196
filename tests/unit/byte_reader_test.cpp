#include "common/byte_reader.h"

#include <gtest/gtest.h>

namespace rowbridge {
namespace {

TEST(ByteReader, ReadsLittleEndianIntegers) {
  const uint8_t bytes[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07};
  ByteReader r(bytes, sizeof bytes);
  EXPECT_EQ(r.U8(), 0x01);
  EXPECT_EQ(r.U16(), 0x0302);
  EXPECT_EQ(r.U32(), 0x07060504u);
  EXPECT_TRUE(r.AtEnd());
}

TEST(ByteReader, TruncationNamesTheAbsoluteOffset) {
  const uint8_t bytes[] = {0x01, 0x02};
  ByteReader r(bytes, sizeof bytes, 1000, "binlog test.000001");
  r.U8();
  try {
    r.U32("event length");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    EXPECT_NE(std::string(e.what()).find("offset 1001"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("event length"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("binlog test.000001"), std::string::npos) << e.what();
  }
}

TEST(ByteReader, LengthEncodedIntegersAndStrings) {
  const uint8_t bytes[] = {0xfa, 0xfc, 0x34, 0x12, 0x03, 'a', 'b', 'c', 'x', 'y', 0, 'z'};
  ByteReader r(bytes, sizeof bytes);
  EXPECT_EQ(r.LengthEncoded(), 0xfau);
  EXPECT_EQ(r.LengthEncoded(), 0x1234u);
  EXPECT_EQ(r.LengthEncodedString(), "abc");
  EXPECT_EQ(r.NulTerminated(), "xy");
  EXPECT_EQ(r.Rest(), "z");
}

TEST(ByteReader, LengthEncodedStringLongerThanInputIsCorrupt) {
  const uint8_t bytes[] = {0x05, 'a'};
  ByteReader r(bytes, sizeof bytes);
  EXPECT_THROW(r.LengthEncodedString(), Error);
}

}  // namespace
}  // namespace rowbridge
