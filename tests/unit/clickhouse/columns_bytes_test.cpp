// Exact native-format bytes of every column type. Types the 18.16 test server has are also
// round-tripped against it (tests/integration/clickhouse/columns_native_format_test.cpp); for the
// others (Int128/256, UInt128/256, Decimal256, Date32, DateTime64, Bool) the expected bytes follow
// ClickHouse's documented layouts: fixed-width little-endian two's complement integers (Int*,
// Decimal* unscaled), Date32 = Int32 days, DateTime64 = Int64 ticks, Bool = UInt8 0/1.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "clickhouse/columns/array.h"
#include "clickhouse/columns/civil_time.h"
#include "clickhouse/columns/date.h"
#include "clickhouse/columns/decimal.h"
#include "clickhouse/columns/enum.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/nullable.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/columns/uuid.h"

namespace rowbridge::clickhouse {
namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string ColumnHex(const Column& column) {
  WireWriter out;
  column.WritePrefix(out);
  column.WriteData(out);
  return Hex(out.data());
}

// Reads the column's own bytes back into a fresh column of the same type and checks every value's
// text survives and nothing is left over.
void ExpectReadsBack(const Column& column) {
  WireWriter out;
  column.WritePrefix(out);
  column.WriteData(out);
  ColumnPtr back = CreateColumn(column.type_name());
  BufferWireReader in(out.data());
  back->ReadPrefix(in);
  back->ReadData(in, column.Size());
  EXPECT_TRUE(in.AtEnd()) << column.type_name();
  ASSERT_EQ(back->Size(), column.Size());
  for (size_t r = 0; r < column.Size(); ++r) EXPECT_EQ(back->Text(r), column.Text(r));
}

template <typename F>
ErrorCode CodeOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no rowbridge::Error thrown";
  return ErrorCode::kInternal;
}

TEST(ClickHouseColumnBytes, SmallIntegers) {
  ColumnInt8 i8;
  i8.Append(-1);
  i8.Append(127);
  EXPECT_EQ(ColumnHex(i8), "ff7f");
  EXPECT_EQ(i8.Text(0), "-1");
  ColumnInt16 i16;
  i16.Append(-2);
  EXPECT_EQ(ColumnHex(i16), "feff");
  ColumnUInt32 u32;
  u32.Append(0x01020304);
  EXPECT_EQ(ColumnHex(u32), "04030201");
  ColumnInt64 i64;
  i64.Append(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ColumnHex(i64), "0000000000000080");
  EXPECT_EQ(i64.Text(0), "-9223372036854775808");
  ColumnUInt8 u8;
  u8.Append(200);
  EXPECT_EQ(u8.Text(0), "200");
  ExpectReadsBack(i8);
  ExpectReadsBack(i64);
}

TEST(ClickHouseColumnBytes, WideIntegers) {
  ColumnInt128 i128;
  i128.Append(-2);
  i128.Append(static_cast<Int128>(UInt128{1} << 127));  // minimum
  EXPECT_EQ(ColumnHex(i128),
            "feffffffffffffffffffffffffffffff"
            "00000000000000000000000000000080");
  EXPECT_EQ(i128.Text(1), "-170141183460469231731687303715884105728");
  ColumnUInt128 u128;
  u128.Append(~UInt128{0});
  EXPECT_EQ(u128.Text(0), "340282366920938463463374607431768211455");
  EXPECT_EQ(u128.type_name(), "UInt128");

  ColumnWide256 i256(true);
  Wide256 minus_one;
  minus_one.limbs = {~0ull, ~0ull, ~0ull, ~0ull};
  i256.Append(minus_one);
  Wide256 min256;
  min256.limbs = {0, 0, 0, 1ull << 63};
  i256.Append(min256);
  EXPECT_EQ(ColumnHex(i256).substr(0, 64), std::string(64, 'f'));
  EXPECT_EQ(i256.Text(0), "-1");
  EXPECT_EQ(i256.Text(1),
            "-57896044618658097711785492504343953926634992332820282019728792003956564819968");
  ColumnWide256 u256(false);
  u256.Append(minus_one);
  Wide256 limbs;
  limbs.limbs = {1, 2, 3, 4};
  u256.Append(limbs);
  EXPECT_EQ(u256.type_name(), "UInt256");
  EXPECT_EQ(u256.Text(0),
            "115792089237316195423570985008687907853269984665640564039457584007913129639935");
  EXPECT_EQ(ColumnHex(u256).substr(64),
            "0100000000000000020000000000000003000000000000000400000000000000");
  ExpectReadsBack(i128);
  ExpectReadsBack(i256);
  ExpectReadsBack(u256);
}

