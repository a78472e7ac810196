#include "schema/catalog.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "schema/column_spec.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

using binlog::ColumnDef;
using binlog::ColumnType;

const char* TableChangeKindName(TableChange::Kind kind) {
  switch (kind) {
    case TableChange::Kind::kCreated:
      return "created";
    case TableChange::Kind::kAltered:
      return "altered";
    case TableChange::Kind::kRenamed:
      return "renamed";
    case TableChange::Kind::kDropped:
      return "dropped";
    case TableChange::Kind::kTruncated:
      return "truncated";
    case TableChange::Kind::kRowsChanged:
      return "rows_changed";
  }
  return "?";
}

TableRef Catalog::Key(const TableRef& table) const {
  if (table.database.empty()) {
    Fail(ErrorCode::kInvalidArgument, "table {} is named without a database and none is selected",
         table.table);
  }
  if (!options_.lower_case_table_names) return table;
  return TableRef{ToLowerAscii(table.database), ToLowerAscii(table.table)};
}

std::string Catalog::DatabaseKey(const std::string& database) const {
  return options_.lower_case_table_names ? ToLowerAscii(database) : database;
}

void Catalog::Put(TableSchema schema) {
  schema.name = Key(schema.name);
  Entry& e = tables_[schema.name];
  e.state = TableState::kKnown;
  e.schema = std::move(schema);
}

void Catalog::PutUnknown(const TableRef& table) {
  Entry& e = tables_[Key(table)];
  e.state = TableState::kUnknown;
  e.schema = TableSchema{};
  e.schema.name = Key(table);
}

void Catalog::Remove(const TableRef& table) {
  tables_.erase(Key(table));
}

void Catalog::SetDatabaseCollation(const std::string& database, uint32_t collation) {
  database_collations_[DatabaseKey(database)] = collation;
}

TableState Catalog::State(const TableRef& table) const {
  auto it = tables_.find(Key(table));
  return it == tables_.end() ? TableState::kAbsent : it->second.state;
}

const TableSchema* Catalog::Find(const TableRef& table) const {
  auto it = tables_.find(Key(table));
  if (it == tables_.end() || it->second.state != TableState::kKnown) return nullptr;
  return &it->second.schema;
}

std::vector<TableRef> Catalog::Tables() const {
  std::vector<TableRef> out;
  for (const auto& [key, entry] : tables_) out.push_back(key);
  return out;
}

uint32_t Catalog::DatabaseCollation(const std::string& database,
                                    const StatementContext& context) const {
  auto it = database_collations_.find(DatabaseKey(database));
  return it != database_collations_.end() ? it->second : context.collation_server;
}

// Applies one statement to a staged overlay of the catalog and commits it at the end, so a
// failure leaves the catalog untouched.
class CatalogApplier {
 public:
  CatalogApplier(Catalog& catalog, const StatementContext& context)
      : catalog_(catalog), context_(context) {}

  std::vector<TableChange> Run(const DdlStatement& statement) {
    std::visit([this](const auto& s) { Apply(s); }, statement);
    for (auto& [key, entry] : staged_) {
      if (entry.state == TableState::kAbsent) {
        catalog_.tables_.erase(key);
      } else {
        catalog_.tables_[key] = std::move(entry);
      }
    }
    for (auto& [db, collation] : staged_databases_) {
      if (collation) {
        catalog_.database_collations_[db] = *collation;
      } else {
        catalog_.database_collations_.erase(db);
      }
    }
    return std::move(changes_);
  }

 private:
  using Entry = Catalog::Entry;

  Entry Get(const TableRef& key) const {
    auto staged = staged_.find(key);
    if (staged != staged_.end()) return staged->second;
    auto it = catalog_.tables_.find(key);
    if (it != catalog_.tables_.end()) return it->second;
    return Entry{};
  }

  void Stage(const TableRef& key, Entry entry) { staged_[key] = std::move(entry); }

  uint32_t DatabaseCollation(const std::string& database) const {
    auto it = staged_databases_.find(catalog_.DatabaseKey(database));
    if (it != staged_databases_.end() && it->second) return *it->second;
    return catalog_.DatabaseCollation(database, context_);
  }

