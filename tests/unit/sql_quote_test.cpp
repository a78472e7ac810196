// The two quoting modules, each by its own escaping rule (mysql/sql_quote.h,
// clickhouse/sql_quote.h). tests/integration/sql_quote_roundtrip_test.cpp sends the same kinds of
// names and values through both real servers.
#include "clickhouse/sql_quote.h"

#include <gtest/gtest.h>

#include <string>

#include "mysql/sql_quote.h"

namespace rowbridge {
namespace {

TEST(MysqlQuote, IdentifiersDoubleBackticks) {
  EXPECT_EQ(mysql::QuoteIdentifier("a`b"), "`a``b`");
  EXPECT_EQ(mysql::QuoteIdentifier("it's \"x\" \\ 😀"), "`it's \"x\" \\ 😀`");
  EXPECT_EQ(mysql::QuoteQualified("d`b", "t"), "`d``b`.`t`");
}

TEST(MysqlQuote, StringsEscapeWithBackslashes) {
  EXPECT_EQ(mysql::QuoteString("it's\\"), "'it\\'s\\\\'");
  EXPECT_EQ(mysql::QuoteString(std::string("a\0b\nc\rd\x1a"
                                           "e\"`",
                                           11)),
            "'a\\0b\\nc\\rd\\Ze\"`'");
  EXPECT_EQ(mysql::QuoteString("😀\t"), "'😀\t'");
  EXPECT_EQ(mysql::QuoteBinaryString(std::string("\xff'\0", 3)), "_binary'\xff\\'\\0'");
}

TEST(ClickHouseQuote, IdentifiersAndStringsEscapeWithBackslashes) {
  EXPECT_EQ(clickhouse::QuoteIdentifier("a`b\\c'd"), "`a\\`b\\\\c'd`");
  EXPECT_EQ(clickhouse::QuoteQualified("d`b", "t"), "`d\\`b`.`t`");
  EXPECT_EQ(clickhouse::QuoteString(std::string("it's\0\n\x1a\x7f`😀", 13)),
            "'it\\'s\\0\\x0A\\x1A\\x7F`😀'");
}

}  // namespace
}  // namespace rowbridge
