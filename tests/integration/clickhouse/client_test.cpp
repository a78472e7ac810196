// The native-protocol client against a real ClickHouse (the shared test server: 18.16 in CI).
#include "clickhouse/client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "common/error.h"
#include "support/clickhouse_options.h"
#include "support/expect_error.h"
#include "support/test_servers.h"
#include "tcp_proxy.h"

namespace rowbridge::clickhouse {
namespace {

using ::rowbridge::testing::ErrorOf;

using testing::ClickHouseAddress;

const CompressionMethod kAllMethods[] = {CompressionMethod::kNone, CompressionMethod::kLz4,
                                         CompressionMethod::kZstd};

class ClickHouseClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ROWBRIDGE_REQUIRE_CLICKHOUSE();
    server_ = testing::ClickHouseFromEnv();
  }
  // A fresh database for this test, dropped at the end.
  std::string MakeDatabase(Client& client) {
    database_ = testing::UniqueName("rb_chp");
    client.Execute("CREATE DATABASE " + database_);
    return database_;
  }
  void TearDown() override {
    if (!database_.empty())
      testing::RunClickHouseSql(server_, "DROP DATABASE IF EXISTS " + database_);
  }

  ClickHouseAddress server_;
  std::string database_;
};

TEST_F(ClickHouseClientTest, HelloNegotiatesRevisionAndPings) {
  Client client(testing::ClickHouseClientOptions(server_));
  const ServerInfo& info = client.server();
  EXPECT_EQ(info.name, "ClickHouse");
  EXPECT_GT(info.version_major, 0u);
  EXPECT_GT(info.revision, 54000u);
  EXPECT_EQ(info.negotiated_revision, std::min<uint64_t>(kClientRevision, info.revision));
  EXPECT_FALSE(info.timezone.empty());  // every server since 54058 sends it
  EXPECT_TRUE(info.AtLeast(info.version_major, info.version_minor, info.version_patch));
  EXPECT_FALSE(info.AtLeast(info.version_major + 1, 0));
  for (int i = 0; i < 3; ++i) client.Ping();
  // The version the server reports in SQL matches its Hello.
  std::string version;
  client.Select("SELECT version()", [&](Block& b) {
    version = std::string(As<ColumnString>(b.At(0)).At(0));
    return true;
  });
  EXPECT_EQ(version.rfind(info.Version(), 0), 0u) << version << " vs " << info.Version();
}

TEST_F(ClickHouseClientTest, SelectsAMillionRowsWithEveryCompression) {
  Client client(testing::ClickHouseClientOptions(server_));
  for (CompressionMethod method : kAllMethods) {
    QueryOptions options;
    options.compression = method;
    uint64_t expected = 0;
    bool in_order = true;
    QueryResult result = client.Select(
        "SELECT number FROM system.numbers LIMIT 1000000",
        [&](Block& block) {
          EXPECT_EQ(block.ColumnCount(), 1u);
          EXPECT_EQ(block.Name(0), "number");
          const auto& column = As<ColumnUInt64>(block.At(0));
          for (size_t i = 0; i < column.Size(); ++i) in_order &= column.At(i) == expected++;
          return true;
        },
        options);
    EXPECT_TRUE(in_order) << CompressionMethodName(method);
    EXPECT_EQ(expected, 1000000u) << CompressionMethodName(method);
    EXPECT_EQ(result.rows, 1000000u);
    EXPECT_GT(result.blocks, 1u);
    EXPECT_GE(result.progress.read_rows, 1000000u) << CompressionMethodName(method);
    ASSERT_TRUE(result.profile_info.has_value());
    EXPECT_EQ(result.profile_info->rows, 1000000u);
  }
}

