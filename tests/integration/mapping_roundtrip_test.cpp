// Mapping against the real servers: MariaDB 10.11 value → binlog → Cell → converter → ClickHouse
// 18.16 → SELECT, compared with what MariaDB's SELECT shows, per docs/type-mapping.md.
//  (a) the DDL rowbridge generates for a table with every MariaDB type is accepted by the server;
//  (b) the seed's user-made ClickHouse table takes the seed's MySQL rows (edge values included);
//  (c) every column type round-trips into the types rowbridge creates.
// A MariaDB of the test's own runs with binlog_row_metadata=FULL so TABLE_MAPs carry names,
// signedness and ENUM/SET labels.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "binlog/binlog_file_reader.h"
#include "binlog/event_decoder.h"
#include "binlog/event_type.h"
#include "binlog/row_cursor.h"
#include "binlog/rows_event.h"
#include "binlog/table_map_cache.h"
#include "clickhouse/block.h"
#include "clickhouse/server_features.h"
#include "mapping/conversion_plan.h"
#include "mapping/ddl.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "support/test_servers.h"

namespace rowbridge::mapping {
namespace {

using testing::ClickHouseAddress;
using testing::MysqlAddress;
using testing::RunClickHouseSql;
using testing::RunCommand;
using testing::ScopedMariaDb;

ScopedMariaDb* g_mariadb = nullptr;

class MappingRoundTrip : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::MissingClickHouseEnv().empty()) return;
    g_mariadb = new ScopedMariaDb({"--binlog-row-metadata=FULL"});
  }
  static void TearDownTestSuite() {
    delete g_mariadb;
    g_mariadb = nullptr;
  }
  void SetUp() override {
    ROWBRIDGE_REQUIRE_CLICKHOUSE();
    ch_ = testing::ClickHouseFromEnv();
    features_ = std::make_unique<clickhouse::ServerFeatures>(
        clickhouse::ServerVersion::Parse(Trimmed(RunClickHouseSql(ch_, "SELECT version()"))));
  }

  static std::string Trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }

  // Every rows event of db.table in the server's binlogs, in order, handed to `fn` with the
  // table's map. The event's bytes are valid only during the call.
  static void ForEachRowsEvent(
      const MysqlAddress& server, const std::string& db, const std::string& table,
      const std::function<void(const binlog::TableInfo&, const binlog::RowsEvent&)>& fn) {
    std::ifstream index(server.binlog_basename + ".index");
    std::string line;
    std::vector<std::string> files;
    while (std::getline(index, line)) {
      if (line.empty()) continue;
      std::filesystem::path p(line);
      files.push_back(p.is_absolute() ? HostPath(server, p.string())
                                      : (std::filesystem::path(server.datadir) / p).string());
    }
    ASSERT_FALSE(files.empty()) << "no binlogs listed in " << server.binlog_basename << ".index";
    for (const auto& file : files) {
      binlog::BinlogFileReader reader(file);
      binlog::EventDecoder decoder;
      decoder.SetFile(reader.file_name());
      binlog::TableMapCache maps;
      std::string scratch;
      binlog::RawEvent raw;
      while (reader.Next(raw)) {
        const binlog::Event event = decoder.Decode(raw.bytes, raw.offset);
        if (event.type() == binlog::EventType::kTableMap) {
          maps.Update(event, decoder.format());
          continue;
        }
        if (!binlog::IsRowsEvent(event.type())) continue;
        const binlog::RowsEvent rows = binlog::ParseRowsEvent(event, decoder.format(), scratch);
        const binlog::TableInfo* info = maps.Find(rows.table_id);
        if (info == nullptr || info->map.database != db || info->map.table != table) continue;
        fn(*info, rows);
      }
    }
  }

  static RowKind KindOf(const binlog::RowsEvent& rows) {
    return rows.kind == binlog::RowsKind::kWrite    ? RowKind::kInsert
           : rows.kind == binlog::RowsKind::kUpdate ? RowKind::kUpdate
                                                    : RowKind::kDelete;
  }

  // Every row change of db.table in the server's binlogs, in order, handed to `fn` with the
  // table's map. Cells are valid only during the call.
  static void ForEachRow(const MysqlAddress& server, const std::string& db,
                         const std::string& table,
                         const std::function<void(const binlog::TableInfo&,
                                                  std::span<const binlog::Cell>, RowKind)>& fn) {
    binlog::RowCursor cursor;
    ForEachRowsEvent(
        server, db, table, [&](const binlog::TableInfo& info, const binlog::RowsEvent& rows) {
          cursor.Reset(rows, info);
          while (cursor.Next()) {
            fn(info, rows.kind == binlog::RowsKind::kDelete ? cursor.before() : cursor.after(),
               KindOf(rows));
          }
        });
  }

  // Converts every row of db.table into target db.table (whose columns are read from
  // system.columns) and inserts them with clickhouse-client FORMAT Native.
  void Replicate(const std::string& db, const std::string& table, PlanOptions options) {
    // Signedness from information_schema, as the pipeline supplies column definitions for
    // servers whose TABLE_MAP lacks them. (MariaDB 10.11 also counts YEAR in its SIGNEDNESS
    // bitmap, which the TABLE_MAP parser does not expect: every numeric column after a YEAR gets
    // its neighbour's flag. Reported to the binlog-events owner; overlaid here.)
    std::vector<std::string> unsigned_columns;
    for (const auto& row : SplitLines(testing::RunMysqlSql(
             g_mariadb->address(),
             "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + db +
                 "' AND TABLE_NAME = '" + table + "' AND COLUMN_TYPE LIKE '%unsigned%'")))
      unsigned_columns.push_back(row);
    std::vector<TargetColumn> target;
    for (const auto& row : SplitLines(RunClickHouseSql(
             ch_, "SELECT name, type, default_kind FROM system.columns WHERE database = '" + db +
                      "' AND table = '" + table + "' FORMAT TSV"))) {
      std::vector<std::string> f = SplitTabs(row);
      f.resize(3);
      target.push_back({f[0], clickhouse::ParseTypeName(Unescape(f[1])), f[2]});
    }
    ASSERT_FALSE(target.empty());
    std::unique_ptr<ConversionPlan> plan;
    std::unique_ptr<TargetBlock> block;
    std::vector<binlog::ColumnDef> defs;
    uint64_t version = 0;
    ForEachRow(
        g_mariadb->address(), db, table,
        [&](const binlog::TableInfo& info, std::span<const binlog::Cell> cells, RowKind kind) {
          if (!plan) {
            options.source_database = db;
            options.source_table = table;
            defs = info.map.columns;
            for (auto& def : defs) {
              if (def.type == binlog::ColumnType::kYear) continue;
              def.is_unsigned = std::find(unsigned_columns.begin(), unsigned_columns.end(),
                                          def.name) != unsigned_columns.end();
            }
            plan = std::make_unique<ConversionPlan>(ConversionPlan::Build(defs, target, options));
            block = std::make_unique<TargetBlock>(plan->NewBlock());
          }
          plan->AppendRow(cells, *block, {kind, ++version});
        });
    ASSERT_TRUE(plan) << "no rows of " << db << "." << table << " in the binlog";
    clickhouse::WireWriter native;
    clickhouse::WriteBlock(native, block->block(), 0);

    // The pipeline's one-pass path (values converted as they are decoded, no cells) must make
    // the same block from the same rows, byte for byte. Its own plan counts its clamps apart.
    PlanOptions one_pass_options = options;
    one_pass_options.converter.counters = std::make_shared<ConversionCounters>();
    ConversionPlan one_pass_plan = ConversionPlan::Build(defs, target, one_pass_options);
    TargetBlock one_pass = one_pass_plan.NewBlock();
    binlog::TableInfo decoded;
    binlog::RowCursor cursor;
    uint64_t one_pass_version = 0;
    size_t one_pass_rows = 0;
    ForEachRowsEvent(g_mariadb->address(), db, table,
                     [&](const binlog::TableInfo& info, const binlog::RowsEvent& rows) {
                       decoded = info;
                       decoded.map.columns = defs;
                       cursor.Reset(rows, decoded);
                       const RowKind kind = KindOf(rows);
                       if (cursor.full_images() && one_pass_plan.Fits(decoded)) {
                         while (!cursor.AtEnd()) {
                           one_pass_plan.AppendNext(cursor, one_pass, {kind, ++one_pass_version});
                           ++one_pass_rows;
                         }
                         return;
                       }
                       while (cursor.Next()) {
                         one_pass_plan.AppendRow(
                             kind == RowKind::kDelete ? cursor.before() : cursor.after(), one_pass,
                             {kind, ++one_pass_version});
                       }
                     });
    EXPECT_GT(one_pass_rows, 0u) << db << "." << table << ": no event took the one-pass path";
    clickhouse::WireWriter one_pass_native;
    clickhouse::WriteBlock(one_pass_native, one_pass.block(), 0);
    EXPECT_EQ(one_pass.rows(), block->rows());
    EXPECT_TRUE(one_pass_native.data() == native.data())
        << db << "." << table << ": the one-pass block differs from the cell-by-cell one";
    if (options.converter.counters) {
      EXPECT_EQ(one_pass_options.converter.counters->Snapshot(),
                options.converter.counters->Snapshot());
    }
    std::string query = plan->InsertQuery(db, table);
    query = query.substr(0, query.size() - 6) + "FORMAT Native";
    const auto result = RunCommand({"clickhouse-client", "--host", ch_.host, "--port",
                                    std::to_string(ch_.port), "--query", query},
                                   native.data());
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }

  static std::vector<std::string> SplitLines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return lines;
  }
  static std::vector<std::string> SplitTabs(const std::string& line) {
    std::vector<std::string> fields;
    size_t start = 0;
    while (true) {
      size_t end = line.find('\t', start);
      fields.push_back(line.substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos) return fields;
      start = end + 1;
    }
  }
  static std::string Unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out += s[i];
    }
    return out;
  }
  // MariaDB batch output with NULL written as ClickHouse writes it.
  static std::vector<std::vector<std::string>> MysqlRows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& line : SplitLines(text)) {
      auto fields = SplitTabs(line);
      for (auto& f : fields)
        if (f == "NULL") f = "\\N";
      rows.push_back(fields);
    }
    return rows;
  }
  static std::vector<std::vector<std::string>> ClickHouseRows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& line : SplitLines(text)) rows.push_back(SplitTabs(line));
    return rows;
  }

  // ClickHouse's TSV text of a value equals MariaDB's batch text, modulo the documented
  // differences: ClickHouse escapes ' in TSV, and 18.16 prints the raw zero of Date/DateTime
  // (1970-01-01 [00:00:00]) as 0000-00-00 [00:00:00].
  static bool Equivalent(std::string clickhouse, const std::string& mysql) {
    for (size_t at = clickhouse.find("\\'"); at != std::string::npos;
         at = clickhouse.find("\\'", at))
      clickhouse.erase(at, 1);
    if (clickhouse == mysql) return true;
    return (clickhouse == "0000-00-00" && mysql == "1970-01-01") ||
           (clickhouse == "0000-00-00 00:00:00" && mysql == "1970-01-01 00:00:00");
  }

  static void ExpectSameRows(const std::vector<std::vector<std::string>>& actual,
                             const std::vector<std::vector<std::string>>& expected,
                             const std::vector<std::string>& names) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t r = 0; r < expected.size(); ++r) {
      ASSERT_EQ(actual[r].size(), names.size()) << "row " << r;
      ASSERT_EQ(expected[r].size(), names.size()) << "row " << r;
      for (size_t i = 0; i < names.size(); ++i)
        EXPECT_PRED2(Equivalent, actual[r][i], expected[r][i])
            << "row " << r << " column " << names[i];
    }
  }

  ClickHouseAddress ch_;
  std::unique_ptr<clickhouse::ServerFeatures> features_;
};

