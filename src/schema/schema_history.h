// Every table's schema over time, keyed by binlog position, so each row is decoded with the
// schema that was valid where it was written -- never the live one.
//
// A version says "from position P on, the table is <schema> / exists with unknown columns /
// does not exist". SchemaAt(table, P) returns the version with the greatest position <= P.
// Positions are binlog coordinates compared by file number (the digits after the last '.' of
// the file name) and then offset; a DDL's version starts at its QUERY event's position, which
// every row event after it exceeds.
//
// Online schema change tools are followed by construction: gh-ost/pt-osc create a shadow table
// (CREATE TABLE _t_gho LIKE t), ALTER it, then RENAME TABLE t TO _t_del, _t_gho TO t; the
// shadow's altered schema becomes t's version at the RENAME's position, and rows of t before it
// still find the old one.
//
// Replay after a restart: the pipeline resumes at a checkpoint and may see DDL again that the
// stored history already holds. ApplyDdl() ignores a statement at or before the last position it
// applied (and says so), so replays are idempotent.
//
// Serialized (ToJson/FromJson) as compact JSON to be stored with the checkpoint. Prune(P) drops
// versions no row at or after P can need.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/catalog.h"
#include "schema/ddl_parser.h"
#include "schema/table_schema.h"

namespace rowbridge::schema {

struct BinlogPosition {
  std::string file;
  uint64_t offset = 0;

  std::string ToString() const;  // "mysql-bin.000003:1234"
  // The inverse of ToString; Error(kCorruption) naming `origin` for anything else.
  static BinlogPosition Parse(std::string_view text, std::string_view origin);
  // Orders by the file's numeric suffix, then offset (file names without digits: by name).
  bool operator<(const BinlogPosition& other) const;
  bool operator<=(const BinlogPosition& other) const { return !(other < *this); }
  bool operator==(const BinlogPosition&) const = default;
};

struct SchemaVersion {
  BinlogPosition position;
  TableState state = TableState::kKnown;  // kAbsent: dropped / renamed away
  TableSchema schema;                     // meaningful when state == kKnown
  bool operator==(const SchemaVersion&) const = default;
};

// What ApplyDdl did.
struct DdlOutcome {
  DdlStatement statement;
  std::vector<TableChange> changes;
  bool replayed = false;  // at or before the last applied position: ignored
};

class SchemaHistory {
 public:
  explicit SchemaHistory(CatalogOptions options = {}) : catalog_(options) {}

  // The schema read from the source (information_schema) for a table at `position`, typically
  // the start position of a first run, or a refresh of a table whose state is unknown.
  void Seed(const TableSchema& schema, const BinlogPosition& position);
  void SetDatabaseCollation(const std::string& database, uint32_t collation);

  // Parses and applies a QUERY event's statement at `position`. Errors (unparseable DDL, a
  // statement that does not fit the known schema) are rethrown as the same Error code with
  // " at <position>" appended; the history is unchanged then.
  DdlOutcome ApplyDdl(std::string_view sql, const ParseOptions& parse,
                      const StatementContext& context, const BinlogPosition& position);
  // The same for a statement already parsed.
  std::vector<TableChange> Apply(const DdlStatement& statement, const StatementContext& context,
                                 const BinlogPosition& position);

  // The version valid at `position`, or nullptr if the history has none for the table then.
  const SchemaVersion* SchemaAt(const TableRef& table, const BinlogPosition& position) const;
  // The newest version.
  const SchemaVersion* Latest(const TableRef& table) const;
  const std::vector<SchemaVersion>* Versions(const TableRef& table) const;
  const Catalog& catalog() const { return catalog_; }

  // Forgets versions that no position >= `checkpoint` can select: for each table everything
  // older than its version valid at `checkpoint`, and tables whose last version (<= checkpoint)
  // says they do not exist.
  void Prune(const BinlogPosition& checkpoint);

  std::string ToJson() const;
  // Throws Error(kCorruption) naming `origin` when the text is not a schema history.
  static SchemaHistory FromJson(std::string_view text, std::string_view origin);

 private:
  void Record(const TableRef& table, const BinlogPosition& position, TableState state,
              const TableSchema* schema);

  Catalog catalog_;
  std::map<TableRef, std::vector<SchemaVersion>> versions_;
  std::optional<BinlogPosition> last_applied_;
};

}  // namespace rowbridge::schema