TEST_F(ClickHouseClientTest, ServerExceptionsComeBackWholeAndTheClientRecovers) {
  Client client(testing::ClickHouseClientOptions(server_));
  struct Case {
    const char* sql;
    int code;
    const char* fragment;
  };
  const Case cases[] = {
      {"SELECT * FROM default.rowbridge_no_such_table", 60, "rowbridge_no_such_table"},
      {"SELEC 1", 62, "Syntax error"},
      {"SELECT 1 + 'a'", 43, "plus"},                         // ILLEGAL_TYPE_OF_ARGUMENT
      {"SELECT toUInt8('not a number')", 6, "not a number"},  // CANNOT_PARSE_TEXT
  };
  for (const Case& c : cases) {
    for (CompressionMethod method : kAllMethods) {
      QueryOptions options;
      options.compression = method;
      Error e = ErrorOf([&] { client.Execute(c.sql, options); });
      EXPECT_EQ(e.code(), ErrorCode::kServer) << c.sql << ": " << e.what();
      EXPECT_EQ(e.server_code(), c.code) << c.sql << ": " << e.what();
      std::string what = e.what();
      EXPECT_NE(what.find(fmt::format("Code: {}. DB::Exception: ", c.code)), std::string::npos)
          << what;
      EXPECT_NE(what.find(c.fragment), std::string::npos) << what;
      EXPECT_NE(what.find(client.peer()), std::string::npos) << what;
      EXPECT_EQ(what.find("Stack trace"), std::string::npos) << what;
      // The connection is replaced after a server exception; the next call reconnects.
      EXPECT_FALSE(client.connected());
      client.Ping();
      EXPECT_TRUE(client.connected());
    }
  }
}

TEST_F(ClickHouseClientTest, WrongPasswordIsAServerError) {
  ClientOptions options = testing::ClickHouseClientOptions(server_);
  options.user = server_.auth_user;
  options.password = "definitely-not-the-password";
  Error e = ErrorOf([&] { Client client(options); });
  EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
  EXPECT_NE(e.server_code(), 0) << e.what();
  options.password = server_.auth_password;
  Client client(options);
  client.Ping();
}

TEST_F(ClickHouseClientTest, SettingsAndQueryIdReachTheServer) {
  Client client(testing::ClickHouseClientOptions(server_));
  QueryOptions options;
  options.query_id = testing::UniqueName("rb_query");
  options.settings.SetUInt("max_block_size", 1234)
      .SetText("distributed_product_mode", "local")
      .SetInt("network_zstd_compression_level", 3);
  std::string rows;
  client.Select(
      "SELECT name, value FROM system.settings WHERE name IN ('max_block_size', "
      "'distributed_product_mode', 'network_zstd_compression_level') ORDER BY name",
      [&](Block& b) {
        for (size_t i = 0; i < b.RowCount(); ++i) {
          rows += std::string(As<ColumnString>(b.At(0)).At(i)) + "=" +
                  std::string(As<ColumnString>(b.At(1)).At(i)) + ";";
        }
        return true;
      },
      options);
  EXPECT_EQ(rows,
            "distributed_product_mode=local;max_block_size=1234;"
            "network_zstd_compression_level=3;");
  uint64_t seen = 0;
  client.Select(
      "SELECT count() FROM system.processes WHERE query_id = '" + options.query_id + "'",
      [&](Block& b) {
        seen = As<ColumnUInt64>(b.At(0)).At(0);
        return true;
      },
      options);
  EXPECT_EQ(seen, 1u);
  QueryOptions unknown;
  unknown.settings.SetUInt("rowbridge_no_such_setting", 1);
  Error e = ErrorOf([&] { client.Execute("SELECT 1", unknown); });
  EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
  EXPECT_EQ(e.server_code(), 115) << e.what();  // UNKNOWN_SETTING
  client.Ping();
}

TEST_F(ClickHouseClientTest, TotalsExtremesAndLogs) {
  Client client(testing::ClickHouseClientOptions(server_));
  QueryOptions options;
  options.settings.SetUInt("extremes", 1).SetText("send_logs_level", "trace");
  size_t log_blocks = 0;
  client.set_log_handler([&](const Block& block) {
    ++log_blocks;
    bool has_text = false;
    for (size_t i = 0; i < block.ColumnCount(); ++i) has_text |= block.Name(i) == "text";
    EXPECT_TRUE(has_text);
  });
  QueryResult result = client.Select(
      "SELECT number % 3 AS k, count() AS c FROM numbers(100) GROUP BY k WITH TOTALS ORDER BY k",
      [](Block&) { return true; }, options);
  EXPECT_EQ(result.rows, 3u);
  ASSERT_TRUE(result.totals.has_value());
  EXPECT_EQ(result.totals->RowCount(), 1u);
  EXPECT_EQ(As<ColumnUInt64>(result.totals->Get("c")).At(0), 100u);
  ASSERT_TRUE(result.extremes.has_value());
  EXPECT_EQ(result.extremes->RowCount(), 2u);
  EXPECT_GT(log_blocks, 0u);
  client.Ping();
}