  static std::string Name(const TableRef& t) { return t.database + "." + t.table; }

  void Change(TableChange::Kind kind, const TableRef& table, const Entry& entry,
              std::optional<TableRef> from = std::nullopt) {
    TableChange c;
    c.kind = kind;
    c.table = table;
    c.from = std::move(from);
    if (entry.state == TableState::kKnown) c.schema = entry.schema;
    changes_.push_back(std::move(c));
  }

  ColumnContext ColumnsOf(const TableSchema& schema, const std::string& table_name) const {
    ColumnContext context;
    context.flavor = catalog_.options_.flavor;
    context.table_collation = schema.default_collation;
    context.explicit_defaults_for_timestamp = catalog_.options_.explicit_defaults_for_timestamp;
    context.table_name = table_name;
    return context;
  }

  uint32_t OptionsCollation(const TableOptions& options, uint32_t inherited,
                            const std::string& where) const {
    if (options.charset.empty() && options.collation.empty()) return inherited;
    return ResolveCollation(options.charset, options.collation, false, inherited,
                            catalog_.options_.flavor, where);
  }

  // ---- statements ----

  void Apply(const CreateTable& create) {
    if (create.temporary) return;
    const TableRef key = catalog_.Key(create.table);
    const std::string name = Name(key);
    Entry existing = Get(key);
    if (existing.state != TableState::kAbsent && create.if_not_exists && !create.or_replace) {
      return;
    }
    Entry entry;
    entry.schema.name = key;
    if (create.like) {
      Entry source = Get(catalog_.Key(*create.like));
      entry.state = source.state == TableState::kKnown ? TableState::kKnown : TableState::kUnknown;
      if (entry.state == TableState::kKnown) {
        entry.schema = source.schema;
        entry.schema.name = key;
      }
    } else if (create.as_select) {
      entry.state = TableState::kUnknown;
    } else {
      entry.state = TableState::kKnown;
      TableSchema& schema = entry.schema;
      schema.default_collation =
          OptionsCollation(create.options, DatabaseCollation(key.database), name);
      std::vector<std::string> primary_key;
      for (const ColumnSpec& spec : create.columns) {
        if (schema.FindColumn(spec.name)) {
          Fail(ErrorCode::kInvalidArgument, "CREATE TABLE {}: column {} is defined twice", name,
               spec.name);
        }
        schema.columns.push_back(ResolveColumn(spec, ColumnsOf(schema, name)));
        if (spec.primary_key) SetPrimaryKey(primary_key, {spec.name}, name);
      }
      for (const IndexSpec& index : create.indexes) {
        if (index.kind == IndexKind::kPrimary) SetPrimaryKey(primary_key, index.columns, name);
      }
      FinishKeys(schema, primary_key, name);
    }
    Stage(key, entry);
    Change(TableChange::Kind::kCreated, key, entry);
  }

  static void SetPrimaryKey(std::vector<std::string>& primary_key,
                            const std::vector<std::string>& columns, const std::string& name) {
    if (!primary_key.empty()) {
      Fail(ErrorCode::kInvalidArgument, "{}: a second primary key is defined", name);
    }
    primary_key = columns;
  }

  // Turns the key's column names into indices and flags, and makes key columns NOT NULL.
  static void FinishKeys(TableSchema& schema, const std::vector<std::string>& primary_key,
                         const std::string& name) {
    schema.primary_key.clear();
    for (ColumnDef& c : schema.columns) c.is_primary_key = false;
    for (const std::string& column : primary_key) {
      std::optional<size_t> index = schema.FindColumn(column);
      if (!index) {
        Fail(ErrorCode::kInvalidArgument, "{}: primary key column {} does not exist", name, column);
      }
      schema.primary_key.push_back(static_cast<uint32_t>(*index));
      schema.columns[*index].is_primary_key = true;
      schema.columns[*index].nullable = false;
    }
  }

