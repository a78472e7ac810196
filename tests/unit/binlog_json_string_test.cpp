#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "binlog/json_string.h"

namespace rowbridge::binlog {
namespace {

std::string Json(std::string_view text, InvalidUtf8 invalid = InvalidUtf8::kEscape) {
  std::string out = "prefix:";
  AppendJsonString(text, out, invalid);
  return out;
}

size_t Utf8Length(std::string_view bytes) {
  return Utf8SequenceLength(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(JsonString, EscapesAsMysqlDoubleQuote) {
  EXPECT_EQ(Json(""), "prefix:\"\"");
  EXPECT_EQ(Json("plain text"), "prefix:\"plain text\"");
  EXPECT_EQ(Json("q\" b\\ \b\f\n\r\t"), "prefix:\"q\\\" b\\\\ \\b\\f\\n\\r\\t\"");
  EXPECT_EQ(Json(std::string_view("\0\x01\x1f\x7f", 4)), "prefix:\"\\u0000\\u0001\\u001f\x7f\"");
}

TEST(JsonString, ValidUtf8PassesAndInvalidBytesAreEscapedOrKept) {
  const std::string utf8 = "\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80";  // é 中 😀
  EXPECT_EQ(Json(utf8), "prefix:\"" + utf8 + "\"");
  EXPECT_EQ(Json(utf8, InvalidUtf8::kVerbatim), "prefix:\"" + utf8 + "\"");
  // A latin1 é, a cut-short 3-byte sequence, a stray continuation byte.
  const std::string bad = "a\xe9z \xe4\xb8 \x80";
  EXPECT_EQ(Json(bad), "prefix:\"a\\u00e9z \\u00e4\\u00b8 \\u0080\"");
  EXPECT_EQ(Json(bad, InvalidUtf8::kVerbatim), "prefix:\"" + bad + "\"");
  // Control bytes are escaped in both modes.
  EXPECT_EQ(Json("\xff\n", InvalidUtf8::kVerbatim), "prefix:\"\xff\\n\"");
  EXPECT_EQ(Json("\xff\n"), "prefix:\"\\u00ff\\n\"");
}

TEST(JsonString, Utf8SequenceLengthRejectsWhatIsNotUtf8) {
  EXPECT_EQ(Utf8Length("a"), 1u);
  EXPECT_EQ(Utf8Length("\xc3\xa9"), 2u);
  EXPECT_EQ(Utf8Length("\xe4\xb8\xad"), 3u);
  EXPECT_EQ(Utf8Length("\xf4\x8f\xbf\xbf"), 4u);  // U+10FFFF
  EXPECT_EQ(Utf8Length("\xc0\x80"), 0u);          // overlong NUL
  EXPECT_EQ(Utf8Length("\xe0\x80\x80"), 0u);      // overlong
  EXPECT_EQ(Utf8Length("\xed\xa0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(Utf8Length("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(Utf8Length("\xe4\xb8"), 0u);          // cut short
  EXPECT_EQ(Utf8Length("\xbf"), 0u);              // continuation byte
}

TEST(JsonString, SanitizingTouchesOnlyInvalidBytes) {
  std::string out;
  AppendUtf8Sanitized("{\"k\":\"\xc3\xa9\xe9\"}", out);
  EXPECT_EQ(out, "{\"k\":\"\xc3\xa9\\u00e9\"}");
}

}  // namespace
}  // namespace rowbridge::binlog