// A column of the every-type table: its MariaDB type, the values of the rows, and how to SELECT
// it on each side so the documented rules make both print the same text.
struct TypeColumn {
  const char* name;
  const char* mysql_type;
  std::vector<const char*> values;  // SQL literals, one per row
  const char* mysql_select = nullptr;
  const char* clickhouse_select = nullptr;
};

std::vector<TypeColumn> EveryType() {
  return {
      {"id", "INT NOT NULL", {"1", "2", "3"}},
      {"c_tinyint", "TINYINT", {"-128", "127", "NULL"}},
      {"c_utinyint", "TINYINT UNSIGNED", {"0", "255", "7"}},
      {"c_smallint", "SMALLINT", {"-32768", "32767", "0"}},
      {"c_usmallint", "SMALLINT UNSIGNED", {"65535", "0", "1"}},
      {"c_mediumint", "MEDIUMINT", {"-8388608", "8388607", "-3"}},
      {"c_umediumint", "MEDIUMINT UNSIGNED", {"16777215", "0", "3"}},
      {"c_int", "INT", {"-2147483648", "2147483647", "-4"}},
      {"c_uint", "INT UNSIGNED", {"4294967295", "0", "4"}},
      {"c_bigint", "BIGINT", {"-9223372036854775808", "9223372036854775807", "-5"}},
      {"c_ubigint", "BIGINT UNSIGNED", {"18446744073709551615", "0", "5"}},
      {"c_float", "FLOAT", {"1.5", "-0.25", "1e10"}},
      {"c_double", "DOUBLE", {"0.1", "-1.5e300", "1e100"}},
      {"c_decimal", "DECIMAL(9,2)", {"1234567.89", "-0.05", "0"}},
      {"c_decimal38", "DECIMAL(38,10)", {"-1234567890123456789012345678.0123456789", "0", "1.5"}},
      {"c_decimal65",
       "DECIMAL(65,30)",
       {"-12345678901234567890123456789012345.123456789012345678901234567891", "0", "NULL"}},
      {"c_bit1", "BIT(1)", {"b'1'", "b'0'", "NULL"}, "c_bit1+0"},
      {"c_bit64",
       "BIT(64)",
       {"b'1111111111111111111111111111111111111111111111111111111111111111'", "b'0'", "b'101'"},
       "c_bit64+0"},
      {"c_year", "YEAR", {"1901", "2155", "0"}, "c_year+0"},
      {"c_date", "DATE", {"2024-02-29", "0000-00-00", "2105-12-31"}},
      {"c_time", "TIME", {"'-838:59:59'", "'838:59:59'", "'00:00:01'"}},
      {"c_time6", "TIME(6)", {"'-00:00:00.000001'", "'12:34:56.5'", "NULL"}},
      {"c_datetime",
       "DATETIME",
       {"'2024-01-02 03:04:05'", "'0000-00-00 00:00:00'", "'1970-01-01 00:00:00'"}},
      {"c_datetime6",
       "DATETIME(6)",
       {"'2024-01-02 03:04:05.123456'", "'2100-12-31 23:59:59.999999'", "NULL"},
       "DATE_FORMAT(c_datetime6, '%Y-%m-%d %H:%i:%s')"},
      {"c_timestamp", "TIMESTAMP NULL", {"'2024-01-02 03:04:05'", "'2038-01-19 03:14:07'", "NULL"}},
      {"c_enum", "ENUM('en1','en2','it''s')", {"'en1'", "'it''s'", "NULL"}},
      {"c_set", "SET('set1','set2','set3')", {"'set1,set3'", "''", "'set2'"}},
      {"c_char", "CHAR(4)", {"'ab'", "''", "'héé'"}},
      {"c_varchar", "VARCHAR(400)", {"'tab\\there'", "'line\\nbreak'", "'back\\\\slash'"}},
      {"c_binary",
       "BINARY(4)",
       {"x'00ff00'", "x'61000000'", "NULL"},
       "HEX(c_binary)",
       "hex(c_binary)"},
      {"c_varbinary",
       "VARBINARY(10)",
       {"x'00ff'", "''", "x'0a'"},
       "HEX(c_varbinary)",
       "hex(c_varbinary)"},
      {"c_text", "TEXT", {"'héllo'", "''", "NULL"}},
      {"c_blob", "BLOB", {"x'00010203'", "''", "x'ff'"}, "HEX(c_blob)", "hex(c_blob)"},
      {"c_json", "JSON", {"'{\"a\": [1, 2]}'", "'null'", "NULL"}},
      {"c_geometry",
       "GEOMETRY",
       {"ST_GeomFromText('POINT(1 2)')", "NULL", "ST_GeomFromText('LINESTRING(0 0,1 1)')"},
       "HEX(ST_AsBinary(c_geometry))",
       "hex(c_geometry)"},
  };
}

