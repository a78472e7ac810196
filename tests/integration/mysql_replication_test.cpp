// Replication protocol, source checks and large/streamed results against a MariaDB of the
// suite's own (FLUSH LOGS, SET GLOBAL and SIGSTOP must not touch the shared server), started by
// ScopedMariaDb.
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "binlog/checksum.h"
#include "binlog/event_header.h"
#include "common/byte_reader.h"
#include "common/error.h"
#include "mysql/binlog_stream.h"
#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"

namespace rowbridge::mysql {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr uint8_t kRotateEvent = 4;
constexpr uint8_t kFormatDescriptionEvent = 15;
constexpr uint8_t kHeartbeatEvent = 27;
constexpr uint8_t kMariadbGtidEvent = 162;
constexpr uint8_t kWriteRowsEventV1 = 23;

struct EventHeader {
  uint8_t type = 0;
  uint32_t size = 0;
};

// The type and size from an event's common header (binlog::ReadEventHeader), as plain numbers.
EventHeader ReadHeader(std::string_view event) {
  ByteReader r(event, 0, "event");
  const binlog::EventHeader h = binlog::ReadEventHeader(r);
  return {static_cast<uint8_t>(h.type), h.event_size};
}

// Body of an event without header and checksum.
std::string_view Body(std::string_view event, bool crc) {
  return event.substr(binlog::kEventHeaderSize,
                      event.size() - binlog::kEventHeaderSize - (crc ? 4 : 0));
}

bool ChecksumMatches(std::string_view event) {
  uint32_t stored = ByteReader(event.substr(event.size() - 4)).U32();
  return stored == binlog::Crc32(reinterpret_cast<const uint8_t*>(event.data()), event.size() - 4);
}

long RssKiB() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

class MysqlReplication : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (server_ == nullptr) {
      // Binary logging (ROW, server_id 1) and a max_allowed_packet above 17 MiB are defaults.
      server_ = new testing::ScopedMariaDb({"--log-slave-updates"});
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static ConnectOptions RootOptions() { return testing::MysqlConnectOptions(server_->address()); }
  std::unique_ptr<Connection> Connect() { return Connection::Connect(RootOptions()); }

  BinlogStreamOptions StreamOptions() {
    BinlogStreamOptions o;
    o.server_id = 4242;
    o.heartbeat_period = 500ms;
    return o;
  }

