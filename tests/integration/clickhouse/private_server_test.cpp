// Client tests that need a ClickHouse of their own (private_clickhouse.h): TLS on the secure
// native port, and the server dying in the middle of an INSERT.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "clickhouse/client.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "common/error.h"
#include "private_clickhouse.h"
#include "support/test_servers.h"

namespace rowbridge::clickhouse {
namespace {

template <typename Fn>
Error ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a rowbridge::Error";
  return Error(ErrorCode::kInternal, "no error");
}

class PrivateClickHouseTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Same gate as the shared-server tests: without the test servers environment these are
    // skipped (or fail under ROWBRIDGE_REQUIRE_SERVERS=1) rather than run half-configured.
    if (testing::MissingClickHouseEnv().empty()) server_ = new testing::PrivateClickHouse();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ROWBRIDGE_REQUIRE_CLICKHOUSE(); }

  static ClientOptions Plain() {
    ClientOptions o;
    o.host = "127.0.0.1";
    o.port = server_->port();
    o.tcp.read_timeout = std::chrono::seconds(30);
    return o;
  }
  static ClientOptions Tls(TlsMode mode) {
    ClientOptions o = Plain();
    o.port = server_->tls_port();
    o.tls.mode = mode;
    o.tls.ca_file = server_->ca_file();
    return o;
  }

  static testing::PrivateClickHouse* server_;
};

testing::PrivateClickHouse* PrivateClickHouseTest::server_ = nullptr;

TEST_F(PrivateClickHouseTest, QueriesAndInsertsOverTls) {
  Client client(Tls(TlsMode::kVerifyIdentity));
  EXPECT_NE(client.TlsDescription(), "");
  client.Ping();
  uint64_t rows = 0;
  client.Select("SELECT number FROM system.numbers LIMIT 300000", [&](Block& b) {
    rows += b.RowCount();
    return true;
  });
  EXPECT_EQ(rows, 300000u);
  client.Execute(
      "CREATE TABLE IF NOT EXISTS default.tls_t (id UInt64) ENGINE = MergeTree ORDER BY id");
  Block block = client.BeginInsert("INSERT INTO default.tls_t VALUES");
  for (uint64_t i = 0; i < 1000; ++i) As<ColumnUInt64>(block.At(0)).Append(i);
  client.SendBlock(block);
  client.EndInsert();
  uint64_t count = 0;
  client.Select("SELECT count() FROM default.tls_t", [&](Block& b) {
    count = As<ColumnUInt64>(b.At(0)).At(0);
    return true;
  });
  EXPECT_EQ(count, 1000u);
}

TEST_F(PrivateClickHouseTest, TlsCertificateChecksAreEnforced) {
  ClientOptions wrong_name = Tls(TlsMode::kVerifyIdentity);
  wrong_name.tls.server_name = "not-this-host.example";
  Error e = ErrorOf([&] { Client client(wrong_name); });
  EXPECT_EQ(e.code(), ErrorCode::kNetwork) << e.what();
  ClientOptions no_ca = Tls(TlsMode::kVerifyCa);
  no_ca.tls.ca_file = "";  // the system store does not know our throwaway CA
  Error e2 = ErrorOf([&] { Client client(no_ca); });
  EXPECT_EQ(e2.code(), ErrorCode::kNetwork) << e2.what();
  // Required (no verification) still encrypts.
  Client client(Tls(TlsMode::kRequired));
  client.Ping();
}

TEST_F(PrivateClickHouseTest, PlainClientOnTheTlsPortFailsCleanly) {
  ClientOptions o = Plain();
  o.port = server_->tls_port();
  o.tcp.read_timeout = std::chrono::seconds(5);
  Error e = ErrorOf([&] { Client client(o); });
  EXPECT_TRUE(e.code() == ErrorCode::kNetwork || e.code() == ErrorCode::kTimeout ||
              e.code() == ErrorCode::kProtocol || e.code() == ErrorCode::kCorruption)
      << e.what();
}

TEST_F(PrivateClickHouseTest, ServerKilledMidInsertIsAnErrorAndReconnectWorksAfterRestart) {
  for (CompressionMethod method :
       {CompressionMethod::kNone, CompressionMethod::kLz4, CompressionMethod::kZstd}) {
    Client client(Plain());
    client.Execute(
        "CREATE TABLE IF NOT EXISTS default.kill_t (id UInt64, s String) "
        "ENGINE = MergeTree ORDER BY id");
    QueryOptions options;
    options.compression = method;
    Block header = client.BeginInsert("INSERT INTO default.kill_t VALUES", options);
    Block block = header.EmptyLike();
    for (uint64_t i = 0; i < 10000; ++i) {
      As<ColumnUInt64>(block.At(0)).Append(i);
      As<ColumnString>(block.At(1)).Append("some text");
    }
    client.SendBlock(block);
    server_->Kill();
    Error e = ErrorOf([&] {
      for (int i = 0; i < 100; ++i) client.SendBlock(block);
      client.EndInsert();
    });
    EXPECT_TRUE(e.IsTransient()) << e.what();
    EXPECT_FALSE(client.connected());
    Error down = ErrorOf([&] { client.Reconnect(); });
    EXPECT_EQ(down.code(), ErrorCode::kNetwork) << down.what();
    server_->Start();
    client.Reconnect();
    client.Ping();
    client.Execute("DROP TABLE default.kill_t");
  }
}

}  // namespace
}  // namespace rowbridge::clickhouse