TEST_F(ClickHouseClientTest, CancelledSelectLeavesTheConnectionUsable) {
  Client client(testing::ClickHouseClientOptions(server_));
  for (CompressionMethod method : kAllMethods) {
    QueryOptions options;
    options.compression = method;
    int blocks = 0;
    client.Select(
        "SELECT number FROM system.numbers",  // endless
        [&](Block&) { return ++blocks < 3; }, options);
    EXPECT_EQ(blocks, 3);
    client.Ping();
    uint64_t one = 0;
    client.Select("SELECT toUInt64(1)", [&](Block& b) {
      one = As<ColumnUInt64>(b.At(0)).At(0);
      return true;
    });
    EXPECT_EQ(one, 1u);
  }
}

Block MakeRows(const Block& header, uint64_t first, uint64_t count) {
  Block block = header.EmptyLike();
  auto& ids = As<ColumnUInt64>(block.Get("id"));
  auto& names = As<ColumnString>(block.Get("name"));
  for (uint64_t i = first; i < first + count; ++i) {
    ids.Append(i);
    names.Append(fmt::format("name-{}-{}", i, std::string(i % 13, 'x')));
  }
  return block;
}

TEST_F(ClickHouseClientTest, InsertsIntoMergeTreeWithEveryCompression) {
  Client client(testing::ClickHouseClientOptions(server_));
  const std::string db = MakeDatabase(client);
  for (CompressionMethod method : kAllMethods) {
    const std::string table = fmt::format("{}.t_{}", db, CompressionMethodName(method));
    client.Execute("CREATE TABLE " + table +
                   " (id UInt64, name String) ENGINE = MergeTree ORDER BY id");
    QueryOptions options;
    options.compression = method;
    Block header = client.BeginInsert("INSERT INTO " + table + " (id, name) VALUES", options);
    ASSERT_TRUE(client.inserting());
    ASSERT_EQ(header.ColumnCount(), 2u);
    EXPECT_EQ(header.At(0).type_name(), "UInt64");
    EXPECT_EQ(header.At(1).type_name(), "String");
    EXPECT_EQ(header.RowCount(), 0u);
    // 3 x 60k rows: each block (about 1.7 MB) spans two 1 MiB compressed frames.
    for (uint64_t b = 0; b < 3; ++b) client.SendBlock(MakeRows(header, b * 60000, 60000));
    QueryResult result = client.EndInsert();
    EXPECT_FALSE(client.inserting());
    if (client.server().negotiated_revision >= kRevisionWithClientWriteInfo) {
      EXPECT_EQ(result.progress.written_rows, 180000u);
    }
    // Check with clickhouse-client, independently of our reader.
    std::string check = testing::RunClickHouseSql(
        server_, "SELECT count(), sum(id), sum(length(name)), uniqExact(name) FROM " + table);
    EXPECT_EQ(check, "180000\t16199910000\t" + std::to_string([] {
                       uint64_t total = 0;
                       for (uint64_t i = 0; i < 180000; ++i) {
                         total += fmt::format("name-{}-", i).size() + i % 13;
                       }
                       return total;
                     }()) +
                         "\t180000\n")
        << CompressionMethodName(method);
  }
}

