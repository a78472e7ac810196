#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

#include "common/error.h"
#include "server/metrics.h"
#include "server/pipeline_metrics.h"

namespace rowbridge::server {
namespace {

TEST(ServerMetrics, RendersCountersAndGaugesExactly) {
  MetricsRegistry registry;
  auto& events = registry.AddCounter("rowbridge_events_total", "Events read.", {"type"});
  events.WithLabels({"write_rows"}).Increment(3);
  events.WithLabels({"delete_rows"}).Increment();
  auto& lag = registry.AddGauge("rowbridge_lag_seconds", "Lag.");
  lag.Get().Set(0.25);
  auto& temp = registry.AddGauge("a_gauge", "Line one\nline two with \\ backslash.", {"k"});
  temp.WithLabels({"quote\" backslash\\ newline\n"}).Set(-3);
  temp.WithLabels({"inf"}).Set(std::numeric_limits<double>::infinity());
  temp.WithLabels({"nan"}).Set(std::nan(""));
  temp.WithLabels({"big"}).Set(1e21);
  EXPECT_EQ(registry.RenderPrometheus(),
            "# HELP a_gauge Line one\\nline two with \\\\ backslash.\n"
            "# TYPE a_gauge gauge\n"
            "a_gauge{k=\"big\"} 1e+21\n"
            "a_gauge{k=\"inf\"} +Inf\n"
            "a_gauge{k=\"nan\"} NaN\n"
            "a_gauge{k=\"quote\\\" backslash\\\\ newline\\n\"} -3\n"
            "# HELP rowbridge_events_total Events read.\n"
            "# TYPE rowbridge_events_total counter\n"
            "rowbridge_events_total{type=\"delete_rows\"} 1\n"
            "rowbridge_events_total{type=\"write_rows\"} 3\n"
            "# HELP rowbridge_lag_seconds Lag.\n"
            "# TYPE rowbridge_lag_seconds gauge\n"
            "rowbridge_lag_seconds 0.25\n");
}

TEST(ServerMetrics, RendersHistogramsExactly) {
  MetricsRegistry registry;
  auto& flush = registry.AddHistogram("flush_seconds", "Flush time.", {0.005, 0.1, 1, 2.5},
                                      {"database", "table"});
  Histogram& orders = flush.WithLabels({"shop", "orders"});
  orders.Observe(0.001);
  orders.Observe(0.005);  // le is inclusive
  orders.Observe(0.05);
  orders.Observe(2);
  orders.Observe(100);
  orders.Observe(std::nan(""));  // ignored
  auto& plain = registry.AddHistogram("sizes", "Sizes.", {10});
  plain.Get().Observe(3);
  EXPECT_EQ(registry.RenderPrometheus(),
            "# HELP flush_seconds Flush time.\n"
            "# TYPE flush_seconds histogram\n"
            "flush_seconds_bucket{database=\"shop\",table=\"orders\",le=\"0.005\"} 2\n"
            "flush_seconds_bucket{database=\"shop\",table=\"orders\",le=\"0.1\"} 3\n"
            "flush_seconds_bucket{database=\"shop\",table=\"orders\",le=\"1\"} 3\n"
            "flush_seconds_bucket{database=\"shop\",table=\"orders\",le=\"2.5\"} 4\n"
            "flush_seconds_bucket{database=\"shop\",table=\"orders\",le=\"+Inf\"} 5\n"
            "flush_seconds_sum{database=\"shop\",table=\"orders\"} 102.056\n"
            "flush_seconds_count{database=\"shop\",table=\"orders\"} 5\n"
            "# HELP sizes Sizes.\n"
            "# TYPE sizes histogram\n"
            "sizes_bucket{le=\"10\"} 1\n"
            "sizes_bucket{le=\"+Inf\"} 1\n"
            "sizes_sum 3\n"
            "sizes_count 1\n");
}

TEST(ServerMetrics, HandlesAreStableAndShared) {
  MetricsRegistry registry;
  auto& family = registry.AddCounter("c_total", "C.", {"x"});
  Counter& a = family.WithLabels({"1"});
  for (int i = 0; i < 100; ++i) family.WithLabels({std::to_string(i + 2)});
  EXPECT_EQ(&a, &family.WithLabels({"1"}));
  // Registering the same definition again returns the same family.
  EXPECT_EQ(&registry.AddCounter("c_total", "C.", {"x"}), &family);
}

TEST(ServerMetrics, RejectsBadNamesAndConflicts) {
  MetricsRegistry registry;
  auto expect_invalid = [](auto&& register_it) {
    try {
      register_it();
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    }
  };
  expect_invalid([&] { registry.AddCounter("9starts_with_digit", "x"); });
  expect_invalid([&] { registry.AddCounter("has-dash", "x"); });
  expect_invalid([&] { registry.AddCounter("ok", "x", {"__reserved"}); });
  expect_invalid([&] { registry.AddCounter("ok", "x", {"a", "a"}); });
  expect_invalid([&] { registry.AddHistogram("h", "x", {1, 2}, {"le"}); });
  expect_invalid([&] { registry.AddHistogram("h", "x", {2, 1}); });
  registry.AddCounter("taken", "x");
  expect_invalid([&] { registry.AddGauge("taken", "x"); });
  expect_invalid([&] { registry.AddCounter("taken", "x", {"label"}); });
  auto& labelled = registry.AddCounter("labelled", "x", {"a", "b"});
  expect_invalid([&] { labelled.WithLabels({"only one"}); });
  registry.AddHistogram("hist", "x", {1, 2});
  expect_invalid([&] { registry.AddHistogram("hist", "x", {1, 3}); });
}

TEST(ServerMetrics, ConcurrentUpdatesAreAllCounted) {
  MetricsRegistry registry;
  Counter& counter = registry.AddCounter("n_total", "N.").Get();
  Gauge& gauge = registry.AddGauge("g", "G.").Get();
  Histogram& histogram = registry.AddHistogram("h", "H.", {0.5}).Get();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        counter.Increment();
        gauge.Add(1);
        histogram.Observe(1);
      }
    });
  }
  std::thread reader([&] {
    for (int i = 0; i < 50; ++i) registry.RenderPrometheus();
  });
  for (auto& t : threads) t.join();
  reader.join();
  EXPECT_EQ(counter.Value(), 40000u);
  EXPECT_EQ(gauge.Value(), 40000);
  Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_EQ(snapshot.count, 40000u);
  EXPECT_EQ(snapshot.cumulative[0], 0u);
  EXPECT_EQ(snapshot.sum, 40000);
}

TEST(ServerMetrics, ExponentialBuckets) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_THROW(ExponentialBuckets(0, 2, 4), Error);
  EXPECT_THROW(ExponentialBuckets(1, 1, 4), Error);
}

TEST(ServerMetrics, PipelineCatalogRegistersOnceAndRenders) {
  MetricsRegistry registry;
  PipelineMetrics metrics(registry);
  PipelineMetrics again(registry);  // same definitions: no conflict
  metrics.rows.WithLabels({"shop", "orders", "insert"}).Increment(5);
  EXPECT_EQ(&again.rows.WithLabels({"shop", "orders", "insert"}),
            &metrics.rows.WithLabels({"shop", "orders", "insert"}));
  std::string text = registry.RenderPrometheus();
  EXPECT_NE(
      text.find("rowbridge_rows_total{database=\"shop\",table=\"orders\",change=\"insert\"} 5\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("rowbridge_build_info{version=\"" ROWBRIDGE_VERSION "\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE rowbridge_flush_duration_seconds histogram\n"), std::string::npos);
}

}  // namespace
}  // namespace rowbridge::server