TEST(ClickHouseColumnBytes, FloatsAndTheirText) {
  ColumnFloat64 f64;
  f64.Append(1.0);
  EXPECT_EQ(ColumnHex(f64), "000000000000f03f");
  ColumnFloat32 f32;
  f32.Append(1.0f);
  EXPECT_EQ(ColumnHex(f32), "0000803f");
  // The forms below were printed by clickhouse-client 18.16 for the same values.
  auto text = [](double v) {
    std::string s;
    AppendFloatText(v, s);
    return s;
  };
  EXPECT_EQ(text(1e21), "1e21");
  EXPECT_EQ(text(1e-7), "1e-7");
  EXPECT_EQ(text(1e20), "100000000000000000000");
  EXPECT_EQ(text(1e-6), "0.000001");
  EXPECT_EQ(text(123456.789), "123456.789");
  EXPECT_EQ(text(1.2345678901234569e23), "1.2345678901234569e23");
  EXPECT_EQ(text(-0.0), "-0");
  EXPECT_EQ(text(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(text(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(text(std::nan("")), "nan");
  std::string f;
  AppendFloatText(0.1f, f);
  EXPECT_EQ(f, "0.1");
}

TEST(ClickHouseColumnBytes, Decimals) {
  ColumnDecimal32 d32(9, 2);
  d32.AppendParsed("-1.5");
  d32.AppendUnscaled(int64_t{5});
  EXPECT_EQ(d32.type_name(), "Decimal(9, 2)");
  EXPECT_EQ(ColumnHex(d32),
            "6affffff"
            "05000000");
  EXPECT_EQ(d32.Text(0), "-1.50");
  EXPECT_EQ(d32.Text(1), "0.05");
  EXPECT_EQ(CodeOf([&] { d32.AppendParsed("10000000.00"); }), ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { d32.AppendUnscaled(int64_t{1000000000}); }), ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { d32.AppendParsed("1.234"); }), ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { d32.AppendParsed("1.2x"); }), ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { d32.AppendParsed("-"); }), ErrorCode::kConversion);
  d32.AppendParsed("1.230");  // extra zero digits are exact
  EXPECT_EQ(d32.At(2), 123);
  EXPECT_EQ(d32.Size(), 3u);

  ColumnDecimal64 d64(18, 0);
  d64.AppendParsed("-999999999999999999");
  EXPECT_EQ(d64.Text(0), "-999999999999999999");
  EXPECT_EQ(ColumnHex(d64), "01009c584c491ff2");

  ColumnDecimal128 d128(38, 38);
  d128.AppendParsed("-0.99999999999999999999999999999999999999");
  EXPECT_EQ(d128.Text(0), "-0.99999999999999999999999999999999999999");
  EXPECT_EQ(d128.type_name(), "Decimal(38, 38)");

  ColumnDecimal256 d256(76, 10);
  d256.AppendParsed(
      "-123456789012345678901234567890123456789012345678901234567890123456.7890123456");
  d256.AppendUnscaled(Int128{-1});
  EXPECT_EQ(d256.Text(0),
            "-123456789012345678901234567890123456789012345678901234567890123456.7890123456");
  EXPECT_EQ(d256.Text(1), "-0.0000000001");
  EXPECT_EQ(ColumnHex(d256).substr(64), std::string(64, 'f'));
  Wide256 too_big = Pow10Wide(76);
  EXPECT_EQ(CodeOf([&] { d256.AppendUnscaled(too_big); }), ErrorCode::kConversion);
  ExpectReadsBack(d32);
  ExpectReadsBack(d64);
  ExpectReadsBack(d128);
  ExpectReadsBack(d256);
}

