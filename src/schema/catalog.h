// The current schema of every table the binlog has told us about, and the step that applies a
// parsed DDL statement to it. Schemas enter either from the source (Put, e.g. information_schema
// at the start position) or from CREATE TABLE statements; ALTER/RENAME/DROP then evolve them.
//
// A table's state is one of: known (a TableSchema), unknown (it exists but its columns are not
// derivable from the binlog: CREATE TABLE ... SELECT without row-based logging, CREATE TABLE ...
// LIKE or ALTER of a table we never knew), or absent. The caller must refresh unknown tables
// from the source (or from their next TABLE_MAP) before decoding their rows with names.
//
// Apply() is all-or-nothing: if any part of the statement cannot be applied (ALTER of a column
// the table does not have, a name clash, an unknown charset), it throws Error(kInvalidArgument
// or kUnsupported) naming the table and the clause, and the catalog is unchanged. The caller adds
// the binlog position.
//
// Temporary tables never reach row-based binlogs' row events under their own name, so CREATE/DROP
// TEMPORARY TABLE change nothing here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schema/charsets.h"
#include "schema/ddl_statement.h"
#include "schema/table_schema.h"

namespace rowbridge::schema {

struct CatalogOptions {
  ServerFlavor flavor = ServerFlavor::kMysql;
  // lower_case_table_names=1/2 on the source: table and database names compare case-insensitively
  // (they are stored lower-cased).
  bool lower_case_table_names = false;
  bool explicit_defaults_for_timestamp = true;
};

// Per statement facts from the QUERY event.
struct StatementContext {
  // collation_server of the session (Q_CHARSET_CODE): the default of a CREATE DATABASE without
  // a charset and of tables in databases the catalog has no default for. 0 = unknown.
  uint32_t collation_server = 0;
};

enum class TableState : uint8_t { kAbsent, kKnown, kUnknown };

struct TableChange {
  enum class Kind : uint8_t {
    kCreated,      // table now exists (schema, or unknown)
    kAltered,      // columns or keys may have changed; `schema` is the new one
    kRenamed,      // `from` -> `table`; the schema moved with it (and may have been altered)
    kDropped,      // `table` is gone
    kTruncated,    // rows vanished without row events; schema unchanged
    kRowsChanged,  // partition maintenance removed/moved rows without row events
  };
  Kind kind = Kind::kAltered;
  TableRef table;
  std::optional<TableRef> from;       // kRenamed only
  std::optional<TableSchema> schema;  // the table's schema after the statement, if known
};

const char* TableChangeKindName(TableChange::Kind kind);

class Catalog {
 public:
  explicit Catalog(CatalogOptions options = {}) : options_(options) {}

  const CatalogOptions& options() const { return options_; }

  // Records `schema` as the current one for schema.name (a fresh load from the source).
  void Put(TableSchema schema);
  // Records that the table exists with columns we do not know.
  void PutUnknown(const TableRef& table);
  void Remove(const TableRef& table);
  void SetDatabaseCollation(const std::string& database, uint32_t collation);

  TableState State(const TableRef& table) const;
  const TableSchema* Find(const TableRef& table) const;  // nullptr unless kKnown

  // Applies the statement; returns the tables it changed, in statement order.
  std::vector<TableChange> Apply(const DdlStatement& statement, const StatementContext& context);

  // Every table that is known or unknown, sorted.
  std::vector<TableRef> Tables() const;
  const std::map<std::string, uint32_t>& DatabaseCollations() const { return database_collations_; }

 private:
  struct Entry {
    TableState state = TableState::kAbsent;
    TableSchema schema;
  };
  TableRef Key(const TableRef& table) const;
  std::string DatabaseKey(const std::string& database) const;
  uint32_t DatabaseCollation(const std::string& database, const StatementContext& context) const;

  friend class CatalogApplier;
  CatalogOptions options_;
  std::map<TableRef, Entry> tables_;
  std::map<std::string, uint32_t> database_collations_;
};

}  // namespace rowbridge::schema