  static testing::ScopedMariaDb* server_;
};
testing::ScopedMariaDb* MysqlReplication::server_ = nullptr;

TEST_F(MysqlReplication, StreamsAcrossRotationWithChecksums) {
  auto admin = Connect();
  admin->Execute("CREATE DATABASE IF NOT EXISTS rb_rot");
  admin->Execute("CREATE TABLE IF NOT EXISTS rb_rot.t (id INT PRIMARY KEY, v VARCHAR(20))");
  BinlogPosition start = CurrentBinlogPosition(*admin);
  ASSERT_FALSE(start.file.empty());

  BinlogStreamOptions o = StreamOptions();
  o.file = start.file;
  o.position = start.position;
  auto stream = BinlogStream::Start(Connect(), o);
  EXPECT_EQ(stream->checksum(), "CRC32");

  admin->Execute("INSERT INTO rb_rot.t VALUES (1, 'before')");
  admin->Execute("FLUSH BINARY LOGS");
  admin->Execute("INSERT INTO rb_rot.t VALUES (2, 'after')");
  BinlogPosition after = CurrentBinlogPosition(*admin);
  ASSERT_NE(after.file, start.file);

  std::vector<std::string> rotations;
  int fde_after_real_rotate = 0;
  int rows_events = 0;
  auto deadline = Clock::now() + 30s;
  while (Clock::now() < deadline && rows_events < 2) {
    auto event = stream->Next();
    ASSERT_TRUE(event.has_value());
    EventHeader h = ReadHeader(*event);
    ASSERT_EQ(h.size, event->size()) << "event type " << int(h.type);
    // The fake ROTATE at the start carries no checksum in old servers; every real event does.
    // MariaDB checksums every event, the fake ROTATE at the start included.
    EXPECT_TRUE(ChecksumMatches(*event)) << int(h.type);
    if (h.type == kRotateEvent) {
      rotations.emplace_back(Body(*event, true).substr(8));
    } else if (h.type == kFormatDescriptionEvent && rotations.size() >= 2) {
      ++fde_after_real_rotate;
    } else if (h.type == kWriteRowsEventV1 || h.type == 30) {
      ++rows_events;
    }
  }
  EXPECT_EQ(rows_events, 2);
  ASSERT_GE(rotations.size(), 2u);
  EXPECT_EQ(rotations.front(), start.file);
  // The ROTATE written by FLUSH names the new file; the fake one after it names it again.
  EXPECT_NE(std::find(rotations.begin(), rotations.end(), after.file), rotations.end());
  EXPECT_GE(fde_after_real_rotate, 1);
}

TEST_F(MysqlReplication, MariadbGtidStartSkipsAppliedTransactionsMariaDbOnly) {
  auto admin = Connect();
  admin->Execute("CREATE DATABASE IF NOT EXISTS rb_gtid");
  admin->Execute("CREATE TABLE IF NOT EXISTS rb_gtid.t (id INT PRIMARY KEY)");
  admin->Execute("REPLACE INTO rb_gtid.t VALUES (1)");
  BinlogPosition applied = CurrentBinlogPosition(*admin);
  ASSERT_FALSE(applied.mariadb_gtids.empty());
  MariadbGtid last = *applied.mariadb_gtids.Find(0);
  admin->Execute("REPLACE INTO rb_gtid.t VALUES (2)");

  BinlogStreamOptions o = StreamOptions();
  o.mode = BinlogStartMode::kMariadbGtid;
  o.mariadb_gtids = applied.mariadb_gtids;
  o.non_blocking = true;
  auto stream = BinlogStream::Start(Connect(), o);
  std::vector<uint64_t> sequences;
  while (auto event = stream->Next()) {
    EventHeader h = ReadHeader(*event);
    if (h.type == kMariadbGtidEvent) {
      ByteReader body(Body(*event, true));
      uint64_t seq = body.U64();
      uint32_t domain = body.U32();
      EXPECT_EQ(domain, 0u);
      sequences.push_back(seq);
    }
  }
  ASSERT_FALSE(sequences.empty()) << "non-blocking GTID dump ended without any transaction";
  EXPECT_EQ(sequences.front(), last.sequence + 1);
}

TEST_F(MysqlReplication, NonBlockingDumpEndsAndHeartbeatsArrive) {
  auto admin = Connect();
  BinlogPosition end = CurrentBinlogPosition(*admin);
  {
    BinlogStreamOptions o = StreamOptions();
    o.file = end.file;
    o.position = end.position;
    o.non_blocking = true;
    auto stream = BinlogStream::Start(Connect(), o);
    int events = 0;
    while (stream->Next()) ++events;
    EXPECT_GE(events, 1);  // at least the fake ROTATE and the FDE
    EXPECT_FALSE(stream->Next().has_value());
  }
  BinlogStreamOptions o = StreamOptions();
  o.file = end.file;
  o.position = end.position;
  o.heartbeat_period = 200ms;
  auto stream = BinlogStream::Start(Connect(), o);
  auto deadline = Clock::now() + 10s;
  bool heartbeat = false;
  while (!heartbeat && Clock::now() < deadline) {
    heartbeat = ReadHeader(*stream->Next()).type == kHeartbeatEvent;
  }
  EXPECT_TRUE(heartbeat);
}

TEST_F(MysqlReplication, KilledDumpIsDetectedWithinTheHeartbeatBound) {
  auto admin = Connect();
  BinlogPosition end = CurrentBinlogPosition(*admin);
  BinlogStreamOptions o = StreamOptions();
  o.file = end.file;
  o.position = end.position;
  o.heartbeat_period = 500ms;
  auto stream = BinlogStream::Start(Connect(), o);
  ASSERT_TRUE(stream->Next().has_value());  // the fake ROTATE: the dump thread is running
  admin->Execute(fmt::format("KILL {}", stream->connection().connection_id()));
  auto killed_at = Clock::now();
  try {
    for (;;) stream->Next();
  } catch (const Error& e) {
    auto waited = Clock::now() - killed_at;
    EXPECT_LE(waited, stream->silence_limit() + 1s) << e.what();
    EXPECT_TRUE(e.code() == ErrorCode::kNetwork || e.code() == ErrorCode::kServer ||
                e.code() == ErrorCode::kTimeout)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(fmt::format("127.0.0.1:{}", server_->address().port)),
              std::string::npos)
        << e.what();
  }
}

// Over TLS without certificate checks (`required`), the server's certificate does not verify
// against any CA we hold, which is allowed. A dump thread killed later must be reported as what it
// is, not as a certificate problem the handshake already accepted.
TEST(MysqlReplicationTls, KilledDumpOverTlsIsNotBlamedOnTheCertificate) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  auto admin = Connection::Connect(o);
  ConnectOptions tls = o;
  tls.tls.mode = TlsMode::kRequired;
  BinlogPosition end = CurrentBinlogPosition(*admin);
  BinlogStreamOptions so;
  so.server_id = 4300 + static_cast<uint32_t>(getpid() % 500);
  so.register_replica = false;
  so.heartbeat_period = 500ms;
  so.file = end.file;
  so.position = end.position;
  auto stream = BinlogStream::Start(Connection::Connect(tls), so);
  ASSERT_TRUE(stream->connection().tls_active());
  ASSERT_TRUE(stream->Next().has_value());  // the fake ROTATE: the dump thread is running
  admin->Execute(fmt::format("KILL {}", stream->connection().connection_id()));
  try {
    for (;;) stream->Next();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("certificate"), std::string::npos) << e.what();
    EXPECT_TRUE(e.IsTransient()) << e.what();
  }
}

