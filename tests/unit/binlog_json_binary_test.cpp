// MySQL binary JSON → text. Documents are built by a small test-only encoder (small and large
// containers, inlined and offset values, every scalar and opaque type) together with the text
// MySQL prints for them; the fixture documents come from json-opaque.binlog (MySQL 9.0.1) and
// json.binlog.000001 (MySQL 8.0.22).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "binlog/json_binary.h"
#include "common/error.h"
#include "support/bytes.h"

namespace rowbridge::binlog {
namespace {

using ::rowbridge::testing::FromHex;

// A value of the test encoder: its type byte, its encoded bytes and the text MySQL prints for it
// inside a document.
struct J {
  uint8_t type;
  std::string data;
  std::string text;
};

std::string LittleEndian(uint64_t v, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

std::string VarLength(size_t n) {
  std::string s;
  do {
    uint8_t b = n & 0x7f;
    n >>= 7;
    if (n != 0) b |= 0x80;
    s.push_back(static_cast<char>(b));
  } while (n != 0);
  return s;
}

J Null() {
  return {0x04, std::string(1, '\0'), "null"};
}
J True() {
  return {0x04, std::string(1, '\1'), "true"};
}
J False() {
  return {0x04, std::string(1, '\2'), "false"};
}
J I16(int16_t v) {
  return {0x05, LittleEndian(static_cast<uint16_t>(v), 2), std::to_string(v)};
}
J U16(uint16_t v) {
  return {0x06, LittleEndian(v, 2), std::to_string(v)};
}
J I32(int32_t v) {
  return {0x07, LittleEndian(static_cast<uint32_t>(v), 4), std::to_string(v)};
}
J U32(uint32_t v) {
  return {0x08, LittleEndian(v, 4), std::to_string(v)};
}
J I64(int64_t v) {
  return {0x09, LittleEndian(static_cast<uint64_t>(v), 8), std::to_string(v)};
}
J U64(uint64_t v) {
  return {0x0a, LittleEndian(v, 8), std::to_string(v)};
}
J Double(double v, std::string text) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return {0x0b, LittleEndian(bits, 8), std::move(text)};
}
J Str(const std::string& s, std::string text) {
  return {0x0c, VarLength(s.size()) + s, std::move(text)};
}
J Str(const std::string& s) {
  return Str(s, "\"" + s + "\"");
}
J Opaque(uint8_t field_type, const std::string& bytes, std::string text) {
  return {0x0f, std::string(1, static_cast<char>(field_type)) + VarLength(bytes.size()) + bytes,
          std::move(text)};
}

bool Inlined(uint8_t type, bool large) {
  return type == 0x04 || type == 0x05 || type == 0x06 || (large && (type == 0x07 || type == 0x08));
}

J Container(bool object, bool large, const std::vector<std::pair<std::string, J>>& members) {
  const size_t os = large ? 4 : 2;
  const size_t n = members.size();
  const size_t header = 2 * os + n * ((object ? os + 2 : 0) + 1 + os);
  std::string keys, values, key_entries, value_entries;
  size_t offset = header;
  for (const auto& [key, value] : members) {
    if (object) {
      key_entries += LittleEndian(offset, os) + LittleEndian(key.size(), 2);
      keys += key;
      offset += key.size();
    }
  }
  for (const auto& [key, value] : members) {
    value_entries.push_back(static_cast<char>(value.type));
    if (Inlined(value.type, large)) {
      std::string inlined = value.data;
      inlined.resize(os, '\0');
      value_entries += inlined;
    } else {
      value_entries += LittleEndian(offset, os);
      values += value.data;
      offset += value.data.size();
    }
  }
  std::string data =
      LittleEndian(n, os) + LittleEndian(offset, os) + key_entries + value_entries + keys + values;
  std::string text = object ? "{" : "[";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) text += ", ";
    if (object) text += "\"" + members[i].first + "\": ";
    text += members[i].second.text;
  }
  text += object ? "}" : "]";
  return {static_cast<uint8_t>(object ? (large ? 0x01 : 0x00) : (large ? 0x03 : 0x02)), data, text};
}

J Array(std::vector<J> elements, bool large = false) {
  std::vector<std::pair<std::string, J>> members;
  for (auto& e : elements) members.emplace_back("", std::move(e));
  return Container(false, large, members);
}
J Object(std::vector<std::pair<std::string, J>> members, bool large = false) {
  return Container(true, large, members);
}

std::string Doc(const J& value) {
  return std::string(1, static_cast<char>(value.type)) + value.data;
}

