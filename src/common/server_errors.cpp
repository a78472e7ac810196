#include "common/server_errors.h"

#include <algorithm>
#include <array>

namespace rowbridge {

namespace {

// MySQL and MariaDB (server and client-side codes the server may relay). Not here, on purpose:
// 1153 ER_NET_PACKET_TOO_LARGE (the same packet is too large again) and 1236 (the binlog the
// replica asks for is gone).
constexpr std::array kMysql = {
    TransientServerError{1040, "ER_CON_COUNT_ERROR"},  // too many connections
    TransientServerError{1053, "ER_SERVER_SHUTDOWN"},
    TransientServerError{1077, "ER_NORMAL_SHUTDOWN"},
    TransientServerError{1152, "ER_ABORTING_CONNECTION"},
    TransientServerError{1154, "ER_NET_READ_ERROR_FROM_PIPE"},
    TransientServerError{1155, "ER_NET_FCNTL_ERROR"},
    TransientServerError{1156, "ER_NET_PACKETS_OUT_OF_ORDER"},
    TransientServerError{1157, "ER_NET_UNCOMPRESS_ERROR"},
    TransientServerError{1158, "ER_NET_READ_ERROR"},
    TransientServerError{1159, "ER_NET_READ_INTERRUPTED"},
    TransientServerError{1160, "ER_NET_ERROR_ON_WRITE"},
    TransientServerError{1161, "ER_NET_WRITE_INTERRUPTED"},
    TransientServerError{1203, "ER_TOO_MANY_USER_CONNECTIONS"},
    TransientServerError{1205, "ER_LOCK_WAIT_TIMEOUT"},
    TransientServerError{1213, "ER_LOCK_DEADLOCK"},
    TransientServerError{1317, "ER_QUERY_INTERRUPTED"},
    TransientServerError{1927, "ER_CONNECTION_KILLED"},  // MariaDB
    TransientServerError{1969, "ER_STATEMENT_TIMEOUT"},  // MariaDB max_statement_time
    TransientServerError{2006, "CR_SERVER_GONE_ERROR"},
    TransientServerError{2013, "CR_SERVER_LOST"},
    TransientServerError{3024, "ER_QUERY_TIMEOUT"},  // MySQL max_execution_time
    TransientServerError{4031, "ER_CLIENT_INTERACTION_TIMEOUT"},
};

// ClickHouse exception codes. Not here, on purpose: 164 READONLY (the user's readonly setting
// does not change by itself).
constexpr std::array kClickHouse = {
    TransientServerError{3, "UNEXPECTED_END_OF_FILE"},
    TransientServerError{23, "CANNOT_READ_FROM_ISTREAM"},
    TransientServerError{24, "CANNOT_WRITE_TO_OSTREAM"},
    TransientServerError{32, "ATTEMPT_TO_READ_AFTER_EOF"},
    TransientServerError{159, "TIMEOUT_EXCEEDED"},
    TransientServerError{202, "TOO_MANY_SIMULTANEOUS_QUERIES"},
    TransientServerError{203, "NO_FREE_CONNECTION"},
    TransientServerError{209, "SOCKET_TIMEOUT"},
    TransientServerError{210, "NETWORK_ERROR"},
    TransientServerError{236, "ABORTED"},
    TransientServerError{241, "MEMORY_LIMIT_EXCEEDED"},
    TransientServerError{242, "TABLE_IS_READ_ONLY"},
    TransientServerError{252, "TOO_MANY_PARTS"},
    // A shard none of whose replicas answers (Distributed insert, ON CLUSTER): one restarting.
    TransientServerError{279, "ALL_CONNECTION_TRIES_FAILED"},
    TransientServerError{285, "TOO_FEW_LIVE_REPLICAS"},
    // An insert_quorum insert (the cluster's state table) while the previous one still waits.
    TransientServerError{286, "UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE"},
    TransientServerError{319, "UNKNOWN_STATUS_OF_INSERT"},
    TransientServerError{394, "QUERY_WAS_CANCELLED"},
    TransientServerError{425, "SYSTEM_ERROR"},
    TransientServerError{439, "CANNOT_SCHEDULE_TASK"},
    TransientServerError{473, "DEADLOCK_AVOIDED"},
    TransientServerError{517, "CANNOT_ASSIGN_ALTER"},
    TransientServerError{999, "KEEPER_EXCEPTION"},
};

}  // namespace

std::span<const TransientServerError> TransientServerErrors(ServerKind kind) {
  if (kind == ServerKind::kMysql) return kMysql;
  return kClickHouse;
}

bool IsTransientServerError(ServerKind kind, int code) {
  const auto table = TransientServerErrors(kind);
  return std::binary_search(
      table.begin(), table.end(), TransientServerError{code, {}},
      [](const TransientServerError& a, const TransientServerError& b) { return a.code < b.code; });
}

}  // namespace rowbridge
