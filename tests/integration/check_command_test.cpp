// `rowbridge check` against a real MariaDB and ClickHouse. The target tables are filled from the
// source's own binlog through the pipeline's pieces (binlog reader, RowCursor, mapping
// converters, our ClickHouse client), so "equal" here means: what the pipeline's conversions
// write is what check's normalisation of a SELECT expects, for every column type used. Then
// source rows are changed behind the replica's back and check must find and list each key.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "binlog/binlog_event_reader.h"
#include "binlog/binlog_file_reader.h"
#include "binlog/event_type.h"
#include "binlog/row_cursor.h"
#include "binlog/rows_event.h"
#include "clickhouse/client.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/nullable.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/type_name.h"
#include "mapping/converter.h"
#include "mysql/connection.h"
#include "support/clickhouse_options.h"
#include "support/mysql_options.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "support/test_servers.h"
#include "tables/source_schema.h"

#ifndef ROWBRIDGE_BINARY
#error "ROWBRIDGE_BINARY must be defined by CMake"
#endif
#ifndef ROWBRIDGE_LOADGEN_BINARY
#error "ROWBRIDGE_LOADGEN_BINARY must be defined by CMake"
#endif

namespace rowbridge {
namespace {

using testing::ClickHouseAddress;
using testing::CommandResult;
using testing::RunCommand;
using testing::ScopedMariaDb;

// Writes every row change of `table` in the binlog files into the ClickHouse table `target`
// (whose columns are the source's plus the mode's meta columns), the way the pipeline does.
class MiniReplicator {
 public:
  MiniReplicator(tables::SourceTableSchema source, clickhouse::Client& ch, std::string target)
      : source_(std::move(source)), ch_(ch), target_(std::move(target)) {}

  void Replicate(const std::vector<std::string>& files) {
    clickhouse::Block header = ch_.BeginInsert("INSERT INTO " + target_ + " VALUES");
    clickhouse::Block block = header.EmptyLike();
    Plan(block);
    binlog::RowCursor cursor;
    std::string scratch;
    for (const std::string& file : files) {
      binlog::BinlogFileReader reader_file(file);
      binlog::BinlogEventReader reader(reader_file);
      binlog::Event ev;
      while (reader.Next(ev)) {
        if (!binlog::IsRowsEvent(ev.type())) continue;
        const binlog::RowsEvent rows = binlog::ParseRowsEvent(ev, reader.format(), scratch);
        const binlog::TableInfo* table = reader.tables().Find(rows.table_id);
        if (table == nullptr || table->map.database != source_.name.database ||
            table->map.table != source_.name.table)
          continue;
        cursor.Reset(rows, *table);
        while (cursor.Next()) {
          if (rows.kind == binlog::RowsKind::kDelete) {
            AddRow(cursor.before(), "delete", true);
          } else {
            AddRow(cursor.after(), rows.kind == binlog::RowsKind::kWrite ? "insert" : "update",
                   false);
          }
        }
      }
    }
    ch_.SendBlock(block);
    ch_.EndInsert();
  }

 private:
  struct Planned {
    clickhouse::Column* column;
    bool nullable;
    int source_index;  // -1: a meta column
    mapping::Converter converter;
  };

  void Plan(clickhouse::Block& block) {
    for (size_t i = 0; i < block.ColumnCount(); ++i) {
      Planned p{&block.At(i), false, -1, {}};
      const std::string& name = block.Name(i);
      for (size_t s = 0; s < source_.columns.size(); ++s) {
        if (source_.columns[s].name != name) continue;
        const clickhouse::TypeDesc type = clickhouse::ParseTypeName(block.At(i).type_name());
        std::string why_not;
        p.converter = mapping::SelectConverter(source_.columns[s], type,
                                               {source_.name.database, source_.name.table, name},
                                               {}, why_not);
        if (p.converter.fn == nullptr)
          Fail(ErrorCode::kConfig, "test replicator: {}: {}", name, why_not);
        p.nullable = type.code == clickhouse::TypeCode::kNullable;
        p.source_index = static_cast<int>(s);
      }
      plan_.push_back(std::move(p));
    }
  }

