// Which compression target.compression means for a host (auto: none on loopback, LZ4 elsewhere),
// and the report host a process registers with on the source.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "config/config.h"
#include "endpoints/connection_options.h"

namespace rowbridge::endpoints {
namespace {

using clickhouse::CompressionMethod;

TEST(PipelineConnectionOptions, LoopbackHosts) {
  for (const char* host : {"127.0.0.1", "127.255.3.4", "localhost", "LocalHost", "localhost.",
                           "::1", "[::1]", "0:0:0:0:0:0:0:1"})
    EXPECT_TRUE(config::IsLoopbackHost(host)) << host;
  for (const char* host :
       {"", "10.0.0.1", "128.0.0.1", "1.127.0.0", "126.255.255.255", "clickhouse.internal",
        "localhost.example.com", "::2", "[::1", "::ffff:127.0.0.1", "127.0.0.1.nip.io"})
    EXPECT_FALSE(config::IsLoopbackHost(host)) << host;
}

TEST(PipelineConnectionOptions, CompressionAutoIsNoneOnlyOnLoopback) {
  config::TargetConfig target;
  EXPECT_EQ(target.compression, config::Compression::kAuto);  // the default
  target.host = "127.0.0.1";
  EXPECT_EQ(TargetCompression(target), CompressionMethod::kNone);
  EXPECT_EQ(TargetClientOptions(target).compression, CompressionMethod::kNone);
  target.host = "ch-1.example.com";
  EXPECT_EQ(TargetCompression(target), CompressionMethod::kLz4);
  EXPECT_EQ(TargetClientOptions(target).compression, CompressionMethod::kLz4);
  // An explicit choice holds on any host.
  for (const char* host : {"127.0.0.1", "ch-1.example.com"}) {
    target.host = host;
    target.compression = config::Compression::kLz4;
    EXPECT_EQ(TargetCompression(target), CompressionMethod::kLz4) << host;
    target.compression = config::Compression::kZstd;
    EXPECT_EQ(TargetCompression(target), CompressionMethod::kZstd) << host;
    target.compression = config::Compression::kNone;
    EXPECT_EQ(TargetCompression(target), CompressionMethod::kNone) << host;
    target.compression = config::Compression::kAuto;
  }
}

// Every query to a cluster target carries the settings that make its inserts synchronous and its
// reads and check queries work over Distributed tables; a single server gets none.
TEST(PipelineConnectionOptions, ClusterSettingsOnlyWithACluster) {
  config::TargetConfig target;
  target.host = "127.0.0.1";
  EXPECT_TRUE(TargetClientOptions(target).settings.empty());
  target.cluster = "main";
  target.query_timeout = std::chrono::seconds(30);
  const clickhouse::QuerySettings s = TargetClientOptions(target).settings;
  ASSERT_NE(s.Find("insert_distributed_sync"), nullptr);
  EXPECT_EQ(s.Find("insert_distributed_sync")->text, "1");
  ASSERT_NE(s.Find("distributed_product_mode"), nullptr);
  EXPECT_EQ(s.Find("distributed_product_mode")->text, "local");
  ASSERT_NE(s.Find("load_balancing"), nullptr);
  EXPECT_EQ(s.Find("load_balancing")->text, "in_order");
  ASSERT_NE(s.Find("distributed_ddl_task_timeout"), nullptr);
  EXPECT_EQ(s.Find("distributed_ddl_task_timeout")->text, "15");  // half of query_timeout
  EXPECT_EQ(s.Find("distributed_ddl_task_timeout")->kind, clickhouse::QuerySettings::Kind::kInt);
}

TEST(EndpointsReportHost, OwnsThisProcessUnlessTheJobRunsWithHa) {
  config::Config config;
  const std::string host = SourceReportHost(config);
  EXPECT_TRUE(host.starts_with("rowbridge/")) << host;
  EXPECT_TRUE(host.ends_with("/" + std::to_string(::getpid()))) << host;
  EXPECT_LE(host.size(), 60u) << host;
  config.ha.lock = config::HaLock::kSource;
  EXPECT_EQ(SourceReportHost(config), "rowbridge/ha");
}

TEST(EndpointsReportHost, StaleSessionGraceCoversTwoHeartbeats) {
  config::SourceConfig source;
  source.heartbeat_period = std::chrono::seconds(5);
  EXPECT_EQ(StaleSessionGrace(source), std::chrono::seconds(17));
}

}  // namespace
}  // namespace rowbridge::endpoints
