// The chunk/window reconciliation, on small hand-made tables: one INT key, and a composite
// (INT, VARBINARY) key.
#include <gtest/gtest.h>

#include <cctype>
#include <deque>
#include <string>
#include <vector>

#include "binlog/value_decoder.h"
#include "snapshot/reconcile.h"
#include "unit/mapping_cells.h"

namespace rowbridge::snapshot {
namespace {

using mapping::RowKind;

// Rows (id INT, v VARCHAR) as cells over strings the fixture keeps alive.
class ReconcileTest : public ::testing::Test {
 protected:
  ReconcileTest() {
    columns_.push_back(rowbridge::testing::ParseMysqlType("INT", "id"));
    columns_.push_back(rowbridge::testing::ParseMysqlType("VARBINARY(20)", "v"));
  }
  std::span<const binlog::Cell> Row(int id, std::string_view v) {
    storage_.emplace_back();
    storage_.emplace_back();
    auto& cells = rows_.emplace_back();
    cells.push_back(rowbridge::testing::MakeCell(columns_[0], std::to_string(id),
                                                 storage_[storage_.size() - 2], 0));
    cells.push_back(rowbridge::testing::MakeCell(columns_[1], v, storage_[storage_.size() - 1], 1));
    return cells;
  }
  std::span<const binlog::Cell> Key(int id) { return Row(id, "").subspan(0, 1); }
  void Chunk(std::initializer_list<int> ids) {
    chunk_.Clear();
    for (int id : ids) chunk_.Add(Row(id, "chunk" + std::to_string(id)));
  }
  // "w:u:3:new" = window update of key 3, "c:i:4:chunk4" = chunk row ...
  std::vector<std::string> Run(const std::vector<WindowChange>& window, ChunkBounds bounds) {
    Reconciler r({0}, nullptr);
    std::vector<Emitted> out;
    r.Reconcile(chunk_, window, bounds, out);
    return Text(out);
  }
  // The stepwise API, with changes from before the previous chunk's position (`earlier`).
  std::vector<std::string> RunInSteps(const std::vector<WindowChange>& earlier,
                                      const std::vector<WindowChange>& window, ChunkBounds bounds) {
    Reconciler r({0}, nullptr);
    std::vector<Emitted> out;
    r.ReconcileWindow(earlier, window, bounds, out);
    for (size_t i = 0; i < chunk_.size(); ++i) {
      std::span<const binlog::Cell> row = chunk_.Row(i);
      if (!r.Replaced(row)) out.push_back({Emitted::From::kChunk, RowKind::kInsert, row});
    }
    r.AppendWindowRows(out);
    return Text(out);
  }
  std::vector<std::string> Text(const std::vector<Emitted>& out) {
    std::vector<std::string> text;
    for (const Emitted& e : out) {
      const char* kind = e.kind == RowKind::kInsert ? "i" : e.kind == RowKind::kUpdate ? "u" : "d";
      text.push_back(std::string(e.from == Emitted::From::kWindow ? "w" : "c") + ":" + kind + ":" +
                     std::to_string(binlog::CellInt32(e.row[0])) + ":" +
                     std::string(binlog::CellBytes(e.row[1])));
    }
    return text;
  }
  WindowChange Insert(int id, std::string_view v) { return {RowKind::kInsert, {}, Row(id, v)}; }
  WindowChange Update(int from, int to, std::string_view v) {
    return {RowKind::kUpdate, Row(from, "old"), Row(to, v)};
  }
  WindowChange Delete(int id) { return {RowKind::kDelete, Row(id, "gone"), {}}; }

