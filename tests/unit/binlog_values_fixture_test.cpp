// Ties the value tests to the real MySQL binlog fixtures: the cell bytes used in the other tests
// are looked up in the fixture files (so they are what MySQL wrote, not transcriptions) and
// decoded to the values the fixtures' README documents.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "binlog/json_binary.h"
#include "binlog/temporal.h"
#include "support/bytes.h"
#include "support/paths.h"

namespace rowbridge::binlog {
namespace {

using ::rowbridge::testing::FromHex;

std::string ReadFixture(const std::string& relative) {
  return testing::ReadFile(testing::MysqlFixturesDir() / relative);
}

TEST(BinlogValuesFixtures, JsonOpaqueDocumentsDecodeToTheDocumentedValues) {
  ROWBRIDGE_REQUIRE_MYSQL_FIXTURES();
  const std::string file = ReadFixture("rust_mysql_common/json-opaque.binlog");
  struct Case {
    const char* hex;
    const char* text;
  };
  // README: i10 {"a":"base64:type15:VQ=="} ... i24 {"e":null}, here in MySQL's own spacing.
  const Case cases[] = {
      {"0001000f000b0001000f0c00610f0155", R"({"a": "base64:type15:VQ=="})"},
      {"00010016000b0001000f0c00620a080000000000e48b19", R"({"b": "2012-03-18"})"},
      {"00010016000b0001000f0c00630c08000000adb7e48b19", R"({"c": "2012-03-18 11:30:45.000000"})"},
      {"00010016000b0001000f0c00630b08f1fb09ee77050000", R"({"c": "87:31:46.654321"})"},
      {"00010014000b0001000f0c0064f6060603807b01c8", R"({"d": 123.456})"},
      {"00010015000b0001000f0c0065f6070b028000000900", R"({"e": 9.00})"},
      {"0001001c000b000100020c006504001000050000050100040100040200",
       R"({"e": [0, 1, true, false]})"},
      {"0001000c000b00010004000065", R"({"e": null})"},
  };
  for (const Case& c : cases) {
    const std::string doc = FromHex(c.hex);
    // Each document sits in the file right after its 4-byte length prefix.
    const std::string with_length =
        std::string(1, static_cast<char>(doc.size())) + std::string(3, '\0') + doc;
    EXPECT_NE(file.find(with_length), std::string::npos) << c.hex << " not in the fixture";
    EXPECT_EQ(JsonBinaryText(reinterpret_cast<const uint8_t*>(doc.data()), doc.size()), c.text);
  }
}

TEST(BinlogValuesFixtures, NegativeTime2FromTimeIssue) {
  ROWBRIDGE_REQUIRE_MYSQL_FIXTURES();
  const std::string file = ReadFixture("rust_mysql_common/time_issue.000001");
  const std::string cell = FromHex("6043e5");
  EXPECT_NE(file.find(cell), std::string::npos);
  std::string text;
  AppendTimeText(DecodeTime2(reinterpret_cast<const uint8_t*>(cell.data()), cell.size(), 0), 0,
                 text);
  EXPECT_EQ(text, "-507:48:27");
}

TEST(BinlogValuesFixtures, PartialJsonUpdateDiff) {
  ROWBRIDGE_REQUIRE_MYSQL_FIXTURES();
  const std::string file = ReadFixture("rust_mysql_common/json.binlog.000001");
  // The after-image JSON cell of the PARTIAL_UPDATE_ROWS event: length 11, then the diff.
  const std::string diff = FromHex(
      "0005242e6167650305"
      "1a00");
  EXPECT_NE(file.find(std::string("\x0b\0\0\0", 4) + diff), std::string::npos);
  std::string out;
  AppendJsonDiffText(reinterpret_cast<const uint8_t*>(diff.data()), diff.size(), 2, out);
  EXPECT_EQ(out, "JSON_REPLACE(@2, '$.age', 26)");
}

}  // namespace
}  // namespace rowbridge::binlog
