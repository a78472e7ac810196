#include <gtest/gtest.h>

#include "clickhouse/block.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/server_features.h"
#include "clickhouse/type_name.h"

namespace rowbridge::clickhouse {
namespace {

template <typename F>
ErrorCode CodeOf(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no rowbridge::Error thrown";
  return ErrorCode::kInternal;
}

TEST(ClickHouseTypeName, ParsesAndCanonicalizes) {
  struct Case {
    const char* text;
    const char* canonical;
    TypeCode code;
  };
  const Case cases[] = {
      {"UInt64", "UInt64", TypeCode::kUInt64},
      {" Nullable( String ) ", "Nullable(String)", TypeCode::kNullable},
      {"LowCardinality(Nullable(String))", "LowCardinality(Nullable(String))",
       TypeCode::kLowCardinality},
      {"DateTime64(3, 'UTC')", "DateTime64(3, 'UTC')", TypeCode::kDateTime64},
      {"DateTime64(6)", "DateTime64(6)", TypeCode::kDateTime64},
      {"DateTime('Europe/Moscow')", "DateTime('Europe/Moscow')", TypeCode::kDateTime},
      {"Decimal(18,4)", "Decimal(18, 4)", TypeCode::kDecimal64},
      {"Decimal(9, 0)", "Decimal(9, 0)", TypeCode::kDecimal32},
      {"Decimal(19, 2)", "Decimal(19, 2)", TypeCode::kDecimal128},
      {"Decimal(39, 2)", "Decimal(39, 2)", TypeCode::kDecimal256},
      {"Decimal64(4)", "Decimal(18, 4)", TypeCode::kDecimal64},
      {"Decimal256(10)", "Decimal(76, 10)", TypeCode::kDecimal256},
      {"Enum8('b' = 2, 'a' = 1)", "Enum8('a' = 1, 'b' = 2)", TypeCode::kEnum8},
      {"Enum16('it\\'s' = -1000)", "Enum16('it\\'s' = -1000)", TypeCode::kEnum16},
      {"Enum8('x''y' = 1)", "Enum8('x\\'y' = 1)", TypeCode::kEnum8},
      {"FixedString(16)", "FixedString(16)", TypeCode::kFixedString},
      {"Array(Array(Nullable(Int32)))", "Array(Array(Nullable(Int32)))", TypeCode::kArray},
      {"Array(LowCardinality(String))", "Array(LowCardinality(String))", TypeCode::kArray},
      {"Bool", "Bool", TypeCode::kBool},
      {"Date32", "Date32", TypeCode::kDate32},
      {"UInt256", "UInt256", TypeCode::kUInt256},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    TypeDesc t = ParseTypeName(c.text);
    EXPECT_EQ(t.name, c.canonical);
    EXPECT_EQ(t.code, c.code);
    EXPECT_EQ(FormatTypeName(t), c.canonical);
    EXPECT_EQ(ParseTypeName(t.name), t);
    // Every parsed type has a column whose type name is the canonical one, except
    // LowCardinality of non-strings, tested below.
    EXPECT_EQ(CreateColumn(t)->type_name(), c.canonical);
  }
  TypeDesc d = ParseTypeName("Decimal(18, 4)");
  EXPECT_EQ(d.precision, 18u);
  EXPECT_EQ(d.scale, 4u);
  TypeDesc dt = ParseTypeName("DateTime64(3, 'UTC')");
  EXPECT_EQ(dt.precision, 3u);
  EXPECT_EQ(dt.timezone, "UTC");
  TypeDesc e = ParseTypeName("Enum8('b' = 2, 'a' = 1)");
  ASSERT_EQ(e.enum_items.size(), 2u);
  EXPECT_EQ(e.enum_items[0].first, "a");
}

TEST(ClickHouseTypeName, RejectsInvalidAndUnsupported) {
  const char* invalid[] = {
      "Nullable(LowCardinality(String))",
      "Nullable(Nullable(String))",
      "Nullable(Array(String))",
      "LowCardinality(Array(String))",
      "LowCardinality(UUID)",
      "Decimal(0, 0)",
      "Decimal(77, 2)",
      "Decimal(5, 6)",
      "Decimal32(10)",
      "FixedString(0)",
      "FixedString()",
      "DateTime64(10)",
      "Enum8('a' = 200)",
      "Enum8('a' = 1, 'a' = 2)",
      "Enum8('a' = 1, 'b' = 1)",
      "Enum8()",
      "Enum8('a)",
      "UInt64(3)",
      "Nullable(String",
      "String extra",
      "",
      "(",
  };
  for (const char* text : invalid) {
    SCOPED_TRACE(text);
    EXPECT_EQ(CodeOf([&] { ParseTypeName(text); }), ErrorCode::kInvalidArgument);
  }
  std::string message;
  EXPECT_EQ(CodeOf([] { ParseTypeName("Map(String, UInt64)"); }, &message),
            ErrorCode::kUnsupported);
  EXPECT_NE(message.find("Map"), std::string::npos) << message;
  EXPECT_EQ(CodeOf([] { ParseTypeName("Tuple(UInt8)"); }), ErrorCode::kUnsupported);
  EXPECT_EQ(CodeOf([] { CreateColumn("LowCardinality(UInt32)"); }, &message),
            ErrorCode::kUnsupported);
  EXPECT_NE(message.find("LowCardinality(UInt32)"), std::string::npos) << message;
  // Deep nesting is bounded, not a stack overflow.
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "Array(";
  EXPECT_EQ(CodeOf([&] { ParseTypeName(deep); }), ErrorCode::kInvalidArgument);
}

TEST(ClickHouseBlock, BlockInfoAndCustomSerializationFlag) {
  Block block;
  block.info.is_overflows = true;
  block.info.bucket_num = 7;
  block.AddColumn("x", std::make_unique<ColumnUInt8>()).AppendDefault();

  WireWriter old_revision;
  WriteBlock(old_revision, block, 51902);  // before block info
  EXPECT_EQ(old_revision.data(), std::string("\x01\x01\x01x\x05UInt8\x00", 11));

  WireWriter with_info;
  WriteBlock(with_info, block, 54454);  // block info and the custom serialization flag
  EXPECT_EQ(with_info.data(), std::string("\x01\x01\x02\x07\x00\x00\x00\x00"
                                          "\x01\x01\x01x\x05UInt8\x00\x00",
                                          20));
  BufferWireReader in(with_info.data());
  Block back = ReadBlock(in, 54454);
  EXPECT_TRUE(in.AtEnd());
  EXPECT_EQ(back.info, block.info);
  EXPECT_EQ(back.RowCount(), 1u);

  // Sparse (custom) serialization is refused by name.
  std::string sparse = with_info.data();
  sparse[sparse.size() - 2] = '\x01';
  BufferWireReader sparse_in(sparse);
  std::string message;
  EXPECT_EQ(CodeOf([&] { ReadBlock(sparse_in, 54454); }, &message), ErrorCode::kUnsupported);
  EXPECT_NE(message.find("x"), std::string::npos);
}

TEST(ClickHouseBlock, EmptyBlockHasNoColumnData) {
  // A header block (as the server sends before INSERT data): columns, no rows, no data bytes,
  // not even LowCardinality's state prefix.
  Block header;
  header.AddColumn("id", std::make_unique<ColumnUInt64>());
  header.AddColumn("tag", std::make_unique<ColumnLowCardinalityString>(true));
  WireWriter out;
  WriteBlock(out, header, 0);
  static constexpr char kExpected[] =
      "\x02\x00\x02id\x06UInt64\x03tag\x20LowCardinality(Nullable(String))";
  EXPECT_EQ(out.data(), std::string(kExpected, sizeof kExpected - 1));
  BufferWireReader in(out.data());
  Block back = ReadBlock(in, 0);
  Block insert = back.EmptyLike();
  ASSERT_EQ(insert.ColumnCount(), 2u);
  As<ColumnUInt64>(insert.Get("id")).Append(5);
  As<ColumnLowCardinalityString>(insert.Get("tag")).AppendNull();
  EXPECT_EQ(insert.RowCount(), 1u);
  EXPECT_EQ(insert.Find("missing"), nullptr);
  EXPECT_EQ(CodeOf([&] { insert.Get("missing"); }), ErrorCode::kInvalidArgument);
}

TEST(ClickHouseBlock, RejectsBadBlocks) {
  Block uneven;
  uneven.AddColumn("a", std::make_unique<ColumnUInt8>()).AppendDefault();
  uneven.AddColumn("b", std::make_unique<ColumnUInt8>());
  WireWriter out;
  EXPECT_EQ(CodeOf([&] { WriteBlock(out, uneven, 0); }), ErrorCode::kInternal);
  EXPECT_EQ(CodeOf([&] { uneven.AddColumn("a", std::make_unique<ColumnUInt8>()); }),
            ErrorCode::kInvalidArgument);

  auto read = [](std::string bytes, uint64_t revision) {
    BufferWireReader in(bytes);
    ReadBlock(in, revision);
  };
  // Unknown block info field.
  EXPECT_EQ(CodeOf([&] { read(std::string("\x03\x00", 2), 54429); }), ErrorCode::kCorruption);
  // Truncated column data.
  EXPECT_EQ(CodeOf([&] { read(std::string("\x01\x02\x01x\x06UInt64\x01\x02", 13), 0); }),
            ErrorCode::kCorruption);
  // Unknown type.
  std::string message;
  EXPECT_EQ(CodeOf([&] { read(std::string("\x01\x01\x01x\x04Map1\x00", 10), 0); }, &message),
            ErrorCode::kUnsupported);
  // Absurd row count fails on the read, not on allocation.
  EXPECT_EQ(CodeOf([&] { read(std::string("\x01\xff\xff\xff\xff\x0f\x01x\x06UInt64", 15), 0); }),
            ErrorCode::kCorruption);
}

TEST(ClickHouseServerFeatures, VersionsAndTypes) {
  ServerVersion v = ServerVersion::Parse("18.16.1");
  EXPECT_EQ(v.ToString(), "18.16.1");
  EXPECT_EQ(ServerVersion::Parse("23.8.2.7"), (ServerVersion{23, 8, 2}));
  EXPECT_EQ(ServerVersion::Parse("24.3"), (ServerVersion{24, 3, 0}));
  EXPECT_EQ(CodeOf([] { ServerVersion::Parse("x"); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([] { ServerVersion::Parse("18"); }), ErrorCode::kInvalidArgument);

  ServerFeatures old(v);
  EXPECT_TRUE(old.HasLowCardinality());
  EXPECT_TRUE(old.LowCardinalityNeedsSetting());
  EXPECT_FALSE(old.HasDateTime64());
  EXPECT_FALSE(old.HasDate32());
  EXPECT_FALSE(old.HasBool());
  EXPECT_FALSE(old.HasBigIntegers());
  EXPECT_FALSE(old.HasReplacingIsDeleted());
  old.CheckType(ParseTypeName("Array(Nullable(Decimal(38, 2)))"));
  std::string message;
  EXPECT_EQ(CodeOf([&] { old.CheckType(ParseTypeName("Array(Nullable(Date32))")); }, &message),
            ErrorCode::kUnsupported);
  EXPECT_NE(message.find("Date32"), std::string::npos);
  EXPECT_NE(message.find("18.16.1"), std::string::npos);
  EXPECT_EQ(old.CreateSettingsFor(ParseTypeName("Array(LowCardinality(String))")),
            std::vector<std::string>{"allow_experimental_low_cardinality_type=1"});

  ServerFeatures v20_8({20, 8, 3});
  v20_8.CheckType(ParseTypeName("Int256"));
  EXPECT_EQ(CodeOf([&] { v20_8.CheckType(ParseTypeName("UInt128")); }), ErrorCode::kUnsupported);
  EXPECT_EQ(v20_8.CreateSettingsFor(ParseTypeName("Decimal(50, 2)")),
            std::vector<std::string>{"allow_experimental_bigint_types=1"});

  ServerFeatures modern({24, 3, 1});
  modern.CheckType(ParseTypeName("Bool"));
  modern.CheckType(ParseTypeName("UInt128"));
  EXPECT_TRUE(modern.HasReplacingIsDeleted());
  EXPECT_TRUE(modern.CreateSettingsFor(ParseTypeName("LowCardinality(String)")).empty());
}

}  // namespace
}  // namespace rowbridge::clickhouse