std::string Text(const std::string& doc) {
  return JsonBinaryText(reinterpret_cast<const uint8_t*>(doc.data()), doc.size());
}

std::string ForMysqlbinlog(const std::string& doc) {
  std::string out;
  AppendJsonBinaryForMysqlbinlog(reinterpret_cast<const uint8_t*>(doc.data()), doc.size(), out);
  return out;
}

std::string DiffText(const std::string& diff, uint32_t column) {
  std::string out;
  AppendJsonDiffText(reinterpret_cast<const uint8_t*>(diff.data()), diff.size(), column, out);
  return out;
}

std::string DoubleText(double d) {
  std::string out;
  AppendMysqlJsonDouble(d, out);
  return out;
}

TEST(BinlogJsonBinary, Scalars) {
  const J scalars[] = {Null(),
                       True(),
                       False(),
                       I16(-32768),
                       U16(65535),
                       I32(-2147483647 - 1),
                       U32(4294967295u),
                       I64(INT64_MIN),
                       U64(UINT64_MAX),
                       Double(1.5, "1.5"),
                       Double(3.0, "3.0"),
                       Str("x"),
                       Str("")};
  for (const J& s : scalars) EXPECT_EQ(Text(Doc(s)), s.text);
}

TEST(BinlogJsonBinary, EmptyDocumentIsNull) {
  EXPECT_EQ(Text(""), "null");
}

TEST(BinlogJsonBinary, NestedSmallAndLargeContainers) {
  for (bool large : {false, true}) {
    J inner = Array({I32(-7), U32(7), I16(1), Null(), Str("s"), Double(-0.0, "-0.0")}, large);
    J doc =
        Object({{"a", inner},
                {"b", Object({}, large)},
                {"c", Array({}, large)},
                {"d", Object({{"x", True()}, {"y", Array({False(), I64(-1)}, !large)}}, !large)},
                {"e", U64(18446744073709551615u)}},
               large);
    EXPECT_EQ(Text(Doc(doc)), doc.text) << "large=" << large;
  }
  EXPECT_EQ(Text(Doc(Object({{"a", Array({I16(1), Array({Object({})})})}}))),
            R"({"a": [1, [{}]]})");
}

TEST(BinlogJsonBinary, StringEscapingFollowsMysqlDoubleQuote) {
  const std::string raw = std::string("q\"b\\n\nt\tr\rf\fb\bz") + '\0' + "\x1f\x7f\xc3\xa9";
  EXPECT_EQ(Text(Doc(Array({Str(raw, "")}))),
            "[\"q\\\"b\\\\n\\nt\\tr\\rf\\fb\\bz\\u0000\\u001f\x7f\xc3\xa9\"]");
  // Keys use the same escaping.
  J obj = Object({{"k\"\n", I16(1)}});
  EXPECT_EQ(Text(Doc(obj)), "{\"k\\\"\\n\": 1}");
}

TEST(BinlogJsonBinary, OpaqueValues) {
  const std::string date = LittleEndian(0x198be40000000000, 8);
  const std::string datetime = LittleEndian(0x198be4b7ad000000, 8);
  const std::string time = LittleEndian(0x0577ee09fbf1, 8);
  const std::string neg_time = LittleEndian(static_cast<uint64_t>(-int64_t{0x0577ee09fbf1}), 8);
  J doc = Array({
      Opaque(10, date, "\"2012-03-18\""),
      Opaque(12, datetime, "\"2012-03-18 11:30:45.000000\""),
      Opaque(7, datetime, "\"2012-03-18 11:30:45.000000\""),
      Opaque(11, time, "\"87:31:46.654321\""),
      Opaque(11, neg_time, "\"-87:31:46.654321\""),
      Opaque(246, FromHex("0603807b01c8"), "123.456"),        // DECIMAL(6,3)
      Opaque(246, FromHex("0b028000000900"), "9.00"),         // DECIMAL(11,2)
      Opaque(246, FromHex("0a027fffffffcd"), "-0.50"),        // DECIMAL(10,2)
      Opaque(253, "plain", "\"plain\""),                      // VAR_STRING prints as a string
      Opaque(15, "U", "\"base64:type15:VQ==\""),              // VARCHAR
      Opaque(16, FromHex("0102"), "\"base64:type16:AQI=\""),  // BIT
      Opaque(252, "", "\"base64:type252:\""),
  });
  EXPECT_EQ(Text(Doc(doc)), doc.text);
}

