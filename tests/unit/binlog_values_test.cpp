// Value formatting checked against the real tools. Every row of kMariadbCases is one cell that
// MariaDB 10.11 wrote into a binlog (bytes extracted from the row event) together with what
// `mariadb-binlog --base64-output=decode-rows -v` printed after "@N=" for it. Adding a case is
// one line: {type, meta, precision, scale, bytes as hex (nullptr = NULL), expected text}.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binlog/cell.h"
#include "binlog/value_decoder.h"
#include "binlog/value_format.h"
#include "common/error.h"
#include "support/bytes.h"

namespace rowbridge::binlog {
namespace {

using ::rowbridge::testing::HexBytes;

using enum ColumnType;

struct ValueCase {
  ColumnType type;
  uint32_t meta;
  uint8_t precision;
  uint8_t scale;
  const char* hex;  // nullptr: the value is NULL
  const char* mysqlbinlog;
};

// Owns the column and bytes a Cell points into.
struct TestCell {
  ColumnDef column;
  std::vector<uint8_t> bytes;
  Cell cell;

  TestCell(ColumnDef def, const char* hex) : column(std::move(def)) {
    if (hex != nullptr) bytes = HexBytes(hex);
    cell.column = &column;
    cell.index = 0;
    cell.is_null = hex == nullptr;
    cell.data = bytes.data();
    cell.size = bytes.size();
  }
  TestCell(const TestCell&) = delete;
};

ColumnDef Column(ColumnType type, uint32_t meta = 0, uint8_t precision = 0, uint8_t scale = 0) {
  ColumnDef def;
  def.type = type;
  def.wire_type = type;
  def.meta = meta;
  def.precision = precision;
  def.scale = scale;
  return def;
}

std::string Mysqlbinlog(const Cell& cell) {
  std::string out;
  AppendMysqlbinlogValue(cell, out);
  return out;
}

std::string Json(const Cell& cell) {
  std::string out;
  AppendJsonValue(cell, out);
  return out;
}

// Generated from binlogs written by MariaDB 10.11.19 (see the test file header).
const ValueCase kMariadbCases[] = {
    {kTiny, 0, 0, 0, "ff", "-1 (255)"},                                     // ints row 0 @1
    {kShort, 0, 0, 0, "feff", "-2 (65534)"},                                // ints row 0 @3
    {kShort, 0, 0, 0, "ffff", "-1 (65535)"},                                // ints row 0 @4
    {kInt24, 0, 0, 0, "fdffff", "-3 (16777213)"},                           // ints row 0 @5
    {kInt24, 0, 0, 0, "ffffff", "-1 (16777215)"},                           // ints row 0 @6
    {kLong, 0, 0, 0, "fcffffff", "-4 (4294967292)"},                        // ints row 0 @7
    {kLong, 0, 0, 0, "ffffffff", "-1 (4294967295)"},                        // ints row 0 @8
    {kLongLong, 0, 0, 0, "fbffffffffffffff", "-5 (18446744073709551611)"},  // ints row 0 @9
    {kLongLong, 0, 0, 0, "ffffffffffffffff", "-1 (18446744073709551615)"},  // ints row 0 @10
    {kTiny, 0, 0, 0, "80", "-128 (128)"},                                   // ints row 1 @1
    {kTiny, 0, 0, 0, "00", "0"},                                            // ints row 1 @2
    {kShort, 0, 0, 0, "0080", "-32768 (32768)"},                            // ints row 1 @3
    {kShort, 0, 0, 0, "0100", "1"},                                         // ints row 1 @4
    {kInt24, 0, 0, 0, "000080", "-8388608 (8388608)"},                      // ints row 1 @5
    {kLong, 0, 0, 0, "00000080", "-2147483648 (2147483648)"},               // ints row 1 @7
    {kLongLong, 0, 0, 0, "0000000000000080",
     "-9223372036854775808 (9223372036854775808)"},                        // ints row 1 @9
    {kTiny, 0, 0, 0, "7f", "127"},                                         // ints row 2 @1
    {kShort, 0, 0, 0, "ff7f", "32767"},                                    // ints row 2 @3
    {kInt24, 0, 0, 0, "ffff7f", "8388607"},                                // ints row 2 @5
    {kInt24, 0, 0, 0, "000000", "0"},                                      // ints row 2 @6
    {kLong, 0, 0, 0, "ffffff7f", "2147483647"},                            // ints row 2 @7
    {kLong, 0, 0, 0, "00000000", "0"},                                     // ints row 2 @8
    {kLongLong, 0, 0, 0, "ffffffffffffff7f", "9223372036854775807"},       // ints row 2 @9
    {kLongLong, 0, 0, 0, "0000000000000000", "0"},                         // ints row 2 @10
    {kFloat, 4, 0, 0, "0000c03f", "1.5                 "},                 // fl row 0 @1
    {kDouble, 8, 0, 0, "000000000000f83f", "1.5"},                         // fl row 0 @2
    {kFloat, 4, 0, 0, "ffff7f7f", "3.40282e+38         "},                 // fl row 1 @1
    {kDouble, 8, 0, 0, "ffffffffffffef7f", "1.7976931348623157081e+308"},  // fl row 1 @2
    {kFloat, 4, 0, 0, "00000000", "0                   "},                 // fl row 1 @3
    {kDouble, 8, 0, 0, "0000000000000000", "0"},                           // fl row 1 @4
    {kFloat, 4, 0, 0, "cdcccc3d", "0.1                 "},                 // fl row 2 @1
    {kDouble, 8, 0, 0, "9a9999999999b93f", "0.10000000000000000555"},      // fl row 2 @2
    {kFloat, 4, 0, 0, "cdccccbd", "-0.1                "},                 // fl row 2 @3
    {kDouble, 8, 0, 0, "989999999999b9bf", "-0.099999999999999977796"},    // fl row 2 @4
    {kFloat, 4, 0, 0, "ffe6db2e", "1e-10               "},                 // fl row 3 @1
    {kDouble, 8, 0, 0, "59f3f8c21f6ea501", "1.0000000000000000251e-300"},  // fl row 3 @2
    {kFloat, 4, 0, 0, "0050c347", "100000              "},                 // fl row 3 @3
    {kDouble, 8, 0, 0, "c976be9f0c24fe40", "123456.78900000000431"},       // fl row 3 @4
    {kFloat, 4, 0, 0, "0000803f", "1                   "},                 // fl row 4 @3
    {kDouble, 8, 0, 0, "000000000000f03f", "1"},                           // fl row 4 @4
    {kFloat, 4, 0, 0, "a379eb4c", "1.23457e+08         "},                 // fl row 5 @1
    {kDouble, 8, 0, 0, "81e97df41022b143", "1234567890123456768"},         // fl row 5 @2
    {kNewDecimal, 0, 10, 2, "7fffffffcd", "-0.50"},                        // dec1 row 0 @1
    {kNewDecimal, 0, 65, 30, "800000000000000000000000000000000000000000000000000000000000",
     "0.000000000000000000000000000000"},                                       // dec1 row 0 @2
    {kNewDecimal, 0, 5, 0, "800000", "0"},                                      // dec1 row 0 @3
    {kNewDecimal, 0, 30, 10, "7ffffffffffffffffeffffffffff", "-1.0000000000"},  // dec1 row 0 @4
    {kNewDecimal, 0, 4, 4, "84d2", "0.1234"},                                   // dec1 row 0 @5
    {kNewDecimal, 0, 10, 2, "80bc614e63", "12345678.99"},                       // dec1 row 1 @1
    {kNewDecimal, 0, 65, 30, "80bc614e35b7bf87350e34c02f075f79075bcd1500bc614e35b7bf87037a",
     "12345678901234567890123456789012345.123456789012345678901234567890"},  // dec1 row 1 @2
    {kNewDecimal, 0, 5, 0, "7e7960", "-99999"},                              // dec1 row 1 @3
    {kNewDecimal, 0, 30, 10, "8c149aa4350dfb38d200bc614e09",
     "12345678901234567890.0123456789"},            // dec1 row 1 @4
    {kNewDecimal, 0, 4, 4, "58f0", "-0.9999"},      // dec1 row 1 @5
    {kNewDecimal, 0, 10, 2, "8000000000", "0.00"},  // dec1 row 2 @1
    {kNewDecimal, 0, 65, 30, "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe",
     "-0.000000000000000000000000000001"},                                     // dec1 row 2 @2
    {kNewDecimal, 0, 5, 0, "800001", "1"},                                     // dec1 row 2 @3
    {kNewDecimal, 0, 30, 10, "8000000000000000000000000000", "0.0000000000"},  // dec1 row 2 @4
    {kNewDecimal, 0, 4, 4, "8000", "0.0000"},                                  // dec1 row 2 @5
    {kBit, 1, 0, 0, "01", "b'1'"},                                             // bits row 0 @1
    {kBit, 3, 0, 0, "05", "b'101'"},                                           // bits row 0 @2
    {kBit, 8, 0, 0, "80", "b'10000000'"},                                      // bits row 0 @3
    {kBit, 17, 0, 0, "010001", "b'10000000000000001'"},                        // bits row 0 @4
    {kBit, 64, 0, 0, "ffffffffffffffff",
     "b'1111111111111111111111111111111111111111111111111111111111111111'"},  // bits row 0 @5
    {kBit, 1, 0, 0, "00", "b'0'"},                                            // bits row 1 @1
    {kBit, 3, 0, 0, "00", "b'000'"},                                          // bits row 1 @2
    {kBit, 8, 0, 0, "00", "b'00000000'"},                                     // bits row 1 @3
    {kBit, 17, 0, 0, "000000", "b'00000000000000000'"},                       // bits row 1 @4
    {kBit, 64, 0, 0, "0000000000000000",
     "b'0000000000000000000000000000000000000000000000000000000000000000'"},    // bits row 1 @5
    {kDate, 0, 0, 0, "72b80f", "'2012:03:18'"},                                 // tm row 0 @1
    {kTime2, 0, 0, 0, "4b9105", "'-838:59:59'"},                                // tm row 0 @2
    {kTime2, 3, 0, 0, "7ffffeec78", "'-00:00:01.500'"},                         // tm row 0 @3
    {kTime2, 6, 0, 0, "80c8b801e240", "'12:34:56.123456'"},                     // tm row 0 @4
    {kDateTime2, 0, 0, 0, "998be4b7ad", "'2012-03-18 11:30:45'"},               // tm row 0 @5
    {kDateTime2, 2, 0, 0, "8cb242000001", "'1000-01-01 00:00:00.01'"},          // tm row 0 @6
    {kDateTime2, 6, 0, 0, "fef3ff7efb0f423f", "'9999-12-31 23:59:59.999999'"},  // tm row 0 @7
    {kTimestamp2, 0, 0, 0, "4f65c765", "1332070245"},                           // tm row 0 @8
    {kTimestamp2, 4, 0, 0, "7fffffff04d2", "2147483647.1234"},                  // tm row 0 @9
    {kYear, 0, 0, 0, "ff", "2155"},                                             // tm row 0 @10
    {kDate, 0, 0, 0, "000000", "'0000:00:00'"},                                 // tm row 0 @1
    {kTime2, 0, 0, 0, "800000", "'00:00:00'"},                                  // tm row 0 @2
    {kTime2, 3, 0, 0, "6043e4fc18", "'-507:48:27.100'"},                        // tm row 0 @3
    {kTime2, 6, 0, 0, "7fffffffffff", "'-00:00:00.000001'"},                    // tm row 0 @4
    {kDateTime2, 0, 0, 0, "8000000000", "'0000-00-00 00:00:00'"},               // tm row 0 @5
    {kDateTime2, 2, 0, 0, "800000000000", "'0000-00-00 00:00:00.00'"},          // tm row 0 @6
    {kDateTime2, 6, 0, 0, "8000000000000000", "'0000-00-00 00:00:00.000000'"},  // tm row 0 @7
    {kTimestamp2, 0, 0, 0, "00000001", "1"},                                    // tm row 0 @8
    {kTimestamp2, 4, 0, 0, "000000010000", "1.0000"},                           // tm row 0 @9
    {kYear, 0, 0, 0, "00", "1900"},                                             // tm row 0 @10
    {kTime2, 0, 0, 0, "b46efb", "'838:59:59'"},                                 // tm row 1 @2
    {kTime2, 3, 0, 0, "8010830000", "'01:02:03.000'"},                          // tm row 1 @3
    {kTime2, 6, 0, 0, "7fef7d000000", "'-01:02:03.000000'"},                    // tm row 1 @4
    {kDateTime2, 0, 0, 0, "99a5000000", "'2020-00-00 00:00:00'"},               // tm row 1 @5
    {kDateTime2, 2, 0, 0, "99a542104132", "'2020-01-01 01:01:01.50'"},          // tm row 1 @6
    {kDateTime2, 6, 0, 0, "99a542104107a120", "'2020-01-01 01:01:01.500000'"},  // tm row 1 @7
    {kTimestamp2, 0, 0, 0, nullptr, "NULL"},                                    // tm row 1 @8
    {kTimestamp2, 4, 0, 0, "386d43801388", "946684800.5000"},                   // tm row 1 @9
    {kYear, 0, 0, 0, "01", "1901"},                                             // tm row 1 @10
    {kString, 10, 0, 0, "6162", "'ab'"},                                        // str row 0 @1
    {kVarchar, 20, 0, 0, "697427735c2061", "'it's\\ a'"},                       // str row 0 @2
    {kString, 4, 0, 0, "61", "'a'"},                                            // str row 0 @3
    {kVarchar, 10, 0, 0, "00010a0d7f80ff27",
     "'\\x00\\x01\\x0a\\x0d\177\200\377''"},                              // str row 0 @4
    {kBlob, 2, 0, 0, "74616209686572650a6e6c", "'tab\\x09here\\x0anl'"},  // str row 0 @5
    {kBlob, 2, 0, 0, "00ff", "'\\x00\377'"},                              // str row 0 @6
    {kVarchar, 10, 0, 0, "e9", "'\351'"},                                 // str row 0 @7
    {kString, 12, 0, 0, "c3bce282ac78", "'\303\274\342\202\254x'"},       // str row 0 @8
    {kString, 10, 0, 0, "", "''"},                                        // str row 1 @1
    {kVarchar, 20, 0, 0, "", "''"},                                       // str row 1 @2
    {kString, 4, 0, 0, "", "''"},                                         // str row 1 @3
    {kVarchar, 10, 0, 0, "", "''"},                                       // str row 1 @4
    {kBlob, 2, 0, 0, "", "''"},                                           // str row 1 @5
    {kString, 12, 0, 0, "", "''"},                                        // str row 1 @8
    {kEnum, 1, 0, 0, "02", "2"},                                          // es row 0 @1
    {kSet, 2, 0, 0, "0501", "b'0000010100000001'"},                       // es row 0 @2
    {kEnum, 1, 0, 0, "01", "1"},                                          // es row 0 @3
    {kEnum, 1, 0, 0, "00", "0"},                                          // es row 1 @1
    {kSet, 2, 0, 0, "0000", "b'0000000000000000'"},                       // es row 1 @2
    {kEnum, 1, 0, 0, nullptr, "NULL"},                                    // es row 1 @3
    {kGeometry, 4, 0, 0, "000000000101000000000000000000f03f0000000000000040",
     "'\\x00\\x00\\x00\\x00\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\360?"
     "\\x00\\x00\\x00\\x00\\x00\\x00\\x00@'"},  // g row 0 @1
    {kGeometry, 4, 0, 0, "00000000010100000000000000000008400000000000001040",
     "'\\x00\\x00\\x00\\x00\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x08@"
     "\\x00\\x00\\x00\\x00\\x00\\x00\\x10@'"},  // g row 0 @2
    {kBlob, 4, 0, 0, "7b2261223a205b312c20322e352c202278225d7d",
     "'{\"a\": [1, 2.5, \"x\"]}'"},                                     // j row 0 @1
    {kBlob, 4, 0, 0, "68656c6c6f", "'hello'"},                          // j row 0 @2
    {kEnum, 1, 0, 0, "03", "3"},                                        // es row 0 @1
    {kSet, 2, 0, 0, "0300", "b'0000001100000000'"},                     // es row 0 @2
    {kDate, 0, 0, 0, "22a00f", "'2000:01:02'"},                         // tm row 0 @1
    {kTime2, 0, 0, 0, "80a000", "'10:00:00'"},                          // tm row 0 @2
    {kTime2, 3, 0, 0, nullptr, "NULL"},                                 // tm row 0 @3
    {kDateTime2, 0, 0, 0, nullptr, "NULL"},                             // tm row 0 @5
    {kYear, 0, 0, 0, nullptr, "NULL"},                                  // tm row 0 @10
    {kNewDecimal, 0, 10, 2, "8000000132", "1.50"},                      // dec1 row 0 @1
    {kNewDecimal, 0, 65, 30, nullptr, "NULL"},                          // dec1 row 0 @2
    {kFloat, 4, 0, 0, nullptr, "NULL"},                                 // fl row 0 @3
    {kDouble, 8, 0, 0, nullptr, "NULL"},                                // fl row 0 @4
    {kTime, 0, 0, 0, "590a80", "'-838:59:59'"},                         // old2 row 0 @1
    {kDateTime, 0, 0, 0, "15f569a04c120000", "'2012-03-18 11:30:45'"},  // old2 row 0 @2
    {kTimestamp, 0, 0, 0, "65c7654f", "1332070245"},                    // old2 row 0 @3
    {kTime, 0, 0, 0, "000000", "'00:00:00'"},                           // old2 row 1 @1
    {kDateTime, 0, 0, 0, "0000000000000000", "'0000-00-00 00:00:00'"},  // old2 row 1 @2
    {kTimestamp, 0, 0, 0, "00000000", "0"},                             // old2 row 1 @3
    {kTime, 0, 0, 0, "40e201", "'12:34:56'"},                           // old2 row 2 @1
    {kDateTime, 0, 0, 0, "7787d105f15a0000", "'9999-12-31 23:59:59'"},  // old2 row 2 @2
    {kTimestamp, 0, 0, 0, nullptr, "NULL"},                             // old2 row 2 @3
    {kTime, 0, 0, 0, "ffffff", "'-00:00:01'"},                          // old2 row 3 @1
    {kDateTime, 0, 0, 0, "01d2be395f120000", "'2020-02-00 00:00:01'"},  // old2 row 3 @2
    {kTimestamp, 0, 0, 0, "ffffff7f", "2147483647"},                    // old2 row 3 @3
    {kNewDecimal, 0, 65, 0, "1cc4653600c4653600c4653600c4653600c4653600c4653600c4653600",
     "-99999999999999999999999999999999999999999999999999999999999999999"},  // d2 row 0 @1
    {kNewDecimal, 0, 18, 9, "78a432eaf8a432ea", "-123456789.123456789"},     // d2 row 0 @2
    {kNewDecimal, 0, 9, 9, "80000001", "0.000000001"},                       // d2 row 0 @3
    {kNewDecimal, 0, 1, 0, "76", "-9"},                                      // d2 row 0 @4
    {kNewDecimal, 0, 10, 5, "7ffffffffffe", "-0.00001"},                     // d2 row 0 @5
    {kNewDecimal, 0, 20, 2, "85f5e1000000000001", "100000000000000000.01"},  // d2 row 0 @6
    {kNewDecimal, 0, 38, 10, "7ffffffffffffffffffffffffee2329affff",
     "-1.5000000000"},  // d2 row 0 @7
    {kNewDecimal, 0, 65, 0, "8c149aa4350dfb38d2075bcd1500bc614e35b7bf87350e34c02f075f79",
     "12345678901234567890123456789012345678901234567890123456789012345"},  // d2 row 1 @1
    {kNewDecimal, 0, 18, 9, "800000001dcd6500", "0.500000000"},             // d2 row 1 @2
    {kNewDecimal, 0, 9, 9, "44653600", "-0.999999999"},                     // d2 row 1 @3
    {kNewDecimal, 0, 1, 0, "80", "0"},                                      // d2 row 1 @4
    {kNewDecimal, 0, 10, 5, "803039010932", "12345.67890"},                 // d2 row 1 @5
    {kNewDecimal, 0, 20, 2, "7ffffffffffffffffe", "-0.01"},                 // d2 row 1 @6
    {kNewDecimal, 0, 38, 10, "810dfb38d2075bcd1500bc614e00bc614e09",
     "1234567890123456789012345678.0123456789"},  // d2 row 1 @7
    {kNewDecimal, 0, 65, 0, "8000000000000000000000000000000000000000000000000000000000",
     "0"},                                                       // d2 row 2 @1
    {kNewDecimal, 0, 18, 9, "8000000000000000", "0.000000000"},  // d2 row 2 @2
    {kNewDecimal, 0, 9, 9, "80000000", "0.000000000"},           // d2 row 2 @3
    {kNewDecimal, 0, 10, 5, "800000000000", "0.00000"},          // d2 row 2 @5
    {kNewDecimal, 0, 20, 2, "800000000000000000", "0.00"},       // d2 row 2 @6
    {kNewDecimal, 0, 38, 10, "800000000000000000000000000000000000",
     "0.0000000000"},                                                          // d2 row 2 @7
    {kTime2, 1, 0, 0, "4b9105a6", "'-838:59:58.9'"},                           // t2 row 0 @1
    {kTime2, 2, 0, 0, "7f3fffff", "'-12:00:00.01'"},                           // t2 row 0 @2
    {kTime2, 4, 0, 0, "7fffffffff", "'-00:00:00.0001'"},                       // t2 row 0 @3
    {kTime2, 5, 0, 0, "87bb460c0a12", "'123:45:06.78901'"},                    // t2 row 0 @4
    {kDateTime2, 1, 0, 0, "9967c6414646", "'2001-02-03 04:05:06.7'"},          // t2 row 0 @5
    {kDateTime2, 3, 0, 0, "9967c641461ed2", "'2001-02-03 04:05:06.789'"},      // t2 row 0 @6
    {kDateTime2, 4, 0, 0, "9963ff7efb270f", "'1999-12-31 23:59:59.9999'"},     // t2 row 0 @7
    {kDateTime2, 5, 0, 0, "9963ff7efb0f4236", "'1999-12-31 23:59:59.99999'"},  // t2 row 0 @8
    {kTimestamp2, 1, 0, 0, "3a7b837246", "981173106.7"},                       // t2 row 0 @9
    {kTimestamp2, 2, 0, 0, "3a7b83724e", "981173106.78"},                      // t2 row 0 @10
    {kTimestamp2, 3, 0, 0, "3a7b83721ed2", "981173106.789"},                   // t2 row 0 @11
    {kTimestamp2, 5, 0, 0, "3a7b83720c0a12", "981173106.78901"},               // t2 row 0 @12
    {kTimestamp2, 6, 0, 0, "3a7b83720c0a14", "981173106.789012"},              // t2 row 0 @13
    {kTime2, 1, 0, 0, "8000000a", "'00:00:00.1'"},                             // t2 row 1 @1
    {kTime2, 2, 0, 0, "80000000", "'00:00:00.00'"},                            // t2 row 1 @2
    {kTime2, 4, 0, 0, "b46efb270f", "'838:59:59.9999'"},                       // t2 row 1 @3
    {kTime2, 5, 0, 0, "4b9104fffff6", "'-838:59:59.00001'"},                   // t2 row 1 @4
    {kDateTime2, 1, 0, 0, "800000000000", "'0000-00-00 00:00:00.0'"},          // t2 row 1 @5
    {kDateTime2, 3, 0, 0, "8cb2420000000a", "'1000-01-01 00:00:00.001'"},      // t2 row 1 @6
    {kDateTime2, 4, 0, 0, "99a5bac0000000", "'2020-02-29 12:00:00.0000'"},     // t2 row 1 @7
    {kDateTime2, 5, 0, 0, "99a5bac00000000a", "'2020-02-29 12:00:00.00001'"},  // t2 row 1 @8
    {kTimestamp2, 1, 0, 0, "000000010a", "1.1"},                               // t2 row 1 @9
    {kTimestamp2, 2, 0, 0, "7fffffff63", "2147483647.99"},                     // t2 row 1 @10
    {kTimestamp2, 5, 0, 0, "12cea600000000", "315532800.00000"},               // t2 row 1 @12
    {kTimestamp2, 6, 0, 0, "00000001000001", "1.000001"},                      // t2 row 1 @13
    {kDouble, 8, 0, 0, "00003426f56b0c43", "1000000000000000"},                // f2 row 0 @1
    {kFloat, 4, 0, 0, "a95f6358", "1e+15               "},                     // f2 row 0 @2
    {kDouble, 8, 0, 0, "0080e03779c34143", "10000000000000000"},               // f2 row 1 @1
    {kFloat, 4, 0, 0, "0000804b", "1.67772e+07         "},                     // f2 row 1 @2
    {kDouble, 8, 0, 0, "f168e388b5f8e43e", "1.0000000000000000818e-05"},       // f2 row 2 @1
    {kFloat, 4, 0, 0, "acc52737", "1e-05               "},                     // f2 row 2 @2
    {kDouble, 8, 0, 0, "59f3f8c21f6ea581", "-1.0000000000000000251e-300"},     // f2 row 3 @1
    {kFloat, 4, 0, 0, "9ec97fff", "-3.4e+38            "},                     // f2 row 3 @2
    {kDouble, 8, 0, 0, "77be9f1a2fdd5e40", "123.45600000000000307"},           // f2 row 4 @1
    {kFloat, 4, 0, 0, "9a99993e", "0.3                 "},                     // f2 row 4 @2
    {kDouble, 8, 0, 0, "0dc6402c18fa1100", "2.4999999999999997733e-308"},      // f2 row 5 @1
    {kFloat, 4, 0, 0, "00008000", "1.17549e-38         "},                     // f2 row 5 @2
    {kDouble, 8, 0, 0, "0000000000005940", "100"},                             // f2 row 6 @1
    {kFloat, 4, 0, 0, "0000c842", "100                 "},                     // f2 row 6 @2
    {kDouble, 8, 0, 0, "0000000000001080", "-2.2250738585072013831e-308"},     // f2 row 7 @1
    {kFloat, 4, 0, 0, "0000e040", "7                   "},                     // f2 row 7 @2
    {kDouble, 8, 0, 0, "0000000000004043", "9007199254740992"},                // f2 row 8 @1
    {kFloat, 4, 0, 0, "ec78ad60", "1e+20               "},                     // f2 row 8 @2
    {kVarchar, 300, 0, 0,
     "787979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797"
     "979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979"
     "797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797"
     "979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979"
     "797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797"
     "979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979"
     "797979797979797979797979",
     "'xyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
     "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
     "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
     "yyyyyyyyyyyyy'"},                                                  // s2 row 0 @1
    {kBlob, 2, 0, 0, "615c6227632264", "'a\\b'c\"d'"},                   // s2 row 0 @2
    {kString, 255, 0, 0, "747261696c696e67", "'trailing'"},              // s2 row 0 @3
    {kVarchar, 300, 0, 0, "20202000", "'   \\x00'"},                     // s2 row 0 @4
    {kVarchar, 300, 0, 0, "000d0a091a", "'\\x00\\x0d\\x0a\\x09\\x1a'"},  // s2 row 1 @1
    {kBlob, 2, 0, 0, "c3", "'\303'"},                                    // s2 row 1 @2
    {kString, 255, 0, 0, "", "''"},                                      // s2 row 1 @3
    {kVarchar, 300, 0, 0, "", "''"},                                     // s2 row 1 @4
    {kTiny, 0, 0, 0, "c8", "-56 (200)"},                                 // i2 row 0 @1
    {kLong, 0, 0, 0, "d3f988c0", "-1064764973 (3230202323)"},            // i2 row 0 @2
    {kLongLong, 0, 0, 0, "0100000000000080",
     "-9223372036854775807 (9223372036854775809)"},  // i2 row 0 @3
    {kYear, 0, 0, 0, "63", "1999"},                  // i2 row 0 @4
    {kLongLong, 0, 0, 0, "0100000000000000", "1"},   // i2 row 1 @3
    {kYear, 0, 0, 0, "64", "2000"},                  // i2 row 1 @4
    {kBit, 64, 0, 0, "8000000000000000",
     "b'1000000000000000000000000000000000000000000000000000000000000000'"},  // b2 row 0 @1
    {kBit, 9, 0, 0, "0101", "b'100000001'"},                                  // b2 row 0 @2
    {kBit, 16, 0, 0, "aaaa", "b'1010101010101010'"},                          // b2 row 0 @3
};

TEST(BinlogValuesMysqlbinlog, MatchesMariadbBinlogForEveryRecordedCell) {
  for (const ValueCase& c : kMariadbCases) {
    TestCell t(Column(c.type, c.meta, c.precision, c.scale), c.hex);
    EXPECT_EQ(Mysqlbinlog(t.cell), c.mysqlbinlog)
        << ColumnTypeName(c.type) << " meta=" << c.meta << " bytes=" << (c.hex ? c.hex : "NULL");
  }
}

// Cells from the MySQL fixtures (bytes located in the row events of the named files).
TEST(BinlogValuesMysqlbinlog, MysqlFixtureCells) {
  struct Case {
    ColumnType type;
    uint32_t meta;
    const char* hex;
    const char* expected;
  };
  const Case cases[] = {
      {kTime2, 0, "6043e5", "'-507:48:27'"},               // time_issue.000001
      {kBit, 3, "04", "b'100'"},                           // mysql_type_bit.000001 a
      {kBit, 8, "20", "b'00100000'"},                      // mysql_type_bit.000001 c
      {kLong, 0, "d3f988c0", "-1064764973 (3230202323)"},  // minimal_row_metadata.000001 @5
  };
  for (const Case& c : cases) {
    TestCell t(Column(c.type, c.meta), c.hex);
    EXPECT_EQ(Mysqlbinlog(t.cell), c.expected) << c.hex;
  }
}

TEST(BinlogValuesMysqlbinlog, JsonColumnsPrintLikeMysql) {
  // json.binlog.000001 (MySQL 8.0.22), event 10.
  TestCell doc(Column(kJson, 4),
               "0003003300190003001c000400200004000518000c24000c2f00616765646174616e616d650a"
               "78787878787878787878034a6f65");
  EXPECT_EQ(Mysqlbinlog(doc.cell), R"('{"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}')");

  // The PARTIAL_UPDATE_ROWS after-image of event 35: JSON_REPLACE of $.age.
  TestCell diff(Column(kJson, 4),
                "0005242e6167650305"
                "1a00");
  diff.cell.is_json_diff = true;
  diff.cell.index = 1;
  EXPECT_EQ(Mysqlbinlog(diff.cell), "JSON_REPLACE(@2, '$.age', 26)");
}

TEST(BinlogValuesMysqlbinlog, CorruptOrShortCellsThrow) {
  TestCell short_int(Column(kLong), "0102");
  EXPECT_THROW(Mysqlbinlog(short_int.cell), Error);
  TestCell short_decimal(Column(kNewDecimal, 0, 10, 2), "80");
  EXPECT_THROW(Mysqlbinlog(short_decimal.cell), Error);
  TestCell bad_bit(Column(kBit, 0), "01");
  EXPECT_THROW(Mysqlbinlog(bad_bit.cell), Error);
  TestCell bad_fsp(Column(kTime2, 7), "800000000000");
  EXPECT_THROW(Mysqlbinlog(bad_fsp.cell), Error);
  TestCell old_decimal(Column(kDecimal), "00");
  try {
    Mysqlbinlog(old_decimal.cell);
    FAIL() << "expected kUnsupported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

struct JsonCase {
  ColumnType type;
  uint32_t meta;
  uint8_t precision;
  uint8_t scale;
  uint32_t charset;
  bool is_unsigned;
  const char* hex;
  const char* json;
};

const JsonCase kJsonCases[] = {
    {kTiny, 0, 0, 0, 0, false, "ff", "-1"},
    {kTiny, 0, 0, 0, 0, true, "ff", "255"},
    {kShort, 0, 0, 0, 0, true, "ffff", "65535"},
    {kInt24, 0, 0, 0, 0, false, "000080", "-8388608"},
    {kInt24, 0, 0, 0, 0, true, "000080", "8388608"},
    {kLong, 0, 0, 0, 0, true, "d3f988c0", "3230202323"},
    {kLongLong, 0, 0, 0, 0, false, "0000000000000080", "-9223372036854775808"},
    {kLongLong, 0, 0, 0, 0, true, "ffffffffffffffff", "18446744073709551615"},
    {kFloat, 4, 0, 0, 0, false, "cdcccc3d", "0.1"},
    {kFloat, 4, 0, 0, 0, false, "0000c03f", "1.5"},
    {kFloat, 4, 0, 0, 0, false, "0000807f", "null"},  // +inf has no JSON number
    {kDouble, 8, 0, 0, 0, false, "9a9999999999b93f", "0.1"},
    {kDouble, 8, 0, 0, 0, false, "ffffffffffffef7f", "1.7976931348623157e+308"},
    {kNewDecimal, 0, 10, 2, 0, false, "7fffffffcd", "\"-0.50\""},
    {kNewDecimal, 0, 65, 30, 0, false,
     "80bc614e35b7bf87350e34c02f075f79075bcd1500bc614e35b7bf87037a",
     "\"12345678901234567890123456789012345.123456789012345678901234567890\""},
    {kBit, 17, 0, 0, 0, false, "010001", "65537"},
    {kBit, 64, 0, 0, 0, false, "ffffffffffffffff", "18446744073709551615"},
    {kYear, 0, 0, 0, 0, false, "00", "0"},
    {kYear, 0, 0, 0, 0, false, "ff", "2155"},
    {kDate, 0, 0, 0, 0, false, "72b80f", "\"2012-03-18\""},
    {kDate, 0, 0, 0, 0, false, "000000", "\"0000-00-00\""},
    {kTime2, 0, 0, 0, 0, false, "6043e5", "\"-507:48:27\""},
    {kTime2, 3, 0, 0, 0, false, "7ffffeec78", "\"-00:00:01.500\""},
    {kTime, 0, 0, 0, 0, false, "590a80", "\"-838:59:59\""},
    {kDateTime2, 6, 0, 0, 0, false, "fef3ff7efb0f423f", "\"9999-12-31T23:59:59.999999\""},
    {kDateTime2, 0, 0, 0, 0, false, "8000000000", "\"0000-00-00T00:00:00\""},
    {kDateTime, 0, 0, 0, 0, false, "15f569a04c120000", "\"2012-03-18T11:30:45\""},
    {kTimestamp, 0, 0, 0, 0, false, "65c7654f", "\"2012-03-18T11:30:45Z\""},
    {kTimestamp, 0, 0, 0, 0, false, "00000000", "\"0000-00-00T00:00:00Z\""},
    {kTimestamp2, 4, 0, 0, 0, false, "7fffffff04d2", "\"2038-01-19T03:14:07.1234Z\""},
    {kTimestamp2, 6, 0, 0, 0, false, "3a7b83720c0a14", "\"2001-02-03T04:05:06.789012Z\""},
    {kString, 10, 0, 0, 45, false, "6162", "\"ab\""},
    {kVarchar, 20, 0, 0, 0, false, "697427735c2061", R"("it's\\ a")"},
    {kVarchar, 20, 0, 0, 0, false, "00010a0d7f80ff27",
     R"("\u0000\u0001\n\r)"
     "\x7f"
     R"(\u0080\u00ff'")"},
    {kVarchar, 20, 0, 0, 255, false, "c3bce282ac78",
     "\"\xc3\xbc\xe2\x82\xac"
     "x\""},
    {kVarchar, 10, 0, 0, 63, false, "00010a0d7f80ff27", "\"AAEKDX+A/yc=\""},
    {kBlob, 2, 0, 0, 63, false, "", "\"\""},
    {kBlob, 2, 0, 0, 0, false, "", "\"\""},
    {kGeometry, 4, 0, 0, 0, false, "000000000101000000000000000000f03f0000000000000040",
     "\"AAAAAAEBAAAAAAAAAAAA8D8AAAAAAAAAQA==\""},
    {kVector, 4, 0, 0, 0, false, "cdcc8c3fcdcc0c4033335340", "[1.1,2.2,3.3]"},
    {kVector, 4, 0, 0, 0, false, "0000803f000080bf00000000", "[1,-1,0]"},
    {kJson, 4, 0, 0, 0, false, "0001000c000b00010004000065", R"({"e": null})"},
    {kJson, 4, 0, 0, 0, false, "", "null"},
    {kEnum, 1, 0, 0, 0, false, "02", "2"},
    {kSet, 2, 0, 0, 0, false, "0501", "261"},
    {kNull, 0, 0, 0, 0, false, nullptr, "null"},
    {kLong, 0, 0, 0, 0, false, nullptr, "null"},
};

TEST(BinlogValuesJson, EveryTypeGivesTheDocumentedJson) {
  for (const JsonCase& c : kJsonCases) {
    ColumnDef def = Column(c.type, c.meta, c.precision, c.scale);
    def.charset = c.charset;
    def.signedness_known = true;
    def.is_unsigned = c.is_unsigned;
    TestCell t(std::move(def), c.hex);
    EXPECT_EQ(Json(t.cell), c.json) << ColumnTypeName(c.type) << " " << (c.hex ? c.hex : "NULL");
  }
}

TEST(BinlogValuesJson, EnumAndSetUseLabelsWhenKnown) {
  ColumnDef e = Column(kEnum, 1);
  e.enum_values = {"x", "y\"", "z"};
  TestCell second(e, "02");
  EXPECT_EQ(Json(second.cell), R"("y\"")");
  TestCell zero(e, "00");  // the '' value MySQL stores for invalid input
  EXPECT_EQ(Json(zero.cell), R"("")");
  TestCell beyond(e, "09");
  EXPECT_EQ(Json(beyond.cell), "9");

  ColumnDef s = Column(kSet, 2);
  s.set_values = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
  TestCell set(s, "0501");
  EXPECT_EQ(Json(set.cell), R"(["a","c","i"])");
  TestCell empty(s, "0000");
  EXPECT_EQ(Json(empty.cell), "[]");
  TestCell unknown_bit(s, "0006");  // bits 9 and 10 have no label
  EXPECT_EQ(Json(unknown_bit.cell), "1536");
}

TEST(BinlogValuesJson, JsonDiffIsAnArrayOfOperations) {
  ColumnDef def = Column(kJson, 4);
  TestCell t(def,
             "0005242e6167650305"
             "1a00"
             "0203242e61"
             "0104245b305d03"
             "0c0178");
  t.cell.is_json_diff = true;
  EXPECT_EQ(Json(t.cell),
            R"({"json_diff":[{"op":"replace","path":"$.age","value":26},)"
            R"({"op":"remove","path":"$.a"},{"op":"insert","path":"$[0]","value":"x"}]})");
}

TEST(BinlogValuesDecoder, TypedAccessors) {
  TestCell i24(Column(kInt24), "feffff");
  EXPECT_EQ(CellInt24(i24.cell), -2);
  EXPECT_EQ(CellUInt24(i24.cell), 0xfffffeu);
  EXPECT_EQ(CellSignedInteger(i24.cell), -2);
  EXPECT_EQ(CellUnsignedInteger(i24.cell), 0xfffffeu);
  TestCell i8(Column(kTiny), "80");
  EXPECT_EQ(CellInt8(i8.cell), -128);
  EXPECT_EQ(CellUInt8(i8.cell), 128);
  TestCell i16(Column(kShort), "0080");
  EXPECT_EQ(CellInt16(i16.cell), -32768);
  EXPECT_EQ(CellUInt16(i16.cell), 32768);
  TestCell i32(Column(kLong), "d3f988c0");
  EXPECT_EQ(CellInt32(i32.cell), -1064764973);
  EXPECT_EQ(CellUInt32(i32.cell), 3230202323u);
  TestCell i64(Column(kLongLong), "fbffffffffffffff");
  EXPECT_EQ(CellInt64(i64.cell), -5);
  EXPECT_EQ(CellUInt64(i64.cell), 18446744073709551611u);
  TestCell f(Column(kFloat, 4), "0000c03f");
  EXPECT_EQ(CellFloat(f.cell), 1.5f);
  TestCell d(Column(kDouble, 8), "000000000000f83f");
  EXPECT_EQ(CellDouble(d.cell), 1.5);
  TestCell bit(Column(kBit, 17), "010001");
  EXPECT_EQ(CellBit(bit.cell), 0x10001u);
  TestCell year(Column(kYear), "63");
  EXPECT_EQ(CellYear(year.cell), 1999);
  TestCell zero_year(Column(kYear), "00");
  EXPECT_EQ(CellYear(zero_year.cell), 0);
  TestCell e(Column(kEnum, 2), "0201");
  EXPECT_EQ(CellEnumIndex(e.cell), 0x102);
  TestCell s(Column(kSet, 3), "050100");
  EXPECT_EQ(CellSetBits(s.cell), 0x105u);

  // A vector at an odd address is copied into the scratch buffer.
  TestCell v(Column(kVector, 4), "00cdcc8c3fcdcc0c4033335340");
  v.cell.data = v.bytes.data() + 1;
  v.cell.size = 12;
  float scratch[3];
  auto span = CellVector(v.cell, scratch);
  ASSERT_EQ(span.size(), 3u);
  EXPECT_EQ(span[0], 1.1f);
  EXPECT_EQ(span[1], 2.2f);
  EXPECT_EQ(span[2], 3.3f);
}

TEST(BinlogValuesDecoder, ShortOrNullCellsThrowInsteadOfReadingPastTheEnd) {
  TestCell short_int(Column(kLongLong), "01020304");
  EXPECT_THROW(CellInt64(short_int.cell), Error);
  EXPECT_THROW(CellSignedInteger(short_int.cell), Error);
  TestCell null_int(Column(kLong), nullptr);
  EXPECT_THROW(CellInt32(null_int.cell), Error);
  TestCell long_bit(Column(kBit, 64), "010203040506070809");
  EXPECT_THROW(CellBit(long_bit.cell), Error);
  TestCell odd_vector(Column(kVector, 4), "0102030405");
  EXPECT_THROW(CellVectorLength(odd_vector.cell), Error);
  TestCell not_int(Column(kVarchar, 10), "01");
  EXPECT_THROW(CellSignedInteger(not_int.cell), Error);
}

}  // namespace
}  // namespace rowbridge::binlog