TEST_F(MysqlReplication, StartInsideAnEventIsNamedAsSuch) {
  auto admin = Connect();
  admin->Execute("FLUSH BINARY LOGS");
  admin->Execute("CREATE DATABASE IF NOT EXISTS rb_boundary");
  admin->Execute("DROP DATABASE rb_boundary");
  BinlogPosition end = CurrentBinlogPosition(*admin);
  BinlogStreamOptions o = StreamOptions();
  o.file = end.file;
  o.position = 14;  // inside the file's FORMAT_DESCRIPTION (at 4), with events after it
  try {
    auto stream = BinlogStream::Start(Connect(), o);
    for (int i = 0; i < 10; ++i) stream->Next();
    ADD_FAILURE() << "a start inside an event was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  fmt::format("position {} in {} is not an event boundary", o.position, o.file)),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MysqlReplication, SilentSourceTimesOutNamingTheSilence) {
  auto admin = Connect();
  BinlogPosition end = CurrentBinlogPosition(*admin);
  BinlogStreamOptions o = StreamOptions();
  o.file = end.file;
  o.position = end.position;
  o.heartbeat_period = 300ms;
  o.silence_multiple = 3;
  auto stream = BinlogStream::Start(Connect(), o);
  ASSERT_TRUE(stream->Next().has_value());
  pid_t pid = server_->address().pid;
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  auto stopped_at = Clock::now();
  std::string message;
  ErrorCode code = ErrorCode::kInternal;
  try {
    for (;;) stream->Next();
  } catch (const Error& e) {
    message = e.what();
    code = e.code();
  }
  auto waited = Clock::now() - stopped_at;
  kill(pid, SIGCONT);
  EXPECT_EQ(code, ErrorCode::kTimeout) << message;
  EXPECT_LE(waited, 900ms + 1500ms) << message;
  EXPECT_NE(message.find("900 ms"), std::string::npos) << message;
  EXPECT_NE(message.find(fmt::format("127.0.0.1:{}", server_->address().port)), std::string::npos)
      << message;
}

TEST_F(MysqlReplication, SourceCheckAcceptsAGoodSourceAndNamesBadSettings) {
  auto admin = Connect();
  SourceCheckResult good = CheckSource(*admin, 4242);
  EXPECT_TRUE(good.ok()) << fmt::format("{}", fmt::join(good.problems, "\n"));
  EXPECT_EQ(good.facts.flavor,
            testing::MysqlFromEnv().is_mysql() ? Flavor::kMysql : Flavor::kMariaDb);

  SourceCheckResult same = CheckSource(*admin, 1);
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.problems[0].find("server_id 1 equals the source's server_id"), std::string::npos)
      << same.problems[0];

  // Another replica registered with the id we want.
  BinlogPosition end = CurrentBinlogPosition(*admin);
  BinlogStreamOptions other = StreamOptions();
  other.server_id = 777;
  other.report_host = "other-replica";
  other.file = end.file;
  other.position = end.position;
  auto other_stream = BinlogStream::Start(Connect(), other);
  ASSERT_TRUE(other_stream->Next().has_value());
  SourceCheckResult clash = CheckSource(*admin, 777);
  ASSERT_EQ(clash.problems.size(), 1u);
  EXPECT_NE(clash.problems[0].find("(host 'other-replica') already uses server_id 777"),
            std::string::npos)
      << clash.problems[0];
  EXPECT_TRUE(CheckSource(*admin, 777, "other-replica").ok());

  admin->Execute("SET GLOBAL binlog_format = 'STATEMENT'");
  SourceCheckResult statement = CheckSource(*admin, 4242);
  admin->Execute("SET GLOBAL binlog_format = 'ROW'");
  ASSERT_EQ(statement.problems.size(), 1u)
      << fmt::format("{}", fmt::join(statement.problems, "\n"));
  EXPECT_NE(statement.problems[0].find("binlog_format is STATEMENT; set binlog_format=ROW in the "
                                       "server config [mysqld] section"),
            std::string::npos)
      << statement.problems[0];
  try {
    admin->Execute("SET GLOBAL binlog_format = 'MIXED'");
    RequireSourceReady(*admin, 4242);
    ADD_FAILURE() << "MIXED format accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig);
    EXPECT_NE(std::string(e.what()).find("binlog_format is MIXED"), std::string::npos) << e.what();
  }
  admin->Execute("SET GLOBAL binlog_format = 'ROW'");
}