TEST_F(MappingRoundTrip, GeneratedDdlIsAcceptedAndEveryTypeRoundTrips) {
  const auto& mysql = g_mariadb->address();
  const std::string db = testing::UniqueName("mapping_types");
  const auto columns = EveryType();
  std::string create = "CREATE DATABASE " + db + "; CREATE TABLE " + db + ".t (";
  for (size_t i = 0; i < columns.size(); ++i)
    create += std::string(i ? ", " : "") + columns[i].name + " " + columns[i].mysql_type;
  create += ", PRIMARY KEY (id))";
  testing::RunMysqlSql(mysql, create);
  std::string insert;
  for (size_t row = 0; row < 3; ++row) {
    insert += "INSERT INTO " + db + ".t VALUES (";
    for (size_t i = 0; i < columns.size(); ++i)
      insert += std::string(i ? ", " : "") + columns[i].values[row];
    insert += ");\n";
  }
  testing::RunMysqlSql(mysql, "SET time_zone = '+00:00'; SET sql_mode = '';\n" + insert);

  // The table rowbridge would create, from the binlog's own column definitions.
  std::vector<binlog::ColumnDef> defs;
  ForEachRow(mysql, db, "t",
             [&](const binlog::TableInfo& info, std::span<const binlog::Cell>, RowKind) {
               if (defs.empty()) defs = info.map.columns;
             });
  ASSERT_EQ(defs.size(), columns.size());
  ASSERT_EQ(defs[1].name, "c_tinyint") << "the TABLE_MAP lacks column names";
  DdlOptions ddl;
  RunClickHouseSql(ch_, CreateDatabaseStatement(db, ddl));
  for (const auto& statement : CreateTableStatements(db, "t", defs, {"id"}, ddl, *features_))
    RunClickHouseSql(ch_, statement);  // (a): throws with the server's message if refused

  Replicate(db, "t", PlanOptions{});

  // (c): compare both SELECTs.
  std::string mysql_select, ch_select;
  for (size_t i = 0; i < columns.size(); ++i) {
    mysql_select += std::string(i ? ", " : "") +
                    (columns[i].mysql_select ? columns[i].mysql_select : columns[i].name);
    ch_select += std::string(i ? ", " : "") +
                 (columns[i].clickhouse_select ? columns[i].clickhouse_select : columns[i].name);
  }
  const auto expected =
      MysqlRows(testing::RunMysqlSql(mysql, "SET time_zone = '+00:00'; SELECT " + mysql_select +
                                                " FROM " + db + ".t ORDER BY id"));
  const auto actual = ClickHouseRows(RunClickHouseSql(
      ch_, FinalSelectQuery(db, "t", {}).replace(7, 1, ch_select) + " ORDER BY id FORMAT TSV"));
  std::vector<std::string> names;
  for (const auto& c : columns) names.push_back(c.name);
  // On servers without DateTime64 the DDL stores DATETIME(6) without its fraction, so that column
  // is selected without it on the MariaDB side.
  ExpectSameRows(actual, expected, names);
  RunClickHouseSql(ch_, "DROP DATABASE " + db);
}