  void AddRow(std::span<const binlog::Cell> cells, const char* kind, bool deleted) {
    ++version_;
    for (Planned& p : plan_) {
      if (p.source_index < 0) continue;
      binlog::Cell cell = cells[static_cast<size_t>(p.source_index)];
      cell.column = &source_.columns[static_cast<size_t>(p.source_index)];
      if (cell.is_null) {
        p.column->AppendDefault();
      } else if (p.nullable) {
        auto& nullable = static_cast<clickhouse::ColumnNullable&>(*p.column);
        nullable.AppendNotNull();
        p.converter.Append(cell, nullable.nested(), scratch_);
      } else {
        p.converter.Append(cell, *p.column, scratch_);
      }
    }
    for (size_t i = 0; i < plan_.size(); ++i) {
      if (plan_[i].source_index >= 0) continue;
      // Meta columns, told apart by type: the event type (String), is_deleted (UInt8), the
      // version (UInt64 in replica tables, Int64 in the seed's table).
      clickhouse::Column& c = *plan_[i].column;
      if (c.type_name() == "String") {
        static_cast<clickhouse::ColumnString&>(c).Append(kind);
      } else if (c.type_name() == "UInt8") {
        static_cast<clickhouse::ColumnUInt8&>(c).Append(deleted ? 1 : 0);
      } else if (c.type_name() == "UInt64") {
        static_cast<clickhouse::ColumnUInt64&>(c).Append(version_);
      } else if (c.type_name() == "Int64") {
        static_cast<clickhouse::ColumnInt64&>(c).Append(static_cast<int64_t>(version_));
      } else {
        Fail(ErrorCode::kInternal, "test replicator: meta column of type {}", c.type_name());
      }
    }
  }

  tables::SourceTableSchema source_;
  clickhouse::Client& ch_;
  std::string target_;
  std::vector<Planned> plan_;
  mapping::ConvertScratch scratch_;
  uint64_t version_ = 0;
};

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class CheckCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ROWBRIDGE_REQUIRE_CLICKHOUSE();
    ch_address_ = testing::ClickHouseFromEnv();
    source_ = std::make_unique<ScopedMariaDb>();
    db_ = testing::UniqueName("check");
  }
  void TearDown() override {
    if (!db_.empty() && ch_address_.port != 0)
      testing::RunClickHouseSql(ch_address_, "DROP DATABASE IF EXISTS " + db_);
  }

  std::string WriteConfig(uint16_t ch_port) {
    const auto& a = source_->address();
    const std::string path = (std::filesystem::temp_directory_path() / (db_ + ".yaml")).string();
    std::ofstream out(path);
    out << fmt::format(
        "source: {{host: 127.0.0.1, port: {}, user: {}, password: \"{}\", server_id: 4242}}\n"
        "target: {{host: 127.0.0.1, port: {}, database: {}}}\n"
        "tables:\n"
        "  - match: {}.binlog_field_test_1\n"
        "    target: seed_changelog\n"
        "    mode: changelog\n"
        "    meta_columns: {{event_type: binlog_event_type, version: bifrost_data_version}}\n"
        "    conversion: {{on_out_of_range: clamp}}\n"
        "  - match: {}.*\n"
        "    mode: replica\n"
        "    conversion: {{on_out_of_range: clamp}}\n",
        a.port, a.user, a.password, ch_port, db_, db_, db_);
    return path;
  }

  CommandResult Check(const std::string& config, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {ROWBRIDGE_BINARY, "check",        "-c",
                                     config,           "--chunk-rows", "700"};
    args.insert(args.end(), more.begin(), more.end());
    return RunCommand(args);
  }

  ClickHouseAddress ch_address_;
  std::unique_ptr<ScopedMariaDb> source_;
  std::string db_;
};