TEST_F(MysqlReplication, UserWithoutGrantsIsToldWhichGrantsAreMissing) {
  const bool mysql = testing::MysqlFromEnv().is_mysql();
  auto admin = Connect();
  admin->Execute("DROP USER IF EXISTS 'rb_nogrant'@'127.0.0.1'");
  admin->Execute("CREATE USER 'rb_nogrant'@'127.0.0.1' IDENTIFIED BY 'pw'");
  ConnectOptions o = RootOptions();
  o.user = "rb_nogrant";
  o.password = "pw";
  {
    auto c = Connection::Connect(o);
    SourceCheckResult r = CheckSource(*c, 4242);
    ASSERT_EQ(r.problems.size(), 2u);
    EXPECT_NE(r.problems[0].find("GRANT REPLICATION SLAVE ON *.*"), std::string::npos)
        << r.problems[0];
    EXPECT_NE(r.problems[1].find(mysql ? "GRANT REPLICATION CLIENT ON *.*"
                                       : "GRANT BINLOG MONITOR ON *.*"),
              std::string::npos)
        << r.problems[1];
  }
  BinlogStreamOptions so = StreamOptions();
  so.register_replica = false;
  try {
    auto stream = BinlogStream::Start(Connection::Connect(o), so);
    stream->Next();
    ADD_FAILURE() << "binlog dump without REPLICATION SLAVE succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
    EXPECT_EQ(e.server_code(), 1227) << e.what();
  }
  admin->Execute(fmt::format("GRANT REPLICATION SLAVE, {} ON *.* TO 'rb_nogrant'@'127.0.0.1'",
                             mysql ? "REPLICATION CLIENT" : "BINLOG MONITOR"));
  auto c = Connection::Connect(o);
  SourceCheckResult r = CheckSource(*c, 4242);
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
}

TEST_F(MysqlReplication, MillionRowQueryStreamsInSmallMemory) {
  auto c = Connect();
  // Warm up the packet buffer and allocator before measuring.
  c->Execute("SELECT seq, REPEAT('x', 100) FROM " + testing::SequenceTable(1000));
  long before = RssKiB();
  ResultSet rs =
      c->Query("SELECT seq, REPEAT('x', 100), NULL FROM " + testing::SequenceTable(1000000));
  uint64_t sum = 0, bytes = 0;
  while (rs.Next()) {
    sum += std::stoull(std::string(rs.Field(0)));
    bytes += rs.Field(1).size();
    ASSERT_TRUE(rs.IsNull(2));
  }
  long growth = RssKiB() - before;
  EXPECT_EQ(rs.rows_read(), 1000000u);
  EXPECT_EQ(sum, 1000000ull * 1000001ull / 2);
  EXPECT_EQ(bytes, 100000000u);
  // The result is ~110 MB; streaming keeps us at one row plus buffers.
  EXPECT_LT(growth, 20 * 1024) << "RSS grew by " << growth << " KiB";
}

TEST_F(MysqlReplication, RowsAndStatementsLargerThan16MiB) {
  auto c = Connect();
  const size_t size = 17 * 1024 * 1024 + 3;
  ResultSet rs = c->Query(fmt::format("SELECT REPEAT('a', {}), 'tail'", size));
  ASSERT_TRUE(rs.Next());
  EXPECT_EQ(rs.Field(0).size(), size);
  EXPECT_EQ(rs.Field(0).find_first_not_of('a'), std::string_view::npos);
  EXPECT_EQ(rs.Field(1), "tail");
  EXPECT_FALSE(rs.Next());
  // A statement over 16 MiB goes out as several packets.
  std::string literal(size, 'b');
  auto length = c->QueryValue("SELECT LENGTH('" + literal + "')");
  EXPECT_EQ(length, std::to_string(size));
  // Exactly 0xffffff bytes in one payload needs the empty terminating packet.
  std::string exact = "SELECT LENGTH('" + std::string(0xffffff - 18, 'c') + "')";
  ASSERT_EQ(exact.size() + 1, 0xffffffu);  // plus the COM_QUERY byte
  EXPECT_EQ(c->QueryValue(exact), std::to_string(0xffffff - 18));
}

TEST(MysqlSourceWithoutBinlog, BinaryLoggingOffIsNamed) {
  testing::ScopedMariaDb server({"--skip-log-bin"});
  auto c = Connection::Connect(testing::MysqlConnectOptions(server.address()));
  SourceCheckResult r = CheckSource(*c, 4242);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.problems[0].find("binary logging is off"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[0].find("set log_bin="), std::string::npos) << r.problems[0];
  try {
    CurrentBinlogPosition(*c);
    ADD_FAILURE() << "position of a server without binlog";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig) << e.what();
    EXPECT_NE(std::string(e.what()).find("log_bin"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rowbridge::mysql
