#include "tables/source_foreign_keys.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/error.h"

namespace rowbridge::tables {

ForeignKeyGraph ReadForeignKeys(mysql::Connection& source) {
  mysql::ResultSet rs = source.Query(
      "SELECT k.TABLE_SCHEMA, k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME, "
      "k.REFERENCED_TABLE_SCHEMA, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, "
      "k.ORDINAL_POSITION, r.DELETE_RULE, r.UPDATE_RULE "
      "FROM information_schema.KEY_COLUMN_USAGE k "
      "JOIN information_schema.REFERENTIAL_CONSTRAINTS r "
      "ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME "
      "AND r.TABLE_NAME = k.TABLE_NAME "
      "WHERE k.REFERENCED_TABLE_NAME IS NOT NULL AND k.TABLE_SCHEMA NOT IN "
      "('mysql', 'information_schema', 'performance_schema', 'sys')");
  std::vector<ForeignKeyColumnRow> rows;
  while (rs.Next()) {
    ForeignKeyColumnRow row;
    auto text = [&](size_t i) { return std::string(rs.Get(i).value_or("")); };
    row.child_database = text(0);
    row.child_table = text(1);
    row.constraint_name = text(2);
    row.child_column = text(3);
    row.parent_database = text(4);
    row.parent_table = text(5);
    row.parent_column = text(6);
    row.position = static_cast<uint32_t>(std::stoul(text(7).empty() ? "0" : text(7)));
    row.delete_rule = text(8);
    row.update_rule = text(9);
    rows.push_back(std::move(row));
  }
  return ForeignKeyGraph(ForeignKeysFromRows(std::move(rows)));
}

bool SourceLogsCascades(mysql::Connection& source, std::string* how) {
  const std::string version = source.server_version();
  auto say = [&](std::string text) {
    if (how != nullptr) *how = std::move(text);
  };
  if (source.is_mariadb()) {
    say(fmt::format("MariaDB {} runs foreign-key actions inside InnoDB and does not log them",
                    version));
    return false;
  }
  int major = 0, minor = 0;
  std::sscanf(version.c_str(), "%d.%d", &major, &minor);
  if (major < 9 || (major == 9 && minor < 6)) {
    say(fmt::format("MySQL {} runs foreign-key actions inside InnoDB and does not log them",
                    version));
    return false;
  }
  std::optional<std::string> native;
  try {
    native = source.QueryValue("SELECT @@GLOBAL.innodb_native_foreign_keys");
  } catch (const Error&) {
    // Not knowing is treated as not logged: a repair of a logged cascade is redundant, not wrong.
    say(fmt::format("MySQL {}: innodb_native_foreign_keys could not be read; treated as not logged",
                    version));
    return false;
  }
  if (native && (*native == "1" || *native == "ON")) {
    say(
        fmt::format("MySQL {} with innodb_native_foreign_keys=ON runs foreign-key actions inside "
                    "InnoDB and does not log them",
                    version));
    return false;
  }
  say(fmt::format("MySQL {} runs foreign-key actions in the SQL layer and logs them", version));
  return true;
}

}  // namespace rowbridge::tables
