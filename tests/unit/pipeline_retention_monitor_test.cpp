// RetentionMonitor against a source it cannot reach: the measurement fails without throwing, is
// logged once however often it fails, and the gauges keep what an earlier measurement left (none
// appear from a failure).
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

#include "pipeline/retention_monitor.h"
#include "server/metrics.h"

namespace rowbridge::pipeline {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RetentionMonitor, AFailedCheckIsLoggedOnceAndLeavesTheGaugesAsTheyWere) {
  config::Config config;
  config.source.host = "127.0.0.1";
  config.source.port = 1;  // nothing listens there: refused at once
  config.source.user = "repl";
  config.source.server_id = 7;
  server::MetricsRegistry registry;
  server::PipelineMetrics metrics(registry);

  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
  struct Restore {
    std::shared_ptr<spdlog::logger> logger;
    ~Restore() { spdlog::set_default_logger(logger); }
  } restore{previous};

  RetentionMonitor monitor(config, metrics,
                           [] { return std::optional<std::string>("mysql-bin.000001"); });
  EXPECT_FALSE(monitor.CheckOnce());
  EXPECT_FALSE(monitor.CheckOnce());
  EXPECT_FALSE(monitor.CheckOnce());
  EXPECT_EQ(Count(log.str(), "binlog retention check on source 127.0.0.1:1 failed"), 1u)
      << log.str();
  EXPECT_EQ(registry.RenderPrometheus().find("\nrowbridge_binlog_retention_headroom_seconds "),
            std::string::npos)
      << "a failure publishes nothing";

  // A value an earlier measurement left stays.
  metrics.retention_seconds.Get().Set(3600);
  EXPECT_FALSE(monitor.CheckOnce());
  EXPECT_EQ(metrics.retention_seconds.Get().Value(), 3600);

  // Nothing to measure before a checkpoint exists: no attempt, no log.
  RetentionMonitor idle(config, metrics, [] { return std::optional<std::string>(); });
  EXPECT_FALSE(idle.CheckOnce());
  EXPECT_EQ(Count(log.str(), "failed"), 1u) << log.str();
}

}  // namespace
}  // namespace rowbridge::pipeline
