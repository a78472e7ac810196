// The names a replay is about to create. After a crash, `rowbridge run` resumes from its last
// checkpoint C and reads the binlog again from there, so the source tables that the statements
// between C and the source's end create (CREATE TABLE, RENAME TABLE ... TO, ALTER TABLE ... RENAME
// TO) are the stream's: the replay meets their creation and follows them from it, as it did before
// the crash. They exist on the source now, but must be neither copied as tables matched later
// (the stream may already have written their rows, with the versions the replay hands out again)
// nor given their present columns at C (where they do not exist yet).
//
// Read with SHOW BINLOG EVENTS, 1000 events at a time (paged by each event's Pos), from C to the
// end of the newest binlog.
// Statements the DDL parser cannot read are skipped (the stream reports them itself when it meets
// them). A checkpoint file the source no longer has gives an empty set: the stream fails on it
// with its own message.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "mysql/connection.h"
#include "tables/source_schema.h"

namespace rowbridge::tables {

std::set<SourceTableName> TablesCreatedSince(mysql::Connection& source, const std::string& file,
                                             uint64_t position);

}  // namespace rowbridge::tables
