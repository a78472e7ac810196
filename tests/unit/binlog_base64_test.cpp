#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "binlog/base64.h"

namespace rowbridge::binlog {
namespace {

std::string Base64(std::string_view bytes, size_t line_length = 0) {
  std::string out;
  AppendBase64(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out, line_length);
  return out;
}

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string_view("\xff\xfe\x00", 3)), "//4A");
}

TEST(Base64, MysqlLinesBreakBetweenNotAfter) {
  const std::string exactly_one_line(57, 'a');  // 57 bytes = 76 characters
  EXPECT_EQ(Base64(exactly_one_line, 76), std::string(Base64(exactly_one_line)));
  EXPECT_EQ(Base64(exactly_one_line, 76).find('\n'), std::string::npos);
  const std::string text = Base64(std::string(58, 'a'), 76);
  ASSERT_EQ(text.size(), 76u + 1 + 4);
  EXPECT_EQ(text[76], '\n');
  EXPECT_EQ(text.substr(0, 76) + text.substr(77), Base64(std::string(58, 'a')));
}

}  // namespace
}  // namespace rowbridge::binlog
