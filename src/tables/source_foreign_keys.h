// Reads the source's foreign keys (tables/foreign_keys.h) and whether the source writes the
// changes their cascades make to the binlog.
#pragma once

#include <string>

#include "mysql/connection.h"
#include "tables/foreign_keys.h"

namespace rowbridge::tables {

// Every foreign key of the source's databases (not the server's own), in one query. Throws what
// the connection throws.
ForeignKeyGraph ReadForeignKeys(mysql::Connection& source);

// Whether the changes foreign-key actions make to child rows are in the source's binlog: MySQL
// 9.6 and later run them in the SQL layer and log them as row events of the child tables, unless
// the server was started with innodb_native_foreign_keys=ON; MariaDB and older MySQL never log
// them. `how` (optional) gets a sentence saying which case it is, for messages.
bool SourceLogsCascades(mysql::Connection& source, std::string* how = nullptr);

}  // namespace rowbridge::tables