TEST(BinlogJsonBinary, LongOpaqueBase64BreaksLinesEvery76Characters) {
  const std::string bytes(60, 'A');  // 80 base64 characters
  J doc = Array({Opaque(252, bytes, "")});
  std::string encoded;
  for (int i = 0; i < 20; ++i) encoded += "QUFB";
  const std::string expected =
      "[\"base64:type252:" + encoded.substr(0, 76) + "\\n" + encoded.substr(76) + "\"]";
  EXPECT_EQ(Text(Doc(doc)), expected);
}

TEST(BinlogJsonBinary, MysqlFixtureDocuments) {
  struct Case {
    const char* hex;
    const char* text;
  };
  const Case cases[] = {
      // json-opaque.binlog, WRITE_ROWS at event index 10..24
      {"0001000f000b0001000f0c00610f0155", R"({"a": "base64:type15:VQ=="})"},
      {"00010016000b0001000f0c00620a080000000000e48b19", R"({"b": "2012-03-18"})"},
      {"00010016000b0001000f0c00630c08000000adb7e48b19", R"({"c": "2012-03-18 11:30:45.000000"})"},
      {"00010016000b0001000f0c00630b08f1fb09ee77050000", R"({"c": "87:31:46.654321"})"},
      {"00010014000b0001000f0c0064f6060603807b01c8", R"({"d": 123.456})"},
      {"00010015000b0001000f0c0065f6070b028000000900", R"({"e": 9.00})"},
      {"0001001c000b000100020c006504001000050000050100040100040200",
       R"({"e": [0, 1, true, false]})"},
      {"0001000c000b00010004000065", R"({"e": null})"},
      // json.binlog.000001 event 20
      {"0003003400190003001c000400200004000528000c24000c2f00616765646174616e616d650a7a7a7a7a7a7a"
       "7a7a7a7a0450657465",
       R"({"age": 40, "data": "zzzzzzzzzz", "name": "Pete"})"},
  };
  for (const Case& c : cases) EXPECT_EQ(Text(FromHex(c.hex)), c.text) << c.hex;
}

TEST(BinlogJsonBinary, MysqlbinlogFormQuotesTheTextAndDropsScalarQuotes) {
  EXPECT_EQ(ForMysqlbinlog(Doc(Object({{"a", Str("it's\n")}}))), R"('{"a": "it\'s\\n"}')");
  EXPECT_EQ(ForMysqlbinlog(Doc(Str("top"))), "'top'");
  EXPECT_EQ(ForMysqlbinlog(Doc(Opaque(10, LittleEndian(0x198be40000000000, 8), ""))),
            "'2012-03-18'");
  EXPECT_EQ(ForMysqlbinlog(Doc(I16(5))), "'5'");
  EXPECT_EQ(ForMysqlbinlog(""), "'null'");
}

