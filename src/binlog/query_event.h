// QUERY_EVENT (and MariaDB's QUERY_COMPRESSED_EVENT, EXECUTE_LOAD_QUERY_EVENT): a statement with
// its default database. Status variables are parsed for what replication needs (flags2, sql_mode,
// charset, MariaDB's xid); an unknown status variable ends their parsing without affecting the
// database and statement, which sit after the status block whose length is known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "binlog/event.h"
#include "binlog/format_description.h"

namespace rowbridge::binlog {

struct QueryEvent {
  uint32_t thread_id = 0;
  uint32_t exec_time = 0;
  uint16_t error_code = 0;
  std::string_view database;
  // The statement. For QUERY_COMPRESSED it points into the `scratch` passed to ParseQueryEvent.
  std::string_view sql;
  std::optional<uint32_t> flags2;
  std::optional<uint64_t> sql_mode;
  std::optional<uint16_t> charset_client, collation_connection, collation_server;
  std::optional<uint64_t> xid;  // MariaDB Q_XID, set on DDL that carries one
  // EXECUTE_LOAD_QUERY only.
  uint32_t load_file_id = 0;
};

// Parses QUERY, QUERY_COMPRESSED and EXECUTE_LOAD_QUERY events.
QueryEvent ParseQueryEvent(const Event& event, const FormatDescription& format,
                           std::string& scratch);

}  // namespace rowbridge::binlog
