// The `target` of a table rule: where a matched source table goes.
//
// Syntax: "table" or "db.table", split at one unquoted dot, where `{db}` and `{table}` stand for
// the source table's database and name, and backticks quote literally (`a.b` is one name, and
// inside backticks braces are plain characters). A name without a database lives in
// `target.database`. Examples: "{table}" (the default), "{db}_{table}", "archive.{table}",
// "bifrost_test.binlog_field_test_1" (many tables merged into one).
#pragma once

#include <string>
#include <string_view>

namespace rowbridge::config {

struct QualifiedName {
  std::string database;
  std::string table;
  bool operator==(const QualifiedName&) const = default;
};

// Throws Error(kInvalidArgument) if `text` is not a valid target (unknown placeholder such as
// {schema}, an unclosed brace or backtick, more than one dot, an empty part).
void ValidateTargetTemplate(std::string_view text);

// True if `text` contains {db} or {table}, i.e. different source tables may land in different
// targets.
bool TargetHasPlaceholders(std::string_view text);

// Expands a valid template for one source table.
QualifiedName ExpandTarget(std::string_view text, std::string_view default_database,
                           std::string_view source_db, std::string_view source_table);

}  // namespace rowbridge::config
