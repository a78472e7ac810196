#include <gtest/gtest.h>

#include "common/error.h"
#include "tables/foreign_keys.h"

namespace rowbridge::tables {
namespace {

ForeignKeyColumnRow Row(std::string child, std::string name, std::string column, std::string parent,
                        std::string parent_column, uint32_t position,
                        std::string on_delete = "CASCADE", std::string on_update = "RESTRICT") {
  ForeignKeyColumnRow r;
  r.child_database = "db";
  r.child_table = std::move(child);
  r.constraint_name = std::move(name);
  r.child_column = std::move(column);
  r.parent_database = "db";
  r.parent_table = std::move(parent);
  r.parent_column = std::move(parent_column);
  r.position = position;
  r.delete_rule = std::move(on_delete);
  r.update_rule = std::move(on_update);
  return r;
}

TEST(TablesForeignKeys, RowsMakeOneRelationPerConstraintInColumnOrder) {
  std::vector<ForeignKey> keys =
      ForeignKeysFromRows({Row("c", "fk2", "b", "p", "y", 2), Row("c", "fk2", "a", "p", "x", 1),
                           Row("c", "fk1", "pid", "q", "id", 1, "RESTRICT", "NO ACTION")});
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].name, "fk1");
  EXPECT_FALSE(keys[0].cascades());
  EXPECT_EQ(keys[1].child_columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys[1].parent_columns, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(keys[1].cascades());
  EXPECT_EQ(keys[1].Describe(), "db.c(a, b) -> db.p(x, y) ON DELETE CASCADE ON UPDATE RESTRICT");
  EXPECT_THROW(ForeignKeysFromRows({Row("c", "f", "a", "p", "x", 1, "EXPLODE")}), Error);
}

TEST(TablesForeignKeys, TheGraphListsCascadingChildrenOnly) {
  ForeignKeyGraph graph(ForeignKeysFromRows(
      {Row("c", "f1", "pid", "p", "id", 1), Row("d", "f2", "pid", "p", "id", 1, "RESTRICT"),
       Row("g", "f3", "cid", "c", "id", 1, "SET NULL", "SET NULL")}));
  ASSERT_EQ(graph.CascadingChildren({"db", "p"}).size(), 1u);
  EXPECT_EQ(graph.CascadingChildren({"db", "p"}).front()->child.table, "c");
  EXPECT_EQ(graph.CascadingChildren({"db", "c"}).size(), 1u);
  EXPECT_TRUE(graph.CascadingChildren({"db", "g"}).empty());
}

TEST(TablesForeignKeys, ValidateSaysHowEachRelationIsHandled) {
  ForeignKeyGraph graph(
      ForeignKeysFromRows({Row("c", "f1", "pid", "p", "id", 1), Row("g", "f2", "cid", "c", "id", 1),
                           Row("x", "f3", "pid", "u", "id", 1)}));
  // c is not replicated; u (x's parent) is not either.
  const std::set<SourceTableName> replicated = {{"db", "p"}, {"db", "g"}, {"db", "x"}};
  const std::vector<std::string> lines =
      DescribeCascadeHandling(graph, replicated, false, "MariaDB does not log them", false);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("child not replicated; its cascades into db.g are repaired"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find("db.g(cid) -> db.c(id)"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("cannot be exact: the parent is not replicated"), std::string::npos)
      << lines[1];
  EXPECT_NE(lines[2].find("cannot be exact"), std::string::npos) << lines[2];
  const std::vector<std::string> logged =
      DescribeCascadeHandling(graph, replicated, true, "MySQL 9.7 logs them", false);
  EXPECT_NE(logged[0].find("logged by the source"), std::string::npos) << logged[0];
}

}  // namespace
}  // namespace rowbridge::tables
