// Default ClickHouse types per server version, and the exact DDL text of every variant.
#include <gtest/gtest.h>

#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "mapping/ddl.h"
#include "mapping/type_mapping.h"
#include "mapping_cells.h"

namespace rowbridge::mapping {
namespace {

using clickhouse::ServerFeatures;
using clickhouse::ServerVersion;
using testing::ParseMysqlType;

const ServerFeatures kOld(ServerVersion{18, 16, 1});
const ServerFeatures kNew(ServerVersion{24, 3, 0});

struct TypeCase {
  const char* mysql;
  const char* on_18_16;
  const char* on_24_3;
};

const TypeCase kTypes[] = {
    {"TINYINT", "Nullable(Int8)", "Nullable(Int8)"},
    {"TINYINT UNSIGNED NOT NULL", "UInt8", "UInt8"},
    {"SMALLINT NOT NULL", "Int16", "Int16"},
    {"SMALLINT UNSIGNED NOT NULL", "UInt16", "UInt16"},
    {"MEDIUMINT NOT NULL", "Int32", "Int32"},
    {"MEDIUMINT UNSIGNED NOT NULL", "UInt32", "UInt32"},
    {"INT NOT NULL", "Int32", "Int32"},
    {"INT UNSIGNED NOT NULL", "UInt32", "UInt32"},
    {"BIGINT NOT NULL", "Int64", "Int64"},
    {"BIGINT UNSIGNED NOT NULL", "UInt64", "UInt64"},
    {"FLOAT NOT NULL", "Float32", "Float32"},
    {"DOUBLE NOT NULL", "Float64", "Float64"},
    {"DECIMAL(9,2) NOT NULL", "Decimal(9, 2)", "Decimal(9, 2)"},
    {"DECIMAL(38,10) NOT NULL", "Decimal(38, 10)", "Decimal(38, 10)"},
    {"DECIMAL(65,30) NOT NULL", "String", "Decimal(65, 30)"},
    {"BIT(1) NOT NULL", "UInt8", "UInt8"},
    {"BIT(12) NOT NULL", "UInt16", "UInt16"},
    {"BIT(64) NOT NULL", "UInt64", "UInt64"},
    {"YEAR NOT NULL", "UInt16", "UInt16"},
    {"DATE NOT NULL", "Date", "Date32"},
    {"DATETIME NOT NULL", "DateTime('UTC')", "DateTime64(0, 'UTC')"},
    {"TIMESTAMP NOT NULL", "DateTime('UTC')", "DateTime('UTC')"},
    {"DATETIME(3) NOT NULL", "DateTime('UTC')", "DateTime64(3, 'UTC')"},
    {"TIMESTAMP(6)", "Nullable(DateTime('UTC'))", "Nullable(DateTime64(6, 'UTC'))"},
    {"TIME(3) NOT NULL", "String", "String"},
    {"ENUM('a','b') NOT NULL", "String", "LowCardinality(String)"},
    {"ENUM('a','b')", "Nullable(String)", "LowCardinality(Nullable(String))"},
    {"SET('a','b') NOT NULL", "String", "String"},
    {"CHAR(2) NOT NULL", "String", "String"},
    {"VARBINARY(3) NOT NULL", "String", "String"},
    {"TEXT", "Nullable(String)", "Nullable(String)"},
    {"BLOB NOT NULL", "String", "String"},
    {"JSON NOT NULL", "String", "String"},
    {"GEOMETRY NOT NULL", "String", "String"},
    {"VECTOR(3)", "Array(Float32)", "Array(Float32)"},
};

TEST(MappingTypes, DefaultTypeFollowsTheServer) {
  const TypeMappingOptions options;
  for (const auto& tc : kTypes) {
    const binlog::ColumnDef def = ParseMysqlType(tc.mysql);
    EXPECT_EQ(DefaultClickHouseType(def, options, kOld).name, tc.on_18_16) << tc.mysql;
    EXPECT_EQ(DefaultClickHouseType(def, options, kNew).name, tc.on_24_3) << tc.mysql;
  }
}

TEST(MappingTypes, Options) {
  TypeMappingOptions options;
  options.enum_mapping = EnumMapping::kEnum;
  options.time_mapping = TimeMapping::kInt64Microseconds;
  options.time_zone = "Europe/Berlin";
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("ENUM('a','it''s') NOT NULL"), options, kOld).name,
            "Enum8('' = 0, 'a' = 1, 'it\\'s' = 2)");
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("TIME"), options, kOld).name, "Nullable(Int64)");
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DATETIME(2)"), options, kNew).name,
            "Nullable(DateTime64(2, 'Europe/Berlin'))");
  // Key columns are never Nullable.
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("INT"), options, kOld, true).name, "Int32");
  // 21.0 has DateTime64 and big integers (the latter behind a setting, so not used).
  const ServerFeatures mid(ServerVersion{21, 3, 0});
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DATETIME(2) NOT NULL"), {}, mid).name,
            "DateTime64(2, 'UTC')");
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DECIMAL(50,2) NOT NULL"), {}, mid).name,
            "String");
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DATE NOT NULL"), {}, mid).name, "Date");
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DATETIME NOT NULL"), {}, mid).name,
            "DateTime64(0, 'UTC')");
  // DateTime64 arrived in 20.1: the last server before it keeps DateTime.
  const ServerFeatures before(ServerVersion{19, 17, 0});
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DATETIME NOT NULL"), {}, before).name,
            "DateTime('UTC')");
  EXPECT_EQ(DefaultClickHouseType(ParseMysqlType("DATETIME NOT NULL"), {},
                                  ServerFeatures(ServerVersion{20, 1, 0}))
                .name,
            "DateTime64(0, 'UTC')");
}