TEST(BinlogJsonBinary, DoublesUseMysqlShortestFormat) {
  const std::pair<double, const char*> cases[] = {
      {1.5, "1.5"},
      {1.0, "1.0"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {-2.5, "-2.5"},
      {0.1, "0.1"},
      {123.456, "123.456"},
      {1e100, "1e100"},
      {1e15, "1e15"},
      {1e14, "100000000000000.0"},
      {123456789012345.0, "123456789012345.0"},
      {1234567890123456.7, "1234567890123456.8"},
      {1.2345678901234568e17, "1.2345678901234568e17"},
      {1e-5, "0.00001"},
      {1.5e-7, "0.00000015"},
      {1e-15, "0.000000000000001"},
      {1e-16, "1e-16"},
      {-1.25e-20, "-1.25e-20"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e308"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
  };
  for (const auto& [value, text] : cases) EXPECT_EQ(DoubleText(value), text) << text;
}

std::string DiffEntry(int op, const std::string& path, const std::string* value_doc) {
  std::string s(1, static_cast<char>(op));
  s += static_cast<char>(path.size());
  s += path;
  if (value_doc != nullptr) {
    s += static_cast<char>(value_doc->size());
    s += *value_doc;
  }
  return s;
}

TEST(BinlogJsonDiff, FormatsLikeMysqlbinlog) {
  const std::string one = Doc(I16(1));
  const std::string x = Doc(Str("x'"));
  const std::string arr = Doc(Array({I16(1), I16(2)}));
  // json.binlog.000001, PARTIAL_UPDATE_ROWS (event 35).
  EXPECT_EQ(DiffText(FromHex("0005242e6167650305"
                             "1a00"),
                     2),
            "JSON_REPLACE(@2, '$.age', 26)");
  EXPECT_EQ(DiffText("", 3), "@3");

  const std::string diff = DiffEntry(0, "$.a", &one) + DiffEntry(0, "$.b", &x) +
                           DiffEntry(1, "$.c", &arr) + DiffEntry(2, "$.d", nullptr) +
                           DiffEntry(1, "$.e[0]", &one);
  EXPECT_EQ(DiffText(diff, 1),
            "JSON_ARRAY_INSERT(\n"
            "###      JSON_REMOVE(\n"
            "###      JSON_INSERT(\n"
            "###      JSON_REPLACE(@1, '$.a', 1,\n"
            "###      '$.b', 'x\\''),\n"
            "###      '$.c', CAST('[1, 2]' AS JSON)),\n"
            "###      '$.d'),\n"
            "###      '$.e[0]', 1)");

  JsonDiffReader reader(reinterpret_cast<const uint8_t*>(diff.data()), diff.size());
  JsonDiff d;
  int count = 0;
  while (reader.Next(d)) ++count;
  EXPECT_EQ(count, 5);
}

TEST(BinlogJsonDiff, CorruptDiffsThrow) {
  const std::string one = Doc(I16(1));
  EXPECT_THROW(DiffText(std::string(1, '\x03') + "\x01$", 1), Error);        // unknown operation
  EXPECT_THROW(DiffText(std::string(1, '\0') + "\x09$.a", 1), Error);        // path runs past end
  EXPECT_THROW(DiffText(DiffEntry(0, "$.a", &one).substr(0, 6), 1), Error);  // value truncated
  std::string bad_value = DiffEntry(0, "$", &one);
  bad_value[4] = '\x7e';  // unknown JSON type
  EXPECT_THROW(DiffText(bad_value, 1), Error);
}

TEST(BinlogJsonBinary, CorruptDocumentsThrow) {
  const std::string good = Doc(Object({{"a", Array({Str("xyz"), I32(5)})}}));
  ASSERT_EQ(Text(good), R"({"a": ["xyz", 5]})");
  // Every truncation of a valid document is detected.
  for (size_t n = 1; n < good.size(); ++n) {
    EXPECT_THROW(Text(good.substr(0, n)), Error) << n;
  }
  EXPECT_THROW(Text("\x7e"), Error);                                          // unknown type
  EXPECT_THROW(Text(std::string("\x04\x03", 2)), Error);                      // unknown literal
  EXPECT_THROW(Text(std::string("\x0c\xff\xff\xff\xff\xff\x01", 7)), Error);  // 6-byte length
  // An element count whose entries cannot fit in the container.
  EXPECT_THROW(Text(std::string("\x02\xff\x00\x08\x00", 5) + std::string(4, '\0')), Error);
  // A value offset pointing outside the container.
  std::string outside = Doc(Array({Str("abc")}));
  outside[6] = '\x40';
  EXPECT_THROW(Text(outside), Error);
  // A key reaching outside the object.
  std::string key = Doc(Object({{"k", I16(1)}}));
  key[7] = '\x30';
  EXPECT_THROW(Text(key), Error);
  // Opaque temporal of the wrong size, DECIMAL with a bad precision.
  EXPECT_THROW(Text(Doc(Opaque(12, "1234", ""))), Error);
  EXPECT_THROW(Text(Doc(Opaque(246, FromHex("5002800000"), ""))), Error);
}

TEST(BinlogJsonBinary, DepthIsBounded) {
  J value = I16(1);
  for (int i = 0; i < kMaxJsonDepth; ++i) value = Array({value});
  EXPECT_NO_THROW(Text(Doc(value)));
  value = Array({value});
  EXPECT_THROW(Text(Doc(value)), Error);
}

TEST(BinlogJsonBinary, SharedChildrenCannotBlowUp) {
  // Each level is an array of two entries pointing at the same child: 2^60 visits if followed
  // naively. The value budget rejects it at once.
  std::string child = Doc(Array({I16(1)}));
  std::string data = child.substr(1);
  uint8_t type = 0x02;
  for (int level = 0; level < 60; ++level) {
    std::string array = LittleEndian(2, 2) + LittleEndian(4 + 6 + data.size(), 2);
    array += static_cast<char>(type) + LittleEndian(10, 2);
    array += static_cast<char>(type) + LittleEndian(10, 2);
    array += data;
    data = array;
    type = 0x02;
  }
  EXPECT_THROW(Text(std::string(1, '\x02') + data), Error);
}

}  // namespace
}  // namespace rowbridge::binlog
