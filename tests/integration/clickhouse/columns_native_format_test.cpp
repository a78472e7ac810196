// Round trips every column type through a real ClickHouse server: blocks we write are INSERTed
// with clickhouse-client's FORMAT Native, read back with FORMAT Native into ReadBlock, and checked
// against clickhouse-client's TSV rendering of the same rows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "clickhouse/block.h"
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
#include "integration/clickhouse/clickhouse_cli.h"

namespace rowbridge::clickhouse {
namespace {

using testing::ClickHouseCliAddress;
using testing::RunClickHouseClient;

const std::vector<std::string> kAllowLowCardinality = {
    "--allow_experimental_low_cardinality_type=1"};

std::vector<Block> ReadAllBlocks(const std::string& bytes) {
  BufferWireReader in(bytes);
  std::vector<Block> blocks;
  while (!in.AtEnd()) blocks.push_back(ReadBlock(in, 0));
  return blocks;
}

std::string ColumnBytes(const Column& column) {
  WireWriter out;
  column.WritePrefix(out);
  column.WriteData(out);
  return out.data();
}

// Creates `table` with the block's columns, inserts the block as Native, and checks the server
// returns the same values, as Native and (if compare_tsv) as TSV.
void RoundTrip(const ClickHouseCliAddress& ch, const std::string& table, const Block& block,
               bool compare_tsv = true) {
  std::string ddl = "CREATE TABLE " + table + " (";
  for (size_t i = 0; i < block.ColumnCount(); ++i) {
    if (i) ddl += ", ";
    ddl += block.Name(i) + " " + block.At(i).type_name();
  }
  ddl += ") ENGINE = Memory";
  RunClickHouseClient(ch, "DROP TABLE IF EXISTS " + table);
  RunClickHouseClient(ch, ddl, {}, kAllowLowCardinality);

  WireWriter native;
  WriteBlock(native, block, 0);
  RunClickHouseClient(ch, "INSERT INTO " + table + " FORMAT Native", native.data());

  std::vector<Block> back =
      ReadAllBlocks(RunClickHouseClient(ch, "SELECT * FROM " + table + " FORMAT Native"));
  ASSERT_EQ(back.size(), 1u);
  const Block& got = back.front();
  ASSERT_EQ(got.ColumnCount(), block.ColumnCount());
  ASSERT_EQ(got.RowCount(), block.RowCount());
  for (size_t c = 0; c < block.ColumnCount(); ++c) {
    SCOPED_TRACE(block.Name(c) + " " + block.At(c).type_name());
    EXPECT_EQ(got.Name(c), block.Name(c));
    // ClickHouse 18.16's clickhouse-client drops the time zone of DateTime('tz') from Native
    // output (the values are unchanged); newer servers keep it.
    if (got.At(c).type_name() != "DateTime" || !block.At(c).type_name().starts_with("DateTime(")) {
      EXPECT_EQ(got.At(c).type_name(), block.At(c).type_name());
    }
    for (size_t r = 0; r < block.RowCount(); ++r)
      EXPECT_EQ(got.At(c).Text(r), block.At(c).Text(r)) << "row " << r;
    // Same bytes too, except LowCardinality whose dictionary order is the writer's choice.
    if (block.At(c).type_name().find("LowCardinality") == std::string::npos) {
      EXPECT_EQ(ColumnBytes(got.At(c)), ColumnBytes(block.At(c)));
    }
  }

  if (!compare_tsv) {
    RunClickHouseClient(ch, "DROP TABLE " + table);
    return;
  }
  auto tsv = testing::SplitTsv(RunClickHouseClient(ch, "SELECT * FROM " + table + " FORMAT TSV"));
  ASSERT_EQ(tsv.size(), block.RowCount());
  for (size_t r = 0; r < block.RowCount(); ++r) {
    ASSERT_EQ(tsv[r].size(), block.ColumnCount());
    for (size_t c = 0; c < block.ColumnCount(); ++c) {
      std::string ours = block.At(c).Text(r);
      // Arrays print their elements quoted and escaped already; NULL is \N as is.
      bool raw = ours == "\\N" || block.At(c).type_name().starts_with("Array(");
      EXPECT_EQ(tsv[r][c], raw ? ours : testing::EscapeTsv(ours))
          << "row " << r << " column " << block.Name(c) << " " << block.At(c).type_name();
    }
  }
  RunClickHouseClient(ch, "DROP TABLE " + table);
}

TEST(ClickHouseColumnsNative, IntegersAndFloats) {
  auto ch = testing::ClickHouseCliFromEnv();
  ROWBRIDGE_REQUIRE_CLICKHOUSE(ch);
  Block b;
  auto& i8 = b.AddColumn("i8", std::make_unique<ColumnInt8>());
  auto& i16 = b.AddColumn("i16", std::make_unique<ColumnInt16>());
  auto& i32 = b.AddColumn("i32", std::make_unique<ColumnInt32>());
  auto& i64 = b.AddColumn("i64", std::make_unique<ColumnInt64>());
  auto& u8 = b.AddColumn("u8", std::make_unique<ColumnUInt8>());
  auto& u16 = b.AddColumn("u16", std::make_unique<ColumnUInt16>());
  auto& u32 = b.AddColumn("u32", std::make_unique<ColumnUInt32>());
  auto& u64 = b.AddColumn("u64", std::make_unique<ColumnUInt64>());
  auto& f32 = b.AddColumn("f32", std::make_unique<ColumnFloat32>());
  auto& f64 = b.AddColumn("f64", std::make_unique<ColumnFloat64>());
  const double doubles[] = {0.1,
                            -1e21,
                            1e21,
                            1e-7,
                            123456.789,
                            1e20,
                            1e-6,
                            -0.0,
                            std::numeric_limits<double>::infinity(),
                            5e-324,
                            1.7976931348623157e308,
                            1.2345678901234569e23,
                            3.0};
  const float floats[] = {0.1f,   -1e21f,        1e21f,
                          1e-7f,  123456.79f,    1e20f,
                          1e-6f,  -0.0f,         -std::numeric_limits<float>::infinity(),
                          1e-45f, 3.4028235e38f, 16777216.0f,
                          3.0f};
  for (size_t r = 0; r < std::size(doubles); ++r) {
    bool low = r % 2 == 0;
    i8.Append(low ? std::numeric_limits<int8_t>::min() : static_cast<int8_t>(r));
    i16.Append(low ? std::numeric_limits<int16_t>::min() : static_cast<int16_t>(-r));
    i32.Append(low ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max());
    i64.Append(low ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
    u8.Append(low ? 255 : static_cast<uint8_t>(r));
    u16.Append(low ? 65535 : static_cast<uint16_t>(r));
    u32.Append(low ? 4294967295u : static_cast<uint32_t>(r));
    u64.Append(low ? std::numeric_limits<uint64_t>::max() : r);
    f32.Append(floats[r]);
    f64.Append(doubles[r]);
  }
  RoundTrip(ch, "rb_cols_numbers", b);
}

TEST(ClickHouseColumnsNative, DecimalsDatesUuidEnums) {
  auto ch = testing::ClickHouseCliFromEnv();
  ROWBRIDGE_REQUIRE_CLICKHOUSE(ch);
  Block b;
  auto& d9 = b.AddColumn("d9", std::make_unique<ColumnDecimal32>(9, 2));
  auto& d18 = b.AddColumn("d18", std::make_unique<ColumnDecimal64>(18, 4));
  auto& d38 = b.AddColumn("d38", std::make_unique<ColumnDecimal128>(38, 10));
  auto& d0 = b.AddColumn("d0", std::make_unique<ColumnDecimal64>(10, 0));
  auto& date = b.AddColumn("date", std::make_unique<ColumnDate>());
  auto& dt = b.AddColumn("dt", std::make_unique<ColumnDateTime>());
  auto& dt_utc = b.AddColumn("dt_utc", std::make_unique<ColumnDateTime>("UTC"));
  auto& uuid = b.AddColumn("uuid", std::make_unique<ColumnUuid>());
  auto& e8 = b.AddColumn(
      "e8", std::make_unique<ColumnEnum8>(EnumItems{{"b", 2}, {"a", -128}, {"it's", 127}}));
  auto& e16 = b.AddColumn(
      "e16", std::make_unique<ColumnEnum16>(EnumItems{{"low", -32768}, {"high", 32767}}));

  d9.AppendParsed("-9999999.99");
  d9.AppendParsed("0.05");
  d9.AppendUnscaled(int64_t{123});
  d18.AppendParsed("99999999999999.9999");
  d18.AppendParsed("-0.0001");
  d18.AppendParsed("1.5");
  d38.AppendParsed("-9999999999999999999999999999.9999999999");
  d38.AppendUnscaled(Int128{1});
  d38.AppendParsed("0");
  d0.AppendParsed("9999999999");
  d0.AppendParsed("-1");
  d0.AppendParsed("0");
  date.AppendDays(1);
  date.AppendDays(DaysFromCivil(2099, 12, 31));
  date.AppendDays(DaysFromCivil(2024, 2, 29));
  dt.AppendSeconds(1);
  dt.AppendSeconds(DaysFromCivil(2099, 12, 31) * 86400 + 86399);
  dt.AppendSeconds(951782400);  // 2000-02-29 00:00:00
  dt_utc.AppendSeconds(1700000000);
  dt_utc.AppendSeconds(1);
  dt_utc.AppendSeconds(86399);
  uuid.AppendParsed("00112233-4455-6677-8899-aabbccddeeff");
  uuid.AppendParsed("FFFFFFFF-0000-0000-0000-000000000001");
  uuid.AppendParsed("00000000-0000-0000-0000-000000000000");
  e8.AppendName("a");
  e8.AppendName("it's");
  e8.Append(2);
  e16.AppendName("high");
  e16.Append(-32768);
  e16.AppendDefault();
  RoundTrip(ch, "rb_cols_decimals", b);
  EXPECT_EQ(b.At(0).Text(1), "0.05");
  EXPECT_EQ(b.Get("uuid").Text(1), "ffffffff-0000-0000-0000-000000000001");
  EXPECT_EQ(b.Get("e16").Text(2), "low");
}

// The ends of Date and DateTime. Native only: ClickHouse 18.16 prints day/second 0 as
// 0000-00-00 and cannot print dates after 2105 (its date table ends there), while newer servers
// print 1970-01-01 and the real date, as AppendText does.
TEST(ClickHouseColumnsNative, DateExtremesSurviveNative) {
  auto ch = testing::ClickHouseCliFromEnv();
  ROWBRIDGE_REQUIRE_CLICKHOUSE(ch);
  Block b;
  auto& date = b.AddColumn("date", std::make_unique<ColumnDate>());
  auto& dt = b.AddColumn("dt", std::make_unique<ColumnDateTime>());
  date.AppendDays(0);
  date.AppendDays(65535);
  dt.AppendSeconds(0);
  dt.AppendSeconds(4294967295);
  RoundTrip(ch, "rb_cols_date_ends", b, /*compare_tsv=*/false);
  EXPECT_EQ(date.Text(1), "2149-06-06");
  EXPECT_EQ(dt.Text(1), "2106-02-07 06:28:15");
}

TEST(ClickHouseColumnsNative, StringsNullablesArrays) {
  auto ch = testing::ClickHouseCliFromEnv();
  ROWBRIDGE_REQUIRE_CLICKHOUSE(ch);
  Block b;
  auto& s = b.AddColumn("s", std::make_unique<ColumnString>());
  auto& fs = b.AddColumn("fs", std::make_unique<ColumnFixedString>(4));
  auto& ni = b.AddColumn("ni", std::make_unique<ColumnNullable>(std::make_unique<ColumnInt32>()));
  auto& ns = b.AddColumn("ns", std::make_unique<ColumnNullable>(std::make_unique<ColumnString>()));
  auto& nd = b.AddColumn("nd", std::make_unique<ColumnNullable>(std::make_unique<ColumnDate>()));
  auto& ai = b.AddColumn("ai", std::make_unique<ColumnArray>(std::make_unique<ColumnInt32>()));
  auto& as = b.AddColumn("as", std::make_unique<ColumnArray>(std::make_unique<ColumnNullable>(
                                   std::make_unique<ColumnString>())));
  auto& aas = b.AddColumn("aas", std::make_unique<ColumnArray>(std::make_unique<ColumnArray>(
                                     std::make_unique<ColumnString>())));

  static constexpr char kWeird[] = "tab\there\nnew 'q' back\\slash \0nul \xd0\xb6";
  const std::string weird(kWeird, sizeof kWeird - 1);
  s.Append("");
  s.Append(weird);
  s.Append(std::string(100000, 'x'));
  fs.Append("ab");
  fs.Append("abcd");
  fs.AppendDefault();
  ni.AppendNull();
  ni.AppendNotNull();
  ni.nested_as<ColumnInt32>().Append(-5);
  ni.AppendNotNull();
  ni.nested_as<ColumnInt32>().Append(0);
  ns.AppendNotNull();
  ns.nested_as<ColumnString>().Append("");
  ns.AppendNull();
  ns.AppendNotNull();
  ns.nested_as<ColumnString>().Append(weird);
  nd.AppendNull();
  nd.AppendNotNull();
  nd.nested_as<ColumnDate>().AppendDays(19000);
  nd.AppendNull();
  ai.FinishRow();
  ai.nested_as<ColumnInt32>().Append(1);
  ai.nested_as<ColumnInt32>().Append(-2);
  ai.FinishRow();
  ai.nested_as<ColumnInt32>().Append(3);
  ai.FinishRow();
  auto& as_items = as.nested_as<ColumnNullable>();
  as_items.AppendNull();
  as_items.AppendNotNull();
  as_items.nested_as<ColumnString>().Append("it's");
  as.FinishRow();
  as.FinishRow();
  as_items.AppendNotNull();
  as_items.nested_as<ColumnString>().Append(weird);
  as.FinishRow();
  auto& inner = aas.nested_as<ColumnArray>();
  inner.nested_as<ColumnString>().Append("a");
  inner.FinishRow();
  inner.FinishRow();
  aas.FinishRow();
  aas.FinishRow();
  inner.nested_as<ColumnString>().Append("b");
  inner.nested_as<ColumnString>().Append("c");
  inner.FinishRow();
  aas.FinishRow();
  RoundTrip(ch, "rb_cols_strings", b);
}

TEST(ClickHouseColumnsNative, LowCardinality) {
  auto ch = testing::ClickHouseCliFromEnv();
  ROWBRIDGE_REQUIRE_CLICKHOUSE(ch);
  // Few distinct values (UInt8 indexes), then enough for UInt16 and UInt32 indexes.
  for (size_t distinct : {3, 300, 70000}) {
    SCOPED_TRACE(distinct);
    Block b;
    auto& lc = b.AddColumn("lc", std::make_unique<ColumnLowCardinalityString>(false));
    auto& lcn = b.AddColumn("lcn", std::make_unique<ColumnLowCardinalityString>(true));
    auto& al = b.AddColumn(
        "al", std::make_unique<ColumnArray>(std::make_unique<ColumnLowCardinalityString>(false)));
    size_t rows = std::max<size_t>(distinct * 2, 10);
    for (size_t r = 0; r < rows; ++r) {
      std::string value = r % 5 == 0 ? "" : "v" + std::to_string(r % distinct);
      lc.Append(value);
      if (r % 4 == 1) {
        lcn.AppendNull();
      } else {
        lcn.Append(value);
      }
      if (r % 3 == 0) al.nested_as<ColumnLowCardinalityString>().Append(value);
      al.FinishRow();
    }
    RoundTrip(ch, "rb_cols_lowcard", b);
  }
}

TEST(ClickHouseColumnsNative, ReadsMultiBlockResults) {
  auto ch = testing::ClickHouseCliFromEnv();
  ROWBRIDGE_REQUIRE_CLICKHOUSE(ch);
  std::vector<Block> blocks = ReadAllBlocks(RunClickHouseClient(
      ch,
      "SELECT number, toString(number) AS s, toDecimal64(number, 3) AS d, "
      "if(number % 7 = 0, NULL, number) AS n FROM system.numbers LIMIT 200000 FORMAT Native",
      {}, {"--max_block_size=65536"}));
  ASSERT_GT(blocks.size(), 1u);
  uint64_t expected = 0;
  for (const Block& block : blocks) {
    ASSERT_EQ(block.ColumnCount(), 4u);
    EXPECT_EQ(block.At(2).type_name(), "Decimal(18, 3)");
    EXPECT_EQ(block.At(3).type_name(), "Nullable(UInt64)");
    const auto& numbers = As<ColumnUInt64>(block.At(0));
    const auto& strings = As<ColumnString>(block.At(1));
    const auto& decimals = As<ColumnDecimal64>(block.At(2));
    const auto& nullable = As<ColumnNullable>(block.At(3));
    for (size_t r = 0; r < block.RowCount(); ++r, ++expected) {
      ASSERT_EQ(numbers.At(r), expected);
      ASSERT_EQ(strings.At(r), std::to_string(expected));
      ASSERT_EQ(decimals.At(r), static_cast<int64_t>(expected * 1000));
      ASSERT_EQ(nullable.IsNull(r), expected % 7 == 0);
    }
  }
  EXPECT_EQ(expected, 200000u);
}

}  // namespace
}  // namespace rowbridge::clickhouse