  std::vector<binlog::ColumnDef> columns_;
  std::deque<std::string> storage_;
  std::deque<std::vector<binlog::Cell>> rows_;
  RowArena chunk_;
};

TEST_F(ReconcileTest, EmptyWindowEmitsTheChunk) {
  Chunk({11, 12, 13});
  EXPECT_EQ(Run({}, {Key(10), Key(20)}),
            (std::vector<std::string>{"c:i:11:chunk11", "c:i:12:chunk12", "c:i:13:chunk13"}));
}

TEST_F(ReconcileTest, ChangesAreJudgedByRegion) {
  Chunk({11, 12, 13});
  const std::vector<std::string> got = Run(
      {
          Update(5, 5, "done-upd"),  // emitted region: passed on as an update
          Insert(7, "done-ins"),     // emitted region: passed on
          Delete(9),                 // emitted region: a delete
          Update(12, 12, "new12"),   // this chunk: replaces the chunk row
          Delete(13),                // this chunk: removes it
          Insert(15, "new15"),       // this chunk: added
          Insert(25, "later"),       // a later chunk: dropped
          Delete(30),                // a later chunk: dropped
      },
      {Key(10), Key(20)});
  EXPECT_EQ(got, (std::vector<std::string>{"w:u:5:done-upd", "w:i:7:done-ins", "w:d:9:gone",
                                           "c:i:11:chunk11", "c:i:12:new12", "c:i:15:new15"}));
}

TEST_F(ReconcileTest, LastChangeOfAKeyWins) {
  Chunk({11, 12});
  EXPECT_EQ(
      Run({Delete(12), Insert(12, "again"), Update(12, 12, "final"), Insert(14, "x"), Delete(14)},
          {Key(10), Key(20)}),
      (std::vector<std::string>{"c:i:11:chunk11", "c:i:12:final"}));
}

TEST_F(ReconcileTest, KeyChangesAcrossRegions) {
  Chunk({11, 12});
  EXPECT_EQ(
      Run(
          {
              Update(11, 5, "moved-down"),  // old in chunk (removed), new emitted (insert)
              Update(3, 12, "moved-in"),    // old emitted (delete), new in chunk
              Update(4, 40, "moved-out"),   // old emitted (delete), new later (dropped)
          },
          {Key(10), Key(20)}),
      (std::vector<std::string>{"w:i:5:moved-down", "w:d:3:old", "w:d:4:old", "c:i:12:moved-in"}));
}

TEST_F(ReconcileTest, OpenBounds) {
  Chunk({1, 2});
  // First chunk: nothing is emitted yet, so nothing is passed on.
  EXPECT_EQ(Run({Insert(0, "zero"), Insert(100, "hundred")}, {{}, Key(2)}),
            (std::vector<std::string>{"c:i:1:chunk1", "c:i:2:chunk2", "c:i:0:zero"}));
  // Last chunk (no upper bound): everything above lo belongs to it.
  Chunk({5});
  EXPECT_EQ(Run({Insert(100, "hundred"), Update(1, 1, "u")}, {Key(2), {}}),
            (std::vector<std::string>{"w:u:1:u", "c:i:5:chunk5", "c:i:100:hundred"}));
  // A single chunk (no bounds at all): the window is applied to the whole table.
  Chunk({1, 2, 3});
  EXPECT_EQ(Run({Delete(2), Insert(4, "four")}, {{}, {}}),
            (std::vector<std::string>{"c:i:1:chunk1", "c:i:3:chunk3", "c:i:4:four"}));
}

TEST(KeyCompare, TypesOrderAsTheServer) {
  auto cmp = [](const char* type, const char* a, const char* b) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(type);
    std::string sa, sb;
    return CompareKeyCell(rowbridge::testing::MakeCell(column, a, sa),
                          rowbridge::testing::MakeCell(column, b, sb), nullptr);
  };
  EXPECT_EQ(cmp("INT", "-5", "3"), -1);
  EXPECT_EQ(cmp("INT UNSIGNED", "4294967295", "3"), 1);
  EXPECT_EQ(cmp("BIGINT UNSIGNED", "18446744073709551615", "1"), 1);
  EXPECT_EQ(cmp("DECIMAL(10,2)", "-0.50", "-0.49"), -1);
  EXPECT_EQ(cmp("DECIMAL(10,2)", "12.00", "12"), 0);
  EXPECT_EQ(cmp("DECIMAL(10,2)", "-1.00", "0.01"), -1);
  EXPECT_EQ(cmp("DATETIME(6)", "2024-01-01 00:00:00.000001", "2024-01-01 00:00:00"), 1);
  EXPECT_EQ(cmp("TIME(6)", "-00:00:01.500000", "-00:00:01.400000"), -1);
  EXPECT_EQ(cmp("TIME", "-01:00:00", "00:59:59"), -1);
  EXPECT_EQ(cmp("DATE", "2024-02-01", "2024-01-31"), 1);
  EXPECT_EQ(cmp("VARBINARY(10)", "ab", "abc"), -1);
  EXPECT_EQ(cmp("BINARY(4)", "hex:61620000", "hex:6162"), 0);
  EXPECT_EQ(cmp("DOUBLE", "-0.5", "0.25"), -1);
  const binlog::ColumnDef text = rowbridge::testing::ParseMysqlType("VARCHAR(10)");
  EXPECT_TRUE(NeedsCollator(text));
  std::string sa, sb;
  EXPECT_THROW(CompareKeyCell(rowbridge::testing::MakeCell(text, "a", sa),
                              rowbridge::testing::MakeCell(text, "B", sb), nullptr),
               Error);
  int calls = 0;
  TextCollator ci = [&](const binlog::ColumnDef&, std::string_view a, std::string_view b) {
    ++calls;
    return std::tolower(a[0]) - std::tolower(b[0]);
  };
  EXPECT_EQ(CompareKeyCell(rowbridge::testing::MakeCell(text, "a", sa),
                           rowbridge::testing::MakeCell(text, "B", sb), ci),
            -1);
  EXPECT_EQ(calls, 1);
}

// A text key in a case-insensitive collation: after the last chunk (everything emitted) no key is
// compared by collation, so no collator is needed; a key changed only in case or by a trailing
// space is another row in the target (bytes), so its old row gets a delete. Within a chunk the
// collation decides (one slot for 'abc' and 'ABC').
TEST(ReconcileTextKey, KeysMoveByTheirBytes) {
  const binlog::ColumnDef key = rowbridge::testing::ParseMysqlType("VARCHAR(10)", "k");
  const binlog::ColumnDef value = rowbridge::testing::ParseMysqlType("INT", "v");
  ASSERT_TRUE(NeedsCollator(key));
  std::deque<std::string> storage;
  std::deque<std::vector<binlog::Cell>> rows;
  auto row = [&](std::string_view k, int v) -> std::span<const binlog::Cell> {
    auto& cells = rows.emplace_back();
    cells.push_back(rowbridge::testing::MakeCell(key, k, storage.emplace_back(), 0));
    cells.push_back(
        rowbridge::testing::MakeCell(value, std::to_string(v), storage.emplace_back(), 1));
    return cells;
  };
  auto text = [](const std::vector<Emitted>& out) {
    std::vector<std::string> t;
    for (const Emitted& e : out) {
      const char* kind = e.kind == RowKind::kInsert ? "i" : e.kind == RowKind::kUpdate ? "u" : "d";
      t.push_back(std::string(kind) + ":" + std::string(binlog::CellBytes(e.row[0])) + ":" +
                  std::to_string(binlog::CellInt32(e.row[1])));
    }
    return t;
  };
  const std::vector<WindowChange> window = {
      {RowKind::kUpdate, row("abc", 1), row("abc", 2)},  // another column
      {RowKind::kUpdate, row("abc", 2), row("ABC", 2)},  // case only
      {RowKind::kUpdate, row("x", 1), row("x ", 1)},     // a trailing space
  };
  Reconciler after_last({0}, nullptr);
  std::vector<Emitted> out;
  after_last.ReconcileWindow(window, {{}, {}, true}, out);
  EXPECT_EQ(text(out),
            (std::vector<std::string>{"u:abc:2", "d:abc:2", "i:ABC:2", "d:x:1", "i:x :1"}));

  // In a chunk, 'abc' and 'ABC' are one slot of the source's unique key: the chunk row read as
  // 'abc' is replaced by the window's 'ABC'.
  int calls = 0;
  TextCollator ci = [&](const binlog::ColumnDef&, std::string_view a, std::string_view b) {
    ++calls;
    std::string x(a), y(b);
    while (!x.empty() && x.back() == ' ') x.pop_back();
    while (!y.empty() && y.back() == ' ') y.pop_back();
    for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (char& c : y) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return x.compare(y);
  };
  Reconciler in_chunk({0}, ci);
  RowArena chunk;
  chunk.Add(row("abc", 1));
  chunk.Add(row("b", 1));
  in_chunk.Reconcile(chunk, {&window[1], 1}, {{}, {}, false}, out);
  EXPECT_EQ(text(out), (std::vector<std::string>{"i:b:1", "i:ABC:2"}));
  EXPECT_GT(calls, 0);
}

TEST_F(ReconcileTest, EarlierChangesCountForThisChunkOnly) {
  Chunk({11, 12, 13});
  const std::vector<std::string> got = RunInSteps(
      {
          Insert(5, "before-prev"),     // emitted region: judged with an earlier chunk
          Update(12, 12, "earlier12"),  // this chunk: applied
          Delete(13),                   // this chunk: removed
          Insert(25, "later"),          // a later chunk: dropped
          Update(11, 3, "moved-out"),   // old key here: removed; new key judged earlier
      },
      {
          Update(5, 5, "window5"),  // emitted region: written
          Insert(13, "back13"),     // this chunk: added again
      },
      {Key(10), Key(20)});
  EXPECT_EQ(got, (std::vector<std::string>{"w:u:5:window5", "c:i:12:earlier12", "c:i:13:back13"}));
}

TEST_F(ReconcileTest, StepsMatchTheWholeReconcile) {
  Chunk({11, 12, 13});
  const std::vector<WindowChange> window = {Update(5, 5, "u5"), Update(12, 14, "moved"), Delete(11),
                                            Insert(30, "later")};
  EXPECT_EQ(RunInSteps({}, window, {Key(10), Key(20)}), Run(window, {Key(10), Key(20)}));
}

}  // namespace
}  // namespace rowbridge::snapshot