TEST_F(MappingRoundTrip, SeedTablesTakeTheSeedRows) {
  const auto& mysql = g_mariadb->address();
  const std::string db = testing::UniqueName("mapping_seed");
  auto read = [](const std::string& name) {
    std::ifstream in(testing::SourceDir().parent_path().parent_path() / "shared" / "seed" / name);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    return text;
  };
  std::string mysql_ddl = read("mysql_schema.sql");
  std::string ch_ddl = read("clickhouse_schema.sql");
  if (mysql_ddl.empty() || ch_ddl.empty()) {
    // The seed lives beside the repository (/work/shared/seed); fall back to the absolute path.
    std::ifstream a("/work/shared/seed/mysql_schema.sql"),
        b("/work/shared/seed/clickhouse_schema.sql");
    mysql_ddl.assign(std::istreambuf_iterator<char>(a), {});
    ch_ddl.assign(std::istreambuf_iterator<char>(b), {});
  }
  ASSERT_FALSE(mysql_ddl.empty()) << "seed schema not found";
  auto rename = [&](std::string text) {
    for (size_t at = text.find("bifrost_test"); at != std::string::npos;
         at = text.find("bifrost_test", at + db.size()))
      text.replace(at, 12, db);
    return text;
  };
  testing::RunMysqlSql(mysql, rename(mysql_ddl));
  RunClickHouseSql(ch_, rename(ch_ddl));
  const std::string t = db + ".binlog_field_test_1";
  testing::RunMysqlSql(
      mysql,
      "SET time_zone = '+00:00'; SET sql_mode = '';\n"
      "INSERT INTO " +
          t +
          " (testvarchar, testchar, testtext, testblob, testmediumblob, "
          "testlongblob, testtinyblob) VALUES ('defaults', 'ab', 'text', x'00ff', 'm', 'l', 't');\n"
          "INSERT INTO " +
          t +
          " VALUES (NULL, -128, -32768, -8388608, -2147483648, "
          "-9223372036854775808, 'héllo\\tworld', 'é', 'en3', 'set1,set3', '-838:59:59', "
          "'0000-00-00', "
          "0, '2038-01-19 03:14:07', '0000-00-00 00:00:00', -1234567.25, -9876543.21, -0.05, "
          "'line\\nbreak', x'000102', "
          "b'1111111111111111111111111111111111111111111111111111111111111111', "
          "1, '', x'ff', '', 255, 65535, 16777215, 4294967295, 18446744073709551615);\n"
          "INSERT INTO " +
          t +
          " VALUES (NULL, 127, 32767, 8388607, 2147483647, 9223372036854775807, "
          "'', 'zz', 'en1', '', '838:59:59', '2105-12-31', 2155, '1970-01-01 00:00:01', "
          "'2105-12-31 23:59:59', 1.1, 2.25, 9999999.99, '', '', b'0', 0, 'mm', 'll', 'tt', 0, 0, "
          "0, "
          "0, 0);\n"
          "UPDATE " +
          t + " SET testint = 5 WHERE testvarchar = '';\n");

  PlanOptions options;
  options.mode = TableMode::kChangelog;
  options.meta.event_type = "binlog_event_type";
  options.meta.version = "bifrost_data_version";
  options.converter.counters = std::make_shared<ConversionCounters>();
  Replicate(db, "binlog_field_test_1", options);
  // The only clamps: the zero DATE and DATETIME of row 2 (written as the raw zero, which 18.16
  // prints as MySQL's zero date).
  const std::string prefix = db + ".binlog_field_test_1.";
  EXPECT_EQ(
      options.converter.counters->Snapshot(),
      (std::vector<ConversionCounters::Entry>{{prefix + "testdate", RangeRule::kZeroDate, 1},
                                              {prefix + "testdatetime", RangeRule::kZeroDate, 1}}));

  // FLOAT(9,2) and DOUBLE(9,2) print with two decimals in MariaDB; the Float64 targets hold the
  // same numbers, so both sides print them as Decimal(.., 2). BIT(64) into Int64 keeps the bits
  // (MariaDB: CAST(bit + 0 AS SIGNED)); YEAR into Int16 is the number (0 for the zero year).
  const std::string columns =
      "id, testtinyint, testsmallint, testmediumint, testint, testbigint, testvarchar, testchar, "
      "testenum, testset, testtime, testdate, {year}, testtimestamp, testdatetime, {float}, "
      "{double}, testdecimal, testtext, {blob}, {bit}, testbool, testmediumblob, testlongblob, "
      "testtinyblob, test_unsinged_tinyint, test_unsinged_smallint, test_unsinged_mediumint, "
      "test_unsinged_int, test_unsinged_bigint";
  auto with = [&](std::string text, const std::vector<std::pair<std::string, std::string>>& subs) {
    for (const auto& [from, to] : subs) text.replace(text.find(from), from.size(), to);
    return text;
  };
  const std::string mysql_columns =
      with(columns, {{"{year}", "testyear+0"},
                     {"{float}", "CAST(testfloat AS DECIMAL(12,2))"},
                     {"{double}", "CAST(testdouble AS DECIMAL(12,2))"},
                     {"{blob}", "HEX(testblob)"},
                     {"{bit}", "CAST(testbit+0 AS SIGNED)"}});
  const std::string ch_columns =
      with(columns, {{"{year}", "testyear"},
                     {"{float}", "toDecimal64(toFloat64(toFloat32(testfloat)), 2)"},
                     {"{double}", "toDecimal64(testdouble, 2)"},
                     {"{blob}", "hex(testblob)"},
                     {"{bit}", "testbit"}});
  const auto expected = MysqlRows(testing::RunMysqlSql(
      mysql, "SET time_zone = '+00:00'; SELECT " + mysql_columns + " FROM " + t + " ORDER BY id"));
  // The latest version of each row (changelog: one row per change).
  const auto actual = ClickHouseRows(RunClickHouseSql(
      ch_, "SELECT " + ch_columns + " FROM " + t +
               " ORDER BY id, bifrost_data_version DESC LIMIT 1 BY id FORMAT TSV"));
  ASSERT_EQ(expected.size(), 3u);
  std::vector<std::string> names;
  for (const auto& row : SplitLines(testing::RunMysqlSql(
           mysql, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + db +
                      "' AND TABLE_NAME = 'binlog_field_test_1' ORDER BY ORDINAL_POSITION")))
    names.push_back(row);
  ExpectSameRows(actual, expected, names);
  EXPECT_EQ(RunClickHouseSql(ch_,
                             "SELECT groupArray(binlog_event_type), "
                             "groupArray(bifrost_data_version) FROM (SELECT * FROM " +
                                 t + " ORDER BY bifrost_data_version) FORMAT TSV"),
            "['insert','insert','insert','update']\t[1,2,3,4]\n");
  RunClickHouseSql(ch_, "DROP DATABASE " + db);
  testing::RunMysqlSql(mysql, "DROP DATABASE " + db);
}