  void Apply(const AlterTable& alter) {
    const TableRef key = catalog_.Key(alter.table);
    Entry entry = Get(key);
    if (entry.state == TableState::kAbsent && alter.if_exists) return;
    TableRef final_key = key;
    for (const AlterSpec& spec : alter.specs) {
      if (spec.kind == AlterSpec::Kind::kRenameTable) final_key = catalog_.Key(spec.new_table);
    }
    if (entry.state != TableState::kKnown) {
      // Never known (or not derivable): it exists, with columns we cannot tell.
      entry.state = TableState::kUnknown;
      entry.schema = TableSchema{};
      entry.schema.name = final_key;
    } else {
      AlterKnown(alter, entry.schema);
    }
    for (const AlterSpec& spec : alter.specs) {
      if (spec.kind == AlterSpec::Kind::kPartition && spec.changes_rows) {
        Change(TableChange::Kind::kRowsChanged, key, entry);
        break;
      }
    }
    if (final_key != key) {
      if (Get(final_key).state != TableState::kAbsent) {
        Fail(ErrorCode::kInvalidArgument, "ALTER TABLE {} RENAME: table {} already exists",
             Name(key), Name(final_key));
      }
      entry.schema.name = final_key;
      Stage(key, Entry{});
      Stage(final_key, entry);
      Change(TableChange::Kind::kRenamed, final_key, entry, key);
    } else {
      Stage(key, entry);
      Change(TableChange::Kind::kAltered, key, entry);
    }
  }

  struct WorkColumn {
    ColumnDef def;
    std::string original;  // name before this statement; empty for added columns
    size_t id;             // identity through renames, for the primary key
  };

