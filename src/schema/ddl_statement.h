// The typed form of a DDL statement from a QUERY event, as ParseDdl() produces it. Plain data: it
// says what the statement wrote, with names resolved against the session's database; turning it
// into column definitions (types, charsets, byte lengths) is schema/column_spec.h's job, and
// applying it to table schemas is schema/catalog.h's.
//
// Names keep their case as written; empty `database` in a TableRef means the statement named a
// table without a database while the session had none (the server would have refused it, so
// Catalog treats it as an error).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rowbridge::schema {

struct TableRef {
  std::string database;
  std::string table;
  bool operator==(const TableRef&) const = default;
  auto operator<=>(const TableRef&) const = default;
};

// A column type as written: `decimal(10,2) unsigned zerofill`, `varchar(32) character set
// latin1 collate latin1_bin`, `enum('a','b')`.
struct TypeSpec {
  std::string name;                 // lower case, aliases kept ("integer", "bool", "nvarchar")
  std::optional<uint32_t> length;   // (M) or the M of (M,D)
  std::optional<uint32_t> scale;    // the D of (M,D)
  std::vector<std::string> labels;  // ENUM/SET labels, decoded
  bool is_unsigned = false;
  bool zerofill = false;
  bool binary = false;  // the BINARY attribute of a character type (a _bin collation)
  std::string charset;  // lower case, empty = not given
  std::string collation;
};

enum class GeneratedKind : uint8_t { kNone, kVirtual, kStored };

struct ColumnSpec {
  std::string name;
  TypeSpec type;
  std::optional<bool> nullable;  // nullopt: not said (NULL unless part of the primary key)
  std::optional<std::string> default_value;  // the expression's text; "NULL" for DEFAULT NULL
  std::optional<std::string> on_update;
  bool auto_increment = false;
  bool primary_key = false;  // inline PRIMARY KEY (or KEY, which means the same inline)
  bool unique_key = false;
  bool invisible = false;
  GeneratedKind generated = GeneratedKind::kNone;
  std::string generated_expression;
  std::string comment;
};

enum class IndexKind : uint8_t { kPrimary, kUnique, kIndex, kFulltext, kSpatial, kForeign, kCheck };

struct IndexSpec {
  IndexKind kind = IndexKind::kIndex;
  std::string name;                  // index or constraint name; empty if not given
  std::vector<std::string> columns;  // key parts' column names (expression parts are skipped)
  bool if_not_exists = false;
};

// The table options rowbridge needs; the rest (ENGINE, ROW_FORMAT, COMMENT, ...) are skipped.
struct TableOptions {
  std::string charset;  // lower case, empty = not given; "default" for CHARACTER SET DEFAULT
  std::string collation;
};

enum class ColumnPlace : uint8_t { kDefault, kFirst, kAfter };

struct AlterSpec {
  enum class Kind : uint8_t {
    kAddColumn,            // definition, place, after_column, if_not_exists
    kDropColumn,           // column, if_exists
    kModifyColumn,         // definition (its name is the column), place, if_exists
    kChangeColumn,         // column (old name), definition (new name + type), place, if_exists
    kRenameColumn,         // column -> new_name
    kSetColumnDefault,     // column, default_value
    kDropColumnDefault,    // column
    kSetColumnVisibility,  // column, invisible
    kAddIndex,             // index (PRIMARY KEY included)
    kDropIndex,            // name, if_exists
    kDropPrimaryKey,       //
    kDropForeignKey,       // name, if_exists
    kDropConstraint,       // name (CHECK or any constraint), if_exists
    kRenameIndex,          // name -> new_name
    kRenameTable,          // new_table
    kConvertCharset,       // options.charset / options.collation: every text column converted
    kTableOptions,         // options (default charset/collation for new columns)
    kPartition,            // partition maintenance; changes_rows says whether rows vanish/move
    kNoSchemaEffect,       // ALGORITHM=, LOCK=, FORCE, ENABLE KEYS, ORDER BY, index visibility ...
  };
  Kind kind = Kind::kNoSchemaEffect;
  std::string column;
  ColumnSpec definition;
  ColumnPlace place = ColumnPlace::kDefault;
  std::string after_column;
  std::string name;
  std::string new_name;
  std::optional<std::string> default_value;
  bool invisible = false;
  IndexSpec index;
  TableRef new_table;
  TableOptions options;
  bool if_exists = false;
  bool if_not_exists = false;
  // Partition specs that remove or move rows without row events (DROP/TRUNCATE/EXCHANGE
  // PARTITION): the target's copy of the table no longer matches the source.
  bool changes_rows = false;
  std::string verb;  // "ADD COLUMN", "ALGORITHM", ... for rendering and messages
};

struct CreateTable {
  TableRef table;
  bool temporary = false;
  bool or_replace = false;
  bool if_not_exists = false;
  std::optional<TableRef> like;  // CREATE TABLE t LIKE s
  // CREATE TABLE ... [AS] SELECT: columns listed (if any) come first, the SELECT adds more that
  // only the server knows. With row-based logging servers log the resolved CREATE TABLE instead.
  bool as_select = false;
  std::vector<ColumnSpec> columns;
  std::vector<IndexSpec> indexes;
  TableOptions options;
};

struct AlterTable {
  TableRef table;
  bool if_exists = false;
  std::vector<AlterSpec> specs;
  std::string verb = "ALTER TABLE";  // or CREATE INDEX / DROP INDEX, which arrive as one spec
};

struct RenameTables {
  std::vector<std::pair<TableRef, TableRef>> renames;  // applied in order, atomically
};

struct DropTables {
  std::vector<TableRef> tables;
  bool temporary = false;
  bool if_exists = false;
};

struct TruncateTable {
  TableRef table;
};

struct CreateDatabase {
  std::string database;
  bool if_not_exists = false;
  bool or_replace = false;
  TableOptions options;  // default charset/collation
};

struct AlterDatabase {
  std::string database;
  TableOptions options;
};

struct DropDatabase {
  std::string database;
  bool if_exists = false;
};

// Recognised, and changes no table's columns: GRANT, CREATE USER, views, triggers, routines,
// transactions, SET, ANALYZE ..., and statement-based DML (INSERT/REPLACE/UPDATE/DELETE, also after
// a WITH clause, and LOAD DATA: is_dml; the pipeline's ClassifyStatement names the tables it
// writes).
struct NoTableChange {
  std::string verb;  // upper case, e.g. "GRANT", "CREATE VIEW", "INSERT"
  bool is_dml = false;
};

using DdlStatement = std::variant<CreateTable, AlterTable, RenameTables, DropTables, TruncateTable,
                                  CreateDatabase, AlterDatabase, DropDatabase, NoTableChange>;

}  // namespace rowbridge::schema
