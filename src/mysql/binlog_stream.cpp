#include "mysql/binlog_stream.h"

#include "common/error.h"
#include "mysql/messages.h"
#include "mysql/payload_writer.h"
#include "mysql/protocol.h"
#include "mysql/sql_quote.h"

namespace rowbridge::mysql {
namespace {

constexpr uint16_t kDumpNonBlock = 0x01;
constexpr uint16_t kDumpThroughGtid = 0x04;
// @mariadb_slave_capability: we understand GTID events (MARIA_SLAVE_CAPABILITY_GTID).
constexpr int kMariadbCapabilityGtid = 4;

}  // namespace

std::string BuildRegisterReplica(uint32_t server_id, std::string_view report_host, uint16_t port) {
  PayloadWriter w;
  std::string_view host = report_host.substr(0, 60);
  w.U8(kComRegisterSlave).U32(server_id);
  w.U8(static_cast<uint8_t>(host.size())).Raw(host);
  w.U8(0);  // user
  w.U8(0);  // password
  w.U16(port).U32(0 /* replication rank */).U32(0 /* master id */);
  return w.bytes();
}

std::string BuildBinlogDump(uint32_t server_id, std::string_view file, uint32_t position,
                            bool non_blocking) {
  PayloadWriter w;
  w.U8(kComBinlogDump).U32(position).U16(non_blocking ? kDumpNonBlock : 0).U32(server_id);
  w.Raw(file);
  return w.bytes();
}

std::string BuildBinlogDumpGtid(uint32_t server_id, const MysqlGtidSet& gtids, bool non_blocking) {
  std::string encoded = gtids.Encode();
  PayloadWriter w;
  w.U8(kComBinlogDumpGtid)
      .U16(static_cast<uint16_t>((non_blocking ? kDumpNonBlock : 0) | kDumpThroughGtid))
      .U32(server_id);
  w.U32(0);  // file name length: the GTID set decides where to start
  w.U64(4);  // position
  w.U32(static_cast<uint32_t>(encoded.size())).Raw(encoded);
  return w.bytes();
}

std::unique_ptr<BinlogStream> BinlogStream::Start(std::unique_ptr<Connection> connection,
                                                  const BinlogStreamOptions& options) {
  std::unique_ptr<BinlogStream> stream(new BinlogStream(std::move(connection), options));
  stream->Setup();
  if (options.register_replica) stream->Register();
  stream->RequestDump();
  return stream;
}

BinlogStream::BinlogStream(std::unique_ptr<Connection> connection,
                           const BinlogStreamOptions& options)
    : connection_(std::move(connection)),
      options_(options),
      silence_limit_(options.heartbeat_period * std::max(1, options.silence_multiple)) {
  // server_id 0 is what mysqlbinlog sends for a one-off read: neither server registers it nor
  // disconnects another dump for it, so it is allowed only for such a read.
  if (options_.server_id == 0 && (!options_.non_blocking || options_.register_replica)) {
    Fail(ErrorCode::kConfig,
         "binlog stream from {}: our replica server_id must be non-zero (set server_id)",
         connection_->peer());
  }
  if (options_.heartbeat_period.count() <= 0) {
    Fail(ErrorCode::kConfig, "binlog stream from {}: heartbeat period must be positive",
         connection_->peer());
  }
  const bool mariadb = connection_->is_mariadb();
  if (options_.mode == BinlogStartMode::kMysqlGtid && mariadb) {
    Fail(ErrorCode::kConfig,
         "binlog stream from {}: the source is MariaDB; start from a MariaDB GTID position "
         "(domain-server-sequence), not a MySQL GTID set",
         connection_->peer());
  }
  if (options_.mode == BinlogStartMode::kMariadbGtid && !mariadb) {
    Fail(ErrorCode::kConfig,
         "binlog stream from {}: the source is MySQL; start from a MySQL GTID set "
         "(uuid:intervals), not a MariaDB GTID position",
         connection_->peer());
  }
}

void BinlogStream::Setup() {
  Connection& c = *connection_;
  try {
    checksum_ = c.QueryValue("SELECT @@global.binlog_checksum").value_or("NONE");
  } catch (const Error& e) {
    if (e.server_code() != 1193) throw;  // unknown variable: a server older than checksums
    checksum_ = "NONE";
  }
  if (checksum_ != "NONE" && checksum_ != "CRC32") {
    Fail(ErrorCode::kUnsupported, "binlog stream from {}: binlog_checksum={} is not supported",
         c.peer(), checksum_);
  }
  // Without this the source refuses to send checksummed events to a replica that did not say it
  // understands them.
  c.Execute("SET @master_binlog_checksum = @@global.binlog_checksum");
  const auto period_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(options_.heartbeat_period).count();
  c.Execute(fmt::format("SET @master_heartbeat_period = {}", period_ns));
  if (c.is_mariadb()) {
    c.Execute(fmt::format("SET @mariadb_slave_capability = {}", kMariadbCapabilityGtid));
    if (options_.mode == BinlogStartMode::kMariadbGtid) {
      c.Execute(fmt::format("SET @slave_connect_state = {}",
                            QuoteString(options_.mariadb_gtids.ToString())));
      c.Execute(fmt::format("SET @slave_gtid_strict_mode = {}",
                            options_.mariadb_gtid_strict_mode ? 1 : 0));
      c.Execute("SET @slave_gtid_ignore_duplicates = 0");
    }
  }
}

void BinlogStream::Register() {
  Connection& c = *connection_;
  c.SendCommand(BuildRegisterReplica(options_.server_id, options_.report_host, 0));
  std::string_view reply = c.channel().ReadPacket();
  if (IsErr(reply)) ThrowServerError(reply, c.peer(), "registering as a replica");
  if (reply.empty() || static_cast<uint8_t>(reply[0]) != kOkMarker) {
    Fail(ErrorCode::kProtocol, "MySQL server {} did not answer COM_REGISTER_SLAVE with OK",
         c.peer());
  }
}

void BinlogStream::RequestDump() {
  Connection& c = *connection_;
  switch (options_.mode) {
    case BinlogStartMode::kFilePosition:
      if (options_.position > UINT32_MAX) {
        Fail(ErrorCode::kUnsupported,
             "binlog stream from {}: position {} in {} is beyond 4 GiB, which COM_BINLOG_DUMP "
             "cannot express; start from a GTID position instead",
             c.peer(), options_.position, options_.file);
      }
      c.SendCommand(BuildBinlogDump(options_.server_id, options_.file,
                                    static_cast<uint32_t>(options_.position),
                                    options_.non_blocking));
      break;
    case BinlogStartMode::kMariadbGtid:
      // The source starts from @slave_connect_state; file and position are ignored.
      c.SendCommand(BuildBinlogDump(options_.server_id, "", 4, options_.non_blocking));
      break;
    case BinlogStartMode::kMysqlGtid:
      c.SendCommand(
          BuildBinlogDumpGtid(options_.server_id, options_.mysql_gtids, options_.non_blocking));
      break;
  }
  c.tcp().set_read_timeout(silence_limit_);
}

bool BinlogStream::StartedInsideAnEvent(const Error& error) const {
  // Before the first real event only the fake ROTATE and the FORMAT_DESCRIPTION have come. The
  // servers word a read at a non-boundary as a too-large, truncated or bogus event (MariaDB: "log
  // event entry exceeded max_allowed_packet" or "binlog truncated in the middle of event", MySQL:
  // "bogus data in log event"); a purged or missing
  // file is also error 1236 and keeps its own message.
  constexpr int kMasterFatalReadingBinlog = 1236;
  if (options_.mode != BinlogStartMode::kFilePosition || events_read_ > 2 ||
      error.server_code() != kMasterFatalReadingBinlog) {
    return false;
  }
  const std::string_view text = error.what();
  return text.find("max_allowed_packet") != std::string_view::npos ||
         text.find("truncated in the middle of event") != std::string_view::npos ||
         text.find("bogus data") != std::string_view::npos ||
         text.find("event too small") != std::string_view::npos;
}

std::optional<std::string_view> BinlogStream::Next() {
  if (ended_) return std::nullopt;
  Connection& c = *connection_;
  std::string_view packet;
  try {
    packet = c.channel().ReadPacket();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kTimeout) {
      Fail(ErrorCode::kTimeout,
           "binlog stream from {}: no event and no heartbeat for {} ms (heartbeat period {} ms); "
           "the source, its dump thread or the network is gone",
           c.peer(), silence_limit_.count(), options_.heartbeat_period.count());
    }
    if (e.code() == ErrorCode::kNetwork) {
      Fail(ErrorCode::kNetwork, "binlog stream from {} lost after {} events: {}", c.peer(),
           events_read_, e.what());
    }
    throw;
  }
  if (packet.empty()) {
    Fail(ErrorCode::kProtocol, "binlog stream from {}: empty packet", c.peer());
  }
  const uint8_t first = static_cast<uint8_t>(packet[0]);
  if (first == kOkMarker) {
    ++events_read_;
    return packet.substr(1);
  }
  if (first == kErrMarker) {
    try {
      ThrowServerError(packet, c.peer(), "streaming the binlog");
    } catch (const Error& e) {
      if (!StartedInsideAnEvent(e)) throw;
      throw e.WithMessage(fmt::format(
          "binlog stream from {}: position {} in {} is not an event boundary (the server could "
          "not read an event there); start from a position SHOW BINLOG EVENTS IN '{}' lists, or "
          "from a GTID. The server said: {}",
          c.peer(), options_.position, options_.file, options_.file, e.what()));
    }
  }
  if (first == kEofMarker && packet.size() < 9) {
    ended_ = true;
    return std::nullopt;
  }
  Fail(ErrorCode::kProtocol, "binlog stream from {}: unexpected packet starting with 0x{:02x}",
       c.peer(), first);
}

}  // namespace rowbridge::mysql