  void AlterKnown(const AlterTable& alter, TableSchema& schema) {
    const std::string name = Name(schema.name);
    std::vector<WorkColumn> columns;
    for (const ColumnDef& c : schema.columns) columns.push_back({c, c.name, columns.size()});
    size_t next_id = columns.size();
    // Column identities, not names: RENAME a TO b, b TO a must not move the key.
    std::vector<size_t> primary_key(schema.primary_key.begin(), schema.primary_key.end());

    // Specs name existing columns by their names before the statement (so RENAME a TO b,
    // b TO a swaps); columns added by the statement are found by their new names.
    auto find = [&](const std::string& column) -> std::optional<size_t> {
      for (size_t i = 0; i < columns.size(); ++i) {
        if (!columns[i].original.empty() && EqualsIgnoreCase(columns[i].original, column)) return i;
      }
      for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].original.empty() && EqualsIgnoreCase(columns[i].def.name, column)) return i;
      }
      return std::nullopt;
    };
    auto find_current = [&](const std::string& column) -> std::optional<size_t> {
      for (size_t i = 0; i < columns.size(); ++i) {
        if (EqualsIgnoreCase(columns[i].def.name, column)) return i;
      }
      return std::nullopt;
    };
    auto missing = [&](const AlterSpec& spec, const std::string& column) {
      Fail(ErrorCode::kInvalidArgument, "ALTER TABLE {} {}: the table has no column {}", name,
           spec.verb, column);
    };
    auto place = [&](size_t from, const AlterSpec& spec) {
      if (spec.place == ColumnPlace::kDefault) return;
      WorkColumn moving = std::move(columns[from]);
      columns.erase(columns.begin() + static_cast<ptrdiff_t>(from));
      size_t at = 0;
      if (spec.place == ColumnPlace::kAfter) {
        std::optional<size_t> after = find_current(spec.after_column);
        if (!after) after = find(spec.after_column);
        if (!after) missing(spec, spec.after_column);
        at = *after + 1;
      }
      columns.insert(columns.begin() + static_cast<ptrdiff_t>(at), std::move(moving));
    };
    auto set_primary_key = [&](const std::vector<std::string>& key_columns) {
      if (!primary_key.empty()) {
        Fail(ErrorCode::kInvalidArgument, "{}: a second primary key is defined", name);
      }
      for (const std::string& column : key_columns) {
        std::optional<size_t> i = find_current(column);
        if (!i) i = find(column);
        if (!i) {
          Fail(ErrorCode::kInvalidArgument, "{}: primary key column {} does not exist", name,
               column);
        }
        primary_key.push_back(columns[*i].id);
      }
    };
    auto resolve = [&](const ColumnSpec& spec) {
      return ResolveColumn(spec, ColumnsOf(schema, name));
    };

    for (const AlterSpec& spec : alter.specs) {
      using Kind = AlterSpec::Kind;
      switch (spec.kind) {
        case Kind::kAddColumn: {
          if (find_current(spec.definition.name)) {
            if (spec.if_not_exists) break;
            Fail(ErrorCode::kInvalidArgument, "ALTER TABLE {} ADD COLUMN: column {} already exists",
                 name, spec.definition.name);
          }
          columns.push_back({resolve(spec.definition), {}, next_id++});
          if (spec.definition.primary_key) set_primary_key({spec.definition.name});
          place(columns.size() - 1, spec);
          break;
        }
        case Kind::kDropColumn: {
          std::optional<size_t> i = find(spec.column);
          if (!i) {
            if (spec.if_exists) break;
            missing(spec, spec.column);
          }
          const size_t dropped = columns[*i].id;
          columns.erase(columns.begin() + static_cast<ptrdiff_t>(*i));
          std::erase(primary_key, dropped);
          break;
        }
        case Kind::kModifyColumn:
        case Kind::kChangeColumn: {
          std::optional<size_t> i = find(spec.column);
          if (!i) {
            if (spec.if_exists) break;
            missing(spec, spec.column);
          }
          // A clash with another column is caught at the end: CHANGE a b, CHANGE b a swaps.
          columns[*i].def = resolve(spec.definition);
          if (spec.definition.primary_key) set_primary_key({spec.definition.name});
          place(*i, spec);
          break;
        }
        case Kind::kRenameColumn: {
          std::optional<size_t> i = find(spec.column);
          if (!i) {
            if (spec.if_exists) break;
            missing(spec, spec.column);
          }
          columns[*i].def.name = spec.new_name;
          break;
        }
        case Kind::kSetColumnDefault:
        case Kind::kDropColumnDefault: {
          std::optional<size_t> i = find(spec.column);
          if (!i) {
            if (spec.if_exists) break;
            missing(spec, spec.column);
          }
          ColumnDef& def = columns[*i].def;
          def.default_known = true;
          def.default_value = spec.kind == Kind::kSetColumnDefault && spec.default_value
                                  ? CanonicalDefault(*spec.default_value)
                                  : std::nullopt;
          break;
        }
        case Kind::kSetColumnVisibility: {
          std::optional<size_t> i = find(spec.column);
          if (!i) {
            if (spec.if_exists) break;
            missing(spec, spec.column);
          }
          columns[*i].def.visible = !spec.invisible;
          break;
        }
        case Kind::kAddIndex:
          if (spec.index.kind == IndexKind::kPrimary) {
            if (!primary_key.empty() && spec.index.if_not_exists) break;
            set_primary_key(spec.index.columns);
          }
          break;
        case Kind::kDropIndex:
          if (!EqualsIgnoreCase(spec.name, "PRIMARY")) break;
          [[fallthrough]];
        case Kind::kDropPrimaryKey:
          if (primary_key.empty()) {
            if (spec.if_exists) break;
            Fail(ErrorCode::kInvalidArgument, "ALTER TABLE {} DROP PRIMARY KEY: there is none",
                 name);
          }
          primary_key.clear();
          break;
        case Kind::kConvertCharset: {
          const uint32_t collation =
              spec.options.charset == "default"
                  ? DatabaseCollation(schema.name.database)
                  : OptionsCollation(spec.options, schema.default_collation, name);
          for (WorkColumn& w : columns) Convert(w.def, collation);
          schema.default_collation = collation;
          break;
        }
        case Kind::kTableOptions:
          schema.default_collation =
              spec.options.charset == "default"
                  ? DatabaseCollation(schema.name.database)
                  : OptionsCollation(spec.options, schema.default_collation, name);
          break;
        case Kind::kDropForeignKey:
        case Kind::kDropConstraint:
        case Kind::kRenameIndex:
        case Kind::kRenameTable:
        case Kind::kPartition:
        case Kind::kNoSchemaEffect:
          break;
      }
    }

    std::vector<std::string> key_names;
    for (size_t id : primary_key) {
      for (const WorkColumn& w : columns) {
        if (w.id == id) key_names.push_back(w.def.name);
      }
    }
    schema.columns.clear();
    for (WorkColumn& w : columns) {
      if (schema.FindColumn(w.def.name)) {
        Fail(ErrorCode::kInvalidArgument, "ALTER TABLE {}: column {} would exist twice", name,
             w.def.name);
      }
      schema.columns.push_back(std::move(w.def));
    }
    FinishKeys(schema, key_names, name);
  }

  // CONVERT TO CHARACTER SET: text columns take the new collation and keep their length in
  // characters (TEXT grows to MEDIUMTEXT when the bytes need it, as the server does).
  static void Convert(ColumnDef& c, uint32_t collation) {
    const bool text_type = c.type == ColumnType::kString || c.type == ColumnType::kVarchar ||
                           c.type == ColumnType::kBlob || c.type == ColumnType::kEnum ||
                           c.type == ColumnType::kSet;
    if (!text_type || c.charset == kBinaryCollation) return;
    const uint32_t old_bytes = CollationById(c.charset).max_bytes_per_char;
    const uint32_t new_bytes = CollationById(collation).max_bytes_per_char;
    if (c.type == ColumnType::kString || c.type == ColumnType::kVarchar) {
      c.meta = c.meta / old_bytes * new_bytes;
    } else if (c.type == ColumnType::kBlob && c.meta < 4) {
      const uint64_t capacity = (uint64_t{1} << (8 * c.meta)) - 1;
      const uint64_t needed = capacity / old_bytes * new_bytes;
      while (c.meta < 4 && needed > (uint64_t{1} << (8 * c.meta)) - 1) ++c.meta;
    }
    c.charset = collation;
  }

  void Apply(const RenameTables& rename) {
    for (const auto& [from, to] : rename.renames) {
      const TableRef from_key = catalog_.Key(from);
      const TableRef to_key = catalog_.Key(to);
      if (Get(to_key).state != TableState::kAbsent) {
        Fail(ErrorCode::kInvalidArgument, "RENAME TABLE {} TO {}: {} already exists",
             Name(from_key), Name(to_key), Name(to_key));
      }
      Entry entry = Get(from_key);
      if (entry.state == TableState::kAbsent) entry.state = TableState::kUnknown;
      entry.schema.name = to_key;
      Stage(from_key, Entry{});
      Stage(to_key, entry);
      Change(TableChange::Kind::kRenamed, to_key, entry, from_key);
    }
  }

  void Apply(const DropTables& drop) {
    if (drop.temporary) return;
    for (const TableRef& table : drop.tables) {
      const TableRef key = catalog_.Key(table);
      Stage(key, Entry{});
      Change(TableChange::Kind::kDropped, key, Entry{});
    }
  }

  void Apply(const TruncateTable& truncate) {
    const TableRef key = catalog_.Key(truncate.table);
    Change(TableChange::Kind::kTruncated, key, Get(key));
  }

  void Apply(const CreateDatabase& create) {
    const std::string db = catalog_.DatabaseKey(create.database);
    const uint32_t collation =
        OptionsCollation(create.options, context_.collation_server, create.database);
    if (create.or_replace) DropAllOf(db);
    staged_databases_[db] = collation;
  }

  void Apply(const AlterDatabase& alter) {
    if (alter.database.empty()) return;
    const std::string db = catalog_.DatabaseKey(alter.database);
    staged_databases_[db] =
        OptionsCollation(alter.options, DatabaseCollation(alter.database), alter.database);
  }

  void Apply(const DropDatabase& drop) {
    const std::string db = catalog_.DatabaseKey(drop.database);
    DropAllOf(db);
    staged_databases_[db] = std::nullopt;
  }

  void DropAllOf(const std::string& db) {
    for (const auto& [key, entry] : catalog_.tables_) {
      if (key.database == db) {
        Stage(key, Entry{});
        Change(TableChange::Kind::kDropped, key, Entry{});
      }
    }
  }

  void Apply(const NoTableChange&) {}

  Catalog& catalog_;
  const StatementContext& context_;
  std::map<TableRef, Entry> staged_;
  std::map<std::string, std::optional<uint32_t>> staged_databases_;
  std::vector<TableChange> changes_;
};

std::vector<TableChange> Catalog::Apply(const DdlStatement& statement,
                                        const StatementContext& context) {
  return CatalogApplier(*this, context).Run(statement);
}

}  // namespace rowbridge::schema
