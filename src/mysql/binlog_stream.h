// BinlogStream: the replication protocol. Turns an authenticated Connection into a replica's dump
// session and hands out each binlog event as raw bytes (common header, body and, when the source
// writes checksums, the 4-byte checksum), exactly as the source sent them. Decoding events is
// src/binlog's job; heartbeat events (type 27, and MySQL's 41) are delivered like any other.
//
// Start positions: a file and offset (COM_BINLOG_DUMP), a MySQL GTID set of transactions already
// applied (COM_BINLOG_DUMP_GTID), or a MariaDB GTID position (@slave_connect_state).
//
// Liveness: the source is asked for a heartbeat after each `heartbeat_period` without events, and
// a read waits at most heartbeat_period * silence_multiple. A dead source, a killed dump thread or
// a cut network is therefore noticed within that bound, as Error(kTimeout) naming the source and
// how long it was silent, or Error(kNetwork) if the connection dropped. An ERR packet from the
// source is Error(kServer).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "mysql/connection.h"
#include "mysql/gtid_set.h"

namespace rowbridge::mysql {

enum class BinlogStartMode { kFilePosition, kMysqlGtid, kMariadbGtid };

struct BinlogStreamOptions {
  // Our replica server_id: non-zero and different from the source's and its other replicas'; 0
  // only for a one-off read (non_blocking, not register_replica), as mysqlbinlog's.
  uint32_t server_id = 0;

  BinlogStartMode mode = BinlogStartMode::kFilePosition;
  std::string file;                       // kFilePosition; empty = the oldest binlog the source has
  uint64_t position = 4;                  // kFilePosition; 4 = first event after the magic header
  MysqlGtidSet mysql_gtids;               // kMysqlGtid: transactions already applied
  MariadbGtidPosition mariadb_gtids;      // kMariadbGtid: last applied GTID per domain
  bool mariadb_gtid_strict_mode = false;  // @slave_gtid_strict_mode for the dump

  std::chrono::milliseconds heartbeat_period{1000};
  int silence_multiple = 3;  // read timeout = heartbeat_period * silence_multiple

  // Ask the source to end the stream (EOF) at the end of its binlog instead of waiting.
  bool non_blocking = false;
  // COM_REGISTER_SLAVE first, so the source lists us in SHOW SLAVE HOSTS.
  bool register_replica = true;
  std::string report_host = "rowbridge";
};

class BinlogStream {
 public:
  // Sends the session settings (@master_binlog_checksum, @master_heartbeat_period, MariaDB's
  // capability and GTID variables), registers and requests the dump. The connection is owned by
  // the stream from here on: it cannot run queries any more.
  static std::unique_ptr<BinlogStream> Start(std::unique_ptr<Connection> connection,
                                             const BinlogStreamOptions& options);

  // The next event (valid until the next call), or nullopt when a non-blocking dump reached the
  // end of the source's binlog.
  std::optional<std::string_view> Next();

  // The source's @@global.binlog_checksum: "CRC32" (events end in a 4-byte CRC) or "NONE".
  const std::string& checksum() const { return checksum_; }
  std::chrono::milliseconds silence_limit() const { return silence_limit_; }
  uint64_t events_read() const { return events_read_; }
  Connection& connection() { return *connection_; }

 private:
  BinlogStream(std::unique_ptr<Connection> connection, const BinlogStreamOptions& options);
  void Setup();
  void Register();
  void RequestDump();
  // True if `error`, read before any real event, says the start position is inside an event.
  bool StartedInsideAnEvent(const Error& error) const;

  std::unique_ptr<Connection> connection_;
  BinlogStreamOptions options_;
  std::string checksum_ = "NONE";
  std::chrono::milliseconds silence_limit_;
  uint64_t events_read_ = 0;
  bool ended_ = false;
};

// The payloads of the replication commands, exposed for tests.
std::string BuildRegisterReplica(uint32_t server_id, std::string_view report_host, uint16_t port);
std::string BuildBinlogDump(uint32_t server_id, std::string_view file, uint32_t position,
                            bool non_blocking);
std::string BuildBinlogDumpGtid(uint32_t server_id, const MysqlGtidSet& gtids, bool non_blocking);

}  // namespace rowbridge::mysql