std::vector<binlog::ColumnDef> Columns() {
  return {ParseMysqlType("BIGINT UNSIGNED NOT NULL", "id"),
          ParseMysqlType("VARCHAR(20) NOT NULL", "region"), ParseMysqlType("DATETIME", "at"),
          ParseMysqlType("DECIMAL(9,2)", "price")};
}

TEST(MappingDdl, ReplicaOnOldServer) {
  DdlOptions options;
  EXPECT_EQ(CreateTableStatements("shop", "orders", Columns(), {"id"}, options, kOld),
            std::vector<std::string>{"CREATE TABLE IF NOT EXISTS `shop`.`orders`\n"
                                     "(\n"
                                     "    `id` UInt64,\n"
                                     "    `region` String,\n"
                                     "    `at` Nullable(DateTime('UTC')),\n"
                                     "    `price` Nullable(Decimal(9, 2)),\n"
                                     "    `_version` UInt64,\n"
                                     "    `_is_deleted` UInt8\n"
                                     ")\n"
                                     "ENGINE = ReplacingMergeTree(`_version`)\n"
                                     "ORDER BY (`id`)"});
}

TEST(MappingDdl, ReplicaOnNewServerWithCompositeKeyAndPartition) {
  DdlOptions options;
  options.partition_by = "toYYYYMM(`at`)";
  auto columns = Columns();
  columns[2].nullable = false;
  const auto statements =
      CreateTableStatements("shop", "orders", columns, {"region", "id"}, options, kNew);
  ASSERT_EQ(statements.size(), 1u);
  EXPECT_EQ(statements[0],
            "CREATE TABLE IF NOT EXISTS `shop`.`orders`\n"
            "(\n"
            "    `id` UInt64,\n"
            "    `region` String,\n"
            "    `at` DateTime64(0, 'UTC'),\n"
            "    `price` Nullable(Decimal(9, 2)),\n"
            "    `_version` UInt64,\n"
            "    `_is_deleted` UInt8\n"
            ")\n"
            "ENGINE = ReplacingMergeTree(`_version`, `_is_deleted`)\n"
            "PARTITION BY toYYYYMM(`at`)\n"
            "ORDER BY (`region`, `id`)");
}

TEST(MappingDdl, NullableKeyColumnsLoseNullable) {
  auto columns = Columns();
  columns[0].nullable = true;
  const auto sql = CreateTableStatements("d", "t", columns, {"id"}, {}, kOld)[0];
  EXPECT_NE(sql.find("`id` UInt64,"), std::string::npos) << sql;
}

TEST(MappingDdl, Changelog) {
  DdlOptions options;
  options.mode = TableMode::kChangelog;
  options.meta.event_type = "binlog_event_type";
  options.meta.version = "bifrost_data_version";
  EXPECT_EQ(CreateTableStatements("shop", "orders", Columns(), {"id"}, options, kOld)[0],
            "CREATE TABLE IF NOT EXISTS `shop`.`orders`\n"
            "(\n"
            "    `id` UInt64,\n"
            "    `region` String,\n"
            "    `at` Nullable(DateTime('UTC')),\n"
            "    `price` Nullable(Decimal(9, 2)),\n"
            "    `binlog_event_type` Enum8('insert' = 1, 'update' = 2, 'delete' = 3),\n"
            "    `bifrost_data_version` UInt64\n"
            ")\n"
            "ENGINE = MergeTree()\n"
            "ORDER BY (`id`, `bifrost_data_version`)");
}

TEST(MappingDdl, ClusterReplicatedAndDistributed) {
  DdlOptions options;
  options.cluster = "main";
  const auto statements = CreateTableStatements("shop", "orders", Columns(), {"id"}, options, kNew);
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_EQ(statements[0].substr(0, statements[0].find('\n')),
            "CREATE TABLE IF NOT EXISTS `shop`.`orders_local` ON CLUSTER `main`");
  EXPECT_NE(statements[0].find("ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/"
                               "shop/orders_local', '{replica}', `_version`, `_is_deleted`)"),
            std::string::npos)
      << statements[0];
  EXPECT_EQ(statements[1],
            "CREATE TABLE IF NOT EXISTS `shop`.`orders` ON CLUSTER `main` AS "
            "`shop`.`orders_local`\nENGINE = Distributed('main', 'shop', 'orders_local', "
            "cityHash64(`id`))");
  options.mode = TableMode::kChangelog;
  const auto changelog =
      CreateTableStatements("shop", "orders", Columns(), {"id"}, options, kOld)[0];
  EXPECT_NE(changelog.find("ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/shop/"
                           "orders_local', '{replica}')"),
            std::string::npos)
      << changelog;
  EXPECT_EQ(CreateDatabaseStatement("shop", options),
            "CREATE DATABASE IF NOT EXISTS `shop` ON CLUSTER `main`");
}