TEST_F(MappingRoundTrip, OutOfRangeValuesClampAsDocumented) {
  const auto& mysql = g_mariadb->address();
  const std::string db = testing::UniqueName("mapping_clamp");
  testing::RunMysqlSql(mysql, "CREATE DATABASE " + db + "; CREATE TABLE " + db +
                                  ".t (id INT PRIMARY KEY, d DATE, dt DATETIME, big BIGINT, "
                                  "tm TIME, neg INT)");
  testing::RunMysqlSql(mysql, "SET sql_mode = ''; INSERT INTO " + db +
                                  ".t VALUES (1, '1000-01-01', '2200-01-01 00:00:00', "
                                  "3000000000, '25:00:00', -1), (2, '2020-00-15', NULL, -5, "
                                  "'-01:00:00', 7)");
  RunClickHouseSql(ch_, "CREATE DATABASE " + db);
  RunClickHouseSql(ch_,
                   "CREATE TABLE " + db +
                       ".t (id Int32, d Date, dt Nullable(DateTime('UTC')), "
                       "big Int32, tm DateTime('UTC'), neg UInt8, _version UInt64, _is_deleted "
                       "UInt8) ENGINE = ReplacingMergeTree(_version) ORDER BY id");
  PlanOptions options;
  options.converter.counters = std::make_shared<ConversionCounters>();
  Replicate(db, "t", options);
  EXPECT_EQ(RunClickHouseSql(ch_, FinalSelectQuery(db, "t", {"id", "d", "dt", "big", "tm", "neg"}) +
                                      " ORDER BY id FORMAT TSV"),
            // 18.16 prints the raw zero of Date as 0000-00-00.
            "1\t0000-00-00\t2105-12-31 23:59:59\t2147483647\t1970-01-01 23:59:59\t0\n"
            "2\t0000-00-00\t\\N\t-5\t0000-00-00 00:00:00\t7\n");
  const std::string prefix = db + ".t.";
  const auto& c = *options.converter.counters;
  EXPECT_EQ(c.Count(prefix + "d", RangeRule::kDateBeforeRange), 1u);
  EXPECT_EQ(c.Count(prefix + "d", RangeRule::kZeroDate), 1u);
  EXPECT_EQ(c.Count(prefix + "dt", RangeRule::kDateAfterRange), 1u);
  EXPECT_EQ(c.Count(prefix + "big", RangeRule::kIntegerOverflow), 1u);
  EXPECT_EQ(c.Count(prefix + "tm", RangeRule::kTimeOutOfRange), 2u);
  EXPECT_EQ(c.Count(prefix + "neg", RangeRule::kNegativeToUnsigned), 1u);

  // Under policy error the first such value stops the conversion with a message naming it.
  PlanOptions strict;
  strict.converter.policies = RangePolicies::AllError();
  try {
    Replicate(db, "t", strict);
    FAIL() << "policy error did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConversion);
    EXPECT_NE(std::string(e.what()).find(prefix + "d value '1000-01-01'"), std::string::npos)
        << e.what();
  }
  RunClickHouseSql(ch_, "DROP DATABASE " + db);
  testing::RunMysqlSql(mysql, "DROP DATABASE " + db);
}

}  // namespace
}  // namespace rowbridge::mapping