TEST(ClickHouseColumnBytes, DatesAndTimes) {
  ColumnDate date;
  date.AppendDays(DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(date.At(0), 19782);
  EXPECT_EQ(ColumnHex(date), "464d");
  EXPECT_EQ(date.Text(0), "2024-02-29");
  EXPECT_EQ(CodeOf([&] { date.AppendDays(-1); }), ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { date.AppendDays(65536); }), ErrorCode::kConversion);

  ColumnDate32 date32;
  date32.AppendDays(-1);
  date32.AppendDays(DaysFromCivil(1900, 1, 1));
  date32.AppendDays(DaysFromCivil(2299, 12, 31));
  EXPECT_EQ(ColumnHex(date32).substr(0, 8), "ffffffff");
  EXPECT_EQ(date32.Text(0), "1969-12-31");
  EXPECT_EQ(date32.Text(1), "1900-01-01");
  EXPECT_EQ(date32.Text(2), "2299-12-31");
  EXPECT_EQ(CodeOf([&] { date32.AppendDays(DaysFromCivil(1899, 12, 31)); }),
            ErrorCode::kConversion);

  ColumnDateTime dt("Europe/Berlin");
  EXPECT_EQ(dt.type_name(), "DateTime('Europe/Berlin')");
  dt.AppendSeconds(1700000000);
  EXPECT_EQ(ColumnHex(dt), "00f15365");
  EXPECT_EQ(dt.Text(0), "2023-11-14 22:13:20");  // UTC, whatever the column's zone
  EXPECT_EQ(CodeOf([&] { dt.AppendSeconds(-1); }), ErrorCode::kConversion);

  ColumnDateTime64 dt64(3, "UTC");
  EXPECT_EQ(dt64.type_name(), "DateTime64(3, 'UTC')");
  dt64.AppendTicks(-1);
  dt64.AppendTicks(1700000000123);
  EXPECT_EQ(ColumnHex(dt64).substr(0, 16), "ffffffffffffffff");
  EXPECT_EQ(dt64.Text(0), "1969-12-31 23:59:59.999");
  EXPECT_EQ(dt64.Text(1), "2023-11-14 22:13:20.123");
  ColumnDateTime64 dt64_0(0);
  EXPECT_EQ(dt64_0.type_name(), "DateTime64(0)");
  dt64_0.AppendTicks(0);
  EXPECT_EQ(dt64_0.Text(0), "1970-01-01 00:00:00");
  ExpectReadsBack(date32);
  ExpectReadsBack(dt64);

  for (int64_t days : {-719468ll, -25567ll, -1ll, 0ll, 59ll, 60ll, 11016ll, 120529ll}) {
    CivilDate c = CivilFromDays(days);
    EXPECT_EQ(DaysFromCivil(c.year, c.month, c.day), days);
  }
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
}

TEST(ClickHouseColumnBytes, UuidUsesClickHouseHalfOrder) {
  ColumnUuid uuid;
  uuid.AppendParsed("00112233-4455-6677-8899-aabbccddeeff");
  // Verified against the bytes 18.16 sends for the same UUID.
  EXPECT_EQ(ColumnHex(uuid), "7766554433221100ffeeddccbbaa9988");
  EXPECT_EQ(uuid.Text(0), "00112233-4455-6677-8899-aabbccddeeff");
  const uint8_t rfc[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                           0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  uuid.AppendBytes(rfc);
  EXPECT_EQ(uuid.At(1), uuid.At(0));
  EXPECT_EQ(CodeOf([&] { uuid.AppendParsed("00112233-4455-6677-8899-aabbccddeef"); }),
            ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { uuid.AppendParsed("00112233x4455-6677-8899-aabbccddeeff"); }),
            ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { uuid.AppendParsed("0011223g-4455-6677-8899-aabbccddeeff"); }),
            ErrorCode::kConversion);
  ExpectReadsBack(uuid);
}

TEST(ClickHouseColumnBytes, EnumsAndBool) {
  ColumnEnum8 e8(EnumItems{{"b", 2}, {"a", -1}});
  EXPECT_EQ(e8.type_name(), "Enum8('a' = -1, 'b' = 2)");
  e8.AppendName("b");
  e8.Append(-1);
  e8.AppendDefault();
  EXPECT_EQ(ColumnHex(e8), "02ffff");
  EXPECT_EQ(e8.Text(0), "b");
  EXPECT_EQ(e8.Text(2), "a");
  EXPECT_EQ(CodeOf([&] { e8.Append(3); }), ErrorCode::kConversion);
  EXPECT_EQ(CodeOf([&] { e8.AppendName("c"); }), ErrorCode::kConversion);
  ColumnEnum16 e16(EnumItems{{"x'y", 1000}});
  e16.Append(1000);
  EXPECT_EQ(e16.type_name(), "Enum16('x\\'y' = 1000)");
  EXPECT_EQ(ColumnHex(e16), "e803");
  EXPECT_EQ(CodeOf([] { ColumnEnum8 bad(EnumItems{{"big", 300}}); }), ErrorCode::kInvalidArgument);
  ExpectReadsBack(e8);
  ExpectReadsBack(e16);

  // An undeclared value from the wire is corruption, reported when it is looked at.
  ColumnEnum8 read(EnumItems{{"a", 1}});
  BufferWireReader in(std::string_view("\x05", 1));
  read.ReadData(in, 1);
  EXPECT_EQ(CodeOf([&] { read.Text(0); }), ErrorCode::kCorruption);

  ColumnBool b;
  b.Append(true);
  b.Append(false);
  EXPECT_EQ(b.type_name(), "Bool");
  EXPECT_EQ(ColumnHex(b), "0100");
  EXPECT_EQ(b.Text(0), "true");
  EXPECT_EQ(b.Text(1), "false");
  ExpectReadsBack(b);
}

