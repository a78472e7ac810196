// SchemaHistory beyond what the corpus shows: positions across binlog files, replay after a
// restart, pruning at a checkpoint, the JSON form, seeds from the source, and the all-or-nothing
// rule of Catalog::Apply.
#include "schema/schema_history.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace rowbridge::schema {
namespace {

BinlogPosition At(const char* file, uint64_t offset) {
  return {file, offset};
}

ParseOptions InDb(std::string_view db) {
  ParseOptions o;
  o.default_database = db;
  return o;
}

std::vector<std::string> ColumnNames(const SchemaVersion* v) {
  std::vector<std::string> names;
  if (v == nullptr) return names;
  for (const auto& c : v->schema.columns) names.push_back(c.name);
  return names;
}

TEST(SchemaHistory, PositionsOrderByFileNumberThenOffset) {
  EXPECT_TRUE(At("mysql-bin.000009", 900) < At("mysql-bin.000010", 4));
  EXPECT_TRUE(At("mysql-bin.999999", 4) < At("mysql-bin.1000000", 4));
  EXPECT_FALSE(At("mysql-bin.000010", 4) < At("mysql-bin.000010", 4));
  EXPECT_TRUE(At("mysql-bin.000010", 4) <= At("mysql-bin.000010", 4));
  EXPECT_EQ("b.000001:7", At("b.000001", 7).ToString());
}

TEST(SchemaHistory, SeveralAltersAcrossFilesAnswerByPosition) {
  SchemaHistory h;
  const StatementContext context{45};
  h.ApplyDdl("CREATE TABLE t (a INT PRIMARY KEY)", InDb("d"), context, At("bin.000001", 100));
  h.ApplyDdl("ALTER TABLE t ADD b INT", InDb("d"), context, At("bin.000001", 900));
  h.ApplyDdl("ALTER TABLE t ADD c INT FIRST", InDb("d"), context, At("bin.000002", 50));
  h.ApplyDdl("ALTER TABLE t DROP a", InDb("d"), context, At("bin.000002", 70));
  const TableRef t{"d", "t"};
  EXPECT_EQ(nullptr, h.SchemaAt(t, At("bin.000001", 99)));
  EXPECT_EQ((std::vector<std::string>{"a"}), ColumnNames(h.SchemaAt(t, At("bin.000001", 100))));
  EXPECT_EQ((std::vector<std::string>{"a"}), ColumnNames(h.SchemaAt(t, At("bin.000001", 899))));
  EXPECT_EQ((std::vector<std::string>{"a", "b"}),
            ColumnNames(h.SchemaAt(t, At("bin.000001", 5000))));
  EXPECT_EQ((std::vector<std::string>{"a", "b"}), ColumnNames(h.SchemaAt(t, At("bin.000002", 4))));
  EXPECT_EQ((std::vector<std::string>{"c", "a", "b"}),
            ColumnNames(h.SchemaAt(t, At("bin.000002", 60))));
  EXPECT_EQ((std::vector<std::string>{"c", "b"}), ColumnNames(h.SchemaAt(t, At("bin.000003", 4))));
  EXPECT_TRUE(h.SchemaAt(t, At("bin.000003", 4))->schema.primary_key.empty());
  EXPECT_EQ(4u, h.Versions(t)->size());
}

TEST(SchemaHistory, ReplayedStatementsAreIgnored) {
  SchemaHistory h;
  h.ApplyDdl("CREATE TABLE t (a INT)", InDb("d"), {}, At("bin.000001", 100));
  h.ApplyDdl("ALTER TABLE t ADD b INT", InDb("d"), {}, At("bin.000001", 200));
  // A restart from a checkpoint at 150 replays the ALTER: it must not be applied twice.
  SchemaHistory restored = SchemaHistory::FromJson(h.ToJson(), "test");
  const DdlOutcome again =
      restored.ApplyDdl("ALTER TABLE t ADD b INT", InDb("d"), {}, At("bin.000001", 200));
  EXPECT_TRUE(again.replayed);
  EXPECT_TRUE(again.changes.empty());
  const DdlOutcome next =
      restored.ApplyDdl("ALTER TABLE t ADD c INT", InDb("d"), {}, At("bin.000001", 300));
  EXPECT_FALSE(next.replayed);
  EXPECT_EQ((std::vector<std::string>{"a", "b", "c"}), ColumnNames(restored.Latest({"d", "t"})));
}

TEST(SchemaHistory, PruneKeepsTheVersionValidAtTheCheckpoint) {
  SchemaHistory h;
  h.ApplyDdl("CREATE TABLE t (a INT)", InDb("d"), {}, At("bin.000001", 100));
  h.ApplyDdl("ALTER TABLE t ADD b INT", InDb("d"), {}, At("bin.000001", 200));
  h.ApplyDdl("ALTER TABLE t ADD c INT", InDb("d"), {}, At("bin.000001", 300));
  h.ApplyDdl("CREATE TABLE gone (a INT)", InDb("d"), {}, At("bin.000001", 400));
  h.ApplyDdl("DROP TABLE gone", InDb("d"), {}, At("bin.000001", 500));
  h.Prune(At("bin.000001", 250));
  const TableRef t{"d", "t"};
  ASSERT_EQ(2u, h.Versions(t)->size());
  EXPECT_EQ((std::vector<std::string>{"a", "b"}),
            ColumnNames(h.SchemaAt(t, At("bin.000001", 250))));
  EXPECT_NE(nullptr, h.Versions({"d", "gone"}));  // its drop is after the checkpoint
  h.Prune(At("bin.000001", 600));
  EXPECT_EQ(1u, h.Versions(t)->size());
  EXPECT_EQ(nullptr, h.Versions({"d", "gone"}));
  EXPECT_EQ((std::vector<std::string>{"a", "b", "c"}),
            ColumnNames(h.SchemaAt(t, At("bin.000009", 1))));
}

TEST(SchemaHistory, JsonRoundTripKeepsEverything) {
  CatalogOptions options;
  options.flavor = ServerFlavor::kMariadb;
  SchemaHistory h(options);
  h.SetDatabaseCollation("d", 8);
  h.ApplyDdl(
      "CREATE TABLE t (id BIGINT UNSIGNED NOT NULL, price DECIMAL(9,3), e ENUM('x','y''z'), "
      "s SET('a','b') NOT NULL, ts TIMESTAMP(6) NULL, h INT INVISIBLE, v VECTOR(3), "
      "PRIMARY KEY (id))",
      InDb("d"), {}, At("bin.000001", 100));
  h.ApplyDdl("RENAME TABLE t TO u", InDb("d"), {}, At("bin.000001", 200));
  h.ApplyDdl("CREATE TABLE w SELECT 1", InDb("d"), {}, At("bin.000001", 300));
  const std::string json = h.ToJson();
  SchemaHistory back = SchemaHistory::FromJson(json, "test");
  EXPECT_EQ(json, back.ToJson());
  const TableSchema* u = back.catalog().Find({"d", "u"});
  ASSERT_NE(nullptr, u);
  EXPECT_TRUE(*u == *h.catalog().Find({"d", "u"}));
  EXPECT_EQ(TableState::kUnknown, back.catalog().State({"d", "w"}));
  EXPECT_EQ(TableState::kAbsent, back.catalog().State({"d", "t"}));
  // The database default survives, so a later CREATE gets latin1.
  back.ApplyDdl("CREATE TABLE x (c CHAR(2))", InDb("d"), {}, At("bin.000001", 400));
  EXPECT_EQ(8u, back.catalog().Find({"d", "x"})->columns[0].charset);
}

// Removes the defaults from every column object, as checkpoints written before they were kept.
void EraseDefaults(nlohmann::json& j) {
  if (j.is_object()) {
    if (j.contains("n") && j.contains("t")) j.erase("d");
    for (auto& [key, value] : j.items()) EraseDefaults(value);
  } else if (j.is_array()) {
    for (auto& value : j) EraseDefaults(value);
  }
}

TEST(SchemaHistory, DefaultsSurviveJsonAndOldCheckpointsLoadWithout) {
  SchemaHistory h;
  h.ApplyDdl(
      "CREATE TABLE t (id INT PRIMARY KEY, a INT DEFAULT 3, s VARCHAR(4) DEFAULT 'x''y', "
      "n INT NULL)",
      InDb("d"), {}, At("bin.000001", 100));
  const TableSchema* t = h.catalog().Find({"d", "t"});
  ASSERT_NE(nullptr, t);
  EXPECT_TRUE(t->columns[1].default_known);
  EXPECT_EQ(std::optional<std::string>("3"), t->columns[1].default_value);
  EXPECT_EQ(std::optional<std::string>("'x''y'"), t->columns[2].default_value);
  EXPECT_TRUE(t->columns[3].default_known);
  EXPECT_EQ(std::nullopt, t->columns[3].default_value);

  const std::string json = h.ToJson();
  SchemaHistory back = SchemaHistory::FromJson(json, "test");
  EXPECT_EQ(json, back.ToJson());
  EXPECT_TRUE(*back.catalog().Find({"d", "t"}) == *t);

  nlohmann::json old = nlohmann::json::parse(json);
  EraseDefaults(old);
  ASSERT_EQ(std::string::npos, old.dump().find("'x''y'"));
  SchemaHistory from_old = SchemaHistory::FromJson(old.dump(), "test");
  const TableSchema* o = from_old.catalog().Find({"d", "t"});
  ASSERT_NE(nullptr, o);
  for (const auto& c : o->columns) {
    EXPECT_FALSE(c.default_known) << c.name;
    EXPECT_EQ(std::nullopt, c.default_value) << c.name;
  }
  // A later SET DEFAULT makes the one column's default known again.
  from_old.ApplyDdl("ALTER TABLE t ALTER COLUMN a SET DEFAULT 4", InDb("d"), {},
                    At("bin.000001", 200));
  const TableSchema* later = from_old.catalog().Find({"d", "t"});
  EXPECT_TRUE(later->columns[1].default_known);
  EXPECT_EQ(std::optional<std::string>("4"), later->columns[1].default_value);
  EXPECT_FALSE(later->columns[2].default_known);
}

TEST(SchemaHistory, FromJsonRejectsGarbage) {
  EXPECT_THROW(SchemaHistory::FromJson("{", "state"), Error);
  EXPECT_THROW(SchemaHistory::FromJson("{\"version\":2}", "state"), Error);
  try {
    SchemaHistory::FromJson("[]", "ch:rowbridge_state");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(ErrorCode::kCorruption, e.code());
    EXPECT_NE(std::string(e.what()).find("ch:rowbridge_state"), std::string::npos);
  }
}

TEST(SchemaHistory, SeedFromSourceThenAlter) {
  SchemaHistory h;
  TableSchema seed;
  seed.name = {"d", "t"};
  seed.default_collation = 45;
  binlog::ColumnDef id;
  id.name = "id";
  id.type = id.wire_type = binlog::ColumnType::kLong;
  id.nullable = false;
  id.charset = 63;
  id.signedness_known = true;
  id.is_primary_key = true;
  seed.columns.push_back(id);
  seed.primary_key = {0};
  h.Seed(seed, At("bin.000005", 4));
  h.ApplyDdl("ALTER TABLE t ADD name VARCHAR(10)", InDb("d"), {}, At("bin.000005", 100));
  const SchemaVersion* v = h.Latest({"d", "t"});
  ASSERT_NE(nullptr, v);
  ASSERT_EQ(2u, v->schema.columns.size());
  EXPECT_EQ(40u, v->schema.columns[1].meta);  // utf8mb4 table default: 4 bytes per character
  EXPECT_EQ(std::vector<uint32_t>{0}, v->schema.primary_key);
}

TEST(SchemaHistory, FailedStatementChangesNothingAndNamesThePosition) {
  SchemaHistory h;
  h.ApplyDdl("CREATE TABLE t (a INT, b INT)", InDb("d"), {}, At("bin.000001", 100));
  const std::string before = h.ToJson();
  try {
    h.ApplyDdl("ALTER TABLE t DROP a, DROP nope", InDb("d"), {}, At("bin.000001", 200));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bin.000001:200"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
  EXPECT_EQ(before, h.ToJson());
  try {
    h.ApplyDdl("ALTER TABLE t ADD COLUMN (", InDb("d"), {}, At("bin.000001", 300));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(ErrorCode::kUnsupported, e.code());
    EXPECT_NE(std::string(e.what()).find("bin.000001:300"), std::string::npos) << e.what();
  }
}

TEST(SchemaHistory, LowerCaseTableNames) {
  CatalogOptions options;
  options.lower_case_table_names = true;
  SchemaHistory h(options);
  h.ApplyDdl("CREATE TABLE Orders (a INT)", InDb("Shop"), {}, At("bin.000001", 100));
  h.ApplyDdl("ALTER TABLE ORDERS ADD b INT", InDb("SHOP"), {}, At("bin.000001", 200));
  EXPECT_EQ((std::vector<std::string>{"a", "b"}), ColumnNames(h.Latest({"shop", "orders"})));
  EXPECT_EQ((std::vector<std::string>{"a", "b"}), ColumnNames(h.Latest({"Shop", "Orders"})));
}

TEST(SchemaHistory, DropDatabaseDropsItsTables) {
  SchemaHistory h;
  h.ApplyDdl("CREATE TABLE a (x INT)", InDb("d"), {}, At("bin.000001", 100));
  h.ApplyDdl("CREATE TABLE e.b (x INT)", InDb("d"), {}, At("bin.000001", 200));
  const DdlOutcome o = h.ApplyDdl("DROP DATABASE d", InDb(""), {}, At("bin.000001", 300));
  ASSERT_EQ(1u, o.changes.size());
  EXPECT_EQ(TableChange::Kind::kDropped, o.changes[0].kind);
  EXPECT_EQ(TableState::kAbsent, h.catalog().State({"d", "a"}));
  EXPECT_EQ(TableState::kKnown, h.catalog().State({"e", "b"}));
}

}  // namespace
}  // namespace rowbridge::schema