TEST(MappingDdl, DropAndTruncateReachTheLocalTablesOnACluster) {
  DdlOptions one;
  EXPECT_EQ(DropTableStatements("shop", "orders", one),
            std::vector<std::string>{"DROP TABLE IF EXISTS `shop`.`orders`"});
  EXPECT_EQ(TruncateTableStatement("shop", "orders", one), "TRUNCATE TABLE `shop`.`orders`");
  DdlOptions cluster;
  cluster.cluster = "main";
  // The Distributed table first: nothing inserts through it into a dropped local table.
  EXPECT_EQ(
      DropTableStatements("shop", "orders", cluster),
      (std::vector<std::string>{"DROP TABLE IF EXISTS `shop`.`orders` ON CLUSTER `main`",
                                "DROP TABLE IF EXISTS `shop`.`orders_local` ON CLUSTER `main`"}));
  EXPECT_EQ(TruncateTableStatement("shop", "orders", cluster),
            "TRUNCATE TABLE `shop`.`orders_local` ON CLUSTER `main`");
}

TEST(MappingDdl, IdentifiersAreQuoted) {
  EXPECT_EQ(clickhouse::QuoteIdentifier("a`b\\c"), "`a\\`b\\\\c`");
  EXPECT_EQ(clickhouse::QuoteString("it's"), "'it\\'s'");
  EXPECT_EQ(clickhouse::QuoteIdentifier(std::string("x\0y\n", 4)), "`x\\0y\\x0A`");
  const std::vector<binlog::ColumnDef> columns = {ParseMysqlType("INT NOT NULL", "we`ird"),
                                                  ParseMysqlType("INT", "sp ace")};
  const auto sql = CreateTableStatements("d`b", "t'1", columns, {"we`ird"}, {}, kOld)[0];
  EXPECT_NE(sql.find("`d\\`b`.`t'1`"), std::string::npos) << sql;
  EXPECT_NE(sql.find("ORDER BY (`we\\`ird`)"), std::string::npos) << sql;
}

TEST(MappingDdl, KeyChoice) {
  const std::vector<binlog::ColumnDef> columns = {ParseMysqlType("INT NOT NULL", "a"),
                                                  ParseMysqlType("INT", "b"),
                                                  ParseMysqlType("INT NOT NULL", "c")};
  EXPECT_EQ(ChooseTableKey("d.t", columns, {"a"}, {{"c"}}, {}), std::vector<std::string>{"a"});
  EXPECT_EQ(ChooseTableKey("d.t", columns, {}, {{"b"}, {"c", "a"}}, {}),
            (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(ChooseTableKey("d.t", columns, {"a"}, {}, {"b"}), std::vector<std::string>{"b"});
  try {
    ChooseTableKey("d.t", columns, {}, {{"b"}}, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig);
    EXPECT_NE(std::string(e.what()).find("d.t has no primary key"), std::string::npos);
  }
  EXPECT_THROW(CreateTableStatements("d", "t", columns, {}, {}, kOld), Error);
  EXPECT_THROW(CreateTableStatements("d", "t", columns, {"zz"}, {}, kOld), Error);
  const std::vector<binlog::ColumnDef> clash = {ParseMysqlType("INT NOT NULL", "_version")};
  EXPECT_THROW(CreateTableStatements("d", "t", clash, {"_version"}, {}, kOld), Error);
}

TEST(MappingDdl, FinalSelect) {
  EXPECT_EQ(FinalSelectQuery("d", "t", {"id", "name"}),
            "SELECT `id`, `name` FROM `d`.`t` FINAL WHERE `_is_deleted` = 0");
  EXPECT_EQ(FinalSelectQuery("d", "t", {}, "deleted"),
            "SELECT * FROM `d`.`t` FINAL WHERE `deleted` = 0");
}

TEST(MappingDdl, CreatedColumnsMatchThePlan) {
  const auto columns = Columns();
  const auto created = CreatedColumns(columns, {"id"}, {}, kOld);
  PlanOptions options;
  options.source_database = "shop";
  options.source_table = "orders";
  ConversionPlan plan = ConversionPlan::Build(columns, created, options);
  EXPECT_EQ(plan.insert_columns().size(), columns.size() + 2);
}

}  // namespace
}  // namespace rowbridge::mapping