// An all_or_nothing INSERT in several blocks lands as one part when ended, and not at all when
// the connection ends between its blocks (a crash), while a plain one has its received blocks
// written then: the copy's units rely on both (snapshot/snapshot_runner.cpp).
TEST_F(ClickHouseClientTest, AllOrNothingInsertIsOnePartOrNothing) {
  Client admin(testing::ClickHouseClientOptions(server_));
  const std::string db = MakeDatabase(admin);
  // Rows of `table` once no query of `query_id` runs any more (the server ends an abandoned
  // INSERT on its own time).
  auto rows_after = [&](const std::string& table, const std::string& query_id) {
    for (int i = 0; i < 100; ++i) {
      if (testing::RunClickHouseSql(server_,
                                    "SELECT count() FROM system.processes WHERE "
                                    "query_id = '" +
                                        query_id + "'") == "0\n")
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return testing::RunClickHouseSql(server_, "SELECT count() FROM " + table);
  };
  int n = 0;
  for (CompressionMethod method : kAllMethods) {
    SCOPED_TRACE(CompressionMethodName(method));
    for (bool all_or_nothing : {true, false}) {
      for (bool ended : {true, false}) {
        if (!all_or_nothing && ended) continue;
        const std::string table = fmt::format("{}.t{}", db, n++);
        admin.Execute("CREATE TABLE " + table +
                      " (id UInt64, name String) ENGINE = MergeTree ORDER BY id");
        QueryOptions options;
        options.compression = method;
        options.all_or_nothing = all_or_nothing;
        options.query_id = testing::UniqueName("rb_aon");
        {
          Client client(testing::ClickHouseClientOptions(server_));
          Block header = client.BeginInsert("INSERT INTO " + table + " VALUES", options);
          for (uint64_t b = 0; b < 3; ++b) client.SendBlock(MakeRows(header, b * 1000, 1000));
          if (ended) client.EndInsert();
        }  // destroyed: the connection ends
        const std::string rows = rows_after(table, options.query_id);
        if (ended) {
          EXPECT_EQ(rows, "3000\n");
          EXPECT_EQ(testing::RunClickHouseSql(
                        server_, "SELECT count() FROM system.parts WHERE active AND database = '" +
                                     db + "' AND table = '" + table.substr(db.size() + 1) + "'"),
                    "1\n");
        } else if (all_or_nothing) {
          EXPECT_EQ(rows, "0\n");
        } else {
          EXPECT_EQ(rows, "3000\n") << "the server no longer writes the blocks of an INSERT "
                                       "whose connection ended; all_or_nothing is not needed";
        }
      }
    }
  }
}

TEST_F(ClickHouseClientTest, InsertErrorsAreReportedAndNothingIsSentForAMismatchedBlock) {
  Client client(testing::ClickHouseClientOptions(server_));
  const std::string db = MakeDatabase(client);
  // Unknown table: the server refuses before asking for data; the connection stays usable.
  Error missing = ErrorOf([&] { client.BeginInsert("INSERT INTO " + db + ".nope VALUES"); });
  EXPECT_EQ(missing.code(), ErrorCode::kServer) << missing.what();
  EXPECT_EQ(missing.server_code(), 60) << missing.what();
  client.Ping();

  client.Execute("CREATE TABLE " + db +
                 ".t (id UInt64, name String) ENGINE = MergeTree ORDER BY id");
  Block header = client.BeginInsert("INSERT INTO " + db + ".t VALUES");
  Block wrong;
  wrong.AddColumn("id", std::make_unique<ColumnString>());
  wrong.AddColumn("name", std::make_unique<ColumnString>());
  As<ColumnString>(wrong.At(0)).Append("1");
  As<ColumnString>(wrong.At(1)).Append("a");
  Error mismatch = ErrorOf([&] { client.SendBlock(wrong); });
  EXPECT_EQ(mismatch.code(), ErrorCode::kInvalidArgument) << mismatch.what();
  EXPECT_TRUE(client.inserting());
  client.SendBlock(MakeRows(header, 0, 10));
  client.EndInsert();
  EXPECT_EQ(testing::RunClickHouseSql(server_, "SELECT count() FROM " + db + ".t"), "10\n");

  // BeginInsert is for INSERTs that take their data from us.
  Error not_insert = ErrorOf([&] { client.BeginInsert("SELECT 1"); });
  EXPECT_EQ(not_insert.code(), ErrorCode::kInvalidArgument) << not_insert.what();
  Error no_data =
      ErrorOf([&] { client.BeginInsert(" /* c */ insert INTO " + db + ".t SELECT 5, 'x'"); });
  EXPECT_EQ(no_data.code(), ErrorCode::kInvalidArgument) << no_data.what();
  EXPECT_TRUE(client.connected());
  client.Ping();
  EXPECT_EQ(testing::RunClickHouseSql(server_, "SELECT count() FROM " + db + ".t"), "11\n");

  // CancelInsert ends an open INSERT; the connection can be used again (if the server ended
  // the query cleanly) or at least reconnected.
  client.BeginInsert("INSERT INTO " + db + ".t VALUES");
  client.CancelInsert();
  EXPECT_FALSE(client.inserting());
  if (!client.connected()) client.Reconnect();
  client.Ping();
}

TEST_F(ClickHouseClientTest, ConnectionCutMidInsertIsAnErrorAndReconnectWorks) {
  Client admin(testing::ClickHouseClientOptions(server_));
  const std::string db = MakeDatabase(admin);
  admin.Execute("CREATE TABLE " + db +
                ".t (id UInt64, name String) ENGINE = MergeTree ORDER BY id");
  testing::TcpProxy proxy(server_.host, server_.port);
  ClientOptions options = testing::ClickHouseClientOptions(server_);
  options.port = proxy.port();
  options.tcp.read_timeout = std::chrono::seconds(10);
  for (CompressionMethod method : kAllMethods) {
    Client client(options);
    QueryOptions query;
    query.compression = method;
    Block header = client.BeginInsert("INSERT INTO " + db + ".t VALUES", query);
    client.SendBlock(MakeRows(header, 0, 1000));
    proxy.CutAll();
    // The next write or the wait for the server's answer must fail; success is never claimed.
    Error e = ErrorOf([&] {
      for (int i = 0; i < 50; ++i) client.SendBlock(MakeRows(header, 1000 + i * 1000, 1000));
      client.EndInsert();
    });
    EXPECT_TRUE(e.code() == ErrorCode::kNetwork || e.code() == ErrorCode::kServer) << e.what();
    EXPECT_FALSE(client.connected());
    EXPECT_FALSE(client.inserting());
    Error closed = ErrorOf([&] { client.Ping(); });
    EXPECT_EQ(closed.code(), ErrorCode::kNetwork) << closed.what();
    EXPECT_TRUE(closed.IsTransient());
    client.Reconnect();
    client.Ping();
    uint64_t n = 0;
    client.Select("SELECT count() FROM system.one", [&](Block& b) {
      n = As<ColumnUInt64>(b.At(0)).At(0);
      return true;
    });
    EXPECT_EQ(n, 1u);
  }
}

TEST_F(ClickHouseClientTest, ReadTimeoutClosesTheConnection) {
  ClientOptions options = testing::ClickHouseClientOptions(server_);
  options.tcp.read_timeout = std::chrono::milliseconds(300);
  Client client(options);
  Error e = ErrorOf([&] { client.Execute("SELECT sleep(2)"); });
  EXPECT_EQ(e.code(), ErrorCode::kTimeout) << e.what();
  EXPECT_FALSE(client.connected());
  client.Reconnect();
  client.Ping();
}

// The first-hour mistake of pointing target.port at the HTTP interface: named within the connect
// timeout, not after the query timeout.
TEST_F(ClickHouseClientTest, TheHttpPortIsNamedWithinTheConnectTimeout) {
  ASSERT_NE(server_.http_port, 0) << "ROWBRIDGE_TEST_CH_HTTP_PORT is not set";
  ClientOptions options = testing::ClickHouseClientOptions(server_);
  options.port = server_.http_port;
  options.tcp.connect_timeout = std::chrono::seconds(2);
  options.tcp.read_timeout = std::chrono::seconds(300);
  const auto started = std::chrono::steady_clock::now();
  Error e = ErrorOf([&] { Client client(options); });
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(6)) << e.what();
  EXPECT_NE(std::string(e.what()).find("native protocol port"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find(std::to_string(server_.http_port)), std::string::npos)
      << e.what();
}

TEST_F(ClickHouseClientTest, ConnectToAClosedPortIsANetworkError) {
  ClientOptions options = testing::ClickHouseClientOptions(server_);
  options.port = 1;  // nothing listens on port 1 on a test machine
  Error e = ErrorOf([&] { Client client(options); });
  EXPECT_EQ(e.code(), ErrorCode::kNetwork) << e.what();
  EXPECT_NE(std::string(e.what()).find("127.0.0.1"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace rowbridge::clickhouse