namespace rowbridge::schema {
namespace {

TEST(SchemaHistory, NamesThatAreNotUtf8SurviveJson) {
  SchemaHistory h;
  // A latin1 client: the statement's bytes are not UTF-8.
  h.ApplyDdl("CREATE TABLE caf\xe9 (n\xe4me ENUM('\xe9t\xe9','x'))", InDb("d\xfc"), {},
             At("bin.000001", 100));
  SchemaHistory back = SchemaHistory::FromJson(h.ToJson(), "test");
  const TableSchema* t = back.catalog().Find({"d\xfc", "caf\xe9"});
  ASSERT_NE(nullptr, t);
  EXPECT_EQ("n\xe4me", t->columns[0].name);
  EXPECT_EQ("\xe9t\xe9", t->columns[0].enum_values[0]);
  EXPECT_EQ(h.ToJson(), back.ToJson());
}

}  // namespace
}  // namespace rowbridge::schema

namespace rowbridge::schema {
namespace {

TEST(DdlParser, SqlModeOfTheQueryEventSelectsLexerModes) {
  const ParseOptions ansi = ParseOptions::ForQuery("d", 0x4);
  EXPECT_TRUE(ansi.ansi_quotes);
  EXPECT_FALSE(ansi.no_backslash_escapes);
  const DdlStatement quoted = ParseDdl("CREATE TABLE \"x y\" (a REAL)", ansi);
  const auto* create = std::get_if<CreateTable>(&quoted);
  ASSERT_NE(nullptr, create);
  EXPECT_EQ("x y", create->table.table);
  const ParseOptions real_as_float = ParseOptions::ForQuery("d", 0x1 | 0x100000);
  EXPECT_TRUE(real_as_float.no_backslash_escapes);
  const DdlStatement s = ParseDdl("CREATE TABLE t (a REAL DEFAULT 'a\\')", real_as_float);
  EXPECT_EQ("float", std::get<CreateTable>(s).columns[0].type.name);
  EXPECT_EQ("'a\\'", *std::get<CreateTable>(s).columns[0].default_value);
}

}  // namespace
}  // namespace rowbridge::schema