TEST_F(CheckCommandTest, EqualTablesPassAndChangedMissingExtraRowsAreListedByKey) {
  const auto& src = source_->address();
  source_->Sql("FLUSH BINARY LOGS");
  const std::string status = Trim(source_->Sql(BinlogStatusSql(src)));
  const std::string first_file = status.substr(0, status.find('\t'));

  // A table of many column types with edge values, and the seed table written by the load
  // generator (inserts, updates and deletes).
  source_->Sql(fmt::format(
      "CREATE DATABASE {0}; CREATE TABLE {0}.wide (id INT PRIMARY KEY, ti TINYINT, tu TINYINT "
      "UNSIGNED, si SMALLINT, mi MEDIUMINT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, "
      "d DOUBLE, dec1 DECIMAL(9,2), dec2 DECIMAL(30,10), dt DATE, tm TIME(3), dtm DATETIME(6), "
      "ts TIMESTAMP(2) NULL, yr YEAR, bt BIT(10), en ENUM('a','b','c'), st SET('x','y','z'), "
      "ch CHAR(4), vc VARCHAR(20), bl BLOB, tx TEXT NULL) DEFAULT CHARSET=utf8mb4",
      db_));
  source_->Sql(fmt::format(
      "INSERT INTO {0}.wide VALUES "
      "(1, -128, 255, -32768, 16777215, -9223372036854775808, 18446744073709551615, 1.5, "
      "-2.25e-300, -1234567.89, -12345678901234567890.0123456789, '2020-02-29', '-838:59:59.000', "
      "'1999-12-31 23:59:59.999999', '2038-01-19 03:14:07.99', 2155, b'1111111111', 'c', 'x,z', "
      "'ab', 'héllo wörld', x'00ff10', NULL),"
      "(2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '1970-01-01', '00:00:00', '1970-01-01 00:00:00', NULL, "
      "1901, 0, 'a', '', '', '', '', 'text'),"
      "(3, 1, 2, 3, 4, 5, 6, 3.4028234e38, 1.7976931348623157e308, 0.01, 0.0000000001, "
      "'2105-12-31', '12:34:56.789', '2105-12-31 23:59:59', '2001-01-01 00:00:00.5', 1999, 5, "
      "'b', 'y', 'abcd', 'x', 'blob', ''),"
      "(4, -1, 1, -1, 1, -1, 1, -0.1, -0.1, -0.5, -0.5, '1000-01-01', '-00:00:00.500', "
      "'1000-01-01 00:00:00', '1970-01-01 00:00:01', 0, 1, 'a', 'x,y,z', 'z', 'tab\there', "
      "'', 'line\\nbreak')",
      db_));
  std::string seed_sql;
  {
    std::ifstream in(testing::SourceDir() / "tests/data/seed/mysql_schema.sql");
    std::stringstream s;
    s << in.rdbuf();
    seed_sql = std::regex_replace(s.str(), std::regex("bifrost_test"), db_);
  }
  source_->Sql(seed_sql);
  const CommandResult load = RunCommand({ROWBRIDGE_LOADGEN_BINARY,
                                         "-host",
                                         "127.0.0.1",
                                         "-port",
                                         std::to_string(src.port),
                                         "-user",
                                         src.user,
                                         "-pwd",
                                         src.password,
                                         "-schema",
                                         db_,
                                         "-table",
                                         "binlog_field_test_1",
                                         "-count",
                                         "3000",
                                         "-batchsize",
                                         "100",
                                         "-conn",
                                         "2",
                                         "-time_interval",
                                         "0",
                                         "--update-percent",
                                         "20",
                                         "--delete-percent",
                                         "10"});
  ASSERT_EQ(load.exit_code, 0) << load.out << load.err;
  source_->Sql("FLUSH BINARY LOGS");

  // Every binlog file from the first one on, except the new empty one.
  std::vector<std::string> files;
  for (const std::string& line : [&] {
         std::vector<std::string> v;
         std::istringstream in(source_->Sql("SHOW BINARY LOGS"));
         for (std::string l; std::getline(in, l);) v.push_back(l.substr(0, l.find('\t')));
         return v;
       }()) {
    if (line >= first_file) files.push_back(src.datadir + "/" + line);
  }
  ASSERT_GE(files.size(), 2u);
  files.pop_back();

  // Targets: a replica table with types the mapping supports on ClickHouse 18.16, and the
  // seed's own ClickHouse table as a changelog.
  std::string ch_seed;
  {
    std::ifstream in(testing::SourceDir() / "tests/data/seed/clickhouse_schema.sql");
    std::stringstream s;
    s << in.rdbuf();
    ch_seed = std::regex_replace(s.str(), std::regex("bifrost_test\\.binlog_field_test_1"),
                                 db_ + ".seed_changelog");
    ch_seed = std::regex_replace(ch_seed, std::regex("bifrost_test"), db_);
  }
  testing::RunClickHouseSql(ch_address_, ch_seed);
  testing::RunClickHouseSql(
      ch_address_,
      fmt::format(
          "CREATE TABLE {}.wide (id Int32, ti Int8, tu UInt8, si Int16, mi UInt32, bi Int64, "
          "bu UInt64, f Float32, d Float64, dec1 Decimal(9, 2), dec2 String, dt Date, "
          "tm String, dtm DateTime, ts Nullable(DateTime), yr UInt16, bt UInt16, "
          "en String, st String, ch String, vc String, bl String, tx Nullable(String), "
          "_version UInt64, _is_deleted UInt8) ENGINE = ReplacingMergeTree(_version) "
          "ORDER BY id",
          db_));
  {
    auto conn = mysql::Connection::Connect(testing::MysqlConnectOptions(src));
    clickhouse::Client ch(testing::ClickHouseClientOptions(ch_address_));
    MiniReplicator(tables::LoadSourceTableSchema(*conn, db_, "wide").value(), ch, db_ + ".wide")
        .Replicate(files);
    MiniReplicator(tables::LoadSourceTableSchema(*conn, db_, "binlog_field_test_1").value(), ch,
                   db_ + ".seed_changelog")
        .Replicate(files);
  }

  const std::string config = WriteConfig(ch_address_.port);
  CommandResult equal = Check(config);
  EXPECT_EQ(equal.exit_code, 0) << equal.out << equal.err;
  EXPECT_NE(
      equal.out.find(fmt::format("{}.wide -> {}.wide: source 4 rows, target 4 rows", db_, db_)),
      std::string::npos)
      << equal.out;
  EXPECT_NE(equal.out.find("2 equal, 0 different, 0 errors"), std::string::npos) << equal.out;

  // Behind the replica's back: a changed value, a deleted row (extra in the target), a new row
  // (missing in the target); in the seed table a changed value and a deleted row.
  source_->Sql(fmt::format(
      "UPDATE {0}.wide SET vc = 'changed' WHERE id = 2; DELETE FROM {0}.wide WHERE id = 3; "
      "INSERT INTO {0}.wide (id, ch, vc, bl) VALUES (100, 'n', 'new', '');",
      db_));
  const std::string seed_ids =
      Trim(source_->Sql(fmt::format("SELECT MIN(id), MAX(id) FROM {}.binlog_field_test_1", db_)));
  const std::string min_id = seed_ids.substr(0, seed_ids.find('\t'));
  const std::string max_id = seed_ids.substr(seed_ids.find('\t') + 1);
  source_->Sql(
      fmt::format("UPDATE {0}.binlog_field_test_1 SET testint = testint + 1 WHERE id = {1}; "
                  "DELETE FROM {0}.binlog_field_test_1 WHERE id = {2};",
                  db_, max_id, min_id));

  CommandResult different = Check(config);
  EXPECT_EQ(different.exit_code, 1) << different.out << different.err;
  const std::string& out = different.out;
  EXPECT_NE(out.find("changed:           id=2: vc: source 'changed', target ''"), std::string::npos)
      << out;
  EXPECT_NE(out.find("extra in target:   id=3"), std::string::npos) << out;
  EXPECT_NE(out.find("missing in target: id=100"), std::string::npos) << out;
  EXPECT_NE(out.find("changed:           id=" + max_id + ": testint:"), std::string::npos) << out;
  EXPECT_NE(out.find("extra in target:   id=" + min_id), std::string::npos) << out;
  EXPECT_NE(out.find("0 equal, 2 different, 0 errors"), std::string::npos) << out;
}

TEST_F(CheckCommandTest, UnreachableTargetIsAnErrorWithStatusTwo) {
  source_->Sql(fmt::format("CREATE DATABASE {0}; CREATE TABLE {0}.t (id INT PRIMARY KEY)", db_));
  // A port nothing listens on: the ClickHouse HTTP port speaks another protocol, use port 1.
  // Retried for 3 s (--give-up-after; 2 minutes by default), then an error.
  CommandResult r = Check(WriteConfig(1), {"--give-up-after", "3s"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("check: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("retrying"), std::string::npos) << r.err;
  // Not a duration: refused before anything is read.
  CommandResult bad = Check(WriteConfig(1), {"--give-up-after", "soon"});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("check: error:"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace rowbridge