TEST(ClickHouseColumnBytes, Strings) {
  ColumnString s;
  s.Append("ab");
  s.Append(std::string(200, 'z'));
  s.Append("");
  std::string expected =
      "026162"
      "c801" +
      Hex(std::string(200, 'z')) + "00";
  EXPECT_EQ(ColumnHex(s), expected);
  EXPECT_EQ(s.At(1).size(), 200u);
  EXPECT_EQ(s.At(2), "");
  ExpectReadsBack(s);

  ColumnFixedString fs(3);
  fs.Append("a");
  fs.Append("abc");
  EXPECT_EQ(ColumnHex(fs), "610000616263");
  EXPECT_EQ(fs.At(0), std::string_view("a\0\0", 3));
  EXPECT_EQ(CodeOf([&] { fs.Append("abcd"); }), ErrorCode::kConversion);
  EXPECT_EQ(fs.Size(), 2u);
  ExpectReadsBack(fs);
}

TEST(ClickHouseColumnBytes, NullableAndArray) {
  ColumnNullable ns(std::make_unique<ColumnString>());
  ns.AppendNull();
  ns.AppendNotNull();
  ns.nested_as<ColumnString>().Append("x");
  EXPECT_EQ(ns.type_name(), "Nullable(String)");
  EXPECT_EQ(ColumnHex(ns),
            "0100"
            "00"
            "0178");
  EXPECT_EQ(ns.Text(0), "\\N");
  EXPECT_EQ(ns.Text(1), "x");
  ExpectReadsBack(ns);

  ColumnArray arr(std::make_unique<ColumnInt32>());
  arr.nested_as<ColumnInt32>().Append(7);
  arr.nested_as<ColumnInt32>().Append(8);
  arr.FinishRow();
  arr.AppendDefault();
  arr.nested_as<ColumnInt32>().Append(-1);
  arr.FinishRow();
  EXPECT_EQ(arr.type_name(), "Array(Int32)");
  EXPECT_EQ(ColumnHex(arr),
            "0200000000000000"
            "0200000000000000"
            "0300000000000000"
            "07000000"
            "08000000"
            "ffffffff");
  EXPECT_EQ(arr.Text(0), "[7,8]");
  EXPECT_EQ(arr.Text(1), "[]");
  ExpectReadsBack(arr);

  ColumnArray strings(std::make_unique<ColumnNullable>(std::make_unique<ColumnString>()));
  auto& items = strings.nested_as<ColumnNullable>();
  items.AppendNotNull();
  items.nested_as<ColumnString>().Append("it's\t");
  items.AppendNull();
  strings.FinishRow();
  EXPECT_EQ(strings.Text(0), "['it\\'s\\t',NULL]");
  ExpectReadsBack(strings);

  // Offsets going backwards are corruption.
  ColumnArray bad(std::make_unique<ColumnUInt8>());
  std::string wire("\x02\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0", 16);
  BufferWireReader in(wire);
  EXPECT_EQ(CodeOf([&] { bad.ReadData(in, 2); }), ErrorCode::kCorruption);
}

