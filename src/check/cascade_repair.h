// CascadeRepairer: brings the child rows a foreign-key action changed on the source (ON DELETE /
// ON UPDATE CASCADE, SET NULL, SET DEFAULT), which the source did not log (tables/foreign_keys.h),
// to the source's state in their live targets.
//
// For a relation parent -> child and the parent key values a transaction deleted or changed (old
// and new values), the affected child rows are those whose foreign-key columns are IN those
// values, on either side: the source's rows now, and the target's current rows. Both sides are
// compared by their primary keys (the target's keys of the range re-read from the source, the
// source's keys looked up in the target, so a row whose foreign key was SET NULL is found), and
// each difference is written by the repair of a range (range_repair.h): a source row the target
// lacks or holds differently, a delete for a key the source no longer has.
//
// Every row it writes takes ONE version, the one of the parent's transaction's last row change
// (V). Why that is exact: every change the stream wrote for those keys up to that transaction has
// a version <= V, every later one a higher version. The source's row now is the row after the
// transaction, or after later changes: logged ones outrank V wherever they are written, unlogged
// ones (later cascades) are repaired in turn with their own, higher V. A repair run again (a
// replay after kill -9) compares again and writes what still differs, with the same V.
//
// Chains: before a child is repaired, the values of the columns its own cascading children
// reference are read from its affected rows on both sides (the target's: the values before; the
// source's: after), and those children are repaired for them, down the chain; a relation meets
// each value once per Repair (a self-reference ends). A child no rule replicates is not repaired,
// but its replicated children are: the values before are then the foreign-key values their
// targets hold that the source's middle table no longer has (a scan of distinct values).
//
// Foreign-key columns must be integers or strings (their text is the same on both sides); other
// types throw Error(kUnsupported), which the pipeline turns into a stop of the child table.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clickhouse/client.h"
#include "config/config.h"
#include "mysql/connection.h"
#include "tables/foreign_keys.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::check {

// Value tuples of some columns as text, tuple after tuple (a tuple with a NULL selects no child
// row, and is never added).
struct KeyTuples {
  size_t width = 0;
  std::vector<std::string> values;
  size_t size() const { return width == 0 ? 0 : values.size() / width; }
  bool empty() const { return values.empty(); }
};

struct CascadeCounts {
  uint64_t tables = 0;  // child tables repaired
  uint64_t rows_written = 0;
  uint64_t keys_deleted = 0;
};

class CascadeRepairer {
 public:
  // `graph`: the source's foreign keys. Opens its own connections to both servers.
  CascadeRepairer(const config::Config& config, const tables::ForeignKeyGraph& graph);
  ~CascadeRepairer();
  CascadeRepairer(const CascadeRepairer&) = delete;
  CascadeRepairer& operator=(const CascadeRepairer&) = delete;

  // Repairs the children of `key` (and their children) for the parent's key values `values`
  // (of key.parent_columns), every row with `version`; `skipped` ("db.table") are not repaired
  // (stopped tables) and count as not replicated. Throws Error on a server error, and
  // Error(kUnsupported) for a relation it cannot repair exactly.
  void Repair(const tables::ForeignKey& key, const KeyTuples& values, uint64_t version,
              const std::set<std::string>& skipped);

  const CascadeCounts& counts() const { return counts_; }

 private:
  struct Child;
  // `child` replicated (its repair context), or nullptr.
  Child* Replicated(const tables::SourceTableName& name);
  const tables::SourceTableSchema& SchemaOf(const tables::SourceTableName& name);
  void RepairRelation(const tables::ForeignKey& key, const KeyTuples& values, uint64_t version,
                      const std::set<std::string>& skipped,
                      std::map<const tables::ForeignKey*, std::set<std::string>>& done);
  // The values of `columns` of the source rows `where` selects (DISTINCT).
  KeyTuples SourceValues(const tables::SourceTableName& table,
                         const std::vector<std::string>& columns, const std::string& where);
  // The same for the target's current rows `condition` selects.
  KeyTuples TargetValues(Child& child, const std::vector<std::string>& columns,
                         const std::string& condition);
  // The values of a replicated grandchild's foreign key (`key`, whose parent is not replicated)
  // that its target holds and the parent's source table no longer has.
  KeyTuples GoneParentValues(const tables::ForeignKey& key);
  // `columns` IN `values` for MySQL (mysql_side) or ClickHouse; "0" when empty.
  std::string InList(const tables::SourceTableName& table, const std::vector<std::string>& columns,
                     const KeyTuples& values, size_t from, size_t to, bool mysql_side);

  const config::Config& config_;
  const tables::ForeignKeyGraph& graph_;
  std::unique_ptr<mysql::Connection> source_;
  std::unique_ptr<clickhouse::Client> target_;
  std::unique_ptr<tables::TargetCatalog> catalog_;
  std::unique_ptr<tables::TableResolver> resolver_;
  std::vector<tables::SourceTableName> listed_;
  std::map<tables::SourceTableName, std::unique_ptr<Child>> children_;  // null: not replicated
  std::map<tables::SourceTableName, tables::SourceTableSchema> schemas_;
  CascadeCounts counts_;
};

}  // namespace rowbridge::check
