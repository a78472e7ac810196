// Planner: decides what a schema change the source logged means for the replicated tables, as a
// Decision (decision.h), from a view of the catalog (catalog_view.h). No I/O: the same statement
// and catalog always give the same decision, which the pipeline then carries out
// (pipeline/schema_change_executor.h) and the decision tests check as data
// (tests/data/schema_changes/*.test).
//
// The rules it applies (docs/running.md, "Schema changes"):
//   - A change to a replicated table is carried to its target when its rule says so (auto: for
//     targets rowbridge created): the table's buffered rows are written first, then the target is
//     altered, truncated or dropped. A change that cannot be carried stops that table only.
//   - RENAME and CREATE route a table under its new name by the rules. A renamed table's rows
//     stay together: its target takes the new name's target name where rowbridge may rename it;
//     otherwise the table keeps writing into its old target, recorded as an alias, unless the
//     rules' target for the new name exists already or takes another mode (gh-ost's swap).
//   - DROP TABLE never drops a target another replicated table still writes into.
//   - A table whose changes at the statement are still in a copy (copied after the stream began,
//     or its target replaced by a copy) is left to that copy.
//   - Statement-based DML on a replicated table stops it (or the run, under
//     source.on_statement_dml: stop_run): its rows never reach the binlog as row events.
//
// A statement may change several tables (RENAME a TO b, c TO a): each change is met, decided and
// carried out in turn, and the next is decided against the catalog the previous one left.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/catalog.h"
#include "schema/ddl_statement.h"
#include "schema/schema_history.h"
#include "schema_changes/catalog_view.h"
#include "schema_changes/decision.h"

namespace rowbridge::schema_changes {

class Planner {
 public:
  explicit Planner(const CatalogView& view) : view_(view) {}

  // The tables `change` names that the stream has not met and must resolve, as they were just
  // before `position`, before Change() is asked.
  std::vector<Meet> TablesToMeet(const schema::TableChange& change,
                                 const schema::BinlogPosition& position) const;
  // One table's part of `statement` (`sql`) at `position`.
  Decision Change(const schema::TableChange& change, const schema::DdlStatement& statement,
                  const schema::BinlogPosition& position, std::string_view sql) const;

  // After the changes of `statement`: rows it wrote that the binlog has no row events of (a
  // CREATE TABLE ... SELECT logged as a statement) stop the table, as UnloggedRows.
  Decision AfterChanges(const schema::DdlStatement& statement, std::string_view sql,
                        const schema::BinlogPosition& position, const std::string& gtid) const;
  // A statement the schema history could not follow (`error`), which names `named`: the
  // replicated tables among them stop.
  Decision Unfollowable(std::string_view sql, const schema::BinlogPosition& position,
                        std::string_view error,
                        const std::vector<tables::SourceTableName>& named) const;
  // The same, when not even the tables it names can be told (`lexing`): the run ends, since
  // skipping the statement could lose a change unseen.
  static Decision Unnameable(std::string_view sql, const schema::BinlogPosition& position,
                             std::string_view error, std::string_view lexing);
  // `sql` (`verb`: INSERT, UPDATE, CREATE TABLE ... SELECT...) at `position` (in the transaction
  // of `gtid`, "" for none) changed rows of `written` without row events.
  Decision UnloggedRows(std::string_view sql, std::string_view verb,
                        const std::vector<tables::SourceTableName>& written,
                        const schema::BinlogPosition& position, const std::string& gtid) const;

 private:
  // What the decision for a table that came under a name (CREATE, RENAME) rests on.
  struct NewNameFacts {
    tables::SourceTableName name;
    std::optional<tables::SourceTableName> from;  // RENAME only
    bool created = false;                         // CREATE
    schema::BinlogPosition position;
    int rule = -1;             // the new name's
    std::string rules_target;  // the new name's rules' target
    bool from_copied_later = false;
    bool from_replicated = false;  // the old name's rows went into a target
    TargetFacts followed_facts;    // that target's
    bool name_was_taken = false;   // a table had the name just before (a swap)
    std::optional<std::vector<binlog::ColumnDef>> previous_columns;
  };
  // Where that table writes.
  struct NewNameTarget {
    std::string followed;    // the old name's target it keeps writing into; "" for the rules'
    std::string split_from;  // the target holding the rows the rules' target lacks
    std::string split_why;
  };

  Decision Dropped(const tables::SourceTableName& name, const std::string& where) const;
  Decision Altered(const tables::SourceTableName& name, const StreamedFacts& table,
                   const schema::TableChange& change, const schema::DdlStatement& statement,
                   const std::string& where, const std::string& text) const;
  Decision Truncated(const tables::SourceTableName& name, const StreamedFacts& table,
                     const std::string& where) const;
  Decision NewName(const schema::TableChange& change, const schema::BinlogPosition& position) const;
  // The renamed table leaves its old name (its rows written first); `followed` becomes the target
  // it wrote into.
  Decision LeaveOldName(NewNameFacts& f, std::string& followed) const;
  // Its target was not renamed with it: it keeps writing into `label`, or into its rules' target.
  Decision KeepOldTarget(const NewNameFacts& f, const std::string& label) const;
  // The table under its new name, writing into `target`.
  Decision WriteUnderNewName(const NewNameFacts& f, const NewNameTarget& target) const;
  Decision LeftBehind(const tables::SourceTableName& from, const tables::SourceTableName& name,
                      const schema::BinlogPosition& position) const;
  // Why the target `label` of the table renamed from `from` to `to` (rule `rule`) is not renamed
  // to the rules' target of `to`; "" when it is.
  std::string MoveRefusal(const std::string& label, const TargetFacts& target,
                          const tables::SourceTableName& from, const tables::SourceTableName& to,
                          int rule) const;

  const CatalogView& view_;
};

// The statement as a log line: at most `max` characters, on one line.
std::string Abbreviated(std::string_view sql, size_t max = 300);
// The position just before `position`: where a statement's table still has its old columns.
schema::BinlogPosition JustBefore(schema::BinlogPosition position);
// Old -> new column names an ALTER renamed (RENAME COLUMN, CHANGE with a new name), chained.
std::vector<std::pair<std::string, std::string>> RenamedColumns(
    const schema::DdlStatement& statement);

}  // namespace rowbridge::schema_changes