TEST(ClickHouseColumnBytes, LowCardinalityString) {
  ColumnLowCardinalityString lc(false);
  lc.Append("a");
  lc.Append("b");
  lc.Append("a");
  EXPECT_EQ(lc.type_name(), "LowCardinality(String)");
  EXPECT_EQ(lc.DictionarySize(), 2u);
  EXPECT_EQ(ColumnHex(lc),
            "0100000000000000"  // key version: shared dictionaries
            "0006000000000000"  // UInt8 indexes | additional keys | update
            "0200000000000000"
            "0161"
            "0162"  // 2 keys
            "0300000000000000"
            "000100");  // 3 rows
  ExpectReadsBack(lc);

  ColumnLowCardinalityString lcn(true);
  lcn.AppendNull();
  lcn.Append("");
  lcn.Append("q");
  EXPECT_EQ(lcn.type_name(), "LowCardinality(Nullable(String))");
  // Key 0 is NULL, as in what 18.16 sends (it also keeps "" at key 1).
  EXPECT_EQ(ColumnHex(lcn),
            "0100000000000000"
            "0006000000000000"
            "0300000000000000"
            "00"
            "00"
            "0171"
            "0300000000000000"
            "000102");
  EXPECT_TRUE(lcn.IsNull(0));
  EXPECT_FALSE(lcn.IsNull(1));
  EXPECT_EQ(lcn.Text(0), "\\N");
  ExpectReadsBack(lcn);
  EXPECT_EQ(CodeOf([&] { lc.AppendNull(); }), ErrorCode::kInternal);

  // Wider indexes once the dictionary outgrows a byte; Clear keeps working afterwards.
  ColumnLowCardinalityString many(false);
  for (int i = 0; i < 1000; ++i) many.Append("v" + std::to_string(i % 300));
  EXPECT_EQ(many.DictionarySize(), 300u);
  EXPECT_EQ(ColumnHex(many).substr(16, 16), "0106000000000000");
  ExpectReadsBack(many);
  many.Clear();
  EXPECT_EQ(many.Size(), 0u);
  EXPECT_EQ(many.DictionarySize(), 0u);
  many.Append("v1");
  EXPECT_EQ(many.At(0), "v1");

  // Exactly what ClickHouse 18.16 sent for SELECT of a LowCardinality(Nullable(String)) column
  // holding NULL, '' and 'q'.
  static constexpr char kServer[] =
      "\x01\0\0\0\0\0\0\0"
      "\x00\x06\0\0\0\0\0\0"
      "\x03\0\0\0\0\0\0\0"
      "\x00\x00\x01q"
      "\x03\0\0\0\0\0\0\0"
      "\x00\x01\x02";
  std::string server(kServer, sizeof kServer - 1);
  ColumnLowCardinalityString from_server(true);
  BufferWireReader in(server);
  from_server.ReadPrefix(in);
  from_server.ReadData(in, 3);
  EXPECT_TRUE(in.AtEnd());
  EXPECT_TRUE(from_server.IsNull(0));
  EXPECT_EQ(from_server.Text(1), "");
  EXPECT_FALSE(from_server.IsNull(1));
  EXPECT_EQ(from_server.Text(2), "q");
}

TEST(ClickHouseColumnBytes, LowCardinalityRejectsCorruptInput) {
  auto read = [](std::string bytes, size_t rows) {
    ColumnLowCardinalityString lc(false);
    BufferWireReader in(bytes);
    lc.ReadPrefix(in);
    lc.ReadData(in, rows);
  };
  const std::string version("\x01\0\0\0\0\0\0\0", 8);
  EXPECT_EQ(CodeOf([&] { read(std::string("\x02\0\0\0\0\0\0\0", 8), 1); }), ErrorCode::kCorruption);
  // Index type 4 does not exist.
  EXPECT_EQ(CodeOf([&] { read(version + std::string("\x04\x02\0\0\0\0\0\0", 8), 1); }),
            ErrorCode::kCorruption);
  // Index 5 with one key.
  std::string bad_index = version + std::string("\x00\x02\0\0\0\0\0\0", 8) +
                          std::string("\x01\0\0\0\0\0\0\0\x01x", 10) +
                          std::string("\x01\0\0\0\0\0\0\0\x05", 9);
  EXPECT_EQ(CodeOf([&] { read(bad_index, 1); }), ErrorCode::kCorruption);
  // More index rows than the block has.
  std::string too_many = version + std::string("\x00\x02\0\0\0\0\0\0", 8) +
                         std::string("\x01\0\0\0\0\0\0\0\x01x", 10) +
                         std::string("\x02\0\0\0\0\0\0\0\x00\x00", 10);
  EXPECT_EQ(CodeOf([&] { read(too_many, 1); }), ErrorCode::kCorruption);
  // Truncated keys.
  EXPECT_EQ(CodeOf([&] {
              read(version + std::string("\x00\x02\0\0\0\0\0\0\x09\0\0\0\0\0\0\0\x01x", 18), 1);
            }),
            ErrorCode::kCorruption);
}

TEST(ClickHouseColumnBytes, ClearKeepsCapacity) {
  ColumnString s;
  for (int i = 0; i < 1000; ++i) s.Append("some value");
  ColumnUInt64 u;
  for (int i = 0; i < 1000; ++i) u.Append(i);
  size_t capacity = u.data().capacity();
  s.Clear();
  u.Clear();
  EXPECT_EQ(s.Size(), 0u);
  EXPECT_EQ(u.data().capacity(), capacity);
  s.Append("again");
  EXPECT_EQ(s.At(0), "again");
}

}  // namespace
}  // namespace rowbridge::clickhouse
